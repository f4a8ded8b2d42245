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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
    /// The fact that names what the goal is about, when the question needed two.
    pub bridge: Option<Fact>,
}

/// Why nothing matched, with the nearest facts.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub reason: String,
}

/// A version a question names by what it did: the question without that phrase, and the
/// version with the first fact that states the clause (`None`: no single version does).
#[derive(Debug, Clone)]
pub(crate) struct Relative {
    pub body: String,
    pub version: Option<(String, Fact)>,
}

/// Facts read per question at most (from the chunks BM25 ranks first).
const CHUNKS: usize = 12;
const FACTS_PER_CHUNK: usize = 64;

/// The question matcher: its opener pattern, compiled once.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    opener: Regex,
    relative: Regex,
}

impl Matcher {
    pub(crate) fn new() -> Self {
        let opener = Regex::new(
            r"(?i)^\s*(?:(?P<why>why)\b|(?:after\s+)?how\s+(?P<dur>long|often|quickly|soon)\b|(?:after\s+)?how\s+(?P<amount>many|much)\b|(?P<when>when)\b|(?P<who>who|whom|which\s+(?:team|group|department|person|tool))\b|how\s+(?P<how>must|should|is|are|do|does)\b|(?P<yes>is|are|does|do|can|must|may|will)\b|(?P<what>what|which)\b)",
        )
        .unwrap_or_else(|e| panic!("matcher opener: {e}"));
        let relative = Regex::new(
            r"(?i)\s*\b(?:in|for|of|from)\s+the\s+(?:[a-z][\w-]*\s+){0,2}(?:release|version|edition)\s+(?:that|which)\s+(?P<clause>[^?]+?)\s*(?:\?|$)",
        )
        .unwrap_or_else(|e| panic!("matcher relative version: {e}"));
        Self { opener, relative }
    }

    /// A version named by what it did ("in the Lumen release that enabled OAuth device
    /// flow"): the question without that phrase, and the version whose documents state the
    /// clause with the first fact stating it (`None` when no single version does). `None` when
    /// the question names none.
    pub(crate) fn relative_version(&self, question: &str, store: &dyn Store) -> Result<Option<Relative>, StoreError> {
        let Some(c) = self.relative.captures(question) else { return Ok(None) };
        let (Some(all), Some(clause)) = (c.get(0), c.name("clause")) else { return Ok(None) };
        let body = format!("{}{}?", &question[..all.start()], &question[all.end()..]);
        let keys = content_keys(clause.as_str());
        if keys.is_empty() {
            return Ok(Some(Relative { body, version: None }));
        }
        let mut pool = Pool::new(store, None);
        pool.add_search(&asked_words(clause.as_str()).join(" "))?;
        // The clause's verb ("introduced") may be no fact's word: then the rest must be.
        for wanted in [&keys[..], &keys[1..]] {
            if wanted.is_empty() {
                break;
            }
            let mut versions: Vec<(String, Fact)> = Vec::new();
            for c in &pool.facts {
                let Some(v) = c.fact.version() else { continue };
                if wanted.iter().all(|q| c.words.explains(q, pool.title(&c.fact)))
                    && !versions.iter().any(|(x, _)| versions_equal(x, &v))
                {
                    versions.push((v, c.fact.clone()));
                }
            }
            match versions.len() {
                0 => continue,
                1 => return Ok(Some(Relative { body, version: versions.pop() })),
                _ => return Ok(Some(Relative { body, version: None })),
            }
        }
        Ok(Some(Relative { body, version: None }))
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
        let mut pool = Pool::new(store, version);
        pool.add_search(&asked_words(rest).join(" "))?;
        let single = |pool: &Pool<'_>, asked: &[String], skip: Option<usize>| -> (Option<usize>, Vec<(usize, f64, usize)>) {
            let mut best: Option<(f64, usize)> = None;
            let mut nearest = Vec::new();
            for (i, c) in pool.facts.iter().enumerate() {
                if Some(i) == skip {
                    continue;
                }
                let title = pool.title(&c.fact);
                let missing = asked.iter().filter(|q| !c.words.explains(q, title)).count();
                let own = c.words.own();
                let score = own.iter().filter(|w| asked.contains(w)).count() as f64 / own.len().max(1) as f64;
                if missing > 0 {
                    nearest.push((missing, -score, i));
                    continue;
                }
                if !c.words.subject.iter().any(|w| asked.contains(w)) || !fits(expect, &c.fact, vocab) {
                    continue;
                }
                if expect == Expect::YesNo
                    && !(c.fact.predicate == "has_status" && c.words.value.iter().any(|w| asked.contains(w)))
                {
                    continue;
                }
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, i));
                }
            }
            (best.map(|(_, i)| i), nearest)
        };
        let (found, mut nearest) = single(&pool, &asked, None);
        if let Some(i) = found {
            return Ok(Ok(Matched { goal: goal_of(&pool.facts[i].fact, expect), bridge: None }));
        }
        // Two facts: one names the thing the other is about ("the paging tool" is Beacon;
        // Beacon is owned by SRE). The first's words leave the question and its link enters.
        if expect != Expect::YesNo {
            let firsts: Vec<usize> = (0..pool.facts.len()).filter(|&i| pool.facts[i].links()).collect();
            for i in firsts {
                let (subject, value, own) = {
                    let c = &pool.facts[i];
                    (c.words.subject.clone(), c.words.value.clone(), c.words.own().into_iter().cloned().collect::<Vec<_>>())
                };
                let title: Vec<String> = pool.title(&pool.facts[i].fact).to_vec();
                let all_in = |words: &[String]| !words.is_empty() && words.iter().all(|w| asked.contains(w));
                let (gone, link): (Vec<String>, Vec<String>) = if all_in(&subject) {
                    (own.iter().chain(&title).cloned().collect(), value)
                } else if all_in(&value) && !all_in(&subject) {
                    (value, subject)
                } else {
                    continue;
                };
                let mut next: Vec<String> = asked.iter().filter(|q| !gone.contains(q)).cloned().collect();
                if next.is_empty() {
                    continue;
                }
                for w in &link {
                    if !next.contains(w) {
                        next.push(w.clone());
                    }
                }
                pool.add_search(&next.join(" "))?;
                let (second, _) = single(&pool, &next, Some(i));
                if let Some(j) = second
                    && link.iter().all(|w| pool.facts[j].words.subject.contains(w) || pool.facts[j].words.condition.contains(w))
                {
                    let bridge = pool.facts[i].fact.clone();
                    return Ok(Ok(Matched { goal: goal_of(&pool.facts[j].fact, expect), bridge: Some(bridge) }));
                }
            }
        }
        nearest.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut names: Vec<String> = Vec::new();
        for (_, _, i) in nearest {
            let c = &pool.facts[i];
            let title = pool.title(&c.fact);
            let missing: Vec<&str> = asked.iter().filter(|q| !c.words.explains(q, title)).map(String::as_str).collect();
            let name = format!("{}({}) leaves {}", c.fact.predicate, c.fact.subject, missing.join(", "));
            if !names.contains(&name) {
                names.push(name);
            }
            if names.len() == 3 {
                break;
            }
        }
        let reason = if names.is_empty() {
            "no stored fact is about the question's words".to_string()
        } else {
            format!("no stored fact explains every word of the question; nearest: {}", names.join("; "))
        };
        refuse(reason)
    }
}

/// The goal a matched fact answers: its subject, predicate and condition; the object asked
/// for, or the fact's own for a yes/no question.
fn goal_of(f: &Fact, expect: Expect) -> Goal {
    let object = if expect == Expect::YesNo { f.object.to_json() } else { Value::String("?answer".into()) };
    let mut goal = Goal::new(Value::String(f.subject.clone()), &f.predicate, object);
    if let Some(c) = f.qualifiers.get("condition") {
        goal.qualifiers.insert("condition".into(), c.clone());
    }
    goal
}

/// A candidate fact with its keyed words.
struct Candidate {
    fact: Fact,
    words: FactWords,
}

impl Candidate {
    /// Whether the fact's value names something another fact may be about: a short name, not
    /// an amount or a status.
    fn links(&self) -> bool {
        let text = self.fact.object.to_string();
        (self.fact.predicate == "has_value" || attribute_name(&self.fact.predicate).is_some())
            && !text.starts_with(|c: char| c.is_ascii_digit())
            && text.split_whitespace().count() <= 4
    }
}

/// The facts read for one question, in the order read, without repeats; the plan's version
/// only; document titles read once.
struct Pool<'s> {
    store: &'s dyn Store,
    version: Option<&'s str>,
    titles: HashMap<String, Vec<String>>,
    facts: Vec<Candidate>,
    /// Ids of `facts`, and the queries already searched.
    seen: HashSet<String>,
    searched: HashSet<String>,
}

impl<'s> Pool<'s> {
    fn new(store: &'s dyn Store, version: Option<&'s str>) -> Self {
        Self { store, version, titles: HashMap::new(), facts: Vec::new(), seen: HashSet::new(), searched: HashSet::new() }
    }

    /// Adds the facts of the chunks BM25 ranks first for `query` (once per query).
    fn add_search(&mut self, query: &str) -> Result<(), StoreError> {
        if !self.searched.insert(query.to_string()) {
            return Ok(());
        }
        let hits = self.store.search(query, CHUNKS)?;
        let queries: Vec<FactQuery> = hits
            .iter()
            .map(|h| FactQuery { chunk_id: Some(h.chunk_id.clone()), limit: Some(FACTS_PER_CHUNK), ..FactQuery::default() })
            .collect();
        for facts in self.store.facts_each(&queries)? {
            for f in facts {
                if let Some(v) = self.version
                    && !f.version().is_some_and(|fv| versions_equal(&fv, v))
                {
                    continue;
                }
                if !self.seen.insert(f.id.clone()) {
                    continue;
                }
                if !self.titles.contains_key(&f.source.doc_id) {
                    let title = self.store.document(&f.source.doc_id)?.and_then(|d| d.title).unwrap_or_default();
                    self.titles.insert(f.source.doc_id.clone(), keys_of(&title));
                }
                let words = FactWords::of(&f);
                self.facts.push(Candidate { fact: f, words });
            }
        }
        Ok(())
    }

    fn title(&self, f: &Fact) -> &[String] {
        self.titles.get(&f.source.doc_id).map_or(&[][..], Vec::as_slice)
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
const FILLER: &[&str] =
    &["get", "according", "there", "currently", "exactly", "much", "many", "long", "named", "called", "mentioned", "listed"];

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
