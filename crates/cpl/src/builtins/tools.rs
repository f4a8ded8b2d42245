//! Tool parameter schemas (D4) and the four tool-call predicates.
//!
//! Schemas come from a tools file (`--tools`) and from `context.tool_schemas` in the graph;
//! both hold OpenAI-style `{"type":"function","function":{…}}` or bare `{"name","parameters"}`
//! entries. BFCL's type aliases are accepted (`dict`, `float`, `tuple`, `any`).

use std::collections::BTreeMap;

use serde_json::Value;
use warrant_graph::ToolCall;
use warrant_graph::schema::push_pointer;

use super::Diag;

/// A JSON value type, as a bit in a [`TypeSet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum JsonType {
    String = 1,
    Number = 2,
    Integer = 4,
    Boolean = 8,
    Object = 16,
    Array = 32,
    Null = 64,
}

/// What a parameter's `type` admits; `None` admits anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeSet(Option<u8>);

impl TypeSet {
    fn parse_one(name: &str) -> Option<Option<JsonType>> {
        Some(Some(match name {
            "string" => JsonType::String,
            "number" | "float" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "object" | "dict" => JsonType::Object,
            "array" | "tuple" => JsonType::Array,
            "null" => JsonType::Null,
            "any" => return Some(None),
            _ => return None,
        }))
    }

    fn admits(self, v: &Value) -> bool {
        let Some(bits) = self.0 else { return true };
        let has = |t: JsonType| bits & t as u8 != 0;
        match v {
            Value::String(_) => has(JsonType::String),
            Value::Number(n) => has(JsonType::Number) || (has(JsonType::Integer) && is_integral(n)),
            Value::Bool(_) => has(JsonType::Boolean),
            Value::Object(_) => has(JsonType::Object),
            Value::Array(_) => has(JsonType::Array),
            Value::Null => has(JsonType::Null),
        }
    }

    fn describe(self) -> String {
        let Some(bits) = self.0 else { return "any".into() };
        let names = [
            (JsonType::String, "string"),
            (JsonType::Number, "number"),
            (JsonType::Integer, "integer"),
            (JsonType::Boolean, "boolean"),
            (JsonType::Object, "object"),
            (JsonType::Array, "array"),
            (JsonType::Null, "null"),
        ];
        names.iter().filter(|(t, _)| bits & *t as u8 != 0).map(|(_, n)| *n).collect::<Vec<_>>().join(" or ")
    }
}

/// True for a JSON number with zero fractional part (`3`, `3.0`, `3e2`).
fn is_integral(n: &serde_json::Number) -> bool {
    warrant_text::Decimal::parse(&n.to_string()).map(|d| d.value().is_integer()).unwrap_or(false)
}

/// JSON type name of a value, as diagnostics print it.
pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(n) if is_integral(n) => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::Null => "null",
    }
}

/// The parameter schema of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSchema {
    /// Tool name.
    pub name: String,
    /// Declared parameters and their types, sorted by name.
    properties: BTreeMap<String, TypeSet>,
    /// Required parameter names.
    required: Vec<String>,
    /// Where the schema came from, for messages.
    pub origin: ToolOrigin,
}

/// Source of a tool schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOrigin {
    /// The `--tools` file.
    File,
    /// `context.tool_schemas` in the graph.
    Graph,
}

impl ToolSchema {
    /// Declared parameter names, sorted.
    pub fn parameter_names(&self) -> impl Iterator<Item = &str> {
        self.properties.keys().map(String::as_str)
    }

    /// Required parameter names, as declared.
    pub fn required(&self) -> &[String] {
        &self.required
    }

    /// True when the parameter is declared.
    pub fn declares(&self, name: &str) -> bool {
        self.properties.contains_key(name)
    }
}

/// A problem in a tools file or `context.tool_schemas`, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct ToolsError {
    /// JSON pointer into the tools document.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

fn terr(pointer: &str, message: impl Into<String>) -> ToolsError {
    ToolsError { pointer: if pointer.is_empty() { "/".into() } else { pointer.into() }, message: message.into() }
}

/// Tool schemas by exact, case-sensitive name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRegistry {
    tools: BTreeMap<String, ToolSchema>,
}

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a tools document (a JSON array of definitions). A duplicate name is an error.
    pub fn from_json(doc: &Value, origin: ToolOrigin) -> Result<Self, ToolsError> {
        let base = "";
        let Some(items) = doc.as_array() else {
            return Err(terr(base, "expected a JSON array of tool definitions"));
        };
        let mut tools = BTreeMap::new();
        for (i, item) in items.iter().enumerate() {
            let ptr = format!("/{i}");
            let (def, def_ptr) = match item.get("function") {
                Some(f) if item.get("type").and_then(Value::as_str) == Some("function") || item.get("name").is_none() => {
                    (f, push_pointer(&ptr, "function"))
                }
                _ => (item, ptr.clone()),
            };
            let Some(obj) = def.as_object() else {
                return Err(terr(&def_ptr, "expected a tool definition object"));
            };
            let Some(name) = obj.get("name").and_then(Value::as_str) else {
                return Err(terr(&push_pointer(&def_ptr, "name"), "expected the tool name as a string"));
            };
            let schema = parse_parameters(name, obj.get("parameters"), &push_pointer(&def_ptr, "parameters"), origin)?;
            if tools.insert(name.to_string(), schema).is_some() {
                return Err(terr(&push_pointer(&def_ptr, "name"), format!("duplicate tool name '{name}'")));
            }
        }
        Ok(Self { tools })
    }

    /// Looks a tool up.
    pub fn get(&self, name: &str) -> Option<&ToolSchema> {
        self.tools.get(name)
    }

    /// Tool names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

fn parse_parameters(name: &str, params: Option<&Value>, ptr: &str, origin: ToolOrigin) -> Result<ToolSchema, ToolsError> {
    let mut properties = BTreeMap::new();
    let mut required = Vec::new();
    if let Some(params) = params {
        let Some(obj) = params.as_object() else {
            return Err(terr(ptr, "expected `parameters` to be a JSON Schema object"));
        };
        if let Some(props) = obj.get("properties") {
            let Some(props) = props.as_object() else {
                return Err(terr(&push_pointer(ptr, "properties"), "expected an object of parameter schemas"));
            };
            for (pname, pschema) in props {
                let pptr = push_pointer(&push_pointer(ptr, "properties"), pname);
                properties.insert(pname.clone(), parse_type(pschema.get("type"), &push_pointer(&pptr, "type"))?);
            }
        }
        if let Some(req) = obj.get("required") {
            let rptr = push_pointer(ptr, "required");
            let Some(arr) = req.as_array() else {
                return Err(terr(&rptr, "expected an array of parameter names"));
            };
            for (j, r) in arr.iter().enumerate() {
                let Some(r) = r.as_str() else {
                    return Err(terr(&format!("{rptr}/{j}"), "expected a parameter name string"));
                };
                required.push(r.to_string());
            }
        }
    }
    Ok(ToolSchema { name: name.to_string(), properties, required, origin })
}

fn parse_type(t: Option<&Value>, ptr: &str) -> Result<TypeSet, ToolsError> {
    let unknown = |n: &str| {
        terr(
            ptr,
            format!(
                "unknown type '{n}' (expected string, number, integer, boolean, object, array, null, or the BFCL aliases dict, float, tuple, any)"
            ),
        )
    };
    match t {
        None => Ok(TypeSet(None)),
        Some(Value::String(s)) => match TypeSet::parse_one(s) {
            Some(Some(t)) => Ok(TypeSet(Some(t as u8))),
            Some(None) => Ok(TypeSet(None)),
            None => Err(unknown(s)),
        },
        Some(Value::Array(list)) => {
            let mut bits = 0u8;
            for item in list {
                let Some(s) = item.as_str() else {
                    return Err(terr(ptr, "expected type names"));
                };
                match TypeSet::parse_one(s) {
                    Some(Some(t)) => bits |= t as u8,
                    Some(None) => return Ok(TypeSet(None)),
                    None => return Err(unknown(s)),
                }
            }
            Ok(TypeSet(Some(bits)))
        }
        Some(_) => Err(terr(ptr, "expected a type name or a list of type names")),
    }
}

/// The tools visible to one evaluation: the graph's `context.tool_schemas` first (they win on
/// a name clash, with an info note), then the tools file.
#[derive(Debug, Clone)]
pub struct ToolView<'a> {
    graph: ToolRegistry,
    file: &'a ToolRegistry,
}

impl<'a> ToolView<'a> {
    /// Builds the view; `notes` receives the names the graph overrides.
    pub fn new(
        graph_context: Option<&serde_json::Map<String, Value>>,
        file: &'a ToolRegistry,
        notes: &mut Vec<String>,
    ) -> Result<Self, ToolsError> {
        let graph = match graph_context.and_then(|c| c.get("tool_schemas")) {
            Some(doc) => ToolRegistry::from_json(doc, ToolOrigin::Graph).map_err(|e| ToolsError {
                pointer: format!("/context/tool_schemas{}", e.pointer.trim_end_matches('/')),
                message: e.message,
            })?,
            None => ToolRegistry::new(),
        };
        for name in graph.names() {
            if file.get(name).is_some() {
                notes.push(format!("tool '{name}': context.tool_schemas overrides the tools file"));
            }
        }
        Ok(Self { graph, file })
    }

    /// Finds a tool schema by name.
    pub fn get(&self, name: &str) -> Option<&ToolSchema> {
        self.graph.get(name).or_else(|| self.file.get(name))
    }
}

fn with_schema<'v>(tools: &'v ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> Option<&'v ToolSchema> {
    let s = tools.get(&tc.name);
    if s.is_none() {
        diag.push(|| format!("no parameter schema for tool {}", tc.name));
    }
    s
}

/// `arguments_match_schema(tc)`: every declared argument has its declared JSON type.
pub fn arguments_match_schema(tools: &ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let Some(schema) = with_schema(tools, tc, diag) else { return false };
    let mut ok = true;
    for (k, v) in &tc.arguments {
        if let Some(t) = schema.properties.get(k)
            && !t.admits(v)
        {
            ok = false;
            diag.push(|| format!("argument '{k}': expected {}, got {}", t.describe(), json_type_name(v)));
            if !diag.wants() {
                break;
            }
        }
    }
    ok
}

/// `has_required_arguments(tc)`: every required parameter is present (a `null` counts).
pub fn has_required_arguments(tools: &ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let Some(schema) = with_schema(tools, tc, diag) else { return false };
    let mut ok = true;
    for r in &schema.required {
        if !tc.arguments.contains_key(r) {
            ok = false;
            diag.push(|| format!("missing required argument '{r}'"));
            if !diag.wants() {
                break;
            }
        }
    }
    ok
}

/// `no_extra_arguments(tc)`: every argument is declared, whatever `additionalProperties` says.
pub fn no_extra_arguments(tools: &ToolView<'_>, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let Some(schema) = with_schema(tools, tc, diag) else { return false };
    let mut ok = true;
    for k in tc.arguments.keys() {
        if !schema.properties.contains_key(k) {
            ok = false;
            diag.push(|| format!("unexpected argument '{k}'"));
            if !diag.wants() {
                break;
            }
        }
    }
    ok
}

/// `tool_is_available(tc)`: the name is listed in `context.tools_available`.
pub fn tool_is_available(graph: &warrant_graph::PredicateGraph, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    match graph.tools_available() {
        None => {
            diag.push(|| "context.tools_available is missing".to_string());
            false
        }
        Some(mut names) => {
            let ok = names.any(|n| n == tc.name);
            if !ok {
                diag.push(|| format!("tool '{}' is not in context.tools_available", tc.name));
            }
            ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(args: Value) -> ToolCall {
        ToolCall {
            id: "tc1".into(),
            name: "calculate_tip".into(),
            arguments: args.as_object().unwrap().clone(),
            span: Default::default(),
        }
    }

    fn registry() -> ToolRegistry {
        ToolRegistry::from_json(
            &json!([{"type":"function","function":{"name":"calculate_tip","parameters":{"type":"object",
                "properties":{"bill_amount":{"type":"number"},"tip_percentage":{"type":"number"},"n":{"type":"integer"},
                              "opt":{"type":["string","null"]},"blob":{"type":"dict"},"anything":{}},
                "required":["bill_amount","tip_percentage"]}}}]),
            ToolOrigin::File,
        )
        .unwrap()
    }

    fn run(f: fn(&ToolView<'_>, &ToolCall, &mut Diag<'_>) -> bool, args: Value) -> (bool, Vec<String>) {
        let reg = registry();
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let mut out = Vec::new();
        let ok = f(&view, &call(args), &mut Diag::collect(&mut out));
        (ok, out)
    }

    #[test]
    fn type_matching_is_strict() {
        assert!(run(arguments_match_schema, json!({"bill_amount": 100, "tip_percentage": 15.5})).0);
        let (ok, d) = run(arguments_match_schema, json!({"bill_amount": "100", "tip_percentage": 15}));
        assert!(!ok);
        assert_eq!(d, vec!["argument 'bill_amount': expected number, got string"]);
        assert!(run(arguments_match_schema, json!({"n": 3.0})).0, "3.0 is an integer");
        assert!(!run(arguments_match_schema, json!({"n": 3.5})).0);
        assert!(run(arguments_match_schema, json!({"opt": null, "blob": {"a": 1}, "anything": [1]})).0);
        assert!(!run(arguments_match_schema, json!({"opt": 1})).0);
        assert!(!run(arguments_match_schema, json!({"bill_amount": true})).0);
        assert!(run(arguments_match_schema, json!({"undeclared": "x"})).0, "undeclared keys are predicate 3's job");
    }

    #[test]
    fn required_and_extra_arguments() {
        let (ok, d) = run(has_required_arguments, json!({"bill_amount": null}));
        assert!(!ok);
        assert_eq!(d, vec!["missing required argument 'tip_percentage'"]);
        assert!(run(has_required_arguments, json!({"bill_amount": 1, "tip_percentage": 2})).0);
        let (ok, d) = run(no_extra_arguments, json!({"bill_amount": 1, "tipp": 2}));
        assert!(!ok);
        assert_eq!(d, vec!["unexpected argument 'tipp'"]);
        assert!(run(no_extra_arguments, json!({})).0);
    }

    #[test]
    fn missing_schema_fails_closed() {
        let reg = ToolRegistry::new();
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        for f in [arguments_match_schema, has_required_arguments, no_extra_arguments] {
            let mut out = Vec::new();
            assert!(!f(&view, &call(json!({})), &mut Diag::collect(&mut out)));
            assert_eq!(out, vec!["no parameter schema for tool calculate_tip"]);
        }
    }

    #[test]
    fn bare_style_bfcl_aliases_and_errors() {
        let reg = ToolRegistry::from_json(
            &json!([{"name":"f","parameters":{"type":"dict","properties":{"x":{"type":"float"},"t":{"type":"tuple"}},"required":["x"]}}]),
            ToolOrigin::File,
        )
        .unwrap();
        assert!(reg.get("f").unwrap().declares("t"));
        let dup = ToolRegistry::from_json(&json!([{"name":"f"},{"name":"f"}]), ToolOrigin::File).unwrap_err();
        assert_eq!(dup.pointer, "/1/name");
        let bad =
            ToolRegistry::from_json(&json!([{"name":"f","parameters":{"properties":{"x":{"type":"str"}}}}]), ToolOrigin::File)
                .unwrap_err();
        assert_eq!(bad.pointer, "/0/parameters/properties/x/type");
        assert!(ToolRegistry::from_json(&json!({"name":"f"}), ToolOrigin::File).is_err());
        assert!(ToolRegistry::from_json(&json!([{"parameters":{}}]), ToolOrigin::File).is_err());
    }

    #[test]
    fn graph_schemas_override_the_file() {
        let file = registry();
        let ctx =
            json!({"tool_schemas": [{"name":"calculate_tip","parameters":{"properties":{"bill_amount":{"type":"string"}}}}]});
        let mut notes = Vec::new();
        let view = ToolView::new(ctx.as_object(), &file, &mut notes).unwrap();
        assert_eq!(notes.len(), 1);
        assert_eq!(view.get("calculate_tip").unwrap().origin, ToolOrigin::Graph);
        let mut out = Vec::new();
        assert!(arguments_match_schema(&view, &call(json!({"bill_amount": "100"})), &mut Diag::collect(&mut out)));
    }

    #[test]
    fn availability_needs_context() {
        let mut g = warrant_graph::PredicateGraph::empty("o", "");
        let mut out = Vec::new();
        assert!(!tool_is_available(&g, &call(json!({})), &mut Diag::collect(&mut out)));
        assert_eq!(out, vec!["context.tools_available is missing"]);
        g.context = json!({"tools_available": ["calculate_tip"]}).as_object().cloned();
        assert!(tool_is_available(&g, &call(json!({})), &mut Diag::none()));
        g.context = json!({"tools_available": ["Calculate_Tip"]}).as_object().cloned();
        assert!(!tool_is_available(&g, &call(json!({})), &mut Diag::none()));
    }
}
