//! Every graph the extractor emits validates with zero lint warnings and faithful spans,
//! whatever the answer: emoji, CJK, combining marks, CRLF, stray Markdown, broken fences.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use proptest::prelude::*;
use warrant_extract::{Answer, CallArguments, Options, StructuredCall, extract};

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Paris is the capital of France. ".to_string()),
        Just("Python was created by Guido van Rossum and first released in 1991.".to_string()),
        Just("I think it's great!!! 😀 ".to_string()),
        Just("東京は日本の首都です。".to_string()),
        Just("Café naïve e\u{301}\u{301} résumé. ".to_string()),
        Just("\r\n".to_string()),
        Just("\n\n".to_string()),
        Just("- item one\n- item two\n".to_string()),
        Just("1. Open the app\n2. Click save\n".to_string()),
        Just("```python\nx = eval(input())\n```\n".to_string()),
        Just("```\nunclosed fence".to_string()),
        Just("    indented code\n".to_string()),
        Just("See [1] and https://example.com/a?b=c. ".to_string()),
        Just("[1] https://example.org/ref\n".to_string()),
        Just("15% of $80 is $12. 3 × 4 = 12. <<48/2=24>>24 ".to_string()),
        Just("(Smith et al., 2020) according to the WHO, ".to_string()),
        Just("search(q='rust', limit=5)\n".to_string()),
        Just("Hello! Thanks for asking. Let me know if that helps. ".to_string()),
        Just("If it rains, the game is cancelled; otherwise we play. ".to_string()),
        Just("Even if I’m late, I love it and was disappointed by the ending… ".to_string()),
        Just("i recently read 東京 and was happy, scoring over 200 points. ".to_string()),
        Just("When I was in Zürich,café prices were high, ".to_string()),
        Just("Call `get_user()` with user_id #12345 on v2.0 at 14:30 UTC on March 3, 2024. ".to_string()),
        Just("\"quoted (unbalanced **bold ".to_string()),
        Just("<<1/0=3>> <<x=1>> <<>> ".to_string()),
        "[\\PC]{0,12}",
        "[ -~]{0,20}",
    ]
}

fn answer_text() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..12).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn extracted_graphs_are_valid_and_faithful(text in answer_text(), raw_args in "[ -~]{0,30}", with_call in any::<bool>()) {
        let tool_calls = if with_call {
            vec![StructuredCall { id: None, name: "f".into(), arguments: CallArguments::Raw(raw_args) }]
        } else {
            Vec::new()
        };
        let answer = Answer { text, tool_calls, ..Answer::default() };
        let e = extract(&answer, &Options::default());
        common::assert_faithful(&e.graph);
        // Deterministic: the same input gives the same graph.
        prop_assert_eq!(e.graph, extract(&answer, &Options::default()).graph);
    }
}
