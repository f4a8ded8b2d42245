//! Any bytes through the ingest record readers (JSON Lines, JSON arrays, manual facts), then
//! the accepted documents through the chunker. Must never panic; chunks must index the text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_facts::Vocabulary;
use warrant_store::chunk_text;
use warrant_store::{parse_json_records, parse_jsonl, parse_manual_facts};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let vocab = Vocabulary::builtin();
    let (a, ea) = parse_jsonl("f.jsonl", text, Some("1"));
    let (b, eb) = parse_json_records("f.json", text, None);
    for e in ea.iter().chain(&eb) {
        assert!(!e.to_string().contains('\n'), "one-line errors: {e}");
    }
    for d in a.iter().chain(&b) {
        for c in chunk_text(&d.text, 64) {
            let by_chars: String = d.text.chars().skip(c.start).take(c.end - c.start).collect();
            assert_eq!(&d.text[c.byte_start..c.byte_end], by_chars);
        }
    }
    let _ = parse_manual_facts("f.json", text, false, Some(&vocab));
    let _ = parse_manual_facts("f.jsonl", text, true, None);
});
