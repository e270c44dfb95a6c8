//! Issue 13, items 5 and 7: the stress built-ins do what they say, asserted
//! on the recorded outcome (chunk positions from the recorded body poses).

#![allow(clippy::unwrap_used)] // test helpers: a failure here is a test failure

use glam::Vec3;
use smithereens_rapier::core::record::{RunRecord, pose_from_array};
use smithereens_rapier::recorded_run::{RunSummary, run};
use smithereens_scenario::{ScenarioFile, build, builtin};
use std::path::Path;

/// Where every run chunk is at the start and at the end (world, m), and the
/// first frame each bond broke.
struct Outcome {
    record: RunRecord,
    summary: RunSummary,
    start: Vec<Vec3>,
    end: Vec<Vec3>,
}

impl Outcome {
    fn of(record: RunRecord, summary: RunSummary) -> Self {
        let n = record.chunks.len();
        let last = record.frame_count - 1;
        let (mut start, mut end) = (vec![Vec3::NAN; n], vec![Vec3::NAN; n]);
        for b in &record.bodies {
            let alive_last = b.first_frame + b.poses.len() as u32 - 1 == last;
            for &c in &b.chunks {
                let centroid = record.chunks[c as usize].centroid;
                if b.first_frame == 0 {
                    start[c as usize] = pose_from_array(&b.poses[0]).transform_point(centroid);
                }
                if alive_last {
                    end[c as usize] =
                        pose_from_array(b.poses.last().unwrap()).transform_point(centroid);
                }
            }
        }
        Self {
            record,
            summary,
            start,
            end,
        }
    }

    /// Chunks whose start satisfies `pick`.
    fn chunks(&self, pick: impl Fn(Vec3) -> bool) -> Vec<usize> {
        (0..self.start.len())
            .filter(|&c| pick(self.start[c]))
            .collect()
    }

    /// Largest drop (start y − end y) among `chunks`, m.
    fn max_drop(&self, chunks: &[usize]) -> f32 {
        chunks
            .iter()
            .map(|&c| self.start[c].y - self.end[c].y)
            .fold(0.0, f32::max)
    }

    /// Bonds broken whose both ends satisfy `pick` at the start.
    fn broken_where(&self, pick: impl Fn(Vec3) -> bool) -> usize {
        self.record
            .breaks
            .iter()
            .filter(|b| {
                let bond = &self.record.bonds[b.bond as usize];
                pick(self.start[bond.chunk0 as usize])
            })
            .count()
    }

    /// Seconds of the first break satisfying `pick`.
    fn first_break(&self, pick: impl Fn(Vec3) -> bool) -> Option<f32> {
        self.record
            .breaks
            .iter()
            .find(|b| pick(self.start[self.record.bonds[b.bond as usize].chunk0 as usize]))
            .map(|b| b.frame as f32 * self.record.timestep)
    }
}

fn run_builtin(name: &str) -> Outcome {
    let file = ScenarioFile::parse(builtin(name).unwrap()).unwrap();
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let (record, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
    Outcome::of(record, summary)
}

#[test]
fn tower_gravity_the_weak_tower_collapses_and_the_strong_one_stands_with_zero_breaks() {
    let o = run_builtin("tower-gravity");
    let weak = o.chunks(|p| p.x < 0.0);
    let strong = o.chunks(|p| p.x > 0.0);
    let top = |cs: &[usize]| {
        *cs.iter()
            .max_by(|&&a, &&b| o.start[a].y.total_cmp(&o.start[b].y))
            .unwrap()
    };
    let (wt, st) = (top(&weak), top(&strong));
    println!(
        "weak: {} bonds broken, top chunk {} → {} m, drop max {}; strong: {} broken, top {} → {}; first weak break {:?}; {:?}",
        o.broken_where(|p| p.x < 0.0),
        o.start[wt].y,
        o.end[wt].y,
        o.max_drop(&weak),
        o.broken_where(|p| p.x > 0.0),
        o.start[st].y,
        o.end[st].y,
        o.first_break(|p| p.x < 0.0),
        o.summary
    );
    assert_eq!(
        o.broken_where(|p| p.x > 0.0),
        0,
        "the strong tower breaks nothing"
    );
    assert!((o.end[st].y - o.start[st].y).abs() < 0.01);
    assert!(
        o.start[wt].y - o.end[wt].y >= 1.0,
        "the weak tower's top came down"
    );
}

#[test]
fn wall_gravity_the_part_above_the_hole_falls_within_2_s_and_the_rest_stands() {
    let o = run_builtin("wall-gravity");
    // Blocks above the hole: the middle four columns, rows 3–5.
    let above = o.chunks(|p| p.x.abs() < 1.0 && p.y > 1.5);
    // The sides: columns 2 or more blocks away from the hole.
    let sides = o.chunks(|p| p.x.abs() > 1.5);
    let drops: Vec<f32> = above.iter().map(|&c| o.start[c].y - o.end[c].y).collect();
    println!(
        "above: {} chunks, drops {drops:?}; sides max drop {}; breaks above {:?} s; {:?}",
        above.len(),
        o.max_drop(&sides),
        o.first_break(|p| p.x.abs() < 1.0 && p.y > 1.5),
        o.summary
    );
    assert_eq!(above.len(), 12);
    // Down onto the 0.5 m stumps of row 0 (1.0 m) or past them.
    assert!(
        drops.iter().all(|&d| d >= 0.85),
        "every block above the hole fell"
    );
    let moved = sides
        .iter()
        .filter(|&&c| o.start[c].distance(o.end[c]) > 0.01)
        .count();
    assert_eq!(sides.len(), 36);
    assert!(moved <= 2, "the sides stand: {moved} of 36 blocks moved");
    let t = o.first_break(|p| p.x.abs() < 1.0 && p.y > 1.5).unwrap();
    assert!(
        t < 0.5 + 2.0,
        "stress broke the part above within 2 s of the blast ({t} s)"
    );
}

#[test]
fn bridge_truck_the_weak_span_breaks_under_the_truck_and_the_strong_bridge_holds() {
    let o = run_builtin("bridge-truck");
    let deck = |z: f32| move |p: Vec3| p.y > 3.0 && (p.z - z).abs() < 1.5;
    let weak = o.chunks(deck(-3.0));
    let strong = o.chunks(deck(3.0));
    println!(
        "weak deck: {} broken, max drop {}; strong deck {} broken, max drop {}; first weak break {:?}; plain bodies {}",
        o.broken_where(|p| p.z < 0.0),
        o.max_drop(&weak),
        o.broken_where(|p| p.z > 0.0),
        o.max_drop(&strong),
        o.first_break(|p| p.z < 0.0),
        o.record.plain_bodies.len(),
    );
    for b in &o.record.plain_bodies {
        println!("truck ends at {:?}", b.poses.last().unwrap());
    }
    assert_eq!(o.broken_where(|p| p.z > 0.0), 0);
    assert!(o.max_drop(&strong) < 0.02);
    assert!(o.max_drop(&weak) >= 1.0);
    let truck = |k: usize| o.record.plain_bodies[k].poses.last().unwrap()[1];
    assert!(
        truck(0) < 2.0,
        "the truck on the weak bridge fell: y = {}",
        truck(0)
    );
    assert!(
        (truck(1) - 4.0).abs() < 0.02,
        "the strong bridge holds its truck"
    );
    // The first bond to go is in the loaded span (x from −7 to −0.5 m).
    let first = o.record.breaks.first().unwrap();
    let x = o.start[o.record.bonds[first.bond as usize].chunk0 as usize].x;
    assert!((-7.5..=0.0).contains(&x), "first break at x = {x}");
}

#[test]
fn bridge_truck_without_its_trucks_both_bridges_stand() {
    let mut file = ScenarioFile::parse(builtin("bridge-truck").unwrap()).unwrap();
    file.bodies.clear();
    file.duration = 2.0;
    let built = build(&file, Path::new("."), &mut |_| {}).unwrap();
    let (record, summary) = run(&built.scenario, &mut |_, _| {}).unwrap();
    let o = Outcome::of(record, summary);
    assert_eq!(o.record.breaks.len(), 0, "the weak bridge carries itself");
    let all: Vec<usize> = (0..o.start.len()).collect();
    assert!(o.max_drop(&all) < 0.01);
}

#[test]
fn bridge_pier_cutting_the_middle_pier_brings_down_the_spans_it_carried() {
    let o = run_builtin("bridge-pier");
    let deck = o.chunks(|p| p.y > 3.0);
    let mid_spans = o.chunks(|p| p.y > 3.0 && p.x.abs() < 5.0);
    println!(
        "{} broken; deck max drop {}; mid-span chunks {} with drop ≥ 1 m: {}; {:?}",
        o.record.breaks.len(),
        o.max_drop(&deck),
        mid_spans.len(),
        mid_spans
            .iter()
            .filter(|&&c| o.start[c].y - o.end[c].y >= 1.0)
            .count(),
        o.summary
    );
    let fell = mid_spans
        .iter()
        .filter(|&&c| o.start[c].y - o.end[c].y >= 1.0)
        .count();
    assert_eq!(mid_spans.len(), 80);
    assert!(
        fell >= 72,
        "the spans the pier carried came down: {fell} of 80 deck blocks"
    );
}
