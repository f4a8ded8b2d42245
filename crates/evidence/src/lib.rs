//! Agent Evidence 0.1.0 (limecloud/agentevidence, release v0.1.8): the documents Warrant
//! writes so that another system can audit a check, and the validator that checks them.
//!
//! - [`model`]: the eight documents and their shared definitions, open (unknown fields are
//!   kept) and exact (numbers as written).
//! - [`schema`]: the document kinds and Warrant's own JSON Schemas for them, which accept and
//!   reject what the published ones do.
//! - [`validate`](mod@validate): pass 1 (schema and RFC 3339 `date-time`) and pass 2 (the
//!   relationship invariants of spec §6.2, codes `AEV-…`), with findings as
//!   `verification_result`s.
//! - [`builder`]: [`PackBuilder`] for `warrant check --evidence-pack`, and [`ExportBuilder`].
//! - [`ids`]: the id pattern and content-derived ids.
#![warn(missing_docs)]

mod de;

mod builder;
mod ids;
mod model;
mod replay;
mod schema;
mod validate;

pub use builder::{
    BuildError, ClaimInput, EdgeInput, ExportBuilder, GROUNDING_ID, GroundingRun, NATIVE_ID_KEY, NotChecked, PACK_FORM_KEY,
    PackBuilder, PackForm, PolicyRun, SourceInput,
};
pub use builder::{claim_node_id, policy_verification_id, source_node_id, tool_call_node_id};
pub use ids::is_valid_id;
pub use model::*;
pub use replay::{ModelCall, model_replay_case};
pub use schema::DocKind;
pub use validate::{
    Code, Context, HistoryError, Issue, Report, check_document, check_review_history, parse, validate, validate_text,
    validate_with,
};
