//! Extraction consistency (spec §14) and the extractor interface ingest plugs into.
//!
//! 1. Extract R times from the same text.
//! 2. Normalise each fact to the canonical JSON (sorted keys) of `{subject, predicate, object,
//!    qualifiers, polarity}`: span, source and confidence are left out ([`normalized_key`]).
//! 3. Jaccard similarity of every pair of runs, with Jaccard(∅, ∅) = 1.
//! 4. `jaccardAvg` is the mean, `jaccardMin` the least; fewer than two runs give 1 and 1.
//! 5. `jaccardAvg < 0.8` flags the extractor configuration as unreliable.

use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::extract::{Extraction, extract_facts};
use crate::fact::Fact;
use crate::validate::ChunkContext;
use crate::vocab::Vocabulary;

/// The `jaccardAvg` below which an extractor is unreliable.
pub const RELIABLE_JACCARD: f64 = 0.8;

/// Something that turns a chunk into validated facts: the pattern extractor, or a model.
pub trait FactExtractor: Send + Sync + fmt::Debug {
    /// Extracts and validates the facts of one chunk. An extractor that could not do its
    /// job falls back to the pattern extractor and says why in `Extraction::degraded`.
    fn extract(&self, vocab: &Vocabulary, chunk: &ChunkContext<'_>) -> Extraction;

    /// What identifies this extractor's output (method, model, prompt version, run): part of
    /// a document's ingest key, so changing it re-extracts.
    fn fingerprint(&self) -> String;
}

/// The deterministic pattern extractor (§5.4) as a [`FactExtractor`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PatternExtractor;

impl FactExtractor for PatternExtractor {
    fn extract(&self, vocab: &Vocabulary, chunk: &ChunkContext<'_>) -> Extraction {
        extract_facts(vocab, chunk)
    }

    fn fingerprint(&self) -> String {
        "pattern".into()
    }
}

/// A fact's consistency key: the canonical JSON of subject, predicate, object, qualifiers
/// and polarity.
pub fn normalized_key(f: &Fact) -> String {
    let mut m = Map::new();
    m.insert("object".into(), f.object.to_json());
    m.insert("polarity".into(), Value::String(f.polarity.as_str().into()));
    m.insert("predicate".into(), Value::String(f.predicate.clone()));
    m.insert("qualifiers".into(), Value::Object(f.qualifiers.iter().map(|(k, v)| (k.clone(), v.clone())).collect()));
    m.insert("subject".into(), Value::String(f.subject.clone()));
    Value::Object(m).to_string()
}

/// Jaccard similarity of two sets; 1 for two empty sets.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// The consistency of R extraction runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Consistency {
    /// Runs compared.
    pub runs: usize,
    /// Mean pairwise Jaccard.
    pub jaccard_avg: f64,
    /// Least pairwise Jaccard.
    pub jaccard_min: f64,
    /// `jaccardAvg ≥ 0.8`.
    pub reliable: bool,
}

impl Consistency {
    /// Compares runs, each the set of [`normalized_key`]s it produced.
    pub fn of_runs(runs: &[BTreeSet<String>]) -> Self {
        let mut sum = 0.0;
        let mut min: f64 = 1.0;
        let mut pairs = 0usize;
        for i in 0..runs.len() {
            for j in i + 1..runs.len() {
                let s = jaccard(&runs[i], &runs[j]);
                sum += s;
                min = min.min(s);
                pairs += 1;
            }
        }
        let avg = if pairs == 0 { 1.0 } else { sum / pairs as f64 };
        Self { runs: runs.len(), jaccard_avg: avg, jaccard_min: min, reliable: avg >= RELIABLE_JACCARD }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn jaccard_values() {
        assert_eq!(jaccard(&set(&[]), &set(&[])), 1.0);
        assert_eq!(jaccard(&set(&["a"]), &set(&[])), 0.0);
        assert_eq!(jaccard(&set(&["a", "b"]), &set(&["b", "c"])), 1.0 / 3.0);
    }

    #[test]
    fn consistency_of_runs() {
        assert_eq!(Consistency::of_runs(&[]), Consistency { runs: 0, jaccard_avg: 1.0, jaccard_min: 1.0, reliable: true });
        assert_eq!(Consistency::of_runs(&[set(&["a"])]).jaccard_avg, 1.0);
        // Pairs: (1,2) = 1/2, (1,3) = 1, (2,3) = 1/2 → mean 2/3, min 1/2: unreliable.
        let c = Consistency::of_runs(&[set(&["a", "b"]), set(&["a"]), set(&["a", "b"])]);
        assert_eq!((c.runs, c.jaccard_min, c.reliable), (3, 0.5, false));
        assert!((c.jaccard_avg - 2.0 / 3.0).abs() < 1e-12);
        let c = Consistency::of_runs(&[set(&["a"]), set(&["a"]), set(&["a"])]);
        assert_eq!((c.jaccard_avg, c.jaccard_min, c.reliable), (1.0, 1.0, true));
    }

    #[test]
    fn keys_leave_out_span_source_and_confidence() {
        let vocab = Vocabulary::builtin();
        let a = extract_facts(&vocab, &ChunkContext::new("Session tokens expire after 30 minutes.", "d1", "d1#1", None));
        let b = extract_facts(&vocab, &ChunkContext::new("Note. Session tokens expire after 30 minutes.", "d2", "d2#7", None));
        let (ka, kb) = (normalized_key(&a.facts[0].fact), normalized_key(&b.facts[0].fact));
        assert_eq!(ka, kb);
        assert_eq!(
            ka,
            r#"{"object":"30 minutes","polarity":"affirm","predicate":"expires_after","qualifiers":{},"subject":"session_token"}"#
        );
    }
}
