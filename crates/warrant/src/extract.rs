//! Extracting a model output into a PredicateGraph: claims, entities, arithmetic, tool calls,
//! citations, code and discourse acts, with spans into the text.

use serde::Deserialize;
use serde_json::{Map, Value};
pub use warrant_graph::PredicateGraph;

use crate::error::Result;
use crate::inputs::{AnswerInput, InputFormat, request_answer, tool_registry};

/// A model output to extract. The body of `POST /v1/extract`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ExtractRequest {
    /// The model output.
    pub answer: AnswerInput,
    /// Keys merged into the answer's context (`user_query`, `system_prompt`, …), as
    /// `--context`.
    #[serde(default)]
    pub context: Option<Map<String, Value>>,
    /// Tool definitions (OpenAI-style or bare `{name, parameters}` array), as `--tools`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub tools: Option<Value>,
    /// The graph's `output_id` (default: the input's id, else a hash of the text).
    #[serde(default)]
    pub output_id: Option<String>,
    /// How a text answer is read.
    #[serde(default)]
    pub input_format: InputFormat,
}

/// The graph of `req`'s answer, and the extractor's diagnostics (what it could not read).
pub fn extract(req: &ExtractRequest, max_answer_bytes: usize) -> Result<(PredicateGraph, Vec<String>)> {
    tool_registry(req.tools.as_ref())?;
    let answer = request_answer(&req.answer, req.input_format, max_answer_bytes, req.context.as_ref(), req.tools.as_ref())?;
    let e = warrant_extract::extract(&answer, &warrant_extract::Options { output_id: req.output_id.clone() });
    let diagnostics = e.diagnostics.iter().map(ToString::to_string).collect();
    Ok((e.graph, diagnostics))
}
