//! Learned verifiers with an LLM judge (D13, spec §3.6 and §7).
//!
//! [`JudgedVerifiers`] registers rubrics and, when a model is configured, binds it as their
//! judge. Running verifier `V` on a graph:
//!
//! 1. The judge gets the rubric ([`warrant_llm::prompts::VERIFIER_JUDGE`]: name,
//!    `training_objective`, `output_schema`) and the graph parts the rubric's `input_schema`
//!    names (its `required` keys, then its other properties; under `context`, only the keys the
//!    rubric lists).
//! 2. The reply must validate against the rubric's `output_schema` and carry all four of
//!    `evaluation`, `issues`, `score` and `reasoning`, with `score` a number in [0, 1] and
//!    `verifier_id`, when present, equal to `V` (it is filled in when absent). A reply that
//!    does not is repaired once ([`warrant_llm::complete_json`]).
//! 3. Meta-verification (rubrics with `meta_verification: true`): the schema check (always
//!    passed by then), score/issue consistency (a `fatal` issue with a score above 0.5 fails)
//!    and actionable issues (every issue has a non-blank location and description) are
//!    mechanical; reasoning coherence needs a second judge and is reported `not_performed`.
//!
//! Without a judge, or when the call fails, or the output stays invalid, the verifier is
//! unavailable and every rule that uses it is skipped with the spec's reason. A score is
//! never synthesised.

use serde_json::{Map, Value};
use warrant_graph::CompiledSchema;
use warrant_graph::PredicateGraph;
use warrant_llm::{Llm, complete_json, prompts};

use crate::rubric::Rubric;
use crate::verifier::{MetaCheck, Unavailable, VerifierRegistry, VerifierRun};

/// The stage name in call logs and degraded reasons.
pub const STAGE: &str = "verifier.judge";

struct Registered {
    rubric: Rubric,
    schema: Result<CompiledSchema, String>,
}

/// Rubrics, and the judge bound to them when a model is configured.
pub struct JudgedVerifiers {
    rubrics: Vec<Registered>,
    judge: Option<Llm>,
}

impl JudgedVerifiers {
    /// Registers rubrics; `judge: None` leaves every verifier without a judge.
    pub fn new(rubrics: Vec<Rubric>, judge: Option<Llm>) -> Self {
        let mut rubrics: Vec<Registered> = rubrics
            .into_iter()
            .map(|rubric| {
                let schema = CompiledSchema::compile(&rubric.output_schema.to_string());
                Registered { rubric, schema }
            })
            .collect();
        rubrics.sort_by(|a, b| a.rubric.verifier_id.cmp(&b.rubric.verifier_id));
        rubrics.dedup_by(|a, b| a.rubric.verifier_id == b.rubric.verifier_id);
        Self { rubrics, judge }
    }

    fn get(&self, id: &str) -> Option<&Registered> {
        self.rubrics.iter().find(|r| r.rubric.verifier_id == id)
    }
}

/// The graph parts a rubric reads, as one JSON object.
pub fn judge_input(rubric: &Rubric, graph: &PredicateGraph) -> Value {
    let g = serde_json::to_value(graph).unwrap_or(Value::Null);
    let mut keys: Vec<&str> = Vec::new();
    if let Some(req) = rubric.input_schema.get("required").and_then(Value::as_array) {
        keys.extend(req.iter().filter_map(Value::as_str));
    }
    if let Some(props) = rubric.input_schema.get("properties").and_then(Value::as_object) {
        keys.extend(props.keys().map(String::as_str).filter(|k| !keys.contains(k)).collect::<Vec<_>>());
    }
    let mut out = Map::new();
    for k in keys {
        let Some(v) = g.get(k) else { continue };
        let v = match (k, v, rubric.input_schema.pointer("/properties/context/properties").and_then(Value::as_object)) {
            ("context", Value::Object(ctx), Some(wanted)) => Value::Object(
                ctx.iter().filter(|(name, _)| wanted.contains_key(*name)).map(|(a, b)| (a.clone(), b.clone())).collect(),
            ),
            _ => v.clone(),
        };
        out.insert(k.to_string(), v);
    }
    Value::Object(out)
}

/// The judge's prompt for a rubric and a graph.
pub fn judge_prompt(rubric: &Rubric, graph: &PredicateGraph) -> String {
    let schema = serde_json::to_string_pretty(&rubric.output_schema).unwrap_or_default();
    let input = serde_json::to_string_pretty(&judge_input(rubric, graph)).unwrap_or_default();
    prompts::render(
        prompts::VERIFIER_JUDGE,
        &[
            ("verifier_id", &rubric.verifier_id),
            ("name", &rubric.name),
            ("training_objective", &rubric.training_objective),
            ("output_schema", &schema),
            ("input", &input),
        ],
    )
}

/// Validates a judge's output for verifier `id` (step 2 of the module docs) and returns it
/// with `verifier_id` filled in, and its score.
pub fn check_output(id: &str, schema: &CompiledSchema, v: &Value) -> Result<(Value, f64), String> {
    let Value::Object(m) = v else { return Err("expected a JSON object".into()) };
    if let Some(e) = schema.errors(v).into_iter().next() {
        return Err(format!("{}: {} (output_schema)", if e.pointer.is_empty() { "/" } else { &e.pointer }, e.message));
    }
    for k in ["evaluation", "issues", "score", "reasoning"] {
        if !m.contains_key(k) {
            return Err(format!("/{k}: missing"));
        }
    }
    let score = m
        .get("score")
        .and_then(Value::as_f64)
        .filter(|s| (0.0..=1.0).contains(s))
        .ok_or("/score: expected a number in [0, 1]")?;
    let mut out = m.clone();
    match m.get("verifier_id") {
        None => {
            out.insert("verifier_id".into(), Value::String(id.into()));
        }
        Some(Value::String(s)) if s == id => {}
        Some(other) => return Err(format!("/verifier_id: expected \"{id}\", got {other}")),
    }
    Ok((Value::Object(out), score))
}

/// The mechanical meta-verification checks of an accepted output.
pub fn meta_verify(output: &Value, score: f64) -> Vec<MetaCheck> {
    let issues = output.get("issues").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let fatal = issues.iter().filter(|i| i.get("severity").and_then(Value::as_str) == Some("fatal")).count();
    let consistent = if fatal > 0 && score > 0.5 {
        MetaCheck {
            check: "score_consistent",
            status: "failed",
            detail: Some(format!("{fatal} fatal issue(s) but score {score}")),
        }
    } else {
        MetaCheck { check: "score_consistent", status: "passed", detail: None }
    };
    let blank = |i: &Value, k: &str| i.get(k).and_then(Value::as_str).is_none_or(|s| s.trim().is_empty());
    let vague: Vec<String> = issues
        .iter()
        .enumerate()
        .filter(|(_, i)| blank(i, "location") || blank(i, "description"))
        .map(|(n, _)| format!("/issues/{n}"))
        .collect();
    let actionable = if vague.is_empty() {
        MetaCheck { check: "issues_actionable", status: "passed", detail: None }
    } else {
        MetaCheck {
            check: "issues_actionable",
            status: "failed",
            detail: Some(format!("no location or description: {}", vague.join(", "))),
        }
    };
    vec![
        MetaCheck { check: "output_schema", status: "passed", detail: None },
        MetaCheck { check: "reasoning_coherent", status: "not_performed", detail: Some("needs a second judge; not run".into()) },
        consistent,
        actionable,
    ]
}

impl VerifierRegistry for JudgedVerifiers {
    fn is_registered(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    fn score(&self, id: &str, graph: &PredicateGraph) -> Result<f64, Unavailable> {
        self.run(id, graph).map(|(s, _)| s)
    }

    fn run(&self, id: &str, graph: &PredicateGraph) -> Result<(f64, Option<VerifierRun>), Unavailable> {
        let reg = self.get(id).ok_or(Unavailable::NotRegistered)?;
        let llm = self.judge.as_ref().ok_or(Unavailable::NoJudge)?;
        let schema = reg.schema.as_ref().map_err(|e| Unavailable::Failed(format!("its output_schema does not compile: {e}")))?;
        let prompt = judge_prompt(&reg.rubric, graph);
        let out = complete_json(llm, STAGE, &prompt, |v| check_output(id, schema, v))
            .map_err(|f| if f.rejected { Unavailable::InvalidOutput } else { Unavailable::Failed(f.reason) })?;
        let (output, score) = out.value;
        let meta_verification = if reg.rubric.meta_verification { meta_verify(&output, score) } else { Vec::new() };
        let run = VerifierRun {
            verifier_id: id.to_string(),
            score,
            output,
            meta_verification,
            method: "llm",
            model: llm.model().to_string(),
            prompt: prompts::VERIFIER_JUDGE.id.to_string(),
        };
        Ok((score, Some(run)))
    }
}
