//! The declarative rule library (spec §11.1) and its built-in evaluators (§11.4).
//!
//! A rule library is a JSON array of rules:
//!
//! ```json
//! { "id": "session_expired_by_inactivity",
//!   "description": "optional prose",
//!   "head": {"subject": "?s", "predicate": "session_expired", "object": "?expired"},
//!   "body": [ {"subject": "?s", "predicate": "expires_after", "object": "?limit"} ],
//!   "params": [ {"name": "inactivityMinutes", "unit": "minutes",
//!                "patterns": ["(?i)inactive\\s+for\\s+(?P<value>\\d+)\\s*(?P<unit>minutes?|hours?)"]} ],
//!   "compute": {"bind": "?expired", "op": "gt",
//!               "left":  {"param": "inactivityMinutes", "as": "minutes"},
//!               "right": {"var": "?limit", "as": "minutes"}},
//!   "questionPatterns": ["(?i)\\bis\\b.*\\bsession\\b.*\\bvalid\\b"],
//!   "answer": {"true": "No", "false": "Yes"} }
//! ```
//!
//! Extensions of the spec's format (project rules), all optional:
//!
//! - `description`: prose, ignored by the engine;
//! - body sub-goals may carry `qualifiers` (`{"condition": "inactivity"}`) the matched facts
//!   must have;
//! - param `unit` is `minutes` (the value with its optional `unit` group converted to exact
//!   minutes), `number` (the value as a decimal), `timestamp` or `string` (the value as
//!   written);
//! - an operand may be a constant: `{"value": 15, "as": "minutes"}`;
//! - `subjectMatch`: a regex the derived fact's subject must match, keeping a domain rule to
//!   the subjects it is about (the session rule applies to `session_token`, not to every
//!   subject with an expiry);
//! - the conversion `quantity` reads the leading decimal of a string (`"100 requests"` → 100)
//!   or a number.
//!
//! A library is checked when it is loaded. These are errors, each named by a JSON pointer:
//! JSON syntax, unknown keys, missing `id`/`head`/`body`, duplicate ids, a head or body
//! pattern without a constant `predicate`, a body predicate that is neither in the
//! vocabulary nor concluded by some rule (unknown predicate), a head variable that neither
//! the body nor `compute.bind` binds, a `compute` naming an undeclared param or a variable
//! the body does not bind, operands of different kinds (durations against timestamps), an
//! unknown op or conversion, a param pattern without a `value` group, and **cyclic rules**:
//! rules whose predicates depend on each other in a cycle through two or more predicates
//! (`a :- b`, `b :- a`), or a rule whose body repeats its own head. A rule that recurses on
//! its own predicate through a different pattern (transitivity) is allowed; the derivation
//! depth bound ends it.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use regex::{Regex, RegexBuilder};
use serde_json::Value;
use warrant_facts::{Signature, is_variable};
use warrant_facts::{ValueError, Vocabulary};
use warrant_facts::{minutes_of, number_of, parse_duration_minutes, parse_timestamp_ms};
use warrant_text::Decimal;
use warrant_text::number::{BigInt, BigRational};

/// The embedded default rule library.
pub const DEFAULT_RULES_JSON: &str = include_str!("../data/rules.json");

/// Compiled-size limit for one pattern: rule files are user input.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// A rule file that could not be used: where (a JSON pointer, or line/column for syntax
/// errors) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct RuleError {
    /// JSON pointer (`/2/body/0/predicate`) or `line L column C`.
    pub location: String,
    /// What was wrong, on one line.
    pub message: String,
}

fn rerr(location: impl Into<String>, message: impl Into<String>) -> RuleError {
    let location = location.into();
    RuleError { location: if location.is_empty() { "/".into() } else { location }, message: message.into() }
}

/// A fact pattern of a rule: constant predicate; subject, object and qualifiers may be
/// variables.
#[derive(Debug, Clone, PartialEq)]
pub struct RulePattern {
    /// Subject: a constant or a variable.
    pub subject: Value,
    /// The predicate id.
    pub predicate: String,
    /// Object: a constant or a variable.
    pub object: Value,
    /// Qualifier constraints (`condition`, `version`, …).
    pub qualifiers: BTreeMap<String, Value>,
}

impl RulePattern {
    /// As a unification pattern.
    pub fn signature(&self) -> Signature {
        let mut s = Signature::new()
            .with("subject", self.subject.clone())
            .with("predicate", self.predicate.clone())
            .with("object", self.object.clone());
        for (k, v) in &self.qualifiers {
            s = s.with(k.clone(), v.clone());
        }
        s
    }

    /// The variables of the pattern.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        [&self.subject, &self.object]
            .into_iter()
            .chain(self.qualifiers.values())
            .filter(|v| is_variable(v))
            .filter_map(Value::as_str)
    }
}

/// How a param's matched text is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamUnit {
    /// Exact minutes (the `unit` group, when present, is converted: `2 hours` → 120).
    Minutes,
    /// A decimal number.
    Number,
    /// A timestamp, kept as written.
    Timestamp,
    /// The text as written.
    String,
}

/// A param a rule needs, with the patterns that read it from question text.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    /// The param name (`inactivityMinutes`).
    pub name: String,
    /// The unit values are converted to.
    pub unit: ParamUnit,
    /// Case-insensitive regexes with a `value` group and an optional `unit` group.
    pub patterns: Vec<Regex>,
}

impl ParamSpec {
    /// The param's value in a question: the first pattern that matches, converted.
    pub fn extract(&self, question: &str) -> Option<Value> {
        for re in &self.patterns {
            let Some(c) = re.captures(question) else { continue };
            let Some(value) = c.name("value") else { continue };
            let text = value.as_str().trim();
            let unit = c.name("unit").map(|u| u.as_str().trim());
            let v = match self.unit {
                ParamUnit::Minutes => {
                    let minutes = match unit {
                        Some(u) => parse_duration_minutes(&format!("{text} {u}")).ok()?,
                        None => Decimal::parse(text).ok()?.into_value(),
                    };
                    rational_json(&minutes)?
                }
                ParamUnit::Number => rational_json(&Decimal::parse(text).ok()?.into_value())?,
                ParamUnit::Timestamp | ParamUnit::String => Value::String(text.to_string()),
            };
            return Some(v);
        }
        None
    }
}

/// An exact rational as a JSON number, when it has a finite decimal form.
fn rational_json(r: &BigRational) -> Option<Value> {
    let text = warrant_text::number::format_rational(r, 12);
    if Decimal::parse(&text).ok()?.value() != r {
        return None;
    }
    serde_json::from_str::<Value>(&text).ok().filter(Value::is_number)
}

/// A comparison operator of `compute`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `>`.
    Gt,
    /// `≥`.
    Ge,
    /// `<`.
    Lt,
    /// `≤`.
    Le,
    /// `=`.
    Eq,
    /// `≠`.
    Ne,
}

impl Op {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "gt" => Self::Gt,
            "ge" => Self::Ge,
            "lt" => Self::Lt,
            "le" => Self::Le,
            "eq" => Self::Eq,
            "ne" => Self::Ne,
            _ => return None,
        })
    }

    fn holds(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Self::Gt => o == Greater,
            Self::Ge => o != Less,
            Self::Lt => o == Less,
            Self::Le => o != Greater,
            Self::Eq => o == Equal,
            Self::Ne => o != Equal,
        }
    }
}

/// A conversion of §11.4 (plus `quantity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// A number param (minutes) or a duration string → exact minutes.
    Minutes,
    /// `<number> <unit>` → exact minutes.
    Duration,
    /// RFC 3339 date-time or ISO date → epoch ms.
    Timestamp,
    /// A JSON number or decimal string → exact decimal.
    Number,
    /// The leading decimal of a string (`"100 requests"`), or a number → exact decimal.
    Quantity,
}

impl Conversion {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "minutes" => Self::Minutes,
            "duration" => Self::Duration,
            "timestamp" => Self::Timestamp,
            "number" => Self::Number,
            "quantity" => Self::Quantity,
            _ => return None,
        })
    }

    /// Values of one family compare with each other: lengths of time, numbers, instants.
    fn family(self) -> u8 {
        match self {
            Self::Minutes | Self::Duration => 0,
            Self::Number | Self::Quantity => 1,
            Self::Timestamp => 2,
        }
    }

    /// Converts a value exactly, or fails with the spec's code.
    pub fn apply(self, v: &Value) -> Result<BigRational, ValueError> {
        match self {
            Self::Minutes => minutes_of(v),
            Self::Duration => match v {
                Value::String(s) => parse_duration_minutes(s),
                other => Err(ValueError::Duration(other.to_string())),
            },
            Self::Timestamp => match v {
                Value::String(s) => parse_timestamp_ms(s).map(|ms| BigRational::from_integer(BigInt::from(ms))),
                other => Err(ValueError::Timestamp(other.to_string())),
            },
            Self::Number => number_of(v).map(Decimal::into_value),
            Self::Quantity => match v {
                Value::String(s) => {
                    let t = s.trim();
                    let end = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).unwrap_or(t.len());
                    Decimal::parse(&t[..end]).map(Decimal::into_value).map_err(|_| ValueError::Number(s.clone()))
                }
                other => number_of(other).map(Decimal::into_value),
            },
        }
    }
}

/// Where an operand's value comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum OperandSource {
    /// A plan param.
    Param(String),
    /// A variable bound by the body.
    Var(String),
    /// A constant.
    Value(Value),
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    /// Where the value comes from.
    pub source: OperandSource,
    /// How it is converted.
    pub conversion: Conversion,
}

/// `compute`: a comparison whose boolean result is bound to `bind`.
#[derive(Debug, Clone, PartialEq)]
pub struct Compute {
    /// The variable that receives the result.
    pub bind: String,
    /// The comparison.
    pub op: Op,
    /// Left operand.
    pub left: Operand,
    /// Right operand.
    pub right: Operand,
}

impl Compute {
    /// Evaluates the comparison with exact arithmetic. Errors are the spec's failure codes:
    /// `missing_param:<name>`, `unparseable_duration`, `unparseable_timestamp`,
    /// `unparseable_number`, or `unbound_variable:<name>`.
    pub fn evaluate(&self, bindings: &BTreeMap<String, Value>, params: &BTreeMap<String, Value>) -> Result<bool, String> {
        let value = |o: &Operand| -> Result<BigRational, String> {
            let v = match &o.source {
                OperandSource::Param(p) => params.get(p).ok_or_else(|| format!("missing_param:{p}"))?,
                OperandSource::Var(v) => bindings.get(v).ok_or_else(|| format!("unbound_variable:{v}"))?,
                OperandSource::Value(v) => v,
            };
            o.conversion.apply(v).map_err(|e| e.code().to_string())
        };
        let (l, r) = (value(&self.left)?, value(&self.right)?);
        Ok(self.op.holds(l.cmp(&r)))
    }
}

/// A rule of the library.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Unique id.
    pub id: String,
    /// Optional prose.
    pub description: Option<String>,
    /// The derived fact's pattern.
    pub head: RulePattern,
    /// Sub-goals.
    pub body: Vec<RulePattern>,
    /// Params the rule needs.
    pub params: Vec<ParamSpec>,
    /// Optional comparison.
    pub compute: Option<Compute>,
    /// Question patterns that select the rule in the planner.
    pub question_patterns: Vec<Regex>,
    /// Derived object's string form → answer text.
    pub answer: BTreeMap<String, String>,
    /// Optional regex the derived fact's subject must match (`(^|_)session(_|$)`): keeps a
    /// domain rule to the subjects it is about.
    pub subject_match: Option<Regex>,
}

impl Rule {
    /// The answer text for a derived object.
    pub fn answer_text(&self, object: &Value) -> String {
        let key = object_text(object);
        self.answer.get(&key).cloned().unwrap_or(key)
    }

    /// True when the rule may conclude about this subject (see `subjectMatch`).
    pub fn applies_to(&self, subject: &Value) -> bool {
        match &self.subject_match {
            None => true,
            Some(re) => re.is_match(&object_text(subject)),
        }
    }

    /// True when a question matches one of the rule's question patterns.
    pub fn matches_question(&self, question: &str) -> bool {
        self.question_patterns.iter().any(|re| re.is_match(question))
    }
}

/// The string form of an object value: strings as they are, numbers as written, booleans.
pub fn object_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An ordered, checked rule library.
#[derive(Debug, Clone)]
pub struct RuleLibrary {
    rules: Vec<Rule>,
    by_head: HashMap<String, Vec<usize>>,
}

const RULE_KEYS: [&str; 10] =
    ["id", "description", "head", "body", "params", "compute", "questionPatterns", "answer", "subjectMatch", "comment"];

impl RuleLibrary {
    /// The embedded default library, checked against the default vocabulary.
    pub fn builtin() -> Self {
        // The embedded file is checked by the tests; an error here is a build defect.
        Self::from_json_str(DEFAULT_RULES_JSON, &Vocabulary::builtin()).unwrap_or_else(|e| panic!("default rules: {e}"))
    }

    /// An empty library.
    pub fn empty() -> Self {
        Self { rules: Vec::new(), by_head: HashMap::new() }
    }

    /// Reads and checks a library from JSON text.
    pub fn from_json_str(text: &str, vocab: &Vocabulary) -> Result<Self, RuleError> {
        let rules = parse_rules(text)?;
        Self::new(rules, vocab)
    }

    /// Checks a list of rules as one library (ids, predicates, variables, cycles).
    pub fn new(rules: Vec<Rule>, vocab: &Vocabulary) -> Result<Self, RuleError> {
        let mut by_head: HashMap<String, Vec<usize>> = HashMap::new();
        let mut ids = BTreeSet::new();
        for (i, r) in rules.iter().enumerate() {
            if !ids.insert(r.id.as_str()) {
                return Err(rerr(format!("/{i}/id"), format!("duplicate rule id {:?}", r.id)));
            }
            by_head.entry(r.head.predicate.clone()).or_default().push(i);
        }
        for (i, r) in rules.iter().enumerate() {
            for (j, b) in r.body.iter().enumerate() {
                if !vocab.contains(&b.predicate) && !by_head.contains_key(&b.predicate) {
                    return Err(rerr(
                        format!("/{i}/body/{j}/predicate"),
                        format!("unknown predicate {:?}: neither in the vocabulary nor concluded by any rule", b.predicate),
                    ));
                }
                if b == &r.head {
                    return Err(rerr(
                        format!("/{i}/body/{j}"),
                        format!("cyclic rule {:?}: its body repeats its head, so it can never make progress", r.id),
                    ));
                }
            }
        }
        check_cycles(&rules)?;
        Ok(Self { rules, by_head })
    }

    /// This library followed by `extra`'s rules; a rule of `extra` with an existing id
    /// replaces that rule in place. The result is checked as a whole.
    /// Errors point into `extra` (`/0/body/1`) when they concern one of its rules, and say
    /// "default rule …" otherwise.
    pub fn extended(&self, extra: Vec<Rule>, vocab: &Vocabulary) -> Result<Self, RuleError> {
        let mut rules = self.rules.clone();
        // Where each rule came from: Ok(index in extra) or Err(index in this library).
        let mut origin: Vec<Result<usize, usize>> = (0..rules.len()).map(Err).collect();
        for (j, r) in extra.into_iter().enumerate() {
            match rules.iter().position(|x| x.id == r.id) {
                Some(i) => {
                    rules[i] = r;
                    origin[i] = Ok(j);
                }
                None => {
                    rules.push(r);
                    origin.push(Ok(j));
                }
            }
        }
        Self::new(rules, vocab).map_err(|mut e| {
            let digits: String = e.location.trim_start_matches('/').chars().take_while(char::is_ascii_digit).collect();
            if let (true, Ok(k)) = (e.location.starts_with('/'), digits.parse::<usize>()) {
                let rest = e.location[1 + digits.len()..].to_string();
                e.location = match origin.get(k) {
                    Some(Ok(j)) => format!("/{j}{rest}"),
                    Some(Err(i)) => format!("default rule {}{rest}", self.rules.get(*i).map_or("", |r| r.id.as_str())),
                    None => e.location.clone(),
                };
            }
            e
        })
    }

    /// Rules in library order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rules concluding a predicate, in library order.
    pub fn for_head(&self, predicate: &str) -> impl Iterator<Item = (usize, &Rule)> {
        self.by_head.get(predicate).into_iter().flatten().map(|&i| (i, &self.rules[i]))
    }

    /// A rule by id.
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// True when some rule concludes the predicate.
    pub fn concludes(&self, predicate: &str) -> bool {
        self.by_head.contains_key(predicate)
    }
}

/// Rejects dependency cycles through two or more predicates (Tarjan's strongly connected
/// components over head predicate → body predicate edges).
fn check_cycles(rules: &[Rule]) -> Result<(), RuleError> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rules {
        for p in std::iter::once(&r.head).chain(&r.body).map(|p| p.predicate.as_str()) {
            let n = index.len();
            index.entry(p).or_insert(n);
        }
    }
    let mut names = vec![""; index.len()];
    for (p, &i) in &index {
        names[i] = p;
    }
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); names.len()];
    let mut edge_rule: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (ri, r) in rules.iter().enumerate() {
        let h = index[r.head.predicate.as_str()];
        for b in &r.body {
            let t = index[b.predicate.as_str()];
            edges[h].insert(t);
            edge_rule.entry((h, t)).or_insert(ri);
        }
    }
    let sccs = strongly_connected(&edges);
    for comp in sccs {
        if comp.len() < 2 {
            continue;
        }
        let members: BTreeSet<usize> = comp.iter().copied().collect();
        let involved: BTreeSet<&str> = edge_rule
            .iter()
            .filter(|((h, t), _)| members.contains(h) && members.contains(t) && h != t)
            .map(|(_, &ri)| rules[ri].id.as_str())
            .collect();
        let first = edge_rule
            .iter()
            .filter(|((h, t), _)| members.contains(h) && members.contains(t) && h != t)
            .map(|(_, &ri)| ri)
            .max()
            .unwrap_or(0);
        let mut preds: Vec<&str> = members.iter().map(|&m| names[m]).collect();
        preds.sort_unstable();
        return Err(rerr(
            format!("/{first}"),
            format!(
                "cyclic rules: predicates {} depend on each other (rules {})",
                preds.join(", "),
                involved.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    Ok(())
}

fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].iter() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let n = edges.len();
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

/// Parses rule JSON (without library-level checks).
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, RuleError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| rerr(format!("line {} column {}", e.line(), e.column()), format!("invalid JSON: {e}")))?;
    let Value::Array(items) = v else { return Err(rerr("/", "expected a JSON array of rules")) };
    items.iter().enumerate().map(|(i, r)| parse_rule(r, &format!("/{i}"))).collect()
}

fn pattern(v: &Value, at: &str) -> Result<RulePattern, RuleError> {
    let Value::Object(m) = v else { return Err(rerr(at, "expected a pattern {subject, predicate, object, qualifiers?}")) };
    if let Some(k) = m.keys().find(|k| !["subject", "predicate", "object", "qualifiers"].contains(&k.as_str())) {
        return Err(rerr(format!("{at}/{k}"), "unknown key (expected subject, predicate, object, qualifiers)"));
    }
    let predicate = match m.get("predicate") {
        Some(Value::String(s)) if !s.trim().is_empty() && !s.starts_with('?') => s.clone(),
        Some(_) => return Err(rerr(format!("{at}/predicate"), "expected a constant predicate id")),
        None => return Err(rerr(at, "missing \"predicate\"")),
    };
    let role = |k: &str| -> Result<Value, RuleError> {
        match m.get(k) {
            Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => Ok(v.clone()),
            Some(_) => Err(rerr(format!("{at}/{k}"), "expected a string, a number, a boolean or a variable \"?name\"")),
            None => Err(rerr(at, format!("missing \"{k}\""))),
        }
    };
    let (subject, object) = (role("subject")?, role("object")?);
    let mut qualifiers = BTreeMap::new();
    if let Some(q) = m.get("qualifiers") {
        let Value::Object(qm) = q else { return Err(rerr(format!("{at}/qualifiers"), "expected an object")) };
        for (k, v) in qm {
            if !matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
                return Err(rerr(format!("{at}/qualifiers/{k}"), "expected a string, a number or a boolean"));
            }
            qualifiers.insert(k.clone(), v.clone());
        }
    }
    Ok(RulePattern { subject, predicate, object, qualifiers })
}

fn regex(s: &Value, at: &str) -> Result<Regex, RuleError> {
    let Some(s) = s.as_str() else { return Err(rerr(at, "expected a regex string")) };
    RegexBuilder::new(s)
        .case_insensitive(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| rerr(at, format!("invalid regex: {}", e.to_string().replace('\n', " "))))
}

fn regexes(v: Option<&Value>, at: &str) -> Result<Vec<Regex>, RuleError> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().enumerate().map(|(i, s)| regex(s, &format!("{at}/{i}"))).collect(),
        Some(_) => Err(rerr(at, "expected an array of regex strings")),
    }
}

fn operand(v: Option<&Value>, at: &str, params: &[ParamSpec], body_vars: &BTreeSet<&str>) -> Result<Operand, RuleError> {
    let Some(Value::Object(m)) = v else {
        return Err(rerr(at, "expected an operand {param|var|value, as}"));
    };
    if let Some(k) = m.keys().find(|k| !["param", "var", "value", "as"].contains(&k.as_str())) {
        return Err(rerr(format!("{at}/{k}"), "unknown key (expected param, var, value, as)"));
    }
    let conversion = match m.get("as").and_then(Value::as_str) {
        Some(c) => Conversion::parse(c).ok_or_else(|| {
            rerr(
                format!("{at}/as"),
                format!("unknown conversion {c:?} (expected minutes, duration, timestamp, number, quantity)"),
            )
        })?,
        None => return Err(rerr(at, "missing \"as\" (minutes, duration, timestamp, number or quantity)")),
    };
    let sources = ["param", "var", "value"].iter().filter(|k| m.contains_key(**k)).count();
    if sources != 1 {
        return Err(rerr(at, "expected exactly one of param, var, value"));
    }
    let source = if let Some(p) = m.get("param") {
        let Some(p) = p.as_str() else { return Err(rerr(format!("{at}/param"), "expected a param name")) };
        if !params.iter().any(|s| s.name == p) {
            return Err(rerr(format!("{at}/param"), format!("param {p:?} is not declared in the rule's params")));
        }
        OperandSource::Param(p.to_string())
    } else if let Some(v) = m.get("var") {
        let Some(v) = v.as_str().filter(|s| s.starts_with('?')) else {
            return Err(rerr(format!("{at}/var"), "expected a variable \"?name\""));
        };
        if !body_vars.contains(v) {
            return Err(rerr(format!("{at}/var"), format!("variable {v} is not bound by the rule's body")));
        }
        OperandSource::Var(v.to_string())
    } else {
        match m.get("value") {
            Some(v @ (Value::String(_) | Value::Number(_))) => OperandSource::Value(v.clone()),
            _ => return Err(rerr(format!("{at}/value"), "expected a number or a string")),
        }
    };
    Ok(Operand { source, conversion })
}

fn parse_rule(v: &Value, at: &str) -> Result<Rule, RuleError> {
    let Value::Object(m) = v else { return Err(rerr(at, "expected a rule object")) };
    if let Some(k) = m.keys().find(|k| !RULE_KEYS.contains(&k.as_str())) {
        return Err(rerr(format!("{at}/{k}"), format!("unknown key (expected {})", RULE_KEYS.join(", "))));
    }
    let id = match m.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(_) => return Err(rerr(format!("{at}/id"), "expected a non-empty string")),
        None => return Err(rerr(at, "missing \"id\"")),
    };
    let description = match m.get("description") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(rerr(format!("{at}/description"), "expected a string")),
    };
    let head = pattern(m.get("head").ok_or_else(|| rerr(at, "missing \"head\""))?, &format!("{at}/head"))?;
    let body = match m.get("body") {
        Some(Value::Array(items)) => {
            items.iter().enumerate().map(|(i, b)| pattern(b, &format!("{at}/body/{i}"))).collect::<Result<Vec<_>, _>>()?
        }
        Some(_) => return Err(rerr(format!("{at}/body"), "expected an array of patterns (may be empty)")),
        None => return Err(rerr(at, "missing \"body\"")),
    };
    let mut params = Vec::new();
    match m.get("params") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, p) in items.iter().enumerate() {
                let pat = format!("{at}/params/{i}");
                let Value::Object(pm) = p else { return Err(rerr(pat, "expected {name, unit?, patterns?}")) };
                if let Some(k) = pm.keys().find(|k| !["name", "unit", "patterns"].contains(&k.as_str())) {
                    return Err(rerr(format!("{pat}/{k}"), "unknown key (expected name, unit, patterns)"));
                }
                let name = match pm.get("name") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                    _ => return Err(rerr(format!("{pat}/name"), "expected a non-empty string")),
                };
                let unit = match pm.get("unit").map(|u| u.as_str()) {
                    None => ParamUnit::String,
                    Some(Some("minutes")) => ParamUnit::Minutes,
                    Some(Some("number")) => ParamUnit::Number,
                    Some(Some("timestamp")) => ParamUnit::Timestamp,
                    Some(Some("string")) => ParamUnit::String,
                    Some(_) => {
                        return Err(rerr(format!("{pat}/unit"), "expected minutes, number, timestamp or string"));
                    }
                };
                let patterns = regexes(pm.get("patterns"), &format!("{pat}/patterns"))?;
                for (k, re) in patterns.iter().enumerate() {
                    if !re.capture_names().any(|n| n == Some("value")) {
                        return Err(rerr(format!("{pat}/patterns/{k}"), "a param pattern needs a named group (?P<value>…)"));
                    }
                }
                params.push(ParamSpec { name, unit, patterns });
            }
        }
        Some(_) => return Err(rerr(format!("{at}/params"), "expected an array")),
    }
    let body_vars: BTreeSet<&str> = body.iter().flat_map(RulePattern::variables).collect();
    let compute = match m.get("compute") {
        None => None,
        Some(Value::Object(c)) => {
            let cat = format!("{at}/compute");
            if let Some(k) = c.keys().find(|k| !["bind", "op", "left", "right"].contains(&k.as_str())) {
                return Err(rerr(format!("{cat}/{k}"), "unknown key (expected bind, op, left, right)"));
            }
            let bind = match c.get("bind").and_then(Value::as_str) {
                Some(b) if b.starts_with('?') && b.len() > 1 => b.to_string(),
                _ => return Err(rerr(format!("{cat}/bind"), "expected a variable \"?name\"")),
            };
            if body_vars.contains(bind.as_str()) {
                return Err(rerr(format!("{cat}/bind"), format!("{bind} is already bound by the body")));
            }
            let op = match c.get("op").and_then(Value::as_str) {
                Some(o) => Op::parse(o)
                    .ok_or_else(|| rerr(format!("{cat}/op"), format!("unknown op {o:?} (expected gt, ge, lt, le, eq, ne)")))?,
                None => return Err(rerr(format!("{cat}/op"), "expected gt, ge, lt, le, eq or ne")),
            };
            let left = operand(c.get("left"), &format!("{cat}/left"), &params, &body_vars)?;
            let right = operand(c.get("right"), &format!("{cat}/right"), &params, &body_vars)?;
            if left.conversion.family() != right.conversion.family() {
                return Err(rerr(
                    &cat,
                    "operands of different kinds cannot be compared (durations with durations, numbers with numbers, timestamps with timestamps)",
                ));
            }
            Some(Compute { bind, op, left, right })
        }
        Some(_) => return Err(rerr(format!("{at}/compute"), "expected an object {bind, op, left, right}")),
    };
    for (k, v) in head.variables().enumerate() {
        let bound = body_vars.contains(v) || compute.as_ref().is_some_and(|c| c.bind == v);
        if !bound {
            let _ = k;
            return Err(rerr(
                format!("{at}/head"),
                format!("head variable {v} is bound neither by the body nor by compute.bind"),
            ));
        }
    }
    let question_patterns = regexes(m.get("questionPatterns"), &format!("{at}/questionPatterns"))?;
    let mut answer = BTreeMap::new();
    match m.get("answer") {
        None => {}
        Some(Value::Object(a)) => {
            for (k, v) in a {
                let Some(t) = v.as_str() else { return Err(rerr(format!("{at}/answer/{k}"), "expected a string")) };
                answer.insert(k.clone(), t.to_string());
            }
        }
        Some(_) => return Err(rerr(format!("{at}/answer"), "expected an object mapping values to answer text")),
    }
    let subject_match = match m.get("subjectMatch") {
        None => None,
        Some(v) => Some(regex(v, &format!("{at}/subjectMatch"))?),
    };
    Ok(Rule { id, description, head, body, params, compute, question_patterns, answer, subject_match })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vocab() -> Vocabulary {
        Vocabulary::builtin()
    }

    #[test]
    fn the_default_library_loads() {
        let lib = RuleLibrary::builtin();
        let ids: Vec<&str> = lib.rules().iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids[0], "session_expired_by_inactivity");
        for needed in ["requires_transitive", "part_of_transitive", "contains_inverse_part_of"] {
            assert!(ids.contains(&needed), "{needed}");
        }
        assert_eq!(lib.for_head("requires").count(), 1);
        let r = lib.get("session_expired_by_inactivity").unwrap();
        assert_eq!(r.answer_text(&json!(true)), "No");
        assert_eq!(r.params[0].extract("If a user is inactive for 20 minutes in v2.0"), Some(json!(20)));
        assert_eq!(r.params[0].extract("inactive for 2 hours"), Some(json!(120)));
        assert_eq!(r.params[0].extract("inactive for 90 seconds"), Some(json!(1.5)));
        assert!(r.matches_question("If a user is inactive for 20 minutes in v2.0, is their session valid?"));
    }

    #[test]
    fn evaluators_are_exact_and_strict() {
        let lib = RuleLibrary::builtin();
        let c = lib.get("session_expired_by_inactivity").unwrap().compute.clone().unwrap();
        let b = |limit: &str| BTreeMap::from([("?limit".to_string(), json!(limit))]);
        let p = |m: Value| BTreeMap::from([("inactivityMinutes".to_string(), m)]);
        assert_eq!(c.evaluate(&b("15 minutes"), &p(json!(20))), Ok(true));
        assert_eq!(c.evaluate(&b("15 minutes"), &p(json!(15))), Ok(false), "exactly the limit is not expired");
        assert_eq!(c.evaluate(&b("0.25 hours"), &p(json!(15.5))), Ok(true));
        assert_eq!(c.evaluate(&b("1 hour"), &p(json!("59 minutes"))), Ok(false));
        assert_eq!(c.evaluate(&b("soon"), &p(json!(20))), Err("unparseable_duration".into()));
        assert_eq!(c.evaluate(&b("15 minutes"), &BTreeMap::new()), Err("missing_param:inactivityMinutes".into()));
        assert_eq!(Conversion::Quantity.apply(&json!("100 requests")).unwrap(), BigRational::from_integer(100.into()));
        assert_eq!(Conversion::Timestamp.apply(&json!("yesterday")).unwrap_err().code(), "unparseable_timestamp");
        assert_eq!(Conversion::Number.apply(&json!("x")).unwrap_err().code(), "unparseable_number");
    }

    #[test]
    fn bad_rule_files_are_refused_with_pointers() {
        let base = r#"{"id": "r", "head": {"subject": "?a", "predicate": "q", "object": "?b"},
                       "body": [{"subject": "?a", "predicate": "requires", "object": "?b"}]}"#;
        let ok = format!("[{base}]");
        assert!(RuleLibrary::from_json_str(&ok, &vocab()).is_ok());
        let cases: Vec<(String, &str)> = vec![
            ("[{\"id\": \"r\",".into(), "line 1 column"),
            ("{}".into(), "/: expected a JSON array"),
            (format!("[{base}, {base}]"), "/1/id: duplicate rule id"),
            (ok.replace("\"requires\"", "\"teleports\""), "/0/body/0/predicate: unknown predicate \"teleports\""),
            (ok.replace("\"body\"", "\"bodies\""), "/0/bodies: unknown key"),
            (ok.replace("\"object\": \"?b\"}]", "\"object\": \"?c\"}]"), "/0/head: head variable ?b"),
            (ok.replace("\"predicate\": \"q\"", "\"predicate\": \"?q\""), "/0/head/predicate:"),
            (
                r#"[{"id": "a", "head": {"subject": "?x", "predicate": "pa", "object": "?y"}, "body": [{"subject": "?x", "predicate": "pb", "object": "?y"}]},
                    {"id": "b", "head": {"subject": "?x", "predicate": "pb", "object": "?y"}, "body": [{"subject": "?x", "predicate": "pa", "object": "?y"}]}]"#
                    .into(),
                "/1: cyclic rules: predicates pa, pb depend on each other (rules a, b)",
            ),
            (
                r#"[{"id": "loop", "head": {"subject": "?x", "predicate": "requires", "object": "?y"}, "body": [{"subject": "?x", "predicate": "requires", "object": "?y"}]}]"#
                    .into(),
                "/0/body/0: cyclic rule \"loop\"",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "?s", "predicate": "x", "object": "?e"}, "body": [{"subject": "?s", "predicate": "expires_after", "object": "?l"}],
                    "compute": {"bind": "?e", "op": "gt", "left": {"param": "p", "as": "minutes"}, "right": {"var": "?l", "as": "minutes"}}}]"#
                    .into(),
                "/0/compute/left/param: param \"p\" is not declared",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "?s", "predicate": "x", "object": "?e"}, "body": [{"subject": "?s", "predicate": "expires_after", "object": "?l"}],
                    "params": [{"name": "p", "unit": "minutes", "patterns": ["(\\d+)"]}],
                    "compute": {"bind": "?e", "op": "gt", "left": {"param": "p", "as": "minutes"}, "right": {"var": "?l", "as": "timestamp"}}}]"#
                    .into(),
                "/0/params/0/patterns/0: a param pattern needs a named group",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "?s", "predicate": "x", "object": "?e"}, "body": [{"subject": "?s", "predicate": "expires_after", "object": "?l"}],
                    "compute": {"bind": "?e", "op": "gt", "left": {"value": 3, "as": "minutes"}, "right": {"var": "?l", "as": "timestamp"}}}]"#
                    .into(),
                "/0/compute: operands of different kinds",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "?s", "predicate": "x", "object": "?e"}, "body": [{"subject": "?s", "predicate": "expires_after", "object": "?l"}],
                    "compute": {"bind": "?e", "op": "approx", "left": {"value": 3, "as": "minutes"}, "right": {"var": "?l", "as": "minutes"}}}]"#
                    .into(),
                "/0/compute/op: unknown op",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "?s", "predicate": "x", "object": "?s"}, "body": [], "questionPatterns": ["(unclosed"]}]"#
                    .into(),
                "/0/head: head variable ?s",
            ),
            (
                r#"[{"id": "c", "head": {"subject": "a", "predicate": "x", "object": "b"}, "body": [], "questionPatterns": ["(unclosed"]}]"#
                    .into(),
                "/0/questionPatterns/0: invalid regex",
            ),
        ];
        for (text, needle) in cases {
            let e = RuleLibrary::from_json_str(&text, &vocab()).unwrap_err().to_string();
            assert!(e.starts_with(needle), "{e}\n  vs {needle}");
        }
    }

    #[test]
    fn extending_replaces_by_id_and_rechecks_cycles() {
        let lib = RuleLibrary::builtin();
        let extra = parse_rules(
            r#"[{"id": "part_of_from_contains", "head": {"subject": "?p", "predicate": "part_of", "object": "?w"},
                 "body": [{"subject": "?w", "predicate": "contains", "object": "?p"}]}]"#,
        )
        .unwrap();
        let e = lib.extended(extra, &vocab()).unwrap_err().to_string();
        assert!(e.contains("cyclic rules: predicates contains, part_of"), "{e}");
        let replace = parse_rules(
            r#"[{"id": "requires_transitive", "head": {"subject": "?a", "predicate": "requires", "object": "?b"},
                 "body": [{"subject": "?a", "predicate": "needs_directly", "object": "?b"}]}]"#,
        )
        .unwrap();
        let e = lib.extended(replace, &vocab()).unwrap_err().to_string();
        assert!(e.contains("unknown predicate \"needs_directly\""), "{e}");
    }
}
