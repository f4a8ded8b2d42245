//! CPL, the Capability Policy Language, over PredicateGraphs.
//!
//! - [`parse`] and [`policy`]: load policies and packs once into a typed, checked tree.
//! - [`builtins`]: the 17 built-in predicates with their detectors.
//! - [`eval`]: the evaluator and [`result`]: its output.
//! - [`packs`]: the built-in packs compiled into the binary.
//! - [`rubric`]: verifier rubrics; [`verifier`]: the verifier registry (D13); [`judge`]: rubrics
//!   with an LLM judge.

pub mod ast;
pub mod builtins;
pub mod eval;
pub mod judge;
pub mod node;
pub mod packs;
pub mod parse;
pub mod policy;
pub mod result;
pub mod rubric;
pub mod verifier;

pub use builtins::PredicateConfig;
pub use builtins::tools::{ToolOrigin, ToolRegistry, ToolsError};
pub use eval::{Engine, EvalError};
pub use parse::{LoadError, LoadWarning};
pub use policy::{Pack, Policy, Rule, TIERED_DIALECT_MESSAGE, is_tiered_dialect, load_pack, load_pack_or_policy, load_policy};
pub use result::{PackResult, PolicyResult, RunDiagnostic, RunResult, SkippedRule, Violation};
