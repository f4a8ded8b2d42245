//! Any input through the answer reader and the extractor. Must never panic, and the graph
//! must validate with zero lint warnings and faithful claim, entity and code spans.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_extract::{InputFormat, Options, extract, parse_input};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for format in [InputFormat::Auto, InputFormat::Text] {
        let Ok(answer) = parse_input(text, format, 1 << 20) else { continue };
        let g = extract(&answer, &Options::default()).graph;
        let report = warrant_graph::check_graph(serde_json::to_value(&g).expect("graph serialises"));
        assert!(report.errors.is_empty(), "invalid graph: {:?}", report.errors);
        assert!(report.warnings.is_empty(), "lint warnings: {:?}", report.warnings);
        for c in &g.claims {
            assert_eq!(g.slice(c.span), c.text);
        }
        for e in &g.entities {
            assert_eq!(g.slice(e.span), e.text);
        }
        for cb in &g.code_blocks {
            assert_eq!(g.slice(cb.span), cb.code);
        }
    }
});
