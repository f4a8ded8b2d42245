//! What users actually have: plain text or Markdown, an OpenAI-style assistant message, a
//! whole chat-completion response, an Anthropic message with `tool_use` blocks, or an
//! envelope `{"text", "tool_calls"?, "context"?}`. All become one [`Answer`].

use serde_json::{Map, Value};
use warrant_graph::json_kind;

/// Largest input accepted by default (bytes). Extraction is linear, but an unbounded input
/// from an untrusted caller is a denial-of-service; callers may raise it.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// A model output ready for extraction.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// The assistant's text (Markdown allowed).
    pub text: String,
    /// Tool calls given as structured data (not written in the text).
    pub tool_calls: Vec<StructuredCall>,
    /// Request context: `user_query`, `system_prompt`, `tools_available`, `tool_schemas`, …
    pub context: Option<Map<String, Value>>,
    /// An identifier carried by the input (a completion `id`), if any.
    pub id: Option<String>,
}

/// A structured tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredCall {
    /// The provider's call id, if any.
    pub id: Option<String>,
    /// Function name as called.
    pub name: String,
    /// Arguments: an object, or the raw JSON string the model emitted.
    pub arguments: CallArguments,
}

/// Tool-call arguments as received.
#[derive(Debug, Clone, PartialEq)]
pub enum CallArguments {
    /// Already an object (Anthropic `input`, envelopes).
    Object(Map<String, Value>),
    /// A JSON string (OpenAI `function.arguments`); it may be malformed.
    Raw(String),
}

/// How to read the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    /// JSON when it parses as one of the known shapes, text otherwise.
    #[default]
    Auto,
    /// Always plain text / Markdown.
    Text,
    /// Always JSON (an error when it does not parse).
    Json,
}

/// Why an input cannot be read, located by JSON pointer when it is JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", if pointer.is_empty() { String::new() } else { format!("{pointer}: ") })]
pub struct InputError {
    /// JSON pointer (empty for the whole input).
    pub pointer: String,
    /// What is wrong and what was expected.
    pub message: String,
}

fn err(pointer: &str, message: impl Into<String>) -> InputError {
    InputError { pointer: pointer.to_string(), message: message.into() }
}

/// Reads an input in the given format, refusing inputs larger than `max_bytes`.
pub fn parse_input(raw: &str, format: InputFormat, max_bytes: usize) -> Result<Answer, InputError> {
    if raw.len() > max_bytes {
        return Err(err("", format!("input is {} bytes; the limit is {max_bytes} bytes (raise it with --max-bytes)", raw.len())));
    }
    let trimmed = raw.trim();
    let looks_json = trimmed.starts_with('{') && trimmed.ends_with('}');
    match format {
        InputFormat::Text => Ok(Answer { text: raw.to_string(), ..Answer::default() }),
        InputFormat::Json => {
            let v: Value = serde_json::from_str(raw).map_err(|e| err("", format!("invalid JSON: {e}")))?;
            answer_from_value(&v)
        }
        InputFormat::Auto if looks_json => match serde_json::from_str::<Value>(raw) {
            Ok(v) => answer_from_value(&v),
            Err(e) => Err(err(
                "",
                format!(
                    "the input looks like JSON but does not parse ({e}); fix it, or pass --input-format text to read it as text"
                ),
            )),
        },
        InputFormat::Auto => Ok(Answer { text: raw.to_string(), ..Answer::default() }),
    }
}

/// Reads one of the known JSON shapes.
pub fn answer_from_value(v: &Value) -> Result<Answer, InputError> {
    match v {
        Value::String(s) => Ok(Answer { text: s.clone(), ..Answer::default() }),
        Value::Object(o) if o.contains_key("choices") => {
            let choice = o
                .get("choices")
                .and_then(Value::as_array)
                .and_then(|c| c.first())
                .ok_or_else(|| err("/choices", "a chat completion needs at least one choice"))?;
            let msg = choice.get("message").ok_or_else(|| err("/choices/0", "expected a `message` in the first choice"))?;
            let mut a = message(msg, "/choices/0/message")?;
            a.id = o.get("id").and_then(Value::as_str).map(str::to_string);
            Ok(a)
        }
        Value::Object(o) if o.contains_key("role") || (o.contains_key("content") && !o.contains_key("text")) => message(v, ""),
        Value::Object(o) if o.contains_key("text") => envelope(o),
        Value::Object(_) => Err(err(
            "",
            "unrecognised JSON input: expected a chat completion (`choices`), an assistant message (`role`, `content`, `tool_calls`), an Anthropic message (`content` blocks) or an envelope `{\"text\", \"tool_calls\"?, \"context\"?}`",
        )),
        other => Err(err("", format!("expected a JSON object or string, got {}", json_kind(other)))),
    }
}

/// An OpenAI or Anthropic message.
fn message(v: &Value, ptr: &str) -> Result<Answer, InputError> {
    let Some(o) = v.as_object() else {
        return Err(err(ptr, format!("expected a message object, got {}", json_kind(v))));
    };
    if let Some(role) = o.get("role").and_then(Value::as_str)
        && role != "assistant"
    {
        return Err(err(&format!("{ptr}/role"), format!("expected an assistant message, got role \"{role}\"")));
    }
    let mut answer = Answer::default();
    let mut texts: Vec<String> = Vec::new();
    match o.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => texts.push(s.clone()),
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                let bptr = format!("{ptr}/content/{i}");
                match b.get("type").and_then(Value::as_str) {
                    Some("text" | "output_text") => {
                        let t = b
                            .get("text")
                            .and_then(Value::as_str)
                            .ok_or_else(|| err(&bptr, "a text block needs a string `text`"))?;
                        texts.push(t.to_string());
                    }
                    Some("tool_use") => {
                        let name = b
                            .get("name")
                            .and_then(Value::as_str)
                            .ok_or_else(|| err(&bptr, "a tool_use block needs a string `name`"))?;
                        let input = match b.get("input") {
                            Some(Value::Object(m)) => m.clone(),
                            None => Map::new(),
                            Some(other) => {
                                return Err(err(
                                    &format!("{bptr}/input"),
                                    format!("expected an object, got {}", json_kind(other)),
                                ));
                            }
                        };
                        answer.tool_calls.push(StructuredCall {
                            id: b.get("id").and_then(Value::as_str).map(str::to_string),
                            name: name.to_string(),
                            arguments: CallArguments::Object(input),
                        });
                    }
                    // Thinking, images and other blocks carry no checkable text.
                    Some(_) => {}
                    None => return Err(err(&bptr, "a content block needs a `type`")),
                }
            }
        }
        Some(other) => {
            return Err(err(
                &format!("{ptr}/content"),
                format!("expected a string, an array of blocks or null, got {}", json_kind(other)),
            ));
        }
    }
    answer.text = texts.join("\n\n");
    if let Some(calls) = o.get("tool_calls") {
        answer.tool_calls.extend(openai_calls(calls, &format!("{ptr}/tool_calls"))?);
    }
    if let Some(fc) = o.get("function_call").filter(|f| !f.is_null()) {
        answer.tool_calls.push(openai_function(fc, None, &format!("{ptr}/function_call"))?);
    }
    if answer.text.trim().is_empty() && answer.tool_calls.is_empty() && o.get("content").is_none_or(Value::is_null) {
        return Err(err(ptr, "the chat message has no content and no tool calls"));
    }
    answer.context = o.get("context").and_then(Value::as_object).cloned();
    Ok(answer)
}

fn openai_calls(v: &Value, ptr: &str) -> Result<Vec<StructuredCall>, InputError> {
    if v.is_null() {
        return Ok(Vec::new());
    }
    let Some(arr) = v.as_array() else {
        return Err(err(ptr, format!("expected an array of tool calls, got {}", json_kind(v))));
    };
    let mut out = Vec::new();
    for (i, c) in arr.iter().enumerate() {
        let cptr = format!("{ptr}/{i}");
        let id = c.get("id").and_then(Value::as_str).map(str::to_string);
        if let Some(f) = c.get("function") {
            out.push(openai_function(f, id, &format!("{cptr}/function"))?);
        } else if c.get("name").is_some() {
            // Envelope style: {"name", "arguments"}.
            out.push(openai_function(c, id, &cptr)?);
        } else {
            return Err(err(&cptr, "expected {\"function\": {\"name\", \"arguments\"}} or {\"name\", \"arguments\"}"));
        }
    }
    Ok(out)
}

fn openai_function(f: &Value, id: Option<String>, ptr: &str) -> Result<StructuredCall, InputError> {
    let name = f.get("name").and_then(Value::as_str).ok_or_else(|| err(ptr, "a function call needs a string `name`"))?;
    let arguments = match f.get("arguments").or_else(|| f.get("input")).or_else(|| f.get("parameters")) {
        None | Some(Value::Null) => CallArguments::Object(Map::new()),
        Some(Value::String(s)) => CallArguments::Raw(s.clone()),
        Some(Value::Object(m)) => CallArguments::Object(m.clone()),
        Some(other) => {
            return Err(err(
                &format!("{ptr}/arguments"),
                format!("expected a JSON string or an object, got {}", json_kind(other)),
            ));
        }
    };
    Ok(StructuredCall { id, name: name.to_string(), arguments })
}

fn envelope(o: &Map<String, Value>) -> Result<Answer, InputError> {
    let text = match o.get("text") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => String::new(),
        Some(other) => return Err(err("/text", format!("expected a string, got {}", json_kind(other)))),
        None => String::new(),
    };
    let tool_calls = match o.get("tool_calls") {
        Some(v) => openai_calls(v, "/tool_calls")?,
        None => Vec::new(),
    };
    let context = match o.get("context") {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => Some(c.clone()),
        Some(other) => return Err(err("/context", format!("expected an object, got {}", json_kind(other)))),
    };
    Ok(Answer { text, tool_calls, context, id: o.get("id").and_then(Value::as_str).map(str::to_string) })
}

/// Merges a context document over the answer's own context (keys in `overlay` win).
pub fn merge_context(answer: &mut Answer, overlay: &Map<String, Value>) {
    let ctx = answer.context.get_or_insert_with(Map::new);
    for (k, v) in overlay {
        ctx.insert(k.clone(), v.clone());
    }
}

/// Fills `tool_schemas` with a tools document and adds its names to `tools_available`.
pub fn add_tools(answer: &mut Answer, tools: &Value) {
    let ctx = answer.context.get_or_insert_with(Map::new);
    let names: Vec<String> = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("function").unwrap_or(t).get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    ctx.insert("tool_schemas".into(), tools.clone());
    let available = ctx.entry("tools_available").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = available {
        for n in names {
            if !list.iter().any(|x| x.as_str() == Some(&n)) {
                list.push(Value::String(n));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Answer, InputError> {
        parse_input(&v.to_string(), InputFormat::Auto, DEFAULT_MAX_BYTES)
    }

    #[test]
    fn plain_text_and_markdown() {
        let a = parse_input("# Title\n\nHello.", InputFormat::Auto, DEFAULT_MAX_BYTES).unwrap();
        assert_eq!(a.text, "# Title\n\nHello.");
        assert!(a.tool_calls.is_empty());
        let a = parse_input("{not json}", InputFormat::Text, DEFAULT_MAX_BYTES).unwrap();
        assert_eq!(a.text, "{not json}");
    }

    #[test]
    fn openai_message_and_completion() {
        let msg = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]});
        let a = parse(msg.clone()).unwrap();
        assert_eq!(a.text, "");
        assert_eq!(a.tool_calls[0].name, "get_weather");
        assert_eq!(a.tool_calls[0].arguments, CallArguments::Raw("{\"city\": \"Paris\"}".into()));
        let completion = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "message": msg}]});
        let a = parse(completion).unwrap();
        assert_eq!(a.id.as_deref(), Some("chatcmpl-1"));
        assert_eq!(a.tool_calls.len(), 1);
    }

    #[test]
    fn anthropic_blocks() {
        let m = json!({"type": "message", "role": "assistant", "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x", "n": 2}}]});
        let a = parse(m).unwrap();
        assert_eq!(a.text, "Let me check.");
        assert_eq!(a.tool_calls[0].id.as_deref(), Some("toolu_1"));
        assert!(matches!(&a.tool_calls[0].arguments, CallArguments::Object(o) if o["n"] == json!(2)));
    }

    #[test]
    fn envelope_with_context() {
        let e = json!({"text": "Done.", "tool_calls": [{"name": "f", "arguments": {"a": 1}}], "context": {"user_query": "q"}});
        let a = parse(e).unwrap();
        assert_eq!(a.text, "Done.");
        assert_eq!(a.context.unwrap()["user_query"], json!("q"));
    }

    #[test]
    fn refusals_are_located() {
        let cases = [
            (json!({"role": "user", "content": "hi"}), "/role"),
            (json!({"role": "assistant"}), ""),
            (json!({"role": "assistant", "content": null, "tool_calls": null}), ""),
            (json!({"choices": []}), "/choices"),
            (json!({"role": "assistant", "content": 5}), "/content"),
            (json!({"role": "assistant", "content": [{"text": "x"}]}), "/content/0"),
            (
                json!({"role": "assistant", "content": "x", "tool_calls": [{"function": {"arguments": "{}"}}]}),
                "/tool_calls/0/function",
            ),
            (json!({"hello": 1}), ""),
            (json!({"text": 5}), "/text"),
        ];
        for (v, ptr) in cases {
            let e = parse(v.clone()).unwrap_err();
            assert_eq!(e.pointer, ptr, "{v}: {e}");
        }
        let e = parse_input("{\"role\": \"assistant\", ", InputFormat::Auto, DEFAULT_MAX_BYTES);
        assert!(e.is_ok(), "does not end with '}}': read as text");
        let e = parse_input("{\"role\": \"assistant\" }}", InputFormat::Auto, DEFAULT_MAX_BYTES).unwrap_err();
        assert!(e.message.contains("looks like JSON"), "{e}");
        let e = parse_input("xxxx", InputFormat::Auto, 3).unwrap_err();
        assert!(e.message.contains("limit is 3 bytes"));
    }

    #[test]
    fn tools_fill_context() {
        let mut a = Answer::default();
        add_tools(&mut a, &json!([{"type": "function", "function": {"name": "a"}}, {"name": "b"}]));
        let ctx = a.context.unwrap();
        assert_eq!(ctx["tools_available"], json!(["a", "b"]));
        assert!(ctx["tool_schemas"].is_array());
    }
}
