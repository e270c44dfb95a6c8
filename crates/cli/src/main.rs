//! `smithereens`: fracture meshes, inspect assets, run the demo, view and export runs.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use smithereens::demo::{DemoOptions, run_demo};
use smithereens::export::{ExportOptions, export_glb};
use smithereens::simulate::{ScenarioSource, replay, simulate};
use smithereens::view::{ViewServer, standalone_page};
use smithereens::{progress, report};
use smithereens_authoring::{FractureSettings, fracture_voronoi, load_mesh};
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

#[derive(Subcommand)]
enum Command {
    /// Fracture the built-in mesh, stand it on the ground, shoot it, simulate and record the run.
    Demo {
        /// Use this mesh (OBJ, glTF, GLB) instead of the built-in Spot.
        #[arg(long)]
        mesh: Option<PathBuf>,
        /// Number of Voronoi chunks.
        #[arg(long, default_value_t = DemoOptions::default().chunks)]
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
    },
    /// Fracture a closed mesh (OBJ, glTF, GLB) into a versioned asset file.
    Fracture {
        /// The input mesh.
        mesh: PathBuf,
        /// Output asset file.
        #[arg(long, short)]
        output: PathBuf,
        /// Number of Voronoi chunks.
        #[arg(long, default_value_t = 32)]
        chunks: u32,
        /// Site seed: the same seed gives a byte-identical asset.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Density, kg/m³.
        #[arg(long, default_value_t = 2400.0)]
        density: f64,
        /// Bond strength per m² of interface, du/m².
        #[arg(long, default_value_t = smithereens_authoring::DEFAULT_STRENGTH_PER_AREA)]
        strength_per_area: f64,
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
    /// Run a scenario file (or a built-in: wall, tower, bridge) and record it.
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
    /// List the built-in scenarios.
    Scenarios,
    /// Write a recorded run as animated binary glTF: one node per chunk, TRS keys per frame.
    Export {
        /// The recorded run (`*.run.json`).
        run: PathBuf,
        /// Output `.glb` file.
        #[arg(long, short)]
        output: PathBuf,
        /// Key every N-th frame (the last frame is always keyed).
        #[arg(long, default_value_t = 1)]
        every: u32,
    },
}

fn read_run(path: &Path) -> Result<(Vec<u8>, RunRecord)> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
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
        } => {
            let options = DemoOptions {
                mesh,
                chunks,
                seed,
                steps,
                ..DemoOptions::default()
            };
            let fracture_bar = progress::bar(chunks as u64, "fracture");
            let sim_bar = progress::bar(steps as u64, "simulate");
            let output = run_demo(
                &options,
                &mut |p| fracture_bar.set_position(p.done as u64),
                &mut |s, _| sim_bar.set_position(s as u64),
            )?;
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
        } => {
            let m = load_mesh(&mesh).with_context(|| format!("loading {}", mesh.display()))?;
            let settings = FractureSettings {
                chunk_count: chunks,
                seed,
                density,
                strength_per_area,
                ..FractureSettings::default()
            };
            let bar = progress::bar(chunks as u64, "fracture");
            let mut file =
                fracture_voronoi(&m, &settings, &mut |p| bar.set_position(p.done as u64))?;
            bar.finish_and_clear();
            if file.name.is_empty() {
                file.name = mesh
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
            }
            std::fs::write(&output, file.to_bytes())
                .with_context(|| format!("writing {}", output.display()))?;
            let asset = file.validate()?;
            print!("{}", report::inspect(&file, &asset));
            println!("wrote {}", output.display());
        }
        Command::Inspect { asset } => {
            let bytes =
                std::fs::read(&asset).with_context(|| format!("reading {}", asset.display()))?;
            let file = AssetFile::from_bytes(&bytes)
                .with_context(|| format!("reading {}", asset.display()))?;
            let validated = file.validate()?;
            print!("{}", report::inspect(&file, &validated));
        }
        Command::View { run, port } => {
            let (bytes, _) = read_run(&run)?;
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
            let source = ScenarioSource::resolve(&scenario)
                .with_context(|| format!("reading scenario {scenario}"))?;
            let file = smithereens_scenario::ScenarioFile::parse(&source.text)?;
            let total = steps.unwrap_or(file.steps());
            let bar = progress::bar(total as u64, "simulate");
            let (record, summary) =
                simulate(&source, steps, &mut |s, _| bar.set_position(s as u64))?;
            bar.finish_and_clear();
            let json = record.to_json();
            std::fs::write(&output, &json)
                .with_context(|| format!("writing {}", output.display()))?;
            let page = output.with_extension("html");
            std::fs::write(&page, standalone_page(&json))
                .with_context(|| format!("writing {}", page.display()))?;
            print!("{}", report::summary_table(&summary));
            println!("run:    {}", output.display());
            println!("viewer: {}", page.display());
        }
        Command::Replay { run, verify } => {
            let (_, record) = read_run(&run)?;
            let bar = progress::bar(record.frame_count.saturating_sub(1) as u64, "replay");
            let result = replay(&record, &mut |s, _| bar.set_position(s as u64))
                .with_context(|| format!("replaying {}", run.display()))?;
            bar.finish_and_clear();
            match result.first_divergence {
                None => println!(
                    "replayed {} frames: every state hash matches",
                    result.frames
                ),
                Some(frame) if verify => {
                    anyhow::bail!("replay diverged at frame {frame} of {}", record.frame_count)
                }
                Some(frame) => println!(
                    "replay diverged at frame {frame} of {} (use --verify to fail on it)",
                    record.frame_count
                ),
            }
        }
        Command::Scenarios => {
            for (name, text) in smithereens_scenario::BUILTINS {
                let first = text.lines().next().unwrap_or("").trim_start_matches("# ");
                println!("{name:<8} {first}");
            }
        }
        Command::Export { run, output, every } => {
            let (_, record) = read_run(&run)?;
            let glb = export_glb(&record, &ExportOptions { every })
                .with_context(|| format!("exporting {}", run.display()))?;
            std::fs::write(&output, &glb)
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
