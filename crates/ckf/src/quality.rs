//! Quality scores and metadata calibration (§7.11).

use std::sync::LazyLock;

use regex::RegexSet;
use serde::Serialize;

use crate::model::{CoreIntent, PromotionAudit, SanitizerAudit, Section};
use crate::score::Score;

/// The compile result's `quality`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Quality {
    /// 0.8 × share of the five core sections that are non-empty + 0.2 × core intent present.
    pub coverage: Score,
    /// min(1, items per chunk / 6).
    pub density: Score,
    /// 0.6 × share with refs + 0.3 × share with confidence + 0.1 × mean confidence.
    pub traceability: Score,
    /// Populated sections / 21.
    pub schema_completeness: Score,
    /// 1 minus the allocation penalties.
    pub section_allocation_quality: Score,
    /// Mean of the five scores above.
    pub overall: Score,
    /// Same as `section_allocation_quality` (the spec reports both names).
    pub section_allocation_score: Score,
    /// Share of items and candidates not rejected for their language.
    pub language_fidelity: Score,
    /// promoted / (promoted + rejected); 1 with no candidates.
    pub promotion_acceptance_rate: Score,
    /// 0.4 × coverage + 0.6 × schema_completeness.
    pub human_readability: Score,
    /// 0.5 × traceability + 0.3 × density + 0.2 × coverage.
    pub ai_utility_score: Score,
}

static SIGNALS: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        r"(?i)(?-u:\b)(?:however|but|although|instead|whereas|on the other hand|mas|porém|contudo|embora|pero|sin embargo|aunque)(?-u:\b)",
        r"(?i)(?-u:\b)(?:step|first|then|next|finally|procedure|passo|primeiro|depois|paso|primero|luego)(?-u:\b)",
        r"(?i)(?-u:\b)(?:if|when|unless|se|quando|caso|si|cuando)(?-u:\b)",
    ])
    .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// What the source text signals (§7.11 section allocation).
#[derive(Debug, Clone, Copy, Default)]
pub struct SourceSignals {
    /// Contrastive words.
    pub contrastive: bool,
    /// Procedural words.
    pub procedural: bool,
    /// Conditional words.
    pub conditional: bool,
    /// Word count.
    pub words: u64,
}

impl SourceSignals {
    /// Adds a text's signals.
    pub fn add(&mut self, text: &str) {
        if !(self.contrastive && self.procedural && self.conditional) {
            let m = SIGNALS.matches(text);
            self.contrastive |= m.matched(0);
            self.procedural |= m.matched(1);
            self.conditional |= m.matched(2);
        }
    }
}

fn f(s: Score) -> f64 {
    s.as_f64()
}

/// Computes the scores.
#[allow(clippy::too_many_arguments)]
pub fn quality(
    sections: &[Vec<Item>],
    core_intent: &CoreIntent,
    chunks: usize,
    signals: &SourceSignals,
    promotion: &PromotionAudit,
    sanitizer: &SanitizerAudit,
    object_sections_populated: usize,
) -> Quality {
    let n = |s: Section| sections[s.index()].len();
    let core = [Section::Entities, Section::Concepts, Section::Principles, Section::DecisionRules, Section::Procedures];
    let core_filled = core.iter().filter(|s| n(**s) > 0).count() as f64 / core.len() as f64;
    let intent = if core_intent.primary_purpose.is_empty() { 0.0 } else { 1.0 };
    let coverage = 0.8 * core_filled + 0.2 * intent;
    let items: usize = sections.iter().map(Vec::len).sum();
    let density = if chunks == 0 { 0.0 } else { (items as f64 / chunks as f64 / 6.0).min(1.0) };
    let all: Vec<&Item> = sections.iter().flatten().collect();
    let traceability = if all.is_empty() {
        0.0
    } else {
        let with_refs = all.iter().filter(|i| !i.trace.evidence.is_empty()).count() as f64 / all.len() as f64;
        let mean_conf = all.iter().map(|i| i.trace.confidence.as_f64()).sum::<f64>() / all.len() as f64;
        0.6 * with_refs + 0.3 + 0.1 * mean_conf
    };
    let populated = Section::ALL.iter().filter(|s| n(**s) > 0).count() + object_sections_populated;
    let schema_completeness = populated as f64 / 21.0;
    let lang_rejects = promotion.rejected_items.iter().filter(|r| r.reason == "language_mismatch").count()
        + sanitizer.rejected_items.iter().filter(|r| r.reason == "language_mismatch").count();
    let considered = items + promotion.rejected_items.len() + sanitizer.rejected_items.len();
    let language_fidelity = if considered == 0 { 1.0 } else { 1.0 - lang_rejects as f64 / considered as f64 };
    let candidates = promotion.promoted_count + promotion.rejected_count;
    let incomplete = promotion.rejected_items.iter().filter(|r| r.reason == "incomplete_proposition").count();
    let mut alloc: f64 = 1.0;
    if items > 0 && (n(Section::AtomicUnits) + n(Section::RetrievalChunks)) as f64 > 0.8 * items as f64 {
        alloc -= 0.20;
    }
    if signals.contrastive && n(Section::AntiPatterns) == 0 && n(Section::DecisionRules) == 0 {
        alloc -= 0.20;
    }
    if signals.procedural && n(Section::Procedures) == 0 && n(Section::Playbooks) == 0 {
        alloc -= 0.15;
    }
    if signals.conditional && n(Section::Exceptions) == 0 && n(Section::IfThenRules) == 0 {
        alloc -= 0.15;
    }
    if signals.words > 1000 && n(Section::QaPairs) == 0 {
        alloc -= 0.10;
    }
    if language_fidelity < 0.9 {
        alloc -= 0.10;
    }
    if candidates > 0 && incomplete as f64 > 0.25 * f64::from(candidates) {
        alloc -= 0.10;
    }
    let coverage = Score::from_f64(coverage);
    let density = Score::from_f64(density);
    let traceability = Score::from_f64(traceability);
    let schema_completeness = Score::from_f64(schema_completeness);
    let alloc = Score::from_f64(alloc.max(0.0));
    let overall = Score::from_f64((f(coverage) + f(density) + f(traceability) + f(schema_completeness) + f(alloc)) / 5.0);
    Quality {
        coverage,
        density,
        traceability,
        schema_completeness,
        section_allocation_quality: alloc,
        overall,
        section_allocation_score: alloc,
        language_fidelity: Score::from_f64(language_fidelity),
        promotion_acceptance_rate: if candidates == 0 {
            Score::ONE
        } else {
            Score::from_f64(f64::from(promotion.promoted_count) / f64::from(candidates))
        },
        human_readability: Score::from_f64(0.4 * f(coverage) + 0.6 * f(schema_completeness)),
        ai_utility_score: Score::from_f64(0.5 * f(traceability) + 0.3 * f(density) + 0.2 * f(coverage)),
    }
}

use crate::model::Item;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_package_scores_low_but_sane() {
        let sections = vec![Vec::new(); 17];
        let q = quality(
            &sections,
            &CoreIntent::default(),
            1,
            &SourceSignals::default(),
            &PromotionAudit::default(),
            &SanitizerAudit::default(),
            0,
        );
        assert_eq!(q.coverage, Score::ZERO);
        assert_eq!(q.schema_completeness, Score::ZERO);
        assert_eq!(q.section_allocation_quality, Score::ONE);
        assert_eq!(q.promotion_acceptance_rate, Score::ONE);
    }
}
