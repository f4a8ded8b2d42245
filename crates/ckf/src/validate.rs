//! Package validation (§9): the embedded JSON Schema plus the write-mode and read-mode checks.
//!
//! - **Write mode** (strict, what this compiler writes): every §9.1 error is an error.
//! - **Read mode** (lenient, D40): the structural checks stay errors — the schema (sections
//!   present, types, scores in [0, 1]) and resolving cross-references — and every write-mode
//!   rule becomes a warning. That is what packages from the reference compiler need: sequential
//!   ids, `pkg_<base36>` package ids, `related[{name, relation}]`, string subdomains, a free
//!   `domain`, `extraction_type` = section name, unrounded confidences, no NFC.
//!
//! Benchmark projections (§11) are not packages. [`read_package`] declines them; [`check`]
//! recognises them and checks their documented projection shape instead.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};
use warrant_graph::{CompiledSchema, json_kind, push_pointer};
use warrant_text::fasthash::FastSet;

use crate::domain::DOMAINS;
use crate::model::{Basis, Section};
use crate::normalize::is_normalized;

/// The package schema (read-mode structure), embedded.
pub const PACKAGE_SCHEMA: &str = include_str!("../schemas/ckf-package-1.0.schema.json");
/// The benchmark projection schema, embedded.
pub const PROJECTION_SCHEMA: &str = include_str!("../schemas/ckf-benchmark-case-0.1.schema.json");

static PACKAGE: LazyLock<CompiledSchema> =
    LazyLock::new(|| CompiledSchema::compile(PACKAGE_SCHEMA).unwrap_or_else(|e| panic!("embedded package schema: {e}")));
static PROJECTION: LazyLock<CompiledSchema> =
    LazyLock::new(|| CompiledSchema::compile(PROJECTION_SCHEMA).unwrap_or_else(|e| panic!("embedded projection schema: {e}")));

/// Validation strictness (§9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Lenient: write-mode rules are warnings (D40).
    Read,
    /// Strict: write-mode rules are errors.
    Write,
}

/// What a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A package.
    Package,
    /// A §11 benchmark projection (not a package).
    BenchmarkProjection,
}

/// A located finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// JSON pointer (`""` is the document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// The result of validating one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Package or projection.
    pub shape: Shape,
    /// Errors (the document is invalid when there is one).
    pub errors: Vec<Finding>,
    /// Warnings.
    pub warnings: Vec<Finding>,
}

impl Report {
    /// True without errors.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Why a document cannot be read as a package.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A benchmark projection, declined (§9.2).
    #[error("not a package: a CKF-compatible benchmark projection ({0}); package readers decline it (§9.2)")]
    BenchmarkProjection(&'static str),
    /// Structurally invalid.
    #[error("not a valid package: {}{}", .0.path, if .0.path.is_empty() { .0.message.clone() } else { format!(": {}", .0.message) })]
    Invalid(Finding),
}

/// The §11 projection marker of a document, if it has one.
pub fn projection_marker(v: &Value) -> Option<&'static str> {
    if v.get("ckf_document_type").and_then(Value::as_str) == Some("ckf_compatible_benchmark_case") {
        return Some("ckf_document_type: ckf_compatible_benchmark_case");
    }
    if v.get("metadata").and_then(|m| m.get("ckf_profile")).and_then(Value::as_str) == Some("experimental_benchmark_case") {
        return Some("metadata.ckf_profile: experimental_benchmark_case");
    }
    None
}

/// True when a JSON document looks like a package or a projection (for kind detection).
pub fn looks_like_package(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if projection_marker(v).is_some() || o.contains_key("package_metadata") {
        return true;
    }
    let sections = crate::model::TOP_LEVEL_SECTIONS.iter().filter(|k| o.contains_key(**k)).count();
    o.contains_key("metadata") && sections >= 3
}

/// Reads a package in read mode: declines projections and structurally invalid documents.
pub fn read_package(v: &Value) -> Result<Report, ReadError> {
    if let Some(m) = projection_marker(v) {
        return Err(ReadError::BenchmarkProjection(m));
    }
    let r = check(v, Mode::Read);
    match r.errors.first() {
        Some(e) => Err(ReadError::Invalid(e.clone())),
        None => Ok(r),
    }
}

/// Validates a document (see module docs).
pub fn check(v: &Value, mode: Mode) -> Report {
    if projection_marker(v).is_some() {
        let errors = PROJECTION.errors(v).into_iter().map(|e| Finding { path: e.pointer, message: e.message }).collect();
        return Report { shape: Shape::BenchmarkProjection, errors, warnings: Vec::new() };
    }
    let mut c = Checker { mode, errors: Vec::new(), warnings: Vec::new() };
    for e in PACKAGE.errors(v) {
        c.errors.push(Finding { path: e.pointer, message: e.message });
    }
    if c.errors.is_empty()
        && let Some(o) = v.as_object()
    {
        c.package(o);
    }
    Report { shape: Shape::Package, errors: c.errors, warnings: c.warnings }
}

struct Checker {
    mode: Mode,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
}

static PACKAGE_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z0-9]+(-[a-z0-9]+)*$").unwrap_or_else(|e| panic!("{e}")));
static SPAN_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^s_[0-9]{3,}$").unwrap_or_else(|e| panic!("{e}")));
static REFERENCE_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:e|c|p|h|dr|pr|pt|ap|cc|ct|it|ex|mm|pb|qa|rc|au|itr)_[0-9]+$").unwrap_or_else(|e| panic!("{e}"))
});

const COMPRESSION: [&str; 4] = ["light", "standard", "dense", "agentic"];
const DIFFICULTY: [&str; 3] = ["easy", "medium", "hard"];
const ATOMIC_TYPES: [&str; 9] =
    ["fact", "rule", "definition", "claim", "heuristic", "numeric_fact", "obligation", "prohibition", "exception"];

fn verb_like(first: &str) -> bool {
    let w = first.to_lowercase();
    crate::gate::VERBS.contains(&w.as_str())
        || w == "to"
        || w.ends_with("ing")
        || (w.len() > 3 && (w.ends_with("ar") || w.ends_with("er") || w.ends_with("ir")) && !w.ends_with("ter"))
}

fn looks_plural(label: &str) -> bool {
    let Some(last) = label.split_whitespace().last() else { return false };
    let lower_start = last.chars().next().is_some_and(char::is_lowercase);
    lower_start
        && last.len() > 3
        && last.ends_with('s')
        && !last.ends_with("ss")
        && !last.ends_with("us")
        && !last.ends_with("is")
        && !last.ends_with("ics")
}

fn decimals_ok(n: &serde_json::Number) -> bool {
    let s = n.to_string();
    if s.contains(['e', 'E']) {
        let f = n.as_f64().unwrap_or(0.0);
        return ((f * 100.0).round() - f * 100.0).abs() < 1e-9;
    }
    s.split_once('.').is_none_or(|(_, frac)| frac.len() <= 2)
}

impl Checker {
    fn err(&mut self, path: &str, message: impl Into<String>) {
        self.errors.push(Finding { path: path.to_string(), message: message.into() });
    }

    fn warn(&mut self, path: &str, message: impl Into<String>) {
        self.warnings.push(Finding { path: path.to_string(), message: message.into() });
    }

    /// A write-mode rule: an error in write mode, a warning in read mode.
    fn strict(&mut self, path: &str, message: impl Into<String>) {
        match self.mode {
            Mode::Write => self.err(path, message),
            Mode::Read => self.warn(path, message),
        }
    }

    fn package(&mut self, o: &Map<String, Value>) {
        let meta = o.get("metadata").and_then(Value::as_object);
        if let Some(m) = meta {
            self.metadata(m);
        }
        // Ids per section, and every id in the package.
        let mut ids: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        let mut basis_of: BTreeMap<String, (String, String)> = BTreeMap::new(); // id → (basis, pointer)
        for s in Section::ALL {
            let key = s.key();
            let Some(items) = o.get(key).and_then(Value::as_array) else { continue };
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            for (i, it) in items.iter().enumerate() {
                let p = push_pointer(&push_pointer("", key), &i.to_string());
                let Some(item) = it.as_object() else { continue };
                let id = item.get("id").and_then(Value::as_str).unwrap_or("");
                if let Some(first) = seen.insert(id.to_string(), i) {
                    self.err(&push_pointer(&p, "id"), format!("duplicate id '{id}' in {key} (also at index {first})"));
                }
                ids.entry(key).or_default().push(id.to_string());
                self.item(s, item, &p);
                let basis = item.get("source_basis").and_then(Value::as_str).unwrap_or("").to_string();
                basis_of.insert(id.to_string(), (basis, p));
            }
        }
        self.references(o, &ids);
        self.traceability(o, &basis_of, meta);
        self.objects(o, meta);
        self.strings(o);
    }

    fn metadata(&mut self, m: &Map<String, Value>) {
        let pid = m.get("package_id").and_then(Value::as_str).unwrap_or("");
        if !PACKAGE_ID.is_match(pid) {
            let note = if pid.starts_with("pkg_") { " (a reference-compiler package id)" } else { "" };
            self.strict("/metadata/package_id", format!("package_id '{pid}' is not kebab-case <source-slug>-<version>{note}"));
        }
        let domain = m.get("domain").and_then(Value::as_str).unwrap_or("");
        if !DOMAINS.contains(&domain) {
            self.strict("/metadata/domain", format!("domain '{domain}' is not one of the closed enum ({})", DOMAINS.join(", ")));
        }
        let level = m.get("compression_level").and_then(Value::as_str).unwrap_or("");
        if !COMPRESSION.contains(&level) {
            self.strict(
                "/metadata/compression_level",
                format!("compression_level '{level}' is not one of {}", COMPRESSION.join(", ")),
            );
        }
        if m.get("protocol_version").and_then(Value::as_str) != Some(crate::compile::PROTOCOL_VERSION) {
            self.warn("/metadata/protocol_version", format!("protocol_version is not {}", crate::compile::PROTOCOL_VERSION));
        }
        for k in ["human_readability", "ai_utility_score"] {
            if let Some(Value::Number(n)) = m.get(k)
                && !decimals_ok(n)
            {
                self.strict(&format!("/metadata/{k}"), format!("{k} has more than 2 decimals"));
            }
        }
        if let Some(Value::Array(man)) = m.get("source_manifest") {
            for (i, e) in man.iter().enumerate() {
                let id = e.get("source_id").and_then(Value::as_str).unwrap_or("");
                if !SPAN_ID.is_match(id) {
                    self.strict(
                        &format!("/metadata/source_manifest/{i}/source_id"),
                        format!("source_id '{id}' is not a span id s_NNN"),
                    );
                }
            }
        }
    }

    fn item(&mut self, s: Section, item: &Map<String, Value>, p: &str) {
        let spec = s.spec();
        let id = item.get("id").and_then(Value::as_str).unwrap_or("");
        let slug_ok = id
            .strip_prefix(spec.prefix)
            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
        if !slug_ok {
            let note = if REFERENCE_ID.is_match(id) { " (a reference-compiler sequential id)" } else { "" };
            self.strict(&push_pointer(p, "id"), format!("id '{id}' does not match ^{}[a-z0-9_]+${note}", spec.prefix));
        }
        for fs in spec.fields.iter().filter(|f| f.required) {
            let empty = match item.get(fs.name) {
                Some(Value::String(x)) => x.trim().is_empty(),
                Some(Value::Array(a)) => a.is_empty(),
                Some(_) => false,
                None => true,
            };
            if empty {
                self.strict(&push_pointer(p, fs.name), format!("required field '{}' is empty", fs.name));
            }
        }
        // Trace fields (project rule: on every item).
        for k in ["source_basis", "confidence", "source_refs", "source_excerpts"] {
            if !item.contains_key(k) {
                self.strict(p, format!("missing trace field '{k}'"));
            }
        }
        let basis = item.get("source_basis").and_then(Value::as_str);
        if let Some(b) = basis
            && Basis::parse(b).is_none()
        {
            self.strict(
                &push_pointer(p, "source_basis"),
                format!("source_basis '{b}' is not explicit, inferred, synthesized, author_opinion or uncertain"),
            );
        }
        if let Some(Value::Number(n)) = item.get("confidence") {
            if !decimals_ok(n) {
                self.strict(&push_pointer(p, "confidence"), "confidence has more than 2 decimals (unrounded)");
            }
            if n.as_f64().unwrap_or(1.0) < 0.25 && basis != Some("uncertain") {
                self.strict(&push_pointer(p, "confidence"), "confidence below 0.25 requires source_basis 'uncertain'");
            }
        }
        let refs = item.get("source_refs").and_then(Value::as_array).map_or(0, Vec::len);
        let excerpts = item.get("source_excerpts").and_then(Value::as_array);
        if basis == Some("explicit") && (refs == 0 || excerpts.is_none_or(Vec::is_empty)) {
            self.strict(p, "an explicit item needs a source_ref and a verbatim excerpt (no silent inference, §5.2)");
        }
        if let Some(ex) = excerpts {
            if ex.len() > 2 {
                self.warn(&push_pointer(p, "source_excerpts"), format!("{} excerpts; at most 2 are expected", ex.len()));
            }
            for (k, e) in ex.iter().enumerate() {
                if e.as_str().is_some_and(|t| t.chars().count() > 240) {
                    self.warn(&push_pointer(&push_pointer(p, "source_excerpts"), &k.to_string()), "excerpt over 240 characters");
                }
            }
        }
        if let Some(Value::Array(rs)) = item.get("source_refs") {
            for (k, r) in rs.iter().enumerate() {
                if !r.as_str().is_some_and(|r| SPAN_ID.is_match(r)) {
                    self.strict(
                        &push_pointer(&push_pointer(p, "source_refs"), &k.to_string()),
                        "source_ref is not a span id s_NNN",
                    );
                }
            }
        }
        match s {
            Section::QaPairs => {
                if let Some(d) = item.get("difficulty").and_then(Value::as_str)
                    && !DIFFICULTY.contains(&d)
                {
                    self.strict(&push_pointer(p, "difficulty"), format!("difficulty '{d}' is not easy, medium or hard"));
                }
            }
            Section::AtomicUnits => {
                let t = item.get("type").and_then(Value::as_str).unwrap_or("");
                if !ATOMIC_TYPES.contains(&t) {
                    self.strict(&push_pointer(p, "type"), format!("atomic type '{t}' is not one of {}", ATOMIC_TYPES.join(", ")));
                }
            }
            Section::Entities if item.contains_key("related") => {
                self.strict(&push_pointer(p, "related"), "entity relations as related[{name, relation}] (reference-compiler shape); write related_entities[{entity_id, relation_type, confidence}]");
            }
            _ => {}
        }
        // Label style (warnings only).
        let label = spec.label.iter().filter_map(|f| item.get(*f).and_then(Value::as_str)).collect::<Vec<_>>().join(" ");
        if matches!(s, Section::Entities | Section::Concepts) && looks_plural(&label) {
            self.warn(&push_pointer(p, spec.label[0]), format!("label '{label}' looks plural; labels are singular"));
        }
        if matches!(s, Section::Procedures | Section::Playbooks)
            && let Some(first) = label.split_whitespace().next()
            && !verb_like(first)
        {
            self.warn(&push_pointer(p, "name"), format!("name '{label}' does not start with a verb"));
        }
    }

    fn references(&mut self, o: &Map<String, Value>, ids: &BTreeMap<&'static str, Vec<String>>) {
        fn set<'a>(ids: &'a BTreeMap<&'static str, Vec<String>>, keys: &[&str]) -> Vec<&'a String> {
            keys.iter().flat_map(|k| ids.get(*k).into_iter().flatten()).collect()
        }
        let entities = set(ids, &["entities"]);
        let concepts = set(ids, &["concepts"]);
        let rules = set(ids, &["principles", "decision_rules", "if_then_rules", "exceptions"]);
        let atomic = set(ids, &["atomic_units"]);
        let all: Vec<&String> = ids.values().flatten().collect();
        let checks: [(&str, &[&str], &Vec<&String>, &str); 10] = [
            ("concepts", &["depends_on"], &concepts, "concepts"),
            ("concepts", &["contradicts"], &concepts, "concepts"),
            ("concepts", &["supports"], &concepts, "concepts"),
            ("concepts", &["enables"], &concepts, "concepts"),
            ("concepts", &["risks"], &concepts, "concepts"),
            ("qa_pairs", &["source_concepts"], &concepts, "concepts"),
            ("retrieval_chunks", &["related_entities"], &entities, "entities"),
            ("retrieval_chunks", &["related_concepts"], &concepts, "concepts"),
            ("retrieval_chunks", &["related_rules"], &rules, "principles, decision_rules, if_then_rules or exceptions"),
            ("atomic_units", &["dependencies"], &atomic, "atomic_units"),
        ];
        for (section, fields, targets, what) in checks {
            self.ref_lists(o, section, fields, targets, what);
        }
        self.ref_lists(o, "contextual_triggers", &["activate_knowledge"], &all, "an item");
        if let Some(Value::Array(items)) = o.get("entities") {
            let entity_set: FastSet<&str> = entities.iter().map(|e| e.as_str()).collect();
            for (i, it) in items.iter().enumerate() {
                let Some(Value::Array(rels)) = it.get("related_entities") else { continue };
                for (k, r) in rels.iter().enumerate() {
                    let t = r.get("entity_id").and_then(Value::as_str).unwrap_or("");
                    if !entity_set.contains(t) {
                        self.err(&format!("/entities/{i}/related_entities/{k}/entity_id"), format!("'{t}' is not an entity id"));
                    }
                }
            }
        }
    }

    fn ref_lists(&mut self, o: &Map<String, Value>, section: &str, fields: &[&str], targets: &[&String], what: &str) {
        let Some(Value::Array(items)) = o.get(section) else { return };
        let targets: FastSet<&str> = targets.iter().map(|x| x.as_str()).collect();
        for (i, it) in items.iter().enumerate() {
            for f in fields {
                let Some(Value::Array(refs)) = it.get(*f) else { continue };
                for (k, r) in refs.iter().enumerate() {
                    let t = r.as_str().unwrap_or("");
                    if !targets.contains(t) {
                        self.err(&format!("/{section}/{i}/{f}/{k}"), format!("'{t}' does not resolve to {what}"));
                    }
                }
            }
        }
    }

    fn traceability(
        &mut self,
        o: &Map<String, Value>,
        basis_of: &BTreeMap<String, (String, String)>,
        meta: Option<&Map<String, Value>>,
    ) {
        let rows: &[Value] = o.get("source_traceability").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let spans: FastSet<&str> = meta
            .and_then(|m| m.get("source_manifest"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|e| e.get("source_id").and_then(Value::as_str)).collect())
            .unwrap_or_default();
        let mut has_row: BTreeMap<&str, bool> = BTreeMap::new();
        let section_names: Vec<&str> = Section::ALL.iter().map(|s| s.key()).collect();
        for (i, r) in rows.iter().enumerate() {
            let p = format!("/source_traceability/{i}");
            let id = r.get("extracted_item_id").and_then(Value::as_str).unwrap_or("");
            let et = r.get("extraction_type").and_then(Value::as_str).unwrap_or("");
            let loc = r.get("source_location").and_then(Value::as_str).unwrap_or("");
            match basis_of.get(id) {
                None => self.strict(&format!("{p}/extracted_item_id"), format!("'{id}' is not an item id")),
                Some((basis, _)) => {
                    has_row.insert(id, true);
                    if et != basis {
                        let note =
                            if section_names.contains(&et) { " (the reference compiler writes the section name)" } else { "" };
                        self.strict(
                            &format!("{p}/extraction_type"),
                            format!("extraction_type '{et}' differs from the item's source_basis '{basis}'{note}"),
                        );
                    }
                }
            }
            if !spans.is_empty() && SPAN_ID.is_match(loc) && !spans.contains(loc) {
                self.strict(&format!("{p}/source_location"), format!("'{loc}' is not in metadata.source_manifest"));
            }
        }
        for (id, (basis, p)) in basis_of {
            if basis != "synthesized" && !has_row.contains_key(id.as_str()) {
                self.strict(p, format!("item '{id}' has no source_traceability row"));
            }
        }
    }

    fn objects(&mut self, o: &Map<String, Value>, meta: Option<&Map<String, Value>>) {
        if let Some(ci) = o.get("core_intent")
            && let Some(Value::Array(_)) = ci.get("intended_agent_use")
        {
            self.strict(
                "/core_intent/intended_agent_use",
                "intended_agent_use is a list (reference-compiler shape); write a string",
            );
        }
        if let Some(dm) = o.get("domain_map").and_then(Value::as_object) {
            if let Some(Value::Array(subs)) = dm.get("subdomains") {
                for (i, s) in subs.iter().enumerate() {
                    match s {
                        Value::String(_) => self.strict(
                            &format!("/domain_map/subdomains/{i}"),
                            "subdomain as a plain string (reference-compiler shape); write {name, relevance, related_concepts}",
                        ),
                        Value::Object(so) => {
                            if let Some(Value::Number(n)) = so.get("relevance")
                                && !decimals_ok(n)
                            {
                                self.strict(
                                    &format!("/domain_map/subdomains/{i}/relevance"),
                                    "relevance has more than 2 decimals",
                                );
                            }
                        }
                        other => self.err(
                            &format!("/domain_map/subdomains/{i}"),
                            format!("expected an object, found {}", json_kind(other)),
                        ),
                    }
                }
            }
            let main = dm.get("main_domain").and_then(Value::as_str);
            let md = meta.and_then(|m| m.get("domain")).and_then(Value::as_str);
            if main.is_some() && main != md {
                self.warn("/domain_map/main_domain", "main_domain differs from metadata.domain");
            }
        }
    }

    /// Every string value is NFC with whitespace collapsed (§4).
    /// Every string of the document in §4 normal form (the first 20 that are not reported).
    fn strings(&mut self, o: &Map<String, Value>) {
        let mut bad: Vec<String> = Vec::new();
        let mut path: Vec<Step<'_>> = Vec::new();
        for (k, x) in o {
            path.push(Step::Key(k));
            collect_unnormalized(x, &mut path, &mut bad);
            path.pop();
        }
        for p in bad {
            self.strict(&p, "string is not NFC-normalised with whitespace collapsed (§4)");
        }
    }
}

/// A step of a JSON pointer being walked.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// How many unnormalised strings are reported.
const UNNORMALIZED_REPORTED: usize = 20;

/// Collects the pointers of unnormalised strings, in document order, up to
/// [`UNNORMALIZED_REPORTED`]; a pointer is only spelled out for a string that is reported.
fn collect_unnormalized<'a>(v: &'a Value, path: &mut Vec<Step<'a>>, out: &mut Vec<String>) {
    if out.len() >= UNNORMALIZED_REPORTED {
        return;
    }
    match v {
        Value::String(s) if !is_normalized(s) => {
            let mut p = String::new();
            for step in path.iter() {
                p = match step {
                    Step::Key(k) => push_pointer(&p, k),
                    Step::Index(i) => push_pointer(&p, &i.to_string()),
                };
            }
            out.push(p);
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(Step::Index(i));
                collect_unnormalized(x, path, out);
                path.pop();
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                path.push(Step::Key(k));
                collect_unnormalized(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Options, SourceInput, compile};

    fn compiled() -> Value {
        let src = "# Refund policy\n\nRefunds take 5 days. If the order is over $500, a manager must approve the refund. Do not refund gift cards.\n\n1. Open the Stripe portal.\n2. Click refund.\n";
        let r = compile(&[SourceInput { name: "refunds.md", bytes: src.as_bytes() }], &Options::default()).unwrap();
        serde_json::from_str(&crate::encode::to_json(&r.package).unwrap()).unwrap()
    }

    #[test]
    fn compiled_packages_pass_write_mode() {
        let v = compiled();
        let r = check(&v, Mode::Write);
        assert!(r.errors.is_empty(), "{:#?}", r.errors);
        assert_eq!(r.shape, Shape::Package);
        assert!(read_package(&v).is_ok());
    }

    #[test]
    fn unnormalised_strings_are_reported_by_pointer_in_document_order_at_most_twenty() {
        const MESSAGE: &str = "string is not NFC-normalised with whitespace collapsed (§4)";
        let mut v = compiled();
        v["metadata"]["source_author"] = "Ann  Lee".into();
        v["atomic_units"][0]["statement"] = "e\u{301}tude".into();
        v["metadata"]["source_title"] = " Refund/policy~ ".into();
        let w = check(&v, Mode::Write);
        let bad: Vec<&str> = w.errors.iter().filter(|f| f.message == MESSAGE).map(|f| f.path.as_str()).collect();
        // Keys in map order: atomic_units before metadata, source_author before source_title.
        assert_eq!(bad, ["/atomic_units/0/statement", "/metadata/source_author", "/metadata/source_title"]);
        let mut many = compiled();
        for i in 0..25 {
            many["metadata"][format!("x~/{i:02}")] = "a\tb".into();
        }
        let w = check(&many, Mode::Read);
        let bad: Vec<&str> = w.warnings.iter().filter(|f| f.message == MESSAGE).map(|f| f.path.as_str()).collect();
        assert_eq!(bad.len(), 20);
        assert_eq!(bad[0], "/metadata/x~0~100");
        assert_eq!(bad[19], "/metadata/x~0~119");
    }

    #[test]
    fn write_violations_are_read_mode_warnings() {
        let v = compiled();
        let old = v["entities"][0]["id"].as_str().unwrap().to_string();
        let mut v: Value = serde_json::from_str(&v.to_string().replace(&format!("\"{old}\""), "\"e_001\"")).unwrap();
        v["metadata"]["package_id"] = "pkg_lz4k2".into();
        v["metadata"]["domain"] = "corporate policy".into();
        v["atomic_units"][0]["confidence"] = serde_json::from_str("0.873").unwrap();
        let w = check(&v, Mode::Write);
        assert!(w.errors.len() >= 4, "{:#?}", w.errors);
        let r = check(&v, Mode::Read);
        assert!(r.errors.is_empty(), "{:#?}", r.errors);
        assert!(r.warnings.iter().any(|f| f.message.contains("reference-compiler sequential id")));
    }

    #[test]
    fn structural_errors_fail_both_modes() {
        let mut v = compiled();
        v.as_object_mut().unwrap().remove("playbooks");
        assert!(!check(&v, Mode::Read).is_valid());
        let mut v = compiled();
        v["atomic_units"][0]["dependencies"] = serde_json::json!(["atm_nope"]);
        let r = check(&v, Mode::Read);
        assert_eq!(r.errors[0].path, "/atomic_units/0/dependencies/0");
        let mut v = compiled();
        v["atomic_units"][0]["confidence"] = serde_json::json!(1.5);
        assert!(!check(&v, Mode::Read).is_valid());
        let mut v = compiled();
        v["source_traceability"][0]["extraction_type"] = "atomic_units".into();
        assert!(check(&v, Mode::Write).errors.iter().any(|e| e.message.contains("section name")));
    }

    #[test]
    fn projections_are_declined_by_readers() {
        let v = serde_json::json!({"ckf_document_type": "ckf_compatible_benchmark_case"});
        assert!(matches!(read_package(&v), Err(ReadError::BenchmarkProjection(_))));
        let r = check(&v, Mode::Read);
        assert_eq!(r.shape, Shape::BenchmarkProjection);
        assert!(!r.is_valid(), "an incomplete projection does not validate");
    }

    #[test]
    fn embedded_schemas_compile() {
        let _ = &*PACKAGE;
        let _ = &*PROJECTION;
    }
}
