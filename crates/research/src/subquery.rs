//! Typed sub-queries (spec §5.6): what execute materialises from a route decision and runs
//! against the graph. Internal to execute; never persisted on their own.

use serde::{Deserialize, Serialize};

/// `entity_state`: fetch entities by full id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EntityStateArgs {
    /// Full entity ids.
    pub entity_ids: Vec<String>,
}

/// `predicate_walk`: follow outgoing edges from seeds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PredicateWalkArgs {
    /// Full seed ids.
    pub seeds: Vec<String>,
    /// Edge filter (predicate ids); empty means every predicate.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicates: Vec<String>,
    /// Hops (0 means 1).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_hops: u32,
}

/// `temporal_range`: entities whose timestamp falls in `[start, end]` (RFC 3339).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TemporalRangeArgs {
    /// Window start (RFC 3339).
    pub start: String,
    /// Window end (RFC 3339).
    pub end: String,
    /// Advisory topic.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub topic: String,
}

/// `bm25`: lexical search.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Bm25Args {
    /// The query.
    pub query: String,
    /// At most this many results (0: the fusion default).
    #[serde(default, skip_serializing_if = "is_zero_usize")]
    pub limit: usize,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn is_zero_usize(v: &usize) -> bool {
    *v == 0
}

/// The four Phase 1 primitives with their arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubQueryKind {
    /// Fetch entities.
    EntityState(EntityStateArgs),
    /// One-hop (or more) walk.
    PredicateWalk(PredicateWalkArgs),
    /// Time window over dated facts.
    TemporalRange(TemporalRangeArgs),
    /// BM25 over chunk text.
    Bm25(Bm25Args),
}

impl SubQueryKind {
    /// The primitive's type name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::EntityState(_) => "entity_state",
            Self::PredicateWalk(_) => "predicate_walk",
            Self::TemporalRange(_) => "temporal_range",
            Self::Bm25(_) => "bm25",
        }
    }
}

/// A typed sub-query with its retrieval tier and provenance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubQuery {
    /// `"0"` or `"1"`.
    pub tier: String,
    /// Provenance (`walk_seeds.entity_state`, …).
    pub source: String,
    /// What to run.
    pub kind: SubQueryKind,
}

impl SubQuery {
    /// A sub-query.
    pub fn new(tier: &str, source: impl Into<String>, kind: SubQueryKind) -> Self {
        Self { tier: tier.into(), source: source.into(), kind }
    }

    /// `bm25` with a query.
    pub fn bm25(tier: &str, source: impl Into<String>, query: impl Into<String>) -> Self {
        Self::new(tier, source, SubQueryKind::Bm25(Bm25Args { query: query.into(), limit: 0 }))
    }

    /// The primitive's type name.
    pub fn type_name(&self) -> &'static str {
        self.kind.type_name()
    }

    /// Spec §5.6: tier `"0"`/`"1"`, a source, and each primitive's required arguments.
    pub fn validate(&self) -> Result<(), String> {
        if self.tier != "0" && self.tier != "1" {
            return Err(format!("subquery: tier \"{}\" must be \"0\" or \"1\"", self.tier));
        }
        if self.source.trim().is_empty() {
            return Err("subquery: source required for provenance".into());
        }
        let missing = match &self.kind {
            SubQueryKind::EntityState(a) => a.entity_ids.is_empty().then_some("entity_ids required"),
            SubQueryKind::PredicateWalk(a) => a.seeds.is_empty().then_some("seeds required"),
            SubQueryKind::TemporalRange(a) => {
                (a.start.trim().is_empty() || a.end.trim().is_empty()).then_some("start + end required")
            }
            SubQueryKind::Bm25(a) => a.query.trim().is_empty().then_some("query required"),
        };
        if let Some(m) = missing {
            return Err(format!("subquery: {m}"));
        }
        Ok(())
    }

    /// Checks a primitive type name read from elsewhere (e.g. an LLM): one of the four.
    pub fn check_type_name(name: &str) -> Result<(), String> {
        match name {
            "entity_state" | "predicate_walk" | "temporal_range" | "bm25" => Ok(()),
            other => Err(format!("subquery: type \"{other}\" is not a Phase 1 primitive")),
        }
    }
}
