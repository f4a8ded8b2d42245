//! The entities and mentions a write transaction has yet to insert: one buffer for both
//! backends' writers, so they insert the same rows in the same order (the mentions' insertion
//! order is the last tie-breaker of mention order, so it must not differ between them).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use warrant_facts::{Mention, entity_match_key};

/// Mentions buffered before a sorted flush.
pub(crate) const MENTION_BATCH: usize = 100_000;

/// A mention waiting to be inserted.
pub(crate) struct MentionRow {
    pub(crate) entity: String,
    pub(crate) surface: String,
    pub(crate) span: Option<(i64, i64)>,
    pub(crate) doc_seq: i64,
    pub(crate) chunk_idx: i64,
}

/// The entity and mention buffers of one write transaction.
#[derive(Default)]
pub(crate) struct MentionBuffer {
    /// Entities inserted (or queued) in this transaction: skips repeated inserts.
    entities: HashSet<String>,
    /// Entities to insert, as (match key, id).
    new_entities: Vec<(String, String)>,
    /// Mentions to insert.
    mentions: Vec<MentionRow>,
    /// Entities whose mentions were deleted: pruned at the end if nothing mentions them.
    touched: BTreeSet<String>,
}

impl MentionBuffer {
    /// Queues an extracted fact's mentions (and their entities, with the match keys the
    /// document was prepared with, else computed here).
    pub(crate) fn push(&mut self, mentions: Vec<Mention>, doc_seq: i64, chunk_idx: i64, keys: &BTreeMap<String, String>) {
        for m in mentions {
            if !self.entities.contains(&m.entity) {
                let key = keys.get(&m.entity).cloned().unwrap_or_else(|| entity_match_key(&m.entity));
                self.entities.insert(m.entity.clone());
                self.new_entities.push((key, m.entity.clone()));
            }
            self.mentions.push(MentionRow {
                entity: m.entity,
                surface: m.surface,
                span: m.span.map(|s| (s.start as i64, s.end as i64)),
                doc_seq,
                chunk_idx,
            });
        }
    }

    /// Queues an entity (once per transaction).
    pub(crate) fn entity(&mut self, id: &str) {
        if !self.entities.contains(id) {
            self.entities.insert(id.to_string());
            self.new_entities.push((entity_match_key(id), id.to_string()));
        }
    }

    /// Records that `entity`'s mentions in a replaced document were deleted: it must be
    /// inserted again if mentioned again, and is pruned at the end if nothing mentions it.
    pub(crate) fn forget(&mut self, entity: String) {
        self.entities.remove(&entity);
        self.touched.insert(entity);
    }

    /// Whether enough mentions are buffered to flush.
    pub(crate) fn full(&self) -> bool {
        self.mentions.len() >= MENTION_BATCH
    }

    /// Takes the buffered entities (sorted by key) and mentions (sorted stably by entity):
    /// sorted inserts touch each B-tree page once instead of at random.
    pub(crate) fn take(&mut self) -> (Vec<(String, String)>, Vec<MentionRow>) {
        self.new_entities.sort_unstable();
        self.mentions.sort_by(|a, b| a.entity.cmp(&b.entity));
        (std::mem::take(&mut self.new_entities), std::mem::take(&mut self.mentions))
    }

    /// The entities to prune if nothing mentions them any more.
    pub(crate) fn touched(&self) -> &BTreeSet<String> {
        &self.touched
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warrant_facts::Span;

    fn m(entity: &str, surface: &str) -> Mention {
        Mention { entity: entity.into(), surface: surface.into(), span: Some(Span::new(0, 1)) }
    }

    #[test]
    fn entities_are_queued_once_and_mentions_sorted_stably() {
        let mut b = MentionBuffer::default();
        b.push(vec![m("b", "B1"), m("a", "A1")], 1, 0, &BTreeMap::new());
        b.push(vec![m("b", "B2")], 2, 0, &BTreeMap::new());
        b.entity("a");
        let (entities, mentions) = b.take();
        assert_eq!(entities, [(entity_match_key("a"), "a".into()), (entity_match_key("b"), "b".into())]);
        let order: Vec<(&str, i64)> = mentions.iter().map(|r| (r.surface.as_str(), r.doc_seq)).collect();
        assert_eq!(order, [("A1", 1), ("B1", 1), ("B2", 2)]);
        assert!(b.take().0.is_empty());
        // A forgotten entity is queued again when mentioned again, and remembered for pruning.
        b.forget("a".into());
        b.entity("a");
        b.entity("b");
        assert_eq!(b.take().0, [(entity_match_key("a"), "a".into())]);
        assert_eq!(b.touched().iter().collect::<Vec<_>>(), ["a"]);
    }
}
