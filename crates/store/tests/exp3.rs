//! The Exp3 corpus (../shared/data/vsabrains-exp3) through the store: extraction matches the
//! gold facts, manual facts load as given, and matchSignature follows spec §15.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use serde_json::{Value, json};
use warrant_facts::Signature;
use warrant_facts::{Fact, Vocabulary};
use warrant_store::{FactQuery, IngestOptions, SqliteStore, Store, ingest, pattern_from_json};
use warrant_store::{parse_json_records, read_sources};
use warrant_testkit::{data_dir, read_json};
use warrant_text::clamp_slice;

fn exp3() -> Option<std::path::PathBuf> {
    data_dir("vsabrains-exp3").map(|d| d.join("exp3-rag"))
}

fn ingest_corpus(store: &SqliteStore, dir: &Path, opts: &IngestOptions) -> warrant_store::IngestSummary {
    let set = read_sources(&[dir.join("corpus.json")], None, &mut |_| {}).unwrap();
    ingest(store, set.documents, Vec::new(), opts, &mut |_| {}).unwrap()
}

#[test]
fn exp3_corpus_ingests_into_the_gold_facts() {
    let Some(dir) = exp3() else { return };
    let store = SqliteStore::open_in_memory().unwrap();
    let summary = ingest_corpus(&store, &dir, &IngestOptions::default());
    assert_eq!((summary.documents, summary.chunks, summary.facts, summary.rejected_facts), (2, 2, 4, 0));

    // Exactly the gold expires_after facts: subject, predicate, object, version.
    let gold = read_json(&dir.join("manual_facts.json"));
    let key =
        |subject: &str, predicate: &str, object: String, version: Option<String>| json!([subject, predicate, object, version]);
    let gold_keys: Vec<Value> = gold
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            key(
                g["subject"].as_str().unwrap(),
                "expires_after",
                g["object"].as_str().unwrap().into(),
                g["qualifiers"]["version"].as_str().map(Into::into),
            )
        })
        .collect();
    let extracted = store.facts(&FactQuery { predicate: Some("expires_after".into()), ..FactQuery::default() }).unwrap();
    let got: Vec<Value> = extracted.iter().map(|f| key(&f.subject, &f.predicate, f.object.to_string(), f.version())).collect();
    assert_eq!(got, gold_keys);

    // Each with a span into its chunk covering the subject and the object, and the condition.
    for (f, doc) in extracted.iter().zip(["spec-auth-v1", "spec-auth-v2"]) {
        assert_eq!(f.condition(), Some("inactivity"));
        assert_eq!(f.source.doc_id, doc);
        assert_eq!(f.source.chunk_id, format!("{doc}#1"));
        let chunk = store.chunk(&f.source.chunk_id).unwrap().unwrap();
        let snippet = clamp_slice(&chunk.text, f.span.start, f.span.end);
        assert_eq!(snippet, format!("Session tokens expire after {} of inactivity", f.object));
        // The chunk points into the byte-exact document text (leading newline and indentation).
        let text = store.document_text(doc).unwrap().unwrap();
        assert_eq!((chunk.start, clamp_slice(&text, chunk.start, chunk.end)), (7, chunk.text.as_str()));
    }

    // The full set per spec §4.3: plus has_value for the maximum duration, nothing from cookies.
    let all: Vec<Value> = store
        .facts(&FactQuery::all())
        .unwrap()
        .iter()
        .map(|f| key(&f.subject, &f.predicate, f.object.to_string(), f.version()))
        .collect();
    assert_eq!(
        all,
        [
            json!(["session_token", "expires_after", "30 minutes", "1.0"]),
            json!(["maximum_session_duration", "has_value", "8 hours", "1.0"]),
            json!(["session_token", "expires_after", "15 minutes", "2.0"]),
            json!(["maximum_session_duration", "has_value", "24 hours", "2.0"]),
        ]
    );

    // Version queries compare after D22: "v2.0" finds "2.0".
    let v2 = store.facts(&FactQuery::subject_predicate("session_token", "expires_after").with_version("v2.0")).unwrap();
    assert_eq!(v2.len(), 1);
    assert_eq!(v2[0].object.to_string(), "15 minutes");

    // The ids are content-derived: a fresh store gives the same ones.
    let again = SqliteStore::open_in_memory().unwrap();
    ingest_corpus(&again, &dir, &IngestOptions::default());
    let ids = |s: &SqliteStore| s.facts(&FactQuery::all()).unwrap().into_iter().map(|f| f.id).collect::<Vec<_>>();
    assert_eq!(ids(&store), ids(&again));

    // Entities: every surface variant meets.
    for name in ["session token", "Session tokens", "session_token", "sessions tokens", "SESSION-TOKEN"] {
        let e = store.entity(name).unwrap().unwrap_or_else(|| panic!("{name}"));
        assert_eq!(e.id, "session_token");
        assert_eq!(e.aliases, ["Session tokens"]);
        assert_eq!(e.mentions.len(), 2);
        assert_eq!(e.mentions[0].span, Some(warrant_facts::Span::new(0, 14)));
        let m = &e.mentions[1];
        assert_eq!(
            (m.doc_id.as_str(), m.chunk_id.as_deref(), m.surface.as_str()),
            ("spec-auth-v2", Some("spec-auth-v2#1"), "Session tokens")
        );
    }
    assert!(store.entity("cookie").unwrap().is_none());
}

#[test]
fn manual_facts_baseline_loads_gold_facts_as_given() {
    let Some(dir) = exp3() else { return };
    let store = SqliteStore::open_in_memory().unwrap();
    let text = std::fs::read_to_string(dir.join("corpus.json")).unwrap();
    let (docs, errs) = parse_json_records("corpus.json", &text, None);
    assert!(errs.is_empty());
    let gold = read_json(&dir.join("manual_facts.json"));
    let facts: Vec<Fact> = gold.as_array().unwrap().iter().map(|v| Fact::from_manual_json(v).unwrap()).collect();
    let opts = IngestOptions { extract: false, ..IngestOptions::default() };
    let summary = ingest(&store, docs, facts.clone(), &opts, &mut |_| {}).unwrap();
    assert_eq!((summary.documents, summary.chunks, summary.facts, summary.manual_facts), (2, 2, 0, 2));
    let stored = store.facts(&FactQuery::all()).unwrap();
    assert_eq!(stored, facts, "stored exactly as given, in source order");
    assert_eq!(stored[1].source.chunk_id, "c2");
    assert_eq!(store.facts(&FactQuery { chunk_id: Some("c2".into()), ..FactQuery::default() }).unwrap().len(), 1);
    // Loading the same file again changes nothing.
    let opts2 = IngestOptions { extract: false, ..IngestOptions::default() };
    ingest(&store, Vec::new(), facts, &opts2, &mut |_| {}).unwrap();
    assert_eq!(store.stats().unwrap().total_facts, 2);
    let e = store.entity("Session tokens").unwrap().unwrap();
    assert_eq!(e.aliases, ["session_token"]);
    assert_eq!(
        (e.mentions[1].doc_id.as_str(), e.mentions[1].chunk_id.as_deref(), e.mentions[1].span),
        ("spec-auth-v2", Some("c2"), None)
    );
}

#[test]
fn match_signature_conformance_cases_through_the_store() {
    let Some(dir) = data_dir("vsabrains-exp3") else { return };
    let cases = read_json(&dir.join("spec-examples/worksignature_matchpattern_cases.json"));
    let vocab = Vocabulary::from_json_str(
        r#"{"enters": {"argTypes": ["entity", "entity"]}, "exits": {"argTypes": ["entity", "entity"]},
            "gives": {"argTypes": ["entity", "entity"]}}"#,
    )
    .unwrap();
    for case in cases["cases"].as_array().unwrap() {
        let store = SqliteStore::open_in_memory().unwrap();
        // The case's fact, stored as a manual fact; extra roles become qualifiers.
        let mut fact = json!({"source": {"docId": "d", "chunkId": "c1"}, "qualifiers": {}});
        for (k, v) in case["fact"].as_object().unwrap() {
            if ["subject", "predicate", "object"].contains(&k.as_str()) {
                fact[k] = v.clone();
            } else {
                fact["qualifiers"][k] = v.clone();
            }
        }
        let fact = Fact::from_manual_json(&fact).unwrap();
        assert!(vocab.contains(&fact.predicate));
        store.write(&mut std::iter::empty(), &[fact], &mut |_| {}).unwrap();
        let pattern = pattern_from_json(&case["pattern"]).unwrap();
        let got: Vec<Value> = store
            .match_signature(&pattern)
            .unwrap()
            .into_iter()
            .map(|m| Value::Object(m.bindings.into_iter().collect()))
            .collect();
        let expected: Vec<Value> = if case["expected"].is_null() { vec![] } else { vec![case["expected"].clone()] };
        assert_eq!(got, expected, "pattern {}", case["pattern"]);
    }
}

#[test]
fn match_signature_versions_and_omitted_roles() {
    let Some(dir) = exp3() else { return };
    let store = SqliteStore::open_in_memory().unwrap();
    ingest_corpus(&store, &dir, &IngestOptions::default());
    let objects = |p: Value| -> Vec<String> {
        store.match_signature(&pattern_from_json(&p).unwrap()).unwrap().iter().map(|m| m.fact.object.to_string()).collect()
    };
    assert_eq!(
        objects(json!({"subject": "session_token", "predicate": "expires_after", "object": "?d"})),
        ["30 minutes", "15 minutes"]
    );
    assert_eq!(objects(json!({"predicate": "expires_after", "qualifiers": {"version": "v2.0"}})), ["15 minutes"]);
    assert_eq!(
        objects(json!({"predicate": "expires_after", "qualifiers": {"condition": "inactivity", "version": "1.0"}})),
        ["30 minutes"]
    );
    assert_eq!(objects(json!({"object": "8 hours"})), ["8 hours"], "omitted roles are unconstrained");
    assert!(objects(json!({"predicate": "expires_after", "recipient": "?r"})).is_empty(), "a missing role never matches");
    let m = store
        .match_signature(&Signature::new().with("subject", "?s").with("predicate", "has_value").with("version", "?v"))
        .unwrap();
    let bound: Vec<Value> = m.iter().map(|m| json!([m.bindings["?s"], m.bindings["?v"]])).collect();
    assert_eq!(bound, [json!(["maximum_session_duration", "1.0"]), json!(["maximum_session_duration", "2.0"])]);
}
