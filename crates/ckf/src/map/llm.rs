//! The map step by a model (`warrant compile --llm`, spec §7.4 "LLM path").
//!
//! [`LlmMapper`] sends one chunk per request ([`prompts::CKF_MAP`]: the section list with each
//! section's fields, the span id, its heading path and the chunk between `<<<SOURCE>>>`
//! markers) and decodes the reply, the `emit_ckf_partial` shape, into items
//! ([`decode_partial`]). The reply must fit the item schema: known sections and fields only,
//! `entities` and `concepts` present, each field of its type, required fields filled,
//! `source_basis` from the closed set, `confidence` in [0, 1], `source_refs` naming only the
//! chunk's span, and 1–2 `source_excerpts` that occur verbatim in the chunk (whitespace may
//! differ) and are at most 240 chars. Anything else is rejected with a JSON pointer; the
//! mapper asks once more with the repair prompt, then maps the chunk with the deterministic
//! [`RuleMapper`] and records why ([`LlmMapper::degraded`]).
//!
//! As with the rule mapper, an item whose numbers are not all inside its excerpts is dropped
//! (counted in `dropped_numeric`). Cross-references name their targets; they become handles
//! here and reduce keeps those that resolve. `core_intent`, `domain_map`,
//! `agent_instructions` and `knowledge_limits` are accepted and ignored: the compiler derives
//! them from the items.

use std::fmt::Write as _;
use std::sync::Mutex;

use regex::Regex;
use serde_json::{Map, Value};
use warrant_llm::one_line;
use warrant_llm::{Llm, complete_json, prompts};

use crate::lang::Lang;
use crate::map::evidence::{MAX_EXCERPT, contains_number, item_numbers};
use crate::map::{Hints, MapError, MapInput, Mapper, Partial, RuleMapper};
use crate::model::{Basis, Evidence, Field, FieldKind, Item, Relation, Section, Step, span_id};
use crate::normalize::normalize;
use crate::score::Score;

/// The stage name model calls are logged under.
pub const STAGE: &str = "ckf.map";

/// Relation types an entity relation may use (§2.2's vocabulary plus `part_of` and
/// `competes_with`).
pub const RELATIONS: [&str; 10] = [
    "depends_on",
    "supports",
    "contradicts",
    "enables",
    "causes",
    "prevents",
    "is_exception_to",
    "applies_when",
    "part_of",
    "competes_with",
];

/// Content sections the partial shape has besides the item sections; accepted, not used.
const IGNORED: [&str; 4] = ["core_intent", "domain_map", "agent_instructions", "knowledge_limits"];
const TRACE: [&str; 4] = ["source_basis", "confidence", "source_refs", "source_excerpts"];

/// A mapper that asks a model, with the rule mapper as its fallback.
#[derive(Debug)]
pub struct LlmMapper {
    llm: Llm,
    name: String,
    fallback: RuleMapper,
    notes: Mutex<Vec<String>>,
}

impl LlmMapper {
    /// A mapper over `llm`; its profile name is `llm:<model>`.
    pub fn new(llm: Llm) -> Self {
        let name = format!("llm:{}", llm.model());
        Self { llm, name, fallback: RuleMapper, notes: Mutex::default() }
    }

    /// The chunks that fell back to the rule mapper, in map order: `s_NNN: <reason>`.
    pub fn degraded(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

impl Mapper for LlmMapper {
    fn name(&self) -> &str {
        &self.name
    }

    fn map(&self, input: &MapInput<'_>) -> Result<Partial, MapError> {
        match complete_json(&self.llm, STAGE, &prompt(input), |v| decode_partial(v, input)) {
            Ok(out) => Ok(out.value),
            Err(f) => {
                if let Ok(mut n) = self.notes.lock() {
                    n.push(format!("{}: {}; the rule mapper was used", span_id(input.chunk.span), f.reason));
                }
                self.fallback.map(input)
            }
        }
    }
}

fn kind_text(kind: FieldKind) -> &'static str {
    match kind {
        FieldKind::Text => "",
        FieldKind::List => "[]",
        FieldKind::Refs(_) => "[names]",
        FieldKind::Steps => "[{step, action*, input_required, output_expected}]",
        FieldKind::Related => "",
    }
}

/// The section list the prompt shows: one line per item section with its fields.
pub fn section_lines() -> String {
    let mut out = String::new();
    for s in Section::ALL {
        let fields: Vec<String> = s
            .spec()
            .fields
            .iter()
            .map(|f| match f.kind {
                FieldKind::Related => "related[{name, relation}]".to_string(),
                k => format!("{}{}{}", f.name, if f.required { "*" } else { "" }, kind_text(k)),
            })
            .collect();
        let _ = writeln!(out, "- {}: {}", s.key(), fields.join(", "));
    }
    out.trim_end().to_string()
}

/// The prompt for one chunk.
pub fn prompt(input: &MapInput<'_>) -> String {
    let span = input.span();
    let text = span.text.get(input.chunk.range.clone()).unwrap_or("");
    let language = match input.language {
        Lang::Und => String::new(),
        l => format!("Write every generated field in {}.\n\n", l.tag()),
    };
    let path = input.chunk.path.as_deref().or(span.path.as_deref()).map(|p| format!(" ({p})")).unwrap_or_default();
    prompts::render(
        prompts::CKF_MAP,
        &[
            ("language", &language),
            ("span", &span_id(input.chunk.span)),
            ("path", &path),
            ("sections", &section_lines()),
            ("text", text),
        ],
    )
}

fn ptr(parts: &[&str]) -> String {
    parts.iter().map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1"))).collect()
}

fn string_at<'v>(v: &'v Value, at: &str) -> Result<&'v str, String> {
    v.as_str().ok_or_else(|| format!("{at}: expected a string"))
}

fn strings_at(v: &Value, at: &str) -> Result<Vec<String>, String> {
    let Value::Array(a) = v else { return Err(format!("{at}: expected an array of strings")) };
    a.iter().enumerate().map(|(i, x)| string_at(x, &format!("{at}/{i}")).map(str::to_string)).collect()
}

/// Where `excerpt` occurs in `text[range]` (whitespace runs may differ): a byte range of `text`.
fn locate(text: &str, range: std::ops::Range<usize>, excerpt: &str) -> Option<std::ops::Range<usize>> {
    let hay = text.get(range.clone())?;
    let e = excerpt.trim();
    if e.is_empty() {
        return None;
    }
    if let Some(i) = hay.find(e) {
        return Some(range.start + i..range.start + i + e.len());
    }
    let pattern: Vec<String> = e.split_whitespace().map(regex::escape).collect();
    let re = Regex::new(&pattern.join(r"\s+")).ok()?;
    re.find(hay).map(|m| range.start + m.start()..range.start + m.end())
}

/// Handles a cross-reference by name may resolve to: the handle an item of each target section
/// with that label would have.
fn ref_handles(targets: &[Section], name: &str) -> Vec<String> {
    let all = Section::ALL;
    let sections = if targets.is_empty() { &all[..] } else { targets };
    let mut out = Vec::new();
    for s in sections {
        let Some(label) = s.spec().label.first() else { continue };
        let h = Item::new(*s, Basis::Explicit, Score::ONE).with(label, name).handle();
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

fn decode_item(section: Section, v: &Value, at: &str, input: &MapInput<'_>) -> Result<Item, String> {
    let Value::Object(m) = v else { return Err(format!("{at}: expected an item object")) };
    let spec = section.spec();
    for k in m.keys() {
        let known = TRACE.contains(&k.as_str())
            || spec.fields.iter().any(|f| if f.kind == FieldKind::Related { k == "related" } else { f.name == k });
        if !known {
            return Err(format!("{at}/{k}: unknown field of {} (expected {})", section.key(), expected_fields(section)));
        }
    }
    let basis = match m.get("source_basis") {
        Some(Value::String(s)) => Basis::parse(s).ok_or_else(|| {
            format!("{at}/source_basis: {s:?} is not one of explicit, inferred, synthesized, author_opinion, uncertain")
        })?,
        Some(_) => return Err(format!("{at}/source_basis: expected a string")),
        None => return Err(format!("{at}/source_basis: missing")),
    };
    let confidence = match m.get("confidence") {
        Some(Value::Number(n)) => match n.as_f64() {
            Some(c) if (0.0..=1.0).contains(&c) => Score::from_f64(c),
            _ => return Err(format!("{at}/confidence: expected a number between 0 and 1")),
        },
        Some(_) => return Err(format!("{at}/confidence: expected a number between 0 and 1")),
        None => return Err(format!("{at}/confidence: missing")),
    };
    let own = span_id(input.chunk.span);
    if let Some(r) = m.get("source_refs") {
        for (i, s) in strings_at(r, &format!("{at}/source_refs"))?.iter().enumerate() {
            if *s != own {
                return Err(format!("{at}/source_refs/{i}: {s:?} is not this chunk's span {own}"));
            }
        }
    }
    let mut item = Item::new(section, basis, confidence);
    for f in spec.fields {
        let key = if f.kind == FieldKind::Related { "related" } else { f.name };
        let fat = format!("{at}/{key}");
        let Some(val) = m.get(key).filter(|v| !v.is_null()) else {
            if f.required {
                return Err(format!("{fat}: missing (required in {})", section.key()));
            }
            continue;
        };
        let field = match f.kind {
            FieldKind::Text => Field::Text(normalize(string_at(val, &fat)?)),
            FieldKind::List => {
                Field::List(strings_at(val, &fat)?.iter().map(|s| normalize(s)).filter(|s| !s.is_empty()).collect())
            }
            FieldKind::Refs(targets) => {
                let mut hs: Vec<String> = Vec::new();
                for name in strings_at(val, &fat)? {
                    for h in ref_handles(targets, &name) {
                        if !hs.contains(&h) {
                            hs.push(h);
                        }
                    }
                }
                Field::Refs(hs)
            }
            FieldKind::Steps => {
                let Value::Array(a) = val else { return Err(format!("{fat}: expected an array of steps")) };
                let mut steps = Vec::with_capacity(a.len());
                for (i, s) in a.iter().enumerate() {
                    let sat = format!("{fat}/{i}");
                    let Value::Object(sm) = s else { return Err(format!("{sat}: expected a step object")) };
                    if let Some(k) =
                        sm.keys().find(|k| !["step", "action", "input_required", "output_expected"].contains(&k.as_str()))
                    {
                        return Err(format!("{sat}/{k}: unknown field of a step"));
                    }
                    let text = |k: &str| -> Result<String, String> {
                        sm.get(k).map_or(Ok(String::new()), |v| string_at(v, &format!("{sat}/{k}")).map(normalize))
                    };
                    let action = text("action")?;
                    if action.is_empty() {
                        return Err(format!("{sat}/action: missing"));
                    }
                    steps.push(Step {
                        step: i as u32 + 1,
                        action,
                        input_required: text("input_required")?,
                        output_expected: text("output_expected")?,
                    });
                }
                Field::Steps(steps)
            }
            FieldKind::Related => {
                let Value::Array(a) = val else { return Err(format!("{fat}: expected an array of {{name, relation}}")) };
                let mut rels = Vec::with_capacity(a.len());
                for (i, r) in a.iter().enumerate() {
                    let rat = format!("{fat}/{i}");
                    let Value::Object(rm) = r else { return Err(format!("{rat}: expected {{name, relation}}")) };
                    let name = string_at(rm.get("name").unwrap_or(&Value::Null), &format!("{rat}/name"))?;
                    let relation = string_at(rm.get("relation").unwrap_or(&Value::Null), &format!("{rat}/relation"))?;
                    if !RELATIONS.contains(&relation) {
                        return Err(format!("{rat}/relation: {relation:?} is not one of {}", RELATIONS.join(", ")));
                    }
                    rels.push(Relation { entity: normalize(name), relation_type: relation.into(), confidence });
                }
                Field::Related(rels)
            }
        };
        if f.required && field.is_empty() {
            return Err(format!("{fat}: empty (required in {})", section.key()));
        }
        item = item.with_field(f.name, field);
    }
    let excerpts = match m.get("source_excerpts") {
        Some(v) => strings_at(v, &format!("{at}/source_excerpts"))?,
        None => return Err(format!("{at}/source_excerpts: missing (1 or 2 verbatim excerpts)")),
    };
    if excerpts.is_empty() || excerpts.len() > 2 {
        return Err(format!("{at}/source_excerpts: expected 1 or 2 excerpts, got {}", excerpts.len()));
    }
    let span = input.span();
    for (i, e) in excerpts.iter().enumerate() {
        let eat = format!("{at}/source_excerpts/{i}");
        let r =
            locate(&span.text, input.chunk.range.clone(), e).ok_or_else(|| format!("{eat}: not found verbatim in the chunk"))?;
        let excerpt = normalize(&span.text[r.clone()]);
        if excerpt.chars().count() > MAX_EXCERPT {
            return Err(format!("{eat}: longer than {MAX_EXCERPT} characters"));
        }
        item.trace.evidence.push(Evidence { span: input.chunk.span, start: r.start as u32, end: r.end as u32, excerpt });
    }
    Ok(item)
}

fn expected_fields(section: Section) -> String {
    let mut names: Vec<&str> =
        section.spec().fields.iter().map(|f| if f.kind == FieldKind::Related { "related" } else { f.name }).collect();
    names.extend(TRACE);
    names.join(", ")
}

fn hints(v: &Value) -> Result<Hints, String> {
    let Value::Object(m) = v else { return Err("/metadata: expected an object".into()) };
    let text = |k: &str| -> Result<Option<String>, String> {
        match m.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Ok(Some(normalize(string_at(v, &format!("/metadata/{k}"))?)).filter(|s| !s.is_empty())),
        }
    };
    Ok(Hints {
        source_title: text("source_title")?,
        source_type: text("source_type")?,
        source_author: text("source_author")?,
        language: text("language")?,
        suggested_domain: text("suggested_domain")?,
        suggested_subdomains: match m.get("suggested_subdomains") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => strings_at(v, "/metadata/suggested_subdomains")?,
        },
    })
}

/// The stage's schema: a partial (`emit_ckf_partial`) decoded into items of this chunk.
pub fn decode_partial(v: &Value, input: &MapInput<'_>) -> Result<Partial, String> {
    decode(v, input).map_err(|e| one_line(&e))
}

fn decode(v: &Value, input: &MapInput<'_>) -> Result<Partial, String> {
    let Value::Object(m) = v else { return Err("/: expected an object of sections".into()) };
    check_keys(m)?;
    for required in ["entities", "concepts"] {
        if !m.contains_key(required) {
            return Err(format!("/{required}: missing (required, may be [])"));
        }
    }
    let mut partial = Partial::default();
    for s in Section::ALL {
        let Some(val) = m.get(s.key()).filter(|v| !v.is_null()) else { continue };
        let Value::Array(items) = val else { return Err(format!("{}: expected an array of items", ptr(&[s.key()]))) };
        for (i, it) in items.iter().enumerate() {
            let item = decode_item(s, it, &ptr(&[s.key(), &i.to_string()]), input)?;
            let excerpts: Vec<&str> = item.trace.evidence.iter().map(|e| e.excerpt.as_str()).collect();
            if item_numbers(&item).iter().all(|n| excerpts.iter().any(|e| contains_number(e, n))) {
                partial.items.push(item);
            } else {
                partial.dropped_numeric += 1;
            }
        }
    }
    if let Some(meta) = m.get("metadata").filter(|v| !v.is_null()) {
        partial.hints = hints(meta)?;
    }
    Ok(partial)
}

fn check_keys(m: &Map<String, Value>) -> Result<(), String> {
    for k in m.keys() {
        if Section::from_key(k).is_none() && k != "metadata" && !IGNORED.contains(&k.as_str()) {
            return Err(format!("{}: unknown section (expected entities, concepts, … atomic_units, or metadata)", ptr(&[k])));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::chunk::chunks;
    use crate::source::{ReadOptions, read_source};

    const SRC: &str = "# Fees\n\nA late fee of $25 applies after 10 days.\n";

    fn with_input<T>(f: impl FnOnce(&MapInput<'_>) -> T) -> T {
        let doc = read_source("fees.md", SRC.as_bytes(), &ReadOptions::default()).unwrap();
        let cs = chunks(&doc.spans, 4000);
        let input =
            MapInput { spans: &doc.spans, base: 0, chunk: &cs[0], language: Lang::En, format: doc.format, first_chunk: true };
        f(&input)
    }

    fn unit(statement: &str, excerpt: &str) -> Value {
        json!({"statement": statement, "type": "rule", "source_basis": "explicit", "confidence": 0.8,
               "source_refs": ["s_001"], "source_excerpts": [excerpt]})
    }

    #[test]
    fn partials_decode_with_verbatim_excerpts() {
        with_input(|input| {
            let v = json!({"entities": [], "concepts": [], "core_intent": {"x": 1},
                           "atomic_units": [unit("A late fee of $25 applies after 10 days.", "late fee of $25 applies  after 10 days"),
                                            unit("The fee is $30.", "A late fee")]});
            let p = decode_partial(&v, input).unwrap();
            assert_eq!((p.items.len(), p.dropped_numeric), (1, 1), "the item whose $30 no excerpt shows is dropped");
            let e = &p.items[0].trace.evidence[0];
            assert_eq!(e.excerpt, "late fee of $25 applies after 10 days");
            let span = &input.spans[0].text;
            assert_eq!(&span[e.start as usize..e.end as usize], "late fee of $25 applies after 10 days");
            assert_eq!(p.items[0].trace.confidence, Score::hundredths(80));
        });
    }

    #[test]
    fn schema_violations_name_a_pointer() {
        with_input(|input| {
            let bad = |v: Value| decode_partial(&v, input).unwrap_err();
            assert_eq!(bad(json!({"entities": []})), "/concepts: missing (required, may be [])");
            let mut u = unit("Fees apply.", "A late fee");
            u["source_refs"] = json!(["s_002"]);
            assert_eq!(
                bad(json!({"entities": [], "concepts": [], "atomic_units": [u]})),
                "/atomic_units/0/source_refs/0: \"s_002\" is not this chunk's span s_001"
            );
            let mut u = unit("Fees apply.", "A late fee");
            u["confidence"] = json!(1.5);
            assert_eq!(
                bad(json!({"entities": [], "concepts": [], "atomic_units": [u]})),
                "/atomic_units/0/confidence: expected a number between 0 and 1"
            );
            let mut u = unit("Fees apply.", "A late fee");
            u["id"] = json!("atm_x");
            assert!(
                bad(json!({"entities": [], "concepts": [], "atomic_units": [u]}))
                    .starts_with("/atomic_units/0/id: unknown field")
            );
            let u = unit("Fees apply.", &"A late fee ".repeat(30));
            assert_eq!(
                bad(json!({"entities": [], "concepts": [], "atomic_units": [u]})),
                "/atomic_units/0/source_excerpts/0: not found verbatim in the chunk"
            );
            assert_eq!(bad(json!("x")), "/: expected an object of sections");
            assert_eq!(
                bad(json!({"a\nb": []})),
                "/a\\nb: unknown section (expected entities, concepts, … atomic_units, or metadata)"
            );
        });
    }

    #[test]
    fn prompt_and_refs() {
        with_input(|input| {
            let p = prompt(input);
            assert!(p.starts_with("Write every generated field in en.\n\n"), "{p}");
            assert!(p.contains("Span s_001 (Fees)\n<<<SOURCE>>>\n"), "{p}");
            assert!(
                p.contains("- procedures: name*, objective, steps*[{step, action*, input_required, output_expected}]"),
                "{p}"
            );
        });
        assert_eq!(ref_handles(&[Section::Concepts], "Late fee"), ["con_late_fee"]);
        assert_eq!(locate("a  b c", 0..6, "b c"), Some(3..6));
        assert_eq!(locate("a  b c", 0..6, "a b"), Some(0..4));
        assert_eq!(locate("a b", 0..3, "  "), None);
    }
}
