//! One module per subcommand.

mod ask;
mod check;
mod compile;
mod extract;
mod facts;
mod ingest;
mod llm;
mod policy;
mod research;
mod search;
mod serve;
mod store;
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
        Command::Compile(a) => compile::run(a),
        Command::Check(a) => check::run(a),
        Command::Ingest(a) => ingest::run(a),
        Command::Facts(a) => facts::run(a),
        Command::Search(a) => search::run(a),
        Command::Research(a) => research::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Ask(a) => ask::run(a),
        Command::Llm(c) => llm::run(c),
        Command::Store(c) => store::run(c),
    }
}
