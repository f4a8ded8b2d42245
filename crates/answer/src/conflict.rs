//! Conflict detection (spec §10, D24, D25): value classes, conflict keys and minimal
//! conflict sets.
//!
//! Facts are grouped by `(subject, predicate, condition)`; for a multi-valued predicate the
//! normalised object joins the key, so only a polarity flip on the same object conflicts. A
//! group holding two or more value classes `(normValue(object), polarity)` is in conflict;
//! its minimal conflict set pairs the best-ranked fact of the first class with the
//! best-ranked fact of every other class.

use serde::Serialize;
use serde_json::Value;
use warrant_facts::{ArgType, Cardinality, Fact, Object, Polarity, Vocabulary};
use warrant_facts::{parse_duration_minutes, parse_number, parse_timestamp_ms};
use warrant_text::number::BigRational;

/// A normalised object value (§10 step 2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NormValue {
    /// A duration in exact minutes.
    Minutes(BigRational),
    /// A timestamp in epoch milliseconds.
    Millis(i64),
    /// An exact decimal.
    Number(BigRational),
    /// A string: NFC, trimmed, whitespace collapsed, case-folded.
    Text(String),
    /// A boolean.
    Bool(bool),
}

/// A string normalised for comparison: NFC, trimmed, whitespace collapsed, lower-cased.
pub fn norm_text(s: &str) -> String {
    warrant_text::normalize::normalize_lower(s)
}

/// The normalised value of an object, read by the predicate's object type: durations as
/// minutes, timestamps as epoch ms, numbers exactly; for free `value`/`type`/`status`
/// objects a string that parses as a duration or a number is compared as one ("8 hours" =
/// "480 minutes"); anything else as normalised text.
pub fn norm_value(object: &Object, object_type: Option<ArgType>) -> NormValue {
    match object {
        Object::Bool(b) => NormValue::Bool(*b),
        Object::Number(n) => match parse_number(&n.to_string()) {
            Ok(d) => NormValue::Number(d.into_value()),
            Err(_) => NormValue::Text(n.to_string()),
        },
        Object::String(s) => {
            let parsed = match object_type {
                Some(ArgType::Duration) => parse_duration_minutes(s).ok().map(NormValue::Minutes),
                Some(ArgType::Timestamp) => parse_timestamp_ms(s).ok().map(NormValue::Millis),
                Some(ArgType::Number) => parse_number(s).ok().map(|d| NormValue::Number(d.into_value())),
                Some(ArgType::Entity) => None,
                _ => parse_duration_minutes(s)
                    .ok()
                    .map(NormValue::Minutes)
                    .or_else(|| parse_number(s).ok().map(|d| NormValue::Number(d.into_value()))),
            };
            parsed.unwrap_or_else(|| NormValue::Text(norm_text(s)))
        }
    }
}

/// The normalised object value of a fact under a vocabulary.
pub fn fact_value(f: &Fact, vocab: &Vocabulary) -> NormValue {
    norm_value(&f.object, vocab.get(&f.predicate).map(|e| e.object_type()))
}

/// The normalised `condition` qualifier, or `"none"`.
pub fn condition_key(f: &Fact) -> String {
    match f.qualifiers.get("condition") {
        None | Some(Value::Null) => "none".into(),
        Some(Value::String(s)) => norm_text(s),
        Some(other) => other.to_string(),
    }
}

/// The conflict key of a fact (§10 step 1, D25).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConflictKey {
    /// Subject.
    pub subject: String,
    /// Predicate.
    pub predicate: String,
    /// Normalised condition or `"none"`.
    pub condition: String,
    /// The normalised object, for multi-valued predicates only.
    pub object: Option<NormValue>,
}

/// The conflict key of a fact.
pub fn conflict_key(f: &Fact, vocab: &Vocabulary) -> ConflictKey {
    let multi = vocab.cardinality(&f.predicate) == Cardinality::MultiValued;
    ConflictKey {
        subject: f.subject.clone(),
        predicate: f.predicate.clone(),
        condition: condition_key(f),
        object: multi.then(|| fact_value(f, vocab)),
    }
}

/// Why two facts conflict.
#[allow(clippy::enum_variant_names)] // the names are the contract's strings ("version_mismatch")
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ConflictReason {
    /// One affirms, the other negates.
    PolarityMismatch,
    /// Different objects from different versions.
    VersionMismatch,
    /// Different objects within one version.
    ObjectMismatch,
}

impl ConflictReason {
    /// The reason as written in the contract.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PolarityMismatch => "polarity_mismatch",
            Self::VersionMismatch => "version_mismatch",
            Self::ObjectMismatch => "object_mismatch",
        }
    }
}

/// The reason two class representatives conflict (§10 step 4.3).
pub fn reason(a: &Fact, b: &Fact) -> ConflictReason {
    if a.polarity != b.polarity {
        ConflictReason::PolarityMismatch
    } else if a.normalized_version() != b.normalized_version() {
        ConflictReason::VersionMismatch
    } else {
        ConflictReason::ObjectMismatch
    }
}

/// The minimal conflict set of one group of facts given in rank order: pairs
/// `(rep₁, repₖ)` of class representatives, empty when the group has one class.
pub fn minimal_pairs<'f>(group: &[&'f Fact], vocab: &Vocabulary) -> Vec<(&'f Fact, &'f Fact, ConflictReason)> {
    let mut classes: Vec<((NormValue, Polarity), &Fact)> = Vec::new();
    for f in group {
        let class = (fact_value(f, vocab), f.polarity);
        if !classes.iter().any(|(c, _)| *c == class) {
            classes.push((class, f));
        }
    }
    let Some(((_, _), first)) = classes.first().cloned() else { return Vec::new() };
    classes.iter().skip(1).map(|(_, rep)| (first, *rep, reason(first, rep))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact minutes as a rational.
    fn minutes(n: i64) -> BigRational {
        BigRational::from_integer(warrant_text::number::BigInt::from(n))
    }
    use serde_json::json;

    fn fact(subject: &str, predicate: &str, object: Value, version: &str, polarity: &str, condition: Option<&str>) -> Fact {
        let mut q = json!({"version": version});
        if let Some(c) = condition {
            q["condition"] = json!(c);
        }
        Fact::from_manual_json(&json!({"subject": subject, "predicate": predicate, "object": object, "qualifiers": q,
            "polarity": polarity, "source": {"docId": "d", "chunkId": "c1"}}))
        .unwrap()
    }

    #[test]
    fn values_normalise_by_type() {
        let v = Vocabulary::builtin();
        let a = fact("s", "expires_after", json!("30 minutes"), "1", "affirm", None);
        let b = fact("s", "expires_after", json!("0.5 hours"), "1", "affirm", None);
        assert_eq!(fact_value(&a, &v), fact_value(&b, &v));
        assert_eq!(fact_value(&a, &v), NormValue::Minutes(minutes(30)));
        let h = fact("s", "has_value", json!("8 hours"), "1", "affirm", None);
        assert_eq!(fact_value(&h, &v), NormValue::Minutes(minutes(480)));
        let r = fact("s", "has_value", json!("100  Requests"), "1", "affirm", None);
        assert_eq!(fact_value(&r, &v), NormValue::Text("100 requests".into()));
        let n = fact("s", "has_value", json!(100), "1", "affirm", None);
        assert_eq!(fact_value(&n, &v), fact_value(&fact("s", "has_value", json!("100.0"), "1", "affirm", None), &v));
        let t = fact("s", "created_at", json!("2024-01-01"), "1", "affirm", None);
        assert_eq!(fact_value(&t, &v), NormValue::Millis(1_704_067_200_000));
        assert_eq!(norm_text("  Ａ\u{0065}\u{0301}  B "), "ａé b");
    }

    #[test]
    fn keys_follow_cardinality_and_conditions() {
        let v = Vocabulary::builtin();
        let a = fact("gw", "requires", json!("vault"), "1", "affirm", None);
        let b = fact("gw", "requires", json!("db"), "1", "affirm", None);
        assert_ne!(conflict_key(&a, &v), conflict_key(&b, &v), "multi-valued: the object joins the key");
        let c = fact("gw", "requires", json!("vault"), "1", "negate", None);
        assert_eq!(conflict_key(&a, &v), conflict_key(&c, &v));
        let p = minimal_pairs(&[&a, &c], &v);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].2, ConflictReason::PolarityMismatch);
        let i = fact("s", "expires_after", json!("10 minutes"), "1", "affirm", Some("inactivity"));
        let u = fact("s", "expires_after", json!("2 hours"), "1", "affirm", Some("use"));
        assert_ne!(conflict_key(&i, &v), conflict_key(&u, &v), "different conditions are different keys");
    }

    #[test]
    fn minimal_sets_pair_the_first_class_with_each_other() {
        let v = Vocabulary::builtin();
        let f1 = fact("s", "has_status", json!("enabled"), "1", "affirm", None);
        let f2 = fact("s", "has_status", json!("Enabled"), "2", "affirm", None);
        let f3 = fact("s", "has_status", json!("disabled"), "2", "affirm", None);
        let f4 = fact("s", "has_status", json!("deprecated"), "1", "affirm", None);
        let pairs = minimal_pairs(&[&f1, &f2, &f3, &f4], &v);
        let got: Vec<(String, String, &str)> =
            pairs.iter().map(|(a, b, r)| (a.object.to_string(), b.object.to_string(), r.as_str())).collect();
        assert_eq!(
            got,
            [
                ("enabled".into(), "disabled".into(), "version_mismatch"),
                ("enabled".into(), "deprecated".into(), "object_mismatch")
            ]
        );
        assert!(minimal_pairs(&[&f1, &f2], &v).is_empty(), "same value across versions: no conflict");
    }
}
