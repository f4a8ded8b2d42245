//! Tool calls written in the text: fenced JSON that is plainly a function call, and call
//! syntax on a line of its own (`calculate_tip(bill_amount="100", tip_percentage=15)`).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Number, Value};

/// A call found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCall {
    /// Where it is written.
    pub range: Range<usize>,
    /// Function name.
    pub name: String,
    /// Arguments with their literal JSON types.
    pub arguments: Map<String, Value>,
}

/// Reads a JSON value that is plainly a function call:
/// `{"name", "arguments"|"parameters"|"args"|"input"}`, `{"function": {…}}`,
/// `{"tool"|"tool_name", "tool_input"|"parameters"|"arguments"}`.
pub fn json_call(v: &Value) -> Option<(String, Map<String, Value>)> {
    let o = v.as_object()?;
    if let Some(f) = o.get("function").filter(|f| f.is_object()) {
        return json_call(f);
    }
    let name = ["name", "tool", "tool_name", "function_name"].iter().find_map(|k| o.get(*k)?.as_str())?;
    if !name.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-')) || name.is_empty() {
        return None;
    }
    let args = ["arguments", "parameters", "args", "input", "tool_input"].iter().find_map(|k| o.get(*k))?;
    let args = match args {
        Value::Object(m) => m.clone(),
        Value::String(s) => serde_json::from_str::<Value>(s).ok()?.as_object()?.clone(),
        _ => return None,
    };
    // Nothing else but type/id markers: a config object with a `name` is not a call.
    let allowed =
        ["name", "tool", "tool_name", "function_name", "arguments", "parameters", "args", "input", "tool_input", "type", "id"];
    o.keys().all(|k| allowed.contains(&k.as_str())).then(|| (name.to_string(), args))
}

static CALL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]*(?:[-*][ \t]+)?`?([A-Za-z_][A-Za-z0-9_.]*)\((.*)\)`?[ \t]*;?[ \t]*$").unwrap_or_else(|e| panic!("{e}"))
});

/// Finds call-syntax lines in a prose range. A line counts when it is nothing but one call
/// and either names a known tool or passes keyword arguments.
pub fn call_lines(text: &str, range: Range<usize>, known: &[String]) -> Vec<TextCall> {
    let mut out = Vec::new();
    let mut pos = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        // Cheap shape check first: a call line ends with `)` (maybe `)`, `;` or a backtick).
        let tail = content.trim_end_matches([' ', '\t', ';', '`']);
        if !tail.ends_with(')') || !content.contains('(') {
            pos += line.len();
            continue;
        }
        if let Some(c) = CALL_LINE.captures(content)
            && let (Some(name), Some(args)) = (c.get(1), c.get(2))
            && let Some((arguments, keyword)) = parse_arguments(args.as_str())
            && (keyword || known.iter().any(|k| k == name.as_str()))
        {
            out.push(TextCall { range: pos + name.start()..pos + args.end() + 1, name: name.as_str().to_string(), arguments });
        }
        pos += line.len();
    }
    out
}

/// Parses `k=v, k2=v2` (Python keywords), `k: v` pairs, or one JSON object. Returns the
/// arguments and whether they were keyword-style. Positional arguments are not a tool call.
fn parse_arguments(s: &str) -> Option<(Map<String, Value>, bool)> {
    let t = s.trim();
    if t.is_empty() {
        return Some((Map::new(), false));
    }
    if t.starts_with('{') {
        let v: Value = serde_json::from_str(t).ok()?;
        return v.as_object().map(|m| (m.clone(), true));
    }
    let mut p = LitParser { s: t.as_bytes(), src: t, i: 0, depth: 0 };
    let mut out = Map::new();
    loop {
        p.ws();
        let key = p.ident()?;
        p.ws();
        if !p.eat(b'=') && !p.eat(b':') {
            return None;
        }
        let v = p.value()?;
        out.insert(key, v);
        p.ws();
        if p.i == p.s.len() {
            break;
        }
        if !p.eat(b',') {
            return None;
        }
        p.ws();
        if p.i == p.s.len() {
            break;
        }
    }
    Some((out, true))
}

/// A small parser for Python / JSON literals.
struct LitParser<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    depth: usize,
}

impl LitParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Option<String> {
        let start = self.i;
        while self.i < self.s.len() && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_') {
            self.i += 1;
        }
        (self.i > start && !self.s[start].is_ascii_digit()).then(|| self.src[start..self.i].to_string())
    }
    fn value(&mut self) -> Option<Value> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        self.ws();
        let v = match *self.s.get(self.i)? {
            b'"' | b'\'' => Value::String(self.string()?),
            b'[' | b'(' => {
                let close = if self.s[self.i] == b'[' { b']' } else { b')' };
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    if self.eat(close) {
                        break;
                    }
                    items.push(self.value()?);
                    self.ws();
                    if !self.eat(b',') {
                        self.ws();
                        if !self.eat(close) {
                            return None;
                        }
                        break;
                    }
                }
                Value::Array(items)
            }
            b'{' => {
                self.i += 1;
                let mut m = Map::new();
                loop {
                    self.ws();
                    if self.eat(b'}') {
                        break;
                    }
                    let k = match self.value()? {
                        Value::String(k) => k,
                        _ => return None,
                    };
                    self.ws();
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value()?;
                    m.insert(k, v);
                    self.ws();
                    if !self.eat(b',') {
                        self.ws();
                        if !self.eat(b'}') {
                            return None;
                        }
                        break;
                    }
                }
                Value::Object(m)
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len() && !matches!(self.s[self.i], b',' | b')' | b']' | b'}' | b' ' | b'\t' | b'\n') {
                    self.i += 1;
                }
                let word = &self.src[start..self.i];
                match word {
                    "True" | "true" => Value::Bool(true),
                    "False" | "false" => Value::Bool(false),
                    "None" | "null" => Value::Null,
                    w => {
                        let n: Number = serde_json::from_str(w).ok()?;
                        Value::Number(n)
                    }
                }
            }
        };
        self.depth -= 1;
        Some(v)
    }
    fn string(&mut self) -> Option<String> {
        let q = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        let start = self.i;
        let mut seg = start;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => {
                    out.push_str(&self.src[seg..self.i]);
                    let esc = *self.s.get(self.i + 1)?;
                    out.push(match esc {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'\\' => '\\',
                        b'\'' => '\'',
                        b'"' => '"',
                        _ => return None,
                    });
                    self.i += 2;
                    seg = self.i;
                }
                c if c == q => {
                    out.push_str(&self.src[seg..self.i]);
                    self.i += 1;
                    return Some(out);
                }
                _ => self.i += 1,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn call_syntax_keeps_literal_types() {
        let t = "I'll do it.\n\ncalculate_tip(bill_amount=\"100\", tip_percentage=15)\n\nDone.";
        let calls = call_lines(t, 0..t.len(), &[]);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "calculate_tip");
        assert_eq!(Value::Object(calls[0].arguments.clone()), json!({"bill_amount": "100", "tip_percentage": 15}));
        assert_eq!(&t[calls[0].range.clone()], "calculate_tip(bill_amount=\"100\", tip_percentage=15)");
    }

    #[test]
    fn literals_and_refusals() {
        let (m, kw) = parse_arguments("a=[1, 'x'], b={'k': None}, c=True, d=-2.5, e=(1,2)").unwrap();
        assert!(kw);
        assert_eq!(Value::Object(m), json!({"a": [1, "x"], "b": {"k": null}, "c": true, "d": -2.5, "e": [1, 2]}));
        assert!(parse_arguments("1, 2").is_none(), "positional arguments are not a tool call");
        assert!(parse_arguments("a=").is_none());
        assert!(parse_arguments("a='unterminated").is_none());
        let t = "print(x)\nfoo()\nsearch(q='rust')";
        let calls = call_lines(t, 0..t.len(), &["foo".to_string()]);
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["foo", "search"]);
    }

    #[test]
    fn json_calls() {
        assert_eq!(json_call(&json!({"name": "f", "arguments": {"a": 1}})).unwrap().0, "f");
        assert_eq!(json_call(&json!({"function": {"name": "g", "arguments": "{\"a\": 1}"}})).unwrap().1["a"], json!(1));
        assert_eq!(json_call(&json!({"tool": "h", "tool_input": {}})).unwrap().0, "h");
        assert!(json_call(&json!({"name": "cfg", "arguments": {}, "version": 2})).is_none());
        assert!(json_call(&json!({"name": "x"})).is_none());
        assert!(json_call(&json!([1])).is_none());
    }
}
