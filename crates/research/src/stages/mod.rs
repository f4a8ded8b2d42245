//! The five stages. Each reads payloads and writes one; nothing else passes between them.
//!
//! classify and execute are backend code only. route, assess and synthesize are traits
//! ([`Router`], [`Assessor`], [`Synthesizer`]) with deterministic implementations
//! ([`RuleRouter`], [`RuleAssessor`], [`RuleSynthesizer`]); a model-backed implementation
//! (see [`crate::llm`]) may replace any of them (D32). Whatever a stage returns is validated
//! like any other payload.

pub mod assess;
pub mod classify;
pub mod execute;
pub mod route;
pub mod synthesize;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use assess::{AssessConfig, AssessInput, Assessor, RuleAssessor};
pub use classify::{ClassifyConfig, classify};
pub use execute::{ExecuteInput, from_candidates, resolve_seed};
pub use route::{RouteInput, Router, RouterConfig, RuleRouter};
pub use synthesize::{RuleSynthesizer, Synthesis, SynthesisInput, Synthesizer, quote_back};

/// The topic and hints the chain is working on: the intent's, replaced on retighten (D31).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Working {
    /// The working topic.
    pub topic: String,
    /// The working hints.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hints: BTreeMap<String, String>,
}

/// Tokens a model reported for one call (zero for deterministic stages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: i64,
    /// Completion tokens.
    pub completion_tokens: i64,
}

impl Usage {
    /// Prompt plus completion.
    pub fn total(&self) -> i64 {
        self.prompt_tokens + self.completion_tokens
    }
}
