//! The sanitizer (§7.8): field checks by role, the retrieval-chunk fast path, rich-section
//! near-duplicate removal, and language recovery.
//!
//! | Role | Checks |
//! |---|---|
//! | label, name, title, tag | language (not for entity names: proper names have no language) and obvious truncation |
//! | substantive (over 20 characters) | language, truncation, completeness |
//! | clause (`if`, `cause`, `condition`, …; project rule) | language and obvious truncation |
//! | excerpts | language (switchable off) |

use warrant_text::fasthash::TextMap;

use crate::gate;
use crate::lang::{self, Lang};
use crate::model::{Field, Item, Role, SanitizerAudit, SanitizerReject, Section};
use crate::normalize::chars;
use crate::similarity::EarlierMatches;

/// What happens to an item that fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SanitizerAction {
    /// Drop it (default).
    #[default]
    Remove,
    /// Keep it out of the package but count it as quarantined.
    Quarantine,
}

/// Sanitizer settings.
#[derive(Debug, Clone, Copy)]
pub struct SanitizeOptions {
    /// Remove or quarantine.
    pub action: SanitizerAction,
    /// Check excerpts' language too.
    pub check_excerpt_language: bool,
}

impl Default for SanitizeOptions {
    fn default() -> Self {
        Self { action: SanitizerAction::Remove, check_excerpt_language: true }
    }
}

const PT_SIGNALS: &[&str] = &["não", "são", "você", "também", "então", "está", "uma", "pelo", "pela", "isso", "pelos", "já"];
const EN_SIGNALS: &[&str] = &["the", "and", "with", "which", "should", "must", "is", "are", "of"];
const ES_SIGNALS: &[&str] = &["el", "los", "las", "del", "usted", "también", "está", "pero"];

/// The §7.8 language check: detector consistency for 50+ characters, signal words (and PT
/// accents in an EN package) below that.
pub fn language_ok(text: &str, lang: Lang) -> bool {
    if lang == Lang::Und || text.is_empty() {
        return true;
    }
    if chars(text) >= 50 {
        let d = lang::detect(text);
        return d == Lang::Und || d == lang;
    }
    // Words compared lower-cased without allocating a copy of each.
    let words: Vec<&str> = warrant_text::words::words(text).map(|(_, w)| w).collect();
    let is = |w: &str, set: &[&str]| {
        set.iter().any(|s| {
            // An ASCII word lower-cases byte for byte (the signals are lower-case).
            if w.is_ascii() {
                w.len() == s.len() && w.eq_ignore_ascii_case(s)
            } else {
                w.chars().flat_map(char::to_lowercase).eq(s.chars())
            }
        })
    };
    let has = |set: &[&str]| words.iter().any(|w| is(w, set));
    match lang {
        Lang::En => !has(PT_SIGNALS) && !text.contains(['ã', 'õ']),
        Lang::PtBr => !(words.len() >= 3 && words.iter().filter(|w| is(w, EN_SIGNALS)).count() >= 2),
        Lang::Es => !has(PT_SIGNALS) || has(ES_SIGNALS),
        _ => true,
    }
}

/// [`language_ok`] of every distinct excerpt, computed once: the items cut from one sentence
/// (an atomic unit, a principle, an entity, …) share their excerpt, and an atomic unit's
/// statement is usually its excerpt too.
struct LanguageMemo<'a> {
    lang: Lang,
    /// Distinct excerpt → its index in `ok`.
    index: TextMap<&'a str, u32>,
    ok: Vec<bool>,
}

impl<'a> LanguageMemo<'a> {
    fn new(sections: &'a [Vec<Item>], lang: Lang, opts: &SanitizeOptions) -> Self {
        let mut index: TextMap<&'a str, u32> = TextMap::default();
        if !opts.check_excerpt_language || lang == Lang::Und {
            return LanguageMemo { lang, index, ok: Vec::new() };
        }
        let mut distinct: Vec<&'a str> = Vec::new();
        for it in sections.iter().flatten() {
            for e in &it.trace.evidence {
                index.entry(e.excerpt.as_str()).or_insert_with(|| {
                    distinct.push(&e.excerpt);
                    distinct.len() as u32 - 1
                });
            }
        }
        let ok = crate::par::map(&distinct, 256, |t| language_ok(t, lang));
        LanguageMemo { lang, index, ok }
    }

    fn ok(&self, text: &str) -> bool {
        match self.index.get(text) {
            Some(&k) => self.ok[k as usize],
            None => language_ok(text, self.lang),
        }
    }
}

/// The first check an item fails: (reason, field, text).
fn failure(it: &Item, memo: &LanguageMemo<'_>, opts: &SanitizeOptions) -> Option<(&'static str, &'static str, String)> {
    let spec = it.section.spec();
    for (fs, f) in spec.fields.iter().zip(&it.fields) {
        if fs.required && f.is_empty() {
            return Some(("incomplete_proposition", fs.name, String::new()));
        }
    }
    if it.section == Section::RetrievalChunks {
        let ck = it.text("compressed_knowledge");
        let fast = chars(ck) > 30
            && gate::truncated_and_complete(ck) == (false, true)
            && !it.trace.refs().is_empty()
            && !it.trace.evidence.is_empty();
        if fast {
            return None;
        }
    }
    for (fs, f) in spec.fields.iter().zip(&it.fields) {
        for t in f.texts() {
            let check_lang = !(it.section == Section::Entities && fs.role == Role::Label);
            match fs.role {
                Role::Plain => {}
                Role::Label | Role::Clause => {
                    if check_lang && !memo.ok(t) {
                        return Some(("language_mismatch", fs.name, t.to_string()));
                    }
                    if gate::is_obviously_truncated(t) {
                        return Some(("truncated", fs.name, t.to_string()));
                    }
                }
                Role::Substantive => {
                    if !memo.ok(t) {
                        return Some(("language_mismatch", fs.name, t.to_string()));
                    }
                    if chars(t) > 20 {
                        let (truncated, complete) = gate::truncated_and_complete(t);
                        if truncated {
                            return Some(("truncated", fs.name, t.to_string()));
                        }
                        if !complete {
                            return Some(("incomplete_proposition", fs.name, t.to_string()));
                        }
                    }
                }
            }
        }
    }
    if opts.check_excerpt_language {
        for e in &it.trace.evidence {
            if !memo.ok(&e.excerpt) {
                return Some(("language_mismatch", "source_excerpts", e.excerpt.clone()));
            }
        }
    }
    None
}

/// Repairs a retrieval chunk's bad title from the first sentence of its body.
fn repair_title(it: &mut Item, lang: Lang) {
    let title = it.text("title").to_string();
    if language_ok(&title, lang) && !gate::is_obviously_truncated(&title) && !title.is_empty() {
        return;
    }
    let body = it.text("compressed_knowledge").to_string();
    let first = warrant_text::segment::sentences(&body).into_iter().next().map_or(body.as_str(), |r| &body[r]);
    let repaired = gate::label(first, 12);
    if !repaired.is_empty() {
        *it.field_mut("title") = Field::Text(repaired);
    }
}

/// The result of a sanitizer pass.
#[derive(Debug, Clone, Default)]
pub struct Sanitized {
    /// The report (`sanitizer_audit`).
    pub audit: SanitizerAudit,
    /// Handles of near-duplicates → the handle of the item they duplicate.
    pub redirect: TextMap<String, String>,
    /// The language after recovery, when it was relabelled.
    pub relabelled: Option<Lang>,
}

fn preview(t: &str) -> String {
    crate::normalize::preview(t, 80)
}

fn pass(sections: &mut [Vec<Item>], lang: Lang, opts: &SanitizeOptions, audit: &mut SanitizerAudit) -> Vec<Item> {
    let mut rejected = Vec::new();
    crate::par::for_each_mut(&mut sections[Section::RetrievalChunks.index()], 64, |it| repair_title(it, lang));
    // The checks of one item depend on nothing else: run them on every allowed thread, then
    // keep or reject in order.
    let all_failures: Vec<Vec<_>> = {
        let memo = LanguageMemo::new(sections, lang, opts);
        sections.iter().map(|items| crate::par::map(items, 64, |it| failure(it, &memo, opts))).collect()
    };
    for (items, failures) in sections.iter_mut().zip(all_failures) {
        let mut kept = Vec::with_capacity(items.len());
        for (it, failed) in std::mem::take(items).into_iter().zip(failures) {
            match failed {
                None => kept.push(it),
                Some((reason, field, text)) => {
                    match opts.action {
                        SanitizerAction::Remove => audit.removed_count += 1,
                        SanitizerAction::Quarantine => audit.quarantined_count += 1,
                    }
                    audit.rejected_items.push(SanitizerReject {
                        section: it.section.key(),
                        item_id: it.merge_key(),
                        reason,
                        field,
                        text_preview: preview(&text),
                    });
                    rejected.push(it);
                }
            }
        }
        *items = kept;
    }
    rejected
}

/// Runs the sanitizer. `preflight` is the language preflight detected; when it differs from
/// `lang` and language mismatches are over 20% of the rejects (at least 3), the package is
/// relabelled and sanitized again (§7.8 language recovery).
pub fn sanitize(sections: &mut [Vec<Item>], lang: Lang, preflight: Lang, opts: &SanitizeOptions) -> Sanitized {
    let mut out = Sanitized::default();
    let rejected = pass(sections, lang, opts, &mut out.audit);
    let mismatches = out.audit.rejected_items.iter().filter(|r| r.reason == "language_mismatch").count();
    let total = out.audit.rejected_items.len();
    if preflight != lang && preflight != Lang::Und && mismatches >= 3 && mismatches * 5 > total {
        let before = total as u32;
        for it in rejected {
            let i = it.section.index();
            sections[i].push(it);
        }
        for s in sections.iter_mut() {
            crate::reduce::sort_section(s);
        }
        let mut audit = SanitizerAudit::default();
        pass(sections, preflight, opts, &mut audit);
        audit.language_recovery_applied = Some(true);
        audit.restored_count = Some(before.saturating_sub(audit.rejected_items.len() as u32));
        out.audit = audit;
        out.relabelled = Some(preflight);
    }
    dedup(sections, &mut out);
    out
}

/// Rich-section near-duplicates at token Jaccard ≥ 0.85 (§7.8): the later item goes.
/// Sections are independent: each is searched on its own thread, and the redirects are
/// recorded in section order.
fn dedup(sections: &mut [Vec<Item>], out: &mut Sanitized) {
    let tasks: Vec<(Section, &mut Vec<Item>)> = Section::ALL.into_iter().zip(sections.iter_mut()).collect();
    let done = crate::par::map_owned(tasks, |(_, items)| items.len(), |(s, items)| dedup_section(s, items));
    for redirects in done {
        for (from, to) in redirects {
            out.redirect.insert(from, to);
            out.audit.deduplicated_count += 1;
        }
    }
}

/// Drops one section's near-duplicates; returns (handle of the dropped item, handle of the
/// item it duplicates), in order.
fn dedup_section(s: Section, items: &mut Vec<Item>) -> Vec<(String, String)> {
    let Some(key) = s.spec().sanitize_key else { return Vec::new() };
    let keys: Vec<String> = crate::par::map(items, 128, |it| it.key_text(key));
    // An item goes when an earlier kept item matches it (one pass in order).
    let mut found = EarlierMatches::new(0.85, &keys);
    let mut keep = vec![true; items.len()];
    let mut redirects = Vec::new();
    for i in 0..keys.len() {
        match found.first(i, |j| keep[j], |_, _| true) {
            Some(t) => {
                keep[i] = false;
                redirects.push((items[i].handle(), items[t].handle()));
            }
            None => found.keep(i),
        }
    }
    let mut k = keep.into_iter();
    items.retain(|_| k.next().unwrap_or(true));
    redirects
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Basis, Evidence};
    use crate::score::Score;

    fn atomic(s: &str) -> Item {
        Item::new(Section::AtomicUnits, Basis::Explicit, Score::hundredths(95))
            .with("statement", s)
            .with("type", "fact")
            .with_evidence([Evidence { span: 0, start: 0, end: 1, excerpt: s.into() }])
    }

    #[test]
    fn removes_failing_items_with_reasons_and_dedups() {
        let mut s = vec![Vec::new(); 17];
        s[Section::AtomicUnits.index()] = vec![
            atomic("Refunds take five business days to arrive."),
            atomic("Refunds take five business days to arrive!"),
            atomic("This statement simply stops without"),
            atomic("O aluno não deve copiar as respostas da prova de matemática."),
        ];
        let r = sanitize(&mut s, Lang::En, Lang::En, &SanitizeOptions::default());
        assert_eq!(s[Section::AtomicUnits.index()].len(), 1);
        let reasons: Vec<&str> = r.audit.rejected_items.iter().map(|x| x.reason).collect();
        assert_eq!(reasons, vec!["truncated", "language_mismatch"]);
        assert_eq!(r.audit.deduplicated_count, 1);
        assert_eq!(r.audit.removed_count, 2);
    }

    #[test]
    fn language_checks() {
        assert!(language_ok("Refunds", Lang::En));
        assert!(!language_ok("não pode", Lang::En));
        assert!(language_ok("Alliance Française course", Lang::En));
        assert!(language_ok("A avaliação formativa orienta a aprendizagem", Lang::PtBr));
        assert!(!language_ok("The student must read the book and the notes", Lang::PtBr));
    }

    #[test]
    fn language_recovery_relabels() {
        let mut s = vec![Vec::new(); 17];
        s[Section::AtomicUnits.index()] =
            (0..4).map(|i| atomic(&format!("O aluno número {i} não deve copiar as respostas da prova de matemática."))).collect();
        let r = sanitize(&mut s, Lang::En, Lang::PtBr, &SanitizeOptions::default());
        assert_eq!(r.relabelled, Some(Lang::PtBr));
        assert_eq!(r.audit.language_recovery_applied, Some(true));
        assert_eq!(r.audit.restored_count, Some(4));
        assert_eq!(s[Section::AtomicUnits.index()].len(), 4);
    }
}
