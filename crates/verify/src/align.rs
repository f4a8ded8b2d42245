//! Aligning a claim with candidate evidence windows (one to three consecutive sentences of a
//! source) and reading the signals: coverage of the claim's content, and conflicts — a
//! different number or date, a substituted name, a flipped negation, an antonym.

use std::ops::Range;
use std::sync::LazyLock;

use crate::analysis::{Analysis, DateKey, Frame, Name, Num, Role};
use crate::corpus::Corpus;
use crate::lexicon;
use warrant_text::fasthash::FastMap;
use warrant_text::number::BigRational;

/// What a claim asserts beyond its context (the question, when there is one).
#[derive(Debug, Clone, Default)]
pub struct Focus {
    /// Content keys to find.
    pub keys: Vec<String>,
    /// Names to find (all of the claim's).
    pub names: Vec<Name>,
    /// Numbers to find.
    pub nums: Vec<Num>,
    /// Dates to find.
    pub dates: Vec<DateKey>,
    /// All the claim's keys (context for conflict checks).
    pub all_keys: Vec<String>,
    /// Keys the claim negates ("not a suspect" → `suspect`).
    pub negated: Vec<String>,
    /// Who did what, per the claim.
    pub roles: Vec<Role>,
    /// Per name, number and date: whether the question already states it (then it is context,
    /// required to be present but not counted as support).
    pub given_names: Vec<bool>,
    /// See `given_names`.
    pub given_nums: Vec<bool>,
    /// See `given_names`.
    pub given_dates: Vec<bool>,
    /// Per date, the content keys near it.
    pub date_near: Vec<Vec<String>>,
    /// The claim is a bare answer ("Delhi", "1998"): it has no words of its own, so the
    /// question supplies its context.
    pub bare: bool,
    /// The question's keys (empty without a question).
    pub question_keys: Vec<String>,
    /// The claim's key per token (`None` for function words), for word-order checks.
    pub token_keys: Vec<Option<String>>,
    /// The claim's stems (every word, names included), so a window's name the claim writes in
    /// lower case ("based on a story by John lasseter") is not taken for a substitute.
    pub claim_stems: Vec<String>,
    /// Whom a claim that opens with a pronoun ("It was introduced in 1986") is about: the
    /// answer's previous subject, or `Some(None)` when nothing in the answer says.
    pub antecedent: Option<Option<Name>>,
    /// The claim is a relative clause cut from its sentence: with no name before it, nothing
    /// says what it is about, and it conflicts with nothing.
    pub relative: bool,
    /// Keys that state one of [`Focus::keys`] in other words, from WordNet (a synonym, a
    /// narrower term, a derived form: "movie" for "film", "novelist" for "author",
    /// "production" for "produce") → the indices of the keys they state.
    pub related: FastMap<&'static str, Vec<usize>>,
    /// The words of the claim's subject, when plain (see `Analysis::subject`).
    pub subject: Vec<String>,
    /// The claim names a work by a quoted title.
    pub titled: bool,
    /// The keys that have opposites, with them (see [`lexicon::antonyms_of`]).
    pub opposites: Vec<(String, Vec<String>)>,
    /// The keys whose opposites the claim also says ("increases the time …, reduces the
    /// accuracy"): no opposite contradicts them, but one placed in their stead reverses them.
    pub contrasted: Vec<(String, Vec<String>)>,
    /// The claim's terms: its keys, the keys of its names' words, and its numerals.
    pub terms: Vec<String>,
    /// The claim's counts its own list spells out ("three states, Wyoming, Idaho and
    /// Montana"), by the count's byte range: a source listing just those names states it.
    pub spelled_out: Vec<(Range<usize>, Vec<Name>)>,
}

impl Focus {
    /// The focus of `claim` given an optional question: what the claim adds. A claim that adds
    /// nothing (it restates the question) is checked whole.
    pub fn of(claim: &Analysis, question: Option<&Analysis>) -> Self {
        let mut f = Focus {
            all_keys: claim.keys.clone(),
            negated: denied(claim),
            roles: claim.roles.clone(),
            names: claim.names.clone(),
            nums: claim.nums.clone(),
            spelled_out: claim.spelled_out.clone(),
            dates: claim.dates.clone(),
            date_near: claim.date_near.clone(),
            token_keys: claim.token_keys.clone(),
            claim_stems: claim.stems.clone(),
            subject: claim.subject.clone(),
            titled: claim.titled,
            terms: claim
                .terms
                .iter()
                .chain(claim.words.iter().filter(|w| w.bytes().all(|b| b.is_ascii_digit())))
                .cloned()
                .collect(),
            ..Focus::default()
        };
        let finish = |mut f: Focus| {
            f.related = related_keys(claim, &f.keys);
            // Each word's opposites, looked up once per claim rather than once per window; a
            // claim that says both ("private as well as public") contrasts them itself.
            for k in &f.keys {
                let o = lexicon::antonyms_of(k);
                if o.is_empty() {
                    continue;
                }
                let contrasted = f.all_keys.iter().any(|j| o.contains(&j.as_str()));
                let entry = (k.clone(), o.into_iter().map(str::to_string).collect());
                if contrasted { f.contrasted.push(entry) } else { f.opposites.push(entry) }
            }
            f
        };
        match question {
            // Words the question already says are context: support is measured on what the
            // claim adds. Its names, numbers and dates must still all be found together, since
            // the claim asserts they belong together.
            Some(q) => {
                // A bare answer names the answer and nothing else ("Delhi", "Lars Ulrich and
                // James Hetfield"); "Holly Willoughby was in Doctor Who" relates two names.
                f.bare = claim.keys.is_empty() && !claim.words.iter().any(|w| COPULAS.contains(&w.as_str()));
                f.question_keys = q.keys.clone();
                f.keys = claim.keys.iter().filter(|k| !q.has_key(k)).cloned().collect();
                f.given_names = claim.names.iter().map(|n| q.has_name(n)).collect();
                f.given_nums = claim.nums.iter().map(|n| q.has_num(n)).collect();
                f.given_dates = claim.dates.iter().map(|d| q.has_date(d)).collect();
                // A claim that adds nothing of its own ("First for Women was started first")
                // asserts the question's predicate: then all of it counts.
                let adds =
                    !f.keys.is_empty() || [&f.given_names, &f.given_nums, &f.given_dates].iter().any(|g| g.contains(&false));
                if !adds {
                    f.keys = claim.keys.clone();
                    f.given_names.fill(false);
                    f.given_nums.fill(false);
                    f.given_dates.fill(false);
                }
            }
            None => {
                f.keys = claim.keys.clone();
                f.given_names = vec![false; f.names.len()];
                f.given_nums = vec![false; f.nums.len()];
                f.given_dates = vec![false; f.dates.len()];
            }
        }
        finish(f)
    }

    /// Whether a window's role may be about what the claim speaks of: not when it is said of
    /// a noun the claim never uses ("adapted from a film score written by …").
    fn said_of(&self, role: &Role) -> bool {
        role.of_object.is_empty() || role.of_object.iter().any(|s| self.claim_stems.contains(s))
    }

    /// Number of items support is measured on: the keys and the specifics the claim adds.
    /// The neighbourhood a claim mention is compared on: its own, or for a bare answer the
    /// question's keys.
    fn near<'a>(&'a self, own: &'a [String]) -> &'a [String] {
        if self.bare || own.is_empty() { &self.question_keys } else { own }
    }

    /// The names, amounts and dates a window lacks, as the claim writes them, from the window's
    /// [`WindowEval::found`] (keys first, then names, numbers and dates).
    pub(crate) fn lacking(&self, found: &[bool]) -> Vec<String> {
        let specifics = found.get(self.keys.len()..).unwrap_or_default();
        let (names, rest) = specifics.split_at(self.names.len().min(specifics.len()));
        let (nums, dates) = rest.split_at(self.nums.len().min(rest.len()));
        let mut out: Vec<String> = Vec::new();
        out.extend(self.names.iter().zip(names).filter(|(_, f)| !**f).map(|(n, _)| n.words.join(" ")));
        out.extend(self.nums.iter().zip(nums).filter(|(_, f)| !**f).map(|(n, _)| n.surface.clone()));
        out.extend(self.dates.iter().zip(dates).filter(|(_, f)| !**f).map(|(d, _)| d.describe()));
        out
    }

    /// True when the words no window states include two of the claim's content words in a row
    /// (function words between them aside): a detail the sources never give ("compounded
    /// daily", "with daily backups"), not a word said otherwise. `found` is per key, as
    /// [`WindowEval::found`] begins.
    pub(crate) fn adds_a_detail(&self, found: &[bool]) -> bool {
        let missing = |k: &str| self.keys.iter().zip(found).any(|(key, f)| key == k && !*f);
        let mut run = 0;
        for k in self.token_keys.iter().flatten() {
            run = if missing(k) { run + 1 } else { 0 };
            if run >= 2 {
                return true;
            }
        }
        false
    }

    /// True when no window states a word the claim denies ("does not have any chromosomes"):
    /// the denial is the claim's point, and a passage silent on it does not state it.
    pub(crate) fn misses_a_denial(&self, found: &[bool]) -> bool {
        self.keys.iter().zip(found).any(|(k, f)| !*f && self.negated.contains(k))
    }

    pub(crate) fn total(&self) -> usize {
        let new = |g: &[bool]| g.iter().filter(|x| !**x).count();
        self.keys.len() + new(&self.given_names) + new(&self.given_nums) + new(&self.given_dates)
    }
}

/// The keys a claim denies. A word it also affirms is no denial of it when it denies something
/// else ("seats five adults and does not have heated seats" denies heating, not seating); a
/// claim that denies only what it affirms ("a turkey is not a turkey") keeps its denial.
fn denied(claim: &Analysis) -> Vec<String> {
    let only: Vec<String> = claim.negated.iter().filter(|k| !claim.affirmed.contains(k)).cloned().collect();
    if only.is_empty() { claim.negated.clone() } else { only }
}

/// For each key, the keys of the words WordNet relates to the claim's word behind it.
fn related_keys(claim: &Analysis, keys: &[String]) -> FastMap<&'static str, Vec<usize>> {
    let mut out: FastMap<&'static str, Vec<usize>> = FastMap::default();
    // Each key with the stems of the words behind it.
    let stems: Vec<(usize, &String)> = keys
        .iter()
        .enumerate()
        .flat_map(|(i, k)| {
            claim
                .token_keys
                .iter()
                .zip(&claim.stems)
                .filter(move |(t, _)| t.as_deref() == Some(k.as_str()))
                .map(move |(_, s)| (i, s))
        })
        .collect();
    // A broad word states thousands: room for all of them at once, not by doubling.
    out.reserve(stems.iter().map(|(_, s)| crate::wordnet::stating_keys(s).len()).sum());
    for (i, stem) in stems {
        for key in crate::wordnet::stating_keys(stem).iter().filter(|key| **key != keys[i]) {
            let list = out.entry(key.as_str()).or_default();
            if !list.contains(&i) {
                list.push(i);
            }
        }
    }
    out
}

/// Verbs with no content of their own: a claim with one relates its names.
const COPULAS: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "does", "do", "did", "can", "could", "will", "would",
];

/// Why a window contradicts a claim.
#[derive(Debug, Clone, PartialEq)]
pub enum Conflict {
    /// The source states a different number of the same kind.
    Number { claim: String, source: String },
    /// The source states a different date.
    Date,
    /// The source names someone or something else in the same context.
    Substitution { claim: String, source: String },
    /// The source gives another agent for the same act ("directed by Peter Chelsom").
    Agent { verb: String, claim: String, source: String },
    /// One side is negated, the other is not.
    Negation,
    /// The source uses the opposite word.
    Antonym { claim: String, source: String },
}

impl Conflict {
    /// True for conflicts that hold against other support: another agent, amount or date, a
    /// negation or an opposite word (a different name alone may be a second fact).
    pub const fn is_strong(&self) -> bool {
        !matches!(self, Self::Substitution { .. })
    }

    /// A short explanation.
    pub fn describe(&self) -> String {
        match self {
            Self::Number { claim, source } => format!("the source states {source}, not {claim}"),
            Self::Date => "the source states a different date".into(),
            Self::Substitution { claim, source } => format!("the source names {source} where the claim names {claim}"),
            Self::Agent { verb, claim, source } => format!("the source says {verb} by {source}, not {claim}"),
            Self::Negation => "the source states the opposite (negation)".into(),
            Self::Antonym { claim, source } => format!("the source says \"{source}\" where the claim says \"{claim}\""),
        }
    }
}

/// How one window relates to the claim.
#[derive(Debug, Clone)]
pub struct WindowEval {
    /// First and last sentence indices (inclusive).
    pub first: usize,
    /// Last sentence index.
    pub last: usize,
    /// Fraction of the focus found in the window.
    pub support: f64,
    /// Fraction of all the claim's keys found in the window (how much it is about the claim).
    pub context: f64,
    /// Focus names, numbers or dates the window lacks.
    pub missing: usize,
    /// A conflict, if any.
    pub conflict: Option<Conflict>,
    /// Fraction of the question's keys found in the window (1 without a question).
    pub relevance: f64,
    /// The sentences the evaluation rests on when narrower than the window.
    pub quote: Option<(usize, usize)>,
    /// Per focus item (keys, then names, numbers and dates), whether the window states it.
    pub found: Vec<bool>,
    /// The negation or antonym signal that did not make a contradiction: the window denies or
    /// reverses one of the claim's words.
    pub flipped: bool,
    /// A denial of the claim, or an opposite word where the claim's word would sit (beside a
    /// word the claim puts next to it: "reducing project completion times" for "increase
    /// project completion time"), not merely somewhere in the window.
    pub reversed: bool,
    /// [`WindowEval::support`] counting the claim's words the window states in other words
    /// ([`Focus::related`]).
    pub related_support: f64,
    /// The window puts another name near the claim's words (a looser reading than a
    /// contradiction's): it cannot confirm the claim.
    pub doubt: bool,
}

impl WindowEval {
    /// Number of sentences.
    pub fn size(&self) -> usize {
        self.last - self.first + 1
    }
}

/// The analysis of sentences `first..=last`: the sentence's own, or the merged one.
pub(crate) fn window_analysis(corpus: &Corpus, first: usize, last: usize) -> std::borrow::Cow<'_, Analysis> {
    if first == last {
        std::borrow::Cow::Borrowed(&*corpus.sentences()[first].analysis)
    } else {
        std::borrow::Cow::Owned(merged(corpus, first, last))
    }
}

/// The merged analysis of sentences `first..=last`.
/// The merged analyses of the multi-sentence windows one `verify` call has read: the claims of
/// an answer look at many of the same windows. Kept for one call only, so a corpus shared by a
/// batch does not grow with it.
#[derive(Default)]
pub struct Windows {
    merged: std::cell::RefCell<FastMap<(usize, usize), std::rc::Rc<Analysis>>>,
}

impl Windows {
    fn merged(&self, corpus: &Corpus, first: usize, last: usize) -> std::rc::Rc<Analysis> {
        if let Some(a) = self.merged.borrow().get(&(first, last)) {
            return std::rc::Rc::clone(a);
        }
        let a = std::rc::Rc::new(merged(corpus, first, last));
        self.merged.borrow_mut().insert((first, last), std::rc::Rc::clone(&a));
        a
    }
}

fn merged(corpus: &Corpus, first: usize, last: usize) -> Analysis {
    let mut a = Analysis::default();
    for s in &corpus.sentences()[first..=last] {
        let x = &s.analysis;
        for k in &x.keys {
            if !a.keys.contains(k) {
                a.keys.push(k.clone());
            }
        }
        a.terms.extend(x.terms.iter().cloned());
        a.parts.extend(x.parts.iter().cloned());
        a.broader.extend(x.broader.iter().cloned());
        a.negated.extend(x.negated.iter().cloned());
        a.affirmed.extend(x.affirmed.iter().cloned());
        a.roles.extend(x.roles.iter().cloned());
        a.nums.extend(x.nums.iter().cloned());
        a.dates.extend(x.dates.iter().copied());
        a.date_near.extend(x.date_near.iter().cloned());
        a.name_lists.extend(x.name_lists.iter().cloned());
        a.names.extend(x.names.iter().cloned());
        // A separator keeps names from matching across sentence boundaries.
        if !a.words.is_empty() {
            a.words.push("|".into());
            a.stems.push("|".into());
            a.caps.push(false);
            a.token_keys.push(None);
        }
        a.token_keys.extend(x.token_keys.iter().cloned());
        a.words.extend(x.words.iter().cloned());
        a.stems.extend(x.stems.iter().cloned());
        a.caps.extend(x.caps.iter().copied());
        // Sentences joined into a window are read as one clause: the pair says one thing
        // across the boundary (a name in one, what it does in the next). Reading each
        // sentence's own clauses here cost right blocks on summedits and removed no wrong one.
        a.clauses.resize(a.token_keys.len(), 0);
        a.negations += x.negations;
        a.asks |= x.asks;
        a.reports |= x.reports;
        a.relative_time |= x.relative_time;
    }
    a
}

/// Which sentences of `first..=last` hold each found specific (name, number or date).
fn holders(corpus: &Corpus, first: usize, last: usize, focus: &Focus, found: &Found) -> Vec<Vec<usize>> {
    let sentences = &corpus.sentences()[first..=last];
    let held = |f: &dyn Fn(&Analysis) -> bool| {
        sentences.iter().enumerate().filter(|(_, s)| f(&s.analysis)).map(|(i, _)| i).collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    for (n, f) in focus.names.iter().zip(&found.names) {
        out.push(if *f { held(&|a: &Analysis| a.has_name(n)) } else { Vec::new() });
    }
    for (n, f) in focus.nums.iter().zip(&found.nums) {
        out.push(if *f { held(&|a: &Analysis| a.has_num(n)) } else { Vec::new() });
    }
    for (d, f) in focus.dates.iter().zip(&found.dates) {
        out.push(if *f { held(&|a: &Analysis| a.has_date(d)) } else { Vec::new() });
    }
    out
}

/// True when the claim's names found in `first..=last` are linked across sentences: each later
/// sentence names the previous one's subject (its first name), or refers back to it ("He …")
/// and the claim names that subject.
fn linked(corpus: &Corpus, first: usize, last: usize, focus: &Focus, found: &Found) -> bool {
    let sentences = &corpus.sentences()[first..=last];
    for k in 1..sentences.len() {
        let prev = &sentences[k - 1].analysis;
        let next = &sentences[k].analysis;
        let Some(subject) = prev.names.first() else { continue };
        // Goes on about the same thing: names nothing, renames the subject, or opens with a
        // name the previous sentence mentions (a bridge: "… the band Halestorm. Halestorm is …").
        // A bridge ("… the band Halestorm. Halestorm is …") continues only for a claim about
        // the bridged thing itself.
        let bridge = next.names.first().filter(|n| prev.names.iter().any(|m| m.same_as(n)));
        let about_bridge = bridge.is_some_and(|b| focus.bare || focus.names.iter().any(|n| n.same_as(b)));
        let continues = next.names.is_empty()
            || next.names.iter().any(|n| n.same_as(subject))
            || about_bridge
            || next.opening_noun.as_ref().is_some_and(|n| prev.stems.contains(n));
        // "He …" refers to the previous sentence's subject or its last-named one, or to the
        // document's topic; a claim about someone else is not what it says. A bare answer has
        // no subject of its own.
        // The last-named one only when no other person-like name (two words or more) stands
        // between: "named after Otto Stern and Max Volmer. He …" could be either.
        let people = prev.names.iter().filter(|n| n.words.len() >= 2).count();
        let last = if people >= 2 { subject } else { prev.names.last().unwrap_or(subject) };
        let topic = corpus.topic(sentences[k].doc);
        let same = |n: &Name, m: &Name| n.same_as(m);
        let claim_subject = focus.bare
            || focus
                .names
                .iter()
                .zip(&found.names)
                .any(|(n, f)| *f && (same(n, subject) || same(n, last) || topic.is_some_and(|t| same(n, t))));
        if !(continues || next.refers_back && claim_subject) {
            return false;
        }
    }
    true
}

/// Which of the claim's specifics a window states.
struct Found {
    names: Vec<bool>,
    nums: Vec<bool>,
    dates: Vec<bool>,
}

/// What a window states of a claim, measured once and read by every check of a conflict.
struct Measures<'a> {
    w: &'a Analysis,
    focus: &'a Focus,
    question: Option<&'a Analysis>,
    found_names: Vec<bool>,
    found_dates: Vec<bool>,
    names_missing: Vec<&'a Name>,
    nums_missing: Vec<&'a Num>,
    dates_missing: Vec<&'a DateKey>,
    keys_in: usize,
    covered: usize,
    support: f64,
    context: f64,
    relevance: f64,
    missing_specifics: usize,
    total: f64,
    keys_missing: usize,
    anchored_on_subject: bool,
    stated_but_one: bool,
    /// A question in the source asks, and a report of others' claims relays: neither states
    /// anything to conflict with.
    asks: bool,
    other_time: bool,
    other_instance: bool,
    other_subject: bool,
    more_differs: bool,
    same_thing: bool,
}

/// Nearly all of the rest: three quarters of it, or all its words but one and most of it.
fn nearly(rest: f64, keys_missing: usize) -> bool {
    rest >= REST || (keys_missing <= 1 && rest >= REST_SHORT)
}

/// A number right after the claim's first name labels it ("Boeing 737"): part of the name.
fn labels_first(focus: &Focus, n: &Num) -> bool {
    focus.names.first().is_some_and(|m| labels(n, m))
}
/// Evaluates one window.
pub fn evaluate(
    corpus: &Corpus,
    windows: &Windows,
    first: usize,
    last: usize,
    focus: &Focus,
    question: Option<&Analysis>,
) -> WindowEval {
    // One sentence is read as it is; several are merged into one analysis.
    let joined;
    let w: &Analysis = if first == last {
        &corpus.sentences()[first].analysis
    } else {
        joined = windows.merged(corpus, first, last);
        &joined
    };
    let key_found: Vec<bool> = focus.keys.iter().map(|k| w.has_key(k)).collect();
    // "She heads the NLP section": a window opening with a pronoun speaks of the one the
    // sentences before it name (or the document's topic); those names count as stated.
    let referents = referents(corpus, first);
    // A window that names nothing but the claim's names, and does not refer back to someone
    // else, may speak of its document's recurring subjects without naming them ("your home"
    // in a call with Mr. Johnson): those count as stated.
    let implicit = referents.iter().all(|r| focus.names.iter().any(|n| variant(n, r)))
        && w.names.iter().all(|m| focus.names.iter().any(|n| variant(n, m)));
    let mut implied = false;
    let found = Found {
        names: focus
            .names
            .iter()
            .map(|n| {
                let stated =
                    w.has_name(n) || by_surname(n, &w.names, corpus) || referents.iter().any(|r| r.same_as(n) || variant(n, r));
                let recurring = || implicit && corpus.recurring(doc_of(corpus, first)).any(|r| r.same_as(n) || variant(n, r));
                if !stated && recurring() {
                    implied = true;
                    return true;
                }
                stated
            })
            .collect(),
        nums: focus
            .nums
            .iter()
            .map(|n| w.has_num(n) || focus.spelled_out.iter().any(|(r, l)| *r == n.range && lists(w, l)))
            .collect(),
        dates: focus.dates.iter().map(|d| w.has_date(d)).collect(),
    };
    // Specifics found in different sentences are tied together only by a link a reader can
    // follow (see `linked`); otherwise only those in the sentence holding the most count.
    // Sentences a reader cannot link (see `linked`) do not add up: the window is read as its
    // sentence holding the most of the claim's specifics.
    let found_items: Vec<bool> = key_found.iter().chain(&found.names).chain(&found.nums).chain(&found.dates).copied().collect();
    if last > first && !linked(corpus, first, last, focus, &found) {
        let held = holders(corpus, first, last, focus, &found);
        let best = (0..=last - first)
            .max_by_key(|i| (held.iter().filter(|h| h.contains(i)).count(), std::cmp::Reverse(*i)))
            .unwrap_or(0);
        let mut single = evaluate(corpus, windows, first + best, first + best, focus, question);
        single.first = first;
        single.last = last;
        single.quote = Some((first + best, first + best));
        return single;
    }
    let m = Measures::of(w, focus, question, &key_found, found);
    // The window is about its document's topic, as its own subject: it names the topic first
    // and none of its sentences refers back to someone else ("His books have sold …, King
    // says" beside "His rival Stephen King"). Only a claim with an unresolved pronoun asks.
    let about_topic = matches!(focus.antecedent, Some(None))
        && !corpus.sentences()[first..=last].iter().any(|s| s.analysis.refers_back)
        && corpus.topic(doc_of(corpus, first)).is_some_and(|t| w.names.first().is_some_and(|m| m.same_as(t)));
    let (mut conflict, flipped_any) = m.conflict(&referents, about_topic);
    // A block needs the source to state the claim's subject: a window that only implies a name
    // and conflicts with the claim neither contradicts nor supports it.
    let unsure = implied && conflict.is_some();
    if unsure {
        conflict = None;
    }
    // The question sets the topic: a document that never names what the question names may
    // speak of another work of the claim's title (a film called "Square One" for an answer
    // about an album of that name).
    if conflict.is_some()
        && focus.titled
        && question.is_some_and(|q| !q.names.is_empty() && !document_names_any(corpus, first, &q.names))
    {
        conflict = None;
    }
    let Measures { names_missing, nums_missing, dates_missing, other_instance, support, context, relevance, .. } = &m;
    let flipped = flipped_any || antonym(focus, w, false).is_some();
    let reversed = flipped_any || antonym(focus, w, true).is_some();
    WindowEval {
        first,
        last,
        support: if *other_instance { 0.0 } else { *support },
        context: *context,
        missing: names_missing.len() + nums_missing.len() + dates_missing.len(),
        relevance: *relevance,
        quote: None,
        found: if *other_instance { vec![false; found_items.len()] } else { found_items },
        flipped,
        reversed,
        related_support: m.related_support(&key_found),
        doubt: unsure || (conflict.is_none() && m.doubt()),
        conflict,
    }
}

impl Measures<'_> {
    /// The window's conflict with the claim, if any, after the checks that rule one out (another
    /// subject, instance or referent); and whether a negation was seen.
    fn conflict(&self, referents: &[&Name], about_topic: bool) -> (Option<Conflict>, bool) {
        let Measures { w, focus, asks, anchored_on_subject, covered, total, keys_missing, other_subject, other_instance, .. } =
            *self;
        let mut conflict = self.agent_conflict();
        if conflict.is_none() {
            conflict = self.number_conflict();
        }
        if conflict.is_none() {
            conflict = self.date_conflict();
        }
        if conflict.is_none() {
            conflict = self.name_conflict();
        }
        let mut flipped_any = false;
        if conflict.is_none() && !focus.bare && !asks && self.missing_specifics == 0 && self.support >= REST {
            conflict = slot(focus, &self.found_names, w, self.question, true);
        }
        // A denial or an opposite word is said of something: of the claim's subject only when
        // the window names it ("non-condensable gases" says nothing of the vapor).
        let subject_named = focus.subject.is_empty() || focus.subject.iter().any(|s| w.terms.contains(s));
        if conflict.is_none() && subject_named {
            (conflict, flipped_any) = self.negation_conflict();
        }
        if conflict.is_none() && !asks && anchored_on_subject && subject_named {
            // The opposite word stands in for one of the claim's: the rest must be there.
            conflict = antonym(focus, w, false)
                .filter(|_| nearly(covered as f64 / (total - 1.0).max(1.0), keys_missing.saturating_sub(1)));
        }
        // A claim about "it" or "he" conflicts only with a window about the same one: its
        // antecedent named there, or a window that itself speaks of "it". Without an antecedent in
        // the answer or the question, the pronoun speaks of what the sources are about: a window
        // that also refers back and names no one ("his books have sold 275 million copies" for
        // "his books had sold 895 million"), or one about its document's topic ("The
        // discography of Nickelback … consists of nine studio albums" for "they have released
        // 5 studio albums").
        let same_subject = match &focus.antecedent {
            None => true,
            Some(None) => !focus.relative && (w.refers_back && w.names.is_empty() || about_topic),
            Some(Some(n)) => w.has_name(n) || w.refers_back || referents.iter().any(|r| r.same_as(n)),
        };
        if !same_subject {
            conflict = None;
        }
        // An amount or date is the claim's subject's only in a window about it: a window that
        // names other things and not the claim's subject (nor refers back to it) gives theirs
        // ("Albums such as Tubular Bells … include fewer than four tracks" is not about "The
        // Album").
        if matches!(conflict, Some(Conflict::Number { .. } | Conflict::Date))
            && let Some(subject) = focus.names.first()
            && !self.found_names.first().copied().unwrap_or(true)
            && !w.names.is_empty()
            && !w.names.iter().any(|m| focus.names.iter().any(|n| n.same_as(m) || variant(n, m)))
            && !referents.iter().any(|r| r.same_as(subject))
        {
            conflict = None;
        }
        // A name the claim itself writes (perhaps in lower case) stands in for nothing.
        if let Some(Conflict::Substitution { source, .. } | Conflict::Agent { source, .. }) = &conflict {
            let words: Vec<String> = warrant_text::words::words(source).map(|(_, x)| lexicon::stem(&x.to_lowercase())).collect();
            // Unless the claim names it as a name too (a reversed role: "Harold defeated William").
            let named =
                words.iter().filter(|x| !lexicon::is_stopword(x)).all(|x| focus.names.iter().any(|n| n.stems.contains(x)));
            if !named && words.iter().all(|x| focus.claim_stems.contains(x)) {
                conflict = None;
            }
        }
        // A name in place of the claim's subject is a conflict only where the window is anchored
        // to what the claim speaks of: another of its names, amounts or dates, or a name the
        // question asks about, or a slot the source says only one can fill. "Tom Reyes never took
        // a poetry class" says nothing of Mara Quell.
        let of_subject =
            |claim: &str| focus.names.iter().any(|n| titled(n) == claim && n.stems.iter().any(|s| focus.subject.contains(s)));
        if let Some(Conflict::Substitution { claim, source }) = &conflict
            && !focus.bare
            && of_subject(claim)
        {
            // "available only to Enterprise customers" excludes every other subject by itself.
            let exclusive = w.names.iter().any(|m| titled(m) == *source && m.frame.exclusive);
            let anchored = exclusive
                || self.found_names.iter().any(|f| *f)
                || self.found_dates.iter().any(|f| *f)
                || self.nums_missing.len() < focus.nums.len()
                || self.question.is_some_and(|q| q.names.iter().any(|n| w.has_name(n)));
            if !anchored {
                conflict = None;
            }
        }
        // About another subject, only a name standing in for the claim's is a conflict.
        if other_subject && !matches!(conflict, Some(Conflict::Substitution { .. } | Conflict::Agent { .. })) {
            conflict = None;
        }
        // Nor does it support the claim (an "8" in "8 minutes" is not the claim's "Borealis 8").
        if other_instance {
            conflict = None;
        }
        (conflict, flipped_any)
    }

    /// Another name where the claim's stands, by the looser reading (near the same words, in
    /// no checked slot): not a contradiction, but the window cannot confirm the claim either.
    fn doubt(&self) -> bool {
        let Measures { w, focus, question, other_instance, .. } = *self;
        !focus.bare
            && !other_instance
            && (self.names_missing.iter().any(|n| {
                let near = focus.near(&n.near);
                !w.names.iter().any(|m| variant(n, m))
                    && w.names.iter().any(|m| {
                        !focus.names.iter().any(|f| f.stems == m.stems || variant(f, m))
                            && question.is_none_or(|q| !q.has_name(m))
                            && shares_enough(near, &m.near)
                    })
            }) || slot(focus, &self.found_names, w, question, false).is_some())
    }

    /// The support counting the claim's words the window states in other words.
    fn related_support(&self, key_found: &[bool]) -> f64 {
        let Measures { w, focus, keys_in, covered, support, other_instance, .. } = *self;
        if other_instance {
            return 0.0;
        }
        let mut by_relation = key_found.to_vec();
        for t in w.terms.iter().chain(&w.broader) {
            if let Some(idx) = focus.related.get(t.as_str()) {
                for &i in idx {
                    by_relation[i] = true;
                }
            }
        }
        let gained = by_relation.iter().filter(|f| **f).count() - keys_in;
        ((covered + gained) as f64 / focus.total().max(1) as f64).max(support)
    }
}

impl<'a> Measures<'a> {
    /// Measures window `w` against `focus`, given which of its keys and specifics it states.
    fn of(w: &'a Analysis, focus: &'a Focus, question: Option<&'a Analysis>, key_found: &[bool], found: Found) -> Self {
        let keys_in = key_found.iter().filter(|f| **f).count();
        let (found_names, found_nums, found_dates) = (found.names, found.nums, found.dates);
        let names_missing: Vec<&Name> = focus.names.iter().zip(&found_names).filter(|(_, f)| !**f).map(|(n, _)| n).collect();
        let nums_missing: Vec<&Num> = focus.nums.iter().zip(&found_nums).filter(|(_, f)| !**f).map(|(n, _)| n).collect();
        let dates_missing: Vec<&DateKey> = focus.dates.iter().zip(&found_dates).filter(|(_, f)| !**f).map(|(n, _)| n).collect();
        let new_found = |found: &[bool], given: &[bool]| found.iter().zip(given).filter(|(f, g)| **f && !**g).count();
        let covered = keys_in
            + new_found(&found_names, &focus.given_names)
            + new_found(&found_nums, &focus.given_nums)
            + new_found(&found_dates, &focus.given_dates);
        let support = covered as f64 / focus.total().max(1) as f64;
        // With fewer than two words, the claim's context is its support.
        let context = if focus.all_keys.len() < 2 {
            support
        } else {
            focus.all_keys.iter().filter(|k| w.has_key(k)).count() as f64 / focus.all_keys.len() as f64
        };
        let relevance = question.map_or(1.0, |q| {
            if q.keys.is_empty() { 1.0 } else { q.keys.iter().filter(|k| w.has_key(k)).count() as f64 / q.keys.len() as f64 }
        });
        // A conflict is the source stating the claim with one value changed: everything else the
        // claim says is there. `rest` is the support over all but the one missing specific (the
        // slot in question); `stated_but_one` holds when that specific is the only one missing.
        // A number that labels one of the claim's names ("Boeing 737") is part of that name.
        let missing_specifics =
            names_missing.len() + nums_missing.iter().filter(|n| !labels_first(focus, n)).count() + dates_missing.len();
        let total = focus.total().max(1) as f64;
        let keys_missing = focus.keys.len() - keys_in;
        // Support over what the claim adds besides the slot; when it adds nothing else (the
        // question says the rest), how much of all its words the window has.
        let rest = if missing_specifics != 1 {
            support
        } else if total > 1.0 {
            covered as f64 / (total - 1.0)
        } else {
            context
        };
        // Its subject (the first name) is there: a qualifier missing elsewhere ("in the Solar
        // System") does not make the window about something else.
        let subject_found = found_names.first().copied().unwrap_or(true);
        let only_names_missing = nums_missing.iter().all(|n| labels_first(focus, n)) && dates_missing.is_empty();
        let anchored_on_subject = missing_specifics == 0 || (subject_found && only_names_missing && missing_specifics == 1);
        let stated_but_one = focus.bare || (missing_specifics == 1 && nearly(rest, keys_missing));
        // A claim dated otherwise than the window speaks of another time: its amounts are not
        // compared ("$31,000 in 2030" against "$14,600 for 2024").
        let window_years = crate::question::years(w);
        let other_time = focus.dates.iter().zip(&found_dates).any(|(d, f)| {
            !f && (w.dates.iter().any(|x| d.conflicts(x))
                || d.year.is_some_and(|y| !window_years.is_empty() && !window_years.contains(&y)))
        });
        // The claim's subject is an instance in a series ("In Cinder 42, …", "The Elara 77 plan
        // …": a name and its label number in the claim's first words). A window without that name
        // under that label speaks of another instance: nothing in it conflicts with the claim.
        let claim_label = focus
            .names
            .first()
            .filter(|n| n.tokens.start <= 2)
            .and_then(|n| focus.nums.iter().find(|x| labels(x, n)).map(|x| (n, &x.written)));
        let other_instance = !focus.bare && claim_label.is_some_and(|(n, l)| label_of(&w.names, &w.nums, n) != Some(l));
        // A window that names none of the claim's names and puts another name in their place
        // speaks of another subject ("In Borealis 17, audit logs expire after 33 minutes" for "In
        // Cinder 42, audit logs expire after 51 minutes"): its amounts and dates are not compared,
        // and a name that differs together with an amount or date is two differences, not one
        // substitution. A bare number right after the claim's first name labels what the claim
        // is about ("Cinder 42", "Boeing 737"): a window with the name under another label
        // ("Cinder 273") speaks of another subject too. (After a later name it is the value
        // asserted: "requires Python 3.8".)
        let other_subject = !focus.bare
            && (!found_names.is_empty()
                && found_names.iter().zip(&focus.given_names).all(|(f, g)| !f && !g)
                && w.names.iter().any(|m| {
                    !focus.names.iter().any(|n| variant(n, m))
                        && focus.names.iter().any(|n| shares_enough(focus.near(&n.near), &m.near))
                })
                || nums_missing.iter().any(|n| labels_first(focus, n)));
        let more_differs = nums_missing.iter().any(|n| !labels_first(focus, n)) || !dates_missing.is_empty();
        // An amount or date is compared only in a window about the same thing: all of the claim's
        // words but one are there, or at least its first two, which name what it is about ("API
        // keys expire after 11 minutes" is not about "audit logs expire after 51 minutes"; "a pen
        // can be kept … for up to 28 days" is about "opened pens should be thrown away after 7
        // days").
        let same_thing = focus.all_keys.iter().filter(|k| !w.has_key(k)).count() <= 1
            || focus.token_keys.iter().flatten().take(2).all(|k| w.has_key(k));
        Measures {
            w,
            focus,
            question,
            found_names,
            found_dates,
            names_missing,
            nums_missing,
            dates_missing,
            keys_in,
            covered,
            support,
            context,
            relevance,
            missing_specifics,
            total,
            keys_missing,
            anchored_on_subject,
            stated_but_one,
            asks: w.asks || w.reports,
            other_time,
            other_instance,
            other_subject,
            more_differs,
            same_thing,
        }
    }

    /// Another agent of the claim's action ("X wrote it" where the claim says Y did).
    fn agent_conflict(&self) -> Option<Conflict> {
        let Measures { w, focus, asks, missing_specifics, support, stated_but_one, .. } = *self;
        let found_names = &self.found_names;
        let mut conflict = None;
        for mine in focus.roles.iter().filter(|_| !asks) {
            // "a film score written by X" inside "adapted from …" is said of the score: it
            // names no agent for the claim's subject unless the claim speaks of the score.
            let theirs: Vec<&Role> = w.roles.iter().filter(|r| r.verb == mine.verb && focus.said_of(r)).collect();
            let same = |r: &&Role| {
                r.agent.last() == mine.agent.last()
                    || attached(&focus.claim_stems, &mine.agent, &r.agent)
                    || crate::analysis::has_words_near(&r.agent, &mine.agent)
                    || crate::analysis::has_words_near(&mine.agent, &r.agent)
                    || words_alike(&r.agent, &mine.agent)
            };
            let agent_found = focus.names.iter().zip(found_names).any(|(n, f)| *f && n.stems == mine.agent);
            let anchored = if agent_found { missing_specifics == 0 && support >= REST } else { stated_but_one };
            if let Some(other) = theirs.iter().find(|r| !same(r))
                && !theirs.iter().any(same)
                && anchored
            {
                conflict = Some(Conflict::Agent {
                    verb: other.verb_text.clone(),
                    claim: mine.agent_text.clone(),
                    source: other.agent_text.clone(),
                });
                break;
            }
        }
        conflict
    }

    /// One amount in the slot where the claim states another.
    fn number_conflict(&self) -> Option<Conflict> {
        let Measures { w, focus, asks, stated_but_one, other_time, other_subject, same_thing, .. } = *self;
        let conflict: Option<Conflict> = None;
        for n in self
            .nums_missing
            .iter()
            .filter(|_| conflict.is_none() && !asks && stated_but_one && !other_time && !other_subject && same_thing)
        {
            let near = focus.near(&n.near);
            // One value in the slot: a window listing several ("1935 … 1937") may not be exhaustive.
            // What a bare number counts is its slot: "five video albums" is not in the slot of
            // "5 studio albums", "nine studio albums" is.
            let candidates: Vec<&Num> =
                w.nums.iter().filter(|m| n.differs_from(m) && n.counts_same_as(m) && shares(near, &m.near)).collect();
            // Every value of that kind in the window (dates too, for a year), not only those near.
            let year_like = |x: &BigRational| {
                x.is_integer() && *x >= BigRational::from_integer(1000.into()) && *x <= BigRational::from_integer(2100.into())
            };
            let years: Vec<BigRational> = if year_like(&n.value) && n.dimension == warrant_text::quantity::Dimension::Number {
                w.dates.iter().filter_map(|d| d.year).map(|y| BigRational::from_integer(y.into())).collect()
            } else {
                Vec::new()
            };
            let mut values: Vec<&BigRational> = w
                .nums
                .iter()
                .filter(|m| (n.differs_from(m) || n.same_amount(m)) && n.counts_same_as(m))
                .map(|m| &m.value)
                .chain(candidates.iter().map(|m| &m.value))
                .chain(years.iter())
                .collect();
            values.sort();
            values.dedup();
            if let Some(m) = candidates.first().filter(|_| values.len() == 1) {
                return Some(Conflict::Number { claim: n.surface.clone(), source: m.surface.clone() });
            }
        }
        conflict
    }

    /// One date in the slot where the claim states another.
    fn date_conflict(&self) -> Option<Conflict> {
        let Measures { w, focus, asks, stated_but_one, other_subject, same_thing, .. } = *self;
        let found_dates = &self.found_dates;
        let conflict: Option<Conflict> = None;
        if conflict.is_none() && !asks && !w.relative_time && stated_but_one && !other_subject && same_thing {
            // One date in the slot, as for amounts.
            // A window that states several dates may be listing some of many ("titles in 1998,
            // 2002 and 2004"): only a window with one date in it conflicts on dates.
            // A bare year counts ("after the 1930 FA Cup Final, … 10 May 2017" states two).
            let one_date = w.dates.iter().all(|x| *x == w.dates[0])
                && w.dates.first().is_none_or(|d| crate::question::years(w).iter().all(|y| d.year.is_none_or(|dy| dy == *y)));
            let dated = |d: &DateKey, near: &[String]| {
                one_date && w.dates.iter().zip(&w.date_near).any(|(x, xn)| d.conflicts(x) && shares(near, xn))
            };
            let conflicting = focus
                .dates
                .iter()
                .zip(&focus.date_near)
                .zip(found_dates)
                .find(|((d, dn), f)| !**f && dated(d, focus.near(dn)))
                .map(|((d, _), _)| d);
            if let Some(d) = conflicting
                && in_order(d, &w.dates[0], &w.words, focus)
            {
                return Some(Conflict::Date);
            }
        }
        conflict
    }

    /// Another name standing where the claim's name stands.
    fn name_conflict(&self) -> Option<Conflict> {
        let Measures { w, focus, question, asks, stated_but_one, other_subject, more_differs, .. } = *self;
        let conflict: Option<Conflict> = None;
        if conflict.is_none() && !asks && stated_but_one && !(other_subject && more_differs) {
            // Another name standing where the claim's name stands ("born in Warsaw" for "born in
            // Paris"), while no form of the claim's name is there.
            for n in &self.names_missing {
                let near = focus.near(&n.near);
                if w.names.iter().any(|m| variant(n, m)) {
                    continue;
                }
                for m in &w.names {
                    // The agent of something else ("a film score written by Lena Morris") stands
                    // in no slot of the claim's.
                    let elsewhere = w.roles.iter().any(|r| r.agent == m.stems && !focus.said_of(r));
                    let substitute = !elsewhere
                        && !focus.names.iter().any(|f| f.stems == m.stems || variant(f, m))
                        && question.is_none_or(|q| !q.has_name(m))
                        && shares_enough(near, &m.near)
                        && fills_same_slot(n, m);
                    if substitute {
                        return Some(Conflict::Substitution { claim: titled(n), source: titled(m) });
                    }
                }
            }
        }
        conflict
    }

    /// A negation scoped over the claim's own words, on one side only; and whether any was
    /// seen (a contradiction or not).
    fn negation_conflict(&self) -> (Option<Conflict>, bool) {
        let Measures { w, focus, asks, anchored_on_subject, support, .. } = *self;
        let (nums_missing, dates_missing, names_missing) = (&self.nums_missing, &self.dates_missing, &self.names_missing);
        let mut conflict = None;
        let flipped_any;
        {
            // A negation that scopes over the claim's own words, on one side only: the window
            // denies a word the claim affirms (and nowhere affirms it), or affirms one the claim
            // denies.
            let flipped = if focus.negated.is_empty() {
                // A name counts as one of the claim's words ("is not Confidential Information").
                let denied_names = focus
                    .names
                    .iter()
                    .filter(|n| {
                        let keys: Vec<String> = n.words.iter().map(|x| lexicon::key(x)).collect();
                        keys.iter().any(|k| w.negated.contains(k) && !w.affirmed.contains(k))
                    })
                    .count();
                denied_names + focus.keys.iter().filter(|k| w.negated.contains(k) && !w.affirmed.contains(k)).count()
            } else {
                // The affirming word must be said together with the claim's other words: a
                // line about something else affirms nothing of the claim's subject.
                focus
                    .negated
                    .iter()
                    .filter(|k| {
                        w.affirmed.contains(k)
                            && !w.negated.contains(k)
                            && (focus.terms.iter().all(|t| t == *k) || w.said_with(k, &focus.terms))
                    })
                    .count()
            };
            // "There are no monthly maintenance fees" denies "charges a $5 monthly maintenance
            // fee": an amount of a denied thing is denied with it.
            let denied_amounts = nums_missing.iter().all(|n| n.near.iter().any(|k| w.negated.contains(k)));
            let anchored = anchored_on_subject || (dates_missing.is_empty() && names_missing.is_empty() && denied_amounts);
            flipped_any = flipped > 0;
            if flipped > 0 && !asks && anchored && (support >= REST || (flipped >= 2 && support >= REST_SHORT)) {
                conflict = Some(Conflict::Negation);
            }
        }
        (conflict, flipped_any)
    }
}

/// True when the document holding sentence `at` names one of `names` somewhere.
fn document_names_any(corpus: &Corpus, at: usize, names: &[Name]) -> bool {
    let sentences = corpus.sentences();
    let Some(doc) = sentences.get(at).map(|s| s.doc) else { return false };
    let start = sentences[..at].iter().rposition(|s| s.doc != doc).map_or(0, |i| i + 1);
    sentences[start..].iter().take_while(|s| s.doc == doc).any(|s| names.iter().any(|n| s.analysis.has_name(n)))
}

/// The names a window opening with a pronoun ("She …", "It …") may refer to: the first names
/// of the two sentences before it, and its document's topic. Empty otherwise.
fn doc_of(corpus: &Corpus, sentence: usize) -> usize {
    corpus.sentences().get(sentence).map_or(usize::MAX, |s| s.doc)
}

fn referents(corpus: &Corpus, first: usize) -> Vec<&Name> {
    let sentences = corpus.sentences();
    let Some(s) = sentences.get(first) else { return Vec::new() };
    if !s.analysis.refers_back || !s.analysis.names.is_empty() {
        return Vec::new();
    }
    // The nearest subject: the first name of the nearest sentence before that has one, else
    // the document's topic.
    for back in 1..=2 {
        let Some(p) = first.checked_sub(back).and_then(|i| sentences.get(i)).filter(|p| p.doc == s.doc) else { break };
        if let Some(n) = p.analysis.names.first() {
            return vec![n];
        }
    }
    corpus.topic(s.doc).into_iter().collect()
}

/// A claim name the window states, but where the claim's words around it sit around another
/// name instead ("best known for his opera Der Mond" against "best known for his cantata
/// Carmina Burana"; the window mentions Der Mond elsewhere). `strict`: the other name must fill
/// the same slot by its frame (a contradiction); else (a doubt) a question that asks fixes the
/// slot, and without one the other name must be the object of the same preposition ("a number
/// one hit in the United States" puts no rival beside "Heartbreak Hotel was a number one hit").
fn slot(focus: &Focus, found: &[bool], w: &Analysis, question: Option<&Analysis>, strict: bool) -> Option<Conflict> {
    let overlap = |a: &[String], b: &[String]| a.iter().filter(|k| b.contains(k)).count();
    let asked = question.is_some_and(crate::question::asks);
    for (n, f) in focus.names.iter().zip(found) {
        if !*f || n.near.is_empty() {
            continue;
        }
        let own = w.names.iter().filter(|m| variant(n, m)).map(|m| overlap(&n.near, &m.near)).max().unwrap_or(0);
        // A name right beside the claim's own name in the window is a co-argument ("Pride and
        // Prejudice was written by Jane Austen"), not a substitute for it.
        let beside = |m: &Name| {
            w.names.iter().filter(|v| variant(n, v) || focus.names.iter().any(|x| joined(focus, n, x) && variant(x, v))).any(
                |v| {
                    m.tokens.start.saturating_sub(v.tokens.end) <= BESIDE && v.tokens.start.saturating_sub(m.tokens.end) <= BESIDE
                },
            )
        };
        let other = w
            .names
            .iter()
            .filter(|m| {
                !focus.names.iter().any(|x| variant(x, m))
                    && !spelled_alike(n, m)
                    && question.is_none_or(|q| !q.has_name(m))
                    && !beside(m)
                    && !named_by_head(focus, m)
                    && (!strict || fills_same_slot(n, m))
                    && (strict || asked || preposition(&n.frame) == preposition(&m.frame))
            })
            .map(|m| (overlap(&n.near, &m.near), m))
            .filter(|(k, _)| *k > own)
            .max_by_key(|(k, _)| *k);
        if let Some((_, m)) = other {
            return Some(Conflict::Substitution { claim: titled(n), source: titled(m) });
        }
    }
    None
}

/// True when the claim speaks of a window's name by its head noun ("the championships" for "the
/// FIS Nordic World Ski Championships", "the university" for "Stanford University"): the name is
/// what the claim is about, not another name in the place of one of its own. The head of "X of
/// Y" is X ("Band of Brothers" is a band, not brothers).
/// Not when the claim sets the noun beside a name of its own ("the club Arsenal" against
/// "Chelsea Football Club" is another club).
fn named_by_head(focus: &Focus, m: &Name) -> bool {
    let head = m.words.iter().position(|w| w == "of").unwrap_or(m.words.len()).checked_sub(1);
    let Some(head) = head.and_then(|i| m.words.get(i)).filter(|_| m.words.len() >= 2).map(|w| lexicon::key(w)) else {
        return false;
    };
    // The claim's own use of the noun, outside its names ("Millikin University" does not call
    // "Northwestern University" by its head).
    let in_name = |i: usize| focus.names.iter().any(|n| n.tokens.contains(&i));
    let apposed = |i: usize| focus.names.iter().any(|n| n.tokens.start == i + 1 || n.tokens.end == i);
    let mut uses =
        focus.token_keys.iter().enumerate().filter(|(i, k)| k.as_deref() == Some(head.as_str()) && !in_name(*i)).peekable();
    focus.all_keys.contains(&head) && uses.peek().is_some() && uses.all(|(i, _)| !apposed(i))
}

/// The preposition a name is the object of ("hit in the United States" → `in`), if any. A
/// frame keeps function words as written and other words as keys ("before" → its key).
fn preposition(f: &Frame) -> Option<&str> {
    static PREPOSITIONS: LazyLock<Vec<(&str, String)>> = LazyLock::new(|| {
        [
            "in", "on", "at", "from", "by", "of", "to", "for", "with", "into", "near", "during", "after", "before", "since",
            "until", "under", "over", "across", "through", "between", "within", "around", "like",
        ]
        .into_iter()
        .map(|p| (p, lexicon::key(p)))
        .collect()
    });
    let word = match f.before[0].as_deref() {
        Some("the" | "a") => f.before[1].as_deref(),
        w => w,
    }?;
    PREPOSITIONS.iter().find(|(p, k)| *p == word || *k == word).map(|(p, _)| *p)
}

/// True when the claim writes two names as one title ("Pride and Prejudice"): one function
/// word between them.
fn joined(focus: &Focus, a: &Name, b: &Name) -> bool {
    let between = if a.tokens.end + 1 == b.tokens.start {
        a.tokens.end
    } else if b.tokens.end + 1 == a.tokens.start {
        b.tokens.end
    } else {
        return false;
    };
    focus.token_keys.get(between).is_some_and(Option::is_none)
}

/// Share of the rest of the claim a window must state for a changed value in it to be a
/// contradiction (the same subject and attribute, another value).
const REST: f64 = 0.75;
/// … or at least this share when all its words but one are there.
const REST_SHORT: f64 = 0.6;

/// Words between two names that still read as one clause about both.
const BESIDE: usize = 4;

/// True when a text's names call the claim's two-word name by its last word alone ("Presley
/// was born in Tupelo" for "Elvis Presley", "Sotomayor was nominated" for "Sonia Sotomayor"),
/// and either the sources never write its first word (they have no full name to give) and the
/// text gives no other full name ending in it ("Lisa Marie Presley"), or the sources write
/// that full name and no other full name ending in the same word ("Juan Sotomayor"; a title
/// before the surname, "Judge Sotomayor", names no other person).
fn by_surname(name: &Name, names: &[Name], corpus: &Corpus) -> bool {
    // A person's name: two words ("Council of Europe" is not "Europe" by its last word).
    let ([first, last], [first_stem, _]) = (name.words.as_slice(), name.stems.as_slice()) else { return false };
    if !names.iter().any(|m| m.words.len() == 1 && m.words[0] == *last) {
        return false;
    }
    let unwritten = !corpus.written_lower(first_stem) && !corpus.written_as_name(first_stem);
    if unwritten && !names.iter().any(|m| m.words.len() > 1 && m.words.last() == Some(last) && m.words.first() != Some(first)) {
        return true;
    }
    let full = corpus.full_names_ending_in(last);
    full.contains(&name.words)
        && full.iter().all(|words| words.iter().all(|w| name.words.contains(w) || is_title(w.trim_end_matches('.'))))
}

/// True for a title written before a surname, in full or abbreviated ("judge", "sen").
fn is_title(w: &str) -> bool {
    TITLES.contains(&w) || crate::analysis::TITLE_ABBREVIATIONS.contains(&w)
}

/// Titles written in full before a surname ("Judge Sotomayor"); their abbreviations are
/// [`crate::analysis::TITLE_ABBREVIATIONS`].
const TITLES: &[&str] = &[
    "miss",
    "sir",
    "dame",
    "lady",
    "lord",
    "judge",
    "justice",
    "president",
    "senator",
    "governor",
    "mayor",
    "general",
    "captain",
    "professor",
    "prince",
    "princess",
    "king",
    "queen",
    "coach",
    "saint",
];

/// True when one name is a shorter form of the other ("Nadal", "Rafael Nadal"): all the
/// words of one are words of the other. "Apache License" and "MIT License" are not variants.
fn variant(a: &Name, b: &Name) -> bool {
    a.stems.iter().all(|w| b.stems.contains(w))
        || b.stems.iter().all(|w| a.stems.contains(w))
        || a.spells(b)
        || b.spells(a)
        || crate::alias::related(&a.aliases, &b.aliases)
}

/// True when `num` is a bare number right after `name` ("Cinder 42"): a label, part of the name.
fn labels(num: &Num, name: &Name) -> bool {
    let after = num.range.start > name.range.end && num.range.start - name.range.end <= 1;
    // A year before a name labels an edition ("the 1932 Australian Grand Prix").
    let year_before = name.range.start > num.range.end
        && name.range.start - num.range.end <= 1
        && num.written.is_integer()
        && (1000..=2100).contains(&num.written.to_integer().try_into().unwrap_or(0i64));
    num.dimension == warrant_text::quantity::Dimension::Number && !num.ordinal && (after || year_before)
}

/// The label a text (its names and numbers) gives `name`, if any: the label of the name as
/// written, else of a longer form of it ("the FIS Nordic World Ski Championships 2011" labels
/// "the Nordic World Ski Championships").
fn label_of<'a>(names: &[Name], nums: &'a [Num], name: &Name) -> Option<&'a BigRational> {
    let label = |m: &Name| nums.iter().find(|n| labels(n, m)).map(|n| &n.written);
    names.iter().filter(|m| m.stems == name.stems).find_map(label).or_else(|| {
        names
            .iter()
            .filter(|m| m.stems.len() > name.stems.len() && name.stems.iter().all(|s| m.stems.contains(s)))
            .find_map(label)
    })
}

/// True when another name's neighbourhood matches the claim name's closely enough to stand in
/// its place: two shared keys, or the one key the claim has ("born in Paris" / "born in
/// Warsaw"; one shared "ship" does not put "Orders" where "the UK" stood).
fn shares_enough(claim: &[String], other: &[String]) -> bool {
    claim.iter().filter(|k| other.contains(k)).count() >= claim.len().min(2)
}

/// True when a window's name fills the slot the claim's name fills: the words around them
/// agree (two of: the word before, the one before it, the word after — "born in Paris" and
/// "born in Warsaw"). A name that qualifies a noun ("a Dutch amateur astronomer", "a Frisian
/// amateur astronomer") is an attribute, several of which may hold at once; it conflicts only
/// with another known form of a different group (a demonym of another country).
fn fills_same_slot(claim: &Name, other: &Name) -> bool {
    if spelled_alike(claim, other) {
        return false;
    }
    // A bare answer ("Sydney.") fills the slot the question asks about — with a name, not a
    // nationality ("American" is no substitute for "Institute of Muslim Minority Affairs").
    if claim.frame == Frame::default() {
        return !demonym(other) || demonym(claim);
    }
    // A role or description ("served as a U.S. Representative", "known as Justice") is one of
    // several a subject can hold: another one is not a conflict.
    let role = |f: &Frame| {
        f.before[0].as_deref() == Some("as")
            || (matches!(f.before[0].as_deref(), Some("a" | "the")) && f.before[1].as_deref() == Some("as"))
    };
    if role(&claim.frame) && !claim.frame.exclusive {
        return false;
    }
    // "available only to Enterprise customers" excludes every other name from the slot; a
    // name with a word of the claim's and another ("Sam Wilson", "Sam Phillips") is another
    // one of its kind.
    let kin = claim.words.len() >= 2 && other.words.len() >= 2 && claim.stems.iter().any(|w| other.stems.contains(w));
    let needed = if other.frame.exclusive || kin { 1 } else { 2 };
    if claim.frame.shared(&other.frame) < needed {
        return false;
    }
    let attribute = |n: &Name| n.frame.qualifies && demonym(n);
    if attribute(claim) || attribute(other) {
        return !claim.aliases.is_empty() && !other.aliases.is_empty();
    }
    true
}

/// Two spellings of one name ("Sam Philips", "Sam Phillips"; "Königberg", "Königsberg"): as
/// many words, each the same or, from five letters on, one edit apart (two from nine) with
/// the same first two letters ("Russia" is not "Prussia", nor "Austria" "Australia"). A
/// misspelt name is not stated by the source, but it does not name someone else either.
fn spelled_alike(a: &Name, b: &Name) -> bool {
    words_alike(&a.words, &b.words)
}

/// True when the window lists exactly these names, in any order ("Wyoming, Montana, and
/// Idaho" for the claim's "three states, Wyoming, Idaho and Montana").
fn lists(w: &Analysis, names: &[Name]) -> bool {
    w.name_lists.iter().any(|run| run.len() == names.len() && names.iter().all(|n| run.iter().any(|m| variant(n, m))))
}

/// [`spelled_alike`] for word lists (names' words, or an agent's stems).
fn words_alike(a: &[String], b: &[String]) -> bool {
    a.len() == b.len()
        && a != b
        && a.iter().zip(b).all(|(x, y)| {
            let shortest = x.chars().count().min(y.chars().count());
            let allowed = match shortest {
                0..=4 => 0,
                5..=8 => 1,
                _ => 2,
            };
            x == y || (x.chars().take(2).eq(y.chars().take(2)) && strsim::levenshtein(x, y) <= allowed)
        })
}

/// A one-word name that reads as a nationality or origin ("Dutch", "Frisian", "Korean").
fn demonym(n: &Name) -> bool {
    let [w] = n.words.as_slice() else { return false };
    n.aliases.iter().any(|k| k.starts_with('~'))
        || ["ian", "ean", "ish", "ese", "ic", "ch"].iter().any(|s| w.len() > s.len() + 2 && w.ends_with(s))
}

/// True when two neighbourhoods share a key.
fn shares(a: &[String], b: &[String]) -> bool {
    a.iter().any(|k| b.contains(k))
}

/// An antonym of a claim word that the window uses instead of it, or that sits where the
/// claim's word sits: next to a word the claim puts beside its own ("closed on Mondays" in
/// "open Tuesday to Sunday. It is closed on Mondays" against "open on Mondays"; "the boiling
/// point is lower" against "the boiling point of water is higher").
///
/// `placed`: only an opposite placed where the claim's word sits counts, also when the window
/// lacks the claim's word (an opposite elsewhere in the window is not enough).
fn antonym(focus: &Focus, w: &Analysis, placed: bool) -> Option<Conflict> {
    let positions = |k: &str| -> Vec<usize> {
        w.token_keys.iter().enumerate().filter(|(_, t)| t.as_deref() == Some(k)).map(|(i, _)| i).collect()
    };
    let contrasted = if placed { focus.contrasted.as_slice() } else { &[] };
    for (k, opposites) in focus.opposites.iter().chain(contrasted) {
        let opposed = |j: &str| opposites.iter().any(|o| o == j);
        // Parts of compounds count ("second-largest").
        let Some(opposite) = w.keys.iter().chain(&w.terms).find(|j| opposed(j)) else { continue };
        let conflict = || Some(Conflict::Antonym { claim: k.clone(), source: opposite.clone() });
        if !w.has_key(k) && !placed {
            return conflict();
        }
        // Placed only: the opposite right beside the word (as "reducing project completion").
        let (reach, window_reach) = if placed { (PLACED_REACH, PLACED_REACH) } else { (ANTONYM_REACH, ANTONYM_REACH + 2) };
        let (mine, theirs) = (positions(k), positions(opposite));
        let nearest = |q: usize, ps: &[usize]| ps.iter().map(|p| p.abs_diff(q)).min().unwrap_or(usize::MAX);
        // The window says both, side by side ("heating and cooling", "buy or sell"): it
        // contrasts nothing with the claim.
        if mine.iter().any(|&m| nearest(m, &theirs) <= 2) {
            continue;
        }
        // Each occurrence of the word in the claim, read through the nearest of the claim's
        // words beside it (the one after first on a tie: "open on Mondays") that the window
        // places near either word.
        for (p, _) in focus.token_keys.iter().enumerate().filter(|(_, t)| t.as_deref() == Some(k.as_str())) {
            let lo = p.saturating_sub(reach);
            let hi = (p + reach + 1).min(focus.token_keys.len());
            let mut beside: Vec<(usize, bool, &String)> = (lo..hi)
                .filter_map(|i| focus.token_keys[i].as_ref().map(|a| (i.abs_diff(p), i < p, a)))
                .filter(|(_, _, a)| *a != k && !opposed(a))
                .collect();
            beside.sort();
            for (_, _, a) in beside {
                let placed: Vec<(usize, usize)> = positions(a)
                    .into_iter()
                    .map(|q| (nearest(q, &mine), nearest(q, &theirs)))
                    .filter(|(d_mine, d_theirs)| (*d_mine).min(*d_theirs) <= window_reach)
                    .collect();
                if placed.is_empty() {
                    continue;
                }
                if placed.iter().all(|(d_mine, d_theirs)| d_theirs < d_mine) {
                    return conflict();
                }
                break;
            }
        }
    }
    None
}

/// A window dating the first or the last of a repeated event ("Arsenal last won the title
/// in 2004") conflicts only with a claim dated before the first or after the last: another
/// occurrence may fall between. Without such a word, any other date conflicts.
fn in_order(claim: &DateKey, window: &DateKey, window_words: &[String], focus: &Focus) -> bool {
    let says = |words: &[&str]| window_words.iter().any(|w| words.contains(&w.as_str()));
    let claim_says = |words: &[&str]| focus.claim_stems.iter().any(|s| words.iter().any(|w| lexicon::stem(w) == *s));
    let (first, last) = (["first", "earliest"], ["last", "latest", "recent", "again"]);
    let ordered = |before: bool| match (claim.year, window.year) {
        (Some(c), Some(w)) => (c < w) == before && c != w,
        _ => false,
    };
    if says(&first) && !claim_says(&first) {
        return ordered(true);
    }
    if says(&last) && !claim_says(&last) {
        return ordered(false);
    }
    true
}

/// The claim writes `part` as what `head` belongs to ("the Speaker of the House of
/// Commons"): a source whose agent is `part` names the same body, not another.
fn attached(stems: &[String], head: &[String], part: &[String]) -> bool {
    !head.is_empty()
        && !part.is_empty()
        && (0..stems.len()).any(|i| {
            if !stems[i..].starts_with(head) {
                return false;
            }
            let mut j = i + head.len();
            if stems.get(j).map(String::as_str) != Some("of") {
                return false;
            }
            j += 1;
            if stems.get(j).map(String::as_str) == Some("the") {
                j += 1;
            }
            stems.get(j..).is_some_and(|rest| rest.starts_with(part))
        })
}

/// How many words apart a word and the word it is said of may stand.
const ANTONYM_REACH: usize = 4;
/// … and, for an opposite the window puts in the claim word's place, how near both must be.
const PLACED_REACH: usize = 2;

pub(crate) fn titled(n: &Name) -> String {
    titled_words(&n.words)
}

fn titled_words(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(text: &str) -> Vec<String> {
        Analysis::of(text).stems
    }

    #[test]
    fn an_agent_the_claim_attaches_is_the_same_body() {
        let claim = stems("He is appointed by the Speaker of the House of Commons");
        let speaker = stems("Speaker");
        assert!(attached(&claim, &speaker, &stems("House of Commons")));
        assert!(!attached(&claim, &speaker, &stems("House of Lords")));
        assert!(!attached(&stems("Harold defeated William"), &stems("Harold"), &stems("William")));
    }

    #[test]
    fn an_opposite_in_the_claim_words_place_reverses_it_one_elsewhere_only_flips() {
        let placed = |claim: &str, window: &str| {
            let claim = Analysis::of(claim);
            let focus = Focus::of(&claim, None);
            let w = Analysis::of(window);
            (antonym(&focus, &w, false).is_some(), antonym(&focus, &w, true).is_some())
        };
        let claim = "The products aim to increase project completion time and save 200 hours a month";
        assert_eq!(placed(claim, "CollaborateX streamlines teamwork, reducing project completion times by 30%."), (true, true));
        // "last" is about the day, not the place he finished in.
        let claim = "He finished first in the 6th Ibero-American championship";
        assert_eq!(
            placed(claim, "On the last day of the 6th Ibero-American Chess Championship the lead changed."),
            (true, false)
        );
        // A claim that says both words: neither contradicts it, but their places can swap.
        let window = "It reduces the time managers spend on rotas. It increases the accuracy of reports.";
        assert_eq!(
            placed("It increases the time managers spend on rotas and reduces the accuracy of reports", window),
            (false, true)
        );
        assert_eq!(
            placed("It reduces the time managers spend on rotas and increases the accuracy of reports", window),
            (false, false)
        );
        // Multi-byte text around the words moves no byte offset into a character.
        assert_eq!(
            placed("Ça augmente la durée — increase project completion time", "«reducing project completion times»"),
            (true, true)
        );
    }

    #[test]
    fn the_first_or_last_of_a_repeated_event_bounds_its_dates() {
        let year = |y| DateKey { year: Some(y), month: None, day: None };
        let claim = Analysis::of("Arsenal won the league title in 1989.");
        let focus = Focus::of(&claim, None);
        let last = Analysis::of("Arsenal last won the league title in 2004.").words;
        assert!(!in_order(&year(1989), &year(2004), &last, &focus), "1989 may be an earlier win");
        assert!(in_order(&year(2010), &year(2004), &last, &focus), "a win after the last one conflicts");
        let first = Analysis::of("Arsenal won their first league title in 1931.").words;
        assert!(in_order(&year(1920), &year(1931), &first, &focus));
        assert!(!in_order(&year(1989), &year(1931), &first, &focus));
        let plain = Analysis::of("Arsenal won the league title in 2004.").words;
        assert!(in_order(&year(1989), &year(2004), &plain, &focus));
    }
}
