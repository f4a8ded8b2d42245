//! `warrant compile`: sources → a CKF knowledge package.

use std::process::ExitCode;

use warrant_ckf::CoverageMode;
use warrant_ckf::{CompileError, CompressionLevel, Options, SourceInput, compile_with};

use warrant_ckf::ReadOptions;
use warrant_ckf::RuleMapper;
use warrant_ckf::llm::LlmMapper;
use warrant_ckf::{Mode, check};

use crate::cli::{CompileArgs, CompressionArg, CoverageArg, PackageFormat};
use crate::error::{CliError, CliResult};
use crate::io::{Limit, display_name, read_bytes_within, write_atomic};
use crate::out::Out;

/// Runs `warrant compile`.
pub fn run(args: CompileArgs) -> CliResult<ExitCode> {
    let mut contents = Vec::with_capacity(args.sources.len());
    for s in &args.sources {
        contents.push(read_bytes_within(s, Limit::new(args.max_bytes, "--max-bytes"))?);
    }
    let names: Vec<&str> = args.sources.iter().map(|s| display_name(s)).collect();
    let inputs: Vec<SourceInput<'_>> = names.iter().zip(&contents).map(|(n, b)| SourceInput { name: n, bytes: b }).collect();
    let opts = Options {
        title: args.title.clone(),
        version: args.version.clone(),
        created_at: crate::timestamp::requested("--created-at", args.created_at.as_deref())?,
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
    let llm = args.llm_opts.stage(args.llm, "--llm")?;
    let model_mapper = llm.clone().map(LlmMapper::new);
    let mapper: &dyn warrant_ckf::Mapper = match &model_mapper {
        Some(m) => m,
        None => &RuleMapper,
    };
    let mut result = compile_with(mapper, &inputs, &opts).map_err(|e| match e {
        CompileError::EmptyPackage { .. } => CliError::failure(format!("{}: {e}", names.join(", "))),
        other => CliError::input(other.to_string()),
    })?;
    let items: usize = result.package.sections.iter().map(Vec::len).sum();
    let populated = result.package.sections.iter().filter(|s| !s.is_empty()).count();
    let package_id = result.package.metadata.package_id.clone();
    // Fail closed: what we write must pass write-mode validation.
    let json = warrant_ckf::to_json(&result.package).map_err(|e| CliError::failure(e.to_string()))?;
    if matches!(args.format, PackageFormat::Json) {
        // Only the JSON is written: the typed items are freed before the check parses the JSON
        // back, so its tree reuses their memory instead of asking the system for more.
        result.package.sections = Vec::new();
        result.package.source_traceability = Vec::new();
    }
    let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| CliError::failure(format!("internal error: {e}")))?;
    let report = check(&value, Mode::Write);
    // The parsed tree (millions of nodes) is freed on another thread while the output is written.
    let _freeing = std::thread::Builder::new().name("free-parsed".into()).spawn(move || drop(value));
    if let Some(e) = report.errors.first() {
        return Err(CliError::failure(format!(
            "internal error: the compiled package fails write-mode validation at {}: {} (please report this)",
            if e.path.is_empty() { "/" } else { &e.path },
            e.message
        )));
    }
    let out = match args.format {
        PackageFormat::Json => json,
        PackageFormat::Yaml => warrant_ckf::to_yaml(&result.package).map_err(|e| CliError::failure(e.to_string()))?,
        PackageFormat::Md => warrant_ckf::to_markdown(&result.package).map_err(|e| CliError::failure(e.to_string()))?,
    };
    let degraded = model_mapper.as_ref().map(LlmMapper::degraded).unwrap_or_default();
    args.llm_opts.write_replay_case(llm.as_ref(), warrant_evidence::Scope::default().set("run_id", "compile"))?;
    if let Some(path) = &args.report {
        let serialise = |e: serde_json::Error| CliError::failure(format!("cannot serialise the report: {e}"));
        let r = if degraded.is_empty() {
            serde_json::to_string_pretty(&result).map_err(serialise)?
        } else {
            // The report with the fallbacks added.
            let mut v = serde_json::to_value(&result).map_err(serialise)?;
            if let Some(m) = v.as_object_mut() {
                m.insert("degraded".into(), serde_json::json!(degraded));
            }
            serde_json::to_string_pretty(&v).map_err(serialise)?
        };
        write_atomic(path, format!("{r}\n").as_bytes())?;
    }
    match &args.output {
        Some(path) => write_atomic(path, out.as_bytes())?,
        None => {
            let mut stdout = Out::new();
            stdout.print(&out)?;
            stdout.finish()?;
        }
    }
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    for d in &degraded {
        eprintln!("degraded: {d}");
    }
    eprintln!(
        "compiled {package_id}: {items} items in {populated} of 17 item sections; promotion {} promoted, {} rejected; coverage {} ({}/{} spans){}",
        result.promotion.promoted,
        result.promotion.rejected,
        result.coverage.mode,
        result.coverage.spans_covered,
        result.coverage.spans_total,
        args.output.as_deref().map(|p| format!("; written to {p}")).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
}
