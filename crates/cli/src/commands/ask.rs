//! `warrant ask`: a question (or a QueryPlan) answered from the store with a verdict —
//! supported, conflicting or unsupported — and the chain of facts behind it.
//!
//! Exit 0 for every verdict; 2 for bad input (a missing store, a malformed plan, a plan goal
//! naming an unknown predicate, a rule or vocabulary file that does not load, cyclic rules).

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::Value;
use warrant::Env;
use warrant::ask::{AskFiles, AskRequest, Question};
use warrant_answer::Answer;
use warrant_answer::ChainRole;
use warrant_answer::object_text;
use warrant_store::Store;

use crate::cli::StoreArg;
use crate::commands::llm::LlmArgs;
use crate::commands::open_store;
use crate::error::CliResult;
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
    let vocab = warrant::inputs::vocabulary(args.vocab.as_deref())?;
    let question = args.question.join(" ");
    let req = AskRequest {
        question: (args.plan.is_none() || !question.trim().is_empty()).then_some(question),
        version: args.answer_version.clone(),
        limit_facts: Some(args.limit_facts),
        limit_chunks: Some(args.limit_chunks),
        depth: Some(args.depth),
        ..AskRequest::default()
    };
    let files = AskFiles { rules: args.rules.clone(), plan: args.plan.clone(), model_plan: args.llm_plan };
    let env = Env::new().with_vocabulary(std::sync::Arc::new(vocab));
    // Every input is checked before the model is set up or the store opened.
    let question = Question::new(&env, &req, &files)?;
    let env = env.with_model(args.llm.stage(args.llm_plan, "--llm-plan")?);
    let store = open_store(&args.store)?;
    let asker = question.over(&env, &store)?;
    let (answer, latency) = asker.timed(args.repeat as usize)?;
    if args.repeat > 1 {
        eprintln!(
            "{} answers: p50 {:.1} µs, p90 {:.1} µs, max {:.1} µs",
            latency.runs, latency.p50_us, latency.p90_us, latency.max_us
        );
    }
    args.llm.write_replay_case(env.model(), warrant_evidence::Scope::default().set("run_id", "ask"))?;
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
