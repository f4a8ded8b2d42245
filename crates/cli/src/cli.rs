//! Command-line grammar. These names and flags are a public interface: add, never rename.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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

/// Artefact kinds `validate` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Kind {
    /// A PredicateGraph 1.x document.
    Predicategraph,
    /// A standalone CPL policy.
    CplPolicy,
    /// A policy pack.
    PolicyPack,
    /// A verifier rubric.
    VerifierRubric,
}

impl Kind {
    /// The kind's name as written on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Predicategraph => "predicategraph",
            Self::CplPolicy => "cpl_policy",
            Self::PolicyPack => "policy_pack",
            Self::VerifierRubric => "verifier_rubric",
        }
    }
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate artefacts: PredicateGraphs, CPL policies, policy packs, verifier rubrics.
    Validate(ValidateArgs),
    /// Evaluate and list CPL policy packs.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Ingest documents into the knowledge store: chunks, facts and a BM25 index.
    Ingest(IngestArgs),
    /// Print stored facts as JSON Lines.
    Facts(FactsArgs),
    /// Search stored chunks (BM25).
    Search(SearchArgs),
}

/// Where the knowledge store lives: `--store`, else `$WARRANT_STORE`, else `./.warrant`.
#[derive(Debug, Args)]
pub struct StoreArg {
    /// Store directory [default: $WARRANT_STORE, else ./.warrant].
    #[arg(long = "store", value_name = "DIR")]
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
    /// A pack file (or standalone policy file) or a built-in pack id. Repeatable.
    #[arg(long = "pack", value_name = "PACK", required = true)]
    pub packs: Vec<String>,
    /// Tool definitions (OpenAI-style or bare `{name, parameters}` array).
    #[arg(long, value_name = "FILE")]
    pub tools: Option<String>,
    /// Verifier rubric files to register (their rules are skipped until a judge is configured).
    #[arg(long = "rubric", value_name = "FILE")]
    pub rubrics: Vec<String>,
    /// Warnings fail policies too.
    #[arg(long)]
    pub strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// A PredicateGraph file, or `-` for stdin.
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
