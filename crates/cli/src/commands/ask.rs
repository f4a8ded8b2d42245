//! `warrant ask`: a question (or a QueryPlan) answered from the store with a verdict —
//! supported, conflicting or unsupported — and the chain of facts behind it.
//!
//! Exit 0 for every verdict; 2 for bad input (a missing store, a malformed plan, a plan goal
//! naming an unknown predicate, a rule or vocabulary file that does not load, cyclic rules).

use std::process::ExitCode;

use serde_json::Value;
use warrant::Env;
use warrant::ask::{AskFiles, AskRequest, Question};
use warrant_answer::Answer;
use warrant_answer::ChainRole;
use warrant_answer::object_text;
use warrant_store::Store;

use crate::cli::{AskArgs, AskFormat};
use crate::error::CliResult;
use crate::out::Out;

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
    let store = args.store.open()?;
    let asker = question.over(&env, store.as_ref())?;
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
        AskFormat::Text => out.print(&text_report(&answer, store.as_ref()))?,
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
