//! Chunking (§7.3): cut each span's text into chunks of at most `max_chars` characters at
//! paragraph boundaries, inside sections found by heading lines.
//!
//! Chunks are cut *within* spans, so every chunk keeps its span's id and `source_refs` always
//! point at manifest spans. Headings: Markdown `#` lines, `Part`/`Chapter N` lines, numbered
//! `1.2.3 Title` lines without final punctuation, and ALL-CAPS lines of 2+ words and 6–80
//! letters. `---`, `===` and `___` lines are soft breaks.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use crate::source::Span;

/// Default chunk size in characters (§7.3).
pub const DEFAULT_MAX_CHARS: usize = 6000;

/// A piece of one span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Index of the span.
    pub span: u32,
    /// Byte range in the span's text.
    pub range: Range<usize>,
    /// The nearest heading above the chunk (the span's own, or one found inside it).
    pub heading: Option<String>,
    /// Heading trail, with ` · part N` when a section was split.
    pub path: Option<String>,
}

static PART_CHAPTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?i:part|parte|chapter|cap[ií]tulo|chapitre|kapitel)\s+(?:\d+|[IVXLC]+)(?:$|[\s.:—–-])")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});
static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\d{1,2}(?:\.\d{1,2}){1,4}\.?|\d{1,2})\s+\p{Lu}").unwrap_or_else(|e| panic!("regex: {e}")));

/// The heading text of a line when the line is a heading (see module docs).
pub fn heading_line(line: &str) -> Option<String> {
    let t = line.trim();
    if t.is_empty() || t.chars().count() > 100 {
        return None;
    }
    if let Some((_, h)) = crate::source::markdown_heading(t) {
        return Some(h.to_string());
    }
    let ends_punct = t.ends_with(['.', '!', '?', ':', ';', ',']);
    if PART_CHAPTER.is_match(t) {
        return Some(t.to_string());
    }
    if !ends_punct && NUMBERED.is_match(t) && t.split_whitespace().count() <= 12 {
        return Some(t.to_string());
    }
    let letters: Vec<char> = t.chars().filter(|c| c.is_alphabetic()).collect();
    if t.split_whitespace().count() >= 2
        && (6..=80).contains(&letters.len())
        && letters.iter().all(|c| c.is_uppercase())
        && !t.ends_with([',', ';'])
    {
        return Some(t.to_string());
    }
    None
}

fn is_soft_break(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3 && (t.bytes().all(|b| b == b'-') || t.bytes().all(|b| b == b'=') || t.bytes().all(|b| b == b'_'))
}

/// Cuts every span into chunks.
pub fn chunks(spans: &[Span], max_chars: usize) -> Vec<Chunk> {
    let mut out = Vec::new();
    for (i, s) in spans.iter().enumerate() {
        span_chunks(i as u32, s, max_chars.max(200), &mut out);
    }
    out
}

fn span_chunks(index: u32, span: &Span, max_chars: usize, out: &mut Vec<Chunk>) {
    let text = &span.text;
    // Sections: (start byte, heading) at each heading line found inside the span.
    let mut sections: Vec<(usize, Option<String>)> = vec![(0, span.heading.clone())];
    let mut pos = 0;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        let at = pos;
        pos += line.len();
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
        }
        if fenced {
            continue;
        }
        if at == 0 {
            if span.heading.is_none() {
                sections[0].1 = heading_line(line);
            }
            continue;
        }
        if let Some(h) = heading_line(line) {
            sections.push((at, Some(h)));
        } else if is_soft_break(line) {
            let last = sections.last().and_then(|s| s.1.clone());
            sections.push((at, last));
        }
    }
    for (k, (start, heading)) in sections.iter().enumerate() {
        let end = sections.get(k + 1).map_or(text.len(), |s| s.0);
        let base_path = match (&span.path, heading) {
            (Some(p), Some(h)) if k > 0 && Some(h) != span.heading.as_ref() => Some(format!("{p} > {h}")),
            (Some(p), _) => Some(p.clone()),
            (None, Some(h)) => Some(h.clone()),
            (None, None) => None,
        };
        split_section(index, text, *start..end, heading.clone(), base_path, max_chars, out);
    }
}

fn split_section(
    index: u32,
    text: &str,
    range: Range<usize>,
    heading: Option<String>,
    path: Option<String>,
    max_chars: usize,
    out: &mut Vec<Chunk>,
) {
    let r = warrant_text::segment::trim_range(text, range);
    if r.is_empty() {
        return;
    }
    let paras: Vec<Range<usize>> =
        warrant_text::segment::paragraphs(&text[r.clone()]).into_iter().map(|p| p.start + r.start..p.end + r.start).collect();
    let mut pieces: Vec<Range<usize>> = Vec::new();
    let mut cur: Option<Range<usize>> = None;
    let mut cur_chars = 0;
    for p in paras {
        let n = warrant_text::char_len(&text[p.clone()]);
        match &mut cur {
            Some(c) if cur_chars + n > max_chars => {
                pieces.push(c.clone());
                cur = Some(p);
                cur_chars = n;
            }
            Some(c) => {
                c.end = p.end;
                cur_chars += n + 2;
            }
            None => {
                cur = Some(p);
                cur_chars = n;
            }
        }
    }
    if let Some(c) = cur {
        pieces.push(c);
    }
    let parts = pieces.len();
    for (i, p) in pieces.into_iter().enumerate() {
        let path = match (&path, parts > 1) {
            (Some(base), true) => Some(format!("{base} · part {}", i + 1)),
            (None, true) => Some(format!("part {}", i + 1)),
            (p, false) => p.clone(),
        };
        out.push(Chunk { span: index, range: p, heading: heading.clone(), path });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SpanKind;

    fn span(text: &str) -> Span {
        Span { lines: (1, 1), ..Span::new(SpanKind::Document, text.into()) }
    }

    #[test]
    fn headings_are_recognised() {
        assert_eq!(heading_line("## Setup").as_deref(), Some("Setup"));
        assert_eq!(heading_line("Chapter 3: Rules").as_deref(), Some("Chapter 3: Rules"));
        assert_eq!(heading_line("2.1 Rotating keys").as_deref(), Some("2.1 Rotating keys"));
        assert_eq!(heading_line("2.1 Rotate the keys now."), None);
        assert_eq!(heading_line("GENERAL PROVISIONS").as_deref(), Some("GENERAL PROVISIONS"));
        assert_eq!(heading_line("NOTE"), None);
        assert_eq!(heading_line("Plain sentence here"), None);
        assert_eq!(heading_line("1. Open the app"), None);
    }

    #[test]
    fn splits_at_headings_and_size() {
        let t = "Intro text.\n\nGENERAL RULES\n\nRule one.\n\nRule two.\n\n---\n\nAfter the break.";
        let c = chunks(&[span(t)], 6000);
        let got: Vec<(&str, Option<&str>)> = c.iter().map(|c| (&t[c.range.clone()], c.heading.as_deref())).collect();
        assert_eq!(
            got,
            vec![
                ("Intro text.", None),
                ("GENERAL RULES\n\nRule one.\n\nRule two.", Some("GENERAL RULES")),
                ("---\n\nAfter the break.", Some("GENERAL RULES")),
            ]
        );
        let long = (0..10).map(|i| format!("Paragraph {i} {}.", "word ".repeat(30))).collect::<Vec<_>>().join("\n\n");
        let c = chunks(&[span(&long)], 400);
        assert!(c.len() > 1);
        assert!(c.iter().all(|c| warrant_text::char_len(&long[c.range.clone()]) <= 400));
        assert_eq!(c[1].path.as_deref(), Some("part 2"));
    }
}
