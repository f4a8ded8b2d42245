//! Okapi BM25 over in-memory posting lists: the one scorer behind the verifier's sentence
//! retrieval and the checker's chunk index (the store's FTS5 index is SQLite's own).
//!
//! Callers tokenize; this module counts documents, terms and lengths and scores. A term's idf
//! is `ln((N − df + 0.5) / (df + 0.5) + 1)` (never negative), a document's length is the
//! sum of the term counts it was added with, and its length factor is
//! `k1 · (1 − b + b · length / average length)`.

mod best;

use std::sync::OnceLock;

pub use best::{PostingCursor, best, seek_in};

use crate::fasthash::FastMap;

/// BM25's two constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Term-frequency saturation.
    pub k1: f64,
    /// Length normalisation (0: none, 1: full).
    pub b: f64,
    /// Where a query term's weight enters the sum.
    pub weighting: Weighting,
}

impl Params {
    /// The usual constants, k1 = 1.2 and b = 0.75, with `weighting`.
    pub const fn standard(weighting: Weighting) -> Self {
        Params { k1: 1.2, b: 0.75, weighting }
    }
}

/// Where a query term's weight `w` enters the sum. The two are equal in exact arithmetic but
/// round differently in the last bit, which can reorder near-ties: each caller keeps the
/// rounding it was tuned with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weighting {
    /// `w · (idf · tf · (k1 + 1) / (tf + norm))`: the finished term score is weighted.
    Score,
    /// `w · idf · tf · (k1 + 1) / (tf + norm)`, left to right: the weight scales the idf.
    Idf,
}

/// Documents' term counts as posting lists, terms interned to ids.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Term → its id (its position in `postings`).
    terms: FastMap<String, u32>,
    /// Per term: (document, count), in the order added.
    postings: Vec<Vec<(u32, u32)>>,
    /// Per document: its length.
    lengths: Vec<u32>,
    /// Sum of `lengths`.
    total: u64,
    /// Per document: its length factor (see the module docs), computed at the first score
    /// after documents were added.
    norms: OnceLock<(f64, Vec<f64>)>,
    /// Per term: [`Params::impact_bound`] of its postings ([`Index::list`]'s bound), computed
    /// with the norms.
    impacts: OnceLock<Vec<f64>>,
}

impl Index {
    /// The id of `term`, added (with no postings) if new.
    pub fn intern(&mut self, term: impl AsRef<str> + Into<String>) -> u32 {
        if let Some(&t) = self.terms.get(term.as_ref()) {
            return t;
        }
        let t = self.postings.len() as u32;
        self.terms.insert(term.into(), t);
        self.postings.push(Vec::new());
        t
    }

    /// The id of `term` if it was interned.
    pub fn term(&self, term: &str) -> Option<u32> {
        self.terms.get(term).copied()
    }

    /// Adds the next document with its (term id, count) pairs, returning its number. Each
    /// pair is a posting of its own (a term listed twice counts twice in its df); the
    /// document's length is the sum of the counts.
    pub fn add(&mut self, terms: &[(u32, u32)]) -> u32 {
        let doc = self.lengths.len() as u32;
        let mut length = 0u32;
        for &(t, n) in terms {
            self.postings[t as usize].push((doc, n));
            length += n;
        }
        self.lengths.push(length);
        self.total += u64::from(length);
        self.norms = OnceLock::new();
        self.impacts = OnceLock::new();
        doc
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// True when no document was added.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// A term's postings: (document, count), in document order.
    pub fn postings(&self, term: u32) -> &[(u32, u32)] {
        &self.postings[term as usize]
    }

    /// A term's document frequency (its number of postings).
    pub fn df(&self, term: u32) -> usize {
        self.postings[term as usize].len()
    }

    /// A term's inverse document frequency.
    pub fn idf(&self, term: u32) -> f64 {
        self.idf_for(self.df(term))
    }

    /// The inverse document frequency of a term found in `df` of the documents.
    pub fn idf_for(&self, df: usize) -> f64 {
        idf(self.lengths.len(), df)
    }

    /// Each document's length factor for `params` (recomputed if asked with other constants).
    fn norms(&self, params: &Params) -> &[f64] {
        let (b, norms) = self.norms.get_or_init(|| (params.b, self.norms_for(params)));
        debug_assert!(*b == params.b, "one index is scored with one b");
        norms
    }

    fn norms_for(&self, params: &Params) -> Vec<f64> {
        let average = average_length(self.lengths.len(), self.total);
        self.lengths.iter().map(|&l| params.length_factor(l, average)).collect()
    }

    /// Term `term`'s postings weighted by `w`, as [`best`] ranks them: the same scores
    /// [`Index::accumulate`] adds. For documents added with each term once (`best` reads one
    /// posting per document).
    pub fn list(&self, params: &Params, term: u32, w: f64) -> Weighted<'_> {
        let norms = self.norms(params);
        let impacts = self.impacts.get_or_init(|| {
            let average = average_length(self.lengths.len(), self.total);
            self.postings
                .iter()
                .map(|postings| params.impact_bound(postings.iter().map(|&(d, tf)| (tf, self.lengths[d as usize])), average))
                .collect()
        });
        let postings = &self.postings[term as usize];
        let idf = self.idf_for(postings.len());
        Weighted { postings, at: 0, norms, params: *params, w, idf, bound: w * idf * impacts[term as usize] }
    }

    /// Every interned term with its id, in no particular order.
    pub fn terms(&self) -> impl Iterator<Item = (&str, u32)> {
        self.terms.iter().map(|(t, &id)| (t.as_str(), id))
    }

    /// A document's length (the sum of its term counts).
    pub fn length(&self, doc: u32) -> u32 {
        self.lengths[doc as usize]
    }

    /// The sum of every document's length.
    pub fn total_length(&self) -> u64 {
        self.total
    }

    /// Adds each weighted term's BM25 score to `scores[doc]` of every document holding it.
    /// `scores` has a slot per document; a document whose slot was 0.0 before it is added to
    /// is pushed onto `touched` (so a caller can rank and reset only those).
    pub fn accumulate(&self, params: &Params, terms: &[(u32, f64)], scores: &mut [f64], touched: &mut Vec<u32>) {
        let norms = self.norms(params);
        for &(t, w) in terms {
            let postings = &self.postings[t as usize];
            let idf = self.idf_for(postings.len());
            for &(d, tf) in postings {
                let slot = &mut scores[d as usize];
                if *slot == 0.0 {
                    touched.push(d);
                }
                *slot += params.term_score(w, idf, tf, norms[d as usize]);
            }
        }
    }
}

impl Params {
    /// A document's length factor (see the module docs).
    pub fn length_factor(&self, length: u32, average: f64) -> f64 {
        self.k1 * (1.0 - self.b + self.b * f64::from(length) / average)
    }

    /// One term's contribution to a document's score: weight `w`, the term's `idf`, its count
    /// `tf` in the document and the document's length factor `norm`.
    pub fn term_score(&self, w: f64, idf: f64, tf: u32, norm: f64) -> f64 {
        let k = self.k1 + 1.0;
        let tf = f64::from(tf);
        match self.weighting {
            Weighting::Score => w * (idf * tf * k / (tf + norm)),
            Weighting::Idf => w * idf * tf * k / (tf + norm),
        }
    }

    /// At least the score of every (count, length) posting with weight and idf 1, to scale
    /// by a query's weight and idf. A score grows with the count and falls with the length,
    /// so for each count up to eight the shortest document with it scores highest
    /// (the bound is the best of those: exact), and above that the highest count in the
    /// shortest such document bounds the rest. Integer work per posting, a few divisions per
    /// term. 0 for no postings. Rounding may put it a few ulps under a posting's score;
    /// [`best`] allows for that.
    ///
    /// Exact matters: a term whose bound overstates its scores stays among the terms
    /// [`best`] walks posting by posting instead of only looking up.
    pub fn impact_bound(&self, postings: impl IntoIterator<Item = (u32, u32)>, average: f64) -> f64 {
        // Per count 1..=EXACT_COUNTS, the shortest document holding the term that often.
        let mut shortest = [u32::MAX; EXACT_COUNTS as usize];
        let (mut most, mut shortest_above) = (0u32, u32::MAX);
        for (tf, length) in postings {
            match tf {
                0 => {}
                1..=EXACT_COUNTS => {
                    let s = &mut shortest[tf as usize - 1];
                    *s = (*s).min(length);
                }
                _ => (most, shortest_above) = (most.max(tf), shortest_above.min(length)),
            }
        }
        let score = |tf: u32, length: u32| self.term_score(1.0, 1.0, tf, self.length_factor(length, average));
        let mut bound = if most > 0 { score(most, shortest_above) } else { 0.0 };
        for (tf, &length) in (1..=EXACT_COUNTS).zip(&shortest) {
            if length != u32::MAX {
                bound = bound.max(score(tf, length));
            }
        }
        bound
    }
}

/// Counts up to which [`Params::impact_bound`] is exact.
const EXACT_COUNTS: u32 = 8;

/// The inverse document frequency of a term found in `df` of `documents` documents.
pub fn idf(documents: usize, df: usize) -> f64 {
    let n = documents.max(1) as f64;
    let df = df as f64;
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// The average document length of `documents` documents of `total` length in all (at least 1).
pub fn average_length(documents: usize, total: u64) -> f64 {
    (total as f64 / documents.max(1) as f64).max(1.0)
}

/// One term's postings in an [`Index`], weighted ([`Index::list`]), and a cursor in them.
#[derive(Debug, Clone, Copy)]
pub struct Weighted<'a> {
    postings: &'a [(u32, u32)],
    at: usize,
    norms: &'a [f64],
    params: Params,
    w: f64,
    idf: f64,
    bound: f64,
}

impl PostingCursor for Weighted<'_> {
    fn doc(&self) -> u32 {
        self.postings.get(self.at).map_or(u32::MAX, |p| p.0)
    }
    fn score(&self) -> f64 {
        let (d, tf) = self.postings[self.at];
        self.params.term_score(self.w, self.idf, tf, self.norms[d as usize])
    }
    fn advance(&mut self) {
        self.at += 1;
    }
    fn seek(&mut self, doc: u32) {
        self.at = seek_in(|i| self.postings[i].0, self.postings.len(), self.at, doc);
    }
    fn bound(&self) -> f64 {
        self.bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[&[&str]]) -> Index {
        let mut ix = Index::default();
        for d in docs {
            let mut counts: Vec<(u32, u32)> = Vec::new();
            for w in *d {
                let t = ix.intern(*w);
                match counts.iter_mut().find(|(x, _)| *x == t) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((t, 1)),
                }
            }
            ix.add(&counts);
        }
        ix
    }

    proptest::proptest! {
        /// The bound is at least every posting's score, and is the highest of them when no
        /// count passes eight.
        #[test]
        fn the_impact_bound_is_the_best_score_of_counts_up_to_eight(
            postings in proptest::collection::vec((1u32..12, 1u32..200), 0..40),
        ) {
            let p = Params::standard(Weighting::Idf);
            let average = 37.5;
            let bound = p.impact_bound(postings.iter().copied(), average);
            let scores: Vec<f64> = postings.iter().map(|&(tf, len)| p.term_score(1.0, 1.0, tf, p.length_factor(len, average))).collect();
            let best = scores.iter().copied().fold(0.0, f64::max);
            proptest::prop_assert!(bound >= best);
            if postings.iter().all(|&(tf, _)| tf <= 8) {
                proptest::prop_assert_eq!(bound, best);
            }
        }
    }

    #[test]
    fn scores_match_the_formula() {
        let ix = index(&[&["cat", "sat"], &["dog", "dog", "ran", "far"], &["cat"]]);
        let p = Params::standard(Weighting::Score);
        let (cat, dog) = (ix.term("cat").unwrap(), ix.term("dog").unwrap());
        assert_eq!(ix.df(cat), 2);
        let mut scores = vec![0.0; ix.len()];
        let mut touched = Vec::new();
        ix.accumulate(&p, &[(cat, 1.0), (dog, 0.5)], &mut scores, &mut touched);
        assert_eq!(touched, vec![0, 2, 1]);
        let avg = 7.0 / 3.0;
        let idf = |df: f64| ((3.0 - df + 0.5) / (df + 0.5) + 1.0f64).ln();
        let term = |tf: f64, len: f64| tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg));
        assert!((scores[0] - idf(2.0) * term(1.0, 2.0)).abs() < 1e-12);
        assert!((scores[1] - 0.5 * idf(1.0) * term(2.0, 4.0)).abs() < 1e-12);
        assert!(scores[2] > scores[0], "a shorter document scores higher");
        assert!(ix.term("bird").is_none());
    }

    #[test]
    fn the_weighting_only_moves_rounding() {
        let ix = index(&[&["a", "b", "c"], &["a", "a"], &["b"]]);
        let a = ix.term("a").unwrap();
        for w in [0.3, 0.7, 1.0] {
            let run = |weighting| {
                let mut scores = vec![0.0; ix.len()];
                ix.accumulate(&Params::standard(weighting), &[(a, w)], &mut scores, &mut Vec::new());
                scores
            };
            for (x, y) in run(Weighting::Score).iter().zip(run(Weighting::Idf)) {
                assert!((x - y).abs() < 1e-12);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn best_of_lists_is_the_top_of_the_accumulated_scores(
            docs in proptest::collection::vec(proptest::collection::btree_map(0u32..8, 1u32..4, 0..6), 1..40),
            query in proptest::collection::vec((0u32..8, proptest::sample::select(vec![1.0, 0.5, 0.3])), 0..5),
            limit in 0usize..10,
        ) {
            let mut ix = Index::default();
            for t in 0..8 {
                ix.intern(t.to_string());
            }
            for d in &docs {
                ix.add(&d.iter().map(|(&t, &n)| (t, n)).collect::<Vec<_>>());
            }
            let p = Params::standard(Weighting::Idf);
            let mut scores = vec![0.0; ix.len()];
            let mut touched = Vec::new();
            ix.accumulate(&p, &query, &mut scores, &mut touched);
            let want = crate::rank::top(touched.iter().map(|&d| (scores[d as usize], d)), limit);
            let mut lists: Vec<Weighted<'_>> = query.iter().map(|&(t, w)| ix.list(&p, t, w)).collect();
            proptest::prop_assert_eq!(best(&mut lists, limit), want);
        }
    }
}
