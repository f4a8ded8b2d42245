//! Text gates shared by the mapper, promotion (§7.6) and the sanitizer (§7.8): truncation,
//! completeness, dangling function words, and token sets for Jaccard similarity.

use std::borrow::Cow;
use std::sync::LazyLock;

use warrant_text::fasthash::FastSet;
use warrant_text::stopwords::List;

/// Articles, prepositions and conjunctions (EN, PT, ES) a complete text does not end with.
const DANGLING: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "from", "into", "and", "or", "but", "nor", "as", "than",
    "that", "which", "if", "when", "o", "os", "as", "um", "uma", "de", "do", "da", "dos", "das", "em", "no", "na", "nos", "nas",
    "por", "para", "com", "e", "ou", "mas", "que", "el", "la", "los", "las", "un", "una", "del", "al", "en", "con", "y", "pero",
    "sin",
];

static DANGLING_SET: LazyLock<FastSet<&'static str>> = LazyLock::new(|| DANGLING.iter().copied().collect());

/// The number of words of a text and its last word, in one pass.
fn word_count_and_last(text: &str) -> (usize, Option<&str>) {
    let mut n = 0;
    let mut last = None;
    for (_, w) in warrant_text::words::words(text) {
        n += 1;
        last = Some(w);
    }
    (n, last)
}

/// [`word_count_and_last`] of a text, computed on first use: the truncation and completeness
/// checks of one text share it (whitespace is never part of a word, so trimming the text
/// differently does not change its words).
struct Words<'a> {
    text: &'a str,
    counted: Option<(usize, Option<&'a str>)>,
}

impl<'a> Words<'a> {
    fn of(text: &'a str) -> Self {
        Words { text, counted: None }
    }

    fn get(&mut self) -> (usize, Option<&'a str>) {
        *self.counted.get_or_insert_with(|| word_count_and_last(self.text))
    }
}

/// [`is_truncated`] and [`is_complete`] of one text, with one pass over its words:
/// `(truncated, complete)`.
pub fn truncated_and_complete(text: &str) -> (bool, bool) {
    let mut words = Words::of(text);
    (truncated_with(text, &mut words), complete_with(text, &mut words))
}

/// True when the word is an article, preposition or conjunction.
pub fn is_dangling(word: &str) -> bool {
    // Every listed word is at most 5 ASCII letters; lower-casing turns at most 3 bytes into
    // one ASCII letter (the Kelvin sign), so a longer word cannot be one.
    if word.len() > 15 {
        return false;
    }
    if word.bytes().all(|b| b.is_ascii_lowercase()) {
        return DANGLING_SET.contains(word);
    }
    DANGLING_SET.contains(word.to_lowercase().as_str())
}

/// True when a text ends inside an enumerated or bulleted list item (`… 2. Click save`): list
/// items are complete instructions without final punctuation (project rule).
pub fn ends_with_list_item(text: &str) -> bool {
    let tail: Vec<&str> = text.rsplit(' ').take(14).collect();
    tail.iter().enumerate().any(|(i, w)| {
        i > 0
            && (w.len() <= 4 && w.ends_with(['.', ')']) && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit()) && w.len() > 1
                || *w == "-"
                || *w == "•")
    })
}

/// The obvious truncation check for labels (§7.8): a final `:`, `-`, `/`, or `vs.`/`etc.`.
pub fn is_obviously_truncated(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with([':', '-', '/', '–', '—']) || t.ends_with(" vs.") || t.ends_with(" etc.") || t == "etc." || t == "vs."
}

#[cfg(test)]
/// The §7.6 truncation check: ends in `vs.`, `etc.` or `e.g.`; in `:`, `-`, `/`, `,` or `;`;
/// has no final punctuation and more than 3 words; or ends in a dangling function word.
pub fn is_truncated(text: &str) -> bool {
    truncated_with(text, &mut Words::of(text))
}

fn truncated_with<'a>(text: &'a str, words: &mut Words<'a>) -> bool {
    let t = text.trim_end();
    if t.is_empty() {
        return true;
    }
    if t.ends_with(" vs.") || t.ends_with(" etc.") || t.ends_with(" e.g.") {
        return true;
    }
    if t.ends_with([':', '-', '/', ',', ';', '–', '—']) {
        return true;
    }
    let final_punct = t.ends_with(['.', '!', '?', '…', '"', '”', '»', ')']);
    let (words, last) = words.get();
    if !final_punct && words > 3 && !ends_with_list_item(t) {
        return true;
    }
    last.is_some_and(is_dangling)
}

#[cfg(test)]
/// The §7.6 completeness check: at least 20 characters, a first character that is a letter,
/// digit or quote, a final `.`, `!`, `?` or `…`, at least 4 words, a last word that is not
/// dangling, and at least 60% letters.
pub fn is_complete(text: &str) -> bool {
    complete_with(text, &mut Words::of(text))
}

fn complete_with<'a>(text: &'a str, words: &mut Words<'a>) -> bool {
    let t = text.trim();
    let ascii = t.is_ascii();
    if (if ascii { t.len() } else { t.chars().count() }) < 20 {
        return false;
    }
    let first_ok = t.chars().next().is_some_and(|c| c.is_alphanumeric() || matches!(c, '"' | '\'' | '“' | '‘' | '«' | '¿' | '¡'));
    let stripped = t.trim_end_matches(['"', '”', '’', '\'', ')', '»', '*']);
    let final_ok = stripped.ends_with(['.', '!', '?', '…']) || ends_with_list_item(t);
    if !(first_ok && final_ok) {
        return false;
    }
    let (words, last) = words.get();
    // Non-space characters and letters, counted in one pass (bytes for ASCII text).
    let (non_space, letters) = if ascii {
        t.bytes().fold((0, 0), |(n, l), b| {
            (n + usize::from(!crate::normalize::is_ascii_space(b)), l + usize::from(b.is_ascii_alphabetic()))
        })
    } else {
        t.chars().fold((0, 0), |(n, l), c| (n + usize::from(!c.is_whitespace()), l + usize::from(c.is_alphabetic())))
    };
    let non_space = non_space.max(1);
    words >= 4 && letters * 10 >= non_space * 6 && !last.is_some_and(is_dangling)
}

/// Lower-case tokens of at least 3 characters, stopwords removed (§6.1 step 4). Numbers are
/// tokens whatever their length (project rule), so "Section 4.2" and "Section 4.3", or "5 days"
/// and "7 days", never look alike.
pub fn tokens(text: &str) -> Vec<String> {
    token_slices(text).into_iter().map(Cow::into_owned).collect()
}

/// [`tokens`] borrowing the words that are already lower-case from `text` (most of them), so
/// that near-duplicate passes over thousands of texts do not allocate a string per token.
pub fn token_slices(text: &str) -> Vec<Cow<'_, str>> {
    let mut out = token_occurrences(text);
    out.sort_unstable();
    out.dedup();
    out
}

/// The tokens of [`tokens`] in text order, repeats included (numbers first): for callers that
/// intern tokens and deduplicate the integer ids instead of sorting strings.
pub fn token_occurrences(text: &str) -> Vec<Cow<'_, str>> {
    let mut out: Vec<Cow<'_, str>> = crate::map::evidence::numbers(text).map(|n| Cow::Owned(format!("#{n}"))).collect();
    for (_, w) in warrant_text::words::words(text) {
        if w.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if w.len() < 3 || (!w.is_ascii() && w.chars().count() < 3) {
            continue;
        }
        if w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()) {
            if !List::Jaccard.contains(w) {
                out.push(Cow::Borrowed(w));
            }
            continue;
        }
        let l = w.to_lowercase();
        if List::Jaccard.contains(&l) {
            continue;
        }
        out.push(Cow::Owned(l));
    }
    out
}

/// Jaccard similarity of two sorted, deduplicated lists (1.0 when both are empty).
#[cfg(test)]
pub fn jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Common imperative verbs (EN), for instructions and procedure names.
pub const VERBS: &[&str] = &[
    "add",
    "adjust",
    "analyze",
    "analyse",
    "announce",
    "apply",
    "approve",
    "archive",
    "ask",
    "assess",
    "assign",
    "audit",
    "avoid",
    "back",
    "build",
    "calculate",
    "call",
    "cancel",
    "change",
    "check",
    "choose",
    "clean",
    "close",
    "collect",
    "communicate",
    "compare",
    "complete",
    "configure",
    "confirm",
    "connect",
    "consider",
    "contact",
    "copy",
    "create",
    "decide",
    "define",
    "delete",
    "deploy",
    "design",
    "determine",
    "disable",
    "document",
    "download",
    "draft",
    "enable",
    "ensure",
    "escalate",
    "estimate",
    "evaluate",
    "file",
    "fill",
    "find",
    "fix",
    "follow",
    "gather",
    "generate",
    "get",
    "give",
    "handle",
    "identify",
    "implement",
    "include",
    "inform",
    "install",
    "investigate",
    "issue",
    "keep",
    "launch",
    "log",
    "make",
    "manage",
    "measure",
    "migrate",
    "monitor",
    "move",
    "notify",
    "obtain",
    "open",
    "page",
    "pay",
    "perform",
    "plan",
    "prepare",
    "prioritize",
    "process",
    "provide",
    "publish",
    "read",
    "record",
    "reduce",
    "refund",
    "register",
    "release",
    "remove",
    "renew",
    "replace",
    "report",
    "request",
    "reset",
    "resolve",
    "respond",
    "restart",
    "restore",
    "review",
    "revoke",
    "roll",
    "rotate",
    "run",
    "schedule",
    "select",
    "send",
    "set",
    "share",
    "ship",
    "sign",
    "start",
    "stop",
    "submit",
    "switch",
    "take",
    "test",
    "track",
    "train",
    "transfer",
    "triage",
    "turn",
    "update",
    "upgrade",
    "upload",
    "use",
    "validate",
    "verify",
    "wait",
    "write",
    "click",
    "press",
    "tap",
    "enter",
    "type",
    "go",
    "navigate",
    "print",
    "visit",
    "quote",
    "attach",
    "store",
    "watch",
    "email",
    "pause",
    "query",
    "sign",
];

/// True when a sentence (or its main clause after a leading `Before/After/To/When …,`) starts
/// with an imperative verb: `Determine the eGFR category.`, `Before deploying, run the tests.`
pub fn is_imperative(sentence: &str) -> bool {
    const LEAD: [&str; 8] = ["before", "after", "to", "when", "once", "for", "during", "if"];
    // Many verbs are also nouns ("Report generation is slow"): an imperative's next word opens
    // its object or complement.
    const OPENERS: &[&str] = &[
        "the", "a", "an", "all", "any", "each", "every", "your", "their", "its", "this", "that", "these", "those", "it", "them",
        "to", "with", "for", "on", "in", "at", "from", "up", "down", "out", "off", "back", "no", "only", "both", "one", "two",
        "three", "whether", "if", "how", "what", "when", "new", "existing", "old",
    ];
    let original = sentence.trim_start();
    let first_word = original.split_whitespace().next().unwrap_or("").to_lowercase();
    let main = if LEAD.contains(&first_word.as_str()) {
        match original.split_once(", ") {
            Some((_, rest)) => rest,
            None => return false,
        }
    } else {
        original
    };
    let mut w = main.split_whitespace();
    let (Some(first), Some(second)) = (w.next(), w.next()) else { return false };
    let first = first.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
    let second_clean = second.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let object_like = OPENERS.contains(&second_clean.as_str())
        || second_clean.starts_with(|c: char| c.is_ascii_digit())
        || second.starts_with(|c: char| c.is_uppercase() || c == '`' || c == '"');
    VERBS.contains(&first.as_str()) && object_like
}

/// Capitalises the first letter.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Cuts a phrase into a label: at most `max_words` words, trailing function words and
/// punctuation dropped, first letter capitalised.
pub fn label(phrase: &str, max_words: usize) -> String {
    let words: Vec<&str> = phrase.split_whitespace().take(max_words).collect();
    let mut end = words.len();
    while end > 1 {
        let w = words[end - 1].trim_matches(|c: char| !c.is_alphanumeric());
        if w.is_empty() || is_dangling(w) {
            end -= 1;
        } else {
            break;
        }
    }
    let joined = words[..end].join(" ");
    let trimmed =
        joined.trim_end_matches(|c: char| !(c.is_alphanumeric() || matches!(c, ')' | '"' | '”' | '\'' | '’' | '%' | '$')));
    capitalise(trimmed.trim_start_matches(|c: char| !(c.is_alphanumeric() || matches!(c, '"' | '“' | '(' | '$' | '€' | '£'))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The completeness check as first written (three passes over the characters), the
    /// reference for the one-pass version.
    fn is_complete_reference(text: &str) -> bool {
        let t = text.trim();
        if t.chars().count() < 20 {
            return false;
        }
        let first_ok =
            t.chars().next().is_some_and(|c| c.is_alphanumeric() || matches!(c, '"' | '\'' | '“' | '‘' | '«' | '¿' | '¡'));
        let stripped = t.trim_end_matches(['"', '”', '’', '\'', ')', '»', '*']);
        let final_ok = stripped.ends_with(['.', '!', '?', '…']) || ends_with_list_item(t);
        if !(first_ok && final_ok) {
            return false;
        }
        let (words, last) = word_count_and_last(t);
        let non_space = t.chars().filter(|c| !c.is_whitespace()).count().max(1);
        let letters = t.chars().filter(|c| c.is_alphabetic()).count();
        words >= 4 && letters * 10 >= non_space * 6 && !last.is_some_and(is_dangling)
    }

    proptest::proptest! {
        #[test]
        fn one_pass_completeness_equals_the_reference(
            s in "[A-Za-z0-9 .,!?\t\n\u{b}\u{c}\u{e9}\u{a0}'\"-]{0,60}",
            sentence in "[A-Z\u{c9}][a-z0-9 ,\t\u{b}\u{c}\u{e9}\u{a0}%$-]{18,60}[.!?]",
        ) {
            proptest::prop_assert_eq!(is_complete(&s), is_complete_reference(&s));
            proptest::prop_assert_eq!(is_complete(&sentence), is_complete_reference(&sentence));
            for t in [&s, &sentence, &format!("  {sentence}\n "), &format!("{s} and the")] {
                proptest::prop_assert_eq!(truncated_and_complete(t), (is_truncated(t), is_complete_reference(t)));
            }
        }
    }

    #[test]
    fn truncation_and_completeness() {
        assert!(is_truncated("See the list below:"));
        assert!(is_truncated("Cats, dogs, etc."));
        assert!(is_truncated("This sentence just stops without"));
        assert!(is_truncated("Four words and then"));
        assert!(!is_truncated("Refunds take five days."));
        assert!(!is_truncated("Short label"));
        assert!(is_complete("Refunds take five business days."));
        assert!(!is_complete("Too short."));
        assert!(!is_complete("- starts with a dash and ends well."));
        assert!(!is_complete("Numbers 1 2 3 4 5 6 7 8 9 10 11 12."));
        assert!(!is_complete("It ends in a dangling word for."));
        assert!(is_complete("To deploy: 1. Open the console 2. Click deploy"));
        assert!(is_obviously_truncated("Pricing vs."));
        assert!(!is_obviously_truncated("Pricing"));
    }

    #[test]
    fn tokens_and_jaccard() {
        assert_eq!(tokens("Section 4.2 in 5 days"), vec!["#4.2", "#5", "days", "section"]);
        assert!(jaccard(&tokens("Refunds take 5 days"), &tokens("Refunds take 7 days")) < 0.8);
        let a = tokens("The refund takes five days for all orders");
        assert_eq!(a, vec!["days", "five", "orders", "refund", "takes"]);
        let b = tokens("Refund takes five days for orders");
        assert!((jaccard(&a, &b) - 1.0).abs() < 1e-9);
        assert!(jaccard(&a, &tokens("Something else entirely")) < 0.1);
    }

    #[test]
    fn imperatives() {
        assert!(is_imperative("Determine the patient's eGFR category."));
        assert!(is_imperative("Before selecting the regimen, determine the patient's eGFR category."));
        assert!(!is_imperative("Report generation is slow."));
        assert!(!is_imperative("The report is due."));
    }

    #[test]
    fn labels() {
        assert_eq!(label("share passwords with anyone, even your manager", 4), "Share passwords with anyone");
        assert_eq!(label("share passwords with the", 10), "Share passwords");
        assert_eq!(label("  \"quoted\" thing:", 5), "\"quoted\" thing");
    }
}
