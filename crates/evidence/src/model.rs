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

use crate::de::{closed_enum, open_struct};

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

open_struct! {
    /// A reference to something held elsewhere.
    #[derive(Default)]
    pub struct Ref {
        pub ref_id: opt Id,
        pub kind: opt String,
        pub uri: opt String,
        pub hash: opt String,
        pub media_type: opt String,
        pub schema_ref: opt String,
    }
}

open_struct! {
    /// What a document is about: runtime correlation ids, kept verbatim. At least one key.
    ///
    /// The pack schema also types `attempt_id`, `step_id`, `tool_call_id`, `action_id`,
    /// `context_id` and `policy_decision_id` as ids (v0.1.8); the other schemas leave them free,
    /// so they live in `extra` here. Read any key with [`Scope::get`], write with [`Scope::set`].
    #[derive(Default)]
    pub struct Scope {
        pub scope_id: opt Id,
        pub runtime_id: opt Id,
        pub session_id: opt Id,
        pub thread_id: opt Id,
        pub turn_id: opt Id,
        pub task_id: opt Id,
        pub run_id: opt Id,
        pub artifact_id: opt Id,
        pub answer_id: opt Id,
        pub review_id: opt Id,
        /// A free string (no id pattern).
        pub external_case_id: opt String,
    }
}

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

/// The six of [`SCOPE_ID_KEYS`] only the pack schema types (v0.1.8 runtime-profile ids).
pub const PACK_ONLY_SCOPE_KEYS: [&str; 6] =
    ["attempt_id", "step_id", "tool_call_id", "action_id", "context_id", "policy_decision_id"];

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

open_struct! {
    /// Who produced a document.
    pub struct Producer {
        pub id: Id,
        pub kind as "type": opt ProducerType,
        pub name: opt String,
        pub version: opt String,
    }
}

impl Producer {
    /// A producer with just an id.
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), kind: None, name: None, version: None, extra: Object::new() }
    }
}

open_struct! {
    /// A fact that is not there, and why. Never read as success.
    pub struct MissingFact {
        pub fact: opt String,
        pub reason: MissingReason,
        pub owner: opt String,
        pub details: opt String,
        pub observed_at: opt Timestamp,
    }
}

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

open_struct! {
    /// How complete one category is.
    pub struct CompletenessEntry {
        pub status: CompletenessStatus,
        pub missing_facts: opt Vec<MissingFact>,
        pub notes: opt String,
        pub last_checked_at: opt Timestamp,
    }
}

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
    /// The runtime that produced the output.
    pub const RUNTIME: &str = "runtime";
    /// Traces and metrics of the run.
    pub const TELEMETRY: &str = "telemetry";
    /// The sources the answer rests on.
    pub const SOURCES: &str = "sources";
    /// The claims and their verification.
    pub const CLAIMS: &str = "claims";
    /// Files and other artefacts produced.
    pub const ARTIFACTS: &str = "artifacts";
    /// The verification runs.
    pub const VERIFICATION: &str = "verification";
    /// Redaction and retention.
    pub const PRIVACY: &str = "privacy";
    /// What a replay needs.
    pub const REPLAY: &str = "replay";
    /// All eight, in the schema's order.
    pub const ALL: [&str; 8] = [RUNTIME, TELEMETRY, SOURCES, CLAIMS, ARTIFACTS, VERIFICATION, PRIVACY, REPLAY];
}

open_struct! {
    /// Where in a source the evidence is (modelled on Web Annotation selectors). `start`/`end`
    /// are char offsets, start inclusive, end exclusive (D21); `line_start`/`line_end` count from 1.
    #[derive(Default)]
    pub struct Selector {
        pub kind as "type": opt String,
        pub exact: opt String,
        pub prefix: opt String,
        pub suffix: opt String,
        pub start: opt Number,
        pub end: opt Number,
        pub json_pointer: opt String,
        pub line_start: opt Number,
        pub line_end: opt Number,
        pub timestamp: opt String,
        pub fragment: opt String,
    }
}

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

open_struct! {
    /// A source: where evidence came from.
    pub struct SourceRef {
        pub source_id: Id,
        pub source_kind: String,
        pub uri: opt String,
        /// JSON key `ref`.
        pub reference as "ref": opt String,
        pub selector: opt Selector,
        pub snippet: opt String,
        pub snippet_ref: opt String,
        pub retrieval: opt Object,
        pub freshness: opt Object,
        pub trust: opt Object,
        pub privacy: opt Object,
    }
}

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
                warrant_graph::json_kind(&other)
            ))),
        }
    }
}

open_struct! {
    /// One checkable statement. Needs `text` or `range_ref`.
    pub struct Claim {
        pub claim_id: Id,
        pub claim_type: opt String,
        pub text: opt String,
        pub range_ref: opt String,
        pub status: ClaimStatus,
        pub confidence: opt Confidence,
        pub risk: opt String,
        pub owner_ref: opt String,
        /// Ids of this claim's support edges.
        pub support_edges: opt Vec<String>,
    }
}

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

open_struct! {
    /// A typed link from a claim to its evidence.
    pub struct SupportEdge {
        pub edge_id: Id,
        pub claim_id: Id,
        pub source_id: opt Id,
        pub verification_id: opt Id,
        pub review_id: opt Id,
        pub artifact_id: opt Id,
        pub provenance_node_id: opt Id,
        pub relationship: Relationship,
        /// In [0, 1].
        pub confidence: opt Number,
        pub notes: opt String,
    }
}

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

open_struct! {
    /// Telemetry correlation: references to traces, never copies.
    ///
    /// Extra fields that copy a trace (attributes, events, payloads) draw `AEV-TELEMETRY-COPY`.
    #[derive(Default)]
    pub struct TelemetryRef {
        pub trace_id: opt String,
        pub span_id: opt String,
        pub span_kind: opt String,
        pub event_id: opt String,
        pub runtime_id: opt String,
        pub session_id: opt String,
        pub thread_id: opt String,
        pub turn_id: opt String,
        pub task_id: opt String,
        pub run_id: opt String,
        pub tool_call_id: opt String,
        pub artifact_id: opt String,
        pub backend_ref: opt String,
    }
}

open_struct! {
    /// The result of one check. Never overwrites a review.
    pub struct VerificationResult {
        pub verification_id: Id,
        pub check_type: String,
        pub status: VerificationStatus,
        /// What was checked (free objects). Project convention: `{"category": "<completeness
        /// key>"}` names a category; an entry with `"checked": false` names something that was
        /// *not* checked, with a `reason`.
        pub coverage: opt Vec<Object>,
        pub severity: opt CheckSeverity,
        pub evidence_refs: opt Vec<Ref>,
        /// Findings (free objects; Warrant writes `{code, path, message}`).
        pub issues: opt Vec<Object>,
        pub checked_at: opt Timestamp,
    }
}

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

open_struct! {
    /// A reviewer's verdict. Append-only: a new verdict needs a new `review_id`.
    ///
    /// Review conditions travel as an extension field (`conditions`), in `extra`.
    pub struct ReviewVerdict {
        pub review_id: Id,
        pub verdict: Verdict,
        pub reviewer: opt Object,
        pub rubric_ref: opt String,
        pub notes: opt String,
        pub scope: opt Scope,
        /// The verification ids this review considered.
        pub verification_refs: opt Vec<String>,
        pub reviewed_at: opt Timestamp,
    }
}

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

open_struct! {
    /// A record of something hidden.
    pub struct RedactionRecord {
        pub redaction_id: Id,
        pub target_ref: String,
        pub redaction_kind: RedactionKind,
        pub reason: String,
        pub applied_by: opt String,
        pub replacement_ref: opt String,
        pub applied_at: opt Timestamp,
    }
}

// ---------------------------------------------------------------- provenance (§4.4)

open_struct! {
    /// A PROV node: an entity, an activity or an agent. Runtime correlation ids
    /// (`tool_call_id`, `span_id`, …) may sit beside the known fields (in `extra`).
    pub struct ProvenanceNode {
        pub node_id: Id,
        pub kind as "type": NodeType,
        pub entity_type: opt String,
        pub activity_type: opt String,
        pub agent_type: opt String,
        /// JSON key `ref`.
        pub reference as "ref": opt String,
        pub telemetry: opt TelemetryRef,
    }
}

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

open_struct! {
    /// A PROV edge.
    pub struct ProvenanceEdge {
        pub edge_id: Id,
        pub from: Id,
        pub to: Id,
        pub relationship: Relationship,
        pub timestamp: opt Timestamp,
        /// In [0, 1].
        pub confidence: opt Number,
    }
}

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

open_struct! {
    /// The `{nodes, edges}` graph a pack embeds as `provenance`.
    #[derive(Default)]
    pub struct ProvenanceGraph {
        pub nodes: Vec<ProvenanceNode>,
        pub edges: Vec<ProvenanceEdge>,
    }
}

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

open_struct! {
    /// Evidence Pack (§4.1).
    ///
    /// `warrant:pack_form` and other namespaced extensions live in `extra`.
    pub struct EvidencePack {
        pub evidence_pack_id: Id,
        pub schema_version: String,
        pub scope: Scope,
        pub status: PackStatus,
        pub created_at: Timestamp,
        pub updated_at: Timestamp,
        pub producer: Producer,
        pub claims: opt Vec<Claim>,
        pub claim_map_ref: opt String,
        pub sources: opt Vec<SourceRef>,
        pub source_map_ref: opt String,
        pub support_edges: opt Vec<SupportEdge>,
        pub provenance: opt PackProvenance,
        pub provenance_ref: opt String,
        pub verification_results: opt Vec<VerificationResult>,
        pub reviews: opt Vec<ReviewVerdict>,
        /// Free objects in the pack schema.
        pub replay_cases: opt Vec<Object>,
        pub redactions: opt Vec<RedactionRecord>,
        pub redaction_summary: opt Object,
        pub telemetry: opt Vec<TelemetryRef>,
        pub completeness: Completeness,
        pub refs: opt Vec<Ref>,
        pub export_manifest_ref: opt String,
    }
}

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

open_struct! {
    /// Claim Map (§4.2).
    pub struct ClaimMap {
        pub claim_map_id: Id,
        pub evidence_pack_id: opt Id,
        pub schema_version: String,
        pub scope: opt Scope,
        /// At least one.
        pub claims: Vec<Claim>,
        pub support_edges: opt Vec<SupportEdge>,
        pub created_at: opt Timestamp,
        pub updated_at: opt Timestamp,
        pub producer: opt Producer,
    }
}

impl ClaimMap {
    /// The support edges (empty when absent).
    pub fn support_edges(&self) -> &[SupportEdge] {
        slice(&self.support_edges)
    }
}

open_struct! {
    /// A retrieved source that was rejected; it stays in the source map with its reason.
    pub struct Omission {
        pub source_id: Id,
        pub reason: String,
        pub observed_at: opt Timestamp,
        pub decision_ref: opt String,
    }
}

open_struct! {
    /// Source Map (§4.3).
    pub struct SourceMap {
        pub source_map_id: Id,
        pub evidence_pack_id: opt Id,
        pub schema_version: String,
        pub scope: opt Scope,
        pub sources: Vec<SourceRef>,
        pub omissions: opt Vec<Omission>,
        /// Source-level disagreements.
        pub contradictions: opt Vec<SupportEdge>,
        pub created_at: opt Timestamp,
        pub updated_at: opt Timestamp,
        pub producer: opt Producer,
    }
}

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

open_struct! {
    /// Provenance Chain (§4.4).
    pub struct ProvenanceChain {
        pub provenance_id: Id,
        pub evidence_pack_id: opt Id,
        pub schema_version: String,
        pub scope: opt Scope,
        pub nodes: Vec<ProvenanceNode>,
        pub edges: Vec<ProvenanceEdge>,
    }
}

open_struct! {
    /// Verification and Review document (§4.5).
    pub struct VerificationDocument {
        pub schema_version: String,
        pub evidence_pack_id: opt Id,
        pub scope: opt Scope,
        pub verification_results: opt Vec<VerificationResult>,
        pub reviews: opt Vec<ReviewVerdict>,
        pub created_at: opt Timestamp,
        pub updated_at: opt Timestamp,
        pub producer: opt Producer,
    }
}

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

open_struct! {
    /// Replay Case (§4.6): what would be needed to reconstruct a run.
    ///
    /// What cannot be replayed goes in `missing_facts`, or an extension `notes` (in `extra`).
    pub struct ReplayCase {
        pub replay_id: Id,
        pub evidence_pack_id: opt Id,
        pub schema_version: String,
        pub scope: Scope,
        pub input_refs: opt Vec<Ref>,
        pub snapshot_refs: opt Vec<Ref>,
        pub trace_refs: opt Vec<TelemetryRef>,
        pub determinism: Determinism,
        pub missing_facts: opt Vec<MissingFact>,
        pub expected_outputs: opt Vec<Object>,
        pub replay_steps: opt Vec<Object>,
        pub created_at: opt Timestamp,
        pub updated_at: opt Timestamp,
        pub producer: opt Producer,
    }
}

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

open_struct! {
    /// One file of an export.
    pub struct ExportFile {
        pub path: String,
        pub role: String,
        pub media_type: opt String,
        /// Bytes, ≥ 0.
        pub size: opt Number,
        pub hash: opt String,
        pub schema_ref: opt String,
        pub signature_ref: opt String,
    }
}

open_struct! {
    /// Export Manifest (§4.8).
    pub struct ExportManifest {
        pub export_id: Id,
        pub evidence_pack_id: Id,
        pub schema_version: String,
        pub created_at: Timestamp,
        pub files: Vec<ExportFile>,
        pub schemas: opt Vec<Ref>,
        pub completeness: Completeness,
        pub redactions: opt Vec<RedactionRecord>,
        pub access: opt Object,
        pub signatures: opt Vec<Object>,
        pub notes: opt String,
    }
}

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

open_struct! {
    /// Event (§4.9).
    pub struct Event {
        pub kind as "type": EventType,
        pub event_id: Id,
        pub timestamp: Timestamp,
        pub schema_version: String,
        pub evidence_pack_id: opt Id,
        pub claim_id: opt Id,
        pub source_id: opt Id,
        pub verification_id: opt Id,
        pub review_id: opt Id,
        pub replay_id: opt Id,
        pub export_id: opt Id,
        pub trace_id: opt String,
        pub span_id: opt String,
        pub runtime_id: opt Id,
        pub session_id: opt Id,
        pub thread_id: opt Id,
        pub turn_id: opt Id,
        pub task_id: opt Id,
        pub run_id: opt Id,
        pub attempt_id: opt Id,
        pub step_id: opt Id,
        pub tool_call_id: opt Id,
        pub action_id: opt Id,
        pub context_id: opt Id,
        pub artifact_id: opt Id,
        pub policy_decision_id: opt Id,
        pub subject: opt String,
        pub payload: opt Object,
    }
}

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
    /// An evidence pack.
    EvidencePack(Box<EvidencePack>),
    /// A claim map.
    ClaimMap(ClaimMap),
    /// A source map.
    SourceMap(SourceMap),
    /// A provenance chain.
    Provenance(ProvenanceChain),
    /// A verification document.
    Verification(VerificationDocument),
    /// A replay case.
    Replay(ReplayCase),
    /// An export manifest.
    ExportManifest(ExportManifest),
    /// An event.
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
