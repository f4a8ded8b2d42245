//! What a span of text says, in comparable form: content keys, quantities, dates, names and
//! negations. Claims and source sentences are analysed the same way.

use std::ops::Range;

use warrant_text::date::{DateKind, DateMention, find_dates};
use warrant_text::number::BigRational;
use warrant_text::quantity::{Dimension, Quantity, find_all_quantities};
use warrant_text::words::words;

use crate::lexicon;

/// A numeric mention, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct Num {
    /// What it measures (`Number`, `Money(USD)`, `Duration`, …).
    pub dimension: Dimension,
    /// Value in the dimension's canonical unit (seconds, metres, …), or as written.
    pub value: BigRational,
    /// The number as written, before unit conversion (`90` in "90 minutes").
    pub written: BigRational,
    /// Key of the content word counted, for unit-less numbers ("40 drug stores" → `drug`).
    pub noun: Option<String>,
    /// Keys of the content words right after a unit-less number ("drug", "store"): what it
    /// counts, to tell "5 studio albums" from "five video albums".
    pub counted: Vec<String>,
    /// An ordinal ("fourth", "4th"): compares only with ordinals.
    pub ordinal: bool,
    /// The mention as written ("$15", "one hour").
    pub surface: String,
    /// Content keys within a few words of it (see [`Name::near`]).
    pub near: Vec<String>,
    /// Byte range in the analysed text.
    pub range: Range<usize>,
    /// What the amount is said to be: exactly it, at least it, at most it, or about it.
    pub bound: Bound,
}

/// How a number is stated ("up to 10 kg", "more than 40", "about 300").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bound {
    /// As written.
    #[default]
    Exact,
    /// "at least", "more than", "over", "or more".
    AtLeast,
    /// "up to", "at most", "less than", "must not exceed", "within".
    AtMost,
    /// "about", "approximately", "around", "nearly".
    About,
}

/// How a claim's amount relates to a source's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// The source states it ("over 100" against "150").
    Same,
    /// The source states a value it cannot have ("up to 10 kg" against "not exceed 8 kg").
    Conflict,
    /// Neither ("5 kg" against "up to 8 kg").
    Unknown,
}

impl Num {
    /// True when `other` states the same amount: equal canonical values of one dimension (or
    /// within each other's bounds), or, when either side is a bare number, equal written values
    /// ("nine" = "nine weeks"); a decade without its century is the same decade (see
    /// [`Num::same_decade`]).
    pub fn same_amount(&self, other: &Num) -> bool {
        if self.ordinal != other.ordinal || self.is_time() != other.is_time() {
            return false;
        }
        if let Some(same) = self.same_decade(other) {
            return same;
        }
        if self.dimension == other.dimension {
            return self.agreement(other) == Agreement::Same;
        }
        // A bare number may be an amount whose unit went unwritten ("5" for "5 km"), but not
        // one said with an article: "a year" is no "one" ("a more comprehensive one").
        let by_article = |n: &Num| n.surface.starts_with("a ") || n.surface.starts_with("an ");
        matches!((&self.dimension, &other.dimension), (Dimension::Number, _) | (_, Dimension::Number))
            && self.written == other.written
            && !by_article(self)
            && !by_article(other)
    }

    /// A decade as written: its last two digits, and whether the century is written ("1970s"
    /// is `(70, true)`, "70s" is `(70, false)`). "1900s" is a century and "00s" is left alone;
    /// the amount must be exact ("over 60s" is seconds).
    fn decade(&self) -> Option<(u32, bool)> {
        let digits = self.surface.strip_suffix('s')?;
        let whole = digits.len() == 4;
        let value: u32 = digits.parse().ok().filter(|_| (whole || digits.len() == 2) && digits.ends_with('0'))?;
        (!value.is_multiple_of(100) && self.bound == Bound::Exact).then_some((value % 100, whole))
    }

    /// Whether two decades are the same one, when both are decades and one leaves its century
    /// unwritten: "the early 70s" is "the early 1970s" (and may be the 2070s, which a source
    /// would not leave unwritten).
    fn same_decade(&self, other: &Num) -> Option<bool> {
        let ((a, a_whole), (b, b_whole)) = (self.decade()?, other.decade()?);
        (!(a_whole && b_whole)).then_some(a == b)
    }

    /// A time of day ([`times_of_day`]).
    fn is_time(&self) -> bool {
        self.noun.as_deref() == Some(TIME_OF_DAY)
    }

    /// True unless both are bare numbers of different things ("5 studio albums" is not "five
    /// video albums"; "40 drug stores" is "40 stores").
    pub fn counts_same_as(&self, other: &Num) -> bool {
        match (self.counted.first(), other.counted.first()) {
            (Some(a), Some(b)) if a != b => other.counted.contains(a) || self.counted.contains(b),
            _ => true,
        }
    }

    /// True when `other` counts the same thing with a value this one cannot have: same unit
    /// dimension, or bare numbers of the same noun, and the values (with their bounds) disagree.
    pub fn differs_from(&self, other: &Num) -> bool {
        if self.ordinal != other.ordinal {
            return false;
        }
        let comparable = match (&self.dimension, &other.dimension) {
            (Dimension::Number, Dimension::Number) => self.noun.is_some() && self.noun == other.noun,
            (a, b) => a == b,
        };
        comparable && self.same_decade(other).map_or_else(|| self.agreement(other) == Agreement::Conflict, |same| !same)
    }

    /// How this (a claim's) amount relates to `other` (a source's), values in one unit.
    pub fn agreement(&self, other: &Num) -> Agreement {
        use std::cmp::Ordering::*;
        let (c, s) = (&self.value, &other.value);
        let order = c.cmp(s);
        match (self.bound, other.bound) {
            (Bound::Exact, Bound::Exact) => {
                if order == Equal {
                    Agreement::Same
                } else {
                    Agreement::Conflict
                }
            }
            (Bound::About, _) | (_, Bound::About) => {
                if near(c, s) {
                    Agreement::Same
                } else {
                    Agreement::Conflict
                }
            }
            (Bound::AtLeast, Bound::Exact) => {
                if order != Greater {
                    Agreement::Same
                } else {
                    Agreement::Conflict
                }
            }
            (Bound::AtMost, Bound::Exact) => {
                if order != Less {
                    Agreement::Same
                } else {
                    Agreement::Conflict
                }
            }
            (Bound::Exact, Bound::AtMost) => {
                if order == Greater {
                    Agreement::Conflict
                } else {
                    Agreement::Unknown
                }
            }
            (Bound::Exact, Bound::AtLeast) => {
                if order == Less {
                    Agreement::Conflict
                } else {
                    Agreement::Unknown
                }
            }
            (a, b) if a == b => {
                if order == Equal {
                    Agreement::Same
                } else {
                    Agreement::Conflict
                }
            }
            _ => Agreement::Unknown,
        }
    }
}

/// Two values within a tenth of the larger ("about 300" and "310").
fn near(a: &BigRational, b: &BigRational) -> bool {
    let zero = BigRational::from_integer(0.into());
    let abs = |x: &BigRational| if *x < zero { -x.clone() } else { x.clone() };
    let diff = abs(&(a - b));
    let big = std::cmp::max(abs(a), abs(b));
    diff * BigRational::from_integer(10.into()) <= big
}

/// Words before a number that bound it, longest first; each with the number of words it spans.
const BOUND_BEFORE: &[(&[&str], Bound)] = &[
    (&["must", "not", "exceed"], Bound::AtMost),
    (&["no", "more", "than"], Bound::AtMost),
    (&["not", "more", "than"], Bound::AtMost),
    (&["no", "less", "than"], Bound::AtLeast),
    (&["a", "maximum", "of"], Bound::AtMost),
    (&["a", "minimum", "of"], Bound::AtLeast),
    (&["not", "exceed"], Bound::AtMost),
    (&["up", "to"], Bound::AtMost),
    (&["at", "most"], Bound::AtMost),
    (&["less", "than"], Bound::AtMost),
    (&["fewer", "than"], Bound::AtMost),
    (&["maximum", "of"], Bound::AtMost),
    (&["at", "least"], Bound::AtLeast),
    (&["more", "than"], Bound::AtLeast),
    (&["greater", "than"], Bound::AtLeast),
    (&["upwards", "of"], Bound::AtLeast),
    (&["minimum", "of"], Bound::AtLeast),
    (&["close", "to"], Bound::About),
    (&["an", "estimated"], Bound::About),
    (&["under"], Bound::AtMost),
    (&["below"], Bound::AtMost),
    (&["within"], Bound::AtMost),
    (&["maximum"], Bound::AtMost),
    (&["max"], Bound::AtMost),
    (&["over"], Bound::AtLeast),
    (&["above"], Bound::AtLeast),
    (&["exceeding"], Bound::AtLeast),
    (&["minimum"], Bound::AtLeast),
    (&["min"], Bound::AtLeast),
    (&["about"], Bound::About),
    (&["approximately"], Bound::About),
    (&["approx"], Bound::About),
    (&["around"], Bound::About),
    (&["roughly"], Bound::About),
    (&["nearly"], Bound::About),
    (&["almost"], Bound::About),
    (&["some"], Bound::About),
    (&["circa"], Bound::About),
    (&["estimated"], Bound::About),
];

/// Words after a number that bound it ("10 or more").
const BOUND_AFTER: &[(&[&str], Bound)] = &[
    (&["or", "more"], Bound::AtLeast),
    (&["or", "later"], Bound::AtLeast),
    (&["or", "higher"], Bound::AtLeast),
    (&["or", "above"], Bound::AtLeast),
    (&["or", "less"], Bound::AtMost),
    (&["or", "fewer"], Bound::AtMost),
    (&["or", "earlier"], Bound::AtMost),
    (&["or", "so"], Bound::About),
];

/// The bound stated around the number at tokens `first..end`, and the token range of its words.
fn bound_of(words: &[String], first: usize, end: usize) -> (Bound, Option<Range<usize>>) {
    for (pattern, bound) in BOUND_BEFORE {
        let n = pattern.len();
        if first >= n && words[first - n..first].iter().zip(pattern.iter()).all(|(w, p)| w == p) {
            return (*bound, Some(first - n..first));
        }
    }
    for (pattern, bound) in BOUND_AFTER {
        let n = pattern.len();
        if end + n <= words.len() && words[end..end + n].iter().zip(pattern.iter()).all(|(w, p)| w == p) {
            return (*bound, Some(end..end + n));
        }
    }
    (Bound::Exact, None)
}

/// A date mention: what it pins down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateKey {
    /// Year, if stated.
    pub year: Option<i32>,
    /// Month, if stated.
    pub month: Option<u8>,
    /// Day, if stated.
    pub day: Option<u8>,
}

impl DateKey {
    /// The date as far as it is stated: `2009`, `2009-05`, `2009-05-26`, `05-26`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(y) = self.year {
            parts.push(y.to_string());
        }
        if let Some(m) = self.month {
            parts.push(format!("{m:02}"));
        }
        if let Some(d) = self.day {
            parts.push(format!("{d:02}"));
        }
        parts.join("-")
    }

    /// True when the two dates cannot be the same day (a field both state differs).
    pub fn conflicts(&self, other: &DateKey) -> bool {
        let differ = |a: Option<i64>, b: Option<i64>| matches!((a, b), (Some(x), Some(y)) if x != y);
        differ(self.year.map(i64::from), other.year.map(i64::from))
            || differ(self.month.map(i64::from), other.month.map(i64::from))
            || differ(self.day.map(i64::from), other.day.map(i64::from))
    }

    /// True when every field this date states agrees with `other`.
    pub fn within(&self, other: &DateKey) -> bool {
        !self.conflicts(other) && (self.year.is_none() || other.year.is_some()) && (self.month.is_none() || other.month.is_some())
    }
}

/// An agent of a verb.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// Key of the verb.
    pub verb: String,
    /// The verb as written.
    pub verb_text: String,
    /// Stems of the agent's name.
    pub agent: Vec<String>,
    /// The agent as written.
    pub agent_text: String,
    /// For "a score written by X" inside a prepositional phrase ("adapted from a film score
    /// written by …"), the stems of the noun the participle is said of; empty otherwise.
    pub of_object: Vec<String>,
}

/// A proper name: a run of capitalised words, normalised to lower case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// Lower-case words.
    pub words: Vec<String>,
    /// Their stems, for matching ("Junipers" meets "Juniper").
    pub stems: Vec<String>,
    /// Byte range in the analysed text.
    pub range: Range<usize>,
    /// Word range in the analysed text.
    pub tokens: Range<usize>,
    /// Content keys within a few words of it: what the name is doing there. Two names stand in
    /// for each other only when their neighbourhoods share a key ("born in Paris" / "born in
    /// Warsaw").
    pub near: Vec<String>,
    /// Alias keys ([`crate::alias::keys`]): "US" and "United States" share one.
    pub aliases: Vec<String>,
    /// The slot it fills: the two words before it and the word after (content words as keys),
    /// so "born in Paris" and "born in Warsaw" are seen to fill one slot.
    pub frame: Frame,
}

/// The words around a name ([`Name::frame`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The word just before, and the one before it.
    pub before: [Option<String>; 2],
    /// The word just after.
    pub after: Option<String>,
    /// A lower-case content word follows ("a Dutch amateur astronomer"): the name qualifies a
    /// noun, as a demonym or brand does.
    pub qualifies: bool,
    /// "only" or "exclusively" stands just before it: the slot holds this name and no other.
    pub exclusive: bool,
}

impl Frame {
    /// How many of the three positions two frames share; the word just before or just after
    /// must be one of them.
    pub fn shared(&self, other: &Frame) -> usize {
        let eq = |a: &Option<String>, b: &Option<String>| a.is_some() && a == b;
        let near = usize::from(eq(&self.before[0], &other.before[0])) + usize::from(eq(&self.after, &other.after));
        if near == 0 { 0 } else { near + usize::from(eq(&self.before[1], &other.before[1])) }
    }
}

impl Name {
    /// True when the two are one name written shorter or longer ("Badr Hari", "Hari"): every
    /// word of one is a word of the other. Sharing a last word is not enough ("Memphis
    /// International Airport", "Southwest Georgia Regional Airport").
    pub fn same_as(&self, other: &Name) -> bool {
        let (short, long) = if self.stems.len() <= other.stems.len() { (self, other) } else { (other, self) };
        !short.stems.is_empty() && short.stems.iter().all(|w| long.stems.contains(w)) || self.spells(other) || other.spells(self)
    }

    /// True when this name writes `other`'s words in order with a hyphen where `other` has a
    /// space, or the reverse ("Abong-Mbang" and "Abong Mbang" are one town).
    pub fn spells(&self, other: &Name) -> bool {
        let hyphenated = |n: &Name| n.stems.iter().any(|s| s.contains('-'));
        if !hyphenated(self) && !hyphenated(other) {
            return false;
        }
        // Each part with whether it opens and closes a word: a match starts and ends at whole
        // words, so "Jean-Pierre Rampal" does not spell "Pierre Rampal".
        let parts = |n: &Name| -> Vec<(String, bool, bool)> {
            n.words
                .iter()
                .flat_map(|w| {
                    let ps: Vec<&str> = w.split('-').filter(|p| !p.is_empty()).collect();
                    let last = ps.len().saturating_sub(1);
                    ps.into_iter().enumerate().map(move |(i, p)| (lexicon::stem(p), i == 0, i == last))
                })
                .collect()
        };
        let (mine, theirs) = (parts(self), parts(other));
        theirs.len() >= 2
            && mine.windows(theirs.len()).any(|w| w[0].1 && w[w.len() - 1].2 && w.iter().zip(&theirs).all(|(a, b)| a.0 == b.0))
    }

    /// The name as one lower-case string.
    pub fn joined(&self) -> String {
        self.words.join(" ")
    }
}

/// The comparable content of a text span.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Content keys (stemmed, synonym-folded), in order of first appearance, deduplicated.
    pub keys: Vec<String>,
    /// Broader keys the text entails ("novelist" → "author"), not already in `keys`.
    pub broader: Vec<String>,
    /// Retrieval terms: the keys plus the keys of name words, deduplicated.
    pub terms: Vec<String>,
    /// Keys of the parts of compound words ("action-adventure" → action, adventure).
    pub parts: Vec<String>,
    /// Numbers with units, normalised.
    pub nums: Vec<Num>,
    /// Dates.
    pub dates: Vec<DateKey>,
    /// Proper names.
    pub names: Vec<Name>,
    /// Lower-case words (possessives stripped).
    pub words: Vec<String>,
    /// Stems of `words`, for name lookups.
    pub stems: Vec<String>,
    /// Whether each word is capitalised (a name word matches only a capitalised word first).
    pub caps: Vec<bool>,
    /// Number of negation cues.
    pub negations: usize,
    /// Keys in the scope of a negation (up to three words after the cue, within the clause).
    pub negated: Vec<String>,
    /// Keys that also occur outside any negation: a window that says "sound travels at 343
    /// m/s" and "sound cannot travel through a vacuum" still affirms "travel".
    pub affirmed: Vec<String>,
    /// The text starts with a pronoun or determiner that refers back ("He", "It", "This").
    pub refers_back: bool,
    /// The text is a question ("Was Edith Wilson America's first female president?"): it
    /// states nothing.
    pub asks: bool,
    /// The text reports what others claim ("posts have declared John Hanson, not Barack
    /// Obama, …", "the myth that …"): it does not itself assert it.
    pub reports: bool,
    /// The text dates things relative to when it was written ("this year", "last month"):
    /// its absolute dates are not the only ones it speaks of.
    pub relative_time: bool,
    /// The stem of the noun after an opening "The"/"This" ("The studio …" → `studio`): a
    /// definite reference to something the previous sentence named.
    pub opening_noun: Option<String>,
    /// The keys of the words of the text's subject, where its shape makes it plain ("In 2004,
    /// the vapor from the still is condensed" → `vapor`; see [`subject_words`]).
    pub subject: Vec<String>,
    /// The text names a work by a title in quotes ("'Square One' was released …"): works
    /// share titles more often than people and places share names.
    pub titled: bool,
    /// A lone capitalised word that opens the text ("Annual", "Canberra"): a name only if the
    /// sources never write it in lower case (see [`Analysis::promote_opener`]).
    pub opener: Option<Name>,
    /// Who did what, from "directed by Peter Chelsom" and "Lucy Gordon directed".
    pub roles: Vec<Role>,
    /// Runs of names listed one after another ("Wyoming, Montana, and Idaho").
    pub name_lists: Vec<Vec<Name>>,
    /// Counts the list right after them spells out, name by name ("three states, Wyoming,
    /// Idaho and Montana"): each count's byte range and its list.
    pub spelled_out: Vec<(Range<usize>, Vec<Name>)>,
    /// Per word, its content key (`None` for function words).
    pub token_keys: Vec<Option<String>>,
    /// Per word, its byte offset in the analysed text.
    pub token_starts: Vec<usize>,
    /// Per word, the index of its clause: a line break or a `;` between two words starts a new
    /// one (a scraped page's lines are separate statements even where no sentence boundary was
    /// found; a period may end an abbreviation, so it does not).
    pub clauses: Vec<u32>,
    /// Per date, the content keys near it (see [`Name::near`]).
    pub date_near: Vec<Vec<String>>,
}

/// How many words either side count as a name's neighbourhood.
const NEAR: usize = 6;
/// … and as an amount's or a date's (they sit further from their verb: "can be kept at room
/// temperature for up to 28 days").
const NEAR_AMOUNT: usize = 10;

/// Words after which an ordinal word is an ordinal ("the second song", not "per second").
const ORDINAL_DETERMINERS: &[&str] = &["the", "its", "his", "her", "their", "our", "my", "your", "a"];

const NAME_STOP: &[&str] = &[
    "The", "A", "An", "This", "That", "These", "Those", "It", "Its", "He", "She", "They", "We", "You", "I", "His", "Her",
    "Their", "Our", "Your", "In", "On", "At", "For", "To", "From", "By", "With", "Of", "And", "But", "Or", "If", "When", "While",
    "Both", "Yes", "No", "Not", "Only", "All", "Some", "Many", "Most", "There", "Here", "What", "Which", "Who", "How", "Why",
    "Where", "As", "After", "Before", "Since", "Are", "Is", "Was", "Were", "Do", "Does", "Did", "Can", "Could", "Has", "Have",
    "Had", "Will", "Would", "Should", "So", "Also", "However", "Then", "Although", "Because", "Whom", "Whose", "Although",
    "Though", "Each", "Every", "Neither", "Either", "Both",
];

/// A reply's "Ok," "Oh!" or "Mmmm," set off by punctuation: a sound, not a name.
const SOUNDS: &[&str] = &[
    "ok", "okay", "oh", "ooh", "ah", "aw", "yeah", "yea", "yep", "yup", "nah", "nope", "hmm", "wow", "hi", "hello", "hey", "um",
    "uh", "lol", "haha", "well", "sure", "cool", "alright",
];

/// True when a text writes three words or more and every word of two letters or more in
/// capitals only.
fn shouted(text: &str) -> bool {
    let mut words = text.split(|c: char| !c.is_alphabetic()).filter(|w| w.chars().nth(1).is_some()).peekable();
    words.peek().is_some() && text.split_whitespace().count() >= 3 && words.all(|w| !w.chars().any(char::is_lowercase))
}

/// The runs of two names or more listed one after another ("Wyoming, Montana, and Idaho"),
/// as ranges of indices into `names`.
fn name_runs(text: &str, names: &[Name]) -> Vec<Range<usize>> {
    let separator = |gap: &str| matches!(gap.trim(), "," | "and" | ", and" | "or" | ", or" | "&");
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=names.len() {
        let joined = i < names.len() && text.get(names[i - 1].range.end..names[i].range.start).is_some_and(separator);
        if !joined {
            if i - start >= 2 {
                out.push(start..i);
            }
            start = i;
        }
    }
    out
}

/// The counts that the list right after them spells out name by name ("three states,
/// Wyoming, Idaho and Montana", "two sons: Abel and Cain"): after the counted noun and a comma
/// or colon, a list as long as the count. Each with the range of its list in `names`.
fn spelled_out_counts(text: &str, nums: &[Num], names: &[Name], runs: &[Range<usize>]) -> Vec<(Range<usize>, Range<usize>)> {
    let lead_ok = |gap: &str| {
        let Some(noun) = gap.trim_end().strip_suffix([',', ':']) else { return false };
        let words: Vec<&str> = noun.split_whitespace().collect();
        (1..=2).contains(&words.len()) && words.iter().all(|w| w.chars().all(|c| c.is_lowercase() || c == '-'))
    };
    let mut out = Vec::new();
    if runs.is_empty() {
        return out;
    }
    for n in nums {
        if n.dimension != Dimension::Number || n.ordinal || !n.written.is_integer() {
            continue;
        }
        let Ok(count) = usize::try_from(n.written.to_integer()) else { continue };
        let Some(first) = names.iter().position(|m| m.range.start >= n.range.end) else { continue };
        let Some(list) = runs.iter().find(|l| l.start == first) else { continue };
        if list.len() == count && text.get(n.range.end..names[first].range.start).is_some_and(lead_ok) {
            out.push((n.range.clone(), list.clone()));
        }
    }
    out
}

/// True for a sound a speaker makes ("oh", "yep", "well").
pub(crate) fn is_sound(lower: &str) -> bool {
    SOUNDS.contains(&lower)
}

fn interjection(lower: &str, after: &str) -> bool {
    // "Mmmm", "Hmmmm", "Sooo": a letter drawn out.
    let drawn = lower.len() >= 3 && lower.as_bytes().windows(3).any(|t| t[0] == t[1] && t[1] == t[2]);
    after.starts_with([',', '!', '.', '…']) && (SOUNDS.contains(&lower) || drawn)
}

/// The state of one pass over a text's words: the analysis so far, the name being read, and
/// the negation or hedge in scope.
struct Scan {
    a: Analysis,
    name: Option<Name>,
    /// Connector words waiting to join the open name if a capitalised word follows.
    pending: Vec<(String, String)>,
    /// Words left in the current negation's scope, and in a hedged negation's.
    scope: usize,
    hedge: usize,
    prev_end: usize,
    /// Content words with their byte offsets (and whether a compound's part); keys are chosen
    /// once names are known.
    content: Vec<(usize, String, bool)>,
}

impl Scan {
    /// Reads word `i` (`w` at `range`).
    fn word(&mut self, text: &str, tokens: &[(Range<usize>, &str)], i: usize, range: Range<usize>, w: &str) {
        let lower = strip_possessive(&w.to_lowercase()).to_string();
        let stem = lexicon::stem(&lower);
        let gap = &text[self.prev_end..range.start];
        self.prev_end = range.end;
        if gap.contains([',', ';', ':', '.', '(', ')']) {
            self.scope = 0;
            self.hedge = 0;
        }
        let clause = self.a.clauses.last().copied().unwrap_or(0);
        self.a.clauses.push(clause + u32::from(i > 0 && gap.contains(['\n', ';'])));
        // "He …", "In 1911 she …", "As of 2012, his books …": a pronoun early in the sentence
        // refers back; so does a relative clause cut from its sentence ("which was released …").
        if i == 0 && (REFERS_BACK.contains(&w) || matches!(w, "which" | "who" | "that"))
            || i < 5 && matches!(w, "he" | "she" | "they" | "it" | "his" | "her" | "their" | "its")
        {
            self.a.refers_back = true;
        }
        let capital = w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_alphabetic);
        // A capitalised "Never" inside a sentence is part of a name ("Never Shout Never").
        // A negation under a modal or a condition ("may not be able to", "If not, …",
        // "whether or not") denies nothing: its words count neither way.
        // A sentence-opening "No" before a name answers a question ("No Australian Idol was
        // …" for "No, Australian Idol was …"): it denies nothing.
        let answer_particle = i == 0
            && lower == "no"
            && tokens.get(i + 1).is_some_and(|(_, n)| n.starts_with(char::is_uppercase))
            && tokens.get(i + 2).is_some_and(|(_, n)| n.starts_with(char::is_uppercase));
        if lexicon::is_negation(&lower) && (i == 0 || !capital) && !answer_particle {
            // "not sure but …", "I don't know if …": the speaker's doubt, not a denial.
            let doubt = tokens.get(i + 1).is_some_and(|(_, n)| match n.to_lowercase().as_str() {
                "sure" | "certain" => true,
                "know" | "remember" | "recall" => self.a.words.iter().rev().take(3).any(|p| p == "i"),
                _ => false,
            });
            let hedged = self.a.words.iter().rev().take(2).any(|p| HEDGES.contains(&p.as_str()))
                || self.a.words.last().is_some_and(|p| matches!(p.as_str(), "if" | "unless" | "whether" | "or"))
                || doubt;
            if hedged {
                self.hedge = 4;
                self.scope = 0;
            } else {
                self.a.negations += 1;
                self.scope = 4;
            }
        }

        // "Oh, …", "Yea I love it": a sound the speaker makes is neither a name nor content.
        let sound = interjection(&lower, &text[range.end..]) || i == 0 && SOUNDS.contains(&lower.as_str());
        let key = if sound {
            if let Some(n) = self.name.take() {
                self.pending.clear();
                self.a.names.push(n);
            }
            None
        } else {
            self.name_word(text, tokens, i, &range, w, &lower, &stem, capital);
            self.content_word(&range, &lower)
        };
        self.scope = self.scope.saturating_sub(1);
        self.hedge = self.hedge.saturating_sub(1);
        self.a.words.push(lower);
        self.a.stems.push(stem);
        self.a.caps.push(capital);
        self.a.token_keys.push(key);
    }

    /// A capitalised word opens or extends a name; a connector may continue one; anything
    /// else closes it.
    #[allow(clippy::too_many_arguments)]
    fn name_word(
        &mut self,
        text: &str,
        tokens: &[(Range<usize>, &str)],
        i: usize,
        range: &Range<usize>,
        w: &str,
        lower: &str,
        stem: &str,
        capital: bool,
    ) {
        // A sentence-initial function word or participle ("Among", "Directed") is not a name.
        // ("United States" is a name: the next word is capitalised too.)
        let next_capital = tokens.get(i + 1).is_some_and(|(_, n)| n.starts_with(char::is_uppercase));
        let initial = i == 0
            && !next_capital
            && (lexicon::is_stopword(lower) || lower.ends_with("ed") || lower.ends_with("ing") || lower.ends_with("ly"));
        if capital && !initial && !NAME_STOP.contains(&w) && !warrant_text::date::is_calendar_name(w) {
            match self.name.as_mut() {
                Some(n) if joins_name(&text[n.range.end..range.start], n) => {
                    for (w, st) in self.pending.drain(..) {
                        n.words.push(w);
                        n.stems.push(st);
                    }
                    n.words.push(lower.to_string());
                    n.stems.push(stem.to_string());
                    n.range.end = range.end;
                    n.tokens.end = i + 1;
                }
                _ => {
                    self.pending.clear();
                    if let Some(n) = self.name.take() {
                        self.a.names.push(n);
                    }
                    self.name = Some(Name {
                        words: vec![lower.to_string()],
                        stems: vec![stem.to_string()],
                        range: range.clone(),
                        tokens: i..i + 1,
                        near: Vec::new(),
                        aliases: Vec::new(),
                        frame: Frame::default(),
                    });
                }
            }
        } else if self.name.is_some() && CONNECTORS.contains(&w) {
            // "William of Wykeham", "Ludwig van Beethoven": the name may go on.
            self.pending.push((lower.to_string(), stem.to_string()));
        } else if let Some(n) = self.name.take() {
            self.pending.clear();
            self.a.names.push(n);
        }
    }

    /// A content word's key, recorded as denied, affirmed or neither (the negation or hedge
    /// in scope decides); `None` for stopwords, negations and words without a letter.
    fn content_word(&mut self, range: &Range<usize>, lower: &str) -> Option<String> {
        let mut key = None;
        // "non - governmental" (the prefix written apart) reads as "non-governmental".
        let after_non = self.a.words.last().is_some_and(|p| p == "non");
        if !lexicon::is_stopword(lower)
            && !lexicon::is_negation(lower)
            && lower != "non"
            && lower.chars().any(char::is_alphabetic)
        {
            // "non-root": the part after "non-" is negated.
            let (negated_prefix, base) = match lower.strip_prefix("non-") {
                Some(rest) if !rest.is_empty() => (true, rest),
                _ => (after_non, lower),
            };
            let k = lexicon::key(base);
            // "in a bid to help identify a man": a word after "to" is intended, not stated.
            let intended = self.a.words.last().is_some_and(|p| matches!(p.as_str(), "to" | "help"));
            if self.hedge > 0 && !negated_prefix || intended && self.scope == 0 && !negated_prefix {
                // Neither denied nor affirmed.
            } else if self.scope > 0 || negated_prefix {
                if !self.a.negated.contains(&k) {
                    self.a.negated.push(k.clone());
                }
            } else if !self.a.affirmed.contains(&k) {
                self.a.affirmed.push(k.clone());
            }
            // "action-adventure-fantasy" also matches "action", "adventure", "fantasy" (as
            // terms a claim may use; a claim's own compound counts once).
            if base.contains('-') {
                for part in base.split('-').filter(|p| p.len() > 1 && !lexicon::is_stopword(p)) {
                    self.content.push((range.start, lexicon::key(part), true));
                }
            }
            self.content.push((range.start, k.clone(), false));
            key = Some(k);
        }
        key
    }
}

/// The amounts the text states (a bare year is a date, not a count; "1 hour 45 minutes" is
/// one duration).
fn amounts(text: &str, quantities: Vec<Quantity>, dates: &[DateMention]) -> Vec<Num> {
    let mut nums: Vec<Num> = Vec::new();
    for q in quantities {
        // A year written as a bare number is a date, not a count.
        if dates.iter().any(|d| d.range.start <= q.range.start && q.range.end <= d.range.end) {
            continue;
        }
        let value = q.canonical().unwrap_or_else(|| q.value.clone());
        // "1 hour 45 minutes" is one duration.
        if let Some(prev) = nums.last_mut()
            && prev.dimension == Dimension::Duration
            && q.dimension == Dimension::Duration
            && matches!(text[prev.range.end..q.range.start].trim(), "" | "and" | ",")
        {
            prev.value += value;
            prev.written = prev.value.clone();
            prev.range.end = q.range.end;
            prev.surface = text[prev.range.clone()].to_string();
            continue;
        }
        let noun = if q.dimension == Dimension::Number { noun_after(text, q.range.end) } else { None };
        nums.push(Num {
            dimension: q.dimension.clone(),
            value,
            written: q.value.clone(),
            counted: if q.dimension == Dimension::Number { counted_after(text, q.range.end) } else { Vec::new() },
            noun,
            ordinal: false,
            surface: text[q.range.clone()].to_string(),
            near: Vec::new(),
            range: q.range,
            bound: Bound::Exact,
        });
    }
    nums
}

/// Times of day ("9:00", "10 PM") as amounts of minutes since midnight, counting a noun of
/// their own, so that they compare only with each other: "open until 21:00" conflicts with
/// "open until 10 PM" and agrees with "9 PM".
fn times_of_day(text: &str, dates: &[DateMention], nums: &mut Vec<Num>) {
    let before = nums.len();
    for d in dates.iter().filter(|d| d.kind == DateKind::Time) {
        let (Some(minute), Some(surface)) = (d.minute_of_day, text.get(d.range.clone())) else { continue };
        let value = BigRational::from_integer(i64::from(minute).into());
        nums.push(Num {
            dimension: Dimension::Number,
            value: value.clone(),
            written: value,
            noun: Some(TIME_OF_DAY.to_string()),
            counted: Vec::new(),
            ordinal: false,
            surface: surface.to_string(),
            near: Vec::new(),
            range: d.range.clone(),
            bound: Bound::Exact,
        });
    }
    if nums.len() > before {
        nums.sort_by_key(|n| n.range.start);
    }
}

/// Words that end a subject's noun phrase: auxiliaries, modals and prepositions.
const SUBJECT_ENDS: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "could", "will", "would", "may", "might", "must",
    "shall", "should", "do", "does", "did", "of", "from", "for", "in", "on", "at", "with", "to", "by", "about", "into", "over",
    "under", "between", "among", "during", "after", "before", "since", "as", "that", "which", "who", "and", "or", "but",
];

/// Nouns a summary uses for its source ("The document is a sales pitch …"): a subject that is
/// the source itself, not something the source speaks of.
const SOURCE_NOUNS: &[&str] = &[
    "document",
    "email",
    "article",
    "text",
    "passage",
    "summary",
    "report",
    "conversation",
    "discussion",
    "call",
    "meeting",
    "transcript",
    "story",
    "message",
    "letter",
    "memo",
    "post",
    "dialogue",
];

/// Prepositions that open a phrase set off by a comma before the subject ("In 2004, …").
const OPENING_PREPOSITIONS: &[&str] =
    &["in", "on", "at", "after", "before", "during", "since", "by", "for", "from", "according", "as", "under", "with"];

/// The keys of the words of the text's subject, where its shape makes it plain: the content
/// words before the first auxiliary, past-tense verb, preposition or comma, after an opening
/// phrase set off by a comma ("In multipass distillation, the vapor from the first
/// distillation is condensed" → `vapor`; "April's inflation rate was higher" → april,
/// inflation, rate). Empty when no such word closes the subject within a few words, and for a
/// pronoun, the source itself ("The document …"), "there", or a fragment that starts in lower
/// case (its subject is in the part before).
fn subject_words(text: &str, a: &Analysis) -> Vec<String> {
    if text.trim_start().starts_with(char::is_lowercase) {
        return Vec::new();
    }
    let words = &a.words;
    let comma_before =
        |i: usize| i > 0 && a.token_starts.get(i - 1..=i).and_then(|s| text.get(s[0]..s[1])).is_some_and(|g| g.contains(','));
    let start = if words.first().is_some_and(|w| OPENING_PREPOSITIONS.contains(&w.as_str())) {
        match (1..words.len().min(12)).find(|&i| comma_before(i)) {
            Some(i) => i,
            None => return Vec::new(),
        }
    } else {
        0
    };
    let mut subject: Vec<String> = Vec::new();
    for i in start..words.len().min(start + 8) {
        let past = words[i].len() > 4 && words[i].ends_with("ed") || lexicon::is_irregular_past(&words[i]);
        if i > start && (comma_before(i) || past && !subject.is_empty()) || SUBJECT_ENDS.contains(&words[i].as_str()) {
            let plain = i > start && !matches!(words[i - 1].as_str(), "there" | "here");
            return if plain { subject } else { Vec::new() };
        }
        if SOURCE_NOUNS.contains(&words[i].as_str()) {
            return Vec::new();
        }
        if let Some(k) = a.token_keys.get(i).cloned().flatten() {
            subject.push(k);
        }
    }
    Vec::new()
}

/// The noun a time of day counts (not a word: no text names it).
const TIME_OF_DAY: &str = "#time-of-day";

impl Analysis {
    /// Analyses `text`.
    pub fn of(text: &str) -> Self {
        // A shouted sentence ("THE TOWER IS 500 METRES TALL") capitalises every word, so its
        // capitals say nothing of names: it is read in lower case (ASCII only, so every byte
        // offset stays the same).
        let lowered;
        let text = if shouted(text) {
            lowered = text.to_ascii_lowercase();
            lowered.as_str()
        } else {
            text
        };
        let tokens: Vec<(Range<usize>, &str)> = words(text).collect();
        let mut scan = Scan {
            a: Analysis { token_starts: tokens.iter().map(|(r, _)| r.start).collect(), ..Analysis::default() },
            name: None,
            pending: Vec::new(),
            scope: 0,
            hedge: 0,
            prev_end: 0,
            content: Vec::new(),
        };
        for (i, (range, w)) in tokens.iter().cloned().enumerate() {
            scan.word(text, &tokens, i, range, w);
        }
        let Scan { mut a, name, content, .. } = scan;
        if let Some(n) = name {
            a.names.push(n);
        }
        a.flags(text);
        quoted_titles(text, &tokens, &mut a);
        a.drop_false_names(text);
        let dates = find_dates(text);
        // "AM" and "PM" in "11 AM" belong to a time, not a name.
        a.names.retain(|n| {
            !dates.iter().any(|d| d.kind == DateKind::Time && d.range.start <= n.range.start && n.range.end <= d.range.end)
        });
        // Amounts with units, including "a full day" and "half a minute".
        let quantities = quantities_with_articles(text, &tokens);
        a.choose_keys(content, &quantities);
        a.roles = roles(text, &a.names);
        a.add_dates(&dates);
        a.drop_date_nouns(text, &dates);
        let mut nums = amounts(text, quantities, &dates);
        a.short_year_ends(text, &mut nums);
        // "one of the most famous", "one of his singles": a member picked out, not a count.
        nums.retain(|n| {
            !(n.surface.eq_ignore_ascii_case("one")
                && text[n.range.end..].trim_start().get(..3).is_some_and(|w| w.eq_ignore_ascii_case("of ")))
        });
        // "24/7" says "always", not an amount.
        let always: Vec<Range<usize>> = text.match_indices("24/7").map(|(i, m)| i..i + m.len()).collect();
        nums.retain(|n| !always.iter().any(|r| r.start < n.range.end && n.range.start < r.end));
        times_of_day(text, &dates, &mut nums);
        a.add_ordinals(text, &tokens, &dates, &mut nums);
        a.add_bounds(&mut nums);
        for n in &mut nums {
            n.near = a.near_bytes(&n.range, NEAR_AMOUNT);
        }
        a.nums = nums;
        a.frame_names(text, &tokens);
        // Lists are kept as names, not indices: a name promoted or demoted later moves them.
        let runs = name_runs(text, &a.names);
        a.spelled_out = spelled_out_counts(text, &a.nums, &a.names, &runs)
            .into_iter()
            .map(|(num, list)| (num, a.names[list].to_vec()))
            .collect();
        a.name_lists = runs.into_iter().map(|r| a.names[r].to_vec()).collect();
        a.subject = subject_words(text, &a);
        a
    }

    /// Whether the text asks, relays others' claims, or speaks of a time relative to now.
    fn flags(&mut self, text: &str) {
        self.asks = text.trim_end().trim_end_matches(['"', '”', '\'', ')']).ends_with('?');
        self.reports = self.words.iter().any(|w| REPORTING.contains(&w.as_str()));
        self.relative_time =
            self.words.windows(2).any(|p| {
                matches!(p[0].as_str(), "this" | "last" | "next" | "past" | "previous" | "coming")
                    && matches!(p[1].as_str(), "year" | "month" | "week" | "season" | "decade" | "century")
            }) || self.words.iter().any(|w| matches!(w.as_str(), "yesterday" | "today" | "tomorrow" | "recently" | "currently"));
    }

    /// A lone capitalised word that only opens the sentence and a lone letter are not names
    /// (the opener is kept aside, see [`Analysis::promote_opener`]).
    fn drop_false_names(&mut self, text: &str) {
        // A lone capitalised word that only opens the sentence ("Annual subscriptions …") and
        // a lone letter ("°C") are not names.
        let mut opener = None;
        self.names.retain(|n| {
            let lone = n.words.len() == 1;
            let quoted = text[..n.range.start].ends_with(['"', '“', '\'']);
            let opens = lone && n.tokens.start == 0 && self.caps.get(1).is_some_and(|c| !c) && !quoted;
            if opens {
                opener = Some(n.clone());
            }
            !(opens || lone && n.words[0].chars().count() == 1)
        });
        self.opener = opener;
        if matches!(self.words.first().map(String::as_str), Some("the" | "this" | "that" | "these" | "those")) {
            self.opening_noun = self.stems.get(1).filter(|_| !self.caps.get(1).copied().unwrap_or(false)).cloned();
        }
    }

    /// Terms, compound parts and keys from the content words: words of a name count as the
    /// name and words of an amount as the amount, not as content words.
    fn choose_keys(&mut self, content: Vec<(usize, String, bool)>, quantities: &[Quantity]) {
        // Words of a name count as the name, and words of an amount as the amount ("60
        // minutes" is 3,600 seconds, not the word "minute"), not as content words.
        let mut terms = warrant_text::fasthash::FastSet::default();
        let mut seen = warrant_text::fasthash::FastSet::default();
        for (at, k, part) in content {
            let in_name = self.names.iter().any(|n| n.range.contains(&at));
            let in_amount = quantities.iter().any(|q| q.range.contains(&at) && q.dimension != Dimension::Number);
            if terms.insert(k.clone()) {
                self.terms.push(k.clone());
            }
            if part && !in_name && !in_amount && !self.parts.contains(&k) {
                self.parts.push(k.clone());
            }
            if !in_name && !in_amount && !part && seen.insert(k.clone()) {
                self.keys.push(k);
            }
        }
        for k in &self.keys {
            for b in lexicon::broader(k) {
                if !self.keys.contains(b) && !self.broader.contains(b) {
                    self.broader.push(b.clone());
                }
            }
        }
    }

    /// The dates (and years, as retrieval terms) the text states.
    fn add_dates(&mut self, dates: &[DateMention]) {
        for d in dates {
            if matches!(d.kind, DateKind::Date | DateKind::Year) {
                let near = self.near_bytes(&d.range, NEAR_AMOUNT);
                self.dates.push(DateKey { year: d.year, month: d.month, day: d.day });
                self.date_near.push(near);
                // Retrieval finds sentences by the years they state.
                if let Some(y) = d.year {
                    push_term(&mut self.terms, format!("#{y}"));
                }
            }
        }
    }

    /// "the 2018–19 season", "1914-15", "2018-2019": the span's second year is a year (2019),
    /// not the number 19, nor lost to the first.
    fn short_year_ends(&mut self, text: &str, nums: &mut Vec<Num>) {
        let mut ends: Vec<(i32, Range<usize>)> = Vec::new();
        for n in nums.iter() {
            let surface = &text[n.range.clone()];
            let Ok(first) = surface.parse::<i32>() else { continue };
            if surface.len() != 4 || !(1000..3000).contains(&first) {
                continue;
            }
            let after = &text[n.range.end..];
            let rest = after.trim_start();
            let Some(rest) = rest.strip_prefix(['-', '–', '—']).map(str::trim_start) else { continue };
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let at = text.len() - rest.len();
            let year = match (digits, rest[..digits].parse::<i32>()) {
                (2, Ok(yy)) => {
                    let y = first - first % 100 + yy;
                    if y <= first { y + 100 } else { y }
                }
                (4, Ok(y)) => y,
                _ => continue,
            };
            if (1..=10).contains(&(year - first)) {
                ends.push((year, at..at + digits));
            }
        }
        nums.retain(|n| !ends.iter().any(|(_, r)| r.start < n.range.end && n.range.start < r.end));
        for (year, range) in ends {
            let key = DateKey { year: Some(year), month: None, day: None };
            if !self.dates.contains(&key) {
                let near = self.near_bytes(&range, NEAR_AMOUNT);
                self.dates.push(key);
                self.date_near.push(near);
                push_term(&mut self.terms, format!("#{year}"));
            }
        }
    }

    /// "the month of December", "in the year 1990": the noun names the date's kind, which the
    /// date says; a source stating the date need not use the word.
    fn drop_date_nouns(&mut self, text: &str, dates: &[DateMention]) {
        for d in dates.iter().filter(|d| matches!(d.kind, DateKind::Date | DateKind::Year)) {
            let before = text[..d.range.start].trim_end().to_ascii_lowercase();
            let before = before.strip_suffix(" of").unwrap_or(&before);
            for noun in ["month", "year"] {
                let key = lexicon::key(noun);
                let once = self.words.iter().filter(|w| w.as_str() == noun).count() == 1;
                if once && before.ends_with(noun) && before[..before.len() - noun.len()].ends_with([' ', '(']) {
                    self.keys.retain(|k| *k != key);
                }
            }
        }
    }

    /// Ordinals ("the second song", "3rd") as numbers.
    fn add_ordinals(&self, text: &str, tokens: &[(Range<usize>, &str)], dates: &[DateMention], nums: &mut Vec<Num>) {
        for (i, (range, w)) in tokens.iter().enumerate() {
            // "June 7th 2010": the day of a date, compared as the date.
            if dates.iter().any(|d| d.range.start <= range.start && range.end <= d.range.end) {
                continue;
            }
            let whole = w.to_lowercase();
            // "second-most", "third-largest": the ordinal is the compound's first part.
            let lower = match whole.split_once('-') {
                Some((head, tail)) if ordinal(head).is_some() && ordinal(&whole).is_none() && !tail.is_empty() => {
                    head.to_string()
                }
                _ => whole,
            };
            // Ordinal words count after a determiner ("the second song"), not in "per second".
            // A possessive determines too ("Presley's first single").
            let before = text[..range.start].trim_end();
            let possessive = before.ends_with("'s") || before.ends_with("’s") || before.ends_with("s'");
            let determined = i > 0 && (ORDINAL_DETERMINERS.contains(&self.words[i - 1].as_str()) || possessive);
            if let Some(n) = ordinal(&lower).filter(|_| determined || lower.starts_with(|c: char| c.is_ascii_digit())) {
                let v = BigRational::from_integer(n.into());
                nums.push(Num {
                    dimension: Dimension::Number,
                    value: v.clone(),
                    written: v,
                    noun: noun_after(text, range.end),
                    counted: counted_after(text, range.end),
                    ordinal: true,
                    surface: w.to_string(),
                    near: Vec::new(),
                    range: range.clone(),
                    bound: Bound::Exact,
                });
            }
        }
    }

    /// How each amount is stated ("up to", "more than"); the bound words stop counting as
    /// content.
    fn add_bounds(&mut self, nums: &mut [Num]) {
        let mut bound_words: Vec<Range<usize>> = Vec::new();
        for n in nums.iter_mut() {
            if n.value.is_integer() {
                push_term(&mut self.terms, format!("#{}", n.written.to_integer()));
            }
            let first = self.token_starts.partition_point(|&s| s < n.range.start);
            let end = self.token_starts.partition_point(|&s| s < n.range.end);
            let (bound, words) = bound_of(&self.words, first, end);
            n.bound = bound;
            bound_words.extend(words);
        }
        // Bound words ("up to", "more than") say how the amount is stated, not what the text is
        // about: they are not content.
        if !bound_words.is_empty() {
            let bound_keys: Vec<String> =
                bound_words.iter().flat_map(|r| r.clone()).filter_map(|i| self.token_keys[i].take()).collect();
            for k in bound_keys {
                let elsewhere = self.token_keys.iter().flatten().any(|x| *x == k);
                if !elsewhere {
                    self.keys.retain(|x| *x != k);
                    self.terms.retain(|x| *x != k);
                    self.affirmed.retain(|x| *x != k);
                    self.negated.retain(|x| *x != k);
                }
            }
        }
    }

    /// Each name's nearby words, aliases and frame (the words around it that say which slot it
    /// fills).
    fn frame_names(&mut self, text: &str, tokens: &[(Range<usize>, &str)]) {
        let near: Vec<Vec<String>> = self.names.iter().map(|n| self.near_tokens(n.tokens.clone(), NEAR)).collect();
        let frame_word = |i: usize| -> Option<String> {
            let w = self.words.get(i)?;
            // "a Boeing 737" and "an Airbus A220" fill one slot.
            Some(self.token_keys[i].clone().unwrap_or_else(|| if w == "an" { "a".into() } else { w.clone() }))
        };
        let frame_of = |n: &Name| Frame {
            before: [n.tokens.start.checked_sub(1).and_then(frame_word), n.tokens.start.checked_sub(2).and_then(frame_word)],
            after: frame_word(n.tokens.end),
            qualifies: tokens.get(n.tokens.end).is_some_and(|(r, w)| {
                !w.starts_with(char::is_uppercase)
                    && w.chars().all(char::is_alphabetic)
                    && !lexicon::is_stopword(&w.to_lowercase())
                    && text.get(n.range.end..r.start).is_some_and(|g| g.trim().is_empty())
            }),
            exclusive: (1..=2).any(|d| {
                n.tokens
                    .start
                    .checked_sub(d)
                    .and_then(|i| self.words.get(i))
                    .is_some_and(|w| matches!(w.as_str(), "only" | "exclusively" | "solely"))
            }),
        };
        for (n, k) in self.names.iter_mut().zip(near) {
            n.near = k;
            n.aliases = name_aliases(text, n);
            n.frame = frame_of(n);
        }
        if let Some(o) = self.opener.as_mut() {
            o.aliases = name_aliases(text, o);
            o.frame = frame_of(o);
        }
    }

    /// Makes the opening word a name again (the sources never write it in lower case): it stops
    /// counting as a content word.
    pub fn promote_opener(&mut self) {
        let Some(mut n) = self.opener.take() else { return };
        let k = lexicon::key(&n.words[0]);
        self.keys.retain(|x| *x != k);
        n.near = self.near_tokens(n.tokens.clone(), NEAR);
        self.names.insert(0, n);
    }

    /// Reads lone-word names inside the sentence as content words where `common(stem)` says
    /// so.
    pub fn demote_names(&mut self, common: impl Fn(&str) -> bool) {
        let mut demoted = Vec::new();
        self.names.retain(|n| {
            let [word] = n.words.as_slice() else { return true };
            // Only a capital among lower-case words ("a global Cheerleading competition"), not
            // a word of a title ("The Singer and the Producer").
            let at = n.tokens.start;
            let amid = at > 0 && self.caps.get(at - 1) == Some(&false) && self.caps.get(at + 1) == Some(&false);
            // A proper adjective keeps its capital in any text ("a Christian song", "Korean").
            let proper_adjective =
                ["ian", "ean", "ish", "ese", "ic"].iter().any(|s| word.len() > s.len() + 2 && word.ends_with(s));
            if !amid || proper_adjective || !common(&n.stems[0]) {
                return true;
            }
            demoted.push(lexicon::key(word));
            false
        });
        for k in demoted {
            if !self.keys.contains(&k) {
                self.keys.push(k);
            }
        }
    }

    /// Content keys within `radius` words of the tokens `t` (not inside them, and not words of
    /// other names: those say who, not what), within the analysed text.
    fn near_tokens(&self, t: Range<usize>, radius: usize) -> Vec<String> {
        let lo = t.start.saturating_sub(radius);
        let hi = (t.end + radius).min(self.token_keys.len());
        let mut out: Vec<String> = Vec::new();
        for (i, k) in self.token_keys[lo..hi].iter().enumerate() {
            let at = lo + i;
            let in_name = self.names.iter().any(|n| n.tokens.contains(&at));
            if let Some(k) = k
                && !t.contains(&at)
                && !in_name
                && !out.contains(k)
            {
                out.push(k.clone());
            }
        }
        out
    }

    /// [`Analysis::near_tokens`] for a byte range.
    fn near_bytes(&self, r: &Range<usize>, radius: usize) -> Vec<String> {
        let first = self.token_starts.partition_point(|&s| s < r.start);
        let last = self.token_starts.partition_point(|&s| s < r.end);
        self.near_tokens(first..last.max(first), radius)
    }

    /// True when a word keyed `key` shares a clause with a word keyed with one of `others`, or
    /// a numeral among them (itself aside): the text says something of `key` together with them.
    pub fn said_with(&self, key: &str, others: &[String]) -> bool {
        let with = |i: usize| {
            let c = self.clauses.get(i).copied();
            self.token_keys.iter().enumerate().any(|(j, k)| {
                let numeral = || self.words.get(j).is_some_and(|w| w.bytes().all(|b| b.is_ascii_digit()) && others.contains(w));
                j != i
                    && self.clauses.get(j).copied() == c
                    && (k.as_ref().is_some_and(|k| k != key && others.contains(k)) || numeral())
            })
        };
        self.token_keys.iter().enumerate().any(|(i, k)| k.as_deref() == Some(key) && with(i))
    }

    /// True when the analysed text contains this name: all its words, in order, with at most
    /// two other words between consecutive ones ("Anna Kournikova" in "Anna Sergeyevna
    /// Kournikova"), never across a sentence separator.
    pub fn has_name(&self, name: &Name) -> bool {
        // "Marcus Morton Jr." is not "Marcus Morton": a generational suffix the claim's name
        // lacks makes another person of the text's.
        let suffixed = |n: &Name| n.words.last().is_some_and(|w| matches!(w.as_str(), "jr" | "sr" | "ii" | "iii" | "iv"));
        let holders: Vec<&Name> = self.names.iter().filter(|m| name.stems.iter().all(|s| m.stems.contains(s))).collect();
        if !suffixed(name) && !holders.is_empty() && holders.iter().all(|m| suffixed(m)) {
            return false;
        }
        find_words_near(&self.stems, &name.stems, Some(&self.caps)).is_some()
            || self.names.iter().any(|m| crate::alias::same(&m.aliases, &name.aliases) || m.spells(name))
    }

    /// True when the same amount is present; a bare number also matches a stated year
    /// ("2006" in "September 2006").
    pub fn has_num(&self, num: &Num) -> bool {
        self.nums.iter().any(|m| m.same_amount(num) && num.counts_same_as(m))
            || num.ordinal && !self.nums.iter().any(|m| m.ordinal && m.value == num.value) && self.says_ordinal(&num.value)
            || num.dimension == Dimension::Number
                && num.written.is_integer()
                && self.dates.iter().any(|d| d.year.is_some_and(|y| BigRational::from_integer(y.into()) == num.written))
    }

    /// True when the text says this ordinal as a word, even where it is no determined ordinal:
    /// "corn was first domesticated" states the claim's "the first corn"; a "debut" album is
    /// the first. (A determined ordinal of the same value is compared as an amount instead: "the
    /// first year" does not state "the first month".)
    fn says_ordinal(&self, value: &BigRational) -> bool {
        self.words.iter().any(|w| {
            ordinal(w).is_some_and(|n| BigRational::from_integer(n.into()) == *value)
                || *value == BigRational::from_integer(1.into()) && matches!(w.as_str(), "debut" | "inaugural" | "maiden")
        })
    }

    /// True when the text states this date (every field the date states agrees).
    pub fn has_date(&self, date: &DateKey) -> bool {
        self.dates.iter().any(|x| date.within(x))
            || date.month.is_none()
                && date.year.is_some_and(|y| {
                    self.nums.iter().any(|n| n.dimension == Dimension::Number && n.written == BigRational::from_integer(y.into()))
                })
    }

    /// True when a key is stated — as a content word, inside a name ("Disturbed"), or entailed
    /// ("author" by "novelist").
    pub fn has_key(&self, k: &str) -> bool {
        self.terms.iter().any(|x| x == k) || self.broader.iter().any(|x| x == k)
    }
}

/// A title in quotes ("'The Album'", "“Pride and Prejudice”") is one name, function words and
/// all: the names found inside it give way to it.
fn quoted_titles(text: &str, tokens: &[(Range<usize>, &str)], a: &mut Analysis) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else { break };
        let open = matches!(c, '"' | '“' | '\'') && (i == 0 || text[..i].ends_with([' ', '(', '\t', '\n']));
        if !open {
            i += c.len_utf8();
            continue;
        }
        let close_char = match c {
            '“' => '”',
            other => other,
        };
        let body_start = i + c.len_utf8();
        // The closing mark: within 60 bytes, followed by a space, punctuation or the end.
        let found = text[body_start..].char_indices().take_while(|(j, _)| *j < 60).find(|(j, ch)| {
            *ch == close_char && {
                let after = body_start + j + ch.len_utf8();
                after >= b.len() || !text[after..].starts_with(char::is_alphanumeric)
            }
        });
        let Some((j, ch)) = found else {
            i = body_start;
            continue;
        };
        let body = body_start..body_start + j;
        let inside: Vec<usize> =
            tokens.iter().enumerate().filter(|(_, (r, _))| r.start >= body.start && r.end <= body.end).map(|(k, _)| k).collect();
        let starts_capital = text[body.clone()].trim_start().starts_with(char::is_uppercase);
        if starts_capital && (1..=6).contains(&inside.len()) {
            let (first, last) = (inside[0], inside[inside.len() - 1]);
            a.names.retain(|n| n.tokens.end <= first || n.tokens.start > last);
            let name = Name {
                words: inside.iter().map(|&k| a.words[k].clone()).collect(),
                stems: inside.iter().map(|&k| a.stems[k].clone()).collect(),
                range: tokens[first].0.start..tokens[last].0.end,
                tokens: first..last + 1,
                near: Vec::new(),
                aliases: Vec::new(),
                frame: Frame::default(),
            };
            let at = a.names.partition_point(|n| n.tokens.start < first);
            a.names.insert(at, name);
            a.titled = true;
        }
        i = body.end + ch.len_utf8();
    }
}

/// Words that mark a text as reporting others' claims rather than asserting them.
const REPORTING: &[&str] = &[
    "claim",
    "claimed",
    "claims",
    "declared",
    "rumor",
    "rumour",
    "rumors",
    "rumours",
    "myth",
    "myths",
    "hoax",
    "falsely",
    "allegedly",
    "purportedly",
    "supposedly",
    "misconception",
    "debunked",
];

/// Modals that make a following negation a possibility, not a denial ("may not be able to").
const HEDGES: &[&str] = &["may", "might", "possibly", "perhaps", "maybe"];

/// Words that open a sentence continuing the previous one's subject.
const REFERS_BACK: &[&str] = &["He", "She", "It", "They", "His", "Her", "Its", "Their", "This", "These", "Those", "Both", "Such"];

fn push_term(terms: &mut Vec<String>, t: String) {
    if !terms.contains(&t) {
        terms.push(t);
    }
}

/// Lower-case words that may join two capitalised parts of one name.
const CONNECTORS: &[&str] =
    &["of", "de", "van", "von", "der", "den", "du", "la", "le", "del", "della", "da", "di", "bin", "al", "y"];

/// True when the text between a name and the next capitalised word continues the name:
/// nothing, a connector ("of"), quotes ("H. Bruce "Lucky" Humberstone"), or the period after
/// an initial.
fn joins_name(gap: &str, name: &Name) -> bool {
    let g = gap.trim();
    // "J. K. Rowling", "Mr. Johnson", "St. Louis": the period ends an initial or a title
    // written before a name, not the name.
    g.is_empty()
        || CONNECTORS.contains(&g)
        || g.chars().all(|c| c == '"' || c == '“' || c == '”')
        || g == "." && name.words.last().is_some_and(|w| w.chars().count() == 1 || TITLE_ABBREVIATIONS.contains(&w.as_str()))
}

/// Abbreviated titles written before a name, lower-case and without their period.
pub(crate) const TITLE_ABBREVIATIONS: &[&str] =
    &["mr", "mrs", "ms", "dr", "prof", "sen", "rep", "gov", "gen", "col", "capt", "lt", "sgt", "rev", "hon", "st", "mt", "ft"];

/// Agents of verbs: "<verb> by <Name>" (also "written and directed by <Name>") and
/// "<Name> <verb>ed".
fn roles(text: &str, names: &[Name]) -> Vec<Role> {
    let tokens: Vec<(Range<usize>, &str)> = words(text).collect();
    let mut out = Vec::new();
    let verb_key = |w: &str| {
        let lower = w.to_lowercase();
        (lower.chars().all(char::is_alphabetic)
            && !lexicon::is_stopword(&lower)
            && (!w.starts_with(char::is_uppercase) || lower.ends_with("ed")))
        .then(|| lexicon::key(&lower))
    };
    for name in names {
        let Some(at) = tokens.iter().position(|(r, _)| r.start == name.range.start) else { continue };
        let end = tokens.iter().position(|(r, _)| r.end == name.range.end).unwrap_or(at);
        // Passive: "<verb> by [the American artist] <Name>": "by" within a few words before the
        // name, with no punctuation between.
        let by = (1..=5.min(at)).map(|d| at - d).find(|&b| tokens[b].1 == "by");
        let j = by.map_or(0, |b| b + 1);
        let clean_gap = by.is_some_and(|b| !text[tokens[b].0.end..name.range.start].contains([',', ';', '.', '(', ')']));
        if clean_gap && j >= 2 && tokens[j - 1].1 == "by" {
            // The verb may sit a few words back: "Founded in 1379 by …".
            let mut k = j - 2;
            while k > 0
                && j - 2 - k < 3
                && (tokens[k].1.chars().all(|c| c.is_ascii_digit()) || lexicon::is_stopword(&tokens[k].1.to_lowercase()))
            {
                k -= 1;
            }
            let of_object = prepositional_object(text, &tokens, k);
            loop {
                if let Some(v) = verb_key(tokens[k].1) {
                    out.push(Role {
                        verb: v,
                        verb_text: tokens[k].1.to_string(),
                        agent: name.stems.clone(),
                        agent_text: text[name.range.clone()].to_string(),
                        of_object: of_object.clone(),
                    });
                }
                // "written and directed by": step back over "and".
                if k >= 2 && tokens[k - 1].1 == "and" && text[tokens[k - 1].0.end..tokens[k].0.start].trim().is_empty() {
                    k -= 2;
                } else {
                    break;
                }
            }
        }
        // Active: "<Name> [also] <verb>ed".
        let mut v = end + 1;
        if v < tokens.len() && matches!(tokens[v].1, "also" | "later" | "first" | "then" | "once") {
            v += 1;
        }
        if let Some((r, w)) = tokens.get(v)
            && (w.ends_with("ed") || lexicon::is_irregular_past(&w.to_lowercase()))
            && text[name.range.end..r.start].chars().all(|c| c.is_alphanumeric() || c.is_whitespace() || c == ',')
            // After a comma, only a verb with its object ("William, Duke of Normandy, defeated
            // Harold"), not a participle phrase ("Peter Chelsom, written and produced by …").
            && (!text[name.range.end..r.start].contains(',')
                || tokens.get(v + 1).is_some_and(|(_, n)| !matches!(*n, "and" | "or" | "by" | "in" | "with" | "for" | "at" | "on")))
            && let Some(k) = verb_key(w)
        {
            out.push(Role {
                verb: k,
                verb_text: w.to_string(),
                agent: name.stems.clone(),
                agent_text: text[name.range.clone()].to_string(),
                of_object: Vec::new(),
            });
        }
    }
    out
}

/// The nouns right before a participle at token `verb` when they are the object of a
/// preposition ("adapted from a film score written by …" → film, score): the participle is
/// said of them, not of the sentence's subject. Empty for other shapes ("The song was
/// written by …", "a pop song written by …").
fn prepositional_object(text: &str, tokens: &[(Range<usize>, &str)], verb: usize) -> Vec<String> {
    const PREPOSITIONS: &[&str] = &["from", "of", "in", "on", "for", "with", "to", "into", "about", "by", "than"];
    let mut start = verb;
    while start > 0 && verb - start < 3 {
        let (r, w) = &tokens[start - 1];
        let lower = w.to_lowercase();
        let joined = text.get(r.end..tokens[start].0.start).is_some_and(|g| g.trim().is_empty());
        if !joined || lexicon::is_stopword(&lower) || !lower.chars().all(char::is_alphabetic) {
            break;
        }
        start -= 1;
    }
    if start == verb {
        return Vec::new();
    }
    let mut before = start;
    while before > 0 && matches!(tokens[before - 1].1.to_lowercase().as_str(), "a" | "an" | "the") {
        before -= 1;
    }
    let after_preposition = before > 0 && PREPOSITIONS.contains(&tokens[before - 1].1.to_lowercase().as_str());
    if !after_preposition {
        return Vec::new();
    }
    tokens[start..verb].iter().map(|(_, w)| lexicon::stem(&w.to_lowercase())).collect()
}

/// True when `run` occurs in `words` in order with at most two other words between
/// consecutive run words, never across a `|` separator.
pub fn has_words_near(words: &[String], run: &[String]) -> bool {
    find_words_near(words, run, None).is_some()
}

/// Where `run` starts in `words` (see [`has_words_near`]); with `caps`, only where its first
/// word is capitalised, so the name "Singer" does not match the noun "singer".
pub fn find_words_near(words: &[String], run: &[String], caps: Option<&[bool]>) -> Option<usize> {
    let first = run.first()?;
    'start: for (i, w) in words.iter().enumerate() {
        if w != first || caps.is_some_and(|c| !c.get(i).copied().unwrap_or(true)) {
            continue;
        }
        let mut at = i;
        // A name that opens with an article ("The Album") is capitalised past it: "The album
        // Dopesmoker" does not write it.
        let article = matches!(first.as_str(), "the" | "a" | "an");
        for (n, r) in run[1..].iter().enumerate() {
            let limit = (at + 4).min(words.len());
            match words[at + 1..limit].iter().position(|x| x == r || x == "|") {
                Some(p) if words[at + 1 + p] == *r => at += 1 + p,
                _ => continue 'start,
            }
            if n == 0 && article && caps.is_some_and(|c| !c.get(at).copied().unwrap_or(true)) {
                continue 'start;
            }
        }
        return Some(i);
    }
    None
}

/// The alias keys of a name in `text` (see [`crate::alias::keys`]).
fn name_aliases(text: &str, n: &Name) -> Vec<String> {
    let written = text.get(n.range.clone()).unwrap_or_default();
    let all_caps = n.words.len() == 1 && written.chars().filter(|c| c.is_alphabetic()).all(char::is_uppercase);
    crate::alias::keys(&n.words, all_caps)
}

/// "nixon's" → "nixon".
fn strip_possessive(w: &str) -> &str {
    w.strip_suffix("'s").or_else(|| w.strip_suffix("’s")).unwrap_or(w)
}

/// Quantities, plus durations written with an article: "a full day", "an hour", "half a
/// minute" (one or one half of the unit).
fn quantities_with_articles(text: &str, tokens: &[(Range<usize>, &str)]) -> Vec<warrant_text::quantity::Quantity> {
    let mut out = find_all_quantities(text);
    for (i, (r, w)) in tokens.iter().enumerate() {
        if !matches!(w.to_lowercase().as_str(), "a" | "an") {
            continue;
        }
        let mut j = i + 1;
        if tokens.get(j).is_some_and(|(_, t)| matches!(t.to_lowercase().as_str(), "full" | "whole" | "single")) {
            j += 1;
        }
        let Some((ur, unit)) = tokens.get(j) else { continue };
        let unit = unit.to_lowercase();
        if !matches!(unit.as_str(), "second" | "minute" | "hour" | "day" | "week" | "fortnight" | "month" | "year") {
            continue;
        }
        let half = i > 0 && tokens[i - 1].1.eq_ignore_ascii_case("half");
        let start = if half { tokens[i - 1].0.start } else { r.start };
        let phrase = format!("{} {unit}", if half { "0.5" } else { "1" });
        let Some(mut q) = warrant_text::quantity::find_quantities(&phrase).into_iter().next() else { continue };
        if half {
            // "half" alone was read as the number 0.5; the phrase is the amount.
            let word = tokens[i - 1].0.clone();
            out.retain(|x| !(x.range.start >= word.start && x.range.end <= word.end));
        }
        if out.iter().any(|x| x.range.start < ur.end && start < x.range.end) {
            continue;
        }
        q.range = start..ur.end;
        out.push(q);
    }
    out.sort_by_key(|q| q.range.start);
    out
}

/// The value of an ordinal word ("fourth", "4th", "twenty-first"), up to 99.
fn ordinal(w: &str) -> Option<u32> {
    const WORDS: [&str; 20] = [
        "",
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
    ];
    const TENS: [(&str, &str, u32); 8] = [
        ("twenty", "twentieth", 20),
        ("thirty", "thirtieth", 30),
        ("forty", "fortieth", 40),
        ("fifty", "fiftieth", 50),
        ("sixty", "sixtieth", 60),
        ("seventy", "seventieth", 70),
        ("eighty", "eightieth", 80),
        ("ninety", "ninetieth", 90),
    ];
    if let Some(i) = WORDS.iter().position(|x| *x == w).filter(|&i| i > 0) {
        return Some(i as u32);
    }
    if let Some((_, _, v)) = TENS.iter().find(|(_, o, _)| *o == w) {
        return Some(*v);
    }
    if let Some((t, u)) = w.split_once('-')
        && let Some((_, _, v)) = TENS.iter().find(|(c, _, _)| *c == t)
        && let Some(i) = WORDS.iter().position(|x| *x == u).filter(|&i| (1..10).contains(&i))
    {
        return Some(v + i as u32);
    }
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    if !digits.is_empty() && digits.len() <= 3 && matches!(suffix, "st" | "nd" | "rd" | "th") {
        return digits.parse().ok();
    }
    None
}

/// Keys of the content words right after byte `end` (up to three, stopping at a function
/// word or punctuation): "5 studio albums" → studio, album; "3.12 was released" → none.
fn counted_after(text: &str, end: usize) -> Vec<String> {
    let rest = text.get(end..).unwrap_or("");
    let clause = rest.split([',', ';', ':', '.', '(', ')']).next().unwrap_or("");
    words(clause)
        .take(3)
        .map(|(_, w)| w.to_lowercase())
        .take_while(|w| w.chars().all(char::is_alphabetic) && !lexicon::is_stopword(w))
        .map(|w| lexicon::key(&w))
        .collect()
}

/// Key of the first content word within two words after byte `end` ("40 drug stores" → drug).
fn noun_after(text: &str, end: usize) -> Option<String> {
    for (_, w) in words(&text[end..]).take(2) {
        let lower = w.to_lowercase();
        if !lower.chars().all(char::is_alphabetic) {
            return None;
        }
        if !lexicon::is_stopword(&lower) {
            return Some(lexicon::key(&lower));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_spelled_out_by_names_with_accents() {
        let text = "Eve had two sons: Ábel and Çain, then a daughter.";
        let a = Analysis::of(text);
        let listed: Vec<Vec<&str>> =
            a.spelled_out.iter().map(|(_, l)| l.iter().map(|n| &text[n.range.clone()]).collect()).collect();
        assert_eq!(listed, [["Ábel", "Çain"]]);
        assert_eq!(&text[a.spelled_out[0].0.clone()], "two");
        assert_eq!(a.name_lists.len(), 1);
        // A list one name short of its count spells nothing out.
        assert!(Analysis::of("Eve had three sons: Ábel and Çain.").spelled_out.is_empty());
    }

    #[test]
    fn around_the_clock_is_no_amount() {
        assert!(Analysis::of("CBSN is CBS News' 24/7 live service").nums.is_empty());
        assert_eq!(Analysis::of("It runs 24/7 on 3 servers").nums.len(), 1);
    }

    fn denied(text: &str) -> Vec<String> {
        Analysis::of(text).negated
    }

    #[test]
    fn a_decade_without_its_century_is_the_same_decade() {
        let num = |t: &str| Analysis::of(t).nums.into_iter().next().expect("a decade");
        let (short, long, other) = (num("music of the early 70s"), num("music of the early 1970s"), num("music of the 1980s"));
        assert!(short.same_amount(&long) && long.same_amount(&short) && !long.differs_from(&short));
        assert!(!short.same_amount(&other) && other.differs_from(&short));
        assert!(!long.same_amount(&other), "two written centuries compare as numbers");
        assert_eq!(num("in the 70s").decade(), Some((70, false)));
        assert_eq!(num("about 1975 people").decade(), None);
        assert_eq!(num("in the 1900s").decade(), None, "a century");
    }

    #[test]
    fn what_is_not_a_denial() {
        // An answer particle before a name, the speaker's doubt.
        assert_eq!(denied("No Australian Idol was an Australian singing competition."), Vec::<String>::new());
        assert_eq!(denied("not sure but archaeologists have known about popcorn for years."), Vec::<String>::new());
        assert_eq!(denied("I don't know if the museum opens on Sundays."), Vec::<String>::new());
        // Still denials: a quantifier, a contraction typed without its "n", a prefix written apart.
        assert!(denied("No students passed the exam.").contains(&crate::lexicon::key("students")));
        assert!(denied("He could't afford two beds.").contains(&crate::lexicon::key("afford")));
        assert!(denied("They run the largest non - governmental hospital ship.").contains(&crate::lexicon::key("governmental")));
        assert!(!denied("They run the largest non - governmental hospital ship.").contains(&"non".to_string()));
    }

    #[test]
    fn times_of_day_are_amounts_of_their_own() {
        let a = Analysis::of("The shop is open from 11 AM to 10 PM on Mondays.");
        let minutes: Vec<BigRational> = a.nums.iter().map(|n| n.value.clone()).collect();
        assert_eq!(minutes, [BigRational::from_integer(660.into()), BigRational::from_integer(1320.into())]);
        assert!(!a.names.iter().any(|n| n.words == ["am"] || n.words == ["pm"]), "AM and PM are not names: {:?}", a.names);
        let b = Analysis::of("It opens at 22:00.");
        assert!(a.nums[1].same_amount(&b.nums[0]));
        // A time never compares with a count.
        let c = Analysis::of("It has 660 seats.");
        assert!(!a.nums[0].differs_from(&c.nums[0]) && !a.nums[0].same_amount(&c.nums[0]));
    }

    #[test]
    fn a_sound_set_off_by_punctuation_is_not_a_name() {
        let names = |t: &str| Analysis::of(t).names.iter().map(Name::joined).collect::<Vec<_>>();
        assert_eq!(names("Ok, Are you hearing about Amazon?"), vec!["amazon"]);
        assert_eq!(names("Mmmm, Heinz ketchup is the best."), vec!["heinz"]);
        // Opening a sentence, a sound needs no comma; it is no content word either.
        assert_eq!(names("Yea I love Heinz ketchup."), vec!["heinz"]);
        assert!(!Analysis::of("Well Heinz makes ketchup.").keys.iter().any(|k| k == "well"));
        assert_eq!(names("Oh! Elvis recorded it in Memphis."), vec!["elvis", "memphis"]);
        // Not set off: a name ("Hey Arnold" is a show).
        assert_eq!(names("We watched Hey Arnold in Ohio."), vec!["hey arnold", "ohio"]);
    }

    #[test]
    fn a_capital_among_lower_case_words_is_demoted_only_where_common() {
        let names = |a: &Analysis| a.names.iter().map(Name::joined).collect::<Vec<_>>();
        let text = "We saw a global Cheerleading competition and a Christian song.";
        let mut a = Analysis::of(text);
        a.demote_names(|_| true);
        assert_eq!(names(&a), vec!["christian"], "a proper adjective stays a name");
        assert!(a.keys.iter().any(|k| k == &lexicon::key("cheerleading")));
        let mut b = Analysis::of(text);
        b.demote_names(|_| false);
        assert_eq!(names(&b), vec!["cheerleading", "christian"]);
    }

    #[test]
    fn a_shouted_sentence_is_read_in_lower_case() {
        let a = Analysis::of("THE EIFFEL TOWER IS 500 METRES TALL.");
        assert!(a.names.is_empty(), "{:?}", a.names);
        assert!(a.keys.contains(&lexicon::key("tower")) && a.nums.len() == 1);
        // Acronyms in an ordinary sentence stay names.
        assert!(!Analysis::of("NASA and ESA launched it.").names.is_empty());
        assert!(!shouted("AB CD") && shouted("NASA AND ESA LAUNCHED IT"));
    }

    #[test]
    fn the_kind_of_a_date_is_no_content_word() {
        let month = lexicon::key("month");
        assert!(!Analysis::of("He was born in the month of December.").keys.contains(&month));
        assert!(!Analysis::of("It closed in the year 1990.").keys.contains(&lexicon::key("year")));
        assert!(Analysis::of("The hottest month was July.").keys.contains(&month));
    }

    #[test]
    fn the_day_of_a_date_is_no_ordinal() {
        let a = Analysis::of("It was first released on June 7th 2010.");
        assert!(a.nums.iter().all(|n| !n.ordinal), "{:?}", a.nums);
        assert_eq!(a.dates.len(), 1);
        assert!(Analysis::of("It was his 7th album.").nums.iter().any(|n| n.ordinal));
    }

    #[test]
    fn analyses_a_sentence() {
        let a = Analysis::of("Session tokens expire after 30 minutes of inactivity in Paris, not London.");
        assert!(a.keys.contains(&crate::lexicon::key("tokens")));
        assert!(!a.keys.iter().any(|k| k == "of"));
        assert_eq!(a.nums.len(), 1);
        assert_eq!(a.nums[0].value, BigRational::from_integer(1800.into()));
        assert_eq!(
            a.names.iter().map(Name::joined).collect::<Vec<_>>(),
            vec!["paris", "london"],
            "a sentence-opening word is not a name"
        );
        assert_eq!(a.negations, 1);
        assert!(a.negated.contains(&crate::lexicon::key("london")));
        assert!(!a.negated.contains(&crate::lexicon::key("tokens")));
        let names = |t: &str| Analysis::of(t).names.iter().map(|n| n.words.join(" ")).collect::<Vec<_>>();
        assert_eq!(names("The agent called Mr. Okafor in St. Louis."), ["mr okafor", "st louis"]);
        assert_eq!(names("It was written by J. K. Rowling."), ["j k rowling"]);
        assert!(Analysis::of("He was born in 1990.").refers_back);
        assert!(Analysis::of("which was released in 2012").refers_back);
        assert!(Analysis::of("As of 2012, his books have sold 275 million copies.").refers_back);
        assert!(!Analysis::of("As of 2012, the books of Dan Brown have sold 275 million copies.").refers_back);
        let r = Analysis::of(
            "Serendipity is a film directed by Peter Chelsom, written and produced by the Weinstein Company. Lucy Gordon starred. Founded in 1379 by William of Wykeham.",
        );
        let agents: Vec<(&str, &str)> = r.roles.iter().map(|r| (r.verb_text.as_str(), r.agent_text.as_str())).collect();
        assert_eq!(
            agents,
            vec![
                ("directed", "Peter Chelsom"),
                ("produced", "Weinstein Company"),
                ("written", "Weinstein Company"),
                ("starred", "Lucy Gordon"),
                ("Founded", "William of Wykeham")
            ]
        );
        let b = Analysis::of("It lasts one hour, since 1991.");
        assert_eq!(b.nums[0].value, BigRational::from_integer(3600.into()), "number words with units normalise too");
    }

    #[test]
    fn a_hyphen_writes_the_same_name_as_a_space() {
        let names = |t: &str| Analysis::of(t).names;
        let town = &names("Abong Mbang is a town.")[0];
        assert!(Analysis::of("In 2005 Abong-Mbang was a town and commune in the East Region.").has_name(town));
        let hyphenated = &names("The town of Abong-Mbang lies east.")[0];
        assert!(Analysis::of("It lies near Abong Mbang.").has_name(hyphenated));
        assert!(town.same_as(hyphenated));
        // Whole words only: a part of a hyphenated word is not the name.
        let pierre = &names("He met Pierre Rampal.")[0];
        assert!(!Analysis::of("He met Jean-Pierre Rampal.").has_name(pierre));
        let etienne = &names("He met Étienne.")[0];
        assert!(!Analysis::of("He lives in Saint-Étienne.").has_name(etienne));
    }

    #[test]
    fn names_and_numbers_match() {
        let src = Analysis::of("Rafael Nadal defeated Dominic Thiem in the final of 2017, earning $1,000.");
        let claim = Analysis::of("Nadal beat Thiem.");
        assert!(claim.names.iter().all(|n| src.has_name(n)));
        let c = Analysis::of("He earned 1000 dollars.");
        assert!(c.nums.iter().all(|n| src.has_num(n)));
        assert!(
            Analysis::of("President Richard Nixon")
                .names
                .iter()
                .all(|n| Analysis::of("after President Richard Nixon's middle name").has_name(n))
        );
        let year = Analysis::of("2006");
        assert!(
            year.nums.iter().all(|n| Analysis::of("It first aired in September 2006.").has_num(n))
                || year.dates.iter().all(|d| Analysis::of("It first aired in September 2006.").has_date(d))
        );
        let nine = Analysis::of("nine");
        assert!(Analysis::of("spent nine weeks at No. 1").has_num(&nine.nums[0]), "a bare number matches its written value");
        let fourth = Analysis::of("the fourth song");
        let second = Analysis::of("is the second song on the album");
        assert!(fourth.nums.iter().any(|n| n.ordinal && second.nums.iter().any(|m| n.differs_from(m))));
        assert!(
            !Analysis::of("The Singer").names.iter().all(|n| Analysis::of("a singer and actress").has_name(n)),
            "a name needs a capital"
        );
        assert!(Analysis::of("Roth was an Austrian novelist.").has_key(&crate::lexicon::key("author")));
        let span = Analysis::of("during the 2018–19 academic year");
        assert!(span.nums.iter().all(|n| n.surface != "19"), "{:?}", span.nums);
        assert!(span.nums.iter().all(|n| Analysis::of("over the 2018-2019 academic year").has_num(n)));
        assert!(span.dates.contains(&DateKey { year: Some(2019), month: None, day: None }), "{:?}", span.dates);
        assert!(span.dates.iter().all(|d| Analysis::of("over the 2018-2019 academic year").has_date(d)));
        assert!(!Analysis::of("scored 2018-19 points").dates.iter().any(|d| d.year == Some(1919)));
        let first = Analysis::of("the first corn");
        assert!(Analysis::of("corn was first domesticated").has_num(&first.nums[0]), "an ordinal said as an adverb");
        assert!(Analysis::of("their debut album").has_num(&Analysis::of("the first album").nums[0]));
        assert!(
            !Analysis::of("your first year").has_num(&Analysis::of("the first month").nums[0]),
            "a determined ordinal of another noun does not state it"
        );
        let stores = Analysis::of("about 40 drug stores");
        assert!(stores.nums[0].differs_from(&Analysis::of("50 drug stores").nums[0]));
        assert!(!stores.nums[0].differs_from(&Analysis::of("50 employees").nums[0]));
        assert_eq!(src.dates, vec![DateKey { year: Some(2017), month: None, day: None }]);
    }

    #[test]
    fn the_subject_is_read_only_from_plain_shapes() {
        let subject = |t: &str| Analysis::of(t).subject;
        let keys = |ws: &[&str]| ws.iter().map(|w| crate::lexicon::key(w)).collect::<Vec<_>>();
        assert_eq!(subject("In multipass distillation, the vapor from the first distillation is condensed"), keys(&["vapor"]));
        assert_eq!(subject("April's inflation rate was higher than in March"), keys(&["april", "inflation", "rate"]));
        assert_eq!(subject("Operating margin increased from 18% to 16%"), keys(&["operating", "margin"]));
        assert_eq!(subject("Norvale Corp shares fell 3.1% that day"), keys(&["norvale", "corp", "shares"]));
        // A pronoun, "there", the source itself, a fragment, an unclosed phrase: no subject.
        for t in [
            "It is condensed",
            "There are no discounts for students",
            "The document is a sales pitch not designed for businesses",
            "free trial and does not include a software suite",
            "In the long run nothing lasts",
            "Georgia grows peaches plums apples pears cherries figs and melons",
        ] {
            assert_eq!(subject(t), Vec::<String>::new(), "{t}");
        }
    }

    #[test]
    fn a_participle_inside_a_prepositional_phrase_is_said_of_its_noun() {
        let roles = |t: &str| Analysis::of(t).roles;
        let embedded = roles("\"More\" is a pop song adapted from a film score written by Riz Ortolani.");
        assert_eq!(embedded.len(), 1);
        assert_eq!(embedded[0].of_object, vec![crate::lexicon::stem("film"), crate::lexicon::stem("score")]);
        for t in ["The song was written by Riz Ortolani.", "It is a pop song written by Riz Ortolani."] {
            let r = roles(t);
            assert_eq!(r.len(), 1, "{t}");
            assert!(r[0].of_object.is_empty(), "{t}");
        }
    }

    #[test]
    fn a_name_that_opens_with_an_article_is_capitalised_past_it() {
        let claim = Analysis::of("'The Album' contains eight tracks.");
        let name = claim.names.iter().find(|n| n.words == ["the", "album"]).expect("the quoted title is a name");
        assert!(!Analysis::of("The album Nightfall contains one track.").has_name(name));
        assert!(Analysis::of("Her second record, The Album, contains eight tracks.").has_name(name));
    }

    #[test]
    fn clauses_end_at_line_breaks_and_sentence_marks() {
        let a = Analysis::of("members are against tobacco and alcohol\nmany members allow travel by airplane");
        let others = |ws: &[&str]| ws.iter().map(|w| crate::lexicon::key(w)).collect::<Vec<_>>();
        let allow = crate::lexicon::key("allow");
        assert!(!a.said_with(&allow, &others(&["tobacco", "alcohol"])));
        assert!(a.said_with(&allow, &others(&["travel"])));
        let b = Analysis::of("Members allow tobacco; alcohol is banned");
        assert!(b.said_with(&allow, &others(&["tobacco"])));
        assert!(!b.said_with(&allow, &others(&["alcohol", "banned"])));
        // A numeral counts as a word of the clause.
        assert!(
            Analysis::of("The byway can be accessed by U.S. Highway 60.")
                .said_with(&crate::lexicon::key("accessed"), &["60".to_string()])
        );
    }
}
