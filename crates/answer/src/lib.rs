//! Verifiable answers (DS005; decisions: `docs/decisions/verifiable-answers.md`): a question about stored
//! documents gets a verdict — `supported`, `conflicting` or `unsupported` — and the chain of
//! facts behind it. The system refuses rather than guesses.
//!
//! ```text
//! question ─► plan (planner, or a supplied QueryPlan)
//!          ─► retrieve + rank (§9) ─► derive (rules + evaluators, §11) ─► conflict check (§10)
//!          ─► answer contract (§12): text, verdict, chunksUsed, factChain, supportScores, conflicts
//! ```
//!
//! - [`plan`]: the [`QueryPlan`] and its strict validation;
//! - [`planner`]: the deterministic question planner (question templates, entity index);
//! - [`rules`]: the declarative [`RuleLibrary`] (default library embedded from
//!   `data/rules.json`) and the built-in evaluators;
//! - [`engine`]: the [`Answerer`]: retrieval, ranking, backward chaining, answer assembly;
//! - [`conflict`]: conflict keys, value classes and minimal conflict sets (D24, D25);
//! - [`contract`]: the [`Answer`] contract, its validator and the chain checker;
//! - [`llm_plan`]: question planning by a model (`ask --llm-plan`), validated, with fallback;
//! - [`eval`]: the DS003 Exp3 suite runner and its metrics.
//!
//! ```
//! use warrant_answer::{Answerer, Verdict};
//! use warrant_store::{DocumentInput, IngestOptions, SqliteStore, ingest};
//!
//! let store = SqliteStore::open_in_memory()?;
//! let doc = |id: &str, v: &str, minutes: u32| DocumentInput {
//!     id: id.into(),
//!     text: format!("Session tokens expire after {minutes} minutes of inactivity."),
//!     version: Some(v.into()),
//!     title: None,
//!     metadata: None,
//!     origin: "example".into(),
//! };
//! ingest(&store, vec![doc("v1", "1.0", 30), doc("v2", "2.0", 15)], Vec::new(), &IngestOptions::default(), &mut |_| {})?;
//! let answerer = Answerer::new(&store);
//!
//! let a = answerer.ask("How long before session tokens expire from inactivity in v2.0?")?;
//! assert_eq!((a.verdict, a.text.as_deref()), (Verdict::Supported, Some("15 minutes")));
//!
//! let a = answerer.ask("How long before session tokens expire from inactivity?")?;
//! assert_eq!(a.verdict, Verdict::Conflicting);
//! assert_eq!(a.conflicts[0].reason, "version_mismatch");
//!
//! let a = answerer.ask("If a user is inactive for 20 minutes in v2.0, is their session valid?")?;
//! assert_eq!(a.text.as_deref(), Some("No"));
//! let roles: Vec<_> = a.fact_chain.iter().map(|e| format!("{:?}", e.role)).collect();
//! assert_eq!(roles, ["Premise", "Derived", "Conclusion"]);
//!
//! let a = answerer.ask("What encryption algorithm is used for tokens?")?;
//! assert_eq!((a.verdict, a.text), (Verdict::Unsupported, None));
//! # Ok::<(), warrant_store::StoreError>(())
//! ```
#![warn(missing_docs)]

mod conflict;
mod contract;
mod engine;
mod eval;
mod llm_plan;
mod matcher;
mod plan;
mod planner;
mod rules;

pub use contract::span_names_subject_and_object;
pub use contract::{Answer, ChainEntry, ChainRole, Conflict, Verdict, check_chain, validate_contract};
pub use engine::{Answerer, AskOptions, PlannedQuestion, versions_equal};
pub use eval::{Mode, consistency_key, jaccard_consistency, metrics, parse_questions, run_suite};
pub use llm_plan::{PlanSource, plan_with_model, validate_plan};
pub use plan::{Goal, PlanError, QueryPlan};
pub use planner::Planner;
pub use rules::{Rule, RuleError, RuleLibrary};
pub use rules::{object_text, parse_rules};
