//! The pipeline (§7):
//!
//! ```text
//! preflight → segment (+manifest) → chunk → map → reduce → promote → coverage → sanitize
//! → ids + references → numeric guards → traceability → metadata → quality
//! ```
//!
//! Traceability is rebuilt after the numeric guard (the spec lists it before) so that items the
//! guard drops leave no rows behind. Everything is deterministic: ordered collections, stable
//! ids, no clock unless the caller passes `created_at`.

use serde::Serialize;

use crate::chunk::{self, DEFAULT_MAX_CHARS};
use crate::coverage::{self, CoverageMode};
use crate::derive;
use crate::domain::DomainSignal;
use crate::ids;
use crate::lang::{Lang, LangCounts};
use crate::map::{Intro, MapError, MapInput, Mapper, RuleMapper};
use crate::model::{CoverageReport, Item, Metadata, NumericIntegrity, Package, SanitizerAudit};
use crate::normalize::normalize;
use crate::promote::{self, PromoteOptions};
use crate::quality::{self, Quality, SourceSignals};
use crate::reduce;
use crate::sanitize::{self, SanitizeOptions, SanitizerAction};
use crate::source::{self, Document, Format, Profile, ReadOptions, SourceError, Span};

/// The wire protocol version written in `metadata.protocol_version`.
pub const PROTOCOL_VERSION: &str = "ckf-1.0";

/// `created_at` when the caller gives none: the Unix epoch, the reproducible-build convention
/// for "no time was given" (compiling twice must give the same bytes).
pub const UNSET_CREATED_AT: &str = "1970-01-01T00:00:00Z";

/// The compiler's name and version (`metadata.compiler_profile`).
pub fn compiler_version() -> String {
    format!("warrant-ckf {}", env!("CARGO_PKG_VERSION"))
}

/// `compression_level` (§2.2). Written as requested; chunking does not depend on it (§12).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompressionLevel {
    /// `light`.
    Light,
    /// `standard` (default).
    #[default]
    Standard,
    /// `dense`.
    Dense,
    /// `agentic`.
    Agentic,
}

impl CompressionLevel {
    /// The spec's name.
    pub fn as_str(self) -> &'static str {
        match self {
            CompressionLevel::Light => "light",
            CompressionLevel::Standard => "standard",
            CompressionLevel::Dense => "dense",
            CompressionLevel::Agentic => "agentic",
        }
    }
}

/// One source to compile.
#[derive(Debug, Clone, Copy)]
pub struct SourceInput<'a> {
    /// The name used in messages and the manifest (a path, or `<stdin>`).
    pub name: &'a str,
    /// The raw bytes.
    pub bytes: &'a [u8],
}

/// Compile settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// The package title (default: front matter, `<title>`, first `#` heading, file stem).
    pub title: Option<String>,
    /// The source version (default: front matter or a `Version N` line; `v1` when unknown).
    pub version: Option<String>,
    /// `metadata.created_at` (ISO-8601); default [`UNSET_CREATED_AT`].
    pub created_at: Option<String>,
    /// `metadata.compression_level`.
    pub compression_level: CompressionLevel,
    /// Coverage mode (default: by format, §7.7).
    pub coverage: Option<CoverageMode>,
    /// Promotion on or off (`disablePromotion`).
    pub promotion: bool,
    /// Chunk size in characters (§7.3).
    pub max_chunk_chars: usize,
    /// Sanitizer action.
    pub sanitizer_action: SanitizerAction,
    /// Check excerpts' language in the sanitizer.
    pub check_excerpt_language: bool,
    /// Reading limits.
    pub read: ReadOptions,
    /// Threads for the parallel stages (mapping chunks, per-section and per-item work):
    /// `0` (default) uses every available core, `1` runs everything on the calling thread.
    /// The output does not depend on it.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            title: None,
            version: None,
            created_at: None,
            compression_level: CompressionLevel::Standard,
            coverage: None,
            promotion: true,
            max_chunk_chars: DEFAULT_MAX_CHARS,
            sanitizer_action: SanitizerAction::Remove,
            check_excerpt_language: true,
            read: ReadOptions::default(),
            threads: 0,
        }
    }
}

/// Why compilation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// No sources were given.
    #[error("no sources to compile")]
    NoSources,
    /// A source was refused (preflight) or could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The map step failed.
    #[error(transparent)]
    Map(#[from] MapError),
    /// A source over 1,000 characters yielded no items (§7.11 guard).
    #[error("Aborting empty package: {chars} characters of source yielded no items")]
    EmptyPackage {
        /// Source characters.
        chars: u64,
    },
}

/// Promotion counts in the compile result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PromotionCounts {
    /// Candidates promoted.
    pub promoted: u32,
    /// Candidates rejected.
    pub rejected: u32,
}

/// The compile result (§7.11): the package and what the pipeline measured.
#[derive(Debug, Clone, Serialize)]
pub struct CompileResult {
    /// The package.
    #[serde(skip)]
    pub package: Package,
    /// Quality scores.
    pub quality: Quality,
    /// Promotion counts.
    pub promotion: PromotionCounts,
    /// Sanitizer report.
    pub sanitizer: SanitizerAudit,
    /// Coverage report.
    pub coverage: CoverageReport,
    /// Numeric integrity report.
    pub numeric_integrity: NumericIntegrity,
    /// Notes (thin inputs, dropped relations, …).
    pub warnings: Vec<String>,
    /// The compiler's name and version.
    pub compiler_version: String,
    /// Preflight profiles, one per source.
    pub profiles: Vec<Profile>,
}

/// Compiles sources with the deterministic rule mapper.
pub fn compile(sources: &[SourceInput<'_>], opts: &Options) -> Result<CompileResult, CompileError> {
    compile_with(&RuleMapper, sources, opts)
}

/// Compiles sources with a given mapper.
///
/// Stages that work item by item or section by section use up to [`Options::threads`] threads;
/// the output is the same, byte for byte, whatever the number.
pub fn compile_with(mapper: &dyn Mapper, sources: &[SourceInput<'_>], opts: &Options) -> Result<CompileResult, CompileError> {
    crate::par::on_threads(opts.threads, || compile_inner(mapper, sources, opts))
}

/// Every document's spans (moved into one package-wide list), mapped chunk by chunk.
struct Mapped {
    spans: Vec<Span>,
    span_files: Vec<String>,
    span_formats: Vec<Format>,
    partials: Vec<Vec<Item>>,
    chunk_count: usize,
    warnings: Vec<String>,
    intro: Intro,
    domain: DomainSignal,
    signals: SourceSignals,
}

/// Maps every document's chunks (each on every allowed thread, folded in order) and gathers
/// the signals the package's metadata is derived from.
fn map_documents(mapper: &dyn Mapper, docs: &mut [Document], opts: &Options, language: Lang) -> Result<Mapped, CompileError> {
    let mut spans: Vec<Span> = Vec::new();
    let mut span_files: Vec<String> = Vec::new();
    let mut span_formats: Vec<Format> = Vec::new();
    let mut partials = Vec::new();
    let mut chunk_count = 0usize;
    let mut warnings: Vec<String> = Vec::new();
    let mut intro = Intro::default();
    let mut dropped_numeric = 0u32;
    let mut domain = DomainSignal::default();
    let mut signals = SourceSignals::default();
    for d in docs.iter_mut() {
        warnings.extend(d.profile.warnings.iter().cloned());
        let base = spans.len() as u32;
        let chunks = chunk::chunks(&d.spans, opts.max_chunk_chars);
        chunk_count += chunks.len();
        // Chunks are mapped independently (on every allowed thread), then folded in order.
        let numbered: Vec<(usize, &chunk::Chunk)> = chunks.iter().enumerate().collect();
        let mapped = crate::par::map(&numbered, 1, |&(k, c)| {
            let mut c = c.clone();
            c.span += base;
            let input = MapInput { spans: &d.spans, base, chunk: &c, language, format: d.format, first_chunk: k == 0 };
            mapper.map(&input)
        });
        for p in mapped {
            let p = p?;
            dropped_numeric += p.dropped_numeric;
            intro.purpose.extend(p.intro.purpose);
            intro.audience.extend(p.intro.audience);
            intro.value.extend(p.intro.value);
            partials.push(p.items);
        }
        // Domain cues per span on every allowed thread (counts add up in any order).
        for part in crate::par::map(&d.spans, 64, |s| {
            let mut one = DomainSignal::default();
            one.add(&s.text);
            one
        }) {
            domain.merge(&part);
        }
        for s in &d.spans {
            signals.add(&s.text);
        }
        signals.words += d.profile.source_word_count;
        span_files.extend(std::iter::repeat_n(d.file.clone(), d.spans.len()));
        span_formats.extend(std::iter::repeat_n(d.format, d.spans.len()));
        // The document's spans are not read again: moved, not copied.
        spans.append(&mut d.spans);
    }
    if dropped_numeric > 0 {
        warnings.push(format!("{dropped_numeric} items were not kept because two excerpts could not show all their numbers"));
    }
    Ok(Mapped { spans, span_files, span_formats, partials, chunk_count, warnings, intro, domain, signals })
}

fn compile_inner(mapper: &dyn Mapper, sources: &[SourceInput<'_>], opts: &Options) -> Result<CompileResult, CompileError> {
    if sources.is_empty() {
        return Err(CompileError::NoSources);
    }
    let mut docs: Vec<Document> = Vec::with_capacity(sources.len());
    for s in sources {
        docs.push(source::read_source(s.name, s.bytes, &opts.read)?);
    }
    let sha256 = if sources.len() == 1 {
        docs[0].sha256.clone()
    } else {
        let mut all = Vec::new();
        for s in sources {
            all.extend_from_slice(s.bytes);
        }
        crate::hash::sha256_hex(&all)
    };
    // Package language: the evidence of every source together.
    let mut counts = LangCounts::default();
    let mut chars_total = 0u64;
    for d in &docs {
        chars_total += d.profile.source_char_count;
        counts.add(&sample(&d.text));
    }
    let language = match counts.best(3) {
        Lang::Und => docs.iter().max_by_key(|d| d.profile.source_char_count).map_or(Lang::Und, |d| d.language),
        l => l,
    };
    let Mapped { spans, span_files, span_formats, partials, chunk_count, mut warnings, intro, domain, signals } =
        map_documents(mapper, &mut docs, opts, language)?;
    // Reduce, promote, coverage, sanitize.
    let items: Vec<Item> = partials.into_iter().flatten().collect();
    let reduced = reduce::reduce(items);
    warnings.extend(reduced.warnings);
    let mut sections = reduced.sections;
    let promotion = promote::promote(&mut sections, language, PromoteOptions { enabled: opts.promotion });
    let coverage_report = coverage::coverage(&mut sections, &spans, &span_formats, opts.coverage);
    let preflight_lang = docs[0].language;
    let sanitized = sanitize::sanitize(
        &mut sections,
        language,
        preflight_lang,
        &SanitizeOptions { action: opts.sanitizer_action, check_excerpt_language: opts.check_excerpt_language },
    );
    let language = sanitized.relabelled.unwrap_or(language);
    reduce::rewrite_refs(&mut sections, &sanitized.redirect);
    derive::exception_triggers(&mut sections, language);
    verbatim_guard(&mut sections, &spans, &mut warnings);
    // Ids, numeric guard, traceability.
    let guess = domain.guess();
    derive::concept_domains(&mut sections, guess.domain);
    ids::assign(&mut sections);
    let numeric = crate::numeric::guard(&mut sections, &spans);
    ids::prune_refs(&mut sections);
    // One entry per span, on every allowed thread.
    let numbered: Vec<(usize, &Span)> = spans.iter().enumerate().collect();
    let manifest = crate::par::map(&numbered, 64, |&(i, s)| derive::manifest_entry(i as u32, s, &span_files[i]));
    let traceability = ids::traceability(&sections, &manifest);
    let total_items: usize = sections.iter().map(Vec::len).sum();
    if total_items == 0 && chars_total > 1000 {
        return Err(CompileError::EmptyPackage { chars: chars_total });
    }
    // Metadata.
    let first = &docs[0];
    let stem = file_stem(&first.file);
    let title = opts
        .title
        .clone()
        .or_else(|| first.title.clone())
        .map(|t| normalize(&t))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| if stem.is_empty() { derive::title_from_text(&first.text) } else { stem.clone() });
    let version = opts.version.clone().or_else(|| derive::source_version(&first.front, &first.text));
    let format = if docs.iter().all(|d| d.format == first.format) { first.format } else { Format::PlainText };
    let core_intent = derive::core_intent(&intro, &title, language);
    let domain_map = derive::domain_map(&guess, &sections);
    let flags = derive::statement_flags(&sections);
    let agent_instructions = derive::agent_instructions(&sections, &flags, language);
    let knowledge_limits = derive::knowledge_limits(&sections, &flags, &spans, guess.domain, language);
    // core_intent, domain_map, agent_instructions, knowledge_limits: populated when non-empty.
    let object_populated = usize::from(core_intent != Default::default())
        + usize::from(!domain_map.main_domain.is_empty())
        + usize::from(agent_instructions != Default::default())
        + usize::from(knowledge_limits != Default::default());
    let q = quality::quality(&sections, &core_intent, chunk_count, &signals, &promotion, &sanitized.audit, object_populated);
    let metadata = Metadata {
        package_id: derive::package_id(&title, &stem, version.as_deref()),
        protocol_version: PROTOCOL_VERSION.to_string(),
        source_type: derive::source_type(format, &sections).to_string(),
        source_title: if title.is_empty() { "unknown".into() } else { title.clone() },
        source_author: first
            .front
            .author
            .clone()
            .map(|a| normalize(&a))
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| "unknown".into()),
        domain: guess.domain.to_string(),
        subdomains: guess.subdomains.iter().map(|(n, _)| (*n).to_string()).collect(),
        language: language.tag().to_string(),
        created_at: opts.created_at.clone().unwrap_or_else(|| UNSET_CREATED_AT.to_string()),
        compression_level: opts.compression_level.as_str().to_string(),
        human_readability: q.human_readability,
        ai_utility_score: q.ai_utility_score,
        source_manifest: manifest,
        source_sha256: sha256,
        compiler_profile: format!("{} (mapper: {})", compiler_version(), mapper.name()),
        source_subtitle: first.front.subtitle.clone().map(|s| normalize(&s)),
        source_authors: first.front.authors.iter().map(|a| normalize(a)).collect(),
        source_edition: first.front.edition.clone().map(|s| normalize(&s)),
        source_publisher: first.front.publisher.clone().map(|s| normalize(&s)),
        source_year: first.front.year.clone().map(|s| normalize(&s)),
        source_isbn: first.front.isbn.clone().map(|s| normalize(&s)),
    };
    let package = Package {
        metadata,
        core_intent,
        domain_map,
        sections,
        agent_instructions,
        knowledge_limits,
        source_traceability: traceability,
        promotion_audit: Some(promotion.clone()),
        sanitizer_audit: Some(sanitized.audit.clone()),
        coverage_report: Some(coverage_report.clone()),
        numeric_integrity: Some(numeric.clone()),
    };
    Ok(CompileResult {
        package,
        quality: q,
        promotion: PromotionCounts { promoted: promotion.promoted_count, rejected: promotion.rejected_count },
        sanitizer: sanitized.audit,
        coverage: coverage_report,
        numeric_integrity: numeric,
        warnings,
        compiler_version: compiler_version(),
        profiles: docs.into_iter().map(|d| d.profile).collect(),
    })
}

fn sample(text: &str) -> String {
    if text.len() <= 64 * 1024 {
        return text.to_string();
    }
    let mut end = 64 * 1024;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

fn file_stem(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = base.split('.').next().unwrap_or(base);
    if stem.starts_with('<') { String::new() } else { stem.to_string() }
}

/// Drops any item whose excerpt is not the normalised text of its range (a safety net: the
/// mapper builds excerpts that way, but a range that splits a combining sequence would not
/// survive normalisation of the whole span).
fn verbatim_guard(sections: &mut [Vec<Item>], spans: &[Span], warnings: &mut Vec<String>) {
    let mut dropped = 0;
    for items in sections.iter_mut() {
        let verbatim = crate::par::map(items, 128, |it| {
            it.trace.evidence.iter().all(|e| {
                let Some(span) = spans.get(e.span as usize) else { return false };
                let (a, b) = (e.start as usize, e.end as usize);
                let (Some(slice), Some(after)) = (span.text.get(a..b), span.text.get(b..)) else { return false };
                let glued = after.chars().next().is_some_and(warrant_text::normalize::is_combining_mark);
                !glued && normalize(slice) == e.excerpt && e.excerpt.chars().count() <= crate::map::evidence::MAX_EXCERPT
            })
        });
        dropped += verbatim.iter().filter(|ok| !**ok).count();
        let mut ok = verbatim.into_iter();
        items.retain(|_| ok.next().unwrap_or(true));
    }
    if dropped > 0 {
        warnings.push(format!("{dropped} items dropped: an excerpt was not verbatim"));
    }
}
