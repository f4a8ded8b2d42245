//! Reduce (§6, §7.5): merge the partials into one set of sections.
//!
//! Items are first put in the §3.2 order (first span, normalised label, canonical content), so
//! the first-seen item of a group is always the same. Then, section by section:
//!
//! 1. same merge key — *and* the same identity fields (project rule: two if-then rules with the
//!    same `if` but different `then` are two rules; merging them would silently drop one);
//! 2. entities: one label is an alias or exact name of the other;
//! 3. procedures, playbooks, if-then rules: the same fingerprint of their action sequence;
//! 4. fuzzy: token Jaccard over the §6.1 keys and thresholds (exact normalised name for
//!    patterns and mental models, exact title for retrieval chunks).
//!
//! A merge (§6.2) takes `max − σ` of the confidences, the most conservative basis, the union of
//! excerpts (two kept: the survivor's own first, then one from another span), the union of
//! lists, and the longer free text — unless the longer text states a number the kept excerpts
//! do not hold. Cross-references are rewritten to the surviving items, and entity relations
//! that name their target are resolved to it (unresolved ones are dropped with a warning).

use warrant_text::fasthash::{TextMap, TextSet};

use crate::gate::tokens;
use crate::map::evidence::{contains_number, numbers};
use crate::model::{Basis, Evidence, Field, Item, Section};
use crate::normalize::{normalize, slug_full};
use crate::score::{Score, merge_confidence};
use crate::similarity::{EarlierMatches, JaccardIndex};

/// Sections after reduce, and what it noticed.
#[derive(Debug, Clone, Default)]
pub struct Reduced {
    /// The 17 item sections.
    pub sections: Vec<Vec<Item>>,
    /// Notes for the compile result.
    pub warnings: Vec<String>,
}

/// Sorts a section in §3.2 order. The canonical content JSON only breaks ties of span and label,
/// so it is computed for those items alone.
pub fn sort_section(items: &mut [Item]) {
    let mut keyed: Vec<((u32, String), usize)> =
        crate::par::map(items, 256, |it| (it.trace.first_span(), it.label())).into_iter().zip(0..).collect();
    keyed.sort();
    let mut order: Vec<usize> = Vec::with_capacity(keyed.len());
    let mut i = 0;
    while i < keyed.len() {
        let mut j = i + 1;
        while j < keyed.len() && keyed[j].0 == keyed[i].0 {
            j += 1;
        }
        if j - i == 1 {
            order.push(keyed[i].1);
        } else {
            let mut tie: Vec<(String, usize)> = keyed[i..j].iter().map(|(_, k)| (items[*k].content_json(), *k)).collect();
            tie.sort();
            order.extend(tie.into_iter().map(|(_, k)| k));
        }
        i = j;
    }
    let mut taken: Vec<Option<Item>> = items.iter_mut().map(|i| Some(std::mem::replace(i, placeholder(i.section)))).collect();
    for (dst, src) in order.into_iter().enumerate() {
        if let Some(it) = taken[src].take() {
            items[dst] = it;
        }
    }
}

fn placeholder(section: Section) -> Item {
    Item::new(section, Basis::Explicit, Score::ZERO)
}

/// A group of merged items.
struct Group {
    item: Item,
    /// The first absorbed excerpt from a span the survivor does not quote.
    other_span: Option<Evidence>,
    /// The first absorbed excerpt that differs from the survivor's.
    other_excerpt: Option<Evidence>,
    confidences: Vec<Score>,
    handles: Vec<String>,
}

impl Group {
    fn new(item: Item, handle: String) -> Self {
        let confidences = vec![item.trace.confidence];
        Group { item, other_span: None, other_excerpt: None, confidences, handles: vec![handle] }
    }

    /// Remembers the first excerpts worth keeping beside the survivor's own (O(1) per merge).
    fn note_evidence(&mut self, e: Evidence) {
        let own = &self.item.trace.evidence;
        if self.other_span.is_none() && !own.iter().any(|x| x.span == e.span) {
            self.other_span = Some(e.clone());
        }
        if self.other_excerpt.is_none() && !own.iter().any(|x| x.excerpt == e.excerpt) {
            self.other_excerpt = Some(e);
        }
    }

    /// Merges `other` into this group (§6.2).
    fn absorb(&mut self, mut other: Group) {
        self.item.trace.basis = self.item.trace.basis.max(other.item.trace.basis);
        let spec = self.item.section.spec();
        let other_evidence = std::mem::take(&mut other.item.trace.evidence);
        // The survivor's excerpts are read while its fields change (disjoint parts of the item).
        let own_excerpts = &self.item.trace.evidence;
        for (fs, (mine, theirs)) in
            spec.fields.iter().zip(self.item.fields.iter_mut().zip(std::mem::take(&mut other.item.fields)))
        {
            match (mine, theirs) {
                (Field::Text(a), Field::Text(b)) => {
                    let label_field = spec.label.contains(&fs.name);
                    if !label_field
                        && b.chars().count() > a.chars().count()
                        && numbers(&b).all(|n| own_excerpts.iter().any(|e| contains_number(&e.excerpt, n)))
                    {
                        *a = b;
                    }
                }
                (Field::List(a), Field::List(b)) | (Field::Refs(a), Field::Refs(b)) => {
                    for x in b {
                        if !a.contains(&x) {
                            a.push(x);
                        }
                    }
                }
                (Field::Steps(a), Field::Steps(b)) if a.is_empty() => {
                    *a = b;
                }
                (Field::Related(a), Field::Related(b)) => {
                    for r in b {
                        match a.iter_mut().find(|x| x.entity == r.entity && x.relation_type == r.relation_type) {
                            Some(x) => x.confidence = x.confidence.max(r.confidence),
                            None => a.push(r),
                        }
                    }
                }
                _ => {}
            }
        }
        for e in other_evidence.into_iter().chain(other.other_span).chain(other.other_excerpt) {
            self.note_evidence(e);
        }
        self.confidences.extend(other.confidences);
        self.handles.extend(other.handles);
    }

    /// Adds a label as an alias (entities).
    fn add_alias(&mut self, label: &str) {
        if self.item.section != Section::Entities || label.is_empty() || normalize(label) == self.item.text("name") {
            return;
        }
        if let Field::List(a) = self.item.field_mut("aliases")
            && !a.iter().any(|x| x == label)
        {
            a.push(label.to_string());
        }
    }

    fn finish(mut self) -> (Item, Vec<String>) {
        // Excerpts: the survivor's own (they back its text), then one from another span.
        let mut kept: Vec<Evidence> = std::mem::take(&mut self.item.trace.evidence);
        kept.truncate(2);
        if kept.len() < 2
            && let Some(e) = self.other_span.take().or_else(|| self.other_excerpt.take())
        {
            kept.push(e);
        }
        self.item.trace.evidence = kept;
        if self.confidences.len() > 1 {
            self.item.trace.confidence = merge_confidence(&self.confidences);
        }
        (self.item, self.handles)
    }
}

/// Merges the partials' items (see module docs).
pub fn reduce(items: Vec<Item>) -> Reduced {
    let mut sections: Vec<Vec<Item>> = vec![Vec::new(); Section::ALL.len()];
    for it in items {
        let i = it.section.index();
        sections[i].push(it);
    }
    let mut redirect: TextMap<String, String> = TextMap::default();
    let mut out_sections = Vec::with_capacity(sections.len());
    // Sections merge independently (each on its own thread); the redirects are recorded in
    // section order, as one loop would.
    let tasks: Vec<(Section, Vec<Item>)> = Section::ALL.into_iter().zip(sections).collect();
    let done = crate::par::map_owned(
        tasks,
        |(_, items)| items.len(),
        |(section, mut items)| {
            sort_section(&mut items);
            let groups = dedup_section(section, items);
            let (finished, absorbed): (Vec<Item>, Vec<Vec<String>>) = groups.into_iter().map(Group::finish).unzip();
            // A group that absorbed nothing holds its item unchanged: its handle is the one
            // computed before merging.
            let changed: Vec<(&Item, bool)> = finished.iter().zip(&absorbed).map(|(it, hs)| (it, hs.len() > 1)).collect();
            let own: Vec<Option<String>> = crate::par::map(&changed, 256, |&(it, changed)| changed.then(|| it.handle()));
            let mut moved = Vec::new();
            let mut handles = Vec::with_capacity(finished.len());
            for (h, mut absorbed) in own.into_iter().zip(absorbed) {
                let h = match h {
                    Some(h) => h,
                    None => absorbed.swap_remove(0),
                };
                for old in absorbed {
                    if old != h {
                        moved.push((old, h.clone()));
                    }
                }
                handles.push(h);
            }
            (finished, moved, handles)
        },
    );
    let mut handles = Vec::with_capacity(done.len());
    for (finished, moved, h) in done {
        redirect.extend(moved);
        out_sections.push(finished);
        handles.push(h);
    }
    let mut warnings = Vec::new();
    // Rewriting references changes no label or identity field: the handles stay valid.
    rewrite_refs_with(&mut out_sections, &redirect, &handles);
    resolve_relations(&mut out_sections, &handles[Section::Entities.index()], &mut warnings);
    Reduced { sections: out_sections, warnings }
}

fn dedup_section(section: Section, items: Vec<Item>) -> Vec<Group> {
    let spec = section.spec();
    let mut groups: Vec<Option<Group>> = Vec::with_capacity(items.len());
    // Step 1: same handle (merge key + identity).
    let mut by_handle: TextMap<String, usize> = TextMap::default();
    let handles = crate::par::map(&items, 256, Item::handle);
    for (it, h) in items.into_iter().zip(handles) {
        match by_handle.get(&h) {
            Some(&g) => {
                if let Some(grp) = groups[g].as_mut() {
                    grp.absorb(Group::new(it, h));
                }
            }
            None => {
                by_handle.insert(h.clone(), groups.len());
                groups.push(Some(Group::new(it, h)));
            }
        }
    }
    // Step 2: entity aliases and exact names.
    if section == Section::Entities {
        let mut by_label: TextMap<String, usize> = TextMap::default();
        for i in 0..groups.len() {
            let Some(g) = &groups[i] else { continue };
            let mut labels = vec![g.item.text("name").to_lowercase()];
            if let Field::List(a) = g.item.field("aliases") {
                labels.extend(a.iter().map(|x| x.to_lowercase()));
            }
            let target = labels.iter().find_map(|l| by_label.get(l).copied()).filter(|&t| t != i);
            match target {
                Some(t) => {
                    merge_pair(&mut groups, t, i, true);
                    let survivor = if groups[t].is_some() { t } else { i };
                    for l in labels {
                        by_label.entry(l).or_insert(survivor);
                    }
                }
                None => {
                    for l in labels {
                        by_label.entry(l).or_insert(i);
                    }
                }
            }
        }
    }
    // Step 3: action-sequence fingerprints — (name or objective) + steps; if + then.
    let fingerprints = |it: &Item| -> Vec<String> {
        match section {
            Section::Procedures | Section::Playbooks => {
                let steps = slug_full(&it.field_text("steps"), '_');
                ["name", "objective"]
                    .iter()
                    .map(|f| slug_full(it.text(f), '_'))
                    .filter(|x| !x.is_empty())
                    .map(|x| format!("{x}|{steps}"))
                    .collect()
            }
            Section::IfThenRules => vec![slug_full(&it.key_text(&["if", "then"]), '_')],
            _ => Vec::new(),
        }
    };
    if matches!(section, Section::Procedures | Section::Playbooks | Section::IfThenRules) {
        let mut seen: TextMap<String, usize> = TextMap::default();
        for i in 0..groups.len() {
            let Some(g) = &groups[i] else { continue };
            let fps = fingerprints(&g.item);
            match fps.iter().find_map(|f| seen.get(f).copied()) {
                Some(t) => merge_pair(&mut groups, t, i, false),
                None => {
                    for f in fps {
                        seen.entry(f).or_insert(i);
                    }
                }
            }
        }
    }
    // Step 4: fuzzy.
    match spec.fuzzy {
        Some((fields, threshold)) => fuzzy(&mut groups, section, fields, threshold),
        None => {
            let mut seen: TextMap<String, usize> = TextMap::default();
            for i in 0..groups.len() {
                let Some(g) = &groups[i] else { continue };
                let key = format!("{}|{}", g.item.label().to_lowercase(), identity(&g.item));
                match seen.get(&key) {
                    Some(&t) => merge_pair(&mut groups, t, i, false),
                    None => {
                        seen.insert(key, i);
                    }
                }
            }
        }
    }
    groups.into_iter().flatten().collect()
}

fn identity(it: &Item) -> String {
    let spec = it.section.spec();
    if spec.identity.is_empty() { String::new() } else { slug_full(&it.key_text(spec.identity), '_') }
}

/// Merges group `b` into `a` (or `a` into `b` for alias merges when `b` is more confident).
fn merge_pair(groups: &mut [Option<Group>], a: usize, b: usize, by_confidence: bool) {
    if a == b {
        return;
    }
    let (Some(ga), Some(gb)) = (groups[a].as_ref(), groups[b].as_ref()) else { return };
    let b_wins = by_confidence && gb.item.trace.confidence > ga.item.trace.confidence;
    let (keep, drop) = if b_wins { (b, a) } else { (a, b) };
    let Some(dropped) = groups[drop].take() else { return };
    let mut labels = Vec::new();
    if dropped.item.section == Section::Entities {
        labels.push(dropped.item.text("name").to_string());
        if let Field::List(v) = dropped.item.field("aliases") {
            labels.extend(v.iter().cloned());
        }
    }
    if let Some(k) = groups[keep].as_mut() {
        k.absorb(dropped);
        for l in labels {
            k.add_alias(&l);
        }
    }
}

fn fuzzy(groups: &mut [Option<Group>], section: Section, fields: &[&str], threshold: f64) {
    if section != Section::Entities {
        return fuzzy_by_key(groups, section, fields, threshold);
    }
    // Entities compare every label; other sections their key fields.
    let keys: Vec<Vec<Vec<String>>> = crate::par::map(groups, 128, |g| match g {
        None => Vec::new(),
        Some(g) if section == Section::Entities => {
            let mut labels = vec![tokens(g.item.text("name"))];
            if let Field::List(a) = g.item.field("aliases") {
                labels.extend(a.iter().map(|x| tokens(x)));
            }
            labels
        }
        Some(g) => vec![tokens(&g.item.key_text(fields))],
    });
    let idents: Vec<String> = crate::par::map(groups, 256, |g| g.as_ref().map(|g| identity(&g.item)).unwrap_or_default());
    let mut index = JaccardIndex::new(threshold, keys.iter().flatten().map(Vec::as_slice));
    let identity_fields = section.spec().identity;
    let ident_in_key = identity_fields.iter().all(|f| fields.contains(f));
    for i in 0..groups.len() {
        if groups[i].is_none() {
            continue;
        }
        let target = keys[i].iter().flat_map(|k| index.matches_iter(k)).filter(|&t| groups[t].is_some()).find(|&t| {
            // Items that differ in what they say are not merged on a similar label alone.
            ident_in_key || identity_fields.is_empty() || idents[t] == idents[i]
        });
        match target {
            Some(t) => merge_pair(groups, t, i, section == Section::Entities),
            None => {
                for k in &keys[i] {
                    index.insert(i, k.clone());
                }
            }
        }
    }
}

/// [`fuzzy`] for sections other than entities: one key per item, and a merge always keeps the
/// earlier item, so an item is merged into the first earlier item still standing that matches
/// it (an index of the items kept so far: see [`EarlierMatches`]).
fn fuzzy_by_key(groups: &mut [Option<Group>], section: Section, fields: &[&str], threshold: f64) {
    let keys: Vec<String> = crate::par::map(groups, 128, |g| g.as_ref().map(|g| g.item.key_text(fields)).unwrap_or_default());
    let idents: Vec<String> = crate::par::map(groups, 256, |g| g.as_ref().map(|g| identity(&g.item)).unwrap_or_default());
    let identity_fields = section.spec().identity;
    let ident_in_key = identity_fields.iter().all(|f| fields.contains(f));
    // Items that differ in what they say are not merged on a similar label alone.
    let accept = |i: usize, t: usize| ident_in_key || identity_fields.is_empty() || idents[t] == idents[i];
    let mut found = EarlierMatches::new(threshold, &keys);
    for i in 0..groups.len() {
        if groups[i].is_none() {
            continue;
        }
        match found.first(i, |t| groups[t].is_some(), accept) {
            Some(t) => merge_pair(groups, t, i, false),
            None => found.keep(i),
        }
    }
}

/// Rewrites every cross-reference through `redirect` and drops those to items that are gone.
pub fn rewrite_refs(sections: &mut [Vec<Item>], redirect: &TextMap<String, String>) {
    let handles: Vec<Vec<String>> = sections.iter().map(|s| crate::par::map(s, 256, Item::handle)).collect();
    rewrite_refs_with(sections, redirect, &handles);
}

/// [`rewrite_refs`] with every item's handle given (`handles[section][item]`).
fn rewrite_refs_with(sections: &mut [Vec<Item>], redirect: &TextMap<String, String>, handles: &[Vec<String>]) {
    let live: TextSet<&str> = handles.iter().flatten().map(String::as_str).collect();
    let resolve = |h: &String| -> Option<String> {
        let mut cur = h.clone();
        for _ in 0..8 {
            if live.contains(cur.as_str()) {
                return Some(cur);
            }
            cur = redirect.get(&cur)?.clone();
        }
        None
    };
    // Items are rewritten independently (on every allowed thread).
    let mut work: Vec<(&mut Item, &String)> =
        sections.iter_mut().zip(handles).flat_map(|(items, hs)| items.iter_mut().zip(hs)).collect();
    crate::par::for_each_mut(&mut work, 256, |(it, own)| {
        let own: &String = own;
        if !it.fields.iter().any(|f| matches!(f, Field::Refs(v) if !v.is_empty())) {
            return;
        }
        for f in &mut it.fields {
            if let Field::Refs(v) = f {
                let mut out: Vec<String> = Vec::with_capacity(v.len());
                for h in v.iter() {
                    if let Some(r) = resolve(h)
                        && &r != own
                        && !out.contains(&r)
                    {
                        out.push(r);
                    }
                }
                *v = out;
            }
        }
    });
}

/// Resolves entity relations that name their target to the target's handle.
fn resolve_relations(sections: &mut [Vec<Item>], handles: &[String], warnings: &mut Vec<String>) {
    let mut by_label: TextMap<String, String> = TextMap::default();
    // Relations do not change the entities' handles.
    for (it, h) in sections[Section::Entities.index()].iter().zip(handles) {
        by_label.entry(it.text("name").to_lowercase()).or_insert_with(|| h.clone());
        by_label.entry(slug_full(it.text("name"), '_')).or_insert_with(|| h.clone());
        if let Field::List(a) = it.field("aliases") {
            for al in a {
                by_label.entry(al.to_lowercase()).or_insert_with(|| h.clone());
            }
        }
    }
    let live: TextSet<&str> = handles.iter().map(String::as_str).collect();
    for (it, own) in sections[Section::Entities.index()].iter_mut().zip(handles) {
        let name = it.text("name").to_string();
        if let Field::Related(rels) = it.field_mut("related_entities") {
            let mut out = Vec::with_capacity(rels.len());
            for mut r in std::mem::take(rels) {
                let target = if live.contains(r.entity.as_str()) {
                    Some(r.entity.clone())
                } else {
                    by_label.get(&r.entity.to_lowercase()).or_else(|| by_label.get(&slug_full(&r.entity, '_'))).cloned()
                };
                match target {
                    Some(t) if &t != own => {
                        r.entity = t;
                        if !out
                            .iter()
                            .any(|x: &crate::model::Relation| x.entity == r.entity && x.relation_type == r.relation_type)
                        {
                            out.push(r);
                        }
                    }
                    Some(_) => {}
                    None => warnings.push(format!("entity '{name}': relation to unknown entity '{}' dropped", r.entity)),
                }
            }
            *rels = out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(span: u32, text: &str) -> Evidence {
        Evidence { span, start: 0, end: text.len() as u32, excerpt: text.into() }
    }

    fn entity(name: &str, alias: &[&str], conf: u8, span: u32) -> Item {
        Item::new(Section::Entities, Basis::Explicit, Score::hundredths(conf))
            .with("name", name)
            .with("type", "name")
            .with("description", &format!("{name} is mentioned."))
            .with_list("aliases", alias.iter().map(|s| s.to_string()).collect())
            .with_evidence([ev(span, &format!("{name} is mentioned here."))])
    }

    #[test]
    fn same_key_merges_with_max_minus_sigma_and_conservative_basis() {
        let mut a = entity("Workday", &[], 90, 0);
        let mut b = entity("Workday", &[], 70, 2);
        b.trace.basis = Basis::Inferred;
        a.trace.evidence.push(ev(0, "Workday again."));
        let r = reduce(vec![a, b]);
        let e = &r.sections[0];
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].trace.confidence, Score::hundredths(80));
        assert_eq!(e[0].trace.basis, Basis::Inferred);
        assert_eq!(e[0].trace.evidence.len(), 2);
    }

    #[test]
    fn aliases_merge_into_the_more_confident_record() {
        let long = entity("Pod Disruption Budget", &["PDB"], 90, 0);
        let short = entity("PDB", &[], 80, 1);
        let r = reduce(vec![short, long]);
        let e = &r.sections[0];
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].text("name"), "Pod Disruption Budget");
        assert_eq!(e[0].field("aliases"), &Field::List(vec!["PDB".into()]));
    }

    #[test]
    fn same_label_different_consequence_stays_apart() {
        let mk = |then: &str| {
            Item::new(Section::IfThenRules, Basis::Explicit, Score::hundredths(90))
                .with("if", "the build fails")
                .with("then", then)
                .with_evidence([ev(0, "If the build fails, …")])
        };
        let r = reduce(vec![mk("roll back."), mk("page the on-call engineer."), mk("roll back.")]);
        assert_eq!(r.sections[Section::IfThenRules.index()].len(), 2);
    }

    #[test]
    fn fuzzy_atomic_units_and_numbers() {
        let mk = |s: &str, span: u32| {
            Item::new(Section::AtomicUnits, Basis::Explicit, Score::hundredths(95))
                .with("statement", s)
                .with("type", "fact")
                .with_evidence([ev(span, s)])
        };
        let r = reduce(vec![
            mk("Refunds take five business days to arrive.", 0),
            mk("Refunds take five business days to arrive!", 1),
            mk("Refunds take 7 business days to arrive.", 2),
        ]);
        assert_eq!(r.sections[Section::AtomicUnits.index()].len(), 2);
    }

    #[test]
    fn refs_follow_merges_and_relations_resolve() {
        let mut a = entity("Billing Service", &[], 80, 0);
        *a.field_mut("related_entities") = Field::Related(vec![crate::model::Relation {
            entity: "Ledger API".into(),
            relation_type: "depends_on".into(),
            confidence: Score::hundredths(80),
        }]);
        let b = entity("Ledger API", &[], 80, 0);
        let mut c = entity("Ghost", &[], 80, 1);
        *c.field_mut("related_entities") = Field::Related(vec![crate::model::Relation {
            entity: "Nobody".into(),
            relation_type: "supports".into(),
            confidence: Score::hundredths(80),
        }]);
        let r = reduce(vec![a, b, c]);
        let billing = r.sections[0].iter().find(|e| e.text("name") == "Billing Service").unwrap();
        let Field::Related(rel) = billing.field("related_entities") else { panic!() };
        assert_eq!(rel[0].entity, "ent_ledger_api");
        assert_eq!(r.warnings.len(), 1);
    }
}
