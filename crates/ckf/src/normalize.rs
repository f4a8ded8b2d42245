//! String normalisation (spec §4) and slugs (§3).
//!
//! Every string a package holds is NFC-normalised, has each run of Unicode whitespace collapsed
//! to one space, and is trimmed ([`normalize`], shared with the other crates through
//! [`warrant_text::normalize`]). Slugs fold to ASCII (NFKD, combining marks dropped), lower-case
//! and join `[a-z0-9]` runs with a separator.

use warrant_text::normalize::without_marks_compat;
pub use warrant_text::normalize::{is_ascii_space, is_normalized, lower_word, normalize, normalized_chars_at_most};

/// Lower-case ASCII fold of a label: NFKD, combining marks dropped, lower-cased.
fn fold(label: &str) -> String {
    without_marks_compat(&normalize(label)).flat_map(char::to_lowercase).collect()
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
