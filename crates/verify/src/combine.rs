//! The combiner: whether a claim is supported, from the verifier's own signals (coverage by
//! the best passage and by two passages together, missing names, numbers and dates, window
//! size, negation, …), by a logistic regression trained on the development halves of the
//! labelled sets (`bench/quality/train.py fit`) and shipped as a table
//! (`data/combiner.tsv`). Deterministic, offline, a few multiplications per claim.

use std::collections::BTreeMap;
use std::sync::LazyLock;

/// Signals that enter as ln(1 + x): counts, whose effect flattens.
const LOGGED: &[&str] = &["keys", "specifics", "missing", "union_missing"];

struct Model {
    threshold: f64,
    /// Least coverage (words in some form, names, amounts, dates) of a claim the combiner may
    /// call supported; trained with the threshold.
    floor: f64,
    intercept: f64,
    weights: Vec<(String, f64)>,
}

static MODEL: LazyLock<Model> = LazyLock::new(|| {
    let mut m = Model { threshold: 0.5, floor: 0.8, intercept: 0.0, weights: Vec::new() };
    for line in include_str!("../data/combiner.tsv").lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let Some((name, value)) = line.split_once('\t') else { continue };
        let Ok(v) = value.trim().parse::<f64>() else { continue };
        match name {
            "threshold" => m.threshold = v,
            "floor" => m.floor = v,
            "intercept" => m.intercept = v,
            _ => m.weights.push((name.to_string(), v)),
        }
    }
    m
});

/// The probability that the sources support a claim with these signals.
pub fn probability(features: &BTreeMap<&'static str, f64>) -> f64 {
    let m = &*MODEL;
    let mut z = m.intercept;
    for (name, w) in &m.weights {
        let x = features.get(name.as_str()).copied().unwrap_or(0.0);
        z += w * if LOGGED.contains(&name.as_str()) { x.ln_1p() } else { x };
    }
    1.0 / (1.0 + (-z.clamp(-30.0, 30.0)).exp())
}

/// The least coverage of a claim the combiner may call supported (see `Model::floor`).
pub fn floor() -> f64 {
    MODEL.floor
}

/// True when the probability clears the trained threshold.
pub fn supported(p: f64) -> bool {
    p >= MODEL.threshold
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_coverage_is_supported_and_none_is_not() {
        let mut f: BTreeMap<&'static str, f64> = BTreeMap::new();
        for (k, v) in [
            ("support", 1.0),
            ("union_support", 1.0),
            ("related_support", 1.0),
            ("idf_support", 1.0),
            ("phrase", 1.0),
            ("context", 1.0),
            ("relevance", 1.0),
            ("keys", 4.0),
            ("window", 1.0),
        ] {
            f.insert(k, v);
        }
        let full = probability(&f);
        assert!(supported(full), "a passage stating every word of the claim supports it ({full})");
        for k in ["support", "union_support", "related_support", "idf_support", "phrase", "context"] {
            f.insert(k, 0.0);
        }
        f.insert("missing", 2.0);
        f.insert("union_missing", 2.0);
        let none = probability(&f);
        assert!(!supported(none), "a passage stating none of it does not ({none})");
    }
}
