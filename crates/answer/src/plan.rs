//! The QueryPlan (spec §8.1): what a question asks, in a form retrieval and derivation run on.
//!
//! ```json
//! { "version": "2.0",
//!   "subjects": ["session_token"],
//!   "predicates": ["expires_after"],
//!   "goal": {"subject": "session_token", "predicate": "expires_after", "object": "?answer"},
//!   "params": {"inactivityMinutes": 20} }
//! ```
//!
//! Every field is optional; unknown keys are refused. Subjects are canonicalised on load
//! ("Session tokens" → `session_token`). Predicates may name predicates outside the
//! vocabulary (the answer is then `unsupported`). Any goal value may be a variable `?name`.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};
use warrant_facts::canonical_entity;
use warrant_facts::{Signature, is_variable};

/// A plan that could not be read: a JSON pointer into it and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct PlanError {
    /// JSON pointer (`/subjects/1`), `/` for the plan itself.
    pub pointer: String,
    /// What was expected.
    pub message: String,
}

fn err(pointer: impl Into<String>, message: impl Into<String>) -> PlanError {
    let pointer = pointer.into();
    PlanError { pointer: if pointer.is_empty() { "/".into() } else { pointer }, message: message.into() }
}

/// The goal of a plan: a fact pattern whose values may be variables (`?name`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Goal {
    /// Subject (a constant is canonicalised on load unless it is a variable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<Value>,
    /// Predicate (required; a constant).
    pub predicate: String,
    /// Object: a constant or a variable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// Qualifiers the matched facts must carry (`version` compares after D22).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub qualifiers: BTreeMap<String, Value>,
}

impl Goal {
    /// A goal `{subject, predicate, object}`.
    pub fn new(subject: Value, predicate: &str, object: Value) -> Self {
        Self { subject: Some(subject), predicate: predicate.into(), object: Some(object), qualifiers: BTreeMap::new() }
    }

    /// The goal as a unification pattern (qualifiers become extra roles).
    pub fn signature(&self) -> Signature {
        let mut s = Signature::new();
        if let Some(v) = &self.subject {
            s = s.with("subject", v.clone());
        }
        s = s.with("predicate", self.predicate.clone());
        if let Some(v) = &self.object {
            s = s.with("object", v.clone());
        }
        for (k, v) in &self.qualifiers {
            s = s.with(k.clone(), v.clone());
        }
        s
    }

    /// The subject when it is a constant string.
    pub fn constant_subject(&self) -> Option<&str> {
        self.subject.as_ref().filter(|v| !is_variable(v)).and_then(Value::as_str)
    }

    /// The object when it is a constant.
    pub fn constant_object(&self) -> Option<&Value> {
        self.object.as_ref().filter(|v| !is_variable(v))
    }
}

/// A QueryPlan (spec §8.1). Serialises with absent fields left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueryPlan {
    /// Version the answer must come from (as written; compared after normalisation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Canonical subjects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subjects: Option<Vec<String>>,
    /// Predicate ids (may be outside the vocabulary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicates: Option<Vec<String>>,
    /// The goal to solve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal: Option<Goal>,
    /// Named parameters (numbers or strings), sorted by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<BTreeMap<String, Value>>,
}

const PLAN_KEYS: [&str; 5] = ["version", "subjects", "predicates", "goal", "params"];
const GOAL_KEYS: [&str; 4] = ["subject", "predicate", "object", "qualifiers"];

fn token(k: &str) -> String {
    k.replace('~', "~0").replace('/', "~1")
}

impl QueryPlan {
    /// Reads a plan from JSON text, naming the line and column of a syntax error.
    pub fn from_json_str(text: &str) -> Result<Self, PlanError> {
        let v: Value = serde_json::from_str(text)
            .map_err(|e| err("/", format!("line {} column {}: invalid JSON: {e}", e.line(), e.column())))?;
        Self::from_json(&v)
    }

    /// Reads and validates a plan (spec §8.1): wrong types, empty strings in `subjects` or
    /// `predicates`, a goal without `predicate`, params that are neither numbers nor strings,
    /// and unknown keys are refused with a JSON pointer.
    pub fn from_json(v: &Value) -> Result<Self, PlanError> {
        let Value::Object(m) = v else { return Err(err("", "expected a plan object")) };
        if let Some(k) = m.keys().find(|k| !PLAN_KEYS.contains(&k.as_str())) {
            return Err(err(format!("/{}", token(k)), format!("unknown key (expected {})", PLAN_KEYS.join(", "))));
        }
        let mut plan = QueryPlan::default();
        if let Some(v) = m.get("version") {
            plan.version = Some(match v {
                Value::String(s) if !s.trim().is_empty() => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => return Err(err("/version", "expected a non-empty string")),
            });
        }
        let strings = |key: &str| -> Result<Option<Vec<String>>, PlanError> {
            let Some(v) = m.get(key) else { return Ok(None) };
            let Value::Array(items) = v else { return Err(err(format!("/{key}"), "expected an array of strings")) };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(s) if !s.trim().is_empty() => out.push(s.to_string()),
                    Some(_) => return Err(err(format!("/{key}/{i}"), "empty string")),
                    None => return Err(err(format!("/{key}/{i}"), "expected a string")),
                }
            }
            Ok(Some(out))
        };
        plan.subjects = strings("subjects")?.map(|s| {
            let mut out: Vec<String> = Vec::with_capacity(s.len());
            for c in s.iter().map(|s| canonical_entity(s)) {
                if !c.is_empty() && !out.contains(&c) {
                    out.push(c);
                }
            }
            out
        });
        plan.predicates = strings("predicates")?;
        if let Some(g) = m.get("goal") {
            plan.goal = Some(goal_from_json(g)?);
        }
        if let Some(p) = m.get("params") {
            let Value::Object(pm) = p else { return Err(err("/params", "expected an object of numbers or strings")) };
            let mut params = BTreeMap::new();
            for (k, v) in pm {
                match v {
                    Value::Number(_) | Value::String(_) => {
                        params.insert(k.clone(), v.clone());
                    }
                    _ => return Err(err(format!("/params/{}", token(k)), "expected a number or a string")),
                }
            }
            plan.params = Some(params);
        }
        Ok(plan)
    }

    /// The plan as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Object(Map::new()))
    }

    /// The plan's params (empty when absent).
    pub fn params(&self) -> BTreeMap<String, Value> {
        self.params.clone().unwrap_or_default()
    }

    /// The plan's subjects (empty when absent).
    pub fn subject_list(&self) -> &[String] {
        self.subjects.as_deref().unwrap_or(&[])
    }

    /// The plan's predicates (empty when absent).
    pub fn predicate_list(&self) -> &[String] {
        self.predicates.as_deref().unwrap_or(&[])
    }
}

fn goal_from_json(v: &Value) -> Result<Goal, PlanError> {
    let Value::Object(g) = v else { return Err(err("/goal", "expected an object {subject?, predicate, object?, qualifiers?}")) };
    if let Some(k) = g.keys().find(|k| !GOAL_KEYS.contains(&k.as_str())) {
        return Err(err(format!("/goal/{}", token(k)), format!("unknown key (expected {})", GOAL_KEYS.join(", "))));
    }
    let predicate = match g.get("predicate") {
        Some(Value::String(s)) if !s.trim().is_empty() && !s.starts_with('?') => s.clone(),
        Some(Value::String(s)) if s.starts_with('?') => {
            return Err(err("/goal/predicate", "the goal's predicate must be a constant, not a variable"));
        }
        Some(_) => return Err(err("/goal/predicate", "expected a non-empty string")),
        None => return Err(err("/goal", "missing \"predicate\"")),
    };
    let role = |key: &str| -> Result<Option<Value>, PlanError> {
        match g.get(key) {
            None => Ok(None),
            Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => Ok(Some(v.clone())),
            Some(_) => Err(err(format!("/goal/{key}"), "expected a string, a number, a boolean or a variable \"?name\"")),
        }
    };
    let subject = match role("subject")? {
        Some(Value::String(s)) if !s.starts_with('?') => {
            let c = canonical_entity(&s);
            if c.is_empty() {
                return Err(err("/goal/subject", "empty subject"));
            }
            Some(Value::String(c))
        }
        Some(Value::String(s)) => Some(Value::String(s)),
        Some(_) => return Err(err("/goal/subject", "expected a string (an entity or a variable \"?name\")")),
        None => None,
    };
    let object = role("object")?;
    let mut qualifiers = BTreeMap::new();
    if let Some(q) = g.get("qualifiers") {
        let Value::Object(qm) = q else { return Err(err("/goal/qualifiers", "expected an object")) };
        for (k, v) in qm {
            match v {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                    qualifiers.insert(k.clone(), v.clone());
                }
                _ => return Err(err(format!("/goal/qualifiers/{}", token(k)), "expected a string, a number or a boolean")),
            }
        }
    }
    Ok(Goal { subject, predicate, object, qualifiers })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plans_load_and_canonicalise() {
        let p = QueryPlan::from_json(&json!({"version": "2.0", "subjects": ["Session tokens", "session_token"],
            "predicates": ["expires_after"], "params": {"inactivityMinutes": 20},
            "goal": {"subject": "Session tokens", "predicate": "session_expired", "object": "?e"}}))
        .unwrap();
        assert_eq!(p.subject_list(), ["session_token"]);
        let g = p.goal.as_ref().unwrap();
        assert_eq!(g.constant_subject(), Some("session_token"));
        assert_eq!(g.constant_object(), None);
        assert_eq!(p.to_json()["params"], json!({"inactivityMinutes": 20}));
        assert_eq!(QueryPlan::from_json(&json!({})).unwrap(), QueryPlan::default());
    }

    #[test]
    fn malformed_plans_name_the_pointer() {
        let cases = [
            (json!([]), "/: expected a plan object"),
            (json!({"subject": ["a"]}), "/subject: unknown key"),
            (json!({"subjects": "a"}), "/subjects: expected an array"),
            (json!({"subjects": ["a", ""]}), "/subjects/1: empty string"),
            (json!({"predicates": [1]}), "/predicates/0: expected a string"),
            (json!({"goal": {"subject": "a"}}), "/goal: missing \"predicate\""),
            (json!({"goal": {"predicate": "?p"}}), "/goal/predicate:"),
            (json!({"goal": {"predicate": "p", "object": [1]}}), "/goal/object:"),
            (json!({"goal": {"predicate": "p", "colour": 1}}), "/goal/colour: unknown key"),
            (json!({"params": {"x": true}}), "/params/x: expected a number or a string"),
            (json!({"params": [1]}), "/params: expected an object"),
            (json!({"version": ""}), "/version:"),
        ];
        for (v, needle) in cases {
            let e = QueryPlan::from_json(&v).unwrap_err().to_string();
            assert!(e.starts_with(needle), "{e} vs {needle}");
        }
        let e = QueryPlan::from_json_str("{\n  \"subjects\": [,]\n}").unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }
}
