//! Exact near-duplicate search by token Jaccard, without comparing every pair.
//!
//! Prefix filtering with positional pruning (PPJoin): order tokens by a global order (rarest
//! first); two sets with Jaccard ≥ t must share a token among the first `|x| − ⌈t·|x|⌉ + 1`
//! tokens of each. Only those prefix tokens are indexed, with their positions; a candidate is
//! dropped as soon as the overlap it could still reach, given where the shared token sits in
//! both sets, falls below the overlap `⌈t/(1+t)·(|x|+|y|)⌉` that Jaccard ≥ t needs. Survivors
//! get the full Jaccard, so results are exactly those a quadratic scan would find. Tokens are
//! interned as their rank (`u32`): sets are sorted integer lists.

use std::sync::Mutex;

use warrant_text::fasthash::TextMap;

/// An index of token sets, queried for the earliest set at or above a threshold.
#[derive(Debug)]
pub struct JaccardIndex {
    threshold: f64,
    /// Global token rank: lower is rarer.
    rank: TextMap<String, u32>,
    sets: Vec<(usize, Vec<u32>)>,
    /// Prefix token → the sets holding it among their prefix tokens, by set size (ascending),
    /// each size's in slot order. A query reads only the sizes the length filter allows.
    postings: TextMap<u32, Vec<(u32, Vec<Posting>)>>,
    /// The largest indexed set.
    max_len: usize,
    /// Per-query working memory (reset after each query).
    scratch: Mutex<Scratch>,
}

/// A prefix token's occurrence in an indexed set: its slot and the token's position in the set.
#[derive(Debug, Clone, Copy)]
struct Posting {
    slot: u32,
    pos: u32,
}

/// Working memory of one query: per-slot overlap counts, the slots touched, and the overlap
/// needed per candidate size.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    seen: Vec<u32>,
    touched: Vec<usize>,
    need: Vec<usize>,
}

/// Whether the Jaccard of two sorted, deduplicated sets reaches `t` (exactly
/// `crate::gate::jaccard(a, b) >= t`): the merge stops as soon as the overlap still reachable falls
/// below the overlap `⌈t/(1+t)·(|a|+|b|)⌉` that Jaccard ≥ t needs (the same bound as the
/// candidate filter), which on sets that share a template is most of the walk.
fn reaches(a: &[u32], b: &[u32], t: f64) -> bool {
    let need = (t / (1.0 + t) * (a.len() + b.len()) as f64).ceil() as usize;
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        if inter + (a.len() - i).min(b.len() - j) < need {
            return false;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - inter;
    let j = if union == 0 { 1.0 } else { inter as f64 / union as f64 };
    j >= t
}

/// The global token order of an index: fewer sets first (rare tokens make selective prefixes),
/// ties by the token itself. `(token, sets holding it)`.
fn rarer_first(a: (&str, u32), b: (&str, u32)) -> std::cmp::Ordering {
    a.1.cmp(&b.1).then(a.0.cmp(b.0))
}

impl JaccardIndex {
    /// An index for `threshold`, with token ranks from the sets that will be indexed or queried.
    pub fn new<'a>(threshold: f64, corpus: impl IntoIterator<Item = &'a [String]>) -> Self {
        let mut df: TextMap<&str, u32> = TextMap::default();
        for set in corpus {
            for t in set {
                *df.entry(t.as_str()).or_insert(0) += 1;
            }
        }
        let mut order: Vec<(&str, u32)> = df.into_iter().collect();
        order.sort_by(|a, b| rarer_first(*a, *b));
        let rank = order.into_iter().enumerate().map(|(i, (t, _))| (t.to_string(), i as u32)).collect();
        Self {
            threshold,
            rank,
            sets: Vec::new(),
            postings: TextMap::default(),
            max_len: 0,
            scratch: Mutex::new(Scratch::default()),
        }
    }

    /// Ranks of a token set, sorted (rarest first). A token the index has never seen cannot be
    /// in any indexed set, so it gets a distinct value past every assigned rank.
    fn ranked(&self, tokens: &[String]) -> Vec<u32> {
        let mut unknown = 0u32;
        let mut r: Vec<u32> = tokens
            .iter()
            .map(|t| {
                self.rank.get(t).copied().unwrap_or_else(|| {
                    unknown += 1;
                    u32::MAX - unknown
                })
            })
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    }

    /// Assigns ranks (after every existing one; ranks never change) to tokens first seen now.
    fn register(&mut self, tokens: &[String]) {
        for t in tokens {
            if !self.rank.contains_key(t) {
                let next = self.rank.len() as u32;
                self.rank.insert(t.clone(), next);
            }
        }
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
        self.register(&tokens);
        let ranks = self.ranked(&tokens);
        self.push(id, ranks);
    }

    /// Indexes a ranked set under `id` in the next slot.
    fn push(&mut self, id: usize, ranks: Vec<u32>) {
        let slot = self.sets.len() as u32;
        let len = ranks.len() as u32;
        for (pos, r) in ranks.iter().take(self.prefix_len(ranks.len())).enumerate() {
            let sizes = self.postings.entry(*r).or_default();
            let k = sizes.partition_point(|(m, _)| *m < len);
            if sizes.get(k).is_none_or(|(m, _)| *m != len) {
                sizes.insert(k, (len, Vec::new()));
            }
            sizes[k].1.push(Posting { slot, pos: pos as u32 });
        }
        self.max_len = self.max_len.max(ranks.len());
        self.sets.push((id, ranks));
    }

    #[cfg(test)]
    /// Ids of indexed sets with Jaccard ≥ threshold against `tokens`, in insertion order.
    pub fn matches(&self, tokens: &[String]) -> Vec<usize> {
        self.matches_iter(tokens).collect()
    }

    /// [`Self::matches`], verified lazily: the candidates are found up front, and each one's full
    /// Jaccard is computed only when the iterator reaches it (callers that want the first
    /// acceptable match stop early).
    pub fn matches_iter<'a>(&'a self, tokens: &[String]) -> impl Iterator<Item = usize> + 'a {
        let x = if tokens.is_empty() { Vec::new() } else { self.ranked(tokens) };
        let slots = self.slots_for(&x);
        self.verified(x, slots)
    }

    /// [`Self::matches_iter`] for a set already ranked by this index.
    fn matches_ranked<'a>(&'a self, x: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
        let slots = self.slots_for(x);
        self.verified(x, slots)
    }

    /// The candidate slots of ranks `x` (none for an empty set), in slot order.
    fn slots_for(&self, x: &[u32]) -> Vec<usize> {
        if x.is_empty() {
            return Vec::new();
        }
        match self.scratch.lock() {
            Ok(mut scratch) => self.candidate_slots(x, &mut scratch),
            Err(_) => self.candidate_slots(x, &mut Scratch::default()),
        }
    }

    /// The ids of the candidate `slots` whose full Jaccard against `x` reaches the threshold,
    /// each computed when the iterator reaches it.
    fn verified<'a, X: AsRef<[u32]> + 'a>(&'a self, x: X, slots: Vec<usize>) -> impl Iterator<Item = usize> + 'a {
        let t = self.threshold - 1e-12;
        slots.into_iter().filter(move |&s| reaches(x.as_ref(), &self.sets[s].1, t)).map(|s| self.sets[s].0)
    }

    /// The slots that pass the prefix, length and position filters for ranks `x`, in slot
    /// order; `scratch` is the caller's (one per thread).
    fn candidate_slots(&self, x: &[u32], scratch: &mut Scratch) -> Vec<usize> {
        let t = self.threshold - 1e-12;
        let n = x.len();
        let Scratch { seen, touched, need } = scratch;
        // Per candidate size m: the overlap Jaccard ≥ t needs, or `usize::MAX` when the length
        // filter (J ≤ min/max) rules every set of that size out.
        need.clear();
        need.extend((0..=self.max_len).map(|m| {
            if (n.min(m) as f64) < t * n.max(m) as f64 { usize::MAX } else { (t / (1.0 + t) * (n + m) as f64).ceil() as usize }
        }));
        // The sizes the length filter allows (a range: m ≥ t·n and n ≥ t·m).
        let Some(lo) = need.iter().position(|&o| o != usize::MAX) else { return Vec::new() };
        let hi = need.iter().rposition(|&o| o != usize::MAX).unwrap_or(lo);
        // Overlap seen so far per candidate slot, plus one (0: unseen); `u32::MAX`: pruned.
        seen.resize(self.sets.len(), 0);
        for (i, r) in x.iter().take(self.prefix_len(n)).enumerate() {
            let Some(sizes) = self.postings.get(r) else { continue };
            let rest = n - i - 1;
            let from = sizes.partition_point(|(m, _)| (*m as usize) < lo);
            for (m, list) in sizes[from..].iter().take_while(|(m, _)| *m as usize <= hi) {
                let (m, needed) = (*m as usize, need[*m as usize]);
                for p in list {
                    let slot = p.slot as usize;
                    let state = seen[slot];
                    if state == u32::MAX {
                        continue;
                    }
                    if state == 0 {
                        touched.push(slot);
                    }
                    let overlap = state.saturating_sub(1) as usize;
                    let reachable = overlap + 1 + rest.min(m - p.pos as usize - 1);
                    seen[slot] = if reachable < needed { u32::MAX } else { state.max(1) + 1 };
                }
            }
        }
        let mut slots: Vec<usize> = Vec::new();
        for &slot in touched.iter() {
            if seen[slot] != u32::MAX && seen[slot] > 1 {
                slots.push(slot);
            }
            seen[slot] = 0;
        }
        touched.clear();
        slots.sort_unstable();
        slots
    }

    /// The first indexed id matching `tokens`, if any.
    pub fn first_match(&self, tokens: &[String]) -> Option<usize> {
        self.matches_iter(tokens).next()
    }
}

/// For a sequence of token sets, each set's first earlier *kept* set at or above a threshold:
/// the sequential "keep a set unless an earlier kept set matches it" passes (near-duplicate
/// removal) query an index of the kept sets, in order.
///
/// Every set is ranked once, up front (on the allowed threads); queries and insertions then work
/// on integers only. The pass itself stays on one thread: the sections it runs in are already
/// spread over the pool, and listing every set's earlier matches up front so that the pass
/// could be split cost far more than it saved (templated text keeps few of many similar sets;
/// on the generated handbook, two threads: wall median 718 -> 652 ms, CPU 1130 -> 1030 ms).
#[derive(Debug)]
pub struct EarlierMatches {
    ix: JaccardIndex,
    /// Each set's ranks; taken by [`Self::keep`] (a set is not queried again once decided).
    ranked: Vec<Vec<u32>>,
}

impl EarlierMatches {
    /// An index for `threshold` over the token sets of `texts` ([`crate::gate::tokens`]).
    ///
    /// Texts are tokenised on the allowed threads without a string per token; tokens are then
    /// interned in one pass (document frequencies counted on the way) and ranked in the order
    /// [`JaccardIndex::new`] uses ([`rarer_first`]), so each set becomes a sorted list of ranks.
    pub fn new(threshold: f64, texts: &[String]) -> Self {
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sets = crate::par::map(&texts, 128, |t: &&str| crate::gate::token_occurrences(t));
        let mut ids: TextMap<&str, u32> = TextMap::default();
        let mut names: Vec<&str> = Vec::new();
        let mut df: Vec<u32> = Vec::new();
        let mut interned: Vec<Vec<u32>> = Vec::with_capacity(sets.len());
        for set in &sets {
            let mut v: Vec<u32> = set
                .iter()
                .map(|t| {
                    *ids.entry(t.as_ref()).or_insert_with(|| {
                        names.push(t.as_ref());
                        df.push(0);
                        names.len() as u32 - 1
                    })
                })
                .collect();
            // A set: each token once (ids are compared, not strings).
            v.sort_unstable();
            v.dedup();
            for &id in &v {
                df[id as usize] += 1;
            }
            interned.push(v);
        }
        let mut order: Vec<u32> = (0..names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| rarer_first((names[a as usize], df[a as usize]), (names[b as usize], df[b as usize])));
        let mut rank = vec![0u32; names.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        let ranked = crate::par::map(&interned, 256, |set| {
            let mut r: Vec<u32> = set.iter().map(|&id| rank[id as usize]).collect();
            r.sort_unstable();
            r
        });
        EarlierMatches { ix: JaccardIndex::new(threshold, std::iter::empty()), ranked }
    }

    /// The first earlier set matching set `i` that is `kept` and that `accept(i, j)` takes. A
    /// set that is kept must be reported with [`Self::keep`].
    pub fn first(&self, i: usize, kept: impl Fn(usize) -> bool, accept: impl Fn(usize, usize) -> bool) -> Option<usize> {
        let x = self.ranked.get(i)?;
        self.ix.matches_ranked(x).filter(|&j| kept(j)).find(|&j| accept(i, j))
    }

    /// Records that set `i` is kept.
    pub fn keep(&mut self, i: usize) {
        if let Some(x) = self.ranked.get_mut(i) {
            let x = std::mem::take(x);
            if !x.is_empty() {
                self.ix.push(i, x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::{jaccard, tokens};
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
        assert_eq!(ix.first_match(&tokens("entirely unseen words here")), None);
    }

    proptest! {
        #[test]
        fn reaches_is_the_jaccard_threshold(a in proptest::collection::btree_set(0u32..40, 0..25), b in proptest::collection::btree_set(0u32..40, 0..25), t in 0.05f64..1.0) {
            let (a, b): (Vec<u32>, Vec<u32>) = (a.into_iter().collect(), b.into_iter().collect());
            let t = t - 1e-12;
            prop_assert_eq!(reaches(&a, &b, t), jaccard(&a, &b) >= t);
        }

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

        /// The sequential near-duplicate pass (an index of the kept sets' string tokens,
        /// queried in order) and `EarlierMatches` (texts tokenised and ranked up front, on 1–3
        /// threads) keep and redirect the same sets, with or without a pair filter.
        #[test]
        fn earlier_matches_agree_with_the_sequential_pass(docs in proptest::collection::vec(proptest::collection::vec(0usize..7, 0..5), 1..40), t in 0.3f64..1.0, threads in 1usize..4, odd in any::<bool>()) {
            const WORDS: [&str; 7] = ["Alpha", "bravo", "charlie", "Delta", "echo", "foxtrot", "12.5"];
            let texts: Vec<String> = docs.iter().map(|d| d.iter().map(|&x| WORDS[x]).collect::<Vec<_>>().join(" ")).collect();
            let sets: Vec<Vec<String>> = texts.iter().map(|t| tokens(t)).collect();
            let accept = |i: usize, j: usize| !odd || !(i + j).is_multiple_of(3);
            let mut ix = JaccardIndex::new(t, sets.iter().map(Vec::as_slice));
            let mut want = Vec::new();
            for (i, s) in sets.iter().enumerate() {
                let target = ix.matches_iter(s).find(|&j| accept(i, j));
                if target.is_none() {
                    ix.insert(i, s.clone());
                }
                want.push(target);
            }
            let mut found = crate::par::with_threads(threads, || EarlierMatches::new(t, &texts));
            let mut keep = vec![true; sets.len()];
            let mut got = Vec::new();
            for i in 0..sets.len() {
                let target = found.first(i, |j| keep[j], accept);
                keep[i] = target.is_none();
                if keep[i] {
                    found.keep(i);
                }
                got.push(target);
            }
            prop_assert_eq!(got, want);
        }
    }
}
