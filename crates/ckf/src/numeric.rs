//! Numeric guards (§7.10): every number an item states must be found in what it quotes.
//!
//! Each numeric token of an item's claim fields is looked up in the item's excerpts. Multi-part
//! items whose text is longer than two excerpts can hold (procedures, playbooks, QA answers)
//! may instead find it in their referenced span's text; navigation fields (`standalone_context`,
//! `activation_queries`, `tags`, copied from headings) may find it in the span's heading trail.
//! A truncated number is repaired to the longer literal the source has (`$1,250` →
//! `$1,250,000.00`), except dates and citations. A number found nowhere makes the item
//! unverifiable, and it is dropped.

use std::sync::LazyLock;

use regex::Regex;
use warrant_text::quantity::{Dimension, find_quantities};

use crate::map::evidence::{NAVIGATION_FIELDS, contains_number, numbers};
use crate::model::{Item, NumericCorrection, NumericIntegrity, Section, span_id};
use crate::score::Score;
use crate::source::Span;

static CITATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:(?-u:\b)(?:lei|decreto|art\.?|artigo|article|section|sec\.|chapter|cap[ií]tulo|rfc|iso|iec|ieee|doi|isbn)\s*(?:n[º°o.]\s*)?|§\s*)[0-9]")
        .unwrap_or_else(|e| panic!("regex: {e}"))
});

/// The numeric kinds of a text, in a fixed order: `money`, `percent`, `date`, `time`,
/// `duration`, `citation_reference`, `quantity`.
pub fn kinds_in(text: &str) -> Vec<String> {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let mut found = [false; 7];
    for q in find_quantities(text) {
        match q.dimension {
            Dimension::Money(_) => found[0] = true,
            Dimension::Percent => found[1] = true,
            Dimension::Duration => found[4] = true,
            Dimension::Number => {}
            _ => found[6] = true,
        }
    }
    for d in warrant_text::date::find_dates(text) {
        match d.kind {
            warrant_text::date::DateKind::Time => found[3] = true,
            warrant_text::date::DateKind::Date | warrant_text::date::DateKind::Year => found[2] = true,
            _ => {}
        }
    }
    if CITATION.is_match(text) {
        found[5] = true;
    }
    if !found.iter().any(|f| *f) {
        found[6] = true;
    }
    const NAMES: [&str; 7] = ["money", "percent", "date", "time", "duration", "citation_reference", "quantity"];
    NAMES.iter().zip(found).filter(|(_, f)| *f).map(|(n, _)| (*n).to_string()).collect()
}

fn is_date_or_citation(context: &str, token: &str) -> bool {
    let Some(p) = context.find(token) else { return false };
    let mut a = p.saturating_sub(12);
    while !context.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = (p + token.len() + 4).min(context.len());
    while !context.is_char_boundary(b) {
        b += 1;
    }
    CITATION.is_match(&context[a..b]) || token.contains(['/', ':']) || (token.len() == 4 && token.starts_with(['1', '2']))
}

/// Sections whose long texts may be checked against the span instead of the excerpts.
fn span_checked(section: Section) -> bool {
    matches!(section, Section::Procedures | Section::Playbooks | Section::QaPairs)
}

/// The longer literal of `hay` that starts with `token` (`1,250` → `1,250,000.00`).
fn longer_literal(hay: &str, token: &str) -> Option<String> {
    numbers(hay)
        .find(|n| n.len() > token.len() && n.starts_with(token) && !n[token.len()..].starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
}

/// Runs the guard over every item. Items found unverifiable are removed; the report lists the
/// repairs by item id (ids must be assigned).
pub fn guard(sections: &mut [Vec<Item>], spans: &[Span]) -> NumericIntegrity {
    let mut report = NumericIntegrity::default();
    for items in sections.iter_mut() {
        // Items are checked independently (on every allowed thread, each with its own
        // report); the reports are added up in order.
        let mut checked: Vec<(Item, NumericIntegrity, bool)> =
            std::mem::take(items).into_iter().map(|it| (it, NumericIntegrity::default(), true)).collect();
        crate::par::for_each_mut(&mut checked, 64, |(item, r, ok)| *ok = check_item(item, spans, r));
        for (item, r, ok) in checked {
            report.total_values_checked += r.total_values_checked;
            report.exact_matches += r.exact_matches;
            report.corrected += r.corrected;
            report.unverifiable += r.unverifiable;
            report.corrections.extend(r.corrections);
            if ok {
                items.push(item);
            }
        }
    }
    let total = report.total_values_checked;
    report.numeric_integrity_score = if total == 0 {
        Score::ONE
    } else {
        let ok = f64::from(report.exact_matches + report.corrected) / f64::from(total);
        Score::from_f64(ok - 0.1 * f64::from(report.unverifiable))
    };
    report
}

fn check_item(item: &mut Item, spans: &[Span], report: &mut NumericIntegrity) -> bool {
    // The trace is read while the fields are repaired (disjoint parts of the item).
    let excerpts: Vec<&str> = item.trace.evidence.iter().map(|e| e.excerpt.as_str()).collect();
    let span_texts: Vec<&Span> = item.trace.refs().into_iter().filter_map(|i| spans.get(i as usize)).collect();
    let section = item.section;
    let id = item.id.clone();
    let first_ref = item.trace.refs().first().map(|i| span_id(*i)).unwrap_or_default();
    let spec = section.spec();
    let mut ok = true;
    let mut corrections = Vec::new();
    for (fs, field) in spec.fields.iter().zip(item.fields.iter_mut()) {
        let navigation = NAVIGATION_FIELDS.contains(&fs.name);
        for text in field.texts_mut() {
            let tokens: Vec<String> = numbers(text).map(str::to_string).collect();
            for tok in tokens {
                report.total_values_checked += 1;
                // Cheapest first: the excerpts; the span's text only where it may stand in.
                let in_excerpts = || excerpts.iter().any(|e| contains_number(e, &tok));
                let in_span = || span_texts.iter().any(|s| contains_number(&s.text, &tok));
                let in_trail = || {
                    span_texts.iter().any(|s| {
                        [s.path.as_deref(), s.heading.as_deref(), s.title.as_deref()]
                            .into_iter()
                            .flatten()
                            .any(|t| contains_number(t, &tok))
                    })
                };
                let found = in_excerpts() || ((span_checked(section) || navigation) && in_span()) || (navigation && in_trail());
                if found {
                    report.exact_matches += 1;
                    continue;
                }
                // Repair a truncated literal, except dates and citations.
                let context = text.clone();
                let repair = if is_date_or_citation(&context, &tok) {
                    None
                } else {
                    excerpts.iter().find_map(|e| longer_literal(e, &tok))
                };
                match repair {
                    Some(to) => {
                        *text = text.replacen(tok.as_str(), &to, 1);
                        report.corrected += 1;
                        corrections.push(NumericCorrection {
                            item_id: id.clone(),
                            field: fs.name,
                            from: tok.clone(),
                            to,
                            source_ref: first_ref.clone(),
                        });
                    }
                    None => {
                        report.unverifiable += 1;
                        ok = false;
                    }
                }
            }
        }
    }
    if ok {
        report.corrections.extend(corrections);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Basis, Evidence};
    use crate::source::SpanKind;

    fn span(text: &str) -> Span {
        Span { path: Some("Policy 7".into()), lines: (1, 1), ..Span::new(SpanKind::Document, text.into()) }
    }

    fn atomic(statement: &str, excerpt: &str) -> Item {
        let mut it = Item::new(Section::AtomicUnits, Basis::Explicit, Score::hundredths(95))
            .with("statement", statement)
            .with("type", "fact");
        it.id = "atm_x".into();
        it.trace.evidence.push(Evidence { span: 0, start: 0, end: 1, excerpt: excerpt.into() });
        it
    }

    #[test]
    fn kinds() {
        assert_eq!(kinds_in("Pay $2,000 within 60 days."), vec!["money", "duration"]);
        assert_eq!(kinds_in("See Section 4.2 by 2024-05-01 at 14:30."), vec!["date", "time", "citation_reference"]);
        assert_eq!(kinds_in("Up 15% on 3 servers."), vec!["percent"]);
        assert_eq!(kinds_in("Keep 3 servers."), vec!["quantity"]);
        assert!(kinds_in("No numbers.").is_empty());
    }

    #[test]
    fn exact_repaired_and_unverifiable() {
        let spans = vec![span("The fee is $1,250,000.00 and 7 people agree.")];
        let mut sections = vec![vec![
            atomic("The fee is $1,250,000.00.", "The fee is $1,250,000.00 and 7 people agree."),
            atomic("The fee is $1,250.", "The fee is $1,250,000.00 and 7 people agree."),
            atomic("Nine people agree, 9 in all.", "The fee is $1,250,000.00 and 7 people agree."),
        ]];
        let r = guard(&mut sections, &spans);
        assert_eq!(sections[0].len(), 2);
        assert_eq!(sections[0][1].text("statement"), "The fee is $1,250,000.00.");
        assert_eq!((r.total_values_checked, r.exact_matches, r.corrected, r.unverifiable), (3, 1, 1, 1));
        assert_eq!(r.corrections[0].to, "1,250,000.00");
        assert_eq!(r.numeric_integrity_score, Score::hundredths(57));
        let mut empty: Vec<Vec<Item>> = vec![vec![]];
        assert_eq!(guard(&mut empty, &spans).numeric_integrity_score, Score::ONE);
    }
}
