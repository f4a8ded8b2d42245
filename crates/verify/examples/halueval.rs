//! HaluEval QA: checks the right and the hallucinated answer of every item and prints the
//! response-level accuracy, flagging precision and recall, and (with `-v`) every miss.
//!
//! `cargo run --release -p warrant-verify --example halueval [-- -v]`

use warrant_extract::{Answer, Options as ExtractOptions, extract};
use warrant_verify::{Corpus, Options, Source, Status, add_answer_claim, verify};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let verbose = args.iter().any(|a| a == "-v");
    let only: Option<usize> = args.iter().position(|a| a == "--item").and_then(|i| args.get(i + 1)?.parse().ok());
    let Some(dir) = warrant_testkit::data_dir("halueval") else { return };
    let items = warrant_testkit::read_jsonl(&dir.join("qa_one-turn_data.json"));
    let (mut tp, mut fp, mut tn, mut fn_) = (0, 0, 0, 0);
    let start = std::time::Instant::now();
    for (i, item) in items.iter().enumerate() {
        if only.is_some_and(|o| o != i) {
            continue;
        }
        let knowledge = item["knowledge"].as_str().unwrap_or_default();
        let question = item["question"].as_str().unwrap_or_default();
        let corpus = Corpus::new(vec![Source::new("knowledge", knowledge)]);
        for (answer, hallucinated) in [
            (item["right_answer"].as_str().unwrap_or_default(), false),
            (item["hallucinated_answer"].as_str().unwrap_or_default(), true),
        ] {
            let a = Answer { text: answer.to_string(), tool_calls: vec![], context: None, id: None };
            let mut graph = extract(&a, &ExtractOptions::default()).graph;
            add_answer_claim(&mut graph, question);
            let results = verify(&graph, &corpus, &Options { question: Some(question.to_string()), explain: false });
            let flagged = results.iter().any(|r| r.status.flagged());
            if std::env::var("STATS").is_ok() {
                for r in &results {
                    println!("STAT {} {:?} {:.2} #{i} {}", if hallucinated { "H" } else { "R" }, r.status, r.confidence, r.text);
                }
            }
            match (hallucinated, flagged) {
                (true, true) => tp += 1,
                (false, true) => fp += 1,
                (false, false) => tn += 1,
                (true, false) => fn_ += 1,
            }
            if only.is_some() {
                println!("== {} answer: {answer}", if hallucinated { "hallucinated" } else { "right" });
                for r in &results {
                    println!("  [{}] {:?} {} — {}", r.claim_id, r.status, r.text, r.reason);
                    for w in warrant_verify::debug_windows(&r.text, &corpus, Some(question)) {
                        let s = &corpus.sentences()[w.first].range.start;
                        let e = &corpus.sentences()[w.last].range.end;
                        println!(
                            "    {}..{} support {:.2} context {:.2} rel {:.2} missing {} {:?}: {}",
                            w.first,
                            w.last,
                            w.support,
                            w.context,
                            w.relevance,
                            w.missing,
                            w.conflict,
                            &knowledge[*s..*e].chars().take(120).collect::<String>()
                        );
                    }
                }
            }
            if verbose && hallucinated != flagged {
                println!(
                    "#{i} {} Q: {question}\n  K: {knowledge}\n  A: {answer}",
                    if hallucinated { "MISSED" } else { "FALSE FLAG" }
                );
                for r in &results {
                    println!("  [{}] {:?} {} — {}", r.claim_id, r.status, r.text, r.reason);
                    for e in &r.support_edges {
                        println!("      {} {:?}: {}", e.edge_id, e.relationship, e.selector.exact);
                    }
                }
                if results.is_empty() {
                    println!("  (no claims)");
                }
            }
        }
    }
    let _ = Status::Supported;
    let total = (tp + fp + tn + fn_) as f64;
    println!(
        "accuracy {:.4}  precision {:.4}  recall {:.4}  (tp {tp} fp {fp} tn {tn} fn {fn_})  {:?}",
        (tp + tn) as f64 / total,
        tp as f64 / (tp + fp).max(1) as f64,
        tp as f64 / (tp + fn_).max(1) as f64,
        start.elapsed()
    );
}
