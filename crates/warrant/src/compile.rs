//! Compiling sources into a CKF knowledge package: typed, traceable items, validated before
//! they are returned.

use serde::Deserialize;
use warrant_ckf::CoverageMode;
/// The JSON Schema of a CKF package (draft-07), which [`compile`]'s output is validated
/// against.
pub use warrant_ckf::PACKAGE_SCHEMA;
use warrant_ckf::{CompileError, CompressionLevel, Options, SourceInput, compile_with};

use warrant_ckf::RuleMapper;
use warrant_ckf::llm::LlmMapper;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::io::{Limit, display_name, read_bytes_within};

/// A source to compile.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CompileSource {
    /// Its name (as a file name: the extension picks the reader — `.md`, `.txt`, `.html`,
    /// `.jsonl`, `.json`, `.vtt`, `.srt`).
    pub name: String,
    /// Its text.
    pub text: String,
}

/// Coverage mode (how uncovered spans of the sources are handled).
#[derive(Debug, Clone, Copy, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Coverage {
    /// Report coverage only.
    Summary,
    /// Insert items for large uncovered spans.
    Balanced,
    /// Insert items for every uncovered span.
    Complete,
}

/// `metadata.compression_level`.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    /// `light`.
    Light,
    /// `standard`.
    #[default]
    Standard,
    /// `dense`.
    Dense,
    /// `agentic`.
    Agentic,
}

/// Sources to compile. The body of `POST /v1/compile` (as `warrant compile --format json`
/// without `--created-at`: the package's `created_at` is the deterministic default);
/// `warrant compile`'s options map onto it, its sources being files ([`CompileFiles`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CompileRequest {
    /// The sources (at least one).
    pub sources: Vec<CompileSource>,
    /// The package title.
    #[serde(default)]
    pub title: Option<String>,
    /// The source's version or edition.
    #[serde(default)]
    pub version: Option<String>,
    /// Coverage mode (default by source kind).
    #[serde(default)]
    pub coverage: Option<Coverage>,
    /// `metadata.compression_level`.
    #[serde(default)]
    pub compression_level: Compression,
    /// Turn promotion into if-then rules, playbooks and anti-patterns off.
    #[serde(default)]
    pub no_promotion: bool,
}

/// Encoding of a compiled package.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PackageFormat {
    /// `.ckf.json` (canonical).
    #[default]
    Json,
    /// `.ckf.yaml` (block style).
    Yaml,
    /// `.ckf.md` (readable; YAML blocks per section).
    Md,
}

/// What a compile of files takes besides a request's options (`warrant compile`'s flags).
#[derive(Debug, Clone, Default)]
pub struct CompileFiles {
    /// Source files (`-`: stdin), each named by its path.
    pub sources: Vec<String>,
    /// Largest source accepted, in bytes (`--max-bytes`).
    pub max_bytes: usize,
    /// `metadata.created_at`, an ISO-8601 time already resolved by the caller (default: the
    /// deterministic 1970-01-01T00:00:00Z).
    pub created_at: Option<String>,
    /// The package's encoding.
    pub format: PackageFormat,
}

/// A compiled package: its text, and what the pipeline measured.
#[derive(Debug)]
pub struct Compiled {
    /// The package, encoded as asked.
    pub text: String,
    /// The compile result (quality, promotion, sanitizer, coverage, numeric integrity,
    /// warnings); its package holds no items once encoded as JSON (they are freed early).
    pub result: warrant_ckf::CompileResult,
    /// The chunks a model mapper could not map (the rule mapper mapped them), one line each.
    pub degraded: Vec<String>,
    /// The package id.
    pub package_id: String,
    /// Items in the package.
    pub items: usize,
    /// Item sections holding at least one item (of 17).
    pub populated: usize,
}

impl Compiled {
    /// The compile report (`--report`): the result as pretty JSON, with `degraded` when a
    /// model mapper fell back.
    pub fn report_json(&self) -> Result<String> {
        let serialise = |e: serde_json::Error| Error::internal(format!("cannot serialise the report: {e}"));
        if self.degraded.is_empty() {
            return serde_json::to_string_pretty(&self.result).map_err(serialise);
        }
        let mut v = serde_json::to_value(&self.result).map_err(serialise)?;
        if let Some(m) = v.as_object_mut() {
            m.insert("degraded".into(), serde_json::json!(self.degraded));
        }
        serde_json::to_string_pretty(&v).map_err(serialise)
    }
}

/// True when `e` is a compile that yielded no items from a long source (the compile failed,
/// rather than its input being unreadable: the CLI exits 1, not 2).
pub fn is_empty_package(e: &Error) -> bool {
    e.kind == crate::ErrorKind::Input && e.location.pointer.as_deref() == Some("/sources")
}

fn options(req: &CompileRequest, max_source_bytes: usize, created_at: Option<String>) -> Options {
    Options {
        title: req.title.clone(),
        version: req.version.clone(),
        created_at,
        compression_level: match req.compression_level {
            Compression::Light => CompressionLevel::Light,
            Compression::Standard => CompressionLevel::Standard,
            Compression::Dense => CompressionLevel::Dense,
            Compression::Agentic => CompressionLevel::Agentic,
        },
        coverage: req.coverage.map(|c| match c {
            Coverage::Summary => CoverageMode::Summary,
            Coverage::Balanced => CoverageMode::Balanced,
            Coverage::Complete => CoverageMode::Complete,
        }),
        promotion: !req.no_promotion,
        read: warrant_ckf::ReadOptions { max_bytes: max_source_bytes },
        ..Options::default()
    }
}

/// Compiles `inputs` with the environment's model as the mapper (else the rule mapper),
/// refusing (fail closed) a package that does not pass write-mode validation.
fn compile_inputs(env: &Env, inputs: &[SourceInput<'_>], opts: &Options, format: PackageFormat) -> Result<Compiled> {
    let model_mapper = env.model().cloned().map(LlmMapper::new);
    let mapper: &dyn warrant_ckf::Mapper = match &model_mapper {
        Some(m) => m,
        None => &RuleMapper,
    };
    let mut result = compile_with(mapper, inputs, opts).map_err(|e| match e {
        CompileError::EmptyPackage { .. } => {
            let names: Vec<&str> = inputs.iter().map(|s| s.name).collect();
            Error::input(format!("{}: {e}", names.join(", "))).at_pointer("/sources")
        }
        other => Error::input(other.to_string()),
    })?;
    let items: usize = result.package.sections.iter().map(Vec::len).sum();
    let populated = result.package.sections.iter().filter(|s| !s.is_empty()).count();
    let package_id = result.package.metadata.package_id.clone();
    let json = warrant_ckf::to_json(&result.package).map_err(|e| Error::internal(e.to_string()))?;
    if format == PackageFormat::Json {
        // Only the JSON is returned: the typed items are freed before the check parses the
        // JSON back, so its tree reuses their memory instead of asking the system for more.
        result.package.sections = Vec::new();
        result.package.source_traceability = Vec::new();
    }
    let value: serde_json::Value = serde_json::from_str(&json).map_err(|e| Error::internal(format!("internal error: {e}")))?;
    let report = warrant_ckf::check(&value, warrant_ckf::Mode::Write);
    // The parsed tree (millions of nodes) is freed on another thread while the caller goes on.
    let _freeing = std::thread::Builder::new().name("free-parsed".into()).spawn(move || drop(value));
    if let Some(e) = report.errors.first() {
        return Err(Error::internal(format!(
            "internal error: the compiled package fails write-mode validation at {}: {} (please report this)",
            if e.path.is_empty() { "/" } else { &e.path },
            e.message
        )));
    }
    let text = match format {
        PackageFormat::Json => json,
        PackageFormat::Yaml => warrant_ckf::to_yaml(&result.package).map_err(|e| Error::internal(e.to_string()))?,
        PackageFormat::Md => warrant_ckf::to_markdown(&result.package).map_err(|e| Error::internal(e.to_string()))?,
    };
    let degraded = model_mapper.as_ref().map(LlmMapper::degraded).unwrap_or_default();
    Ok(Compiled { text, result, degraded, package_id, items, populated })
}

/// The package as JSON text, refused (fail closed) when it does not pass write-mode
/// validation.
pub fn compile(req: &CompileRequest, max_source_bytes: usize) -> Result<String> {
    if req.sources.is_empty() {
        return Err(Error::usage("/sources: expected at least one source").at_pointer("/sources"));
    }
    let inputs: Vec<SourceInput<'_>> =
        req.sources.iter().map(|s| SourceInput { name: &s.name, bytes: s.text.as_bytes() }).collect();
    let opts = options(req, max_source_bytes, None);
    Ok(compile_inputs(&Env::new(), &inputs, &opts, PackageFormat::Json)?.text)
}

/// Reads `files.sources` (each at most `files.max_bytes`) and compiles them with `req`'s
/// options (its `sources` are ignored) and the environment's model as the mapper, when set.
pub fn compile_files(env: &Env, req: &CompileRequest, files: &CompileFiles) -> Result<Compiled> {
    let mut contents = Vec::with_capacity(files.sources.len());
    for s in &files.sources {
        contents.push(read_bytes_within(s, Limit::new(files.max_bytes, "--max-bytes"))?);
    }
    let inputs: Vec<SourceInput<'_>> =
        files.sources.iter().zip(&contents).map(|(n, b)| SourceInput { name: display_name(n), bytes: b }).collect();
    let opts = options(req, files.max_bytes, files.created_at.clone());
    compile_inputs(env, &inputs, &opts, files.format)
}
