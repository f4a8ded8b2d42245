//! BFCL tool calls held against the tools they were made for, under `core.tool-use.v1` and
//! `warrant.tool-schema.v1` (issue 18).
//!
//! For every item of the five BFCL categories in `../shared/data/bfcl`, the ground-truth calls
//! go into one graph with the item's functions as `context.tool_schemas`. Every correct call
//! must pass both packs (no warning, no error); then, call by call, one mutant of each kind
//! is made and must be caught (a warning or an error on that call):
//!
//! | kind | the mutant |
//! |---|---|
//! | missing required | the first required argument the call passes is dropped |
//! | wrong type | the first argument with a declared type gets a value of another JSON type |
//! | invented argument | `zz_invented_argument: 1` is added |
//! | unknown function | the name is changed (`get.weather` → `get_weather`, else a capital) |
//! | outside enum | a parameter with an `enum` (top level, array items, nested) gets a value outside it |
//! | nested wrong type | a member of a nested object gets a value of another JSON type |
//!
//! The figures per category and per kind are printed (`--nocapture`) and recorded in
//! bench/README.md, "Tool calls against their schemas (issue 18)".

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::{Map, Value, json};
use warrant_cpl::{Engine, Pack, RunResult, packs};
use warrant_graph::{PredicateGraph, Severity, Span, ToolCall};
use warrant_testkit::{data_dir, read_jsonl};

const CATEGORIES: [(&str, &str); 5] = [
    ("simple_python", "BFCL_v4_simple_python"),
    ("multiple", "BFCL_v4_multiple"),
    ("parallel", "BFCL_v4_parallel"),
    ("parallel_multiple", "BFCL_v4_parallel_multiple"),
    ("live_simple", "BFCL_v4_live_simple"),
];

/// Calls whose ground truth contradicts the schema it was written for; both packs are right
/// to flag them (see the test's assertion).
const CONTRADICTORY_GROUND_TRUTH: [&str; 4] = [
    // `x: "data['sales']"`, a Python expression, for an array of numbers.
    "parallel_multiple_21 call 2 (linear_regression_fit)",
    // `type: "credit"` at the top level, where only the transaction items declare `type`
    // (core.tool-use.v1 warns: an undeclared argument).
    "parallel_multiple_26 call 2 (bank.calculate_balance)",
    // Fruit names for `elements: {type: array, items: {type: integer}}`.
    "parallel_multiple_94 call 1 (sort_list)",
    // `metrics: ["view"]` where the schema puts the string enum on the array itself.
    "live_simple_71-35-0 call 1 (extract_parameters_v1)",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    MissingRequired,
    WrongType,
    InventedArgument,
    UnknownFunction,
    OutsideEnum,
    NestedWrongType,
}

const KINDS: [Kind; 6] = [
    Kind::MissingRequired,
    Kind::WrongType,
    Kind::InventedArgument,
    Kind::UnknownFunction,
    Kind::OutsideEnum,
    Kind::NestedWrongType,
];

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::MissingRequired => "missing required argument",
            Kind::WrongType => "wrong type",
            Kind::InventedArgument => "invented argument",
            Kind::UnknownFunction => "unknown function",
            Kind::OutsideEnum => "value outside an enum",
            Kind::NestedWrongType => "wrong type inside a nested object",
        }
    }
}

/// A property's schema within a BFCL function's parameters.
fn prop<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    schema.get("properties")?.get(name)
}

fn required(schema: &Value) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

/// The test's own reading of BFCL type names.
fn json_kind(t: Option<&str>) -> Option<&'static str> {
    Some(match t? {
        "string" => "string",
        "integer" => "integer",
        "float" | "number" => "number",
        "boolean" => "boolean",
        "array" | "tuple" => "array",
        "dict" | "object" => "object",
        _ => return None,
    })
}

fn declared(schema: Option<&Value>) -> Option<&'static str> {
    json_kind(schema?.get("type")?.as_str())
}

/// One acceptable value from a BFCL option list, as BFCL's checker reads it: the first option,
/// where `""` means "omitted" — except for a required parameter, which cannot be omitted. A
/// dict option holds option lists itself (one level per nested object); `[]` for an array
/// parameter is the empty array.
fn choose(options: &Value, schema: Option<&Value>, is_required: bool) -> Option<Value> {
    let opts = options.as_array().unwrap();
    if opts.is_empty() {
        return (declared(schema) == Some("array")).then(|| json!([]));
    }
    let first = opts.iter().find(|o| !(is_required && *o == &json!("")))?;
    if first == &json!("") {
        return None;
    }
    Some(resolve(first, schema))
}

fn resolve(v: &Value, schema: Option<&Value>) -> Value {
    match v {
        Value::Object(m) if schema.is_some_and(|s| s.get("properties").is_some()) && m.values().all(Value::is_array) => {
            let s = schema.unwrap();
            let req = required(s);
            let mut out = Map::new();
            for (k, opts) in m {
                if let Some(x) = choose(opts, prop(s, k), req.contains(&k.as_str())) {
                    out.insert(k.clone(), x);
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|x| resolve(x, schema.and_then(|s| s.get("items")))).collect()),
        other => other.clone(),
    }
}

fn correct_calls(gt: &Value, functions: &[Value]) -> Vec<(String, Map<String, Value>)> {
    gt.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let (name, args) = c.as_object().unwrap().iter().next().unwrap();
            let f = functions.iter().find(|f| f["name"] == name.as_str()).unwrap();
            let params = &f["parameters"];
            let req = required(params);
            let mut out = Map::new();
            for (k, options) in args.as_object().unwrap() {
                if let Some(v) = choose(options, prop(params, k), req.contains(&k.as_str())) {
                    out.insert(k.clone(), v);
                }
            }
            (name.clone(), out)
        })
        .collect()
}

fn graph(id: &str, question: &str, functions: &[Value], calls: &[(String, Map<String, Value>)]) -> PredicateGraph {
    let mut g = PredicateGraph::empty(id, "");
    g.tool_calls = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| ToolCall {
            id: format!("tc{}", i + 1),
            name: name.clone(),
            arguments: args.clone(),
            span: Span::new(0, 0),
        })
        .collect();
    let names: Vec<Value> = functions.iter().map(|f| f["name"].clone()).collect();
    g.context = json!({"user_query": question, "tools_available": names, "tool_schemas": functions}).as_object().cloned();
    g
}

/// Warnings and errors per call: `node → [(pack, rule, diagnostics)]`.
type Findings = BTreeMap<String, Vec<(String, String, Vec<String>)>>;

fn findings(r: &RunResult) -> Findings {
    let mut out: Findings = BTreeMap::new();
    for (pack, _, v) in r.violations() {
        if v.severity == Severity::Info {
            continue;
        }
        let node = v.node_id.clone().unwrap_or_else(|| "graph".into());
        out.entry(node).or_default().push((pack.to_string(), v.rule_id.clone(), v.diagnostics.clone()));
    }
    out
}

fn flagged_by(f: &Findings, node: &str, pack: &str) -> bool {
    f.get(node).is_some_and(|v| v.iter().any(|(p, _, _)| p == pack))
}

const CORE: &str = "core.tool-use.v1";
const SCHEMA: &str = "warrant.tool-schema.v1";

/// A value of another JSON type than `kind`, as a model gets it wrong.
fn wrong_value(kind: &str, v: Option<&Value>) -> Value {
    match kind {
        "string" => json!(12345),
        "integer" | "number" => Value::String(v.map_or_else(|| "7".into(), Value::to_string)),
        "boolean" => json!("true"),
        _ => json!("not-a-container"),
    }
}

/// A value outside `options`, of the options' own type.
fn outside(options: &[Value]) -> Value {
    if options.iter().all(Value::is_number) {
        let max = options.iter().filter_map(Value::as_f64).fold(0.0, f64::max);
        return json!(max.floor() as i64 + 1000);
    }
    json!("zz_not_in_enum")
}

/// The mutant of `kind` for one call, and the JSON pointer the schema pack must report (or
/// `None` when there is nothing of that kind to mutate).
fn mutate(
    kind: Kind,
    name: &str,
    args: &Map<String, Value>,
    params: &Value,
    offered: &BTreeSet<&str>,
) -> Option<(String, Map<String, Value>, String)> {
    let mut m = args.clone();
    let keys: Vec<String> = args.keys().cloned().collect();
    match kind {
        Kind::MissingRequired => {
            let k = required(params).into_iter().find(|k| args.contains_key(*k))?;
            m.remove(k);
            Some((name.into(), m, format!("/{k}")))
        }
        Kind::WrongType => {
            let (k, t) = keys.iter().find_map(|k| declared(prop(params, k)).map(|t| (k, t)))?;
            m.insert(k.clone(), wrong_value(t, args.get(k)));
            Some((name.into(), m, format!("/{k}")))
        }
        Kind::InventedArgument => {
            m.insert("zz_invented_argument".into(), json!(1));
            Some((name.into(), m, "/zz_invented_argument".into()))
        }
        Kind::UnknownFunction => {
            let candidates = [
                name.replace('.', "_"),
                name.chars().next().map(|c| c.to_uppercase().chain(name.chars().skip(1)).collect()).unwrap_or_default(),
                format!("{name}_v2"),
            ];
            let new = candidates.into_iter().find(|n| n != name && !offered.contains(n.as_str()))?;
            Some((new, m, String::new()))
        }
        Kind::OutsideEnum => {
            let props = params.get("properties")?.as_object()?;
            for (k, s) in props {
                if let Some(e) = s.get("enum").and_then(Value::as_array) {
                    let bad = outside(e);
                    let bad = if declared(Some(s)) == Some("array") { json!([bad]) } else { bad };
                    m.insert(k.clone(), bad);
                    return Some((name.into(), m, format!("/{k}")));
                }
            }
            for (k, s) in props {
                if let Some(e) = s.get("items").and_then(|i| i.get("enum")).and_then(Value::as_array) {
                    m.insert(k.clone(), json!([outside(e)]));
                    return Some((name.into(), m, format!("/{k}/0")));
                }
            }
            for (k, s) in props {
                let (Some(inner), Some(Value::Object(obj))) = (s.get("properties").and_then(Value::as_object), args.get(k))
                else {
                    continue;
                };
                if let Some((q, e)) = inner.iter().find_map(|(q, qs)| qs.get("enum").and_then(Value::as_array).map(|e| (q, e))) {
                    let mut obj = obj.clone();
                    obj.insert(q.clone(), outside(e));
                    m.insert(k.clone(), Value::Object(obj));
                    return Some((name.into(), m, format!("/{k}/{q}")));
                }
            }
            None
        }
        Kind::NestedWrongType => {
            let props = params.get("properties")?.as_object()?;
            for (k, s) in props {
                // An array of objects that the call leaves out or empty gets one item.
                let (inner_schema, at) = match (declared(Some(s)), args.get(k)) {
                    (Some("object"), _) => (s, format!("/{k}")),
                    (Some("array"), None | Some(Value::Array(_))) if declared(s.get("items")) == Some("object") => {
                        (&s["items"], format!("/{k}/0"))
                    }
                    _ => continue,
                };
                let Some(inner) = inner_schema.get("properties").and_then(Value::as_object) else { continue };
                let current = match args.get(k) {
                    Some(Value::Object(o)) => o.clone(),
                    Some(Value::Array(items)) => items.first().and_then(Value::as_object).cloned().unwrap_or_default(),
                    _ => Map::new(),
                };
                // A member the call passes, else the first declared one.
                let pick = inner
                    .iter()
                    .filter(|(q, _)| current.contains_key(*q))
                    .chain(inner.iter())
                    .find_map(|(q, qs)| declared(Some(qs)).map(|t| (q.clone(), t)));
                let Some((q, t)) = pick else { continue };
                let mut obj = current.clone();
                obj.insert(q.clone(), wrong_value(t, current.get(&q)));
                let replaced = if at.ends_with("/0") {
                    let mut items = args.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
                    if items.is_empty() {
                        items.push(Value::Object(obj));
                    } else {
                        items[0] = Value::Object(obj);
                    }
                    Value::Array(items)
                } else {
                    Value::Object(obj)
                };
                m.insert(k.clone(), replaced);
                return Some((name.into(), m, format!("{at}/{q}")));
            }
            None
        }
    }
}

#[derive(Default, Clone, Copy)]
struct Correct {
    calls: usize,
    core: usize,
    schema: usize,
    both: usize,
}

#[derive(Default, Clone, Copy)]
struct Caught {
    mutants: usize,
    core: usize,
    schema: usize,
    either: usize,
}

fn pct(n: usize, d: usize) -> String {
    if d == 0 { "—".into() } else { format!("{:.4}", n as f64 / d as f64) }
}

/// The tables of correct calls passed and mutants caught (as bench/README.md shows them), with
/// the totals over categories and per kind of mutant.
fn figures(
    correct: &BTreeMap<&str, Correct>,
    caught: &BTreeMap<(Kind, &str), Caught>,
    failing_correct: &[String],
) -> (String, Correct, BTreeMap<Kind, Caught>) {
    let mut out = String::new();
    writeln!(out, "\nBFCL, correct calls passed (no warning, no error)").unwrap();
    writeln!(out, "| category | calls | core.tool-use.v1 alone (before) | warrant.tool-schema.v1 | both packs (after) |")
        .unwrap();
    writeln!(out, "|---|---|---|---|---|").unwrap();
    let mut all = Correct::default();
    for (cat, t) in correct {
        writeln!(
            out,
            "| {cat} | {} | {} | {} | {} |",
            t.calls,
            pct(t.core, t.calls),
            pct(t.schema, t.calls),
            pct(t.both, t.calls)
        )
        .unwrap();
        all.calls += t.calls;
        all.core += t.core;
        all.schema += t.schema;
        all.both += t.both;
    }
    writeln!(
        out,
        "| all | {} | {} | {} | {} |",
        all.calls,
        pct(all.core, all.calls),
        pct(all.schema, all.calls),
        pct(all.both, all.calls)
    )
    .unwrap();
    writeln!(out, "\nBFCL, mutants caught (a warning or an error on the mutated call)").unwrap();
    writeln!(
        out,
        "| mutation | category | mutants | core.tool-use.v1 alone (before) | warrant.tool-schema.v1 | both packs (after) |"
    )
    .unwrap();
    writeln!(out, "|---|---|---|---|---|---|").unwrap();
    let mut per_kind: BTreeMap<Kind, Caught> = BTreeMap::new();
    let mut grand = Caught::default();
    for ((kind, cat), t) in caught {
        writeln!(
            out,
            "| {} | {cat} | {} | {} | {} | {} |",
            kind.label(),
            t.mutants,
            pct(t.core, t.mutants),
            pct(t.schema, t.mutants),
            pct(t.either, t.mutants)
        )
        .unwrap();
        for acc in [per_kind.entry(*kind).or_default(), &mut grand] {
            acc.mutants += t.mutants;
            acc.core += t.core;
            acc.schema += t.schema;
            acc.either += t.either;
        }
    }
    for (kind, t) in &per_kind {
        writeln!(
            out,
            "| **{}** | all | {} | {} | {} | {} |",
            kind.label(),
            t.mutants,
            pct(t.core, t.mutants),
            pct(t.schema, t.mutants),
            pct(t.either, t.mutants)
        )
        .unwrap();
    }
    writeln!(
        out,
        "| **all kinds** | all | {} | {} | {} | {} |",
        grand.mutants,
        pct(grand.core, grand.mutants),
        pct(grand.schema, grand.mutants),
        pct(grand.either, grand.mutants)
    )
    .unwrap();
    writeln!(out, "\ncorrect calls flagged: {failing_correct:?}").unwrap();
    (out, all, per_kind)
}

#[test]
fn bfcl_correct_calls_pass_and_every_mutant_is_caught() {
    let Some(dir) = data_dir("bfcl") else { return };
    let packs: Vec<Pack> = [CORE, SCHEMA].iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect();
    let engine = Engine::default();
    let mut correct: BTreeMap<&str, Correct> = BTreeMap::new();
    let mut caught: BTreeMap<(Kind, &str), Caught> = BTreeMap::new();
    let mut failing_correct: Vec<String> = Vec::new();
    let mut missed: Vec<String> = Vec::new();
    for (category, file) in CATEGORIES {
        let questions = read_jsonl(&dir.join(format!("{file}.json")));
        let answers = read_jsonl(&dir.join(format!("possible_answer/{file}.json")));
        assert_eq!(questions.len(), answers.len(), "{file}");
        for (q, a) in questions.iter().zip(&answers) {
            assert_eq!(q["id"], a["id"]);
            let id = q["id"].as_str().unwrap();
            let functions = q["function"].as_array().unwrap();
            let question = q["question"][0][0]["content"].as_str().unwrap_or("");
            let offered: BTreeSet<&str> = functions.iter().filter_map(|f| f["name"].as_str()).collect();
            // The same functions with a root keyword that changes nothing but makes the schema
            // pack validate each call whole instead of per property: both must agree.
            let whole: Vec<Value> = functions
                .iter()
                .map(|f| {
                    let mut f = f.clone();
                    f["parameters"]["minProperties"] = json!(0);
                    f
                })
                .collect();
            let same_either_way = |calls: &[(String, Map<String, Value>)], f: &Findings| {
                let r = engine.evaluate(&packs, &graph(id, question, &whole, calls)).unwrap();
                assert_eq!(&findings(&r), f, "{id}: per-property and whole-schema checks disagree");
            };
            let calls = correct_calls(&a["ground_truth"], functions);
            let r = engine.evaluate(&packs, &graph(id, question, functions, &calls)).unwrap();
            assert!(r.diagnostics.iter().all(|d| d.severity == Severity::Info), "{id}: {:?}", r.diagnostics);
            let f = findings(&r);
            same_either_way(&calls, &f);
            let tally = correct.entry(category).or_default();
            let mut clean = Vec::with_capacity(calls.len());
            for (i, (name, _)) in calls.iter().enumerate() {
                let node = format!("tc{}", i + 1);
                let (core, schema) = (!flagged_by(&f, &node, CORE), !flagged_by(&f, &node, SCHEMA));
                tally.calls += 1;
                tally.core += usize::from(core);
                tally.schema += usize::from(schema);
                tally.both += usize::from(core && schema);
                if !(core && schema) {
                    failing_correct.push(format!("{id} call {} ({name})", i + 1));
                }
                clean.push(core && schema);
            }
            for (i, (name, args)) in calls.iter().enumerate() {
                if !clean[i] {
                    continue; // a mutant of a call that already fails proves nothing
                }
                let params = &functions.iter().find(|f| f["name"] == name.as_str()).unwrap()["parameters"];
                let node = format!("tc{}", i + 1);
                for kind in KINDS {
                    let Some((new_name, new_args, pointer)) = mutate(kind, name, args, params, &offered) else { continue };
                    let mut mutated = calls.clone();
                    mutated[i] = (new_name, new_args);
                    let r = engine.evaluate(&packs, &graph(id, question, functions, &mutated)).unwrap();
                    let f = findings(&r);
                    same_either_way(&mutated, &f);
                    let others_clean = f
                        .keys()
                        .filter(|n| **n != node)
                        .all(|n| n.strip_prefix("tc").and_then(|k| k.parse::<usize>().ok()).is_some_and(|k| !clean[k - 1]));
                    assert!(others_clean, "{id}: {kind:?} on {node} flagged other calls: {f:?}");
                    let (core, schema) = (flagged_by(&f, &node, CORE), flagged_by(&f, &node, SCHEMA));
                    let t = caught.entry((kind, category)).or_default();
                    t.mutants += 1;
                    t.core += usize::from(core);
                    t.schema += usize::from(schema);
                    t.either += usize::from(core || schema);
                    if !(core || schema) {
                        missed.push(format!("{id} call {} {kind:?}", i + 1));
                    }
                    // Where the schema pack catches a mutant, it says where.
                    if schema {
                        let diags: Vec<&String> =
                            f[&node].iter().filter(|(p, _, _)| p == SCHEMA).flat_map(|(_, _, d)| d.iter()).collect();
                        let expected = if kind == Kind::UnknownFunction {
                            "no parameter schema for tool ".into()
                        } else {
                            format!("{pointer}: ")
                        };
                        assert!(diags.iter().any(|d| d.starts_with(&expected)), "{id}: {kind:?}: {diags:?} (want {expected})");
                    }
                }
            }
        }
    }

    let (out, all, per_kind) = figures(&correct, &caught, &failing_correct);
    eprintln!("{out}");

    // ---- targets ----
    assert_eq!(all.calls, 2005, "every ground-truth call of the five categories");
    assert_eq!(correct.len(), 5);
    assert_eq!(failing_correct, CONTRADICTORY_GROUND_TRUTH, "only calls whose ground truth contradicts its schema are flagged");
    assert!(all.both as f64 / all.calls as f64 >= 0.99);
    assert!(missed.is_empty(), "mutants not caught: {missed:?}");
    assert_eq!(per_kind.len(), KINDS.len(), "every kind of mutant was made");
    for kind in [Kind::MissingRequired, Kind::WrongType, Kind::UnknownFunction, Kind::OutsideEnum, Kind::NestedWrongType] {
        let t = per_kind[&kind];
        assert_eq!(t.schema, t.mutants, "{kind:?}: warrant.tool-schema.v1 alone catches every one");
    }
    assert!(per_kind[&Kind::OutsideEnum].mutants > 300, "every clean call of a tool with an enum");
    assert!(per_kind[&Kind::NestedWrongType].mutants > 30, "every clean call of a tool with nested objects");
}

/// BFCL lists `null` (Python's `None`) as an acceptable value of some optional parameters.
/// Passed as `null`, such a call passes `warrant.tool-schema.v1` with an info note (null means
/// "not given"), while `core.tool-use.v1` keeps CAPE's strict top-level type check (§4.1).
#[test]
fn bfcl_null_for_an_optional_parameter_is_not_given() {
    let Some(dir) = data_dir("bfcl") else { return };
    let packs: Vec<Pack> = [CORE, SCHEMA].iter().map(|id| packs::builtin(id).unwrap().unwrap().clone()).collect();
    let engine = Engine::default();
    let (mut calls_with_null, mut schema_info_only, mut core_type_error) = (0, 0, 0);
    for (_, file) in CATEGORIES {
        let questions = read_jsonl(&dir.join(format!("{file}.json")));
        let answers = read_jsonl(&dir.join(format!("possible_answer/{file}.json")));
        for (q, a) in questions.iter().zip(&answers) {
            let id = q["id"].as_str().unwrap();
            let functions = q["function"].as_array().unwrap();
            let mut calls = correct_calls(&a["ground_truth"], functions);
            let mut nulled = Vec::new();
            for (i, c) in a["ground_truth"].as_array().unwrap().iter().enumerate() {
                let (_, args) = c.as_object().unwrap().iter().next().unwrap();
                for (k, options) in args.as_object().unwrap() {
                    if options.as_array().unwrap().contains(&Value::Null) {
                        calls[i].1.insert(k.clone(), Value::Null);
                        nulled.push(i);
                    }
                }
            }
            if nulled.is_empty() {
                continue;
            }
            let r = engine.evaluate(&packs, &graph(id, "", functions, &calls)).unwrap();
            nulled.dedup();
            for i in nulled {
                if CONTRADICTORY_GROUND_TRUTH.contains(&format!("{id} call {} ({})", i + 1, calls[i].0).as_str()) {
                    continue;
                }
                let node = format!("tc{}", i + 1);
                let on = |pack: &str| -> Vec<(String, Severity)> {
                    r.violations()
                        .filter(|(p, _, v)| *p == pack && v.node_id.as_deref() == Some(node.as_str()))
                        .map(|(_, _, v)| (v.rule_id.clone(), v.severity))
                        .collect()
                };
                calls_with_null += 1;
                let schema = on(SCHEMA);
                assert_eq!(schema, vec![("null-optional-args".to_string(), Severity::Info)], "{id} {node}");
                schema_info_only += 1;
                if on(CORE).contains(&("args-match-schema".to_string(), Severity::Error)) {
                    core_type_error += 1;
                }
            }
        }
    }
    eprintln!(
        "BFCL calls with null for optional parameters: {calls_with_null}; warrant.tool-schema.v1 info only: {schema_info_only}; core.tool-use.v1 args-match-schema error: {core_type_error}"
    );
    assert!(calls_with_null >= 20, "{calls_with_null}");
    assert_eq!(core_type_error, calls_with_null, "CAPE's strict check is unchanged");
}
