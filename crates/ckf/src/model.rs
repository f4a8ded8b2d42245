//! The package model (spec §2): metadata, the 17 item sections, the object sections,
//! traceability and the audit objects, serialised with keys in the canonical order.
//!
//! Item sections share one data-driven representation: a [`Section`] names its prefix, its
//! fields (kind, whether required, what role they play for the sanitizer) and its label, and an
//! [`Item`] holds one value per field in that order. Dedup, sanitation, numeric guards, id
//! assignment and serialisation are then written once for all sections.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::score::Score;

/// The 17 item sections, in canonical order (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Section {
    /// `entities` (`ent_`).
    Entities,
    /// `concepts` (`con_`).
    Concepts,
    /// `principles` (`pri_`).
    Principles,
    /// `heuristics` (`heu_`).
    Heuristics,
    /// `decision_rules` (`dec_`).
    DecisionRules,
    /// `procedures` (`proc_`).
    Procedures,
    /// `patterns` (`pat_`).
    Patterns,
    /// `anti_patterns` (`ant_`).
    AntiPatterns,
    /// `causal_chains` (`cau_`).
    CausalChains,
    /// `contextual_triggers` (`ctx_`).
    ContextualTriggers,
    /// `if_then_rules` (`ift_`).
    IfThenRules,
    /// `exceptions` (`exc_`).
    Exceptions,
    /// `mental_models` (`mm_`).
    MentalModels,
    /// `playbooks` (`pb_`).
    Playbooks,
    /// `qa_pairs` (`qa_`).
    QaPairs,
    /// `retrieval_chunks` (`chk_`).
    RetrievalChunks,
    /// `atomic_units` (`atm_`).
    AtomicUnits,
}

/// How a field's value is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// A string.
    Text,
    /// An array of strings.
    List,
    /// An array of item ids in the given sections (empty: any section).
    Refs(&'static [Section]),
    /// Procedure steps `[{step, action, input_required, output_expected}]`.
    Steps,
    /// Entity relations `[{entity_id, relation_type, confidence}]`.
    Related,
}

/// What the sanitizer checks on a field (§7.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Labels, names, titles, tags: language and obvious truncation.
    Label,
    /// Propositions: language, truncation and completeness (texts over 20 characters).
    Substantive,
    /// Clause fragments (`if`, `cause`, `condition`, …): language and obvious truncation; they
    /// carry no final punctuation by nature, so completeness does not apply.
    Clause,
    /// Enumerations and identifiers: not checked.
    Plain,
}

/// One field of a section.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    /// JSON name.
    pub name: &'static str,
    /// Shape.
    pub kind: FieldKind,
    /// Required by §2.5.
    pub required: bool,
    /// Sanitizer role.
    pub role: Role,
}

const fn f(name: &'static str, kind: FieldKind, required: bool, role: Role) -> FieldSpec {
    FieldSpec { name, kind, required, role }
}

use FieldKind::{List, Related, Steps, Text};
use Role::{Clause, Label, Plain, Substantive};

const RULE_SECTIONS: &[Section] = &[Section::Principles, Section::DecisionRules, Section::IfThenRules, Section::Exceptions];

/// Static description of an item section.
#[derive(Debug)]
pub struct SectionSpec {
    /// JSON key.
    pub key: &'static str,
    /// Id prefix.
    pub prefix: &'static str,
    /// Fields, in output order (after `id`, before the trace fields).
    pub fields: &'static [FieldSpec],
    /// Fields whose values, joined by a space, form the label (§2.5, D41).
    pub label: &'static [&'static str],
    /// Fuzzy-dedup key fields and threshold (§6.1 step 4); `None`: exact normalised label.
    pub fuzzy: Option<(&'static [&'static str], f64)>,
    /// Sanitizer rich-section dedup key (§7.8), at Jaccard ≥ 0.85.
    pub sanitize_key: Option<&'static [&'static str]>,
    /// Fields that, with the label, make an item's identity: two items with the same merge key
    /// but different values here are different items (project rule, see `reduce`).
    pub identity: &'static [&'static str],
}

static SPECS: [SectionSpec; 17] = [
    SectionSpec {
        key: "entities",
        prefix: "ent_",
        fields: &[
            f("name", Text, true, Label),
            f("type", Text, true, Plain),
            f("description", Text, true, Substantive),
            f("aliases", List, false, Label),
            f("attributes", List, false, Label),
            f("related_entities", Related, false, Plain),
        ],
        label: &["name"],
        fuzzy: Some((&["name"], 0.7)),
        sanitize_key: None,
        identity: &[],
    },
    SectionSpec {
        key: "concepts",
        prefix: "con_",
        fields: &[
            f("label", Text, true, Label),
            f("definition", Text, true, Substantive),
            f("domain", Text, false, Plain),
            f("depends_on", FieldKind::Refs(&[Section::Concepts]), false, Plain),
            f("contradicts", FieldKind::Refs(&[Section::Concepts]), false, Plain),
            f("supports", FieldKind::Refs(&[Section::Concepts]), false, Plain),
            f("enables", FieldKind::Refs(&[Section::Concepts]), false, Plain),
            f("risks", FieldKind::Refs(&[Section::Concepts]), false, Plain),
        ],
        label: &["label"],
        fuzzy: Some((&["label"], 0.75)),
        sanitize_key: None,
        identity: &[],
    },
    SectionSpec {
        key: "principles",
        prefix: "pri_",
        fields: &[
            f("statement", Text, true, Substantive),
            f("applies_when", Text, false, Clause),
            f("does_not_apply_when", Text, false, Clause),
            f("rationale", Text, false, Clause),
            f("operational_use", Text, false, Clause),
        ],
        label: &["statement"],
        fuzzy: Some((&["statement"], 0.75)),
        sanitize_key: Some(&["statement"]),
        identity: &[],
    },
    SectionSpec {
        key: "heuristics",
        prefix: "heu_",
        fields: &[
            f("trigger", Text, true, Clause),
            f("interpretation", Text, false, Clause),
            f("recommended_action", Text, true, Clause),
            f("avoid", Text, false, Clause),
        ],
        label: &["trigger"],
        fuzzy: Some((&["trigger", "recommended_action"], 0.75)),
        sanitize_key: None,
        identity: &["recommended_action"],
    },
    SectionSpec {
        key: "decision_rules",
        prefix: "dec_",
        fields: &[
            f("condition", Text, true, Clause),
            f("decision", Text, true, Clause),
            f("reasoning", Text, false, Clause),
            f("required_context", Text, false, Clause),
            f("output_action", Text, false, Clause),
            f("failure_mode", Text, false, Clause),
        ],
        label: &["condition"],
        fuzzy: Some((&["condition", "decision"], 0.75)),
        sanitize_key: Some(&["condition", "decision"]),
        identity: &["decision"],
    },
    SectionSpec {
        key: "procedures",
        prefix: "proc_",
        fields: &[
            f("name", Text, true, Label),
            f("objective", Text, false, Clause),
            f("steps", Steps, true, Plain),
            f("success_criteria", Text, false, Clause),
            f("failure_criteria", Text, false, Clause),
        ],
        label: &["name"],
        fuzzy: Some((&["name", "steps"], 0.7)),
        sanitize_key: Some(&["name", "objective"]),
        identity: &["steps"],
    },
    SectionSpec {
        key: "patterns",
        prefix: "pat_",
        fields: &[
            f("name", Text, true, Label),
            f("observed_when", Text, false, Clause),
            f("signal", Text, false, Clause),
            f("underlying_mechanism", Text, false, Clause),
            f("response_strategy", Text, false, Clause),
        ],
        label: &["name"],
        fuzzy: None,
        sanitize_key: None,
        identity: &[],
    },
    SectionSpec {
        key: "anti_patterns",
        prefix: "ant_",
        fields: &[
            f("name", Text, true, Label),
            f("description", Text, true, Substantive),
            f("why_it_fails", Text, false, Clause),
            f("warning_signals", Text, false, Clause),
            f("replacement_behavior", Text, false, Clause),
        ],
        label: &["name"],
        fuzzy: Some((&["name", "description"], 0.75)),
        sanitize_key: Some(&["name", "description"]),
        identity: &[],
    },
    SectionSpec {
        key: "causal_chains",
        prefix: "cau_",
        fields: &[
            f("cause", Text, true, Clause),
            f("mechanism", Text, false, Clause),
            f("effect", Text, true, Clause),
            f("secondary_effects", List, false, Clause),
            f("intervention_points", List, false, Clause),
        ],
        label: &["cause", "effect"],
        fuzzy: Some((&["cause", "effect"], 0.75)),
        sanitize_key: None,
        identity: &[],
    },
    SectionSpec {
        key: "contextual_triggers",
        prefix: "ctx_",
        fields: &[
            f("if_user_says_or_context_contains", Text, true, Clause),
            f("activate_knowledge", FieldKind::Refs(&[]), false, Plain),
            f("agent_should", Text, false, Clause),
            f("agent_should_not", Text, false, Clause),
        ],
        label: &["if_user_says_or_context_contains"],
        fuzzy: Some((&["if_user_says_or_context_contains"], 0.75)),
        sanitize_key: None,
        identity: &["agent_should"],
    },
    SectionSpec {
        key: "if_then_rules",
        prefix: "ift_",
        fields: &[f("if", Text, true, Clause), f("then", Text, true, Clause), f("because", Text, false, Clause)],
        label: &["if"],
        fuzzy: Some((&["if", "then"], 0.75)),
        sanitize_key: Some(&["if", "then"]),
        identity: &["then"],
    },
    SectionSpec {
        key: "exceptions",
        prefix: "exc_",
        fields: &[
            f("general_rule", Text, true, Clause),
            f("exception_case", Text, true, Clause),
            f("modified_action", Text, false, Clause),
            f("explanation", Text, false, Substantive),
        ],
        label: &["exception_case"],
        fuzzy: Some((&["general_rule", "exception_case"], 0.75)),
        sanitize_key: Some(&["general_rule", "exception_case"]),
        identity: &["general_rule"],
    },
    SectionSpec {
        key: "mental_models",
        prefix: "mm_",
        fields: &[
            f("name", Text, true, Label),
            f("description", Text, true, Substantive),
            f("use_when", Text, false, Clause),
            f("do_not_use_when", Text, false, Clause),
            f("input_needed", Text, false, Clause),
            f("output_generated", Text, false, Clause),
        ],
        label: &["name"],
        fuzzy: None,
        sanitize_key: None,
        identity: &[],
    },
    SectionSpec {
        key: "playbooks",
        prefix: "pb_",
        fields: &[
            f("name", Text, true, Label),
            f("objective", Text, false, Clause),
            f("activation_context", Text, false, Clause),
            f("steps", List, true, Clause),
            f("agent_tone", Text, false, Plain),
            f("tools_needed", List, false, Label),
            f("expected_output", Text, false, Clause),
            f("failure_modes", List, false, Clause),
        ],
        label: &["name"],
        fuzzy: Some((&["name", "activation_context"], 0.7)),
        sanitize_key: Some(&["name", "activation_context"]),
        identity: &["steps"],
    },
    SectionSpec {
        key: "qa_pairs",
        prefix: "qa_",
        fields: &[
            f("question", Text, true, Clause),
            f("ideal_answer", Text, true, Substantive),
            f("source_concepts", FieldKind::Refs(&[Section::Concepts]), false, Plain),
            f("difficulty", Text, false, Plain),
            f("answer_type", Text, false, Plain),
        ],
        label: &["question"],
        fuzzy: Some((&["question"], 0.8)),
        sanitize_key: Some(&["question", "ideal_answer"]),
        identity: &["ideal_answer"],
    },
    SectionSpec {
        key: "retrieval_chunks",
        prefix: "chk_",
        fields: &[
            f("title", Text, true, Label),
            f("standalone_context", Text, false, Clause),
            f("compressed_knowledge", Text, true, Substantive),
            f("activation_queries", List, false, Label),
            f("related_rules", FieldKind::Refs(RULE_SECTIONS), false, Plain),
            f("related_entities", FieldKind::Refs(&[Section::Entities]), false, Plain),
            f("related_concepts", FieldKind::Refs(&[Section::Concepts]), false, Plain),
        ],
        label: &["title"],
        fuzzy: None,
        sanitize_key: Some(&["title", "compressed_knowledge"]),
        identity: &["compressed_knowledge"],
    },
    SectionSpec {
        key: "atomic_units",
        prefix: "atm_",
        fields: &[
            f("statement", Text, true, Substantive),
            f("type", Text, true, Plain),
            f("tags", List, false, Label),
            f("dependencies", FieldKind::Refs(&[Section::AtomicUnits]), false, Plain),
        ],
        label: &["statement"],
        fuzzy: Some((&["statement"], 0.8)),
        sanitize_key: Some(&["statement"]),
        identity: &[],
    },
];

impl Section {
    /// Every item section, in canonical order.
    pub const ALL: [Section; 17] = [
        Section::Entities,
        Section::Concepts,
        Section::Principles,
        Section::Heuristics,
        Section::DecisionRules,
        Section::Procedures,
        Section::Patterns,
        Section::AntiPatterns,
        Section::CausalChains,
        Section::ContextualTriggers,
        Section::IfThenRules,
        Section::Exceptions,
        Section::MentalModels,
        Section::Playbooks,
        Section::QaPairs,
        Section::RetrievalChunks,
        Section::AtomicUnits,
    ];

    /// Position in canonical order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The static description.
    pub fn spec(self) -> &'static SectionSpec {
        &SPECS[self.index()]
    }

    /// JSON key.
    pub fn key(self) -> &'static str {
        self.spec().key
    }

    /// Id prefix.
    pub fn prefix(self) -> &'static str {
        self.spec().prefix
    }

    /// The section with this JSON key.
    pub fn from_key(key: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.key() == key)
    }

    /// Index of a field by name.
    pub fn field_index(self, name: &str) -> Option<usize> {
        self.spec().fields.iter().position(|f| f.name == name)
    }
}

/// `source_basis` (§5.2), ordered from least to most conservative (§6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Basis {
    /// Stated directly.
    Explicit,
    /// Combines two or more explicit statements.
    Inferred,
    /// Produced by the extractor; not a claim about the world.
    Synthesized,
    /// The source's own opinion.
    AuthorOpinion,
    /// Weakly supported.
    Uncertain,
}

impl Basis {
    /// Every value.
    pub const ALL: [Basis; 5] = [Basis::Explicit, Basis::Inferred, Basis::Synthesized, Basis::AuthorOpinion, Basis::Uncertain];

    /// JSON value.
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Explicit => "explicit",
            Basis::Inferred => "inferred",
            Basis::Synthesized => "synthesized",
            Basis::AuthorOpinion => "author_opinion",
            Basis::Uncertain => "uncertain",
        }
    }

    /// Parses a JSON value.
    pub fn parse(s: &str) -> Option<Basis> {
        Basis::ALL.into_iter().find(|b| b.as_str() == s)
    }
}

impl Serialize for Basis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A verbatim excerpt and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Index of the span (0-based; written as `s_NNN` with N = index + 1).
    pub span: u32,
    /// Byte range in the span's text that the excerpt was cut from.
    pub start: u32,
    /// End of that range.
    pub end: u32,
    /// The excerpt: normalised (§4), at most 240 characters.
    pub excerpt: String,
}

/// Span id (`s_001`, …) of a 0-based span index.
pub fn span_id(index: u32) -> String {
    format!("s_{:03}", index + 1)
}

/// The trace fields every item carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// How the item relates to the source.
    pub basis: Basis,
    /// Confidence, two decimals.
    pub confidence: Score,
    /// Up to two excerpts; `source_refs` are the distinct spans of these, in order.
    pub evidence: Vec<Evidence>,
}

impl Trace {
    /// The `source_refs`: distinct span indices of the evidence, in order.
    pub fn refs(&self) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::with_capacity(self.evidence.len());
        for e in &self.evidence {
            if !out.contains(&e.span) {
                out.push(e.span);
            }
        }
        out
    }

    /// The first referenced span (for ordering), or `u32::MAX` when there is none.
    pub fn first_span(&self) -> u32 {
        self.evidence.first().map_or(u32::MAX, |e| e.span)
    }
}

/// One procedure step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// 1-based step number.
    pub step: u32,
    /// What to do.
    pub action: String,
    /// What the step needs (may be empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub input_required: String,
    /// What the step produces (may be empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub output_expected: String,
}

/// One entity relation. `entity` is an item key until ids are assigned, then the id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// Target entity.
    pub entity: String,
    /// One of the relation vocabulary (§2.2).
    pub relation_type: String,
    /// Confidence of the relation.
    pub confidence: Score,
}

impl Serialize for Relation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("entity_id", &self.entity)?;
        m.serialize_entry("relation_type", &self.relation_type)?;
        m.serialize_entry("confidence", &self.confidence)?;
        m.end()
    }
}

/// A field value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field {
    /// A string.
    Text(String),
    /// Strings.
    List(Vec<String>),
    /// Item references: item keys while compiling, ids once assigned.
    Refs(Vec<String>),
    /// Procedure steps.
    Steps(Vec<Step>),
    /// Entity relations.
    Related(Vec<Relation>),
}

impl Field {
    fn empty(kind: FieldKind) -> Field {
        match kind {
            FieldKind::Text => Field::Text(String::new()),
            FieldKind::List => Field::List(Vec::new()),
            FieldKind::Refs(_) => Field::Refs(Vec::new()),
            FieldKind::Steps => Field::Steps(Vec::new()),
            FieldKind::Related => Field::Related(Vec::new()),
        }
    }

    /// True for an empty string or list.
    pub fn is_empty(&self) -> bool {
        match self {
            Field::Text(s) => s.is_empty(),
            Field::List(v) | Field::Refs(v) => v.is_empty(),
            Field::Steps(v) => v.is_empty(),
            Field::Related(v) => v.is_empty(),
        }
    }

    /// Calls `f` with each string a key reads from the field, in order: the text, each list
    /// entry or reference, each step's action, each relation's target. (Keys join them with
    /// spaces; slugs of keys take them one by one.)
    pub fn for_each_key_part<'a>(&'a self, mut f: impl FnMut(&'a str)) {
        match self {
            Field::Text(s) => f(s),
            Field::List(v) | Field::Refs(v) => v.iter().for_each(|s| f(s)),
            Field::Steps(v) => v.iter().for_each(|s| f(&s.action)),
            Field::Related(v) => v.iter().for_each(|r| f(&r.entity)),
        }
    }

    /// Every string the field holds that is prose (not a reference), for checks.
    pub fn texts(&self) -> Vec<&str> {
        match self {
            Field::Text(s) => vec![s.as_str()],
            Field::List(v) => v.iter().map(String::as_str).collect(),
            Field::Steps(v) => v
                .iter()
                .flat_map(|s| [s.action.as_str(), s.input_required.as_str(), s.output_expected.as_str()])
                .filter(|s| !s.is_empty())
                .collect(),
            Field::Refs(_) | Field::Related(_) => Vec::new(),
        }
    }

    /// Mutable access to every prose string of the field.
    pub fn texts_mut(&mut self) -> Vec<&mut String> {
        match self {
            Field::Text(s) => vec![s],
            Field::List(v) => v.iter_mut().collect(),
            Field::Steps(v) => {
                v.iter_mut().flat_map(|s| [&mut s.action, &mut s.input_required, &mut s.output_expected]).collect()
            }
            Field::Refs(_) | Field::Related(_) => Vec::new(),
        }
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Text(t) => s.serialize_str(t),
            Field::List(v) | Field::Refs(v) => v.serialize(s),
            Field::Steps(v) => v.serialize(s),
            Field::Related(v) => v.serialize(s),
        }
    }
}

/// One item of an item section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its section.
    pub section: Section,
    /// Final id (empty until assigned, §3.2).
    pub id: String,
    /// One value per field of the section, in the section's order.
    pub fields: Vec<Field>,
    /// Trace fields.
    pub trace: Trace,
}

impl Item {
    /// An item with empty fields.
    pub fn new(section: Section, basis: Basis, confidence: Score) -> Item {
        Item {
            section,
            id: String::new(),
            fields: section.spec().fields.iter().map(|f| Field::empty(f.kind)).collect(),
            trace: Trace { basis, confidence, evidence: Vec::new() },
        }
    }

    fn idx(&self, name: &str) -> usize {
        match self.section.field_index(name) {
            Some(i) => i,
            None => panic!("section {} has no field {name}", self.section.key()),
        }
    }

    /// A field's value by name.
    ///
    /// # Panics
    /// When the section has no such field (a programming error).
    pub fn field(&self, name: &str) -> &Field {
        &self.fields[self.idx(name)]
    }

    /// A field's value by name, mutably.
    ///
    /// # Panics
    /// When the section has no such field (a programming error).
    pub fn field_mut(&mut self, name: &str) -> &mut Field {
        let i = self.idx(name);
        &mut self.fields[i]
    }

    /// A text field's value (`""` for other kinds and for fields the section does not have).
    pub fn text(&self, name: &str) -> &str {
        match self.section.field_index(name).map(|i| &self.fields[i]) {
            Some(Field::Text(s)) => s,
            _ => "",
        }
    }

    /// Sets a text field (the value is normalised).
    #[must_use]
    pub fn with(mut self, name: &str, value: &str) -> Item {
        *self.field_mut(name) = Field::Text(crate::normalize::normalize(value));
        self
    }

    /// Sets a list field (values normalised, empties dropped).
    #[must_use]
    pub fn with_list(mut self, name: &str, values: Vec<String>) -> Item {
        let v: Vec<String> = values.iter().map(|s| crate::normalize::normalize(s)).filter(|s| !s.is_empty()).collect();
        *self.field_mut(name) = match self.section.spec().fields[self.idx(name)].kind {
            FieldKind::Refs(_) => Field::Refs(v),
            _ => Field::List(v),
        };
        self
    }

    /// Sets any field.
    #[must_use]
    pub fn with_field(mut self, name: &str, value: Field) -> Item {
        *self.field_mut(name) = value;
        self
    }

    /// Adds evidence.
    #[must_use]
    pub fn with_evidence(mut self, ev: impl IntoIterator<Item = Evidence>) -> Item {
        self.trace.evidence.extend(ev);
        self
    }

    /// The label (§2.5): the label fields joined by a space, normalised.
    pub fn label(&self) -> String {
        let parts: Vec<&str> = self.section.spec().label.iter().map(|n| self.text(n)).filter(|s| !s.is_empty()).collect();
        match parts.as_slice() {
            // Most labels are one field: normalised without a joined copy first.
            [one] => crate::normalize::normalize(one),
            _ => crate::normalize::normalize(&parts.join(" ")),
        }
    }

    /// The merge key (§3.2): prefix plus the untruncated slug of the full label.
    pub fn merge_key(&self) -> String {
        // The slug of the joined label equals the slugs of its parts joined by `_` (separators
        // collapse and trim), and slugs fold through NFKD, so neither the join nor the NFC
        // normalisation of `label()` is needed here.
        let mut key = String::with_capacity(64);
        self.push_merge_key(&mut key);
        key
    }

    /// Appends the merge key to `key`.
    fn push_merge_key(&self, key: &mut String) {
        key.push_str(self.section.prefix());
        let bare = key.len();
        for n in self.section.spec().label {
            crate::normalize::push_slug(key, bare, self.text(n), '_');
        }
        if key.len() == bare {
            key.push_str("item");
        }
    }

    /// A field flattened to text (lists and step actions joined by spaces), for keys.
    pub fn field_text(&self, name: &str) -> String {
        let mut out = String::new();
        let mut first = true;
        self.field(name).for_each_key_part(|t| {
            if !first {
                out.push(' ');
            }
            first = false;
            out.push_str(t);
        });
        out
    }

    /// Several fields flattened and joined by a space.
    pub fn key_text(&self, names: &[&str]) -> String {
        names.iter().map(|n| self.field_text(n)).collect::<Vec<_>>().join(" ")
    }

    /// The handle cross-references use while compiling: the merge key, plus a slug of the
    /// identity fields for sections whose label is only part of what an item says.
    pub fn handle(&self) -> String {
        let spec = self.section.spec();
        let mut key = String::with_capacity(64);
        self.push_merge_key(&mut key);
        if spec.identity.is_empty() {
            return key;
        }
        // `|` + the slug of `key_text(identity)`, part by part (the same slug: see `push_slug`).
        key.push('|');
        let start = key.len();
        for n in spec.identity {
            self.field(n).for_each_key_part(|t| crate::normalize::push_slug(&mut key, start, t, '_'));
        }
        key
    }

    /// Canonical JSON of the content fields (no id, no trace), for ordering and hashes.
    pub fn content_json(&self) -> String {
        serde_json::to_string(&ContentView(self)).unwrap_or_default()
    }

    /// Every prose string of the item with its field name (for sanitizer and numeric checks).
    pub fn texts(&self) -> Vec<(&'static str, &str)> {
        let spec = self.section.spec();
        let mut out = Vec::new();
        for (fs, f) in spec.fields.iter().zip(&self.fields) {
            for t in f.texts() {
                out.push((fs.name, t));
            }
        }
        out
    }
}

struct ContentView<'a>(&'a Item);

impl Serialize for ContentView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let item = self.0;
        let spec = item.section.spec();
        let mut m = s.serialize_map(None)?;
        for (fs, f) in spec.fields.iter().zip(&item.fields) {
            if fs.required || !f.is_empty() {
                m.serialize_entry(fs.name, f)?;
            }
        }
        m.end()
    }
}

struct Excerpts<'a>(&'a [Evidence]);

impl Serialize for Excerpts<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for e in self.0 {
            seq.serialize_element(&e.excerpt)?;
        }
        seq.end()
    }
}

impl Serialize for Item {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let spec = self.section.spec();
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.id)?;
        for (fs, f) in spec.fields.iter().zip(&self.fields) {
            if fs.required || !f.is_empty() {
                m.serialize_entry(fs.name, f)?;
            }
        }
        m.serialize_entry("source_basis", &self.trace.basis)?;
        m.serialize_entry("confidence", &self.trace.confidence)?;
        let refs: Vec<String> = self.trace.refs().into_iter().map(span_id).collect();
        m.serialize_entry("source_refs", &refs)?;
        m.serialize_entry("source_excerpts", &Excerpts(&self.trace.evidence))?;
        m.end()
    }
}

/// `metadata.source_manifest[]` entry (§2.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestEntry {
    /// `s_NNN`.
    pub source_id: String,
    /// `jsonl_record`, `json_array_record`, `markdown_section`, `legal_article`, `faq_pair`, `document`.
    pub source_type: &'static str,
    /// Native record key for record-oriented inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_record_id: Option<String>,
    /// The file the span comes from.
    pub source_file: String,
    /// Heading trail joined with ` > `.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The span's own heading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// A title (record title, FAQ question).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// First line (1-based) in the text read from the file.
    pub line_start: u32,
    /// Last line (1-based).
    pub line_end: u32,
    /// First char (Unicode scalar values, 0-based) in the text read from the file.
    pub char_start: u64,
    /// One past the last char.
    pub char_end: u64,
    /// SHA-256 of the span text.
    pub text_sha256: String,
    /// At most 200 characters of the span text.
    pub text_preview: String,
}

/// `metadata` (§2.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Metadata {
    /// `<source-slug>-<version>`.
    pub package_id: String,
    /// `ckf-1.0`.
    pub protocol_version: String,
    /// `policy`, `faq`, `transcript`, …
    pub source_type: String,
    /// Title, `unknown` if missing.
    pub source_title: String,
    /// Author, `unknown` if missing.
    pub source_author: String,
    /// Closed domain enum.
    pub domain: String,
    /// Finer topics.
    pub subdomains: Vec<String>,
    /// BCP-47.
    pub language: String,
    /// ISO-8601 date-time.
    pub created_at: String,
    /// `light`, `standard`, `dense`, `agentic`.
    pub compression_level: String,
    /// §7.11.
    pub human_readability: Score,
    /// §7.11.
    pub ai_utility_score: Score,
    /// One entry per span.
    pub source_manifest: Vec<ManifestEntry>,
    /// SHA-256 of the source bytes.
    pub source_sha256: String,
    /// The compiler's name and version.
    pub compiler_profile: String,
    /// Front-matter subtitle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_subtitle: Option<String>,
    /// Front-matter authors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub source_authors: Vec<String>,
    /// Front-matter edition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_edition: Option<String>,
    /// Front-matter publisher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_publisher: Option<String>,
    /// Front-matter year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_year: Option<String>,
    /// Front-matter ISBN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_isbn: Option<String>,
}

/// `core_intent` (§2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct CoreIntent {
    /// What the source is for.
    pub primary_purpose: String,
    /// Who it is written for.
    pub intended_user: String,
    /// How an agent should use the package.
    pub intended_agent_use: String,
    /// What compiling it achieves.
    pub transformation_goal: String,
    /// Why it matters.
    pub key_value: String,
}

/// `domain_map.subdomains[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Subdomain {
    /// Subdomain name.
    pub name: String,
    /// Share of the domain signal, two decimals.
    pub relevance: Score,
    /// Concept ids (keys until ids are assigned).
    pub related_concepts: Vec<String>,
}

/// `domain_map` (§2.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct DomainMap {
    /// Equals `metadata.domain`.
    pub main_domain: String,
    /// Finer topics with relevance.
    pub subdomains: Vec<Subdomain>,
    /// Other domains the source touches.
    pub adjacent_domains: Vec<String>,
    /// Domains the source explicitly leaves out.
    pub excluded_domains: Vec<String>,
}

/// `agent_instructions` (§2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct AgentInstructions {
    /// How to behave.
    pub behavior_rules: Vec<String>,
    /// How to reason.
    pub reasoning_rules: Vec<String>,
    /// How to answer.
    pub response_rules: Vec<String>,
    /// What never to do.
    pub forbidden_behaviors: Vec<String>,
    /// Questions worth asking.
    pub preferred_questions: Vec<String>,
    /// How to use tools.
    pub tool_usage_guidance: Vec<String>,
}

/// `knowledge_limits` (§2.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct KnowledgeLimits {
    /// Context the source refers to but does not contain.
    pub missing_context: Vec<String>,
    /// Claims with weak support.
    pub weakly_supported_claims: Vec<String>,
    /// Assumptions the source states.
    pub assumptions_detected: Vec<String>,
    /// Opinions and one-sided statements.
    pub possible_biases: Vec<String>,
    /// Time-bound or deprecated material.
    pub outdated_sections: Vec<String>,
    /// What a person should check.
    pub needs_human_review: Vec<String>,
}

/// A `source_traceability` row (§2.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceRow {
    /// The item's id.
    pub extracted_item_id: String,
    /// Span id.
    pub source_location: String,
    /// Verbatim excerpt.
    pub source_excerpt: String,
    /// Equals the item's `source_basis` (D40).
    pub extraction_type: Basis,
    /// Record key for record inputs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_record_id: Option<String>,
    /// From the manifest.
    pub source_file: String,
    /// From the manifest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// From the manifest.
    pub source_line_start: u32,
    /// From the manifest.
    pub source_line_end: u32,
    /// From the manifest.
    pub source_char_start: u64,
    /// From the manifest.
    pub source_char_end: u64,
    /// Copy of the item's basis.
    pub source_basis: Basis,
    /// Copy of the item's confidence.
    pub confidence: Score,
}

/// A promotion candidate that was rejected (§7.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PromotionReject {
    /// Span id of the candidate.
    pub source_id: String,
    /// Section the candidate came from.
    pub source_section: &'static str,
    /// Section it would have gone to.
    pub target_section: &'static str,
    /// `language_mismatch`, `truncated`, `incomplete_proposition`, `near_duplicate`, `no_pattern_match`.
    pub reason: &'static str,
    /// At most 80 characters of the candidate.
    pub text_preview: String,
}

/// `promotion_audit` (§7.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct PromotionAudit {
    /// Candidates copied into a richer section.
    pub promoted_count: u32,
    /// Candidates rejected.
    pub rejected_count: u32,
    /// Each rejection.
    pub rejected_items: Vec<PromotionReject>,
}

/// An item the sanitizer removed or quarantined (§7.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SanitizerReject {
    /// Section.
    pub section: &'static str,
    /// The item's merge key (items removed before id assignment have no id).
    pub item_id: String,
    /// Why.
    pub reason: &'static str,
    /// The failing field.
    pub field: &'static str,
    /// At most 80 characters of the field.
    pub text_preview: String,
}

/// `sanitizer_audit` (§7.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct SanitizerAudit {
    /// Items removed.
    pub removed_count: u32,
    /// Items quarantined.
    pub quarantined_count: u32,
    /// Items merged away as near-duplicates.
    pub deduplicated_count: u32,
    /// Each rejection.
    pub rejected_items: Vec<SanitizerReject>,
    /// Set when the language was relabelled (§7.8 language recovery).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_recovery_applied: Option<bool>,
    /// Items restored by the recovery pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restored_count: Option<u32>,
}

/// `coverage_report` (§7.7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoverageReport {
    /// `summary`, `balanced` or `complete`.
    pub mode: &'static str,
    /// Retrieval chunks inserted.
    pub inserted_retrieval_chunks: u32,
    /// QA pairs inserted.
    pub inserted_qa_pairs: u32,
    /// Atomic units inserted.
    pub inserted_atomic_units: u32,
    /// Spans in the manifest.
    pub spans_total: u32,
    /// Spans some item references.
    pub spans_covered: u32,
    /// Share of record spans covered (1 when there are no records).
    pub source_record_coverage: Score,
}

/// A numeric value repaired to the source's literal (§7.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NumericCorrection {
    /// The item.
    pub item_id: String,
    /// The field.
    pub field: &'static str,
    /// The value as extracted.
    pub from: String,
    /// The source's literal.
    pub to: String,
    /// The span it was found in.
    pub source_ref: String,
}

/// `numeric_integrity` (§7.10).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct NumericIntegrity {
    /// clamp((matched + corrected) / total − 0.1 × unverifiable), 1 when nothing was checked.
    pub numeric_integrity_score: Score,
    /// Numeric values checked.
    pub total_values_checked: u32,
    /// Found verbatim in the item's excerpts.
    pub exact_matches: u32,
    /// Repaired to the longer source literal.
    pub corrected: u32,
    /// Not found: the item was dropped.
    pub unverifiable: u32,
    /// Each repair.
    pub corrections: Vec<NumericCorrection>,
}

/// A whole package.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// `metadata`.
    pub metadata: Metadata,
    /// `core_intent`.
    pub core_intent: CoreIntent,
    /// `domain_map`.
    pub domain_map: DomainMap,
    /// The 17 item sections, indexed by [`Section::index`].
    pub sections: Vec<Vec<Item>>,
    /// `agent_instructions`.
    pub agent_instructions: AgentInstructions,
    /// `knowledge_limits`.
    pub knowledge_limits: KnowledgeLimits,
    /// `source_traceability`.
    pub source_traceability: Vec<TraceRow>,
    /// `promotion_audit`.
    pub promotion_audit: Option<PromotionAudit>,
    /// `sanitizer_audit`.
    pub sanitizer_audit: Option<SanitizerAudit>,
    /// `coverage_report`.
    pub coverage_report: Option<CoverageReport>,
    /// `numeric_integrity`.
    pub numeric_integrity: Option<NumericIntegrity>,
}

impl Package {
    /// The items of a section.
    pub fn section(&self, s: Section) -> &[Item] {
        &self.sections[s.index()]
    }

    /// Every item, section by section.
    pub fn items(&self) -> impl Iterator<Item = &Item> {
        self.sections.iter().flatten()
    }
}

impl Serialize for Package {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("metadata", &self.metadata)?;
        m.serialize_entry("core_intent", &self.core_intent)?;
        m.serialize_entry("domain_map", &self.domain_map)?;
        for sec in Section::ALL {
            m.serialize_entry(sec.key(), &self.sections[sec.index()])?;
        }
        m.serialize_entry("agent_instructions", &self.agent_instructions)?;
        m.serialize_entry("knowledge_limits", &self.knowledge_limits)?;
        m.serialize_entry("source_traceability", &self.source_traceability)?;
        if let Some(a) = &self.promotion_audit {
            m.serialize_entry("promotion_audit", a)?;
        }
        if let Some(a) = &self.sanitizer_audit {
            m.serialize_entry("sanitizer_audit", a)?;
        }
        if let Some(a) = &self.coverage_report {
            m.serialize_entry("coverage_report", a)?;
        }
        if let Some(a) = &self.numeric_integrity {
            m.serialize_entry("numeric_integrity", a)?;
        }
        m.end()
    }
}

/// The 22 section keys after `metadata`, in canonical order (§2.1).
pub const TOP_LEVEL_SECTIONS: [&str; 22] = [
    "core_intent",
    "domain_map",
    "entities",
    "concepts",
    "principles",
    "heuristics",
    "decision_rules",
    "procedures",
    "patterns",
    "anti_patterns",
    "causal_chains",
    "contextual_triggers",
    "if_then_rules",
    "exceptions",
    "mental_models",
    "playbooks",
    "qa_pairs",
    "retrieval_chunks",
    "atomic_units",
    "agent_instructions",
    "knowledge_limits",
    "source_traceability",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_in_canonical_order_with_unique_prefixes() {
        let keys: Vec<&str> = Section::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(keys, TOP_LEVEL_SECTIONS[2..19].to_vec());
        for (i, s) in Section::ALL.iter().enumerate() {
            assert_eq!(s.index(), i);
            assert_eq!(Section::from_key(s.key()), Some(*s));
            for l in s.spec().label {
                assert!(s.field_index(l).is_some(), "{} label {l}", s.key());
            }
            for l in s.spec().identity {
                assert!(s.field_index(l).is_some(), "{} identity {l}", s.key());
            }
        }
        let mut prefixes: Vec<&str> = Section::ALL.iter().map(|s| s.prefix()).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        assert_eq!(prefixes.len(), 17);
    }

    #[test]
    fn items_serialise_id_fields_then_trace_in_order() {
        let it = Item::new(Section::IfThenRules, Basis::Explicit, Score::hundredths(90))
            .with("if", "the  build fails")
            .with("then", "roll back.")
            .with_evidence([Evidence { span: 0, start: 0, end: 10, excerpt: "If the build fails, roll back.".into() }]);
        let json = serde_json::to_string(&it).unwrap();
        assert_eq!(
            json,
            r#"{"id":"","if":"the build fails","then":"roll back.","source_basis":"explicit","confidence":0.9,"source_refs":["s_001"],"source_excerpts":["If the build fails, roll back."]}"#
        );
        assert_eq!(it.label(), "the build fails");
        assert_eq!(it.merge_key(), "ift_the_build_fails");
        assert_eq!(it.content_json(), r#"{"if":"the build fails","then":"roll back."}"#);
    }

    #[test]
    fn causal_labels_join_cause_and_effect() {
        let it = Item::new(Section::CausalChains, Basis::Explicit, Score::ONE).with("cause", "Heat").with("effect", "expansion");
        assert_eq!(it.label(), "Heat expansion");
        assert_eq!(it.merge_key(), "cau_heat_expansion");
    }

    proptest::proptest! {
        /// The merge key built part by part equals the §3.2 definition over the whole label.
        #[test]
        fn merge_key_is_the_slug_of_the_normalised_label(
            cause in "[ a-zA-Z0-9.,:;!?_()'\u{e9}\u{c7}\u{130}\u{301}\u{2014}\u{ff21}]{0,24}",
            effect in "[ a-zA-Z0-9.,:;!?_()'\u{e9}\u{c7}\u{130}\u{301}\u{2014}\u{ff21}]{0,24}",
        ) {
            let it = Item::new(Section::CausalChains, Basis::Explicit, Score::ONE).with("cause", &cause).with("effect", &effect);
            let slug = crate::normalize::slug_full(&it.label(), '_');
            let want = format!("cau_{}", if slug.is_empty() { "item" } else { &slug });
            proptest::prop_assert_eq!(it.merge_key(), want);
        }

        /// The handle built part by part equals the merge key, `|` and the slug of the identity
        /// fields' joined text (text and step fields).
        #[test]
        fn handle_is_the_merge_key_and_the_identity_slug(
            name in "[ a-zA-Z0-9.,_'\u{e9}\u{301}\u{ff21}]{0,16}",
            steps in proptest::collection::vec("[ a-zA-Z0-9.,_'\u{e9}\u{301}\u{ff21}]{0,12}", 0..4),
            then in "[ a-zA-Z0-9.,_'\u{e9}\u{301}\u{ff21}]{0,24}",
        ) {
            let steps: Vec<Step> = steps.iter().enumerate().map(|(k, a)| Step { step: k as u32 + 1, action: a.clone(), input_required: String::new(), output_expected: String::new() }).collect();
            let proc = Item::new(Section::Procedures, Basis::Explicit, Score::ONE).with("name", &name).with_field("steps", Field::Steps(steps));
            let rule = Item::new(Section::IfThenRules, Basis::Explicit, Score::ONE).with("if", &name).with("then", &then);
            for it in [proc, rule] {
                let ident = crate::normalize::slug_full(&it.key_text(it.section.spec().identity), '_');
                proptest::prop_assert_eq!(it.handle(), format!("{}|{ident}", it.merge_key()));
            }
        }
    }
}
