//! HTML → text: the visible text of a page, with structure kept as Markdown so segmentation
//! treats it like any Markdown document (headings become `#` lines, list items `- ` or `1. `,
//! table cells ` | `, `<pre>` keeps its lines).
//!
//! A small, careful tokenizer: comments, `<!DOCTYPE>`, `<script>`, `<style>`, `<noscript>`,
//! `<template>`, `<svg>` and `<head>` content (except `<title>` and `<meta name=author>`) are
//! dropped; attributes are skipped with their quotes honoured; character references (named,
//! decimal, hex) are decoded. It never fails: anything unparseable is treated as text.

use super::FrontMatter;

/// The text of a page plus what its `<head>` says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HtmlText {
    /// Visible text, Markdown-flavoured.
    pub text: String,
    /// `<title>` and `<meta name="author">`.
    pub front: FrontMatter,
}

const SKIP: &[&str] = &["script", "style", "noscript", "template", "svg", "iframe", "object", "canvas"];
const BLOCK: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "aside",
    "nav",
    "ul",
    "ol",
    "dl",
    "table",
    "thead",
    "tbody",
    "tfoot",
    "blockquote",
    "form",
    "fieldset",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "hr",
    "body",
    "html",
    "caption",
    "center",
];

struct Out {
    text: String,
    /// Pending whitespace to emit before the next word: 0 none, 1 space, 2 newline, 3 blank line.
    pending: u8,
    pre: usize,
    lists: Vec<Option<u32>>,
}

impl Out {
    fn want(&mut self, level: u8) {
        self.pending = self.pending.max(level);
    }

    fn flush(&mut self) {
        if self.text.is_empty() {
            self.pending = 0;
            return;
        }
        match self.pending {
            1 if !self.text.ends_with([' ', '\n']) => {
                self.text.push(' ');
            }
            2 => {
                trim_trailing_spaces(&mut self.text);
                if !self.text.ends_with('\n') {
                    self.text.push('\n');
                }
            }
            3 => {
                trim_trailing_spaces(&mut self.text);
                while !self.text.ends_with("\n\n") {
                    self.text.push('\n');
                }
            }
            _ => {}
        }
        self.pending = 0;
    }

    fn push_text(&mut self, s: &str) {
        if self.pre > 0 {
            self.flush();
            self.text.push_str(s);
            return;
        }
        let mut first = true;
        for word in s.split(|c: char| c.is_whitespace() && c != '\u{a0}') {
            if !first {
                self.want(1);
            }
            first = false;
            if word.is_empty() {
                continue;
            }
            self.flush();
            self.text.push_str(word);
        }
    }

    fn push_raw(&mut self, s: &str) {
        self.flush();
        self.text.push_str(s);
    }
}

fn trim_trailing_spaces(s: &mut String) {
    while s.ends_with(' ') {
        s.pop();
    }
}

/// Lower-case tag name and whether it closes, from the inside of `<…>`.
fn tag_name(inner: &str) -> (String, bool) {
    let closing = inner.starts_with('/');
    let name: String = inner
        .trim_start_matches('/')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == ':')
        .flat_map(|c| c.to_lowercase())
        .collect();
    (name, closing)
}

/// An attribute's value from the inside of a tag (`name="value"`).
fn attr(inner: &str, name: &str) -> Option<String> {
    let lower = inner.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(name) {
        let at = from + p;
        from = at + name.len();
        let before_ok = at == 0 || lower.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = lower[at + name.len()..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let raw_rest = inner[inner.len() - rest.len() + 1..].trim_start();
        let value = match raw_rest.chars().next() {
            Some(q @ ('"' | '\'')) => raw_rest[1..].split(q).next().unwrap_or(""),
            _ => raw_rest.split(|c: char| c.is_whitespace() || c == '>' || c == '/').next().unwrap_or(""),
        };
        return Some(decode_entities(value));
    }
    None
}

/// Finds the end of a tag starting at `i` (just after `<`), honouring quoted attributes.
fn tag_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b'>' => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// Converts HTML to text (see module docs).
pub fn html_to_text(html: &str) -> HtmlText {
    let mut out = Out { text: String::new(), pending: 0, pre: 0, lists: Vec::new() };
    let mut front = FrontMatter::default();
    let b = html.as_bytes();
    // ASCII lower-casing keeps byte offsets, so close tags are found in this copy.
    let lower = html.to_ascii_lowercase();
    let mut i = 0;
    let mut in_head = false;
    let mut in_title = false;
    let mut title = String::new();
    while i < b.len() {
        let next_lt = html[i..].find('<').map_or(html.len(), |p| i + p);
        if next_lt > i {
            let decoded = decode_entities(&html[i..next_lt]);
            if in_title {
                title.push_str(&decoded);
            } else if !in_head {
                out.push_text(&decoded);
            }
            i = next_lt;
            continue;
        }
        // At '<'.
        if html[i..].starts_with("<!--") {
            i = html[i + 4..].find("-->").map_or(html.len(), |p| i + 4 + p + 3);
            continue;
        }
        if html[i..].starts_with("<![CDATA[") {
            let end = html[i + 9..].find("]]>").map_or(html.len(), |p| i + 9 + p);
            if !in_head {
                out.push_text(&html[i + 9..end]);
            }
            i = (end + 3).min(html.len());
            continue;
        }
        let starts_tag = b.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/' || *c == b'!' || *c == b'?');
        if !starts_tag {
            out.push_text("<");
            i += 1;
            continue;
        }
        let Some(end) = tag_end(b, i + 1) else {
            out.push_text(&html[i..]);
            break;
        };
        let inner = &html[i + 1..end];
        i = end + 1;
        if inner.starts_with('!') || inner.starts_with('?') {
            continue;
        }
        let (name, closing) = tag_name(inner);
        if !closing && SKIP.contains(&name.as_str()) && !inner.ends_with('/') {
            // Skip to the matching close tag.
            let close = format!("</{name}");
            i = lower[i..].find(&close).map_or(html.len(), |p| tag_end(b, i + p + 1).map_or(html.len(), |e| e + 1));
            continue;
        }
        match (name.as_str(), closing) {
            ("head", false) => in_head = true,
            ("head", true) => in_head = false,
            ("title", false) => in_title = true,
            ("title", true) => in_title = false,
            ("meta", false) => {
                if attr(inner, "name").is_some_and(|n| n.eq_ignore_ascii_case("author"))
                    && let Some(c) = attr(inner, "content")
                {
                    front.author = Some(crate::normalize::normalize(&c));
                }
            }
            ("body", false) => in_head = false,
            _ if in_head => {}
            (h, false) if h.len() == 2 && h.starts_with('h') && h.as_bytes()[1].is_ascii_digit() => {
                let level = usize::from(h.as_bytes()[1] - b'0').clamp(1, 6);
                out.want(3);
                out.push_raw(&"#".repeat(level));
                out.push_raw(" ");
            }
            (h, true) if h.len() == 2 && h.starts_with('h') && h.as_bytes()[1].is_ascii_digit() => out.want(3),
            ("br", _) => out.want(2),
            ("li", false) => {
                out.want(2);
                let marker = match out.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{n}. ")
                    }
                    _ => "- ".to_string(),
                };
                out.push_raw(&marker);
            }
            ("li", true) => out.want(2),
            ("ol", false) => {
                out.want(3);
                let start = attr(inner, "start").and_then(|s| s.trim().parse::<u32>().ok()).unwrap_or(1);
                out.lists.push(Some(start.saturating_sub(1)));
            }
            ("ul", false) => {
                out.want(3);
                out.lists.push(None);
            }
            ("ol" | "ul", true) => {
                out.lists.pop();
                out.want(3);
            }
            ("tr", _) => out.want(2),
            ("td" | "th", false) if !out.text.ends_with('\n') && out.pending < 2 && !out.text.is_empty() => {
                out.push_raw(" | ");
            }
            ("dt", false) => out.want(2),
            ("dd", false) => {
                out.push_raw(": ");
            }
            ("pre", false) => {
                out.want(3);
                out.pre += 1;
            }
            ("pre", true) => {
                out.pre = out.pre.saturating_sub(1);
                out.want(3);
            }
            (n, _) if BLOCK.contains(&n) => out.want(3),
            _ => {}
        }
    }
    let title = crate::normalize::normalize(&title);
    if !title.is_empty() {
        front.title = Some(title);
    }
    let mut text = String::with_capacity(out.text.len());
    for line in out.text.lines() {
        text.push_str(line.trim_end());
        text.push('\n');
    }
    HtmlText { text: collapse_blank_runs(&text), front }
}

fn collapse_blank_runs(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blanks = 0;
    for line in s.lines() {
        if line.trim().is_empty() {
            blanks += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blanks > 0 { "\n\n" } else { "\n" });
        }
        blanks = 0;
        out.push_str(line);
    }
    out.push('\n');
    out
}

fn named_entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "ndash" => "–",
        "mdash" => "—",
        "hellip" => "…",
        "lsquo" => "‘",
        "rsquo" => "’",
        "ldquo" => "“",
        "rdquo" => "”",
        "laquo" => "«",
        "raquo" => "»",
        "copy" => "©",
        "reg" => "®",
        "trade" => "™",
        "sect" => "§",
        "para" => "¶",
        "deg" => "°",
        "plusmn" => "±",
        "times" => "×",
        "divide" => "÷",
        "euro" => "€",
        "pound" => "£",
        "yen" => "¥",
        "cent" => "¢",
        "middot" => "·",
        "bull" => "•",
        "ordm" => "º",
        "ordf" => "ª",
        "iexcl" => "¡",
        "iquest" => "¿",
        "aacute" => "á",
        "Aacute" => "Á",
        "agrave" => "à",
        "Agrave" => "À",
        "acirc" => "â",
        "Acirc" => "Â",
        "atilde" => "ã",
        "Atilde" => "Ã",
        "auml" => "ä",
        "Auml" => "Ä",
        "ccedil" => "ç",
        "Ccedil" => "Ç",
        "eacute" => "é",
        "Eacute" => "É",
        "egrave" => "è",
        "Egrave" => "È",
        "ecirc" => "ê",
        "Ecirc" => "Ê",
        "euml" => "ë",
        "iacute" => "í",
        "Iacute" => "Í",
        "icirc" => "î",
        "iuml" => "ï",
        "ntilde" => "ñ",
        "Ntilde" => "Ñ",
        "oacute" => "ó",
        "Oacute" => "Ó",
        "ocirc" => "ô",
        "Ocirc" => "Ô",
        "otilde" => "õ",
        "Otilde" => "Õ",
        "ouml" => "ö",
        "Ouml" => "Ö",
        "uacute" => "ú",
        "Uacute" => "Ú",
        "ugrave" => "ù",
        "ucirc" => "û",
        "uuml" => "ü",
        "Uuml" => "Ü",
        "szlig" => "ß",
        "shy" => "",
        "zwj" => "\u{200d}",
        "zwnj" => "\u{200c}",
        _ => return None,
    })
}

/// Decodes character references; unknown or malformed ones stay as written.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '#')).map(|e| e + 1);
        let (name, consumed) = match end {
            Some(e) if rest[e..].starts_with(';') => (&rest[1..e], e + 1),
            Some(e) => (&rest[1..e], e),
            None => (&rest[1..], rest.len()),
        };
        let decoded = if let Some(num) = name.strip_prefix('#') {
            let v = match num.strip_prefix(['x', 'X']) {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => num.parse::<u32>().ok(),
            };
            v.and_then(char::from_u32).filter(|c| *c != '\0').map(String::from)
        } else if consumed > name.len() + 1 || matches!(name, "amp" | "lt" | "gt" | "quot" | "nbsp") {
            named_entity(name).map(str::to_string)
        } else {
            None
        };
        match decoded {
            Some(d) if !name.is_empty() => {
                out.push_str(&d);
                rest = &rest[consumed..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_with_markdown_structure() {
        let html = r#"<!DOCTYPE html><html><head><title>Refund &amp; Returns</title>
            <meta name="author" content="Ops Team"><style>p { color: red }</style></head>
            <body><!-- nav --><h1>Refunds</h1><p>Refunds take <b>5&nbsp;days</b>.
            Call us&hellip;</p><script>var x = "<p>no</p>";</script>
            <ol><li>Open the <a href="/x?a=1&b=2" title='a > b'>portal</a></li><li>Click refund</li></ol>
            <ul><li>Keep receipts</li></ul><table><tr><th>Plan</th><td>Pro</td></tr></table>
            <pre>line 1
  line 2</pre><p>5 &lt; 6 &amp;c &#233;t&#xE9; &unknown;</p></body></html>"#;
        let t = html_to_text(html);
        assert_eq!(t.front.title.as_deref(), Some("Refund & Returns"));
        assert_eq!(t.front.author.as_deref(), Some("Ops Team"));
        assert_eq!(
            t.text,
            "# Refunds\n\nRefunds take 5\u{a0}days. Call us…\n\n1. Open the portal\n2. Click refund\n\n- Keep receipts\n\nPlan | Pro\n\nline 1\n  line 2\n\n5 < 6 &c été &unknown;\n"
        );
    }

    #[test]
    fn malformed_html_never_fails() {
        for h in ["<", "<p", "a < b and c > d", "<div class=\"x>y", "<script>no end", "&#xZZ; &#0; &", "<!-- open"] {
            let _ = html_to_text(h);
        }
        assert_eq!(html_to_text("a < b").text, "a < b\n");
    }
}
