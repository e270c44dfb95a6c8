//! Issue 11, item 7: the built-in scenarios do what their names say,
//! asserted on the recorded outcome (chunk positions from the recorded
//! body poses), not on counters.

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_rapier::core::record::{RunRecord, pose_from_array};
use smithereens_rapier::recorded_run::{RunSummary, run};
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// Where every run chunk is on the first and on the last frame (world, m),
/// and which body holds it at the end.
struct Outcome {
    record: RunRecord,
    summary: RunSummary,
    start: Vec<Vec3>,
    end: Vec<Vec3>,
    /// Index in `record.bodies` of the body holding each chunk on the last frame.
    holder: Vec<usize>,
}

impl Outcome {
    fn of(record: RunRecord, summary: RunSummary) -> Self {
        let n = record.chunks.len();
        let last = record.frame_count - 1;
        let (mut start, mut end) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
        let mut holder = vec![usize::MAX; n];
        for (i, b) in record.bodies.iter().enumerate() {
            let alive_last = b.first_frame + b.poses.len() as u32 - 1 == last;
            for &c in &b.chunks {
                let centroid = record.chunks[c as usize].centroid;
                if b.first_frame == 0 {
                    start[c as usize] = pose_from_array(&b.poses[0]).transform_point(centroid);
                }
                if alive_last {
                    let p = pose_from_array(b.poses.last().unwrap());
                    end[c as usize] = p.transform_point(centroid);
                    holder[c as usize] = i;
                }
            }
        }
        Self {
            record,
            summary,
            start,
            end,
            holder,
        }
    }

    /// How far each chunk moved, m.
    fn travel(&self) -> Vec<f32> {
        self.start
            .iter()
            .zip(&self.end)
            .map(|(a, b)| a.distance(*b))
            .collect()
    }

    /// Whether chunk `c` ends in a supported (fixed) body.
    fn supported_at_end(&self, c: usize) -> bool {
        self.record.bodies[self.holder[c]].supported
    }
}

/// Runs a built-in scenario as its file says.
fn run_builtin(name: &str) -> Outcome {
    let file = ScenarioFile::parse(builtin(name).unwrap()).unwrap();
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let (record, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
    Outcome::of(record, summary)
}

/// The run's last frame index.
fn last_frame(o: &Outcome) -> u32 {
    o.record.frame_count - 1
}

/// Chunks freed by the end (not held by a fixed body).
fn freed(o: &Outcome) -> Vec<usize> {
    (0..o.start.len())
        .filter(|&c| !o.supported_at_end(c))
        .collect()
}

#[test]
fn the_wall_ball_passes_through_a_hole_and_the_pieces_fly() {
    let o = run_builtin("wall");
    // The wall stands at z ∈ [−0.15, 0.15]; the 0.35 m ball starts at z = −3.
    let ball = &o.record.projectiles[0];
    let end = pose_from_array(ball.poses.last().unwrap()).translation;
    assert!(end.z > 0.15 + 0.35 + 1.0, "the ball ends at z = {}", end.z);
    let freed = freed(&o);
    let n = o.start.len();
    assert!(
        freed.len() * 10 >= n,
        "a hole of {} of {n} chunks (at least 10 %)",
        freed.len()
    );
    let travel = o.travel();
    // A freed chunk stayed in the hole when its centroid ends within the
    // wall's thickness. (This used to be "travelled less than 0.5 m"; with
    // parry's contact features fixed (vendor/README.md), chunk 39 fell back
    // out of the hole onto the ground on the ball's side, 0.44 m from where
    // it started: out of the hole, but short.)
    let stayed: Vec<(usize, Vec3)> = freed
        .iter()
        .map(|&c| (c, o.end[c]))
        .filter(|(_, end)| end.z.abs() <= 0.15)
        .collect();
    assert!(
        stayed.is_empty(),
        "freed chunks that stayed in the hole: {stayed:?}"
    );
    let far = freed.iter().filter(|&&c| travel[c] >= 1.0).count();
    assert!(
        far * 10 >= freed.len() * 9,
        "{far} of {} freed chunks travelled 1 m or more",
        freed.len()
    );
    assert_eq!(last_frame(&o), 240);
}

#[test]
fn the_tower_top_third_falls() {
    let o = run_builtin("tower");
    let n = o.start.len();
    let top = (0..n)
        .max_by(|&a, &b| o.start[a].y.total_cmp(&o.start[b].y))
        .unwrap();
    assert!(o.start[top].y > 5.5, "top chunk at {}", o.start[top].y);
    let drop = o.start[top].y - o.end[top].y;
    assert!(drop >= 1.0, "the top chunk's body ends {drop} m lower");
    // The top third (y > 4 m) ends lower by a metre or more, nearly all of it.
    let third: Vec<usize> = (0..n).filter(|&c| o.start[c].y > 4.0).collect();
    let fell = third
        .iter()
        .filter(|&&c| o.start[c].y - o.end[c].y >= 1.0)
        .count();
    assert!(
        fell * 10 >= third.len() * 9,
        "{fell} of {} top-third chunks fell 1 m or more",
        third.len()
    );
}

#[test]
fn the_bridge_blast_cuts_the_span_and_the_freed_middle_reaches_the_ground() {
    let o = run_builtin("bridge");
    // No body spans both ends at the end.
    for (i, b) in o.record.bodies.iter().enumerate() {
        if b.first_frame + b.poses.len() as u32 != o.record.frame_count {
            continue;
        }
        let xs = b.chunks.iter().map(|&c| o.end[c as usize].x);
        let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(l, h), x| (l.min(x), h.max(x)));
        assert!(
            !(lo < -3.0 && hi > 3.0),
            "body {i} still spans x = {lo} … {hi}"
        );
    }
    // Every freed chunk fell from the deck (y ≈ 3 m) to the ground.
    let freed = freed(&o);
    assert!(freed.len() >= 5, "{} chunks freed", freed.len());
    for &c in &freed {
        assert!(o.start[c].y > 2.7);
        assert!(
            o.end[c].y < 0.6,
            "freed chunk {c} ends at y = {} (from {})",
            o.end[c].y,
            o.start[c]
        );
    }
}

#[test]
fn no_builtin_leaves_a_loose_piece_hanging_unreported() {
    for name in ["wall", "tower", "bridge", "town"] {
        let s = run_builtin(name).summary;
        // A piece that stayed where it broke free without support from
        // below is reported wedged (issue 11, item 3).
        assert!(s.stuck <= s.wedged, "{name}: {s:?}");
        if name == "wall" || name == "bridge" {
            assert_eq!((s.wedged, s.stuck), (0, 0), "{name}");
        }
    }
}

#[test]
fn the_wall_hit_the_ordinary_way_reports_the_pieces_left_in_the_hole() {
    // Without the re-run (item 2 is opt-in) the ball bounces off and most
    // pieces it freed stay in the hole, locked by the fixed wall around
    // them: they are reported wedged, not left silent.
    let mut file = ScenarioFile::parse(builtin("wall").unwrap()).unwrap();
    file.resolve_breaks = false;
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let (record, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
    let o = Outcome::of(record, summary);
    let travel = o.travel();
    let unmoved = freed(&o).into_iter().filter(|&c| travel[c] < 0.05).count();
    assert!(
        unmoved > 0,
        "the ordinary stepping leaves pieces in the hole"
    );
    assert!(o.summary.wedged > 0, "{:?}", o.summary);
    assert!(o.summary.stuck <= o.summary.wedged, "{:?}", o.summary);
}
