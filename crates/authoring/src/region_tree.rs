//! Shared starting pieces for carving Voronoi cells: an axis-aligned k-d
//! split of the mesh into capped regions, so a cell is carved from the
//! smallest region that holds it instead of from the whole mesh.
//!
//! Carving a cell from the whole mesh spends its first cuts on the whole
//! surface and caps whole cross-sections, most of which the next cuts throw
//! away. Here the mesh is first split in halves, quarters, … along the
//! longest axis of each region, at the median of the sites inside it; each
//! half is clipped and capped once, for every cell it holds. A cell whose
//! convex Voronoi cell (built from the sites alone, [`VoronoiCell`], within
//! the mesh's box) lies inside one region with a margin of
//! [`REGION_MARGIN_FRACTION`] × the diagonal is carved from that region's
//! piece: the region contains the cell, so `region ∩ cell = mesh ∩ cell`,
//! and the region's own caps lie outside the cell and are cut away. Only
//! the triangulation differs (surface triangles the region split are fanned
//! where carving the whole mesh would have left them whole). A cell's
//! result still holding a region cap (which the margin rules out) is carved
//! again from the whole mesh.

use crate::clip::{Clip, ClipSettings, clip_piece};
use crate::piece::{Piece, Plane};
use crate::voronoi_cell::VoronoiCell;
use glam::DVec3;

/// Face tag of the caps of region splits: never a site index, and never
/// left in a carved cell.
pub(crate) const REGION_CAP: u32 = u32::MAX - 1;

/// Gap (× the mesh's box diagonal) kept between a cell's box and the split
/// planes of the region it is carved from.
pub(crate) const REGION_MARGIN_FRACTION: f64 = 1e-3;

/// A region is split only while its piece has more triangles than this.
const SPLIT_ABOVE_TRIANGLES: usize = 1_500;

/// A region is split only while it holds more sites than this.
const SPLIT_ABOVE_SITES: usize = 8;

/// Most split levels (up to 2⁸ leaf regions).
const MAX_DEPTH: u32 = 8;

#[derive(Debug)]
struct Region {
    piece: Piece,
    lo: DVec3,
    hi: DVec3,
    /// Axis, plane position (m) and the two child regions (below, above).
    split: Option<(usize, f64, u32, u32)>,
}

/// The regions, root first.
#[derive(Debug)]
pub(crate) struct RegionTree {
    regions: Vec<Region>,
    margin: f64,
}

impl RegionTree {
    /// Splits `base` (a closed piece; its box is the root region) for the
    /// cells of `sites`, cutting with `clip`. A split whose cap cannot be
    /// made leaves that region whole.
    pub fn build(base: &Piece, sites: &[DVec3], clip: &ClipSettings) -> Self {
        let (lo, hi) = bounds(&base.positions);
        let margin = REGION_MARGIN_FRACTION * (hi - lo).length();
        let mut regions = vec![Region {
            piece: base.clone(),
            lo,
            hi,
            split: None,
        }];
        // Site indices of each region still to look at, with its depth.
        let mut todo: Vec<(u32, Vec<u32>, u32)> = vec![(0, (0..sites.len() as u32).collect(), 0)];
        while let Some((r, members, depth)) = todo.pop() {
            let region = &regions[r as usize];
            if depth >= MAX_DEPTH
                || members.len() <= SPLIT_ABOVE_SITES
                || region.piece.triangles.len() <= SPLIT_ABOVE_TRIANGLES
            {
                continue;
            }
            let extent = region.hi - region.lo;
            let axis = if extent.x >= extent.y && extent.x >= extent.z {
                0
            } else if extent.y >= extent.z {
                1
            } else {
                2
            };
            let mut coords: Vec<f64> = members.iter().map(|&i| sites[i as usize][axis]).collect();
            let mid = coords.len() / 2;
            coords.select_nth_unstable_by(mid, f64::total_cmp);
            let at = coords[mid];
            if !(at > region.lo[axis] + margin && at < region.hi[axis] - margin) {
                continue;
            }
            let mut normal = DVec3::ZERO;
            normal[axis] = 1.0;
            let mut point = region.lo;
            point[axis] = at;
            let below_plane = Plane { point, normal };
            let above_plane = Plane {
                point,
                normal: -normal,
            };
            let side = |plane: &Plane| match clip_piece(&region.piece, plane, REGION_CAP, clip) {
                Ok(Clip::Cut(p)) => Some(p),
                _ => None,
            };
            let (Some(below), Some(above)) = (side(&below_plane), side(&above_plane)) else {
                continue;
            };
            let (mut below_hi, mut above_lo) = (region.hi, region.lo);
            below_hi[axis] = at;
            above_lo[axis] = at;
            let (region_lo, region_hi) = (region.lo, region.hi);
            let first = regions.len() as u32;
            regions[r as usize].split = Some((axis, at, first, first + 1));
            regions.push(Region {
                piece: below,
                lo: region_lo,
                hi: below_hi,
                split: None,
            });
            regions.push(Region {
                piece: above,
                lo: above_lo,
                hi: region_hi,
                split: None,
            });
            let (lower, upper): (Vec<u32>, Vec<u32>) =
                members.iter().partition(|&&i| sites[i as usize][axis] < at);
            todo.push((first, lower, depth + 1));
            todo.push((first + 1, upper, depth + 1));
        }
        Self { regions, margin }
    }

    /// One region, the whole of `base`: every cell is carved from it.
    pub fn whole(base: &Piece) -> Self {
        let (lo, hi) = bounds(&base.positions);
        Self {
            regions: vec![Region {
                piece: base.clone(),
                lo,
                hi,
                split: None,
            }],
            margin: REGION_MARGIN_FRACTION * (hi - lo).length(),
        }
    }

    /// The whole mesh.
    pub fn root(&self) -> &Piece {
        &self.regions[0].piece
    }

    /// The piece of the smallest region holding the box `lo`..`hi` with the
    /// margin.
    pub fn start(&self, lo: DVec3, hi: DVec3) -> &Piece {
        let mut r = 0;
        while let Some((axis, at, below, above)) = self.regions[r].split {
            r = if hi[axis] < at - self.margin {
                below as usize
            } else if lo[axis] > at + self.margin {
                above as usize
            } else {
                break;
            };
        }
        &self.regions[r].piece
    }

    /// The box of the root region (the mesh's bounds), m.
    pub fn bounds(&self) -> (DVec3, DVec3) {
        (self.regions[0].lo, self.regions[0].hi)
    }

    /// Number of regions (1 when nothing was split).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.regions.len()
    }
}

/// The box of the convex Voronoi cell of `sites[i]` within `lo`..`hi`
/// (`None` if the cell is empty there).
pub(crate) fn cell_bounds(
    cell: &mut VoronoiCell,
    lo: DVec3,
    hi: DVec3,
    sites: &[DVec3],
    i: usize,
) -> Option<(DVec3, DVec3)> {
    cell.reset(lo, hi);
    cell.clip_by_neighbours(sites, i, 0.0, |_| {});
    if cell.is_empty() {
        return None;
    }
    let points: Vec<DVec3> = cell.vertices().map(|(p, _)| p).collect();
    Some(bounds(&points))
}

fn bounds(points: &[DVec3]) -> (DVec3, DVec3) {
    points.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mass_properties::polyhedron_mass_properties;
    use crate::mesh::box_mesh;
    use crate::voronoi::carve_cell;

    const EXACT: ClipSettings = ClipSettings {
        eps: 1e-12,
        weld: 1e-9,
        order: crate::cap::CapOrder::Outline,
    };

    fn spot() -> Piece {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/meshes/spot.obj");
        Piece::from_mesh(&crate::load_mesh(std::path::Path::new(path)).unwrap())
    }

    /// Seeded sites in the mesh's box (a simple LCG: no test dependency).
    fn sites(piece: &Piece, count: usize) -> Vec<DVec3> {
        let (lo, hi) = bounds(&piece.positions);
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..count)
            .map(|_| lo + (hi - lo) * DVec3::new(next(), next(), next()))
            .collect()
    }

    #[test]
    fn a_small_mesh_is_not_split_and_every_cell_starts_from_it() {
        let base = Piece::from_mesh(&box_mesh(DVec3::ZERO, DVec3::ONE).unwrap());
        let sites = sites(&base, 40);
        let tree = RegionTree::build(&base, &sites, &EXACT);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree.start(DVec3::splat(0.4), DVec3::splat(0.6)), &base);
    }

    #[test]
    fn cells_carved_from_regions_have_the_volume_and_cap_areas_of_cells_carved_from_the_whole_mesh()
    {
        let base = spot();
        let sites = sites(&base, 150);
        let tree = RegionTree::build(&base, &sites, &EXACT);
        // 5,856 triangles, 150 sites: split down to regions of at most
        // 1,500 triangles or 8 sites.
        assert!(tree.len() >= 7, "{} regions", tree.len());
        let (lo, hi) = tree.bounds();
        let diagonal = (hi - lo).length();
        let mut scratch = VoronoiCell::default();
        let mut from_regions = 0;
        for cell in 0..sites.len() {
            let start = match cell_bounds(&mut scratch, lo, hi, &sites, cell) {
                Some((a, b)) => tree.start(a, b),
                None => tree.root(),
            };
            let whole = carve_cell(tree.root(), &sites, cell, &EXACT).unwrap();
            let region = carve_cell(start, &sites, cell, &EXACT).unwrap();
            if std::ptr::eq(start, tree.root()) {
                assert_eq!(whole, region);
                continue;
            }
            from_regions += 1;
            assert!(!region.tags.contains(&REGION_CAP), "cell {cell}");
            assert_eq!(whole.cap_tags(), region.cap_tags(), "cell {cell}");
            let volume = |p: &Piece| polyhedron_mass_properties(&p.positions, &p.triangles, 1.0);
            let (a, b) = (volume(&whole), volume(&region));
            assert!(
                (a.volume - b.volume).abs() <= 1e-9 * diagonal.powi(3),
                "cell {cell}: {} vs {}",
                a.volume,
                b.volume
            );
            assert!((a.centroid - b.centroid).length() <= 1e-9 * diagonal);
            for tag in whole.cap_tags() {
                let (x, y) = (whole.tagged_area(tag).0, region.tagged_area(tag).0);
                assert!(
                    (x - y).abs() <= 1e-9 * diagonal * diagonal,
                    "cell {cell} cap {tag}"
                );
            }
        }
        // Most cells lie inside a leaf or an inner region.
        assert!(
            from_regions * 2 > sites.len(),
            "{from_regions} of {}",
            sites.len()
        );
    }
}
