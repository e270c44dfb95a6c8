//! Property tests of DESIGN §9: island partition, damage budget, support rule,
//! order-independent cluster mass properties.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use proptest::prelude::*;
use smithereens_core::damage::{DamageCandidate, apply_falloff, apply_radial, falloff};
use smithereens_core::fixtures::cube_chunk;
use smithereens_core::glam::{Mat3, Quat, Vec3};
use smithereens_core::island::find_islands;
use smithereens_core::mass::{MassPart, combine, rotate_inertia};
use smithereens_core::*;

fn arb_asset() -> impl Strategy<Value = (AssetDesc, Vec<f32>)> {
    (1u32..40)
        .prop_flat_map(|n| {
            let bonds = prop::collection::vec(
                (
                    0..n,
                    0..n,
                    prop::bool::weighted(0.3),
                    prop::bool::weighted(0.1),
                ),
                0..(3 * n as usize),
            );
            let supports = prop::collection::vec(prop::bool::weighted(0.15), n as usize);
            (Just(n), bonds, supports)
        })
        .prop_map(|(n, bonds, supports)| {
            let mut desc = AssetDesc {
                chunks: (0..n)
                    .map(|k| {
                        cube_chunk(
                            Vec3::new(k as f32, 0.0, 0.0),
                            1.0,
                            1.0,
                            supports[k as usize],
                        )
                    })
                    .collect(),
                bonds: vec![],
                support_depth: None,
            };
            let mut health = vec![];
            for (a, b, broken, world) in bonds {
                if a == b && !world {
                    continue;
                }
                desc.bonds.push(BondDesc {
                    chunk0: a,
                    chunk1: if world {
                        BondEnd::World
                    } else {
                        BondEnd::Chunk(b)
                    },
                    // A pair may repeat (a multigraph), but each bond is its
                    // own face: duplicates of one face are invalid assets.
                    centroid: Vec3::new(0.0, 0.0, health.len() as f32 * 0.01),
                    normal: Vec3::Y,
                    area: 1.0,
                    strength: 1.0,
                });
                health.push(if broken { 0.0 } else { 1.0 });
            }
            (desc, health)
        })
}

fn union_find_reference(desc: &AssetDesc, health: &[f32]) -> Vec<(Vec<u32>, bool)> {
    let n = desc.chunks.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        let mut y = x;
        while p[y] != r {
            let next = p[y];
            p[y] = r;
            y = next;
        }
        r
    }
    for (b, bond) in desc.bonds.iter().enumerate() {
        if let (BondEnd::Chunk(c1), true) = (bond.chunk1, health[b] > 0.0) {
            let (ra, rb) = (
                find(&mut parent, bond.chunk0 as usize),
                find(&mut parent, c1 as usize),
            );
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: std::collections::BTreeMap<usize, (Vec<u32>, bool)> = Default::default();
    for v in 0..n {
        let r = find(&mut parent, v);
        let e = groups.entry(r).or_default();
        e.0.push(v as u32);
        e.1 |= desc.chunks[v].support;
    }
    for (b, bond) in desc.bonds.iter().enumerate() {
        if bond.chunk1 == BondEnd::World && health[b] > 0.0 {
            let r = find(&mut parent, bond.chunk0 as usize);
            groups.get_mut(&r).unwrap().1 = true;
        }
    }
    let mut out: Vec<_> = groups.into_values().collect();
    out.sort();
    out
}

proptest! {
    #[test]
    fn islands_partition_every_node_once_and_match_union_find((desc, health) in arb_asset()) {
        let asset = Asset::new(&desc).unwrap();
        let islands = find_islands(&asset, &health);
        let mut seen = vec![0u32; desc.chunks.len()];
        for i in &islands {
            for n in &i.nodes { seen[n.get() as usize] += 1; }
        }
        prop_assert!(seen.iter().all(|&c| c == 1));
        let mut ours: Vec<(Vec<u32>, bool)> = islands.iter().map(|i| (i.nodes.iter().map(|n| n.get()).collect(), i.supported)).collect();
        ours.sort();
        // Supported ⇔ the component meets the support set (or an intact world bond).
        prop_assert_eq!(ours, union_find_reference(&desc, &health));
    }

    #[test]
    fn radial_damage_never_removes_more_than_its_budget(
        healths in prop::collection::vec(0.0f32..20.0, 1..30),
        dists in prop::collection::vec(0.0f32..3.0, 30),
        radius in 0.01f32..3.0,
        damage in 0.0f32..100.0,
    ) {
        let cands: Vec<DamageCandidate> = (0..healths.len()).map(|i| DamageCandidate { bond: BondIndex(i as u32), distance: dists[i] }).collect();
        let mut h = healths.clone();
        let mut broken = vec![];
        let removed = apply_radial(&mut h, &cands, radius, damage, &mut broken);
        let actual: f32 = healths.iter().zip(&h).map(|(a, b)| a - b).sum();
        prop_assert!(removed <= damage * (1.0 + 1e-5) + 1e-5, "removed {} > budget {}", removed, damage);
        prop_assert!((actual - removed).abs() <= 1e-3 * (1.0 + damage));
        prop_assert!(h.iter().all(|&x| x >= 0.0));
        prop_assert!(broken.iter().all(|b| h[b.get() as usize] == 0.0 && healths[b.get() as usize] > 0.0));
    }

    #[test]
    fn falloff_is_in_unit_range_non_increasing_one_inside_and_zero_beyond(
        inner in 0.0f32..5.0,
        width in 0.0f32..5.0,
        d0 in 0.0f32..12.0,
        step in 0.0f32..3.0,
    ) {
        let outer = (inner + width).max(1e-3);
        let inner = inner.min(outer);
        let (a, b) = (falloff(d0, inner, outer), falloff(d0 + step, inner, outer));
        prop_assert!((0.0..=1.0).contains(&a));
        prop_assert!(b <= a, "f({}) = {} < f({}) = {}", d0, a, d0 + step, b);
        if d0 <= inner { prop_assert_eq!(a, 1.0); }
        if d0 >= outer { prop_assert_eq!(a, 0.0); }
    }

    #[test]
    fn falloff_damage_to_a_bond_does_not_depend_on_the_other_bonds(
        healths in prop::collection::vec(0.0f32..400.0, 1..40),
        dists in prop::collection::vec(0.0f32..3.0, 40),
        keep in prop::collection::vec(any::<bool>(), 40),
        inner in 0.0f32..1.5,
        damage in 0.0f32..500.0,
    ) {
        let outer = inner + 1.0;
        let cands: Vec<DamageCandidate> = (0..healths.len()).map(|i| DamageCandidate { bond: BondIndex(i as u32), distance: dists[i] }).collect();
        let mut all = healths.clone();
        let mut broken = vec![];
        apply_falloff(&mut all, &cands, inner, outer, damage, &mut broken);
        // The same event over any subset of the candidates: identical bits for the bonds kept.
        let subset: Vec<DamageCandidate> = cands.iter().copied().filter(|c| keep[c.bond.get() as usize]).collect();
        let mut part = healths.clone();
        let mut broken_part = vec![];
        apply_falloff(&mut part, &subset, inner, outer, damage, &mut broken_part);
        for c in &subset {
            let i = c.bond.get() as usize;
            prop_assert_eq!(all[i].to_bits(), part[i].to_bits());
            let expected = (healths[i] - damage * falloff(c.distance, inner, outer)).max(0.0);
            prop_assert_eq!(all[i].to_bits(), expected.to_bits());
        }
        prop_assert!(broken.iter().all(|b| all[b.get() as usize] == 0.0 && healths[b.get() as usize] > 0.0));
    }

    #[test]
    fn merged_mass_properties_do_not_depend_on_split_order(
        parts in prop::collection::vec((0.1f32..10.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, 0.1f32..2.0, 0.1f32..2.0, 0.1f32..2.0, -3.0f32..3.0), 2..12),
        cut in 1usize..11,
    ) {
        let parts: Vec<MassPart> = parts.iter().map(|&(m, x, y, z, a, b, c, ang)| MassPart {
            mass: m, center: Vec3::new(x, y, z),
            inertia: rotate_inertia(Mat3::from_diagonal(Vec3::new(a + b, b + c, a + c)), Quat::from_rotation_y(ang)),
            rotation: Quat::IDENTITY,
        }).collect();
        let cut = cut.min(parts.len() - 1);
        let whole = combine(&parts).unwrap();
        let as_part = |mp: smithereens_core::mass::MassProperties| MassPart { mass: mp.mass, center: mp.center, inertia: mp.inertia, rotation: Quat::IDENTITY };
        let left = combine(&parts[..cut]).unwrap();
        let right = combine(&parts[cut..]).unwrap();
        let merged = combine(&[as_part(left), as_part(right)]).unwrap();
        let mut reversed = parts.clone();
        reversed.reverse();
        let rev = combine(&reversed).unwrap();
        let scale = whole.inertia.to_cols_array().iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for other in [merged, rev] {
            prop_assert!((other.mass - whole.mass).abs() <= 1e-4 * whole.mass);
            prop_assert!((other.center - whole.center).length() <= 1e-4 * (1.0 + whole.center.length()));
            prop_assert!(other.inertia.abs_diff_eq(whole.inertia, 2e-4 * scale));
        }
    }

    #[test]
    fn any_order_of_breaking_bonds_ends_in_the_same_clusters(order in Just((0u32..12).collect::<Vec<_>>()).prop_shuffle()) {
        // 4×3×1 grid, all 17 bonds; break the first 12 bond indices in a random order, one commit each.
        let desc = smithereens_core::fixtures::grid_desc(4, 3, 1, 1.0, 1.0, 1.0);
        let asset = std::sync::Arc::new(Asset::new(&desc).unwrap());
        let run = |order: &[u32]| {
            let mut inst = Instance::new(asset.clone(), Pose::IDENTITY).unwrap();
            for (k, &b) in order.iter().enumerate() {
                let p = asset.bonds()[BondIndex(b)].centroid;
                inst.admit(RadialDamage { id: EventId(k as u64), point: p, radius: 0.01, damage: 10.0, impulse: None }).unwrap();
                inst.commit(&mut HeadlessBackend::default()).unwrap();
            }
            // (nodes, supported, rounded mass and centre, rounded inertia)
            #[allow(clippy::type_complexity)]
            let mut out: Vec<(Vec<ChunkIndex>, bool, [u32; 4], [u32; 9])> = inst.clusters().map(|(_, c)| {
                let m = c.mass;
                let round = |v: f32| (v * 1e4).round() as i64 as u32;
                (c.nodes.to_vec(), c.supported, [round(m.mass), round(m.center.x), round(m.center.y), round(m.center.z)], m.inertia.to_cols_array().map(round))
            }).collect();
            out.sort();
            out
        };
        let sorted: Vec<u32> = (0..12).collect();
        prop_assert_eq!(run(&order), run(&sorted));
    }
}
