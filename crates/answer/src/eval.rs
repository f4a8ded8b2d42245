//! The DS003 Exp3 "Grounded RAG" evaluation (spec §16): suites of questions with expected
//! verdicts and answers, per-question scoring and the suite-wide metrics with their gates.
//!
//! A suite is a directory in the Exp3 format: `corpus.json`, `questions.jsonl`, and
//! optionally `manual_facts.json`, `predicate_vocabulary.json` and `rules.json`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;
use warrant_store::{Store, StoreError};

use crate::contract::{Answer, Verdict, check_chain, validate_contract};
use crate::engine::Answerer;
use crate::plan::QueryPlan;

/// One suite question (a line of `questions.jsonl`).
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteQuestion {
    /// Question id.
    pub id: String,
    /// The question text.
    pub question: String,
    /// `supported`, `conflicting` or `unsupported`.
    pub expected_verdict: String,
    /// Expected answer text (for supported answers).
    pub expected_answer: Option<String>,
    /// The supplied plan, if any.
    pub plan: Option<Value>,
    /// Categories (`supported`, `unsupported`, `adversarial`, `conflicting`, `multihop`),
    /// from the line or by upstream's legacy rule.
    pub categories: Vec<String>,
    /// Minimum premises + derived entries of a valid chain.
    pub reasoning_steps: Option<usize>,
}

/// Reads `questions.jsonl`; errors name the line.
pub fn parse_questions(text: &str) -> Result<Vec<SuiteQuestion>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        let s = |k: &str| v[k].as_str().map(str::to_string);
        let (Some(id), Some(question), Some(expected_verdict)) = (s("id"), s("question"), s("expectedVerdict")) else {
            return Err(format!("line {}: expected id, question and expectedVerdict", i + 1));
        };
        let mut q = SuiteQuestion {
            id,
            question,
            expected_verdict,
            expected_answer: s("expectedAnswer"),
            plan: v.get("plan").filter(|p| !p.is_null()).cloned(),
            categories: v["categories"]
                .as_array()
                .map(|c| c.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
            reasoning_steps: v["reasoningSteps"].as_u64().map(|n| n as usize),
        };
        if q.categories.is_empty() {
            q.categories = legacy_categories(&q);
        }
        out.push(q);
    }
    Ok(out)
}

/// Upstream's categorisation (§16.1), used when a line has no `categories`.
pub fn legacy_categories(q: &SuiteQuestion) -> Vec<String> {
    let mut c = Vec::new();
    match q.expected_verdict.as_str() {
        "supported" => {
            c.push("supported".to_string());
            let params = q.plan.as_ref().and_then(|p| p["params"].as_object()).is_some_and(|m| !m.is_empty());
            if params || q.reasoning_steps.is_some_and(|n| n >= 2) {
                c.push("multihop".into());
            }
        }
        "unsupported" => c.push(if q.question.contains("localStorage") { "adversarial" } else { "unsupported" }.into()),
        "conflicting" => c.push("conflicting".into()),
        _ => {}
    }
    c
}

/// How a question was put: as text (planner) or as its supplied plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The natural-language question through the planner.
    Question,
    /// The supplied plan.
    Plan,
}

/// The score of one answer (§16.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    /// Question id.
    pub id: String,
    /// How it was asked.
    pub mode: Mode,
    /// Categories.
    pub categories: Vec<String>,
    /// Expected verdict.
    pub expected: String,
    /// Produced verdict.
    pub verdict: String,
    /// Produced text.
    pub text: Option<String>,
    /// Expected answer.
    pub expected_answer: Option<String>,
    /// v = e.
    pub verdict_match: bool,
    /// Text equals the expected answer (trimmed, lower-case) for expected-supported questions.
    pub answer_match: bool,
    /// Expected-unsupported questions are refused.
    pub refusal_match: bool,
    /// All three.
    pub overall: bool,
    /// The answer passes the contract validator.
    pub contract_ok: bool,
    /// For supported answers with a derived entry: whether the chain is valid.
    pub chain_valid: Option<bool>,
    /// Why, when something failed.
    pub note: Option<String>,
}

/// Scores one answer.
pub fn score(q: &SuiteQuestion, mode: Mode, answer: &Answer, chain: Option<Result<(), String>>) -> Scored {
    let v = answer.verdict.as_str().to_string();
    let e = q.expected_verdict.clone();
    let verdict_match = v == e;
    let answer_match = match (&*e, &q.expected_answer) {
        ("supported", Some(a)) => answer.text.as_deref().unwrap_or_default().trim().to_lowercase() == a.trim().to_lowercase(),
        _ => true,
    };
    let refusal_match = e != "unsupported" || answer.verdict == Verdict::Unsupported || answer.text.is_none();
    let contract = validate_contract(&answer.to_json());
    let mut note = None;
    if let Err(errs) = &contract {
        note = Some(errs.join("; "));
    }
    if let Some(Err(c)) = &chain {
        note = Some(c.clone());
    }
    Scored {
        id: q.id.clone(),
        mode,
        categories: q.categories.clone(),
        expected: e,
        verdict: v,
        text: answer.text.clone(),
        expected_answer: q.expected_answer.clone(),
        verdict_match,
        answer_match,
        refusal_match,
        overall: verdict_match && answer_match && refusal_match,
        contract_ok: contract.is_ok(),
        chain_valid: chain.map(|c| c.is_ok()),
        note,
    }
}

/// Asks every question (as text and, when it has one, as its plan), scoring each answer and
/// checking every produced chain. A supplied plan that fails validation is answered
/// `unsupported`, as spec §8.1 asks of plans from untrusted producers.
pub fn run_suite(
    answerer: &Answerer<'_>,
    store: &dyn Store,
    questions: &[SuiteQuestion],
) -> Result<Vec<(Scored, Answer)>, StoreError> {
    let mut out = Vec::new();
    for q in questions {
        let mut runs: Vec<(Mode, Answer, BTreeMap<String, Value>)> = Vec::new();
        let plan = answerer.plan(&q.question)?;
        let a = answerer.answer(&plan)?;
        runs.push((Mode::Question, a, plan.params()));
        if let Some(p) = &q.plan {
            match QueryPlan::from_json(p) {
                Ok(plan) => {
                    let a = answerer.answer(&plan)?;
                    runs.push((Mode::Plan, a, plan.params()));
                }
                Err(e) => {
                    runs.push((Mode::Plan, Answer::unsupported(p.clone(), vec![format!("invalid plan: {e}")]), BTreeMap::new()))
                }
            }
        }
        for (mode, a, params) in runs {
            let produced =
                a.verdict == Verdict::Supported && a.fact_chain.iter().any(|e| e.role == crate::contract::ChainRole::Derived);
            let chain = produced.then(|| check_chain(&a.to_json(), store, answerer.rules(), &params, q.reasoning_steps));
            out.push((score(q, mode, &a, chain), a));
        }
    }
    Ok(out)
}

/// Suite-wide metrics (§16.4); `None` when a denominator is 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Answers scored.
    pub answers: usize,
    /// Correct supported / answered supported.
    pub supported_precision: Option<f64>,
    /// Correct supported / expected supported.
    pub supported_recall: Option<f64>,
    /// Refusals over category `unsupported`.
    pub refusal_accuracy: Option<f64>,
    /// Refusals over category `adversarial`.
    pub adversarial_refusal: Option<f64>,
    /// True conflicts / detected conflicts.
    pub conflict_precision: Option<f64>,
    /// Detected conflicts / true conflicts.
    pub conflict_recall: Option<f64>,
    /// Valid chains / chains produced.
    pub chain_correctness: Option<f64>,
    /// Supported answers to expected-unsupported or -conflicting questions / all.
    pub hallucination_rate: Option<f64>,
    /// Every answer passes the contract validator.
    pub output_contract: bool,
    /// Answers whose verdict, text and refusal all match.
    pub overall: usize,
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// Computes the metrics over scored answers.
pub fn metrics(scored: &[Scored]) -> Metrics {
    let count = |f: &dyn Fn(&Scored) -> bool| scored.iter().filter(|s| f(s)).count();
    let good_supported = count(&|s| s.verdict == "supported" && s.expected == "supported" && s.answer_match);
    let in_cat = |c: &str| scored.iter().filter(|s| s.categories.iter().any(|x| x == c)).collect::<Vec<_>>();
    let refusal = |c: &str| {
        let v = in_cat(c);
        ratio(v.iter().filter(|s| s.refusal_match).count(), v.len())
    };
    let chains: Vec<bool> = scored.iter().filter_map(|s| s.chain_valid).collect();
    Metrics {
        answers: scored.len(),
        supported_precision: ratio(good_supported, count(&|s| s.verdict == "supported")),
        supported_recall: ratio(good_supported, count(&|s| s.expected == "supported")),
        refusal_accuracy: refusal("unsupported"),
        adversarial_refusal: refusal("adversarial"),
        conflict_precision: ratio(
            count(&|s| s.verdict == "conflicting" && s.expected == "conflicting"),
            count(&|s| s.verdict == "conflicting"),
        ),
        conflict_recall: ratio(
            count(&|s| s.verdict == "conflicting" && s.expected == "conflicting"),
            count(&|s| s.expected == "conflicting"),
        ),
        chain_correctness: ratio(chains.iter().filter(|c| **c).count(), chains.len()),
        hallucination_rate: ratio(
            count(&|s| s.verdict == "supported" && (s.expected == "unsupported" || s.expected == "conflicting")),
            scored.len(),
        ),
        output_contract: scored.iter().all(|s| s.contract_ok),
        overall: count(&|s| s.overall),
    }
}

/// One gate: name, value, operator, target and whether it passes (`None`: n/a).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gate {
    /// Metric name.
    pub name: &'static str,
    /// The value (`None`: denominator 0).
    pub value: Option<f64>,
    /// `>`, `<` or `all`.
    pub op: &'static str,
    /// The target.
    pub target: f64,
    /// Pass, fail, or n/a.
    pub pass: Option<bool>,
}

impl Metrics {
    /// DS003's gates (§16.4) over these metrics (extraction consistency and predicate
    /// coverage are the store's and are not repeated here).
    pub fn gates(&self) -> Vec<Gate> {
        let gt = |name, value: Option<f64>, target| Gate { name, value, op: ">", target, pass: value.map(|v| v > target) };
        let lt = |name, value: Option<f64>, target| Gate { name, value, op: "<", target, pass: value.map(|v| v < target) };
        vec![
            gt("supportedPrecision", self.supported_precision, 0.95),
            gt("supportedRecall", self.supported_recall, 0.85),
            gt("refusalAccuracy", self.refusal_accuracy, 0.90),
            gt("adversarialRefusal", self.adversarial_refusal, 0.80),
            gt("conflictPrecision", self.conflict_precision, 0.85),
            gt("conflictRecall", self.conflict_recall, 0.80),
            gt("chainCorrectness", self.chain_correctness, 0.90),
            lt("hallucinationRate", self.hallucination_rate, 0.05),
            Gate {
                name: "outputContract",
                value: Some(if self.output_contract { 1.0 } else { 0.0 }),
                op: "all",
                target: 1.0,
                pass: Some(self.output_contract),
            },
        ]
    }

    /// True when every applicable gate passes.
    pub fn passes(&self) -> bool {
        self.gates().iter().all(|g| g.pass != Some(false))
    }

    /// A Markdown table of the gates.
    pub fn table(&self) -> String {
        let mut s = String::from("| Metric | Value | Gate |\n|---|---|---|\n");
        for g in self.gates() {
            let value = g.value.map_or("null".to_string(), |v| format!("{v:.3}"));
            let pass = match g.pass {
                None => "n/a",
                Some(true) => "✔",
                Some(false) => "✘",
            };
            let _ = writeln!(s, "| {} | {value} | {} {} {pass} |", g.name, g.op, g.target);
        }
        s
    }
}

/// The fact as DS003 compares it across extraction runs (§14 step 2): the canonical JSON
/// (sorted keys) of `{subject, predicate, object, qualifiers, polarity}`.
pub fn consistency_key(f: &warrant_facts::Fact) -> String {
    serde_json::json!({"subject": f.subject, "predicate": f.predicate, "object": f.object.to_json(),
        "qualifiers": f.qualifiers, "polarity": f.polarity.as_str()})
    .to_string()
}

/// Extraction consistency (§14): the mean and minimum Jaccard similarity over every pair of
/// runs (Jaccard(∅, ∅) = 1; fewer than two runs give 1 and 1).
pub fn jaccard_consistency(runs: &[std::collections::BTreeSet<String>]) -> (f64, f64) {
    let mut sims = Vec::new();
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            let union = runs[i].union(&runs[j]).count();
            let inter = runs[i].intersection(&runs[j]).count();
            sims.push(if union == 0 { 1.0 } else { inter as f64 / union as f64 });
        }
    }
    if sims.is_empty() {
        return (1.0, 1.0);
    }
    let avg = sims.iter().sum::<f64>() / sims.len() as f64;
    (avg, sims.iter().copied().fold(1.0, f64::min))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_categories_follow_upstream() {
        let qs = parse_questions(
            r#"{"id":"a","question":"x","expectedVerdict":"supported","expectedAnswer":"y","plan":{"params":{"p":1}}}
{"id":"b","question":"in localStorage?","expectedVerdict":"unsupported","expectedAnswer":null}
{"id":"c","question":"z","expectedVerdict":"conflicting","categories":["conflicting","adversarial"]}"#,
        )
        .unwrap();
        assert_eq!(qs[0].categories, ["supported", "multihop"]);
        assert_eq!(qs[1].categories, ["adversarial"]);
        assert_eq!(qs[2].categories, ["conflicting", "adversarial"]);
        assert!(parse_questions("{\"id\": 1}").unwrap_err().starts_with("line 1"));
    }

    #[test]
    fn jaccard_of_runs() {
        let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<std::collections::BTreeSet<_>>();
        assert_eq!(jaccard_consistency(&[set(&["a"])]), (1.0, 1.0));
        assert_eq!(jaccard_consistency(&[set(&[]), set(&[])]), (1.0, 1.0));
        let (avg, min) = jaccard_consistency(&[set(&["a", "b"]), set(&["a"]), set(&["a", "b"])]);
        assert!((avg - (0.5 + 1.0 + 0.5) / 3.0).abs() < 1e-12 && min == 0.5);
    }

    #[test]
    fn metrics_with_empty_denominators_are_null() {
        let m = metrics(&[]);
        assert_eq!(m.supported_precision, None);
        assert!(m.passes());
        assert!(m.table().contains("| supportedPrecision | null | > 0.95 n/a |"));
    }
}
