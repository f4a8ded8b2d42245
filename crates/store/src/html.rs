//! Visible text of an HTML document, for ingest.
//!
//! Runs the WHATWG tokenizer (html5ever; entities decoded, raw-text elements handled as
//! browsers do) and keeps what a reader sees: `script`, `style`, `template`, `noscript` and
//! similar content is dropped; whitespace is collapsed except inside `pre`; block elements
//! (`p`, `div`, headings, …) become blank-line paragraph breaks, so the chunker splits at
//! them; `br`, `li`, `tr`, `dt`, `dd` become line breaks. The `<title>` is returned apart.

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};

/// Text and title of an HTML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlText {
    /// Visible text, paragraphs separated by blank lines.
    pub text: String,
    /// The `<title>`, whitespace collapsed, if present and not blank.
    pub title: Option<String>,
}

/// Extracts the visible text of an HTML document.
pub fn html_to_text(html: &str) -> HtmlText {
    let sink = Sink { state: RefCell::new(State::default()) };
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tok = Tokenizer::new(sink, TokenizerOpts::default());
    let _ = tok.feed(&input);
    tok.end();
    let st = tok.sink.state.into_inner();
    let title = collapse(&st.title);
    HtmlText { text: st.out.trim().to_string(), title: (!title.is_empty()).then_some(title) }
}

/// Elements whose content is never shown.
const HIDDEN: &[&str] =
    &["script", "style", "template", "noscript", "iframe", "noembed", "noframes", "xmp", "object", "svg", "math"];
/// Elements that start and end a paragraph.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "details",
    "dialog",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "html",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "ul",
];
/// Elements that start a line.
const LINES: &[&str] = &["br", "li", "tr", "dt", "dd", "option"];
/// Elements separated from their neighbours by a space.
const CELLS: &[&str] = &["td", "th"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Break {
    Space,
    Line,
    Paragraph,
}

#[derive(Default)]
struct State {
    out: String,
    title: String,
    /// Name of the raw-text element being skipped (its content arrives as one run).
    raw_skip: Option<String>,
    /// Nesting depth of hidden elements with ordinary content (`template`, `svg`, …).
    hidden: usize,
    in_title: bool,
    pre: usize,
    pending: Option<Break>,
}

impl State {
    fn request(&mut self, b: Break) {
        if !self.out.is_empty() {
            self.pending = Some(self.pending.map_or(b, |p| p.max(b)));
        }
    }

    fn text(&mut self, s: &str) {
        if self.pre > 0 {
            self.flush_break();
            self.out.push_str(s);
            return;
        }
        for (i, part) in s.split(char::is_whitespace).enumerate() {
            if i > 0 {
                self.request(Break::Space);
            }
            if !part.is_empty() {
                self.flush_break();
                self.out.push_str(part);
            }
        }
    }

    fn flush_break(&mut self) {
        let Some(b) = self.pending.take() else { return };
        let trimmed = self.out.trim_end_matches([' ', '\t']).len();
        self.out.truncate(trimmed);
        match b {
            Break::Space => self.out.push(' '),
            Break::Line => self.out.push('\n'),
            Break::Paragraph => self.out.push_str("\n\n"),
        }
    }

    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        if self.raw_skip.is_some() {
            // Only the matching end tag reaches us in raw-text state.
            if !start && self.raw_skip.as_deref() == Some(name) {
                self.raw_skip = None;
            }
            return TokenSinkResult::Continue;
        }
        match name {
            "title" => {
                self.in_title = start;
                return if start { TokenSinkResult::RawData(RawKind::Rcdata) } else { TokenSinkResult::Continue };
            }
            "script" if start => {
                self.raw_skip = Some(name.to_string());
                return TokenSinkResult::RawData(RawKind::ScriptData);
            }
            "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" if start => {
                self.raw_skip = Some(name.to_string());
                return TokenSinkResult::RawData(RawKind::Rawtext);
            }
            "textarea" if start => return TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" if start => return TokenSinkResult::Plaintext,
            _ => {}
        }
        if HIDDEN.contains(&name) {
            if start && !tag.self_closing {
                self.hidden += 1;
            } else if !start {
                self.hidden = self.hidden.saturating_sub(1);
            }
            return TokenSinkResult::Continue;
        }
        if name == "pre" {
            if start {
                self.pre += 1;
            } else {
                self.pre = self.pre.saturating_sub(1);
            }
        }
        if BLOCKS.contains(&name) {
            self.request(Break::Paragraph);
        } else if LINES.contains(&name) {
            if start {
                self.request(Break::Line);
            }
        } else if CELLS.contains(&name) {
            self.request(Break::Space);
        }
        TokenSinkResult::Continue
    }
}

struct Sink {
    state: RefCell<State>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut st = self.state.borrow_mut();
        match token {
            Token::TagToken(tag) => st.tag(&tag),
            Token::CharacterTokens(t) => {
                if st.in_title {
                    st.title.push_str(&t);
                } else if st.raw_skip.is_none() && st.hidden == 0 {
                    st.text(&t);
                }
                TokenSinkResult::Continue
            }
            _ => TokenSinkResult::Continue,
        }
    }
}

fn collapse(s: &str) -> String {
    warrant_text::normalize::collapse_whitespace(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_text_only() {
        let html = r#"<!DOCTYPE html><html><head><title> Auth &amp; sessions </title>
            <style>p { color: red }</style><script>if (a < b) { document.write("</div>") }</script></head>
            <body><h1>Sessions</h1><p>Session tokens   expire after
            <b>30&nbsp;minutes</b> of inactivity.</p><!-- hidden --><p>Caf&eacute; &#8364;5 &lt;ok&gt;</p>
            <ul><li>one</li><li>two</li></ul><template><p>never</p></template><noscript>no js</noscript>
            <table><tr><td>a</td><td>b</td></tr></table><pre>  keep
  this</pre></body></html>"#;
        let out = html_to_text(html);
        assert_eq!(out.title.as_deref(), Some("Auth & sessions"));
        assert_eq!(
            out.text,
            "Sessions\n\nSession tokens expire after 30 minutes of inactivity.\n\nCafé €5 <ok>\n\none\ntwo\n\na b\n\n  keep\n  this"
        );
    }

    #[test]
    fn broken_html_never_fails() {
        for html in ["", "<", "<p", "<script>never closed", "</p></div>", "<<>>&&;", "<title>t", "\u{feff}text"] {
            let out = html_to_text(html);
            assert!(!out.text.contains("never closed"), "{html:?}");
        }
        assert_eq!(html_to_text("plain text &amp; more").text, "plain text & more");
    }
}
