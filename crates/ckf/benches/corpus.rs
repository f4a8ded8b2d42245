//! The benchmark corpus: a deterministic generated policy handbook in Markdown.

/// A small deterministic generator (64-bit LCG), so the corpus is the same on every machine.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }

    fn num(&mut self, max: u64) -> u64 {
        1 + self.next() % max
    }
}

const SUBJECTS: &[&str] = &[
    "Employees",
    "Contractors",
    "Release engineers",
    "Support agents",
    "Managers",
    "Vendors",
    "Service accounts",
    "Customers",
    "Interns",
    "On-call engineers",
    "Finance analysts",
    "Team leads",
];
const OBJECTS: &[&str] = &[
    "expense reports",
    "access requests",
    "database migrations",
    "refund requests",
    "laptops",
    "API keys",
    "purchase orders",
    "incident reports",
    "vendor invoices",
    "training records",
    "backup snapshots",
    "audit logs",
];
const VERBS: &[&str] =
    &["submit", "review", "approve", "rotate", "archive", "encrypt", "escalate", "document", "verify", "report"];
const SYSTEMS: &[&str] =
    &["Workday", "NetSuite", "the Vault service", "the Help Center", "Jira", "the Billing Portal", "PagerDuty"];
const TEAMS: &[&str] = &["People Operations", "the Security Team", "Internal Audit", "the Platform Team", "Procurement"];

fn paragraph(r: &mut Lcg, out: &mut String) {
    for _ in 0..r.num(5) + 1 {
        let (s, o, v) = (r.pick(SUBJECTS), r.pick(OBJECTS), r.pick(VERBS));
        let sentence = match r.next() % 12 {
            0 => format!("{s} must {v} {o} within {} days of the request.", r.num(90)),
            1 => format!(
                "If the amount exceeds ${},{:03}, {} must approve the {o} before payment.",
                r.num(20),
                r.num(999),
                r.pick(TEAMS)
            ),
            2 => format!("{s} may {v} {o} through {} unless the total is over ${}.", r.pick(SYSTEMS), r.num(5000)),
            3 => format!("Do not {v} {o} by email, because attachments are not encrypted."),
            4 => format!("A {} is a record that {} keeps for {} years.", o.trim_end_matches('s'), r.pick(TEAMS), r.num(10)),
            5 => format!("However, {} are exempt from this rule during the first {} months.", s.to_lowercase(), r.num(12)),
            6 => format!("Late {o} often lead to missed deadlines, which in turn causes audit findings."),
            7 => format!("When {} reports an outage, {} should {v} the {o} first.", r.pick(SYSTEMS), s.to_lowercase()),
            8 => format!("{s} often forget to {v} {o} before the quarterly close on {} March.", r.num(28)),
            9 => format!(
                "The retention period for {o} is {} months, and {}% of them are reviewed each quarter.",
                r.num(60),
                r.num(100)
            ),
            10 => format!("{s} are responsible for keeping {o} up to date in {}.", r.pick(SYSTEMS)),
            _ => format!("Every {} days, {} checks that {o} match the ledger.", r.num(30), r.pick(TEAMS)),
        };
        out.push_str(&sentence);
        out.push(' ');
    }
    out.push_str("\n\n");
}

/// About `target` bytes of Markdown.
pub fn corpus(target: usize) -> String {
    let mut r = Lcg(0x5eed_cafe);
    let mut out = String::from(
        "# Company Operations Handbook\n\nVersion: 4.2\n\nThis handbook describes how teams handle operational records. It applies to all staff.\n\n",
    );
    let mut section = 0;
    while out.len() < target {
        section += 1;
        out.push_str(&format!("## {section}. {} {}\n\n", r.pick(VERBS), r.pick(OBJECTS)));
        for _ in 0..r.num(3) {
            paragraph(&mut r, &mut out);
        }
        if r.next().is_multiple_of(3) {
            out.push_str(&format!("To {} {}:\n\n", r.pick(VERBS), r.pick(OBJECTS)));
            for i in 1..=r.num(5) + 1 {
                out.push_str(&format!("{i}. {} the {} in {}.\n", r.pick(VERBS), r.pick(OBJECTS), r.pick(SYSTEMS)));
            }
            out.push('\n');
        }
        if r.next().is_multiple_of(4) {
            out.push_str(&format!("### How long do {} take?\n\n", r.pick(OBJECTS)));
            paragraph(&mut r, &mut out);
        }
    }
    out
}
