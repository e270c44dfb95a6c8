//! Plain-text reports: the run summary table and the asset inspection.

use smithereens_authoring::{FractureReport, MIN_EDGE_FRACTION, SliverAction, SliverReason};
use smithereens_core::quantity::sig;
use smithereens_core::{Asset, AssetFile};
use smithereens_rapier::recorded_run::RunSummary;
use std::fmt::Write;

/// The run summary as an aligned two-column table.
pub fn summary_table(s: &RunSummary) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        (
            "instances (assets)",
            format!("{} ({})", s.instances, s.assets),
        ),
        ("instances broken", s.instances_broken.to_string()),
        ("chunks", s.chunks.to_string()),
        ("bonds", s.bonds.to_string()),
        ("damage events", s.events.to_string()),
        ("bonds broken", s.bonds_broken.to_string()),
        ("islands", s.islands.to_string()),
        ("dynamic bodies", s.dynamic_bodies.to_string()),
        ("bodies created", s.bodies_created.to_string()),
        ("simulated time", format!("{:.2} s", s.simulated_seconds)),
        (
            "step wall time (median)",
            format!("{:.3} ms", s.step_median_seconds * 1e3),
        ),
        (
            "step wall time (worst)",
            format!("{:.3} ms", s.step_worst_seconds * 1e3),
        ),
        (
            "destruction time (worst step)",
            format!("{:.3} ms", s.destruction_worst_seconds * 1e3),
        ),
        // Both named for what they measure: chunks dip into the ground on
        // landing and are pushed out, so the end alone hides the dip.
        (
            "lowest chunk point (any frame)",
            format!("{:.3} m", s.lowest_chunk_y_ever),
        ),
        (
            "lowest chunk point (last frame)",
            format!("{:.3} m", s.lowest_chunk_y),
        ),
        // Loose pieces left where they broke free (issue 11, item 3).
        ("pieces wedged (reported)", s.wedged.to_string()),
        ("pieces stuck unsupported", s.stuck.to_string()),
    ];
    // Runs with vehicles (issue 14): held parts and the bounded stepper.
    if s.vehicles > 0 {
        rows.push(("vehicles", s.vehicles.to_string()));
        rows.push(("held parts launched", s.launches.to_string()));
        rows.push(("held parts broken", s.held_parts_broken.to_string()));
    }
    if let Some(d) = &s.substep {
        rows.push((
            "trials per frame (bounded stepper)",
            format!("{:.2}", d.trials as f64 / d.frames.max(1) as f64),
        ));
        rows.push((
            "subdivided frames (longest run)",
            format!("{} ({})", d.subdivided_frames, d.longest_subdivided_run),
        ));
        rows.push(("stall rule trips", d.stall_trips.to_string()));
    }
    rows.push(("final state hash", format!("{:016x}", s.final_hash)));
    if s.chunks == 0 {
        // No destructible instance (e.g. the vehicle-only `wall-push`): the
        // chunk and destruction-body rows would read as zeros that describe
        // nothing (new-user finding).
        rows.retain(|(k, _)| !DESTRUCTION_ROWS.contains(k));
    }
    table(&rows)
}

/// Rows about destructible instances, left out of a run without chunks.
const DESTRUCTION_ROWS: [&str; 14] = [
    "instances (assets)",
    "instances broken",
    "chunks",
    "bonds",
    "damage events",
    "bonds broken",
    "islands",
    "dynamic bodies",
    "bodies created",
    "destruction time (worst step)",
    "lowest chunk point (any frame)",
    "lowest chunk point (last frame)",
    "pieces wedged (reported)",
    "pieces stuck unsupported",
];

/// Longest value shown in a report table, characters; longer ones (an
/// asset name is the file's own text) are cut with an ellipsis.
const MAX_CELL: usize = 200;

/// A value as a table cell: control characters escaped (a name could
/// otherwise move the terminal's cursor), at most [`MAX_CELL`] characters.
fn cell(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_control() {
            escaped.extend(c.escape_default());
        } else {
            escaped.push(c);
        }
    }
    if escaped.chars().count() > MAX_CELL {
        let mut cut: String = escaped.chars().take(MAX_CELL - 1).collect();
        cut.push('…');
        cut
    } else {
        escaped
    }
}

/// Rows as a two-column text table. Padding is written out, not given as a
/// format width (widths above 65,535 are a formatting panic).
fn table(rows: &[(&str, String)]) -> String {
    let rows: Vec<(String, String)> = rows.iter().map(|(k, v)| (cell(k), cell(v))).collect();
    let w = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    let v = rows
        .iter()
        .map(|(_, v)| v.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    let line = format!("+{}+{}+\n", "-".repeat(w + 2), "-".repeat(v + 2));
    out.push_str(&line);
    for (k, val) in &rows {
        let pad_k = " ".repeat(w - k.chars().count());
        let pad_v = " ".repeat(v - val.chars().count());
        let _ = writeln!(out, "| {k}{pad_k} | {pad_v}{val} |");
    }
    out.push_str(&line);
    out
}

/// The source mesh volume (m³) that the authoring tool records in the
/// provenance (`"source mesh: … volume <v> m3"`; `m³` is read too), if present.
fn source_volume(provenance: &str) -> Option<f64> {
    let source = &provenance[provenance.find("source mesh:")?..];
    let at = source.find("volume ")?;
    source[at + 7..].split_whitespace().next()?.parse().ok()
}

/// A chunk whose smallest principal moment of inertia is below this fraction
/// of its largest is reported as thin by [`inspect`]. Ten times the
/// authoring tool's merge threshold
/// ([`smithereens_authoring::SLIVER_INERTIA_RATIO`]): such chunks survived
/// fracture but are needle- or blade-like and may jitter in the solver.
pub const THIN_CHUNK_RATIO: f64 = 10.0 * smithereens_authoring::SLIVER_INERTIA_RATIO;

/// A chunk whose volume is below this fraction of the median chunk volume
/// is reported as tiny by [`inspect`].
pub const TINY_CHUNK_FRACTION: f64 = 1e-3;

/// Bonds weaker than this fraction of the median bond strength are reported:
/// they break at the lightest touch (interfaces of a few mm², usually where
/// a cut grazed a corner).
pub const WEAK_BOND_FRACTION: f64 = 1e-3;

/// At most this many chunk indices are listed per warning.
const LISTED: usize = 8;

/// `text` with the ASCII unit spellings the authoring tool keeps in the
/// provenance (`m3`, `m2`, to keep asset bytes stable) written as people
/// read them (`m³`, `m²`), so user text says m³ everywhere.
fn readable_units(text: &str) -> String {
    text.split(' ')
        .map(|word| match word {
            "m3" => "m³".to_string(),
            "m3;" => "m³;".to_string(),
            w => scientific_readable(w)
                .unwrap_or_else(|| w.replace("/m3", "/m³").replace("/m2", "/m²")),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word holding a number in Rust's `{:e}` notation (`(0e0`, `3.5e-10`),
/// the way the provenance records the dropped volume, written as [`sig`]
/// writes numbers (`(0`, `3.5e-10`); `None` for any other word.
fn scientific_readable(word: &str) -> Option<String> {
    let start = word.find(|c: char| c.is_ascii_digit() || c == '-')?;
    let (open, rest) = word.split_at(start);
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(rest.len());
    let (number, close) = rest.split_at(end);
    if !number.contains('e') || !open.chars().all(|c| c == '(') {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    Some(format!("{open}{}{close}", sig(value)))
}

/// The `slivers:` counts the authoring tool records in the provenance:
/// `(merged, dropped, dropped volume m³)`.
fn recorded_slivers(provenance: &str) -> Option<(u64, u64, f64)> {
    let rest = &provenance[provenance.rfind("slivers: ")? + 9..];
    let (merged, rest) = rest.split_once(" merged into a neighbour, ")?;
    let (dropped, rest) = rest.split_once(" dropped (")?;
    // The tool writes " m3"; " m³" is read too.
    let (volume, _) = rest.split_once(" m³").or_else(|| rest.split_once(" m3"))?;
    Some((
        merged.parse().ok()?,
        dropped.parse().ok()?,
        volume.parse().ok()?,
    ))
}

/// `min / median / max` of `values` (sorted here), formatted with `fmt`;
/// "-" when empty.
fn spread(values: &mut [f64], fmt: impl Fn(f64) -> String) -> String {
    values.sort_by(f64::total_cmp);
    match (values.first(), values.last()) {
        (Some(&lo), Some(&hi)) => format!(
            "{} / {} / {}",
            fmt(lo),
            fmt(values[values.len() / 2]),
            fmt(hi)
        ),
        _ => "-".into(),
    }
}

/// A signed quantity for a balance: `+` before a positive value.
fn signed(v: f64) -> String {
    if v > 0.0 {
        format!("+{}", sig(v))
    } else {
        sig(v).to_string()
    }
}

/// Up to [`LISTED`] chunk indices, then "…".
fn list(chunks: &[usize]) -> String {
    let mut s: Vec<String> = chunks.iter().take(LISTED).map(|c| c.to_string()).collect();
    if chunks.len() > LISTED {
        s.push("…".into());
    }
    s.join(", ")
}

/// Smallest / largest principal moment of `inertia` (kg·m²), 0 when the
/// principal axes cannot be computed.
fn moment_ratio(inertia: glam::Mat3) -> f64 {
    match smithereens_core::mass::principal_axes(inertia) {
        Ok(a) if a.moments.max_element() > 0.0 => {
            a.moments.min_element() as f64 / a.moments.max_element() as f64
        }
        _ => 0.0,
    }
}

/// Wraps `text` at spaces into lines of at most `width` characters (longer
/// words stay whole), each prefixed by `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

/// Problems an asset may have, found from the asset alone (one line each,
/// deterministic order). Empty when there are none.
pub fn warnings(file: &AssetFile, asset: &Asset) -> Vec<String> {
    let chunks = asset.chunks();
    let n = chunks.len();
    let mut out = Vec::new();
    // Chunk–chunk and world bond counts per chunk.
    let mut degree = vec![0u32; n];
    let mut world = vec![false; n];
    for b in asset.bonds().iter() {
        let a = b.chunk0.get() as usize;
        match b.chunk1 {
            Some(c) => {
                degree[a] += 1;
                degree[c.get() as usize] += 1;
            }
            None => world[a] = true,
        }
    }
    let bonds_off = file.provenance.contains("bonds=Off");
    // Only support-level chunks are simulated (every chunk of a flat asset).
    let simulated = chunks.iter().filter(|c| c.support_level).count();
    let loose: Vec<usize> = chunks
        .iter()
        .enumerate()
        .filter(|(i, c)| c.support_level && degree[*i] == 0 && !world[*i] && !c.support)
        .map(|(i, _)| i)
        .collect();
    if !loose.is_empty() {
        out.push(format!(
            "{} of {simulated} chunks have no bonds and are not supports: each falls as a separate piece (chunks {}{})",
            loose.len(),
            list(&loose),
            if bonds_off { "; fractured with bonds off" } else { "" }
        ));
    }
    let health: Vec<f32> = asset.bonds().iter().map(|b| b.strength).collect();
    let islands = smithereens_core::island::find_islands(asset, &health);
    if islands.len() > 1 {
        out.push(format!(
            "the bond graph has {} connected components: one object falls apart into {} pieces before any damage",
            islands.len(),
            islands.len()
        ));
    }
    let supports = chunks.iter().filter(|c| c.support).count();
    if supports == 0 {
        out.push("no support chunks: the whole object is dynamic and will fall".into());
    } else {
        let unsupported = islands.iter().filter(|i| !i.supported).count();
        if unsupported > 0 {
            out.push(format!(
                "{unsupported} connected component(s) are not supported and will fall at once"
            ));
        }
    }
    let thin: Vec<usize> = chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| c.support_level && moment_ratio(c.inertia) < THIN_CHUNK_RATIO)
        .map(|(i, _)| i)
        .collect();
    if !thin.is_empty() {
        out.push(format!(
            "{} thin chunk(s) (smallest/largest principal moment < {}): chunks {}",
            sig(THIN_CHUNK_RATIO),
            thin.len(),
            list(&thin)
        ));
    }
    let mut volumes: Vec<f64> = chunks
        .iter()
        .filter(|c| c.support_level)
        .map(|c| c.volume as f64)
        .collect();
    volumes.sort_by(f64::total_cmp);
    if let Some(&median) = volumes.get(volumes.len() / 2) {
        let tiny: Vec<usize> = chunks
            .iter()
            .enumerate()
            .filter(|(_, c)| c.support_level && (c.volume as f64) < TINY_CHUNK_FRACTION * median)
            .map(|(i, _)| i)
            .collect();
        if !tiny.is_empty() {
            out.push(format!(
                "{} tiny chunk(s) (volume < {} × median {} m³): chunks {}",
                tiny.len(),
                sig(TINY_CHUNK_FRACTION),
                sig(median),
                list(&tiny)
            ));
        }
    }
    let mut strengths: Vec<f64> = asset
        .bonds()
        .iter()
        .map(|b| f64::from(b.strength))
        .collect();
    strengths.sort_by(f64::total_cmp);
    if let Some(&median) = strengths.get(strengths.len() / 2) {
        let weak: Vec<usize> = asset
            .bonds()
            .iter()
            .enumerate()
            .filter(|(_, b)| f64::from(b.strength) < WEAK_BOND_FRACTION * median)
            .map(|(i, _)| i)
            .collect();
        if !weak.is_empty() {
            out.push(format!(
                "{} very weak bond(s) (strength < {} × median {} du; they break at the lightest touch): bonds {}",
                weak.len(),
                sig(WEAK_BOND_FRACTION),
                sig(median),
                list(&weak)
            ));
        }
    }
    if let Some((merged, dropped, lost)) = recorded_slivers(&file.provenance)
        && (merged > 0 || dropped > 0)
    {
        out.push(format!(
            "fracture merged {merged} sliver(s) into a neighbour and dropped {dropped} ({} m³ lost)",
            sig(lost)
        ));
    }
    out
}

/// A human-readable description of an asset file: a two-column table of
/// counts, volume, mass and bond statistics, the provenance wrapped below it,
/// and the [`warnings`] ("Warnings: none" when there are none).
pub fn inspect(file: &AssetFile, asset: &Asset) -> String {
    let chunks = asset.chunks();
    // Volumes and masses over the simulated (support-level) chunks: a
    // hierarchy's other levels describe the same matter again.
    let simulated = || chunks.iter().filter(|c| c.support_level);
    let volume: f64 = simulated().map(|c| c.volume as f64).sum();
    let mass: f64 = simulated().map(|c| c.mass as f64).sum();
    let supports = chunks.iter().filter(|c| c.support).count();
    let world_bonds = asset.bonds().iter().filter(|b| b.chunk1.is_none()).count();
    let mut strengths: Vec<f64> = asset.bonds().iter().map(|b| b.strength as f64).collect();
    let mut areas: Vec<f64> = asset.bonds().iter().map(|b| b.area as f64).collect();
    let mut volumes: Vec<f64> = simulated().map(|c| c.volume as f64).collect();
    let area_sum: f64 = areas.iter().sum();
    let (tri_ext, tri_int) = file.meshes.iter().fold((0, 0), |(e, i), m| {
        (e + m.exterior.len(), i + m.interior.len())
    });
    let islands = smithereens_core::island::find_islands(
        asset,
        &asset.bonds().iter().map(|b| b.strength).collect::<Vec<_>>(),
    );
    let depths = chunks.iter().map(|c| c.depth).max().unwrap_or(0) + 1;
    let mut rows: Vec<(&str, String)> = vec![
        ("name", file.name.clone()),
        ("chunks", chunks.len().to_string()),
        ("support chunks", supports.to_string()),
        ("bonds", asset.bond_count().to_string()),
        ("world bonds", world_bonds.to_string()),
        ("connected components", islands.len().to_string()),
        ("total volume", format!("{} m³", sig(volume))),
        (
            "volume error vs source",
            match source_volume(&file.provenance) {
                Some(v) if v > 0.0 => format!("{} (relative)", signed((volume - v) / v)),
                _ => "unknown (no source volume in provenance)".into(),
            },
        ),
        (
            "chunk volume min/median/max",
            spread(&mut volumes, |v| sig(v).to_string()) + " m³",
        ),
        ("total mass", format!("{} kg", sig(mass))),
        ("bond area (sum)", format!("{} m²", sig(area_sum))),
        (
            "bond area min/median/max",
            spread(&mut areas, |v| sig(v).to_string()) + " m²",
        ),
        (
            "bond strength min/median/max",
            spread(&mut strengths, |v| sig(v).to_string()) + " du",
        ),
        (
            "render triangles (ext/int)",
            format!("{tri_ext} / {tri_int}"),
        ),
        ("triangles with a short edge", short_edges(file)),
    ];
    rows.extend(hull_rows(asset));
    if depths > 1 {
        let per_depth: Vec<String> = (0..depths)
            .map(|d| chunks.iter().filter(|c| c.depth == d).count().to_string())
            .collect();
        rows.insert(
            2,
            (
                "hierarchy",
                format!(
                    "{depths} levels ({} chunks), support depth {}",
                    per_depth.join(" + "),
                    asset
                        .support_depth()
                        .map_or("= leaves".to_string(), |d| d.to_string())
                ),
            ),
        );
        rows.insert(3, ("simulated chunks", simulated().count().to_string()));
    }
    let mut out = table(&rows);
    out.push_str("provenance:\n");
    out.push_str(&wrap(&readable_units(&file.provenance), 76, "  "));
    let warnings = warnings(file, asset);
    if warnings.is_empty() {
        out.push_str("Warnings: none\n");
    } else {
        out.push_str("Warnings:\n");
        for w in &warnings {
            out.push_str(&wrap(w, 74, "    ").replacen("    ", "  - ", 1));
        }
    }
    out
}

/// Hull rows of [`inspect`]: hull count (and how many chunks have several),
/// hulls per chunk, and the ratio of the volume the hulls enclose (summed
/// over a chunk's hulls) to the chunk's volume, with the chunk of the
/// largest ratio. A ratio well above 1 means the hulls fill space the
/// material does not (a concavity); below 1 would mean they miss material.
fn hull_rows(asset: &Asset) -> Vec<(&'static str, String)> {
    let chunks = asset.chunks();
    let total: usize = chunks.iter().map(|c| c.hulls.len()).sum();
    let several = chunks.iter().filter(|c| c.hulls.len() > 1).count();
    let mut per_chunk: Vec<f64> = chunks.iter().map(|c| c.hulls.len() as f64).collect();
    let ratios: Vec<(usize, f64)> = chunks
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.hulls.is_empty() && c.volume > 0.0)
        .filter_map(|(i, c)| {
            let enclosed: Option<f64> = c
                .hulls
                .iter()
                .map(|h| smithereens_authoring::hull_volume(&h.points))
                .sum();
            Some((i, enclosed? / c.volume as f64))
        })
        .collect();
    let mut sorted: Vec<f64> = ratios.iter().map(|r| r.1).collect();
    let worst = ratios
        .iter()
        .fold(None, |w: Option<(usize, f64)>, &(i, r)| match w {
            Some((_, best)) if best >= r => w,
            _ => Some((i, r)),
        });
    vec![
        (
            "hulls (chunks with several)",
            format!("{total} ({several})"),
        ),
        (
            "hulls per chunk min/median/max",
            spread(&mut per_chunk, |v| format!("{v:.0}")),
        ),
        (
            "hull/volume ratio min/median/max",
            spread(&mut sorted, |v| format!("{v:.3}"))
                + &worst.map_or(String::new(), |(i, _)| format!(" (max: chunk {i})")),
        ),
    ]
}

/// Render-mesh triangles with an edge shorter than
/// [`MIN_EDGE_FRACTION`] × the diagonal of all chunk meshes' bounds (what
/// an importer welding at that tolerance collapses), and the shortest edge
/// (m). `fracture` removes them unless given `--no-collapse-short-edges`
/// (README, "No near-degenerate render meshes").
fn short_edges(file: &AssetFile) -> String {
    let points = || file.meshes.iter().flat_map(|m| m.positions.iter());
    let (lo, hi) = points().fold(
        (
            glam::Vec3::splat(f32::INFINITY),
            glam::Vec3::splat(f32::NEG_INFINITY),
        ),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    if !(lo.is_finite() && hi.is_finite()) {
        return "no render meshes".into();
    }
    let tolerance = MIN_EDGE_FRACTION * f64::from((hi - lo).length());
    let (mut short, mut shortest) = (0usize, f64::INFINITY);
    for m in &file.meshes {
        for t in m.exterior.iter().chain(&m.interior) {
            let [Some(a), Some(b), Some(c)] = t.map(|i| m.positions.get(i as usize)) else {
                continue;
            };
            let edge = f64::from(a.distance(*b).min(b.distance(*c)).min(c.distance(*a)));
            shortest = shortest.min(edge);
            short += usize::from(edge < tolerance);
        }
    }
    format!(
        "{short} (< {} m = 1e-5 × diagonal); shortest {} m",
        sig(tolerance),
        sig(shortest)
    )
}

/// The sliver part of a [`FractureReport`]: totals and the volume balance,
/// then up to five of the events ("… and N more").
pub fn sliver_summary(report: &FractureReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "slivers: {} merged into a neighbour, {} dropped ({} m³ lost); {} raw pieces -> {} chunks",
        report.merged,
        report.dropped,
        sig(report.dropped_volume),
        report.raw_pieces,
        report.chunks
    );
    let _ = writeln!(
        out,
        "volume: chunks − mesh = {} m³ ({} relative)",
        signed(report.volume_error),
        signed(report.relative_volume_error())
    );
    if report.site_steps > 0 || report.recarves > 0 {
        let _ = writeln!(
            out,
            "sites: {} general-position step(s); {} re-carve(s) of near-degenerate cells",
            report.site_steps, report.recarves
        );
    }
    const SHOWN: usize = 5;
    for e in report.slivers.iter().take(SHOWN) {
        let reason = match &e.reason {
            SliverReason::BelowVolumeFloor => "below the volume floor".to_string(),
            SliverReason::ThinInertia { ratio } => format!("thin (moment ratio {})", sig(*ratio)),
            SliverReason::Hull { reason } => format!("hull failed ({reason})"),
            other => format!("{other:?}"),
        };
        let action = match e.action {
            SliverAction::Merged { chunk } => format!("merged into chunk {chunk}"),
            SliverAction::MergedIntoDropped => "merged into a neighbour that was dropped".into(),
            SliverAction::Dropped => "dropped".into(),
            other => format!("{other:?}"),
        };
        let c = e.centroid;
        let _ = writeln!(
            out,
            "  piece {} (cell {}): {} m³ at {} m, {reason} -> {action}",
            e.piece,
            e.cell,
            sig(e.volume),
            sig(c)
        );
    }
    if report.slivers.len() > SHOWN {
        let _ = writeln!(out, "  … and {} more", report.slivers.len() - SHOWN);
    }
    out
}

#[cfg(test)]
mod source_volume_tests {
    use super::source_volume;

    #[test]
    fn the_source_volume_is_read_from_the_source_mesh_clause_only() {
        let p = "x; source mesh: 8 vertices, 12 triangles, volume 1.0 m3; slivers: 0 merged; \
                 input repaired: surface volume 9.0 changed";
        assert_eq!(source_volume(p), Some(1.0));
        assert_eq!(source_volume("volume 2.0 m3 but no source clause"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliver_counts_are_read_back_from_the_provenance_suffix() {
        let p = "smithereens-authoring 0.1.0 fracture_voronoi: chunk_count=8 seed=1; \
                 source mesh: 8 vertices, 12 triangles, volume 1.0 m3; \
                 slivers: 2 merged into a neighbour, 1 dropped (3.5e-10 m3 dropped)";
        assert_eq!(recorded_slivers(p), Some((2, 1, 3.5e-10)));
        // Assets written since issue 16 say m³.
        assert_eq!(
            recorded_slivers(&p.replace("m3", "m³")),
            Some((2, 1, 3.5e-10))
        );
        assert_eq!(source_volume(&p.replace("m3", "m³")), Some(1.0));
        assert_eq!(recorded_slivers("hand-made asset"), None);
        // The source volume is still found before the sliver suffix.
        assert_eq!(source_volume(p), Some(1.0));
    }

    #[test]
    fn the_provenance_reads_with_unicode_units_and_plain_numbers() {
        let p = "density=2400.0 kg/m3 seed=1 volume 1.0 m3; slivers: 0 merged into a \
                 neighbour, 0 dropped (0e0 m3 dropped) and (3.5e-10 m3 dropped) 1.25e3";
        assert_eq!(
            readable_units(p),
            "density=2400.0 kg/m³ seed=1 volume 1.0 m³; slivers: 0 merged into a \
             neighbour, 0 dropped (0 m³ dropped) and (3.5e-10 m³ dropped) 1250"
        );
    }

    #[test]
    fn wrapped_lines_stay_within_the_width_and_keep_every_word() {
        let text = "a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh";
        let wrapped = wrap(text, 12, "  ");
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 14),
            "{wrapped}"
        );
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words.join(" "), text);
    }

    #[test]
    fn a_name_of_any_length_or_with_control_characters_is_shown_cut_and_escaped() {
        // Found by a bad-input sweep: a 65,536-character asset name was a
        // format-width panic in `inspect`.
        for name in ["x".repeat(65_536), "日".repeat(70_000)] {
            let t = table(&[("name", name), ("chunks", "8".into())]);
            let widest = t.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            assert!(widest <= MAX_CELL + 20, "{widest}");
            assert!(t.contains('…'));
        }
        let t = table(&[("name", "a\x1b[2Jb\n".into())]);
        assert!(t.contains("a\\u{1b}[2Jb\\n"), "{t}");
        assert_eq!(t.lines().count(), 3);
    }
}
