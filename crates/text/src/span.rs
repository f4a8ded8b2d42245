//! Char spans and their conversion to byte offsets.
//!
//! Spans in every Warrant format count Unicode scalar values (Rust `char`s), start inclusive
//! and end exclusive. Internally code works in byte offsets; these helpers are the one place
//! where the two meet, so nothing ever slices a `str` by a char offset by accident.

/// A half-open range of char offsets `[start, end)` into some text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CharSpan {
    /// First char of the span.
    pub start: usize,
    /// One past the last char of the span.
    pub end: usize,
}

impl CharSpan {
    /// Creates a span.
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// Number of chars covered; zero when `start >= end`.
    pub const fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    /// True when the span covers nothing.
    pub const fn is_empty(&self) -> bool {
        self.start >= self.end
    }
}

/// Number of chars in `s`.
pub fn char_len(s: &str) -> usize {
    if s.is_ascii() { s.len() } else { s.chars().count() }
}

/// Byte offset of the char at `char_idx`; `char_len(s)` maps to `s.len()`.
/// Returns `None` when `char_idx` is past the end.
pub fn char_to_byte(s: &str, char_idx: usize) -> Option<usize> {
    if s.is_ascii() {
        return (char_idx <= s.len()).then_some(char_idx);
    }
    if char_idx == 0 {
        return Some(0);
    }
    let mut seen = 0;
    for (byte, _) in s.char_indices() {
        if seen == char_idx {
            return Some(byte);
        }
        seen += 1;
    }
    (seen == char_idx).then_some(s.len())
}

/// The text under a char span, clamped to the text: an end past the text stops at its end and
/// `start > end` gives the empty string. Never panics.
pub fn clamp_slice(s: &str, start: usize, end: usize) -> &str {
    let len = char_len(s);
    let end = end.min(len);
    let start = start.min(end);
    let (Some(b0), Some(b1)) = (char_to_byte(s, start), char_to_byte(s, end)) else {
        return "";
    };
    &s[b0..b1]
}

/// Byte ⇄ char offset conversion for one text, built once and queried many times.
///
/// ASCII text needs no table; otherwise the table holds the byte offset of every char
/// boundary, so both directions are O(1) / O(log n).
#[derive(Debug, Clone)]
pub struct OffsetMap {
    /// `boundaries[i]` is the byte offset of char `i`; the last entry is the text length.
    /// Empty when the text is ASCII (bytes and chars coincide).
    boundaries: Vec<usize>,
    byte_len: usize,
}

impl OffsetMap {
    /// Builds the map for `text`.
    pub fn new(text: &str) -> Self {
        let boundaries = if text.is_ascii() {
            Vec::new()
        } else {
            let mut b: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
            b.push(text.len());
            b
        };
        Self { boundaries, byte_len: text.len() }
    }

    /// Number of chars in the text.
    pub fn char_len(&self) -> usize {
        if self.boundaries.is_empty() { self.byte_len } else { self.boundaries.len() - 1 }
    }

    /// Char offset of a byte offset. A byte offset inside a multi-byte char maps to that char;
    /// offsets past the end map to the char length.
    pub fn to_char(&self, byte: usize) -> usize {
        if self.boundaries.is_empty() {
            return byte.min(self.byte_len);
        }
        match self.boundaries.binary_search(&byte) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1).min(self.char_len()),
        }
    }

    /// Byte offset of a char offset, clamped to the text length.
    pub fn to_byte(&self, ch: usize) -> usize {
        if self.boundaries.is_empty() {
            return ch.min(self.byte_len);
        }
        self.boundaries.get(ch).copied().unwrap_or(self.byte_len)
    }

    /// Converts a byte range to a char span.
    pub fn span_of(&self, byte_start: usize, byte_end: usize) -> CharSpan {
        CharSpan::new(self.to_char(byte_start), self.to_char(byte_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ascii_and_multibyte_offsets() {
        let s = "añb😀c";
        assert_eq!(char_len(s), 5);
        assert_eq!(char_to_byte(s, 0), Some(0));
        assert_eq!(char_to_byte(s, 2), Some(3));
        assert_eq!(char_to_byte(s, 4), Some(8));
        assert_eq!(char_to_byte(s, 5), Some(9));
        assert_eq!(char_to_byte(s, 6), None);
        assert_eq!(clamp_slice(s, 1, 4), "ñb😀");
    }

    #[test]
    fn clamp_handles_out_of_range_and_reversed_spans() {
        assert_eq!(clamp_slice("hello", 3, 99), "lo");
        assert_eq!(clamp_slice("hello", 4, 2), "");
        assert_eq!(clamp_slice("hello", 99, 120), "");
        assert_eq!(clamp_slice("", 0, 1), "");
    }

    #[test]
    fn offset_map_round_trips() {
        let s = "x€y";
        let m = OffsetMap::new(s);
        assert_eq!(m.char_len(), 3);
        assert_eq!(m.to_byte(1), 1);
        assert_eq!(m.to_byte(2), 4);
        assert_eq!(m.to_char(4), 2);
        assert_eq!(m.to_char(2), 1, "a byte inside '€' maps to that char");
        assert_eq!(m.span_of(1, 4), CharSpan::new(1, 2));
    }

    proptest! {
        #[test]
        fn offset_map_agrees_with_char_indices(s in "\\PC{0,40}") {
            let m = OffsetMap::new(&s);
            prop_assert_eq!(m.char_len(), s.chars().count());
            for (ci, (bi, _)) in s.char_indices().enumerate() {
                prop_assert_eq!(m.to_byte(ci), bi);
                prop_assert_eq!(m.to_char(bi), ci);
                prop_assert_eq!(char_to_byte(&s, ci), Some(bi));
            }
        }

        #[test]
        fn clamp_slice_never_panics(s in "\\PC{0,20}", a in 0usize..30, b in 0usize..30) {
            let out = clamp_slice(&s, a, b);
            prop_assert!(s.contains(out));
        }
    }
}
