//! Extracting a model output into a PredicateGraph: claims, entities, arithmetic, tool calls,
//! citations, code and discourse acts, with spans into the text.
//!
//! [`extract`] serves an [`ExtractRequest`] (the body of `POST /v1/extract`); an [`Extractor`]
//! serves callers that read answers from files (`warrant extract`, its `--batch`) or bring a
//! model for the claims.

use serde::Deserialize;
use serde_json::{Map, Value};
use warrant_extract::{Answer, Options, answer_from_value, merge_context};
pub use warrant_graph::PredicateGraph;
use warrant_llm::Llm;

use crate::error::{Error, Result};
use crate::inputs::{
    AnswerInput, AnswerOrigin, InputFormat, context_file, read_answer, request_answer, tool_registry, tools_file,
};
use crate::io::{Limit, Lines, display_name, read_text_within};

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

/// A graph and the extractor's diagnostics (what it could not read).
#[derive(Debug, Clone)]
pub struct Extracted {
    /// The PredicateGraph.
    pub graph: PredicateGraph,
    /// What the extractor could not read, one line each.
    pub diagnostics: Vec<String>,
}

/// The deterministic extractor, or the model's claims when there is a model.
fn run(answer: &Answer, output_id: Option<String>, model: Option<&Llm>) -> Extracted {
    let opts = Options { output_id };
    let e = match model {
        Some(llm) => warrant_extract::extract_with_llm(answer, &opts, llm),
        None => warrant_extract::extract(answer, &opts),
    };
    Extracted { diagnostics: e.diagnostics.iter().map(ToString::to_string).collect(), graph: e.graph }
}

/// The graph of `req`'s answer, and the extractor's diagnostics (what it could not read).
pub fn extract(req: &ExtractRequest, max_answer_bytes: usize) -> Result<(PredicateGraph, Vec<String>)> {
    tool_registry(req.tools.as_ref())?;
    let answer = request_answer(&req.answer, req.input_format, max_answer_bytes, req.context.as_ref(), req.tools.as_ref())?;
    let e = run(&answer, req.output_id.clone(), None);
    Ok((e.graph, e.diagnostics))
}

/// What an extraction reads from disk besides the answers (`--tools`, `--context`): a
/// request carries these inline, a shell names files.
#[derive(Debug, Clone, Default)]
pub struct ExtractFiles {
    /// Tool definitions: fill `tool_schemas` and `tools_available`.
    pub tools: Option<String>,
    /// A JSON object merged into every answer's context.
    pub context: Option<String>,
}

/// Extracts answers read from files: the tools and context they all get, how their text is
/// read, and the model that takes the claims when one is set.
pub struct Extractor {
    tools: Option<Value>,
    context: Option<Map<String, Value>>,
    input_format: InputFormat,
    max_bytes: usize,
    model: Option<Llm>,
    warnings: Vec<String>,
}

impl Extractor {
    /// Reads `files` (a malformed tools file is refused with its file and pointer). Answers
    /// are read as `input_format` says, at most `max_bytes` each (`--max-bytes`).
    pub fn from_files(files: &ExtractFiles, input_format: InputFormat, max_bytes: usize) -> Result<Self> {
        let (tools, warnings) = match &files.tools {
            Some(t) => {
                let (v, registry) = tools_file(t)?;
                let warnings = registry.warnings().iter().map(|w| format!("{t}: {}: {}", w.pointer, w.message)).collect();
                (Some(v), warnings)
            }
            None => (None, Vec::new()),
        };
        let context = files.context.as_deref().map(context_file).transpose()?;
        Ok(Self { tools, context, input_format, max_bytes, model: None, warnings })
    }

    /// The same extractor, taking claims from `model` when given (quoted exactly from the
    /// answer; the deterministic claims, with `context.extraction_degraded`, when it fails).
    pub fn with_model(mut self, model: Option<Llm>) -> Self {
        self.model = model;
        self
    }

    /// The model, when one is set (its calls are logged on it).
    pub fn model(&self) -> Option<&Llm> {
        self.model.as_ref()
    }

    /// What is suspicious in the tools file (accepted all the same), one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The ceiling on one answer, or one batch line.
    pub fn limit(&self) -> Limit {
        Limit::new(self.max_bytes, "--max-bytes")
    }

    /// Reads the answer in `path` (`-`: stdin) and extracts it.
    pub fn extract_file(&self, path: &str, output_id: Option<String>) -> Result<Extracted> {
        let raw = read_text_within(path, self.limit())?;
        let answer = read_answer(
            &AnswerInput::Text(raw),
            self.input_format,
            self.max_bytes,
            AnswerOrigin::File(path),
            self.context.as_ref(),
            self.tools.as_ref(),
        )?;
        Ok(run(&answer, output_id, self.model.as_ref()))
    }

    /// Reads a JSON Lines batch (`{"id", "answer", "context"?}` per line) and checks every
    /// line before any is extracted: a bad line fails the whole batch, naming its line.
    pub fn read_batch(&self, path: &str) -> Result<Vec<(String, Answer)>> {
        let mut lines = Lines::open(path, self.limit())?;
        let mut items = Vec::new();
        while let Some((number, line)) = lines.next_line()? {
            let at = format!("{}:{number}", display_name(path));
            let bad = |message: String| Error::in_file(display_name(path), message).at_line(number);
            let line = line.map_err(|e| bad(format!("{at}: {e}")))?;
            if line.trim().is_empty() {
                continue;
            }
            let v: Value = serde_json::from_str(&line).map_err(|e| bad(format!("{at}: invalid JSON: {e}")))?;
            let id = v
                .get("id")
                .and_then(|x| x.as_str().map(str::to_string).or_else(|| x.as_i64().map(|n| n.to_string())))
                .ok_or_else(|| bad(format!("{at}: expected a string `id`")).at_pointer("/id"))?;
            let answer_v = v
                .get("answer")
                .ok_or_else(|| bad(format!("{at}: expected an `answer` (text or message)")).at_pointer("/answer"))?;
            let mut answer = answer_from_value(answer_v)
                .map_err(|e| bad(format!("{at}: /answer{e}")).at_pointer(format!("/answer{}", e.pointer)))?;
            if let Some(ctx) = v.get("context") {
                let obj =
                    ctx.as_object().ok_or_else(|| bad(format!("{at}: /context: expected an object")).at_pointer("/context"))?;
                merge_context(&mut answer, obj);
            }
            // The shared context and tools come after the line's own context.
            if let Some(ctx) = &self.context {
                merge_context(&mut answer, ctx);
            }
            if let Some(t) = &self.tools {
                warrant_extract::add_tools(&mut answer, t);
            }
            items.push((id, answer));
        }
        Ok(items)
    }

    /// Extracts one answer read by [`Extractor::read_batch`].
    pub fn extract_answer(&self, answer: &Answer, output_id: Option<String>) -> Extracted {
        run(answer, output_id, self.model.as_ref())
    }
}
