//! The eight Agent Evidence document kinds and Warrant's own JSON Schemas for them.
//!
//! The schemas under `schemas/agent-evidence/` are draft 2020-12 with Warrant's `$id`s and
//! wording, and the same constraints as the published ones (a differential test holds this).
//! They are embedded and compiled once, with `format` asserted: the spec's pass 1 makes
//! `date-time` an RFC 3339 rule (project rule), which draft 2020-12 treats as an annotation.

use std::sync::LazyLock;

use serde_json::Value;
use warrant_graph::{CompiledSchema, SchemaError};

/// The eight Agent Evidence documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    /// `agentevidence-pack.schema.json`
    EvidencePack,
    /// `agentevidence-claim-map.schema.json`
    ClaimMap,
    /// `agentevidence-source-map.schema.json`
    SourceMap,
    /// `agentevidence-provenance.schema.json`
    Provenance,
    /// `agentevidence-verification.schema.json`
    Verification,
    /// `agentevidence-replay.schema.json`
    Replay,
    /// `agentevidence-export-manifest.schema.json`
    ExportManifest,
    /// `agentevidence-event.schema.json`
    Event,
}

static SCHEMAS: [&str; 8] = [
    include_str!("../schemas/pack-0.1.0.schema.json"),
    include_str!("../schemas/claim-map-0.1.0.schema.json"),
    include_str!("../schemas/source-map-0.1.0.schema.json"),
    include_str!("../schemas/provenance-0.1.0.schema.json"),
    include_str!("../schemas/verification-0.1.0.schema.json"),
    include_str!("../schemas/replay-0.1.0.schema.json"),
    include_str!("../schemas/export-manifest-0.1.0.schema.json"),
    include_str!("../schemas/event-0.1.0.schema.json"),
];

static COMPILED: LazyLock<Vec<CompiledSchema>> = LazyLock::new(|| {
    DocKind::ALL
        .iter()
        .map(|k| {
            // The embedded schemas are covered by tests; failing here is a build defect.
            CompiledSchema::compile_asserting_formats(k.schema_json())
                .unwrap_or_else(|e| panic!("embedded Agent Evidence {} schema: {e}", k.name()))
        })
        .collect()
});

impl DocKind {
    /// Every kind, in the spec's order.
    pub const ALL: [Self; 8] = [
        Self::EvidencePack,
        Self::ClaimMap,
        Self::SourceMap,
        Self::Provenance,
        Self::Verification,
        Self::Replay,
        Self::ExportManifest,
        Self::Event,
    ];

    fn index(self) -> usize {
        self as usize
    }

    /// The kind's name as `warrant validate --kind` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::EvidencePack => "evidence_pack",
            Self::ClaimMap => "claim_map",
            Self::SourceMap => "source_map",
            Self::Provenance => "provenance",
            Self::Verification => "verification",
            Self::Replay => "replay",
            Self::ExportManifest => "export_manifest",
            Self::Event => "event",
        }
    }

    /// The kind named `name` (see [`DocKind::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The file name of the published upstream schema this kind follows.
    pub fn upstream_schema_file(self) -> &'static str {
        match self {
            Self::EvidencePack => "agentevidence-pack.schema.json",
            Self::ClaimMap => "agentevidence-claim-map.schema.json",
            Self::SourceMap => "agentevidence-source-map.schema.json",
            Self::Provenance => "agentevidence-provenance.schema.json",
            Self::Verification => "agentevidence-verification.schema.json",
            Self::Replay => "agentevidence-replay.schema.json",
            Self::ExportManifest => "agentevidence-export-manifest.schema.json",
            Self::Event => "agentevidence-event.schema.json",
        }
    }

    /// Warrant's embedded schema text for this kind.
    pub fn schema_json(self) -> &'static str {
        SCHEMAS[self.index()]
    }

    /// The compiled schema (formats asserted).
    pub(crate) fn compiled(self) -> &'static CompiledSchema {
        &COMPILED[self.index()]
    }

    /// Schema errors (best match first), `date-time` format failures included with the
    /// keyword `format`.
    pub fn schema_errors(self, value: &Value) -> Vec<SchemaError> {
        self.compiled().errors(value)
    }

    /// Tells the kind from a document's content, by the id fields only one kind carries:
    /// `event_id` (or a dotted `evidence.*` type), `claim_map_id`, `source_map_id`,
    /// `provenance_id`, `export_id`, `replay_id`; then a pack (`status`, `claims`, `sources`,
    /// `support_edges`, `completeness`, map refs) before a verification document
    /// (`verification_results` or `reviews` only); a bare `evidence_pack_id` is a pack.
    pub fn detect(value: &Value) -> Option<Self> {
        let o = value.as_object()?;
        let has = |k: &str| o.contains_key(k);
        let dotted = o.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("evidence."));
        if has("event_id") || dotted {
            Some(Self::Event)
        } else if has("claim_map_id") {
            Some(Self::ClaimMap)
        } else if has("source_map_id") {
            Some(Self::SourceMap)
        } else if has("provenance_id") {
            Some(Self::Provenance)
        } else if has("export_id") {
            Some(Self::ExportManifest)
        } else if has("replay_id") || has("determinism") {
            Some(Self::Replay)
        } else if ["status", "claims", "sources", "support_edges", "completeness", "claim_map_ref", "source_map_ref"]
            .iter()
            .any(|k| has(k))
        {
            Some(Self::EvidencePack)
        } else if has("verification_results") || has("reviews") {
            Some(Self::Verification)
        } else if has("evidence_pack_id") {
            Some(Self::EvidencePack)
        } else {
            None
        }
    }
}

impl std::fmt::Display for DocKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_embedded_schema_compiles_and_names_round_trip() {
        for k in DocKind::ALL {
            let _ = k.compiled();
            assert_eq!(DocKind::from_name(k.name()), Some(k));
            let v: Value = serde_json::from_str(k.schema_json()).unwrap_or_else(|e| panic!("{k}: {e}"));
            assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
            assert!(v["$id"].as_str().is_some_and(|id| id.starts_with("https://warrant.dev/")));
        }
    }

    #[test]
    fn shared_defs_are_identical_except_the_pack_scope() {
        let defs = |k: DocKind| -> Value {
            let v: Value = serde_json::from_str(k.schema_json()).unwrap_or_default();
            v["$defs"].clone()
        };
        let base = defs(DocKind::ClaimMap);
        for k in DocKind::ALL {
            let mut d = defs(k);
            if k == DocKind::EvidencePack {
                let props = d["scope"]["properties"].as_object().cloned().unwrap_or_default();
                for extra in crate::model::PACK_ONLY_SCOPE_KEYS {
                    assert!(props.contains_key(extra), "pack scope lacks {extra}");
                }
                d["scope"] = base["scope"].clone();
            }
            assert_eq!(d, base, "{k}: $defs differ");
        }
    }

    #[test]
    fn date_time_is_asserted() {
        let ev = json!({"type": "evidence.pack.created", "event_id": "e1", "timestamp": "yesterday", "schema_version": "0.1.0"});
        let errs = DocKind::Event.schema_errors(&ev);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].keyword, "format");
        assert_eq!(errs[0].pointer, "/timestamp");
    }

    #[test]
    fn detection() {
        for (v, k) in [
            (json!({"event_id": "e", "type": "evidence.warning"}), DocKind::Event),
            (json!({"type": "evidence.pack.created"}), DocKind::Event),
            (json!({"claim_map_id": "m", "evidence_pack_id": "p"}), DocKind::ClaimMap),
            (json!({"source_map_id": "m"}), DocKind::SourceMap),
            (json!({"provenance_id": "m"}), DocKind::Provenance),
            (json!({"export_id": "x", "evidence_pack_id": "p"}), DocKind::ExportManifest),
            (json!({"replay_id": "r"}), DocKind::Replay),
            (json!({"evidence_pack_id": "p", "status": "ready"}), DocKind::EvidencePack),
            (json!({"scope": {}, "claims": [], "reviews": []}), DocKind::EvidencePack),
            (json!({"evidence_pack_id": "p", "reviews": []}), DocKind::Verification),
            (json!({"evidence_pack_id": "p"}), DocKind::EvidencePack),
        ] {
            assert_eq!(DocKind::detect(&v), Some(k), "{v}");
        }
        assert_eq!(DocKind::detect(&json!({"schema_version": "0.1.0"})), None);
        assert_eq!(DocKind::detect(&json!([1])), None);
    }
}
