//! `warrant search`: the top chunks for a query, by BM25.

use std::process::ExitCode;

use crate::cli::{Format, SearchArgs};
use crate::error::CliResult;
use crate::out::{Out, outln};

/// Longest snippet shown per hit in text output, in chars.
const SNIPPET_CHARS: usize = 160;

/// Runs `warrant search`.
pub fn run(args: SearchArgs) -> CliResult<ExitCode> {
    let env = warrant::Env::new().with_store(std::sync::Arc::from(args.store.open()?));
    let req = warrant::search::SearchRequest { query: args.query.join(" "), limit: args.limit };
    let hits = warrant::search::search(&env, &req)?;
    let mut out = Out::new();
    match args.format {
        Format::Json => out.json(&hits)?,
        Format::Text => {
            if hits.is_empty() {
                outln!(out, "no chunks match")?;
            }
            for (i, h) in hits.iter().enumerate() {
                outln!(out, "{}. {}  score {}  ({} chars {}–{})", i + 1, h.chunk_id, score(h.score), h.doc_id, h.start, h.end)?;
                let flat = warrant_text::normalize::collapse_whitespace(&h.text);
                let snippet: String = flat.chars().take(SNIPPET_CHARS).collect();
                let more = if flat.chars().count() > SNIPPET_CHARS { "…" } else { "" };
                outln!(out, "   {snippet}{more}")?;
            }
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// Three decimals, or scientific notation for the tiny scores BM25 gives terms that occur in
/// every document.
fn score(s: f64) -> String {
    if s == 0.0 || s.abs() >= 0.001 { format!("{s:.3}") } else { format!("{s:.2e}") }
}
