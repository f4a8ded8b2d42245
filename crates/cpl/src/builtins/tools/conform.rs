//! `arguments_conform(tool_call)` and `no_null_optional_arguments(tool_call)`: the whole
//! `arguments` object held against the tool's `parameters` as a JSON Schema (the pack
//! `warrant.tool-schema.v1`), where `arguments_match_schema` only looks at top-level types.
//!
//! `null` given for an optional parameter whose schema does not admit `null` means "not
//! given" (as Python's `None` default does): it is removed before validation and reported by
//! `no_null_optional_arguments` instead. For a required parameter it stays a type error.

use std::collections::BTreeMap;

use jsonschema::error::{TypeKind, ValidationErrorKind as K};
use serde_json::{Map, Value};
use warrant_graph::ToolCall;
use warrant_graph::push_pointer;

use super::schema::Check;
use super::{ToolView, with_schema};
use crate::builtins::Diag;

/// `arguments_conform(tc)`: the arguments validate against the tool's parameter schema.
pub fn arguments_conform(tools: &ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let Some(tool) = with_schema(tools, tc, diag) else { return false };
    let compiled = tool.compiled();
    let check = match &compiled.check {
        Ok(c) => c,
        Err(why) => {
            diag.push(|| format!("the parameter schema of tool {} is not valid JSON Schema: {why}", tc.name));
            return false;
        }
    };
    if conforms(check, &compiled.schema, &tc.arguments) {
        return true;
    }
    if diag.wants() {
        for d in failures(check, &compiled.schema, &tc.arguments) {
            diag.push(|| d);
        }
    }
    false
}

/// The fast path: true when the arguments are valid (nothing is formatted).
fn conforms(check: &Check, schema: &Value, args: &Map<String, Value>) -> bool {
    match check {
        Check::Whole(v) => {
            let mut all = Value::Object(args.clone());
            strip_null_optionals(schema, &mut all);
            v.is_valid(&all)
        }
        Check::Properties { properties, required, closed } => {
            args.iter().all(|(k, x)| match properties.get(k) {
                Some((sub, v)) => (x.is_null() && not_given(sub, required, k)) || with_nulls_stripped(sub, x, |x| v.is_valid(x)),
                None => !closed,
            }) && required.iter().all(|r| args.contains_key(r))
        }
    }
}

/// One diagnostic per failure, `<pointer into the arguments>: <what is wrong>`, sorted by
/// pointer.
fn failures(check: &Check, schema: &Value, args: &Map<String, Value>) -> Vec<String> {
    let mut found = Vec::new();
    match check {
        Check::Whole(v) => {
            let mut all = Value::Object(args.clone());
            strip_null_optionals(schema, &mut all);
            describe(v.iter_errors(&all), "", &mut found);
        }
        Check::Properties { properties, required, closed } => {
            for (k, x) in args {
                let at = push_pointer("", k);
                match properties.get(k) {
                    Some((sub, _)) if x.is_null() && not_given(sub, required, k) => {}
                    Some((sub, v)) => with_nulls_stripped(sub, x, |x| describe(v.iter_errors(x), &at, &mut found)),
                    None if *closed => found.push((at, false, UNDECLARED.to_string())),
                    None => {}
                }
            }
            for r in required.iter().filter(|r| !args.contains_key(*r)) {
                found.push((push_pointer("", r), false, MISSING.to_string()));
            }
        }
    }
    finish(found)
}

const UNDECLARED: &str = "not a declared parameter (additionalProperties is false)";
const MISSING: &str = "required, but missing";

/// `no_null_optional_arguments(tc)`: no optional parameter is passed as `null` (which the
/// schema pack reads as "not given"). True when the tool has no schema: nothing to say.
pub fn no_null_optional_arguments(tools: &ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let Some(tool) = tools.get(&tc.name) else { return true };
    let mut found = Vec::new();
    let stopped = null_optionals(&tool.compiled().schema, &tc.arguments, &mut Vec::new(), &mut found, diag.wants());
    for p in &found {
        diag.push(|| format!("{p}: null for an optional parameter, read as not given"));
    }
    !stopped && found.is_empty()
}

/// True when the schema declares a `type` that leaves `null` out (no `type`: anything goes).
fn refuses_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t != "null",
        Some(Value::Array(ts)) => !ts.iter().any(|t| t == "null"),
        _ => false,
    }
}

fn is_required(schema: &Value, name: &str) -> bool {
    schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|x| x == name))
}

/// A `null` for parameter `name` (schema `sub`) stands for "not given".
fn not_given(sub: &Value, required: &[String], name: &str) -> bool {
    !required.iter().any(|r| r == name) && refuses_null(sub)
}

/// Runs `f` on `x`, or on a copy without its "not given" nulls when it holds any.
fn with_nulls_stripped<R>(sub: &Value, x: &Value, f: impl FnOnce(&Value) -> R) -> R {
    if has_null_member(x) {
        let mut copy = x.clone();
        strip_null_optionals(sub, &mut copy);
        f(&copy)
    } else {
        f(x)
    }
}

/// True when a `null` sits anywhere inside an object or array (cheap: nothing is copied).
fn has_null_member(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.values().any(|x| x.is_null() || has_null_member(x)),
        Value::Array(a) => a.iter().any(|x| x.is_null() || has_null_member(x)),
        _ => false,
    }
}

/// Removes the null members that stand for "not given", at every depth the schema describes
/// with `properties` (and, inside arrays, with one `items` schema).
fn strip_null_optionals(schema: &Value, v: &mut Value) {
    match v {
        Value::Object(obj) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
            obj.retain(|k, x| !(x.is_null() && !is_required(schema, k) && props.get(k).is_some_and(refuses_null)));
            for (k, x) in obj.iter_mut() {
                if let Some(s) = props.get(k) {
                    strip_null_optionals(s, x);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items").filter(|s| s.is_object()) {
                items.iter_mut().for_each(|x| strip_null_optionals(s, x));
            }
        }
        _ => {}
    }
}

/// A step of the path to a member.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The null members [`strip_null_optionals`] would remove, their pointers in `out` when
/// `render`. Without `render` it stops at the first and returns true; nothing is allocated
/// on the way.
fn null_optionals<'a>(
    schema: &Value,
    obj: &'a Map<String, Value>,
    path: &mut Vec<Seg<'a>>,
    out: &mut Vec<String>,
    render: bool,
) -> bool {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return false };
    for (k, x) in obj {
        let Some(s) = props.get(k) else { continue };
        path.push(Seg::Key(k));
        let stop = match x {
            Value::Null if !is_required(schema, k) && refuses_null(s) => {
                if render {
                    out.push(path.iter().fold(String::new(), |p, seg| match seg {
                        Seg::Key(k) => push_pointer(&p, k),
                        Seg::Index(i) => format!("{p}/{i}"),
                    }));
                }
                !render
            }
            Value::Object(inner) => null_optionals(s, inner, path, out, render),
            Value::Array(items) => {
                let item_schema = s.get("items").filter(|s| s.is_object());
                items.iter().enumerate().any(|(i, item)| match (item_schema, item) {
                    (Some(is), Value::Object(inner)) => {
                        path.push(Seg::Index(i));
                        let stop = null_optionals(is, inner, path, out, render);
                        path.pop();
                        stop
                    }
                    _ => false,
                })
            }
            _ => false,
        };
        path.pop();
        if stop {
            return true;
        }
    }
    false
}

/// Longest rendering of a value inside a diagnostic.
const MAX_VALUE: usize = 80;

/// A value as a diagnostic shows it: compact JSON, cut short when long.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.len() <= MAX_VALUE {
        return s;
    }
    let mut cut = MAX_VALUE;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &s[..cut])
}

/// "1 character", "3 characters".
fn count(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// "string \"100\"", "integer 5", "null": the found value with its type.
fn got(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        _ => format!("{} {}", super::json_type_name(v), show(v)),
    }
}

/// Appends one `(pointer, is a type error, message)` per validation error; `at` is the pointer
/// of the validated value within the arguments.
fn describe<'e>(
    errors: impl Iterator<Item = jsonschema::ValidationError<'e>>,
    at: &str,
    found: &mut Vec<(String, bool, String)>,
) {
    for e in errors {
        let here = format!("{at}{}", e.instance_path().as_str());
        let v = e.instance();
        let (pointer, is_type, message) = match e.kind() {
            K::Type { kind } => {
                let expected = match kind {
                    TypeKind::Single(t) => t.to_string(),
                    TypeKind::Multiple(ts) => ts.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or "),
                };
                (here, true, format!("expected {expected}, got {}", got(v)))
            }
            K::Required { property } => {
                let name = property.as_str().map_or_else(|| property.to_string(), str::to_string);
                (push_pointer(&here, &name), false, MISSING.to_string())
            }
            K::AdditionalProperties { unexpected } => {
                for name in unexpected {
                    found.push((push_pointer(&here, name), false, UNDECLARED.into()));
                }
                continue;
            }
            K::Enum { options } => (here, false, format!("{} is not one of {}", show(v), show(options))),
            K::Constant { expected_value } => {
                (here, false, format!("{} is not the required value {}", show(v), show(expected_value)))
            }
            K::Minimum { limit } => (here, false, format!("{} is less than the minimum {limit}", show(v))),
            K::Maximum { limit } => (here, false, format!("{} is greater than the maximum {limit}", show(v))),
            K::ExclusiveMinimum { limit } => (here, false, format!("{} is not greater than {limit}", show(v))),
            K::ExclusiveMaximum { limit } => (here, false, format!("{} is not less than {limit}", show(v))),
            K::MinLength { limit } => (here, false, format!("{} is shorter than {}", show(v), count(*limit, "character"))),
            K::MaxLength { limit } => (here, false, format!("{} is longer than {}", show(v), count(*limit, "character"))),
            K::MinItems { limit } => (here, false, format!("has fewer than {}", count(*limit, "item"))),
            K::MaxItems { limit } => (here, false, format!("has more than {}", count(*limit, "item"))),
            K::Pattern { pattern } => (here, false, format!("{} does not match the pattern {pattern}", show(v))),
            K::Format { format } => (here, false, format!("{} is not a valid {format}", show(v))),
            K::AnyOf { .. } => (here, false, format!("{} matches none of the anyOf alternatives", show(v))),
            K::OneOfNotValid { .. } => (here, false, format!("{} matches none of the oneOf alternatives", show(v))),
            K::OneOfMultipleValid { .. } => (here, false, format!("{} matches more than one oneOf alternative", show(v))),
            K::UniqueItems => (here, false, "has duplicate items".to_string()),
            K::FalseSchema => (here, false, "no value is allowed here".to_string()),
            _ => {
                let mut m = e.to_string();
                if m.len() > 2 * MAX_VALUE {
                    m = show(&Value::String(m));
                }
                (here, false, m)
            }
        };
        found.push((pointer, is_type, message));
    }
}

/// Sorts by pointer and renders. Where a value has the wrong type, the keywords that then
/// also fail on it (`enum`, `pattern`, …) add nothing and are left out.
fn finish(mut found: Vec<(String, bool, String)>) -> Vec<String> {
    let typed: BTreeMap<String, ()> = found.iter().filter(|(_, t, _)| *t).map(|(p, _, _)| (p.clone(), ())).collect();
    found.retain(|(p, is_type, _)| *is_type || !typed.contains_key(p));
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.dedup();
    found.into_iter().map(|(p, _, m)| format!("{}: {m}", if p.is_empty() { "arguments" } else { p.as_str() })).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::builtins::tools::{ToolOrigin, ToolRegistry};

    fn registry(parameters: Value) -> ToolRegistry {
        ToolRegistry::from_json(&json!([{"name": "f", "parameters": parameters}]), ToolOrigin::File).unwrap()
    }

    /// A call of the test tool `f` with these arguments.
    fn call(args: &Value) -> ToolCall {
        ToolCall { id: "tc1".into(), name: "f".into(), arguments: args.as_object().unwrap().clone(), span: Default::default() }
    }

    fn conform_one(parameters: Value, args: &Value) -> (bool, Vec<String>) {
        let reg = registry(parameters);
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let tc = call(args);
        let mut out = Vec::new();
        let ok = arguments_conform(&view, &tc, &mut Diag::collect(&mut out));
        assert_eq!(ok, arguments_conform(&view, &tc, &mut Diag::none()), "same outcome without diagnostics");
        assert_eq!(ok, out.is_empty(), "{out:?}");
        (ok, out)
    }

    /// Checks the call both ways a schema can be compiled — per property, and whole (a root
    /// keyword that changes nothing forces it) — and requires the same outcome.
    fn conform(parameters: Value, args: Value) -> (bool, Vec<String>) {
        let mut whole = parameters.clone();
        whole["minProperties"] = json!(0);
        let reg = registry(whole.clone());
        assert!(matches!(reg.get("f").unwrap().compiled().check, Ok(Check::Whole(_))));
        let a = conform_one(parameters, &args);
        assert_eq!(a, conform_one(whole, &args), "per-property and whole-schema checks agree");
        a
    }

    fn nulls(parameters: Value, args: Value) -> (bool, Vec<String>) {
        let reg = registry(parameters);
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let tc = call(&args);
        let mut out = Vec::new();
        let ok = no_null_optional_arguments(&view, &tc, &mut Diag::collect(&mut out));
        (ok, out)
    }

    fn fails(parameters: Value, args: Value) -> Vec<String> {
        let (ok, d) = conform(parameters, args);
        assert!(!ok);
        d
    }

    #[test]
    fn enum_in_a_nested_object_names_its_pointer() {
        let p = json!({"type": "dict", "properties": {"new_preferences": {"type": "dict", "properties": {
            "size": {"type": "string", "enum": ["small", "medium", "large"]}}}}});
        assert!(conform(p.clone(), json!({"new_preferences": {"size": "small"}})).0);
        assert_eq!(
            fails(p, json!({"new_preferences": {"size": "other"}})),
            vec![r#"/new_preferences/size: "other" is not one of ["small","medium","large"]"#]
        );
    }

    #[test]
    fn const_keyword() {
        let p = json!({"properties": {"version": {"const": 2}}});
        assert!(conform(p.clone(), json!({"version": 2})).0);
        assert!(conform(p.clone(), json!({"version": 2.0})).0, "numbers compare by value");
        assert_eq!(fails(p, json!({"version": 3})), vec!["/version: 3 is not the required value 2"]);
    }

    #[test]
    fn nested_properties_required_and_additional_properties() {
        let p = json!({"type": "object", "additionalProperties": false, "required": ["user"], "properties": {
            "user": {"type": "object", "required": ["name"], "additionalProperties": false,
                     "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}}});
        assert!(conform(p.clone(), json!({"user": {"name": "Ada", "age": 36}})).0);
        assert_eq!(
            fails(p.clone(), json!({"user": {"name": "Ada", "age": "36"}})),
            vec![r#"/user/age: expected integer, got string "36""#]
        );
        assert_eq!(fails(p.clone(), json!({"user": {"age": 36}})), vec!["/user/name: required, but missing"]);
        assert_eq!(fails(p.clone(), json!({})), vec!["/user: required, but missing"]);
        assert_eq!(
            fails(p, json!({"user": {"name": "Ada", "nick": "A"}, "zz": 1})),
            vec![
                "/user/nick: not a declared parameter (additionalProperties is false)",
                "/zz: not a declared parameter (additionalProperties is false)"
            ]
        );
    }

    #[test]
    fn invented_arguments_pass_without_additional_properties_false() {
        // Undeclared keys are allowed by JSON Schema itself; core.tool-use.v1 warns about them.
        assert!(conform(json!({"properties": {"a": {"type": "string"}}}), json!({"a": "x", "b": 1})).0);
    }

    #[test]
    fn items_of_arrays() {
        let p = json!({"properties": {"ids": {"type": "array", "items": {"type": "integer"}},
            "rows": {"type": "array", "items": {"type": "dict", "required": ["k"], "properties": {"k": {"type": "string"}}}}}});
        assert!(conform(p.clone(), json!({"ids": [1, 2.0, 3], "rows": [{"k": "a"}]})).0);
        assert_eq!(
            fails(p, json!({"ids": [1, "2"], "rows": [{"k": "a"}, {"k": 5}, {}]})),
            vec![
                r#"/ids/1: expected integer, got string "2""#,
                "/rows/1/k: expected string, got integer 5",
                "/rows/2/k: required, but missing"
            ]
        );
    }

    #[test]
    fn minimum_and_maximum() {
        let p = json!({"properties": {"fee": {"type": "integer", "minimum": 1, "maximum": 400},
                                      "t": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}});
        assert!(conform(p.clone(), json!({"fee": 400, "t": 0.5})).0);
        assert_eq!(fails(p.clone(), json!({"fee": 401})), vec!["/fee: 401 is greater than the maximum 400"]);
        assert_eq!(fails(p.clone(), json!({"fee": 0})), vec!["/fee: 0 is less than the minimum 1"]);
        assert_eq!(fails(p.clone(), json!({"t": 0})), vec!["/t: 0 is not greater than 0"]);
        assert_eq!(fails(p, json!({"t": 1})), vec!["/t: 1 is not less than 1"]);
    }

    #[test]
    fn min_and_max_length() {
        let p = json!({"properties": {"code": {"type": "string", "minLength": 2, "maxLength": 3}}});
        assert!(conform(p.clone(), json!({"code": "ab"})).0);
        assert!(conform(p.clone(), json!({"code": "äöü"})).0, "lengths count characters, not bytes");
        assert_eq!(fails(p.clone(), json!({"code": "a"})), vec![r#"/code: "a" is shorter than 2 characters"#]);
        assert_eq!(fails(p, json!({"code": "abcd"})), vec![r#"/code: "abcd" is longer than 3 characters"#]);
    }

    #[test]
    fn pattern_is_unanchored_ecma() {
        let p = json!({"properties": {"zip": {"type": "string", "pattern": "^[0-9]{5}$"}, "word": {"pattern": "cat"}}});
        assert!(conform(p.clone(), json!({"zip": "02139", "word": "concatenate"})).0);
        assert_eq!(fails(p, json!({"zip": "2139"})), vec![r#"/zip: "2139" does not match the pattern ^[0-9]{5}$"#]);
    }

    #[test]
    fn formats_the_crate_knows_are_asserted() {
        let p = json!({"properties": {"d": {"type": "string", "format": "date"}, "e": {"type": "string", "format": "email"},
                                      "x": {"type": "string", "format": "no-such-format"}}});
        assert!(conform(p.clone(), json!({"d": "2024-02-29", "e": "a@b.org", "x": "anything"})).0);
        assert_eq!(fails(p.clone(), json!({"d": "2023-02-29"})), vec![r#"/d: "2023-02-29" is not a valid date"#]);
        assert_eq!(fails(p, json!({"e": "not an address"})), vec![r#"/e: "not an address" is not a valid email"#]);
    }

    #[test]
    fn one_of_and_any_of() {
        let p = json!({"properties": {
            "id": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^u-"}]},
            "shape": {"oneOf": [{"type": "object", "required": ["r"]}, {"type": "object", "required": ["w"]}]}}});
        assert!(conform(p.clone(), json!({"id": 7, "shape": {"r": 1}})).0);
        assert!(conform(p.clone(), json!({"id": "u-1", "shape": {"w": 1}})).0);
        assert_eq!(fails(p.clone(), json!({"id": "x"})), vec![r#"/id: "x" matches none of the anyOf alternatives"#]);
        assert_eq!(
            fails(p.clone(), json!({"shape": {"q": 1}})),
            vec![r#"/shape: {"q":1} matches none of the oneOf alternatives"#]
        );
        assert_eq!(
            fails(p, json!({"shape": {"r": 1, "w": 2}})),
            vec![r#"/shape: {"r":1,"w":2} matches more than one oneOf alternative"#]
        );
    }

    #[test]
    fn a_wrong_type_is_one_failure_not_several() {
        let p = json!({"properties": {"size": {"type": "string", "enum": ["s", "m"], "minLength": 1}}});
        assert_eq!(fails(p, json!({"size": 5})), vec!["/size: expected string, got integer 5"]);
    }

    #[test]
    fn java_and_javascript_type_names() {
        let p = json!({"type": "dict", "properties": {
            "name": {"type": "String"}, "flag": {"type": "Boolean"}, "opts": {"type": "HashMap"},
            "list": {"type": "ArrayList", "items": {"type": "long"}}, "ratio": {"type": "double"}, "n": {"type": "Integer"},
            "js": {"type": "Array"}, "any": {"type": "any"}}});
        assert!(
            conform(
                p.clone(),
                json!({"name": "x", "flag": true, "opts": {}, "list": [1, 2], "ratio": 0.5, "n": 3, "js": [], "any": null})
            )
            .0
        );
        assert_eq!(
            fails(p, json!({"name": 1, "flag": "true", "list": [1.5], "n": 2.5})),
            vec![
                r#"/flag: expected boolean, got string "true""#,
                "/list/0: expected integer, got number 1.5",
                "/n: expected integer, got number 2.5",
                "/name: expected string, got integer 1"
            ]
        );
    }

    #[test]
    fn null_for_an_optional_parameter_is_not_given() {
        let p = json!({"type": "dict", "required": ["q"], "properties": {
            "q": {"type": "string"}, "lang": {"type": "string", "default": null}, "maybe": {"type": ["string", "null"]},
            "opts": {"type": "dict", "properties": {"limit": {"type": "integer"}}}}});
        assert!(conform(p.clone(), json!({"q": "x", "lang": null, "maybe": null, "opts": {"limit": null}})).0);
        assert_eq!(fails(p.clone(), json!({"q": null})), vec!["/q: expected string, got null"]);
        let (ok, d) = nulls(p.clone(), json!({"q": "x", "lang": null, "maybe": null, "opts": {"limit": null}}));
        assert!(!ok);
        assert_eq!(
            d,
            vec![
                "/lang: null for an optional parameter, read as not given",
                "/opts/limit: null for an optional parameter, read as not given"
            ]
        );
        assert!(nulls(p, json!({"q": null})).0, "a required null is a type error, reported by arguments_conform");
    }

    #[test]
    fn missing_schema_fails_closed_and_names_match_exactly() {
        let reg = registry(json!({"properties": {}}));
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        for name in ["F", "f ", "g"] {
            let tc = ToolCall { id: "tc1".into(), name: name.into(), arguments: Map::new(), span: Default::default() };
            let mut out = Vec::new();
            assert!(!arguments_conform(&view, &tc, &mut Diag::collect(&mut out)));
            assert_eq!(out, vec![format!("no parameter schema for tool {name}")]);
            assert!(no_null_optional_arguments(&view, &tc, &mut Diag::none()));
        }
        let reg = ToolRegistry::from_json(&json!([{"name": "get_weather", "parameters": {}}]), ToolOrigin::File).unwrap();
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let tc = ToolCall { id: "tc1".into(), name: "get.weather".into(), arguments: Map::new(), span: Default::default() };
        assert!(!arguments_conform(&view, &tc, &mut Diag::none()));
    }

    #[test]
    fn a_schema_that_does_not_compile_fails_its_calls() {
        let reg = ToolRegistry::from_json(
            &json!([{"name": "f", "parameters": {"properties": {"x": {"type": "string", "minLength": "two"}}}}, {"name": "g", "parameters": {}}]),
            ToolOrigin::File,
        )
        .unwrap();
        assert_eq!(reg.warnings().len(), 1);
        assert!(
            reg.warnings()[0].message.starts_with("tool 'f': the parameter schema is not valid JSON Schema"),
            "{:?}",
            reg.warnings()
        );
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let call = |name: &str| ToolCall { id: "tc1".into(), name: name.into(), arguments: Map::new(), span: Default::default() };
        let mut out = Vec::new();
        assert!(!arguments_conform(&view, &call("f"), &mut Diag::collect(&mut out)));
        assert!(out[0].starts_with("the parameter schema of tool f is not valid JSON Schema"), "{out:?}");
        assert!(arguments_conform(&view, &call("g"), &mut Diag::none()), "the other tools are checked as usual");
    }

    #[test]
    fn long_values_are_cut_short() {
        let p = json!({"properties": {"s": {"type": "string", "maxLength": 3}}});
        let long = "x".repeat(200);
        let d = fails(p, json!({"s": long}));
        assert!(d[0].len() < 140 && d[0].contains('…'), "{d:?}");
    }
}
