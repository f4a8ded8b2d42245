//! `uses_safe_libraries`: deny-listed imports and APIs (spec §4.12).

use std::sync::LazyLock;

use regex::Regex;

use super::lexer::{Lang, Lexed};
use warrant_text::pattern::compile as re;

/// What `uses_safe_libraries` refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenyList {
    /// Python modules whose import is refused.
    pub python_modules: Vec<String>,
    /// `from <module> import <name>` pairs refused in Python.
    pub python_from: Vec<(String, String)>,
    /// JavaScript API calls refused (matched as written, e.g. `crypto.createCipher(`).
    pub js_apis: Vec<String>,
    /// JavaScript modules whose `require` / `import` is refused.
    pub js_modules: Vec<String>,
}

impl Default for DenyList {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect();
        Self {
            python_modules: s(&["pickle", "cPickle", "_pickle", "shelve", "marshal", "md5", "sha"]),
            python_from: vec![("hashlib".into(), "md5".into()), ("hashlib".into(), "sha1".into())],
            js_apis: s(&["crypto.createCipher(", "crypto.createDecipher("]),
            js_modules: s(&["md5"]),
        }
    }
}

static PY_IMPORT: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*import[ \t]+([^\n#]+)"));
static PY_FROM: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+\(?([^\n#)]+)"));
static JS_REQUIRE: LazyLock<Regex> = LazyLock::new(|| re(r#"\brequire\s*\(\s*["']([^"']+)["']\s*\)"#));
static JS_IMPORT: LazyLock<Regex> =
    LazyLock::new(|| re(r#"\bimport\b[^;\n]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']"#));

pub(crate) fn find(lexed: &Lexed, lang: Lang, deny: &DenyList) -> Option<String> {
    let mut hits: Vec<(usize, String)> = Vec::new();
    let code = lexed.code.as_str();
    if lang.uses(Lang::Python) {
        for c in PY_IMPORT.captures_iter(code) {
            let Some(list) = c.get(1) else { continue };
            for part in list.as_str().split(',') {
                let module = part.split_whitespace().next().unwrap_or("");
                let top = module.split('.').next().unwrap_or("");
                if deny.python_modules.iter().any(|m| m == module || m == top) {
                    hits.push((list.start(), module.to_string()));
                }
            }
        }
        for c in PY_FROM.captures_iter(code) {
            let (Some(module), Some(names)) = (c.get(1), c.get(2)) else { continue };
            let m = module.as_str();
            let top = m.split('.').next().unwrap_or("");
            if deny.python_modules.iter().any(|d| d == m || d == top) {
                hits.push((module.start(), m.to_string()));
                continue;
            }
            for name in names.as_str().split(',') {
                let name = name.split_whitespace().next().unwrap_or("");
                if deny.python_from.iter().any(|(dm, dn)| dm == m && dn == name) {
                    hits.push((module.start(), format!("{m}.{name}")));
                }
            }
        }
    }
    if lang.uses(Lang::Js) {
        // Module names live in string literals: read them from the comment-free view.
        let text = lexed.no_comments.as_str();
        for r in [&*JS_REQUIRE, &*JS_IMPORT] {
            for c in r.captures_iter(text) {
                let Some(m) = c.get(1).or_else(|| c.get(2)) else { continue };
                // The keyword itself must be code, not text inside a string literal.
                let at = c.get(0).map_or(0, |a| a.start());
                if code.as_bytes().get(at) != text.as_bytes().get(at) || code.as_bytes().get(at) == Some(&b' ') {
                    continue;
                }
                if deny.js_modules.iter().any(|d| d == m.as_str()) {
                    hits.push((m.start(), m.as_str().to_string()));
                }
            }
        }
        for api in &deny.js_apis {
            if let Some(p) = code.find(api.as_str()) {
                hits.push((p, api.trim_end_matches('(').to_string()));
            }
        }
    }
    hits.sort_by_key(|h| h.0);
    hits.first().map(|(at, m)| format!("deny-listed import '{m}' at line {}", lexed.line_of(*at)))
}
