//! Any bytes as a QueryPlan (`warrant ask --plan`): parsing never panics, and every plan that
//! loads is answered over a small store with an answer that passes the contract validator.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use warrant_answer::{Answerer, QueryPlan, validate_contract};
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

fn store() -> &'static SqliteStore {
    static STORE: OnceLock<SqliteStore> = OnceLock::new();
    STORE.get_or_init(|| {
        let s = SqliteStore::open_in_memory().expect("in-memory store");
        let doc = DocumentInput {
            id: "d".into(),
            text: "Session tokens expire after 15 minutes of inactivity. The gateway requires the vault. The vault requires the gateway. The renderer is part of the billing module.".into(),
            version: Some("2.0".into()),
            title: None,
            metadata: None,
            origin: "fuzz".into(),
        };
        ingest(&s, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).expect("ingest");
        s
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
