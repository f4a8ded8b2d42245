//! The Compiled Knowledge Format compiler: sources in, a typed, traceable knowledge package out.
//!
//! Decisions: `docs/decisions/knowledge-packages.md` (D40–D41).

pub mod chunk;
pub mod compile;
pub mod coverage;
pub mod derive;
pub mod domain;
pub mod encode;
pub mod gate;
pub mod hash;
pub mod ids;
pub mod lang;
pub mod map;
pub mod model;
pub mod normalize;
pub mod numeric;
pub mod par;
pub mod promote;
pub mod quality;
pub mod reduce;
pub mod sanitize;
pub mod score;
pub mod similarity;
pub mod source;
pub mod validate;
