//! The cross-section of a bond face: area and the section moduli that turn
//! moments into fibre stresses.
//!
//! Bonds carry only their face area (no face polygon), so the face is taken
//! as the **equivalent square** of the same area, side `a = √A`:
//!
//! * bending section modulus `S = I / (a/2) = a³ / 6` (I = a⁴/12), so the
//!   extreme-fibre bending stress is `σ = M / S`;
//! * torsional section modulus `W_t = 0.208 a³`, so the largest torsional
//!   shear stress is `τ = T / W_t` (Roark's Formulas for Stress and Strain,
//!   table 10.1, square bar, b/a = 1: α = 0.208).
//!
//! The same square sets the bond's rotational spring stiffness in the
//! solver (second moment `I = A²/12`, polar `J = 2I`).

/// Area and moduli of one bond face (equivalent square).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Section {
    /// Face area A, m². Positive.
    pub area: f64,
    /// Bending section modulus S, m³.
    pub bending_modulus: f64,
    /// Torsional section modulus W_t, m³.
    pub torsion_modulus: f64,
    /// Second moment of area about an in-face axis, m⁴.
    pub second_moment: f64,
}

/// α of the torsional section modulus of a square, `W_t = α a³`.
pub const SQUARE_TORSION_ALPHA: f64 = 0.208;

impl Section {
    /// The equivalent square of area `area` (m², > 0).
    pub fn equivalent_square(area: f64) -> Self {
        let a = area.sqrt();
        let a3 = area * a;
        Self {
            area,
            bending_modulus: a3 / 6.0,
            torsion_modulus: SQUARE_TORSION_ALPHA * a3,
            second_moment: area * area / 12.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_square_moduli_are_one_sixth_and_0_208() {
        let s = Section::equivalent_square(1.0);
        assert!((s.bending_modulus - 1.0 / 6.0).abs() < 1e-12);
        assert!((s.torsion_modulus - 0.208).abs() < 1e-12);
        // A 0.5 m square: S = 0.125 / 6.
        let s = Section::equivalent_square(0.25);
        assert!((s.bending_modulus - 0.125 / 6.0).abs() < 1e-12);
    }
}
