//! Answering a plan: retrieval and ranking (§9), goal choice (§11.2), backward chaining
//! (§11.3), conflict checks (§10) and answer assembly (§12).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;
use warrant_facts::{ArgType, Cardinality, Fact, Object, Polarity, Vocabulary, normalize_version};
use warrant_facts::{Bindings, Role, Signature, is_variable, match_with};
use warrant_store::{FactQuery, Store, StoreError};

use crate::conflict::{condition_key, conflict_key, fact_value, minimal_pairs, norm_value};
use crate::contract::{Answer, ChainEntry, ChainRole, Conflict, Verdict, conclusion_fact, derived_fact};
use crate::plan::{Goal, QueryPlan};
use crate::rules::{Rule, RuleLibrary, RulePattern, object_text};

/// Limits of one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskOptions {
    /// Evidence facts used in artefacts (`limitFacts`, default 20).
    pub limit_facts: usize,
    /// Chunks listed in `chunksUsed` (`limitChunks`, default 5).
    pub limit_chunks: usize,
    /// Derivation depth bound (default 5).
    pub max_depth: usize,
    /// Facts read per sub-goal lookup (default 10,000): a bound on patterns with no
    /// constant subject or object.
    pub max_matches: usize,
    /// Rule applications per answer (default 100,000): derivation always terminates, and
    /// never runs away on a dense graph.
    pub max_steps: usize,
}

impl Default for AskOptions {
    fn default() -> Self {
        Self { limit_facts: 20, limit_chunks: 5, max_depth: 5, max_matches: 10_000, max_steps: 100_000 }
    }
}

/// Versions compared after D22 normalisation (one leading `v`/`V` dropped), and — project
/// rule, so that "in version 2" finds facts of "2.0" — with trailing `.0` components
/// ignored: `v2.0` = `2.0` = `2` = `2.0.0`, while `2.1` ≠ `2.10`.
pub fn versions_equal(a: &str, b: &str) -> bool {
    let (a, b) = (normalize_version(a.trim()), normalize_version(b.trim()));
    if a == b {
        return true;
    }
    let parts = |s: &str| -> Vec<String> {
        let mut p: Vec<String> = s
            .split('.')
            .map(|c| {
                if c.bytes().all(|b| b.is_ascii_digit()) && !c.is_empty() {
                    c.trim_start_matches('0').to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        while p.len() > 1 && p.last().is_some_and(String::is_empty) {
            p.pop();
        }
        p
    };
    parts(a) == parts(b)
}

/// A solution of a goal: the (stored or derived) fact's roles and its proof.
#[derive(Debug, Clone)]
struct Sol {
    sig: Signature,
    proof: Rc<Proof>,
}

impl Sol {
    fn get(&self, role: &str) -> Option<&Value> {
        self.sig.get(role).map(|r| &r.value)
    }

    fn key(&self) -> String {
        format!(
            "{}\u{1f}{}",
            self.get("subject").map(Value::to_string).unwrap_or_default(),
            self.get("object").map(Value::to_string).unwrap_or_default()
        )
    }
}

#[derive(Debug)]
enum Proof {
    Premise(Rc<Fact>),
    Derived { rule: usize, subject: Value, predicate: String, object: Value, children: Vec<Rc<Proof>> },
}

/// Answers plans and questions over a store.
pub struct Answerer<'s> {
    store: &'s dyn Store,
    vocab: Vocabulary,
    rules: RuleLibrary,
    planner: crate::planner::Planner,
    matcher: crate::matcher::Matcher,
    opts: AskOptions,
}

impl std::fmt::Debug for Answerer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answerer").field("rules", &self.rules.rules().len()).field("opts", &self.opts).finish_non_exhaustive()
    }
}

impl<'s> Answerer<'s> {
    /// An answerer with the default vocabulary, rule library and limits.
    pub fn new(store: &'s dyn Store) -> Self {
        let vocab = Vocabulary::builtin();
        Self::with(store, vocab.clone(), RuleLibrary::builtin(), AskOptions::default())
    }

    /// An answerer with the given vocabulary, rules and limits.
    pub fn with(store: &'s dyn Store, vocab: Vocabulary, rules: RuleLibrary, opts: AskOptions) -> Self {
        let planner = crate::planner::Planner::builtin(&vocab);
        Self { store, vocab, rules, planner, matcher: crate::matcher::Matcher::new(), opts }
    }

    /// The vocabulary.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocab
    }

    /// The rule library.
    pub fn rules(&self) -> &RuleLibrary {
        &self.rules
    }

    /// Plans a natural-language question (§8.3).
    pub fn plan(&self, question: &str) -> Result<QueryPlan, StoreError> {
        Ok(self.plan_question(question)?.plan)
    }

    /// Plans a question, keeping what planning read on the way for [`Self::answer_planned`]:
    /// a version named by what it did ("in the Lumen release that enabled …") is looked up
    /// once.
    pub fn plan_question(&self, question: &str) -> Result<PlannedQuestion, StoreError> {
        let relative = self.matcher.relative_version(question, self.store)?;
        let body = relative.as_ref().map_or(question, |r| r.body.as_str());
        let mut plan = self.planner.plan(body, self.store, &self.vocab, &self.rules)?;
        if let Some((v, _)) = relative.as_ref().and_then(|r| r.version.as_ref()) {
            plan.version = Some(v.clone());
        }
        Ok(PlannedQuestion { plan, question: question.to_string(), relative })
    }

    /// Plans and answers a question. When the templates and rules find no answer, the
    /// question is matched to the stored fact that explains all its words (see `matcher`).
    pub fn ask(&self, question: &str) -> Result<Answer, StoreError> {
        self.answer_planned(&self.plan_question(question)?)
    }

    /// Answers a planned question (its plan's version possibly overridden); when the plan
    /// finds no answer, by the stored fact that explains all the question's words.
    pub fn answer_planned(&self, planned: &PlannedQuestion) -> Result<Answer, StoreError> {
        let (plan, relative) = (&planned.plan, &planned.relative);
        let question = match relative {
            Some(r) if r.version.is_none() && plan.version.is_none() => {
                return Ok(Answer::unsupported(
                    plan.to_json(),
                    vec!["the question names a version by what it did, and no single version's documents state that".into()],
                ));
            }
            Some(r) => r.body.as_str(),
            None => planned.question.as_str(),
        };
        // The fact that identified the version ("… that enabled OAuth device flow") is part of
        // the answer's evidence.
        let version_fact = relative.as_ref().and_then(|r| r.version.as_ref()).map(|(_, f)| f);
        let mut answer = self.answer(plan)?;
        if let (Verdict::Supported, Some(f)) = (answer.verdict, version_fact) {
            add_bridge(&mut answer, f, self.opts.limit_chunks);
        }
        if plan.predicates.is_none() && plan.goal.is_none() {
            answer.diagnostics.insert(0, "no question template or predicate pattern matches the question".into());
        }
        if answer.verdict != Verdict::Unsupported || plan.params.is_some() {
            return Ok(answer);
        }
        let (_, body) = self.planner.version_and_body(question);
        match self.matcher.match_question(&body, plan.version.as_deref(), self.store, &self.vocab)? {
            Ok(m) => {
                let matched = QueryPlan {
                    version: plan.version.clone(),
                    subjects: m.goal.constant_subject().map(|s| vec![s.to_string()]),
                    predicates: Some(vec![m.goal.predicate.clone()]),
                    goal: Some(m.goal.clone()),
                    ..QueryPlan::default()
                };
                let mut second = self.answer(&matched)?;
                if let (Verdict::Supported, Some(bridge)) = (second.verdict, &m.bridge) {
                    add_bridge(&mut second, bridge, self.opts.limit_chunks);
                }
                if let (Verdict::Supported, Some(f)) = (second.verdict, version_fact) {
                    add_bridge(&mut second, f, self.opts.limit_chunks);
                }
                if second.verdict != Verdict::Unsupported {
                    return Ok(second);
                }
                answer.diagnostics.extend(second.diagnostics);
            }
            Err(r) => answer.diagnostics.push(format!("matcher: {}", r.reason)),
        }
        Ok(answer)
    }

    /// Answers a plan (supplied or planned). Never guesses: anything short of a proof whose
    /// facts agree is `unsupported` or `conflicting`, with diagnostics.
    pub fn answer(&self, plan: &QueryPlan) -> Result<Answer, StoreError> {
        let mut cx = Cx::new(self, plan);
        let out = cx.run()?;
        Ok(out)
    }

    /// Predicates a plan's goal may use: vocabulary predicates and those rules conclude.
    pub fn knows_predicate(&self, predicate: &str) -> bool {
        self.vocab.contains(predicate) || self.rules.concludes(predicate)
    }
}

/// A question with its plan (`plan` may be changed, e.g. its version overridden) and what
/// planning read on the way.
#[derive(Debug, Clone)]
pub struct PlannedQuestion {
    /// The plan.
    pub plan: QueryPlan,
    question: String,
    relative: Option<crate::matcher::Relative>,
}

/// Puts the fact that linked the question to the answer's subject ("the paging tool" is
/// Beacon) into a supported answer: a premise first in the chain, cited by the conclusion, its
/// chunk first in `chunksUsed`, its confidence bounding the conclusion's score.
fn add_bridge(answer: &mut Answer, bridge: &Fact, limit_chunks: usize) {
    if answer.fact_chain.iter().any(|e| e.fact_id == bridge.id) {
        return;
    }
    answer.fact_chain.insert(0, ChainEntry { fact_id: bridge.id.clone(), role: ChainRole::Premise, fact: bridge.to_json(true) });
    answer.support_scores.insert(bridge.id.clone(), warrant_facts::confidence_json(bridge.confidence));
    if let Some(c) = answer.fact_chain.iter_mut().find(|e| e.role == ChainRole::Conclusion) {
        if let Some(Value::Array(from)) = c.fact.get_mut("from") {
            from.insert(0, Value::String(bridge.id.clone()));
        }
        let score = answer.support_scores.get(&c.fact_id).and_then(Value::as_f64).unwrap_or(1.0).min(bridge.confidence);
        answer.support_scores.insert(c.fact_id.clone(), warrant_facts::confidence_json(score));
    }
    if !answer.chunks_used.contains(&bridge.source.chunk_id) {
        answer.chunks_used.insert(0, bridge.source.chunk_id.clone());
        answer.chunks_used.truncate(limit_chunks.max(1));
    }
    answer.diagnostics.push(format!("linked by {}({}) of {}", bridge.predicate, bridge.subject, bridge.source.chunk_id));
}

/// The state of one answer.
struct Cx<'a, 's> {
    a: &'a Answerer<'s>,
    plan: &'a QueryPlan,
    params: BTreeMap<String, Value>,
    goal_predicate: Option<String>,
    goal_subject: Option<String>,
    memo: HashMap<String, Rc<Vec<Sol>>>,
    /// Ranked direct matches per pattern, shared by every depth that meets the pattern.
    direct: HashMap<String, Rc<Vec<Fact>>>,
    /// Store reads per normalised pattern.
    fetched: HashMap<String, Rc<Vec<Fact>>>,
    diags: BTreeSet<String>,
    steps: usize,
}

/// Canonical memo key of a goal: roles in order, variables renamed by first appearance.
fn goal_key(goal: &Signature, depth: usize) -> String {
    let mut vars: Vec<String> = Vec::new();
    let mut key = format!("{depth}");
    for (role, r) in goal.roles() {
        key.push('|');
        key.push_str(role);
        key.push('=');
        if r.is_variable {
            let name = r.value.as_str().unwrap_or_default().to_string();
            let i = vars.iter().position(|v| *v == name).unwrap_or_else(|| {
                vars.push(name);
                vars.len() - 1
            });
            key.push_str(&format!("?{i}"));
        } else {
            key.push_str(&r.value.to_string());
        }
    }
    key
}

fn instantiate(p: &RulePattern, b: &Bindings) -> Signature {
    let mut s = Signature::new();
    let mut put = |role: &str, v: &Value| {
        let bound = if is_variable(v) { v.as_str().and_then(|n| b.get(n)) } else { None };
        match bound {
            Some(c) => s.set(role.into(), Role { value: c.clone(), is_variable: false }),
            None => s.set(role.into(), Role { value: v.clone(), is_variable: is_variable(v) }),
        }
    };
    put("subject", &p.subject);
    put("predicate", &Value::String(p.predicate.clone()));
    put("object", &p.object);
    for (k, v) in &p.qualifiers {
        put(k, v);
    }
    s
}

fn constant<'v>(s: &'v Signature, role: &str) -> Option<&'v Value> {
    s.get(role).filter(|r| !r.is_variable).map(|r| &r.value)
}

impl<'a, 's> Cx<'a, 's> {
    fn new(a: &'a Answerer<'s>, plan: &'a QueryPlan) -> Self {
        Self {
            a,
            plan,
            params: plan.params(),
            goal_predicate: None,
            goal_subject: None,
            memo: HashMap::new(),
            direct: HashMap::new(),
            fetched: HashMap::new(),
            diags: BTreeSet::new(),
            steps: 0,
        }
    }

    fn store(&self) -> &'s dyn Store {
        self.a.store
    }

    fn plan_json(&self) -> Value {
        self.plan.to_json()
    }

    fn unsupported(&mut self, reason: impl Into<String>) -> Answer {
        self.diags.insert(reason.into());
        Answer::unsupported(self.plan_json(), self.diags.iter().cloned().collect())
    }

    fn version_ok(&self, f: &Fact) -> bool {
        match &self.plan.version {
            None => true,
            Some(v) => f.version().is_some_and(|fv| versions_equal(&fv, v)),
        }
    }

    /// §9 rank key (without source order, which comes from the store or positions).
    fn rank_key(&self, f: &Fact) -> (bool, bool) {
        let pred = self.plan.predicate_list().contains(&f.predicate) || self.goal_predicate.as_deref() == Some(&f.predicate);
        let subj = self.plan.subject_list().contains(&f.subject) || self.goal_subject.as_deref() == Some(&f.subject);
        (!pred, !subj)
    }

    /// Sorts facts by rank. `facts` must already be in source order, or `merged` must be true
    /// so that source positions are read from the store.
    fn rank(&self, facts: &mut [Fact], merged: bool) -> Result<(), StoreError> {
        if merged && facts.len() > 1 {
            let ids: Vec<&str> = facts.iter().map(|f| f.id.as_str()).collect();
            let pos = self.store().fact_positions(&ids)?;
            facts.sort_by(|a, b| pos.get(&a.id).cmp(&pos.get(&b.id)));
        }
        facts.sort_by(|a, b| self.rank_key(a).cmp(&self.rank_key(b)).then(b.confidence.total_cmp(&a.confidence)));
        Ok(())
    }

    /// Stored facts matching a pattern (subject, predicate, object and qualifier roles), of
    /// the plan's version, in source order; at most `max_matches`.
    fn matches(&mut self, pattern: &Signature, affirm_only: bool) -> Result<Vec<Fact>, StoreError> {
        // One store read per distinct pattern and answer; a variable used once constrains
        // nothing, so `{s, p, ?answer}` shares the read of `{s, p}` (and of its conflict group).
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for (_, r) in pattern.roles() {
            if let (true, Some(v)) = (r.is_variable, r.value.as_str()) {
                *uses.entry(v).or_default() += 1;
            }
        }
        let mut key = String::new();
        for (role, r) in pattern.roles() {
            let single = r.is_variable && r.value.as_str().is_some_and(|v| uses.get(v) == Some(&1));
            if !single {
                key.push_str(&format!("{role}={}{}|", if r.is_variable { "?" } else { "" }, r.value));
            }
        }
        let all = match self.fetched.get(&key) {
            Some(f) => f.clone(),
            None => {
                let f = Rc::new(self.fetch(pattern)?);
                self.fetched.insert(key, f.clone());
                f
            }
        };
        Ok(all.iter().filter(|f| !affirm_only || f.polarity == Polarity::Affirm).cloned().collect())
    }

    /// Reads the facts matching a pattern from the store (all polarities).
    fn fetch(&mut self, pattern: &Signature) -> Result<Vec<Fact>, StoreError> {
        let mut q = FactQuery::default();
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        if let Some(v) = constant(pattern, "subject") {
            match v.as_str() {
                Some(s) => q.subject = Some(s.into()),
                None => return Ok(Vec::new()),
            }
        }
        q.predicate = text(constant(pattern, "predicate"));
        if let Some(v) = constant(pattern, "object") {
            match Object::from_json(v) {
                Some(o) => q.object = Some(o),
                None => return Ok(Vec::new()),
            }
        }
        // A version role is a filter compared like the plan's version.
        let mut pattern = pattern.clone();
        let version_role = constant(&pattern, "version").map(object_text);
        if version_role.is_some() {
            let rest: Vec<(String, Role)> =
                pattern.roles().filter(|(k, _)| *k != "version").map(|(k, r)| (k.to_string(), r.clone())).collect();
            pattern = Signature::new();
            for (k, r) in rest {
                pattern.set(k, r);
            }
        }
        let max = self.a.opts.max_matches;
        let mut out = Vec::new();
        let mut truncated = false;
        self.store().visit_facts(&q, &mut |f| {
            if !self.version_ok(&f) {
                return true;
            }
            if let Some(v) = &version_role
                && !f.version().is_some_and(|fv| versions_equal(&fv, v))
            {
                return true;
            }
            let sig = Signature::of_fact(&f);
            if match_with(&pattern, |role| sig.get(role).map(|r| &r.value), Bindings::new()).is_some() {
                out.push(f);
                if out.len() >= max {
                    truncated = true;
                    return false;
                }
            }
            true
        })?;
        if truncated {
            self.diags.insert(format!("lookup truncated at {max} facts"));
        }
        Ok(out)
    }

    /// `derive(goal, depth)` (§11.3): direct support first (ranked), then each rule whose
    /// head unifies, in library order, solving bodies depth-first. Solutions are distinct
    /// (subject, object) pairs in proof order; results are memoised per goal and depth.
    fn derive(&mut self, goal: &Signature, depth: usize) -> Result<Rc<Vec<Sol>>, StoreError> {
        if depth == 0 {
            return Ok(Rc::new(Vec::new()));
        }
        let key = goal_key(goal, depth);
        if let Some(m) = self.memo.get(&key) {
            return Ok(m.clone());
        }
        let mut out: Vec<Sol> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let direct_key = goal_key(goal, 0);
        let direct = match self.direct.get(&direct_key) {
            Some(d) => d.clone(),
            None => {
                let mut d = self.matches(goal, true)?;
                self.rank(&mut d, false)?;
                let d = Rc::new(d);
                self.direct.insert(direct_key, d.clone());
                d
            }
        };
        for f in direct.iter() {
            let sol = Sol { sig: Signature::of_fact(f), proof: Rc::new(Proof::Premise(Rc::new(f.clone()))) };
            if seen.insert(sol.key()) {
                out.push(sol);
            }
        }
        let predicate = constant(goal, "predicate").and_then(Value::as_str).unwrap_or_default().to_string();
        let a = self.a;
        let rules: Vec<usize> = a.rules.for_head(&predicate).map(|(i, _)| i).collect();
        for ri in rules {
            let rule = &a.rules.rules()[ri];
            self.steps += 1;
            if self.steps > self.a.opts.max_steps {
                self.diags.insert(format!("derivation stopped after {} rule applications", self.a.opts.max_steps));
                break;
            }
            let Some(bindings) = unify_head(&rule.head, goal) else { continue };
            if let Some(p) = rule.params.iter().find(|p| !self.params.contains_key(&p.name)) {
                self.diags.insert(format!("{}: missing_param:{}", rule.id, p.name));
                continue;
            }
            let mut results = Vec::new();
            let mut done = vec![false; rule.body.len()];
            let children = vec![None; rule.body.len()];
            self.solve_body(rule, &mut done, bindings, children, depth, &mut results)?;
            for (mut b, children) in results {
                if let Some(c) = &rule.compute {
                    match c.evaluate(&b, &self.params) {
                        Ok(v) => {
                            b.insert(c.bind.clone(), Value::Bool(v));
                        }
                        Err(code) => {
                            self.diags.insert(format!("{}: {code}", rule.id));
                            continue;
                        }
                    }
                }
                let resolve = |v: &Value| -> Option<Value> {
                    if is_variable(v) { v.as_str().and_then(|n| b.get(n)).cloned() } else { Some(v.clone()) }
                };
                let (Some(subject), Some(object)) = (resolve(&rule.head.subject), resolve(&rule.head.object)) else { continue };
                if !rule.applies_to(&subject) {
                    self.diags.insert(format!("{}: does not apply to {}", rule.id, object_text(&subject)));
                    continue;
                }
                let mut sig = Signature::new()
                    .with("subject", subject.clone())
                    .with("predicate", rule.head.predicate.clone())
                    .with("object", object.clone());
                // Derived values are constants even when they look like variables.
                for role in ["subject", "object"] {
                    if let Some(r) = sig.get(role).cloned() {
                        sig.set(role.into(), Role { value: r.value, is_variable: false });
                    }
                }
                if let Some(v) = &self.plan.version {
                    sig.set("version".into(), Role { value: Value::String(v.clone()), is_variable: false });
                }
                let goal_roles: Vec<(String, Role)> =
                    goal.roles().filter(|(k, _)| *k != "version").map(|(k, r)| (k.to_string(), r.clone())).collect();
                let mut g = Signature::new();
                for (k, r) in goal_roles {
                    g.set(k, r);
                }
                if match_with(&g, |role| sig.get(role).map(|r| &r.value), Bindings::new()).is_none() {
                    continue;
                }
                let sol = Sol {
                    sig,
                    proof: Rc::new(Proof::Derived {
                        rule: ri,
                        subject,
                        predicate: rule.head.predicate.clone(),
                        object,
                        children,
                    }),
                };
                if seen.insert(sol.key()) {
                    out.push(sol);
                }
            }
        }
        let out = Rc::new(out);
        self.memo.insert(key, out.clone());
        Ok(out)
    }

    /// Solves a rule body depth-first: left to right, except that a sub-goal with neither
    /// subject nor object bound waits until another binds one (conjunctions commute, and
    /// this keeps every lookup on an index).
    fn solve_body(
        &mut self,
        rule: &Rule,
        done: &mut [bool],
        bindings: Bindings,
        children: Vec<Option<Rc<Proof>>>,
        depth: usize,
        out: &mut Vec<(Bindings, Vec<Rc<Proof>>)>,
    ) -> Result<(), StoreError> {
        let bound = |p: &RulePattern| -> bool {
            let is_bound = |v: &Value| !is_variable(v) || v.as_str().is_some_and(|n| bindings.contains_key(n));
            is_bound(&p.subject) || is_bound(&p.object)
        };
        let next =
            (0..rule.body.len()).find(|&j| !done[j] && bound(&rule.body[j])).or_else(|| (0..rule.body.len()).find(|&j| !done[j]));
        let Some(j) = next else {
            out.push((bindings, children.into_iter().flatten().collect()));
            return Ok(());
        };
        let pattern = &rule.body[j];
        let sub = instantiate(pattern, &bindings);
        let sols = self.derive(&sub, depth - 1)?;
        done[j] = true;
        let psig = pattern.signature();
        for s in sols.iter() {
            if out.len() >= self.a.opts.max_matches {
                break;
            }
            if let Some(b2) = match_with(&psig, |role| s.get(role), bindings.clone()) {
                let mut ch = children.clone();
                ch[j] = Some(s.proof.clone());
                self.solve_body(rule, done, b2, ch, depth, out)?;
            }
        }
        done[j] = false;
        Ok(())
    }

    fn run(&mut self) -> Result<Answer, StoreError> {
        for p in self.plan.predicate_list() {
            if !self.a.knows_predicate(p) {
                self.diags.insert(format!("predicate {p} is not in the vocabulary and no rule concludes it"));
            }
        }
        // §11.2: the goal.
        if let Some(goal) = &self.plan.goal {
            if !self.a.knows_predicate(&goal.predicate) {
                return Ok(self.unsupported(format!(
                    "goal predicate {} is not in the vocabulary and no rule concludes it",
                    goal.predicate
                )));
            }
            return self.solve(goal.clone(), None);
        }
        if !self.params.is_empty() {
            let preds = self.plan.predicate_list();
            let chosen = self.a.rules.rules().iter().enumerate().find(|(_, r)| {
                !r.params.is_empty()
                    && r.params.iter().all(|p| self.params.contains_key(&p.name))
                    && r.body.iter().all(|b| preds.contains(&b.predicate))
            });
            let Some((ri, rule)) = chosen else { return Ok(self.unsupported("no rule for params")) };
            let mut head = Goal::new(rule.head.subject.clone(), &rule.head.predicate, rule.head.object.clone());
            if let (Some(s), true) = (self.plan.subject_list().first(), is_variable(&rule.head.subject)) {
                head.subject = Some(Value::String(s.clone()));
            }
            return self.solve(head, Some(ri));
        }
        // Direct lookup: candidates per (predicate, subject), ranked.
        let preds: Vec<String> = self.plan.predicate_list().to_vec();
        if preds.is_empty() {
            return Ok(self.unsupported("the plan names no predicate and no goal"));
        }
        let subjects: Vec<Option<String>> = match self.plan.subject_list() {
            [] => vec![None],
            s => s.iter().cloned().map(Some).collect(),
        };
        let mut candidates: Vec<Fact> = Vec::new();
        let mut lists = 0;
        let mut ids = HashSet::new();
        for p in &preds {
            for s in &subjects {
                let mut pat = Signature::new().with("predicate", p.clone());
                if let Some(s) = s {
                    pat = pat.with("subject", s.clone());
                }
                let found = self.matches(&pat, false)?;
                if !found.is_empty() {
                    lists += 1;
                }
                for f in found {
                    if ids.insert(f.id.clone()) {
                        candidates.push(f);
                    }
                }
            }
        }
        self.rank(&mut candidates, lists > 1)?;
        let Some(top) = candidates.first() else {
            // Nothing stated: a rule may still conclude the predicate.
            if let (Some(s), Some(p)) = (self.plan.subject_list().first(), preds.iter().find(|p| self.a.rules.concludes(p))) {
                let goal = Goal::new(Value::String(s.clone()), p, Value::String("?answer".into()));
                return self.solve(goal, None);
            }
            return Ok(self.unsupported("no stored fact matches the plan's predicates and subjects"));
        };
        if self.plan.subject_list().is_empty() {
            let distinct: BTreeSet<&str> = candidates.iter().map(|f| f.subject.as_str()).collect();
            if distinct.len() > 1 {
                let names: Vec<&str> = distinct.into_iter().take(5).collect();
                return Ok(
                    self.unsupported(format!("ambiguous subject: the plan names none and facts exist for {}", names.join(", ")))
                );
            }
        }
        let conditions: BTreeSet<String> =
            candidates.iter().filter(|f| f.subject == top.subject && f.predicate == top.predicate).map(condition_key).collect();
        if conditions.len() > 1 {
            let names: Vec<String> = conditions.into_iter().collect();
            return Ok(self.unsupported(format!(
                "ambiguous condition: {}({}) is stated under conditions {}; name one",
                top.predicate,
                top.subject,
                names.join(", ")
            )));
        }
        let goal = Goal::new(Value::String(top.subject.clone()), &top.predicate, Value::String("?answer".into()));
        self.solve(goal, None)
    }

    /// Solves a goal and assembles the answer.
    fn solve(&mut self, goal: Goal, goal_rule: Option<usize>) -> Result<Answer, StoreError> {
        self.goal_predicate = Some(goal.predicate.clone());
        self.goal_subject = goal.constant_subject().map(str::to_string);
        let mut sig = goal.signature();
        if let Some(o) = goal.constant_object() {
            // Entity objects are canonical (D23).
            // Entity objects are canonical (D23); for a predicate only rules conclude, a
            // string naming a stored entity is that entity.
            let canonical = match (self.a.vocab.get(&goal.predicate).map(|e| e.object_type()), o.as_str()) {
                (Some(ArgType::Entity), Some(s)) => Some(warrant_facts::canonical_entity(s)),
                (None, Some(s)) => self.store().entity_id(s)?,
                _ => None,
            };
            if let Some(c) = canonical {
                sig.set("object".into(), Role { value: Value::String(c), is_variable: false });
            }
        }
        let yes_no = goal.constant_object().is_some();
        if yes_no {
            return self.solve_yes_no(&goal, &sig);
        }
        let sols = self.derive(&sig, self.a.opts.max_depth)?;
        if sols.is_empty() {
            return Ok(self.unsupported(format!("no proof of {}", describe(&sig))));
        }
        if goal.constant_subject().is_none() {
            let distinct: BTreeSet<String> = sols.iter().filter_map(|s| s.get("subject")).map(object_text).collect();
            if distinct.len() > 1 {
                let names: Vec<String> = distinct.into_iter().take(5).collect();
                return Ok(self.unsupported(format!("ambiguous subject: proofs exist for {}", names.join(", "))));
            }
        }
        let multi =
            self.a.vocab.contains(&goal.predicate) && self.a.vocab.cardinality(&goal.predicate) == Cardinality::MultiValued;
        let chosen: Vec<Sol> =
            if multi { sols.iter().take(self.a.opts.limit_facts).cloned().collect() } else { vec![sols[0].clone()] };
        if multi && sols.len() > self.a.opts.limit_facts {
            self.diags.insert(format!("answer truncated to limitFacts = {}", self.a.opts.limit_facts));
        }
        let texts: Vec<String> = chosen.iter().map(|s| self.answer_text(s, goal_rule)).collect();
        let text = texts.join(", ");
        let subject =
            goal.subject.clone().filter(|v| !is_variable(v)).or_else(|| chosen[0].get("subject").cloned()).unwrap_or(Value::Null);
        let proofs: Vec<Rc<Proof>> = chosen.iter().map(|s| s.proof.clone()).collect();
        self.finish(&proofs, subject, text)
    }

    fn answer_text(&self, s: &Sol, goal_rule: Option<usize>) -> String {
        let object = s.get("object").cloned().unwrap_or(Value::Null);
        let rule = match &*s.proof {
            Proof::Derived { rule, .. } => Some(*rule),
            Proof::Premise(_) => goal_rule,
        };
        match rule.map(|r| &self.a.rules.rules()[r]) {
            Some(r) if !r.answer.is_empty() => r.answer_text(&object),
            _ => object_text(&object),
        }
    }

    /// A yes/no goal (constant object): a stated value of the subject answers it (equal →
    /// "Yes", or "No" when negated; for a functional predicate with a non-entity object, a
    /// different stated value → "No"); otherwise a derivation proves "Yes"; otherwise
    /// unsupported — never "No" for lack of proof.
    fn solve_yes_no(&mut self, goal: &Goal, sig: &Signature) -> Result<Answer, StoreError> {
        let entry = self.a.vocab.get(&goal.predicate);
        let object_type = entry.map(|e| e.object_type());
        let subject = goal.subject.clone().unwrap_or(Value::Null);
        let wanted = constant(sig, "object").cloned().unwrap_or(Value::Null);
        if let (Some(t), Some(s)) = (object_type.filter(|t| *t != ArgType::Entity), goal.constant_subject()) {
            let want = Object::from_json(&wanted).map(|o| norm_value(&o, Some(t)));
            // The goal's qualifiers (a condition such as "Pro plan") narrow the facts read.
            let mut pattern = Signature::new().with("subject", s.to_string()).with("predicate", goal.predicate.clone());
            for (k, r) in sig.roles().filter(|(k, _)| !matches!(*k, "subject" | "predicate" | "object" | "version")) {
                pattern.set(k.to_string(), r.clone());
            }
            let mut facts = self.matches(&pattern, false)?;
            self.rank(&mut facts, false)?;
            let vocab = &self.a.vocab;
            let equal = facts.iter().find(|f| Some(fact_value(f, vocab)) == want).cloned();
            if let Some(f) = equal {
                let text = if f.polarity == Polarity::Affirm { "Yes" } else { "No" };
                return self.finish(&[Rc::new(Proof::Premise(Rc::new(f)))], subject, text.into());
            }
            let functional = self.a.vocab.cardinality(&goal.predicate) == Cardinality::Functional;
            if let (true, Some(f)) = (functional, facts.iter().find(|f| f.polarity == Polarity::Affirm).cloned()) {
                return self.finish(&[Rc::new(Proof::Premise(Rc::new(f)))], subject, "No".into());
            }
        } else {
            let mut direct = self.matches(sig, false)?;
            self.rank(&mut direct, false)?;
            if let Some(f) = direct.into_iter().next() {
                let text = if f.polarity == Polarity::Affirm { "Yes" } else { "No" };
                return self.finish(&[Rc::new(Proof::Premise(Rc::new(f)))], subject, text.into());
            }
        }
        // Iterative deepening: any proof answers "Yes", and the shallowest is the shortest
        // chain — found without enumerating everything the full depth bound can reach.
        let mut sols = Rc::new(Vec::new());
        for depth in 1..=self.a.opts.max_depth {
            sols = self.derive(sig, depth)?;
            if !sols.is_empty() {
                break;
            }
        }
        match sols.first() {
            Some(s) => {
                let proof = s.proof.clone();
                self.finish(&[proof], subject, "Yes".into())
            }
            None => Ok(self.unsupported(format!("no proof of {}", describe(sig)))),
        }
    }

    /// Checks the groups of every premise for conflicts, then builds a supported or
    /// conflicting answer.
    fn finish(&mut self, proofs: &[Rc<Proof>], subject: Value, text: String) -> Result<Answer, StoreError> {
        let mut chain = Chain::default();
        let roots: Vec<String> = proofs.iter().map(|p| chain.add(p, &self.a.rules, self.plan.version.as_deref())).collect();
        // §10: the group of every premise.
        let mut pairs: Vec<(Fact, Fact, &'static str)> = Vec::new();
        let mut groups_done = HashSet::new();
        for f in chain.premises.clone() {
            let key = conflict_key(&f, &self.a.vocab);
            if !groups_done.insert(key.clone()) {
                continue;
            }
            let pat = Signature::new().with("subject", f.subject.clone()).with("predicate", f.predicate.clone());
            let mut group: Vec<Fact> =
                self.matches(&pat, false)?.into_iter().filter(|g| conflict_key(g, &self.a.vocab) == key).collect();
            self.rank(&mut group, false)?;
            let refs: Vec<&Fact> = group.iter().collect();
            for (a, b, r) in minimal_pairs(&refs, &self.a.vocab) {
                pairs.push((a.clone(), b.clone(), r.as_str()));
            }
        }
        if !pairs.is_empty() {
            return self.conflicting(pairs);
        }
        let scores: Vec<f64> = roots.iter().filter_map(|id| chain.scores.get(id).copied()).collect();
        let score = scores.into_iter().fold(1.0_f64, f64::min);
        let id = "conclusion0".to_string();
        chain.entries.push(ChainEntry {
            fact_id: id.clone(),
            role: ChainRole::Conclusion,
            fact: conclusion_fact(&subject, &text, &roots),
        });
        chain.scores.insert(id, score);
        let mut chunks: Vec<String> = Vec::new();
        for f in &chain.premises {
            if !chunks.contains(&f.source.chunk_id) && chunks.len() < self.a.opts.limit_chunks {
                chunks.push(f.source.chunk_id.clone());
            }
        }
        Ok(Answer {
            text: Some(text),
            verdict: Verdict::Supported,
            chunks_used: chunks,
            fact_chain: chain.entries,
            support_scores: chain.scores.into_iter().map(|(k, v)| (k, warrant_facts::confidence_json(v))).collect(),
            conflicts: Vec::new(),
            plan: self.plan_json(),
            diagnostics: self.diags.iter().cloned().collect(),
        })
    }

    fn conflicting(&mut self, pairs: Vec<(Fact, Fact, &'static str)>) -> Result<Answer, StoreError> {
        let mut facts: Vec<Fact> = Vec::new();
        for (a, b, _) in &pairs {
            for f in [a, b] {
                if !facts.iter().any(|x| x.id == f.id) {
                    facts.push(f.clone());
                }
            }
        }
        self.rank(&mut facts, true)?;
        facts.truncate(self.a.opts.limit_facts);
        let mut chunks: Vec<String> = Vec::new();
        for f in &facts {
            if !chunks.contains(&f.source.chunk_id) && chunks.len() < self.a.opts.limit_chunks {
                chunks.push(f.source.chunk_id.clone());
            }
        }
        self.diags.insert("the facts the answer needs conflict".into());
        Ok(Answer {
            text: None,
            verdict: Verdict::Conflicting,
            chunks_used: chunks,
            support_scores: facts.iter().map(|f| (f.id.clone(), warrant_facts::confidence_json(f.confidence))).collect(),
            fact_chain: facts
                .iter()
                .map(|f| ChainEntry { fact_id: f.id.clone(), role: ChainRole::Premise, fact: f.to_json(true) })
                .collect(),
            conflicts: pairs
                .iter()
                .map(|(a, b, r)| Conflict { fact1: a.to_json(true), fact2: b.to_json(true), reason: (*r).into() })
                .collect(),
            plan: self.plan_json(),
            diagnostics: self.diags.iter().cloned().collect(),
        })
    }
}

fn describe(sig: &Signature) -> String {
    let v = |r: &str| sig.get(r).map(|x| object_text(&x.value)).unwrap_or_else(|| "?".into());
    format!("{}({}, {})", v("predicate"), v("subject"), v("object"))
}

/// Unifies a rule head with a goal: returns the rule-variable bindings the goal's constants
/// impose, or `None` when a constant differs.
fn unify_head(head: &RulePattern, goal: &Signature) -> Option<Bindings> {
    let mut b = Bindings::new();
    let hsig = head.signature();
    for (role, hr) in hsig.roles() {
        if role == "version" {
            continue;
        }
        let Some(g) = goal.get(role) else { continue };
        if g.is_variable {
            continue;
        }
        if hr.is_variable {
            let name = hr.value.as_str().unwrap_or_default();
            match b.get(name) {
                Some(v) if !warrant_facts::values_equal(v, &g.value) => return None,
                Some(_) => {}
                None => {
                    b.insert(name.to_string(), g.value.clone());
                }
            }
        } else if !warrant_facts::values_equal(&hr.value, &g.value) {
            return None;
        }
    }
    // Goal roles the head lacks (a qualifier) cannot be concluded.
    if goal.roles().any(|(role, r)| !r.is_variable && role != "version" && hsig.get(role).is_none()) {
        return None;
    }
    Some(b)
}

/// A fact chain being flattened from proofs: sub-chains before the entry they support.
#[derive(Default)]
struct Chain {
    entries: Vec<ChainEntry>,
    scores: BTreeMap<String, f64>,
    premises: Vec<Fact>,
    derived: usize,
    seen: HashMap<*const Proof, String>,
}

impl Chain {
    fn add(&mut self, p: &Rc<Proof>, rules: &RuleLibrary, version: Option<&str>) -> String {
        if let Some(id) = self.seen.get(&Rc::as_ptr(p)) {
            return id.clone();
        }
        let id = match &**p {
            Proof::Premise(f) => {
                if !self.scores.contains_key(&f.id) {
                    self.entries.push(ChainEntry { fact_id: f.id.clone(), role: ChainRole::Premise, fact: f.to_json(true) });
                    self.scores.insert(f.id.clone(), f.confidence);
                    self.premises.push((**f).clone());
                }
                f.id.clone()
            }
            Proof::Derived { rule, subject, predicate, object, children } => {
                let from: Vec<String> = children.iter().map(|c| self.add(c, rules, version)).collect();
                let id = format!("derived{}", self.derived);
                self.derived += 1;
                let score = from.iter().filter_map(|f| self.scores.get(f).copied()).fold(1.0_f64, f64::min);
                let rule_id = rules.rules().get(*rule).map_or("", |r| r.id.as_str());
                self.entries.push(ChainEntry {
                    fact_id: id.clone(),
                    role: ChainRole::Derived,
                    fact: derived_fact(subject, predicate, object, version, rule_id, &from),
                });
                self.scores.insert(id.clone(), score);
                id
            }
        };
        self.seen.insert(Rc::as_ptr(p), id.clone());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_after_normalisation() {
        assert!(versions_equal("v2.0", "2.0"));
        assert!(versions_equal("V2", "2.0"));
        assert!(versions_equal("2", "2.0.0"));
        assert!(!versions_equal("2.1", "2.10"));
        assert!(!versions_equal("2.0", "1.0"));
        assert!(versions_equal("2024-beta", "v2024-beta"));
        assert!(!versions_equal("2.0-beta", "2.0"));
    }

    #[test]
    fn memo_keys_rename_variables() {
        let a = Signature::new().with("subject", "x").with("predicate", "requires").with("object", "?b");
        let b = Signature::new().with("subject", "x").with("predicate", "requires").with("object", "?c");
        assert_eq!(goal_key(&a, 3), goal_key(&b, 3));
        assert_ne!(goal_key(&a, 3), goal_key(&a, 2));
    }
}
