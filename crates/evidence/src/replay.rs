//! The replay case of a run that asked a model (`--llm-*`): which outputs came from a model,
//! which were replayed from the record/replay cache, and what a replay needs.
//!
//! - `determinism` is `deterministic` when no model was asked, `approximate` otherwise: a
//!   replay from the cache reproduces the recorded outputs byte for byte, but a live rerun may
//!   not.
//! - `replay_steps` lists every model call in the order given (callers sort them): stage,
//!   request key, model, and `output` = `model` (produced by a model in this run), `replayed`
//!   (read back from the cache) or `failed` (the stage fell back to its deterministic
//!   implementation).
//! - `input_refs` name each distinct request by its key (`sha256:<key>`), with the cache file
//!   as `uri` when a cache was used.
//! - `missing_facts` record model outputs that were not recorded (no cache): they cannot be
//!   replayed. With everything recorded, the extension `notes` says what a replay relies on.

use serde_json::{Value, json};

use crate::builder::BuildError;
use crate::ids::stable_id;
use crate::model::{Determinism, MissingFact, MissingReason, Object, Ref, ReplayCase, Scope};

/// One model call behind a run.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ModelCall {
    /// The stage (`facts.extract`, `claims.verify`, …).
    pub stage: String,
    /// The request key (SHA-256 hex of the canonical request).
    pub request_key: String,
    /// The model asked.
    pub model: String,
    /// `Some(true)`: replayed from the cache; `Some(false)`: produced by a model in this run;
    /// `None`: the call failed.
    pub replayed: Option<bool>,
}

/// The replay case for `calls` (see the module docs). `cache` is the record/replay folder,
/// when one was used.
pub fn model_replay_case(
    scope: Scope,
    evidence_pack_id: Option<&str>,
    calls: &[ModelCall],
    cache: Option<&str>,
) -> Result<ReplayCase, BuildError> {
    let keys: Vec<&str> = calls.iter().map(|c| c.request_key.as_str()).collect();
    let mut id_parts = vec![evidence_pack_id.unwrap_or("")];
    id_parts.extend(&keys);
    let determinism = if calls.is_empty() { Determinism::Deterministic } else { Determinism::Approximate };
    let steps: Vec<Object> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let output = match c.replayed {
                Some(true) => "replayed",
                Some(false) => "model",
                None => "failed",
            };
            let v = json!({"step": i + 1, "stage": c.stage, "request_key": c.request_key, "model": c.model, "output": output});
            match v {
                Value::Object(m) => m,
                _ => Object::new(),
            }
        })
        .collect();
    let mut seen = std::collections::BTreeSet::new();
    let refs: Vec<Ref> = calls
        .iter()
        .filter(|c| seen.insert(c.request_key.as_str()))
        .map(|c| Ref {
            ref_id: Some(format!("llm-request-{}", &c.request_key[..c.request_key.len().min(16)])),
            kind: Some("model_request".into()),
            uri: cache.map(|d| format!("{}/{}.json", d.trim_end_matches('/'), c.request_key)),
            hash: Some(format!("sha256:{}", c.request_key)),
            media_type: Some("application/json".into()),
            schema_ref: None,
            extra: Object::new(),
        })
        .collect();
    let mut missing = Vec::new();
    if cache.is_none() {
        for c in calls.iter().filter(|c| c.replayed == Some(false)) {
            let mut f =
                MissingFact::new(MissingReason::NotCollected, format!("{} output for request {}", c.stage, c.request_key));
            f.details = Some("the model's output was not recorded (no --llm-cache); a rerun may differ".into());
            missing.push(f);
        }
    }
    let mut extra = Object::new();
    if !calls.is_empty() && missing.is_empty() {
        extra.insert(
            "notes".into(),
            Value::String(
                "model outputs are replayed byte for byte from the record/replay cache; a live rerun of the model may differ"
                    .into(),
            ),
        );
    }
    let case = ReplayCase {
        replay_id: stable_id("rpl", &id_parts),
        evidence_pack_id: evidence_pack_id.map(str::to_string),
        schema_version: crate::model::SCHEMA_VERSION.into(),
        scope,
        input_refs: (!refs.is_empty()).then_some(refs),
        snapshot_refs: None,
        trace_refs: None,
        determinism,
        missing_facts: (!missing.is_empty()).then_some(missing),
        expected_outputs: None,
        replay_steps: (!steps.is_empty()).then_some(steps),
        created_at: None,
        updated_at: None,
        producer: None,
        extra,
    };
    crate::builder::check_replay(&case)?;
    Ok(case)
}
