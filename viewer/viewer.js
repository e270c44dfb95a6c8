// Smithereens run viewer: plays a recorded run (`*.run.json`, written by
// `smithereens demo` and the scenario recorder) with three.js.
//
// The run format is `crates/core/src/record.rs`. A body's pose is its
// asset → world transform `[tx, ty, tz, qx, qy, qz, qw]`; a chunk's render
// mesh is stored in asset space and drawn at its owning body's pose, so a
// chunk mesh's object transform is exactly that pose. Every chunk belongs to
// exactly one body on every frame (checked on load).
//
// Where the run comes from, in order: an inline
// `<script type="application/json" id="run-data">` (the page `smithereens
// demo` writes, which opens from disk), the `?run=URL` query parameter, or
// `run.json` next to the page (what `smithereens view` serves). "Open run…"
// and drag-and-drop load a local file.
//
// Held parts (`held_parts`, issue 14: projectiles preloaded on a vehicle)
// are drawn at their authored pose on their parent plain body until their
// `released_frame`, then at their own recorded pose when launched; a part
// broken before launch is not drawn from then on.
//
// `window.smithereensViewer` exposes the state to tests: `state` is
// 'loading', 'ready' or 'error'.

import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const RUN_FORMAT = 'smithereens-run';
const RUN_FORMAT_VERSION = 1;
/// Frames a damage event stays visible after its admission.
const EVENT_FRAMES = 12;
const CUT_TONE = new THREE.Color('#f6ead8');
const COLOURS = { intact: 0x5ad17a, broken: 0xff5b4b, support: 0x4aa3ff, event: 0xf0a040, projectile: 0x444b55 };
/// Plain bodies (pushers, blocks, balls) by kind.
const PLAIN_COLOURS = { dynamic: 0x8a93a0, kinematic: 0xd9a441, fixed: 0x6b7280 };
/// Held parts: held on their parent, and flying after launch.
const HELD_COLOURS = { held: 0xc8553d, flying: 0xe8b04a };

// ---------------------------------------------------------------------------
// Reading and checking a run file

/** A run file that cannot be shown; `message` says why in plain words. */
class RunFileError extends Error {}

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const isIndex = (v, n) => Number.isInteger(v) && v >= 0 && v < n;
const isVec = (v, len) => Array.isArray(v) && v.length === len && v.every(isNum);

/** A recorded shape (`crates/core/src/record.rs` `RunShape`) with volume. */
function okShape(s) {
  if (!s) return false;
  if (s.type === 'box') return isVec(s.half_extents, 3) && s.half_extents.every((v) => v > 0);
  if (s.type === 'ball') return isNum(s.radius) && s.radius > 0;
  if (s.type === 'cylinder' || s.type === 'capsule') return isNum(s.radius) && s.radius > 0 && isNum(s.half_height) && s.half_height > 0;
  return false;
}

/** three.js geometry of a recorded shape, centred, cylinders and capsules along y. */
function shapeGeometry(s) {
  if (s.type === 'box') return new THREE.BoxGeometry(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
  if (s.type === 'cylinder') return new THREE.CylinderGeometry(s.radius, s.radius, 2 * s.half_height, 24);
  if (s.type === 'capsule') return new THREE.CapsuleGeometry(s.radius, 2 * s.half_height, 6, 16);
  return new THREE.SphereGeometry(s.radius, 24, 16);
}

/**
 * Parses and checks a run file's text. Returns the run plus derived tables;
 * throws `RunFileError` with a message naming the first problem.
 */
function parseRun(text, source) {
  let run;
  try {
    run = JSON.parse(text);
  } catch (e) {
    throw new RunFileError(`${source} is not valid JSON (is the file truncated?)\n${e.message}`);
  }
  const bad = (what) => { throw new RunFileError(`${source} is not a usable run file: ${what}`); };
  if (run === null || typeof run !== 'object' || Array.isArray(run)) bad('the top level is not a JSON object');
  if (run.format !== RUN_FORMAT) {
    throw new RunFileError(`${source} is not a Smithereens run file (format ${JSON.stringify(run.format ?? null)}, expected "${RUN_FORMAT}")`);
  }
  if (run.version !== RUN_FORMAT_VERSION) {
    throw new RunFileError(`${source}: run format version ${JSON.stringify(run.version)} is not supported (this viewer reads ${RUN_FORMAT_VERSION})`);
  }
  if (!isNum(run.timestep) || run.timestep <= 0) bad('timestep is not a positive number');
  if (!Number.isInteger(run.frame_count) || run.frame_count < 1) bad('frame_count is not a positive integer');
  if (run.ground_y !== null && run.ground_y !== undefined && !isNum(run.ground_y)) bad('ground_y is not a number');
  for (const key of ['chunks', 'bonds', 'bodies', 'projectiles', 'events', 'breaks']) {
    if (!Array.isArray(run[key])) bad(`"${key}" is missing or not a list`);
  }
  const frames = run.frame_count;
  const n = run.chunks.length;
  run.chunks.forEach((c, i) => {
    const m = c && c.mesh;
    if (!m || !isVec(c.centroid, 3) || !Array.isArray(m.positions) || !Array.isArray(m.exterior) || !Array.isArray(m.interior)) bad(`chunk ${i} is malformed`);
    if (!m.positions.every((p) => isVec(p, 3))) bad(`chunk ${i} has a malformed vertex`);
    const count = m.positions.length;
    for (const t of m.exterior.concat(m.interior)) {
      if (!Array.isArray(t) || t.length !== 3 || !t.every((v) => isIndex(v, count))) bad(`chunk ${i} has a triangle with a vertex index out of range`);
    }
  });
  run.bonds.forEach((b, i) => {
    if (!b || !isIndex(b.chunk0, n) || !(b.chunk1 === null || b.chunk1 === undefined || isIndex(b.chunk1, n)) || !isVec(b.centroid, 3)) bad(`bond ${i} names a chunk out of range`);
  });
  run.bodies.forEach((b, i) => {
    if (!b || !Array.isArray(b.chunks) || !b.chunks.every((c) => isIndex(c, n))) bad(`body ${i} names a chunk out of range`);
    if (!Number.isInteger(b.first_frame) || b.first_frame < 0 || !Array.isArray(b.poses) || !b.poses.every((p) => isVec(p, 7))) bad(`body ${i} has malformed poses`);
    if (b.first_frame + b.poses.length > frames) bad(`body ${i} has poses past the last frame`);
  });
  run.projectiles.forEach((p, i) => {
    if (!p || !isNum(p.radius) || !Number.isInteger(p.first_frame) || !Array.isArray(p.poses) || !p.poses.every((q) => isVec(q, 7))) bad(`projectile ${i} is malformed`);
  });
  // Plain bodies arrived with multi-instance runs; older files have none.
  if (run.plain_bodies === undefined || run.plain_bodies === null) run.plain_bodies = [];
  if (!Array.isArray(run.plain_bodies)) bad('"plain_bodies" is not a list');
  run.plain_bodies.forEach((p, i) => {
    if (!okShape(p && p.shape)) bad(`plain body ${i} has a malformed shape`);
    if (!['dynamic', 'kinematic', 'fixed'].includes(p.kind)) bad(`plain body ${i} has an unknown kind`);
    if (!Number.isInteger(p.first_frame) || p.first_frame < 0 || !Array.isArray(p.poses) || !p.poses.every((q) => isVec(q, 7))) bad(`plain body ${i} has malformed poses`);
    if (p.first_frame + p.poses.length > frames) bad(`plain body ${i} has poses past the last frame`);
  });
  // Held parts arrived with vehicles (issue 14); older files have none.
  if (run.held_parts === undefined || run.held_parts === null) run.held_parts = [];
  if (!Array.isArray(run.held_parts)) bad('"held_parts" is not a list');
  run.held_parts.forEach((h, i) => {
    if (!h || !okShape(h.shape)) bad(`held part ${i} has a malformed shape`);
    if (!isIndex(h.parent, run.plain_bodies.length)) bad(`held part ${i} names a parent out of range`);
    if (!isVec(h.local, 7)) bad(`held part ${i} has a malformed pose`);
    const released = h.released_frame;
    if (released !== undefined && released !== null && !(Number.isInteger(released) && released >= 0 && released < frames)) bad(`held part ${i} is released past the last frame`);
    if (h.poses === undefined) h.poses = [];
    if (!Array.isArray(h.poses) || !h.poses.every((q) => isVec(q, 7))) bad(`held part ${i} has malformed poses`);
    if (h.poses.length > 0 && (released === undefined || released === null || released + h.poses.length > frames)) bad(`held part ${i} has poses past the last frame`);
  });
  run.events.forEach((e, i) => {
    if (!e || !Number.isInteger(e.frame) || !isVec(e.point, 3) || !isNum(e.radius) || !isNum(e.damage)) bad(`event ${i} is malformed`);
  });
  run.breaks.forEach((b, i) => {
    if (!b || !Number.isInteger(b.frame) || !isIndex(b.bond, run.bonds.length)) bad(`break ${i} names a bond out of range`);
  });
  // Stress utilisation arrived with stress (issue 13); older files have none.
  if (run.bond_stress === undefined || run.bond_stress === null) run.bond_stress = [];
  if (!Array.isArray(run.bond_stress)) bad('"bond_stress" is not a list');
  run.bond_stress.forEach((s, i) => {
    if (!s || !Number.isInteger(s.frame) || s.frame < 0 || s.frame >= frames || !isIndex(s.bond, run.bonds.length) || !isNum(s.utilisation) || s.utilisation < 0) bad(`bond stress ${i} is malformed`);
  });

  // owner[frame * n + chunk] = index into run.bodies.
  const owner = new Int32Array(frames * n).fill(-1);
  run.bodies.forEach((b, bi) => {
    for (let k = 0; k < b.poses.length; k++) {
      const base = (b.first_frame + k) * n;
      for (const c of b.chunks) {
        if (owner[base + c] !== -1) bad(`chunk ${c} belongs to two bodies on frame ${b.first_frame + k}`);
        owner[base + c] = bi;
      }
    }
  });
  const orphan = owner.indexOf(-1);
  if (orphan !== -1) bad(`chunk ${orphan % n} belongs to no body on frame ${Math.floor(orphan / n)}`);

  // Cumulative counts per frame for the stats panel and the timeline.
  const brokenBy = new Int32Array(frames);
  const breaksAt = new Int32Array(frames);
  const brokenAt = new Int32Array(run.bonds.length).fill(-1);
  for (const b of run.breaks) {
    if (b.frame < frames) breaksAt[b.frame]++;
    if (brokenAt[b.bond] === -1 || b.frame < brokenAt[b.bond]) brokenAt[b.bond] = b.frame;
  }
  const eventsBy = new Int32Array(frames);
  for (const e of run.events) if (e.frame < frames) eventsBy[e.frame]++;
  for (let f = 0; f < frames; f++) {
    brokenBy[f] = breaksAt[f] + (f > 0 ? brokenBy[f - 1] : 0);
    eventsBy[f] += f > 0 ? eventsBy[f - 1] : 0;
  }
  // Per bond, its utilisation entries in frame order (the run appends them so).
  const stressOf = run.bonds.map(() => []);
  for (const e of run.bond_stress) stressOf[e.bond].push(e);
  for (const list of stressOf) list.sort((a, b) => a.frame - b.frame);
  return { run, owner, brokenBy, breaksAt, brokenAt, eventsBy, stressOf };
}

/** A bond's stress utilisation on frame `f`: its last entry at or before it, 0 before any. */
export function utilisationAt(table, bond, f) {
  const list = table.stressOf[bond];
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].frame <= f) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : list[lo - 1].utilisation;
}

/** Colour of a utilisation: green (0) → yellow (0.5) → red (≥ 1). */
export function stressColour(u) {
  const t = Math.min(Math.max(u, 0), 1);
  return t < 0.5 ? [2 * t, 0.82, 0.2] : [1, 0.82 * (2 - 2 * t), 0.2 * (2 - 2 * t)];
}

// ---------------------------------------------------------------------------
// The scene

function bodyColour(id) {
  // Golden-ratio hue steps keep neighbouring ids apart.
  return new THREE.Color().setHSL((id * 0.618034 + 0.08) % 1, 0.6, 0.45);
}

function setPose(object, p) {
  object.position.set(p[0], p[1], p[2]);
  object.quaternion.set(p[3], p[4], p[5], p[6]).normalize();
}

class Viewer {
  constructor(container, table) {
    this.container = container;
    this.table = table;
    const run = table.run;
    this.run = run;
    this.frame = 0;
    this.colourBy = 'body';
    this.scratchQuaternion = new THREE.Quaternion();
    this.scratchVector = new THREE.Vector3();
    this.show = { intact: false, broken: false, supports: true, events: true, projectiles: true, stress: false };

    try {
      this.renderer = new THREE.WebGLRenderer({ antialias: true });
    } catch (e) {
      throw new Error(`WebGL is not available in this browser (${e.message})`);
    }
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.shadowMap.enabled = true;
    container.appendChild(this.renderer.domElement);

    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color('#2a2f38');
    this.scene.add(new THREE.HemisphereLight(0xdde6f0, 0x3a3530, 1.6));

    this.buildChunks();
    const bounds = this.bounds();
    const size = Math.max(bounds.getSize(new THREE.Vector3()).length(), 1e-3);
    const centre = bounds.getCenter(new THREE.Vector3());

    const sun = new THREE.DirectionalLight(0xffffff, 2.2);
    sun.position.copy(centre).add(new THREE.Vector3(-0.6, 1.2, 0.8).multiplyScalar(size * 2));
    sun.target.position.copy(centre);
    sun.castShadow = true;
    sun.shadow.mapSize.set(1024, 1024);
    const sc = sun.shadow.camera;
    sc.left = sc.bottom = -size * 1.5;
    sc.right = sc.top = size * 1.5;
    sc.near = size * 0.1;
    sc.far = size * 6;
    this.scene.add(sun, sun.target);

    if (isNum(run.ground_y)) {
      const ground = new THREE.Mesh(new THREE.PlaneGeometry(size * 12, size * 12), new THREE.MeshStandardMaterial({ color: 0x59606b, roughness: 1 }));
      ground.rotation.x = -Math.PI / 2;
      ground.position.set(centre.x, run.ground_y, centre.z);
      ground.receiveShadow = true;
      ground.userData.kind = 'ground';
      const grid = new THREE.GridHelper(size * 12, 48, 0x7a828e, 0x6a717c);
      grid.position.set(centre.x, run.ground_y + size * 1e-4, centre.z);
      this.scene.add(ground, grid);
    }

    this.markerSize = size * 0.012;
    this.buildBonds();
    this.buildSupports();
    this.buildEvents();
    this.buildProjectiles();
    this.buildPlainBodies();
    this.buildHeldParts();

    this.camera = new THREE.PerspectiveCamera(45, 1, size * 0.01, size * 100);
    this.camera.position.copy(centre).add(new THREE.Vector3(-0.75, 0.45, 1.0).normalize().multiplyScalar(size * 1.35));
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.copy(centre);
    this.controls.update();
    this.controls.addEventListener('change', () => this.requestRender());

    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(container);
    this.resize();
    this.setFrame(0);
  }

  /** World bounds of all chunks on frame 0. */
  bounds() {
    const box = new THREE.Box3();
    for (const m of this.chunkMeshes) {
      m.geometry.computeBoundingBox();
      box.union(m.geometry.boundingBox.clone().applyMatrix4(m.matrixWorld));
    }
    if (box.isEmpty()) {
      // No chunks (a run of vehicles): the moving plain bodies on frame 0.
      for (const p of this.run.plain_bodies) {
        if (p.kind === 'fixed' || p.first_frame !== 0 || p.poses.length === 0) continue;
        const s = p.shape;
        const r = s.type === 'box' ? Math.hypot(...s.half_extents) : s.radius + (s.half_height || 0);
        const c = new THREE.Vector3(p.poses[0][0], p.poses[0][1], p.poses[0][2]);
        box.union(new THREE.Box3(c.clone().subScalar(r), c.clone().addScalar(r)));
      }
    }
    if (box.isEmpty()) box.set(new THREE.Vector3(-1, 0, -1), new THREE.Vector3(1, 2, 1));
    return box;
  }

  buildChunks() {
    const { run, owner } = this.table;
    const n = run.chunks.length;
    this.chunkMeshes = run.chunks.map((chunk, i) => {
      const m = chunk.mesh;
      // The exterior keeps its shared vertices, so it shades smooth; every cut
      // triangle gets its own three vertices, so cut faces shade flat. That
      // difference, plus the pale cut colour, is what marks interior faces.
      const ext = m.exterior.flat();
      const cut = m.interior.flat();
      const positions = new Float32Array((m.positions.length + cut.length) * 3);
      m.positions.forEach((p, k) => positions.set(p, k * 3));
      cut.forEach((v, k) => positions.set(m.positions[v], (m.positions.length + k) * 3));
      const index = ext.concat(cut.map((_, k) => m.positions.length + k));
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
      geometry.setIndex(index);
      geometry.addGroup(0, ext.length, 0);
      geometry.addGroup(ext.length, cut.length, 1);
      geometry.computeVertexNormals();
      const exterior = new THREE.MeshStandardMaterial({ roughness: 0.6, metalness: 0 });
      const interior = new THREE.MeshStandardMaterial({ roughness: 0.95, metalness: 0 });
      const mesh = new THREE.Mesh(geometry, [exterior, interior]);
      mesh.castShadow = true;
      mesh.receiveShadow = true;
      mesh.userData = { kind: 'chunk', chunk: i, body: -1 };
      mesh.name = `chunk ${i}`;
      const b = run.bodies[owner[i]];
      setPose(mesh, b.poses[0 - b.first_frame]);
      mesh.updateMatrixWorld();
      this.scene.add(mesh);
      return mesh;
    });
    this.chunkBody = new Int32Array(n).fill(-1);
  }

  buildBonds() {
    const count = this.run.bonds.length;
    const make = (colour) => {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(count, 1) * 12), 3));
      g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(Math.max(count, 1) * 12).fill(1), 3));
      const lines = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color: colour, depthTest: false, transparent: true, opacity: 0.9 }));
      lines.renderOrder = 2;
      lines.frustumCulled = false;
      this.scene.add(lines);
      return lines;
    };
    this.intactLines = make(COLOURS.intact);
    this.brokenLines = make(COLOURS.broken);
  }

  buildSupports() {
    const { run } = this;
    this.supportChunks = run.chunks.map((c, i) => (c.support ? i : -1)).filter((i) => i >= 0);
    this.worldBonds = run.bonds.map((b, i) => (b.chunk1 === null || b.chunk1 === undefined ? i : -1)).filter((i) => i >= 0);
    const count = Math.max(this.supportChunks.length + this.worldBonds.length, 1);
    const geometry = new THREE.OctahedronGeometry(this.markerSize * 2.2);
    const material = new THREE.MeshBasicMaterial({ color: COLOURS.support, depthTest: false, transparent: true, opacity: 0.9 });
    this.supportMarkers = new THREE.InstancedMesh(geometry, material, count);
    this.supportMarkers.count = this.supportChunks.length + this.worldBonds.length;
    this.supportMarkers.renderOrder = 3;
    this.supportMarkers.frustumCulled = false;
    this.supportMarkers.userData.kind = 'supports';
    this.scene.add(this.supportMarkers);
  }

  buildEvents() {
    const sphere = new THREE.SphereGeometry(1, 24, 16);
    this.eventMeshes = this.run.events.map((e) => {
      const material = new THREE.MeshBasicMaterial({ color: COLOURS.event, transparent: true, opacity: 0.2, depthWrite: false });
      const mesh = new THREE.Mesh(sphere, material);
      mesh.position.set(...e.point);
      mesh.scale.setScalar(Math.max(e.radius, this.markerSize));
      mesh.userData.kind = 'event';
      mesh.visible = false;
      this.scene.add(mesh);
      return mesh;
    });
  }

  buildProjectiles() {
    this.projectileMeshes = this.run.projectiles.map((p) => {
      const mesh = new THREE.Mesh(new THREE.SphereGeometry(p.radius, 24, 16), new THREE.MeshStandardMaterial({ color: COLOURS.projectile, roughness: 0.35, metalness: 0.6 }));
      mesh.castShadow = true;
      mesh.userData.kind = 'projectile';
      mesh.visible = false;
      this.scene.add(mesh);
      return mesh;
    });
  }

  /** Plain bodies: a box or a ball each, shown with the projectiles. */
  buildPlainBodies() {
    this.plainMeshes = this.run.plain_bodies.map((p) => {
      const geometry = shapeGeometry(p.shape);
      const material = new THREE.MeshStandardMaterial({ color: PLAIN_COLOURS[p.kind], roughness: 0.5, metalness: 0.3 });
      const mesh = new THREE.Mesh(geometry, material);
      mesh.castShadow = true;
      mesh.receiveShadow = true;
      mesh.userData.kind = 'plain';
      mesh.visible = false;
      this.scene.add(mesh);
      return mesh;
    });
  }

  /** Held parts: one mesh each, shown with the projectiles. */
  buildHeldParts() {
    this.scratchMatrix = new THREE.Matrix4();
    this.scratchLocal = new THREE.Matrix4();
    this.heldMeshes = this.run.held_parts.map((h) => {
      const mesh = new THREE.Mesh(shapeGeometry(h.shape), new THREE.MeshStandardMaterial({ color: HELD_COLOURS.held, roughness: 0.4, metalness: 0.4 }));
      mesh.castShadow = true;
      mesh.userData.kind = 'held';
      mesh.visible = false;
      this.scene.add(mesh);
      return mesh;
    });
  }

  /**
   * World pose `[tx, ty, tz, qx, qy, qz, qw]` of held part `i` on `frame`,
   * whether it is still held, or null when it is not drawn (broken, or its
   * parent does not exist on that frame).
   */
  heldPose(i, frame) {
    const h = this.run.held_parts[i];
    const released = h.released_frame ?? Infinity;
    if (frame >= released) {
      if (h.broken) return null;
      const k = frame - released;
      return k < h.poses.length ? { pose: h.poses[k], held: false } : null;
    }
    const parent = this.run.plain_bodies[h.parent];
    const k = frame - parent.first_frame;
    if (k < 0 || k >= parent.poses.length) return null;
    const p = parent.poses[k];
    const l = h.local;
    const world = this.scratchMatrix.compose(new THREE.Vector3(p[0], p[1], p[2]), new THREE.Quaternion(p[3], p[4], p[5], p[6]).normalize(), new THREE.Vector3(1, 1, 1));
    world.multiply(this.scratchLocal.compose(new THREE.Vector3(l[0], l[1], l[2]), new THREE.Quaternion(l[3], l[4], l[5], l[6]).normalize(), new THREE.Vector3(1, 1, 1)));
    const t = new THREE.Vector3();
    const q = new THREE.Quaternion();
    world.decompose(t, q, new THREE.Vector3());
    return { pose: [t.x, t.y, t.z, q.x, q.y, q.z, q.w], held: true };
  }

  /** Pose of `chunk`'s owning body on `frame`. */
  chunkPose(frame, chunk) {
    const body = this.run.bodies[this.table.owner[frame * this.run.chunks.length + chunk]];
    return body.poses[frame - body.first_frame];
  }

  /** World position of an asset-space point carried by `chunk` on `frame`. */
  carried(frame, chunk, point, out) {
    const p = this.chunkPose(frame, chunk);
    const q = this.scratchQuaternion.set(p[3], p[4], p[5], p[6]).normalize();
    return out.set(point[0], point[1], point[2]).applyQuaternion(q).add(this.scratchVector.set(p[0], p[1], p[2]));
  }

  colourChunk(i, bodyIndex) {
    const key = this.colourBy === 'body' ? this.run.bodies[bodyIndex].id : i;
    const base = bodyColour(key);
    const [exterior, interior] = this.chunkMeshes[i].material;
    exterior.color.copy(base);
    interior.color.copy(base).lerp(CUT_TONE, 0.75);
  }

  setColourBy(mode) {
    this.colourBy = mode;
    this.chunkBody.fill(-1);
    this.setFrame(this.frame);
  }

  setFrame(frame) {
    const { run, table } = this;
    const f = Math.max(0, Math.min(run.frame_count - 1, Math.round(frame)));
    this.frame = f;
    const n = run.chunks.length;

    for (let i = 0; i < n; i++) {
      const bi = table.owner[f * n + i];
      const body = run.bodies[bi];
      const mesh = this.chunkMeshes[i];
      setPose(mesh, body.poses[f - body.first_frame]);
      if (this.chunkBody[i] !== bi) {
        this.chunkBody[i] = bi;
        mesh.userData.body = body.id;
        this.colourChunk(i, bi);
      }
    }

    // A bond is drawn as two spokes, each from one chunk's centroid to the
    // bond's interface point carried by that chunk. While the bond holds the
    // spokes meet; once it breaks they show where each side's half went.
    const a = new THREE.Vector3();
    const b = new THREE.Vector3();
    const fill = (lines, visible, wanted) => {
      lines.visible = visible;
      if (!visible) return;
      const pos = lines.geometry.attributes.position;
      const col = lines.geometry.attributes.color;
      // Intact bonds by stress / limit when asked and the run has stress.
      const byStress = !wanted && this.show.stress && run.bond_stress.length > 0;
      const wantColours = byStress !== lines.material.vertexColors;
      if (wantColours) {
        lines.material.vertexColors = byStress;
        lines.material.color.set(byStress ? 0xffffff : COLOURS.intact);
        lines.material.needsUpdate = true;
      }
      let k = 0;
      let rgb = [1, 1, 1];
      const spoke = (frame, chunk, point) => {
        this.carried(frame, chunk, run.chunks[chunk].centroid, a);
        this.carried(frame, chunk, point, b);
        col.setXYZ(k, rgb[0], rgb[1], rgb[2]);
        pos.setXYZ(k++, a.x, a.y, a.z);
        col.setXYZ(k, rgb[0], rgb[1], rgb[2]);
        pos.setXYZ(k++, b.x, b.y, b.z);
      };
      run.bonds.forEach((bond, bi) => {
        const broken = table.brokenAt[bi] !== -1 && table.brokenAt[bi] <= f;
        if (broken !== wanted) return;
        if (byStress) rgb = stressColour(utilisationAt(table, bi, f));
        spoke(f, bond.chunk0, bond.centroid);
        if (bond.chunk1 !== null && bond.chunk1 !== undefined) spoke(f, bond.chunk1, bond.centroid);
      });
      pos.needsUpdate = true;
      if (byStress) col.needsUpdate = true;
      lines.geometry.setDrawRange(0, k);
    };
    fill(this.intactLines, this.show.intact, false);
    fill(this.brokenLines, this.show.broken, true);

    this.supportMarkers.visible = this.show.supports;
    if (this.show.supports) {
      const m = new THREE.Matrix4();
      let k = 0;
      for (const c of this.supportChunks) {
        this.carried(f, c, run.chunks[c].centroid, a);
        this.supportMarkers.setMatrixAt(k++, m.makeTranslation(a.x, a.y, a.z));
      }
      for (const bi of this.worldBonds) {
        this.carried(0, run.bonds[bi].chunk0, run.bonds[bi].centroid, a);
        this.supportMarkers.setMatrixAt(k++, m.makeTranslation(a.x, a.y, a.z));
      }
      this.supportMarkers.instanceMatrix.needsUpdate = true;
    }

    run.events.forEach((e, i) => {
      const age = f - e.frame;
      const mesh = this.eventMeshes[i];
      mesh.visible = this.show.events && age >= 0 && age < EVENT_FRAMES;
      if (mesh.visible) mesh.material.opacity = 0.22 * (1 - age / EVENT_FRAMES);
    });

    run.projectiles.forEach((p, i) => {
      const k = f - p.first_frame;
      const mesh = this.projectileMeshes[i];
      mesh.visible = this.show.projectiles && k >= 0 && k < p.poses.length;
      if (mesh.visible) setPose(mesh, p.poses[k]);
    });

    run.plain_bodies.forEach((p, i) => {
      const k = f - p.first_frame;
      const mesh = this.plainMeshes[i];
      mesh.visible = this.show.projectiles && k >= 0 && k < p.poses.length;
      if (mesh.visible) setPose(mesh, p.poses[k]);
    });

    this.heldMeshes.forEach((mesh, i) => {
      const at = this.show.projectiles ? this.heldPose(i, f) : null;
      mesh.visible = at !== null;
      if (!at) return;
      setPose(mesh, at.pose);
      mesh.material.color.setHex(at.held ? HELD_COLOURS.held : HELD_COLOURS.flying);
    });

    this.requestRender();
  }

  /** Counts for the stats panel on the current frame. */
  stats() {
    const { run, table, frame: f } = this;
    let bodies = 0;
    let moving = 0;
    for (const b of run.bodies) {
      if (f >= b.first_frame && f < b.first_frame + b.poses.length) {
        bodies++;
        if (!b.supported) moving++;
      }
    }
    return { frame: f, frames: run.frame_count, time: f * run.timestep, bodies, moving, broken: table.brokenBy[f], bonds: run.bonds.length, events: table.eventsBy[f] };
  }

  resize() {
    const w = Math.max(this.container.clientWidth, 1);
    const h = Math.max(this.container.clientHeight, 1);
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  requestRender() {
    this.dirty = true;
  }

  renderIfDirty() {
    if (!this.dirty) return;
    this.dirty = false;
    this.renderer.render(this.scene, this.camera);
  }

  dispose() {
    this.resizeObserver.disconnect();
    this.controls.dispose();
    this.scene.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      for (const m of [].concat(o.material || [])) m.dispose();
    });
    this.renderer.dispose();
    this.renderer.domElement.remove();
  }
}

// ---------------------------------------------------------------------------
// Timeline under the view: damage events above the axis (height ~ log damage),
// bond breaks per frame below it, projectile launches as grey ticks.

function drawTimeline(canvas, table, frame) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, w, h);
  if (!table) return;
  const { run } = table;
  const frames = run.frame_count;
  const x = (f) => ((f + 0.5) / frames) * w;
  const mid = Math.round(h * 0.55);
  g.fillStyle = '#3a404a';
  g.fillRect(0, mid, w, Math.max(1, dpr));

  const maxDamage = Math.max(1, ...run.events.map((e) => e.damage));
  g.strokeStyle = '#f0a040';
  g.lineWidth = Math.max(1, dpr);
  for (const e of run.events) {
    const hgt = (mid - 4 * dpr) * (0.25 + 0.75 * Math.log1p(e.damage) / Math.log1p(maxDamage));
    g.beginPath();
    g.moveTo(x(e.frame), mid);
    g.lineTo(x(e.frame), mid - hgt);
    g.stroke();
  }
  const maxBreaks = Math.max(1, ...table.breaksAt);
  g.fillStyle = '#ff5b4b';
  const bw = Math.max(dpr, w / frames);
  for (let f = 0; f < frames; f++) {
    const k = table.breaksAt[f];
    if (k > 0) g.fillRect(x(f) - bw / 2, mid + dpr, bw, (h - mid - 2 * dpr) * (0.2 + 0.8 * (k / maxBreaks)));
  }
  g.fillStyle = '#9aa3ad';
  const launches = run.projectiles.map((p) => p.first_frame).concat(run.held_parts.filter((h) => !h.broken && Number.isInteger(h.released_frame)).map((h) => h.released_frame));
  for (const first of launches) {
    const px = x(first);
    g.beginPath();
    g.moveTo(px - 4 * dpr, 0);
    g.lineTo(px + 4 * dpr, 0);
    g.lineTo(px, 7 * dpr);
    g.fill();
  }
  g.fillStyle = '#ffffff';
  g.fillRect(x(frame) - dpr, 0, 2 * dpr, h);
  g.font = `${10 * dpr}px system-ui, sans-serif`;
  for (const [text, y] of [['damage events', 12 * dpr], ['bond breaks', h - 4 * dpr]]) {
    const tw = g.measureText(text).width;
    g.fillStyle = 'rgba(21, 23, 27, 0.8)';
    g.fillRect(w - tw - 8 * dpr, y - 10 * dpr, tw + 6 * dpr, 13 * dpr);
    g.fillStyle = '#9aa3ad';
    g.fillText(text, w - tw - 5 * dpr, y);
  }
}

// ---------------------------------------------------------------------------
// Page wiring

const $ = (id) => document.getElementById(id);
const api = (window.smithereensViewer = Object.assign(window.smithereensViewer || {}, { state: 'loading', error: null }));
let viewer = null;
let playing = false;
let lastTime = 0;
let playhead = 0;

function showError(title, detail) {
  window.smithereensFail(title, detail);
  $('message').hidden = true;
  setPlaying(false);
}

function setPlaying(on) {
  playing = on && viewer !== null;
  $('play').textContent = playing ? '❚❚' : '▶';
  if (playing && viewer.frame >= viewer.run.frame_count - 1) viewer.setFrame(0);
  if (viewer) playhead = viewer.frame;
  lastTime = performance.now();
}

function showFrame(frame) {
  if (!viewer) return;
  viewer.setFrame(frame);
  playhead = viewer.frame;
  updatePanels();
}

function updatePanels() {
  const s = viewer.stats();
  $('stat-frame').textContent = `${s.frame} / ${s.frames - 1}`;
  $('stat-time').textContent = `${s.time.toFixed(2)} s`;
  $('stat-bodies').textContent = String(s.bodies);
  $('stat-moving').textContent = String(s.moving);
  $('stat-broken').textContent = `${s.broken} / ${s.bonds}`;
  $('stat-events').textContent = String(s.events);
  $('frame-label').textContent = `frame ${s.frame} / ${s.frames - 1} · ${s.time.toFixed(2)} s`;
  $('scrub').value = String(s.frame);
  drawTimeline($('timeline'), viewer.table, s.frame);
  api.frame = s.frame;
  api.stats = s;
}

/**
 * Where a run opens: `?frame=N` or `?t=SECONDS` (paused there), otherwise
 * 0.2 s before the first broken bond, playing, so the page opens on the
 * action; `?play=0` keeps it paused. Runs without a break open at frame 0.
 */
function startOf(table, params) {
  const run = table.run;
  const last = run.frame_count - 1;
  const clamp = (f) => Math.max(0, Math.min(last, f));
  const frame = params.get('frame');
  if (frame !== null && Number.isFinite(Number(frame))) return { frame: clamp(Math.round(Number(frame))), play: params.get('play') === '1' };
  const t = params.get('t');
  if (t !== null && Number.isFinite(Number(t))) return { frame: clamp(Math.round(Number(t) / run.timestep)), play: params.get('play') === '1' };
  const firstBreak = run.breaks.reduce((m, b) => Math.min(m, b.frame), Infinity);
  if (!Number.isFinite(firstBreak)) return { frame: 0, play: false };
  return { frame: clamp(firstBreak - Math.round(0.2 / run.timestep)), play: params.get('play') !== '0' };
}

function open(text, source, params = new URLSearchParams()) {
  let table;
  try {
    table = parseRun(text, source);
  } catch (e) {
    showError('Cannot show this run', e.message);
    return;
  }
  if (viewer) viewer.dispose();
  viewer = null;
  $('error').hidden = true;
  try {
    viewer = new Viewer($('view'), table);
  } catch (e) {
    showError('Cannot show this run', e.message);
    return;
  }
  $('message').hidden = true;
  $('stats').hidden = false;
  $('toggles').hidden = false;
  $('run-name').textContent = `${table.run.name || 'run'} · ${source}`;
  const scrub = $('scrub');
  scrub.max = String(table.run.frame_count - 1);
  for (const id of ['play', 'step-back', 'step-forward', 'scrub']) $(id).disabled = false;
  for (const [key, id] of [['intact', 'show-intact'], ['broken', 'show-broken'], ['supports', 'show-supports'], ['events', 'show-events'], ['projectiles', 'show-projectiles'], ['stress', 'show-stress']]) {
    viewer.show[key] = $(id).checked;
  }
  // Stress colours only mean something for runs with stress; such a run
  // opens with its intact bonds coloured by stress / limit.
  const stressed = table.run.bond_stress.length > 0;
  $('stress-toggle').hidden = !stressed;
  if (stressed && !api.stressShown) {
    api.stressShown = true;
    $('show-stress').checked = true;
    $('show-intact').checked = true;
    viewer.show.stress = true;
    viewer.show.intact = true;
  }
  viewer.setColourBy($('colour-by').value);
  const start = startOf(table, params);
  setPlaying(false);
  showFrame(start.frame);
  if (start.play) setPlaying(true);
  api.start = start;
  Object.assign(api, { state: 'ready', error: null, source, frameCount: table.run.frame_count, chunkCount: table.run.chunks.length });
}

/** Chunk mesh world matrices on the current frame (for tests). */
api.chunkMatrices = () => (viewer ? viewer.chunkMeshes.map((m) => (m.updateMatrixWorld(), Array.from(m.matrixWorld.elements))) : []);
/** World matrices of the plain bodies on the current frame (for tests). */
api.plainMatrices = () => (viewer ? viewer.plainMeshes.map((m) => (m.updateMatrixWorld(), Array.from(m.matrixWorld.elements))) : []);
/** World matrices of the held parts on the current frame, `null` for a hidden one (for tests). */
api.heldMatrices = () => (viewer ? viewer.heldMeshes.map((m) => (m.visible ? (m.updateMatrixWorld(), Array.from(m.matrixWorld.elements)) : null)) : []);
/** Colours of the intact bond spokes on the current frame as [r, g, b] per spoke vertex pair, or null when they are not coloured by stress (for tests). */
api.bondColours = () => {
  if (!viewer || !viewer.intactLines.material.vertexColors) return null;
  const col = viewer.intactLines.geometry.attributes.color;
  const n = viewer.intactLines.geometry.drawRange.count;
  const out = [];
  for (let k = 0; k < n; k += 2) out.push([col.getX(k), col.getY(k), col.getZ(k)]);
  return out;
};
/** Scene object counts by kind (for tests). */
api.counts = () => {
  const counts = { meshes: 0 };
  if (!viewer) return counts;
  viewer.scene.traverse((o) => {
    if (o.isMesh) counts.meshes++;
    const kind = o.userData && o.userData.kind;
    if (kind) counts[kind] = (counts[kind] || 0) + 1;
  });
  return counts;
};
/** Forces a render now and reports whether WebGL drew (for tests). */
api.renderNow = () => {
  if (!viewer) return false;
  viewer.requestRender();
  viewer.renderIfDirty();
  return viewer.renderer.getContext() !== null;
};

function tick(now) {
  if (viewer) {
    if (playing) {
      const speed = Number($('speed').value) || 1;
      playhead += ((now - lastTime) / 1000 / viewer.run.timestep) * speed;
      const last = viewer.run.frame_count - 1;
      if (playhead >= last) {
        playhead = last;
        setPlaying(false);
      }
      if (Math.floor(playhead) !== viewer.frame) {
        viewer.setFrame(Math.floor(playhead));
        updatePanels();
      }
    }
    viewer.renderIfDirty();
  }
  lastTime = now;
  requestAnimationFrame(tick);
}

function wireControls() {
  $('play').addEventListener('click', () => setPlaying(!playing));
  $('step-back').addEventListener('click', () => { setPlaying(false); showFrame(viewer.frame - 1); });
  $('step-forward').addEventListener('click', () => { setPlaying(false); showFrame(viewer.frame + 1); });
  $('scrub').addEventListener('input', (e) => { setPlaying(false); showFrame(Number(e.target.value)); });
  for (const [key, id] of [['intact', 'show-intact'], ['broken', 'show-broken'], ['supports', 'show-supports'], ['events', 'show-events'], ['projectiles', 'show-projectiles'], ['stress', 'show-stress']]) {
    $(id).addEventListener('change', (e) => { if (viewer) { viewer.show[key] = e.target.checked; viewer.setFrame(viewer.frame); } });
  }
  $('colour-by').addEventListener('change', (e) => { if (viewer) viewer.setColourBy(e.target.value); });

  const timeline = $('timeline');
  const scrubTo = (e) => {
    if (!viewer) return;
    const r = timeline.getBoundingClientRect();
    setPlaying(false);
    showFrame(Math.floor(((e.clientX - r.left) / r.width) * viewer.run.frame_count));
  };
  timeline.addEventListener('pointerdown', (e) => { timeline.setPointerCapture(e.pointerId); scrubTo(e); });
  timeline.addEventListener('pointermove', (e) => { if (timeline.hasPointerCapture(e.pointerId)) scrubTo(e); });
  new ResizeObserver(() => viewer && drawTimeline(timeline, viewer.table, viewer.frame)).observe(timeline);

  document.addEventListener('keydown', (e) => {
    if (!viewer || e.target.tagName === 'SELECT' || (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox')) return;
    if (e.key === ' ') { e.preventDefault(); setPlaying(!playing); }
    else if (e.key === 'ArrowLeft') showFrame(viewer.frame - 1);
    else if (e.key === 'ArrowRight') showFrame(viewer.frame + 1);
    else if (e.key === 'Home') showFrame(0);
    else if (e.key === 'End') showFrame(viewer.run.frame_count - 1);
  });

  const readFile = (file) => file.text().then((text) => open(text, file.name), (e) => showError('Cannot read the file', String(e)));
  $('open-button').addEventListener('click', () => $('open-file').click());
  $('open-file').addEventListener('change', (e) => { if (e.target.files[0]) readFile(e.target.files[0]); e.target.value = ''; });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    const file = e.dataTransfer && e.dataTransfer.files[0];
    if (file) readFile(file);
  });
}

async function loadInitialRun() {
  const inline = $('run-data');
  const params = new URLSearchParams(location.search);
  if (inline) return open(inline.textContent, 'embedded run', params);
  const url = params.get('run') || 'run.json';
  let response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch (e) {
    const hint = location.protocol === 'file:' ? ' Pages opened from disk cannot fetch files: use `smithereens view RUN`, or the page `smithereens demo` writes.' : '';
    return showError('Cannot load the run', `${url}: ${e.message}.${hint}`);
  }
  if (!response.ok) return showError('Cannot load the run', `${url}: HTTP ${response.status} ${response.statusText}`);
  return open(await response.text(), url, params);
}

window.addEventListener('error', (e) => { if (e.error) showError('The viewer failed', String(e.error.stack || e.message)); });
window.addEventListener('unhandledrejection', (e) => showError('The viewer failed', String(e.reason && e.reason.stack ? e.reason.stack : e.reason)));
wireControls();
requestAnimationFrame(tick);
loadInitialRun().catch((e) => showError('The viewer failed', String(e && e.stack ? e.stack : e)));
