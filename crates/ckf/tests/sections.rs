//! One small source per section, written for the purpose: each test says what the compiler must
//! extract from it, and every package passes the invariants (write mode, verbatim excerpts,
//! numbers inside excerpts).

#![allow(clippy::unwrap_used)]

mod common;

use common::{assert_invariants, compile_str, spans};
use warrant_ckf::{Basis, Field, Item, Package, Section};

fn run(name: &str, text: &str) -> Package {
    let p = compile_str(name, text);
    assert_invariants(&p, &spans(name, text));
    p
}

fn find(p: &Package, s: Section, pred: impl Fn(&Item) -> bool) -> &Item {
    p.section(s).iter().find(|i| pred(i)).unwrap_or_else(|| {
        let labels: Vec<String> = p.section(s).iter().map(Item::label).collect();
        panic!("no matching item in {}: {labels:?}", s.key())
    })
}

#[test]
fn entities_with_types_aliases_and_relations() {
    let p = run(
        "e.txt",
        "Requests go through the Workday portal and need approval from People Operations. A Pod Disruption Budget (PDB) limits voluntary evictions. The Billing Service depends on the Ledger API. The PDB applies per namespace.",
    );
    assert_eq!(find(&p, Section::Entities, |e| e.text("name") == "Workday").text("type"), "system");
    assert_eq!(find(&p, Section::Entities, |e| e.text("name") == "People Operations").text("type"), "organization");
    let pdb = find(&p, Section::Entities, |e| e.text("name") == "Pod Disruption Budget");
    assert_eq!(pdb.field("aliases"), &Field::List(vec!["PDB".into()]));
    assert!(p.section(Section::Entities).iter().all(|e| e.text("name") != "PDB"), "the alias merged into its expansion");
    let billing = find(&p, Section::Entities, |e| e.text("name") == "Billing Service");
    let Field::Related(r) = billing.field("related_entities") else { panic!() };
    assert_eq!((r[0].entity.as_str(), r[0].relation_type.as_str()), ("ent_ledger_api", "depends_on"));
    assert_eq!(billing.id, "ent_billing_service");
}

#[test]
fn concepts_from_definitions() {
    let p = run(
        "c.txt",
        "A migration window is a 30-minute period in which schema changes may be applied. \"Session token\" means the random string issued at login.",
    );
    let c = find(&p, Section::Concepts, |c| c.text("label") == "migration window");
    assert!(c.text("definition").starts_with("A migration window is a 30-minute period"));
    assert_eq!(c.text("domain"), p.metadata.domain);
    find(&p, Section::Concepts, |c| c.text("label") == "Session token");
    assert_eq!(find(&p, Section::AtomicUnits, |a| a.text("statement").starts_with("A migration")).text("type"), "definition");
}

#[test]
fn principles_from_normative_statements() {
    let p = run(
        "p.txt",
        "Passwords must be rotated every 90 days because leaked passwords stay valid otherwise. We believe small teams should own their services.",
    );
    let pr = find(&p, Section::Principles, |x| x.text("statement").starts_with("Passwords must"));
    assert_eq!(pr.text("rationale"), "because leaked passwords stay valid otherwise");
    let op = find(&p, Section::Principles, |x| x.text("statement").starts_with("We believe"));
    assert_eq!(op.trace.basis, Basis::AuthorOpinion);
    assert!(p.knowledge_limits.possible_biases.iter().any(|b| b.contains("We believe")));
}

#[test]
fn heuristics_from_soft_conditionals() {
    let p = run("h.txt", "When the queue grows faster than workers drain it, consider adding a worker before raising timeouts.");
    let h = find(&p, Section::Heuristics, |_| true);
    assert_eq!(h.text("trigger"), "the queue grows faster than workers drain it");
    assert!(h.text("recommended_action").starts_with("consider adding a worker"));
}

#[test]
fn decision_rules_from_deciding_conditionals() {
    let p = run(
        "d.txt",
        "If the refund is over $500, a Support Lead must approve it. Courses are reimbursable only when the manager approves them in writing.",
    );
    let d = find(&p, Section::DecisionRules, |d| d.text("condition") == "the refund is over $500");
    assert_eq!(d.text("decision"), "a Support Lead must approve it.");
    let o = find(&p, Section::DecisionRules, |d| d.text("decision") == "Courses are reimbursable");
    assert_eq!(o.text("condition"), "the manager approves them in writing");
}

#[test]
fn procedures_from_numbered_steps() {
    let p = run(
        "r.md",
        "# Keys\n\nTo rotate a signing key:\n\n1. Create a new key in the vault.\n2. Deploy the new key to all 3 regions.\n3. Revoke the old key after 24 hours.\n",
    );
    let pr = find(&p, Section::Procedures, |_| true);
    assert_eq!(pr.text("name"), "Rotate a signing key");
    assert_eq!(pr.text("objective"), "To rotate a signing key");
    let Field::Steps(steps) = pr.field("steps") else { panic!() };
    assert_eq!(steps.iter().map(|s| s.step).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(steps[2].action, "Revoke the old key after 24 hours.");
}

#[test]
fn patterns_from_tendencies() {
    let p = run("pat.txt", "Incidents often spike after large deploys, because caches start cold.");
    let pat = find(&p, Section::Patterns, |_| true);
    assert_eq!(pat.text("name"), "Incidents often spike after large deploys");
    assert_eq!(pat.text("observed_when"), "after large deploys");
}

#[test]
fn anti_patterns_from_avoid_do_not_and_common_mistakes() {
    let p = run(
        "a.txt",
        "Do not email secrets to colleagues. Instead, share them through the vault. Avoid running two migrations in one window. A common mistake is to skip the dry run. SMS codes should not be used as a second factor.",
    );
    let a = find(&p, Section::AntiPatterns, |a| a.text("name") == "Email secrets to colleagues");
    assert_eq!(a.text("replacement_behavior"), "Share them through the vault");
    find(&p, Section::AntiPatterns, |a| a.text("name") == "Running two migrations in one window");
    find(&p, Section::AntiPatterns, |a| a.text("name") == "Skip the dry run");
    find(&p, Section::AntiPatterns, |a| a.text("name") == "SMS codes should not be used as a second factor");
    assert!(p.agent_instructions.forbidden_behaviors.iter().any(|f| f.starts_with("Do not email secrets")));
}

#[test]
fn causal_chains_from_because_leads_to_causes() {
    let p = run(
        "cau.txt",
        "Skipping the snapshot causes long outages, which in turn leads to missed objectives. Deploys are frozen on Fridays because support is thin. The cache was cold. Therefore, latency rose sharply.",
    );
    let c = find(&p, Section::CausalChains, |c| c.text("cause") == "Skipping the snapshot");
    assert_eq!(c.text("effect"), "long outages");
    assert_eq!(c.field("secondary_effects"), &Field::List(vec!["missed objectives".into()]));
    let b = find(&p, Section::CausalChains, |c| c.text("cause") == "support is thin");
    assert_eq!(b.text("effect"), "Deploys are frozen on Fridays");
    let t = find(&p, Section::CausalChains, |c| c.text("cause") == "The cache was cold");
    assert_eq!(t.text("effect"), "Latency rose sharply");
    assert_eq!(t.trace.refs().len(), 1);
    assert_eq!(t.trace.evidence.len(), 2, "quotes both sentences");
}

#[test]
fn contextual_triggers_from_what_the_user_says() {
    let p = run("ctx.txt", "If a customer mentions a chargeback, escalate the ticket to the Payments team.");
    let c = find(&p, Section::ContextualTriggers, |_| true);
    assert_eq!(c.text("if_user_says_or_context_contains"), "a customer mentions a chargeback");
    assert_eq!(c.text("agent_should"), "escalate the ticket to the Payments team.");
    let Field::Refs(k) = c.field("activate_knowledge") else { panic!() };
    assert_eq!(k.len(), 1);
    assert!(k[0].starts_with("atm_"));
}

#[test]
fn if_then_rules_with_exception_clauses() {
    let p = run(
        "ift.txt",
        "If the build fails, roll back the release unless the failure is a flaky test. When replication lag exceeds 30 seconds, pause writes.",
    );
    let r = find(&p, Section::IfThenRules, |r| r.text("if") == "the build fails");
    assert_eq!(r.text("because"), "Exception: the failure is a flaky test");
    let l = find(&p, Section::IfThenRules, |r| r.text("if") == "replication lag exceeds 30 seconds");
    assert_eq!(l.text("then"), "pause writes.");
}

#[test]
fn exceptions_from_unless_except_however_and_references() {
    let p = run(
        "exc.txt",
        "Opened items can be returned within 30 days, unless the item is a gift card. All staff, except contractors, must complete training. Deploys must pass review. However, hotfixes approved by the incident lead may skip it.",
    );
    let u = find(&p, Section::Exceptions, |e| e.text("exception_case") == "the item is a gift card");
    assert_eq!(u.text("general_rule"), "Opened items can be returned within 30 days");
    let x = find(&p, Section::Exceptions, |e| e.text("exception_case") == "contractors");
    assert_eq!(x.text("general_rule"), "All staff must complete training");
    let h = find(&p, Section::Exceptions, |e| e.text("exception_case").starts_with("Hotfixes approved"));
    assert_eq!(h.text("general_rule"), "Deploys must pass review");
    assert!(p.agent_instructions.reasoning_rules.iter().any(|r| r.contains("exception: contractors")));
    // Each exception also gets an inferred trigger that activates it.
    let t = find(&p, Section::ContextualTriggers, |t| t.text("if_user_says_or_context_contains") == "contractors");
    assert_eq!(t.trace.basis, Basis::Inferred);
    assert_eq!(t.field("activate_knowledge"), &Field::Refs(vec![x.id.clone()]));
    assert!(t.text("agent_should").contains("All staff must complete training"));
}

#[test]
fn mental_models_from_analogies() {
    let p = run("mm.txt", "Think of the snapshot as an insurance policy that is cheap to take.");
    let m = find(&p, Section::MentalModels, |_| true);
    assert_eq!(m.text("name"), "The snapshot as an insurance policy that is cheap to take");
}

#[test]
fn playbooks_by_promotion() {
    let p = run("pb.txt", "First stop the writer service, then back up the database, and finally restart the writer service.");
    let pb = find(&p, Section::Playbooks, |_| true);
    assert_eq!(
        pb.field("steps"),
        &Field::List(vec!["Stop the writer service".into(), "Back up the database".into(), "Restart the writer service".into()])
    );
    let source = find(&p, Section::AtomicUnits, |_| true);
    assert_eq!(pb.trace.confidence, source.trace.confidence.scale(85));
    assert!(p.promotion_audit.as_ref().unwrap().promoted_count >= 1);
}

#[test]
fn qa_pairs_from_faqs_in_every_shape() {
    let p = run(
        "faq.txt",
        "Q: How long do refunds take?\nA: Refunds take 5 business days.\n\nQuestion: Can I cancel?\nAnswer: Yes, within 30 days.",
    );
    let q = find(&p, Section::QaPairs, |q| q.text("question") == "How long do refunds take?");
    assert_eq!((q.text("ideal_answer"), q.text("difficulty")), ("Refunds take 5 business days.", "easy"));
    assert_eq!(find(&p, Section::QaPairs, |q| q.text("question") == "Can I cancel?").text("answer_type"), "yes_no");
    let md = run(
        "faq.md",
        "# Help\n\n## What is a token?\n\nA token is a credential that proves who you are.\n\n## How do I rotate it?\n\nRun the rotate command from the console.\n",
    );
    assert_eq!(find(&md, Section::QaPairs, |q| q.text("question") == "What is a token?").text("answer_type"), "definition");
    let rec = run(
        "faq.jsonl",
        "{\"id\": \"q1\", \"question\": \"Is there a fee?\", \"answer\": \"No, there is no fee.\"}\n{\"id\": \"q2\", \"question\": \"Where do I sign up?\", \"answer\": \"Sign up on the website.\"}\n",
    );
    assert_eq!(rec.section(Section::QaPairs).len(), 2);
    assert_eq!(
        rec.source_traceability.iter().find(|r| r.extracted_item_id.starts_with("qa_is")).unwrap().source_record_id.as_deref(),
        Some("q1")
    );
}

#[test]
fn retrieval_chunks_cover_paragraphs_and_hold_their_numbers() {
    let long = (1..=30).map(|i| format!("Item {i} costs ${i}0 and ships in {i} days.")).collect::<Vec<_>>().join(" ");
    let p = run(
        "chunks.md",
        &format!("# Prices\n\n{long}\n\n## Shipping\n\nParcels leave the warehouse every morning and arrive within a week."),
    );
    let chunks = p.section(Section::RetrievalChunks);
    assert!(chunks.len() >= 3, "a number-dense paragraph splits into chunks whose excerpts can hold its numbers");
    let first = find(&p, Section::RetrievalChunks, |c| c.text("title") == "Prices");
    assert!(first.trace.evidence[0].excerpt.starts_with("Prices Item 1 costs"));
    find(&p, Section::RetrievalChunks, |c| c.text("title") == "Shipping" && c.text("standalone_context") == "Prices > Shipping");
}

#[test]
fn atomic_units_are_typed() {
    let p = run(
        "atm.txt",
        "The office opens at 9:00. Employees must wear badges. Visitors must not enter the lab. Refunds are final unless the item is faulty. If the alarm rings, leave the building. A badge is a card that opens doors. It might rain tomorrow afternoon. The sky over the campus is blue.",
    );
    let kind = |start: &str| find(&p, Section::AtomicUnits, |a| a.text("statement").starts_with(start)).text("type").to_string();
    assert_eq!(kind("The office opens"), "numeric_fact");
    assert_eq!(kind("Employees must"), "obligation");
    assert_eq!(kind("Visitors must not"), "prohibition");
    assert_eq!(kind("Refunds are final"), "exception");
    assert_eq!(kind("If the alarm"), "rule");
    assert_eq!(kind("A badge is"), "definition");
    assert_eq!(kind("It might rain"), "claim");
    assert_eq!(kind("The sky"), "fact");
    let t = find(&p, Section::AtomicUnits, |a| a.text("statement").starts_with("The office opens"));
    assert_eq!(t.field("tags"), &Field::List(vec!["time".into()]));
}

#[test]
fn atomic_dependencies_follow_anaphora() {
    let p = run("dep.txt", "The vault stores every production secret. It rotates them every 30 days.");
    let second = find(&p, Section::AtomicUnits, |a| a.text("statement").starts_with("It rotates"));
    let first = find(&p, Section::AtomicUnits, |a| a.text("statement").starts_with("The vault"));
    assert_eq!(second.field("dependencies"), &Field::Refs(vec![first.id.clone()]));
}

#[test]
fn metadata_core_intent_domain_map_and_limits() {
    let src = "---\ntitle: Session Auth Spec\nauthor: Platform Team\nversion: 2.0\n---\n\n# Session Auth Spec\n\n## Overview\n\nThis document describes how the API issues and revokes session tokens. It applies to backend engineers and on-call staff. It ensures that stolen tokens stop working quickly.\n\n## Tokens\n\nTokens must expire after 15 minutes. See Section 9 for the refresh flow. We assume clocks are synchronised. The legacy cookie flow is deprecated.\n";
    let p = run("auth.md", src);
    let m = &p.metadata;
    assert_eq!(m.package_id, "session-auth-spec-v2-0");
    assert_eq!(
        (m.source_title.as_str(), m.source_author.as_str(), m.language.as_str()),
        ("Session Auth Spec", "Platform Team", "en")
    );
    assert_eq!(m.domain, "software");
    assert_eq!(m.protocol_version, "ckf-1.0");
    assert_eq!(m.created_at, "1970-01-01T00:00:00Z");
    assert_eq!(p.domain_map.main_domain, "software");
    assert_eq!(p.core_intent.primary_purpose, "This document describes how the API issues and revokes session tokens.");
    assert_eq!(p.core_intent.intended_user, "backend engineers and on-call staff");
    assert!(p.core_intent.key_value.starts_with("It ensures"));
    let k = &p.knowledge_limits;
    assert_eq!(k.missing_context, vec!["Referenced but not included: Section 9".to_string()]);
    assert!(k.assumptions_detected[0].starts_with("We assume"));
    assert!(k.outdated_sections[0].contains("deprecated"));
    assert!(m.source_manifest.iter().all(|e| e.source_type == "markdown_section"));
    assert_eq!(m.source_manifest[1].path.as_deref(), Some("Session Auth Spec > Overview"));
}

#[test]
fn languages_and_portuguese_cues() {
    let p = run(
        "pt.txt",
        "Se o aluno errar a questão, o professor deve replanejar a aula. A avaliação formativa é um processo que orienta a aprendizagem dos alunos.",
    );
    assert_eq!(p.metadata.language, "pt-BR");
    find(&p, Section::Concepts, |c| c.text("label") == "A avaliação formativa" || c.text("label") == "avaliação formativa");
    assert!(!p.section(Section::IfThenRules).is_empty() || !p.section(Section::DecisionRules).is_empty());
    assert!(p.agent_instructions.response_rules[0].starts_with("Cite os source_excerpts"));
    let es =
        run("es.txt", "El empleado debe presentar la solicitud antes de la fecha límite y con todos los documentos firmados.");
    assert_eq!(es.metadata.language, "es");
}

#[test]
fn ids_are_stable_slugs() {
    let p = run("ids.txt", "Employees must wear badges at all times. Employees must wear badges at all times!");
    let a = p.section(Section::AtomicUnits);
    assert_eq!(a.len(), 1, "near-duplicates merge");
    assert_eq!(a[0].id, "atm_employees_must_wear_badges_at_all_times");
    for it in p.items() {
        assert!(it.id.starts_with(it.section.prefix()));
    }
}
