//! Retrieval from a store loses no evidence the sources hold: the claim suite's items
//! (`crates/verify/tests/fixtures/claims.jsonl`) checked against one store holding every
//! item's sources (~160 documents, chunked) must reach, for the claims their own sources
//! support or contradict, the same status as when checked against those sources alone.
//!
//! Each claim is checked against the 8 chunks ranked best for it among all items' chunks, so
//! this measures ranking recall with other items' text competing (a claim may also meet
//! evidence from another item's sources; such differences are printed, not failed).

#![allow(clippy::unwrap_used)] // test setup

use std::path::Path;

use serde_json::Value;
use warrant_check::{Checker, Request};
use warrant_extract::Answer;
use warrant_facts::Vocabulary;
use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
use warrant_verify::{Corpus, Source, Status};

/// Share of decided claims (supported or contradicted by their own sources) that must keep
/// their status when retrieved from the shared store.
const MIN_KEPT: f64 = 0.9;

struct Item {
    id: String,
    question: Option<String>,
    /// (id, text, title).
    sources: Vec<(String, String, Option<String>)>,
    answer: String,
}

fn items() -> Vec<Item> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../verify/tests/fixtures/claims.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let s = |v: &Value, k: &str| v[k].as_str().unwrap_or_else(|| panic!("`{k}` must be a string: {line}")).to_string();
            Item {
                id: s(&v, "id"),
                question: v["question"].as_str().map(str::to_string),
                sources: v["sources"]
                    .as_array()
                    .unwrap_or_else(|| panic!("`sources` must be an array: {line}"))
                    .iter()
                    .map(|x| (s(x, "id"), s(x, "text"), x["title"].as_str().map(str::to_string)))
                    .collect(),
                answer: s(&v, "answer"),
            }
        })
        .collect()
}

/// Every item's sources as store documents, titles included, under `<item id>/<source id>`.
fn documents(items: &[Item]) -> Vec<DocumentInput> {
    items
        .iter()
        .flat_map(|item| {
            item.sources.iter().map(|(id, text, title)| DocumentInput {
                title: title.clone(),
                ..DocumentInput::new(format!("{}/{id}", item.id), text.as_str())
            })
        })
        .collect()
}

#[test]
fn store_retrieval_keeps_the_evidence_of_the_items_own_sources() {
    let items = items();
    assert!(items.len() >= 60, "the claim suite has {} items", items.len());
    let store = SqliteStore::open_in_memory().unwrap();
    let docs = documents(&items);
    let documents = docs.len();
    let summary = ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(summary.documents, documents as u64);
    let vocab = Vocabulary::builtin();
    let checker = Checker::default();

    let (mut decided, mut kept) = (0usize, 0usize);
    let mut changed = Vec::new();
    for item in &items {
        let answer = Answer { text: item.answer.clone(), tool_calls: vec![], context: None, id: Some(item.id.clone()) };
        let req = Request { answer: &answer, question: item.question.as_deref(), output_id: None };
        let own = Corpus::new(
            item.sources.iter().map(|(id, text, title)| Source::new(id.as_str(), text.as_str()).titled(title.clone())).collect(),
        );
        let alone = checker.check(&req, &own).unwrap();
        let shared = checker.check_with_store(&req, &store, &vocab, None).unwrap();
        assert_eq!(alone.claims.len(), shared.claims.len(), "{}: same claims either way", item.id);
        for (a, s) in alone.claims.iter().zip(&shared.claims) {
            assert_eq!(a.claim_id, s.claim_id);
            // Every edge quotes its document exactly, at document offsets.
            for e in &s.support_edges {
                let text = store_text(&store, &e.source_id);
                let got: String = text.chars().skip(e.selector.start).take(e.selector.end - e.selector.start).collect();
                assert_eq!(got, e.selector.exact, "{}: edge {} quotes {}", item.id, e.edge_id, e.source_id);
            }
            if !matches!(a.status, Status::Supported | Status::Contradicted) {
                continue;
            }
            decided += 1;
            if a.status == s.status {
                kept += 1;
            } else {
                changed.push(format!(
                    "{} {:?}: {} alone, {} from the store ({})",
                    item.id,
                    a.text,
                    a.status.as_str(),
                    s.status.as_str(),
                    s.reason
                ));
            }
        }
    }
    let share = kept as f64 / decided.max(1) as f64;
    eprintln!("store retrieval: {kept}/{decided} decided claims keep their status ({share:.3})");
    for c in &changed {
        eprintln!("  {c}");
    }
    assert!(decided >= 100, "only {decided} decided claims");
    assert!(share >= MIN_KEPT, "{kept}/{decided} decided claims keep their status, below {MIN_KEPT}");
}

/// A chunk speaks under its document's title, as the whole document does: "He" in a page
/// titled "Albert Einstein" that names no one else is Einstein.
#[test]
fn retrieved_chunks_carry_their_documents_title() {
    let store = SqliteStore::open_in_memory().unwrap();
    let page = "He developed the theory of relativity. He won the Nobel Prize in Physics in 1921.";
    let docs = vec![
        DocumentInput { title: Some("Albert Einstein".into()), ..DocumentInput::new("einstein", page) },
        DocumentInput::new("untitled", page),
    ];
    ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    let claim = "Einstein won the Nobel Prize in Physics in 1921.";
    let r = warrant_check::retrieve(&store, &[claim], None, 8).unwrap();
    let titles: Vec<Option<&str>> = (0..r.corpus.len()).map(|i| r.corpus.doc(i).title.as_deref()).collect();
    assert_eq!(titles, [Some("Albert Einstein"), None]);
    let answer = Answer { text: claim.into(), tool_calls: vec![], context: None, id: None };
    let req = Request { answer: &answer, question: None, output_id: None };
    let report = Checker::default().check_with_store(&req, &store, &Vocabulary::builtin(), None).unwrap();
    assert_eq!(report.claims[0].status, Status::Supported, "{:?}", report.claims[0]);
    assert_eq!(report.claims[0].support_edges[0].source_id, "einstein");
}

#[test]
fn a_claim_no_chunk_shares_a_word_with_is_unsupported_not_unverified() {
    let store = SqliteStore::open_in_memory().unwrap();
    let doc = DocumentInput::new("pets", "Cats sleep most of the day.");
    ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    let answer = Answer { text: "Quantum zebras levitate.".into(), tool_calls: vec![], context: None, id: None };
    let req = Request { answer: &answer, question: None, output_id: None };
    let report = Checker::default().check_with_store(&req, &store, &Vocabulary::builtin(), None).unwrap();
    assert_eq!(report.claims.len(), 1);
    assert_eq!(report.claims[0].status, Status::Unsupported);
    assert_eq!(report.claims[0].reason, "no chunk of the store shares a word with the claim");
    assert_eq!(report.gate.as_str(), "review");
    // An empty store has nothing to check against.
    let empty = SqliteStore::open_in_memory().unwrap();
    let report = Checker::default().check_with_store(&req, &empty, &Vocabulary::builtin(), None).unwrap();
    assert_eq!(report.claims[0].status, Status::Unverified);
}

#[test]
fn the_question_leads_a_bare_answer_to_its_passage() {
    let store = SqliteStore::open_in_memory().unwrap();
    let docs = vec![
        DocumentInput::new("film", "Serendipity is a 2001 romantic comedy directed by Peter Chelsom."),
        DocumentInput::new("cast", "The cast of the play includes several stage actors."),
        DocumentInput::new("other", "Lucy Gordon is an English actress and model."),
    ];
    ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    let ids = |r: &warrant_check::Retrieved| (0..r.corpus.len()).map(|i| r.corpus.doc(i).id.clone()).collect::<Vec<_>>();
    // The answer's own words find only the passage about the actress.
    let alone = warrant_check::retrieve(&store, &["Lucy Gordon"], None, 8).unwrap();
    assert_eq!(ids(&alone), ["other"]);
    // With the question as weaker context, the passage about the film is found too (the
    // corpus lists documents by id).
    let asked = warrant_check::retrieve(&store, &["Lucy Gordon"], Some("Who directed Serendipity?"), 8).unwrap();
    assert_eq!(ids(&asked), ["film", "other"]);
    let answer = Answer { text: "Lucy Gordon".into(), tool_calls: vec![], context: None, id: None };
    let req = Request { answer: &answer, question: Some("Who directed Serendipity?"), output_id: None };
    let report = Checker::default().check_with_store(&req, &store, &Vocabulary::builtin(), None).unwrap();
    assert_eq!(report.claims[0].status, Status::Contradicted, "{:?}", report.claims[0]);
    assert_eq!(report.claims[0].support_edges[0].source_id, "film");
}

/// The chunk index kept in the store ranks exactly as the one built in memory: every item of
/// the claim suite, checked against one store of all their sources, gives the same report
/// byte for byte either way; a write makes the kept index stale, and checks go on in memory.
#[test]
fn the_kept_chunk_index_gives_the_reports_of_the_one_in_memory() {
    use warrant_check::{ChunkIndex, PERSISTED_CHUNK_INDEX};
    use warrant_store::Store;
    let items = items();
    let store = SqliteStore::open_in_memory().unwrap();
    let docs = documents(&items);
    ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    let vocab = Vocabulary::builtin();
    let checker = Checker::default();
    let kept = |s: &SqliteStore| s.read_persisted(PERSISTED_CHUNK_INDEX, &mut |_| Ok(())).unwrap();
    let reports = |s: &SqliteStore| -> Vec<String> {
        items
            .iter()
            .map(|item| {
                let answer = Answer { text: item.answer.clone(), tool_calls: vec![], context: None, id: Some(item.id.clone()) };
                let req = Request { answer: &answer, question: item.question.as_deref(), output_id: None };
                serde_json::to_string(&checker.check_with_store(&req, s, &vocab, None).unwrap()).unwrap()
            })
            .collect()
    };
    // Retrieval itself, with a question as context: the same chunks, scopes and counts.
    let retrieval = |s: &SqliteStore| {
        let texts = ["Session tokens expire after 30 minutes", "The album was released in 1998 by the band"];
        let r = warrant_check::retrieve(s, &texts, Some("When was it released?"), 8).unwrap();
        let sources: Vec<(String, usize)> =
            (0..r.corpus.len()).map(|i| (r.corpus.doc(i).id.clone(), r.corpus.doc(i).offset)).collect();
        (sources, r.scope, r.searched)
    };
    assert!(!kept(&store));
    let in_memory = (reports(&store), retrieval(&store));
    assert!(ChunkIndex::persist(&store).unwrap());
    assert!(kept(&store));
    let from_store = (reports(&store), retrieval(&store));
    // Again, with what the first round kept in memory (the memo of this state).
    assert_eq!(reports(&store), from_store.0);
    let differ: Vec<&str> = items
        .iter()
        .zip(in_memory.0.iter().zip(&from_store.0))
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| i.id.as_str())
        .collect();
    assert!(differ.is_empty(), "{} of {} reports differ: {differ:?}", differ.len(), items.len());
    assert!(in_memory.1.0.len() >= 8, "{:?}", in_memory.1);
    assert_eq!(in_memory.1, from_store.1);
    let index = ChunkIndex::build(&store).unwrap();
    // A write: the kept index is stale, and a check sees the new document (in memory).
    let doc = DocumentInput::new("new", "Quokkas are small marsupials found on Rottnest Island.");
    ingest(&store, vec![doc], Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    assert!(!kept(&store));
    let after = warrant_check::retrieve(&store, &["Quokkas live on Rottnest Island"], None, 8).unwrap();
    assert_eq!(after.searched, index.len() + 1);
    assert_eq!(after.corpus.doc(0).id, "new");
}

fn store_text(store: &SqliteStore, id: &str) -> String {
    use warrant_store::Store;
    store.document_text(id).unwrap().unwrap_or_else(|| panic!("no document {id}"))
}
