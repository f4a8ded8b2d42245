//! The best few documents of a query without scoring every document that holds a query term
//! (MaxScore, document at a time).
//!
//! Each term's list carries a bound no posting of it exceeds. Once `limit` documents are
//! kept, the `limit`-th score is a threshold: the terms whose bounds together stay under it
//! cannot lift a document into the result alone, so candidates come only from the other
//! terms' lists, and the cheap terms are only looked up (by galloping) for those candidates,
//! the dearest first, and only while what the rest could add still lifts the candidate.
//! Every candidate's score is summed over the terms in the caller's order, starting from 0.0,
//! so it is bit for bit the score [`super::Index::accumulate`] gives, and the result is the
//! one [`crate::rank::top`] picks from the full accumulation: best first, equal scores by
//! the smaller document.

/// A cursor over one query term's postings, as [`best`] reads them: forward only, so a list
/// kept compressed is read as it is decoded.
pub trait PostingCursor {
    /// The document of the posting the cursor is at; `u32::MAX` once past the last one.
    /// Documents increase along the list, each once.
    fn doc(&self) -> u32;
    /// The term's contribution to the score of that document.
    fn score(&self) -> f64;
    /// Moves to the next posting.
    fn advance(&mut self);
    /// Moves to the first posting whose document is `doc` or later.
    fn seek(&mut self, doc: u32) {
        while self.doc() < doc {
            self.advance();
        }
    }
    /// At least every [`PostingCursor::score`] of this list.
    fn bound(&self) -> f64;
}

/// Relative slack on bounds and their sums, far above the few ulps by which the bounds and
/// the scores' own rounding can differ: a bound must never fall below a score.
const SLACK: f64 = 1e-9;

/// The documents with the `limit` highest sums of their terms' scores over `lists`, best
/// first, equal sums by the smaller document first. The cursors are left where they stop.
pub fn best<C: PostingCursor>(lists: &mut [C], limit: usize) -> Vec<u32> {
    if limit == 0 || lists.is_empty() {
        return Vec::new();
    }
    // Terms by bound, cheapest first; `reach[i]`: what the terms `order[..=i]` add at most.
    let mut order: Vec<usize> = (0..lists.len()).collect();
    order.sort_by(|&a, &b| lists[a].bound().total_cmp(&lists[b].bound()));
    let mut reach = Vec::with_capacity(order.len());
    let mut sum = 0.0;
    for &t in &order {
        sum += lists[t].bound().max(0.0);
        reach.push(sum * (1.0 + SLACK));
    }
    // Kept best first: (score, document).
    let mut best: Vec<(f64, u32)> = Vec::with_capacity(limit.min(64) + 1);
    // `order[essential..]`: the terms a candidate must hold one of.
    let mut essential = 0;
    while essential < order.len() {
        let doc = order[essential..].iter().map(|&t| lists[t].doc()).min().unwrap_or(u32::MAX);
        if doc == u32::MAX {
            break;
        }
        let full = best.len() == limit;
        let worth = !full || {
            // What the candidate's essential terms give, then the cheap terms looked up from
            // the dearest down, until what is left of their bounds cannot lift it.
            let threshold = best[limit - 1].0;
            let mut most = 0.0;
            for &t in &order[essential..] {
                if lists[t].doc() == doc {
                    most += lists[t].score();
                }
            }
            let mut cheap = essential;
            loop {
                let rest = if cheap > 0 { reach[cheap - 1] } else { 0.0 };
                if (most + rest) * (1.0 + SLACK) < threshold {
                    break false;
                }
                if cheap == 0 {
                    break true;
                }
                cheap -= 1;
                let list = &mut lists[order[cheap]];
                list.seek(doc);
                if list.doc() == doc {
                    most += list.score();
                }
            }
        };
        if worth {
            let mut score = 0.0;
            for list in lists.iter_mut() {
                list.seek(doc);
                if list.doc() == doc {
                    score += list.score();
                }
            }
            // Documents come in increasing order, so an equal score never ranks above one kept.
            if !full || score > best[limit - 1].0 {
                let i = best.iter().position(|b| score > b.0).unwrap_or(best.len());
                best.insert(i, (score, doc));
                best.truncate(limit);
                if best.len() == limit {
                    let threshold = best[limit - 1].0;
                    while essential < order.len() && reach[essential] < threshold {
                        essential += 1;
                    }
                }
            }
        }
        for &t in &order[essential..] {
            if lists[t].doc() == doc {
                lists[t].advance();
            }
        }
    }
    best.into_iter().map(|(_, doc)| doc).collect()
}

/// The first index at or after `from` whose document is `doc` or later, in a list of
/// increasing documents (galloping, then binary search in the last gap).
pub fn seek_in(docs: impl Fn(usize) -> u32, len: usize, from: usize, doc: u32) -> usize {
    if from >= len || docs(from) >= doc {
        return from;
    }
    // `docs(lo) < doc` holds throughout; `hi` is past the end or at a document ≥ `doc`.
    let (mut lo, mut step) = (from, 1usize);
    let mut hi = loop {
        let probe = lo.saturating_add(step);
        if probe >= len {
            break len;
        }
        if docs(probe) >= doc {
            break probe;
        }
        lo = probe;
        step = step.saturating_mul(2);
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if docs(mid) >= doc {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A list of (document, score) postings with its exact maximum as bound, and where its
    /// cursor is.
    struct Plain(Vec<(u32, f64)>, usize);

    impl PostingCursor for Plain {
        fn doc(&self) -> u32 {
            self.0.get(self.1).map_or(u32::MAX, |p| p.0)
        }
        fn score(&self) -> f64 {
            self.0[self.1].1
        }
        fn advance(&mut self) {
            self.1 += 1;
        }
        fn bound(&self) -> f64 {
            self.0.iter().map(|p| p.1).fold(0.0, f64::max)
        }
    }

    /// Every document scored term by term, then [`crate::rank::top`].
    fn exhaustive(lists: &[Plain], limit: usize) -> Vec<u32> {
        let mut scores: std::collections::BTreeMap<u32, f64> = Default::default();
        for list in lists {
            for &(d, s) in &list.0 {
                *scores.entry(d).or_insert(0.0) += s;
            }
        }
        crate::rank::top(scores.into_iter().map(|(d, s)| (s, d)), limit)
    }

    #[test]
    fn rare_terms_lead_and_ties_go_to_the_smaller_document() {
        let common = Plain((0..1000).map(|d| (d, 0.1)).collect(), 0);
        let rare = Plain(vec![(7, 3.0), (500, 3.0), (900, 2.0)], 0);
        assert_eq!(best(&mut [common, rare], 2), vec![7, 500]);
        let a = Plain(vec![(4, 1.0), (9, 1.0)], 0);
        let b = Plain(vec![(2, 1.0)], 0);
        assert_eq!(best(&mut [a, b], 2), vec![2, 4]);
        assert!(best::<Plain>(&mut [], 3).is_empty());
        assert!(best(&mut [Plain(vec![(1, 1.0)], 0)], 0).is_empty());
    }

    #[test]
    fn seeking_finds_the_first_posting_at_or_after() {
        let docs: Vec<u32> = (0..100).map(|d| d * 3).collect();
        for from in [0, 5, 99, 100] {
            for doc in [0u32, 1, 3, 150, 151, 297, 298, 1000] {
                let want = (from..100).find(|&i| docs[i] >= doc).unwrap_or(100);
                assert_eq!(seek_in(|i| docs[i], docs.len(), from, doc), want, "from {from} doc {doc}");
            }
        }
    }

    proptest! {
        #[test]
        fn picks_what_scoring_everything_picks(
            raw in proptest::collection::vec(proptest::collection::btree_map(0u32..60, 1u8..8, 0..40), 0..6),
            limit in 0usize..12,
        ) {
            // Few distinct scores, so ties are common.
            let mut lists: Vec<Plain> = raw.iter().map(|m| Plain(m.iter().map(|(&d, &s)| (d, f64::from(s) * 0.25)).collect(), 0)).collect();
            let want = exhaustive(&lists, limit);
            prop_assert_eq!(best(&mut lists, limit), want);
        }
    }
}
