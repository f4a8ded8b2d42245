//! Exact near-duplicate search by token Jaccard, without comparing every pair.
//!
//! Prefix filtering: order tokens by a global order (rarest first); two sets with Jaccard ≥ t
//! must share a token among the first `|x| − ⌈t·|x|⌉ + 1` tokens of each. Only those prefix
//! tokens are indexed, and candidates are verified with the full Jaccard and a length filter,
//! so results are exactly those a quadratic scan would find.

use warrant_text::fasthash::FastMap;

use crate::gate::jaccard;

/// An index of token sets, queried for the earliest set at or above a threshold.
#[derive(Debug, Clone)]
pub struct JaccardIndex {
    threshold: f64,
    /// Global token rank: lower is rarer.
    rank: FastMap<String, u32>,
    sets: Vec<(usize, Vec<String>)>,
    postings: FastMap<u32, Vec<usize>>,
}

impl JaccardIndex {
    /// An index for `threshold`, with token ranks from the sets that will be indexed or queried
    /// (tokens unseen here rank last, which keeps the filter exact).
    pub fn new<'a>(threshold: f64, corpus: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut df: FastMap<&str, u32> = FastMap::default();
        for set in corpus {
            for t in set {
                *df.entry(t.as_str()).or_insert(0) += 1;
            }
        }
        let mut order: Vec<(&str, u32)> = df.into_iter().collect();
        order.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
        let rank = order.into_iter().enumerate().map(|(i, (t, _))| (t.to_string(), i as u32)).collect();
        Self { threshold, rank, sets: Vec::new(), postings: FastMap::default() }
    }

    fn ranked(&self, tokens: &[String]) -> Vec<u32> {
        let mut r: Vec<u32> = tokens.iter().map(|t| self.rank.get(t).copied().unwrap_or(u32::MAX)).collect();
        r.sort_unstable();
        r
    }

    fn prefix_len(&self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let keep = (self.threshold * n as f64 - 1e-9).ceil() as usize;
        (n + 1).saturating_sub(keep).min(n)
    }

    /// Adds a set under a caller's id. Empty sets are not indexed (they match nothing).
    pub fn insert(&mut self, id: usize, tokens: Vec<String>) {
        if tokens.is_empty() {
            return;
        }
        let ranks = self.ranked(&tokens);
        let slot = self.sets.len();
        for r in ranks.iter().take(self.prefix_len(ranks.len())) {
            self.postings.entry(*r).or_default().push(slot);
        }
        self.sets.push((id, tokens));
    }

    /// Ids of indexed sets with Jaccard ≥ threshold against `tokens`, in insertion order.
    pub fn matches(&self, tokens: &[String]) -> Vec<usize> {
        if tokens.is_empty() {
            return Vec::new();
        }
        let ranks = self.ranked(tokens);
        let mut slots: Vec<usize> =
            ranks.iter().take(self.prefix_len(ranks.len())).filter_map(|r| self.postings.get(r)).flatten().copied().collect();
        slots.sort_unstable();
        slots.dedup();
        let n = tokens.len() as f64;
        slots
            .into_iter()
            .filter(|&s| {
                let (_, other) = &self.sets[s];
                let m = other.len() as f64;
                // Length filter: J ≤ min/max.
                n.min(m) / n.max(m) >= self.threshold - 1e-12 && jaccard(tokens, other) >= self.threshold - 1e-12
            })
            .map(|s| self.sets[s].0)
            .collect()
    }

    /// The first indexed id matching `tokens`, if any.
    pub fn first_match(&self, tokens: &[String]) -> Option<usize> {
        self.matches(tokens).into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::tokens;
    use proptest::prelude::*;

    #[test]
    fn finds_near_duplicates() {
        let sets: Vec<Vec<String>> = ["refunds take five business days", "refunds take five days", "cancel within thirty days"]
            .iter()
            .map(|s| tokens(s))
            .collect();
        let mut ix = JaccardIndex::new(0.7, sets.iter().map(Vec::as_slice));
        ix.insert(0, sets[0].clone());
        assert_eq!(ix.first_match(&sets[1]), Some(0));
        assert_eq!(ix.first_match(&sets[2]), None);
        assert!(ix.matches(&[]).is_empty());
    }

    proptest! {
        #[test]
        fn agrees_with_a_quadratic_scan(docs in proptest::collection::vec(proptest::collection::vec(0u8..12, 0..7), 1..25), t in 0.3f64..1.0) {
            let sets: Vec<Vec<String>> = docs.iter().map(|d| {
                let mut v: Vec<String> = d.iter().map(|x| format!("tok{x}")).collect();
                v.sort();
                v.dedup();
                v
            }).collect();
            let mut ix = JaccardIndex::new(t, sets.iter().map(Vec::as_slice));
            for (i, s) in sets.iter().enumerate() {
                let want: Vec<usize> = (0..i).filter(|&j| !sets[j].is_empty() && !s.is_empty() && jaccard(s, &sets[j]) >= t - 1e-12).collect();
                prop_assert_eq!(ix.matches(s), want);
                ix.insert(i, s.clone());
            }
        }
    }
}
