//! BFCL: each possible answer, sent as an assistant message with tool_calls, extracts to the
//! same calls; with the function definitions as tools, `core.tool-use.v1` passes, and fails
//! with exactly the right rule when an argument's type is mutated, a required argument is
//! dropped, or an unknown one is added.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use warrant_cpl::{Engine, Pack, packs};
use warrant_extract::{Options, add_tools, answer_from_value, extract};
use warrant_testkit::{data_dir, read_jsonl};

const FILES: [&str; 5] =
    ["BFCL_v4_simple_python", "BFCL_v4_multiple", "BFCL_v4_parallel", "BFCL_v4_parallel_multiple", "BFCL_v4_live_simple"];

/// One call per ground-truth entry: the first acceptable non-empty value of each argument
/// (`""` only says the argument may be omitted; an argument whose only option is `""` is).
fn calls(gt: &Value) -> Vec<(String, Map<String, Value>)> {
    gt.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let (name, args) = c.as_object().unwrap().iter().next().unwrap();
            let mut out = Map::new();
            for (k, options) in args.as_object().unwrap() {
                if let Some(first) = options.as_array().unwrap().iter().find(|v| *v != &json!("")) {
                    out.insert(k.clone(), first.clone());
                }
            }
            (name.clone(), out)
        })
        .collect()
}

fn message(calls: &[(String, Map<String, Value>)]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (n, a))| json!({"id": format!("call_{i}"), "type": "function", "function": {"name": n, "arguments": serde_json::to_string(a).unwrap()}}))
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": tool_calls})
}

fn violations(
    pack: &Pack,
    msg: &Value,
    functions: &Value,
) -> (BTreeSet<(String, Option<String>)>, warrant_graph::PredicateGraph) {
    let mut answer = answer_from_value(msg).unwrap();
    add_tools(&mut answer, functions);
    let g = extract(&answer, &Options { output_id: Some("bfcl".into()) }).graph;
    let r = Engine::default().evaluate(std::slice::from_ref(pack), &g).unwrap();
    (r.violations().map(|(_, _, v)| (v.rule_id.clone(), v.node_id.clone())).collect(), g)
}

fn declared_type<'a>(functions: &'a Value, name: &str, arg: &str) -> Option<&'a str> {
    functions.as_array()?.iter().find(|f| f["name"] == name)?["parameters"]["properties"][arg]["type"].as_str()
}

/// The test's own oracle: does a value fit a declared BFCL type?
fn fits(declared: Option<&str>, v: &Value) -> bool {
    match declared {
        Some("integer") => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        Some("float" | "number") => v.is_number(),
        Some("string") => v.is_string(),
        Some("boolean") => v.is_boolean(),
        Some("array" | "tuple") => v.is_array(),
        Some("dict" | "object") => v.is_object(),
        _ => true,
    }
}

/// A value of the wrong JSON type for a declared type.
fn wrong_value(declared: &str, v: &Value) -> Option<Value> {
    Some(match declared {
        "integer" | "number" | "float" | "boolean" => Value::String(v.to_string()),
        "string" => json!(12345),
        "array" | "tuple" | "dict" | "object" => json!("not-a-container"),
        _ => return None,
    })
}

#[test]
fn bfcl_calls_extract_exactly_and_mutations_fail_the_right_rule() {
    let Some(dir) = data_dir("bfcl") else { return };
    let pack = packs::builtin("core.tool-use.v1").unwrap().unwrap().clone();
    let (mut items, mut mutations, mut inconsistent_items) = (0, 0, 0);
    for file in FILES {
        let questions = read_jsonl(&dir.join(format!("{file}.json")));
        let answers = read_jsonl(&dir.join(format!("possible_answer/{file}.json")));
        assert_eq!(questions.len(), answers.len(), "{file}");
        for (q, a) in questions.iter().zip(&answers) {
            assert_eq!(q["id"], a["id"]);
            let id = q["id"].as_str().unwrap();
            let functions = &q["function"];
            let expected = calls(&a["ground_truth"]);
            let msg = message(&expected);
            let (v, g) = violations(&pack, &msg, functions);
            common::assert_faithful(&g);
            let got: Vec<(String, Map<String, Value>)> =
                g.tool_calls.iter().map(|t| (t.name.clone(), t.arguments.clone())).collect();
            assert_eq!(got, expected, "{id}: extracted calls");
            // BFCL's ground truth is not always consistent with its own schemas (a few values
            // contradict their declared type, e.g. `venue: true` for a string; a few calls pass an
            // argument the function does not declare). The oracle below says which rules must
            // fire; for consistent items that is none.
            let mut oracle: BTreeSet<(String, Option<String>)> = BTreeSet::new();
            for (i, (n, args)) in expected.iter().enumerate() {
                let tc = Some(format!("tc{}", i + 1));
                let f = functions.as_array().unwrap().iter().find(|f| f["name"] == n.as_str()).unwrap();
                let props = f["parameters"]["properties"].as_object().cloned().unwrap_or_default();
                if args.iter().any(|(k, val)| props.contains_key(k) && !fits(declared_type(functions, n, k), val)) {
                    oracle.insert(("args-match-schema".into(), tc.clone()));
                }
                if args.keys().any(|k| !props.contains_key(k)) {
                    oracle.insert(("no-extra-args".into(), tc.clone()));
                }
                let req = f["parameters"]["required"].as_array().cloned().unwrap_or_default();
                if req.iter().any(|r| !args.contains_key(r.as_str().unwrap())) {
                    oracle.insert(("required-args-present".into(), tc.clone()));
                }
            }
            assert_eq!(v, oracle, "{id}: core.tool-use.v1 on the ground-truth calls");
            if !oracle.is_empty() {
                inconsistent_items += 1;
                continue;
            }
            items += 1;

            // Mutations on the first call.
            let (name, args) = &expected[0];
            let mutate = |f: &dyn Fn(&mut Map<String, Value>)| {
                let mut calls = expected.clone();
                f(&mut calls[0].1);
                violations(&pack, &message(&calls), functions).0
            };
            let want = |rule: &str| BTreeSet::from([(rule.to_string(), Some("tc1".to_string()))]);
            if let Some((k, val, bad)) = args.iter().find_map(|(k, val)| {
                declared_type(functions, name, k).and_then(|t| wrong_value(t, val)).map(|bad| (k.clone(), val.clone(), bad))
            }) {
                let _ = val;
                assert_eq!(
                    mutate(&|m| {
                        m.insert(k.clone(), bad.clone());
                    }),
                    want("args-match-schema"),
                    "{id}: type of '{k}' mutated"
                );
                mutations += 1;
            }
            let required: Vec<String> =
                functions.as_array().unwrap().iter().find(|f| f["name"] == name.as_str()).unwrap()["parameters"]["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(|x| x.as_str().map(String::from)).collect())
                    .unwrap_or_default();
            if let Some(k) = required.iter().find(|k| args.contains_key(*k)) {
                assert_eq!(
                    mutate(&|m| {
                        m.remove(k);
                    }),
                    want("required-args-present"),
                    "{id}: '{k}' dropped"
                );
                mutations += 1;
            }
            assert_eq!(
                mutate(&|m| {
                    m.insert("zz_invented_argument".into(), json!(1));
                }),
                want("no-extra-args"),
                "{id}: unknown argument added"
            );
            mutations += 1;
        }
    }
    eprintln!(
        "bfcl: {items} items pass and {mutations} mutations fail the right rule; {inconsistent_items} items have ground truth that contradicts its declared types"
    );
    assert_eq!(items + inconsistent_items, 1258);
    assert!(inconsistent_items < 40, "{inconsistent_items}");
}

#[test]
fn malformed_arguments_are_kept_raw_and_reported() {
    let msg = json!({"role": "assistant", "content": "Booking now.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{\"city\": \"Paris\","}}]});
    let answer = answer_from_value(&msg).unwrap();
    let e = extract(&answer, &Options::default());
    common::assert_faithful(&e.graph);
    assert_eq!(e.graph.tool_calls[0].arguments["_unparsed_arguments"], json!("{\"city\": \"Paris\","));
    assert_eq!(e.diagnostics.len(), 1);
    assert!(e.diagnostics[0].contains("not valid JSON"), "{:?}", e.diagnostics);
    assert_eq!(e.graph.context.unwrap()["extraction_diagnostics"].as_array().unwrap().len(), 1);
}
