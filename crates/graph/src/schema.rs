//! Compiled JSON Schemas and best-match error reporting.
//!
//! Every artefact kind Warrant validates (graphs, policies, packs, rubrics, evidence
//! documents, knowledge packages) ships its own draft-07 or 2020-12 schema, embedded in the
//! binary and compiled once. Validation follows Python `jsonschema`, the reference the specs
//! name: `format` is not asserted, integers may be written `1.0`, and one "best match" error
//! leads the report.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

/// One schema violation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON pointer to the offending instance location (`""` is the root).
    pub pointer: String,
    /// What is wrong, e.g. `"id" is a required property`.
    pub message: String,
    /// The failing keyword (`required`, `type`, `additionalProperties`, …).
    pub keyword: &'static str,
    /// For `additionalProperties`: the unexpected keys.
    pub unexpected: Vec<String>,
}

/// Longest message kept; `oneOf` failures otherwise echo whole sub-documents.
const MAX_MESSAGE: usize = 240;

/// A schema compiled once and reused for every instance.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

impl CompiledSchema {
    /// Compiles a schema given as JSON text. The draft comes from its `$schema`.
    ///
    /// Embedded schemas are tested to compile, so callers may treat an error as a bug.
    pub fn compile(schema_json: &str) -> Result<Self, String> {
        Self::build(schema_json, false)
    }

    /// Like [`CompiledSchema::compile`], but `format` is asserted rather than an annotation
    /// (for artefact kinds whose spec makes it a rule, e.g. RFC 3339 `date-time`). Failures
    /// carry the keyword `format`.
    pub fn compile_asserting_formats(schema_json: &str) -> Result<Self, String> {
        Self::build(schema_json, true)
    }

    fn build(schema_json: &str, assert_formats: bool) -> Result<Self, String> {
        let schema: Value = serde_json::from_str(schema_json).map_err(|e| format!("schema is not JSON: {e}"))?;
        let validator = jsonschema::options()
            .should_validate_formats(assert_formats)
            .build(&schema)
            .map_err(|e| format!("schema does not compile: {e}"))?;
        Ok(Self { validator })
    }

    /// True when the instance is valid.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Every error, best match first (see [`best_first`]).
    pub fn errors(&self, instance: &Value) -> Vec<SchemaError> {
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let mut errors: Vec<SchemaError> = self
            .validator
            .iter_errors(instance)
            .map(|e| {
                let keyword = keyword_of(e.kind());
                let unexpected = match e.kind() {
                    ValidationErrorKind::AdditionalProperties { unexpected } => unexpected.clone(),
                    _ => Vec::new(),
                };
                SchemaError {
                    pointer: e.instance_path().as_str().to_string(),
                    message: truncate(e.to_string()),
                    keyword,
                    unexpected,
                }
            })
            .collect();
        best_first(&mut errors);
        errors
    }
}

/// Orders errors as Python `jsonschema.exceptions.best_match` would choose them: shallowest
/// instance location first, and among equals a specific keyword before `oneOf` / `anyOf`.
/// The sort is stable, so validation order breaks the remaining ties.
pub fn best_first(errors: &mut [SchemaError]) {
    errors.sort_by_key(|e| (depth(&e.pointer), matches!(e.keyword, "oneOf" | "anyOf")));
}

fn depth(pointer: &str) -> usize {
    pointer.matches('/').count()
}

fn truncate(mut s: String) -> String {
    if s.len() > MAX_MESSAGE {
        let mut cut = MAX_MESSAGE;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

fn keyword_of(kind: &ValidationErrorKind) -> &'static str {
    use ValidationErrorKind as K;
    match kind {
        K::AdditionalProperties { .. } => "additionalProperties",
        K::Required { .. } => "required",
        K::Type { .. } => "type",
        K::Enum { .. } => "enum",
        K::Constant { .. } => "const",
        K::Pattern { .. } => "pattern",
        K::MinLength { .. } => "minLength",
        K::MaxLength { .. } => "maxLength",
        K::MinItems { .. } => "minItems",
        K::MaxItems { .. } => "maxItems",
        K::Minimum { .. } => "minimum",
        K::Maximum { .. } => "maximum",
        K::OneOfNotValid { .. } | K::OneOfMultipleValid { .. } => "oneOf",
        K::AnyOf { .. } => "anyOf",
        K::Contains => "contains",
        K::Format { .. } => "format",
        _ => "schema",
    }
}

/// Renders a JSON pointer the way the upstream validator prints locations: segments joined
/// with ` -> `, or `root` for the document itself.
pub fn pointer_to_arrow_path(pointer: &str) -> String {
    if pointer.is_empty() {
        return "root".to_string();
    }
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|seg| seg.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// "a string", "an object", … for messages that say what was found.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Appends a key to a JSON pointer, escaping `~` and `/`.
pub fn push_pointer(pointer: &str, key: &str) -> String {
    let escaped = key.replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{escaped}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_are_not_asserted_and_integral_floats_are_integers() {
        let s = CompiledSchema::compile(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                "properties":{"u":{"type":"string","format":"uri"},"n":{"type":"integer"}}}"#,
        )
        .unwrap();
        assert!(s.is_valid(&json!({"u": "not a uri", "n": 1.0})));
        assert!(!s.is_valid(&json!({"n": 1.5})));
    }

    #[test]
    fn formats_can_be_asserted() {
        let text = r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"t":{"type":"string","format":"date-time"}}}"#;
        let bad = json!({"t": "2026-02-30T00:00:00Z"});
        assert!(CompiledSchema::compile(text).unwrap().is_valid(&bad));
        let strict = CompiledSchema::compile_asserting_formats(text).unwrap();
        assert_eq!(strict.errors(&bad)[0].keyword, "format");
        assert!(strict.is_valid(&json!({"t": "2026-02-28T23:59:59.5+01:00"})));
    }

    #[test]
    fn best_match_prefers_shallow_errors() {
        let s = CompiledSchema::compile(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["a"],
                "properties":{"b":{"type":"object","properties":{"c":{"type":"string"}}}}}"#,
        )
        .unwrap();
        let errs = s.errors(&json!({"b": {"c": 1}}));
        assert_eq!(errs.len(), 2);
        assert_eq!(errs[0].keyword, "required");
        assert_eq!(errs[0].pointer, "");
        assert_eq!(errs[1].pointer, "/b/c");
    }

    #[test]
    fn arrow_paths() {
        assert_eq!(pointer_to_arrow_path(""), "root");
        assert_eq!(pointer_to_arrow_path("/tool_calls/0/span"), "tool_calls -> 0 -> span");
        assert_eq!(push_pointer("/a", "x/y~"), "/a/x~1y~0");
    }
}
