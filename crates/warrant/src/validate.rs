//! Validating artefacts: graphs, policies, packs, rubrics, evidence documents and knowledge
//! packages, each by its kind, with errors and warnings by JSON pointer.

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};

pub use warrant_validate::FileReport;

/// Another document validated alongside (for cross-references between evidence documents).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NamedDocument {
    /// Its name (as a file name: `*_map_ref`s may name it).
    pub name: String,
    /// The document.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub document: Value,
}

/// An artefact to validate. The body of `POST /v1/validate`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ValidateRequest {
    /// The artefact.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub document: Value,
    /// Its kind (`predicategraph`, `cpl_policy`, `policy_pack`, `verifier_rubric`,
    /// `evidence_pack`, `claim_map`, `source_map`, `provenance`, `verification`, `replay`,
    /// `export_manifest`, `event`); detected from the content when omitted.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "predicategraph"))]
    pub kind: Option<warrant_validate::Kind>,
    /// The name reported as `file` (default `document`).
    #[serde(default)]
    pub name: Option<String>,
    /// Treat warnings as failures.
    #[serde(default)]
    pub strict: bool,
    /// The previous version of an evidence pack or verification document (reviews are
    /// append-only), as `--previous`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub previous: Option<Value>,
    /// Other evidence documents of the same evidence, for cross-references.
    #[serde(default)]
    pub related: Vec<NamedDocument>,
}

/// The report: `{file, kind, valid, errors, warnings}`. An invalid document is a successful
/// validation with `valid: false`.
pub fn validate(req: &ValidateRequest) -> Result<warrant_validate::FileReport> {
    let mut ev = warrant_validate::EvidenceSet::default();
    let name = req.name.clone().unwrap_or_else(|| "document".into());
    ev.add(&name, &req.document, req.kind);
    for d in &req.related {
        ev.add(&d.name, &d.document, req.kind);
    }
    if let Some(prev) = &req.previous {
        ev.previous = Some(
            warrant_validate::previous_version("previous", prev, req.kind)
                .map_err(|e| Error::input_at("/previous", e.to_string()))?,
        );
    }
    warrant_validate::validate_value(&name, &req.document, req.kind, req.strict, &ev)
        .map_err(|e| Error::input_at("/previous", e.to_string()))
}
