//! One self-contained HTML page (no network, no external assets): the answer with claims
//! coloured by status — hover shows the verdict, click pins the evidence — the policy
//! results, and the gate.

use std::fmt::Write;

use warrant_graph::Severity;
use warrant_verify::Status;

use super::pieces;
use crate::{Gate, Report};

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
main{max-width:920px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.gate{display:inline-block;padding:4px 12px;border-radius:4px;font-weight:700;color:#fff;letter-spacing:.04em}
.gate.allow{background:#1a7f37}.gate.review{background:#b35900}.gate.block{background:#c62828}
.answer{background:#fff;border:1px solid #d8dde4;border-radius:6px;padding:16px 18px;white-space:pre-wrap}
.claim{border-radius:3px;padding:1px 2px;cursor:pointer;border-bottom:2px solid transparent}
.claim.supported{background:#dcf5e3;border-color:#1a7f37}
.claim.partially_supported{background:#fdf1d6;border-color:#b88600}
.claim.unsupported{background:#fde7d4;border-color:#b35900}
.claim.contradicted{background:#fbdada;border-color:#c62828}
.claim.unverified{background:#eceff3;border-color:#8a94a3}
.claim.not_applicable{background:#f1f1f1;border-color:#c4c4c4}
.claim.active{outline:2px solid #1d2430}
.legend span{margin-right:10px;font-size:13px}
.evidence{display:none;background:#fff;border:1px solid #d8dde4;border-radius:6px;padding:12px 16px;margin-top:10px}
.evidence.shown{display:block}
.evidence h3{font-size:14px;margin:0 0 6px}
blockquote{margin:6px 0;padding:6px 10px;border-left:3px solid #8a94a3;background:#f6f7f9}
.rel{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:#57606a}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #d8dde4;padding:6px 8px;text-align:left;vertical-align:top;font-size:14px}
.pass{color:#1a7f37;font-weight:600}.fail{color:#c62828;font-weight:600}
ul.reasons{margin:6px 0 0 18px;padding:0}
";

const SCRIPT: &str = "
document.querySelectorAll('.claim').forEach(function(el){el.addEventListener('click',function(){
var id=el.getAttribute('data-claim');document.querySelectorAll('.evidence').forEach(function(p){p.classList.toggle('shown',p.id==='ev-'+id&&!p.classList.contains('shown'));});
document.querySelectorAll('.claim').forEach(function(c){c.classList.toggle('active',c===el&&document.getElementById('ev-'+id).classList.contains('shown'));});});});
var open=location.hash&&document.querySelector('.claim[data-claim=\"'+location.hash.slice(1).replace(/[^A-Za-z0-9_.:-]/g,'')+'\"]');if(open){open.click();}
";

/// Renders the report as one HTML page.
pub fn render(report: &Report) -> String {
    let mut h = String::new();
    let gate = report.gate.as_str();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<title>warrant check: {id}</title><style>{STYLE}</style></head><body><main>\n",
        id = escape(&report.output_id)
    );
    let _ = writeln!(
        h,
        "<h1>warrant check <small>{}</small></h1><p><span class=\"gate {gate}\" id=\"gate\">{}</span></p>",
        escape(&report.output_id),
        gate.to_uppercase()
    );
    if !report.gate_reasons.is_empty() {
        h.push_str("<ul class=\"reasons\">");
        for r in &report.gate_reasons {
            let _ = write!(h, "<li>{}</li>", escape(r));
        }
        h.push_str("</ul>\n");
    } else if report.gate == Gate::Allow {
        h.push_str("<p>Every claim checked out and every policy passed.</p>\n");
    }
    h.push_str("<h2>Answer</h2><p class=\"legend\">");
    for s in [
        Status::Supported,
        Status::PartiallySupported,
        Status::Unsupported,
        Status::Contradicted,
        Status::Unverified,
        Status::NotApplicable,
    ] {
        let _ = write!(h, "<span class=\"claim {0}\">{1}</span>", s.as_str(), s.as_str().replace('_', " "));
    }
    h.push_str("</p>\n<div class=\"answer\" id=\"answer\">");
    for (text, claim) in pieces(report) {
        match claim {
            None => h.push_str(&escape(text)),
            Some(c) => {
                let _ = write!(
                    h,
                    "<span class=\"claim {st}\" data-claim=\"{id}\" data-status=\"{st}\" title=\"{id}: {label} — {reason}\">{t}</span>",
                    st = c.status.as_str(),
                    id = escape(&c.claim_id),
                    label = c.status.as_str().replace('_', " "),
                    reason = escape(&c.reason),
                    t = escape(text)
                );
            }
        }
    }
    h.push_str("</div>\n");
    for c in &report.claims {
        let _ = write!(
            h,
            "<section class=\"evidence\" id=\"ev-{id}\"><h3>{id} · {label} · confidence {conf:.2}</h3><p>{reason}</p>",
            id = escape(&c.claim_id),
            label = c.status.as_str().replace('_', " "),
            conf = c.confidence,
            reason = escape(&c.reason)
        );
        for e in &c.support_edges {
            let _ = write!(
                h,
                "<div><span class=\"rel\">{}</span> {} <small>chars {}–{}</small><blockquote>{}</blockquote></div>",
                e.relationship.as_str().replace('_', " "),
                escape(&e.source_id),
                e.selector.start,
                e.selector.end,
                escape(&e.selector.exact)
            );
        }
        h.push_str("</section>\n");
    }
    h.push_str("<h2>Policies</h2><table id=\"policies\"><tr><th>pack / policy</th><th>result</th><th>violations</th></tr>");
    for pack in &report.policies.packs {
        for pol in &pack.policy_results {
            let _ = write!(
                h,
                "<tr><td>{}/{}</td><td class=\"{}\">{}</td><td>",
                escape(&pack.pack_id),
                escape(&pol.policy_id),
                if pol.passed { "pass" } else { "fail" },
                if pol.passed { "passed" } else { "failed" }
            );
            for v in &pol.violations {
                let sev = match v.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "info",
                };
                let _ = write!(h, "<div>[{sev}] {}</div>", escape(&v.message));
            }
            for s in &pol.skipped_rules {
                let _ = write!(h, "<div>[skipped] {}: {}</div>", escape(&s.rule_id), escape(&s.reason));
            }
            h.push_str("</td></tr>");
        }
    }
    h.push_str("</table>\n");
    let _ = writeln!(h, "<script>{SCRIPT}</script></main></body></html>");
    h
}
