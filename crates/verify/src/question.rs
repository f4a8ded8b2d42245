//! The question as context. Two question forms decide short answers on their own terms:
//!
//! - **polar** ("Are both A and B American rock bands?", "Were A and B released in the same
//!   year?"): a bare "yes" or "no" is checked by looking up each subject and asking whether its
//!   description carries the property (or, for "the same …", whether the subjects share it);
//! - **choice** ("Who was born first, A or B?", "Which university is in Chestnut Hill, A or
//!   B?"): an answer that picks one option is checked by comparing the options' dates (for
//!   first/earlier/older and their opposites) or how much of the question each option's
//!   description states.
//!
//! Everything else is answered by ordinary claim checking, with the question's content as
//! context.

use crate::analysis::{Analysis, Name, has_words_near};
use crate::corpus::Corpus;
use crate::lexicon;

/// What a question asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// A yes/no question about one or more subjects.
    Polar(Polar),
    /// A choice between two named options.
    Choice(Choice),
    /// Anything else.
    Open,
}

/// A yes/no question.
#[derive(Debug, Clone, PartialEq)]
pub struct Polar {
    /// The subjects, as word stems.
    pub subjects: Vec<Vec<String>>,
    /// Per subject, the stem of a lower-case word right after its name, which may be part of
    /// it ("Sake bomb").
    pub tails: Vec<Option<String>>,
    /// Content keys of the property asked about.
    pub keys: Vec<String>,
    /// Names in the property ("American", "China"), as word stems.
    pub names: Vec<Vec<String>>,
    /// "the same X": the attribute compared (its key), when the question asks for sameness.
    pub same: Option<String>,
    /// False when `same` names an attribute the sources cannot be compared on.
    pub comparable: bool,
}

/// Which end of a timeline a choice question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// first, earlier, older, before.
    Earliest,
    /// last, later, younger, second, newer.
    Latest,
}

/// A choice between two options.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The two options, as word stems.
    pub options: [Vec<String>; 2],
    /// Set when the question asks which came first or last.
    pub order: Option<Order>,
    /// The question compares ("more", "further", "larger"): only dates can settle it.
    pub comparative: bool,
    /// Content keys of what the question asks about the options.
    pub keys: Vec<String>,
    /// Other names in the question ("South America"), as word stems.
    pub names: Vec<Vec<String>>,
}

const AUXILIARIES: &[&str] =
    &["are", "is", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would", "should"];
/// Words that ask.
const WH: &[&str] = &["who", "whom", "whose", "what", "which", "when", "where", "why", "how"];

/// Whether the text asks something: it ends with a question mark or uses a question word
/// ("It Takes a Family is a response to this 1996 book that was published by who").
pub fn asks(q: &Analysis) -> bool {
    q.asks || q.words.iter().any(|w| WH.contains(&w.as_str()))
}

/// Question words that carry no property content.
const GENERIC: &[&str] = &[
    "both",
    "same",
    "which",
    "who",
    "what",
    "whom",
    "whose",
    "one",
    "following",
    "either",
    "also",
    "type",
    "types",
    "kind",
    "kinds",
    "sort",
];

/// Attributes "the same …" can be compared on: years, and places or groups named in the
/// sources.
const COMPARABLE: &[&str] = &[
    "year",
    "nationality",
    "country",
    "state",
    "city",
    "town",
    "place",
    "location",
    "origin",
    "family",
    "genus",
    "language",
    "continent",
    "region",
    "county",
    "province",
];

/// Reads the form of `question` (its analysis is `q`).
pub fn form(question: &str, q: &Analysis) -> Form {
    let first = q.words.first().map(String::as_str).unwrap_or_default();
    let polar =
        AUXILIARIES.contains(&first) || q.words.windows(2).any(|w| w[1] == "are" || w[1] == "is") && question.contains(", are ");
    if let Some(options) = options(question, q) {
        return Form::Choice(choice(question, q, options));
    }
    if polar && !q.names.is_empty() {
        return Form::Polar(polar_form(question, q));
    }
    Form::Open
}

/// The two names joined by the last " or " of the question, if both sides are names.
fn options<'q>(question: &str, q: &'q Analysis) -> Option<[&'q Name; 2]> {
    let at = question.rfind(" or ")?;
    let after = q.names.iter().find(|n| {
        n.range.start >= at + 4 && {
            let gap = question[at + 4..n.range.start].trim().to_lowercase();
            gap.is_empty() || gap == "the"
        }
    })?;
    let before = q.names.iter().rev().find(|n| n.range.end <= at)?;
    let gap = question[before.range.end..at].trim_matches([',', ' ']);
    if gap.is_empty() {
        return Some([before, after]);
    }
    // "Hole, the rock band that …, or The Wolfhounds": an apposition follows the first option,
    // which is the first name after the comma that opens the list.
    let list = question[..at].find(',')?;
    let first = q.names.iter().find(|n| n.range.start > list && n.range.end <= at)?;
    question[first.range.end..at].starts_with(',').then_some([first, after])
}

fn choice(question: &str, q: &Analysis, options: [&Name; 2]) -> Choice {
    let lower = question.to_lowercase();
    let has = |w: &str| q.words.iter().any(|x| x == w);
    let order = if has("first")
        || has("earlier")
        || has("older")
        || has("oldest")
        || has("before")
        || lower.contains("born first")
    {
        Some(Order::Earliest)
    } else if has("younger") || has("youngest") || has("later") || has("second") || has("last") || has("newer") || has("latest") {
        Some(Order::Latest)
    } else {
        None
    };
    let comparative = q.words.iter().any(|w| COMPARATIVES.contains(&w.as_str()));
    let option_keys: Vec<String> = options.iter().flat_map(|o| &o.words).map(|w| lexicon::key(w)).collect();
    let keys =
        q.keys.iter().filter(|k| !option_keys.contains(k) && !GENERIC.iter().any(|g| lexicon::key(g) == **k)).cloned().collect();
    let names = q.names.iter().filter(|n| !options.contains(n)).map(|n| n.stems.clone()).collect();
    Choice { options: options.map(|o| o.stems.clone()), order, comparative, keys, names }
}

/// Words that make a choice question a comparison.
const COMPARATIVES: &[&str] = &[
    "more", "less", "fewer", "further", "farther", "larger", "largest", "bigger", "biggest", "smaller", "higher", "highest",
    "lower", "longer", "shorter", "closer", "closest", "better", "worse", "greater", "most", "least", "taller", "tallest",
    "richer", "heavier",
];

fn polar_form(question: &str, q: &Analysis) -> Polar {
    // Subjects: the names coordinated by "and" (or the first name), the rest is property.
    let mut subjects: Vec<&Name> = Vec::new();
    for (i, n) in q.names.iter().enumerate() {
        if let Some(m) = q.names.get(i + 1) {
            let gap = question[n.range.end..m.range.start].to_lowercase();
            let gap: Vec<&str> =
                gap.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty() && !DETERMINERS.contains(w)).collect();
            let coordinated =
                matches!(gap.as_slice(), ["and"] | ["or"] | []) && question[n.range.end..m.range.start].trim() != "";
            if coordinated {
                if !subjects.contains(&n) {
                    subjects.push(n);
                }
                subjects.push(m);
            }
        }
    }
    if subjects.is_empty() {
        subjects.extend(q.names.first());
    }
    let subject_words: Vec<Vec<String>> = subjects.iter().map(|n| n.stems.clone()).collect();
    // A lower-case word right after a subject's name may belong to it ("Sake bomb"); the
    // sources decide (see `forms::polar`).
    let tails: Vec<Option<String>> = subjects
        .iter()
        .map(|n| {
            let (r, w) = warrant_text::words::words(&question[n.range.end..]).next()?;
            (question[n.range.end..n.range.end + r.start].trim().is_empty()
                && w.chars().all(char::is_lowercase)
                && !lexicon::is_stopword(w))
            .then(|| lexicon::stem(w))
        })
        .collect();
    let subject_keys: Vec<String> = subjects.iter().flat_map(|n| &n.words).map(|w| lexicon::key(w)).collect();
    let names = q.names.iter().filter(|n| !subjects.contains(n)).map(|n| n.stems.clone()).collect();
    let same = q.words.iter().position(|w| w == "same").and_then(|i| {
        q.words[i + 1..].iter().find(|w| !lexicon::is_stopword(w) && *w != "type" && *w != "kind").map(|w| lexicon::key(w))
    });
    // Sameness of anything else ("the same customer bases") is not decided here.
    let comparable = same.as_ref().is_none_or(|k| COMPARABLE.iter().any(|c| lexicon::key(c) == *k));
    let keys = q
        .keys
        .iter()
        .filter(|k| !subject_keys.contains(k) && !GENERIC.iter().any(|g| lexicon::key(g) == **k) && same.as_ref() != Some(k))
        .filter(|k| !q.names.iter().filter(|n| !subjects.contains(n)).flat_map(|n| &n.words).any(|w| lexicon::key(w) == **k))
        .cloned()
        .collect();
    Polar { subjects: subject_words, tails, keys, names, same, comparable }
}

/// Words that may stand between coordinated subjects ("A and the B", "A and your B").
const DETERMINERS: &[&str] = &["the", "a", "an", "both", "your", "his", "her", "their", "its", "my", "our"];

/// A leading "yes" or "no" of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// "Yes", "yes.", "Yes, …".
    Yes,
    /// "No", "No, …".
    No,
}

/// The reply an answer opens with, and whether that is all it says.
pub fn reply(answer: &str) -> Option<(Reply, bool)> {
    let t = answer.trim();
    let lower = t.to_lowercase();
    let (r, rest) = if let Some(rest) = lower.strip_prefix("yes") {
        (Reply::Yes, rest)
    } else if let Some(rest) = lower.strip_prefix("no") {
        (Reply::No, rest)
    } else {
        return None;
    };
    if rest.chars().next().is_some_and(char::is_alphanumeric) {
        return None;
    }
    Some((r, rest.trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace()).is_empty()))
}

/// Sentences that mention a name given by its stems, in text order: sentences naming it in
/// full (with up to two words between its words) if any, else those with its last word (a
/// surname, a head noun). The flag is true for full mentions.
pub fn mentions(corpus: &Corpus, stems: &[String]) -> (Vec<usize>, bool) {
    if stems.is_empty() {
        return (Vec::new(), false);
    }
    let keys: Vec<String> = stems.iter().map(|w| lexicon::fold(w.clone())).collect();
    let hits = corpus.retrieve(&keys, &[], 16);
    let mut full: Vec<usize> =
        hits.iter().copied().filter(|&i| has_words_near(&corpus.sentences()[i].analysis.stems, stems)).collect();
    if !full.is_empty() {
        full.sort_unstable();
        return (full, true);
    }
    let Some(last) = stems.last() else { return (Vec::new(), false) };
    let mut partial: Vec<usize> = hits.into_iter().filter(|&i| corpus.sentences()[i].analysis.stems.contains(last)).collect();
    partial.sort_unstable();
    (partial, false)
}

/// The longest leading part of a name (stems) that some sentence states word for word; the rest is returned
/// as the second element ("kings of leon american" → "kings of leon", "american").
pub fn split_known(corpus: &Corpus, stems: &[String]) -> (Vec<String>, Vec<String>) {
    // A single known word is too little to call the rest property ("Manhattan West").
    for n in (2.min(stems.len())..=stems.len()).rev() {
        if corpus.sentences().iter().any(|s| s.analysis.stems.windows(n).any(|w| w == &stems[..n])) {
            return (stems[..n].to_vec(), stems[n..].to_vec());
        }
    }
    (stems.to_vec(), Vec::new())
}

/// Years a sentence states: dates with a year and bare four-digit numbers between 1000 and
/// 2100.
pub fn years(a: &Analysis) -> Vec<i32> {
    let mut out: Vec<i32> = a.dates.iter().filter_map(|d| d.year).collect();
    for n in &a.nums {
        if n.dimension == warrant_text::quantity::Dimension::Number
            && n.written.is_integer()
            && let Ok(y) = i32::try_from(n.written.to_integer())
            && (1000..=2100).contains(&y)
        {
            out.push(y);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form_of(q: &str) -> Form {
        form(q, &Analysis::of(q))
    }

    #[test]
    fn reads_polar_questions() {
        let Form::Polar(p) = form_of("Are both Tim McIlrath and Spike Slawson American punk rock musicians?") else { panic!() };
        // Adjacent capitalised words run together; the corpus splits "american" off later.
        assert_eq!(
            p.subjects,
            vec![vec!["tim".to_string(), "mcilrath".into()], vec!["spike".into(), "slawson".into(), "american".into()]]
        );
        assert!(p.names.is_empty());
        assert!(p.keys.contains(&lexicon::key("punk")) && p.same.is_none());
        let Form::Polar(p) = form_of("Were Up and The Watercolor released in the same year?") else { panic!() };
        assert_eq!(p.same.as_deref(), Some(lexicon::key("year").as_str()));
    }

    #[test]
    fn reads_choice_questions() {
        let Form::Choice(c) = form_of("Who was born first, Pablo Trapero or Aleksander Ford?") else { panic!() };
        assert_eq!(c.options[1], vec!["aleksand".to_string(), "ford".into()]);
        assert_eq!(c.order, Some(Order::Earliest));
        let Form::Choice(c) = form_of(
            "Which band was founded first, Hole, the rock band that Courtney Love was a frontwoman of, or The Wolfhounds?",
        ) else {
            panic!()
        };
        assert_eq!(c.options, [vec!["hole".to_string()], vec!["wolfhound".to_string()]]);
        let Form::Choice(c) = form_of("Is Advanced Micro Devices or Level 3 Communications headquartered further west?") else {
            panic!()
        };
        assert!(c.comparative);
        assert_eq!(form_of("What genre is The Warriors Gate?"), Form::Open);
    }

    #[test]
    fn reads_replies() {
        assert_eq!(reply("yes"), Some((Reply::Yes, true)));
        assert_eq!(reply("No, Pam Veasey is Canadian."), Some((Reply::No, false)));
        assert_eq!(reply("Nobody knows"), None);
    }
}
