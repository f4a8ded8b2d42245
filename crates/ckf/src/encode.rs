//! Encodings (§10): JSON (canonical), YAML and Markdown, and reading them back.
//!
//! - JSON: 2-space indent, keys in §2.1 order (the model serialises in that order).
//! - YAML: block style, 2-space indent, no anchors, no line wrapping. Written by loading the
//!   canonical JSON (YAML 1.2 is a superset of JSON, and the loader keeps key order) and
//!   emitting it with `yaml-rust2`; empty lists and maps can only be written `[]` / `{}`.
//! - Markdown: the `# CKF — KNOWLEDGE CONTEXT PACKAGE` header, the metadata as `key: value`
//!   lines, `---`, then one `## N. TITLE` per section with a fenced `yaml` block. Readers key on
//!   the YAML blocks, never on the heading numbers.

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlEmitter, YamlLoader};

use crate::model::Package;

/// Markdown section titles, numbered 1–22 in this order (§10).
pub const MD_TITLES: [(&str, &str); 22] = [
    ("core_intent", "CORE INTENT"),
    ("domain_map", "DOMAIN MAP"),
    ("entities", "ENTITY GRAPH"),
    ("concepts", "CONCEPT GRAPH"),
    ("principles", "PRINCIPLES"),
    ("heuristics", "HEURISTICS"),
    ("decision_rules", "DECISION RULES"),
    ("procedures", "PROCEDURES"),
    ("patterns", "PATTERNS"),
    ("anti_patterns", "ANTI-PATTERNS"),
    ("causal_chains", "CAUSAL CHAINS"),
    ("contextual_triggers", "CONTEXTUAL TRIGGERS"),
    ("if_then_rules", "IF-THEN RULES"),
    ("exceptions", "EXCEPTIONS AND EDGE CASES"),
    ("mental_models", "MENTAL MODELS"),
    ("playbooks", "OPERATIONAL PLAYBOOKS"),
    ("qa_pairs", "QUESTION-ANSWER PAIRS FOR AGENTS"),
    ("retrieval_chunks", "RETRIEVAL CHUNKS"),
    ("atomic_units", "EMBEDDING-READY ATOMIC UNITS"),
    ("agent_instructions", "AGENT INSTRUCTIONS"),
    ("knowledge_limits", "KNOWLEDGE LIMITS"),
    ("source_traceability", "SOURCE TRACEABILITY"),
];

/// The Markdown header line.
pub const MD_HEADER: &str = "# CKF — KNOWLEDGE CONTEXT PACKAGE";

const AUDITS: [&str; 4] = ["promotion_audit", "sanitizer_audit", "coverage_report", "numeric_integrity"];

/// Why a package could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// The canonical JSON (2-space indent, newline-terminated): exactly
/// `serde_json::to_string_pretty(package)` and a newline.
///
/// The item sections and the traceability rows are encoded in blocks on every available core
/// and spliced in, each block written by a pretty formatter that starts at its depth.
pub fn to_json(package: &Package) -> Result<String, EncodeError> {
    to_json_with_threads(package, 0)
}

/// [`to_json`] on at most `threads` threads (`0` = every core); the same bytes for any number.
pub fn to_json_with_threads(package: &Package, threads: usize) -> Result<String, EncodeError> {
    crate::par::on_threads(threads, || json_pretty(package))
}

fn serialise_error(e: &serde_json::Error) -> EncodeError {
    EncodeError(format!("cannot serialise the package: {e}"))
}

/// serde_json's pretty formatter (2-space indent) starting at a given depth, so that a value
/// encoded on its own can be spliced into an enclosing document at that depth: the same bytes
/// as `PrettyFormatter` writing the value in place.
struct PrettyAt {
    depth: usize,
    has_value: bool,
}

impl PrettyAt {
    fn newline_indent<W: ?Sized + std::io::Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        const SPACES: &[u8; 64] = b"                                                                ";
        w.write_all(if comma { b",\n" } else { b"\n" })?;
        let mut n = self.depth * 2;
        while n > 0 {
            let k = n.min(SPACES.len());
            w.write_all(&SPACES[..k])?;
            n -= k;
        }
        Ok(())
    }

    /// Opens an array or object: one level deeper, nothing in it yet.
    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// Closes an array or object, on its own line when it holds anything.
    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline_indent(w, false)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for PrettyAt {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.newline_indent(w, !first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.newline_indent(w, !first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Appends `v`, pretty, as if written at `depth` inside an enclosing document.
fn pretty_at<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, depth: usize, v: &T) -> Result<(), EncodeError> {
    let mut ser = serde_json::Serializer::with_formatter(out, PrettyAt { depth, has_value: false });
    v.serialize(&mut ser).map_err(|e| serialise_error(&e))
}

/// Appends a top-level array (each element indented two levels, separated by `,\n    `).
/// On one thread the elements are written straight into `out`; on more, they are encoded in
/// blocks on the allowed threads (a bounded window of blocks at a time, so that block memory
/// is reused) and appended in order.
fn array<T: serde::Serialize + Sync>(out: &mut Vec<u8>, items: &[T]) -> Result<(), EncodeError> {
    const BLOCK: usize = 64;
    const WINDOW: usize = 64 * BLOCK;
    if items.is_empty() {
        out.extend_from_slice(b"[]");
        return Ok(());
    }
    out.extend_from_slice(b"[\n    ");
    if crate::par::threads() <= 1 || items.len() <= BLOCK {
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(b",\n    ");
            }
            pretty_at(out, 2, it)?;
        }
    } else {
        for (w, window) in items.chunks(WINDOW).enumerate() {
            let blocks: Vec<&[T]> = window.chunks(BLOCK).collect();
            let encoded = crate::par::map(&blocks, 1, |block| -> Result<Vec<u8>, EncodeError> {
                let mut buf = Vec::with_capacity(block.len() * 1024);
                for (i, it) in block.iter().enumerate() {
                    if i > 0 {
                        buf.extend_from_slice(b",\n    ");
                    }
                    pretty_at(&mut buf, 2, it)?;
                }
                Ok(buf)
            });
            for (i, e) in encoded.into_iter().enumerate() {
                if w > 0 || i > 0 {
                    out.extend_from_slice(b",\n    ");
                }
                out.extend_from_slice(&e?);
            }
        }
    }
    out.extend_from_slice(b"\n  ]");
    Ok(())
}

/// The entries of `Package`'s `Serialize`, in its order (a test holds the two together),
/// written into one buffer.
fn json_pretty(p: &Package) -> Result<String, EncodeError> {
    use crate::model::Section;
    // Room for the usual size up front (capacity that is never written costs no memory), so
    // the 10s of MB of a large package are not copied as the buffer grows.
    let items: usize = p.sections.iter().map(Vec::len).sum();
    let mut out: Vec<u8> = Vec::with_capacity(64 * 1024 + items * 1536 + p.source_traceability.len() * 640);
    out.push(b'{');
    let key = |out: &mut Vec<u8>, k: &str| {
        out.extend_from_slice(if k == "metadata" { b"\n  \"" } else { b",\n  \"" });
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b"\": ");
    };
    key(&mut out, "metadata");
    pretty_at(&mut out, 1, &p.metadata)?;
    key(&mut out, "core_intent");
    pretty_at(&mut out, 1, &p.core_intent)?;
    key(&mut out, "domain_map");
    pretty_at(&mut out, 1, &p.domain_map)?;
    for sec in Section::ALL {
        key(&mut out, sec.key());
        array(&mut out, &p.sections[sec.index()])?;
    }
    key(&mut out, "agent_instructions");
    pretty_at(&mut out, 1, &p.agent_instructions)?;
    key(&mut out, "knowledge_limits");
    pretty_at(&mut out, 1, &p.knowledge_limits)?;
    key(&mut out, "source_traceability");
    array(&mut out, &p.source_traceability)?;
    if let Some(a) = &p.promotion_audit {
        key(&mut out, "promotion_audit");
        pretty_at(&mut out, 1, a)?;
    }
    if let Some(a) = &p.sanitizer_audit {
        key(&mut out, "sanitizer_audit");
        pretty_at(&mut out, 1, a)?;
    }
    if let Some(a) = &p.coverage_report {
        key(&mut out, "coverage_report");
        pretty_at(&mut out, 1, a)?;
    }
    if let Some(a) = &p.numeric_integrity {
        key(&mut out, "numeric_integrity");
        pretty_at(&mut out, 1, a)?;
    }
    out.extend_from_slice(b"\n}\n");
    String::from_utf8(out).map_err(|e| EncodeError(format!("cannot serialise the package: {e}")))
}

fn yaml_from_json(json: &str) -> Result<Yaml, EncodeError> {
    let mut docs = YamlLoader::load_from_str(json).map_err(|e| EncodeError(format!("cannot convert to YAML: {e}")))?;
    docs.pop().ok_or_else(|| EncodeError("cannot convert to YAML: empty document".into()))
}

fn emit(y: &Yaml) -> Result<String, EncodeError> {
    let mut out = String::new();
    YamlEmitter::new(&mut out).dump(y).map_err(|e| EncodeError(format!("cannot write YAML: {e}")))?;
    let body = out.strip_prefix("---\n").or_else(|| out.strip_prefix("---")).unwrap_or(&out).to_string();
    Ok(body)
}

/// The package as block-style YAML.
pub fn to_yaml(package: &Package) -> Result<String, EncodeError> {
    let json = serde_json::to_string(package).map_err(|e| EncodeError(format!("cannot serialise the package: {e}")))?;
    let mut s = emit(&yaml_from_json(&json)?)?;
    s.push('\n');
    Ok(s)
}

/// One `key: value` YAML mapping as text (no document marker).
fn yaml_entry(key: &str, value: &Yaml) -> Result<String, EncodeError> {
    let mut h = yaml_rust2::yaml::Hash::new();
    h.insert(Yaml::String(key.to_string()), value.clone());
    emit(&Yaml::Hash(h))
}

/// The package as Markdown (§10).
pub fn to_markdown(package: &Package) -> Result<String, EncodeError> {
    let json = serde_json::to_string(package).map_err(|e| EncodeError(format!("cannot serialise the package: {e}")))?;
    let doc = yaml_from_json(&json)?;
    let Yaml::Hash(top) = &doc else { return Err(EncodeError("the package is not an object".into())) };
    let get = |k: &str| top.get(&Yaml::String(k.to_string()));
    let mut out = String::new();
    out.push_str(MD_HEADER);
    out.push_str("\n\n");
    if let Some(Yaml::Hash(meta)) = get("metadata") {
        for (k, v) in meta {
            let Yaml::String(k) = k else { continue };
            out.push_str(&yaml_entry(k, v)?);
            out.push('\n');
        }
    }
    out.push_str("\n---\n");
    for (n, (key, title)) in MD_TITLES.iter().enumerate() {
        out.push_str(&format!("\n## {}. {title}\n\n```yaml\n", n + 1));
        match get(key) {
            Some(Yaml::Array(a)) if a.is_empty() => out.push_str(&format!("{key}: []  # none extracted\n")),
            Some(v) => {
                out.push_str(&yaml_entry(key, v)?);
                out.push('\n');
            }
            None => out.push_str(&format!("{key}: []  # none extracted\n")),
        }
        out.push_str("```\n");
    }
    let audits: Vec<&str> = AUDITS.iter().copied().filter(|k| get(k).is_some()).collect();
    if !audits.is_empty() {
        out.push_str("\n## AUDIT\n");
        for key in audits {
            if let Some(v) = get(key) {
                out.push_str("\n```yaml\n");
                out.push_str(&yaml_entry(key, v)?);
                out.push_str("\n```\n");
            }
        }
    }
    Ok(out)
}

fn to_value(y: &Yaml) -> Result<Value, EncodeError> {
    Ok(match y {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::Real(s) => {
            let n: serde_json::Number = s.parse().map_err(|_| EncodeError(format!("not a number: {s}")))?;
            Value::Number(n)
        }
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Array(a) => Value::Array(a.iter().map(to_value).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Real(s) => s.clone(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => return Err(EncodeError("a mapping key is not a scalar".into())),
                };
                m.insert(key, to_value(v)?);
            }
            Value::Object(m)
        }
        Yaml::Alias(_) => return Err(EncodeError("YAML aliases are not allowed in packages".into())),
        Yaml::BadValue => return Err(EncodeError("unreadable YAML value".into())),
    })
}

/// Parses YAML text into JSON.
pub fn parse_yaml(text: &str) -> Result<Value, EncodeError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| EncodeError(format!("invalid YAML: {e}")))?;
    match docs.as_slice() {
        [one] => to_value(one),
        [] => Err(EncodeError("invalid YAML: empty document".into())),
        _ => Err(EncodeError("invalid YAML: more than one document".into())),
    }
}

/// Parses a Markdown package (§10): the metadata lines before `---` and every fenced `yaml`
/// block, merged into one object.
pub fn parse_markdown(text: &str) -> Result<Value, EncodeError> {
    let body =
        text.trim_start().strip_prefix(MD_HEADER).ok_or_else(|| EncodeError(format!("expected the header `{MD_HEADER}`")))?;
    let (meta, rest) = match body.split_once("\n---\n") {
        Some(x) => x,
        None => return Err(EncodeError("expected a `---` line after the metadata".into())),
    };
    let mut out = Map::new();
    if !meta.trim().is_empty() {
        out.insert("metadata".into(), parse_yaml(meta)?);
    }
    let mut in_block = false;
    let mut block = String::new();
    for line in rest.lines() {
        if !in_block && line.trim_start().starts_with("```yaml") {
            in_block = true;
            block.clear();
        } else if in_block && line.trim_start().starts_with("```") {
            in_block = false;
            if let Value::Object(m) = parse_yaml(&block)? {
                out.extend(m);
            }
        } else if in_block {
            block.push_str(line);
            block.push('\n');
        }
    }
    Ok(Value::Object(out))
}

/// Reads a package document in any encoding: JSON when it starts with `{`, Markdown when it
/// starts with the CKF header, YAML otherwise.
pub fn parse_any(text: &str) -> Result<Value, EncodeError> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') {
        serde_json::from_str(t).map_err(|e| EncodeError(format!("invalid JSON: {e}")))
    } else if t.starts_with(MD_HEADER) {
        parse_markdown(t)
    } else {
        parse_yaml(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::{Options, SourceInput, compile};

    fn package() -> Package {
        let src = "# Refunds\n\nRefunds take 5 days. If the order is over $500, a manager must approve it: no exceptions.\n\n1. Open the portal.\n2. Click refund.\n";
        compile(&[SourceInput { name: "refunds.md", bytes: src.as_bytes() }], &Options::default()).unwrap().package
    }

    #[test]
    fn yaml_and_markdown_round_trip_to_the_same_json() {
        let p = package();
        let json: Value = serde_json::from_str(&to_json(&p).unwrap()).unwrap();
        let yaml = to_yaml(&p).unwrap();
        assert!(!yaml.contains('{') || yaml.contains("{}"), "block style only");
        assert!(!yaml.contains('&') || !yaml.lines().any(|l| l.contains(": &")), "no anchors");
        assert_eq!(parse_yaml(&yaml).unwrap(), json);
        let md = to_markdown(&p).unwrap();
        assert!(md.starts_with(MD_HEADER));
        assert!(md.contains("## 3. ENTITY GRAPH"));
        assert!(md.contains("mental_models: []  # none extracted"));
        assert_eq!(parse_markdown(&md).unwrap(), json);
        assert_eq!(parse_any(&md).unwrap(), json);
        assert_eq!(parse_any(&yaml).unwrap(), json);
    }

    #[test]
    fn json_is_serde_pretty_json_whatever_the_threads() {
        let src = "# Refunds\n\nRefunds take 5 days. If the order is over $500, a manager must approve it.\n\n\
                   Avoid refunds in cash. Refunds \"in kind\" are not allowed because of fraud.\n\n\
                   1. Open the portal.\n2. Click refund.\n";
        let big: String = (0..200).map(|i| format!("## Part {i}\n\nItem {i} must ship within {i} days.\n\n")).collect();
        for text in [src.to_string(), big] {
            let p = compile(&[SourceInput { name: "refunds.md", bytes: text.as_bytes() }], &Options::default()).unwrap().package;
            let want = format!("{}\n", serde_json::to_string_pretty(&p).unwrap());
            assert_eq!(to_json(&p).unwrap(), want);
            assert_eq!(crate::par::with_threads(1, || json_pretty(&p)).unwrap(), want);
            assert_eq!(crate::par::with_threads(3, || json_pretty(&p)).unwrap(), want);
        }
        let mut empty = compile(&[SourceInput { name: "a.md", bytes: src.as_bytes() }], &Options::default()).unwrap().package;
        empty.sections.iter_mut().for_each(Vec::clear);
        empty.promotion_audit = None;
        empty.numeric_integrity = None;
        assert_eq!(to_json(&empty).unwrap(), format!("{}\n", serde_json::to_string_pretty(&empty).unwrap()));
    }

    #[test]
    fn json_keys_follow_the_canonical_order() {
        let json = to_json(&package()).unwrap();
        let mut last = 0;
        for key in std::iter::once("metadata").chain(crate::model::TOP_LEVEL_SECTIONS) {
            let at = json.find(&format!("\n  \"{key}\":")).unwrap_or_else(|| panic!("{key}"));
            assert!(at > last || key == "metadata", "{key} out of order");
            last = at;
        }
    }
}
