//! Request parts several use cases share (an answer, a pack, a source) and their resolution:
//! an answer read as its format says, packs by id, document or file, tool definitions.

use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};
use warrant_cpl::packs::{builtin, builtin_ids};
use warrant_cpl::{Pack, ToolOrigin, ToolRegistry, load_pack_or_policy};
use warrant_extract::{Answer, add_tools, answer_from_value, merge_context, parse_input};

use crate::error::{Error, Result};
use crate::io::{display_name, pointer, read_json};

/// A model output: text or Markdown (read as `input_format` says), or a JSON object — an
/// OpenAI-style assistant message, a chat completion, an Anthropic message, or an envelope
/// `{"text", "tool_calls"?, "context"?}`.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum AnswerInput {
    /// Text (or JSON text, under `input_format: auto|json`).
    Text(String),
    /// A message, completion or envelope.
    Message(Map<String, Value>),
}

/// How a text answer is read (as `--input-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// A known JSON shape when the text parses as one, plain text otherwise.
    #[default]
    Auto,
    /// Plain text or Markdown, even if it looks like JSON.
    Text,
    /// JSON only (an error if it does not parse).
    Json,
}

impl From<InputFormat> for warrant_extract::InputFormat {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Self::Auto,
            InputFormat::Text => Self::Text,
            InputFormat::Json => Self::Json,
        }
    }
}

/// A policy pack: a built-in pack id, or a pack (or standalone policy) document.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum PackRef {
    /// A built-in pack id (`GET /v1/packs`).
    Id(String),
    /// A pack or policy document.
    Document(Map<String, Value>),
}

/// A source document to check against.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceInput {
    /// Its id (support edges name it).
    pub id: String,
    /// Its text (selectors are char offsets into it).
    pub text: String,
    /// Its version (accepted; not used by the check).
    #[serde(default)]
    pub version: Option<String>,
    /// The heading its text stands under (a page's title): what its sentences speak of when
    /// they do not name it. Read, never quoted.
    #[serde(default)]
    pub title: Option<String>,
}

/// Where an answer came from, for its errors: a file (the CLI's ANSWER) or the request's
/// `/answer`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AnswerOrigin<'a> {
    File(&'a str),
    Request,
}

/// Reads an answer, then merges `context` and adds `tools`.
pub(crate) fn read_answer(
    input: &AnswerInput,
    format: InputFormat,
    max_bytes: usize,
    origin: AnswerOrigin<'_>,
    context: Option<&Map<String, Value>>,
    tools: Option<&Value>,
) -> Result<Answer> {
    let mut answer = match (input, origin) {
        (AnswerInput::Text(t), AnswerOrigin::File(path)) => parse_input(t, format.into(), max_bytes)
            .map_err(|e| Error::in_file(display_name(path), format!("{}: {e}", display_name(path))))?,
        (AnswerInput::Text(t), AnswerOrigin::Request) => parse_input(t, format.into(), max_bytes)
            .map_err(|e| Error::input_at(format!("/answer{}", e.pointer), format!("/answer: {e}")))?,
        (AnswerInput::Message(m), _) => answer_from_value(&Value::Object(m.clone()))
            .map_err(|e| Error::input_at(format!("/answer{}", e.pointer), format!("/answer{e}")))?,
    };
    if let Some(ctx) = context {
        merge_context(&mut answer, ctx);
    }
    if let Some(t) = tools {
        add_tools(&mut answer, t);
    }
    Ok(answer)
}

/// Reads an answer given in a request (errors point under `/answer`), then merges `context`
/// and adds `tools`.
pub fn request_answer(
    input: &AnswerInput,
    format: InputFormat,
    max_bytes: usize,
    context: Option<&Map<String, Value>>,
    tools: Option<&Value>,
) -> Result<Answer> {
    read_answer(input, format, max_bytes, AnswerOrigin::Request, context, tools)
}

/// Tool definitions given in a request, refused with a pointer under `/tools` when malformed.
pub fn tool_registry(tools: Option<&Value>) -> Result<ToolRegistry> {
    match tools {
        None => Ok(ToolRegistry::new()),
        Some(v) => ToolRegistry::from_json(v, ToolOrigin::File)
            .map_err(|e| Error::input_at(format!("/tools{}", e.pointer), format!("/tools{}: {}", e.pointer, e.message))),
    }
}

/// A tools file (`--tools`): its JSON and its registry, refused with the file and pointer.
pub fn tools_file(path: &str) -> Result<(Value, ToolRegistry)> {
    let v = read_json(path)?;
    let registry = ToolRegistry::from_json(&v, ToolOrigin::File)
        .map_err(|e| Error::in_file(path, format!("{path}: {}: {}", e.pointer, e.message)).at_pointer(e.pointer.clone()))?;
    Ok((v, registry))
}

/// The built-in pack `id`, or `None` when there is none.
fn builtin_pack(id: &str) -> Option<Result<Pack>> {
    builtin(id).map(|p| p.cloned().map_err(|e| Error::internal(format!("built-in pack {id}: {e}"))))
}

fn builtin_list() -> String {
    builtin_ids().collect::<Vec<_>>().join(", ")
}

/// Packs given in a request: built-in ids or documents, refused with a pointer under
/// `/packs`.
pub fn packs(refs: &[PackRef]) -> Result<Vec<Pack>> {
    let mut out = Vec::with_capacity(refs.len());
    for (i, p) in refs.iter().enumerate() {
        match p {
            PackRef::Id(id) => match builtin_pack(id) {
                Some(pack) => out.push(pack?),
                None => {
                    return Err(Error::input_at(
                        format!("/packs/{i}"),
                        format!("unknown pack '{id}': not a built-in pack id (built-in: {})", builtin_list()),
                    ));
                }
            },
            PackRef::Document(doc) => {
                let pack = load_pack_or_policy(&Value::Object(doc.clone())).map_err(|e| {
                    let at = format!("/packs/{i}{}", e.pointer);
                    Error::input_at(at.clone(), format!("{at}: {}", e.message))
                })?;
                out.push(pack);
            }
        }
    }
    Ok(out)
}

/// Packs named on a command line (`--pack`): an existing file, else a built-in id.
pub fn pack_specs(specs: &[String]) -> Result<Vec<Pack>> {
    let mut packs = Vec::with_capacity(specs.len());
    for spec in specs {
        if Path::new(spec).is_file() {
            let v = read_json(spec)?;
            let pack = load_pack_or_policy(&v).map_err(|e| {
                Error::in_file(spec.as_str(), format!("{spec}: {}: {}", pointer(&e.pointer), e.message))
                    .at_pointer(e.pointer.clone())
            })?;
            packs.push(pack);
        } else if let Some(p) = builtin_pack(spec) {
            packs.push(p?);
        } else {
            return Err(Error::input(format!(
                "unknown pack '{spec}': not a file and not a built-in pack id (built-in: {})",
                builtin_list()
            )));
        }
    }
    Ok(packs)
}

/// The predicate vocabulary facts are read with: the built-in one, extended by a file when
/// given (TOML or JSON).
pub fn vocabulary(path: Option<&str>) -> Result<warrant_facts::Vocabulary> {
    use warrant_facts::{VocabFormat, Vocabulary};
    let builtin = Vocabulary::builtin();
    let Some(path) = path else { return Ok(builtin) };
    let text = crate::io::read_text(path)?;
    let name = display_name(path);
    let file = Vocabulary::from_str_with_format(&text, VocabFormat::detect(path, &text))
        .map_err(|e| Error::in_file(name, format!("{name}: {e}")))?;
    builtin.extended(&file).map_err(|e| Error::in_file(name, format!("{name}: {e}")))
}

/// A context file (`--context`): a JSON object of keys merged into an answer's context.
pub fn context_file(path: &str) -> Result<Map<String, Value>> {
    match read_json(path)? {
        Value::Object(m) => Ok(m),
        _ => Err(Error::in_file(path, format!("{path}: expected a JSON object of context keys"))),
    }
}
