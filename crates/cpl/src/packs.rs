//! Built-in packs, compiled into the binary so `warrant` works from any directory.

use std::sync::OnceLock;

use crate::parse::LoadError;
use crate::policy::{Pack, load_pack};

/// A built-in pack: its id and JSON source.
pub struct BuiltinPack {
    /// Pack id.
    pub id: &'static str,
    /// The pack document.
    pub json: &'static str,
}

/// Every built-in pack, sorted by id.
pub const BUILTIN_PACKS: &[BuiltinPack] = &[
    BuiltinPack { id: "core.citation-grounding.v1", json: include_str!("../packs/core.citation-grounding.v1.json") },
    BuiltinPack { id: "core.safe-code.v1", json: include_str!("../packs/core.safe-code.v1.json") },
    BuiltinPack { id: "core.tool-use.v1", json: include_str!("../packs/core.tool-use.v1.json") },
    BuiltinPack { id: "example.customer-support.v1", json: include_str!("../packs/example.customer-support.v1.json") },
    BuiltinPack { id: "warrant.arithmetic.v1", json: include_str!("../packs/warrant.arithmetic.v1.json") },
    BuiltinPack { id: "warrant.grounding.v1", json: include_str!("../packs/warrant.grounding.v1.json") },
    BuiltinPack { id: "warrant.tool-grounding.v1", json: include_str!("../packs/warrant.tool-grounding.v1.json") },
    BuiltinPack { id: "warrant.tool-schema.v1", json: include_str!("../packs/warrant.tool-schema.v1.json") },
];

/// The packs `warrant check` and `warrant policy eval` run by default on an answer that calls
/// tools: CAPE's top-level checks, and the full JSON Schema check beside them.
pub const TOOL_CALL_PACKS: [&str; 2] = ["core.tool-use.v1", "warrant.tool-schema.v1"];

/// The [`TOOL_CALL_PACKS`], loaded: what `policy eval` runs when no pack is named and the
/// input calls tools. The error names a built-in pack that fails to load (a bug).
pub fn tool_call_packs() -> Result<Vec<Pack>, String> {
    TOOL_CALL_PACKS
        .iter()
        .map(|id| match builtin(id) {
            Some(Ok(p)) => Ok(p.clone()),
            Some(Err(e)) => Err(format!("built-in pack {id}: {e}")),
            None => Err(format!("built-in pack {id} is missing")),
        })
        .collect()
}

/// The ids of the built-in packs, sorted.
pub fn builtin_ids() -> impl Iterator<Item = &'static str> {
    BUILTIN_PACKS.iter().map(|p| p.id)
}

/// Loads a built-in pack by id (parsed once per process). `None` for an unknown id.
pub fn builtin(id: &str) -> Option<Result<&'static Pack, LoadError>> {
    static CACHE: OnceLock<Vec<Result<Pack, LoadError>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        BUILTIN_PACKS
            .iter()
            .map(|b| {
                serde_json::from_str(b.json)
                    .map_err(|e| LoadError::new("", format!("invalid JSON: {e}")))
                    .and_then(|v| load_pack(&v))
            })
            .collect()
    });
    let i = BUILTIN_PACKS.iter().position(|b| b.id == id)?;
    Some(cache[i].as_ref().map_err(Clone::clone))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_pack_loads_with_its_own_id_and_no_warnings() {
        for b in BUILTIN_PACKS {
            let p = builtin(b.id).unwrap().unwrap_or_else(|e| panic!("{}: {e}", b.id));
            assert_eq!(p.pack_id, b.id);
            assert!(p.warnings.is_empty(), "{}: {:?}", b.id, p.warnings);
        }
        assert!(builtin("nope.pack.v1").is_none());
        let ids: Vec<_> = builtin_ids().collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }

    #[test]
    fn builtin_packs_have_the_upstream_shape() {
        let count = |id: &str| {
            let p = builtin(id).unwrap().unwrap();
            (p.policies.len(), p.policies.iter().map(|x| x.rules.len()).sum::<usize>())
        };
        assert_eq!(count("core.tool-use.v1"), (2, 4));
        assert_eq!(count("core.citation-grounding.v1"), (2, 3));
        assert_eq!(count("core.safe-code.v1"), (3, 4));
        assert_eq!(count("example.customer-support.v1"), (4, 4));
        assert_eq!(count("warrant.arithmetic.v1"), (1, 1));
        assert_eq!(count("warrant.grounding.v1"), (2, 2));
        assert_eq!(count("warrant.tool-grounding.v1"), (1, 1));
        assert_eq!(count("warrant.tool-schema.v1"), (1, 2));
        for id in TOOL_CALL_PACKS {
            assert!(builtin(id).is_some(), "{id}");
        }
    }
}

/// A built-in pack as listed by `warrant policy packs --format json` and `GET /v1/packs`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PackListing {
    /// The pack id.
    pub pack_id: String,
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// What it checks.
    pub description: String,
    /// Its policies.
    pub policies: Vec<PolicyListing>,
}

/// A policy of a listed pack.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PolicyListing {
    /// The policy id.
    pub policy_id: String,
    /// Its rules.
    pub rules: Vec<RuleListing>,
}

/// A rule of a listed policy.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RuleListing {
    /// The rule id.
    pub rule_id: String,
    /// How serious a violation is.
    pub severity: warrant_graph::Severity,
    /// What it requires.
    pub description: String,
}

/// Every built-in pack, in [`BUILTIN_PACKS`] order. An error names a built-in pack that fails
/// to load (a bug, reported rather than a panic).
pub fn listing() -> Result<Vec<PackListing>, String> {
    let mut out = Vec::with_capacity(BUILTIN_PACKS.len());
    for b in BUILTIN_PACKS {
        let p = builtin(b.id).ok_or_else(|| format!("built-in pack {} is missing", b.id))?;
        let p = p.map_err(|e| format!("built-in pack {}: {e}", b.id))?;
        out.push(PackListing {
            pack_id: p.pack_id.clone(),
            name: p.name.clone(),
            version: p.version.clone(),
            description: p.description.clone(),
            policies: p
                .policies
                .iter()
                .map(|pol| PolicyListing {
                    policy_id: pol.policy_id.clone(),
                    rules: pol
                        .rules
                        .iter()
                        .map(|r| RuleListing {
                            rule_id: r.rule_id.clone(),
                            severity: r.severity,
                            description: r.description.clone(),
                        })
                        .collect(),
                })
                .collect(),
        });
    }
    Ok(out)
}
