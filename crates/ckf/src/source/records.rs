//! Record-oriented sources (§7.1, §7.2): JSON Lines and JSON arrays of records.
//!
//! A record's text is its first non-empty `text`, `content`, `body`, `answer` or `resposta`
//! field; its title its `title`, `question` or `heading`. The span text is the title, a blank
//! line and the text, so a question stays quotable. The record id (D40) is `_id` or `id`,
//! falling back to `question`, then `title`, then `line N` / `record N` (project rule).

use serde_json::{Map, Value};
use warrant_graph::json_kind;

use super::{SourceError, Span, SpanKind};

/// Fields that hold a record's text, in order of preference.
pub const TEXT_FIELDS: [&str; 5] = ["text", "content", "body", "answer", "resposta"];
const TITLE_FIELDS: [&str; 3] = ["title", "question", "heading"];

fn has_text(o: &Map<String, Value>) -> bool {
    TEXT_FIELDS.iter().any(|f| o.get(*f).and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty()))
}

/// The §7.1 JSONL test: 2 to 100,000 lines, at least 90% of the first 50 parse, at least half
/// of those carry a text field.
pub fn looks_like_jsonl(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(100_001).collect();
    if lines.len() < 2 || lines.len() > 100_000 {
        return false;
    }
    let head = &lines[..lines.len().min(50)];
    let parsed: Vec<Value> = head.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let with_text = parsed.iter().filter(|v| v.as_object().is_some_and(has_text)).count();
    parsed.len() * 10 >= head.len() * 9 && with_text * 2 >= parsed.len() && with_text > 0
}

fn string_id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Builds a record's span; `Err` says what is wrong with the record.
fn record_span(v: &Value, kind: SpanKind, fallback_id: String) -> Result<Span, String> {
    let Some(o) = v.as_object() else {
        return Err(format!("expected a JSON object (a record), found {}", json_kind(v)));
    };
    let mut text: Option<(&str, &str)> = None;
    for f in TEXT_FIELDS {
        match o.get(f) {
            Some(Value::String(s)) if !s.trim().is_empty() => {
                text = Some((f, s.trim()));
                break;
            }
            Some(Value::String(_)) | Some(Value::Null) | None => {}
            Some(other) => return Err(format!("`{f}` must be a string, found {}", json_kind(other))),
        }
    }
    let Some((text_field, body)) = text else {
        return Err(
            "the record has no text (expected a non-empty `text`, `content`, `body`, `answer` or `resposta` string)".into()
        );
    };
    let title = TITLE_FIELDS
        .iter()
        .filter(|f| **f != text_field)
        .find_map(|f| o.get(*f).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty() && *s != body).map(|s| (*f, s)));
    let id = ["_id", "id"]
        .iter()
        .find_map(|f| o.get(*f).and_then(string_id))
        .or_else(|| o.get("question").and_then(string_id))
        .or_else(|| o.get("title").and_then(string_id))
        .unwrap_or(fallback_id);
    let mut span = Span { record_id: Some(id), ..Span::new(kind, String::new()) };
    match title {
        Some((field, t)) => {
            span.text = format!("{t}\n\n{body}");
            span.body_start = t.len() + 2;
            span.title = Some(crate::normalize::normalize(t));
            if field == "question" || t.ends_with('?') {
                span.question = Some(0..t.len());
                span.answer = Some(span.body_start..span.text.len());
            }
        }
        None => span.text = body.to_string(),
    }
    Ok(span)
}

/// Reads JSON Lines: one span per non-blank line.
pub fn read_jsonl(file: &str, text: &str) -> Result<(Vec<Span>, usize), SourceError> {
    let mut spans = Vec::new();
    let mut pos = 0usize;
    for (i, raw_line) in text.split_inclusive('\n').enumerate() {
        let at = pos;
        pos += raw_line.len();
        let line = raw_line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let n = i + 1;
        let v: Value = serde_json::from_str(line).map_err(|e| {
            SourceError::at(file, format!("line {n}"), format!("invalid JSON: {e}; expected one JSON record per line"))
        })?;
        let mut span = record_span(&v, SpanKind::JsonlRecord, format!("line {n}"))
            .map_err(|m| SourceError::at(file, format!("line {n}"), m))?;
        span.lines = (n as u32, n as u32);
        span.chars = (at as u64, (at + line.len()) as u64);
        spans.push(span);
    }
    if spans.is_empty() {
        return Err(SourceError::new(file, "empty input: no records"));
    }
    let n = spans.len();
    Ok((spans, n))
}

/// Reads a JSON array of records: one span per element.
pub fn read_json_array(file: &str, text: &str) -> Result<Vec<Span>, SourceError> {
    let v: Value = serde_json::from_str(text).map_err(|e| SourceError::new(file, format!("invalid JSON: {e}")))?;
    let Some(items) = v.as_array() else {
        return Err(SourceError::new(
            file,
            format!(
                "expected a JSON array of records (objects with a `text`, `content`, `body`, `answer` or `resposta` field), found {}",
                json_kind(&v)
            ),
        ));
    };
    if items.is_empty() {
        return Err(SourceError::new(file, "empty input: the JSON array has no records"));
    }
    let ranges = element_ranges(text, items.len());
    let mut spans = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let n = i + 1;
        let mut span = record_span(item, SpanKind::JsonArrayRecord, format!("record {n}"))
            .map_err(|m| SourceError::at(file, format!("record {n}"), m))?;
        let (a, b) = ranges.get(i).copied().unwrap_or((0, text.len()));
        span.chars = (a as u64, b as u64);
        spans.push(span);
    }
    Ok(spans)
}

/// Byte ranges of the top-level array's elements (the array is known to be valid JSON).
fn element_ranges(text: &str, n: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(n);
    let b = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = skip_ws(0);
    if b.get(i) != Some(&b'[') {
        return out;
    }
    i += 1;
    for _ in 0..n {
        i = skip_ws(i);
        let mut stream = serde_json::Deserializer::from_str(&text[i..]).into_iter::<serde::de::IgnoredAny>();
        match stream.next() {
            Some(Ok(_)) => {
                let end = i + stream.byte_offset();
                out.push((i, end));
                i = skip_ws(end);
                if b.get(i) == Some(&b',') {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_records_keep_ids_titles_and_lines() {
        let t = "{\"id\": \"P-1\", \"title\": \"Passwords\", \"text\": \"Rotate every 90 days.\"}\n\n{\"_id\": 7, \"content\": \"Use MFA.\"}\n{\"question\": \"Can I share?\", \"answer\": \"No.\"}\n";
        let (s, n) = read_jsonl("p.jsonl", t).unwrap();
        assert_eq!(n, 3);
        assert_eq!(s[0].record_id.as_deref(), Some("P-1"));
        assert_eq!(s[0].text, "Passwords\n\nRotate every 90 days.");
        assert_eq!(&s[0].text[s[0].body_start..], "Rotate every 90 days.");
        assert_eq!(s[1].record_id.as_deref(), Some("7"));
        assert_eq!(s[1].lines, (3, 3));
        assert_eq!(s[2].record_id.as_deref(), Some("Can I share?"));
        assert_eq!(&s[2].text[s[2].question.clone().unwrap()], "Can I share?");
        assert!(looks_like_jsonl(t));
        assert!(!looks_like_jsonl("just text\nmore text"));
    }

    #[test]
    fn bad_records_are_refused_with_their_line() {
        let e = read_jsonl("p.jsonl", "{\"text\": \"ok\"}\n{\"title\": \"no text\"}\n").unwrap_err();
        assert_eq!(e.location.as_deref(), Some("line 2"));
        assert!(e.message.contains("no text"), "{e}");
        let e = read_jsonl("p.jsonl", "{\"text\": \"ok\"}\nnot json\n").unwrap_err();
        assert_eq!(e.to_string().split(':').take(2).collect::<Vec<_>>(), vec!["p.jsonl", " line 2"]);
        let e = read_jsonl("p.jsonl", "[1,2]\n").unwrap_err();
        assert!(e.message.contains("found an array"));
        let e = read_jsonl("p.jsonl", "{\"text\": 5}\n").unwrap_err();
        assert!(e.message.contains("must be a string"));
    }

    #[test]
    fn json_arrays_locate_their_records() {
        let t = "[\n  {\"id\": \"a\", \"text\": \"First.\"},\n  {\"id\": \"b\", \"body\": \"Second, with [brackets] and \\\"quotes\\\".\"}\n]";
        let s = read_json_array("r.json", t).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(&t[s[0].chars.0 as usize..s[0].chars.1 as usize], "{\"id\": \"a\", \"text\": \"First.\"}");
        assert!(t[s[1].chars.0 as usize..s[1].chars.1 as usize].starts_with("{\"id\": \"b\""));
        assert!(read_json_array("r.json", "{\"a\": 1}").unwrap_err().message.contains("found an object"));
        assert!(read_json_array("r.json", "[]").unwrap_err().message.contains("no records"));
        let e = read_json_array("r.json", "[{\"text\": \"x\"}, {\"id\": 2}]").unwrap_err();
        assert_eq!(e.location.as_deref(), Some("record 2"));
        assert!(read_json_array("r.json", "[{\"text\": \"x\"").unwrap_err().message.contains("invalid JSON"));
    }
}
