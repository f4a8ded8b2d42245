//! What `compile --llm` costs besides the model: the same compile with the model-backed mapper
//! over an in-process client that answers at once, so the figure is prompt building, reply
//! parsing, schema validation and verbatim-excerpt location, next to the rule mapper's compile.
//! The scripted reply holds one atomic unit per sentence of the chunk (excerpt = the sentence).

#![allow(clippy::unwrap_used)] // benchmark setup

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use warrant_ckf::llm::LlmMapper;
use warrant_ckf::{Options, SourceInput, compile, compile_with};
use warrant_llm::{Completion, CompletionOptions, Llm, LlmClient, LlmError, Origin};

struct Scripted;

impl LlmClient for Scripted {
    fn complete(&self, prompt: &str, _: &CompletionOptions) -> Result<Completion, LlmError> {
        let span = prompt.split("Span ").nth(1).and_then(|s| s.get(..5)).unwrap_or("s_001").to_string();
        let text = prompt.split("<<<SOURCE>>>\n").nth(1).and_then(|s| s.split("\n<<<END SOURCE>>>").next()).unwrap_or("");
        let units: Vec<_> = text
            .split_inclusive(['.', '?', '!'])
            .map(str::trim)
            .filter(|s| s.len() > 20 && s.chars().count() <= 240 && !s.contains('\n'))
            .map(|s| {
                json!({"statement": s, "type": "fact", "source_basis": "explicit", "confidence": 0.9,
                       "source_refs": [span], "source_excerpts": [s]})
            })
            .collect();
        let content = json!({"entities": [], "concepts": [], "atomic_units": units}).to_string();
        Ok(Completion {
            content,
            origin: Origin::Model,
            model: "bench".into(),
            request_key: String::new(),
            prompt_tokens: None,
            completion_tokens: None,
        })
    }

    fn model(&self) -> &str {
        "bench"
    }
}

fn benches(c: &mut Criterion) {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runbook.md");
    let text = std::fs::read_to_string(p).unwrap();
    let src = || [SourceInput { name: "runbook.md", bytes: black_box(text.as_bytes()) }];
    let mut g = c.benchmark_group("map_llm");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("runbook_rule_mapper", |b| b.iter(|| compile(&src(), &Options::default()).unwrap()));
    g.bench_function("runbook_model_mapper_scripted", |b| {
        b.iter(|| {
            let mapper = LlmMapper::new(Llm::new(Arc::new(Scripted)));
            let r = compile_with(&mapper, &src(), &Options::default()).unwrap();
            assert!(mapper.degraded().is_empty(), "{:?}", mapper.degraded());
            r
        })
    });
    g.finish();
}

criterion_group!(map_llm, benches);
criterion_main!(map_llm);
