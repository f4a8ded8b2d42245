//! Claims: sentences split into atomic clauses, each with a modality from lexical and
//! syntactic cues and, when cue words make it clear, a domain.

use std::ops::Range;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;
use warrant_graph::Modality;
use warrant_text::pattern::compile as re;

/// Auxiliaries and copulas: a clause that has one has a verb.
const AUX: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "should",
    "shall",
    "may",
    "might",
    "must",
    "does",
    "do",
    "did",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "hasn't",
    "haven't",
    "won't",
    "can't",
    "cannot",
    "doesn't",
    "don't",
    "didn't",
    "shouldn't",
    "couldn't",
    "wouldn't",
    "it's",
    "that's",
    "there's",
];

/// Irregular past tenses and participles common in answers.
const IRREGULAR: &[&str] = &[
    "made",
    "built",
    "written",
    "wrote",
    "done",
    "did",
    "given",
    "gave",
    "taken",
    "took",
    "known",
    "knew",
    "shown",
    "showed",
    "seen",
    "saw",
    "found",
    "led",
    "held",
    "run",
    "ran",
    "sold",
    "paid",
    "sent",
    "left",
    "become",
    "became",
    "won",
    "began",
    "begun",
    "brought",
    "bought",
    "caught",
    "chose",
    "chosen",
    "drew",
    "drawn",
    "fell",
    "fallen",
    "felt",
    "fought",
    "got",
    "gotten",
    "grew",
    "grown",
    "heard",
    "hid",
    "hidden",
    "hit",
    "kept",
    "laid",
    "lost",
    "meant",
    "met",
    "put",
    "read",
    "rose",
    "risen",
    "said",
    "set",
    "shot",
    "shut",
    "sat",
    "slept",
    "spoke",
    "spoken",
    "spent",
    "stood",
    "stole",
    "struck",
    "swore",
    "taught",
    "told",
    "thought",
    "threw",
    "thrown",
    "understood",
    "went",
    "gone",
    "wore",
    "worn",
    "lay",
    "born",
    "includes",
    "contains",
    "uses",
    "runs",
    "costs",
    "takes",
    "requires",
    "supports",
    "means",
    "remains",
    "expires",
    "offers",
    "provides",
    "allows",
];

fn is_verbish(w: &str) -> bool {
    let w = w.to_lowercase();
    AUX.contains(&w.as_str()) || IRREGULAR.contains(&w.as_str()) || (w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed"))
}

fn tokens(s: &str) -> Vec<&str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')).filter(|t| !t.is_empty()).collect()
}

fn is_verb(t: &str) -> bool {
    is_verbish(t) || PRESENT_VERBS.contains(&t.to_lowercase().as_str())
}

fn has_verb(s: &str) -> bool {
    tokens(s).iter().any(|t| is_verb(t))
}

/// The text ends inside a short "that" clause that has no verb yet ("It was announced that
/// Belladonna, Spitz"): an "and" after it joins that clause's subjects ("… and Bello would
/// return", "on condition that he and his descendants could"), not two clauses. A pronoun
/// with words after it is a subject whose verb the word lists do not know ("that they call
/// it"): a clause after all.
fn open_complement(left: &str) -> bool {
    let words = tokens(left);
    words.iter().rposition(|w| w.eq_ignore_ascii_case("that")).is_some_and(|i| {
        let after = &words[i + 1..];
        (1..=6).contains(&after.len())
            && !after.iter().enumerate().any(|(j, t)| {
                is_verb(t)
                    || j + 1 < after.len()
                        && matches!(t.to_lowercase().as_str(), "i" | "you" | "he" | "she" | "it" | "we" | "they")
            })
    })
}

/// Present-tense verbs common in answers ("tokens expire", "the plan costs"): enough, with
/// the auxiliaries, to tell that the left side of "…, and …" is a clause.
const PRESENT_VERBS: &[&str] = &[
    "expire", "expires", "cost", "costs", "include", "includes", "support", "supports", "require", "requires", "contain",
    "contains", "provide", "provides", "allow", "allows", "offer", "offers", "last", "lasts", "run", "runs", "take", "takes",
    "make", "makes", "need", "needs", "use", "uses", "work", "works", "store", "stores", "keep", "keeps", "send", "sends",
    "reach", "reaches", "cover", "covers", "charge", "charges", "renew", "renews", "apply", "applies", "mean", "means", "remain",
    "remains", "become", "becomes", "show", "shows", "live", "lives", "lie", "lies", "flow", "flows", "grow", "grows",
];

const ADVERBS: &[&str] =
    &["first", "then", "also", "later", "still", "now", "often", "never", "always", "already", "soon", "again", "only", "even"];

/// The right side of a coordinator starts a clause: a verb among its first four tokens
/// (after adverbs).
fn starts_clause(s: &str) -> bool {
    // The verb comes before the next comma: in "Chad and Sudan, and declared …" the clause
    // starts at the second "and", not the first.
    let s = s.split(',').next().unwrap_or(s);
    let all: Vec<&str> =
        tokens(s).into_iter().filter(|w| !(w.ends_with("ly") || ADVERBS.contains(&w.to_lowercase().as_str()))).take(8).collect();
    // A capitalised auxiliary before a name or a number, or past the first word, is a month or
    // a name ("and Canada during May 2018", "and Will Ferrell"); it is skipped, so "and as of
    // May 2018 included …" still finds its verb.
    let named = |i: usize, w: &str| {
        w.starts_with(char::is_uppercase)
            && is_verbish(w)
            && (i > 0 || all.get(1).is_some_and(|n| n.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())))
    };
    let t: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|(i, w)| !named(*i, w))
        .map(|(_, w)| *w)
        .take(4)
        .collect();
    t.len() >= 2 && t.iter().any(|w| is_verbish(w))
}

static COORD: LazyLock<Regex> = LazyLock::new(|| re(r",?\s+(?:and|but|yet|while|whereas)\s+"));
/// A reason given after what the speaker likes or does ("I'm a fan of green because it's
/// between blue and yellow"): the reason may be a fact of its own.
static BECAUSE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i),?\s+(?:because|since)\s+"));
/// "…, as they are more energy efficient": "as" opening a clause of its own (a pronoun and
/// its verb) gives a reason, as "because" does; "as you know" is an aside.
static AS_REASON: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(,\s+as\s+)(?:it|they|he|she|we|you|this|these|those)\s+(?:(?:can|could|may|might)\s+)?([a-z]+)(?-u:\b)"));
/// A relative clause in a speaker's own sentence ("My favourite album was Clockwork Angels,
/// which was released in 2012"): the fact it adds about what precedes it is a claim of its own.
static RELATIVE_FACT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(,?\s+)(which|who|that)\s+(?:was|were|is|are|has|had|have)\s+\S"));
/// Verbs of an aside after "as" and its pronoun ("as you know", "as we can see").
const AS_ASIDES: &[&str] =
    &["know", "knew", "say", "said", "says", "see", "saw", "mentioned", "noted", "stated", "turns", "turned", "put", "well", "suggested", "pointed"];
/// A clause start that is a prepositional or adverbial lead-in ("On the Team plan", "In 2019",
/// "However"): a comma after it does not end a clause.
static LEAD_IN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:on|in|at|for|with|by|from|during|after|before|under|over|since|until|as|to|of|about|without|within|however|also|moreover|furthermore|additionally|although|though|because|while|when|if|once)(?-u:\b)",
    )
});
/// A comma splice whose second clause opens with "it", "he" or "she" and a verb in "-s" or
/// "-ed" ("you have to try it, it consists of tortilla chips …"; ", he played for …"). Group 1
/// is the verb: a reporting verb is a parenthesis ("The plan, he says, …"), not a clause.
static SPLICE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i),\s+(?:it|he|she)\s+(?:(?:also|still|now|often|usually|always|never|only|even|then|later)\s+)?([a-z]{2,}(?:s|ed))\s")
});
/// Verbs that make "…, it seems, …" a parenthesis.
const REPORTING: &[&str] = &[
    "says", "said", "seems", "seemed", "appears", "appeared", "thinks", "thought", "believes", "believed", "notes", "noted",
    "adds", "added", "explains", "explained", "claims", "claimed", "argues", "argued", "suggests", "suggested", "writes",
    "recalled", "recalls", "insists", "insisted", "admits", "admitted", "reports", "reported", "warns", "warned",
];
/// A comma splice: a second clause after a comma, opening with a pronoun and its verb or a
/// capitalised subject and a copula ("I'd go to Dublin, it's the capital of Ireland"; "i love
/// that show, The Walking Dead is an American series").
static SPLICE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i:,\s+(?:it's|it’s|it\s+(?:is|was|has)|he\s+(?:is|was|has)|she\s+(?:is|was|has)|they\s+(?:are|were|have)|this\s+(?:is|was)|that's|that\s+(?:is|was)|there\s+(?:is|are|was|were))\s)|,\s+(?:The\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}\s+(?:is|was|are|were)\s",
    )
});
/// A participle phrase after a comma: a present participle (", recording at Sun Records"), or a
/// past participle before its preposition (", formed in 1985", ", founded by …"), which says a
/// second thing of the subject ("GNR is from Los Angeles, formed in 1985"). Group 1 or 2 ends
/// where the participle does (the phrase's words after it must make two tokens); words that
/// only look like participles are in [`NOT_PARTICIPLES`].
static PARTICIPLE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r",\s+(?:((?:[a-z]+ly\s+)?[a-z]+ing)(?-u:\b)|((?:[a-z]+ly\s+)?(?:[a-z]{2,}ed|born|built|made|written|known|held|sold|won|begun|led|founded|run|shot|set|grown|drawn|shown|given|taken))\s+(?:in|on|at|by|from|as|for|with|after|during|under|into)(?-u:\b))",
    )
});
/// Words ending in "ed" that are no past participle ("a hundred in stock", "indeed at").
const NOT_PARTICIPLES: &[&str] = &["hundred", "indeed", "need", "speed", "seed", "feed", "breed", "bed", "red", "shed", "sled"];

static LIST_MARKER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:[-*+•]\s+|\d{1,3}[.)]\s+|>\s*|#{1,6}\s+|(?i:step)\s+\d{1,3}\s*[:.)-]\s*)"));
static TRAILING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:\s*\[\d{1,3}(?:\s*[,–-]\s*\d{1,3})*\]|\s*\((?:[A-Z][^()]{0,60}?,\s*)?(?:19|20)\d{2}[a-z]?\)|\s*\(\s*https?://[^)]*\))+\s*$",
    )
});

/// Trims a clause range: list markers, emphasis, trailing punctuation and citation markers.
pub fn tidy(text: &str, mut r: Range<usize>) -> Range<usize> {
    loop {
        let before = r.clone();
        let s = &text[r.clone()];
        let lead = s.len() - s.trim_start().len();
        r.start += lead;
        r.start += framing_lead(&text[r.clone()]);
        let starts_marker = text[r.clone()].starts_with(['-', '*', '+', '•', '>', '#', 's', 'S'])
            || text[r.clone()].starts_with(|c: char| c.is_ascii_digit());
        if starts_marker && let Some(m) = LIST_MARKER.find(&text[r.clone()]) {
            r.start += m.end();
        }
        // An emphasis or quote mark left open at the start (its partner fell outside the
        // clause) is dropped; balanced ones stay, so the claim is the text as written.
        for marker in ["**", "__", "\"", "“", "(", "'"] {
            let s = &text[r.clone()];
            let partner = match marker {
                "“" => "”",
                "(" => ")",
                m => m,
            };
            if s.starts_with(marker) && !s[marker.len()..].contains(partner) {
                r.start += marker.len();
            }
        }
        let s = &text[r.clone()];
        let trimmed = s.trim_end();
        r.end = r.start + trimmed.len();
        if text[r.clone()].ends_with([')', ']'])
            && let Some(m) = TRAILING.find(&text[r.clone()])
        {
            r.end = r.start + m.start();
        }
        let s = &text[r.clone()];
        let t = s.trim_end_matches(['.', '!', ';', ',', ':', '…', ' ', '\t']);
        r.end = r.start + t.len();
        let s = &text[r.clone()];
        // Balance a lone closing quote or bracket.
        for (open, close) in [("\"", "\""), ("“", "”"), ("(", ")")] {
            if s.ends_with(close) && !s[..s.len() - close.len()].contains(open) {
                r.end -= close.len();
            }
        }
        if r == before || r.start >= r.end {
            break;
        }
    }
    if r.start > r.end {
        r.end = r.start;
    }
    r
}

static META: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:let\s+me|let's|let\s+us|i'll|i\s+will|i'm\s+going\s+to|i\s+am\s+going\s+to|here's|here\s+is|here\s+are|below\s+is|below\s+are|the\s+following)(?-u:\b)",
    )
});

/// Sentences about the sources rather than the world ("The passages do not mention …", "I
/// could not find …", "No information is provided about …"): framing, not claims.
static ABOUT_SOURCES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:(?:however,?\s+)?(?:the|these|this)\s+(?:provided\s+|given\s+|above\s+|retrieved\s+)?(?:passages?|context|texts?|documents?|sources?|search\s+results|excerpts?|articles?|information(?:\s+(?:provided|given))?|data(?:\s+provided)?)\s+(?:do(?:es)?\s+not|don't|doesn't|did\s+not|didn't|provides?\s+no|contains?\s+no|makes?\s+no|(?:is|are)\s+not)|(?:there\s+is|there's|there\s+are)\s+no\s+(?:information|mention|details?|data|indication)|no\s+(?:information|details?|mention)\s+(?:is|are|was|were)\s+(?:provided|given|mentioned|available|found)|i\s+(?:could\s+not|couldn't|can't|cannot|was\s+unable\s+to|am\s+unable\s+to|do\s+not\s+have|don't\s+have)\s+(?:find|locate|determine|provide|access|verify|confirm|answer|information|enough))",
    )
});

/// A lead-in that frames what follows as drawn from the sources or as a summary ("Based on
/// the passages provided, …", "According to the context, …", "In summary, …"): not part of
/// the claim.
static FRAMING_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:based\s+on|according\s+to|from|per|as\s+(?:stated|mentioned|described|shown)\s+in)\s+(?:the\s+|these\s+|this\s+)?(?:provided\s+|given\s+|above\s+|available\s+|retrieved\s+)?(?:passages?|context|texts?|documents?|sources?|search\s+results|excerpts?|information|data|articles?|reviews?|records?|details)(?:\s+(?:provided|given|above|available|you\s+(?:provided|shared|gave)))?|in\s+summary|to\s+summari[sz]e|in\s+conclusion|to\s+sum\s+up|overall|in\s+short)\s*,\s*|(?:(?:yes|yeah|no|ok|okay|well|oh|ah|wow|honestly|actually|and|but|so)\W+)*(?:i|we)\s*(?:'m|’m|am|'ve|’ve|have|had|do|did)?\s*(?:(?:also|just|really|actually|already|definitely|certainly)\s+)?(?:know|knew|read|heard|learned|learnt|sure|certain|aware|remember|recall|noticed|found\s+out|discovered|reali[sz]ed|understand|understood|find\s+it\s+(?:interesting|amazing|funny|cool|crazy|surprising|fascinating|sad|odd|strange))(?:\s+(?:about\s+it\s+)?(?:that|how))?\s+|(?:(?:yes|yeah|well|oh|ah|honestly)\W+)*(?:i\s*(?:'m|’m|am)\s+not\s+(?:sure|certain)|i\s+(?:don't|don’t|do\s+not)\s+know)(?:\s+(?:about\s+that|of\s+that))?\s*,?\s+(?:but|though)\s+|(?:it\s*(?:'|’)\s*s|it\s+is)\s+(?:interesting|amazing|funny|cool|crazy|surprising|fascinating|true|nice|great|neat|sad|incredible|impressive|wild)\s+that\s+|(?:(?:yes|yeah|yea|well|oh|ah|so)\W+)*i\s+can\s+tell\s+you\s+(?:that\s+)?|(?:(?:yes|yeah|yea|yep|well|oh|ah|wow)\W+)*(?:that\s*(?:'|’)?\s*s|that\s+is|it\s*(?:'|’)?\s*s|it\s+is)\s+(?:(?:so|really|very|pretty|quite)\s+)?(?:great|cool|awesome|amazing|interesting|nice|true|right|neat|funny|crazy|good|a\s+(?:lovely|great|cool|fun|nice|good|interesting)\s+fact)\s*[,;]\s+|(?:(?:yes|yeah|yea|well|oh|ah|wow|and|but|so)\W+)*(?:i|we)\s*(?:(?:do|did)\s*(?:n't|n’t|not)|never)\s+(?:know|knew|reali[sz]ed?|heard)\s+that\s+",
    )
});

/// Questions that assert what they ask about ("Did you know that Jefferson wrote his own
/// Bible?", "Are you aware his career began in 1954?"): the lead-in up to the proposition.
static ASSERTING_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:(?:hi|hello|hey|yes|yeah|yea|oh|well|so|but|and|wow|ok|okay)\W+)*(?:(?:did|do)\s+you\s+(?:know|reali[sz]e|hear)|have\s+you\s+heard|are\s+you\s+aware|you\s+know)(?:\s+that)?\s+",
    )
});

/// Where the proposition of a question that asserts it begins ("Did you know that X?" states
/// X), if the sentence is one and X has four words or more; "Did you know about X?" asks.
pub fn asserted_by_question(sentence: &str) -> Option<usize> {
    let m = ASSERTING_QUESTION.find(sentence)?;
    let rest = &sentence[m.end()..];
    let words = rest.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count();
    let about = rest.trim_start().to_lowercase();
    (words >= 4 && !about.starts_with("about ") && !about.starts_with("of ") && !about.starts_with("if ")).then_some(m.end())
}

/// True for a sentence about the sources themselves ("The passages do not mention the
/// price"): it frames the answer and states nothing about the world.
pub fn is_about_sources(sentence: &str) -> bool {
    ABOUT_SOURCES.is_match(sentence)
}

/// The length of a framing lead-in at the start of `clause` ("Based on the passages, "), if any.
pub fn framing_lead(clause: &str) -> usize {
    FRAMING_LEAD.find(clause).map_or(0, |m| m.end())
}

/// True for sentences about the answer itself ("Let me work through this", "Here is the
/// code"): they announce rather than claim.
pub fn is_meta(sentence: &str) -> bool {
    META.is_match(sentence)
}

/// Splits a sentence into clause ranges (untidied).
pub fn clauses(text: &str, sentence: Range<usize>) -> Vec<Range<usize>> {
    let mut parts = vec![sentence.clone()];
    // Semicolons first.
    parts = parts
        .into_iter()
        .flat_map(|r| {
            let mut out = Vec::new();
            let mut start = r.start;
            for (i, _) in text[r.clone()].match_indices(';') {
                out.push(start..r.start + i);
                start = r.start + i + 1;
            }
            out.push(start..r.end);
            out
        })
        .collect();
    // Conditionals stay whole: "If X, Y and Z" is one claim.
    let split_ok = |r: &Range<usize>| !COND_START.is_match(&text[r.clone()]);
    let mut out = Vec::new();
    for r in parts {
        if !split_ok(&r) {
            out.push(r);
            continue;
        }
        let mut start = r.start;
        let s = &text[r.clone()];
        let mut cuts: Vec<(usize, usize)> = Vec::new();
        // (start, end, kind): a coordinator, a participle phrase, or a comma splice (whose
        // right side keeps its subject: the cut is at the comma).
        let mut candidates: Vec<(usize, usize, u8)> = COORD
            .find_iter(s)
            .map(|m| (m.start(), m.end(), 0))
            .chain(PARTICIPLE.captures_iter(s).filter_map(|c| {
                // The participle is the group's last word ("mostly founded").
                let past = c.get(2).filter(|p| !NOT_PARTICIPLES.contains(&p.as_str().rsplit(char::is_whitespace).next().unwrap_or_default()));
                Some((c.get(0)?.start(), c.get(1).or(past)?.end(), 1))
            }))
            .chain(SPLICE.find_iter(s).map(|m| (m.start(), m.start() + 1, 2)))
            .chain(SPLICE_VERB.captures_iter(s).filter_map(|c| {
                let verb = c.get(1)?.as_str().to_lowercase();
                let whole = c.get(0)?;
                (!REPORTING.contains(&verb.as_str()) && !verb.ends_with("ss")).then_some((whole.start(), whole.start() + 1, 2))
            }))
            .collect();
        let mut reasons: Vec<(usize, usize, u8)> = BECAUSE
            .find_iter(s)
            .map(|m| (m.start(), m.end(), 3))
            .chain(AS_REASON.captures_iter(s).filter_map(|c| {
                let verb = c.get(2)?.as_str().to_lowercase();
                c.get(1).filter(|_| !AS_ASIDES.contains(&verb.as_str())).map(|m| (m.start(), m.end(), 3))
            }))
            .collect();
        // Not inside a reason: "because it is evoked by light, which has …" is one fact.
        let first_reason = reasons.iter().map(|r| r.0).min().unwrap_or(usize::MAX);
        reasons.extend(RELATIVE_FACT.captures_iter(s).filter(|c| c.get(0).is_some_and(|m| m.start() < first_reason)).filter_map(|c| {
            let (sep, pronoun) = (c.get(1)?, c.get(2)?);
            // "that" is relative after a name or a quoted title ("liked \"Creep\" that was …"),
            // not after a verb ("I think that is …").
            let before = s[..sep.start()].trim_end();
            let after_name = before.rsplit(char::is_whitespace).next().is_some_and(|w| w.starts_with(char::is_uppercase))
                && before.contains(char::is_whitespace);
            let relative = !pronoun.as_str().eq_ignore_ascii_case("that") || before.ends_with(['"', '”']) || after_name;
            // Only a clause carrying something checkable: an amount, a date or a name.
            let rest = &s[pronoun.end()..];
            let checkable = rest.contains(|c: char| c.is_ascii_digit()) || rest.split_whitespace().skip(1).any(|w| w.starts_with(char::is_uppercase));
            (relative && checkable).then_some((sep.start(), sep.end(), 3))
        }));
        // Asked once per sentence, and only when it has a reason clause at all.
        if !reasons.is_empty() && gives_own_reason(s) {
            candidates.extend(reasons);
        }
        candidates.sort_unstable();
        for (ms, me, kind) in candidates {
            if r.start + ms < start {
                continue;
            }
            let left = &text[start..r.start + ms];
            let right = &text[r.start + me..r.end];
            let matched = &s[ms..me];
            let is_participle = kind == 1;
            let right_ok = match kind {
                1 => tokens(right).len() >= 2,
                // "On the Team plan, SSO is supported": a lead-in phrase, not a clause.
                2 => !LEAD_IN.is_match(left),
                // The reason after a personal clause: any clause of three words or more.
                3 => tokens(right).len() >= 3,
                _ => starts_clause(right),
            };
            if (has_verb(left) && !open_complement(left) || kind >= 2)
                && right_ok
                && tokens(left).len() >= 3
                && tokens(right).len() >= 2
            {
                let cut_end = if is_participle {
                    r.start + ms + matched.find(|c: char| c.is_alphabetic()).unwrap_or(0)
                } else {
                    r.start + me
                };
                cuts.push((r.start + ms, cut_end));
                start = cut_end;
            }
        }
        cuts.sort();
        let mut pos = r.start;
        for (a, b) in cuts {
            if a > pos {
                out.push(pos..a);
                pos = b;
            }
        }
        out.push(pos..r.end);
    }
    out.into_iter().filter(|r| r.start < r.end).collect()
}

static COND_START: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\s*(?:[-*]\s+)?(?:if|when|whenever|unless|provided\s+that|as\s+long\s+as|in\s+case|once)(?-u:\b)")
});
static INSTRUCTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:(?:please|first|then|next|finally|now|also|step\s+\d+:?)\s*,?\s+)?(?:add|apply|avoid|be|buy|call|change|check|choose|click|close|configure|consider|contact|copy|create|delete|do|don't|download|enable|disable|enter|ensure|follow|get|go|install|keep|let|make|note|open|pay|press|put|read|remember|remove|replace|restart|run|save|select|send|set|sign|start|stop|take|try|turn|type|update|upload|use|verify|visit|wait|write|never|always|log|book|drink|eat|see|refer|fill|submit|review|reach|store|rotate|limit|include|define|import|test|deploy|back|consult|enjoy|ask|seek|speak|bring|carry|finish|double-check)(?:[^\w-]|$)",
    )
});

/// Word-level cues, found in one Aho-Corasick pass (case-insensitive, whole words).
const CONDITIONAL: u8 = 1;
const HYPOTHETICAL: u8 = 2;
const YOU_SHOULD: u8 = 4;
const OPINION: u8 = 8;

static CUE_WORDS: LazyLock<(AhoCorasick, Vec<u8>)> = LazyLock::new(|| {
    let table: &[(u8, &[&str])] = &[
        (CONDITIONAL, &["if", "unless", "provided that", "as long as", "in case", "only when", "whenever"]),
        (
            HYPOTHETICAL,
            &[
                "might",
                "perhaps",
                "possibly",
                "maybe",
                "imagine",
                "suppose",
                "supposing",
                "hypothetically",
                "what if",
                "were to",
                "in theory",
                "could have",
                "would have",
                "might have",
                "assuming",
                "let's say",
            ],
        ),
        (
            YOU_SHOULD,
            &[
                "you should",
                "you must",
                "you need to",
                "you have to",
                "you'll need to",
                "you will need to",
                "make sure",
                "be sure to",
            ],
        ),
        (
            OPINION,
            &[
                "i think",
                "i believe",
                "i feel",
                "i guess",
                "in my opinion",
                "in my view",
                "in my experience",
                "personally",
                "i'd say",
                "i prefer",
                "i recommend",
                "i'd recommend",
                "i would recommend",
                "i suggest",
                "i'd suggest",
                "i would suggest",
                "arguably",
                "seems to me",
                "best",
                "worst",
                "safest",
                "nicest",
                "greatest",
                "coolest",
                "great",
                "amazing",
                "awesome",
                "terrible",
                "awful",
                "beautiful",
                "lovely",
                "wonderful",
                "excellent",
                "fantastic",
                "horrible",
                "delightful",
                "overrated",
                "underrated",
                "boring",
                "exciting",
                "favorite",
                "favourite",
            ],
        ),
    ];
    let mut words = Vec::new();
    let mut tags = Vec::new();
    for (tag, ws) in table {
        for w in *ws {
            words.push(*w);
            tags.push(*tag);
        }
    }
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(&words)
        .unwrap_or_else(|e| panic!("{e}"));
    (ac, tags)
});

/// The word-cue categories present in `text` (whole words only).
fn cue_words(text: &str) -> u8 {
    let (ac, tags) = &*CUE_WORDS;
    let b = text.as_bytes();
    let mut found = 0;
    for m in ac.find_iter(text) {
        let before = m.start() == 0 || !b[m.start() - 1].is_ascii_alphanumeric();
        let after = m.end() == b.len() || !b[m.end()].is_ascii_alphanumeric();
        if before && after && !(tags[m.pattern().as_usize()] == OPINION && descriptive_use(text, m.start(), m.end())) {
            found |= tags[m.pattern().as_usize()];
        }
    }
    found
}

/// True when an evaluative word is used descriptively: capitalised inside a sentence, it is
/// part of a name or title ("Best Actor", "Great Britain"); before "known" or "selling" it is a
/// fact about reputation or sales ("best known for", "best-selling"); an award's category ("a
/// Grammy Award for best rap album"), a measure ("the greatest concentration of species"), a
/// fixed name written in lower case ("great britain") or a judgement the sentence reports
/// ("is considered the greatest quarterback", "was voted best") is a fact too.
fn descriptive_use(text: &str, start: usize, end: usize) -> bool {
    let titled = text.as_bytes()[start].is_ascii_uppercase() && !text[..start].trim().is_empty();
    let rest = text[end..].trim_start_matches([' ', '-']);
    // Award categories ("best actor", "best new artist") are names of prizes, not judgements.
    const CATEGORIES: [&str; 9] = ["known", "selling", "seller", "actor", "actress", "picture", "film", "director", "new artist"];
    // What a superlative measures ("the greatest number of …"), and names that begin with
    // "great" ("great britain", "the great depression").
    const MEASURES: [&str; 12] = [
        "number", "concentration", "amount", "extent", "share", "density", "depth", "height", "diversity", "britain", "lakes",
        "depression",
    ];
    let words_before: Vec<String> =
        text[..start].split_whitespace().rev().take(6).map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase()).collect();
    let before = |w: &[&str]| words_before.iter().any(|b| w.contains(&b.as_str()));
    let award = words_before.first().is_some_and(|w| w == "for") && before(&["award", "awards", "prize", "grammy", "oscar", "emmy"]);
    let reported = before(&["considered", "regarded", "ranked", "voted", "named", "rated", "hailed", "described", "called"]);
    titled
        || award
        || reported
        || CATEGORIES.iter().chain(&MEASURES).any(|c| rest.get(..c.len()).is_some_and(|p| p.eq_ignore_ascii_case(c)))
}

/// Modality cues found in a sentence (computed once, shared by its clauses).
#[derive(Debug, Clone, Copy)]
pub struct Cues {
    words: u8,
    cond_start: bool,
    starts_with_i: bool,
}

/// True when the clause's subject is the speaker ("I love hiking", "Yea my dog is …", "Even if
/// I suck at it, I like bowling"), not a name that starts with "My" ("My Morning Jacket
/// released …").
pub fn personal(clause: &str) -> bool {
    // The lead clause must say nothing a source could hold: "Although Nirvana formed in 1987, I
    // love them" still states a fact.
    if main_clause(clause).is_some_and(|main| personal(main) && carries_no_value(&clause[..clause.len() - main.len()])) {
        return true;
    }
    let Some(m) = PERSONAL.find(clause) else { return speaks_of_self(clause) };
    let after = clause[m.end()..].trim_start();
    let pronoun = clause[..m.end()].trim_end();
    !(pronoun.ends_with("My") && after.starts_with(char::is_uppercase)) || speaks_of_self(clause)
}

/// True when a sentence is the speaker's own or no statement of fact (advice, an opinion, a
/// guess): a reason it gives ("…, as they are more energy efficient") may be a fact of its own.
fn gives_own_reason(sentence: &str) -> bool {
    personal(sentence) || modality_with(sentence, sentence, &cues(sentence)) != Modality::Factual
}

/// The main clause after a leading subordinate clause set off by a comma ("Even if I suck at
/// bowling, I like the ambiance" → "I like the ambiance"), if the text opens with one.
fn main_clause(text: &str) -> Option<&str> {
    let m = SUBORDINATE_LEAD.find(text)?;
    let comma = text[m.end()..].find(", ")? + m.end();
    Some(text[comma + 2..].trim_start()).filter(|rest| !rest.is_empty())
}

static SUBORDINATE_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:even\s+if|even\s+though|if|when|whenever|unless|although|though|because|since|once|while|as\s+long\s+as)(?-u:\b)",
    )
});

/// True when the speaker is the clause's subject ("I recently read the book", "i've never
/// used it"), and the clause holds no second clause after a comma whose subject a continuation
/// could take ("I enjoy football, it originated in …").
pub fn speaker_is_subject(clause: &str) -> bool {
    let Some(m) = PERSONAL.find(clause) else { return false };
    let pronoun = clause[..m.end()].trim_end().to_lowercase();
    let possessive_or_object = ["my", "me", "myself"].iter().any(|p| pronoun.ends_with(p));
    !(possessive_or_object || clause[m.end()..].contains(','))
}

/// True when a clause cut from one whose subject is the speaker goes on about the speaker: it
/// opens with its verb and carries no value of its own ("… and was disappointed by the ending";
/// "… and saw the Corvin tower" may be said of the tower).
pub fn continues_speaker(clause: &str) -> bool {
    continues_subject(clause) && carries_no_value(clause)
}

/// True when a clause opens with its verb ("was disappointed by the ending", "scoring often
/// over 200 points"): its subject is the one of the clause it was cut from.
fn continues_subject(clause: &str) -> bool {
    let first = tokens(clause).into_iter().find(|w| !(w.ends_with("ly") || ADVERBS.contains(&w.to_lowercase().as_str())));
    first.is_some_and(|w| {
        // "it's", "that's": a subject and its verb.
        !w.contains(['\'', '’']) && (is_verbish(w) || w.len() > 4 && w.to_lowercase().ends_with("ing"))
    })
}

/// The speaker's own words ("I", "I'm", "my", …). Not "mine": a capitalised "Mine" names a
/// place ("Barton Mine").
const FIRST_PERSON: &[&str] = &["i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "me", "my", "myself"];

fn is_self(w: &str) -> bool {
    FIRST_PERSON.contains(&w.to_lowercase().as_str())
}

/// True when a clause has no digit and no capitalised word after its first (the speaker's "I"
/// aside): nothing a source could hold.
fn carries_no_value(clause: &str) -> bool {
    !clause.bytes().any(|b| b.is_ascii_digit())
        && !tokens(clause).iter().skip(1).any(|w| w.starts_with(char::is_uppercase) && !(w.starts_with('I') && is_self(w)))
}

/// True when a clause tells of the speaker's own life past its first word ("Bowling is fun, i
/// like to play with my son", "it allowed me to be part of it") and carries no value a source
/// could hold: no digit and no capitalised word after its first (the speaker's "I" aside).
fn speaks_of_self(clause: &str) -> bool {
    // A relative clause carries its own fact ("from amazon.com, which is the largest …").
    !clause.contains(", which")
        && !clause.contains(", who")
        && carries_no_value(clause)
        && tokens(clause).iter().any(|w| is_self(w))
}

/// A sentence whose subject is the speaker: first person singular.
static PERSONAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(?:(?:yes|no|yeah|yea|yep|yup|nah|nope|ok|okay|alright|hmm|um|uh|hi|hey|hello|well|oh|ooh|ah|aw|haha|lol|sure|nice|cool|wow|honestly|actually)\W+)*(?:i|i'm|i’m|i've|i’ve|i'd|i’d|i'll|i’ll|my|me|myself)(?-u:\b)",
    )
});

/// Scans a sentence for modality cues.
pub fn cues(sentence: &str) -> Cues {
    Cues {
        words: cue_words(sentence),
        cond_start: COND_START.is_match(sentence),
        starts_with_i: sentence.trim_start().get(..2).is_some_and(|p| p.eq_ignore_ascii_case("i ")),
    }
}

/// The modality of a clause within its sentence, given the sentence's cues.
pub fn modality_with(clause: &str, sentence: &str, s: &Cues) -> Modality {
    let c = if clause.len() == sentence.len() { s.words } else { cue_words(clause) };
    // An imperative stays an instruction under a condition ("Please consult a pharmacist if
    // you are unsure").
    if INSTRUCTION.is_match(clause) {
        return Modality::Instruction;
    }
    if s.cond_start || c & CONDITIONAL != 0 {
        // "If I don't force myself, I get discouraged": the speaker's own, conditions and all.
        return if main_clause(clause).is_some_and(personal) { Modality::Opinion } else { Modality::Conditional };
    }
    if s.words & HYPOTHETICAL != 0 {
        return Modality::Hypothetical;
    }
    if c & YOU_SHOULD != 0 {
        return Modality::Instruction;
    }
    // What the speaker likes, did or has is theirs to say: no source confirms it (the clause's
    // subject is the speaker; "I love Nirvana, but they formed in 1987" states a fact after the
    // comma).
    if c & OPINION != 0 || (s.words & OPINION != 0 && s.starts_with_i) || personal(clause) {
        return Modality::Opinion;
    }
    Modality::Factual
}

static DOMAINS: LazyLock<(AhoCorasick, Vec<&'static str>)> = LazyLock::new(|| {
    let table: &[(&str, &[&str])] = &[
        (
            "medical",
            &[
                "patient",
                "patients",
                "dose",
                "dosage",
                "mg",
                "symptom",
                "symptoms",
                "diagnosis",
                "treatment",
                "disease",
                "drug",
                "medication",
                "clinical",
                "therapy",
                "vaccine",
                "infection",
                "doctor",
                "surgery",
                "blood",
                "prescription",
            ],
        ),
        (
            "legal",
            &[
                "law",
                "laws",
                "court",
                "contract",
                "liability",
                "statute",
                "regulation",
                "legal",
                "lawsuit",
                "attorney",
                "plaintiff",
                "defendant",
                "gdpr",
                "compliance",
                "jurisdiction",
                "copyright",
                "license",
                "licence",
            ],
        ),
        (
            "financial",
            &[
                "price",
                "cost",
                "costs",
                "tax",
                "interest",
                "invest",
                "investment",
                "revenue",
                "profit",
                "loan",
                "mortgage",
                "budget",
                "payment",
                "refund",
                "invoice",
                "salary",
                "stock",
                "dividend",
                "tip",
                "discount",
                "fee",
                "fees",
            ],
        ),
        (
            "programming",
            &[
                "code",
                "function",
                "python",
                "javascript",
                "api",
                "compile",
                "variable",
                "library",
                "bug",
                "repository",
                "script",
                "server",
                "database",
                "query",
                "token",
                "tokens",
                "endpoint",
                "deploy",
                "runtime",
                "programming",
                "software",
            ],
        ),
        ("travel", &["flight", "flights", "hotel", "airport", "booking", "passport", "visa", "itinerary", "airline", "trip"]),
        ("shipping", &["order", "shipped", "shipping", "delivery", "tracking", "package", "parcel", "courier"]),
    ];
    let mut words = Vec::new();
    let mut labels = Vec::new();
    for (d, ws) in table {
        for w in *ws {
            words.push(*w);
            labels.push(*d);
        }
    }
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(&words)
        .unwrap_or_else(|e| panic!("{e}"));
    (ac, labels)
});

/// The domain, when cue words make it clear: the most frequent domain with at least one cue,
/// unless two domains tie.
pub fn domain(sentence: &str) -> Option<&'static str> {
    let (ac, labels) = &*DOMAINS;
    let bytes = sentence.as_bytes();
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for m in ac.find_iter(sentence) {
        let before = m.start() == 0 || !bytes[m.start() - 1].is_ascii_alphanumeric();
        let after = m.end() == bytes.len() || !bytes[m.end()].is_ascii_alphanumeric();
        if !(before && after) {
            continue;
        }
        let d = labels[m.pattern().as_usize()];
        match counts.iter_mut().find(|(x, _)| *x == d) {
            Some(c) => c.1 += 1,
            None => counts.push((d, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    match counts.as_slice() {
        [] => None,
        [(d, _)] => Some(d),
        [(d, a), (_, b), ..] if a > b => Some(d),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(t: &str) -> Vec<&str> {
        clauses(t, 0..t.len()).into_iter().map(|r| &t[tidy(t, r)]).collect()
    }

    #[test]
    fn a_question_that_asserts_states_its_proposition() {
        fn at(s: &str) -> Option<&str> {
            asserted_by_question(s).map(|i| &s[i..])
        }
        assert_eq!(at("Did you know that Jefferson wrote his own Bible?"), Some("Jefferson wrote his own Bible?"));
        assert_eq!(at("Hi. Are you aware his career began in 1954?"), Some("his career began in 1954?"));
        assert_eq!(at("Are you aware his career began in 1954?"), Some("his career began in 1954?"));
        assert_eq!(at("Did you know about the bible?"), None);
        assert_eq!(at("Do you know if it rains?"), None);
        assert_eq!(at("Do you like them?"), None);
        assert_eq!(framing_lead("I didn't know that the band formed in Hanna"), "I didn't know that ".len());
        assert_eq!(framing_lead("I can tell you that Kurt Cobain was a singer"), "I can tell you that ".len());
        assert_eq!(framing_lead("It 's nice that Ireland is an island"), "It 's nice that ".len());
        assert_eq!(framing_lead("I can swim"), 0);
        assert_eq!(framing_lead("thats great, many creatures have adapted"), "thats great, ".len());
        assert_eq!(framing_lead("Yeah its a lovely fact , strikes are rare"), "Yeah its a lovely fact , ".len());
        assert_eq!(framing_lead("That is great news for the team"), 0);
    }

    #[test]
    fn the_speakers_own_life_is_personal_past_the_first_word() {
        assert!(speaks_of_self("Bowling is fun, i like to play with my son when we go to the park"));
        assert!(speaks_of_self("it allowed me to be a part of the creation of my own world"));
        // A value a source could hold keeps the clause checkable.
        assert!(!speaks_of_self("i also started playing on the playstation 1"));
        assert!(!speaks_of_self("My uncle says Nickelback formed in Hanna"));
        assert!(!speaks_of_self("and i get my stuff from amazon.com, which is the largest internet retailer"));
        // "Mine" names a place; no first person here.
        assert!(!speaks_of_self("Barton Mine"));
        assert!(!speaks_of_self("The band released its first album"));
    }

    #[test]
    fn the_speaker_as_subject_is_personal() {
        for t in ["I love hiking", "Yea I love it", "Oh, my dog is afraid of thunder", "Aw i miss it"] {
            assert!(personal(t), "{t}");
        }
        // The main clause after a leading condition decides.
        assert!(personal("Even if I suck at bowling, I like the ambiance"));
        assert!(!personal("Even if it rains, the Corvin tower opens at 9"));
        // A name that starts with "My" is not the speaker.
        assert!(!personal("My Morning Jacket released Z in 2005"));
        // A fact in the lead clause is still checked.
        assert!(!personal("Although Nirvana formed in 1987, I love them"));
        // Multi-byte text in the lead clause and at the cut.
        assert!(personal("Even if I’m tired after the café, I like it"));
        assert!(!personal("Even if Zoë’s café closed in 2019, I like it"));
        assert!(!personal("The band released its first album in 1999"));
    }

    #[test]
    fn a_clause_cut_from_the_speakers_own_keeps_its_subject() {
        assert!(continues_speaker("was disappointed by the ending"));
        assert!(!continues_speaker("saw the Corvin tower"));
        assert!(continues_subject("was disappointed by the ending"));
        assert!(continues_subject("scoring often over 200 points"));
        assert!(continues_subject("really loved it"));
        assert!(!continues_subject("it's owned by facebook"));
        assert!(!continues_subject("the tower opened in 1901"));
        assert!(speaker_is_subject("i recently read the deathly hallows"));
        assert!(speaker_is_subject("Yes, I've never used it"));
        // "my favourite team" is the subject, not the speaker; a splice has a subject of its own.
        assert!(!speaker_is_subject("my favorite team is gridiron"));
        assert!(!speaker_is_subject("I enjoy football, it originated in the United States"));
        assert!(carries_no_value("was disappointed by the ending"));
        assert!(!carries_no_value("saw the Corvin tower"));
        assert!(!carries_no_value("scoring over 200 points"));
        assert_eq!(main_clause("Even if I suck at bowling, I like the ambiance"), Some("I like the ambiance"));
        assert_eq!(main_clause("I like bowling, even if I suck at it"), None);
        // Multi-byte text around the comma.
        assert_eq!(main_clause("When I was in Zürich, café prices were high"), Some("café prices were high"));
    }

    #[test]
    fn compound_sentences_split_into_clauses() {
        assert_eq!(
            split("Python was created by Guido van Rossum and first released in 1991."),
            vec!["Python was created by Guido van Rossum", "first released in 1991"]
        );
        assert_eq!(
            split(
                "It has become one of the most popular programming languages in the world, consistently ranking in the top 3 on the TIOBE index."
            ),
            vec![
                "It has become one of the most popular programming languages in the world",
                "consistently ranking in the top 3 on the TIOBE index"
            ]
        );
        assert_eq!(split("Salt and pepper are common."), vec!["Salt and pepper are common"]);
        assert_eq!(
            split("It was announced in April 2005 that Lund, Ortega and Pike would return for a tour."),
            vec!["It was announced in April 2005 that Lund, Ortega and Pike would return for a tour"]
        );
        assert_eq!(
            split("He said that the tour was over and the band was dissolved in 2010."),
            vec!["He said that the tour was over", "the band was dissolved in 2010"]
        );
        assert_eq!(
            split("you have to try it, it consists of tortilla chips covered with cheese."),
            vec!["you have to try it", "it consists of tortilla chips covered with cheese"]
        );
        assert_eq!(split("The plan, he says, costs less."), vec!["The plan, he says, costs less"]);
        assert_eq!(
            split("He gave the house away on condition that he and his children could stay."),
            vec!["He gave the house away on condition that he and his children could stay"]
        );
        assert_eq!(
            split("Session tokens expire after one hour, and all data is encrypted at rest."),
            vec!["Session tokens expire after one hour", "all data is encrypted at rest"]
        );
        assert_eq!(split("The API is fast; the UI is slow."), vec!["The API is fast", "the UI is slow"]);
        assert_eq!(
            split("The service was deployed in May but it crashed twice."),
            vec!["The service was deployed in May", "it crashed twice"]
        );
        assert_eq!(split("If the token expired, refresh it and retry."), vec!["If the token expired, refresh it and retry"]);
        // The reason after what the speaker likes is a clause of its own; a reason after a
        // fact stays with it.
        assert_eq!(
            split("I'm a fan of green because it's between blue and yellow on the spectrum."),
            vec!["I'm a fan of green", "it's between blue and yellow on the spectrum"]
        );
        // So is the reason given for advice, after "because" or an "as" that opens a clause; a
        // fact keeps its "as" ("…, as it was known").
        assert_eq!(
            split("yes, you have to change your lighting, as they are more energy efficient."),
            vec!["yes, you have to change your lighting", "they are more energy efficient"]
        );
        assert_eq!(
            split("The castle was rebuilt in 1820, as it was known to be unsafe."),
            vec!["The castle was rebuilt in 1820, as it was known to be unsafe"]
        );
        assert_eq!(
            split("The council closed the borders with Niger, Chad and Sudan, and declared the south a closed zone."),
            vec!["The council closed the borders with Niger, Chad and Sudan", "declared the south a closed zone"]
        );
        // A month or a name written like an auxiliary does not open a clause.
        assert_eq!(
            split("The film was streamed in the United States and Canada during May 2018."),
            vec!["The film was streamed in the United States and Canada during May 2018"]
        );
        assert_eq!(
            split("The show was hosted by Tina Fey and Will Ferrell for two years."),
            vec!["The show was hosted by Tina Fey and Will Ferrell for two years"]
        );
        assert_eq!(
            split("It is an online learning platform, and as of May 2018 included 143 partners."),
            vec!["It is an online learning platform", "as of May 2018 included 143 partners"]
        );
        assert_eq!(
            split("Tests have a sensitivity of 50–75% and specificity of 90–95% when compared with culture."),
            vec!["Tests have a sensitivity of 50–75% and specificity of 90–95% when compared with culture"]
        );
        assert_eq!(split("The bridge closed because it was unsafe."), vec!["The bridge closed because it was unsafe"]);
        assert_eq!(split("I have lived in Leeds since 2010."), vec!["I have lived in Leeds since 2010"]);
        // A past participle with its preposition says a second thing of the subject; one
        // inside the subject's own phrase (no verb before it) does not cut.
        assert_eq!(
            split("GNR is a band from San Diego, California, formed in 1965."),
            vec!["GNR is a band from San Diego, California", "formed in 1965"]
        );
        assert_eq!(
            split("The song by Coldplay, released in 2004, reached number one."),
            vec!["The song by Coldplay, released in 2004, reached number one"]
        );
        assert_eq!(split("The tour started in Oslo, Norway, and ended in Rome."), vec!["The tour started in Oslo, Norway", "ended in Rome"]);
        assert_eq!(split("Prices rose sharply, indeed at a record pace."), vec!["Prices rose sharply, indeed at a record pace"]);
        assert_eq!(split("Zoë’s café is in Tromsø, founded in 1990."), vec!["Zoë’s café is in Tromsø", "founded in 1990"]);
    }

    #[test]
    fn a_speaker_unsure_of_a_fact_still_states_it() {
        let t = "I'm not sure but it is on the most recommended list on Amazon.";
        assert_eq!(&t[framing_lead(t)..], "it is on the most recommended list on Amazon.");
        let t = "Well, I don't know, but the park spans three states.";
        assert_eq!(&t[framing_lead(t)..], "the park spans three states.");
        assert_eq!(framing_lead("I'm not sure the park is open."), 0, "no fact is stated apart from the doubt");
    }

    #[test]
    fn tidy_strips_markers_and_citations() {
        let t = "- **Paris** is the capital of France [1].";
        assert_eq!(&t[tidy(t, 0..t.len())], "**Paris** is the capital of France");
        let t = "Water boils at 100 °C (Smith, 2020).";
        assert_eq!(&t[tidy(t, 0..t.len())], "Water boils at 100 °C");
        let t = "1. Open the app.";
        assert_eq!(&t[tidy(t, 0..t.len())], "Open the app");
        let t = "Step 2: Penguins are birds.";
        assert_eq!(&t[tidy(t, 0..t.len())], "Penguins are birds");
        assert!(is_meta("Let me work through this step by step."));
        let t = "Based on the passages provided, the museum opens at 9 am.";
        assert_eq!(&t[tidy(t, 0..t.len())], "the museum opens at 9 am");
        let t = "In summary, refunds take 5 days.";
        assert_eq!(&t[tidy(t, 0..t.len())], "refunds take 5 days");
        let t = "According to the 2010 census, the town had 5,000 people.";
        assert_eq!(&t[tidy(t, 0..t.len())], t.trim_end_matches('.'), "a real source of a fact is part of it");
        let t = "I'd recommend going to Dublin, it's the capital of Ireland.";
        let parts: Vec<&str> = clauses(t, 0..t.len()).into_iter().map(|r| &t[tidy(t, r)]).collect();
        assert_eq!(parts, ["I'd recommend going to Dublin", "it's the capital of Ireland"]);
        let t = "Paris, London and Rome are capitals.";
        assert_eq!(clauses(t, 0..t.len()).len(), 1, "a list is not a splice");
        let t = "I know they were modeled after the waistcoat British officers wore.";
        assert_eq!(&t[tidy(t, 0..t.len())], "they were modeled after the waistcoat British officers wore");
        let t = "i also know that more than 300 million of the games are sold worldwide.";
        assert_eq!(&t[tidy(t, 0..t.len())], "more than 300 million of the games are sold worldwide");
        let t = "My favorite album was Clockwork Angels, which was released in 2012.";
        let parts: Vec<&str> = clauses(t, 0..t.len()).into_iter().map(|r| &t[tidy(t, r)]).collect();
        assert_eq!(parts, ["My favorite album was Clockwork Angels", "which was released in 2012"]);
        for whole in ["I think that is one of the best parts about Oz.", "I used to follow the diet that was high fat and low carb."] {
            assert_eq!(clauses(whole, 0..whole.len()).len(), 1, "{whole}");
        }
        let t = "no, i just know it was first used as a color in the late 17th century.";
        assert_eq!(&t[tidy(t, 0..t.len())], "it was first used as a color in the late 17th century");
        let t = "Oh yeah i find it interesting that Juggalos have been classified as a gang.";
        assert_eq!(&t[tidy(t, 0..t.len())], "Juggalos have been classified as a gang");
        assert!(is_about_sources("The passages do not mention the price of the Team plan."));
        assert!(is_about_sources("I couldn't find any information about that."));
        assert!(!is_about_sources("The passage opened in 1890."));
        assert!(!is_meta("Lettuce is green."));
    }

    #[test]
    fn modalities() {
        use Modality::*;
        let m = |s: &str| modality_with(s, s, &cues(s));
        assert_eq!(m("Paris is the capital of France"), Factual);
        // A condition on the speaker's own life is theirs; one on the world is checked.
        assert_eq!(m("if i dont force myself to do it, i get discouraged"), Opinion);
        assert_eq!(m("If you are a beginner, start with a smaller ski"), Conditional);
        assert_eq!(m("When I was young, the Berlin Wall fell in 1989"), Conditional);
        assert_eq!(m("I think rotating tokens monthly is the safest option"), Opinion);
        assert_eq!(m("Python is the best language"), Opinion);
        assert_eq!(m("Carl Orff is best known for his cantata Carmina Burana"), Factual);
        assert_eq!(m("He won the Golden Globe Award for Best Actor in 1993"), Factual);
        assert_eq!(m("Miloš Forman hails from Great Britain"), Factual);
        assert_eq!(m("It was the best-selling album of 1981"), Factual);
        assert_eq!(m("he won a grammy award for best rap album at the 58th ceremony"), Factual);
        assert_eq!(m("the greatest concentration of species diversity is in tropical rainforests"), Factual);
        assert_eq!(m("he is considered to be the greatest quarterback of all time"), Factual);
        assert_eq!(m("it is part of the united kingdom of great britain"), Factual);
        assert_eq!(m("he is the greatest quarterback of all time"), Opinion);
        assert_eq!(m("they had a great number of fans"), Factual);
        // Multi-byte text around the cue word.
        assert_eq!(m("il est « le plus grand » — the best™ d’entre eux"), Opinion);
        assert_eq!(m("die größte Zahl: the greatest Ünumber"), Opinion);
        assert_eq!(m("the greatest NUMBER of fans"), Factual);
        assert_eq!(m("If the cache is cold, requests take 2 seconds"), Conditional);
        assert_eq!(m("Imagine the server had twice the memory"), Hypothetical);
        assert_eq!(m("Run the migration before deploying"), Instruction);
        assert_eq!(m("You should rotate keys every 90 days"), Instruction);
        assert_eq!(m("Please restart the service"), Instruction);
        assert_eq!(m("The tip on $100 at 15% would be $15"), Factual);
        assert_eq!(m("It might rain tomorrow"), Hypothetical);
        assert_eq!(m("The update might take up to ten minutes"), Hypothetical);
        // "may" grants permission at least as often as it hedges.
        assert_eq!(m("Users may request deletion of their personal data"), Factual);
        assert_eq!(m("I love hiking in the mountains"), Opinion);
        assert_eq!(m("Yeah, my dog is called Rex"), Opinion);
        assert_eq!(m("We do not sell personal data"), Factual);
    }

    #[test]
    fn domains() {
        assert_eq!(domain("Take 200 mg of ibuprofen per dose"), Some("medical"));
        assert_eq!(domain("The function returns a token from the API"), Some("programming"));
        assert_eq!(domain("Your order was shipped via FedEx"), Some("shipping"));
        assert_eq!(domain("The sky is blue"), None);
    }
}
