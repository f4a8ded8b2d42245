//! assess (spec §6.6): is the evidence sufficient? If not, what to look for next.

use crate::payload::{AssessmentOutput, ExecutionOutput, Intent};
use crate::stages::{Usage, Working};
use crate::text::Terms;

/// What an assessor sees.
#[derive(Debug, Clone, Copy)]
pub struct AssessInput<'a> {
    /// The validated intent.
    pub intent: &'a Intent,
    /// The working topic and hints.
    pub working: &'a Working,
    /// The latest execution output.
    pub execution: Option<&'a ExecutionOutput>,
    /// The route action executed.
    pub action: &'a str,
}

/// An assess stage. It never fails the chain: a failing assessor returns a degraded,
/// insufficient output.
pub trait Assessor: Send + Sync {
    /// Assesses the evidence.
    fn assess(&self, input: &AssessInput<'_>) -> (AssessmentOutput, Usage);
}

/// Deterministic assessor thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AssessConfig {
    /// Least evidence items (default 1).
    pub min_evidence: usize,
    /// Least share of topic terms covered (default 0.6).
    pub min_coverage: f64,
}

impl Default for AssessConfig {
    fn default() -> Self {
        Self { min_evidence: 1, min_coverage: 0.6 }
    }
}

/// Coverage of the topic's terms by evidence: `(covered terms, uncovered terms in topic order)`.
/// A term is covered by a token of an item's id or snippet, or by a token with its stem
/// ("retries" by "retried").
pub fn coverage(topic: &str, execution: &ExecutionOutput) -> (Vec<String>, Vec<String>) {
    Terms::of(topic).split_covered(execution.evidence.iter().flat_map(|e| [e.entity_id.as_str(), e.snippet_text.as_str()]))
}

/// The deterministic assessor (D32).
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleAssessor {
    /// Thresholds.
    pub config: AssessConfig,
}

impl Assessor for RuleAssessor {
    fn assess(&self, input: &AssessInput<'_>) -> (AssessmentOutput, Usage) {
        let topic = &input.working.topic;
        let Some(exec) = input.execution else {
            let out = AssessmentOutput {
                topic: topic.clone(),
                degraded: true,
                degraded_reason: "missing execution output".into(),
                ..AssessmentOutput::default()
            };
            return (out, Usage::default());
        };
        let (covered, missing) = coverage(topic, exec);
        let total = covered.len() + missing.len();
        let cov = if total == 0 { 1.0 } else { covered.len() as f64 / total as f64 };
        let n = exec.evidence.len();
        let sufficient = n >= self.config.min_evidence && cov >= self.config.min_coverage;
        let mut refined: Vec<String> = Vec::new();
        if !sufficient && !missing.is_empty() {
            for q in std::iter::once(missing.join(" ")).chain(missing.iter().cloned()) {
                if refined.len() < 3 && !refined.contains(&q) {
                    refined.push(q);
                }
            }
        }
        let out = AssessmentOutput {
            topic: topic.clone(),
            sufficient,
            refined_queries: refined,
            rationale: format!("covered {}/{} topic terms; {n} evidence items", covered.len(), total),
            confidence: (cov * 100.0).round() / 100.0,
            evidence_count: n as i64,
            degraded: exec.degraded,
            degraded_reason: exec.degraded_reason.clone(),
        };
        (out, Usage::default())
    }
}
