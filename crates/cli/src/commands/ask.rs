//! `warrant ask`: a question (or a QueryPlan) answered from the store with a verdict —
//! supported, conflicting or unsupported — and the chain of facts behind it.
//!
//! Exit 0 for every verdict; 2 for bad input (a missing store, a malformed plan, a plan goal
//! naming an unknown predicate, a rule or vocabulary file that does not load, cyclic rules).

use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use serde_json::Value;
use warrant_answer::contract::ChainRole;
use warrant_answer::llm_plan::{PlanSource, plan_with_model};
use warrant_answer::rules::{object_text, parse_rules};
use warrant_answer::{Answer, Answerer, AskOptions, QueryPlan, RuleLibrary};
use warrant_store::Store;

use crate::cli::StoreArg;
use crate::commands::ingest::load_vocabulary;
use crate::commands::llm::LlmArgs;
use crate::commands::open_store;
use crate::error::{CliError, CliResult};
use crate::io::{display_name, read_text};
use crate::out::Out;

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

/// Runs `warrant ask`.
pub fn run(args: AskArgs) -> CliResult<ExitCode> {
    let vocab = load_vocabulary(args.vocab.as_deref())?;
    let mut rules = RuleLibrary::builtin();
    for f in &args.rules {
        let text = read_text(f)?;
        let name = display_name(f);
        let extra = parse_rules(&text).map_err(|e| CliError::input(format!("{name}: {e}")))?;
        rules = rules.extended(extra, &vocab).map_err(|e| CliError::input(format!("{name}: {e}")))?;
    }
    let supplied = match &args.plan {
        Some(f) => {
            let text = read_text(f)?;
            let plan = QueryPlan::from_json_str(&text).map_err(|e| CliError::input(format!("{}: {e}", display_name(f))))?;
            if let Some(g) = &plan.goal {
                if !vocab.contains(&g.predicate) && !rules.concludes(&g.predicate) {
                    return Err(CliError::input(format!(
                        "{}: /goal/predicate: unknown predicate {:?} (neither in the vocabulary nor concluded by a rule)",
                        display_name(f),
                        g.predicate
                    )));
                }
            }
            Some(plan)
        }
        None => None,
    };
    let question = args.question.join(" ");
    if supplied.is_none() && question.trim().is_empty() {
        return Err(CliError::input("the question is empty"));
    }
    let llm = args.llm.stage(args.llm_plan, "--llm-plan")?;
    let store = open_store(&args.store)?;
    let opts = AskOptions {
        limit_facts: args.limit_facts as usize,
        limit_chunks: args.limit_chunks as usize,
        max_depth: args.depth as usize,
        ..AskOptions::default()
    };
    let answerer = Answerer::with(&store, vocab, rules, opts);
    // The model plans once; repeats (latency figures) reuse its plan.
    let model_plan: Option<(QueryPlan, PlanSource)> = match &llm {
        Some(l) if supplied.is_none() => Some(plan_with_model(&answerer, l, &question).map_err(CliError::store)?),
        _ => None,
    };
    let once = || -> CliResult<Answer> {
        let mut plan = match (&supplied, &model_plan) {
            (Some(p), _) => p.clone(),
            (None, Some((p, _))) => p.clone(),
            (None, None) => answerer.plan(&question).map_err(CliError::store)?,
        };
        if let Some(v) = &args.answer_version {
            plan.version = Some(v.clone());
        }
        let mut answer = answerer.answer(&plan).map_err(CliError::store)?;
        if supplied.is_none() && plan.predicates.is_none() && plan.goal.is_none() {
            answer.diagnostics.insert(0, "no question template or predicate pattern matches the question".into());
        }
        if let Some((_, source)) = &model_plan {
            answer.diagnostics.insert(0, source.diagnostic());
        }
        Ok(answer)
    };
    let mut answer = once()?;
    if args.repeat > 1 {
        let mut times = Vec::with_capacity(args.repeat as usize);
        for _ in 0..args.repeat {
            let t = Instant::now();
            answer = once()?;
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        eprintln!(
            "{} answers: p50 {:.1} µs, p90 {:.1} µs, max {:.1} µs",
            times.len(),
            pct(0.5),
            pct(0.9),
            times.last().copied().unwrap_or_default()
        );
    }
    args.llm.write_replay_case(llm.as_ref(), warrant_evidence::Scope::default().set("run_id", "ask"))?;
    let mut out = Out::new();
    match args.format {
        AskFormat::Json => out.json(&answer)?,
        AskFormat::Text => out.print(&text_report(&answer, &store))?,
    }
    out.finish()?;
    Ok(ExitCode::SUCCESS)
}

fn fact_line(f: &Value) -> String {
    let mut s =
        format!("{}({}, {})", f["predicate"].as_str().unwrap_or_default(), object_text(&f["subject"]), object_text(&f["object"]));
    if f["polarity"] == "negate" {
        s = format!("not {s}");
    }
    let q: Vec<String> = f["qualifiers"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| format!("{k} {}", object_text(v))).collect())
        .unwrap_or_default();
    if !q.is_empty() {
        s.push_str(&format!(" [{}]", q.join(", ")));
    }
    s
}

/// The quoted text under a premise's span, when the span is real.
fn quote(f: &Value, store: &dyn Store) -> Option<String> {
    let (start, end) = (f["span"]["start"].as_u64()? as usize, f["span"]["end"].as_u64()? as usize);
    if end <= start {
        return None;
    }
    let chunk = store.chunk(f["source"]["chunkId"].as_str()?).ok()??;
    Some(warrant_text::clamp_slice(&chunk.text, start, end).to_string())
}

fn text_report(a: &Answer, store: &dyn Store) -> String {
    let mut out = String::new();
    out.push_str(&format!("Answer:   {}\n", a.text.as_deref().unwrap_or("(none)")));
    out.push_str(&format!("Verdict:  {}\n", a.verdict.as_str()));
    if !a.fact_chain.is_empty() {
        out.push_str("Chain:\n");
        for e in &a.fact_chain {
            let score = a.support_scores.get(&e.fact_id).map(|v| v.to_string()).unwrap_or_default();
            match e.role {
                ChainRole::Premise => {
                    out.push_str(&format!("  premise     {}  {}  (score {score})\n", e.fact_id, fact_line(&e.fact)));
                    let src = &e.fact["source"];
                    let at =
                        format!("{} {}", src["docId"].as_str().unwrap_or_default(), src["chunkId"].as_str().unwrap_or_default());
                    match quote(&e.fact, store) {
                        Some(q) => out.push_str(&format!("              {at}: \"{q}\"\n")),
                        None => out.push_str(&format!("              {at}\n")),
                    }
                }
                ChainRole::Derived => {
                    let from: Vec<&str> =
                        e.fact["from"].as_array().map(|f| f.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                    out.push_str(&format!(
                        "  derived     {}  {}  by rule {} from {}  (score {score})\n",
                        e.fact_id,
                        fact_line(&e.fact),
                        e.fact["rule"].as_str().unwrap_or_default(),
                        from.join(", ")
                    ));
                }
                ChainRole::Conclusion => {
                    let from: Vec<&str> =
                        e.fact["from"].as_array().map(|f| f.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
                    out.push_str(&format!(
                        "  conclusion  {}  {}  from {}\n",
                        e.fact_id,
                        object_text(&e.fact["object"]),
                        from.join(", ")
                    ));
                }
            }
        }
    }
    if !a.chunks_used.is_empty() {
        out.push_str(&format!("Chunks:   {}\n", a.chunks_used.join(", ")));
    }
    for c in &a.conflicts {
        out.push_str(&format!("Conflict: {} — {} vs {}\n", c.reason, fact_line(&c.fact1), fact_line(&c.fact2)));
    }
    for d in &a.diagnostics {
        out.push_str(&format!("Note:     {d}\n"));
    }
    out
}
