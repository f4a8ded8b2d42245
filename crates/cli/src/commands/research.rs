//! `warrant research`: the research chain over the knowledge store (classify → route →
//! execute ⇄ assess → synthesize), and `--show RUN_ID` to inspect a recorded run.

use std::collections::BTreeMap;
use std::process::ExitCode;

use clap::Args;
use warrant_research::model::ModelStages;
use warrant_research::stages::{RuleAssessor, RuleRouter};
use warrant_research::{Chain, FixedClock, Intent, RunLog, RunRecord, SqliteRunLog, StoreGraph, Timestamp};

use crate::cli::{Format, StoreArg};
use crate::commands::llm::LlmArgs;
use crate::commands::{open_store, store_dir};
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

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

/// Runs `warrant research`.
pub fn run(args: ResearchArgs) -> CliResult<ExitCode> {
    let store = open_store(&args.store)?;
    let log = SqliteRunLog::open(store_dir(&args.store)).map_err(|e| CliError::input(e.to_string()))?;
    if let Some(id) = &args.show {
        let record = log.load(id.trim()).map_err(|e| CliError::input(e.to_string()))?.ok_or_else(|| {
            CliError::input(format!("no research run {id:?} in {} (runs are kept 24 h)", store_dir(&args.store).display()))
        })?;
        return show(&record, args.format);
    }
    let intent = intent(&args)?;
    let llm = args.llm_opts.stage(args.llm, "--llm")?;
    let mut chain = Chain::new(StoreGraph::new(&store));
    let stages = llm.clone().map(ModelStages::new);
    if let Some(m) = &stages {
        chain = chain
            .with_router(m.router(RuleRouter::default()))
            .with_assessor(m.assessor(RuleAssessor::default()))
            .with_synthesizer(m.synthesizer());
    }
    if let Some(now) = &args.now {
        let t = Timestamp::parse(now).ok_or_else(|| {
            CliError::input(format!("--now: expected an RFC 3339 time such as 2026-06-02T18:30:45Z, got {now:?}"))
        })?;
        chain = chain.with_clock(FixedClock(t));
    }
    // research_graph's steps, with the model stages' fallbacks added to the run's warnings
    // before it is recorded.
    let err = |e: String| CliError::input(e);
    let seq = log.next_seq().map_err(|e| err(e.to_string()))?;
    let mut record = chain.run(&intent, None, seq).map_err(|e| err(e.to_string()))?;
    let degraded = stages.as_ref().map(ModelStages::degraded).unwrap_or_default();
    record.warnings.extend(degraded.iter().map(|d| format!("model degraded: {d}")));
    log.save(&record, Timestamp::parse(&record.started_at).unwrap_or_default()).map_err(|e| err(e.to_string()))?;
    args.llm_opts.write_replay_case(llm.as_ref(), warrant_evidence::Scope::default().set("run_id", record.run_id.clone()))?;
    let mut out = Out::new();
    match args.format {
        Format::Json => {
            let mut v = record.result_json();
            if let (Some(m), false) = (v.as_object_mut(), degraded.is_empty()) {
                m.insert("degraded".into(), serde_json::json!(degraded));
            }
            out.json(&v)?;
        }
        Format::Text => {
            print_text(&mut out, &record)?;
            for d in &degraded {
                outln!(out, "\nDegraded: {d}")?;
            }
        }
    }
    out.finish()?;
    Ok(if record.failure.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The intent from the flags; `--budget` and `--max-iterations` must be positive when given.
fn intent(args: &ResearchArgs) -> CliResult<Intent> {
    let topic = args.topic.join(" ");
    let mut hints = BTreeMap::new();
    for h in &args.hints {
        let Some((k, v)) = h.split_once('=') else {
            return Err(CliError::input(format!("--hint {h:?}: expected key=value")));
        };
        if hints.insert(k.trim().to_string(), v.to_string()).is_some() {
            return Err(CliError::input(format!("--hint {:?} given twice", k.trim())));
        }
    }
    for (flag, v) in [("--budget", args.budget), ("--max-iterations", args.max_iterations)] {
        if v == Some(0) {
            return Err(CliError::input(format!("{flag} must be > 0, got 0 (omit it for the default)")));
        }
    }
    Intent { topic, hints, budget_tokens: args.budget.unwrap_or(0), max_iterations: args.max_iterations.unwrap_or(0) }
        .checked()
        .map_err(CliError::input)
}

/// The synthesis with evidence refs replaced by their numbers, then the numbered evidence.
fn print_text(out: &mut Out, r: &RunRecord) -> CliResult<()> {
    let sr = &r.search_result;
    let trace = sr.decomp_trace.as_ref().map_or("", |t| t.router_action.as_str());
    outln!(
        out,
        "research {}: {}  (route {}, {} iteration(s), {} tokens)",
        r.run_id,
        r.intent.topic,
        if trace.is_empty() { "none" } else { trace },
        sr.iterations,
        sr.tokens_used
    )?;
    outln!(out)?;
    let mut text = sr.synthesis.clone();
    for (i, e) in sr.evidence.iter().enumerate() {
        text = text.replace(&format!("[{}]", e.entity_id), &format!("[{}]", i + 1));
    }
    outln!(out, "{text}")?;
    if !sr.evidence.is_empty() {
        outln!(out, "\nEvidence:")?;
    }
    for (i, e) in sr.evidence.iter().enumerate() {
        let score = if e.score == 0.0 { String::new() } else { format!(" · score {:.3}", e.score) };
        outln!(out, "  [{}] {}  (tier {} · {}{score})", i + 1, e.entity_id, e.tier, e.source)?;
        if !e.snippet_text.is_empty() {
            outln!(out, "      \"{}\"", warrant_text::normalize::collapse_whitespace(&e.snippet_text))?;
        }
        if !e.objectstore_ref.is_empty() {
            outln!(out, "      source: {}", e.objectstore_ref)?;
        }
    }
    Ok(())
}

fn show(r: &RunRecord, format: Format) -> CliResult<ExitCode> {
    let mut out = Out::new();
    match format {
        Format::Json => out.json(r)?,
        Format::Text => {
            print_text(&mut out, r)?;
            outln!(out, "\nStatus triples of {} ({}):", r.run_id, r.run_entity_id)?;
            for e in &r.events {
                match e {
                    warrant_research::chain::StatusEvent::Set { triples } => {
                        for t in triples {
                            outln!(out, "  {}  {} = {}  [{}]", t.timestamp, t.predicate, t.object, t.source)?;
                        }
                    }
                    warrant_research::chain::StatusEvent::Clear { predicates } => {
                        outln!(out, "  cleared {}", predicates.join(", "))?
                    }
                }
            }
            if let Some(f) = &r.failure {
                outln!(out, "\nFailed: {f}")?;
            }
        }
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}
