//! Excerpts: verbatim windows of at most 240 characters, chosen so that every number an item
//! states appears in one of its (at most two) excerpts.

use std::ops::Range;

use crate::model::{Evidence, Item};
use crate::normalize::{normalize, normalized_chars_at_most};
use warrant_text::segment::trim_range;

/// Longest excerpt, in characters (§2.5).
pub const MAX_EXCERPT: usize = 240;

/// Fields that only navigate (copied from headings): their numbers are checked against the
/// span's heading trail instead of the excerpts.
pub const NAVIGATION_FIELDS: [&str; 3] = ["standalone_context", "activation_queries", "tags"];

/// Numeric tokens (`2,000`, `4.2`, `14:30`, `60`) of a text: the matches of
/// `[0-9]+(?:[.,:/][0-9]+)*`, left to right, each as long as it goes. A plain scan: every
/// item's every field passes through here.
pub fn numbers(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let digits_from = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut pos = 0;
    std::iter::from_fn(move || {
        let start = pos + first_digit(b.get(pos..)?)?;
        let mut end = digits_from(start);
        // A separator continues the number only when a digit follows it.
        while matches!(b.get(end), Some(b'.' | b',' | b':' | b'/')) && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end = digits_from(end + 1);
        }
        pos = end;
        // Digits and separators are ASCII: both ends are char boundaries.
        Some(&text[start..end])
    })
}

/// The offset of the first ASCII digit in `b`. Eight bytes at a time: most text has none, and
/// every field of every item is scanned for numbers.
pub fn first_digit(b: &[u8]) -> Option<usize> {
    const L: u64 = 0x0101_0101_0101_0101;
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        // Per byte, without carries between bytes: the high bit of (185 - t) says t <= b'9',
        // that of (t + 80) says t >= b'0', where t is the byte's low seven bits; `!x` rules
        // out bytes with the high bit set.
        let t = x & (L * 0x7f);
        if (L * (0x7f + 0x3a) - t) & !x & (t + L * (0x7f - 0x2f)) & (L * 0x80) != 0 {
            return c.iter().position(u8::is_ascii_digit).map(|p| at + p);
        }
        at += 8;
    }
    chunks.remainder().iter().position(u8::is_ascii_digit).map(|p| at + p)
}

/// True when the bytes `at..end` of `b` hold a number not glued to other digits, nor to a
/// separator that continues a longer number.
fn standalone(b: &[u8], at: usize, end: usize) -> bool {
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let sep_at = |i: usize| matches!(b.get(i), Some(b'.' | b','));
    let before_ok = at == 0 || !(digit_at(at - 1) || (sep_at(at - 1) && at >= 2 && digit_at(at - 2)));
    let after_ok = !(digit_at(end) || (sep_at(end) && digit_at(end + 1)));
    before_ok && after_ok
}

/// True when `token` occurs in `hay` not glued to other digits.
pub fn contains_number(hay: &str, token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    let b = hay.as_bytes();
    if token.starts_with(|c: char| c.is_ascii_digit()) {
        // An occurrence starts at a digit: visit the digits (skipping digit-free stretches
        // eight bytes at a time) rather than setting up a substring search per occurrence.
        let mut from = 0;
        while let Some(p) = first_digit(&b[from..]) {
            let at = from + p;
            if b[at..].starts_with(token.as_bytes()) && standalone(b, at, at + token.len()) {
                return true;
            }
            from = at + 1;
        }
        return false;
    }
    let mut from = 0;
    while let Some(p) = hay[from..].find(token) {
        let at = from + p;
        if standalone(b, at, at + token.len()) {
            return true;
        }
        // Tokens start with an ASCII digit, so the next char boundary is one byte on.
        from = at + 1;
    }
    false
}

/// Byte offsets where `token` occurs in `hay` as a standalone number.
fn positions(hay: &str, token: &str) -> Vec<usize> {
    let b = hay.as_bytes();
    let mut out = Vec::new();
    if token.is_empty() {
        return out;
    }
    let mut from = 0;
    while let Some(p) = hay[from..].find(token) {
        let at = from + p;
        if standalone(b, at, at + token.len()) {
            out.push(at);
        }
        // Tokens start with an ASCII digit, so the next char boundary is one byte on.
        from = at + 1;
    }
    out
}

/// The numbers an item states in its claim fields (navigation fields excluded).
pub fn item_numbers(item: &Item) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (field, t) in item.texts() {
        if NAVIGATION_FIELDS.contains(&field) {
            continue;
        }
        for n in numbers(t) {
            if !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// Whitespace-separated words of `text[range]` as byte ranges of `text`.
fn words_in(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let slice = &text[range.clone()];
    if slice.is_ascii() {
        // Bytes are chars.
        return runs(range, slice.bytes().enumerate().map(|(i, b)| (i, crate::normalize::is_ascii_space(b))));
    }
    words_in_chars(text, range)
}

/// [`words_in`] for any text, char by char.
fn words_in_chars(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    runs(range.clone(), text[range].char_indices().map(|(i, c)| (i, c.is_whitespace())))
}

/// The runs of non-space positions in `range`, from (offset in the range, is space) marks.
fn runs(range: Range<usize>, marks: impl Iterator<Item = (usize, bool)>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, space) in marks {
        let at = range.start + i;
        if space {
            if let Some(s) = start.take() {
                out.push(s..at);
            }
        } else if start.is_none() {
            start = Some(at);
        }
    }
    if let Some(s) = start {
        out.push(s..range.end);
    }
    out
}

/// A window of words from word `from`, as long as it fits in `MAX_EXCERPT` normalised chars.
fn window(text: &str, words: &[Range<usize>], from: usize) -> Range<usize> {
    let mut len = 0usize;
    let mut end = from;
    while end < words.len() {
        let w = warrant_text::char_len(&text[words[end].clone()]);
        let add = if end == from { w } else { w + 1 };
        if len + add > MAX_EXCERPT {
            break;
        }
        len += add;
        end += 1;
    }
    if end == from {
        // One word longer than the limit: hard-cut it.
        let w = words[from].clone();
        let cut = warrant_text::char_to_byte(&text[w.clone()], MAX_EXCERPT).unwrap_or(w.end - w.start);
        return w.start..w.start + cut;
    }
    words[from].start..words[end - 1].end
}

/// Positions (byte offsets) of each needed number inside `range`; numbers not found are skipped.
fn number_positions(text: &str, range: &Range<usize>, needed: &[String]) -> Vec<Vec<usize>> {
    let hay = &text[range.clone()];
    let b = hay.as_bytes();
    // Numbers start with a digit: one pass finds every place one can start, so each token is
    // compared there only instead of searched for through the whole range.
    let digits: Vec<usize> = b.iter().enumerate().filter(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i).collect();
    needed
        .iter()
        .map(|n| {
            let at: Vec<usize> = if n.starts_with(|c: char| c.is_ascii_digit()) {
                digits.iter().copied().filter(|&p| b[p..].starts_with(n.as_bytes()) && standalone(b, p, p + n.len())).collect()
            } else {
                positions(hay, n)
            };
            at.into_iter().map(|p| range.start + p).collect::<Vec<usize>>()
        })
        .filter(|v| !v.is_empty())
        .collect()
}

fn covered(positions: &[Vec<usize>], windows: &[Range<usize>]) -> bool {
    positions.iter().all(|ps| ps.iter().any(|p| windows.iter().any(|w| w.contains(p))))
}

/// Up to `max` windows over `range` that cover the needed numbers: the start first, then a
/// window at the first uncovered number. `covered` is false when two windows cannot hold them.
pub fn windows(text: &str, range: Range<usize>, needed: &[String], max: usize) -> (Vec<Range<usize>>, bool) {
    // From the first word's start to the last word's end (trimming and the word split both
    // use `char::is_whitespace`). Most ranges fit in one excerpt: they need no word list.
    let full = trim_range(text, range.clone());
    if full.is_empty() {
        return (Vec::new(), needed.is_empty());
    }
    if normalized_chars_at_most(&text[full.clone()], MAX_EXCERPT) {
        return (vec![full], true);
    }
    let words = words_in(text, range.clone());
    let positions = number_positions(text, &range, needed);
    let mut wins = vec![window(text, &words, 0)];
    let word_of = |p: usize| words.iter().position(|w| w.end > p).unwrap_or(words.len() - 1);
    while wins.len() < max && !covered(&positions, &wins) {
        let Some(first_uncovered) = positions
            .iter()
            .filter(|ps| !ps.iter().any(|p| wins.iter().any(|w| w.contains(p))))
            .filter_map(|ps| ps.first())
            .min()
        else {
            break;
        };
        let wi = word_of(*first_uncovered);
        let last_end = wins.last().map_or(0, |w| w.end);
        let start = (wi.saturating_sub(3)..=wi).find(|k| words[*k].start >= last_end).unwrap_or(wi);
        wins.push(window(text, &words, start));
    }
    if !covered(&positions, &wins) && max >= 2 {
        // Start from the numbers instead of the text's beginning.
        let mut alt: Vec<Range<usize>> = Vec::new();
        let mut firsts: Vec<usize> = positions.iter().filter_map(|p| p.first().copied()).collect();
        firsts.sort_unstable();
        for p in firsts {
            if alt.iter().any(|w| w.contains(&p)) {
                continue;
            }
            if alt.len() == max {
                break;
            }
            let wi = word_of(p);
            alt.push(window(text, &words, wi.saturating_sub(2)));
        }
        if covered(&positions, &alt) {
            return (alt, true);
        }
    }
    let ok = covered(&positions, &wins);
    (wins, ok)
}

/// One source range of an item: the span index, the span's text, and the byte range.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    /// Span index.
    pub span: u32,
    /// The span's text.
    pub text: &'a str,
    /// Byte range of the quoted material in `text`.
    pub range: Range<usize>,
}

/// Attaches evidence for `sources` to an item: one range gets up to two windows, two ranges one
/// window each. Returns the item and whether its numbers are all inside the excerpts.
pub fn attach(mut item: Item, sources: &[Source<'_>]) -> (Item, bool) {
    let needed = item_numbers(&item);
    let mut all_ok = true;
    let per = if sources.len() == 1 { 2 } else { 1 };
    for s in sources.iter().take(2) {
        let need: Vec<String> = needed.iter().filter(|n| contains_number(&s.text[s.range.clone()], n)).cloned().collect();
        let (wins, ok) = windows(s.text, s.range.clone(), &need, per);
        all_ok &= ok;
        for w in wins {
            let excerpt = normalize(&s.text[w.clone()]);
            if excerpt.is_empty() {
                continue;
            }
            item.trace.evidence.push(Evidence { span: s.span, start: w.start as u32, end: w.end as u32, excerpt });
        }
    }
    // Numbers from none of the ranges are not covered either.
    let joined: Vec<&str> = item.trace.evidence.iter().map(|e| e.excerpt.as_str()).collect();
    all_ok &= needed.iter().all(|n| joined.iter().any(|e| contains_number(e, n)));
    (item, all_ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_boundaries() {
        assert!(contains_number("within 60 days", "60"));
        assert!(!contains_number("within 600 days", "60"));
        assert!(contains_number("$2,000 per year", "2,000"));
        assert!(!contains_number("$12,000 per year", "2,000"));
        assert!(contains_number("Section 4.2.", "4.2"));
        assert!(!contains_number("Section 4.21", "4.2"));
        assert!(!contains_number("version 1.4.2", "4.2"));
        assert_eq!(
            numbers("pay $1,250.50 by 14:30 on 2024-05-01").collect::<Vec<_>>(),
            vec!["1,250.50", "14:30", "2024", "05", "01"]
        );
    }

    proptest::proptest! {
        #[test]
        fn first_digit_is_the_first_ascii_digit(b in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            proptest::prop_assert_eq!(first_digit(&b), b.iter().position(u8::is_ascii_digit));
        }

        #[test]
        fn contains_number_is_some_standalone_position(t in "[0-9.,:/ a]{0,40}|\\PC{0,20}", n in "[0-9][0-9.,:/]{0,3}|a") {
            proptest::prop_assert_eq!(contains_number(&t, &n), !positions(&t, &n).is_empty());
        }

        #[test]
        fn number_positions_are_the_standalone_occurrences(t in "[0-9.,:/ a]{0,40}", n in "[0-9][0-9.,:/]{0,3}|a|") {
            let mut want = positions(&t, &n);
            want.iter_mut().for_each(|p| *p += 1);
            let text = format!("x{t}");
            let got = number_positions(&text, &(1..text.len()), std::slice::from_ref(&n));
            proptest::prop_assert_eq!(got.first().cloned().unwrap_or_default(), want);
        }

        #[test]
        fn number_scan_matches_the_pattern(t in "[0-9.,:/ a-]{0,40}|\\PC{0,30}") {
            let re = regex::Regex::new(r"[0-9]+(?:[.,:/][0-9]+)*").unwrap();
            let want: Vec<&str> = re.find_iter(&t).map(|m| m.as_str()).collect();
            proptest::prop_assert_eq!(numbers(&t).collect::<Vec<_>>(), want);
        }

        #[test]
        fn ascii_word_split_matches_the_char_split(t in "[ \t\n\x0b\x0c\ra-c.]{0,40}", a in 0usize..40, b in 0usize..40) {
            let r = a.min(b).min(t.len())..a.max(b).min(t.len());
            proptest::prop_assert_eq!(words_in(&t, r.clone()), words_in_chars(&t, r));
        }
    }

    #[test]
    fn first_digit_checks_every_byte_value_in_every_lane() {
        for v in 0..=255u8 {
            for p in 0..17 {
                let mut b = vec![b'x'; 17];
                b[p] = v;
                assert_eq!(first_digit(&b), b.iter().position(u8::is_ascii_digit), "{v} at {p}");
            }
        }
    }

    #[test]
    fn short_ranges_are_one_excerpt() {
        let t = "Refunds take 5 days.";
        let (w, ok) = windows(t, 0..t.len(), &["5".into()], 2);
        assert!(ok);
        assert_eq!(w, vec![0..t.len()]);
    }

    #[test]
    fn long_ranges_cover_their_numbers() {
        let t = format!("{} costs 75 dollars {} and 99 more.", "word ".repeat(60), "filler ".repeat(60));
        let (w, ok) = windows(&t, 0..t.len(), &["75".into(), "99".into()], 2);
        assert!(ok, "{w:?}");
        assert_eq!(w.len(), 2);
        for r in &w {
            assert!(warrant_text::char_len(&normalize(&t[r.clone()])) <= MAX_EXCERPT);
        }
        let spread = format!("1 {} 2 {} 3 {} 4.", "a ".repeat(150), "b ".repeat(150), "c ".repeat(150));
        let (_, ok) = windows(&spread, 0..spread.len(), &["1".into(), "2".into(), "3".into(), "4".into()], 2);
        assert!(!ok);
    }
}
