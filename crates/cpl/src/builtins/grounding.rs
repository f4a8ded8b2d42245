//! `arguments_grounded(tool_call)`: every scalar argument value, at any depth of nested
//! objects and arrays, appears — after number and date normalisation — in the user query, the
//! system prompt, the answer text (outside tool calls) or an earlier tool result
//! (`context.tool_results`, read down to its nested values). It catches arguments the model
//! made up.
//!
//! Booleans and nulls are not checked: they cannot be quoted from text. Strings match
//! case-insensitively with whitespace folded; numbers match any number or number word with the
//! same exact value (and a fraction matches its percentage: `0.05` ↔ `5%`); dates match any
//! date with the same year, month and day (a date without a year matches on month and day).

use std::collections::HashSet;

use serde_json::Value;
use warrant_graph::{PredicateGraph, ToolCall};
use warrant_text::date::{DateKind, find_dates};
use warrant_text::number::BigRational;
use warrant_text::quantity::find_quantities;
use warrant_text::words::find_number_words;

use super::Diag;

/// What the sources say, indexed once per graph.
#[derive(Debug, Default)]
pub struct GroundingIndex {
    /// Lower-cased, whitespace-folded source text.
    text: String,
    numbers: HashSet<BigRational>,
    /// (year, month, day) of every date mention; year `None` when unstated.
    dates: Vec<(Option<i32>, u8, u8)>,
}

fn fold(s: &str) -> String {
    warrant_text::normalize::collapse_whitespace(s).to_lowercase()
}

impl GroundingIndex {
    /// Builds the index from the user query, the system prompt, the answer text with
    /// tool-call spans removed, and `context.tool_results` (strings, or JSON values whose
    /// every scalar counts).
    pub fn new(graph: &PredicateGraph) -> Self {
        let mut parts: Vec<String> = Vec::new();
        if let Some(q) = graph.user_query() {
            parts.push(q.to_string());
        }
        if let Some(p) = graph.context.as_ref().and_then(|c| c.get("system_prompt")).and_then(Value::as_str) {
            parts.push(p.to_string());
        }
        let mut spans: Vec<(usize, usize)> = graph.tool_calls.iter().map(|t| t.span.range()).collect();
        spans.sort_unstable();
        let mut answer = String::new();
        let mut pos = 0usize;
        for (s, e) in spans {
            answer.push_str(warrant_text::clamp_slice(&graph.text, pos, s));
            answer.push(' ');
            pos = pos.max(e);
        }
        answer.push_str(warrant_text::clamp_slice(&graph.text, pos, usize::MAX));
        parts.push(answer);
        if let Some(results) = graph.context.as_ref().and_then(|c| c.get("tool_results")).and_then(Value::as_array) {
            for r in results {
                let body = match r {
                    Value::Object(o) => o.get("content").or_else(|| o.get("output")).or_else(|| o.get("result")).unwrap_or(r),
                    other => other,
                };
                scalar_texts(body, &mut parts);
            }
        }
        let raw = parts.join("\n");
        let mut numbers = HashSet::new();
        for q in find_quantities(&raw) {
            if let Some(c) = q.canonical() {
                numbers.insert(c);
            }
            numbers.insert(q.value);
        }
        for w in find_number_words(&raw) {
            numbers.insert(w.value);
        }
        let dates = find_dates(&raw)
            .into_iter()
            .filter(|d| d.kind == DateKind::Date)
            .filter_map(|d| Some((d.year, d.month?, d.day?)))
            .collect();
        Self { text: fold(&raw), numbers, dates }
    }

    fn has_number(&self, v: &BigRational) -> bool {
        let hundred = BigRational::from_integer(100.into());
        self.numbers.contains(v) || self.numbers.contains(&(v * &hundred))
    }

    fn has_date(&self, s: &str) -> Option<bool> {
        let ds = find_dates(s);
        let d = ds.first().filter(|d| d.range.len() == s.trim().len() && d.kind == DateKind::Date)?;
        let (m, day) = (d.month?, d.day?);
        Some(self.dates.iter().any(|(y, mm, dd)| *mm == m && *dd == day && (y.is_none() || d.year.is_none() || *y == d.year)))
    }

    /// True when a scalar value is grounded.
    fn grounded(&self, v: &Value) -> bool {
        match v {
            Value::Null | Value::Bool(_) => true,
            Value::Number(n) => warrant_text::Decimal::parse(&n.to_string()).is_ok_and(|d| self.has_number(d.value())),
            Value::String(s) => {
                let f = fold(s);
                if f.is_empty() || contains_phrase(&self.text, &f) {
                    return true;
                }
                if let Ok(d) = warrant_text::Decimal::parse(s.trim()) {
                    return self.has_number(d.value());
                }
                self.has_date(s).unwrap_or(false)
            }
            Value::Array(_) | Value::Object(_) => true,
        }
    }
}

/// Every string and number inside a JSON value, one part each. A result's JSON text would
/// glue escapes to words (`\nParis`) and hide them from the whole-word match; a string that
/// itself holds JSON (a tool's raw output) is read the same way.
fn scalar_texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => scalar_texts(&inner, out),
            _ => out.push(s.clone()),
        },
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| scalar_texts(x, out)),
        Value::Object(o) => o.values().for_each(|x| scalar_texts(x, out)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// `needle` occurs in `hay` as whole words ("bos" is not in "boston").
fn contains_phrase(hay: &str, needle: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    hay.match_indices(needle).any(|(i, m)| {
        let before = hay[..i].chars().next_back();
        let after = hay[i + m.len()..].chars().next();
        let glued_before = word(before) && needle.starts_with(char::is_alphanumeric);
        let glued_after = word(after) && needle.ends_with(char::is_alphanumeric);
        !(glued_before || glued_after)
    })
}

fn leaves<'v>(prefix: String, v: &'v Value, out: &mut Vec<(String, &'v Value)>) {
    match v {
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| leaves(format!("{prefix}[{i}]"), x, out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| leaves(format!("{prefix}.{k}"), x, out)),
        _ => out.push((prefix, v)),
    }
}

/// `arguments_grounded(tc)`.
pub fn arguments_grounded(index: &GroundingIndex, tc: &ToolCall, diag: &mut Diag<'_>) -> bool {
    let mut ok = true;
    for (k, v) in &tc.arguments {
        let mut scalars = Vec::new();
        leaves(k.clone(), v, &mut scalars);
        for (path, leaf) in scalars {
            if !index.grounded(leaf) {
                ok = false;
                diag.push(|| {
                    format!(
                        "argument '{path}' value {leaf} does not appear in the user query, the system prompt, the answer or an earlier tool result"
                    )
                });
                if !diag.wants() {
                    return false;
                }
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn graph(text: &str, query: &str, results: Value) -> PredicateGraph {
        let mut g = PredicateGraph::empty("g", text);
        g.context = json!({"user_query": query, "tool_results": results}).as_object().cloned();
        g
    }

    fn call(args: Value) -> ToolCall {
        ToolCall {
            id: "tc1".into(),
            name: "f".into(),
            arguments: args.as_object().unwrap().clone(),
            span: warrant_graph::Span::new(0, 0),
        }
    }

    fn check(g: &PredicateGraph, args: Value) -> (bool, Vec<String>) {
        let idx = GroundingIndex::new(g);
        let mut d = Vec::new();
        let ok = arguments_grounded(&idx, &call(args), &mut Diag::collect(&mut d));
        (ok, d)
    }

    #[test]
    fn grounded_by_query_answer_and_results() {
        let g = graph(
            "Booking two seats.",
            "Book me and my partner a flight from Boston to Lisbon on December 18th.",
            json!([{"content": "Flight TP218 departs 09:40"}]),
        );
        assert!(check(&g, json!({"city": "boston", "date": "2026-12-18", "flight": "TP218", "seats": 2, "direct": true})).0);
        let (ok, d) = check(&g, json!({"origin": "BOS", "passengers": "3", "when": "2026-12-19"}));
        assert!(!ok);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[1].starts_with("argument 'passengers' value \"3\""), "{d:?}");
    }

    #[test]
    fn numbers_normalise() {
        let g = graph("", "Calculate a 15% tip on $1,200 for 3 people", json!([]));
        assert!(check(&g, json!({"bill": "1200", "pct": 15, "rate": 0.15, "n": 3.0})).0);
        assert!(!check(&g, json!({"bill": 1300})).0);
    }

    #[test]
    fn nested_values_and_arrays_are_grounded_by_query_system_prompt_and_results() {
        let mut g = graph(
            "",
            "Send the Q3 report to ana@example.com and bo@example.com.",
            json!([{"content": {"rooms": [{"id": "R-17", "floor": 4}], "note": "Line one.\nParis office"}},
                   "{\"order\": {\"number\": \"A-99\"}}"]),
        );
        g.context.as_mut().unwrap().insert("system_prompt".into(), json!("You work for Contoso Travel. Currency: EUR."));
        let args = json!({
            "to": ["ana@example.com", "bo@example.com"],
            "meta": {"company": "Contoso Travel", "currency": "EUR", "subject": "Q3 report"},
            "booking": {"room": "R-17", "floor": 4, "city": "Paris"},
            "order": "A-99"
        });
        let (ok, d) = check(&g, args);
        assert!(ok, "{d:?}");
        let (ok, d) = check(&g, json!({"to": ["ana@example.com", "cy@example.com"], "booking": {"room": "R-18"}}));
        assert!(!ok);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].starts_with("argument 'booking.room' value \"R-18\""), "{d:?}");
        assert!(d[1].starts_with("argument 'to[1]' value \"cy@example.com\""), "{d:?}");
    }

    #[test]
    fn the_call_itself_does_not_ground_its_arguments() {
        let text = "Calling now.\n\nbook(city=\"Oslo\")";
        let mut g = graph(text, "Book a hotel", json!([]));
        g.tool_calls.push(ToolCall {
            id: "tc1".into(),
            name: "book".into(),
            arguments: serde_json::Map::new(),
            span: warrant_graph::Span::new(14, text.chars().count() as u64),
        });
        assert!(!check(&g, json!({"city": "Oslo"})).0);
    }
}
