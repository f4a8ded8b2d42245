//! Timestamps a user asks for (`--created-at`, `$SOURCE_DATE_EPOCH`): documents never carry the
//! clock unless the user passes a time or `now`.

use std::sync::LazyLock;

use regex::Regex;

use crate::error::{CliError, CliResult};

static ISO_8601: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// RFC 3339 `YYYY-MM-DDTHH:MM:SSZ` of seconds since 1970-01-01 (proleptic Gregorian).
pub fn rfc3339_from_unix(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Shift the epoch to 0000-03-01 so leap days fall at the end of a 400-year era.
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The time `flag` gives: an ISO-8601 date or date-time, or `now`; without the flag,
/// `$SOURCE_DATE_EPOCH` (seconds since 1970) when set, else `None`.
pub fn requested(flag: &str, value: Option<&str>) -> CliResult<Option<String>> {
    match value {
        Some("now") => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
            Ok(Some(rfc3339_from_unix(secs)))
        }
        Some(s) if ISO_8601.is_match(s) => Ok(Some(s.to_string())),
        Some(s) => Err(CliError::input(format!(
            "{flag}: '{s}' is not an ISO-8601 date or date-time (e.g. 2026-05-28T09:30:00Z), nor `now`"
        ))),
        None => match std::env::var("SOURCE_DATE_EPOCH") {
            Ok(v) => {
                let secs: i64 = v.trim().parse().map_err(|_| {
                    CliError::input(format!("SOURCE_DATE_EPOCH: '{v}' is not a number of seconds since 1970-01-01"))
                })?;
                Ok(Some(rfc3339_from_unix(secs)))
            }
            Err(_) => Ok(None),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_become_utc_dates() {
        assert_eq!(rfc3339_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_from_unix(1_795_000_000), "2026-11-18T11:06:40Z");
        assert_eq!(rfc3339_from_unix(-1), "1969-12-31T23:59:59Z");
    }
}
