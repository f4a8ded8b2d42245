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
use regex::Regex;

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
    /// `value` in the canonical unit of its dimension (durations in seconds, …).
    pub canonical: Option<BigRational>,
    /// True when the conversion is approximate (months and years as durations).
    pub approximate: bool,
}

fn ratio(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn int(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// A unit: its spellings, dimension, factor to the canonical unit, and whether approximate.
struct Unit {
    names: &'static [&'static str],
    dim: fn() -> Dimension,
    factor: fn() -> BigRational,
    approx: bool,
}

macro_rules! unit {
    ($names:expr, $dim:expr, $num:expr, $den:expr) => {
        Unit { names: $names, dim: || $dim, factor: || ratio($num, $den), approx: false }
    };
    ($names:expr, $dim:expr, $num:expr, $den:expr, approx) => {
        Unit { names: $names, dim: || $dim, factor: || ratio($num, $den), approx: true }
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
        unit!(&["m/s"], Speed, 1, 1),
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

fn alternation(words: impl Iterator<Item = String>) -> String {
    let mut w: Vec<String> = words.collect();
    // Longest first so the leftmost-first regex takes `minutes` over `min`.
    w.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    w.dedup();
    w.iter().map(|s| regex::escape(s)).collect::<Vec<_>>().join("|")
}

static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    let units = alternation(UNITS.iter().flat_map(|u| u.names.iter().map(|s| s.to_string())));
    let prefix_cur = r"(?:us\$|\$|€|£|¥|₹|(?:usd|eur|gbp|jpy|inr|chf|cad|aud|cny)\s?)";
    let suffix_cur =
        alternation(CURRENCIES.iter().filter(|(s, _)| s.chars().all(|c| c.is_ascii_alphabetic())).map(|(s, _)| s.to_string()));
    let scales = alternation(SCALES.iter().map(|(s, _)| s.to_string()));
    // sign, currency prefix, number (grouped thousands, decimals, or a leading-dot decimal)
    let pat = format!(
        r"(?ix)
        (?P<neg>[-−])?
        (?P<cur>{prefix_cur})?
        (?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
        (?:\s?(?P<scale>{scales})\b)?
        (?:
            \s?(?P<pct>%|\bpercent\b|\bper\s?cent\b|\bpct\b)
          | -?\s?(?P<scur>{suffix_cur})\b
          | (?P<dash>-)?\s?(?P<unit>{units})(?:\b|$|[^\w])
          | °\s?(?P<temp>[cf])\b
        )?"
    );
    Regex::new(&pat).unwrap_or_else(|e| panic!("quantity regex: {e}"))
});

/// Finds every numeric mention in `text`, in order, non-overlapping.
pub fn find_quantities(text: &str) -> Vec<Quantity> {
    let mut out = Vec::new();
    for c in PATTERN.captures_iter(text) {
        let (Some(all), Some(num)) = (c.get(0), c.name("num")) else { continue };
        // Not part of a longer token: a letter or digit glued before the number (`v2`, `A4`,
        // `x86`) is an identifier, not a quantity.
        let start = c.name("neg").or_else(|| c.name("cur")).map_or(num.start(), |m| m.start());
        if let Some(prev) = text[..start].chars().next_back()
            && (prev.is_alphanumeric() || prev == '_' || prev == '.' || prev == '#')
        {
            continue;
        }
        // A word glued after the number (`3rd`, `5x`) that is not a unit: skip.
        let tail = &text[all.end()..];
        if c.name("unit").is_none()
            && c.name("pct").is_none()
            && c.name("scur").is_none()
            && c.name("scale").is_none()
            && tail.starts_with(|ch: char| ch.is_alphabetic())
        {
            continue;
        }
        let digits: String = num.as_str().chars().filter(|ch| *ch != ',').collect();
        let digits = if digits.starts_with('.') { format!("0{digits}") } else { digits };
        let Ok(d) = Decimal::parse(&digits) else { continue };
        let mut value = d.into_value();
        if let Some(s) = c.name("scale") {
            let key = s.as_str().to_lowercase();
            // `m` / `b` as scales only after a currency (`$5m`), otherwise `5 m` is metres.
            let ok = !matches!(key.as_str(), "m" | "b" | "k") || c.name("cur").is_some();
            if ok {
                if let Some((_, f)) = SCALES.iter().find(|(n, _)| *n == key) {
                    value *= int(*f);
                }
            }
        }
        if c.name("neg").is_some() {
            value = -value;
        }
        let mut q = Quantity {
            range: start..all.end(),
            value: value.clone(),
            dimension: Dimension::Number,
            unit: None,
            canonical: None,
            approximate: false,
        };
        if let Some(cur) = c.name("cur").or_else(|| c.name("scur")) {
            let key = cur.as_str().trim().to_lowercase();
            let code = CURRENCIES.iter().find(|(n, _)| *n == key).map_or("UNKNOWN", |(_, c)| c);
            if code == "USD_CENT" {
                q.dimension = Dimension::Money("USD".into());
                q.canonical = Some(value / int(100));
            } else {
                q.dimension = Dimension::Money(code.to_string());
                q.canonical = Some(value);
            }
            q.unit = Some(key);
        } else if c.name("pct").is_some() {
            q.dimension = Dimension::Percent;
            q.canonical = Some(value);
            q.unit = Some("%".into());
        } else if let Some(t) = c.name("temp") {
            q.dimension = Dimension::Temperature;
            let f = t.as_str().eq_ignore_ascii_case("f");
            q.canonical = Some(if f { (value - int(32)) * ratio(5, 9) } else { value });
            q.unit = Some(if f { "°f".into() } else { "°c".into() });
        } else if let Some(u) = c.name("unit") {
            let name = u.as_str().to_lowercase();
            // Single-letter units only directly attached or hyphenated (`5m`, `90-d`), never
            // across a space, where they are usually words ("5 m" is fine, "3 s" is rare).
            let attached = u.start() == num.end() || c.name("dash").is_some();
            let single = name.chars().count() == 1;
            if let Some(unit) = UNITS.iter().find(|un| un.names.contains(&name.as_str()))
                && (!single || attached || matches!(name.as_str(), "m" | "g" | "l" | "h"))
            {
                q.dimension = (unit.dim)();
                q.canonical = Some(value * (unit.factor)());
                q.approximate = unit.approx;
                q.unit = Some(name);
                // Don't swallow the boundary char the regex consumed after the unit.
                q.range.end = u.end();
            } else {
                q.range.end = num.end();
            }
        }
        out.push(q);
    }
    out
}

/// Parses a duration such as `30 minutes`, `1.5 h`, `90-day` into exact seconds.
pub fn parse_duration_seconds(s: &str) -> Option<BigRational> {
    let qs = find_quantities(s.trim());
    match qs.as_slice() {
        [q] if q.dimension == Dimension::Duration && q.range.len() == s.trim().len() => q.canonical.clone(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(one("costs 50 cents").canonical, Some(ratio(1, 2)));
        assert_eq!(one("-3 degrees").value, int(-3));
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
        assert_eq!(q.canonical, Some(int(2500)));
        assert_eq!(one("a 10 km run").canonical, Some(int(10_000)));
        assert_eq!(one("8 GB of RAM").canonical, Some(int(8_000_000_000)));
        assert_eq!(one("at 212°F").canonical, Some(int(100)));
        assert_eq!(one("runs at 3.2 GHz").dimension, Dimension::Frequency);
    }

    #[test]
    fn identifiers_and_ordinals_are_not_quantities() {
        assert!(find_quantities("use v2 of x86 on A4 paper").is_empty());
        assert!(find_quantities("the 3rd time").is_empty());
        assert!(find_quantities("order #12345").is_empty());
        let qs = find_quantities("3 × 4 = 12");
        assert_eq!(qs.iter().map(|q| q.value.clone()).collect::<Vec<_>>(), vec![int(3), int(4), int(12)]);
        assert_eq!(find_quantities("Step 2: add 3 s").len(), 2);
    }

    #[test]
    fn ranges_cover_the_mention_exactly() {
        let t = "In 2024, 30 minutes cost $5m and 90-day plans 12%.";
        let got: Vec<&str> = find_quantities(t).iter().map(|q| &t[q.range.clone()]).collect();
        assert_eq!(got, vec!["2024", "30 minutes", "$5m", "90-day", "12%"]);
    }
}
