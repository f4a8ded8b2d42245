//! A model's second opinion on claims the rules leave `unsupported`, `partially_supported` or
//! `contradicted` (`warrant check --llm-verify`).
//!
//! For each such claim the model sees the claim, the question (if any) and the best source
//! sentences by BM25 ([`PASSAGES`], numbered), and replies with a status, the passage number,
//! an exact quote from that passage, its confidence and a one-sentence rationale
//! ([`warrant_llm::prompts::CLAIMS_VERIFY`]). The reply is valid only when the quote occurs
//! verbatim in the passage it names, so every model verdict points at exact source text; an
//! invalid reply is repaired once.
//!
//! - A `supported`, `partially_supported` or `contradicted` verdict with its quote replaces the
//!   rules' status; the quote becomes a support edge, and the claim's confidence is the
//!   model's own. The claim carries [`SecondOpinion`] (`method: "llm"`, the rules' status and
//!   reason), so a reader always sees that a model decided it.
//! - An `unsupported` verdict leaves the claim as the rules left it and is recorded.
//! - A `contradicted` status found by the rules is sent too, so that a second opinion can
//!   rescue a false block: the model's `contradicted` confirms it (its quote joins the
//!   evidence); a `supported` or `partially_supported` verdict with its exact quote replaces
//!   it; an `unsupported` verdict (the model found no conflict, and no support) makes the
//!   claim `unsupported`, since two readings that disagree are not a certain conflict. The
//!   rules' contradicting quotes stay as background edges. `supported` claims are not sent.
//! - When the model fails, the rules' result stands and the opinion records the `degraded`
//!   reason.

use serde::Serialize;
use serde_json::Value;
use warrant_llm::{Llm, complete_json, prompts};

use crate::analysis::Analysis;
use crate::{ClaimResult, Corpus, Edge, Relationship, Selector, Status};

/// The stage name in call logs and degraded reasons.
pub const STAGE: &str = "claims.verify";
/// Source sentences shown to the model per claim.
pub const PASSAGES: usize = 5;

/// What the model said about a claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SecondOpinion {
    /// Always `llm`: this verdict comes from a model, not from rules.
    pub method: &'static str,
    /// The model.
    pub model: String,
    /// The prompt id.
    pub prompt: &'static str,
    /// The status the rules gave.
    pub rules_status: Status,
    /// The rules' reason.
    pub rules_reason: String,
    /// The model's status (absent when the model failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The model's rationale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// Why there is no model verdict (call failed, output rejected twice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<String>,
}

/// A passage shown to the model: a source sentence.
struct Passage {
    doc: usize,
    range: std::ops::Range<usize>,
}

/// A validated reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The status.
    pub status: Status,
    /// Index into the passages, and the quote's byte range within that passage.
    pub quote: Option<(usize, std::ops::Range<usize>)>,
    /// The model's confidence.
    pub confidence: f64,
    /// One sentence.
    pub rationale: String,
}

/// Validates a reply against the passages' texts.
pub fn parse_verdict(v: &Value, passages: &[&str]) -> Result<Verdict, String> {
    let status = match v.get("status").and_then(Value::as_str) {
        Some("supported") => Status::Supported,
        Some("partially_supported") => Status::PartiallySupported,
        Some("unsupported") => Status::Unsupported,
        Some("contradicted") => Status::Contradicted,
        _ => return Err("/status: expected supported, partially_supported, unsupported or contradicted".into()),
    };
    let confidence = v
        .get("confidence")
        .and_then(Value::as_f64)
        .filter(|c| (0.0..=1.0).contains(c))
        .ok_or("/confidence: expected a number in [0, 1]")?;
    let rationale = v.get("rationale").and_then(Value::as_str).unwrap_or_default().trim().to_string();
    if status == Status::Unsupported {
        return Ok(Verdict { status, quote: None, confidence, rationale });
    }
    let n = v
        .get("passage")
        .and_then(Value::as_u64)
        .filter(|n| (1..=passages.len() as u64).contains(n))
        .ok_or_else(|| format!("/passage: expected a passage number from 1 to {}", passages.len()))?;
    let text = passages[n as usize - 1];
    let quote = v
        .get("quote")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or("/quote: expected the exact text quoted")?;
    let at = text.find(quote).ok_or_else(|| format!("/quote: not found verbatim in passage {n}"))?;
    Ok(Verdict { status, quote: Some((n as usize - 1, at..at + quote.len())), confidence, rationale })
}

fn relationship(s: Status) -> Relationship {
    match s {
        Status::Supported => Relationship::Supports,
        Status::PartiallySupported => Relationship::PartiallySupports,
        Status::Contradicted => Relationship::Contradicts,
        _ => Relationship::Background,
    }
}

fn round3(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

/// The rules' contradicting quotes of a claim the model did not confirm as contradicted: kept
/// for the reader, no longer a conflict.
fn demote_conflicts(r: &mut ClaimResult) {
    for e in r.support_edges.iter_mut().filter(|e| e.relationship == Relationship::Contradicts) {
        e.relationship = Relationship::Background;
    }
}

/// Asks the model about every `unsupported`, `partially_supported` or `contradicted` claim (see
/// the module docs) and updates the results in place. Claims are asked in order, one at a time.
pub fn second_opinion(results: &mut [ClaimResult], corpus: &Corpus, question: Option<&str>, llm: &Llm) {
    let asked = question.map(Analysis::of);
    let reviewed =
        |r: &&mut ClaimResult| matches!(r.status, Status::Unsupported | Status::PartiallySupported | Status::Contradicted);
    for r in results.iter_mut().filter(reviewed) {
        let analysis = Analysis::of(&r.text);
        let weighted: Vec<(String, f64)> = asked
            .as_ref()
            .map(|q| q.keys.iter().filter(|k| !analysis.terms.contains(k)).map(|k| (k.clone(), crate::QUESTION_WEIGHT)).collect())
            .unwrap_or_default();
        let passages: Vec<Passage> = corpus
            .retrieve(&analysis.terms, &weighted, PASSAGES)
            .into_iter()
            .map(|i| {
                let s = &corpus.sentences()[i];
                Passage { doc: s.doc, range: s.range.clone() }
            })
            .collect();
        if passages.is_empty() {
            continue;
        }
        let texts: Vec<&str> = passages.iter().map(|p| &corpus.doc(p.doc).text[p.range.clone()]).collect();
        let listed: Vec<String> = texts
            .iter()
            .zip(&passages)
            .enumerate()
            .map(|(i, (t, p))| format!("[{}] ({}) {t}", i + 1, corpus.doc(p.doc).id))
            .collect();
        let q = question.map(|q| format!("Question the claim answers: {q}")).unwrap_or_default();
        let prompt =
            prompts::render(prompts::CLAIMS_VERIFY, &[("claim", &r.text), ("question", &q), ("passages", &listed.join("\n"))]);
        let mut opinion = SecondOpinion {
            method: "llm",
            model: llm.model().to_string(),
            prompt: prompts::CLAIMS_VERIFY.id,
            rules_status: r.status,
            rules_reason: r.reason.clone(),
            status: None,
            rationale: None,
            degraded: None,
        };
        match complete_json(llm, STAGE, &prompt, |v| parse_verdict(v, &texts)) {
            Err(e) => opinion.degraded = Some(e.reason),
            Ok(out) => {
                let v = out.value;
                opinion.status = Some(v.status);
                opinion.rationale = Some(v.rationale.clone());
                if r.status == Status::Contradicted && v.status == Status::Unsupported {
                    demote_conflicts(r);
                    r.status = Status::Unsupported;
                    r.confidence = 0.0;
                    r.reason =
                        format!("the rules found a conflict the model did not ({}): {}", prompts::CLAIMS_VERIFY.id, v.rationale);
                }
                if let Some((i, q)) = v.quote {
                    if r.status == Status::Contradicted && v.status != Status::Contradicted {
                        demote_conflicts(r);
                    }
                    let p = &passages[i];
                    let doc = corpus.doc(p.doc);
                    let range = p.range.start + q.start..p.range.start + q.end;
                    let (start, end) = corpus.char_span(p.doc, &range);
                    let confidence = round3(v.confidence);
                    r.support_edges.insert(
                        0,
                        Edge {
                            edge_id: format!("{}-m1", r.claim_id),
                            relationship: relationship(v.status),
                            source_id: doc.id.clone(),
                            selector: Selector {
                                exact: doc.text[range].to_string(),
                                start: start + doc.offset,
                                end: end + doc.offset,
                            },
                            confidence,
                        },
                    );
                    r.status = v.status;
                    r.confidence = confidence;
                    r.reason = format!("model second opinion ({}): {}", prompts::CLAIMS_VERIFY.id, v.rationale);
                }
            }
        }
        r.second_opinion = Some(opinion);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verdicts_need_exact_quotes() {
        let p = ["Paris is the capital of France.", "Lyon is large."];
        let v = parse_verdict(
            &json!({"status": "supported", "passage": 1, "quote": "capital of France", "confidence": 0.8, "rationale": "r"}),
            &p,
        )
        .unwrap();
        assert_eq!((v.status, v.quote, v.confidence), (Status::Supported, Some((0, 13..30)), 0.8));
        let e = parse_verdict(&json!({"status": "supported", "passage": 2, "quote": "capital of France", "confidence": 0.8}), &p)
            .unwrap_err();
        assert_eq!(e, "/quote: not found verbatim in passage 2");
        let e = parse_verdict(&json!({"status": "supported", "passage": 3, "quote": "x", "confidence": 0.8}), &p).unwrap_err();
        assert_eq!(e, "/passage: expected a passage number from 1 to 2");
        let e = parse_verdict(&json!({"status": "true", "confidence": 1}), &p).unwrap_err();
        assert!(e.starts_with("/status"));
        let v = parse_verdict(
            &json!({"status": "unsupported", "passage": null, "quote": "", "confidence": 0.7, "rationale": "none"}),
            &p,
        )
        .unwrap();
        assert_eq!((v.status, v.quote), (Status::Unsupported, None));
        assert!(parse_verdict(&json!({"status": "unsupported", "confidence": 2}), &p).unwrap_err().starts_with("/confidence"));
    }
}
