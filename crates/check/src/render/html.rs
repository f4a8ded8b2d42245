//! One self-contained HTML page (no network, no external assets): the gate with the claims'
//! summary, the answer's Markdown with claims coloured by status — hover shows the verdict,
//! click (or `page.html#c3`) opens the evidence — every claim in a list, and the policy
//! results.
//!
//! The answer is parsed as CommonMark by `pulldown-cmark` and rendered here, element by
//! element, from a fixed set of tags: raw HTML in the answer is shown as text, links as text
//! (their target in a tooltip), and every string is escaped. Claims are char spans of the
//! answer's source text, so they can start inside `**bold**` and end in the next list item;
//! each text event of the parser carries its source range, and a claim is highlighted by one
//! `<span class="claim …">` per text event it covers. Highlights therefore only ever wrap
//! text, inside one element, and can never break the nesting.

use std::fmt::Write;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use warrant_cpl::PolicyResult;
use warrant_graph::Severity;
use warrant_verify::{ClaimResult, Status};

use super::claim_ranges;
use crate::{Gate, Report};

/// Escapes text for HTML content and attribute values. Control characters (other than tab
/// and line breaks) are not allowed in HTML text; they become U+FFFD.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            _ => out.push(c),
        }
    }
    out
}

/// How a status looks: a light background for the text, and an underline whose colour and
/// line style differ per status, so the statuses stay apart without colour vision too.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Swatch {
    pub status: Status,
    pub background: &'static str,
    pub line: &'static str,
    pub line_style: &'static str,
}

/// One swatch per status, in legend order. Supported → green, partially supported → yellow,
/// unsupported → orange, contradicted → red: a ramp of how much is wrong. Unverified (nothing
/// to check against) is a cool grey, not applicable a paler neutral grey. The tests hold
/// these to contrast and distinctness thresholds.
pub(crate) const PALETTE: [Swatch; 6] = [
    Swatch { status: Status::Supported, background: "#d6f2de", line: "#1a7f37", line_style: "solid" },
    Swatch { status: Status::PartiallySupported, background: "#fff1a1", line: "#8a6800", line_style: "dashed" },
    Swatch { status: Status::Unsupported, background: "#ffd3a6", line: "#c2410c", line_style: "dotted" },
    Swatch { status: Status::Contradicted, background: "#ffc9ce", line: "#c62828", line_style: "double" },
    Swatch { status: Status::Unverified, background: "#dce4ef", line: "#51627a", line_style: "solid" },
    Swatch { status: Status::NotApplicable, background: "#f3f3f4", line: "#858585", line_style: "dotted" },
];

/// The page's text colour (the contrast tests read it).
pub(crate) const INK: &str = "#1d2430";

const STYLE: &str = "
body{font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
main{max-width:920px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.gate{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:700;color:#fff;letter-spacing:.04em}
.gate.allow{background:#1a7f37}.gate.review{background:#b35900}.gate.block{background:#c62828}
.summary{display:flex;flex-wrap:wrap;align-items:center;gap:6px 10px;margin:10px 0;font-size:14px}
.summary .score{font-weight:700;font-size:15px}.summary .of{color:#57606a}
.swatch{border-radius:3px;padding:0 6px;font-size:13px;white-space:nowrap}
.answer{background:#fff;border:1px solid #d8dde4;border-radius:6px;padding:4px 18px;overflow-wrap:anywhere}
.answer h3,.answer h4,.answer h5,.answer h6{margin:14px 0 6px}.answer h3{font-size:17px}.answer h4{font-size:15px}.answer h5,.answer h6{font-size:14px}
.answer ul,.answer ol{padding-left:24px}
.answer code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f5;border-radius:3px;padding:0 3px}
.answer pre{background:#f0f2f5;border-radius:4px;padding:8px 10px;overflow-x:auto}.answer pre code{padding:0;background:none}
.answer blockquote{margin:8px 0;padding:2px 12px;border-left:3px solid #c4cad3;color:#3d4756}
.answer table{width:auto}.answer .raw{white-space:pre-wrap;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}
.answer .link{text-decoration:underline dotted #57606a}
.claim{border-radius:2px;padding:1px 0;cursor:pointer;border-bottom:3px solid transparent}
.claim:focus-visible,.claim.active{outline:2px solid #1d2430;outline-offset:1px}
.legend .swatch{margin-right:6px}
.evidence{display:none;background:#fff;border:1px solid #d8dde4;border-radius:6px;padding:12px 16px;margin-top:10px}
.evidence.shown{display:block}
.evidence h3{font-size:14px;margin:0 0 6px}.evidence .said{font-style:italic}
.evidence blockquote{margin:6px 0;padding:6px 10px;border-left:3px solid #8a94a3;background:#f6f7f9;white-space:pre-wrap}
.rel{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#57606a}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #d8dde4;padding:6px 8px;text-align:left;vertical-align:top;font-size:14px}
details.claims summary{cursor:pointer;font-weight:600;margin:16px 0 8px}
tr.cref{cursor:pointer}tr.cref:hover{background:#f6f7f9}
.result{font-weight:600;white-space:nowrap}
.result.pass{color:#11632a;background:#d6f2de}.result.warn{color:#7a4b00;background:#ffe8b3}.result.fail{color:#a11a1a;background:#ffd7d7}
h2 .result{font-size:13px;padding:2px 8px;border-radius:3px;margin-left:8px}
.v{margin:2px 0}.sev{font-size:12px;font-weight:700;text-transform:uppercase;letter-spacing:.04em;margin-right:6px}
.v.error .sev{color:#a11a1a}.v.warning .sev{color:#7a4b00}.v.info .sev,.v.skipped .sev{color:#57606a}
ul.reasons{margin:6px 0 0 18px;padding:0}
";

/// Opens the evidence of a claim: on click or Enter on any of its parts or its row in the
/// list, and for `#<claim id>` in the address (on load and when it changes). Ids are
/// compared as strings, never put into a selector, so no id can inject one.
const SCRIPT: &str = "
(function(){
function show(id,scroll){
var panel=document.getElementById('ev-'+id);if(!panel)return;
var open=!panel.classList.contains('shown'),first=null;
document.querySelectorAll('.evidence').forEach(function(p){p.classList.toggle('shown',open&&p===panel);});
document.querySelectorAll('.claim').forEach(function(c){var on=open&&c.getAttribute('data-claim')===id;c.classList.toggle('active',on);if(on&&!first)first=c;});
if(open&&scroll)(first||panel).scrollIntoView({block:'center'});}
document.querySelectorAll('[data-claim]').forEach(function(el){
var go=function(){show(el.getAttribute('data-claim'),!el.classList.contains('claim'));};
el.addEventListener('click',go);
el.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();go();}});});
function fromHash(){var id='';try{id=decodeURIComponent(location.hash.slice(1));}catch(e){return;}
var p=id&&document.getElementById('ev-'+id);if(p&&!p.classList.contains('shown'))show(id,true);}
fromHash();window.addEventListener('hashchange',fromHash);
})();
";

/// A status as words ("partially supported").
fn label(status: Status) -> String {
    status.as_str().replace('_', " ")
}

/// Renders the report as one HTML page.
pub fn render(report: &Report) -> String {
    let mut h = String::with_capacity(16 * 1024 + report.graph.text.len() * 4);
    let gate = report.gate.as_str();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>warrant check: {id}</title><style>{STYLE}{palette}</style></head><body><main>\n",
        id = escape(&report.output_id),
        palette = palette_css()
    );
    let _ = writeln!(
        h,
        "<h1>warrant check <small>{}</small></h1><p><span class=\"gate {gate}\" id=\"gate\">{}</span></p>",
        escape(&report.output_id),
        gate.to_uppercase()
    );
    summary(&mut h, report);
    if !report.gate_reasons.is_empty() {
        h.push_str("<ul class=\"reasons\">");
        for r in &report.gate_reasons {
            let _ = write!(h, "<li>{}</li>", escape(r));
        }
        h.push_str("</ul>\n");
    } else if report.gate == Gate::Allow {
        h.push_str("<p>Every claim checked out and every policy passed.</p>\n");
    }
    h.push_str("<h2>Answer</h2><p class=\"legend\">");
    for s in PALETTE {
        let _ = write!(h, "<span class=\"swatch {}\">{}</span>", s.status.as_str(), label(s.status));
    }
    h.push_str("</p>\n<div class=\"answer\" id=\"answer\">");
    let text = report.graph.text.as_str();
    h.push_str(&answer_html(text, &claim_ranges(text, &report.claims)));
    h.push_str("</div>\n");
    for c in &report.claims {
        evidence(&mut h, c);
    }
    claim_list(&mut h, report);
    policies(&mut h, report);
    let _ = writeln!(h, "<script>{SCRIPT}</script></main></body></html>");
    h
}

/// The status rules, from [`PALETTE`]: the claim highlight and the legend's swatch alike.
fn palette_css() -> String {
    let mut css = format!(".claim,.swatch{{color:{INK}}}\n");
    for s in PALETTE {
        let st = s.status.as_str();
        let _ = writeln!(
            css,
            ".claim.{st},.swatch.{st}{{background:{bg};border-bottom:3px {style} {line}}}",
            bg = s.background,
            style = s.line_style,
            line = s.line
        );
    }
    css
}

/// The claims at a glance, under the gate: the support score (or that nothing could be
/// checked) and a count per status.
fn summary(h: &mut String, report: &Report) {
    let s = &report.summary;
    let checked = s.supported + s.partially_supported + s.unsupported + s.contradicted;
    let counts = [
        (Status::Supported, s.supported),
        (Status::PartiallySupported, s.partially_supported),
        (Status::Unsupported, s.unsupported),
        (Status::Contradicted, s.contradicted),
        (Status::Unverified, s.unverified),
        (Status::NotApplicable, s.not_applicable),
    ];
    match s.support_score {
        Some(score) => {
            let _ = write!(
                h,
                "<div class=\"summary\" id=\"summary\" data-support-score=\"{score}\"><span class=\"score\">support score {score}</span> \
<span class=\"of\">{} of {checked} checked claim{} supported</span>",
                s.supported,
                if checked == 1 { "" } else { "s" }
            );
        }
        None => h.push_str(
            "<div class=\"summary\" id=\"summary\" data-support-score=\"none\"><span class=\"score\">no claim could be checked</span>",
        ),
    }
    let _ = write!(h, " <span class=\"of\">{} claim{}:</span>", s.claims, if s.claims == 1 { "" } else { "s" });
    for (st, n) in counts.into_iter().filter(|(_, n)| *n > 0) {
        let _ = write!(
            h,
            " <span class=\"swatch {0}\" data-status=\"{0}\" data-count=\"{n}\">{n} {1}</span>",
            st.as_str(),
            label(st)
        );
    }
    h.push_str("</div>\n");
}

/// A claim's evidence panel, shown when the claim is clicked.
fn evidence(h: &mut String, c: &ClaimResult) {
    let _ = write!(
        h,
        "<section class=\"evidence\" id=\"ev-{id}\"><h3>{id} · {label} · confidence {conf:.2}</h3><p class=\"said\">{text}</p><p>{reason}</p>",
        id = escape(&c.claim_id),
        label = label(c.status),
        conf = c.confidence,
        text = escape(&c.text),
        reason = escape(&c.reason)
    );
    for e in &c.support_edges {
        let _ = write!(
            h,
            "<div><span class=\"rel\">{}</span> {} <small>chars {}–{}</small><blockquote>{}</blockquote></div>",
            e.relationship.as_str().replace('_', " "),
            escape(&e.source_id),
            e.selector.start,
            e.selector.end,
            escape(&e.selector.exact)
        );
    }
    if let Some(o) = &c.second_opinion {
        let _ = write!(
            h,
            "<p><span class=\"rel\">second opinion</span> {} (rules said {}): ",
            escape(&o.model),
            label(o.rules_status)
        );
        match (&o.status, &o.degraded) {
            (Some(st), _) => {
                let _ = write!(h, "{} — {}", label(*st), escape(o.rationale.as_deref().unwrap_or("")));
            }
            (None, d) => {
                let _ = write!(h, "no verdict — {}", escape(d.as_deref().unwrap_or("the model gave none")));
            }
        }
        h.push_str("</p>");
    }
    h.push_str("</section>\n");
}

/// Every claim in a list, folded: also reaches a claim that has no highlight of its own
/// (one inside another's span, or one whose span is empty or outside the answer).
fn claim_list(h: &mut String, report: &Report) {
    if report.claims.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<details class=\"claims\" id=\"claims\"><summary>All claims ({})</summary><table><tr><th>claim</th><th>status</th><th>text</th></tr>",
        report.claims.len()
    );
    for c in &report.claims {
        let _ = write!(
            h,
            "<tr class=\"cref\" data-claim=\"{id}\" tabindex=\"0\"><td>{id}</td><td><span class=\"swatch {st}\">{label}</span></td><td>{text}</td></tr>",
            id = escape(&c.claim_id),
            st = c.status.as_str(),
            label = label(c.status),
            text = escape(&c.text)
        );
    }
    h.push_str("</table></details>\n");
}

/// How a policy came out. A policy passes when no `error` rule fails, so one whose `warning`
/// rules fired has passed but must not look like a clean pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    Passed,
    PassedWithWarnings,
    Failed,
}

impl Outcome {
    pub(crate) fn of(p: &PolicyResult) -> Self {
        if !p.passed {
            Self::Failed
        } else if p.violations.iter().any(|v| v.severity == Severity::Warning) {
            Self::PassedWithWarnings
        } else {
            Self::Passed
        }
    }

    /// `(class, data-result, words)`.
    const fn parts(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Passed => ("pass", "passed", "passed"),
            Self::PassedWithWarnings => ("warn", "passed_with_warnings", "passed with warnings"),
            Self::Failed => ("fail", "failed", "failed"),
        }
    }
}

/// The policy table, with the overall outcome in its heading.
fn policies(h: &mut String, report: &Report) {
    let all = report.policies.packs.iter().flat_map(|p| &p.policy_results).map(Outcome::of).max();
    let overall = match all {
        _ if !report.policies.passed => Outcome::Failed,
        Some(o) => o,
        None => Outcome::Passed,
    };
    let (class, data, words) = overall.parts();
    let _ = write!(
        h,
        "<h2>Policies <span class=\"result {class}\" id=\"policies-result\" data-result=\"{data}\">{words}</span></h2>\
<table id=\"policies\"><tr><th>pack / policy</th><th>result</th><th>violations</th></tr>"
    );
    let mut any = false;
    for pack in &report.policies.packs {
        for pol in &pack.policy_results {
            any = true;
            let (class, data, words) = Outcome::of(pol).parts();
            let _ = write!(
                h,
                "<tr data-policy=\"{p}/{q}\"><td>{p}/{q}</td><td class=\"result {class}\" data-result=\"{data}\">{words}</td><td>",
                p = escape(&pack.pack_id),
                q = escape(&pol.policy_id),
            );
            for v in &pol.violations {
                let sev = match v.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                };
                let _ = write!(h, "<div class=\"v {sev}\"><span class=\"sev\">{sev}</span>{}</div>", escape(&v.message));
            }
            for s in &pol.skipped_rules {
                let _ = write!(
                    h,
                    "<div class=\"v skipped\"><span class=\"sev\">skipped</span>{}: {}</div>",
                    escape(&s.rule_id),
                    escape(&s.reason)
                );
            }
            h.push_str("</td></tr>");
        }
    }
    if !any {
        h.push_str("<tr><td colspan=\"3\">no policy ran</td></tr>");
    }
    h.push_str("</table>\n");
}

/// The answer's Markdown as HTML, each claim's text wrapped in its highlight. `claims` are
/// byte ranges of `text` in order and disjoint, as [`claim_ranges`] gives them.
pub(crate) fn answer_html(text: &str, claims: &[(Range<usize>, &ClaimResult)]) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    // The closing markup of every open element: End events pop it, so what is closed is
    // always what was opened, whichever tag the parser names.
    let mut open: Vec<&'static str> = Vec::new();
    let mut in_head = false;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                let close = start_tag(&mut out, &tag, in_head);
                if matches!(tag, Tag::TableHead) {
                    in_head = true;
                }
                open.push(close);
            }
            Event::End(end) => {
                if end == TagEnd::TableHead {
                    in_head = false;
                }
                if let Some(close) = open.pop() {
                    out.push_str(close);
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => highlight(&mut out, text, range, &t, claims),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                out.push_str("<code>");
                highlight(&mut out, text, range, &t, claims);
                out.push_str("</code>");
            }
            Event::FootnoteReference(t) => {
                let _ = write!(out, "[^{}]", escape(&t));
            }
            // A single line break in an answer is meant as one (chat UIs show it), so it is
            // kept rather than folded into a space.
            Event::SoftBreak | Event::HardBreak => out.push_str("<br>\n"),
            Event::Rule => out.push_str("<hr>\n"),
            Event::TaskListMarker(done) => out.push_str(if done { "☑ " } else { "☐ " }),
        }
    }
    // The parser closes what it opens; this only guards the page if it ever did not.
    while let Some(close) = open.pop() {
        out.push_str(close);
    }
    out
}

/// Writes the opening markup of `tag` and returns its closing markup.
fn start_tag(out: &mut String, tag: &Tag<'_>, in_head: bool) -> &'static str {
    let (open, close): (String, &'static str) = match tag {
        Tag::Paragraph => ("<p>".into(), "</p>\n"),
        // The page's own headings are h1 and h2; the answer's start at h3.
        Tag::Heading { level, .. } => match level {
            HeadingLevel::H1 => ("<h3>".into(), "</h3>\n"),
            HeadingLevel::H2 => ("<h4>".into(), "</h4>\n"),
            HeadingLevel::H3 => ("<h5>".into(), "</h5>\n"),
            _ => ("<h6>".into(), "</h6>\n"),
        },
        Tag::BlockQuote(_) => ("<blockquote>".into(), "</blockquote>\n"),
        Tag::CodeBlock(CodeBlockKind::Fenced(lang)) if !lang.is_empty() => {
            (format!("<pre data-lang=\"{}\"><code>", escape(lang)), "</code></pre>\n")
        }
        Tag::CodeBlock(_) => ("<pre><code>".into(), "</code></pre>\n"),
        Tag::HtmlBlock => ("<div class=\"raw\">".into(), "</div>\n"),
        Tag::List(Some(1)) => ("<ol>".into(), "</ol>\n"),
        Tag::List(Some(n)) => (format!("<ol start=\"{n}\">"), "</ol>\n"),
        Tag::List(None) => ("<ul>".into(), "</ul>\n"),
        Tag::Item => ("<li>".into(), "</li>\n"),
        Tag::Table(_) => ("<table>".into(), "</table>\n"),
        Tag::TableHead => ("<thead><tr>".into(), "</tr></thead>\n"),
        Tag::TableRow => ("<tr>".into(), "</tr>\n"),
        Tag::TableCell if in_head => ("<th>".into(), "</th>"),
        Tag::TableCell => ("<td>".into(), "</td>"),
        Tag::Emphasis => ("<em>".into(), "</em>"),
        Tag::Strong => ("<strong>".into(), "</strong>"),
        Tag::Strikethrough => ("<del>".into(), "</del>"),
        // Links stay text: the report follows no link and loads nothing.
        Tag::Link { dest_url, .. } => (format!("<span class=\"link\" title=\"{}\">", escape(dest_url)), "</span>"),
        Tag::Image { dest_url, .. } => (format!("<span class=\"link\" title=\"{}\">[image: ", escape(dest_url)), "]</span>"),
        // Not enabled in the options above; a neutral inline wrapper if one ever appears.
        _ => ("<span>".into(), "</span>"),
    };
    out.push_str(&open);
    close
}

/// Writes `content` — the text of one parser event whose source is `range` of `text` —
/// escaped, with the parts that fall in a claim wrapped in that claim's highlight.
fn highlight(out: &mut String, text: &str, range: Range<usize>, content: &str, claims: &[(Range<usize>, &ClaimResult)]) {
    if content.is_empty() {
        return;
    }
    // Where `content` is in the source: usually the event's range itself; inside it for
    // inline code (after the backticks). The parser may also have changed the text
    // (`\*`, `&amp;`, a code span's folded lines): then the whole event goes to the claim
    // that covers most of its range.
    let source = text.get(range.clone()).unwrap_or("");
    let at = if source == content { Some(range.start) } else { source.find(content).map(|i| range.start + i) };
    let Some(start) = at else {
        let best = overlapping(claims, &range)
            .map(|(r, c)| (r.end.min(range.end).saturating_sub(r.start.max(range.start)), *c))
            .max_by_key(|(n, _)| *n);
        match best {
            Some((_, c)) => wrap(out, content, c),
            None => out.push_str(&escape(content)),
        }
        return;
    };
    let end = start + content.len();
    let mut pos = start;
    for (r, c) in overlapping(claims, &(start..end)) {
        let (s, e) = (r.start.max(start), r.end.min(end));
        // Offsets into `content`; both ends are char boundaries of the source, and `content`
        // equals the source there. `get` keeps a mistake from becoming a panic.
        let (Some(before), Some(inside)) = (content.get(pos - start..s - start), content.get(s - start..e - start)) else {
            break;
        };
        out.push_str(&escape(before));
        wrap(out, inside, c);
        pos = e;
    }
    out.push_str(&escape(content.get(pos - start..).unwrap_or("")));
}

/// The claims whose ranges meet `range` (the ranges are in order and disjoint).
fn overlapping<'a, 'r>(
    claims: &'a [(Range<usize>, &'r ClaimResult)],
    range: &Range<usize>,
) -> impl Iterator<Item = &'a (Range<usize>, &'r ClaimResult)> {
    let first = claims.partition_point(|(r, _)| r.end <= range.start);
    claims.get(first..).unwrap_or(&[]).iter().take_while(move |(r, _)| r.start < range.end)
}

/// One part of a claim's highlight.
fn wrap(out: &mut String, text: &str, c: &ClaimResult) {
    let _ = write!(
        out,
        "<span class=\"claim {st}\" data-claim=\"{id}\" data-status=\"{st}\" tabindex=\"0\" role=\"button\" title=\"{id}: {label} — {reason}\">{t}</span>",
        st = c.status.as_str(),
        id = escape(&c.claim_id),
        label = label(c.status),
        reason = escape(&c.reason),
        t = escape(text)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `#rrggbb` as linear-light RGB.
    fn linear(hex: &str) -> [f64; 3] {
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("00"), 16).unwrap_or(0);
        [byte(1), byte(3), byte(5)].map(|b| {
            let c = f64::from(b) / 255.0;
            if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        })
    }

    /// WCAG 2 contrast ratio.
    fn contrast(a: &str, b: &str) -> f64 {
        let lum = |h: &str| {
            let [r, g, b] = linear(h);
            0.2126 * r + 0.7152 * g + 0.0722 * b
        };
        let (x, y) = (lum(a), lum(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    /// CIE76 colour difference (ΔE*ab, D65): about 2.3 is just noticeable.
    fn delta_e(a: &str, b: &str) -> f64 {
        let lab = |h: &str| {
            let [r, g, b] = linear(h);
            let xyz = [
                (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
                0.2126 * r + 0.7152 * g + 0.0722 * b,
                (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
            ];
            let [fx, fy, fz] = xyz.map(|t| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 });
            [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
        };
        let (p, q) = (lab(a), lab(b));
        ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
    }

    #[test]
    fn claim_text_is_readable_on_every_status() {
        for s in PALETTE {
            // WCAG AAA for text on the highlight, 3:1 for the underline against the page.
            assert!(contrast(INK, s.background) >= 7.0, "{:?}: {}", s.status, contrast(INK, s.background));
            assert!(contrast(s.line, "#ffffff") >= 3.0, "{:?} underline: {}", s.status, contrast(s.line, "#ffffff"));
        }
        // The gate badges and policy results (white on the badge, or coloured text on its tint).
        for (fg, bg) in [
            ("#ffffff", "#1a7f37"),
            ("#ffffff", "#b35900"),
            ("#ffffff", "#c62828"),
            ("#11632a", "#d6f2de"),
            ("#7a4b00", "#ffe8b3"),
            ("#a11a1a", "#ffd7d7"),
        ] {
            assert!(contrast(fg, bg) >= 4.5, "{fg} on {bg}: {}", contrast(fg, bg));
        }
    }

    #[test]
    fn the_statuses_look_different() {
        let checked = |s: Status| !matches!(s, Status::Unverified | Status::NotApplicable);
        for (i, a) in PALETTE.iter().enumerate() {
            for b in PALETTE.iter().skip(i + 1) {
                let d = delta_e(a.background, b.background);
                // Clearly apart whenever a checked status is involved (partially supported
                // and unsupported were ΔE 6 apart before); the two greys may be close, but
                // then their underlines differ in colour and style.
                if checked(a.status) || checked(b.status) {
                    assert!(d >= 15.0, "{:?} vs {:?}: ΔE {d:.1}", a.status, b.status);
                } else {
                    assert!(d >= 5.0, "{:?} vs {:?}: ΔE {d:.1}", a.status, b.status);
                    assert!(a.line_style != b.line_style && delta_e(a.line, b.line) >= 15.0);
                }
            }
        }
        let styles: Vec<&str> = PALETTE.iter().filter(|s| checked(s.status)).map(|s| s.line_style).collect();
        for (i, s) in styles.iter().enumerate() {
            assert!(!styles.get(i + 1..).unwrap_or(&[]).contains(s), "each checked status has its own underline: {styles:?}");
        }
        // Every status has exactly one swatch.
        for st in [
            Status::Supported,
            Status::PartiallySupported,
            Status::Unsupported,
            Status::Contradicted,
            Status::Unverified,
            Status::NotApplicable,
        ] {
            assert_eq!(PALETTE.iter().filter(|s| s.status == st).count(), 1, "{st:?}");
            assert!(palette_css().contains(&format!(".claim.{0},.swatch.{0}{{", st.as_str())));
        }
    }

    #[test]
    fn escape_covers_markup_and_control_characters() {
        assert_eq!(escape("<a href='x'>\"&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;");
        assert_eq!(escape("a\0b\u{1}c\td\ne\u{7f}"), "a\u{FFFD}b\u{FFFD}c\td\ne\u{FFFD}");
    }

    #[test]
    fn text_the_parser_rewrote_goes_to_the_claim_covering_most_of_it() {
        // `&amp;` is read as `&`: the event's text is not its source, so it is placed whole.
        let text = "Tom &amp; Jerry";
        let like = stub();
        let claims = [(0..9, &like)];
        let html = answer_html(text, &claims);
        assert!(html.contains("data-claim=\"x\""), "{html}");
        assert!(html.starts_with("<p>"), "{html}");
    }

    fn stub() -> ClaimResult {
        ClaimResult {
            claim_id: "x".into(),
            text: "Tom & Jerry".into(),
            span: warrant_graph::Span::new(0, 9),
            modality: warrant_graph::Modality::Factual,
            status: Status::Supported,
            confidence: 1.0,
            support_edges: vec![],
            reason: String::new(),
            second_opinion: None,
            features: None,
        }
    }
}
