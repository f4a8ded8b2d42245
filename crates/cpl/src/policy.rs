//! Policies, packs and their loading (spec §3, §6): schema, grammar, scopes, dependencies,
//! and the refusal of the tiered-dialect CPL (D1).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde_json::Value;
use warrant_graph::Severity;
use warrant_graph::{CompiledSchema, push_pointer};

use crate::ast::{CustomPredicate, Expr};
use crate::parse::{self, LoadError, LoadWarning, Parser, Visible};

fn compile(name: &str, text: &str) -> CompiledSchema {
    CompiledSchema::compile(text).unwrap_or_else(|e| panic!("embedded schema {name}: {e}"))
}

static POLICY_SCHEMA_JSON: &str = include_str!("../schemas/cpl-policy-1.0.0.schema.json");
static PACK_SCHEMA_JSON: &str = include_str!("../schemas/policy-pack-1.0.0.schema.json");
static RUBRIC_SCHEMA_JSON: &str = include_str!("../schemas/verifier-rubric-1.0.0.schema.json");

pub(crate) static POLICY_SCHEMA: LazyLock<CompiledSchema> = LazyLock::new(|| compile("cpl policy", POLICY_SCHEMA_JSON));
pub(crate) static PACK_SCHEMA: LazyLock<CompiledSchema> = LazyLock::new(|| compile("policy pack", PACK_SCHEMA_JSON));
pub(crate) static RUBRIC_SCHEMA: LazyLock<CompiledSchema> = LazyLock::new(|| compile("verifier rubric", RUBRIC_SCHEMA_JSON));

/// The message that refuses a tiered-dialect file (spec §9.3).
pub const TIERED_DIALECT_MESSAGE: &str = "Unsupported CPL dialect: this is the tiered expression-string dialect (policies[].tier/assert/where, as in cape-skills policy.cpl); only JSON-tree CPL policies (policy_id, rules[].expression) are supported";

/// True when a document is the tiered expression-string dialect (detected by content).
pub fn is_tiered_dialect(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.contains_key("policy_id") || o.contains_key("rules") {
        return false;
    }
    o.get("policies")
        .and_then(Value::as_array)
        .is_some_and(|ps| ps.iter().any(|p| p.get("tier").is_some() || p.get("assert").is_some() || p.get("where").is_some()))
}

/// A rule after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Unique within its policy.
    pub rule_id: String,
    /// What it checks.
    pub description: String,
    /// Violation severity (default `error`).
    pub severity: Severity,
    /// The compiled expression.
    pub expr: Expr,
    /// Verifier ids used anywhere in the rule (including through custom predicates).
    pub verifiers: Vec<String>,
}

/// A policy after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Identifier, unique within its pack.
    pub policy_id: String,
    /// Human-readable name.
    pub name: String,
    /// What it enforces.
    pub description: String,
    /// Semver.
    pub version: String,
    /// Rules in order.
    pub rules: Vec<Rule>,
    /// Its own custom predicates, in dependency order.
    pub predicates: Vec<CustomPredicate>,
}

/// A pack dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    /// Required pack id.
    pub pack_id: String,
    /// Version constraint.
    pub version: String,
}

/// A pack after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct Pack {
    /// `scope.capability.vN`.
    pub pack_id: String,
    /// Human-readable name.
    pub name: String,
    /// What it checks.
    pub description: String,
    /// Semver.
    pub version: String,
    /// Policies in order.
    pub policies: Vec<Policy>,
    /// Packs it depends on.
    pub dependencies: Vec<Dependency>,
    /// Pack-level custom predicates (D10), in dependency order.
    pub predicates: Vec<CustomPredicate>,
    /// Load-time warnings and notes.
    pub warnings: Vec<LoadWarning>,
    /// True when the pack declares pack-level `custom_predicates` (reported under `--strict`).
    pub uses_pack_predicates: bool,
}

impl Pack {
    /// Every verifier id used by any rule.
    pub fn verifier_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> =
            self.policies.iter().flat_map(|p| p.rules.iter()).flat_map(|r| r.verifiers.iter().map(String::as_str)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

fn schema_error(schema: &CompiledSchema, v: &Value) -> Option<LoadError> {
    schema.errors(v).into_iter().next().map(|e| LoadError::new(e.pointer, e.message))
}

fn severity(v: Option<&Value>) -> Severity {
    match v.and_then(Value::as_str) {
        Some("warning") => Severity::Warning,
        Some("info") => Severity::Info,
        _ => Severity::Error,
    }
}

fn string(o: &Value, key: &str) -> String {
    o.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// Parses one policy object (standalone or embedded) at `ptr`.
fn parse_policy(
    v: &Value,
    ptr: &str,
    pack_preds: &[CustomPredicate],
    pack_verifiers: &HashMap<String, Vec<String>>,
    warnings: &mut Vec<LoadWarning>,
) -> Result<Policy, LoadError> {
    let mut verifier_map = pack_verifiers.clone();
    let cp_ptr = push_pointer(ptr, "custom_predicates");
    let predicates = parse::custom_predicates(v.get("custom_predicates"), &cp_ptr, pack_preds, &mut verifier_map, warnings)?;
    for p in &predicates {
        if pack_preds.iter().any(|q| q.name == p.name) {
            warnings.push(LoadWarning {
                pointer: push_pointer(&cp_ptr, &p.name),
                message: format!(
                    "info: custom predicate '{}' shadows the pack-level predicate of the same name in this policy",
                    p.name
                ),
            });
        }
    }
    let mut rules = Vec::new();
    let mut seen = HashSet::new();
    let rules_ptr = push_pointer(ptr, "rules");
    for (i, r) in v.get("rules").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let rptr = format!("{rules_ptr}/{i}");
        let rule_id = string(r, "rule_id");
        if !seen.insert(rule_id.clone()) {
            return Err(LoadError::new(
                push_pointer(&rptr, "rule_id"),
                format!("duplicate rule_id '{rule_id}' in policy '{}'", string(v, "policy_id")),
            ));
        }
        let mut p = Parser::new(Visible { pack: pack_preds, policy: &predicates }, &verifier_map);
        let expr = p.expr(r.get("expression").unwrap_or(&Value::Null), &push_pointer(&rptr, "expression"))?;
        warnings.append(&mut p.warnings);
        rules.push(Rule {
            rule_id,
            description: string(r, "description"),
            severity: severity(r.get("severity")),
            expr,
            verifiers: p.verifiers,
        });
    }
    Ok(Policy {
        policy_id: string(v, "policy_id"),
        name: string(v, "name"),
        description: string(v, "description"),
        version: string(v, "version"),
        rules,
        predicates,
    })
}

/// Loads a standalone CPL policy document.
pub fn load_policy(v: &Value) -> Result<(Policy, Vec<LoadWarning>), LoadError> {
    if is_tiered_dialect(v) {
        return Err(LoadError::new("", TIERED_DIALECT_MESSAGE));
    }
    // The grammar check gives sharper messages than the schema's `oneOf`; run it first.
    let mut warnings = Vec::new();
    let parsed = parse_policy_checked(v, &mut warnings);
    if let Some(e) = schema_error(&POLICY_SCHEMA, v) {
        return Err(parsed.err().unwrap_or(e));
    }
    Ok((parsed?, warnings))
}

fn parse_policy_checked(v: &Value, warnings: &mut Vec<LoadWarning>) -> Result<Policy, LoadError> {
    if !v.is_object() {
        return Err(LoadError::new("", "expected a CPL policy object"));
    }
    parse_policy(v, "", &[], &HashMap::new(), warnings)
}

/// Loads a pack document.
pub fn load_pack(v: &Value) -> Result<Pack, LoadError> {
    if is_tiered_dialect(v) {
        return Err(LoadError::new("", TIERED_DIALECT_MESSAGE));
    }
    if let Some(e) = schema_error(&PACK_SCHEMA, v) {
        return Err(e);
    }
    let mut warnings = Vec::new();
    let mut verifier_map = HashMap::new();
    let predicates =
        parse::custom_predicates(v.get("custom_predicates"), "/custom_predicates", &[], &mut verifier_map, &mut warnings)?;
    let mut policies = Vec::new();
    let mut ids = HashSet::new();
    for (i, p) in v.get("policies").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let ptr = format!("/policies/{i}");
        let policy = parse_policy(p, &ptr, &predicates, &verifier_map, &mut warnings)?;
        if !ids.insert(policy.policy_id.clone()) {
            return Err(LoadError::new(
                push_pointer(&ptr, "policy_id"),
                format!("duplicate policy_id '{}' in pack", policy.policy_id),
            ));
        }
        policies.push(policy);
    }
    let dependencies = v
        .get("dependencies")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|d| Dependency { pack_id: string(d, "pack_id"), version: string(d, "version") })
        .collect::<Vec<_>>();
    for (i, d) in dependencies.iter().enumerate() {
        VersionReq::parse(&d.version).map_err(|m| LoadError::new(format!("/dependencies/{i}/version"), m))?;
    }
    Ok(Pack {
        pack_id: string(v, "pack_id"),
        name: string(v, "name"),
        description: string(v, "description"),
        version: string(v, "version"),
        policies,
        dependencies,
        predicates,
        warnings,
        uses_pack_predicates: v.get("custom_predicates").is_some(),
    })
}

/// Loads a pack, or wraps a standalone policy as a one-policy pack whose id is the policy id.
pub fn load_pack_or_policy(v: &Value) -> Result<Pack, LoadError> {
    if v.get("pack_id").is_some() || v.get("policies").is_some() && !is_tiered_dialect(v) {
        return load_pack(v);
    }
    let (policy, warnings) = load_policy(v)?;
    Ok(Pack {
        pack_id: policy.policy_id.clone(),
        name: policy.name.clone(),
        description: policy.description.clone(),
        version: policy.version.clone(),
        policies: vec![policy],
        dependencies: Vec::new(),
        predicates: Vec::new(),
        warnings,
        uses_pack_predicates: false,
    })
}

/// A semver version constraint (spec §6.3): space-separated comparators ANDed, with `^` and `~`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReq(Vec<(Cmp, (u64, u64, u64))>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

impl VersionReq {
    /// Parses a constraint such as `1.0.0`, `>=1.0.0 <2.0.0`, `^1.2.3` or `~1.2.3`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || format!("invalid version constraint \"{s}\" (expected e.g. 1.0.0, >=1.0.0 <2.0.0, ^1.2.3 or ~1.2.3)");
        let mut out = Vec::new();
        for part in s.split_whitespace() {
            let (cmp, rest) = [
                (">=", Cmp::Ge),
                ("<=", Cmp::Le),
                (">", Cmp::Gt),
                ("<", Cmp::Lt),
                ("=", Cmp::Eq),
                ("^", Cmp::Eq),
                ("~", Cmp::Eq),
            ]
            .iter()
            .find_map(|(p, c)| part.strip_prefix(p).map(|r| (*c, (r, *p))))
            .unwrap_or((Cmp::Eq, (part, "")));
            let (text, prefix) = rest;
            let v = warrant_graph::parse_semver(text).ok_or_else(bad)?;
            match prefix {
                "^" => {
                    out.push((Cmp::Ge, v));
                    out.push((Cmp::Lt, (v.0.saturating_add(1), 0, 0)));
                }
                "~" => {
                    out.push((Cmp::Ge, v));
                    out.push((Cmp::Lt, (v.0, v.1.saturating_add(1), 0)));
                }
                _ => out.push((cmp, v)),
            }
        }
        if out.is_empty() {
            return Err(bad());
        }
        Ok(Self(out))
    }

    /// True when `version` satisfies every comparator.
    pub fn matches(&self, version: &str) -> bool {
        let Some(v) = warrant_graph::parse_semver(version) else { return false };
        self.0.iter().all(|(c, w)| match c {
            Cmp::Ge => v >= *w,
            Cmp::Gt => v > *w,
            Cmp::Le => v <= *w,
            Cmp::Lt => v < *w,
            Cmp::Eq => v == *w,
        })
    }
}

/// Orders packs so dependencies come first, each once. Every dependency must be satisfied by
/// one of the given packs; cycles are errors.
pub fn dependency_order(packs: &[Pack]) -> Result<Vec<usize>, String> {
    let mut order = Vec::new();
    let mut state = vec![0u8; packs.len()];
    fn visit(i: usize, packs: &[Pack], state: &mut [u8], order: &mut Vec<usize>, path: &mut Vec<usize>) -> Result<(), String> {
        match state[i] {
            2 => return Ok(()),
            1 => {
                let names: Vec<&str> = path.iter().chain(std::iter::once(&i)).map(|j| packs[*j].pack_id.as_str()).collect();
                return Err(format!("pack dependency cycle: {}", names.join(" → ")));
            }
            _ => {}
        }
        state[i] = 1;
        path.push(i);
        for d in &packs[i].dependencies {
            let req = VersionReq::parse(&d.version)?;
            let Some(j) = packs.iter().position(|p| p.pack_id == d.pack_id && req.matches(&p.version)) else {
                return Err(format!("unresolved dependency {} {} (required by {})", d.pack_id, d.version, packs[i].pack_id));
            };
            visit(j, packs, state, order, path)?;
        }
        path.pop();
        state[i] = 2;
        order.push(i);
        Ok(())
    }
    for i in 0..packs.len() {
        visit(i, packs, &mut state, &mut order, &mut Vec::new())?;
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constraints() {
        let r = VersionReq::parse(">=1.0.0 <2.0.0").unwrap();
        assert!(r.matches("1.5.0"));
        assert!(!r.matches("2.0.0"));
        assert!(VersionReq::parse("^1.2.3").unwrap().matches("1.9.0"));
        assert!(!VersionReq::parse("^1.2.3").unwrap().matches("2.0.0"));
        assert!(VersionReq::parse("~1.2.3").unwrap().matches("1.2.9"));
        assert!(!VersionReq::parse("~1.2.3").unwrap().matches("1.3.0"));
        assert!(VersionReq::parse("1.0.0").unwrap().matches("1.0.0"));
        assert!(!VersionReq::parse("1.0.0").unwrap().matches("1.0.1"));
        assert!(VersionReq::parse("").is_err());
        assert!(VersionReq::parse(">=x").is_err());
    }
}
