//! The use cases as the command line calls them, with inputs named by file: bad input is an
//! error naming its file, line and JSON pointer, never a panic.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use warrant::ErrorKind;
use warrant::compile::{CompileFiles, CompileRequest, compile_files, is_empty_package};
use warrant::extract::{ExtractFiles, Extractor};
use warrant::inputs::InputFormat;
use warrant::policy::{Evaluation, PolicyFiles};
use warrant::validate::Validator;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn a_bad_batch_line_names_its_file_line_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let batch = write(dir.path(), "batch.jsonl", "{\"id\": \"a\", \"answer\": \"Paris is in France.\"}\n{\"answer\": \"x\"}\n");
    let extractor = Extractor::from_files(&ExtractFiles::default(), InputFormat::Auto, 1 << 20).unwrap();
    let e = extractor.read_batch(&batch).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Input);
    assert_eq!(e.message, format!("{batch}:2: expected a string `id`"));
    assert_eq!(
        (e.location.file.as_deref(), e.location.line, e.location.pointer.as_deref()),
        (Some(batch.as_str()), Some(2), Some("/id"))
    );
    let good = write(dir.path(), "good.jsonl", "{\"id\": 7, \"answer\": \"Paris is in France.\"}\n\n");
    let items = extractor.read_batch(&good).unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(extractor.extract_answer(&items[0].1, Some(items[0].0.clone())).graph.output_id, "7");
}

#[test]
fn a_bad_pack_or_graph_file_names_its_file_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let pack = write(dir.path(), "pack.json", "{\"pack_id\": 3}");
    let files = PolicyFiles { packs: vec![pack.clone()], ..PolicyFiles::default() };
    let e = Evaluation::from_files(&files, false, InputFormat::Auto, 1 << 20).err().unwrap();
    assert_eq!((e.kind, e.location.file.as_deref()), (ErrorKind::Input, Some(pack.as_str())));
    assert!(e.message.starts_with(&format!("{pack}: ")), "{}", e.message);

    let graph = write(dir.path(), "graph.json", "{\"schema_version\": \"1.0.0\", \"output_id\": 5}");
    let files = PolicyFiles { packs: vec!["warrant.arithmetic.v1".into()], ..PolicyFiles::default() };
    let e = Evaluation::from_files(&files, false, InputFormat::Auto, 1 << 20).unwrap().eval_file(&graph, None).unwrap_err();
    assert_eq!((e.kind, e.location.file.as_deref()), (ErrorKind::Input, Some(graph.as_str())));
    assert!(e.location.pointer.is_some(), "{e:?}");
}

#[test]
fn validating_files_reports_by_name_and_refuses_what_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let doc = write(dir.path(), "graph.json", "{\"schema_version\": \"1.0.0\"}");
    let validator = Validator::for_files(std::slice::from_ref(&doc), None, false, None).unwrap();
    let report = validator.validate_file(&doc).unwrap();
    assert!(!report.valid);
    let missing = dir.path().join("missing.json").to_str().unwrap().to_string();
    let e = validator.validate_file(&missing).unwrap_err();
    assert_eq!((e.kind, e.location.file.as_deref()), (ErrorKind::Input, Some(missing.as_str())));
}

#[test]
fn a_source_that_yields_nothing_is_an_empty_package() {
    let dir = tempfile::tempdir().unwrap();
    let noise = write(dir.path(), "noise.txt", &"lorem ipsum dolor ".repeat(80));
    let files = CompileFiles { sources: vec![noise.clone()], max_bytes: 1 << 20, ..CompileFiles::default() };
    let e = compile_files(&warrant::Env::new(), &CompileRequest::default(), &files).unwrap_err();
    assert!(is_empty_package(&e), "{e:?}");
    assert!(e.message.starts_with(&format!("{noise}: ")), "{}", e.message);
    let refunds = write(dir.path(), "refunds.md", "# Refunds\n\nRefunds must be approved within 5 days.\n");
    let files = CompileFiles { sources: vec![refunds], max_bytes: 1 << 20, ..CompileFiles::default() };
    let compiled = compile_files(&warrant::Env::new(), &CompileRequest::default(), &files).unwrap();
    assert!(compiled.items > 0 && compiled.text.starts_with('{'), "{}", compiled.text);
}
