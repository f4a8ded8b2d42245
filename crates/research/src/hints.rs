//! Hints a caller may give with a topic. The Intent payload accepts any non-blank key and
//! value (spec §5.1); the chain's entry point additionally rejects keys it does not know and
//! values of the wrong form, so a typo is a clear error rather than a silently ignored hint.

use std::collections::BTreeMap;

use serde_json::Value;

/// Hint keys the chain knows, with what each does.
pub const KNOWN_HINTS: [(&str, &str); 10] = [
    ("time_range", "`<start>/<end>` (RFC 3339 or dates): the window of the decompose time axis"),
    ("geo_bounds", "accepted; the spatial axis is deferred"),
    ("use_embeddings", "`true`/`false`; accepted, Warrant's classifier is lexical"),
    ("path_intent", "any text: adds the predicate axis to decompose"),
    ("path_start_node", "an entity name: a seed candidate"),
    ("path_predicates", "comma-separated predicate ids: the edges walked"),
    ("aggregation_type", "accepted, advisory"),
    ("aggregation_field", "accepted, advisory"),
    ("ranking_intent", "accepted, advisory"),
    ("limit", "1–200: most classifier candidates"),
];

/// The hint names, for messages.
pub fn known_names() -> String {
    KNOWN_HINTS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// Checks hint keys and value forms (after the Intent's own validation).
pub fn check(hints: &BTreeMap<String, String>) -> Result<(), String> {
    for (k, v) in hints {
        let v = v.trim();
        match k.as_str() {
            "time_range" => {
                time_range(v).map_err(|e| format!("hints[\"time_range\"]: {e}"))?;
            }
            "use_embeddings" if v != "true" && v != "false" => {
                return Err(format!("hints[\"use_embeddings\"]: expected true or false, got {v:?}"));
            }
            "limit" => match v.parse::<u32>() {
                Ok(n) if (1..=200).contains(&n) => {}
                _ => return Err(format!("hints[\"limit\"]: expected an integer from 1 to 200, got {v:?}")),
            },
            "path_predicates" if predicates(v).is_empty() => {
                return Err("hints[\"path_predicates\"]: expected comma-separated predicate ids".into());
            }
            k if KNOWN_HINTS.iter().any(|(n, _)| *n == k) => {}
            k => return Err(format!("hints[\"{k}\"]: unknown hint; known hints: {}", known_names())),
        }
    }
    Ok(())
}

/// `<start>/<end>` → the two bounds in milliseconds, start ≤ end.
pub fn time_range(v: &str) -> Result<(String, String), String> {
    let Some((a, b)) = v.split_once('/') else {
        return Err(format!("expected <start>/<end>, got {v:?}"));
    };
    let (a, b) = (a.trim(), b.trim());
    let pa = warrant_facts::parse_timestamp_ms(a).map_err(|_| format!("start {a:?} is not an RFC 3339 time or date"))?;
    let pb = warrant_facts::parse_timestamp_ms(b).map_err(|_| format!("end {b:?} is not an RFC 3339 time or date"))?;
    if pa > pb {
        return Err(format!("start {a:?} is after end {b:?}"));
    }
    Ok((a.to_string(), b.to_string()))
}

/// A `time_range` derived from the dates a topic names (spec §6.1 step 4): the day, month or
/// year of each dated mention with a year, spanned from the earliest to the latest.
pub fn derive_time_range(topic: &str) -> Option<String> {
    let mut lo: Option<(i32, u8, u8)> = None;
    let mut hi: Option<(i32, u8, u8)> = None;
    for m in warrant_text::date::find_dates(topic) {
        let Some(y) = m.year else { continue };
        let (start, end) = match (m.month, m.day) {
            (Some(mo), Some(d)) => ((y, mo, d), (y, mo, d)),
            (Some(mo), None) => ((y, mo, 1), (y, mo, days_in_month(y, mo))),
            _ => ((y, 1, 1), (y, 12, 31)),
        };
        lo = Some(lo.map_or(start, |l| l.min(start)));
        hi = Some(hi.map_or(end, |h| h.max(end)));
    }
    let ((y0, m0, d0), (y1, m1, d1)) = (lo?, hi?);
    Some(format!("{y0:04}-{m0:02}-{d0:02}/{y1:04}-{m1:02}-{d1:02}T23:59:59Z"))
}

fn days_in_month(y: i32, m: u8) -> u8 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Predicate ids of a comma-separated list (blank entries dropped).
pub fn predicates(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect()
}

/// The classifier's `hints` (map string → any) from the working hints.
pub fn classifier_hints(hints: &BTreeMap<String, String>) -> BTreeMap<String, Value> {
    hints
        .iter()
        .map(|(k, v)| {
            let value = match k.as_str() {
                "use_embeddings" => Value::Bool(v.trim() == "true"),
                "limit" => v.trim().parse::<u64>().map_or_else(|_| Value::from(v.clone()), Value::from),
                "path_predicates" => Value::from(predicates(v)),
                _ => Value::from(v.clone()),
            };
            (k.clone(), value)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn known_hints_pass_and_unknown_fail() {
        assert!(check(&hints(&[("time_range", "2024-01-01/2024-02-01T00:00:00Z"), ("limit", "5")])).is_ok());
        let e = check(&hints(&[("colour", "red")])).unwrap_err();
        assert!(e.contains("hints[\"colour\"]: unknown hint"), "{e}");
        assert!(check(&hints(&[("limit", "0")])).unwrap_err().contains("1 to 200"));
        assert!(check(&hints(&[("time_range", "2024-02-01/2024-01-01")])).unwrap_err().contains("after end"));
        assert!(check(&hints(&[("time_range", "yesterday")])).unwrap_err().contains("<start>/<end>"));
        assert!(check(&hints(&[("use_embeddings", "yes")])).is_err());
    }

    #[test]
    fn time_ranges_are_derived_from_dated_topics() {
        assert_eq!(derive_time_range("outages on 2024-02-10").as_deref(), Some("2024-02-10/2024-02-10T23:59:59Z"));
        assert_eq!(derive_time_range("releases in February 2024").as_deref(), Some("2024-02-01/2024-02-29T23:59:59Z"));
        assert_eq!(derive_time_range("incidents in 2023 and in March 2024").as_deref(), Some("2023-01-01/2024-03-31T23:59:59Z"));
        assert_eq!(derive_time_range("drone batteries"), None);
        assert!(time_range(&derive_time_range("in May 2025").unwrap()).is_ok());
    }

    #[test]
    fn classifier_hints_are_typed() {
        let h =
            classifier_hints(&hints(&[("limit", "5"), ("path_predicates", "requires, contains"), ("use_embeddings", "true")]));
        assert_eq!(h["limit"], Value::from(5u64));
        assert_eq!(h["path_predicates"], serde_json::json!(["requires", "contains"]));
        assert_eq!(h["use_embeddings"], Value::Bool(true));
    }
}
