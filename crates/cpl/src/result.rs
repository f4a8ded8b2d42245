//! Evaluation results, in the pack-result format of spec §5.4.

use serde::Serialize;
use warrant_graph::Severity;

/// One failed rule instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Violation {
    /// The rule that failed.
    pub rule_id: String,
    /// The failing element of a top-level `forall`; `null` otherwise (D7).
    pub node_id: Option<String>,
    /// `<policy>/<rule> failed on <node|graph>: <atom> is <false|true>[; <diagnostic>]`.
    pub message: String,
    /// The rule's severity.
    pub severity: Severity,
    /// What the failing predicate reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
}

/// A rule that was not evaluated (D13).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkippedRule {
    /// The rule.
    pub rule_id: String,
    /// Why it was skipped.
    pub reason: String,
}

/// One policy's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PolicyResult {
    /// The policy.
    pub policy_id: String,
    /// No `error` violation (and, under `--strict`, no `warning` one).
    pub passed: bool,
    /// Violations in rule order, then element order.
    pub violations: Vec<Violation>,
    /// Rules not evaluated.
    pub skipped_rules: Vec<SkippedRule>,
}

/// One pack's outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PackResult {
    /// The pack.
    pub pack_id: String,
    /// Every policy passed.
    pub passed: bool,
    /// Per policy, in order.
    pub policy_results: Vec<PolicyResult>,
}

/// A note about the run (lints of the graph, tool-schema overrides, load warnings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunDiagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// What it is about: `graph`, `tools`, or a pack id.
    pub source: String,
    /// JSON pointer within that source, if any.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// The note.
    pub message: String,
}

/// Several packs over one graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunResult {
    /// The graph's `output_id`.
    pub output_id: String,
    /// Every requested pack passed.
    pub passed: bool,
    /// Whether warnings failed policies.
    pub strict: bool,
    /// Pack results in evaluation order (dependencies first).
    pub packs: Vec<PackResult>,
    /// Notes about the run.
    pub diagnostics: Vec<RunDiagnostic>,
    /// What each verifier that ran produced (by verifier id); absent when none ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verifier_runs: Vec<crate::verifier::VerifierRun>,
}

impl RunResult {
    /// Every violation as `(pack, policy, violation)`, in order.
    pub fn violations(&self) -> impl Iterator<Item = (&str, &str, &Violation)> {
        self.packs.iter().flat_map(|p| {
            p.policy_results
                .iter()
                .flat_map(move |r| r.violations.iter().map(move |v| (p.pack_id.as_str(), r.policy_id.as_str(), v)))
        })
    }
}
