//! One hit on a 43-bone character: candidate selection + rule evaluation +
//! slot selection + detach planning (issue 15 benchmark; targets ≤ 5 µs per
//! hit, ≤ 5 ms for 1,000 characters each taking a hit in one frame).
//!
//! Run with `cargo bench -p smithereens-dismember`.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use smithereens_dismember::glam::{Affine3A, Vec3};
use smithereens_dismember::*;
use std::hint::black_box;

struct Fixture {
    model: BodyModel,
    rules: RuleSet,
    pose: Vec<Affine3A>,
    hit: Hit,
    ctx: RuleContext,
}

fn fixture() -> Fixture {
    let model = BodyModel::from_toml_str(HUMANOID_TOML).unwrap();
    let rules = RuleSet::from_toml_str(&model, BITER_RULES_TOML).unwrap();
    let pose = model.bind_pose();
    let fa = model.bone_index("l_forearm").unwrap();
    let point = pose[fa.get() as usize].transform_point3(Vec3::new(0.245, 0.0, 0.0));
    Fixture {
        hit: Hit {
            bone: fa,
            point,
            attack_plane_normal: Vec3::Y,
        },
        ctx: RuleContext {
            health_percent: 60.0,
            preset: DamagePreset {
                limb_cut_probability: 1.0,
                ..DamagePreset::default()
            },
            reaction: ReactionFlags::EMPTY,
            victim_states: VictimStates::EMPTY,
        },
        model,
        rules,
        pose,
    }
}

/// The full per-hit path; returns the planned gib's bone count.
fn one_hit(f: &Fixture, state: &BodyState, event: u64, scratch: &mut Vec<Candidate>) -> usize {
    select_candidates(&f.model, state.present_mask(), &f.pose, &f.hit, scratch).unwrap();
    let mut rng = DecisionRng::new(state.victim().id, EventId(event));
    let d = decide(&f.model, &f.rules, state, scratch, &f.ctx, &mut rng).unwrap();
    let Some(op) = d.operation else { return 0 };
    let candidate = SlotCandidate {
        id: op.operation.recipe.get(),
        mask: bone_bit(op.bone),
        relation_mask: 0,
        link_mask: 0,
    };
    black_box(state.slots().find_candidate_slot(&candidate));
    let request = DetachRequest {
        victim: state.victim(),
        event: EventId(event),
        root: op.bone,
        recipe: op.operation.recipe,
    };
    let input = DetachInput {
        body_to_world: Affine3A::IDENTITY,
        gib_to_world: Affine3A::IDENTITY,
        pose: &f.pose,
        motion: Motion::Physics {
            linear: Vec3::ZERO,
            angular: Vec3::ZERO,
            center: Vec3::ZERO,
        },
        impact_direction: Vec3::X,
        impact_speed: 4.0,
        impulse: GibImpulse::default(),
    };
    match plan_detach(&f.model, state, &request, &input).unwrap() {
        PlanOutcome::Planned(p) => p.bones.len(),
        _ => 0,
    }
}

fn hit(c: &mut Criterion) {
    let f = fixture();
    let mut g = c.benchmark_group("dismember");
    for n in [1usize, 1_000] {
        let states: Vec<BodyState> = (0..n as u64)
            .map(|i| {
                BodyState::new(
                    &f.model,
                    VictimHandle {
                        id: VictimId(i),
                        generation: 0,
                    },
                )
            })
            .collect();
        let mut scratch = Vec::new();
        assert_eq!(one_hit(&f, &states[0], 1, &mut scratch), 11);
        g.bench_with_input(BenchmarkId::new("hit_43_bones", n), &n, |b, _| {
            b.iter(|| {
                let mut total = 0;
                for (i, s) in states.iter().enumerate() {
                    total += one_hit(&f, s, i as u64, &mut scratch);
                }
                black_box(total)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, hit);
criterion_main!(benches);
