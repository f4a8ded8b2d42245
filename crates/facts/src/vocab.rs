//! The predicate vocabulary (spec §4, D23, D25).
//!
//! A vocabulary is an ordered list of predicates, each with argument types, a cardinality,
//! sentence `patterns` (for the pattern extractor, §5.4) and `questionPatterns` (for the
//! question planner, §8.3). The default is DS005's nine predicates with English surface
//! patterns ([`Vocabulary::builtin`], from `vocabulary/default.toml`). A vocabulary file in
//! JSON or TOML **adds to** the defaults; an entry with an existing id replaces it in place,
//! new entries follow in file order ([`Vocabulary::extended`]).
//!
//! File format (JSON shown; TOML uses one table per predicate):
//!
//! ```json
//! { "expires_after": {
//!     "argTypes": ["entity", "duration"],
//!     "group": "temporal",
//!     "cardinality": "functional",
//!     "patterns": ["<regex>"],
//!     "questionPatterns": ["<regex>"] } }
//! ```
//!
//! `argTypes` is required. `cardinality` is `functional` or `multi_valued`; when absent it is
//! D25's default (`requires` and `contains` multi-valued, every other predicate functional).
//! Patterns are case-insensitive Rust regexes; sentence patterns need the named groups
//! `subject` and `object` and may use `condition` and `neg`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, OnceLock};

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use sha2::{Digest, Sha256};
use warrant_text::pattern::LazyRegex;

use crate::diag::{one_line, pointer_token};

/// Compiled-size limit for one pattern: vocabulary files are user input.
const REGEX_SIZE_LIMIT: usize = 4 << 20;

/// The embedded default vocabulary file.
pub const DEFAULT_VOCABULARY_TOML: &str = include_str!("../vocabulary/default.toml");

/// The type of a predicate argument (§4.1, §4.2). Objects are checked against it during
/// validation (§5.3 step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgType {
    /// A named thing; canonicalised (§3.2).
    Entity,
    /// `<number> <unit>`; must parse (§11.4).
    Duration,
    /// RFC 3339 date-time or ISO date; must parse (§11.4).
    Timestamp,
    /// A JSON number or a decimal string (project addition, §11.4's `number`).
    Number,
    /// A free string or number.
    Value,
    /// A free string or number.
    Type,
    /// A free string or number.
    Status,
}

impl ArgType {
    /// Every argument type with its name in vocabulary files.
    pub const ALL: [(ArgType, &'static str); 7] = [
        (Self::Entity, "entity"),
        (Self::Duration, "duration"),
        (Self::Timestamp, "timestamp"),
        (Self::Number, "number"),
        (Self::Value, "value"),
        (Self::Type, "type"),
        (Self::Status, "status"),
    ];

    /// Parses a name from a vocabulary file.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(t, _)| *t)
    }

    /// The name in vocabulary files.
    pub fn as_str(self) -> &'static str {
        Self::ALL.iter().find(|(t, _)| *t == self).map_or("value", |(_, n)| n)
    }
}

/// How many objects a subject may have per key and version (D25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cardinality {
    /// One object per subject, condition and version: differing objects conflict.
    Functional,
    /// Several objects may hold at once; only a polarity flip on the same object conflicts.
    MultiValued,
}

impl Cardinality {
    /// `"functional"` or `"multi_valued"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Functional => "functional",
            Self::MultiValued => "multi_valued",
        }
    }

    /// D25's default for a predicate id: `requires` and `contains` are multi-valued, every
    /// other predicate (including ones a vocabulary file adds) is functional.
    pub fn default_for(predicate: &str) -> Self {
        if matches!(predicate, "requires" | "contains") { Self::MultiValued } else { Self::Functional }
    }
}

/// One vocabulary predicate.
#[derive(Debug, Clone)]
pub struct PredicateEntry {
    /// Predicate id, snake_case.
    pub id: String,
    /// Types of (subject, object).
    pub arg_types: [ArgType; 2],
    /// Optional group (`temporal`, `relational`, `properties`, …).
    pub group: Option<String>,
    /// Functional or multi-valued (D25).
    pub cardinality: Cardinality,
    patterns: Vec<LazyRegex>,
    question_patterns: Vec<LazyRegex>,
}

impl PredicateEntry {
    /// Sentence patterns, compiled case-insensitively, in file order.
    pub fn patterns(&self) -> &[LazyRegex] {
        &self.patterns
    }

    /// Question patterns, compiled case-insensitively, in file order.
    pub fn question_patterns(&self) -> &[LazyRegex] {
        &self.question_patterns
    }

    /// The type objects of this predicate must have.
    pub fn object_type(&self) -> ArgType {
        self.arg_types[1]
    }
}

/// An ordered predicate vocabulary. Cheap to clone (compiled regexes are shared).
#[derive(Debug, Clone)]
pub struct Vocabulary {
    entries: Vec<PredicateEntry>,
    index: HashMap<String, usize>,
    /// All sentence patterns in vocabulary order, for one-pass prefiltering: compiled when
    /// first used (the built-in vocabulary's; another's when built, to report its errors),
    /// once for every clone.
    sentence_set: Arc<OnceLock<RegexSet>>,
    /// For each pattern of `sentence_set`: (entry index, pattern index).
    sentence_owner: Vec<(usize, usize)>,
}

/// A vocabulary file that could not be read: where (a JSON pointer such as
/// `/expires_after/patterns/0`, or `line L column C` for syntax errors) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct VocabError {
    /// JSON pointer or line/column.
    pub location: String,
    /// One line saying what was expected.
    pub message: String,
}

fn verr(location: impl Into<String>, message: impl Into<String>) -> VocabError {
    let (location, message) = (location.into(), message.into());
    VocabError { location: one_line(&location).into_owned(), message: one_line(&message).into_owned() }
}

/// Format of a vocabulary file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VocabFormat {
    /// A JSON object.
    Json,
    /// A TOML document with one table per predicate.
    Toml,
}

impl VocabFormat {
    /// Picks the format from a file name (`.toml` / `.json`), else from the content (a JSON
    /// object starts with `{`).
    pub fn detect(file_name: &str, text: &str) -> Self {
        let lower = file_name.to_ascii_lowercase();
        if lower.ends_with(".toml") {
            Self::Toml
        } else if lower.ends_with(".json") || text.trim_start().starts_with('{') {
            Self::Json
        } else {
            Self::Toml
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EntryFile {
    arg_types: Vec<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    cardinality: Option<String>,
    #[serde(default)]
    patterns: Vec<String>,
    #[serde(default)]
    question_patterns: Vec<String>,
}

/// Top-level entries in document order (serde maps would sort them, and order matters).
struct OrderedEntries(Vec<(String, EntryFile)>);

impl<'de> Deserialize<'de> for OrderedEntries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedEntries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping predicate ids to entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedEntries, A::Error> {
                let mut out: Vec<(String, EntryFile)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format!("duplicate predicate \"{key}\"")));
                    }
                    let entry = map.next_value::<EntryFile>()?;
                    out.push((key, entry));
                }
                Ok(OrderedEntries(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The entry every `attr.<name>` predicate of the attribute layer shares.
static ATTRIBUTE_ENTRY: LazyLock<PredicateEntry> = LazyLock::new(|| PredicateEntry {
    id: "attr".into(),
    arg_types: [ArgType::Entity, ArgType::Value],
    group: Some("attributes".into()),
    cardinality: Cardinality::Functional,
    patterns: Vec::new(),
    question_patterns: Vec::new(),
});

static BUILTIN: LazyLock<Vocabulary> = LazyLock::new(|| {
    // The embedded file is checked by a test (`the_builtin_vocabulary_passes_the_checks_of_a_file`):
    // its patterns are compiled on first use, as most checks use few of them.
    Vocabulary::from_toml(DEFAULT_VOCABULARY_TOML, Checks::Trusted)
        .unwrap_or_else(|e| panic!("embedded default vocabulary is invalid: {e}"))
});

impl Default for Vocabulary {
    fn default() -> Self {
        Self::builtin()
    }
}

impl Vocabulary {
    /// DS005's nine predicates with the §4.3 patterns (compiled once per process).
    pub fn builtin() -> Self {
        BUILTIN.clone()
    }

    /// Reads a vocabulary file on its own (without the defaults); see [`Vocabulary::extended`].
    pub fn from_str_with_format(text: &str, format: VocabFormat) -> Result<Self, VocabError> {
        match format {
            VocabFormat::Json => Self::from_json_str(text),
            VocabFormat::Toml => Self::from_toml_str(text),
        }
    }

    /// Reads a JSON vocabulary file on its own.
    pub fn from_json_str(text: &str) -> Result<Self, VocabError> {
        let parsed: OrderedEntries = serde_json::from_str(text)
            .map_err(|e| verr(format!("line {} column {}", e.line(), e.column()), strip_position(&e.to_string())))?;
        Self::from_entries(parsed.0, Checks::Full)
    }

    /// Reads a TOML vocabulary file on its own.
    pub fn from_toml_str(text: &str) -> Result<Self, VocabError> {
        Self::from_toml(text, Checks::Full)
    }

    fn from_toml(text: &str, checks: Checks) -> Result<Self, VocabError> {
        let parsed: OrderedEntries = toml::from_str(text).map_err(|e| {
            let location = e.span().map_or_else(|| "/".to_string(), |s| line_col(text, s.start));
            verr(location, e.message().trim().replace('\n', " "))
        })?;
        Self::from_entries(parsed.0, checks)
    }

    fn from_entries(entries: Vec<(String, EntryFile)>, checks: Checks) -> Result<Self, VocabError> {
        let mut out = Vec::with_capacity(entries.len());
        for (id, e) in entries {
            out.push(compile_entry(&id, e, checks)?);
        }
        if checks == Checks::Trusted { Self::unchecked(out) } else { Self::new(out) }
    }

    /// Builds a vocabulary from compiled entries (ids must be unique; the patterns must
    /// compile together).
    pub fn new(entries: Vec<PredicateEntry>) -> Result<Self, VocabError> {
        let vocabulary = Self::unchecked(entries)?;
        vocabulary.compile_sentence_set()?;
        Ok(vocabulary)
    }

    /// The set of all sentence patterns, compiled now if it was not.
    fn compile_sentence_set(&self) -> Result<&RegexSet, VocabError> {
        if let Some(set) = self.sentence_set.get() {
            return Ok(set);
        }
        let sources = self.sentence_owner.iter().map(|&(i, j)| self.entries[i].patterns[j].as_str());
        let set = RegexSetBuilder::new(sources)
            .case_insensitive(true)
            .size_limit(REGEX_SIZE_LIMIT * self.sentence_owner.len().max(1))
            .build()
            .map_err(|e| verr("/", format!("patterns do not compile together: {}", regex_message(&e))))?;
        Ok(self.sentence_set.get_or_init(|| set))
    }

    /// A vocabulary whose sentence set is compiled on first use.
    fn unchecked(entries: Vec<PredicateEntry>) -> Result<Self, VocabError> {
        let mut index = HashMap::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            if index.insert(e.id.clone(), i).is_some() {
                return Err(verr(format!("/{}", pointer_token(&e.id)), "duplicate predicate id"));
            }
        }
        let sentence_owner = entries.iter().enumerate().flat_map(|(i, e)| (0..e.patterns.len()).map(move |j| (i, j))).collect();
        Ok(Self { entries, index, sentence_set: Arc::new(OnceLock::new()), sentence_owner })
    }

    /// These entries followed by `file`'s: an entry with an existing id replaces it in place,
    /// new ones are appended in file order (§4.2: a vocabulary file adds to the defaults).
    pub fn extended(&self, file: &Vocabulary) -> Result<Self, VocabError> {
        let mut entries = self.entries.clone();
        for e in &file.entries {
            match self.index.get(&e.id) {
                Some(&i) => entries[i] = e.clone(),
                None => entries.push(e.clone()),
            }
        }
        Self::new(entries)
    }

    /// Predicates in vocabulary order.
    pub fn entries(&self) -> &[PredicateEntry] {
        &self.entries
    }

    /// The entry of a predicate id.
    /// An entry of the vocabulary; for an `attr.<name>` id it does not define, the attribute
    /// layer's shared entry (entity subject, free value, functional).
    pub fn get(&self, id: &str) -> Option<&PredicateEntry> {
        match self.index.get(id) {
            Some(&i) => Some(&self.entries[i]),
            None => crate::attribute::attribute_name(id).map(|_| &*ATTRIBUTE_ENTRY),
        }
    }

    /// True when the predicate is in the vocabulary (every `attr.<name>` id is).
    pub fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// A predicate's cardinality: its entry's, or D25's default for ids outside the vocabulary.
    pub fn cardinality(&self, id: &str) -> Cardinality {
        self.get(id).map_or_else(|| Cardinality::default_for(id), |e| e.cardinality)
    }

    /// Every predicate whose `questionPatterns` match the question, in vocabulary order (§8.3).
    pub fn question_predicates(&self, question: &str) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| e.question_patterns.iter().any(|r| r.get().is_match(question)))
            .map(|e| e.id.as_str())
            .collect()
    }

    /// The first sentence pattern (in vocabulary order) matching `text`: its position in that
    /// order, its entry and the regex.
    pub(crate) fn first_matching_pattern(&self, text: &str) -> Option<(usize, &PredicateEntry, &Regex)> {
        // Only a vocabulary whose set compiled (the built-in one: a test compiles it) defers it.
        let set = self.compile_sentence_set().unwrap_or_else(|e| panic!("vocabulary sentence set: {e}"));
        let k = set.matches(text).into_iter().next()?;
        let (i, j) = self.sentence_owner[k];
        Some((k, &self.entries[i], self.entries[i].patterns[j].get()))
    }

    /// A short hash of everything that decides what the extractor produces (ids, argTypes,
    /// sentence patterns, in order). A store re-extracts documents when it changes.
    pub fn fingerprint(&self) -> String {
        let mut h = Sha256::new();
        for e in &self.entries {
            h.update(e.id.as_bytes());
            for t in e.arg_types {
                h.update([0]);
                h.update(t.as_str().as_bytes());
            }
            for p in &e.patterns {
                h.update([1]);
                h.update(p.as_str().as_bytes());
            }
            h.update([2]);
        }
        h.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// How much of an entry is checked as it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Checks {
    /// A user's file: every pattern compiled now, so its errors come with their location.
    Full,
    /// The embedded defaults (checked by a test): patterns compiled on first use.
    Trusted,
}

fn compile_entry(id: &str, e: EntryFile, checks: Checks) -> Result<PredicateEntry, VocabError> {
    let at = |rest: &str| format!("/{}{rest}", pointer_token(id));
    let snake = id.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !snake {
        return Err(verr(at(""), "predicate ids are snake_case: [a-z][a-z0-9_]*"));
    }
    if e.arg_types.len() != 2 {
        return Err(verr(at("/argTypes"), "expected two argument types [subject, object]"));
    }
    let known = || ArgType::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ");
    let mut arg_types = [ArgType::Entity; 2];
    for (i, name) in e.arg_types.iter().enumerate() {
        arg_types[i] = ArgType::parse(name).ok_or_else(|| {
            verr(at(&format!("/argTypes/{i}")), format!("unknown argument type \"{name}\" (expected one of {})", known()))
        })?;
    }
    let cardinality = match e.cardinality.as_deref() {
        None => Cardinality::default_for(id),
        Some("functional") => Cardinality::Functional,
        Some("multi_valued") => Cardinality::MultiValued,
        Some(other) => {
            return Err(verr(
                at("/cardinality"),
                format!("unknown cardinality \"{other}\" (expected functional or multi_valued)"),
            ));
        }
    };
    if checks == Checks::Trusted {
        let lazy = |ps: Vec<String>| ps.into_iter().map(|p| LazyRegex::new(p, compile_trusted)).collect();
        let (patterns, question_patterns) = (lazy(e.patterns), lazy(e.question_patterns));
        return Ok(PredicateEntry { id: id.to_string(), arg_types, group: e.group, cardinality, patterns, question_patterns });
    }
    let mut patterns = Vec::with_capacity(e.patterns.len());
    for (i, p) in e.patterns.iter().enumerate() {
        let r = compile(p).map_err(|m| verr(at(&format!("/patterns/{i}")), m))?;
        let names: Vec<&str> = r.capture_names().flatten().collect();
        for required in ["subject", "object"] {
            if !names.contains(&required) {
                return Err(verr(
                    at(&format!("/patterns/{i}")),
                    format!("a sentence pattern needs a named group (?P<{required}>…)"),
                ));
            }
        }
        patterns.push(LazyRegex::ready(r, compile_trusted));
    }
    let mut question_patterns = Vec::with_capacity(e.question_patterns.len());
    for (i, p) in e.question_patterns.iter().enumerate() {
        let r = compile(p).map_err(|m| verr(at(&format!("/questionPatterns/{i}")), m))?;
        question_patterns.push(LazyRegex::ready(r, compile_trusted));
    }
    Ok(PredicateEntry { id: id.to_string(), arg_types, group: e.group, cardinality, patterns, question_patterns })
}

fn compile(pattern: &str) -> Result<Regex, String> {
    RegexBuilder::new(pattern).case_insensitive(true).size_limit(REGEX_SIZE_LIMIT).build().map_err(|e| regex_message(&e))
}

/// [`compile`] for a pattern known to compile (the embedded defaults, or one compiled before).
fn compile_trusted(pattern: &str) -> Regex {
    compile(pattern).unwrap_or_else(|e| panic!("vocabulary pattern {pattern}: {e}"))
}

/// A regex error on one line (the crate's syntax errors span several, with a caret diagram).
fn regex_message(e: &regex::Error) -> String {
    match e {
        regex::Error::Syntax(s) => {
            let last = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("syntax error");
            format!("invalid regex: {}", last.trim().trim_start_matches("error: "))
        }
        regex::Error::CompiledTooBig(limit) => format!("regex too large (compiled size over {limit} bytes)"),
        other => format!("invalid regex: {}", other.to_string().replace('\n', " ")),
    }
}

/// serde_json messages end in " at line L column C"; the location is reported separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(p) => msg[..p].to_string(),
        None => msg.to_string(),
    }
}

/// `line L column C` (1-based, columns in chars) of a byte offset.
pub(crate) fn line_col(text: &str, byte: usize) -> String {
    let byte = byte.min(text.len());
    let before = text.get(..byte).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line} column {col}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_vocabulary_passes_the_checks_of_a_file() {
        // The builtin skips them (its patterns compile on first use); a file gets them all.
        let checked = Vocabulary::from_toml_str(DEFAULT_VOCABULARY_TOML).unwrap();
        let builtin = Vocabulary::builtin();
        assert_eq!(checked.fingerprint(), builtin.fingerprint());
        for (a, b) in checked.entries().iter().zip(builtin.entries()) {
            let sources = |ps: &[LazyRegex]| ps.iter().map(|p| p.as_str().to_string()).collect::<Vec<_>>();
            assert_eq!(sources(a.patterns()), sources(b.patterns()));
            assert_eq!(sources(a.question_patterns()), sources(b.question_patterns()));
        }
        // A file's sentence set is compiled when it is read; the builtin's when first used,
        // once for every clone.
        assert!(checked.sentence_set.get().is_some());
        let copy = builtin.clone();
        assert!(builtin.compile_sentence_set().is_ok());
        assert!(copy.sentence_set.get().is_some());
    }

    #[test]
    fn builtin_vocabulary_loads_in_spec_order() {
        let v = Vocabulary::builtin();
        let ids: Vec<&str> = v.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "expires_after",
                "valid_for",
                "created_at",
                "requires",
                "contains",
                "part_of",
                "has_value",
                "has_status",
                "has_type"
            ]
        );
        assert_eq!(v.get("created_at").unwrap().arg_types, [ArgType::Entity, ArgType::Timestamp]);
        assert_eq!(v.cardinality("requires"), Cardinality::MultiValued);
        assert_eq!(v.cardinality("contains"), Cardinality::MultiValued);
        assert_eq!(v.cardinality("part_of"), Cardinality::Functional);
        assert_eq!(v.cardinality("session_expired"), Cardinality::Functional);
        assert!(v.entries().iter().all(|e| e.patterns().len() == 1 && !e.question_patterns().is_empty()));
        assert_eq!(v.get("has_value").unwrap().group.as_deref(), Some("properties"));
    }

    #[test]
    fn question_patterns_select_predicates() {
        let v = Vocabulary::builtin();
        assert_eq!(v.question_predicates("How long before session tokens expire from inactivity in v2.0?"), ["expires_after"]);
        assert!(v.question_predicates("What encryption algorithm is used for tokens?").is_empty());
        assert_eq!(v.question_predicates("What does the gateway require?"), ["requires"]);
    }

    #[test]
    fn files_add_replace_and_keep_order() {
        let file = Vocabulary::from_json_str(
            r#"{"expires_after": {"argTypes": ["entity", "duration"]},
                "grants": {"argTypes": ["entity", "entity"], "cardinality": "multi_valued",
                           "patterns": ["^(?P<subject>\\w+) grants (?P<object>\\w+)$"]},
                "allows": {"argTypes": ["entity", "entity"]}}"#,
        )
        .unwrap();
        let v = Vocabulary::builtin().extended(&file).unwrap();
        let ids: Vec<&str> = v.entries().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids[0], "expires_after");
        assert_eq!(&ids[9..], ["grants", "allows"]);
        assert!(v.get("expires_after").unwrap().patterns().is_empty(), "replaced by the file's entry");
        assert_eq!(v.cardinality("grants"), Cardinality::MultiValued);
        assert_eq!(v.cardinality("allows"), Cardinality::Functional);
        assert_ne!(v.fingerprint(), Vocabulary::builtin().fingerprint());
    }

    #[test]
    fn toml_and_json_read_the_same() {
        let toml = "[grants]\nargTypes = ['entity', 'entity']\npatterns = ['^(?P<subject>\\w+) grants (?P<object>\\w+)$']\n\n[allows]\nargTypes = ['entity', 'value']\n";
        let json = r#"{"grants": {"argTypes": ["entity", "entity"], "patterns": ["^(?P<subject>\\w+) grants (?P<object>\\w+)$"]},
                       "allows": {"argTypes": ["entity", "value"]}}"#;
        let (a, b) = (Vocabulary::from_toml_str(toml).unwrap(), Vocabulary::from_json_str(json).unwrap());
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.entries()[1].id, "allows");
        assert_eq!(VocabFormat::detect("v.toml", "{"), VocabFormat::Toml);
        assert_eq!(VocabFormat::detect("vocab", " {\"a\": 1}"), VocabFormat::Json);
    }

    #[test]
    fn errors_name_the_place() {
        let cases = [
            (r#"{"Bad-Id": {"argTypes": ["entity", "entity"]}}"#, "/Bad-Id: predicate ids are snake_case"),
            (r#"{"p": {"argTypes": ["entity"]}}"#, "/p/argTypes: expected two"),
            (r#"{"p": {"argTypes": ["entity", "colour"]}}"#, "/p/argTypes/1: unknown argument type \"colour\""),
            (r#"{"p": {"argTypes": ["entity", "value"], "cardinality": "many"}}"#, "/p/cardinality: unknown cardinality"),
            (
                r#"{"p": {"argTypes": ["entity", "value"], "patterns": ["(unclosed"]}}"#,
                "/p/patterns/0: invalid regex: unclosed group",
            ),
            (
                r#"{"p": {"argTypes": ["entity", "value"], "patterns": ["(?P<subject>a) b"]}}"#,
                "/p/patterns/0: a sentence pattern needs a named group (?P<object>",
            ),
            (r#"{"p": {"argTypes": ["entity", "value"], "questionPatterns": ["["]}}"#, "/p/questionPatterns/0: invalid regex"),
            ("{\"p\": {\"argTypes\": [\"entity\", \"value\"],\n \"colour\": 1}}", "line 2 column 9: unknown field `colour`"),
            (r#"{"p": {"argTypes": ["entity", "value"]}, "p": {"argTypes": ["entity", "value"]}}"#, "duplicate predicate \"p\""),
            ("[1, 2]", "line 1 column 0: invalid type: sequence"),
            ("{\"p\": ", "line 1 column 6: EOF while parsing"),
        ];
        for (text, needle) in cases {
            let e = Vocabulary::from_json_str(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{e:?} does not contain {needle:?}");
            assert!(!e.contains('\n'), "one line: {e:?}");
        }
        let e = Vocabulary::from_toml_str("[p]\nargTypes = [\"entity\", \"value\"]\nbogus = 1\n").unwrap_err().to_string();
        assert!(e.starts_with("line 3 column 1: unknown field `bogus`"), "{e}");
        let e = Vocabulary::from_toml_str("[p\n").unwrap_err().to_string();
        assert!(e.starts_with("line 1 column"), "{e}");
        assert!(!e.contains('\n'));
    }
}
