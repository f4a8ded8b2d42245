//! Generated Agent Evidence documents and their mutations, shared by the integration tests.

#![allow(dead_code)] // each test binary uses part of this

use serde_json::{Map, Value, json};
use warrant_evidence::*;

/// A small deterministic PRNG (SplitMix64), so every run compares the same documents.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const IDS: [&str; 6] = ["a", "c1", "evp_123", "x.y:z-1", "0start", "Z_9"];
const TIMESTAMPS: [&str; 4] =
    ["2026-05-08T00:00:00Z", "2026-05-08T10:20:30.123+02:00", "1990-12-31T23:59:60Z", "2026-01-01t00:00:00z"];

struct Gen<'r> {
    rng: &'r mut Rng,
    /// The pack schema types six more scope keys as ids.
    pack: bool,
}

impl Gen<'_> {
    fn id(&mut self) -> Value {
        if self.rng.chance(3) {
            return Value::String(format!("A{}", "b".repeat(255)));
        }
        json!(self.rng.pick(&IDS))
    }
    fn ts(&mut self) -> Value {
        json!(self.rng.pick(&TIMESTAMPS))
    }
    fn text(&mut self) -> Value {
        json!(self.rng.pick(&["", "The refund window is 30 days.", "ünïcödé ✓", "line\nbreak"]))
    }
    fn pick(&mut self, xs: &[&str]) -> Value {
        json!(self.rng.pick(xs))
    }
    /// One value of a closed enum, as JSON.
    fn pick_enum<E: serde::Serialize>(&mut self, all: &[E]) -> Value {
        serde_json::to_value(self.rng.pick(all)).unwrap_or_default()
    }
    fn opt(&mut self, o: &mut Map<String, Value>, key: &str, v: Value) {
        if self.rng.chance(60) {
            o.insert(key.into(), v);
        }
    }
    fn extras(&mut self, o: &mut Map<String, Value>) {
        if self.rng.chance(30) {
            let v = self
                .rng
                .pick(&[
                    json!(10),
                    json!(0.8),
                    json!(1.0),
                    json!(123456789012345678901234567890u128),
                    json!({"nested": [1, 2.5, {"deep": -3}]}),
                    json!("warrant"),
                    json!(null),
                ])
                .clone();
            o.insert("warrant:extra".into(), v);
        }
    }
    fn arr(&mut self, f: impl Fn(&mut Self) -> Value) -> Value {
        let n = self.rng.below(3);
        Value::Array((0..n).map(|_| f(self)).collect())
    }
    fn free(&mut self) -> Value {
        self.rng.pick(&[json!({}), json!({"k": "v"}), json!({"score": 0.5, "n": [1, 2]})]).clone()
    }

    fn reference(&mut self) -> Value {
        let mut o = Map::new();
        let id = self.id();
        self.opt(&mut o, "ref_id", id);
        for k in ["kind", "uri", "hash", "media_type", "schema_ref"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        self.extras(&mut o);
        Value::Object(o)
    }
    fn scope(&mut self, pack: bool) -> Value {
        let mut o = Map::new();
        let keys = SCOPE_ID_KEYS.iter().filter(|k| pack || !PACK_ONLY_SCOPE_KEYS.contains(k));
        for k in keys {
            if self.rng.chance(25) {
                let v = self.id();
                o.insert((*k).into(), v);
            }
        }
        if !pack && self.rng.chance(20) {
            // Free outside the pack schema.
            o.insert("attempt_id".into(), json!(7));
        }
        if self.rng.chance(20) {
            o.insert("external_case_id".into(), json!("case #1 (free text)"));
        }
        if o.is_empty() {
            o.insert("answer_id".into(), json!("answer_1"));
        }
        self.extras(&mut o);
        Value::Object(o)
    }
    fn producer(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), self.id());
        let t = self.pick_enum(ProducerType::ALL);
        self.opt(&mut o, "type", t);
        self.opt(&mut o, "name", json!("Warrant"));
        self.opt(&mut o, "version", json!("0.1.0"));
        self.extras(&mut o);
        Value::Object(o)
    }
    fn missing_fact(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("reason".into(), self.pick_enum(MissingReason::ALL));
        for k in ["fact", "owner", "details"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        let t = self.ts();
        self.opt(&mut o, "observed_at", t);
        self.extras(&mut o);
        Value::Object(o)
    }
    fn completeness_entry(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("status".into(), self.pick_enum(CompletenessStatus::ALL));
        let m = self.arr(Self::missing_fact);
        self.opt(&mut o, "missing_facts", m);
        self.opt(&mut o, "notes", json!("notes"));
        let t = self.ts();
        self.opt(&mut o, "last_checked_at", t);
        self.extras(&mut o);
        Value::Object(o)
    }
    fn completeness(&mut self) -> Value {
        let mut o = Map::new();
        for k in category::ALL.into_iter().chain(["custom_category"]) {
            if self.rng.chance(30) {
                let e = self.completeness_entry();
                o.insert(k.into(), e);
            }
        }
        Value::Object(o)
    }
    fn selector(&mut self) -> Value {
        let mut o = Map::new();
        for k in ["type", "exact", "prefix", "suffix", "json_pointer", "timestamp", "fragment"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        let (a, b) = (self.rng.below(20), self.rng.below(20));
        self.opt(&mut o, "start", json!(a.min(b)));
        self.opt(&mut o, "end", json!(a.max(b)));
        self.opt(&mut o, "line_start", json!(1));
        self.opt(&mut o, "line_end", json!(3));
        self.extras(&mut o);
        Value::Object(o)
    }
    fn source_ref(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("source_id".into(), self.id());
        o.insert("source_kind".into(), self.pick(&["document", "tool_result", "web_page", "anything"]));
        for k in ["uri", "ref", "snippet", "snippet_ref"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        let s = self.selector();
        self.opt(&mut o, "selector", s);
        for k in ["retrieval", "freshness", "trust", "privacy"] {
            let v = self.free();
            self.opt(&mut o, k, v);
        }
        self.extras(&mut o);
        Value::Object(o)
    }
    fn claim(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("claim_id".into(), self.id());
        o.insert("status".into(), self.pick_enum(ClaimStatus::ALL));
        match self.rng.below(3) {
            0 => {
                o.insert("text".into(), self.text());
            }
            1 => {
                o.insert("range_ref".into(), json!("answer:a#char=0,5"));
            }
            _ => {
                o.insert("text".into(), self.text());
                o.insert("range_ref".into(), json!("r"));
            }
        }
        let conf = self
            .rng
            .pick(&[json!(0.8), json!(0), json!(1), json!(1.0), json!("high"), json!({"rubric": "r", "score": 0.25})])
            .clone();
        self.opt(&mut o, "confidence", conf);
        for k in ["claim_type", "risk", "owner_ref"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        self.opt(&mut o, "support_edges", json!(["e1", "e2"]));
        self.extras(&mut o);
        Value::Object(o)
    }
    fn support_edge(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("edge_id".into(), self.id());
        o.insert("claim_id".into(), self.id());
        o.insert("relationship".into(), self.pick_enum(Relationship::ALL));
        for k in ["source_id", "verification_id", "review_id", "artifact_id", "provenance_node_id"] {
            let v = self.id();
            self.opt(&mut o, k, v);
        }
        let c = self.rng.pick(&[json!(0), json!(0.5), json!(1), json!(0.999)]).clone();
        self.opt(&mut o, "confidence", c);
        self.opt(&mut o, "notes", json!("n"));
        self.extras(&mut o);
        Value::Object(o)
    }
    fn telemetry_ref(&mut self) -> Value {
        let mut o = Map::new();
        for k in [
            "trace_id",
            "span_id",
            "span_kind",
            "event_id",
            "runtime_id",
            "session_id",
            "thread_id",
            "turn_id",
            "task_id",
            "run_id",
            "tool_call_id",
            "artifact_id",
            "backend_ref",
        ] {
            if self.rng.chance(20) {
                o.insert(k.into(), json!("not an id / free"));
            }
        }
        self.extras(&mut o);
        Value::Object(o)
    }
    fn verification_result(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("verification_id".into(), self.id());
        o.insert("check_type".into(), self.pick(&["schema", "policy", "grounding"]));
        o.insert("status".into(), self.pick_enum(VerificationStatus::ALL));
        let c = self.arr(Self::free);
        self.opt(&mut o, "coverage", c);
        let s = self.pick_enum(CheckSeverity::ALL);
        self.opt(&mut o, "severity", s);
        let r = self.arr(Self::reference);
        self.opt(&mut o, "evidence_refs", r);
        let i = self.arr(Self::free);
        self.opt(&mut o, "issues", i);
        let t = self.ts();
        self.opt(&mut o, "checked_at", t);
        self.extras(&mut o);
        Value::Object(o)
    }
    fn review(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("review_id".into(), self.id());
        o.insert("verdict".into(), self.pick_enum(Verdict::ALL));
        let r = self.free();
        self.opt(&mut o, "reviewer", r);
        self.opt(&mut o, "rubric_ref", json!("rubric"));
        self.opt(&mut o, "notes", json!("ok"));
        let s = self.scope(self.pack);
        self.opt(&mut o, "scope", s);
        self.opt(&mut o, "verification_refs", json!(["v1"]));
        let t = self.ts();
        self.opt(&mut o, "reviewed_at", t);
        self.extras(&mut o);
        Value::Object(o)
    }
    fn redaction(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("redaction_id".into(), self.id());
        o.insert("target_ref".into(), json!("source:s1#snippet"));
        o.insert("redaction_kind".into(), self.pick_enum(RedactionKind::ALL));
        o.insert("reason".into(), json!("privacy"));
        self.opt(&mut o, "applied_by", json!("warrant"));
        self.opt(&mut o, "replacement_ref", json!("redacted://1"));
        let t = self.ts();
        self.opt(&mut o, "applied_at", t);
        self.extras(&mut o);
        Value::Object(o)
    }
    fn node(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("node_id".into(), self.id());
        o.insert("type".into(), self.pick_enum(NodeType::ALL));
        for k in ["entity_type", "activity_type", "agent_type", "ref"] {
            let v = self.text();
            self.opt(&mut o, k, v);
        }
        let t = self.telemetry_ref();
        self.opt(&mut o, "telemetry", t);
        self.opt(&mut o, "tool_call_id", json!("tc_1"));
        Value::Object(o)
    }
    fn prov_edge(&mut self) -> Value {
        let mut o = Map::new();
        o.insert("edge_id".into(), self.id());
        o.insert("from".into(), self.id());
        o.insert("to".into(), self.id());
        o.insert("relationship".into(), self.pick_enum(Relationship::ALL));
        let t = self.ts();
        self.opt(&mut o, "timestamp", t);
        self.opt(&mut o, "confidence", json!(0.25));
        Value::Object(o)
    }
    fn common(&mut self, o: &mut Map<String, Value>, times: bool) {
        let id = self.id();
        self.opt(o, "evidence_pack_id", id);
        let s = self.scope(false);
        self.opt(o, "scope", s);
        if times {
            let (c, u) = (self.ts(), self.ts());
            self.opt(o, "created_at", c);
            self.opt(o, "updated_at", u);
            let p = self.producer();
            self.opt(o, "producer", p);
        }
    }

    /// The members of an evidence pack, each optional one present or not at random.
    fn evidence_pack_fields(&mut self, o: &mut Map<String, Value>) {
        o.insert("evidence_pack_id".into(), self.id());
        o.insert("scope".into(), self.scope(true));
        o.insert("status".into(), self.pick_enum(PackStatus::ALL));
        o.insert("created_at".into(), self.ts());
        o.insert("updated_at".into(), self.ts());
        o.insert("producer".into(), self.producer());
        o.insert("completeness".into(), self.completeness());
        let v = self.arr(Self::claim);
        self.opt(o, "claims", v);
        let v = self.arr(Self::source_ref);
        self.opt(o, "sources", v);
        let v = self.arr(Self::support_edge);
        self.opt(o, "support_edges", v);
        for k in ["claim_map_ref", "source_map_ref", "provenance_ref", "export_manifest_ref"] {
            self.opt(o, k, json!("ref://x"));
        }
        let prov = if self.rng.chance(50) {
            let (n, e) = (self.arr(Self::node), self.arr(Self::prov_edge));
            json!({"nodes": n, "edges": e})
        } else {
            json!({"nodes": "not a graph"})
        };
        self.opt(o, "provenance", prov);
        let v = self.arr(Self::verification_result);
        self.opt(o, "verification_results", v);
        let v = self.arr(Self::review);
        self.opt(o, "reviews", v);
        let v = self.arr(Self::free);
        self.opt(o, "replay_cases", v);
        let v = self.arr(Self::redaction);
        self.opt(o, "redactions", v);
        let v = self.free();
        self.opt(o, "redaction_summary", v);
        let v = self.arr(Self::telemetry_ref);
        self.opt(o, "telemetry", v);
        let v = self.arr(Self::reference);
        self.opt(o, "refs", v);
        self.opt(o, "warrant:pack_form", json!("full"));
    }

    fn doc(&mut self, kind: DocKind) -> Value {
        let mut o = Map::new();
        o.insert("schema_version".into(), json!("0.1.0"));
        match kind {
            DocKind::EvidencePack => {
                self.evidence_pack_fields(&mut o);
            }
            DocKind::ClaimMap => {
                o.insert("claim_map_id".into(), self.id());
                let mut claims = vec![self.claim()];
                if self.rng.chance(50) {
                    claims.push(self.claim());
                }
                o.insert("claims".into(), Value::Array(claims));
                let v = self.arr(Self::support_edge);
                self.opt(&mut o, "support_edges", v);
                self.common(&mut o, true);
            }
            DocKind::SourceMap => {
                o.insert("source_map_id".into(), self.id());
                o.insert("sources".into(), self.arr(Self::source_ref));
                let v = self.arr(|g| {
                    let t = g.ts();
                    json!({"source_id": g.id(), "reason": "stale", "observed_at": t, "decision_ref": "d"})
                });
                self.opt(&mut o, "omissions", v);
                let v = self.arr(Self::support_edge);
                self.opt(&mut o, "contradictions", v);
                self.common(&mut o, true);
            }
            DocKind::Provenance => {
                o.insert("provenance_id".into(), self.id());
                o.insert("nodes".into(), self.arr(Self::node));
                o.insert("edges".into(), self.arr(Self::prov_edge));
                self.common(&mut o, false);
            }
            DocKind::Verification => {
                let v = self.arr(Self::verification_result);
                self.opt(&mut o, "verification_results", v);
                let v = self.arr(Self::review);
                self.opt(&mut o, "reviews", v);
                self.common(&mut o, true);
            }
            DocKind::Replay => {
                o.insert("replay_id".into(), self.id());
                o.insert("scope".into(), self.scope(false));
                o.insert("determinism".into(), self.pick_enum(Determinism::ALL));
                let v = self.arr(Self::reference);
                self.opt(&mut o, "input_refs", v);
                let v = self.arr(Self::reference);
                self.opt(&mut o, "snapshot_refs", v);
                let v = self.arr(Self::telemetry_ref);
                self.opt(&mut o, "trace_refs", v);
                let v = self.arr(Self::missing_fact);
                self.opt(&mut o, "missing_facts", v);
                let v = self.arr(Self::free);
                self.opt(&mut o, "expected_outputs", v);
                let v = self.arr(Self::free);
                self.opt(&mut o, "replay_steps", v);
                self.opt(&mut o, "notes", json!("the model call is not replayable byte for byte"));
                self.common(&mut o, true);
                o.insert("scope".into(), self.scope(false));
            }
            DocKind::ExportManifest => {
                o.insert("export_id".into(), self.id());
                o.insert("evidence_pack_id".into(), self.id());
                o.insert("created_at".into(), self.ts());
                let files = self.arr(|g| {
                    let mut f = Map::new();
                    f.insert("path".into(), json!("pack.json"));
                    f.insert("role".into(), g.pick(&["pack", "claim_map", "readme", "anything"]));
                    g.opt(&mut f, "media_type", json!("application/json"));
                    let size = g.rng.pick(&[json!(0), json!(10), json!(1.0), json!(99999999999999999999u128)]).clone();
                    g.opt(&mut f, "size", size);
                    g.opt(&mut f, "hash", json!("sha256:00"));
                    g.opt(&mut f, "schema_ref", json!("s"));
                    g.opt(&mut f, "signature_ref", json!("sig"));
                    Value::Object(f)
                });
                o.insert("files".into(), files);
                o.insert("completeness".into(), self.completeness());
                let v = self.arr(Self::reference);
                self.opt(&mut o, "schemas", v);
                let v = self.arr(Self::redaction);
                self.opt(&mut o, "redactions", v);
                let v = self.free();
                self.opt(&mut o, "access", v);
                let v = self.arr(Self::free);
                self.opt(&mut o, "signatures", v);
                self.opt(&mut o, "notes", json!("n"));
            }
            DocKind::Event => {
                o.insert("type".into(), self.pick_enum(EventType::ALL));
                o.insert("event_id".into(), self.id());
                o.insert("timestamp".into(), self.ts());
                let evidence_ids =
                    ["evidence_pack_id", "claim_id", "source_id", "verification_id", "review_id", "replay_id", "export_id"];
                let runtime_ids = SCOPE_ID_KEYS.into_iter().filter(|k| !matches!(*k, "scope_id" | "answer_id" | "review_id"));
                for k in evidence_ids.into_iter().chain(runtime_ids) {
                    if self.rng.chance(15) {
                        let v = self.id();
                        o.insert(k.into(), v);
                    }
                }
                self.opt(&mut o, "trace_id", json!("4bf92f3577b34da6a3ce929d0e0e4736"));
                self.opt(&mut o, "span_id", json!("free span"));
                self.opt(&mut o, "subject", json!("pack"));
                let v = self.free();
                self.opt(&mut o, "payload", v);
            }
        }
        self.extras(&mut o);
        Value::Object(o)
    }
}

/// A random, schema-valid document of `kind`.
pub fn generate(kind: DocKind, rng: &mut Rng) -> Value {
    Gen { rng, pack: kind == DocKind::EvidencePack }.doc(kind)
}

/// Replacement values tried at every location.
pub fn replacements(current: &Value) -> Vec<Value> {
    let mut out = vec![
        json!(null),
        json!(true),
        json!(-1),
        json!(0),
        json!(0.5),
        json!(1),
        json!(1.0),
        json!(1.5),
        json!(2),
        json!(""),
        json!("x"),
        json!("_bad"),
        json!("a b"),
        json!("a\n"),
        Value::String("a".repeat(256)),
        Value::String("a".repeat(257)),
        json!("2026-05-08T00:00:00Z"),
        json!("2026-02-30T00:00:00Z"),
        json!("0.1.1"),
        json!([]),
        json!([{}]),
        json!({}),
        json!({"a": 1}),
    ];
    if let Value::String(s) = current {
        out.push(Value::String(s.to_uppercase()));
        out.push(Value::String(format!("{s}_x")));
    }
    out
}

/// Every JSON pointer in a document (the root first).
pub fn pointers(v: &Value) -> Vec<String> {
    fn walk(v: &Value, p: String, out: &mut Vec<String>) {
        out.push(p.clone());
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    walk(x, format!("{p}/{}", k.replace('~', "~0").replace('/', "~1")), out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, format!("{p}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, String::new(), &mut out);
    out
}

/// Mutations of a document: every key dropped, every value replaced (by
/// [`replacements`]), every array emptied and its first item doubled, an unknown key added
/// to every object.
pub fn mutations(doc: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for p in pointers(doc) {
        let Some(node) = doc.pointer(&p) else { continue };
        if !p.is_empty() {
            for r in replacements(node) {
                let mut d = doc.clone();
                if let Some(slot) = d.pointer_mut(&p) {
                    *slot = r;
                }
                out.push(d);
            }
        }
        match node {
            Value::Object(o) => {
                for k in o.keys() {
                    let mut d = doc.clone();
                    if let Some(Value::Object(m)) = d.pointer_mut(&p) {
                        m.remove(k);
                    }
                    out.push(d);
                }
                let mut d = doc.clone();
                if let Some(Value::Object(m)) = d.pointer_mut(&p) {
                    m.insert("unknown_field".into(), json!({"n": 1}));
                }
                out.push(d);
            }
            Value::Array(a) if !a.is_empty() => {
                let mut d = doc.clone();
                if let Some(Value::Array(m)) = d.pointer_mut(&p) {
                    let first = m[0].clone();
                    m.push(first);
                }
                out.push(d);
                let mut d = doc.clone();
                if let Some(Value::Array(m)) = d.pointer_mut(&p) {
                    m.clear();
                }
                out.push(d);
            }
            _ => {}
        }
    }
    out
}
