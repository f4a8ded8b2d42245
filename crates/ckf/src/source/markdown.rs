//! Markdown: YAML-style front matter, ATX headings, and one span per heading section (§7.2).

use std::ops::Range;

use super::{Span, SpanKind, span_over};

/// Bibliographic fields from front matter (or an HTML `<head>`), never from the model (§2.3).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// `title`.
    pub title: Option<String>,
    /// `subtitle`.
    pub subtitle: Option<String>,
    /// `author` (or the first of `authors`).
    pub author: Option<String>,
    /// `authors`.
    pub authors: Vec<String>,
    /// `version`.
    pub version: Option<String>,
    /// `edition`.
    pub edition: Option<String>,
    /// `publisher`.
    pub publisher: Option<String>,
    /// `year`.
    pub year: Option<String>,
    /// `isbn`.
    pub isbn: Option<String>,
}

/// Lines of `text` from byte `from`, each with its byte offset, without the newline (a
/// trailing `\r` is kept).
pub(crate) fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (usize, &str)> {
    let mut pos = from;
    text[from..].split_inclusive('\n').map(move |l| {
        let at = pos;
        pos += l.len();
        (at, l.strip_suffix('\n').unwrap_or(l))
    })
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    let v = v.strip_prefix('"').and_then(|x| x.strip_suffix('"')).unwrap_or(v);
    let v = v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')).unwrap_or(v);
    v.trim().to_string()
}

/// Parses a leading `---` front-matter block. Returns the fields and the byte offset where the
/// body starts (0 when there is none).
pub fn front_matter(text: &str) -> (FrontMatter, usize) {
    let mut fm = FrontMatter::default();
    let mut lines = lines_from(text, 0);
    match lines.next() {
        Some((_, l)) if l.trim_end() == "---" => {}
        _ => return (fm, 0),
    }
    let mut list_key: Option<String> = None;
    for (at, line) in lines {
        let t = line.trim_end();
        if t == "---" || t == "..." {
            let body = at + line.len() + usize::from(text[at + line.len()..].starts_with('\n'));
            if fm.author.is_none() {
                fm.author = fm.authors.first().cloned();
            }
            return (fm, body.min(text.len()));
        }
        if let Some(item) = t.trim_start().strip_prefix("- ") {
            if list_key.as_deref() == Some("authors") {
                fm.authors.push(unquote(item));
            }
            continue;
        }
        let Some((k, v)) = t.split_once(':') else { continue };
        let key = k.trim().to_ascii_lowercase();
        let v = v.trim();
        list_key = v.is_empty().then(|| key.clone());
        if v.is_empty() {
            continue;
        }
        let val = unquote(v);
        match key.as_str() {
            "title" => fm.title = Some(val),
            "subtitle" => fm.subtitle = Some(val),
            "author" => fm.author = Some(val),
            "authors" => {
                let inner = val.trim_start_matches('[').trim_end_matches(']');
                fm.authors = inner.split(',').map(unquote).filter(|a| !a.is_empty()).collect();
            }
            "version" => fm.version = Some(val),
            "edition" => fm.edition = Some(val),
            "publisher" => fm.publisher = Some(val),
            "year" => fm.year = Some(val),
            "isbn" => fm.isbn = Some(val),
            _ => {}
        }
    }
    // No closing line: not front matter.
    (FrontMatter::default(), 0)
}

/// An ATX heading: level and text (`## Title ##` → (2, "Title")).
pub(crate) use warrant_text::segment::markdown_heading as heading;

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Headings outside fenced code, with the byte offset of their line.
pub(crate) fn headings(text: &str, from: usize) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (at, line) in lines_from(text, from) {
        if is_fence(line) {
            fenced = !fenced;
            continue;
        }
        if !fenced && let Some((level, t)) = heading(line) {
            out.push((at, level, t.to_string()));
        }
    }
    out
}

/// True when the text has a `#` heading outside code.
pub fn has_headings(text: &str, from: usize) -> bool {
    !headings(text, from).is_empty()
}

/// One span per heading section, plus the text before the first heading. `chars` holds byte
/// offsets into `text` until the caller locates them.
pub fn sections(text: &str, from: usize) -> Vec<Span> {
    let hs = headings(text, from);
    let mut out = Vec::new();
    let first = hs.first().map_or(text.len(), |h| h.0);
    push_section(text, from..first, None, None, &mut out);
    let mut trail: Vec<(usize, String)> = Vec::new();
    for (i, (at, level, title)) in hs.iter().enumerate() {
        while trail.last().is_some_and(|(l, _)| l >= level) {
            trail.pop();
        }
        trail.push((*level, title.clone()));
        let end = hs.get(i + 1).map_or(text.len(), |h| h.0);
        let path = trail.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join(" > ");
        push_section(text, *at..end, Some(title.clone()), Some(path), &mut out);
    }
    out
}

fn push_section(text: &str, range: Range<usize>, heading: Option<String>, path: Option<String>, out: &mut Vec<Span>) {
    let r = warrant_text::segment::trim_range(text, range);
    if r.is_empty() {
        return;
    }
    let mut s = span_over(text, r.clone(), SpanKind::MarkdownSection);
    if heading.is_some() {
        // The body starts after the heading line.
        s.body_start = s.text.find('\n').map_or(s.text.len(), |p| p + 1);
    }
    s.heading = heading;
    s.path = path;
    out.push(s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_fields() {
        let t = "---\ntitle: \"Session Auth Spec\"\nversion: 2.0\nauthors:\n  - Ana\n  - Bo\n---\n# Intro\nText.";
        let (fm, body) = front_matter(t);
        assert_eq!(fm.title.as_deref(), Some("Session Auth Spec"));
        assert_eq!(fm.version.as_deref(), Some("2.0"));
        assert_eq!(fm.authors, vec!["Ana", "Bo"]);
        assert_eq!(fm.author.as_deref(), Some("Ana"));
        assert_eq!(&t[body..], "# Intro\nText.");
        assert_eq!(front_matter("--- not front matter").1, 0);
        assert_eq!(front_matter("---\ntitle: x\nno end").1, 0);
    }

    #[test]
    fn sections_with_paths_skip_code() {
        let t = "Preamble.\n\n# A\nBody a.\n```\n# not a heading\n```\n## B ##\nBody b.\n# C\n";
        let s = sections(t, 0);
        let got: Vec<(Option<&str>, Option<&str>, &str)> =
            s.iter().map(|x| (x.heading.as_deref(), x.path.as_deref(), x.text.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (None, None, "Preamble."),
                (Some("A"), Some("A"), "# A\nBody a.\n```\n# not a heading\n```"),
                (Some("B"), Some("A > B"), "## B ##\nBody b."),
                (Some("C"), Some("C"), "# C"),
            ]
        );
        assert_eq!(&s[1].text[s[1].body_start..], "Body a.\n```\n# not a heading\n```");
        assert_eq!(heading("#nope"), None);
        assert_eq!(heading("    # code"), None);
    }
}
