//! Validate and filter (spec §5.3) and span validation (§6).
//!
//! Every candidate fact, from the pattern extractor or from an LLM, goes through the same
//! steps; the first that fails drops it with a [`RejectionCode`]:
//!
//! 1. schema ([`parse_candidate`], for JSON candidates): `fact_not_object`, `span_missing`,
//!    `subject_missing`, `predicate_missing`, `object_missing`, and the project codes
//!    `polarity_invalid`, `confidence_invalid`, `qualifiers_invalid` for fields that are present
//!    but malformed;
//! 2. vocabulary: `predicate_not_in_vocabulary`;
//! 3. argTypes (§4.2): `object_type_mismatch`;
//! 4. span validation (§6): `span_out_of_range`, `subject_not_in_span`, `object_not_in_span`,
//!    `polarity_mismatch`;
//! 5. normalise (§3.1): canonical subject, defaults, `qualifiers.version` from the document;
//! 6. source: overwritten with the chunk being ingested.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::Value;
use warrant_text::{char_len, clamp_slice};

use crate::canonical::canonical_entity;
use crate::fact::{Fact, Object, Polarity, Qualifiers, Source, Span};
use crate::value::{parse_duration_minutes, parse_number, parse_timestamp_ms};
use crate::vocab::{ArgType, Vocabulary};

/// Why a candidate fact was dropped; [`RejectionCode::as_str`] is the spec's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RejectionCode {
    /// Not a JSON object.
    FactNotObject,
    /// `span.start` or `span.end` is not an integer.
    SpanMissing,
    /// Subject missing or blank.
    SubjectMissing,
    /// Predicate missing or blank.
    PredicateMissing,
    /// The `object` key is absent.
    ObjectMissing,
    /// `polarity` present but neither `affirm` nor `negate` (project code).
    PolarityInvalid,
    /// `confidence` present but not a number in [0, 1] (project code).
    ConfidenceInvalid,
    /// `qualifiers` present but not an object (project code).
    QualifiersInvalid,
    /// The predicate is not a vocabulary key.
    PredicateNotInVocabulary,
    /// The object does not fit the predicate's object argType.
    ObjectTypeMismatch,
    /// Not `0 ≤ start < end ≤ len(chunk)`.
    SpanOutOfRange,
    /// The subject does not occur in the span.
    SubjectNotInSpan,
    /// A number or digit run of the object does not occur in the span.
    ObjectNotInSpan,
    /// Negation cues and polarity disagree.
    PolarityMismatch,
}

impl RejectionCode {
    /// Every code, in pipeline order.
    pub const ALL: [RejectionCode; 14] = [
        Self::FactNotObject,
        Self::SpanMissing,
        Self::SubjectMissing,
        Self::PredicateMissing,
        Self::ObjectMissing,
        Self::PolarityInvalid,
        Self::ConfidenceInvalid,
        Self::QualifiersInvalid,
        Self::PredicateNotInVocabulary,
        Self::ObjectTypeMismatch,
        Self::SpanOutOfRange,
        Self::SubjectNotInSpan,
        Self::ObjectNotInSpan,
        Self::PolarityMismatch,
    ];

    /// The code as written in the spec (`subject_not_in_span`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FactNotObject => "fact_not_object",
            Self::SpanMissing => "span_missing",
            Self::SubjectMissing => "subject_missing",
            Self::PredicateMissing => "predicate_missing",
            Self::ObjectMissing => "object_missing",
            Self::PolarityInvalid => "polarity_invalid",
            Self::ConfidenceInvalid => "confidence_invalid",
            Self::QualifiersInvalid => "qualifiers_invalid",
            Self::PredicateNotInVocabulary => "predicate_not_in_vocabulary",
            Self::ObjectTypeMismatch => "object_type_mismatch",
            Self::SpanOutOfRange => "span_out_of_range",
            Self::SubjectNotInSpan => "subject_not_in_span",
            Self::ObjectNotInSpan => "object_not_in_span",
            Self::PolarityMismatch => "polarity_mismatch",
        }
    }
}

impl fmt::Display for RejectionCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RejectionCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Rejected candidates counted by code (sorted by code name in JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RejectionCounts(BTreeMap<&'static str, u64>);

impl RejectionCounts {
    /// Counts one rejection.
    pub fn add(&mut self, code: RejectionCode) {
        *self.0.entry(code.as_str()).or_insert(0) += 1;
    }

    /// Adds another tally to this one.
    pub fn merge(&mut self, other: &RejectionCounts) {
        for (k, n) in &other.0 {
            *self.0.entry(k).or_insert(0) += n;
        }
    }

    /// Total rejections.
    pub fn total(&self) -> u64 {
        self.0.values().sum()
    }

    /// The count of one code.
    pub fn get(&self, code: RejectionCode) -> u64 {
        self.0.get(code.as_str()).copied().unwrap_or(0)
    }

    /// `(code, count)` pairs sorted by code.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.0.iter().map(|(k, n)| (*k, *n))
    }
}

impl Serialize for RejectionCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A fact as proposed by an extractor, before validation. Spans are char offsets into the
/// chunk; `subject_span`/`object_span` (optional) locate the surface forms for entity mentions.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// Subject as written (surface form or canonical string).
    pub subject: String,
    /// Predicate id.
    pub predicate: String,
    /// Object value (type not yet checked).
    pub object: Value,
    /// Qualifiers proposed by the extractor.
    pub qualifiers: Qualifiers,
    /// Polarity (default affirm).
    pub polarity: Polarity,
    /// Confidence (default 1).
    pub confidence: f64,
    /// Raw span: may be out of range until step 4.
    pub span: (i64, i64),
    /// Where the subject's surface form is, when the extractor knows.
    pub subject_span: Option<Span>,
    /// Where the object's surface form is, when the extractor knows.
    pub object_span: Option<Span>,
}

/// A rejected candidate: the code and a short detail for diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The spec's code.
    pub code: RejectionCode,
    /// What was wrong, for people.
    pub detail: String,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

fn reject(code: RejectionCode, detail: impl Into<String>) -> Rejection {
    Rejection { code, detail: detail.into() }
}

/// Step 1: the schema of a raw JSON candidate (e.g. one element of an LLM's array).
pub fn parse_candidate(raw: &Value) -> Result<Candidate, Rejection> {
    use RejectionCode::*;
    let Value::Object(m) = raw else { return Err(reject(FactNotObject, "not a JSON object")) };
    let int = |k: &str| m.get("span").and_then(|s| s.get(k)).and_then(Value::as_i64);
    let (Some(start), Some(end)) = (int("start"), int("end")) else {
        return Err(reject(SpanMissing, "span.start and span.end must be integers"));
    };
    let nonblank = |k: &str| m.get(k).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_string);
    let subject = nonblank("subject").ok_or_else(|| reject(SubjectMissing, "subject missing or blank"))?;
    let predicate = nonblank("predicate").ok_or_else(|| reject(PredicateMissing, "predicate missing or blank"))?;
    let object = m.get("object").cloned().ok_or_else(|| reject(ObjectMissing, "the object key is absent"))?;
    let polarity = match m.get("polarity") {
        None | Some(Value::Null) => Polarity::Affirm,
        Some(p) => {
            p.as_str().and_then(Polarity::parse).ok_or_else(|| reject(PolarityInvalid, "polarity must be affirm or negate"))?
        }
    };
    let confidence = match m.get("confidence") {
        None | Some(Value::Null) => 1.0,
        Some(c) => c
            .as_f64()
            .filter(|c| (0.0..=1.0).contains(c))
            .ok_or_else(|| reject(ConfidenceInvalid, "confidence must be in [0, 1]"))?,
    };
    let qualifiers = match m.get("qualifiers") {
        None | Some(Value::Null) => Qualifiers::new(),
        Some(Value::Object(q)) => q.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(_) => return Err(reject(QualifiersInvalid, "qualifiers must be an object")),
    };
    Ok(Candidate {
        subject,
        predicate,
        object,
        qualifiers,
        polarity,
        confidence,
        span: (start, end),
        subject_span: None,
        object_span: None,
    })
}

/// What validation needs to know about the chunk being ingested.
#[derive(Debug, Clone, Copy)]
pub struct ChunkContext<'a> {
    /// The chunk text spans index into.
    pub text: &'a str,
    /// Its length in chars.
    pub char_len: usize,
    /// The document id.
    pub doc_id: &'a str,
    /// The chunk id.
    pub chunk_id: &'a str,
    /// The document's version, copied into `qualifiers.version` when the fact has none.
    pub doc_version: Option<&'a str>,
}

impl<'a> ChunkContext<'a> {
    /// A context for a chunk.
    pub fn new(text: &'a str, doc_id: &'a str, chunk_id: &'a str, doc_version: Option<&'a str>) -> Self {
        Self { text, char_len: char_len(text), doc_id, chunk_id, doc_version }
    }
}

/// A surface form of an entity and where it is in the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Canonical entity string.
    pub entity: String,
    /// The text as written.
    pub surface: String,
    /// Char offsets into the chunk, when known.
    pub span: Option<Span>,
}

/// A fact that passed every step, with the entity mentions it carries (its subject, and its
/// object when the object is an entity).
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedFact {
    /// The normalised fact with its content-derived id.
    pub fact: Fact,
    /// Entity mentions: the subject first, then an entity object.
    pub mentions: Vec<Mention>,
}

/// Steps 2–6 for one candidate against one chunk.
pub fn validate_candidate(c: Candidate, vocab: &Vocabulary, chunk: &ChunkContext<'_>) -> Result<ValidatedFact, Rejection> {
    use RejectionCode::*;
    let entry = vocab
        .get(&c.predicate)
        .ok_or_else(|| reject(PredicateNotInVocabulary, format!("predicate \"{}\" is not in the vocabulary", c.predicate)))?;
    let object_type = entry.object_type();
    let object = check_object(&c.object, object_type)?;
    let span = check_span_range(c.span, chunk.char_len)?;
    check_span(chunk.text, span, &c.subject, &object, c.polarity)?;

    let subject = canonical_entity(&c.subject);
    if subject.is_empty() {
        return Err(reject(SubjectMissing, "the subject has no letters or digits"));
    }
    let mut mentions = vec![Mention { entity: subject.clone(), surface: c.subject.trim().to_string(), span: c.subject_span }];
    let object = match (object_type, object) {
        (ArgType::Entity, Object::String(s)) => {
            let canonical = canonical_entity(&s);
            mentions.push(Mention { entity: canonical.clone(), surface: s.trim().to_string(), span: c.object_span });
            Object::String(canonical)
        }
        (_, o) => o,
    };
    let mut qualifiers = c.qualifiers;
    if let (false, Some(v)) = (qualifiers.contains_key("version"), chunk.doc_version) {
        qualifiers.insert("version".into(), Value::String(v.to_string()));
    }
    let fact = Fact {
        id: String::new(),
        subject,
        predicate: c.predicate,
        object,
        qualifiers,
        polarity: c.polarity,
        confidence: c.confidence,
        span,
        source: Source { doc_id: chunk.doc_id.to_string(), chunk_id: chunk.chunk_id.to_string() },
    };
    Ok(ValidatedFact { fact: fact.with_content_id(), mentions })
}

/// Step 3: the object against the predicate's object argType (§4.2).
fn check_object(object: &Value, ty: ArgType) -> Result<Object, Rejection> {
    let mismatch = |why: &str| reject(RejectionCode::ObjectTypeMismatch, format!("object {object} is not {why}"));
    let parsed = Object::from_json(object).ok_or_else(|| mismatch("a string, a number or a boolean"))?;
    match (ty, &parsed) {
        (ArgType::Entity, Object::String(s)) if !canonical_entity(s).is_empty() => {}
        (ArgType::Entity, _) => return Err(mismatch("an entity name")),
        (ArgType::Duration, Object::String(s)) if parse_duration_minutes(s).is_ok() => {}
        (ArgType::Duration, _) => return Err(mismatch("a duration")),
        (ArgType::Timestamp, Object::String(s)) if parse_timestamp_ms(s).is_ok() => {}
        (ArgType::Timestamp, _) => return Err(mismatch("a timestamp")),
        (ArgType::Number, Object::Number(_)) => {}
        (ArgType::Number, Object::String(s)) if parse_number(s).is_ok() => {}
        (ArgType::Number, _) => return Err(mismatch("a number")),
        (ArgType::Value | ArgType::Type | ArgType::Status, Object::String(s)) if !s.trim().is_empty() => {}
        (ArgType::Value | ArgType::Type | ArgType::Status, Object::Number(_)) => {}
        (ArgType::Value | ArgType::Type | ArgType::Status, _) => return Err(mismatch("a string or a number")),
    }
    Ok(parsed)
}

fn check_span_range((start, end): (i64, i64), len: usize) -> Result<Span, Rejection> {
    let ok = 0 <= start && start < end && usize::try_from(end).is_ok_and(|e| e <= len);
    if !ok {
        return Err(reject(RejectionCode::SpanOutOfRange, format!("span {start}..{end} is not within 0..{len}")));
    }
    Ok(Span::new(start as usize, end as usize))
}

/// Span validation (§6) of an in-range span: subject present, object digits verbatim,
/// polarity consistent with negation cues. `subject` is the candidate's subject as given.
pub fn check_span(chunk: &str, span: Span, subject: &str, object: &Object, polarity: Polarity) -> Result<(), Rejection> {
    let snippet = clamp_slice(chunk, span.start, span.end);
    if !subject_in(snippet, subject) {
        return Err(reject(RejectionCode::SubjectNotInSpan, format!("subject \"{subject}\" does not occur in \"{snippet}\"")));
    }
    let missing = match object {
        Object::Number(n) => {
            let t = n.to_string();
            (!snippet.contains(&t)).then_some(t)
        }
        Object::String(s) => digit_runs(s).find(|run| !snippet.contains(run)).map(str::to_string),
        Object::Bool(_) => None,
    };
    if let Some(m) = missing {
        return Err(reject(RejectionCode::ObjectNotInSpan, format!("\"{m}\" of the object does not occur in \"{snippet}\"")));
    }
    let negated = has_negation_cue(&without_bounds(snippet));
    if negated != (polarity == Polarity::Negate) {
        let why = if negated {
            "the span has a negation cue but polarity is affirm"
        } else {
            "polarity is negate but the span has no negation cue"
        };
        return Err(reject(RejectionCode::PolarityMismatch, why));
    }
    Ok(())
}

/// The snippet with bound phrases ("must not exceed", "no more than", "no later than")
/// rewritten as "at most": they state a limit, not a negation (project rule, issue 21).
fn without_bounds(snippet: &str) -> std::borrow::Cow<'_, str> {
    const BOUNDS: [&str; 4] = ["exceed", "more than", "later than", "longer than"];
    let lower = snippet.to_lowercase();
    if !BOUNDS.iter().any(|b| lower.contains(b)) || lower.len() != snippet.len() {
        return std::borrow::Cow::Borrowed(snippet);
    }
    let mut out = lower;
    for neg in ["not to ", "not ", "no ", "never "] {
        for b in BOUNDS {
            out = out.replace(&format!("{neg}{b}"), "at most");
        }
    }
    std::borrow::Cow::Owned(out)
}

/// §6's loose form: lower-case, every char other than `[a-z0-9\s]` → space, spaces collapsed,
/// trimmed.
fn loose(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().flat_map(char::to_lowercase) {
        let c = if c.is_ascii_lowercase() || c.is_ascii_digit() { c } else { ' ' };
        if c != ' ' || !(out.is_empty() || out.ends_with(' ')) {
            out.push(c);
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// The subject, its `s`-plural or its `s`-stripped form occurs in the loose snippet.
fn subject_in(snippet: &str, subject: &str) -> bool {
    let s = loose(subject);
    if s.is_empty() {
        return false;
    }
    let hay = loose(snippet);
    hay.contains(&s) || hay.contains(&format!("{s}s")) || s.strip_suffix('s').is_some_and(|t| !t.is_empty() && hay.contains(t))
}

fn digit_runs(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty())
}

/// Negation cues of §6, word-bounded and case-insensitive: `not`, `no`, `never`, `none`,
/// `cannot`, `without`, and any word ending in `n't` (straight or curly apostrophe).
pub fn has_negation_cue(text: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).any(|w| {
        let w = w.to_lowercase();
        let w = w.trim_matches(|c| c == '\'' || c == '’');
        matches!(w, "not" | "no" | "never" | "none" | "cannot" | "without") || w.ends_with("n't") || w.ends_with("n’t")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CHUNK: &str = "Session tokens expire after 30 minutes of inactivity.\n      Maximum session duration is 8 hours.";

    fn ctx() -> ChunkContext<'static> {
        ChunkContext::new(CHUNK, "spec-auth-v1", "spec-auth-v1#1", Some("1.0"))
    }

    fn raw() -> Value {
        json!({"subject": "Session tokens", "predicate": "expires_after", "object": "30 minutes",
               "qualifiers": {"condition": "inactivity"}, "span": {"start": 0, "end": 52}})
    }

    fn run(v: Value) -> Result<ValidatedFact, RejectionCode> {
        parse_candidate(&v).and_then(|c| validate_candidate(c, &Vocabulary::builtin(), &ctx())).map_err(|r| r.code)
    }

    #[test]
    fn a_good_fact_is_normalised_and_sourced() {
        let mut v = raw();
        v["source"] = json!({"docId": "forged", "chunkId": "0"});
        let f = run(v).unwrap();
        assert_eq!(f.fact.subject, "session_token");
        assert_eq!(
            f.fact.qualifiers,
            [("condition".to_string(), json!("inactivity")), ("version".to_string(), json!("1.0"))].into()
        );
        assert_eq!(f.fact.source, Source { doc_id: "spec-auth-v1".into(), chunk_id: "spec-auth-v1#1".into() });
        assert_eq!(f.fact.id, f.fact.content_id());
        assert_eq!(f.mentions[0].surface, "Session tokens");
        let mut explicit = raw();
        explicit["qualifiers"]["version"] = json!("v9");
        assert_eq!(run(explicit).unwrap().fact.version().as_deref(), Some("v9"), "an explicit version wins");
    }

    #[test]
    fn every_code_is_reachable() {
        use RejectionCode::*;
        let with = |k: &str, val: Value| {
            let mut v = raw();
            v[k] = val;
            v
        };
        let without = |k: &str| {
            let mut v = raw();
            v.as_object_mut().unwrap().remove(k);
            v
        };
        let cases = [
            (json!("text"), FactNotObject),
            (with("span", json!({"start": "0", "end": 5})), SpanMissing),
            (without("span"), SpanMissing),
            (with("subject", json!("  ")), SubjectMissing),
            (without("predicate"), PredicateMissing),
            (without("object"), ObjectMissing),
            (with("polarity", json!("maybe")), PolarityInvalid),
            (with("confidence", json!(1.5)), ConfidenceInvalid),
            (with("qualifiers", json!([])), QualifiersInvalid),
            (with("predicate", json!("session_expired")), PredicateNotInVocabulary),
            (with("object", json!("soon")), ObjectTypeMismatch),
            (with("object", json!(30)), ObjectTypeMismatch),
            (with("object", Value::Null), ObjectTypeMismatch),
            (with("span", json!({"start": 10, "end": 10})), SpanOutOfRange),
            (with("span", json!({"start": 0, "end": 500})), SpanOutOfRange),
            (with("span", json!({"start": -1, "end": 5})), SpanOutOfRange),
            (with("span", json!({"start": 15, "end": 52})), SubjectNotInSpan),
            (with("object", json!("45 minutes")), ObjectNotInSpan),
            (with("polarity", json!("negate")), PolarityMismatch),
        ];
        for (v, code) in cases {
            assert_eq!(run(v.clone()).err(), Some(code), "{v}");
        }
    }

    #[test]
    fn span_rules_of_section_6() {
        let o = |s: &str| Object::String(s.into());
        let ok = |snippet: &str, subject: &str, obj: Object, pol| {
            check_span(snippet, Span::new(0, char_len(snippet)), subject, &obj, pol)
        };
        assert!(
            ok("Session tokens expire", "session_token", o("x"), Polarity::Affirm).is_ok(),
            "canonical subject, plural in text"
        );
        assert!(ok("The API key expires", "api_keys", o("x"), Polarity::Affirm).is_ok(), "s-stripped form");
        assert!(ok("limit is 1.50 MB", "limit", Object::Number(serde_json::from_str("1.50").unwrap()), Polarity::Affirm).is_ok());
        assert_eq!(
            ok("limit is 1.5 MB", "limit", Object::Number(serde_json::from_str("1.50").unwrap()), Polarity::Affirm)
                .unwrap_err()
                .code,
            RejectionCode::ObjectNotInSpan
        );
        assert!(ok("Tokens don't expire", "tokens", o("x"), Polarity::Negate).is_ok());
        assert!(ok("Tokens DON’T expire", "tokens", o("x"), Polarity::Negate).is_ok());
        assert!(ok("Tokens never expire", "tokens", o("x"), Polarity::Negate).is_ok());
        assert!(ok("Tokens notably expire", "tokens", o("x"), Polarity::Affirm).is_ok(), "word-bounded cues");
        assert_eq!(ok("Tokens expire", "tokens", o("x"), Polarity::Negate).unwrap_err().code, RejectionCode::PolarityMismatch);
        assert!(has_negation_cue("works without it") && has_negation_cue("It CANNOT") && !has_negation_cue("nobody knows"));
        // A bound is not a negation; a negation beside one still is.
        assert!(ok("Payloads must not exceed 256 KB", "payload", o("256 KB"), Polarity::Affirm).is_ok());
        assert!(ok("Claims are paid no later than 30 days", "claim", o("30 days"), Polarity::Affirm).is_ok());
        assert!(ok("Payloads are not stored or more than 5 KB", "payload", o("5 KB"), Polarity::Negate).is_ok());
    }

    #[test]
    fn counts_by_code() {
        let mut c = RejectionCounts::default();
        c.add(RejectionCode::SpanOutOfRange);
        c.add(RejectionCode::SpanOutOfRange);
        let mut d = RejectionCounts::default();
        d.add(RejectionCode::PolarityMismatch);
        c.merge(&d);
        assert_eq!(c.total(), 3);
        assert_eq!(c.get(RejectionCode::SpanOutOfRange), 2);
        assert_eq!(serde_json::to_value(&c).unwrap(), json!({"polarity_mismatch": 1, "span_out_of_range": 2}));
        assert_eq!(RejectionCode::ALL.len(), 14);
    }
}
