//! Any text as a question: the planner and the answer never panic, and every answer passes
//! the contract validator.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use warrant_answer::{Answerer, validate_contract};
use warrant_store::SqliteStore;

#[path = "common/store.rs"]
mod common;

fn store() -> &'static SqliteStore {
    static STORE: OnceLock<SqliteStore> = OnceLock::new();
    STORE.get_or_init(|| {
        common::one_document_store(
            "Session tokens expire after 15 minutes of inactivity. The API rate limit is 100 requests. The gateway requires the vault. The audit log is enabled.",
        )
    })
}

fn answerer() -> &'static Answerer<'static> {
    static ANSWERER: OnceLock<Answerer<'static>> = OnceLock::new();
    ANSWERER.get_or_init(|| Answerer::new(store()))
}

fuzz_target!(|data: &[u8]| {
    let Ok(q) = std::str::from_utf8(data) else { return };
    let answer = answerer().ask(q).expect("store reads do not fail");
    assert!(validate_contract(&answer.to_json()).is_ok());
});
