//! Any bytes as a rule library (`warrant ask --rules`): loading never panics; a library that
//! loads answers a goal for every rule head, and derivation terminates.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use warrant_answer::parse_rules;
use warrant_answer::{Answerer, AskOptions, Goal, QueryPlan, RuleLibrary, validate_contract};
use warrant_facts::Vocabulary;
use warrant_store::SqliteStore;

#[path = "common/store.rs"]
mod common;

struct Fixed {
    vocab: Vocabulary,
    rules: RuleLibrary,
    store: SqliteStore,
}

fn fixed() -> &'static Fixed {
    static FIXED: OnceLock<Fixed> = OnceLock::new();
    FIXED.get_or_init(|| {
        let store = common::one_document_store(
            "Session tokens expire after 15 minutes of inactivity. The gateway requires the vault. The vault requires the gateway. The renderer is part of the billing module.",
        );
        Fixed { vocab: Vocabulary::builtin(), rules: RuleLibrary::builtin(), store }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let f = fixed();
    let Ok(extra) = parse_rules(text) else { return };
    let Ok(lib) = f.rules.extended(extra, &f.vocab) else { return };
    let answerer = Answerer::with(&f.store, f.vocab.clone(), lib.clone(), AskOptions::default());
    for r in lib.rules() {
        let plan = QueryPlan { goal: Some(Goal::new("?s".into(), &r.head.predicate, "?o".into())), ..QueryPlan::default() };
        let a = answerer.answer(&plan).expect("store reads do not fail");
        assert!(validate_contract(&a.to_json()).is_ok());
    }
});
