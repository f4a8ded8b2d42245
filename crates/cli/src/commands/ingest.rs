//! `warrant ingest`: files and folders → documents, chunks, facts and a BM25 index.
//!
//! Every input is read and checked before the store is touched: a bad record anywhere fails
//! the whole command (exit 2, every problem on its own line) and nothing is written. Then all
//! documents and manual facts are written in one transaction.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use warrant_facts::Vocabulary;
use warrant_store::{IngestOptions, IngestSummary, Progress, SqliteStore, Store};

use crate::cli::{Format, IngestArgs};
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

/// Reads `--vocab` (TOML or JSON) and adds it to the default vocabulary.
pub(crate) fn load_vocabulary(path: Option<&str>) -> CliResult<Vocabulary> {
    Ok(warrant::inputs::vocabulary(path)?)
}

/// Runs `warrant ingest`.
pub fn run(args: IngestArgs) -> CliResult<ExitCode> {
    let vocab = load_vocabulary(args.vocab.as_deref())?;
    // The model settings are checked before anything is read or written.
    let llm = args.llm_opts.stage(args.llm, "--llm")?;
    let bar = Bar::new();
    bar.stage("reading");
    let files =
        warrant::ingest::IngestFiles { paths: args.paths.clone(), facts: args.facts.clone(), version: args.doc_version.clone() };
    let read = warrant::ingest::read_files(&files, &vocab, &mut |bytes| bar.add_bytes(bytes));
    let (sources, manual) = match read {
        Ok(read) => read,
        Err(e) => {
            bar.clear();
            let lines: Vec<String> = e.problems.into_iter().map(|p| p.message).collect();
            return Err(if lines.is_empty() { CliError::input(e.message) } else { CliError::inputs(&lines) });
        }
    };

    let dir = args.store.path();
    let cache = cache_mib()?;
    // A PostgreSQL URL names a migrated database; anything else a store folder (created if
    // missing), whose writer cache `$WARRANT_STORE_CACHE_MB` sizes.
    let store: Box<dyn Store> = if warrant_store::is_postgres_url(&dir.to_string_lossy()) {
        warrant_store::open(&dir).map_err(CliError::store)?
    } else {
        let store = SqliteStore::open(&dir).map_err(CliError::store)?;
        if let Some(mib) = cache {
            store.set_writer_cache_mib(mib).map_err(CliError::store)?;
        }
        Box::new(store)
    };
    let options = IngestOptions {
        vocabulary: vocab,
        max_chunk_chars: args.max_chunk_chars as usize,
        extract: !args.no_extract,
        ..IngestOptions::default()
    };
    let skipped = sources.skipped;
    let run = warrant::ingest::IngestRun { options, llm: llm.clone(), consistency_runs: args.consistency };
    let written = warrant::ingest::write(store.as_ref(), sources, manual, run, &mut |p| bar.progress(p));
    bar.clear();
    let warrant::ingest::Ingested { summary, consistency } = written?;
    let mut out = Out::new();
    match args.format {
        Format::Json => {
            let mut v = serde_json::to_value(&summary).map_err(|e| CliError::input(format!("cannot serialise output: {e}")))?;
            if let (Some((doc, c)), Some(m)) = (&consistency, v.as_object_mut()) {
                let mut cv = serde_json::to_value(c).map_err(|e| CliError::input(format!("cannot serialise output: {e}")))?;
                cv["document"] = serde_json::Value::String(doc.clone());
                m.insert("consistency".into(), cv);
            }
            out.json(&v)?;
        }
        Format::Text => {
            print_summary(&mut out, &summary, skipped, &args.store.shown())?;
            if let Some((doc, c)) = &consistency {
                outln!(
                    out,
                    "  consistency of {doc} over {} runs: jaccardAvg {:.3}, jaccardMin {:.3}{}",
                    c.runs,
                    c.jaccard_avg,
                    c.jaccard_min,
                    if c.reliable { "" } else { " — UNRELIABLE (below 0.8): prefer manual facts" }
                )?;
            }
        }
    }
    out.finish()?;
    args.llm_opts.write_replay_case(llm.as_ref(), warrant_evidence::Scope::default().set("run_id", "ingest"))?;
    Ok(ExitCode::SUCCESS)
}

/// `$WARRANT_STORE_CACHE_MB`: the writer's page cache in MiB (default 256).
fn cache_mib() -> CliResult<Option<u32>> {
    match std::env::var("WARRANT_STORE_CACHE_MB") {
        Err(_) => Ok(None),
        Ok(v) => {
            v.trim().parse::<u32>().ok().filter(|n| *n > 0).map(Some).ok_or_else(|| {
                CliError::input(format!("WARRANT_STORE_CACHE_MB={v}: expected a whole number of MiB (at least 1)"))
            })
        }
    }
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn print_summary(out: &mut Out, s: &IngestSummary, skipped: usize, store: &str) -> CliResult<()> {
    outln!(
        out,
        "{store}: {} written ({}, {}), {} unchanged",
        plural(s.documents, "document", "documents"),
        plural(s.chunks, "chunk", "chunks"),
        plural(s.facts, "fact", "facts"),
        s.unchanged_documents
    )?;
    if !s.facts_by_layer.is_empty() {
        let layers: Vec<String> =
            s.facts_by_layer.iter().map(|(layer, c)| format!("{layer} {} kept, {} rejected", c.kept, c.rejected)).collect();
        outln!(out, "  facts by layer: {}", layers.join("; "))?;
    }
    if s.rejected_facts > 0 {
        let reasons: Vec<String> = s.rejected_by_reason.iter().map(|(code, n)| format!("{code} {n}")).collect();
        outln!(out, "  rejected {}: {}", plural(s.rejected_facts, "candidate fact", "candidate facts"), reasons.join(", "))?;
    }
    if s.manual_facts > 0 {
        outln!(out, "  loaded {}", plural(s.manual_facts, "manual fact", "manual facts"))?;
    }
    for d in &s.degraded {
        outln!(out, "  degraded {d} (pattern extractor used)")?;
    }
    if skipped > 0 {
        outln!(
            out,
            "  skipped {} in folders (hidden, or not .txt, .md, .html, .jsonl, .json)",
            plural(skipped as u64, "file", "files")
        )?;
    }
    Ok(())
}

/// A progress bar on stderr, only when stderr is a terminal.
struct Bar(Option<ProgressBar>);

impl Bar {
    fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return Self(None);
        }
        let pb = ProgressBar::new_spinner();
        pb.enable_steady_tick(Duration::from_millis(120));
        Self(Some(pb))
    }

    fn stage(&self, name: &str) {
        if let Some(pb) = &self.0 {
            let style =
                ProgressStyle::with_template("{spinner} {msg} {bytes}").unwrap_or_else(|_| ProgressStyle::default_spinner());
            pb.set_style(style);
            pb.set_message(name.to_string());
        }
    }

    fn add_bytes(&self, n: u64) {
        if let Some(pb) = &self.0 {
            pb.inc(n);
        }
    }

    fn progress(&self, p: Progress) {
        let Some(pb) = &self.0 else { return };
        let total = match p {
            Progress::Prepared { total, .. } | Progress::Written { total, .. } => total as u64,
        };
        if pb.length() != Some(total) {
            let style = ProgressStyle::with_template("{spinner} ingesting [{bar:30}] {pos}/{len} documents {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar());
            pb.set_style(style.progress_chars("=> "));
            pb.set_length(total);
            pb.set_position(0);
            pb.set_message("");
        }
        // Documents are prepared just ahead of the writer; the bar follows the writer.
        if let Progress::Written { done, total } = p {
            pb.set_position(done as u64);
            if done == total {
                pb.set_message("(committing)");
            }
        }
    }

    fn clear(&self) {
        if let Some(pb) = &self.0 {
            pb.finish_and_clear();
        }
    }
}
