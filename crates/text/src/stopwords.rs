//! Stopword lists, all read from one data file (`data/stopwords.txt`), one named list per
//! purpose.
//!
//! The lists are not merged: each stage's list was tuned against that stage's outputs, and
//! words differ in content by purpose (a light verb such as "get" says nothing checkable to
//! the verifier; "long" frames a question; a language's function words are evidence of that
//! language). One file keeps them side by side, so a word added to one is a visible choice.

use std::sync::LazyLock;

use crate::fasthash::FastSet;

/// A named stopword list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum List {
    /// The verifier's function words: no checkable content in claims, sources and retrieval
    /// keys (English, with contractions, discourse words and a few light verbs).
    Verify,
    /// English function words left out of research topic terms.
    Research,
    /// EN, PT and ES words left out before the Jaccard similarity of knowledge-package items.
    Jaccard,
    /// Words that cannot begin or end an entity name in a question.
    Question,
    /// English function words, as evidence for language detection.
    LangEn,
    /// Portuguese function words, as evidence for language detection.
    LangPt,
    /// Spanish function words, as evidence for language detection.
    LangEs,
    /// French function words, as evidence for language detection.
    LangFr,
    /// German function words, as evidence for language detection.
    LangDe,
}

impl List {
    /// Every list, in the order of [`List::name`]'s sections in the data file.
    pub const ALL: [List; 9] = [
        List::Verify,
        List::Research,
        List::Jaccard,
        List::Question,
        List::LangEn,
        List::LangPt,
        List::LangEs,
        List::LangFr,
        List::LangDe,
    ];

    /// The list's section name in the data file.
    pub fn name(self) -> &'static str {
        match self {
            List::Verify => "verify",
            List::Research => "research",
            List::Jaccard => "jaccard",
            List::Question => "question",
            List::LangEn => "lang-en",
            List::LangPt => "lang-pt",
            List::LangEs => "lang-es",
            List::LangFr => "lang-fr",
            List::LangDe => "lang-de",
        }
    }

    /// The list's words, in file order (a word listed twice appears twice).
    pub fn words(self) -> &'static [&'static str] {
        &LISTS[self as usize].0
    }

    /// True when `lower` (a lower-case word) is in the list.
    pub fn contains(self, lower: &str) -> bool {
        LISTS[self as usize].1.contains(lower)
    }
}

/// Per list: its words in file order and as a set.
type Lists = Vec<(Vec<&'static str>, FastSet<&'static str>)>;

static LISTS: LazyLock<Lists> = LazyLock::new(|| {
    let mut lists: Lists = List::ALL.iter().map(|_| Default::default()).collect();
    let mut current: Option<usize> = None;
    for line in include_str!("../data/stopwords.txt").lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = List::ALL.iter().position(|l| l.name() == name);
            debug_assert!(current.is_some(), "unknown stopword list [{name}]");
            continue;
        }
        let Some(at) = current else { continue };
        for w in line.split_whitespace() {
            lists[at].0.push(w);
            lists[at].1.insert(w);
        }
    }
    lists
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_is_read_and_lower_case() {
        for list in List::ALL {
            assert!(list.words().len() > 30, "{list:?}");
            assert!(list.words().iter().all(|w| w.to_lowercase() == *w), "{list:?}");
        }
        assert!(List::Verify.contains("the") && List::Verify.contains("getting") && !List::Verify.contains("token"));
        assert!(List::Research.contains("above") && !List::Research.contains("getting"));
        assert!(List::Jaccard.contains("não") && List::LangDe.contains("für"));
        assert!(List::Question.contains("long") && !List::Verify.contains("long"));
    }
}
