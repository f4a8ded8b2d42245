//! The Compiled Knowledge Format compiler: sources in, a typed, traceable knowledge package out.
//!
//! Decisions: `docs/decisions/knowledge-packages.md` (D40–D41).
#![warn(missing_docs)]

mod chunk;
mod compile;
mod coverage;
mod derive;
mod domain;
mod encode;
mod gate;
mod hash;
mod ids;
mod lang;
mod map;
mod model;
mod normalize;
mod numeric;
mod par;
mod promote;
mod quality;
mod reduce;
mod sanitize;
mod score;
mod similarity;
mod source;
mod validate;
pub use chunk::chunks;
pub use compile::{CompileError, CompileResult, CompressionLevel, Options, SourceInput, compile, compile_with};
pub use coverage::CoverageMode;
pub use encode::{MD_HEADER, parse_any, to_json, to_json_with_threads, to_markdown, to_yaml};
pub use gate::tokens;
pub use hash::sha256_hex;
pub use lang::Lang;
pub use map::{MapInput, Mapper, RuleMapper, evidence, llm};
pub use model::{Basis, Field, Item, Package, Section};
pub use normalize::normalize;
pub use source::{DEFAULT_MAX_BYTES, Document, ReadOptions, Span, read_source};
pub use validate::{Mode, PACKAGE_SCHEMA, ReadError, Shape, check, looks_like_package, read_package};
