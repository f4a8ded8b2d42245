//! `contains_secrets`: hard-coded credentials (spec §4.11). Values are never echoed.

use std::sync::LazyLock;

use regex::Regex;

use super::lexer::{Lexed, StrLit};
use warrant_text::pattern::compile as re;

static SECRET_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)api[_-]?key|apikey|secret|passw(?:or)?d|pwd|token|access[_-]?key|private[_-]?key|client[_-]?secret")
});
static ENTROPY_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)key|secret|token|cred"));
/// `name =`, `name:`, `name =>`, `"name":`, `name="` (keyword args, shell), `'name' =>`.
static BINDING: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:^|[^\w$])["']?(\$?[A-Za-z_][\w-]*)["']?\s*(?::=|=>|=|:)\s*(?:[rRbBuU]{1,2})?$"#));
static KNOWN_FORMATS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    vec![
        re(r"sk-[A-Za-z0-9]{16,}"),
        re(r"gh[posu]_[A-Za-z0-9]{30,}"),
        re(r"AKIA[0-9A-Z]{16}"),
        re(r"xox[abpr]-[A-Za-z0-9-]{8,}"),
        re(r"AIza[0-9A-Za-z_-]{35}"),
        re(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    ]
});

/// Placeholder values that are not secrets.
fn is_placeholder(v: &str) -> bool {
    let t = v.trim();
    t.is_empty()
        || t.chars().all(|c| matches!(c, 'x' | 'X' | '*' | '.'))
        || (t.starts_with('<') && t.ends_with('>'))
        || (t.starts_with("${") && t.ends_with('}'))
        || (t.starts_with("{{") && t.ends_with("}}"))
        || (t.starts_with("%(") && t.ends_with(")s"))
        || t.starts_with("your_")
        || t.starts_with("your-")
        || t.starts_with("YOUR_")
        || t == "REPLACE_ME"
        || t == "TODO"
}

/// Shannon entropy in bits per char.
fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

/// The name a string literal is bound to (`NAME = "…"`, `"NAME": "…"`, `NAME="…"`), if any.
fn bound_name<'a>(lexed: &'a Lexed, lit: &StrLit) -> Option<&'a str> {
    let line_start = lexed.no_comments[..lit.start].rfind('\n').map_or(0, |p| p + 1);
    let before = &lexed.no_comments[line_start..lit.start];
    BINDING.captures(before).and_then(|c| c.get(1)).map(|m| m.as_str().trim_start_matches('$'))
}

pub(crate) fn find(src: &str, lexed: &Lexed, entropy_rule: bool) -> Option<String> {
    for lit in &lexed.strings {
        let value = lexed.contents(src, lit);
        let name = bound_name(lexed, lit);
        let line = lexed.line_of(lit.start);
        if let Some(name) = name
            && SECRET_NAME.is_match(name)
            && !is_placeholder(value)
            && !lit.interpolates_only(value)
        {
            return Some(format!("hard-coded credential in '{name}' at line {line}"));
        }
        if KNOWN_FORMATS.iter().any(|r| r.is_match(value)) {
            let label = name.unwrap_or("string literal");
            return Some(format!("hard-coded credential in '{label}' at line {line}"));
        }
        if entropy_rule
            && let Some(name) = name
            && ENTROPY_NAME.is_match(name)
            && value.chars().count() >= 24
            && entropy(value) >= 4.0
        {
            return Some(format!("hard-coded credential in '{name}' at line {line}"));
        }
    }
    None
}

impl StrLit {
    /// True when an interpolating literal is nothing but one interpolation (`f"{x}"`,
    /// `"$TOKEN"`, `` `${t}` ``): its value comes from code, not from the literal.
    fn interpolates_only(&self, value: &str) -> bool {
        if !self.interpolates {
            return false;
        }
        let v = value.trim();
        (v.starts_with('{') && v.ends_with('}') && v.matches('{').count() == 1)
            || (v.starts_with("${") && v.ends_with('}') && v.matches('{').count() == 1)
            || (v.starts_with("#{") && v.ends_with('}'))
            || (v.starts_with('$') && v[1..].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    }
}
