//! DESIGN §3.9 budget: critical vs decorative, slot order, render-only
//! overflow, exact-match proxies, deferral with a bounded queue, and the
//! worked case of 20 chunks with 4 slots.

#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use smithereens_core::glam::Vec3;
use smithereens_core::*;
use std::sync::Arc;

fn with_budget(asset: Arc<Asset>, budget: BudgetDesc) -> Instance {
    Instance::with_desc(
        asset,
        InstanceDesc {
            id: InstanceId(1),
            budget,
            ..InstanceDesc::default()
        },
    )
    .unwrap()
}

fn slots(n: u32) -> BudgetDesc {
    BudgetDesc {
        body_slots: n,
        ..BudgetDesc::default()
    }
}

fn dynamic(inst: &Instance) -> Vec<(Vec<u32>, Representation, Option<BodySlot>)> {
    inst.clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(_, c)| {
            (
                c.nodes.iter().map(|n| n.0).collect(),
                c.representation,
                c.slot,
            )
        })
        .collect()
}

#[test]
fn twenty_chunks_in_four_critical_components_with_four_slots_all_get_bodies() {
    let asset = hanging_groups(&[5, 5, 5, 5], &[true; 4], false);
    assert_eq!(asset.chunk_count(), 21, "20 hanging chunks + the base");
    let mut inst = with_budget(asset, slots(4));
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert_eq!(out.status, CommitStatus::Committed);
    let d = dynamic(&inst);
    assert_eq!(d.len(), 4);
    assert!(d.iter().all(|(nodes, rep, slot)| nodes.len() == 5
        && *rep == Representation::Body
        && slot.is_some()));
    let mut used: Vec<u32> = d
        .iter()
        .filter_map(|(_, _, s)| s.map(|s| s.index))
        .collect();
    used.sort_unstable();
    assert_eq!(used, vec![0, 1, 2, 3], "one slot each, lowest first");
    assert!(out.render_only.is_empty());
    assert_eq!(inst.slots_in_use(), 4);
}

#[test]
fn five_critical_components_with_four_free_slots_are_deferred_then_commit_once_a_slot_frees() {
    // Five critical groups of four chunks (20 chunks) plus one decorative
    // single chunk on its own hanger that falls first and holds a slot.
    let mut sizes = vec![4u32; 5];
    sizes.push(1);
    let mut critical = vec![true; 5];
    critical.push(false);
    let asset = hanging_groups(&sizes, &critical, true);
    let budget = BudgetDesc {
        body_slots: 5,
        queue_capacity: 2,
        ..BudgetDesc::default()
    };
    let mut inst = with_budget(asset, budget);
    let mut backend = HeadlessBackend::default();
    // The decorative chunk's hanger sits at z = 100 + 20·5.
    inst.admit(hanger_hit(1, HANGER_POINT + Vec3::new(0.0, 0.0, 200.0)))
        .unwrap();
    inst.commit(&mut backend).unwrap();
    let debris = inst
        .clusters()
        .find(|(_, c)| !c.supported)
        .map(|(h, _)| h)
        .unwrap();
    assert_eq!(inst.slots_in_use(), 1);

    // One hit breaks the five critical hangers: 5 critical components, 4 free slots.
    let first = inst.admit(hanger_hit(2, HANGER_POINT)).unwrap();
    assert_eq!(
        first,
        Admission::Pending {
            event: EventId(2),
            admission_seq: 1
        }
    );
    let before = inst.state_hash();
    let out = inst.commit(&mut backend).unwrap();
    let shortfall = BudgetShortfall {
        critical: 5,
        available: 4,
        capacity: 5,
    };
    assert_eq!(out.status, CommitStatus::Deferred(shortfall));
    assert_eq!(
        inst.state_hash(),
        before,
        "a held-back commit publishes nothing"
    );
    assert_eq!(inst.pending().len(), 1, "the event waits");
    assert_eq!(inst.deferral(), Some(shortfall));
    // The caller is told "deferred": for the waiting event and for new ones.
    assert_eq!(
        inst.admit(hanger_hit(2, HANGER_POINT)).unwrap(),
        Admission::Deferred {
            event: EventId(2),
            admission_seq: 1,
            shortfall
        }
    );
    assert!(matches!(
        inst.admit(miss(3)).unwrap(),
        Admission::Deferred {
            admission_seq: 2,
            ..
        }
    ));
    // The bounded queue (capacity 2) is full: new damage is rejected, never silently lost.
    let before = inst.state_hash();
    assert_eq!(
        inst.admit(miss(4)),
        Err(DamageError::QueueFull { capacity: 2 })
    );
    assert_eq!(inst.pending().len(), 2);
    assert_eq!(inst.state_hash(), before);
    // Retrying without a free slot defers again.
    assert!(matches!(
        inst.commit(&mut backend).unwrap().status,
        CommitStatus::Deferred(_)
    ));

    // Free a slot: the debris sleeps, leaves the queries, is recycled.
    inst.advance_sleep(2.0).unwrap();
    let ticket = inst.begin_recycle(debris).unwrap();
    inst.mark_queries_refreshed();
    let recycle = inst.finish_recycle(ticket).unwrap();
    assert_eq!(recycle.removed, vec![debris]);
    assert_eq!(inst.slots_in_use(), 0);

    let out = inst.commit(&mut backend).unwrap();
    assert_eq!(out.status, CommitStatus::Committed);
    assert_eq!(out.receipts.len(), 2);
    let d = dynamic(&inst);
    assert_eq!(d.len(), 5);
    assert!(
        d.iter()
            .all(|(n, r, s)| n.len() == 4 && *r == Representation::Body && s.is_some())
    );
    assert_eq!(inst.deferral(), None);
    assert!(matches!(
        inst.admit(miss(4)).unwrap(),
        Admission::Pending { .. }
    ));
}

#[test]
fn decorative_overflow_becomes_render_only_debris_by_volume_order() {
    // Group sizes (volumes): critical 1, decorative 1, 3, 2. Two slots.
    let asset = hanging_groups(&[1, 1, 3, 2], &[true, false, false, false], false);
    let mut inst = with_budget(asset, slots(2));
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    let mut by_first: Vec<(u32, usize, Representation)> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(_, c)| (c.nodes[0].0, c.nodes.len(), c.representation))
        .collect();
    // Handle order depends on which piece kept the old handle: compare by node.
    by_first.sort_by_key(|&(first, ..)| first);
    // Chunk 1 = critical group; 2 = 1-chunk decorative; 3.. = 3-chunk; 6.. = 2-chunk.
    assert_eq!(
        by_first,
        vec![
            (1, 1, Representation::Body),
            (2, 1, Representation::RenderOnlyDebris),
            (3, 3, Representation::Body),
            (6, 2, Representation::RenderOnlyDebris),
        ]
    );
    assert_eq!(
        out.render_only.len(),
        2,
        "render-only debris is reported as such"
    );
    for h in &out.render_only {
        let c = inst.cluster(*h).unwrap();
        assert_eq!(c.slot, None);
        assert!(!inst.is_queryable(*h), "no authoritative collider or query");
    }
    // The plan handed to the backend says so too.
    let asset = hanging_groups(&[1, 1, 3, 2], &[true, false, false, false], false);
    let mut inst = with_budget(asset, slots(2));
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    let plan = inst.plan::<()>().unwrap();
    let reps: Vec<Representation> = plan
        .splits
        .iter()
        .flat_map(|s| s.parts.iter())
        .filter(|p| !p.supported)
        .map(|p| p.representation)
        .collect();
    assert_eq!(
        reps.iter()
            .filter(|r| **r == Representation::RenderOnlyDebris)
            .count(),
        2
    );
}

#[test]
fn ties_in_decorative_volume_go_to_the_lower_id() {
    let asset = hanging_groups(&[2, 2, 2], &[false; 3], false);
    let mut inst = with_budget(asset, slots(2));
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    let reps: Vec<Representation> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(_, c)| c.representation)
        .collect();
    assert_eq!(
        reps,
        vec![
            Representation::Body,
            Representation::Body,
            Representation::RenderOnlyDebris
        ]
    );
}

#[test]
fn task_path_makes_a_decorative_component_critical() {
    let asset = hanging_groups(&[1, 3], &[false, false], false);
    let mut inst = with_budget(asset, slots(1));
    // Chunk 1 (the 1-chunk group) is on the current task path.
    inst.set_task_path(&[ChunkIndex(1)]).unwrap();
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
    let rep_of = |chunk: u32| {
        inst.cluster(inst.cluster_of(ChunkIndex(chunk)).unwrap())
            .unwrap()
            .representation
    };
    assert_eq!(rep_of(1), Representation::Body);
    assert_eq!(rep_of(2), Representation::RenderOnlyDebris);
    assert_eq!(
        out.record.unwrap().task_path,
        Some(vec![ChunkIndex(1)]),
        "the change travels in the record"
    );
    assert!(matches!(
        inst.set_task_path(&[ChunkIndex(99)]),
        Err(BudgetError::ChunkOutOfRange { chunk: 99, .. })
    ));
}

fn proxy(nodes: Vec<u32>, error_bound: f32) -> ProxyDesc {
    let pts = |x: f32| HullDesc {
        points: vec![
            Vec3::new(x, 0.0, 0.0),
            Vec3::new(x + 1.0, 0.0, 0.0),
            Vec3::new(x, 1.0, 0.0),
            Vec3::new(x, 0.0, 1.0),
        ],
    };
    ProxyDesc {
        nodes,
        hulls: vec![pts(0.0), pts(2.0), pts(4.0)],
        error_bound,
    }
}

#[test]
fn an_authored_proxy_is_used_only_for_an_exact_node_set_within_the_error_limit() {
    // Groups: chunks 1..=3 and 4..=6.
    let asset = hanging_groups(&[3, 3], &[true, true], false);
    let budget = BudgetDesc {
        body_slots: 4,
        proxies: vec![
            proxy(vec![3, 1, 2], 0.05), // exact match of group 0 (any order)
            proxy(vec![4, 5], 0.05),    // a subset of group 1: never used
        ],
        proxy_error_limit: 0.1,
        ..BudgetDesc::default()
    };
    let mut inst = with_budget(asset.clone(), budget.clone());
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    // By group (lowest chunk), not by handle: which piece keeps the old
    // handle is the island search's choice.
    let mut reps: Vec<(u32, Representation)> = inst
        .clusters()
        .filter(|(_, c)| !c.supported)
        .map(|(_, c)| (c.nodes[0].0, c.representation))
        .collect();
    reps.sort_by_key(|&(first, _)| first);
    assert_eq!(
        reps,
        vec![
            (1, Representation::Proxy(ProxyId(0))),
            (4, Representation::Body)
        ]
    );
    // A proxy whose error bound exceeds the gameplay limit is not accepted.
    let strict = BudgetDesc {
        proxy_error_limit: 0.01,
        ..budget
    };
    let mut inst = with_budget(asset, strict);
    inst.admit(hanger_hit(1, HANGER_POINT)).unwrap();
    inst.commit(&mut HeadlessBackend::default()).unwrap();
    assert!(
        inst.clusters()
            .all(|(_, c)| c.representation == Representation::Body)
    );
}

#[test]
fn bad_budgets_are_rejected_with_typed_errors() {
    let asset = hanging_groups(&[2], &[false], false);
    let make = |b: BudgetDesc| {
        Instance::with_desc(
            asset.clone(),
            InstanceDesc {
                budget: b,
                ..InstanceDesc::default()
            },
        )
        .err()
    };
    assert_eq!(
        make(BudgetDesc {
            queue_capacity: 0,
            ..BudgetDesc::default()
        }),
        Some(InstanceError::Budget(BudgetError::ZeroQueue))
    );
    assert!(matches!(
        make(BudgetDesc {
            proxies: vec![proxy(vec![1, 1], 0.0)],
            ..BudgetDesc::default()
        }),
        Some(InstanceError::Budget(BudgetError::BadProxyNodes {
            proxy: 0
        }))
    ));
    assert!(matches!(
        make(BudgetDesc {
            proxies: vec![proxy(vec![7], 0.0)],
            ..BudgetDesc::default()
        }),
        Some(InstanceError::Budget(BudgetError::ChunkOutOfRange {
            chunk: 7,
            ..
        }))
    ));
    assert!(matches!(
        make(BudgetDesc {
            proxies: vec![proxy(vec![1], f32::NAN)],
            ..BudgetDesc::default()
        }),
        Some(InstanceError::Budget(BudgetError::BadErrorBound { .. }))
    ));
}

#[test]
fn a_free_standing_critical_asset_over_budget_cannot_be_placed() {
    // No support: both groups... a single unsupported critical chunk pair.
    let mut desc = AssetDesc {
        chunks: vec![
            fixtures::cube_chunk(Vec3::ZERO, 1.0, 1.0, false),
            fixtures::cube_chunk(Vec3::new(5.0, 0.0, 0.0), 1.0, 1.0, false),
        ],
        bonds: vec![],
        support_depth: None,
    };
    for c in &mut desc.chunks {
        c.gameplay_critical = true;
    }
    let asset = Arc::new(Asset::new(&desc).unwrap());
    let err = Instance::with_desc(
        asset,
        InstanceDesc {
            budget: slots(1),
            ..InstanceDesc::default()
        },
    )
    .err();
    assert!(
        matches!(err, Some(InstanceError::OverBudget(s)) if s.critical == 2 && s.available == 1)
    );
}
