//! `warrant extract` end to end: every input shape, context and tools, batches, and the
//! refusals for inputs that are not what they claim.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::PathBuf;

use predicates::prelude::*;
use serde_json::{Value, json};
use warrant_testkit::write_file as write;
use warrant_testkit::{warrant, workspace_root};

fn graph_of(args: &[&str], stdin: Option<&str>) -> Value {
    let mut c = warrant();
    c.arg("extract").args(args);
    if let Some(s) = stdin {
        c.write_stdin(s.to_string());
    }
    let out = c.assert().code(0).get_output().stdout.clone();
    let g: Value = serde_json::from_slice(&out).unwrap();
    // What extract prints always validates.
    let r = warrant_graph::check_graph(g.clone());
    assert!(r.errors.is_empty() && r.warnings.is_empty(), "{:?} {:?}", r.errors, r.warnings);
    g
}

#[test]
fn plain_markdown_answer() {
    let g = graph_of(
        &["--output-id", "md-1", "-"],
        Some("# Result\n\nThe total is 3 × 4 = 12. Paris is in France [1].\n\n[1] https://example.org\n"),
    );
    assert_eq!(g["output_id"], "md-1");
    assert_eq!(g["operations"][0]["operator"], "multiply");
    assert_eq!(g["citations"][0]["source"], json!({"type": "url", "value": "https://example.org"}));
    assert_eq!(g["citations"][0]["claim_id"], "c2");
}

#[test]
fn chat_shapes_give_the_same_tool_calls() {
    let openai = json!({"role": "assistant", "content": "Checking the weather.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"days\": 3}"}}]});
    let completion = json!({"id": "chatcmpl-9", "choices": [{"index": 0, "message": openai, "finish_reason": "tool_calls"}]});
    let anthropic = json!({"type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Checking the weather."}, {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris", "days": 3}}]});
    let envelope = json!({"text": "Checking the weather.", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}], "context": {"user_query": "Weather in Paris for 3 days?"}});
    for (v, id) in [(&openai, None), (&completion, Some("chatcmpl-9")), (&anthropic, None), (&envelope, None)] {
        let g = graph_of(&["-"], Some(&v.to_string()));
        assert_eq!(g["tool_calls"][0]["name"], "get_weather");
        assert_eq!(g["tool_calls"][0]["arguments"], json!({"city": "Paris", "days": 3}));
        let span = &g["tool_calls"][0]["span"];
        let text = g["text"].as_str().unwrap();
        let under: String = text
            .chars()
            .skip(span["start"].as_u64().unwrap() as usize)
            .take((span["end"].as_u64().unwrap() - span["start"].as_u64().unwrap()) as usize)
            .collect();
        assert!(under.starts_with("get_weather("), "{under}");
        if let Some(id) = id {
            assert_eq!(g["output_id"], id);
        }
    }
    let g = graph_of(&["-"], Some(&envelope.to_string()));
    assert_eq!(g["context"]["user_query"], "Weather in Paris for 3 days?");
}

#[test]
fn context_and_tools_files_fill_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = write(dir.path(), "ctx.json", br#"{"user_query": "Book a flight", "system_prompt": "Be brief."}"#);
    let tools = workspace_root().join("examples/tool-use/travel.tools.json");
    let g = graph_of(
        &["--context", ctx.to_str().unwrap(), "--tools", tools.to_str().unwrap(), "-"],
        Some("book_flight(origin=\"BOS\", destination=\"LIS\", date=\"2026-12-18\", passengers=2)"),
    );
    assert_eq!(g["context"]["tools_available"], json!(["book_flight", "search_flights"]));
    assert_eq!(g["context"]["system_prompt"], "Be brief.");
    assert_eq!(g["tool_calls"][0]["arguments"]["passengers"], json!(2));
}

#[test]
fn batch_writes_one_graph_per_line_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"id": "a", "answer": "Two plus two equals four. 2 + 2 = 4."}),
        json!({"id": "b", "answer": {"role": "assistant", "content": "Sure."}, "context": {"user_query": "hi"}}),
        json!({"id": 7, "answer": "x"}),
    ];
    let f = write(dir.path(), "in.jsonl", lines.iter().map(|l| l.to_string() + "\n").collect::<String>().as_bytes());
    let out = warrant().args(["extract", "--batch"]).arg(&f).assert().code(0).get_output().stdout.clone();
    let graphs: Vec<Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ids: Vec<&str> = graphs.iter().map(|g| g["output_id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["a", "b", "7"]);
    assert_eq!(graphs[0]["operations"][0]["result"], json!(4));
    assert_eq!(graphs[1]["context"]["user_query"], "hi");
    let bad = write(dir.path(), "bad.jsonl", b"{\"id\": \"a\", \"answer\": \"x\"}\n{\"id\": \"b\"}\n");
    warrant()
        .args(["extract", "--batch"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.jsonl:2: expected an `answer`"))
        .stdout(predicate::str::is_empty());
}

#[test]
fn inputs_that_are_not_what_they_claim_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases: Vec<(PathBuf, &str)> = vec![
        (write(d, "broken.json", b"{\"role\": \"assistant\", \"content\": \"hi\" }}"), "looks like JSON but does not parse"),
        (write(d, "empty_msg.json", br#"{"role": "assistant", "content": null}"#), "no content and no tool calls"),
        (write(d, "user.json", br#"{"role": "user", "content": "hi"}"#), "/role: expected an assistant message"),
        (write(d, "weird.json", br#"{"hello": "world"}"#), "unrecognised JSON input"),
        (write(d, "bin.txt", [0x61, 0xff, 0xfe, 0x62]), "not UTF-8 text (invalid byte at offset 1)"),
    ];
    for (f, needle) in cases {
        let out = warrant().arg("extract").arg(&f).assert().code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(needle), "{}: {err}", f.display());
        assert_eq!(err.lines().count(), 1);
    }
    let big = "word ".repeat(11 * 1024 * 1024 / 5);
    let f = write(d, "big.txt", big.as_bytes());
    warrant()
        .args(["extract", "--max-bytes", "1048576"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the limit is 1048576 bytes"));
    warrant().args(["extract", "--input-format", "text"]).arg(d.join("broken.json")).assert().code(0);
}

#[test]
fn malformed_tool_arguments_are_reported_not_dropped() {
    let msg = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]});
    let out = warrant().args(["extract", "-"]).write_stdin(msg.to_string()).assert().code(0).get_output().clone();
    assert!(String::from_utf8(out.stderr).unwrap().contains("warning: <stdin>: tool call 1 (f): arguments are not valid JSON"));
    let g: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(g["tool_calls"][0]["arguments"]["_unparsed_arguments"], "{oops");
}

#[test]
fn policy_eval_extracts_an_answer_first() {
    let answer = "Sure, here you go.\n\n15% of $80 is $11. Also 19.99 + 5.01 = 25.";
    let out = warrant()
        .args(["policy", "eval", "--pack", "warrant.arithmetic.v1", "--format", "json", "-"])
        .write_stdin(answer)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let viol = &v["packs"][0]["policy_results"][0]["violations"];
    assert_eq!(viol.as_array().unwrap().len(), 1);
    assert_eq!(viol[0]["node_id"], "op1");
    assert_eq!(viol[0]["diagnostics"][0], "percentage of 15, 80 is 12, stated 11");
}

#[test]
fn extract_is_deterministic() {
    let text = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let a = warrant().args(["extract", "-"]).write_stdin(text.clone()).output().unwrap().stdout;
    let b = warrant().args(["extract", "-"]).write_stdin(text).output().unwrap().stdout;
    assert_eq!(a, b);
    let g: Value = serde_json::from_slice(&a).unwrap();
    assert!(g["output_id"].as_str().unwrap().starts_with("out-"));
}
