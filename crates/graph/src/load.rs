//! Loading and checking PredicateGraphs: schema, version (D11), ids, and lints (D9).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use serde::Serialize;
use serde_json::Value;

use crate::model::PredicateGraph;
use crate::schema::{CompiledSchema, SchemaError};

static GRAPH_SCHEMA_JSON: &str = include_str!("../schemas/predicate-graph-1.0.0.schema.json");

static GRAPH_SCHEMA: LazyLock<CompiledSchema> = LazyLock::new(|| {
    // The embedded schema is covered by tests; failing here is a build defect, not bad input.
    CompiledSchema::compile(GRAPH_SCHEMA_JSON).unwrap_or_else(|e| panic!("embedded PredicateGraph schema: {e}"))
});

/// The embedded PredicateGraph JSON Schema text.
pub fn graph_schema_json() -> &'static str {
    GRAPH_SCHEMA_JSON
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Makes the artefact invalid.
    Error,
    /// Reported; fails only under `--strict`.
    Warning,
    /// Informational.
    Info,
}

/// A finding about an artefact, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Diagnostic {
    /// How serious it is.
    #[serde(skip)]
    pub severity: Severity,
    /// JSON pointer into the artefact (`""` for the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Diagnostic {
    /// An error at `path`.
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, path: path.into(), message: message.into() }
    }
    /// A warning at `path`.
    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, path: path.into(), message: message.into() }
    }
    /// An info note at `path`.
    pub fn info(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Info, path: path.into(), message: message.into() }
    }
}

impl From<SchemaError> for Diagnostic {
    fn from(e: SchemaError) -> Self {
        Self::error(e.pointer, e.message)
    }
}

/// Outcome of checking one graph document.
#[derive(Debug, Clone, Default)]
pub struct GraphReport {
    /// Errors, best match first. Non-empty means invalid.
    pub errors: Vec<Diagnostic>,
    /// Lints and compatibility notes.
    pub warnings: Vec<Diagnostic>,
    /// The typed graph, when there were no errors.
    pub graph: Option<PredicateGraph>,
}

impl GraphReport {
    fn fail(errors: Vec<Diagnostic>, warnings: Vec<Diagnostic>) -> Self {
        Self { errors, warnings, graph: None }
    }
}

/// Parses a `MAJOR.MINOR.PATCH` string.
pub fn parse_semver(s: &str) -> Option<(u64, u64, u64)> {
    let mut it = s.split('.');
    let mut part = || -> Option<u64> {
        let p = it.next()?;
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        p.parse().ok().or(Some(u64::MAX))
    };
    let v = (part()?, part()?, part()?);
    it.next().is_none().then_some(v)
}

/// Checks a parsed JSON document as a PredicateGraph.
///
/// Order: `schema_version` major (D11: another major is the only error reported), the
/// schema (with unknown keys downgraded to warnings when the minor is newer than ours),
/// duplicate ids (errors), then lints (warnings): spans (D9), dangling references and
/// discourse-act cycles.
pub fn check_graph(mut value: Value) -> GraphReport {
    let mut warnings = Vec::new();
    let mut tolerant = false;
    if let Some(v) = value.get("schema_version").and_then(Value::as_str)
        && let Some((major, minor, _)) = parse_semver(v)
    {
        if major != 1 {
            let msg = format!("unsupported schema_version \"{v}\": only major version 1 is supported");
            return GraphReport::fail(vec![Diagnostic::error("/schema_version", msg)], warnings);
        }
        if minor > 0 {
            warnings.push(Diagnostic::warning(
                "/schema_version",
                format!("schema_version \"{v}\" is newer than 1.0; unknown fields are tolerated"),
            ));
            tolerant = true;
        }
    }

    let schema_errors = GRAPH_SCHEMA.errors(&value);
    let mut errors = Vec::new();
    let mut unknown: Vec<(String, String)> = Vec::new();
    for e in schema_errors {
        if tolerant && e.keyword == "additionalProperties" {
            for key in &e.unexpected {
                warnings.push(Diagnostic::warning(e.pointer.clone(), format!("unknown field '{key}' ignored")));
                unknown.push((e.pointer.clone(), key.clone()));
            }
        } else {
            errors.push(Diagnostic::from(e));
        }
    }
    if !errors.is_empty() {
        return GraphReport::fail(errors, warnings);
    }
    for (pointer, key) in &unknown {
        if let Some(Value::Object(map)) = value.pointer_mut(pointer) {
            map.remove(key);
        }
    }

    let graph: PredicateGraph = match serde_json::from_value(value) {
        Ok(g) => g,
        Err(e) => return GraphReport::fail(vec![Diagnostic::error("", e.to_string())], warnings),
    };

    let dup = duplicate_ids(&graph);
    if !dup.is_empty() {
        return GraphReport::fail(dup, warnings);
    }
    lint(&graph, &mut warnings);
    GraphReport { errors: Vec::new(), warnings, graph: Some(graph) }
}

/// Parses JSON text and checks it as a graph. A syntax error is reported with its line and
/// column at the document root.
pub fn parse_graph(text: &str) -> GraphReport {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => check_graph(v),
        Err(e) => GraphReport::fail(vec![Diagnostic::error("", format!("invalid JSON: {e}"))], Vec::new()),
    }
}

fn duplicate_ids(g: &PredicateGraph) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut check = |collection: &str, ids: &mut dyn Iterator<Item = &str>| {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, id) in ids.enumerate() {
            if let Some(first) = seen.insert(id, i) {
                seen.insert(id, first);
                out.push(Diagnostic::error(
                    format!("/{collection}/{i}/id"),
                    format!("duplicate id '{id}' (first used at /{collection}/{first}); node ids must be unique"),
                ));
            }
        }
    };
    check("entities", &mut g.entities.iter().map(|n| n.id.as_str()));
    check("claims", &mut g.claims.iter().map(|n| n.id.as_str()));
    check("operations", &mut g.operations.iter().map(|n| n.id.as_str()));
    check("tool_calls", &mut g.tool_calls.iter().map(|n| n.id.as_str()));
    check("citations", &mut g.citations.iter().map(|n| n.id.as_str()));
    check("code_blocks", &mut g.code_blocks.iter().map(|n| n.id.as_str()));
    check("discourse_acts", &mut g.discourse_acts.iter().map(|n| n.id.as_str()));
    out
}

/// Span, reference and cycle lints (all warnings).
pub fn lint(g: &PredicateGraph, out: &mut Vec<Diagnostic>) {
    let len = warrant_text::char_len(&g.text) as u64;
    let mut span_lint = |path: String, span: crate::Span, own_text: Option<&str>| {
        if span.start > span.end {
            out.push(Diagnostic::warning(
                format!("{path}/span"),
                format!("span start {} is after its end {}", span.start, span.end),
            ));
        } else if span.end > len {
            out.push(Diagnostic::warning(
                format!("{path}/span"),
                format!("span end {} is past the end of the text ({len} chars)", span.end),
            ));
        } else if let Some(own) = own_text {
            let under = g.slice(span);
            if under.trim() != own.trim() {
                out.push(Diagnostic::warning(
                    format!("{path}/span"),
                    format!("span covers {:?}, not the node text {:?}", preview(under), preview(own)),
                ));
            }
        }
    };
    for (i, n) in g.entities.iter().enumerate() {
        span_lint(format!("/entities/{i}"), n.span, Some(&n.text));
    }
    for (i, n) in g.claims.iter().enumerate() {
        span_lint(format!("/claims/{i}"), n.span, Some(&n.text));
    }
    for (i, n) in g.operations.iter().enumerate() {
        span_lint(format!("/operations/{i}"), n.span, None);
    }
    for (i, n) in g.tool_calls.iter().enumerate() {
        span_lint(format!("/tool_calls/{i}"), n.span, None);
    }
    for (i, n) in g.citations.iter().enumerate() {
        if let Some(span) = n.span {
            span_lint(format!("/citations/{i}"), span, None);
        }
    }
    for (i, n) in g.code_blocks.iter().enumerate() {
        span_lint(format!("/code_blocks/{i}"), n.span, None);
    }
    for (i, n) in g.discourse_acts.iter().enumerate() {
        span_lint(format!("/discourse_acts/{i}"), n.span, None);
    }

    let entity_ids: HashSet<&str> = g.entities.iter().map(|n| n.id.as_str()).collect();
    let claim_ids: HashSet<&str> = g.claims.iter().map(|n| n.id.as_str()).collect();
    let act_ids: HashSet<&str> = g.discourse_acts.iter().map(|n| n.id.as_str()).collect();
    let mut dangling = |path: String, what: &str, id: &str| {
        out.push(Diagnostic::warning(path, format!("dangling reference: no {what} with id '{id}'")));
    };
    for (i, c) in g.claims.iter().enumerate() {
        for (j, r) in c.entity_refs.iter().flatten().enumerate() {
            if !entity_ids.contains(r.as_str()) {
                dangling(format!("/claims/{i}/entity_refs/{j}"), "entity", r);
            }
        }
    }
    for (i, c) in g.citations.iter().enumerate() {
        if !claim_ids.contains(c.claim_id.as_str()) {
            dangling(format!("/citations/{i}/claim_id"), "claim", &c.claim_id);
        }
    }
    for (i, a) in g.discourse_acts.iter().enumerate() {
        for (j, r) in a.claim_refs.iter().flatten().enumerate() {
            if !claim_ids.contains(r.as_str()) {
                dangling(format!("/discourse_acts/{i}/claim_refs/{j}"), "claim", r);
            }
        }
        for (j, r) in a.children.iter().flatten().enumerate() {
            if !act_ids.contains(r.as_str()) {
                dangling(format!("/discourse_acts/{i}/children/{j}"), "discourse act", r);
            }
        }
    }
    if let Some((i, id)) = first_cycle(g) {
        out.push(Diagnostic::warning(
            format!("/discourse_acts/{i}/children"),
            format!("discourse act '{id}' is its own descendant (cycle in children)"),
        ));
    }
}

/// The first discourse act (in array order) that lies on a `children` cycle.
fn first_cycle(g: &PredicateGraph) -> Option<(usize, String)> {
    let index: BTreeMap<&str, usize> = g.discourse_acts.iter().enumerate().map(|(i, a)| (a.id.as_str(), i)).collect();
    // 0 = unvisited, 1 = on stack, 2 = done. Iterative DFS: nesting depth is untrusted.
    let mut state = vec![0u8; g.discourse_acts.len()];
    for root in 0..g.discourse_acts.len() {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let children = g.discourse_acts[node].children.as_deref().unwrap_or(&[]);
            if let Some(child) = children.get(*next) {
                *next += 1;
                let Some(&c) = index.get(child.as_str()) else { continue };
                match state[c] {
                    0 => {
                        state[c] = 1;
                        stack.push((c, 0));
                    }
                    1 => return Some((c, g.discourse_acts[c].id.clone())),
                    _ => {}
                }
            } else {
                state[node] = 2;
                stack.pop();
            }
        }
    }
    None
}

fn preview(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({
            "schema_version": "1.0.0", "output_id": "o", "text": "Hello world.",
            "entities": [], "claims": [], "operations": [], "tool_calls": [],
            "citations": [], "code_blocks": [], "discourse_acts": []
        })
    }

    #[test]
    fn minimal_graph_is_valid() {
        let r = check_graph(minimal());
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert!(r.warnings.is_empty());
        assert_eq!(r.graph.unwrap().output_id, "o");
    }

    #[test]
    fn other_major_is_the_only_error() {
        let mut v = minimal();
        v["schema_version"] = json!("2.0.0");
        v["bogus"] = json!(1);
        let r = check_graph(v);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].path, "/schema_version");
        assert!(r.errors[0].message.contains("only major version 1"));
    }

    #[test]
    fn newer_minor_tolerates_unknown_keys_as_warnings() {
        let mut v = minimal();
        v["schema_version"] = json!("1.3.0");
        v["extra"] = json!(true);
        v["claims"] =
            json!([{"id":"c1","text":"Hello world.","modality":"factual","span":{"start":0,"end":12},"confidence":0.5}]);
        let r = check_graph(v);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        let msgs: Vec<_> = r.warnings.iter().map(|w| (w.path.as_str(), w.message.as_str())).collect();
        assert!(msgs.contains(&("", "unknown field 'extra' ignored")), "{msgs:?}");
        assert!(msgs.contains(&("/claims/0", "unknown field 'confidence' ignored")), "{msgs:?}");
        assert_eq!(r.graph.unwrap().claims.len(), 1);
    }

    #[test]
    fn unknown_key_is_an_error_in_1_0() {
        let mut v = minimal();
        v["extra"] = json!(true);
        let r = check_graph(v);
        assert_eq!(r.errors.len(), 1);
        assert!(r.errors[0].message.contains("extra"), "{}", r.errors[0].message);
    }

    #[test]
    fn rejects_illegal_enum_values_and_paper_field_names() {
        for (key, node) in [
            ("claims", json!({"id":"c1","text":"x","modality":"hedged","span":{"start":0,"end":1}})),
            ("discourse_acts", json!({"id":"da1","type":"QUESTION","span":{"start":0,"end":1}})),
            ("operations", json!({"id":"op1","op_type":"add","inputs":[1],"output":1,"span":{"start":0,"end":1}})),
            ("citations", json!({"id":"cit1","claim_id":"c1","source":"http://x"})),
            ("entities", json!({"id":"E1","text":"x","type":"T","span":{"start":0,"end":1}})),
            ("tool_calls", json!({"id":"tc1","name":"f","arguments":[],"span":{"start":0,"end":1}})),
        ] {
            let mut v = minimal();
            v[key] = json!([node]);
            let r = check_graph(v);
            assert!(!r.errors.is_empty(), "{key} should be rejected");
            assert!(r.errors[0].path.starts_with(&format!("/{key}/0")), "{key}: {:?}", r.errors[0]);
        }
    }

    #[test]
    fn integral_float_spans_and_null_result_are_accepted() {
        let mut v = minimal();
        v["operations"] = json!([{"id":"op1","type":"arithmetic","operator":"add","operands":[1,2],"result":null,"span":{"start":0.0,"end":5}}]);
        let r = check_graph(v);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        let g = r.graph.unwrap();
        assert_eq!(g.operations[0].span.start, 0);
        assert!(g.operations[0].result.is_null());
    }

    #[test]
    fn missing_result_key_is_an_error() {
        let mut v = minimal();
        v["operations"] = json!([{"id":"op1","type":"arithmetic","operator":"add","operands":[1,2],"span":{"start":0,"end":5}}]);
        assert!(!check_graph(v).errors.is_empty());
    }

    #[test]
    fn duplicate_ids_are_errors() {
        let mut v = minimal();
        v["claims"] = json!([
            {"id":"c1","text":"Hello","modality":"factual","span":{"start":0,"end":5}},
            {"id":"c1","text":"world","modality":"factual","span":{"start":6,"end":11}}
        ]);
        let r = check_graph(v);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].path, "/claims/1/id");
    }

    #[test]
    fn lints_spans_references_and_cycles() {
        let mut v = minimal();
        v["entities"] = json!([{"id":"e1","text":"Hello","type":"X","span":{"start":0,"end":5}},
                               {"id":"e2","text":"nope","type":"X","span":{"start":6,"end":11}}]);
        v["claims"] = json!([{"id":"c1","text":"Hello world.","modality":"factual","span":{"start":5,"end":2},"entity_refs":["e1","e9"]},
                             {"id":"c2","text":"x","modality":"opinion","span":{"start":0,"end":99}}]);
        v["citations"] = json!([{"id":"cit1","claim_id":"c7","source":{"type":"url","value":"u"}}]);
        v["discourse_acts"] = json!([{"id":"da1","type":"SUMMARY","span":{"start":0,"end":12},"children":["da2"],"claim_refs":["c3"]},
                                     {"id":"da2","type":"ASSERTION","span":{"start":0,"end":12},"children":["da1","da5"]}]);
        let r = check_graph(v);
        assert!(r.errors.is_empty());
        let paths: Vec<&str> = r.warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "/entities/1/span",
                "/claims/0/span",
                "/claims/1/span",
                "/claims/0/entity_refs/1",
                "/citations/0/claim_id",
                "/discourse_acts/0/claim_refs/0",
                "/discourse_acts/1/children/1",
                "/discourse_acts/0/children",
            ]
        );
    }

    #[test]
    fn semver_parsing() {
        assert_eq!(parse_semver("1.2.3"), Some((1, 2, 3)));
        assert_eq!(parse_semver("1.2"), None);
        assert_eq!(parse_semver("1.2.3.4"), None);
        assert_eq!(parse_semver("v1.2.3"), None);
    }

    #[test]
    fn invalid_json_is_reported() {
        let r = parse_graph("{ not json");
        assert_eq!(r.errors.len(), 1);
        assert!(r.errors[0].message.starts_with("invalid JSON"));
    }
}
