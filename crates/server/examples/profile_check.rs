//! Where a store-backed check spends its time, per step (a quick profile; the load test is
//! `bench/serve/run.sh`):
//!
//! ```text
//! cargo run --release -p warrant-server --example profile_check -- bench/out/serve/store
//! ```

use std::time::Instant;

use warrant_check::retrieval::{corpus_from_store, query_words};
use warrant_check::{Checker, Request};
use warrant_store::{SqliteStore, Store};

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: profile_check STORE_DIR [ANSWER]");
        std::process::exit(2);
    };
    let store = SqliteStore::open_existing(&dir).unwrap_or_else(|e| {
        eprintln!("profile_check: {e}");
        std::process::exit(2)
    });
    let text = std::env::args()
        .nth(2)
        .unwrap_or_else(|| "Product 417 ships within 3 business days of the order, and its warranty lasts 2 years.".into());
    let answer = warrant_extract::Answer { text: text.clone(), ..Default::default() };
    let checker = Checker::default();
    let req = Request { answer: &answer, question: None, output_id: None };
    let n = 300u32;
    let query = query_words(&text, None);
    for k in [2usize, 4, 8] {
        let t = Instant::now();
        for _ in 0..n {
            let _ = store.search(&query, k);
        }
        let search = t.elapsed() / n;
        let t = Instant::now();
        let mut corpus = None;
        for _ in 0..n {
            corpus = corpus_from_store(&store, &text, None, k).ok();
        }
        let build = t.elapsed() / n;
        let Some(corpus) = corpus else { return };
        let t = Instant::now();
        for _ in 0..n {
            let report = checker.check(&req, &corpus).ok();
            let _ = serde_json::to_vec(&report);
        }
        let check = t.elapsed() / n;
        println!("{k} chunks: search {search:?}; search and corpus {build:?}; check and serialise {check:?}");
    }
}
