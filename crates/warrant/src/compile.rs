//! Compiling sources into a CKF knowledge package: typed, traceable items, validated before
//! they are returned.

use serde::Deserialize;
use warrant_ckf::compile::{CompressionLevel, Options, SourceInput};
use warrant_ckf::coverage::CoverageMode;
/// The JSON Schema of a CKF package (draft-07), which [`compile`]'s output is validated
/// against.
pub use warrant_ckf::validate::PACKAGE_SCHEMA;

use crate::error::{Error, Result};

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
/// without `--created-at`: the package's `created_at` is the deterministic default).
#[derive(Debug, Clone, Deserialize)]
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

/// The package as JSON text, refused (fail closed) when it does not pass write-mode
/// validation.
pub fn compile(req: &CompileRequest, max_source_bytes: usize) -> Result<String> {
    if req.sources.is_empty() {
        return Err(Error::usage("/sources: expected at least one source").at_pointer("/sources"));
    }
    let inputs: Vec<SourceInput<'_>> =
        req.sources.iter().map(|s| SourceInput { name: &s.name, bytes: s.text.as_bytes() }).collect();
    let opts = Options {
        title: req.title.clone(),
        version: req.version.clone(),
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
        read: warrant_ckf::source::ReadOptions { max_bytes: max_source_bytes },
        ..Options::default()
    };
    let result = warrant_ckf::compile::compile(&inputs, &opts).map_err(|e| Error::input(e.to_string()))?;
    let text = warrant_ckf::encode::to_json(&result.package).map_err(|e| Error::internal(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
    let report = warrant_ckf::validate::check(&value, warrant_ckf::validate::Mode::Write);
    if let Some(e) = report.errors.first() {
        return Err(Error::internal(format!(
            "the compiled package fails write-mode validation at {}: {} (please report this)",
            if e.path.is_empty() { "/" } else { &e.path },
            e.message
        )));
    }
    Ok(text)
}
