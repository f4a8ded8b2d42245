//! The attribute layer (issue 21): facts from the shapes ordinary documents use, beside the
//! vocabulary's sentence patterns.
//!
//! A vocabulary pattern reads one phrasing of one predicate. Handbooks, API references and
//! FAQs state most of what they know as "X is/costs/lasts N", `X: N` lines and table rows;
//! this layer reads those as (subject, attribute, typed value, polarity, condition):
//!
//! - **sentences**: the subject is the words before the first verb or auxiliary; the value is
//!   the first typed value after it (an amount with its unit and `per …` rates, a duration, an
//!   ISO date, a code such as `AES-256` after "with"/"use"), a status word after a copula, or
//!   the agent of a passive ("is owned by Finance"). The words between verb and value name the
//!   attribute (`attr.kept_in_trash_for`); none after a copula is `has_value`. A prepositional
//!   phrase after the value is the fact's `condition` ("… is 150 EUR for domestic trips").
//! - **`Key: value` lines** and **two-column table rows**: `has_value` (or `has_status`) of the
//!   key; wider tables give `attr.<column>` of the row's first cell. A parenthesised part of a
//!   key is its condition ("Hotel per night (domestic)").
//!
//! Everything produced is an ordinary [`Candidate`] and goes through the same validation as
//! vocabulary facts (span, subject, object digits, negation cues). Sentences a vocabulary
//! pattern already read are left to it.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde_json::Value;
use warrant_text::OffsetMap;

use crate::fact::{Polarity, Qualifiers, Span};
use crate::validate::Candidate;

/// Predicates of the attribute layer are `attr.<attribute>`; the vocabulary accepts any such
/// id as a functional predicate with a free value object.
pub const ATTRIBUTE_PREFIX: &str = "attr.";

/// The attribute name of a predicate id (`attr.owned_by` → `owned_by`), or `None`.
pub fn attribute_name(predicate: &str) -> Option<&str> {
    predicate.strip_prefix(ATTRIBUTE_PREFIX).filter(|a| is_attribute_name(a))
}

/// `[a-z0-9]+(_[a-z0-9]+)*`, at most 64 bytes.
fn is_attribute_name(a: &str) -> bool {
    !a.is_empty()
        && a.len() <= 64
        && a.split('_').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn ci(re: &str) -> Regex {
    // Fixed patterns: a failure is a build defect caught by the unit tests.
    RegexBuilder::new(re).case_insensitive(true).build().unwrap_or_else(|e| panic!("attribute pattern {re}: {e}"))
}

/// An amount with its unit and rate, a duration, or an ISO date.
static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    ci(
        r"(?:\b\d{4}-\d{2}-\d{2}\b|(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)?(?:\s*%|\s*(?:(?:business|working|calendar)\s+)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\b|\s*(?:characters?|chars?|times|requests?|users?|bytes?|[kmgt]i?b|eur|usd|gbp|chf|euros?|dollars?|ms|pages?|items?|employees?|members?|seats?)\b)?(?:\s+per\s+[a-z]+){0,3})",
    )
});

/// A code value after "with"/"use": `AES-256`, `HMAC-SHA256`.
static CODE: LazyLock<Regex> = LazyLock::new(|| ci(r"\b(?:with|uses?|using)\s+(?P<v>[a-z]{2,}(?:-[a-z]+)*-?\d+)\b"));

/// A `Key: value` line (the key: a letter first, at most six words, no sentence inside).
static KEY_VALUE: LazyLock<Regex> = LazyLock::new(|| ci(r"^(?P<key>[a-z][\w /()'-]{0,60}?)\s*:\s+(?P<value>\S.*?)\s*$"));

/// Auxiliaries and copulas: the verb of the clause, dropped from the attribute.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "must", "may", "might", "can", "could", "cannot", "should", "shall",
    "will", "would", "do", "does", "did", "has", "have", "had", "now",
];
const COPULAS: &[&str] = &["is", "are", "was", "were"];
/// Lexical verbs that start a predicate in policy and reference prose.
const VERBS: &[&str] = &[
    "expire",
    "expires",
    "last",
    "lasts",
    "cost",
    "costs",
    "take",
    "takes",
    "include",
    "includes",
    "require",
    "requires",
    "run",
    "runs",
    "rise",
    "rises",
    "lock",
    "locks",
    "answer",
    "answers",
    "receive",
    "receives",
    "use",
    "uses",
    "reach",
    "reaches",
    "reached",
    "need",
    "needs",
    "allow",
    "allows",
    "get",
    "gets",
    "contain",
    "contains",
    "exceed",
    "exceeds",
    "start",
    "starts",
    "end",
    "ends",
    "keep",
    "keeps",
    "offer",
    "offers",
    "provide",
    "provides",
    "support",
    "supports",
    "grant",
    "grants",
    "give",
    "gives",
    "hold",
    "holds",
    "retain",
    "retains",
    "limit",
    "limits",
    "renew",
    "renews",
    "close",
    "closes",
    "open",
    "opens",
    "follow",
    "follows",
    "go",
    "goes",
    "apply",
    "applies",
    "escalate",
    "escalates",
];
const NEGATIONS: &[&str] = &["not", "never", "no", "cannot"];
/// Adverbs between a copula and its status ("is now enabled").
const ADVERBS: &[&str] = &["now", "currently", "also", "still", "always", "generally", "usually", "already"];
const ARTICLES: &[&str] = &["the", "a", "an"];
/// Words that open a condition after the value.
const PREPOSITIONS: &[&str] =
    &["for", "on", "in", "of", "during", "at", "with", "into", "after", "before", "under", "from", "to", "per", "across"];
/// Status words read after a copula (the vocabulary's `has_status` objects and their kin).
const STATUSES: &[&str] = &[
    "enabled",
    "disabled",
    "active",
    "inactive",
    "deprecated",
    "required",
    "optional",
    "supported",
    "unsupported",
    "available",
    "unavailable",
    "pending",
    "permitted",
    "allowed",
    "forbidden",
    "prohibited",
    "mandatory",
    "included",
    "reimbursed",
    "free",
    "retired",
    "removed",
];
/// Subjects that need a referent this layer cannot resolve.
const PRONOUNS: &[&str] = &["it", "they", "this", "that", "these", "those", "there", "we", "you", "he", "she", "i", "if", "when"];

fn lower_in(list: &[&str], w: &str) -> bool {
    list.iter().any(|x| x.eq_ignore_ascii_case(w))
}

/// Word tokens of `s` with byte ranges (letters, digits, inner joiners).
fn tokens(s: &str) -> Vec<(Range<usize>, &str)> {
    warrant_text::words::words(s).collect()
}

/// Attribute candidates of a chunk, in text order. `taken` are char spans a vocabulary pattern
/// already read: a line or sentence overlapping one is skipped.
pub fn attribute_candidates(chunk: &str, taken: &[Span]) -> Vec<Candidate> {
    let map = OffsetMap::new(chunk);
    let mut out = Vec::new();
    let mut header: Option<Vec<String>> = None;
    let mut line_start = 0;
    for line in chunk.split_inclusive('\n') {
        let range = line_start..line_start + line.trim_end().len();
        line_start += line.len();
        let text = &chunk[range.clone()];
        let trimmed = text.trim_start();
        let base = range.start + (text.len() - trimmed.len());
        if trimmed.starts_with('|') {
            table_row(chunk, base..range.end, &mut header, &map, &mut out);
            continue;
        }
        header = None;
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.ends_with('?') {
            continue;
        }
        let (base, body) = strip_bullet(base, trimmed);
        if let Some(c) = key_value(base, body, &map) {
            out.push(c);
            continue;
        }
        for s in warrant_text::segment::sentences_at_terminators(body) {
            let raw = &body[s.clone()];
            let clause = raw.trim_end_matches(['.', '!', ';']).trim_end();
            if clause.ends_with('?') {
                continue;
            }
            out.extend(sentence(base + s.start, clause, &map));
        }
    }
    out.retain(|c| {
        let (a, b) = (c.span.0 as usize, c.span.1 as usize);
        !taken.iter().any(|t| t.start < b && a < t.end)
    });
    out
}

fn strip_bullet(base: usize, s: &str) -> (usize, &str) {
    for marker in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = s.strip_prefix(marker) {
            let rest_trim = rest.trim_start();
            return (base + s.len() - rest_trim.len(), rest_trim);
        }
    }
    (base, s)
}

fn span(map: &OffsetMap, start: usize, end: usize) -> Span {
    Span::from(map.span_of(start, end))
}

fn candidate(
    map: &OffsetMap,
    whole: Range<usize>,
    subject: (Range<usize>, String),
    predicate: String,
    object: (Range<usize>, String),
    condition: Option<String>,
    polarity: Polarity,
) -> Candidate {
    let s = span(map, whole.start, whole.end);
    let mut qualifiers = Qualifiers::new();
    if let Some(c) = condition.filter(|c| !c.is_empty()) {
        qualifiers.insert("condition".into(), Value::String(c));
    }
    Candidate {
        subject: subject.1,
        predicate,
        object: Value::String(object.1),
        qualifiers,
        polarity,
        confidence: 1.0,
        span: (s.start as i64, s.end as i64),
        subject_span: Some(span(map, subject.0.start, subject.0.end)),
        object_span: Some(span(map, object.0.start, object.0.end)),
    }
}

/// Splits "Hotel per night (domestic)" into the name and its parenthesised condition.
fn name_and_condition(key: &str) -> (&str, Option<String>) {
    match (key.find('('), key.rfind(')')) {
        (Some(a), Some(b)) if a < b && key[b + 1..].trim().is_empty() => {
            let inner = key[a + 1..b].trim();
            (key[..a].trim_end(), (!inner.is_empty()).then(|| inner.to_string()))
        }
        _ => (key, None),
    }
}

/// The predicate of a bare value: a status word is a status, anything else a value.
fn bare_predicate(value: &str) -> &'static str {
    if lower_in(STATUSES, value.trim()) { "has_status" } else { "has_value" }
}

/// A value short and plain enough to be one: a typed value, or at most five words without a
/// sentence inside.
fn plain_value(v: &str) -> bool {
    let v = v.trim().trim_end_matches('.');
    let words = v.split_whitespace().count();
    !v.is_empty() && words <= 5 && !v.contains([',', ';', ':', '|']) && v.chars().any(char::is_alphanumeric)
}

fn key_value(base: usize, body: &str, map: &OffsetMap) -> Option<Candidate> {
    if !body.contains(": ") {
        return None;
    }
    let c = KEY_VALUE.captures(body)?;
    let (key, value) = (c.name("key")?, c.name("value")?);
    let (name, condition) = name_and_condition(key.as_str().trim());
    let value_text = value.as_str().trim_end_matches('.').trim_end();
    if name.split_whitespace().count() > 6 || !plain_value(value_text) {
        return None;
    }
    let end = base + value.start() + value_text.len();
    Some(candidate(
        map,
        base..end,
        (base + key.start()..base + key.start() + name.len(), name.to_string()),
        bare_predicate(value_text).to_string(),
        (base + value.start()..end, value_text.to_string()),
        condition,
        Polarity::Affirm,
    ))
}

/// Cells of a table row with their byte ranges (trimmed), or `None` for a separator row.
fn cells(chunk: &str, row: Range<usize>) -> Option<Vec<(Range<usize>, &str)>> {
    let text = &chunk[row.clone()];
    let inner = text.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut at = row.start + 1;
    for cell in inner.split('|') {
        let lead = cell.len() - cell.trim_start().len();
        let t = cell.trim();
        out.push((at + lead..at + lead + t.len(), t));
        at += cell.len() + 1;
    }
    if out.iter().all(|(_, t)| !t.is_empty() && t.chars().all(|c| matches!(c, '-' | ':' | ' '))) {
        return None;
    }
    Some(out)
}

fn table_row(chunk: &str, row: Range<usize>, header: &mut Option<Vec<String>>, map: &OffsetMap, out: &mut Vec<Candidate>) {
    let Some(cells) = cells(chunk, row.clone()) else { return };
    let Some(head) = header.as_ref() else {
        *header = Some(cells.iter().map(|(_, t)| t.to_string()).collect());
        return;
    };
    let Some((first, name_text)) = cells.first().cloned() else { return };
    let (name, condition) = name_and_condition(name_text);
    if name.is_empty() || !name.chars().next().is_some_and(char::is_alphanumeric) {
        return;
    }
    let subject = (first.start..first.start + name.len(), name.to_string());
    for (j, (r, value)) in cells.iter().enumerate().skip(1) {
        if !plain_value(value) {
            continue;
        }
        let predicate = if cells.len() == 2 {
            bare_predicate(value).to_string()
        } else {
            let Some(column) = head.get(j).map(|h| attribute_id(&[h.as_str()])).filter(|a| !a.is_empty()) else { continue };
            format!("{ATTRIBUTE_PREFIX}{column}")
        };
        out.push(candidate(
            map,
            first.start..r.end,
            subject.clone(),
            predicate,
            (r.clone(), value.to_string()),
            condition.clone(),
            Polarity::Affirm,
        ));
    }
}

/// `attr.` name of words: lower-case, articles dropped, joined by `_`, at most six words.
fn attribute_id(words: &[&str]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for w in words {
        for piece in w.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
            let p = piece.to_ascii_lowercase();
            if !ARTICLES.contains(&p.as_str()) {
                parts.push(p);
            }
        }
    }
    if parts.len() > 6 {
        return String::new();
    }
    parts.join("_")
}

/// One sentence (`clause`: without its final punctuation, starting at byte `at` of the chunk).
fn sentence(at: usize, clause: &str, map: &OffsetMap) -> Option<Candidate> {
    let toks = tokens(clause);
    // Only a sentence with a digit can hold a typed value; the others are read for a status,
    // a passive agent or a name after a copula (cheap checks first: this runs on every line).
    let has_digit = clause.bytes().any(|b| b.is_ascii_digit());
    // The verb: the first auxiliary; without one, the last lexical verb before the first value
    // ("The rate limit rises to 600 …": "limit" is a noun there).
    let aux = (1..toks.len()).find(|&i| lower_in(AUXILIARIES, toks[i].1));
    if aux.is_none() && !has_digit {
        return None;
    }
    let b = match aux {
        Some(b) => b,
        None => {
            let first_value = VALUE
                .find_iter(clause)
                .find(|m| m.as_str().contains(|c: char| c.is_alphabetic() || c == '-' || c == '%'))
                .map_or(clause.len(), |m| m.start());
            // An inflected verb ("rises", "reached") beats a base form, which may be a noun
            // ("support"); among base forms ("Laptop repairs take 3 days") the last wins.
            let lexical: Vec<usize> =
                (1..toks.len()).filter(|&i| toks[i].0.end <= first_value && lower_in(VERBS, toks[i].1)).collect();
            let inflected = |i: &&usize| {
                let w = toks[**i].1.to_ascii_lowercase();
                w.ends_with('s') || w.ends_with("ed")
            };
            lexical.iter().find(inflected).or(lexical.last()).copied()?
        }
    };
    let subject_text = clause[..toks[b].0.start].trim_end();
    let first = toks.first()?.1;
    if lower_in(PRONOUNS, first) || b > 8 || subject_text.contains([',', ';', ':']) {
        return None;
    }
    // "The incident commander for a SEV1 incident is …": the "for" phrase scopes the subject.
    let (subject_text, scope) = match subject_text.find(" for ") {
        Some(i) if i > 0 => {
            let s = subject_text[i + 5..].trim();
            let s = ARTICLES.iter().find_map(|a| s.strip_prefix(&format!("{a} "))).unwrap_or(s);
            (&subject_text[..i], Some(s.to_string()))
        }
        _ => (subject_text, None),
    };
    let subject = (at..at + subject_text.len(), subject_text.to_string());
    let verb = toks[b].1;
    let copula = lower_in(COPULAS, verb);
    let rest_start = toks[b].0.end;
    let rest = &clause[rest_start..];
    // The value: a typed amount, else a code after "with"/"use".
    let found = has_digit
        .then(|| VALUE.find_iter(rest))
        .into_iter()
        .flatten()
        .find(|m| {
            let after = &rest[m.end()..];
            let before = rest[..m.start()].chars().next_back();
            if before.is_some_and(|c| matches!(c, '-' | '/' | ':' | '.' | ',') || c.is_alphanumeric()) {
                return false; // "AES-256", "v2": part of a name
            }
            // "10:00", "4.3.1", "24/7": parts of something else.
            let decimal = after.strip_prefix('.').is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()));
            !after.starts_with([':', '/']) && !decimal
        })
        .map(|m| (m.start(), m.end()))
        .or_else(|| has_digit.then(|| CODE.captures(rest)).flatten().and_then(|c| c.name("v")).map(|m| (m.start(), m.end())));
    let between_end = found.map_or(rest.len(), |(s, _)| s);
    let between: Vec<(Range<usize>, &str)> = tokens(&rest[..between_end]);
    // "must not exceed 256 KB", "no more than 5 days": a bound, stated affirmatively.
    let bound = between
        .windows(2)
        .any(|w| lower_in(NEGATIONS, w[0].1) && (lower_in(&["exceed", "exceeds", "more", "later", "longer"], w[1].1)));
    let negated = !bound && (lower_in(NEGATIONS, verb) || between.iter().any(|(_, w)| lower_in(NEGATIONS, w)));
    let polarity = if negated { Polarity::Negate } else { Polarity::Affirm };
    let mut content: Vec<&str> = between
        .iter()
        .map(|(_, w)| *w)
        .filter(|w| !lower_in(AUXILIARIES, w) && !lower_in(NEGATIONS, w))
        .filter(|w| !bound || !lower_in(&["exceed", "exceeds", "more", "later", "longer", "than", "to"], w))
        .collect();
    if bound {
        content.push("maximum");
    }
    if let Some((mut vs, mut ve)) = found {
        // "rises from 100 MB to 250 MB": the value is where it goes.
        if between.last().is_some_and(|(_, w)| w.eq_ignore_ascii_case("from"))
            && let Some(to) = rest[ve..].trim_start().strip_prefix("to ")
            && let Some(m) = VALUE.find(to).filter(|m| m.start() == 0)
        {
            let at_to = rest.len() - to.len();
            (vs, ve) = (at_to + m.start(), at_to + m.end());
            content.pop();
            content.push("to");
        }
        let value = &rest[vs..ve];
        let trailing = rest[ve..].trim();
        let mut words: Vec<&str> = Vec::new();
        if !lower_in(AUXILIARIES, verb) {
            words.push(verb);
        }
        words.extend(content.iter().copied());
        let mut condition = None;
        if !trailing.is_empty() {
            let tail = tokens(trailing);
            let opens = tail.first().is_some_and(|(_, w)| lower_in(PREPOSITIONS, w));
            if opens && tail.len() <= 7 {
                let inner = trailing[tail[0].0.end..].trim();
                condition = Some(inner.strip_prefix("the ").unwrap_or(inner).to_string());
            } else if !opens && tail.len() <= 2 && !trailing.contains([',', ';']) {
                words.extend(tail.iter().map(|(_, w)| *w));
            } else if tail.len() > 7 {
                return None;
            }
        }
        let predicate = if words.is_empty() && copula {
            "has_value".to_string()
        } else {
            let id = attribute_id(&words);
            if id.is_empty() {
                return None;
            }
            format!("{ATTRIBUTE_PREFIX}{id}")
        };
        let end = if condition.is_some() || words.len() > content.len() + usize::from(!lower_in(AUXILIARIES, verb)) {
            clause.len()
        } else {
            rest_start + ve
        };
        let vs_abs = at + rest_start + vs;
        return Some(candidate(
            map,
            at..at + end,
            subject,
            predicate,
            (vs_abs..vs_abs + value.len(), value.to_string()),
            condition.or(scope),
            polarity,
        ));
    }
    if !copula {
        return None;
    }
    // A status word after the copula (and a negation), with an optional scope.
    let mut k = 0;
    while k < between.len() && (lower_in(NEGATIONS, between[k].1) || lower_in(ADVERBS, between[k].1)) {
        k += 1;
    }
    let (r, word) = between.get(k)?.clone();
    if lower_in(STATUSES, word) {
        let trailing = rest[r.end..].trim();
        let tail = tokens(trailing);
        let condition = match tail.first() {
            None => None,
            Some((_, w)) if lower_in(PREPOSITIONS, w) && tail.len() <= 7 => {
                let inner = trailing[tail[0].0.end..].trim();
                Some(inner.strip_prefix("the ").unwrap_or(inner).to_string())
            }
            _ => return None,
        };
        let end = if condition.is_some() { clause.len() } else { rest_start + r.end };
        let abs = at + rest_start + r.start;
        return Some(candidate(
            map,
            at..at + end,
            subject,
            "has_status".into(),
            (abs..abs + word.len(), word.to_ascii_lowercase()),
            condition.or(scope),
            polarity,
        ));
    }
    // A passive with its agent: "Beacon is owned by SRE".
    let participle = word.to_ascii_lowercase();
    let passive = between.get(k + 1).filter(|(_, by)| by.eq_ignore_ascii_case("by")).cloned();
    let Some((by_r, _)) = passive.filter(|_| participle.ends_with("ed") || participle.ends_with("en") || participle == "run")
    else {
        // A name after the copula: "Keystone is the identity provider", "… are Confidential".
        let np = rest[r.start..].trim();
        let (np, named) = match ARTICLES.iter().find_map(|a| np.strip_prefix(&format!("{a} "))) {
            Some(rest) => (rest, true),
            None => (np, word.starts_with(|c: char| c.is_uppercase())),
        };
        if !named || !plain_value(np) || np.split_whitespace().count() > 4 || np.contains(char::is_numeric) {
            return None;
        }
        let abs = at + clause.len() - np.len();
        return Some(candidate(
            map,
            at..at + clause.len(),
            subject,
            "has_value".into(),
            (abs..abs + np.len(), np.to_string()),
            scope,
            polarity,
        ));
    };
    let agent = rest[by_r.end..].trim();
    let agent = ARTICLES.iter().find_map(|a| agent.strip_prefix(&format!("{a} "))).unwrap_or(agent);
    if !plain_value(agent) || agent.split_whitespace().count() > 4 {
        return None;
    }
    let abs = at + clause.len() - agent.len();
    Some(candidate(
        map,
        at..at + clause.len(),
        subject,
        format!("{ATTRIBUTE_PREFIX}{participle}_by"),
        (abs..abs + agent.len(), agent.to_string()),
        None,
        polarity,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, String, String, Option<String>, Polarity)> {
        attribute_candidates(text, &[])
            .into_iter()
            .map(|c| {
                let cond = c.qualifiers.get("condition").and_then(Value::as_str).map(str::to_string);
                (c.subject, c.predicate, c.object.as_str().unwrap_or_default().to_string(), cond, c.polarity)
            })
            .collect()
    }

    fn one(text: &str) -> (String, String, String, Option<String>, Polarity) {
        let mut all = read(text);
        assert_eq!(all.len(), 1, "{text}: {all:?}");
        all.remove(0)
    }

    #[test]
    fn sentences_give_subject_attribute_value_and_condition() {
        use Polarity::*;
        let f = |s: &str, p: &str, o: &str, c: Option<&str>, pol| {
            (s.to_string(), p.to_string(), o.to_string(), c.map(str::to_string), pol)
        };
        assert_eq!(
            one("Deleted files are kept in the trash for 30 days."),
            f("Deleted files", "attr.kept_in_trash_for", "30 days", None, Affirm)
        );
        assert_eq!(
            one("The Pro plan costs 29 EUR per user per month."),
            f("The Pro plan", "attr.costs", "29 EUR per user per month", None, Affirm)
        );
        assert_eq!(one("The free trial lasts 14 days."), f("The free trial", "attr.lasts", "14 days", None, Affirm));
        assert_eq!(
            one("Webhook deliveries are retried 8 times."),
            f("Webhook deliveries", "attr.retried", "8 times", None, Affirm)
        );
        assert_eq!(
            one("Laptop repairs take 3 business days."),
            f("Laptop repairs", "attr.take", "3 business days", None, Affirm)
        );
        assert_eq!(
            one("The hotel limit per night is 150 EUR for domestic trips."),
            f("The hotel limit per night", "has_value", "150 EUR", Some("domestic trips"), Affirm)
        );
        assert_eq!(
            one("Passwords must be at least 14 characters long."),
            f("Passwords", "attr.at_least_long", "14 characters", None, Affirm)
        );
        assert_eq!(
            one("SSO is not available on the Basic plan."),
            f("SSO", "has_status", "available", Some("Basic plan"), Negate)
        );
        assert_eq!(
            one("The /v1/folders endpoint is deprecated."),
            f("The /v1/folders endpoint", "has_status", "deprecated", None, Affirm)
        );
        assert_eq!(
            one("Webhook payloads must not exceed 256 KB."),
            f("Webhook payloads", "attr.maximum", "256 KB", None, Affirm)
        );
        assert_eq!(
            one("The maximum upload size rises from 100 MB to 250 MB."),
            f("The maximum upload size", "attr.rises_to", "250 MB", None, Affirm)
        );
        assert_eq!(one("Beacon is owned by SRE."), f("Beacon", "attr.owned_by", "SRE", None, Affirm));
        assert_eq!(
            one("Confidential data must be encrypted at rest with AES-256."),
            f("Confidential data", "attr.encrypted_at_rest_with", "AES-256", None, Affirm)
        );
        assert_eq!(
            one("Lumen 4.1 reached end of support on 2024-06-30."),
            f("Lumen 4.1", "attr.reached_end_of_support_on", "2024-06-30", None, Affirm)
        );
        assert_eq!(one("Keystone is the identity provider."), f("Keystone", "has_value", "identity provider", None, Affirm));
        assert_eq!(
            one("Customer documents stored in Lumen are Confidential."),
            f("Customer documents stored in Lumen", "has_value", "Confidential", None, Affirm)
        );
        assert_eq!(
            one("The incident commander for a SEV1 incident is the duty manager."),
            f("The incident commander", "has_value", "duty manager", Some("SEV1 incident"), Affirm)
        );
        // Nothing to read: no value, a pronoun subject, a clock time, a question, a sentence
        // after the copula.
        assert!(read("Lumen is sold in three plans.").is_empty());
        assert!(read("Overtime must be approved by a line manager in advance.").is_empty());
        assert!(read("It will be removed in 2 releases.").is_empty());
        assert!(read("Core hours are 10:00 to 15:00.").is_empty());
        assert!(read("How long is the free trial?").is_empty());
    }

    #[test]
    fn key_value_lines_and_tables() {
        use Polarity::*;
        let f = |s: &str, p: &str, o: &str, c: Option<&str>| {
            (s.to_string(), p.to_string(), o.to_string(), c.map(str::to_string), Affirm)
        };
        assert_eq!(
            read("Annual leave: 27 days\nParental leave: 20 weeks\n- Paging tool: Beacon"),
            vec![
                f("Annual leave", "has_value", "27 days", None),
                f("Parental leave", "has_value", "20 weeks", None),
                f("Paging tool", "has_value", "Beacon", None)
            ]
        );
        let table = "| Item | Limit |\n|---|---|\n| Hotel per night (domestic) | 150 EUR |\n| Meal allowance per day | 45 EUR |";
        assert_eq!(
            read(table),
            vec![
                f("Hotel per night", "has_value", "150 EUR", Some("domestic")),
                f("Meal allowance per day", "has_value", "45 EUR", None)
            ]
        );
        let wide = "| Service | Owner | Tool |\n|---|---|---|\n| Paging | SRE | Beacon |";
        assert_eq!(read(wide), vec![f("Paging", "attr.owner", "SRE", None), f("Paging", "attr.tool", "Beacon", None)]);
        // A long value is a sentence, not a value.
        assert!(read("SEV1: Lumen is unavailable for all customers, or data loss is suspected.").is_empty());
    }

    #[test]
    fn spans_cover_subject_and_value_and_taken_sentences_are_skipped() {
        let text = "Intro line.\nThe free trial lasts 14 days.";
        let c = &attribute_candidates(text, &[])[0];
        let chars: Vec<char> = text.chars().collect();
        let snippet: String = chars[c.span.0 as usize..c.span.1 as usize].iter().collect();
        assert_eq!(snippet, "The free trial lasts 14 days");
        assert!(attribute_candidates(text, &[Span::new(13, 20)]).is_empty());
    }

    #[test]
    fn attribute_names() {
        assert_eq!(attribute_name("attr.owned_by"), Some("owned_by"));
        assert_eq!(attribute_name("attr."), None);
        assert_eq!(attribute_name("attr.Owned"), None);
        assert_eq!(attribute_name("owned_by"), None);
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_spans_are_in_range(text in "(\\PC|\n| |\\||:|-|\\.|is|not|by|for|30 days|€5|2024-01-01|with AES-256){0,40}") {
            let n = text.chars().count() as i64;
            for c in attribute_candidates(&text, &[]) {
                proptest::prop_assert!(0 <= c.span.0 && c.span.0 <= c.span.1 && c.span.1 <= n);
            }
        }
    }
}
