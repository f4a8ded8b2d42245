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
use std::sync::Arc;

use warrant_store::{Chunk, PersistedView, Store, StoreError};
use warrant_text::bm25::{self, PostingCursor};
use warrant_text::fasthash::FastMap;
use warrant_verify::Analysed;

use super::{BM25, ChunkIndex, for_each_key, query_terms};

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
struct Term {
    list: Vec<Posting>,
    impact: f64,
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

/// The part of a kept index a set of texts needs: the postings of their terms, read at once.
pub(crate) struct Loaded<'a> {
    view: &'a dyn PersistedView,
    chunks: usize,
    average: f64,
    /// Term → its number, and by number its postings.
    terms: FastMap<String, u32>,
    postings: Vec<Term>,
}

impl<'a> Loaded<'a> {
    /// Reads the postings of every term of `texts` from `view`.
    pub(crate) fn load(view: &'a dyn PersistedView, texts: &[&str]) -> Result<Self, StoreError> {
        let mut wanted: Vec<String> = Vec::new();
        let mut seen: FastMap<String, ()> = FastMap::default();
        for text in texts {
            for_each_key(text, |key| {
                if seen.insert(key.to_string(), ()).is_none() {
                    wanted.push(key.to_string());
                }
            });
        }
        let mut keys: Vec<Vec<u8>> = vec![b"m".to_vec()];
        keys.extend(wanted.iter().map(|w| [b"t".as_slice(), w.as_bytes()].concat()));
        let mut values = view.values(&keys)?.into_iter();
        let meta = values.next().flatten().ok_or_else(|| corrupt("no totals"))?;
        let mut at = meta.as_slice();
        let chunks = usize::try_from(take(&mut at)?).map_err(|_| corrupt("chunk count"))?;
        let total = take(&mut at)?;
        let mut loaded = Loaded {
            view,
            chunks,
            average: bm25::average_length(chunks, total),
            terms: FastMap::default(),
            postings: Vec::new(),
        };
        for (term, value) in wanted.into_iter().zip(values) {
            let Some(value) = value else { continue };
            let list = decode_postings(&value, chunks)?;
            let impact = BM25.impact_bound(list.iter().map(|p| (p.tf, p.length)), loaded.average);
            loaded.terms.insert(term, loaded.postings.len() as u32);
            loaded.postings.push(Term { list, impact });
        }
        Ok(loaded)
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
    pub(crate) fn search_weighted(&self, terms: &[(u32, f64)], limit: usize) -> Vec<usize> {
        let mut lists: Vec<Cursor<'_>> = terms
            .iter()
            .map(|&(t, w)| {
                let term = &self.postings[t as usize];
                let idf = bm25::idf(self.chunks, term.list.len());
                Cursor { postings: &term.list, at: 0, average: self.average, w, idf, bound: w * idf * term.impact }
            })
            .collect();
        bm25::best(&mut lists, limit).into_iter().map(|c| c as usize).collect()
    }

    /// The chunks at `positions`, analysed, in that order.
    pub(crate) fn chunks(&self, positions: &[usize]) -> Result<Vec<(Chunk, Arc<Analysed>)>, StoreError> {
        let mut blocks: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for &p in positions {
            blocks.entry(p / BLOCK).or_default();
        }
        let keys: Vec<Vec<u8>> = blocks.keys().map(|&b| block_key(b)).collect();
        for (ids, value) in blocks.values_mut().zip(self.view.values(&keys)?) {
            *ids = decode_ids(&value.ok_or_else(|| corrupt("a block of chunk ids is missing"))?)?;
        }
        let ids: Vec<&str> = positions
            .iter()
            .map(|&p| blocks[&(p / BLOCK)].get(p % BLOCK).map(String::as_str).ok_or_else(|| corrupt("chunk position")))
            .collect::<Result<_, _>>()?;
        let found = self.view.chunks(&ids)?;
        ids.iter()
            .zip(found)
            .map(|(id, c)| {
                let c = c.ok_or_else(|| corrupt(&format!("chunk {id} is indexed but not stored")))?;
                let analysed = Arc::new(Analysed::of(&c.text));
                Ok((c, analysed))
            })
            .collect()
    }
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("the kept chunk index ({NAME}): {what}"))
}

/// A term's stored postings, checked: an error if the value is cut short, runs on, or names a
/// chunk past the last or out of order.
fn decode_postings(mut value: &[u8], chunks: usize) -> Result<Vec<Posting>, StoreError> {
    let n = take(&mut value)?;
    let mut out: Vec<Posting> = Vec::with_capacity(usize::try_from(n).unwrap_or(0).min(chunks));
    let narrow = |v: u64| u32::try_from(v).map_err(|_| corrupt("a number out of range"));
    for _ in 0..n {
        let last = out.last().map(|p| p.chunk);
        let chunk = narrow(u64::from(last.unwrap_or(0)).saturating_add(take(&mut value)?))?;
        let (tf, length) = (narrow(take(&mut value)?)?, narrow(take(&mut value)?)?);
        if chunk as usize >= chunks || last.is_some_and(|l| chunk <= l) {
            return Err(corrupt("a posting past the last chunk or out of order"));
        }
        out.push(Posting { chunk, tf, length });
    }
    if !value.is_empty() {
        return Err(corrupt("bytes after the last posting"));
    }
    Ok(out)
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
    let mut v = 0u64;
    for (i, &byte) in input.iter().enumerate().take(10) {
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *input = &input[i + 1..];
            return Ok(v);
        }
    }
    Err(corrupt("a truncated number"))
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

    proptest::proptest! {
        #[test]
        fn decoding_any_bytes_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            let _ = decode_postings(&bytes, 100);
            let _ = decode_ids(&bytes);
            let _ = take(&mut bytes.as_slice());
        }
    }
}
