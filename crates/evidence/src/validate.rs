//! The validator (spec §6): pass 1 is the schema plus RFC 3339 `date-time`; pass 2 checks the
//! relationship invariants of §6.2 with their project codes and levels.
//!
//! Pass 2 runs on the typed documents, and only when pass 1 found nothing. A document can be
//! checked alone, or with a [`Context`] of the other documents of the same evidence (a claim
//! map a pack refers to, the source map with its omissions, source texts for selector
//! bounds). References that point outside the document are checked only when they can be
//! resolved: a pack with a `claim_map_ref` and no claim map in the context is not accused of
//! dangling claim ids.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use serde_json::{Number, Value};
use warrant_graph::Severity;
use warrant_graph::push_pointer;
use warrant_text::Decimal;

use crate::de::closed_enum;
use crate::ids::{digest, stable_id};
use crate::model::*;
use crate::schema::DocKind;

closed_enum! {
    /// Finding codes. Pass 1 has two (project rule; the spec names none); pass 2 has the
    /// twenty of §6.2.
    pub enum Code {
        /// Pass 1: the document does not match its schema.
        Schema = "AEV-SCHEMA",
        /// Pass 1: a `date-time` field is not RFC 3339.
        DateTime = "AEV-DATE-TIME",
        IdDup = "AEV-ID-DUP",
        RefClaim = "AEV-REF-CLAIM",
        RefSource = "AEV-REF-SOURCE",
        RefEdge = "AEV-REF-EDGE",
        RefNode = "AEV-REF-NODE",
        RefVerification = "AEV-REF-VERIFICATION",
        ClaimSupported = "AEV-CLAIM-SUPPORTED",
        ClaimContradicted = "AEV-CLAIM-CONTRADICTED",
        ClaimPartial = "AEV-CLAIM-PARTIAL",
        ClaimUnclassified = "AEV-CLAIM-UNCLASSIFIED",
        MissingAsSuccess = "AEV-MISSING-AS-SUCCESS",
        ReviewOverwrite = "AEV-REVIEW-OVERWRITE",
        Waiver = "AEV-WAIVER",
        ProvRel = "AEV-PROV-REL",
        TelemetryCopy = "AEV-TELEMETRY-COPY",
        RedactedPack = "AEV-REDACTED-PACK",
        ReplayHonesty = "AEV-REPLAY-HONESTY",
        ExportHash = "AEV-EXPORT-HASH",
        ExportPack = "AEV-EXPORT-PACK",
        SelectorRange = "AEV-SELECTOR-RANGE",
    }
}

impl Code {
    /// The level the spec gives the code: an error makes the document invalid; a warning
    /// fails only under `--strict`.
    pub fn level(self) -> Severity {
        match self {
            Self::RefVerification
            | Self::ClaimPartial
            | Self::ClaimUnclassified
            | Self::Waiver
            | Self::ProvRel
            | Self::TelemetryCopy
            | Self::ReplayHonesty
            | Self::ExportHash
            | Self::ExportPack => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// One finding, located by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The code, e.g. `AEV-CLAIM-SUPPORTED`.
    pub code: Code,
    /// JSON pointer into the document (`""` for the whole document).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Issue {
    /// A finding.
    pub fn new(code: Code, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { code, path: path.into(), message: message.into() }
    }

    /// The code's level.
    pub fn level(&self) -> Severity {
        self.code.level()
    }

    /// True for an error-level finding.
    pub fn is_error(&self) -> bool {
        self.level() == Severity::Error
    }

    /// `{code, path, message}`, as a verification result's `issues[]` entry (§6.3).
    pub fn to_object(&self) -> Object {
        let mut o = Object::new();
        o.insert("code".into(), Value::String(self.code.as_str().into()));
        o.insert("path".into(), Value::String(self.path.clone()));
        o.insert("message".into(), Value::String(self.message.clone()));
        o
    }
}

/// Other documents of the same evidence, and source texts, that references resolve against.
#[derive(Debug, Clone, Default)]
pub struct Context<'a> {
    /// Claim maps (a pack's `claim_map_ref`; a source map's contradictions).
    pub claim_maps: Vec<&'a ClaimMap>,
    /// Source maps: their sources resolve `source_id`s, their omissions resolve contradictions.
    pub source_maps: Vec<&'a SourceMap>,
    /// Packs: their claims, sources, checks, reviews and completeness are in scope.
    pub packs: Vec<&'a EvidencePack>,
    /// Verification documents: their checks and reviews are in scope.
    pub verifications: Vec<&'a VerificationDocument>,
    /// Source texts by `source_id`; selector offsets beyond them (in chars, D21) are errors.
    pub source_texts: BTreeMap<&'a str, &'a str>,
}

/// The outcome of validating one document.
#[derive(Debug, Clone)]
pub struct Report {
    /// What it was validated as.
    pub kind: DocKind,
    /// Pass 1 findings (schema and `date-time`), best match first.
    pub schema: Vec<Issue>,
    /// Pass 2 findings; `None` when pass 2 did not run because pass 1 failed.
    pub invariants: Option<Vec<Issue>>,
    /// The typed document, when pass 1 passed.
    pub document: Option<Document>,
    /// Digest of the document text, for stable result ids.
    digest: String,
}

impl Report {
    /// Every finding, pass 1 first.
    pub fn issues(&self) -> impl Iterator<Item = &Issue> {
        self.schema.iter().chain(self.invariants.iter().flatten())
    }

    /// Error-level findings.
    pub fn errors(&self) -> impl Iterator<Item = &Issue> {
        self.issues().filter(|i| i.is_error())
    }

    /// Warning-level findings.
    pub fn warnings(&self) -> impl Iterator<Item = &Issue> {
        self.issues().filter(|i| !i.is_error())
    }

    /// No error-level finding.
    pub fn is_valid(&self) -> bool {
        self.errors().next().is_none()
    }

    /// The validator's findings as evidence (§6.3): a `schema` result for pass 1 and an
    /// `evidence_invariants` result for pass 2 (`skipped`, with the reason, when pass 1
    /// failed). Ids are derived from the document's content.
    pub fn verification_results(&self) -> Vec<VerificationResult> {
        let kind = self.kind.name();
        let result = |check: &str, issues: &[Issue]| {
            let mut r = VerificationResult::new(
                stable_id(&format!("warrant.validate.{check}"), &[kind, &self.digest]),
                check,
                status_of(issues),
            );
            r.coverage = Some(vec![object([("document_kind", kind.into())])]);
            r.issues = Some(issues.iter().map(Issue::to_object).collect());
            r
        };
        let mut schema = result("schema", &self.schema);
        schema.coverage.get_or_insert_default()[0].insert("date_time".into(), Value::String("rfc3339".into()));
        let invariants = match &self.invariants {
            Some(issues) => result("evidence_invariants", issues),
            None => {
                let mut r = result("evidence_invariants", &[]);
                r.status = VerificationStatus::Skipped;
                r.coverage = Some(vec![object([
                    ("document_kind", kind.into()),
                    ("checked", false.into()),
                    ("reason", "the schema check failed, so the invariants were not checked".into()),
                ])]);
                r
            }
        };
        vec![schema, invariants]
    }
}

fn status_of(issues: &[Issue]) -> VerificationStatus {
    if issues.iter().any(Issue::is_error) {
        VerificationStatus::Failed
    } else if issues.is_empty() {
        VerificationStatus::Passed
    } else {
        VerificationStatus::Warning
    }
}

fn object<const N: usize>(entries: [(&str, Value); N]) -> Object {
    entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Reads a (schema-valid) document as its typed form.
pub fn parse(kind: DocKind, value: Value) -> Result<Document, serde_json::Error> {
    Ok(match kind {
        DocKind::EvidencePack => Document::EvidencePack(Box::new(serde_json::from_value(value)?)),
        DocKind::ClaimMap => Document::ClaimMap(serde_json::from_value(value)?),
        DocKind::SourceMap => Document::SourceMap(serde_json::from_value(value)?),
        DocKind::Provenance => Document::Provenance(serde_json::from_value(value)?),
        DocKind::Verification => Document::Verification(serde_json::from_value(value)?),
        DocKind::Replay => Document::Replay(serde_json::from_value(value)?),
        DocKind::ExportManifest => Document::ExportManifest(serde_json::from_value(value)?),
        DocKind::Event => Document::Event(Box::new(serde_json::from_value(value)?)),
    })
}

impl Document {
    /// The document's kind.
    pub fn kind(&self) -> DocKind {
        match self {
            Self::EvidencePack(_) => DocKind::EvidencePack,
            Self::ClaimMap(_) => DocKind::ClaimMap,
            Self::SourceMap(_) => DocKind::SourceMap,
            Self::Provenance(_) => DocKind::Provenance,
            Self::Verification(_) => DocKind::Verification,
            Self::Replay(_) => DocKind::Replay,
            Self::ExportManifest(_) => DocKind::ExportManifest,
            Self::Event(_) => DocKind::Event,
        }
    }

    /// The evidence pack this document belongs to (its own id for a pack).
    pub fn evidence_pack_id(&self) -> Option<&str> {
        match self {
            Self::EvidencePack(d) => Some(&d.evidence_pack_id),
            Self::ClaimMap(d) => d.evidence_pack_id.as_deref(),
            Self::SourceMap(d) => d.evidence_pack_id.as_deref(),
            Self::Provenance(d) => d.evidence_pack_id.as_deref(),
            Self::Verification(d) => d.evidence_pack_id.as_deref(),
            Self::Replay(d) => d.evidence_pack_id.as_deref(),
            Self::ExportManifest(d) => Some(&d.evidence_pack_id),
            Self::Event(d) => d.evidence_pack_id.as_deref(),
        }
    }
}

/// Validates a document of a known kind on its own.
pub fn validate(kind: DocKind, value: &Value) -> Report {
    validate_with(kind, value, &Context::default())
}

/// Validates a document of a known kind, resolving references through `ctx`.
pub fn validate_with(kind: DocKind, value: &Value, ctx: &Context<'_>) -> Report {
    let mut report = Report { kind, schema: Vec::new(), invariants: None, document: None, digest: digest(&[&value.to_string()]) };
    report.schema = kind
        .schema_errors(value)
        .into_iter()
        .map(|e| {
            if e.keyword == "format" {
                let found = value.pointer(&e.pointer).map_or_else(String::new, Value::to_string);
                Issue::new(Code::DateTime, e.pointer, format!("{found} is not an RFC 3339 date-time"))
            } else {
                Issue::new(Code::Schema, e.pointer, e.message)
            }
        })
        .collect();
    if !report.schema.is_empty() {
        return report;
    }
    match parse(kind, value.clone()) {
        Ok(doc) => {
            report.invariants = Some(check_document(&doc, ctx));
            report.document = Some(doc);
        }
        // A schema-valid document always reads (a test and the fuzz target hold this).
        Err(e) => report.schema.push(Issue::new(Code::Schema, "", format!("cannot read the document: {e}"))),
    }
    report
}

/// Parses JSON text and validates it; a syntax error is a pass-1 finding at the root.
pub fn validate_text(kind: DocKind, text: &str, ctx: &Context<'_>) -> Report {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => validate_with(kind, &v, ctx),
        Err(e) => Report {
            kind,
            schema: vec![Issue::new(Code::Schema, "", format!("invalid JSON: {e}"))],
            invariants: None,
            document: None,
            digest: digest(&[text]),
        },
    }
}

/// Pass 2 on a typed document (§6.2), in a fixed order: ids, references, claim statuses,
/// completeness, reviews, provenance, telemetry, redaction, replay, export, selectors.
pub fn check_document(doc: &Document, ctx: &Context<'_>) -> Vec<Issue> {
    let mut c = Checker { out: Vec::new(), ctx };
    match doc {
        Document::EvidencePack(p) => c.pack(p),
        Document::ClaimMap(m) => c.claim_map(m),
        Document::SourceMap(m) => c.source_map(m),
        Document::Provenance(p) => {
            c.provenance("", &p.nodes, &p.edges);
        }
        Document::Verification(v) => c.verification(v),
        Document::Replay(r) => c.replay(r),
        Document::ExportManifest(m) => c.export(m),
        Document::Event(_) => {}
    }
    c.out
}

/// Why two documents cannot be compared for review history.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// One of them holds no reviews by kind (only packs and verification documents do).
    #[error("only evidence packs and verification documents carry reviews, not {0}")]
    NoReviews(DocKind),
    /// They belong to different packs (or one names none).
    #[error("not two versions of the same pack: evidence_pack_id {older:?} vs {newer:?}")]
    DifferentPacks {
        /// The older document's pack id.
        older: Option<String>,
        /// The newer document's pack id.
        newer: Option<String>,
    },
}

/// `AEV-REVIEW-OVERWRITE`: every review of the older version of a pack must be in the newer
/// one, unchanged. Reviews are append-only; a new verdict needs a new `review_id` (D50).
/// Works on packs and verification documents of the same `evidence_pack_id`.
pub fn check_review_history(older: &Document, newer: &Document) -> Result<Vec<Issue>, HistoryError> {
    let reviews = |d: &Document| -> Result<Vec<ReviewVerdict>, HistoryError> {
        match d {
            Document::EvidencePack(p) => Ok(p.reviews().to_vec()),
            Document::Verification(v) => Ok(v.reviews().to_vec()),
            other => Err(HistoryError::NoReviews(other.kind())),
        }
    };
    let (old, new) = (reviews(older)?, reviews(newer)?);
    let (a, b) = (older.evidence_pack_id(), newer.evidence_pack_id());
    if a.is_none() || a != b {
        return Err(HistoryError::DifferentPacks { older: a.map(str::to_string), newer: b.map(str::to_string) });
    }
    let index: HashMap<&str, usize> = new.iter().enumerate().rev().map(|(i, r)| (r.review_id.as_str(), i)).collect();
    let mut out = Vec::new();
    for r in &old {
        match index.get(r.review_id.as_str()) {
            None => out.push(Issue::new(
                Code::ReviewOverwrite,
                "/reviews",
                format!("review '{}' ({}) of the previous version is missing; reviews are append-only", r.review_id, r.verdict),
            )),
            Some(&i) if new[i] != *r => out.push(Issue::new(
                Code::ReviewOverwrite,
                format!("/reviews/{i}"),
                format!(
                    "review '{}' was changed ({} → {}); reviews are append-only, a new verdict needs a new review_id",
                    r.review_id, r.verdict, new[i].verdict
                ),
            )),
            Some(_) => {}
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------- pass 2

/// Field names that mark a copied trace rather than a reference.
const BULKY_TELEMETRY_KEYS: [&str; 12] = [
    "attributes",
    "span_attributes",
    "events",
    "links",
    "resource",
    "payload",
    "body",
    "input",
    "output",
    "messages",
    "prompt",
    "completion",
];

/// Longest extra string a telemetry ref may carry before it counts as copied content.
const MAX_TELEMETRY_STRING: usize = 256;

/// Which ids resolve, for one claim set (`None`: cannot be resolved here, so not checked).
struct Env<'x> {
    claim_ids: Option<HashSet<&'x str>>,
    source_ids: Option<HashSet<&'x str>>,
    omitted: HashSet<&'x str>,
    reviews: Vec<&'x ReviewVerdict>,
}

struct Checker<'c, 'a> {
    out: Vec<Issue>,
    ctx: &'c Context<'a>,
}

impl<'c, 'a> Checker<'c, 'a> {
    fn push(&mut self, code: Code, path: impl Into<String>, message: impl Into<String>) {
        self.out.push(Issue::new(code, path, message));
    }

    /// `AEV-ID-DUP` over `(path, id)` pairs.
    fn dups<'x>(&mut self, what: &str, items: impl IntoIterator<Item = (String, &'x str)>) {
        let mut seen: HashMap<&str, String> = HashMap::new();
        for (path, id) in items {
            match seen.get(id) {
                Some(first) => {
                    let msg = format!("duplicate {what} '{id}' (first at {first})");
                    self.push(Code::IdDup, path, msg);
                }
                None => {
                    seen.insert(id, path);
                }
            }
        }
    }

    fn ctx_claim_ids(&self) -> impl Iterator<Item = &'a str> + '_ {
        let maps = self.ctx.claim_maps.iter().flat_map(|m| m.claims.iter());
        let packs = self.ctx.packs.iter().flat_map(|p| p.claims().iter());
        maps.chain(packs).map(|c| c.claim_id.as_str())
    }

    fn ctx_source_ids(&self) -> impl Iterator<Item = &'a str> + '_ {
        let maps = self.ctx.source_maps.iter().flat_map(|m| m.sources.iter());
        let packs = self.ctx.packs.iter().flat_map(|p| p.sources().iter());
        maps.chain(packs).map(|s| s.source_id.as_str())
    }

    fn ctx_omitted(&self) -> HashSet<&'a str> {
        self.ctx.source_maps.iter().flat_map(|m| m.omissions()).map(|o| o.source_id.as_str()).collect()
    }

    fn ctx_reviews(&self) -> impl Iterator<Item = &'a ReviewVerdict> + '_ {
        let packs = self.ctx.packs.iter().flat_map(|p| p.reviews().iter());
        packs.chain(self.ctx.verifications.iter().flat_map(|v| v.reviews().iter()))
    }

    fn ctx_results(&self) -> impl Iterator<Item = &'a VerificationResult> + '_ {
        let packs = self.ctx.packs.iter().flat_map(|p| p.verification_results().iter());
        packs.chain(self.ctx.verifications.iter().flat_map(|v| v.verification_results().iter()))
    }

    fn has_ctx_claims(&self) -> bool {
        !self.ctx.claim_maps.is_empty() || !self.ctx.packs.is_empty()
    }

    fn has_ctx_sources(&self) -> bool {
        !self.ctx.source_maps.is_empty() || !self.ctx.packs.is_empty()
    }

    // ------------------------------------------------------------ documents

    fn pack(&mut self, p: &'a EvidencePack) {
        self.dups("claim_id", p.claims().iter().enumerate().map(|(i, c)| (format!("/claims/{i}/claim_id"), c.claim_id.as_str())));
        self.dups(
            "source_id",
            p.sources().iter().enumerate().map(|(i, s)| (format!("/sources/{i}/source_id"), s.source_id.as_str())),
        );
        self.dups(
            "edge_id",
            p.support_edges().iter().enumerate().map(|(i, e)| (format!("/support_edges/{i}/edge_id"), e.edge_id.as_str())),
        );
        self.result_and_review_dups("", p.verification_results(), p.reviews());
        self.redaction_dups("", p.redactions());

        // Claims resolve in the pack, or through a supplied claim map; with a claim_map_ref
        // and nothing supplied they cannot be resolved here.
        let claim_ids = (p.claim_map_ref.is_none() || self.has_ctx_claims())
            .then(|| p.claims().iter().map(|c| c.claim_id.as_str()).chain(self.ctx_claim_ids()).collect());
        let source_ids = (p.source_map_ref.is_none() || self.has_ctx_sources())
            .then(|| p.sources().iter().map(|s| s.source_id.as_str()).chain(self.ctx_source_ids()).collect());
        let env = Env {
            claim_ids,
            source_ids,
            omitted: self.ctx_omitted(),
            reviews: p.reviews().iter().chain(self.ctx_reviews()).collect(),
        };
        self.claims("/claims", p.claims(), "/support_edges", p.support_edges(), &env);
        self.completeness("/completeness", &p.completeness);
        self.coverage_gaps("", p.verification_results(), Some(&p.completeness));
        let in_scope: Vec<&VerificationResult> = p.verification_results().iter().chain(self.ctx_results()).collect();
        self.reviews("", p.reviews(), &in_scope);
        if let Some(g) = p.provenance_graph() {
            self.provenance("/provenance", &g.nodes, &g.edges);
        }
        for (i, t) in p.telemetry().iter().enumerate() {
            self.telemetry(&format!("/telemetry/{i}"), t);
        }
        if p.status == PackStatus::Redacted {
            if p.redactions().is_empty() {
                self.push(Code::RedactedPack, "/status", "a redacted pack must list its redactions[]");
            }
            if !p.completeness.contains_key(category::PRIVACY) {
                self.push(
                    Code::RedactedPack,
                    "/completeness",
                    "a redacted pack must disclose what was redacted in completeness.privacy",
                );
            }
        }
        for (i, case) in p.replay_cases().iter().enumerate() {
            let determinism = case.get("determinism").and_then(Value::as_str);
            let has_missing = case.get("missing_facts").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
            self.replay_honesty(&format!("/replay_cases/{i}"), determinism, has_missing, case.get("notes"));
        }
        self.selectors("/sources", p.sources());
    }

    fn claim_map(&mut self, m: &'a ClaimMap) {
        self.dups("claim_id", m.claims.iter().enumerate().map(|(i, c)| (format!("/claims/{i}/claim_id"), c.claim_id.as_str())));
        self.dups(
            "edge_id",
            m.support_edges().iter().enumerate().map(|(i, e)| (format!("/support_edges/{i}/edge_id"), e.edge_id.as_str())),
        );
        let env = Env {
            claim_ids: Some(m.claims.iter().map(|c| c.claim_id.as_str()).chain(self.ctx_claim_ids()).collect()),
            source_ids: self.has_ctx_sources().then(|| self.ctx_source_ids().collect()),
            omitted: self.ctx_omitted(),
            reviews: self.ctx_reviews().collect(),
        };
        self.claims("/claims", &m.claims, "/support_edges", m.support_edges(), &env);
    }

    fn source_map(&mut self, m: &'a SourceMap) {
        self.dups(
            "source_id",
            m.sources.iter().enumerate().map(|(i, s)| (format!("/sources/{i}/source_id"), s.source_id.as_str())),
        );
        self.dups(
            "edge_id",
            m.contradictions().iter().enumerate().map(|(i, e)| (format!("/contradictions/{i}/edge_id"), e.edge_id.as_str())),
        );
        let sources: HashSet<&str> = m.sources.iter().map(|s| s.source_id.as_str()).chain(self.ctx_source_ids()).collect();
        for (i, o) in m.omissions().iter().enumerate() {
            if !sources.contains(o.source_id.as_str()) {
                self.push(
                    Code::RefSource,
                    format!("/omissions/{i}/source_id"),
                    format!(
                        "omission names source '{}', which is not in the map; a rejected source stays in the map",
                        o.source_id
                    ),
                );
            }
        }
        let claims: Option<HashSet<&str>> = self.has_ctx_claims().then(|| self.ctx_claim_ids().collect());
        for (i, e) in m.contradictions().iter().enumerate() {
            self.edge_refs(&format!("/contradictions/{i}"), e, claims.as_ref(), Some(&sources));
        }
        self.selectors("/sources", &m.sources);
    }

    fn verification(&mut self, v: &'a VerificationDocument) {
        self.result_and_review_dups("", v.verification_results(), v.reviews());
        let completeness = self.ctx.packs.first().map(|p| &p.completeness);
        self.coverage_gaps("", v.verification_results(), completeness);
        let in_scope: Vec<&VerificationResult> = v.verification_results().iter().chain(self.ctx_results()).collect();
        self.reviews("", v.reviews(), &in_scope);
    }

    fn replay(&mut self, r: &ReplayCase) {
        self.replay_honesty("", Some(r.determinism.as_str()), !r.missing_facts().is_empty(), r.extra.get("notes"));
        for (i, t) in r.trace_refs().iter().enumerate() {
            self.telemetry(&format!("/trace_refs/{i}"), t);
        }
    }

    fn export(&mut self, m: &ExportManifest) {
        self.dups("file path", m.files.iter().enumerate().map(|(i, f)| (format!("/files/{i}/path"), f.path.as_str())));
        self.redaction_dups("", m.redactions());
        self.completeness("/completeness", &m.completeness);
        for (i, f) in m.files.iter().enumerate() {
            if f.hash.is_none() {
                self.push(Code::ExportHash, format!("/files/{i}"), format!("export file '{}' has no hash", f.path));
            }
        }
        if m.schemas().is_empty() {
            self.push(Code::ExportHash, "", "the export manifest lists no schemas[]; schema refs travel with an export");
        }
        if !m.files.iter().any(|f| f.role == "pack") {
            self.push(Code::ExportPack, "/files", "the export lists no file with role 'pack'");
        }
    }

    // ------------------------------------------------------------ shared checks

    fn result_and_review_dups(&mut self, base: &str, results: &[VerificationResult], reviews: &[ReviewVerdict]) {
        self.dups(
            "verification_id",
            results
                .iter()
                .enumerate()
                .map(|(i, r)| (format!("{base}/verification_results/{i}/verification_id"), r.verification_id.as_str())),
        );
        self.dups(
            "review_id",
            reviews.iter().enumerate().map(|(i, r)| (format!("{base}/reviews/{i}/review_id"), r.review_id.as_str())),
        );
    }

    fn redaction_dups(&mut self, base: &str, redactions: &[RedactionRecord]) {
        self.dups(
            "redaction_id",
            redactions.iter().enumerate().map(|(i, r)| (format!("{base}/redactions/{i}/redaction_id"), r.redaction_id.as_str())),
        );
    }

    /// `AEV-REF-CLAIM` / `AEV-REF-SOURCE` for one support edge.
    fn edge_refs(&mut self, path: &str, e: &SupportEdge, claims: Option<&HashSet<&str>>, sources: Option<&HashSet<&str>>) {
        if let Some(ids) = claims
            && !ids.contains(e.claim_id.as_str())
        {
            self.push(
                Code::RefClaim,
                format!("{path}/claim_id"),
                format!("edge '{}' names claim '{}', which does not exist", e.edge_id, e.claim_id),
            );
        }
        if let (Some(ids), Some(s)) = (sources, &e.source_id)
            && !ids.contains(s.as_str())
        {
            self.push(
                Code::RefSource,
                format!("{path}/source_id"),
                format!("edge '{}' names source '{s}', which does not exist", e.edge_id),
            );
        }
    }

    /// References, `support_edges[]` lists and status rules of a claim set.
    fn claims(&mut self, claims_path: &str, claims: &[Claim], edges_path: &str, edges: &[SupportEdge], env: &Env<'_>) {
        for (i, e) in edges.iter().enumerate() {
            self.edge_refs(&format!("{edges_path}/{i}"), e, env.claim_ids.as_ref(), env.source_ids.as_ref());
        }
        let mut by_id: HashMap<&str, &SupportEdge> = HashMap::new();
        let mut by_claim: HashMap<&str, Vec<&SupportEdge>> = HashMap::new();
        for e in edges {
            by_id.entry(e.edge_id.as_str()).or_insert(e);
            by_claim.entry(e.claim_id.as_str()).or_default().push(e);
        }
        for (i, c) in claims.iter().enumerate() {
            for (k, id) in c.support_edges().iter().enumerate() {
                let path = format!("{claims_path}/{i}/support_edges/{k}");
                match by_id.get(id.as_str()) {
                    None => {
                        self.push(Code::RefEdge, path, format!("claim '{}' lists '{id}', which is not an edge id", c.claim_id))
                    }
                    Some(e) if e.claim_id != c.claim_id => self.push(
                        Code::RefEdge,
                        path,
                        format!("claim '{}' lists edge '{id}', which belongs to claim '{}'", c.claim_id, e.claim_id),
                    ),
                    Some(_) => {}
                }
            }
            let mine = by_claim.get(c.claim_id.as_str()).map_or(&[][..], Vec::as_slice);
            self.claim_status(&format!("{claims_path}/{i}/status"), c, mine, env);
        }
    }

    fn claim_status(&mut self, path: &str, c: &Claim, edges: &[&SupportEdge], env: &Env<'_>) {
        let before = self.out.len();
        let has = |rel: Relationship| edges.iter().any(|e| e.relationship == rel);
        let supported = edges.iter().any(|e| e.relationship.is_support());
        match c.status {
            ClaimStatus::Supported => {
                if !supported {
                    self.push(
                        Code::ClaimSupported,
                        path,
                        format!("claim '{}' is supported but has no supports or partially_supports edge", c.claim_id),
                    );
                }
                for e in edges.iter().filter(|e| e.relationship == Relationship::Contradicts) {
                    if !contradiction_resolved(c, e, edges, env) {
                        let from = e.source_id.as_deref().map(|s| format!(" from source '{s}'")).unwrap_or_default();
                        self.push(
                            Code::ClaimSupported,
                            path,
                            format!(
                                "claim '{}' is supported but edge '{}'{from} contradicts it and is not resolved (omitted source, approving review of the edge, or a qualifying edge from the same source)",
                                c.claim_id, e.edge_id
                            ),
                        );
                    }
                }
            }
            ClaimStatus::Contradicted if !has(Relationship::Contradicts) => self.push(
                Code::ClaimContradicted,
                path,
                format!("claim '{}' is contradicted but keeps no contradicts edge", c.claim_id),
            ),
            ClaimStatus::PartiallySupported if !supported => self.push(
                Code::ClaimPartial,
                path,
                format!("claim '{}' is partially_supported but has no supports or partially_supports edge", c.claim_id),
            ),
            _ => {}
        }
        let classified = matches!(c.status, ClaimStatus::Unverified | ClaimStatus::NotApplicable);
        // The more specific finding above already says the claim lacks its edges.
        if !classified && edges.is_empty() && self.out.len() == before {
            self.push(
                Code::ClaimUnclassified,
                path,
                format!("claim '{}' is {} but no edge classifies its support", c.claim_id, c.status),
            );
        }
    }

    /// `AEV-MISSING-AS-SUCCESS` (a): a `complete` category with missing facts.
    fn completeness(&mut self, path: &str, completeness: &Completeness) {
        for (cat, entry) in completeness {
            if entry.status == CompletenessStatus::Complete && !entry.missing_facts().is_empty() {
                self.push(
                    Code::MissingAsSuccess,
                    format!("{}/missing_facts", push_pointer(path, cat)),
                    format!(
                        "completeness '{cat}' is complete but lists {} missing fact(s); a missing fact is never success",
                        entry.missing_facts().len()
                    ),
                );
            }
        }
    }

    /// `AEV-MISSING-AS-SUCCESS` (b): a passed check claiming to cover a category that is
    /// missing, unknown or not collected. Coverage entries name categories as
    /// `{"category": …}`; entries marked `"checked": false` claim nothing.
    fn coverage_gaps(&mut self, base: &str, results: &[VerificationResult], completeness: Option<&Completeness>) {
        let Some(completeness) = completeness else { return };
        for (i, r) in results.iter().enumerate() {
            if r.status != VerificationStatus::Passed {
                continue;
            }
            for (k, entry) in r.coverage().iter().enumerate() {
                if entry.get("checked") == Some(&Value::Bool(false)) {
                    continue;
                }
                let Some(cat) = entry.get("category").and_then(Value::as_str) else { continue };
                if let Some(e) = completeness.get(cat)
                    && e.status.is_gap()
                {
                    self.push(
                        Code::MissingAsSuccess,
                        format!("{base}/verification_results/{i}/coverage/{k}/category"),
                        format!(
                            "check '{}' passed covering '{cat}', whose completeness is {}; missing evidence is never passed",
                            r.verification_id, e.status
                        ),
                    );
                }
            }
        }
    }

    /// `AEV-REF-VERIFICATION` and `AEV-WAIVER`.
    fn reviews(&mut self, base: &str, reviews: &[ReviewVerdict], results: &[&VerificationResult]) {
        let by_id: HashMap<&str, &VerificationResult> = results.iter().rev().map(|r| (r.verification_id.as_str(), *r)).collect();
        for (i, r) in reviews.iter().enumerate() {
            for (k, id) in r.verification_refs().iter().enumerate() {
                let path = format!("{base}/reviews/{i}/verification_refs/{k}");
                match by_id.get(id.as_str()) {
                    None => self.push(
                        Code::RefVerification,
                        path,
                        format!("review '{}' references '{id}', which is not a verification id in scope", r.review_id),
                    ),
                    Some(v) if r.verdict == Verdict::Approved && v.status == VerificationStatus::Failed => self.push(
                        Code::Waiver,
                        path,
                        format!(
                            "review '{}' approves over failed check '{id}'; a failed check may only be waived with verdict 'waived'",
                            r.review_id
                        ),
                    ),
                    Some(_) => {}
                }
            }
        }
    }

    fn provenance(&mut self, base: &str, nodes: &[ProvenanceNode], edges: &[ProvenanceEdge]) {
        self.dups("node_id", nodes.iter().enumerate().map(|(i, n)| (format!("{base}/nodes/{i}/node_id"), n.node_id.as_str())));
        self.dups("edge_id", edges.iter().enumerate().map(|(i, e)| (format!("{base}/edges/{i}/edge_id"), e.edge_id.as_str())));
        let ids: HashSet<&str> = nodes.iter().map(|n| n.node_id.as_str()).collect();
        for (i, e) in edges.iter().enumerate() {
            for (end, id) in [("from", &e.from), ("to", &e.to)] {
                if !ids.contains(id.as_str()) {
                    self.push(
                        Code::RefNode,
                        format!("{base}/edges/{i}/{end}"),
                        format!("provenance edge '{}' {end} '{id}', which is not a node id", e.edge_id),
                    );
                }
            }
            if e.relationship.is_claim_only() {
                self.push(
                    Code::ProvRel,
                    format!("{base}/edges/{i}/relationship"),
                    format!(
                        "provenance edge '{}' uses '{}', a claim relationship; use generated_by, used, derived_from, attributed_to or associated_with",
                        e.edge_id, e.relationship
                    ),
                );
            }
        }
        for (i, n) in nodes.iter().enumerate() {
            if let Some(t) = &n.telemetry {
                self.telemetry(&format!("{base}/nodes/{i}/telemetry"), t);
            }
        }
    }

    /// `AEV-TELEMETRY-COPY`: extra fields that copy a trace (span attributes, events,
    /// payloads, structured values, long text) instead of referencing it.
    fn telemetry(&mut self, path: &str, t: &TelemetryRef) {
        for (k, v) in &t.extra {
            let bulky = BULKY_TELEMETRY_KEYS.contains(&k.as_str())
                || matches!(v, Value::Object(_) | Value::Array(_))
                || v.as_str().is_some_and(|s| s.chars().count() > MAX_TELEMETRY_STRING);
            if bulky {
                self.push(
                    Code::TelemetryCopy,
                    push_pointer(path, k),
                    format!("telemetry ref carries '{k}'; reference the trace, do not copy it"),
                );
            }
        }
    }

    /// `AEV-REPLAY-HONESTY`.
    fn replay_honesty(&mut self, base: &str, determinism: Option<&str>, has_missing: bool, notes: Option<&Value>) {
        let inexact = matches!(determinism, Some("approximate" | "non_deterministic" | "unavailable"));
        let has_notes = notes.and_then(Value::as_str).is_some_and(|s| !s.trim().is_empty());
        if inexact && !has_missing && !has_notes {
            self.push(
                Code::ReplayHonesty,
                format!("{base}/determinism"),
                format!(
                    "determinism is {} but neither missing_facts nor notes say what cannot be replayed",
                    determinism.unwrap_or_default()
                ),
            );
        }
    }

    /// `AEV-SELECTOR-RANGE`.
    fn selectors(&mut self, base: &str, sources: &[SourceRef]) {
        for (i, s) in sources.iter().enumerate() {
            let Some(sel) = &s.selector else { continue };
            let path = format!("{base}/{i}/selector");
            for (lo, hi, lo_name, hi_name) in
                [(&sel.start, &sel.end, "start", "end"), (&sel.line_start, &sel.line_end, "line_start", "line_end")]
            {
                if let (Some(a), Some(b)) = (lo, hi)
                    && num_lt(b, a)
                {
                    self.push(
                        Code::SelectorRange,
                        format!("{path}/{hi_name}"),
                        format!("selector {hi_name} {b} is before its {lo_name} {a}"),
                    );
                }
            }
            if let Some(text) = self.ctx.source_texts.get(s.source_id.as_str()) {
                let len = Number::from(warrant_text::char_len(text));
                for (name, n) in [("start", &sel.start), ("end", &sel.end)] {
                    if let Some(n) = n
                        && num_lt(&len, n)
                    {
                        self.push(
                            Code::SelectorRange,
                            format!("{path}/{name}"),
                            format!("selector {name} {n} is past the end of source '{}' ({len} chars)", s.source_id),
                        );
                    }
                }
            }
        }
    }
}

/// `a < b`, exactly (numbers are compared as written; beyond the exact range, as floats).
fn num_lt(a: &Number, b: &Number) -> bool {
    match (Decimal::parse(&a.to_string()), Decimal::parse(&b.to_string())) {
        (Ok(x), Ok(y)) => x.value() < y.value(),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x < y,
            _ => false,
        },
    }
}

/// A `contradicts` edge is resolved when its source was omitted from the source map, when
/// an approving or waiving review scoped to the claim references the edge (in its notes or
/// an extension field), or when a `qualifies` edge from the same source narrows the claim
/// (project definition, §6.2).
fn contradiction_resolved(c: &Claim, e: &SupportEdge, edges: &[&SupportEdge], env: &Env<'_>) -> bool {
    if let Some(s) = e.source_id.as_deref()
        && (env.omitted.contains(s)
            || edges.iter().any(|q| q.relationship == Relationship::Qualifies && q.source_id.as_deref() == Some(s)))
    {
        return true;
    }
    env.reviews.iter().any(|r| {
        matches!(r.verdict, Verdict::Approved | Verdict::Waived)
            && review_scoped_to(r, &c.claim_id)
            && (r.notes.as_deref().is_some_and(|n| mentions(n, &e.edge_id))
                || r.extra.values().any(|v| value_mentions(v, &e.edge_id)))
    })
}

/// A review is scoped to a claim through `scope.claim_id`, or a `claim_id` / `claim_ids`
/// extension field.
fn review_scoped_to(r: &ReviewVerdict, claim_id: &str) -> bool {
    r.scope.as_ref().and_then(|s| s.get("claim_id")) == Some(claim_id)
        || r.extra.get("claim_id").and_then(Value::as_str) == Some(claim_id)
        || r.extra.get("claim_ids").and_then(Value::as_array).is_some_and(|a| a.iter().any(|v| v.as_str() == Some(claim_id)))
}

/// True when `text` names `id` as a whole token (a trailing `.`, `:` or `-` is punctuation).
fn mentions(text: &str, id: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')))
        .any(|t| t == id || t.trim_end_matches(['.', ':', '-']) == id)
}

fn value_mentions(v: &Value, id: &str) -> bool {
    match v {
        Value::String(s) => mentions(s, id),
        Value::Array(a) => a.iter().any(|x| value_mentions(x, id)),
        Value::Object(o) => o.values().any(|x| value_mentions(x, id)),
        _ => false,
    }
}
