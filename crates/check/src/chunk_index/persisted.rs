//! The chunk index kept in the store ([`Store::persist_derived`]), so a fresh process ranks
//! a large store's chunks without reading them all: a query reads the postings of its own
//! terms and the chunks it picks, in one snapshot of the store.
//!
//! It ranks exactly as the in-memory [`ChunkIndex`] built from the same state (the same
//! terms, counts, lengths and BM25 arithmetic, ties in stored order), so a check gives the
//! same report whichever of the two served it.
//!
//! Entries (key → value; numbers as LEB128 varints):
//! - `m` → the number of chunks, the sum of their lengths;
//! - `t<term>` → its postings: their count, then per posting the chunk's position (as the
//!   difference to the previous one), the term's count in it, and the chunk's length;
//! - `c<block>` (a big-endian u32) → the ids of the chunks at positions `block · 1024 …`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use warrant_store::{Chunk, Derived, PersistedView, Store, StoreError};
use warrant_text::bm25::{self, PostingCursor};
use warrant_text::fasthash::FastMap;
use warrant_verify::Analysed;

use super::{ANALYSED_TEXT, BM25, ChunkIndex, Recent, for_each_key, query_terms};

/// The name the chunk index is kept under in a store (its format's version in it).
pub const NAME: &str = "warrant-check/chunk-index/1";

/// Chunk ids per `c` entry: a query reads a few blocks, not a million rows.
const BLOCK: usize = 1024;

impl ChunkIndex {
    /// Builds the index of `store`'s chunks as they are now and keeps it in the store
    /// (replacing the one kept before), where a check in any process finds it until the
    /// chunks change. `Ok(false)`, with nothing kept, when the store changed meanwhile.
    pub fn persist(store: &dyn Store) -> Result<bool, StoreError> {
        let state = store.chunk_state()?;
        let index = ChunkIndex::build(store)?;
        if store.chunk_state()? != state {
            return Ok(false);
        }
        let mut entries = entries(&index).into_iter();
        store.persist_derived(NAME, &state, &mut entries)
    }
}

/// The entries of `index`, in key order.
fn entries(index: &ChunkIndex) -> Vec<(Vec<u8>, Vec<u8>)> {
    let bm25 = &index.index;
    let mut out = Vec::new();
    let mut meta = Vec::new();
    put(&mut meta, index.len() as u64);
    put(&mut meta, bm25.total_length());
    out.push((b"m".to_vec(), meta));
    let mut terms: Vec<(&str, u32)> = bm25.terms().collect();
    terms.sort_unstable();
    for (term, t) in terms {
        let postings = bm25.postings(t);
        let mut value = Vec::with_capacity(postings.len() * 4);
        put(&mut value, postings.len() as u64);
        let mut last = 0u32;
        for &(doc, tf) in postings {
            put(&mut value, u64::from(doc - last));
            put(&mut value, u64::from(tf));
            put(&mut value, u64::from(bm25.length(doc)));
            last = doc;
        }
        let mut key = b"t".to_vec();
        key.extend_from_slice(term.as_bytes());
        out.push((key, value));
    }
    for (block, chunks) in index.chunks.chunks(BLOCK).enumerate() {
        let mut value = Vec::new();
        put(&mut value, chunks.len() as u64);
        for c in chunks {
            put(&mut value, c.id.len() as u64);
            value.extend_from_slice(c.id.as_bytes());
        }
        out.push((block_key(block), value));
    }
    out.sort_unstable();
    out
}

fn block_key(block: usize) -> Vec<u8> {
    let mut key = b"c".to_vec();
    key.extend_from_slice(&(block as u32).to_be_bytes());
    key
}

/// One chunk holding a term: its position, the term's count in it, its length.
#[derive(Debug, Clone, Copy)]
struct Posting {
    chunk: u32,
    tf: u32,
    length: u32,
}

/// A loaded term: its postings, and the most one of them scores with weight and idf 1.
#[derive(Debug)]
struct Term {
    list: Vec<Posting>,
    impact: f64,
}

/// Bytes of decoded postings a process keeps between checks at most (~5.6 million postings:
/// the terms of a few hundred answers on a million-chunk store).
const KEPT_POSTINGS: usize = 64 << 20;

/// Bytes of chunk ids a process keeps between checks at most (~200 blocks).
const KEPT_IDS: usize = 4 << 20;

/// What a process keeps of the kept index between checks of one state of the store, so a
/// server's warm check reads only what no earlier check read: the totals, the postings of
/// the terms read (`None` for a term no chunk has), blocks of chunk ids, and the chunks
/// fetched, analysed. One per store state ([`Store::derived`]: a write starts an empty one).
#[derive(Debug)]
pub(crate) struct Memo {
    /// The state the first view read through it was at; views of another state (a write
    /// between the two reads) do not use it.
    state: OnceLock<Vec<u8>>,
    totals: OnceLock<(usize, f64)>,
    terms: Mutex<Recent<String, Option<Arc<Term>>>>,
    ids: Mutex<Recent<usize, Arc<Vec<String>>>>,
    chunks: Mutex<Recent<usize, (Chunk, Arc<Analysed>)>>,
}

impl Memo {
    fn new() -> Self {
        Memo {
            state: OnceLock::new(),
            totals: OnceLock::new(),
            terms: Mutex::new(Recent::new(KEPT_POSTINGS)),
            ids: Mutex::new(Recent::new(KEPT_IDS)),
            chunks: Mutex::new(Recent::new(ANALYSED_TEXT)),
        }
    }

    /// The memo of `store`'s current state.
    pub(crate) fn of(store: &dyn Store) -> Result<Arc<Memo>, StoreError> {
        let value = store.derived("warrant-check/chunk-index-memo", &|_| Ok(Arc::new(Memo::new()) as Derived))?;
        value.downcast::<Memo>().map_err(|_| StoreError::Invalid("chunk index memo holds another type".into()))
    }

    /// True when this memo serves reads at `state`.
    fn describes(&self, state: &[u8]) -> bool {
        self.state.get_or_init(|| state.to_vec()) == state
    }
}

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A cursor in a loaded term's postings, weighted for a query, as [`bm25::best`] reads them:
/// the scores of the in-memory index, as the length factor comes from the same length and
/// average. (Postings are decoded once per check, at load: the claims of one answer share
/// most of their terms.)
struct Cursor<'a> {
    postings: &'a [Posting],
    at: usize,
    average: f64,
    w: f64,
    idf: f64,
    bound: f64,
}

impl PostingCursor for Cursor<'_> {
    fn doc(&self) -> u32 {
        self.postings.get(self.at).map_or(u32::MAX, |p| p.chunk)
    }
    fn score(&self) -> f64 {
        let p = self.postings[self.at];
        BM25.term_score(self.w, self.idf, p.tf, BM25.length_factor(p.length, self.average))
    }
    fn advance(&mut self) {
        self.at += 1;
    }
    fn seek(&mut self, doc: u32) {
        self.at = bm25::seek_in(|i| self.postings[i].chunk, self.postings.len(), self.at, doc);
    }
    fn bound(&self) -> f64 {
        self.bound
    }
}

/// The part of a kept index a set of texts needs: the postings of their terms, read at once
/// (less what the memo kept from earlier checks).
pub(crate) struct Loaded<'a> {
    view: &'a dyn PersistedView,
    memo: Arc<Memo>,
    chunks: usize,
    average: f64,
    /// Term → its number, and by number its postings.
    terms: FastMap<String, u32>,
    postings: Vec<Arc<Term>>,
}

impl<'a> Loaded<'a> {
    /// Reads the postings of every term of `texts` from `view`, through `memo` when it
    /// describes the view's state.
    pub(crate) fn load(view: &'a dyn PersistedView, memo: Arc<Memo>, texts: &[&str]) -> Result<Self, StoreError> {
        let memo = if memo.describes(view.state()) { memo } else { Arc::new(Memo::new()) };
        let mut wanted: Vec<String> = Vec::new();
        let mut seen: FastMap<String, ()> = FastMap::default();
        for text in texts {
            for_each_key(text, |key| {
                if seen.insert(key.to_string(), ()).is_none() {
                    wanted.push(key.to_string());
                }
            });
        }
        let kept: Vec<Option<Option<Arc<Term>>>> = {
            let mut terms = locked(&memo.terms);
            wanted.iter().map(|w| terms.get(w.as_str())).collect()
        };
        let mut keys: Vec<Vec<u8>> = Vec::new();
        // Read once: another check may fill the memo's totals meanwhile, and the values read
        // must line up with the keys asked for.
        let totals = memo.totals.get().copied();
        if totals.is_none() {
            keys.push(b"m".to_vec());
        }
        for (w, _) in wanted.iter().zip(&kept).filter(|(_, k)| k.is_none()) {
            keys.push([b"t".as_slice(), w.as_bytes()].concat());
        }
        let mut values = if keys.is_empty() { Vec::new() } else { view.values(&keys)? }.into_iter();
        let (chunks, average) = match totals {
            Some(totals) => totals,
            None => {
                let meta = values.next().flatten().ok_or_else(|| corrupt("no totals"))?;
                let mut at = meta.as_slice();
                let chunks = usize::try_from(take(&mut at)?).map_err(|_| corrupt("chunk count"))?;
                let total = take(&mut at)?;
                *memo.totals.get_or_init(|| (chunks, bm25::average_length(chunks, total)))
            }
        };
        // The postings the memo did not keep, decoded on several cores.
        let read: Vec<Option<Vec<u8>>> = values.collect();
        let mut decoded = super::parallel_map(&read, |value| {
            let Some(value) = value else { return Ok(None) };
            let list = decode_postings(value, chunks)?;
            let impact = BM25.impact_bound(list.iter().map(|p| (p.tf, p.length)), average);
            Ok(Some(Arc::new(Term { list, impact })))
        })
        .into_iter();
        drop(read);
        let mut terms = FastMap::default();
        let mut postings = Vec::new();
        for (term, kept) in wanted.into_iter().zip(kept) {
            let found = match kept {
                Some(found) => found,
                None => {
                    let found: Option<Arc<Term>> = decoded.next().unwrap_or(Ok(None))?;
                    let bytes = term.len() + found.as_ref().map_or(0, |t| t.list.len() * std::mem::size_of::<Posting>());
                    locked(&memo.terms).insert(term.clone(), found.clone(), bytes);
                    found
                }
            };
            if let Some(found) = found {
                terms.insert(term, postings.len() as u32);
                postings.push(found);
            }
        }
        Ok(Loaded { view, memo, chunks, average, terms, postings })
    }

    /// Number of chunks.
    pub(crate) fn len(&self) -> usize {
        self.chunks
    }

    /// As [`ChunkIndex::query`], over the loaded terms.
    pub(crate) fn query(&self, text: &str) -> Vec<u32> {
        query_terms(text, self.chunks, |key| self.terms.get(key).copied(), |t| self.postings[t as usize].list.len())
    }

    /// As [`ChunkIndex::search_weighted`].
    #[cfg(test)]
    pub(crate) fn search_weighted(&self, terms: &[(u32, f64)], limit: usize) -> Vec<usize> {
        search(&self.postings, self.chunks, self.average, terms, limit)
    }

    /// [`Loaded::search_weighted`] of each query, in order, on several cores (the view is
    /// not shared between threads; the postings are).
    pub(crate) fn search_each(&self, queries: &[Vec<(u32, f64)>], limit: usize) -> Vec<Vec<usize>> {
        let (postings, chunks, average) = (&self.postings, self.chunks, self.average);
        super::parallel_map(queries, |terms| search(postings, chunks, average, terms, limit))
    }

    /// The chunks at `positions`, analysed, in that order.
    pub(crate) fn chunks(&self, positions: &[usize]) -> Result<Vec<(Chunk, Arc<Analysed>)>, StoreError> {
        let mut found: Vec<Option<(Chunk, Arc<Analysed>)>> = {
            let mut kept = locked(&self.memo.chunks);
            positions.iter().map(|p| kept.get(p)).collect()
        };
        let missing: Vec<usize> = positions.iter().zip(&found).filter(|(_, f)| f.is_none()).map(|(&p, _)| p).collect();
        if missing.is_empty() {
            return Ok(found.into_iter().flatten().collect());
        }
        let blocks = self.id_blocks(&missing)?;
        let ids: Vec<&str> = missing
            .iter()
            .map(|&p| blocks[&(p / BLOCK)].get(p % BLOCK).map(String::as_str).ok_or_else(|| corrupt("chunk position")))
            .collect::<Result<_, _>>()?;
        let fetched = self.view.chunks(&ids)?;
        // Analysed on several cores.
        let analyses = super::parallel_map(&fetched, |c| c.as_ref().map(|c| Arc::new(Analysed::of(&c.text))));
        let mut read = ids.iter().zip(&missing).zip(fetched.into_iter().zip(analyses));
        for slot in found.iter_mut().filter(|f| f.is_none()) {
            let Some(((id, &p), (c, analysed))) = read.next() else { break };
            let (Some(c), Some(analysed)) = (c, analysed) else {
                return Err(corrupt(&format!("chunk {id} is indexed but not stored")));
            };
            let bytes = c.text.len();
            locked(&self.memo.chunks).insert(p, (c.clone(), Arc::clone(&analysed)), bytes);
            *slot = Some((c, analysed));
        }
        Ok(found.into_iter().flatten().collect())
    }

    /// The blocks of chunk ids that hold `positions`, by block number.
    fn id_blocks(&self, positions: &[usize]) -> Result<BTreeMap<usize, Arc<Vec<String>>>, StoreError> {
        let mut blocks: BTreeMap<usize, Option<Arc<Vec<String>>>> = BTreeMap::new();
        {
            let mut kept = locked(&self.memo.ids);
            for &p in positions {
                blocks.entry(p / BLOCK).or_insert_with(|| kept.get(&(p / BLOCK)));
            }
        }
        let keys: Vec<Vec<u8>> = blocks.iter().filter(|(_, ids)| ids.is_none()).map(|(&b, _)| block_key(b)).collect();
        if !keys.is_empty() {
            let mut values = self.view.values(&keys)?.into_iter();
            for (&b, slot) in blocks.iter_mut().filter(|(_, ids)| ids.is_none()) {
                let value = values.next().flatten().ok_or_else(|| corrupt("a block of chunk ids is missing"))?;
                let ids = Arc::new(decode_ids(&value)?);
                let bytes = ids.iter().map(|id| id.len() + std::mem::size_of::<String>()).sum();
                locked(&self.memo.ids).insert(b, Arc::clone(&ids), bytes);
                *slot = Some(ids);
            }
        }
        Ok(blocks.into_iter().filter_map(|(b, ids)| Some((b, ids?))).collect())
    }
}

/// The best `limit` chunks for `terms` (term numbers into `postings`, with weights).
fn search(postings: &[Arc<Term>], chunks: usize, average: f64, terms: &[(u32, f64)], limit: usize) -> Vec<usize> {
    let mut lists: Vec<Cursor<'_>> = terms
        .iter()
        .map(|&(t, w)| {
            let term = &postings[t as usize];
            let idf = bm25::idf(chunks, term.list.len());
            Cursor { postings: &term.list, at: 0, average, w, idf, bound: w * idf * term.impact }
        })
        .collect();
    bm25::best(&mut lists, limit).into_iter().map(|c| c as usize).collect()
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("the kept chunk index ({NAME}): {what}"))
}

/// A term's stored postings, checked: an error if the value is cut short, runs on, or names a
/// chunk past the last or out of order. (The hot loop of a check on a large store: millions
/// of postings, most numbers one byte.)
fn decode_postings(value: &[u8], chunks: usize) -> Result<Vec<Posting>, StoreError> {
    let mut at = 0;
    let n = varint(value, &mut at).ok_or_else(|| corrupt("a truncated number"))?;
    let mut out: Vec<Posting> = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(chunks));
    let chunks = u32::try_from(chunks).unwrap_or(u32::MAX);
    let mut last = 0u32;
    for i in 0..n {
        let number = |at: &mut usize| {
            let v = varint(value, at).ok_or_else(|| corrupt("a truncated number"))?;
            u32::try_from(v).map_err(|_| corrupt("a number out of range"))
        };
        let gap = number(&mut at)?;
        let chunk = last.checked_add(gap).ok_or_else(|| corrupt("a number out of range"))?;
        let (tf, length) = (number(&mut at)?, number(&mut at)?);
        // Positions strictly increase: after the first, a gap of 0 repeats a chunk.
        if chunk >= chunks || (i > 0 && gap == 0) {
            return Err(corrupt("a posting past the last chunk or out of order"));
        }
        out.push(Posting { chunk, tf, length });
        last = chunk;
    }
    if at != value.len() {
        return Err(corrupt("bytes after the last posting"));
    }
    Ok(out)
}

/// The unsigned LEB128 varint at `*at` in `bytes`, moving past it; `None` if cut short or
/// longer than ten bytes.
#[inline(always)]
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let first = *bytes.get(*at)?;
    *at += 1;
    if first < 0x80 {
        return Some(u64::from(first));
    }
    let mut v = u64::from(first & 0x7f);
    for shift in (7..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(v);
        }
    }
    None
}

fn decode_ids(mut value: &[u8]) -> Result<Vec<String>, StoreError> {
    let n = take(&mut value)?;
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(BLOCK));
    for _ in 0..n {
        let len = usize::try_from(take(&mut value)?).map_err(|_| corrupt("id length"))?;
        let (id, rest) = value.split_at_checked(len).ok_or_else(|| corrupt("a truncated id"))?;
        out.push(String::from_utf8(id.to_vec()).map_err(|_| corrupt("an id that is not UTF-8"))?);
        value = rest;
    }
    Ok(out)
}

/// Appends `v` as an unsigned LEB128 varint.
fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 varint off the front of `input`.
fn take(input: &mut &[u8]) -> Result<u64, StoreError> {
    let mut at = 0;
    let v = varint(input, &mut at).ok_or_else(|| corrupt("a truncated number"))?;
    *input = &input[at..];
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_truncation_is_an_error() {
        let mut out = Vec::new();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            put(&mut out, v);
        }
        let mut at = out.as_slice();
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(take(&mut at).unwrap(), v);
        }
        assert!(at.is_empty());
        assert!(take(&mut [0x80u8, 0x80].as_slice()).is_err());
        assert!(take(&mut [].as_slice()).is_err());
        let postings =
            |bytes: &[u8]| decode_postings(bytes, 10).map(|ps| ps.iter().map(|p| (p.chunk, p.tf, p.length)).collect::<Vec<_>>());
        assert_eq!(postings(&[2, 1, 1, 3, 4, 2, 5]).unwrap(), [(1, 1, 3), (5, 2, 5)]);
        assert!(postings(&[2, 0, 1, 3]).is_err(), "two postings announced, one given");
        assert!(postings(&[1, 20, 1, 3]).is_err(), "past the last chunk");
        assert!(postings(&[2, 1, 1, 3, 0, 1, 3]).is_err(), "the same chunk twice");
        assert!(postings(&[1, 1, 1, 3, 9]).is_err(), "bytes after the last posting");
        assert!(decode_ids(&[1, 5, b'a']).is_err());
    }

    /// A view that counts its reads.
    struct Counting<'a> {
        inner: &'a dyn PersistedView,
        reads: std::cell::Cell<usize>,
    }

    impl PersistedView for Counting<'_> {
        fn values(&self, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>, StoreError> {
            self.reads.set(self.reads.get() + keys.len());
            self.inner.values(keys)
        }
        fn chunks(&self, ids: &[&str]) -> Result<Vec<Option<Chunk>>, StoreError> {
            self.reads.set(self.reads.get() + ids.len());
            self.inner.chunks(ids)
        }
        fn state(&self) -> &[u8] {
            self.inner.state()
        }
    }

    #[test]
    fn a_second_check_of_the_same_state_reads_only_what_the_first_did_not() {
        use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
        let store = SqliteStore::open_in_memory().unwrap();
        let docs = vec![
            DocumentInput::new("a", "Session tokens expire after 30 minutes."),
            DocumentInput::new("b", "Refresh tokens last 14 days."),
            DocumentInput::new("c", "Cats sleep a lot."),
            DocumentInput::new("d", "Dogs bark at night."),
            DocumentInput::new("e", "Birds sing at dawn."),
        ];
        ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
        assert!(ChunkIndex::persist(&store).unwrap());
        let memo = Memo::of(&store).unwrap();
        // (reads, the chunks found) for one query through the memo.
        let run = |memo: &Arc<Memo>, text: &str| {
            let mut out = (0, Vec::new());
            store
                .read_persisted(NAME, &mut |view| {
                    let counting = Counting { inner: view, reads: std::cell::Cell::new(0) };
                    let loaded = Loaded::load(&counting, Arc::clone(memo), &[text])?;
                    let terms: Vec<(u32, f64)> = loaded.query(text).into_iter().map(|t| (t, 1.0)).collect();
                    let found = loaded.chunks(&loaded.search_weighted(&terms, 8))?;
                    out = (counting.reads.get(), found.into_iter().map(|(c, _)| c.doc_id).collect());
                    Ok(())
                })
                .unwrap();
            out
        };
        let (first, found) = run(&memo, "session tokens expire");
        assert_eq!(found, ["a", "b"]);
        // The totals, three terms, one block of ids, two chunks.
        assert_eq!(first, 7);
        assert_eq!(run(&memo, "session tokens expire"), (0, found.clone()));
        // One new term ("refresh"); its chunk was fetched before.
        assert_eq!(run(&memo, "refresh tokens"), (1, vec!["b".to_string(), "a".to_string()]));
        // The same memo is handed out until a write; a memo of another state is not used.
        assert!(Arc::ptr_eq(&memo, &Memo::of(&store).unwrap()));
        let other = Arc::new(Memo::new());
        assert!(other.describes(b"another state"));
        assert_eq!(run(&other, "session tokens expire").0, first);
    }

    /// Checks sharing one memo at once each read the values they asked for, whichever fills
    /// the memo first (a file store: its readers run in parallel).
    #[test]
    fn checks_filling_one_memo_at_once_agree() {
        use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path()).unwrap();
        let docs: Vec<DocumentInput> = (0..40)
            .map(|i| DocumentInput::new(format!("d{i}"), format!("Gateway {i} tokens expire after {} minutes.", i % 7)))
            .collect();
        ingest(&store, docs, Vec::new(), &IngestOptions::default(), &mut |_| {}).unwrap();
        assert!(ChunkIndex::persist(&store).unwrap());
        let search = |memo: &Arc<Memo>, text: &str| {
            let mut out = Vec::new();
            store
                .read_persisted(NAME, &mut |view| {
                    let loaded = Loaded::load(view, Arc::clone(memo), &[text])?;
                    let terms: Vec<(u32, f64)> = loaded.query(text).into_iter().map(|t| (t, 1.0)).collect();
                    let found = loaded.chunks(&loaded.search_weighted(&terms, 3))?;
                    out = found.into_iter().map(|(c, _)| c.doc_id).collect();
                    Ok(())
                })
                .unwrap();
            out
        };
        let texts = ["gateway 12 tokens", "expire after 3 minutes", "gateway 5 expire"];
        let want: Vec<Vec<String>> = texts.iter().map(|t| search(&Arc::new(Memo::new()), t)).collect();
        for _ in 0..50 {
            let memo = Arc::new(Memo::new());
            std::thread::scope(|s| {
                for (text, want) in texts.iter().zip(&want) {
                    let memo = &memo;
                    s.spawn(move || assert_eq!(&search(memo, text), want));
                }
            });
        }
    }

    proptest::proptest! {
        #[test]
        fn decoding_any_bytes_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = decode_postings(&bytes, 100);
            let _ = decode_ids(&bytes);
            let _ = take(&mut bytes.as_slice());
        }
    }
}
