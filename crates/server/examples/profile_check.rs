//! Where a store-backed check spends its time (not a benchmark; a quick profile).
use std::time::Instant;
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, Store, ingest};

fn main() {
    let dir = std::env::args().nth(1).expect("store dir");
    let store = SqliteStore::open(&dir).expect("store");
    let _ = (DocumentInput { id: String::new(), text: String::new(), version: None, title: None, metadata: None, origin: String::new() }, IngestOptions::default(), ingest);
    let answer_text = "Product 417 ships within 3 business days of the order, and its warranty lasts 2 years.";
    let answer = warrant_extract::Answer { text: answer_text.into(), ..Default::default() };
    let checker = warrant_check::Checker::default();
    let n = 300;
    for k in [2usize, 4, 8] {
        let t = Instant::now();
        let q = warrant_check::retrieval::query_words(answer_text, None); for _ in 0..n { let _ = store.search(&q, k).expect("search"); }
        let search = t.elapsed() / n;
        let t = Instant::now();
        let mut corpus = None;
        for _ in 0..n { corpus = Some(warrant_check::retrieval::corpus_from_store(&store, answer_text, None, k).expect("corpus")); }
        let build = t.elapsed() / n;
        let corpus = corpus.expect("corpus");
        let t = Instant::now();
        for _ in 0..n { let _ = checker.check(&warrant_check::Request { answer: &answer, question: None, output_id: None }, &corpus).expect("check"); }
        let check = t.elapsed() / n;
        let t = Instant::now();
        for _ in 0..n { let r = checker.check(&warrant_check::Request { answer: &answer, question: None, output_id: None }, &corpus).expect("check"); let _ = serde_json::to_vec(&r); }
        let ser = t.elapsed() / n;
        println!("k={k}: search {search:?}, search+corpus {build:?}, check {check:?}, check+serialise {ser:?}");
    }
}
