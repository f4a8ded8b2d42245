//! `is_supported(claim)`, `is_contradicted(claim)`, `is_unverified(claim)`: read the outcome of
//! claim verification, which travels with the graph as `context.claim_verification` — an
//! object from claim id to `{"status": …, "reason"?: …}` (`warrant check` writes it). A graph
//! nobody verified has no such object: every claim is then unverified, never supported.

use serde_json::Value;
use warrant_graph::{Claim, PredicateGraph};

use super::Diag;

/// Key of the verification results in the graph's context.
pub const CONTEXT_KEY: &str = "claim_verification";

/// The verification entry of a claim, if any.
fn entry<'a>(graph: &'a PredicateGraph, claim: &Claim) -> Option<&'a Value> {
    graph.context.as_ref()?.get(CONTEXT_KEY)?.get(&claim.id)
}

/// The claim's status string, if it was verified.
pub fn status<'a>(graph: &'a PredicateGraph, claim: &Claim) -> Option<&'a str> {
    entry(graph, claim)?.get("status")?.as_str()
}

fn reason<'a>(graph: &'a PredicateGraph, claim: &Claim) -> &'a str {
    entry(graph, claim).and_then(|e| e.get("reason")).and_then(Value::as_str).unwrap_or("")
}

/// True when the claim's status is `wanted`; otherwise says what it is and why.
pub fn has_status(graph: &PredicateGraph, claim: &Claim, wanted: &str, diag: &mut Diag<'_>) -> bool {
    match status(graph, claim) {
        Some(s) if s == wanted => true,
        Some(s) => {
            diag.push(|| {
                let why = reason(graph, claim);
                if why.is_empty() { format!("claim {} is {s}", claim.id) } else { format!("claim {} is {s}: {why}", claim.id) }
            });
            false
        }
        None => {
            diag.push(|| format!("claim {} was not verified (no verification result)", claim.id));
            false
        }
    }
}

/// True when nothing was checked for the claim: no result, or status `unverified`.
pub fn is_unverified(graph: &PredicateGraph, claim: &Claim, diag: &mut Diag<'_>) -> bool {
    match status(graph, claim) {
        None | Some("unverified") => true,
        Some(s) => {
            diag.push(|| format!("claim {} was verified: {s}", claim.id));
            false
        }
    }
}
