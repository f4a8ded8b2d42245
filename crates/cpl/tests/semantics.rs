//! Evaluator and loader semantics (spec §3–§5): every expression form, argument resolution
//! (D5), compare, custom predicates (D10), violations (D7), pass/fail (D6), load errors.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use serde_json::{Value, json};
use warrant_cpl::{Engine, LoadError, Pack, RunResult, load_pack, load_pack_or_policy};
use warrant_graph::{PredicateGraph, check_graph};

fn graph() -> PredicateGraph {
    let v = json!({
        "schema_version": "1.0.0", "output_id": "g1",
        "text": "Hi there! Paris is the capital of France. I think it is lovely. Visit in May.",
        "entities": [
            {"id": "e1", "text": "Paris", "type": "LOCATION", "span": {"start": 10, "end": 15}, "attributes": {"population": 2100000, "tags": ["city", "capital"]}},
            {"id": "e2", "text": "France", "type": "LOCATION", "span": {"start": 34, "end": 40}}
        ],
        "claims": [
            {"id": "c1", "text": "Paris is the capital of France", "modality": "factual", "span": {"start": 10, "end": 40}, "entity_refs": ["e1", "e2"]},
            {"id": "c2", "text": "I think it is lovely", "modality": "opinion", "span": {"start": 42, "end": 62}},
            {"id": "c3", "text": "Visit in May", "modality": "instruction", "span": {"start": 64, "end": 76}}
        ],
        "operations": [
            {"id": "op1", "type": "arithmetic", "operator": "add", "operands": [2, 2], "result": 4, "span": {"start": 0, "end": 1}},
            {"id": "op2", "type": "arithmetic", "operator": "add", "operands": [2, 2], "result": 5, "span": {"start": 0, "end": 1}}
        ],
        "tool_calls": [
            {"id": "tc1", "name": "search", "arguments": {"q": "paris", "limit": 5}, "span": {"start": 0, "end": 1}}
        ],
        "citations": [
            {"id": "cit1", "claim_id": "c1", "source": {"type": "url", "value": "https://example.org"}},
            {"id": "cit2", "claim_id": "c9", "source": {"type": "document", "value": "   "}}
        ],
        "code_blocks": [],
        "discourse_acts": [
            {"id": "da1", "type": "GREETING", "span": {"start": 0, "end": 9}},
            {"id": "da2", "type": "ASSERTION", "span": {"start": 10, "end": 41}, "claim_refs": ["c1"]},
            {"id": "da3", "type": "INSTRUCTION", "span": {"start": 64, "end": 200}}
        ],
        "context": {"user_query": "Tell me about Paris", "tools_available": ["search"]}
    });
    let r = check_graph(v);
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.graph.unwrap()
}

fn policy(rules: Value) -> Value {
    json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0", "rules": rules})
}

fn rule(expr: Value) -> Value {
    json!([{"rule_id": "r", "description": "", "expression": expr}])
}

fn load(expr: Value) -> Result<Pack, LoadError> {
    load_pack_or_policy(&policy(rule(expr)))
}

fn run_pack(p: &Pack) -> RunResult {
    Engine::default().evaluate(std::slice::from_ref(p), &graph()).unwrap()
}

/// Evaluates an expression as the single rule; returns the violations' node ids (None = graph).
fn run(expr: Value) -> Vec<Option<String>> {
    let p = load(expr.clone()).unwrap_or_else(|e| panic!("{expr}: {e}"));
    run_pack(&p).violations().map(|(_, _, v)| v.node_id.clone()).collect()
}

/// True when the expression, as a non-quantified top-level rule, holds.
fn holds(expr: Value) -> bool {
    run(expr).is_empty()
}

fn p(name: &str, args: &[&str]) -> Value {
    json!({"predicate": name, "args": args})
}
fn forall(var: &str, coll: &str, cond: Value) -> Value {
    json!({"forall": {"var": var, "in": coll, "condition": cond}})
}
fn exists(var: &str, coll: &str, cond: Value) -> Value {
    json!({"exists": {"var": var, "in": coll, "condition": cond}})
}
fn cmp(left: Value, op: &str, right: Value) -> Value {
    json!({"compare": {"left": left, "op": op, "right": right}})
}
fn field(path: &str) -> Value {
    json!({"field": path})
}

fn load_err(expr: Value) -> LoadError {
    load(expr.clone()).expect_err(&format!("should not load: {expr}"))
}

#[test]
fn quantifiers_and_d7_node_ids() {
    assert_eq!(run(forall("c", "claims", p("is_factual", &["c"]))), vec![Some("c2".into()), Some("c3".into())]);
    assert!(holds(forall("x", "code_blocks", p("contains_eval", &["x"]))), "forall over an empty collection is true");
    assert!(!holds(exists("x", "code_blocks", json!({"not": p("contains_eval", &["x"])}))), "exists over empty is false");
    assert!(holds(exists("c", "claims", p("is_factual", &["c"]))));
    assert_eq!(run(exists("c", "claims", p("has_citation", &["c"]))), Vec::<Option<String>>::new());
    assert_eq!(run(json!({"not": exists("c", "claims", p("is_factual", &["c"]))})), vec![None]);
    // Nested quantifiers only decide the outer element's truth.
    let nested = forall("c", "claims", exists("d", "discourse_acts", p("has_discourse_type", &["d", "GREETING"])));
    assert!(holds(nested));
}

#[test]
fn boolean_forms() {
    let yes = exists("c", "claims", p("is_factual", &["c"]));
    let no = exists("e", "entities", p("has_type", &["e", "PERSON"]));
    assert!(holds(json!({"and": [yes, yes]})));
    assert!(!holds(json!({"and": [yes, no]})));
    assert!(holds(json!({"or": [no, yes]})));
    assert!(!holds(json!({"or": [no, no]})));
    assert!(holds(json!({"not": no})));
    assert!(holds(json!({"implies": {"if": no, "then": no}})));
    assert!(!holds(json!({"implies": {"if": yes, "then": no}})));
    assert!(holds(json!({"implies": {"if": yes, "then": yes}})));
}

#[test]
fn simple_predicates_true_false_and_missing_fields() {
    assert_eq!(run(forall("c", "claims", p("has_citation", &["c"]))), vec![Some("c2".into()), Some("c3".into())]);
    assert_eq!(run(forall("x", "citations", p("has_valid_source", &["x"]))), vec![Some("cit2".into())]);
    assert_eq!(run(forall("x", "citations", p("refs_existing_claim", &["x"]))), vec![Some("cit2".into())]);
    assert_eq!(
        run(forall("d", "discourse_acts", p("has_discourse_type", &["d", "GREETING"]))),
        vec![Some("da2".into()), Some("da3".into())]
    );
    assert_eq!(run(forall("e", "entities", p("has_type", &["e", "LOCATION"]))), Vec::<Option<String>>::new());
    assert_eq!(run(forall("e", "entities", p("has_type", &["e", "location"]))).len(), 2, "has_type is exact");
    assert_eq!(run(forall("o", "operations", p("result_correct", &["o"]))), vec![Some("op2".into())]);
    assert!(holds(forall("t", "tool_calls", p("tool_is_available", &["t"]))));
    // A discourse act whose span runs past the text is clamped, not an error.
    assert!(holds(forall("d", "discourse_acts", p("is_professional_tone", &["d"]))));
    assert!(holds(forall("c", "claims", p("is_professional_tone", &["c"]))));
}

#[test]
fn predicate_messages_name_rule_node_atom_and_diagnostic() {
    let pk = load(forall("x", "citations", p("refs_existing_claim", &["x"]))).unwrap();
    let r = run_pack(&pk);
    let (_, _, v) = r.violations().next().unwrap();
    assert_eq!(v.message, "p/r failed on cit2: refs_existing_claim(cit2) is false; citation cit2 references unknown claim c9");
    let pk = load(forall("o", "operations", p("result_correct", &["o"]))).unwrap();
    let (_, _, v) = run_pack(&pk).violations().next().map(|(a, b, c)| (a.to_string(), b.to_string(), c.clone())).unwrap();
    assert_eq!(v.message, "p/r failed on op2: result_correct(op2) is false; add of 2, 2 is 4, stated 5");
    let pk = load(json!({"and": [exists("c", "claims", p("is_factual", &["c"])), exists("e", "entities", p("has_type", &["e", "PERSON"]))]})).unwrap();
    let (_, _, v) = run_pack(&pk).violations().next().map(|(a, b, c)| (a.to_string(), b.to_string(), c.clone())).unwrap();
    assert_eq!(v.message, "p/r failed on graph: no element of entities satisfies has_type(e, \"PERSON\")");
}

#[test]
fn compare_semantics() {
    assert_eq!(run(forall("t", "tool_calls", cmp(field("t.arguments.limit"), "<=", json!(10)))), Vec::<Option<String>>::new());
    assert_eq!(
        run(forall("t", "tool_calls", cmp(field("t.arguments.limit"), "==", json!(5.0)))),
        Vec::<Option<String>>::new(),
        "1 == 1.0"
    );
    assert_eq!(run(forall("t", "tool_calls", cmp(field("t.name"), "==", json!("search")))), Vec::<Option<String>>::new());
    assert_eq!(
        run(forall("t", "tool_calls", cmp(json!("t.name"), "==", json!("search")))).len(),
        1,
        "a plain string is a literal"
    );
    assert_eq!(run(forall("e", "entities", cmp(field("e.attributes.tags.1"), "==", json!("capital")))), vec![Some("e2".into())]);
    assert_eq!(run(forall("e", "entities", cmp(field("e.attributes.population"), ">", json!(1000000)))), vec![Some("e2".into())]);
    // A missing field makes even != false.
    assert_eq!(run(forall("t", "tool_calls", cmp(field("t.arguments.missing"), "!=", json!(1)))).len(), 1);
    // Mixed-type ordering is false; string ordering is by code point.
    assert_eq!(run(forall("t", "tool_calls", cmp(field("t.arguments.q"), "<", json!(5)))).len(), 1);
    assert!(run(forall("t", "tool_calls", cmp(field("t.arguments.q"), "<", json!("q")))).is_empty());
    assert!(run(forall("c", "claims", cmp(field("c.span.start"), ">=", json!(10)))).is_empty());
    assert!(holds(cmp(json!([1, {"a": 2}]), "==", json!([1.0, {"a": 2.00}]))));
    assert!(holds(cmp(json!(1), "!=", json!("1"))));
    let pk = load(forall("t", "tool_calls", cmp(field("t.arguments.q"), "<", json!(5)))).unwrap();
    let (_, _, v) = run_pack(&pk).violations().next().map(|(a, b, c)| (a.to_string(), b.to_string(), c.clone())).unwrap();
    assert_eq!(v.message, "p/r failed on tc1: tc1.arguments.q < 5 is false; cannot order string and number");
    let pk = load(forall("t", "tool_calls", cmp(field("t.arguments.zz"), "==", json!(5)))).unwrap();
    let (_, _, v) = run_pack(&pk).violations().next().map(|(a, b, c)| (a.to_string(), b.to_string(), c.clone())).unwrap();
    assert_eq!(v.diagnostics, vec!["field \"t.arguments.zz\" not found".to_string()]);
}

#[test]
fn shadowing_quantifier_variables() {
    // The inner `x` (claims) shadows the outer `x` (entities).
    let e = forall("x", "entities", exists("x", "claims", p("is_factual", &["x"])));
    assert!(holds(e));
}

#[test]
fn custom_predicates_policy_and_pack_level() {
    let pol = json!({
        "policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
        "custom_predicates": {
            "cited_fact": {"params": ["c"], "expression": {"implies": {"if": p("is_factual", &["c"]), "then": p("has_citation", &["c"])}}},
            "typed": {"params": ["d", "t"], "expression": p("has_discourse_type", &["d", "t"])}
        },
        "rules": [
            {"rule_id": "r1", "description": "", "expression": forall("c", "claims", p("cited_fact", &["c"]))},
            {"rule_id": "r2", "description": "", "expression": exists("d", "discourse_acts", p("typed", &["d", "CLOSING"]))}
        ]
    });
    let pk = load_pack_or_policy(&pol).unwrap();
    let r = run_pack(&pk);
    let ids: Vec<_> = r.violations().map(|(_, _, v)| (v.rule_id.clone(), v.node_id.clone())).collect();
    assert_eq!(ids, vec![("r2".to_string(), None)]);
    let (_, _, v) = r.violations().next().unwrap();
    assert!(
        v.message.starts_with("p/r2 failed on graph: no element of discourse_acts satisfies typed(d, \"CLOSING\")"),
        "{}",
        v.message
    );

    let pack = json!({
        "pack_id": "test.custom-preds.v1", "name": "T", "description": "", "version": "1.0.0",
        "custom_predicates": {
            "greets": {"params": [], "expression": exists("d", "discourse_acts", p("has_discourse_type", &["d", "GREETING"]))},
            "is_opinion": {"params": ["c"], "expression": cmp(field("c.modality"), "==", json!("opinion"))}
        },
        "policies": [
            {"policy_id": "a", "name": "A", "description": "", "version": "1.0.0",
             "rules": [{"rule_id": "g", "description": "", "expression": p("greets", &[])}]},
            {"policy_id": "b", "name": "B", "description": "", "version": "1.0.0",
             "custom_predicates": {"greets": {"params": [], "expression": exists("d", "discourse_acts", p("has_discourse_type", &["d", "CLOSING"]))}},
             "rules": [{"rule_id": "g", "description": "", "expression": p("greets", &[])},
                       {"rule_id": "o", "description": "", "expression": forall("c", "claims", json!({"not": p("is_opinion", &["c"])}))}]}
        ]
    });
    let pk = load_pack(&pack).unwrap();
    assert!(pk.uses_pack_predicates);
    assert!(pk.warnings.iter().any(|w| w.message.contains("shadows")), "{:?}", pk.warnings);
    let r = run_pack(&pk);
    let got: Vec<_> = r.violations().map(|(_, pol, v)| (pol.to_string(), v.rule_id.clone(), v.node_id.clone())).collect();
    assert_eq!(got, vec![("b".into(), "g".into(), None), ("b".into(), "o".into(), Some("c2".into()))]);
}

#[test]
fn custom_predicate_bodies_do_not_see_caller_variables() {
    let pol = json!({
        "policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
        "custom_predicates": {"leaky": {"params": [], "expression": p("is_factual", &["c"])}},
        "rules": [{"rule_id": "r", "description": "", "expression": forall("c", "claims", p("leaky", &[]))}]
    });
    let e = load_pack_or_policy(&pol).unwrap_err();
    assert_eq!(e.pointer, "/custom_predicates/leaky/expression/args/0");
    assert!(e.message.contains("string literal"), "{}", e.message);
}

#[test]
fn load_errors_are_located_and_explained() {
    let cases: Vec<(Value, &str, &str)> = vec![
        (forall("c", "claimz", p("is_factual", &["c"])), "/rules/0/expression/forall/in", "unknown collection \"claimz\""),
        (
            forall("c", "claims", p("is_true", &["c"])),
            "/rules/0/expression/forall/condition/predicate",
            "unknown predicate 'is_true'",
        ),
        (
            forall("c", "claims", p("is_factual", &[])),
            "/rules/0/expression/forall/condition/args",
            "is_factual expects 1 argument(s), got 0",
        ),
        (p("has_citation", &["c1"]), "/rules/0/expression/args/0", "\"c1\" is a string literal"),
        (
            forall("t", "tool_calls", p("has_citation", &["t"])),
            "/rules/0/expression/forall/condition/args/0",
            "'t' ranges over tool_calls",
        ),
        (
            forall("d", "discourse_acts", p("has_discourse_type", &["d", "d"])),
            "/rules/0/expression/forall/condition/args/1",
            "must be a string literal",
        ),
        (cmp(field("z.name"), "==", json!(1)), "/rules/0/expression/compare/left/field", "'z' is not a bound variable"),
        (json!({"and": [p("is_factual", &["x"])]}), "/rules/0/expression/and", "at least 2 expressions"),
        (json!({"not": p("is_factual", &["x"]), "or": []}), "/rules/0/expression", "exactly one of"),
        (json!({"xor": []}), "/rules/0/expression", "unknown expression form `xor`"),
        (json!({"predicate": "is_factual", "args": [1]}), "/rules/0/expression/args/0", "predicate arguments are strings"),
        (json!({"predicate": "is_factual"}), "/rules/0/expression", "missing required key `args`"),
        (json!({"verifier": {"id": "v", "threshold": 2}}), "/rules/0/expression/verifier/threshold", "between 0 and 1"),
        (json!({"compare": {"left": 1, "op": "=~", "right": 1}}), "/rules/0/expression/compare/op", "expected one of"),
        (json!("is_factual"), "/rules/0/expression", "expected an expression object"),
    ];
    for (expr, ptr, msg) in cases {
        let e = load_err(expr.clone());
        assert_eq!(e.pointer, ptr, "{expr}: {e}");
        assert!(e.message.contains(msg), "{expr}: {}", e.message);
    }
}

#[test]
fn custom_predicate_load_errors() {
    let with = |preds: Value, expr: Value| {
        load_pack_or_policy(&json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0",
            "custom_predicates": preds, "rules": [{"rule_id": "r", "description": "", "expression": expr}]}))
    };
    let e = with(
        json!({"a": {"params": [], "expression": p("b", &[])}, "b": {"params": [], "expression": p("a", &[])}}),
        p("a", &[]),
    )
    .unwrap_err();
    assert!(e.message.contains("cycle: a → b → a"), "{}", e.message);
    let e = with(json!({"self": {"params": ["c"], "expression": p("self", &["c"])}}), p("self", &["x"])).unwrap_err();
    assert!(e.message.contains("cycle"), "{}", e.message);
    let e = with(json!({"is_factual": {"params": ["c"], "expression": p("has_citation", &["c"])}}), p("is_factual", &["x"]))
        .unwrap_err();
    assert!(e.message.contains("clashes with the built-in"), "{}", e.message);
    let e = with(
        json!({"f": {"params": ["c"], "expression": p("has_citation", &["c"])}}),
        forall("c", "claims", p("f", &["c", "c"])),
    )
    .unwrap_err();
    assert!(e.message.contains("f expects 1 argument(s), got 2"), "{}", e.message);
    let e =
        with(json!({"f": {"params": ["c"], "expression": p("has_citation", &["c"])}}), forall("t", "tool_calls", p("f", &["t"])))
            .unwrap_err();
    assert!(e.message.contains("must be a claim"), "{}", e.message);
    let e = with(
        json!({"f": {"params": ["c"], "expression": {"and": [p("has_citation", &["c"]), p("tool_is_available", &["c"])]}}}),
        forall("c", "claims", p("f", &["c"])),
    )
    .unwrap_err();
    assert!(e.message.contains("parameter 'c'"), "{}", e.message);
    let e = with(json!({"f": {"params": ["c", "c"], "expression": p("has_citation", &["c"])}}), p("f", &["x", "y"])).unwrap_err();
    assert!(e.message.contains("duplicate parameter"), "{}", e.message);
}

#[test]
fn duplicate_rule_and_policy_ids_are_load_errors() {
    let r = json!({"rule_id": "r", "description": "", "expression": exists("c", "claims", p("is_factual", &["c"]))});
    let e = load_pack_or_policy(&policy(json!([r, r]))).unwrap_err();
    assert_eq!(e.pointer, "/rules/1/rule_id");
    let pol = json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0", "rules": [r]});
    let e = load_pack(&json!({"pack_id": "a.b.v1", "name": "n", "description": "", "version": "1.0.0", "policies": [pol, pol]}))
        .unwrap_err();
    assert_eq!(e.pointer, "/policies/1/policy_id");
}

#[test]
fn schema_violations_in_policies_and_packs() {
    let e = load_pack_or_policy(&json!({"policy_id": "p", "name": "P", "version": "1.0.0", "rules": rule(exists("c", "claims", p("is_factual", &["c"])))})).unwrap_err();
    assert!(e.message.contains("description"), "{e}");
    let e =
        load_pack(&json!({"pack_id": "Bad_Id", "name": "n", "description": "", "version": "1.0.0", "policies": []})).unwrap_err();
    assert!(e.pointer == "/pack_id" || e.pointer == "/policies", "{e}");
}

#[test]
fn severity_and_strict_decide_pass() {
    let pol = json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0", "rules": [
        {"rule_id": "w", "description": "", "severity": "warning", "expression": forall("c", "claims", p("is_factual", &["c"]))},
        {"rule_id": "i", "description": "", "severity": "info", "expression": forall("c", "claims", p("is_factual", &["c"]))}
    ]});
    let pk = load_pack_or_policy(&pol).unwrap();
    let lax = Engine::default().evaluate(std::slice::from_ref(&pk), &graph()).unwrap();
    assert!(lax.passed);
    assert_eq!(lax.violations().count(), 4);
    let strict = Engine { strict: true, ..Engine::default() }.evaluate(&[pk], &graph()).unwrap();
    assert!(!strict.passed, "warnings fail under --strict; info never does");
}

#[test]
fn dependencies_run_first_and_must_resolve() {
    let base = json!({"pack_id": "base.dep.v1", "name": "B", "description": "", "version": "1.2.0", "policies": [
        {"policy_id": "b", "name": "B", "description": "", "version": "1.0.0", "rules": [{"rule_id": "r", "description": "", "expression": exists("c", "claims", p("is_factual", &["c"]))}]}]});
    let top = |constraint: &str| {
        json!({"pack_id": "top.dep.v1", "name": "T", "description": "", "version": "1.0.0",
        "dependencies": [{"pack_id": "base.dep.v1", "version": constraint}],
        "policies": [{"policy_id": "t", "name": "T", "description": "", "version": "1.0.0", "rules": [{"rule_id": "r", "description": "", "expression": exists("c", "claims", p("is_factual", &["c"]))}]}]})
    };
    let packs = vec![load_pack(&top("^1.0.0")).unwrap(), load_pack(&base).unwrap()];
    let r = Engine::default().evaluate(&packs, &graph()).unwrap();
    let order: Vec<&str> = r.packs.iter().map(|p| p.pack_id.as_str()).collect();
    assert_eq!(order, vec!["base.dep.v1", "top.dep.v1"]);
    let packs = vec![load_pack(&top(">=2.0.0")).unwrap(), load_pack(&base).unwrap()];
    let e = Engine::default().evaluate(&packs, &graph()).unwrap_err();
    assert!(e.to_string().contains("unresolved dependency base.dep.v1 >=2.0.0"), "{e}");
}

#[test]
fn results_are_deterministic() {
    let pk = load(forall("c", "claims", p("has_citation", &["c"]))).unwrap();
    let a = serde_json::to_string(&run_pack(&pk)).unwrap();
    let b = serde_json::to_string(&run_pack(&pk)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn unknown_discourse_type_literal_is_a_load_warning() {
    let pk = load(exists("d", "discourse_acts", p("has_discourse_type", &["d", "QUESTION"]))).unwrap();
    assert_eq!(pk.warnings.len(), 1);
    assert!(pk.warnings[0].message.contains("not a discourse act type"));
}

#[test]
fn tool_schemas_in_context_are_used() {
    let mut g = graph();
    g.context.as_mut().unwrap().insert("tool_schemas".into(), json!([{"name": "search", "parameters": {"properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]}}]));
    let pk = warrant_cpl::packs::builtin("core.tool-use.v1").unwrap().unwrap().clone();
    let r = Engine::default().evaluate(std::slice::from_ref(&pk), &g).unwrap();
    assert!(r.passed, "{:?}", r.violations().map(|(_, _, v)| v.message.clone()).collect::<Vec<_>>());
    g.context.as_mut().unwrap().insert("tool_schemas".into(), json!({"not": "an array"}));
    let e = Engine::default().evaluate(&[pk], &g).unwrap_err();
    assert!(e.to_string().contains("/context/tool_schemas"), "{e}");
}

/// A registry with fixed scores, standing in for a configured judge.
struct FixedScores(Vec<(&'static str, Result<f64, warrant_cpl::Unavailable>)>);

impl warrant_cpl::VerifierRegistry for FixedScores {
    fn is_registered(&self, id: &str) -> bool {
        self.0.iter().any(|(i, _)| *i == id)
    }
    fn score(&self, id: &str, _g: &PredicateGraph) -> Result<f64, warrant_cpl::Unavailable> {
        self.0.iter().find(|(i, _)| *i == id).map(|(_, s)| s.clone()).unwrap_or(Err(warrant_cpl::Unavailable::NotRegistered))
    }
}

#[test]
fn verifier_scores_compare_against_the_threshold() {
    use warrant_cpl::Unavailable;
    let pol = json!({"policy_id": "p", "name": "P", "description": "", "version": "1.0.0", "rules": [
        {"rule_id": "sound", "description": "", "expression": {"verifier": {"id": "verifier.reasoning.argument_soundness", "threshold": 0.7}}},
        {"rule_id": "mixed", "description": "", "expression": {"and": [
            exists("c", "claims", p("is_factual", &["c"])),
            {"verifier": {"id": "verifier.mathematics.proof_validity", "threshold": 0.5}}]}}
    ]});
    let pk = load_pack_or_policy(&pol).unwrap();
    let run_with = |scores: FixedScores| {
        Engine { verifiers: Box::new(scores), ..Engine::default() }.evaluate(std::slice::from_ref(&pk), &graph()).unwrap()
    };
    let r = run_with(FixedScores(vec![
        ("verifier.reasoning.argument_soundness", Ok(0.9)),
        ("verifier.mathematics.proof_validity", Ok(0.2)),
    ]));
    let pr = &r.packs[0].policy_results[0];
    assert_eq!(pr.violations.len(), 1);
    assert_eq!(pr.violations[0].rule_id, "mixed");
    assert_eq!(
        pr.violations[0].message,
        "p/mixed failed on graph: verifier verifier.mathematics.proof_validity score 0.2 >= 0.5 is false"
    );
    let r = run_with(FixedScores(vec![
        ("verifier.reasoning.argument_soundness", Ok(0.7)),
        ("verifier.mathematics.proof_validity", Err(Unavailable::Failed("timeout".into()))),
    ]));
    let pr = &r.packs[0].policy_results[0];
    assert!(pr.violations.is_empty(), "0.7 >= 0.7 holds");
    assert_eq!(pr.skipped_rules.len(), 1);
    assert_eq!(pr.skipped_rules[0].reason, "verifier verifier.mathematics.proof_validity failed: timeout");
    let r = run_with(FixedScores(vec![("verifier.reasoning.argument_soundness", Err(Unavailable::InvalidOutput))]));
    let reasons: Vec<_> = r.packs[0].policy_results[0].skipped_rules.iter().map(|s| s.reason.clone()).collect();
    assert_eq!(
        reasons,
        vec![
            "verifier verifier.reasoning.argument_soundness returned output that does not match its output_schema".to_string(),
            "verifier verifier.mathematics.proof_validity not registered".to_string()
        ]
    );
}

#[test]
fn professional_tone_reads_discourse_act_text_from_the_graph() {
    let mut g = graph();
    g.text = "OMG this is SO BAD LOL!!! Anyway, Paris is the capital.".into();
    g.discourse_acts[0].span = warrant_graph::Span::new(0, 25);
    g.discourse_acts[1].span = warrant_graph::Span::new(26, 55);
    let pk = load(forall("d", "discourse_acts", p("is_professional_tone", &["d"]))).unwrap();
    let r = Engine::default().evaluate(std::slice::from_ref(&pk), &g).unwrap();
    let v: Vec<_> = r.violations().map(|(_, _, v)| (v.node_id.clone(), v.diagnostics.clone())).collect();
    assert_eq!(v, vec![(Some("da1".to_string()), vec!["unprofessional language: slang ('omg')".to_string()])]);
}

#[test]
fn is_safe_combines_the_three_code_detectors() {
    let mk = |code: &str| {
        let mut g = graph();
        g.code_blocks = vec![warrant_graph::CodeBlock {
            id: "cb1".into(),
            language: "python".into(),
            code: code.into(),
            span: Default::default(),
        }];
        g
    };
    let pk = load(forall("b", "code_blocks", p("is_safe", &["b"]))).unwrap();
    let diag = |code: &str| {
        let r = Engine::default().evaluate(std::slice::from_ref(&pk), &mk(code)).unwrap();
        r.violations().map(|(_, _, v)| v.diagnostics.join("|")).collect::<Vec<_>>()
    };
    assert_eq!(diag("import json\nprint(json.dumps({}))"), Vec::<String>::new());
    assert_eq!(diag("import pickle\nx = 1"), Vec::<String>::new(), "unsafe imports are not part of is_safe");
    assert_eq!(diag("exec(open('x').read())"), vec!["exec( at line 1".to_string()]);
    assert_eq!(diag("import os\nos.system('rm ' + input())"), vec!["untrusted input() reaches os.system( at line 2".to_string()]);
    assert_eq!(diag("password = 'hunter2'"), vec!["hard-coded credential in 'password' at line 1".to_string()]);
}

#[test]
fn verification_predicates_read_the_claim_verification() {
    // Unverified graph: nothing is supported or contradicted; everything is unverified.
    let unverified = |name: &str| run(forall("c", "claims", p(name, &["c"])));
    assert_eq!(unverified("is_supported"), vec![Some("c1".into()), Some("c2".into()), Some("c3".into())]);
    assert!(unverified("is_unverified").is_empty());

    let mut g = graph();
    let ctx = g.context.get_or_insert_with(Default::default);
    ctx.insert(
        "claim_verification".into(),
        json!({"c1": {"status": "supported"}, "c2": {"status": "contradicted", "reason": "the source states otherwise"}, "c3": {"status": "unverified"}}),
    );
    let pack = warrant_cpl::packs::builtin("warrant.grounding.v1").unwrap().unwrap();
    let r = Engine::default().evaluate(std::slice::from_ref(pack), &g).unwrap();
    let violations: Vec<(String, Option<String>, String)> =
        r.violations().map(|(_, p, v)| (p.to_string(), v.node_id.clone(), v.message.clone())).collect();
    // c2 is an opinion: not required to be supported, but its contradiction is an error.
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].0, "no-contradicted-claims");
    assert_eq!(violations[0].1.as_deref(), Some("c2"));
    // c1 factual and supported passes; make it unsupported and the warning fires.
    g.context
        .as_mut()
        .unwrap()
        .insert("claim_verification".into(), json!({"c1": {"status": "unsupported", "reason": "no source states it"}}));
    let r = Engine::default().evaluate(std::slice::from_ref(pack), &g).unwrap();
    let v: Vec<_> = r.violations().map(|(_, p, v)| (p.to_string(), v.node_id.clone(), v.message.clone())).collect();
    assert_eq!(v.len(), 1);
    assert_eq!((v[0].0.as_str(), v[0].1.as_deref()), ("factual-claims-supported", Some("c1")));
    assert!(v[0].2.contains("unsupported: no source states it"), "{}", v[0].2);
}
