//! Where a store-backed check spends its time, per step (a quick profile; the load test is
//! `bench/serve/run.sh`):
//!
//! ```text
//! cargo run --release -p warrant-server --example profile_check -- bench/out/serve/store
//! ```

use std::time::Instant;

use warrant_check::{CHUNKS_PER_CLAIM, retrieve};
use warrant_check::{Checker, Request};
use warrant_store::SqliteStore;

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
    let vocab = warrant_facts::Vocabulary::builtin();
    let checker = Checker::default();
    let req = Request { answer: &answer, question: None, output_id: None };
    let graph = warrant_extract::extract(&answer, &Default::default()).graph;
    let claims: Vec<&str> = graph.claims.iter().map(|c| c.text.as_str()).collect();
    let n = 200u32;
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        t.elapsed() / n
    };
    let search = time(&mut || {
        for c in &claims {
            let _ = warrant_store::Store::search(&store, c, CHUNKS_PER_CLAIM);
        }
    });
    let corpus = time(&mut || {
        let _ = retrieve(&store, &claims, None, CHUNKS_PER_CLAIM);
    });
    let whole = time(&mut || {
        let report = checker.check_with_store(&req, &store, &vocab, None).ok();
        let _ = serde_json::to_vec(&report);
    });
    println!(
        "{} claims: BM25 searches {search:?}; searches and corpus {corpus:?}; whole check and report {whole:?}",
        claims.len()
    );
}
