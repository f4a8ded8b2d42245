//! Any bytes as every research payload (decode, Validate, the route argument views, a second
//! round trip), as model output (JSON extraction), as hints and as graph node ids. Must never
//! panic; a payload that decodes writes back to the same value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_research::payload::*;

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) -> Option<T> {
    let v: T = serde_json::from_str(text).ok()?;
    let back: T = serde_json::from_str(&serde_json::to_string(&v).expect("a payload writes")).expect("a written payload reads");
    // NaN never compares equal; JSON cannot hold one, so equality must hold.
    assert_eq!(back, v);
    Some(v)
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(i) = round_trip::<Intent>(text) {
        if i.validate().is_ok() {
            let _ = warrant_research::check(&i.hints);
        }
    }
    if let Some(c) = round_trip::<ClassifierOutput>(text) {
        let _ = c.validate();
    }
    if let Some(r) = round_trip::<RouteDecision>(text) {
        let _ = r.validate();
        let _ = r.parse_decompose_args();
        let _ = r.parse_walk_seeds_args();
        let _ = r.parse_retighten_args();
        let _ = DecompTrace::build(Some(&r), None, 0);
    }
    if let Some(e) = round_trip::<ExecutionOutput>(text) {
        let _ = e.validate();
    }
    if let Some(a) = round_trip::<AssessmentOutput>(text) {
        let _ = a.validate();
    }
    if let Some(s) = round_trip::<SearchResult>(text) {
        let _ = s.validate();
    }
    if let Ok(j) = warrant_research::extract_json(text) {
        assert!(j.starts_with('{') && j.ends_with('}'));
    }
    let _ = warrant_research::parse_node_id(text);
    let _ = warrant_research::Timestamp::parse(text);
    let hints = text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let _ = warrant_research::check(&hints);
});
