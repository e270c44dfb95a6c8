//! # smithereens-authoring
//!
//! Offline fracture of real meshes into Smithereens assets (DESIGN §5):
//!
//! * [`load_mesh`] reads OBJ / glTF / GLB into a closed, welded, outward
//!   wound [`TriMesh`] or returns a typed [`MeshError`] naming the problem
//!   (e.g. [`MeshError::NotClosed`] with the number of open edges);
//!   [`mesh_from_triangles`] does the same for in-memory triangles.
//!   Loading cleans messy input first ([`repair_mesh`]: exact weld,
//!   duplicate faces removed, zero-area faces dropped or T-junctions split);
//!   [`load_mesh_with`] adds the opt-in fallbacks for surfaces that stay
//!   open ([`OpenMeshFallback::ConvexHull`], or
//!   [`OpenMeshFallback::CloseHoles`] to fill small holes), and returns a
//!   [`RepairReport`].
//! * [`fracture_voronoi`] cuts the mesh into Voronoi chunks by half-space
//!   clipping with watertight caps, computes per-chunk mass properties and
//!   convex hulls, detects bonds from shared cut faces, flags support chunks
//!   and returns a [`smithereens_core::AssetFile`] (asset description plus
//!   one render mesh per chunk).
//! * [`fracture`] does the same for any [`Pattern`]: Voronoi with a
//!   [`SiteDistribution`] (uniform, clustered, radial, impact-density,
//!   Poisson-disk, Lloyd, or an explicit site list whose near-coincident
//!   sites are merged and counted), or the plane-cut patterns slice
//!   ([`SliceSettings`]), brick ([`BrickSettings`]) and planar
//!   ([`CutPlane`]s), whose cells are convex too and go through the same
//!   clipper, capper, bond finder and assembly.
//!   [`fracture_with_report`] also returns a [`FractureReport`] listing
//!   every sliver merged or dropped and the volume balance. A merged
//!   chunk's render mesh is the closed surface of the union (the caps
//!   between its pieces cancel); cuts closer than
//!   [`COINCIDENT_CUT_FRACTION`] of the diagonal are one cut.
//!   [`FractureSettings::bonds`] = [`BondRule::Off`] gives an asset without
//!   bonds (loose pieces).
//! * [`FractureSettings::decomposition`] ([`HullDecomposition`], on by
//!   default) gives a concave chunk several convex hulls, cut along its own
//!   concave faces, when one hull would enclose more than 1.2 × its volume.
//! * Cells are carved in parallel on rayon's current thread pool; the asset
//!   is byte-identical for any number of threads.
//! * [`FractureSettings::cut_noise`] ([`CutNoise`]) makes the interior cut
//!   surfaces of any pattern rough: both chunks of an interface share the
//!   same noisy triangles, every chunk stays closed, the volume is kept.
//!
//! Units: metres, kilograms (density kg/m³), seconds; bond strength in game
//! damage units (du). Computation is in `f64`, output in `f32`. Everything
//! is deterministic: same input and settings, same bytes.
//!
//! ```
//! use smithereens_authoring::{fracture_voronoi, load_mesh, FractureSettings};
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes/Box.gltf");
//! let mesh = load_mesh(path.as_ref()).unwrap();
//! let settings = FractureSettings { chunk_count: 6, ..Default::default() };
//! let file = fracture_voronoi(&mesh, &settings, &mut |_| {}).unwrap();
//! assert!(smithereens_core::Asset::new(&file.desc).is_ok());
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod assembly;
mod bonds;
mod cap;
mod clip;
mod cut_noise;
mod decompose;
mod degenerate_output;
mod edge_collapse;
pub mod error;
mod general_position;
pub mod hierarchy;
mod hole;
pub mod import;
pub mod input_file;
pub mod mass_properties;
pub mod mesh;
pub mod pattern;
mod piece;
mod region_tree;
pub mod repair;
pub mod report;
mod seam;
pub mod settings;
pub mod sites;
mod star_cap;
mod support;
mod topology;
mod union;
pub mod voronoi;
mod voronoi_cell;
pub mod weapon_extras;

pub use assembly::{SHORT_EDGE_ULPS, SLIVER_INERTIA_RATIO, SLIVER_VOLUME_FRACTION};
pub use decompose::hull_volume;
pub use error::{FractureError, MeshError};
pub use hierarchy::{Refinement, fracture_hierarchy, fracture_hierarchy_with_report};
pub use hole::{ClosedHole, MAX_TRIANGULATED_LOOP};
pub use import::{load_mesh, load_mesh_with, parse_obj};
pub use input_file::{NOT_A_REGULAR_FILE, check_input, read_input, read_input_to_string};
pub use mass_properties::MassProperties;
pub use mesh::{
    BOX_TRIANGLES, MAX_MESH_SIZE, MIN_MESH_SIZE, TriMesh, box_corners, box_mesh,
    mesh_from_triangles,
};
pub use pattern::{
    BrickSettings, COINCIDENT_CUT_FRACTION, CutPlane, MAX_CUT_PLANES, Pattern, SliceSettings,
    fracture, fracture_with_report,
};
pub use repair::{
    DEFAULT_MAX_HOLE_EDGES, OpenMeshFallback, RepairOptions, RepairReport, ZERO_AREA_FRACTION,
    repair_mesh,
};
pub use report::{FractureReport, HierarchyReport, SliverAction, SliverEvent, SliverReason};
pub use settings::{
    Axis, BondRule, CutNoise, DEFAULT_DECOMPOSITION_THRESHOLD, DEFAULT_STRENGTH_PER_AREA,
    DEFAULT_SUPPORT_TOLERANCE, FractureSettings, HullDecomposition, MAX_CHUNK_COUNT,
    MAX_HULLS_PER_CHUNK, MAX_NOISE_OCTAVES, MAX_NOISE_RESOLUTION, Progress, SupportRule,
};
pub use sites::{COINCIDENT_SITE_FRACTION, MAX_SITE_DISTANCE_FRACTION, SiteDistribution};
pub use voronoi::{
    MIN_AREA_FRACTION, MIN_EDGE_FRACTION, SNAP_FRACTION, WELD_FRACTION, fracture_voronoi,
};
pub use weapon_extras::{WeaponExtras, WeaponExtrasError, load_weapon_extras, weapon_extras};
