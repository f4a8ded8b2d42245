//! Block structure of a Markdown answer: fenced and indented code, reference lists, and the
//! prose between them. Everything is byte ranges into the answer text.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use warrant_text::pattern::compile as re;

/// A code block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeSpan {
    /// The whole block, fences included.
    pub block: Range<usize>,
    /// The code itself (between the fences, or the indented lines).
    pub code: Range<usize>,
    /// The fence's info string (language tag), lower-cased, if any.
    pub lang: Option<String>,
}

/// One entry of a reference list (`[1] https://…`, or `1. Author, Title` under "References").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The line.
    pub line: Range<usize>,
    /// The entry text after the marker.
    pub body: Range<usize>,
    /// The first URL in it, if any.
    pub url: Option<String>,
}

/// The block structure.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    /// Code blocks in order.
    pub code: Vec<CodeSpan>,
    /// References by label (`"1"`).
    pub references: BTreeMap<String, Reference>,
    /// Ranges that are not prose (code blocks, reference lists and their headings), sorted.
    pub non_prose: Vec<Range<usize>>,
}

static FENCE: LazyLock<Regex> = LazyLock::new(|| re(r"^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`\n]*$"));
static REF_BRACKET: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\[(\d{1,3})\][:.]?\s+(\S.*)$"));
static REF_NUMBERED: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d{1,3})[.)]\s+(\S.*)$"));
static REF_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\s*(?:#{1,6}\s*)?(?:\*\*|__)?(?:references|sources|citations|bibliography|works cited)(?:\*\*|__)?:?\s*$")
});
pub(crate) static URL: LazyLock<Regex> = LazyLock::new(|| re(r#"https?://[^\s<>"'\])}]+[^\s<>"'\])}.,;:!?]"#));

/// Lines of `text` as (range without newline).
fn lines(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = 0;
    for l in text.split_inclusive('\n') {
        let content = l.strip_suffix('\n').unwrap_or(l);
        let content = content.strip_suffix('\r').unwrap_or(content);
        out.push(pos..pos + content.len());
        pos += l.len();
    }
    out
}

/// Scans the answer's blocks.
pub fn scan(text: &str) -> Blocks {
    let ls = lines(text);
    let mut b = Blocks::default();
    let mut i = 0;
    let mut in_refs = false;
    let mut prev_blank = true;
    let mut prev_list = false;
    while i < ls.len() {
        let line = &text[ls[i].clone()];
        let lead = line.trim_start_matches(' ');
        let fence_like = line.len() - lead.len() <= 3 && (lead.starts_with("```") || lead.starts_with("~~~"));
        // Fenced code.
        if let Some(c) = fence_like.then(|| FENCE.captures(line)).flatten() {
            let fence = c.get(1).map_or("```", |m| m.as_str());
            let (ch, n) = (fence.as_bytes()[0], fence.len());
            let lang = c.get(2).map(|m| m.as_str().to_lowercase()).filter(|s| !s.is_empty());
            let mut j = i + 1;
            while j < ls.len() {
                let l = text[ls[j].clone()].trim_start_matches(' ');
                let run = l.bytes().take_while(|x| *x == ch).count();
                if run >= n && l[run..].trim().is_empty() {
                    break;
                }
                j += 1;
            }
            let code_start = ls.get(i + 1).map_or(ls[i].end, |r| r.start);
            let (code_end, block_end) = if j < ls.len() {
                // Code ends before the newline preceding the closing fence.
                (if j > i + 1 { ls[j - 1].end } else { code_start }, ls[j].end)
            } else {
                (text.len(), text.len())
            };
            let code_end = code_end.max(code_start);
            b.code.push(CodeSpan { block: ls[i].start..block_end, code: code_start..code_end, lang });
            b.non_prose.push(ls[i].start..block_end);
            i = j + 1;
            prev_blank = false;
            prev_list = false;
            continue;
        }
        let blank = line.trim().is_empty();
        // Indented code: after a blank line, not continuing a list.
        if prev_blank && !prev_list && (line.starts_with("    ") || line.starts_with('\t')) && !blank {
            let start = i;
            let mut j = i;
            let mut last = i;
            while j < ls.len() {
                let l = &text[ls[j].clone()];
                if l.starts_with("    ") || l.starts_with('\t') {
                    last = j;
                } else if !l.trim().is_empty() {
                    break;
                }
                j += 1;
            }
            let range = ls[start].start..ls[last].end;
            b.code.push(CodeSpan { block: range.clone(), code: range.clone(), lang: None });
            b.non_prose.push(range);
            i = last + 1;
            prev_blank = false;
            continue;
        }
        // Reference lists.
        if line.trim().len() <= 32 && REF_HEADING.is_match(line) {
            in_refs = true;
            b.non_prose.push(ls[i].clone());
            i += 1;
            prev_blank = false;
            continue;
        }
        let bracket = if lead.starts_with('[') { REF_BRACKET.captures(line) } else { None };
        let numbered = if in_refs && lead.starts_with(|c: char| c.is_ascii_digit()) { REF_NUMBERED.captures(line) } else { None };
        if let Some(c) = bracket.or(numbered) {
            let (Some(label), Some(body)) = (c.get(1), c.get(2)) else {
                i += 1;
                continue;
            };
            let body_range = ls[i].start + body.start()..ls[i].start + body.end();
            let url = URL.find(body.as_str()).map(|m| m.as_str().to_string());
            b.references.entry(label.as_str().to_string()).or_insert(Reference { line: ls[i].clone(), body: body_range, url });
            b.non_prose.push(ls[i].clone());
            i += 1;
            prev_blank = false;
            continue;
        }
        if in_refs && !blank && !line.trim_start().starts_with(['-', '*']) {
            in_refs = false;
        }
        if in_refs && !blank {
            // A bulleted source line under the heading.
            b.non_prose.push(ls[i].clone());
        }
        // List context survives blank lines and indented continuations.
        prev_list = if blank {
            prev_list
        } else {
            warrant_text::segment::is_block_line(line) || (prev_list && line.starts_with([' ', '\t']))
        };
        prev_blank = blank;
        i += 1;
    }
    b.non_prose.sort_by_key(|r| r.start);
    b
}

/// The complement of `excluded` (sorted, non-overlapping) within `0..len`.
pub fn complement(len: usize, excluded: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = 0;
    for r in excluded {
        if r.start > pos {
            out.push(pos..r.start);
        }
        pos = pos.max(r.end);
    }
    if pos < len {
        out.push(pos..len);
    }
    out
}

/// Guesses the language of untagged code.
pub fn detect_language(code: &str) -> &'static str {
    let t = code.trim_start();
    let has = |s: &str| code.contains(s);
    if t.starts_with("<?php") {
        "php"
    } else if t.starts_with("#!/bin/bash")
        || t.starts_with("#!/bin/sh")
        || t.starts_with("$ ")
        || has("sudo ")
        || has("apt-get ")
        || t.starts_with("echo ")
    {
        "bash"
    } else if (t.starts_with('{') || t.starts_with('[')) && serde_json::from_str::<serde_json::Value>(code).is_ok() {
        "json"
    } else if has("def ") || has("import ") && !has(" from '") && !has(" from \"") || has("print(") || has("elif ") {
        "python"
    } else if has("fn ") && (has("let ") || has("->")) || has("println!") {
        "rust"
    } else if has("function ") || has("const ") || has("=>") || has("console.log") || has("require(") {
        "javascript"
    } else if has("#include") {
        "c"
    } else if has("public class ") || has("System.out") {
        "java"
    } else if has("func ") && has("package ") {
        "go"
    } else if t.to_uppercase().starts_with("SELECT ") || t.to_uppercase().starts_with("CREATE TABLE") {
        "sql"
    } else if has("<html") || has("<div") {
        "html"
    } else {
        "text"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_code_and_prose() {
        let t = "Intro:\n\n```python\nx = 1\nprint(x)\n```\n\nAfter.";
        let b = scan(t);
        assert_eq!(b.code.len(), 1);
        assert_eq!(&t[b.code[0].code.clone()], "x = 1\nprint(x)");
        assert_eq!(b.code[0].lang.as_deref(), Some("python"));
        let prose: Vec<&str> =
            complement(t.len(), &b.non_prose).into_iter().map(|r| t[r].trim()).filter(|s| !s.is_empty()).collect();
        assert_eq!(prose, vec!["Intro:", "After."]);
    }

    #[test]
    fn unclosed_fence_runs_to_the_end_and_empty_code_is_fine() {
        let t = "a\n```\ncode";
        let b = scan(t);
        assert_eq!(&t[b.code[0].code.clone()], "code");
        let t = "```\n```";
        assert_eq!(scan(t).code[0].code.len(), 0);
    }

    #[test]
    fn indented_code_needs_a_blank_line_and_no_list() {
        let t = "Run:\n\n    make test\n    make bench\n\nDone.";
        let b = scan(t);
        assert_eq!(&t[b.code[0].code.clone()], "    make test\n    make bench");
        let t = "- item\n\n    continued item text";
        assert!(scan(t).code.is_empty());
    }

    #[test]
    fn reference_lists() {
        let t = "Python is popular [1].\n\n[1] https://tiobe.com/index\n[2]: Guido's FAQ\n\n## Sources\n1. Smith, 2020, https://x.org/a.\n";
        let b = scan(t);
        assert_eq!(b.references["1"].url.as_deref(), Some("https://tiobe.com/index"));
        assert_eq!(&t[b.references["2"].body.clone()], "Guido's FAQ");
        assert_eq!(b.references.len(), 2, "the numbered line after Sources keeps label 1 from the bracket list");
        assert_eq!(b.non_prose.len(), 4);
    }

    #[test]
    fn languages() {
        assert_eq!(detect_language("def f():\n    return 1"), "python");
        assert_eq!(detect_language("const x = () => 1;"), "javascript");
        assert_eq!(detect_language("$ ls -la"), "bash");
        assert_eq!(detect_language("{\"a\": 1}"), "json");
        assert_eq!(detect_language("hello world"), "text");
    }
}
