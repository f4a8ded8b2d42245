//! Tool parameter schemas as JSON Schema: normalised (type aliases resolved, unknown type names
//! dropped with a warning) and compiled with the `jsonschema` crate.
//!
//! Compiling is the expensive step, so compiled schemas live in a process-wide cache keyed by
//! the schema's content: a `--batch`, a server process or a test suite compiles each distinct
//! schema once, whichever answer or request brings it. The cache is bounded (it is emptied when
//! full) so that a server fed ever-new schemas cannot grow without limit; what it holds never
//! changes a result, only how fast it comes.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::{Map, Value};
use warrant_graph::push_pointer;

use super::types::{JsonType, KNOWN_NAMES, TypeName, resolve};

/// A problem found while normalising one tool's `parameters`, located relative to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaNote {
    /// JSON pointer relative to the tool's `parameters` (`/properties/x/type`).
    pub(crate) pointer: String,
    /// The top-level parameter it is under, if any.
    pub(crate) parameter: Option<String>,
    /// What is wrong and what happens instead.
    pub(crate) message: String,
}

/// One tool's `parameters`, normalised and compiled.
pub(crate) struct Compiled {
    /// The normalised schema (walked to find `null` optional arguments).
    pub(crate) schema: Value,
    /// How arguments are validated, or why the schema does not compile.
    pub(crate) check: Result<Check, String>,
    /// What normalisation and compilation noticed.
    pub(crate) notes: Vec<SchemaNote>,
}

/// How a tool's arguments are validated.
pub(crate) enum Check {
    /// The usual shape of a tool schema: an object with `properties`, `required` and a boolean
    /// `additionalProperties`, and no `$ref`. Each property has its own validator, so a call is
    /// validated member by member, without copying its arguments into one JSON value.
    Properties {
        /// Declared parameters: their schema (for `null` handling) and validator.
        properties: BTreeMap<String, (Value, jsonschema::Validator)>,
        /// Required parameter names.
        required: Vec<String>,
        /// `additionalProperties: false`.
        closed: bool,
    },
    /// Any other schema, validated whole.
    Whole(jsonschema::Validator),
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled").field("schema", &self.schema).field("compiles", &self.check.is_ok()).finish()
    }
}

/// Normalises and compiles `parameters` (absent: an object with no constraint), through the
/// process-wide cache.
pub(crate) fn compiled(parameters: Option<&Value>) -> Arc<Compiled> {
    static EMPTY: LazyLock<Value> = LazyLock::new(|| serde_json::json!({"type": "object"}));
    let raw = parameters.unwrap_or(&EMPTY);
    static CACHE: LazyLock<Mutex<ContentCache<Compiled>>> = LazyLock::new(|| Mutex::new(ContentCache::new(4096)));
    ContentCache::get_or_insert(&CACHE, raw, || compile(raw))
}

fn compile(raw: &Value) -> Compiled {
    let mut notes = Vec::new();
    let schema = normalise(raw, "", None, &mut notes);
    let check = match properties_only(&schema) {
        Some((props, required, closed)) => {
            let mut properties = BTreeMap::new();
            let mut failed = None;
            for (name, sub) in props {
                match build(sub) {
                    Ok(v) => {
                        properties.insert(name.clone(), (sub.clone(), v));
                    }
                    Err(why) => {
                        failed = Some(format!("{}{why}", push_pointer("/properties", name)));
                        break;
                    }
                }
            }
            match failed {
                Some(why) => Err(why),
                None => Ok(Check::Properties { properties, required, closed }),
            }
        }
        None => build(&schema).map(Check::Whole).map_err(|e| e.trim_start_matches(": ").to_string()),
    };
    if let Err(why) = &check {
        notes.push(SchemaNote {
            pointer: String::new(),
            parameter: None,
            message: format!(
                "the parameter schema is not valid JSON Schema ({why}); its calls fail warrant.tool-schema.v1 until it is fixed"
            ),
        });
    }
    Compiled { schema, check, notes }
}

/// Compiles one schema; the error is `<pointer in the schema>: <why>` (pointer may be empty).
fn build(schema: &Value) -> Result<jsonschema::Validator, String> {
    let mut options = jsonschema::options().should_validate_formats(true);
    // Tool schemas rarely say which draft they follow; draft-07 is the spec's reference, and
    // keywords of later drafts it does not know are ignored rather than refused.
    if schema.get("$schema").is_none() {
        options = options.with_draft(jsonschema::Draft::Draft7);
    }
    options.build(schema).map_err(|e| {
        let at = e.instance_path().as_str();
        if at.is_empty() { format!(": {e}") } else { format!("{at}: {e}") }
    })
}

/// Root keywords that the per-property check handles (or that only annotate).
const PLAIN_ROOT: [&str; 12] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "optional",
    "definitions",
    "$defs",
];

/// The declared properties, required names and `additionalProperties: false` of a schema that
/// the per-property check validates exactly as the whole schema would; `None` otherwise.
fn properties_only(schema: &Value) -> Option<(&Map<String, Value>, Vec<String>, bool)> {
    let obj = schema.as_object()?;
    if obj.keys().any(|k| !PLAIN_ROOT.contains(&k.as_str())) || has_reference(schema) {
        return None;
    }
    if obj.get("type").is_some_and(|t| t != "object") {
        return None;
    }
    let empty = LazyLock::force(&EMPTY_MAP);
    let props = match obj.get("properties") {
        None => empty,
        Some(p) => p.as_object()?,
    };
    let required = match obj.get("required") {
        None => Vec::new(),
        Some(r) => r.as_array()?.iter().map(|x| x.as_str().map(str::to_string)).collect::<Option<Vec<_>>>()?,
    };
    let closed = match obj.get("additionalProperties") {
        None | Some(Value::Bool(true)) => false,
        Some(Value::Bool(false)) => true,
        Some(_) => return None,
    };
    Some((props, required, closed))
}

static EMPTY_MAP: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// True when a `$ref` (or a keyword that moves what refs resolve against) appears anywhere: a
/// property's schema could then not be compiled on its own.
fn has_reference(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            o.keys().any(|k| matches!(k.as_str(), "$ref" | "$id" | "$dynamicRef" | "$recursiveRef" | "$anchor"))
                || o.values().any(has_reference)
        }
        Value::Array(a) => a.iter().any(has_reference),
        _ => false,
    }
}

/// Keywords whose value is one schema.
const ONE_SCHEMA: [&str; 10] = [
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: [&str; 5] = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"];
/// Keywords whose value is a list of schemas (`items` may also be one schema).
const SCHEMA_LISTS: [&str; 5] = ["items", "prefixItems", "allOf", "anyOf", "oneOf"];

/// Copies a schema with every `type` resolved to JSON Schema's names. An unknown or ambiguous
/// name is dropped (the schema then admits any type) and noted.
fn normalise(v: &Value, ptr: &str, parameter: Option<&str>, notes: &mut Vec<SchemaNote>) -> Value {
    let Value::Object(obj) = v else { return v.clone() };
    let mut out = Map::new();
    for (k, sub) in obj {
        let at = push_pointer(ptr, k);
        let k = k.as_str();
        let value = if k == "type" {
            match normalise_type(sub, &at, parameter, notes) {
                Some(t) => t,
                None => continue,
            }
        } else if SCHEMA_MAPS.contains(&k) && sub.is_object() {
            let mut m = Map::new();
            for (name, s) in sub.as_object().into_iter().flatten() {
                // Below the top-level `properties`, warnings name the parameter they are under.
                let param = match (parameter, k, ptr.is_empty()) {
                    (None, "properties", true) => Some(name.as_str()),
                    _ => parameter,
                };
                m.insert(name.clone(), normalise(s, &push_pointer(&at, name), param, notes));
            }
            Value::Object(m)
        } else if SCHEMA_LISTS.contains(&k) {
            match sub {
                Value::Array(list) => Value::Array(
                    list.iter().enumerate().map(|(i, s)| normalise(s, &format!("{at}/{i}"), parameter, notes)).collect(),
                ),
                one => normalise(one, &at, parameter, notes),
            }
        } else if ONE_SCHEMA.contains(&k) || (k == "dependencies" && sub.is_object()) {
            match (k, sub) {
                ("dependencies", Value::Object(deps)) => Value::Object(
                    deps.iter().map(|(n, d)| (n.clone(), normalise(d, &push_pointer(&at, n), parameter, notes))).collect(),
                ),
                _ => normalise(sub, &at, parameter, notes),
            }
        } else {
            sub.clone()
        };
        out.insert(k.to_string(), value);
    }
    Value::Object(out)
}

/// The JSON Schema `type` for a type name or list of names; `None` when it constrains nothing.
/// A value that is neither is kept as written, for the compiler to report.
fn normalise_type(t: &Value, at: &str, parameter: Option<&str>, notes: &mut Vec<SchemaNote>) -> Option<Value> {
    let mut note = |name: &str, what: TypeName| {
        let message = match what {
            TypeName::Ambiguous => {
                format!("ambiguous type '{name}' (a JSON object, or any value as Java's Object): checked as any")
            }
            _ => format!("unknown type '{name}': checked as any (type names understood: {KNOWN_NAMES})"),
        };
        notes.push(SchemaNote { pointer: at.to_string(), parameter: parameter.map(str::to_string), message });
    };
    match t {
        Value::String(name) => match resolve(name) {
            TypeName::Json(j) => Some(Value::String(j.name().into())),
            TypeName::Any => None,
            other => {
                note(name, other);
                None
            }
        },
        Value::Array(names) => {
            let mut out: Vec<JsonType> = Vec::with_capacity(names.len());
            let mut any = false;
            for n in names {
                let Some(name) = n.as_str() else { return Some(t.clone()) };
                match resolve(name) {
                    TypeName::Json(j) => {
                        if !out.contains(&j) {
                            out.push(j);
                        }
                    }
                    TypeName::Any => any = true,
                    other => {
                        note(name, other);
                        any = true;
                    }
                }
            }
            (!any).then(|| Value::Array(out.into_iter().map(|j| Value::String(j.name().into())).collect()))
        }
        other => Some(other.clone()),
    }
}

/// A bounded map from JSON content to a value built from it. Lookups hash the content and
/// confirm a hit by comparing it, so a hash collision can only cost a rebuild.
pub(crate) struct ContentCache<T> {
    buckets: HashMap<u64, Vec<(Value, Arc<T>)>>,
    len: usize,
    cap: usize,
}

impl<T> ContentCache<T> {
    pub(crate) fn new(cap: usize) -> Self {
        Self { buckets: HashMap::new(), len: 0, cap }
    }

    fn get(&self, key: u64, content: &Value) -> Option<Arc<T>> {
        self.buckets.get(&key)?.iter().find(|(v, _)| v == content).map(|(_, t)| Arc::clone(t))
    }

    fn insert(&mut self, key: u64, content: &Value, t: Arc<T>) {
        if self.len >= self.cap {
            self.buckets.clear();
            self.len = 0;
        }
        self.buckets.entry(key).or_default().push((content.clone(), t));
        self.len += 1;
    }

    /// The cached value for `content`, or `build()` cached. The lock is not held while
    /// building, so two threads may build the same value once each; both results are equal.
    pub(crate) fn get_or_insert(cache: &Mutex<Self>, content: &Value, build: impl FnOnce() -> T) -> Arc<T> {
        match Self::get_or_try_insert(cache, content, || Ok::<T, std::convert::Infallible>(build())) {
            Ok(t) => t,
            Err(never) => match never {},
        }
    }

    /// Like [`ContentCache::get_or_insert`]; a build that fails is not cached.
    pub(crate) fn get_or_try_insert<E>(
        cache: &Mutex<Self>,
        content: &Value,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        let key = content_hash(content);
        // A panic elsewhere while holding the lock leaves the map consistent (every mutation
        // is a single call), so a poisoned lock is still usable.
        if let Some(hit) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(key, content) {
            return Ok(hit);
        }
        let built = Arc::new(build()?);
        cache.lock().unwrap_or_else(|p| p.into_inner()).insert(key, content, Arc::clone(&built));
        Ok(built)
    }
}

/// A hash of a JSON value's content (object keys in their map order, which is sorted). A fast
/// hash with a fixed seed: hits are confirmed by comparing the content, so its only job is
/// to spread keys.
pub(crate) fn content_hash(v: &Value) -> u64 {
    fn walk(v: &Value, h: &mut impl Hasher) {
        match v {
            Value::Null => h.write_u8(0),
            Value::Bool(b) => h.write_u8(1 + u8::from(*b)),
            Value::Number(n) => {
                h.write_u8(3);
                h.write(n.as_str().as_bytes());
                h.write_u8(0xff);
            }
            Value::String(s) => {
                h.write_u8(4);
                h.write(s.as_bytes());
                h.write_u8(0xff);
            }
            Value::Array(a) => {
                h.write_u8(5);
                h.write_usize(a.len());
                a.iter().for_each(|x| walk(x, h));
            }
            Value::Object(o) => {
                h.write_u8(6);
                h.write_usize(o.len());
                for (k, x) in o {
                    h.write(k.as_bytes());
                    h.write_u8(0xff);
                    walk(x, h);
                }
            }
        }
    }
    let mut h = foldhash::fast::FixedState::with_seed(0x5741_5252_414e_5431).build_hasher();
    walk(v, &mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_are_resolved_at_every_depth() {
        let raw = json!({"type": "dict", "properties": {
            "a": {"type": "ArrayList", "items": {"type": "HashMap", "properties": {"n": {"type": "long"}}}},
            "b": {"anyOf": [{"type": "String"}, {"type": ["Double", "float", "null"]}]},
            "c": {"type": "any"}
        }});
        let mut notes = Vec::new();
        let n = normalise(&raw, "", None, &mut notes);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(
            n,
            json!({"type": "object", "properties": {
                "a": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
                "b": {"anyOf": [{"type": "string"}, {"type": ["number", "null"]}]},
                "c": {}
            }})
        );
    }

    #[test]
    fn unknown_and_ambiguous_types_are_noted_and_unconstrained() {
        let raw = json!({"properties": {
            "c": {"type": "char"},
            "o": {"type": "Object"},
            "l": {"type": "array", "items": {"type": "Bigint"}},
            "u": {"type": ["string", "Symbol"]}
        }});
        let mut notes = Vec::new();
        let n = normalise(&raw, "", None, &mut notes);
        assert_eq!(n, json!({"properties": {"c": {}, "o": {}, "l": {"type": "array", "items": {}}, "u": {}}}));
        let got: Vec<(&str, Option<&str>)> = notes.iter().map(|n| (n.pointer.as_str(), n.parameter.as_deref())).collect();
        assert_eq!(
            got,
            vec![
                ("/properties/c/type", Some("c")),
                ("/properties/l/items/type", Some("l")),
                ("/properties/o/type", Some("o")),
                ("/properties/u/type", Some("u")),
            ]
        );
        assert!(notes[0].message.starts_with("unknown type 'char'"), "{}", notes[0].message);
        assert!(notes[2].message.starts_with("ambiguous type 'Object'"), "{}", notes[2].message);
    }

    #[test]
    fn compiled_once_per_content() {
        let a = compiled(Some(&json!({"properties": {"x": {"type": "string", "minLength": 2}}})));
        let b = compiled(Some(&json!({"properties": {"x": {"type": "string", "minLength": 2}}})));
        let c = compiled(Some(&json!({"properties": {"x": {"type": "string", "minLength": 3}}})));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(matches!(a.check, Ok(Check::Properties { .. })));
    }

    #[test]
    fn a_schema_that_does_not_compile_is_noted() {
        let c = compiled(Some(&json!({"properties": {"x": {"type": "string", "pattern": "(unclosed"}}})));
        assert!(c.check.is_err());
        assert_eq!(c.notes.len(), 1);
        assert!(c.notes[0].message.contains("not valid JSON Schema (/properties/x"), "{}", c.notes[0].message);
        let c = compiled(Some(&json!({"anyOf": [{"required": ["a"]}], "properties": {"x": {"minLength": "two"}}})));
        assert!(c.notes[0].message.contains("not valid JSON Schema (/properties/x/minLength: "), "{}", c.notes[0].message);
    }

    #[test]
    fn plain_object_schemas_are_checked_per_property() {
        let shape = |s: Value| match compiled(Some(&s)).check {
            Ok(Check::Properties { .. }) => "properties",
            Ok(Check::Whole(_)) => "whole",
            Err(_) => "error",
        };
        assert_eq!(
            shape(json!({"type": "dict", "properties": {"a": {"type": "string"}}, "required": ["a"], "description": "d"})),
            "properties"
        );
        assert_eq!(shape(json!({"additionalProperties": false})), "properties");
        assert_eq!(shape(json!({"properties": {"a": {"$ref": "#/definitions/x"}}, "definitions": {"x": {}}})), "whole");
        assert_eq!(shape(json!({"properties": {}, "anyOf": [{"required": ["a"]}]})), "whole");
        assert_eq!(shape(json!({"properties": {}, "additionalProperties": {"type": "string"}})), "whole");
        assert_eq!(shape(json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {}})), "whole");
        assert_eq!(shape(json!({"type": "array"})), "whole");
    }

    #[test]
    fn the_cache_is_bounded_and_collisions_only_rebuild() {
        let cache = Mutex::new(ContentCache::<u32>::new(2));
        let build = |n| move || n;
        assert_eq!(*ContentCache::get_or_insert(&cache, &json!(1), build(1)), 1);
        assert_eq!(*ContentCache::get_or_insert(&cache, &json!(1), build(99)), 1, "a hit");
        assert_eq!(*ContentCache::get_or_insert(&cache, &json!(2), build(2)), 2);
        assert_eq!(*ContentCache::get_or_insert(&cache, &json!(3), build(3)), 3, "full: emptied, then stored");
        assert_eq!(cache.lock().unwrap().len, 1);
        assert_ne!(content_hash(&json!({"a": "b"})), content_hash(&json!({"ab": ""})));
        assert_ne!(content_hash(&json!(["a", "b"])), content_hash(&json!(["ab"])));
        assert_ne!(content_hash(&json!(1)), content_hash(&json!(1.0)));
    }
}
