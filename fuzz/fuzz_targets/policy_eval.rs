//! A fuzzed graph evaluated by all built-in packs (exercises the code-block lexers and the
//! arithmetic on arbitrary inputs). Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Some(graph) = warrant_graph::parse_graph(text).graph else { return };
    let packs: Vec<_> = warrant_cpl::packs::builtin_ids()
        .filter_map(|id| warrant_cpl::packs::builtin(id))
        .filter_map(Result::ok)
        .cloned()
        .collect();
    let _ = warrant_cpl::Engine::default().evaluate(&packs, &graph);
});
