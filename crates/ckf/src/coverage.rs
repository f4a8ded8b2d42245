//! Coverage (§7.7): make sure every span is represented.
//!
//! | Mode | Default for | Inserts |
//! |---|---|---|
//! | `summary` | — | nothing; reports only |
//! | `balanced` | other formats | for spans of 80+ characters: a retrieval chunk per uncovered span while model/mapper chunks are fewer than 0.6 × spans; up to 8 `numeric_fact` atomic units per span |
//! | `complete` | records, FAQ, normative texts | a retrieval chunk per uncovered span; a QA pair per FAQ/record span that has none; modal atomic units (obligation, prohibition, exception) |
//!
//! Inserted items are `explicit`, confidence 1, and quote their span (every number they state
//! inside their excerpts).

use std::ops::Range;

use warrant_text::segment::{sentences_in, trim_range};

use crate::gate;
use crate::map::cues::{self, flag};
use crate::map::evidence::{self, Source};
use crate::model::{Basis, CoverageReport, Item, Section};
use crate::normalize::{chars, normalize};
use crate::score::Score;
use crate::source::{Format, Span};

/// How much coverage inserts (§7.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoverageMode {
    /// Report only.
    Summary,
    /// Insert for large uncovered spans.
    Balanced,
    /// Insert for every uncovered span.
    Complete,
}

impl CoverageMode {
    /// The spec's default for a format.
    pub fn default_for(format: Format) -> Self {
        match format {
            Format::JsonlRecords | Format::JsonArrayRecords | Format::Faq | Format::LegalNorm => CoverageMode::Complete,
            _ => CoverageMode::Balanced,
        }
    }

    /// The spec's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CoverageMode::Summary => "summary",
            CoverageMode::Balanced => "balanced",
            CoverageMode::Complete => "complete",
        }
    }
}

const MAX_CHUNK: usize = 1200;
const MAX_ANSWER: usize = 1500;

fn covered_spans(sections: &[Vec<Item>], n: usize) -> Vec<bool> {
    let mut c = vec![false; n];
    for it in sections.iter().flatten() {
        for e in &it.trace.evidence {
            if let Some(x) = c.get_mut(e.span as usize) {
                *x = true;
            }
        }
    }
    c
}

/// Sorted atomic-unit evidence starts per span.
fn atomic_starts(sections: &[Vec<Item>], n: usize) -> Vec<Vec<u32>> {
    let mut v = vec![Vec::new(); n];
    for it in &sections[Section::AtomicUnits.index()] {
        for e in &it.trace.evidence {
            if let Some(x) = v.get_mut(e.span as usize) {
                x.push(e.start);
            }
        }
    }
    for x in &mut v {
        x.sort_unstable();
    }
    v
}

fn has_start_in(starts: &[u32], r: &Range<usize>) -> bool {
    let i = starts.partition_point(|s| (*s as usize) < r.start);
    starts.get(i).is_some_and(|s| (*s as usize) < r.end)
}

/// What coverage adds for one span.
#[derive(Default)]
struct SpanAdded {
    /// The span's mode is `complete`.
    complete: bool,
    chunks: Vec<Item>,
    qa: Vec<Item>,
    atomic: Vec<Item>,
}

/// Runs coverage. `formats[i]` is span `i`'s document format; `mode` overrides the defaults.
pub fn coverage(sections: &mut [Vec<Item>], spans: &[Span], formats: &[Format], mode: Option<CoverageMode>) -> CoverageReport {
    let n = spans.len();
    let covered = covered_spans(sections, n);
    let starts = atomic_starts(sections, n);
    let has_qa: Vec<bool> = {
        let mut v = vec![false; n];
        for it in &sections[Section::QaPairs.index()] {
            for e in &it.trace.evidence {
                if let Some(x) = v.get_mut(e.span as usize) {
                    *x = true;
                }
            }
        }
        v
    };
    let mapped_chunks = sections[Section::RetrievalChunks.index()].len();
    let mut report_mode =
        mode.unwrap_or_else(|| formats.first().map_or(CoverageMode::Balanced, |f| CoverageMode::default_for(*f)));
    // Spans are covered independently (on every allowed thread), then added in span order.
    let chunk_budget = (mapped_chunks as f64) < 0.6 * n as f64;
    let indices: Vec<usize> = (0..n).collect();
    let per_span = crate::par::map(&indices, 16, |&i| {
        let span = &spans[i];
        let span_mode = mode.unwrap_or_else(|| CoverageMode::default_for(formats.get(i).copied().unwrap_or(Format::PlainText)));
        let mut added = SpanAdded { complete: span_mode == CoverageMode::Complete, ..SpanAdded::default() };
        let idx = i as u32;
        let body = trim_range(&span.text, span.body_start.min(span.text.len())..span.text.len());
        if body.is_empty() {
            return added;
        }
        match span_mode {
            CoverageMode::Summary => {}
            CoverageMode::Complete => {
                if !covered[i]
                    && let Some(it) = chunk_for(idx, span, body.clone())
                {
                    added.chunks.push(it);
                }
                let qa_format = matches!(formats.get(i), Some(Format::Faq | Format::JsonlRecords | Format::JsonArrayRecords));
                if qa_format
                    && !has_qa[i]
                    && let Some(it) = qa_for(idx, span, body.clone())
                {
                    added.qa.push(it);
                }
                added.atomic =
                    atomic_for(idx, span, body, &starts[i], flag::OBLIGATION | flag::PROHIBITION | flag::EXCEPTION, usize::MAX);
            }
            CoverageMode::Balanced => {
                if chars(&span.text) < 80 {
                    return added;
                }
                if !covered[i]
                    && chunk_budget
                    && let Some(it) = chunk_for(idx, span, body.clone())
                {
                    added.chunks.push(it);
                }
                added.atomic = atomic_for(idx, span, body, &starts[i], 0, 8);
            }
        }
        added
    });
    let (mut chunks_added, mut qa_added, mut atomic_added) = (0u32, 0u32, 0u32);
    for added in per_span {
        if added.complete {
            report_mode = CoverageMode::Complete;
        }
        chunks_added += added.chunks.len() as u32;
        qa_added += added.qa.len() as u32;
        atomic_added += added.atomic.len() as u32;
        // In the order one loop over the spans would add them.
        for it in added.chunks.into_iter().chain(added.qa).chain(added.atomic) {
            let k = it.section.index();
            sections[k].push(it);
        }
    }
    let covered_after = covered_spans(sections, n);
    let records: Vec<usize> = (0..n).filter(|&i| spans[i].record_id.is_some()).collect();
    let record_cov = if records.is_empty() {
        Score::ONE
    } else {
        Score::from_f64(records.iter().filter(|&&i| covered_after[i]).count() as f64 / records.len() as f64)
    };
    CoverageReport {
        mode: report_mode.as_str(),
        inserted_retrieval_chunks: chunks_added,
        inserted_qa_pairs: qa_added,
        inserted_atomic_units: atomic_added,
        spans_total: n as u32,
        spans_covered: covered_after.iter().filter(|c| **c).count() as u32,
        source_record_coverage: record_cov,
    }
}

/// The longest sentence-prefix of `body` within `max` chars whose numbers two excerpts
/// starting at `quote_start` can hold.
fn coverable_prefix(text: &str, quote_start: usize, body: Range<usize>, max: usize, extra: &str) -> Option<usize> {
    let mut end = None;
    for r in sentences_in(text, body.clone()) {
        if chars(&text[body.start..r.end]) > max && end.is_some() {
            break;
        }
        let mut needed: Vec<String> = evidence::numbers(&text[body.start..r.end]).map(str::to_string).collect();
        needed.extend(evidence::numbers(extra).map(str::to_string));
        needed.sort();
        needed.dedup();
        if !evidence::windows(text, quote_start..r.end, &needed, 2).1 {
            break;
        }
        end = Some(r.end);
    }
    end
}

fn head_start(span: &Span) -> usize {
    let t = &span.text;
    t.len() - t.trim_start_matches(['#', ' ', '\n', '\r', '\t']).len()
}

fn chunk_for(idx: u32, span: &Span, body: Range<usize>) -> Option<Item> {
    let title = span
        .title
        .clone()
        .or_else(|| span.heading.clone())
        .or_else(|| span.record_id.clone())
        .or_else(|| span.path.clone())
        .unwrap_or_else(|| gate::label(&normalize(&span.text[body.clone()]), 12));
    let title_in_text = span.body_start > 0;
    let quote_start = if title_in_text { head_start(span) } else { body.start };
    let extra = if title_in_text { String::new() } else { title.clone() };
    let end = coverable_prefix(&span.text, quote_start, body.clone(), MAX_CHUNK, &extra)?;
    let text = normalize(&span.text[body.start..end]);
    if chars(&text) < 30 {
        return None;
    }
    let it = Item::new(Section::RetrievalChunks, Basis::Explicit, Score::ONE)
        .with("title", &title)
        .with("standalone_context", span.path.as_deref().unwrap_or(""))
        .with("compressed_knowledge", &text);
    let (it, ok) = evidence::attach(it, &[Source { span: idx, text: &span.text, range: quote_start..end }]);
    (ok && !it.trace.evidence.is_empty()).then_some(it)
}

fn qa_for(idx: u32, span: &Span, body: Range<usize>) -> Option<Item> {
    let (question, answer) = match (&span.question, &span.answer) {
        (Some(q), Some(a)) => (normalize(&span.text[q.clone()]), a.clone()),
        _ => (span.title.clone()?, body),
    };
    let mut end = answer.end;
    if chars(&span.text[answer.clone()]) > MAX_ANSWER {
        end = sentences_in(&span.text, answer.clone())
            .into_iter()
            .take_while(|r| chars(&span.text[answer.start..r.end]) <= MAX_ANSWER)
            .last()
            .map_or(answer.end, |r| r.end);
    }
    let ideal = normalize(&span.text[answer.start..end]);
    if question.is_empty() || ideal.is_empty() {
        return None;
    }
    let it = Item::new(Section::QaPairs, Basis::Explicit, Score::ONE)
        .with("question", &question)
        .with("ideal_answer", &ideal)
        .with("difficulty", "medium")
        .with("answer_type", "factual");
    let (it, _) = evidence::attach(it, &[Source { span: idx, text: &span.text, range: head_start(span).min(answer.start)..end }]);
    (!it.trace.evidence.is_empty()).then_some(it)
}

/// Atomic units for sentences not yet quoted by one: modal ones (`modal` flags) or, with
/// `modal == 0`, numeric facts (at most `max`).
fn atomic_for(idx: u32, span: &Span, body: Range<usize>, starts: &[u32], modal: u32, max: usize) -> Vec<Item> {
    let mut out = Vec::new();
    for r in sentences_in(&span.text, body) {
        if out.len() >= max {
            break;
        }
        if has_start_in(starts, &r) {
            continue;
        }
        let s = &span.text[r.clone()];
        let stmt = normalize(s);
        if gate::truncated_and_complete(&stmt) != (false, true) || stmt.ends_with('?') {
            continue;
        }
        let f = cues::flags(s);
        let kind = if modal != 0 {
            if f & flag::EXCEPTION != 0 {
                "exception"
            } else if f & flag::PROHIBITION != 0 {
                "prohibition"
            } else if f & flag::OBLIGATION != 0 {
                "obligation"
            } else {
                continue;
            }
        } else if evidence::numbers(&stmt).next().is_some() {
            "numeric_fact"
        } else {
            continue;
        };
        let it = Item::new(Section::AtomicUnits, Basis::Explicit, Score::ONE)
            .with("statement", &stmt)
            .with("type", kind)
            .with_list("tags", crate::numeric::kinds_in(&stmt));
        let (it, ok) = evidence::attach(it, &[Source { span: idx, text: &span.text, range: r }]);
        if ok && !it.trace.evidence.is_empty() {
            out.push(it);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SpanKind;

    fn record(id: &str, title: &str, text: &str) -> Span {
        let full = format!("{title}\n\n{text}");
        Span {
            body_start: title.len() + 2,
            record_id: Some(id.into()),
            title: Some(title.into()),
            lines: (1, 1),
            ..Span::new(SpanKind::JsonlRecord, full)
        }
    }

    #[test]
    fn complete_mode_inserts_chunks_qa_and_modal_units() {
        let spans = vec![record(
            "P-1",
            "Password rotation",
            "Passwords must be rotated every 90 days. Old passwords are kept for audit.",
        )];
        let mut sections = vec![Vec::new(); 17];
        let r = coverage(&mut sections, &spans, &[Format::JsonlRecords], None);
        assert_eq!(r.mode, "complete");
        assert_eq!((r.inserted_retrieval_chunks, r.inserted_qa_pairs, r.inserted_atomic_units), (1, 1, 1));
        assert_eq!((r.spans_total, r.spans_covered), (1, 1));
        assert_eq!(r.source_record_coverage, Score::ONE);
        let chunk = &sections[Section::RetrievalChunks.index()][0];
        assert_eq!(chunk.text("title"), "Password rotation");
        assert_eq!(chunk.trace.confidence, Score::ONE);
        assert!(chunk.trace.evidence[0].excerpt.starts_with("Password rotation Passwords must"));
        assert_eq!(sections[Section::AtomicUnits.index()][0].text("type"), "obligation");
        assert_eq!(sections[Section::QaPairs.index()][0].text("question"), "Password rotation");
    }

    #[test]
    fn summary_mode_only_reports() {
        let spans = vec![record("P-1", "T", "Passwords must be rotated every 90 days, always.")];
        let mut sections = vec![Vec::new(); 17];
        let r = coverage(&mut sections, &spans, &[Format::JsonlRecords], Some(CoverageMode::Summary));
        assert_eq!((r.inserted_retrieval_chunks, r.spans_covered), (0, 0));
        assert_eq!(r.source_record_coverage, Score::ZERO);
    }
}
