//! The deterministic pattern extractor (spec §5.4).
//!
//! 1. The chunk is split into sentences at `.`, `!` or `?` followed by whitespace or the end
//!    ([`split_sentences`]); each is trimmed and keeps its offset, so spans map back.
//! 2. Each sentence, without its trailing `.`/`!`/`?`, is matched against the vocabulary's
//!    sentence patterns in vocabulary order; the first match wins (§4.2).
//! 3. The candidates go through [`validate_candidate`] like any other facts
//!    ([`extract_facts`] does both and counts rejections by code).
//!
//! **Condition clauses (project rule, D23's "when/if …").** A sentence that opens with
//! `If …,` / `When …,` / `Whenever …,` or closes with `… if …` / `… when …` / `… whenever …`
//! is also tried without that clause, whose text becomes the `condition` qualifier unless the
//! pattern captured one itself: "Session tokens expire after 30 minutes when idle" →
//! `expires_after(session_token, "30 minutes")` with condition `idle`. The span covers the
//! matched main clause only, so a negation inside the condition does not flip the polarity.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use warrant_text::OffsetMap;

use crate::fact::{Polarity, Qualifiers, Span};
use crate::validate::{Candidate, ChunkContext, RejectionCounts, ValidatedFact, validate_candidate};
use crate::vocab::Vocabulary;

/// Sentences of `text` as trimmed byte ranges: a sentence ends at `.`, `!` or `?` followed by
/// whitespace or the end of the text (§5.4). Empty sentences are dropped.
pub fn split_sentences(text: &str) -> Vec<Range<usize>> {
    warrant_text::segment::sentences_at_terminators(text)
}

static LEADING_CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:if|when|whenever)\s+(?P<condition>[^,]+?)\s*,\s*(?:then\s+)?").unwrap_or_else(|e| panic!("{e}"))
});
static TRAILING_CONDITION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\s*,?\s+(?:if|when|whenever)\s+(?P<condition>\S.*)$").unwrap_or_else(|e| panic!("{e}")));

/// One way to read a sentence: the byte range to match and the condition it carries.
struct Reading<'a> {
    range: Range<usize>,
    condition: Option<&'a str>,
}

/// The readings of one sentence, most specific first: with a trailing condition clause
/// removed (at each candidate position, left to right), then the whole main clause.
fn readings<'a>(chunk: &'a str, sentence: Range<usize>) -> Vec<Reading<'a>> {
    let s = &chunk[sentence.clone()];
    let body = s.trim_end_matches(['.', '!', '?']).trim_end();
    let mut start = sentence.start;
    let mut lead_condition = None;
    if let Some(c) = LEADING_CONDITION.captures(body)
        && let (Some(all), Some(cond)) = (c.get(0), c.name("condition"))
    {
        lead_condition = Some(&chunk[sentence.start + cond.start()..sentence.start + cond.end()]);
        start = sentence.start + all.end();
    }
    let end = sentence.start + body.len();
    let main = &chunk[start..end];
    let mut out = Vec::with_capacity(2);
    // Trailing clauses: try every "if/when" position, since the word may also sit inside the
    // subject ("Tokens issued when logging in expire after …").
    let mut from = 0;
    while let Some(c) = TRAILING_CONDITION.captures_at(main, from) {
        let (Some(all), Some(cond)) = (c.get(0), c.name("condition")) else { break };
        if all.start() > 0 {
            let condition = &chunk[start + cond.start()..start + cond.end()];
            out.push(Reading { range: start..start + all.start(), condition: Some(condition) });
        }
        from = cond.start();
    }
    if start < end {
        out.push(Reading { range: start..end, condition: lead_condition });
    }
    if let Some(lead) = lead_condition {
        for r in &mut out {
            r.condition.get_or_insert(lead);
        }
    }
    out
}

/// Candidate facts of one chunk (steps 1–2 of §5.4), in sentence order; at most one per
/// sentence. Spans are char offsets into `chunk`.
pub fn extract_candidates(chunk: &str, vocab: &Vocabulary) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut offsets: Option<OffsetMap> = None;
    for sentence in split_sentences(chunk) {
        let readings = readings(chunk, sentence);
        if let Some(c) = first_match(chunk, vocab, &readings, &mut offsets) {
            out.push(c);
        }
    }
    out
}

fn first_match(chunk: &str, vocab: &Vocabulary, readings: &[Reading<'_>], offsets: &mut Option<OffsetMap>) -> Option<Candidate> {
    // The earliest pattern in vocabulary order wins; between readings matched by the same
    // pattern, the most specific (first) reading.
    let mut best: Option<(usize, &Reading<'_>, &str, &Regex)> = None;
    for r in readings {
        if let Some((k, entry, regex)) = vocab.first_matching_pattern(&chunk[r.range.clone()])
            && best.as_ref().is_none_or(|(b, ..)| k < *b)
        {
            best = Some((k, r, entry.id.as_str(), regex));
        }
    }
    let (_, reading, predicate, regex) = best?;
    let caps = regex.captures(&chunk[reading.range.clone()])?;
    let map = offsets.get_or_insert_with(|| OffsetMap::new(chunk));
    let base = reading.range.start;
    let span_of = |m: regex::Match<'_>| Span::from(map.span_of(base + m.start(), base + m.end()));
    let whole = caps.get(0)?;
    let subject = caps.name("subject")?;
    let object = caps.name("object")?;
    let mut qualifiers = Qualifiers::new();
    let condition = caps.name("condition").map(|m| m.as_str()).or(reading.condition);
    if let Some(c) = condition.map(str::trim).filter(|c| !c.is_empty()) {
        qualifiers.insert("condition".into(), Value::String(c.to_string()));
    }
    let polarity = if caps.name("neg").is_some() { Polarity::Negate } else { Polarity::Affirm };
    let span = span_of(whole);
    Some(Candidate {
        subject: subject.as_str().trim().to_string(),
        predicate: predicate.to_string(),
        object: Value::String(object.as_str().trim().to_string()),
        qualifiers,
        polarity,
        confidence: 1.0,
        span: (span.start as i64, span.end as i64),
        subject_span: Some(span_of(subject)),
        object_span: Some(span_of(object)),
    })
}

/// What [`extract_facts`] produced for one chunk.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// Facts that passed validation, in sentence order.
    pub facts: Vec<ValidatedFact>,
    /// Candidates dropped, by code.
    pub rejected: RejectionCounts,
    /// Why a model-backed extractor fell back to the pattern extractor for this chunk.
    pub degraded: Option<String>,
    /// Facts kept and candidates rejected by each extraction layer (`vocabulary`,
    /// `attribute`, `model`), in name order.
    pub layers: BTreeMap<String, LayerCount>,
}

/// What one extraction layer produced: facts kept and candidates rejected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LayerCount {
    /// Facts that passed validation.
    pub kept: u64,
    /// Candidates validation dropped.
    pub rejected: u64,
}

impl Extraction {
    /// Counts one validated (`kept`) or dropped candidate of a layer.
    pub fn count(&mut self, layer: &str, kept: bool) {
        // One key per layer: look it up before allocating it (this runs for every fact).
        let c = match self.layers.get_mut(layer) {
            Some(c) => c,
            None => self.layers.entry(layer.to_string()).or_default(),
        };
        if kept {
            c.kept += 1;
        } else {
            c.rejected += 1;
        }
    }
}

/// Runs the pattern extractor over a chunk and validates every candidate (§5.3).
pub fn extract_facts(vocab: &Vocabulary, chunk: &ChunkContext<'_>) -> Extraction {
    let mut out = Extraction::default();
    let vocabulary = extract_candidates(chunk.text, vocab);
    // The attribute layer reads what no vocabulary pattern did.
    let taken: Vec<Span> = vocabulary.iter().map(|c| Span::new(c.span.0.max(0) as usize, c.span.1.max(0) as usize)).collect();
    let attribute = crate::attribute::attribute_candidates(chunk.text, &taken);
    let mut candidates: Vec<(&str, Candidate)> =
        vocabulary.into_iter().map(|c| ("vocabulary", c)).chain(attribute.into_iter().map(|c| ("attribute", c))).collect();
    candidates.sort_by_key(|(_, c)| c.span);
    for (layer, c) in candidates {
        match validate_candidate(c, vocab, chunk) {
            Ok(f) => {
                out.facts.push(f);
                out.count(layer, true);
            }
            Err(r) => {
                out.rejected.add(r.code);
                out.count(layer, false);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fact::Object;
    use crate::validate::RejectionCode;
    use proptest::prelude::*;
    use warrant_text::clamp_slice;

    fn facts(text: &str) -> Vec<(String, String, String, Option<String>, Polarity, String)> {
        let out = extract_facts(&Vocabulary::builtin(), &ChunkContext::new(text, "d", "d#1", None));
        out.facts
            .into_iter()
            .map(|v| {
                let f = v.fact;
                let snippet = clamp_slice(text, f.span.start, f.span.end).to_string();
                (
                    f.subject.clone(),
                    f.predicate.clone(),
                    f.object.to_string(),
                    f.condition().map(str::to_string),
                    f.polarity,
                    snippet,
                )
            })
            .collect()
    }

    #[test]
    fn sentences_split_at_terminators_before_whitespace() {
        let t = "Pi is 3.14. Really?  Yes!\nv1.2 ships.";
        let s: Vec<&str> = split_sentences(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(s, ["Pi is 3.14.", "Really?", "Yes!", "v1.2 ships."]);
        assert!(split_sentences("  \n ").is_empty());
        assert_eq!(split_sentences("no terminator"), vec![std::ops::Range { start: 0, end: 13 }]);
    }

    #[test]
    fn exp3_sentences() {
        let text = "Session tokens expire after 30 minutes of inactivity.\n      Maximum session duration is 8 hours.\n      Tokens are stored in HttpOnly cookies.";
        let got = facts(text);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            got[0],
            (
                "session_token".into(),
                "expires_after".into(),
                "30 minutes".into(),
                Some("inactivity".into()),
                Polarity::Affirm,
                "Session tokens expire after 30 minutes of inactivity".into()
            )
        );
        assert_eq!(
            got[1],
            (
                "maximum_session_duration".into(),
                "has_value".into(),
                "8 hours".into(),
                None,
                Polarity::Affirm,
                "Maximum session duration is 8 hours".into()
            )
        );
    }

    #[test]
    fn each_default_predicate() {
        let cases = [
            ("API keys are valid for 90 days.", "valid_for", "api_key", "90 days"),
            ("The report was created on 2024-05-01.", "created_at", "report", "2024-05-01"),
            ("The gateway requires an API key.", "requires", "gateway", "api_key"),
            ("Every bundle includes the audit logs.", "contains", "bundle", "audit_log"),
            ("The token service is part of the auth platform.", "part_of", "token_service", "auth_platform"),
            ("The rate limit is 100 rps.", "has_value", "rate_limit", "100 rps"),
            ("Legacy login is deprecated.", "has_status", "legacy_login", "deprecated"),
            ("The cache is an LRU.", "has_type", "cache", "LRU"),
        ];
        for (text, predicate, subject, object) in cases {
            let got = facts(text);
            assert_eq!(got.len(), 1, "{text}: {got:?}");
            assert_eq!((got[0].1.as_str(), got[0].0.as_str(), got[0].2.as_str()), (predicate, subject, object), "{text}");
        }
    }

    #[test]
    fn negation_and_conditions() {
        let got = facts("Refresh tokens do not expire after 30 days.");
        assert_eq!((got[0].4, got[0].0.as_str()), (Polarity::Negate, "refresh_token"));
        let got = facts("Session tokens expire after 15 minutes when the user is idle.");
        assert_eq!(got[0].3.as_deref(), Some("the user is idle"));
        assert_eq!(got[0].5, "Session tokens expire after 15 minutes");
        let got = facts("If the device is not trusted, session tokens expire in 5 minutes.");
        assert_eq!(
            (got[0].0.as_str(), got[0].3.as_deref(), got[0].4),
            ("session_token", Some("the device is not trusted"), Polarity::Affirm)
        );
        let got = facts("The export requires admin approval if the dataset is large.");
        assert_eq!((got[0].2.as_str(), got[0].3.as_deref()), ("admin_approval", Some("the dataset is large")));
        let got = facts("Tokens issued when logging in expire after 10 minutes.");
        assert_eq!((got[0].0.as_str(), got[0].3.as_deref()), ("tokens_issued_when_logging_in", None));
        let got = facts("When idle, sessions expire after 2 hours of inactivity.");
        assert_eq!(got[0].3.as_deref(), Some("inactivity"), "a captured condition wins over the clause");
    }

    #[test]
    fn first_pattern_in_vocabulary_order_wins() {
        // has_value precedes has_type; "is 5 kg" is a value, not a type.
        let got = facts("The weight is 5 kg.");
        assert_eq!(got[0].1, "has_value");
        assert!(facts("Tokens are stored in HttpOnly cookies with SameSite=Strict.").is_empty());
    }

    #[test]
    fn rejected_candidates_are_counted() {
        // The pattern captures "30 minutes" but "no" in the span contradicts affirm polarity.
        let out =
            extract_facts(&Vocabulary::builtin(), &ChunkContext::new("No tokens expire after 30 minutes.", "d", "d#1", None));
        assert!(out.facts.is_empty());
        assert_eq!(out.rejected.get(RejectionCode::PolarityMismatch), 1);
    }

    #[test]
    fn spans_are_char_offsets() {
        let text = "Ünïcode: ok. Clés API keys expire after 5 minutes.";
        let out = extract_facts(&Vocabulary::builtin(), &ChunkContext::new(text, "d", "d#1", Some("v2")));
        let f = &out.facts[0];
        assert_eq!(clamp_slice(text, f.fact.span.start, f.fact.span.end), "Clés API keys expire after 5 minutes");
        let sub = f.mentions[0].span.unwrap();
        assert_eq!(clamp_slice(text, sub.start, sub.end), "Clés API keys");
        assert_eq!(f.fact.object, Object::String("5 minutes".into()));
        assert_eq!(f.fact.version().as_deref(), Some("v2"));
    }

    proptest! {
        #[test]
        fn extraction_never_panics_and_spans_hold(text in "(\\PC|\n| |\\.|!|\\?|expire|after|5 minutes|is|not){0,60}") {
            let out = extract_facts(&Vocabulary::builtin(), &ChunkContext::new(&text, "d", "d#1", None));
            for v in out.facts {
                let n = text.chars().count();
                prop_assert!(v.fact.span.start < v.fact.span.end && v.fact.span.end <= n);
            }
        }
    }
}
