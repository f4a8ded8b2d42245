//! Any bytes as a QueryPlan (`warrant ask --plan`): parsing never panics, and every plan that
//! loads is answered over a small store with an answer that passes the contract validator.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use warrant_answer::{Answerer, QueryPlan, validate_contract};
use warrant_store::SqliteStore;

#[path = "common/store.rs"]
mod common;

fn store() -> &'static SqliteStore {
    static STORE: OnceLock<SqliteStore> = OnceLock::new();
    STORE.get_or_init(|| {
        common::one_document_store(
            "Session tokens expire after 15 minutes of inactivity. The gateway requires the vault. The vault requires the gateway. The renderer is part of the billing module.",
        )
    })
}

fn answerer() -> &'static Answerer<'static> {
    static ANSWERER: OnceLock<Answerer<'static>> = OnceLock::new();
    ANSWERER.get_or_init(|| Answerer::new(store()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(plan) = QueryPlan::from_json_str(text) else { return };
    let answer = answerer().answer(&plan).expect("store reads do not fail");
    assert!(validate_contract(&answer.to_json()).is_ok(), "{:?}", validate_contract(&answer.to_json()));
});
