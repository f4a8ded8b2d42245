//! The deterministic mapper: sentences, numbered lists and FAQ pairs → typed items.
//!
//! Every item is built from one sentence (or a sentence and its neighbour, for `However, …`
//! and `Therefore, …`), a list, or a question and its answer, and quotes them verbatim. Each
//! claim goes to its richest section **and** becomes an atomic unit (§7.4 section allocation).
//!
//! | Source shape | Items |
//! |---|---|
//! | any complete sentence | atomic unit typed definition / exception / prohibition / obligation / rule / heuristic / claim / numeric_fact / fact |
//! | `X is a …`, `X means …`, `**X**: …` | concept |
//! | capitalised names, acronyms, defined terms, `Section N` | entities (+ relations between them) |
//! | `If/When X, Y` and `Y only if X` | decision rule (Y decides), heuristic (Y advises), contextual trigger (X is what the user says), else if-then rule |
//! | `unless`, `except`, `However, …`, `does not apply`, `only when … Section N` | exception |
//! | `do not`, `never`, `avoid`, `must not`, `common mistake` | anti-pattern |
//! | `must`, `shall`, `should`, `always` (not conditional) | principle |
//! | `because`, `leads to`, `causes`, `Therefore, …` | causal chain |
//! | `often`, `typically`, `tends to` | pattern |
//! | `think of X as Y`, `X is like Y` | mental model |
//! | numbered lists (`1.`, `Step 1:`) | procedure |
//! | FAQ pairs, question records | QA pair |
//! | paragraphs | retrieval chunks (≤ 1,200 chars, numbers always inside the excerpts) |

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use warrant_text::segment::{first_sentence_in, paragraphs, sentences_in, trim_range};

use super::cues::{self, flag};
use super::entities;
use super::evidence::{self, Source};
use super::{Intro, MapError, MapInput, Mapper, Partial};
use crate::gate;
use crate::lang::Lang;
use crate::model::{Basis, Field, Item, Relation, Section, Step};
use crate::normalize::{chars, normalize};
use crate::score::Score;
use crate::source::Span;
use warrant_text::pattern::compile as re;

/// The deterministic, offline mapper.
#[derive(Debug, Clone, Copy, Default)]
pub struct RuleMapper;

impl Mapper for RuleMapper {
    fn name(&self) -> &str {
        "rules"
    }

    fn map(&self, input: &MapInput<'_>) -> Result<Partial, MapError> {
        Ok(Walker::new(input).run())
    }
}

/// Stated directly, copied whole.
const STATED: u8 = 95;
/// Split into clauses by a pattern.
const PARSED: u8 = 90;
/// Mild interpretation (causal direction, advice, patterns).
const MILD: u8 = 85;
/// Two sentences linked by an explicit connective or reference.
const LINKED: u8 = 80;
/// Author opinion.
const OPINION: u8 = 90;

/// Longest retrieval chunk body, in characters.
const MAX_CHUNK: usize = 1200;
/// Longest QA answer, in characters (§7.7).
const MAX_ANSWER: usize = 1500;

static LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:#{1,6}\s+|>\s*|[-*+•]\s+|\d{1,3}[.)]\s+|(?i:step)\s+\d{1,3}\s*[:.)-]\s*|(?:\*\*|__)?(?:Q|A|P|R)\s*[:：](?:\*\*|__)?\s+|(?i:question|answer|pergunta|resposta|pregunta|respuesta)\s*[:：]\s*)+",
    )
});
/// `Name: ` at a transcript line's start. The name runs to the first `:` (its class excludes
/// `:`), so its 30-character cap is checked by [`speaker`] rather than compiled as a bounded
/// repeat of a Unicode letter class (several milliseconds to build).
static SPEAKER: LazyLock<Regex> = LazyLock::new(|| re(r"^\p{Lu}[\p{L} .'-]*:\s+"));

/// Byte length of a leading speaker label (`Name: `) whose name has at most 30 characters
/// after the capital.
fn speaker(s: &str) -> Option<usize> {
    let m = SPEAKER.find(s)?;
    let first = s.chars().next().map_or(0, char::len_utf8);
    let colon = s[first..m.end()].find(':')?;
    (chars(&s[first..first + colon]) <= 30).then_some(m.end())
}
static LIST_MARK: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(?:[-*+•]\s|\d{1,3}[.)]\s|(?i:step)\s+\d)"));
static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s{0,3}(?:(?P<n>\d{1,3})[.)]|(?i:step)\s+(?P<s>\d{1,3})\s*[:.)-])\s+\S"));
static INTRO_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:introduction|intro|overview|summary|abstract|purpose|scope|about|background|objectives?|goals?|preface|introdução|resumo|objetivos?|propósito|escopo|apresentação|introducción|resumen|alcance|finalidad)(?-u:\b)",
    )
});
static PURPOSE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:this|the|our|o|a|este|esta|el|la)\s+(?:\w+\s+){0,2}(?:policy|document|guide|runbook|handbook|faq|standard|procedure|page|manual|article|section|law|regulation|specification|spec|playbook|process|política|documento|guia|norma|lei|regulamento|reglamento|guía|procedimiento)\s+(?:\w+\s+)?(?:describes|explains|sets out|defines|covers|applies|establishes|outlines|documents|provides|governs|explains|aims|is intended|descreve|explica|define|estabelece|apresenta|regula|describe|establece|regula)(?-u:\b)|(?i)^the (?:purpose|goal|aim) of this",
    )
});
static AUDIENCE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:applies to|is intended for|are intended for|is for|is written for|aplica-se a|aplica-se aos|destina-se a|destina-se aos|se aplica a|está dirigid[oa] a)\s+(?P<who>[^.;]{3,120})",
    )
});
static VALUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:helps|ensures|so that|in order to|allows|enables|protects|reduces|ajuda|garante|permite|protege|reduz|ayuda|garantiza|reduce)(?-u:\b)",
    )
});
static TO_OBJECTIVE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:^|steps? to|how to|in order to|^para)\s*(?:to\s+)?(?P<o>[^:]{3,120}?)\s*:?$"));
static HOWEVER_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:however|nevertheless|nonetheless|in contrast|no entanto|entretanto|contudo|porém|todavia|sin embargo|no obstante|therefore|thus|consequently|as a result|hence|portanto|por isso|assim|por lo tanto|por eso|en consecuencia),?\s+",
    )
});
static INSTEAD_LEAD: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^(?:instead|rather|em vez disso|en su lugar),?\s+"));
static YES_NO: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^(?:yes|no|sim|não|sí)(?-u:\b)"));
static DEFINITION_Q: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:what\s+(?:is|are|does)|o que (?:é|são|significa)|qu[ée] (?:es|son|significa))(?-u:\b)"));
static PROCEDURAL_Q: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^(?:how\s+(?:do|can|should|to)|como\s|cómo\s)"));

/// A sentence prepared for the rules.
struct Sent {
    /// Byte range in the span text, as segmented.
    raw: Range<usize>,
    /// Without list, heading and Q/A markers.
    clean: Range<usize>,
    /// Normalised text, emphasis markers removed.
    stmt: String,
    /// Cue flags.
    flags: u32,
    /// A list item (`- …`, `1. …`, `Step 1: …`).
    list_item: bool,
}

/// A retrieval chunk being packed.
struct Pack {
    evidence_start: usize,
    body_start: usize,
    end: usize,
    title: Option<String>,
    /// Two excerpts are known to hold the numbers of `evidence_start..end`.
    covered: bool,
}

struct Walker<'a> {
    input: &'a MapInput<'a>,
    span: &'a Span,
    text: &'a str,
    span_idx: u32,
    lang: Lang,
    items: Vec<Item>,
    dropped: u32,
    heading: Option<String>,
    /// The heading's text in the span, quoted by the first chunk of its section.
    heading_range: Option<Range<usize>>,
    title_override: Option<String>,
    section_fresh: bool,
    pack: Option<Pack>,
    prev_atomic: Option<String>,
    prev_normative: Option<(Range<usize>, String)>,
    mentions: Vec<(usize, String)>,
    intro: Intro,
    in_intro: bool,
    body_start: usize,
    entity_names: warrant_text::fasthash::FastSet<String>,
    /// The handles of the items that other items refer to (atomic units, rules, entities,
    /// concepts), by position in `items`; computed once, when the item is emitted.
    handles: Vec<Option<String>>,
}

/// Sections whose items other items of the same chunk refer to by handle.
const REFERRED: [Section; 7] = [
    Section::AtomicUnits,
    Section::Principles,
    Section::DecisionRules,
    Section::IfThenRules,
    Section::Exceptions,
    Section::Entities,
    Section::Concepts,
];

/// `s` without `**` and `__` markers; borrowed when it has none (most text), since the result is
/// normalised into a new string anyway.
fn strip_emphasis(s: &str) -> Cow<'_, str> {
    if s.contains("**") || s.contains("__") { Cow::Owned(s.replace("**", "").replace("__", "")) } else { Cow::Borrowed(s) }
}

/// A text as a sentence: a final period when it has no final punctuation (list items).
fn as_sentence(s: &str) -> String {
    let t = s.trim_end();
    if t.is_empty() || t.ends_with(['.', '!', '?', '…', ':']) || t.ends_with(['"', '”', ')']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

/// Clause text: normalised, without final punctuation.
fn clause(s: &str) -> String {
    normalize(&strip_emphasis(s)).trim_end_matches(['.', '!', ';', ',', '…']).trim_end().to_string()
}

fn trimmed_term(s: &str) -> String {
    normalize(&strip_emphasis(s)).trim_matches(|c: char| matches!(c, '"' | '“' | '”' | '\'' | '*' | '_' | ' ')).to_string()
}

/// A sentence's cues, read once: its flags, whether it is an opinion, complete, a condition
/// (prefix or postfix), a definition, an exception, a permission or an instruction.
struct Reading<'a> {
    sent: &'a str,
    f: u32,
    opinion: bool,
    basis: Basis,
    complete: bool,
    cond: Option<(Range<usize>, Range<usize>)>,
    post: Option<(Range<usize>, Range<usize>, String)>,
    def: Option<Range<usize>>,
    exc: Option<(String, Range<usize>, String)>,
    this: Source<'a>,
    permission: bool,
    instruction: bool,
}

impl Reading<'_> {
    /// A confidence, capped for an opinion.
    fn conf(&self, c: u8) -> u8 {
        if self.opinion { OPINION.min(c) } else { c }
    }
}

impl<'a> Walker<'a> {
    fn new(input: &'a MapInput<'a>) -> Self {
        let span = input.span();
        Walker {
            input,
            span,
            text: &span.text,
            span_idx: input.chunk.span,
            lang: input.language,
            items: Vec::new(),
            dropped: 0,
            heading: input.chunk.heading.clone(),
            heading_range: None,
            title_override: None,
            section_fresh: false,
            pack: None,
            prev_atomic: None,
            prev_normative: None,
            mentions: Vec::new(),
            intro: Intro::default(),
            in_intro: false,
            body_start: input.chunk.range.start,
            entity_names: Default::default(),
            handles: Vec::new(),
        }
    }

    fn run(mut self) -> Partial {
        let chunk = self.input.chunk;
        let text = self.text;
        let mut start = chunk.range.start;
        if start < self.span.body_start {
            // The span's head (heading line, record title, FAQ question): quoted, not mined.
            let head = trim_range(text, start..self.span.body_start.min(chunk.range.end));
            let head_text = &text[head.clone()];
            let lead = head_text.len() - head_text.trim_start_matches(['#', ' ']).len();
            self.heading_range = Some(head.start + lead..head.end);
            self.title_override = self.span.heading.clone().or_else(|| self.span.title.clone());
            self.section_fresh = true;
            start = self.span.body_start.min(chunk.range.end);
        } else if self.span.title.is_some() && start == 0 {
            self.title_override = self.span.title.clone();
            self.section_fresh = true;
        }
        self.body_start = start;
        self.in_intro = self.heading.as_deref().is_some_and(|h| INTRO_HEADING.is_match(h))
            || (self.input.first_chunk && self.heading.is_none() && !self.input.format.is_records());
        self.qa();
        self.procedures(start..chunk.range.end);
        let paras: Vec<Range<usize>> =
            paragraphs(&text[start..chunk.range.end]).into_iter().map(|p| p.start + start..p.end + start).collect();
        for p in paras {
            let mut p = p;
            loop {
                let line_end = text[p.clone()].find('\n').map_or(p.end, |i| p.start + i);
                let line = &text[p.start..line_end];
                let Some(h) = crate::chunk::heading_line(line) else { break };
                self.close_pack();
                let off = line.find(h.as_str()).unwrap_or(0);
                self.heading_range = Some(p.start + off..p.start + off + h.len());
                self.in_intro = INTRO_HEADING.is_match(&h);
                self.heading = Some(h);
                self.title_override = None;
                self.section_fresh = true;
                self.prev_normative = None;
                if line_end >= p.end {
                    p = p.end..p.end;
                    break;
                }
                p = trim_range(text, line_end + 1..p.end);
            }
            if p.is_empty() {
                continue;
            }
            let sents: Vec<Sent> = sentences_in(text, p.clone()).into_iter().filter_map(|r| self.prepare(r)).collect();
            self.prev_atomic = None;
            for i in 0..sents.len() {
                self.sentence(&sents, i);
            }
            self.pack_paragraph(&sents);
            if self.input.first_chunk && self.heading.is_none() {
                // Only the first paragraph of an unheaded document is intro material.
                self.in_intro = false;
            }
        }
        self.close_pack();
        Partial { items: self.items, hints: super::Hints::default(), intro: self.intro, dropped_numeric: self.dropped }
    }

    fn prepare(&self, raw: Range<usize>) -> Option<Sent> {
        let s = &self.text[raw.clone()];
        let mut lead = LEAD.find(s).map_or(0, |m| m.end());
        if self.input.format == crate::source::Format::Transcript
            && let Some(end) = speaker(&s[lead..])
        {
            lead += end;
        }
        let clean = trim_range(self.text, raw.start + lead..raw.end);
        if clean.is_empty() {
            return None;
        }
        let stmt = normalize(&strip_emphasis(&self.text[clean.clone()]));
        if stmt.is_empty() {
            return None;
        }
        let flags = cues::flags(&self.text[clean.clone()]);
        let list_item = LIST_MARK.is_match(s);
        Some(Sent { raw, clean, stmt, flags, list_item })
    }

    fn src(&self, range: Range<usize>) -> Source<'a> {
        Source { span: self.span_idx, text: self.text, range }
    }

    /// Attaches evidence and keeps the item when its numbers are all quoted (`strict`), or
    /// always (`!strict`: multi-part items whose numbers the numeric guard checks against the
    /// span). Returns the item's handle when it is kept and of a section items refer to.
    fn emit(&mut self, item: Item, sources: &[Source<'_>], strict: bool) -> Option<String> {
        let (item, ok) = evidence::attach(item, sources);
        if item.trace.evidence.is_empty() || (strict && !ok) {
            self.dropped += 1;
            return None;
        }
        let key = REFERRED.contains(&item.section).then(|| item.handle());
        self.items.push(item);
        self.handles.push(key.clone());
        key
    }

    fn new_item(section: Section, basis: Basis, conf: u8) -> Item {
        Item::new(section, basis, Score::hundredths(conf))
    }

    fn sentence(&mut self, sents: &[Sent], i: usize) {
        let s = &sents[i];
        self.entities(s);
        if s.stmt.ends_with('?') || s.stmt.chars().count() < 8 {
            return;
        }
        self.intro_material(s);
        let r = self.read(s);
        let next = sents.get(i + 1);
        let prev = i.checked_sub(1).map(|k| &sents[k]);
        let atomic_key = self.atomic_unit(s, &r);
        self.concept(s, &r);
        self.conditionals(&r, atomic_key.as_ref());
        self.exceptions(s, prev, r.exc.as_ref(), r.basis);
        self.principle_or_anti_pattern(s, next, &r);
        self.causal_chain(s, prev, &r);
        let normative = self.pattern_or_model(s, &r);
        if normative || cues::has_modal(r.sent) || cues::is_decision(r.sent) {
            self.prev_normative = Some((s.clean.clone(), s.stmt.clone()));
        }
        if atomic_key.is_some() {
            self.prev_atomic = atomic_key;
        }
    }

    /// What a sentence's cues say, read once for every section it may feed.
    fn read(&self, s: &Sent) -> Reading<'a> {
        let text = self.text;
        let sent = &text[s.clean.clone()];
        let f = s.flags;
        let opinion = f & flag::OPINION != 0;
        let cond = if f & flag::CONDITIONAL != 0 { cues::conditional(sent, self.lang) } else { None };
        let post =
            if cond.is_none() && f & (flag::CONDITIONAL | flag::ONLY_WHEN) != 0 { cues::postfix_conditional(sent) } else { None };
        Reading {
            sent,
            f,
            opinion,
            basis: if opinion { Basis::AuthorOpinion } else { Basis::Explicit },
            complete: gate::truncated_and_complete(&s.stmt) == (false, true),
            cond,
            post,
            def: cues::definition(sent),
            exc: if f & flag::EXCEPTION != 0 { cues::exception_split(sent) } else { None },
            this: self.src(s.clean.clone()),
            permission: f & flag::HEDGE == 0 && cues::is_permission(sent),
            instruction: gate::is_imperative(sent),
        }
    }

    /// The sentence as an atomic unit (typed by its strongest cue); its key.
    fn atomic_unit(&mut self, s: &Sent, r: &Reading<'a>) -> Option<String> {
        let Reading { cond, post, def, this, .. } = r;
        let (f, basis, complete, permission, instruction) = (r.f, r.basis, r.complete, r.permission, r.instruction);
        let conf = |c: u8| r.conf(c);
        let mut atomic_key = None;
        if complete {
            let kind = if def.is_some() {
                "definition"
            } else if f & flag::EXCEPTION != 0 {
                "exception"
            } else if f & flag::PROHIBITION != 0 {
                "prohibition"
            } else if f & flag::OBLIGATION != 0 {
                "obligation"
            } else if cond.is_some()
                || post.is_some()
                || f & (flag::RECOMMENDATION | flag::CONSTRAINT) != 0
                || permission
                || instruction
            {
                "rule"
            } else if f & flag::SOFT != 0 {
                "heuristic"
            } else if f & (flag::OPINION | flag::HEDGE) != 0 {
                "claim"
            } else if evidence::numbers(&s.stmt).next().is_some() {
                "numeric_fact"
            } else {
                "fact"
            };
            let mut it = Self::new_item(Section::AtomicUnits, basis, conf(STATED))
                .with("statement", &s.stmt)
                .with("type", kind)
                .with_list("tags", crate::numeric::kinds_in(&s.stmt));
            if f & (flag::ANAPHORA | flag::HOWEVER | flag::THEREFORE) != 0
                && let Some(k) = &self.prev_atomic
            {
                it = it.with_field("dependencies", Field::Refs(vec![k.clone()]));
            }
            atomic_key = self.emit(it, std::slice::from_ref(this), true);
        }

        atomic_key
    }

    /// A definition ("X is …", "X means …") as a concept.
    fn concept(&mut self, s: &Sent, r: &Reading<'a>) {
        let Reading { sent, def, this, .. } = r;
        let basis = r.basis;
        let conf = |c: u8| r.conf(c);
        if let Some(t) = def.clone() {
            let label = trimmed_term(&sent[t]);
            if !label.is_empty() {
                let it = Self::new_item(Section::Concepts, basis, conf(STATED))
                    .with("label", &label)
                    .with("definition", &as_sentence(&s.stmt));
                self.emit(it, std::slice::from_ref(this), true);
            }
        }
    }

    /// A condition ("if …, then …", "… only when …") as a trigger, decision, heuristic or rule.
    fn conditionals(&mut self, r: &Reading<'a>, atomic_key: Option<&String>) {
        let Reading { sent, cond, post, exc, this, .. } = r;
        let basis = r.basis;
        let conf = |c: u8| r.conf(c);
        if let Some((c, t)) = cond.clone() {
            let c_txt = clause(&sent[c]);
            let t_txt = normalize(&strip_emphasis(&sent[t]));
            let because = match &exc {
                Some((_, case, _)) => Some(format!("Exception: {}", clause(&sent[case.clone()]))),
                None => cues::rationale(sent),
            };
            let it = if cues::is_user_trigger(&c_txt) {
                let negative = t_txt.to_lowercase().starts_with("do not") || t_txt.to_lowercase().starts_with("never");
                let mut it = Self::new_item(Section::ContextualTriggers, basis, conf(PARSED))
                    .with("if_user_says_or_context_contains", &c_txt)
                    .with(if negative { "agent_should_not" } else { "agent_should" }, &t_txt);
                if let Some(k) = atomic_key {
                    it = it.with_field("activate_knowledge", Field::Refs(vec![k.clone()]));
                }
                it
            } else if cues::is_decision(&t_txt) {
                Self::new_item(Section::DecisionRules, basis, conf(PARSED))
                    .with("condition", &c_txt)
                    .with("decision", &t_txt)
                    .with("reasoning", because.as_deref().unwrap_or(""))
            } else if cues::is_soft(&t_txt) {
                Self::new_item(Section::Heuristics, basis, conf(MILD)).with("trigger", &c_txt).with("recommended_action", &t_txt)
            } else {
                Self::new_item(Section::IfThenRules, basis, conf(PARSED))
                    .with("if", &c_txt)
                    .with("then", &t_txt)
                    .with("because", because.as_deref().unwrap_or(""))
            };
            self.emit(it, std::slice::from_ref(this), true);
        }
        if let Some((m, c, cue)) = post.clone() {
            let main = clause(&sent[m]);
            let cnd = clause(&sent[c]);
            let it = if cues::is_decision(&main) || cue.starts_with("only") || cue.starts_with("if and") {
                Self::new_item(Section::DecisionRules, basis, conf(PARSED))
                    .with("condition", &cnd)
                    .with("decision", &main)
                    .with("reasoning", cues::rationale(sent).as_deref().unwrap_or(""))
            } else {
                Self::new_item(Section::IfThenRules, basis, conf(PARSED)).with("if", &cnd).with("then", &as_sentence(&main))
            };
            self.emit(it, std::slice::from_ref(this), true);
        }
    }

    /// A prohibition or a mistake as an anti-pattern, else a plain obligation as a principle.
    fn principle_or_anti_pattern(&mut self, s: &Sent, next: Option<&Sent>, r: &Reading<'a>) {
        let Reading { sent, cond, post, exc, this, .. } = r;
        let (f, basis, complete, permission, instruction) = (r.f, r.basis, r.complete, r.permission, r.instruction);
        let conf = |c: u8| r.conf(c);
        if f & (flag::PROHIBITION | flag::MISTAKE) != 0 && cond.is_none() {
            self.anti_pattern(s, next, basis);
        } else if complete
            && (f & (flag::OBLIGATION | flag::RECOMMENDATION | flag::CONSTRAINT) != 0
                || permission
                || (instruction && !s.list_item))
            && cond.is_none()
            && post.is_none()
            && exc.is_none()
            && f & flag::HOWEVER == 0
        {
            let it = Self::new_item(Section::Principles, basis, conf(STATED))
                .with("statement", &s.stmt)
                .with("applies_when", cues::when_clause(sent).as_deref().unwrap_or(""))
                .with("rationale", cues::rationale(sent).as_deref().unwrap_or(""));
            self.emit(it, std::slice::from_ref(this), true);
        }
    }

    /// A cause and its effects, within the sentence or from the one before ("Therefore, …").
    fn causal_chain(&mut self, s: &Sent, prev: Option<&Sent>, r: &Reading<'a>) {
        let Reading { sent, this, .. } = r;
        let (f, basis) = (r.f, r.basis);
        let conf = |c: u8| r.conf(c);
        if f & flag::CAUSAL != 0 {
            if let Some(c) = cues::causal(sent) {
                let it = Self::new_item(Section::CausalChains, basis, conf(MILD))
                    .with("cause", &clause(&sent[c.cause.clone()]))
                    .with("effect", &clause(&sent[c.effect.clone()]))
                    .with_list("secondary_effects", c.secondary.iter().map(|r| clause(&sent[r.clone()])).collect());
                self.emit(it, std::slice::from_ref(this), true);
            } else if f & flag::THEREFORE != 0
                && let Some(p) = prev
            {
                let effect = HOWEVER_LEAD.replace(&s.stmt, "").to_string();
                let it = Self::new_item(Section::CausalChains, basis, conf(LINKED))
                    .with("cause", &clause(&p.stmt))
                    .with("effect", &clause(&gate::capitalise(&effect)));
                let sources = [self.src(p.clean.clone()), this.clone()];
                self.emit(it, &sources, true);
            }
        }
    }

    /// A recurring pattern or a named mental model; whether the sentence is normative.
    fn pattern_or_model(&mut self, s: &Sent, r: &Reading<'a>) -> bool {
        let Reading { sent, cond, post, this, .. } = r;
        let (f, basis, complete) = (r.f, r.basis, r.complete);
        let conf = |c: u8| r.conf(c);
        let normative = f & (flag::PROHIBITION | flag::OBLIGATION | flag::RECOMMENDATION | flag::ONLY_WHEN) != 0;
        if f & flag::PATTERN != 0 && !normative && cond.is_none() && post.is_none() && complete {
            let main = sent.split([',', ';']).next().unwrap_or(sent);
            let it = Self::new_item(Section::Patterns, basis, conf(LINKED))
                .with("name", &gate::label(&strip_emphasis(main), 12))
                .with("observed_when", cues::when_clause(sent).as_deref().unwrap_or(""))
                .with("underlying_mechanism", cues::rationale(sent).as_deref().unwrap_or(""));
            self.emit(it, std::slice::from_ref(this), true);
        }
        if f & flag::MENTAL != 0
            && let Some(name) = cues::mental_model(&strip_emphasis(sent))
        {
            let it = Self::new_item(Section::MentalModels, basis, conf(MILD))
                .with("name", &name)
                .with("description", &as_sentence(&s.stmt))
                .with("use_when", cues::when_clause(sent).as_deref().unwrap_or(""));
            self.emit(it, std::slice::from_ref(this), true);
        }

        normative
    }

    fn exceptions(&mut self, s: &Sent, prev: Option<&Sent>, exc: Option<&(String, Range<usize>, String)>, basis: Basis) {
        let text = self.text;
        let sent = &text[s.clean.clone()];
        let f = s.flags;
        let this = self.src(s.clean.clone());
        if let Some((rule, case, _)) = exc {
            let case_txt = clause(&sent[case.clone()]);
            let it = Self::new_item(Section::Exceptions, basis, PARSED)
                .with("general_rule", rule.trim_end_matches('.'))
                .with("exception_case", &case_txt)
                .with("explanation", &as_sentence(&s.stmt));
            self.emit(it, std::slice::from_ref(&this), true);
            return;
        }
        let case = || gate::capitalise(&clause(&HOWEVER_LEAD.replace(&s.stmt, "")));
        // "However, …" after a rule in the same paragraph.
        if f & flag::HOWEVER != 0
            && let Some(p) = prev
            && (p.flags & (flag::OBLIGATION | flag::RECOMMENDATION | flag::PROHIBITION) != 0 || cues::has_modal(&p.stmt))
        {
            let it = Self::new_item(Section::Exceptions, basis, LINKED)
                .with("general_rule", &clause(&p.stmt))
                .with("exception_case", &case())
                .with("explanation", &as_sentence(&s.stmt));
            let sources = [self.src(p.clean.clone()), this];
            self.emit(it, &sources, true);
            return;
        }
        if let Some((rule, case)) = cues::stated_exception(sent) {
            let it = Self::new_item(Section::Exceptions, basis, PARSED)
                .with("general_rule", &clause(&sent[rule]))
                .with("exception_case", &clause(&sent[case]))
                .with("explanation", &as_sentence(&s.stmt));
            self.emit(it, std::slice::from_ref(&this), true);
            return;
        }
        let cross_ref = f & flag::REFERENCE != 0 && f & (flag::ONLY_WHEN | flag::EXCEPTION) != 0;
        if f & flag::EXCEPTION == 0 && !cross_ref {
            return;
        }
        // The general rule: a referenced section's first rule, else the previous rule here.
        let referenced = if cross_ref { self.referenced_rule(sent) } else { None };
        if let Some((span, range, rule)) = referenced {
            let other = Source { span: span.0, text: span.1, range };
            let it = Self::new_item(Section::Exceptions, basis, LINKED)
                .with("general_rule", &clause(&rule))
                .with("exception_case", &clause(&s.stmt))
                .with("explanation", &as_sentence(&s.stmt));
            self.emit(it, &[other, this], true);
        } else if f & flag::EXCEPTION != 0
            && let Some((r, rule)) = self.prev_normative.clone()
            && r.end <= s.clean.start
        {
            let it = Self::new_item(Section::Exceptions, basis, LINKED)
                .with("general_rule", &clause(&rule))
                .with("exception_case", &case())
                .with("explanation", &as_sentence(&s.stmt));
            let sources = [self.src(r), this];
            self.emit(it, &sources, true);
        }
    }

    /// The first rule-like sentence of a span this sentence refers to (`Section 4.2`), when it
    /// is another span of the same document.
    #[allow(clippy::type_complexity)]
    fn referenced_rule(&self, sent: &str) -> Option<((u32, &'a str), Range<usize>, String)> {
        let spans = self.input.spans;
        for (_, name) in cues::references(sent) {
            let own = self.span.record_id.as_deref() == Some(name.as_str())
                || self.span.heading.as_deref().is_some_and(|h| h.contains(name.as_str()));
            if own {
                continue;
            }
            let Some((k, target)) = spans.iter().enumerate().find(|(_, sp)| {
                sp.record_id.as_deref() == Some(name.as_str()) || sp.heading.as_deref().is_some_and(|h| contains_ref(h, &name))
            }) else {
                continue;
            };
            let body = target.body_start.min(target.text.len())..target.text.len();
            for r in sentences_in(&target.text, body) {
                let t = &target.text[r.clone()];
                let lead = LEAD.find(t).map_or(0, |m| m.end());
                let clean = trim_range(&target.text, r.start + lead..r.end);
                let c = &target.text[clean.clone()];
                let normative = cues::flags(c)
                    & (flag::PROHIBITION | flag::OBLIGATION | flag::RECOMMENDATION | flag::CONSTRAINT | flag::DECISION)
                    != 0;
                if (normative || cues::has_modal(c) || cues::is_permission(c)) && !c.trim_end().ends_with('?') {
                    return Some(((self.input.base + k as u32, target.text.as_str()), clean, normalize(c)));
                }
            }
        }
        None
    }

    fn anti_pattern(&mut self, s: &Sent, next: Option<&Sent>, basis: Basis) {
        let sent = &self.text[s.clean.clone()];
        let name = cues::prohibited_behaviour(&strip_emphasis(sent)).unwrap_or_else(|| gate::label(&s.stmt, 8));
        if name.is_empty() {
            return;
        }
        let mut sources = vec![self.src(s.clean.clone())];
        let mut why = cues::rationale(sent).unwrap_or_default();
        let mut replacement = cues::replacement(sent).unwrap_or_default();
        if let Some(n) = next {
            let starts_instead = INSTEAD_LEAD.is_match(&n.stmt) || n.flags & flag::INSTEAD != 0;
            if replacement.is_empty() && starts_instead {
                replacement = gate::capitalise(&clause(&INSTEAD_LEAD.replace(&n.stmt, "")));
                sources.push(self.src(n.clean.clone()));
            } else if why.is_empty() && n.flags & flag::ANAPHORA != 0 && n.flags & flag::CAUSAL != 0 {
                why = clause(&n.stmt);
                sources.push(self.src(n.clean.clone()));
            }
        }
        let conf = if sources.len() > 1 { LINKED } else { PARSED };
        let it = Self::new_item(Section::AntiPatterns, basis, conf)
            .with("name", &name)
            .with("description", &as_sentence(&s.stmt))
            .with("why_it_fails", &why)
            .with("replacement_behavior", &replacement);
        self.emit(it, &sources, true);
    }

    fn entities(&mut self, s: &Sent) {
        let sent = &self.text[s.clean.clone()];
        let hits = entities::entities(sent);
        if hits.is_empty() {
            return;
        }
        let rels = entities::relations(sent, &hits);
        let description = as_sentence(&s.stmt);
        for (i, h) in hits.iter().enumerate() {
            self.mentions.push((s.clean.start + h.range.start, h.name.clone()));
            // One item per entity per chunk: later mentions in the same span add nothing reduce
            // would keep, unless they carry a relation or a new alias.
            let seen = !self.entity_names.insert(h.name.clone());
            if seen && h.aliases.is_empty() && !rels.iter().any(|(from, _, _)| *from == i) {
                continue;
            }
            let related: Vec<Relation> = rels
                .iter()
                .filter(|(from, _, _)| *from == i)
                .map(|(_, to, rel)| Relation {
                    entity: hits[*to].name.clone(),
                    relation_type: (*rel).to_string(),
                    confidence: Score::hundredths(LINKED),
                })
                .collect();
            let mut it = Self::new_item(Section::Entities, Basis::Explicit, h.confidence)
                .with("name", &h.name)
                .with("type", h.kind)
                .with("description", &description)
                .with_list("aliases", h.aliases.clone());
            if !related.is_empty() {
                it = it.with_field("related_entities", Field::Related(related));
            }
            let src = self.src(s.clean.clone());
            self.emit(it, &[src], true);
        }
    }

    fn intro_material(&mut self, s: &Sent) {
        let sent = &self.text[s.clean.clone()];
        let purpose = PURPOSE.is_match(sent);
        if !(self.in_intro || purpose) || self.intro.purpose.len() >= 3 {
            return;
        }
        if purpose || self.intro.purpose.is_empty() {
            self.intro.purpose.push(s.stmt.clone());
        }
        if let Some(c) = AUDIENCE.captures(sent).and_then(|c| c.name("who")) {
            self.intro.audience.push(clause(c.as_str()));
        }
        if VALUE.is_match(sent) {
            self.intro.value.push(s.stmt.clone());
        }
    }

    fn qa(&mut self) {
        let (Some(q), Some(a)) = (self.span.question.clone(), self.span.answer.clone()) else { return };
        let chunk = &self.input.chunk.range;
        if !(chunk.start <= q.start && q.start < chunk.end.max(q.start + 1)) {
            return;
        }
        let text = self.text;
        let question = normalize(&strip_emphasis(&text[q.clone()]));
        // The answer, cut at the last sentence end within the cap.
        let mut end = a.end;
        if chars(&text[a.clone()]) > MAX_ANSWER {
            end = sentences_in(text, a.clone())
                .into_iter()
                .take_while(|r| chars(&text[a.start..r.end]) <= MAX_ANSWER)
                .last()
                .map_or(a.end, |r| r.end);
        }
        let answer = normalize(&strip_emphasis(&text[a.start..end]));
        if question.is_empty() || answer.is_empty() {
            return;
        }
        let n_sent = sentences_in(text, a.start..end).len();
        let difficulty = if chars(&answer) <= 200 && n_sent <= 1 {
            "easy"
        } else if chars(&answer) > 600 || n_sent > 4 {
            "hard"
        } else {
            "medium"
        };
        let answer_type = if YES_NO.is_match(&answer) {
            "yes_no"
        } else if DEFINITION_Q.is_match(&question) {
            "definition"
        } else if PROCEDURAL_Q.is_match(&question) || NUMBERED.is_match(&text[a.clone()]) {
            "procedural"
        } else {
            "factual"
        };
        let it = Self::new_item(Section::QaPairs, Basis::Explicit, STATED)
            .with("question", &question)
            .with("ideal_answer", &as_sentence(&answer))
            .with("difficulty", difficulty)
            .with("answer_type", answer_type);
        let src = self.src(q.start..end);
        self.emit(it, &[src], false);
    }

    /// Numbered lists of two or more items become procedures.
    fn procedures(&mut self, range: Range<usize>) {
        let text = self.text;
        let mut list: Vec<(u32, Range<usize>)> = Vec::new();
        let mut prev_blank = false;
        let mut pos = range.start;
        let mut lists: Vec<Vec<(u32, Range<usize>)>> = Vec::new();
        for line in text[range.clone()].split_inclusive('\n') {
            let at = pos;
            pos += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            if body.trim().is_empty() {
                prev_blank = true;
                continue;
            }
            if let Some(c) = NUMBERED.captures(body) {
                let n: u32 = c.name("n").or_else(|| c.name("s")).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
                let content = LEAD.find(body).map_or(0, |m| m.end());
                let item = trim_range(text, at + content..at + body.len());
                match list.last() {
                    Some((last, _)) if n == last + 1 => list.push((n, item)),
                    _ => {
                        if list.len() >= 2 {
                            lists.push(std::mem::take(&mut list));
                        }
                        list = vec![(n, item)];
                    }
                }
            } else if let Some(last) = list.last_mut() {
                let continuation =
                    !prev_blank && crate::chunk::heading_line(body).is_none() && !body.trim_start().starts_with(['-', '*', '•']);
                if continuation {
                    last.1.end = at + body.trim_end().len();
                } else if !body.starts_with([' ', '\t']) {
                    if list.len() >= 2 {
                        lists.push(std::mem::take(&mut list));
                    }
                    list.clear();
                }
            }
            prev_blank = false;
        }
        if list.len() >= 2 {
            lists.push(list);
        }
        for l in lists {
            self.procedure(&l, range.start);
        }
    }

    fn procedure(&mut self, list: &[(u32, Range<usize>)], floor: usize) {
        let text = self.text;
        let (Some(first), Some(last)) = (list.first(), list.last()) else { return };
        let list_start = text[..first.1.start].rfind('\n').map_or(floor, |p| (p + 1).max(floor));
        // A lead-in that ends with ':' right before the list names it.
        let before = trim_range(text, floor..list_start);
        let lead_in = sentences_in(text, before.clone()).into_iter().last().filter(|r| {
            let t = text[r.clone()].trim_end();
            t.ends_with(':') && text[r.end..list_start].trim().is_empty()
        });
        let objective = lead_in.as_ref().map(|r| clause(text[r.clone()].trim_end().trim_end_matches(':'))).unwrap_or_default();
        let name = if !objective.is_empty() {
            TO_OBJECTIVE
                .captures(&objective)
                .and_then(|c| c.name("o"))
                .map_or_else(|| objective.clone(), |m| gate::capitalise(m.as_str()))
        } else if let Some(h) = &self.heading {
            normalize(h)
        } else {
            gate::label(&normalize(&text[first.1.clone()]), 8)
        };
        let steps: Vec<Step> = list
            .iter()
            .map(|(n, r)| Step {
                step: *n,
                action: normalize(&strip_emphasis(&text[r.clone()])),
                input_required: String::new(),
                output_expected: String::new(),
            })
            .filter(|s| !s.action.is_empty())
            .collect();
        if steps.len() < 2 {
            return;
        }
        let it = Self::new_item(Section::Procedures, Basis::Explicit, STATED)
            .with("name", &name)
            .with("objective", &objective)
            .with_field("steps", Field::Steps(steps));
        let start = lead_in.map_or(first.1.start, |r| r.start);
        let src = self.src(start..last.1.end);
        self.emit(it, &[src], false);
    }

    // ---- retrieval chunks ----

    fn new_pack(&mut self, start: usize) -> Pack {
        if self.section_fresh {
            self.section_fresh = false;
            let title = self.title_override.take().or_else(|| self.heading.clone());
            let evidence_start = self.heading_range.clone().map_or(start, |r| r.start.min(start));
            return Pack { evidence_start, body_start: start, end: start, title, covered: false };
        }
        Pack { evidence_start: start, body_start: start, end: start, title: None, covered: false }
    }

    fn coverable(&self, pk: &Pack, end: usize) -> bool {
        let body = &self.text[pk.body_start..end];
        let mut needed: Vec<String> = evidence::numbers(body).map(str::to_string).collect();
        if let Some(t) = &pk.title {
            needed.extend(evidence::numbers(t).map(str::to_string));
        }
        if needed.is_empty() {
            return true;
        }
        needed.sort();
        needed.dedup();
        evidence::windows(self.text, pk.evidence_start..end, &needed, 2).1
    }

    fn pack_paragraph(&mut self, sents: &[Sent]) {
        for s in sents {
            let r = s.raw.clone();
            if self.pack.is_none() {
                self.pack = Some(self.new_pack(r.start));
            }
            let (split, checked) = match &self.pack {
                Some(pk) if pk.end > pk.body_start => {
                    // Text without digits adds no number to cover and moves no excerpt over
                    // the earlier ones: a covered pack stays covered.
                    let still_covered = pk.covered && evidence::first_digit(&self.text.as_bytes()[pk.end..r.end]).is_none();
                    debug_assert!(!still_covered || self.coverable(pk, r.end));
                    let split =
                        chars(&self.text[pk.body_start..r.end]) > MAX_CHUNK || !(still_covered || self.coverable(pk, r.end));
                    (split, true)
                }
                _ => (false, false),
            };
            if split {
                self.close_pack();
                self.pack = Some(self.new_pack(r.start));
            }
            if let Some(pk) = &mut self.pack {
                pk.end = r.end;
                pk.covered |= checked && !split;
            }
        }
        let long_enough = self.pack.as_ref().is_some_and(|pk| chars(&self.text[pk.body_start..pk.end]) >= 80);
        if long_enough {
            self.close_pack();
        }
    }

    fn close_pack(&mut self) {
        let Some(pk) = self.pack.take() else { return };
        if pk.end <= pk.body_start {
            return;
        }
        let text = self.text;
        let body = normalize(&strip_emphasis(&text[pk.body_start..pk.end]));
        if chars(&body) < 30 {
            return;
        }
        let title = match &pk.title {
            Some(t) => normalize(&strip_emphasis(t)),
            None => {
                let first = first_sentence_in(text, pk.body_start..pk.end).unwrap_or(pk.body_start..pk.end);
                let first = &text[first];
                let lead = LEAD.find(first).map_or(0, |m| m.end());
                gate::label(&normalize(&strip_emphasis(&first[lead..])), 12)
            }
        };
        let range = pk.evidence_start..pk.end;
        let inside = |it: &Item| it.trace.evidence.first().is_some_and(|e| range.contains(&(e.start as usize)));
        let keys_of = |secs: &[Section]| -> Vec<String> {
            let mut v: Vec<String> = self
                .items
                .iter()
                .zip(&self.handles)
                .filter(|(it, _)| secs.contains(&it.section) && inside(it))
                .map(|(it, h)| h.clone().unwrap_or_else(|| it.handle()))
                .collect();
            v.dedup();
            v
        };
        let rules = keys_of(&[Section::Principles, Section::DecisionRules, Section::IfThenRules, Section::Exceptions]);
        let ents = keys_of(&[Section::Entities]);
        let cons = keys_of(&[Section::Concepts]);
        let mut queries: Vec<String> = Vec::new();
        if let Some(h) = &self.heading {
            queries.push(normalize(h));
        }
        for (pos, name) in &self.mentions {
            if range.contains(pos) && !queries.contains(name) && queries.len() < 6 {
                queries.push(name.clone());
            }
        }
        let context = self.input.chunk.path.clone().or_else(|| self.heading.clone()).unwrap_or_default();
        let it = Self::new_item(Section::RetrievalChunks, Basis::Explicit, STATED)
            .with("title", &title)
            .with("standalone_context", &context)
            .with("compressed_knowledge", &body)
            .with_list("activation_queries", queries)
            .with_field("related_rules", Field::Refs(rules))
            .with_field("related_entities", Field::Refs(ents))
            .with_field("related_concepts", Field::Refs(cons));
        let src = self.src(range);
        self.emit(it, &[src], true);
    }
}

fn contains_ref(heading: &str, name: &str) -> bool {
    heading.find(name).is_some_and(|p| {
        let after = heading[p + name.len()..].chars().next();
        !after.is_some_and(|c| {
            c.is_ascii_digit() || c == '.' && heading[p + name.len() + 1..].starts_with(|d: char| d.is_ascii_digit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::chunks;
    use crate::source::{ReadOptions, read_source};

    fn map(name: &str, text: &str) -> Vec<Item> {
        let doc = read_source(name, text.as_bytes(), &ReadOptions::default()).unwrap();
        let cs = chunks(&doc.spans, 6000);
        let mut out = Vec::new();
        for (i, c) in cs.iter().enumerate() {
            let input = MapInput {
                spans: &doc.spans,
                base: 0,
                chunk: c,
                language: doc.language,
                format: doc.format,
                first_chunk: i == 0,
            };
            out.extend(RuleMapper.map(&input).unwrap().items);
        }
        out
    }

    /// The speaker pattern with its cap compiled in (slow to build: built once).
    static BOUNDED_SPEAKER: LazyLock<Regex> = LazyLock::new(|| re(r"^\p{Lu}[\p{L} .'-]{0,30}:\s+"));

    #[test]
    fn speaker_length_cap() {
        for n in [0, 1, 29, 30, 31, 32] {
            for s in
                [format!("A{}: hi", "b".repeat(n)), format!("É{}:  hi", "é".repeat(n)), format!("A{}: hi", " .".repeat(n / 2))]
            {
                assert_eq!(speaker(&s), BOUNDED_SPEAKER.find(&s).map(|m| m.end()), "{s}");
            }
        }
        assert_eq!(speaker(&format!("A{}: hi", "b".repeat(30))), Some(33));
        assert_eq!(speaker(&format!("A{}: hi", "b".repeat(31))), None);
    }

    proptest::proptest! {
        #[test]
        fn speaker_matches_the_bounded_pattern(s in "[A-ZÉa-zé .'-]{0,40}[: ]{0,3}[a-z]{0,3}|\\PC{0,40}") {
            proptest::prop_assert_eq!(speaker(&s), BOUNDED_SPEAKER.find(&s).map(|m| m.end()));
        }
    }

    fn of(items: &[Item], s: Section) -> Vec<&Item> {
        items.iter().filter(|i| i.section == s).collect()
    }

    #[test]
    fn every_excerpt_is_verbatim_and_holds_the_numbers() {
        let t = "Refunds are issued within 14 days. If the order is over $500, a manager must approve the refund.\n\nDo not refund gift cards, because they are cash equivalents.";
        let items = map("p.txt", t);
        assert!(!items.is_empty());
        for it in &items {
            for e in &it.trace.evidence {
                assert!(normalize(t).contains(&e.excerpt), "{}", e.excerpt);
            }
            for n in evidence::item_numbers(it) {
                assert!(it.trace.evidence.iter().any(|e| evidence::contains_number(&e.excerpt, &n)), "{n} in {:?}", it);
            }
        }
        let dec = of(&items, Section::DecisionRules);
        assert_eq!(dec.len(), 1);
        assert_eq!(dec[0].text("condition"), "the order is over $500");
        assert_eq!(dec[0].text("decision"), "a manager must approve the refund.");
        let ant = of(&items, Section::AntiPatterns);
        assert_eq!(ant[0].text("name"), "Refund gift cards");
        assert_eq!(ant[0].text("why_it_fails"), "because they are cash equivalents");
        assert_eq!(of(&items, Section::AtomicUnits).len(), 3);
        assert_eq!(of(&items, Section::CausalChains).len(), 1);
        assert!(!of(&items, Section::RetrievalChunks).is_empty());
    }

    #[test]
    fn procedures_from_numbered_lists() {
        let t = "# Deploying\n\nTo deploy a migration:\n\n1. Announce the freeze.\n2. Run the dry run\n   with the staging flag.\n3. Apply the migration.\n\nAfter that, watch the dashboards.";
        let items = map("r.md", t);
        let p = of(&items, Section::Procedures);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].text("name"), "Deploy a migration");
        let Field::Steps(steps) = p[0].field("steps") else { panic!() };
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[1].action, "Run the dry run with the staging flag.");
    }

    #[test]
    fn faq_pairs_become_qa() {
        let t = "Q: How long do refunds take?\nA: Refunds take 5 business days.\n\nQ: Can I cancel?\nA: Yes, within 30 days.";
        let items = map("faq.txt", t);
        let qa = of(&items, Section::QaPairs);
        assert_eq!(qa.len(), 2);
        assert_eq!(qa[0].text("question"), "How long do refunds take?");
        assert_eq!(qa[0].text("ideal_answer"), "Refunds take 5 business days.");
        assert_eq!(qa[1].text("answer_type"), "yes_no");
    }

    #[test]
    fn cross_section_exceptions() {
        let t = "Section 4.2 — Reimbursement.\n\nFull-time employees may request reimbursement for courses up to $2,000 per year.\n\nSection 4.3 — Language Training.\n\nLanguage courses are reimbursable under Section 4.2 only when the manager has pre-approved the course in writing.";
        let items = map("policy.txt", t);
        let exc = of(&items, Section::Exceptions);
        assert_eq!(exc.len(), 1, "{exc:?}");
        assert!(exc[0].text("general_rule").starts_with("Full-time employees may request"));
        assert_eq!(exc[0].trace.refs(), vec![0, 1]);
        assert!(
            of(&items, Section::DecisionRules)
                .iter()
                .any(|d| d.text("decision").starts_with("Language courses are reimbursable"))
        );
    }
}
