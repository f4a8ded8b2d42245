//! What `warrant policy eval` (and `POST /v1/policy/eval`) evaluates: a PredicateGraph given
//! as such, or a model output extracted into one first. Lints of a given graph and notes of
//! the extraction travel with the run result as diagnostics.

use serde_json::Value;
use warrant_cpl::RunDiagnostic;
use warrant_extract::Answer;
use warrant_graph::{PredicateGraph, Severity, check_graph};

/// A PredicateGraph that fails validation: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
pub struct GraphError {
    /// JSON pointer into the graph (empty for the whole document).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// True when a JSON document is (meant to be) a PredicateGraph rather than an answer.
pub fn is_graph(v: &Value) -> bool {
    v.get("schema_version").is_some() || (v.get("output_id").is_some() && v.get("claims").is_some())
}

/// True for text that tries to be a graph (it names `schema_version`) but is not valid JSON:
/// refused rather than read as prose.
pub fn is_broken_graph(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"schema_version\"") && serde_json::from_str::<Value>(text).is_err()
}

/// A graph given as JSON: validated (the first error refuses it), its lints as diagnostics.
pub fn load_graph(value: Value) -> Result<(PredicateGraph, Vec<RunDiagnostic>), GraphError> {
    let report = check_graph(value);
    if let Some(e) = report.errors.first() {
        return Err(GraphError { pointer: e.path.clone(), message: e.message.clone() });
    }
    let lints = report
        .warnings
        .iter()
        .map(|w| RunDiagnostic {
            severity: Severity::Warning,
            source: "graph".into(),
            path: w.path.clone(),
            message: w.message.clone(),
        })
        .collect();
    let graph = report.graph.ok_or_else(|| GraphError { pointer: String::new(), message: "not a PredicateGraph".into() })?;
    Ok((graph, lints))
}

/// The graph of a model output, with the extraction's notes as diagnostics.
pub fn extract_graph(answer: &Answer) -> (PredicateGraph, Vec<RunDiagnostic>) {
    let e = warrant_extract::extract(answer, &warrant_extract::Options::default());
    let notes = e
        .diagnostics
        .iter()
        .map(|m| RunDiagnostic { severity: Severity::Warning, source: "extract".into(), path: String::new(), message: m.clone() })
        .collect();
    (e.graph, notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn graphs_and_answers_are_told_apart() {
        assert!(is_graph(&json!({"schema_version": "1.0.0"})));
        assert!(is_graph(&json!({"output_id": "o", "claims": []})));
        assert!(!is_graph(&json!({"role": "assistant", "content": "hi"})));
        assert!(is_broken_graph("{\"schema_version\": \"1.0.0\","));
        assert!(!is_broken_graph("{\"schema_version\": \"1.0.0\"}"));
    }

    #[test]
    fn an_invalid_graph_is_refused_with_a_pointer() {
        let e = load_graph(json!({"schema_version": "1.0.0", "output_id": 3})).expect_err("invalid");
        assert!(!e.message.is_empty());
        let (g, _) = extract_graph(&Answer { text: "Paris is the capital of France.".into(), ..Answer::default() });
        assert!(!g.claims.is_empty());
    }
}
