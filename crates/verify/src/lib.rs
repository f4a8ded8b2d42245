//! Claim verification: every claim of a PredicateGraph checked against the sources it should
//! rest on, deterministically.
//!
//! For each claim, [`verify`] retrieves candidate sentences from a [`Corpus`] (BM25 over the
//! claim's content keys, with the question's keys as weaker context), widens each to windows
//! of one to three consecutive sentences, and reads the signals of [`align`]: how much of the
//! claim the window states (content keys with stemming and synonyms, names, numbers with units,
//! dates) and whether it conflicts (another number or date, another name in the same place, a
//! flipped negation, an antonym). The claim gets one [`Status`] and support edges whose
//! selectors quote the source exactly (char offsets, decision D21).
//!
//! Status rules (the Agent Evidence claim map's):
//! - `not_applicable`: opinions, instructions and hypotheticals state nothing checkable;
//! - `unverified`: there is nothing to check against (no sources);
//! - `supported`: one window states all of the claim's names, numbers and dates and nearly all
//!   its content, with no conflict — it becomes a `supports` edge;
//! - `contradicted`: no such window, and a window about the claim conflicts with it — it
//!   becomes a `contradicts` edge;
//! - `partially_supported`: a window states at least half of the claim — `partially_supports`;
//! - `unsupported`: checked, and nothing close was found (the nearest window, if any, is kept
//!   as `background`).
#![warn(missing_docs)]

mod alias;
mod align;
mod analysis;
mod calibration;
mod combine;
mod corpus;
mod forms;
pub mod lexicon;
mod llm;
mod question;
mod records;
mod wordnet;

use serde::Serialize;
use warrant_graph::{Claim, Modality, PredicateGraph, Span};

use crate::align::{Conflict, Focus, WindowEval, evaluate};
use crate::analysis::Analysis;
/// How the verifier reads a text (numbers, dates, names, words), for the debugging examples.
#[cfg(feature = "debug")]
pub use crate::analysis::Analysis as TextAnalysis;
pub use crate::corpus::{Corpus, Source};

/// Outcome of checking one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ClaimStatus))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A source states it.
    Supported,
    /// A source states part of it.
    PartiallySupported,
    /// Checked; no source states it.
    Unsupported,
    /// A source states otherwise.
    Contradicted,
    /// Nothing to check against.
    Unverified,
    /// Not a checkable statement.
    NotApplicable,
}

impl Status {
    /// The claim-map string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Supported => "supported",
            Self::PartiallySupported => "partially_supported",
            Self::Unsupported => "unsupported",
            Self::Contradicted => "contradicted",
            Self::Unverified => "unverified",
            Self::NotApplicable => "not_applicable",
        }
    }

    /// True for the statuses a reviewer must look at (`unsupported`, `contradicted`).
    pub const fn flagged(self) -> bool {
        matches!(self, Self::Unsupported | Self::Contradicted)
    }
}

/// How an evidence window relates to a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Relationship {
    /// States the claim.
    Supports,
    /// States part of it.
    PartiallySupports,
    /// States otherwise.
    Contradicts,
    /// The nearest text found; states neither.
    Background,
}

impl Relationship {
    /// The claim-map string.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Supports => "supports",
            Self::PartiallySupports => "partially_supports",
            Self::Contradicts => "contradicts",
            Self::Background => "background",
        }
    }
}

/// A quote of a source: `exact` is the source text between char offsets `start` and `end`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Selector {
    /// The quoted text.
    pub exact: String,
    /// Char offset of its start in the source document.
    pub start: usize,
    /// Char offset of its end (exclusive).
    pub end: usize,
}

/// One piece of evidence for or against a claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Edge {
    /// `<claim id>-e<n>`.
    pub edge_id: String,
    /// How the quote relates to the claim.
    pub relationship: Relationship,
    /// The source document.
    pub source_id: String,
    /// The quote.
    pub selector: Selector,
    /// How sure the verifier is, in [0, 1].
    pub confidence: f64,
}

/// The verification of one claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClaimResult {
    /// The claim's id in the graph.
    pub claim_id: String,
    /// The claim as stated.
    pub text: String,
    /// Where it is in the answer (chars).
    pub span: Span,
    /// Its modality.
    pub modality: Modality,
    /// The outcome.
    pub status: Status,
    /// How sure the verifier is, in [0, 1].
    pub confidence: f64,
    /// Evidence, strongest first.
    pub support_edges: Vec<Edge>,
    /// Why this status, in one sentence.
    pub reason: String,
    /// A model's second opinion ([`llm::second_opinion`]); absent when none was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub second_opinion: Option<llm::SecondOpinion>,
    /// The signals the status was decided from ([`Options::explain`]); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<std::collections::BTreeMap<&'static str, f64>>,
}

/// Verification settings.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The question the answer responds to; its content is context, not something the answer
    /// must repeat.
    pub question: Option<String>,
    /// Report each claim's signals ([`ClaimResult::features`]).
    pub explain: bool,
}

/// Coverage (words in some form, names, amounts, dates) above which the combiner judges a
/// claim whatever its passages lack; below it, down to the trained floor
/// ([`combine::floor`]), only when they lack no detail ([`Focus::adds_a_detail`]).
const CLEAR_COVERAGE: f64 = 0.8;
/// Most words between two words of a claim's phrase in a passage that still states it.
const PHRASE_GAP: usize = 3;
/// Sentences retrieved per claim before windows are formed.
const CANDIDATES: usize = 8;
/// Support needed for `supported` (fraction of the claim's focus found in one window).
const SUPPORTED: f64 = 0.8;
/// Share of the claim's words a supporting window must contain.
const CONTEXT: f64 = 0.5;
/// Support a window must exceed for `partially_supported`: more than half of what the claim
/// adds.
const PARTIAL: f64 = 0.5;
/// How much a window must be about the claim before its conflict counts.
const CONFLICT_CONTEXT: f64 = 0.5;
/// [`CONFLICT_CONTEXT`] for conflicts aligned on the claim's neighbourhood (amounts, dates).
const ALIGNED_CONFLICT_CONTEXT: f64 = 0.34;
/// Weight of the question's words in retrieval (of sentences here, of a store's chunks in
/// `warrant-check`): context, not what the claim states.
pub const QUESTION_WEIGHT: f64 = 0.3;

/// The question, analysed once per answer.
struct Asked {
    analysis: Analysis,
    form: question::Form,
}

/// Verifies every claim of `graph` against `corpus`.
pub fn verify(graph: &PredicateGraph, corpus: &Corpus, opts: &Options) -> Vec<ClaimResult> {
    let asked = opts.question.as_deref().map(|q| {
        let analysis = Analysis::of(q);
        let form = question::form(q, &analysis);
        Asked { analysis, form }
    });
    // The answer's current subject: the first name of the latest claim that has one, for the
    // claims after it that open with a pronoun; before any, the question's first name (a reply's
    // "he" speaks of whom the turn it answers named), unless the question offers a choice
    // ("Coke or Pepsi?" says not which).
    let mut subject: Option<analysis::Name> =
        asked.as_ref().filter(|a| !matches!(a.form, question::Form::Choice(_))).and_then(|a| a.analysis.names.first().cloned());
    // The previous claim was the speaker's own: an opinion that opens with its verb, cut from
    // the same sentence ("… and was disappointed by the ending"), is too.
    let mut speaker = false;
    let windows = align::Windows::default();
    graph
        .claims
        .iter()
        .map(|c| {
            let own = Analysis::of(&c.text);
            // A relative clause cut from its sentence ("which was released in 1956") refers back
            // as a pronoun does.
            let antecedent = (own.refers_back && own.names.is_empty()).then(|| subject.clone());
            if let Some(n) = own.names.first() {
                subject = Some(n.clone());
            }
            let mut r = match both(c, asked.as_ref()) {
                Some(parts) => verify_each(c, corpus, &windows, asked.as_ref(), &parts),
                None => verify_claim(c, corpus, &windows, asked.as_ref(), antecedent, Some(own)),
            };
            let mut inherited = false;
            if speaker
                && r.status == Status::NotApplicable
                && c.modality == Modality::Opinion
                && warrant_extract::continues_speaker(&c.text)
            {
                r.reason = PERSONAL.into();
                inherited = true;
            }
            speaker = r.reason == PERSONAL && (inherited || warrant_extract::speaker_is_subject(&c.text));
            if !opts.explain {
                r.features = None;
            }
            calibrate(&mut r);
            r
        })
        .collect()
}

/// True for a claim that is a relative clause cut from its sentence ("which was released in
/// 1956").
fn relative_clause(text: &str) -> bool {
    ["which ", "who ", "that "].iter().any(|p| text.starts_with(p))
}

/// Sets a claim's confidence to the measured precision of its status on its kind of evidence,
/// and its first edge's with it; unverified claims claim nothing.
fn calibrate(r: &mut ClaimResult) {
    let c = match r.status {
        Status::Unverified => 0.0,
        st => calibration::confidence(st, &r.reason).unwrap_or(0.0),
    };
    r.confidence = c;
    if let Some(e) = r.support_edges.first_mut().filter(|e| e.relationship != Relationship::Background) {
        e.confidence = c;
    }
}

/// A claim about "both" of the question's two subjects ("Both are American authors" to "Alan
/// Furst and Lee Child are what?"): the claim once for each, with its name in place of "Both".
fn both(claim: &Claim, asked: Option<&Asked>) -> Option<Vec<(String, Claim)>> {
    let q = asked?;
    let lead = claim.text.split_whitespace().next()?;
    if !lead.eq_ignore_ascii_case("both") || q.analysis.names.len() < 2 {
        return None;
    }
    let rest = claim.text.trim_start()[lead.len()..].trim_start();
    let rest = rest.strip_prefix("of them").or_else(|| rest.strip_prefix("individuals")).unwrap_or(rest);
    Some(
        q.analysis.names[..2]
            .iter()
            .map(|n| (align::titled(n), Claim { text: format!("{} {}", align::titled(n), rest.trim_start()), ..claim.clone() }))
            .collect(),
    )
}

/// Verifies a "both" claim as its parts: contradicted if either part is, supported if both are,
/// else unsupported — with the parts' evidence.
fn verify_each(
    claim: &Claim,
    corpus: &Corpus,
    windows: &align::Windows,
    asked: Option<&Asked>,
    parts: &[(String, Claim)],
) -> ClaimResult {
    let results: Vec<ClaimResult> = parts.iter().map(|(_, p)| verify_claim(p, corpus, windows, asked, None, None)).collect();
    let mut out = verify_claim(claim, corpus, windows, asked, None, None);
    if matches!(out.status, Status::NotApplicable | Status::Unverified) {
        return out;
    }
    let pick = |st: Status| results.iter().find(|r| r.status == st);
    let (status, from) = if let Some(r) = pick(Status::Contradicted) {
        (Status::Contradicted, r)
    } else if results.iter().all(|r| r.status == Status::Supported) {
        (Status::Supported, &results[0])
    } else {
        let r = results.iter().find(|r| r.status != Status::Supported).unwrap_or(&results[0]);
        (if r.status == Status::PartiallySupported { Status::PartiallySupported } else { Status::Unsupported }, r)
    };
    out.status = status;
    out.confidence = from.confidence;
    out.reason = match status {
        Status::Supported => "stated for each of the two".into(),
        _ => {
            let who =
                parts.iter().zip(&results).find(|(_, r)| r.status == from.status).map_or("one of them", |((n, _), _)| n.as_str());
            format!("for {who}: {}", from.reason)
        }
    };
    out.support_edges = results
        .iter()
        .filter(|r| status == Status::Supported || r.status == status)
        .flat_map(|r| r.support_edges.iter().cloned())
        .enumerate()
        .map(|(n, mut e)| {
            e.edge_id = format!("{}-e{}", claim.id, n + 1);
            e
        })
        .collect();
    out
}

/// When a question is given and the extractor found no claim in the answer (a bare "Delhi"),
/// the answer as a whole is the claim: it answers the question. Adds that claim to the graph.
pub fn add_answer_claim(graph: &mut PredicateGraph, question: &str) {
    if !graph.claims.is_empty() {
        return;
    }
    let text = &graph.text;
    let trimmed = text.trim();
    // "No." answers "Were they known for the same work?"; to anything else it is chit-chat.
    let polar = matches!(question::form(question, &Analysis::of(question)), question::Form::Polar(_))
        && question::reply(trimmed).is_some();
    if trimmed.is_empty() || !trimmed.chars().any(char::is_alphanumeric) || !(polar || bare_answer(trimmed)) {
        return;
    }
    let lead = text.len() - text.trim_start().len();
    let start = text[..lead].chars().count() as u64;
    let end = start + trimmed.chars().count() as u64;
    graph.claims.push(Claim {
        id: "c1".into(),
        text: trimmed.to_string(),
        modality: Modality::Factual,
        domain: None,
        span: Span::new(start, end),
        entity_refs: None,
        evidence: None,
    });
}

/// True when a reply with no claim of its own reads as a bare answer ("Delhi", "Lars Ulrich
/// and James Hetfield", "1998", "the red one"), not as chit-chat ("yeah!", "me too", "have a
/// great day!") or a question back: it has a word that is not a pleasantry.
fn bare_answer(text: &str) -> bool {
    if text.ends_with('?') {
        return false;
    }
    let a = Analysis::of(text);
    // "Hello", "Yeah!": chit-chat even when capitalised.
    if is_chat(&a) {
        return false;
    }
    if !a.nums.is_empty() || !a.dates.is_empty() || !a.names.is_empty() {
        return true;
    }
    a.words.iter().any(|w| !lexicon::is_stopword(w) && !lexicon::is_negation(w) && !CHAT.contains(&w.as_str()))
        && a.words.len() <= BARE_WORDS
        && !warrant_extract::personal(text)
}

/// True when every word is a function word, a pleasantry or a laugh ("yes, he was", "very
/// true!", "lol, but it's really cool", "Hahaha."): nothing a source could confirm.
fn is_chat(a: &Analysis) -> bool {
    let laugh = |w: &str| w.len() >= 4 && w.bytes().all(|b| matches!(b, b'h' | b'a' | b'e')) || matches!(w, "lol" | "lmao");
    says_only(a, |w| {
        // "that 's right": a clitic written apart is a function word (the tokenizer keeps its
        // letters only). A lone letter otherwise may be an initial ("F.E.A.R.").
        let clitic = w.starts_with(['\'', '’']) || matches!(w, "s" | "t" | "re" | "ve" | "ll" | "d" | "m");
        clitic || CHAT.contains(&w) || laugh(w)
    })
}

/// True when a text states no amount or date and every word is a function word, a negation, a
/// sound ("oh", "yep") or one `also` allows: what is left is talk, not content.
fn says_only(a: &Analysis, also: impl Fn(&str) -> bool) -> bool {
    a.nums.is_empty()
        && a.dates.is_empty()
        && a.words.iter().all(|w| lexicon::is_stopword(w) || lexicon::is_negation(w) || analysis::is_sound(w) || also(w))
}

/// True when a reply only agrees, follows or says it does not know ("I agree", "me too", "i
/// have no idea", "nope, i don't know"): the speaker's part in the talk, not a statement about
/// their life.
fn takes_part(a: &Analysis) -> bool {
    const TALK: &[&str] = &[
        "agree",
        "agreed",
        "totally",
        "completely",
        "too",
        "neither",
        "either",
        "same",
        "here",
        "idea",
        "know",
        "sure",
        "see",
        "right",
        "true",
        "exactly",
    ];
    a.words.iter().any(|w| TALK.contains(&w.as_str())) && says_only(a, |w| TALK.contains(&w))
}

/// Words that open a yes/no question.
const YES_NO_LEADS: &[&str] =
    &["is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would", "should", "am"];

/// Most words a bare answer has.
const BARE_WORDS: usize = 12;

/// Words of chit-chat replies: a reply made only of these (and function words) answers nothing.
const CHAT: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "no",
    "nope",
    "nah",
    "ok",
    "okay",
    "sure",
    "agree",
    "agreed",
    "true",
    "right",
    "lol",
    "haha",
    "hah",
    "wow",
    "cool",
    "nice",
    "great",
    "awesome",
    "good",
    "thanks",
    "thank",
    "thx",
    "u",
    "too",
    "wait",
    "oh",
    "ah",
    "hmm",
    "well",
    "really",
    "totally",
    "indeed",
    "exactly",
    "same",
    "hello",
    "hi",
    "hey",
    "bye",
    "goodbye",
    "welcome",
    "please",
    "sorry",
    "idea",
    "day",
    "go",
    "let's",
    "fun",
    "interesting",
    "funny",
    "love",
    "like",
    "definitely",
    "absolutely",
    "probably",
    "maybe",
    "guess",
    "think",
    "know",
    "see",
    "understand",
    "correct",
    "wrong",
    "fine",
    "sounds",
    "happy",
    "glad",
    "doubt",
    "let",
    "pretty",
    "chat",
    "realize",
    "realise",
    "realized",
    "realised",
    "lot",
    "certainly",
    "surely",
    "shame",
];

fn verify_claim(
    claim: &Claim,
    corpus: &Corpus,
    windows: &align::Windows,
    asked: Option<&Asked>,
    antecedent: Option<Option<analysis::Name>>,
    own: Option<Analysis>,
) -> ClaimResult {
    let question = asked.map(|a| &a.analysis);
    let mut result = ClaimResult {
        claim_id: claim.id.clone(),
        text: claim.text.clone(),
        span: claim.span,
        modality: claim.modality,
        status: Status::Unverified,
        confidence: 0.0,
        support_edges: Vec::new(),
        reason: String::new(),
        second_opinion: None,
        features: None,
    };
    // Opinions state nothing a source could confirm. An instruction or a possibility does when
    // it carries a value ("Set the TTL to 300 seconds", "The update may take up to ten
    // minutes"): then it is checked like a fact.
    let checkable = match claim.modality {
        Modality::Opinion => false,
        Modality::Instruction | Modality::Hypothetical => carries_value(&claim.text),
        _ => true,
    };
    if !checkable {
        result.status = Status::NotApplicable;
        result.confidence = 1.0;
        // The claim's analysis, when the caller made one, is not made again.
        let talk = || own.as_ref().map_or_else(|| takes_part(&Analysis::of(&claim.text)), takes_part);
        result.reason = if claim.modality == Modality::Opinion && talk() {
            // "I agree", "me too", "i have no idea": the speaker's part in the talk, not their life.
            PLEASANTRY.into()
        } else if claim.modality == Modality::Opinion && warrant_extract::personal(&claim.text) {
            PERSONAL.into()
        } else {
            format!("{} content states nothing a source could confirm", claim.modality.as_str())
        };
        return result;
    }
    if corpus.is_empty() {
        result.reason = "no sources to check against".into();
        return result;
    }
    let mut analysis = match own {
        Some(a) => read_against(a, corpus),
        None => claim_analysis(&claim.text, corpus),
    };
    if let Some(verdict) = asked.and_then(|a| by_form(corpus, a, claim, &analysis)) {
        result.status = verdict.status;
        result.confidence = verdict.confidence;
        result.reason = verdict.reason;
        for (n, (first, last, rel)) in verdict.evidence.into_iter().enumerate() {
            result.support_edges.push(make_edge(corpus, &claim.id, n + 1, first, last, rel, verdict.confidence));
        }
        return result;
    }
    // A pleasantry says nothing to check; "yes" or "no" to a yes/no question is an answer
    // (`by_form` judges the ones it can read).
    let answers_yes_no = question
        .is_some_and(|q| q.words.iter().find(|w| !analysis::is_sound(w)).is_some_and(|w| YES_NO_LEADS.contains(&w.as_str())))
        && analysis.words.iter().any(|w| matches!(w.as_str(), "yes" | "no" | "yeah" | "yep" | "nope" | "nah"));
    if is_chat(&analysis) && !answers_yes_no {
        result.status = Status::NotApplicable;
        result.confidence = 1.0;
        result.reason = PLEASANTRY.into();
        return result;
    }
    if let Some(q) = question
        && analysis.keys.is_empty()
        && let Some(role) = asked_role(q, &analysis, &claim.text)
    {
        analysis.roles.push(role);
    }
    let mut focus = Focus::of(&analysis, question);
    focus.antecedent = antecedent;
    focus.relative = relative_clause(&claim.text);
    let windows = candidate_windows(corpus, windows, &analysis, &focus, question);
    if windows.is_empty() {
        result.status = Status::Unsupported;
        result.confidence = 0.9;
        result.reason = "no source sentence shares any content with the claim".into();
        return result;
    }
    decide(&mut result, corpus, &windows, &focus);
    result
}

/// True when a text carries a value a source could confirm or contradict: an amount, a date,
/// a name (a capitalised word inside the sentence), a command or code span, or a flag.
fn carries_value(text: &str) -> bool {
    let a = Analysis::of(text);
    !a.nums.is_empty()
        || !a.dates.is_empty()
        || !a.names.is_empty()
        || text.contains('`')
        || text.split_whitespace().any(|w| w.len() > 2 && w.starts_with("--") || w.contains('='))
}

/// The reason a personal statement is not applicable.
const PERSONAL: &str = "a personal statement about the speaker states nothing a source could confirm";
const PLEASANTRY: &str = "a pleasantry states nothing a source could confirm";

/// The claim's analysis against this corpus: its opening word is a name when the sources never
/// write it in lower case.
fn claim_analysis(text: &str, corpus: &Corpus) -> Analysis {
    read_against(Analysis::of(text), corpus)
}

/// A claim's analysis read against this corpus (see [`claim_analysis`]).
fn read_against(mut analysis: Analysis, corpus: &Corpus) -> Analysis {
    if analysis.opener.as_ref().is_some_and(|n| !corpus.written_lower(&n.stems[0]) && !analysis.stems[1..].contains(&n.stems[0]))
    {
        analysis.promote_opener();
    }
    // "a global Cheerleading competition" where the sources write "cheerleading" and never
    // capitalise it: the claim's capital is its writer's habit, not a name.
    analysis.demote_names(|stem| corpus.written_lower(stem) && !corpus.written_as_name(stem));
    analysis
}

/// A bare answer to "Who <did> …?" names the one who did it: "Lucy Gordon" to "Who directed
/// Serendipity?" is the role (directed, Lucy Gordon).
fn asked_role(q: &Analysis, claim: &Analysis, text: &str) -> Option<analysis::Role> {
    let [who, verb, ..] = q.words.as_slice() else { return None };
    if who != "who" || !(verb.ends_with("ed") || lexicon::is_irregular_past(verb)) || lexicon::is_stopword(verb) {
        return None;
    }
    let name = claim.names.first()?;
    Some(analysis::Role {
        verb: lexicon::key(verb),
        verb_text: verb.clone(),
        agent: name.stems.clone(),
        agent_text: text.get(name.range.clone()).unwrap_or_default().to_string(),
        of_object: Vec::new(),
    })
}

/// The evaluated candidate windows for a claim text, for debugging the verifier.
#[cfg(feature = "debug")]
pub fn debug_windows(claim: &str, corpus: &Corpus, question: Option<&str>) -> Vec<WindowEval> {
    let q = question.map(Analysis::of);
    let analysis = claim_analysis(claim, corpus);
    let focus = Focus::of(&analysis, q.as_ref());
    candidate_windows(corpus, &align::Windows::default(), &analysis, &focus, q.as_ref())
}

/// The claim's focus (keys, names, amounts, dates) as the verifier sees it, for diagnostics.
#[cfg(feature = "debug")]
pub fn debug_focus(claim: &str, corpus: &Corpus, question: Option<&str>) -> String {
    let q = question.map(Analysis::of);
    let f = Focus::of(&claim_analysis(claim, corpus), q.as_ref());
    let names: Vec<String> = f.names.iter().map(|n| n.words.join(" ")).collect();
    let nums: Vec<&str> = f.nums.iter().map(|n| n.surface.as_str()).collect();
    format!("keys {:?} names {:?} nums {:?} dates {} negated {:?}", f.keys, names, nums, f.dates.len(), f.negated)
}

/// Polar and choice questions decide short answers on their own terms; a contradiction they
/// find also overrides the text of a longer answer ("Yes, both … are American bands.").
fn by_form(corpus: &Corpus, asked: &Asked, claim: &Claim, analysis: &Analysis) -> Option<forms::Verdict> {
    match &asked.form {
        question::Form::Polar(p) => {
            // A reply that the sources contradict or leave unsupported fails whatever follows
            // it ("Yes, both are tequila-based" when only one is).
            let (reply, bare) = question::reply(&claim.text)?;
            let verdict = forms::polar(corpus, p, &asked.analysis, reply)?;
            (bare || matches!(verdict.status, Status::Contradicted | Status::Unsupported)).then_some(verdict)
        }
        question::Form::Choice(c) => forms::choice(corpus, c, analysis),
        question::Form::Open => None,
    }
}

/// Retrieves candidate sentences and evaluates the windows around them.
fn candidate_windows(
    corpus: &Corpus,
    windows: &align::Windows,
    claim: &Analysis,
    focus: &Focus,
    question: Option<&Analysis>,
) -> Vec<WindowEval> {
    let terms: Vec<String> = claim.terms.clone();
    let weighted: Vec<(String, f64)> = question
        .map(|q| q.keys.iter().filter(|k| !terms.contains(k)).map(|k| (k.clone(), QUESTION_WEIGHT)).collect())
        .unwrap_or_default();
    // A long claim gathers more: more sentences are looked at for it. Of sentences that tie
    // on the claim's words (a templated source), those stating its amounts and dates.
    let states_specifics = |s: &corpus::Sentence| {
        focus.nums.iter().filter(|n| s.analysis.has_num(n)).count()
            + focus.dates.iter().filter(|d| s.analysis.has_date(d)).count()
    };
    let limit = CANDIDATES.max(focus.keys.len() + focus.names.len());
    let hits = corpus.retrieve_preferring(&terms, &weighted, limit, &states_specifics);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for &i in &hits {
        let prev = i.checked_sub(1).filter(|&p| corpus.joinable(p, i));
        let next = Some(i + 1).filter(|&n| corpus.joinable(i, n));
        spans.push((i, i));
        if let Some(p) = prev {
            spans.push((p, i));
        }
        if let Some(n) = next {
            spans.push((i, n));
        }
        if let (Some(p), Some(n)) = (prev, next) {
            spans.push((p, n));
        }
    }
    spans.sort_unstable();
    spans.dedup();
    spans.into_iter().map(|(a, b)| evaluate(corpus, windows, a, b, focus, question)).collect()
}

/// True when a window states the claim: nearly all it adds, every name, number and date, and
/// (for claims of two or more content words) at least half of its words, so the window is about
/// what the claim is about.
fn states(w: &WindowEval) -> bool {
    w.support >= SUPPORTED && w.missing == 0 && w.context >= CONTEXT
}

/// Orders windows as support: stating the claim, more of it, nothing missing, more context,
/// shorter, earlier.
fn support_order(a: &WindowEval, b: &WindowEval) -> std::cmp::Ordering {
    states(b)
        .cmp(&states(a))
        .then(b.support.total_cmp(&a.support))
        .then(a.missing.cmp(&b.missing))
        .then(b.context.total_cmp(&a.context))
        .then(b.relevance.total_cmp(&a.relevance))
        .then(a.size().cmp(&b.size()))
        .then(a.first.cmp(&b.first))
}

/// How much a window must be about the claim for its conflict to count: less for an amount
/// or date that differs in the claim's own neighbourhood (that alignment is evidence itself).
fn conflict_context(c: &Conflict) -> f64 {
    match c {
        Conflict::Number { .. } | Conflict::Date => ALIGNED_CONFLICT_CONTEXT,
        _ => CONFLICT_CONTEXT,
    }
}

fn decide(result: &mut ClaimResult, corpus: &Corpus, windows: &[WindowEval], focus: &Focus) {
    let bare = focus.bare;
    // How much a window is about the claim: its share of the claim's words, or for a bare
    // answer, of the question's.
    let about = |w: &WindowEval| if bare { w.relevance } else { w.context.max(w.relevance.min(w.support)) };
    // A bare answer is stated only where the question's subject is discussed.
    let stated = |w: &WindowEval| states(w) && (!bare || w.relevance > 0.0);
    let clean: Vec<&WindowEval> = windows.iter().filter(|w| w.conflict.is_none() && !w.doubt && !w.reversed).collect();
    let best = clean.iter().copied().min_by(|a, b| stated(b).cmp(&stated(a)).then(support_order(a, b)));
    let conflicting = windows
        .iter()
        .filter(|w| w.conflict.as_ref().is_some_and(|c| about(w) >= conflict_context(c)))
        .min_by(|a, b| about(b).total_cmp(&about(a)).then(a.size().cmp(&b.size())).then(a.first.cmp(&b.first)));
    let union = best.and_then(|b| complement(corpus, focus, b, &clean)).filter(|u| !u.reversed);
    result.features = Some(features(corpus, focus, best, union.as_ref(), windows));
    let id = result.claim_id.clone();
    let edge = |n: usize, w: &WindowEval, rel: Relationship, confidence: f64| {
        let (first, last) = w.quote.unwrap_or((w.first, w.last));
        make_edge(corpus, &id, n, first, last, rel, confidence)
    };

    // Support stands unless a strong conflict is more about the claim than the support is
    // (an unresolved contradiction), or as much and inside the supporting window: a window
    // that holds the very sentence denying the claim does not support it.
    let overruled = |b: &WindowEval| {
        conflicting.is_some_and(|c| {
            let inside = c.first >= b.first && c.last <= b.last;
            c.conflict.as_ref().is_some_and(Conflict::is_strong) && (about(c) > about(b) || (inside && about(c) >= about(b)))
        })
    };
    let p = result.features.as_ref().map_or(0.0, combine::probability);
    // The combiner judges coverage; an amount or a date the sources never state is not
    // supported whatever the rest says ("2 million" against "2.1 million").
    // It judges claims whose every name, amount and date the passages state, and most of whose
    // words they state in some form: an added detail ("with daily backups") keeps a claim
    // from being supported, whatever the combiner says.
    let union_missing = union.as_ref().map_or(usize::MAX, |u| u.missing);
    let coverage = |b: &WindowEval| b.related_support.max(union.as_ref().map_or(0.0, |u| u.support));
    // What the best window and those joined to it state, per key.
    let found_together = |b: &WindowEval| -> Vec<bool> {
        let mut found = b.found.clone();
        for o in union.iter().flat_map(|u| &u.others) {
            for (f, g) in found.iter_mut().zip(&o.found) {
                *f |= *g;
            }
        }
        found
    };
    // Below CLEAR_COVERAGE, what the passages lack must be words said otherwise, not a detail.
    let detail = best.is_some_and(|b| {
        let found = found_together(b);
        focus.adds_a_detail(&found) || focus.misses_a_denial(&found)
    });
    if let Some(f) = result.features.as_mut() {
        f.insert("detail", if detail { 1.0 } else { 0.0 });
    }
    let judged = |b: &WindowEval| {
        stated(b)
            || (!bare
                && combine::supported(p)
                && (b.missing == 0 || union_missing == 0)
                && (coverage(b) >= CLEAR_COVERAGE || (coverage(b) >= combine::floor() && !detail)))
    };
    if let Some(b) = best.filter(|b| judged(b) && !overruled(b)) {
        result.status = Status::Supported;
        result.confidence = round3(b.support.min(1.0) * 0.6 + b.context * 0.4);
        result.support_edges.push(edge(1, b, Relationship::Supports, result.confidence));
        result.reason = format!("stated in {}", corpus.doc(corpus.sentences()[b.first].doc).id);
        return;
    }
    if let Some(c) = conflicting {
        let Some(conflict) = &c.conflict else { return };
        result.status = Status::Contradicted;
        result.confidence = round3(0.5 + 0.5 * about(c));
        result.support_edges.push(edge(1, c, Relationship::Contradicts, result.confidence));
        result.reason = conflict.describe();
        if let Some(b) = best.filter(|b| b.support >= PARTIAL) {
            result.support_edges.push(edge(2, b, Relationship::PartiallySupports, round3(b.support * 0.5)));
        }
        return;
    }
    // Stated by passages of one document together: the best window and those that add what
    // it lacks ("the woman" … "Keonna Thomas", a list continued, a summary's sentence).
    if let (Some(b), Some(u)) = (best, union.as_ref())
        && !bare
        && u.support >= SUPPORTED
        && u.missing == 0
        && u.context >= CONTEXT
        && !u.reversed
    {
        result.status = Status::Supported;
        result.confidence = round3(u.support.min(1.0) * 0.5 + u.context * 0.3);
        result.support_edges.push(edge(1, b, Relationship::Supports, result.confidence));
        for (n, o) in u.others.iter().enumerate() {
            result.support_edges.push(edge(n + 2, o, Relationship::Supports, result.confidence));
        }
        result.reason =
            format!("stated across {} passages of {}", u.others.len() + 1, corpus.doc(corpus.sentences()[b.first].doc).id);
        return;
    }
    match best {
        Some(b) if b.support > PARTIAL && b.missing == 0 => {
            result.status = Status::PartiallySupported;
            result.confidence = round3(b.support);
            result.support_edges.push(edge(1, b, Relationship::PartiallySupports, result.confidence));
            result.reason = "only part of the claim is stated in the sources".into();
        }
        best => {
            result.status = Status::Unsupported;
            let nearest = best.or_else(|| windows.iter().min_by(|a, b| support_order(a, b)));
            result.confidence = round3(1.0 - nearest.map_or(0.0, |w| w.support));
            if let Some(w) = nearest.filter(|w| w.support > 0.0) {
                result.support_edges.push(edge(1, w, Relationship::Background, round3(w.support)));
            }
            result.reason = match nearest {
                Some(w) if w.missing > 0 && w.support >= PARTIAL => {
                    let lacking = focus.lacking(&w.found);
                    let what = lacking.iter().map(|l| format!("'{l}'")).collect::<Vec<_>>().join(", ");
                    if what.is_empty() {
                        "the nearest source text lacks a name, number or date the claim states".into()
                    } else {
                        format!("the nearest source text lacks a name, number or date the claim states: {what}")
                    }
                }
                _ => "no source states the claim".into(),
            };
        }
    }
}

/// The best window joined with the windows of the same document that state what it lacks,
/// each about the claim itself (it names one of the claim's names or has two of its words):
/// a summary's sentence often gathers what a document says in several places.
struct Union<'a> {
    others: Vec<&'a WindowEval>,
    support: f64,
    context: f64,
    missing: usize,
    /// One of the passages denies or reverses one of the claim's words ("reducing project
    /// completion times" for "increase project completion time"): together they say the
    /// claim's words in another arrangement, not the claim.
    reversed: bool,
}

/// Least number of things (words, names, amounts, dates) a claim must say for its support to
/// be gathered from several passages.
const COMPOUND: usize = 6;
/// Most passages joined to the best window.
const JOINED: usize = 3;

fn complement<'a>(corpus: &Corpus, focus: &Focus, best: &WindowEval, clean: &[&'a WindowEval]) -> Option<Union<'a>> {
    // A claim of one fact is stated in one place; a compound one may gather several.
    if best.found.iter().all(|f| *f) || focus.total() < COMPOUND {
        return None;
    }
    let doc = corpus.sentences()[best.first].doc;
    let (keys, names) = (focus.keys.len(), focus.names.len());
    let mut found = best.found.clone();
    let mut taken: Vec<(usize, usize)> = vec![(best.first, best.last)];
    let mut others: Vec<&WindowEval> = Vec::new();
    while others.len() < JOINED {
        let mut pick: Option<(usize, &WindowEval)> = None;
        for w in clean.iter().copied() {
            if corpus.sentences()[w.first].doc != doc || taken.iter().any(|(a, b)| w.first <= *b && *a <= w.last) {
                continue;
            }
            let adds = w.found.iter().zip(&found).filter(|(a, b)| **a && !**b).count();
            let about = (keys..keys + names).any(|i| w.found[i]) || (0..keys).filter(|&i| w.found[i]).count() >= 2;
            if adds == 0 || !about {
                continue;
            }
            if pick.is_none_or(|(k, p)| adds > k || (adds == k && w.first < p.first)) {
                pick = Some((adds, w));
            }
        }
        let Some((_, w)) = pick else { break };
        for (f, g) in found.iter_mut().zip(&w.found) {
            *f |= *g;
        }
        taken.push((w.first, w.last));
        others.push(w);
    }
    if others.is_empty() {
        return None;
    }
    // Support on what the claim adds (a question's words are context, as for one window).
    let given = focus.given_names.iter().chain(&focus.given_nums).chain(&focus.given_dates);
    let counted: Vec<bool> = std::iter::repeat_n(false, keys).chain(given.copied()).collect();
    let covered = found.iter().zip(&counted).filter(|(f, g)| **f && !**g).count();
    Some(Union {
        // The passages together are about the claim when together they hold most of its
        // words: a list gathered item by item has no one passage holding half of them.
        context: others.iter().map(|w| w.context).fold(best.context, f64::max).max(if keys == 0 {
            0.0
        } else {
            found[..keys].iter().filter(|f| **f).count() as f64 / keys as f64
        }),
        support: covered as f64 / focus.total().max(1) as f64,
        missing: found[keys..].iter().filter(|f| !**f).count(),
        reversed: best.reversed || others.iter().any(|w| w.reversed),
        others,
    })
}

/// The claim's signals, for the combiner and for `--explain`.
fn features(
    corpus: &Corpus,
    focus: &Focus,
    best: Option<&WindowEval>,
    union: Option<&Union<'_>>,
    windows: &[WindowEval],
) -> std::collections::BTreeMap<&'static str, f64> {
    let mut f = std::collections::BTreeMap::new();
    // Rare words weigh more: coverage of the claim's words weighted by their IDF.
    let idf: Vec<f64> = focus.keys.iter().map(|k| corpus.idf(k)).collect();
    let idf_total: f64 = idf.iter().sum();
    let idf_found: f64 = best.map_or(0.0, |b| idf.iter().zip(&b.found).filter(|(_, found)| **found).map(|(w, _)| *w).sum());
    f.insert("idf_support", if idf_total > 0.0 { idf_found / idf_total } else { 0.0 });
    // Words of the claim no source uses anywhere: content the sources do not have.
    let novel = focus.keys.iter().filter(|k| corpus.df(k) == 0).count();
    f.insert("novel", if focus.keys.is_empty() { 0.0 } else { novel as f64 / focus.keys.len() as f64 });
    // Pairs of the claim's consecutive words that the passage also puts side by side: a
    // phrase stated, not words met by chance.
    let pairs: Vec<(&String, &String)> = {
        let seq: Vec<&String> = focus.token_keys.iter().flatten().filter(|k| focus.keys.contains(k)).collect();
        seq.windows(2).map(|p| (p[0], p[1])).collect()
    };
    let phrase = best.filter(|_| !pairs.is_empty()).map_or(0.0, |b| {
        let w = align::window_analysis(corpus, b.first, b.last);
        let at = |k: &str| -> Vec<usize> {
            w.token_keys.iter().enumerate().filter(|(_, t)| t.as_deref() == Some(k)).map(|(i, _)| i).collect()
        };
        let near = pairs
            .iter()
            .filter(|(a, b)| {
                let (pa, pb) = (at(a), at(b));
                pa.iter().any(|x| pb.iter().any(|y| *y > *x && *y - *x <= PHRASE_GAP))
            })
            .count();
        near as f64 / pairs.len() as f64
    });
    f.insert("phrase", phrase);
    f.insert("related_support", best.map_or(0.0, |b| b.related_support));
    let specifics = focus.names.len() + focus.nums.len() + focus.dates.len();
    f.insert("keys", focus.keys.len() as f64);
    f.insert("specifics", specifics as f64);
    f.insert("bare", f64::from(u8::from(focus.bare)));
    f.insert("support", best.map_or(0.0, |b| b.support));
    f.insert("context", best.map_or(0.0, |b| b.context));
    f.insert("relevance", best.map_or(0.0, |b| b.relevance));
    f.insert("missing", best.map_or(specifics as f64, |b| b.missing as f64));
    f.insert("window", best.map_or(0.0, |b| b.size() as f64));
    f.insert("flipped", best.map_or(0.0, |b| f64::from(u8::from(b.flipped))));
    f.insert("union_support", union.map_or(best.map_or(0.0, |b| b.support), |u| u.support));
    f.insert("union_missing", union.map_or(best.map_or(specifics as f64, |b| b.missing as f64), |u| u.missing as f64));
    f.insert("weak_conflict", f64::from(u8::from(windows.iter().any(|w| w.conflict.is_some() || w.doubt))));
    f
}

fn make_edge(
    corpus: &Corpus,
    claim_id: &str,
    n: usize,
    first: usize,
    last: usize,
    relationship: Relationship,
    confidence: f64,
) -> Edge {
    let first = &corpus.sentences()[first];
    let last = &corpus.sentences()[last];
    let doc = corpus.doc(first.doc);
    let range = first.range.start..last.range.end;
    let (start, end) = corpus.char_span(first.doc, &range);
    Edge {
        edge_id: format!("{claim_id}-e{n}"),
        relationship,
        source_id: doc.id.clone(),
        selector: Selector { exact: doc.text[range].to_string(), start: start + doc.offset, end: end + doc.offset },
        confidence,
    }
}

fn round3(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

pub use corpus::{Analysed, PIECE};
pub use llm::{parse_verdict, second_opinion};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pleasantries_with_clitics_written_apart_are_chat() {
        for text in ["Yeah that 's right", "That 's a lot !", "Yes it was , lol"] {
            assert!(is_chat(&Analysis::of(text)), "{text}");
        }
        // Initials are a name, not clitics.
        for text in ["I love hiking", "That 's a lot of money", "It has 3 floors", "He was born in 1954", "F.E.A.R.", "J. K."] {
            assert!(!is_chat(&Analysis::of(text)), "{text}");
        }
    }

    #[test]
    fn agreeing_or_not_knowing_is_taking_part_not_a_personal_statement() {
        for text in ["Me too", "I agree", "Yes i totally agree", "i have no idea", "nope, i don't know", "i am not sure"] {
            assert!(takes_part(&Analysis::of(text)), "{text}");
        }
        for text in ["I love it", "I agree, it opened in 1910", "I know Paris well", "i play tennis too"] {
            assert!(!takes_part(&Analysis::of(text)), "{text}");
        }
    }
}
