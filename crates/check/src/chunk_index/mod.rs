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

mod persisted;
mod recent;

use std::sync::{Arc, Mutex, PoisonError};

use warrant_store::{Chunk, Derived, Store, StoreError};
use warrant_text::bm25::{self, Index as Bm25, Params, Weighting};
use warrant_text::fasthash::FastMap;
use warrant_text::normalize::without_marks;
use warrant_verify::Analysed;
use warrant_verify::lexicon;

pub use persisted::NAME as PERSISTED;
pub(crate) use persisted::{Loaded, Memo};
use recent::Recent;

/// Chunk retrieval's BM25: a term counts as often as the chunk says it, and a context word's
/// weight scales its idf.
const BM25: Params = Params::standard(Weighting::Idf);

/// Bytes of chunk text whose sentence analyses are kept at most. An analysis takes about 70
/// times the memory of its text (every word, stem and key its own string), so this keeps
/// ~45 MB: ~2,000 chunks of 300 chars. The least recently used go first.
const ANALYSED_TEXT: usize = 640 * 1024;

/// Every chunk of a store and an inverted index of their terms.
#[derive(Debug)]
pub struct ChunkIndex {
    chunks: Vec<Chunk>,
    /// Each chunk's terms (the keys of its content words) with their counts.
    index: Bm25,
    /// Chunks' sentences by position, analysed when retrieved, the most recently used kept
    /// (by bytes of their text).
    analysed: Mutex<Recent<usize, Arc<Analysed>>>,
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
        let mut index =
            ChunkIndex { chunks: Vec::new(), index: Bm25::default(), analysed: Mutex::new(Recent::new(ANALYSED_TEXT)) };
        // Lower-case word → term position, `None` for a function word: each distinct word is
        // stemmed once.
        let mut seen: FastMap<String, Option<u32>> = FastMap::default();
        // Per term: the last chunk it was counted in, and where in `counts` (so counting a
        // chunk's terms is linear in its words).
        let mut last: Vec<(u32, u32)> = Vec::new();
        let mut counts: Vec<(u32, u32)> = Vec::new();
        store.visit_chunks(&mut |chunk| {
            let at = index.chunks.len() as u32;
            counts.clear();
            for_each_word(&chunk.text, |lower| {
                let term = match seen.get(lower) {
                    Some(t) => *t,
                    None => {
                        let t = (!lexicon::is_stopword(lower)).then(|| index.index.intern(lexicon::key(lower)));
                        seen.insert(lower.to_string(), t);
                        t
                    }
                };
                let Some(t) = term else { return };
                if last.len() <= t as usize {
                    last.resize(t as usize + 1, (u32::MAX, 0));
                }
                let (chunk, slot) = &mut last[t as usize];
                if *chunk == at {
                    counts[*slot as usize].1 += 1;
                } else {
                    *chunk = at;
                    *slot = counts.len() as u32;
                    counts.push((t, 1));
                }
            });
            index.index.add(&counts);
            index.chunks.push(chunk);
        })?;
        Ok(index)
    }

    /// Keeps analyses of at most `bytes` of chunk text instead of [`ANALYSED_TEXT`].
    pub fn keeping(mut self, bytes: usize) -> Self {
        self.analysed = Mutex::new(Recent::new(bytes));
        self
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

    /// The chunk at a position, split into sentences and analysed (kept for the next check
    /// among the most recently used, up to [`ANALYSED_TEXT`] bytes of their text).
    pub fn analysed(&self, at: usize) -> Arc<Analysed> {
        let kept = self.analysed.lock().unwrap_or_else(PoisonError::into_inner).get(&at);
        kept.unwrap_or_else(|| {
            // Analysed without the lock: other threads go on meanwhile.
            let text = &self.chunks[at].text;
            let a = Arc::new(Analysed::of(text));
            self.analysed.lock().unwrap_or_else(PoisonError::into_inner).insert(at, Arc::clone(&a), text.len());
            a
        })
    }

    /// The terms of a text that can rank chunks, each once, in order: its content words' keys
    /// that some chunk contains, less those in more than half of the chunks — BM25 weighs
    /// them at about nothing, yet each would add a posting for nearly every chunk. When only
    /// such words are left, they are the query (a store of a few chunks).
    pub fn query(&self, text: &str) -> Vec<u32> {
        query_terms(text, self.chunks.len(), |key| self.index.term(key), |t| self.index.df(t))
    }

    /// The `limit` best chunks for `terms` by BM25 (k1 = 1.2, b = 0.75), best first; equal
    /// scores in stored order.
    pub fn search(&self, terms: &[u32], limit: usize) -> Vec<usize> {
        let weighted: Vec<(u32, f64)> = terms.iter().map(|&t| (t, 1.0)).collect();
        self.search_weighted(&weighted, limit)
    }

    /// [`ChunkIndex::search`] with a weight per term (context words count less than the
    /// claim's own).
    pub fn search_weighted(&self, terms: &[(u32, f64)], limit: usize) -> Vec<usize> {
        let mut lists: Vec<_> = terms.iter().map(|&(t, w)| self.index.list(&BM25, t, w)).collect();
        bm25::best(&mut lists, limit).into_iter().map(|c| c as usize).collect()
    }
}

/// `f` of each item, in order, spread over up to [`MAX_THREADS`] cores when there are enough
/// items to pay for a thread (each thread takes a contiguous share; results do not depend on
/// how the items were shared).
pub(crate) fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let threads = cores.min(MAX_THREADS).min(items.len() / MIN_ITEMS_PER_THREAD).max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let share = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let mut parts = items.chunks(share);
        let first = parts.next().unwrap_or_default();
        let others: Vec<_> = parts.map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>())).collect();
        let mut out: Vec<R> = first.iter().map(f).collect();
        for other in others {
            // A panic in `f` is a bug; it reaches the caller as it would without threads.
            out.extend(other.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

/// Threads [`parallel_map`] uses at most.
const MAX_THREADS: usize = 4;

/// Items below which [`parallel_map`] does not start another thread for them.
const MIN_ITEMS_PER_THREAD: usize = 2;

/// What retrieval needs of a chunk index: the one in memory or the one kept in the store
/// (they rank alike).
pub(crate) trait Ranking {
    /// Number of chunks.
    fn chunk_count(&self) -> usize;
    /// See [`ChunkIndex::query`].
    fn terms_of(&self, text: &str) -> Vec<u32>;
    /// [`ChunkIndex::search_weighted`] of each query, in order (on several cores).
    fn best_each(&self, queries: &[Vec<(u32, f64)>], limit: usize) -> Vec<Vec<usize>>;
    /// The chunks at `positions`, analysed, in that order.
    fn fetch(&self, positions: &[usize]) -> Result<Vec<(Chunk, Arc<Analysed>)>, StoreError>;
}

impl Ranking for ChunkIndex {
    fn chunk_count(&self) -> usize {
        self.len()
    }
    fn terms_of(&self, text: &str) -> Vec<u32> {
        self.query(text)
    }
    fn best_each(&self, queries: &[Vec<(u32, f64)>], limit: usize) -> Vec<Vec<usize>> {
        parallel_map(queries, |terms| self.search_weighted(terms, limit))
    }
    fn fetch(&self, positions: &[usize]) -> Result<Vec<(Chunk, Arc<Analysed>)>, StoreError> {
        Ok(positions.iter().map(|&at| (self.chunk(at).clone(), self.analysed(at))).collect())
    }
}

impl Ranking for Loaded<'_> {
    fn chunk_count(&self) -> usize {
        self.len()
    }
    fn terms_of(&self, text: &str) -> Vec<u32> {
        self.query(text)
    }
    fn best_each(&self, queries: &[Vec<(u32, f64)>], limit: usize) -> Vec<Vec<usize>> {
        self.search_each(queries, limit)
    }
    fn fetch(&self, positions: &[usize]) -> Result<Vec<(Chunk, Arc<Analysed>)>, StoreError> {
        self.chunks(positions)
    }
}

/// [`ChunkIndex::query`] over an index of `chunks` chunks that knows a key's term (`term`)
/// and a term's number of chunks (`df`).
fn query_terms(text: &str, chunks: usize, term: impl Fn(&str) -> Option<u32>, df: impl Fn(u32) -> usize) -> Vec<u32> {
    let mut all: Vec<u32> = Vec::new();
    for_each_key(text, |key| {
        if let Some(t) = term(key)
            && !all.contains(&t)
        {
            all.push(t);
        }
    });
    let half = chunks / 2;
    let ranking: Vec<u32> = all.iter().copied().filter(|&t| df(t) <= half).collect();
    if ranking.is_empty() { all } else { ranking }
}

/// Calls `f` with the key of each content word of `text` (function words left out): the
/// terms chunks are indexed and queried by.
fn for_each_key(text: &str, mut f: impl FnMut(&str)) {
    for_each_word(text, |lower| {
        if !lexicon::is_stopword(lower) {
            f(&lexicon::key(lower));
        }
    });
}

/// Calls `f` with each word of `text` (a run of letters and digits), lower-cased and without
/// diacritics ("Zürich" → "zurich", as the store's FTS5 index reads words).
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut lower = String::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // ASCII words byte by byte; a word with any other character is split by chars.
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if i < bytes.len() && !bytes[i].is_ascii() {
            // Back to the word's start and on by chars to the end of the word.
            let rest = &text[start..];
            let end = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
            if end == 0 {
                i = start + rest.chars().next().map_or(1, char::len_utf8);
                continue;
            }
            f(&without_marks(&rest[..end].to_lowercase()));
            i = start + end;
            continue;
        }
        if i > start {
            lower.clear();
            lower.push_str(&text[start..i]);
            lower.make_ascii_lowercase();
            f(&lower);
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};

    #[test]
    fn parallel_map_keeps_the_order_of_its_items() {
        for n in [0usize, 1, 3, 4, 5, 9, 40] {
            let items: Vec<usize> = (0..n).collect();
            let want: Vec<String> = items.iter().map(|i| format!("{i}:{}", i * i)).collect();
            assert_eq!(parallel_map(&items, |i| format!("{i}:{}", i * i)), want);
        }
    }

    fn store(docs: &[(&str, &str)]) -> SqliteStore {
        let store = SqliteStore::open_in_memory().unwrap();
        let docs = docs.iter().map(|(id, text)| DocumentInput::new(*id, *text)).collect();
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
        // "expiring" and "expire" share a key; "session" is rarer than "tokens".
        let hits = index.search(&index.query("the sessions are expiring"), 5);
        assert_eq!(hits.iter().map(|&h| index.chunk(h).doc_id.as_str()).collect::<Vec<_>>(), ["b"]);
        // Term frequency counts: "c" says "tokens" three times in a chunk of similar length.
        let hits = index.search(&index.query("tokens"), 5);
        assert_eq!(hits.iter().map(|&h| index.chunk(h).doc_id.as_str()).collect::<Vec<_>>(), ["c", "b"]);
        // Diacritics are left out on both sides, as in the store's FTS5 index.
        let accented = store(&[("z", "Offices in Zürich and Malmö."), ("o", "Offices in Oslo.")]);
        let accents = ChunkIndex::of(&accented).unwrap();
        assert_eq!(accents.search(&accents.query("zurich malmo"), 5), vec![0]);
        assert_eq!(accents.search(&accents.query("ZÜRICH"), 5), vec![0]);
        // Words no chunk contains, and function words, are no query.
        assert!(index.query("the of unicorns").is_empty());
        // The same state hands out the same index; a write builds a new one.
        assert!(Arc::ptr_eq(&index, &ChunkIndex::of(&s).unwrap()));
        ingest(&s, vec![DocumentInput::new("d", "Unicorns are rare.")], Vec::new(), &IngestOptions::default(), &mut |_| {})
            .unwrap();
        let fresh = ChunkIndex::of(&s).unwrap();
        assert_eq!(fresh.len(), 4);
        assert_eq!(fresh.search(&fresh.query("unicorns"), 5), vec![3]);
    }

    #[test]
    fn analysed_chunks_are_kept_most_recent_first() {
        let s = store(&[("a", "One. Two."), ("b", "Three."), ("c", "Four."), ("d", "Five.")]);
        // Room for the first two chunks' text (9 + 6 bytes).
        let index = ChunkIndex::build(&s).unwrap().keeping(15);
        let a = index.analysed(0);
        assert_eq!(a.len(), 2, "two sentences");
        assert!(Arc::ptr_eq(&a, &index.analysed(0)), "kept");
        let b = index.analysed(1);
        index.analysed(0);
        // Over the budget: the older half (chunk 1, used before chunk 0's last use) goes.
        index.analysed(2);
        assert!(Arc::ptr_eq(&a, &index.analysed(0)));
        let b2 = index.analysed(1);
        assert!(!Arc::ptr_eq(&b, &b2), "analysed again");
        assert_eq!(b.len(), b2.len());
    }

    proptest::proptest! {
        #[test]
        fn words_are_the_alphanumeric_runs_lower_cased(text in "[a-zA-Z0-9 .,é—ÄßİΣ-]{0,40}") {
            let mut got = Vec::new();
            for_each_word(&text, |w| got.push(w.to_string()));
            let want: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| without_marks(&w.to_lowercase()))
                .collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_word_in_most_chunks_is_left_out_unless_it_is_all_there_is() {
        let s = store(&[("a", "Red apples."), ("b", "Red pears."), ("c", "Red plums."), ("d", "Green figs.")]);
        let index = ChunkIndex::of(&s).unwrap();
        let q = index.query("red apples");
        assert_eq!(q.len(), 1, "red is in every chunk: {q:?}");
        assert_eq!(index.query("red").len(), 1);
        assert_eq!(index.search(&index.query("red"), 2), vec![0, 1], "ties in stored order");
    }
}
