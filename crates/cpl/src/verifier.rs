//! Learned verifiers (D13): a rubric plus an LLM judge. Without a judge, rules that use a
//! verifier are skipped with the reason; a score is never synthesised.

use serde::Serialize;
use serde_json::Value;
use warrant_graph::PredicateGraph;

/// Why a verifier could not produce a score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// No rubric with this id is loaded.
    NotRegistered,
    /// The rubric is loaded but no judge is configured.
    NoJudge,
    /// The judge call failed.
    Failed(String),
    /// The judge's output does not match the rubric's `output_schema`.
    InvalidOutput,
}

impl Unavailable {
    /// The skip reason for verifier `id` (spec §3.6 wording).
    pub fn reason(&self, id: &str) -> String {
        match self {
            Self::NotRegistered => format!("verifier {id} not registered"),
            Self::NoJudge => format!("no judge configured for verifier {id}"),
            Self::Failed(e) => format!("verifier {id} failed: {e}"),
            Self::InvalidOutput => format!("verifier {id} returned output that does not match its output_schema"),
        }
    }
}

/// One meta-verification check (spec §7.2) and its outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MetaCheck {
    /// `output_schema`, `reasoning_coherent`, `score_consistent`, `issues_actionable`.
    pub check: &'static str,
    /// `passed`, `failed` or `not_performed`.
    pub status: &'static str,
    /// Why, when it failed or was not performed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What a verifier produced: its score, the judge's validated output, and how it was made.
/// Listed in the run result (`verifier_runs`) so a reader sees the evidence behind a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VerifierRun {
    /// The verifier.
    pub verifier_id: String,
    /// The score in [0, 1].
    pub score: f64,
    /// The judge's output, validated against the rubric's `output_schema`.
    pub output: Value,
    /// Meta-verification, when the rubric asks for it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meta_verification: Vec<MetaCheck>,
    /// `llm`: the score comes from a model, not from rules.
    pub method: &'static str,
    /// The judge's model.
    pub model: String,
    /// The prompt id.
    pub prompt: String,
}

/// Where verifier scores come from.
pub trait VerifierRegistry: Send + Sync {
    /// True when a rubric with this id is registered (used for load-time warnings).
    fn is_registered(&self, id: &str) -> bool;
    /// Runs verifier `id` on the whole graph and returns its score in [0, 1].
    fn score(&self, id: &str, graph: &PredicateGraph) -> Result<f64, Unavailable>;
    /// Runs verifier `id` and returns its full output when the registry has one (a judge);
    /// `Ok(None)` when only a score is known.
    fn run(&self, id: &str, graph: &PredicateGraph) -> Result<(f64, Option<VerifierRun>), Unavailable> {
        self.score(id, graph).map(|s| (s, None))
    }
}

/// Rubrics without a judge: every verifier is unavailable, with the precise reason.
#[derive(Debug, Clone, Default)]
pub struct RubricsWithoutJudge {
    ids: Vec<String>,
}

impl RubricsWithoutJudge {
    /// Registers rubric ids (no judge).
    pub fn new(ids: impl IntoIterator<Item = String>) -> Self {
        let mut ids: Vec<String> = ids.into_iter().collect();
        ids.sort();
        ids.dedup();
        Self { ids }
    }
}

impl VerifierRegistry for RubricsWithoutJudge {
    fn is_registered(&self, id: &str) -> bool {
        self.ids.binary_search_by(|x| x.as_str().cmp(id)).is_ok()
    }

    fn score(&self, id: &str, _graph: &PredicateGraph) -> Result<f64, Unavailable> {
        Err(if self.is_registered(id) { Unavailable::NoJudge } else { Unavailable::NotRegistered })
    }
}
