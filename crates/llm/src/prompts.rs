//! The prompts, as versioned files under `crates/llm/prompts/` embedded in the binary.
//!
//! A prompt's id ends in its version (`facts.extract.v1`); a changed prompt gets a new file
//! and a new id, so recorded runs keep pointing at the text they used. `{{name}}` placeholders
//! are filled by [`render`]. `warrant llm prompts` lists them ([`ALL`]).

use sha2::{Digest, Sha256};

/// One prompt file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt {
    /// `<stage>.v<N>`.
    pub id: &'static str,
    /// The stage that sends it.
    pub stage: &'static str,
    /// What it asks for.
    pub description: &'static str,
    /// The template.
    pub text: &'static str,
}

impl Prompt {
    /// The version number (`1` for `facts.extract.v1`).
    pub fn version(&self) -> u32 {
        self.id.rsplit_once(".v").and_then(|(_, v)| v.parse().ok()).unwrap_or(0)
    }

    /// SHA-256 of the template (hex, first 16 chars): changes whenever the text does.
    pub fn sha256(&self) -> String {
        crate::hex(&Sha256::digest(self.text.as_bytes())[..8])
    }

    /// The file name under `crates/llm/prompts/`.
    pub fn file(&self) -> String {
        format!("{}.txt", self.id)
    }
}

macro_rules! prompt {
    ($name:ident, $id:literal, $stage:literal, $desc:literal) => {
        #[doc = $desc]
        pub const $name: Prompt =
            Prompt { id: $id, stage: $stage, description: $desc, text: include_str!(concat!("../prompts/", $id, ".txt")) };
    };
}

prompt!(
    ASK_PLAN,
    "ask.plan.v1",
    "ask.plan",
    "Question planning (warrant ask --llm-plan): a QueryPlan over the vocabulary's and the rules' predicates."
);
prompt!(
    REPAIR,
    "repair.v1",
    "any JSON stage",
    "Asks once more after a reply that was not valid JSON or broke the stage's schema."
);
prompt!(
    FACTS_EXTRACT,
    "facts.extract.v1",
    "facts.extract",
    "Fact extraction on ingest (warrant ingest --llm): facts of one chunk, predicates from the vocabulary."
);
prompt!(
    GRAPH_EXTRACT,
    "graph.extract.v1",
    "graph.extract",
    "PredicateGraph claim extraction (warrant extract --llm): the claims of a model output, quoted exactly."
);
prompt!(
    CKF_MAP,
    "ckf.map.v1",
    "ckf.map",
    "CKF map step (warrant compile --llm): the knowledge items of one source chunk, with verbatim excerpts."
);
prompt!(
    CLAIMS_VERIFY,
    "claims.verify.v1",
    "claims.verify",
    "Second opinion on a claim the rules left unsupported, partially supported or contradicted (warrant check --llm-verify)."
);
prompt!(
    RESEARCH_ASSESS,
    "research.assess.v1",
    "research.assess",
    "Research assess (warrant research --llm): whether the evidence answers the topic, and refined queries."
);
prompt!(
    RESEARCH_ROUTE,
    "research.route.v1",
    "research.route",
    "Research route (warrant research --llm): a RouteDecision over the classifier's candidates."
);
prompt!(
    RESEARCH_SYNTHESIZE,
    "research.synthesize.v1",
    "research.synthesize",
    "Research synthesis (warrant research --llm): an answer citing only the listed evidence ids."
);
prompt!(
    VERIFIER_JUDGE,
    "verifier.judge.v1",
    "verifier.judge",
    "Judge of a CPL verifier rubric: the rubric's output_schema filled in for the graph parts it reads."
);

/// Every prompt, by id.
pub const ALL: [Prompt; 10] = [
    ASK_PLAN,
    CKF_MAP,
    CLAIMS_VERIFY,
    FACTS_EXTRACT,
    GRAPH_EXTRACT,
    REPAIR,
    RESEARCH_ASSESS,
    RESEARCH_ROUTE,
    RESEARCH_SYNTHESIZE,
    VERIFIER_JUDGE,
];

/// The prompt with this id.
pub fn get(id: &str) -> Option<Prompt> {
    ALL.iter().copied().find(|p| p.id == id)
}

/// Fills `{{name}}` placeholders in one pass (values are not re-scanned, so text that
/// itself contains `{{…}}` is inserted verbatim). Unknown placeholders stay as written.
pub fn render(prompt: Prompt, vars: &[(&str, &str)]) -> String {
    let t = prompt.text;
    let mut out = String::with_capacity(t.len() + vars.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = t;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}") {
            Some(j) => {
                let name = &after[..j];
                match vars.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out.push_str(v),
                    None => out.push_str(&rest[i..i + 2 + j + 2]),
                }
                rest = &after[j + 2..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry() {
        let ids: Vec<&str> = ALL.iter().map(|p| p.id).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted, "ALL is listed by id");
        for p in ALL {
            assert_eq!(p.version(), 1, "{}", p.id);
            assert!(p.id.starts_with(p.stage) || p.id == "repair.v1", "{}", p.id);
            assert_eq!(p.sha256().len(), 16);
            assert!(!p.text.trim().is_empty());
        }
        assert_eq!(get("facts.extract.v1"), Some(FACTS_EXTRACT));
        assert_eq!(get("nope.v1"), None);
    }

    #[test]
    fn rendering_is_single_pass() {
        let p = Prompt { id: "t.v1", stage: "t", description: "", text: "a {{x}} b {{y}} c {{z" };
        assert_eq!(render(p, &[("x", "{{y}}"), ("y", "Y")]), "a {{y}} b Y c {{z");
        let p = Prompt { text: "{{missing}}!", ..p };
        assert_eq!(render(p, &[]), "{{missing}}!");
        let r = render(FACTS_EXTRACT, &[("predicates", "- expires_after: entity, duration"), ("text", "Tokens expire.")]);
        assert!(r.contains("- expires_after: entity, duration") && r.contains("Tokens expire.") && !r.contains("{{"));
    }
}
