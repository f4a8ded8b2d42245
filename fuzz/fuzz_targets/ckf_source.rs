//! Any bytes through the CKF source readers (text, Markdown, FAQ, normative texts, HTML, JSON
//! Lines and JSON arrays of records, WebVTT, SRT). The first byte picks the file name, so every
//! reader and every content detector is reached. Must never panic; a refusal names the file;
//! a document read has spans whose ranges lie inside their text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_ckf::{ReadOptions, read_source};

const NAMES: [&str; 9] =
    ["doc.txt", "doc.md", "faq.md", "act.txt", "page.html", "records.jsonl", "records.json", "talk.vtt", "talk.srt"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else { return };
    let name = NAMES[pick as usize % NAMES.len()];
    match read_source(name, bytes, &ReadOptions::default()) {
        Err(e) => assert!(e.to_string().starts_with(name), "refusal without the file name: {e}"),
        Ok(doc) => {
            for s in &doc.spans {
                assert!(s.body_start <= s.text.len(), "body_start past the span text");
                for r in [&s.question, &s.answer].into_iter().flatten() {
                    assert!(r.start <= r.end && r.end <= s.text.len(), "range {r:?} outside the span text");
                    assert!(s.text.is_char_boundary(r.start) && s.text.is_char_boundary(r.end));
                }
                assert!(s.lines.0 <= s.lines.1 && s.chars.0 <= s.chars.1, "inverted location");
            }
        }
    }
});
