//! Ingest: documents → chunks → facts, written in one transaction.
//!
//! [`ingest`] first asks the store which documents are unchanged (same ingest key: text,
//! version, title, metadata, chunk size, extraction switch and vocabulary fingerprint) and
//! skips them; the rest are [`prepare`]d in parallel (chunked, pattern-extracted, validated),
//! then handed to [`Store::write`], which writes all of them or nothing.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::sync::Arc;
use warrant_text::hash::hex;

use warrant_facts::{
    ChunkContext, Consistency, Fact, FactExtractor, LayerCount, RejectionCounts, ValidatedFact, Vocabulary, entity_match_key,
    extract_facts, normalized_key,
};

use crate::Store;
use crate::chunk::{ChunkRange, DEFAULT_MAX_CHUNK_CHARS, chunk_id, chunk_text};
use crate::error::{Result, StoreError};
use crate::model::DocumentInput;

/// How documents are turned into chunks and facts.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Predicate vocabulary for the pattern extractor.
    pub vocabulary: Vocabulary,
    /// Longest chunk in chars (default 1200).
    pub max_chunk_chars: usize,
    /// Run the pattern extractor (`false`: chunks only, e.g. for a manual-facts baseline).
    pub extract: bool,
    /// Worker threads for preparing documents (0: one per available core).
    pub threads: usize,
    /// The extractor to use instead of the pattern extractor (e.g. a model); its
    /// fingerprint is part of every document's ingest key.
    pub extractor: Option<Arc<dyn FactExtractor>>,
}

impl Default for IngestOptions {
    fn default() -> Self {
        Self {
            vocabulary: Vocabulary::builtin(),
            max_chunk_chars: DEFAULT_MAX_CHUNK_CHARS,
            extract: true,
            threads: 0,
            extractor: None,
        }
    }
}

/// A document ready to be written: its chunks and validated facts.
#[derive(Debug, Clone)]
pub struct PreparedDocument {
    /// Document id.
    pub id: String,
    /// Full text.
    pub text: String,
    /// Version as written.
    pub version: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// Metadata object.
    pub metadata: Option<serde_json::Value>,
    /// SHA-256 of the text (hex).
    pub sha256: String,
    /// Hash of everything that decides the stored result (see [`ingest_key`]).
    pub ingest_key: String,
    /// Text length in chars.
    pub char_len: usize,
    /// Chunks in order.
    pub chunks: Vec<ChunkRange>,
    /// Facts with the index of the chunk they come from, in chunk and sentence order.
    pub facts: Vec<(usize, ValidatedFact)>,
    /// Candidates dropped by validation, by code.
    pub rejected: RejectionCounts,
    /// Facts kept and candidates dropped by each extraction layer.
    pub layers: BTreeMap<String, LayerCount>,
    /// The entities the facts mention, with their match keys ([`entity_match_key`]), computed
    /// here so the (single) writer does not have to.
    pub entity_keys: BTreeMap<String, String>,
    /// Chunks where the configured extractor fell back to the pattern extractor:
    /// `<chunk id>: <reason>`.
    pub degraded: Vec<String>,
}

impl PreparedDocument {
    /// The id of chunk `index`.
    pub fn chunk_id(&self, index: usize) -> String {
        chunk_id(&self.id, index)
    }

    /// The text of a chunk.
    pub fn chunk_text(&self, c: &ChunkRange) -> &str {
        &self.text[c.byte_start..c.byte_end]
    }
}

/// SHA-256 of a text, hex.
pub fn sha256_hex(text: &str) -> String {
    warrant_text::hash::sha256_hex(text.as_bytes())
}

/// The ingest key of a document: a hash of its text hash, version, title, metadata and the
/// options that shape its chunks and facts. Equal keys mean re-ingesting changes nothing.
pub fn ingest_key(doc: &DocumentInput, text_sha256: &str, opts: &IngestOptions) -> String {
    let mut h = Sha256::new();
    let mut parts = serde_json::json!([
        2, // key format (2: the attribute layer)
        text_sha256,
        doc.version,
        doc.title,
        doc.metadata,
        opts.max_chunk_chars,
        opts.extract,
        if opts.extract { opts.vocabulary.fingerprint() } else { String::new() },
    ]);
    // Appended only when set, so stores ingested with the pattern extractor keep their keys.
    if let (true, Some(x), Some(arr)) = (opts.extract, &opts.extractor, parts.as_array_mut()) {
        arr.push(serde_json::Value::String(x.fingerprint()));
    }
    h.update(parts.to_string().as_bytes());
    hex(&h.finalize()[..16])
}

/// Chunks a document and, when enabled, extracts and validates its facts.
pub fn prepare(doc: &DocumentInput, opts: &IngestOptions) -> PreparedDocument {
    let sha256 = sha256_hex(&doc.text);
    let ingest_key = ingest_key(doc, &sha256, opts);
    let chunks = chunk_text(&doc.text, opts.max_chunk_chars);
    let mut facts = Vec::new();
    let mut rejected = RejectionCounts::default();
    let mut layers = BTreeMap::new();
    let mut degraded = Vec::new();
    if opts.extract {
        let mut section = SectionVersion::default();
        for c in &chunks {
            let cid = chunk_id(&doc.id, c.index);
            let text = &doc.text[c.byte_start..c.byte_end];
            section.enter(text);
            let version = doc.version.as_deref().or(section.version());
            let ctx = ChunkContext::new(text, &doc.id, &cid, version);
            let out = match &opts.extractor {
                Some(x) => x.extract(&opts.vocabulary, &ctx),
                None => extract_facts(&opts.vocabulary, &ctx),
            };
            if let Some(reason) = out.degraded {
                degraded.push(format!("{cid}: {reason}"));
            }
            rejected.merge(&out.rejected);
            merge_layers(&mut layers, &out.layers);
            facts.extend(out.facts.into_iter().map(|f| (c.index, f)));
        }
    }
    let mut entity_keys = BTreeMap::new();
    for (_, f) in &facts {
        for m in &f.mentions {
            if !entity_keys.contains_key(&m.entity) {
                entity_keys.insert(m.entity.clone(), entity_match_key(&m.entity));
            }
        }
    }
    PreparedDocument {
        id: doc.id.clone(),
        text: doc.text.clone(),
        version: doc.version.clone(),
        title: doc.title.clone(),
        metadata: doc.metadata.clone(),
        sha256,
        ingest_key,
        char_len: warrant_text::char_len(&doc.text),
        chunks,
        facts,
        rejected,
        layers,
        entity_keys,
        degraded,
    }
}

/// What one prepared document adds to the summary: chunks, facts, rejections by code, degraded
/// chunks and counts by extraction layer.
type DocumentCounts = (u64, u64, RejectionCounts, Vec<String>, BTreeMap<String, LayerCount>);

/// The version a Markdown section names in its heading ("## Lumen 4.3 (released …)",
/// "## Release 2.1", "## v3.0"), for documents such as release notes that hold one section per
/// version and no version of their own. A heading of the same or a higher level ends it.
#[derive(Debug, Default)]
struct SectionVersion {
    /// (heading level, version) of the innermost section naming one.
    current: Option<(usize, String)>,
}

static HEADING_VERSION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"^(?:(?:[Vv]ersion|[Rr]elease|v)\s*|(?P<family>[A-Z][\w-]*)\s+)(?P<version>\d+(?:\.\d+)+)\b")
        .unwrap_or_else(|e| panic!("heading version pattern: {e}"))
});

impl SectionVersion {
    /// Reads a chunk: when it opens with a heading, the section changes.
    fn enter(&mut self, chunk: &str) {
        let Some((level, title)) = warrant_text::segment::markdown_heading(chunk.lines().next().unwrap_or_default()) else {
            return;
        };
        if self.current.as_ref().is_some_and(|(l, _)| level <= *l) {
            self.current = None;
        }
        // Numbered parts of a document are not versions.
        const PARTS: [&str; 10] =
            ["Section", "Chapter", "Part", "Appendix", "Step", "Table", "Figure", "Article", "Clause", "Annex"];
        if let Some(c) = HEADING_VERSION.captures(title)
            && !c.name("family").is_some_and(|f| PARTS.contains(&f.as_str()))
        {
            self.current = Some((level, c["version"].to_string()));
        }
    }

    fn version(&self) -> Option<&str> {
        self.current.as_ref().map(|(_, v)| v.as_str())
    }
}

fn merge_layers(into: &mut BTreeMap<String, LayerCount>, from: &BTreeMap<String, LayerCount>) {
    for (layer, c) in from {
        let t = into.entry(layer.clone()).or_default();
        t.kept += c.kept;
        t.rejected += c.rejected;
    }
}

/// Extraction consistency (spec §14) of a document: its chunks are extracted once per
/// extractor in `runs`, each run's facts (all chunks together) normalised, and the runs
/// compared pairwise. Nothing is written.
pub fn extraction_consistency(doc: &DocumentInput, opts: &IngestOptions, runs: &[Arc<dyn FactExtractor>]) -> Consistency {
    let chunks = chunk_text(&doc.text, opts.max_chunk_chars);
    let sets: Vec<BTreeSet<String>> = runs
        .iter()
        .map(|x| {
            let mut keys = BTreeSet::new();
            for c in &chunks {
                let cid = chunk_id(&doc.id, c.index);
                let ctx = ChunkContext::new(&doc.text[c.byte_start..c.byte_end], &doc.id, &cid, doc.version.as_deref());
                keys.extend(x.extract(&opts.vocabulary, &ctx).facts.iter().map(|f| normalized_key(&f.fact)));
            }
            keys
        })
        .collect();
    Consistency::of_runs(&sets)
}

/// Progress of [`ingest`], for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Documents prepared so far, of the total to prepare, and their text bytes.
    Prepared {
        /// Done.
        done: usize,
        /// To do.
        total: usize,
        /// Text bytes of the documents done.
        bytes: u64,
    },
    /// Documents written so far, of the total.
    Written {
        /// Done.
        done: usize,
        /// To do.
        total: usize,
    },
}

/// What an ingest did: `documents`, `chunks` and `facts` count what was written (new or
/// changed documents, their chunks and facts); `unchanged` documents were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct IngestSummary {
    /// Documents written (new or changed).
    pub documents: u64,
    /// Chunks of the documents written.
    pub chunks: u64,
    /// Facts extracted from the documents written.
    pub facts: u64,
    /// Candidates dropped by validation.
    pub rejected_facts: u64,
    /// Those, by rejection code.
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, u64>))]
    pub rejected_by_reason: RejectionCounts,
    /// Facts kept and candidates dropped by each extraction layer (`vocabulary`: the
    /// vocabulary's sentence patterns; `attribute`: the attribute layer; `model`: an LLM
    /// extractor), in name order.
    #[cfg_attr(feature = "openapi", schema(value_type = std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>))]
    pub facts_by_layer: BTreeMap<String, LayerCount>,
    /// Documents identical to what the store holds (not rewritten).
    pub unchanged_documents: u64,
    /// Manual facts loaded.
    pub manual_facts: u64,
    /// Chunks where the configured extractor fell back to the pattern extractor, with the
    /// reason (`<chunk id>: <stage>: <why>`), in document and chunk order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub degraded: Vec<String>,
}

/// Ingests documents and manual facts into a store in one transaction (see the module docs).
/// Document ids must be unique within `docs`. Documents are prepared on worker threads while
/// the store writes the ones already prepared, in input order.
pub fn ingest(
    store: &dyn Store,
    docs: Vec<DocumentInput>,
    manual_facts: Vec<Fact>,
    opts: &IngestOptions,
    progress: &mut dyn FnMut(Progress),
) -> Result<IngestSummary> {
    let mut seen = std::collections::HashSet::new();
    if let Some(d) = docs.iter().find(|d| !seen.insert(d.id.as_str())) {
        return Err(StoreError::Invalid(format!("duplicate document id \"{}\" in one ingest", d.id)));
    }
    if opts.max_chunk_chars == 0 {
        return Err(StoreError::Invalid("max_chunk_chars must be at least 1".into()));
    }
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    let stored = store.ingest_keys(&ids)?;
    let mut unchanged = 0u64;
    let mut todo = Vec::with_capacity(docs.len());
    for d in docs {
        let key_matches = stored.get(&d.id).is_some_and(|k| *k == ingest_key(&d, &sha256_hex(&d.text), opts));
        if key_matches {
            unchanged += 1;
        } else {
            todo.push(d);
        }
    }
    let total = todo.len();
    let progress = RefCell::new(progress);
    // What each document contributes, recorded as it is handed to the store.
    let mut counts: Vec<DocumentCounts> = Vec::with_capacity(total);
    let report = prepare_streaming(&todo, opts, |documents| {
        let mut bytes = 0u64;
        let mut in_order = documents.inspect(|p| {
            counts.push((p.chunks.len() as u64, p.facts.len() as u64, p.rejected.clone(), p.degraded.clone(), p.layers.clone()));
            bytes += p.text.len() as u64;
            (progress.borrow_mut())(Progress::Prepared { done: counts.len(), total, bytes });
        });
        store.write(&mut in_order, &manual_facts, &mut |done| (progress.borrow_mut())(Progress::Written { done, total }))
    })?;
    let mut summary = IngestSummary {
        unchanged_documents: unchanged + report.unchanged as u64,
        manual_facts: report.manual_facts as u64,
        ..IngestSummary::default()
    };
    for &i in &report.written {
        let (chunks, facts, rejected, degraded, layers) = &counts[i];
        merge_layers(&mut summary.facts_by_layer, layers);
        summary.degraded.extend(degraded.iter().cloned());
        summary.documents += 1;
        summary.chunks += chunks;
        summary.facts += facts;
        summary.rejected_by_reason.merge(rejected);
    }
    summary.rejected_facts = summary.rejected_by_reason.total();
    Ok(summary)
}

/// Prepares documents on worker threads and hands them, in input order, to `consume` as they
/// become ready. Workers stop when `consume` returns (even early, on an error).
fn prepare_streaming<T>(
    docs: &[DocumentInput],
    opts: &IngestOptions,
    consume: impl FnOnce(&mut dyn Iterator<Item = PreparedDocument>) -> T,
) -> T {
    let threads = match opts.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
    .clamp(1, docs.len().max(1));
    let next = AtomicUsize::new(0);
    // Bounded: workers run at most a few documents ahead of the writer.
    let (tx, rx) = mpsc::sync_channel::<(usize, PreparedDocument)>(threads * 4);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(doc) = docs.get(i) else { break };
                    if tx.send((i, prepare(doc, opts))).is_err() {
                        break; // the consumer stopped
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, PreparedDocument> = BTreeMap::new();
        let mut want = 0;
        let mut in_order = std::iter::from_fn(|| {
            loop {
                if let Some(p) = waiting.remove(&want) {
                    want += 1;
                    return Some(p);
                }
                let (i, p) = rx.recv().ok()?;
                waiting.insert(i, p);
            }
        });
        consume(&mut in_order)
        // `in_order` (and the receiver) drop here, before the workers are joined.
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_name_versions_until_a_sibling_heading() {
        let mut s = SectionVersion::default();
        let mut read = |chunk: &str| {
            s.enter(chunk);
            s.version().map(str::to_string)
        };
        assert_eq!(read("# Lumen release notes"), None);
        assert_eq!(read("## Lumen 4.3 (released 2024-03-18)"), Some("4.3".into()));
        assert_eq!(read("- The maximum upload size rises to 250 MB."), Some("4.3".into()));
        assert_eq!(read("### Fixes"), Some("4.3".into()), "a subsection stays in its version");
        assert_eq!(read("## Release 4.2"), Some("4.2".into()));
        assert_eq!(read("## v4.1\nAdded search."), Some("4.1".into()));
        assert_eq!(read("## Support window"), None);
        assert_eq!(read("## Section 2.1 Limits"), None, "a numbered part is not a version");
        assert_eq!(read("#hashtag 4.3"), None);
    }
}
