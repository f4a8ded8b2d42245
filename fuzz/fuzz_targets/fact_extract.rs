//! Any text as a chunk: fact extraction (vocabulary patterns and the attribute layer) never
//! panics, and every fact's span lies in the chunk.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_facts::{ChunkContext, Vocabulary, extract_facts};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let vocab = Vocabulary::builtin();
    let out = extract_facts(&vocab, &ChunkContext::new(text, "d", "d#1", None));
    let len = text.chars().count();
    for f in &out.facts {
        assert!(f.fact.span.start <= f.fact.span.end && f.fact.span.end <= len);
    }
});
