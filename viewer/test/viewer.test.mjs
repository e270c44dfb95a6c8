// Browser test of the run viewer: headless Chromium (Debian's `chromium`)
// driven by playwright-core, no browser download.
//
//   node --test viewer/test/          (after `npm ci` in viewer/)
//
// It runs `smithereens demo` (and `simulate town` and `simulate wall-push`) into a temporary folder, serves the run with
// `smithereens view RUN --port 0`, and checks the page the way a person would
// use it: meshes on screen, scrubbing by the slider, the page the demo writes
// opened straight from disk, and visible messages for broken files. It saves
// a screenshot of the viewer under the build folder (`<target>/viewer.png`;
// set VIEWER_SCREENSHOT to write elsewhere), never into the work tree: the
// README's `docs/viewer.png` is refreshed on purpose by
// `scripts/readme-picture.sh`.
//
// Environment: SMITHEREENS_BIN (default `<repo>/target/debug/smithereens`,
// or `$CARGO_TARGET_DIR/debug/smithereens`), CHROMIUM (default
// `/usr/bin/chromium`).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const viewerDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(viewerDir, '..');
const targetDir = process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, 'target');
const bin = process.env.SMITHEREENS_BIN || join(targetDir, 'debug', 'smithereens');
const screenshotPath = process.env.VIEWER_SCREENSHOT || join(targetDir, 'viewer.png');
// The software WebGL path (SwiftShader), as verified in DEPENDENCIES.md.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser;
let viewProcess;
let viewUrl;
let staticServer;
let staticUrl;
let work;
let run;
let runText;
let town;
let townText;
let stressRun;
let stressText;
let push;
let pushText;

/** Starts `smithereens view` on a free port and resolves with its address. */
function startView(runPath) {
  return new Promise((ok, fail) => {
    const child = spawn(bin, ['view', runPath, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`smithereens view printed no address in 20 s\n${out}${err}`)), 20000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) {
        clearTimeout(timer);
        ok({ child, url: m[0] });
      }
    });
    child.stderr.on('data', (d) => { err += d; });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`smithereens view exited with ${code}\n${out}${err}`)); });
  });
}

/** Serves viewer/ plus in-memory fixtures, like any static file server would. */
function startStatic(fixtures) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (fixtures[path] !== undefined) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(fixtures[path]);
    }
    const file = resolve(viewerDir, '.' + (path === '/' ? '/index.html' : path));
    if (!file.startsWith(viewerDir + '/') || file.includes('node_modules')) {
      res.writeHead(404);
      return res.end();
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'Content-Type': types[file.slice(file.lastIndexOf('.'))] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

/** A page that records console errors and uncaught exceptions. */
async function openPage(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  await page.waitForFunction(() => window.smithereensViewer && window.smithereensViewer.state !== 'loading', null, { timeout: 30000 });
  return { page, errors };
}

const state = (page) => page.evaluate(() => ({ state: window.smithereensViewer.state, error: window.smithereensViewer.error }));
const nextFrames = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/** Translation of chunk `c`'s owning body on `frame`, from the run file itself. */
function expectedTranslation(frame, c, r = run) {
  const body = r.bodies.find((b) => b.chunks.includes(c) && frame >= b.first_frame && frame < b.first_frame + b.poses.length);
  return body.poses[frame - body.first_frame].slice(0, 3);
}

function assertTranslationsMatch(matrices, frame, r = run) {
  matrices.forEach((m, c) => {
    const [x, y, z] = expectedTranslation(frame, c, r);
    const d = Math.hypot(m[12] - x, m[13] - y, m[14] - z);
    assert.ok(d < 1e-5, `chunk ${c} on frame ${frame} is ${d} m from its body's pose`);
  });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'smithereens-viewer-'));
  execFileSync(bin, ['demo', '--out', work], { stdio: ['ignore', 'ignore', 'inherit'] });
  runText = readFileSync(join(work, 'demo.run.json'), 'utf8');
  run = JSON.parse(runText);
  // A multi-instance run with a plain body: the built-in town, 90 steps.
  execFileSync(bin, ['simulate', 'town', '--steps', '90', '-o', join(work, 'town.run.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
  townText = readFileSync(join(work, 'town.run.json'), 'utf8');
  town = JSON.parse(townText);
  // Vehicles with held parts (issue 14): the built-in wall-push, 300 steps
  // (the first launches at 2 s, the scraper's parts break before 4 s).
  execFileSync(bin, ['simulate', 'wall-push', '--steps', '300', '-o', join(work, 'wall_push.run.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
  pushText = readFileSync(join(work, 'wall_push.run.json'), 'utf8');
  push = JSON.parse(pushText);
  // Stress (issue 13): the built-in wall-gravity, 60 steps (its charge goes off at 0.5 s).
  execFileSync(bin, ['simulate', 'wall-gravity', '--steps', '60', '-o', join(work, 'wall_gravity.run.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
  stressText = readFileSync(join(work, 'wall_gravity.run.json'), 'utf8');
  stressRun = JSON.parse(stressText);
  ({ child: viewProcess, url: viewUrl } = await startView(join(work, 'demo.run.json')));
  staticServer = await startStatic({
    '/truncated.json': runText.slice(0, Math.floor(runText.length / 2)),
    '/foreign.json': JSON.stringify({ format: 'some-other-tool', version: 3, frames: [] }),
    '/town.json': townText,
    '/wall_push.json': pushText,
    '/wall_gravity.json': stressText,
  });
  staticUrl = `http://127.0.0.1:${staticServer.address().port}/`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  if (browser) await browser.close();
  if (viewProcess) viewProcess.kill();
  if (staticServer) staticServer.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the served viewer shows every chunk and scrubbing to the last frame moves them to the recorded poses', async () => {
  const { page, errors } = await openPage(`${viewUrl}?frame=0`);
  assert.deepEqual(await state(page), { state: 'ready', error: null });
  assert.equal(await page.evaluate(() => window.smithereensViewer.renderNow()), true, 'WebGL context');

  const counts = await page.evaluate(() => window.smithereensViewer.counts());
  assert.equal(counts.chunk, run.chunks.length, 'one mesh per chunk');
  assert.equal(counts.projectile, run.projectiles.length, 'one mesh per projectile');
  assert.equal(counts.event, run.events.length, 'one marker per damage event');
  const ground = run.ground_y === null ? 0 : 1;
  assert.equal(counts.meshes, run.chunks.length + run.projectiles.length + run.events.length + ground + 1 /* support markers */);

  const first = await page.evaluate(() => window.smithereensViewer.chunkMatrices());
  assertTranslationsMatch(first, 0);
  await assert.doesNotReject(page.locator('#stat-frame').filter({ hasText: `0 / ${run.frame_count - 1}` }).waitFor());

  // Scrub with the slider, as a person would.
  const last = run.frame_count - 1;
  await page.locator('#scrub').fill(String(last));
  await nextFrames(page);
  assert.equal(await page.locator('#stat-frame').textContent(), `${last} / ${last}`);
  const lastMatrices = await page.evaluate(() => window.smithereensViewer.chunkMatrices());
  const moved = lastMatrices.filter((m, c) => Math.hypot(m[12] - first[c][12], m[13] - first[c][13], m[14] - first[c][14]) > 0.01).length;
  assert.ok(moved > 0, 'no chunk moved between the first and the last frame');
  assertTranslationsMatch(lastMatrices, last);
  const broken = new Set(run.breaks.map((b) => b.bond)).size;
  assert.equal(await page.locator('#stat-broken').textContent(), `${broken} / ${run.bonds.length}`);


  // Play runs forward by itself.
  await page.locator('#scrub').fill('0');
  await nextFrames(page);
  const before = await page.evaluate(() => window.smithereensViewer.frame);
  await page.locator('#play').click();
  await page.waitForFunction((f) => window.smithereensViewer.frame > f, before, { timeout: 10000 });
  await page.locator('#play').click();

  assert.deepEqual(errors, []);
  await page.close();
});

test('the viewer opens on the action: 0.2 s before the first break, playing; ?t= and ?frame= open paused there', async () => {
  const firstBreak = Math.min(...run.breaks.map((b) => b.frame));
  const start = Math.max(0, firstBreak - Math.round(0.2 / run.timestep));
  const { page, errors } = await openPage(viewUrl);
  assert.deepEqual(await page.evaluate(() => window.smithereensViewer.start), { frame: start, play: true }, `first break on frame ${firstBreak}`);
  const opened = await page.evaluate(() => window.smithereensViewer.frame);
  assert.ok(opened >= start, `on frame ${opened}`);
  await page.waitForFunction((f) => window.smithereensViewer.frame > f, opened, { timeout: 10000 });
  await page.close();

  const t = 1.0;
  const atT = await openPage(`${viewUrl}?t=${t}`);
  await nextFrames(atT.page);
  assert.equal(await atT.page.evaluate(() => window.smithereensViewer.frame), Math.round(t / run.timestep));
  await nextFrames(atT.page);
  assert.equal(await atT.page.evaluate(() => window.smithereensViewer.frame), Math.round(t / run.timestep), 'paused');
  await atT.page.close();

  // The picture for the README, from the same page: bonds on, half a
  // second after the first break, when the pieces are in flight.
  const shot = Math.min(run.frame_count - 1, firstBreak + Math.round(0.5 / run.timestep));
  const atFrame = await openPage(`${viewUrl}?frame=${shot}`);
  assert.equal(await atFrame.page.evaluate(() => window.smithereensViewer.frame), shot);
  await atFrame.page.locator('#show-intact').check();
  await atFrame.page.locator('#show-broken').check();
  await nextFrames(atFrame.page);
  mkdirSync(dirname(screenshotPath), { recursive: true });
  await atFrame.page.screenshot({ path: screenshotPath });
  assert.deepEqual([...errors, ...atT.errors, ...atFrame.errors], []);
  await atFrame.page.close();
});

test('the page smithereens demo writes opens from disk without a server', async () => {
  const { page, errors } = await openPage(pathToFileURL(join(work, 'index.html')).href);
  assert.deepEqual(await state(page), { state: 'ready', error: null });
  const counts = await page.evaluate(() => window.smithereensViewer.counts());
  assert.equal(counts.chunk, run.chunks.length);
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => window.smithereensViewer.frame), run.frame_count - 1);
  assert.deepEqual(errors, []);
  await page.close();
});

for (const [file, expected] of [['truncated.json', /not valid JSON \(is the file truncated\?\)/], ['foreign.json', /not a Smithereens run file \(format "some-other-tool"/]]) {
  test(`a ${file.replace('.json', '')} run file shows a visible message, not a blank page`, async () => {
    const { page } = await openPage(`${staticUrl}index.html?run=${file}`);
    assert.equal((await state(page)).state, 'error');
    const box = page.locator('#error');
    assert.ok(await box.isVisible(), 'error box is visible');
    assert.match(await box.textContent(), expected);
    await page.close();
  });
}

test('opening a broken file from the page shows a visible message', async () => {
  const { page } = await openPage(viewUrl);
  assert.equal((await state(page)).state, 'ready');
  await page.locator('#open-file').setInputFiles({ name: 'cut.run.json', mimeType: 'application/json', buffer: Buffer.from(runText.slice(0, 5000)) });
  await page.locator('#error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#error').textContent(), /cut\.run\.json is not valid JSON/);
  await page.close();
});

test('a multi-instance run shows every instance and draws the pusher at its recorded poses', async () => {
  const { page, errors } = await openPage(`${staticUrl}index.html?run=town.json&frame=0`);
  assert.deepEqual(await state(page), { state: 'ready', error: null });
  assert.equal(town.plain_bodies.length, 1);
  assert.equal(town.plain_bodies[0].kind, 'kinematic');
  assert.ok(town.chunks.length > 600, `town has ${town.chunks.length} chunks`);
  const counts = await page.evaluate(() => window.smithereensViewer.counts());
  assert.equal(counts.chunk, town.chunks.length, 'one mesh per chunk of every instance');
  assert.equal(counts.plain, 1, 'one mesh for the pusher');
  assertTranslationsMatch(await page.evaluate(() => window.smithereensViewer.chunkMatrices()), 0, town);
  for (const frame of [0, 60]) {
    await page.locator('#scrub').fill(String(frame));
    await nextFrames(page);
    const [m] = await page.evaluate(() => window.smithereensViewer.plainMatrices());
    const p = town.plain_bodies[0].poses[frame];
    assert.ok(Math.hypot(m[12] - p[0], m[13] - p[1], m[14] - p[2]) < 1e-5, `pusher on frame ${frame}`);
    assertTranslationsMatch(await page.evaluate(() => window.smithereensViewer.chunkMatrices()), frame, town);
  }
  // 60 steps of 1/120 s at 8 m/s: 4 m down the street from x = -10.
  const [m] = await page.evaluate(() => window.smithereensViewer.plainMatrices());
  assert.ok(Math.abs(m[12] - -6) < 1e-3, `pusher at x = ${m[12]}`);
  assert.deepEqual(errors, []);
  await page.close();
});

/** `q · v` for a unit quaternion `[x, y, z, w]`. */
function rotate(q, v) {
  const [x, y, z, w] = q;
  const t = [2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])];
  return [v[0] + w * t[0] + (y * t[2] - z * t[1]), v[1] + w * t[1] + (z * t[0] - x * t[2]), v[2] + w * t[2] + (x * t[1] - y * t[0])];
}

test('held parts are drawn on their vehicle at the authored pose, launched ones flying, broken ones not at all', async () => {
  const { page, errors } = await openPage(`${staticUrl}index.html?run=wall_push.json&frame=0`);
  assert.deepEqual(await state(page), { state: 'ready', error: null });
  assert.equal(push.chunks.length, 0);
  assert.equal(push.held_parts.length, 32, '8 vehicles × 4 parts');
  const counts = await page.evaluate(() => window.smithereensViewer.counts());
  assert.equal(counts.held, 32, 'one mesh per held part');
  assert.equal(counts.plain, push.plain_bodies.length, 'wall, chassis and wheels');
  const held = (frame) => page.evaluate(async (f) => {
    document.getElementById('scrub').value = String(f);
    document.getElementById('scrub').dispatchEvent(new Event('input'));
    return window.smithereensViewer.heldMatrices();
  }, frame);
  // Frame 0: every part where its authored pose puts it on its parent.
  const onParent = (h, frame) => {
    const parent = push.plain_bodies[h.parent];
    const p = parent.poses[frame - parent.first_frame];
    const r = rotate(p.slice(3), h.local.slice(0, 3));
    return [p[0] + r[0], p[1] + r[1], p[2] + r[2]];
  };
  const near = (m, x, what) => assert.ok(Math.hypot(m[12] - x[0], m[13] - x[1], m[14] - x[2]) < 1e-4, `${what}: (${m[12]}, ${m[13]}, ${m[14]}) vs ${x}`);
  (await held(0)).forEach((m, i) => near(m, onParent(push.held_parts[i], 0), `part ${i} on frame 0`));
  // A launched part: on its parent before its release, at its own recorded pose after.
  const launched = push.held_parts.findIndex((h) => Number.isInteger(h.released_frame) && !h.broken);
  assert.ok(launched >= 0, 'a part was launched');
  const l = push.held_parts[launched];
  near((await held(l.released_frame - 1))[launched], onParent(l, l.released_frame - 1), 'held the frame before launch');
  const after = l.released_frame + 10;
  near((await held(after))[launched], l.poses[10], 'flying 10 frames after launch');
  assert.ok(Math.hypot(...l.poses[10].slice(0, 3).map((v, k) => v - onParent(l, after)[k])) > 0.5, 'it left its launcher');
  // A broken part: shown until its release frame, hidden from it on.
  const broken = push.held_parts.findIndex((h) => h.broken);
  assert.ok(broken >= 0, 'the scraper lost a part');
  const b = push.held_parts[broken];
  assert.notEqual((await held(b.released_frame - 1))[broken], null);
  assert.equal((await held(b.released_frame))[broken], null);
  assert.equal((await held(push.frame_count - 1))[broken], null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a run with stress opens with its intact bonds coloured by stress / limit; a run without has no such toggle', async () => {
  const { page, errors } = await openPage(`${staticUrl}index.html?run=wall_gravity.json&frame=20`);
  assert.deepEqual(await state(page), { state: 'ready', error: null });
  assert.ok(stressRun.bond_stress.length > 0, 'the run recorded utilisations');
  assert.equal(await page.evaluate(() => document.getElementById('stress-toggle').hidden), false);
  const colours = await page.evaluate(() => window.smithereensViewer.bondColours());
  assert.ok(colours && colours.length > 0, 'intact bonds drawn by stress');
  // Frame 20, before the charge: every bond of the wall is intact and in
  // compression only; the bottom bonds carry the most and are the least green.
  const util = (bond) => {
    const list = stressRun.bond_stress.filter((e) => e.bond === bond && e.frame <= 20);
    return list.length ? list[list.length - 1].utilisation : 0;
  };
  const us = stressRun.bonds.map((_, i) => util(i));
  assert.ok(Math.max(...us) > Math.min(...us), 'utilisations differ across the wall');
  assert.ok(Math.max(...us) < 1, 'nothing is at its limit before the charge');
  const reds = colours.map((c) => c[0]);
  assert.ok(Math.max(...reds) > Math.min(...reds), 'colours differ with utilisation');
  // Unticking the toggle gives the plain intact colour.
  await page.evaluate(() => { const c = document.getElementById('show-stress'); c.checked = false; c.dispatchEvent(new Event('change')); });
  assert.equal(await page.evaluate(() => window.smithereensViewer.bondColours()), null);
  assert.deepEqual(errors, []);
  await page.close();
  const plain = await openPage(`${viewUrl}?frame=0`);
  assert.equal(await plain.page.evaluate(() => document.getElementById('stress-toggle').hidden), true, 'the demo has no stress');
  await plain.page.close();
});

test('the vendored three.js files are the npm package files', () => {
  for (const [vendored, npm] of [['three.module.js', 'build/three.module.js'], ['three.core.js', 'build/three.core.js'], ['OrbitControls.js', 'examples/jsm/controls/OrbitControls.js']]) {
    const a = readFileSync(join(viewerDir, 'vendor', vendored));
    const b = readFileSync(join(viewerDir, 'node_modules', 'three', npm));
    assert.ok(a.equals(b), `viewer/vendor/${vendored} differs from three/${npm}: copy it again after changing the three version`);
  }
});
