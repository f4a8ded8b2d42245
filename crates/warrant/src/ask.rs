//! Asking the store: a question (or a QueryPlan) answered with a verdict — supported,
//! conflicting or unsupported — and the chain of facts behind it.
//!
//! [`ask`] serves an [`AskRequest`] (the body of `POST /v1/ask`). Callers that bring rule
//! files or a model (`--rules`, `--llm-plan`), or answer more than once (`--repeat`), check a
//! [`Question`] before the store is opened, then answer with an [`Asker`] over the store.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use warrant_answer::Answer;
use warrant_answer::parse_rules;
use warrant_answer::{Answerer, AskOptions, QueryPlan, RuleLibrary};
use warrant_answer::{PlanSource, plan_with_model};
use warrant_store::Store;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::io::{display_name, read_text};

/// A question for the store. The body of `POST /v1/ask`; `warrant ask`'s flags map onto it.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The question (exclusive with `plan`).
    #[serde(default)]
    pub question: Option<String>,
    /// A QueryPlan instead of a question (as `--plan`).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub plan: Option<Value>,
    /// Answer from this version only (`v2.0` and `2.0` are equal).
    #[serde(default)]
    pub version: Option<String>,
    /// Evidence facts used in an answer (limitFacts, default 20).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub limit_facts: Option<u32>,
    /// Chunks listed in chunksUsed (limitChunks, default 5).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub limit_chunks: Option<u32>,
    /// Derivation depth bound (default 5, at most 64).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 64))]
    pub depth: Option<u32>,
}

/// What a request does not carry over HTTP: files read from disk and a model.
#[derive(Debug, Clone, Default)]
pub struct AskFiles {
    /// Rule libraries (JSON) adding to the built-in rules; a rule with an existing id replaces
    /// it (`--rules`).
    pub rules: Vec<String>,
    /// A QueryPlan file (`--plan`, `-` for stdin) instead of the request's `plan`.
    pub plan: Option<String>,
    /// Plan the question with the environment's model (`--llm-plan`).
    pub model_plan: bool,
}

/// Latency of repeated answers, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Latency {
    /// Answers timed.
    pub runs: usize,
    /// Median.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// Slowest.
    pub max_us: f64,
}

/// A question ready to answer: the planner and the rules over the store, and the plan when
/// one was supplied or made by a model.
pub struct Asker<'s> {
    answerer: Answerer<'s>,
    supplied: Option<QueryPlan>,
    model_plan: Option<(QueryPlan, PlanSource)>,
    question: String,
    version: Option<String>,
}

/// A limit from a request: `default` when absent, else within 1..=`max`.
fn limit(v: Option<u32>, default: u32, max: u32, at: &str) -> Result<usize> {
    match v {
        None => Ok(default as usize),
        Some(n) if (1..=max).contains(&n) => Ok(n as usize),
        Some(_) => Err(Error::input_at(at, format!("{at}: expected a number from 1 to {max}"))),
    }
}

/// The rule library: the built-in rules extended by `files`.
fn rule_library(files: &[String], vocab: &warrant_facts::Vocabulary) -> Result<RuleLibrary> {
    let mut rules = RuleLibrary::builtin();
    for f in files {
        let text = read_text(f)?;
        let name = display_name(f);
        let extra = parse_rules(&text).map_err(|e| Error::in_file(name, format!("{name}: {e}")))?;
        rules = rules.extended(extra, vocab).map_err(|e| Error::in_file(name, format!("{name}: {e}")))?;
    }
    Ok(rules)
}

/// Where a supplied plan came from, for its errors.
#[derive(Clone, Copy)]
enum PlanAt<'a> {
    File(&'a str),
    Request,
}

/// The supplied plan, refused when malformed or when its goal names a predicate nothing
/// knows.
fn supplied_plan(text: &str, at: PlanAt<'_>, vocab: &warrant_facts::Vocabulary, rules: &RuleLibrary) -> Result<QueryPlan> {
    let plan = QueryPlan::from_json_str(text).map_err(|e| match at {
        PlanAt::File(f) => Error::in_file(f, format!("{f}: {e}")),
        PlanAt::Request => Error::input_at("/plan", format!("/plan: {e}")),
    })?;
    if let Some(g) = &plan.goal
        && !vocab.contains(&g.predicate)
        && !rules.concludes(&g.predicate)
    {
        let why = format!("unknown predicate {:?} (neither in the vocabulary nor concluded by a rule)", g.predicate);
        return Err(match at {
            PlanAt::File(f) => Error::in_file(f, format!("{f}: /goal/predicate: {why}")).at_pointer("/goal/predicate"),
            PlanAt::Request => Error::input_at("/plan/goal/predicate", format!("/plan/goal/predicate: {why}")),
        });
    }
    Ok(plan)
}

/// A checked question, before it meets a store: the rules, the supplied plan, the limits.
pub struct Question {
    vocab: warrant_facts::Vocabulary,
    rules: RuleLibrary,
    supplied: Option<QueryPlan>,
    question: String,
    version: Option<String>,
    opts: AskOptions,
    model_plan: bool,
}

impl Question {
    /// Checks `req` and reads `files`: every input error is found before the store is opened.
    pub fn new(env: &Env, req: &AskRequest, files: &AskFiles) -> Result<Self> {
        let vocab = env.vocabulary().as_ref().clone();
        let rules = rule_library(&files.rules, &vocab)?;
        let supplied = match (&files.plan, &req.plan, &req.question) {
            (Some(_), Some(_), _) | (None, Some(_), Some(_)) => {
                return Err(Error::usage("expected one of `question` and `plan`, not both"));
            }
            (Some(f), None, _) => Some(supplied_plan(&read_text(f)?, PlanAt::File(display_name(f)), &vocab, &rules)?),
            (None, Some(p), None) => Some(supplied_plan(&p.to_string(), PlanAt::Request, &vocab, &rules)?),
            (None, None, _) => None,
        };
        let question = req.question.clone().unwrap_or_default();
        if supplied.is_none() && question.trim().is_empty() {
            return Err(Error::input_at("/question", "the question is empty"));
        }
        let opts = AskOptions {
            limit_facts: limit(req.limit_facts, 20, u32::MAX, "/limit_facts")?,
            limit_chunks: limit(req.limit_chunks, 5, u32::MAX, "/limit_chunks")?,
            max_depth: limit(req.depth, 5, 64, "/depth")?,
            ..AskOptions::default()
        };
        Ok(Self { vocab, rules, supplied, question, version: req.version.clone(), opts, model_plan: files.model_plan })
    }

    /// The question over `store`; the model (when asked for and configured) plans it now.
    pub fn over<'s>(self, env: &Env, store: &'s dyn Store) -> Result<Asker<'s>> {
        let answerer = Answerer::with(store, self.vocab, self.rules, self.opts);
        // The model plans once; repeats reuse its plan.
        let model_plan = match env.model() {
            Some(model) if self.model_plan && self.supplied.is_none() => {
                Some(plan_with_model(&answerer, model, &self.question).map_err(|e| Error::store(e, None))?)
            }
            _ => None,
        };
        Ok(Asker { answerer, supplied: self.supplied, model_plan, question: self.question, version: self.version })
    }
}

impl Asker<'_> {
    /// Answers the question once.
    pub fn answer(&self) -> Result<Answer> {
        let store_err = |e| Error::store(e, None);
        let given = match (&self.supplied, &self.model_plan) {
            (Some(p), _) | (None, Some((p, _))) => Some(p),
            (None, None) => None,
        };
        let mut answer = match given {
            // A question the rule planner plans: answered with what planning read.
            None => {
                let mut planned = self.answerer.plan_question(&self.question).map_err(store_err)?;
                if let Some(v) = &self.version {
                    planned.plan.version = Some(v.clone());
                }
                self.answerer.answer_planned(&planned).map_err(store_err)?
            }
            Some(p) => {
                let mut plan = p.clone();
                if let Some(v) = &self.version {
                    plan.version = Some(v.clone());
                }
                let mut answer = self.answerer.answer(&plan).map_err(store_err)?;
                if self.supplied.is_none() && plan.predicates.is_none() && plan.goal.is_none() {
                    answer.diagnostics.insert(0, "no question template or predicate pattern matches the question".into());
                }
                answer
            }
        };
        if let Some((_, source)) = &self.model_plan {
            answer.diagnostics.insert(0, source.diagnostic());
        }
        Ok(answer)
    }

    /// Answers the question `runs` times (at least once): the last answer and the latency.
    pub fn timed(&self, runs: usize) -> Result<(Answer, Latency)> {
        let mut times = Vec::with_capacity(runs.max(1));
        let mut answer = None;
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            answer = Some(self.answer()?);
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        let latency = Latency { runs: times.len(), p50_us: pct(0.5), p90_us: pct(0.9), max_us: times[times.len() - 1] };
        let answer = answer.ok_or_else(|| Error::internal("no answer was made"))?;
        Ok((answer, latency))
    }
}

/// Serves an [`AskRequest`] against the environment's store.
pub fn ask(env: &Env, req: &AskRequest) -> Result<Answer> {
    let question = Question::new(env, req, &AskFiles::default())?;
    let store = env.store().ok_or_else(|| Error::input("no store to answer from (create one with `warrant ingest`)"))?;
    question.over(env, store.as_ref())?.answer()
}
