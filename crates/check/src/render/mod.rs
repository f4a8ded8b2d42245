//! Reports for people: [`text`] for terminals, [`html`] for a self-contained page.

pub mod html;
pub mod text;

use warrant_text::OffsetMap;
use warrant_verify::{ClaimResult, Status};

use crate::Report;

/// The answer cut at claim boundaries: `(text, claim)` pieces in order, where `claim` is the
/// claim the piece belongs to (`None` for text between claims). Claims that overlap an
/// earlier one are attached to the end of it rather than splitting it.
pub(crate) fn pieces(report: &Report) -> Vec<(&str, Option<&ClaimResult>)> {
    let text = report.graph.text.as_str();
    let map = OffsetMap::new(text);
    let mut claims: Vec<&ClaimResult> = report.claims.iter().collect();
    claims.sort_by_key(|c| (c.span.start, c.span.end));
    let mut out = Vec::new();
    let mut at = 0usize;
    for c in claims {
        let (s, e) = c.span.range();
        let (s, e) = (map.to_byte(s.min(map.char_len())), map.to_byte(e.min(map.char_len())));
        if s < at || e <= s {
            continue;
        }
        if s > at {
            out.push((&text[at..s], None));
        }
        out.push((&text[s..e], Some(c)));
        at = e;
    }
    if at < text.len() {
        out.push((&text[at..], None));
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
