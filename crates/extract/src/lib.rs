//! Model output → PredicateGraph 1.0.0, deterministically.
//!
//! [`extract`] reads an [`Answer`] (see `input` for the shapes users have) and produces a
//! graph whose every node's span points at the exact text it came from:
//!
//! - `markdown`: code blocks, reference lists and the prose between them;
//! - `tool_calls`: structured calls, fenced JSON calls and call syntax in the text;
//! - `claims`: sentence- and clause-level claims with modality and domain;
//! - `entities`: typed entities with normalised values;
//! - `operations`: arithmetic (annotations, symbolic, prose);
//! - `citations`: URLs, references, author–year, "according to";
//! - `discourse`: the ten discourse-act types and their nesting;
//! - `llm`: the optional model-backed extractors (claims of a graph, facts on ingest).
//!
//! Structured tool calls have no place in the assistant's text, so the graph text is the
//! assistant text followed by one line per structured call, written `name(<arguments as
//! emitted>)`; each call's span covers its line. Prose nodes come only from the assistant
//! text.

#![warn(missing_docs)]

/// The extraction stages are internal; the `stages` feature makes them public for the
/// per-stage timing tool (`examples/stage_timing.rs`) and nothing else.
macro_rules! stage_modules {
    ($($m:ident),*) => {$(
        #[cfg(feature = "stages")]
        #[allow(missing_docs)]
        pub mod $m;
        #[cfg(not(feature = "stages"))]
        mod $m;
    )*};
}
stage_modules!(citations, claims, discourse, entities, markdown, operations, tool_calls);
mod input;
mod llm;

use std::ops::Range;

use serde_json::{Map, Value};
use warrant_graph::{
    Citation, CitationSource, Claim, CodeBlock, DiscourseAct, DiscourseType, Entity, Modality, Operation, PredicateGraph,
    SCHEMA_VERSION, Span, ToolCall,
};
use warrant_text::OffsetMap;

pub use claims::{continues_speaker, personal, speaker_is_subject};
pub use input::{
    Answer, CallArguments, DEFAULT_MAX_BYTES, InputError, InputFormat, StructuredCall, add_tools, answer_from_value,
    merge_context, parse_input,
};
pub use llm::{LlmFactExtractor, extract_with_llm, facts, graph};
pub use operations::{split_equation, symbolic};

/// Key under which a malformed arguments string is kept, raw, in a tool call's arguments.
pub const UNPARSED_ARGUMENTS: &str = "_unparsed_arguments";

/// Extraction settings.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `output_id` of the graph; defaults to the input's id, else `out-<hash of the text>`.
    pub output_id: Option<String>,
}

/// A graph and what the extractor noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The graph.
    pub graph: PredicateGraph,
    /// Things worth telling the user (malformed arguments, unreadable annotations, …).
    /// They are also recorded in `context.extraction_diagnostics`.
    pub diagnostics: Vec<String>,
}

struct DraftClaim {
    range: Range<usize>,
    modality: Modality,
    domain: Option<&'static str>,
    sentence: Range<usize>,
}

struct DraftAct {
    range: Range<usize>,
    kind: DiscourseType,
    children: Vec<usize>,
}

struct DraftCall {
    range: Range<usize>,
    name: String,
    arguments: Map<String, Value>,
}

/// Names of tools the context offers (`tools_available`, `tool_schemas`).
fn known_tools(ctx: Option<&Map<String, Value>>) -> Vec<String> {
    let mut out = Vec::new();
    let Some(ctx) = ctx else { return out };
    if let Some(list) = ctx.get("tools_available").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
    }
    if let Some(list) = ctx.get("tool_schemas").and_then(Value::as_array) {
        out.extend(list.iter().filter_map(|t| t.get("function").unwrap_or(t).get("name")?.as_str().map(str::to_string)));
    }
    out
}

/// A node id such as `e12`: the prefix and a number, without the formatting machinery (a graph
/// has one per node and reference; `format!` was a measurable share of extraction).
fn node_id(prefix: &str, n: usize) -> String {
    let mut s = String::with_capacity(prefix.len() + 20);
    s.push_str(prefix);
    warrant_text::number::push_decimal(&mut s, n as u64);
    s
}

fn line_of(text: &str, r: &Range<usize>) -> Range<usize> {
    let start = text[..r.start].rfind('\n').map_or(0, |p| p + 1);
    let end = text[r.end..].find('\n').map_or(text.len(), |p| r.end + p);
    start..end
}

/// Extracts a PredicateGraph from an answer.
pub fn extract(answer: &Answer, opts: &Options) -> Extraction {
    let mut diagnostics = Vec::new();
    let content_len = answer.text.len();
    let mut text = answer.text.clone();
    let structured = render_structured_calls(answer, &mut text, &mut diagnostics);
    let content = &text[..content_len];
    let blocks = markdown::scan(content);
    let known = known_tools(answer.context.as_ref());
    let (code_blocks, mut calls, prose) = split_calls_and_code(content, &blocks, &known);
    calls.extend(structured);
    let paragraphs = paragraphs(content, &prose);
    let sentences: Vec<Range<usize>> = paragraphs.iter().flatten().cloned().collect();
    let kinds: Vec<Vec<DiscourseType>> =
        paragraphs.iter().map(|para| para.iter().map(|s| discourse::classify(&content[s.clone()])).collect()).collect();
    let claims = draft_claims(content, &paragraphs, &kinds);
    let acts = draft_acts(content, &paragraphs, &kinds);

    // Operations, entities, citations.
    let (operations, bad_annotations) = operations::find(content, &prose);
    for r in bad_annotations {
        diagnostics
            .push(format!("calculator annotation {:?} has no evaluable `expression=result`; not an operation", &content[r]));
    }
    let entities = entities::find(content, &prose, &sentences);
    let mut citations: Vec<(citations::FoundCitation, usize)> = Vec::new();
    for r in &prose {
        for c in citations::find(content, r.clone(), &blocks.references) {
            match attach(&claims, &c.range) {
                Some(k) => citations.push((c, k)),
                None => diagnostics.push(format!("citation {:?} has no claim to support; dropped", &content[c.range.clone()])),
            }
        }
    }
    let drafts = Drafts { entities, claims, operations, calls, citations, code_blocks, acts };
    let mut g = assemble(answer, opts, &text, drafts);
    let mut context = answer.context.clone();
    if !diagnostics.is_empty() {
        context
            .get_or_insert_with(Map::new)
            .insert("extraction_diagnostics".into(), Value::Array(diagnostics.iter().cloned().map(Value::String).collect()));
    }
    g.context = context;
    Extraction { graph: g, diagnostics }
}

/// Structured calls, rendered after the text one line each (`name(<arguments>)`); arguments
/// that are not a JSON object are kept raw, with a diagnostic.
fn render_structured_calls(answer: &Answer, text: &mut String, diagnostics: &mut Vec<String>) -> Vec<DraftCall> {
    let mut calls = Vec::new();
    for (i, call) in answer.tool_calls.iter().enumerate() {
        let (rendered, arguments) = match &call.arguments {
            CallArguments::Object(m) => (serde_json::to_string(m).unwrap_or_default(), m.clone()),
            CallArguments::Raw(raw) => match serde_json::from_str::<Value>(raw) {
                Ok(Value::Object(m)) => (raw.clone(), m),
                Ok(other) => {
                    diagnostics.push(format!(
                        "tool call {} ({}): arguments are JSON but not an object ({other}); kept raw",
                        i + 1,
                        call.name
                    ));
                    (raw.clone(), Map::from_iter([(UNPARSED_ARGUMENTS.to_string(), Value::String(raw.clone()))]))
                }
                Err(e) => {
                    diagnostics.push(format!(
                        "tool call {} ({}): arguments are not valid JSON ({e}); kept raw",
                        i + 1,
                        call.name
                    ));
                    (raw.clone(), Map::from_iter([(UNPARSED_ARGUMENTS.to_string(), Value::String(raw.clone()))]))
                }
            },
        };
        if !text.is_empty() {
            text.push_str(if i == 0 { "\n\n" } else { "\n" });
        }
        let start = text.len();
        text.push_str(&call.name);
        text.push('(');
        text.push_str(&rendered);
        text.push(')');
        calls.push(DraftCall { range: start..text.len(), name: call.name.clone(), arguments });
    }
    calls
}

/// The code blocks, the calls written in the text (fenced JSON that is plainly a call, and
/// call-syntax lines in the prose), in text order, and the prose that remains.
fn split_calls_and_code(
    content: &str,
    blocks: &markdown::Blocks,
    known: &[String],
) -> (Vec<markdown::CodeSpan>, Vec<DraftCall>, Vec<Range<usize>>) {
    let mut code_blocks = Vec::new();
    let mut text_calls: Vec<DraftCall> = Vec::new();
    for cb in &blocks.code {
        let body = &content[cb.code.clone()];
        let json_like = cb.lang.as_deref().is_none_or(|l| l == "json" || l == "jsonc");
        let parsed = if json_like { serde_json::from_str::<Value>(body).ok() } else { None };
        let found: Option<Vec<(String, Map<String, Value>)>> = match &parsed {
            Some(Value::Array(items)) if !items.is_empty() => items.iter().map(tool_calls::json_call).collect(),
            Some(v) => tool_calls::json_call(v).map(|c| vec![c]),
            None => None,
        };
        match found {
            Some(list) => {
                text_calls.extend(list.into_iter().map(|(name, arguments)| DraftCall { range: cb.code.clone(), name, arguments }))
            }
            None => code_blocks.push(cb.clone()),
        }
    }
    let mut excluded = blocks.non_prose.clone();
    for r in markdown::complement(content.len(), &blocks.non_prose) {
        for c in tool_calls::call_lines(content, r, known) {
            excluded.push(line_of(content, &c.range));
            text_calls.push(DraftCall { range: c.range, name: c.name, arguments: c.arguments });
        }
    }
    excluded.sort_by_key(|r| r.start);
    let prose = markdown::complement(content.len(), &excluded);
    text_calls.sort_by_key(|c| c.range.start);
    (code_blocks, text_calls, prose)
}

/// The prose's sentences, per paragraph (headings, table rows and sentences without a letter
/// or digit left out).
fn paragraphs(content: &str, prose: &[Range<usize>]) -> Vec<Vec<Range<usize>>> {
    let mut paragraphs: Vec<Vec<Range<usize>>> = Vec::new();
    for r in prose {
        for p in warrant_text::segment::paragraphs(&content[r.clone()]) {
            let p = r.start + p.start..r.start + p.end;
            let sents: Vec<Range<usize>> = warrant_text::segment::sentences_in_casual(content, p)
                .into_iter()
                .filter(|s| {
                    let t = content[s.clone()].trim_start();
                    !t.starts_with('#') && !t.starts_with('|') && t.chars().any(char::is_alphanumeric)
                })
                .collect();
            if !sents.is_empty() {
                paragraphs.push(sents);
            }
        }
    }
    paragraphs
}

/// The claims: the clauses of every sentence that states something (not phatic, not a
/// question, not a list's lead-in, not about the answer or its sources).
fn draft_claims(content: &str, paragraphs: &[Vec<Range<usize>>], kinds: &[Vec<DiscourseType>]) -> Vec<DraftClaim> {
    let mut claims: Vec<DraftClaim> = Vec::new();
    for (para, kinds) in paragraphs.iter().zip(kinds) {
        for (s, kind) in para.iter().zip(kinds) {
            let whole = &content[s.clone()];
            let question = whole.trim_end().ends_with('?');
            // "Did you know that X?" states X: its claims are X's.
            let asserted = question.then(|| claims::asserted_by_question(whole)).flatten();
            let asked = s.start + whole.trim_end().trim_end_matches('?').trim_end().len();
            let s = &asserted.map_or(s.clone(), |at| s.start + at..asked.max(s.start + at));
            let st = &content[s.clone()];
            if discourse::is_phatic(*kind)
                || question && asserted.is_none()
                || discourse::introduces_list(st)
                || claims::is_meta(st)
                || claims::is_about_sources(st)
            {
                continue;
            }
            let sentence_cues = claims::cues(st);
            // The domain is the sentence's: computed once for all its clauses.
            let mut sentence_domain: Option<Option<&'static str>> = None;
            // The previous clause of the sentence was the speaker's own ("i recently read the
            // book and was disappointed by the ending"): a clause that opens with its verb
            // continues it.
            let mut speakers = false;
            for c in claims::clauses(content, s.clone()) {
                let r = claims::tidy(content, c);
                let ct = &content[r.clone()];
                let words = ct.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
                let lower = ct.to_lowercase();
                if words < 2 || lower.starts_with("source") || lower.starts_with("reference") {
                    continue;
                }
                let mut modality = claims::modality_with(ct, st, &sentence_cues);
                let inherits = speakers && claims::continues_speaker(ct);
                if inherits {
                    modality = Modality::Opinion;
                }
                speakers = modality == Modality::Opinion && (inherits || claims::speaker_is_subject(ct));
                claims.push(DraftClaim {
                    range: r,
                    modality,
                    domain: *sentence_domain.get_or_insert_with(|| claims::domain(st)),
                    sentence: s.clone(),
                });
            }
        }
    }
    claims
}

/// The discourse acts: one per sentence, except that a list's lead-in (or a paragraph's
/// summary lead) spans its paragraph with the sentences after it as children.
fn draft_acts(content: &str, paragraphs: &[Vec<Range<usize>>], kinds: &[Vec<DiscourseType>]) -> Vec<DraftAct> {
    let mut acts: Vec<DraftAct> = Vec::new();
    for (para, kinds) in paragraphs.iter().zip(kinds) {
        let n = para.len();
        let mut i = 0;
        while i < n {
            let lead = &content[para[i].clone()];
            let summary_lead = i == 0 && kinds[0] == DiscourseType::Summary && n > 1;
            if (discourse::introduces_list(lead) && i + 1 < n) || summary_lead {
                let parent = acts.len();
                acts.push(DraftAct { range: para[i].start..para[n - 1].end, kind: kinds[i], children: Vec::new() });
                for j in i + 1..n {
                    let child = acts.len();
                    acts.push(DraftAct { range: para[j].clone(), kind: kinds[j], children: Vec::new() });
                    acts[parent].children.push(child);
                }
                // A lead-in like "Do this:" over instructions is itself an instruction.
                let child_kinds: Vec<DiscourseType> = acts[parent].children.iter().map(|&c| acts[c].kind).collect();
                if acts[parent].kind == DiscourseType::Assertion
                    && child_kinds.iter().filter(|k| **k == DiscourseType::Instruction).count() * 2 > child_kinds.len()
                {
                    acts[parent].kind = DiscourseType::Instruction;
                }
                i = n;
            } else {
                acts.push(DraftAct { range: para[i].clone(), kind: kinds[i], children: Vec::new() });
                i += 1;
            }
        }
    }
    acts
}

/// Everything found, by byte range, before ids and char spans are given.
struct Drafts {
    entities: Vec<entities::FoundEntity>,
    claims: Vec<DraftClaim>,
    operations: Vec<operations::FoundOperation>,
    calls: Vec<DraftCall>,
    citations: Vec<(citations::FoundCitation, usize)>,
    code_blocks: Vec<markdown::CodeSpan>,
    acts: Vec<DraftAct>,
}

/// The graph: every draft with its id and char span; claims list the entities inside them,
/// acts the claims inside them.
fn assemble(answer: &Answer, opts: &Options, text: &str, d: Drafts) -> PredicateGraph {
    let map = OffsetMap::new(text);
    let span = |r: &Range<usize>| {
        let s = map.span_of(r.start, r.end);
        Span::new(s.start as u64, s.end as u64)
    };
    let mut g = PredicateGraph::empty(output_id(answer, opts, text), text.to_string());
    g.schema_version = SCHEMA_VERSION.to_string();
    let entity_ranges: Vec<Range<usize>> = d.entities.iter().map(|e| e.range.clone()).collect();
    g.entities = d
        .entities
        .into_iter()
        .enumerate()
        .map(|(i, e)| Entity {
            id: node_id("e", i + 1),
            text: text[e.range.clone()].to_string(),
            kind: e.kind.to_string(),
            span: span(&e.range),
            attributes: e.attributes,
        })
        .collect();
    g.claims = d
        .claims
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let refs = ids_within(&entity_ranges, &c.range, "e");
            Claim {
                id: node_id("c", i + 1),
                text: text[c.range.clone()].to_string(),
                modality: c.modality,
                domain: c.domain.map(str::to_string),
                span: span(&c.range),
                entity_refs: (!refs.is_empty()).then_some(refs),
                evidence: None,
            }
        })
        .collect();
    g.operations = d
        .operations
        .into_iter()
        .enumerate()
        .map(|(i, o)| Operation {
            id: node_id("op", i + 1),
            kind: "arithmetic".into(),
            span: span(&o.range),
            operator: o.operator,
            operands: o.operands,
            result: o.result,
        })
        .collect();
    g.tool_calls = d
        .calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall { id: node_id("tc", i + 1), span: span(&c.range), name: c.name, arguments: c.arguments })
        .collect();
    g.citations = d
        .citations
        .iter()
        .enumerate()
        .map(|(i, (c, k))| Citation {
            id: node_id("cit", i + 1),
            claim_id: node_id("c", k + 1),
            source: CitationSource { kind: c.kind, value: c.value.clone() },
            span: Some(span(&c.range)),
        })
        .collect();
    g.code_blocks = d
        .code_blocks
        .iter()
        .enumerate()
        .map(|(i, cb)| {
            let code = &text[cb.code.clone()];
            let language = cb.lang.clone().unwrap_or_else(|| markdown::detect_language(code).to_string());
            CodeBlock { id: node_id("cb", i + 1), language, code: code.to_string(), span: span(&cb.code) }
        })
        .collect();
    let claim_ranges: Vec<Range<usize>> = d.claims.iter().map(|c| c.range.clone()).collect();
    g.discourse_acts = d
        .acts
        .iter()
        .enumerate()
        .map(|(i, a)| DiscourseAct {
            id: node_id("da", i + 1),
            kind: a.kind,
            span: span(&a.range),
            claim_refs: Some(ids_within(&claim_ranges, &a.range, "c")),
            children: Some(a.children.iter().map(|c| node_id("da", c + 1)).collect()),
        })
        .collect();
    g
}

/// The ids (`prefix` and 1-based position) of the `ranges` inside `outer`; `ranges` are sorted
/// by start, so the first is found by binary search.
fn ids_within(ranges: &[Range<usize>], outer: &Range<usize>, prefix: &str) -> Vec<String> {
    let from = ranges.partition_point(|r| r.start < outer.start);
    ranges[from..]
        .iter()
        .enumerate()
        .take_while(|(_, r)| r.start < outer.end)
        .filter(|(_, r)| r.end <= outer.end)
        .map(|(j, _)| node_id(prefix, from + j + 1))
        .collect()
}

/// The claim a citation marker supports: the claim containing it, else the last claim of its
/// sentence before it, else the nearest claim before it, else the first after it.
fn attach(claims: &[DraftClaim], marker: &Range<usize>) -> Option<usize> {
    if let Some(i) = claims.iter().position(|c| c.range.start <= marker.start && marker.start < c.range.end) {
        return Some(i);
    }
    if let Some(i) = claims
        .iter()
        .rposition(|c| c.sentence.start <= marker.start && marker.start <= c.sentence.end && c.range.start <= marker.start)
    {
        return Some(i);
    }
    if let Some(i) = claims.iter().rposition(|c| c.range.end <= marker.start) {
        return Some(i);
    }
    claims.iter().position(|c| c.range.start >= marker.end)
}

fn output_id(answer: &Answer, opts: &Options, text: &str) -> String {
    if let Some(id) = opts.output_id.clone().or_else(|| answer.id.clone()).filter(|s| !s.is_empty()) {
        return id;
    }
    // A content-derived id: FNV-1a is stable and plenty for naming one output (not security).
    use std::hash::Hasher;
    let mut h = warrant_text::fasthash::Fnv::default();
    h.write(text.as_bytes());
    format!("out-{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    #[test]
    fn node_ids() {
        for (prefix, n, want) in [("e", 1, "e1"), ("cit", 10, "cit10"), ("da", 1234567, "da1234567"), ("c", 0, "c0")] {
            assert_eq!(super::node_id(prefix, n), want);
        }
        assert_eq!(super::node_id("op", usize::MAX), format!("op{}", usize::MAX));
    }

    #[test]
    fn a_clause_that_continues_the_speakers_own_is_theirs() {
        use warrant_graph::Modality::*;
        let modalities = |text: &str| -> Vec<(String, warrant_graph::Modality)> {
            let answer = super::Answer { text: text.into(), tool_calls: vec![], context: None, id: None };
            super::extract(&answer, &super::Options::default()).graph.claims.into_iter().map(|c| (c.text, c.modality)).collect()
        };
        assert_eq!(
            modalities("i recently read the book and was disappointed by the ending."),
            vec![("i recently read the book".to_string(), Opinion), ("was disappointed by the ending".to_string(), Opinion)]
        );
        // A continuation with a value of its own, or after a clause about something else, is
        // checked.
        let got = modalities("I went there in May and saw the Corvin tower.");
        assert_eq!(got.last().map(|(_, m)| *m), Some(Factual), "{got:?}");
        let got = modalities("The band formed in 1994 and was disappointed by the label.");
        assert!(got.iter().all(|(_, m)| *m == Factual), "{got:?}");
    }
}
