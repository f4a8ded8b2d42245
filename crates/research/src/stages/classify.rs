//! classify (spec §6.1): candidate entities for the working topic.
//!
//! Tier `"0"` candidates are keyword/alias hits: runs of topic words found in the store's
//! entity index (and the `path_start_node` hint). Tier `"1"` candidates are BM25 hits over the
//! chunks. A candidate whose label occurs in the topic is tier `"0"` whatever found it.
//!
//! Relevance (project rule, so both kinds rank in one canonical order): an entity hit scores
//! `1 + covered words / topic words` (in (1, 2]); a BM25 hit scores its BM25 score divided by
//! the best hit's (in (0, 1]). Entity hits therefore come first.

use std::collections::{BTreeMap, BTreeSet};

use crate::graph::StoreGraph;
use crate::hints;
use crate::payload::{Candidate, ClassifierOutput};
use crate::stages::Working;
use crate::text::{Terms, contains_phrase, word_ranges};

/// Provenance label of classifier candidates.
pub const SOURCE: &str = "search_graph";
/// Default most candidates.
pub const DEFAULT_MAX_CANDIDATES: usize = 25;
/// Most candidates ever.
pub const MAX_CANDIDATES: usize = 200;

/// classify settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassifyConfig {
    /// Most candidates (default 25, at most 200; the `limit` hint overrides).
    pub max_candidates: usize,
}

impl Default for ClassifyConfig {
    fn default() -> Self {
        Self { max_candidates: DEFAULT_MAX_CANDIDATES }
    }
}

/// Canonical candidate order: relevance descending, then entity id ascending.
pub fn canonical_order(candidates: &mut [Candidate]) {
    candidates.sort_by(|a, b| b.relevance.total_cmp(&a.relevance).then_with(|| a.entity_id.cmp(&b.entity_id)));
}

/// Runs classify over the graph. A store error is a classify failure.
pub fn classify(graph: &StoreGraph<'_>, working: &Working, config: &ClassifyConfig) -> Result<ClassifierOutput, String> {
    let topic = working.topic.as_str();
    let max = working
        .hints
        .get("limit")
        .and_then(|l| l.trim().parse::<usize>().ok())
        .unwrap_or(config.max_candidates)
        .clamp(1, MAX_CANDIDATES);
    let total_words = word_ranges(topic).len().max(1) as f64;
    let scheme = graph.scheme().clone();
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen = BTreeSet::new();
    for hit in graph.entity_hits(topic)? {
        let id = scheme.entity_id(&hit.canonical);
        seen.insert(id.clone());
        out.push(Candidate {
            entity_id: id,
            tier: "0".into(),
            source: SOURCE.into(),
            relevance: 1.0 + hit.words as f64 / total_words,
            snippet_text: hit.snippet.map(|(s, _)| s).unwrap_or_default(),
            label: hit.label,
            entity_type: "entity".into(),
        });
    }
    if let Some(name) = working.hints.get("path_start_node")
        && let Some(e) = graph.store().entity_head(name, 1).map_err(|e| e.to_string())?
    {
        let id = scheme.entity_id(&e.id);
        if seen.insert(id.clone()) {
            out.push(Candidate {
                tier: if contains_phrase(topic, name) { "0" } else { "1" }.into(),
                entity_id: id,
                label: name.trim().to_string(),
                entity_type: "entity".into(),
                relevance: 1.0,
                snippet_text: String::new(),
                source: SOURCE.into(),
            });
        }
    }
    let hits = graph.search(topic, max)?;
    let top = hits.iter().map(|h| h.score).fold(0.0f64, f64::max);
    let terms = Terms::of(topic);
    let mut titles: BTreeMap<String, Option<String>> = BTreeMap::new();
    for h in hits {
        let Some(id) = scheme.chunk_id(&h.chunk_id) else { continue };
        if !seen.insert(id.clone()) {
            continue;
        }
        if !titles.contains_key(&h.doc_id) {
            let title = graph.store().document(&h.doc_id).map_err(|e| e.to_string())?.and_then(|d| d.title);
            titles.insert(h.doc_id.clone(), title);
        }
        let title = titles.get(&h.doc_id).cloned().flatten();
        let label = match title {
            Some(t) if !t.trim().is_empty() => t,
            _ => h.chunk_id.clone(),
        };
        out.push(Candidate {
            entity_id: id,
            tier: if contains_phrase(topic, &label) { "0" } else { "1" }.into(),
            source: SOURCE.into(),
            relevance: if top > 0.0 { h.score / top } else { 0.0 },
            snippet_text: graph.chunk_snippet(&h.text, &terms),
            label,
            entity_type: "chunk".into(),
        });
    }
    canonical_order(&mut out);
    out.truncate(max);
    let any_entity = out.iter().any(|c| c.entity_type == "entity" && c.tier == "0");
    Ok(ClassifierOutput {
        topic: topic.to_string(),
        tier: "0".into(),
        intent: if any_entity { "entity_lookup" } else { "topic_search" }.into(),
        confidence: 1.0,
        hints: {
            let mut h = hints::classifier_hints(&working.hints);
            if !h.contains_key("time_range")
                && let Some(r) = hints::derive_time_range(topic)
            {
                h.insert("time_range".into(), serde_json::Value::from(r));
            }
            h
        },
        candidates: out,
        degraded: false,
        degraded_reason: String::new(),
    })
}
