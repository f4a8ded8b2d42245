//! `warrant compile`: sources → a CKF knowledge package.

use std::process::ExitCode;
use std::sync::LazyLock;

use regex::Regex;
use warrant_ckf::compile::{CompileError, CompressionLevel, Options, SourceInput, compile};
use warrant_ckf::coverage::CoverageMode;
use warrant_ckf::encode;
use warrant_ckf::source::ReadOptions;
use warrant_ckf::validate::{Mode, check};

use crate::cli::{CompileArgs, CompressionArg, CoverageArg, PackageFormat};
use crate::error::{CliError, CliResult};
use crate::io::{display_name, read_bytes, write_atomic};

static ISO_8601: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// `YYYY-MM-DDTHH:MM:SSZ` of seconds since the Unix epoch (proleptic Gregorian calendar).
fn iso_from_unix(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `--created-at`, else `$SOURCE_DATE_EPOCH`, else the library's fixed default.
fn created_at(arg: Option<&str>) -> CliResult<Option<String>> {
    match arg {
        Some("now") => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
            Ok(Some(iso_from_unix(secs)))
        }
        Some(s) if ISO_8601.is_match(s) => Ok(Some(s.to_string())),
        Some(s) => Err(CliError::input(format!(
            "--created-at: '{s}' is not an ISO-8601 date or date-time (e.g. 2026-05-28T09:30:00Z), nor `now`"
        ))),
        None => match std::env::var("SOURCE_DATE_EPOCH") {
            Ok(v) => {
                let secs: i64 = v.trim().parse().map_err(|_| {
                    CliError::input(format!("SOURCE_DATE_EPOCH: '{v}' is not a number of seconds since 1970-01-01"))
                })?;
                Ok(Some(iso_from_unix(secs)))
            }
            Err(_) => Ok(None),
        },
    }
}

/// Runs `warrant compile`.
pub fn run(args: CompileArgs) -> CliResult<ExitCode> {
    let mut contents = Vec::with_capacity(args.sources.len());
    for s in &args.sources {
        contents.push(read_bytes(s)?);
    }
    let names: Vec<&str> = args.sources.iter().map(|s| display_name(s)).collect();
    let inputs: Vec<SourceInput<'_>> = names.iter().zip(&contents).map(|(n, b)| SourceInput { name: n, bytes: b }).collect();
    let opts = Options {
        title: args.title.clone(),
        version: args.version.clone(),
        created_at: created_at(args.created_at.as_deref())?,
        compression_level: match args.compression_level {
            CompressionArg::Light => CompressionLevel::Light,
            CompressionArg::Standard => CompressionLevel::Standard,
            CompressionArg::Dense => CompressionLevel::Dense,
            CompressionArg::Agentic => CompressionLevel::Agentic,
        },
        coverage: args.coverage.map(|c| match c {
            CoverageArg::Summary => CoverageMode::Summary,
            CoverageArg::Balanced => CoverageMode::Balanced,
            CoverageArg::Complete => CoverageMode::Complete,
        }),
        promotion: !args.no_promotion,
        read: ReadOptions { max_bytes: args.max_bytes },
        ..Options::default()
    };
    let result = compile(&inputs, &opts).map_err(|e| match e {
        CompileError::EmptyPackage { .. } => CliError::failure(format!("{}: {e}", names.join(", "))),
        other => CliError::input(other.to_string()),
    })?;
    // Fail closed: what we write must pass write-mode validation.
    let json = encode::to_json(&result.package).map_err(|e| CliError::failure(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| CliError::failure(format!("internal error: {e}")))?;
    let report = check(&value, Mode::Write);
    if let Some(e) = report.errors.first() {
        return Err(CliError::failure(format!(
            "internal error: the compiled package fails write-mode validation at {}: {} (please report this)",
            if e.path.is_empty() { "/" } else { &e.path },
            e.message
        )));
    }
    let out = match args.format {
        PackageFormat::Json => json,
        PackageFormat::Yaml => encode::to_yaml(&result.package).map_err(|e| CliError::failure(e.to_string()))?,
        PackageFormat::Md => encode::to_markdown(&result.package).map_err(|e| CliError::failure(e.to_string()))?,
    };
    if let Some(path) = &args.report {
        let r =
            serde_json::to_string_pretty(&result).map_err(|e| CliError::failure(format!("cannot serialise the report: {e}")))?;
        write_atomic(path, format!("{r}\n").as_bytes())?;
    }
    match &args.output {
        Some(path) => write_atomic(path, out.as_bytes())?,
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(out.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| CliError::input(format!("cannot write output: {e}")))?;
        }
    }
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    let items: usize = result.package.sections.iter().map(Vec::len).sum();
    let populated = result.package.sections.iter().filter(|s| !s.is_empty()).count();
    eprintln!(
        "compiled {}: {items} items in {populated} of 17 item sections; promotion {} promoted, {} rejected; coverage {} ({}/{} spans){}",
        result.package.metadata.package_id,
        result.promotion.promoted,
        result.promotion.rejected,
        result.coverage.mode,
        result.coverage.spans_covered,
        result.coverage.spans_total,
        args.output.as_deref().map(|p| format!("; written to {p}")).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_to_iso() {
        assert_eq!(iso_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_from_unix(1_780_000_000), "2026-05-28T20:26:40Z");
        assert_eq!(iso_from_unix(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn created_at_is_validated() {
        assert!(created_at(Some("2026-05-28")).is_ok());
        assert!(created_at(Some("2026-05-28T09:30:00+02:00")).is_ok());
        assert!(created_at(Some("yesterday")).is_err());
    }
}
