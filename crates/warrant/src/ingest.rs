//! Ingesting records into the store: chunks for retrieval and the facts their text states,
//! all of them or, if any record or fact is bad, none.

use serde::Deserialize;
use serde_json::Value;
use warrant_store::IngestOptions;
pub use warrant_store::IngestSummary;

use crate::env::Env;
use crate::error::{Error, Problem, Result};

/// Records to ingest. The body of `POST /v1/ingest`.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    /// Records `{"id"|"docId", "text", "version"?, "title"?, "metadata"?}`.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub documents: Vec<Value>,
    /// Manual (gold) facts, loaded as given.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub facts: Vec<Value>,
    /// Version of records that carry none.
    #[serde(default)]
    pub version: Option<String>,
    /// Store chunks only; do not extract facts.
    #[serde(default)]
    pub no_extract: bool,
    /// Longest chunk, in characters (default 1200).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub max_chunk_chars: Option<u32>,
}

/// Ingests `req` into the environment's store in one transaction: every bad record or fact is
/// listed in the error's problems, and then nothing is written.
pub fn ingest(env: &Env, req: &IngestRequest) -> Result<IngestSummary> {
    let store = env.store().ok_or_else(|| Error::input("no store to ingest into"))?;
    let vocab = env.vocabulary().as_ref().clone();
    let mut problems = Vec::new();
    let text = serde_json::to_string(&req.documents).map_err(|e| Error::internal(e.to_string()))?;
    let (docs, errs) = warrant_store::parse_json_records("documents", &text, req.version.as_deref());
    problems.extend(errs.iter().map(|e| Problem::at(format!("/documents{}", e.pointer.clone().unwrap_or_default()), &e.message)));
    let mut manual = Vec::new();
    if !req.facts.is_empty() {
        let text = serde_json::to_string(&req.facts).map_err(|e| Error::internal(e.to_string()))?;
        let (facts, errs) = warrant_store::parse_manual_facts("facts", &text, false, Some(&vocab));
        manual = facts;
        problems.extend(errs.iter().map(|e| Problem::at(format!("/facts{}", e.pointer.clone().unwrap_or_default()), &e.message)));
    }
    if let Some(first) = problems.first() {
        let n = problems.len();
        let message =
            format!("{}: {} ({n} problem{}; nothing was written)", first.pointer, first.message, if n == 1 { "" } else { "s" });
        return Err(Error::input(message).with_problems(problems));
    }
    let opts = IngestOptions {
        vocabulary: vocab,
        max_chunk_chars: req.max_chunk_chars.map_or(1200, |n| n as usize),
        extract: !req.no_extract,
        ..IngestOptions::default()
    };
    if opts.max_chunk_chars == 0 {
        return Err(Error::input_at("/max_chunk_chars", "max_chunk_chars must be at least 1"));
    }
    ingest_into(store.as_ref(), docs, manual, &opts, &mut |_| {})
}

/// Files to ingest (the CLI's PATH arguments and `--facts`, Python's `Store.ingest(paths)`).
#[derive(Debug, Clone, Default)]
pub struct IngestFiles {
    /// Files and folders: text, Markdown, HTML, JSON Lines and JSON records.
    pub paths: Vec<std::path::PathBuf>,
    /// Manual (gold) fact files (JSON, or JSON Lines by their `.jsonl`/`.ndjson` name).
    pub facts: Vec<String>,
    /// Version of documents that carry none.
    pub version: Option<String>,
}

/// Reads `files` before anything is written: their documents and manual facts, or every
/// problem (one line each, naming its file) in the error's problems.
pub fn read_files(
    files: &IngestFiles,
    vocab: &warrant_facts::Vocabulary,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<(warrant_store::SourceSet, Vec<warrant_facts::Fact>)> {
    use warrant_store::{SourceSet, parse_manual_facts, read_sources};
    let mut errors: Vec<String> = Vec::new();
    let sources = match read_sources(&files.paths, files.version.as_deref(), on_bytes) {
        Ok(set) => set,
        Err(errs) => {
            errors.extend(errs.iter().map(ToString::to_string));
            SourceSet::default()
        }
    };
    let mut manual = Vec::new();
    for f in &files.facts {
        let text = match crate::io::read_text(f) {
            Ok(t) => t,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        let lines = [".jsonl", ".ndjson"].iter().any(|ext| f.to_ascii_lowercase().ends_with(ext));
        let (facts, errs) = parse_manual_facts(crate::io::display_name(f), &text, lines, Some(vocab));
        manual.extend(facts);
        errors.extend(errs.iter().map(ToString::to_string));
    }
    match errors.first() {
        None => Ok((sources, manual)),
        Some(first) => {
            let problems = errors.iter().map(|e| Problem::at("", e)).collect();
            Err(Error::input(first.clone()).with_problems(problems))
        }
    }
}

/// Reads `files` and ingests them into the environment's store in one transaction (nothing
/// is written when any file is bad).
pub fn ingest_files(env: &Env, files: &IngestFiles, no_extract: bool, max_chunk_chars: usize) -> Result<IngestSummary> {
    let store = env.store().ok_or_else(|| Error::input("no store to ingest into"))?;
    let vocab = env.vocabulary().as_ref().clone();
    let (sources, manual) = read_files(files, &vocab, &mut |_| {})?;
    if max_chunk_chars == 0 {
        return Err(Error::input("max_chunk_chars must be at least 1"));
    }
    let opts = IngestOptions { vocabulary: vocab, max_chunk_chars, extract: !no_extract, ..IngestOptions::default() };
    ingest_into(store.as_ref(), sources.documents, manual, &opts, &mut |_| {})
}

/// How read documents are written: the ingest options, the model that extracts facts (none:
/// the pattern extractor), and how many extraction runs measure consistency on the first
/// document (§14; none: not measured).
pub struct IngestRun {
    /// Vocabulary, chunk size, whether to extract facts.
    pub options: IngestOptions,
    /// The model fact extractor, when ingest runs with a model.
    pub llm: Option<warrant_llm::Llm>,
    /// Extraction runs for the consistency measure (the ingest's own extraction is run 0).
    pub consistency_runs: Option<u32>,
}

/// What an ingest wrote, and the consistency of the first document's extraction when asked.
#[derive(Debug)]
pub struct Ingested {
    /// Counts of what was written and rejected.
    pub summary: IngestSummary,
    /// The measured document's id and its extraction consistency.
    pub consistency: Option<(String, warrant_facts::Consistency)>,
}

/// Writes read documents and manual facts to `store` in one transaction, with the model
/// extractor when one is given, measuring consistency first when asked.
pub fn write(
    store: &dyn warrant_store::Store,
    sources: warrant_store::SourceSet,
    manual: Vec<warrant_facts::Fact>,
    mut run: IngestRun,
    progress: &mut dyn FnMut(warrant_store::Progress),
) -> Result<Ingested> {
    use std::sync::Arc;
    use warrant_extract::LlmFactExtractor;
    use warrant_facts::{FactExtractor, PatternExtractor};
    if let Some(llm) = &run.llm {
        run.options.extractor = Some(Arc::new(LlmFactExtractor::new(llm.clone())));
    }
    let consistency = match (run.consistency_runs, sources.documents.first()) {
        (Some(r), Some(doc)) => {
            let runs: Vec<Arc<dyn FactExtractor>> = (0..u64::from(r))
                .map(|i| -> Arc<dyn FactExtractor> {
                    match &run.llm {
                        Some(llm) => Arc::new(LlmFactExtractor::run(llm.clone(), i)),
                        None => Arc::new(PatternExtractor),
                    }
                })
                .collect();
            Some((doc.id.clone(), warrant_store::extraction_consistency(doc, &run.options, &runs)))
        }
        _ => None,
    };
    let summary = ingest_into(store, sources.documents, manual, &run.options, progress)?;
    Ok(Ingested { summary, consistency })
}

/// Writes documents and manual facts to `store` in one transaction, then keeps the checker's
/// chunk index in the store for its new state (unless one is kept already), so the next
/// check in any process reads only the postings it needs instead of indexing every chunk.
fn ingest_into(
    store: &dyn warrant_store::Store,
    docs: Vec<warrant_store::DocumentInput>,
    manual: Vec<warrant_facts::Fact>,
    options: &IngestOptions,
    progress: &mut dyn FnMut(warrant_store::Progress),
) -> Result<IngestSummary> {
    let summary = warrant_store::ingest(store, docs, manual, options, progress).map_err(|e| Error::store(e, None))?;
    // The index is a cache: the documents are written whatever happens to it, and without it
    // a check builds the index in memory and gives the same report. So a failure to keep it
    // (a concurrent write made it stale, the store is busy) does not fail the ingest.
    let kept = store.read_persisted(warrant_check::PERSISTED_CHUNK_INDEX, &mut |_| Ok(())).unwrap_or(false);
    if !kept {
        let _ = warrant_check::ChunkIndex::persist(store);
    }
    Ok(summary)
}
