//! Warrant's own Agent Evidence schemas accept and reject exactly what the published ones do.
//!
//! Differential: every document (the upstream examples, generated valid documents of every
//! kind, and thousands of mutations of them: keys dropped, values of every wrong type, bad
//! ids, out-of-range numbers, bad enums, empty scopes, claims without text and range_ref, …)
//! is validated against both schemas of its kind, and against the other kinds' schemas too.
//! Both sides run with `format` as an annotation, so the comparison is like for like; the
//! RFC 3339 `date-time` rule Warrant adds on top (spec §6.1) is checked separately: removing
//! `format` findings from the production validator gives the published verdict back.
//!
//! Every document our schema accepts must also read as its typed form and write back
//! unchanged.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Value, json};
use warrant_evidence::{DocKind, parse};
use warrant_graph::CompiledSchema;
use warrant_testkit::{data_dir, read_json};

struct Pair {
    kind: DocKind,
    ours: CompiledSchema,
    published: CompiledSchema,
}

fn pairs(dir: &Path) -> Vec<Pair> {
    DocKind::ALL
        .iter()
        .map(|&kind| {
            let text = std::fs::read_to_string(dir.join("schemas").join(kind.upstream_schema_file())).unwrap();
            Pair {
                kind,
                ours: CompiledSchema::compile(kind.schema_json()).unwrap(),
                published: CompiledSchema::compile(&text).unwrap(),
            }
        })
        .collect()
}

/// The verdict and the located failing keywords.
fn verdict(s: &CompiledSchema, doc: &Value) -> (bool, BTreeSet<(String, &'static str)>) {
    if s.is_valid(doc) {
        return (true, BTreeSet::new());
    }
    (false, s.errors(doc).into_iter().map(|e| (e.pointer, e.keyword)).collect())
}

#[derive(Default)]
struct Tally {
    documents: usize,
    comparisons: usize,
    accepted: usize,
    rejected: usize,
}

fn compare(p: &Pair, doc: &Value, what: &str, tally: &mut Tally) {
    let ours = verdict(&p.ours, doc);
    let published = verdict(&p.published, doc);
    assert_eq!(ours, published, "{} schema disagrees on {what}:\n{doc}", p.kind);
    tally.comparisons += 1;
    if ours.0 {
        tally.accepted += 1;
        let typed = parse(p.kind, doc.clone()).unwrap_or_else(|e| panic!("{}: schema-valid but unreadable ({e}): {doc}", p.kind));
        let back = serde_json::to_value(&typed).unwrap();
        assert_eq!(&back, doc, "{}: typed round trip changed {what}", p.kind);
    } else {
        tally.rejected += 1;
    }
}

#[test]
fn our_schemas_accept_and_reject_what_the_published_ones_do() {
    let Some(dir) = data_dir("agent-evidence") else { return };
    let pairs = pairs(&dir);
    let mut tally = Tally::default();

    // The upstream examples, against every kind.
    for entry in std::fs::read_dir(dir.join("examples")).unwrap() {
        let path = entry.unwrap().path();
        let doc = read_json(&path);
        tally.documents += 1;
        for p in &pairs {
            compare(p, &doc, &path.display().to_string(), &mut tally);
        }
    }
    let quickstart = read_json(&dir.join("examples/quickstart-minimal-pack.json"));
    assert!(pairs[0].published.is_valid(&quickstart) && pairs[0].ours.is_valid(&quickstart));

    // Generated documents of every kind: valid by construction, then mutated.
    let mut rng = common::Rng::new(0x5eed_a11c_e000_0006);
    for p in &pairs {
        for n in 0..8 {
            let doc = common::generate(p.kind, &mut rng);
            assert!(p.published.is_valid(&doc), "generated {} #{n} is not valid: {doc}", p.kind);
            tally.documents += 1;
            for other in &pairs {
                compare(other, &doc, "a generated document", &mut tally);
            }
            // Mutate every other document fully, and a sample of the rest (time on 2 cores).
            let all = common::mutations(&doc);
            let step = if n % 2 == 0 { 1 } else { 5 };
            for (i, m) in all.iter().enumerate().filter(|(i, _)| i % step == 0) {
                tally.documents += 1;
                compare(p, m, &format!("mutation {i} of generated {} #{n}", p.kind), &mut tally);
            }
        }
    }

    // Targeted cases the spec calls out.
    let base = quickstart.clone();
    let mut targeted = Vec::new();
    let mut set = |ptr: &str, v: Value| {
        let mut d = base.clone();
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        match d.pointer_mut(parent).unwrap() {
            Value::Object(o) => {
                o.insert(key.to_string(), v);
            }
            Value::Array(a) => a[key.parse::<usize>().unwrap()] = v,
            _ => unreachable!(),
        }
        targeted.push(d);
    };
    set("/scope", json!({}));
    set("/claims/0", json!({"claim_id": "c", "status": "supported"}));
    set("/claims/0", json!({"claim_id": "c", "status": "supported", "range_ref": "r"}));
    set("/claims/0/confidence", json!(1.0000001));
    set("/claims/0/confidence", json!(-0.0));
    set("/claims/0/confidence", json!(null));
    set("/support_edges/0/confidence", json!("high"));
    set("/evidence_pack_id", Value::String(format!("a{}", "b".repeat(255))));
    set("/evidence_pack_id", Value::String(format!("a{}", "b".repeat(256))));
    set("/evidence_pack_id", json!("evp/1"));
    set("/evidence_pack_id", json!("é"));
    set("/schema_version", json!("0.1.8"));
    set("/completeness/custom", json!({"status": "complete"}));
    set("/completeness/custom", json!({"status": "done"}));
    set("/completeness/custom", json!({}));
    set("/scope/attempt_id", json!(5));
    set("/scope/attempt_id", json!("_x"));
    set("/scope/external_case_id", json!("any text at all"));
    set("/sources/0/selector", json!({"start": 1.0, "end": 0}));
    set("/sources/0/selector", json!({"start": -1}));
    set("/sources/0/selector", json!({"line_start": 0}));
    set("/sources/0/selector", json!({"start": 1.5}));
    set("/sources/0/selector", serde_json::from_str(r#"{"start": 100000000000000000000000, "end": 1e400}"#).unwrap());
    set("/provenance", json!([]));
    set("/provenance", json!({"nodes": 1}));
    for d in &targeted {
        tally.documents += 1;
        for p in &pairs {
            compare(p, d, "a targeted case", &mut tally);
        }
    }

    eprintln!(
        "schema equivalence: {} documents, {} comparisons ({} accepted, {} rejected), identical",
        tally.documents, tally.comparisons, tally.accepted, tally.rejected
    );
    assert!(tally.documents > 10_000 && tally.accepted > 1_000 && tally.rejected > 5_000);
}

#[test]
fn date_time_is_an_extra_check_on_top_of_the_schema() {
    let Some(dir) = data_dir("agent-evidence") else { return };
    let pairs = pairs(&dir);
    let mut rng = common::Rng::new(42);
    let mut format_findings = 0;
    for p in &pairs {
        let doc = common::generate(p.kind, &mut rng);
        for m in common::mutations(&doc).iter().step_by(3) {
            let production = p.kind.schema_errors(m);
            let without_format: Vec<_> = production.iter().filter(|e| e.keyword != "format").collect();
            format_findings += production.len() - without_format.len();
            assert_eq!(without_format.is_empty(), p.published.is_valid(m), "{}: {m}", p.kind);
            for e in production.iter().filter(|e| e.keyword == "format") {
                let v = m.pointer(&e.pointer).and_then(Value::as_str).unwrap_or_default();
                assert_ne!(v, "2026-05-08T00:00:00Z");
            }
        }
    }
    assert!(format_findings > 0);
}
