//! HaluEval QA (`../shared/data/halueval/qa_one-turn_data.json`): every item's right answer and
//! hallucinated answer are checked with the question as context and the knowledge as the one
//! source. An answer is flagged when any claim is unsupported or contradicted. The must-hold
//! is response-level accuracy ≥ 0.95; every support edge must quote its source exactly.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_verify::{Corpus, Source};

#[test]
fn halueval_qa_accuracy_and_exact_selectors() {
    let Some(dir) = warrant_testkit::data_dir("halueval") else { return };
    let items = warrant_testkit::read_jsonl(&dir.join("qa_one-turn_data.json"));
    assert_eq!(items.len(), 500, "the QA file has 500 items");
    let checker = Checker::default();
    let (mut tp, mut fp, mut tn, mut fn_) = (0usize, 0usize, 0usize, 0usize);
    let mut edges = 0usize;
    for (i, item) in items.iter().enumerate() {
        let knowledge = item["knowledge"].as_str().unwrap();
        let question = item["question"].as_str().unwrap();
        let corpus = Corpus::new(vec![Source::new("knowledge", knowledge)]);
        for (field, hallucinated) in [("right_answer", false), ("hallucinated_answer", true)] {
            let answer = Answer { text: item[field].as_str().unwrap().to_string(), tool_calls: vec![], context: None, id: None };
            let report = checker
                .check(
                    &Request { answer: &answer, question: Some(question), output_id: Some(format!("halueval-{i}-{field}")) },
                    &corpus,
                )
                .unwrap();
            assert!(!report.claims.is_empty(), "item {i} {field}: a question was given, so the answer has a claim");
            for c in &report.claims {
                for e in &c.support_edges {
                    let quoted: String =
                        knowledge.chars().skip(e.selector.start).take(e.selector.end - e.selector.start).collect();
                    assert_eq!(quoted, e.selector.exact, "item {i} {field} {}: selector is not exact", e.edge_id);
                    assert_eq!(e.source_id, "knowledge");
                    edges += 1;
                }
            }
            let flagged = report.claims.iter().any(|c| c.status.flagged());
            match (hallucinated, flagged) {
                (true, true) => tp += 1,
                (false, true) => fp += 1,
                (false, false) => tn += 1,
                (true, false) => fn_ += 1,
            }
        }
    }
    let accuracy = (tp + tn) as f64 / (tp + tn + fp + fn_) as f64;
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fn_).max(1) as f64;
    eprintln!(
        "HaluEval QA: accuracy {accuracy:.4}, precision {precision:.4}, recall {recall:.4} (tp {tp}, fp {fp}, tn {tn}, fn {fn_}); {edges} edges exact"
    );
    assert!(accuracy >= 0.95, "response-level accuracy {accuracy:.4} < 0.95 (tp {tp}, fp {fp}, tn {tn}, fn {fn_})");
    assert!(edges > 500, "edges were checked ({edges})");
}
