//! The Compiled Knowledge Format compiler: sources in, a typed, traceable knowledge package out.
//!
//! Spec: `../shared/specs/knowledge-packages.md` (decisions D40–D41 binding).

pub mod domain;
pub mod hash;
pub mod lang;
pub mod model;
pub mod normalize;
pub mod score;
pub mod source;
pub mod chunk;
pub mod gate;
pub mod map;
pub mod numeric;
pub mod reduce;
pub mod similarity;
pub mod coverage;
pub mod ids;
pub mod promote;
pub mod sanitize;
pub mod compile;
pub mod derive;
pub mod quality;
pub mod encode;
pub mod validate;
