//! The commands on a PostgreSQL store (`--store postgres://…`, `$WARRANT_STORE`): `store
//! migrate`, then ingest, facts, search, check and ask print exactly what they print on an
//! SQLite store of the same sources; an unmigrated database names the command that migrates
//! it; no password is ever printed. Needs `WARRANT_TEST_POSTGRES` (see the store suite).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "../../store/tests/backends/mod.rs"]
mod backends;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use backends::Backend;
use warrant_testkit::warrant;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/check")
}

/// stdout of a command that must succeed.
fn ok(c: &mut Command) -> String {
    String::from_utf8(c.assert().code(0).get_output().stdout.clone()).unwrap()
}

/// stderr of a command that must fail with exit 2.
fn bad(c: &mut Command) -> String {
    let out = c.assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn commands_on_postgres_print_what_they_print_on_sqlite() {
    let Some(fresh) = Backend::Postgres.unmigrated() else { return };
    let url = fresh.location().to_string();
    let dir = tempfile::tempdir().unwrap();
    let lite = dir.path().join("kb").display().to_string();
    let sources = examples().join("sources");

    // Not migrated: every command says how to migrate.
    let err = bad(warrant().args(["ingest", "--store", &url]).arg(&sources));
    assert!(err.contains(&format!("run `warrant store migrate --store {url}`")), "{err}");
    let out = ok(warrant().args(["store", "migrate", "--store", &url]));
    let latest = warrant_store::current_postgres_version();
    assert!(out.contains(&format!("migrated from schema version 0 to {latest}")), "{out}");
    let again = ok(warrant().args(["store", "migrate", "--store", &url]));
    assert!(again.contains(&format!("schema version {latest}, up to date")), "{again}");

    let on = |store: &str, args: &[&str]| -> String {
        let mut c = warrant();
        c.args(args).args(["--store", store]);
        ok(&mut c)
    };
    let ingest = |store: &str| {
        let mut c = warrant();
        c.args(["ingest", "--format", "json", "--version", "2.0", "--store", store]).arg(&sources);
        ok(&mut c)
    };
    let first = ingest(&url);
    assert_eq!(first, ingest(&lite));
    assert!(first.contains("\"documents\":3") || first.contains("\"documents\": 3"), "{first}");
    assert!(ingest(&url).contains("\"unchanged_documents\": 3") || ingest(&url).contains("\"unchanged_documents\":3"));

    let facts = on(&url, &["facts"]);
    assert!(!facts.is_empty());
    assert_eq!(facts, on(&lite, &["facts"]));
    for q in ["refund window days", "pricing seats", "support hours"] {
        let hits = on(&url, &["search", "--format", "json", "--limit", "5", q]);
        assert!(hits.contains("chunkId"), "{q}: {hits}");
        assert_eq!(hits, on(&lite, &["search", "--format", "json", "--limit", "5", q]), "{q}");
    }
    let answer = examples().join("answer.md").display().to_string();
    let check = |store: &str| {
        let mut c = warrant();
        c.args(["check", "--format", "json", "--store", store, &answer]);
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    let (code, report) = check(&url);
    assert!(report.contains("\"claims\""), "{report}");
    assert_eq!((code, report), check(&lite));
    let ask = |store: &str| {
        let mut c = warrant();
        c.args(["ask", "--format", "json", "--store", store, "How", "long", "is", "the", "refund", "window?"]);
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    assert_eq!(ask(&url), ask(&lite));

    // $WARRANT_STORE names the store when --store does not.
    let mut c = warrant();
    c.env("WARRANT_STORE", &url).args(["search", "--format", "json", "pricing"]);
    assert_eq!(ok(&mut c), on(&lite, &["search", "--format", "json", "pricing"]));
}

#[test]
fn passwords_in_store_urls_are_never_printed() {
    let url = "postgresql://warrant:hunter2@127.0.0.1:1/nothing";
    for args in [vec!["search", "x"], vec!["facts"], vec!["store", "migrate"], vec!["ingest", "."]] {
        let mut c = warrant();
        c.args(&args).args(["--store", url]);
        let err = bad(&mut c);
        assert!(!err.contains("hunter2"), "{args:?}: {err}");
        assert!(err.contains("warrant:***@127.0.0.1:1"), "{args:?}: {err}");
    }
    let err = bad(warrant().args(["check", "--store", url, "-"]).write_stdin("Refunds take 5 days."));
    assert!(!err.contains("hunter2") && err.contains("***"), "{err}");
}
