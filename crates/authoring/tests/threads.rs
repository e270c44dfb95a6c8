//! Issue 17, item 1: cells are carved and sites tested in parallel, but the
//! asset does not depend on the number of threads.

#![allow(clippy::unwrap_used)]

mod common;

use common::asset;
use smithereens_authoring::{
    FractureSettings, Pattern, SiteDistribution, fracture, fracture_voronoi, load_mesh,
};

fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn one_thread_and_several_threads_write_byte_identical_assets() {
    // With the collapse on, sites are put in general position first (Spot
    // at 300 sites, seed 5, takes steps), in parallel as well; Spot at 300
    // sites, seed 11, re-carves one failing cell and its neighbours.
    for (name, sites, collapse, seed) in [
        ("spot.obj", 300u32, false, 5),
        ("bob_tri.obj", 120, false, 5),
        ("spot.obj", 300, true, 5),
        ("spot.obj", 300, true, 11),
    ] {
        let mesh = load_mesh(&asset(name)).unwrap();
        let settings = FractureSettings {
            chunk_count: sites,
            seed,
            collapse_short_edges: collapse,
            ..Default::default()
        };
        let run = || {
            fracture_voronoi(&mesh, &settings, &mut |_| {})
                .unwrap()
                .to_bytes()
        };
        let one = with_threads(1, run);
        for threads in [2, 3, 8] {
            assert!(
                with_threads(threads, run) == one,
                "{name}: {threads} threads changed the asset"
            );
        }
        if collapse {
            let (_, report) = smithereens_authoring::fracture_with_report(
                &mesh,
                &settings,
                &Pattern::Voronoi {
                    sites: SiteDistribution::Uniform,
                },
                &mut |_| {},
            )
            .unwrap();
            assert!(report.site_steps > 0, "{report:?}");
            assert_eq!(report.recarves, u32::from(seed == 11), "{report:?}");
        }
    }
}

#[test]
fn progress_is_reported_in_site_order_on_the_callers_thread() {
    let mesh = load_mesh(&asset("spot.obj")).unwrap();
    let settings = FractureSettings {
        chunk_count: 150,
        ..Default::default()
    };
    let mut seen = Vec::new();
    let pattern = Pattern::Voronoi {
        sites: SiteDistribution::Uniform,
    };
    with_threads(4, || {
        let caller = std::thread::current().id();
        fracture(&mesh, &settings, &pattern, &mut |p| {
            assert_eq!(std::thread::current().id(), caller);
            seen.push(p.done);
        })
        .unwrap()
    });
    assert_eq!(seen, (1..=150).collect::<Vec<u32>>());
}
