//! The terminal report: the answer with each claim marked, the evidence under it, the policy
//! results, and the gate last.

use std::fmt::Write;

use warrant_graph::Severity;

use super::{mark, pieces};
use crate::Report;

/// Renders the report as text.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "output {}", report.output_id);
    out.push('\n');
    // The answer, each claim marked where it ends.
    for (text, claim) in pieces(report) {
        out.push_str(text);
        if let Some(c) = claim {
            let _ = write!(out, " [{} {}]", c.claim_id, mark(c.status));
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
    // Each claim with its evidence.
    for c in &report.claims {
        let _ = writeln!(out, "{} {} {}: {}", c.claim_id, mark(c.status), c.status.as_str(), one_line(&c.text));
        if !c.reason.is_empty() {
            let _ = writeln!(out, "    {}", c.reason);
        }
        if let Some(op) = &c.second_opinion {
            match (&op.degraded, op.status) {
                (Some(why), _) => {
                    let _ = writeln!(out, "    model second opinion DEGRADED ({}): {why}; the rules' result stands", op.model);
                }
                (None, Some(st)) if op.rules_status != c.status => {
                    let _ = writeln!(
                        out,
                        "    model {} said {} (the rules said {})",
                        op.model,
                        st.as_str(),
                        op.rules_status.as_str()
                    );
                }
                (None, Some(st)) => {
                    let _ = writeln!(out, "    model {} agrees: {}", op.model, st.as_str());
                }
                (None, None) => {}
            }
        }
        for e in &c.support_edges {
            let _ = writeln!(
                out,
                "    {} {} [{}–{}]: \"{}\"",
                e.relationship.as_str(),
                e.source_id,
                e.selector.start,
                e.selector.end,
                one_line(&e.selector.exact)
            );
        }
    }
    out.push('\n');
    let _ = writeln!(out, "summary: {}", summary_line(report));
    let _ = writeln!(out, "policies: {}", if report.policies.passed { "passed" } else { "FAILED" });
    for pack in &report.policies.packs {
        for pol in &pack.policy_results {
            let sign = if !pol.passed {
                "✗"
            } else if pol.violations.is_empty() {
                "✓"
            } else {
                "!"
            };
            let _ = writeln!(out, "  {sign} {}/{}", pack.pack_id, pol.policy_id);
            for v in &pol.violations {
                let sev = match v.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                };
                let _ = writeln!(out, "      [{sev}] {}", v.message);
            }
            for s in &pol.skipped_rules {
                let _ = writeln!(out, "      [skipped] {}: {}", s.rule_id, s.reason);
            }
        }
    }
    out.push('\n');
    let _ = writeln!(out, "gate: {}", report.gate.as_str().to_uppercase());
    for r in &report.gate_reasons {
        let _ = writeln!(out, "  - {r}");
    }
    out
}

/// "4 claims: 2 supported, 1 contradicted, 1 unsupported; support score 0.5".
pub fn summary_line(report: &Report) -> String {
    let s = &report.summary;
    let parts: Vec<String> = [
        (s.supported, "supported"),
        (s.partially_supported, "partially supported"),
        (s.unsupported, "unsupported"),
        (s.contradicted, "contradicted"),
        (s.unverified, "unverified"),
        (s.not_applicable, "not applicable"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| format!("{n} {what}"))
    .collect();
    let score = s.support_score.map_or_else(|| "no claim could be checked".to_string(), |x| format!("support score {x}"));
    format!("{} claim{}: {}; {score}", s.claims, if s.claims == 1 { "" } else { "s" }, parts.join(", "))
}

/// A quote on one line (newlines and runs of spaces folded).
fn one_line(s: &str) -> String {
    warrant_text::normalize::collapse_whitespace(s)
}
