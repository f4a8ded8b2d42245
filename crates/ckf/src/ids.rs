//! Ids and traceability (§3, §7.9).
//!
//! An id is the section prefix plus the slug of the item's normalised label, cut to 48
//! characters at a `_` (D41). Items are put in §3.2 order first; on a collision the first keeps
//! the bare id and later ones get `_` + six hex digits of SHA-256 over their canonical content
//! JSON, then `_2`, `_3`, … if even that collides. Cross-references are rewritten from
//! compile-time handles to ids, and `source_traceability` is rebuilt from the surviving items
//! with `extraction_type` = `source_basis` (D40) and the manifest's locations.

use warrant_text::fasthash::{TextMap, TextSet};

use crate::hash::sha256_hex;
use crate::model::{Basis, Field, Item, ManifestEntry, Section, TraceRow, span_id};
use crate::normalize::cut_slug;
#[cfg(test)]
use crate::normalize::slug_full;

/// Longest slug in an id (§3.2).
pub const MAX_SLUG: usize = 48;

#[cfg(test)]
/// The base id of an item: prefix + slug of its label, cut to 48 characters.
pub fn base_id(it: &Item) -> String {
    let full = slug_full(&it.label(), '_');
    let cut = cut_slug(&full, '_', MAX_SLUG);
    format!("{}{}", it.section.prefix(), if cut.is_empty() { "item" } else { cut })
}

/// [`base_id`] from the item's handle, which starts with its merge key: the prefix and the
/// untruncated slug of the label (or `item`), followed by `|` when the section has identity
/// fields.
fn base_id_from_handle(section: Section, handle: &str) -> String {
    let key = handle.split('|').next().unwrap_or(handle);
    let prefix = section.prefix();
    let slug = key.get(prefix.len()..).unwrap_or("");
    let cut = cut_slug(slug, '_', MAX_SLUG);
    format!("{prefix}{}", if cut.is_empty() { "item" } else { cut })
}

/// Sorts every section, assigns ids and rewrites references. Returns handle → id.
pub fn assign(sections: &mut [Vec<Item>]) -> TextMap<String, String> {
    let mut by_handle: TextMap<String, String> = TextMap::default();
    // Ids are unique within a section: each section is sorted and numbered on its own thread,
    // and the handles are recorded in section order (the first id of a handle wins).
    let tasks: Vec<&mut Vec<Item>> = sections.iter_mut().collect();
    let named = crate::par::map_owned(
        tasks,
        |items| items.len(),
        |items| {
            crate::reduce::sort_section(items);
            // Handles and base ids depend on one item each: computed on every allowed thread.
            let handles = crate::par::map(items, 128, Item::handle);
            let mut used: TextSet<String> = TextSet::default();
            let mut named: Vec<(String, String)> = Vec::with_capacity(items.len());
            for (it, handle) in items.iter_mut().zip(handles) {
                let base = base_id_from_handle(it.section, &handle);
                let mut id = base.clone();
                if used.contains(&id) {
                    let h = sha256_hex(it.content_json().as_bytes());
                    id = format!("{base}_{}", &h[..6]);
                    let mut n = 2;
                    while used.contains(&id) {
                        id = format!("{base}_{}_{n}", &h[..6]);
                        n += 1;
                    }
                }
                used.insert(id.clone());
                named.push((handle, id.clone()));
                it.id = id;
            }
            named
        },
    );
    for (handle, id) in named.into_iter().flatten() {
        by_handle.entry(handle).or_insert(id);
    }
    // Items are rewritten independently (on every allowed thread).
    for items in sections.iter_mut() {
        crate::par::for_each_mut(items, 256, |it| {
            let own = it.id.clone();
            for f in &mut it.fields {
                match f {
                    Field::Refs(v) => {
                        let mut out: Vec<String> = Vec::with_capacity(v.len());
                        for h in v.iter() {
                            if let Some(id) = by_handle.get(h)
                                && *id != own
                                && !out.contains(id)
                            {
                                out.push(id.clone());
                            }
                        }
                        *v = out;
                    }
                    Field::Related(v) => {
                        v.retain_mut(|r| match by_handle.get(&r.entity) {
                            Some(id) if *id != own => {
                                r.entity = id.clone();
                                true
                            }
                            _ => false,
                        });
                    }
                    _ => {}
                }
            }
        });
    }
    by_handle
}

/// Drops references to ids that no longer exist (after the numeric guard removed items).
pub fn prune_refs(sections: &mut [Vec<Item>]) {
    let live: TextSet<String> = sections.iter().flatten().map(|i| i.id.clone()).collect();
    for items in sections.iter_mut() {
        crate::par::for_each_mut(items, 256, |it| {
            for f in &mut it.fields {
                match f {
                    Field::Refs(v) => v.retain(|id| live.contains(id)),
                    Field::Related(v) => v.retain(|r| live.contains(&r.entity)),
                    _ => {}
                }
            }
        });
    }
}

/// Rebuilds `source_traceability` (§2.7): one row per `source_refs` entry, the excerpt matched
/// by index, enriched from the manifest.
pub fn traceability(sections: &[Vec<Item>], manifest: &[ManifestEntry]) -> Vec<TraceRow> {
    // Each item's rows depend on that item alone: built on every allowed thread, joined in
    // section and item order.
    let items: Vec<&Item> = Section::ALL.iter().flat_map(|s| &sections[s.index()]).collect();
    let per_item = crate::par::map(&items, 256, |it| rows_of(it, manifest));
    let mut rows = Vec::with_capacity(per_item.iter().map(Vec::len).sum());
    for r in per_item {
        rows.extend(r);
    }
    rows
}

/// One item's traceability rows: one per `source_refs` entry with an excerpt from that span.
fn rows_of(it: &Item, manifest: &[ManifestEntry]) -> Vec<TraceRow> {
    if it.trace.basis == Basis::Synthesized && it.trace.evidence.is_empty() {
        return Vec::new();
    }
    let mut rows = Vec::new();
    for span in it.trace.refs() {
        let Some(ev) = it.trace.evidence.iter().find(|e| e.span == span) else { continue };
        let m = manifest.get(span as usize);
        rows.push(TraceRow {
            extracted_item_id: it.id.clone(),
            source_location: span_id(span),
            source_excerpt: ev.excerpt.clone(),
            extraction_type: it.trace.basis,
            source_record_id: m.and_then(|m| m.source_record_id.clone()),
            source_file: m.map(|m| m.source_file.clone()).unwrap_or_default(),
            source_path: m.and_then(|m| m.path.clone()),
            source_line_start: m.map_or(0, |m| m.line_start),
            source_line_end: m.map_or(0, |m| m.line_end),
            source_char_start: m.map_or(0, |m| m.char_start),
            source_char_end: m.map_or(0, |m| m.char_end),
            source_basis: it.trace.basis,
            confidence: it.trace.confidence,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Evidence;
    use crate::score::Score;

    proptest::proptest! {
        /// The base id read off the handle equals the §3 definition (slug of the normalised
        /// label, cut to 48 characters), with and without identity fields.
        #[test]
        fn base_id_from_the_handle_is_the_base_id(
            a in "[ a-zA-Z0-9.,_'|\u{e9}\u{301}\u{ff21}]{0,70}",
            b in "[ a-zA-Z0-9.,_'\u{e9}]{0,30}",
        ) {
            let items = [
                Item::new(Section::IfThenRules, Basis::Explicit, Score::ONE).with("if", &a).with("then", &b),
                Item::new(Section::CausalChains, Basis::Explicit, Score::ONE).with("cause", &a).with("effect", &b),
                Item::new(Section::AtomicUnits, Basis::Explicit, Score::ONE).with("statement", &a).with("type", "fact"),
            ];
            for it in items {
                proptest::prop_assert_eq!(base_id_from_handle(it.section, &it.handle()), base_id(&it));
            }
        }
    }

    fn entity(name: &str, desc: &str, span: u32) -> Item {
        Item::new(Section::Entities, Basis::Explicit, Score::hundredths(80))
            .with("name", name)
            .with("type", "name")
            .with("description", desc)
            .with_evidence([Evidence { span, start: 0, end: 1, excerpt: desc.into() }])
    }

    #[test]
    fn ids_are_slugs_with_suffixes_only_on_collision() {
        let mut s = vec![Vec::new(); 17];
        s[0] = vec![
            entity("Session token", "A token.", 0),
            entity("Session-Token", "Another one.", 1),
            entity("Avaliação formativa", "X.", 2),
        ];
        assign(&mut s);
        let ids: Vec<&str> = s[0].iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids[0], "ent_session_token");
        assert!(ids[1].starts_with("ent_session_token_") && ids[1].len() == "ent_session_token_".len() + 6, "{ids:?}");
        assert_eq!(ids[2], "ent_avaliacao_formativa");
        // Stable: the same input gives the same ids.
        let mut again = vec![Vec::new(); 17];
        again[0] = vec![
            entity("Avaliação formativa", "X.", 2),
            entity("Session-Token", "Another one.", 1),
            entity("Session token", "A token.", 0),
        ];
        assign(&mut again);
        let ids2: Vec<&str> = again[0].iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ids2);
    }

    #[test]
    fn long_labels_cut_at_a_separator() {
        let mut s = vec![Vec::new(); 17];
        s[0] = vec![entity("Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda", "d.", 0)];
        assign(&mut s);
        assert_eq!(s[0][0].id, "ent_alpha_beta_gamma_delta_epsilon_zeta_eta_theta");
    }
}
