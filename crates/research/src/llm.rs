//! The model hook (D32): route, assess and synthesize may be replaced by a language model.
//!
//! Warrant's LLM client lives in another crate; this crate only needs one call, so it defines
//! the [`Model`] trait and the three model-backed stages over it ([`LlmRouter`],
//! [`LlmAssessor`], [`LlmSynthesizer`]): prompt building, JSON extraction and validation. A
//! client plugs in by implementing [`Model`]; tests use a scripted fake. Model output is
//! validated like any other payload, and free text it writes is never branched on.

use std::fmt::Write as _;

use serde::Deserialize;

use crate::payload::{AssessmentOutput, RouteDecision};
use crate::stages::{AssessInput, Assessor, RouteInput, Router, Synthesis, SynthesisInput, Synthesizer, Usage};

/// One completion request (temperature 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRequest {
    /// The prompt.
    pub prompt: String,
    /// Most response tokens.
    pub max_tokens: u32,
    /// Timeout in seconds.
    pub timeout_secs: u64,
}

/// A completion.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelResponse {
    /// The text (may be empty).
    pub content: String,
    /// Why generation stopped (`stop`, `length`, …).
    pub finish_reason: String,
    /// Reported token usage.
    pub usage: Usage,
}

/// A language model: one completion call.
pub trait Model: Send + Sync {
    /// Completes a prompt. `Err` is the transport or provider error.
    fn complete(&self, request: &ModelRequest) -> Result<ModelResponse, String>;
}

/// The first balanced JSON object in model output (spec §6.2): a leading and trailing Markdown
/// fence is stripped, then the first `{…}` is taken, honouring string literals and escapes.
pub fn extract_json(text: &str) -> Result<&str, String> {
    let mut s = text.trim();
    if let Some(rest) = s.strip_prefix("```") {
        let rest = rest.strip_prefix("json").or_else(|| rest.strip_prefix("JSON")).unwrap_or(rest);
        s = rest.trim_end().strip_suffix("```").unwrap_or(rest).trim();
    }
    let Some(start) = s.find('{') else { return Err("no JSON object".into()) };
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, c) in s[start..].char_indices() {
        if in_str {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(&s[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    Err("unbalanced braces".into())
}

fn call(model: &dyn Model, prompt: String, max_tokens: u32, what: &str) -> Result<(String, Usage), String> {
    let r = model.complete(&ModelRequest { prompt, max_tokens, timeout_secs: 30 }).map_err(|e| format!("{what} call: {e}"))?;
    if r.content.trim().is_empty() {
        return Err(format!("{what} call: empty content (finish reason {:?})", r.finish_reason));
    }
    Ok((r.content, r.usage))
}

/// Cuts text to `n` chars.
fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Most candidates shown to the router.
pub const ROUTER_CANDIDATES: usize = 10;

/// The router prompt.
pub fn router_prompt(input: &RouteInput<'_>) -> String {
    let mut p = String::new();
    let _ = writeln!(p, "You route a research request over a knowledge graph. Reply with one JSON object:");
    let _ = writeln!(
        p,
        "{{\"action\": \"synthesize_directly\"|\"retighten\"|\"walk_seeds\"|\"decompose\", \"args\": {{…}}, \"rationale\": \"…\"}}"
    );
    let _ = writeln!(
        p,
        "retighten args: {{topic, hints?}}; walk_seeds args: {{seeds: [{{ref, ref_type: name|partial_id|candidate_index}}]}}; decompose args: {{axes: [..], focus, scope?: narrow|medium|broad}}."
    );
    let _ = writeln!(p, "Never write full entity ids; reference candidates.\n");
    p.push_str(&router_context(input));
    p
}

/// What the router prompt shows of the request (spec §6.2): the topic, the sorted working
/// hints, the classifier's tier, confidence, intent and degraded flag, its sorted hints, and
/// up to [`ROUTER_CANDIDATES`] candidates in canonical order.
pub fn router_context(input: &RouteInput<'_>) -> String {
    let co = input.classifier;
    let mut p = String::new();
    let _ = writeln!(p, "Topic: {}", input.working.topic);
    for (k, v) in &input.working.hints {
        let _ = writeln!(p, "Hint: {k}={v}");
    }
    let _ = writeln!(
        p,
        "Classifier: tier={} confidence={} intent={} degraded={}",
        co.tier,
        crate::payload::fmt_float(co.confidence),
        co.intent,
        co.degraded
    );
    for (k, v) in &co.hints {
        let _ = writeln!(p, "Classifier hint: {k}={v}");
    }
    let _ = writeln!(p, "Candidates:");
    for (i, c) in co.candidates.iter().take(ROUTER_CANDIDATES).enumerate() {
        let _ = writeln!(
            p,
            "[{i}] {} — {} (type={}) [relevance={}] [tier={}]",
            c.entity_id,
            c.label,
            c.entity_type,
            crate::payload::fmt_float(c.relevance),
            c.tier
        );
    }
    p
}

/// A model-backed router: single shot, at most 512 response tokens. Its decision is decoded
/// and validated by the chain like any other.
pub struct LlmRouter<M: Model> {
    /// The model.
    pub model: M,
}

impl<M: Model> Router for LlmRouter<M> {
    fn route(&self, input: &RouteInput<'_>) -> Result<(RouteDecision, Usage), String> {
        let (content, usage) = call(&self.model, router_prompt(input), 512, "router")?;
        let json = extract_json(&content).map_err(|e| format!("router: {e}"))?;
        let rd: RouteDecision = serde_json::from_str(json).map_err(|e| format!("router: {e}"))?;
        rd.validate().map_err(|e| e.to_string())?;
        match rd.action.as_str() {
            crate::payload::ACTION_DECOMPOSE => {
                rd.parse_decompose_args().map_err(|e| format!("invalid decompose args: {e}"))?;
            }
            crate::payload::ACTION_WALK_SEEDS => {
                rd.parse_walk_seeds_args().map_err(|e| format!("invalid walk_seeds args: {e}"))?;
            }
            crate::payload::ACTION_RETIGHTEN => {
                rd.parse_retighten_args().map_err(|e| format!("invalid retighten args: {e}"))?;
            }
            _ => {}
        }
        Ok((rd, usage))
    }
}

#[derive(Deserialize)]
struct AssessReply {
    #[serde(default)]
    sufficient: bool,
    #[serde(default)]
    refined_queries: Vec<String>,
    #[serde(default)]
    rationale: String,
    #[serde(default)]
    confidence: f64,
}

/// What the assessor prompt shows (spec §6.6): the topic, the routing action, the sub-query
/// count, the tokens used against the intent budget, the degraded flag, and the top 20 evidence
/// items with snippets cut to 280 chars.
pub fn assess_context(input: &AssessInput<'_>, exec: &crate::payload::ExecutionOutput) -> String {
    let mut p = String::new();
    let _ = writeln!(p, "Topic: {}\nAction: {}\nSub-queries: {}", input.working.topic, input.action, exec.subquery_count);
    let _ = writeln!(
        p,
        "Tokens: {} of {}\nDegraded: {}",
        exec.budget_tokens_used,
        input.intent.resolved_budget_tokens(),
        exec.degraded
    );
    for e in exec.evidence.iter().take(20) {
        let _ = writeln!(
            p,
            "- [{}] tier={} score={} {}",
            e.entity_id,
            e.tier,
            crate::payload::fmt_float(e.score),
            cut(&e.snippet_text, 280)
        );
    }
    p
}

/// What the synthesizer prompt shows (spec §6.7): the topic and the top 30 evidence items with
/// snippets cut to 480 chars and `obj=<ref>` for object-store refs.
pub fn synthesis_context(input: &SynthesisInput<'_>) -> String {
    let mut p = String::new();
    let _ = writeln!(p, "Topic: {}", input.working.topic);
    for e in input.execution.evidence.iter().take(30) {
        let obj = if e.objectstore_ref.is_empty() { String::new() } else { format!(" obj={}", e.objectstore_ref) };
        let _ = writeln!(p, "- [{}]{obj} {}", e.entity_id, cut(&e.snippet_text, 480));
    }
    p
}

/// A model-backed assessor: at most 1024 tokens. A failure gives a degraded, insufficient
/// output; the chain continues.
pub struct LlmAssessor<M: Model> {
    /// The model.
    pub model: M,
}

impl<M: Model> Assessor for LlmAssessor<M> {
    fn assess(&self, input: &AssessInput<'_>) -> (AssessmentOutput, Usage) {
        let topic = input.working.topic.clone();
        let degraded = |reason: String| AssessmentOutput {
            topic: topic.clone(),
            degraded: true,
            degraded_reason: reason,
            ..AssessmentOutput::default()
        };
        let Some(exec) = input.execution else { return (degraded("missing execution output".into()), Usage::default()) };
        let mut p = String::new();
        let _ = writeln!(
            p,
            "Decide whether the evidence answers the topic. Reply with one JSON object: {{\"sufficient\": bool, \"refined_queries\": [..], \"rationale\": \"…\", \"confidence\": 0..1}}."
        );
        p.push_str(&assess_context(input, exec));
        let (content, usage) = match call(&self.model, p, 1024, "assessor") {
            Ok(r) => r,
            Err(e) => return (degraded(e), Usage::default()),
        };
        let reply = extract_json(&content)
            .map_err(|e| format!("extract JSON: {e}"))
            .and_then(|j| serde_json::from_str::<AssessReply>(j).map_err(|e| format!("assessor: {e}")));
        let out = match reply {
            Ok(r) => AssessmentOutput {
                topic: topic.clone(),
                sufficient: r.sufficient,
                refined_queries: r.refined_queries.into_iter().filter(|q| !q.trim().is_empty()).collect(),
                rationale: r.rationale,
                confidence: r.confidence.clamp(0.0, 1.0),
                evidence_count: exec.evidence.len() as i64,
                degraded: exec.degraded,
                degraded_reason: exec.degraded_reason.clone(),
            },
            Err(e) => degraded(e),
        };
        (out, usage)
    }
}

/// A model-backed synthesizer: at most 2048 tokens; quote-back is applied by the chain.
pub struct LlmSynthesizer<M: Model> {
    /// The model.
    pub model: M,
}

impl<M: Model> Synthesizer for LlmSynthesizer<M> {
    fn synthesize(&self, input: &SynthesisInput<'_>) -> Result<(Synthesis, Usage), String> {
        let mut p = String::new();
        let _ = writeln!(
            p,
            "Answer the topic from the evidence only. Cite evidence ids in brackets. Reply with one JSON object: {{\"synthesis\": \"…\", \"evidence_refs\": [..]}}."
        );
        p.push_str(&synthesis_context(input));
        let (content, usage) = call(&self.model, p, 2048, "synthesizer")?;
        let json = extract_json(&content).map_err(|e| format!("extract JSON: {e}"))?;
        let s: Synthesis = serde_json::from_str(json).map_err(|e| format!("extract JSON: {e}"))?;
        if s.synthesis.trim().is_empty() {
            return Err("empty synthesis".into());
        }
        Ok((s, usage))
    }
}
