//! A small, language-aware lexer for the code-block predicates.
//!
//! It does not parse; it separates code from comments and string literals so the detectors
//! can tell `eval(x)` from `# eval(x)` and `"eval(x)"`. Two views of the code are built, both
//! with the same byte offsets as the source (blanked bytes become spaces, newlines stay):
//!
//! - `code`: comments and literal string contents blanked. Interpolations inside strings
//!   (`f"{x}"`, `` `${x}` ``, `"#{x}"`, `"$x"`) stay, because they are code.
//! - `no_comments`: only comments blanked; string contents stay (for the secret and timer
//!   rules, which look at literals).

/// Languages with their own rules; anything else gets the union.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Python.
    Python,
    /// JavaScript and TypeScript.
    Js,
    /// Ruby.
    Ruby,
    /// PHP.
    Php,
    /// POSIX shells.
    Shell,
    /// Unknown: every rule applies.
    Unknown,
}

impl Lang {
    /// Maps a code block's language tag (case-insensitive).
    pub fn from_tag(tag: &str) -> Self {
        match tag.trim().to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" => Self::Python,
            "javascript" | "js" | "node" | "typescript" | "ts" | "jsx" | "tsx" | "mjs" => Self::Js,
            "ruby" | "rb" => Self::Ruby,
            "php" => Self::Php,
            "sh" | "bash" | "shell" | "zsh" | "console" => Self::Shell,
            _ => Self::Unknown,
        }
    }

    /// True when rules for `other` apply to code in this language.
    pub fn uses(self, other: Lang) -> bool {
        self == other || self == Lang::Unknown
    }
}

/// A string literal in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrLit {
    /// Byte offset of the literal's first byte (its prefix or opening quote).
    pub start: usize,
    /// Byte offset just past the closing quote.
    pub end: usize,
    /// Byte range of the contents (between the quotes).
    pub content: (usize, usize),
    /// True when the literal interpolates code (f-strings, template literals, shell `"…"`).
    pub interpolates: bool,
}

/// The lexed form of one code block.
#[derive(Debug, Clone)]
pub struct Lexed {
    /// Comments and literal string contents blanked.
    pub code: String,
    /// Comments blanked.
    pub no_comments: String,
    /// String literals in source order.
    pub strings: Vec<StrLit>,
    line_starts: Vec<usize>,
}

impl Lexed {
    /// 1-based line number of a byte offset.
    pub fn line_of(&self, byte: usize) -> usize {
        match self.line_starts.binary_search(&byte) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// The string literal starting at `byte` (after optional whitespace), if any.
    pub fn string_at(&self, byte: usize) -> Option<&StrLit> {
        let i = self.strings.partition_point(|s| s.start < byte);
        self.strings.get(i).filter(|s| s.start == byte)
    }

    /// The contents of a literal, from the original source.
    pub fn contents<'s>(&self, src: &'s str, lit: &StrLit) -> &'s str {
        src.get(lit.content.0..lit.content.1).unwrap_or("")
    }
}

struct Scanner<'a> {
    src: &'a [u8],
    code: Vec<u8>,
    no_comments: Vec<u8>,
    strings: Vec<StrLit>,
    lang: Lang,
}

/// Lexes `src` as `lang`.
pub fn lex(src: &str, lang: Lang) -> Lexed {
    let bytes = src.as_bytes();
    let mut s = Scanner { src: bytes, code: bytes.to_vec(), no_comments: bytes.to_vec(), strings: Vec::new(), lang };
    s.run();
    let mut line_starts = vec![0];
    line_starts.extend(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1));
    Lexed {
        code: String::from_utf8(s.code).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        no_comments: String::from_utf8(s.no_comments).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        strings: s.strings,
        line_starts,
    }
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

impl Scanner<'_> {
    fn blank_code(&mut self, from: usize, to: usize) {
        for b in &mut self.code[from..to.min(self.src.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }

    fn blank_comment(&mut self, from: usize, to: usize) {
        let to = to.min(self.src.len());
        self.blank_code(from, to);
        for b in &mut self.no_comments[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }

    fn starts(&self, i: usize, pat: &str) -> bool {
        self.src[i..].starts_with(pat.as_bytes())
    }

    fn line_end(&self, i: usize) -> usize {
        self.src[i..].iter().position(|b| *b == b'\n').map_or(self.src.len(), |p| i + p)
    }

    fn at_line_start(&self, i: usize) -> bool {
        self.src[..i].iter().rev().take_while(|b| **b != b'\n').all(|b| *b == b' ' || *b == b'\t')
    }

    fn run(&mut self) {
        let lang = self.lang;
        let n = self.src.len();
        let mut i = 0;
        while i < n {
            let b = self.src[i];
            // Block comments.
            if matches!(lang, Lang::Js | Lang::Php | Lang::Unknown) && self.starts(i, "/*") {
                let end = find(self.src, i + 2, b"*/").map_or(n, |p| p + 2);
                self.blank_comment(i, end);
                i = end;
                continue;
            }
            if lang == Lang::Ruby && self.starts(i, "=begin") && self.at_line_start(i) {
                let end = find(self.src, i, b"\n=end").map_or(n, |p| self.line_end(p + 1));
                self.blank_comment(i, end);
                i = end;
                continue;
            }
            // Line comments.
            let slash_comment = matches!(lang, Lang::Js | Lang::Php | Lang::Unknown)
                && self.starts(i, "//")
                && !(lang == Lang::Unknown && i > 0 && self.src[i - 1] == b':');
            let hash_comment = b == b'#'
                && match lang {
                    Lang::Python | Lang::Ruby | Lang::Php => true,
                    // `$#` and `${#x}` are not comments; a comment starts a word.
                    Lang::Shell | Lang::Unknown => i == 0 || matches!(self.src[i - 1], b' ' | b'\t' | b'\n' | b';'),
                    Lang::Js => i == 0 && self.starts(i, "#!"),
                };
            if slash_comment || hash_comment {
                let end = self.line_end(i);
                self.blank_comment(i, end);
                i = end;
                continue;
            }
            // Strings.
            if let Some(next) = self.string(i) {
                i = next;
                continue;
            }
            i += 1;
        }
    }

    /// Lexes a string literal starting at `i` (with its prefix); returns the offset after it.
    fn string(&mut self, i: usize) -> Option<usize> {
        let lang = self.lang;
        let src = self.src;
        let mut q = i;
        let mut raw = false;
        let mut fmt = false;
        if lang == Lang::Python || lang == Lang::Unknown {
            // Up to two prefix letters directly before the quote, not part of a longer name.
            let mut j = i;
            while j < src.len() && j - i < 2 && matches!(src[j].to_ascii_lowercase(), b'r' | b'b' | b'u' | b'f') {
                j += 1;
            }
            if j > i && j < src.len() && matches!(src[j], b'\'' | b'"') && (i == 0 || !is_ident(src[i - 1])) {
                let prefix = &src[i..j];
                raw = prefix.iter().any(|c| c.eq_ignore_ascii_case(&b'r'));
                fmt = prefix.iter().any(|c| c.eq_ignore_ascii_case(&b'f'));
                q = j;
            }
        }
        let quote = *src.get(q)?;
        let valid_quote = match lang {
            Lang::Python => matches!(quote, b'\'' | b'"'),
            Lang::Js | Lang::Unknown => matches!(quote, b'\'' | b'"' | b'`'),
            Lang::Ruby | Lang::Php => matches!(quote, b'\'' | b'"'),
            Lang::Shell => matches!(quote, b'\'' | b'"' | b'`'),
        };
        if !valid_quote {
            return None;
        }
        if q == i && i > 0 && is_ident(src[i - 1]) && quote == b'\'' && lang != Lang::Shell {
            // An apostrophe inside a word (`don't` in prose-like code) is not a string.
            return None;
        }
        let triple =
            (lang == Lang::Python || lang == Lang::Unknown) && quote != b'`' && src[q..].starts_with(&[quote, quote, quote]);
        let open_len = if triple { 3 } else { 1 };
        let content_start = q + open_len;
        let no_escape_quote = quote == b'\'' && matches!(lang, Lang::Shell | Lang::Php | Lang::Ruby);
        let escapes = !(raw || no_escape_quote);
        let interp = match (lang, quote) {
            (Lang::Python, _) => fmt,
            (Lang::Unknown, b'`') | (Lang::Js, b'`') => true,
            (Lang::Unknown, _) => fmt,
            (Lang::Ruby, b'"') | (Lang::Php, b'"') | (Lang::Shell, b'"') | (Lang::Shell, b'`') => true,
            _ => false,
        };
        let mut j = content_start;
        let mut keep: Vec<(usize, usize)> = Vec::new();
        let end_content;
        loop {
            if j >= src.len() {
                end_content = src.len();
                break;
            }
            let c = src[j];
            if escapes && c == b'\\' {
                j += 2;
                continue;
            }
            if !triple && c == b'\n' && quote != b'`' && lang != Lang::Shell {
                // Unterminated single-line string: stop at the line end.
                end_content = j;
                break;
            }
            if triple {
                if src[j..].starts_with(&[quote, quote, quote]) {
                    end_content = j;
                    break;
                }
            } else if c == quote {
                end_content = j;
                break;
            }
            if interp && let Some((a, b)) = self.interpolation(j, quote) {
                keep.push((a, b));
                j = b;
                continue;
            }
            j += 1;
        }
        let end = (end_content + if end_content < src.len() { open_len } else { 0 }).min(src.len());
        // Blank the literal contents in the code view, except interpolated code.
        let mut from = content_start;
        for (a, b) in &keep {
            self.blank_code(from, *a);
            from = *b;
        }
        self.blank_code(from, end_content);
        if quote == b'`' && lang == Lang::Shell {
            // Backticks are command substitution: code, not a literal.
            return Some(end);
        }
        self.strings.push(StrLit { start: i, end, content: (content_start, end_content), interpolates: interp });
        Some(end)
    }

    /// An interpolation starting at `j` inside a string: returns the byte range to keep as code.
    fn interpolation(&self, j: usize, quote: u8) -> Option<(usize, usize)> {
        let src = self.src;
        let lang = self.lang;
        let braces = |open: usize| -> usize {
            // From the `{` at `open`, find its matching `}` (nesting counted, strings ignored).
            let mut depth = 0usize;
            let mut k = open;
            while k < src.len() {
                match src[k] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return k + 1;
                        }
                    }
                    b'\n' if quote != b'`' && lang != Lang::Python => return k,
                    _ => {}
                }
                k += 1;
            }
            src.len()
        };
        match lang {
            Lang::Python | Lang::Unknown if src[j] == b'{' && quote != b'`' => {
                if src.get(j + 1) == Some(&b'{') {
                    return None;
                }
                Some((j, braces(j)))
            }
            Lang::Js | Lang::Unknown if quote == b'`' && src[j..].starts_with(b"${") => Some((j, braces(j + 1))),
            Lang::Ruby if src[j..].starts_with(b"#{") => Some((j, braces(j + 1))),
            Lang::Php | Lang::Shell if src[j] == b'$' => {
                let k = j + 1;
                match src.get(k) {
                    Some(b'{') => Some((j, braces(k))),
                    Some(b'(') if lang == Lang::Shell => {
                        let mut depth = 0usize;
                        let mut m = k;
                        while m < src.len() {
                            match src[m] {
                                b'(' => depth += 1,
                                b')' => {
                                    depth -= 1;
                                    if depth == 0 {
                                        return Some((j, m + 1));
                                    }
                                }
                                _ => {}
                            }
                            m += 1;
                        }
                        Some((j, src.len()))
                    }
                    Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'@' || *c == b'*' => {
                        let mut m = k + 1;
                        if c.is_ascii_alphabetic() || *c == b'_' {
                            while m < src.len() && (src[m].is_ascii_alphanumeric() || src[m] == b'_') {
                                m += 1;
                            }
                        }
                        Some((j, m))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= hay.len() {
        return None;
    }
    hay[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_comments_and_strings_are_blanked_in_code() {
        let src = "x = eval(a)  # eval(b)\ny = \"eval(c)\"\nz = f\"{eval(d)}\"\n";
        let l = lex(src, Lang::Python);
        assert_eq!(l.code.len(), src.len());
        assert!(l.code.contains("eval(a)"));
        assert!(!l.code.contains("eval(b)"));
        assert!(!l.code.contains("eval(c)"));
        assert!(l.code.contains("eval(d)"), "f-string interpolation is code: {:?}", l.code);
        assert!(l.no_comments.contains("eval(c)"));
        assert!(!l.no_comments.contains("eval(b)"));
        assert_eq!(l.strings.len(), 2);
        assert_eq!(l.line_of(src.find("y =").unwrap()), 2);
    }

    #[test]
    fn triple_quotes_raw_strings_and_escapes() {
        let src = "s = '''a\n# not a comment\n'''\nr = r'\\d' + 'it\\'s'\n";
        let l = lex(src, Lang::Python);
        assert_eq!(l.strings.len(), 3);
        assert_eq!(l.contents(src, &l.strings[0]), "a\n# not a comment\n");
        assert_eq!(l.contents(src, &l.strings[1]), "\\d");
        assert_eq!(l.contents(src, &l.strings[2]), "it\\'s");
    }

    #[test]
    fn js_templates_and_block_comments() {
        let src = "/* eval(x) */ const a = `run ${eval(y)}`; // eval(z)\n";
        let l = lex(src, Lang::Js);
        assert!(!l.code.contains("eval(x)"));
        assert!(l.code.contains("eval(y)"));
        assert!(!l.code.contains("eval(z)"));
        assert!(!l.code.contains("run"));
    }

    #[test]
    fn shell_hash_rules_and_interpolation() {
        let src = "echo $# ${#x} \"$1 and $(date)\" # eval $1\n";
        let l = lex(src, Lang::Shell);
        assert!(l.code.contains("$#"));
        assert!(l.code.contains("${#x}"));
        assert!(l.code.contains("$1"));
        assert!(l.code.contains("$(date)"));
        assert!(!l.code.contains("and"));
        assert!(!l.code.contains("eval"));
    }

    #[test]
    fn unterminated_strings_and_multibyte_text_are_safe() {
        for src in ["x = 'abc", "s = \"é€😀", "`${", "f'{", "\"$(", "/* open", "'''"] {
            for lang in [Lang::Python, Lang::Js, Lang::Ruby, Lang::Php, Lang::Shell, Lang::Unknown] {
                let l = lex(src, lang);
                assert_eq!(l.code.len(), src.len());
                assert_eq!(l.no_comments.len(), src.len());
            }
        }
    }
}
