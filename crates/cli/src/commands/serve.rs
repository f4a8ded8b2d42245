//! `warrant serve`: the HTTP API (`warrant-server`) until SIGTERM or Ctrl-C.

use std::io::Write;
use std::process::ExitCode;

use crate::cli::{LogFormat, ServeArgs};
use crate::error::{CliError, CliResult};
use crate::io::read_text;

fn init_logs(format: LogFormat) {
    let filter =
        tracing_subscriber::EnvFilter::try_from_env("WARRANT_LOG").unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Text => builder.with_ansi(false).try_init(),
    };
}

/// Runs `warrant serve`.
pub fn run(args: ServeArgs) -> CliResult<ExitCode> {
    let token = match (&args.token, &args.token_file) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(f)) => {
            let t = read_text(f)?.trim().to_string();
            if t.is_empty() {
                return Err(CliError::input(format!("{f}: the token file is empty")));
            }
            Some(t)
        }
        (None, None) => None,
    };
    let mut config = warrant_server::Config::new(args.store.path());
    config.addr = args.addr;
    config.token = token;
    config.max_body = args.max_body;
    config.timeout = args.timeout;
    config.max_concurrency = args.max_concurrency;
    config.header_timeout = args.header_timeout;
    config.body_timeout = args.body_timeout;
    config.idle_timeout = args.idle_timeout;
    config.shutdown_timeout = args.shutdown_timeout;
    config.check().map_err(|e| CliError::input(e.to_string()))?;
    init_logs(args.log_format);
    warrant_server::run(config, |addr| {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "warrant serve: listening on http://{addr}");
        let _ = out.flush();
    })
    .map_err(|e| CliError::input(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}
