//! The chunks of a store held in memory with an inverted index over the verifier's keys, for
//! BM25 retrieval of the chunks a claim is checked against.
//!
//! The store's own index (FTS5) scores every chunk that contains any query word: on a store
//! where each claim's words occur in thousands of chunks that is milliseconds per claim. Here
//! a query walks plain posting lists in memory (a few nanoseconds per posting). The index is
//! built once per state of the store ([`Store::derived`]: a server or a batch builds it once;
//! any write to the store, by any process, makes the next check build it again) and keeps the
//! chunk texts, so retrieved chunks need no further reads.
//!
//! Terms are the verifier's keys (lower-cased content words, stemmed and folded to their
//! synonym group), the same the claim is analysed into, so "costs" finds "price".

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use warrant_store::{Chunk, Derived, Store, StoreError};
use warrant_text::fasthash::FastMap;
use warrant_verify::corpus::Analysed;
use warrant_verify::lexicon;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// Chunks whose sentence analyses are kept at most (about 3.5 KB each for chunks of ~400
/// chars): beyond it, further chunks are analysed on every check.
const ANALYSED_CHUNKS: usize = 25_000;

/// One term's occurrences: (chunk position, times it occurs there), in chunk order.
type Postings = Vec<(u32, u32)>;

/// Every chunk of a store and an inverted index of their terms.
#[derive(Debug, Default)]
pub struct ChunkIndex {
    chunks: Vec<Chunk>,
    /// Each chunk's BM25 length factor, `K1 · (1 − B + B · terms / average terms)`.
    norms: Vec<f64>,
    /// Term → its position in `postings`.
    terms: FastMap<String, u32>,
    postings: Vec<Postings>,
    /// Each chunk's sentences, analysed when first retrieved.
    analysed: Vec<OnceLock<Arc<Analysed>>>,
    /// How many are kept.
    kept: AtomicUsize,
}

impl ChunkIndex {
    /// The index of `store`'s chunks as they are now: built on first use, then shared until
    /// the store changes.
    pub fn of(store: &dyn Store) -> Result<Arc<ChunkIndex>, StoreError> {
        let value = store.derived("warrant-check/chunk-index", &|s| Ok(Arc::new(ChunkIndex::build(s)?) as Derived))?;
        // Only this module stores values under that name.
        value.downcast::<ChunkIndex>().map_err(|_| StoreError::Invalid("chunk index cache holds another type".into()))
    }

    /// Reads every chunk of `store` and indexes it.
    pub fn build(store: &dyn Store) -> Result<ChunkIndex, StoreError> {
        let mut index = ChunkIndex::default();
        let mut lengths: Vec<u32> = Vec::new();
        // Lower-case word → term position, `None` for a function word: each distinct word is
        // stemmed once.
        let mut seen: FastMap<String, Option<u32>> = FastMap::default();
        let mut counts: Vec<(u32, u32)> = Vec::new();
        store.visit_chunks(&mut |chunk| {
            let at = index.chunks.len() as u32;
            counts.clear();
            let mut length = 0u32;
            for_each_word(&chunk.text, |lower| {
                let term = match seen.get(lower) {
                    Some(t) => *t,
                    None => {
                        let t = (!lexicon::is_stopword(lower)).then(|| index.intern(lexicon::key(lower)));
                        seen.insert(lower.to_string(), t);
                        t
                    }
                };
                if let Some(t) = term {
                    length += 1;
                    match counts.iter_mut().find(|(c, _)| *c == t) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((t, 1)),
                    }
                }
            });
            for &(t, n) in &counts {
                index.postings[t as usize].push((at, n));
            }
            lengths.push(length);
            index.chunks.push(chunk);
        })?;
        let average = (lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / lengths.len().max(1) as f64).max(1.0);
        index.analysed = (0..index.chunks.len()).map(|_| OnceLock::new()).collect();
        index.norms = lengths.iter().map(|&l| K1 * (1.0 - B + B * f64::from(l) / average)).collect();
        Ok(index)
    }

    fn intern(&mut self, key: String) -> u32 {
        let next = self.postings.len() as u32;
        *self.terms.entry(key).or_insert_with(|| {
            self.postings.push(Vec::new());
            next
        })
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// True when the store has no chunks.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The chunk at a position.
    pub fn chunk(&self, at: usize) -> &Chunk {
        &self.chunks[at]
    }

    /// The chunk at a position, split into sentences and analysed (once, while fewer than
    /// [`ANALYSED_CHUNKS`] are kept).
    pub fn analysed(&self, at: usize) -> Arc<Analysed> {
        if let Some(a) = self.analysed[at].get() {
            return Arc::clone(a);
        }
        let a = Arc::new(Analysed::of(&self.chunks[at].text));
        if self.kept.fetch_add(1, Ordering::Relaxed) < ANALYSED_CHUNKS {
            let _ = self.analysed[at].set(Arc::clone(&a));
        } else {
            self.kept.fetch_sub(1, Ordering::Relaxed);
        }
        a
    }

    /// The terms of a text that can rank chunks, each once, in order: its content words' keys
    /// that some chunk contains, less those in more than half of the chunks — BM25 weighs
    /// them at about nothing, yet each would add a posting for nearly every chunk. When only
    /// such words are left, they are the query (a store of a few chunks).
    pub fn query(&self, text: &str) -> Vec<u32> {
        let mut all: Vec<u32> = Vec::new();
        for_each_word(text, |lower| {
            if lexicon::is_stopword(lower) {
                return;
            }
            if let Some(&t) = self.terms.get(&lexicon::key(lower))
                && !all.contains(&t)
            {
                all.push(t);
            }
        });
        let half = self.chunks.len() / 2;
        let ranking: Vec<u32> = all.iter().copied().filter(|&t| self.postings[t as usize].len() <= half).collect();
        if ranking.is_empty() { all } else { ranking }
    }

    /// The `limit` best chunks for `terms` by BM25 (k1 = 1.2, b = 0.75), best first; equal
    /// scores in stored order. `scores` is scratch space, all zeros (and left so).
    pub fn search(&self, terms: &[u32], limit: usize, scores: &mut Vec<f64>) -> Vec<usize> {
        scores.resize(self.chunks.len(), 0.0);
        let n = self.chunks.len() as f64;
        let mut touched: Vec<u32> = Vec::new();
        for &t in terms {
            let postings = &self.postings[t as usize];
            let df = postings.len() as f64;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(c, tf) in postings {
                let slot = &mut scores[c as usize];
                if *slot == 0.0 {
                    touched.push(c);
                }
                let tf = f64::from(tf);
                *slot += idf * tf * (K1 + 1.0) / (tf + self.norms[c as usize]);
            }
        }
        let mut ranked: Vec<(f64, u32)> = touched.iter().map(|&c| (std::mem::take(&mut scores[c as usize]), c)).collect();
        let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if ranked.len() > limit && limit > 0 {
            ranked.select_nth_unstable_by(limit - 1, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        ranked.truncate(limit);
        ranked.into_iter().map(|(_, c)| c as usize).collect()
    }
}

/// Calls `f` with each word of `text` (a run of letters and digits), lower-cased.
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut lower = String::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        lower.clear();
        if word.is_ascii() {
            lower.push_str(word);
            lower.make_ascii_lowercase();
        } else {
            lower.extend(word.chars().flat_map(char::to_lowercase));
        }
        f(&lower);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

    fn store(docs: &[(&str, &str)]) -> SqliteStore {
        let store = SqliteStore::open_in_memory().unwrap();
        let docs = docs
            .iter()
            .map(|(id, text)| DocumentInput {
                id: (*id).into(),
                text: (*text).into(),
                version: None,
                title: None,
                metadata: None,
                origin: String::new(),
            })
            .collect();
        ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
        store
    }

    #[test]
    fn ranks_by_bm25_over_keys_and_is_rebuilt_after_a_write() {
        let s = store(&[
            ("a", "Cats sleep a lot."),
            ("b", "Session tokens expire after 30 minutes."),
            ("c", "Tokens are issued at login. Tokens are tokens."),
        ]);
        let index = ChunkIndex::of(&s).unwrap();
        assert_eq!(index.len(), 3);
        let mut scratch = Vec::new();
        // "expiring" and "expire" share a key; "session" is rarer than "tokens".
        let hits = index.search(&index.query("the sessions are expiring"), 5, &mut scratch);
        assert_eq!(hits.iter().map(|&h| index.chunk(h).doc_id.as_str()).collect::<Vec<_>>(), ["b"]);
        // Term frequency counts: "c" says "tokens" three times in a chunk of similar length.
        let hits = index.search(&index.query("tokens"), 5, &mut scratch);
        assert_eq!(hits.iter().map(|&h| index.chunk(h).doc_id.as_str()).collect::<Vec<_>>(), ["c", "b"]);
        assert!(scratch.iter().all(|&x| x == 0.0), "scratch space is left zeroed");
        // Words no chunk contains, and function words, are no query.
        assert!(index.query("the of unicorns").is_empty());
        // The same state hands out the same index; a write builds a new one.
        assert!(Arc::ptr_eq(&index, &ChunkIndex::of(&s).unwrap()));
        ingest(
            &s,
            vec![DocumentInput {
                id: "d".into(),
                text: "Unicorns are rare.".into(),
                version: None,
                title: None,
                metadata: None,
                origin: String::new(),
            }],
            Vec::new(),
            &IngestOptions::default(),
            &mut |_| {},
        )
        .unwrap();
        let fresh = ChunkIndex::of(&s).unwrap();
        assert_eq!(fresh.len(), 4);
        assert_eq!(fresh.search(&fresh.query("unicorns"), 5, &mut scratch), vec![3]);
    }

    #[test]
    fn a_word_in_most_chunks_is_left_out_unless_it_is_all_there_is() {
        let s = store(&[("a", "Red apples."), ("b", "Red pears."), ("c", "Red plums."), ("d", "Green figs.")]);
        let index = ChunkIndex::of(&s).unwrap();
        let q = index.query("red apples");
        assert_eq!(q.len(), 1, "red is in every chunk: {q:?}");
        assert_eq!(index.query("red").len(), 1);
        let mut scratch = Vec::new();
        assert_eq!(index.search(&index.query("red"), 2, &mut scratch), vec![0, 1], "ties in stored order");
    }
}
