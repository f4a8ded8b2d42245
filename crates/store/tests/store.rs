//! Store behaviour, one conformance suite run against every backend: replace and no-op
//! re-ingest, atomic writes, concurrency, search, facts, entities, derived values; then the
//! SQLite file's own checks (migrations, what a file is, WAL, bulk-load indexes).
//!
//! Each contract test is a function of a [`Backend`]; `conformance!` runs it once on SQLite
//! and once on PostgreSQL. The PostgreSQL side needs `WARRANT_TEST_POSTGRES` (a server URL,
//! e.g. from `eval "$(scripts/pg_cluster.sh start)"`); each test makes its own database.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod backends;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use backends::Backend;
use serde_json::json;
use warrant_facts::Fact;
use warrant_store::ChunkRange;
use warrant_store::STORE_FILE;
use warrant_store::read_sources;
use warrant_store::{Chunk, DocumentInput, FactQuery, IngestOptions, SqliteStore, Store, StoreError, ingest, prepare};

fn doc(id: &str, text: &str, version: Option<&str>) -> DocumentInput {
    DocumentInput {
        id: id.into(),
        text: text.into(),
        version: version.map(Into::into),
        title: None,
        metadata: None,
        origin: id.into(),
    }
}

fn run(store: &dyn Store, docs: Vec<DocumentInput>) -> warrant_store::IngestSummary {
    ingest(store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap()
}

const AUTH_V1: &str = "Session tokens expire after 30 minutes of inactivity.\n\nThe gateway requires an API key. The gateway requires client certificates.";
const AUTH_V2: &str = "Session tokens expire after 15 minutes of inactivity.\n\nAPI keys are valid for 90 days.";

/// Runs each named `fn name(Backend)` as a test per backend: `sqlite::name`, `postgres::name`.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name(super::Backend::Sqlite) } )*
        }
        mod postgres {
            $( #[test] fn $name() { super::$name(super::Backend::Postgres) } )*
        }
    };
}

conformance!(
    reingest_is_a_noop_and_changes_replace,
    options_are_part_of_the_ingest_key,
    a_failed_write_leaves_the_store_unchanged,
    duplicate_ids_in_one_ingest_are_refused,
    search_ranks_by_bm25_deterministically,
    fact_queries_filter_and_limit,
    readers_work_while_a_writer_writes,
    concurrent_writers_serialise,
    concurrent_ingests_of_the_same_documents_do_not_duplicate,
    stored_reading_files_and_folders,
    chunk_frequency_counts_stemmed_words_up_to_a_cap,
    term_stats_count_chunks_and_follow_every_change_to_the_index,
    derived_values_are_kept_until_any_handle_changes_the_chunks,
    persisted_derived_data_is_read_only_at_the_state_it_was_made_for,
    entity_head_reads_the_first_mentions_only,
    entity_ids_and_fact_positions,
    a_newer_schema_is_refused,
);

fn reingest_is_a_noop_and_changes_replace(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    let s = run(&*store, vec![doc("auth", AUTH_V1, Some("1.0")), doc("other", "Billing is enabled.", None)]);
    assert_eq!((s.documents, s.chunks, s.facts, s.unchanged_documents), (2, 3, 4, 0));
    let before = store.facts(&FactQuery::all()).unwrap();

    let s = run(&*store, vec![doc("auth", AUTH_V1, Some("1.0")), doc("other", "Billing is enabled.", None)]);
    assert_eq!((s.documents, s.chunks, s.facts, s.unchanged_documents), (0, 0, 0, 2));
    assert_eq!(store.facts(&FactQuery::all()).unwrap(), before);

    // A version change alone re-ingests (facts carry the version).
    let s = run(&*store, vec![doc("auth", AUTH_V1, Some("1.1"))]);
    assert_eq!((s.documents, s.facts), (1, 3));
    assert!(store.facts(&FactQuery::all().with_version("1.0")).unwrap().is_empty());

    let s = run(&*store, vec![doc("auth", AUTH_V2, Some("2.0"))]);
    assert_eq!((s.documents, s.chunks, s.facts), (1, 2, 2));
    let facts = store.facts(&FactQuery { doc_id: Some("auth".into()), ..FactQuery::default() }).unwrap();
    let got: Vec<(&str, String)> = facts.iter().map(|f| (f.predicate.as_str(), f.object.to_string())).collect();
    assert_eq!(got, [("expires_after", "15 minutes".to_string()), ("valid_for", "90 days".to_string())]);
    assert_eq!(store.chunks_of("auth").unwrap().len(), 2);
    assert!(store.search("gateway", 10).unwrap().is_empty(), "old chunks left the index");
    assert!(store.entity("gateway").unwrap().is_none(), "entities only the old text mentioned are gone");
    assert_eq!(store.entity("session tokens").unwrap().unwrap().mentions.len(), 1);
    // The replaced document keeps its place in ingestion order.
    let ids: Vec<String> = store.documents().unwrap().into_iter().map(|d| d.id).collect();
    assert_eq!(ids, ["auth", "other"]);
    assert_eq!(store.stats().unwrap().total_facts, 3);
    drop(store);
    // Everything persisted.
    let reopened = fx.open();
    assert_eq!(reopened.stats().unwrap().documents, 2);
    fx.assert_sound();
}

fn options_are_part_of_the_ingest_key(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    run(&*store, vec![doc("a", AUTH_V1, None)]);
    let small = IngestOptions { max_chunk_chars: 40, ..IngestOptions::default() };
    let s = ingest(&*store, vec![doc("a", AUTH_V1, None)], Vec::new(), &small, &mut |_| {}).unwrap();
    assert_eq!((s.documents, s.chunks), (1, 5));
    let chunks = store.chunks_of("a").unwrap();
    let text = store.document_text("a").unwrap().unwrap();
    for c in &chunks {
        assert!(c.end - c.start <= 40);
        assert_eq!(warrant_text::clamp_slice(&text, c.start, c.end), c.text);
    }
    assert_eq!(chunks.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["a#1", "a#2", "a#3", "a#4", "a#5"]);
    let no_extract = IngestOptions { extract: false, ..IngestOptions::default() };
    let s = ingest(&*store, vec![doc("a", AUTH_V1, None)], Vec::new(), &no_extract, &mut |_| {}).unwrap();
    assert_eq!((s.documents, s.facts), (1, 0));
    assert_eq!(store.stats().unwrap().total_facts, 0);
}

fn a_failed_write_leaves_the_store_unchanged(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    run(&*store, vec![doc("keep", "Billing is enabled.", None)]);
    let before = (store.stats().unwrap(), store.facts(&FactQuery::all()).unwrap());
    let good = prepare(&doc("new", AUTH_V1, None), &IngestOptions::default());
    let mut bad = prepare(&doc("keep", AUTH_V2, None), &IngestOptions::default());
    // Two chunks with the same index collide on the chunk id: the write fails half-way.
    let c: ChunkRange = bad.chunks[0];
    bad.chunks.push(c);
    let err = store.write(&mut vec![good, bad].into_iter(), &[], &mut |_| {}).unwrap_err();
    assert!(matches!(err, StoreError::Sqlite { .. } | StoreError::Postgres { .. }), "{err}");
    assert_eq!((store.stats().unwrap(), store.facts(&FactQuery::all()).unwrap()), before);
    assert!(store.document("new").unwrap().is_none());
    assert_eq!(store.search("billing", 5).unwrap().len(), 1);
}

fn duplicate_ids_in_one_ingest_are_refused(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    let err = ingest(&*store, vec![doc("a", "x", None), doc("a", "y", None)], Vec::new(), &IngestOptions::default(), &mut |_| {});
    assert!(err.unwrap_err().to_string().contains("duplicate document id \"a\""));
}

fn search_ranks_by_bm25_deterministically(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    run(
        &*store,
        vec![
            doc(
                "a",
                "Tokens rotate daily.\n\nSession tokens expire after 15 minutes of inactivity. Session tokens are signed.",
                None,
            ),
            doc("b", "Cookies are HttpOnly.\n\nSession cookies expire at browser close.", None),
            doc("c", "Nothing relevant here.", None),
        ],
    );
    let hits = store.search("when do session tokens expire?", 10).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.chunk_id.as_str()).collect();
    assert_eq!(ids, ["a#2", "b#2", "a#1"]);
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score) && hits[0].score > 0.0);
    assert_eq!((hits[0].doc_id.as_str(), hits[0].index, hits[0].start), ("a", 1, 22));
    assert_eq!(store.search("when do session tokens expire?", 1).unwrap()[0].chunk_id, "a#2");
    assert!(store.search("\"", 10).unwrap().is_empty());
    assert!(store.search("zebra", 10).unwrap().is_empty());
    // Stemming: "expiring" finds "expire".
    assert_eq!(store.search("expiring", 10).unwrap().len(), 2);
    let again = store.search("when do session tokens expire?", 10).unwrap();
    assert_eq!(again, hits);
}

fn fact_queries_filter_and_limit(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store = fx.open();
    run(&*store, vec![doc("g", AUTH_V1, Some("v1"))]);
    let q = FactQuery { subject: Some("gateway".into()), predicate: Some("requires".into()), ..FactQuery::default() };
    let objects: Vec<String> = store.facts(&q).unwrap().iter().map(|f| f.object.to_string()).collect();
    assert_eq!(objects, ["api_key", "client_certificate"]);
    assert_eq!(store.facts(&FactQuery { limit: Some(1), ..q.clone() }).unwrap().len(), 1);
    let by_object =
        FactQuery { object: Some(warrant_facts::Object::String("client_certificate".into())), ..FactQuery::default() };
    assert_eq!(store.facts(&by_object).unwrap().len(), 1);
    assert_eq!(store.facts(&FactQuery::all().with_version("1")).unwrap().len(), 3);
    // Several queries at once: each one's answer, in the order asked.
    let asked = [
        q.clone(),
        FactQuery { limit: Some(1), ..q.clone() },
        by_object.clone(),
        FactQuery::subject_predicate("nothing", "requires"),
        FactQuery { limit: Some(0), ..q.clone() },
    ];
    let each: Vec<Vec<Fact>> = asked.iter().map(|q| store.facts(q).unwrap()).collect();
    assert_eq!(each.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1, 1, 0, 0]);
    assert_eq!(store.facts_each(&asked).unwrap(), each);
    assert!(store.facts_each(&[]).unwrap().is_empty());
    // Several chunks at once, in the order asked, a missing one as `None`, a repeated one twice.
    let chunks = store.chunks_by_id(&["g#2", "g#9", "g#1", "g#2"]).unwrap();
    let one = |id: &str| store.chunk(id).unwrap();
    assert_eq!(chunks, [one("g#2"), None, one("g#1"), one("g#2")]);
    assert!(chunks[0].as_ref().is_some_and(|c| c.text.starts_with("The gateway requires")));
    assert!(store.chunks_by_id(&[]).unwrap().is_empty());
    let f = &store.facts(&q).unwrap()[0];
    assert_eq!(store.fact(&f.id).unwrap().as_ref(), Some(f));
    assert_eq!(serde_json::to_value(f).unwrap()["source"], json!({"docId": "g", "chunkId": "g#2"}));
    let stats = store.stats().unwrap();
    assert_eq!(stats.by_predicate.get("requires"), Some(&2));
    // Numbers compare by exact value, typed.
    let num = Fact::from_manual_json(
        &json!({"subject": "limit", "predicate": "has_value", "object": 15.0, "source": {"docId": "m", "chunkId": "m1"}}),
    )
    .unwrap();
    store.write(&mut std::iter::empty(), &[num], &mut |_| {}).unwrap();
    let n = |t: &str| FactQuery {
        object: Some(warrant_facts::Object::Number(serde_json::from_str(t).unwrap())),
        ..FactQuery::default()
    };
    assert_eq!(store.facts(&n("15")).unwrap().len(), 1);
    assert_eq!(store.facts(&n("15.5")).unwrap().len(), 0);
    let s = FactQuery { object: Some(warrant_facts::Object::String("15".into())), ..FactQuery::default() };
    assert_eq!(store.facts(&s).unwrap().len(), 0);
}

fn readers_work_while_a_writer_writes(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let store: Arc<dyn Store> = Arc::from(fx.open());
    run(store.as_ref(), vec![doc("base", AUTH_V1, Some("1.0"))]);
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (store, done) = (Arc::clone(&store), Arc::clone(&done));
            std::thread::spawn(move || {
                let mut reads = 0;
                while !done.load(Ordering::Relaxed) || reads == 0 {
                    let base = store.facts(&FactQuery { doc_id: Some("base".into()), ..FactQuery::default() }).unwrap();
                    assert_eq!(base.len(), 3, "the base document is always whole");
                    let n = store.stats().unwrap().documents;
                    let hits = store.search("session tokens", 5).unwrap();
                    assert!(!hits.is_empty() && n >= 1);
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    for round in 0..20 {
        let docs = (0..50)
            .map(|i| doc(&format!("d{i}"), &format!("Service {i} requires token {round}. Quota {i} is {round} rps."), None))
            .collect();
        run(store.as_ref(), docs);
    }
    done.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert_eq!(store.stats().unwrap().documents, 51);
}

fn concurrent_writers_serialise(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let fx = Arc::new(fx);
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let fx = Arc::clone(&fx);
            std::thread::spawn(move || {
                let store = fx.open();
                for round in 0..5 {
                    let docs = (0..20)
                        .map(|i| doc(&format!("w{w}-{i}"), &format!("Writer {w} requires round {round}."), None))
                        .collect();
                    run(&*store, docs);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = fx.open();
    fx.assert_sound();
    let stats = store.stats().unwrap();
    assert_eq!((stats.documents, stats.chunks, stats.total_facts), (80, 80, 80));
    for f in store.facts(&FactQuery::all()).unwrap() {
        assert_eq!(f.object.to_string(), "round_4", "every document holds its last version");
    }
}

#[test]
fn opening_checks_what_the_file_is() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(SqliteStore::open_existing(dir.path()), Err(StoreError::NotFound(_))));
    std::fs::write(dir.path().join(STORE_FILE), b"this is not a database, just some text that is long enough to matter....")
        .unwrap();
    let err = SqliteStore::open(dir.path()).unwrap_err();
    assert!(matches!(err, StoreError::NotAStore(_)), "{err}");

    let other = tempfile::tempdir().unwrap();
    {
        let c = rusqlite_conn(&other.path().join(STORE_FILE));
        c.execute_batch("CREATE TABLE t(x)").unwrap();
    }
    assert!(matches!(SqliteStore::open(other.path()), Err(StoreError::NotAStore(_))));

    let newer = tempfile::tempdir().unwrap();
    SqliteStore::open(newer.path()).unwrap();
    rusqlite_conn(&newer.path().join(STORE_FILE)).execute_batch("PRAGMA user_version = 99").unwrap();
    let err = SqliteStore::open(newer.path()).unwrap_err();
    assert!(err.to_string().contains("schema version 99 is newer"), "{err}");

    let fine = tempfile::tempdir().unwrap();
    let s = SqliteStore::open(fine.path()).unwrap();
    assert_eq!(s.schema_version().unwrap(), warrant_store::current_version());
    let mode: String = rusqlite_conn(&fine.path().join(STORE_FILE)).query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

fn rusqlite_conn(p: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(p).unwrap()
}

fn stored_reading_files_and_folders(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("docs/sub")).unwrap();
    std::fs::create_dir_all(d.join("docs/.hidden")).unwrap();
    std::fs::write(d.join("docs/a.md"), "# Auth\n\nSession tokens expire after 30 minutes.").unwrap();
    std::fs::write(d.join("docs/sub/b.html"), "<title>B</title><p>API keys are valid for 90 days.</p><script>x()</script>")
        .unwrap();
    std::fs::write(
        d.join("docs/sub/c.jsonl"),
        "{\"id\": \"c1\", \"text\": \"Billing is enabled.\", \"version\": 2, \"metadata\": {\"team\": \"x\"}}\n",
    )
    .unwrap();
    std::fs::write(d.join("docs/logo.png"), [0x89, 0x50, 0x4e, 0x47, 0]).unwrap();
    std::fs::write(d.join("docs/.hidden/x.txt"), "secret").unwrap();
    let set = read_sources(&[d.join("docs")], Some("1.0"), &mut |_| {}).unwrap();
    let prefix = format!("{}/", warrant_store::display_path(d));
    let ids: Vec<String> = set.documents.iter().map(|x| x.id.trim_start_matches(&prefix).to_string()).collect();
    assert_eq!(ids, ["docs/a.md", "docs/sub/b.html", "c1"]);
    assert_eq!((set.files, set.skipped), (3, 2));
    assert_eq!(set.documents[0].title.as_deref(), Some("Auth"));
    assert_eq!(set.documents[0].version.as_deref(), Some("1.0"));
    assert_eq!(set.documents[2].version.as_deref(), Some("2"));
    assert_eq!(
        (set.documents[1].title.as_deref(), set.documents[1].text.as_str()),
        (Some("B"), "API keys are valid for 90 days.")
    );

    let store = fx.open();
    let s = run(&*store, set.documents);
    assert_eq!((s.documents, s.facts), (3, 3));
    let c1 = store.document("c1").unwrap().unwrap();
    assert_eq!(c1.metadata, Some(json!({"team": "x"})));
    assert_eq!(c1.sha256, warrant_store::sha256_hex("Billing is enabled."));
    assert_eq!(c1.sha256.len(), 64);

    // Binary files named explicitly are refused; all problems are reported together.
    let errs = read_sources(&[d.join("docs/logo.png"), d.join("nope.txt"), d.join("docs/a.md")], None, &mut |_| {}).unwrap_err();
    let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].ends_with(
            "docs/logo.png: binary file (contains NUL bytes); ingest reads UTF-8 text files (.txt, .md, .html, .jsonl and .json)"
        ),
        "{}",
        msgs[0]
    );
    assert!(msgs[1].ends_with("nope.txt: cannot read: no such file"));
    let errs = read_sources(&[d.join("docs/a.md"), d.join("docs/a.md")], None, &mut |_| {}).unwrap_err();
    assert!(errs[0].to_string().contains("duplicate document id"));
}

fn index_names(dir: &Path) -> Vec<String> {
    let c = rusqlite_conn(&dir.join(STORE_FILE));
    let mut st = c.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name").unwrap();
    st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
}

#[test]
fn bulk_loads_rebuild_their_indexes_even_after_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path()).unwrap();
    let full = index_names(dir.path());
    assert!(full.contains(&"facts_subject_predicate".to_string()) && full.contains(&"mentions_entity".to_string()));
    // A first (bulk) write that fails half-way: indexes dropped inside it come back with the rollback.
    let mut bad = prepare(&doc("x", AUTH_V1, None), &IngestOptions::default());
    let c: ChunkRange = bad.chunks[0];
    bad.chunks.push(c);
    assert!(store.write(&mut vec![bad].into_iter(), &[], &mut |_| {}).is_err());
    assert_eq!(index_names(dir.path()), full);
    // A successful bulk write rebuilds them; lookups use them.
    run(&store, vec![doc("x", AUTH_V1, None)]);
    assert_eq!(index_names(dir.path()), full);
    assert_eq!(store.facts(&FactQuery::subject_predicate("gateway", "requires")).unwrap().len(), 2);
    assert_eq!(store.entity("gateways").unwrap().unwrap().id, "gateway");
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[test]
fn two_first_ingests_into_a_new_store_take_turns() {
    // Creating a store must be as safe as writing to one: both creators open, migrate and
    // write, none sees "the store is busy" or "not a store". 100 trials, each with both threads released at once (a half-created file once read as "not a store" about 1 time in 1,200 under load).
    for trial in 0..100 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new");
        let start = Arc::new(std::sync::Barrier::new(2));
        let handles: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|id| {
                let (path, start) = (path.clone(), Arc::clone(&start));
                std::thread::spawn(move || {
                    start.wait();
                    let store = SqliteStore::open(&path).map_err(|e| format!("open: {e}"))?;
                    ingest(&store, vec![doc(id, "Alpha is one.", None)], Vec::new(), &IngestOptions::default(), &mut |_| {})
                        .map(|_| ())
                        .map_err(|e| format!("ingest: {e}"))
                })
            })
            .collect();
        for h in handles {
            let r = h.join().unwrap();
            assert!(r.is_ok(), "trial {trial}: {r:?}");
        }
        let store = SqliteStore::open_existing(&path).unwrap();
        assert_eq!(store.stats().unwrap().documents, 2, "trial {trial}");
    }
}

#[test]
fn opening_an_existing_store_never_writes_into_a_file_that_is_not_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(STORE_FILE);
    std::fs::write(&file, b"").unwrap();
    let e = SqliteStore::open_existing(dir.path()).unwrap_err();
    assert!(matches!(e, StoreError::NotFound(_)), "{e:?}");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 0, "the empty file was written to");
    assert!(!dir.path().join(format!("{STORE_FILE}-wal")).exists());
    // Another application's database is refused as such, and left as it was.
    let other = foreign_database(dir.path());
    let before = std::fs::read(&other).unwrap();
    let e = SqliteStore::open_existing(other.parent().unwrap()).unwrap_err();
    assert!(matches!(e, StoreError::NotAStore(_)), "{e:?}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

/// An SQLite database that is not a Warrant store: a store's file with its application id
/// (offset 68 of the header) reset to 0.
fn foreign_database(root: &Path) -> std::path::PathBuf {
    let d = root.join("other");
    std::fs::create_dir_all(&d).unwrap();
    let store = SqliteStore::open(&d).unwrap();
    drop(store);
    let file = d.join(STORE_FILE);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[68..72].copy_from_slice(&[0, 0, 0, 0]);
    std::fs::write(&file, bytes).unwrap();
    file
}

fn concurrent_ingests_of_the_same_documents_do_not_duplicate(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let fx = Arc::new(fx);
    let docs = || (0..30).map(|i| doc(&format!("d{i}"), &format!("Service {i} requires token {i}."), None)).collect::<Vec<_>>();
    let start = Arc::new(std::sync::Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (fx, start, docs) = (Arc::clone(&fx), Arc::clone(&start), docs());
            std::thread::spawn(move || {
                let store = fx.open();
                start.wait();
                run(&*store, docs)
            })
        })
        .collect();
    let summaries: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    // Between them every document was written once and found unchanged once.
    assert_eq!(summaries.iter().map(|s| s.documents).sum::<u64>(), 30);
    assert_eq!(summaries.iter().map(|s| s.unchanged_documents).sum::<u64>(), 30);
    let store = fx.open();
    let stats = store.stats().unwrap();
    assert_eq!((stats.documents, stats.chunks, stats.total_facts), (30, 30, 30));
    // Ingesting once more changes nothing.
    let again = run(&*store, docs());
    assert_eq!((again.documents, again.unchanged_documents), (0, 30));
    assert_eq!(store.stats().unwrap(), stats);
    assert_eq!(store.search("token", 100).unwrap().len(), 30);
    fx.assert_sound();
}

fn chunk_frequency_counts_stemmed_words_up_to_a_cap(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    run(&*s, vec![doc("a", "Gateways require keys.\n\nThe gateway is up.", None), doc("b", "A gateway requires tokens.", None)]);
    assert_eq!(s.chunk_frequency("gateway", 100).unwrap(), 3);
    assert_eq!(s.chunk_frequency("requires", 100).unwrap(), 2, "stemmed like the index");
    assert_eq!(s.chunk_frequency("gateway", 2).unwrap(), 2, "capped");
    assert_eq!(s.chunk_frequency("absent", 100).unwrap(), 0);
    assert_eq!(s.chunk_frequency("  ", 100).unwrap(), 0);
    assert_eq!(s.chunk_frequency("keys tokens", 100).unwrap(), 2, "words OR-ed");
}

fn term_stats_count_chunks_and_follow_every_change_to_the_index(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    let opts = IngestOptions { max_chunk_chars: 40, ..IngestOptions::default() };
    let docs = vec![
        doc("a", "Gateways require keys.\n\nThe gateway is up.\n\nThe gateway logs requests.", None),
        doc("b", "A gateway requires tokens.\n\nTokens expire hourly.", None),
    ];
    ingest(&*s, docs, Vec::new(), &opts, &mut |_| {}).unwrap();
    let t = s.term_stats(&["gateway", "tokens", "absent"]).unwrap();
    assert_eq!(t.chunks, 5);
    // "gateway" is in 4 of 5 chunks: counted up to half the chunks plus one.
    assert_eq!(t.frequencies, vec![3, 2, 0]);
    // Cached answers agree with fresh counts.
    assert_eq!(s.term_stats(&["tokens", "gateway"]).unwrap().frequencies, vec![2, 3]);
    // A write through another handle (another process) is noticed: the counts follow it.
    let other = fx.open();
    ingest(&*other, vec![doc("c", "Tokens rotate daily.", None)], Vec::new(), &opts, &mut |_| {}).unwrap();
    let t = s.term_stats(&["tokens", "rotate"]).unwrap();
    assert_eq!((t.chunks, t.frequencies), (6, vec![3, 1]));
    // Replacing a document (same number of chunks, other words) is noticed too.
    ingest(&*other, vec![doc("c", "Keys rotate weekly.", None)], Vec::new(), &opts, &mut |_| {}).unwrap();
    let t = s.term_stats(&["tokens", "keys"]).unwrap();
    assert_eq!((t.chunks, t.frequencies), (6, vec![2, 2]));
}

fn derived_values_are_kept_until_any_handle_changes_the_chunks(b: Backend) {
    use std::sync::atomic::AtomicUsize;
    use warrant_store::Derived;
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    let ingest_one = |st: &dyn Store, id: &str, text: &str| {
        ingest(st, vec![doc(id, text, None)], Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
    };
    run(&*s, vec![doc("b", "Beta one.", None), doc("a", "Alpha two.", None)]);
    // Chunks are visited in stored order: documents as written, not by id.
    let ids = |st: &dyn Store| {
        let mut ids = Vec::new();
        st.visit_chunks(&mut |c| ids.push(c.id)).unwrap();
        ids
    };
    assert_eq!(ids(&*s), ["b#1", "a#1"]);
    let builds = AtomicUsize::new(0);
    let build = |st: &dyn Store| -> warrant_store::Result<Derived> {
        builds.fetch_add(1, Ordering::SeqCst);
        Ok(Arc::new(ids(st)) as Derived)
    };
    let first = s.derived("ids", &build).unwrap();
    assert!(Arc::ptr_eq(&first, &s.derived("ids", &build).unwrap()), "kept");
    assert_eq!(builds.load(Ordering::SeqCst), 1);
    // A write by another handle (another process) is noticed.
    let other = fx.open();
    ingest_one(&*other, "c", "Gamma three.");
    let fresh = s.derived("ids", &build).unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 2);
    assert_eq!(fresh.downcast_ref::<Vec<String>>().unwrap(), &["b#1", "a#1", "c#1"]);
    // Threads that miss together build once: the others wait for that value.
    ingest_one(&*other, "d", "Delta four.");
    let slow = |st: &dyn Store| -> warrant_store::Result<Derived> {
        std::thread::sleep(std::time::Duration::from_millis(50));
        build(st)
    };
    let values: Vec<Derived> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| s.derived("ids", &slow).unwrap())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(builds.load(Ordering::SeqCst), 3, "one build for four threads");
    assert!(values.iter().all(|v| Arc::ptr_eq(v, &values[0])));
    // A value built while a write lands is handed out but not kept.
    ingest_one(&*other, "e", "Epsilon five.");
    let writing = |st: &dyn Store| -> warrant_store::Result<Derived> {
        let v = build(st);
        ingest_one(&*other, "f", "Phi six.");
        v
    };
    s.derived("ids", &writing).unwrap();
    s.derived("ids", &build).unwrap();
    assert_eq!(builds.load(Ordering::SeqCst), 5, "the value of the old state was not kept");
}

fn persisted_derived_data_is_read_only_at_the_state_it_was_made_for(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    run(&*s, vec![doc("b", "Beta one.", None), doc("a", "Alpha two.", None)]);
    // What a reader sees: the values of the asked keys and the asked chunks, or nothing.
    type Seen = (Vec<Option<Vec<u8>>>, Vec<Option<String>>);
    let read = |st: &dyn Store, name: &str| -> Option<Seen> {
        let mut seen = None;
        let kept = st
            .read_persisted(name, &mut |view| {
                let values = view.values(&[b"k1".to_vec(), b"nope".to_vec(), b"k2".to_vec()])?;
                let chunks = view.chunks(&["a#1", "gone#1", "b#1"])?;
                seen = Some((values, chunks.into_iter().map(|c| c.map(|c| c.text)).collect()));
                Ok(())
            })
            .unwrap();
        assert_eq!(kept, seen.is_some());
        seen
    };
    assert_eq!(read(&*s, "ix"), None, "nothing kept yet");
    let state = s.chunk_state().unwrap();
    assert_eq!(state, fx.open().chunk_state().unwrap(), "every handle reads the same state");
    let entries = || vec![(b"k1".to_vec(), vec![1u8, 2]), (b"k2".to_vec(), Vec::new())];
    assert!(s.persist_derived("ix", &state, &mut entries().into_iter()).unwrap());
    let want = (
        vec![Some(vec![1u8, 2]), None, Some(Vec::new())],
        vec![Some("Alpha two.".to_string()), None, Some("Beta one.".to_string())],
    );
    assert_eq!(read(&*s, "ix"), Some(want.clone()));
    assert_eq!(read(&*fx.open(), "ix"), Some(want), "another handle (process) reads it too");
    assert_eq!(read(&*s, "other"), None, "names are apart");
    assert_eq!(s.chunk_state().unwrap(), state, "keeping derived data is not a change of the chunks");
    // Replacing keeps only the new entries.
    assert!(s.persist_derived("ix", &state, &mut vec![(b"k2".to_vec(), vec![9u8])].into_iter()).unwrap());
    assert_eq!(read(&*s, "ix").unwrap().0, vec![None, None, Some(vec![9u8])]);
    // A write of another handle makes it stale, and an old state is not kept.
    run(&*fx.open(), vec![doc("c", "Gamma three.", None)]);
    assert_ne!(s.chunk_state().unwrap(), state);
    assert_eq!(read(&*s, "ix"), None, "stale after a write");
    assert!(!s.persist_derived("ix", &state, &mut entries().into_iter()).unwrap(), "made for an old state");
    assert_eq!(read(&*s, "ix"), None);
    let now = s.chunk_state().unwrap();
    assert!(s.persist_derived("ix", &now, &mut entries().into_iter()).unwrap());
    assert!(read(&*s, "ix").is_some());
    // Large values read back whole; on PostgreSQL they are stored compressed with lz4 (the
    // CI's server is built with it).
    let big: Vec<u8> = (0..60_000u32).map(|i| (i % 7) as u8).collect();
    assert!(s.persist_derived("ix", &now, &mut vec![(b"k1".to_vec(), big.clone())].into_iter()).unwrap());
    assert_eq!(read(&*s, "ix").unwrap().0[0].as_ref(), Some(&big));
    if b == Backend::Postgres {
        let mut c = ::postgres::Client::connect(fx.location(), ::postgres::NoTls).unwrap();
        let method: Option<String> =
            c.query_one("SELECT pg_column_compression(value) FROM derived WHERE key = $1", &[&b"k1".as_slice()]).unwrap().get(0);
        assert_eq!(method.as_deref(), Some("lz4"));
    }
}

fn entity_head_reads_the_first_mentions_only(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    let docs = vec![
        doc("a", "Session tokens expire after 5 minutes.", None),
        doc("b", "The session token requires a key.", None),
        doc("c", "Session tokens are valid for 2 days.", None),
    ];
    run(&*s, docs);
    let all = s.entity("session token").unwrap().unwrap();
    assert_eq!(all.mentions.len(), 3);
    let head = s.entity_head("session token", 2).unwrap().unwrap();
    assert_eq!(head.id, all.id);
    assert_eq!(head.mentions, all.mentions[..2]);
    let mut want: Vec<String> = all.mentions[..2].iter().map(|m| m.surface.clone()).collect();
    want.sort();
    want.dedup();
    assert_eq!(head.aliases, want, "the aliases among the mentions read");
    assert!(all.aliases.len() >= head.aliases.len());
    assert_eq!(s.entity_head("session token", 0).unwrap().unwrap().mentions.len(), 0);
    assert!(s.entity_head("nothing here", 5).unwrap().is_none());
}

fn entity_ids_and_fact_positions(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    let s = fx.open();
    let fact = |subject: &str, doc: &str| {
        Fact::from_manual_json(&json!({"subject": subject, "predicate": "requires", "object": "vault",
            "source": {"docId": doc, "chunkId": "c1"}}))
        .unwrap()
    };
    let (a, b) = (fact("gateway", "z"), fact("API keys", "a"));
    s.write(&mut std::iter::empty(), &[a.clone(), b.clone()], &mut |_| {}).unwrap();
    assert_eq!(s.entity_id("Gateways").unwrap().as_deref(), Some("gateway"));
    assert_eq!(s.entity_id("api key").unwrap().as_deref(), Some("api_key"));
    assert_eq!(s.entity_id("vault").unwrap(), None, "manual facts register their subjects only");
    let pos = s.fact_positions(&[&b.id, &a.id, "f-missing"]).unwrap();
    assert_eq!(pos.len(), 2);
    assert!(pos[&a.id] < pos[&b.id], "insertion order when neither document is stored");
    assert_eq!(pos[&a.id].document, (true, 0));
    // Writing the same manual facts again replaces them in place.
    s.write(&mut std::iter::empty(), &[b.clone(), a.clone()], &mut |_| {}).unwrap();
    assert_eq!(s.stats().unwrap().total_facts, 2);
    assert_eq!(s.fact_positions(&[&b.id, &a.id]).unwrap(), pos.into_iter().filter(|(k, _)| k != "f-missing").collect());
    assert_eq!(s.entity("gateway").unwrap().unwrap().mentions.len(), 1, "manual mentions are not repeated");
}

/// A store written by a newer Warrant is refused with the versions; PostgreSQL also refuses
/// a database that was never migrated, naming the command that migrates it.
fn a_newer_schema_is_refused(b: Backend) {
    let Some(fx) = b.fresh() else { return };
    match b {
        Backend::Sqlite => {
            let file = Path::new(fx.location()).join(STORE_FILE);
            rusqlite_conn(&file).execute_batch("PRAGMA user_version = 99").unwrap();
        }
        Backend::Postgres => {
            let mut c = ::postgres::Client::connect(fx.location(), ::postgres::NoTls).unwrap();
            c.batch_execute("INSERT INTO schema_version (version) VALUES (99)").unwrap();
        }
    }
    let err = warrant_store::open_existing(fx.location()).err().unwrap();
    assert!(matches!(err, StoreError::SchemaTooNew { found: 99, .. }), "{err}");
    assert!(err.to_string().contains("store schema version 99 is newer than this binary supports"), "{err}");
    if b == Backend::Postgres {
        let err = warrant_store::PostgresStore::migrate(fx.location()).unwrap_err();
        assert!(matches!(err, StoreError::SchemaTooNew { found: 99, .. }), "{err}");
        let fresh = b.unmigrated().unwrap();
        let err = warrant_store::open_existing(fresh.location()).err().unwrap();
        assert!(matches!(err, StoreError::NotMigrated { found: None, .. }), "{err}");
        assert!(err.to_string().contains("run `warrant store migrate --store postgresql://"), "{err}");
        let (from, to) = warrant_store::PostgresStore::migrate(fresh.location()).unwrap();
        assert_eq!((from, to), (0, warrant_store::current_postgres_version()));
        assert_eq!(warrant_store::PostgresStore::migrate(fresh.location()).unwrap(), (to, to), "migrating twice is a no-op");
        assert_eq!(fresh.open().stats().unwrap().documents, 0);
        // The server's own message reaches the error, not the driver's bare "db error".
        let mut c = ::postgres::Client::connect(fresh.location(), ::postgres::NoTls).unwrap();
        c.batch_execute("DROP TABLE facts CASCADE").unwrap();
        let err = fresh.open().stats().unwrap_err().to_string();
        assert!(err.contains("relation \"facts\" does not exist"), "{err}");
    }
}

/// A password never shows: not in errors, not in `Debug`.
#[test]
fn postgres_passwords_are_redacted() {
    let err = warrant_store::open_existing("postgresql://warrant:hunter2@127.0.0.1:1/nothing").err().unwrap();
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(shown.contains("postgresql://warrant:***@127.0.0.1:1/nothing"), "{shown}");
    let Some(url) = backends::postgres_url() else { return };
    let fx = Backend::Postgres.fresh().unwrap();
    let with_password = fx.location().replacen("://postgres@", "://postgres:s3cret@", 1);
    let s = warrant_store::PostgresStore::open(&with_password).unwrap();
    let debug = format!("{s:?}");
    assert!(!debug.contains("s3cret") && debug.contains("postgres:***@"), "{debug}");
    drop(url);
}

/// The same writes give the same reads on both backends: documents, chunks, facts in source
/// order, signature matches, entities, stats, and search hits with bit-identical scores.
/// The two stores hold the same stats, documents, chunks (in order) and facts.
fn assert_same_contents(a: &dyn Store, b: &dyn Store) {
    assert_eq!(a.stats().unwrap(), b.stats().unwrap());
    assert_eq!(a.documents().unwrap(), b.documents().unwrap());
    assert_eq!(all_chunks(a), all_chunks(b));
    assert_eq!(a.facts(&FactQuery::all()).unwrap(), b.facts(&FactQuery::all()).unwrap());
}

/// Every chunk of a store, in `visit_chunks` order.
fn all_chunks(s: &dyn Store) -> Vec<Chunk> {
    let mut v = Vec::new();
    s.visit_chunks(&mut |c| v.push(c)).unwrap();
    v
}

#[test]
fn both_backends_return_the_same_results() {
    let Some(pg) = Backend::Postgres.fresh() else { return };
    let lite = Backend::Sqlite.fresh().unwrap();
    let set =
        read_sources(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/check/sources")], Some("2.1"), &mut |_| {})
            .unwrap();
    let mut docs = set.documents;
    docs.push(doc("auth", AUTH_V1, Some("1.0")));
    docs.push(doc("cookies", "Cookies are HttpOnly.\n\nSession cookies expire at browser close. Cookies expire.", None));
    docs.push(doc("naive", "Café naïve résumé: the x-ray ran; tokens tokens TOKENS.", None));
    // Words FTS5 splits inside (a vowel sign is alphanumeric to Rust, a separator to Unicode
    // 6.1's token classes): a query word becomes a phrase of several tokens.
    docs.push(doc("hindi", "हिन्दी भाषा। हिन्दी और हिंदी; भाषा हिन्दी.", None));
    let manual = vec![
        Fact::from_manual_json(&json!({"subject": "gateway", "predicate": "requires", "object": "vault",
            "source": {"docId": "auth", "chunkId": "auth#2"}}))
        .unwrap(),
        Fact::from_manual_json(&json!({"subject": "limit", "predicate": "has_value", "object": 15,
            "source": {"docId": "elsewhere", "chunkId": "x#1"}}))
        .unwrap(),
    ];
    let stores = [lite.open(), pg.open()];
    for s in &stores {
        ingest(&**s, docs.clone(), manual.clone(), &IngestOptions::default(), &mut |_| {}).unwrap();
        // A replaced document keeps its place; its old content leaves every index.
        run(&**s, vec![doc("auth", AUTH_V2, Some("2.0"))]);
    }
    let [a, b] = &stores;
    assert_same_contents(&**a, &**b);
    assert!(a.stats().unwrap().total_facts >= 5, "{:?}", a.stats().unwrap());
    for q in [
        FactQuery { doc_id: Some("auth".into()), ..FactQuery::default() },
        FactQuery { chunk_id: Some("auth#2".into()), ..FactQuery::default() },
        FactQuery::all().with_version("v2.0"),
        FactQuery { limit: Some(3), ..FactQuery::default() },
    ] {
        assert_eq!(a.facts(&q).unwrap(), b.facts(&q).unwrap(), "{q:?}");
    }
    let pattern = warrant_store::pattern_from_json(&json!({"subject": "?s", "predicate": "requires", "object": "?o"})).unwrap();
    assert_eq!(a.match_signature(&pattern).unwrap(), b.match_signature(&pattern).unwrap());
    let ids: Vec<String> = a.facts(&FactQuery::all()).unwrap().into_iter().map(|f| f.id).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let order = |s: &dyn Store| {
        let pos = s.fact_positions(&refs).unwrap();
        let mut v: Vec<&str> = refs.clone();
        v.sort_by_key(|id| pos[*id]);
        v
    };
    assert_eq!(order(&**a), order(&**b));
    for name in ["session token", "gateway", "api keys", "cookie", "limit"] {
        assert_eq!(a.entity(name).unwrap(), b.entity(name).unwrap(), "{name}");
    }
    for q in [
        "when do session tokens expire?",
        "cookies expire",
        "expire expiring expired",
        "pricing plan seats support",
        "cafe naive resume x ray",
        "हिन्दी",
        "हिन्दी भाषा",
        "tokens",
        "zebra",
        "",
    ] {
        for k in [1, 3, 50] {
            let (x, y) = (a.search(q, k).unwrap(), b.search(q, k).unwrap());
            assert_eq!(x, y, "{q:?} top {k}");
            assert!(x.iter().zip(&y).all(|(x, y)| x.score.to_bits() == y.score.to_bits()), "{q:?}: scores bit for bit");
        }
    }
    let words = ["token", "expire", "absent", "हिन्दी"];
    assert_eq!(a.term_stats(&words).unwrap(), b.term_stats(&words).unwrap());
    assert!(!a.search("हिन्दी", 5).unwrap().is_empty());
}

/// One write of many documents — more than one writer batch, new, unchanged and replaced
/// ones interleaved, an id given twice, manual facts — leaves both backends with the same
/// reads (the PostgreSQL writer sends documents in batches; the result must not show it).
#[test]
fn batched_writes_return_the_same_results_on_both_backends() {
    let Some(pg) = Backend::Postgres.fresh() else { return };
    let lite = Backend::Sqlite.fresh().unwrap();
    let text = |i: usize, v: usize| {
        format!(
            "The gateway {i} requires an API key {v}. Session tokens {i} expire after {n} minutes.\n\n\
             The billing {m} service requires approval {v}. Tokens and keys, version {v}.",
            n = 10 + i % 7 + v,
            m = i % 13
        )
    };
    let first: Vec<DocumentInput> = (0..700).map(|i| doc(&format!("d{i:03}"), &text(i, 1), None)).collect();
    let opts = IngestOptions::default();
    // Second write, straight to the store: replaced documents among unchanged and new ones
    // (some in the first batch, some later).
    let mut second: Vec<DocumentInput> = Vec::new();
    for i in 0..700 {
        let v = if i % 97 == 10 { 2 } else { 1 };
        second.push(doc(&format!("d{i:03}"), &text(i, v), None));
        if i % 150 == 3 {
            second.push(doc(&format!("n{i:03}"), &text(i + 1000, 3), Some("2.0")));
        }
    }
    let manual = vec![
        Fact::from_manual_json(&json!({"subject": "gateway 7", "predicate": "requires", "object": "vault",
            "source": {"docId": "d007", "chunkId": "d007#1"}}))
        .unwrap(),
        Fact::from_manual_json(&json!({"subject": "gateway 7", "predicate": "requires", "object": "vault",
            "source": {"docId": "d007", "chunkId": "d007#1"}}))
        .unwrap(),
    ];
    let stores = [lite.open(), pg.open()];
    let mut reports = Vec::new();
    for s in &stores {
        ingest(&**s, first.clone(), Vec::new(), &opts, &mut |_| {}).unwrap();
        let mut prepared = second.iter().map(|d| prepare(d, &opts));
        let mut done = Vec::new();
        reports.push(s.write(&mut prepared, &manual, &mut |n| done.push(n)).unwrap());
        assert_eq!(done.last(), Some(&second.len()), "progress reaches every document");
        assert!(done.windows(2).all(|w| w[0] < w[1]), "progress only grows: {done:?}");
    }
    let [a, b] = &stores;
    assert_eq!(reports[0], reports[1]);
    assert_eq!((reports[0].unchanged, reports[0].written.len(), reports[0].manual_facts), (700 - 8, 8 + 5, 2));
    assert_same_contents(&**a, &**b);
    assert!(a.chunk("d010#1").unwrap().unwrap().text.contains("API key 2"));
    for name in ["gateway 10", "gateway 7", "session tokens 10", "billing 3", "billing service"] {
        assert_eq!(a.entity(name).unwrap(), b.entity(name).unwrap(), "{name}");
    }
    for q in ["gateway requires key", "tokens expire 12 minutes", "billing approval version 2"] {
        let (x, y) = (a.search(q, 20).unwrap(), b.search(q, 20).unwrap());
        assert_eq!(x, y, "{q:?}");
        assert!(x.iter().zip(&y).all(|(x, y)| x.score.to_bits() == y.score.to_bits()), "{q:?}: scores bit for bit");
    }

    // An id given twice in one write (not through `ingest`, which refuses it): the second
    // replaces the first, as if written one after the other, on both backends.
    let twice = [doc("d010", &text(10, 4), None), doc("d011", &text(11, 4), None), doc("d010", &text(10, 5), None)];
    for s in &stores {
        let mut prepared = twice.iter().map(|d| prepare(d, &opts));
        let report = s.write(&mut prepared, &[], &mut |_| {}).unwrap();
        assert_eq!((report.written, report.unchanged), (vec![0, 1, 2], 0));
        assert!(s.chunk("d010#1").unwrap().unwrap().text.contains("API key 5"));
        let facts = s.facts(&FactQuery { doc_id: Some("d010".into()), ..FactQuery::default() }).unwrap();
        let want: Vec<String> = prepare(&twice[2], &opts).facts.into_iter().map(|(_, v)| v.fact.id).collect();
        assert!(!want.is_empty());
        assert_eq!(facts.into_iter().map(|f| f.id).collect::<Vec<_>>(), want, "only the last d010's facts");
        let stats = s.stats().unwrap();
        assert_eq!(stats.documents, 705);
        assert_eq!(stats.chunks, all_chunks(&**s).len() as u64);
        // The full-text index holds each chunk once: searches score, and find the new text.
        let hits = s.search("API key 5 gateway 10", 3).unwrap();
        let top: Vec<&str> = hits.iter().take(2).map(|h| h.chunk_id.as_str()).collect();
        assert_eq!(top, ["d010#2", "d010#1"], "{hits:?}");
    }
    assert_same_contents(&**a, &**b);
    let q = "gateway requires key 4";
    assert_eq!(a.search(q, 20).unwrap(), b.search(q, 20).unwrap());
}
