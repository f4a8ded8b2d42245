//! Batch items: many answers, each with its own id and optionally its own sources (a line of
//! `warrant check --batch`, an item of `POST /v1/check`'s `items`). The scheduling is the
//! `warrant` crate's.

use serde_json::Value;
use warrant_extract::{Answer, add_tools, answer_from_value};
use warrant_verify::{Corpus, Source};

use crate::{CheckError, Checker, Report, Request};

/// One batch item: `{"id", "answer", "question"?, "sources"?: [{"id", "text", "title"?}],
/// "tools"?}`.
#[derive(Debug, Clone)]
pub struct Item {
    /// The item's id (the report's `output_id`).
    pub id: String,
    /// The model output.
    pub answer: Answer,
    /// The question it answers.
    pub question: Option<String>,
    /// Its own sources, checked instead of the shared ones.
    pub sources: Option<Vec<Source>>,
}

/// Reads one batch item; `tools` (tool definitions shared by the batch) apply when the item
/// has none of its own. The error is a JSON pointer within the item and what was expected.
pub fn parse_item(v: &Value, tools: Option<&Value>) -> Result<Item, String> {
    let answer_v = v.get("answer").ok_or("/answer: expected the answer (text or message)")?;
    let mut answer = answer_from_value(answer_v).map_err(|e| format!("/answer{e}"))?;
    if let Some(t) = v.get("tools") {
        add_tools(&mut answer, t);
    } else if let Some(t) = tools {
        add_tools(&mut answer, t);
    }
    let question = optional_string(v, "question").map_err(|e| format!("/question{e}"))?;
    let sources = match v.get("sources") {
        None | Some(Value::Null) => None,
        Some(list) => Some(parse_sources(list).map_err(|e| format!("/sources{e}"))?),
    };
    let id = match v.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err("/id: expected a string".into()),
    };
    Ok(Item { id, answer, question, sources })
}

/// An optional string field: absent or `null` is none; the error says what was expected.
fn optional_string(v: &Value, field: &str) -> Result<Option<String>, String> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(": expected a string".into()),
    }
}

/// Reads `[{"id", "text", "title"?}]` into sources; the error is a pointer within the array
/// and what was expected.
pub fn parse_sources(v: &Value) -> Result<Vec<Source>, String> {
    let Value::Array(list) = v else { return Err(": expected an array of {id, text}".into()) };
    let mut out = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        let id = s.get("id").and_then(Value::as_str).ok_or(format!("/{i}/id: expected a string"))?;
        let text = s.get("text").and_then(Value::as_str).ok_or(format!("/{i}/text: expected a string"))?;
        let title = optional_string(s, "title").map_err(|e| format!("/{i}/title{e}"))?;
        out.push(Source::new(id, text).titled(title));
    }
    Ok(out)
}

impl Checker {
    /// Checks one batch item against its own sources, else `shared`.
    pub fn check_item(&self, item: &Item, shared: &Corpus) -> Result<Report, CheckError> {
        let own;
        let corpus = match &item.sources {
            Some(s) => {
                own = Corpus::new(s.clone());
                &own
            }
            None => shared,
        };
        let req = Request { answer: &item.answer, question: item.question.as_deref(), output_id: Some(item.id.clone()) };
        self.check(&req, corpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_are_read_with_pointers_to_what_is_wrong() {
        let item = parse_item(&json!({"id": 7, "answer": "Paris is in France.", "sources": [{"id": "a", "text": "x"}]}), None)
            .expect("item");
        assert_eq!(item.id, "7");
        assert_eq!(item.sources.as_ref().map(Vec::len), Some(1));
        assert_eq!(parse_item(&json!({"answer": "x"}), None).err().as_deref(), Some("/id: expected a string"));
        assert_eq!(
            parse_item(&json!({"id": "a", "answer": "x", "sources": [{"id": "s"}]}), None).err().as_deref(),
            Some("/sources/0/text: expected a string")
        );
        assert_eq!(
            parse_item(&json!({"id": "a", "answer": "x", "sources": [{"id": "s", "text": "t", "title": 3}]}), None)
                .err()
                .as_deref(),
            Some("/sources/0/title: expected a string")
        );
        let titled = parse_item(
            &json!({"id": "a", "answer": "x", "sources": [{"id": "s", "text": "t", "title": "Amazon (company)"}]}),
            None,
        )
        .expect("a titled source");
        assert_eq!(titled.sources.expect("sources")[0].title.as_deref(), Some("Amazon (company)"));
        assert_eq!(
            parse_item(&json!({"id": "a", "answer": "x", "question": 3}), None).err().as_deref(),
            Some("/question: expected a string")
        );
    }
}
