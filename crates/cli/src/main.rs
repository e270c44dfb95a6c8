//! `smithereens`: fracture meshes, inspect assets, run the demo, view and export runs.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use smithereens::demo::{DemoOptions, run_demo};
use smithereens::export::{ExportOptions, export_asset_glb, export_glb};
use smithereens::replication::{JoinOptions, ServeOptions, join, serve};
use smithereens::simulate::{ScenarioSource, replay, simulate};
use smithereens::view::{ViewServer, standalone_page};
use smithereens::{progress, report};
use smithereens_authoring::{
    Axis, BondRule, BrickSettings, CutNoise, CutPlane, FractureSettings, HullDecomposition,
    OpenMeshFallback, Pattern, Refinement, RepairOptions, SiteDistribution, SliceSettings, TriMesh,
    fracture_hierarchy_with_report, fracture_with_report, load_mesh_with,
};
use smithereens_core::AssetFile;
use smithereens_core::record::RunRecord;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "smithereens",
    version,
    about = "Destruction for games: fracture meshes, inspect assets, simulate and record."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which fracture pattern `smithereens fracture` uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PatternKind {
    /// Voronoi cells of `--chunks` sites (distribution: `--sites`).
    Voronoi,
    /// A jittered grid of slices (`--slices`, `--angle-jitter-deg`, `--offset-jitter`).
    Slice,
    /// Brick courses (`--course-height`, `--brick-length`, `--joint-offset`).
    Brick,
    /// Arbitrary planes (`--plane`, repeatable).
    Planar,
}

/// Voronoi site distribution for `--sites`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SitesKind {
    /// Uniform in the solid.
    Uniform,
    /// Gaussian clusters (`--clusters`, `--spread`).
    Clustered,
    /// r = R·u around `--impact` (`--radius`).
    Radial,
    /// r = R·u^γ around `--impact` (`--radius`, `--gamma`).
    Impact,
    /// Poisson disk (`--min-distance`).
    Poisson,
    /// Lloyd-relaxed uniform sites (`--lloyd-iterations`).
    Lloyd,
}

/// What to do with a mesh that is still open after cleanup (`fracture`, `demo`).
#[derive(clap::Args, Debug)]
struct OpenMeshArgs {
    /// Fracture the convex hull of a mesh that is open or non-manifold
    /// after cleanup, instead of rejecting it.
    #[arg(long)]
    hull_fallback: bool,
    /// Close every hole of at most MAX_EDGES boundary edges (a loop of
    /// edges used by one triangle) of a mesh that is open after cleanup,
    /// by flat-as-possible triangles; bigger holes or non-manifold edges
    /// are still rejected. MAX_EDGES defaults to 64 when omitted. The
    /// closed holes and the added area are printed as a warning.
    #[arg(
        long,
        value_name = "MAX_EDGES",
        num_args = 0..=1,
        default_missing_value = "64", // smithereens_authoring::DEFAULT_MAX_HOLE_EDGES
        // The smallest hole has 3 edges: a smaller limit closes nothing.
        value_parser = clap::value_parser!(u32).range(3..),
        conflicts_with = "hull_fallback"
    )]
    close_holes: Option<u32>,
}

// `--close-holes` without a value means the library's default limit.
const _: () = assert!(smithereens_authoring::DEFAULT_MAX_HOLE_EDGES == 64);

impl OpenMeshArgs {
    fn fallback(&self) -> OpenMeshFallback {
        match (self.hull_fallback, self.close_holes) {
            (true, _) => OpenMeshFallback::ConvexHull,
            (false, Some(max_hole_edges)) => OpenMeshFallback::CloseHoles { max_hole_edges },
            (false, None) => OpenMeshFallback::Reject,
        }
    }

    /// Adds what to try next to an error about `mesh` not being closed.
    fn explain(&self, mesh: &Path, e: smithereens_authoring::MeshError) -> anyhow::Error {
        match e {
            smithereens_authoring::MeshError::NotClosed {
                open_edges,
                non_manifold_edges,
                ..
            } if open_edges > 0 => {
                let hint = match self.close_holes {
                    // The holes left are the ones over the limit; together
                    // they have `open_edges` edges, so that limit closes each.
                    Some(max) if non_manifold_edges == 0 => format!(
                        "holes of more than {max} edges are left open, {open_edges} edges in all: \
                         --close-holes {open_edges} closes them, or --hull-fallback fractures the convex hull"
                    ),
                    Some(max) => format!(
                        "holes of more than {max} edges are left open, and closing holes cannot mend \
                         its {non_manifold_edges} non-manifold edge(s): --hull-fallback fractures the convex hull"
                    ),
                    None => "an open mesh can be fractured as its convex hull with --hull-fallback, or have small holes closed with --close-holes [MAX_EDGES]".to_string(),
                };
                anyhow::Error::new(e)
                    .context(format!("{} is not a closed solid ({hint})", mesh.display()))
            }
            // These name the file themselves.
            e @ (smithereens_authoring::MeshError::Io { .. }
            | smithereens_authoring::MeshError::UnsupportedFormat { .. }
            | smithereens_authoring::MeshError::Parse { .. }) => e.into(),
            e => anyhow::Error::new(e).context(format!("loading {}", mesh.display())),
        }
    }
}

/// Refuses outputs that would overwrite an input or each other, or that go
/// into a folder that does not exist, before any work is done.
fn check_outputs(inputs: &[(&str, &Path)], outputs: &[(&str, &Path)]) -> Result<()> {
    let all: Vec<(&str, &Path)> = inputs.iter().chain(outputs).copied().collect();
    if let Some((a, b, path)) = smithereens::files::first_clash(&all) {
        anyhow::bail!(
            "the {a} and the {b} are the same file ({}); choose another output name",
            path.display()
        );
    }
    for (what, path) in outputs {
        // Found before the work, not after it (a fracture used to run to the
        // end, write its asset, then fail on `--gltf DIR`).
        if path.is_dir() {
            anyhow::bail!(
                "cannot write the {what} {}: it is a folder; give a file name",
                path.display()
            );
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty())
            && !parent.is_dir()
        {
            let why = if parent.exists() {
                "is a file, not a folder"
            } else {
                "does not exist"
            };
            anyhow::bail!(
                "cannot write the {what} {}: {} {why}",
                path.display(),
                parent.display()
            );
        }
    }
    Ok(())
}

/// Rough-cut flags of `smithereens fracture`.
#[derive(clap::Args, Debug)]
struct NoiseArgs {
    /// Rough interior cut surfaces: largest displacement of a cut face from
    /// its plane, m (e.g. 0.01). Off when not given (or 0). Both chunks of an
    /// interface share the same rough triangles; chunks stay closed.
    #[arg(long, value_name = "M")]
    noise_amplitude: Option<f64>,
    /// Rough cuts: base noise frequency, 1/m (features about 1/frequency apart).
    #[arg(long, value_name = "PER_M", default_value_t = CutNoise::default().frequency, requires = "noise_amplitude")]
    noise_frequency: f64,
    /// Rough cuts: noise octaves (1 to 8), each at twice the frequency and half the weight.
    #[arg(long, default_value_t = CutNoise::default().octaves, requires = "noise_amplitude")]
    noise_octaves: u32,
    /// Rough cuts: grid squares across each interface (2 to 64; at most
    /// 2 × N² rough triangles per interface).
    #[arg(long, value_name = "N", default_value_t = CutNoise::default().resolution, requires = "noise_amplitude")]
    noise_resolution: u32,
}

impl NoiseArgs {
    fn to_cut_noise(&self) -> Option<CutNoise> {
        self.noise_amplitude.map(|amplitude| CutNoise {
            amplitude,
            frequency: self.noise_frequency,
            octaves: self.noise_octaves,
            resolution: self.noise_resolution,
        })
    }
}

/// Collision hull flags of `smithereens fracture`.
#[derive(clap::Args, Debug)]
struct HullArgs {
    /// Give a concave chunk several convex hulls when its single hull
    /// encloses more than (1 + F) × its volume (0.2 = 20 % more). The
    /// chunk is cut along its own concave faces; the parts' hulls cover it
    /// exactly. Positive.
    #[arg(long, value_name = "F", default_value_t = HullDecomposition::default().threshold)]
    hull_threshold: f64,
    /// Most hulls per concave chunk (2 to 64).
    #[arg(long, value_name = "N", default_value_t = HullDecomposition::default().max_hulls)]
    max_hulls: u32,
    /// One convex hull per chunk, however concave (no decomposition).
    #[arg(long, conflicts_with_all = ["hull_threshold", "max_hulls"])]
    single_hull: bool,
}

impl HullArgs {
    fn to_decomposition(&self) -> Option<HullDecomposition> {
        (!self.single_hull).then_some(HullDecomposition {
            threshold: self.hull_threshold,
            max_hulls: self.max_hulls,
        })
    }
}

/// Pattern flags of `smithereens fracture`.
#[derive(clap::Args, Debug)]
struct PatternArgs {
    /// Fracture pattern.
    #[arg(long, value_enum, default_value = "voronoi")]
    pattern: PatternKind,
    /// Voronoi site distribution.
    #[arg(long, value_enum, default_value = "uniform")]
    sites: SitesKind,
    /// Clustered sites: number of clusters.
    #[arg(long, default_value_t = 4)]
    clusters: u32,
    /// Clustered sites: spread (standard deviation), m; default 5 % of the mesh size.
    #[arg(long)]
    spread: Option<f64>,
    /// Radial / impact sites: centre "x,y,z", m; default the bounding-box centre.
    #[arg(long, value_parser = parse_vec3)]
    impact: Option<glam::DVec3>,
    /// Radial / impact sites: radius, m; default the mesh size.
    #[arg(long)]
    radius: Option<f64>,
    /// Impact sites: exponent γ of r = R·u^γ.
    #[arg(long, default_value_t = 2.0)]
    gamma: f64,
    /// Poisson-disk sites: minimum spacing, m; default 0.5 × (volume / chunks)^(1/3).
    #[arg(long)]
    min_distance: Option<f64>,
    /// Lloyd sites: relaxation iterations.
    #[arg(long, default_value_t = 5)]
    lloyd_iterations: u32,
    /// Voronoi sites from a text file instead of --sites and --chunks: one
    /// point "x y z" (m, mesh space; spaces or commas) per line, blank lines
    /// and lines starting with # ignored. Sites closer than 1e-5 × the
    /// mesh's bounding-box diagonal to an earlier one are merged, and sites
    /// outside its bounding box are kept; both are counted in a warning.
    #[arg(long, value_name = "FILE")]
    site_file: Option<PathBuf>,
    /// Slice: slabs along X,Y,Z, e.g. "4,3,2".
    #[arg(long, default_value = "3,3,3")]
    slices: String,
    /// Slice: largest plane tilt, degrees.
    #[arg(long, default_value_t = 0.0)]
    angle_jitter_deg: f64,
    /// Slice: largest plane shift, fraction of the slab spacing.
    #[arg(long, default_value_t = 0.0)]
    offset_jitter: f64,
    /// Brick: course height, m.
    #[arg(long, default_value_t = 0.25)]
    course_height: f64,
    /// Brick: brick length, m.
    #[arg(long, default_value_t = 0.5)]
    brick_length: f64,
    /// Brick: shift of odd courses, fraction of the brick length (0.5 = half brick).
    #[arg(long, default_value_t = 0.5)]
    joint_offset: f64,
    /// Planar: a plane "px,py,pz,nx,ny,nz" (point, m, and normal); repeatable.
    #[arg(long)]
    plane: Vec<String>,
}

fn parse_numbers(text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(|t| t.trim().parse::<f64>().map_err(|e| format!("{t:?}: {e}")))
        .collect()
}

fn parse_vec3(text: &str) -> Result<glam::DVec3, String> {
    match parse_numbers(text)?.as_slice() {
        [x, y, z] => Ok(glam::DVec3::new(*x, *y, *z)),
        _ => Err(format!("expected x,y,z, got {text:?}")),
    }
}

impl PatternArgs {
    /// The pattern, with mesh-relative defaults filled in.
    fn to_pattern(&self, mesh: &TriMesh, chunks: u32) -> Result<Pattern> {
        let (lo, hi) = mesh.bounds();
        let size = (hi - lo).max_element();
        let centre = self.impact.unwrap_or((lo + hi) * 0.5);
        let radius = self.radius.unwrap_or(size);
        if let Some(path) = &self.site_file {
            if self.pattern != PatternKind::Voronoi {
                anyhow::bail!("--site-file needs --pattern voronoi");
            }
            let text = smithereens_authoring::read_input_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let points = smithereens::files::parse_sites(&text)
                .with_context(|| format!("reading {}", path.display()))?;
            return Ok(Pattern::Voronoi {
                sites: SiteDistribution::Explicit { points },
            });
        }
        Ok(match self.pattern {
            PatternKind::Voronoi => Pattern::Voronoi {
                sites: match self.sites {
                    SitesKind::Uniform => SiteDistribution::Uniform,
                    SitesKind::Clustered => SiteDistribution::Clustered {
                        clusters: self.clusters,
                        spread: self.spread.unwrap_or(0.05 * size),
                    },
                    SitesKind::Radial => SiteDistribution::Radial {
                        center: centre,
                        radius,
                    },
                    SitesKind::Impact => SiteDistribution::ImpactDensity {
                        center: centre,
                        radius,
                        gamma: self.gamma,
                    },
                    SitesKind::Poisson => SiteDistribution::PoissonDisk {
                        min_distance: self
                            .min_distance
                            .unwrap_or(0.5 * (mesh.volume() / chunks.max(1) as f64).cbrt()),
                    },
                    SitesKind::Lloyd => SiteDistribution::Lloyd {
                        iterations: self.lloyd_iterations,
                    },
                },
            },
            PatternKind::Slice => {
                let counts: Option<Vec<u32>> = self
                    .slices
                    .split(',')
                    .map(|t| t.trim().parse::<u32>().ok())
                    .collect();
                let Some([x, y, z]) = counts.as_deref() else {
                    anyhow::bail!(
                        "--slices needs three whole counts like 3,3,3, got {:?}",
                        self.slices
                    );
                };
                Pattern::Slice(SliceSettings {
                    counts: [*x, *y, *z],
                    angle_jitter: self.angle_jitter_deg.to_radians(),
                    offset_jitter: self.offset_jitter,
                })
            }
            PatternKind::Brick => Pattern::Brick(BrickSettings {
                course_height: self.course_height,
                brick_length: self.brick_length,
                joint_offset: self.joint_offset,
                up: Axis::Y,
                along: Axis::X,
            }),
            PatternKind::Planar => {
                let mut planes = Vec::new();
                for p in &self.plane {
                    let n = parse_numbers(p).map_err(anyhow::Error::msg)?;
                    let [px, py, pz, nx, ny, nz] = n.as_slice() else {
                        anyhow::bail!("--plane needs px,py,pz,nx,ny,nz, got {p:?}");
                    };
                    planes.push(CutPlane {
                        point: glam::DVec3::new(*px, *py, *pz),
                        normal: glam::DVec3::new(*nx, *ny, *nz),
                    });
                }
                Pattern::Planar { planes }
            }
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Fracture the built-in mesh, stand it on the ground, shoot it, simulate and record the run.
    Demo {
        /// Use this mesh (OBJ, glTF, GLB) instead of the built-in Spot.
        #[arg(long)]
        mesh: Option<PathBuf>,
        /// Number of Voronoi chunks (at least 1).
        #[arg(long, default_value_t = DemoOptions::default().chunks, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
        /// Fracture seed.
        #[arg(long, default_value_t = DemoOptions::default().seed)]
        seed: u64,
        /// Fixed 60 Hz steps to simulate.
        #[arg(long, default_value_t = DemoOptions::default().steps)]
        steps: u32,
        /// Output folder for the asset and the recorded run.
        #[arg(long, short, default_value = "out/demo")]
        out: PathBuf,
        #[command(flatten)]
        open_mesh: OpenMeshArgs,
    },
    /// Fracture a closed mesh (OBJ, glTF, GLB) into a versioned asset file.
    #[command(allow_negative_numbers = true)]
    Fracture {
        /// The input mesh.
        mesh: PathBuf,
        /// Output asset file.
        #[arg(long, short)]
        output: PathBuf,
        /// Number of Voronoi chunks (at least 1).
        #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
        chunks: u32,
        /// Site seed: the same seed gives a byte-identical asset.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Density, kg/m³ (1e-3 to 1e6).
        #[arg(long, default_value_t = 2400.0)]
        density: f64,
        /// Bond strength per m² of interface, du/m² (at least 1e-9).
        #[arg(long, default_value_t = smithereens_authoring::DEFAULT_STRENGTH_PER_AREA)]
        strength_per_area: f64,
        #[command(flatten)]
        pattern: Box<PatternArgs>,
        #[command(flatten)]
        noise: NoiseArgs,
        /// Also write the chunks as a GLB (exterior and interior primitives
        /// with separate materials), viewable in any glTF viewer.
        #[arg(long)]
        gltf: Option<PathBuf>,
        #[command(flatten)]
        open_mesh: OpenMeshArgs,
        /// Build a two-level hierarchy: fracture every chunk again into this
        /// many uniform Voronoi chunks (at least 1).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        refine: Option<u32>,
        /// With --refine: the level the runtime simulates (0 = the first
        /// chunks, whose refined children are kept as subsupport chunks;
        /// 1 = the refined chunks).
        #[arg(long, default_value_t = 1, requires = "refine")]
        support_depth: u32,
        /// No bonds between chunks: the asset is a pile of loose pieces
        /// (supports are still flagged).
        #[arg(long)]
        no_bonds: bool,
        /// Keep render-mesh edges shorter than 1e-5 × the mesh's
        /// bounding-box diagonal as carved: no short-edge collapse (on by
        /// default; README, "No near-degenerate render meshes"), and sampled
        /// Voronoi sites are not put in general position. The output
        /// before the collapse became the default.
        #[arg(long)]
        no_collapse_short_edges: bool,
        /// Collapse short edges (the default; kept so older command lines work).
        #[arg(long, hide = true, conflicts_with = "no_collapse_short_edges")]
        collapse_short_edges: bool,
        /// Carve every cell from the whole mesh and triangulate caps in
        /// vertex order, as before shared regions became the default
        /// (README, "Shared regions"): same chunks and bonds, another
        /// interior triangulation, about 17-28 % slower.
        #[arg(long)]
        no_shared_regions: bool,
        /// Shared regions (the default; kept so older command lines work).
        #[arg(long, hide = true, conflicts_with = "no_shared_regions")]
        shared_regions: bool,
        #[command(flatten)]
        hulls: HullArgs,
    },
    /// Print counts, volume, mass, bond statistics and warnings of an asset file.
    Inspect {
        /// The asset file.
        asset: PathBuf,
    },
    /// Serve the browser viewer for a recorded run on 127.0.0.1 until Ctrl-C.
    View {
        /// The recorded run (`*.run.json`).
        run: PathBuf,
        /// Port to listen on; 0 picks a free one.
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Run a scenario file (or a built-in: `smithereens scenarios` lists them) and record it.
    Simulate {
        /// A scenario TOML file or the name of a built-in scenario.
        scenario: String,
        /// Output run file (`*.run.json`); a viewer page is written next to it.
        #[arg(long, short)]
        output: PathBuf,
        /// Override the scenario's duration with this many fixed steps.
        #[arg(long)]
        steps: Option<u32>,
    },
    /// Re-simulate a recorded run from its embedded scenario.
    Replay {
        /// The recorded run (`*.run.json`) written by `simulate`.
        run: PathBuf,
        /// Compare every frame's state hash; exit non-zero on divergence.
        #[arg(long)]
        verify: bool,
    },
    /// Run a scenario authoritatively and replicate its destruction over UDP on 127.0.0.1.
    ///
    /// Receivers (`smithereens join`) get the scenario, build its instances
    /// as core replicas (no physics) and follow the commit records;
    /// snapshots fill their gaps and bring late joiners up to date.
    /// Replication carries the destruction state (bond health, clusters,
    /// representation, body slots), not per-step poses: the printed hashes
    /// are replicated hashes, which leave motion out.
    ///
    /// Prints `listening ADDR …`, then `checkpoint INSTANCE SEQ HASH` for
    /// every commit, `final INSTANCE SEQ HASH` after the last step, and shim
    /// and traffic counters at the end. After the last step it stays
    /// (serving snapshots and statuses) until every receiver has left or
    /// gone silent for 3 s, at most --linger-s; when no receiver ever
    /// joined it stays the whole --linger-s, for late joiners.
    #[command(allow_negative_numbers = true)]
    Serve {
        /// A scenario TOML file or the name of a built-in scenario.
        scenario: String,
        /// UDP port on 127.0.0.1; 0 picks a free one (printed).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Override the scenario's duration with this many fixed steps.
        #[arg(long)]
        steps: Option<u32>,
        /// Wall time per step, ms (the pace of the run).
        #[arg(long, value_name = "MS", default_value_t = 16)]
        step_ms: u64,
        /// Longest stay after the last step, s.
        #[arg(long, value_name = "SECS", default_value_t = 10.0)]
        linger_s: f64,
        /// Wait for this many receivers before the first step.
        #[arg(long, value_name = "N", default_value_t = 0)]
        wait_for: usize,
        /// Longest wait for them, s.
        #[arg(long, value_name = "SECS", default_value_t = 30.0)]
        wait_s: f64,
        #[command(flatten)]
        shim: ShimArgs,
    },
    /// Replicate a `smithereens serve` run: core replicas of its instances, kept up to date over UDP.
    ///
    /// HOST must be 127.0.0.1 or localhost (`serve` listens on IPv4
    /// loopback only): replication never leaves the machine. Builds the server's scenario
    /// here and refuses to go on if an asset's fingerprint differs from the
    /// server's. Replication carries destruction state, not per-step poses.
    ///
    /// Prints `applied INSTANCE SEQ HASH commit|snapshot` for every state a
    /// replica reaches (HASH: the replicated hash, comparable with the
    /// server's checkpoints), `done` once every replica holds the server's
    /// final state, then counters; exits 0 then, non-zero on timeout.
    #[command(allow_negative_numbers = true)]
    Join {
        /// The server, HOST:PORT.
        server: String,
        /// Give up when the final state is not reached within this long, s.
        #[arg(long, value_name = "SECS", default_value_t = 60.0)]
        timeout_s: f64,
        #[command(flatten)]
        shim: ShimArgs,
    },
    /// List the built-in scenarios.
    Scenarios,
    /// Write a recorded run as animated binary glTF: one node per chunk, TRS keys per frame.
    Export {
        /// The recorded run (`*.run.json`).
        run: PathBuf,
        /// Output `.glb` file.
        #[arg(long, short)]
        output: PathBuf,
        /// Key every N-th frame (the last frame is always keyed); N ≥ 1.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        every: u32,
    },
}

/// The loss/duplication/reordering shim on what `serve` or `join` sends.
#[derive(clap::Args, Debug)]
struct ShimArgs {
    /// Probability that a datagram is dropped.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    loss: f64,
    /// Probability that a datagram (not dropped) is sent twice.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    duplicate: f64,
    /// Probability that a datagram is held back and arrives after later ones.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    reorder: f64,
    /// A held datagram goes out after at most this many later ones...
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    reorder_hold: u32,
    /// ...or after this long, ms.
    #[arg(long, value_name = "MS", default_value_t = 5)]
    reorder_ms: u64,
    /// Seed of the shim's decisions (default: the process id).
    #[arg(long, value_name = "S")]
    shim_seed: Option<u64>,
}

impl ShimArgs {
    fn to_desc(&self) -> Result<smithereens_net::ShimDesc> {
        let desc = smithereens_net::ShimDesc {
            loss: self.loss,
            duplicate: self.duplicate,
            reorder: self.reorder,
            max_hold: self.reorder_hold,
            hold: std::time::Duration::from_millis(self.reorder_ms),
            seed: self
                .shim_seed
                .unwrap_or_else(|| u64::from(std::process::id())),
        };
        desc.validate()?;
        Ok(desc)
    }
}

/// A duration flag in seconds: finite and not negative.
/// Longest duration a flag accepts, s (one day): a wait longer than that is
/// a typo, and far longer ones overflow the clock's arithmetic.
const MAX_FLAG_SECONDS: f64 = 86_400.0;

fn seconds(flag: &str, value: f64) -> Result<std::time::Duration> {
    if !(0.0..=MAX_FLAG_SECONDS).contains(&value) {
        anyhow::bail!("--{flag} {value} is out of range: give 0 to {MAX_FLAG_SECONDS} s");
    }
    std::time::Duration::try_from_secs_f64(value)
        .map_err(|_| anyhow::anyhow!("--{flag} {value} is not a duration in seconds"))
}

fn read_run(path: &Path) -> Result<(Vec<u8>, RunRecord)> {
    let bytes = smithereens_authoring::read_input(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let run =
        RunRecord::from_json(&bytes).with_context(|| format!("reading {}", path.display()))?;
    Ok((bytes, run))
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Demo {
            mesh,
            chunks,
            seed,
            steps,
            out,
            open_mesh,
        } => {
            let options = DemoOptions {
                mesh: mesh.clone(),
                chunks,
                seed,
                steps,
                open_fallback: open_mesh.fallback(),
                ..DemoOptions::default()
            };
            let mut fracture_bar = progress::bar(chunks as u64, "fracture");
            let mut sim_bar = progress::bar(steps as u64, "simulate");
            let output = run_demo(
                &options,
                &mut |p| fracture_bar.set_position(p.done as u64),
                &mut |s, _| sim_bar.set_position(s as u64),
            )
            .map_err(|e| match (e, &mesh) {
                (smithereens::demo::DemoError::Mesh(e), Some(path)) => open_mesh.explain(path, e),
                (e, _) => e.into(),
            })?;
            if let (Some(repair), Some(path)) = (&output.repair, &mesh) {
                for warning in repair.warnings() {
                    eprintln!("warning: {}: {warning}", path.display());
                }
            }
            fracture_bar.finish_and_clear();
            sim_bar.finish_and_clear();
            std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
            let asset_path = out.join("demo.smasset");
            let run_path = out.join("demo.run.json");
            std::fs::write(&asset_path, output.asset.to_bytes())
                .with_context(|| format!("writing {}", asset_path.display()))?;
            let run_json = output.record.to_json();
            std::fs::write(&run_path, &run_json)
                .with_context(|| format!("writing {}", run_path.display()))?;
            let page_path = out.join("index.html");
            std::fs::write(&page_path, standalone_page(&run_json))
                .with_context(|| format!("writing {}", page_path.display()))?;
            print!("{}", report::summary_table(&output.summary));
            println!("asset: {}", asset_path.display());
            println!("run:   {}", run_path.display());
            println!(
                "page:  {} (open it in a browser, or run: smithereens view {})",
                page_path.display(),
                run_path.display()
            );
        }
        Command::Fracture {
            mesh,
            output,
            chunks,
            seed,
            density,
            strength_per_area,
            pattern,
            noise,
            gltf,
            open_mesh,
            refine,
            support_depth,
            no_bonds,
            no_collapse_short_edges,
            collapse_short_edges: _,
            no_shared_regions,
            shared_regions: _,
            hulls,
        } => {
            let mut outputs = vec![("asset output", output.as_path())];
            if let Some(g) = &gltf {
                outputs.push(("--gltf output", g.as_path()));
            }
            let mut inputs = vec![("input mesh", mesh.as_path())];
            if let Some(sites) = &pattern.site_file {
                inputs.push(("--site-file", sites.as_path()));
            }
            check_outputs(&inputs, &outputs)?;
            let options = RepairOptions {
                open_fallback: open_mesh.fallback(),
                ..RepairOptions::default()
            };
            let (m, repair) =
                load_mesh_with(&mesh, &options).map_err(|e| open_mesh.explain(&mesh, e))?;
            for warning in repair.warnings() {
                eprintln!("warning: {}: {warning}", mesh.display());
            }
            let settings = FractureSettings {
                chunk_count: chunks,
                seed,
                density,
                strength_per_area,
                cut_noise: noise.to_cut_noise(),
                bonds: if no_bonds {
                    BondRule::Off
                } else {
                    BondRule::Detect
                },
                decomposition: hulls.to_decomposition(),
                collapse_short_edges: !no_collapse_short_edges,
                shared_regions: !no_shared_regions,
                ..FractureSettings::default()
            };
            let pattern = pattern.to_pattern(&m, chunks)?;
            let mut bar = progress::bar(0, "fracture");
            let mut on_progress = |p: smithereens_authoring::Progress| {
                bar.set_length(p.total as u64);
                bar.set_position(p.done as u64);
            };
            let (mut file, sliver_report) = match refine {
                Some(per_chunk) => {
                    let refinement = Refinement {
                        pattern: Pattern::default(),
                        chunk_count: per_chunk,
                        support_depth,
                    };
                    let (file, report) = fracture_hierarchy_with_report(
                        &m,
                        &settings,
                        &pattern,
                        &refinement,
                        &mut on_progress,
                    )?;
                    for warning in report.warnings() {
                        eprintln!("warning: {warning}");
                    }
                    (file, None)
                }
                None => {
                    let (file, report) =
                        fracture_with_report(&m, &settings, &pattern, &mut on_progress)?;
                    (file, Some(report))
                }
            };
            bar.finish_and_clear();
            if file.name.is_empty() {
                file.name = mesh
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
            }
            // The asset says when the fractured surface is not the file's
            // (convex hull, closed holes).
            if repair.replaced_by_convex_hull.is_some() || !repair.closed_holes.is_empty() {
                file.provenance += &format!("; input repaired: {}", repair.warnings().join("; "));
            }
            // Everything is computed and checked before the first byte is
            // written; each file is then replaced whole or not at all.
            let asset = file.validate()?;
            let glb = gltf.as_ref().map(|_| export_asset_glb(&file)).transpose()?;
            smithereens::files::write_atomic(&output, &file.to_bytes())
                .with_context(|| format!("writing {}", output.display()))?;
            print!("{}", report::inspect(&file, &asset));
            if let Some(sliver_report) = &sliver_report {
                for warning in sliver_report.warnings() {
                    eprintln!("warning: {warning}");
                }
                print!("{}", report::sliver_summary(sliver_report));
            }
            println!("wrote {}", output.display());
            if let (Some(path), Some(glb)) = (gltf, glb) {
                smithereens::files::write_atomic(&path, &glb)
                    .with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {} ({} bytes)", path.display(), glb.len());
            }
        }
        Command::Inspect { asset } => {
            let bytes = smithereens_authoring::read_input(&asset)
                .with_context(|| format!("reading {}", asset.display()))?;
            let file = AssetFile::from_bytes(&bytes)
                .with_context(|| format!("reading {}", asset.display()))?;
            let validated = file.validate()?;
            print!("{}", report::inspect(&file, &validated));
        }
        Command::View { run, port } => {
            let (bytes, record) = read_run(&run)?;
            smithereens::export::validate_run(&record)
                .with_context(|| format!("reading {}", run.display()))?;
            let server = ViewServer::bind(port, bytes)
                .with_context(|| format!("listening on 127.0.0.1:{port}"))?;
            // Printing must not fail: a caller that read the address may
            // have closed our stdout, and the server should keep serving.
            let _ = writeln!(
                std::io::stdout(),
                "viewer for {} at {} (Ctrl-C stops it)",
                run.display(),
                server.url()
            );
            server.serve()?;
        }
        Command::Simulate {
            scenario,
            output,
            steps,
        } => {
            let source = ScenarioSource::resolve(&scenario)?;
            let page = output.with_extension("html");
            if smithereens::files::same_file(&page, &output)
                || smithereens::files::same_file(Path::new(&scenario), &output)
            {
                anyhow::bail!(
                    "output {} would overwrite the scenario or the viewer page written next to the run; use a name like run.json",
                    output.display()
                );
            }
            check_outputs(&[], &[("output", &output), ("viewer page", &page)])?;
            let mut file = smithereens_scenario::ScenarioFile::parse(&source.text)?;
            // Nor a mesh or asset file the scenario reads (the run, or its
            // page, would replace it).
            for input in file.input_files() {
                let input = source.dir.join(input);
                if smithereens::files::same_file(&input, &output)
                    || smithereens::files::same_file(&input, &page)
                {
                    anyhow::bail!(
                        "output {} (or its viewer page {}) would overwrite {}, which the scenario reads; choose another output name",
                        output.display(),
                        page.display(),
                        input.display()
                    );
                }
            }
            // Refused before any progress line is printed.
            smithereens::simulate::check_steps(&file, steps)?;
            if let Some(n) = steps {
                for removed in file.truncate(n)? {
                    eprintln!("note: --steps {n} ends the run before {removed}; it is left out");
                }
            }
            let total = steps.unwrap_or(file.steps());
            let mut bar = progress::bar(total as u64, "simulate");
            let (record, summary) =
                simulate(&source, steps, &mut |s, _| bar.set_position(s as u64))?;
            bar.finish_and_clear();
            let json = record.to_json();
            std::fs::write(&output, &json)
                .with_context(|| format!("writing {}", output.display()))?;
            std::fs::write(&page, standalone_page(&json))
                .with_context(|| format!("writing {}", page.display()))?;
            print!("{}", report::summary_table(&summary));
            println!("run:    {}", output.display());
            println!("viewer: {}", page.display());
        }
        Command::Replay { run, verify } => {
            let (_, record) = read_run(&run)?;
            // The recorded frames are checked as `view` and `export` check
            // them: a run whose recorded bodies or poses were tampered with
            // is refused, not "verified" from its embedded scenario alone.
            smithereens::export::validate_run(&record)
                .with_context(|| format!("reading {}", run.display()))?;
            let mut bar = progress::bar(record.frame_count.saturating_sub(1) as u64, "replay");
            let result = replay(&record, &mut |s, _| bar.set_position(s as u64))
                .with_context(|| format!("replaying {}", run.display()))?;
            bar.finish_and_clear();
            let engines = match &result.other_engine {
                Some(recorded) => format!(
                    "; the run was recorded by {recorded}, this is {}",
                    smithereens::ENGINE
                ),
                None => String::new(),
            };
            match result.first_divergence {
                None => println!(
                    "replayed {} frames ({} steps after the first): every state hash matches",
                    result.frames,
                    result.frames.saturating_sub(1)
                ),
                Some(frame) if verify => {
                    anyhow::bail!(
                        "replay diverged at frame {frame} of {}{engines}",
                        record.frame_count
                    )
                }
                Some(frame) => println!(
                    "replay diverged at frame {frame} of {}{engines} (use --verify to fail on it)",
                    record.frame_count
                ),
            }
        }
        Command::Serve {
            scenario,
            port,
            steps,
            step_ms,
            linger_s,
            wait_for,
            wait_s,
            shim,
        } => {
            let source = ScenarioSource::resolve(&scenario)?;
            let options = ServeOptions {
                port,
                shim: shim.to_desc()?,
                steps,
                step_time: std::time::Duration::from_millis(step_ms),
                linger: seconds("linger-s", linger_s)?,
                wait_for,
                wait: seconds("wait-s", wait_s)?,
            };
            serve(&source, &options, &mut std::io::stdout())?;
        }
        Command::Join {
            server,
            timeout_s,
            shim,
        } => {
            let options = JoinOptions {
                shim: shim.to_desc()?,
                timeout: seconds("timeout-s", timeout_s)?,
            };
            join(&server, &options, &mut std::io::stdout())?;
        }
        Command::Scenarios => {
            for (name, text) in smithereens_scenario::BUILTINS {
                // The description is the file's leading comment block.
                let about: Vec<&str> = text
                    .lines()
                    .take_while(|l| l.starts_with('#'))
                    .map(|l| l.trim_start_matches('#').trim())
                    .collect();
                println!("{name:<10} {}", about.join(" "));
            }
        }
        Command::Export { run, output, every } => {
            check_outputs(&[("run being exported", &run)], &[("output", &output)])?;
            let (_, record) = read_run(&run)?;
            let glb = export_glb(&record, &ExportOptions { every })
                .with_context(|| format!("exporting {}", run.display()))?;
            smithereens::files::write_atomic(&output, &glb)
                .with_context(|| format!("writing {}", output.display()))?;
            println!(
                "wrote {} ({} nodes, {:.2} s of animation, {} bytes)",
                output.display(),
                record.chunks.len(),
                record.frame_count.saturating_sub(1) as f32 * record.timestep,
                glb.len()
            );
        }
    }
    Ok(())
}
