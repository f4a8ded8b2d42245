//! Reading ingest inputs: files and folders of `.txt`, `.md`, `.html`, `.jsonl` and `.json`.
//!
//! - `.txt`, `.md`/`.markdown`: one document; the id is the path as given (a folder's files are
//!   `<folder>/<relative path>`, `/`-separated); a Markdown file's first `#` heading is its title.
//! - `.html`/`.htm`: one document of its visible text ([`crate::html`]); `<title>` is its title.
//! - `.jsonl`: one record per non-blank line; `.json`: an array of records. A record is
//!   `{"id"|"docId": string, "text": string, "version"?: string|number, "title"?: string,
//!   "metadata"?: object}`; other keys are refused.
//!
//! Folders are walked recursively in name order, skipping hidden entries (`.git`, `.warrant`)
//! and files of other types. A file named explicitly with another extension is read as plain
//! text if it is UTF-8 without NUL bytes. Binary files are refused.
//!
//! Nothing stops at the first problem: every bad record is reported ([`InputError`], with the
//! file, the line and the JSON pointer), so one run shows them all.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use warrant_facts::{Fact, Vocabulary};
use warrant_facts::{one_line, pointer_token};

use crate::html::html_to_text;
use crate::model::DocumentInput;

/// One bad input: the file, where in it (line and/or JSON pointer), and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file as named on the command line (or its path under a named folder).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// JSON pointer within the file, when it helps (`/3/text`).
    pub pointer: Option<String>,
    /// What was wrong and what was expected.
    pub message: String,
}

/// One line: control characters in quoted input are escaped.
impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_line(&self.file))?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(p) = &self.pointer {
            write!(f, ": {}", one_line(p))?;
        }
        write!(f, ": {}", one_line(&self.message))
    }
}

impl std::error::Error for InputError {}

fn input_err(file: &str, line: Option<usize>, pointer: Option<String>, message: impl Into<String>) -> InputError {
    InputError { file: file.to_string(), line, pointer, message: message.into() }
}

/// How a file is read, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Plain text.
    Text,
    /// Markdown (plain text; first heading is the title).
    Markdown,
    /// HTML (visible text extracted).
    Html,
    /// JSON Lines records.
    JsonLines,
    /// A JSON array of records.
    JsonArray,
}

impl FileKind {
    /// The kind of a path by extension (case-insensitive), or `None` for other files.
    pub fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "txt" | "text" => Self::Text,
            "md" | "markdown" => Self::Markdown,
            "html" | "htm" => Self::Html,
            "jsonl" | "ndjson" => Self::JsonLines,
            "json" => Self::JsonArray,
            _ => return None,
        })
    }
}

const SUPPORTED: &str = ".txt, .md, .html, .jsonl and .json";

/// What [`read_sources`] found.
#[derive(Debug, Clone, Default)]
pub struct SourceSet {
    /// Documents in input order (paths in the order given, folders in name order).
    pub documents: Vec<DocumentInput>,
    /// Files read.
    pub files: usize,
    /// Bytes read.
    pub bytes: u64,
    /// Files skipped inside folders (other types, hidden).
    pub skipped: usize,
}

/// Reads every path (files and folders) into documents. `version` is the default version of
/// documents that do not carry one. Returns every problem found, not just the first.
/// `on_file` is called after each file with the bytes read (for progress display).
pub fn read_sources(
    paths: &[PathBuf],
    version: Option<&str>,
    on_file: &mut dyn FnMut(u64),
) -> Result<SourceSet, Vec<InputError>> {
    read_sources_within(paths, version, u64::MAX, on_file)
}

/// [`read_sources`], reading at most `limit` bytes in all: the limit is enforced while
/// reading (a pipe or a growing file cannot pass it), and devices and other files that may
/// never end (`/dev/zero`) are refused.
pub fn read_sources_within(
    paths: &[PathBuf],
    version: Option<&str>,
    limit: u64,
    on_file: &mut dyn FnMut(u64),
) -> Result<SourceSet, Vec<InputError>> {
    let mut set = SourceSet::default();
    let mut errors = Vec::new();
    for p in paths {
        let name = display_path(p);
        match std::fs::metadata(p) {
            Err(e) => errors.push(input_err(&name, None, None, format!("cannot read: {}", io_reason(&e)))),
            Ok(m) if m.is_dir() => {
                let mut files = Vec::new();
                if let Err(e) = walk(p, &mut files, &mut set.skipped) {
                    errors.push(e);
                }
                for f in files {
                    if let Some(kind) = FileKind::of(&f) {
                        read_file(&f, kind, version, limit, &mut set, &mut errors, on_file);
                    }
                }
            }
            Ok(_) => {
                let kind = FileKind::of(p).unwrap_or(FileKind::Text);
                read_file(p, kind, version, limit, &mut set, &mut errors, on_file);
            }
        }
    }
    check_unique_ids(&set.documents, &mut errors);
    if errors.is_empty() { Ok(set) } else { Err(errors) }
}

/// Files under a folder, recursively, in name order; hidden entries and symlinked folders
/// are skipped, as are files of unsupported types (counted in `skipped`).
fn walk(dir: &Path, out: &mut Vec<PathBuf>, skipped: &mut usize) -> Result<(), InputError> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| input_err(&display_path(dir), None, None, format!("cannot read folder: {}", io_reason(&e))))?;
    let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            *skipped += 1;
            continue;
        }
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk(&path, out, skipped)?;
        } else if ft.is_file() || (ft.is_symlink() && path.is_file()) {
            if FileKind::of(&path).is_some() {
                out.push(path);
            } else {
                *skipped += 1;
            }
        }
    }
    Ok(())
}

fn read_file(
    path: &Path,
    kind: FileKind,
    version: Option<&str>,
    limit: u64,
    set: &mut SourceSet,
    errors: &mut Vec<InputError>,
    on_file: &mut dyn FnMut(u64),
) {
    let name = display_path(path);
    let bytes = match warrant_text::io::read_file_bounded(path, limit.saturating_sub(set.bytes)) {
        Ok(b) => b,
        Err(warrant_text::io::ReadError::Io(e)) => {
            errors.push(input_err(&name, None, None, format!("cannot read: {}", io_reason(&e))));
            return;
        }
        Err(warrant_text::io::ReadError::TooLarge { .. }) => {
            errors.push(input_err(&name, None, None, format!("the sources exceed the limit of {limit} bytes")));
            return;
        }
        Err(e) => {
            errors.push(input_err(&name, None, None, e.to_string()));
            return;
        }
    };
    set.files += 1;
    set.bytes += bytes.len() as u64;
    on_file(bytes.len() as u64);
    let text = match decode_text(&bytes) {
        Ok(t) => t,
        Err(why) => {
            errors.push(input_err(&name, None, None, format!("{why}; ingest reads UTF-8 text files ({SUPPORTED})")));
            return;
        }
    };
    match kind {
        FileKind::Text | FileKind::Markdown => {
            let title = if kind == FileKind::Markdown { markdown_title(&text) } else { None };
            set.documents.push(file_document(&name, text, title, version));
        }
        FileKind::Html => {
            let h = html_to_text(&text);
            set.documents.push(file_document(&name, h.text, h.title, version));
        }
        FileKind::JsonLines => {
            let (docs, mut errs) = parse_jsonl(&name, &text, version);
            set.documents.extend(docs);
            errors.append(&mut errs);
        }
        FileKind::JsonArray => {
            let (docs, mut errs) = parse_json_records(&name, &text, version);
            set.documents.extend(docs);
            errors.append(&mut errs);
        }
    }
}

fn file_document(name: &str, text: String, title: Option<String>, version: Option<&str>) -> DocumentInput {
    DocumentInput {
        id: name.to_string(),
        text,
        version: version.map(str::to_string),
        title,
        metadata: None,
        origin: name.to_string(),
    }
}

/// UTF-8 text without NUL bytes (a leading BOM is dropped), or why it is not text.
pub fn decode_text(bytes: &[u8]) -> Result<String, String> {
    if bytes.contains(&0) {
        return Err("binary file (contains NUL bytes)".into());
    }
    let s =
        std::str::from_utf8(bytes).map_err(|e| format!("binary file (not UTF-8: invalid byte at offset {})", e.valid_up_to()))?;
    Ok(s.strip_prefix('\u{feff}').unwrap_or(s).to_string())
}

/// The first ATX heading (`# Title`) of a Markdown text.
fn markdown_title(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let t = l.trim_start();
        let rest = t.trim_start_matches('#');
        let level = t.len() - rest.len();
        ((1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t'])))
            .then(|| rest.trim().trim_end_matches('#').trim().to_string())
            .filter(|s| !s.is_empty())
    })
}

/// One element of a JSON Lines or JSON array text.
struct Item {
    /// 1-based line where it starts.
    line: usize,
    /// `/i` for array elements; `None` for JSON Lines (the line names the record).
    pointer: Option<String>,
    /// The value, or why it is not JSON.
    value: Result<Value, String>,
}

impl Item {
    /// An error about this item at `inner` (a pointer within it, e.g. `/text`).
    fn error(&self, file: &str, inner: Option<String>, message: String) -> InputError {
        let pointer = match (&self.pointer, inner) {
            (Some(p), i) => Some(format!("{p}{}", i.unwrap_or_default())),
            (None, i) => i,
        };
        input_err(file, Some(self.line), pointer, message)
    }
}

/// The elements of a JSON Lines text (one per non-blank line) or of a JSON array, each with
/// its line. A JSON text that is not an array is one error.
fn json_items(file: &str, text: &str, lines: bool, expected: &str) -> Result<Vec<Item>, InputError> {
    if lines {
        return Ok(text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| Item {
                line: i + 1,
                pointer: None,
                value: serde_json::from_str(l)
                    .map_err(|e| format!("invalid JSON: {} (column {})", strip_position(&e), e.column())),
            })
            .collect());
    }
    let raw: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| {
        let msg = if e.is_data() {
            format!("expected a JSON array of {expected}")
        } else {
            format!("invalid JSON: {}", strip_position(&e))
        };
        input_err(file, (e.line() > 0).then_some(e.line()), None, msg)
    })?;
    Ok(raw
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let offset = (r.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            Item {
                line: text.get(..offset).map_or(1, |b| b.matches('\n').count() + 1),
                pointer: Some(format!("/{i}")),
                value: serde_json::from_str(r.get()).map_err(|e| format!("invalid JSON: {}", strip_position(&e))),
            }
        })
        .collect())
}

/// Records of a JSON Lines text: one per non-blank line.
pub fn parse_jsonl(file: &str, text: &str, version: Option<&str>) -> (Vec<DocumentInput>, Vec<InputError>) {
    parse_records(file, text, true, version)
}

/// Records of a JSON text holding an array of records.
pub fn parse_json_records(file: &str, text: &str, version: Option<&str>) -> (Vec<DocumentInput>, Vec<InputError>) {
    parse_records(file, text, false, version)
}

fn parse_records(file: &str, text: &str, lines: bool, version: Option<&str>) -> (Vec<DocumentInput>, Vec<InputError>) {
    let (docs, errors) = parse_items(file, text, lines, "records [{\"id\"|\"docId\", \"text\", …}]", |v| record(v, version));
    let docs = docs
        .into_iter()
        .map(|(line, mut d)| {
            d.origin = format!("{file}:{line}");
            d
        })
        .collect();
    (docs, errors)
}

/// Manual (gold) facts (spec §16) from a JSON array or, when `lines`, JSON Lines: each read
/// with [`Fact::from_manual_json`]; with a vocabulary, a predicate outside it is an error
/// (predicate coverage must be 100%, §5.3).
pub fn parse_manual_facts(file: &str, text: &str, lines: bool, vocab: Option<&Vocabulary>) -> (Vec<Fact>, Vec<InputError>) {
    let (facts, errors) = parse_items(file, text, lines, "facts", |v| {
        let f = Fact::from_manual_json(v).map_err(|e| (Some(e.pointer).filter(|p| p != "/"), e.message))?;
        if vocab.is_some_and(|voc| !voc.contains(&f.predicate)) {
            let msg = format!("predicate \"{}\" is not in the vocabulary (add it with --vocab)", f.predicate);
            return Err((Some("/predicate".into()), msg));
        }
        Ok(f)
    });
    (facts.into_iter().map(|(_, f)| f).collect(), errors)
}

/// Every item of a JSON Lines or JSON array text through `parse` (errors: a pointer within
/// the item and a message); the values with their lines, and every error.
fn parse_items<T>(
    file: &str,
    text: &str,
    lines: bool,
    expected: &str,
    parse: impl Fn(&Value) -> Result<T, (Option<String>, String)>,
) -> (Vec<(usize, T)>, Vec<InputError>) {
    let items = match json_items(file, text, lines, expected) {
        Ok(items) => items,
        Err(e) => return (Vec::new(), vec![e]),
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for item in &items {
        match item.value.as_ref().map_err(|m| (None, m.clone())).and_then(&parse) {
            Ok(v) => out.push((item.line, v)),
            Err((ptr, msg)) => errors.push(item.error(file, ptr, msg)),
        }
    }
    (out, errors)
}

const RECORD_KEYS: &str = "id|docId, text, version, title, metadata";

/// One record; errors are (pointer within the record, message).
fn record(v: &Value, version: Option<&str>) -> Result<DocumentInput, (Option<String>, String)> {
    let Value::Object(m) = v else {
        return Err((None, format!("expected a record object {{{RECORD_KEYS}}}")));
    };
    if let Some(k) = m.keys().find(|k| !matches!(k.as_str(), "id" | "docId" | "text" | "version" | "title" | "metadata")) {
        return Err((Some(format!("/{}", pointer_token(k))), format!("unknown key (records have {RECORD_KEYS})")));
    }
    let id = record_id(m)?;
    let text = match m.get("text") {
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err((Some("/text".into()), "expected a string".into())),
        None => return Err((None, "missing \"text\"".into())),
    };
    let doc_version = match m.get("version") {
        None | Some(Value::Null) => version.map(str::to_string),
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => return Err((Some("/version".into()), "expected a non-empty string or a number".into())),
    };
    let title = match m.get("title") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err((Some("/title".into()), "expected a string".into())),
    };
    let metadata = match m.get("metadata") {
        None | Some(Value::Null) => None,
        Some(o @ Value::Object(_)) => Some(o.clone()),
        Some(_) => return Err((Some("/metadata".into()), "expected an object".into())),
    };
    Ok(DocumentInput { id, text, version: doc_version, title, metadata, origin: String::new() })
}

fn record_id(m: &Map<String, Value>) -> Result<String, (Option<String>, String)> {
    let field = |k: &str| match m.get(k) {
        None => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        Some(_) => Err((Some(format!("/{k}")), "expected a non-empty string".to_string())),
    };
    match (field("id")?, field("docId")?) {
        (Some(a), Some(b)) if a != b => Err((None, format!("\"id\" ({a}) and \"docId\" ({b}) differ; give one"))),
        (Some(a), _) | (None, Some(a)) => Ok(a),
        (None, None) => Err((None, "missing \"id\" or \"docId\"".into())),
    }
}

fn check_unique_ids(docs: &[DocumentInput], errors: &mut Vec<InputError>) {
    let mut first: HashMap<&str, &str> = HashMap::new();
    for d in docs {
        if let Some(prev) = first.insert(&d.id, &d.origin) {
            let (file, line) = split_origin(&d.origin);
            errors.push(input_err(file, line, None, format!("duplicate document id \"{}\" (first at {prev})", d.id)));
        }
    }
}

fn split_origin(origin: &str) -> (&str, Option<usize>) {
    match origin.rsplit_once(':') {
        Some((f, l)) if l.parse::<usize>().is_ok() => (f, l.parse().ok()),
        _ => (origin, None),
    }
}

/// A path as given, `/`-separated, without a leading `./`.
pub fn display_path(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    let mut t = s.as_str();
    while let Some(rest) = t.strip_prefix("./") {
        t = rest;
    }
    if t.is_empty() { ".".into() } else { t.to_string() }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// serde_json messages end in " at line L column C"; callers report the place themselves.
fn strip_position(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    match msg.rfind(" at line ") {
        Some(p) => msg[..p].to_string(),
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_records_and_errors_with_lines() {
        let text = "{\"id\": \"a\", \"text\": \"A.\"}\n\n{\"docId\": \"b\", \"text\": \"B.\", \"version\": \"v2\", \"metadata\": {\"k\": 1}}\n{\"id\": \"c\"}\n{broken\n[1]\n{\"id\": \"d\", \"text\": 5}\n{\"id\": \"e\", \"text\": \"\", \"colour\": 1}\n";
        let (docs, errs) = parse_jsonl("c.jsonl", text, Some("1.0"));
        assert_eq!(docs.len(), 2);
        assert_eq!((docs[0].id.as_str(), docs[0].version.as_deref()), ("a", Some("1.0")));
        assert_eq!((docs[1].id.as_str(), docs[1].version.as_deref()), ("b", Some("v2")));
        assert_eq!(docs[1].origin, "c.jsonl:3");
        let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            msgs,
            [
                "c.jsonl:4: missing \"text\"",
                "c.jsonl:5: invalid JSON: key must be a string (column 2)",
                "c.jsonl:6: expected a record object {id|docId, text, version, title, metadata}",
                "c.jsonl:7: /text: expected a string",
                "c.jsonl:8: /colour: unknown key (records have id|docId, text, version, title, metadata)",
            ]
        );
    }

    #[test]
    fn json_arrays_name_line_and_pointer() {
        let text =
            "[\n  {\"id\": \"a\", \"text\": \"x\"},\n  {\"id\": \"b\",\n   \"text\": null},\n  {\"id\": 1, \"text\": \"y\"}\n]";
        let (docs, errs) = parse_json_records("r.json", text, None);
        assert_eq!(docs.len(), 1);
        let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(msgs, ["r.json:3: /1/text: expected a string", "r.json:5: /2/id: expected a non-empty string"]);
        let (_, errs) = parse_json_records("o.json", "{\"id\": \"a\"}", None);
        assert_eq!(errs[0].to_string(), "o.json:1: expected a JSON array of records [{\"id\"|\"docId\", \"text\", …}]");
        let (_, errs) = parse_json_records("b.json", "[{\"id\": \"a\", \"text\": \"x\"},\n", None);
        assert_eq!(errs[0].to_string(), "b.json:2: invalid JSON: EOF while parsing a value");
        let (_, errs) = parse_json_records("i.json", "[{\"id\": \"a\", \"docId\": \"b\", \"text\": \"\"}]", None);
        assert_eq!(errs[0].to_string(), "i.json:1: /0: \"id\" (a) and \"docId\" (b) differ; give one");
    }

    #[test]
    fn manual_facts_with_locations() {
        let vocab = Vocabulary::builtin();
        let text = "[\n{\"subject\": \"a\", \"predicate\": \"has_value\", \"object\": 1, \"source\": {\"docId\": \"d\", \"chunkId\": \"c1\"}},\n\
                    {\"subject\": \"a\", \"predicate\": \"enters\", \"object\": 1, \"source\": {\"docId\": \"d\", \"chunkId\": \"c1\"}},\n\
                    {\"subject\": \"a\", \"predicate\": \"has_value\", \"source\": {\"docId\": \"d\", \"chunkId\": \"c1\"}}]";
        let (facts, errs) = parse_manual_facts("f.json", text, false, Some(&vocab));
        assert_eq!(facts.len(), 1);
        let msgs: Vec<String> = errs.iter().map(ToString::to_string).collect();
        assert_eq!(
            msgs,
            [
                "f.json:3: /1/predicate: predicate \"enters\" is not in the vocabulary (add it with --vocab)",
                "f.json:4: /2: missing \"object\"",
            ]
        );
        let (facts, errs) = parse_manual_facts(
            "f.jsonl",
            "{\"subject\": \"a\", \"predicate\": \"p\", \"object\": true, \"source\": {\"docId\": \"d\", \"chunkId\": \"c\"}, \"span\": {}}\n",
            true,
            None,
        );
        assert!(facts.is_empty());
        assert_eq!(errs[0].to_string(), "f.jsonl:1: /span: expected {\"start\", \"end\"} with 0 ≤ start ≤ end");
    }

    #[test]
    fn titles_binary_and_paths() {
        assert_eq!(markdown_title("intro\n## Session tokens ##\n# Other"), Some("Session tokens".into()));
        assert_eq!(markdown_title("#hashtag\ntext"), None);
        assert!(decode_text(b"a\0b").unwrap_err().contains("NUL"));
        assert!(decode_text(&[0x66, 0xff]).unwrap_err().contains("not UTF-8"));
        assert_eq!(decode_text("\u{feff}hi".as_bytes()).unwrap(), "hi");
        assert_eq!(display_path(Path::new("./docs/a.md")), "docs/a.md");
        assert_eq!(display_path(Path::new(".")), ".");
        assert_eq!(FileKind::of(Path::new("X.HTM")), Some(FileKind::Html));
        assert_eq!(FileKind::of(Path::new("x.pdf")), None);
    }
}
