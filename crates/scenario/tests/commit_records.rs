//! The commit records a Rapier-driven run reports
//! ([`smithereens_rapier::InstanceReport::records`]) carry its whole
//! destruction state: a core instance that only applies them (no Rapier, as
//! a replica does) has the authority's replicated hash after every step of
//! every built-in scenario.

#![allow(clippy::unwrap_used)]

use smithereens_core::instance::InstanceDesc;
use smithereens_core::{Instance, RecordOutcome};
use smithereens_rapier::recorded_run::run_observed;
use smithereens_scenario::{BUILTINS, ScenarioFile, build};
use std::path::Path;
use std::sync::Arc;

#[test]
fn applying_a_runs_commit_records_reproduces_every_instances_replicated_hash_at_every_step() {
    for (name, text) in BUILTINS {
        let file = ScenarioFile::parse(text).unwrap();
        let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
        let mut mirrors: Vec<Instance> = built
            .scenario
            .instances
            .iter()
            .map(|i| {
                let desc = InstanceDesc {
                    placement: i.placement,
                    ..i.desc.clone()
                };
                Instance::with_desc(Arc::new(i.asset.validate().unwrap()), desc).unwrap()
            })
            .collect();
        let mut records = 0usize;
        let mut multi = 0usize;
        run_observed(&built.scenario, &mut |_, _| {}, &mut |mut step| {
            for (k, &h) in step.instances.iter().enumerate() {
                let authority = step.set.instance(h).unwrap();
                let taken = step.take_records(h);
                multi += usize::from(taken.len() > 1);
                for r in &taken {
                    assert_eq!(r.instance, authority.id());
                    assert_eq!(mirrors[k].apply_record(r), Ok(RecordOutcome::Applied));
                    records += 1;
                }
                assert_eq!(
                    mirrors[k].commit_seq(),
                    authority.commit_seq(),
                    "{name}: instance {k} after step {}",
                    step.step
                );
                assert_eq!(
                    mirrors[k].replicated_hash(),
                    authority.replicated_hash(),
                    "{name}: instance {k} after step {}",
                    step.step
                );
            }
        })
        .unwrap();
        eprintln!("{name}: {records} records, {multi} steps with several for one instance");
        // wall_push has vehicles and no destructible instance: nothing to commit.
        assert!(records > 0 || mirrors.is_empty(), "{name} commits");
    }
}
