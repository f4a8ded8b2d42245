//! Any bytes as the body of every `warrant serve` route: parsing never panics, a refused body
//! is a 400 with a message, and any JSON document through `POST /v1/validate`'s library call
//! (every kind, and detection) never panics either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant::check::CheckRequest;
use warrant::extract::ExtractRequest;
use warrant::ingest::IngestRequest;
use warrant::policy::PolicyEvalRequest;
use warrant::search::SearchRequest;
use warrant::validate::ValidateRequest;
use warrant_server::parse_body;

fn body<T: serde::de::DeserializeOwned>(data: &[u8]) {
    if let Err(e) = parse_body::<T>(data) {
        assert_eq!(e.status.as_u16(), 400);
        assert!(!e.message.is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    body::<CheckRequest>(data);
    body::<ExtractRequest>(data);
    body::<PolicyEvalRequest>(data);
    body::<ValidateRequest>(data);
    body::<IngestRequest>(data);
    body::<SearchRequest>(data);
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let ev = warrant_validate::EvidenceSet::default();
    let _ = warrant_validate::validate_value("fuzz", &value, None, true, &ev);
    for kind in warrant_validate::Kind::ALL {
        let _ = warrant_validate::validate_value("fuzz", &value, Some(kind), false, &ev);
    }
});
