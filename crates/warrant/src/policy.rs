//! Evaluating policy packs over a PredicateGraph, or over a model output extracted into one.
//!
//! [`eval`] serves a [`PolicyEvalRequest`] (the body of `POST /v1/policy/eval`); an
//! [`Evaluation`] serves callers that name packs, tools and rubrics by file and read the
//! input from one (`warrant policy eval`), with a model as the rubrics' judge. [`packs`] lists
//! the built-in packs.

use serde::Deserialize;
use serde_json::{Map, Value};
use warrant_check::{extract_graph, is_broken_graph, is_graph, load_graph};
use warrant_cpl::Rubric;
use warrant_cpl::RubricsWithoutJudge;
use warrant_cpl::RunDiagnostic;
pub use warrant_cpl::RunResult;
use warrant_cpl::packs::{PackListing, builtin_ids};
use warrant_cpl::{Engine, Pack, ToolRegistry};
use warrant_graph::PredicateGraph;
use warrant_llm::Llm;

use crate::error::{Error, Result};
use crate::inputs::{
    AnswerInput, AnswerOrigin, InputFormat, PackRef, context_file, pack_specs, packs, read_answer, request_answer, tool_registry,
    tools_file,
};
use crate::io::{display_name, parse_json, pointer, read_json, read_text};

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
        let rubric = warrant_cpl::load_rubric(r).map_err(|e| {
            let at = format!("/rubrics/{i}{}", e.pointer);
            Error::input_at(at.clone(), format!("{at}: {}", e.message))
        })?;
        rubric_ids.push(rubric.verifier_id);
    }
    let graph_error = |e: warrant_check::GraphError| {
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
    evaluate(&engine, &packs, &graph, lints).map_err(Error::input)
}

/// The engine's run over `graph`, the graph's lints first among the diagnostics.
fn evaluate(engine: &Engine, packs: &[Pack], graph: &PredicateGraph, lints: Vec<RunDiagnostic>) -> Result<RunResult, String> {
    let mut result = engine.evaluate(packs, graph).map_err(|e| e.to_string())?;
    let mut diagnostics = lints;
    diagnostics.append(&mut result.diagnostics);
    result.diagnostics = diagnostics;
    Ok(result)
}

/// The built-in packs (`warrant policy packs`, `GET /v1/packs`).
pub fn packs_listing() -> Result<Vec<PackListing>> {
    warrant_cpl::packs::listing().map_err(Error::internal)
}

/// What an evaluation reads from disk (`warrant policy eval`'s flags): a request carries
/// these inline.
#[derive(Debug, Clone, Default)]
pub struct PolicyFiles {
    /// Pack files (or standalone policy files) or built-in pack ids.
    pub packs: Vec<String>,
    /// Tool definitions (OpenAI-style or bare `{name, parameters}` array).
    pub tools: Option<String>,
    /// Verifier rubric files.
    pub rubrics: Vec<String>,
    /// A JSON object merged into an answer's context (read only when the input is one).
    pub context: Option<String>,
}

/// Packs, tools and rubrics read from files, ready to evaluate inputs read from files.
pub struct Evaluation {
    packs: Vec<Pack>,
    tools: ToolRegistry,
    tools_doc: Option<Value>,
    rubrics: Vec<Rubric>,
    context: Option<String>,
    strict: bool,
    input_format: InputFormat,
    max_bytes: usize,
}

impl Evaluation {
    /// Reads `files`: every pack, the tools and the rubrics, each refused with its file and
    /// JSON pointer. `strict`: warnings fail policies too; an answer is read as
    /// `input_format` says, at most `max_bytes`.
    pub fn from_files(files: &PolicyFiles, strict: bool, input_format: InputFormat, max_bytes: usize) -> Result<Self> {
        let packs = pack_specs(&files.packs)?;
        let (tools_doc, tools) = match &files.tools {
            Some(path) => {
                let (v, registry) = tools_file(path)?;
                (Some(v), registry)
            }
            None => (None, ToolRegistry::new()),
        };
        let mut rubrics = Vec::with_capacity(files.rubrics.len());
        for r in &files.rubrics {
            let v = read_json(r)?;
            let rubric = warrant_cpl::load_rubric(&v).map_err(|e| {
                Error::in_file(r.as_str(), format!("{r}: {}: {}", pointer(&e.pointer), e.message)).at_pointer(e.pointer.clone())
            })?;
            rubrics.push(rubric);
        }
        Ok(Self { packs, tools, tools_doc, rubrics, context: files.context.clone(), strict, input_format, max_bytes })
    }

    /// True when rubrics were given (a configured model is then their judge).
    pub fn has_rubrics(&self) -> bool {
        !self.rubrics.is_empty()
    }

    /// Reads INPUT from `path` (`-`: stdin): a PredicateGraph (refused with file and JSON
    /// pointer when invalid), or a model output extracted into one. Text that tries to be a
    /// graph (it names `schema_version`) but is not valid JSON is refused, not read as prose.
    fn graph_file(&self, path: &str) -> Result<(PredicateGraph, Vec<RunDiagnostic>)> {
        let text = read_text(path)?;
        let json = serde_json::from_str::<Value>(&text).ok();
        let broken_graph = json.is_none() && is_broken_graph(&text);
        if json.as_ref().is_some_and(is_graph) || (self.input_format != InputFormat::Text && broken_graph) {
            let value = parse_json(path, &text)?;
            let name = display_name(path);
            return load_graph(value).map_err(|e| {
                Error::in_file(name, format!("{name}: {}: {}", pointer(&e.pointer), e.message)).at_pointer(e.pointer.clone())
            });
        }
        let context = self.context.as_deref().map(context_file).transpose()?;
        let answer = read_answer(
            &AnswerInput::Text(text),
            self.input_format,
            self.max_bytes,
            AnswerOrigin::File(path),
            context.as_ref(),
            self.tools_doc.as_ref(),
        )?;
        Ok(extract_graph(&answer))
    }

    /// Evaluates the packs over the input in `path`; `judge` (a model) scores the rubrics,
    /// whose rules are skipped without one. No pack given: the tool-call packs, for input
    /// that calls tools.
    pub fn eval_file(self, path: &str, judge: Option<Llm>) -> Result<RunResult> {
        let (graph, lints) = self.graph_file(path)?;
        let name = display_name(path);
        let packs = if self.packs.is_empty() {
            if graph.tool_calls.is_empty() {
                let ids: Vec<&str> = builtin_ids().collect();
                return Err(Error::usage(format!(
                    "{name}: no --pack given, and the input calls no tools (the default packs, {}, check tool calls); name a pack with --pack (built-in: {})",
                    warrant_cpl::packs::TOOL_CALL_PACKS.join(" and "),
                    ids.join(", ")
                )));
            }
            warrant_cpl::packs::tool_call_packs().map_err(Error::internal)?
        } else {
            self.packs
        };
        let engine = Engine {
            strict: self.strict,
            tools: self.tools,
            verifiers: Box::new(warrant_cpl::JudgedVerifiers::new(self.rubrics, judge)),
            ..Engine::default()
        };
        evaluate(&engine, &packs, &graph, lints).map_err(|e| Error::in_file(name, format!("{name}: {e}")))
    }
}
