//! Any bytes through the Agent Evidence validator, as every kind: detection, both passes,
//! findings as verification results, review history. Must never panic; a document that
//! passes the schema always reads as its typed form and writes back unchanged.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_evidence::{Context, DocKind, check_review_history, validate_with};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else { return };
    let _ = DocKind::detect(&value);
    for kind in DocKind::ALL {
        let report = validate_with(kind, &value, &Context::default());
        let _ = report.verification_results();
        if report.schema.is_empty() {
            let doc = report.document.as_ref().expect("a schema-valid document reads");
            let back = serde_json::to_value(doc).expect("a typed document writes");
            assert_eq!(back, value, "{kind}: the typed round trip changed the document");
            if matches!(kind, DocKind::EvidencePack | DocKind::Verification) {
                if let Ok(issues) = check_review_history(doc, doc) {
                    assert!(issues.is_empty(), "a version never overwrites its own reviews");
                }
            }
        }
    }
});
