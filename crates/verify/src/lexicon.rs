//! Word lists that steer matching: stop words, synonym groups, antonym pairs and negation
//! cues. The lists are data files beside the crate; words are stemmed when loaded, so any
//! inflection in a list or a text meets the same key.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use warrant_text::fasthash::{FastMap, FastSet};
use warrant_text::stopwords::List;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

fn lines(data: &str) -> impl Iterator<Item = &str> {
    data.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

thread_local! {
    /// Stems already computed on this thread: the same few thousand words recur in every
    /// claim and source, and a lookup costs a fraction of the Snowball stemmer. Cleared when
    /// it grows past [`STEM_MEMO_MAX`], so memory stays bounded.
    static STEM_MEMO: std::cell::RefCell<FastMap<String, String>> = std::cell::RefCell::new(FastMap::default());
}

/// Words remembered per thread by [`stem`] at most.
const STEM_MEMO_MAX: usize = 1 << 16;

/// Stems one lower-case word, the accents on its Latin letters dropped: "Zürich" and "Zurich",
/// "Yaoundé" and "Yaounde" are one word however a writer types it. Marks on other scripts are
/// letters of the word (Devanagari "कुल" is not "कल").
pub fn stem(word: &str) -> String {
    STEM_MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some(s) = memo.get(word) {
            return s.clone();
        }
        let s = if word.is_ascii() {
            STEMMER.stem(word).into_owned()
        } else {
            STEMMER.stem(&warrant_text::normalize::without_latin_accents(word)).into_owned()
        };
        if memo.len() >= STEM_MEMO_MAX {
            memo.clear();
        }
        memo.insert(word.to_string(), s.clone());
        s
    })
}

/// True for a function word (the word lower-cased, unstemmed).
pub fn is_stopword(lower: &str) -> bool {
    List::Verify.contains(lower)
}

/// Stem → canonical stem of its synonym group (the group's first word). Lines that share a
/// word join one group; irregular verb forms ("wrote", "written") fold to their base form.
static SYNONYMS: LazyLock<FastMap<String, String>> = LazyLock::new(|| {
    let mut m: FastMap<String, String> = FastMap::default();
    let groups = lines(include_str!("../data/synonyms.txt")).chain(lines(include_str!("../data/irregular_verbs.txt")));
    for line in groups {
        let words: Vec<String> = line.split_whitespace().map(stem).collect();
        let Some(first) = words.first() else { continue };
        let head = words.iter().find_map(|w| m.get(w).cloned()).unwrap_or_else(|| first.clone());
        for w in words {
            m.entry(w).or_insert_with(|| head.clone());
        }
    }
    m
});

/// Irregular past forms ("wrote", "won"), which mark a verb as an act like "-ed" does.
static PAST_FORMS: LazyLock<FastSet<&'static str>> =
    LazyLock::new(|| lines(include_str!("../data/irregular_verbs.txt")).flat_map(|l| l.split_whitespace().skip(1)).collect());

/// True for an irregular past tense or participle ("wrote", "written").
pub fn is_irregular_past(lower: &str) -> bool {
    PAST_FORMS.contains(lower)
}

/// Broader terms: a source saying "novelist" states "author" too, not the reverse.
static BROADER: LazyLock<FastMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut m: FastMap<String, Vec<String>> = FastMap::default();
    for line in lines(include_str!("../data/hypernyms.txt")) {
        let Some((broad, narrow)) = line.split_once(':') else { continue };
        let broad = key(broad.trim());
        for w in narrow.split_whitespace().map(key).filter(|k| *k != broad) {
            let list = m.entry(w).or_default();
            if !list.contains(&broad) {
                list.push(broad.clone());
            }
        }
    }
    m
});

/// The broader keys a key entails ("novelist" → "author").
pub fn broader(key: &str) -> &[String] {
    BROADER.get(key).map_or(&[], Vec::as_slice)
}

/// The matching key of a lower-case word: its stem, folded to its synonym group.
pub fn key(lower: &str) -> String {
    fold(stem(lower))
}

/// A stem folded to its synonym group's key.
pub fn fold(stem: String) -> String {
    match SYNONYMS.get(&stem) {
        Some(head) => head.clone(),
        None => stem,
    }
}

/// Each key → the keys opposite to it.
static ANTONYMS: LazyLock<FastMap<String, Vec<String>>> = LazyLock::new(|| {
    let mut map: FastMap<String, Vec<String>> = FastMap::default();
    for line in lines(include_str!("../data/antonyms.txt")) {
        let w: Vec<String> = line.split_whitespace().map(key).collect();
        if let [a, b] = w.as_slice() {
            map.entry(a.clone()).or_default().push(b.clone());
            map.entry(b.clone()).or_default().push(a.clone());
        }
    }
    map
});

/// True when two keys are opposites ("increase"/"decrease"): in the hand list, or direct
/// antonyms in WordNet — except converses, which state one event from its two sides ("A sold
/// it to B" is "B bought it from A").
pub fn antonyms(a: &str, b: &str) -> bool {
    ANTONYMS.get(a).is_some_and(|o| o.iter().any(|x| x == b))
        || crate::wordnet::are_antonyms(a, b) && !CONVERSES.iter().any(|(x, y)| (a, b) == (x, y) || (a, b) == (y, x))
}

/// Every word `a` is an antonym of ([`antonyms`] holds for exactly these), so a caller can
/// look up one word's opposites once instead of testing every pair.
pub fn antonyms_of(a: &str) -> Vec<&str> {
    let listed = ANTONYMS.get(a).into_iter().flatten().map(String::as_str);
    let wordnet = crate::wordnet::antonyms(a)
        .iter()
        .copied()
        .filter(|b| !CONVERSES.iter().any(|(x, y)| (a, *b) == (*x, *y) || (a, *b) == (*y, *x)));
    listed.chain(wordnet).collect()
}

/// WordNet antonyms that are converses, not opposites (stems).
const CONVERSES: &[(&str, &str)] = &[
    ("buy", "sell"),
    ("give", "take"),
    ("lend", "borrow"),
    ("teach", "learn"),
    ("parent", "child"),
    ("question", "answer"),
    ("send", "receiv"),
    ("import", "export"),
    ("employ", "employe"),
    ("husband", "wife"),
    ("win", "lose"),
    ("come", "go"),
    ("arriv", "depart"),
    ("push", "pull"),
];

/// True when a lower-case word negates its clause.
pub fn is_negation(lower: &str) -> bool {
    // "doesn't", and one typed without its "n" ("could't"); a bare "'t" is not.
    let contraction = lower.len() > 2 && (lower.ends_with("'t") || lower.ends_with("’t"));
    matches!(
        lower,
        "not"
            | "no"
            | "never"
            | "none"
            | "nothing"
            | "nobody"
            | "neither"
            | "nor"
            | "cannot"
            | "without"
            | "nowhere"
            | "lack"
            | "lacks"
            | "lacked"
            | "lacking"
    ) || contraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_words_opposites_are_exactly_the_words_it_is_an_antonym_of() {
        let words = [
            "increased",
            "decrease",
            "open",
            "closed",
            "buy",
            "sell",
            "win",
            "lose",
            "more",
            "less",
            "first",
            "last",
            "summer",
            "winter",
            "public",
            "private",
            "audit",
        ];
        for a in words.map(key) {
            let of = antonyms_of(&a);
            for b in words.map(key) {
                assert_eq!(antonyms(&a, &b), of.contains(&b.as_str()), "{a} / {b}");
            }
        }
        assert!(antonyms_of(&key("increase")).contains(&key("decrease").as_str()));
    }

    #[test]
    fn keys_fold_inflections_and_synonyms() {
        assert_eq!(key("expires"), key("expire"));
        assert_eq!(key("movies"), key("film"));
        assert_eq!(key("started"), key("begins"));
        assert_ne!(key("start"), key("end"));
        assert!(antonyms(&key("increased"), &key("decrease")));
        assert!(!antonyms(&key("increase"), &key("increase")));
        assert!(is_stopword("the") && !is_stopword("token"));
        assert!(is_negation("doesn't") && is_negation("never") && !is_negation("note"));
        assert_eq!(key("wrote"), key("written"));
        assert_eq!(key("writes"), key("write"));
        assert!(is_irregular_past("wrote") && !is_irregular_past("write"));
        assert!(broader(&key("novelist")).contains(&key("author")));
        assert!(broader(&key("author")).is_empty());
    }

    #[test]
    fn diacritics_do_not_make_another_word() {
        assert_eq!(stem("zürich"), stem("zurich"));
        assert_eq!(key("pokémon"), key("pokemon"));
        assert_eq!(stem("yaoundé"), "yaound");
        // Marks of other scripts are letters: "कुल" (total) is not "कल" (yesterday).
        assert_ne!(stem("कुल"), stem("कल"));
        assert_ne!(stem("ガス"), stem("カス"));
    }
}
