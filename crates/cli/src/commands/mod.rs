//! One module per subcommand.

mod check;
pub(crate) mod extract;
mod policy;
mod validate;

use std::process::ExitCode;

use crate::cli::{Cli, Command, PolicyCommand};
use crate::error::CliResult;

/// Runs a parsed command line.
pub fn run(cli: Cli) -> CliResult<ExitCode> {
    match cli.command {
        Command::Validate(a) => validate::run(a),
        Command::Policy(PolicyCommand::Eval(a)) => policy::eval(a),
        Command::Policy(PolicyCommand::Packs(a)) => policy::packs(a),
        Command::Extract(a) => extract::run(a),
        Command::Check(a) => check::run(a),
    }
}

/// Prints a JSON value (pretty, newline-terminated).
pub(crate) fn print_json<T: serde::Serialize>(v: &T) -> CliResult<()> {
    let s =
        serde_json::to_string_pretty(v).map_err(|e| crate::error::CliError::input(format!("cannot serialise output: {e}")))?;
    println!("{s}");
    Ok(())
}
