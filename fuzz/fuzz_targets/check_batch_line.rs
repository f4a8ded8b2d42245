//! One `check --batch` line (or `/v1/check` item) through `parse_item` and
//! `Checker::check_item`, against a small shared corpus when the line brings no sources.
//! Must never panic, and a report must serialise.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_check::Checker;
use warrant_check::parse_item;
use warrant_verify::{Corpus, Source};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { return };
    let Ok(item) = parse_item(&v, None) else { return };
    let shared = Corpus::new(vec![Source::new(
        "handbook",
        "Refunds are approved within 5 days. The café opens at 9:00 — « Crème brûlée » costs €4.50. 東京は日本の首都です。",
    )]);
    if let Ok(report) = Checker::default().check_item(&item, &shared) {
        serde_json::to_string(&report).expect("a report serialises");
    }
});
