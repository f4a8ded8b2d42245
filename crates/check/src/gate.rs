//! One decision per answer: `block`, `review` or `allow`, with the reasons.
//!
//! - `block` when a claim is contradicted by the sources or a policy rule of severity `error`
//!   fails;
//! - `review` when a factual claim is unsupported or only partially supported, or a rule of
//!   severity `warning` fires;
//! - `allow` otherwise.

use serde::Serialize;
use warrant_cpl::RunResult;
use warrant_graph::{Modality, Severity};
use warrant_verify::{ClaimResult, Status};

/// The decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// Nothing found against the answer.
    Allow,
    /// A person should look before it ships.
    Review,
    /// It should not ship.
    Block,
}

impl Gate {
    /// The gate's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Review => "review",
            Self::Block => "block",
        }
    }
}

/// Decides the gate from the claim results and the policy run; the reasons are listed in
/// order of weight (blocking first), then claim and policy order.
pub fn decide(claims: &[ClaimResult], policies: &RunResult) -> (Gate, Vec<String>) {
    let mut block = Vec::new();
    let mut review = Vec::new();
    for c in claims {
        let quote = c.support_edges.first().map(|e| format!(" ({})", e.source_id)).unwrap_or_default();
        match c.status {
            Status::Contradicted => block.push(format!("claim {} is contradicted{quote}: {}", c.claim_id, c.reason)),
            Status::Unsupported | Status::PartiallySupported if c.modality == Modality::Factual => {
                review.push(format!("claim {} is {}: {}", c.claim_id, c.status.as_str().replace('_', " "), c.reason));
            }
            _ => {}
        }
    }
    // A claim already listed at a level needs no second line from the grounding policies.
    let listed = |id: &Option<String>, level: Gate| {
        id.as_deref().is_some_and(|id| {
            claims.iter().any(|c| {
                c.claim_id == id
                    && match c.status {
                        Status::Contradicted => true,
                        Status::Unsupported | Status::PartiallySupported => {
                            level == Gate::Review && c.modality == Modality::Factual
                        }
                        _ => false,
                    }
            })
        })
    };
    for (pack, policy, v) in policies.violations() {
        let line = format!("{pack}/{policy}: {}", v.message);
        match v.severity {
            Severity::Error if !listed(&v.node_id, Gate::Block) => block.push(line),
            Severity::Warning if !listed(&v.node_id, Gate::Review) => review.push(line),
            _ => {}
        }
    }
    let gate = if !block.is_empty() {
        Gate::Block
    } else if !review.is_empty() {
        Gate::Review
    } else {
        Gate::Allow
    };
    block.append(&mut review);
    (gate, block)
}
