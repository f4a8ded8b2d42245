//! `warrant compile` and `warrant validate --kind ckf_package` end to end: the package on stdout
//! and in files, the three encodings, byte-identical recompilation, edit locality, metadata
//! flags, the refusals the spec's preflight requires (exit 2, nothing written), and the shared
//! CKF case packages.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use std::path::PathBuf;

use predicates::prelude::*;
use serde_json::Value;
use warrant_testkit::write_file as write;
use warrant_testkit::{warrant, workspace_root};

fn fixture(name: &str) -> PathBuf {
    workspace_root().join("crates/ckf/tests/fixtures").join(name)
}

/// Runs `warrant compile ARGS` and returns stdout (exit 0 required).
fn compile(args: &[&str]) -> Vec<u8> {
    warrant().arg("compile").args(args).assert().code(0).get_output().stdout.clone()
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

/// Every item of every array section, by id.
fn items(p: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for (k, v) in p.as_object().unwrap() {
        if k == "source_traceability" {
            continue;
        }
        if let Some(a) = v.as_array() {
            for it in a {
                if let Some(id) = it.get("id").and_then(Value::as_str) {
                    out.insert(id.to_string(), it.clone());
                }
            }
        }
    }
    out
}

#[test]
fn compiling_twice_gives_identical_bytes_and_o_matches_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let sources = [fixture("faq.md"), fixture("policies.jsonl"), fixture("runbook.md"), fixture("statute.txt")];
    for s in &sources {
        let s = s.to_str().unwrap();
        let a = compile(&[s]);
        let b = compile(&[s]);
        assert!(!a.is_empty());
        assert_eq!(a, b, "{s}: two compilations differ");
        let out = dir.path().join("out.ckf.json");
        warrant()
            .args(["compile", "-o", out.to_str().unwrap(), s])
            .assert()
            .code(0)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("written to"));
        assert_eq!(std::fs::read(&out).unwrap(), a, "{s}: -o differs from stdout");
    }
}

#[test]
fn the_package_is_valid_and_every_excerpt_is_verbatim() {
    let src = std::fs::read_to_string(fixture("runbook.md")).unwrap();
    let p = json(&compile(&[fixture("runbook.md").to_str().unwrap()]));
    let collapsed = src.split_whitespace().collect::<Vec<_>>().join(" ");
    let all = items(&p);
    assert!(all.len() > 20, "only {} items", all.len());
    let mut excerpts = 0;
    for (id, it) in &all {
        for e in it["source_excerpts"].as_array().unwrap() {
            let e = e.as_str().unwrap();
            assert!(collapsed.contains(e), "{id}: excerpt not in the source: {e}");
            excerpts += 1;
        }
    }
    assert!(excerpts >= all.len());
    // Every item that has a source basis other than synthesized has a traceability entry.
    let trace = p["source_traceability"].as_array().unwrap();
    for (id, it) in &all {
        if it["source_basis"] != "synthesized" {
            let t = trace.iter().find(|t| t["extracted_item_id"] == id.as_str());
            let t = t.unwrap_or_else(|| panic!("{id}: no traceability entry"));
            assert_eq!(t["extraction_type"], it["source_basis"], "{id}");
        }
    }
}

#[test]
fn metadata_flags_and_stdin() {
    let text = std::fs::read_to_string(fixture("statute.txt")).unwrap();
    let out = warrant()
        .args(["compile", "--title", "Data Retention Act", "--version", "2", "--created-at", "2026-05-28T09:30:00Z", "-"])
        .write_stdin(text.clone())
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let p = json(&out);
    assert_eq!(p["metadata"]["package_id"], "data-retention-act-v2");
    assert_eq!(p["metadata"]["source_title"], "Data Retention Act");
    assert_eq!(p["metadata"]["created_at"], "2026-05-28T09:30:00Z");
    // SOURCE_DATE_EPOCH is the default timestamp.
    let out = warrant().env("SOURCE_DATE_EPOCH", "951782400").args(["compile", "-"]).write_stdin(text.clone()).assert().code(0);
    assert_eq!(json(&out.get_output().stdout)["metadata"]["created_at"], "2000-02-29T00:00:00Z");
    // Without either, the fixed epoch keeps output reproducible.
    let out = warrant().args(["compile", "-"]).write_stdin(text).assert().code(0);
    assert_eq!(json(&out.get_output().stdout)["metadata"]["created_at"], "1970-01-01T00:00:00Z");
    warrant()
        .args(["compile", "--created-at", "yesterday", fixture("faq.md").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--created-at: 'yesterday' is not an ISO-8601"));
}

#[test]
fn records_keep_their_ids() {
    let p = json(&compile(&[fixture("policies.jsonl").to_str().unwrap()]));
    let ids: Vec<&str> =
        p["source_traceability"].as_array().unwrap().iter().filter_map(|t| t["source_record_id"].as_str()).collect();
    for want in ["SEC-001", "SEC-002", "SEC-003"] {
        assert!(ids.contains(&want), "no traceability entry from record {want}: {ids:?}");
    }
}

#[test]
fn several_sources_make_one_package() {
    let faq = fixture("faq.md");
    let pol = fixture("policies.jsonl");
    let p = json(&compile(&["--title", "Support and Security", faq.to_str().unwrap(), pol.to_str().unwrap()]));
    // The version comes from the FAQ's front matter (3.1).
    assert_eq!(p["metadata"]["package_id"], "support-and-security-v3-1");
    let files: Vec<&str> =
        p["metadata"]["source_manifest"].as_array().unwrap().iter().filter_map(|m| m["source_file"].as_str()).collect();
    // The file as it was named on the command line.
    assert!(files.iter().any(|f| f.ends_with("/faq.md")) && files.iter().any(|f| f.ends_with("/policies.jsonl")), "{files:?}");
    assert!(!p["qa_pairs"].as_array().unwrap().is_empty());
}

#[test]
fn editing_one_paragraph_changes_only_its_items() {
    let dir = tempfile::tempdir().unwrap();
    let before = "# Laptop policy\n\nEmployees must encrypt their laptops with full-disk encryption.\n\n\
                  Lost laptops must be reported to the Security Team within 24 hours.\n\n\
                  Do not store customer data on USB drives, because they are easily lost.\n";
    let after = before.replace("within 24 hours", "within 12 hours");
    let a = json(&compile(&[write(dir.path(), "laptops.md", before.as_bytes()).to_str().unwrap()]));
    let b = json(&compile(&[write(dir.path(), "laptops.md", after.as_bytes()).to_str().unwrap()]));
    let (ia, ib) = (items(&a), items(&b));
    let mut changed = Vec::new();
    for (id, x) in &ia {
        if ib.get(id) != Some(x) {
            changed.push(id.clone());
        }
    }
    for id in ib.keys() {
        if !ia.contains_key(id) {
            changed.push(id.clone());
        }
    }
    assert!(!changed.is_empty(), "the edit changed nothing");
    for id in &changed {
        let it = ia.get(id).or_else(|| ib.get(id)).unwrap();
        let quoted = it["source_excerpts"].as_array().unwrap().iter().any(|e| {
            let e = e.as_str().unwrap();
            e.contains("Lost laptops") || e.contains("hours") || e.contains("Laptop policy")
        });
        assert!(quoted, "{id} changed but does not come from the edited paragraph: {it}");
    }
    // The untouched paragraphs' items are identical.
    let encrypt = |m: &BTreeMap<String, Value>| -> Vec<Value> {
        m.values()
            .filter(|it| it.to_string().contains("full-disk encryption") && !it.to_string().contains("hours"))
            .cloned()
            .collect()
    };
    assert!(!encrypt(&ia).is_empty());
    assert_eq!(encrypt(&ia), encrypt(&ib));
}

#[test]
fn yaml_and_markdown_encodings_validate() {
    let dir = tempfile::tempdir().unwrap();
    for (fmt, ext) in [("json", "ckf.json"), ("yaml", "ckf.yaml"), ("md", "ckf.md")] {
        let out = dir.path().join(format!("faq.{ext}"));
        warrant()
            .args(["compile", "--format", fmt, "-o", out.to_str().unwrap(), fixture("faq.md").to_str().unwrap()])
            .assert()
            .code(0);
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.contains("acme-store-refunds-faq-v3-1"), "{fmt}: no package id");
        warrant()
            .args(["validate", "--kind", "ckf_package", "--strict", out.to_str().unwrap()])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("valid").or(predicate::str::contains("Valid")));
        // Detected without --kind, from the file name or the content.
        warrant().args(["validate", out.to_str().unwrap()]).assert().code(0);
    }
}

#[test]
fn validate_reports_a_broken_package_with_its_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = json(&compile(&[fixture("faq.md").to_str().unwrap()]));
    p["qa_pairs"][0]["id"] = Value::from("question_one");
    let f = write(dir.path(), "broken.ckf.json", serde_json::to_string_pretty(&p).unwrap().as_bytes());
    let out = warrant().args(["validate", "--kind", "ckf_package", "--strict", "--format", "json", f.to_str().unwrap()]).assert();
    let out = out.code(1).get_output().stdout.clone();
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("/qa_pairs/0/id"), "{text}");
}

#[test]
fn bad_inputs_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = write(dir.path(), "existing.ckf.json", b"previous content\n");
    let cases: [(&str, &[u8], &str); 7] = [
        ("empty.txt", b"", "empty.txt: empty input: the file has no content"),
        ("blank.md", b"  \n\t\n", "blank.md: empty input: there is no text to compile"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary content"),
        ("name.txt", b"quarterly-report-2025.pdf\n", "only a file name"),
        ("hash.txt", b"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n", "only a hash"),
        (
            "p.jsonl",
            b"{\"id\": \"a\", \"text\": \"Rotate keys every 90 days.\"}\n{\"id\": \"b\", \"title\": \"No text\"}\n",
            "p.jsonl: line 2: the record has no text",
        ),
        ("r.json", b"[{\"text\": \"Keys rotate yearly.\"}, {\"body\": \"\"}]", "r.json: record 2: the record has no text"),
    ];
    for (name, bytes, msg) in cases {
        let src = write(dir.path(), name, bytes);
        warrant()
            .args(["compile", "-o", out.to_str().unwrap(), src.to_str().unwrap()])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(msg));
        assert_eq!(std::fs::read(&out).unwrap(), b"previous content\n", "{name}: the output was touched");
    }
    // A good source and a bad one: refused as a whole.
    let bad = write(dir.path(), "empty2.txt", b"");
    warrant()
        .args(["compile", "-o", out.to_str().unwrap(), fixture("faq.md").to_str().unwrap(), bad.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("empty2.txt"));
    assert_eq!(std::fs::read(&out).unwrap(), b"previous content\n");
    warrant().args(["compile", dir.path().join("missing.md").to_str().unwrap()]).assert().code(2).stderr(
        predicate::str::contains("missing.md")
            .and(predicate::str::contains("cannot read").or(predicate::str::contains("not found"))),
    );
    warrant().arg("compile").assert().code(2);
    // A long source with nothing to compile fails (exit 1) rather than writing an empty package.
    let noise = write(dir.path(), "noise.txt", "lorem ipsum dolor ".repeat(80).as_bytes());
    warrant().args(["compile", "-o", out.to_str().unwrap(), noise.to_str().unwrap()]).assert().code(1);
    assert_eq!(std::fs::read(&out).unwrap(), b"previous content\n");
}

#[test]
fn report_file_has_promotion_and_coverage() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    compile(&["--report", report.to_str().unwrap(), fixture("runbook.md").to_str().unwrap()]);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(r["promotion"]["rejected"].is_u64(), "{}", r["promotion"]);
    assert!(r["promotion"]["promoted"].is_u64());
    assert!(r["coverage"]["spans_total"].as_u64().unwrap() > 0);
    let off = json(&compile(&["--no-promotion", fixture("runbook.md").to_str().unwrap()]));
    let on = json(&compile(&[fixture("runbook.md").to_str().unwrap()]));
    let n = |p: &Value, s: &str| p[s].as_array().map_or(0, Vec::len);
    assert!(
        n(&on, "if_then_rules") + n(&on, "playbooks") + n(&on, "anti_patterns")
            >= n(&off, "if_then_rules") + n(&off, "playbooks") + n(&off, "anti_patterns")
    );
}

#[test]
fn shared_case_packages_validate() {
    let Some(dir) = warrant_testkit::data_dir("ckf") else { return };
    let mut files = Vec::new();
    for set in ["09-composition-hallucination-benchmark", "education-composition-hallucination-bench"] {
        for e in std::fs::read_dir(dir.join("benchmarks").join(set).join("ckf/cases")).unwrap() {
            files.push(e.unwrap().path());
        }
    }
    files.sort();
    assert_eq!(files.len(), 60);
    let mut c = warrant();
    c.args(["validate", "--kind", "ckf_package"]);
    for f in &files {
        c.arg(f);
    }
    c.assert().code(0);
}
