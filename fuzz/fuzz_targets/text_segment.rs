//! Any text through the segmenters and the word tokeniser, which slice by offsets they
//! compute. Must never panic; every range must lie on char boundaries, in order, inside the
//! text, and the words must be what the ranges slice.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warrant_text::segment::{first_sentence_in, paragraphs, sentences, sentences_in, trim_range};
use warrant_text::words::{find_number_words, words};

fn on_boundaries(text: &str, r: &std::ops::Range<usize>) {
    assert!(r.start <= r.end && r.end <= text.len(), "{r:?} outside 0..{}", text.len());
    assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end), "{r:?} splits a char");
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut last = 0;
    for p in paragraphs(text) {
        on_boundaries(text, &p);
        assert!(p.start >= last, "paragraphs out of order");
        last = p.end;
        for s in sentences_in(text, p.clone()) {
            on_boundaries(text, &s);
            assert!(s.start >= p.start && s.end <= p.end, "sentence {s:?} outside its paragraph {p:?}");
        }
        if let Some(s) = first_sentence_in(text, p.clone()) {
            on_boundaries(text, &s);
        }
        on_boundaries(text, &trim_range(text, p));
    }
    for s in sentences(text) {
        on_boundaries(text, &s);
    }
    for (r, w) in words(text) {
        on_boundaries(text, &r);
        assert_eq!(&text[r], w);
    }
    let _ = find_number_words(text);
});
