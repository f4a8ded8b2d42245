//! Claim extraction by a model (`warrant extract --llm`).
//!
//! The deterministic extractor builds the graph; the model then supplies its claims. The
//! reply must be `{"claims": [{"text", "modality", "domain"?}]}` where every `text` occurs
//! verbatim in the answer (searched from the end of the previous claim, then from the start),
//! so each claim keeps an exact char span; a reply that breaks this is repaired once. The
//! model's claims replace the deterministic ones; discourse acts and citations are re-pointed
//! at the new claims by span, and entity references recomputed. The graph records how it was
//! made in `context.extraction_method` (`{"claims": "llm", "prompt", "model"}`); when the
//! model fails, the deterministic graph is returned with `context.extraction_degraded`.

use serde_json::{Map, Value, json};
use warrant_graph::{Claim, Modality, Span};
use warrant_llm::{Llm, complete_json, prompts};
use warrant_text::OffsetMap;

use crate::{Answer, Extraction, Options, extract};

/// The stage name in call logs and degraded reasons.
pub const STAGE: &str = "graph.extract";

/// A claim as the model proposed it, located in the text (byte range).
#[derive(Debug, Clone, PartialEq)]
pub struct ProposedClaim {
    /// Byte range in the answer text.
    pub range: std::ops::Range<usize>,
    /// Modality.
    pub modality: Modality,
    /// Domain, when given.
    pub domain: Option<String>,
}

fn modality(s: &str) -> Option<Modality> {
    [Modality::Factual, Modality::Opinion, Modality::Conditional, Modality::Hypothetical, Modality::Instruction]
        .into_iter()
        .find(|m| m.as_str() == s)
}

/// The stage's schema, checked against the answer text.
pub fn claims_of_reply(v: &Value, text: &str) -> Result<Vec<ProposedClaim>, String> {
    let Some(items) = v.get("claims").and_then(Value::as_array) else {
        return Err("/claims: expected an array of claim objects".into());
    };
    let mut out = Vec::with_capacity(items.len());
    let mut cursor = 0;
    for (i, c) in items.iter().enumerate() {
        let t = c
            .get("text")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| format!("/claims/{i}/text: expected a non-empty string"))?;
        let m = c.get("modality").and_then(Value::as_str).and_then(modality).ok_or_else(|| {
            format!("/claims/{i}/modality: expected factual, opinion, conditional, hypothetical or instruction")
        })?;
        let domain = match c.get("domain") {
            None | Some(Value::Null) => None,
            Some(Value::String(d)) if !d.trim().is_empty() => Some(d.trim().to_string()),
            Some(_) => return Err(format!("/claims/{i}/domain: expected a non-empty string or null")),
        };
        let start = text[cursor..]
            .find(t)
            .map(|p| p + cursor)
            .or_else(|| text.find(t))
            .ok_or_else(|| format!("/claims/{i}/text: not found verbatim in the output"))?;
        cursor = start + t.len();
        out.push(ProposedClaim { range: start..start + t.len(), modality: m, domain });
    }
    Ok(out)
}

fn overlap(a: &Span, b: &Span) -> u64 {
    a.end.min(b.end).saturating_sub(a.start.max(b.start))
}

/// Extracts a graph whose claims come from the model (see the module docs).
pub fn extract_with_llm(answer: &Answer, opts: &Options, llm: &Llm) -> Extraction {
    let mut x = extract(answer, opts);
    let prose = &answer.text;
    let prompt = prompts::render(prompts::GRAPH_EXTRACT, &[("text", prose)]);
    let proposed = match complete_json(llm, STAGE, &prompt, |v| claims_of_reply(v, prose)) {
        Ok(out) => out.value,
        Err(e) => {
            x.diagnostics.push(format!("degraded: {}", e.reason));
            x.graph.context.get_or_insert_with(Map::new).insert("extraction_degraded".into(), Value::String(e.reason));
            return x;
        }
    };
    let map = OffsetMap::new(prose);
    let g = &mut x.graph;
    let new: Vec<Claim> = proposed
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let s = map.span_of(p.range.start, p.range.end);
            let span = Span { start: s.start as u64, end: s.end as u64 };
            let refs: Vec<String> = g
                .entities
                .iter()
                .filter(|e| e.span.start >= span.start && e.span.end <= span.end)
                .map(|e| e.id.clone())
                .collect();
            Claim {
                id: format!("c{}", i + 1),
                text: prose[p.range.clone()].to_string(),
                modality: p.modality,
                domain: p.domain.clone(),
                span,
                entity_refs: (!refs.is_empty()).then_some(refs),
                evidence: None,
            }
        })
        .collect();
    // Re-point references: each old claim maps to the new claim it overlaps most.
    let remap = |old_id: &str, old: &[Claim]| -> Option<String> {
        let o = old.iter().find(|c| c.id == old_id)?;
        new.iter().filter(|n| overlap(&n.span, &o.span) > 0).max_by_key(|n| overlap(&n.span, &o.span)).map(|n| n.id.clone())
    };
    let old = std::mem::take(&mut g.claims);
    for act in &mut g.discourse_acts {
        // Claims inside the act, by span, as the deterministic extractor assigns them.
        let refs: Vec<String> =
            new.iter().filter(|c| c.span.start >= act.span.start && c.span.end <= act.span.end).map(|c| c.id.clone()).collect();
        act.claim_refs = Some(refs);
    }
    let mut dropped = 0;
    g.citations.retain_mut(|cit| match remap(&cit.claim_id, &old) {
        Some(id) => {
            cit.claim_id = id;
            true
        }
        None => {
            dropped += 1;
            false
        }
    });
    if dropped > 0 {
        x.diagnostics.push(format!("{dropped} citation(s) dropped: no model claim overlaps the claim they supported"));
    }
    g.claims = new;
    let p = prompts::GRAPH_EXTRACT;
    g.context
        .get_or_insert_with(Map::new)
        .insert("extraction_method".into(), json!({"claims": "llm", "prompt": p.id, "model": llm.model()}));
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_located_verbatim() {
        let text = "Paris is in France. It is big. Paris is in France.";
        let v = json!({"claims": [
            {"text": "Paris is in France", "modality": "factual", "domain": "geography"},
            {"text": "It is big", "modality": "opinion"},
            {"text": "Paris is in France", "modality": "factual"}]});
        let c = claims_of_reply(&v, text).unwrap();
        assert_eq!(c.iter().map(|c| c.range.clone()).collect::<Vec<_>>(), vec![0..18, 20..29, 31..49]);
        assert_eq!(c[0].domain.as_deref(), Some("geography"));
        let bad = json!({"claims": [{"text": "Rome is in France", "modality": "factual"}]});
        assert_eq!(claims_of_reply(&bad, text).unwrap_err(), "/claims/0/text: not found verbatim in the output");
        let bad = json!({"claims": [{"text": "It is big", "modality": "question"}]});
        assert!(claims_of_reply(&bad, text).unwrap_err().starts_with("/claims/0/modality"));
        assert!(claims_of_reply(&json!([]), text).unwrap_err().starts_with("/claims"));
    }
}
