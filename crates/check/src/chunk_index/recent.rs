//! A map that keeps its most recently used entries within a budget of bytes: the analysed
//! chunks and loaded postings a long-lived process reuses from one check to the next.

use std::borrow::Borrow;
use std::hash::Hash;

use warrant_text::fasthash::FastMap;

/// Entries with their last use and size; over the budget, the older half goes.
#[derive(Debug)]
pub(super) struct Recent<K, V> {
    entries: FastMap<K, Entry<V>>,
    clock: u64,
    /// Bytes of the entries kept.
    bytes: usize,
    budget: usize,
}

#[derive(Debug)]
struct Entry<V> {
    value: V,
    used: u64,
    bytes: usize,
}

impl<K: Hash + Eq, V: Clone> Recent<K, V> {
    /// An empty map that keeps at most `budget` bytes of entries (the last one inserted always).
    pub(super) fn new(budget: usize) -> Self {
        Recent { entries: FastMap::default(), clock: 0, bytes: 0, budget }
    }

    /// The value kept under `key`, now the most recently used.
    pub(super) fn get<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.clock += 1;
        let now = self.clock;
        let entry = self.entries.get_mut(key)?;
        entry.used = now;
        Some(entry.value.clone())
    }

    /// Keeps `value` (of `bytes` bytes) under `key`; when that passes the budget, forgets the
    /// older half of the entries at once, so evicting costs O(1) per insertion on average.
    pub(super) fn insert(&mut self, key: K, value: V, bytes: usize) {
        self.clock += 1;
        let entry = Entry { value, used: self.clock, bytes };
        self.bytes += bytes;
        if let Some(old) = self.entries.insert(key, entry) {
            self.bytes -= old.bytes;
        }
        while self.bytes > self.budget && self.entries.len() > 1 {
            let mut used: Vec<u64> = self.entries.values().map(|e| e.used).collect();
            let older = used.len() / 2;
            let cut = *used.select_nth_unstable(older - 1).1;
            let mut freed = 0;
            self.entries.retain(|_, e| {
                let keep = e.used > cut;
                if !keep {
                    freed += e.bytes;
                }
                keep
            });
            self.bytes -= freed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_half_goes_when_the_budget_is_passed() {
        let mut recent: Recent<String, u32> = Recent::new(10);
        recent.insert("a".into(), 1, 4);
        recent.insert("b".into(), 2, 4);
        assert_eq!(recent.get("a"), Some(1), "a is now newer than b");
        recent.insert("c".into(), 3, 4);
        assert_eq!(recent.get("b"), None, "b was the older half");
        assert_eq!((recent.get("a"), recent.get("c")), (Some(1), Some(3)));
        assert_eq!(recent.bytes, 8);
        // Replacing an entry counts its new size only; one entry over the budget stays.
        recent.insert("a".into(), 9, 40);
        assert_eq!(recent.get("a"), Some(9));
        assert_eq!(recent.get("c"), None);
        assert_eq!(recent.bytes, 40);
    }
}
