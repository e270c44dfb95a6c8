//! Arbitrary bytes and strings into every parser and restore entry point:
//! a value or a typed error, never a panic, and nothing changes on error.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use proptest::prelude::*;
use smithereens_dismember::*;

fn victim() -> VictimHandle {
    VictimHandle {
        id: VictimId(11),
        generation: 0,
    }
}

/// Strings near the real formats: TOML-ish fragments mixed with the
/// humanoid's own keys and hostile numbers.
fn tomlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[[bones]]\n".to_string()),
        Just("[[regions]]\n".to_string()),
        Just("[[rules]]\n".to_string()),
        Just("[[modifiers]]\n".to_string()),
        Just("name = \"a\"\n".to_string()),
        Just("name = \"\"\n".to_string()),
        Just("region = \"ArmLeft\"\n".to_string()),
        Just("parent = \"a\"\n".to_string()),
        Just("damage_parents = [\"a\", \"a\"]\n".to_string()),
        Just("offset = [nan, inf, -inf]\n".to_string()),
        Just("offset = [3e38, 3e38, 3e38]\n".to_string()),
        Just("operation = \"Cut\"\n".to_string()),
        Just("max_health_percent = 1e39\n".to_string()),
        Just("probability_mul = -0.0\n".to_string()),
        Just("add = 1e-45\n".to_string()),
        Just("priority = 2147483648\n".to_string()),
        "[ -~]{0,24}\n",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|v| v.concat())
}

fn mutate(base: &[u8], edits: &[(usize, u8)], cut: usize) -> Vec<u8> {
    let mut b = base.to_vec();
    if !b.is_empty() {
        for &(i, x) in edits {
            let n = b.len();
            b[i % n] ^= x;
        }
    }
    b.truncate(cut.min(b.len()));
    b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn body_model_text_never_panics(text in prop_oneof![tomlish(), any::<String>()]) {
        let _ = BodyModel::from_toml_str(&text);
    }

    #[test]
    fn mutated_humanoid_text_never_panics(edits in prop::collection::vec((any::<usize>(), 1u8..0x7f), 1..8)) {
        let mut bytes = HUMANOID_TOML.as_bytes().to_vec();
        for (i, x) in edits {
            let n = bytes.len();
            bytes[i % n] = x;
        }
        if let Ok(text) = std::str::from_utf8(&bytes)
            && let Ok(m) = BodyModel::from_toml_str(text)
        {
            prop_assert!(m.bind_pose().iter().all(|p| p.is_finite()));
        }
    }

    #[test]
    fn rule_text_never_panics(text in prop_oneof![tomlish(), any::<String>()]) {
        let m = humanoid();
        let _ = RuleSet::from_toml_str(&m, &text);
    }

    #[test]
    fn snapshot_bytes_never_panic_and_never_change_the_state(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        edits in prop::collection::vec((any::<usize>(), 1u8..=255), 0..6),
        cut in any::<usize>(),
    ) {
        let m = humanoid();
        let _ = restore_snapshot_bytes(&m, &bytes);
        // Near-valid: a real snapshot with flipped bytes and truncation.
        let mut s = BodyState::new(&m, victim());
        s.record_hit(&m, bone(&m, "head"), glam::Vec3::ZERO, glam::Vec3::X, 1.0)
            .unwrap();
        let good = snapshot_to_bytes(&s);
        let corrupt = mutate(&good, &edits, cut);
        if let Ok(mut restored) = restore_snapshot_bytes(&m, &corrupt) {
            // Whatever decodes and validates is a usable state: hash it,
            // plan and commit a cut on it, apply an event to it.
            let _ = state_hash(&restored);
            let _ = CapabilityMap::humanoid(&m).unwrap().evaluate(&restored);
            let pose = m.bind_pose();
            let fa = bone(&m, "l_forearm");
            let request = DetachRequest {
                victim: restored.victim(),
                event: EventId(77),
                root: fa,
                recipe: m.bones()[fa.get() as usize].cut.unwrap().recipe,
            };
            let input = DetachInput {
                body_to_world: glam::Affine3A::IDENTITY,
                gib_to_world: glam::Affine3A::IDENTITY,
                pose: &pose,
                motion: Motion::Physics {
                    linear: glam::Vec3::ZERO,
                    angular: glam::Vec3::ZERO,
                    center: glam::Vec3::ZERO,
                },
                impact_direction: glam::Vec3::X,
                impact_speed: 1.0,
                impulse: GibImpulse::default(),
            };
            if let Ok(PlanOutcome::Planned(plan)) = plan_detach(&m, &restored, &request, &input) {
                commit_detach(&m, &mut restored, &plan).unwrap();
            }
            let mut cands = Vec::new();
            let hit = Hit {
                bone: bone(&m, "l_hand"),
                point: glam::Vec3::ZERO,
                attack_plane_normal: glam::Vec3::Y,
            };
            select_candidates(&m, restored.present_mask(), &pose, &hit, &mut cands).unwrap();
            let rules = biter(&m);
            let ctx = RuleContext {
                health_percent: 10.0,
                preset: DamagePreset::wall_hit_ragdoll(),
                reaction: ReactionFlags::EMPTY,
                victim_states: restored.victim_states(),
            };
            let mut rng = DecisionRng::new(restored.victim().id, EventId(78));
            let d = decide(&m, &rules, &restored, &cands, &ctx, &mut rng).unwrap();
            let rec = HitRecord {
                bone: hit.bone,
                position: hit.point,
                direction: glam::Vec3::X,
                time: 2.0,
            };
            let ev = BodyEvent::from_decision(restored.victim(), EventId(78), rec, &d);
            apply_event(&m, &mut restored, &ev).unwrap();
            let _ = state_hash(&restored);
        }
    }

    #[test]
    fn event_bytes_never_panic_and_bad_events_change_nothing(
        bytes in prop::collection::vec(any::<u8>(), 0..128),
        edits in prop::collection::vec((any::<usize>(), 1u8..=255), 0..6),
        cut in any::<usize>(),
    ) {
        let m = humanoid();
        let mut s = BodyState::new(&m, victim());
        let good = BodyEvent {
            victim: victim(),
            event: EventId(1),
            hit: HitRecord {
                bone: bone(&m, "l_forearm"),
                position: glam::Vec3::ZERO,
                direction: glam::Vec3::X,
                time: 0.0,
            },
            operation: None,
            kills: false,
        };
        for b in [bytes, mutate(&good.to_bytes(), &edits, cut)] {
            if let Ok(ev) = BodyEvent::from_bytes(&b) {
                let before = s.clone();
                if apply_event(&m, &mut s, &ev).is_err() {
                    prop_assert_eq!(&s, &before);
                }
            }
        }
    }
}
