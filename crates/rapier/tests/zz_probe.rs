#![allow(clippy::unwrap_used)]
use glam::Vec3;
use rapier3d::prelude::*;
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::{Asset, AssetDesc, Pose};
use smithereens_rapier::{DestructionWorld, WorldSettings};
use std::sync::Arc;

fn trace(drop: f32, timestep: f32, iterations: u32, verbose: bool) {
    let desc = AssetDesc { chunks: vec![cube_chunk(Vec3::new(0.0, 0.5, 0.0), 1.0, 2000.0, true)], bonds: vec![], support_depth: None };
    let settings = WorldSettings { timestep, solver_iterations: iterations, ground_y: None, ..Default::default() };
    let mut world = DestructionWorld::new(Arc::new(Asset::new(&desc).unwrap()), Pose::IDENTITY, settings).unwrap();
    let physics = world.physics_mut();
    let rb = physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(0.0, 1.0 + 0.1 + drop, 0.0)));
    let ch = physics.insert_collider(ColliderBuilder::cuboid(0.1, 0.1, 0.1).mass(10.0), Some(rb));
    let newton = 10.0 * 1.05 * (2.0 * 9.81 * drop).sqrt() - 20.0;
    if verbose { println!("== drop {drop} dt {timestep} it {iterations}  v_impact {:.4}  newton {newton:.3}", (2.0*9.81*drop).sqrt()); }
    let mut first_gap = None;
    let mut total = 0.0;
    for s in 0..(1.5 / timestep) as usize {
        let (y0, v0) = { let b = world.physics_mut().bodies.get(rb).unwrap(); (b.translation().y, b.linvel().y) };
        let r = world.step().unwrap();
        let d: f32 = r.events.iter().map(|e| e.damage()).sum();
        total += d;
        let p = world.physics_mut();
        let b = p.bodies.get(rb).unwrap();
        let (y1, v1) = (b.translation().y, b.linvel().y);
        let ccd = b.is_ccd_enabled(); let ccd_active = b.is_ccd_active();
        let mut info = String::new();
        for pair in p.narrow_phase.contact_pairs_with(ch) {
            for m in pair.manifolds() {
                info += &format!(" m[n={:?} sc={} pts:", m.data.normal, m.data.solver_contacts.len());
                for pt in &m.points { info += &format!(" (d {:.4} j {:.3})", pt.dist, pt.data.impulse); }
                for sc in &m.data.solver_contacts { info += &format!(" sc.dist {:.4}", sc.dist); }
                info += "]";
            }
        }
        if first_gap.is_none() && !info.is_empty() { first_gap = Some((y0-1.1, v0)); }
        if verbose && (y0 - 1.1) < 0.2 && s < (1.5/timestep) as usize && (v0 < -0.05 || v1 < -0.05 || d > 0.0) {
            println!("step {s}: y {:.5}->{:.5} gap {:.5}->{:.5} v {:.4}->{:.4} dmg {d:.3} ccd {ccd} {ccd_active}{info}", y0, y1, y0-1.1, y1-1.1, v0, v1);
        }
    }
    println!("drop {drop:.3} total {total:.3} newton {newton:.3} rel {:+.2}% first-manifold-step start gap,v {:?}", (total-newton)/newton*100.0, first_gap);
}

#[test]
fn probe() {
    let only: Option<f32> = std::env::var("DROP").ok().map(|s| s.parse().unwrap());
    let it: u32 = std::env::var("IT").ok().map_or(4, |s| s.parse().unwrap());
    let dt: f32 = 1.0 / std::env::var("HZ").ok().map_or(60.0, |s| s.parse::<f32>().unwrap());
    if let Some(d) = only { trace(d, dt, it, true); return; }
    for k in 0..=50 { trace(0.40 + 0.004 * k as f32, dt, it, false); }
}
