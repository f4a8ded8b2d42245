//! Any bytes through the PredicateGraph loader: parse, schema, lints. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let report = warrant_graph::parse_graph(text);
        if let Some(g) = report.graph {
            // Every span slice is safe on any graph.
            for c in &g.claims {
                let _ = g.slice(c.span);
            }
        }
    }
});
