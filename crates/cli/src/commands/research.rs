//! `warrant research`: the research chain over the knowledge store (classify → route →
//! execute ⇄ assess → synthesize), and `--show RUN_ID` to inspect a recorded run.

use std::collections::BTreeMap;
use std::process::ExitCode;

use warrant::Env;
use warrant::research::research_intent;
use warrant_research::{Intent, RunRecord};

use crate::cli::{Format, ResearchArgs};
use crate::error::{CliError, CliResult};
use crate::out::{Out, outln};

/// Runs `warrant research`.
pub fn run(args: ResearchArgs) -> CliResult<ExitCode> {
    let dir = args.store.path();
    let env = Env::open_existing(&dir)?;
    if let Some(id) = &args.show {
        let record = warrant::research::run(&env, id)?
            .ok_or_else(|| CliError::input(format!("no research run {id:?} in {} (runs are kept 24 h)", args.store.shown())))?;
        return show(&record, args.format);
    }
    let intent = intent(&args)?;
    let env = env.with_model(args.llm_opts.stage(args.llm, "--llm")?);
    let run = research_intent(&env, intent, args.now.as_deref().map(|n| (n, "--now")))?;
    let record = &run.record;
    args.llm_opts.write_replay_case(env.model(), warrant_evidence::Scope::default().set("run_id", record.run_id.clone()))?;
    let mut out = Out::new();
    match args.format {
        Format::Json => out.json(&run.result_json())?,
        Format::Text => {
            print_text(&mut out, record)?;
            for d in &run.degraded {
                outln!(out, "\nDegraded: {d}")?;
            }
        }
    }
    out.finish()?;
    Ok(if record.failure.is_some() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The intent the flags give (the use case checks it); `--budget` and `--max-iterations`
/// must be positive when given.
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
    Ok(Intent { topic, hints, budget_tokens: args.budget.unwrap_or(0), max_iterations: args.max_iterations.unwrap_or(0) })
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
                    warrant_research::StatusEvent::Set { triples } => {
                        for t in triples {
                            outln!(out, "  {}  {} = {}  [{}]", t.timestamp, t.predicate, t.object, t.source)?;
                        }
                    }
                    warrant_research::StatusEvent::Clear { predicates } => outln!(out, "  cleared {}", predicates.join(", "))?,
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
