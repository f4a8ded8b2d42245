//! WorkSignature and Workpad: unification of fact patterns (spec §15).
//!
//! A [`Signature`] is an ordered map `role → (value, isVariable)`; roles are `subject`,
//! `predicate`, `object` and any extra role (`recipient`, …). A value is a variable iff it is
//! a string starting with `?`. [`match_pattern`] unifies a pattern with a fact, [`merge`]
//! combines two signatures, [`canonicalize`] turns roles into variables, and a [`Workpad`]
//! holds the bindings made during derivation (with snapshots for backtracking).
//!
//! Equality is typed and exact ([`values_equal`]): `15` ≠ `"15"`, `true` ≠ `"true"`; numbers
//! compare by exact decimal value.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::fact::{Fact, numbers_equal};

/// Variable bindings: `"?x"` → value, sorted by variable name.
pub type Bindings = BTreeMap<String, Value>;

/// True when a value is a variable: a string starting with `?`.
pub fn is_variable(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.starts_with('?'))
}

/// Typed, exact equality of role values (§15).
pub fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| values_equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| values_equal(v, w)))
        }
        _ => a == b,
    }
}

/// One role of a signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Role {
    /// The value (a variable name such as `"?x"` when `is_variable`).
    pub value: Value,
    /// Whether the value is a variable.
    pub is_variable: bool,
}

/// An ordered map `role → (value, isVariable)`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Signature {
    roles: Vec<(String, Role)>,
}

impl Signature {
    /// An empty signature.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a role; whether it is a variable follows from the value (`?name`).
    pub fn with(mut self, role: impl Into<String>, value: impl Into<Value>) -> Self {
        let value = value.into();
        let is_variable = is_variable(&value);
        self.set(role.into(), Role { value, is_variable });
        self
    }

    /// Sets a role with an explicit variable flag.
    pub fn set(&mut self, role: String, r: Role) {
        match self.roles.iter_mut().find(|(k, _)| *k == role) {
            Some((_, slot)) => *slot = r,
            None => self.roles.push((role, r)),
        }
    }

    /// A signature from a JSON object (each key a role).
    pub fn from_json(v: &Value) -> Option<Self> {
        let m = v.as_object()?;
        Some(m.iter().fold(Self::new(), |s, (k, v)| s.with(k.clone(), v.clone())))
    }

    /// The signature of a stored fact: `subject`, `predicate`, `object`, then every qualifier
    /// as an extra role (project rule: qualifiers are a fact's extra roles).
    pub fn of_fact(f: &Fact) -> Self {
        let mut s = Self::new()
            .with("subject", f.subject.clone())
            .with("predicate", f.predicate.clone())
            .with("object", f.object.to_json());
        for (k, v) in &f.qualifiers {
            // Fact values are constants even when they look like variables.
            s.set(k.clone(), Role { value: v.clone(), is_variable: false });
        }
        s
    }

    /// The role's entry.
    pub fn get(&self, role: &str) -> Option<&Role> {
        self.roles.iter().find(|(k, _)| k == role).map(|(_, r)| r)
    }

    /// Roles in order.
    pub fn roles(&self) -> impl Iterator<Item = (&str, &Role)> {
        self.roles.iter().map(|(k, r)| (k.as_str(), r))
    }

    /// Role → value as a JSON object.
    pub fn to_json(&self) -> Value {
        Value::Object(self.roles.iter().map(|(k, r)| (k.clone(), r.value.clone())).collect())
    }
}

/// `matchPattern(pattern, fact)` of §15: for each pattern role, the fact must have the role;
/// a bound variable must equal the fact's value, an unbound one is bound to it, a constant
/// must equal it. Fact roles the pattern does not mention are ignored.
pub fn match_pattern(pattern: &Signature, fact: &Signature) -> Option<Bindings> {
    match_with(pattern, |role| fact.get(role).map(|r| &r.value), Bindings::new())
}

/// [`match_pattern`] against any role lookup, starting from existing bindings.
pub fn match_with<'a>(
    pattern: &Signature,
    lookup: impl Fn(&str) -> Option<&'a Value>,
    mut bindings: Bindings,
) -> Option<Bindings> {
    for (role, p) in pattern.roles() {
        let value = lookup(role)?;
        if p.is_variable {
            let name = p.value.as_str().unwrap_or_default();
            match bindings.get(name) {
                Some(bound) if !values_equal(bound, value) => return None,
                Some(_) => {}
                None => {
                    bindings.insert(name.to_string(), value.clone());
                }
            }
        } else if !values_equal(&p.value, value) {
            return None;
        }
    }
    Some(bindings)
}

/// `merge(a, b)` of §15, role by role: equal values are kept; a variable against a constant
/// resolves to the constant; two different constants or two different variables fail; a
/// role present on one side only is kept.
pub fn merge(a: &Signature, b: &Signature) -> Option<Signature> {
    let mut out = a.clone();
    for (role, rb) in b.roles() {
        let merged = match a.get(role) {
            None => rb.clone(),
            Some(ra) => match (ra.is_variable, rb.is_variable) {
                (false, false) if values_equal(&ra.value, &rb.value) => ra.clone(),
                (true, true) if ra.value == rb.value => ra.clone(),
                (true, false) => rb.clone(),
                (false, true) => ra.clone(),
                _ => return None,
            },
        };
        out.set(role.to_string(), merged);
    }
    Some(out)
}

/// `canonicalize(fact, variableRoles)` of §15: each listed role becomes the variable
/// `?<role>`; the other roles stay constants. The usual roles are `["subject", "object"]`.
pub fn canonicalize(fact: &Signature, variable_roles: &[&str]) -> Signature {
    let mut out = Signature::new();
    for (role, r) in fact.roles() {
        if variable_roles.contains(&role) {
            out.set(role.to_string(), Role { value: Value::String(format!("?{role}")), is_variable: true });
        } else {
            out.set(role.to_string(), Role { value: r.value.clone(), is_variable: false });
        }
    }
    out
}

/// A variable → constant store used during derivation (§15).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workpad {
    bindings: Bindings,
}

/// A saved state of a [`Workpad`], for backtracking.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkpadSnapshot(Bindings);

impl Workpad {
    /// An empty workpad.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds a variable. Rebinding a bound variable to a different value fails (returns
    /// false and leaves the binding as it was); rebinding to an equal value succeeds.
    pub fn bind(&mut self, var: &str, value: Value) -> bool {
        match self.bindings.get(var) {
            Some(bound) => values_equal(bound, &value),
            None => {
                self.bindings.insert(var.to_string(), value);
                true
            }
        }
    }

    /// The bound value of a variable.
    pub fn resolve(&self, var: &str) -> Option<&Value> {
        self.bindings.get(var)
    }

    /// Replaces bound variables with their constants; unbound variables stay variables.
    pub fn instantiate(&self, sig: &Signature) -> Signature {
        let mut out = Signature::new();
        for (role, r) in sig.roles() {
            let bound = if r.is_variable { r.value.as_str().and_then(|v| self.bindings.get(v)) } else { None };
            let role_value = match bound {
                Some(v) => Role { value: v.clone(), is_variable: false },
                None => r.clone(),
            };
            out.set(role.to_string(), role_value);
        }
        out
    }

    /// Removes all bindings.
    pub fn clear(&mut self) {
        self.bindings.clear();
    }

    /// The current bindings.
    pub fn bindings(&self) -> &Bindings {
        &self.bindings
    }

    /// Saves the bindings.
    pub fn snapshot(&self) -> WorkpadSnapshot {
        WorkpadSnapshot(self.bindings.clone())
    }

    /// Returns to a saved state.
    pub fn restore(&mut self, s: WorkpadSnapshot) {
        self.bindings = s.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sig(v: Value) -> Signature {
        Signature::from_json(&v).unwrap()
    }

    #[test]
    fn typed_equality() {
        assert!(match_pattern(&sig(json!({"object": 15})), &sig(json!({"object": "15"}))).is_none());
        assert!(match_pattern(&sig(json!({"object": true})), &sig(json!({"object": "true"}))).is_none());
        assert!(match_pattern(&sig(json!({"object": 15})), &sig(json!({"object": 15.0}))).is_some());
        assert!(match_pattern(&sig(json!({"recipient": "?y"})), &sig(json!({"subject": "a"}))).is_none(), "missing role");
    }

    #[test]
    fn merge_rules() {
        let a = sig(json!({"subject": "?s", "predicate": "p", "object": "x"}));
        let b = sig(json!({"subject": "alice", "predicate": "p", "extra": 1}));
        let m = merge(&a, &b).unwrap();
        assert_eq!(m.to_json(), json!({"subject": "alice", "predicate": "p", "object": "x", "extra": 1}));
        assert!(!m.get("subject").unwrap().is_variable);
        assert!(merge(&a, &sig(json!({"object": "y"}))).is_none(), "two constants");
        assert!(merge(&a, &sig(json!({"subject": "?t"}))).is_none(), "two variables");
        assert!(merge(&a, &sig(json!({"subject": "?s"}))).is_some(), "the same variable");
    }

    #[test]
    fn canonicalize_and_workpad() {
        let f = sig(json!({"subject": "alice", "predicate": "enters", "object": "room_a"}));
        let c = canonicalize(&f, &["subject", "object"]);
        assert_eq!(c.to_json(), json!({"subject": "?subject", "predicate": "enters", "object": "?object"}));
        let mut w = Workpad::new();
        assert!(w.bind("?x", json!("alice")));
        let snap = w.snapshot();
        assert!(w.bind("?x", json!("alice")));
        assert!(!w.bind("?x", json!("bob")));
        assert!(w.bind("?y", json!(2)));
        w.restore(snap);
        assert_eq!(w.resolve("?y"), None);
        assert_eq!(w.resolve("?x"), Some(&json!("alice")));
        let inst = w.instantiate(&sig(json!({"subject": "?x", "object": "?z"})));
        assert_eq!(inst.to_json(), json!({"subject": "alice", "object": "?z"}));
        assert!(inst.get("object").unwrap().is_variable && !inst.get("subject").unwrap().is_variable);
        w.clear();
        assert!(w.bindings().is_empty());
    }
}
