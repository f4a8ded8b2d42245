//! Any bytes as a rule library (`warrant ask --rules`): loading never panics; a library that
//! loads answers a fixed plan set, and derivation terminates.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_answer::rules::parse_rules;
use warrant_answer::{Answerer, AskOptions, QueryPlan, RuleLibrary, validate_contract};
use warrant_facts::Vocabulary;
use warrant_store::SqliteStore;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let vocab = Vocabulary::builtin();
    let Ok(extra) = parse_rules(text) else { return };
    let Ok(lib) = RuleLibrary::builtin().extended(extra, &vocab) else { return };
    let store = SqliteStore::open_in_memory().expect("in-memory store");
    let answerer = Answerer::with(&store, vocab, lib.clone(), AskOptions::default());
    for r in lib.rules() {
        let plan = QueryPlan { goal: Some(warrant_answer::Goal::new("?s".into(), &r.head.predicate, "?o".into())), ..QueryPlan::default() };
        let a = answerer.answer(&plan).expect("store reads do not fail");
        assert!(validate_contract(&a.to_json()).is_ok());
    }
});
