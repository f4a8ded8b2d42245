//! Unicode normalisation the crates share: NFC with whitespace collapsed (the form every
//! string of a knowledge package and every compared value is held in), diacritics stripped
//! (how search indexes read words), and lower-casing a word for a table look-up.
//!
//! ASCII text is its own NFC, so every function here has an ASCII path that copies at most
//! once: most text Warrant normalises is ASCII, and some of it is normalised several times.

use std::borrow::Cow;

use unicode_normalization::char::is_combining_mark as combining;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

/// NFC, whitespace runs collapsed to one space, trimmed (§4).
pub fn normalize(s: &str) -> String {
    // Already normal ASCII (the common case for labels and short fields): one copy.
    if is_plain_ascii(s) {
        return s.to_string();
    }
    if s.is_ascii() {
        return collapse_ascii(s);
    }
    // Non-ASCII text whose whitespace is already single spaces (most prose): one copy, no
    // re-encoding char by char.
    if whitespace_collapsed(s) {
        return nfc_owned(s.to_string());
    }
    normalize_chars(s)
}

/// The general path of [`normalize`], char by char (the reference its shortcuts are tested
/// against).
fn normalize_chars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending_space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(c);
        }
    }
    nfc_owned(out)
}

/// True when `s` has no leading or trailing whitespace and every whitespace character is a
/// single space between two other characters (one pass).
fn whitespace_collapsed(s: &str) -> bool {
    let mut prev_space = true;
    for c in s.chars() {
        let space = c.is_whitespace();
        if space && (prev_space || c != ' ') {
            return false;
        }
        prev_space = space;
    }
    !prev_space || s.is_empty()
}

/// `normalize` of ASCII text (its own NFC): whitespace runs collapsed byte by byte into a buffer
/// of the input's length (a space always stands for at least one whitespace byte).
fn collapse_ascii(s: &str) -> String {
    let mut out = vec![0u8; s.len()];
    let mut n = 0;
    let mut pending_space = false;
    for &b in s.as_bytes() {
        if is_ascii_space(b) {
            pending_space = n > 0;
        } else {
            if pending_space {
                out[n] = b' ';
                n += 1;
                pending_space = false;
            }
            out[n] = b;
            n += 1;
        }
    }
    out.truncate(n);
    // Only ASCII bytes were written.
    String::from_utf8(out).unwrap_or_default()
}

/// True when `s` is ASCII without control bytes, leading or trailing spaces, or two spaces in a
/// row: then it is its own normal form. (False for some other normal strings, which take the
/// general path to the same result.) Eight bytes at a time: `normalize` sees every string a
/// package holds, several times.
fn is_plain_ascii(s: &str) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let b = s.as_bytes();
    // A space before the first byte, so a leading space counts as a run.
    let mut prev_space = true;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        // Non-ASCII bytes; then (all bytes below 0x80) any byte below 0x20.
        if x & HI != 0 || x.wrapping_sub(LO * 0x20) & !x & HI != 0 {
            return false;
        }
        // The high bit of each space byte, exactly: y's zero bytes.
        let y = x ^ (LO * 0x20);
        let spaces = !(((y & !HI).wrapping_add(!HI)) | y | !HI);
        // Byte k + 1 is 8 bits above byte k (little-endian); byte 0 follows the last chunk.
        if spaces & (spaces << 8) != 0 || (prev_space && spaces & 0x80 != 0) {
            return false;
        }
        prev_space = spaces >> 63 != 0;
    }
    for &c in chunks.remainder() {
        if c == b' ' {
            if prev_space {
                return false;
            }
            prev_space = true;
        } else if (0x20..0x80).contains(&c) {
            prev_space = false;
        } else {
            return false;
        }
    }
    // A trailing space (an empty string is plain).
    !prev_space || b.is_empty()
}

/// NFC form of an owned string, without copying when it already is NFC.
fn nfc_owned(s: String) -> String {
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes { s } else { s.nfc().collect() }
}

/// True when `normalize(s)` has at most `max` characters, without building it for ASCII text.
pub fn normalized_chars_at_most(s: &str, max: usize) -> bool {
    if !s.is_ascii() {
        return crate::char_len(&normalize(s)) <= max;
    }
    // Collapsing and trimming whitespace only shorten a string (ASCII is its own NFC).
    if s.len() <= max {
        return true;
    }
    // Non-whitespace bytes, plus one space per whitespace run between them.
    let mut n = 0usize;
    let mut pending_space = false;
    for &b in s.as_bytes() {
        if is_ascii_space(b) {
            pending_space = n > 0;
        } else {
            n += 1 + usize::from(pending_space);
            pending_space = false;
            if n > max {
                return false;
            }
        }
    }
    true
}

/// `word` lower-cased, for a look-up in a table of lower-case words: the word itself when it
/// has no upper-case letter (most words), else its lower-case form written into `buf`.
pub fn lower_word<'a>(word: &'a str, buf: &'a mut String) -> &'a str {
    if word.is_ascii() {
        if !word.bytes().any(|b| b.is_ascii_uppercase()) {
            return word;
        }
        buf.clear();
        buf.push_str(word);
        buf.make_ascii_lowercase();
    } else {
        buf.clear();
        buf.extend(word.chars().flat_map(char::to_lowercase));
    }
    buf
}

/// True when `b` is ASCII whitespace as `char::is_whitespace` has it: tab, line feed, vertical
/// tab, form feed, carriage return and space.
pub fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (0x09..=0x0d).contains(&b)
}

/// True when `s` is already in the §4 normal form.
pub fn is_normalized(s: &str) -> bool {
    if !whitespace_collapsed(s) {
        return false;
    }
    s.is_ascii()
        || match is_nfc_quick(s.chars()) {
            IsNormalized::Yes => true,
            IsNormalized::No => false,
            IsNormalized::Maybe => s.nfc().eq(s.chars()),
        }
}

/// Each run of whitespace replaced by one space, trimmed: [`normalize`] without NFC, for text
/// shown on one line or compared where composition does not matter.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The NFC form of `s`, borrowed when it already is (ASCII always is).
pub fn nfc(s: &str) -> Cow<'_, str> {
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes { Cow::Borrowed(s) } else { Cow::Owned(s.nfc().collect()) }
}

/// [`normalize`], then lower-cased: how compared strings (values, names) are matched.
pub fn normalize_lower(s: &str) -> String {
    normalize(s).to_lowercase()
}

/// True for a combining mark (an accent written as a char of its own after its letter).
pub fn is_combining_mark(c: char) -> bool {
    combining(c)
}

/// `text` without diacritics: canonical decomposition (NFD), combining marks dropped
/// ("Zürich" → "Zurich"), as full-text indexes such as SQLite's FTS5 read words.
pub fn without_marks(text: &str) -> String {
    text.nfd().filter(|c| !combining(*c)).collect()
}

/// `text` with the accents of its Latin letters dropped (NFD, then the combining marks that
/// follow a Latin letter): "Zürich" → "Zurich". Marks of other scripts are letters and stay
/// (Devanagari "कुल" is not "कल", kana "ガス" not "カス").
pub fn without_latin_accents(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut after_latin = false;
    for c in text.nfd() {
        if combining(c) {
            if !after_latin {
                out.push(c);
            }
            continue;
        }
        // Basic Latin, Latin-1, Latin Extended-A/B and Additional (U+1E00..U+1EFF).
        after_latin = c.is_ascii_alphabetic() || matches!(c, '\u{C0}'..='\u{24F}' | '\u{1E00}'..='\u{1EFF}');
        out.push(c);
    }
    out
}

/// The chars of `text` after compatibility decomposition (NFKD) with combining marks dropped:
/// the fold to ASCII of slugs ("ﬁ" → "fi", "é" → "e").
pub fn without_marks_compat(text: &str) -> impl Iterator<Item = char> + '_ {
    text.nfkd().filter(|c| !combining(*c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn collapses_whitespace_and_composes() {
        assert_eq!(normalize("  a\t\n b\u{00a0}\u{2003}c  "), "a b c");
        assert_eq!(normalize("e\u{0301}"), "é");
        assert_eq!(normalize(""), "");
        assert!(is_normalized("a b"));
        assert!(!is_normalized("a  b"));
        assert!(!is_normalized(" a"));
        assert!(!is_normalized("a\nb"));
        assert!(!is_normalized("e\u{0301}"));
        assert!(is_normalized("é"));
        assert_eq!(nfc("e\u{0301}"), "é");
        assert!(matches!(nfc("plain"), Cow::Borrowed(_)));
        assert_eq!(without_marks("Zürich Malmö"), "Zurich Malmo");
        assert_eq!(without_latin_accents("Zürich Malmö"), "Zurich Malmo");
        assert_eq!(without_latin_accents("कुल ガス"), nfc("कुल ガス").nfd().collect::<String>());
        assert_eq!(without_marks_compat("ﬁné").collect::<String>(), "fine");
    }

    proptest! {
        #[test]
        fn normalize_is_idempotent_and_detected(s in "\\PC{0,40}|[ \\t\\na-zé\u{0301}]{0,30}") {
            let n = normalize(&s);
            prop_assert_eq!(normalize(&n), n.clone());
            prop_assert!(is_normalized(&n));
        }

        /// Composing before or after collapsing whitespace is the same (whitespace chars are
        /// starters that compose with nothing): callers that did NFC first get the same text.
        #[test]
        fn nfc_commutes_with_collapsing(s in "\\PC{0,40}|[ \\t\\n\u{2000}\u{a0}a-zé\u{0301}\u{0327}]{0,30}") {
            let nfc_first: String = s.nfc().collect::<String>().split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            prop_assert_eq!(normalize_lower(&s), nfc_first);
        }

        #[test]
        fn collapsing_joins_the_words(s in "\\PC{0,40}|[ \t\n\u{a0}\u{2003}ab]{0,30}") {
            prop_assert_eq!(collapse_whitespace(&s), s.split_whitespace().collect::<Vec<_>>().join(" "));
        }

        #[test]
        fn plain_ascii_is_exactly_unchanged_ascii(s in "[ \t\n\x0b\x01\x7fa-c]{0,40}|[ ab]{0,40}|\\PC{0,20}") {
            // The fast path accepts a string only when it is its own normal form, and accepts
            // every ASCII one without control bytes.
            let plain = is_plain_ascii(&s);
            let unchanged = normalize_chars(&s) == s;
            let no_controls = s.bytes().all(|b| (0x20..0x80).contains(&b));
            prop_assert_eq!(plain, unchanged && no_controls);
        }

        #[test]
        fn collapsed_whitespace_is_detected(s in "[ \t\n\u{a0}\u{2003}a\u{e9}]{0,30}|\\PC{0,30}") {
            // Exactly when the char path would leave the whitespace as it is.
            let n = normalize_chars(&s);
            prop_assert_eq!(whitespace_collapsed(&s), n.nfd().eq(s.nfd()) || (s.is_empty() && n.is_empty()));
            prop_assert_eq!(normalize(&s), n);
        }

        #[test]
        fn ascii_collapse_matches_the_char_path(s in "[ \t\n\x0b\x0c\r\x1c\x01a-c]{0,40}") {
            prop_assert_eq!(collapse_ascii(&s), normalize_chars(&s));
        }

        #[test]
        fn normalized_length_bound_matches_normalize(s in "[ \t\n\x0ba-c]{0,30}|\\PC{0,30}", max in 0usize..30) {
            prop_assert_eq!(normalized_chars_at_most(&s, max), crate::char_len(&normalize(&s)) <= max);
        }
    }
}
