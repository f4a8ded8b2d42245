//! Conformance with the shared VSABrains Exp3 data: WorkSignature/Workpad cases (spec §15),
//! gold facts (§16) and the default extractor on the Exp3 corpus (§4.3).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use serde_json::{Value, json};
use warrant_facts::{ChunkContext, Fact, Vocabulary, extract_facts};
use warrant_facts::{Role, Signature, Workpad, match_pattern};
use warrant_testkit::{data_dir, read_json};

#[test]
fn worksignature_matchpattern_cases() {
    let Some(dir) = data_dir("vsabrains-exp3") else { return };
    let cases = read_json(&dir.join("spec-examples/worksignature_matchpattern_cases.json"));
    let list = cases["cases"].as_array().unwrap();
    assert_eq!(list.len(), 4);
    for case in list {
        let pattern = Signature::from_json(&case["pattern"]).unwrap();
        let fact = Signature::from_json(&case["fact"]).unwrap();
        let got = match_pattern(&pattern, &fact).map(|b| Value::Object(b.into_iter().collect()));
        let expected = if case["expected"].is_null() { None } else { Some(case["expected"].clone()) };
        assert_eq!(got, expected, "pattern {}", case["pattern"]);
    }

    let wp = &cases["workpadCase"];
    let mut pad = Workpad::new();
    for (var, value) in wp["bindings"].as_object().unwrap() {
        assert!(pad.bind(var, value.clone()));
    }
    let mut sig = Signature::new();
    for entry in wp["signature"].as_array().unwrap() {
        let e = entry.as_array().unwrap();
        sig.set(e[0].as_str().unwrap().to_string(), Role { value: e[1].clone(), is_variable: e[2].as_bool().unwrap() });
    }
    let inst = pad.instantiate(&sig);
    assert_eq!(inst.to_json(), wp["expectedInstantiated"]);
    assert!(inst.roles().all(|(_, r)| !r.is_variable));
}

#[test]
fn gold_facts_load_unchanged() {
    let Some(dir) = data_dir("vsabrains-exp3") else { return };
    let gold = read_json(&dir.join("exp3-rag/manual_facts.json"));
    let facts: Vec<Fact> = gold.as_array().unwrap().iter().map(|v| Fact::from_manual_json(v).unwrap()).collect();
    assert_eq!(facts.len(), 2);
    assert_eq!(facts[0].source.chunk_id, "c1");
    assert_eq!(facts[1].object.to_string(), "15 minutes");
    assert_eq!(facts[1].normalized_version().as_deref(), Some("2.0"));
    let worked = read_json(&dir.join("spec-examples/ds005_worked_example_session_validity.json"));
    let f = Fact::from_manual_json(&worked["facts"][0]).unwrap();
    assert_eq!((f.source.chunk_id.as_str(), f.normalized_version().as_deref()), ("c17", Some("2.0")));
    // The shipped one-entry vocabulary file reads, and replaces the default expires_after.
    let text = std::fs::read_to_string(dir.join("exp3-rag/predicate_vocabulary.json")).unwrap();
    let file = Vocabulary::from_json_str(&text).unwrap();
    assert_eq!(file.entries().len(), 1);
    assert!(Vocabulary::builtin().extended(&file).unwrap().get("expires_after").unwrap().patterns().is_empty());
}

#[test]
fn default_extractor_on_the_exp3_corpus() {
    let Some(dir) = data_dir("vsabrains-exp3") else { return };
    let corpus = read_json(&dir.join("exp3-rag/corpus.json"));
    let vocab = Vocabulary::builtin();
    let mut got = Vec::new();
    for doc in corpus.as_array().unwrap() {
        // One paragraph per document: the chunk is the trimmed text.
        let chunk = doc["text"].as_str().unwrap().trim();
        let out = extract_facts(&vocab, &ChunkContext::new(chunk, doc["docId"].as_str().unwrap(), "x", doc["version"].as_str()));
        assert_eq!(out.rejected.total(), 0);
        for v in out.facts {
            let f = v.fact;
            got.push(json!([f.subject, f.predicate, f.object.to_string(), f.version(), f.condition()]));
        }
    }
    assert_eq!(
        got,
        [
            json!(["session_token", "expires_after", "30 minutes", "1.0", "inactivity"]),
            json!(["maximum_session_duration", "has_value", "8 hours", "1.0", null]),
            json!(["session_token", "expires_after", "15 minutes", "2.0", "inactivity"]),
            json!(["maximum_session_duration", "has_value", "24 hours", "2.0", null]),
        ]
    );
}
