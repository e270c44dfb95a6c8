//! What fracture did besides producing the asset: the sliver events and the
//! volume balance, returned by [`fracture_with_report`](crate::fracture_with_report).

use glam::DVec3;
use smithereens_core::ChunkIndex;

/// Why a raw piece (one connected component of one cell) was treated as a
/// sliver. Checked in this order.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SliverReason {
    /// Its volume is below [`SLIVER_VOLUME_FRACTION`](crate::SLIVER_VOLUME_FRACTION)
    /// of the mesh volume.
    BelowVolumeFloor,
    /// Its smallest principal moment of inertia is below
    /// [`SLIVER_INERTIA_RATIO`](crate::SLIVER_INERTIA_RATIO) of its largest
    /// (a needle or a sheet), or not positive.
    ThinInertia {
        /// Smallest / largest principal moment (unitless); 0 when the
        /// principal moments could not be computed or are not positive.
        ratio: f64,
    },
    /// Its convex hull could not be built or encloses no volume (flat).
    Hull {
        /// The hull builder's message.
        reason: String,
    },
}

/// What happened to a sliver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SliverAction {
    /// Merged into the neighbour with the largest shared interface area,
    /// which ended up as final chunk `chunk` (index into
    /// `AssetDesc::chunks`). Its volume is kept.
    Merged {
        /// The final chunk that holds it.
        chunk: ChunkIndex,
    },
    /// Merged into a neighbour that was itself dropped later; its volume is
    /// counted in that later [`SliverAction::Dropped`] event.
    MergedIntoDropped,
    /// Removed with its bonds (below the volume floor, or degenerate with no
    /// bonded neighbour). Its volume is lost.
    Dropped,
}

/// One sliver handled during assembly, in the order they were handled.
#[derive(Clone, Debug, PartialEq)]
pub struct SliverEvent {
    /// Index of the raw piece (the lowest index of the group, when earlier
    /// merges made it a group of several pieces). Raw pieces are numbered in
    /// cell order, one per connected component of a cell.
    pub piece: u32,
    /// The cell it came from: the Voronoi site index, or the plane-cut
    /// pattern's cell index.
    pub cell: u32,
    /// Number of raw pieces in the group (1 unless earlier merges grew it).
    pub pieces: u32,
    /// Volume, m³.
    pub volume: f64,
    /// Centroid, m, mesh space.
    pub centroid: DVec3,
    /// Why it is a sliver.
    pub reason: SliverReason,
    /// What was done with it.
    pub action: SliverAction,
}

/// Summary of one fracture: how the raw pieces became chunks, and the
/// volume balance.
///
/// Invariants: `merged` counts the events with action `Merged` or
/// `MergedIntoDropped`, `dropped` those with `Dropped`, and
/// `dropped_volume` is the sum of the dropped events' volumes (the same
/// numbers as the asset provenance's `slivers:` part).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FractureReport {
    /// Raw pieces before sliver handling (connected components of the
    /// cells, numerical dust already removed).
    pub raw_pieces: u32,
    /// Chunks in the asset.
    pub chunks: u32,
    /// Sliver events in the order they were handled.
    pub slivers: Vec<SliverEvent>,
    /// Merged chunks whose render mesh could not be made the one closed
    /// surface of the union (rims of the former interfaces that do not meet
    /// within the weld distance, or lie off the interface plane, as rough
    /// cut-noise caps can): the chunk and the reason. Such a chunk keeps
    /// its members' closed surfaces side by side, which encloses the right
    /// volume but touches itself along the former interface. Empty for
    /// every fracture in the test suite.
    pub unjoined: Vec<(ChunkIndex, String)>,
    /// Slivers merged into a neighbour.
    pub merged: u32,
    /// Slivers dropped.
    pub dropped: u32,
    /// Total volume of the dropped slivers, m³.
    pub dropped_volume: f64,
    /// Volume of the source mesh, m³.
    pub mesh_volume: f64,
    /// Sum of the chunk volumes as stored in the asset (f32, summed in
    /// f64), m³.
    pub chunk_volume: f64,
    /// `chunk_volume − mesh_volume`, m³ (negative when volume was lost).
    pub volume_error: f64,
    /// Explicit Voronoi sites merged into an earlier site because they lay
    /// within [`COINCIDENT_SITE_FRACTION`](crate::COINCIDENT_SITE_FRACTION)
    /// × the bounding-box diagonal of it (0 for other patterns).
    pub merged_sites: u32,
    /// Explicit Voronoi sites outside the mesh's bounding box, kept (0 for
    /// other patterns).
    pub sites_outside_bounds: u32,
    /// Steps taken to put Voronoi sites in general position (with
    /// [`FractureSettings::collapse_short_edges`](crate::FractureSettings::collapse_short_edges)):
    /// each moves one site by 32 × the shortest edge
    /// ([`MIN_EDGE_FRACTION`](crate::MIN_EDGE_FRACTION) × the diagonal plus
    /// 4 f32 units in the last place of the largest coordinate; about
    /// 3.2e-4 of the diagonal for a mesh near the origin), where five or
    /// more sites lay nearly on one sphere (0 for other patterns).
    /// Explicit sites are stepped only where they are nearly but not
    /// exactly degenerate (off the sphere by more than the clipper's
    /// snapping distance): an exact lattice or ring is kept as given.
    pub site_steps: u32,
    /// Near-degenerate Voronoi vertices still flagged when the steps gave
    /// up (16 rounds; counted once per cell that sees one, so up to four
    /// times per vertex): short edges may remain there. 0 when sites are
    /// in general position.
    pub degenerate_left: u32,
    /// Times the cells were carved again because a carved piece was
    /// near-degenerate (a short edge or thin triangle the collapse could
    /// not remove, a cap tilted off its plane, a cut whose two sides
    /// differ, or a dropped sliver with a bond): the failing cells' sites
    /// are moved by one general-position step each time, at most 4 times,
    /// keeping the carve with the fewest failing cells
    /// (`degenerate_output.rs`). 0 without the collapse.
    pub recarves: u32,
    /// Cells failing that check in the carve kept (0 when the output is
    /// free of those defects).
    pub failing_left: u32,
    /// Sites stepped by the re-carves (one step each per re-carve).
    pub recarve_steps: u32,
    /// Whether explicit sites were moved (by general-position steps or
    /// re-carves): they were nearly but not exactly degenerate. Reported
    /// as a warning.
    pub explicit_sites_moved: bool,
    /// Interfaces given a rough patch by
    /// [`FractureSettings::cut_noise`](crate::FractureSettings::cut_noise)
    /// (0 without).
    pub rough_interfaces: u32,
    /// Of those, the interfaces that reach the amplitude nowhere: every
    /// displaced vertex lies closer than twice the amplitude to another
    /// face of its chunks, so the noise is scaled down to half that
    /// distance everywhere on them (chunks too small for the amplitude).
    pub limited_rough_interfaces: u32,
}

impl FractureReport {
    /// Human-readable warnings about the input the caller should see (one
    /// line each, no trailing period), e.g. merged explicit sites. Empty
    /// when there is nothing to warn about.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.merged_sites > 0 {
            out.push(format!(
                "{} Voronoi site(s) merged into an earlier site closer than {:e} × the mesh's \
                 bounding-box diagonal",
                self.merged_sites,
                crate::COINCIDENT_SITE_FRACTION
            ));
        }
        if self.sites_outside_bounds > 0 {
            out.push(format!(
                "{} Voronoi site(s) lie outside the mesh's bounding box (kept; their cells \
                 may be empty)",
                self.sites_outside_bounds
            ));
        }
        // Over three quarters: a Spot cut into 20 chunks with an amplitude of
        // 2 % of its size has half its interfaces limited everywhere (thin
        // chunks near its legs and ears), which is the noise working as
        // documented, not a setting to change.
        if 4 * self.limited_rough_interfaces > 3 * self.rough_interfaces {
            out.push(format!(
                "cut noise reaches its amplitude nowhere on {} of {} rough interfaces (every \
                 point lies closer than twice the amplitude to another face): the amplitude is \
                 large for these chunks, their surfaces are flatter than asked",
                self.limited_rough_interfaces, self.rough_interfaces
            ));
        }
        if self.degenerate_left > 0 {
            out.push(format!(
                "{} near-degenerate Voronoi vertex flag(s) left after {} site steps (sites \
                 packed tighter than the step); short edges may remain there",
                self.degenerate_left, self.site_steps
            ));
        }
        if self.explicit_sites_moved {
            out.push(format!(
                "explicit Voronoi sites were moved out of nearly degenerate configurations \
                 ({} general-position step(s) and {} re-carve step(s), each 32 × the shortest \
                 edge); exactly degenerate ones (a lattice, a ring) are kept as given",
                self.site_steps, self.recarve_steps
            ));
        }
        if self.failing_left > 0 {
            out.push(failing_cells_warning(self.failing_left, self.recarves));
        }
        out
    }

    /// `volume_error / mesh_volume` (unitless), or 0 for a zero-volume mesh.
    pub fn relative_volume_error(&self) -> f64 {
        if self.mesh_volume > 0.0 {
            self.volume_error / self.mesh_volume
        } else {
            0.0
        }
    }
}

/// What [`fracture_hierarchy_with_report`](crate::fracture_hierarchy_with_report)
/// did beyond the asset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HierarchyReport {
    /// Level-0 pieces kept whole as their own single child because they
    /// could not be refined (not a valid mesh on their own, no room for
    /// their sites, a cut that could not be capped).
    pub unrefined: u32,
    /// Why the first of those failed (empty if none).
    pub first_failure: String,
    /// Re-carves of near-degenerate cells, level 0 and every refinement
    /// summed ([`FractureReport::recarves`](crate::FractureReport::recarves)).
    pub recarves: u32,
    /// Cells still failing the check of carved pieces, both levels summed
    /// ([`FractureReport::failing_left`](crate::FractureReport::failing_left)).
    pub failing_left: u32,
}

impl HierarchyReport {
    /// Human-readable warnings (empty when nothing needs attention).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.unrefined > 0 {
            out.push(format!(
                "{} level-0 piece(s) could not be refined and stay whole (first: {})",
                self.unrefined, self.first_failure
            ));
        }
        if self.failing_left > 0 {
            out.push(failing_cells_warning(self.failing_left, self.recarves));
        }
        out
    }
}

/// The warning for `failing` cells still near-degenerate after `recarves`
/// re-carves (`degenerate_output.rs`), for both reports.
fn failing_cells_warning(failing: u32, recarves: u32) -> String {
    format!(
        "{failing} cell(s) hold a near-degenerate piece after {recarves} re-carve(s) (a short \
         edge, a thin triangle, a tilted cap, a cut whose sides differ or a dropped sliver with \
         a bond)"
    )
}
