//! The DS005 fact (spec §3.1) in its normalised form, with stable content-derived ids.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};
use warrant_text::CharSpan;

use crate::canonical::normalize_version;
use crate::diag::{one_line, pointer_token};
use crate::value::parse_number;

/// Qualifiers of a fact: known keys `version`, `time`, `condition`; others allowed. Sorted by
/// key, so serialisation is deterministic.
pub type Qualifiers = BTreeMap<String, Value>;

/// A half-open range of char offsets `[start, end)` (D21). For a fact it indexes the chunk
/// text; JSON `{"start": …, "end": …}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    /// First char.
    pub start: usize,
    /// One past the last char.
    pub end: usize,
}

impl Span {
    /// Creates a span.
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
}

impl From<CharSpan> for Span {
    fn from(s: CharSpan) -> Self {
        Self { start: s.start, end: s.end }
    }
}

impl From<Span> for CharSpan {
    fn from(s: Span) -> Self {
        CharSpan::new(s.start, s.end)
    }
}

/// Where a fact comes from: JSON `{"docId": …, "chunkId": …}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// The document id.
    pub doc_id: String,
    /// The chunk id (`<docId>#<n>` for ingested chunks; manual facts keep what they were given).
    pub chunk_id: String,
}

/// Whether a fact is asserted or denied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Polarity {
    /// The fact holds (the default).
    #[default]
    Affirm,
    /// The fact is denied ("do not expire").
    Negate,
}

impl Polarity {
    /// `"affirm"` or `"negate"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Affirm => "affirm",
            Self::Negate => "negate",
        }
    }

    /// Parses `"affirm"` / `"negate"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "affirm" => Some(Self::Affirm),
            "negate" => Some(Self::Negate),
            _ => None,
        }
    }
}

/// A fact's object: a string, a number or a boolean (§3.1). Entities are canonical strings;
/// durations, timestamps and values keep their surface form (`"15 minutes"`).
///
/// Equality is typed and exact (§15): `15` ≠ `"15"` and `true` ≠ `"true"`; numbers compare
/// by exact decimal value (`15` = `15.0`) and keep the text they were written with.
#[derive(Debug, Clone)]
pub enum Object {
    /// A string.
    String(String),
    /// A number, as written (arbitrary precision).
    Number(Number),
    /// A boolean.
    Bool(bool),
}

impl Object {
    /// The object of a JSON value, or `None` for null, arrays and objects.
    pub fn from_json(v: &Value) -> Option<Self> {
        match v {
            Value::String(s) => Some(Self::String(s.clone())),
            Value::Number(n) => Some(Self::Number(n.clone())),
            Value::Bool(b) => Some(Self::Bool(*b)),
            _ => None,
        }
    }

    /// The object as a JSON value.
    pub fn to_json(&self) -> Value {
        match self {
            Self::String(s) => Value::String(s.clone()),
            Self::Number(n) => Value::Number(n.clone()),
            Self::Bool(b) => Value::Bool(*b),
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }
}

/// The string form of an object: strings as they are, numbers as written, `true`/`false`.
impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(s) => f.write_str(s),
            Self::Number(n) => write!(f, "{n}"),
            Self::Bool(b) => write!(f, "{b}"),
        }
    }
}

impl PartialEq for Object {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::String(a), Self::String(b)) => a == b,
            (Self::Bool(a), Self::Bool(b)) => a == b,
            (Self::Number(a), Self::Number(b)) => numbers_equal(a, b),
            _ => false,
        }
    }
}

/// Exact numeric equality of two JSON numbers (`15` = `15.0`, `0.1` ≠ `0.10000001`).
pub fn numbers_equal(a: &Number, b: &Number) -> bool {
    let (ta, tb) = (a.to_string(), b.to_string());
    if ta == tb {
        return true;
    }
    match (parse_number(&ta), parse_number(&tb)) {
        (Ok(x), Ok(y)) => x.value() == y.value(),
        _ => false,
    }
}

impl Serialize for Object {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Self::from_json(&v).ok_or_else(|| serde::de::Error::custom("a fact object must be a string, a number or a boolean"))
    }
}

/// A fact in its normalised form (§3.1): every field present, defaults filled
/// (`qualifiers` `{}`, `polarity` `affirm`, `confidence` 1). JSON field names are camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    /// Stable id: supplied by a manual fact, otherwise [`Fact::content_id`].
    pub id: String,
    /// Canonical entity string (§3.2) for extracted facts; manual facts keep what they were given.
    pub subject: String,
    /// A vocabulary predicate id (snake_case).
    pub predicate: String,
    /// The object.
    pub object: Object,
    /// Qualifiers: `version` (as written), `condition`, `time`, …
    pub qualifiers: Qualifiers,
    /// `affirm` or `negate`.
    pub polarity: Polarity,
    /// In [0, 1]; written `1` rather than `1.0` when whole.
    #[serde(serialize_with = "serialize_confidence")]
    pub confidence: f64,
    /// Char offsets into the chunk text (D21).
    pub span: Span,
    /// Document and chunk the fact was read from.
    pub source: Source,
}

impl Fact {
    /// The fact's `qualifiers.version` as written (a string, or a number's text).
    pub fn version(&self) -> Option<String> {
        match self.qualifiers.get("version")? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The version after D22 normalisation (`"v2.0"` → `"2.0"`).
    pub fn normalized_version(&self) -> Option<String> {
        self.version().map(|v| normalize_version(&v).to_string())
    }

    /// The `condition` qualifier, when it is a string.
    pub fn condition(&self) -> Option<&str> {
        self.qualifiers.get("condition").and_then(Value::as_str)
    }

    /// The normalised fact as JSON (keys sorted), without `id` when `with_id` is false.
    pub fn to_json(&self, with_id: bool) -> Value {
        let mut m = Map::new();
        if with_id {
            m.insert("id".into(), Value::String(self.id.clone()));
        }
        m.insert("subject".into(), Value::String(self.subject.clone()));
        m.insert("predicate".into(), Value::String(self.predicate.clone()));
        m.insert("object".into(), self.object.to_json());
        m.insert("qualifiers".into(), Value::Object(self.qualifiers.iter().map(|(k, v)| (k.clone(), v.clone())).collect()));
        m.insert("polarity".into(), Value::String(self.polarity.as_str().into()));
        m.insert("confidence".into(), confidence_json(self.confidence));
        m.insert("span".into(), serde_json::json!({"start": self.span.start, "end": self.span.end}));
        m.insert("source".into(), serde_json::json!({"docId": self.source.doc_id, "chunkId": self.source.chunk_id}));
        Value::Object(m)
    }

    /// The content-derived id: `f` + the first 16 hex digits of the SHA-256 of the canonical
    /// JSON (sorted keys, no whitespace) of the normalised fact without its id. Identical
    /// facts from the same source get the same id on every ingest.
    pub fn content_id(&self) -> String {
        // Serialised straight into the hasher: the same bytes as `to_json(false).to_string()`
        // (fields in key order), without building a JSON tree.
        let canonical = CanonicalFact {
            confidence: confidence_json(self.confidence),
            object: &self.object,
            polarity: self.polarity,
            predicate: &self.predicate,
            qualifiers: &self.qualifiers,
            source: CanonicalSource { chunk_id: &self.source.chunk_id, doc_id: &self.source.doc_id },
            span: CanonicalSpan { end: self.span.end, start: self.span.start },
            subject: &self.subject,
        };
        let mut hasher = HashWriter(Sha256::new());
        // Writing into a hasher cannot fail, and every field serialises.
        let _ = serde_json::to_writer(&mut hasher, &canonical);
        let digest = hasher.0.finalize();
        let mut id = String::with_capacity(17);
        id.push('f');
        for b in &digest[..8] {
            id.push(char::from(HEX[usize::from(b >> 4)]));
            id.push(char::from(HEX[usize::from(b & 15)]));
        }
        id
    }

    /// Sets `id` to [`Fact::content_id`] and returns the fact.
    pub fn with_content_id(mut self) -> Self {
        self.id = self.content_id();
        self
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The fields of a fact in sorted key order, for [`Fact::content_id`].
#[derive(Serialize)]
struct CanonicalFact<'a> {
    confidence: Value,
    object: &'a Object,
    polarity: Polarity,
    predicate: &'a str,
    qualifiers: &'a Qualifiers,
    source: CanonicalSource<'a>,
    span: CanonicalSpan,
    subject: &'a str,
}

#[derive(Serialize)]
struct CanonicalSource<'a> {
    #[serde(rename = "chunkId")]
    chunk_id: &'a str,
    #[serde(rename = "docId")]
    doc_id: &'a str,
}

#[derive(Serialize)]
struct CanonicalSpan {
    end: usize,
    start: usize,
}

struct HashWriter(Sha256);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Confidence as JSON: integers without a fraction (`1`), others as the shortest decimal.
pub fn confidence_json(c: f64) -> Value {
    if c.fract() == 0.0 && (0.0..=1.0).contains(&c) {
        Value::Number(Number::from(c as u64))
    } else {
        Number::from_f64(c).map_or(Value::Null, Value::Number)
    }
}

fn serialize_confidence<S: Serializer>(c: &f64, s: S) -> Result<S::Ok, S::Error> {
    confidence_json(*c).serialize(s)
}

/// Why a manual fact (§16) could not be loaded: a JSON pointer and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct FactError {
    /// JSON pointer into the fact (`/qualifiers`), `/` for the fact itself.
    pub pointer: String,
    /// What was wrong.
    pub message: String,
}

fn fact_err(pointer: &str, message: impl Into<String>) -> FactError {
    let message = message.into();
    FactError { pointer: if pointer.is_empty() { "/".into() } else { pointer.into() }, message: one_line(&message).into_owned() }
}

const MANUAL_KEYS: [&str; 9] = ["id", "subject", "predicate", "object", "qualifiers", "polarity", "confidence", "span", "source"];

impl Fact {
    /// Reads a manual (gold) fact (§16): `subject`, `predicate`, `object` and
    /// `source{docId, chunkId}` are required; `span` defaults to `{0, 0}`, `qualifiers` to
    /// `{}`, `polarity` to `affirm`, `confidence` to 1, `id` to [`Fact::content_id`]. Values
    /// are kept as given (no canonicalisation, no span validation). Unknown keys are refused.
    pub fn from_manual_json(v: &Value) -> Result<Self, FactError> {
        let Value::Object(m) = v else { return Err(fact_err("", "expected a fact object")) };
        if let Some(k) = m.keys().find(|k| !MANUAL_KEYS.contains(&k.as_str())) {
            return Err(fact_err(
                &format!("/{}", pointer_token(k)),
                format!("unknown key (expected {})", MANUAL_KEYS.join(", ")),
            ));
        }
        let text = |key: &str| -> Result<String, FactError> {
            match m.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
                Some(_) => Err(fact_err(&format!("/{key}"), "expected a non-empty string")),
                None => Err(fact_err("", format!("missing \"{key}\""))),
            }
        };
        let subject = text("subject")?;
        let predicate = text("predicate")?;
        let object = match m.get("object") {
            None => return Err(fact_err("", "missing \"object\"")),
            Some(o) => Object::from_json(o).ok_or_else(|| fact_err("/object", "expected a string, a number or a boolean"))?,
        };
        let qualifiers = match m.get("qualifiers") {
            None => Qualifiers::new(),
            Some(Value::Object(q)) => q.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            Some(_) => return Err(fact_err("/qualifiers", "expected an object")),
        };
        let polarity = match m.get("polarity") {
            None => Polarity::Affirm,
            Some(p) => {
                p.as_str().and_then(Polarity::parse).ok_or_else(|| fact_err("/polarity", "expected \"affirm\" or \"negate\""))?
            }
        };
        let confidence = match m.get("confidence") {
            None => 1.0,
            Some(c) => c
                .as_f64()
                .filter(|c| (0.0..=1.0).contains(c))
                .ok_or_else(|| fact_err("/confidence", "expected a number in [0, 1]"))?,
        };
        let span = match m.get("span") {
            None => Span::default(),
            Some(s) => {
                let at = |k: &str| s.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
                match (at("start"), at("end")) {
                    (Some(start), Some(end)) if start <= end => Span { start, end },
                    _ => return Err(fact_err("/span", "expected {\"start\", \"end\"} with 0 ≤ start ≤ end")),
                }
            }
        };
        let source = match m.get("source") {
            Some(Value::Object(s)) => {
                let field = |k: &str| match s.get(k) {
                    Some(Value::String(x)) if !x.is_empty() => Ok(x.clone()),
                    _ => Err(fact_err(&format!("/source/{k}"), "expected a non-empty string")),
                };
                Source { doc_id: field("docId")?, chunk_id: field("chunkId")? }
            }
            Some(_) => return Err(fact_err("/source", "expected {\"docId\", \"chunkId\"}")),
            None => return Err(fact_err("", "missing \"source\"")),
        };
        let fact = Self { id: String::new(), subject, predicate, object, qualifiers, polarity, confidence, span, source };
        match m.get("id") {
            None => Ok(fact.with_content_id()),
            Some(Value::String(id)) if !id.is_empty() => Ok(Self { id: id.clone(), ..fact }),
            Some(_) => Err(fact_err("/id", "expected a non-empty string")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn gold() -> Value {
        json!({"subject": "session_token", "predicate": "expires_after", "object": "30 minutes",
               "qualifiers": {"version": "1.0"}, "span": {"start": 0, "end": 0},
               "source": {"docId": "spec-auth-v1", "chunkId": "c1"}})
    }

    #[test]
    fn manual_facts_fill_defaults_and_get_stable_ids() {
        let f = Fact::from_manual_json(&gold()).unwrap();
        assert_eq!(f.polarity, Polarity::Affirm);
        assert_eq!(f.confidence, 1.0);
        assert_eq!(f.version().as_deref(), Some("1.0"));
        assert!(f.id.starts_with('f') && f.id.len() == 17, "{}", f.id);
        assert_eq!(f.id, Fact::from_manual_json(&gold()).unwrap().id);
        let mut other = gold();
        other["source"]["chunkId"] = json!("c2");
        assert_ne!(f.id, Fact::from_manual_json(&other).unwrap().id, "the source is part of the identity");
        let mut with_id = gold();
        with_id["id"] = json!("f0");
        assert_eq!(Fact::from_manual_json(&with_id).unwrap().id, "f0");
        let out = serde_json::to_value(&f).unwrap();
        assert_eq!(out["source"], json!({"docId": "spec-auth-v1", "chunkId": "c1"}));
        assert_eq!(out["polarity"], "affirm");
        let back: Fact = serde_json::from_value(out).unwrap();
        assert_eq!(back, f);
    }

    #[test]
    fn manual_fact_errors_name_the_pointer() {
        let cases = [
            (json!([]), "/: expected a fact object"),
            (json!({"subject": "a", "predicate": "p", "source": {"docId": "d", "chunkId": "c"}}), "/: missing \"object\""),
            (json!({"subject": "a", "predicate": "p", "object": [1], "source": {"docId": "d", "chunkId": "c"}}), "/object:"),
            (json!({"subject": " ", "predicate": "p", "object": 1, "source": {"docId": "d", "chunkId": "c"}}), "/subject:"),
            (json!({"subject": "a", "predicate": "p", "object": 1, "source": {"docId": "d"}}), "/source/chunkId:"),
            (
                json!({"subject": "a", "predicate": "p", "object": 1, "source": {"docId": "d", "chunkId": "c"}, "colour": 1}),
                "/colour: unknown key",
            ),
            (
                json!({"subject": "a", "predicate": "p", "object": 1, "polarity": "yes", "source": {"docId": "d", "chunkId": "c"}}),
                "/polarity:",
            ),
            (
                json!({"subject": "a", "predicate": "p", "object": 1, "confidence": 2, "source": {"docId": "d", "chunkId": "c"}}),
                "/confidence:",
            ),
            (
                json!({"subject": "a", "predicate": "p", "object": 1, "span": {"start": 3, "end": 1}, "source": {"docId": "d", "chunkId": "c"}}),
                "/span:",
            ),
        ];
        for (v, needle) in cases {
            let e = Fact::from_manual_json(&v).unwrap_err().to_string();
            assert!(e.starts_with(needle), "{e} vs {needle}");
        }
    }

    #[test]
    fn content_id_hashes_the_canonical_json() {
        let mut v = gold();
        v["qualifiers"]["condition"] = json!("when idle");
        v["object"] = json!(1.50);
        v["confidence"] = json!(0.5);
        let f = Fact::from_manual_json(&v).unwrap();
        let digest = Sha256::digest(f.to_json(false).to_string().as_bytes());
        let expected: String = std::iter::once("f".to_string()).chain(digest[..8].iter().map(|b| format!("{b:02x}"))).collect();
        assert_eq!(f.id, expected);
    }

    #[test]
    fn objects_compare_typed_and_exact() {
        let n = |s: &str| Object::Number(serde_json::from_str(s).unwrap());
        assert_eq!(n("15"), n("15.0"));
        assert_ne!(n("15"), Object::String("15".into()));
        assert_ne!(Object::Bool(true), Object::String("true".into()));
        assert_ne!(n("0.1"), n("0.10000001"));
        assert_eq!(n("1.50").to_string(), "1.50", "numbers keep their text");
    }

    #[test]
    fn confidence_json_is_compact() {
        assert_eq!(confidence_json(1.0), json!(1));
        assert_eq!(confidence_json(0.0), json!(0));
        assert_eq!(confidence_json(0.25).to_string(), "0.25");
    }
}
