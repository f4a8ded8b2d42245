//! Any text as a CKF package document (JSON, YAML or the Markdown encoding), read and
//! validated in both modes, as `warrant validate --kind ckf_package` does. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_ckf::parse_any;
use warrant_ckf::{Mode, check, looks_like_package, read_package};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(v) = parse_any(text) else { return };
    let _ = looks_like_package(&v);
    let read = check(&v, Mode::Read);
    let write = check(&v, Mode::Write);
    // Write mode is the stricter one: whatever read mode rejects, write mode rejects too.
    assert!(read.errors.is_empty() || !write.errors.is_empty());
    let _ = read_package(&v);
});
