//! JSON stages: ask, validate against the stage's schema, repair once, or give up.
//!
//! [`complete_json`] sends a prompt asking for JSON, strips one surrounding Markdown code
//! fence, parses the reply and hands it to the stage's validator. When parsing or validation
//! fails, it asks once more with the [`crate::prompts::REPAIR`] prompt (the original prompt,
//! the rejected reply and the reason). A second failure, or a failed call, is a
//! [`StageFailure`]: the caller then runs its deterministic stage and reports the reason as
//! `degraded`.

use serde_json::Value;

use crate::{Completion, Llm, ResponseFormat, prompts};

/// Longest rejected reply quoted back in a repair prompt, in chars.
const REPAIR_QUOTE: usize = 4000;

/// Why a JSON stage gave up; `reason` is the `degraded` reason callers report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct StageFailure {
    /// One line: what failed.
    pub reason: String,
    /// True when the model answered but its output was rejected twice; false when a call
    /// failed (timeout, HTTP error, not in the replay cache).
    pub rejected: bool,
}

/// A validated reply and the completions it took (one, or two after a repair).
#[derive(Debug, Clone, PartialEq)]
pub struct StageOutput<T> {
    /// The validated value.
    pub value: T,
    /// The completions, in order.
    pub completions: Vec<Completion>,
}

/// Removes one surrounding Markdown code fence (```` ```json … ``` ````), if there is one, and
/// surrounding whitespace.
pub fn strip_code_fence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let Some(body) = rest.strip_suffix("```") else { return t };
    // The info string runs to the end of the first line.
    match body.find('\n') {
        Some(nl) if !body[..nl].contains('`') => body[nl + 1..].trim(),
        _ => t,
    }
}

/// One line of text: control characters (a newline in a key a model wrote, say) escaped, so
/// a validator's reason stays one line in reports and logs.
pub fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// Parses a reply: one fence stripped, then JSON.
pub fn parse_reply(text: &str) -> Result<Value, String> {
    serde_json::from_str(strip_code_fence(text)).map_err(|e| format!("the reply is not JSON: {e}"))
}

/// Runs a JSON stage (see the module docs). `validate` turns the parsed reply into the
/// stage's value or says, in one line, what is wrong with it (with a JSON pointer).
pub fn complete_json<T>(
    llm: &Llm,
    stage: &str,
    prompt: &str,
    validate: impl Fn(&Value) -> Result<T, String>,
) -> Result<StageOutput<T>, StageFailure> {
    let fail = |reason: String| StageFailure { reason: format!("{stage}: {reason}"), rejected: false };
    let first = llm.complete(stage, prompt, ResponseFormat::Json).map_err(|e| fail(e.to_string()))?;
    let problem = match parse_reply(&first.content).and_then(|v| validate(&v)) {
        Ok(value) => return Ok(StageOutput { value, completions: vec![first] }),
        Err(p) => p,
    };
    let quoted: String = first.content.chars().take(REPAIR_QUOTE).collect();
    let repair = prompts::render(prompts::REPAIR, &[("prompt", prompt), ("reply", &quoted), ("problem", &problem)]);
    let second = llm
        .complete(&format!("{stage}.repair"), &repair, ResponseFormat::Json)
        .map_err(|e| fail(format!("{problem}; the repair request failed: {e}")))?;
    match parse_reply(&second.content).and_then(|v| validate(&v)) {
        Ok(value) => Ok(StageOutput { value, completions: vec![first, second] }),
        Err(p) => Err(StageFailure {
            rejected: true,
            ..fail(format!("the model's output was rejected twice: {problem}; after repair: {p}"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences() {
        assert_eq!(strip_code_fence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(strip_code_fence("  ```\n[1]\n```  "), "[1]");
        assert_eq!(strip_code_fence("[1]"), "[1]");
        assert_eq!(strip_code_fence("```[1]```"), "```[1]```");
        assert_eq!(parse_reply("```json\n{\"a\": 1}\n```").unwrap()["a"], 1);
        assert!(parse_reply("{oops").unwrap_err().starts_with("the reply is not JSON"));
        assert_eq!(one_line("/a\nb\t: x"), "/a\\nb\\t: x");
        assert_eq!(one_line("plain"), "plain");
    }
}
