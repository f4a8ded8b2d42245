//! Exact decimal numbers.
//!
//! Arithmetic checks must never go through `f64`: `0.1 + 0.2` is `0.3`, and a literal keeps
//! the number of decimals it was written with, which decides how a stated result may be
//! rounded. [`Decimal`] parses a number's source text into an exact rational.

use std::cmp::Ordering;
use std::fmt;

use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

// Re-exported so callers share one big-number vocabulary without depending on num-* directly.
pub use num_bigint::{BigInt, Sign};
pub use num_rational::BigRational;

/// Largest decimal exponent accepted in a literal (`1e400` is fine, `1e100000` is refused):
/// it bounds the size of the integers an untrusted input can make us build.
pub const MAX_EXPONENT: i64 = 4096;

/// An exact number parsed from decimal source text, with the number of fractional digits its
/// value really has as written (`15.00` → 2, `1.5e1` → 0, `2.5e-1` → 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    value: BigRational,
    frac_digits: u32,
}

/// Why a string is not a decimal number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseDecimalError {
    /// The text is not `[+-]digits[.digits][e[+-]digits]`.
    Syntax,
    /// The exponent is beyond [`MAX_EXPONENT`].
    ExponentOutOfRange,
}

impl fmt::Display for ParseDecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax => f.write_str("not a decimal number"),
            Self::ExponentOutOfRange => {
                write!(f, "exponent out of range (at most {MAX_EXPONENT} in magnitude)")
            }
        }
    }
}

impl std::error::Error for ParseDecimalError {}

/// Steps over an optional `-` or `+` at `*i`; true for `-`.
fn take_sign(bytes: &[u8], i: &mut usize) -> bool {
    match bytes.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

/// The run of ASCII digits starting at `*i` (possibly empty), stepped over.
fn take_digits<'a>(s: &'a str, i: &mut usize) -> &'a str {
    let start = *i;
    let bytes = s.as_bytes();
    while *i < bytes.len() && bytes[*i].is_ascii_digit() {
        *i += 1;
    }
    &s[start..*i]
}

impl Decimal {
    /// Parses JSON-number-like text: optional sign, digits, optional `.digits`, optional
    /// exponent. Leading `+` and leading zeros are accepted; surrounding whitespace is not.
    pub fn parse(s: &str) -> Result<Self, ParseDecimalError> {
        let bytes = s.as_bytes();
        let mut i = 0;
        let negative = take_sign(bytes, &mut i);
        let int_digits = take_digits(s, &mut i);
        let mut frac_digits_str = "";
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            frac_digits_str = take_digits(s, &mut i);
            if frac_digits_str.is_empty() {
                return Err(ParseDecimalError::Syntax);
            }
        }
        if int_digits.is_empty() && frac_digits_str.is_empty() {
            return Err(ParseDecimalError::Syntax);
        }
        if int_digits.is_empty() {
            // ".5" is not a JSON number and not what people write in results.
            return Err(ParseDecimalError::Syntax);
        }
        let mut exponent: i64 = 0;
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            i += 1;
            let exp_neg = take_sign(bytes, &mut i);
            let digits = take_digits(s, &mut i);
            if digits.is_empty() {
                return Err(ParseDecimalError::Syntax);
            }
            let trimmed = digits.trim_start_matches('0');
            if trimmed.len() > 6 {
                return Err(ParseDecimalError::ExponentOutOfRange);
            }
            let mag: i64 = if trimmed.is_empty() { 0 } else { trimmed.parse().map_err(|_| ParseDecimalError::Syntax)? };
            if mag > MAX_EXPONENT {
                return Err(ParseDecimalError::ExponentOutOfRange);
            }
            exponent = if exp_neg { -mag } else { mag };
        }
        if i != bytes.len() {
            return Err(ParseDecimalError::Syntax);
        }
        let scale = exponent - frac_digits_str.len() as i64;
        // Fast path: up to 18 digits and a small scale fit machine integers; reduce with a
        // machine gcd instead of building and reducing big integers.
        if int_digits.len() + frac_digits_str.len() <= 18 && (-18..=0).contains(&scale) {
            let mut m: i64 = 0;
            for b in int_digits.bytes().chain(frac_digits_str.bytes()) {
                m = m * 10 + i64::from(b - b'0');
            }
            let mut den: i64 = 10i64.pow((-scale) as u32);
            let g = gcd_u64(m.unsigned_abs(), den.unsigned_abs()) as i64;
            m /= g.max(1);
            den /= g.max(1);
            if negative {
                m = -m;
            }
            let value = BigRational::new_raw(BigInt::from(m), BigInt::from(den));
            return Ok(Self { value, frac_digits: (-scale) as u32 });
        }
        let mut digits = String::with_capacity(int_digits.len() + frac_digits_str.len());
        digits.push_str(int_digits);
        digits.push_str(frac_digits_str);
        let mantissa: BigInt = digits.parse().map_err(|_| ParseDecimalError::Syntax)?;
        let mantissa = if negative { -mantissa } else { mantissa };
        // value = mantissa * 10^(exponent - frac_len)
        let value = if scale >= 0 {
            BigRational::from_integer(mantissa * pow10(scale as u32))
        } else {
            BigRational::new(mantissa, pow10((-scale) as u32))
        };
        // Digits after the point once the exponent is applied, trailing zeros included.
        let frac_digits = if scale >= 0 { 0 } else { (-scale) as u32 };
        Ok(Self { value, frac_digits })
    }

    /// Wraps an exact rational (e.g. a computed value); its fractional digit count is the
    /// number it needs to be written exactly, or 0 for a non-terminating decimal.
    pub fn from_rational(value: BigRational) -> Self {
        Self { value, frac_digits: 0 }
    }

    /// The exact value.
    pub fn value(&self) -> &BigRational {
        &self.value
    }

    /// Consumes the decimal and returns its exact value.
    pub fn into_value(self) -> BigRational {
        self.value
    }

    /// Fractional digits the literal carries (trailing zeros of the written fraction count:
    /// `15.00` has 2; an exponent moves them: `1.25e1` has 1).
    pub fn frac_digits(&self) -> u32 {
        self.frac_digits
    }
}

/// Decimal digits of an integer without the formatting machinery.
fn itoa(n: i64) -> String {
    let mut s = String::with_capacity(21);
    if n < 0 {
        s.push('-');
    }
    push_decimal(&mut s, n.unsigned_abs());
    s
}

/// Appends the decimal digits of `n` to `out`, without the formatting machinery (`format!`
/// is a measurable share of code that writes many small numbers).
pub fn push_decimal(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut m = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (m % 10) as u8;
        m /= 10;
        if m == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.extend(buf[i..].iter().map(|&d| char::from(d)));
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `10^n` as a big integer.
pub fn pow10(n: u32) -> BigInt {
    num_traits::pow(BigInt::from(10u8), n as usize)
}

/// Rounds to `d` decimal places, ties to even.
pub fn round_half_even(v: &BigRational, d: u32) -> BigRational {
    let scale = pow10(d);
    let scaled = v * BigRational::from_integer(scale.clone());
    let floor = scaled.floor();
    let diff = &scaled - &floor;
    let half = BigRational::new(BigInt::one(), BigInt::from(2u8));
    let mut n = floor.to_integer();
    match diff.cmp(&half) {
        Ordering::Greater => n += 1,
        Ordering::Equal => {
            if n.is_odd() {
                n += 1;
            }
        }
        Ordering::Less => {}
    }
    BigRational::new(n, scale)
}

/// Writes an exact rational as a decimal string: exactly when it terminates within
/// `max_frac` digits, otherwise rounded half-even to `max_frac` digits and marked with `…`.
pub fn format_rational(v: &BigRational, max_frac: u32) -> String {
    // Fast path: integers (most values in practice) need no scaling or rounding.
    if v.denom().is_one() {
        return match v.numer().to_i64() {
            Some(n) => itoa(n),
            None => v.numer().to_string(),
        };
    }
    if let (Some(n), Some(d)) = (v.numer().to_i128(), v.denom().to_u64()) {
        // Small terminating fractions: scale by the power of ten the denominator divides.
        let mut scale: u64 = 1;
        let mut digits = 0u32;
        while digits <= max_frac.min(18) {
            if scale.is_multiple_of(d)
                && let Some(scaled) = n.checked_mul(i128::from(scale / d))
            {
                let neg = scaled < 0;
                let mut s = scaled.unsigned_abs().to_string();
                let k = digits as usize;
                if s.len() <= k {
                    s = format!("{}{}", "0".repeat(k + 1 - s.len()), s);
                }
                s.insert(s.len() - k, '.');
                if neg {
                    s.insert(0, '-');
                }
                return s;
            }
            scale *= 10;
            digits += 1;
        }
        if let Some(s) = format_rounded_small(n, d, max_frac) {
            return s;
        }
    }
    format_rational_big(v, max_frac)
}

/// [`format_rational`] for a fraction that does not terminate within `max_frac` digits, in
/// machine integers: `n/d` rounded half-even to `max_frac` digits and marked with `…`. `None`
/// when it does terminate (a longer exact expansion), or the numbers are too large.
fn format_rounded_small(n: i128, d: u64, max_frac: u32) -> Option<String> {
    if d == 0 || max_frac > 18 {
        return None;
    }
    // Terminates within `max_frac` digits iff d = 2^a 5^b with max(a, b) <= max_frac.
    let (mut rest, mut twos, mut fives) = (d, 0u32, 0u32);
    while rest % 2 == 0 {
        rest /= 2;
        twos += 1;
    }
    while rest % 5 == 0 {
        rest /= 5;
        fives += 1;
    }
    if rest == 1 && twos.max(fives) <= max_frac {
        return None;
    }
    let scaled = n.checked_mul(10i128.pow(max_frac))?;
    let d = i128::from(d);
    // Floor division, then the remainder against one half (ties to even).
    let (mut q, r) = (scaled.div_euclid(d), scaled.rem_euclid(d));
    match (2 * r).cmp(&d) {
        Ordering::Greater => q += 1,
        Ordering::Equal if q % 2 != 0 => q += 1,
        _ => {}
    }
    let mut s = String::with_capacity(max_frac as usize + 24);
    if q < 0 {
        s.push('-');
    }
    let digits = q.unsigned_abs().to_string();
    let k = max_frac as usize;
    if k == 0 {
        s.push_str(&digits);
    } else {
        if digits.len() <= k {
            s.push('0');
            s.push('.');
            s.extend(std::iter::repeat_n('0', k - digits.len()));
            s.push_str(&digits);
        } else {
            s.push_str(&digits[..digits.len() - k]);
            s.push('.');
            s.push_str(&digits[digits.len() - k..]);
        }
    }
    s.push('…');
    Some(s)
}

/// [`format_rational`] in big integers (any size).
fn format_rational_big(v: &BigRational, max_frac: u32) -> String {
    // A rational terminates iff its reduced denominator has only factors 2 and 5.
    let mut den = v.denom().clone();
    let two = BigInt::from(2u8);
    let five = BigInt::from(5u8);
    let mut twos = 0u32;
    let mut fives = 0u32;
    while (&den % &two).is_zero() {
        den /= &two;
        twos += 1;
    }
    while (&den % &five).is_zero() {
        den /= &five;
        fives += 1;
    }
    let (digits, exact) = if den.is_one() && twos.max(fives) <= max_frac { (twos.max(fives), true) } else { (max_frac, false) };
    let rounded = round_half_even(v, digits);
    let scaled = (rounded * BigRational::from_integer(pow10(digits))).to_integer();
    let negative = scaled.is_negative();
    let mut s = scaled.abs().to_string();
    if digits > 0 {
        let d = digits as usize;
        if s.len() <= d {
            s = format!("{}{}", "0".repeat(d + 1 - s.len()), s);
        }
        s.insert(s.len() - d, '.');
    }
    if negative {
        s.insert(0, '-');
    }
    if !exact {
        s.push('…');
    }
    s
}

/// Best-effort `f64` view of an exact value, for display and heuristics only.
pub fn to_f64(v: &BigRational) -> f64 {
    v.to_f64().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }
    fn r(n: i64, m: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(m))
    }

    #[test]
    fn parses_exactly() {
        assert_eq!(d("19.99").value(), &r(1999, 100));
        assert_eq!(d("-0.5").value(), &r(-1, 2));
        assert_eq!(d("15.00").frac_digits(), 2);
        assert_eq!(d("15").frac_digits(), 0);
        assert_eq!(d("1.25e1").value(), &r(125, 10));
        assert_eq!(d("1.25e1").frac_digits(), 1);
        assert_eq!(d("2.5E-1").value(), &r(1, 4));
        assert_eq!(d("2.5E-1").frac_digits(), 2);
        assert_eq!(d("1e3").value(), &r(1000, 1));
        assert_eq!(d("+7").value(), &r(7, 1));
        assert_eq!(d("16.830000000000002").frac_digits(), 15);
        assert_eq!(d("0.50").value(), &r(1, 2), "fast path reduces");
        assert_eq!(d("-0.0").value(), &r(0, 1));
        assert_eq!(
            d("123456789012345678901234.5").value(),
            &BigRational::new("1234567890123456789012345".parse().unwrap(), BigInt::from(10))
        );
    }

    #[test]
    fn rejects_bad_syntax_and_huge_exponents() {
        for bad in ["", "-", "1.", ".5", "1e", "1e+", "abc", "1 ", " 1", "1.2.3", "0x10", "--1"] {
            assert_eq!(Decimal::parse(bad), Err(ParseDecimalError::Syntax), "{bad:?}");
        }
        assert_eq!(Decimal::parse("1e99999"), Err(ParseDecimalError::ExponentOutOfRange));
        assert_eq!(Decimal::parse("1e-9999999999"), Err(ParseDecimalError::ExponentOutOfRange));
    }

    #[test]
    fn rounds_half_even() {
        assert_eq!(round_half_even(&r(100, 3), 2), r(3333, 100));
        assert_eq!(round_half_even(&r(25, 10), 0), r(2, 1));
        assert_eq!(round_half_even(&r(35, 10), 0), r(4, 1));
        assert_eq!(round_half_even(&r(-25, 10), 0), r(-2, 1));
        assert_eq!(round_half_even(&r(-26, 10), 0), r(-3, 1));
        assert_eq!(round_half_even(&r(1683, 100), 2), r(1683, 100));
    }

    #[test]
    fn formats_terminating_and_repeating() {
        assert_eq!(format_rational(&r(1683, 100), 10), "16.83");
        assert_eq!(format_rational(&r(-1, 4), 10), "-0.25");
        assert_eq!(format_rational(&r(12, 1), 10), "12");
        assert_eq!(format_rational(&r(-9_223_372_036_854_775_807, 1), 0), "-9223372036854775807");
        assert_eq!(format_rational(&r(0, 1), 3), "0");
        assert_eq!(format_rational(&r(100, 3), 4), "33.3333…");
        assert_eq!(format_rational(&r(-2, 3), 12), "-0.666666666667…");
        assert_eq!(format_rational(&r(1, 3), 0), "0…");
        assert_eq!(format_rational(&r(5, 2), 0), "2…");
        assert_eq!(format_rational(&r(7, 2), 0), "4…");
    }

    proptest::proptest! {
        /// The machine-integer paths write exactly what the big-integer path writes.
        #[test]
        fn small_paths_match_the_big_one(n in -10_000_000_000_000i64..10_000_000_000_000, d in 1i64..2_000_000_000, k in 0u32..14) {
            let v = r(n, d);
            proptest::prop_assert_eq!(format_rational(&v, k), format_rational_big(&v, k));
        }

        #[test]
        fn small_paths_match_the_big_one_near_ties(q in -1_000_000i64..1_000_000, k in 0u32..6, den in proptest::sample::select(vec![3i64, 6, 7, 12, 14, 40, 80, 625, 1024, 3000])) {
            // Values at and around rounding ties: (2q+1)/(2*10^k) and neighbours.
            let t = 2 * 10i64.pow(k);
            for v in [r(2 * q + 1, t), r(2 * q + 1, t * den), r(q, den), r(q * den + 1, den * t)] {
                proptest::prop_assert_eq!(format_rational(&v, k), format_rational_big(&v, k));
            }
        }
    }
}
