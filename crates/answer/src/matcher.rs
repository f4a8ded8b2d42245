//! Questions without templates (issue 21): a question is matched to the stored fact whose
//! subject, attribute and condition account for every content word it asks with.
//!
//! 1. The question's opener sets what kind of value answers it ("how long" → a duration,
//!    "how many/much" → an amount, "who" → a name, "is/are/does …" → yes/no); "why" questions
//!    and questions without a known opener are refused.
//! 2. Its remaining words, without function words, are keyed through the same stemmer and
//!    synonym lexicon as `check` (plus a few equivalences of limits and lengths: "limit" =
//!    "maximum", "at least" = "minimum", "length" = "long").
//! 3. Candidates are the facts of the chunks BM25 finds for those words (the plan's version
//!    only, when it names one). A fact explains a question word when the word is one of its
//!    subject, attribute or condition words, a word of its value ("days" in "27 days"), a word
//!    of its document's title ("employees" in "Employee Handbook"), or the dimension its value's
//!    unit measures ("size" for "256 KB").
//! 4. A fact that leaves any question word unexplained is not an answer: the question asks
//!    about something the fact does not state ("download size", "Premium plan"). Among the
//!    facts that explain every word, the one whose own words the question covers best wins
//!    (ties: source order). Its (subject, predicate, condition) becomes the plan's goal, so
//!    the engine reads every version of that fact and reports a conflict between them.
//!
//! Nothing matched: the refusal names the nearest facts and the words they leave unexplained.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use regex::Regex;
use serde_json::Value;
use warrant_facts::{ArgType, Fact, Vocabulary, attribute_name, parse_duration_minutes};
use warrant_store::{FactQuery, Store, StoreError};
use warrant_verify::lexicon;

use crate::engine::versions_equal;
use crate::plan::Goal;

/// What kind of value answers a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// "how long", "how often", "how quickly", "when".
    Duration,
    /// "how many", "how much".
    Amount,
    /// "who", "which team".
    Name,
    /// "is/are/does/can … ?".
    YesNo,
    /// "what …".
    Any,
}

/// A question matched to a stored fact: the goal to answer.
#[derive(Debug, Clone)]
pub(crate) struct Matched {
    pub goal: Goal,
}

/// Why nothing matched, with the nearest facts.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub reason: String,
}

/// Facts read per question at most (from the chunks BM25 ranks first).
const CHUNKS: usize = 12;
const FACTS_PER_CHUNK: usize = 64;

/// The question matcher: its opener pattern, compiled once.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    opener: Regex,
}

impl Matcher {
    pub(crate) fn new() -> Self {
        let opener = Regex::new(
            r"(?i)^\s*(?:(?P<why>why)\b|(?:after\s+)?how\s+(?P<dur>long|often|quickly|soon)\b|(?:after\s+)?how\s+(?P<amount>many|much)\b|(?P<when>when)\b|(?P<who>who|whom|which\s+(?:team|group|department|person|tool))\b|(?P<yes>is|are|does|do|can|must|may|will)\b|(?P<what>what|which)\b)",
        )
        .unwrap_or_else(|e| panic!("matcher opener: {e}"));
        Self { opener }
    }

    /// Matches a question body (version phrase and final `?` removed) against the store.
    pub(crate) fn match_question(
        &self,
        body: &str,
        version: Option<&str>,
        store: &dyn Store,
        vocab: &Vocabulary,
    ) -> Result<Result<Matched, Refusal>, StoreError> {
        let refuse = |reason: String| Ok(Err(Refusal { reason }));
        let Some(c) = self.opener.captures(body) else {
            return refuse("the question does not open as a question the matcher reads (how/what/who/when/is …)".into());
        };
        if c.name("why").is_some() {
            return refuse("a why-question asks for a reason, which no stored fact states".into());
        }
        let expect = if c.name("dur").is_some() || c.name("when").is_some() {
            Expect::Duration
        } else if c.name("amount").is_some() {
            Expect::Amount
        } else if c.name("who").is_some() {
            Expect::Name
        } else if c.name("yes").is_some() {
            Expect::YesNo
        } else {
            Expect::Any
        };
        let rest = &body[c.get(0).map_or(0, |m| m.end())..];
        let asked: Vec<String> = content_keys(rest);
        if asked.is_empty() {
            return refuse("the question names nothing to look up".into());
        }
        // Candidates: the facts of the chunks the question's words find.
        let hits = store.search(&asked_words(rest).join(" "), CHUNKS)?;
        let queries: Vec<FactQuery> = hits
            .iter()
            .map(|h| FactQuery { chunk_id: Some(h.chunk_id.clone()), limit: Some(FACTS_PER_CHUNK), ..FactQuery::default() })
            .collect();
        let mut titles: HashMap<String, Vec<String>> = HashMap::new();
        let mut best: Option<(f64, usize, Fact)> = None;
        let mut nearest: Vec<(usize, f64, String)> = Vec::new();
        let mut order = 0;
        for facts in store.facts_each(&queries)? {
            for f in facts {
                order += 1;
                if let Some(v) = version
                    && !f.version().is_some_and(|fv| versions_equal(&fv, v))
                {
                    continue;
                }
                if !titles.contains_key(&f.source.doc_id) {
                    let title = store.document(&f.source.doc_id)?.and_then(|d| d.title).unwrap_or_default();
                    titles.insert(f.source.doc_id.clone(), keys_of(&title));
                }
                let title = titles.get(&f.source.doc_id).map_or(&[][..], Vec::as_slice);
                let words = FactWords::of(&f);
                let missing: Vec<&String> = asked.iter().filter(|q| !words.explains(q, title)).collect();
                let own = words.own();
                let covered = own.iter().filter(|w| asked.contains(w)).count();
                let score = covered as f64 / own.len().max(1) as f64;
                if !missing.is_empty() {
                    let missing: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                    nearest.push((
                        missing.len(),
                        -score,
                        format!("{}({}) leaves {}", f.predicate, f.subject, missing.join(", ")),
                    ));
                    continue;
                }
                if !words.subject.iter().any(|w| asked.contains(w)) || !fits(expect, &f, vocab) {
                    continue;
                }
                if expect == Expect::YesNo && !(f.predicate == "has_status" && words.value.iter().any(|w| asked.contains(w))) {
                    continue;
                }
                if best.as_ref().is_none_or(|(s, o, _)| score > *s || (score == *s && order < *o)) {
                    best = Some((score, order, f));
                }
            }
        }
        let Some((_, _, f)) = best else {
            nearest.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
            nearest.dedup_by(|a, b| a.2 == b.2);
            let names: Vec<&str> = nearest.iter().take(3).map(|n| n.2.as_str()).collect();
            let reason = if names.is_empty() {
                "no stored fact is about the question's words".to_string()
            } else {
                format!("no stored fact explains every word of the question; nearest: {}", names.join("; "))
            };
            return refuse(reason);
        };
        let object = if expect == Expect::YesNo { f.object.to_json() } else { Value::String("?answer".into()) };
        let mut goal = Goal::new(Value::String(f.subject.clone()), &f.predicate, object);
        if let Some(c) = f.qualifiers.get("condition") {
            goal.qualifiers.insert("condition".into(), c.clone());
        }
        Ok(Ok(Matched { goal }))
    }
}

/// Whether a fact's value is the kind the question asks for.
fn fits(expect: Expect, f: &Fact, vocab: &Vocabulary) -> bool {
    let text = f.object.to_string();
    let starts_numeric = text.trim_start_matches(['$', '€', '£']).starts_with(|c: char| c.is_ascii_digit());
    match expect {
        Expect::Duration => {
            parse_duration_minutes(&text).is_ok()
                || vocab.get(&f.predicate).is_some_and(|e| matches!(e.object_type(), ArgType::Duration | ArgType::Timestamp))
                || (starts_numeric && units_of(&text).iter().any(|u| TIME_UNITS.contains(&u.as_str())))
                || text.len() == 10 && text.as_bytes().get(4) == Some(&b'-')
        }
        Expect::Amount => starts_numeric,
        Expect::Name => !starts_numeric,
        Expect::YesNo | Expect::Any => true,
    }
}

/// Time units, singular (see [`units_of`]).
const TIME_UNITS: &[&str] = &["second", "minute", "hour", "day", "week", "month", "year"];

/// The words of a value as units: lower-case, a plural `s` dropped ("Days" → "day").
fn units_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let w = w.to_lowercase();
            match w.strip_suffix('s') {
                Some(stem) if stem.len() > 1 => stem.to_string(),
                _ => w,
            }
        })
        .collect()
}

/// The words of a fact, keyed.
struct FactWords {
    subject: Vec<String>,
    attribute: Vec<String>,
    condition: Vec<String>,
    value: Vec<String>,
    /// The value's words as units ("day", "kb").
    units: Vec<String>,
}

impl FactWords {
    fn of(f: &Fact) -> Self {
        let attribute = match attribute_name(&f.predicate) {
            Some(a) => keys_of(&a.replace('_', " ")),
            None => keys_of(match f.predicate.as_str() {
                "expires_after" => "expire after",
                "valid_for" => "valid for",
                "created_at" => "created",
                "requires" => "require",
                "contains" => "contain include",
                "part_of" => "part",
                "has_value" => "value",
                "has_status" => "status",
                "has_type" => "type kind",
                other => other,
            }),
        };
        let condition = f.qualifiers.get("condition").and_then(Value::as_str).map(keys_of).unwrap_or_default();
        let object = f.object.to_string();
        Self {
            subject: keys_of(&f.subject.replace('_', " ")),
            attribute,
            condition,
            value: keys_of(&object),
            units: units_of(&object),
        }
    }

    /// The fact's own words: subject, attribute and condition.
    fn own(&self) -> BTreeSet<&String> {
        self.subject.iter().chain(&self.attribute).chain(&self.condition).collect()
    }

    /// Whether a question word is accounted for by this fact (or its document's title).
    fn explains(&self, q: &str, title: &[String]) -> bool {
        let has = |v: &[String]| v.iter().any(|w| w == q);
        has(&self.subject) || has(&self.attribute) || has(&self.condition) || has(&self.value) || has(title) || {
            // A dimension named by the value's unit: "size" of "256 KB", "long" of "14 days".
            const TIME: &[&str] = TIME_UNITS;
            const MONEY: &[&str] = &["eur", "usd", "gbp", "chf"];
            let dims: [(&str, &[&str]); 7] = [
                ("size", &["kb", "mb", "gb", "tb", "byte"]),
                ("long", &["second", "minute", "hour", "day", "week", "month", "year", "character"]),
                ("time", TIME),
                ("period", TIME),
                ("price", MONEY),
                ("cost", MONEY),
                ("amount", MONEY),
            ];
            dims.iter().any(|(d, units)| key(d) == q && self.units.iter().any(|u| units.contains(&u.as_str())))
        }
    }
}

/// Question words (lower-case, function words dropped), unkeyed: the BM25 query.
fn asked_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !lexicon::is_stopword(w) && !FILLER.contains(&w.as_str()))
        .collect()
}

/// Words a question uses to ask, not to name: they need no fact to explain them.
const FILLER: &[&str] = &["get", "according", "there", "currently", "exactly", "much", "many", "long"];

/// The distinct keys of a question's content words, in order.
fn content_keys(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in asked_words(text) {
        let k = key(&w);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// Keys of every word of a text (function words kept out).
fn keys_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !lexicon::is_stopword(w))
        .map(|w| key(&w))
        .collect()
}

/// The matching key of a lower-case word: a few equivalences of limits and lengths, then the
/// lexicon's stem and synonym group.
fn key(lower: &str) -> String {
    static EQUIVALENT: std::sync::LazyLock<BTreeMap<&'static str, &'static str>> = std::sync::LazyLock::new(|| {
        [
            ("maximum", "max"),
            ("limit", "max"),
            ("limits", "max"),
            ("exceed", "max"),
            ("minimum", "min"),
            ("least", "min"),
            ("length", "long"),
            ("owner", "own"),
            ("owned", "own"),
            ("owns", "own"),
            ("price", "cost"),
            ("costs", "cost"),
        ]
        .into_iter()
        .collect()
    });
    match EQUIVALENT.get(lower) {
        Some(k) => (*k).to_string(),
        None => lexicon::key(lower),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_fold_limits_and_inflections() {
        assert_eq!(key("limit"), key("maximum"));
        assert_eq!(key("owns"), key("owner"));
        assert_eq!(key("expires"), key("expire"));
        assert_eq!(
            content_keys("are deleted files kept in the trash"),
            vec![key("deleted"), key("files"), key("kept"), key("trash")]
        );
    }
}
