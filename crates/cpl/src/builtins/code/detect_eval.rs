//! `contains_eval`: dynamic code execution (spec §4.9).

use std::sync::LazyLock;

use regex::Regex;

use super::lexer::{Lang, Lexed};
use warrant_text::pattern::compile as re;

/// A call site of a dynamic-execution construct.
pub(crate) struct Site {
    /// Byte offset of the construct's name.
    pub name_at: usize,
    /// Byte offset of its `(` (or of the first argument for paren-less forms).
    pub args_at: usize,
    /// How diagnostics name it, e.g. `eval(`.
    pub construct: String,
}

static PY: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^\w.])((?:builtins\.|__builtins__\.)?(eval|exec|compile))\s*\("));
static JS_EVAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^\w.$])((?:window\.|globalThis\.|self\.)?eval)\s*\("));
static JS_FUNCTION: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^\w.$])((?:new\s+)?Function)\s*\("));
static JS_TIMER: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|[^\w.$])((?:window\.|globalThis\.)?(setTimeout|setInterval))\s*\("));
static RUBY: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^\w])(eval|instance_eval|class_eval|module_eval)\b"));
static PHP: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[^\w>$:])(eval|create_function|assert)\s*\("));
static SHELL: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)(?:^|[;&|(`]|\bthen\b|\bdo\b|\belse\b|\$\()\s*(eval)(?:\s|$)"));

/// Every dynamic-execution call site in source order (used by the injection check too).
/// `string_arg_only` constructs (JS timers, Ruby `*_eval`, PHP `assert`) count only with a
/// string argument.
pub(crate) fn sites(lexed: &Lexed, lang: Lang) -> Vec<Site> {
    let code = lexed.code.as_str();
    let mut out = Vec::new();
    let starts_with_string = |at: usize| -> bool {
        let rest = &code[at..];
        let skip = rest.len() - rest.trim_start_matches([' ', '\t', '(']).len();
        lexed.string_at(at + skip).is_some()
    };
    if lang.uses(Lang::Python) {
        for c in PY.captures_iter(code) {
            let (Some(name), Some(all)) = (c.get(1), c.get(0)) else { continue };
            if code[..name.start()].trim_end().ends_with("def") {
                continue;
            }
            out.push(Site { name_at: name.start(), args_at: all.end() - 1, construct: format!("{}(", name.as_str()) });
        }
    }
    if lang.uses(Lang::Js) {
        for r in [&*JS_EVAL, &*JS_FUNCTION] {
            for c in r.captures_iter(code) {
                let (Some(name), Some(all)) = (c.get(1), c.get(0)) else { continue };
                if code[..name.start()].trim_end().ends_with("function") {
                    continue;
                }
                let construct = format!("{}(", warrant_text::normalize::collapse_whitespace(name.as_str()));
                out.push(Site { name_at: name.start(), args_at: all.end() - 1, construct });
            }
        }
        for c in JS_TIMER.captures_iter(code) {
            let (Some(name), Some(all)) = (c.get(1), c.get(0)) else { continue };
            if starts_with_string(all.end()) {
                out.push(Site {
                    name_at: name.start(),
                    args_at: all.end() - 1,
                    construct: format!("{}( with a string", name.as_str()),
                });
            }
        }
    }
    if lang.uses(Lang::Ruby) {
        for c in RUBY.captures_iter(code) {
            let Some(name) = c.get(1) else { continue };
            if code[..name.start()].trim_end().ends_with("def") {
                continue;
            }
            if starts_with_string(name.end()) {
                out.push(Site { name_at: name.start(), args_at: name.end(), construct: name.as_str().to_string() });
            }
        }
    }
    if lang.uses(Lang::Php) {
        for c in PHP.captures_iter(code) {
            let (Some(name), Some(all)) = (c.get(1), c.get(0)) else { continue };
            if name.as_str() == "assert" && !starts_with_string(all.end()) {
                continue;
            }
            if code[..name.start()].trim_end().ends_with("function") {
                continue;
            }
            out.push(Site { name_at: name.start(), args_at: all.end() - 1, construct: format!("{}(", name.as_str()) });
        }
    }
    if lang.uses(Lang::Shell) {
        for c in SHELL.captures_iter(code) {
            let Some(name) = c.get(1) else { continue };
            out.push(Site { name_at: name.start(), args_at: name.end(), construct: "eval".to_string() });
        }
    }
    out.sort_by_key(|s| s.name_at);
    out.dedup_by_key(|s| s.name_at);
    out
}

/// The first construct, as a diagnostic.
pub(crate) fn find(lexed: &Lexed, lang: Lang) -> Option<String> {
    sites(lexed, lang).first().map(|s| format!("{} at line {}", s.construct, lexed.line_of(s.name_at)))
}
