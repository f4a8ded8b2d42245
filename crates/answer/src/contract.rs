//! The answer contract (spec §12.1, camelCase) and its validator (§13), plus the chain
//! check used for DS003's chain correctness (§16.4).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value, json};
use warrant_facts::Fact;
use warrant_facts::{Bindings, match_with};
use warrant_store::Store;

use crate::rules::{RuleLibrary, object_text};

/// The verdict of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// A proof was found and none of the facts it needs is in conflict.
    Supported,
    /// A fact group the answer needs holds conflicting values.
    Conflicting,
    /// No proof: nothing retrieved, no rule, a missing param, an invalid plan.
    Unsupported,
}

impl Verdict {
    /// `supported`, `conflicting` or `unsupported`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Supported => "supported",
            Self::Conflicting => "conflicting",
            Self::Unsupported => "unsupported",
        }
    }
}

/// The role of a chain entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChainRole {
    /// A stored fact.
    Premise,
    /// A fact concluded by a rule.
    Derived,
    /// The answer itself.
    Conclusion,
}

/// One entry of a fact chain (§11.5).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainEntry {
    /// `f…` for premises, `derived<k>`, `conclusion0`.
    pub fact_id: String,
    /// The entry's role.
    pub role: ChainRole,
    /// The fact: the normalised stored fact for premises; `{subject, predicate, object,
    /// qualifiers, rule, from}` for derived entries; `{subject, predicate: "answer", object,
    /// from}` for the conclusion.
    pub fact: Value,
}

/// A conflicting pair (§10): full normalised facts with ids and the reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    /// The representative of the best-ranked value class.
    pub fact1: Value,
    /// The representative of another class.
    pub fact2: Value,
    /// `polarity_mismatch`, `version_mismatch` or `object_mismatch`.
    pub reason: String,
}

/// An answer (§12.1), with the plan that produced it and optional diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The answer text; `null` unless `supported`.
    pub text: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// Chunks of the facts the answer cites, in chain order.
    pub chunks_used: Vec<String>,
    /// The fact chain.
    pub fact_chain: Vec<ChainEntry>,
    /// Support score per chain entry, in [0, 1].
    #[cfg_attr(feature = "openapi", schema(value_type = BTreeMap<String, Option<f64>>))]
    pub support_scores: BTreeMap<String, Value>,
    /// Minimal conflicting pairs.
    pub conflicts: Vec<Conflict>,
    /// The plan used (supplied or planned).
    #[cfg_attr(feature = "openapi", schema(value_type = crate::QueryPlan))]
    pub plan: Value,
    /// Why the answer is what it is (ignored by consumers and scoring).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
}

impl Answer {
    /// An `unsupported` answer with its reasons.
    pub fn unsupported(plan: Value, diagnostics: Vec<String>) -> Self {
        Self {
            text: None,
            verdict: Verdict::Unsupported,
            chunks_used: Vec::new(),
            fact_chain: Vec::new(),
            support_scores: BTreeMap::new(),
            conflicts: Vec::new(),
            plan,
            diagnostics,
        }
    }

    /// The answer as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Checks an answer against the contract (§13). Returns every rule it breaks.
pub fn validate_contract(answer: &Value) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let Some(m) = answer.as_object() else { return Err(vec!["/: expected an answer object".into()]) };
    for key in ["text", "verdict", "chunksUsed", "factChain", "supportScores", "conflicts"] {
        if !m.contains_key(key) {
            errors.push(format!("/{key}: missing"));
        }
    }
    let verdict = m.get("verdict").and_then(Value::as_str).unwrap_or_default();
    if !["supported", "conflicting", "unsupported"].contains(&verdict) {
        errors.push(format!("/verdict: {verdict:?} is not supported, conflicting or unsupported"));
    }
    let chain = m.get("factChain").and_then(Value::as_array).cloned().unwrap_or_default();
    if m.get("factChain").is_some_and(|c| !c.is_array()) {
        errors.push("/factChain: expected an array".into());
    }
    let text = m.get("text");
    if text.is_some_and(|t| !t.is_null() && !t.is_string()) {
        errors.push("/text: expected a string or null".into());
    }
    if verdict == "supported" {
        if chain.is_empty() {
            errors.push("/factChain: a supported answer needs a non-empty chain".into());
        }
        match text.and_then(Value::as_str) {
            None => errors.push("/text: a supported answer needs text".into()),
            Some(t) => {
                let conclusions: Vec<&Value> = chain.iter().filter(|e| e["role"] == "conclusion").collect();
                let last_is_conclusion = chain.last().is_some_and(|e| e["role"] == "conclusion");
                if conclusions.len() != 1 || !last_is_conclusion {
                    errors.push("/factChain: a supported chain ends with exactly one conclusion".into());
                } else if conclusions[0]["fact"]["object"].as_str() != Some(t) {
                    errors.push("/factChain: the conclusion's object differs from text".into());
                }
            }
        }
    }
    if verdict == "unsupported" && text.is_some_and(|t| !t.is_null()) {
        errors.push("/text: an unsupported answer has text null".into());
    }
    if verdict == "conflicting" && m.get("conflicts").and_then(Value::as_array).is_none_or(Vec::is_empty) {
        errors.push("/conflicts: a conflicting answer lists its conflicts".into());
    }
    let scores = m.get("supportScores").and_then(Value::as_object).cloned().unwrap_or_default();
    for (i, e) in chain.iter().enumerate() {
        let Some(id) = e["factId"].as_str() else {
            errors.push(format!("/factChain/{i}/factId: expected a string"));
            continue;
        };
        match scores.get(id).and_then(Value::as_f64) {
            Some(s) if (0.0..=1.0).contains(&s) => {}
            _ => errors.push(format!("/supportScores/{id}: expected a score in [0, 1]")),
        }
    }
    match m.get("chunksUsed") {
        Some(Value::Array(c)) if c.iter().all(Value::is_string) => {}
        Some(_) => errors.push("/chunksUsed: expected an array of strings".into()),
        None => {}
    }
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Checks a produced chain (§16.4 chain correctness): (1) every premise is a stored fact
/// with identical content; (2) re-running each derived entry's rule on its `from` entries
/// and the params reproduces it; (3) the chain ends with one conclusion equal to `text`;
/// (4) premises + derived entries ≥ `reasoning_steps` when given.
pub fn check_chain(
    answer: &Value,
    store: &dyn Store,
    rules: &RuleLibrary,
    params: &BTreeMap<String, Value>,
    reasoning_steps: Option<usize>,
) -> Result<(), String> {
    let chain = answer["factChain"].as_array().ok_or("no chain")?;
    let mut facts: BTreeMap<String, Value> = BTreeMap::new();
    let mut steps = 0;
    for (i, e) in chain.iter().enumerate() {
        let id = e["factId"].as_str().ok_or(format!("entry {i}: no factId"))?;
        match e["role"].as_str() {
            Some("premise") => {
                let stored = store.fact(id).map_err(|e| e.to_string())?.ok_or(format!("premise {id} is not in the store"))?;
                if stored.to_json(true) != e["fact"] {
                    return Err(format!("premise {id} differs from the stored fact"));
                }
                facts.insert(id.into(), e["fact"].clone());
                steps += 1;
            }
            Some("derived") => {
                rerun(id, &e["fact"], &facts, rules, params)?;
                facts.insert(id.into(), e["fact"].clone());
                steps += 1;
            }
            Some("conclusion") => {
                if i + 1 != chain.len() {
                    return Err("the conclusion is not the last entry".into());
                }
                if e["fact"]["object"] != answer["text"] {
                    return Err("the conclusion differs from text".into());
                }
                for f in e["fact"]["from"].as_array().ok_or("conclusion without from")? {
                    if !facts.contains_key(f.as_str().unwrap_or_default()) {
                        return Err(format!("the conclusion cites {f}, which is not earlier in the chain"));
                    }
                }
            }
            _ => return Err(format!("entry {i}: unknown role")),
        }
    }
    if chain.last().is_none_or(|e| e["role"] != "conclusion") {
        return Err("the chain does not end with a conclusion".into());
    }
    if let Some(n) = reasoning_steps
        && steps < n
    {
        return Err(format!("{steps} premises and derived entries, fewer than the {n} reasoning steps"));
    }
    Ok(())
}

/// Re-runs a derived entry's rule on its `from` facts: the body patterns must unify with them
/// in order, the compute must hold its recorded value, and the head must equal the entry.
fn rerun(
    id: &str,
    derived: &Value,
    earlier: &BTreeMap<String, Value>,
    rules: &RuleLibrary,
    params: &BTreeMap<String, Value>,
) -> Result<(), String> {
    let rule_id = derived["rule"].as_str().ok_or(format!("{id}: no rule"))?;
    let rule = rules.get(rule_id).ok_or(format!("{id}: unknown rule {rule_id}"))?;
    let from = derived["from"].as_array().ok_or(format!("{id}: no from"))?;
    if from.len() != rule.body.len() {
        return Err(format!("{id}: {} premises for a body of {}", from.len(), rule.body.len()));
    }
    let mut bindings = Bindings::new();
    for (pattern, f) in rule.body.iter().zip(from) {
        let fid = f.as_str().unwrap_or_default();
        let fact = earlier.get(fid).ok_or(format!("{id}: cites {fid}, which is not earlier in the chain"))?;
        if fact.get("polarity").is_some_and(|p| p != "affirm") {
            return Err(format!("{id}: rule bodies take affirmed facts only"));
        }
        let lookup = |role: &str| -> Option<&Value> {
            match role {
                "subject" | "predicate" | "object" => fact.get(role),
                other => fact["qualifiers"].get(other),
            }
        };
        bindings = match_with(&pattern.signature(), lookup, bindings).ok_or(format!("{id}: {fid} does not match the body"))?;
    }
    if let Some(c) = &rule.compute {
        let v = c.evaluate(&bindings, params)?;
        bindings.insert(c.bind.clone(), Value::Bool(v));
    }
    let resolve = |v: &Value| -> Value {
        match v.as_str().filter(|s| s.starts_with('?')) {
            Some(var) => bindings.get(var).cloned().unwrap_or(Value::Null),
            None => v.clone(),
        }
    };
    if !rule.applies_to(&resolve(&rule.head.subject)) {
        return Err(format!("{id}: {rule_id} does not apply to its subject"));
    }
    let expect =
        json!({"subject": resolve(&rule.head.subject), "predicate": rule.head.predicate, "object": resolve(&rule.head.object)});
    for role in ["subject", "predicate", "object"] {
        if derived[role] != expect[role] {
            return Err(format!("{id}: re-running {rule_id} gives {role} {} not {}", expect[role], derived[role]));
        }
    }
    Ok(())
}

/// The derived entry's fact object (§11.5).
pub fn derived_fact(
    subject: &Value,
    predicate: &str,
    object: &Value,
    version: Option<&str>,
    rule: &str,
    from: &[String],
) -> Value {
    let mut q = Map::new();
    if let Some(v) = version {
        q.insert("version".into(), Value::String(v.into()));
    }
    json!({"subject": subject, "predicate": predicate, "object": object, "qualifiers": q, "rule": rule, "from": from})
}

/// The conclusion entry's fact object (§11.5).
pub fn conclusion_fact(subject: &Value, text: &str, from: &[String]) -> Value {
    json!({"subject": subject, "predicate": "answer", "object": text, "from": from})
}

/// Checks that a premise's span points at text naming its subject and object: the chunk
/// text under the span, normalised (lower-case, non-alphanumerics as spaces), contains the
/// subject (underscores as spaces, or its `s`-plural / `s`-stripped form) and the object
/// (the same for strings; numbers by their decimal text).
pub fn span_names_subject_and_object(fact: &Fact, chunk_text: &str) -> bool {
    let snippet = warrant_text::clamp_slice(chunk_text, fact.span.start, fact.span.end);
    let norm = |s: &str| -> String {
        s.to_lowercase()
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let hay = format!(" {} ", norm(snippet));
    let has = |term: &str| -> bool {
        let t = norm(&term.replace('_', " "));
        if t.is_empty() {
            return false;
        }
        [t.clone(), format!("{t}s"), format!("{t}es"), t.strip_suffix('s').unwrap_or(&t).to_string()]
            .iter()
            .any(|v| hay.contains(&format!(" {v} ")))
    };
    has(&fact.subject) && has(&object_text(&fact.object.to_json()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_must_name_subject_and_object() {
        let chunk = "Intro. The checkout service requires the payment gateway. Other text.";
        let fact = |start: usize, end: usize, object: &str| {
            Fact::from_manual_json(&json!({"subject": "checkout_service", "predicate": "requires", "object": object,
                "span": {"start": start, "end": end}, "source": {"docId": "d", "chunkId": "c"}}))
            .unwrap()
        };
        assert!(span_names_subject_and_object(&fact(7, 57, "payment_gateway"), chunk));
        assert!(!span_names_subject_and_object(&fact(7, 30, "payment_gateway"), chunk), "object outside the span");
        assert!(!span_names_subject_and_object(&fact(7, 57, "fraud_engine"), chunk), "another object");
        assert!(!span_names_subject_and_object(&fact(0, 0, "payment_gateway"), chunk), "placeholder span");
    }

    #[test]
    fn the_validator_enforces_every_rule() {
        let good = json!({"text": "15 minutes", "verdict": "supported", "chunksUsed": ["c2"],
            "factChain": [{"factId": "f1", "role": "premise", "fact": {}},
                          {"factId": "conclusion0", "role": "conclusion", "fact": {"object": "15 minutes"}}],
            "supportScores": {"f1": 1, "conclusion0": 1}, "conflicts": []});
        assert_eq!(validate_contract(&good), Ok(()));
        let bad = |f: &dyn Fn(&mut Value)| {
            let mut v = good.clone();
            f(&mut v);
            validate_contract(&v).unwrap_err().join("; ")
        };
        assert!(bad(&|v| v["verdict"] = json!("maybe")).contains("/verdict"));
        assert!(bad(&|v| v["text"] = Value::Null).contains("needs text"));
        assert!(bad(&|v| v["factChain"][1]["fact"]["object"] = json!("16 minutes")).contains("differs from text"));
        assert!(bad(&|v| v["supportScores"]["f1"] = json!(2)).contains("/supportScores/f1"));
        assert!(bad(&|v| v["chunksUsed"] = json!([2])).contains("/chunksUsed"));
        assert!(
            bad(&|v| {
                v.as_object_mut().unwrap().remove("conflicts");
            })
            .contains("/conflicts: missing")
        );
        assert!(bad(&|v| v["verdict"] = json!("unsupported")).contains("text null"));
        assert!(bad(&|v| v["verdict"] = json!("conflicting")).contains("lists its conflicts"));
        assert!(bad(&|v| v["factChain"] = json!([])).contains("non-empty chain"));
    }
}
