//! Any bytes through the whole compiler (the first byte picks the file name, as in
//! `ckf_source`). Must never panic, and a package it returns must pass write-mode validation,
//! quote only verbatim excerpts of its spans, and come out byte-identical a second time (on
//! one thread, where the first compile used every core).
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_ckf::{Options, SourceInput, compile};
use warrant_ckf::normalize;
use warrant_ckf::{ReadOptions, read_source};
use warrant_ckf::{Mode, check};

const NAMES: [&str; 9] =
    ["doc.txt", "doc.md", "faq.md", "act.txt", "page.html", "records.jsonl", "records.json", "talk.vtt", "talk.srt"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else { return };
    let name = NAMES[pick as usize % NAMES.len()];
    let sources = [SourceInput { name, bytes }];
    let Ok(r) = compile(&sources, &Options::default()) else { return };
    let json = warrant_ckf::to_json(&r.package).expect("package serialises");
    let v: serde_json::Value = serde_json::from_str(&json).expect("package is JSON");
    let report = check(&v, Mode::Write);
    assert!(report.errors.is_empty(), "write-mode errors: {:?}", report.errors);
    let spans = read_source(name, bytes, &ReadOptions::default()).expect("compiled, so readable").spans;
    let normalized: Vec<String> = spans.iter().map(|s| normalize(&s.text)).collect();
    for it in r.package.items() {
        for e in &it.trace.evidence {
            assert!(normalized[e.span as usize].contains(&e.excerpt), "{}: excerpt not verbatim: {}", it.id, e.excerpt);
        }
    }
    let again = compile(&sources, &Options { threads: 1, ..Options::default() }).expect("compiled once");
    let again = warrant_ckf::to_json_with_threads(&again.package, 1).expect("serialises");
    assert_eq!(json, again, "not deterministic (all cores, then one thread)");
});
