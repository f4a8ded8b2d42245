//! FAQ documents (§7.1, §7.2): `Q:`/`A:` (`P:`/`R:`, `Question`/`Answer`, `Pergunta`/`Resposta`)
//! markers, or Markdown headings that end in `?`. One span per question and its answer, titled
//! with the question, whose text is also the record id (project rule).

use std::sync::LazyLock;

use regex::Regex;

use super::markdown::{heading, lines_from, sections};
use super::{Span, SpanKind, span_over};
use crate::normalize::normalize;
use warrant_text::pattern::compile as re;

static QUESTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:[*_]{1,2})?(?i:Q|P|Question|Pergunta|Pregunta)(?:\s*\d{1,3})?\s*[:：](?:[*_]{1,2})?\s*"));
static ANSWER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:[*_]{1,2})?(?i:A|R|Answer|Resposta|Respuesta)(?:\s*\d{1,3})?\s*[:：](?:[*_]{1,2})?\s*"));

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Q,
    A,
    Heading,
}

/// Cuts an FAQ into spans, or `None` when the text is not an FAQ.
pub fn segment(text: &str, from: usize) -> Option<Vec<Span>> {
    let mut marks: Vec<(usize, usize, Mark, Option<String>)> = Vec::new(); // (line at, content at, kind, heading)
    let mut fenced = false;
    let mut question_headings = 0;
    for (at, line) in lines_from(text, from) {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if let Some((_, h)) = heading(line) {
            if h.ends_with('?') {
                question_headings += 1;
            }
            marks.push((at, at + line.len(), Mark::Heading, Some(h.to_string())));
        } else if let Some(m) = QUESTION.find(line) {
            marks.push((at, at + m.end(), Mark::Q, None));
        } else if let Some(m) = ANSWER.find(line) {
            marks.push((at, at + m.end(), Mark::A, None));
        }
    }
    let qs = marks.iter().filter(|m| m.2 == Mark::Q).count();
    let has_a = marks.iter().any(|m| m.2 == Mark::A);
    if qs > 0 && has_a {
        return Some(marker_spans(text, from, &marks));
    }
    if question_headings >= 2 {
        return Some(heading_spans(text, from));
    }
    None
}

fn marker_spans(text: &str, from: usize, marks: &[(usize, usize, Mark, Option<String>)]) -> Vec<Span> {
    let mut out = Vec::new();
    let first_q = marks.iter().find(|m| m.2 == Mark::Q).map_or(text.len(), |m| m.0);
    // Text before the first question (a title, an introduction), minus headings-only lines.
    let pre = warrant_text::segment::trim_range(text, from..first_q);
    if !pre.is_empty() && text[pre.clone()].lines().any(|l| heading(l).is_none() && !l.trim().is_empty()) {
        out.push(span_over(text, pre, SpanKind::Document));
    }
    let mut trail: Vec<String> = Vec::new();
    for (i, (at, content_at, kind, h)) in marks.iter().enumerate() {
        match kind {
            Mark::Heading => {
                trail = vec![h.clone().unwrap_or_default()];
                continue;
            }
            Mark::A => continue,
            Mark::Q => {}
        }
        // The block runs to the next question or heading.
        let end = marks[i + 1..].iter().find(|m| m.2 != Mark::A).map_or(text.len(), |m| m.0);
        let answer_mark = marks[i + 1..].iter().take_while(|m| m.0 < end).find(|m| m.2 == Mark::A);
        let (q_range, a_range) = match answer_mark {
            Some((a_at, a_content, _, _)) => (*content_at..*a_at, *a_content..end),
            None => {
                // No answer marker: the question is its line, the answer what follows.
                let line_end = text[*content_at..end].find('\n').map_or(end, |p| content_at + p);
                (*content_at..line_end, line_end..end)
            }
        };
        let q = warrant_text::segment::trim_range(text, q_range);
        let a = warrant_text::segment::trim_range(text, a_range);
        let block = warrant_text::segment::trim_range(text, *at..end);
        if q.is_empty() || block.is_empty() {
            continue;
        }
        let mut s = span_over(text, block.clone(), SpanKind::FaqPair);
        let question = normalize(&text[q.clone()]);
        s.question = Some(q.start - block.start..q.end - block.start);
        if !a.is_empty() {
            s.answer = Some(a.start - block.start..a.end - block.start);
        }
        s.body_start = a.start.saturating_sub(block.start).min(s.text.len());
        s.title = Some(question.clone());
        s.record_id = Some(question);
        if !trail.is_empty() {
            s.path = Some(trail.join(" > "));
        }
        out.push(s);
    }
    out
}

fn heading_spans(text: &str, from: usize) -> Vec<Span> {
    let mut out = sections(text, from);
    for s in &mut out {
        let Some(h) = s.heading.clone() else { continue };
        if !h.ends_with('?') {
            continue;
        }
        // The question is the heading text inside the first line.
        let first_line = &s.text[..s.body_start.min(s.text.len())];
        if let Some(p) = first_line.find(h.as_str()) {
            s.question = Some(p..p + h.len());
        }
        let body = warrant_text::segment::trim_range(&s.text, s.body_start.min(s.text.len())..s.text.len());
        if !body.is_empty() {
            s.answer = Some(body);
        }
        s.kind = SpanKind::FaqPair;
        let q = normalize(&h);
        s.title = Some(q.clone());
        s.record_id = Some(q);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_faq() {
        let t = "# Help\nSome intro.\n\nQ: How long do refunds take?\nA: Refunds take 5 days.\nMore detail.\n\n**Q:** Can I cancel?\n**A:** Yes, within 30 days.\n";
        let s = segment(t, 0).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].kind, SpanKind::Document);
        let p = &s[1];
        assert_eq!(p.kind, SpanKind::FaqPair);
        assert_eq!(p.title.as_deref(), Some("How long do refunds take?"));
        assert_eq!(&p.text[p.question.clone().unwrap()], "How long do refunds take?");
        assert_eq!(&p.text[p.answer.clone().unwrap()], "Refunds take 5 days.\nMore detail.");
        assert_eq!(p.path.as_deref(), Some("Help"));
        assert_eq!(&s[2].text[s[2].answer.clone().unwrap()], "Yes, within 30 days.");
    }

    #[test]
    fn heading_faq_and_non_faq() {
        let t = "# FAQ\n\n## What is a token?\nA credential.\n\n## How do I rotate it?\nRun the rotate command.\n";
        let s = segment(t, 0).unwrap();
        let qs: Vec<&str> = s.iter().filter_map(|x| x.title.as_deref()).collect();
        assert_eq!(qs, vec!["What is a token?", "How do I rotate it?"]);
        assert_eq!(&s[1].text[s[1].answer.clone().unwrap()], "A credential.");
        assert!(segment("Plain text. Nothing here.\nA: lonely answer", 0).is_none());
        assert!(segment("# One question?\ntext", 0).is_none());
    }
}
