//! Numbers in messages people read: four significant digits, plain
//! notation from 0.001 to 999 999, scientific outside it, trailing zeros
//! dropped. Error messages and reports format every measured value (a
//! position, a volume, a time) through [`sig`], so a position near zero
//! reads `1.238e-15`, not `0.000000000000001237562040387987`, and a huge
//! volume reads `7.5e29`, not thirty digits.
//!
//! ```
//! use smithereens_core::quantity::sig;
//! assert_eq!(sig(0.000000000000001237562040387987_f64).to_string(), "1.238e-15");
//! assert_eq!(sig(2.5_f32).to_string(), "2.5");
//! assert_eq!(sig(7.5e29_f64).to_string(), "7.5e29");
//! assert_eq!(sig(-0.0214_f32).to_string(), "-0.0214");
//! assert_eq!(sig(glam::DVec3::new(1.0, 0.5, 1e-20)).to_string(), "[1, 0.5, 1e-20]");
//! ```

use std::fmt;

/// Significant digits shown.
const DIGITS: i32 = 4;

/// A value wrapped for display with `DIGITS` significant digits; build it with [`sig`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sig<T>(pub T);

/// Wraps `value` so that it displays with four significant digits (see the module docs).
pub fn sig<T>(value: T) -> Sig<T> {
    Sig(value)
}

fn write_number(f: &mut fmt::Formatter<'_>, x: f64) -> fmt::Result {
    if !x.is_finite() {
        return write!(f, "{x}");
    }
    if x == 0.0 {
        return f.write_str("0");
    }
    let magnitude = x.abs().log10().floor() as i32;
    let text = if (-3..6).contains(&magnitude) {
        let decimals = (DIGITS - 1 - magnitude).max(0) as usize;
        let t = format!("{x:.decimals$}");
        let t = if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        };
        // Rounding may reach the next power of ten (999_999.9 → "1000000").
        if t.parse::<f64>().is_ok_and(|r| r.abs() >= 1e6) {
            format!("{x:.*e}", (DIGITS - 1) as usize)
        } else {
            t
        }
    } else {
        format!("{x:.*e}", (DIGITS - 1) as usize)
    };
    let text = match text.split_once('e') {
        Some((mantissa, exponent)) if mantissa.contains('.') => {
            let m = mantissa.trim_end_matches('0').trim_end_matches('.');
            format!("{m}e{exponent}")
        }
        _ => text,
    };
    f.write_str(if text == "-0" { "0" } else { &text })
}

impl fmt::Display for Sig<f64> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_number(f, self.0)
    }
}

impl fmt::Display for Sig<f32> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_number(f, self.0 as f64)
    }
}

fn write_vector(f: &mut fmt::Formatter<'_>, v: [f64; 3]) -> fmt::Result {
    f.write_str("[")?;
    write_number(f, v[0])?;
    f.write_str(", ")?;
    write_number(f, v[1])?;
    f.write_str(", ")?;
    write_number(f, v[2])?;
    f.write_str("]")
}

impl fmt::Display for Sig<glam::DVec3> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_vector(f, self.0.to_array())
    }
}

impl fmt::Display for Sig<glam::Vec3> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_vector(f, self.0.as_dvec3().to_array())
    }
}

/// A borrowed value displays as the value (for error attributes, whose
/// fields are references).
impl<T: Copy> fmt::Display for Sig<&T>
where
    Sig<T>: fmt::Display,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Sig(*self.0).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::sig;

    #[test]
    fn numbers_keep_four_significant_digits_and_drop_trailing_zeros() {
        let cases: [(f64, &str); 14] = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (1.23456, "1.235"),
            (-0.021449, "-0.02145"),
            (0.001, "0.001"),
            (0.000999, "9.99e-4"),
            (123456.0, "123456"),
            (999_999.9, "1e6"),
            (1e6, "1e6"),
            (2e30, "2e30"),
            (7.5e29, "7.5e29"),
            (1.237562040387987e-15, "1.238e-15"),
            (f64::NAN, "NaN"),
        ];
        for (x, text) in cases {
            assert_eq!(sig(x).to_string(), text, "{x:e}");
        }
        assert_eq!(sig(f32::INFINITY).to_string(), "inf");
    }
}
