//! String normalisation (spec §4) and slugs (§3).
//!
//! Every string a package holds is NFC-normalised, has each run of Unicode whitespace collapsed
//! to one space, and is trimmed. Slugs fold to ASCII (NFKD, combining marks dropped), lower-case
//! and join `[a-z0-9]` runs with a separator.

use unicode_normalization::char::is_combining_mark;
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
        return nfc(s.to_string());
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
    nfc(out)
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
fn nfc(s: String) -> String {
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes { s } else { s.nfc().collect() }
}

/// True when `normalize(s)` has at most `max` characters, without building it for ASCII text.
pub fn normalized_chars_at_most(s: &str, max: usize) -> bool {
    if !s.is_ascii() {
        return chars(&normalize(s)) <= max;
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

/// Lower-case ASCII fold of a label: NFKD, combining marks dropped, lower-cased.
fn fold(label: &str) -> String {
    normalize(label).nfkd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect()
}

/// An ASCII byte's slug character: itself lower-cased for letters and digits, else 0.
static SLUG_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() {
            t[i] = b.to_ascii_lowercase();
        }
        i += 1;
    }
    t
};

/// The untruncated slug of a label: runs of characters other than `[a-z0-9]` become `sep`,
/// trimmed at both ends. Empty when the label has no ASCII letters or digits.
pub fn slug_full(label: &str, sep: char) -> String {
    let mut out = String::with_capacity(label.len());
    push_slug(&mut out, 0, label, sep);
    out
}

/// Appends the slug of `text` to `out`, whose slug so far starts at byte `start`: a `sep` goes
/// before the text's first run when that slug is not empty. Pushing the parts of a text one by
/// one gives the slug of the parts joined by spaces (separators collapse and trim; slugs fold
/// character by character), without building the joined text.
pub fn push_slug(out: &mut String, start: usize, text: &str, sep: char) {
    // ASCII needs no normalisation or folding: one table look-up per byte. A separator stands
    // for at least one dropped byte (or for the space between two parts), so the text's slug
    // fits in its length plus one: written into a buffer of that size, not pushed byte by byte.
    if text.is_ascii() && sep.is_ascii() {
        let mut bytes = std::mem::take(out).into_bytes();
        let mut n = bytes.len();
        bytes.resize(n + text.len() + 1, 0);
        let mut gap = true;
        for &b in text.as_bytes() {
            let c = SLUG_BYTE[usize::from(b)];
            if c == 0 {
                gap = true;
                continue;
            }
            if gap && n > start {
                bytes[n] = sep as u8;
                n += 1;
            }
            gap = false;
            bytes[n] = c;
            n += 1;
        }
        bytes.truncate(n);
        // Valid UTF-8 before, and only ASCII bytes were written.
        *out = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        return;
    }
    let mut gap = true;
    for c in fold(text).chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if gap && out.len() > start {
                out.push(sep);
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
}

/// Cuts a slug to at most `max` bytes at the last separator that fits; hard-cuts when none does.
pub fn cut_slug(slug: &str, sep: char, max: usize) -> &str {
    if slug.len() <= max {
        return slug;
    }
    // Slugs are ASCII, so any byte index is a char boundary.
    let head = &slug[..max];
    if slug.as_bytes()[max] == sep as u8 {
        return head;
    }
    match head.rfind(sep) {
        Some(p) if p > 0 => &slug[..p],
        _ => head,
    }
}

/// The §3.2 slug: at most `max` characters, `item` when empty.
pub fn slug(label: &str, sep: char, max: usize) -> String {
    let full = slug_full(label, sep);
    let cut = cut_slug(&full, sep, max);
    if cut.is_empty() { "item".to_string() } else { cut.to_string() }
}

/// At most `max` characters of a normalised string, without a trailing space.
pub fn preview(s: &str, max: usize) -> String {
    let cut: String = normalize(s).chars().take(max).collect();
    cut.trim_end().to_string()
}

/// Characters in a string (Unicode scalar values).
pub fn chars(s: &str) -> usize {
    warrant_text::char_len(s)
}

#[cfg(test)]
/// The longest prefix of `s` with at most `max` chars that ends at a word boundary (a space),
/// or the hard cut when the first word alone is longer.
pub fn cut_at_word(s: &str, max: usize) -> &str {
    if chars(s) <= max {
        return s;
    }
    let end = warrant_text::char_to_byte(s, max).unwrap_or(s.len());
    let head = &s[..end];
    if s[end..].starts_with(' ') {
        return head.trim_end();
    }
    match head.rfind(' ') {
        Some(p) if p > 0 => head[..p].trim_end(),
        _ => head,
    }
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
    }

    #[test]
    fn slugs_follow_the_spec_examples() {
        assert_eq!(slug("Session token", '_', 48), "session_token");
        assert_eq!(slug("Avaliação formativa", '_', 48), "avaliacao_formativa");
        assert_eq!(slug("Session Auth Spec", '-', 48), "session-auth-spec");
        assert_eq!(slug("2.0", '-', 48), "2-0");
        assert_eq!(slug("日本語", '_', 48), "item");
        assert_eq!(slug("--Hello,   World!--", '_', 48), "hello_world");
    }

    #[test]
    fn slugs_cut_at_the_last_separator() {
        let s = slug("alpha beta gamma delta epsilon zeta eta theta iota kappa", '_', 48);
        assert!(s.len() <= 48);
        assert_eq!(s, "alpha_beta_gamma_delta_epsilon_zeta_eta_theta");
        assert_eq!(slug(&"x".repeat(60), '_', 48), "x".repeat(48));
        assert_eq!(cut_slug("abc_def", '_', 3), "abc");
    }

    #[test]
    fn word_cuts() {
        assert_eq!(cut_at_word("one two three", 7), "one two");
        assert_eq!(cut_at_word("one two three", 8), "one two");
        assert_eq!(cut_at_word("onetwothree", 5), "onetw");
        assert_eq!(cut_at_word("short", 50), "short");
    }

    proptest! {
        #[test]
        fn normalize_is_idempotent_and_detected(s in "\\PC{0,40}|[ \\t\\na-zé\u{0301}]{0,30}") {
            let n = normalize(&s);
            prop_assert_eq!(normalize(&n), n.clone());
            prop_assert!(is_normalized(&n));
        }

        /// Slugs pushed part by part equal the slug of the parts joined by spaces.
        #[test]
        fn pushed_slugs_join_like_spaces(parts in proptest::collection::vec("\\PC{0,12}|[ a-zA-Z0-9_.\u{e9}\u{301}\u{130}]{0,12}", 0..5)) {
            let mut out = String::from("pre_");
            for p in &parts {
                push_slug(&mut out, 4, p, '_');
            }
            prop_assert_eq!(&out[4..], slug_full(&parts.join(" "), '_'));
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
            prop_assert_eq!(normalized_chars_at_most(&s, max), chars(&normalize(&s)) <= max);
        }

        #[test]
        fn ascii_slugs_lower_case_and_join_alphanumeric_runs(s in "[ -~]{0,40}", dash in proptest::bool::ANY) {
            let sep = if dash { '-' } else { '_' };
            let runs: Vec<String> = s
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|r| !r.is_empty())
                .map(str::to_ascii_lowercase)
                .collect();
            prop_assert_eq!(slug_full(&s, sep), runs.join(&sep.to_string()));
        }

        #[test]
        fn slugs_are_ascii_and_bounded(s in "\\PC{0,80}") {
            let sl = slug(&s, '_', 48);
            prop_assert!(sl.len() <= 48 && !sl.is_empty());
            prop_assert!(sl.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
            prop_assert!(!sl.starts_with('_') && !sl.ends_with('_'));
        }
    }
}
