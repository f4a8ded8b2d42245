//! Deciding answers to polar and choice questions (see [`crate::question`]) from the sources.

use crate::analysis::Analysis;
use crate::analysis::has_words_near;
use crate::corpus::Corpus;
use crate::question::{Choice, Order, Polar, Reply, mentions, split_known, years};
use crate::{Relationship, Status};

/// A decision with the windows `(first, last)` it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The status.
    pub status: Status,
    /// Why.
    pub reason: String,
    /// How sure.
    pub confidence: f64,
    /// Evidence windows and how they relate to the claim.
    pub evidence: Vec<(usize, usize, Relationship)>,
}

/// What the sources say about one subject of a polar question.
#[derive(Debug)]
struct Subject {
    label: String,
    window: Option<(usize, usize)>,
    holds: bool,
    /// A name the source gives where the question has a property name ("Canadian" for
    /// "American").
    substitute: Option<String>,
    /// Values of the compared attribute, for "the same …" questions.
    values: Vec<String>,
}

/// Whether the property holds for a subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    True,
    /// The sources say otherwise.
    False,
    /// The sources describe the subject without the property.
    NotStated,
    Unknown,
}

fn window_at(corpus: &Corpus, i: usize) -> (usize, usize) {
    if corpus.joinable(i, i + 1) { (i, i + 1) } else { (i, i) }
}

/// Sentences `first..=last` merged into stems (with separators) and the keys they state
/// (content words, name words and broader terms).
fn window_words(corpus: &Corpus, (first, last): (usize, usize)) -> (Vec<String>, Vec<String>) {
    let mut stems = Vec::new();
    let mut keys = Vec::new();
    for s in &corpus.sentences()[first..=last] {
        stems.extend(s.analysis.stems.iter().cloned());
        stems.push("|".into());
        keys.extend(s.analysis.terms.iter().cloned());
        keys.extend(s.analysis.broader.iter().cloned());
    }
    (stems, keys)
}

/// Looks one subject up; `known` is the part of its name the sources state, `names` the
/// property's names (those of the question and any split off a subject's name).
fn subject(corpus: &Corpus, known: &[String], names: &[Vec<String>], polar: &Polar, question: &Analysis) -> Subject {
    let label = known.join(" ");
    let mut best: Option<(f64, Subject)> = None;
    let (found, full) = mentions(corpus, known);
    for i in found {
        let window = window_at(corpus, i);
        let (ws, keys) = window_words(corpus, window);
        let names_in = names.iter().filter(|n| has_words_near(&ws, n)).count();
        let covered = polar.keys.iter().filter(|k| keys.contains(k)).count();
        let coverage = if polar.keys.is_empty() { 1.0 } else { covered as f64 / polar.keys.len() as f64 };
        let holds = names_in == names.len() && coverage >= 0.6;
        // Another name where the question has one only counts against a subject named in full.
        let substitute = (names_in < names.len() && full)
            .then(|| {
                corpus.sentences()[window.0..=window.1]
                    .iter()
                    .flat_map(|s| &s.analysis.names)
                    .find(|n| !n.stems.iter().any(|w| known.contains(w)) && !question.has_name(n))
                    .map(|n| corpus.doc(corpus.sentences()[window.0].doc).text[n.range.clone()].to_string())
            })
            .flatten();
        let values = match &polar.same {
            Some(attr) if attr == &crate::lexicon::key("year") => {
                years(&corpus.sentences()[i].analysis).iter().map(i32::to_string).collect()
            }
            Some(_) => corpus.sentences()[window.0..=window.1]
                .iter()
                .flat_map(|s| &s.analysis.names)
                .filter(|n| !n.stems.iter().any(|w| known.contains(w)) && !question.has_name(n))
                .flat_map(|n| n.stems.iter().cloned())
                .collect(),
            None => Vec::new(),
        };
        let score = names_in as f64 + coverage;
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, Subject { label: label.clone(), window: Some(window), holds, substitute, values }));
        }
    }
    best.map(|(_, s)| s).unwrap_or(Subject { label, window: None, holds: false, substitute: None, values: Vec::new() })
}

fn truth(s: &Subject) -> Truth {
    match (s.window, s.holds, &s.substitute) {
        (None, _, _) => Truth::Unknown,
        (Some(_), true, _) => Truth::True,
        (Some(_), false, Some(_)) => Truth::False,
        (Some(_), false, None) => Truth::NotStated,
    }
}

/// True when some sentence has these stems consecutively.
fn runs_in(corpus: &Corpus, stems: &[String]) -> bool {
    corpus.sentences().iter().any(|s| s.analysis.stems.windows(stems.len()).any(|w| w == stems))
}

/// Decides a yes/no reply. `None` when the sources do not settle it (ordinary checking of the
/// answer's text then applies).
pub fn polar(corpus: &Corpus, polar: &Polar, question: &Analysis, reply: Reply) -> Option<Verdict> {
    // "Kings of Leon American": what the sources do not know of a subject's name is property,
    // for every subject.
    let split: Vec<(Vec<String>, Vec<String>)> = polar.subjects.iter().map(|w| split_known(corpus, w)).collect();
    let mut names: Vec<Vec<String>> = polar.names.clone();
    names.extend(split.iter().map(|(_, extra)| extra.clone()).filter(|e| !e.is_empty()));
    // A word after a subject's name is part of it when the sources say them together
    // ("Sake bomb"); then it is not property.
    let mut property = polar.clone();
    let known: Vec<Vec<String>> = split
        .iter()
        .zip(&polar.tails)
        .map(|((known, extra), tail)| match tail {
            Some(t) if extra.is_empty() && runs_in(corpus, &[known.as_slice(), std::slice::from_ref(t)].concat()) => {
                property.keys.retain(|k| *k != crate::lexicon::fold(t.clone()));
                [known.as_slice(), std::slice::from_ref(t)].concat()
            }
            _ => known.clone(),
        })
        .collect();
    let subjects: Vec<Subject> = known.iter().map(|k| subject(corpus, k, &names, &property, question)).collect();
    if subjects.is_empty()
        || subjects.iter().any(|s| s.window.is_none())
        || polar.same.is_some() && (subjects.len() < 2 || !polar.comparable)
    {
        return None;
    }
    let windows: Vec<(usize, usize)> = subjects.iter().filter_map(|s| s.window).collect();
    // "The same …": compare what each subject's description gives for the attribute.
    let (overall, why, key_windows) = if polar.same.is_some() {
        if subjects.iter().any(|s| s.values.is_empty()) {
            return None;
        }
        let shared = subjects[0].values.iter().find(|v| subjects[1..].iter().all(|s| s.values.contains(v)));
        match shared {
            Some(v) => (Truth::True, format!("the sources give both \"{v}\""), windows.clone()),
            None => (
                Truth::False,
                format!(
                    "the sources give {}",
                    subjects.iter().map(|s| format!("{}: {}", s.label, s.values.join(", "))).collect::<Vec<_>>().join("; ")
                ),
                windows.clone(),
            ),
        }
    } else {
        let truths: Vec<Truth> = subjects.iter().map(truth).collect();
        if let Some(s) = subjects.iter().find(|s| truth(s) == Truth::False) {
            let sub = s.substitute.clone().unwrap_or_default();
            (Truth::False, format!("the sources describe {} as {sub}", s.label), s.window.into_iter().collect())
        } else if truths.iter().all(|t| *t == Truth::True) {
            (Truth::True, "the sources state it for each subject".into(), windows.clone())
        } else if let Some(s) = subjects.iter().find(|s| truth(s) == Truth::NotStated) {
            (Truth::NotStated, format!("the sources describe {} without stating it", s.label), s.window.into_iter().collect())
        } else {
            return None;
        }
    };
    let (status, rel, confidence) = match (reply, overall) {
        (Reply::Yes, Truth::True) | (Reply::No, Truth::False) => (Status::Supported, Relationship::Supports, 0.8),
        (Reply::Yes, Truth::False) | (Reply::No, Truth::True) => (Status::Contradicted, Relationship::Contradicts, 0.8),
        (Reply::No, Truth::NotStated) => (Status::PartiallySupported, Relationship::PartiallySupports, 0.5),
        (Reply::Yes, Truth::NotStated) => (Status::Unsupported, Relationship::Background, 0.6),
        (_, Truth::Unknown) => return None,
    };
    Some(Verdict { status, reason: why, confidence, evidence: key_windows.into_iter().map(|(a, b)| (a, b, rel)).collect() })
}

/// Decides an answer that picks one option of a choice question. `None` when the answer does
/// not pick exactly one option or the sources do not settle it.
pub fn choice(corpus: &Corpus, choice: &Choice, claim: &Analysis) -> Option<Verdict> {
    let known: Vec<Vec<String>> = choice.options.iter().map(|o| split_known(corpus, o).0).collect();
    let picks: Vec<usize> = (0..2).filter(|&i| names_option(&claim.stems, &known[i])).collect();
    let [pick] = picks.as_slice() else { return None };
    let pick = *pick;
    let first_mentions: Vec<Option<usize>> = known.iter().map(|o| mentions(corpus, o).0.first().copied()).collect();
    let (Some(a), Some(b)) = (first_mentions[0], first_mentions[1]) else { return None };
    let sentences = [a, b];
    let label = |i: usize| known[i].join(" ");
    let (winner, why) = if let Some(order) = choice.order {
        let ys: Vec<Option<i32>> = sentences.iter().map(|&s| years(&corpus.sentences()[s].analysis).into_iter().min()).collect();
        let (Some(ya), Some(yb)) = (ys[0], ys[1]) else { return None };
        if ya == yb {
            return None;
        }
        let earliest = if ya < yb { 0 } else { 1 };
        let winner = if order == Order::Earliest { earliest } else { 1 - earliest };
        (winner, format!("the sources date {} to {ya} and {} to {yb}", label(0), label(1)))
    } else {
        // Only dates settle comparisons; otherwise the question's property must be stated,
        // with every other name it mentions, for one option and not the other.
        if choice.keys.is_empty() || choice.comparative {
            return None;
        }
        let coverage: Vec<f64> = known
            .iter()
            .map(|o| {
                mentions(corpus, o)
                    .0
                    .into_iter()
                    .map(|i| {
                        let (stems, keys) = window_words(corpus, (i, i));
                        if !choice.names.iter().all(|n| has_words_near(&stems, n)) {
                            return 0.0;
                        }
                        choice.keys.iter().filter(|k| keys.contains(k)).count() as f64 / choice.keys.len() as f64
                    })
                    .fold(0.0, f64::max)
            })
            .collect();
        let winner = if coverage[0] > coverage[1] { 0 } else { 1 };
        if coverage[winner] < 0.6 || coverage[winner] - coverage[1 - winner] < 0.25 {
            return None;
        }
        (winner, format!("the sources state what the question asks of {}, not of {}", label(winner), label(1 - winner)))
    };
    let (status, rel) = if pick == winner {
        (Status::Supported, Relationship::Supports)
    } else {
        (Status::Contradicted, Relationship::Contradicts)
    };
    let mut evidence = vec![(sentences[winner], sentences[winner], rel)];
    if choice.order.is_some() {
        evidence.push((sentences[1 - winner], sentences[1 - winner], rel));
    }
    Some(Verdict { status, reason: why, confidence: 0.8, evidence })
}

/// True when the claim's stems name the option (all its words, or its last word).
fn names_option(stems: &[String], option: &[String]) -> bool {
    has_words_near(stems, option) || option.last().is_some_and(|l| stems.contains(l))
}
