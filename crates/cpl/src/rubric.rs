//! Verifier rubrics (spec §7): loading and validation.

use serde_json::Value;

use crate::parse::LoadError;
use crate::policy::RUBRIC_SCHEMA;

/// A loaded rubric.
#[derive(Debug, Clone, PartialEq)]
pub struct Rubric {
    /// `verifier.<category>.<name>`.
    pub verifier_id: String,
    /// Display name.
    pub name: String,
    /// Which graph parts the verifier reads.
    pub input_schema: Value,
    /// Semver.
    pub version: String,
    /// The judge's output schema.
    pub output_schema: Value,
    /// What the judge should evaluate.
    pub training_objective: String,
    /// Whether outputs are meta-verified.
    pub meta_verification: bool,
}

/// Validates and loads a rubric document.
pub fn load_rubric(v: &Value) -> Result<Rubric, LoadError> {
    if let Some(e) = RUBRIC_SCHEMA.errors(v).into_iter().next() {
        return Err(LoadError::new(e.pointer, e.message));
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    Ok(Rubric {
        verifier_id: s("verifier_id"),
        name: s("name"),
        input_schema: v.get("input_schema").cloned().unwrap_or(Value::Null),
        version: s("version"),
        output_schema: v.get("output_schema").cloned().unwrap_or(Value::Null),
        training_objective: s("training_objective"),
        meta_verification: v.get("meta_verification").and_then(Value::as_bool).unwrap_or(false),
    })
}
