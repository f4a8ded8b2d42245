//! The four symbolic CAPE example texts: extracting them yields the same tool calls, code
//! blocks, citation-less factual claims and discourse types as the hand-made graphs, so the
//! same packs give the same violations.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use std::collections::BTreeSet;

use warrant_cpl::{Engine, ToolOrigin, ToolRegistry, packs};
use warrant_extract::{Answer, Options, extract};
use warrant_graph::{PredicateGraph, check_graph};
use warrant_testkit::{data_dir, read_json};

fn upstream(cape: &std::path::Path, ex: &str) -> PredicateGraph {
    check_graph(read_json(&cape.join(format!("examples/{ex}.json")))).graph.unwrap()
}

fn violations(g: &PredicateGraph, pack: &str, tools: &ToolRegistry) -> BTreeSet<(String, String, Option<String>)> {
    let p = packs::builtin(pack).unwrap().unwrap().clone();
    let e = Engine { tools: tools.clone(), ..Engine::default() };
    e.evaluate(&[p], g).unwrap().violations().map(|(_, pol, v)| (pol.to_string(), v.rule_id.clone(), v.node_id.clone())).collect()
}

#[test]
fn extracted_graphs_match_the_hand_made_ones() {
    let Some(cape) = data_dir("cape") else { return };
    let tools = ToolRegistry::from_json(&read_json(&cape.join("tools/tip-calc.tools.json")), ToolOrigin::File).unwrap();
    for (ex, pack) in [
        ("tool-use/tip-calc-violation", "core.tool-use.v1"),
        ("citation-grounding/factual-no-citation", "core.citation-grounding.v1"),
        ("safe-code/python-unsafe", "core.safe-code.v1"),
        ("customer-support/no-acknowledgment", "example.customer-support.v1"),
    ] {
        let up = upstream(&cape, ex);
        let answer = Answer { text: up.text.clone(), context: up.context.clone(), ..Answer::default() };
        let got = extract(&answer, &Options { output_id: Some(up.output_id.clone()) }).graph;
        common::assert_faithful(&got);

        let calls = |g: &PredicateGraph| {
            g.tool_calls.iter().map(|t| (t.name.clone(), serde_json::to_string(&t.arguments).unwrap())).collect::<Vec<_>>()
        };
        assert_eq!(calls(&got), calls(&up), "{ex}: tool calls");
        let code = |g: &PredicateGraph| g.code_blocks.iter().map(|c| (c.language.clone(), c.code.clone())).collect::<Vec<_>>();
        assert_eq!(code(&got), code(&up), "{ex}: code blocks");
        let uncited = |g: &PredicateGraph| {
            g.claims
                .iter()
                .filter(|c| c.modality == warrant_graph::Modality::Factual && !g.citations.iter().any(|x| x.claim_id == c.id))
                .count()
        };
        let types = |g: &PredicateGraph| g.discourse_acts.iter().map(|a| a.kind).collect::<BTreeSet<_>>();
        assert_eq!(types(&got), types(&up), "{ex}: discourse types");
        if ex.starts_with("citation") {
            assert_eq!(uncited(&got), uncited(&up), "{ex}: citation-less factual claims");
        }
        assert_eq!(violations(&got, pack, &tools), violations(&up, pack, &tools), "{ex}: violations");
        assert!(!violations(&got, pack, &tools).is_empty());
    }
}
