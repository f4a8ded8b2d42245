//! Small text helpers of the deterministic stages: topic terms, stopwords, word-bounded phrase
//! matching, and choosing the sentence of a chunk that best matches a topic.

use std::collections::BTreeSet;
use std::ops::Range;

use warrant_text::stopwords::List;

/// Whether a lower-case word is a stopword: an English function word left out of topic terms
/// (assess, router normalisation, entity look-up).
pub fn is_stopword(word: &str) -> bool {
    List::Research.contains(word)
}

/// Byte ranges of the alphanumeric runs of `text`.
pub fn word_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// The lower-case alphanumeric tokens of `text`, in order (with repeats).
pub fn tokens(text: &str) -> Vec<String> {
    word_ranges(text).into_iter().map(|r| text[r].to_lowercase()).collect()
}

/// The terms of a topic (spec §6.6 step 1): unique lower-case alphanumeric tokens of at least
/// two characters, minus stopwords, in topic order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms(Vec<String>);

impl Terms {
    /// The terms of `text`.
    pub fn of(text: &str) -> Self {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for t in tokens(text) {
            if t.chars().count() >= 2 && !is_stopword(&t) && seen.insert(t.clone()) {
                out.push(t);
            }
        }
        Self(out)
    }

    /// The terms in topic order.
    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    /// No terms.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many terms.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// How many distinct terms occur in `text`: as a token, or as a token's stem ("retries"
    /// in "retried", "encryption" in "encrypted"; the stemmer `check` uses).
    pub fn hits(&self, text: &str) -> usize {
        if self.0.is_empty() {
            return 0;
        }
        self.split_covered([text]).0.len()
    }

    /// The terms that occur in any of `texts` (as in [`Self::hits`]), and those that do not,
    /// each in topic order.
    pub fn split_covered<'a>(&self, texts: impl IntoIterator<Item = &'a str>) -> (Vec<String>, Vec<String>) {
        let mut toks: BTreeSet<String> = BTreeSet::new();
        for t in texts {
            toks.extend(tokens(t));
        }
        let stems: BTreeSet<String> = toks.iter().map(|t| stem(t)).collect();
        self.0.iter().cloned().partition(|t| toks.contains(t) || stems.contains(&stem(t)))
    }
}

/// The router's normalised topic (spec §6.2): lower-cased, stopwords removed, whitespace
/// collapsed.
pub fn normalise_topic(topic: &str) -> String {
    topic
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| !is_stopword(w.trim_matches(|c: char| !c.is_alphanumeric())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `phrase` occurs in `text` case-insensitively and word-bounded.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let phrase = phrase.trim();
    if phrase.is_empty() {
        return false;
    }
    let (hay, needle) = (text.to_lowercase(), phrase.to_lowercase());
    let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let mut from = 0;
    while let Some(p) = hay[from..].find(&needle) {
        let at = from + p;
        let end = at + needle.len();
        if bounded(hay[..at].chars().next_back()) && bounded(hay[end..].chars().next()) {
            return true;
        }
        from = at + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Longest snippet taken from one sentence, in chars (a longer sentence is cut at a char
/// boundary: still an exact quote of the source).
pub const MAX_SNIPPET_CHARS: usize = 480;

fn cut(s: &str) -> &str {
    match s.char_indices().nth(MAX_SNIPPET_CHARS) {
        Some((b, _)) => &s[..b],
        None => s,
    }
}

/// The stem of a lower-case word ("encryption" and "encrypted" share one): `check`'s stemmer.
fn stem(word: &str) -> String {
    warrant_verify::lexicon::stem(word)
}

/// The sentences of `text`, each line of a multi-line sentence on its own ("Paging tool:
/// Beacon" and the next key/value line are two statements), trimmed, non-empty.
fn statements(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for r in warrant_text::segment::sentences(text) {
        let mut at = r.start;
        for line in text[r.clone()].split_inclusive('\n') {
            let lead = line.len() - line.trim_start().len();
            let t = line.trim();
            if !t.is_empty() {
                out.push(at + lead..at + lead + t.len());
            }
            at += line.len();
        }
    }
    out
}

/// The sentence of `text` with the most distinct `terms` (the first on ties; the first
/// sentence when no term occurs), cut to [`MAX_SNIPPET_CHARS`]. Always a slice of `text`.
pub fn best_sentence<'t>(text: &'t str, terms: &Terms) -> &'t str {
    let sentences = statements(text);
    let mut best: Option<(usize, Range<usize>)> = None;
    for r in sentences {
        let score = terms.hits(&text[r.clone()]);
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, r));
        }
    }
    match best {
        Some((_, r)) => cut(&text[r]),
        None => cut(text.trim()),
    }
}

/// The sentence of `text` holding the char offset `char_pos` (the first sentence starting
/// after it, or the last one), cut to [`MAX_SNIPPET_CHARS`].
pub fn sentence_at(text: &str, char_pos: usize) -> &str {
    let byte = warrant_text::span::char_to_byte(text, char_pos).unwrap_or(text.len());
    let sentences = statements(text);
    let pick = sentences.iter().find(|r| byte < r.end).or(sentences.last()).cloned();
    match pick {
        Some(r) => cut(&text[r]),
        None => cut(text.trim()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwords_are_the_research_list() {
        assert_eq!(List::Research.words().len(), 123);
        assert!(is_stopword("the") && !is_stopword("token"));
    }

    #[test]
    fn terms_are_unique_lowercase_and_skip_stopwords() {
        let t = Terms::of("How long do Session tokens last? session x 42");
        assert_eq!(t.as_slice(), ["long", "session", "tokens", "last", "42"]);
        // "lasts" covers "last" through its stem.
        assert_eq!(t.hits("the session lasts 42 days"), 3);
        assert_eq!(t.hits("the sessions lasted"), 2);
        let (covered, missing) = t.split_covered(["long sessions", "token"]);
        assert_eq!(
            (covered, missing),
            (vec!["long".into(), "session".into(), "tokens".into()], vec!["last".into(), "42".into()])
        );
    }

    #[test]
    fn key_value_lines_are_statements_of_their_own() {
        let text = "Paging tool: Beacon\nStatus page: status.example\nChat channel: #war-room";
        assert_eq!(best_sentence(text, &Terms::of("status page")), "Status page: status.example");
        assert_eq!(sentence_at(text, 21), "Status page: status.example");
    }

    #[test]
    fn phrases_match_word_bounded() {
        assert!(contains_phrase("What do Session Tokens need?", "session tokens"));
        assert!(!contains_phrase("sessions tokenised", "session"));
        assert!(contains_phrase("a-b token", "token"));
        assert!(!contains_phrase("anything", ""));
    }

    #[test]
    fn normalisation_lowercases_and_drops_stopwords() {
        assert_eq!(normalise_topic("  What is THE   lifetime of tokens? "), "lifetime tokens?");
    }

    #[test]
    fn best_sentence_is_an_exact_slice() {
        let text = "Alpha beta. Session tokens expire after 15 minutes. Gamma.";
        assert_eq!(best_sentence(text, &Terms::of("token expire")), "Session tokens expire after 15 minutes.");
        assert_eq!(best_sentence(text, &Terms::default()), "Alpha beta.");
        assert_eq!(sentence_at(text, 14), "Session tokens expire after 15 minutes.");
    }
}
