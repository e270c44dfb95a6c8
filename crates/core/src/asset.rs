//! The immutable, shared part of a destructible object: chunks, bonds, the
//! support set and the CSR adjacency over intact-able bonds.
//!
//! User input arrives as an [`AssetDesc`] and is validated once by
//! [`Asset::new`]; after that, runtime code relies on the invariants listed on
//! [`Asset`].

use crate::error::AssetError;
use crate::index::{BondIndex, ChunkIndex, IndexVec};
use crate::mass::{MassSums, PrincipalAxes, principal_axes};
use crate::point_tree::PointTree;
use glam::{Mat3, Vec3};
use serde::{Deserialize, Serialize};

/// One convex collision piece of a chunk: a point cloud in asset space
/// (metres) whose convex hull is the collider. At least four points that are
/// not coplanar are required by the physics backend (checked there).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HullDesc {
    /// Hull vertices, asset space, metres.
    pub points: Vec<Vec3>,
}

/// Input description of one chunk. All quantities in asset space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkDesc {
    /// Volume, m³. Positive and finite.
    pub volume: f32,
    /// Mass, kg (density × volume). Positive and finite.
    pub mass: f32,
    /// Centre of mass, m, asset space. Finite.
    pub centroid: Vec3,
    /// Inertia tensor about `centroid`, kg·m², asset axes. Symmetric with
    /// positive finite principal moments.
    pub inertia: Mat3,
    /// Convex collision pieces (asset space). May be empty for a render-only
    /// chunk. Such a chunk has no collider. A dynamic cluster made only of
    /// render-only chunks (and no matching proxy) is
    /// [`Representation::RenderOnlyDebris`](crate::budget::Representation)
    /// and takes no body slot. It takes no impulse, and physics backends
    /// hold it at rest where it broke off instead of letting a body with no
    /// collider fall forever. The game may hide or recycle it at once.
    pub hulls: Vec<HullDesc>,
    /// True when the chunk is fixed to the world (a member of the support set).
    pub support: bool,
    /// True for chunks whose collision matters to gameplay (budget priority).
    pub gameplay_critical: bool,
    /// Parent chunk in a fracture hierarchy, `None` for a root.
    pub parent: Option<u32>,
    /// Depth in the hierarchy (0 = root level).
    pub depth: u32,
}

/// What the second end of a bond is attached to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BondEnd {
    /// Another chunk (raw chunk index; validated into a [`ChunkIndex`]).
    Chunk(u32),
    /// The static world: while this bond is intact its chunk's component is supported.
    World,
}

/// Input description of one bond.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BondDesc {
    /// First chunk (raw index).
    pub chunk0: u32,
    /// Second end: another chunk or the world.
    pub chunk1: BondEnd,
    /// Centre of the shared interface, m, asset space.
    pub centroid: Vec3,
    /// Unit normal of the interface, pointing from `chunk0` towards `chunk1`.
    pub normal: Vec3,
    /// Interface area, m². Non-negative and finite.
    pub area: f32,
    /// Initial health, game damage units (du). Positive and finite.
    pub strength: f32,
}

/// Input description of a whole asset, as produced by authoring or read from a file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AssetDesc {
    /// Chunks; a chunk's position here is its [`ChunkIndex`].
    pub chunks: Vec<ChunkDesc>,
    /// Bonds; a bond's position here is its [`BondIndex`].
    pub bonds: Vec<BondDesc>,
    /// Support depth of a fracture hierarchy (Blast's term): the depth of
    /// the chunks that are the nodes of the support graph. A chunk is
    /// *support-level* when its depth equals `support_depth`, or when it is
    /// a leaf (no children) at a smaller depth; `None` makes every leaf
    /// support-level. Along every root-to-leaf path exactly one chunk is
    /// support-level, so the support-level chunks cover the asset once.
    ///
    /// Only support-level chunks are simulated: they carry bonds and the
    /// support flag, and they form clusters. Their ancestors (coarser
    /// chunks) and descendants (finer, "subsupport" chunks) are kept for
    /// level-of-detail rendering and tools; the runtime gives them no
    /// cluster. A flat asset (every chunk a root) is all support-level.
    pub support_depth: Option<u32>,
}

/// A validated chunk.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// Volume, m³ (> 0).
    pub volume: f32,
    /// Mass, kg (> 0).
    pub mass: f32,
    /// Centre of mass, m, asset space.
    pub centroid: Vec3,
    /// Inertia about `centroid`, kg·m², asset axes (symmetric, positive definite).
    pub inertia: Mat3,
    /// Convex collision pieces, asset space.
    pub hulls: Vec<HullDesc>,
    /// Member of the support set.
    pub support: bool,
    /// Gameplay-critical tag.
    pub gameplay_critical: bool,
    /// Parent in the hierarchy.
    pub parent: Option<ChunkIndex>,
    /// Hierarchy depth.
    pub depth: u32,
    /// Number of chunks whose parent is this one.
    pub child_count: u32,
    /// True for a node of the support graph (see [`AssetDesc::support_depth`]).
    pub support_level: bool,
}

/// A validated bond. `chunk1 == None` means a bond to the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Bond {
    /// First chunk.
    pub chunk0: ChunkIndex,
    /// Second chunk, or `None` for a bond to the world.
    pub chunk1: Option<ChunkIndex>,
    /// Interface centre, m, asset space.
    pub centroid: Vec3,
    /// Unit interface normal, from `chunk0` to `chunk1`.
    pub normal: Vec3,
    /// Interface area, m².
    pub area: f32,
    /// Initial health, du (> 0).
    pub strength: f32,
}

/// Support graph in compressed sparse row form: for node `n`, its incident
/// chunk–chunk bonds are `adjacent_bonds[offsets[n]..offsets[n+1]]` and the
/// chunks on their other ends `adjacent_chunks[..]` at the same positions.
/// `offsets.len() == chunk_count + 1`. Entries of one node are sorted by bond
/// index. World bonds are listed separately in `world_bonds` (CSR with the
/// same `offsets` layout in `world_offsets`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SupportGraph {
    offsets: Vec<u32>,
    adjacent_chunks: Vec<ChunkIndex>,
    adjacent_bonds: Vec<BondIndex>,
    world_offsets: Vec<u32>,
    world_bonds: Vec<BondIndex>,
}

impl SupportGraph {
    fn build(chunk_count: usize, bonds: &IndexVec<BondIndex, Bond>) -> Self {
        let mut degree = vec![0u32; chunk_count];
        let mut world_degree = vec![0u32; chunk_count];
        for b in bonds.iter() {
            match b.chunk1 {
                Some(c1) => {
                    degree[b.chunk0.0 as usize] += 1;
                    degree[c1.0 as usize] += 1;
                }
                None => world_degree[b.chunk0.0 as usize] += 1,
            }
        }
        let prefix = |deg: &[u32]| {
            let mut off = Vec::with_capacity(deg.len() + 1);
            let mut acc = 0u32;
            off.push(0);
            for d in deg {
                acc += d;
                off.push(acc);
            }
            off
        };
        let offsets = prefix(&degree);
        let world_offsets = prefix(&world_degree);
        let mut fill = offsets[..chunk_count].to_vec();
        let mut world_fill = world_offsets[..chunk_count].to_vec();
        let total = *offsets.last().unwrap_or(&0) as usize;
        let mut adjacent_chunks = vec![ChunkIndex(0); total];
        let mut adjacent_bonds = vec![BondIndex(0); total];
        let mut world_bonds = vec![BondIndex(0); *world_offsets.last().unwrap_or(&0) as usize];
        // Bonds are visited in index order, so each node's list ends up sorted by bond index.
        for (bi, b) in bonds.iter_enumerated() {
            match b.chunk1 {
                Some(c1) => {
                    for (from, to) in [(b.chunk0, c1), (c1, b.chunk0)] {
                        let slot = &mut fill[from.0 as usize];
                        adjacent_chunks[*slot as usize] = to;
                        adjacent_bonds[*slot as usize] = bi;
                        *slot += 1;
                    }
                }
                None => {
                    let slot = &mut world_fill[b.chunk0.0 as usize];
                    world_bonds[*slot as usize] = bi;
                    *slot += 1;
                }
            }
        }
        Self {
            offsets,
            adjacent_chunks,
            adjacent_bonds,
            world_offsets,
            world_bonds,
        }
    }

    /// Number of nodes (= chunks).
    pub fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// `(neighbour, bond)` pairs of chunk–chunk bonds incident to `node`, by bond index.
    pub fn neighbours(
        &self,
        node: ChunkIndex,
    ) -> impl Iterator<Item = (ChunkIndex, BondIndex)> + '_ {
        let (lo, hi) = self.range(&self.offsets, node);
        self.adjacent_chunks[lo..hi]
            .iter()
            .copied()
            .zip(self.adjacent_bonds[lo..hi].iter().copied())
    }

    /// Bonds from `node` to the world, by bond index.
    pub fn world_bonds(&self, node: ChunkIndex) -> &[BondIndex] {
        let (lo, hi) = self.range(&self.world_offsets, node);
        &self.world_bonds[lo..hi]
    }

    fn range(&self, offsets: &[u32], node: ChunkIndex) -> (usize, usize) {
        let n = node.0 as usize;
        match (offsets.get(n), offsets.get(n + 1)) {
            (Some(&lo), Some(&hi)) => (lo as usize, hi as usize),
            _ => (0, 0),
        }
    }

    /// The CSR offsets array (`node_count + 1` entries).
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }
}

/// A validated, immutable asset.
///
/// # Invariants
/// * every chunk has positive finite volume and mass, a finite centroid and a
///   symmetric inertia tensor with positive finite principal moments;
/// * every bond names existing, distinct chunks, has finite centroid, unit
///   normal, non-negative finite area and positive finite strength;
/// * a hierarchy parent index is in range and precedes its child, a
///   child's depth is its parent's + 1 (roots 0), and a parent's volume is
///   the sum of its children's within [`HIERARCHY_VOLUME_TOLERANCE`];
/// * bonds and the support flag are only on support-level chunks
///   ([`AssetDesc::support_depth`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Asset {
    chunks: IndexVec<ChunkIndex, Chunk>,
    bonds: IndexVec<BondIndex, Bond>,
    graph: SupportGraph,
    support_depth: Option<u32>,
    fingerprint: u64,
    /// Principal moments and frame of each chunk's inertia (computed once at
    /// validation), indexed by chunk: single-chunk pieces use them as they
    /// are, without an eigen solve per split.
    principal: Vec<PrincipalAxes>,
    /// The f64 mass sums of each chunk alone ([`MassSums::of_chunk`],
    /// computed once), indexed by chunk: a one-chunk piece stores none of
    /// its own, and subtracting it from its cluster reads them here.
    chunk_sums: Vec<MassSums>,
    /// Bond centroids in a bounding-volume hierarchy (admission, issue 12).
    bond_tree: PointTree,
    /// Support-level chunk centroids in a bounding-volume hierarchy.
    chunk_tree: PointTree,
}

/// Relative tolerance for inertia symmetry and eigen-reconstruction checks.
pub const INERTIA_TOLERANCE: f32 = 1e-4;

fn finite3(v: Vec3) -> bool {
    v.is_finite()
}

/// Relative tolerance of the hierarchy volume check: a parent's volume and
/// the sum of its children's volumes (f32, authored in f64) agree to this.
pub const HIERARCHY_VOLUME_TOLERANCE: f32 = 1e-3;

/// The rule of [`AssetDesc::support_depth`]: a chunk at `depth` with
/// `child_count` children is support-level.
fn support_level_rule(depth: u32, child_count: u32, support_depth: Option<u32>) -> bool {
    match support_depth {
        Some(d) => depth == d || (child_count == 0 && depth < d),
        None => child_count == 0,
    }
}

impl AssetDesc {
    /// Which chunks are support-level (see [`AssetDesc::support_depth`]),
    /// computed on the unvalidated description so tools can edit support
    /// flags before [`Asset::new`]; a parent index out of range counts as
    /// no parent.
    pub fn support_level_mask(&self) -> Vec<bool> {
        let mut children = vec![0u32; self.chunks.len()];
        for c in &self.chunks {
            if let Some(p) = c.parent.and_then(|p| children.get_mut(p as usize)) {
                *p += 1;
            }
        }
        self.chunks
            .iter()
            .zip(&children)
            .map(|(c, &n)| support_level_rule(c.depth, n, self.support_depth))
            .collect()
    }
}

/// Fills `child_count` and `support_level`, and checks that the support
/// flag is only on support-level chunks and that children add up to their
/// parent's volume. Parents precede children (checked by the caller).
fn resolve_hierarchy(
    chunks: &mut IndexVec<ChunkIndex, Chunk>,
    support_depth: Option<u32>,
) -> Result<(), AssetError> {
    let mut children_volume = vec![0.0f64; chunks.len()];
    let parents: Vec<Option<ChunkIndex>> = chunks.iter().map(|c| c.parent).collect();
    for (k, parent) in parents.iter().enumerate() {
        if let Some(p) = *parent {
            chunks[p].child_count += 1;
            children_volume[p.0 as usize] += f64::from(chunks[ChunkIndex(k as u32)].volume);
        }
    }
    for i in chunks.indices() {
        let c = &chunks[i];
        if c.child_count > 0 {
            let volume = f64::from(c.volume);
            let sum = children_volume[i.0 as usize];
            if (sum - volume).abs() > f64::from(HIERARCHY_VOLUME_TOLERANCE) * volume {
                return Err(AssetError::HierarchyVolume {
                    chunk: i,
                    volume: c.volume,
                    children: sum as f32,
                });
            }
        }
        let level = support_level_rule(c.depth, c.child_count, support_depth);
        if c.support && !level {
            return Err(AssetError::SupportOffLevel { chunk: i });
        }
        chunks[i].support_level = level;
    }
    Ok(())
}

impl Asset {
    /// Validates `desc` and builds the runtime asset with its CSR support graph.
    ///
    /// # Errors
    /// Returns the first [`AssetError`] found, scanning chunks then bonds in index order.
    ///
    /// # Example
    /// ```
    /// use smithereens_core::{Asset, AssetDesc, ChunkDesc, BondDesc, BondEnd};
    /// use glam::{Mat3, Vec3};
    /// let chunk = |x: f32| ChunkDesc {
    ///     volume: 1.0, mass: 1.0, centroid: Vec3::new(x, 0.0, 0.0),
    ///     inertia: Mat3::from_diagonal(Vec3::splat(1.0 / 6.0)), hulls: vec![],
    ///     support: x == 0.0, gameplay_critical: false, parent: None, depth: 0,
    /// };
    /// let desc = AssetDesc {
    ///     chunks: vec![chunk(0.0), chunk(1.0)],
    ///     bonds: vec![BondDesc { chunk0: 0, chunk1: BondEnd::Chunk(1), centroid: Vec3::new(0.5, 0.0, 0.0),
    ///                            normal: Vec3::X, area: 1.0, strength: 10.0 }],
    ///     support_depth: None,
    /// };
    /// let asset = Asset::new(&desc).unwrap();
    /// assert_eq!(asset.chunk_count(), 2);
    /// ```
    pub fn new(desc: &AssetDesc) -> Result<Self, AssetError> {
        let n = desc.chunks.len();
        if n == 0 {
            return Err(AssetError::NoChunks);
        }
        if n > u32::MAX as usize / 2 || desc.bonds.len() > u32::MAX as usize / 2 {
            return Err(AssetError::TooLarge);
        }
        let mut chunks: IndexVec<ChunkIndex, Chunk> = IndexVec::default();
        let mut principal = Vec::with_capacity(n);
        for (k, c) in desc.chunks.iter().enumerate() {
            let id = ChunkIndex(k as u32);
            if !(c.volume.is_finite() && c.volume > 0.0) {
                return Err(AssetError::BadVolume {
                    chunk: id,
                    value: c.volume,
                });
            }
            if !(c.mass.is_finite() && c.mass > 0.0) {
                return Err(AssetError::BadMass {
                    chunk: id,
                    value: c.mass,
                });
            }
            if !finite3(c.centroid) {
                return Err(AssetError::NonFiniteCentroid(id));
            }
            principal.push(
                validate_inertia(c.inertia)
                    .map_err(|reason| AssetError::BadInertia { chunk: id, reason })?,
            );
            for (h, hull) in c.hulls.iter().enumerate() {
                if hull.points.iter().any(|p| !p.is_finite()) {
                    return Err(AssetError::NonFiniteHull {
                        chunk: id,
                        hull: h as u32,
                    });
                }
            }
            let parent = match c.parent {
                None => None,
                Some(p) if (p as usize) < k => Some(ChunkIndex(p)),
                Some(p) => {
                    return Err(AssetError::BadParent {
                        chunk: id,
                        parent: p,
                    });
                }
            };
            let expected_depth = parent.map_or(Some(0), |p| chunks[p].depth.checked_add(1));
            if expected_depth != Some(c.depth) {
                return Err(AssetError::BadDepth {
                    chunk: id,
                    depth: c.depth,
                    expected: expected_depth.unwrap_or(u32::MAX),
                });
            }
            chunks.push(Chunk {
                volume: c.volume,
                mass: c.mass,
                centroid: c.centroid,
                inertia: c.inertia,
                hulls: c.hulls.clone(),
                support: c.support,
                gameplay_critical: c.gameplay_critical,
                parent,
                depth: c.depth,
                child_count: 0,
                support_level: false,
            });
        }
        resolve_hierarchy(&mut chunks, desc.support_depth)?;
        let mut bonds = IndexVec::default();
        let check_chunk = |bond: BondIndex, raw: u32| {
            if (raw as usize) < n {
                Ok(ChunkIndex(raw))
            } else {
                Err(AssetError::BondChunkOutOfRange {
                    bond,
                    chunk: raw,
                    chunk_count: n as u32,
                })
            }
        };
        for (k, b) in desc.bonds.iter().enumerate() {
            let id = BondIndex(k as u32);
            let chunk0 = check_chunk(id, b.chunk0)?;
            let chunk1 = match b.chunk1 {
                BondEnd::Chunk(raw) => {
                    let c1 = check_chunk(id, raw)?;
                    if c1 == chunk0 {
                        return Err(AssetError::SelfBond {
                            bond: id,
                            chunk: chunk0,
                        });
                    }
                    Some(c1)
                }
                BondEnd::World => None,
            };
            if !finite3(b.centroid) {
                return Err(AssetError::NonFiniteBondCentroid(id));
            }
            let len = b.normal.length();
            if !(len.is_finite() && (len - 1.0).abs() <= 1e-3) {
                return Err(AssetError::BadBondNormal {
                    bond: id,
                    length: len,
                });
            }
            if !(b.area.is_finite() && b.area >= 0.0) {
                return Err(AssetError::BadBondArea {
                    bond: id,
                    value: b.area,
                });
            }
            if !(b.strength.is_finite() && b.strength > 0.0) {
                return Err(AssetError::BadBondStrength {
                    bond: id,
                    value: b.strength,
                });
            }
            for end in [Some(chunk0), chunk1].into_iter().flatten() {
                if !chunks[end].support_level {
                    return Err(AssetError::BondOffSupportLevel {
                        bond: id,
                        chunk: end,
                    });
                }
            }
            bonds.push(Bond {
                chunk0,
                chunk1,
                centroid: b.centroid,
                normal: b.normal,
                area: b.area,
                strength: b.strength,
            });
        }
        check_duplicate_bonds(&bonds)?;
        let graph = SupportGraph::build(n, &bonds);
        let fingerprint = fingerprint(&chunks, &bonds, desc.support_depth);
        let bond_tree = PointTree::build(bonds.iter_enumerated().map(|(i, b)| (i.0, b.centroid)));
        let chunk_tree = PointTree::build(
            chunks
                .iter_enumerated()
                .filter(|(_, c)| c.support_level)
                .map(|(i, c)| (i.0, c.centroid)),
        );
        // Masses were checked positive above, so every chunk has its sums.
        let chunk_sums = chunks
            .iter()
            .map(|c| MassSums::of_chunk(c).unwrap_or(MassSums::ZERO))
            .collect();
        Ok(Self {
            chunks,
            bonds,
            graph,
            support_depth: desc.support_depth,
            fingerprint,
            principal,
            chunk_sums,
            bond_tree,
            chunk_tree,
        })
    }

    /// Principal moments and frame of a chunk's inertia about its centroid
    /// (asset axes), as [`principal_axes`] computed them at validation;
    /// `None` out of range.
    pub fn chunk_principal(&self, i: ChunkIndex) -> Option<&PrincipalAxes> {
        self.principal.get(i.0 as usize)
    }

    /// The f64 mass sums of a chunk alone, bit for bit
    /// [`MassSums::of_chunk`]'s; `None` out of range.
    pub fn chunk_sums(&self, i: ChunkIndex) -> Option<&MassSums> {
        self.chunk_sums.get(i.0 as usize)
    }

    /// All chunks, indexed by [`ChunkIndex`].
    pub fn chunks(&self) -> &IndexVec<ChunkIndex, Chunk> {
        &self.chunks
    }
    /// All bonds, indexed by [`BondIndex`].
    pub fn bonds(&self) -> &IndexVec<BondIndex, Bond> {
        &self.bonds
    }
    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
    /// Number of bonds.
    pub fn bond_count(&self) -> usize {
        self.bonds.len()
    }
    /// The CSR support graph.
    pub fn graph(&self) -> &SupportGraph {
        &self.graph
    }
    /// Bond centroids (asset space) in a bounding-volume hierarchy; items
    /// are bond indices.
    pub fn bond_tree(&self) -> &PointTree {
        &self.bond_tree
    }
    /// Support-level chunk centroids (asset space) in a bounding-volume
    /// hierarchy; items are chunk indices.
    pub fn chunk_tree(&self) -> &PointTree {
        &self.chunk_tree
    }
    /// Chunk by index, `None` when out of range.
    pub fn chunk(&self, i: ChunkIndex) -> Option<&Chunk> {
        self.chunks.get(i)
    }
    /// Bond by index, `None` when out of range.
    pub fn bond(&self, i: BondIndex) -> Option<&Bond> {
        self.bonds.get(i)
    }
    /// The bond joining `a` and `b`, if any (lowest index when several).
    pub fn bond_between(&self, a: ChunkIndex, b: ChunkIndex) -> Option<BondIndex> {
        self.graph
            .neighbours(a)
            .find(|&(n, _)| n == b)
            .map(|(_, bond)| bond)
    }
    /// Total mass, kg: the sum over support-level chunks (ancestors and
    /// subsupport chunks describe the same matter again).
    pub fn total_mass(&self) -> f32 {
        self.chunks
            .iter()
            .filter(|c| c.support_level)
            .map(|c| c.mass)
            .sum()
    }
    /// The support-level chunks (nodes of the support graph), ascending.
    pub fn support_level_chunks(&self) -> impl Iterator<Item = ChunkIndex> + '_ {
        self.chunks
            .indices()
            .filter(|&i| self.chunks[i].support_level)
    }
    /// The support depth the asset was built with (see [`AssetDesc::support_depth`]).
    pub fn support_depth(&self) -> Option<u32> {
        self.support_depth
    }
    /// The asset version: FNV-1a 64 over the bit patterns of every chunk and
    /// bond field that the runtime reads. Snapshots, records and journals
    /// carry it so that state is never resumed on another asset.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }
}

fn fingerprint(
    chunks: &IndexVec<ChunkIndex, Chunk>,
    bonds: &IndexVec<BondIndex, Bond>,
    support_depth: Option<u32>,
) -> u64 {
    let mut h = crate::hash::StateHasher::new();
    h.write(b"smithereens-asset-v1");
    // Flat assets (the only kind before hierarchies) keep their fingerprint.
    if let Some(d) = support_depth {
        h.write(b"support-depth");
        h.write_u32(d);
    }
    h.write_u64(chunks.len() as u64);
    for c in chunks.iter() {
        for v in [c.volume, c.mass]
            .into_iter()
            .chain(c.centroid.to_array())
            .chain(c.inertia.to_cols_array())
        {
            h.write_f32(v);
        }
        h.write_u32(c.support as u32 | (c.gameplay_critical as u32) << 1);
        h.write_u32(c.parent.map_or(u32::MAX, |p| p.0));
        h.write_u32(c.depth);
        h.write_u64(c.hulls.len() as u64);
        for hull in &c.hulls {
            h.write_u64(hull.points.len() as u64);
            for p in &hull.points {
                for v in p.to_array() {
                    h.write_f32(v);
                }
            }
        }
    }
    h.write_u64(bonds.len() as u64);
    for b in bonds.iter() {
        h.write_u32(b.chunk0.0);
        h.write_u32(b.chunk1.map_or(u32::MAX, |c| c.0));
        for v in b
            .centroid
            .to_array()
            .into_iter()
            .chain(b.normal.to_array())
            .chain([b.area, b.strength])
        {
            h.write_f32(v);
        }
    }
    h.finish()
}

/// Rejects two bonds over the same face of the same pair (see
/// [`AssetError::DuplicateBond`]). O(B log B): bonds are grouped by their
/// unordered pair, and only bonds of one pair are compared.
fn check_duplicate_bonds(bonds: &IndexVec<BondIndex, Bond>) -> Result<(), AssetError> {
    // (low end, high end or u32::MAX for the world, bond), normal oriented low → high.
    let key = |b: &Bond| match b.chunk1 {
        Some(c1) if c1 < b.chunk0 => (c1.0, b.chunk0.0, -b.normal),
        Some(c1) => (b.chunk0.0, c1.0, b.normal),
        None => (b.chunk0.0, u32::MAX, b.normal),
    };
    let mut order: Vec<(u32, u32, u32)> = bonds
        .iter_enumerated()
        .map(|(i, b)| {
            let (a, c, _) = key(b);
            (a, c, i.0)
        })
        .collect();
    order.sort_unstable();
    for group in order.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        for (k, &(_, _, i)) in group.iter().enumerate() {
            for &(_, _, j) in &group[k + 1..] {
                let (bi, bj) = (&bonds[BondIndex(i)], &bonds[BondIndex(j)]);
                let (ni, nj) = (key(bi).2, key(bj).2);
                if (ni - nj).length() <= 1e-3 && bi.centroid.distance(bj.centroid) <= 1e-4 {
                    let (first, second) = (BondIndex(i.min(j)), BondIndex(i.max(j)));
                    let (low, high, _) = key(bi);
                    return Err(AssetError::DuplicateBond {
                        first,
                        second,
                        chunk0: ChunkIndex(low),
                        other: if high == u32::MAX {
                            "the world".into()
                        } else {
                            format!("chunk {high}")
                        },
                    });
                }
            }
        }
    }
    Ok(())
}

/// Checks that `inertia` is finite, symmetric and positive definite.
fn validate_inertia(inertia: Mat3) -> Result<PrincipalAxes, String> {
    let cols = inertia.to_cols_array();
    if cols.iter().any(|v| !v.is_finite()) {
        return Err("non-finite entry".into());
    }
    let scale = cols.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let asym = (inertia - inertia.transpose())
        .to_cols_array()
        .iter()
        .fold(0.0f32, |m, v| m.max(v.abs()));
    if scale == 0.0 || asym > INERTIA_TOLERANCE * scale {
        return Err(format!(
            "not symmetric (asymmetry {asym:e}, scale {scale:e})"
        ));
    }
    let axes = principal_axes(inertia).map_err(|e| e.to_string())?;
    let m = axes.moments;
    if !(m.min_element() > 0.0) {
        return Err(format!("principal moments {m:?} not all positive"));
    }
    Ok(axes)
}
