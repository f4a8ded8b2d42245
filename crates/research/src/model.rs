//! The research stages over Warrant's LLM client (`warrant research --llm`).
//!
//! [`LlmModel`] adapts a [`warrant_llm::Llm`] to this crate's [`Model`] trait, for the
//! single-shot stages of [`crate::llm`]. [`ModelStages`] goes further and is what the CLI uses:
//! route, assess and synthesize each send a versioned prompt
//! ([`prompts::RESEARCH_ROUTE`], [`prompts::RESEARCH_ASSESS`], [`prompts::RESEARCH_SYNTHESIZE`]),
//! validate the reply against the stage's payload schema, ask once more with the repair
//! prompt when it does not validate ([`warrant_llm::complete_json`]), and otherwise fall back
//! to the deterministic stage ([`RuleRouter`], [`RuleAssessor`], [`RuleSynthesizer`]). A
//! fallback is recorded: every reason is kept in [`ModelStages::degraded`] (for the run's
//! warnings), and an assessment that fell back is marked `degraded` with the reason.
//!
//! Synthesis from a model cites only evidence that exists: a reply citing no listed evidence
//! id is rejected (repair, then the extractive synthesizer), and refs it invents beside real
//! ones are stripped by the chain's quote-back (spec §6.7).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use warrant_llm::{Completion, Llm, ResponseFormat, complete_json, prompts};
use warrant_llm::{StageOutput, one_line};

use crate::llm::{Model, ModelRequest, ModelResponse, assess_context, router_context, synthesis_context};
use crate::payload::{ACTION_DECOMPOSE, ACTION_RETIGHTEN, ACTION_WALK_SEEDS, AssessmentOutput, RouteDecision};
use crate::stages::{
    AssessInput, Assessor, RouteInput, Router, RuleAssessor, RuleRouter, RuleSynthesizer, Synthesis, SynthesisInput, Synthesizer,
    Usage,
};

/// Stage names model calls are logged under.
pub const ROUTE_STAGE: &str = "research.route";
/// See [`ROUTE_STAGE`].
pub const ASSESS_STAGE: &str = "research.assess";
/// See [`ROUTE_STAGE`].
pub const SYNTHESIZE_STAGE: &str = "research.synthesize";

/// [`Model`] over Warrant's LLM client: one text completion per request, logged under
/// `stage`, with the request's `max_tokens`.
#[derive(Debug, Clone)]
pub struct LlmModel {
    /// The client handle.
    pub llm: Llm,
    /// The stage name calls are logged under.
    pub stage: String,
}

impl Model for LlmModel {
    fn complete(&self, request: &ModelRequest) -> Result<ModelResponse, String> {
        let options = warrant_llm::CompletionOptions {
            max_tokens: Some(request.max_tokens),
            response_format: ResponseFormat::Text,
            ..self.llm.defaults().clone()
        };
        let c = self.llm.complete_with(&self.stage, &request.prompt, &options).map_err(|e| e.to_string())?;
        Ok(ModelResponse { usage: usage_of(std::slice::from_ref(&c)), content: c.content, finish_reason: "stop".into() })
    }
}

fn usage_of(completions: &[Completion]) -> Usage {
    let n = |v: Option<u64>| i64::try_from(v.unwrap_or(0)).unwrap_or(i64::MAX);
    completions.iter().fold(Usage::default(), |u, c| Usage {
        prompt_tokens: u.prompt_tokens.saturating_add(n(c.prompt_tokens)),
        completion_tokens: u.completion_tokens.saturating_add(n(c.completion_tokens)),
    })
}

/// The three model-backed stages over one client, sharing a log of fallbacks.
#[derive(Debug, Clone)]
pub struct ModelStages {
    llm: Llm,
    notes: Arc<Mutex<Vec<String>>>,
}

impl ModelStages {
    /// Stages over `llm`.
    pub fn new(llm: Llm) -> Self {
        Self { llm, notes: Arc::default() }
    }

    /// The model-backed router, falling back to `fallback`.
    pub fn router(&self, fallback: RuleRouter) -> ModelRouter {
        ModelRouter { stages: self.clone(), fallback }
    }

    /// The model-backed assessor, falling back to `fallback`.
    pub fn assessor(&self, fallback: RuleAssessor) -> ModelAssessor {
        ModelAssessor { stages: self.clone(), fallback }
    }

    /// The model-backed synthesizer, falling back to the extractive one.
    pub fn synthesizer(&self) -> ModelSynthesizer {
        ModelSynthesizer { stages: self.clone() }
    }

    /// Every fallback so far, in order: `<stage>: <reason>; the rule <stage> was used`.
    pub fn degraded(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    fn note(&self, line: String) {
        if let Ok(mut n) = self.notes.lock() {
            n.push(line);
        }
    }

    fn run<T>(
        &self,
        stage: &str,
        prompt: &str,
        validate: impl Fn(&Value) -> Result<T, String>,
    ) -> Result<StageOutput<T>, String> {
        complete_json(&self.llm, stage, prompt, validate).map_err(|f| f.reason)
    }
}

/// The route stage's schema: a RouteDecision that validates, with its action's arguments.
pub fn validate_route(v: &Value) -> Result<RouteDecision, String> {
    check_route(v).map_err(|e| one_line(&e))
}

fn check_route(v: &Value) -> Result<RouteDecision, String> {
    if !v.is_object() {
        return Err("/: expected a RouteDecision object {action, args, rationale}".into());
    }
    let rd: RouteDecision = serde_json::from_value(v.clone()).map_err(|e| format!("/: not a RouteDecision: {e}"))?;
    rd.validate().map_err(|e| e.to_string())?;
    let args = match rd.action.as_str() {
        ACTION_DECOMPOSE => rd.parse_decompose_args().map(drop).map_err(|e| format!("/args: invalid decompose args: {e}")),
        ACTION_WALK_SEEDS => rd.parse_walk_seeds_args().map(drop).map_err(|e| format!("/args: invalid walk_seeds args: {e}")),
        ACTION_RETIGHTEN => rd.parse_retighten_args().map(drop).map_err(|e| format!("/args: invalid retighten args: {e}")),
        _ => Ok(()),
    };
    args.map(|()| rd)
}

/// The model-backed router (spec §6.2, D32) with a repair and a rule fallback.
#[derive(Debug, Clone)]
pub struct ModelRouter {
    stages: ModelStages,
    fallback: RuleRouter,
}

impl Router for ModelRouter {
    fn route(&self, input: &RouteInput<'_>) -> Result<(RouteDecision, Usage), String> {
        let prompt = prompts::render(prompts::RESEARCH_ROUTE, &[("request", &router_context(input))]);
        match self.stages.run(ROUTE_STAGE, &prompt, validate_route) {
            Ok(out) => Ok((out.value, usage_of(&out.completions))),
            Err(reason) => {
                self.stages.note(format!("{reason}; the rule router was used"));
                self.fallback.route(input)
            }
        }
    }
}

/// What the assess stage's schema accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct AssessReply {
    /// Whether the evidence answers the topic.
    pub sufficient: bool,
    /// Non-blank refined queries (at most 3 are kept, deduplicated).
    pub refined_queries: Vec<String>,
    /// The model's rationale (never branched on).
    pub rationale: String,
    /// Confidence, clamped to [0, 1].
    pub confidence: f64,
}

/// The assess stage's schema: `{sufficient: bool, refined_queries?: [string], rationale?:
/// string, confidence?: number}`.
pub fn validate_assess(v: &Value) -> Result<AssessReply, String> {
    check_assess(v).map_err(|e| one_line(&e))
}

fn check_assess(v: &Value) -> Result<AssessReply, String> {
    let Value::Object(m) = v else {
        return Err("/: expected an object {sufficient, refined_queries, rationale, confidence}".into());
    };
    let sufficient = match m.get("sufficient") {
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("/sufficient: expected true or false".into()),
        None => return Err("/sufficient: missing".into()),
    };
    let mut refined_queries: Vec<String> = Vec::new();
    match m.get("refined_queries") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, q) in a.iter().enumerate() {
                let Some(q) = q.as_str() else { return Err(format!("/refined_queries/{i}: expected a string")) };
                let q = q.trim();
                if !q.is_empty() && refined_queries.len() < 3 && !refined_queries.iter().any(|r| r == q) {
                    refined_queries.push(q.to_string());
                }
            }
        }
        Some(_) => return Err("/refined_queries: expected an array of strings".into()),
    }
    let rationale = match m.get("rationale") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err("/rationale: expected a string".into()),
    };
    let confidence = match m.get("confidence") {
        None | Some(Value::Null) => 0.0,
        Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()).unwrap_or(0.0).clamp(0.0, 1.0),
        Some(_) => return Err("/confidence: expected a number between 0 and 1".into()),
    };
    Ok(AssessReply { sufficient, refined_queries, rationale, confidence })
}

/// The model-backed assessor (spec §6.6) with a repair and a rule fallback.
#[derive(Debug, Clone)]
pub struct ModelAssessor {
    stages: ModelStages,
    fallback: RuleAssessor,
}

impl Assessor for ModelAssessor {
    fn assess(&self, input: &AssessInput<'_>) -> (AssessmentOutput, Usage) {
        let Some(exec) = input.execution else { return self.fallback.assess(input) };
        let prompt = prompts::render(prompts::RESEARCH_ASSESS, &[("request", &assess_context(input, exec))]);
        match self.stages.run(ASSESS_STAGE, &prompt, validate_assess) {
            Ok(out) => {
                let r = out.value;
                let ao = AssessmentOutput {
                    topic: input.working.topic.clone(),
                    sufficient: r.sufficient,
                    refined_queries: r.refined_queries,
                    rationale: r.rationale,
                    confidence: r.confidence,
                    evidence_count: exec.evidence.len() as i64,
                    degraded: exec.degraded,
                    degraded_reason: exec.degraded_reason.clone(),
                };
                (ao, usage_of(&out.completions))
            }
            Err(reason) => {
                self.stages.note(format!("{reason}; the rule assessor was used"));
                let (mut ao, usage) = self.fallback.assess(input);
                ao.degraded = true;
                ao.degraded_reason =
                    if ao.degraded_reason.is_empty() { reason } else { format!("{}; {reason}", ao.degraded_reason) };
                (ao, usage)
            }
        }
    }
}

/// The synthesize stage's schema: `{synthesis: non-empty string, evidence_refs: [string]}`,
/// citing (in `evidence_refs` or in brackets in the text) at least one of `valid` when there
/// is any evidence.
pub fn validate_synthesis(v: &Value, valid: &BTreeSet<&str>) -> Result<Synthesis, String> {
    check_synthesis(v, valid).map_err(|e| one_line(&e))
}

fn check_synthesis(v: &Value, valid: &BTreeSet<&str>) -> Result<Synthesis, String> {
    let Value::Object(m) = v else { return Err("/: expected an object {synthesis, evidence_refs}".into()) };
    let synthesis = match m.get("synthesis") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err("/synthesis: empty synthesis".into()),
        Some(_) => return Err("/synthesis: expected a string".into()),
        None => return Err("/synthesis: missing".into()),
    };
    let mut evidence_refs = Vec::new();
    match m.get("evidence_refs") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, r) in a.iter().enumerate() {
                let Some(r) = r.as_str() else { return Err(format!("/evidence_refs/{i}: expected a string")) };
                evidence_refs.push(r.to_string());
            }
        }
        Some(_) => return Err("/evidence_refs: expected an array of evidence ids".into()),
    }
    if !valid.is_empty() {
        let in_text = bracketed(&synthesis);
        let cites_real = evidence_refs.iter().map(|r| r.trim()).chain(in_text.iter().copied()).any(|r| valid.contains(r));
        if !cites_real {
            let mut cited: Vec<&str> = evidence_refs.iter().map(String::as_str).chain(in_text.iter().copied()).collect();
            cited.dedup();
            return Err(format!(
                "/evidence_refs: no cited id is one of the listed evidence ids (cited: {})",
                if cited.is_empty() { "nothing".to_string() } else { cited.join(", ") }
            ));
        }
    }
    Ok(Synthesis { synthesis, evidence_refs })
}

/// The `[…]` contents of a text.
fn bracketed(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        let after = &rest[i + 1..];
        let Some(j) = after.find(']') else { break };
        let r = after[..j].trim();
        if !r.is_empty() {
            out.push(r);
        }
        rest = &after[j + 1..];
    }
    out
}

/// The model-backed synthesizer (spec §6.7) with a repair and the extractive fallback.
#[derive(Debug, Clone)]
pub struct ModelSynthesizer {
    stages: ModelStages,
}

impl Synthesizer for ModelSynthesizer {
    fn synthesize(&self, input: &SynthesisInput<'_>) -> Result<(Synthesis, Usage), String> {
        let evidence = &input.execution.evidence;
        let valid: BTreeSet<&str> =
            evidence.iter().flat_map(|e| [e.entity_id.as_str(), e.objectstore_ref.as_str()]).filter(|r| !r.is_empty()).collect();
        let example = evidence.first().map_or("<evidence id>", |e| e.entity_id.as_str());
        let prompt =
            prompts::render(prompts::RESEARCH_SYNTHESIZE, &[("example", example), ("request", &synthesis_context(input))]);
        match self.stages.run(SYNTHESIZE_STAGE, &prompt, |v| validate_synthesis(v, &valid)) {
            Ok(out) => Ok((out.value, usage_of(&out.completions))),
            Err(reason) => {
                self.stages.note(format!("{reason}; the rule synthesizer was used"));
                RuleSynthesizer.synthesize(input)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    struct Echo;

    impl warrant_llm::LlmClient for Echo {
        fn complete(&self, prompt: &str, o: &warrant_llm::CompletionOptions) -> Result<Completion, warrant_llm::LlmError> {
            Ok(Completion {
                content: format!("{} {:?} {}", o.max_tokens.unwrap_or(0), o.response_format, prompt.len()),
                origin: warrant_llm::Origin::Model,
                model: "echo".into(),
                request_key: "k".into(),
                prompt_tokens: Some(7),
                completion_tokens: Some(3),
            })
        }

        fn model(&self) -> &str {
            "echo"
        }
    }

    #[test]
    fn llm_model_adapts_the_client() {
        let llm = Llm::new(Arc::new(Echo));
        let m = LlmModel { llm: llm.clone(), stage: "research.route".into() };
        let r = m.complete(&ModelRequest { prompt: "hello".into(), max_tokens: 512, timeout_secs: 30 }).unwrap();
        assert_eq!(r.content, "512 Text 5");
        assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens, r.finish_reason.as_str()), (7, 3, "stop"));
        let calls = llm.calls();
        assert_eq!((calls.len(), calls[0].stage.as_str()), (1, "research.route"));
    }

    #[test]
    fn route_schema() {
        let ok = validate_route(&json!({"action": "decompose", "args": {"axes": ["entity_type"], "focus": "x"}})).unwrap();
        assert_eq!(ok.action, "decompose");
        assert!(validate_route(&json!({"action": "fly", "args": {}})).unwrap_err().contains("fly"));
        let e = validate_route(&json!({"action": "walk_seeds", "args": {"seeds": []}})).unwrap_err();
        assert!(e.starts_with("/args: invalid walk_seeds args"), "{e}");
        assert!(validate_route(&json!([1])).unwrap_err().starts_with("/: expected"));
        assert!(!validate_route(&json!({"action": "a\nb", "args": {}})).unwrap_err().contains('\n'));
    }

    #[test]
    fn assess_schema() {
        let r =
            validate_assess(&json!({"sufficient": false, "refined_queries": [" a ", "", "a", "b", "c", "d"], "confidence": 7}))
                .unwrap();
        assert_eq!((r.sufficient, r.refined_queries, r.confidence), (false, vec!["a".into(), "b".into(), "c".into()], 1.0));
        assert_eq!(validate_assess(&json!({"sufficient": "yes"})).unwrap_err(), "/sufficient: expected true or false");
        assert_eq!(validate_assess(&json!({})).unwrap_err(), "/sufficient: missing");
        assert_eq!(
            validate_assess(&json!({"sufficient": true, "refined_queries": [1]})).unwrap_err(),
            "/refined_queries/0: expected a string"
        );
    }

    #[test]
    fn synthesis_schema_refuses_invented_refs() {
        let valid: BTreeSet<&str> = ["a.b.c.d.e.f"].into_iter().collect();
        let s = validate_synthesis(&json!({"synthesis": "Yes [a.b.c.d.e.f].", "evidence_refs": []}), &valid).unwrap();
        assert_eq!(s.synthesis, "Yes [a.b.c.d.e.f].");
        let e = validate_synthesis(&json!({"synthesis": "Yes [x.y].", "evidence_refs": ["z"]}), &valid).unwrap_err();
        assert_eq!(e, "/evidence_refs: no cited id is one of the listed evidence ids (cited: z, x.y)");
        assert_eq!(validate_synthesis(&json!({"synthesis": " "}), &valid).unwrap_err(), "/synthesis: empty synthesis");
        // With no evidence there is nothing to cite.
        assert!(validate_synthesis(&json!({"synthesis": "Nothing found."}), &BTreeSet::new()).is_ok());
        assert_eq!(bracketed("a [x] b [ ] [y"), ["x"]);
    }
}
