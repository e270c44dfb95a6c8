//! Multilevel preconditioner for the stress solve: aggregation of nodes
//! into rigid groups, level by level, with block smoothing and a dense
//! Cholesky solve on the coarsest level.
//!
//! The coarse space of an aggregate is its rigid motion (translation and
//! rotation about the aggregate's mean centroid), the near-null space of
//! elasticity that aggregation multigrid for elasticity uses (Vaněk,
//! Mandel & Brezina, "Algebraic multigrid by smoothed aggregation for
//! second and fourth order elliptic problems", Computing 56, 1996; here
//! unsmoothed). A rigid motion of a group moves a bond face exactly as a
//! rigid motion of one node does, so the coarse operator `Pᵀ K P` is
//! assembled exactly: the finest level keeps the bond springs (its product
//! is `stiffness_product`, in single precision for the smoothing; but see
//! the assembled finest level below);
//! every coarser level is an assembled block
//! matrix with one 6×6 block per pair of coupled aggregates (bonds inside
//! an aggregate drop out, parallel bonds between two aggregates merge), so
//! a coarse level costs a few block products per node, not one per bond.
//!
//! One application is a K-cycle (Y. Notay and P. S. Vassilevski,
//! "Recursive Krylov-based multigrid cycles", Numer. Linear Algebra Appl.
//! 15, 2008; Y. Notay, "An aggregation-based algebraic multigrid method",
//! Electron. Trans. Numer. Anal. 37, 2010). On the finest level: one sweep
//! of `ω D⁻¹` (block Jacobi, `D` the 6×6 node blocks; ω = 0.95 for the
//! sweep before the coarse correction, which starts from zero, and 0.78
//! for the one after), so a cycle costs two bond-spring products there
//! (the first sweep needs none). On the assembled levels: one forward
//! block Gauss–Seidel sweep before (from zero, so it reads only each
//! node's earlier neighbours, and the product after it reads only the
//! later ones) and one backward sweep after. The correction a level receives
//! from the next is two steps of flexible conjugate gradient on that next
//! level's system, each preconditioned by one cycle there: the pair of
//! steps is weighted by the energy inner product, which replaces the plain
//! W-cycle and the over-correction factor unsmoothed aggregation needed
//! before (whose iteration counts doubled with each doubling of a wall's
//! side). The cycle is therefore not a fixed linear operator, and the
//! solver's outer conjugate gradient is the flexible one (Polak–Ribière
//! `β`).
//!
//! The cycle runs in single precision: the finest level's smoothing
//! (`multilevel/jacobi.rs`) and every assembled level's sweeps, products
//! and K-cycle steps, with 4-lane vectors and every sum in a fixed order.
//! Double precision stays where it decides the answer: the blocks are
//! assembled in it (and build the next level), the dense coarsest factor
//! and its solves use it, and so do the solver's own product near ε and
//! the residual every answer is checked with. A structure small enough to
//! be solved directly has its whole preconditioner, that dense solve, in
//! double precision.
//!
//! A system whose bonds join few pairs of nodes (at least
//! `PARALLEL_BONDS` (3) bonds per coupled pair over the whole system: a
//! reduced solve's super-nodes, each joined to its neighbours by about a
//! dozen chunk bonds; also a chunk asset whose faces are split into
//! several bonds each, with the same results up to rounding)
//! is assembled as it is (one aggregate per node, so level 1 is the system
//! itself in 6×6 blocks, one per coupled pair): the cycle starts on that
//! level (Gauss–Seidel sweeps, then the K-cycle below), and the solver's
//! own product is the block product (`Multilevel::product`), a few block
//! products per node instead of a dozen bond products.

use crate::stress::solver::{LocalBond, NONE};
use glam::{DMat3, DVec3, Mat3A, Vec3A, Vec3Swizzles};

mod build;
mod jacobi;
pub(crate) use build::Piece as HierarchyPiece;
mod rebuild;
mod update;

/// Jacobi sweeps on the finest level before and after the coarse correction.
/// One, not two: a second sweep costs two more bond-spring products per
/// cycle and saved too few iterations to pay for them (cold solves, same
/// machine, 2 → 1: tower 4×4×8 299 → 276 µs, 9 → 11 iterations; bridge
/// 30×10×2 8.6 → 6.7 ms, 39 → 44; 48×24×2 wall after a break 16.3 →
/// 13.2 ms, 29 → 32; `examples/stress_work.rs`).
const SWEEPS: usize = 1;
/// Block-Jacobi damping ω of the finest level's sweep before the coarse
/// correction, which starts from `z = 0` (so it only scales `D⁻¹ r`), and
/// of the sweep after it. 0.95 and 0.78 rather than the classical 2/3 for
/// both: with the solve stopping at its first iterate within ε, the tower
/// 4×4×8 from rest takes 7 iterations instead of 8 (residual 4.5e-4), the
/// bridge 30×10×2 21 instead of 23, the 48×24×2 wall after a break 12
/// instead of 14, and every other benchmark case as many or fewer
/// (`examples/stress_work.rs`). Of the pairs tried, (0.78, 0.78) left the
/// tower at 6.4e-4 after 7; (0.9, 0.9) and (1.0, 0.8) cost the bridge one
/// or two iterations; one ω of 1.0 for both takes the bridge to 46.
const OMEGA_PRE: f64 = 0.95;
const OMEGA_POST: f64 = 0.78;
/// A level with at most this many free nodes is solved densely.
const COARSEST: usize = 16;
/// Most levels (including the finest).
const MAX_LEVELS: usize = 12;
/// Bonds per coupled pair of nodes from which the finest level is
/// assembled into 6×6 blocks (one per pair) and cycled on as an assembled
/// level, its product a block product: a reduced system's super-nodes are
/// joined by about a dozen parallel bonds each (100×50×2 wall: 8,572 bonds
/// between 360 super-nodes), where the benchmark chunk systems have one
/// bond per pair.
const PARALLEL_BONDS: usize = 3;

/// A symmetric 6×6 block `[[uu, ut], [tu, tt]]` acting on (translation,
/// rotation), stored column by column: column `j < 3` is `uu`'s column `j`
/// over `tu`'s, column `j ≥ 3` is `ut`'s column `j − 3` over `tt`'s. A
/// product then runs on whole columns, six lanes at a time, with each
/// lane's sum in the order of the 3×3 products it stands for
/// (`(uu u + ut t, tu u + tt t)`, each `M v` as `(m₀ v₀ + m₁ v₁) + m₂ v₂`),
/// so it is bit for bit the product of the four 3×3 blocks.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct Block {
    c: [[f64; 6]; 6],
}

impl Block {
    const ZERO: Self = Self { c: [[0.0; 6]; 6] };

    fn from_parts(uu: DMat3, ut: DMat3, tu: DMat3, tt: DMat3) -> Self {
        let mut c = [[0.0; 6]; 6];
        for j in 0..3 {
            let (a, b, d, e) = (uu.col(j), tu.col(j), ut.col(j), tt.col(j));
            c[j] = [a.x, a.y, a.z, b.x, b.y, b.z];
            c[j + 3] = [d.x, d.y, d.z, e.x, e.y, e.z];
        }
        Self { c }
    }

    /// `(uu, ut, tu, tt)`.
    fn parts(&self) -> (DMat3, DMat3, DMat3, DMat3) {
        let col = |j: usize, lo: usize| {
            let v = &self.c[j];
            DVec3::new(v[lo], v[lo + 1], v[lo + 2])
        };
        let mat =
            |j0: usize, lo: usize| DMat3::from_cols(col(j0, lo), col(j0 + 1, lo), col(j0 + 2, lo));
        (mat(0, 0), mat(3, 0), mat(0, 3), mat(3, 3))
    }

    /// `y = B x` over the six lanes `(u, t)`.
    #[inline]
    fn mul6(&self, x: [f64; 6]) -> [f64; 6] {
        let c = &self.c;
        let mut y = [0.0; 6];
        for i in 0..6 {
            y[i] = ((c[0][i] * x[0] + c[1][i] * x[1]) + c[2][i] * x[2])
                + ((c[3][i] * x[3] + c[4][i] * x[4]) + c[5][i] * x[5]);
        }
        y
    }

    /// `y = Bᵀ x`.
    #[inline]
    fn mul6_transposed(&self, x: [f64; 6]) -> [f64; 6] {
        let c = &self.c;
        let mut y = [0.0; 6];
        for (r, col) in c.iter().enumerate() {
            y[r] = ((col[0] * x[0] + col[1] * x[1]) + col[2] * x[2])
                + ((col[3] * x[3] + col[4] * x[4]) + col[5] * x[5]);
        }
        y
    }

    #[cfg(test)]
    fn mul(&self, u: DVec3, t: DVec3) -> (DVec3, DVec3) {
        let y = self.mul6(lanes(u, t));
        (DVec3::new(y[0], y[1], y[2]), DVec3::new(y[3], y[4], y[5]))
    }

    #[inline]
    fn add(&mut self, o: &Self) {
        for (a, b) in self.c.iter_mut().zip(&o.c) {
            for i in 0..6 {
                a[i] += b[i];
            }
        }
    }

    /// `self += oᵀ`.
    #[inline(always)]
    fn add_transposed(&mut self, o: &Self) {
        for (j, a) in self.c.iter_mut().enumerate() {
            for (i, x) in a.iter_mut().enumerate() {
                *x += o.c[i][j];
            }
        }
    }

    /// [`Block::add_galerkin`] into a zero block.
    #[cfg(test)]
    fn galerkin(&self, di: DVec3, dj: DVec3) -> Self {
        let mut out = Self::ZERO;
        out.add_galerkin(self, di, dj);
        out
    }

    /// `self += Tᵢᵀ A Tⱼ` with `T = [[E, −Xᵢ], [0, E]]`, `X = [d]×` (a node at
    /// offset `d` from its aggregate's centre moves by `U + Θ × d`).
    ///
    /// Taken as `(uu, ut − uu Xⱼ, Xᵢ uu + tu, (Xᵢ ut + tt) − tu′ Xⱼ)` with
    /// `tu′` the new `tu`, on the offsets `dᵢ`, `dⱼ` themselves: `X M`
    /// column by column is `d × m` and `M X` is the columns' combinations
    /// below, each sum in the order of the 3×3 product with `[d]×` that
    /// it stands for (its zero terms, which add nothing, left out), so
    /// the entries are those of the product of the 3×3 matrices
    /// (`Block::galerkin_of_matrices`, compared in the tests) at about
    /// half the arithmetic. Each entry is added once formed, as
    /// [`Block::add`] adds a whole block.
    #[inline]
    fn add_galerkin(&mut self, a: &Self, di: DVec3, dj: DVec3) {
        let s = &a.c;
        let top = |j: usize| DVec3::new(s[j][0], s[j][1], s[j][2]);
        let low = |j: usize| DVec3::new(s[j][3], s[j][4], s[j][5]);
        // `[d]× v` as the product's sum: row r of `[d]×` times v.
        #[inline(always)]
        fn cross(d: DVec3, v: DVec3) -> DVec3 {
            DVec3::new(
                -d.z * v.y + d.y * v.z,
                d.z * v.x + -d.x * v.z,
                -d.y * v.x + d.x * v.y,
            )
        }
        #[inline(always)]
        fn add(col: &mut [f64; 6], u: DVec3, t: DVec3) {
            for (x, v) in col.iter_mut().zip([u.x, u.y, u.z, t.x, t.y, t.z]) {
                *x += v;
            }
        }
        let (uu0, uu1, uu2) = (top(0), top(1), top(2));
        let tu0 = cross(di, uu0) + low(0);
        let tu1 = cross(di, uu1) + low(1);
        let tu2 = cross(di, uu2) + low(2);
        let c = &mut self.c;
        add(&mut c[0], uu0, tu0);
        add(&mut c[1], uu1, tu1);
        add(&mut c[2], uu2, tu2);
        // The columns of `uu [dⱼ]×` and `tu′ [dⱼ]×`.
        let (x, y, z) = (dj.x, dj.y, dj.z);
        let uu_x = [uu1 * z + uu2 * -y, uu0 * -z + uu2 * x, uu0 * y + uu1 * -x];
        let tu_x = [tu1 * z + tu2 * -y, tu0 * -z + tu2 * x, tu0 * y + tu1 * -x];
        for j in 0..3 {
            let ut = top(j + 3);
            let e = (cross(di, ut) + low(j + 3)) - tu_x[j];
            add(&mut c[j + 3], ut - uu_x[j], e);
        }
    }

    /// [`Block::galerkin`] as products of 3×3 matrices, `Xᵢ = [dᵢ]×`.
    #[cfg(test)]
    fn galerkin_of_matrices(&self, di: DVec3, dj: DVec3) -> Self {
        let (xi, xj) = (skew(di), skew(dj));
        let (uu, ut, tu0, tt) = self.parts();
        let tu = xi * uu + tu0;
        Self::from_parts(uu, ut - uu * xj, tu, xi * ut + tt - tu * xj)
    }

    /// The inverse of a symmetric positive definite block (by its Schur
    /// complement); zero when the block is singular (a node without bonds).
    fn inverse(&self) -> Self {
        let (uu, ut, tu, tt) = self.parts();
        let ia = uu.inverse();
        let s = tt - tu * ia * ut;
        let is = s.inverse();
        if !(ia.is_finite() && is.is_finite()) || uu.determinant() <= 0.0 {
            return Self::ZERO;
        }
        let ia_b = ia * ut;
        let off = -(ia_b * is);
        Self::from_parts(ia + ia_b * is * ia_b.transpose(), off, off.transpose(), is)
    }

    /// Entry `(r, c)` of the 6×6 matrix.
    fn at(&self, r: usize, c: usize) -> f64 {
        self.c[c][r]
    }
}

/// A 6×6 block `[[uu, ut], [tu, tt]]` in single precision, for the
/// smoothing: each 3×3 product `(m₀ v₀ + m₁ v₁) + m₂ v₂` lane by lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Block32([Mat3A; 4]);

impl Block32 {
    fn of(b: &Block) -> Self {
        let (uu, ut, tu, tt) = b.parts();
        Self([uu, ut, tu, tt].map(|m| m.as_mat3()).map(Mat3A::from))
    }

    #[inline]
    fn mul(&self, u: Vec3A, t: Vec3A) -> (Vec3A, Vec3A) {
        let [uu, ut, tu, tt] = &self.0;
        (*uu * u + *ut * t, *tu * u + *tt * t)
    }
}

/// `Σ (a_u·b_u + a_t·b_t)` over single-precision vectors: each node's
/// products summed `(x₀y₀ + x₁y₁) + x₂y₂` in single precision, the nodes
/// in order in double precision.
fn dot6_32(a_u: &[Vec3A], a_t: &[Vec3A], b_u: &[Vec3A], b_t: &[Vec3A]) -> f64 {
    let mut s = 0.0f64;
    for k in 0..a_u.len() {
        s += f64::from(dot32(a_u[k], b_u[k]) + dot32(a_t[k], b_t[k]));
    }
    s
}

/// `a · b` as `(a₀b₀ + a₁b₁) + a₂b₂`, in that order on every target.
#[inline]
pub(crate) fn dot32(a: Vec3A, b: Vec3A) -> f32 {
    let p = a * b;
    (p.x + p.y) + p.z
}

/// `a × b` lane by lane (`a.yzx b.zxy − a.zxy b.yzx`), never fused:
/// glam's may fuse a multiply and a subtract on some targets, and the
/// bits must not depend on the target.
#[inline]
pub(crate) fn cross32(a: Vec3A, b: Vec3A) -> Vec3A {
    a.yzx() * b.zxy() - a.zxy() * b.yzx()
}

/// `y ← (L Lᵀ)⁻¹ y` for the `m × m` factor `l` and its transpose `lt`
/// (row-major): column-oriented substitutions, each step subtracting a
/// multiple of one column from the rest (contiguous, lane by lane, no
/// dependent sum): forward by `L`'s columns (rows of `Lᵀ`), backward by
/// `Lᵀ`'s columns (rows of `L`).
fn dense_solve(l: &[f64], lt: &[f64], m: usize, y: &mut [f64]) {
    for j in 0..m {
        let yj = y[j] / lt[j * m + j];
        y[j] = yj;
        for (yi, &lij) in y[j + 1..m].iter_mut().zip(&lt[j * m + j + 1..j * m + m]) {
            *yi -= lij * yj;
        }
    }
    for j in (0..m).rev() {
        let xj = y[j] / l[j * m + j];
        y[j] = xj;
        for (xi, &lji) in y[..j].iter_mut().zip(&l[j * m..j * m + j]) {
            *xi -= lji * xj;
        }
    }
}

/// `(u, t)` as six lanes.
#[inline]
fn lanes(u: DVec3, t: DVec3) -> [f64; 6] {
    [u.x, u.y, u.z, t.x, t.y, t.z]
}

/// `[r]×`, the cross product with `r` as a matrix (the tests' reference
/// forms; `Block::add_galerkin` works on `r` itself).
#[cfg(test)]
fn skew(r: DVec3) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(0.0, r.z, -r.y),
        DVec3::new(-r.z, 0.0, r.x),
        DVec3::new(r.y, -r.x, 0.0),
    )
}

fn spring(k_perp: f64, k_axis: f64, n: DVec3) -> DMat3 {
    DMat3::from_diagonal(DVec3::splat(k_perp))
        + (k_axis - k_perp) * DMat3::from_cols(n * n.x, n * n.y, n * n.z)
}

/// `X k` with `X = [r]×`: column `j` is `r × k_j`.
#[inline]
fn arm_times(r: DVec3, k: DMat3) -> DMat3 {
    DMat3::from_cols(r.cross(k.x_axis), r.cross(k.y_axis), r.cross(k.z_axis))
}

/// The element blocks of one bond between ends `e` and `f` (arms `r_e`,
/// `r_f`, signs `s_a = −1`, `s_b = +1`): with `G = s [E, −X]` and
/// `H = s [0, E]` the bond adds `G_eᵀ K G_f + H_eᵀ K_r H_f`, that is, with
/// `P = X k` (so `k X = −Pᵀ`, `k` and `k_r` symmetric, `X` skew),
/// `s_e s_f [[k, P_fᵀ], [P_e, k_r + X_e P_fᵀ]]`. `pe`, `pf` are `P_e`, `P_f`.
#[inline]
fn element(k: DMat3, kr: DMat3, re: DVec3, pe: DMat3, pf: DMat3, s: f64) -> Block {
    let pft = pf.transpose();
    let tt = kr + arm_times(re, pft);
    Block::from_parts(s * k, s * pft, s * pe, s * tt)
}

/// The blocks one bond adds at its ends `a`, `b` (arms `r_a`, `r_b`): the
/// diagonal ones `(aa, bb)` and the coupling `ab` (`ba` is its transpose).
#[inline(always)]
fn bond_blocks(k: DMat3, kr: DMat3, ra: DVec3, rb: DVec3) -> (Block, Block, Block) {
    let (pa, pb) = (arm_times(ra, k), arm_times(rb, k));
    (
        element(k, kr, ra, pa, pa, 1.0),
        element(k, kr, rb, pb, pb, 1.0),
        element(k, kr, ra, pa, pb, -1.0),
    )
}

/// The diagonal block a bond adds at an end with arm `r`.
#[inline]
fn end_block(k: DMat3, kr: DMat3, r: DVec3) -> Block {
    let p = arm_times(r, k);
    element(k, kr, r, p, p, 1.0)
}

/// `a · b` with four running sums (one sum is a chain of dependent
/// additions, which is what bounds the dense factor), added in a fixed
/// order at the end.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut s = [0.0f64; 4];
    let (ac, bc) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for k in 0..4 {
            s[k] += x[k] * y[k];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ar.iter().zip(br) {
        tail += x * y;
    }
    ((s[0] + s[1]) + (s[2] + s[3])) + tail
}

/// The finest level: the solve's own bond list.
#[derive(Clone, Debug, Default)]
struct Fine {
    centroid: Vec<DVec3>,
    fixed: Vec<bool>,
    bonds: Vec<LocalBond>,
    /// Inverse 6×6 diagonal block per node (zero for fixed nodes), in
    /// double precision: build scratch for the smoothing's single-precision
    /// copy.
    inv: Vec<Block>,
    /// The smoothing, in single precision: the bonds, the bonds whose ends
    /// lie in different level-1 aggregates (or one end fixed; the only
    /// ones a rigid motion of the aggregates deforms), the inverse blocks
    /// and the vectors `r`, `z`, `t = K z`, `P e`, `K P e`.
    jacobi: jacobi::Jacobi,
    /// Node → aggregate of level 1 (`NONE` for fixed nodes).
    coarse_of: Vec<u32>,
    adj_offsets: Vec<u32>,
    adj: Vec<u32>,
    /// The prolonged coarse correction `P e`.
    e_u: Vec<DVec3>,
    e_t: Vec<DVec3>,
}

/// An assembled level: free nodes only, block CSR (both triangles).
#[derive(Clone, Debug, Default)]
struct Coarse {
    centroid: Vec<DVec3>,
    diag: Vec<Block>,
    inv: Vec<Block>,
    /// Neighbours per node (CSR: in each row those before the node, then
    /// those past it) and their blocks.
    row: Vec<u32>,
    col: Vec<u32>,
    off: Vec<Block>,
    /// The same rows in the order the assembly met the neighbours, which
    /// is the order the aggregation reads (a straggler joins the first
    /// neighbouring aggregate it meets; when rows were first split, the
    /// bridge took 24 iterations from rest with this order and 27 with
    /// ascending rows).
    met: Vec<u32>,
    /// Per node, the first of its neighbours past it (`row[i]..upper[i]`
    /// are the ones before it).
    upper: Vec<u32>,
    /// Node → aggregate of the next level.
    coarse_of: Vec<u32>,
    /// Member nodes of each node's aggregate on the previous level (CSR).
    member_offsets: Vec<u32>,
    members: Vec<u32>,
    /// The blocks in single precision, for the cycle (smoothing and the
    /// K-cycle's products run in single precision; the blocks above build
    /// the next level and, on an assembled finest level, the solver's own
    /// product).
    diag32: Vec<Block32>,
    inv32: Vec<Block32>,
    off32: Vec<Block32>,
    /// The cycle's vectors (single precision).
    r_u: Vec<Vec3A>,
    r_t: Vec<Vec3A>,
    z_u: Vec<Vec3A>,
    z_t: Vec<Vec3A>,
    t_u: Vec<Vec3A>,
    t_t: Vec<Vec3A>,
    /// K-cycle scratch: the first step's direction `c₁`, its product
    /// `A c₁` and the level's own right-hand side.
    w_u: Vec<Vec3A>,
    w_t: Vec<Vec3A>,
    v_u: Vec<Vec3A>,
    v_t: Vec<Vec3A>,
    s_u: Vec<Vec3A>,
    s_t: Vec<Vec3A>,
}

/// Whether `a` and `b` hold the same vectors bit for bit: one pass that
/// ORs the components' differing bits, with no early exit, which the
/// compiler vectorises (comparing component by component with an early
/// exit took 30 instructions a vector; the inputs are equal almost always).
pub(crate) fn same_vectors(a: &[DVec3], b: &[DVec3]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).fold(0u64, |acc, (x, y)| {
            acc | (x.x.to_bits() ^ y.x.to_bits())
                | (x.y.to_bits() ^ y.y.to_bits())
                | (x.z.to_bits() ^ y.z.to_bits())
        }) == 0
}

/// Empties `v` with room for `n` entries, without moving its old storage:
/// a vector then filled over a build's parts (see Parts in
/// `multilevel/build.rs`) or a reduction's steps never grows inside one.
/// (Grown inside a part, the fine bonds' copy on the refined 100 × 50 × 2
/// wall moved and faulted megabytes: one part of 841 bonds took 1.5 ms,
/// one of a reduction's bond parts 1.2 ms.)
pub(crate) fn clear_for<T>(v: &mut Vec<T>, n: usize) {
    v.clear();
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
    }
}

/// Each vector `len` zeros (storage kept).
pub(crate) fn resize<T: Clone + Default, const N: usize>(len: usize, vs: [&mut Vec<T>; N]) {
    for v in vs {
        v.clear();
        v.resize(len, T::default());
    }
}

/// Greedy aggregation over a node adjacency (seed + its free neighbours,
/// then stragglers join a neighbouring aggregate); fills `coarse_of`
/// (`NONE` for fixed nodes) and returns the aggregate count.
fn aggregate(
    len: usize,
    fixed: impl Fn(usize) -> bool,
    neighbours: impl Fn(usize) -> std::ops::Range<usize>,
    adj: &[u32],
    coarse_of: &mut Vec<u32>,
) -> usize {
    coarse_of.clear();
    coarse_of.resize(len, NONE);
    let mut count = 0u32;
    aggregate_seeds(0..len, &fixed, &neighbours, adj, coarse_of, &mut count);
    aggregate_stragglers(0..len, &fixed, &neighbours, adj, coarse_of, &mut count);
    count as usize
}

/// [`aggregate`]'s first pass over the nodes `nodes` (after those before
/// them; `coarse_of` starts all `NONE`): a node whose free neighbours are
/// all unaggregated seeds an aggregate of itself and them.
fn aggregate_seeds(
    nodes: std::ops::Range<usize>,
    fixed: impl Fn(usize) -> bool,
    neighbours: impl Fn(usize) -> std::ops::Range<usize>,
    adj: &[u32],
    coarse_of: &mut [u32],
    count: &mut u32,
) {
    for i in nodes {
        if fixed(i) || coarse_of[i] != NONE {
            continue;
        }
        let lone = adj[neighbours(i)]
            .iter()
            .all(|&j| fixed(j as usize) || coarse_of[j as usize] == NONE);
        if lone {
            coarse_of[i] = *count;
            for &j in &adj[neighbours(i)] {
                if !fixed(j as usize) {
                    coarse_of[j as usize] = *count;
                }
            }
            *count += 1;
        }
    }
}

/// [`aggregate`]'s second pass over the nodes `nodes` (after those
/// before them, and the whole first pass): a free node left joins the
/// first aggregated neighbour's aggregate, or makes one of its own.
fn aggregate_stragglers(
    nodes: std::ops::Range<usize>,
    fixed: impl Fn(usize) -> bool,
    neighbours: impl Fn(usize) -> std::ops::Range<usize>,
    adj: &[u32],
    coarse_of: &mut [u32],
    count: &mut u32,
) {
    for i in nodes {
        if fixed(i) || coarse_of[i] != NONE {
            continue;
        }
        let made = *count;
        let joined = adj[neighbours(i)]
            .iter()
            .map(|&j| coarse_of[j as usize])
            .find(|&c| c != NONE && c < made);
        coarse_of[i] = joined.unwrap_or_else(|| {
            *count += 1;
            *count - 1
        });
    }
}

impl Fine {
    fn len(&self) -> usize {
        self.fixed.len()
    }

    /// The inverse diagonal blocks (for the Jacobi smoothing; an assembled
    /// fine level smooths on its blocks instead), in three passes (the
    /// build's inverses piece, `multilevel/build.rs`): this start, every
    /// block zero, here for the nodes `nodes` after those before them (a
    /// build in parts zeroes them part by part: at once, the 8,000 blocks
    /// of the refined 100 × 50 × 2 wall took 0.5–0.7 ms; the first part
    /// makes room for every node, so that no part moves the blocks: grown
    /// part by part, a part of round 2's first build took 1.0–1.3 ms);
    /// [`Self::sum_inverses`]; [`Self::invert`].
    fn clear_inverses_of(&mut self, nodes: std::ops::Range<usize>) {
        if nodes.start == 0 {
            let len = self.len();
            clear_for(&mut self.inv, len);
        }
        self.inv
            .extend(std::iter::repeat_n(Block::ZERO, nodes.len()));
    }

    /// The inverse blocks' second pass: the sum of the diagonal blocks, over the
    /// bonds `bonds` (in order: the ranges of a build in parts follow one
    /// another, so the sums are those of one pass).
    fn sum_inverses(&mut self, bonds: std::ops::Range<usize>) {
        for lb in &self.bonds[bonds] {
            let k = spring(lb.ks, lb.kn, lb.normal);
            let kr = spring(lb.kb, lb.kt, lb.normal);
            for (node, r) in [(lb.a as usize, lb.ra), (lb.b as usize, lb.rb)] {
                if !self.fixed[node] {
                    self.inv[node].add(&end_block(k, kr, r));
                }
            }
        }
    }

    /// The inverse blocks' last pass: the inversion of the summed blocks of
    /// the nodes `nodes`.
    fn invert(&mut self, nodes: std::ops::Range<usize>) {
        for i in nodes {
            if !self.fixed[i] {
                self.inv[i] = self.inv[i].inverse();
            }
        }
    }

    /// The node adjacency, in four passes (the build's first piece,
    /// `multilevel/build.rs`): this start; [`Self::count_adjacency`] over
    /// the bonds; [`Self::sum_adjacency`]; [`Self::fill_adjacency`] over
    /// the bonds.
    fn start_adjacency(&mut self) {
        let len = self.len();
        self.adj_offsets.clear();
        self.adj_offsets.resize(len + 1, 0);
    }

    /// Counts the neighbours the bonds `bonds` give their ends.
    fn count_adjacency(&mut self, bonds: std::ops::Range<usize>) {
        for lb in &self.bonds[bonds] {
            self.adj_offsets[lb.a as usize + 1] += 1;
            self.adj_offsets[lb.b as usize + 1] += 1;
        }
    }

    /// The counts summed into offsets, and the fill cursors.
    fn sum_adjacency(&mut self) {
        let len = self.len();
        for i in 0..len {
            self.adj_offsets[i + 1] += self.adj_offsets[i];
        }
        self.adj.clear();
        self.adj.resize(self.adj_offsets[len] as usize, 0);
        // coarse_of doubles as the fill cursor; aggregation resets it.
        self.coarse_of.clear();
        self.coarse_of.extend_from_slice(&self.adj_offsets[..len]);
    }

    /// Writes the neighbours the bonds `bonds` give their ends (after
    /// those before them).
    fn fill_adjacency(&mut self, bonds: std::ops::Range<usize>) {
        for lb in &self.bonds[bonds] {
            for (from, to) in [(lb.a, lb.b), (lb.b, lb.a)] {
                let slot = &mut self.coarse_of[from as usize];
                self.adj[*slot as usize] = to;
                *slot += 1;
            }
        }
    }

    /// Counts into `pairs` the distinct pairs of nodes joined by bonds
    /// that the nodes `nodes` form with the nodes past them (`marker`:
    /// scratch, every entry `NONE` before the first node).
    fn count_pairs(&self, nodes: std::ops::Range<usize>, marker: &mut [u32], pairs: &mut usize) {
        for i in nodes {
            let (lo, hi) = (
                self.adj_offsets[i] as usize,
                self.adj_offsets[i + 1] as usize,
            );
            for &j in &self.adj[lo..hi] {
                if (j as usize) > i && marker[j as usize] != i as u32 {
                    marker[j as usize] = i as u32;
                    *pairs += 1;
                }
            }
        }
    }

    /// One aggregate per free node (level 1 is this level assembled).
    fn identity_aggregates(&mut self) -> usize {
        self.coarse_of.clear();
        let mut count = 0u32;
        for &f in &self.fixed {
            self.coarse_of.push(if f {
                NONE
            } else {
                count += 1;
                count - 1
            });
        }
        count as usize
    }

    fn free_count(&self) -> usize {
        self.fixed.iter().filter(|&&f| !f).count()
    }

    /// [`aggregate`]'s start: no node aggregated.
    fn start_aggregates(&mut self) {
        let len = self.len();
        self.coarse_of.clear();
        self.coarse_of.resize(len, NONE);
    }

    /// [`aggregate_seeds`] (`second`: [`aggregate_stragglers`]) over the
    /// nodes `nodes`.
    fn aggregate_part(&mut self, nodes: std::ops::Range<usize>, second: bool, count: &mut u32) {
        let (fixed, offsets) = (&self.fixed, &self.adj_offsets);
        let fixed = |i: usize| fixed[i];
        let neighbours = |i: usize| offsets[i] as usize..offsets[i + 1] as usize;
        if second {
            aggregate_stragglers(
                nodes,
                fixed,
                neighbours,
                &self.adj,
                &mut self.coarse_of,
                count,
            );
        } else {
            aggregate_seeds(
                nodes,
                fixed,
                neighbours,
                &self.adj,
                &mut self.coarse_of,
                count,
            );
        }
    }

    /// Keeps the bonds between different aggregates (after aggregation)
    /// for the smoothing's correction product: those of `bonds`, after
    /// those before them (the smoothing's start keeps none).
    fn add_inter(&mut self, bonds: std::ops::Range<usize>) {
        let of = &self.coarse_of;
        self.jacobi.add_inter(self.bonds[bonds].iter().filter(|lb| {
            let (a, b) = (of[lb.a as usize], of[lb.b as usize]);
            a == NONE || a != b
        }));
    }
}

impl Coarse {
    fn len(&self) -> usize {
        self.diag.len()
    }

    fn neighbours(&self, i: usize) -> std::ops::Range<usize> {
        self.row[i] as usize..self.row[i + 1] as usize
    }

    fn aggregate(&mut self) -> usize {
        let row = &self.row;
        aggregate(
            self.len(),
            |_| false,
            |i| row[i] as usize..row[i + 1] as usize,
            &self.met,
            &mut self.coarse_of,
        )
    }

    /// Member lists of `count` aggregates from `coarse_of` (of the level
    /// below, `len` nodes, `NONE` skipped) and the aggregate centres.
    fn set_members(&mut self, coarse_of: &[u32], centroid: &[DVec3], count: usize) {
        self.member_offsets.clear();
        self.member_offsets.resize(count + 1, 0);
        for &c in coarse_of {
            if c != NONE {
                self.member_offsets[c as usize + 1] += 1;
            }
        }
        for c in 0..count {
            self.member_offsets[c + 1] += self.member_offsets[c];
        }
        self.members.clear();
        self.members.resize(self.member_offsets[count] as usize, 0);
        // `row` doubles as the fill cursor here; assembly resets it.
        self.row.clear();
        self.row.extend_from_slice(&self.member_offsets[..count]);
        self.centroid.clear();
        self.centroid.resize(count, DVec3::ZERO);
        for (i, &c) in coarse_of.iter().enumerate() {
            if c != NONE {
                let slot = &mut self.row[c as usize];
                self.members[*slot as usize] = i as u32;
                *slot += 1;
                self.centroid[c as usize] += centroid[i];
            }
        }
        for c in 0..count {
            let m = self.member_offsets[c + 1] - self.member_offsets[c];
            self.centroid[c] /= f64::from(m);
        }
    }

    /// Row `i`'s neighbours `col[start..]`, pushed in the order met: kept
    /// in that order in `met`, and in `col` those before `i` first, then
    /// those past it (each part in the order met).
    fn split_row(&mut self, start: usize, i: usize) {
        debug_assert!(self.col[start..].iter().all(|&j| j as usize != i));
        self.met.extend_from_slice(&self.col[start..]);
        let met = &self.met[start..];
        let lower = met.iter().filter(|&&j| (j as usize) < i);
        let upper = met.iter().filter(|&&j| (j as usize) > i);
        for (slot, &j) in self.col[start..].iter_mut().zip(lower.chain(upper)) {
            *slot = j;
        }
    }

    /// Diagonal inverses and the vectors, once the blocks are assembled.
    fn finish(&mut self) {
        self.start_finish();
        self.finish_blocks(0..self.len());
        self.finish_off(0..self.off.len());
        self.finish_pattern();
    }

    /// [`Self::finish`]'s start: no inverse or single-precision block yet.
    fn start_finish(&mut self) {
        self.inv.clear();
        self.diag32.clear();
        self.inv32.clear();
        self.off32.clear();
    }

    /// [`Self::finish`] of the diagonal blocks `rows` (after those before
    /// them): their inverses and single-precision copies.
    fn finish_blocks(&mut self, rows: std::ops::Range<usize>) {
        let diag = &self.diag[rows];
        self.inv.extend(diag.iter().map(Block::inverse));
        self.diag32.extend(diag.iter().map(Block32::of));
        let at = self.inv.len() - diag.len();
        self.inv32.extend(self.inv[at..].iter().map(Block32::of));
    }

    /// [`Self::finish`] of the off-diagonal blocks `slots` (after those
    /// before them): their single-precision copies.
    fn finish_off(&mut self, slots: std::ops::Range<usize>) {
        self.off32.extend(self.off[slots].iter().map(Block32::of));
    }

    /// The split of each row and the vectors, once the pattern is made.
    fn finish_pattern(&mut self) {
        let len = self.len();
        self.upper.clear();
        for i in 0..len {
            let range = self.neighbours(i);
            let lo = range.start;
            let before = self.col[range].partition_point(|&j| (j as usize) < i);
            self.upper.push((lo + before) as u32);
        }
        resize(
            len,
            [
                &mut self.r_u,
                &mut self.r_t,
                &mut self.z_u,
                &mut self.z_t,
                &mut self.t_u,
                &mut self.t_t,
            ],
        );
    }

    /// One Gauss–Seidel step at node `i` for `A z = r`.
    #[inline]
    fn relax(&mut self, i: usize) {
        let own = self.diag32[i].mul(self.z_u[i], self.z_t[i]);
        let (su, st) = self.add_neighbours(self.neighbours(i), own);
        let (du, dt) = self.inv32[i].mul(self.r_u[i] - su, self.r_t[i] - st);
        self.z_u[i] += du;
        self.z_t[i] += dt;
    }

    /// A forward Gauss–Seidel sweep from `z = 0` (a node's later
    /// neighbours are still zero, so only the earlier ones are read), then
    /// `t = A z` with each row's earlier part taken from the sweep: one
    /// block product for both.
    fn sweep_from_zero(&mut self) {
        for i in 0..self.len() {
            let earlier = self.row[i] as usize..self.upper[i] as usize;
            let (su, st) = self.add_neighbours(earlier, (Vec3A::ZERO, Vec3A::ZERO));
            let (du, dt) = self.inv32[i].mul(self.r_u[i] - su, self.r_t[i] - st);
            self.z_u[i] = du;
            self.z_t[i] = dt;
            self.t_u[i] = su;
            self.t_t[i] = st;
        }
        for i in 0..self.len() {
            let (u, t) = self.diag32[i].mul(self.z_u[i], self.z_t[i]);
            let own = (u + self.t_u[i], t + self.t_t[i]);
            let later = self.upper[i] as usize..self.row[i + 1] as usize;
            (self.t_u[i], self.t_t[i]) = self.add_neighbours(later, own);
        }
    }

    /// `t = A z`.
    fn product(&mut self) {
        for i in 0..self.len() {
            let own = self.diag32[i].mul(self.z_u[i], self.z_t[i]);
            (self.t_u[i], self.t_t[i]) = self.add_neighbours(self.neighbours(i), own);
        }
    }

    /// `s + Σ_k A_k z_{col k}` over the neighbour slots `slots` of a row,
    /// in slot order.
    #[inline]
    fn add_neighbours(
        &self,
        slots: std::ops::Range<usize>,
        (mut su, mut st): (Vec3A, Vec3A),
    ) -> (Vec3A, Vec3A) {
        // The row's slots and `z` cut first: one bound check a slot.
        let (col, off) = (&self.col[slots.clone()], &self.off32[slots]);
        let n = self.z_u.len().min(self.z_t.len());
        let (z_u, z_t) = (&self.z_u[..n], &self.z_t[..n]);
        for (&j, blk) in col.iter().zip(off) {
            let j = j as usize;
            let (u, t) = blk.mul(z_u[j], z_t[j]);
            su += u;
            st += t;
        }
        (su, st)
    }

    /// `y = A x` in double precision with the double-precision blocks, `x`
    /// and `y` read and written through `at` (node → the caller's index).
    fn product64(
        &self,
        at: impl Fn(usize) -> usize,
        x_u: &[DVec3],
        x_t: &[DVec3],
        y_u: &mut [DVec3],
        y_t: &mut [DVec3],
    ) {
        for i in 0..self.len() {
            let xi = at(i);
            let mut s = self.diag[i].mul6(lanes(x_u[xi], x_t[xi]));
            for k in self.neighbours(i) {
                let xj = at(self.col[k] as usize);
                let y = self.off[k].mul6(lanes(x_u[xj], x_t[xj]));
                for l in 0..6 {
                    s[l] += y[l];
                }
            }
            y_u[xi] = DVec3::new(s[0], s[1], s[2]);
            y_t[xi] = DVec3::new(s[3], s[4], s[5]);
        }
    }
}

/// The level hierarchy and the coarsest level's dense factor; rebuilt per
/// solve, storage reused.
#[derive(Clone, Debug, Default)]
pub(crate) struct Multilevel {
    fine: Fine,
    coarse: Vec<Coarse>,
    /// Builds, build pieces, rebuilds and updates so far: a cycle taken in
    /// steps (see [`Self::apply_step`]) goes on from its vectors only
    /// while this stands.
    changes: u64,
    /// Assembled levels in use (the coarsest is the last; 0: the fine
    /// level is the coarsest).
    used: usize,
    /// Column-slot marker for assembly (per coarse node, `NONE` or slot).
    marker: Vec<u32>,
    /// Lower Cholesky factor of the coarsest level, `m × m` row-major, and
    /// its transpose (the forward solve reads rows of `Lᵀ`, the columns of
    /// `L`; the backward one rows of `L`).
    dense: Vec<f64>,
    dense_t: Vec<f64>,
    dense_ok: bool,
    /// `build` has run (the fine copies hold what it was built from).
    built: bool,
    /// Level 1 is the fine system itself, assembled (its bonds join few
    /// pairs of nodes, see [`PARALLEL_BONDS`]): the cycle and the product
    /// run on its blocks instead of the bonds.
    assembled: bool,
    /// The fine level is small enough to be solved densely: level 1 is
    /// the fine level itself and the cycle is that direct solve.
    direct: bool,
    rhs: Vec<f64>,
    /// Per node of a level: its row is summed again by [`Self::update`]
    /// (this level's and the next's).
    touched: Vec<bool>,
    touched_next: Vec<bool>,
    /// Distinct pairs of nodes the fine bonds join, when assembled.
    pairs: usize,
    /// Scratch of [`Self::update`]: where the removed bonds stand, and a
    /// row's adjacency entries to skip.
    removed_at: Vec<u32>,
    skip: Vec<u32>,
    /// The system and level 1 set aside by [`Self::rebuild`].
    prev: rebuild::Previous,
    /// A build taken in pieces that has pieces left (`multilevel/build.rs`).
    pending: Option<build::Pending>,
    /// Of a build under way: the fine level's free nodes, the aggregates
    /// its first piece has made so far, and level 2's rows while its last
    /// piece assembles it in parts (`None`: the coarsening ended at level
    /// 1; see `multilevel/build.rs`).
    free: usize,
    made: u32,
    second: Option<usize>,
}

/// Adds row `c` of level `next` from level `lv` (`Pᵀ A P` over the
/// aggregate's members: each member's diagonal block, then its neighbour
/// blocks in slot order) to `next`'s blocks; `marker` maps a column of row
/// `c` to its slot. The one order both the assembly and its update
/// (`multilevel/update.rs`) sum in.
fn add_galerkin_row(lv: &Coarse, next: &mut Coarse, c: usize, marker: &[u32]) {
    let cc = next.centroid[c];
    for m in next.member_offsets[c]..next.member_offsets[c + 1] {
        let i = next.members[m as usize] as usize;
        let di = lv.centroid[i] - cc;
        next.diag[c].add_galerkin(&lv.diag[i], di, di);
        for k in lv.neighbours(i) {
            let j = lv.col[k] as usize;
            let cj = lv.coarse_of[j] as usize;
            let dj = lv.centroid[j] - next.centroid[cj];
            let to = if cj == c {
                &mut next.diag[c]
            } else {
                &mut next.off[marker[cj] as usize]
            };
            to.add_galerkin(&lv.off[k], di, dj);
        }
    }
}

/// The pattern of level `next` (its members set) from level `lv`: per
/// aggregate, the aggregates its members' neighbours lie in, in the order
/// met (`met`), split before / past the row (`col`, `row`); `marker` is
/// scratch (per aggregate, the start of the row that last met it).
fn galerkin_pattern(lv: &Coarse, next: &mut Coarse, marker: &mut Vec<u32>) {
    let count = next.member_offsets.len() - 1;
    marker.clear();
    marker.resize(count, NONE);
    next.row.clear();
    next.row.push(0);
    next.col.clear();
    next.met.clear();
    for c in 0..count {
        let start = next.col.len();
        for m in next.member_offsets[c]..next.member_offsets[c + 1] {
            let i = next.members[m as usize] as usize;
            for k in lv.neighbours(i) {
                let cj = lv.coarse_of[lv.col[k] as usize] as usize;
                let m = marker[cj];
                if cj != c && (m == NONE || (m as usize) < start) {
                    marker[cj] = start as u32;
                    next.col.push(cj as u32);
                }
            }
        }
        next.split_row(start, c);
        next.row.push(next.col.len() as u32);
    }
}

/// A bond of the fine level between two level-1 aggregates (or one and a
/// fixed node, `NONE`): its springs and its arms from the aggregate
/// centres (its point taken from a free end).
struct Terms {
    ca: u32,
    cb: u32,
    ra: DVec3,
    rb: DVec3,
    k: DMat3,
    kr: DMat3,
}

/// Bond `lb` on level 1 with aggregate centres `centroid`; `None` inside one
/// aggregate (or between fixed nodes).
#[inline]
fn bond_terms(fine: &Fine, centroid: &[DVec3], lb: &LocalBond) -> Option<Terms> {
    let (a, b) = (lb.a as usize, lb.b as usize);
    let (ca, cb) = (fine.coarse_of[a], fine.coarse_of[b]);
    if ca == cb {
        return None;
    }
    let p = if fine.fixed[a] {
        fine.centroid[b] + lb.rb
    } else {
        fine.centroid[a] + lb.ra
    };
    let arm = |c: u32| {
        if c == NONE {
            DVec3::ZERO
        } else {
            p - centroid[c as usize]
        }
    };
    Some(Terms {
        ca,
        cb,
        ra: arm(ca),
        rb: arm(cb),
        k: spring(lb.ks, lb.kn, lb.normal),
        kr: spring(lb.kb, lb.kt, lb.normal),
    })
}

/// Sums level 1's rows marked in `rows` from the fine bonds (blocks of
/// those rows zero before), bond by bond in order as
/// [`Multilevel::assemble_from_bonds`] sums every row, so each is bit for
/// bit what a build gives it; the other rows are left as they are.
fn add_bonds_to_rows(fine: &Fine, next: &mut Coarse, rows: &[bool]) {
    for lb in &fine.bonds {
        let marked = |end: u32| {
            let c = fine.coarse_of[end as usize];
            c != NONE && rows[c as usize]
        };
        if !(marked(lb.a) || marked(lb.b)) {
            continue;
        }
        let Some(t) = bond_terms(fine, &next.centroid, lb) else {
            continue;
        };
        let (ca, cb) = (t.ca as usize, t.cb as usize);
        if t.ca != NONE && t.cb != NONE {
            let (aa, bb, ab) = bond_blocks(t.k, t.kr, t.ra, t.rb);
            if rows[ca] {
                next.diag[ca].add(&aa);
                let s = find_slot(next, ca, t.cb);
                next.off[s].add(&ab);
            }
            if rows[cb] {
                next.diag[cb].add(&bb);
                let s = find_slot(next, cb, t.ca);
                next.off[s].add_transposed(&ab);
            }
        } else if t.ca != NONE {
            if rows[ca] {
                next.diag[ca].add(&end_block(t.k, t.kr, t.ra));
            }
        } else if rows[cb] {
            next.diag[cb].add(&end_block(t.k, t.kr, t.rb));
        }
    }
}

fn find_slot(lv: &Coarse, i: usize, j: u32) -> usize {
    let range = lv.neighbours(i);
    let lo = range.start;
    let at = lv.col[range].iter().position(|&c| c == j);
    // The pattern was built from the same bonds.
    debug_assert!(at.is_some(), "aggregate {j} is not a neighbour of {i}");
    lo + at.unwrap_or(0)
}

impl Multilevel {
    /// True when the hierarchy was built (and still stands) from exactly
    /// these nodes and bonds, bit for bit.
    pub(crate) fn built_from(
        &self,
        centroid: &[DVec3],
        fixed: &[bool],
        bonds: &[LocalBond],
    ) -> bool {
        self.built && self.fine_is(centroid, fixed, bonds)
    }

    /// True when the hierarchy was built (and still stands) on these
    /// nodes, bit for bit; its bonds are not compared.
    pub(crate) fn built_on(&self, centroid: &[DVec3], fixed: &[bool]) -> bool {
        self.built && self.fine_nodes_are(centroid, fixed)
    }

    /// The fine level's copy of the system is this one, bit for bit.
    fn fine_is(&self, centroid: &[DVec3], fixed: &[bool], bonds: &[LocalBond]) -> bool {
        let fine = &self.fine;
        self.fine_nodes_are(centroid, fixed)
            && fine.bonds.len() == bonds.len()
            && fine.bonds.iter().zip(bonds).all(|(a, b)| a.same_bits(b))
    }

    /// The fine level's copy of the nodes is this one, bit for bit.
    fn fine_nodes_are(&self, centroid: &[DVec3], fixed: &[bool]) -> bool {
        let fine = &self.fine;
        fine.fixed == fixed && same_vectors(&fine.centroid, centroid)
    }

    /// The levels past level 1, by aggregation and `Pᵀ A P`, until one is
    /// small enough or the coarsening stalls; `reusing`, copying the rows
    /// that stand from the hierarchy a rebuild set aside, for as long as it
    /// has levels ([`Self::assemble_galerkin_reusing`]).
    fn build_coarser(&mut self, mut reusing: bool) {
        while let Some(count) = self.next_level() {
            let l = self.used - 1;
            reusing = reusing && self.assemble_galerkin_reusing(l, count);
            if !reusing {
                self.assemble_galerkin(l, count);
            }
            self.used += 1;
        }
    }

    /// The aggregates of the coarsest level in use, for a level past it
    /// (made ready to be assembled): their count, or `None` when the
    /// coarsening ends there (the most levels, a level small enough, or a
    /// coarsening that stalls).
    fn next_level(&mut self) -> Option<usize> {
        if self.used >= MAX_LEVELS - 1 {
            return None;
        }
        let l = self.used - 1;
        let free = self.coarse[l].len();
        if free <= COARSEST {
            return None;
        }
        let count = self.coarse[l].aggregate();
        if count * 10 > free * 9 {
            return None; // coarsening stalled
        }
        if self.coarse.len() <= l + 1 {
            self.coarse.push(Coarse::default());
        }
        Some(count)
    }

    /// Level 1 from the fine bonds: each bond between two aggregates adds
    /// its element blocks with arms from the aggregate centres.
    fn assemble_from_bonds(&mut self, count: usize) {
        self.sum_from_bonds(count);
        self.coarse[0].finish();
    }

    /// [`Self::assemble_from_bonds`] but for the inverse and
    /// single-precision blocks and the row split ([`Coarse::finish`]).
    fn sum_from_bonds(&mut self, count: usize) {
        self.assemble_pattern(count);
        self.start_sums(count);
        self.sum_bonds(0..self.fine.bonds.len());
    }

    /// [`Self::sum_from_bonds`]' start, once the pattern is made: every
    /// block of level 1 (`count` rows) zero.
    fn start_sums(&mut self, count: usize) {
        self.start_sums_of(0..count);
    }

    /// [`Self::start_sums`] for the rows `rows` (their diagonal and
    /// off-diagonal blocks zero), after those before them (a build in
    /// parts zeroes them part by part: at once, level 1's blocks on the
    /// refined 100 × 50 × 2 wall took 0.6–0.8 ms).
    fn start_sums_of(&mut self, rows: std::ops::Range<usize>) {
        let next = &mut self.coarse[0];
        if rows.start == 0 {
            clear_for(&mut next.diag, next.row.len().saturating_sub(1));
            clear_for(&mut next.off, next.row.last().map_or(0, |&s| s as usize));
        }
        next.diag
            .extend(std::iter::repeat_n(Block::ZERO, rows.len()));
        let slots = next.row[rows.end] as usize - next.off.len();
        next.off.extend(std::iter::repeat_n(Block::ZERO, slots));
    }

    /// [`Self::sum_from_bonds`] of the fine bonds `bonds`, after those
    /// before them.
    fn sum_bonds(&mut self, bonds: std::ops::Range<usize>) {
        let (fine, next) = (&self.fine, &mut self.coarse[0]);
        for lb in &fine.bonds[bonds] {
            let Some(t) = bond_terms(fine, &next.centroid, lb) else {
                continue;
            };
            let (ca, cb) = (t.ca as usize, t.cb as usize);
            if t.ca != NONE && t.cb != NONE {
                let (aa, bb, ab) = bond_blocks(t.k, t.kr, t.ra, t.rb);
                next.diag[ca].add(&aa);
                next.diag[cb].add(&bb);
                let s = find_slot(next, ca, t.cb);
                next.off[s].add(&ab);
                let s = find_slot(next, cb, t.ca);
                next.off[s].add_transposed(&ab);
            } else if t.ca != NONE {
                next.diag[ca].add(&end_block(t.k, t.kr, t.ra));
            } else {
                next.diag[cb].add(&end_block(t.k, t.kr, t.rb));
            }
        }
    }

    /// Level 1's aggregates (`count`, from the fine `coarse_of`) and
    /// pattern (not its blocks).
    fn assemble_pattern(&mut self, count: usize) {
        self.start_pattern(count);
        self.pattern_rows(0..count);
    }

    /// [`Self::assemble_pattern`]'s start: level 1's aggregates, and no
    /// row of its pattern yet.
    fn start_pattern(&mut self, count: usize) {
        let fine = &self.fine;
        let next = &mut self.coarse[0];
        next.set_members(&fine.coarse_of, &fine.centroid, count);
        self.marker.clear();
        self.marker.resize(count, NONE);
        next.row.clear();
        next.row.push(0);
        next.col.clear();
        next.met.clear();
    }

    /// [`Self::assemble_pattern`] of the rows `rows`, after those before
    /// them: per aggregate, the aggregates its members' bonds reach.
    fn pattern_rows(&mut self, rows: std::ops::Range<usize>) {
        let fine = &self.fine;
        let next = &mut self.coarse[0];
        for c in rows {
            for m in next.member_offsets[c]..next.member_offsets[c + 1] {
                let i = next.members[m as usize];
                let (lo, hi) = (
                    fine.adj_offsets[i as usize] as usize,
                    fine.adj_offsets[i as usize + 1] as usize,
                );
                for &j in &fine.adj[lo..hi] {
                    let cj = fine.coarse_of[j as usize];
                    if cj != NONE && cj as usize != c && self.marker[cj as usize] != c as u32 {
                        self.marker[cj as usize] = c as u32;
                        next.col.push(cj);
                    }
                }
            }
            let start = *next.row.last().unwrap_or(&0) as usize;
            next.split_row(start, c);
            next.row.push(next.col.len() as u32);
        }
    }

    /// Level `l + 1` from level `l` by `Pᵀ A P` over rigid aggregates.
    fn assemble_galerkin(&mut self, l: usize, count: usize) {
        self.start_galerkin(l, count);
        self.galerkin_rows(l, 0..count);
        self.coarse[l + 1].finish();
    }

    /// [`Self::assemble_galerkin`]'s start: level `l + 1`'s aggregates
    /// (`count`) and pattern, every block zero.
    fn start_galerkin(&mut self, l: usize, count: usize) {
        let (head, tail) = self.coarse.split_at_mut(l + 1);
        let (lv, next) = (&head[l], &mut tail[0]);
        next.set_members(&lv.coarse_of, &lv.centroid, count);
        galerkin_pattern(lv, next, &mut self.marker);
        next.diag.clear();
        next.diag.resize(count, Block::ZERO);
        next.off.clear();
        next.off.resize(next.col.len(), Block::ZERO);
    }

    /// [`Self::assemble_galerkin`] of level `l + 1`'s rows `rows`.
    fn galerkin_rows(&mut self, l: usize, rows: std::ops::Range<usize>) {
        let (head, tail) = self.coarse.split_at_mut(l + 1);
        let (lv, next) = (&head[l], &mut tail[0]);
        for c in rows {
            for slot in next.neighbours(c) {
                self.marker[next.col[slot] as usize] = slot as u32;
            }
            add_galerkin_row(lv, next, c, &self.marker);
        }
    }

    /// Dense Cholesky of the coarsest assembled level.
    fn factor_coarsest(&mut self) {
        self.dense_ok = false;
        if self.used == 0 {
            return;
        }
        let lv = &self.coarse[self.used - 1];
        let n = lv.len();
        let m = 6 * n;
        self.dense_ok = n <= 4 * COARSEST;
        if !self.dense_ok {
            return;
        }
        self.dense.clear();
        self.dense.resize(m * m, 0.0);
        let mut put = |bi: usize, bj: usize, blk: &Block| {
            for r in 0..6 {
                for c in 0..6 {
                    self.dense[(6 * bi + r) * m + 6 * bj + c] += blk.at(r, c);
                }
            }
        };
        for i in 0..n {
            put(i, i, &lv.diag[i]);
            for k in lv.neighbours(i) {
                put(i, lv.col[k] as usize, &lv.off[k]);
            }
        }
        // In-place Cholesky, lower triangle, row by row.
        for j in 0..m {
            let (top, rest) = self.dense.split_at_mut((j + 1) * m);
            let row_j = &mut top[j * m..];
            let d = row_j[j] - dot(&row_j[..j], &row_j[..j]);
            if !(d > 0.0) {
                self.dense_ok = false;
                return;
            }
            let d = d.sqrt();
            row_j[j] = d;
            for row_i in rest.chunks_exact_mut(m) {
                row_i[j] = (row_i[j] - dot(&row_i[..j], &row_j[..j])) / d;
            }
        }
        self.dense_t.clear();
        self.dense_t.resize(m * m, 0.0);
        for i in 0..m {
            for j in 0..=i {
                self.dense_t[j * m + i] = self.dense[i * m + j];
            }
        }
    }
}

impl Multilevel {
    /// `z = M⁻¹ r` (one cycle); `r` and `z` have the fine system's layout.
    /// Its steps ([`Self::apply_step`]) in order.
    pub(crate) fn apply(
        &mut self,
        r_u: &[DVec3],
        r_t: &[DVec3],
        z_u: &mut [DVec3],
        z_t: &mut [DVec3],
    ) {
        for step in 0..self.apply_steps() {
            self.apply_step(step, r_u, r_t, z_u, z_t);
        }
    }

    /// How many steps a cycle is taken in ([`Self::apply_step`]): six
    /// when the finest level smooths on its bonds around a coarse
    /// correction, else one. On the 100 × 50 × 2 wall refined (about
    /// 8,000 nodes) the first four took about 0.12, 0.19, 0.20 and 0.18
    /// ms; the last two were one step until 2026-12-07, which took
    /// 0.53–0.65 ms on the gap wall refined to 9,452 nodes (the
    /// correction's product 0.25–0.34 of it, the prolongation 0.07–0.10,
    /// the smoothing and `z` 0.17–0.25) and with a call's own cost passed
    /// 1 ms. (As three steps, 0.31, 0.38 and 0.20 ms.)
    pub(crate) fn apply_steps(&self) -> u8 {
        if self.direct || self.assembled || self.used == 0 {
            1
        } else {
            6
        }
    }

    /// How many times the hierarchy has changed (builds, their pieces,
    /// rebuilds, updates): a cycle's steps taken apart go on from the
    /// vectors the last step left only while this stands.
    pub(crate) fn changes(&self) -> u64 {
        self.changes
    }

    /// Step `step` of the cycle `z = M⁻¹ r` ([`Self::apply_steps`]; the
    /// last writes `z`, and the steps taken in order are [`Self::apply`]
    /// bit for bit). Around the coarse correction: 0, the fine level's
    /// pre-smoothing; 1, its product and the restriction of what is left
    /// of `r`; 2 and 3, the coarse correction (level 1's K-cycle: its
    /// first cycle, then the rest, [`Self::k_cycle_rest`]); 4, its
    /// prolongation and the correction added to the fine level's `z` and
    /// `K z`; 5, the post-smoothing and `z`. Between steps the state is in
    /// the levels' vectors. Any other step does nothing.
    pub(crate) fn apply_step(
        &mut self,
        step: u8,
        r_u: &[DVec3],
        r_t: &[DVec3],
        z_u: &mut [DVec3],
        z_t: &mut [DVec3],
    ) {
        if step >= self.apply_steps() {
            return;
        }
        if self.direct {
            // Level 1 is the fine system itself, solved densely (double
            // precision: this is the whole preconditioner).
            let (fine, lv) = (&mut self.fine, &self.coarse[0]);
            let m = 6 * lv.len();
            self.rhs.clear();
            for c in 0..lv.len() {
                let i = lv.members[lv.member_offsets[c] as usize] as usize;
                self.rhs.extend_from_slice(&lanes(r_u[i], r_t[i]));
            }
            dense_solve(&self.dense, &self.dense_t, m, &mut self.rhs);
            for (i, &c) in fine.coarse_of.iter().enumerate() {
                let (u, t) = if c == NONE {
                    (DVec3::ZERO, DVec3::ZERO)
                } else {
                    let v = &self.rhs[6 * c as usize..6 * c as usize + 6];
                    (DVec3::new(v[0], v[1], v[2]), DVec3::new(v[3], v[4], v[5]))
                };
                z_u[i] = u;
                z_t[i] = t;
            }
            return;
        }
        if self.assembled {
            // Level 1 is the fine system itself (one aggregate per free
            // node): z = P z₁ with one cycle there.
            self.restrict_fine(r_u, r_t, false);
            self.cycle(0);
            self.prolong_correction();
            z_u.copy_from_slice(&self.fine.e_u);
            z_t.copy_from_slice(&self.fine.e_t);
            return;
        }
        let fine = &mut self.fine;
        // Block-Jacobi smoothing (in single precision) around the coarse
        // correction; the first sweep starts from z = 0, where K z = 0.
        // A sweep that iterates on a non-zero z takes the stable damping.
        let omega = |sweep: usize| if sweep == 0 { OMEGA_PRE } else { OMEGA_POST };
        if self.used == 0 {
            // No hierarchy (coarsening stalled): smoothing only.
            fine.jacobi.start(r_u, r_t);
            for sweep in 0..2 * SWEEPS {
                if sweep > 0 {
                    fine.jacobi.product(&fine.fixed);
                }
                fine.jacobi.smooth(omega(sweep), &fine.fixed);
            }
            self.fine.jacobi.finish(z_u, z_t);
            return;
        }
        match step {
            0 => {
                fine.jacobi.start(r_u, r_t);
                for sweep in 0..SWEEPS {
                    if sweep > 0 {
                        fine.jacobi.product(&fine.fixed);
                    }
                    fine.jacobi.smooth(omega(sweep), &fine.fixed);
                }
            }
            1 => {
                fine.jacobi.product(&fine.fixed);
                self.restrict_fine(r_u, r_t, true);
            }
            2 => self.cycle(0),
            3 => self.k_cycle_rest(0),
            4 => {
                self.prolong_correction();
                let fine = &mut self.fine;
                // t = K z before the correction; K (z + P e) = t + K P e.
                fine.jacobi
                    .add_correction(&fine.e_u, &fine.e_t, &fine.fixed);
            }
            _ => {
                let fine = &mut self.fine;
                for sweep in 0..SWEEPS {
                    if sweep > 0 {
                        fine.jacobi.product(&fine.fixed);
                    }
                    fine.jacobi.smooth(OMEGA_POST, &fine.fixed);
                }
                self.fine.jacobi.finish(z_u, z_t);
            }
        }
    }

    /// Whether [`Self::single_product`] can take a product: the finest
    /// level smooths on its bonds (not assembled, not solved directly).
    pub(crate) fn has_single_product(&self) -> bool {
        !(self.assembled || self.direct || !self.built)
    }

    /// `y = K x` in single precision, when the finest level smooths on its
    /// bonds (not assembled, not solved directly); false otherwise.
    pub(crate) fn single_product(
        &mut self,
        x_u: &[DVec3],
        x_t: &[DVec3],
        y_u: &mut [DVec3],
        y_t: &mut [DVec3],
    ) -> bool {
        if !self.has_single_product() {
            return false;
        }
        let fine = &mut self.fine;
        fine.jacobi.product_of(x_u, x_t, y_u, y_t, &fine.fixed);
        true
    }

    /// One Gauss–Seidel step (double precision) at each of `nodes` (free
    /// nodes, ascending) in that order, on an assembled finest level: `x`
    /// takes `D⁻¹ r` at the node and `r` loses `K` times that, at the node
    /// and its neighbours. `touched` receives the nodes whose `r` changed
    /// (ascending, each once). False (nothing done) unless the finest level
    /// is assembled.
    pub(crate) fn polish(
        &self,
        nodes: &[u32],
        x_u: &mut [DVec3],
        x_t: &mut [DVec3],
        r_u: &mut [DVec3],
        r_t: &mut [DVec3],
        touched: &mut Vec<u32>,
    ) -> bool {
        touched.clear();
        if !self.assembled || self.direct || !self.built {
            return false;
        }
        let lv = &self.coarse[0];
        let member = |c: usize| lv.members[lv.member_offsets[c] as usize] as usize;
        for &node in nodes {
            let i = node as usize;
            let c = self.fine.coarse_of[i];
            if c == NONE {
                continue;
            }
            let c = c as usize;
            let d = lv.inv[c].mul6(lanes(r_u[i], r_t[i]));
            let (du, dt) = (DVec3::new(d[0], d[1], d[2]), DVec3::new(d[3], d[4], d[5]));
            x_u[i] += du;
            x_t[i] += dt;
            let own = lv.diag[c].mul6(d);
            r_u[i] -= DVec3::new(own[0], own[1], own[2]);
            r_t[i] -= DVec3::new(own[3], own[4], own[5]);
            touched.push(node);
            for k in lv.neighbours(c) {
                let j = member(lv.col[k] as usize);
                let y = lv.off[k].mul6_transposed(d);
                r_u[j] -= DVec3::new(y[0], y[1], y[2]);
                r_t[j] -= DVec3::new(y[3], y[4], y[5]);
                touched.push(j as u32);
            }
        }
        touched.sort_unstable();
        touched.dedup();
        true
    }

    /// True when the finest level is assembled ([`PARALLEL_BONDS`]): then
    /// [`Self::product`] is the stiffness product.
    pub(crate) fn assembled(&self) -> bool {
        self.assembled
    }

    /// `y = K x` by the assembled blocks (zero on fixed nodes); only when
    /// [`Self::assembled`].
    pub(crate) fn product(
        &mut self,
        x_u: &[DVec3],
        x_t: &[DVec3],
        y_u: &mut [DVec3],
        y_t: &mut [DVec3],
    ) {
        let (fine, lv) = (&self.fine, &self.coarse[0]);
        // One aggregate per free node: aggregate `c`'s only member.
        let member = |c: usize| lv.members[lv.member_offsets[c] as usize] as usize;
        lv.product64(member, x_u, x_t, y_u, y_t);
        for (i, &c) in fine.coarse_of.iter().enumerate() {
            if c == NONE {
                y_u[i] = DVec3::ZERO;
                y_t[i] = DVec3::ZERO;
            }
        }
    }

    /// Level 1's right-hand side from the fine `r` (minus `t` when `smoothed`).
    fn restrict_fine(&mut self, r_u: &[DVec3], r_t: &[DVec3], smoothed: bool) {
        let (fine, next) = (&self.fine, &mut self.coarse[0]);
        next.r_u.iter_mut().for_each(|v| *v = Vec3A::ZERO);
        next.r_t.iter_mut().for_each(|v| *v = Vec3A::ZERO);
        // Each side's vectors cut to one length: one bound check per index
        // (the smoothing's `t` only read when smoothed).
        let n = fine.len();
        let (coarse_of, centroid, r_u, r_t) = (
            &fine.coarse_of[..n],
            &fine.centroid[..n],
            &r_u[..n],
            &r_t[..n],
        );
        let (t_u, t_t) = fine.jacobi.products();
        let m = next.r_u.len().min(next.r_t.len()).min(next.centroid.len());
        let (next_u, next_t, next_c) =
            (&mut next.r_u[..m], &mut next.r_t[..m], &next.centroid[..m]);
        for i in 0..n {
            let c = coarse_of[i];
            if c == NONE {
                continue;
            }
            let c = c as usize;
            let (mut ru, mut rt) = (r_u[i], r_t[i]);
            if smoothed {
                ru -= t_u[i].as_dvec3();
                rt -= t_t[i].as_dvec3();
            }
            // Summed in double precision per node, added in single.
            next_u[c] += ru.as_vec3a();
            next_t[c] += (rt + (centroid[i] - next_c[c]).cross(ru)).as_vec3a();
        }
    }

    /// `e = P z₁` (level 1's correction on the fine nodes; zero on fixed
    /// ones).
    fn prolong_correction(&mut self) {
        let (fine, next) = (&mut self.fine, &self.coarse[0]);
        // Each side's vectors cut to one length: one bound check per index.
        let n = fine.len();
        let (coarse_of, centroid) = (&fine.coarse_of[..n], &fine.centroid[..n]);
        let (e_u, e_t) = (&mut fine.e_u[..n], &mut fine.e_t[..n]);
        let m = next.z_u.len().min(next.z_t.len()).min(next.centroid.len());
        let (z_u, z_t, next_c) = (&next.z_u[..m], &next.z_t[..m], &next.centroid[..m]);
        for i in 0..n {
            let c = coarse_of[i];
            if c == NONE {
                e_u[i] = DVec3::ZERO;
                e_t[i] = DVec3::ZERO;
                continue;
            }
            let c = c as usize;
            let (zu, zt) = (z_u[c].as_dvec3(), z_t[c].as_dvec3());
            e_u[i] = zu + zt.cross(centroid[i] - next_c[c]);
            e_t[i] = zt;
        }
    }

    /// One cycle on assembled level `l` for its `r`, into its `z`: a forward
    /// Gauss–Seidel sweep, the next level's K-cycle correction, a backward
    /// sweep.
    fn cycle(&mut self, l: usize) {
        if l + 1 == self.used {
            self.solve_coarsest();
            return;
        }
        self.coarse[l].sweep_from_zero();
        {
            let (head, tail) = self.coarse.split_at_mut(l + 1);
            let (lv, next) = (&head[l], &mut tail[0]);
            next.r_u.iter_mut().for_each(|v| *v = Vec3A::ZERO);
            next.r_t.iter_mut().for_each(|v| *v = Vec3A::ZERO);
            for i in 0..lv.len() {
                let c = lv.coarse_of[i] as usize;
                let ru = lv.r_u[i] - lv.t_u[i];
                let rt = lv.r_t[i] - lv.t_t[i];
                let d = (lv.centroid[i] - next.centroid[c]).as_vec3a();
                next.r_u[c] += ru;
                next.r_t[c] += rt + cross32(d, ru);
            }
        }
        self.k_cycle(l + 1);
        let (head, tail) = self.coarse.split_at_mut(l + 1);
        let (lv, next) = (&mut head[l], &tail[0]);
        for i in 0..lv.len() {
            let c = lv.coarse_of[i] as usize;
            let (zu, zt) = (next.z_u[c], next.z_t[c]);
            let d = (lv.centroid[i] - next.centroid[c]).as_vec3a();
            lv.z_u[i] += zu + cross32(zt, d);
            lv.z_t[i] += zt;
        }
        for i in (0..lv.len()).rev() {
            lv.relax(i);
        }
    }

    /// Level `m`'s `z` for its `r`: two flexible conjugate-gradient steps
    /// on `A_m z = r`, each preconditioned by one cycle there (Notay and
    /// Vassilevski's K-cycle, Algorithm 2.1 of the ETNA paper with the
    /// second step always taken). With `c₁ = B r`, `v₁ = A c₁`,
    /// `ρ₁ = c₁·v₁`, `α₁ = c₁·r`, `r̃ = r − (α₁/ρ₁) v₁`, `c₂ = B r̃`,
    /// `v₂ = A c₂`, `γ = c₂·v₁`, `β = c₂·v₂`, `α₂ = c₂·r̃` and
    /// `ρ₂ = β − γ²/ρ₁`: `z = (α₁/ρ₁ − γ α₂/(ρ₁ ρ₂)) c₁ + (α₂/ρ₂) c₂`, the
    /// combination of `c₁` and `c₂` closest to `A_m⁻¹ r` in `A_m`'s energy.
    /// The coarsest level, when solved exactly, needs no second step.
    fn k_cycle(&mut self, m: usize) {
        self.cycle(m);
        self.k_cycle_rest(m);
    }

    /// [`Self::k_cycle`] after its first cycle (whose `z` level `m`
    /// holds, with its `r`).
    fn k_cycle_rest(&mut self, m: usize) {
        if m + 1 == self.used && self.dense_ok {
            return;
        }
        let lv = &mut self.coarse[m];
        lv.product();
        let rho1 = dot6_32(&lv.z_u, &lv.z_t, &lv.t_u, &lv.t_t);
        let alpha1 = dot6_32(&lv.z_u, &lv.z_t, &lv.r_u, &lv.r_t);
        if !(rho1 > 0.0) {
            return;
        }
        let a = alpha1 / rho1;
        lv.w_u.clone_from(&lv.z_u);
        lv.w_t.clone_from(&lv.z_t);
        lv.v_u.clone_from(&lv.t_u);
        lv.v_t.clone_from(&lv.t_t);
        lv.s_u.clone_from(&lv.r_u);
        lv.s_t.clone_from(&lv.r_t);
        let a32 = a as f32;
        for i in 0..lv.len() {
            lv.r_u[i] -= a32 * lv.t_u[i];
            lv.r_t[i] -= a32 * lv.t_t[i];
        }
        self.cycle(m);
        let lv = &mut self.coarse[m];
        lv.product();
        let gamma = dot6_32(&lv.z_u, &lv.z_t, &lv.v_u, &lv.v_t);
        let beta = dot6_32(&lv.z_u, &lv.z_t, &lv.t_u, &lv.t_t);
        let alpha2 = dot6_32(&lv.z_u, &lv.z_t, &lv.r_u, &lv.r_t);
        let rho2 = beta - gamma * gamma / rho1;
        let (c1, c2) = if rho2 > 0.0 {
            (a - (gamma / rho1) * (alpha2 / rho2), alpha2 / rho2)
        } else {
            (a, 0.0)
        };
        let (c1, c2) = (c1 as f32, c2 as f32);
        for i in 0..lv.len() {
            lv.z_u[i] = c1 * lv.w_u[i] + c2 * lv.z_u[i];
            lv.z_t[i] = c1 * lv.w_t[i] + c2 * lv.z_t[i];
        }
        std::mem::swap(&mut lv.r_u, &mut lv.s_u);
        std::mem::swap(&mut lv.r_t, &mut lv.s_t);
    }

    fn solve_coarsest(&mut self) {
        let lv = &mut self.coarse[self.used - 1];
        lv.z_u.iter_mut().for_each(|v| *v = Vec3A::ZERO);
        lv.z_t.iter_mut().for_each(|v| *v = Vec3A::ZERO);
        if !self.dense_ok {
            // Too large or not positive definite: symmetric Gauss–Seidel.
            for _ in 0..2 {
                for i in 0..lv.len() {
                    lv.relax(i);
                }
                for i in (0..lv.len()).rev() {
                    lv.relax(i);
                }
            }
            return;
        }
        let m = 6 * lv.len();
        self.rhs.clear();
        for i in 0..lv.len() {
            let (u, t) = (lv.r_u[i].as_dvec3(), lv.r_t[i].as_dvec3());
            self.rhs.extend_from_slice(&[u.x, u.y, u.z, t.x, t.y, t.z]);
        }
        dense_solve(&self.dense, &self.dense_t, m, &mut self.rhs);
        for i in 0..lv.len() {
            let v = &self.rhs[6 * i..6 * i + 6];
            lv.z_u[i] = DVec3::new(v[0], v[1], v[2]).as_vec3a();
            lv.z_t[i] = DVec3::new(v[3], v[4], v[5]).as_vec3a();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::BondIndex;
    use crate::stress::solver::stiffness_product;

    /// The Galerkin transform on the offsets gives the entries of the
    /// 3×3 matrix products with skew matrices exactly, over random blocks
    /// and offsets, mixed scales and offsets with zero components
    /// (compared with `==`, which takes +0 and −0 for equal: the
    /// products' `0 · m` terms can only change a zero's sign).
    #[test]
    fn the_galerkin_transform_is_the_matrix_products() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(13);
        let v = |rng: &mut rand_pcg::Pcg64, scale: f64, zeros: bool| {
            let mut c = || {
                if zeros && rng.random_bool(0.3) {
                    0.0
                } else {
                    rng.random_range(-1.0..1.0) * scale
                }
            };
            DVec3::new(c(), c(), c())
        };
        for round in 0..2_000 {
            let scale = [1.0, 1e-3, 1e6, 7.5][round % 4];
            let zeros = round % 3 == 0;
            let cols = [0; 12].map(|_| v(&mut rng, scale, zeros));
            let mat = |k: usize| DMat3::from_cols(cols[k], cols[k + 1], cols[k + 2]);
            let blk = Block::from_parts(mat(0), mat(3), mat(6), mat(9));
            let (di, dj) = (v(&mut rng, 0.7, zeros), v(&mut rng, 2.0, zeros));
            for (a, b) in [(di, dj), (di, di), (DVec3::ZERO, dj)] {
                let (got, want) = (blk.galerkin(a, b), blk.galerkin_of_matrices(a, b));
                assert_eq!(got.c, want.c, "round {round}");
            }
        }
    }

    /// The column layout multiplies as the four 3×3 blocks do, bit for
    /// bit, and a bond's blocks are `s_e s_f [[k, −k X_f], [X_e k,
    /// k_r − X_e k X_f]]` written out with skew matrices (the coupling of
    /// `b` to `a` the transpose of `a`'s to `b`).
    #[test]
    fn a_block_multiplies_as_its_parts_and_a_bond_adds_its_element() {
        let m = |s: f64| {
            DMat3::from_cols(
                DVec3::new(1.0 * s, 0.2, -0.3),
                DVec3::new(0.7, 2.0 * s, 0.11),
                DVec3::new(-0.13, 0.4, 3.0 * s),
            )
        };
        let (uu, ut, tu, tt) = (m(1.0), m(-0.7), m(0.3), m(1.9));
        let blk = Block::from_parts(uu, ut, tu, tt);
        let (u, t) = (DVec3::new(0.3, -1.7, 2.9), DVec3::new(-0.05, 0.61, 1.3));
        let (y_u, y_t) = blk.mul(u, t);
        let bits = |v: DVec3| v.to_array().map(f64::to_bits);
        assert_eq!(bits(y_u), bits(uu * u + ut * t));
        assert_eq!(bits(y_t), bits(tu * u + tt * t));
        let parts = blk.parts();
        assert_eq!((parts.0, parts.1, parts.2, parts.3), (uu, ut, tu, tt));

        let n = DVec3::new(0.2, 1.0, -0.4).normalize();
        let (k, kr) = (spring(0.4, 1.3, n), spring(0.05, 0.08, n));
        let (ra, rb) = (DVec3::new(0.5, 0.1, -0.2), DVec3::new(-0.5, 0.3, 0.25));
        let written = |re: DVec3, rf: DVec3, s: f64| {
            let (xe, xf) = (skew(re), skew(rf));
            Block::from_parts(s * k, -s * (k * xf), s * (xe * k), s * (kr - xe * k * xf))
        };
        let (aa, bb, ab) = bond_blocks(k, kr, ra, rb);
        let mut ba = Block::ZERO;
        ba.add_transposed(&ab);
        for (got, want) in [
            (aa, written(ra, ra, 1.0)),
            (bb, written(rb, rb, 1.0)),
            (ab, written(ra, rb, -1.0)),
            (ba, written(rb, ra, -1.0)),
            (end_block(k, kr, rb), written(rb, rb, 1.0)),
        ] {
            for r in 0..6 {
                for c in 0..6 {
                    assert!(
                        (got.at(r, c) - want.at(r, c)).abs() < 1e-14,
                        "({r}, {c}): {} against {}",
                        got.at(r, c),
                        want.at(r, c)
                    );
                }
            }
        }
    }

    /// A row of 20 free nodes, the last joined to a fixed node, each pair
    /// by four parallel bonds with their own faces, arms and springs (a
    /// reduced system's super-nodes): the level is assembled, its block
    /// product is the bonds' product, and a polish step relaxes the nodes
    /// it is given.
    #[test]
    fn an_assembled_level_multiplies_as_its_bonds() {
        let n = 20;
        let centroid: Vec<DVec3> = (0..=n).map(|i| DVec3::new(i as f64, 0.0, 0.0)).collect();
        let mut fixed = vec![false; n + 1];
        fixed[n] = true;
        let mut bonds = Vec::new();
        for i in 0..n {
            for k in 0..4 {
                let kf = k as f64;
                let p = DVec3::new(i as f64 + 0.5, 0.3 * kf - 0.45, 0.2 * kf);
                let normal = DVec3::new(1.0, 0.1 * kf, -0.05 * kf).normalize();
                bonds.push(LocalBond {
                    bond: BondIndex((4 * i + k) as u32),
                    a: i as u32,
                    b: (i + 1) as u32,
                    normal,
                    ra: p - centroid[i],
                    rb: p - centroid[i + 1],
                    kn: 1.0 + kf,
                    ks: 0.4 + 0.1 * kf,
                    kb: 0.05 * (1.0 + kf),
                    kt: 0.08,
                });
            }
        }
        let mut ml = Multilevel::default();
        ml.build(&centroid, &fixed, &bonds);
        assert!(ml.assembled());
        let x_u: Vec<DVec3> = (0..=n)
            .map(|i| {
                if fixed[i] {
                    DVec3::ZERO
                } else {
                    DVec3::new((i as f64).sin(), 0.3, -(i as f64) * 0.01)
                }
            })
            .collect();
        let x_t: Vec<DVec3> = (0..=n)
            .map(|i| {
                if fixed[i] {
                    DVec3::ZERO
                } else {
                    DVec3::new(0.02, (i as f64).cos() * 0.1, 0.05)
                }
            })
            .collect();
        let (mut a_u, mut a_t) = (vec![DVec3::ZERO; n + 1], vec![DVec3::ZERO; n + 1]);
        let (mut b_u, mut b_t) = (vec![DVec3::ZERO; n + 1], vec![DVec3::ZERO; n + 1]);
        stiffness_product(&bonds, &fixed, &x_u, &x_t, &mut a_u, &mut a_t);
        ml.product(&x_u, &x_t, &mut b_u, &mut b_t);
        let scale = a_u
            .iter()
            .chain(&a_t)
            .map(|v| v.length())
            .fold(0.0, f64::max);
        assert!(scale > 0.1);
        for i in 0..=n {
            assert!((a_u[i] - b_u[i]).length() <= 1e-12 * scale, "node {i}");
            assert!((a_t[i] - b_t[i]).length() <= 1e-12 * scale, "node {i}");
        }
        // A Gauss–Seidel step at every third node (no two of them
        // neighbours), from x = 0: each leaves its node no residual, and
        // r stays b − K x.
        let nodes: Vec<bool> = (0..=n).map(|i| !fixed[i] && i % 3 == 1).collect();
        let list: Vec<u32> = (0..=n as u32).filter(|&i| nodes[i as usize]).collect();
        let (mut x_u, mut x_t) = (vec![DVec3::ZERO; n + 1], vec![DVec3::ZERO; n + 1]);
        let (mut r_u, mut r_t) = (a_u.clone(), a_t.clone());
        let mut touched = vec![7];
        assert!(ml.polish(&list, &mut x_u, &mut x_t, &mut r_u, &mut r_t, &mut touched));
        // `touched` lists, ascending and once each, exactly the nodes whose
        // residual changed (the stepped ones and their neighbours).
        assert!(touched.windows(2).all(|w| w[0] < w[1]), "{touched:?}");
        let changed: Vec<u32> = (0..=n as u32)
            .filter(|&i| (r_u[i as usize], r_t[i as usize]) != (a_u[i as usize], a_t[i as usize]))
            .collect();
        assert!(changed.len() > list.len());
        assert_eq!(touched, changed);
        let (mut k_u, mut k_t) = (vec![DVec3::ZERO; n + 1], vec![DVec3::ZERO; n + 1]);
        stiffness_product(&bonds, &fixed, &x_u, &x_t, &mut k_u, &mut k_t);
        let mut moved = 0;
        for i in 0..n {
            if nodes[i] {
                assert!(
                    r_u[i].length() + r_t[i].length() <= 1e-12 * scale,
                    "node {i}"
                );
                moved += usize::from(x_u[i] != DVec3::ZERO);
            } else if !nodes[i.saturating_sub(1)] && !nodes[i + 1] {
                assert_eq!((r_u[i], r_t[i]), (a_u[i], a_t[i]), "node {i}");
            }
            assert!(
                (a_u[i] - k_u[i] - r_u[i]).length() <= 1e-12 * scale,
                "node {i}"
            );
            assert!(
                (a_t[i] - k_t[i] - r_t[i]).length() <= 1e-12 * scale,
                "node {i}"
            );
        }
        assert!(moved >= 6, "{moved}");
        // A chunk system (one bond per pair) is not assembled.
        let single: Vec<LocalBond> = bonds.iter().step_by(4).copied().collect();
        ml.build(&centroid, &fixed, &single);
        assert!(!ml.assembled());
        assert!(!ml.polish(&list, &mut x_u, &mut x_t, &mut r_u, &mut r_t, &mut touched));
        assert!(touched.is_empty());
    }
}
