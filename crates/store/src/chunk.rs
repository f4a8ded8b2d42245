//! The default chunker (spec §2, project rule), deterministic and sentence-aware:
//!
//! 1. split the document at blank lines (lines holding only whitespace) into paragraphs;
//! 2. trim each paragraph and keep the trimmed offsets; drop empty ones;
//! 3. a paragraph longer than `max_chunk_chars` is cut at sentence ends (`.`, `!`, `?`
//!    followed by whitespace), packing whole sentences greedily up to the limit; a single
//!    sentence longer than the limit is hard-cut every `max_chunk_chars` chars (each piece
//!    trimmed).
//!
//! Offsets are char offsets into the document (D21), so `text[start..end]` (in chars) is the
//! chunk text. Chunk `n` (from 1) of document `d` has the id `d#n`.

use warrant_facts::split_sentences;
use warrant_text::OffsetMap;
use warrant_text::segment::{paragraphs, trim_range};

/// The default `max_chunk_chars`.
pub const DEFAULT_MAX_CHUNK_CHARS: usize = 1200;

/// One chunk of a document: char and byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRange {
    /// Position in the document, from 0.
    pub index: usize,
    /// First char.
    pub start: usize,
    /// One past the last char.
    pub end: usize,
    /// Byte offset of `start`.
    pub byte_start: usize,
    /// Byte offset of `end`.
    pub byte_end: usize,
}

/// The chunk id of the `index`-th chunk (from 0) of a document: `<docId>#<index + 1>`.
pub fn chunk_id(doc_id: &str, index: usize) -> String {
    format!("{doc_id}#{}", index + 1)
}

/// Chunks `text` (see the module docs). `max_chunk_chars` below 1 is treated as 1.
pub fn chunk_text(text: &str, max_chunk_chars: usize) -> Vec<ChunkRange> {
    let max = max_chunk_chars.max(1);
    let map = OffsetMap::new(text);
    let mut out: Vec<(usize, usize)> = Vec::new();
    for para in paragraphs(text) {
        if map.to_char(para.end) - map.to_char(para.start) <= max {
            out.push((para.start, para.end));
            continue;
        }
        let mut current: Option<(usize, usize)> = None;
        for s in split_sentences(&text[para.clone()]) {
            let (s0, s1) = (para.start + s.start, para.start + s.end);
            if let Some((c0, _)) = current {
                if map.to_char(s1) - map.to_char(c0) <= max {
                    current = Some((c0, s1));
                    continue;
                }
                out.extend(current.take());
            }
            if map.to_char(s1) - map.to_char(s0) <= max {
                current = Some((s0, s1));
            } else {
                hard_cut(text, &map, s0, s1, max, &mut out);
            }
        }
        out.extend(current);
    }
    out.into_iter()
        .enumerate()
        .map(|(index, (b0, b1))| ChunkRange { index, start: map.to_char(b0), end: map.to_char(b1), byte_start: b0, byte_end: b1 })
        .collect()
}

/// Cuts an over-long sentence every `max` chars, trimming each piece.
fn hard_cut(text: &str, map: &OffsetMap, b0: usize, b1: usize, max: usize, out: &mut Vec<(usize, usize)>) {
    let (c0, c1) = (map.to_char(b0), map.to_char(b1));
    let mut c = c0;
    while c < c1 {
        let next = (c + max).min(c1);
        let piece = trim_range(text, map.to_byte(c)..map.to_byte(next));
        if !piece.is_empty() {
            out.push((piece.start, piece.end));
        }
        c = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use warrant_text::clamp_slice;

    fn texts(t: &str, max: usize) -> Vec<&str> {
        chunk_text(t, max).into_iter().map(|c| &t[c.byte_start..c.byte_end]).collect()
    }

    #[test]
    fn paragraphs_are_chunks() {
        let t = "\n      Session tokens expire.\n      Max is 8 hours.\n    ";
        let c = chunk_text(t, 1200);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].start, c[0].end), (7, 51));
        assert_eq!(texts("a b\n\n \t\nc d\n", 1200), ["a b", "c d"]);
        assert!(chunk_text("  \n\n ", 10).is_empty());
    }

    #[test]
    fn long_paragraphs_pack_whole_sentences() {
        let t = "One two. Three four! Five six? Seven.";
        assert_eq!(texts(t, 20), ["One two. Three four!", "Five six? Seven."]);
        assert_eq!(texts(t, 9), ["One two.", "Three fou", "r!", "Five six?", "Seven."], "a long sentence is hard-cut");
        assert_eq!(texts("abcdefghij", 10), ["abcdefghij"], "a paragraph within the limit is one chunk");
        assert_eq!(texts("abcdefghij klm", 4), ["abcd", "efgh", "ij k", "lm"], "hard cut");
    }

    #[test]
    fn ids_and_char_offsets() {
        assert_eq!(chunk_id("spec-auth-v1", 0), "spec-auth-v1#1");
        let t = "Ça va. Très bien.\n\nÉté.";
        let c = chunk_text(t, 7);
        let got: Vec<&str> = c.iter().map(|c| clamp_slice(t, c.start, c.end)).collect();
        assert_eq!(got, ["Ça va.", "Très bi", "en.", "Été."]);
    }

    proptest! {
        #[test]
        fn chunks_are_exact_ordered_and_bounded(t in "(\\PC|\n|\n\n| |\\. |! |\\?){0,120}", max in 1usize..40) {
            let chunks = chunk_text(&t, max);
            let mut last_end = 0;
            for (i, c) in chunks.iter().enumerate() {
                prop_assert_eq!(c.index, i);
                prop_assert!(t.is_char_boundary(c.byte_start) && t.is_char_boundary(c.byte_end));
                prop_assert!(c.start < c.end && c.start >= last_end);
                let by_chars: String = t.chars().skip(c.start).take(c.end - c.start).collect();
                prop_assert_eq!(&t[c.byte_start..c.byte_end], by_chars.as_str());
                prop_assert_eq!(by_chars.trim(), by_chars.as_str());
                last_end = c.end;
            }
            // Nothing but whitespace is left out.
            let mut covered = vec![false; t.chars().count()];
            for c in &chunks {
                covered[c.start..c.end].iter_mut().for_each(|x| *x = true);
            }
            for (k, ch) in t.chars().enumerate() {
                prop_assert!(covered[k] || ch.is_whitespace(), "char {} {:?} not covered", k, ch);
            }
        }

        #[test]
        fn long_paragraphs_respect_the_limit(words in proptest::collection::vec("[a-zé]{1,6}[.!?]?", 1..60), max in 8usize..40) {
            let t = words.join(" ");
            for c in chunk_text(&t, max) {
                let n = c.end - c.start;
                prop_assert!(n <= max || t.chars().count() <= max, "chunk of {} chars > {}", n, max);
            }
        }
    }
}
