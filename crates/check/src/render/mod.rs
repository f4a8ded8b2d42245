//! Reports for people: [`text`] for terminals, [`html`] for a self-contained page.

pub mod html;
pub mod text;

use std::ops::Range;

use warrant_text::OffsetMap;
use warrant_verify::{ClaimResult, Status};

use crate::Report;

/// Where each claim sits in `text`, as byte ranges in order, never overlapping and never empty.
/// Claim spans are chars; spans past the end are clamped, reversed or empty ones dropped. A
/// claim that overlaps an earlier one keeps only the part after it ("attached to the end"),
/// and one wholly inside an earlier one gets no range (it is still listed with the claims).
pub(crate) fn claim_ranges<'r>(text: &str, claims: &'r [ClaimResult]) -> Vec<(Range<usize>, &'r ClaimResult)> {
    let map = OffsetMap::new(text);
    let mut sorted: Vec<&ClaimResult> = claims.iter().collect();
    sorted.sort_by_key(|c| (c.span.start, c.span.end));
    let mut out = Vec::new();
    let mut at = 0usize;
    for c in sorted {
        let (s, e) = c.span.range();
        let (s, e) = (map.to_byte(s.min(map.char_len())), map.to_byte(e.min(map.char_len())));
        let s = s.max(at);
        if e <= s {
            continue;
        }
        out.push((s..e, c));
        at = e;
    }
    out
}

/// The answer cut at claim boundaries: `(text, claim)` pieces in order, where `claim` is the
/// claim the piece belongs to (`None` for text between claims). See [`claim_ranges`] for
/// overlapping claims.
pub(crate) fn pieces(report: &Report) -> Vec<(&str, Option<&ClaimResult>)> {
    let text = report.graph.text.as_str();
    let mut out = Vec::new();
    let mut at = 0usize;
    for (r, c) in claim_ranges(text, &report.claims) {
        // The ranges come from an OffsetMap of this text, so they are char boundaries; `get`
        // keeps a mistake there from becoming a panic.
        if r.start > at
            && let Some(gap) = text.get(at..r.start)
        {
            out.push((gap, None));
        }
        if let Some(piece) = text.get(r.clone()) {
            out.push((piece, Some(c)));
            at = r.end;
        }
    }
    if let Some(rest) = text.get(at..).filter(|r| !r.is_empty()) {
        out.push((rest, None));
    }
    out
}

/// A one-word mark per status, for terminals.
pub(crate) const fn mark(status: Status) -> &'static str {
    match status {
        Status::Supported => "✓",
        Status::PartiallySupported => "◐",
        Status::Unsupported => "?",
        Status::Contradicted => "✗",
        Status::Unverified => "·",
        Status::NotApplicable => "–",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(id: &str, start: u64, end: u64) -> ClaimResult {
        ClaimResult {
            claim_id: id.into(),
            text: String::new(),
            span: warrant_graph::Span::new(start, end),
            modality: warrant_graph::Modality::Factual,
            status: Status::Supported,
            confidence: 1.0,
            support_edges: vec![],
            reason: String::new(),
            second_opinion: None,
            features: None,
        }
    }

    #[test]
    fn claim_ranges_are_bytes_in_order_clamped_and_disjoint() {
        // Two-byte chars, so char and byte offsets differ.
        let text = "éééééééééé-ééééé-ééééé";
        let claims = [
            claim("late", 17, 22),
            claim("a", 0, 10),
            claim("overlaps a", 5, 16),
            claim("inside a", 2, 4),
            claim("reversed", 12, 3),
            claim("past the end", 21, u64::MAX),
            claim("far past", 500, 600),
        ];
        let got: Vec<(Range<usize>, &str)> =
            claim_ranges(text, &claims).into_iter().map(|(r, c)| (r, c.claim_id.as_str())).collect();
        assert_eq!(got, [(0..20, "a"), (20..31, "overlaps a"), (32..42, "late")]);
        // "past the end" starts inside "late" and is clamped to the text's end: nothing left.
        let pieces: Vec<&str> = {
            let mut at = 0;
            let mut out = vec![];
            for (r, _) in claim_ranges(text, &claims) {
                out.push(&text[at..r.start]);
                out.push(&text[r.clone()]);
                at = r.end;
            }
            out.push(&text[at..]);
            out
        };
        assert_eq!(pieces.concat(), text);
    }
}
