//! Scores in [0, 1] with two decimals (§4, §5, §6.2), held exactly as hundredths.
//!
//! Every arithmetic step rounds half-even to two decimals: merges (`max − σ`), the ×0.85
//! promotion factor, the −0.05 adjustments. Working in integer hundredths keeps the rounding
//! exact and the output stable across platforms.

use serde::{Serialize, Serializer};

/// A score in [0, 1] with two decimals, stored as hundredths (0–100).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Score(u8);

impl Score {
    /// 1.0.
    pub const ONE: Score = Score(100);
    /// 0.0.
    pub const ZERO: Score = Score(0);

    /// From hundredths, clamped to 100.
    pub const fn hundredths(h: u8) -> Self {
        Self(if h > 100 { 100 } else { h })
    }

    /// The value in hundredths.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// As a float (for reports and formulas).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 100.0
    }

    /// Rounds a value in [0, 1] half-even to two decimals; out-of-range values clamp and NaN is 0.
    pub fn from_f64(v: f64) -> Self {
        if v.is_nan() || v <= 0.0 {
            return Self(0);
        }
        if v >= 1.0 {
            return Self(100);
        }
        let scaled = v * 100.0;
        let floor = scaled.floor();
        let frac = scaled - floor;
        // Ties only occur for exactly representable halves; compare with a tolerance for the
        // binary error of `v * 100`.
        let h = if (frac - 0.5).abs() < 1e-9 {
            if (floor as u64).is_multiple_of(2) { floor } else { floor + 1.0 }
        } else {
            scaled.round()
        };
        Self(h.clamp(0.0, 100.0) as u8)
    }

    /// `self × factor_h / 100`, rounded half-even (the ×0.85 promotion factor is `scale(85)`).
    pub fn scale(self, factor_h: u8) -> Self {
        Self::hundredths(round_half_even(i128::from(self.0) * i128::from(factor_h), 100).clamp(0, 100) as u8)
    }

    /// `self − h`, floored at zero.
    pub fn minus(self, h: u8) -> Self {
        Self(self.0.saturating_sub(h))
    }
}

impl Serialize for Score {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.as_f64())
    }
}

/// `num / den` rounded half-even to an integer (`den > 0`).
pub fn round_half_even(num: i128, den: i128) -> i128 {
    let q = num.div_euclid(den);
    let r = num.rem_euclid(den);
    match (2 * r).cmp(&den) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => {
            if q % 2 == 0 {
                q
            } else {
                q + 1
            }
        }
    }
}

fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let mut x = (n as f64).sqrt() as u128;
    while x * x > n {
        x -= 1;
    }
    while (x + 1) * (x + 1) <= n {
        x += 1;
    }
    x
}

/// The §6.2 merge: `max(cᵢ) − σ(cᵢ)` with σ the population standard deviation, floored at
/// zero, never above the maximum, rounded half-even to two decimals. Empty input gives zero.
pub fn merge_confidence(cs: &[Score]) -> Score {
    let Some(max) = cs.iter().max().copied() else { return Score::ZERO };
    let n = cs.len() as i128;
    let s1: i128 = cs.iter().map(|c| i128::from(c.0)).sum();
    let s2: i128 = cs.iter().map(|c| i128::from(c.0) * i128::from(c.0)).sum();
    // n²·variance, exact.
    let big_n = (n * s2 - s1 * s1).max(0) as u128;
    let k = isqrt(big_n);
    let h = if k * k == big_n {
        // σ = k / n exactly: round (n·max − k) / n.
        round_half_even(n * i128::from(max.0) - k as i128, n)
    } else {
        // σ is irrational, so no tie is possible.
        (f64::from(max.0) - (big_n as f64).sqrt() / n as f64).round() as i128
    };
    Score::hundredths(h.clamp(0, i128::from(max.0)) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(h: u8) -> Score {
        Score::hundredths(h)
    }

    #[test]
    fn the_spec_worked_example() {
        // 0.90 and 0.70: σ = 0.10, merged 0.80.
        assert_eq!(merge_confidence(&[s(90), s(70)]), s(80));
        assert_eq!(merge_confidence(&[s(90)]), s(90));
        assert_eq!(merge_confidence(&[s(80), s(80), s(80)]), s(80));
        assert_eq!(merge_confidence(&[]), s(0));
    }

    #[test]
    fn ties_round_half_even() {
        // 0.90 and 0.85: σ = 0.025, 0.875 → 0.88 (8 is even).
        assert_eq!(merge_confidence(&[s(90), s(85)]), s(88));
        // 0.95 and 0.90: σ = 0.025, 0.925 → 0.92.
        assert_eq!(merge_confidence(&[s(95), s(90)]), s(92));
        assert_eq!(round_half_even(5, 2), 2);
        assert_eq!(round_half_even(7, 2), 4);
        assert_eq!(round_half_even(-5, 2), -2);
    }

    #[test]
    fn merge_is_floored_and_capped() {
        assert_eq!(merge_confidence(&[s(100), s(0)]), s(50));
        assert_eq!(merge_confidence(&[s(10), s(0), s(0), s(0)]), s(6));
        assert!(merge_confidence(&[s(3), s(100), s(0)]) <= s(100));
    }

    #[test]
    fn scale_and_minus() {
        assert_eq!(s(95).scale(85), s(81)); // 80.75 → 81
        assert_eq!(s(90).scale(85), s(76)); // 76.5 → 76 (even)
        assert_eq!(s(70).scale(85), s(60)); // 59.5 → 60 (even)
        assert_eq!(s(3).minus(5), s(0));
        assert_eq!(Score::from_f64(0.125), s(12));
        assert_eq!(Score::from_f64(0.135), s(14));
        assert_eq!(Score::from_f64(2.0), s(100));
    }

    #[test]
    fn serialises_as_a_two_decimal_number() {
        assert_eq!(serde_json::to_string(&s(85)).unwrap(), "0.85");
        assert_eq!(serde_json::to_string(&s(90)).unwrap(), "0.9");
        assert_eq!(serde_json::to_string(&s(100)).unwrap(), "1.0");
        assert_eq!(serde_json::to_string(&s(7)).unwrap(), "0.07");
    }
}
