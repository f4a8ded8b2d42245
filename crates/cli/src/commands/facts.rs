//! `warrant facts`: stored facts as JSON Lines, in source order.

use std::process::ExitCode;

use crate::cli::FactsArgs;
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

/// Runs `warrant facts`.
pub fn run(args: FactsArgs) -> CliResult<ExitCode> {
    let env = warrant::Env::new().with_store(std::sync::Arc::from(args.store.open()?));
    let req = warrant::facts::FactsRequest { subject: args.subject, predicate: args.predicate, version: args.fact_version };
    let mut out = Out::new();
    let mut failure: Option<CliError> = None;
    warrant::facts::visit(&env, &req, &mut |fact| {
        let line = serde_json::to_string(&fact).unwrap_or_default();
        match outln!(out, "{line}") {
            Ok(()) => true,
            Err(e) => {
                failure = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(e);
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
