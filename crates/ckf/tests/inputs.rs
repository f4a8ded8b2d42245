//! Source readers and preflight: every supported input, the bad inputs the spec blocks, and a
//! property test that any document either compiles into a package that holds the invariants
//! or is refused with a message — never a panic.

#![allow(clippy::unwrap_used)]

mod common;

use common::{assert_invariants, compile_str, fixture, spans};
use proptest::prelude::*;
use warrant_ckf::Section;
use warrant_ckf::{CompileError, Options, SourceInput, compile};
use warrant_ckf::{Mode, check, read_package};

fn refuse(name: &str, bytes: &[u8]) -> String {
    match compile(&[SourceInput { name, bytes }], &Options::default()) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("{name} should be refused"),
    }
}

#[test]
fn bad_inputs_are_refused_with_a_clear_message() {
    assert_eq!(refuse("empty.txt", b""), "empty.txt: empty input: the file has no content");
    assert_eq!(refuse("blank.md", b" \n\t\n"), "blank.md: empty input: there is no text to compile");
    assert!(refuse("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").contains("binary content (a NUL byte at offset 8)"));
    assert!(refuse("latin1.txt", b"Caf\xe9 au lait").contains("not UTF-8 text (invalid byte at offset 3)"));
    assert!(refuse("name.txt", b"quarterly-report-2025.pdf\n").contains("only a file name (quarterly-report-2025.pdf)"));
    assert!(refuse("hash.txt", b"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n").contains("only a hash"));
    let e = refuse(
        "p.jsonl",
        b"{\"id\": \"a\", \"text\": \"Rotate keys every 90 days.\"}\n{\"id\": \"b\", \"title\": \"No text here\"}\n",
    );
    assert_eq!(
        e,
        "p.jsonl: line 2: the record has no text (expected a non-empty `text`, `content`, `body`, `answer` or `resposta` string)"
    );
    let e = refuse("r.json", b"[{\"text\": \"ok\"}, {\"body\": \"\"}]");
    assert!(e.starts_with("r.json: record 2: the record has no text"), "{e}");
    assert!(refuse("r.json", b"{\"text\": \"one object\"}").contains("expected a JSON array of records"));
    assert!(refuse("bad.json", b"[{\"text\": ").contains("invalid JSON"));
    assert!(refuse("utf16.txt", b"\xff\xfeH\x00i\x00").contains("UTF-16"));
    assert!(
        refuse("empty.html", b"<html><head><title>x</title></head><body><script>1</script></body></html>")
            .contains("no visible text")
    );
    assert!(matches!(compile(&[], &Options::default()), Err(CompileError::NoSources)));
}

#[test]
fn an_empty_package_from_a_long_source_aborts() {
    let filler = "lorem ipsum dolor ".repeat(80);
    let r = compile(&[SourceInput { name: "noise.txt", bytes: filler.as_bytes() }], &Options::default());
    assert!(matches!(r, Err(CompileError::EmptyPackage { .. })), "{r:?}");
}

#[test]
fn every_reader() {
    let html = "<html><head><title>Returns</title><meta name=\"author\" content=\"Ops\"></head><body><h1>Returns</h1><p>Items must be returned within 30 days.</p><h2>Exceptions</h2><p>Gift cards cannot be returned, because they are cash equivalents.</p></body></html>";
    let p = compile_str("returns.html", html);
    assert_eq!((p.metadata.source_title.as_str(), p.metadata.source_author.as_str()), ("Returns", "Ops"));
    assert_eq!(p.metadata.source_manifest[1].path.as_deref(), Some("Returns > Exceptions"));
    assert_invariants(&p, &spans("returns.html", html));

    let vtt = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Ana>Deploys must be approved by the release lead.\n\n00:00:04.500 --> 00:00:08.000\n<v Bo>If a deploy fails, roll it back within 10 minutes.\n";
    let p = compile_str("standup.vtt", vtt);
    assert_eq!(p.metadata.source_type, "transcript");
    assert!(p.section(Section::AtomicUnits).iter().any(|a| a.text("statement").starts_with("Deploys must be approved")));
    assert_invariants(&p, &spans("standup.vtt", vtt));

    let srt = "1\n00:00:01,000 --> 00:00:03,000\nNever deploy on Fridays.\n\n2\n00:00:03,500 --> 00:00:06,000\nAlways run the smoke tests first.\n";
    let p = compile_str("talk.srt", srt);
    assert!(p.section(Section::AntiPatterns).iter().any(|a| a.text("name") == "Deploy on Fridays"));

    let json = "[{\"id\": 1, \"title\": \"Fees\", \"text\": \"A late fee of $25 is charged after 15 days.\"}, {\"id\": 2, \"text\": \"Payments must be made in euros.\"}]";
    let p = compile_str("fees.json", json);
    let m = &p.metadata.source_manifest;
    assert_eq!(
        (m[0].source_type, m[0].source_record_id.as_deref(), m[1].source_record_id.as_deref()),
        ("json_array_record", Some("1"), Some("2"))
    );
    assert!(p.source_traceability.iter().all(|r| r.source_record_id.is_some()), "record inputs keep their record id (D40)");
    assert_invariants(&p, &spans("fees.json", json));

    let legal = std::fs::read_to_string(fixture("statute.txt")).unwrap();
    let p = compile_str("statute.txt", &legal);
    assert_eq!(p.metadata.source_manifest[1].source_record_id.as_deref(), Some("Art. 1"));
    assert_eq!(p.metadata.source_manifest[1].source_type, "legal_article");
}

#[test]
fn several_sources_make_one_package() {
    let a = "# Keys\n\nKeys must be rotated every 90 days.";
    let b = "{\"id\": \"K-2\", \"text\": \"Revoked keys must be deleted within 7 days.\"}\n{\"id\": \"K-3\", \"text\": \"Keys must never be emailed.\"}\n";
    let r = compile(
        &[SourceInput { name: "keys.md", bytes: a.as_bytes() }, SourceInput { name: "keys.jsonl", bytes: b.as_bytes() }],
        &Options::default(),
    )
    .unwrap();
    let m = &r.package.metadata.source_manifest;
    assert_eq!(
        m.iter().map(|e| (e.source_id.as_str(), e.source_file.as_str())).collect::<Vec<_>>(),
        vec![("s_001", "keys.md"), ("s_002", "keys.jsonl"), ("s_003", "keys.jsonl")]
    );
    assert_eq!(r.profiles.len(), 2);
}

#[test]
fn reference_compiler_shapes_are_read_with_warnings() {
    let v = warrant_testkit::read_json(&fixture("reference-compiler.ckf.json"));
    let read = check(&v, Mode::Read);
    assert!(read.errors.is_empty(), "{:#?}", read.errors);
    for shape in [
        "sequential id",
        "pkg_<base36>",
        "related[{name, relation}]",
        "intended_agent_use is a list",
        "plain string",
        "closed enum",
        "section name",
        "unrounded",
        "NFC",
    ] {
        assert!(
            read.warnings
                .iter()
                .any(|w| w.message.contains(shape)
                    || (shape == "pkg_<base36>" && w.message.contains("reference-compiler package id"))),
            "no warning for {shape}"
        );
    }
    assert!(read_package(&v).is_ok());
    assert!(check(&v, Mode::Write).errors.len() > 10);
}

fn sentence_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Employees must submit receipts within 30 days.".to_string()),
        Just("If the amount is over $500, a manager must approve it.".to_string()),
        Just("Refunds are final unless the item is faulty.".to_string()),
        Just("Do not share passwords with anyone.".to_string()),
        Just("Skipping reviews causes outages, which in turn leads to churn.".to_string()),
        Just("A runbook is a document that lists operational steps.".to_string()),
        Just("However, contractors are exempt from the 14-day rule.".to_string()),
        Just("Think of the cache as a short-term memory.".to_string()),
        Just("Incidents often spike after deploys.".to_string()),
        Just("A avaliação formativa deve orientar o aluno.".to_string()),
        Just("Café crème costs €3,50 — naïve résumé ½.".to_string()),
        Just("See Section 4.2 and Art. 5 for details.".to_string()),
        Just("1. Open the portal.\n2. Click refund.".to_string()),
        Just("# Heading".to_string()),
        Just("Q: Is it free?\nA: Yes, for 12 months.".to_string()),
        "[A-Za-z0-9 ,.;:!?$%()'\"-]{0,60}",
        "\\PC{0,30}",
    ]
}

proptest! {
    // PROPTEST_CASES raises the count for a longer local run.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn any_document_compiles_to_a_valid_package_or_is_refused(
        paragraphs in proptest::collection::vec(proptest::collection::vec(sentence_strategy(), 1..4), 1..6),
        ext in prop_oneof![Just("txt"), Just("md")],
    ) {
        let text = paragraphs.iter().map(|p| p.join(" ")).collect::<Vec<_>>().join("\n\n");
        let name = format!("doc.{ext}");
        match compile(&[SourceInput { name: &name, bytes: text.as_bytes() }], &Options::default()) {
            Ok(r) => {
                assert_invariants(&r.package, &spans(&name, &text));
                let again = compile(&[SourceInput { name: &name, bytes: text.as_bytes() }], &Options::default()).unwrap();
                prop_assert_eq!(
                    warrant_ckf::to_json(&r.package).unwrap(),
                    warrant_ckf::to_json(&again.package).unwrap()
                );
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
