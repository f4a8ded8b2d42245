//! CPL expression parsing: JSON → [`Expr`], with every load-time check of spec §3.8.
//!
//! Variables resolve to frame slots, predicate names to built-ins or custom predicates, and
//! argument kinds are checked against predicate signatures. Custom-predicate parameters get
//! their kinds inferred from how the body uses them.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};
use warrant_graph::DiscourseType;
use warrant_graph::{json_kind, push_pointer};

use crate::ast::{Arg, Callee, CmpOp, Collection, CustomPredicate, Expr, Kinds, Operand, Quantifier};
use crate::builtins::Builtin;

/// Why a policy or pack cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", if pointer.is_empty() { "/" } else { pointer.as_str() })]
pub struct LoadError {
    /// JSON pointer to the offending value.
    pub pointer: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl LoadError {
    pub(crate) fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        Self { pointer: pointer.into(), message: message.into() }
    }
}

/// A load-time warning (unknown discourse type literal, unregistered verifier, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// JSON pointer to the value.
    pub pointer: String,
    /// What looks wrong.
    pub message: String,
}

/// The nine expression keys, for messages.
const FORMS: &str = "forall, exists, and, or, not, implies, predicate, compare, verifier";

/// Custom predicates visible while parsing: the policy's (if any) shadow the pack's.
#[derive(Clone, Copy)]
pub(crate) struct Visible<'t> {
    pub pack: &'t [CustomPredicate],
    pub policy: &'t [CustomPredicate],
}

impl<'t> Visible<'t> {
    fn lookup(&self, name: &str) -> Option<(Callee, &'t CustomPredicate)> {
        if let Some(i) = self.policy.iter().position(|p| p.name == name) {
            return Some((Callee::PolicyCustom(i), &self.policy[i]));
        }
        self.pack.iter().position(|p| p.name == name).map(|i| (Callee::PackCustom(i), &self.pack[i]))
    }
}

/// Per-expression parsing state.
pub(crate) struct Parser<'t> {
    visible: Visible<'t>,
    /// Bound names in the current frame, innermost last; the index is the slot.
    vars: Vec<(String, Kinds)>,
    /// Number of leading slots that are custom-predicate parameters (kinds inferred).
    params: usize,
    /// Verifier ids this expression uses, directly or through custom predicates.
    pub verifiers: Vec<String>,
    /// Custom predicates this expression calls (for verifier propagation by callers).
    pub warnings: Vec<LoadWarning>,
    /// Verifier ids reachable from each visible custom predicate.
    verifier_map: &'t HashMap<String, Vec<String>>,
}

impl<'t> Parser<'t> {
    pub(crate) fn new(visible: Visible<'t>, verifier_map: &'t HashMap<String, Vec<String>>) -> Self {
        Self { visible, vars: Vec::new(), params: 0, verifiers: Vec::new(), warnings: Vec::new(), verifier_map }
    }

    fn lookup_var(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|(n, _)| n == name)
    }

    /// Narrows what a slot may hold; for quantifier variables checks that it already fits.
    fn require(&mut self, slot: usize, need: Kinds, what: impl FnOnce() -> String, ptr: &str) -> Result<(), LoadError> {
        let (name, have) = self.vars[slot].clone();
        if slot < self.params {
            let narrowed = have.and(need);
            if narrowed == Kinds::NONE {
                return Err(LoadError::new(
                    ptr,
                    format!("parameter '{name}' is used as {} here but as {} elsewhere", need.describe(), have.describe()),
                ));
            }
            self.vars[slot].1 = narrowed;
            return Ok(());
        }
        if have.within(need) {
            Ok(())
        } else {
            Err(LoadError::new(
                ptr,
                format!("{} must be a {}, but '{name}' ranges over {}", what(), need.describe(), plural(have)),
            ))
        }
    }

    /// Parses one expression at `ptr`.
    pub(crate) fn expr(&mut self, v: &Value, ptr: &str) -> Result<Expr, LoadError> {
        let Some(obj) = v.as_object() else {
            return Err(LoadError::new(ptr, format!("expected an expression object with one of {FORMS}, got {}", json_kind(v))));
        };
        if obj.contains_key("predicate") || obj.contains_key("args") {
            return self.call(obj, ptr);
        }
        if obj.len() != 1 {
            let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
            return Err(LoadError::new(
                ptr,
                format!(
                    "an expression has exactly one of {FORMS}; found {}",
                    if keys.is_empty() { "none".into() } else { keys.join(", ") }
                ),
            ));
        }
        let Some((key, body)) = obj.iter().next() else {
            return Err(LoadError::new(ptr, format!("expected one of {FORMS}")));
        };
        let bptr = push_pointer(ptr, key);
        match key.as_str() {
            "forall" => Ok(Expr::Forall(self.quantifier(body, &bptr)?)),
            "exists" => Ok(Expr::Exists(self.quantifier(body, &bptr)?)),
            "and" | "or" => {
                let Some(items) = body.as_array() else {
                    return Err(LoadError::new(&bptr, format!("`{key}` takes an array of at least 2 expressions")));
                };
                if items.len() < 2 {
                    return Err(LoadError::new(&bptr, format!("`{key}` takes at least 2 expressions, got {}", items.len())));
                }
                let parts =
                    items.iter().enumerate().map(|(i, e)| self.expr(e, &format!("{bptr}/{i}"))).collect::<Result<Vec<_>, _>>()?;
                Ok(if key == "and" { Expr::And(parts) } else { Expr::Or(parts) })
            }
            "not" => Ok(Expr::Not(Box::new(self.expr(body, &bptr)?))),
            "implies" => {
                let o = object_with(body, &bptr, &["if", "then"], &[])?;
                let cond = self.expr(&o["if"], &push_pointer(&bptr, "if"))?;
                let then = self.expr(&o["then"], &push_pointer(&bptr, "then"))?;
                Ok(Expr::Implies(Box::new(cond), Box::new(then)))
            }
            "compare" => self.compare(body, &bptr),
            "verifier" => {
                let o = object_with(body, &bptr, &["id", "threshold"], &[])?;
                let Some(id) = o["id"].as_str() else {
                    return Err(LoadError::new(push_pointer(&bptr, "id"), "expected the verifier id as a string"));
                };
                let threshold = o["threshold"]
                    .as_f64()
                    .filter(|t| (0.0..=1.0).contains(t))
                    .ok_or_else(|| LoadError::new(push_pointer(&bptr, "threshold"), "expected a number between 0 and 1"))?;
                if !self.verifiers.iter().any(|v| v == id) {
                    self.verifiers.push(id.to_string());
                }
                Ok(Expr::Verifier { id: id.to_string(), threshold })
            }
            other => Err(LoadError::new(ptr, format!("unknown expression form `{other}` (expected one of {FORMS})"))),
        }
    }

    fn quantifier(&mut self, body: &Value, ptr: &str) -> Result<Quantifier, LoadError> {
        let o = object_with(body, ptr, &["var", "in", "condition"], &[])?;
        let Some(var) = o["var"].as_str() else {
            return Err(LoadError::new(push_pointer(ptr, "var"), "expected the variable name as a string"));
        };
        let Some(coll_name) = o["in"].as_str() else {
            return Err(LoadError::new(push_pointer(ptr, "in"), "expected a collection name as a string"));
        };
        let Some(collection) = Collection::parse(coll_name) else {
            let all: Vec<&str> = Collection::ALL.iter().map(|c| c.name()).collect();
            return Err(LoadError::new(
                push_pointer(ptr, "in"),
                format!("unknown collection \"{coll_name}\" (expected one of {})", all.join(", ")),
            ));
        };
        let slot = self.vars.len();
        self.vars.push((var.to_string(), collection.kind()));
        let cond = self.expr(&o["condition"], &push_pointer(ptr, "condition"));
        self.vars.pop();
        Ok(Quantifier { var: var.to_string(), slot, collection, cond: Box::new(cond?) })
    }

    fn call(&mut self, obj: &Map<String, Value>, ptr: &str) -> Result<Expr, LoadError> {
        check_keys(obj, ptr, &["predicate", "args"], &[])?;
        let o = obj;
        let Some(name) = o["predicate"].as_str() else {
            return Err(LoadError::new(push_pointer(ptr, "predicate"), "expected the predicate name as a string"));
        };
        let aptr = push_pointer(ptr, "args");
        let Some(raw_args) = o["args"].as_array() else {
            return Err(LoadError::new(&aptr, "expected `args` to be an array of strings"));
        };
        let mut args = Vec::with_capacity(raw_args.len());
        for (i, a) in raw_args.iter().enumerate() {
            let Some(s) = a.as_str() else {
                return Err(LoadError::new(
                    format!("{aptr}/{i}"),
                    format!("predicate arguments are strings, got {}", json_kind(a)),
                ));
            };
            args.push(match self.lookup_var(s) {
                Some(slot) => Arg::Var { name: s.to_string(), slot },
                None => Arg::Lit(s.to_string()),
            });
        }
        let (callee, params): (Callee, Vec<Kinds>) = if let Some((callee, def)) = self.visible.lookup(name) {
            if let Some(vs) = self.verifier_map.get(name) {
                for v in vs {
                    if !self.verifiers.contains(v) {
                        self.verifiers.push(v.clone());
                    }
                }
            }
            (callee, def.param_kinds.clone())
        } else if let Some(b) = Builtin::parse(name) {
            (Callee::Builtin(b), b.params().to_vec())
        } else {
            return Err(LoadError::new(
                push_pointer(ptr, "predicate"),
                format!("unknown predicate '{name}' (not a built-in and not a custom predicate in scope)"),
            ));
        };
        if params.len() != args.len() {
            return Err(LoadError::new(&aptr, format!("{name} expects {} argument(s), got {}", params.len(), args.len())));
        }
        for (i, (arg, need)) in args.iter().zip(&params).enumerate() {
            let what = || format!("argument {} of {name}", i + 1);
            let iptr = format!("{aptr}/{i}");
            match arg {
                Arg::Var { slot, .. } => self.require(*slot, *need, what, &iptr)?,
                Arg::Lit(s) => {
                    if !Kinds::LITERAL.within(*need) {
                        return Err(LoadError::new(
                            &iptr,
                            format!(
                                "{} must be a {}, but \"{s}\" is a string literal (no variable of that name is in scope)",
                                what(),
                                need.describe()
                            ),
                        ));
                    }
                    if callee == Callee::Builtin(Builtin::HasDiscourseType) && DiscourseType::parse(s).is_none() {
                        let all: Vec<&str> = DiscourseType::ALL.iter().map(|t| t.as_str()).collect();
                        self.warnings.push(LoadWarning {
                            pointer: iptr.clone(),
                            message: format!(
                                "\"{s}\" is not a discourse act type ({}); the predicate can never be true",
                                all.join(", ")
                            ),
                        });
                    }
                }
            }
        }
        Ok(Expr::Call { name: name.to_string(), callee, args })
    }

    fn compare(&mut self, body: &Value, ptr: &str) -> Result<Expr, LoadError> {
        let o = object_with(body, ptr, &["left", "op", "right"], &[])?;
        let op_ptr = push_pointer(ptr, "op");
        let op = o["op"]
            .as_str()
            .and_then(CmpOp::parse)
            .ok_or_else(|| LoadError::new(&op_ptr, "expected one of ==, !=, <, <=, >, >="))?;
        let left = self.operand(&o["left"], &push_pointer(ptr, "left"))?;
        let right = self.operand(&o["right"], &push_pointer(ptr, "right"))?;
        Ok(Expr::Compare { left, op, right })
    }

    fn operand(&mut self, v: &Value, ptr: &str) -> Result<Operand, LoadError> {
        if let Some(obj) = v.as_object()
            && obj.len() == 1
            && let Some(Value::String(path)) = obj.get("field")
        {
            let mut segs = path.split('.');
            let first = segs.next().unwrap_or("");
            let Some(slot) = self.lookup_var(first) else {
                return Err(LoadError::new(
                    push_pointer(ptr, "field"),
                    format!("field path \"{path}\": '{first}' is not a bound variable"),
                ));
            };
            let name = self.vars[slot].0.clone();
            self.require(slot, Kinds::ANY_NODE, || format!("the field path \"{path}\" ({name})"), &push_pointer(ptr, "field"))?;
            return Ok(Operand::Field { path: path.clone(), slot, segments: segs.map(str::to_string).collect() });
        }
        Ok(Operand::Lit(v.clone()))
    }
}

fn plural(k: Kinds) -> String {
    Collection::ALL.iter().find(|c| c.kind() == k).map_or_else(|| k.describe(), |c| c.name().to_string())
}

/// Checks an object has exactly the required keys (plus optional ones).
pub(crate) fn object_with<'v>(
    v: &'v Value,
    ptr: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<&'v Map<String, Value>, LoadError> {
    let Some(o) = v.as_object() else {
        return Err(LoadError::new(ptr, format!("expected an object with {}, got {}", required.join(", "), json_kind(v))));
    };
    check_keys(o, ptr, required, optional)?;
    Ok(o)
}

/// Checks a map has the required keys and nothing beyond them and the optional ones.
pub(crate) fn check_keys(o: &Map<String, Value>, ptr: &str, required: &[&str], optional: &[&str]) -> Result<(), LoadError> {
    for r in required {
        if !o.contains_key(*r) {
            return Err(LoadError::new(ptr, format!("missing required key `{r}`")));
        }
    }
    for k in o.keys() {
        if !required.contains(&k.as_str()) && !optional.contains(&k.as_str()) {
            return Err(LoadError::new(
                push_pointer(ptr, k),
                format!("unexpected key `{k}` (allowed: {})", [required, optional].concat().join(", ")),
            ));
        }
    }
    Ok(())
}

/// Parses a `custom_predicates` object into definitions in dependency order, rejecting
/// clashes with built-ins, unknown callees and cycles. `outer` is the pack-level table when
/// parsing a policy's own predicates.
pub(crate) fn custom_predicates(
    raw: Option<&Value>,
    ptr: &str,
    outer: &[CustomPredicate],
    verifier_map: &mut HashMap<String, Vec<String>>,
    warnings: &mut Vec<LoadWarning>,
) -> Result<Vec<CustomPredicate>, LoadError> {
    let Some(raw) = raw else { return Ok(Vec::new()) };
    let Some(defs) = raw.as_object() else {
        return Err(LoadError::new(ptr, "expected `custom_predicates` to be an object of name → {params, expression}"));
    };
    // Names are walked sorted (serde_json's map order), so load is deterministic.
    let mut bodies: BTreeMap<&str, (&Value, Vec<String>, String)> = BTreeMap::new();
    for (name, def) in defs {
        let dptr = push_pointer(ptr, name);
        if Builtin::parse(name).is_some() {
            return Err(LoadError::new(&dptr, format!("custom predicate '{name}' clashes with the built-in of the same name")));
        }
        let o = object_with(def, &dptr, &["params", "expression"], &[])?;
        let Some(params) = o["params"].as_array() else {
            return Err(LoadError::new(push_pointer(&dptr, "params"), "expected an array of parameter names"));
        };
        let mut names = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let Some(p) = p.as_str() else {
                return Err(LoadError::new(format!("{}/{i}", push_pointer(&dptr, "params")), "expected a parameter name string"));
            };
            if names.iter().any(|n| n == p) {
                return Err(LoadError::new(
                    format!("{}/{i}", push_pointer(&dptr, "params")),
                    format!("duplicate parameter '{p}'"),
                ));
            }
            names.push(p.to_string());
        }
        bodies.insert(name.as_str(), (&o["expression"], names, push_pointer(&dptr, "expression")));
    }
    // Call edges among this table's own names, from a scan of the raw bodies.
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, (body, _, _)) in &bodies {
        let mut called = Vec::new();
        collect_calls(body, &mut called);
        let mut own: Vec<&str> = called.into_iter().filter_map(|c| bodies.get_key_value(c).map(|(k, _)| *k)).collect();
        own.dedup();
        edges.insert(name, own);
    }
    let order = topo_order(&edges).map_err(|cycle| {
        let first = cycle.first().copied().unwrap_or_default();
        LoadError::new(push_pointer(ptr, first), format!("custom predicates call each other in a cycle: {}", cycle.join(" → ")))
    })?;
    let mut done: Vec<CustomPredicate> = Vec::new();
    for name in order {
        let (body, params, bptr) = &bodies[name];
        let (expr, kinds, verifiers, w) = {
            let visible = Visible {
                pack: if outer.is_empty() { &done } else { outer },
                policy: if outer.is_empty() { &[] } else { &done },
            };
            let mut p = Parser::new(visible, verifier_map);
            p.vars = params.iter().map(|n| (n.clone(), Kinds::ANY)).collect();
            p.params = params.len();
            let expr = p.expr(body, bptr)?;
            let kinds: Vec<Kinds> = p.vars[..params.len()].iter().map(|(_, k)| *k).collect();
            (expr, kinds, p.verifiers, p.warnings)
        };
        warnings.extend(w);
        verifier_map.insert(name.to_string(), verifiers);
        done.push(CustomPredicate { name: name.to_string(), params: params.clone(), param_kinds: kinds, body: expr });
    }
    Ok(done)
}

/// Every predicate name called anywhere inside a raw expression.
fn collect_calls<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::String(n)) = o.get("predicate") {
                out.push(n);
            }
            for x in o.values() {
                collect_calls(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_calls(x, out)),
        _ => {}
    }
}

/// Dependency-first order, or the names on a cycle.
fn topo_order<'n>(edges: &BTreeMap<&'n str, Vec<&'n str>>) -> Result<Vec<&'n str>, Vec<&'n str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Active,
        Done,
    }
    let mut state: BTreeMap<&str, State> = edges.keys().map(|k| (*k, State::New)).collect();
    let mut order = Vec::new();
    for &root in edges.keys() {
        if state[root] != State::New {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = vec![(root, 0)];
        state.insert(root, State::Active);
        while let Some((node, next)) = stack.last().copied() {
            let succ = &edges[node];
            if let Some(&s) = succ.get(next) {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                match state[s] {
                    State::New => {
                        state.insert(s, State::Active);
                        stack.push((s, 0));
                    }
                    State::Active => {
                        let from = stack.iter().position(|(n, _)| *n == s).unwrap_or(0);
                        let mut cycle: Vec<&str> = stack[from..].iter().map(|(n, _)| *n).collect();
                        cycle.push(s);
                        return Err(cycle);
                    }
                    State::Done => {}
                }
            } else {
                state.insert(node, State::Done);
                order.push(node);
                stack.pop();
            }
        }
    }
    Ok(order)
}
