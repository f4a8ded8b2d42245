//! Tool parameter schemas (D4) and the tool-call predicates.
//!
//! Schemas come from a tools file (`--tools`) and from `context.tool_schemas` in the graph;
//! both hold OpenAI-style `{"type":"function","function":{…}}` or bare `{"name","parameters"}`
//! entries. Type names may be BFCL's Python aliases (`dict`, `float`, `tuple`, `any`) or Java /
//! JavaScript ones (`String`, `HashMap`, `ArrayList`, `long`, …; see [`types`]). An unknown
//! type name is a warning, and that schema constrains nothing.
//!
//! - The four CAPE predicates (spec §4.1–4.4) read each parameter's top-level type only.
//! - [`conform`]: the whole arguments object against the parameters as a JSON Schema
//!   (`warrant.tool-schema.v1`), compiled once per process by [`schema`].

pub mod conform;
mod schema;
mod types;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;
use warrant_graph::ToolCall;
use warrant_graph::push_pointer;

use super::Diag;
use schema::Compiled;
use types::{JsonType, TypeName};

/// What a parameter's `type` admits; `None` admits anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeSet(Option<u8>);

impl TypeSet {
    fn parse_one(name: &str) -> Option<Option<JsonType>> {
        match types::resolve(name) {
            TypeName::Json(t) => Some(Some(t)),
            TypeName::Any => Some(None),
            TypeName::Ambiguous | TypeName::Unknown => None,
        }
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
        let all = [
            JsonType::String,
            JsonType::Number,
            JsonType::Integer,
            JsonType::Boolean,
            JsonType::Object,
            JsonType::Array,
            JsonType::Null,
        ];
        all.iter().filter(|t| bits & **t as u8 != 0).map(|t| t.name()).collect::<Vec<_>>().join(" or ")
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
#[derive(Debug, Clone)]
pub struct ToolSchema {
    /// Tool name.
    pub name: String,
    /// Declared parameters and their top-level types, sorted by name.
    properties: BTreeMap<String, TypeSet>,
    /// Required parameter names.
    required: Vec<String>,
    /// Where the schema came from, for messages.
    pub origin: ToolOrigin,
    /// The whole `parameters`, normalised and compiled (shared by every registry that holds
    /// the same schema).
    compiled: Arc<Compiled>,
}

/// Equal when name, parameters and origin are; the compiled form follows from the schema.
impl PartialEq for ToolSchema {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.properties == other.properties
            && self.required == other.required
            && self.origin == other.origin
            && self.compiled.schema == other.compiled.schema
    }
}

impl Eq for ToolSchema {}

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

    /// The parameters as the JSON Schema that `arguments_conform` validates against: type
    /// aliases resolved, unknown type names dropped.
    pub fn normalised_parameters(&self) -> &Value {
        &self.compiled.schema
    }

    /// True when the two schemas share one compiled validator (compiled once for both).
    pub fn shares_compiled_schema(&self, other: &ToolSchema) -> bool {
        Arc::ptr_eq(&self.compiled, &other.compiled)
    }

    fn compiled(&self) -> &Compiled {
        &self.compiled
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

/// Something in a tools document that is read anyway, with a caveat: an unknown type name
/// (that schema then constrains nothing), or a parameter schema that does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct ToolsWarning {
    /// The tool it concerns.
    pub tool: String,
    /// JSON pointer into the tools document.
    pub pointer: String,
    /// What was found and what happens instead; names the tool and the parameter.
    pub message: String,
}

fn terr(pointer: &str, message: impl Into<String>) -> ToolsError {
    ToolsError { pointer: if pointer.is_empty() { "/".into() } else { pointer.into() }, message: message.into() }
}

/// Tool schemas by exact, case-sensitive name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolRegistry {
    tools: BTreeMap<String, ToolSchema>,
    warnings: Vec<ToolsWarning>,
}

impl ToolRegistry {
    /// No tools.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a tools document (a JSON array of definitions). A duplicate name is an error;
    /// an unknown type name is a warning ([`ToolRegistry::warnings`]).
    pub fn from_json(doc: &Value, origin: ToolOrigin) -> Result<Self, ToolsError> {
        let base = "";
        let Some(items) = doc.as_array() else {
            return Err(terr(base, "expected a JSON array of tool definitions"));
        };
        let mut tools = BTreeMap::new();
        let mut warnings = Vec::new();
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
            let params_ptr = push_pointer(&def_ptr, "parameters");
            let schema = parse_parameters(name, obj.get("parameters"), &params_ptr, origin)?;
            for n in &schema.compiled.notes {
                let about = match &n.parameter {
                    Some(p) => format!("tool '{name}', parameter '{p}'"),
                    None => format!("tool '{name}'"),
                };
                warnings.push(ToolsWarning {
                    tool: name.to_string(),
                    pointer: format!("{params_ptr}{}", n.pointer),
                    message: format!("{about}: {}", n.message),
                });
            }
            if tools.insert(name.to_string(), schema).is_some() {
                return Err(terr(&push_pointer(&def_ptr, "name"), format!("duplicate tool name '{name}'")));
            }
        }
        Ok(Self { tools, warnings })
    }

    /// What was read with a caveat (unknown type names, schemas that do not compile), in
    /// document order.
    pub fn warnings(&self) -> &[ToolsWarning] {
        &self.warnings
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
    Ok(ToolSchema { name: name.to_string(), properties, required, origin, compiled: schema::compiled(params) })
}

/// A parameter's top-level type for the CAPE predicates. An unknown or ambiguous name admits
/// anything (the warning comes from [`schema`], which sees every depth); a `type` that is not
/// a name or a list of names is an error.
fn parse_type(t: Option<&Value>, ptr: &str) -> Result<TypeSet, ToolsError> {
    match t {
        None => Ok(TypeSet(None)),
        Some(Value::String(s)) => Ok(TypeSet(TypeSet::parse_one(s).and_then(|t| t.map(|t| t as u8)))),
        Some(Value::Array(list)) => {
            let mut bits = 0u8;
            for item in list {
                let Some(s) = item.as_str() else {
                    return Err(terr(ptr, "expected type names"));
                };
                match TypeSet::parse_one(s) {
                    Some(Some(t)) => bits |= t as u8,
                    _ => return Ok(TypeSet(None)),
                }
            }
            Ok(TypeSet(Some(bits)))
        }
        Some(_) => Err(terr(ptr, "expected a type name or a list of type names")),
    }
}

/// How many `context.tool_schemas` documents are kept parsed.
const RECENT_DOCUMENTS: usize = 64;

/// `context.tool_schemas`, parsed once per distinct document per process. Documents are
/// compared whole (no hash: one walk that stops at the first difference); the most recently
/// used come first, since a batch or a server usually sees one set of tools again and again.
fn parsed_tool_schemas(doc: &Value) -> Result<Arc<ToolRegistry>, ToolsError> {
    type Recent = VecDeque<(Value, Arc<ToolRegistry>)>;
    static RECENT: LazyLock<Mutex<Recent>> = LazyLock::new(|| Mutex::new(VecDeque::new()));
    {
        // A poisoned lock still holds a consistent list (each change is one call).
        let mut recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = recent.iter().position(|(d, _)| d == doc) {
            let hit = Arc::clone(&recent[i].1);
            if i > 0
                && let Some(entry) = recent.remove(i)
            {
                recent.push_front(entry);
            }
            return Ok(hit);
        }
    }
    let parsed = Arc::new(ToolRegistry::from_json(doc, ToolOrigin::Graph).map_err(|e| ToolsError {
        pointer: format!("/context/tool_schemas{}", e.pointer.trim_end_matches('/')),
        message: e.message,
    })?);
    let mut recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
    if recent.len() >= RECENT_DOCUMENTS {
        recent.pop_back();
    }
    recent.push_front((doc.clone(), Arc::clone(&parsed)));
    Ok(parsed)
}

/// The tools visible to one evaluation: the graph's `context.tool_schemas` first (they win on
/// a name clash, with an info note), then the tools file.
#[derive(Debug, Clone)]
pub struct ToolView<'a> {
    graph: Arc<ToolRegistry>,
    file: &'a ToolRegistry,
}

impl<'a> ToolView<'a> {
    /// Builds the view; `notes` receives the names the graph overrides.
    ///
    /// The graph's `tool_schemas` are parsed once per distinct document per process: a batch
    /// whose answers carry the same tools parses and compiles them once.
    pub fn new(
        graph_context: Option<&serde_json::Map<String, Value>>,
        file: &'a ToolRegistry,
        notes: &mut Vec<String>,
    ) -> Result<Self, ToolsError> {
        let graph = match graph_context.and_then(|c| c.get("tool_schemas")) {
            Some(doc) => parsed_tool_schemas(doc)?,
            None => Arc::new(ToolRegistry::new()),
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

    /// Warnings about the tools in view, as `(source, pointer, message)`: the graph's
    /// (`/context/tool_schemas/…`), then the tools file's for tools the graph does not override.
    pub fn warnings(&self) -> impl Iterator<Item = (&'static str, String, &str)> {
        let graph =
            self.graph.warnings.iter().map(|w| ("graph", format!("/context/tool_schemas{}", w.pointer), w.message.as_str()));
        let file = self
            .file
            .warnings
            .iter()
            .filter(|w| self.graph.get(&w.tool).is_none())
            .map(|w| ("tools", w.pointer.clone(), w.message.as_str()));
        graph.chain(file)
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
        let bad = ToolRegistry::from_json(&json!([{"name":"f","parameters":{"properties":{"x":{"type":5}}}}]), ToolOrigin::File)
            .unwrap_err();
        assert_eq!(bad.pointer, "/0/parameters/properties/x/type");
        assert_eq!(bad.message, "expected a type name or a list of type names");
        assert!(ToolRegistry::from_json(&json!({"name":"f"}), ToolOrigin::File).is_err());
        assert!(ToolRegistry::from_json(&json!([{"parameters":{}}]), ToolOrigin::File).is_err());
    }

    #[test]
    fn unknown_type_names_are_warnings_and_admit_anything() {
        let doc = json!([
            {"type": "function", "function": {"name": "java_tool", "parameters": {"type": "dict", "properties": {
                "name": {"type": "String"}, "count": {"type": "long"}, "c": {"type": "char"},
                "items": {"type": "ArrayList", "items": {"type": "Bigint"}}}, "required": ["name"]}}},
            {"name": "plain", "parameters": {"properties": {"q": {"type": "string"}}}}
        ]);
        let reg = ToolRegistry::from_json(&doc, ToolOrigin::File).unwrap();
        assert_eq!(reg.len(), 2);
        let w: Vec<(&str, &str)> = reg.warnings().iter().map(|w| (w.tool.as_str(), w.pointer.as_str())).collect();
        assert_eq!(
            w,
            vec![
                ("java_tool", "/0/function/parameters/properties/c/type"),
                ("java_tool", "/0/function/parameters/properties/items/items/type")
            ]
        );
        assert!(reg.warnings()[0].message.starts_with("tool 'java_tool', parameter 'c': unknown type 'char': checked as any"));
        assert!(reg.warnings()[1].message.starts_with("tool 'java_tool', parameter 'items': unknown type 'Bigint'"));
        let view = ToolView::new(None, &reg, &mut Vec::new()).unwrap();
        let tc = |args: Value| ToolCall {
            id: "tc1".into(),
            name: "java_tool".into(),
            arguments: args.as_object().unwrap().clone(),
            span: Default::default(),
        };
        let ok = tc(json!({"name": "x", "count": 3, "c": [1], "items": [{"big": 1}]}));
        assert!(arguments_match_schema(&view, &ok, &mut Diag::none()));
        assert!(conform::arguments_conform(&view, &ok, &mut Diag::none()));
        let bad = tc(json!({"name": 1, "count": 1.5, "c": "x"}));
        let mut d = Vec::new();
        assert!(!arguments_match_schema(&view, &bad, &mut Diag::collect(&mut d)));
        assert_eq!(d, vec!["argument 'count': expected integer, got number", "argument 'name': expected string, got integer"]);
        let warnings: Vec<_> = view.warnings().map(|(src, p, _)| (src, p)).collect();
        assert_eq!(warnings[0], ("tools", "/0/function/parameters/properties/c/type".to_string()));
    }

    #[test]
    fn each_schema_compiles_once_whichever_graph_or_file_brings_it() {
        // As in a `--batch` or a server: many graphs carry the same tools, and a tools file
        // holds one of them too.
        let tools = json!([{"name": "lookup", "parameters": {"properties": {"id": {"type": "integer", "maximum": 9}}}},
                           {"name": "other", "parameters": {"properties": {"q": {"type": "string"}}}}]);
        let ctx = json!({"tool_schemas": tools.clone()});
        let empty = ToolRegistry::new();
        let a = ToolView::new(ctx.as_object(), &empty, &mut Vec::new()).unwrap();
        let b = ToolView::new(ctx.as_object(), &empty, &mut Vec::new()).unwrap();
        assert!(Arc::ptr_eq(&a.graph, &b.graph), "the document is parsed once");
        let file = ToolRegistry::from_json(&json!([tools[0].clone()]), ToolOrigin::File).unwrap();
        let (x, y) = (a.get("lookup").unwrap(), file.get("lookup").unwrap());
        assert!(x.shares_compiled_schema(y), "the same parameters compile once");
        assert!(!x.shares_compiled_schema(a.get("other").unwrap()));
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
