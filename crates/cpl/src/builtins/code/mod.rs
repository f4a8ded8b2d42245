//! The four code-block predicates (spec §4.9–4.12) and `is_safe` (§4.17).
//!
//! Each code block is lexed once per evaluation ([`Analysis`]); each detector runs at most
//! once per block and keeps its first finding as the diagnostic.

mod detect_eval;
mod imports;
mod injection;
pub mod lexer;
mod secrets;

use std::cell::OnceCell;

pub use imports::DenyList;
use lexer::{Lang, Lexed};

/// Detector settings.
#[derive(Debug, Clone)]
pub struct CodeConfig {
    /// Deny-listed imports and APIs for `uses_safe_libraries`.
    pub deny_list: DenyList,
    /// Whether the high-entropy literal rule of `contains_secrets` is on (default on).
    pub entropy_rule: bool,
}

impl Default for CodeConfig {
    fn default() -> Self {
        Self { deny_list: DenyList::default(), entropy_rule: true }
    }
}

/// Lazily computed findings for one code block.
#[derive(Debug)]
pub struct Analysis {
    lang: Lang,
    lexed: Lexed,
    eval: OnceCell<Option<String>>,
    injection: OnceCell<Option<String>>,
    secret: OnceCell<Option<String>>,
    import: OnceCell<Option<String>>,
}

impl Analysis {
    /// Lexes `code` written in `language`.
    pub fn new(code: &str, language: &str) -> Self {
        let lang = Lang::from_tag(language);
        Self {
            lang,
            lexed: lexer::lex(code, lang),
            eval: OnceCell::new(),
            injection: OnceCell::new(),
            secret: OnceCell::new(),
            import: OnceCell::new(),
        }
    }

    /// First dynamic-execution construct, as `<construct> at line <n>`.
    pub fn eval_finding(&self) -> Option<&str> {
        self.eval.get_or_init(|| detect_eval::find(&self.lexed, self.lang)).as_deref()
    }

    /// First untrusted-input flow into a sink, as `untrusted <source> reaches <sink> at line <n>`.
    pub fn injection_finding(&self) -> Option<&str> {
        self.injection.get_or_init(|| injection::find(&self.lexed, self.lang)).as_deref()
    }

    /// First hard-coded credential, as `hard-coded credential in '<name>' at line <n>`.
    pub fn secret_finding(&self, src: &str, cfg: &CodeConfig) -> Option<&str> {
        self.secret.get_or_init(|| secrets::find(src, &self.lexed, cfg.entropy_rule)).as_deref()
    }

    /// First deny-listed import or API, as `deny-listed import '<module>' at line <n>`.
    pub fn import_finding(&self, cfg: &CodeConfig) -> Option<&str> {
        self.import.get_or_init(|| imports::find(&self.lexed, self.lang, &cfg.deny_list)).as_deref()
    }
}

/// Byte offset just past the `)` matching the `(` at `open` in `s`, or `s.len()`.
pub(crate) fn close_paren(s: &str, open: usize) -> usize {
    let b = s.as_bytes();
    let mut depth = 0usize;
    for (k, c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// The text of the first top-level argument in `args` (the text between the parentheses).
pub(crate) fn first_arg(args: &str) -> &str {
    let b = args.as_bytes();
    let mut depth = 0usize;
    for (k, c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => return &args[..k],
            _ => {}
        }
    }
    args
}

#[cfg(test)]
mod tests;
