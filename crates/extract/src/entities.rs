//! Entities with types and normalised values: quantities, dates and times, URLs, e-mails,
//! code identifiers, versions and ids, and named entities typed through gazetteers
//! (people, organisations, locations, programming languages).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};
use warrant_text::date::{DateKind, find_dates};
use warrant_text::fasthash::{FastMap, FastSet};
use warrant_text::number::{BigRational, format_rational};
use warrant_text::pattern::compile as re;
use warrant_text::quantity::{Dimension, find_quantities};

/// An entity found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundEntity {
    /// Where it is.
    pub range: Range<usize>,
    /// Its type (`MONEY`, `PERSON`, …).
    pub kind: &'static str,
    /// Normalised values.
    pub attributes: Option<Map<String, Value>>,
}

fn list(data: &str) -> Vec<&str> {
    data.lines().filter(|l| !l.starts_with('#')).map(str::trim).filter(|l| !l.is_empty()).collect()
}

static FIRST_NAMES: LazyLock<FastSet<&'static str>> = LazyLock::new(|| {
    include_str!("../data/first_names.txt").lines().filter(|l| !l.starts_with('#')).flat_map(str::split_whitespace).collect()
});

/// Names that are also common words or letters: typed as programming languages only with a
/// programming cue in the sentence.
const AMBIGUOUS_LANGUAGES: &[&str] = &[
    "C", "R", "Go", "Shell", "Assembly", "Scheme", "Crystal", "Elm", "Swift", "Rust", "Julia", "Dart", "Ada", "Pascal", "Ruby",
    "Java", "Lisp",
];

/// Gazetteer names → entity type. Every name is a capitalised sequence (or starts one), so
/// names are looked up per sequence instead of scanning the text.
static GAZETTEER: LazyLock<FastMap<&'static str, &'static str>> = LazyLock::new(|| {
    let mut m = FastMap::default();
    for (data, kind) in [
        (include_str!("../data/programming_languages.txt"), "PROGRAMMING_LANGUAGE"),
        (include_str!("../data/organizations.txt"), "ORGANIZATION"),
        (include_str!("../data/countries.txt"), "LOCATION"),
        (include_str!("../data/cities.txt"), "LOCATION"),
    ] {
        for n in list(data) {
            m.entry(n).or_insert(kind);
        }
    }
    m
});

static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"https?://[^\s<>"'\])}]+[^\s<>"'\])}.,;:!?]|www\.[a-z0-9-]+\.[^\s<>"')\]]*[^\s<>"')\].,;:!?]"#));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}(?-u:\b)"));
static INLINE_CODE: LazyLock<Regex> = LazyLock::new(|| re(r"`([^`\n]{1,120})`"));
static IDENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?-u:\b)(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\(\)|[A-Za-z_][A-Za-z0-9_]*\(\))",
    )
});
static HASH_ID: LazyLock<Regex> = LazyLock::new(|| re(r"#\d{2,}(?-u:\b)"));
static VERSION: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?-u:\b)(?:v(\d+(?:\.\d+){0,3})(?-u:\b)|version\s+(\d+(?:\.\d+){0,3})(?-u:\b))"));
const CONNECTORS: &[&str] = &["of", "van", "von", "de", "der", "da", "del", "la", "le", "the"];
const HONORIFICS: &[&str] = &["Dr", "Mr", "Mrs", "Ms", "Prof", "Sir", "Dame"];

/// Runs of capitalised words (with connectors such as "of" and "van" inside, and an optional
/// honorific first): "Guido van Rossum", "Bank of America", "Dr. Jane Smith".
fn capitalised_sequences(hay: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    // Words: maximal runs of letters and ' ’ & - (byte ranges). ASCII bytes are classified
    // directly; only non-ASCII bytes decode a char.
    // Sized for typical prose (a word per ~6 bytes) so the vector rarely regrows.
    let mut words: Vec<Range<usize>> = Vec::with_capacity(hay.len() / 6 + 4);
    let b = hay.as_bytes();
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let (part, len) = if b[i] < 0x80 {
            (b[i].is_ascii_alphabetic() || matches!(b[i], b'\'' | b'&' | b'-'), 1)
        } else {
            let c = hay[i..].chars().next().unwrap_or(' ');
            (c.is_alphabetic() || c == '’', c.len_utf8())
        };
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s0)) => {
                words.push(s0..i);
                start = None;
            }
            _ => {}
        }
        i += len;
    }
    if let Some(s0) = start {
        words.push(s0..hay.len());
    }
    let is_cap = |r: &Range<usize>| hay[r.clone()].chars().next().is_some_and(char::is_uppercase);
    // The gap between two words is only spaces (or ". " after an honorific).
    let gap_ok = |a: &Range<usize>, b: &Range<usize>| {
        let gap = &hay[a.end..b.start];
        !gap.is_empty() && gap.chars().all(|c| c == ' ' || c == '\t')
            || (HONORIFICS.contains(&&hay[a.clone()])
                && gap.trim_start_matches('.').chars().all(|c| c == ' ')
                && gap.starts_with('.'))
    };
    let mut i = 0;
    while i < words.len() {
        if !is_cap(&words[i]) || (i > 0 && words[i - 1].end == words[i].start) {
            i += 1;
            continue;
        }
        // Not glued to a digit or underscore before it (`3D`, `x_Max`).
        if hay[..words[i].start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            i += 1;
            continue;
        }
        let first = i;
        let mut last = i;
        let mut j = i + 1;
        while j < words.len() && gap_ok(&words[j - 1], &words[j]) {
            if is_cap(&words[j]) {
                last = j;
                j += 1;
            } else if CONNECTORS.contains(&&hay[words[j].clone()])
                && j + 1 < words.len()
                && gap_ok(&words[j], &words[j + 1])
                && is_cap(&words[j + 1])
            {
                last = j + 1;
                j += 2;
            } else {
                break;
            }
        }
        out.push(words[first].start..words[last].end);
        i = last + 1;
    }
    out
}

static PROGRAMMING_CUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:code|coding|program|programs|programming|language|languages|compile[rsd]?|library|libraries|function|syntax|written\s+in|developer|script|scripts|crate|package|framework|runtime|interpreter|source)(?-u:\b)",
    )
});

static STOP: LazyLock<FastSet<&'static str>> = LazyLock::new(|| STOP_CAPS.iter().copied().collect());
static ORG: LazyLock<FastSet<&'static str>> = LazyLock::new(|| ORG_SUFFIXES.iter().copied().collect());
static PLACE: LazyLock<FastSet<&'static str>> = LazyLock::new(|| PLACE_WORDS.iter().copied().collect());

const STOP_CAPS: &[&str] = &[
    "The",
    "This",
    "That",
    "These",
    "Those",
    "It",
    "Its",
    "It's",
    "I",
    "I'm",
    "I'll",
    "I've",
    "I'd",
    "We",
    "We're",
    "We'll",
    "You",
    "You're",
    "You'll",
    "He",
    "She",
    "They",
    "They're",
    "A",
    "An",
    "In",
    "On",
    "At",
    "For",
    "To",
    "From",
    "By",
    "With",
    "If",
    "When",
    "While",
    "But",
    "And",
    "Or",
    "So",
    "Yes",
    "No",
    "Here",
    "Here's",
    "There",
    "There's",
    "What",
    "Which",
    "Who",
    "How",
    "Why",
    "Where",
    "Note",
    "Also",
    "However",
    "Then",
    "First",
    "Second",
    "Third",
    "Finally",
    "Step",
    "Please",
    "Thanks",
    "Thank",
    "Hello",
    "Hi",
    "Hey",
    "Dear",
    "Sure",
    "Your",
    "My",
    "Our",
    "Their",
    "His",
    "Her",
    "Let",
    "Let's",
    "Make",
    "Use",
    "Run",
    "Click",
    "Open",
    "Visit",
    "Check",
    "Try",
    "See",
    "Do",
    "Don't",
    "Is",
    "Are",
    "Was",
    "Were",
    "Be",
    "Can",
    "Could",
    "Should",
    "Would",
    "Will",
    "May",
    "Might",
    "Must",
    "Each",
    "Every",
    "All",
    "Some",
    "Any",
    "Many",
    "Most",
    "Other",
    "Another",
    "As",
    "After",
    "Before",
    "Since",
    "Because",
    "Although",
    "Though",
    "Unless",
    "Until",
    "Once",
    "Now",
    "Today",
    "Yesterday",
    "Tomorrow",
    "Overall",
    "Therefore",
    "Thus",
    "Hence",
    "Meanwhile",
    "Instead",
    "Otherwise",
    "Of",
    "Not",
    "One",
    "Two",
    "Three",
    "Great",
    "Good",
    "Okay",
    "OK",
    "Well",
    "Just",
    "Only",
    "Even",
    "Still",
    "Both",
    "Either",
    "Neither",
    "Such",
    "Same",
    "Warning",
    "Important",
    "Summary",
    "Example",
    "Examples",
    "Answer",
    "Question",
    "Result",
    "Results",
    "Total",
    "Sources",
    "References",
    "Source",
    "TL",
    "DR",
    "Best",
    "Regards",
    "Sincerely",
    "Cheers",
    "Welcome",
    "Sorry",
    "Happy",
    "Feel",
    "Hope",
    "Keep",
    "Remember",
    "Avoid",
    "Never",
    "Always",
    "Add",
    "Set",
    "Get",
    "Call",
    "Read",
    "Write",
    "Create",
    "Delete",
    "Update",
    "Install",
    "Configure",
    "Start",
    "Stop",
    "Enable",
    "Disable",
    "Go",
];

const ORG_SUFFIXES: &[&str] = &[
    "Inc",
    "Inc.",
    "Corp",
    "Corp.",
    "Corporation",
    "LLC",
    "Ltd",
    "Ltd.",
    "Limited",
    "Company",
    "Co.",
    "Group",
    "University",
    "Institute",
    "College",
    "School",
    "Foundation",
    "Agency",
    "Bank",
    "Association",
    "Society",
    "Labs",
    "Laboratories",
    "Systems",
    "Technologies",
    "Partners",
    "Holdings",
    "Ministry",
    "Department",
    "Council",
    "Committee",
    "Commission",
    "Organization",
    "Organisation",
    "Hospital",
    "Clinic",
    "Airlines",
    "Motors",
];
const PLACE_WORDS: &[&str] = &[
    "River",
    "Mountain",
    "Mountains",
    "Lake",
    "City",
    "County",
    "Street",
    "Avenue",
    "Road",
    "Island",
    "Islands",
    "Bay",
    "Valley",
    "Park",
    "Province",
    "State",
    "Sea",
    "Ocean",
];

fn num_json(v: &BigRational) -> Value {
    let s = format_rational(v, 12);
    if s.ends_with('…') {
        Value::String(s)
    } else {
        // `format_rational` writes `-?digits(.digits)?`: a valid JSON number literal.
        Value::Number(serde_json::Number::from_string_unchecked(s))
    }
}

fn attrs(pairs: Vec<(&str, Value)>) -> Option<Map<String, Value>> {
    // A few keys: direct inserts beat collecting (which sorts and bulk-builds).
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_string(), v);
    }
    (!m.is_empty()).then_some(m)
}

/// Priority when candidates overlap: lower wins.
struct Candidate {
    range: Range<usize>,
    priority: u8,
    entity: FoundEntity,
}

/// Finds entities in the prose ranges; `sentences` (sorted) let gazetteer matches that are
/// ambiguous check their sentence for cues.
pub fn find(text: &str, prose: &[Range<usize>], sentences: &[Range<usize>]) -> Vec<FoundEntity> {
    // Candidates are large: start with room for a typical answer's instead of regrowing.
    let total: usize = prose.iter().map(|r| r.len()).sum();
    let mut cands: Vec<Candidate> = Vec::with_capacity(total / 16 + 8);
    let mut push = |range: Range<usize>, priority: u8, kind: &'static str, attributes: Option<Map<String, Value>>| {
        if range.start < range.end {
            cands.push(Candidate { range: range.clone(), priority, entity: FoundEntity { range, kind, attributes } });
        }
    };
    for r in prose {
        let hay = &text[r.clone()];
        let at = |m: Range<usize>| r.start + m.start..r.start + m.end;
        // Cheap byte checks skip regexes that cannot match.
        let has = |needle: &str| hay.contains(needle);
        // The gates are checked before the scan: a filter on the matches would run the regex anyway.
        let scan = |gate: bool, re: &'static LazyLock<Regex>| gate.then(|| re.find_iter(hay)).into_iter().flatten();
        for m in scan(has("http") || has("www."), &URL) {
            let host =
                m.as_str().split("://").nth(1).unwrap_or(m.as_str()).split(['/', '?', '#']).next().unwrap_or("").to_string();
            push(at(m.range()), 0, "URL", attrs(vec![("host", Value::String(host))]));
        }
        for m in scan(has("@"), &EMAIL) {
            let domain = m.as_str().rsplit('@').next().unwrap_or("").to_string();
            push(at(m.range()), 0, "EMAIL", attrs(vec![("domain", Value::String(domain))]));
        }
        for c in has("`").then(|| INLINE_CODE.captures_iter(hay)).into_iter().flatten() {
            if let Some(inner) = c.get(1)
                && !inner.as_str().trim().is_empty()
                && inner.as_str().trim() == inner.as_str()
            {
                push(at(inner.range()), 1, "CODE_IDENTIFIER", None);
            }
        }
        // snake_case, camelCase or a call `f()`: an underscore, "()" or a lower→upper step.
        let identish =
            has("_") || has("()") || hay.as_bytes().windows(2).any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
        for m in scan(identish, &IDENT) {
            push(at(m.range()), 2, "CODE_IDENTIFIER", None);
        }
        for d in find_dates(hay) {
            let (kind, a) = match d.kind {
                DateKind::Time => {
                    let mins = d.minute_of_day.unwrap_or(0);
                    ("TIME", attrs(vec![("time", Value::String(format!("{:02}:{:02}", mins / 60, mins % 60)))]))
                }
                k => {
                    let mut pairs = Vec::new();
                    if let Some(iso) = d.iso() {
                        pairs.push(("iso", Value::String(iso)));
                    }
                    if let Some(w) = d.weekday {
                        pairs.push(("weekday", Value::from(w)));
                    }
                    if k == DateKind::Relative {
                        pairs.push(("relative", Value::String(hay[d.range.clone()].to_lowercase())));
                    }
                    ("DATE", attrs(pairs))
                }
            };
            push(at(d.range), 3, kind, a);
        }
        for m in scan(has("#"), &HASH_ID) {
            push(at(m.range()), 3, "IDENTIFIER", None);
        }
        let versionish = has("ersion") || hay.as_bytes().windows(2).any(|w| (w[0] | 0x20) == b'v' && w[1].is_ascii_digit());
        for c in versionish.then(|| VERSION.captures_iter(hay)).into_iter().flatten() {
            let (Some(all), Some(v)) = (c.get(0), c.get(1).or_else(|| c.get(2))) else { continue };
            push(at(all.range()), 3, "VERSION", attrs(vec![("version", Value::String(v.as_str().to_string()))]));
        }
        for q in find_quantities(hay) {
            // "Step 2" is a label, not a quantity (look back at most one word: no quadratic scan).
            let before = hay[..q.range.start].trim_end();
            if before.len() >= 4
                && before.is_char_boundary(before.len() - 4)
                && before[before.len() - 4..].eq_ignore_ascii_case("step")
            {
                continue;
            }
            let kind = q.dimension.entity_type();
            let mut pairs = vec![("value", num_json(&q.value))];
            match &q.dimension {
                Dimension::Money(code) => pairs.push(("currency", Value::String(code.clone()))),
                Dimension::Number | Dimension::Percent => {}
                d => {
                    if let Some(u) = &q.unit {
                        pairs.push(("unit", Value::String(u.clone())));
                    }
                    if let (Some(c), Some(cu)) = (q.canonical(), d.canonical_unit()) {
                        let key = if *d == Dimension::Duration { "seconds" } else { "canonical_value" };
                        pairs.push((key, num_json(&c)));
                        if *d != Dimension::Duration {
                            pairs.push(("canonical_unit", Value::String(cu.to_string())));
                        }
                    }
                    if q.approximate {
                        pairs.push(("approximate", Value::Bool(true)));
                    }
                }
            }
            push(at(q.range), 4, kind, attrs(pairs));
        }
        for seq in capitalised_sequences(hay) {
            if let Some((range, kind)) = classify_caps(text, at(seq), sentences) {
                push(range, 5, kind, None);
            }
        }
    }
    select(cands)
}

fn sentence_of(sentences: &[Range<usize>], pos: usize) -> Option<Range<usize>> {
    let i = sentences.partition_point(|s| s.end <= pos);
    sentences.get(i).filter(|s| s.start <= pos).cloned()
}

/// Types a capitalised sequence, dropping leading stop-words and sentence-initial singles.
fn classify_caps(text: &str, range: Range<usize>, sentences: &[Range<usize>]) -> Option<(Range<usize>, &'static str)> {
    let mut words: Vec<Range<usize>> = Vec::new();
    let mut pos = range.start;
    for w in text[range.clone()].split(' ') {
        if !w.is_empty() {
            words.push(pos..pos + w.len());
        }
        pos += w.len() + 1;
    }
    // Drop leading stop-words, month and weekday names.
    while let Some(first) = words.first() {
        let w = &text[first.clone()];
        if STOP.contains(w) || warrant_text::date::is_calendar_name(w) {
            words.remove(0);
        } else {
            break;
        }
    }
    // Drop trailing connectors.
    while let Some(last) = words.last() {
        if matches!(&text[last.clone()], "of" | "van" | "von" | "de" | "der" | "da" | "del" | "la" | "le" | "and" | "&" | "the") {
            words.pop();
        } else {
            break;
        }
    }
    let (first, last) = (words.first()?.clone(), words.last()?.clone());
    let mut span = first.start..last.end;
    // "C++", "C#", "F#": the symbols are part of the name.
    for suffix in ["++", "#"] {
        if text[span.end..].starts_with(suffix) && GAZETTEER.contains_key(&text[span.start..span.end + suffix.len()]) {
            span.end += suffix.len();
        }
    }
    if let Some(&kind) = GAZETTEER.get(&text[span.clone()]) {
        if kind == "PROGRAMMING_LANGUAGE" && AMBIGUOUS_LANGUAGES.contains(&&text[span.clone()]) {
            let sentence = sentence_of(sentences, span.start).map_or(&text[span.clone()], |s| &text[s]);
            if !PROGRAMMING_CUE.is_match(sentence) {
                return None;
            }
        }
        return Some((span, kind));
    }
    // A longer sequence that starts with a known name ("Python Software", "Paris Hilton"?) is
    // typed by its own words below; a known single word inside it is not split out.
    let first_word = &text[first.clone()];
    let last_word = &text[last.clone()];
    let before = sentence_of(sentences, span.start).map_or("", |s| &text[s.start..span.start]);
    let lead = before.trim().trim_start_matches(['-', '*', '#', '>', '"', '(']).trim();
    // "Step 2: Penguins …" and "Note: Paris …" start a sentence after the label.
    let sentence_start = lead.is_empty() || (lead.ends_with(':') && lead.split_whitespace().count() <= 2);
    let honorific = ["Dr", "Dr.", "Mr", "Mr.", "Mrs", "Mrs.", "Ms", "Ms.", "Prof", "Prof.", "Sir", "Dame"].contains(&first_word);
    let all_caps = first_word.chars().filter(|c| c.is_alphabetic()).count() >= 2 && first_word.chars().all(|c| !c.is_lowercase());
    let kind = if honorific || FIRST_NAMES.contains(first_word) {
        "PERSON"
    } else if ORG.contains(last_word) {
        "ORGANIZATION"
    } else if PLACE.contains(last_word) {
        "LOCATION"
    } else if words.len() == 1 && all_caps {
        "ACRONYM"
    } else if words.len() == 1 && sentence_start {
        // A capitalised sentence-initial word is usually just a word.
        return None;
    } else {
        "PROPER_NOUN"
    };
    Some((span, kind))
}

/// Keeps the best non-overlapping candidates: by priority, then position, then length.
/// Taken bytes are marked in a bitset, so each check costs the candidate's length.
fn select(mut cands: Vec<Candidate>) -> Vec<FoundEntity> {
    cands.sort_by(|a, b| a.priority.cmp(&b.priority).then(a.range.start.cmp(&b.range.start)).then(b.range.end.cmp(&a.range.end)));
    let len = cands.iter().map(|c| c.range.end).max().unwrap_or(0);
    let mut taken = vec![0u64; len / 64 + 1];
    let is_set = |t: &[u64], i: usize| t[i / 64] >> (i % 64) & 1 == 1;
    let mut out = Vec::with_capacity(cands.len());
    for c in cands {
        if c.range.clone().any(|i| is_set(&taken, i)) {
            continue;
        }
        for i in c.range.clone() {
            taken[i / 64] |= 1 << (i % 64);
        }
        out.push(c.entity);
    }
    out.sort_by_key(|e| e.range.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ents(t: &str) -> Vec<(String, &'static str)> {
        let sentences = warrant_text::segment::sentences(t);
        find(t, &[0..t.len()], &sentences).into_iter().map(|e| (t[e.range].to_string(), e.kind)).collect()
    }

    #[test]
    fn named_entities() {
        assert_eq!(
            ents("Python was created by Guido van Rossum and first released in 1991."),
            vec![("Python".into(), "PROGRAMMING_LANGUAGE"), ("Guido van Rossum".into(), "PERSON"), ("1991".into(), "DATE")]
        );
        assert_eq!(
            ents("Your order #12345 was shipped yesterday via FedEx."),
            vec![("#12345".into(), "IDENTIFIER"), ("yesterday".into(), "DATE"), ("FedEx".into(), "ORGANIZATION")]
        );
        assert_eq!(
            ents("We flew from Boston to Lisbon with Acme Corp."),
            vec![("Boston".into(), "LOCATION"), ("Lisbon".into(), "LOCATION"), ("Acme Corp".into(), "ORGANIZATION")]
        );
        assert_eq!(
            ents("Dr. Jane Smith joined the University of Oxford."),
            vec![("Dr. Jane Smith".into(), "PERSON"), ("University of Oxford".into(), "ORGANIZATION")]
        );
    }

    #[test]
    fn ambiguous_language_names_need_a_cue() {
        assert_eq!(ents("Go to the settings page."), vec![]);
        assert_eq!(ents("Rust is a systems programming language."), vec![("Rust".into(), "PROGRAMMING_LANGUAGE")]);
        assert_eq!(ents("Rust formed on the gate."), vec![]);
    }

    #[test]
    fn values_and_technical_tokens() {
        let t = "Pay $80.50 (15%) within 30 days to billing@example.com, see https://example.com/pay. Call `get_user()` on v2.0.";
        let got = ents(t);
        let kinds: Vec<&str> = got.iter().map(|g| g.1).collect();
        assert_eq!(kinds, vec!["MONEY", "PERCENT", "DURATION", "EMAIL", "URL", "CODE_IDENTIFIER", "VERSION"]);
        let sentences = warrant_text::segment::sentences(t);
        let all = find(t, &[0..t.len()], &sentences);
        let money = all[0].attributes.as_ref().unwrap();
        assert_eq!(money["currency"], Value::String("USD".into()));
        assert_eq!(money["value"].to_string(), "80.5");
        assert_eq!(all[2].attributes.as_ref().unwrap()["seconds"].to_string(), "2592000");
    }
}
