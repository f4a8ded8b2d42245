//! The evaluator: runs parsed packs over a graph and produces [`RunResult`]s (spec §5).
//!
//! Evaluation walks the compiled tree with a slot stack; nothing is re-parsed and the graph
//! is only borrowed. Explanations for violations are computed only for failing rules.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde_json::Value;
use warrant_graph::{PredicateGraph, Severity};

use crate::ast::{Arg, Callee, CmpOp, Collection, CustomPredicate, Expr, Operand, Quantifier};
use crate::builtins::tools::{ToolRegistry, ToolView, ToolsError};
use crate::builtins::{Diag, PredicateConfig, PredicateContext, Val};
use crate::node::NodeRef;
use crate::policy::{Pack, Policy, Rule, dependency_order};
use crate::result::{PackResult, PolicyResult, RunDiagnostic, RunResult, SkippedRule, Violation};
use crate::verifier::{RubricsWithoutJudge, VerifierRegistry};

/// Why a graph could not be evaluated at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// `context.tool_schemas` in the graph is malformed.
    #[error("{0}")]
    ToolSchemas(ToolsError),
    /// Pack dependencies cannot be satisfied.
    #[error("{0}")]
    Dependencies(String),
}

/// Evaluation settings shared by every run.
pub struct Engine {
    /// Warnings fail policies too.
    pub strict: bool,
    /// Tool schemas from `--tools`.
    pub tools: ToolRegistry,
    /// Detector settings.
    pub config: PredicateConfig,
    /// Verifier scores.
    pub verifiers: Box<dyn VerifierRegistry>,
}

impl Default for Engine {
    fn default() -> Self {
        Self {
            strict: false,
            tools: ToolRegistry::new(),
            config: PredicateConfig::default(),
            verifiers: Box::new(RubricsWithoutJudge::default()),
        }
    }
}

impl Engine {
    /// Evaluates `packs` (dependencies first) over `graph`.
    pub fn evaluate(&self, packs: &[Pack], graph: &PredicateGraph) -> Result<RunResult, EvalError> {
        let order = dependency_order(packs).map_err(EvalError::Dependencies)?;
        let mut notes = Vec::new();
        let tools = ToolView::new(graph.context.as_ref(), &self.tools, &mut notes).map_err(EvalError::ToolSchemas)?;
        let mut diagnostics: Vec<RunDiagnostic> = notes
            .into_iter()
            .map(|m| RunDiagnostic { severity: Severity::Info, source: "tools".into(), path: String::new(), message: m })
            .collect();
        diagnostics.extend(tools.warnings().map(|(source, path, message)| RunDiagnostic {
            severity: Severity::Warning,
            source: source.into(),
            path,
            message: message.to_string(),
        }));
        let cx = PredicateContext::new(graph, tools, &self.config);
        let mut results = Vec::with_capacity(order.len());
        let mut scores: BTreeMap<&str, Result<f64, String>> = BTreeMap::new();
        let mut verifier_runs = Vec::new();
        for &i in &order {
            let pack = &packs[i];
            for w in &pack.warnings {
                let (severity, message) = match w.message.strip_prefix("info: ") {
                    Some(m) => (Severity::Info, m.to_string()),
                    None => (Severity::Warning, w.message.clone()),
                };
                diagnostics.push(RunDiagnostic { severity, source: pack.pack_id.clone(), path: w.pointer.clone(), message });
            }
            for id in pack.verifier_ids() {
                scores.entry(id).or_insert_with(|| match self.verifiers.run(id, graph) {
                    Ok((score, run)) => {
                        verifier_runs.extend(run);
                        Ok(score)
                    }
                    Err(u) => Err(u.reason(id)),
                });
            }
            results.push(self.run_pack(pack, &cx, &scores));
        }
        let passed = results.iter().all(|r| r.passed);
        verifier_runs.sort_by(|a: &crate::verifier::VerifierRun, b| a.verifier_id.cmp(&b.verifier_id));
        Ok(RunResult {
            output_id: graph.output_id.clone(),
            passed,
            strict: self.strict,
            packs: results,
            diagnostics,
            verifier_runs,
        })
    }

    fn run_pack(&self, pack: &Pack, cx: &PredicateContext<'_>, scores: &BTreeMap<&str, Result<f64, String>>) -> PackResult {
        let mut policy_results = Vec::with_capacity(pack.policies.len());
        for policy in &pack.policies {
            let mut violations = Vec::new();
            let mut skipped_rules = Vec::new();
            for rule in &policy.rules {
                // A rule that uses an unavailable verifier is skipped as a whole (D13).
                if let Some(reason) = rule.verifiers.iter().find_map(|v| scores.get(v.as_str()).and_then(|s| s.as_ref().err())) {
                    skipped_rules.push(SkippedRule { rule_id: rule.rule_id.clone(), reason: reason.clone() });
                    continue;
                }
                let mut m = Machine { cx, pack, policy, stack: Vec::with_capacity(8), base: 0, scores };
                m.run_rule(rule, &mut violations);
            }
            let passed =
                !violations.iter().any(|v| v.severity == Severity::Error || (self.strict && v.severity == Severity::Warning));
            policy_results.push(PolicyResult { policy_id: policy.policy_id.clone(), passed, violations, skipped_rules });
        }
        PackResult { pack_id: pack.pack_id.clone(), passed: policy_results.iter().all(|p| p.passed), policy_results }
    }
}

/// How a failing (or, under `not`, holding) expression is explained.
struct Explanation {
    text: String,
    diagnostics: Vec<String>,
}

struct Machine<'a, 'c> {
    cx: &'c PredicateContext<'a>,
    pack: &'a Pack,
    policy: &'a Policy,
    stack: Vec<Val<'a>>,
    base: usize,
    scores: &'c BTreeMap<&'c str, Result<f64, String>>,
}

fn node_at(g: &PredicateGraph, c: Collection, i: usize) -> Option<NodeRef<'_>> {
    Some(match c {
        Collection::Entities => NodeRef::Entity(i, g.entities.get(i)?),
        Collection::Claims => NodeRef::Claim(i, g.claims.get(i)?),
        Collection::Operations => NodeRef::Operation(i, g.operations.get(i)?),
        Collection::ToolCalls => NodeRef::ToolCall(i, g.tool_calls.get(i)?),
        Collection::Citations => NodeRef::Citation(i, g.citations.get(i)?),
        Collection::CodeBlocks => NodeRef::CodeBlock(i, g.code_blocks.get(i)?),
        Collection::DiscourseActs => NodeRef::DiscourseAct(i, g.discourse_acts.get(i)?),
    })
}

impl<'a, 'c> Machine<'a, 'c> {
    fn graph(&self) -> &'a PredicateGraph {
        self.cx.graph
    }

    fn custom(&self, callee: Callee) -> Option<&'a CustomPredicate> {
        match callee {
            Callee::PackCustom(i) => self.pack.predicates.get(i),
            Callee::PolicyCustom(i) => self.policy.predicates.get(i),
            Callee::Builtin(_) => None,
        }
    }

    fn run_rule(&mut self, rule: &'a Rule, out: &mut Vec<Violation>) {
        let violation = |node: Option<&str>, e: Explanation| {
            let mut message =
                format!("{}/{} failed on {}: {}", self.policy.policy_id, rule.rule_id, node.unwrap_or("graph"), e.text);
            for d in &e.diagnostics {
                message.push_str("; ");
                message.push_str(d);
            }
            Violation {
                rule_id: rule.rule_id.clone(),
                node_id: node.map(str::to_string),
                message,
                severity: rule.severity,
                diagnostics: e.diagnostics,
            }
        };
        if let Expr::Forall(q) = &rule.expr {
            let g = self.graph();
            let mut i = 0;
            while let Some(n) = node_at(g, q.collection, i) {
                self.stack.push(Val::Node(n));
                if !self.eval(&q.cond) {
                    let e = self.explain(&q.cond, false);
                    out.push(violation(Some(n.id()), e));
                }
                self.stack.pop();
                i += 1;
            }
        } else if !self.eval(&rule.expr) {
            let e = self.explain(&rule.expr, false);
            out.push(violation(None, e));
        }
    }

    fn quantify(&mut self, q: &'a Quantifier, want: bool) -> Option<NodeRef<'a>> {
        let g = self.graph();
        let mut i = 0;
        while let Some(n) = node_at(g, q.collection, i) {
            self.stack.push(Val::Node(n));
            let r = self.eval(&q.cond);
            self.stack.pop();
            if r == want {
                return Some(n);
            }
            i += 1;
        }
        None
    }

    fn eval(&mut self, e: &'a Expr) -> bool {
        match e {
            Expr::Forall(q) => self.quantify(q, false).is_none(),
            Expr::Exists(q) => self.quantify(q, true).is_some(),
            Expr::And(xs) => xs.iter().all(|x| self.eval(x)),
            Expr::Or(xs) => xs.iter().any(|x| self.eval(x)),
            Expr::Not(x) => !self.eval(x),
            Expr::Implies(a, b) => !self.eval(a) || self.eval(b),
            Expr::Call { callee, args, .. } => self.call(*callee, args, &mut Diag::none()),
            Expr::Compare { left, op, right } => self.compare(left, *op, right).0,
            Expr::Verifier { id, threshold } => matches!(self.scores.get(id.as_str()), Some(Ok(s)) if *s >= *threshold),
        }
    }

    fn arg(&self, a: &'a Arg) -> Val<'a> {
        match a {
            Arg::Var { slot, .. } => self.stack.get(self.base + slot).copied().unwrap_or(Val::Lit("")),
            Arg::Lit(s) => Val::Lit(s),
        }
    }

    fn call(&mut self, callee: Callee, args: &'a [Arg], diag: &mut Diag<'_>) -> bool {
        if let Callee::Builtin(b) = callee {
            let mut buf = [Val::Lit(""); 4];
            let vals: Cow<'_, [Val<'a>]> = if args.len() <= buf.len() {
                for (slot, a) in buf.iter_mut().zip(args) {
                    *slot = self.arg(a);
                }
                Cow::Borrowed(&buf[..args.len()])
            } else {
                Cow::Owned(args.iter().map(|a| self.arg(a)).collect())
            };
            return b.eval(&vals, self.cx, diag);
        }
        let Some(def) = self.custom(callee) else { return false };
        self.in_frame(args, |ev| ev.eval(&def.body))
    }

    /// Runs `f` with the call's arguments as the current frame, then pops it.
    fn in_frame<T>(&mut self, args: &'a [Arg], f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.base;
        let new_base = self.stack.len();
        for a in args {
            let v = self.arg(a);
            self.stack.push(v);
        }
        self.base = new_base;
        let r = f(self);
        self.stack.truncate(new_base);
        self.base = saved;
        r
    }

    fn operand(&self, o: &'a Operand) -> Result<Cow<'a, Value>, String> {
        match o {
            Operand::Lit(v) => Ok(Cow::Borrowed(v)),
            Operand::Field { path, slot, segments } => match self.stack.get(self.base + slot) {
                Some(Val::Node(n)) if segments.is_empty() => Ok(Cow::Owned(Value::String(n.id().to_string()))),
                Some(Val::Node(n)) => n.resolve(segments).ok_or_else(|| format!("field \"{path}\" not found")),
                _ => Err(format!("field \"{path}\" not found")),
            },
        }
    }

    /// (outcome, diagnostic)
    fn compare(&self, left: &'a Operand, op: CmpOp, right: &'a Operand) -> (bool, Option<String>) {
        let (l, r) = match (self.operand(left), self.operand(right)) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => return (false, Some(e)),
        };
        match op {
            CmpOp::Eq => (json_eq(&l, &r), None),
            CmpOp::Ne => (!json_eq(&l, &r), None),
            _ => {
                let ord = match (&*l, &*r) {
                    (Value::Number(a), Value::Number(b)) => num_cmp(a, b),
                    (Value::String(a), Value::String(b)) => Some(a.as_str().cmp(b.as_str())),
                    _ => None,
                };
                let Some(ord) = ord else {
                    return (false, Some(format!("cannot order {} and {}", type_name(&l), type_name(&r))));
                };
                let ok = match op {
                    CmpOp::Lt => ord == Ordering::Less,
                    CmpOp::Le => ord != Ordering::Greater,
                    CmpOp::Gt => ord == Ordering::Greater,
                    _ => ord != Ordering::Less,
                };
                (ok, None)
            }
        }
    }

    // ---- explanations (failing rules only) ----

    fn render_arg(&self, a: &Arg) -> String {
        match a {
            Arg::Var { name, slot } => match self.stack.get(self.base + slot) {
                Some(Val::Node(n)) => n.id().to_string(),
                Some(Val::Lit(s)) => json_string(s),
                None => name.clone(),
            },
            Arg::Lit(s) => json_string(s),
        }
    }

    fn render_operand(&self, o: &Operand) -> String {
        match o {
            Operand::Lit(v) => v.to_string(),
            Operand::Field { path, slot, segments } => match self.stack.get(self.base + slot) {
                Some(Val::Node(n)) => {
                    std::iter::once(n.id()).chain(segments.iter().map(String::as_str)).collect::<Vec<_>>().join(".")
                }
                _ => path.clone(),
            },
        }
    }

    /// The leftmost atom of an expression, rendered with the current bindings.
    fn render_atom(&self, e: &Expr) -> String {
        match e {
            Expr::Forall(q) | Expr::Exists(q) => self.render_atom(&q.cond),
            Expr::And(xs) | Expr::Or(xs) => xs.first().map(|x| self.render_atom(x)).unwrap_or_default(),
            Expr::Not(x) => self.render_atom(x),
            Expr::Implies(a, _) => self.render_atom(a),
            Expr::Call { name, args, .. } => {
                format!("{name}({})", args.iter().map(|a| self.render_arg(a)).collect::<Vec<_>>().join(", "))
            }
            Expr::Compare { left, op, right } => {
                format!("{} {} {}", self.render_operand(left), op.as_str(), self.render_operand(right))
            }
            Expr::Verifier { id, threshold } => match self.scores.get(id.as_str()) {
                Some(Ok(s)) => format!("verifier {id} score {s} >= {threshold}"),
                _ => format!("verifier {id} >= {threshold}"),
            },
        }
    }

    /// Explains why `e` evaluates to `truth` (false for a violation; true under `not`).
    fn explain(&mut self, e: &'a Expr, truth: bool) -> Explanation {
        let atom = |text: String, diagnostics: Vec<String>| Explanation { text, diagnostics };
        match e {
            Expr::Call { callee, args, .. } => {
                let mut diags = Vec::new();
                self.call(*callee, args, &mut Diag::collect(&mut diags));
                if let Some(def) = self.custom(*callee) {
                    // Name the custom call, and say which atom inside it decided.
                    let inner = self.in_frame(args, |ev| ev.explain(&def.body, truth));
                    diags.push(inner.text);
                    diags.extend(inner.diagnostics);
                }
                atom(format!("{} is {truth}", self.render_atom(e)), diags)
            }
            Expr::Compare { left, op, right } => {
                let (_, d) = self.compare(left, *op, right);
                atom(format!("{} is {truth}", self.render_atom(e)), d.into_iter().collect())
            }
            Expr::Verifier { .. } => atom(format!("{} is {truth}", self.render_atom(e)), Vec::new()),
            Expr::Not(x) => self.explain(x, !truth),
            Expr::And(xs) | Expr::Or(xs) => {
                // and/false and or/true: the first operand with that value; otherwise the first.
                let decisive = matches!(e, Expr::And(_)) != truth;
                let pick = if decisive { xs.iter().find(|x| self.eval(x) == truth) } else { None };
                match pick.or(xs.first()) {
                    Some(x) => self.explain(x, truth),
                    None => atom(String::new(), Vec::new()),
                }
            }
            Expr::Implies(a, b) => {
                if truth && !self.eval(a) {
                    self.explain(a, false)
                } else {
                    self.explain(b, truth)
                }
            }
            Expr::Forall(q) | Expr::Exists(q) => {
                let is_forall = matches!(e, Expr::Forall(_));
                // forall/false and exists/true have a witness; the other two hold for all.
                if is_forall != truth {
                    if let Some(n) = self.quantify(q, !is_forall) {
                        self.stack.push(Val::Node(n));
                        let inner = self.explain(&q.cond, truth);
                        self.stack.pop();
                        return inner;
                    }
                    return atom(String::new(), Vec::new());
                }
                let what = if is_forall { "every" } else { "no" };
                atom(format!("{what} element of {} satisfies {}", q.collection.name(), self.render_atom(&q.cond)), Vec::new())
            }
        }
    }
}

fn json_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn num_cmp(a: &serde_json::Number, b: &serde_json::Number) -> Option<Ordering> {
    use warrant_text::Decimal;
    match (Decimal::parse(&a.to_string()), Decimal::parse(&b.to_string())) {
        (Ok(x), Ok(y)) => Some(x.value().cmp(y.value())),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality with numbers compared by exact value (`1 == 1.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => num_cmp(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}
