//! The finest level's block-Jacobi smoothing in single precision.
//!
//! A smoothing sweep and the bond-spring products around it are only the
//! preconditioner: the conjugate gradient's own product and the residual
//! it reports stay in double precision, so single precision here changes
//! how fast a solve converges, not what it converges to (every answer is
//! still checked with the bond forces in double precision against ε). In
//! return the products run on 4-lane vectors ([`Vec3A`]) at about two
//! thirds of the double-precision time (tower 4×4×8: 3.6 against 5.5 µs
//! per product).
//!
//! Every sum is written out in a fixed order (a dot product is
//! `(x₀y₀ + x₁y₁) + x₂y₂`, a 3×3 product `(m₀ v₀ + m₁ v₁) + m₂ v₂`), and
//! every vector operation is a lane-by-lane multiply, add or subtract
//! (the cross product too: glam's may fuse a multiply and a subtract on
//! some targets), so the results are the same with or without SIMD and
//! on every target.

use super::{Block, Block32, clear_for, cross32 as cross, dot32 as dot, resize};
use crate::stress::solver::LocalBond;
use glam::{DVec3, Vec3A};

/// A bond's springs and lever arms in single precision.
#[derive(Clone, Copy, Debug)]
struct Bond32 {
    normal: Vec3A,
    ra: Vec3A,
    rb: Vec3A,
    /// `(k_s, k_n − k_s, k_b)`.
    k: Vec3A,
    /// `k_t − k_b`.
    kt_kb: f32,
    a: u32,
    b: u32,
}

impl Bond32 {
    fn of(lb: &LocalBond) -> Self {
        Self {
            normal: lb.normal.as_vec3a(),
            ra: lb.ra.as_vec3a(),
            rb: lb.rb.as_vec3a(),
            k: Vec3A::new(lb.ks as f32, (lb.kn - lb.ks) as f32, lb.kb as f32),
            kt_kb: (lb.kt - lb.kb) as f32,
            a: lb.a,
            b: lb.b,
        }
    }
}

/// `dst = src` in single precision (as many entries as both have).
fn to_single(src: &[DVec3], dst: &mut [Vec3A]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = s.as_vec3a();
    }
}

/// `y = K x` over `bonds` (zero on fixed nodes): [`stiffness_product`]
/// in single precision.
///
/// [`stiffness_product`]: crate::stress::solver::stiffness_product
fn stiffness_product(
    bonds: &[Bond32],
    fixed: &[bool],
    x_u: &[Vec3A],
    x_t: &[Vec3A],
    y_u: &mut [Vec3A],
    y_t: &mut [Vec3A],
) {
    y_u.iter_mut().for_each(|v| *v = Vec3A::ZERO);
    y_t.iter_mut().for_each(|v| *v = Vec3A::ZERO);
    // All four at one length, so one bound check per end covers them
    // (an index past the shortest panics as before): nine checks a bond
    // were 18 of its 110 instructions.
    let n = x_u.len().min(x_t.len()).min(y_u.len()).min(y_t.len());
    let (x_u, x_t, y_u, y_t) = (&x_u[..n], &x_t[..n], &mut y_u[..n], &mut y_t[..n]);
    for lb in bonds {
        let (a, b) = (lb.a as usize, lb.b as usize);
        let delta = x_u[b] + cross(x_t[b], lb.rb) - x_u[a] - cross(x_t[a], lb.ra);
        let f = lb.k.x * delta + (lb.k.y * dot(lb.normal, delta)) * lb.normal;
        let phi = x_t[b] - x_t[a];
        let m = lb.k.z * phi + (lb.kt_kb * dot(lb.normal, phi)) * lb.normal;
        y_u[b] += f;
        y_t[b] += cross(lb.rb, f) + m;
        y_u[a] -= f;
        y_t[a] -= cross(lb.ra, f) + m;
    }
    for (k, &f) in fixed.iter().enumerate() {
        if f {
            y_u[k] = Vec3A::ZERO;
            y_t[k] = Vec3A::ZERO;
        }
    }
}

/// The single-precision state of the finest level's smoothing: its bonds
/// (all, and those between aggregates), inverse diagonal blocks and
/// vectors; storage reused from solve to solve.
#[derive(Clone, Debug, Default)]
pub(super) struct Jacobi {
    bonds: Vec<Bond32>,
    inter: Vec<Bond32>,
    inv: Vec<Block32>,
    r_u: Vec<Vec3A>,
    r_t: Vec<Vec3A>,
    z_u: Vec<Vec3A>,
    z_t: Vec<Vec3A>,
    t_u: Vec<Vec3A>,
    t_t: Vec<Vec3A>,
    e_u: Vec<Vec3A>,
    e_t: Vec<Vec3A>,
    ke_u: Vec<Vec3A>,
    ke_t: Vec<Vec3A>,
}

impl Jacobi {
    /// Starts taking the level's bonds and (double-precision) inverse
    /// diagonal blocks, one per node, for `len` nodes: no bond or block
    /// yet, the vectors sized, with room for `bonds` bonds (and as many
    /// between aggregates at most); [`Self::add_bonds`],
    /// [`Self::add_inverses`] and [`Self::add_inter`] take them in order,
    /// range by range.
    pub(super) fn start_build(&mut self, len: usize, bonds: usize) {
        clear_for(&mut self.bonds, bonds);
        clear_for(&mut self.inter, bonds);
        clear_for(&mut self.inv, len);
        resize(
            len,
            [
                &mut self.r_u,
                &mut self.r_t,
                &mut self.z_u,
                &mut self.z_t,
                &mut self.t_u,
                &mut self.t_t,
                &mut self.e_u,
                &mut self.e_t,
                &mut self.ke_u,
                &mut self.ke_t,
            ],
        );
    }

    /// Takes the bonds `bonds`, after those before them.
    pub(super) fn add_bonds(&mut self, bonds: &[LocalBond]) {
        self.bonds.extend(bonds.iter().map(Bond32::of));
    }

    /// Takes the inverse blocks `inv`, after those before them.
    pub(super) fn add_inverses(&mut self, inv: &[Block]) {
        self.inv.extend(inv.iter().map(Block32::of));
    }

    /// Adds bonds that a rigid motion of the aggregates deforms, after
    /// those before them.
    pub(super) fn add_inter<'a>(&mut self, inter: impl Iterator<Item = &'a LocalBond>) {
        self.inter.extend(inter.map(Bond32::of));
    }

    /// `r` from the solver; `z = 0` and `t = K z = 0`.
    pub(super) fn start(&mut self, r_u: &[DVec3], r_t: &[DVec3]) {
        to_single(r_u, &mut self.r_u);
        to_single(r_t, &mut self.r_t);
        for v in [&mut self.z_u, &mut self.z_t, &mut self.t_u, &mut self.t_t] {
            v.iter_mut().for_each(|x| *x = Vec3A::ZERO);
        }
    }

    /// `t = K z` (`fixed`: the level's fixed nodes).
    pub(super) fn product(&mut self, fixed: &[bool]) {
        stiffness_product(
            &self.bonds,
            fixed,
            &self.z_u,
            &self.z_t,
            &mut self.t_u,
            &mut self.t_t,
        );
    }

    /// `z ← z + ω D⁻¹ (r − t)` on free nodes.
    pub(super) fn smooth(&mut self, omega: f64, fixed: &[bool]) {
        let w = omega as f32;
        // Every vector cut to the nodes' count: no bound checks in the loop.
        let n = fixed.len();
        let (inv, r_u, r_t) = (&self.inv[..n], &self.r_u[..n], &self.r_t[..n]);
        let (t_u, t_t) = (&self.t_u[..n], &self.t_t[..n]);
        let (z_u, z_t) = (&mut self.z_u[..n], &mut self.z_t[..n]);
        for (i, &f) in fixed.iter().enumerate() {
            if f {
                continue;
            }
            let (y1, y2) = inv[i].mul(r_u[i] - t_u[i], r_t[i] - t_t[i]);
            z_u[i] += w * y1;
            z_t[i] += w * y2;
        }
    }

    /// `t ← t + K P e` and `z ← z + P e`, with `P e` given (the inter
    /// share of a product: a bond inside an aggregate sees its two ends
    /// move alike).
    pub(super) fn add_correction(&mut self, e_u: &[DVec3], e_t: &[DVec3], fixed: &[bool]) {
        to_single(e_u, &mut self.e_u);
        to_single(e_t, &mut self.e_t);
        stiffness_product(
            &self.inter,
            fixed,
            &self.e_u,
            &self.e_t,
            &mut self.ke_u,
            &mut self.ke_t,
        );
        let n = fixed.len();
        let (ke_u, ke_t, e_u, e_t) = (
            &self.ke_u[..n],
            &self.ke_t[..n],
            &self.e_u[..n],
            &self.e_t[..n],
        );
        let (t_u, t_t) = (&mut self.t_u[..n], &mut self.t_t[..n]);
        let (z_u, z_t) = (&mut self.z_u[..n], &mut self.z_t[..n]);
        for i in 0..n {
            t_u[i] += ke_u[i];
            t_t[i] += ke_t[i];
            z_u[i] += e_u[i];
            z_t[i] += e_t[i];
        }
    }

    /// `y = K x` in single precision (through the correction's scratch).
    pub(super) fn product_of(
        &mut self,
        x_u: &[DVec3],
        x_t: &[DVec3],
        y_u: &mut [DVec3],
        y_t: &mut [DVec3],
        fixed: &[bool],
    ) {
        to_single(x_u, &mut self.e_u);
        to_single(x_t, &mut self.e_t);
        stiffness_product(
            &self.bonds,
            fixed,
            &self.e_u,
            &self.e_t,
            &mut self.ke_u,
            &mut self.ke_t,
        );
        for (d, s) in y_u.iter_mut().zip(&self.ke_u) {
            *d = s.as_dvec3();
        }
        for (d, s) in y_t.iter_mut().zip(&self.ke_t) {
            *d = s.as_dvec3();
        }
    }

    /// `t = K z` in single precision, node by node (the restriction
    /// subtracts it, in double precision, from the solver's `r`).
    pub(super) fn products(&self) -> (&[Vec3A], &[Vec3A]) {
        (&self.t_u, &self.t_t)
    }

    /// `z` into the solver's vectors.
    pub(super) fn finish(&self, z_u: &mut [DVec3], z_t: &mut [DVec3]) {
        for (d, s) in z_u.iter_mut().zip(&self.z_u) {
            *d = s.as_dvec3();
        }
        for (d, s) in z_t.iter_mut().zip(&self.z_t) {
            *d = s.as_dvec3();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::BondIndex;
    use crate::stress::solver::stiffness_product as product_f64;

    /// The single-precision product and inverse blocks agree with the
    /// double-precision ones to single precision (a chain of 12 nodes,
    /// skewed bonds, the last node fixed).
    #[test]
    fn single_precision_agrees_with_double() {
        let n = 12;
        let centroid: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new(i as f64, 0.1 * (i as f64).sin(), 0.0))
            .collect();
        let mut fixed = vec![false; n];
        fixed[n - 1] = true;
        let bonds: Vec<LocalBond> = (0..n - 1)
            .map(|i| {
                let p = 0.5 * (centroid[i] + centroid[i + 1]) + DVec3::new(0.0, 0.05, 0.1);
                LocalBond {
                    bond: BondIndex(i as u32),
                    a: i as u32,
                    b: (i + 1) as u32,
                    normal: (centroid[i + 1] - centroid[i]).normalize(),
                    ra: p - centroid[i],
                    rb: p - centroid[i + 1],
                    kn: 1.0 + 0.1 * i as f64,
                    ks: 0.4,
                    kb: 0.05,
                    kt: 0.08,
                }
            })
            .collect();
        let x_u: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new((i as f64).cos(), 0.3, -0.2))
            .collect();
        let x_t: Vec<DVec3> = (0..n)
            .map(|i| DVec3::new(0.02, 0.1 * i as f64, 0.05))
            .collect();
        let (mut y_u, mut y_t) = (vec![DVec3::ZERO; n], vec![DVec3::ZERO; n]);
        product_f64(&bonds, &fixed, &x_u, &x_t, &mut y_u, &mut y_t);
        let b32: Vec<Bond32> = bonds.iter().map(Bond32::of).collect();
        let x32 = |v: &[DVec3]| v.iter().map(|x| x.as_vec3a()).collect::<Vec<_>>();
        let (mut z_u, mut z_t) = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
        stiffness_product(&b32, &fixed, &x32(&x_u), &x32(&x_t), &mut z_u, &mut z_t);
        let scale = y_u
            .iter()
            .chain(&y_t)
            .map(|v| v.length())
            .fold(0.0, f64::max);
        for i in 0..n {
            assert!((z_u[i].as_dvec3() - y_u[i]).length() <= 1e-6 * scale, "{i}");
            assert!((z_t[i].as_dvec3() - y_t[i]).length() <= 1e-6 * scale, "{i}");
        }
        assert_eq!(z_u[n - 1], Vec3A::ZERO);
        let m = |s: f64| {
            glam::DMat3::from_cols(
                DVec3::new(2.0 * s, 0.1, 0.0),
                DVec3::new(0.1, 1.5, 0.2),
                DVec3::new(0.0, 0.2, s),
            )
        };
        let blk = Block::from_parts(m(1.0), m(0.1), m(0.1), m(3.0));
        let (u, t) = (DVec3::new(0.3, -1.0, 2.0), DVec3::new(0.5, 0.25, -0.125));
        let (a_u, a_t) = blk.mul(u, t);
        let (b_u, b_t) = Block32::of(&blk).mul(u.as_vec3a(), t.as_vec3a());
        assert!((b_u.as_dvec3() - a_u).length() < 1e-5 * a_u.length());
        assert!((b_t.as_dvec3() - a_t).length() < 1e-5 * a_t.length());
    }
}
