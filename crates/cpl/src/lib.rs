//! CPL, the Capability Policy Language, over PredicateGraphs.
//!
//! - [`parse`] and [`policy`]: load policies and packs once into a typed, checked tree.
//! - [`builtins`]: the 17 built-in predicates with their detectors.
//! - [`eval`]: the evaluator and [`result`]: its output.
//! - [`packs`]: the built-in packs compiled into the binary.
//! - [`rubric`]: verifier rubrics; [`verifier`]: the verifier registry (D13); [`judge`]: rubrics
//!   with an LLM judge.
#![warn(missing_docs)]

mod ast;
mod builtins;
mod eval;
mod judge;
mod node;
pub mod packs;
mod parse;
mod policy;
mod result;
mod rubric;
mod verifier;

pub use builtins::PredicateConfig;
pub use builtins::tools::{ToolOrigin, ToolRegistry, ToolsError};
pub use builtins::{Diag, arithmetic, verification};
pub use eval::{Engine, EvalError};
pub use judge::{JudgedVerifiers, check_output, meta_verify};
pub use parse::{LoadError, LoadWarning};
pub use policy::{Pack, Policy, Rule, TIERED_DIALECT_MESSAGE, is_tiered_dialect, load_pack, load_pack_or_policy, load_policy};
pub use result::{PackResult, PolicyResult, RunDiagnostic, RunResult, SkippedRule, Violation};
pub use rubric::{Rubric, load_rubric};
pub use verifier::{RubricsWithoutJudge, Unavailable, VerifierRegistry};
