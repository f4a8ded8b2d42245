//! `warrant store migrate`: bring a store's schema up to date.

use std::process::ExitCode;

use warrant_store::{PostgresStore, SqliteStore};

use crate::cli::{StoreCommand, StoreMigrateArgs};
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

/// Runs `warrant store …`.
pub fn run(cmd: StoreCommand) -> CliResult<ExitCode> {
    match cmd {
        StoreCommand::Migrate(a) => migrate(&a),
    }
}

fn migrate(args: &StoreMigrateArgs) -> CliResult<ExitCode> {
    let location = args.store.path();
    let shown = args.store.shown();
    let mut out = Out::new();
    match location.to_str().filter(|l| warrant_store::is_postgres_url(l)) {
        Some(url) => {
            let (from, to) = PostgresStore::migrate(url).map_err(CliError::store)?;
            if from == to {
                outln!(out, "{shown}: schema version {to}, up to date")?;
            } else {
                outln!(out, "{shown}: migrated from schema version {from} to {to}")?;
            }
        }
        None => {
            // An SQLite store is created or migrated whenever it is opened for writing.
            let store = SqliteStore::open(&location).map_err(CliError::store)?;
            outln!(out, "{shown}: schema version {}, up to date", store.schema_version().map_err(CliError::store)?)?;
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
