//! The HTML report: the answer's Markdown rendered with claim highlights that nest properly
//! (checked by running the page through html5ever's tokenizer and a nesting check), escaping,
//! the summary, and how policies with warnings are shown.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use proptest::prelude::*;
use warrant_check::html::render;
use warrant_check::{Checker, Report, Request, Summary};
use warrant_cpl::{PackResult, PolicyResult, SkippedRule, Violation};
use warrant_extract::Answer;
use warrant_graph::{Severity, Span};
use warrant_verify::{ClaimResult, Corpus, Source, Status};

const SOURCES: [(&str, &str); 2] = [
    ("pricing.md", "The Team plan costs $15 per user per month. Tokens expire after one hour."),
    ("security.md", "All data is encrypted at rest with AES-256."),
];

fn check(answer: &str, sources: &[(&str, &str)]) -> Report {
    let answer = Answer { text: answer.into(), tool_calls: vec![], context: None, id: None };
    let corpus = Corpus::new(sources.iter().map(|(id, text)| Source::new(*id, *text)).collect());
    Checker::default().check(&Request { answer: &answer, question: None, output_id: Some("t1".into()) }, &corpus).unwrap()
}

/// A claim with the given id, status and char span (the rest copied from `like`).
fn claim(like: &ClaimResult, id: &str, status: Status, span: (u64, u64)) -> ClaimResult {
    let mut c = like.clone();
    c.claim_id = id.into();
    c.status = status;
    c.span = Span::new(span.0, span.1);
    c.reason = format!("reason for {id}");
    c.support_edges.clear();
    c.second_opinion = None;
    c
}

/// The char span from the start of `from` to the end of `to` (both first occurrences).
fn span(text: &str, from: &str, to: &str) -> (u64, u64) {
    let s = text.find(from).unwrap();
    let e = s + text[s..].find(to).unwrap() + to.len();
    (text[..s].chars().count() as u64, text[..e].chars().count() as u64)
}

/// One run of text in the page: the open elements around it (outermost first, as
/// `name` or `name.class`), the claim it is highlighted as, and the text.
#[derive(Debug, Clone)]
struct Run {
    path: Vec<String>,
    claim: Option<String>,
    text: String,
}

#[derive(Default)]
struct Page {
    runs: Vec<Run>,
    errors: Vec<String>,
    stack: Vec<(String, Option<String>, String)>,
    /// Start tags seen: name and attributes.
    starts: Vec<(String, Vec<(String, String)>)>,
    /// Start tags seen inside the answer, by name.
    answer_starts: Vec<String>,
}

const VOID: &[&str] = &["meta", "br", "hr", "img", "input", "link", "wbr"];
const BLOCK: &[&str] = &[
    "p",
    "div",
    "ul",
    "ol",
    "li",
    "pre",
    "table",
    "tr",
    "td",
    "th",
    "thead",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "section",
    "details",
    "summary",
];
const PHRASING: &[&str] = &["span", "strong", "em", "code", "del", "small", "p", "h1", "h2", "h3", "h4", "h5", "h6"];

struct Sink(RefCell<Page>);

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut p = self.0.borrow_mut();
        match token {
            Token::TagToken(tag) => {
                let name = tag.name.to_string();
                let attr = |n: &str| tag.attrs.iter().find(|a| &*a.name.local == n).map(|a| a.value.to_string());
                if tag.kind == TagKind::StartTag {
                    p.starts.push((
                        name.clone(),
                        tag.attrs.iter().map(|a| (a.name.local.to_string(), a.value.to_string())).collect(),
                    ));
                    if p.stack.iter().any(|(_, _, l)| l == "div.answer") {
                        p.answer_starts.push(name.clone());
                    }
                    if p.stack.iter().any(|(_, claim, _)| claim.is_some()) {
                        p.errors.push(format!("<{name}> inside a claim highlight"));
                    }
                    if BLOCK.contains(&name.as_str())
                        && let Some(outer) = p.stack.iter().map(|(n, _, _)| n.clone()).find(|n| PHRASING.contains(&n.as_str()))
                    {
                        p.errors.push(format!("block <{name}> inside <{outer}>"));
                    }
                    if VOID.contains(&name.as_str()) {
                        return TokenSinkResult::Continue;
                    }
                    let class = attr("class");
                    let claim = if class.as_deref().is_some_and(|c| c.split(' ').next() == Some("claim")) {
                        attr("data-claim")
                    } else {
                        None
                    };
                    let label = match class.as_deref().and_then(|c| c.split(' ').next()) {
                        Some(c) => format!("{name}.{c}"),
                        None => name.clone(),
                    };
                    p.stack.push((name.clone(), claim, label));
                    return match name.as_str() {
                        "script" => TokenSinkResult::RawData(RawKind::ScriptData),
                        "style" => TokenSinkResult::RawData(RawKind::Rawtext),
                        "title" => TokenSinkResult::RawData(RawKind::Rcdata),
                        _ => TokenSinkResult::Continue,
                    };
                }
                match p.stack.pop() {
                    Some((open, _, _)) if open == name => {}
                    other => p.errors.push(format!("</{name}> closes {other:?}")),
                }
            }
            Token::CharacterTokens(t) => {
                let claim = p.stack.iter().rev().find_map(|(_, c, _)| c.clone());
                let path = p.stack.iter().map(|(_, _, l)| l.clone()).collect();
                p.runs.push(Run { path, claim, text: t.to_string() });
            }
            Token::ParseError(e) => p.errors.push(format!("parse error: {e}")),
            Token::NullCharacterToken => p.errors.push("NUL".into()),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// Tokenizes the page and checks it: no parse error, every element closed in order, no block
/// inside an inline element or paragraph, nothing but text inside a claim highlight.
fn parse(html: &str) -> Page {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tok = Tokenizer::new(Sink(RefCell::new(Page::default())), TokenizerOpts::default());
    let _ = tok.feed(&input);
    tok.end();
    let mut page = tok.sink.0.into_inner();
    if !page.stack.is_empty() {
        let open: Vec<_> = page.stack.iter().map(|(n, _, _)| n.clone()).collect();
        page.errors.push(format!("unclosed: {open:?}"));
    }
    page
}

fn well_formed(html: &str) -> Page {
    let page = parse(html);
    assert!(page.errors.is_empty(), "{:?}\n{html}", page.errors);
    page
}

impl Page {
    /// The runs inside the answer.
    fn answer(&self) -> Vec<&Run> {
        self.runs.iter().filter(|r| r.path.iter().any(|p| p == "div.answer")).collect()
    }

    /// The text highlighted as `claim`, in order.
    fn claim_text(&self, claim: &str) -> String {
        self.answer().iter().filter(|r| r.claim.as_deref() == Some(claim)).map(|r| r.text.as_str()).collect()
    }

    /// The runs highlighted as `claim`.
    fn claim_runs(&self, claim: &str) -> Vec<&Run> {
        self.answer().into_iter().filter(|r| r.claim.as_deref() == Some(claim)).collect()
    }

    /// The text inside the elements labelled `label` (`name` or `name.class`).
    fn text_in(&self, label: &str) -> String {
        self.runs.iter().filter(|r| r.path.iter().any(|p| p == label)).map(|r| r.text.as_str()).collect()
    }

    fn count_starts(&self, name: &str) -> usize {
        self.starts.iter().filter(|(n, _)| n == name).count()
    }

    fn count_in_answer(&self, name: &str) -> usize {
        self.answer_starts.iter().filter(|n| *n == name).count()
    }
}

const MARKDOWN: &str = "# Team plan\n\n\
The **Team plan costs $12** per user per month, and it *includes* `SSO` login.\n\n\
- Tokens expire after **one hour**.\n\
- Data is encrypted with AES-256.\n\n\
1. Run `warrant check`.\n\
2. Open the report.\n\n\
```sh\nwarrant check --format html\n```\n";

#[test]
fn markdown_renders_with_claims_highlighted_inside_it() {
    let mut report = check(MARKDOWN, &SOURCES);
    let like = report.claims[0].clone();
    report.claims = vec![
        // Starts inside **bold**, ends outside it.
        claim(&like, "k1", Status::Supported, span(MARKDOWN, "Team plan costs", "per user")),
        // Starts inside *emphasis*, runs through inline code.
        claim(&like, "k2", Status::PartiallySupported, span(MARKDOWN, "includes*", "login")),
        // Crosses from one list item into the next.
        claim(&like, "k3", Status::Unsupported, span(MARKDOWN, "one hour**", "Data is")),
        // Inside the fenced code block.
        claim(&like, "k4", Status::Contradicted, span(MARKDOWN, "--format", "html\n")),
        // Wholly inside k4: no highlight of its own, but listed.
        claim(&like, "k5", Status::Unverified, span(MARKDOWN, "format", "format")),
        // Out of range and reversed spans: no highlight, no panic.
        claim(&like, "k6", Status::NotApplicable, (10_000, 10_010)),
        claim(&like, "k7", Status::NotApplicable, (40, 20)),
    ];
    report.summary = Summary::of(&report.claims);
    let html = render(&report);
    let page = well_formed(&html);

    // The Markdown elements, at the answer's heading levels.
    for (name, n) in [("h3", 1), ("strong", 2), ("em", 1), ("ul", 1), ("ol", 1), ("li", 4), ("pre", 1)] {
        assert_eq!(page.count_in_answer(name), n, "<{name}>");
    }
    assert!(page.starts.iter().any(|(n, a)| n == "pre" && a.contains(&("data-lang".into(), "sh".into()))));
    let heading: String = page.answer().iter().filter(|r| r.path.contains(&"h3".to_string())).map(|r| r.text.as_str()).collect();
    assert_eq!(heading, "Team plan");
    let code: Vec<String> =
        page.answer().iter().filter(|r| r.path.last().is_some_and(|p| p == "code")).map(|r| r.text.clone()).collect();
    assert_eq!(code, ["warrant check", "warrant check "], "code outside claims");

    // Each claim's highlighted text, syntax left out, and where its parts sit.
    assert_eq!(page.claim_text("k1"), "Team plan costs $12 per user");
    let k1 = page.claim_runs("k1");
    assert!(k1[0].path.contains(&"strong".to_string()), "{k1:?}");
    assert!(!k1.last().unwrap().path.contains(&"strong".to_string()), "{k1:?}");

    assert_eq!(page.claim_text("k2"), "includes SSO login");
    let k2 = page.claim_runs("k2");
    assert!(k2[0].path.contains(&"em".to_string()), "{k2:?}");
    assert!(k2.iter().any(|r| r.text == "SSO" && r.path.contains(&"code".to_string())), "{k2:?}");

    assert_eq!(page.claim_text("k3"), "one hour.Data is");
    let items: Vec<usize> = page.claim_runs("k3").iter().map(|r| r.path.iter().filter(|p| *p == "li").count()).collect();
    assert!(items.iter().all(|n| *n == 1), "every part inside one list item: {items:?}");

    assert_eq!(page.claim_text("k4"), "--format html\n");
    assert!(page.claim_runs("k4").iter().all(|r| r.path.ends_with(&["pre".into(), "code".into(), "span.claim".into()])));

    for id in ["k5", "k6", "k7"] {
        assert_eq!(page.claim_text(id), "", "{id} has no highlight");
    }
    // Every claim is still in the list and has its evidence panel.
    for id in ["k1", "k2", "k3", "k4", "k5", "k6", "k7"] {
        assert!(html.contains(&format!("<tr class=\"cref\" data-claim=\"{id}\"")), "{id} listed");
        assert!(html.contains(&format!("<section class=\"evidence\" id=\"ev-{id}\">")), "{id} panel");
    }
    // The contract the deep link and scripts rely on.
    assert!(html.contains("<span class=\"claim supported\" data-claim=\"k1\" data-status=\"supported\""));
    // The text outside claims is all there too.
    let all: String = page.answer().iter().map(|r| r.text.as_str()).collect();
    assert!(all.contains("The Team plan costs $12 per user per month, and it includes SSO login."), "{all}");
}

#[test]
fn the_same_report_renders_the_same_bytes() {
    let report = check(MARKDOWN, &SOURCES);
    assert_eq!(render(&report), render(&report));
    assert_eq!(render(&report), render(&check(MARKDOWN, &SOURCES)));
}

#[test]
fn html_in_the_answer_and_in_quotes_is_escaped() {
    let answer = "The Team plan costs $12 per user per month. <script>alert('a')</script>\n\n\
<div onclick=\"x()\">raw block</div>\n\nTom & Jerry said \"a < b\" [click](javascript:alert(1)) ![img](http://example.com/x.png)";
    let mut report = check(answer, &SOURCES);
    let like = report.claims[0].clone();
    let mut quoted = claim(&like, "k1", Status::Contradicted, span(answer, "The Team", "<script>"));
    let mut edge = report.claims.iter().flat_map(|c| c.support_edges.clone()).next().unwrap_or_else(|| panic!("no edge"));
    edge.selector.exact = "costs $15 <script>alert('q')</script> & \"more\"".into();
    edge.source_id = "<b>src</b>".into();
    quoted.support_edges = vec![edge];
    quoted.reason = "the source says <img src=x onerror=y>".into();
    report.claims = vec![quoted];
    report.output_id = "<i>id</i>".into();
    let html = render(&report);
    let page = well_formed(&html);

    assert_eq!(page.count_starts("script"), 1, "only the page's own script");
    for tag in ["div", "img", "i", "b", "a"] {
        assert!(!page.starts.iter().any(|(n, a)| n == tag && a.iter().any(|(k, _)| k == "onclick" || k == "src" || k == "href")));
    }
    assert_eq!(page.count_starts("img"), 0);
    assert_eq!(page.count_starts("i"), 0);
    assert_eq!(page.count_starts("b"), 0);
    assert_eq!(page.count_starts("a"), 0);
    // Shown as text: the script in the answer (inside the claim), the raw block, the quote.
    assert_eq!(page.claim_text("k1"), "The Team plan costs $12 per user per month. <script>");
    let answer_text: String = page.answer().iter().map(|r| r.text.as_str()).collect();
    assert!(answer_text.contains("<div onclick=\"x()\">raw block</div>"), "{answer_text}");
    assert!(answer_text.contains("Tom & Jerry said \"a < b\" click [image: img]"), "{answer_text}");
    assert!(html.contains("costs $15 &lt;script&gt;alert(&#39;q&#39;)&lt;/script&gt; &amp; &quot;more&quot;"));
    assert!(html.contains("&lt;b&gt;src&lt;/b&gt;"));
    assert!(html.contains("the source says &lt;img src=x onerror=y&gt;"));
    // No link is followable and nothing loads.
    assert!(!html.contains("href="));
    assert!(!html.contains("src=\""));
}

fn policy(id: &str, passed: bool, violations: &[Severity], skipped: bool) -> PolicyResult {
    PolicyResult {
        policy_id: id.into(),
        passed,
        violations: violations
            .iter()
            .enumerate()
            .map(|(i, s)| Violation {
                rule_id: format!("r{i}"),
                node_id: None,
                message: format!("{id}/r{i} failed on graph: {s:?}"),
                severity: *s,
                diagnostics: vec![],
            })
            .collect(),
        skipped_rules: if skipped {
            vec![SkippedRule { rule_id: "needs-tools".into(), reason: "no tool calls".into() }]
        } else {
            vec![]
        },
    }
}

/// The result cell of each policy row: (data-result, text).
fn results(page: &Page) -> Vec<(String, String)> {
    let cells: Vec<String> = page
        .starts
        .iter()
        .filter(|(n, a)| n == "td" && a.iter().any(|(k, _)| k == "data-result"))
        .map(|(_, a)| a.iter().find(|(k, _)| k == "data-result").unwrap().1.clone())
        .collect();
    let words: Vec<String> =
        page.runs.iter().filter(|r| r.path.last().is_some_and(|p| p.starts_with("td.result"))).map(|r| r.text.clone()).collect();
    cells.into_iter().zip(words).collect()
}

#[test]
fn a_policy_with_only_warnings_is_passed_with_warnings() {
    let mut report = check("The Team plan costs $15 per user per month.", &SOURCES);
    report.policies.passed = true;
    report.policies.packs = vec![PackResult {
        pack_id: "p".into(),
        passed: true,
        policy_results: vec![
            policy("clean", true, &[], false),
            policy("warned", true, &[Severity::Warning, Severity::Info], true),
            policy("noted", true, &[Severity::Info], false),
        ],
    }];
    let html = render(&report);
    let page = well_formed(&html);
    assert_eq!(
        results(&page),
        [
            ("passed".into(), "passed".into()),
            ("passed_with_warnings".into(), "passed with warnings".into()),
            ("passed".into(), "passed".into())
        ]
    );
    assert!(html.contains("<td class=\"result warn\" data-result=\"passed_with_warnings\">passed with warnings</td>"));
    assert!(html.contains("id=\"policies-result\" data-result=\"passed_with_warnings\">passed with warnings<"));
    // The skipped rule and both violations stay listed.
    assert!(html.contains("<span class=\"sev\">skipped</span>needs-tools: no tool calls"));
    assert!(html.contains("<div class=\"v warning\"><span class=\"sev\">warning</span>warned/r0 failed on graph: Warning</div>"));
    assert!(html.contains("<div class=\"v info\"><span class=\"sev\">info</span>warned/r1"));

    // An error fails the policy and the whole run, whatever else it has.
    report.policies.passed = false;
    report.policies.packs[0].policy_results.push(policy("broken", false, &[Severity::Warning, Severity::Error], false));
    let page = well_formed(&render(&report));
    assert_eq!(results(&page).last().unwrap(), &("failed".to_string(), "failed".to_string()));
    assert!(render(&report).contains("id=\"policies-result\" data-result=\"failed\">failed<"));

    // A clean run is passed.
    report.policies.packs[0].policy_results.truncate(1);
    report.policies.passed = true;
    assert!(render(&report).contains("id=\"policies-result\" data-result=\"passed\">passed<"));
}

#[test]
fn the_summary_is_near_the_gate() {
    let answer = "The Team plan costs $12 per user per month. Tokens expire after one hour. The office has a cat.";
    let report = check(answer, &SOURCES);
    let s = report.summary;
    let score = s.support_score.unwrap();
    let html = render(&report);
    let page = well_formed(&html);
    let gate = html.find("id=\"gate\"").unwrap();
    let summary = html.find("id=\"summary\"").unwrap();
    let answer_at = html.find("id=\"answer\"").unwrap();
    assert!(gate < summary && summary < answer_at, "the summary follows the gate, before the answer");
    let text = page.text_in("div.summary");
    let checked = s.supported + s.partially_supported + s.unsupported + s.contradicted;
    assert!(text.starts_with(&format!("support score {score} {} of {checked} checked claim", s.supported)), "{text}");
    assert!(text.contains(&format!("{} claims:", s.claims)), "{text}");
    for (st, n) in [("supported", s.supported), ("contradicted", s.contradicted), ("unsupported", s.unsupported)] {
        if n > 0 {
            assert!(html.contains(&format!("data-status=\"{st}\" data-count=\"{n}\">{n} {st}</span>")), "{st}: {text}");
        }
    }
    assert!(html.contains(&format!("data-support-score=\"{score}\"")));

    // No sources: nothing could be checked, and the summary says so.
    let report = check(answer, &[]);
    assert_eq!(report.summary.support_score, None);
    let html = render(&report);
    let page = well_formed(&html);
    assert!(page.text_in("div.summary").starts_with("no claim could be checked"), "{}", page.text_in("div.summary"));
    assert!(html.contains("data-support-score=\"none\""));
}

/// Pieces of Markdown syntax and awkward text, for random answers.
const BITS: &[&str] = &[
    "*",
    "**",
    "_",
    "`",
    "```\n",
    "~~~",
    "\n",
    "\n\n",
    "- ",
    "1. ",
    "# ",
    "> ",
    "| a | b |\n|---|---|\n",
    "---\n",
    "<",
    ">",
    "&",
    "&amp;",
    "\\",
    "[",
    "](",
    ")",
    "![",
    "é",
    "😀",
    "a",
    "word ",
    "<script>",
    "</p>",
    "<div>",
    " ",
    "    ",
    "\t",
    "\0",
    "\u{1}",
    "~~",
    "[ ] ",
    "[x] ",
    "\r\n",
    "<!--",
    "-->",
    "\"",
    "'",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn any_answer_and_any_spans_render_well_formed(
        bits in prop::collection::vec(0..BITS.len(), 0..60),
        spans in prop::collection::vec((0u64..120, 0u64..120, any::<bool>()), 0..8),
    ) {
        thread_local! {
            static TEMPLATE: Report = check("The Team plan costs $15 per user per month.", &SOURCES);
        }
        let text: String = bits.iter().map(|i| BITS[*i]).collect();
        let html = TEMPLATE.with(|t| {
            let mut report = t.clone();
            let like = report.claims[0].clone();
            report.claims = spans
                .iter()
                .enumerate()
                .map(|(i, (s, e, huge))| claim(&like, &format!("c{i}"), Status::Contradicted, if *huge { (*s, u64::MAX) } else { (*s, *e) }))
                .collect();
            report.graph.text = text.clone();
            render(&report)
        });
        let page = parse(&html);
        prop_assert!(page.errors.is_empty(), "{:?}\n{:?}", page.errors, text);
        prop_assert_eq!(page.count_starts("script"), 1);
    }
}

#[test]
fn the_well_formedness_check_catches_broken_markup() {
    for bad in [
        "<p><span>x</p></span>",
        "<span><div>x</div></span>",
        "<p><ul><li>x</li></ul></p>",
        "<div><span class=\"claim supported\" data-claim=\"c1\"><em>x</em></span></div>",
        "<div>",
        "<p>a < b</p>",
    ] {
        assert!(!parse(bad).errors.is_empty(), "{bad}");
    }
    assert!(parse("<div><p>a &lt; <span class=\"claim x\" data-claim=\"c1\">b</span><br></p></div>").errors.is_empty());
}
