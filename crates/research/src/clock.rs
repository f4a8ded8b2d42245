//! The run clock (spec §2): every triple timestamp, `*.complete` value and the time axis's
//! window come from one injectable clock; reproducible runs pass a fixed time.

use std::fmt;

/// A UTC instant with nanosecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    pub secs: i64,
    /// Nanoseconds within the second (0..1e9).
    pub nanos: u32,
}

impl Timestamp {
    /// From seconds and nanoseconds (nanos are normalised into the second).
    pub fn new(secs: i64, nanos: u32) -> Self {
        Self { secs: secs + i64::from(nanos / 1_000_000_000), nanos: nanos % 1_000_000_000 }
    }

    /// From milliseconds since the epoch.
    pub fn from_millis(ms: i64) -> Self {
        Self { secs: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) as u32) * 1_000_000 }
    }

    /// Milliseconds since the epoch.
    pub fn millis(&self) -> i64 {
        self.secs * 1000 + i64::from(self.nanos / 1_000_000)
    }

    /// Parses an RFC 3339 time or an ISO date (millisecond precision), or an RFC 3339 time
    /// with up to nine fraction digits in UTC (`…Z`) exactly.
    pub fn parse(s: &str) -> Option<Self> {
        let ms = warrant_facts::parse_timestamp_ms(s).ok()?;
        let mut t = Self::from_millis(ms);
        // Keep sub-millisecond digits of a `Z` time.
        if let Some(frac) = s.trim().strip_suffix('Z').and_then(|x| x.rsplit_once('.')).map(|(_, f)| f)
            && (1..=9).contains(&frac.len())
            && frac.bytes().all(|b| b.is_ascii_digit())
        {
            let padded = format!("{frac:0<9}");
            t.nanos = padded.parse().ok()?;
        }
        Some(t)
    }

    /// This instant shifted by whole seconds.
    pub fn plus_secs(&self, secs: i64) -> Self {
        Self { secs: self.secs + secs, nanos: self.nanos }
    }

    /// Go's RFC3339Nano: fraction with trailing zeros removed, none when zero, `Z`.
    pub fn rfc3339_nano(&self) -> String {
        let days = self.secs.div_euclid(86_400);
        let sod = self.secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let mut s = format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}", sod / 3600, sod % 3600 / 60, sod % 60);
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            s.push('.');
            s.push_str(frac.trim_end_matches('0'));
        }
        s.push('Z');
        s
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rfc3339_nano())
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Where a run's times come from.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> Timestamp;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Timestamp::new(d.as_secs() as i64, d.subsec_nanos())
    }
}

/// A frozen clock for reproducible runs.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_nano_matches_go() {
        let t = Timestamp::parse("2026-06-02T18:30:45.123456789Z").unwrap();
        assert_eq!(t.rfc3339_nano(), "2026-06-02T18:30:45.123456789Z");
        assert_eq!(Timestamp { nanos: 100_000_000, ..t }.rfc3339_nano(), "2026-06-02T18:30:45.1Z");
        assert_eq!(Timestamp { nanos: 0, ..t }.rfc3339_nano(), "2026-06-02T18:30:45Z");
        assert_eq!(Timestamp::new(0, 0).rfc3339_nano(), "1970-01-01T00:00:00Z");
        assert_eq!(Timestamp::parse("2024-02-29").unwrap().rfc3339_nano(), "2024-02-29T00:00:00Z");
        assert_eq!(Timestamp::new(-1, 0).rfc3339_nano(), "1969-12-31T23:59:59Z");
        assert_eq!(t.plus_secs(86_400).rfc3339_nano(), "2026-06-03T18:30:45.123456789Z");
    }
}
