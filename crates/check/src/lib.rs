//! `warrant check`, as a library: an answer and its sources in, a [`Report`] out.
//!
//! 1. **Extract** the answer into a PredicateGraph (`warrant-extract`); when a question is
//!    known and the answer states no claim of its own ("Delhi"), the whole answer is the claim.
//! 2. **Verify** every claim against the sources (`warrant-verify`): a status, a confidence and
//!    support edges quoting the sources exactly. With a model configured for it, claims the
//!    rules leave `unsupported`, `partially_supported` or `contradicted` get a second opinion,
//!    marked as such. The results travel with the graph as
//!    `context.claim_verification`, where the grounding predicates read them.
//! 3. **Evaluate** the policy packs (`warrant-cpl`) — by default `warrant.grounding.v1`,
//!    `warrant.arithmetic.v1`, and `core.tool-use.v1` with `warrant.tool-schema.v1` when the
//!    answer calls tools.
//! 4. **Gate**: one decision with its reasons ([`gate`]).
//!
//! The same inputs give the same report, byte for byte.
#![warn(missing_docs)]

mod batch;
mod chunk_index;
mod evidence;
mod gate;
mod policy_input;
mod render;
mod sources;
mod store;

use serde::Serialize;
use serde_json::{Map, Value, json};
use warrant_cpl::packs::builtin;
use warrant_cpl::{Engine, EvalError, Pack, RunResult};
use warrant_extract::{Answer, extract};
use warrant_graph::PredicateGraph;
use warrant_verify::{ClaimResult, Corpus, add_answer_claim, verify};

pub use gate::Gate;

/// Packs run when the caller names none.
pub const DEFAULT_PACKS: [&str; 2] = ["warrant.grounding.v1", "warrant.arithmetic.v1"];
/// Added to the defaults when the answer calls tools.
pub const TOOL_PACK: &str = "core.tool-use.v1";
/// Added beside [`TOOL_PACK`]: the whole arguments against each tool's JSON Schema.
pub const TOOL_SCHEMA_PACK: &str = "warrant.tool-schema.v1";

/// What went wrong, for the caller to report (bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The answer has no text and no tool calls.
    #[error("the answer is empty: nothing to check")]
    EmptyAnswer,
    /// A built-in pack failed to load (a bug; reported, never a panic).
    #[error("built-in pack {0}: {1}")]
    BuiltinPack(String, String),
    /// Policy evaluation refused the packs (dependency cycle, tool schemas).
    #[error("{0}")]
    Eval(#[from] EvalError),
    /// The knowledge store could not be read.
    #[error("store: {0}")]
    Store(#[from] warrant_store::StoreError),
}

/// Check settings shared by many answers.
#[derive(Default)]
pub struct Checker {
    /// The policy engine (strictness, tool schemas, verifiers).
    pub engine: Engine,
    /// The packs to run; `None` runs the defaults.
    pub packs: Option<Vec<Pack>>,
    /// A model asked for a second opinion on claims the rules leave `unsupported`,
    /// `partially_supported` or `contradicted` (`--llm-verify`); `None`: rules only.
    pub second_opinion: Option<warrant_llm::Llm>,
    /// Report each claim's verifier signals (`features` in the JSON report).
    pub explain: bool,
    /// A support score below this makes an `allow` a `review` (`--min-support`).
    pub min_support: Option<f64>,
}

/// One answer to check.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The model output.
    pub answer: &'a Answer,
    /// The question it answers; defaults to the answer's `context.user_query`.
    pub question: Option<&'a str>,
    /// `output_id` of the graph (default: the answer's id, else a hash of its text).
    pub output_id: Option<String>,
}

/// The outcome of a check. Field order is the JSON report's.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Report {
    /// The graph's output id.
    pub output_id: String,
    /// The decision.
    pub gate: Gate,
    /// Why, blocking reasons first.
    pub gate_reasons: Vec<String>,
    /// Counts per status and the support score.
    pub summary: Summary,
    /// Every claim with its verification.
    pub claims: Vec<ClaimResult>,
    /// The policy results (as `warrant policy eval --format json` prints them).
    pub policies: RunResult,
    /// The extracted graph, with `context.claim_verification`.
    pub graph: PredicateGraph,
    /// The packs that were run (for the evidence pack's coverage; not in the JSON report).
    #[serde(skip)]
    pub packs_run: Vec<Pack>,
}

/// The claims at a glance: how many got each status, and the support score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Summary {
    /// All claims.
    pub claims: usize,
    /// Claims a source states.
    pub supported: usize,
    /// Claims a source states part of.
    pub partially_supported: usize,
    /// Claims checked and not found.
    pub unsupported: usize,
    /// Claims a source states otherwise.
    pub contradicted: usize,
    /// Claims with nothing to check against.
    pub unverified: usize,
    /// Opinions, pleasantries and the like.
    pub not_applicable: usize,
    /// Supported ÷ checked claims (supported, partially supported, unsupported, contradicted);
    /// `null` when no claim could be checked.
    pub support_score: Option<f64>,
}

impl Summary {
    /// Counts the claims' statuses.
    pub fn of(claims: &[ClaimResult]) -> Self {
        use warrant_verify::Status::*;
        let count = |st| claims.iter().filter(|c| c.status == st).count();
        let (supported, partially_supported, unsupported, contradicted) =
            (count(Supported), count(PartiallySupported), count(Unsupported), count(Contradicted));
        let checked = supported + partially_supported + unsupported + contradicted;
        Summary {
            claims: claims.len(),
            supported,
            partially_supported,
            unsupported,
            contradicted,
            unverified: count(Unverified),
            not_applicable: count(NotApplicable),
            support_score: (checked > 0).then(|| (supported as f64 / checked as f64 * 1000.0).round() / 1000.0),
        }
    }
}

impl Checker {
    /// The packs to run for `graph`.
    fn packs_for(&self, graph: &PredicateGraph) -> Result<Vec<Pack>, CheckError> {
        if let Some(p) = &self.packs {
            return Ok(p.clone());
        }
        let mut ids: Vec<&str> = DEFAULT_PACKS.to_vec();
        if !graph.tool_calls.is_empty() {
            ids.extend([TOOL_PACK, TOOL_SCHEMA_PACK]);
        }
        ids.into_iter()
            .map(|id| match builtin(id) {
                Some(Ok(p)) => Ok(p.clone()),
                Some(Err(e)) => Err(CheckError::BuiltinPack(id.into(), e.to_string())),
                None => Err(CheckError::BuiltinPack(id.into(), "missing".into())),
            })
            .collect()
    }

    /// Checks one answer against `corpus`.
    pub fn check(&self, req: &Request<'_>, corpus: &Corpus) -> Result<Report, CheckError> {
        let (graph, question) = prepare(req)?;
        self.finish(graph, question, corpus, None)
    }

    /// Checks one answer against a knowledge store: against `corpus` when given (the whole
    /// documents of a small store), else against the chunks BM25 retrieves for each claim;
    /// then the claims' own facts are matched against the store's facts.
    pub fn check_with_store(
        &self,
        req: &Request<'_>,
        store: &dyn warrant_store::Store,
        vocab: &warrant_facts::Vocabulary,
        corpus: Option<&Corpus>,
    ) -> Result<Report, CheckError> {
        let (graph, question) = prepare(req)?;
        let retrieved;
        let (corpus, scope) = match corpus {
            Some(c) => (c, None),
            None => {
                let texts: Vec<&str> = graph.claims.iter().map(|c| c.text.as_str()).collect();
                retrieved = store::retrieve(store, &texts, question.as_deref(), store::CHUNKS_PER_CLAIM)?;
                (&retrieved.corpus, Some((&retrieved.scope, retrieved.searched)))
            }
        };
        self.finish(graph, question, corpus, Some(StoreSide { store, vocab, searched: scope }))
    }

    fn finish(
        &self,
        mut graph: PredicateGraph,
        question: Option<String>,
        corpus: &Corpus,
        facts: Option<StoreSide<'_>>,
    ) -> Result<Report, CheckError> {
        let mut claims = verify(&graph, corpus, &warrant_verify::Options { question: question.clone(), explain: self.explain });
        if let Some(StoreSide { store, vocab, searched: scope }) = facts {
            // The store's chunks were searched and none shares a word with any claim: the
            // claims were checked and nothing states them (`unverified` means nothing to check
            // against).
            if scope.is_some_and(|(_, searched)| searched > 0) && corpus.is_empty() {
                for c in claims.iter_mut().filter(|c| c.status == warrant_verify::Status::Unverified) {
                    c.status = warrant_verify::Status::Unsupported;
                    c.confidence = 0.9;
                    c.reason = "no chunk of the store shares a word with the claim".into();
                }
            }
            store::apply_fact_signals(store, vocab, &mut claims, scope.map(|(s, _)| s))?;
        }
        if let Some(llm) = &self.second_opinion {
            warrant_verify::second_opinion(&mut claims, corpus, question.as_deref(), llm);
        }
        attach(&mut graph, &claims, question.as_deref(), corpus);
        let packs = self.packs_for(&graph)?;
        let policies = self.engine.evaluate(&packs, &graph)?;
        let (mut gate, mut gate_reasons) = gate::decide(&claims, &policies);
        let summary = Summary::of(&claims);
        if let (Some(min), Some(score)) = (self.min_support, summary.support_score)
            && score < min
        {
            gate = gate.max(Gate::Review);
            gate_reasons.push(format!("the support score {score} is below the minimum {min}"));
        }
        Ok(Report { output_id: graph.output_id.clone(), gate, gate_reasons, summary, claims, policies, graph, packs_run: packs })
    }
}

/// A check against a store: where the claims' facts are looked up, and — when chunks were
/// retrieved rather than whole documents read — which chunks each claim retrieved and how
/// many chunks were searched.
struct StoreSide<'a> {
    store: &'a dyn warrant_store::Store,
    vocab: &'a warrant_facts::Vocabulary,
    searched: Option<(&'a store::ChunkScope, usize)>,
}

/// The answer's graph (with the answer claim when there is a question) and the question.
/// A short answer in the shapes most answers have (amounts, a date, a name, a denial, an
/// instruction, a hedge), checked by [`warm_up`].
const WARM_UP: &str = "Session tokens expire after 30 minutes. The API was released on 12 March 2024 \
    by Acme Corp. Refunds are not available after 14 days. Set the TTL to 300 seconds. \
    It might rain tomorrow.";

/// Compiles, on the calling thread, the patterns most checks need first (extraction's) and
/// last (the built-in vocabulary's, for the claims' facts: all its sentence patterns), by
/// extracting a short fixed answer and reading its facts. Each pattern is compiled once per
/// process (clones of the vocabulary share theirs), by whichever thread needs it first, so a
/// one-shot process can run this on a second core while it reads its input, opens its store
/// and retrieves, and its report does not change.
pub fn warm_up() {
    // The vocabulary's first: the caller extracts its answer meanwhile, compiling what that
    // needs itself, and reads the claims' facts last.
    let vocab = warrant_facts::Vocabulary::builtin();
    let _ = warrant_facts::extract_facts(&vocab, &warrant_facts::ChunkContext::new(WARM_UP, "warm-up", "warm-up#1", None));
    for entry in vocab.entries() {
        entry.patterns().iter().for_each(|p| {
            p.get();
        });
    }
    let answer = Answer { text: WARM_UP.to_string(), tool_calls: Vec::new(), context: None, id: None };
    let _ = extract(&answer, &warrant_extract::Options::default());
}

fn prepare(req: &Request<'_>) -> Result<(PredicateGraph, Option<String>), CheckError> {
    if req.answer.text.trim().is_empty() && req.answer.tool_calls.is_empty() {
        return Err(CheckError::EmptyAnswer);
    }
    let mut graph = extract(req.answer, &warrant_extract::Options { output_id: req.output_id.clone() }).graph;
    let question = req.question.map(str::to_string).or_else(|| graph.user_query().map(str::to_string));
    if let Some(q) = &question {
        add_answer_claim(&mut graph, q);
    }
    Ok((graph, question))
}

/// Records the verification in the graph's context (`claim_verification`, and the question as
/// `user_query` when it came from the caller), so policies and later readers see it.
fn attach(graph: &mut PredicateGraph, claims: &[ClaimResult], question: Option<&str>, corpus: &Corpus) {
    let mut results = Map::new();
    for c in claims {
        results.insert(c.claim_id.clone(), json!({"status": c.status.as_str(), "confidence": c.confidence, "reason": c.reason}));
    }
    let ctx = graph.context.get_or_insert_with(Map::new);
    ctx.insert(warrant_cpl::verification::CONTEXT_KEY.into(), Value::Object(results));
    if let Some(q) = question
        && !ctx.contains_key("user_query")
    {
        ctx.insert("user_query".into(), Value::String(q.into()));
    }
    // A document retrieved as several chunks is listed once.
    let mut seen = std::collections::HashSet::new();
    let ids: Vec<Value> =
        (0..corpus.len()).map(|i| &corpus.doc(i).id).filter(|id| seen.insert(*id)).map(|id| Value::String(id.clone())).collect();
    ctx.insert("sources".into(), Value::Array(ids));
}
pub use batch::parse_item;
pub use chunk_index::{ChunkIndex, PERSISTED as PERSISTED_CHUNK_INDEX};
pub use evidence::{evidence_pack, evidence_pack_with_model_calls};
pub use policy_input::{GraphError, extract_graph, is_broken_graph, is_graph, load_graph};
pub use render::{html, text};
pub use sources::{DEFAULT_MAX_SOURCE_BYTES, ingest_documents, ingest_sources};
pub use store::{CHUNKS_PER_CLAIM, Retrieved, apply_fact_signals, corpus_of_documents, retrieve};
