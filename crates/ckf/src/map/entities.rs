//! Entities in a sentence: defined terms (`"X" means`, `(the "X")`), acronyms with their
//! expansion (`Pod Disruption Budget (PDB)`), cross-references (`Section 4.2`), and runs of
//! capitalised words that are not just the sentence's first word. Each decision looks at the
//! sentence alone, so editing one paragraph never changes another paragraph's entities.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use warrant_text::fasthash::FastSet;
use warrant_text::pattern::compile as re;

/// An entity mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Name as written (normalised).
    pub name: String,
    /// Entity type.
    pub kind: &'static str,
    /// Other names (an acronym, a defined term's long form).
    pub aliases: Vec<String>,
    /// Byte range in the sentence.
    pub range: Range<usize>,
    /// Confidence in hundredths.
    pub confidence: u8,
}

static DEFINED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"\((?:the\s+|hereinafter\s+|hereafter\s+|o\s+|a\s+|el\s+|la\s+)?["“](?P<t>[^"”]{2,60})["”]\)|^["“](?P<u>[^"”]{2,60})["”]\s+(?i:means|shall mean|refers to|is defined as|significa|se refiere a)(?-u:\b)"#,
    )
});
/// `(PDB)`: the acronym runs to the first character outside its class, which must be `)`, so
/// [`acronyms`] checks its 10-character cap instead of a bounded repeat of Unicode letter
/// classes (slow to build).
static ACRONYM: LazyLock<Regex> = LazyLock::new(|| re(r"\((?P<short>\p{Lu}[\p{Lu}\p{Ll}\d&]+)\)"));

/// The [`ACRONYM`] matches of a sentence within the length cap. A match over the cap holds no
/// `(`, so skipping it skips no other match.
fn acronyms(sentence: &str) -> impl Iterator<Item = regex::Captures<'_>> {
    ACRONYM.captures_iter(sentence).filter(|c| c.name("short").is_some_and(|m| m.as_str().chars().count() <= 10))
}

const CONNECTORS: &[&str] = &["of", "for", "and", "the", "de", "da", "do", "das", "dos", "del", "la", "y", "e", "in", "on", "&"];
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "our", "your", "their", "its", "his", "her", "each", "every", "all",
    "any", "some", "no", "o", "a", "os", "as", "um", "uma", "el", "la", "los", "las", "un", "una", "if", "when", "for", "in",
    "on", "at", "by", "to", "and", "or", "but", "however", "then", "also", "note", "see", "unless", "after", "before",
];

static STOP: LazyLock<FastSet<&'static str>> = LazyLock::new(|| {
    [
        "I",
        "I'm",
        "I've",
        "OK",
        "MUST",
        "SHALL",
        "SHOULD",
        "MAY",
        "NOT",
        "REQUIRED",
        "RECOMMENDED",
        "OPTIONAL",
        "NOTE",
        "IMPORTANT",
        "WARNING",
        "Yes",
        "No",
        "Q",
        "A",
        "P",
        "R",
        "E.g",
        "I.e",
        "Mr",
        "Mrs",
        "Ms",
        "Dr",
        "Step",
        "Steps",
        "Section",
        "Article",
        "Chapter",
        "Art",
        "Sim",
        "Não",
        "Sí",
        "Segunda",
        "Terça",
        "Quarta",
        "Quinta",
        "Sexta",
        "Sábado",
        "Domingo",
        "Mondays",
        "Tuesdays",
        "Wednesdays",
        "Thursdays",
        "Fridays",
        "Saturdays",
        "Sundays",
        "FAQ",
        "FAQs",
        "API",
        "APIs",
        "URL",
        "URLs",
        "PDF",
        "UTC",
        "GMT",
        "ID",
        "IDs",
        "SMS",
        "TBD",
        "N/A",
        "AM",
        "PM",
    ]
    .into_iter()
    .collect()
});

const ORG: &[&str] = &[
    "team",
    "department",
    "dept",
    "office",
    "committee",
    "board",
    "council",
    "operations",
    "inc",
    "ltd",
    "llc",
    "corp",
    "corporation",
    "company",
    "university",
    "agency",
    "group",
    "bank",
    "ministry",
    "institute",
    "foundation",
    "association",
    "authority",
    "commission",
    "hospital",
    "school",
    "college",
    "service",
    "services",
];
const SYSTEM: &[&str] =
    &["portal", "system", "platform", "tool", "app", "api", "console", "dashboard", "database", "server", "cluster", "cli"];
const DOCUMENT: &[&str] = &[
    "form",
    "policy",
    "handbook",
    "guide",
    "manual",
    "act",
    "law",
    "regulation",
    "code",
    "standard",
    "agreement",
    "contract",
    "plan",
    "report",
    "request",
    "template",
    "rfc",
    "procedure",
    "runbook",
];
const ROLE: &[&str] =
    &["manager", "director", "officer", "lead", "engineer", "administrator", "admin", "owner", "coordinator", "specialist"];

fn kind_of(name: &str, next_word: Option<&str>) -> &'static str {
    let last = name.split_whitespace().last().unwrap_or("").to_lowercase();
    let next = next_word.map(str::to_lowercase).unwrap_or_default();
    // "Office of the CTO", "University of Lisbon": the head noun comes first.
    let head = if name.contains(" of ") { name.split_whitespace().next().unwrap_or("").to_lowercase() } else { String::new() };
    for w in [last.as_str(), next.as_str(), head.as_str()] {
        if ORG.contains(&w) {
            return "organization";
        }
        if SYSTEM.contains(&w) {
            return "system";
        }
        if DOCUMENT.contains(&w) {
            return "document";
        }
        if ROLE.contains(&w) {
            return "role";
        }
    }
    "name"
}

fn is_cap(w: &str) -> bool {
    if w.is_ascii() {
        // The same tests on bytes (every word of every sentence comes through here).
        let b = w.as_bytes();
        let Some(&first) = b.first() else { return false };
        return first.is_ascii_uppercase()
            || (first.is_ascii_lowercase()
                && b[1..].iter().any(u8::is_ascii_uppercase)
                && b.iter().all(u8::is_ascii_alphanumeric));
    }
    is_cap_chars(w)
}

/// [`is_cap`] for any text.
fn is_cap_chars(w: &str) -> bool {
    let mut cs = w.chars();
    let Some(first) = cs.next() else { return false };
    if first.is_uppercase() {
        return w.chars().any(char::is_alphabetic);
    }
    // camelCase / iPhone-style names.
    first.is_lowercase() && w.chars().skip(1).any(char::is_uppercase) && w.chars().all(|c| c.is_alphanumeric())
}

/// Entities in one sentence (see module docs). `first_word_is_start` says whether the
/// sentence's first word starts a sentence (so its capital proves nothing).
pub fn entities(sentence: &str) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    // Defined terms.
    for c in DEFINED.captures_iter(sentence) {
        let Some(m) = c.name("t").or_else(|| c.name("u")) else { continue };
        let name = crate::normalize::normalize(m.as_str());
        let mut aliases = Vec::new();
        if let Some(t) = c.name("t") {
            // "Acme Corporation (the "Company")": the run before the parenthesis is an alias.
            let before = sentence[..t.start()].rfind('(').map_or("", |p| sentence[..p].trim_end());
            if let Some(run) = cap_runs(before).last().filter(|r| r.1.end == before.len()) {
                aliases.push(run.0.clone());
            }
        }
        out.push(Hit { name, kind: "defined_term", aliases, range: m.range(), confidence: 95 });
    }
    // Acronyms with expansions.
    for c in acronyms(sentence) {
        let Some(short) = c.name("short") else { continue };
        let paren = c.get(0).map_or(0, |m| m.start());
        let before = sentence[..paren].trim_end();
        let Some((long, r)) = cap_runs(before).into_iter().last().filter(|r| r.1.end == before.len()) else { continue };
        if !initials_match(&long, short.as_str()) {
            continue;
        }
        out.push(Hit {
            name: long.clone(),
            kind: kind_of(&long, None),
            aliases: vec![short.as_str().to_string()],
            range: r.start..short.end() + 1,
            confidence: 90,
        });
    }
    // Cross-references.
    for (r, name) in super::cues::references(sentence) {
        if out.iter().any(|h| overlaps(&h.range, &r)) {
            continue;
        }
        out.push(Hit { name, kind: "reference", aliases: Vec::new(), range: r, confidence: 90 });
    }
    // Capitalised runs.
    for (name, r, first) in cap_runs_with_position(sentence) {
        if out.iter().any(|h| overlaps(&h.range, &r)) {
            continue;
        }
        let tokens = name.split_whitespace().count();
        if first && tokens < 2 {
            continue;
        }
        if name.split_whitespace().all(|w| STOP.contains(w) || warrant_text::date::is_calendar_name(w))
            || (tokens == 1 && name.chars().count() < 2)
        {
            continue;
        }
        let next_word = sentence[r.end..].split_whitespace().next().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()));
        out.push(Hit { kind: kind_of(&name, next_word), name, aliases: Vec::new(), range: r, confidence: 80 });
    }
    out.sort_by_key(|h| h.range.start);
    out
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

fn initials_match(long: &str, short: &str) -> bool {
    let initials: Vec<char> = long.split_whitespace().filter_map(|w| w.chars().next()).flat_map(char::to_uppercase).collect();
    let letters: Vec<char> = short.chars().filter(|c| c.is_alphabetic()).flat_map(char::to_uppercase).collect();
    if letters.is_empty() || initials.first() != letters.first() {
        return false;
    }
    // The acronym's letters appear in order among the initials (connectors may be skipped).
    let mut it = initials.iter();
    letters.iter().all(|l| it.any(|i| i == l))
}

fn cap_runs(text: &str) -> Vec<(String, Range<usize>)> {
    cap_runs_with_position(text).into_iter().map(|(n, r, _)| (n, r)).collect()
}

/// Runs of capitalised words (with single connectors between them), trimmed of determiners.
/// The flag says whether the run starts the text (or follows `:`, a quote, a bracket or a dash).
fn cap_runs_with_position(text: &str) -> Vec<(String, Range<usize>, bool)> {
    let toks: Vec<(Range<usize>, &str)> = warrant_text::words::words(text).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if !is_cap(toks[i].1) {
            i += 1;
            continue;
        }
        let start_tok = i;
        let mut end_tok = i;
        let mut j = i + 1;
        while j < toks.len() {
            let gap = &text[toks[j - 1].0.end..toks[j].0.start];
            if !gap.chars().all(|c| c == ' ') || gap.is_empty() {
                break;
            }
            if is_cap(toks[j].1) {
                end_tok = j;
                j += 1;
            } else if CONNECTORS.contains(&toks[j].1) {
                // Up to two connectors ("of the"), then a capitalised word.
                let spaced = |a: usize, b: usize| text[toks[a].0.end..toks[b].0.start].chars().all(|c| c == ' ');
                let mut k = j;
                while k < toks.len() && k < j + 2 && CONNECTORS.contains(&toks[k].1) && spaced(k - 1, k) {
                    k += 1;
                }
                if k < toks.len() && k > j && is_cap(toks[k].1) && spaced(k - 1, k) {
                    j = k;
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        i = end_tok + 1;
        // Drop leading determiners ("The Workday portal" → "Workday").
        let mut s = start_tok;
        // A sentence's first word does not join the next name through a connector
        // ("Submit the Language Learning Request form").
        if text[..toks[start_tok].0.start].trim().is_empty() && start_tok < end_tok && CONNECTORS.contains(&toks[start_tok + 1].1)
        {
            s = start_tok + 1;
            while s <= end_tok && CONNECTORS.contains(&toks[s].1) {
                s += 1;
            }
        }
        while s <= end_tok && DETERMINERS.contains(&toks[s].1.to_lowercase().as_str()) {
            s += 1;
        }
        if s > end_tok {
            continue;
        }
        let r = toks[s].0.start..toks[end_tok].0.end;
        let lead = &text[..toks[start_tok].0.start];
        let at_start = s == start_tok
            && (lead.trim().is_empty()
                || lead.trim_end().ends_with([':', '"', '“', '(', '—', '–', '-', '\n', '*', '>', '#', '.', '!', '?']));
        let name = crate::normalize::normalize(&text[r.clone()]);
        if name.chars().any(char::is_alphabetic) {
            out.push((name, r, at_start));
        }
    }
    out
}

/// Relation verbs between two entities of one sentence (§2.2 vocabulary).
const RELATIONS: &[(&str, &str)] = &[
    ("depends on", "depends_on"),
    ("requires", "depends_on"),
    ("require", "depends_on"),
    ("needs", "depends_on"),
    ("supports", "supports"),
    ("enables", "enables"),
    ("allows", "enables"),
    ("causes", "causes"),
    ("leads to", "causes"),
    ("prevents", "prevents"),
    ("blocks", "prevents"),
    ("is part of", "part_of"),
    ("are part of", "part_of"),
    ("belongs to", "part_of"),
    ("overrides", "is_exception_to"),
    ("takes precedence over", "is_exception_to"),
    ("is an exception to", "is_exception_to"),
    ("contradicts", "contradicts"),
    ("conflicts with", "contradicts"),
    ("competes with", "competes_with"),
];

/// Relations between entity mentions: (from hit, to hit, relation type).
pub fn relations(sentence: &str, hits: &[Hit]) -> Vec<(usize, usize, &'static str)> {
    let mut out = Vec::new();
    for i in 0..hits.len() {
        for j in i + 1..hits.len() {
            if hits[i].range.end > hits[j].range.start {
                continue;
            }
            let raw = &sentence[hits[i].range.end..hits[j].range.start];
            // Lower-casing keeps whitespace where it is: count the words before copying.
            if raw.split_whitespace().nth(6).is_some() {
                continue;
            }
            let between = raw.to_lowercase();
            if between.contains(" not ") {
                continue;
            }
            let joined = warrant_text::normalize::collapse_whitespace(&between);
            if let Some((_, rel)) = RELATIONS.iter().find(|(verb, _)| joined.contains(verb)) {
                out.push((i, j, *rel));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The acronym pattern with its cap compiled in.
    static BOUNDED_ACRONYM: LazyLock<Regex> = LazyLock::new(|| re(r"\((?P<short>\p{Lu}[\p{Lu}\p{Ll}\d&]{1,9})\)"));

    fn acronym_ranges<'a>(c: impl Iterator<Item = regex::Captures<'a>>) -> Vec<(Range<usize>, Range<usize>)> {
        c.filter_map(|c| Some((c.get(0)?.range(), c.name("short")?.range()))).collect()
    }

    #[test]
    fn acronym_length_cap() {
        for n in 0..14 {
            let s = format!("Some Thing (A{}) and (B{}) x", "b".repeat(n), "É".repeat(n / 2));
            assert_eq!(acronym_ranges(acronyms(&s)), acronym_ranges(BOUNDED_ACRONYM.captures_iter(&s)), "{s}");
        }
    }

    proptest::proptest! {
        #[test]
        fn acronyms_match_the_bounded_pattern(s in "[A-Za-z(&)1 É]{0,40}|\\PC{0,20}") {
            proptest::prop_assert_eq!(acronym_ranges(acronyms(&s)), acronym_ranges(BOUNDED_ACRONYM.captures_iter(&s)));
        }

        #[test]
        fn ascii_capital_test_matches_the_char_test(w in "[a-zA-Z0-9'._-]{0,8}|\\PC{0,6}") {
            proptest::prop_assert_eq!(is_cap(&w), is_cap_chars(&w));
        }
    }

    fn names(s: &str) -> Vec<(String, &'static str)> {
        entities(s).into_iter().map(|h| (h.name, h.kind)).collect()
    }

    #[test]
    fn capitalised_runs_and_types() {
        assert_eq!(
            names("Requests go through the Workday portal and need approval from People Operations."),
            vec![("Workday".into(), "system"), ("People Operations".into(), "organization")]
        );
        assert_eq!(names("Language courses are reimbursable."), vec![]);
        assert_eq!(
            names("Submit the Language Learning Request form to the Office of the CTO."),
            vec![("Language Learning Request".into(), "document"), ("Office of the CTO".into(), "organization")]
        );
        assert_eq!(names("On Monday we MUST NOT deploy."), vec![]);
    }

    #[test]
    fn acronyms_defined_terms_and_references() {
        let h = entities("A Pod Disruption Budget (PDB) limits evictions under Section 4.2.");
        assert_eq!(h[0].name, "Pod Disruption Budget");
        assert_eq!(h[0].aliases, vec!["PDB"]);
        assert_eq!(h[1].name, "Section 4.2");
        assert_eq!(h[1].kind, "reference");
        let h = entities("Acme Corporation (the \"Company\") employs staff.");
        assert_eq!(
            h.iter().find(|x| x.kind == "defined_term").map(|x| (x.name.as_str(), x.aliases.clone())),
            Some(("Company", vec!["Acme Corporation".to_string()]))
        );
        assert!(initials_match("Offer in Compromise", "OIC"));
        assert!(!initials_match("Alpha Beta", "XY"));
    }

    #[test]
    fn relations_between_mentions() {
        let s = "The Billing Service depends on the Ledger API.";
        let h = entities(s);
        assert_eq!(relations(s, &h), vec![(0, 1, "depends_on")]);
    }
}
