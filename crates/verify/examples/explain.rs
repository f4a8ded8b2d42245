//! Prints, for one claim-suite item (or a claim against source files), every candidate window
//! with its signals. `cargo run -p warrant-verify --example explain -- <item-id>`
//! or `-- --claim "text" --source FILE... [--question Q]`.

use warrant_extract::{Answer, Options as ExtractOptions, extract};
use warrant_verify::{Corpus, Options, Source, add_answer_claim, debug_focus, debug_windows, verify};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (sources, answer, question) = if args.first().is_some_and(|a| a == "--claim") {
        let claim = args[1].clone();
        let mut srcs = Vec::new();
        let mut q = None;
        let mut i = 2;
        while i < args.len() {
            match args[i].as_str() {
                "--source" => {
                    srcs.push(Source::new(args[i + 1].clone(), std::fs::read_to_string(&args[i + 1]).unwrap_or_default()));
                    i += 2;
                }
                "--question" => {
                    q = Some(args[i + 1].clone());
                    i += 2;
                }
                _ => i += 1,
            }
        }
        (srcs, claim, q)
    } else {
        let id = args.first().cloned().unwrap_or_default();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claims.jsonl");
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let Some(item) =
            text.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).find(|v| v["id"] == id.as_str())
        else {
            eprintln!("no item {id}");
            return;
        };
        let srcs = item["sources"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| Source::new(s["id"].as_str().unwrap_or_default(), s["text"].as_str().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default();
        (srcs, item["answer"].as_str().unwrap_or_default().to_string(), item["question"].as_str().map(str::to_string))
    };
    let corpus = Corpus::new(sources);
    let a = Answer { text: answer, tool_calls: vec![], context: None, id: None };
    let mut graph = extract(&a, &ExtractOptions::default()).graph;
    if let Some(q) = &question {
        add_answer_claim(&mut graph, q);
    }
    for r in verify(&graph, &corpus, &Options { question: question.clone(), explain: true }) {
        println!("[{}] {:?} {:?} — {}", r.claim_id, r.status, r.text, r.reason);
        println!("    {}", debug_focus(&r.text, &corpus, question.as_deref()));
        for w in debug_windows(&r.text, &corpus, question.as_deref()) {
            let s = corpus.sentences()[w.first].range.start;
            let e = corpus.sentences()[w.last].range.end;
            let doc = &corpus.doc(corpus.sentences()[w.first].doc).text;
            println!(
                "    {}..{} sup {:.2} ctx {:.2} rel {:.2} miss {} {:?}{}{}{}: {}",
                w.first,
                w.last,
                w.support,
                w.context,
                w.relevance,
                w.missing,
                w.conflict,
                if w.doubt { " doubt" } else { "" },
                if w.flipped { " flipped" } else { "" },
                if w.reversed { " reversed" } else { "" },
                doc[s..e].chars().take(110).collect::<String>()
            );
        }
    }
}
