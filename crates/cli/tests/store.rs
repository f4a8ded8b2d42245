//! End-to-end tests of `warrant ingest`, `warrant facts` and `warrant search`: outputs, the
//! store location, bad inputs (nothing written), SIGKILL mid-ingest, concurrent processes.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "../../store/tests/backends/mod.rs"]
mod backends;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::{Value, json};
use warrant_store::{FactQuery, SqliteStore, Store};
use warrant_testkit::write_file as write;
use warrant_testkit::{data_dir, kill_trial, warrant, warrant_std};

fn stdout_json(c: &mut Command) -> Value {
    let out = ok(c);
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
}

/// Runs a command that must succeed; its stdout.
fn ok(c: &mut Command) -> Vec<u8> {
    c.assert().code(0).get_output().stdout.clone()
}

fn jsonl(out: &[u8]) -> Vec<Value> {
    String::from_utf8(out.to_vec()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn exp3() -> Option<PathBuf> {
    data_dir("vsabrains-exp3").map(|d| d.join("exp3-rag"))
}

/// The one-line error contract: exit 2, each line starting `error: `, each needle present.
fn assert_bad(c: &mut Command, needles: &[&str]) -> String {
    let out = c.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.lines().all(|l| l.starts_with("error: ")), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected {n:?} in {stderr}");
    }
    assert!(!stderr.contains("panicked"));
    stderr
}

#[test]
fn ingest_facts_and_search_on_exp3() {
    let Some(exp3) = exp3() else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("kb");
    let summary =
        stdout_json(warrant().args(["ingest", "--format", "json", "--store"]).arg(&store).arg(exp3.join("corpus.json")));
    assert_eq!(
        summary,
        json!({"documents": 2, "chunks": 2, "facts": 4, "rejected_facts": 0, "rejected_by_reason": {},
               "facts_by_layer": {"vocabulary": {"kept": 4, "rejected": 0}},
               "unchanged_documents": 0, "manual_facts": 0})
    );
    // Re-ingesting identical content is a no-op.
    let again = stdout_json(warrant().args(["ingest", "--format", "json", "--store"]).arg(&store).arg(exp3.join("corpus.json")));
    assert_eq!((again["documents"].clone(), again["unchanged_documents"].clone()), (json!(0), json!(2)));

    let out = ok(warrant().args(["facts", "--predicate", "expires_after", "--store"]).arg(&store));
    let facts = jsonl(&out);
    let gold = warrant_testkit::read_json(&exp3.join("manual_facts.json"));
    assert_eq!(facts.len(), 2);
    for (f, g) in facts.iter().zip(gold.as_array().unwrap()) {
        for k in ["subject", "predicate", "object"] {
            assert_eq!(f[k], g[k], "{k}");
        }
        assert_eq!(f["qualifiers"], json!({"condition": "inactivity", "version": g["qualifiers"]["version"]}));
        assert_eq!(f["span"], json!({"start": 0, "end": 52}));
        assert_eq!(f["source"]["chunkId"], format!("{}#1", g["source"]["docId"].as_str().unwrap()));
        assert!(f["id"].as_str().unwrap().starts_with('f'));
    }
    let out = ok(warrant().args(["facts", "--subject", "Session tokens", "--version", "v2.0", "--store"]).arg(&store));
    let v2 = jsonl(&out);
    assert_eq!(v2.len(), 1);
    assert_eq!(v2[0]["object"], "15 minutes");
    let all = ok(warrant().args(["facts", "--store"]).arg(&store));
    assert_eq!(jsonl(&all).len(), 4);
    let none = ok(warrant().args(["facts", "--predicate", "requires", "--store"]).arg(&store));
    assert!(none.is_empty());

    let hits = stdout_json(warrant().args(["search", "--format", "json", "--store"]).arg(&store).arg("SameSite strict cookies"));
    assert_eq!(hits[0]["chunkId"], "spec-auth-v2#1");
    assert_eq!(
        (hits[0]["docId"].clone(), hits[0]["start"].clone(), hits[0]["end"].clone()),
        (json!("spec-auth-v2"), json!(7), json!(170))
    );
    assert!(hits[0]["score"].as_f64().unwrap() > hits[1]["score"].as_f64().unwrap());
    let text = ok(warrant().args(["search", "--limit", "1", "--store"]).arg(&store).args(["SameSite", "strict"]));
    let text = String::from_utf8(text).unwrap();
    assert!(text.starts_with("1. spec-auth-v2#1  score "), "{text}");
    assert_eq!(text.lines().count(), 2);
}

#[test]
fn store_location_flag_env_and_default() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "a.txt", "Billing is enabled.");
    // Default: ./.warrant in the working directory.
    warrant()
        .current_dir(dir.path())
        .args(["ingest", "a.txt"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains(".warrant: 1 document written (1 chunk, 1 fact), 0 unchanged"));
    assert!(dir.path().join(".warrant/store.sqlite").is_file());
    // $WARRANT_STORE.
    let env_store = dir.path().join("env-store");
    warrant().env("WARRANT_STORE", &env_store).arg("ingest").arg(&doc).assert().code(0);
    let out = ok(warrant().env("WARRANT_STORE", &env_store).args(["facts"]));
    assert_eq!(jsonl(&out)[0]["object"], "enabled");
    // --store wins over the environment.
    let flag_store = dir.path().join("flag-store");
    warrant().env("WARRANT_STORE", &env_store).args(["ingest", "--store"]).arg(&flag_store).arg(&doc).assert().code(0);
    assert!(flag_store.join("store.sqlite").is_file());
    assert_bad(
        warrant().env("WARRANT_STORE_CACHE_MB", "lots").args(["ingest", "--store"]).arg(&flag_store).arg(&doc),
        &["WARRANT_STORE_CACHE_MB=lots: expected a whole number"],
    );
    // Reading commands never create a store.
    let missing = dir.path().join("nowhere");
    assert_bad(warrant().args(["facts", "--store"]).arg(&missing), &["no store at", "nowhere", "warrant ingest"]);
    assert_bad(warrant().args(["search", "--store"]).arg(&missing).arg("x"), &["no store at"]);
    assert!(!missing.exists());
}

#[test]
fn bad_records_fail_the_whole_ingest_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("kb");
    let good = write(d, "good.jsonl", "{\"id\": \"g\", \"text\": \"Billing is enabled.\"}\n");
    warrant().args(["ingest", "--store"]).arg(&store).arg(&good).assert().code(0);
    let before = std::fs::read(store.join("store.sqlite")).unwrap();

    let broken = write(d, "broken.jsonl", "{\"id\": \"a\", \"text\": \"Tokens are enabled.\"}\n{\"id\": \"b\", \"text\": \n");
    let no_text = write(d, "records.json", "[\n {\"id\": \"c\", \"text\": \"ok\"},\n {\"id\": \"d\"}\n]");
    let err = assert_bad(
        warrant().args(["ingest", "--store"]).arg(&store).arg(&good).arg(&broken).arg(&no_text),
        &["broken.jsonl:2: invalid JSON: EOF while parsing a value (column 20)", "records.json:3: /1: missing \"text\""],
    );
    assert_eq!(err.lines().count(), 2, "every bad record, one line each: {err}");
    let binary = d.join("logo.txt");
    std::fs::write(&binary, [0x47, 0x49, 0x46, 0x00, 0xff]).unwrap();
    assert_bad(warrant().args(["ingest", "--store"]).arg(&store).arg(&binary), &["logo.txt: binary file"]);
    let dup = write(d, "dup.jsonl", "{\"id\": \"g\", \"text\": \"x\"}\n");
    assert_bad(
        warrant().args(["ingest", "--store"]).arg(&store).arg(&good).arg(&dup),
        &["dup.jsonl:1: duplicate document id \"g\" (first at", "good.jsonl:1"],
    );
    assert_bad(
        warrant().args(["ingest", "--store"]).arg(&store).arg(d.join("missing.md")),
        &["missing.md: cannot read: no such file"],
    );
    assert_eq!(std::fs::read(store.join("store.sqlite")).unwrap(), before, "the store is unchanged");

    // Nothing is created for a bad first ingest either.
    let fresh = d.join("fresh");
    assert_bad(warrant().args(["ingest", "--store"]).arg(&fresh).arg(&broken), &["broken.jsonl:2"]);
    assert!(!fresh.exists());
    // Usage errors.
    warrant().args(["ingest", "--store"]).arg(&fresh).assert().code(2);
    warrant().args(["ingest", "--max-chunk-chars", "0"]).arg(&good).assert().code(2);
}

#[test]
fn vocabulary_files_add_predicates() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let doc = write(d, "roles.md", "# Roles\n\nThe admin role grants user management. Guests are never allowed to export.");
    let toml = write(
        d,
        "vocab.toml",
        "[grants]\nargTypes = [\"entity\", \"entity\"]\ncardinality = \"multi_valued\"\npatterns = ['^(?P<subject>[a-z][\\w\\s-]*?)\\s+grants\\s+(?P<object>[a-z][\\w\\s-]*?)$']\n",
    );
    let store = d.join("kb");
    let s =
        stdout_json(warrant().args(["ingest", "--format", "json", "--vocab"]).arg(&toml).arg("--store").arg(&store).arg(&doc));
    // One fact from the file's pattern; the attribute layer reads the other sentence as a
    // negated status under a condition.
    assert_eq!(s["facts"], 2);
    assert_eq!(s["facts_by_layer"], json!({"attribute": {"kept": 1, "rejected": 0}, "vocabulary": {"kept": 1, "rejected": 0}}));
    let out = ok(warrant().args(["facts", "--predicate", "has_status", "--store"]).arg(&store));
    let f = &jsonl(&out)[0];
    assert_eq!(
        (f["subject"].as_str(), f["object"].as_str(), f["polarity"].as_str(), f["qualifiers"]["condition"].as_str()),
        (Some("guest"), Some("allowed"), Some("negate"), Some("export"))
    );
    let out = ok(warrant().args(["facts", "--predicate", "grants", "--store"]).arg(&store));
    let f = &jsonl(&out)[0];
    assert_eq!((f["subject"].as_str(), f["object"].as_str()), (Some("admin_role"), Some("user_management")));

    let bad = write(d, "bad.json", "{\"grants\": {\"argTypes\": [\"entity\"]}}");
    assert_bad(
        warrant().args(["ingest", "--vocab"]).arg(&bad).arg(&doc),
        &["bad.json: /grants/argTypes: expected two argument types"],
    );
    let bad = write(d, "bad.toml", "[grants]\nargTypes = [\"entity\", \"entity\"]\npatterns = ['(']\n");
    assert_bad(warrant().args(["ingest", "--vocab"]).arg(&bad).arg(&doc), &["bad.toml: /grants/patterns/0: invalid regex"]);
}

#[test]
fn manual_facts_baseline() {
    let Some(exp3) = exp3() else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("kb");
    let s = stdout_json(
        warrant()
            .args(["ingest", "--no-extract", "--format", "json", "--facts"])
            .arg(exp3.join("manual_facts.json"))
            .arg("--store")
            .arg(&store)
            .arg(exp3.join("corpus.json")),
    );
    assert_eq!(
        (s["documents"].clone(), s["chunks"].clone(), s["facts"].clone(), s["manual_facts"].clone()),
        (json!(2), json!(2), json!(0), json!(2))
    );
    let out = ok(warrant().args(["facts", "--store"]).arg(&store));
    let got: Vec<Value> = jsonl(&out).into_iter().map(|f| json!([f["object"], f["source"]["chunkId"], f["span"]])).collect();
    assert_eq!(got, [json!(["30 minutes", "c1", {"start": 0, "end": 0}]), json!(["15 minutes", "c2", {"start": 0, "end": 0}])]);
    // A manual fact outside the vocabulary is refused (predicate coverage stays 100%).
    let odd = write(
        dir.path(),
        "odd.jsonl",
        "{\"subject\": \"x\", \"predicate\": \"session_expired\", \"object\": true, \"source\": {\"docId\": \"d\", \"chunkId\": \"c\"}}\n",
    );
    assert_bad(
        warrant().args(["ingest", "--facts"]).arg(&odd).arg("--store").arg(&store),
        &["odd.jsonl:1: /predicate: predicate \"session_expired\" is not in the vocabulary"],
    );
}

/// Document `i` of a generated corpus in round `round`: two paragraphs, each with eight
/// filler sentences and two extractable facts (`expires_after`, `requires`).
fn record(i: usize, round: u32) -> Value {
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"];
    let mut paras = Vec::new();
    for p in 0..2 {
        let mut s = String::new();
        for k in 0..8 {
            let sentence: Vec<&str> =
                (0..12).map(|j| words[(i * 7 + p * 3 + k * 5 + j * 11 + round as usize) % words.len()]).collect();
            let _ = write!(s, "{}. ", sentence.join(" "));
        }
        let _ = write!(s, "Service {i} tokens expire after {} minutes of inactivity. ", round * 10 + p as u32 + 1);
        let _ = write!(s, "The gateway {i} requires certificate {round}.");
        paras.push(s);
    }
    json!({"id": format!("doc-{i}"), "text": paras.join("\n\n"), "version": round.to_string()})
}

/// `n` generated documents as JSON Lines.
fn corpus(n: usize, round: u32) -> String {
    (0..n).map(|i| record(i, round).to_string() + "\n").collect()
}

/// Every document is entirely the `old` or the `new` version (text, chunks, facts), or absent
/// when it is only in `new`.
fn assert_each_document_old_or_new(store: &dyn Store, old: usize, new: usize) -> (usize, usize) {
    let (mut olds, mut news) = (0, 0);
    for i in 0..new {
        let id = format!("doc-{i}");
        let Some(d) = store.document(&id).unwrap() else {
            assert!(i >= old, "{id} was stored before and must still be");
            continue;
        };
        let round: u32 = d.version.as_deref().unwrap().parse().unwrap();
        let text = store.document_text(&id).unwrap().unwrap();
        assert_eq!(text, record(i, round)["text"].as_str().unwrap(), "{id}: text of round {round}");
        let chunks = store.chunks_of(&id).unwrap();
        assert_eq!(chunks.len(), 2, "{id}");
        for c in &chunks {
            assert_eq!(warrant_text::clamp_slice(&text, c.start, c.end), c.text);
        }
        let facts = store.facts(&FactQuery { doc_id: Some(id.clone()), ..FactQuery::default() }).unwrap();
        assert_eq!(facts.len(), 4, "{id}");
        assert!(facts.iter().all(|f| f.version().as_deref() == Some(round.to_string().as_str())), "{id}: facts of one round");
        if round == 1 { olds += 1 } else { news += 1 }
    }
    (olds, news)
}

#[test]
fn sigkill_mid_ingest_leaves_old_or_new_state() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("kb");
    let (old, new) = (400, 5000);
    let v1 = write(dir.path(), "v1.jsonl", corpus(old, 1));
    let v2 = write(dir.path(), "v2.jsonl", corpus(new, 2));
    warrant().args(["ingest", "--store"]).arg(&store_dir).arg(&v1).assert().code(0);

    let wal = store_dir.join("store.sqlite-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0, "the first ingest checkpointed its WAL");
    let mut ingest = warrant_std();
    ingest
        .args(["ingest", "--format", "json", "--store"])
        .arg(&store_dir)
        .arg(&v2)
        // A small page cache: the transaction spills to the WAL early, which shows it started.
        .env("WARRANT_STORE_CACHE_MB", "2");
    // Killed once the write transaction is spilling pages into the WAL.
    kill_trial(&mut ingest, Duration::from_secs(300), |_| std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0));

    let store = SqliteStore::open_existing(&store_dir).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let (olds, news) = assert_each_document_old_or_new(&store, old, new);
    assert_eq!(olds + news, store.stats().unwrap().documents as usize);
    assert_eq!((olds, news), (old, 0), "one transaction: the killed ingest left no trace");
    drop(store);

    // The same ingest, uninterrupted, then completes.
    let s = stdout_json(warrant().args(["ingest", "--format", "json", "--store"]).arg(&store_dir).arg(&v2));
    assert_eq!(s["documents"], new);
    let store = SqliteStore::open_existing(&store_dir).unwrap();
    assert_eq!(assert_each_document_old_or_new(&store, old, new), (0, new));
}

/// Kill trials on PostgreSQL, each on the same database.
const KILL_TRIALS: usize = 10;
/// The trials' kill points come from this seed, or from `WARRANT_KILL_SEED` (to replay one).
const KILL_SEED: u64 = 0x5752_4e54_6b69_6c6c;
/// The ingest's connections carry this name, so the test can find them.
const KILL_APP: &str = "warrant-kill-trial";

/// Row counts of a PostgreSQL store, read directly (no store cache in the way):
/// documents, chunks, postings, facts, entities, mentions.
fn pg_counts(db: &mut postgres::Client) -> [i64; 6] {
    let row = db
        .query_one(
            "SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks), (SELECT count(*) FROM postings), \
                    (SELECT count(*) FROM facts), (SELECT count(*) FROM entities), (SELECT count(*) FROM mentions)",
            &[],
        )
        .unwrap();
    std::array::from_fn(|i| row.get(i))
}

/// Rows that belong to nothing, by kind (all must be 0): chunks without their document,
/// extracted facts and mentions without their chunk, mentions without their entity, entities
/// nothing mentions. (Postings without a chunk: [`backends::Fixture::assert_sound`].)
fn pg_orphans(db: &mut postgres::Client) -> Vec<(&'static str, i64)> {
    let row = db
        .query_one(
            "SELECT (SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.seq = c.doc_seq)), \
                    (SELECT count(*) FROM facts f WHERE NOT f.manual \
                        AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_seq = f.doc_seq AND c.idx = f.chunk_idx)), \
                    (SELECT count(*) FROM mentions m WHERE m.doc_seq IS NOT NULL \
                        AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_seq = m.doc_seq AND c.idx = m.chunk_idx)), \
                    (SELECT count(*) FROM mentions m WHERE NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = m.entity_id)), \
                    (SELECT count(*) FROM entities e WHERE NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id))",
            &[],
        )
        .unwrap();
    ["chunks", "facts", "mentions (chunk)", "mentions (entity)", "entities"].into_iter().zip((0..5).map(|i| row.get(i))).collect()
}

/// The same on PostgreSQL, ten times over on one database: an ingest killed at a random point
/// — from its start, through its write transaction, to its last statement before the commit —
/// leaves the store exactly as it was, with no orphan rows; afterwards the same ingest
/// completes with the counts of a clean ingest of the same input into a fresh database.
#[test]
fn sigkill_mid_ingest_leaves_old_or_new_state_on_postgres() {
    let Some(fx) = backends::Backend::Postgres.fresh() else { return };
    let Some(clean) = backends::Backend::Postgres.fresh() else { return };
    let url = fx.location().to_string();
    let dir = tempfile::tempdir().unwrap();
    // v2 replaces v1's documents and adds more: the killed ingests update, delete and insert.
    let (old, new) = (100, 400);
    let v1 = write(dir.path(), "v1.jsonl", corpus(old, 1));
    let v2 = write(dir.path(), "v2.jsonl", corpus(new, 2));
    let ingest = |store: &str| stdout_json(warrant().args(["ingest", "--format", "json", "--store", store]).arg(&v2));

    // The reference: v2 into a fresh database.
    let reference = ingest(clean.location());
    let expected = pg_counts(&mut postgres::Client::connect(clean.location(), postgres::NoTls).unwrap());
    drop(clean);

    warrant().args(["ingest", "--store", &url]).arg(&v1).assert().code(0);
    let mut db = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let before = pg_counts(&mut db);
    let generation: i64 = db.query_one("SELECT generation FROM store_state", &[]).unwrap().get(0);
    let seed = std::env::var("WARRANT_KILL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(KILL_SEED);
    eprintln!("kill trials: seed {seed} (replay with WARRANT_KILL_SEED={seed})");
    let mut rng = warrant_testkit::synth::Rng(seed);
    let named = format!("{url}{}application_name={KILL_APP}", if url.contains('?') { '&' } else { '?' });
    let store = fx.open();
    // How long the ingest takes to reach its commit, from its start: the first trial's
    // measure (it is killed there), the range of the others' random kill points.
    let mut length = None;
    for trial in 1..=KILL_TRIALS {
        // The gate: while the test holds the store_state row, the ingest stops at its last
        // statement (the generation bump), just before its commit. No kill point can fall
        // after the commit, so the store must be exactly as before every kill; an ingest that
        // reaches the gate before its kill point is killed there.
        let mut gate = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut held = gate.transaction().unwrap();
        held.execute("SELECT 1 FROM store_state FOR UPDATE", &[]).unwrap();
        let at = length.map(|l: Duration| l.mul_f64(rng.below(1000) as f64 / 1000.0));
        let mut cmd = warrant_std();
        cmd.args(["ingest", "--format", "json", "--store", &named]).arg(&v2);
        let mut phase = "";
        let killed = kill_trial(&mut cmd, Duration::from_secs(300), |t| {
            if at.is_some_and(|at| t < at) {
                return false;
            }
            // Where the ingest is, for the log: waiting at the gate, writing, or not yet.
            let row = db
                .query_one(
                    "SELECT bool_or(wait_event_type = 'Lock' AND query LIKE 'UPDATE store_state%'), \
                            EXISTS (SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) \
                                    WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1) \
                     FROM pg_stat_activity WHERE application_name = $1",
                    &[&KILL_APP],
                )
                .unwrap();
            phase = match (row.get::<_, Option<bool>>(0), row.get::<_, bool>(1)) {
                (Some(true), _) => "at the commit",
                (_, true) => "writing",
                _ => "before writing",
            };
            at.is_some() || phase == "at the commit"
        });
        length.get_or_insert(killed);
        held.rollback().unwrap();
        drop(gate);
        eprintln!("trial {trial}: killed after {killed:?} ({phase})");
        // The server ends the killed session when it next reads from it (at once when idle;
        // after its statement when running one): wait until it has gone.
        let deadline = Instant::now() + Duration::from_secs(60);
        while db
            .query_one("SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1)", &[&KILL_APP])
            .unwrap()
            .get::<_, bool>(0)
        {
            assert!(Instant::now() < deadline, "trial {trial}: the killed ingest's session is still open");
            std::thread::sleep(Duration::from_millis(10));
        }
        fx.assert_sound();
        assert_eq!(pg_counts(&mut db), before, "trial {trial}: the killed ingest left rows behind");
        let now: i64 = db.query_one("SELECT generation FROM store_state", &[]).unwrap().get(0);
        assert_eq!(now, generation, "trial {trial}: nothing was committed");
        assert!(pg_orphans(&mut db).iter().all(|(_, n)| *n == 0), "trial {trial}: orphans {:?}", pg_orphans(&mut db));
        assert_eq!(assert_each_document_old_or_new(&*store, old, new), (old, 0), "trial {trial}");
    }
    // The same ingest, uninterrupted, then completes: as a clean ingest does, and to the
    // same counts (v1's documents all replaced, their orphaned entities pruned).
    assert_eq!(ingest(&url), reference);
    assert_eq!(pg_counts(&mut db), expected);
    assert!(pg_orphans(&mut db).iter().all(|(_, n)| *n == 0), "orphans {:?}", pg_orphans(&mut db));
    assert_eq!(assert_each_document_old_or_new(&*store, old, new), (0, new));
    fx.assert_sound();
}

#[test]
fn readers_work_during_an_ingest_and_ingests_serialise() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("kb");
    let base = write(dir.path(), "base.jsonl", corpus(50, 1));
    warrant().args(["ingest", "--store"]).arg(&store_dir).arg(&base).assert().code(0);
    let a = write(dir.path(), "a.jsonl", corpus(3000, 2));
    let b = write(dir.path(), "b.jsonl", corpus(3000, 3));
    let spawn = |f: &Path| {
        warrant_std()
            .args(["ingest", "--format", "json", "--store"])
            .arg(&store_dir)
            .arg(f)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (ca, cb) = (spawn(&a), spawn(&b));
    // Readers keep working (and see whole committed states) while both ingests run.
    let mut reads = 0;
    let deadline = Instant::now() + Duration::from_secs(300);
    let (mut ca, mut cb) = (Some(ca), Some(cb));
    let mut outputs = Vec::new();
    while ca.is_some() || cb.is_some() {
        let facts = ok(warrant().args(["facts", "--predicate", "requires", "--store"]).arg(&store_dir));
        let n = jsonl(&facts).len();
        assert!(n == 100 || n == 6000, "a committed state: {n} requires facts");
        warrant().args(["search", "--store"]).arg(&store_dir).arg("gateway certificate").assert().code(0);
        reads += 1;
        for c in [&mut ca, &mut cb] {
            if c.as_mut().is_some_and(|p| p.try_wait().unwrap().is_some()) {
                outputs.push(c.take().unwrap().wait_with_output().unwrap());
            }
        }
        assert!(Instant::now() < deadline, "ingests did not finish");
    }
    assert!(reads > 1);
    for o in &outputs {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(s["documents"], 3000, "each ingest wrote all of its documents");
    }
    let store = SqliteStore::open_existing(&store_dir).unwrap();
    assert_eq!(store.integrity_check().unwrap(), "ok");
    let stats = store.stats().unwrap();
    assert_eq!((stats.documents, stats.chunks, stats.total_facts), (3000, 6000, 12000));
    // Whichever committed last holds every document: the two were not interleaved.
    let versions: std::collections::BTreeSet<String> = store.documents().unwrap().into_iter().filter_map(|d| d.version).collect();
    assert_eq!(versions.len(), 1, "{versions:?}");
}
