//! What is derived from the source and the items rather than extracted item by item:
//! metadata (§2.3, §3.1), `core_intent` and `domain_map` (§2.4), `agent_instructions` and
//! `knowledge_limits` (§2.6).
//!
//! `core_intent.primary_purpose`, `intended_user` and `key_value` come only from intro,
//! abstract or summary material (empty when the source has none). `intended_agent_use` and
//! `transformation_goal` describe the package itself and are written from a short template in
//! the package language. Instructions and limits copy item text; the few guidance lines that
//! are not copied are templates, so nothing is invented about the world.

use std::sync::LazyLock;

use regex::Regex;
use warrant_text::fasthash::FastSet;

use crate::domain::{DomainGuess, mentions_subdomain};
use crate::lang::Lang;
use crate::map::Intro;
use crate::map::cues::{self, flag};
use crate::model::{
    AgentInstructions, Basis, CoreIntent, DomainMap, Field, Item, KnowledgeLimits, ManifestEntry, Section, Subdomain,
};
use crate::normalize::{chars, normalize, slug};
use crate::score::Score;
use crate::source::{Format, FrontMatter, Span};

/// `package_id` = `<source-slug>-<version>` (§3.1).
pub fn package_id(title: &str, fallback: &str, version: Option<&str>) -> String {
    let mut s = slug(title, '-', 48);
    if s == "item" {
        s = slug(fallback, '-', 48);
    }
    if s == "item" {
        s = "package".into();
    }
    format!("{s}-{}", version_slug(version))
}

/// `v` + the version's slug (`2.0` → `v2-0`, `v3` → `v3`), `v1` when unknown.
pub fn version_slug(version: Option<&str>) -> String {
    let Some(v) = version.map(str::trim).filter(|v| !v.is_empty()) else { return "v1".into() };
    let bare = v.strip_prefix(['v', 'V']).filter(|r| r.starts_with(|c: char| c.is_ascii_digit())).unwrap_or(v);
    let s = slug(bare, '-', 24);
    if s == "item" { "v1".into() } else { format!("v{s}") }
}

static VERSION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^\s*(?:[*_#>-]+\s*)?(?:version|versão|versión|revision|rev\.|edition|edição|edición)\s*[:#]?\s*v?(?P<v>\d+(?:\.\d+){0,3})(?-u:\b)")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// The source's own version: front matter, else a `Version 2.0` line near the top.
pub fn source_version(front: &FrontMatter, text: &str) -> Option<String> {
    if let Some(v) = front.version.clone().or_else(|| front.edition.clone()) {
        return Some(v);
    }
    let head: String = text.lines().take(25).collect::<Vec<_>>().join("\n");
    VERSION_LINE.captures(&head).and_then(|c| c.name("v")).map(|m| m.as_str().to_string())
}

/// The manifest entry of a span (§2.7).
pub fn manifest_entry(index: u32, span: &Span, file: &str) -> ManifestEntry {
    let preview = crate::normalize::preview(&span.text, 200);
    ManifestEntry {
        source_id: crate::model::span_id(index),
        source_type: span.kind.as_str(),
        source_record_id: span.record_id.as_deref().map(normalize),
        source_file: normalize(file),
        path: span.path.as_deref().map(normalize),
        heading: span.heading.as_deref().map(normalize),
        title: span.title.as_deref().map(normalize),
        line_start: span.lines.0,
        line_end: span.lines.1,
        char_start: span.chars.0,
        char_end: span.chars.1,
        text_sha256: crate::hash::sha256_hex(span.text.as_bytes()),
        text_preview: preview,
    }
}

/// `source_type` of the metadata, from the format and what was extracted.
pub fn source_type(format: Format, sections: &[Vec<Item>]) -> &'static str {
    match format {
        Format::Transcript => return "transcript",
        Format::Faq => return "faq",
        Format::LegalNorm => return "legal_text",
        _ => {}
    }
    let atomic = &sections[Section::AtomicUnits.index()];
    let normative = atomic.iter().filter(|a| matches!(a.text("type"), "obligation" | "prohibition" | "exception")).count();
    if !atomic.is_empty() && normative * 4 >= atomic.len() {
        "policy"
    } else if !sections[Section::Procedures.index()].is_empty() {
        "manual"
    } else {
        "article"
    }
}

struct Phrases {
    trigger: &'static str,
    agent_use: &'static str,
    goal: &'static str,
    check_exceptions: &'static str,
    exception: &'static str,
    conditions: &'static str,
    cite: &'static str,
    outside: &'static str,
    no_rule_without_exception: &'static str,
    referenced: &'static str,
    nested: &'static str,
    professional: &'static str,
}

fn phrases(lang: Lang) -> Phrases {
    match lang {
        Lang::PtBr => Phrases {
            trigger: "Aplicar a exceção em vez da regra geral ({rule}) quando o caso for: {case}.",
            agent_use: "Responder perguntas e agir com base em «{title}» usando suas regras, exceções e procedimentos tipados, citando os source_excerpts.",
            goal: "Transformar «{title}» em conhecimento tipado e rastreável que um agente possa seguir.",
            check_exceptions: "Antes de aplicar uma regra geral, verifique as exceções: uma exceção prevalece sobre a regra que ela nomeia.",
            exception: "exceção",
            conditions: "Aplique uma regra de decisão somente quando todas as partes da condição forem verdadeiras.",
            cite: "Cite os source_excerpts dos itens em que a resposta se baseia.",
            outside: "Diga quando a pergunta está fora do pacote (veja knowledge_limits).",
            no_rule_without_exception: "Não aplicar uma regra geral sem verificar suas exceções.",
            referenced: "Referenciado, mas não incluído",
            nested: "Exceção com exceção própria",
            professional: "Conteúdo que exige confirmação de um profissional qualificado antes de agir.",
        },
        Lang::Es => Phrases {
            trigger: "Aplicar la excepción en lugar de la regla general ({rule}) cuando el caso sea: {case}.",
            agent_use: "Responder preguntas y actuar según «{title}» usando sus reglas, excepciones y procedimientos tipados, citando los source_excerpts.",
            goal: "Convertir «{title}» en conocimiento tipado y trazable que un agente pueda seguir.",
            check_exceptions: "Antes de aplicar una regla general, revise sus excepciones: una excepción prevalece sobre la regla que nombra.",
            exception: "excepción",
            conditions: "Aplique una regla de decisión solo cuando se cumplan todas las partes de la condición.",
            cite: "Cite los source_excerpts de los elementos en que se basa la respuesta.",
            outside: "Diga cuándo la pregunta queda fuera del paquete (vea knowledge_limits).",
            no_rule_without_exception: "No aplicar una regla general sin revisar sus excepciones.",
            referenced: "Referenciado pero no incluido",
            nested: "Excepción con su propia excepción",
            professional: "Contenido que requiere confirmación de un profesional calificado antes de actuar.",
        },
        _ => Phrases {
            trigger: "Apply the exception instead of the general rule ({rule}) when the case is: {case}.",
            agent_use: "Answer questions and act on «{title}» using its typed rules, exceptions and procedures, citing their source_excerpts.",
            goal: "Turn «{title}» into typed, traceable knowledge an agent can follow.",
            check_exceptions: "Before applying a general rule, check its exceptions: an exception overrides the rule it names.",
            exception: "exception",
            conditions: "Apply a decision rule only when every part of its condition holds.",
            cite: "Cite the source_excerpts of the items an answer relies on.",
            outside: "Say when a question falls outside the package (see knowledge_limits).",
            no_rule_without_exception: "Do not apply a general rule without checking its exceptions.",
            referenced: "Referenced but not included",
            nested: "Exception with its own exception",
            professional: "Content that needs a qualified professional's confirmation before acting on it.",
        },
    }
}

/// `core_intent` (§2.4).
pub fn core_intent(intro: &Intro, title: &str, lang: Lang) -> CoreIntent {
    let p = phrases(lang);
    CoreIntent {
        primary_purpose: intro.purpose.first().cloned().unwrap_or_default(),
        intended_user: intro.audience.first().cloned().unwrap_or_default(),
        intended_agent_use: normalize(&p.agent_use.replace("{title}", title)),
        transformation_goal: normalize(&p.goal.replace("{title}", title)),
        key_value: intro.value.first().cloned().unwrap_or_default(),
    }
}

/// `domain_map` (§2.4) with subdomain relevance and the concepts that mention each subdomain.
pub fn domain_map(guess: &DomainGuess, sections: &[Vec<Item>]) -> DomainMap {
    let concepts = &sections[Section::Concepts.index()];
    DomainMap {
        main_domain: guess.domain.to_string(),
        subdomains: guess
            .subdomains
            .iter()
            .map(|(name, share)| Subdomain {
                name: (*name).to_string(),
                relevance: Score::hundredths(*share),
                related_concepts: concepts
                    .iter()
                    .filter(|c| mentions_subdomain(name, &format!("{} {}", c.text("label"), c.text("definition"))))
                    .map(|c| c.id.clone())
                    .take(10)
                    .collect(),
            })
            .collect(),
        adjacent_domains: guess.adjacent.iter().map(|d| (*d).to_string()).collect(),
        excluded_domains: Vec::new(),
    }
}

fn push_unique(v: &mut Vec<String>, s: String, max: usize) {
    if v.len() < max && !s.is_empty() && !v.contains(&s) {
        v.push(s);
    }
}

/// The cue flags of every atomic unit's statement, in section order (on every allowed thread),
/// read by both [`agent_instructions`] and [`knowledge_limits`].
pub fn statement_flags(sections: &[Vec<Item>]) -> Vec<u32> {
    crate::par::map(&sections[Section::AtomicUnits.index()], 128, |it| cues::flags(it.text("statement")))
}

/// `agent_instructions` (§2.6). `flags` are [`statement_flags`].
pub fn agent_instructions(sections: &[Vec<Item>], flags: &[u32], lang: Lang) -> AgentInstructions {
    let p = phrases(lang);
    let mut a = AgentInstructions::default();
    for it in &sections[Section::Principles.index()] {
        push_unique(&mut a.behavior_rules, it.text("statement").to_string(), 12);
    }
    let exceptions = &sections[Section::Exceptions.index()];
    if !exceptions.is_empty() {
        a.reasoning_rules.push(p.check_exceptions.to_string());
        for e in exceptions {
            push_unique(
                &mut a.reasoning_rules,
                normalize(&format!("{} — {}: {} ({})", e.text("general_rule"), p.exception, e.text("exception_case"), e.id)),
                13,
            );
        }
        a.forbidden_behaviors.push(p.no_rule_without_exception.to_string());
    }
    if !sections[Section::DecisionRules.index()].is_empty() {
        a.reasoning_rules.push(p.conditions.to_string());
    }
    a.response_rules = vec![p.cite.to_string(), p.outside.to_string()];
    for it in &sections[Section::AntiPatterns.index()] {
        push_unique(&mut a.forbidden_behaviors, it.text("description").to_string(), 13);
    }
    for it in &sections[Section::QaPairs.index()] {
        push_unique(&mut a.preferred_questions, it.text("question").to_string(), 10);
    }
    for (it, &f) in sections[Section::AtomicUnits.index()].iter().zip(flags) {
        if f & flag::TOOL != 0 && f & (flag::OBLIGATION | flag::RECOMMENDATION | flag::PROHIBITION) != 0 {
            push_unique(&mut a.tool_usage_guidance, it.text("statement").to_string(), 10);
        }
    }
    a
}

static SEE_DOC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)(?:see|refer to|as defined in|described in|consulte|veja|ver)\s+(?:the\s+|o\s+|a\s+|el\s+|la\s+)?(?P<d>[^.,;()]{3,60}?(?:policy|handbook|guide|appendix|annex|manual|agreement|document|política|manual|anexo|guia|guía))(?-u:\b)")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// `knowledge_limits` (§2.6). `flags` are [`statement_flags`].
pub fn knowledge_limits(sections: &[Vec<Item>], flags: &[u32], spans: &[Span], domain: &str, lang: Lang) -> KnowledgeLimits {
    let p = phrases(lang);
    let mut k = KnowledgeLimits::default();
    let mut known: FastSet<String> = FastSet::default();
    for s in spans {
        if let Some(r) = &s.record_id {
            known.insert(r.clone());
        }
        if let Some(h) = &s.heading {
            for (_, name) in cues::references(h) {
                known.insert(name);
            }
        }
    }
    // What each statement names, on every allowed thread; the lists are filled in statement
    // order.
    let atomic = &sections[Section::AtomicUnits.index()];
    let read = crate::par::map(atomic, 128, |it| {
        let s = it.text("statement");
        let names: Vec<String> = cues::references(s).into_iter().map(|(_, name)| name).collect();
        let see = SEE_DOC.captures(s).and_then(|c| c.name("d")).map(|d| normalize(d.as_str()));
        (names, see)
    });
    for ((it, (names, see)), &f) in atomic.iter().zip(read).zip(flags) {
        let s = it.text("statement");
        for name in names {
            if !known.contains(&name) {
                push_unique(&mut k.missing_context, format!("{}: {name}", p.referenced), 20);
            }
        }
        if let Some(d) = see {
            push_unique(&mut k.missing_context, format!("{}: {d}", p.referenced), 20);
        }
        if f & flag::ASSUMPTION != 0 {
            push_unique(&mut k.assumptions_detected, s.to_string(), 20);
        }
        if f & flag::OUTDATED != 0 {
            push_unique(&mut k.outdated_sections, s.to_string(), 20);
        }
        if f & flag::HEDGE != 0 {
            push_unique(&mut k.weakly_supported_claims, s.to_string(), 20);
        }
    }
    for it in sections.iter().flatten() {
        if it.trace.basis == Basis::Uncertain || it.trace.confidence < Score::hundredths(50) {
            push_unique(&mut k.weakly_supported_claims, format!("{}: {}", it.id, it.label()), 20);
        }
        if it.trace.basis == Basis::AuthorOpinion {
            push_unique(&mut k.possible_biases, format!("{}: {}", it.id, it.label()), 20);
        }
    }
    for e in &sections[Section::Exceptions.index()] {
        if cues::flags(e.text("exception_case")) & flag::EXCEPTION != 0 {
            push_unique(&mut k.needs_human_review, format!("{} ({}): {}", p.nested, e.id, e.text("exception_case")), 20);
        }
    }
    if matches!(domain, "healthcare" | "legal") && sections.iter().any(|s| !s.is_empty()) {
        push_unique(&mut k.needs_human_review, p.professional.to_string(), 20);
    }
    k
}

/// One inferred contextual trigger per exception: when the exception's case comes up, activate
/// the exception (composition hallucination is applying the rule and missing its exception).
/// The guidance is a template; the item quotes the exception's own excerpts.
pub fn exception_triggers(sections: &mut [Vec<Item>], lang: Lang) {
    let p = phrases(lang);
    let mut triggers = Vec::new();
    for e in &sections[Section::Exceptions.index()] {
        let case = e.text("exception_case");
        let rule = e.text("general_rule");
        if case.is_empty() || rule.is_empty() {
            continue;
        }
        let should = p.trigger.replace("{rule}", rule).replace("{case}", case);
        let mut t = Item::new(Section::ContextualTriggers, Basis::Inferred, Score::hundredths(65))
            .with("if_user_says_or_context_contains", case)
            .with("agent_should", &should)
            .with_field("activate_knowledge", Field::Refs(vec![e.handle()]));
        t.trace.evidence = e.trace.evidence.clone();
        triggers.push(t);
    }
    sections[Section::ContextualTriggers.index()].extend(triggers);
}

/// Sets every concept's `domain` to the package domain.
pub fn concept_domains(sections: &mut [Vec<Item>], domain: &str) {
    for c in &mut sections[Section::Concepts.index()] {
        *c.field_mut("domain") = Field::Text(domain.to_string());
    }
}

/// A title from the first sentence of a text (for sources with no title).
pub fn title_from_text(text: &str) -> String {
    let first = warrant_text::segment::sentences(text).into_iter().next().map_or(text, |r| &text[r]);
    let t = crate::gate::label(&normalize(first), 10);
    if chars(&t) > 80 { t.chars().take(80).collect() } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_ids() {
        assert_eq!(package_id("Session Auth Spec", "x", Some("2.0")), "session-auth-spec-v2-0");
        assert_eq!(package_id("Session Auth Spec", "x", None), "session-auth-spec-v1");
        assert_eq!(package_id("日本語", "notes-2024", Some("v3")), "notes-2024-v3");
        assert_eq!(package_id("", "", Some("")), "package-v1");
        assert_eq!(version_slug(Some("Edition 2")), "vedition-2");
    }

    #[test]
    fn versions_from_the_text() {
        let fm = FrontMatter::default();
        assert_eq!(source_version(&fm, "# Policy\nVersion: 2.1\n\nText.").as_deref(), Some("2.1"));
        assert_eq!(source_version(&fm, "Nothing here."), None);
    }
}
