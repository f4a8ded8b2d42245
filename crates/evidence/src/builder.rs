//! Builders for the documents Warrant writes: an evidence pack from a checked answer, and an
//! export manifest.
//!
//! Everything is derived from the inputs: ids are either given or content-derived (never
//! random), timestamps are inputs (never the clock), and completeness is computed honestly
//! from what was and was not checked. [`PackBuilder::build`] runs the validator (both
//! passes) on the result and refuses to return a pack with an error-level finding.

use serde_json::{Number, Value};

use crate::de::closed_enum;
use crate::ids::{scoped_id, sha256_ref, stable_id, to_valid_id};
use crate::model::*;
use crate::schema::DocKind;
use crate::validate::{Issue, validate};

/// Where a claim or source keeps the caller's own id when it is not a valid Agent Evidence
/// id and the builder had to derive one ([`crate::ids::to_valid_id`]).
pub const NATIVE_ID_KEY: &str = "warrant:native_id";

/// The namespaced extension saying which form a pack takes (project rule, §4.1).
pub const PACK_FORM_KEY: &str = "warrant:pack_form";

closed_enum! {
    /// Value of `warrant:pack_form`.
    pub enum PackForm {
        /// Everything inline.
        Full = "full",
        /// A compact projection of a fuller pack.
        Projection = "projection",
        /// An export with redactions applied.
        RedactedExport = "redacted_export",
        /// Ids and references only.
        Pointer = "pointer",
    }
}

/// Why a builder refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// The assembled document does not pass the validator.
    #[error("the built {kind} is not valid: {}", first(.issues))]
    Invalid {
        /// What was built.
        kind: DocKind,
        /// Every finding (errors and warnings).
        issues: Vec<Issue>,
    },
}

fn first(issues: &[Issue]) -> String {
    issues
        .iter()
        .find(|i| i.is_error())
        .map_or_else(String::new, |i| format!("{} at {}: {}", i.code, if i.path.is_empty() { "/" } else { &i.path }, i.message))
}

/// A claim to put in a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimInput {
    /// Its id (e.g. the PredicateGraph claim id). One that does not match the id pattern is
    /// mapped to a valid one and kept under `warrant:native_id`; edges name it as given.
    pub id: String,
    /// The statement.
    pub text: String,
    /// Its status, as the verifier found it.
    pub status: ClaimStatus,
    /// Confidence, if any.
    pub confidence: Option<Confidence>,
    /// `fact`, `recommendation`, … (open string).
    pub claim_type: Option<String>,
    /// Char span `[start, end)` of the claim in the answer; written as `range_ref`.
    pub span: Option<(usize, usize)>,
    /// Why there is no evidence for it (an `unverified` claim gets `unknown` when not given);
    /// recorded under `completeness.sources.missing_facts`.
    pub missing: Option<MissingFact>,
}

impl ClaimInput {
    /// A claim with id, text and status.
    pub fn new(id: impl Into<String>, text: impl Into<String>, status: ClaimStatus) -> Self {
        Self { id: id.into(), text: text.into(), status, confidence: None, claim_type: None, span: None, missing: None }
    }
    /// Sets the confidence.
    pub fn confidence(mut self, c: Confidence) -> Self {
        self.confidence = Some(c);
        self
    }
    /// Sets the claim type.
    pub fn claim_type(mut self, t: impl Into<String>) -> Self {
        self.claim_type = Some(t.into());
        self
    }
    /// Sets the char span in the answer.
    pub fn span(mut self, start: usize, end: usize) -> Self {
        self.span = Some((start, end));
        self
    }
    /// Says why the claim has no evidence.
    pub fn missing(mut self, reason: MissingReason, details: impl Into<String>) -> Self {
        let fact = format!("evidence for claim '{}'", self.id);
        self.missing = Some(MissingFact::new(reason, fact).details(details));
        self
    }
}

/// A source to put in a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInput {
    /// Its id (e.g. a store chunk id). Mapped like a claim id when not a valid id.
    pub id: String,
    /// `document`, `web_page`, `tool_result`, … (open string).
    pub kind: String,
    /// Where it is.
    pub uri: Option<String>,
    /// The quoted span: exact text and char offsets `[start, end)` into the source (D21).
    pub selector: Option<(String, usize, usize)>,
    /// A snippet of the source.
    pub snippet: Option<String>,
    /// The tool call (and runtime span) that produced it, for a `tool_result`.
    pub tool_call: Option<(String, Option<String>)>,
}

impl SourceInput {
    /// A source with id and kind.
    pub fn new(id: impl Into<String>, kind: impl Into<String>) -> Self {
        Self { id: id.into(), kind: kind.into(), uri: None, selector: None, snippet: None, tool_call: None }
    }
    /// Sets the URI.
    pub fn uri(mut self, uri: impl Into<String>) -> Self {
        self.uri = Some(uri.into());
        self
    }
    /// Sets the quoted span.
    pub fn selector(mut self, exact: impl Into<String>, start: usize, end: usize) -> Self {
        self.selector = Some((exact.into(), start, end));
        self
    }
    /// Sets the snippet.
    pub fn snippet(mut self, s: impl Into<String>) -> Self {
        self.snippet = Some(s.into());
        self
    }
    /// Records the tool call (and its runtime span id, when known) that produced this source:
    /// provenance gets a `tool_call` activity carrying the `tool_call_id` and a `generated_by`
    /// edge from the source.
    pub fn generated_by_tool_call(mut self, tool_call_id: impl Into<String>, span_id: Option<String>) -> Self {
        self.tool_call = Some((tool_call_id.into(), span_id));
        self
    }
}

/// A support edge to put in a pack.
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeInput {
    /// Its id; derived from claim, source and relationship when `None`.
    pub id: Option<String>,
    /// The claim.
    pub claim: String,
    /// The source.
    pub source: Option<String>,
    /// How the source relates to the claim.
    pub relationship: Relationship,
    /// In [0, 1].
    pub confidence: Option<f64>,
    /// Free notes.
    pub notes: Option<String>,
}

impl EdgeInput {
    /// An edge from a claim to a source.
    pub fn new(claim: impl Into<String>, source: impl Into<String>, relationship: Relationship) -> Self {
        Self { id: None, claim: claim.into(), source: Some(source.into()), relationship, confidence: None, notes: None }
    }
    /// Sets the id.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }
    /// Sets the confidence.
    pub fn confidence(mut self, c: f64) -> Self {
        self.confidence = Some(c);
        self
    }
    /// Sets notes.
    pub fn notes(mut self, n: impl Into<String>) -> Self {
        self.notes = Some(n.into());
        self
    }
}

/// Something a check did not look at, and why. Written into the check's `coverage` as
/// `{…, "checked": false, "reason": …}` and into `completeness.verification.missing_facts`.
#[derive(Debug, Clone, PartialEq)]
pub struct NotChecked {
    /// What was not checked: key and value of the coverage entry (e.g. `("rule_id", "r1")`).
    pub item: (String, String),
    /// Why.
    pub reason: String,
}

impl NotChecked {
    /// A rule that was skipped.
    pub fn rule(rule_id: impl Into<String>, reason: impl Into<String>) -> Self {
        Self { item: ("rule_id".into(), rule_id.into()), reason: reason.into() }
    }
}

/// One policy pack run, as a `verification_result` with `check_type: policy`.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyRun {
    /// The policy pack.
    pub pack_id: String,
    /// `passed`, `failed` or `warning`.
    pub status: VerificationStatus,
    /// Rules that were evaluated.
    pub checked: Vec<String>,
    /// Rules that were not (skipped verifiers, …): never passed.
    pub not_checked: Vec<NotChecked>,
    /// Findings (free objects, e.g. `{rule_id, node_id, severity, message}`).
    pub issues: Vec<Object>,
}

/// The grounding check (claims against sources), as a `verification_result` with
/// `check_type: grounding`. Its coverage is derived from the claims: checked claims are
/// covered; `unverified` ones are listed as not checked.
#[derive(Debug, Clone, PartialEq)]
pub struct GroundingRun {
    /// The check's outcome.
    pub status: VerificationStatus,
    /// Findings (free objects).
    pub issues: Vec<Object>,
}

/// Assembles an evidence pack for one checked answer.
#[derive(Debug, Clone)]
pub struct PackBuilder {
    scope: Scope,
    producer: Producer,
    created_at: String,
    updated_at: String,
    pack_id: Option<String>,
    status: PackStatus,
    form: PackForm,
    answer: Option<(String, Option<String>)>,
    claims: Vec<ClaimInput>,
    sources: Vec<SourceInput>,
    edges: Vec<EdgeInput>,
    grounding: Option<GroundingRun>,
    policies: Vec<PolicyRun>,
    results: Vec<VerificationResult>,
    reviews: Vec<ReviewVerdict>,
    completeness: Completeness,
    missing: Vec<(String, MissingFact)>,
    telemetry: Vec<TelemetryRef>,
    nodes: Vec<ProvenanceNode>,
    prov_edges: Vec<(String, Relationship, String)>,
    extensions: Object,
    replay_cases: Vec<Object>,
}

/// The grounding check's verification id.
pub const GROUNDING_ID: &str = "grounding";

/// The provenance node id of a source (given by its id as passed to the builder, or as
/// written in the pack).
pub fn source_node_id(source_id: &str) -> String {
    scoped_id("source", &to_valid_id(source_id))
}

/// The provenance node id of a claim (given as passed to the builder, or as written).
pub fn claim_node_id(claim_id: &str) -> String {
    scoped_id("claim", &to_valid_id(claim_id))
}

/// The provenance node id of a tool call.
pub fn tool_call_node_id(tool_call_id: &str) -> String {
    scoped_id("tool_call", tool_call_id)
}

/// The verification id of a policy pack run.
pub fn policy_verification_id(pack_id: &str) -> String {
    scoped_id("policy", pack_id)
}

impl PackBuilder {
    /// A builder for a pack about `scope`, written by `producer`. The schema requires both
    /// timestamps; they are inputs, never read from the clock (`updated_at` starts equal to
    /// `created_at`).
    pub fn new(scope: Scope, producer: Producer, created_at: impl Into<String>) -> Self {
        let created_at = created_at.into();
        Self {
            scope,
            producer,
            updated_at: created_at.clone(),
            created_at,
            pack_id: None,
            status: PackStatus::Ready,
            form: PackForm::Full,
            answer: None,
            claims: Vec::new(),
            sources: Vec::new(),
            edges: Vec::new(),
            grounding: None,
            policies: Vec::new(),
            results: Vec::new(),
            reviews: Vec::new(),
            completeness: Completeness::new(),
            missing: Vec::new(),
            telemetry: Vec::new(),
            nodes: Vec::new(),
            prov_edges: Vec::new(),
            extensions: Object::new(),
            replay_cases: Vec::new(),
        }
    }

    /// Sets `updated_at`.
    pub fn updated_at(&mut self, ts: impl Into<String>) -> &mut Self {
        self.updated_at = ts.into();
        self
    }

    /// Sets the pack id. The default is derived from the scope and the answer, so a re-check
    /// of the same answer is a new version of the same pack (reviews carry over, §6.2).
    pub fn pack_id(&mut self, id: impl Into<String>) -> &mut Self {
        self.pack_id = Some(id.into());
        self
    }

    /// Sets the pack status (default `ready`).
    pub fn status(&mut self, s: PackStatus) -> &mut Self {
        self.status = s;
        self
    }

    /// Sets `warrant:pack_form` (default `full`).
    pub fn form(&mut self, f: PackForm) -> &mut Self {
        self.form = f;
        self
    }

    /// Names the answer the claims were extracted from (its id and, optionally, a URI);
    /// provenance gets an `answer` entity. Without it, `scope.answer_id` is used if set.
    pub fn answer(&mut self, id: impl Into<String>, uri: Option<String>) -> &mut Self {
        self.answer = Some((id.into(), uri));
        self
    }

    /// Adds a claim.
    pub fn claim(&mut self, c: ClaimInput) -> &mut Self {
        self.claims.push(c);
        self
    }

    /// Adds a source.
    pub fn source(&mut self, s: SourceInput) -> &mut Self {
        self.sources.push(s);
        self
    }

    /// Adds a support edge.
    pub fn edge(&mut self, e: EdgeInput) -> &mut Self {
        self.edges.push(e);
        self
    }

    /// Records the grounding check. Every claim it checked also gets a `verified_by` edge to it.
    pub fn grounding(&mut self, g: GroundingRun) -> &mut Self {
        self.grounding = Some(g);
        self
    }

    /// Records one policy pack run.
    pub fn policy(&mut self, p: PolicyRun) -> &mut Self {
        self.policies.push(p);
        self
    }

    /// Adds any other verification result as is.
    pub fn verification(&mut self, r: VerificationResult) -> &mut Self {
        self.results.push(r);
        self
    }

    /// Adds a review (none by default).
    pub fn review(&mut self, r: ReviewVerdict) -> &mut Self {
        self.reviews.push(r);
        self
    }

    /// Replaces the computed completeness of one category.
    pub fn completeness(&mut self, category: impl Into<String>, entry: CompletenessEntry) -> &mut Self {
        self.completeness.insert(category.into(), entry);
        self
    }

    /// Adds a missing fact to a category (merged into the computed entry, which then cannot
    /// be `complete`; ignored when the category's entry was replaced with [`Self::completeness`]).
    pub fn missing_fact(&mut self, category: impl Into<String>, fact: MissingFact) -> &mut Self {
        self.missing.push((category.into(), fact));
        self
    }

    /// Adds a telemetry reference.
    pub fn telemetry(&mut self, t: TelemetryRef) -> &mut Self {
        self.telemetry.push(t);
        self
    }

    /// Adds a provenance node of the caller's own (a tool call, a retrieval, a peer agent, …).
    pub fn provenance_node(&mut self, n: ProvenanceNode) -> &mut Self {
        self.nodes.push(n);
        self
    }

    /// Adds a provenance edge `from --relationship--> to` (its id is derived).
    pub fn provenance_edge(&mut self, from: impl Into<String>, relationship: Relationship, to: impl Into<String>) -> &mut Self {
        self.prov_edges.push((from.into(), relationship, to.into()));
        self
    }

    /// Adds a top-level extension field (use a namespaced key, e.g. `warrant:verdict`).
    pub fn extension(&mut self, key: impl Into<String>, value: Value) -> &mut Self {
        self.extensions.insert(key.into(), value);
        self
    }

    fn answer_ref(&self) -> Option<(String, String)> {
        let (id, uri) = match &self.answer {
            Some((id, uri)) => (id.clone(), uri.clone()),
            None => (self.scope.answer_id.clone()?, None),
        };
        let r = uri.unwrap_or_else(|| format!("answer:{id}"));
        Some((id, r))
    }

    fn checked(status: ClaimStatus) -> bool {
        !matches!(status, ClaimStatus::Unverified | ClaimStatus::NotApplicable)
    }

    fn claims_and_edges(&self, answer_ref: Option<&str>) -> (Vec<Claim>, Vec<SupportEdge>) {
        let mut edges: Vec<SupportEdge> = self
            .edges
            .iter()
            .map(|e| {
                let id = e.id.as_deref().map_or_else(
                    || stable_id("edge", &[&e.claim, e.source.as_deref().unwrap_or(""), e.relationship.as_str()]),
                    valid,
                );
                let mut edge = SupportEdge::new(id, valid(&e.claim), e.relationship);
                edge.source_id = e.source.as_deref().map(valid);
                edge.confidence = e.confidence.and_then(Number::from_f64);
                edge.notes = e.notes.clone();
                edge
            })
            .collect();
        if self.grounding.is_some() {
            for c in self.claims.iter().filter(|c| Self::checked(c.status)) {
                let mut e = SupportEdge::new(
                    stable_id("edge", &[&c.id, GROUNDING_ID, "verified_by"]),
                    valid(&c.id),
                    Relationship::VerifiedBy,
                );
                e.verification_id = Some(GROUNDING_ID.into());
                edges.push(e);
            }
        }
        let claims = self
            .claims
            .iter()
            .map(|c| {
                let mut claim = Claim::new(valid(&c.id), c.text.clone(), c.status);
                native(&mut claim.extra, &c.id);
                claim.claim_type = c.claim_type.clone();
                claim.confidence = c.confidence.clone();
                if let (Some((s, e)), Some(r)) = (c.span, answer_ref) {
                    claim.range_ref = Some(format!("{r}#char={s},{e}"));
                }
                let mine: Vec<String> =
                    edges.iter().filter(|e| e.claim_id == claim.claim_id).map(|e| e.edge_id.clone()).collect();
                claim.support_edges = (!mine.is_empty()).then_some(mine);
                claim
            })
            .collect();
        (claims, edges)
    }

    fn sources_out(&self) -> Vec<SourceRef> {
        self.sources
            .iter()
            .map(|s| {
                let mut src = SourceRef::new(valid(&s.id), s.kind.clone());
                native(&mut src.extra, &s.id);
                src.uri = s.uri.clone();
                src.selector = s.selector.as_ref().map(|(exact, a, b)| Selector::text_position(exact.clone(), *a, *b));
                src.snippet = s.snippet.clone();
                src
            })
            .collect()
    }

    fn results_out(&self) -> Vec<VerificationResult> {
        let mut out = Vec::new();
        if let Some(g) = &self.grounding {
            let mut r = VerificationResult::new(GROUNDING_ID, "grounding", g.status);
            let mut coverage = vec![category_entry(category::CLAIMS)];
            if !self.sources_entry().status.is_gap() {
                coverage.push(category_entry(category::SOURCES));
            }
            for c in self.claims.iter().filter(|c| c.status == ClaimStatus::Unverified) {
                coverage.push(not_checked_entry(("claim_id", &valid(&c.id)), "no source was checked for this claim"));
            }
            r.coverage = Some(coverage);
            r.issues = Some(g.issues.clone());
            out.push(r);
        }
        for p in &self.policies {
            let mut r = VerificationResult::new(policy_verification_id(&p.pack_id), "policy", p.status);
            let mut coverage: Vec<Object> = p
                .checked
                .iter()
                .map(|rule| {
                    let mut o = Object::new();
                    o.insert("policy_pack".into(), Value::String(p.pack_id.clone()));
                    o.insert("rule_id".into(), Value::String(rule.clone()));
                    o
                })
                .collect();
            for n in &p.not_checked {
                let mut o = not_checked_entry((&n.item.0, &n.item.1), &n.reason);
                o.insert("policy_pack".into(), Value::String(p.pack_id.clone()));
                coverage.push(o);
            }
            r.coverage = Some(coverage);
            r.issues = Some(p.issues.clone());
            out.push(r);
        }
        out.extend(self.results.iter().cloned());
        out
    }

    fn sources_entry(&self) -> CompletenessEntry {
        let facts: Vec<MissingFact> = self
            .claims
            .iter()
            .filter_map(|c| match (&c.missing, c.status) {
                (Some(m), _) => Some(m.clone()),
                (None, ClaimStatus::Unverified) => Some(
                    MissingFact::new(MissingReason::Unknown, format!("evidence for claim '{}'", valid(&c.id)))
                        .details("no source was checked for this claim"),
                ),
                _ => None,
            })
            .collect();
        let status = match (facts.is_empty(), self.sources.is_empty()) {
            (true, _) => CompletenessStatus::Complete,
            (false, false) => CompletenessStatus::Partial,
            (false, true) => CompletenessStatus::Missing,
        };
        let mut e = CompletenessEntry::new(status);
        e.missing_facts = (!facts.is_empty()).then_some(facts);
        e
    }

    fn completeness_out(&self, results: &[VerificationResult]) -> Completeness {
        let mut c = Completeness::new();
        c.insert(category::CLAIMS.into(), CompletenessEntry::new(CompletenessStatus::Complete));
        c.insert(category::SOURCES.into(), self.sources_entry());
        let verification = if results.is_empty() {
            let mut e = CompletenessEntry::new(CompletenessStatus::NotCollected);
            e.notes = Some("no check was run".into());
            e
        } else {
            let mut facts = Vec::new();
            for r in results {
                for entry in r.coverage().iter().filter(|o| o.get("checked") == Some(&Value::Bool(false))) {
                    let what = entry
                        .iter()
                        .filter(|(k, _)| !matches!(k.as_str(), "checked" | "reason"))
                        .map(|(k, v)| format!("{k} {}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let mut f =
                        MissingFact::new(MissingReason::NotCollected, format!("{} of check '{}'", what, r.verification_id));
                    f.details = entry.get("reason").and_then(Value::as_str).map(str::to_string);
                    facts.push(f);
                }
                if matches!(r.status, VerificationStatus::Skipped | VerificationStatus::Error) {
                    facts.push(MissingFact::new(
                        MissingReason::Unavailable,
                        format!("result of check '{}' ({})", r.verification_id, r.status),
                    ));
                }
            }
            let mut e =
                CompletenessEntry::new(if facts.is_empty() { CompletenessStatus::Complete } else { CompletenessStatus::Partial });
            e.missing_facts = (!facts.is_empty()).then_some(facts);
            e
        };
        c.insert(category::VERIFICATION.into(), verification);
        let mut telemetry = CompletenessEntry::new(CompletenessStatus::NotCollected);
        telemetry.notes = Some("no trace backend is connected; runtime telemetry was not collected".into());
        c.insert(category::TELEMETRY.into(), telemetry);
        for (cat, fact) in &self.missing {
            let e = c.entry(cat.clone()).or_insert_with(|| CompletenessEntry::new(CompletenessStatus::Partial));
            if e.status == CompletenessStatus::Complete {
                e.status = CompletenessStatus::Partial;
            }
            e.missing_facts.get_or_insert_default().push(fact.clone());
        }
        for (cat, entry) in &self.completeness {
            c.insert(cat.clone(), entry.clone());
        }
        c
    }

    fn provenance_out(&self, results: &[VerificationResult]) -> ProvenanceGraph {
        let mut nodes: Vec<ProvenanceNode> = Vec::new();
        let mut edges: Vec<(String, Relationship, String)> = Vec::new();
        let agent = scoped_id("agent", &self.producer.id);
        let mut a = ProvenanceNode::agent(agent.clone(), "verifier");
        a.reference = Some(self.producer.id.clone());
        nodes.push(a);

        let answer = self.answer_ref().map(|(id, r)| {
            let node = scoped_id("answer", &id);
            let mut n = ProvenanceNode::entity(node.clone(), "answer");
            n.reference = Some(r);
            nodes.push(n);
            node
        });
        let extraction = "activity:extraction".to_string();
        if !self.claims.is_empty() {
            nodes.push(ProvenanceNode::activity(extraction.clone(), "claim_extraction"));
            edges.push((extraction.clone(), Relationship::AssociatedWith, agent.clone()));
            if let Some(a) = &answer {
                edges.push((extraction.clone(), Relationship::Used, a.clone()));
            }
        }
        for c in &self.claims {
            let n = claim_node_id(&c.id);
            let mut node = ProvenanceNode::entity(n.clone(), "claim");
            node.reference = Some(valid(&c.id));
            nodes.push(node);
            edges.push((n.clone(), Relationship::GeneratedBy, extraction.clone()));
            if let Some(a) = &answer {
                edges.push((n, Relationship::DerivedFrom, a.clone()));
            }
        }
        for s in &self.sources {
            let n = source_node_id(&s.id);
            let mut node = ProvenanceNode::entity(n.clone(), s.kind.clone());
            node.reference = Some(s.uri.clone().unwrap_or_else(|| valid(&s.id)));
            nodes.push(node);
            if let Some((call, span)) = &s.tool_call {
                let t = tool_call_node_id(call);
                if !nodes.iter().any(|x| x.node_id == t) {
                    let mut act = ProvenanceNode::activity(t.clone(), "tool_call");
                    act.extra.insert("tool_call_id".into(), Value::String(call.clone()));
                    act.telemetry =
                        Some(TelemetryRef { tool_call_id: Some(call.clone()), span_id: span.clone(), ..TelemetryRef::default() });
                    nodes.push(act);
                }
                edges.push((n, Relationship::GeneratedBy, t));
            }
        }
        for r in results {
            let n = scoped_id("check", &r.verification_id);
            nodes.push(ProvenanceNode::activity(n.clone(), r.check_type.clone()));
            edges.push((n.clone(), Relationship::AssociatedWith, agent.clone()));
            if r.verification_id == GROUNDING_ID {
                // The claims it looked at: not the unverified ones.
                for c in self.claims.iter().filter(|c| c.status != ClaimStatus::Unverified) {
                    edges.push((n.clone(), Relationship::Used, claim_node_id(&c.id)));
                }
                for s in &self.sources {
                    edges.push((n.clone(), Relationship::Used, source_node_id(&s.id)));
                }
            } else if let Some(a) = &answer {
                edges.push((n, Relationship::Used, a.clone()));
            }
        }
        nodes.extend(self.nodes.iter().cloned());
        edges.extend(self.prov_edges.iter().cloned());
        let edges = edges
            .into_iter()
            .map(|(from, rel, to)| ProvenanceEdge::new(stable_id("prov", &[&from, rel.as_str(), &to]), from, rel, to))
            .collect();
        ProvenanceGraph { nodes, edges, extra: Object::new() }
    }

    /// Adds a replay case (e.g. [`crate::replay::model_replay_case`]) to `replay_cases`.
    pub fn replay_case(&mut self, r: &ReplayCase) -> &mut Self {
        if let Ok(Value::Object(m)) = serde_json::to_value(r) {
            self.replay_cases.push(m);
        }
        self
    }

    /// Assembles the pack and validates it (both passes). Errors are refused; warnings are
    /// allowed (a caller that wants none can validate the result itself).
    pub fn build(&self) -> Result<EvidencePack, BuildError> {
        let answer = self.answer_ref();
        let (claims, support_edges) = self.claims_and_edges(answer.as_ref().map(|(_, r)| r.as_str()));
        let results = self.results_out();
        let completeness = self.completeness_out(&results);
        let provenance = self.provenance_out(&results);
        let mut extra = self.extensions.clone();
        extra.insert(PACK_FORM_KEY.into(), Value::String(self.form.as_str().into()));
        let mut pack = EvidencePack {
            evidence_pack_id: String::new(),
            schema_version: SCHEMA_VERSION.into(),
            scope: self.scope.clone(),
            status: self.status,
            created_at: String::new(),
            updated_at: String::new(),
            producer: self.producer.clone(),
            claims: Some(claims),
            claim_map_ref: None,
            sources: Some(self.sources_out()),
            source_map_ref: None,
            support_edges: Some(support_edges),
            provenance: Some(PackProvenance::Graph(provenance)),
            provenance_ref: None,
            verification_results: (!results.is_empty()).then_some(results),
            reviews: (!self.reviews.is_empty()).then(|| self.reviews.clone()),
            replay_cases: (!self.replay_cases.is_empty()).then(|| self.replay_cases.clone()),
            redactions: None,
            redaction_summary: None,
            telemetry: (!self.telemetry.is_empty()).then(|| self.telemetry.clone()),
            completeness,
            refs: None,
            export_manifest_ref: None,
            extra,
        };
        pack.evidence_pack_id = match &self.pack_id {
            Some(id) => valid(id),
            None => {
                let answer = answer.as_ref().map_or("", |(id, _)| id.as_str());
                stable_id("evp", &[&to_json(&self.scope), answer])
            }
        };
        pack.created_at = self.created_at.clone();
        pack.updated_at = self.updated_at.clone();
        check_built(DocKind::EvidencePack, &pack)?;
        Ok(pack)
    }
}

/// The id as given when valid, else a valid id derived from it (see [`to_valid_id`]).
fn valid(id: &str) -> String {
    to_valid_id(id).into_owned()
}

/// Keeps a caller's id that had to be mapped to a valid one, verbatim.
fn native(extra: &mut Object, raw: &str) {
    if to_valid_id(raw) != raw {
        extra.insert(NATIVE_ID_KEY.into(), Value::String(raw.into()));
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    // Serialising these types cannot fail: string keys, no non-finite floats.
    serde_json::to_string(v).unwrap_or_default()
}

/// Validates a built replay case (both passes).
pub(crate) fn check_replay(case: &ReplayCase) -> Result<(), BuildError> {
    check_built(DocKind::Replay, case)
}

fn check_built<T: serde::Serialize>(kind: DocKind, doc: &T) -> Result<(), BuildError> {
    let value = serde_json::to_value(doc).unwrap_or(Value::Null);
    let report = validate(kind, &value);
    if report.is_valid() { Ok(()) } else { Err(BuildError::Invalid { kind, issues: report.issues().cloned().collect() }) }
}

fn category_entry(cat: &str) -> Object {
    let mut o = Object::new();
    o.insert("category".into(), Value::String(cat.into()));
    o
}

fn not_checked_entry(item: (&str, &str), reason: &str) -> Object {
    let mut o = Object::new();
    o.insert(item.0.into(), Value::String(item.1.into()));
    o.insert("checked".into(), Value::Bool(false));
    o.insert("reason".into(), Value::String(reason.into()));
    o
}

/// Assembles an export manifest: files with their SHA-256 hashes and sizes, the schemas they
/// follow, and completeness.
#[derive(Debug, Clone)]
pub struct ExportBuilder {
    manifest: ExportManifest,
}

impl ExportBuilder {
    /// A manifest for a pack, created at `created_at` (an input, never the clock). The export
    /// id defaults to one derived from the content.
    pub fn new(evidence_pack_id: impl Into<String>, created_at: impl Into<String>, completeness: Completeness) -> Self {
        Self {
            manifest: ExportManifest {
                export_id: String::new(),
                evidence_pack_id: evidence_pack_id.into(),
                schema_version: SCHEMA_VERSION.into(),
                created_at: created_at.into(),
                files: Vec::new(),
                schemas: None,
                completeness,
                redactions: None,
                access: None,
                signatures: None,
                notes: None,
                extra: Object::new(),
            },
        }
    }

    /// Sets the export id.
    pub fn export_id(&mut self, id: impl Into<String>) -> &mut Self {
        self.manifest.export_id = id.into();
        self
    }

    /// Adds a file with its bytes: records `sha256:<hex>` and the size. When the role names an
    /// Agent Evidence document, its published schema goes into `schemas[]` and `schema_ref`.
    pub fn file(&mut self, path: impl Into<String>, role: impl Into<String>, media_type: &str, bytes: &[u8]) -> &mut Self {
        let role = role.into();
        let schema = role_schema(&role);
        self.manifest.files.push(ExportFile {
            path: path.into(),
            role,
            media_type: Some(media_type.into()),
            size: Some(Number::from(bytes.len())),
            hash: Some(sha256_ref(bytes)),
            schema_ref: schema.clone(),
            signature_ref: None,
            extra: Object::new(),
        });
        if let Some(uri) = schema {
            let schemas = self.manifest.schemas.get_or_insert_default();
            if !schemas.iter().any(|r| r.uri.as_deref() == Some(uri.as_str())) {
                schemas.push(Ref { kind: Some("json_schema".into()), uri: Some(uri), ..Ref::default() });
            }
        }
        self
    }

    /// Adds a redaction record.
    pub fn redaction(&mut self, r: RedactionRecord) -> &mut Self {
        self.manifest.redactions.get_or_insert_default().push(r);
        self
    }

    /// Sets the `access` terms (audience, expiry, licence, …).
    pub fn access(&mut self, access: Object) -> &mut Self {
        self.manifest.access = Some(access);
        self
    }

    /// Assembles and validates the manifest.
    pub fn build(&self) -> Result<ExportManifest, BuildError> {
        let mut m = self.manifest.clone();
        if m.export_id.is_empty() {
            m.export_id = stable_id("export", &[&to_json(&m)]);
        }
        check_built(DocKind::ExportManifest, &m)?;
        Ok(m)
    }
}

/// The published schema URI of an export file role that is an Agent Evidence document.
fn role_schema(role: &str) -> Option<String> {
    let kind = match role {
        "pack" => DocKind::EvidencePack,
        "claim_map" => DocKind::ClaimMap,
        "source_map" => DocKind::SourceMap,
        "provenance" => DocKind::Provenance,
        "verification" | "review" => DocKind::Verification,
        "replay" => DocKind::Replay,
        _ => return None,
    };
    Some(format!("https://limecloud.github.io/agentevidence/schemas/{}", kind.upstream_schema_file()))
}
