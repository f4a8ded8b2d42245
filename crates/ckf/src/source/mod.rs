//! Reading sources (spec §7.1–§7.2): preflight, format detection, and segmentation into the
//! spans of the source manifest.
//!
//! A reader turns a file's bytes into *the text Warrant reads* — the file itself for `.txt`,
//! `.md`, `.json` and `.jsonl` (minus a byte-order mark), the visible text for `.html`, the cue
//! text for `.vtt` and `.srt` — and cuts it into [`Span`]s: one per record, heading section,
//! article, FAQ pair, or the whole document. Every excerpt a package quotes is a substring of a
//! span's text; manifest offsets count chars and lines of the text Warrant read.
//!
//! Bad inputs are refused before any work (§7.1 blocking): empty files, binary or non-UTF-8
//! content, inputs that are only a file name or only a hash, and records without text.

mod faq;
mod html;
mod legal;
mod markdown;
mod records;
mod transcript;

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::lang::{self, Lang};

pub use markdown::FrontMatter;
pub(crate) use markdown::heading as markdown_heading;

/// Largest source accepted by default, in bytes.
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

/// Detected source format (§7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON record per line.
    JsonlRecords,
    /// A JSON array of records.
    JsonArrayRecords,
    /// Question/answer pairs.
    Faq,
    /// Markdown with `#` headings.
    Markdown,
    /// Anything else.
    PlainText,
    /// A transcript (`.vtt`, `.srt`, or timestamps with `Speaker:` lines).
    Transcript,
    /// Text extracted from HTML.
    HtmlText,
    /// A normative text split at `Art. N`, `§ N` or `Section N`.
    LegalNorm,
}

impl Format {
    /// The spec's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::JsonlRecords => "jsonl_records",
            Format::JsonArrayRecords => "json_array_records",
            Format::Faq => "faq",
            Format::Markdown => "markdown",
            Format::PlainText => "plain_text",
            Format::Transcript => "transcript",
            Format::HtmlText => "html_text",
            Format::LegalNorm => "legal_norm",
        }
    }

    /// True for record-oriented formats.
    pub fn is_records(self) -> bool {
        matches!(self, Format::JsonlRecords | Format::JsonArrayRecords)
    }
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// What a span is (`metadata.source_manifest[].source_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// A JSONL line.
    JsonlRecord,
    /// An element of a JSON array.
    JsonArrayRecord,
    /// A Markdown heading section (or the text before the first heading).
    MarkdownSection,
    /// An article of a normative text.
    LegalArticle,
    /// One question and its answer.
    FaqPair,
    /// A whole document (or its preamble).
    Document,
}

impl SpanKind {
    /// The spec's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::JsonlRecord => "jsonl_record",
            SpanKind::JsonArrayRecord => "json_array_record",
            SpanKind::MarkdownSection => "markdown_section",
            SpanKind::LegalArticle => "legal_article",
            SpanKind::FaqPair => "faq_pair",
            SpanKind::Document => "document",
        }
    }
}

/// One segment of a source: the unit `source_refs` point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// What it is.
    pub kind: SpanKind,
    /// The span's text; every excerpt is cut from it.
    pub text: String,
    /// The native record key (records, articles, FAQ questions).
    pub record_id: Option<String>,
    /// The span's own heading.
    pub heading: Option<String>,
    /// Heading trail joined with ` > `.
    pub path: Option<String>,
    /// A title (record title, FAQ question).
    pub title: Option<String>,
    /// Byte range of a question in `text` (FAQ pairs, question records).
    pub question: Option<Range<usize>>,
    /// Byte range of its answer in `text`.
    pub answer: Option<Range<usize>>,
    /// Byte offset in `text` where the body starts (after a heading or title line).
    pub body_start: usize,
    /// Lines (1-based, inclusive) in the text read from the file.
    pub lines: (u32, u32),
    /// Chars (0-based, end exclusive) in the text read from the file.
    pub chars: (u64, u64),
}

impl Span {
    /// A span of `kind` holding `text`, with no record id, heading, title or question and
    /// position fields zeroed (the readers fill in what they know).
    pub fn new(kind: SpanKind, text: String) -> Self {
        Self {
            kind,
            text,
            record_id: None,
            heading: None,
            path: None,
            title: None,
            question: None,
            answer: None,
            body_start: 0,
            lines: (0, 0),
            chars: (0, 0),
        }
    }
}

/// What preflight found (§7.1 profile).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Chars in the text read.
    pub source_char_count: u64,
    /// Words in the text read.
    pub source_word_count: u64,
    /// BCP-47 tag or `und`.
    pub detected_language: &'static str,
    /// Detected format.
    pub detected_format: Format,
    /// Records (record formats) or spans.
    pub record_count: u32,
    /// chars / 6000, rounded up.
    pub estimated_chunks: u32,
    /// True for record formats.
    pub has_structured_records: bool,
    /// True when the text has enough words to be worth compiling.
    pub extraction_looks_valid: bool,
    /// Non-blocking findings.
    pub warnings: Vec<String>,
    /// Always false in a profile that reached the caller (blocked inputs are errors).
    pub blocked: bool,
}

/// A source read and segmented.
#[derive(Debug, Clone)]
pub struct Document {
    /// The file name as given.
    pub file: String,
    /// The raw bytes' SHA-256 (hex).
    pub sha256: String,
    /// Detected format.
    pub format: Format,
    /// The text Warrant read (see module docs).
    pub text: String,
    /// Spans, in order.
    pub spans: Vec<Span>,
    /// Bibliographic fields from front matter or HTML `<head>`.
    pub front: FrontMatter,
    /// The document's title: front matter, HTML `<title>`, or its first `#` heading.
    pub title: Option<String>,
    /// Detected language.
    pub language: Lang,
    /// Preflight profile.
    pub profile: Profile,
}

/// Why a source is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", location.as_ref().map(|l| format!(": {l}")).unwrap_or_default())]
pub struct SourceError {
    /// The file.
    pub file: String,
    /// `line 3`, `record 4`, … when the problem is located.
    pub location: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl SourceError {
    pub(crate) fn new(file: &str, message: impl Into<String>) -> Self {
        Self { file: file.to_string(), location: None, message: message.into() }
    }

    pub(crate) fn at(file: &str, location: impl Into<String>, message: impl Into<String>) -> Self {
        Self { file: file.to_string(), location: Some(location.into()), message: message.into() }
    }
}

/// Reading options.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Largest input accepted, in bytes.
    pub max_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self { max_bytes: DEFAULT_MAX_BYTES }
    }
}

/// The reader chosen from the file name and content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    Text,
    Jsonl,
    JsonArray,
    Html,
    Vtt,
    Srt,
}

fn extension(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

fn choose_reader(name: &str, text: &str) -> Reader {
    match extension(name).as_str() {
        "jsonl" | "ndjson" => return Reader::Jsonl,
        "json" => return Reader::JsonArray,
        "html" | "htm" | "xhtml" => return Reader::Html,
        "vtt" => return Reader::Vtt,
        "srt" => return Reader::Srt,
        "md" | "markdown" | "mdx" | "txt" | "text" => return Reader::Text,
        _ => {}
    }
    // No telling extension: sniff the content.
    let head = text.trim_start();
    let lower: String = head.chars().take(64).flat_map(char::to_lowercase).collect();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        Reader::Html
    } else if head.starts_with("WEBVTT") {
        Reader::Vtt
    } else if head.starts_with('[') && serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v.is_array()) {
        Reader::JsonArray
    } else if records::looks_like_jsonl(text) {
        Reader::Jsonl
    } else {
        Reader::Text
    }
}

static FILENAME_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Za-z]:)?[\w\-.~/\\]*[\w\-]\.[A-Za-z][A-Za-z0-9]{0,7}$").unwrap_or_else(|e| panic!("regex: {e}"))
});

fn is_hex_hash(s: &str) -> bool {
    let s = s
        .split_once(':')
        .map_or(s, |(algo, rest)| if algo.len() <= 8 && algo.bytes().all(|b| b.is_ascii_alphanumeric()) { rest } else { s });
    matches!(s.len(), 32 | 40 | 56 | 64 | 96 | 128) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Blocking checks on the text (§7.1): empty, file name only, hash only.
fn block(file: &str, text: &str) -> Result<(), SourceError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(SourceError::new(file, "empty input: there is no text to compile"));
    }
    let lines: Vec<&str> = t.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if lines.iter().all(|l| is_hex_hash(l)) {
        return Err(SourceError::new(
            file,
            "the input is only a hash, not a document; pass the document's text (a .txt, .md, .html, .jsonl, .json, .vtt or .srt file)",
        ));
    }
    if lines.len() == 1 && t.len() < 260 && FILENAME_ONLY.is_match(t) {
        return Err(SourceError::new(file, format!("the input is only a file name ({t}), not a document; pass the file itself")));
    }
    Ok(())
}

/// Decodes bytes as UTF-8 text, refusing binary content.
fn decode<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, SourceError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.is_empty() {
        return Err(SourceError::new(file, "empty input: the file has no content"));
    }
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(SourceError::new(file, "UTF-16 text is not supported; convert the file to UTF-8"));
    }
    if let Some(p) = bytes.iter().take(64 * 1024).position(|&b| b == 0) {
        return Err(SourceError::new(file, format!("binary content (a NUL byte at offset {p}); expected a text document")));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        SourceError::new(file, format!("not UTF-8 text (invalid byte at offset {}); expected a text document", e.valid_up_to()))
    })
}

/// Reads one source file (§7.1, §7.2): preflight, reader, format detection, spans.
pub fn read_source(file: &str, bytes: &[u8], opts: &ReadOptions) -> Result<Document, SourceError> {
    if bytes.len() > opts.max_bytes {
        return Err(SourceError::new(file, format!("the input is {} bytes; the limit is {} bytes", bytes.len(), opts.max_bytes)));
    }
    let raw = decode(file, bytes)?;
    block(file, raw)?;
    let sha256 = crate::hash::sha256_hex(bytes);
    let reader = choose_reader(file, raw);
    let (text, format, spans, front) = match reader {
        Reader::Jsonl => {
            let (spans, _) = records::read_jsonl(file, raw)?;
            (raw.to_string(), Format::JsonlRecords, spans, FrontMatter::default())
        }
        Reader::JsonArray => {
            let spans = records::read_json_array(file, raw)?;
            (raw.to_string(), Format::JsonArrayRecords, spans, FrontMatter::default())
        }
        Reader::Html => {
            let h = html::html_to_text(raw);
            block(file, &h.text).map_err(|_| SourceError::new(file, "the HTML has no visible text to compile"))?;
            let spans = markdown::sections(&h.text, 0);
            (h.text, Format::HtmlText, spans, h.front)
        }
        Reader::Vtt | Reader::Srt => {
            let t = if reader == Reader::Vtt { transcript::vtt_to_text(raw) } else { transcript::srt_to_text(raw) };
            block(file, &t).map_err(|_| SourceError::new(file, "the transcript has no cue text to compile"))?;
            let spans = vec![whole_document(&t)];
            (t, Format::Transcript, spans, FrontMatter::default())
        }
        Reader::Text => {
            let (front, body_at) = markdown::front_matter(raw);
            let (format, spans) = segment_text(raw, body_at);
            (raw.to_string(), format, spans, front)
        }
    };
    let spans: Vec<Span> = spans.into_iter().filter(|s| !s.text.trim().is_empty()).collect();
    if spans.is_empty() {
        return Err(SourceError::new(file, "empty input: there is no text to compile"));
    }
    let mut spans = spans;
    locate(&text, &mut spans, format);
    let language = lang::detect_sampled(&text);
    let profile = profile(file, &text, format, language, spans.len());
    let title = front
        .title
        .clone()
        .or_else(|| {
            markdown::headings(&text, 0).into_iter().take(1).find(|h| h.1 == 1).map(|h| crate::normalize::normalize(&h.2))
        })
        .or_else(|| if format.is_records() { None } else { title_line(&text) });
    Ok(Document { file: file.to_string(), sha256, format, text, spans, front, title, language, profile })
}

/// Detects the format of a text document and cuts it into spans.
fn segment_text(text: &str, body_at: usize) -> (Format, Vec<Span>) {
    if let Some(spans) = faq::segment(text, body_at) {
        return (Format::Faq, spans);
    }
    if let Some(spans) = legal::segment(text, body_at) {
        return (Format::LegalNorm, spans);
    }
    if markdown::has_headings(text, body_at) {
        return (Format::Markdown, markdown::sections(text, body_at));
    }
    let mut span = whole_document(&text[body_at..]);
    shift(&mut span, body_at);
    let format = if transcript::looks_like_transcript(text) { Format::Transcript } else { Format::PlainText };
    (format, vec![span])
}

/// A span over a whole text (trimmed).
fn whole_document(text: &str) -> Span {
    let r = warrant_text::segment::trim_range(text, 0..text.len());
    span_over(text, r, SpanKind::Document)
}

/// A span over `range` of `text`; position fields are filled by [`locate`].
pub(crate) fn span_over(text: &str, range: Range<usize>, kind: SpanKind) -> Span {
    // Byte offsets until `locate` converts them.
    Span { chars: (range.start as u64, range.end as u64), ..Span::new(kind, text[range].to_string()) }
}

fn shift(span: &mut Span, by: usize) {
    span.chars.0 += by as u64;
    span.chars.1 += by as u64;
}

/// Converts the byte offsets held in `chars` into char offsets and line numbers of `text`.
/// Record readers fill `lines` themselves and store byte offsets of the record too.
fn locate(text: &str, spans: &mut [Span], format: Format) {
    let map = warrant_text::OffsetMap::new(text);
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1)).collect();
    let line_of = |byte: usize| -> u32 {
        match line_starts.binary_search(&byte) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    };
    for s in spans {
        let (b0, b1) = (s.chars.0 as usize, s.chars.1 as usize);
        if !format.is_records() || s.lines == (0, 0) {
            s.lines = (line_of(b0), line_of(b1.saturating_sub(1).max(b0)));
        }
        s.chars = (map.to_char(b0) as u64, map.to_char(b1) as u64);
    }
}

/// A short first line standing alone above the text ("DATA PROTECTION ACT", "Paxlovid renal
/// dosing note.") is the document's title.
fn title_line(text: &str) -> Option<String> {
    let t = text.trim_start();
    let (first, rest) = t.split_once('\n')?;
    let first = first.trim();
    let stands_alone = rest.starts_with('\n') || rest.starts_with("\r\n");
    let words = first.split_whitespace().count();
    (stands_alone && (1..=12).contains(&words) && !rest.trim().is_empty() && !first.ends_with([':', ',', ';', '?']))
        .then(|| crate::normalize::normalize(first.trim_start_matches('#').trim().trim_end_matches('.')))
}

fn profile(file: &str, text: &str, format: Format, language: Lang, spans: usize) -> Profile {
    let words = warrant_text::words::words(text).count() as u64;
    let chars = warrant_text::char_len(text) as u64;
    let mut warnings = Vec::new();
    if words < 50 {
        warnings.push(format!("{file}: only {words} words; the package will be thin"));
    }
    let stem = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = stem.split('.').next().unwrap_or(stem);
    if stem.len() >= 16 && stem.bytes().all(|b| b.is_ascii_hexdigit()) {
        warnings.push(format!("{file}: the file name looks like a hash; pass --title to name the package"));
    }
    Profile {
        source_char_count: chars,
        source_word_count: words,
        detected_language: language.tag(),
        detected_format: format,
        record_count: spans as u32,
        estimated_chunks: chars.div_ceil(6000) as u32,
        has_structured_records: format.is_records(),
        extraction_looks_valid: words >= 5,
        warnings,
        blocked: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> Result<Document, SourceError> {
        read_source(name, text.as_bytes(), &ReadOptions::default())
    }

    #[test]
    fn refuses_bad_inputs_with_clear_messages() {
        let e = read("a.txt", "").unwrap_err();
        assert_eq!(e.to_string(), "a.txt: empty input: the file has no content");
        assert!(read("a.txt", "  \n\t ").unwrap_err().message.contains("empty input"));
        assert!(read_source("a.bin", b"PK\x03\x04\x00\x00", &ReadOptions::default()).unwrap_err().message.contains("binary"));
        assert!(read_source("a.txt", b"caf\xe9", &ReadOptions::default()).unwrap_err().message.contains("not UTF-8"));
        assert!(read("a.txt", "report-2024.pdf\n").unwrap_err().message.contains("only a file name"));
        assert!(read("a.txt", "C:\\docs\\policy.docx").unwrap_err().message.contains("only a file name"));
        let h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert!(read("a.txt", h).unwrap_err().message.contains("only a hash"));
        assert!(read("a.txt", &format!("sha256:{h}\n{h}\n")).unwrap_err().message.contains("only a hash"));
        let big = ReadOptions { max_bytes: 4 };
        assert!(read_source("a.txt", b"hello world", &big).unwrap_err().message.contains("limit"));
    }

    #[test]
    fn plain_text_is_one_document_span_with_offsets() {
        let d = read("notes.txt", "\u{feff}  First line.\nSecond line café.\n\n").unwrap();
        assert_eq!(d.format, Format::PlainText);
        assert_eq!(d.spans.len(), 1);
        let s = &d.spans[0];
        assert_eq!(s.kind, SpanKind::Document);
        assert_eq!(s.text, "First line.\nSecond line café.");
        assert_eq!(s.lines, (1, 2));
        assert_eq!(s.chars, (2, 31));
        assert!(d.profile.warnings.iter().any(|w| w.contains("words")));
    }

    #[test]
    fn a_sentence_with_a_file_name_is_not_blocked() {
        assert!(read("a.txt", "Please read report.pdf before the meeting.").is_ok());
    }
}
