//! Value parsers of spec §11.4: durations to exact minutes, timestamps to epoch milliseconds,
//! numbers to exact decimals. Shared by argType checks (§4.2), conflict value classes (§10)
//! and rule evaluators (§11.4), so every stage reads `"1.5 hours"` the same way.
//!
//! Arithmetic is exact: minutes are rationals (`"90 seconds"` is 3/2 minutes), numbers are
//! [`Decimal`]s, never `f64`.

use serde_json::Value;
use warrant_text::Decimal;
use warrant_text::number::{BigInt, BigRational};

/// Why a value did not parse. [`ValueError::code`] gives the spec's failure code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// Not `<number> <unit>` with a known unit.
    #[error("unparseable duration {0:?} (expected <number> <unit>, unit one of seconds, minutes, hours, days, weeks)")]
    Duration(String),
    /// Neither an RFC 3339 date-time nor an ISO date.
    #[error("unparseable timestamp {0:?} (expected an RFC 3339 date-time or an ISO date YYYY-MM-DD)")]
    Timestamp(String),
    /// Not a JSON number or decimal string.
    #[error("unparseable number {0:?}")]
    Number(String),
}

impl ValueError {
    /// `unparseable_duration`, `unparseable_timestamp` or `unparseable_number` (§11.4).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Duration(_) => "unparseable_duration",
            Self::Timestamp(_) => "unparseable_timestamp",
            Self::Number(_) => "unparseable_number",
        }
    }
}

/// Minutes per unit, as (numerator, denominator). Units per §11.4.
fn unit_minutes(unit: &str) -> Option<(i64, i64)> {
    Some(match unit {
        "second" | "seconds" | "sec" | "secs" | "s" => (1, 60),
        "minute" | "minutes" | "min" | "mins" => (1, 1),
        "hour" | "hours" | "hr" | "hrs" | "h" => (60, 1),
        "day" | "days" | "d" => (1440, 1),
        "week" | "weeks" | "w" => (10080, 1),
        _ => return None,
    })
}

/// Parses `<number> <unit>` (the space is optional, the unit case-insensitive) to exact
/// minutes: `"15 minutes"` → 15, `"1.5 hours"` → 90, `"90 seconds"` → 3/2.
pub fn parse_duration_minutes(text: &str) -> Result<BigRational, ValueError> {
    let err = || ValueError::Duration(text.to_string());
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number = Decimal::parse(number).map_err(|_| err())?;
    let unit = unit.trim_start().to_ascii_lowercase();
    let (num, den) = unit_minutes(&unit).ok_or_else(err)?;
    Ok(number.into_value() * BigRational::new(BigInt::from(num), BigInt::from(den)))
}

/// The `minutes` conversion of §11.4: a JSON number (or a string that is a plain number) is
/// already minutes; any other string is read as a duration.
pub fn minutes_of(value: &Value) -> Result<BigRational, ValueError> {
    match value {
        Value::Number(n) => parse_number(&n.to_string()).map(Decimal::into_value),
        Value::String(s) => match Decimal::parse(s.trim()) {
            Ok(d) => Ok(d.into_value()),
            Err(_) => parse_duration_minutes(s),
        },
        other => Err(ValueError::Duration(other.to_string())),
    }
}

/// Parses a JSON number's text or a decimal string (surrounding whitespace allowed) exactly.
pub fn parse_number(text: &str) -> Result<Decimal, ValueError> {
    Decimal::parse(text.trim()).map_err(|_| ValueError::Number(text.to_string()))
}

/// The `number` conversion of §11.4: a JSON number or a decimal string.
pub fn number_of(value: &Value) -> Result<Decimal, ValueError> {
    match value {
        Value::Number(n) => parse_number(&n.to_string()),
        Value::String(s) => parse_number(s),
        other => Err(ValueError::Number(other.to_string())),
    }
}

/// Parses an RFC 3339 date-time (`2024-05-01T12:30:00Z`, `2024-05-01 12:30:00.250+02:00`) or
/// an ISO date (`2024-05-01`, midnight UTC) to milliseconds since the Unix epoch. Fractions
/// beyond milliseconds are truncated; a leap second (`:60`) counts as the next second.
pub fn parse_timestamp_ms(text: &str) -> Result<i64, ValueError> {
    parse_timestamp_inner(text.trim()).ok_or_else(|| ValueError::Timestamp(text.to_string()))
}

fn digits(s: &[u8], at: usize, n: usize) -> Option<i64> {
    let part = s.get(at..at + n)?;
    part.iter().try_fold(0i64, |acc, b| b.is_ascii_digit().then(|| acc * 10 + i64::from(b - b'0')))
}

fn parse_timestamp_inner(t: &str) -> Option<i64> {
    let s = t.as_bytes();
    let year = digits(s, 0, 4)?;
    if s.get(4) != Some(&b'-') || s.get(7) != Some(&b'-') {
        return None;
    }
    let month = digits(s, 5, 2)?;
    let day = digits(s, 8, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    if s.len() == 10 {
        return Some(days * 86_400_000);
    }
    if !matches!(s.get(10), Some(b'T' | b't' | b' ')) || s.get(13) != Some(&b':') || s.get(16) != Some(&b':') {
        return None;
    }
    let (hour, minute, second) = (digits(s, 11, 2)?, digits(s, 14, 2)?, digits(s, 17, 2)?);
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if s.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        for k in 0..3 {
            millis = millis * 10 + s.get(start + k).filter(|_| start + k < i).map_or(0, |b| i64::from(b - b'0'));
        }
    }
    let offset_minutes = match s.get(i) {
        Some(b'Z' | b'z') if s.len() == i + 1 => 0,
        Some(sign @ (b'+' | b'-')) if s.len() == i + 6 && s.get(i + 3) == Some(&b':') => {
            let (oh, om) = (digits(s, i + 1, 2)?, digits(s, i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *sign == b'-' { -m } else { m }
        }
        _ => return None,
    };
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(secs * 1000 + millis)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    #[test]
    fn durations_in_exact_minutes() {
        assert_eq!(parse_duration_minutes("15 minutes"), Ok(r(15, 1)));
        assert_eq!(parse_duration_minutes("30 Minutes"), Ok(r(30, 1)));
        assert_eq!(parse_duration_minutes("1.5 hours"), Ok(r(90, 1)));
        assert_eq!(parse_duration_minutes("8 hrs"), Ok(r(480, 1)));
        assert_eq!(parse_duration_minutes("90 seconds"), Ok(r(3, 2)));
        assert_eq!(parse_duration_minutes("2d"), Ok(r(2880, 1)));
        assert_eq!(parse_duration_minutes("1 week"), Ok(r(10080, 1)));
        assert_eq!(parse_duration_minutes("5min"), Ok(r(5, 1)));
        for bad in ["", "minutes", "15", "15 fortnights", "-5 minutes", "1.5.2 hours", ".5 h"] {
            let e = parse_duration_minutes(bad).unwrap_err();
            assert_eq!(e.code(), "unparseable_duration", "{bad:?}");
        }
    }

    #[test]
    fn minutes_conversion_accepts_numbers_and_durations() {
        assert_eq!(minutes_of(&json!(20)), Ok(r(20, 1)));
        assert_eq!(minutes_of(&json!("20")), Ok(r(20, 1)));
        assert_eq!(minutes_of(&json!("2 hours")), Ok(r(120, 1)));
        assert!(minutes_of(&json!(true)).is_err());
    }

    #[test]
    fn numbers_are_exact() {
        assert_eq!(number_of(&json!("0.1")).map(Decimal::into_value), Ok(r(1, 10)));
        assert_eq!(number_of(&json!(2.50)).map(|d| d.into_value()), Ok(r(5, 2)));
        assert_eq!(number_of(&json!("abc")).unwrap_err().code(), "unparseable_number");
    }

    #[test]
    fn timestamps_to_epoch_ms() {
        assert_eq!(parse_timestamp_ms("1970-01-01"), Ok(0));
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:01Z"), Ok(1000));
        assert_eq!(parse_timestamp_ms("2000-03-01"), Ok(951_868_800_000));
        assert_eq!(parse_timestamp_ms("2024-02-29T12:30:00.250Z"), Ok(1_709_209_800_250));
        assert_eq!(parse_timestamp_ms("2024-02-29T14:30:00.25+02:00"), Ok(1_709_209_800_250));
        assert_eq!(parse_timestamp_ms("2024-02-29 12:30:00.2509z"), Ok(1_709_209_800_250));
        assert_eq!(parse_timestamp_ms("1969-12-31T23:00:00-01:00"), Ok(0));
        assert_eq!(parse_timestamp_ms("1969-12-31"), Ok(-86_400_000));
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-01-01T25:00:00Z",
            "2024-01-01T10:00:00",
            "yesterday",
            "2024-1-1",
            "2024-01-01T10:00:00.Z",
        ] {
            assert_eq!(parse_timestamp_ms(bad).unwrap_err().code(), "unparseable_timestamp", "{bad:?}");
        }
    }
}
