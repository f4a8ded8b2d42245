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
