//! `warrant`: check what AI models say.
//!
//! A thin layer over the library crates: argument parsing, reading inputs, printing
//! reports, exit codes. Exit codes: 0 success, 1 the check failed (invalid artefact, failed
//! pack), 2 bad usage or bad input.

mod args;
mod cli;
mod commands;
mod error;
mod io;
mod out;
mod timestamp;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

// Validation and extraction build many small JSON values; mimalloc makes that markedly cheaper.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            if !e.is_quiet() {
                // Not `eprintln!`: a closed or full stderr must not turn the error into a panic.
                let _ = writeln!(std::io::stderr(), "error: {e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}
