//! Plain-text reports: the run summary table and the asset inspection.

use smithereens_core::{Asset, AssetFile};
use smithereens_rapier::scenario::RunSummary;
use std::fmt::Write;

/// The run summary as an aligned two-column table.
pub fn summary_table(s: &RunSummary) -> String {
    let rows: Vec<(&str, String)> = vec![
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
        ("lowest chunk point", format!("{:.3} m", s.lowest_chunk_y)),
        ("final state hash", format!("{:016x}", s.final_hash)),
    ];
    table(&rows)
}

fn table(rows: &[(&str, String)]) -> String {
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
    for (k, val) in rows {
        let _ = writeln!(out, "| {k:<w$} | {val:>v$} |");
    }
    out.push_str(&line);
    out
}

/// The source mesh volume (m³) that the authoring tool records at the end
/// of the provenance (`"... volume <v> m3"`), if present.
fn source_volume(provenance: &str) -> Option<f64> {
    let at = provenance.rfind("volume ")?;
    provenance[at + 7..].split_whitespace().next()?.parse().ok()
}

/// A human-readable description of an asset file.
pub fn inspect(file: &AssetFile, asset: &Asset) -> String {
    let chunks = asset.chunks();
    let volume: f64 = chunks.iter().map(|c| c.volume as f64).sum();
    let mass: f64 = chunks.iter().map(|c| c.mass as f64).sum();
    let supports = chunks.iter().filter(|c| c.support).count();
    let world_bonds = asset.bonds().iter().filter(|b| b.chunk1.is_none()).count();
    let mut strengths: Vec<f32> = asset.bonds().iter().map(|b| b.strength).collect();
    strengths.sort_by(f32::total_cmp);
    let areas: f64 = asset.bonds().iter().map(|b| b.area as f64).sum();
    let (tri_ext, tri_int) = file.meshes.iter().fold((0, 0), |(e, i), m| {
        (e + m.exterior.len(), i + m.interior.len())
    });
    let islands = smithereens_core::island::find_islands(
        asset,
        &asset.bonds().iter().map(|b| b.strength).collect::<Vec<_>>(),
    );
    let pct = |q: f64| {
        strengths
            .get(((strengths.len().saturating_sub(1)) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    let rows: Vec<(&str, String)> = vec![
        ("name", file.name.clone()),
        ("provenance", file.provenance.clone()),
        ("chunks", chunks.len().to_string()),
        ("support chunks", supports.to_string()),
        ("bonds", asset.bond_count().to_string()),
        ("world bonds", world_bonds.to_string()),
        ("connected components", islands.len().to_string()),
        ("total volume", format!("{volume:.6} m³")),
        (
            "volume error vs source",
            match source_volume(&file.provenance) {
                Some(v) if v > 0.0 => format!("{:.2e} (relative)", (volume - v).abs() / v),
                _ => "unknown (no source volume in provenance)".into(),
            },
        ),
        ("total mass", format!("{mass:.3} kg")),
        ("bond area (sum)", format!("{areas:.4} m²")),
        (
            "bond strength min/median/max",
            format!("{:.1} / {:.1} / {:.1} du", pct(0.0), pct(0.5), pct(1.0)),
        ),
        (
            "render triangles (ext/int)",
            format!("{tri_ext} / {tri_int}"),
        ),
    ];
    let mut out = table(&rows);
    let unsupported = islands.iter().filter(|i| !i.supported).count();
    if supports == 0 {
        out.push_str("warning: no support chunks: the whole asset will fall\n");
    }
    if unsupported > 0 {
        let _ = writeln!(
            out,
            "warning: {unsupported} component(s) are not supported and will fall at once"
        );
    }
    out
}
