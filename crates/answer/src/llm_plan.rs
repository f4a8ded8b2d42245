//! Question planning by a model (`warrant ask --llm-plan`, spec §8.1: "a plan produced by an
//! LLM is validated the same way").
//!
//! The model gets the question, the vocabulary's predicates, the predicates rules derive and
//! the params rules read ([`prompts::ASK_PLAN`]), and must reply with a [`QueryPlan`]. The
//! reply is validated like a supplied plan ([`QueryPlan::from_json`]: strict keys, types) and
//! further checked against what this answerer knows: every predicate (in `predicates` and in
//! the goal) must be a vocabulary predicate or one a rule concludes, and every param must be one
//! a rule declares. A rejected reply is repaired once ([`warrant_llm::complete_json`]); a
//! second rejection, or a failed call, falls back to the deterministic planner, and the
//! answer says why ([`PlanSource::Degraded`]).

use std::collections::BTreeSet;

use serde_json::Value;
use warrant_facts::Vocabulary;
use warrant_llm::one_line;
use warrant_llm::{Llm, complete_json, prompts};
use warrant_store::StoreError;

use crate::engine::Answerer;
use crate::plan::QueryPlan;
use crate::rules::{ParamUnit, RuleLibrary};

/// The stage name model calls are logged under.
pub const STAGE: &str = "ask.plan";

/// Where a plan came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanSource {
    /// The model's plan, validated (after a repair when `repaired`).
    Model {
        /// The model asked.
        model: String,
        /// True when the first reply was rejected and the repaired one accepted.
        repaired: bool,
    },
    /// The model's plan was unusable; the deterministic planner's plan was used.
    Degraded {
        /// Why (one line).
        reason: String,
    },
}

impl PlanSource {
    /// The diagnostic line the answer carries (first in its diagnostics).
    pub fn diagnostic(&self) -> String {
        match self {
            Self::Model { model, repaired: false } => format!("plan: from the model {model} ({})", prompts::ASK_PLAN.id),
            Self::Model { model, repaired: true } => {
                format!("plan: from the model {model} ({}), after one repair", prompts::ASK_PLAN.id)
            }
            Self::Degraded { reason } => format!("plan: degraded: {reason}; the rule planner's plan was used"),
        }
    }

    /// The degraded reason, if the plan degraded.
    pub fn degraded(&self) -> Option<&str> {
        match self {
            Self::Degraded { reason } => Some(reason),
            Self::Model { .. } => None,
        }
    }
}

fn unit_name(u: ParamUnit) -> &'static str {
    match u {
        ParamUnit::Minutes => "minutes (a number)",
        ParamUnit::Number => "a number",
        ParamUnit::Timestamp => "an RFC 3339 date or timestamp (a string)",
        ParamUnit::String => "a string",
    }
}

/// The prompt for `question` (vocabulary and rule library in their own order).
pub fn prompt(answerer: &Answerer<'_>, question: &str) -> String {
    let predicates: Vec<String> = answerer
        .vocabulary()
        .entries()
        .iter()
        .map(|e| format!("- {}: {}, {}", e.id, e.arg_types[0].as_str(), e.arg_types[1].as_str()))
        .collect();
    let mut rules = Vec::new();
    let mut params = Vec::new();
    let mut seen = BTreeSet::new();
    for r in answerer.rules().rules() {
        let body: Vec<&str> = r.body.iter().map(|b| b.predicate.as_str()).collect();
        let names: Vec<&str> = r.params.iter().map(|p| p.name.as_str()).collect();
        let needs = if names.is_empty() { String::new() } else { format!("; params {}", names.join(", ")) };
        rules.push(format!("- {}: reads {}{needs}", r.head.predicate, body.join(", ")));
        for p in &r.params {
            if seen.insert(p.name.clone()) {
                params.push(format!("- {}: {}", p.name, unit_name(p.unit)));
            }
        }
    }
    let or_none = |v: Vec<String>| if v.is_empty() { "(none)".to_string() } else { v.join("\n") };
    prompts::render(
        prompts::ASK_PLAN,
        &[("predicates", &or_none(predicates)), ("rules", &or_none(rules)), ("params", &or_none(params)), ("question", question)],
    )
}

/// The stage's schema: a valid [`QueryPlan`] whose predicates and params this answerer knows.
/// Errors name a JSON pointer.
pub fn validate(answerer: &Answerer<'_>, v: &Value) -> Result<QueryPlan, String> {
    validate_plan(answerer.vocabulary(), answerer.rules(), v)
}

/// [`validate`] over a vocabulary and a rule library: the plan's predicates must be vocabulary
/// predicates or rule conclusions, its params ones a rule reads.
pub fn validate_plan(vocab: &Vocabulary, rules: &RuleLibrary, v: &Value) -> Result<QueryPlan, String> {
    check_plan(vocab, rules, v).map_err(|e| one_line(&e))
}

fn check_plan(vocab: &Vocabulary, rules: &RuleLibrary, v: &Value) -> Result<QueryPlan, String> {
    let knows = |p: &str| vocab.contains(p) || rules.concludes(p);
    let plan = QueryPlan::from_json(v).map_err(|e| e.to_string())?;
    for (i, p) in plan.predicate_list().iter().enumerate() {
        if !knows(p) {
            return Err(format!("/predicates/{i}: unknown predicate {p:?} (neither in the vocabulary nor concluded by a rule)"));
        }
    }
    if let Some(g) = &plan.goal
        && !knows(&g.predicate)
    {
        return Err(format!(
            "/goal/predicate: unknown predicate {:?} (neither in the vocabulary nor concluded by a rule)",
            g.predicate
        ));
    }
    let declared: BTreeSet<&str> = rules.rules().iter().flat_map(|r| r.params.iter().map(|p| p.name.as_str())).collect();
    for name in plan.params().keys() {
        if !declared.contains(name.as_str()) {
            return Err(format!("/params/{name}: unknown param (no rule reads it)"));
        }
    }
    Ok(plan)
}

/// Plans `question` with the model, falling back to the deterministic planner.
pub fn plan_with_model(answerer: &Answerer<'_>, llm: &Llm, question: &str) -> Result<(QueryPlan, PlanSource), StoreError> {
    match complete_json(llm, STAGE, &prompt(answerer, question), |v| validate(answerer, v)) {
        Ok(out) => Ok((out.value, PlanSource::Model { model: llm.model().to_string(), repaired: out.completions.len() > 1 })),
        Err(f) => Ok((answerer.plan(question)?, PlanSource::Degraded { reason: f.reason })),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn plans_are_checked_against_the_vocabulary_and_the_rules() {
        let (vocab, rules) = (Vocabulary::builtin(), RuleLibrary::builtin());
        let ok = |v: Value| validate_plan(&vocab, &rules, &v);
        let p = ok(json!({"subjects": ["Session tokens"], "predicates": ["expires_after", "session_expired"],
                          "params": {"inactivityMinutes": 20}}))
        .unwrap();
        assert_eq!(p.subject_list(), ["session_token"]);
        assert_eq!(ok(json!({})).unwrap(), QueryPlan::default());
        assert_eq!(
            ok(json!({"predicates": ["expires_after", "ttl"]})).unwrap_err(),
            "/predicates/1: unknown predicate \"ttl\" (neither in the vocabulary nor concluded by a rule)"
        );
        assert_eq!(ok(json!({"params": {"x": 1}})).unwrap_err(), "/params/x: unknown param (no rule reads it)");
        assert_eq!(
            ok(json!({"goal": {"predicate": "?p"}})).unwrap_err(),
            "/goal/predicate: the goal's predicate must be a constant, not a variable"
        );
        assert_eq!(ok(json!([])).unwrap_err(), "/: expected a plan object");
        assert!(!ok(json!({"a\nb": 1})).unwrap_err().contains('\n'));
    }

    #[test]
    fn diagnostics() {
        let m = PlanSource::Model { model: "m".into(), repaired: false };
        assert_eq!((m.diagnostic().as_str(), m.degraded()), ("plan: from the model m (ask.plan.v1)", None));
        let d = PlanSource::Degraded { reason: "ask.plan: boom".into() };
        assert_eq!(d.diagnostic(), "plan: degraded: ask.plan: boom; the rule planner's plan was used");
        assert_eq!(d.degraded(), Some("ask.plan: boom"));
    }
}
