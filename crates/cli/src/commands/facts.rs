//! `warrant facts`: stored facts as JSON Lines, in source order.

use std::io::{BufWriter, ErrorKind, Write};
use std::process::ExitCode;

use warrant_facts::canonical_entity;
use warrant_store::{FactQuery, Store};

use crate::cli::FactsArgs;
use crate::commands::open_store;
use crate::error::{CliError, CliResult};

/// Runs `warrant facts`.
pub fn run(args: FactsArgs) -> CliResult<ExitCode> {
    let store = open_store(&args.store)?;
    let mut query = FactQuery { predicate: args.predicate, version: args.fact_version, ..FactQuery::default() };
    if let Some(s) = args.subject {
        // The subject as stored (manual facts keep theirs), else its canonical form.
        let exact = FactQuery { subject: Some(s.clone()), limit: Some(1), ..query.clone() };
        let found = !store.facts(&exact).map_err(CliError::store)?.is_empty();
        query.subject = Some(if found { s } else { canonical_entity(&s) });
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut failure: Option<std::io::Error> = None;
    store
        .visit_facts(&query, &mut |fact| {
            let line = serde_json::to_string(&fact).unwrap_or_default();
            match writeln!(out, "{line}") {
                Ok(()) => true,
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
        .map_err(CliError::store)?;
    let flushed = out.flush();
    match failure.map_or(flushed, Err) {
        Err(e) if e.kind() != ErrorKind::BrokenPipe => Err(CliError::input(format!("cannot write output: {e}"))),
        _ => Ok(ExitCode::SUCCESS),
    }
}
