//! Typed errors of the authoring pipeline: one enum for mesh input
//! ([`MeshError`]) and one for fracturing ([`FractureError`]). Variants carry
//! the offending values so a message can point at the problem.

use glam::DVec3;
use smithereens_core::AssetError;
use smithereens_core::quantity::sig;
use std::path::PathBuf;

/// Why a mesh could not be loaded or accepted as a closed solid.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// The file could not be read.
    #[error("cannot read mesh file {path}")]
    Io {
        /// File that failed.
        path: PathBuf,
        /// Underlying IO error.
        #[source]
        source: std::io::Error,
    },
    /// The file extension is not one of `obj`, `gltf`, `glb` (case-insensitive).
    #[error("unsupported mesh format {extension:?} for {path} (expected .obj, .gltf or .glb)")]
    UnsupportedFormat {
        /// File that was given.
        path: PathBuf,
        /// Its extension (empty when it has none).
        extension: String,
    },
    /// The OBJ or glTF parser rejected the file.
    #[error("cannot parse {format} file {path}: {message}")]
    Parse {
        /// File that failed.
        path: PathBuf,
        /// `"OBJ"` or `"glTF"`.
        format: &'static str,
        /// The parser's message.
        message: String,
    },
    /// A glTF buffer is missing, too short, or referenced by an unsupported URI.
    #[error("glTF buffer {buffer}: {reason}")]
    GltfBuffer {
        /// Buffer index in the glTF document.
        buffer: usize,
        /// What is wrong.
        reason: String,
    },
    /// No triangles (or no vertices) after loading, or every triangle was degenerate.
    #[error("mesh has no triangles")]
    Empty,
    /// A vertex coordinate is NaN or infinite.
    #[error(
        "vertex {index} has a non-finite position {} (NaN, or a coordinate beyond f32's \
         ±3.4e38, which meshes are stored in)",
        sig(.position)
    )]
    NonFiniteVertex {
        /// Vertex index in the input before welding (for a file: in the
        /// loader's vertex order).
        index: usize,
        /// The offending position, m.
        position: DVec3,
    },
    /// A triangle references a vertex that does not exist.
    #[error(
        "triangle {triangle} references vertex {index}, but the mesh has {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// Triangle index in the input.
        triangle: usize,
        /// The bad vertex index.
        index: u32,
        /// Number of vertices.
        vertex_count: usize,
    },
    /// More than `u32::MAX` vertices or triangles.
    #[error("mesh is too large: {count} {what} (at most {max})")]
    TooLarge {
        /// `"vertices"` or `"triangles"`.
        what: &'static str,
        /// How many there are.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The welded surface is not a closed, consistently oriented 2-manifold:
    /// some undirected edges are used by one triangle only (`open_edges`,
    /// holes in the surface) or by more than two triangles or twice with the
    /// same orientation (`non_manifold_edges`).
    #[error(
        "mesh is not a closed manifold solid: {open_edges} open (boundary) edge(s) and \
         {non_manifold_edges} non-manifold or inconsistently oriented edge(s); first \
         problem edge near {} m", sig(.example)
    )]
    NotClosed {
        /// Undirected edges used by exactly one triangle.
        open_edges: usize,
        /// Undirected edges used by more than two triangles, or by two
        /// triangles with the same orientation.
        non_manifold_edges: usize,
        /// Midpoint of the first offending edge (edges ordered by vertex
        /// index), m, to help locate the problem.
        example: DVec3,
    },
    /// The mesh is smaller than [`MIN_MESH_SIZE`](crate::MIN_MESH_SIZE) or
    /// larger than [`MAX_MESH_SIZE`](crate::MAX_MESH_SIZE) across.
    #[error(
        "mesh is {} m across; meshes from {} m to {} m are accepted (is it in metres? scale it in your modelling tool)",
        sig(.size), sig(crate::MIN_MESH_SIZE), sig(crate::MAX_MESH_SIZE)
    )]
    OutOfScale {
        /// Largest side of its bounding box, m.
        size: f64,
    },
    /// The mesh lies farther from the origin than
    /// [`MAX_ORIGIN_DISTANCE_RATIO`](crate::mesh::MAX_ORIGIN_DISTANCE_RATIO)
    /// times its size: fracturing it there would lose precision.
    #[error(
        "mesh is {} m from the origin but only {} m across (at most {}× its size): positions lose precision that far out; move it to the origin in your modelling tool and place the instance with a pose",
        sig(.distance), sig(.size), sig(crate::mesh::MAX_ORIGIN_DISTANCE_RATIO)
    )]
    FarFromOrigin {
        /// Largest absolute coordinate of its bounding box, m.
        distance: f64,
        /// Largest side of its bounding box, m.
        size: f64,
    },
    /// The closed surface encloses no volume (flat or degenerate).
    #[error("mesh encloses no volume (signed volume {} m³: flat, or wound inside-out)", sig(.volume))]
    ZeroVolume {
        /// Signed volume, m³.
        volume: f64,
    },
}

/// Why a fracture could not be produced. Settings are validated before any
/// work is done, so a settings error never leaves partial output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FractureError {
    /// The input mesh does not satisfy the [`TriMesh`](crate::TriMesh) invariants.
    #[error("invalid input mesh")]
    Mesh(#[from] MeshError),
    /// `chunk_count` is 0.
    #[error("chunk_count must be at least 1")]
    ZeroChunkCount,
    /// `chunk_count` exceeds [`MAX_CHUNK_COUNT`](crate::MAX_CHUNK_COUNT).
    #[error("chunk_count {requested} exceeds the maximum of {max}")]
    TooManyChunks {
        /// Requested count.
        requested: u32,
        /// The limit.
        max: u32,
    },
    /// Density (kg/m³) is not between
    /// [`MIN_DENSITY`](crate::settings::MIN_DENSITY) and
    /// [`MAX_DENSITY`](crate::settings::MAX_DENSITY).
    #[error("density must be between 1e-3 and 1e6 kg/m³, got {} kg/m³", sig(.value))]
    InvalidDensity {
        /// The offending value.
        value: f64,
    },
    /// Bond strength per area (du/m²) is not finite or below
    /// [`MIN_STRENGTH_PER_AREA`](crate::settings::MIN_STRENGTH_PER_AREA).
    #[error(
        "strength_per_area must be finite and at least 1e-9 du/m², got {} du/m²",
        sig(.value)
    )]
    InvalidStrength {
        /// The offending value.
        value: f64,
    },
    /// Support tolerance (m) is not positive and finite.
    #[error("support tolerance must be positive and finite, got {} m", sig(.value))]
    InvalidSupportTolerance {
        /// The offending value.
        value: f64,
    },
    /// Support plane with a non-finite point or a zero / non-finite normal.
    #[error(
        "support plane is invalid: point {}, normal {} (need a finite point and a non-zero finite normal)",
        sig(.point), sig(.normal)
    )]
    InvalidSupportPlane {
        /// Plane point, m.
        point: DVec3,
        /// Plane normal (any length).
        normal: DVec3,
    },
    /// A [`CutNoise`](crate::CutNoise) parameter is out of range.
    #[error("cut noise {parameter} is {}; expected {expected}", sig(.value))]
    InvalidCutNoise {
        /// Field name: `amplitude`, `frequency`, `octaves` or `resolution`.
        parameter: &'static str,
        /// The offending value (integers converted to f64).
        value: f64,
        /// The accepted range.
        expected: &'static str,
    },
    /// A [`HullDecomposition`](crate::HullDecomposition) parameter is out of range.
    #[error("hull decomposition {parameter} is {}; expected {expected}", sig(.value))]
    InvalidDecomposition {
        /// Field name: `threshold` or `max_hulls`.
        parameter: &'static str,
        /// The offending value (integers converted to f64).
        value: f64,
        /// The accepted range.
        expected: &'static str,
    },
    /// Could not place all sites inside the mesh within the attempt budget
    /// (the mesh fills too little of its bounding box).
    #[error(
        "placed only {placed} of {requested} Voronoi sites inside the mesh after {attempts} attempts \
         (the distribution puts too few points inside the mesh: a small impact radius or \
         cluster spread, a large Poisson-disk spacing, or a very thin mesh)"
    )]
    SitePlacement {
        /// Sites placed.
        placed: u32,
        /// Sites requested.
        requested: u32,
        /// Random points tried.
        attempts: u64,
    },
    /// An explicit site list ([`SiteDistribution::Explicit`](crate::SiteDistribution::Explicit))
    /// is empty.
    #[error("the explicit Voronoi site list is empty: give at least one site")]
    NoSites,
    /// An explicit site list has more sites than
    /// [`MAX_CHUNK_COUNT`](crate::MAX_CHUNK_COUNT).
    #[error("{count} explicit Voronoi sites exceed the maximum of {max}")]
    TooManySites {
        /// Sites given.
        count: usize,
        /// The limit.
        max: u32,
    },
    /// An explicit site has a NaN or infinite coordinate.
    #[error("explicit Voronoi site {index} is not finite: {}", sig(.position))]
    NonFiniteSite {
        /// Index of the site in the given list.
        index: usize,
        /// Its position, m.
        position: DVec3,
    },
    /// An explicit site lies farther from the mesh's bounding box than
    /// [`MAX_SITE_DISTANCE_FRACTION`](crate::MAX_SITE_DISTANCE_FRACTION)
    /// × its diagonal: squared distances to it would lose every digit of
    /// the mesh's scale (from about 1e154 m they overflow f64), so its
    /// bisectors could not be computed.
    #[error(
        "explicit Voronoi site {index} lies {distance:e} m from the mesh's bounding box, \
         more than {max:e} m (1e6 × its diagonal)"
    )]
    SiteTooFar {
        /// Index of the site in the given list.
        index: usize,
        /// Its distance from the bounding box, m.
        distance: f64,
        /// The largest distance allowed, m.
        max: f64,
    },
    /// A cut face could not be triangulated watertight (degenerate or
    /// self-intersecting cross-section).
    #[error(
        "cannot close the cut between chunks {cell} and {neighbour} with a flat face ({reason}); \
         the surface most likely crosses itself near this cut (closed holes can do that). \
         Try another seed (it moves the cuts), a convex-hull fallback instead of closing holes, \
         or repair the mesh in a modelling tool"
    )]
    Cap {
        /// Voronoi cell (site index) being cut.
        cell: u32,
        /// Site whose bisector plane made the cut.
        neighbour: u32,
        /// What went wrong.
        reason: String,
    },
    /// The convex hull of a chunk could not be computed.
    #[error("convex hull of chunk {chunk} failed: {reason}")]
    Hull {
        /// Output chunk index.
        chunk: u32,
        /// The hull builder's message.
        reason: String,
    },
    /// Pattern parameters are out of range (checked before any work).
    #[error("invalid fracture pattern: {reason}")]
    InvalidPattern {
        /// What is wrong, with the offending values.
        reason: String,
    },
    /// No chunk survived (every cell was empty or degenerate).
    #[error(
        "fracture produced no chunks: every piece was empty, below the volume floor or degenerate \
         (a very thin mesh, or more chunks than it can hold: try fewer)"
    )]
    NoChunks,
    /// The produced asset failed core validation (a bug in this crate; please report).
    #[error("fracture produced an invalid asset")]
    InvalidAsset(#[from] AssetError),
}
