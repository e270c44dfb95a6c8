//! `smithereens fracture` with patterns, the hull fallback and GLB output.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

fn mesh(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes")).join(name)
}

fn run(args: &[&str], input: &str, dir: &std::path::Path, stem: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("fracture")
        .arg(mesh(input))
        .arg("-o")
        .arg(dir.join(format!("{stem}.smasset")))
        .arg("--gltf")
        .arg(dir.join(format!("{stem}.glb")))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn every_pattern_writes_an_asset_and_a_glb_with_interior_primitives() {
    let dir = std::env::temp_dir().join(format!("smithereens-fracture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        ("voronoi", &["--chunks", "8", "--seed", "3"]),
        (
            "lloyd",
            &[
                "--chunks",
                "8",
                "--sites",
                "lloyd",
                "--lloyd-iterations",
                "2",
            ],
        ),
        (
            "slice",
            &[
                "--pattern",
                "slice",
                "--slices",
                "2,2,2",
                "--angle-jitter-deg",
                "5",
            ],
        ),
        (
            "brick",
            &[
                "--pattern",
                "brick",
                "--course-height",
                "0.3",
                "--brick-length",
                "0.4",
            ],
        ),
        (
            "planar",
            &[
                "--pattern",
                "planar",
                "--plane",
                "0,0,0,1,0.2,0",
                "--plane",
                "0,0.1,0,0,1,0",
            ],
        ),
    ];
    for (stem, args) in cases {
        let out = run(args, "Box.gltf", &dir, stem);
        assert!(
            out.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(dir.join(format!("{stem}.smasset"))).unwrap();
        let file = smithereens_core::AssetFile::from_bytes(&bytes).unwrap();
        let glb = std::fs::read(dir.join(format!("{stem}.glb"))).unwrap();
        let doc = gltf::Gltf::from_slice(&glb).unwrap();
        assert_eq!(doc.nodes().count(), file.desc.chunks.len(), "{stem}");
        let names: Vec<_> = doc
            .materials()
            .map(|m| m.name().unwrap().to_string())
            .collect();
        assert_eq!(names, ["exterior", "interior"]);
        for node in doc.nodes() {
            let prims: Vec<_> = node.mesh().unwrap().primitives().collect();
            // Every chunk of a fractured box has cut faces.
            assert!(
                prims
                    .iter()
                    .any(|p| p.material().name() == Some("interior")),
                "{stem}"
            );
        }
        // Same seed, same bytes.
        let again = run(args, "Box.gltf", &dir, &format!("{stem}-again"));
        assert!(again.status.success());
        assert_eq!(
            bytes,
            std::fs::read(dir.join(format!("{stem}-again.smasset"))).unwrap()
        );
        assert_eq!(
            glb,
            std::fs::read(dir.join(format!("{stem}-again.glb"))).unwrap()
        );
    }
}

#[test]
fn open_mesh_is_rejected_with_counts_unless_the_hull_fallback_is_asked_for() {
    let dir =
        std::env::temp_dir().join(format!("smithereens-fracture-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&["--chunks", "6"], "wall.obj", &dir, "wall");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("36 open") && err.contains("--hull-fallback"),
        "{err}"
    );
    // Closing holes with too low a limit says which limit closes them.
    let out = run(
        &["--chunks", "6", "--close-holes", "3"],
        "wall.obj",
        &dir,
        "wall",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holes of more than 3 edges are left open, 36 edges in all")
            && err.contains("--close-holes 36 closes them")
            && err.contains("--hull-fallback"),
        "{err}"
    );
    let out = run(
        &["--chunks", "6", "--hull-fallback"],
        "wall.obj",
        &dir,
        "wall",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("convex hull") && err.contains("186 duplicate"),
        "{err}"
    );
    // The asset remembers that it is the hull, not the file's surface.
    let file =
        smithereens_core::AssetFile::from_bytes(&std::fs::read(dir.join("wall.smasset")).unwrap())
            .unwrap();
    assert!(
        file.provenance
            .contains("input repaired: 186 duplicate triangle(s) removed"),
        "{}",
        file.provenance
    );
    assert!(
        file.provenance
            .contains("surface replaced by its convex hull")
    );
}

fn inspect(asset: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("inspect")
        .arg(asset)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn no_bonds_asset_inspects_with_loose_chunk_warnings_and_a_normal_one_with_none() {
    let dir = std::env::temp_dir().join(format!("smithereens-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args = ["--chunks", "8", "--seed", "3"];
    let normal = run(&args, "Box.gltf", &dir, "normal");
    assert!(normal.status.success());
    let printed = String::from_utf8_lossy(&normal.stdout);
    assert!(printed.contains("slivers: 0 merged"), "{printed}");
    assert!(printed.contains("Warnings: none"), "{printed}");
    let text = inspect(&dir.join("normal.smasset"));
    assert!(text.contains("Warnings: none"), "{text}");
    for row in [
        "bond area min/median/max",
        "bond strength min/median/max",
        "world bonds",
        "connected components",
        "provenance:",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    // The provenance is wrapped below the table, which stays narrow.
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "{widest} columns:\n{text}");

    let loose = run(
        &["--chunks", "8", "--seed", "3", "--no-bonds"],
        "Box.gltf",
        &dir,
        "loose",
    );
    assert!(
        loose.status.success(),
        "{}",
        String::from_utf8_lossy(&loose.stderr)
    );
    let file =
        smithereens_core::AssetFile::from_bytes(&std::fs::read(dir.join("loose.smasset")).unwrap())
            .unwrap();
    assert!(file.desc.bonds.is_empty());
    let non_supports = file.desc.chunks.iter().filter(|c| !c.support).count();
    assert!(non_supports > 0);
    let text = inspect(&dir.join("loose.smasset"));
    assert!(!text.contains("Warnings: none"), "{text}");
    assert!(
        text.contains(&format!(
            "{non_supports} of 8 chunks have no bonds and are not supports"
        )),
        "{text}"
    );
    assert!(text.contains("; fractured with bonds off)"), "{text}");
    assert!(
        text.contains("the bond graph has 8 connected components"),
        "{text}"
    );
}

#[test]
fn a_thin_corner_rod_is_reported_as_a_merged_sliver_by_fracture_and_inspect() {
    let dir = std::env::temp_dir().join(format!("smithereens-sliver-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Box.gltf spans [-0.5, 0.5]³: a 1 mm × 2 mm rod along Y in the +X +Z corner.
    let out = run(
        &[
            "--pattern",
            "planar",
            "--plane",
            "0.499,0,0,1,0,0",
            "--plane",
            "0,0,0.498,0,0,1",
        ],
        "Box.gltf",
        &dir,
        "rod",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("slivers: 1 merged into a neighbour, 0 dropped"),
        "{printed}"
    );
    assert!(printed.contains("thin (moment ratio"), "{printed}");
    assert!(printed.contains("-> merged into chunk"), "{printed}");
    let text = inspect(&dir.join("rod.smasset"));
    assert!(
        text.contains("fracture merged 1 sliver(s) into a neighbour and dropped 0"),
        "{text}"
    );
}

#[test]
fn noise_flags_make_rough_cuts_and_bad_values_are_rejected() {
    let dir = std::env::temp_dir().join(format!("smithereens-noise-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(
        &[
            "--pattern",
            "slice",
            "--slices",
            "2,2,1",
            "--noise-amplitude",
            "0.02",
            "--noise-frequency",
            "3",
            "--noise-octaves",
            "2",
            "--noise-resolution",
            "8",
        ],
        "Box.gltf",
        &dir,
        "rough",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(dir.join("rough.smasset")).unwrap();
    let file = smithereens_core::AssetFile::from_bytes(&bytes).unwrap();
    assert!(
        file.provenance
            .contains("cut noise: amplitude=0.02 m frequency=3.0 1/m octaves=2 resolution=8, 4 interfaces rough"),
        "{}",
        file.provenance
    );
    let bad = run(
        &["--noise-amplitude", "0.02", "--noise-octaves", "0"],
        "Box.gltf",
        &dir,
        "bad",
    );
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("cut noise octaves is 0"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn outputs_that_would_overwrite_an_input_or_each_other_are_refused_before_any_work() {
    let exe = env!("CARGO_BIN_EXE_smithereens");
    let dir = std::env::temp_dir().join(format!("smithereens-clash-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("box.gltf");
    std::fs::copy(mesh("Box.gltf"), &input).unwrap();
    let original = std::fs::read(&input).unwrap();
    let fracture = |args: &[&std::ffi::OsStr]| {
        Command::new(exe)
            .arg("fracture")
            .arg(&input)
            .args(args)
            .output()
            .unwrap()
    };
    // -o onto the input, named another way.
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let out = fracture(&["-o".as_ref(), sub.join("../box.gltf").as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("the input mesh and the asset output"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --gltf onto the asset.
    let asset = dir.join("a.smasset");
    let out = fracture(&[
        "-o".as_ref(),
        asset.as_os_str(),
        "--gltf".as_ref(),
        asset.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // --gltf into a missing folder: refused up front, so no asset either.
    let out = fracture(&[
        "-o".as_ref(),
        asset.as_os_str(),
        "--gltf".as_ref(),
        dir.join("missing/x.glb").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    assert!(
        !asset.exists(),
        "nothing is written when an output is refused"
    );
    // An output "folder" that is a file: refused up front, and said so.
    let out = fracture(&[
        "-o".as_ref(),
        asset.as_os_str(),
        "--gltf".as_ref(),
        input.join("x.glb").as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a file, not a folder"), "{stderr}");
    assert!(!asset.exists());
    // Zero chunks or refinement chunks: refused by the command line, naming
    // the flag (the library's own field name is `chunk_count`).
    for flags in [&["--chunks", "0"][..], &["--refine", "0"]] {
        let mut args: Vec<&std::ffi::OsStr> = vec!["-o".as_ref(), asset.as_os_str()];
        args.extend(flags.iter().map(std::ffi::OsStr::new));
        let out = fracture(&args);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(flags[0]) && stderr.contains("0 is not in 1.."),
            "{stderr}"
        );
        assert!(!asset.exists());
    }
    assert_eq!(std::fs::read(&input).unwrap(), original, "input untouched");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn inspect_warns_about_bonds_that_break_at_the_lightest_touch() {
    // Spot in 32 cells (seed 1) has three interfaces of well under a mm²
    // where a cut grazed a corner: health ~1e-4 du against a median of 29.
    let dir = std::env::temp_dir().join(format!("smithereens-weak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = run(&[], "spot.obj", &dir, "spot");
    assert!(out.status.success());
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains("very weak bond(s) (strength < 0.001 × median"),
        "{printed}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_site_file_gives_one_chunk_per_site_and_warns_about_merged_and_outside_sites() {
    let dir = std::env::temp_dir().join(format!("smithereens-sites-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Box.gltf spans [-0.5, 0.5]³. Four sites in a symmetric square, one
    // repeated (merged), one far outside (kept, its cell is empty).
    let sites = dir.join("sites.txt");
    std::fs::write(
        &sites,
        "# x y z\n0.25 0 0.25\n-0.25,0,0.25\n\n-0.25 0 -0.25\n0.25\t0\t-0.25\n0.25 0 0.25\n9 9 9\n",
    )
    .unwrap();
    let out = run(
        &["--site-file", sites.to_str().unwrap()],
        "Box.gltf",
        &dir,
        "sites",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: 1 Voronoi site(s) merged"),
        "{stderr}"
    );
    assert!(
        stderr.contains("warning: 1 Voronoi site(s) lie outside"),
        "{stderr}"
    );
    assert!(
        stdout.contains("chunks: 4") || stdout.contains("4 chunks"),
        "{stdout}"
    );

    // A NaN site and a malformed line are errors; nothing is written.
    std::fs::write(&sites, "0 0 0\nnan 0 0\n").unwrap();
    let out = run(
        &["--site-file", sites.to_str().unwrap()],
        "Box.gltf",
        &dir,
        "nan",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("site 1 is not finite"), "{stderr}");
    assert!(!dir.join("nan.smasset").exists());
    std::fs::write(&sites, "0 0 0\n1 2\n").unwrap();
    let out = run(
        &["--site-file", sites.to_str().unwrap()],
        "Box.gltf",
        &dir,
        "short",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2"), "{stderr}");
    std::fs::write(&sites, "# nothing\n").unwrap();
    let out = run(
        &["--site-file", sites.to_str().unwrap()],
        "Box.gltf",
        &dir,
        "empty",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("site list is empty"));
}

#[test]
fn hull_flags_set_the_decomposition_and_inspect_reports_hulls_per_chunk() {
    let dir = std::env::temp_dir().join(format!("smithereens-hulls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // bob_tri.obj is a torus: a few of 12 cells keep a bent piece.
    let out = run(&["--chunks", "12"], "bob_tri.obj", &dir, "on");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("hulls (chunks with several)"), "{stdout}");
    assert!(
        stdout.contains("hull/volume ratio min/median/max"),
        "{stdout}"
    );
    let out = run(
        &["--chunks", "12", "--single-hull"],
        "bob_tri.obj",
        &dir,
        "off",
    );
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("| hulls per chunk min/median/max   |") && stdout.contains("1 / 1 / 1 |"),
        "{stdout}"
    );
    for bad in [
        ["--hull-threshold", "0"],
        ["--hull-threshold", "-1"],
        ["--max-hulls", "1"],
    ] {
        let out = run(&bad, "bob_tri.obj", &dir, "bad");
        assert!(!out.status.success(), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("hull decomposition"), "{bad:?}: {stderr}");
        assert!(!dir.join("bad.smasset").exists());
    }
}

/// The short-edge count of `fracture`'s table ("triangles with a short
/// edge": N (…)), parsed.
fn short_edge_count(stdout: &str) -> usize {
    let line = stdout
        .lines()
        .find(|l| l.contains("triangles with a short edge"))
        .unwrap_or_else(|| panic!("no short-edge row in {stdout}"));
    let value = line.split('|').nth(2).unwrap_or_default().trim();
    value
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line}"))
}

/// The standard output of a run that must have succeeded.
fn stdout_of_success(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn short_edges_are_collapsed_by_default_and_no_collapse_short_edges_keeps_them() {
    let dir = std::env::temp_dir().join(format!("smithereens-short-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let off = stdout_of_success(run(
        &["--chunks", "100", "--no-collapse-short-edges"],
        "spot.obj",
        &dir,
        "off",
    ));
    let on = stdout_of_success(run(&["--chunks", "100"], "spot.obj", &dir, "on"));
    // Spot at 100 sites: the must-hold is met there with the collapse on.
    assert!(short_edge_count(&off) > 100, "{off}");
    assert_eq!(short_edge_count(&on), 0, "{on}");
    assert!(on.contains("collapse_short_edges"), "{on}");
    assert!(!off.contains("collapse_short_edges"), "{off}");
    // The old flag still parses (it is the default), but not with its opposite.
    let again = stdout_of_success(run(
        &["--chunks", "100", "--collapse-short-edges"],
        "spot.obj",
        &dir,
        "again",
    ));
    assert!(again.contains("collapse_short_edges"), "{again}");
    assert_eq!(short_edge_count(&again), 0, "{again}");
    let both = run(
        &[
            "--chunks",
            "100",
            "--collapse-short-edges",
            "--no-collapse-short-edges",
        ],
        "spot.obj",
        &dir,
        "both",
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(!dir.join("both.smasset").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shared_regions_are_the_default_and_no_shared_regions_carves_from_the_whole_mesh() {
    let dir = std::env::temp_dir().join(format!("smithereens-regions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shared = run(&["--chunks", "40"], "spot.obj", &dir, "shared");
    let whole = run(
        &["--chunks", "40", "--no-shared-regions"],
        "spot.obj",
        &dir,
        "whole",
    );
    for out in [&shared, &whole] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The provenance (printed, and kept in the asset) names the carving.
    let (shared, whole) = (
        String::from_utf8_lossy(&shared.stdout).to_string(),
        String::from_utf8_lossy(&whole.stdout).to_string(),
    );
    assert!(shared.contains("shared_regions"), "{shared}");
    assert!(!whole.contains("shared_regions"), "{whole}");
    // The old flag still parses (it is the default), but not with its opposite.
    let both = run(
        &["--chunks", "40", "--shared-regions", "--no-shared-regions"],
        "spot.obj",
        &dir,
        "both",
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(!dir.join("both.smasset").exists());
    std::fs::remove_dir_all(&dir).ok();
}
