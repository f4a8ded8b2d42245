//! synthesize and quote-back (spec §6.7).
//!
//! The deterministic synthesizer is extractive: one line per distinct evidence text (a
//! sentence quoted from a stored chunk), citing in brackets every item that carries it. It invents nothing:
//! with no evidence it says so, and when the assessment found the evidence insufficient the
//! synthesis says that first, naming the topic terms nothing covered.
//!
//! Quote-back applies to every synthesizer's output: refs that are not evidence ids (or
//! object-store refs) are stripped, a line citing only unknown refs is dropped, and the
//! result's evidence is exactly the cited items, in input order.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::graph::{Node, parse_node_id};
use crate::payload::{AssessmentOutput, Evidence, ExecutionOutput, Intent, RouteDecision};
use crate::stages::assess::coverage;
use crate::stages::{Usage, Working};
use crate::text::Terms;

/// Most evidence items the deterministic synthesizer cites (and quote-back echoes).
pub const MAX_CITED: usize = 8;

/// A synthesizer's output before quote-back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Synthesis {
    /// The answer text.
    #[serde(default)]
    pub synthesis: String,
    /// The evidence ids (or object-store refs) it cites.
    #[serde(default)]
    pub evidence_refs: Vec<String>,
}

/// What a synthesizer sees.
#[derive(Debug, Clone, Copy)]
pub struct SynthesisInput<'a> {
    /// The validated intent.
    pub intent: &'a Intent,
    /// The working topic and hints.
    pub working: &'a Working,
    /// The evidence to synthesise from.
    pub execution: &'a ExecutionOutput,
    /// The final route decision.
    pub route: Option<&'a RouteDecision>,
    /// The last assessment, when the path had one.
    pub assessment: Option<&'a AssessmentOutput>,
}

/// A synthesize stage. An error (an empty synthesis, a failed model call) fails the chain.
pub trait Synthesizer: Send + Sync {
    /// Writes the answer.
    fn synthesize(&self, input: &SynthesisInput<'_>) -> Result<(Synthesis, Usage), String>;
}

/// The deterministic, extractive synthesizer (D32).
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleSynthesizer;

/// One line's text for an item: its snippet with whitespace collapsed, else its node name.
fn item_text(e: &Evidence) -> String {
    let flat = warrant_text::normalize::collapse_whitespace(&e.snippet_text);
    if !flat.is_empty() {
        return flat;
    }
    match parse_node_id(&e.entity_id) {
        Some(Node::Entity(name)) => name.replace('_', " "),
        Some(Node::Chunk(c)) => c,
        None => e.entity_id.clone(),
    }
}

impl Synthesizer for RuleSynthesizer {
    fn synthesize(&self, input: &SynthesisInput<'_>) -> Result<(Synthesis, Usage), String> {
        let topic = &input.working.topic;
        let ev = &input.execution.evidence;
        if ev.is_empty() {
            let s = Synthesis { synthesis: format!("No evidence was found for topic {topic}."), evidence_refs: Vec::new() };
            return Ok((s, Usage::default()));
        }
        let mut text = match input.assessment.filter(|a| !a.sufficient) {
            Some(_) => {
                let (covered, missing) = coverage(topic, input.execution);
                let total = covered.len() + missing.len();
                let missing = if missing.is_empty() { String::new() } else { format!("; not found: {}", missing.join(", ")) };
                format!(
                    "Insufficient evidence for {topic} (covered {}/{total} topic terms{missing}). Closest evidence:",
                    covered.len()
                )
            }
            None => format!("Evidence for {topic}:"),
        };
        // The items that answer most of the topic first (fusion order among equals); a heading
        // names a section and states nothing, so it is never a line.
        let terms = Terms::of(topic);
        let mut ranked: Vec<(usize, usize, &Evidence)> = ev
            .iter()
            .enumerate()
            .filter(|(_, e)| warrant_text::segment::markdown_heading(e.snippet_text.trim_start()).is_none())
            .map(|(i, e)| (terms.hits(&e.snippet_text), i, e))
            .collect();
        if ranked.is_empty() {
            ranked = ev.iter().enumerate().map(|(i, e)| (0, i, e)).collect();
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // One line per distinct text, citing every item that carries it.
        let mut lines: Vec<(String, Vec<&str>)> = Vec::new();
        let mut refs = Vec::new();
        for e in ranked.into_iter().map(|(_, _, e)| e).take(MAX_CITED) {
            let t = item_text(e);
            match lines.iter_mut().find(|(x, _)| *x == t) {
                Some((_, ids)) => ids.push(&e.entity_id),
                None => lines.push((t, vec![&e.entity_id])),
            }
            refs.push(e.entity_id.clone());
        }
        for (t, ids) in lines {
            let cites: Vec<String> = ids.iter().map(|id| format!("[{id}]")).collect();
            text.push_str(&format!("\n- {} {t}", cites.join(" ")));
        }
        Ok((Synthesis { synthesis: text, evidence_refs: refs }, Usage::default()))
    }
}

/// The bracketed refs of a line that look like evidence refs (`[a.b.c.d.e.f]`, `[doc#3]`).
fn cited_refs(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let inner = after[..close].trim();
        if !inner.is_empty() && !inner.contains(char::is_whitespace) && (inner.contains('.') || inner.contains('#')) {
            out.push(inner);
        }
        rest = &after[close + 1..];
    }
    out
}

/// What quote-back kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuotedBack {
    /// The synthesis, with lines citing only unknown refs removed (and the fallback note).
    pub synthesis: String,
    /// The cited evidence items, in input order.
    pub evidence: Vec<Evidence>,
    /// Refs stripped as unknown (for the log).
    pub stripped: Vec<String>,
}

/// Quote-back (spec §6.7) plus the line check: a line whose bracketed refs are all unknown
/// is dropped.
pub fn quote_back(synthesis: &Synthesis, evidence: &[Evidence]) -> QuotedBack {
    let valid: BTreeSet<&str> =
        evidence.iter().flat_map(|e| [e.entity_id.as_str(), e.objectstore_ref.as_str()]).filter(|r| !r.is_empty()).collect();
    let mut stripped = Vec::new();
    let mut lines = Vec::new();
    for line in synthesis.synthesis.lines() {
        let cited = cited_refs(line);
        if !cited.is_empty() && cited.iter().all(|r| !valid.contains(r)) {
            stripped.extend(cited.iter().map(|r| r.to_string()));
            continue;
        }
        lines.push(line);
    }
    let mut text = lines.join("\n");
    let mut kept: Vec<&str> = Vec::new();
    for r in &synthesis.evidence_refs {
        let r = r.trim();
        if r.is_empty() || kept.contains(&r) {
            continue;
        }
        if valid.contains(r) {
            kept.push(r);
        } else if !stripped.iter().any(|s| s == r) {
            stripped.push(r.to_string());
        }
    }
    let mut cited: Vec<Evidence> = evidence
        .iter()
        .filter(|e| {
            kept.contains(&e.entity_id.as_str()) || (!e.objectstore_ref.is_empty() && kept.contains(&e.objectstore_ref.as_str()))
        })
        .cloned()
        .collect();
    if cited.is_empty() && !evidence.is_empty() {
        let k = evidence.len().min(MAX_CITED);
        cited = evidence[..k].to_vec();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("[Note: no valid evidence references were cited; showing the top {k} evidence items.]"));
    }
    QuotedBack { synthesis: text, evidence: cited, stripped }
}
