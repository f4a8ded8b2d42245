//! `is_professional_tone(claim | discourse_act)`: a rule-based detector of informal or
//! unprofessional language (spec §4.14). Lexicons are configurable.

use std::sync::{Arc, LazyLock};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::Regex;

/// Default informality lexicon (matched case-insensitively on word boundaries).
pub const DEFAULT_SLANG: &[&str] = &[
    "lol", "lmao", "rofl", "omg", "wtf", "gonna", "wanna", "gotta", "dude", "bro", "thx", "pls", "plz", "idk", "ikr", "smh",
    "ya", "u r", "ur",
];

/// Default profanity list (matched case-insensitively on word boundaries).
pub const DEFAULT_PROFANITY: &[&str] = &[
    "fuck",
    "fucking",
    "fucked",
    "shit",
    "shitty",
    "bullshit",
    "crap",
    "crappy",
    "damn",
    "damned",
    "goddamn",
    "bitch",
    "bastard",
    "asshole",
    "dumbass",
    "jackass",
    "piss",
    "pissed",
    "bloody hell",
    "screw you",
    "stupid",
    "idiot",
    "moron",
];

/// A compiled tone detector.
#[derive(Debug, Clone)]
pub struct ToneLexicon {
    slang: AhoCorasick,
    slang_terms: Arc<[String]>,
    profanity: AhoCorasick,
    profanity_terms: Arc<[String]>,
}

/// The default detector, built once: engines are made per request (`Engine::default()`), and
/// building the two automata each time was ~4% of a server check.
static DEFAULT_TONE: LazyLock<ToneLexicon> = LazyLock::new(|| ToneLexicon::new(DEFAULT_SLANG, DEFAULT_PROFANITY));

impl Default for ToneLexicon {
    fn default() -> Self {
        // Cheap: the automata and term lists are shared.
        DEFAULT_TONE.clone()
    }
}

fn automaton(terms: &[String]) -> AhoCorasick {
    // Terms are plain strings; building cannot fail for inputs of this size.
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(terms)
        .unwrap_or_else(|e| panic!("tone lexicon automaton: {e}"))
}

impl ToneLexicon {
    /// Builds a detector from custom lists (lower-cased).
    pub fn new(slang: &[&str], profanity: &[&str]) -> Self {
        let slang_terms: Vec<String> = slang.iter().map(|s| s.to_lowercase()).collect();
        let profanity_terms: Vec<String> = profanity.iter().map(|s| s.to_lowercase()).collect();
        Self {
            slang: automaton(&slang_terms),
            slang_terms: slang_terms.into(),
            profanity: automaton(&profanity_terms),
            profanity_terms: profanity_terms.into(),
        }
    }

    /// The first unprofessional finding in `text`, as `(rule, match)`.
    pub fn find(&self, text: &str) -> Option<(&'static str, String)> {
        if let Some(m) = word_match(&self.slang, text) {
            return Some(("slang", self.slang_terms[m].clone()));
        }
        if let Some(m) = word_match(&self.profanity, text) {
            return Some(("profanity", self.profanity_terms[m].clone()));
        }
        static PUNCT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[!?]{3,}").unwrap_or_else(|e| panic!("{e}")));
        if let Some(m) = PUNCT.find(text)
            && (m.as_str().chars().all(|c| c == '!') || m.as_str().chars().all(|c| c == '?') || has_run_of_three(m.as_str()))
        {
            return Some(("excessive punctuation", m.as_str().to_string()));
        }
        if let Some(s) = shouting(text) {
            return Some(("shouting", s));
        }
        if let Some(e) = emoticon_or_emoji(text) {
            return Some(("emoticon or emoji", e));
        }
        None
    }
}

/// Three or more consecutive identical `!` or `?`.
fn has_run_of_three(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(3).any(|w| w[0] == w[1] && w[1] == w[2])
}

/// Word characters for boundary checks; any non-ASCII byte counts as part of a word.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\'' || b >= 0x80
}

/// First lexicon term occurring as a whole word (both neighbours non-word), by position.
fn word_match(ac: &AhoCorasick, text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    ac.find_overlapping_iter(text)
        .filter(|m| {
            let before_ok = m.start() == 0 || !is_word_byte(bytes[m.start() - 1]);
            let after_ok = m.end() == bytes.len() || !is_word_byte(bytes[m.end()]);
            before_ok && after_ok
        })
        .min_by_key(|m| (m.start(), std::cmp::Reverse(m.end())))
        .map(|m| m.pattern().as_usize())
}

/// Three or more consecutive all-caps words of at least three letters.
fn shouting(text: &str) -> Option<String> {
    let mut run: Vec<&str> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric() && c != '\'') {
        if word.is_empty() {
            continue;
        }
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        if letters >= 3 && word.chars().all(|c| !c.is_lowercase()) && word.chars().any(|c| c.is_uppercase()) {
            run.push(word);
            if run.len() >= 3 {
                return Some(run.join(" "));
            }
        } else {
            run.clear();
        }
    }
    None
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F300..=0x1F5FF // symbols & pictographs
        | 0x1F600..=0x1F64F // emoticons
        | 0x1F680..=0x1F6FF // transport & map
        | 0x1F900..=0x1F9FF // supplemental symbols & pictographs
        | 0x1FA70..=0x1FAFF // symbols & pictographs extended-A
        | 0x2600..=0x26FF // miscellaneous symbols
        | 0x2700..=0x27BF // dingbats
        | 0x1F1E6..=0x1F1FF // regional indicators (flags)
    )
}

fn emoticon_or_emoji(text: &str) -> Option<String> {
    if let Some(c) = text.chars().find(|c| is_emoji(*c)) {
        return Some(c.to_string());
    }
    static EMOTICON: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[\s(])([:;]-?[)(DPp]|xD|XD)(?:$|[\s.,!?)])").unwrap_or_else(|e| panic!("{e}")));
    EMOTICON.captures(text).and_then(|c| c.get(1)).map(|m| m.as_str().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(t: &str) -> Option<(&'static str, String)> {
        ToneLexicon::default().find(t)
    }

    #[test]
    fn professional_text_passes() {
        for t in [
            "Your order #12345 was shipped yesterday via FedEx.",
            "The tracking number is 1234567890.",
            "Delivery is expected by Friday.",
            "Your URL is https://example.com/your-account (see: Section 2).",
            "We are your partners; your usage is billed monthly.",
            "NASA launched it.",
            "Mixed: 10:30 and 2:1 ratios.",
            "Brother, browse, yam, gotcha-free design",
        ] {
            assert_eq!(find(t), None, "{t}");
        }
    }

    #[test]
    fn each_rule_fires() {
        assert_eq!(find("lol that's wild"), Some(("slang", "lol".into())));
        assert_eq!(find("We're gonna fix it"), Some(("slang", "gonna".into())));
        assert_eq!(find("u r right"), Some(("slang", "u r".into())));
        assert_eq!(find("This is crap."), Some(("profanity", "crap".into())));
        assert_eq!(find("Really!!!"), Some(("excessive punctuation", "!!!".into())));
        assert_eq!(find("What???"), Some(("excessive punctuation", "???".into())));
        assert_eq!(find("THIS IS NOT OK"), None, "IS has two letters: the run breaks");
        assert_eq!(find("PLEASE READ THIS now"), Some(("shouting", "PLEASE READ THIS".into())));
        assert_eq!(find("Thanks :)"), Some(("emoticon or emoji", ":)".into())));
        assert_eq!(find("Done xD"), Some(("emoticon or emoji", "xD".into())));
        assert_eq!(find("Great 👍"), Some(("emoticon or emoji", "👍".into())));
    }
}
