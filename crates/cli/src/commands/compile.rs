//! `warrant compile`: sources → a CKF knowledge package (the use case is `warrant::compile`).

use std::process::ExitCode;

use warrant::Env;
use warrant::compile::{CompileFiles, CompileRequest, Compression, Coverage, compile_files, is_empty_package};

use crate::cli::{CompileArgs, CompressionArg, CoverageArg, PackageFormat};
use crate::error::{CliError, CliResult};
use crate::io::write_atomic;
use crate::out::Out;

/// A compile that ran and failed (no items from a long source, a package that fails its own
/// validation) exits 1; unreadable input exits 2.
fn exit_code(e: warrant::Error) -> CliError {
    if e.kind == warrant::ErrorKind::Internal || is_empty_package(&e) { CliError::failure(e.message) } else { e.into() }
}

/// Runs `warrant compile`.
pub fn run(args: CompileArgs) -> CliResult<ExitCode> {
    let req = CompileRequest {
        title: args.title.clone(),
        version: args.version.clone(),
        coverage: args.coverage.map(|c| match c {
            CoverageArg::Summary => Coverage::Summary,
            CoverageArg::Balanced => Coverage::Balanced,
            CoverageArg::Complete => Coverage::Complete,
        }),
        compression_level: match args.compression_level {
            CompressionArg::Light => Compression::Light,
            CompressionArg::Standard => Compression::Standard,
            CompressionArg::Dense => Compression::Dense,
            CompressionArg::Agentic => Compression::Agentic,
        },
        no_promotion: args.no_promotion,
        ..CompileRequest::default()
    };
    let files = CompileFiles {
        sources: args.sources.clone(),
        max_bytes: args.max_bytes,
        created_at: crate::timestamp::requested("--created-at", args.created_at.as_deref())?,
        format: match args.format {
            PackageFormat::Json => warrant::compile::PackageFormat::Json,
            PackageFormat::Yaml => warrant::compile::PackageFormat::Yaml,
            PackageFormat::Md => warrant::compile::PackageFormat::Md,
        },
    };
    let env = Env::new().with_model(args.llm_opts.stage(args.llm, "--llm")?);
    let compiled = compile_files(&env, &req, &files).map_err(exit_code)?;
    args.llm_opts.write_replay_case(env.model(), warrant_evidence::Scope::default().set("run_id", "compile"))?;
    if let Some(path) = &args.report {
        let report = compiled.report_json().map_err(exit_code)?;
        write_atomic(path, format!("{report}\n").as_bytes())?;
    }
    match &args.output {
        Some(path) => write_atomic(path, compiled.text.as_bytes())?,
        None => {
            let mut stdout = Out::new();
            stdout.print(&compiled.text)?;
            stdout.finish()?;
        }
    }
    let r = &compiled.result;
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    for d in &compiled.degraded {
        eprintln!("degraded: {d}");
    }
    eprintln!(
        "compiled {}: {} items in {} of 17 item sections; promotion {} promoted, {} rejected; coverage {} ({}/{} spans){}",
        compiled.package_id,
        compiled.items,
        compiled.populated,
        r.promotion.promoted,
        r.promotion.rejected,
        r.coverage.mode,
        r.coverage.spans_covered,
        r.coverage.spans_total,
        args.output.as_deref().map(|p| format!("; written to {p}")).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}
