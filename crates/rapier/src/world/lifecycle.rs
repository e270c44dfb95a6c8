//! Debris sleep and two-phase recycling through the core lifecycle.

use super::DestructionWorld;
use rapier3d::prelude::*;
use smithereens_core::ClusterHandle;

impl DestructionWorld {
    /// Sleep bookkeeping and the first half of recycling: sleeping debris past
    /// the policy's time gets its colliders disabled (out of contacts and
    /// queries from the next step on).
    pub(super) fn advance_lifecycle(&mut self) {
        let dt = self.settings.timestep;
        if self.instance.advance_sleep(dt).is_err() {
            return;
        }
        let Some(policy) = self.settings.recycle else {
            return;
        };
        let asleep: Vec<ClusterHandle> = self
            .instance
            .clusters()
            .filter(|(_, c)| {
                c.sleep == smithereens_core::lifecycle::SleepState::Asleep
                    && c.nodes.len() <= policy.max_chunks as usize
            })
            .map(|(h, _)| h)
            .collect();
        for h in &asleep {
            self.asleep_since.entry(*h).or_insert(self.step_index);
        }
        let awake: Vec<ClusterHandle> = self
            .asleep_since
            .keys()
            .filter(|h| !asleep.contains(h))
            .copied()
            .collect();
        for h in awake {
            self.asleep_since.remove(&h);
        }
        let due: Vec<ClusterHandle> = self
            .asleep_since
            .iter()
            .filter(|(_, since)| (self.step_index - **since) as f32 * dt >= policy.after)
            .map(|(h, _)| *h)
            .collect();
        for h in due {
            self.asleep_since.remove(&h);
            let Ok(ticket) = self.instance.begin_recycle(h) else {
                continue;
            };
            if let Some(body) = self
                .bodies
                .get(&h)
                .and_then(|&rb| self.physics.bodies.get(rb))
            {
                let colliders: Vec<ColliderHandle> = body.colliders().to_vec();
                for ch in colliders {
                    if let Some(c) = self.physics.colliders.get_mut(ch) {
                        c.set_enabled(false);
                    }
                }
            }
            self.recycling.push(ticket);
        }
    }

    /// Second half of recycling: clusters withdrawn before the last step are
    /// released in the core and their bodies removed. Returns them.
    pub(super) fn finish_recycling(&mut self) -> Vec<ClusterHandle> {
        let mut done = Vec::new();
        for ticket in std::mem::take(&mut self.recycling) {
            match self.instance.finish_recycle(ticket) {
                Ok(_) => {
                    if let Some(rb) = self.bodies.remove(&ticket.cluster) {
                        self.physics.remove_body_with_colliders(rb, true);
                    }
                    done.push(ticket.cluster);
                }
                Err(smithereens_core::lifecycle::LifecycleError::StillInQueries(_)) => {
                    self.recycling.push(ticket)
                }
                Err(_) => {}
            }
        }
        done
    }
}
