//! Evaluating policy packs over a PredicateGraph, or over a model output extracted into one.

use serde::Deserialize;
use serde_json::{Map, Value};
use warrant_check::policy_input::{extract_graph, is_broken_graph, is_graph, load_graph};
use warrant_cpl::Engine;
pub use warrant_cpl::RunResult;
use warrant_cpl::verifier::RubricsWithoutJudge;

use crate::error::{Error, Result};
use crate::inputs::{AnswerInput, InputFormat, PackRef, packs, request_answer, tool_registry};

/// Packs to evaluate and what to evaluate them over. The body of `POST /v1/policy/eval` (as
/// `warrant policy eval --format json`).
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyEvalRequest {
    /// Packs to evaluate. Default (absent or empty), when the input calls tools:
    /// `core.tool-use.v1` and `warrant.tool-schema.v1`; otherwise at least one is needed.
    #[serde(default)]
    pub packs: Vec<PackRef>,
    /// A PredicateGraph (an object with `schema_version`, or `output_id` and `claims`), or a
    /// model output to extract one from (text, message, completion, envelope).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub input: Value,
    /// Tool definitions, as `--tools`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub tools: Option<Value>,
    /// Verifier rubrics to register (their rules are skipped until a judge is configured).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub rubrics: Vec<Value>,
    /// Warnings fail policies too.
    #[serde(default)]
    pub strict: bool,
    /// Keys merged into an answer's context.
    #[serde(default)]
    pub context: Option<Map<String, Value>>,
    /// How a text answer is read.
    #[serde(default)]
    pub input_format: InputFormat,
}

/// The run result (`{output_id, passed, strict, packs, diagnostics, …}`): every pack's
/// policies over the graph, the graph's lints first among the diagnostics. Rubrics register
/// their verifiers, whose rules are skipped until a judge is configured.
pub fn eval(req: &PolicyEvalRequest, max_answer_bytes: usize) -> Result<RunResult> {
    let mut packs = packs(&req.packs)?;
    let tools = tool_registry(req.tools.as_ref())?;
    let mut rubric_ids = Vec::with_capacity(req.rubrics.len());
    for (i, r) in req.rubrics.iter().enumerate() {
        let rubric = warrant_cpl::rubric::load_rubric(r).map_err(|e| {
            let at = format!("/rubrics/{i}{}", e.pointer);
            Error::input_at(at.clone(), format!("{at}: {}", e.message))
        })?;
        rubric_ids.push(rubric.verifier_id);
    }
    let graph_error = |e: warrant_check::policy_input::GraphError| {
        let at = format!("/input{}", e.pointer);
        Error::input_at(at.clone(), format!("{at}: {}", e.message))
    };
    // A model output is read as `/v1/check` reads an answer, then extracted.
    let answer =
        |input: AnswerInput| request_answer(&input, req.input_format, max_answer_bytes, req.context.as_ref(), req.tools.as_ref());
    let (graph, lints) = match &req.input {
        v @ Value::Object(_) if is_graph(v) => load_graph(v.clone()).map_err(graph_error)?,
        Value::String(text) => {
            let json = serde_json::from_str::<Value>(text).ok();
            if json.as_ref().is_some_and(is_graph) {
                load_graph(json.unwrap_or_default()).map_err(graph_error)?
            } else if !matches!(req.input_format, InputFormat::Text) && is_broken_graph(text) {
                let e = serde_json::from_str::<Value>(text).err().map(|e| e.to_string()).unwrap_or_default();
                return Err(Error::input_at("/input", format!("/input: a PredicateGraph that is not valid JSON: {e}")));
            } else {
                extract_graph(&answer(AnswerInput::Text(text.clone()))?)
            }
        }
        Value::Object(m) => extract_graph(&answer(AnswerInput::Message(m.clone()))?),
        _ => {
            return Err(Error::usage("/input: expected a PredicateGraph, a message object or answer text").at_pointer("/input"));
        }
    };
    if packs.is_empty() {
        if graph.tool_calls.is_empty() {
            return Err(Error::usage("/packs: expected at least one pack (the default packs apply to input that calls tools)")
                .at_pointer("/packs"));
        }
        packs = warrant_cpl::packs::tool_call_packs().map_err(Error::input)?;
    }
    let engine =
        Engine { strict: req.strict, tools, verifiers: Box::new(RubricsWithoutJudge::new(rubric_ids)), ..Engine::default() };
    let mut result = engine.evaluate(&packs, &graph).map_err(|e| Error::input(e.to_string()))?;
    let mut diagnostics = lints;
    diagnostics.append(&mut result.diagnostics);
    result.diagnostics = diagnostics;
    Ok(result)
}
