//! Checking answers: one answer or a batch, against given sources, source files, or the store.
//!
//! [`check`] serves a whole [`CheckRequest`] (the body of `POST /v1/check`); a [`Session`]
//! holds what many answers share (the packs, the sources read once, the store) for callers
//! that stream answers ([`Session::stream`], `warrant check --batch`) or bring their own
//! ([`Session::check_answer`], [`Session::check_items`]).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use warrant_check::parse_item;
use warrant_check::{CheckError, Checker, Report, Request};
use warrant_cpl::Engine;
use warrant_store::{DocumentInput, Store};
use warrant_verify::Corpus;

use crate::batch::{guarded, par_map, stream, workers};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::inputs::{AnswerInput, AnswerOrigin, InputFormat, PackRef, SourceInput, packs, read_answer, tool_registry};

/// A check: one answer (`answer`) or a batch (`items`), and how to check it. The body of
/// `POST /v1/check`; `warrant check`'s flags map onto it.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The answer to check (one answer; exclusive with `items`).
    #[serde(default)]
    pub answer: Option<AnswerInput>,
    /// A batch (exclusive with `answer`); a bad item is reported in its place.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<CheckItem>>))]
    pub items: Option<Vec<Value>>,
    /// The question the answer responds to (default: the answer's `user_query`).
    #[serde(default)]
    pub question: Option<String>,
    /// Sources to check against (their whole documents and their facts, as `--sources`);
    /// when omitted, the store (the chunks BM25 retrieves for each claim and the store's
    /// facts, as `--store`).
    #[serde(default)]
    pub sources: Option<Vec<SourceInput>>,
    /// Packs (default: `warrant.grounding.v1`, `warrant.arithmetic.v1`, and
    /// `core.tool-use.v1` with `warrant.tool-schema.v1` when the answer calls tools).
    #[serde(default)]
    pub packs: Option<Vec<PackRef>>,
    /// Tool definitions, as `--tools`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub tools: Option<Value>,
    /// Keys merged into the answer's context.
    #[serde(default)]
    pub context: Option<Map<String, Value>>,
    /// The report's `output_id` (one answer).
    #[serde(default)]
    pub output_id: Option<String>,
    /// Warnings fail policies too.
    #[serde(default)]
    pub strict: bool,
    /// A support score (supported ÷ checked claims) below this makes an `allow` a `review`,
    /// as `--min-support`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 0, maximum = 1))]
    pub min_support: Option<f64>,
    /// Each claim's verifier signals in the report (`features`), as `--explain`.
    #[serde(default)]
    pub explain: bool,
    /// How a text answer is read.
    #[serde(default)]
    pub input_format: InputFormat,
}

/// One item of a batch check, as a line of `warrant check --batch`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CheckItem {
    /// The item's id (the report's `output_id`).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: Value,
    /// The model output (text, or a message object).
    #[cfg_attr(feature = "openapi", schema(value_type = AnswerInput))]
    pub answer: Value,
    /// The question it answers.
    #[serde(default)]
    pub question: Option<String>,
    /// Its own sources (else the request's `sources`, else the store).
    #[serde(default)]
    pub sources: Option<Vec<SourceInput>>,
    /// Its own tool definitions (else the request's).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<Object>>))]
    pub tools: Option<Value>,
}

/// What a check returns: one report, or a batch's entries in order.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum CheckResponse {
    /// One answer's report.
    Report(Box<Report>),
    /// A batch.
    Batch(CheckBatchResponse),
}

/// The response to a batch: one entry per item, in order.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CheckBatchResponse {
    /// A report (as one line of `warrant check --batch`), or `{"id", "index", "error"}`.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<CheckBatchEntry>))]
    pub items: Vec<Value>,
}

/// One entry of a batch response, for the OpenAPI document only (entries are built as JSON
/// values by [`check`]).
#[cfg(feature = "openapi")]
#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum CheckBatchEntry {
    /// The item's report.
    Report(Box<Report>),
    /// Why the item has no report.
    Error(CheckItemError),
}

/// A batch item that has no report, in its place.
#[cfg(feature = "openapi")]
#[derive(Serialize, utoipa::ToSchema)]
pub struct CheckItemError {
    /// The item's id; `null` when it could not be read.
    #[schema(required = true)]
    pub id: Option<String>,
    /// The item's position in `items`, from 0.
    pub index: usize,
    /// What is wrong (a JSON pointer within the item and what was expected), or the failure.
    pub error: String,
}

/// Why one item of a batch has no report: its id when it could be read, and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemError {
    /// The item's id (`null` when it could not be read).
    pub id: Value,
    /// What is wrong (a JSON pointer within the item and what was expected), or the failure.
    pub message: String,
}

/// Source files (`--sources`) read into an in-memory store for a check.
#[derive(Debug, Clone, Default)]
pub struct SourceFiles {
    /// Files and folders.
    pub paths: Vec<String>,
    /// Largest total size, in bytes.
    pub max_bytes: u64,
}

/// What answers are checked against, and where a failure to read it is reported.
enum Against {
    /// Whole documents, with a store for their facts when they came as sources.
    Corpus { corpus: Box<Corpus>, store: Option<Arc<dyn Store>> },
    /// The chunks a store's BM25 retrieves for each claim.
    Store(Arc<dyn Store>),
}

/// What many answers share: the checker (packs, tools, settings), what they are checked
/// against, and how their text is read.
pub struct Session {
    checker: Checker,
    against: Against,
    vocab: Arc<warrant_facts::Vocabulary>,
    tools: Option<Value>,
    /// Named in a store's errors (`--store DIR`, `sources`).
    store_context: Option<String>,
    question: Option<String>,
    context: Option<Map<String, Value>>,
    input_format: InputFormat,
    max_answer_bytes: usize,
}

/// Reads a request's inline sources into an in-memory store and its whole-document corpus.
fn inline_sources(list: &[SourceInput]) -> Result<(Corpus, Arc<dyn Store>)> {
    let docs = list
        .iter()
        .map(|s| DocumentInput {
            id: s.id.clone(),
            text: s.text.clone(),
            version: s.version.clone(),
            title: s.title.clone(),
            metadata: None,
            origin: format!("sources/{}", s.id),
        })
        .collect();
    let store = warrant_check::ingest_documents(docs).map_err(|e| Error::input_at("/sources", format!("/sources: {e}")))?;
    let corpus = warrant_check::corpus_of_documents(&store).map_err(|e| Error::store(e, None))?;
    Ok((corpus, Arc::new(store)))
}

impl Session {
    /// Prepares the checks a request asks for: its packs, tools and sources, or `files` read
    /// from disk, or the environment's store, or nothing (every claim `unverified`).
    pub fn new(env: &Env, req: &CheckRequest, files: Option<&SourceFiles>) -> Result<Self> {
        Self::with_packs(env, req, files, None)
    }

    /// [`Session::new`] with packs already resolved (the CLI's `--pack` files and ids).
    pub fn with_packs(
        env: &Env,
        req: &CheckRequest,
        files: Option<&SourceFiles>,
        resolved: Option<Vec<warrant_cpl::Pack>>,
    ) -> Result<Self> {
        let packs = match (resolved, &req.packs) {
            (Some(p), _) if !p.is_empty() => Some(p),
            (_, Some(p)) if !p.is_empty() => Some(packs(p)?),
            _ => None,
        };
        let checker = Checker {
            engine: Engine { strict: req.strict, tools: tool_registry(req.tools.as_ref())?, ..Engine::default() },
            packs,
            second_opinion: env.model().cloned(),
            explain: req.explain,
            min_support: req.min_support,
        };
        let (against, store_context) = match (&req.sources, files) {
            (Some(list), _) => {
                let (corpus, store) = inline_sources(list)?;
                (Against::Corpus { corpus: Box::new(corpus), store: Some(store) }, None)
            }
            (None, Some(f)) if !f.paths.is_empty() => {
                let store = warrant_check::ingest_sources(&f.paths, f.max_bytes).map_err(|e| Error::input(e.to_string()))?;
                let corpus = warrant_check::corpus_of_documents(&store).map_err(|e| Error::store(e, Some("sources")))?;
                (Against::Corpus { corpus: Box::new(corpus), store: Some(Arc::new(store)) }, Some("sources".to_string()))
            }
            _ => match env.store() {
                Some(s) => (Against::Store(Arc::clone(s)), None),
                None => (Against::Corpus { corpus: Box::new(Corpus::new(Vec::new())), store: None }, None),
            },
        };
        Ok(Self {
            checker,
            against,
            vocab: Arc::clone(env.vocabulary()),
            tools: req.tools.clone(),
            store_context,
            question: req.question.clone(),
            context: req.context.clone(),
            input_format: req.input_format,
            max_answer_bytes: warrant_extract::DEFAULT_MAX_BYTES,
        })
    }

    /// The same session, naming `context` in the store's errors (`--store DIR`).
    pub fn naming_store(mut self, context: impl Into<String>) -> Self {
        self.store_context = Some(context.into());
        self
    }

    /// The same session, refusing answers over `bytes`.
    pub fn max_answer_bytes(mut self, bytes: usize) -> Self {
        self.max_answer_bytes = bytes;
        self
    }

    /// The model asked for second opinions, if any (its calls are logged on it).
    pub fn model(&self) -> Option<&warrant_llm::Llm> {
        self.checker.second_opinion.as_ref()
    }

    fn run(&self, req: &Request<'_>) -> std::result::Result<Report, CheckError> {
        let vocab = &self.vocab;
        match &self.against {
            Against::Corpus { corpus, store: Some(store) } => {
                self.checker.check_with_store(req, store.as_ref(), vocab, Some(corpus))
            }
            Against::Corpus { corpus, store: None } => self.checker.check(req, corpus),
            Against::Store(store) => self.checker.check_with_store(req, store.as_ref(), vocab, None),
        }
    }

    /// A failed check as the caller should see it: a store's failure names the store; a bad
    /// answer names its file, or `/answer` in a request.
    fn check_error(&self, e: CheckError, file: Option<&str>) -> Error {
        match (e, file) {
            (CheckError::Store(s), _) => Error::store(s, self.store_context.as_deref()),
            (e @ CheckError::BuiltinPack(..), _) => Error::internal(e.to_string()),
            (e @ CheckError::EmptyAnswer, None) => Error::input_at("/answer", e.to_string()),
            (e, None) => Error::input(e.to_string()),
            (e, Some(f)) => Error::in_file(f, format!("{f}: {e}")),
        }
    }

    /// Checks one answer. `file` names where it was read from (the CLI's ANSWER, `<stdin>`);
    /// `None`: it came in a request (`/answer`).
    pub fn check_answer(&self, answer: &AnswerInput, file: Option<&str>, output_id: Option<String>) -> Result<Report> {
        let origin = file.map_or(AnswerOrigin::Request, AnswerOrigin::File);
        let answer =
            read_answer(answer, self.input_format, self.max_answer_bytes, origin, self.context.as_ref(), self.tools.as_ref())?;
        let req = Request { answer: &answer, question: self.question.as_deref(), output_id };
        // A panic (a bug) names the answer, as a bad answer does.
        let checked =
            guarded(|| Ok(self.run(&req))).map_err(|e| Error::internal(format!("{}: {e}", file.unwrap_or("/answer"))))?;
        checked.map_err(|e| self.check_error(e, file))
    }

    /// Checks one batch item (`{"id", "answer", "question"?, "sources"?, "tools"?}`): its own
    /// sources replace the shared ones; a panic (a bug) is this item's error.
    pub fn check_item(&self, item: &Value) -> std::result::Result<Report, ItemError> {
        let id_guess = item.get("id").cloned().unwrap_or(Value::Null);
        let parsed = parse_item(item, self.tools.as_ref()).map_err(|message| ItemError { id: id_guess, message })?;
        let req = Request { answer: &parsed.answer, question: parsed.question.as_deref(), output_id: Some(parsed.id.clone()) };
        guarded(|| {
            match &parsed.sources {
                Some(s) => self.checker.check(&req, &Corpus::new(s.clone())),
                None => self.run(&req),
            }
            .map_err(|e| e.to_string())
        })
        .map_err(|message| ItemError { id: Value::String(parsed.id.clone()), message })
    }

    /// Checks `items` on every core; the results in input order.
    pub fn check_items(&self, items: &[Value]) -> Vec<std::result::Result<Report, ItemError>> {
        self.check_items_on(items, workers())
    }

    /// Checks `items` on up to `threads` threads; the results in input order.
    pub fn check_items_on(&self, items: &[Value], threads: usize) -> Vec<std::result::Result<Report, ItemError>> {
        par_map(items, threads, |v| self.check_item(v))
    }

    /// Checks a stream of JSON lines (`(line number, the line or why it cannot be read)`)
    /// block by block on every core: `render` turns each outcome into what `emit` receives,
    /// in input order. Memory holds one block, whatever the length of the stream.
    pub fn stream<R: Send, E>(
        &self,
        next: impl FnMut() -> std::result::Result<Option<(usize, std::result::Result<String, String>)>, E>,
        render: impl Fn(usize, std::result::Result<Report, ItemError>) -> R + Sync,
        emit: impl FnMut(R) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let check_line = |(line_no, line): &(usize, std::result::Result<String, String>)| {
            let outcome = match line {
                Ok(line) => match serde_json::from_str::<Value>(line) {
                    Ok(v) => self.check_item(&v),
                    Err(e) => Err(ItemError { id: Value::Null, message: format!("invalid JSON: {e}") }),
                },
                Err(why) => Err(ItemError { id: Value::Null, message: why.clone() }),
            };
            render(*line_no, outcome)
        };
        stream(next, workers(), check_line, emit)
    }
}

/// Serves a [`CheckRequest`]: one answer's report, or a batch's entries in order (a bad item
/// is `{"id", "index", "error"}` in its place).
pub fn check(env: &Env, req: &CheckRequest, max_answer_bytes: usize) -> Result<CheckResponse> {
    let session = Session::new(env, req, None)?.max_answer_bytes(max_answer_bytes);
    match (&req.answer, &req.items) {
        (Some(a), None) => Ok(CheckResponse::Report(Box::new(session.check_answer(a, None, req.output_id.clone())?))),
        (None, Some(items)) => {
            let indexed: Vec<(usize, &Value)> = items.iter().enumerate().collect();
            let entries = par_map(&indexed, workers(), |(i, v)| {
                let error = |id: Value, message: String| json!({"id": id, "index": i, "error": message});
                match session.check_item(v) {
                    Ok(report) => serde_json::to_value(&report)
                        .unwrap_or_else(|e| error(Value::String(report.output_id.clone()), format!("cannot serialise: {e}"))),
                    Err(e) => error(e.id, e.message),
                }
            });
            Ok(CheckResponse::Batch(CheckBatchResponse { items: entries }))
        }
        _ => Err(Error::usage("expected exactly one of `answer` (one answer) and `items` (a batch)")),
    }
}
