//! The Agent Evidence 0.1.0 documents and their shared definitions (spec §2–§4).
//!
//! Field names are the schemas' own. Every object is open: unknown fields land in `extra` and
//! are written back after the known ones, so a read-modify-write keeps them. Optional fields
//! are `Option`s (an absent array stays absent; an empty one stays empty); slices of the
//! optional arrays are available through methods of the same name. Numbers are
//! [`serde_json::Number`]s, kept exactly as written. Closed enums are Rust enums; open
//! vocabularies (`claim_type`, `source_kind`, `check_type`, file `role`, …) are strings.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Number, Value};

use crate::de::{closed_enum, open_deserialize};

/// The one `schema_version` the published schemas accept (D50), even at release v0.1.8.
pub const SCHEMA_VERSION: &str = "0.1.0";

/// A free JSON object.
pub type Object = Map<String, Value>;

/// An id: `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$`. See [`crate::ids::is_valid_id`].
pub type Id = String;

/// An RFC 3339 date-time string.
pub type Timestamp = String;

fn slice<T>(v: &Option<Vec<T>>) -> &[T] {
    v.as_deref().unwrap_or(&[])
}

// ---------------------------------------------------------------- enums (§3)

closed_enum! {
    /// Lifecycle status of an evidence pack.
    pub enum PackStatus {
        Draft = "draft",
        Collecting = "collecting",
        Ready = "ready",
        Partial = "partial",
        Verified = "verified",
        Reviewed = "reviewed",
        Exported = "exported",
        Redacted = "redacted",
        Expired = "expired",
        Invalid = "invalid",
    }
}

closed_enum! {
    /// How far a claim is backed by evidence (spec §4.2).
    pub enum ClaimStatus {
        /// At least one supporting edge and no unresolved contradiction.
        Supported = "supported",
        /// Only part of the claim is backed.
        PartiallySupported = "partially_supported",
        /// Checked, and no support was found.
        Unsupported = "unsupported",
        /// A source contradicts it; the `contradicts` edge is kept.
        Contradicted = "contradicted",
        /// Nothing was checked.
        Unverified = "unverified",
        /// Opinion, formatting or other non-evidentiary content.
        NotApplicable = "not_applicable",
    }
}

closed_enum! {
    /// Edge relationship, shared by support edges and provenance edges.
    pub enum Relationship {
        Supports = "supports",
        PartiallySupports = "partially_supports",
        Contradicts = "contradicts",
        Qualifies = "qualifies",
        Background = "background",
        GeneratedFrom = "generated_from",
        VerifiedBy = "verified_by",
        ReviewedBy = "reviewed_by",
        DerivedFrom = "derived_from",
        GeneratedBy = "generated_by",
        Used = "used",
        AttributedTo = "attributed_to",
        AssociatedWith = "associated_with",
        RedactedFrom = "redacted_from",
    }
}

impl Relationship {
    /// `supports` or `partially_supports`.
    pub fn is_support(self) -> bool {
        matches!(self, Self::Supports | Self::PartiallySupports)
    }

    /// The relationships that only make sense between a claim and its evidence, never in a
    /// provenance graph (`AEV-PROV-REL`).
    pub fn is_claim_only(self) -> bool {
        matches!(self, Self::Supports | Self::PartiallySupports | Self::Contradicts | Self::Qualifies | Self::Background)
    }
}

closed_enum! {
    /// W3C PROV node type.
    pub enum NodeType {
        Entity = "entity",
        Activity = "activity",
        Agent = "agent",
    }
}

closed_enum! {
    /// Outcome of one check.
    pub enum VerificationStatus {
        Passed = "passed",
        Failed = "failed",
        Warning = "warning",
        Skipped = "skipped",
        NotApplicable = "not_applicable",
        Error = "error",
    }
}

closed_enum! {
    /// Severity of a verification result.
    pub enum CheckSeverity {
        Info = "info",
        Low = "low",
        Medium = "medium",
        High = "high",
        Critical = "critical",
    }
}

closed_enum! {
    /// A reviewer's verdict.
    pub enum Verdict {
        Approved = "approved",
        Rejected = "rejected",
        NeedsChanges = "needs_changes",
        Escalated = "escalated",
        Waived = "waived",
        Informational = "informational",
    }
}

closed_enum! {
    /// How faithfully a run can be replayed.
    pub enum Determinism {
        Deterministic = "deterministic",
        Approximate = "approximate",
        NonDeterministic = "non_deterministic",
        Unavailable = "unavailable",
    }
}

closed_enum! {
    /// What a redaction did.
    pub enum RedactionKind {
        Remove = "remove",
        Mask = "mask",
        Hash = "hash",
        Tokenize = "tokenize",
        Summarize = "summarize",
        Withhold = "withhold",
        Expire = "expire",
    }
}

closed_enum! {
    /// Event type (dotted names).
    pub enum EventType {
        PackCreated = "evidence.pack.created",
        PackUpdated = "evidence.pack.updated",
        ClaimAdded = "evidence.claim.added",
        SourceLinked = "evidence.source.linked",
        SupportUpdated = "evidence.support.updated",
        ProvenanceLinked = "evidence.provenance.linked",
        VerificationCompleted = "evidence.verification.completed",
        ReviewCompleted = "evidence.review.completed",
        ReplayCreated = "evidence.replay.created",
        RedactionApplied = "evidence.redaction.applied",
        ExportCreated = "evidence.export.created",
        Warning = "evidence.warning",
        Error = "evidence.error",
    }
}

closed_enum! {
    /// What kind of system produced a document.
    pub enum ProducerType {
        Runtime = "runtime",
        Service = "service",
        Worker = "worker",
        Host = "host",
        Exporter = "exporter",
        Reviewer = "reviewer",
        Policy = "policy",
        Tool = "tool",
        Peer = "peer",
        Other = "other",
    }
}

closed_enum! {
    /// Why a fact is missing. A missing fact is never success.
    pub enum MissingReason {
        Unknown = "unknown",
        Unavailable = "unavailable",
        Redacted = "redacted",
        Expired = "expired",
        NotApplicable = "not_applicable",
        NotCollected = "not_collected",
    }
}

closed_enum! {
    /// How complete one category of evidence is.
    pub enum CompletenessStatus {
        Complete = "complete",
        Partial = "partial",
        Missing = "missing",
        Unknown = "unknown",
        NotApplicable = "not_applicable",
        NotCollected = "not_collected",
    }
}

impl CompletenessStatus {
    /// `missing`, `unknown` or `not_collected`: a passed check must not claim to cover it.
    pub fn is_gap(self) -> bool {
        matches!(self, Self::Missing | Self::Unknown | Self::NotCollected)
    }
}

// ---------------------------------------------------------------- shared $defs (§2)

/// A reference to something held elsewhere.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Ref {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ref_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_ref: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Ref { ref_id, kind, uri, hash, media_type, schema_ref });

/// What a document is about: runtime correlation ids, kept verbatim. At least one key.
///
/// The pack schema also types `attempt_id`, `step_id`, `tool_call_id`, `action_id`,
/// `context_id` and `policy_decision_id` as ids (v0.1.8); the other schemas leave them free,
/// so they live in `extra` here. Read any key with [`Scope::get`], write with [`Scope::set`].
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Scope {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_id: Option<Id>,
    /// A free string (no id pattern).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_case_id: Option<String>,
    /// Other keys, including the pack-only v0.1.8 ids.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Scope {
    scope_id,
    runtime_id,
    session_id,
    thread_id,
    turn_id,
    task_id,
    run_id,
    artifact_id,
    answer_id,
    review_id,
    external_case_id
});

/// Scope keys the pack schema types as ids.
pub const SCOPE_ID_KEYS: [&str; 16] = [
    "scope_id",
    "runtime_id",
    "session_id",
    "thread_id",
    "turn_id",
    "task_id",
    "run_id",
    "attempt_id",
    "step_id",
    "tool_call_id",
    "action_id",
    "artifact_id",
    "context_id",
    "policy_decision_id",
    "answer_id",
    "review_id",
];

impl Scope {
    /// A scope naming one answer.
    pub fn answer(answer_id: impl Into<String>) -> Self {
        Self { answer_id: Some(answer_id.into()), ..Self::default() }
    }

    fn typed_mut(&mut self, key: &str) -> Option<&mut Option<String>> {
        Some(match key {
            "scope_id" => &mut self.scope_id,
            "runtime_id" => &mut self.runtime_id,
            "session_id" => &mut self.session_id,
            "thread_id" => &mut self.thread_id,
            "turn_id" => &mut self.turn_id,
            "task_id" => &mut self.task_id,
            "run_id" => &mut self.run_id,
            "artifact_id" => &mut self.artifact_id,
            "answer_id" => &mut self.answer_id,
            "review_id" => &mut self.review_id,
            "external_case_id" => &mut self.external_case_id,
            _ => return None,
        })
    }

    /// The string value of any key (typed or extra).
    pub fn get(&self, key: &str) -> Option<&str> {
        let typed = match key {
            "scope_id" => &self.scope_id,
            "runtime_id" => &self.runtime_id,
            "session_id" => &self.session_id,
            "thread_id" => &self.thread_id,
            "turn_id" => &self.turn_id,
            "task_id" => &self.task_id,
            "run_id" => &self.run_id,
            "artifact_id" => &self.artifact_id,
            "answer_id" => &self.answer_id,
            "review_id" => &self.review_id,
            "external_case_id" => &self.external_case_id,
            _ => return self.extra.get(key).and_then(Value::as_str),
        };
        typed.as_deref()
    }

    /// Sets any key to a string (builder style).
    pub fn set(mut self, key: &str, value: impl Into<String>) -> Self {
        let value = value.into();
        match self.typed_mut(key) {
            Some(slot) => *slot = Some(value),
            None => {
                self.extra.insert(key.to_string(), Value::String(value));
            }
        }
        self
    }

    /// True when no key is set (the schema needs at least one).
    pub fn is_empty(&self) -> bool {
        SCOPE_ID_KEYS.iter().all(|k| self.get(k).is_none()) && self.external_case_id.is_none() && self.extra.is_empty()
    }
}

/// Who produced a document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Producer {
    pub id: Id,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<ProducerType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Producer { id, kind as "type", name, version });

impl Producer {
    /// A producer with just an id.
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), kind: None, name: None, version: None, extra: Object::new() }
    }
}

/// A fact that is not there, and why. Never read as success.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingFact {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fact: Option<String>,
    pub reason: MissingReason,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_at: Option<Timestamp>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(MissingFact { fact, reason, owner, details, observed_at });

impl MissingFact {
    /// A missing fact with its reason and what it is.
    pub fn new(reason: MissingReason, fact: impl Into<String>) -> Self {
        Self { fact: Some(fact.into()), reason, owner: None, details: None, observed_at: None, extra: Object::new() }
    }

    /// Adds details (builder style).
    pub fn details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

/// How complete one category is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompletenessEntry {
    pub status: CompletenessStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_facts: Option<Vec<MissingFact>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_checked_at: Option<Timestamp>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(CompletenessEntry { status, missing_facts, notes, last_checked_at });

impl CompletenessEntry {
    /// An entry with a status and nothing else.
    pub fn new(status: CompletenessStatus) -> Self {
        Self { status, missing_facts: None, notes: None, last_checked_at: None, extra: Object::new() }
    }

    /// The missing facts (empty when absent).
    pub fn missing_facts(&self) -> &[MissingFact] {
        slice(&self.missing_facts)
    }
}

/// Completeness by category. Other keys than the eight [`category`] constants are allowed.
pub type Completeness = BTreeMap<String, CompletenessEntry>;

/// The eight known completeness categories.
pub mod category {
    pub const RUNTIME: &str = "runtime";
    pub const TELEMETRY: &str = "telemetry";
    pub const SOURCES: &str = "sources";
    pub const CLAIMS: &str = "claims";
    pub const ARTIFACTS: &str = "artifacts";
    pub const VERIFICATION: &str = "verification";
    pub const PRIVACY: &str = "privacy";
    pub const REPLAY: &str = "replay";
    /// All eight, in the schema's order.
    pub const ALL: [&str; 8] = [RUNTIME, TELEMETRY, SOURCES, CLAIMS, ARTIFACTS, VERIFICATION, PRIVACY, REPLAY];
}

/// Where in a source the evidence is (modelled on Web Annotation selectors). `start`/`end`
/// are char offsets, start inclusive, end exclusive (D21); `line_start`/`line_end` count from 1.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Selector {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suffix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_pointer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_start: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_end: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Selector {
    kind as "type",
    exact,
    prefix,
    suffix,
    start,
    end,
    json_pointer,
    line_start,
    line_end,
    timestamp,
    fragment
});

impl Selector {
    /// A text-position selector `[start, end)` in chars with the exact text it covers.
    pub fn text_position(exact: impl Into<String>, start: usize, end: usize) -> Self {
        Self {
            kind: Some("text_position".into()),
            exact: Some(exact.into()),
            start: Some(Number::from(start)),
            end: Some(Number::from(end)),
            ..Self::default()
        }
    }
}

/// A source: where evidence came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceRef {
    pub source_id: Id,
    pub source_kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// JSON key `ref`.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<Selector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retrieval: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freshness: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub privacy: Option<Object>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(SourceRef {
    source_id,
    source_kind,
    uri,
    reference as "ref",
    selector,
    snippet,
    snippet_ref,
    retrieval,
    freshness,
    trust,
    privacy
});

impl SourceRef {
    /// A source with an id and a kind.
    pub fn new(source_id: impl Into<String>, source_kind: impl Into<String>) -> Self {
        Self {
            source_id: source_id.into(),
            source_kind: source_kind.into(),
            uri: None,
            reference: None,
            selector: None,
            snippet: None,
            snippet_ref: None,
            retrieval: None,
            freshness: None,
            trust: None,
            privacy: None,
            extra: Object::new(),
        }
    }
}

/// A claim's confidence: a number in [0, 1], a band label, or a rubric object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Confidence {
    /// A score in [0, 1], exactly as written.
    Score(Number),
    /// A band label such as `high`.
    Label(String),
    /// A rubric.
    Rubric(Object),
}

impl Confidence {
    /// A score; `None` unless finite and within [0, 1].
    pub fn score(v: f64) -> Option<Self> {
        ((0.0..=1.0).contains(&v)).then(|| Number::from_f64(v).map(Self::Score)).flatten()
    }
}

impl<'de> Deserialize<'de> for Confidence {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Number(n) => Ok(Self::Score(n)),
            Value::String(s) => Ok(Self::Label(s)),
            Value::Object(o) => Ok(Self::Rubric(o)),
            other => Err(serde::de::Error::custom(format!(
                "confidence must be a number, a string or an object, not {}",
                warrant_graph::schema::json_kind(&other)
            ))),
        }
    }
}

/// One checkable statement. Needs `text` or `range_ref`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    pub claim_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range_ref: Option<String>,
    pub status: ClaimStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub risk: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_ref: Option<String>,
    /// Ids of this claim's support edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_edges: Option<Vec<String>>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Claim { claim_id, claim_type, text, range_ref, status, confidence, risk, owner_ref, support_edges });

impl Claim {
    /// A claim with its text and status.
    pub fn new(claim_id: impl Into<String>, text: impl Into<String>, status: ClaimStatus) -> Self {
        Self {
            claim_id: claim_id.into(),
            claim_type: None,
            text: Some(text.into()),
            range_ref: None,
            status,
            confidence: None,
            risk: None,
            owner_ref: None,
            support_edges: None,
            extra: Object::new(),
        }
    }

    /// The listed support-edge ids (empty when absent).
    pub fn support_edges(&self) -> &[String] {
        slice(&self.support_edges)
    }
}

/// A typed link from a claim to its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SupportEdge {
    pub edge_id: Id,
    pub claim_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance_node_id: Option<Id>,
    pub relationship: Relationship,
    /// In [0, 1].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(SupportEdge {
    edge_id,
    claim_id,
    source_id,
    verification_id,
    review_id,
    artifact_id,
    provenance_node_id,
    relationship,
    confidence,
    notes
});

impl SupportEdge {
    /// An edge from a claim with a relationship and nothing else.
    pub fn new(edge_id: impl Into<String>, claim_id: impl Into<String>, relationship: Relationship) -> Self {
        Self {
            edge_id: edge_id.into(),
            claim_id: claim_id.into(),
            source_id: None,
            verification_id: None,
            review_id: None,
            artifact_id: None,
            provenance_node_id: None,
            relationship,
            confidence: None,
            notes: None,
            extra: Object::new(),
        }
    }
}

/// Telemetry correlation: references to traces, never copies.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct TelemetryRef {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend_ref: Option<String>,
    /// Unknown fields, kept (bulky ones draw `AEV-TELEMETRY-COPY`).
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(TelemetryRef {
    trace_id,
    span_id,
    span_kind,
    event_id,
    runtime_id,
    session_id,
    thread_id,
    turn_id,
    task_id,
    run_id,
    tool_call_id,
    artifact_id,
    backend_ref
});

/// The result of one check. Never overwrites a review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerificationResult {
    pub verification_id: Id,
    pub check_type: String,
    pub status: VerificationStatus,
    /// What was checked (free objects). Project convention: `{"category": "<completeness
    /// key>"}` names a category; an entry with `"checked": false` names something that was
    /// *not* checked, with a `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<CheckSeverity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_refs: Option<Vec<Ref>>,
    /// Findings (free objects; Warrant writes `{code, path, message}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issues: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<Timestamp>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(VerificationResult {
    verification_id,
    check_type,
    status,
    coverage,
    severity,
    evidence_refs,
    issues,
    checked_at
});

impl VerificationResult {
    /// A result with id, check type and status.
    pub fn new(verification_id: impl Into<String>, check_type: impl Into<String>, status: VerificationStatus) -> Self {
        Self {
            verification_id: verification_id.into(),
            check_type: check_type.into(),
            status,
            coverage: None,
            severity: None,
            evidence_refs: None,
            issues: None,
            checked_at: None,
            extra: Object::new(),
        }
    }

    /// The coverage entries (empty when absent).
    pub fn coverage(&self) -> &[Object] {
        slice(&self.coverage)
    }

    /// The issues (empty when absent).
    pub fn issues(&self) -> &[Object] {
        slice(&self.issues)
    }
}

/// A reviewer's verdict. Append-only: a new verdict needs a new `review_id`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReviewVerdict {
    pub review_id: Id,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rubric_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The verification ids this review considered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_refs: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewed_at: Option<Timestamp>,
    /// Unknown fields, kept (e.g. `conditions`).
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ReviewVerdict { review_id, verdict, reviewer, rubric_ref, notes, scope, verification_refs, reviewed_at });

impl ReviewVerdict {
    /// A verdict with its id.
    pub fn new(review_id: impl Into<String>, verdict: Verdict) -> Self {
        Self {
            review_id: review_id.into(),
            verdict,
            reviewer: None,
            rubric_ref: None,
            notes: None,
            scope: None,
            verification_refs: None,
            reviewed_at: None,
            extra: Object::new(),
        }
    }

    /// The referenced verification ids (empty when absent).
    pub fn verification_refs(&self) -> &[String] {
        slice(&self.verification_refs)
    }
}

/// A record of something hidden.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RedactionRecord {
    pub redaction_id: Id,
    pub target_ref: String,
    pub redaction_kind: RedactionKind,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<Timestamp>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(RedactionRecord { redaction_id, target_ref, redaction_kind, reason, applied_by, replacement_ref, applied_at });

// ---------------------------------------------------------------- provenance (§4.4)

/// A PROV node: an entity, an activity or an agent. Runtime correlation ids
/// (`tool_call_id`, `span_id`, …) may sit beside the known fields (in `extra`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvenanceNode {
    pub node_id: Id,
    #[serde(rename = "type")]
    pub kind: NodeType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// JSON key `ref`.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<TelemetryRef>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ProvenanceNode {
    node_id,
    kind as "type",
    entity_type,
    activity_type,
    agent_type,
    reference as "ref",
    telemetry
});

impl ProvenanceNode {
    fn with(node_id: impl Into<String>, kind: NodeType) -> Self {
        Self {
            node_id: node_id.into(),
            kind,
            entity_type: None,
            activity_type: None,
            agent_type: None,
            reference: None,
            telemetry: None,
            extra: Object::new(),
        }
    }

    /// An entity node of a type.
    pub fn entity(node_id: impl Into<String>, entity_type: impl Into<String>) -> Self {
        Self { entity_type: Some(entity_type.into()), ..Self::with(node_id, NodeType::Entity) }
    }

    /// An activity node of a type.
    pub fn activity(node_id: impl Into<String>, activity_type: impl Into<String>) -> Self {
        Self { activity_type: Some(activity_type.into()), ..Self::with(node_id, NodeType::Activity) }
    }

    /// An agent node of a type.
    pub fn agent(node_id: impl Into<String>, agent_type: impl Into<String>) -> Self {
        Self { agent_type: Some(agent_type.into()), ..Self::with(node_id, NodeType::Agent) }
    }
}

/// A PROV edge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvenanceEdge {
    pub edge_id: Id,
    pub from: Id,
    pub to: Id,
    pub relationship: Relationship,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
    /// In [0, 1].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Number>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ProvenanceEdge { edge_id, from, to, relationship, timestamp, confidence });

impl ProvenanceEdge {
    /// An edge `from --relationship--> to`.
    pub fn new(edge_id: impl Into<String>, from: impl Into<String>, relationship: Relationship, to: impl Into<String>) -> Self {
        Self {
            edge_id: edge_id.into(),
            from: from.into(),
            to: to.into(),
            relationship,
            timestamp: None,
            confidence: None,
            extra: Object::new(),
        }
    }
}

/// The `{nodes, edges}` graph a pack embeds as `provenance`.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ProvenanceGraph {
    pub nodes: Vec<ProvenanceNode>,
    pub edges: Vec<ProvenanceEdge>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ProvenanceGraph { nodes, edges });

/// A pack's `provenance`: the pack schema allows any object. When it is a well-formed
/// `{nodes, edges}` graph it is read as one (and pass 2 checks it); otherwise it is kept as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PackProvenance {
    /// A `{nodes, edges}` graph as in the provenance schema.
    Graph(ProvenanceGraph),
    /// Any other object, kept verbatim and not checked.
    Opaque(Object),
}

impl<'de> Deserialize<'de> for PackProvenance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = Object::deserialize(d)?;
        match ProvenanceGraph::deserialize(Value::Object(map.clone())) {
            Ok(g) => Ok(Self::Graph(g)),
            Err(_) => Ok(Self::Opaque(map)),
        }
    }
}

impl PackProvenance {
    /// The graph, when it is one.
    pub fn graph(&self) -> Option<&ProvenanceGraph> {
        match self {
            Self::Graph(g) => Some(g),
            Self::Opaque(_) => None,
        }
    }
}

// ---------------------------------------------------------------- documents (§4)

/// Evidence Pack (§4.1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvidencePack {
    pub evidence_pack_id: Id,
    pub schema_version: String,
    pub scope: Scope,
    pub status: PackStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub producer: Producer,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims: Option<Vec<Claim>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_map_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<SourceRef>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_map_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_edges: Option<Vec<SupportEdge>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<PackProvenance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_results: Option<Vec<VerificationResult>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviews: Option<Vec<ReviewVerdict>>,
    /// Free objects in the pack schema.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_cases: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redactions: Option<Vec<RedactionRecord>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redaction_summary: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Vec<TelemetryRef>>,
    pub completeness: Completeness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refs: Option<Vec<Ref>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_manifest_ref: Option<String>,
    /// Unknown and namespaced fields (`warrant:pack_form`, …), kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(EvidencePack {
    evidence_pack_id,
    schema_version,
    scope,
    status,
    created_at,
    updated_at,
    producer,
    claims,
    claim_map_ref,
    sources,
    source_map_ref,
    support_edges,
    provenance,
    provenance_ref,
    verification_results,
    reviews,
    replay_cases,
    redactions,
    redaction_summary,
    telemetry,
    completeness,
    refs,
    export_manifest_ref
});

impl EvidencePack {
    /// The claims (empty when absent).
    pub fn claims(&self) -> &[Claim] {
        slice(&self.claims)
    }
    /// The sources (empty when absent).
    pub fn sources(&self) -> &[SourceRef] {
        slice(&self.sources)
    }
    /// The support edges (empty when absent).
    pub fn support_edges(&self) -> &[SupportEdge] {
        slice(&self.support_edges)
    }
    /// The verification results (empty when absent).
    pub fn verification_results(&self) -> &[VerificationResult] {
        slice(&self.verification_results)
    }
    /// The reviews (empty when absent).
    pub fn reviews(&self) -> &[ReviewVerdict] {
        slice(&self.reviews)
    }
    /// The redactions (empty when absent).
    pub fn redactions(&self) -> &[RedactionRecord] {
        slice(&self.redactions)
    }
    /// The telemetry refs (empty when absent).
    pub fn telemetry(&self) -> &[TelemetryRef] {
        slice(&self.telemetry)
    }
    /// The replay cases (empty when absent).
    pub fn replay_cases(&self) -> &[Object] {
        slice(&self.replay_cases)
    }
    /// The embedded provenance graph, when there is one.
    pub fn provenance_graph(&self) -> Option<&ProvenanceGraph> {
        self.provenance.as_ref().and_then(PackProvenance::graph)
    }
    /// The `warrant:pack_form` extension, when present.
    pub fn pack_form(&self) -> Option<&str> {
        self.extra.get(crate::PACK_FORM_KEY).and_then(Value::as_str)
    }
}

/// Claim Map (§4.2).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimMap {
    pub claim_map_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    pub schema_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// At least one.
    pub claims: Vec<Claim>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub support_edges: Option<Vec<SupportEdge>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ClaimMap {
    claim_map_id,
    evidence_pack_id,
    schema_version,
    scope,
    claims,
    support_edges,
    created_at,
    updated_at,
    producer
});

impl ClaimMap {
    /// The support edges (empty when absent).
    pub fn support_edges(&self) -> &[SupportEdge] {
        slice(&self.support_edges)
    }
}

/// A retrieved source that was rejected; it stays in the source map with its reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Omission {
    pub source_id: Id,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_ref: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Omission { source_id, reason, observed_at, decision_ref });

/// Source Map (§4.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceMap {
    pub source_map_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    pub schema_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    pub sources: Vec<SourceRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omissions: Option<Vec<Omission>>,
    /// Source-level disagreements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contradictions: Option<Vec<SupportEdge>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(SourceMap {
    source_map_id,
    evidence_pack_id,
    schema_version,
    scope,
    sources,
    omissions,
    contradictions,
    created_at,
    updated_at,
    producer
});

impl SourceMap {
    /// The omissions (empty when absent).
    pub fn omissions(&self) -> &[Omission] {
        slice(&self.omissions)
    }
    /// The contradictions (empty when absent).
    pub fn contradictions(&self) -> &[SupportEdge] {
        slice(&self.contradictions)
    }
}

/// Provenance Chain (§4.4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProvenanceChain {
    pub provenance_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    pub schema_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    pub nodes: Vec<ProvenanceNode>,
    pub edges: Vec<ProvenanceEdge>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ProvenanceChain { provenance_id, evidence_pack_id, schema_version, scope, nodes, edges });

/// Verification and Review document (§4.5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerificationDocument {
    pub schema_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_results: Option<Vec<VerificationResult>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviews: Option<Vec<ReviewVerdict>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(VerificationDocument {
    schema_version,
    evidence_pack_id,
    scope,
    verification_results,
    reviews,
    created_at,
    updated_at,
    producer
});

impl VerificationDocument {
    /// The verification results (empty when absent).
    pub fn verification_results(&self) -> &[VerificationResult] {
        slice(&self.verification_results)
    }
    /// The reviews (empty when absent).
    pub fn reviews(&self) -> &[ReviewVerdict] {
        slice(&self.reviews)
    }
}

/// Replay Case (§4.6): what would be needed to reconstruct a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayCase {
    pub replay_id: Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    pub schema_version: String,
    pub scope: Scope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_refs: Option<Vec<Ref>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_refs: Option<Vec<Ref>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_refs: Option<Vec<TelemetryRef>>,
    pub determinism: Determinism,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_facts: Option<Vec<MissingFact>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_outputs: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_steps: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub producer: Option<Producer>,
    /// Unknown fields, kept (e.g. `notes`).
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ReplayCase {
    replay_id,
    evidence_pack_id,
    schema_version,
    scope,
    input_refs,
    snapshot_refs,
    trace_refs,
    determinism,
    missing_facts,
    expected_outputs,
    replay_steps,
    created_at,
    updated_at,
    producer
});

impl ReplayCase {
    /// The missing facts (empty when absent).
    pub fn missing_facts(&self) -> &[MissingFact] {
        slice(&self.missing_facts)
    }
    /// The trace refs (empty when absent).
    pub fn trace_refs(&self) -> &[TelemetryRef] {
        slice(&self.trace_refs)
    }
}

/// One file of an export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportFile {
    pub path: String,
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Bytes, ≥ 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature_ref: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ExportFile { path, role, media_type, size, hash, schema_ref, signature_ref });

/// Export Manifest (§4.8).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExportManifest {
    pub export_id: Id,
    pub evidence_pack_id: Id,
    pub schema_version: String,
    pub created_at: Timestamp,
    pub files: Vec<ExportFile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schemas: Option<Vec<Ref>>,
    pub completeness: Completeness,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redactions: Option<Vec<RedactionRecord>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<Object>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signatures: Option<Vec<Object>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(ExportManifest {
    export_id,
    evidence_pack_id,
    schema_version,
    created_at,
    files,
    schemas,
    completeness,
    redactions,
    access,
    signatures,
    notes
});

impl ExportManifest {
    /// The schema refs (empty when absent).
    pub fn schemas(&self) -> &[Ref] {
        slice(&self.schemas)
    }
    /// The redactions (empty when absent).
    pub fn redactions(&self) -> &[RedactionRecord] {
        slice(&self.redactions)
    }
}

/// Event (§4.9).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    #[serde(rename = "type")]
    pub kind: EventType,
    pub event_id: Id,
    pub timestamp: Timestamp,
    pub schema_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_pack_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_decision_id: Option<Id>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<Object>,
    /// Unknown fields, kept.
    #[serde(flatten)]
    pub extra: Object,
}
open_deserialize!(Event {
    kind as "type",
    event_id,
    timestamp,
    schema_version,
    evidence_pack_id,
    claim_id,
    source_id,
    verification_id,
    review_id,
    replay_id,
    export_id,
    trace_id,
    span_id,
    runtime_id,
    session_id,
    thread_id,
    turn_id,
    task_id,
    run_id,
    attempt_id,
    step_id,
    tool_call_id,
    action_id,
    context_id,
    artifact_id,
    policy_decision_id,
    subject,
    payload
});

impl Event {
    /// An event with its four required fields.
    pub fn new(kind: EventType, event_id: impl Into<String>, timestamp: impl Into<String>) -> Self {
        Self {
            kind,
            event_id: event_id.into(),
            timestamp: timestamp.into(),
            schema_version: SCHEMA_VERSION.into(),
            evidence_pack_id: None,
            claim_id: None,
            source_id: None,
            verification_id: None,
            review_id: None,
            replay_id: None,
            export_id: None,
            trace_id: None,
            span_id: None,
            runtime_id: None,
            session_id: None,
            thread_id: None,
            turn_id: None,
            task_id: None,
            run_id: None,
            attempt_id: None,
            step_id: None,
            tool_call_id: None,
            action_id: None,
            context_id: None,
            artifact_id: None,
            policy_decision_id: None,
            subject: None,
            payload: None,
            extra: Object::new(),
        }
    }
}

// ---------------------------------------------------------------- any document

/// One of the eight documents.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    EvidencePack(Box<EvidencePack>),
    ClaimMap(ClaimMap),
    SourceMap(SourceMap),
    Provenance(ProvenanceChain),
    Verification(VerificationDocument),
    Replay(ReplayCase),
    ExportManifest(ExportManifest),
    Event(Box<Event>),
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::EvidencePack(d) => d.serialize(s),
            Self::ClaimMap(d) => d.serialize(s),
            Self::SourceMap(d) => d.serialize(s),
            Self::Provenance(d) => d.serialize(s),
            Self::Verification(d) => d.serialize(s),
            Self::Replay(d) => d.serialize(s),
            Self::ExportManifest(d) => d.serialize(s),
            Self::Event(d) => d.serialize(s),
        }
    }
}
