//! `warrant facts`: stored facts as JSON Lines, in source order.

use std::process::ExitCode;

use warrant_facts::canonical_entity;
use warrant_store::{FactQuery, Store};

use crate::cli::FactsArgs;
use crate::commands::open_store;
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

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
    let mut out = Out::new();
    let mut failure: Option<CliError> = None;
    store
        .visit_facts(&query, &mut |fact| {
            let line = serde_json::to_string(&fact).unwrap_or_default();
            match outln!(out, "{line}") {
                Ok(()) => true,
                Err(e) => {
                    failure = Some(e);
                    false
                }
            }
        })
        .map_err(CliError::store)?;
    if let Some(e) = failure {
        return Err(e);
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
