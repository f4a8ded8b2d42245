//! Confidence as measured precision: a claim's `confidence` is the share of claims given the
//! same status on the same kind of evidence whose labels agree, on the development halves of
//! the labelled sets (`data/calibration.tsv`, written by `bench/quality/train.py calibrate`).
//! A claim that could not be checked (`unverified`) claims nothing: confidence 0.

use std::sync::LazyLock;

use crate::Status;

static TABLE: LazyLock<Vec<(String, String, f64)>> = LazyLock::new(|| {
    include_str!("../data/calibration.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut f = l.split('\t');
            let (status, kind, precision) = (f.next()?, f.next()?, f.next()?.trim().parse::<f64>().ok()?);
            Some((status.to_string(), kind.to_string(), precision))
        })
        .collect()
});

/// The kind of evidence behind a status, read off its reason (the same reading as
/// `bench/quality/train.py`'s `evidence_kind`).
pub(crate) fn evidence_kind(status: Status, reason: &str) -> &'static str {
    match status {
        Status::Contradicted => {
            for (needle, kind) in [("states", "states"), ("names", "names"), ("says", "says"), ("opposite", "opposite")] {
                if reason.contains(needle) {
                    return kind;
                }
            }
            "other"
        }
        Status::Supported if reason.contains("passages of") => "passages",
        Status::Supported => "one_passage",
        Status::Unsupported if reason.contains("lacks") => "lacks_specific",
        Status::Unsupported => "not_found",
        _ => "any",
    }
}

/// The measured precision of `status` on this kind of evidence; `None` when there is no
/// measurement (then nothing may be claimed).
pub(crate) fn confidence(status: Status, reason: &str) -> Option<f64> {
    let kind = evidence_kind(status, reason);
    TABLE.iter().find(|(s, k, _)| s == status.as_str() && k == kind).map(|(_, _, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::Conflict;

    #[test]
    fn every_reason_has_its_kind_and_a_measured_precision() {
        let kinds = [
            (Conflict::Number { claim: "$12".into(), source: "$15".into() }, "states"),
            (Conflict::Date, "states"),
            (Conflict::Substitution { claim: "Paris".into(), source: "Warsaw".into() }, "names"),
            (Conflict::Agent { verb: "directed".into(), claim: "A".into(), source: "B".into() }, "says"),
            (Conflict::Antonym { claim: "open".into(), source: "closed".into() }, "says"),
            (Conflict::Negation, "states"), // "states the opposite": measured with the states
        ];
        for (c, kind) in kinds {
            assert_eq!(evidence_kind(Status::Contradicted, &c.describe()), kind, "{}", c.describe());
            let p = confidence(Status::Contradicted, &c.describe()).expect("measured");
            assert!((0.0..=1.0).contains(&p));
        }
        assert_eq!(evidence_kind(Status::Supported, "stated across 2 passages of doc"), "passages");
        assert!(confidence(Status::Supported, "stated in doc").is_some_and(|p| p > 0.5));
        assert_eq!(confidence(Status::Unverified, "no sources to check against"), None);
    }
}
