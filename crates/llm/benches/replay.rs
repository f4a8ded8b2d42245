//! What the model plumbing costs besides the model: hashing a request into its cache key, and
//! answering a request from the record/replay cache (a replayed run's per-call overhead).

#![allow(clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use warrant_llm::{Cache, CachedClient, CompletionOptions, LlmClient, request_key};

fn prompt() -> String {
    // A fact-extraction prompt's size: ~4 KB of text.
    "Session tokens expire after 30 minutes of inactivity. Maximum session duration is 8 hours. ".repeat(45)
}

fn bench(c: &mut Criterion) {
    let p = prompt();
    let opts = CompletionOptions::json();
    c.bench_function("request_key 4KB prompt", |b| b.iter(|| request_key("model", std::hint::black_box(&p), &opts)));

    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let key = request_key("model", &p, &opts);
    let reply =
        warrant_llm::Entry { content: "{\"facts\": []}".repeat(40), prompt_tokens: Some(900), completion_tokens: Some(200) };
    cache.put(&key, &warrant_llm::request_body("model", &p, &opts), &reply).unwrap();
    let client = CachedClient::replay_only("model", Cache::new(dir.path()));
    c.bench_function("replay one call from the cache", |b| b.iter(|| client.complete(std::hint::black_box(&p), &opts).unwrap()));
}

criterion_group!(benches, bench);
criterion_main!(benches);
