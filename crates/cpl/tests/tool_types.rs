//! Tools files with Java and JavaScript type names (issue 18): read with a warning for each
//! type name that is not understood, and checked under `core.tool-use.v1` and
//! `warrant.tool-schema.v1` — never refused as a whole.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use serde_json::{Value, json};
use warrant_cpl::{Engine, Pack, RunResult, ToolOrigin, ToolRegistry, packs};
use warrant_graph::{PredicateGraph, Severity, Span, ToolCall};

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn tool_packs() -> Vec<Pack> {
    packs::TOOL_CALL_PACKS.iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect()
}

fn graph(calls: &[(&str, Value)], tools: &ToolRegistry) -> PredicateGraph {
    let mut g = PredicateGraph::empty("o", "");
    g.tool_calls = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| ToolCall {
            id: format!("tc{}", i + 1),
            name: (*name).into(),
            arguments: args.as_object().unwrap().clone(),
            span: Span::new(0, 0),
        })
        .collect();
    g.context = json!({"tools_available": tools.names().collect::<Vec<_>>()}).as_object().cloned();
    g
}

fn run(tools: &ToolRegistry, calls: &[(&str, Value)]) -> RunResult {
    let engine = Engine { tools: tools.clone(), ..Engine::default() };
    engine.evaluate(&tool_packs(), &graph(calls, tools)).unwrap()
}

/// `(pack, rule, node, diagnostics)` of every warning and error.
fn problems(r: &RunResult) -> Vec<(String, String, String, Vec<String>)> {
    r.violations()
        .filter(|(_, _, v)| v.severity != Severity::Info)
        .map(|(p, _, v)| (p.to_string(), v.rule_id.clone(), v.node_id.clone().unwrap_or_default(), v.diagnostics.clone()))
        .collect()
}

fn schema_diagnostics(r: &RunResult, node: &str) -> Vec<String> {
    r.violations()
        .filter(|(p, _, v)| *p == "warrant.tool-schema.v1" && v.rule_id == "args-conform" && v.node_id.as_deref() == Some(node))
        .flat_map(|(_, _, v)| v.diagnostics.clone())
        .collect()
}

#[test]
fn java_tools_are_read_and_checked() {
    let tools = ToolRegistry::from_json(&fixture("java.tools.json"), ToolOrigin::File).unwrap();
    assert_eq!(tools.len(), 2);
    let warnings: Vec<(&str, &str)> = tools.warnings().iter().map(|w| (w.pointer.as_str(), w.message.as_str())).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert_eq!(warnings[0].0, "/0/parameters/properties/flags/type");
    assert!(warnings[0].1.starts_with("tool 'ConnectionPool.configure', parameter 'flags': unknown type 'byte': checked as any"));
    assert_eq!(warnings[1].0, "/0/parameters/properties/separator/type");
    assert!(warnings[1].1.starts_with("tool 'ConnectionPool.configure', parameter 'separator': unknown type 'char'"));

    let good = json!({
        "url": "jdbc:postgresql://db/app", "maxConnections": 20, "timeoutMillis": 30000, "loadFactor": 0.75,
        "readOnly": false, "properties": {"ssl": true, "charset": "UTF-8"}, "initSql": ["SET search_path TO app"],
        "ports": [5432, 5433], "separator": ";", "flags": 3, "listener": {"class": "PoolListener"}
    });
    let export = json!({"format": "PDF", "pages": [1, 2], "options": {"landscape": true, "scale": 1.5}});
    let r = run(&tools, &[("ConnectionPool.configure", good), ("ReportExporter.export", export)]);
    assert!(r.passed && problems(&r).is_empty(), "{:?}", problems(&r));
    // The unknown type names are reported with the run, as warnings naming tool and parameter.
    let notes: Vec<(&str, Severity)> = r.diagnostics.iter().map(|d| (d.path.as_str(), d.severity)).collect();
    assert_eq!(
        notes,
        vec![
            ("/0/parameters/properties/flags/type", Severity::Warning),
            ("/0/parameters/properties/separator/type", Severity::Warning)
        ]
    );
    assert!(r.diagnostics.iter().all(|d| d.source == "tools"));

    let bad = json!({
        "url": "jdbc:postgresql://db/app", "maxConnections": "20", "timeoutMillis": 1.5, "readOnly": "false",
        "properties": {"ssl": "yes"}, "initSql": [42], "ports": [5432.5], "separator": 1
    });
    let export = json!({"format": "pdf", "pages": ["1"], "options": {"landscape": true}});
    let r = run(&tools, &[("ConnectionPool.configure", bad), ("ReportExporter.export", export)]);
    assert!(!r.passed);
    assert_eq!(
        schema_diagnostics(&r, "tc1"),
        vec![
            "/initSql/0: expected string, got integer 42",
            r#"/maxConnections: expected integer, got string "20""#,
            "/ports/0: expected integer, got number 5432.5",
            r#"/properties/ssl: expected boolean, got string "yes""#,
            r#"/readOnly: expected boolean, got string "false""#,
            "/timeoutMillis: expected integer, got number 1.5",
        ]
    );
    assert_eq!(
        schema_diagnostics(&r, "tc2"),
        vec![
            r#"/format: "pdf" is not one of ["PDF","CSV","XLSX"]"#,
            "/options/scale: required, but missing",
            r#"/pages/0: expected integer, got string "1""#,
        ]
    );
    // CAPE's check sees the top-level types only.
    let core: Vec<(String, String)> =
        problems(&r).into_iter().filter(|p| p.0 == "core.tool-use.v1").map(|p| (p.1, p.2)).collect();
    assert_eq!(core, vec![("args-match-schema".to_string(), "tc1".to_string())]);
}

#[test]
fn javascript_tools_are_read_and_checked() {
    let tools = ToolRegistry::from_json(&fixture("javascript.tools.json"), ToolOrigin::File).unwrap();
    let warnings: Vec<&str> = tools.warnings().iter().map(|w| w.message.as_str()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("tool 'fetchUserData', parameter 'bigId': unknown type 'Bigint'"));
    assert!(warnings[1].starts_with("tool 'fetchUserData', parameter 'options': ambiguous type 'Object'"));
    let good = json!({"userId": "u-42", "fields": ["name"], "includeHistory": true, "retries": 3, "timeout": 2.5,
                      "headers": {"authorization": "Bearer abc"}, "callback": "cb", "bigId": "9007199254740993", "options": [1]});
    let r = run(&tools, &[("fetchUserData", good)]);
    assert!(problems(&r).is_empty(), "{:?}", problems(&r));
    let bad =
        json!({"userId": 42, "fields": "name", "includeHistory": "true", "retries": 9, "headers": {"authorization": "Basic x"}});
    let r = run(&tools, &[("fetchUserData", bad)]);
    assert_eq!(
        schema_diagnostics(&r, "tc1"),
        vec![
            r#"/fields: expected array, got string "name""#,
            r#"/headers/authorization: "Basic x" does not match the pattern ^Bearer "#,
            r#"/includeHistory: expected boolean, got string "true""#,
            "/retries: 9 is greater than the maximum 5",
            "/userId: expected string, got integer 42",
        ]
    );
}

#[test]
fn a_mixed_tools_file_in_the_graph_is_read_and_checked() {
    // The same file as `context.tool_schemas`: its warnings point into the graph.
    let doc = json!([{"name": "lookup", "parameters": {"type": "object", "properties": {
        "id": {"type": "Integer"}, "when": {"type": "LocalDate"}, "tags": {"type": "Set", "items": {"type": "String"}}},
        "required": ["id"]}}]);
    let mut g = PredicateGraph::empty("o", "");
    g.tool_calls = vec![ToolCall {
        id: "tc1".into(),
        name: "lookup".into(),
        arguments: json!({"id": "7", "when": "2024-01-01", "tags": ["a", 1]}).as_object().unwrap().clone(),
        span: Span::new(0, 0),
    }];
    g.context = json!({"tools_available": ["lookup"], "tool_schemas": doc}).as_object().cloned();
    let r = Engine::default().evaluate(&tool_packs(), &g).unwrap();
    let notes: Vec<(&str, &str)> = r.diagnostics.iter().map(|d| (d.source.as_str(), d.path.as_str())).collect();
    assert_eq!(
        notes,
        vec![
            ("graph", "/context/tool_schemas/0/parameters/properties/tags/type"),
            ("graph", "/context/tool_schemas/0/parameters/properties/when/type")
        ]
    );
    // `when` and `tags` take any type; `items` still applies to an array, and `id` is checked.
    assert_eq!(
        schema_diagnostics(&r, "tc1"),
        vec![r#"/id: expected integer, got string "7""#, "/tags/1: expected string, got integer 1"]
    );
}
