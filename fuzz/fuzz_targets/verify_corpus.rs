//! The verifier end to end: sources and an answer from the input (split at `\u{0}` bytes:
//! the answer first, then an optional question line `?…`, then the sources, each with an
//! optional title before a `\u{1}` byte), the answer
//! extracted into a graph, then every claim verified against a `Corpus` of the sources, with
//! and without the question. Must never panic, and every selector must quote its source
//! exactly at its char offsets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_extract::{InputFormat, Options as ExtractOptions, extract, parse_input};
use warrant_verify::{Corpus, Options, Source, verify};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut parts = text.split('\u{0}');
    let answer_text = parts.next().unwrap_or_default();
    let mut question = None;
    let mut sources = Vec::new();
    for (i, p) in parts.enumerate() {
        match p.strip_prefix('?') {
            Some(q) if question.is_none() && i == 0 => question = Some(q.to_string()),
            _ => sources.push(match p.split_once('\u{1}') {
                Some((title, body)) => Source::new(format!("s{i}"), body).titled(Some(title.to_string())),
                None => Source::new(format!("s{i}"), p),
            }),
        }
    }
    let Ok(answer) = parse_input(answer_text, InputFormat::Text, 1 << 20) else { return };
    let graph = extract(&answer, &ExtractOptions::default()).graph;
    let texts: Vec<String> = sources.iter().map(|s| s.text.clone()).collect();
    let corpus = Corpus::new(sources);
    let mut runs = vec![Options::default()];
    if question.is_some() {
        runs.push(Options { question: question.clone(), ..Options::default() });
    }
    for opts in &runs {
        let results = verify(&graph, &corpus, opts);
        assert_eq!(results.len(), graph.claims.len());
        for r in &results {
            for e in &r.support_edges {
                let i: usize = e.source_id[1..].parse().expect("a source id the target made");
                let src = &texts[i - usize::from(question.is_some())];
                let s = &e.selector;
                assert!(s.start <= s.end, "selector {}..{} is reversed", s.start, s.end);
                let quoted: String = src.chars().skip(s.start).take(s.end - s.start).collect();
                assert_eq!(quoted, s.exact, "selector {}..{} does not quote its source", s.start, s.end);
            }
        }
    }
});
