//! Normative texts (§7.1, §7.2): split at each `Art. N` (also `Artigo`, `Article`, `Artículo`),
//! or, when there are no articles, at each `§ N` or `Section N`; the marker is the record id.
//!
//! Project rule: two distinct markers at line starts make a normative text. The reference
//! compiler asks for five `Art.` lines; the issue names `§` and `Section` texts too, and short
//! statutes and policy sections have two or three.

use std::sync::LazyLock;

use regex::Regex;

use super::markdown::lines_from;
use super::{Span, SpanKind, span_over};
use crate::normalize::normalize;

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*(?:#{1,6}\s+)?(?:[*_]{1,2})?(?:(?P<art>(?:Art\.?|Artigo|Article|Artículo)\s*\d+(?:\s*[º°ª]|o(?-u:\b))?(?:-[A-Z])?)|(?P<par>§\s*\d+(?:\s*[º°])?)|(?P<sec>(?:Section|Sec\.|Seção|Secção|Sección)\s+(?:\d+(?:\.\d+)*|[A-Z])))(?:[.:)]|\s|[*_]|$)",
    )
    .unwrap_or_else(|e| panic!("regex: {e}"))
});

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Family {
    Article,
    Paragraph,
    Section,
}

struct Marker {
    line_at: usize,
    line: String,
    marker_end: usize,
    family: Family,
    id: String,
}

fn markers(text: &str, from: usize) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (at, line) in lines_from(text, from) {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let Some(c) = MARKER.captures(line) else { continue };
        let (family, m) = if let Some(m) = c.name("art") {
            (Family::Article, m)
        } else if let Some(m) = c.name("par") {
            (Family::Paragraph, m)
        } else if let Some(m) = c.name("sec") {
            (Family::Section, m)
        } else {
            continue;
        };
        out.push(Marker {
            line_at: at,
            line: line.to_string(),
            marker_end: at + m.end(),
            family,
            id: normalize(m.as_str()).trim_end_matches('.').to_string(),
        });
    }
    out
}

/// Cuts a normative text into articles, or `None` when it is not one.
pub fn segment(text: &str, from: usize) -> Option<Vec<Span>> {
    let all = markers(text, from);
    let family =
        [Family::Article, Family::Paragraph, Family::Section].into_iter().find(|f| all.iter().any(|m| m.family == *f))?;
    let ms: Vec<&Marker> = all.iter().filter(|m| m.family == family).collect();
    let mut ids: Vec<&str> = ms.iter().map(|m| m.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    let pre = warrant_text::segment::trim_range(text, from..ms[0].line_at);
    if !pre.is_empty() {
        out.push(span_over(text, pre, SpanKind::Document));
    }
    for (i, m) in ms.iter().enumerate() {
        let end = ms.get(i + 1).map_or(text.len(), |n| n.line_at);
        let r = warrant_text::segment::trim_range(text, m.line_at..end);
        if r.is_empty() {
            continue;
        }
        let mut s = span_over(text, r.clone(), SpanKind::LegalArticle);
        let line = m.line.trim();
        let heading = line.trim_start_matches('#').trim().trim_matches(|c| c == '*' || c == '_').trim();
        // A short marker line is a heading ("Section 4.2 — Language Training."); a long one
        // starts the article's text ("Art. 1º Esta Lei dispõe sobre …").
        let rest = &text[m.marker_end..m.line_at + m.line.len()];
        let line_end = (m.line_at + m.line.len()).saturating_sub(r.start);
        let mut heading = heading.to_string();
        // A short rest with no verb is a title ("— Language Training."); otherwise the line
        // already holds the article's text ("Art. 5. Processing of health data is prohibited.").
        let verbish = rest.split_whitespace().any(|w| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase().as_str(),
                "is" | "are"
                    | "must"
                    | "shall"
                    | "may"
                    | "will"
                    | "has"
                    | "have"
                    | "can"
                    | "should"
                    | "é"
                    | "são"
                    | "deve"
                    | "pode"
                    | "es"
                    | "son"
                    | "debe"
                    | "puede"
            )
        });
        s.body_start = if rest.trim().chars().count() <= 80 && rest.split_whitespace().count() <= 8 && !verbish {
            (line_end + 1).min(s.text.len())
        } else {
            // "Section A. Standard adult dosing. Paxlovid has …": a short first sentence after
            // the marker is the title; the text starts after it (past the marker's punctuation).
            let after = m.marker_end.saturating_sub(r.start).min(s.text.len());
            let tail = &s.text[after..];
            let lead = tail.len() - tail.trim_start_matches(['.', ':', ' ', '—', '–', '-', ')']).len();
            let body = after + lead;
            let first = warrant_text::segment::sentences_in(&s.text, body..s.text.len()).into_iter().next();
            match first {
                Some(f) if s.text[f.clone()].split_whitespace().count() <= 6 && f.end < line_end => {
                    let line_start = m.line_at.saturating_sub(r.start);
                    let head = s.text[line_start..f.end].trim_start_matches(['#', ' ']).trim_matches(|c| c == '*' || c == '_');
                    heading = normalize(head);
                    f.end
                }
                _ => {
                    heading = m.id.clone();
                    body
                }
            }
        };
        s.heading = Some(normalize(&heading));
        s.path = s.heading.clone();
        s.record_id = Some(m.id.clone());
        out.push(s);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_sections_with_record_ids() {
        let t = "Section 4.2 — Reimbursement.\n\nEmployees may claim $2,000.\n\nSection 4.3 — Language Training.\n\nLanguage courses need pre-approval.";
        let s = segment(t, 0).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].record_id.as_deref(), Some("Section 4.2"));
        assert_eq!(s[0].heading.as_deref(), Some("Section 4.2 — Reimbursement."));
        assert_eq!(&s[0].text[s[0].body_start..], "\nEmployees may claim $2,000.");
        assert_eq!(s[1].record_id.as_deref(), Some("Section 4.3"));
    }

    #[test]
    fn articles_win_over_paragraphs() {
        let t = "LEI Nº 1\n\nArt. 1º Esta Lei dispõe sobre a proteção de dados pessoais em meios digitais, inclusive por pessoa natural.\n§ 1º Aplica-se a todos.\nArt. 2º A disciplina tem como fundamentos o respeito à privacidade.\n";
        let s = segment(t, 0).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].kind, SpanKind::Document);
        assert_eq!(s[1].record_id.as_deref(), Some("Art. 1º"));
        assert!(s[1].text.contains("§ 1º"));
        assert!(s[1].text[s[1].body_start..].starts_with("Esta Lei"));
        assert!(segment("Art. 1 only one.\nText.", 0).is_none());
        assert!(segment("No markers here.", 0).is_none());
    }
}
