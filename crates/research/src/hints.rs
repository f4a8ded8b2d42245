//! Hints a caller may give with a topic: a free-form map (spec §5.1, ADR-045). A blank key or
//! value is the only error; a key no stage reads passes through to the run's triples, and a
//! known key with a value of the wrong form is ignored by the stage that reads it. Both are
//! noted in the run's warnings, so a typo is visible without failing the run.

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

/// Checks hints: a blank key or value is the only error (spec §5.1, ADR-045: unknown keys
/// pass through to the run's triples and are ignored by stages that do not read them).
pub fn check(hints: &BTreeMap<String, String>) -> Result<(), String> {
    for (k, v) in hints {
        if k.trim().is_empty() {
            return Err("hints contains an empty key".into());
        }
        if v.trim().is_empty() {
            return Err(format!("hints[\"{k}\"] is empty; omit the key instead"));
        }
    }
    Ok(())
}

/// What the run will not use of its hints, one note each: a key no stage reads (passed
/// through), or a known key whose value has the wrong form (ignored by the stage that reads it).
pub fn notes(hints: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in hints {
        let v = v.trim();
        let problem = match k.as_str() {
            "time_range" => time_range(v).err(),
            "use_embeddings" if v != "true" && v != "false" => Some(format!("expected true or false, got {v:?}")),
            "limit" => match v.parse::<u32>() {
                Ok(n) if (1..=200).contains(&n) => None,
                _ => Some(format!("expected an integer from 1 to 200, got {v:?}")),
            },
            "path_predicates" if predicates(v).is_empty() => Some("expected comma-separated predicate ids".into()),
            k if KNOWN_HINTS.iter().any(|(n, _)| *n == k) => None,
            k => {
                out.push(format!("hints[\"{k}\"]: read by no stage; passed through (known hints: {})", known_names()));
                continue;
            }
        };
        if let Some(p) = problem {
            out.push(format!("hints[\"{k}\"]: {p}; ignored"));
        }
    }
    out
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
    fn only_blank_values_fail_and_the_rest_is_noted() {
        assert!(check(&hints(&[("time_range", "2024-01-01/2024-02-01T00:00:00Z"), ("limit", "5")])).is_ok());
        assert!(notes(&hints(&[("time_range", "2024-01-01/2024-02-01T00:00:00Z"), ("limit", "5")])).is_empty());
        assert!(check(&hints(&[("entity", "Beacon"), ("colour", "red")])).is_ok());
        assert!(check(&hints(&[("limit", " ")])).unwrap_err().contains("hints[\"limit\"] is empty"));
        let n = notes(&hints(&[("colour", "red"), ("limit", "0"), ("time_range", "yesterday"), ("use_embeddings", "yes")]));
        assert_eq!(n.len(), 4, "{n:?}");
        assert!(n[0].starts_with("hints[\"colour\"]: read by no stage; passed through"), "{n:?}");
        assert!(n[1].contains("1 to 200") && n[1].ends_with("ignored"), "{n:?}");
        assert!(n[2].contains("<start>/<end>"), "{n:?}");
        assert!(n[3].contains("true or false"), "{n:?}");
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
