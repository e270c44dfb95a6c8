//! Fast bodies' states one step back, so an impact that Rapier's CCD
//! clamped is measured where the trajectory really met the surface.
//!
//! **Why.** Rapier 0.36 sweeps every fast dynamic body (one whose farthest
//! point moves more than half its thinnest extent in a step) against the
//! fixed colliders after the solver, and clamps its *pose* to the time of
//! impact, keeping its *velocity* (`CCDSolver::solve_continuous`). When a
//! step begins farther from a fixed chunk than the prediction distance
//! (2 cm), the pair has no contact in that step, so no solver contact and
//! no collision event; the body ends it on the surface with the velocity of
//! the step's end, and the contact only starts at the next step. That
//! state is the same wherever in the step the trajectory crossed: a 10 kg
//! box dropped 0.468–0.496 m at 1/60 s with 4 substeps reaches the contact
//! step bit-identical (1 mm deep at 3.1065 m/s) while its impact speeds are
//! 3.03–3.12 m/s, and no function of that state can tell them apart.
//!
//! **What is kept.** For each *fast* body (dynamic, awake, and CCD-active
//! in Rapier's last step or moving at `min_approach_speed` or faster one
//! step of gravity from now) the state at the start of the current step
//! and of the step before. When a pair starts touching, its impact speed is
//! reconstructed from the earlier state if the body was in free flight over
//! the step in between (its velocity changed by gravity alone): that state
//! is before any clamp, and its parabola is the one the body was on (see
//! [`super::step::impact_speed`]).
//!
//! **Cost.** O(fast bodies) per step; resting and slow bodies are never
//! listed. Bodies are found by the sleep sweep's window over Rapier's
//! active set ([`super::DestructionSettings::sleep_sweep`] bodies per step),
//! so with more awake bodies than that a body may be found a few steps
//! after it became fast; a hit before then is measured from the contact
//! step, as before (at most `|a_n|·dt` too fast, the normal acceleration
//! over one step). Allocates only when the list outgrows its largest size.

use super::contact::BodyState;
use rapier3d::prelude::*;

/// A fast body and its states at the start of the last two steps.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Flight {
    /// The body; the list is sorted by its raw index and generation.
    body: RigidBodyHandle,
    /// State at the start of the step before the current one; `None` for a
    /// body listed during the last safe point.
    previous: Option<BodyState>,
    /// State at the start of the current step (the end of the last one).
    current: BodyState,
}

/// The fast bodies, sorted by handle (deterministic order, binary search).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct FlightLog {
    flights: Vec<Flight>,
}

/// Whether `body` is fast enough to be listed: dynamic, awake, and either
/// CCD-active in Rapier's last step or moving at `min_speed` (m/s) or faster
/// after one more step of gravity. `min_speed` 0 lists CCD-active bodies only.
fn is_fast(body: &RigidBody, gravity: Vector, dt: f32, min_speed: f32) -> bool {
    if !body.is_dynamic() || body.is_sleeping() {
        return false;
    }
    if body.is_ccd_active() {
        return true;
    }
    let reach = body.linvel().length() + (gravity * body.gravity_scale()).length() * dt;
    min_speed > 0.0 && reach >= min_speed
}

impl FlightLog {
    /// Lists `rb` if it is fast and not listed yet, with its state now as
    /// the current step's. O(log n) plus the insertion.
    pub(crate) fn track(&mut self, physics: &PhysicsWorld, rb: RigidBodyHandle, min_speed: f32) {
        let Some(body) = physics.bodies.get(rb) else {
            return;
        };
        let p = &physics.integration_parameters;
        if !is_fast(body, physics.gravity, p.dt, min_speed) {
            return;
        }
        if let Err(at) = self.position(rb) {
            let Some(current) = BodyState::of(Some(body)) else {
                return;
            };
            self.flights.insert(
                at,
                Flight {
                    body: rb,
                    previous: None,
                    current,
                },
            );
        }
    }

    /// After a step: each listed body's current state becomes its previous
    /// one and its state now the current one; bodies no longer fast (or
    /// gone) leave the list. O(listed bodies).
    pub(crate) fn advance(&mut self, physics: &PhysicsWorld, min_speed: f32) {
        let dt = physics.integration_parameters.dt;
        self.flights.retain_mut(|f| {
            let Some(body) = physics.bodies.get(f.body) else {
                return false;
            };
            if !is_fast(body, physics.gravity, dt, min_speed) {
                return false;
            }
            let Some(now) = BodyState::of(Some(body)) else {
                return false;
            };
            f.previous = Some(f.current);
            f.current = now;
            true
        });
    }

    /// Before a step: the current states from the bodies now (the game may
    /// have changed velocities since the last safe point). O(listed bodies).
    pub(crate) fn refresh(&mut self, physics: &PhysicsWorld) {
        for f in &mut self.flights {
            if let Some(now) = BodyState::of(physics.bodies.get(f.body)) {
                f.current = now;
            }
        }
    }

    /// `rb`'s state at the start of the step before the one just run.
    pub(crate) fn previous(&self, rb: Option<RigidBodyHandle>) -> Option<BodyState> {
        let at = self.position(rb?).ok()?;
        self.flights[at].previous
    }

    /// Where `rb` is (or would be inserted) in the sorted list.
    fn position(&self, rb: RigidBodyHandle) -> Result<usize, usize> {
        let key = rb.into_raw_parts();
        self.flights
            .binary_search_by_key(&key, |f| f.body.into_raw_parts())
    }

    /// Checks a log read from a snapshot: bodies strictly ascending (sorted,
    /// no repeats) and every state finite. The message names the problem.
    pub(crate) fn validate(&self) -> Result<(), String> {
        let finite =
            |s: &BodyState| s.linvel.is_finite() && s.angvel.is_finite() && s.com.is_finite();
        for (k, f) in self.flights.iter().enumerate() {
            if k > 0 && self.flights[k - 1].body.into_raw_parts() >= f.body.into_raw_parts() {
                return Err(format!("flight log not strictly ascending at entry {k}"));
            }
            if !finite(&f.current) || f.previous.as_ref().is_some_and(|p| !finite(p)) {
                return Err(format!("flight log entry {k} has a non-finite state"));
            }
        }
        Ok(())
    }

    /// Number of listed bodies.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.flights.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    /// A ground plane, a box resting on it and a box falling at 3 m/s.
    fn scene() -> (PhysicsWorld, RigidBodyHandle, RigidBodyHandle) {
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vec3::new(0.0, -9.81, 0.0);
        let ground = physics.insert_body(RigidBodyBuilder::fixed());
        physics.insert_collider(ColliderBuilder::cuboid(10.0, 0.5, 10.0), Some(ground));
        let resting =
            physics.insert_body(RigidBodyBuilder::dynamic().translation(Vec3::new(0.0, 0.6, 0.0)));
        physics.insert_collider(ColliderBuilder::cuboid(0.1, 0.1, 0.1), Some(resting));
        let falling = physics.insert_body(
            RigidBodyBuilder::dynamic()
                .translation(Vec3::new(3.0, 5.0, 0.0))
                .linvel(Vec3::new(0.0, -3.0, 0.0)),
        );
        physics.insert_collider(ColliderBuilder::cuboid(0.1, 0.1, 0.1), Some(falling));
        (physics, resting, falling)
    }

    #[test]
    fn only_fast_bodies_are_listed_and_each_keeps_its_state_one_step_back() {
        let (mut physics, resting, falling) = scene();
        let mut log = FlightLog::default();
        for rb in [resting, falling] {
            log.track(&physics, rb, 1.0);
        }
        assert_eq!(log.len(), 1, "the resting box is not listed");
        assert_eq!(log.previous(Some(falling)), None, "listed this step");
        let start = BodyState::of(physics.bodies.get(falling)).unwrap();
        physics.step();
        log.advance(&physics, 1.0);
        assert_eq!(log.previous(Some(falling)), Some(start));
        assert_eq!(log.previous(Some(resting)), None);
        // A body that slowed down (and so is no longer CCD-active after
        // its next step) leaves the list.
        if let Some(b) = physics.bodies.get_mut(falling) {
            b.set_linvel(Vec3::ZERO, true);
        }
        physics.gravity = Vec3::ZERO;
        physics.step();
        log.advance(&physics, 1.0);
        assert_eq!(log.len(), 0);
    }

    #[test]
    fn a_restored_log_out_of_order_repeated_or_not_finite_is_refused() {
        let (physics, resting, falling) = scene();
        let state = BodyState::of(physics.bodies.get(falling)).unwrap();
        let flight = |body| Flight {
            body,
            previous: None,
            current: state,
        };
        let ok = FlightLog {
            flights: vec![flight(resting), flight(falling)],
        };
        assert_eq!(ok.validate(), Ok(()));
        let swapped = FlightLog {
            flights: vec![flight(falling), flight(resting)],
        };
        assert!(swapped.validate().is_err());
        let repeated = FlightLog {
            flights: vec![flight(falling), flight(falling)],
        };
        assert!(repeated.validate().is_err());
        let mut nan = flight(falling);
        nan.previous = Some(BodyState {
            linvel: Vec3::NAN,
            ..state
        });
        assert!(FlightLog { flights: vec![nan] }.validate().is_err());
    }
}
