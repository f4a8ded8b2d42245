//! Any bytes through the tools-file loader. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = warrant_cpl::ToolRegistry::from_json(&v, warrant_cpl::ToolOrigin::File);
    }
});
