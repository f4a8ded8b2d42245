//! Learned verifiers (D13): a rubric plus an LLM judge. Without a judge, rules that use a
//! verifier are skipped with the reason; a score is never synthesised.

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

/// Where verifier scores come from.
pub trait VerifierRegistry: Send + Sync {
    /// True when a rubric with this id is registered (used for load-time warnings).
    fn is_registered(&self, id: &str) -> bool;
    /// Runs verifier `id` on the whole graph and returns its score in [0, 1].
    fn score(&self, id: &str, graph: &PredicateGraph) -> Result<f64, Unavailable>;
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
