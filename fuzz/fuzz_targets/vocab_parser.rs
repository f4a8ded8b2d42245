//! Any bytes through the vocabulary-file parsers (JSON and TOML), then whatever they accept
//! through the extractor and the question patterns. Must never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_facts::{ChunkContext, Vocabulary, extract_facts};

const TEXT: &str = "Session tokens expire after 30 minutes of inactivity. The gateway requires an API key. \
                    If idle, keys are not valid for 2 days. The limit is 5 ms.";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for parsed in [Vocabulary::from_json_str(text), Vocabulary::from_toml_str(text)] {
        match parsed {
            Ok(file) => {
                let vocab = Vocabulary::builtin().extended(&file).expect("file entries merge into the defaults");
                let out = extract_facts(&vocab, &ChunkContext::new(TEXT, "d", "d#1", Some("1")));
                for f in &out.facts {
                    assert!(f.fact.span.start < f.fact.span.end && f.fact.span.end <= TEXT.chars().count());
                }
                let _ = vocab.question_predicates("How long before session tokens expire?");
                let _ = vocab.fingerprint();
            }
            Err(e) => assert!(!e.to_string().contains('\n'), "one-line errors: {e}"),
        }
    }
});
