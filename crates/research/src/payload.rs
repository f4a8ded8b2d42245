//! The research payloads (spec §5, D30): Intent, ClassifierOutput + Candidate, RouteDecision
//! with its typed argument views, Evidence, ExecutionOutput, AssessmentOutput, DecompTrace and
//! SearchResult.
//!
//! JSON shapes are upstream's exactly: snake_case names, *omitempty* fields left out when they
//! hold their zero value, unknown fields ignored on decode, enums compared as exact strings
//! (never trimmed). `validate()` runs the checks in the spec's order and returns the first
//! failure; its message contains the spec's required text.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Default token budget of an intent (`budget_tokens` 0 or absent).
pub const DEFAULT_BUDGET_TOKENS: i64 = 4000;
/// Default refine-iteration cap of an intent (`max_iterations` 0 or absent).
pub const DEFAULT_MAX_ITERATIONS: i64 = 5;
/// The role a research run has (`agent.loop.role`).
pub const PIPELINE_ROLE: &str = "research_pipeline";

/// Router action: the candidates are enough, synthesise from them.
pub const ACTION_SYNTHESIZE_DIRECTLY: &str = "synthesize_directly";
/// Router action: reformulate the topic and classify again.
pub const ACTION_RETIGHTEN: &str = "retighten";
/// Router action: expand around named candidates.
pub const ACTION_WALK_SEEDS: &str = "walk_seeds";
/// Router action: typed sub-queries along axes.
pub const ACTION_DECOMPOSE: &str = "decompose";
/// Every router action, in the spec's order.
pub const ROUTE_ACTIONS: [&str; 4] = [ACTION_SYNTHESIZE_DIRECTLY, ACTION_RETIGHTEN, ACTION_WALK_SEEDS, ACTION_DECOMPOSE];

/// Seed reference types of `walk_seeds`.
pub const SEED_REF_TYPES: [&str; 3] = ["name", "partial_id", "candidate_index"];
/// Decompose scopes (`""` means medium).
pub const DECOMPOSE_SCOPES: [&str; 4] = ["", "narrow", "medium", "broad"];
/// Retrieval tiers.
pub const TIERS: [&str; 3] = ["0", "1", "2"];

/// Whether `s` is exactly one of the four router actions.
pub fn is_valid_route_action(s: &str) -> bool {
    ROUTE_ACTIONS.contains(&s)
}

/// Whether `s` is exactly one of the seed reference types.
pub fn is_valid_seed_ref_type(s: &str) -> bool {
    SEED_REF_TYPES.contains(&s)
}

/// Whether `s` is a decompose scope (`""` included).
pub fn is_valid_decompose_scope(s: &str) -> bool {
    DECOMPOSE_SCOPES.contains(&s)
}

/// Whether `s` is a retrieval tier `"0"`, `"1"` or `"2"`.
pub fn is_valid_tier(s: &str) -> bool {
    TIERS.contains(&s)
}

/// Why a payload is invalid: the payload's name and the spec's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{payload}: {message}")]
pub struct ValidationError {
    /// The payload (`intent`, `route_decision`, …).
    pub payload: &'static str,
    /// What is wrong (contains the spec's required text).
    pub message: String,
}

impl ValidationError {
    fn new(payload: &'static str, message: impl Into<String>) -> Self {
        Self { payload, message: message.into() }
    }
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// Go-style decoding: `null` reads as the zero value.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

fn is_false(v: &bool) -> bool {
    !*v
}

/// A go-style `%v` rendering of a float (`0.5`, `-1`, `1e+21`).
pub(crate) fn fmt_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e21 { format!("{}", x as i64) } else { format!("{x}") }
}

// ---------------------------------------------------------------------------------------------
// Intent
// ---------------------------------------------------------------------------------------------

/// What a caller asks (`research.intent.v1`): a topic, optional hints, a token budget and a
/// refine-iteration cap. 0 means "default" for both numbers (4000 and 5).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Intent {
    /// The topic to research.
    #[serde(default, deserialize_with = "nullable")]
    pub topic: String,
    /// Free hints (`time_range`, `path_predicates`, …).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "BTreeMap::is_empty")]
    pub hints: BTreeMap<String, String>,
    /// Evidence token budget (0 ⇒ 4000).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub budget_tokens: i64,
    /// Refine-iteration cap (0 ⇒ 5).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub max_iterations: i64,
}

impl Intent {
    /// An intent for a topic, with defaults.
    pub fn new(topic: impl Into<String>) -> Self {
        Self { topic: topic.into(), ..Self::default() }
    }

    /// The intent if it validates (spec §5.1; hints: no blank key or value); the message
    /// says which part is wrong.
    pub fn checked(self) -> Result<Self, String> {
        self.validate().map_err(|e| e.to_string())?;
        crate::hints::check(&self.hints).map_err(|e| format!("intent: {e}"))?;
        Ok(self)
    }

    /// Spec §5.1: topic, hints in sorted key order, budget, iterations.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError::new("intent", m));
        if blank(&self.topic) {
            return err("topic required".into());
        }
        for (k, v) in &self.hints {
            if blank(k) {
                return err("hints contains an empty key".into());
            }
            if blank(v) {
                return err(format!("hints[\"{k}\"] is empty; omit the key instead"));
            }
        }
        if self.budget_tokens < 0 {
            return err(format!("budget_tokens must be >= 0, got {}", self.budget_tokens));
        }
        if self.max_iterations < 0 {
            return err(format!("max_iterations must be >= 0, got {}", self.max_iterations));
        }
        Ok(())
    }

    /// The budget with the default applied.
    pub fn resolved_budget_tokens(&self) -> i64 {
        if self.budget_tokens == 0 { DEFAULT_BUDGET_TOKENS } else { self.budget_tokens }
    }

    /// The iteration cap with the default applied.
    pub fn resolved_max_iterations(&self) -> i64 {
        if self.max_iterations == 0 { DEFAULT_MAX_ITERATIONS } else { self.max_iterations }
    }

    /// The intent with both defaults written out (as persisted, spec §4 step 2).
    pub fn resolved(&self) -> Self {
        Self { budget_tokens: self.resolved_budget_tokens(), max_iterations: self.resolved_max_iterations(), ..self.clone() }
    }
}

// ---------------------------------------------------------------------------------------------
// Candidate and ClassifierOutput
// ---------------------------------------------------------------------------------------------

/// A candidate entity the classifier found (spec §5.2).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Candidate {
    /// Full entity id (six dotted parts).
    #[serde(default, deserialize_with = "nullable")]
    pub entity_id: String,
    /// Human label.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Entity type.
    #[serde(default, rename = "type", deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub entity_type: String,
    /// Score within the tier (higher is better).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_f64")]
    pub relevance: f64,
    /// A snippet of the entity's text.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub snippet_text: String,
    /// Retrieval tier `"0"`, `"1"` or `"2"`.
    #[serde(default, deserialize_with = "nullable")]
    pub tier: String,
    /// Provenance label (`search_graph`).
    #[serde(default, deserialize_with = "nullable")]
    pub source: String,
}

/// The checks Candidate and Evidence share (spec §5.2, §5.5).
fn check_item(entity_id: &str, source: &str, tier: &str) -> Result<(), String> {
    if blank(entity_id) {
        return Err("entity_id required".into());
    }
    if blank(source) {
        return Err("source required".into());
    }
    if !is_valid_tier(tier) {
        return Err(format!("tier \"{tier}\" must be \"0\", \"1\", or \"2\""));
    }
    Ok(())
}

impl Candidate {
    /// Spec §5.2.
    pub fn validate(&self) -> Result<(), ValidationError> {
        check_item(&self.entity_id, &self.source, &self.tier).map_err(|m| ValidationError::new("candidate", m))
    }
}

/// What classify found for the working topic (`research.classifier_output.v1`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ClassifierOutput {
    /// The topic that was classified.
    #[serde(default, deserialize_with = "nullable")]
    pub topic: String,
    /// Classifier tier (`"0"` keyword, `"1"` BM25, `"3"` LLM); not validated.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub tier: String,
    /// Intent label.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub intent: String,
    /// Confidence (≥ 0).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_f64")]
    pub confidence: f64,
    /// Classifier options derived from the topic and hints.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "BTreeMap::is_empty")]
    pub hints: BTreeMap<String, Value>,
    /// Candidates in canonical order (relevance descending, then id).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<Candidate>,
    /// The search backend reported degradation.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_false")]
    pub degraded: bool,
    /// Why.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub degraded_reason: String,
}

impl ClassifierOutput {
    /// Spec §5.3.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError::new("classifier_output", m));
        if blank(&self.topic) {
            return err("topic required".into());
        }
        for (i, c) in self.candidates.iter().enumerate() {
            if let Err(m) = check_item(&c.entity_id, &c.source, &c.tier) {
                return err(format!("candidates[{i}]: {m}"));
            }
        }
        if self.confidence < 0.0 {
            return err(format!("confidence must be >= 0, got {}", fmt_float(self.confidence)));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// RouteDecision and its typed views
// ---------------------------------------------------------------------------------------------

/// The router's choice (`research.route_decision.v1`). Decoding rejects a non-empty action
/// outside the enum; an empty one decodes and is caught by [`RouteDecision::validate`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(try_from = "RawRouteDecision")]
pub struct RouteDecision {
    /// One of [`ROUTE_ACTIONS`].
    pub action: String,
    /// Loosely typed arguments; read them through the `parse_*_args` views.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub args: BTreeMap<String, Value>,
    /// Free text; never branched on.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub rationale: String,
}

#[derive(Deserialize)]
struct RawRouteDecision {
    #[serde(default, deserialize_with = "nullable")]
    action: String,
    #[serde(default, deserialize_with = "nullable")]
    args: BTreeMap<String, Value>,
    #[serde(default, deserialize_with = "nullable")]
    rationale: String,
}

impl TryFrom<RawRouteDecision> for RouteDecision {
    type Error = String;
    fn try_from(r: RawRouteDecision) -> Result<Self, String> {
        if !r.action.is_empty() && !is_valid_route_action(&r.action) {
            return Err(format!("route_decision: action \"{}\" is not a canonical router action", r.action));
        }
        Ok(Self { action: r.action, args: r.args, rationale: r.rationale })
    }
}

/// `decompose` arguments: axes to split along, a focus, a scope.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DecomposeArgs {
    /// Axes (`entity_type`, `time`, `predicate`, `spatial`, or free words).
    #[serde(default, deserialize_with = "nullable")]
    pub axes: Vec<String>,
    /// What the sub-queries focus on.
    #[serde(default, deserialize_with = "nullable")]
    pub focus: String,
    /// `narrow`, `medium`, `broad` or `""` (medium).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub scope: String,
}

/// One seed reference of `walk_seeds`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SeedRef {
    /// The reference (a name, a dotted id suffix, or a candidate index).
    #[serde(rename = "ref", default, deserialize_with = "nullable")]
    pub reference: String,
    /// `name`, `partial_id` or `candidate_index`.
    #[serde(default, deserialize_with = "nullable")]
    pub ref_type: String,
}

/// `walk_seeds` arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WalkSeedsArgs {
    /// Seeds to expand around.
    #[serde(default, deserialize_with = "nullable")]
    pub seeds: Vec<SeedRef>,
}

/// `retighten` arguments: the reformulated topic and hints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RetightenArgs {
    /// The new topic.
    #[serde(default, deserialize_with = "nullable")]
    pub topic: String,
    /// New hints (kept from the working state when empty).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "BTreeMap::is_empty")]
    pub hints: BTreeMap<String, String>,
}

/// Why a route argument view failed (message prefixed with `<action> args: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{action} args: {message}")]
pub struct ArgsError {
    /// The view's action.
    pub action: &'static str,
    /// What is wrong.
    pub message: String,
}

impl RouteDecision {
    /// A decision with typed args (serialised into the loose map).
    pub fn new(action: &str, args: &impl Serialize, rationale: impl Into<String>) -> Self {
        let args = match serde_json::to_value(args) {
            Ok(Value::Object(m)) => m.into_iter().collect(),
            _ => BTreeMap::new(),
        };
        Self { action: action.into(), args, rationale: rationale.into() }
    }

    /// Spec §5.4.
    pub fn validate(&self) -> Result<(), ValidationError> {
        if blank(&self.action) {
            return Err(ValidationError::new("route_decision", "action required"));
        }
        if !is_valid_route_action(&self.action) {
            return Err(ValidationError::new(
                "route_decision",
                format!("action \"{}\" is not a canonical router action", self.action),
            ));
        }
        Ok(())
    }

    fn view<T: DeserializeOwned + Default>(&self, action: &'static str) -> Result<T, ArgsError> {
        let err = |m: String| ArgsError { action, message: m };
        if self.action != action {
            return Err(err(format!("action is \"{}\", want \"{action}\"", self.action)));
        }
        if self.args.is_empty() {
            return Ok(T::default());
        }
        let v = Value::Object(self.args.clone().into_iter().collect());
        serde_json::from_value(v).map_err(|e| err(format!("decode: {e}")))
    }

    /// The `decompose` view: axes required and non-blank, focus required, a known scope.
    pub fn parse_decompose_args(&self) -> Result<DecomposeArgs, ArgsError> {
        let a: DecomposeArgs = self.view(ACTION_DECOMPOSE)?;
        let err = |m: String| Err(ArgsError { action: ACTION_DECOMPOSE, message: m });
        if a.axes.is_empty() {
            return err("axes required".into());
        }
        if let Some(i) = a.axes.iter().position(|x| blank(x)) {
            return err(format!("axes[{i}] is empty"));
        }
        if blank(&a.focus) {
            return err("focus required".into());
        }
        if !is_valid_decompose_scope(&a.scope) {
            return err(format!("scope \"{}\" must be \"narrow\", \"medium\", \"broad\" or empty", a.scope));
        }
        Ok(a)
    }

    /// The `walk_seeds` view: at least one seed, each with a ref and a canonical type.
    pub fn parse_walk_seeds_args(&self) -> Result<WalkSeedsArgs, ArgsError> {
        let a: WalkSeedsArgs = self.view(ACTION_WALK_SEEDS)?;
        let err = |m: String| Err(ArgsError { action: ACTION_WALK_SEEDS, message: m });
        if a.seeds.is_empty() {
            return err("seeds required".into());
        }
        for (i, s) in a.seeds.iter().enumerate() {
            if blank(&s.reference) {
                return err(format!("seeds[{i}].ref is empty"));
            }
            if !is_valid_seed_ref_type(&s.ref_type) {
                return err(format!("seeds[{i}].ref_type \"{}\" is not a canonical value", s.ref_type));
            }
        }
        Ok(a)
    }

    /// The `retighten` view: a topic; hint values non-blank (keys are not checked here).
    pub fn parse_retighten_args(&self) -> Result<RetightenArgs, ArgsError> {
        let a: RetightenArgs = self.view(ACTION_RETIGHTEN)?;
        let err = |m: String| Err(ArgsError { action: ACTION_RETIGHTEN, message: m });
        if blank(&a.topic) {
            return err("topic required".into());
        }
        for (k, v) in &a.hints {
            if blank(v) {
                return err(format!("hints[\"{k}\"] is empty"));
            }
        }
        Ok(a)
    }
}

// ---------------------------------------------------------------------------------------------
// Evidence, ExecutionOutput, AssessmentOutput
// ---------------------------------------------------------------------------------------------

/// One piece of fused evidence (spec §5.5).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Evidence {
    /// Full entity id.
    #[serde(default, deserialize_with = "nullable")]
    pub entity_id: String,
    /// Retrieval tier.
    #[serde(default, deserialize_with = "nullable")]
    pub tier: String,
    /// Sub-query provenance (`walk_seeds.entity_state`, …).
    #[serde(default, deserialize_with = "nullable")]
    pub source: String,
    /// Score (absent counts as 0).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_f64")]
    pub score: f64,
    /// The evidence text.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub snippet_text: String,
    /// A stored document or chunk the text comes from (Warrant: a chunk id `doc#n`).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub objectstore_ref: String,
}

impl Evidence {
    /// Spec §5.5 (the Candidate checks).
    pub fn validate(&self) -> Result<(), ValidationError> {
        check_item(&self.entity_id, &self.source, &self.tier).map_err(|m| ValidationError::new("evidence", m))
    }

    /// The fusion cost of this item (spec §6.5): `max(1, utf8 bytes of id + snippet + source +
    /// ref, divided by 4)`.
    pub fn token_cost(&self) -> i64 {
        let bytes = self.entity_id.len() + self.snippet_text.len() + self.source.len() + self.objectstore_ref.len();
        ((bytes / 4) as i64).max(1)
    }
}

/// What execute produced (`research.execution_output.v1`). Decoding is lenient.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExecutionOutput {
    /// The working topic.
    #[serde(default, deserialize_with = "nullable")]
    pub topic: String,
    /// The routed action (may be empty when degraded).
    #[serde(default, deserialize_with = "nullable")]
    pub action: String,
    /// Ranked, deduplicated evidence within the budget.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// Sub-queries materialised.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub subquery_count: i64,
    /// Something went wrong; the chain continues.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_false")]
    pub degraded: bool,
    /// Why (reasons joined by `; `).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub degraded_reason: String,
    /// Token cost of the kept evidence.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub budget_tokens_used: i64,
}

impl ExecutionOutput {
    /// Spec §5.7.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError::new("execution_output", m));
        if self.topic.is_empty() {
            return err("topic required".into());
        }
        if !self.action.is_empty() && !is_valid_route_action(&self.action) {
            return err(format!("action \"{}\" is not a canonical router action", self.action));
        }
        if self.action.is_empty() && !self.degraded {
            return err("action required when not Degraded".into());
        }
        for (i, e) in self.evidence.iter().enumerate() {
            if let Err(m) = check_item(&e.entity_id, &e.source, &e.tier) {
                return err(format!("evidence[{i}]: {m}"));
            }
        }
        if self.subquery_count < 0 {
            return err(format!("subquery_count must be >= 0, got {}", self.subquery_count));
        }
        if self.budget_tokens_used < 0 {
            return err(format!("budget_tokens_used must be >= 0, got {}", self.budget_tokens_used));
        }
        Ok(())
    }

    /// A degraded output with no evidence.
    pub fn degraded(topic: &str, action: &str, reason: impl Into<String>) -> Self {
        Self { topic: topic.into(), action: action.into(), degraded: true, degraded_reason: reason.into(), ..Self::default() }
    }

    /// Appends a degradation reason (separator `; `).
    pub fn add_degradation(&mut self, reason: &str) {
        self.degraded = true;
        if !self.degraded_reason.is_empty() {
            self.degraded_reason.push_str("; ");
        }
        self.degraded_reason.push_str(reason);
    }
}

/// Whether the evidence suffices (`research.assessment_output.v1`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssessmentOutput {
    /// The working topic.
    #[serde(default, deserialize_with = "nullable")]
    pub topic: String,
    /// Enough evidence? Always written.
    #[serde(default, deserialize_with = "nullable")]
    pub sufficient: bool,
    /// Queries for what is missing.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub refined_queries: Vec<String>,
    /// Free text; never branched on.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub rationale: String,
    /// In [0,1].
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_f64")]
    pub confidence: f64,
    /// Evidence items assessed.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub evidence_count: i64,
    /// Copied from the execution (or set by a failing assessor).
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_false")]
    pub degraded: bool,
    /// Why.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub degraded_reason: String,
}

impl AssessmentOutput {
    /// Spec §5.8.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError::new("assessment_output", m));
        if blank(&self.topic) {
            return err("topic required".into());
        }
        if let Some(i) = self.refined_queries.iter().position(|q| blank(q)) {
            return err(format!("refined_queries[{i}] is empty"));
        }
        if !(0.0..=1.0).contains(&self.confidence) {
            return err(format!("confidence must be in [0,1], got {}", fmt_float(self.confidence)));
        }
        if self.evidence_count < 0 {
            return err(format!("evidence_count must be >= 0, got {}", self.evidence_count));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// DecompTrace and SearchResult
// ---------------------------------------------------------------------------------------------

/// How the answer was decomposed (spec §5.9; no Validate).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DecompTrace {
    /// The final route action.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub router_action: String,
    /// `{axes, focus, scope}` for decompose.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub sub_queries: Vec<BTreeMap<String, Value>>,
    /// The raw seed refs as the router wrote them.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub seed_entities: Vec<String>,
    /// Retighten rounds of the run.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub retighten_rounds: i64,
}

impl DecompTrace {
    /// True when every field is empty (the trace is then omitted).
    pub fn is_empty(&self) -> bool {
        self.router_action.is_empty()
            && self.sub_queries.is_empty()
            && self.seed_entities.is_empty()
            && self.retighten_rounds == 0
    }

    /// Builds the trace from the final route decision, else from the execution's action.
    pub fn build(route: Option<&RouteDecision>, exec: Option<&ExecutionOutput>, retighten_rounds: i64) -> Self {
        let mut t = Self { retighten_rounds, ..Self::default() };
        match route {
            Some(rd) => {
                t.router_action = rd.action.clone();
                if let Ok(a) = rd.parse_walk_seeds_args() {
                    t.seed_entities = a.seeds.into_iter().map(|s| s.reference).collect();
                }
                if let Ok(a) = rd.parse_decompose_args() {
                    let mut m = BTreeMap::new();
                    m.insert("axes".to_string(), Value::from(a.axes));
                    m.insert("focus".to_string(), Value::from(a.focus));
                    m.insert("scope".to_string(), Value::from(a.scope));
                    t.sub_queries.push(m);
                }
            }
            None => {
                if let Some(e) = exec {
                    t.router_action = e.action.clone();
                }
            }
        }
        t
    }
}

fn nonempty_trace<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DecompTrace>, D::Error> {
    Ok(Option::<DecompTrace>::deserialize(d)?.filter(|t| !t.is_empty()))
}

fn trace_is_empty(t: &Option<DecompTrace>) -> bool {
    t.as_ref().is_none_or(DecompTrace::is_empty)
}

/// The answer (`research.result.v1`): the synthesis and the evidence it cites.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SearchResult {
    /// Only the items the synthesis cited.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// The answer text.
    #[serde(default, deserialize_with = "nullable")]
    pub synthesis: String,
    /// How the answer was decomposed (an empty trace reads as absent, as it is written).
    #[serde(default, deserialize_with = "nonempty_trace", skip_serializing_if = "trace_is_empty")]
    pub decomp_trace: Option<DecompTrace>,
    /// Evidence token cost plus reported LLM tokens.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub tokens_used: i64,
    /// Execute→assess rounds.
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero_i64")]
    pub iterations: i64,
}

/// Prefix of every degraded (failed) result's synthesis.
pub const DEGRADED_PREFIX: &str = "Synthesis could not be produced for topic";

impl SearchResult {
    /// Spec §5.10.
    pub fn validate(&self) -> Result<(), ValidationError> {
        let err = |m: String| Err(ValidationError::new("result", m));
        if blank(&self.synthesis) {
            return err("synthesis required".into());
        }
        for (i, e) in self.evidence.iter().enumerate() {
            if let Err(m) = check_item(&e.entity_id, &e.source, &e.tier) {
                return err(format!("evidence[{i}]: {m}"));
            }
        }
        if self.tokens_used < 0 {
            return err(format!("tokens_used must be >= 0, got {}", self.tokens_used));
        }
        if self.iterations < 0 {
            return err(format!("iterations must be >= 0, got {}", self.iterations));
        }
        Ok(())
    }

    /// The result of a failed chain (spec §5.10): no evidence, the reason in the synthesis.
    pub fn degraded(topic: &str, reason: &str) -> Self {
        Self { synthesis: format!("{DEGRADED_PREFIX} {topic}. Reason: {reason}"), ..Self::default() }
    }
}

impl fmt::Display for SearchResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.synthesis)
    }
}
