//! PredicateGraph 1.0.0: the typed decomposition of a model's output that policies run on.
//!
//! - `model`: the node types, with serde names exactly as the schema has them.
//! - `schema`: compiled JSON Schemas and best-match error reporting, shared by every artefact
//!   kind Warrant validates.
//! - `load`: text → validated graph: schema, `schema_version` handling (D11), duplicate ids,
//!   and the semantic lints (spans, dangling references, cycles) as warnings.
//! - `index`: id → node lookups built once per graph, for cross-reference predicates.
#![warn(missing_docs)]

mod index;
mod load;
mod model;
mod schema;

pub use index::GraphIndex;
pub use load::{Diagnostic, GraphReport, Severity, check_graph, graph_schema_json, parse_graph, parse_semver};
pub use model::*;
pub use schema::{CompiledSchema, SchemaError, json_kind, pointer_to_arrow_path, push_pointer};
