//! `vulnerable_to_injection`: untrusted input reaching a shell or code-execution sink
//! (spec §4.10, D8).
//!
//! Taint is tracked through assignments in source order until a fixpoint: a variable is
//! tainted when its right-hand side mentions a source or a tainted variable, which covers
//! f-strings, `.format`, `%`, `+` and template literals because interpolations stay in the
//! code view. Functions and control flow are not modelled.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::lexer::{Lang, Lexed};
use super::{close_paren, detect_eval, first_arg};
use warrant_text::pattern::compile as re;

/// Untrusted-input sources: (language, pattern, label).
static SOURCES: LazyLock<Vec<(Lang, Regex, &'static str)>> = LazyLock::new(|| {
    vec![
        (Lang::Python, re(r"(?:^|[^\w.])input\s*\("), "input()"),
        (Lang::Python, re(r"(?:^|[^\w.])raw_input\s*\("), "raw_input()"),
        (Lang::Python, re(r"\bsys\.argv\b"), "sys.argv"),
        (Lang::Python, re(r"\bsys\.stdin\b"), "sys.stdin"),
        (Lang::Python, re(r"\brequest\.(?:args|form|values|json|data|GET|POST|query_params)\b"), "request data"),
        (Lang::Js, re(r"\bprocess\.argv\b"), "process.argv"),
        (Lang::Js, re(r"\breq(?:uest)?\.(?:query|body|params)\b"), "request data"),
        (Lang::Js, re(r"(?:^|[^\w.$])prompt\s*\("), "prompt()"),
        (Lang::Shell, re(r#"\$(?:[1-9@*]|\{[1-9@*]\})"#), "positional parameter"),
        (Lang::Ruby, re(r"(?:^|[^\w.])gets\b|\bSTDIN\b|\$stdin\b"), "gets"),
        (Lang::Ruby, re(r"\bARGV\b"), "ARGV"),
        (Lang::Ruby, re(r"\bparams\s*\["), "params"),
        (Lang::Php, re(r"\$_(?:GET|POST|REQUEST|COOKIE|SERVER|FILES)\b"), "request data"),
        (Lang::Php, re(r"\$argv\b"), "$argv"),
    ]
});

/// Shell sinks: (language, pattern, label, needs `shell=True`).
static SHELL_SINKS: LazyLock<Vec<(Lang, Regex, &'static str, bool)>> = LazyLock::new(|| {
    vec![
        (Lang::Python, re(r"\bos\.(system|popen)\s*\("), "os.system(", false),
        (Lang::Python, re(r"\bcommands\.(getoutput|getstatusoutput)\s*\("), "commands.getoutput(", false),
        (Lang::Python, re(r"\bsubprocess\.(getoutput|getstatusoutput)\s*\("), "subprocess.getoutput(", false),
        (Lang::Python, re(r"\bsubprocess\.(call|run|Popen|check_output|check_call)\s*\("), "subprocess with shell=True", true),
        (Lang::Js, re(r"(?:\bchild_process\.|(?:^|[^\w.$]))(exec|execSync)\s*\("), "child_process.exec(", false),
        (Lang::Ruby, re(r"(?:^|[^\w.])(system|exec|spawn)\s*\(?"), "system(", false),
        (Lang::Ruby, re(r"\b(IO\.popen|Open3\.\w+)\s*\("), "IO.popen(", false),
        (Lang::Php, re(r"(?:^|[^\w>$:])(system|exec|shell_exec|passthru|popen|proc_open)\s*\("), "shell_exec(", false),
    ]
});

/// Assignment targets on the left of a top-level `=`.
fn split_assignment(stmt: &str) -> Option<(&str, &str)> {
    let b = stmt.as_bytes();
    let mut depth = 0usize;
    for (k, c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'=' if depth == 0 => {
                let prev = if k > 0 { b[k - 1] } else { b' ' };
                let next = b.get(k + 1).copied().unwrap_or(b' ');
                if next == b'=' || next == b'>' || matches!(prev, b'=' | b'!' | b'<' | b'>') {
                    return None;
                }
                return Some((&stmt[..k], &stmt[k + 1..]));
            }
            _ => {}
        }
    }
    None
}

static IDENT: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z_$][\w$]*"));

/// Variable names assigned by a left-hand side (`a`, `a, b`, `let {x, y}`, `$x`, `export X`).
fn targets(lhs: &str, lang: Lang) -> Vec<String> {
    let lhs = lhs.trim().trim_end_matches(['+', '-', '*', '/', '.', '%', '|', '&', ':']).trim();
    let keywords = ["let", "const", "var", "export", "local", "declare", "readonly", "global", "my", "our"];
    let mut out = Vec::new();
    for m in IDENT.find_iter(lhs) {
        let w = m.as_str();
        if keywords.contains(&w) {
            continue;
        }
        // `obj.attr = …` and `a[i] = …` taint `obj` / `a` only as a whole name.
        let before = &lhs[..m.start()];
        if before.ends_with('.') || before.ends_with("->") {
            continue;
        }
        out.push(normalise_var(w, lang));
    }
    out
}

fn normalise_var(w: &str, lang: Lang) -> String {
    if lang == Lang::Shell { w.trim_start_matches('$').to_string() } else { w.to_string() }
}

/// Identifiers an expression reads (`$x` and `${x}` count as `x` in shell).
fn reads(expr: &str, lang: Lang) -> impl Iterator<Item = String> + '_ {
    IDENT.find_iter(expr).map(move |m| normalise_var(m.as_str(), lang))
}

struct Taint {
    lang: Lang,
    /// Tainted variable → the source label it came from.
    vars: BTreeMap<String, &'static str>,
}

impl Taint {
    /// The source label if `expr` mentions a source or a tainted variable.
    fn of(&self, expr: &str) -> Option<&'static str> {
        for (lang, r, label) in SOURCES.iter() {
            if self.lang.uses(*lang) && r.is_match(expr) {
                return Some(label);
            }
        }
        reads(expr, self.lang).find_map(|v| self.vars.get(&v).copied())
    }
}

/// Splits the code view into statements: lines, and `;`-separated parts of lines.
fn statements(code: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in code.split_inclusive('\n') {
        let mut off = start;
        for part in line.split(';') {
            out.push((off, part.trim_end_matches('\n')));
            off += part.len() + 1;
        }
        start += line.len();
    }
    out
}

static FOR_IN: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*for\s+([\w\s,$()]+?)\s+(?:in|of)\s+(.+?):?\s*$"));
static READLINE_CB: LazyLock<Regex> =
    LazyLock::new(|| re(r"\.question\s*\([^,]*,\s*(?:async\s*)?(?:function\s*)?\(?\s*([A-Za-z_$][\w$]*)"));
static READ_CMD: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|[;&|]|\bwhile\b|\bdo\b|\bthen\b)\s*read\s+(.*)$"));

fn propagate(lexed: &Lexed, lang: Lang) -> Taint {
    let code = lexed.code.as_str();
    let mut taint = Taint { lang, vars: BTreeMap::new() };
    // (targets, rhs) pairs; a `None` rhs marks variables that are sources themselves.
    let mut flows: Vec<(Vec<String>, Option<String>)> = Vec::new();
    for (_, stmt) in statements(code) {
        if let Some(c) = FOR_IN.captures(stmt) {
            let (Some(t), Some(e)) = (c.get(1), c.get(2)) else { continue };
            flows.push((targets(t.as_str(), lang), Some(e.as_str().to_string())));
            continue;
        }
        if lang.uses(Lang::Shell)
            && let Some(c) = READ_CMD.captures(stmt)
            && let Some(rest) = c.get(1)
        {
            let mut vars = Vec::new();
            let mut toks = rest.as_str().split_whitespace().peekable();
            while let Some(t) = toks.next() {
                if let Some(opt) = t.strip_prefix('-') {
                    if opt.ends_with(['p', 't', 'n', 'd', 'u', 'a', 'N']) {
                        toks.next();
                    }
                    continue;
                }
                if t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !t.is_empty() {
                    vars.push(t.to_string());
                }
            }
            flows.push((vars, None));
            continue;
        }
        if lang.uses(Lang::Js)
            && let Some(c) = READLINE_CB.captures(stmt)
            && let Some(v) = c.get(1)
        {
            flows.push((vec![v.as_str().to_string()], None));
        }
        if let Some((lhs, rhs)) = split_assignment(stmt) {
            let t = targets(lhs, lang);
            if !t.is_empty() {
                flows.push((t, Some(rhs.to_string())));
            }
        }
    }
    // Fixpoint: at most one new variable per pass, so |flows| + 1 passes suffice.
    for _ in 0..=flows.len() {
        let mut changed = false;
        for (vars, rhs) in &flows {
            let label = match rhs {
                None => Some(if lang == Lang::Js { "readline answer" } else { "read input" }),
                Some(e) => taint.of(e),
            };
            if let Some(label) = label {
                for v in vars {
                    if !taint.vars.contains_key(v) {
                        taint.vars.insert(v.clone(), label);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    taint
}

/// The first tainted sink, as a diagnostic.
pub(crate) fn find(lexed: &Lexed, lang: Lang) -> Option<String> {
    let code = lexed.code.as_str();
    let taint = propagate(lexed, lang);
    // (byte offset, source label, sink label)
    let mut hits: Vec<(usize, &'static str, String)> = Vec::new();

    for (l, r, label, needs_shell) in SHELL_SINKS.iter() {
        if !lang.uses(*l) {
            continue;
        }
        for c in r.captures_iter(code) {
            let (Some(m), Some(name)) = (c.get(0), c.get(1)) else { continue };
            let open = code[..m.end()].rfind('(').filter(|p| *p >= name.start());
            let args = match open {
                Some(o) => &code[o + 1..close_paren(code, o).saturating_sub(1).max(o + 1)],
                None => code[m.end()..].lines().next().unwrap_or(""),
            };
            if *needs_shell && !args.split(',').any(|a| a.replace(' ', "") == "shell=True") {
                continue;
            }
            let cmd = first_arg(args).trim();
            if cmd.starts_with('[') && !*needs_shell {
                continue;
            }
            if cmd.starts_with('[') {
                // An argument list is not parsed by a shell.
                continue;
            }
            if let Some(src) = taint.of(cmd) {
                hits.push((name.start(), src, (*label).to_string()));
            }
        }
    }

    // Code-execution sinks receiving tainted data.
    for site in detect_eval::sites(lexed, lang) {
        let args = if code.as_bytes().get(site.args_at) == Some(&b'(') {
            let end = close_paren(code, site.args_at).saturating_sub(1).max(site.args_at + 1);
            &code[site.args_at + 1..end]
        } else {
            code[site.args_at..].lines().next().unwrap_or("")
        };
        if let Some(src) = taint.of(args) {
            hits.push((site.name_at, src, site.construct.clone()));
        }
    }

    // Shell: command substitution or a command word that is a tainted expansion.
    if lang.uses(Lang::Shell) {
        for (off, stmt) in statements(code) {
            let trimmed = stmt.trim_start();
            let lead = off + (stmt.len() - trimmed.len());
            let cmd_word = trimmed.trim_start_matches("then ").trim_start_matches("do ").split_whitespace().next().unwrap_or("");
            if cmd_word.starts_with('$')
                && !cmd_word.starts_with("$(")
                && let Some(src) = taint.of(cmd_word)
            {
                hits.push((lead, src, "a command position".to_string()));
            }
            for sub in ["$(", "`"] {
                let mut from = 0;
                while let Some(p) = stmt[from..].find(sub) {
                    let at = from + p + sub.len();
                    let inner_word = stmt[at..].split_whitespace().next().unwrap_or("").trim_start_matches(['"', '\'']);
                    if inner_word.starts_with('$')
                        && let Some(src) = taint.of(inner_word)
                    {
                        hits.push((off + at, src, "command substitution".to_string()));
                    }
                    from = at;
                }
            }
            if let Some(p) = find_word(trimmed, "-c") {
                let before = &trimmed[..p];
                if (before.ends_with("sh ") || before.ends_with("bash ") || before.ends_with("zsh "))
                    && let Some(src) = taint.of(&trimmed[p..])
                {
                    hits.push((lead + p, src, "sh -c".to_string()));
                }
            }
        }
    }

    hits.sort_by_key(|h| h.0);
    hits.first().map(|(at, src, sink)| format!("untrusted {src} reaches {sink} at line {}", lexed.line_of(*at)))
}

fn find_word(s: &str, w: &str) -> Option<usize> {
    s.match_indices(w).map(|(i, _)| i).find(|&i| {
        let before = i == 0 || s.as_bytes()[i - 1] == b' ';
        let after = s.as_bytes().get(i + w.len()).is_none_or(|c| *c == b' ');
        before && after
    })
}
