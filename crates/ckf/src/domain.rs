//! The closed domain enum (§2.2) and its detection from cue words, with subdomains.
//!
//! New topics never extend the enum: they become subdomains. A suggested domain outside the
//! enum maps to `general knowledge` and the suggestion is kept as a subdomain (project rule).

use std::sync::LazyLock;

use warrant_text::fasthash::FastMap;
use warrant_text::words::words;

/// The closed domain values.
pub const DOMAINS: [&str; 7] =
    ["education / learning science", "business", "legal", "healthcare", "software", "science", "general knowledge"];

/// The fallback domain.
pub const GENERAL: &str = "general knowledge";

/// Cue words per domain (lower-case), EN / PT / ES.
const CUES: [&[&str]; 6] = [
    // education / learning science
    &[
        "student",
        "students",
        "teacher",
        "teachers",
        "learning",
        "lesson",
        "classroom",
        "curriculum",
        "assessment",
        "grade",
        "school",
        "course",
        "courses",
        "pedagogy",
        "aluno",
        "alunos",
        "professor",
        "professora",
        "aprendizagem",
        "avaliação",
        "aula",
        "escola",
        "ensino",
        "estudiante",
        "estudiantes",
        "aprendizaje",
        "rubric",
        "rubrica",
        "feedback",
        "exam",
        "exams",
        "formativa",
        "educação",
        "enrollment",
        "tuition",
        "university",
        "campus",
    ],
    // business
    &[
        "customer",
        "customers",
        "employee",
        "employees",
        "manager",
        "invoice",
        "invoices",
        "revenue",
        "vendor",
        "vendors",
        "reimbursement",
        "budget",
        "sales",
        "procurement",
        "payroll",
        "expense",
        "expenses",
        "contract",
        "refund",
        "refunds",
        "order",
        "orders",
        "pricing",
        "subscription",
        "billing",
        "cliente",
        "clientes",
        "empresa",
        "funcionário",
        "empleado",
        "finance",
        "purchase",
        "hr",
        "marketing",
        "supplier",
        "shipping",
    ],
    // legal
    &[
        "law",
        "laws",
        "statute",
        "court",
        "shall",
        "article",
        "articles",
        "regulation",
        "regulations",
        "legal",
        "liability",
        "plaintiff",
        "defendant",
        "jurisdiction",
        "tax",
        "taxpayer",
        "irs",
        "lei",
        "artigo",
        "decreto",
        "ley",
        "artículo",
        "compliance",
        "clause",
        "clauses",
        "tenant",
        "landlord",
        "lease",
        "rights",
        "penalty",
        "notwithstanding",
        "hereby",
        "pursuant",
        "gdpr",
        "breach",
        "act",
        "art",
        "liable",
        "lawful",
        "lawfully",
        "authority",
        "controller",
        "consent",
        "statutory",
        "decree",
        "ordinance",
    ],
    // healthcare
    &[
        "patient",
        "patients",
        "dose",
        "dosage",
        "mg",
        "clinical",
        "renal",
        "hepatic",
        "contraindicated",
        "therapy",
        "drug",
        "drugs",
        "treatment",
        "physician",
        "nurse",
        "diagnosis",
        "symptoms",
        "hospital",
        "infusion",
        "paciente",
        "pacientes",
        "dose",
        "médico",
        "tratamento",
        "egfr",
        "anc",
        "pregnancy",
        "medication",
        "medications",
        "adverse",
        "discharge",
    ],
    // software
    &[
        "api",
        "server",
        "database",
        "deploy",
        "deployment",
        "kubernetes",
        "pod",
        "pods",
        "code",
        "token",
        "tokens",
        "cache",
        "http",
        "request",
        "requests",
        "client",
        "service",
        "services",
        "config",
        "configuration",
        "cluster",
        "container",
        "git",
        "repository",
        "build",
        "release",
        "bucket",
        "iam",
        "aws",
        "postgres",
        "sql",
        "endpoint",
        "oauth",
        "latency",
        "incident",
        "rollback",
        "migration",
        "firewall",
        "software",
        "debug",
        "log",
        "logs",
    ],
    // science
    &[
        "hypothesis",
        "experiment",
        "experiments",
        "molecule",
        "cell",
        "cells",
        "species",
        "theory",
        "measurement",
        "physics",
        "chemistry",
        "biology",
        "energy",
        "particle",
        "protein",
        "genome",
        "climate",
        "sample",
        "samples",
        "observation",
        "research",
    ],
];

/// Subdomains: (domain index, name, cue words).
const SUBDOMAINS: &[(usize, &str, &[&str])] = &[
    (0, "assessment", &["assessment", "avaliação", "rubric", "rubrica", "grade", "exam", "exams", "feedback", "formativa"]),
    (0, "teaching practice", &["lesson", "aula", "classroom", "teacher", "professor", "professora", "ensino"]),
    (0, "student support", &["accommodation", "accommodations", "enrollment", "tuition", "student", "aluno"]),
    (1, "human resources", &["employee", "employees", "payroll", "hr", "leave", "manager", "funcionário"]),
    (1, "finance", &["invoice", "invoices", "budget", "expense", "expenses", "reimbursement", "billing", "payment"]),
    (1, "procurement", &["vendor", "vendors", "procurement", "purchase", "supplier"]),
    (1, "customer service", &["customer", "customers", "refund", "refunds", "order", "orders", "cliente"]),
    (2, "tax", &["tax", "taxpayer", "irs", "credit", "deduction"]),
    (2, "contracts", &["contract", "lease", "tenant", "landlord", "clause"]),
    (2, "regulation and compliance", &["regulation", "compliance", "gdpr", "breach", "reporting"]),
    (3, "pharmacology", &["dose", "dosage", "mg", "drug", "drugs", "medication", "contraindicated"]),
    (3, "clinical care", &["patient", "patients", "clinical", "discharge", "diagnosis", "treatment"]),
    (4, "infrastructure", &["kubernetes", "pod", "pods", "cluster", "container", "server", "aws", "bucket"]),
    (4, "security", &["token", "tokens", "oauth", "iam", "firewall", "password", "authentication", "permission"]),
    (4, "operations", &["deploy", "deployment", "incident", "rollback", "migration", "release", "on-call"]),
    (4, "data", &["database", "postgres", "sql", "cache", "storage"]),
];

static CUE_MAP: LazyLock<FastMap<&'static str, (u8, u32)>> = LazyLock::new(|| {
    // word → (domain bitmask, subdomain bitmask)
    let mut m: FastMap<&'static str, (u8, u32)> = FastMap::default();
    for (d, list) in CUES.iter().enumerate() {
        for w in *list {
            m.entry(w).or_insert((0, 0)).0 |= 1 << d;
        }
    }
    for (i, (_, _, list)) in SUBDOMAINS.iter().enumerate() {
        for w in *list {
            m.entry(w).or_insert((0, 0)).1 |= 1 << i;
        }
    }
    m
});

/// Domain evidence from a text.
#[derive(Debug, Clone, Default)]
pub struct DomainSignal {
    domain_hits: [u32; 6],
    sub_hits: Vec<u32>,
}

/// The result of domain detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainGuess {
    /// One of [`DOMAINS`].
    pub domain: &'static str,
    /// Subdomains of that domain, strongest first, with their share of the subdomain signal in
    /// hundredths.
    pub subdomains: Vec<(&'static str, u8)>,
    /// Other domains with real evidence.
    pub adjacent: Vec<&'static str>,
}

impl DomainSignal {
    /// Adds the evidence another signal holds (the same as having added its texts here).
    pub fn merge(&mut self, other: &DomainSignal) {
        for (h, o) in self.domain_hits.iter_mut().zip(other.domain_hits) {
            *h += o;
        }
        if self.sub_hits.len() < other.sub_hits.len() {
            self.sub_hits.resize(other.sub_hits.len(), 0);
        }
        for (h, o) in self.sub_hits.iter_mut().zip(&other.sub_hits) {
            *h += o;
        }
    }

    /// Adds the cue words of `text`.
    pub fn add(&mut self, text: &str) {
        if self.sub_hits.is_empty() {
            self.sub_hits = vec![0; SUBDOMAINS.len()];
        }
        let mut buf = String::new();
        for (_, w) in words(text) {
            if w.len() > 16 {
                continue;
            }
            if let Some(&(d, s)) = CUE_MAP.get(crate::normalize::lower_word(w, &mut buf)) {
                for (i, h) in self.domain_hits.iter_mut().enumerate() {
                    if d & (1 << i) != 0 {
                        *h += 1;
                    }
                }
                for (i, h) in self.sub_hits.iter_mut().enumerate() {
                    if s & (1 << i) != 0 {
                        *h += 1;
                    }
                }
            }
        }
    }

    /// The domain with the most evidence (at least 3 hits and 1.25× the runner-up), else
    /// `general knowledge`.
    pub fn guess(&self) -> DomainGuess {
        let mut order: Vec<(u32, usize)> = self.domain_hits.iter().copied().zip(0..).collect();
        order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let (top, i) = order[0];
        let second = order[1].0;
        let clear = top >= 3 && top * 4 >= second * 5;
        let domain = if clear { DOMAINS[i] } else { GENERAL };
        let mut subdomains = Vec::new();
        if clear {
            let subs: Vec<(usize, u32)> = SUBDOMAINS
                .iter()
                .enumerate()
                .filter(|(k, (d, _, _))| *d == i && self.sub_hits.get(*k).copied().unwrap_or(0) >= 2)
                .map(|(k, _)| (k, self.sub_hits[k]))
                .collect();
            let total: u32 = subs.iter().map(|s| s.1).sum();
            let mut subs = subs;
            subs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (k, h) in subs {
                let share = crate::score::round_half_even(i128::from(h) * 100, i128::from(total.max(1))) as u8;
                subdomains.push((SUBDOMAINS[k].1, share));
            }
        }
        let adjacent =
            order.iter().filter(|(h, j)| DOMAINS[*j] != domain && *h >= 3 && *h * 4 >= top).map(|(_, j)| DOMAINS[*j]).collect();
        DomainGuess { domain, subdomains, adjacent }
    }
}

/// True when `text` has a cue word of the named subdomain.
pub fn mentions_subdomain(name: &str, text: &str) -> bool {
    let Some((_, _, cues)) = SUBDOMAINS.iter().find(|(_, n, _)| *n == name) else { return false };
    words(text).any(|(_, w)| {
        let l = w.to_lowercase();
        cues.contains(&l.as_str())
    })
}

#[cfg(test)]
/// Maps a suggested domain onto the closed enum: known values (case-insensitive, and a few
/// common spellings) map to themselves, anything else to `general knowledge` with the
/// suggestion returned as a subdomain.
pub fn map_suggested(s: &str) -> (&'static str, Option<String>) {
    let l = s.trim().to_lowercase();
    if let Some(d) = DOMAINS.iter().find(|d| **d == l) {
        return (d, None);
    }
    let alias = match l.as_str() {
        "education" | "learning science" | "learning" => Some(DOMAINS[0]),
        "corporate_policy" | "corporate policy" | "finance" | "hr" => Some(DOMAINS[1]),
        "law" | "regulatory" | "legal_norm" => Some(DOMAINS[2]),
        "clinical" | "medicine" | "health" => Some(DOMAINS[3]),
        "technical_ops" | "technology" | "engineering" => Some(DOMAINS[4]),
        _ => None,
    };
    match alias {
        Some(d) => (d, Some(s.trim().to_string())),
        None => (GENERAL, (!l.is_empty()).then(|| s.trim().to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_signals_equal_one_signal_over_every_text() {
        let texts = [
            "The patient was given a dose of insulin.",
            "",
            "Tax returns and invoices are due.",
            "The court ruled on the contract.",
        ];
        let mut whole = DomainSignal::default();
        let mut merged = DomainSignal::default();
        for t in texts {
            whole.add(t);
            let mut one = DomainSignal::default();
            one.add(t);
            merged.merge(&one);
        }
        assert_eq!(merged.domain_hits, whole.domain_hits);
        assert_eq!(merged.sub_hits, whole.sub_hits);
        assert!(whole.domain_hits.iter().sum::<u32>() > 0, "the texts carry domain cues");
        assert_eq!(merged.guess(), whole.guess());
    }

    fn guess(t: &str) -> DomainGuess {
        let mut s = DomainSignal::default();
        s.add(t);
        s.guess()
    }

    #[test]
    fn detects_domains_and_subdomains() {
        let g = guess(
            "Deploy the service to the Kubernetes cluster. If the deployment fails, roll back the release and page the incident lead.",
        );
        assert_eq!(g.domain, "software");
        assert!(g.subdomains.iter().any(|s| s.0 == "operations"));
        assert_eq!(guess("The patient dose is 5 mg; renal impairment requires a lower dose.").domain, "healthcare");
        assert_eq!(guess("The weather was nice.").domain, GENERAL);
    }

    #[test]
    fn suggestions_map_into_the_enum() {
        assert_eq!(map_suggested("Legal"), ("legal", None));
        assert_eq!(map_suggested("corporate_policy"), ("business", Some("corporate_policy".into())));
        assert_eq!(map_suggested("astrology"), (GENERAL, Some("astrology".into())));
    }
}

#[cfg(test)]
mod statute_tests {
    use super::*;

    #[test]
    fn statute_is_legal() {
        let t = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/statute.txt")).unwrap_or_default();
        let mut s = DomainSignal::default();
        s.add(&t);
        eprintln!("{:?}", s.domain_hits);
        assert_eq!(s.guess().domain, "legal");
    }
}
