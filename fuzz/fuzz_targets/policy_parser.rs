//! Any bytes through the CPL policy / pack loader. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = warrant_cpl::load_pack_or_policy(&v);
        let _ = warrant_cpl::load_pack(&v);
        let _ = warrant_cpl::load_rubric(&v);
    }
});
