//! Id lookups built once per graph, so cross-reference predicates never scan.

use crate::model::PredicateGraph;

/// Sorted id tables over one graph. Building costs one sort per table; lookups are binary
/// searches, which beat hashing for the small graphs typical of model outputs.
#[derive(Debug, Clone, Default)]
pub struct GraphIndex<'g> {
    claim_ids: Vec<&'g str>,
    cited_claim_ids: Vec<&'g str>,
}

impl<'g> GraphIndex<'g> {
    /// Indexes `graph`.
    pub fn new(graph: &'g PredicateGraph) -> Self {
        let mut claim_ids: Vec<&str> = graph.claims.iter().map(|c| c.id.as_str()).collect();
        claim_ids.sort_unstable();
        let mut cited_claim_ids: Vec<&str> = graph.citations.iter().map(|c| c.claim_id.as_str()).collect();
        cited_claim_ids.sort_unstable();
        cited_claim_ids.dedup();
        Self { claim_ids, cited_claim_ids }
    }

    /// True when a claim has this id.
    pub fn has_claim(&self, id: &str) -> bool {
        self.claim_ids.binary_search(&id).is_ok()
    }

    /// True when some citation names this claim id.
    pub fn is_cited(&self, claim_id: &str) -> bool {
        self.cited_claim_ids.binary_search(&claim_id).is_ok()
    }
}
