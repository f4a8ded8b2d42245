//! Validating artefacts: graphs, policies, packs, rubrics, evidence documents and knowledge
//! packages, each by its kind, with errors and warnings by JSON pointer.
//!
//! [`validate`] serves a [`ValidateRequest`] (the body of `POST /v1/validate`); a
//! [`Validator`] validates files (`warrant validate FILE…`), and [`data_root`] with
//! [`validate_as`] a CAPE-layout data root (`--all`).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use warrant_validate::{EvidenceSet, Kind};

use crate::error::{Error, Result};
use crate::io::{display_name, read_json, read_text};

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

/// Validates files read from disk (`warrant validate FILE…`): the evidence documents among
/// them are cross-referenced, and an evidence pack may be held against its previous version.
pub struct Validator {
    kind: Option<Kind>,
    strict: bool,
    evidence: EvidenceSet,
}

impl Validator {
    /// Reads the evidence documents among `files` that pass their schema, for
    /// cross-references (unreadable ones are skipped here and reported when validated; stdin
    /// is not read), and `previous`, the previous version of the one document validated.
    pub fn for_files(files: &[String], kind: Option<Kind>, strict: bool, previous: Option<&str>) -> Result<Self> {
        let mut evidence = EvidenceSet::default();
        for file in files.iter().filter(|f| *f != "-") {
            let Ok(text) = read_text(file) else { continue };
            let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
            evidence.add(file, &value, kind);
        }
        if let Some(p) = previous {
            let value = read_json(p)?;
            evidence.previous = Some(
                warrant_validate::previous_version(display_name(p), &value, kind)
                    .map_err(|e| Error::in_file(display_name(p), e.to_string()))?,
            );
        }
        Ok(Self { kind, strict, evidence })
    }

    /// Validates the file at `path` (`-`: stdin), reported under its name.
    pub fn validate_file(&self, path: &str) -> Result<FileReport> {
        let text = read_text(path)?;
        validate_named(display_name(path), &text, self.kind, self.strict, &self.evidence)
    }
}

fn validate_named(name: &str, text: &str, kind: Option<Kind>, strict: bool, ev: &EvidenceSet) -> Result<FileReport> {
    warrant_validate::validate_text(name, text, kind, strict, ev).map_err(|e| Error::in_file(name, e.to_string()))
}

/// One section of a CAPE-layout data root: its title, the kind of its files, and the files
/// (each named relative to the root).
#[derive(Debug, Clone)]
pub struct Section {
    /// `PredicateGraphs`, `Policy Packs` or `Verifier Rubrics`.
    pub title: &'static str,
    /// The kind every file of the section is validated as.
    pub kind: Kind,
    /// `(name relative to the root, path)`, sorted.
    pub files: Vec<(String, PathBuf)>,
}

fn sorted_json(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(out) };
    for e in entries {
        let p = e.map_err(|e| Error::in_file(dir.display().to_string(), format!("{}: cannot list: {e}", dir.display())))?.path();
        if p.is_file() && p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// The files of a CAPE-layout data root (`warrant validate --all`): examples/*/*.json as
/// graphs (not `*.expectations.json`), packs/*.json as packs, rubrics/*.json as rubrics.
pub fn data_root(root: &Path) -> Result<Vec<Section>> {
    if !root.is_dir() {
        return Err(Error::in_file(root.display().to_string(), format!("{}: not a directory", root.display())));
    }
    let mut graphs = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .map(|it| it.filter_map(std::result::Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    dirs.sort();
    for d in dirs {
        graphs.extend(sorted_json(&d)?.into_iter().filter(|p| !p.to_string_lossy().ends_with(".expectations.json")));
    }
    let named = |files: Vec<PathBuf>| -> Vec<(String, PathBuf)> {
        files.into_iter().map(|p| (p.strip_prefix(root).unwrap_or(&p).display().to_string(), p)).collect()
    };
    Ok(vec![
        Section { title: "PredicateGraphs", kind: Kind::Predicategraph, files: named(graphs) },
        Section { title: "Policy Packs", kind: Kind::PolicyPack, files: named(sorted_json(&root.join("packs"))?) },
        Section { title: "Verifier Rubrics", kind: Kind::VerifierRubric, files: named(sorted_json(&root.join("rubrics"))?) },
    ])
}

/// Validates one file of a data root as `kind`, reported under `name`.
pub fn validate_as(path: &Path, name: &str, kind: Kind, strict: bool) -> Result<FileReport> {
    let text = read_text(&path.to_string_lossy())?;
    validate_named(name, &text, Some(kind), strict, &EvidenceSet::default())
}
