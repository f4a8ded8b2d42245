//! One module per subcommand.

pub(crate) mod ask;
mod check;
mod compile;
pub(crate) mod extract;
mod facts;
mod ingest;
pub(crate) mod llm;
mod policy;
pub(crate) mod research;
mod search;
pub(crate) mod serve;
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
    }
}

/// The store directory: `--store`, else `$WARRANT_STORE`, else `./.warrant`.
pub(crate) fn store_dir(arg: &crate::cli::StoreArg) -> std::path::PathBuf {
    warrant::store_dir(arg.dir.as_deref())
}

/// Opens an existing store for reading; a missing one is bad input.
pub(crate) fn open_store(arg: &crate::cli::StoreArg) -> CliResult<warrant_store::SqliteStore> {
    warrant_store::SqliteStore::open_existing(store_dir(arg)).map_err(crate::error::CliError::store)
}
