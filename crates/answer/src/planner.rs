//! The deterministic question planner (spec §8.3, project rule).
//!
//! Given a question, the planner builds a [`QueryPlan`] without a model:
//!
//! 1. **version**: the first match of `\b(?:in|for|of)\s+(?:version\s+)?(v?\d+(?:\.\d+)+)\b`,
//!    else of `\bversion\s+(v?\d+(?:\.\d+)*)\b`, kept as written ("in v2.0" → `v2.0`,
//!    "in version 2" → `2`). Then, for versions named the way people name them: "in release
//!    4.3", "in Lumen 4.3" (a capitalised family name before the number) and "in the 2024
//!    handbook" (a year before a noun), the phrase removed from the question like the others.
//! 2. **rules**: every rule whose `questionPatterns` match contributes its body predicates
//!    and its params (read by the rule's param patterns, converted to the param's unit); the
//!    first such rule in library order sets the goal to its head, with its subject variable
//!    bound to the first subject found.
//! 3. **question templates** (`data/questions.json`, derived from the vocabulary's surface
//!    patterns): when no rule set the goal, the first template matching the question (with
//!    the version phrase and the final `?` removed) gives the predicate, the subject (the
//!    `subject` group, resolved as a whole through the entity index: aliases, plural and
//!    singular) and, for yes/no forms, the object (`object` group) and a goal
//!    `{subject, predicate, object}`. A template whose subject is not in the store still
//!    plans it (canonicalised), so the answer is `unsupported` instead of a guess about
//!    another subject.
//! 4. **subjects** otherwise: canonicalised 1- to 4-word n-grams of the question that name a
//!    stored entity, longest first at each position, in order of first appearance (n-grams
//!    starting or ending with a function word are skipped).
//! 5. **predicates**: every vocabulary predicate whose `questionPatterns` match, in
//!    vocabulary order, then the template's predicate, then the rules' body predicates.
//! 6. Nothing matched: an empty plan, answered `unsupported`.

use regex::{Regex, RegexBuilder};
use serde_json::Value;
use warrant_facts::{ArgType, Vocabulary, canonical_entity};
use warrant_store::{Store, StoreError};
use warrant_text::stopwords::List;

use crate::plan::{Goal, QueryPlan};
use crate::rules::RuleLibrary;

/// The embedded question templates.
pub const DEFAULT_TEMPLATES_JSON: &str = include_str!("../data/questions.json");

/// A question template: a regex over the question with a `subject` group (and an `object`
/// group for yes/no forms) and the predicate it asks about.
#[derive(Debug, Clone)]
pub struct Template {
    /// Template id.
    pub id: String,
    /// The predicate asked about.
    pub predicate: String,
    /// Yes/no form (the goal's object is a constant).
    pub yes_no: bool,
    re: Regex,
}

/// The planner: templates and version patterns, compiled once.
#[derive(Debug, Clone)]
pub struct Planner {
    templates: Vec<Template>,
    version_a: Regex,
    version_b: Regex,
    /// Versions as people name them, tried after the two above, in order.
    named_versions: Vec<Regex>,
}

fn ci(re: &str) -> Regex {
    // The patterns here are fixed; a failure is a build defect caught by the tests.
    RegexBuilder::new(re).case_insensitive(true).build().unwrap_or_else(|e| panic!("planner pattern {re}: {e}"))
}

impl Planner {
    /// The built-in templates, keeping those whose predicate is in the vocabulary.
    pub fn builtin(vocab: &Vocabulary) -> Self {
        let items: Vec<Value> = serde_json::from_str(DEFAULT_TEMPLATES_JSON).unwrap_or_default();
        let templates = items
            .iter()
            .filter_map(|t| {
                let predicate = t["predicate"].as_str()?.to_string();
                vocab.contains(&predicate).then(|| Template {
                    id: t["id"].as_str().unwrap_or_default().to_string(),
                    yes_no: t["form"] == "yes_no",
                    re: ci(t["pattern"].as_str().unwrap_or("$^")),
                    predicate,
                })
            })
            .collect();
        Self {
            templates,
            version_a: ci(r"\b(?:in|for|of)\s+(?:version\s+)?(v?\d+(?:\.\d+)+)\b"),
            version_b: ci(r"\bversion\s+(v?\d+(?:\.\d+)*)\b"),
            named_versions: [
                r"(?i)\b(?:in|for|of)\s+(?:the\s+)?(?:release|rel\.)\s+(v?\d+(?:\.\d+)*)\b",
                // Case matters here: the family is a capitalised name ("Lumen 4.3").
                r"\b(?:in|for|of)\s+(?:the\s+)?[A-Z][A-Za-z-]*\s+(v?\d+(?:\.\d+)+)\b",
                r"(?i)\b(?:in|for|of|according\s+to)\s+the\s+((?:19|20)\d{2})\s+[a-z]+(?:\s+[a-z]+)?\b",
            ]
            .iter()
            .map(|re| Regex::new(re).unwrap_or_else(|e| panic!("planner pattern {re}: {e}")))
            .collect(),
        }
    }

    /// The templates in order.
    pub fn templates(&self) -> &[Template] {
        &self.templates
    }

    /// Plans a question (see the module documentation).
    pub fn plan(
        &self,
        question: &str,
        store: &dyn Store,
        vocab: &Vocabulary,
        rules: &RuleLibrary,
    ) -> Result<QueryPlan, StoreError> {
        let mut plan = QueryPlan::default();
        let q = question.trim();
        // 1. version
        let (version, body) = self.version_and_body(q);
        plan.version = version;
        // 2. rules
        let mut rule_preds: Vec<String> = Vec::new();
        let mut params = std::collections::BTreeMap::new();
        let mut goal_rule = None;
        for rule in rules.rules() {
            if rule.question_patterns.is_empty() || !rule.matches_question(q) {
                continue;
            }
            for p in &rule.params {
                if let Some(v) = p.extract(q) {
                    params.entry(p.name.clone()).or_insert(v);
                }
            }
            for b in &rule.body {
                if !rule_preds.contains(&b.predicate) {
                    rule_preds.push(b.predicate.clone());
                }
            }
            if goal_rule.is_none() {
                goal_rule = Some(rule);
            }
        }
        // 3. templates
        let mut template: Option<(&Template, String, Option<String>)> = None;
        if goal_rule.is_none() {
            for t in &self.templates {
                if let Some(c) = t.re.captures(&body) {
                    let subject = c.name("subject").map(|m| m.as_str().trim().to_string()).unwrap_or_default();
                    let object = c.name("object").map(|m| m.as_str().trim().to_string());
                    if !subject.is_empty() {
                        template = Some((t, subject, object));
                        break;
                    }
                }
            }
        }
        // 4. subjects
        let mut subjects: Vec<String> = Vec::new();
        match &template {
            Some((_, subject, _)) => {
                let id = match store.entity_id(subject)? {
                    Some(id) => id,
                    None => canonical_entity(subject),
                };
                if !id.is_empty() {
                    subjects.push(id);
                }
            }
            None => subjects = self.ngram_subjects(&body, store)?,
        }
        // 5. predicates
        let mut predicates: Vec<String> = vocab.question_predicates(q).into_iter().map(str::to_string).collect();
        if let Some((t, _, _)) = &template
            && !predicates.contains(&t.predicate)
        {
            predicates.push(t.predicate.clone());
        }
        for p in rule_preds {
            if !predicates.contains(&p) {
                predicates.push(p);
            }
        }
        // Goal
        if let Some(rule) = goal_rule {
            let mut g = Goal::new(rule.head.subject.clone(), &rule.head.predicate, rule.head.object.clone());
            if let (Some(s), true) = (subjects.first(), warrant_facts::is_variable(&rule.head.subject)) {
                g.subject = Some(Value::String(s.clone()));
            }
            plan.goal = Some(g);
        } else if let (Some((t, _, None)), Some(s)) = (&template, subjects.first()) {
            // A value question about facts stated under several conditions names one of them
            // ("… expire from inactivity"): the goal carries that condition.
            if let Some(c) = condition_named(&body, s, &t.predicate, store)? {
                let mut g = Goal::new(Value::String(s.clone()), &t.predicate, Value::String("?answer".into()));
                g.qualifiers.insert("condition".into(), c);
                plan.goal = Some(g);
            }
        } else if let Some((t, _, Some(object))) = &template
            && t.yes_no
        {
            let object = match vocab.get(&t.predicate).map(|e| e.object_type()) {
                Some(ArgType::Entity) => store.entity_id(object)?.unwrap_or_else(|| canonical_entity(object)),
                Some(ArgType::Status | ArgType::Type) => object.to_lowercase(),
                _ => object.clone(),
            };
            if let Some(s) = subjects.first() {
                plan.goal = Some(Goal::new(Value::String(s.clone()), &t.predicate, Value::String(object)));
            }
        }
        if !subjects.is_empty() {
            plan.subjects = Some(subjects);
        }
        if !predicates.is_empty() {
            plan.predicates = Some(predicates);
        }
        if !params.is_empty() {
            plan.params = Some(params);
        }
        Ok(plan)
    }

    /// The version a question names and the question without that phrase, tidied.
    pub(crate) fn version_and_body(&self, question: &str) -> (Option<String>, String) {
        let q = question.trim();
        let found = self
            .version_a
            .captures(q)
            .or_else(|| self.version_b.captures(q))
            .or_else(|| self.named_versions.iter().find_map(|re| re.captures(q)));
        match found.as_ref().and_then(|c| Some((c.get(0)?, c.get(1)?))) {
            Some((all, v)) => (Some(v.as_str().to_string()), tidy(&format!("{} {}", &q[..all.start()], &q[all.end()..]))),
            None => (None, tidy(q)),
        }
    }

    /// Canonicalised n-grams naming stored entities (longest first at each position).
    fn ngram_subjects(&self, text: &str, store: &dyn Store) -> Result<Vec<String>, StoreError> {
        let tokens: Vec<&str> =
            text.split_whitespace().map(|t| t.trim_matches(|c: char| !c.is_alphanumeric())).filter(|t| !t.is_empty()).collect();
        let function = |t: &str| List::Question.contains(&t.to_lowercase());
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let mut step = 1;
            for n in (1..=4).rev() {
                if i + n > tokens.len() || function(tokens[i]) || function(tokens[i + n - 1]) {
                    continue;
                }
                let phrase = tokens[i..i + n].join(" ");
                if let Some(id) = store.entity_id(&phrase)? {
                    if !out.contains(&id) {
                        out.push(id);
                    }
                    step = n;
                    break;
                }
            }
            i += step;
        }
        Ok(out)
    }
}

/// The condition qualifier a question names, when the subject's facts of the predicate are
/// stated under two or more conditions and the question contains exactly one of them as a word.
fn condition_named(question: &str, subject: &str, predicate: &str, store: &dyn Store) -> Result<Option<Value>, StoreError> {
    let q = warrant_store::FactQuery::subject_predicate(subject, predicate);
    let mut conditions: Vec<Option<Value>> = Vec::new();
    store.visit_facts(&q, &mut |f| {
        let c = f.qualifiers.get("condition").cloned();
        if !conditions.contains(&c) {
            conditions.push(c);
        }
        conditions.len() < 64
    })?;
    if conditions.len() < 2 {
        return Ok(None);
    }
    let words: Vec<String> =
        question.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let named: Vec<Value> = conditions
        .into_iter()
        .flatten()
        .filter(|c| c.as_str().is_some_and(|c| !c.is_empty() && words.iter().any(|w| *w == c.to_lowercase())))
        .collect();
    Ok(if named.len() == 1 { named.into_iter().next() } else { None })
}

/// Trims, drops trailing `?`/`!`/`.` and leading punctuation, collapses whitespace.
fn tidy(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    let joined = words.join(" ");
    let t = joined.trim_end_matches(|c: char| c == '?' || c == '!' || c == '.' || c.is_whitespace());
    let t = t.trim_start_matches(|c: char| c == ',' || c == ';' || c == ':' || c.is_whitespace());
    t.replace(" ,", ",").trim_end_matches(',').trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_compile_and_tidy_questions() {
        let p = Planner::builtin(&Vocabulary::builtin());
        assert!(p.templates().len() >= 18);
        assert_eq!(tidy("  How long before X expire   ? "), "How long before X expire");
        assert_eq!(tidy(", is it valid?"), "is it valid");
        let version = |q: &str| {
            let (a, b) = (p.version_a.captures(q), p.version_b.captures(q));
            a.or(b).or_else(|| p.named_versions.iter().find_map(|re| re.captures(q))).map(|c| c[1].to_string())
        };
        assert_eq!(version("How long until API keys expire in v2.0?").as_deref(), Some("v2.0"));
        assert_eq!(version("What is the upload limit in Lumen 4.3?").as_deref(), Some("4.3"));
        assert_eq!(version("Is SSO included in release 4.2?").as_deref(), Some("4.2"));
        assert_eq!(version("How many days of leave are there in the 2024 handbook?").as_deref(), Some("2024"));
        assert_eq!(version("How many days of leave do staff get?"), None);
        // A lower-case word before a number is not a family name.
        assert_eq!(version("Do sessions expire in about 15 minutes?"), None);
        let t = p.templates().iter().find(|t| t.id == "requirement_yes_no").unwrap();
        let c = t.re.captures("Does the checkout service require the risk database").unwrap();
        assert_eq!((&c["subject"], &c["object"]), ("the checkout service", "the risk database"));
    }
}
