//! Promotion (§7.6): copy matching content of atomic units and retrieval chunks into
//! `if_then_rules`, `playbooks` and `anti_patterns`. It never deletes and never invents: a
//! promoted item quotes exactly what its source item quotes, with the source's basis and
//! confidence × 0.85.
//!
//! Candidates are sentences with a cue (`if`, `when`, `to`, `first/then`, `do not use`, …);
//! sentences without one are not candidates and are not counted. Each candidate passes the
//! gate in order — language, truncation, completeness, near-duplicate — or is rejected with its
//! first failing reason; a cue whose full pattern does not parse is `no_pattern_match`.

use std::sync::LazyLock;

use regex::Regex;
use warrant_text::segment::sentences;

use crate::gate::{self, tokens};
use crate::lang::{self, Lang};
use crate::map::cues;
use crate::model::{Item, PromotionAudit, PromotionReject, Section, span_id};
use crate::normalize::{chars, normalize};
use crate::similarity::JaccardIndex;
use warrant_text::pattern::compile as re;

/// Near-duplicate threshold against the target section.
const NEAR_DUPLICATE: f64 = 0.85;

static IF_CUE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:if|when|in case of|to|se|quando|para|em caso de|si|cuando|en caso de)(?-u:\b)"));
static ANTI_CUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:do not use|don't use|should not|shouldn't|instead of|avoid using|never use|não use|não deve|em vez de|evite usar|no use|no debe|en lugar de|evite usar)(?-u:\b)",
    )
});
static STEP_CUE: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|\s)1[.)]\s+\S.*\s2[.)]\s+\S"));
static FIRST_CUE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)(?-u:\b)(?:first|primeiro|primero)(?-u:\b)"));
static NUMBERED_STEP: LazyLock<Regex> = LazyLock::new(|| re(r"(?:^|\s)(\d{1,2})[.)]\s+"));

/// Promotion settings.
#[derive(Debug, Clone, Copy)]
pub struct PromoteOptions {
    /// `disablePromotion` (ablations).
    pub enabled: bool,
}

struct Candidate {
    text: String,
    source: usize,
    source_section: Section,
    /// The first sentence of a retrieval chunk.
    first: bool,
}

/// Runs promotion over the sections in place.
pub fn promote(sections: &mut [Vec<Item>], language: Lang, opts: PromoteOptions) -> PromotionAudit {
    let mut audit = PromotionAudit::default();
    if !opts.enabled {
        return audit;
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for (i, it) in sections[Section::AtomicUnits.index()].iter().enumerate() {
        candidates.push(Candidate {
            text: it.text("statement").to_string(),
            source: i,
            source_section: Section::AtomicUnits,
            first: false,
        });
    }
    // A chunk's sentences are found on every allowed thread, then listed in chunk order.
    let chunks: Vec<(usize, &Item)> = sections[Section::RetrievalChunks.index()].iter().enumerate().collect();
    let from_chunks = crate::par::map(&chunks, 64, |&(i, it)| {
        let body = it.text("compressed_knowledge");
        let mut out = Vec::new();
        for r in sentences(body) {
            let s = &body[r];
            if chars(s) > 12 && out.len() < 6 {
                out.push(Candidate {
                    text: s.to_string(),
                    source: i,
                    source_section: Section::RetrievalChunks,
                    first: out.is_empty(),
                });
            }
        }
        out
    });
    candidates.extend(from_chunks.into_iter().flatten());
    let mut targets: Vec<(Section, JaccardIndex, usize)> = [Section::IfThenRules, Section::Playbooks, Section::AntiPatterns]
        .into_iter()
        .map(|t| {
            let keys: Vec<Vec<String>> = crate::par::map(&sections[t.index()], 128, |it| tokens(&dup_key(it)));
            let mut ix = JaccardIndex::new(NEAR_DUPLICATE, keys.iter().map(Vec::as_slice));
            for (k, key) in keys.into_iter().enumerate() {
                ix.insert(k, key);
            }
            let n = sections[t.index()].len();
            (t, ix, n)
        })
        .collect();
    // Building each candidate's items and its text checks depend on nothing else: they run on
    // every allowed thread. The near-duplicate checks against what was promoted before, the
    // counts and the order of the promoted items stay one sequential pass, in candidate order.
    let built: Vec<Vec<Considered>> = {
        let sections: &[Vec<Item>] = sections;
        crate::par::map(&candidates, 32, |c| build(c, &sections[c.source_section.index()][c.source], language))
    };
    let mut promoted: Vec<Item> = Vec::new();
    for (c, considered) in candidates.iter().zip(built) {
        let source = &sections[c.source_section.index()][c.source];
        for k in considered {
            consider(c, k, &mut targets, &mut promoted, &mut audit, source);
        }
    }
    for it in promoted {
        let i = it.section.index();
        sections[i].push(it);
    }
    audit
}

/// One promotion a candidate was considered for, prepared without the near-duplicate check.
struct Considered {
    target: Section,
    /// The gates read the source chunk's body (a chunk's playbook), else the candidate's text.
    reads_body: bool,
    /// The first text gate that failed (language, truncation, completeness).
    text_reason: Option<&'static str>,
    built: Option<Item>,
    /// The near-duplicate key tokens of `built`.
    key: Vec<String>,
    /// The reject's text preview, made here when the candidate is sure to be rejected.
    preview: Option<String>,
}

impl Considered {
    fn new(target: Section, text: &str, reads_body: bool, built: Option<Item>, language: Lang) -> Self {
        let text_reason = text_gate(text, language);
        // The key is only read when the text gates pass and there is an item.
        let (key, preview) = match (&text_reason, &built) {
            (None, Some(it)) => (tokens(&dup_key(it)), None),
            _ => (Vec::new(), Some(crate::normalize::preview(text, 80))),
        };
        Considered { target, reads_body, text_reason, built, key, preview }
    }
}

/// What one candidate could be promoted to, in the order the targets are considered.
fn build(c: &Candidate, source: &Item, language: Lang) -> Vec<Considered> {
    let mut out = Vec::new();
    // Playbooks: a whole retrieval chunk with numbered steps or sequence words (its first
    // sentence stands for it), or an atomic unit that says first/then/finally.
    if c.source_section == Section::RetrievalChunks && c.first {
        let body = source.text("compressed_knowledge");
        if STEP_CUE.is_match(body) || FIRST_CUE.is_match(body) {
            out.push(Considered::new(Section::Playbooks, body, true, playbook(source), language));
        }
    } else if c.source_section == Section::AtomicUnits && cues::flags(&c.text) & cues::flag::SEQUENCE != 0 {
        let built = cues::sequence_steps(&c.text)
            .map(|steps| derive(source, Section::Playbooks).with("name", &gate::label(&c.text, 8)).with_list("steps", steps));
        out.push(Considered::new(Section::Playbooks, &c.text, false, built, language));
    }
    if IF_CUE.is_match(&c.text) {
        let built = cues::conditional(&c.text, language)
            .or_else(|| cues::conditional(&c.text, Lang::En))
            .or_else(|| to_clause(&c.text))
            .map(|(cond, then)| {
                let because = cues::exception_split(&c.text)
                    .map(|(_, case, _)| format!("Exception: {}", c.text[case].trim_end_matches('.')))
                    .or_else(|| cues::rationale(&c.text))
                    .unwrap_or_default();
                derive(source, Section::IfThenRules)
                    .with("if", c.text[cond].trim_end_matches(','))
                    .with("then", &c.text[then])
                    .with("because", &because)
            });
        out.push(Considered::new(Section::IfThenRules, &c.text, false, built, language));
    }
    if ANTI_CUE.is_match(&c.text) {
        let built = cues::prohibited_behaviour(&c.text).map(|name| {
            derive(source, Section::AntiPatterns)
                .with("name", &name)
                .with("description", &c.text)
                .with("replacement_behavior", cues::replacement(&c.text).as_deref().unwrap_or(""))
        });
        out.push(Considered::new(Section::AntiPatterns, &c.text, false, built, language));
    }
    out
}

/// `To X, Y` as a conditional: the `if` keeps the purpose clause.
fn to_clause(s: &str) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let lower = s.get(..3)?.to_lowercase();
    if lower != "to " {
        return None;
    }
    let comma = s.find(',')?;
    let rest = s[comma + 1..].trim_start();
    (rest.split_whitespace().count() >= 2).then(|| (0..comma, s.len() - rest.len()..s.len()))
}

/// A new item in `target` that quotes what `source` quotes, at 0.85 × its confidence.
fn derive(source: &Item, target: Section) -> Item {
    let mut it = Item::new(target, source.trace.basis, source.trace.confidence.scale(85));
    it.trace.evidence = source.trace.evidence.clone();
    it
}

fn playbook(chunk: &Item) -> Option<Item> {
    let body = chunk.text("compressed_knowledge");
    let marks: Vec<(usize, usize)> =
        NUMBERED_STEP.captures_iter(body).filter_map(|c| c.get(0).map(|m| (m.start(), m.end()))).collect();
    let steps: Vec<String> = if marks.len() >= 2 {
        marks
            .iter()
            .enumerate()
            .map(|(i, (_, end))| {
                let stop = marks.get(i + 1).map_or(body.len(), |n| n.0);
                normalize(&body[*end..stop])
            })
            .filter(|s| !s.is_empty())
            .take(8)
            .collect()
    } else {
        cues::sequence_steps(body)?
    };
    if steps.len() < 2 {
        return None;
    }
    let intro = marks.first().map_or("", |m| body[..m.0].trim());
    let objective = intro.trim_end_matches(':').trim();
    // "To rotate keys:" names the playbook "Rotate keys"; otherwise the chunk's title does.
    let name = objective
        .strip_prefix("To ")
        .or_else(|| objective.strip_prefix("to "))
        .filter(|o| !o.is_empty() && o.split_whitespace().count() <= 12)
        .map_or_else(|| chunk.text("title").to_string(), gate::capitalise);
    Some(
        derive(chunk, Section::Playbooks)
            .with("name", &name)
            .with("objective", if chars(objective) <= 200 { objective } else { "" })
            .with("activation_context", chunk.text("standalone_context"))
            .with_list("steps", steps),
    )
}

/// The near-duplicate key of an item in a promotion target.
fn dup_key(it: &Item) -> String {
    match it.section {
        Section::IfThenRules => it.key_text(&["if", "then"]),
        Section::Playbooks => it.key_text(&["name", "steps"]),
        _ => it.key_text(&["name", "description"]),
    }
}

fn consider(
    c: &Candidate,
    k: Considered,
    targets: &mut [(Section, JaccardIndex, usize)],
    promoted: &mut Vec<Item>,
    audit: &mut PromotionAudit,
    source: &Item,
) {
    let reason = gate_reason(&k, targets);
    match (reason, k.built) {
        (None, Some(item)) => {
            if let Some((_, ix, n)) = targets.iter_mut().find(|(t, _, _)| *t == k.target) {
                ix.insert(*n, k.key);
                *n += 1;
            }
            audit.promoted_count += 1;
            promoted.push(item);
        }
        (reason, _) => {
            audit.rejected_count += 1;
            let text_preview = k.preview.unwrap_or_else(|| {
                let text = if k.reads_body { source.text("compressed_knowledge") } else { &c.text };
                crate::normalize::preview(text, 80)
            });
            audit.rejected_items.push(PromotionReject {
                source_id: source.trace.refs().first().map(|s| span_id(*s)).unwrap_or_default(),
                source_section: c.source_section.key(),
                target_section: k.target.key(),
                reason: reason.unwrap_or("no_pattern_match"),
                text_preview,
            });
        }
    }
}

/// The gates that read only the text: language, truncation, completeness.
fn text_gate(text: &str, language: Lang) -> Option<&'static str> {
    if chars(text) >= 50 {
        let detected = lang::detect(text);
        if detected != Lang::Und && language != Lang::Und && detected != language {
            return Some("language_mismatch");
        }
    }
    match gate::truncated_and_complete(text) {
        (true, _) => Some("truncated"),
        (false, false) => Some("incomplete_proposition"),
        (false, true) => None,
    }
}

fn gate_reason(k: &Considered, targets: &[(Section, JaccardIndex, usize)]) -> Option<&'static str> {
    if let Some(r) = k.text_reason {
        return Some(r);
    }
    let item = k.built.as_ref()?;
    let dup = targets.iter().find(|(t, _, _)| *t == k.target).is_some_and(|(_, ix, _)| ix.first_match(&k.key).is_some());
    if dup {
        return Some("near_duplicate");
    }
    if item.fields.iter().zip(k.target.spec().fields).any(|(f, fs)| fs.required && f.is_empty()) {
        return Some("no_pattern_match");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Basis, Evidence, Field};
    use crate::score::Score;

    fn atomic(s: &str) -> Item {
        Item::new(Section::AtomicUnits, Basis::Explicit, Score::hundredths(95))
            .with("statement", s)
            .with("type", "rule")
            .with_evidence([Evidence { span: 0, start: 0, end: 1, excerpt: s.into() }])
    }

    fn sections(items: Vec<Item>) -> Vec<Vec<Item>> {
        let mut s = vec![Vec::new(); 17];
        for it in items {
            let i = it.section.index();
            s[i].push(it);
        }
        s
    }

    #[test]
    fn promotes_conditionals_and_counts_rejects() {
        let mut s = sections(vec![
            atomic("If the build fails, roll back the release."),
            atomic("When the queue is long, add a worker to the pool."),
            atomic("If the build fails, roll back the release!"),
            atomic("If in doubt"),
            atomic("The sky is blue today and always."),
        ]);
        let a = promote(&mut s, Lang::En, PromoteOptions { enabled: true });
        let rules = &s[Section::IfThenRules.index()];
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].text("if"), "the build fails");
        assert_eq!(rules[0].trace.confidence, Score::hundredths(81));
        assert_eq!(a.promoted_count, 2);
        let reasons: Vec<&str> = a.rejected_items.iter().map(|r| r.reason).collect();
        assert_eq!(reasons, vec!["near_duplicate", "incomplete_proposition"]);
        assert_eq!(a.rejected_count, 2);
        let off = promote(&mut sections(vec![atomic("If x happens, do y now.")]), Lang::En, PromoteOptions { enabled: false });
        assert_eq!(off.promoted_count + off.rejected_count, 0);
    }

    #[test]
    fn promotes_playbooks_and_anti_patterns() {
        let chunk = Item::new(Section::RetrievalChunks, Basis::Explicit, Score::hundredths(95))
            .with("title", "Rotate keys")
            .with("standalone_context", "Security > Keys")
            .with("compressed_knowledge", "To rotate keys: 1. Create a new key. 2. Deploy it. 3. Revoke the old key.")
            .with_evidence([Evidence { span: 0, start: 0, end: 1, excerpt: "To rotate keys:".into() }]);
        let mut s = sections(vec![chunk, atomic("You should not use shared accounts for deploys.")]);
        let a = promote(&mut s, Lang::En, PromoteOptions { enabled: true });
        let pb = &s[Section::Playbooks.index()];
        assert_eq!(pb.len(), 1, "{a:?}");
        assert_eq!(
            pb[0].field("steps"),
            &Field::List(vec!["Create a new key.".into(), "Deploy it.".into(), "Revoke the old key.".into()])
        );
        assert_eq!(pb[0].text("objective"), "To rotate keys");
        assert_eq!(s[Section::AntiPatterns.index()][0].text("name"), "Use shared accounts for deploys");
    }
}
