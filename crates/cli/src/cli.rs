//! Command-line grammar. These names and flags are a public interface: add, never rename.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::time::Duration;

/// Warrant checks what AI models say: it turns model output into a typed graph, runs
/// deterministic policies over it, and reports a verdict with the evidence behind it.
#[derive(Debug, Parser)]
#[command(name = "warrant", version, about, long_about = None, arg_required_else_help = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Output format of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Human-readable.
    #[default]
    Text,
    /// JSON on stdout.
    Json,
}

/// Artefact kinds `validate` knows (the library's, with their command-line names).
pub use warrant_validate::Kind;

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate artefacts: PredicateGraphs, CPL policies, policy packs, verifier rubrics, CKF
    /// knowledge packages, and Agent Evidence documents.
    Validate(ValidateArgs),
    /// Evaluate and list CPL policy packs.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Turn a model output (text, chat message, completion, envelope) into a PredicateGraph.
    Extract(ExtractArgs),
    /// Compile sources (policies, runbooks, FAQs, records, transcripts) into a CKF knowledge
    /// package: typed sections, every item traceable to a verbatim excerpt.
    Compile(CompileArgs),
    /// Check an answer against its sources: every claim verified with quoted evidence, the
    /// policy verdicts, and one gate (allow, review, block).
    Check(CheckArgs),
    /// Ingest documents into the knowledge store: chunks, facts and a BM25 index.
    Ingest(IngestArgs),
    /// Print stored facts as JSON Lines.
    Facts(FactsArgs),
    /// Search stored chunks (BM25).
    Search(SearchArgs),
    /// Research a topic over the knowledge store: an extractive answer whose every line
    /// cites evidence (classify, route, execute, assess, synthesize).
    Research(ResearchArgs),
    /// Answer a question from the store: supported, conflicting or unsupported, with the
    /// chain of facts behind the verdict.
    Ask(AskArgs),
    /// The optional model stages: list their versioned prompts.
    #[command(subcommand)]
    Llm(LlmCommand),
    /// Serve every capability over HTTP (JSON in, JSON out) until SIGTERM or Ctrl-C.
    Serve(ServeArgs),
    /// Manage the knowledge store itself (its schema).
    #[command(subcommand)]
    Store(StoreCommand),
}

/// Log format of `serve`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum LogFormat {
    /// One readable line per event.
    #[default]
    Text,
    /// One JSON object per event.
    Json,
}

/// `warrant serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free port, printed on stdout).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub addr: std::net::SocketAddr,
    #[command(flatten)]
    pub store: StoreArg,
    /// Bearer token required on every route but /healthz and /readyz.
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// Read the bearer token from FILE (surrounding whitespace is ignored).
    #[arg(long = "token-file", value_name = "FILE")]
    pub token_file: Option<String>,
    /// Largest request body, in bytes (larger: 413).
    #[arg(long = "max-body", value_name = "BYTES", default_value_t = warrant_server::DEFAULT_MAX_BODY)]
    pub max_body: usize,
    /// Longest a request may take, in seconds (longer: 503 timeout).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = parse_secs)]
    pub timeout: Duration,
    /// Requests handled at once (more: 429).
    #[arg(long = "max-concurrency", value_name = "N", default_value_t = warrant_server::DEFAULT_MAX_CONCURRENCY)]
    pub max_concurrency: usize,
    /// Longest a request's head may take to arrive, from its first byte, in seconds (longer:
    /// the connection is closed).
    #[arg(long = "header-timeout", value_name = "SECS", default_value = "10", value_parser = parse_secs)]
    pub header_timeout: Duration,
    /// Longest a request's body may take to arrive, in seconds (longer: 408). A body whose
    /// declared length is over --max-body is refused at once (413).
    #[arg(long = "body-timeout", value_name = "SECS", default_value = "30", value_parser = parse_secs)]
    pub body_timeout: Duration,
    /// Longest a kept-alive connection may wait for its next request, in seconds (longer: it is
    /// closed).
    #[arg(long = "idle-timeout", value_name = "SECS", default_value = "60", value_parser = parse_secs)]
    pub idle_timeout: Duration,
    /// On SIGTERM or Ctrl-C, longest to wait for open connections to finish, in seconds; then
    /// the ones still open (half-sent requests included) are dropped.
    #[arg(long = "shutdown-timeout", value_name = "SECS", default_value = "30", value_parser = parse_secs)]
    pub shutdown_timeout: Duration,
    /// Request log format (on stderr; filter with $WARRANT_LOG, e.g. `warn`).
    #[arg(long = "log-format", value_enum, default_value_t)]
    pub log_format: LogFormat,
}

/// Encoding of a compiled package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PackageFormat {
    /// `.ckf.json` (canonical).
    #[default]
    Json,
    /// `.ckf.yaml` (block style).
    Yaml,
    /// `.ckf.md` (readable; YAML blocks per section).
    Md,
}

/// Coverage mode of `compile` (§7.7 of the spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CoverageArg {
    /// Report coverage only.
    Summary,
    /// Insert items for large uncovered spans.
    Balanced,
    /// Insert items for every uncovered span.
    Complete,
}

/// `compression_level` written in the package metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CompressionArg {
    /// `light`.
    Light,
    /// `standard`.
    #[default]
    Standard,
    /// `dense`.
    Dense,
    /// `agentic`.
    Agentic,
}

/// `warrant compile`.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// Package encoding.
    #[arg(long, value_enum, default_value_t)]
    pub format: PackageFormat,
    /// The source's version or edition (the package id ends in `-v<V>`; default: front matter
    /// or a `Version N` line, else `v1`).
    #[arg(long = "version", value_name = "V")]
    pub version: Option<String>,
    /// The package title (default: front matter, `<title>`, first `#` heading, file name).
    #[arg(long, value_name = "T")]
    pub title: Option<String>,
    /// Write the package to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// `metadata.created_at` (ISO-8601), or `now`. Default: $SOURCE_DATE_EPOCH when set, else
    /// 1970-01-01T00:00:00Z, so the same sources always give the same bytes.
    #[arg(long = "created-at", value_name = "ISO-8601")]
    pub created_at: Option<String>,
    /// Coverage mode (default: `complete` for records, FAQs and normative texts, else `balanced`).
    #[arg(long, value_enum)]
    pub coverage: Option<CoverageArg>,
    /// `metadata.compression_level`.
    #[arg(long = "compression-level", value_enum, default_value_t)]
    pub compression_level: CompressionArg,
    /// Turn promotion into if-then rules, playbooks and anti-patterns off.
    #[arg(long = "no-promotion")]
    pub no_promotion: bool,
    /// Also write the compile result (quality, promotion, sanitizer, coverage, numeric integrity,
    /// warnings) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Largest source accepted, in bytes.
    #[arg(long = "max-bytes", value_name = "BYTES", default_value_t = warrant_ckf::DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
    /// Map each chunk with a model (items validated against the item schema, one repair, else
    /// the rule mapper; the report lists the chunks that fell back under `degraded`).
    #[arg(long)]
    pub llm: bool,
    #[command(flatten)]
    pub llm_opts: LlmArgs,
    /// Sources: .txt, .md, .html, .jsonl, .json (an array of records), .vtt, .srt; `-` reads stdin.
    #[arg(value_name = "SOURCE", required = true)]
    pub sources: Vec<String>,
}

/// Report format of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum CheckFormat {
    /// The answer with each claim marked and its evidence, the policies, the gate.
    #[default]
    Text,
    /// The JSON report.
    Json,
    /// One self-contained HTML page.
    Html,
}

/// The gate at which `warrant check` exits 1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// `review` or `block`.
    Review,
    /// `block` only.
    #[default]
    Block,
}

/// A number in [0, 1].
fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a number from 0 to 1, got {s:?}")),
    }
}

/// `warrant check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A store to check against (made by `warrant ingest`): each claim is held against the
    /// chunks BM25 retrieves for it, and its facts against the store's facts. A folder, or
    /// a PostgreSQL URL.
    #[arg(long, value_name = "DIR|URL", conflicts_with = "sources")]
    pub store: Option<String>,
    /// Source files or folders, read into an in-memory store for this check. Takes several
    /// paths; when ANSWER is not given separately, the last path is the answer
    /// (`--sources docs/ answer.md`).
    #[arg(long = "sources", value_name = "PATH", num_args = 1..)]
    pub sources: Vec<String>,
    /// Policy packs (files or built-in ids); default: warrant.grounding.v1,
    /// warrant.arithmetic.v1, and core.tool-use.v1 with warrant.tool-schema.v1 when the answer
    /// calls tools. Repeatable.
    #[arg(long = "pack", value_name = "PACK")]
    pub packs: Vec<String>,
    /// Tool definitions (OpenAI-style or bare `{name, parameters}` array).
    #[arg(long, value_name = "FILE")]
    pub tools: Option<String>,
    /// The question the answer responds to (default: the answer's user_query, if any).
    #[arg(long, value_name = "TEXT")]
    pub question: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: CheckFormat,
    /// Also write an Agent Evidence pack to FILE (atomically).
    #[arg(long = "evidence-pack", value_name = "FILE", conflicts_with = "batch")]
    pub evidence_pack: Option<String>,
    /// The evidence pack's `created_at`: an ISO-8601 date-time, or `now`. Default:
    /// $SOURCE_DATE_EPOCH when set, else now (pass a time for byte-identical packs).
    #[arg(long = "created-at", value_name = "TIME", requires = "evidence_pack")]
    pub created_at: Option<String>,
    /// A predicate vocabulary (TOML or JSON) for reading the claims' facts, matching the one
    /// the store was ingested with (default: the built-in vocabulary).
    #[arg(long, value_name = "FILE")]
    pub vocab: Option<String>,
    /// A JSONL file of `{"id", "answer", "question"?, "sources"?, "tools"?}` lines (or `-`);
    /// writes one JSON report per line, in input order. Read line by line; a line may hold at
    /// most --max-bytes plus --max-source-bytes.
    #[arg(long, value_name = "FILE", conflicts_with = "answer")]
    pub batch: Option<String>,
    /// Warnings fail policies too.
    #[arg(long)]
    pub strict: bool,
    /// Largest total size of `--sources`, in bytes.
    #[arg(long = "max-source-bytes", value_name = "BYTES", default_value_t = warrant_check::DEFAULT_MAX_SOURCE_BYTES)]
    pub max_source_bytes: u64,
    /// Ask the configured model for a second opinion on claims the rules leave unsupported or
    /// partially supported (never on contradicted ones); its verdicts are marked as such.
    #[arg(long = "llm-verify")]
    pub llm_verify: bool,
    /// Exit 1 when the gate is this or worse: `block` (default) or `review` (so CI fails on
    /// unsupported claims too).
    #[arg(long = "fail-on", value_enum, default_value_t)]
    pub fail_on: FailOn,
    /// Review an answer whose support score (supported ÷ checked claims) is below this, in
    /// [0, 1].
    #[arg(long = "min-support", value_name = "X", value_parser = parse_fraction)]
    pub min_support: Option<f64>,
    /// Add each claim's verifier signals (coverage, missing names and numbers, window size, …)
    /// to the JSON report as `features`: why a claim got its status.
    #[arg(long)]
    pub explain: bool,
    /// Model options.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Answer options.
    #[command(flatten)]
    pub input: AnswerArgs,
    /// The answer (text, Markdown, chat message, completion), or `-` for stdin.
    #[arg(value_name = "ANSWER")]
    pub answer: Option<String>,
}

/// How `extract` (and `policy eval` on an answer) reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum InputFormat {
    /// A known JSON shape when the input parses as one, plain text otherwise.
    #[default]
    Auto,
    /// Plain text or Markdown, even if it looks like JSON.
    Text,
    /// JSON only (an error if it does not parse).
    Json,
}

impl From<InputFormat> for warrant::inputs::InputFormat {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Self::Auto,
            InputFormat::Text => Self::Text,
            InputFormat::Json => Self::Json,
        }
    }
}

/// Options shared by everything that extracts a graph from an answer.
#[derive(Debug, Args, Clone)]
pub struct AnswerArgs {
    /// A JSON object merged into the answer's context (user_query, system_prompt,
    /// tools_available, tool_schemas, tool_results, …).
    #[arg(long, value_name = "FILE")]
    pub context: Option<String>,
    /// How to read the input.
    #[arg(long = "input-format", value_enum, default_value_t)]
    pub input_format: InputFormat,
    /// Largest input accepted, in bytes, enforced while reading (a --batch line: see --batch).
    #[arg(long = "max-bytes", value_name = "BYTES", default_value_t = warrant_extract::DEFAULT_MAX_BYTES)]
    pub max_bytes: usize,
}

/// `warrant extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// Tool definitions: fill `tool_schemas` and `tools_available`.
    #[arg(long, value_name = "FILE")]
    pub tools: Option<String>,
    /// The graph's `output_id` (default: the input's id, else a hash of the text).
    #[arg(long = "output-id", value_name = "ID", conflicts_with = "batch")]
    pub output_id: Option<String>,
    /// A JSONL file of `{"id", "answer", "context"?}` lines (or `-`); writes one graph per line.
    /// Each line may hold at most --max-bytes.
    #[arg(long, value_name = "FILE", conflicts_with = "input")]
    pub batch: Option<String>,
    /// Take the claims from the configured model (quoted exactly from the answer); falls back
    /// to the deterministic claims, with `context.extraction_degraded`, when the model fails.
    #[arg(long = "llm")]
    pub llm: bool,
    /// Model options.
    #[command(flatten)]
    pub llm_opts: LlmArgs,
    /// Answer options.
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// The model output, or `-` for stdin.
    #[arg(value_name = "INPUT", required_unless_present = "batch")]
    pub input: Option<String>,
}

/// Where the knowledge store lives: `--store`, else `$WARRANT_STORE`, else `./.warrant`.
#[derive(Debug, Args)]
pub struct StoreArg {
    /// Store directory, or a PostgreSQL URL (postgres://user@host/db; the password from the
    /// URL, PGPASSWORD or ~/.pgpass) [default: $WARRANT_STORE, else ./.warrant].
    #[arg(long = "store", value_name = "DIR|URL")]
    pub dir: Option<PathBuf>,
}

/// `warrant ingest`.
#[derive(Debug, Args)]
pub struct IngestArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Version of documents that do not carry one (records' own `version` wins).
    #[arg(long = "version", value_name = "V")]
    pub doc_version: Option<String>,
    /// Vocabulary file (TOML or JSON) adding predicates and patterns to the default nine.
    #[arg(long, value_name = "FILE")]
    pub vocab: Option<String>,
    /// Manual (gold) facts to load as given, without span validation (JSON array or JSONL).
    /// Repeatable.
    #[arg(long = "facts", value_name = "FILE")]
    pub facts: Vec<String>,
    /// Store chunks only; do not extract facts.
    #[arg(long)]
    pub no_extract: bool,
    /// Extract facts with the configured model (vocabulary in the prompt, every fact validated;
    /// a chunk the model fails on falls back to the patterns and is reported as degraded).
    #[arg(long = "llm", conflicts_with = "no_extract")]
    pub llm: bool,
    /// Extract the first document R times more and report the mean Jaccard of normalised
    /// facts (below 0.8: unreliable).
    #[arg(long, value_name = "R", value_parser = clap::value_parser!(u32).range(2..=100), conflicts_with = "no_extract")]
    pub consistency: Option<u32>,
    /// Model options.
    #[command(flatten)]
    pub llm_opts: LlmArgs,
    /// Longest chunk, in characters.
    #[arg(long, value_name = "N", default_value_t = 1200, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_chunk_chars: u32,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Files and folders: .txt, .md, .html, .jsonl and .json (arrays of records).
    #[arg(value_name = "PATH", required_unless_present = "facts")]
    pub paths: Vec<PathBuf>,
}

/// `warrant facts`.
#[derive(Debug, Args)]
pub struct FactsArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Only facts of this subject (as stored, else its canonical form: "Session tokens" → session_token).
    #[arg(long, value_name = "S")]
    pub subject: Option<String>,
    /// Only facts of this predicate.
    #[arg(long, value_name = "P")]
    pub predicate: Option<String>,
    /// Only facts of this version (`v2.0` and `2.0` are equal).
    #[arg(long = "version", value_name = "V")]
    pub fact_version: Option<String>,
}

/// `warrant search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// How many chunks to show.
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub limit: usize,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// The query (several words are joined).
    #[arg(value_name = "QUERY", required = true)]
    pub query: Vec<String>,
}

/// `warrant validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Artefact kind; detected from the content when omitted.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Treat warnings as failures.
    #[arg(long)]
    pub strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Validate a CAPE-layout data root given as the one FILE argument (default `.`):
    /// examples/*/*.json as graphs, packs/*.json as packs, rubrics/*.json as rubrics.
    #[arg(long)]
    pub all: bool,
    /// The previous version of the one evidence pack (or verification document) being
    /// validated: a review it holds that is missing or changed now is an error
    /// (AEV-REVIEW-OVERWRITE; reviews are append-only).
    #[arg(long, value_name = "FILE", conflicts_with = "all")]
    pub previous: Option<String>,
    /// Accepted and ignored, as upstream's validator does.
    #[arg(long = "version", value_name = "X", hide = true)]
    pub schema_version: Option<String>,
    /// Files to validate (`-` reads stdin).
    #[arg(value_name = "FILE", required_unless_present = "all")]
    pub files: Vec<String>,
}

/// `warrant policy …`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Evaluate packs over a PredicateGraph.
    Eval(EvalArgs),
    /// List the built-in packs.
    Packs(PacksArgs),
}

/// `warrant policy eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A pack file (or standalone policy file) or a built-in pack id. Repeatable. Default,
    /// when INPUT calls tools: core.tool-use.v1 and warrant.tool-schema.v1.
    #[arg(long = "pack", value_name = "PACK")]
    pub packs: Vec<String>,
    /// Tool definitions (OpenAI-style or bare `{name, parameters}` array).
    #[arg(long, value_name = "FILE")]
    pub tools: Option<String>,
    /// Verifier rubric files to register (their rules are skipped until a judge is configured).
    #[arg(long = "rubric", value_name = "FILE")]
    pub rubrics: Vec<String>,
    /// Model options: a configured model is the rubrics' judge.
    #[command(flatten)]
    pub llm: Box<LlmArgs>,
    /// Warnings fail policies too.
    #[arg(long)]
    pub strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Answer options (used when INPUT is a model output rather than a graph).
    #[command(flatten)]
    pub answer: AnswerArgs,
    /// A PredicateGraph, or a model output to extract one from (`-` reads stdin).
    #[arg(value_name = "INPUT")]
    pub input: String,
}

/// `warrant policy packs`.
#[derive(Debug, Args)]
pub struct PacksArgs {
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Model options (shared by `ingest`, `extract`, `check`, `policy eval`, `ask`, `research` and `compile`).
#[derive(Debug, Args, Clone, Default)]
pub struct LlmArgs {
    /// OpenAI-compatible endpoint (`http://localhost:11434/v1`); overrides [llm] endpoint.
    #[arg(long = "llm-endpoint", value_name = "URL")]
    pub endpoint: Option<String>,
    /// Model name; overrides [llm] model.
    #[arg(long = "llm-model", value_name = "NAME")]
    pub model: Option<String>,
    /// Record/replay folder: requests are keyed by a hash; without an endpoint, replay only.
    #[arg(long = "llm-cache", value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Configuration file with an [llm] section [default: ./warrant.toml when present].
    #[arg(long = "llm-config", value_name = "FILE")]
    pub config: Option<String>,
    /// Write the run's replay case (which outputs came from a model, which were replayed).
    #[arg(long = "llm-replay-case", value_name = "FILE")]
    pub replay_case: Option<PathBuf>,
}

/// `warrant store …`.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Bring the store's schema up to date: a PostgreSQL database (which every other command
    /// requires to be migrated) or an SQLite store folder (created if missing).
    Migrate(StoreMigrateArgs),
}

/// `warrant store migrate`.
#[derive(Debug, Args)]
pub struct StoreMigrateArgs {
    #[command(flatten)]
    pub store: StoreArg,
}

/// `warrant llm …`.
#[derive(Debug, Subcommand)]
pub enum LlmCommand {
    /// List the versioned prompts the model stages send.
    Prompts(PromptsArgs),
}

/// `warrant llm prompts`.
#[derive(Debug, Args)]
pub struct PromptsArgs {
    /// Print this prompt's template instead of the list.
    #[arg(long, value_name = "ID")]
    pub show: Option<String>,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

/// Output format of `ask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum AskFormat {
    /// The answer contract as JSON.
    #[default]
    Json,
    /// The answer, the verdict and the chain, readably.
    Text,
}

/// `warrant ask`.
#[derive(Debug, Args)]
pub struct AskArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Rule library (JSON) adding to the default rules; a rule with an existing id replaces
    /// it. Repeatable.
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<String>,
    /// Vocabulary file (TOML or JSON) adding predicates and question patterns to the default nine.
    #[arg(long, value_name = "FILE")]
    pub vocab: Option<String>,
    /// Answer from this version only (`v2.0` and `2.0` are equal); overrides the question's
    /// or plan's version.
    #[arg(long = "version", value_name = "V")]
    pub answer_version: Option<String>,
    /// A QueryPlan (JSON file, `-` for stdin) instead of a question.
    #[arg(long, value_name = "FILE", conflicts_with = "question")]
    pub plan: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: AskFormat,
    /// Evidence facts used in an answer (limitFacts).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit_facts: u32,
    /// Chunks listed in chunksUsed (limitChunks).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit_chunks: u32,
    /// Derivation depth bound.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Answer N times and print latency figures (p50, p90, max) to stderr; the store is
    /// opened once, so process start is excluded.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub repeat: u32,
    /// Plan the question with a model (a QueryPlan validated against the vocabulary and the
    /// rules; one repair, then the rule planner with a `plan: degraded: …` diagnostic).
    #[arg(long = "llm-plan", conflicts_with = "plan")]
    pub llm_plan: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    /// The question (several words are joined).
    #[arg(value_name = "QUESTION", required_unless_present = "plan")]
    pub question: Vec<String>,
}

/// `warrant research`.
#[derive(Debug, Args)]
pub struct ResearchArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Evidence token budget (default 4000).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub budget: Option<i64>,
    /// Most refine rounds (default 5; at most 5 are run).
    #[arg(long = "max-iterations", value_name = "N", allow_negative_numbers = true)]
    pub max_iterations: Option<i64>,
    /// A hint `key=value` (time_range, path_predicates, path_intent, path_start_node, limit, …).
    /// Repeatable.
    #[arg(long = "hint", value_name = "K=V")]
    pub hints: Vec<String>,
    /// Report format: the SearchResult as JSON (plus `run_id` and `sufficient`), or the
    /// synthesis with numbered evidence.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// Show a recorded run (its intent, status triples, payloads and result) instead of running.
    #[arg(long, value_name = "RUN_ID", conflicts_with = "topic")]
    pub show: Option<String>,
    /// The run clock, RFC 3339 (default: the system clock). Fixes triple timestamps and the
    /// time axis, for reproducible runs.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// Route, assess and synthesize with a model (each reply validated, repaired once, else
    /// the rule stage runs and the run reports the reason under `degraded`).
    #[arg(long)]
    pub llm: bool,
    #[command(flatten)]
    pub llm_opts: LlmArgs,
    /// The topic (several words are joined).
    #[arg(value_name = "TOPIC", required_unless_present = "show")]
    pub topic: Vec<String>,
}

/// Parses `--timeout`: seconds, whole or decimal, greater than 0.
pub fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.trim().parse().map_err(|_| format!("expected a number of seconds, got '{s}'"))?;
    if !secs.is_finite() || secs <= 0.0 || secs > 1e9 {
        return Err(format!("expected a number of seconds greater than 0, got '{s}'"));
    }
    Ok(Duration::from_secs_f64(secs))
}
