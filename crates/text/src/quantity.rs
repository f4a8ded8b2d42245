//! Numbers, money, percentages, durations and physical quantities in prose, with their
//! normalised values.
//!
//! [`find_quantities`] scans text once and returns every numeric mention with its byte range,
//! exact value and, when a unit follows, the unit and the value converted to a canonical unit
//! (seconds, metres, grams, litres, bytes, …). Verification compares claims and sources through
//! these canonical values, so `60 minutes` meets `1 hour` and `90-day` meets `90 days`.

use std::ops::Range;
use std::sync::LazyLock;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::ToPrimitive;

use crate::number::Decimal;

/// What a numeric mention measures.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dimension {
    /// A bare number.
    Number,
    /// An amount of money in a currency (ISO 4217 code, or `UNKNOWN`).
    Money(String),
    /// A percentage.
    Percent,
    /// Time span (canonical: seconds).
    Duration,
    /// Length (canonical: metres).
    Length,
    /// Mass (canonical: grams).
    Mass,
    /// Volume (canonical: litres).
    Volume,
    /// Digital storage (canonical: bytes).
    Data,
    /// Temperature (canonical: degrees Celsius).
    Temperature,
    /// Speed (canonical: metres per second).
    Speed,
    /// Frequency (canonical: hertz).
    Frequency,
    /// Power (canonical: watts).
    Power,
    /// Area (canonical: square metres).
    Area,
}

impl Dimension {
    /// The entity type Warrant uses for this dimension.
    pub fn entity_type(&self) -> &'static str {
        match self {
            Self::Number => "NUMBER",
            Self::Money(_) => "MONEY",
            Self::Percent => "PERCENT",
            Self::Duration => "DURATION",
            _ => "QUANTITY",
        }
    }

    /// Name of the canonical unit.
    pub fn canonical_unit(&self) -> Option<&'static str> {
        Some(match self {
            Self::Duration => "second",
            Self::Length => "metre",
            Self::Mass => "gram",
            Self::Volume => "litre",
            Self::Data => "byte",
            Self::Temperature => "celsius",
            Self::Speed => "metre_per_second",
            Self::Frequency => "hertz",
            Self::Power => "watt",
            Self::Area => "square_metre",
            _ => return None,
        })
    }
}

/// A numeric mention in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    /// Byte range of the whole mention (`$1.2 million`, `30 minutes`, `90-day`).
    pub range: Range<usize>,
    /// The number as written, scaled (`1.2 million` → 1,200,000; `15%` → 15).
    pub value: BigRational,
    /// What it measures.
    pub dimension: Dimension,
    /// The unit as written, lower-cased (`minutes`, `kg`), if any.
    pub unit: Option<String>,
    /// How `value` converts to the canonical unit (computed on demand by [`Quantity::canonical`]).
    conversion: Conversion,
    /// True when the conversion is approximate (months and years as durations).
    pub approximate: bool,
}

fn ratio(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// How a quantity's value converts to its dimension's canonical unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conversion {
    /// No canonical value (a bare number).
    None,
    /// The value itself (money, percentages, Celsius).
    Same,
    /// Multiply by `UNITS[i].factor`.
    Unit(usize),
    /// Cents to dollars.
    Cents,
    /// Fahrenheit to Celsius.
    Fahrenheit,
}

impl Quantity {
    /// `value` in the canonical unit of its dimension (durations in seconds, …); `None` for
    /// bare numbers.
    pub fn canonical(&self) -> Option<BigRational> {
        Some(match self.conversion {
            Conversion::None => return None,
            Conversion::Same => self.value.clone(),
            Conversion::Unit(i) => {
                let (c, d) = UNITS[i].factor;
                // Small values multiply in machine integers, reduced with a machine gcd (the
                // factor is not built as a big rational: that cost a big-integer gcd per call).
                match (self.value.numer().to_i64(), self.value.denom().to_i64()) {
                    (Some(a), Some(b)) => {
                        let (n, m) = (i128::from(a) * i128::from(c), i128::from(b) * i128::from(d));
                        let g = gcd_u128(n.unsigned_abs(), m.unsigned_abs()).max(1) as i128;
                        BigRational::new_raw(BigInt::from(n / g), BigInt::from(m / g))
                    }
                    _ => &self.value * ratio(c, d),
                }
            }
            Conversion::Cents => &self.value / int(100),
            Conversion::Fahrenheit => (&self.value - int(32)) * ratio(5, 9),
        })
    }
}

fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A unit: its spellings, dimension, factor to the canonical unit, and whether approximate.
struct Unit {
    names: &'static [&'static str],
    dim: fn() -> Dimension,
    /// Numerator and (positive) denominator of the factor.
    factor: (i64, i64),
    approx: bool,
}

macro_rules! unit {
    ($names:expr, $dim:expr, $num:expr, $den:expr) => {
        Unit { names: $names, dim: || $dim, factor: ($num, $den), approx: false }
    };
    ($names:expr, $dim:expr, $num:expr, $den:expr, approx) => {
        Unit { names: $names, dim: || $dim, factor: ($num, $den), approx: true }
    };
}

/// Units, longest spellings first within each entry so the regex alternation prefers them.
static UNITS: LazyLock<Vec<Unit>> = LazyLock::new(|| {
    use Dimension::*;
    vec![
        unit!(&["milliseconds", "millisecond", "msec", "ms"], Duration, 1, 1000),
        unit!(&["seconds", "second", "secs", "sec", "s"], Duration, 1, 1),
        unit!(&["minutes", "minute", "mins", "min"], Duration, 60, 1),
        unit!(&["hours", "hour", "hrs", "hr", "h"], Duration, 3600, 1),
        unit!(&["days", "day", "d"], Duration, 86_400, 1),
        unit!(&["weeks", "week", "wks", "wk"], Duration, 604_800, 1),
        unit!(&["fortnights", "fortnight"], Duration, 1_209_600, 1),
        unit!(&["months", "month", "mos", "mo"], Duration, 2_629_746, 1, approx),
        unit!(&["years", "year", "yrs", "yr"], Duration, 31_556_952, 1, approx),
        unit!(&["kilometres", "kilometers", "kilometre", "kilometer", "km"], Length, 1000, 1),
        unit!(&["centimetres", "centimeters", "centimetre", "centimeter", "cm"], Length, 1, 100),
        unit!(&["millimetres", "millimeters", "millimetre", "millimeter", "mm"], Length, 1, 1000),
        unit!(&["metres", "meters", "metre", "meter", "m"], Length, 1, 1),
        unit!(&["miles", "mile", "mi"], Length, 1_609_344, 1000),
        unit!(&["feet", "foot", "ft"], Length, 3048, 10_000),
        unit!(&["inches", "inch"], Length, 254, 10_000),
        unit!(&["yards", "yard", "yd"], Length, 9144, 10_000),
        unit!(&["kilograms", "kilogram", "kilos", "kilo", "kg"], Mass, 1000, 1),
        unit!(&["milligrams", "milligram", "mg"], Mass, 1, 1000),
        unit!(&["micrograms", "microgram", "mcg", "µg"], Mass, 1, 1_000_000),
        unit!(&["grams", "gram", "g"], Mass, 1, 1),
        unit!(&["tonnes", "tonne", "metric tons"], Mass, 1_000_000, 1),
        unit!(&["pounds", "pound", "lbs", "lb"], Mass, 45_359_237, 100_000),
        unit!(&["ounces", "ounce", "oz"], Mass, 28_349_523_125, 1_000_000_000),
        unit!(&["millilitres", "milliliters", "millilitre", "milliliter", "ml"], Volume, 1, 1000),
        unit!(&["litres", "liters", "litre", "liter", "l"], Volume, 1, 1),
        unit!(&["gallons", "gallon", "gal"], Volume, 3_785_411_784, 1_000_000_000),
        unit!(&["terabytes", "terabyte", "tb"], Data, 1_000_000_000_000, 1),
        unit!(&["gigabytes", "gigabyte", "gb"], Data, 1_000_000_000, 1),
        unit!(&["megabytes", "megabyte", "mb"], Data, 1_000_000, 1),
        unit!(&["kilobytes", "kilobyte", "kb"], Data, 1000, 1),
        unit!(&["tib"], Data, 1_099_511_627_776, 1),
        unit!(&["gib"], Data, 1_073_741_824, 1),
        unit!(&["mib"], Data, 1_048_576, 1),
        unit!(&["kib"], Data, 1024, 1),
        unit!(&["bytes", "byte"], Data, 1, 1),
        unit!(&["km/h", "kmh", "kph"], Speed, 1000, 3600),
        unit!(&["mph"], Speed, 1_609_344, 3_600_000),
        unit!(&["m/s", "metres per second", "meters per second", "metre per second", "meter per second"], Speed, 1, 1),
        unit!(&["kilometres per hour", "kilometers per hour", "km per hour"], Speed, 1000, 3600),
        unit!(&["miles per hour"], Speed, 1_609_344, 3_600_000),
        unit!(&["ghz"], Frequency, 1_000_000_000, 1),
        unit!(&["mhz"], Frequency, 1_000_000, 1),
        unit!(&["khz"], Frequency, 1000, 1),
        unit!(&["hz"], Frequency, 1, 1),
        unit!(&["kilowatts", "kilowatt", "kw"], Power, 1000, 1),
        unit!(&["megawatts", "megawatt", "mw"], Power, 1_000_000, 1),
        unit!(&["watts", "watt", "w"], Power, 1, 1),
        unit!(&["square metres", "square meters", "sq m", "m²", "m2"], Area, 1, 1),
        unit!(&["square kilometres", "square kilometers", "sq km", "km²", "km2"], Area, 1_000_000, 1),
        unit!(&["square feet", "sq ft", "ft²"], Area, 9_290_304, 100_000_000),
        unit!(&["acres", "acre"], Area, 40_468_564_224, 10_000_000),
        unit!(&["hectares", "hectare", "ha"], Area, 10_000, 1),
    ]
});

/// Currency symbols and words → ISO codes.
const CURRENCIES: &[(&str, &str)] = &[
    ("$", "USD"),
    ("us$", "USD"),
    ("usd", "USD"),
    ("dollars", "USD"),
    ("dollar", "USD"),
    ("€", "EUR"),
    ("eur", "EUR"),
    ("euros", "EUR"),
    ("euro", "EUR"),
    ("£", "GBP"),
    ("gbp", "GBP"),
    ("pounds sterling", "GBP"),
    ("¥", "JPY"),
    ("jpy", "JPY"),
    ("yen", "JPY"),
    ("₹", "INR"),
    ("inr", "INR"),
    ("rupees", "INR"),
    ("chf", "CHF"),
    ("cad", "CAD"),
    ("aud", "AUD"),
    ("cny", "CNY"),
    ("yuan", "CNY"),
    ("cents", "USD_CENT"),
    ("cent", "USD_CENT"),
];

const SCALES: &[(&str, i64)] = &[
    ("thousand", 1_000),
    ("k", 1_000),
    ("million", 1_000_000),
    ("mn", 1_000_000),
    ("m", 1_000_000),
    ("billion", 1_000_000_000),
    ("bn", 1_000_000_000),
    ("b", 1_000_000_000),
    ("trillion", 1_000_000_000_000),
    ("tn", 1_000_000_000_000),
];

/// Currency codes and words → ISO codes (lower-case keys).
fn currency_code(key: &str) -> Option<&'static str> {
    CURRENCIES.iter().find(|(n, _)| *n == key).map(|(_, c)| *c)
}

/// Unit names sorted for binary search (no hashing on the hot path).
static UNIT_INDEX: LazyLock<Vec<(&'static str, usize)>> = LazyLock::new(|| {
    let mut v: Vec<(&'static str, usize)> =
        UNITS.iter().enumerate().flat_map(|(i, u)| u.names.iter().map(move |n| (*n, i))).collect();
    v.sort_unstable();
    v
});

fn unit_index(name: &str) -> Option<usize> {
    UNIT_INDEX.binary_search_by(|(n, _)| (*n).cmp(name)).ok().map(|i| UNIT_INDEX[i].1)
}

/// First words of the two-word units ("square metres", "metric tons") and "per cent".
const TWO_WORD_HEADS: &[&str] = &["square", "sq", "metric", "per"];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The word starting at byte `i` (letters plus `/ ² µ`), lower-cased, and its end. Lower-case
/// ASCII words (the common case) are borrowed, not copied.
fn word_at(text: &str, i: usize) -> Option<(std::borrow::Cow<'_, str>, usize)> {
    let rest = text.get(i..)?;
    let len: usize = rest.chars().take_while(|c| c.is_alphabetic() || matches!(c, '/' | '²' | 'µ')).map(char::len_utf8).sum();
    if len == 0 {
        return None;
    }
    let w = &rest[..len];
    let lower = if w.bytes().any(|b| b.is_ascii_uppercase()) || !w.is_ascii() {
        std::borrow::Cow::Owned(w.to_lowercase())
    } else {
        std::borrow::Cow::Borrowed(w)
    };
    Some((lower, i + len))
}

/// Skips at most one space or tab.
fn one_space(text: &str, i: usize) -> usize {
    if text[i..].starts_with([' ', '\t']) { i + 1 } else { i }
}

/// Parses `\d{1,3}(,\d{3})+(\.\d+)? | \d+(\.\d+)? | \.\d+` at `i`; returns the end.
fn number_end(b: &[u8], i: usize) -> usize {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut j = if b[i] == b'.' { i } else { digits(i) };
    // Thousands groups, only after a run of 1–3 digits.
    if j - i <= 3 && b[i] != b'.' {
        while j + 4 <= b.len()
            && b[j] == b','
            && b[j + 1..j + 4].iter().all(u8::is_ascii_digit)
            && (j + 4 == b.len() || !b[j + 4].is_ascii_digit())
        {
            j += 4;
        }
    }
    if j + 1 < b.len() && b[j] == b'.' && b[j + 1].is_ascii_digit() {
        j = digits(j + 1);
    }
    j
}

/// Finds every numeric mention in `text`, in order, non-overlapping.
pub fn find_quantities(text: &str) -> Vec<Quantity> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(8);
    let mut i = 0;
    while i < b.len() {
        // Jump to the next digit (or `.digit`).
        match b[i..].iter().position(|c| c.is_ascii_digit() || *c == b'.') {
            Some(p) => i += p,
            None => break,
        }
        let starts = b[i].is_ascii_digit() || b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if !starts {
            i += 1;
            continue;
        }
        let num_start = i;
        let num_end = number_end(b, i);
        i = num_end;
        // Prefix: a currency symbol or code (one optional space), then a sign.
        let mut start = num_start;
        let mut currency: Option<String> = None;
        let before = &text[..num_start];
        let trimmed = before.strip_suffix(' ').unwrap_or(before);
        for sym in ["us$", "$", "€", "£", "¥", "₹"] {
            if trimmed.len() >= sym.len()
                && trimmed.is_char_boundary(trimmed.len() - sym.len())
                && trimmed[trimmed.len() - sym.len()..].eq_ignore_ascii_case(sym)
            {
                start = trimmed.len() - sym.len();
                currency = Some(sym.to_string());
                break;
            }
        }
        if currency.is_none() && trimmed.len() >= 3 && trimmed.is_char_boundary(trimmed.len() - 3) {
            let tail = &trimmed[trimmed.len() - 3..];
            let code = ["usd", "eur", "gbp", "jpy", "inr", "chf", "cad", "aud", "cny"]
                .into_iter()
                .find(|c| tail.eq_ignore_ascii_case(c));
            let bounded = trimmed[..trimmed.len() - 3].chars().next_back().is_none_or(|c| !is_word_char(c));
            if let Some(code) = code.filter(|_| bounded) {
                start = trimmed.len() - 3;
                currency = Some(code.to_string());
            }
        }
        let mut negative = false;
        // "top-8", "bottom-3": a rank written with a hyphen counts like "top 8".
        let ranked = currency.is_none()
            && ["top-", "bottom-"].iter().any(|p| {
                text[..start].len() >= p.len()
                    && text[..start].is_char_boundary(start - p.len())
                    && text[start - p.len()..start].eq_ignore_ascii_case(p)
                    && text[..start - p.len()].chars().next_back().is_none_or(|c| !is_word_char(c))
            });
        for sign in ['-', '−'].into_iter().filter(|_| !ranked) {
            if text[..start].ends_with(sign) {
                start -= sign.len_utf8();
                negative = true;
                break;
            }
        }
        // Not part of a longer token (`v2`, `x86`, `A4`, `#12`, `1.2.3`).
        if let Some(prev) = text[..start].chars().next_back()
            && (is_word_char(prev) || prev == '.' || prev == '#')
        {
            continue;
        }
        let literal = &text[num_start..num_end];
        let parsed = if literal.contains(',') || literal.starts_with('.') {
            let digits: String = literal.chars().filter(|c| *c != ',').collect();
            Decimal::parse(&if digits.starts_with('.') { format!("0{digits}") } else { digits })
        } else {
            Decimal::parse(literal)
        };
        let Ok(d) = parsed else { continue };
        let mut value = d.into_value();
        let mut end = num_end;
        // Scale word.
        let j = one_space(text, end);
        if let Some((w, we)) = word_at(text, j)
            && let Some((_, f)) = SCALES.iter().find(|(n, _)| *n == w.as_ref())
            && (!matches!(w.as_ref(), "m" | "b" | "k") || currency.is_some())
            && text[we..].chars().next().is_none_or(|c| !is_word_char(c))
        {
            value *= int(*f);
            end = we;
        }
        if negative {
            value = -value;
        }
        let q = Quantity {
            range: start..end,
            value,
            dimension: Dimension::Number,
            unit: None,
            conversion: Conversion::None,
            approximate: false,
        };
        let Some(q) = attach_unit(text, q, end, currency) else {
            i = num_end.max(i);
            skip_word(text, &mut i);
            continue;
        };
        i = i.max(q.range.end);
        out.push(q);
    }
    share_rate(text, &mut out);
    out
}

/// Skips the letters glued after a rejected number (`3rd`, `5x`).
fn skip_word(text: &str, i: &mut usize) {
    let rest = &text[*i..];
    *i += rest.chars().take_while(|c| c.is_alphabetic()).map(char::len_utf8).sum::<usize>();
}

/// Reads what follows a number (a percent sign, a currency word, a unit, `°C`) into `q`.
/// `None` when a word is glued to the number but is not a unit (`3rd`, `5x`).
fn attach_unit(text: &str, mut q: Quantity, end: usize, currency: Option<String>) -> Option<Quantity> {
    let after_ws = one_space(text, end);
    let dash = text[end..].starts_with('-');
    let after_dash = if dash { one_space(text, end + 1) } else { after_ws };
    if let Some(key) = currency {
        // Symbols and codes are stored lower-case already.
        let code = currency_code(&key).unwrap_or("UNKNOWN");
        q.dimension = Dimension::Money(code.to_string());
        q.conversion = Conversion::Same;
        q.unit = Some(key);
    } else if text[after_ws..].starts_with('%') {
        q.dimension = Dimension::Percent;
        q.conversion = Conversion::Same;
        q.unit = Some("%".into());
        q.range.end = after_ws + 1;
    } else if text[after_ws..].starts_with('°') {
        let k = one_space(text, after_ws + '°'.len_utf8());
        match word_at(text, k) {
            Some((w, we)) if w == "c" || w == "f" => {
                let f = w == "f";
                q.dimension = Dimension::Temperature;
                q.conversion = if f { Conversion::Fahrenheit } else { Conversion::Same };
                q.unit = Some(format!("°{w}"));
                q.range.end = we;
            }
            _ => {}
        }
    } else if let Some((w, we)) = word_at(text, after_dash) {
        // Two-word units and "per cent" first.
        let two = if TWO_WORD_HEADS.contains(&w.as_ref()) {
            word_at(text, one_space(text, we)).map(|(w2, e2)| (format!("{w} {w2}"), e2))
        } else {
            None
        };
        let attached = after_dash == end || dash;
        if matches!(w.as_ref(), "percent" | "pct") || two.as_ref().is_some_and(|(t, _)| t == "per cent") {
            q.dimension = Dimension::Percent;
            q.conversion = Conversion::Same;
            q.unit = Some("%".into());
            q.range.end = if w == "per" { two.map_or(we, |t| t.1) } else { we };
        } else if let Some(code) = currency_code(w.as_ref()).filter(|_| w.chars().all(|c| c.is_ascii_alphabetic())) {
            if code == "USD_CENT" {
                q.dimension = Dimension::Money("USD".into());
                q.conversion = Conversion::Cents;
            } else {
                q.dimension = Dimension::Money(code.to_string());
                q.conversion = Conversion::Same;
            }
            q.unit = Some(w.into_owned());
            q.range.end = we;
        } else {
            // "metres per second": a unit per a unit of time is a speed.
            let three = word_at(text, one_space(text, we))
                .filter(|(p, _)| p == "per")
                .and_then(|(_, pe)| word_at(text, one_space(text, pe)))
                .map(|(t, te)| (format!("{w} per {t}"), te))
                .filter(|(n, _)| unit_index(n).is_some());
            let (name, uend) = match three.or_else(|| two.clone().filter(|(t, _)| unit_index(t).is_some())) {
                Some((t, e)) => (t, e),
                None => (w.into_owned(), we),
            };
            let single = name.chars().count() == 1;
            match unit_index(&name) {
                Some(u) if !single || attached || matches!(name.as_str(), "m" | "g" | "l" | "h") => {
                    set_unit(&mut q, u, name);
                    q.range.end = uend;
                }
                // A word glued to the number that is not a unit (`3rd`, `5x`): not a quantity.
                _ if after_dash == end && !dash => return None,
                _ => {}
            }
        }
    }
    Some(q)
}

/// "300 km (186 miles) per hour": the rate after a conversion in brackets is both amounts'
/// (each becomes a speed, its range unchanged).
fn share_rate(text: &str, out: &mut [Quantity]) {
    for i in 1..out.len() {
        let (first, second) = (&out[i - 1], &out[i]);
        let bracketed = text.get(first.range.end..second.range.start).is_some_and(|g| g.trim() == "(")
            && text.get(second.range.end..).is_some_and(|t| t.starts_with(')'));
        if !bracketed {
            continue;
        }
        let Some((per, pe)) = word_at(text, one_space(text, second.range.end + 1)) else { continue };
        let Some((time, _)) = word_at(text, one_space(text, pe)).filter(|_| per == "per") else { continue };
        let rate = |q: &Quantity| q.unit.as_ref().map(|u| format!("{u} per {time}")).and_then(|n| Some((unit_index(&n)?, n)));
        let (Some((a, an)), Some((b, bn))) = (rate(first), rate(second)) else { continue };
        set_unit(&mut out[i - 1], a, an);
        set_unit(&mut out[i], b, bn);
    }
}

/// Gives `q` the unit `UNITS[u]`, written `name`.
fn set_unit(q: &mut Quantity, u: usize, name: String) {
    let unit = &UNITS[u];
    q.dimension = (unit.dim)();
    q.conversion = Conversion::Unit(u);
    q.approximate = unit.approx;
    q.unit = Some(name);
}

/// Numbers in digits and in words ("thirty minutes", "one hour"), with units, in order.
pub fn find_all_quantities(text: &str) -> Vec<Quantity> {
    let mut out = find_quantities(text);
    for w in crate::words::find_number_words(text) {
        if out.iter().any(|q| q.range.start < w.range.end && w.range.start < q.range.end) {
            continue;
        }
        let q = Quantity {
            range: w.range.clone(),
            value: w.value,
            dimension: Dimension::Number,
            unit: None,
            conversion: Conversion::None,
            approximate: false,
        };
        if let Some(q) = attach_unit(text, q, w.range.end, None) {
            out.push(q);
        }
    }
    out.sort_by_key(|q| q.range.start);
    out
}

/// Parses a duration such as `30 minutes`, `1.5 h`, `90-day` into exact seconds.
pub fn parse_duration_seconds(s: &str) -> Option<BigRational> {
    let qs = find_quantities(s.trim());
    match qs.as_slice() {
        [q] if q.dimension == Dimension::Duration && q.range.len() == s.trim().len() => q.canonical(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_after_a_conversion_in_brackets_is_both_amounts() {
        let qs = find_quantities("it can reach more than 300 km (186 miles) per hour in a dive");
        let dims: Vec<&Dimension> = qs.iter().map(|q| &q.dimension).collect();
        assert_eq!(dims, vec![&Dimension::Speed, &Dimension::Speed]);
        assert_eq!(qs[0].unit.as_deref(), Some("km per hour"));
        assert_eq!(qs[1].unit.as_deref(), Some("miles per hour"));
        // No rate after the brackets: lengths stay lengths.
        let qs = find_quantities("a 300 km (186 miles) route");
        assert!(qs.iter().all(|q| q.dimension == Dimension::Length));
        // Multi-byte text right after the brackets and the rate.
        for t in [
            "300 km (186 miles)’s route",
            "300 km (186 miles) per héure",
            "300 km (186 miles) per hour—café",
            "300 km (186 miles)",
        ] {
            assert!(
                find_quantities(t).iter().all(|q| t.is_char_boundary(q.range.start) && t.is_char_boundary(q.range.end)),
                "{t}"
            );
        }
    }

    fn one(t: &str) -> Quantity {
        let q = find_quantities(t);
        assert_eq!(q.len(), 1, "{t}: {q:?}");
        q.into_iter().next().unwrap()
    }

    #[test]
    fn money_percent_and_numbers() {
        let q = one("It costs $80.");
        assert_eq!(q.dimension, Dimension::Money("USD".into()));
        assert_eq!(q.value, int(80));
        assert_eq!(&"It costs $80."[q.range.clone()], "$80");
        let q = one("a €1.2 million deal");
        assert_eq!(q.dimension, Dimension::Money("EUR".into()));
        assert_eq!(q.value, int(1_200_000));
        let q = one("pay 25 USD now");
        assert_eq!(q.dimension, Dimension::Money("USD".into()));
        assert_eq!(one("15% of it").dimension, Dimension::Percent);
        assert_eq!(one("15 percent of it").value, int(15));
        let q = one("about 1,234.5 units");
        assert_eq!(q.value, ratio(12345, 10));
        assert_eq!(one("costs 50 cents").canonical(), Some(ratio(1, 2)));
        assert_eq!(one("-3 degrees").value, int(-3));
        let q = one("sound travels at 343 metres per second in air");
        assert_eq!((q.dimension.clone(), q.canonical()), (Dimension::Speed, Some(int(343))));
    }

    #[test]
    fn durations_convert_to_seconds() {
        assert_eq!(parse_duration_seconds("60 minutes"), Some(int(3600)));
        assert_eq!(parse_duration_seconds("1 hour"), Some(int(3600)));
        assert_eq!(parse_duration_seconds("90-day"), parse_duration_seconds("90 days"));
        assert_eq!(parse_duration_seconds("1.5h"), Some(int(5400)));
        assert_eq!(parse_duration_seconds("2 weeks"), Some(int(1_209_600)));
        assert!(one("a 3-year plan").approximate);
        assert_eq!(parse_duration_seconds("thirty minutes"), None);
    }

    #[test]
    fn quantities_with_units() {
        let q = one("weighs 2.5 kg total");
        assert_eq!(q.dimension, Dimension::Mass);
        assert_eq!(q.canonical(), Some(int(2500)));
        assert_eq!(one("a 10 km run").canonical(), Some(int(10_000)));
        assert_eq!(one("8 GB of RAM").canonical(), Some(int(8_000_000_000)));
        assert_eq!(one("at 212°F").canonical(), Some(int(100)));
        assert_eq!(one("runs at 3.2 GHz").dimension, Dimension::Frequency);
    }

    #[test]
    fn identifiers_and_ordinals_are_not_quantities() {
        assert!(find_quantities("use v2 of x86 on A4 paper").is_empty());
        let ranks: Vec<String> =
            find_quantities("the top-8 nations, a Top-10 hit, COVID-19, F-16").iter().map(|q| q.value.to_string()).collect();
        assert_eq!(ranks, ["8", "10"], "a rank after 'top-' is a number; a model or disease code is not");
        assert!(find_quantities("the 3rd time").is_empty());
        assert!(find_quantities("order #12345").is_empty());
        let qs = find_quantities("3 × 4 = 12");
        assert_eq!(qs.iter().map(|q| q.value.clone()).collect::<Vec<_>>(), vec![int(3), int(4), int(12)]);
        assert_eq!(find_quantities("Step 2: add 3 s").len(), 2);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_ranges_are_char_boundaries(t in "(\\PC|[0-9$€%,. -]){0,60}") {
            for q in find_quantities(&t) {
                proptest::prop_assert!(t.is_char_boundary(q.range.start) && t.is_char_boundary(q.range.end));
                proptest::prop_assert!(q.range.start < q.range.end);
            }
        }
    }

    #[test]
    fn number_words_with_units() {
        let t = "It lasts one hour and thirty minutes, for two people.";
        let qs = find_all_quantities(t);
        let got: Vec<(&str, Option<BigRational>)> = qs.iter().map(|q| (&t[q.range.clone()], q.canonical())).collect();
        assert_eq!(got, vec![("one hour", Some(int(3600))), ("thirty minutes", Some(int(1800))), ("two", None)]);
    }

    #[test]
    fn multibyte_text_around_numbers() {
        let t = "so that’s 60 yogurts at €5 and ¥300";
        let got: Vec<&str> = find_quantities(t).iter().map(|q| &t[q.range.clone()]).collect();
        assert_eq!(got, vec!["60", "€5", "¥300"]);
    }

    #[test]
    fn ranges_cover_the_mention_exactly() {
        let t = "In 2024, 30 minutes cost $5m and 90-day plans 12%.";
        let got: Vec<&str> = find_quantities(t).iter().map(|q| &t[q.range.clone()]).collect();
        assert_eq!(got, vec!["2024", "30 minutes", "$5m", "90-day", "12%"]);
    }
}
