//! Profiling aid for the grid commit cases of `benches/grid.rs`: repeats one
//! case's admit + headless commit on fresh clones and prints the median.
//! `cargo run --release -p smithereens-core --example grid_profile -- split_all 32 20`
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::sync::Arc;
use std::time::Instant;

fn grid_asset(n: u32) -> Arc<Asset> {
    Arc::new(Asset::new(&fixtures::blast_grid_desc(n)).unwrap())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map_or("split_all", String::as_str);
    let n: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(32);
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let nf = n as f32;
    let (point, radius) = match case {
        "radial" => (
            Vec3::splat(nf * 0.5),
            nf * (0.3 / (4.0 * std::f32::consts::PI)).cbrt(),
        ),
        "split_all" => (Vec3::splat(nf * 0.5), nf * 2.0),
        "chip_origin" => (Vec3::splat(0.5), 1.6),
        _ => (Vec3::splat(nf - 0.5), 1.6),
    };
    let event = RadialDamage {
        id: EventId(1),
        point,
        radius,
        damage: 1.0e12,
        impulse: None,
    };
    let base = Instance::new(grid_asset(n), Pose::IDENTITY).unwrap();
    let mut times = Vec::new();
    let mut keep = Vec::new();
    for _ in 0..reps {
        let mut inst = base.clone();
        let t = Instant::now();
        inst.admit(event).unwrap();
        let ta = t.elapsed().as_secs_f64() * 1e6;
        let plan = inst.plan::<()>().unwrap();
        let tp = t.elapsed().as_secs_f64() * 1e6;
        std::hint::black_box(plan);
        let t2 = Instant::now();
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        times.push((ta, tp - ta, t2.elapsed().as_secs_f64() * 1e6));
        keep.push((inst, out));
        if keep.len() > 2 {
            keep.remove(0);
        }
    }
    let med = |f: fn(&(f64, f64, f64)) -> f64| {
        let mut v: Vec<f64> = times.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        (v[reps / 2], v[0])
    };
    let (a, p, c) = (med(|t| t.0), med(|t| t.1), med(|t| t.2));
    println!(
        "{case} N={n}: admit {:.1} us, plan {:.1} us, commit (plan+record+install) {:.1} us (min {:.1}); admit+commit {:.1} us",
        a.0,
        p.0,
        c.0,
        c.1,
        a.0 + c.0
    );
}
