//! Cue words and clause parsers for the rule mapper (EN, with PT and ES where cheap).
//!
//! One [`RegexSet`] pass flags what a sentence may hold; only flagged sentences pay for the
//! clause parsers. Patterns use ASCII word boundaries (`(?-u:\b)`) so the fast engines run on
//! any text; cue words whose edge is an accented letter are bounded by whitespace instead.

use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};

use crate::lang::Lang;
use warrant_text::pattern::compile as re;

/// Sentence flags (bits of [`Flags`]).
pub mod flag {
    /// `must not`, `do not`, `never`, `avoid`, …
    pub const PROHIBITION: u32 = 1 << 0;
    /// `must`, `shall`, `is required to`, …
    pub const OBLIGATION: u32 = 1 << 1;
    /// `should`, `it is important to`, `always`, …
    pub const RECOMMENDATION: u32 = 1 << 2;
    /// `unless`, `except`, `does not apply`, `exempt`, …
    pub const EXCEPTION: u32 = 1 << 3;
    /// `because`, `leads to`, `causes`, …
    pub const CAUSAL: u32 = 1 << 4;
    /// `often`, `typically`, `tends to`, …
    pub const PATTERN: u32 = 1 << 5;
    /// `think of … as`, `is like a`, …
    pub const MENTAL: u32 = 1 << 6;
    /// `we believe`, `in my opinion`, …
    pub const OPINION: u32 = 1 << 7;
    /// `might`, `possibly`, `it seems`, …
    pub const HEDGE: u32 = 1 << 8;
    /// approve, deny, escalate, eligible, reimbursable, …
    pub const DECISION: u32 = 1 << 9;
    /// consider, prefer, try to, …
    pub const SOFT: u32 = 1 << 10;
    /// the user says / asks / mentions … (no rule reads it yet; the bit keeps the pattern's place)
    #[allow(dead_code)]
    pub const USER_TRIGGER: u32 = 1 << 11;
    /// sentence-initial `However`, `Nevertheless`, …
    pub const HOWEVER: u32 = 1 << 12;
    /// sentence-initial `Therefore`, `As a result`, …
    pub const THEREFORE: u32 = 1 << 13;
    /// sentence-initial `This`, `These`, `It`, `Also`, …
    pub const ANAPHORA: u32 = 1 << 14;
    /// portal, form, tool, command, …
    pub const TOOL: u32 = 1 << 15;
    /// assume, presumably, …
    pub const ASSUMPTION: u32 = 1 << 16;
    /// deprecated, no longer, until, effective, …
    pub const OUTDATED: u32 = 1 << 17;
    /// `only if`, `only when`, …
    pub const ONLY_WHEN: u32 = 1 << 18;
    /// `Section 4.2`, `Art. 5`, `§ 3`.
    pub const REFERENCE: u32 = 1 << 19;
    /// A conditional cue anywhere (`if`, `when`, `se`, `si`, …).
    pub const CONDITIONAL: u32 = 1 << 20;
    /// `instead`, `em vez de`, `en lugar de`.
    pub const INSTEAD: u32 = 1 << 21;
    /// A common mistake / pitfall / anti-pattern.
    pub const MISTAKE: u32 = 1 << 22;
    /// Procedural markers: first, then, next, finally (+ PT/ES).
    pub const SEQUENCE: u32 = 1 << 23;
    /// Scope and constraint statements: `applies to`, `restricted to`, `requires`, `depends
    /// on`, `is (not) eligible`, `overrides`, `until`, `regardless`, mid-sentence `does not`.
    pub const CONSTRAINT: u32 = 1 << 24;
}

const PATTERNS: [&str; 25] = [
    // PROHIBITION
    r"(?i)^(?:do not|don't|never|avoid|please do not|you must not|you should not|you shouldn't|nunca|evite|evitar|evita)(?-u:\b)|(?i)(?-u:\b)(?:must not|mustn't|shall not|should not|shouldn't|may not|must never|cannot|can't|(?:is|are) not (?:allowed|permitted|recommended)|(?:is|are) (?:prohibited|forbidden|contraindicated)|contraindicated|prohibited from|(?:says|instructs|recommends|advises) (?:to )?avoid|não deve|não devem|não pode|não podem|no debe|no deben|no puede|no pueden|prohibid[oa]s?|proibid[oa]s?|vedad[oa]s?|contraindicad[oa]s?)(?-u:\b)|(?i)^não(?-u:\b)|(?i)^no (?:\w+ ){1,3}(?:may|shall|can|will|should) (?:be )?",
    // OBLIGATION
    r"(?i)(?-u:\b)(?:must|shall|(?:is|are) required to|required to|has to|have to|needs? to|(?:is|are) mandatory|mandatory|obligatory|deve|devem|obrigat[oó]ri[oa]s?|debe|deben|obligatori[oa]s?|tiene que|tienen que|tem que|têm que)(?-u:\b)",
    // RECOMMENDATION
    r"(?i)(?-u:\b)(?:should|ought to|recommended|it is (?:important|essential|critical|best|advisable|good practice|vital)|best practice|always|deveria|deveriam|recomenda-se|recomendad[oa]|debería|deberían|se recomienda|recomendable|sempre|siempre)(?-u:\b)",
    // EXCEPTION
    r"(?i)(?-u:\b)(?:unless|except|excepting|with the exception of|(?:does|do|shall|will) not apply|doesn't apply|don't apply|(?:is|are) exempt|exempt from|notwithstanding|exceto|salvo|a menos que|com exceção|excepto|con excepción|no se aplica|não se aplica|exceção|excepción|an exception (?:for|to)|exceptions? to)(?-u:\b)|(?i)^exception(?-u:\b)",
    // CAUSAL
    r"(?i)(?-u:\b)(?:because|due to|as a result|therefore|consequently|leads? to|led to|leading to|causes|caused by|results? in|resulted in|triggers|so that|increases|decreases|reduces|affects|determines|porque|pois|devido a|por causa d[eoa]|leva a|levam a|resulta em|provoca|provocam|debido a|lleva a|llevan a|resulta en|por lo tanto|portanto)(?-u:\b)",
    // PATTERN
    r"(?i)(?-u:\b)(?:often|frequently|commonly|typically|usually|tends? to|in most cases|(?:is|are) common|a common pattern|we often see|frequentemente|geralmente|normalmente|costuma|costumam|suele|suelen|a menudo)(?-u:\b)",
    // MENTAL
    r"(?i)(?-u:\b)(?:think of .{2,60} as|thinking of .{2,60} as|(?:is|are|works|acts) like an?|mental model|analogy|pense n[oa] .{2,60} como|piense en .{2,60} como)(?-u:\b)",
    // OPINION
    r"(?i)(?-u:\b)(?:we believe|in our view|in my view|in my opinion|i think|we think|i believe|arguably|in our experience|acreditamos|na nossa opinião|em nossa opinião|creemos|en nuestra opinión)(?-u:\b)",
    // HEDGE
    r"(?i)(?-u:\b)(?:might|possibly|perhaps|probably|it seems|appears to|talvez|provavelmente|quizás|probablemente)(?-u:\b)",
    // DECISION
    r"(?i)(?-u:\b)(?:approve[sd]?|deny|denie[sd]|reject(?:s|ed)?|escalate[sd]?|eligible|ineligible|qualif(?:y|ies|ied)|(?:is|are) (?:not )?allowed|permitted|reimbursable|reimbursed|grant(?:s|ed)?|decline[sd]?|waive[sd]?|exempt|excluded|included|covered|authori[sz]e[sd]?|aprovad[oa]s?|aprova|negad[oa]s?|rejeitad[oa]s?|eleg[ií]ve(?:l|is)|permitid[oa]s?|autorizad[oa]s?|aprobad[oa]s?|denegad[oa]s?|rechazad[oa]s?|elegibles?)(?-u:\b)",
    // SOFT
    r"(?i)(?-u:\b)(?:consider|prefer|try to|it(?: is|'s) (?:usually|often|generally) (?:best|better|wise)|it helps|a good idea|you may want|you might want|suggest(?:ed)?|considere|prefira|tente|considera|prefiera|intente)(?-u:\b)",
    // USER_TRIGGER
    r"(?i)(?-u:\b)(?:(?:user|customer|client|caller|patient|student|requester|employee|visitor|member|person)s?\s+(?:says?|asks?|mentions?|reports?|requests?|complains?|writes?|tells?|wants?|contacts?|calls?)|(?:message|ticket|request|conversation|context|query|email)\s+(?:contains|mentions|includes|refers to)|(?:usuário|cliente|aluno)\s+(?:diz|pergunta|menciona|relata|pede)|(?:usuario|cliente)\s+(?:dice|pregunta|menciona))(?-u:\b)",
    // HOWEVER
    r"(?i)^(?:however|nevertheless|nonetheless|in contrast|no entanto|entretanto|contudo|porém|todavia|sin embargo|no obstante)(?-u:\b)",
    // THEREFORE
    r"(?i)^(?:therefore|thus|consequently|as a result|hence|portanto|por isso|assim|por lo tanto|por eso|en consecuencia)(?-u:\b)",
    // ANAPHORA
    r"(?i)^(?:this|these|that|those|such|it|they|also|in addition|additionally|otherwise|isso|isto|este|esta|esse|essa|estes|estas|esses|essas|além disso|esto|estos|además)(?-u:\b)",
    // TOOL
    r"(?i)(?-u:\b)(?:portal|tool|form|command|script|dashboard|console|api|cli|app|workflow|ticketing|template|spreadsheet|formulário|sistema|ferramenta|formulario|herramienta)(?-u:\b)",
    // ASSUMPTION
    r"(?i)(?-u:\b)(?:assume[sd]?|assuming|assumption|presumably|we expect|it is expected|supõe-se|assumindo|pressupõe|suponiendo|se asume)(?-u:\b)",
    // OUTDATED
    r"(?i)(?-u:\b)(?:deprecated|no longer|obsolete|legacy|superseded|will be removed|until (?:\d|january|february|march|april|may|june|july|august|september|october|november|december)|as of (?:\d|january|february|march|april|may|june|july|august|september|october|november|december)|effective (?:from|as of|on|\d)|sunset|descontinuad[oa]|obsolet[oa]|ya no)(?-u:\b)",
    // ONLY_WHEN
    r"(?i)(?-u:\b)(?:only (?:if|when|after|once|where)|if and only if|somente (?:se|quando|após)|apenas (?:se|quando|após)|s[oó]lo (?:si|cuando))(?-u:\b)",
    // REFERENCE
    r"(?-u:\b)(?:Section|Sec\.|Article|Art\.|Chapter|Artigo|Seção|Sección|Artículo)\s*(?:\d+(?:\.\d+)*|[A-Z](?-u:\b))|§\s*\d+",
    // CONDITIONAL
    r"(?i)(?-u:\b)(?:if|when|whenever|in case of|in the event|provided that|as long as|unless)(?-u:\b)|(?i)^(?:se|quando|caso|sempre que|em caso de|desde que|si|cuando|siempre que|en caso de|to|for|para)(?-u:\b)",
    // INSTEAD
    r"(?i)(?-u:\b)(?:instead|rather than|em vez de|ao invés de|em vez disso|en lugar de|en vez de)(?-u:\b)",
    // MISTAKE
    r"(?i)(?-u:\b)(?:common mistake|common error|pitfall|anti-?pattern|a mistake|mistake is|mistake to|erro comum|armadilha|error común)(?-u:\b)",
    // SEQUENCE
    r"(?i)(?-u:\b)(?:first|then|next|finally|afterwards|primeiro|depois|em seguida|por fim|finalmente|primero|luego|después)(?-u:\b)",
    // CONSTRAINT
    r"(?i)(?-u:\b)(?:restricted to|limited to|appl(?:y|ies) (?:only )?to|only appl(?:y|ies)|(?:is|are) (?:not )?eligible|ineligible|(?:is|are) excluded|excluded from|outside the scope|(?:is|are) (?:used|available|valid) only|only for|can only|may only|requires?|required|depends? on|overrides?|takes? precedence|(?:is|are) controlled|(?:is|are) not used|until|regardless of|even (?:if|when)|(?:does|do) not|no longer|(?:is|are) liable|aplica-se|restrit[oa] a|limitad[oa] a|depende de|exige|requer|se aplica|restringid[oa] a|requiere)(?-u:\b)",
];

static SET: LazyLock<RegexSet> = LazyLock::new(|| RegexSet::new(PATTERNS).unwrap_or_else(|e| panic!("cue set: {e}")));

/// The flags of a sentence.
pub fn flags(s: &str) -> u32 {
    SET.matches(s).iter().fold(0, |acc, i| acc | (1 << i))
}

/// Words that never start a defined term.
const NOT_A_TERM: &[&str] = &[
    "this", "that", "these", "those", "it", "there", "here", "he", "she", "they", "we", "you", "i", "what", "which", "who",
    "one", "each", "every", "all", "some", "any", "our", "your", "his", "her", "their", "its", "such", "another", "other",
    "isso", "isto", "ele", "ela", "eles", "elas", "nós", "você", "esto", "eso", "él", "ella", "ellos", "nosotros", "usted",
    "todo", "toda", "todos", "cada", "result", "answer", "goal", "problem", "reason", "idea", "point", "rule", "question",
];

fn is_term(t: &str) -> bool {
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.is_empty() || words.len() > 6 {
        return false;
    }
    let first = words[0].trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    if NOT_A_TERM.contains(&first.as_str()) {
        return false;
    }
    if MODAL.is_match(t) {
        return false;
    }
    t.chars().any(char::is_alphabetic) && !t.contains(['.', '!', '?'])
}

static MODAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:must|should|shall|may|might|can|cannot|could|will|would|do|does|did|not|never|deve|pode|debe|puede)(?-u:\b)",
    )
});

/// True when a clause has a modal or normative verb.
pub fn has_modal(s: &str) -> bool {
    MODAL.is_match(s)
}

static DEF_EXPLICIT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)^(?:an?\s+|the\s+|o\s+|a\s+|os\s+|as\s+|um\s+|uma\s+|el\s+|la\s+|los\s+|las\s+|un\s+|una\s+)?["“*_]*(?P<term>[^,;:()"”*]{2,60}?)["”*_]*\s+(?:(?:is|are)\s+(?:defined as|called|known as)|means|refers to|denotes|stands for|significa|significam|refere-se a|referem-se a|(?:é|são)\s+definid[oa]s?\s+como|se refiere a|se define como)\s+\S"#,
    )
});
static DEF_ISA: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"^(?:(?i:an?|the|o|a|um|uma|el|la|un|una)\s+)?["“*_]*(?P<term>[^,;:()"”*]{2,60}?)["”*_]*\s+(?:is|are|é|são|es|son)\s+(?i:an?|the|um|uma|o|a|un|una|el|la)\s+(?P<rest>.+)$"#,
    )
});
static DEF_REST: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)(?-u:\b)(?:that|which|who|whose|where|used|of|for|in|to|with|by|que|de|para|com|con|en|onde|donde)(?-u:\b)")
});
/// `**Term**: …` or `Term Name: Capitalised …`. Each term runs up to the first character its
/// class excludes (`*`/`_`, `:`), which must close it, so the length caps (60 and 41
/// characters) are checked by [`glossary`] instead of compiled as bounded repeats (a bounded
/// repeat of a Unicode letter class costs several milliseconds to build).
static DEF_GLOSSARY: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\*\*|__)(?P<term>[^*_]{2,})(?:\*\*|__)\s*[:—–-]\s*\S|^(?P<term2>\p{Lu}[\p{L}\d '’-]+):\s+\p{Lu}"));

/// The [`DEF_GLOSSARY`] match of `s` within its length caps.
fn glossary(s: &str) -> Option<regex::Captures<'_>> {
    let c = DEF_GLOSSARY.captures(s)?;
    let fits = match (c.name("term"), c.name("term2")) {
        (Some(t), _) => t.as_str().chars().count() <= 60,
        (None, Some(t)) => t.as_str().chars().count() <= 41,
        (None, None) => false,
    };
    fits.then_some(c)
}
static DEF_PT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^entende-se por\s+(?P<term>[^,;:]{2,60}?)\s*[,:]?\s+(?:o|a|os|as|um|uma|todo|toda)\s"));

/// Glossary labels that are not terms.
const NOT_GLOSSARY: &[&str] = &[
    "note",
    "warning",
    "example",
    "tip",
    "important",
    "caution",
    "exception",
    "step",
    "q",
    "a",
    "question",
    "answer",
    "source",
    "see",
    "summary",
    "nota",
    "exemplo",
    "atenção",
    "ejemplo",
    "speaker",
    "result",
    "output",
    "input",
    "why",
    "how",
    "what",
    "when",
    "goal",
    "purpose",
    "scope",
    "rationale",
];

/// A definition: the defined term's byte range in `s`, or `None`.
pub fn definition(s: &str) -> Option<Range<usize>> {
    let strip = |r: Range<usize>| {
        let t = &s[r.clone()];
        let lead = t.len() - t.trim_start().len();
        let trail = t.len() - t.trim_end().len();
        r.start + lead..r.end - trail
    };
    if let Some(c) = glossary(s) {
        let m = c.name("term").or_else(|| c.name("term2"))?;
        let t = m.as_str().trim().to_lowercase();
        if !NOT_GLOSSARY.contains(&t.as_str()) && is_term(m.as_str()) {
            return Some(strip(m.range()));
        }
        return None;
    }
    if let Some(c) = DEF_PT.captures(s) {
        let m = c.name("term")?;
        return is_term(m.as_str()).then(|| strip(m.range()));
    }
    if let Some(c) = DEF_EXPLICIT.captures(s) {
        let m = c.name("term")?;
        return is_term(m.as_str()).then(|| strip(m.range()));
    }
    if let Some(c) = DEF_ISA.captures(s) {
        let m = c.name("term")?;
        let rest = c.name("rest")?.as_str();
        if is_term(m.as_str()) && DEF_REST.is_match(rest) && m.as_str().split_whitespace().count() <= 5 {
            return Some(strip(m.range()));
        }
    }
    None
}

/// Sentence-initial conditional cues per language: (cue, language or `None` for all).
const COND_CUES: &[(&str, Option<Lang>)] = &[
    ("in the event that", None),
    ("in the event of", None),
    ("in case of", None),
    ("provided that", None),
    ("as long as", None),
    ("whenever", None),
    ("in case", None),
    ("when", None),
    ("if", None),
    ("em caso de", Some(Lang::PtBr)),
    ("sempre que", Some(Lang::PtBr)),
    ("desde que", Some(Lang::PtBr)),
    ("quando", Some(Lang::PtBr)),
    ("caso", Some(Lang::PtBr)),
    ("se", Some(Lang::PtBr)),
    ("en caso de", Some(Lang::Es)),
    ("siempre que", Some(Lang::Es)),
    ("cuando", Some(Lang::Es)),
    ("si", Some(Lang::Es)),
];

const COORD: &[&str] = &["and", "or", "but", "nor", "e", "ou", "mas", "y", "pero"];
const THEN: &[&str] = &["then", "então", "entonces", "entao"];

/// Byte length of a leading cue (case-insensitive) followed by a space, or `None`.
fn strip_cue(s: &str, cue: &str) -> Option<usize> {
    let n = cue.len();
    let head = s.get(..n)?;
    // Text that lower-cases to an ASCII cue of the same byte length is that cue up to ASCII
    // case (the one non-ASCII character that lower-cases to ASCII, the Kelvin sign, shrinks
    // from three bytes to one), so only non-ASCII cues need the full lower-casing.
    (head.eq_ignore_ascii_case(cue) || (!cue.is_ascii() && head.to_lowercase() == cue)).then_some(())?;
    s[n..].starts_with([' ', '\u{a0}']).then_some(n + 1)
}

/// A prefix conditional (`If X, (then) Y`): the condition's and the consequence's byte ranges.
/// The cue word itself is left out of the condition.
pub fn conditional(s: &str, lang: Lang) -> Option<(Range<usize>, Range<usize>)> {
    if let Some(start) = COND_CUES.iter().filter(|(_, l)| l.is_none_or(|l| l == lang)).find_map(|(c, _)| strip_cue(s, c)) {
        return split_condition(s, start);
    }
    // "For eGFR below 30 mL/min, a reduced dose is used": a scoped rule when the consequence is
    // normative.
    let start = strip_cue(s, "for").or_else(|| strip_cue(s, "para")).or_else(|| strip_cue(s, "en el caso de"))?;
    let lower = s[start..].to_lowercase();
    if ["example", "instance", "more ", "details", "this reason", "now", "exemplo", "ejemplo", "all ", "each "]
        .iter()
        .any(|x| lower.starts_with(x))
    {
        return None;
    }
    let (c, t) = split_condition(s, start)?;
    let cons = &s[t.clone()];
    let normative =
        flags(cons) & (flag::OBLIGATION | flag::RECOMMENDATION | flag::PROHIBITION | flag::CONSTRAINT | flag::DECISION) != 0
            || has_modal(cons)
            || USED.is_match(cons);
    normative.then_some((c, t))
}

static USED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:is|are) (?:used|applied|given|reduced|increased|adjusted|retained|kept|stored|offered|processed|issued|handled|charged|paid|capped|limited|waived)(?-u:\b)",
    )
});

/// Splits `s[start..]` into condition and consequence at `, then` or a clause comma.
fn split_condition(s: &str, start: usize) -> Option<(Range<usize>, Range<usize>)> {
    let body = &s[start..];
    // ", then …" / " then …". The body is ASCII-lower-cased once so each ASCII separator is one
    // substring search instead of a case-insensitive comparison at every byte.
    let lower = body.to_ascii_lowercase();
    // Every separator holds " then " (or another THEN word between spaces); in ASCII text,
    // one split on spaces rules them all out at once.
    let then_word = !body.is_ascii() || lower.split(' ').any(|w| THEN.contains(&w));
    for t in THEN.iter().filter(|_| then_word) {
        for sep in [format!(", {t} "), format!(" {t} ")] {
            if let Some(p) = find_ci_lowered(body, &lower, &sep) {
                let cond = start..start + p;
                let cons = start + p + sep.len()..s.len();
                if words(&s[cond.clone()]) >= 1 && words(&s[cons.clone()]) >= 2 {
                    return Some((cond, cons));
                }
            }
        }
    }
    let b = body.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                let rest = body[i + 1..].trim_start();
                let next = rest.split_whitespace().next().unwrap_or("").to_lowercase();
                if COORD.contains(&next.as_str()) {
                    continue;
                }
                // "If A, B, and C, do D": a short segment followed by "and/or" is a list item.
                let seg_end = rest.find(',').unwrap_or(rest.len());
                let seg = &rest[..seg_end];
                let after = rest[seg_end..].trim_start_matches(',').trim_start().to_lowercase();
                if seg.split_whitespace().count() <= 3 && (after.starts_with("and ") || after.starts_with("or ")) {
                    continue;
                }
                let cond = start..start + i;
                let cons_start = start + i + 1 + (body[i + 1..].len() - rest.len());
                if words(&s[cond.clone()]) >= 1 && words(rest) >= 2 {
                    return Some((cond, cons_start..s.len()));
                }
                return None;
            }
            _ => {}
        }
    }
    None
}

/// Whitespace-separated words in `s`, counted up to three: every caller compares the count with
/// three or less, and clauses can be long.
fn words(s: &str) -> usize {
    s.split_whitespace().take(3).count()
}

/// [`find_ci`] of a lower-case `needle`, given `lower`, the ASCII lower-case copy of `hay`.
fn find_ci_lowered(hay: &str, lower: &str, needle: &str) -> Option<usize> {
    if needle.is_ascii() {
        // Only ASCII letters fold for an ASCII needle, and ASCII lower-casing keeps every byte
        // offset, so the first match in `lower` is the first case-insensitive match in `hay`.
        return lower.find(needle);
    }
    if hay.is_ascii() {
        // ASCII characters lower-case to ASCII: they can never spell a non-ASCII needle.
        return None;
    }
    find_ci(hay, needle)
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    if needle.is_ascii() {
        let (h, nb) = (hay.as_bytes(), needle.as_bytes());
        if h.len() < n {
            return None;
        }
        // An ASCII needle can only match at char boundaries.
        return (0..=h.len() - n).find(|&i| h[i..i + n].eq_ignore_ascii_case(nb));
    }
    hay.char_indices()
        .map(|(i, _)| i)
        .find(|&i| hay.get(i..i + n).is_some_and(|w| w.chars().flat_map(char::to_lowercase).eq(needle.chars())))
}

static POSTFIX: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?P<main>.+?)[ ,]+(?P<cue>if and only if|only if|only when|only after|only once|provided that|as long as|whenever|when|if|somente se|somente quando|apenas se|apenas quando|s[oó]lo si|s[oó]lo cuando)\s+(?P<cond>.+)$",
    )
});
const CHECK_VERBS: &[&str] = &[
    "check",
    "see",
    "ask",
    "verify",
    "determine",
    "know",
    "wonder",
    "confirm",
    "test",
    "decide",
    "even",
    "as",
    "what",
    "whether",
    "find",
    "out",
    "tell",
    "regardless",
    "matter",
];

/// A postfix conditional (`Y only if X`): (main clause, condition, the cue) byte ranges.
pub fn postfix_conditional(s: &str) -> Option<(Range<usize>, Range<usize>, String)> {
    let c = POSTFIX.captures(s)?;
    let main = c.name("main")?;
    let cue = c.name("cue")?;
    let cond = c.name("cond")?;
    let cue_l = cue.as_str().to_lowercase();
    let before = main.as_str().split_whitespace().last().unwrap_or("").to_lowercase();
    if CHECK_VERBS.contains(&before.trim_matches(|c: char| !c.is_alphanumeric())) {
        return None;
    }
    if words(main.as_str()) < 3 || words(cond.as_str()) < 2 {
        return None;
    }
    let weak = matches!(cue_l.as_str(), "when" | "whenever" | "if");
    if weak && !has_modal(main.as_str()) && !DECISION_WORDS.is_match(main.as_str()) {
        // A present-tense statement about a thing ("The default strategy performs rolling
        // updates when the template changes") is a rule; a narrative ("I was happy when …") not.
        let first = main.as_str().split_whitespace().next().unwrap_or("").to_lowercase();
        let pronoun = matches!(first.as_str(), "i" | "he" | "she" | "we" | "they" | "you" | "it" | "there");
        if pronoun || PAST.is_match(main.as_str()) {
            return None;
        }
    }
    Some((main.range(), cond.range(), cue_l))
}

static PERMISSION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?P<modal>may|can|(?:is|are) entitled to|(?:is|are) eligible (?:to|for)|pode|podem|puede|pueden)\s+(?P<next>[\p{L}-]+)",
    )
});

/// True for a permission (`Employees may request …`, `X is entitled to …`); `may be`, `may
/// have`, `may not` are not permissions.
pub fn is_permission(s: &str) -> bool {
    PERMISSION.captures_iter(s).any(|c| {
        let next = c.name("next").map_or("", |m| m.as_str()).to_lowercase();
        let modal = c.name("modal").map_or(String::new(), |m| m.as_str().to_lowercase());
        !(matches!(next.as_str(), "be" | "not" | "also" | "well" | "ser" | "estar" | "haber" | "não" | "no")
            || (modal == "may" && next == "have"))
    })
}

static DECISION_WORDS: LazyLock<Regex> = LazyLock::new(|| re(PATTERNS[9]));
static PAST: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)(?-u:\b)(?:was|were|had|did|said|went|came|felt|thought|got)(?-u:\b)"));

/// True when a consequence decides (approve, deny, eligible, …).
pub fn is_decision(s: &str) -> bool {
    DECISION_WORDS.is_match(s)
}

static SOFT_WORDS: LazyLock<Regex> = LazyLock::new(|| re(PATTERNS[10]));

/// True when a consequence only advises (consider, prefer, try to, …).
pub fn is_soft(s: &str) -> bool {
    SOFT_WORDS.is_match(s)
}

static USER_WORDS: LazyLock<Regex> = LazyLock::new(|| re(PATTERNS[11]));

/// True when a condition is about what the user says or the context contains.
pub fn is_user_trigger(s: &str) -> bool {
    USER_WORDS.is_match(s)
}

static EXCEPTION_SPLIT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?P<pre>,?\s*)(?-u:\b)(?P<cue>unless|except(?:\s+(?:when|if|for|that|where|in|as))?|excepting|with the exception of|exceto(?:\s+(?:quando|se|para|em))?|salvo(?:\s+(?:se|quando|que))?|a menos que|excepto(?:\s+(?:cuando|si|para|en))?)\s+(?P<case>[^,;]+)",
    )
});

/// An in-sentence exception: the general rule (the sentence without the exception clause), the
/// exception's byte range, and the cue.
pub fn exception_split(s: &str) -> Option<(String, Range<usize>, String)> {
    let c = EXCEPTION_SPLIT.captures(s)?;
    let whole = c.get(0)?;
    let case = c.name("case")?;
    let cue = c.name("cue")?.as_str().to_lowercase();
    let mut case_r = case.range();
    // Drop the final period from an exception at the end of the sentence.
    let ct = s[case_r.clone()].trim_end();
    let ct_trim = ct.trim_end_matches(['.', '!', '?', '…']);
    case_r.end = case_r.start + ct_trim.len();
    if words(&s[case_r.clone()]) < 1 {
        return None;
    }
    let mut rule = String::with_capacity(s.len());
    rule.push_str(&s[..whole.start()]);
    let after = &s[whole.end()..];
    // An exception clause that ends the sentence took its final punctuation with it.
    let final_punct = if after.trim().is_empty() { ct[ct_trim.len()..].to_string() } else { String::new() };
    if whole.start() == 0 {
        // "Unless X, Y." → "Y."
        rule.push_str(after.trim_start_matches([',', ';']).trim_start());
    } else {
        let after = after.trim_start_matches(',');
        if after.trim().is_empty() || after.trim() == "." {
            rule.push_str(after.trim());
        } else {
            rule.push_str(if after.starts_with(' ') { "" } else { " " });
            rule.push_str(after);
        }
    }
    rule.push_str(&final_punct);
    let rule = crate::normalize::normalize(&rule);
    let rule = rule.trim_start_matches([',', ';', ' ']).to_string();
    if words(&rule) < 2 {
        return None;
    }
    Some((crate::gate::capitalise(&rule), case_r, cue))
}

static HAS_EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?P<rule>.{4,}?)\s+(?:has|have|is|are|includes?)\s+(?:an?\s+|one\s+)?exceptions?\s+(?:for|to|when|if)\s+(?P<case>.{3,})$",
    )
});

/// `The X rule has an exception for Y`: the rule's and the exception's byte ranges.
pub fn stated_exception(s: &str) -> Option<(Range<usize>, Range<usize>)> {
    let c = HAS_EXCEPTION.captures(s.trim_end_matches(['.', '!']))?;
    Some((c.name("rule")?.range(), c.name("case")?.range()))
}

/// A causal statement: cause, effect and secondary effects (byte ranges in `s`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Causal {
    /// The cause.
    pub cause: Range<usize>,
    /// The effect.
    pub effect: Range<usize>,
    /// Further effects (`…, which in turn leads to Z`).
    pub secondary: Vec<Range<usize>>,
}

static CAUSE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:because(?: of)?|due to|owing to|as a result of|devido a|por causa d[eoa]|debido a|porque)\s+(?P<cause>[^,]{3,}?),\s*(?P<effect>.{3,})$",
    )
});
static EFFECT_BECAUSE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?P<effect>.{8,}?),?\s+(?:because|porque|pois|due to|devido a|debido a)\s+(?P<cause>.{8,})$"));
static CAUSE_VERB: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?P<cause>.{4,}?)\s+(?:(?:can|may|will|might|could|often|usually|typically|pode|podem|puede|pueden)\s+)?(?:leads? to|led to|causes|caused|cause|results? in|resulted in|triggers?|increases|decreases|reduces|affects|determines|leva a|levam a|resulta em|resultam em|provoca|provocam|causa|causam|aumenta|reduz|lleva a|llevan a|resulta en|provocan)\s+(?P<effect>.{3,})$",
    )
});
static SECONDARY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i),\s*which\s+(?:in turn\s+)?(?:leads? to|causes|results? in|triggers)\s+|,\s*o que\s+(?:leva a|causa|resulta em)\s+|,\s*lo que\s+(?:lleva a|causa|provoca)\s+",
    )
});
const NOUN_CAUSE_BEFORE: &[&str] =
    &["root", "main", "primary", "the", "a", "common", "leading", "likely", "probable", "underlying"];

/// Parses a causal sentence.
pub fn causal(s: &str) -> Option<Causal> {
    let end = s.trim_end_matches(['.', '!', '…']).len();
    let body = &s[..end];
    let (cause, effect) = if let Some(c) = CAUSE_FIRST.captures(body) {
        (c.name("cause")?.range(), c.name("effect")?.range())
    } else if let Some(c) = CAUSE_VERB.captures(body) {
        let cause = c.name("cause")?;
        let last = cause.as_str().split_whitespace().last().unwrap_or("").to_lowercase();
        // "the root cause is …", "the organisation that determines …", "unlikely to result in …"
        if NOUN_CAUSE_BEFORE.contains(&last.as_str())
            || matches!(last.as_str(), "that" | "which" | "who" | "whom" | "whose" | "que")
            || crate::gate::is_dangling(&last)
        {
            return None;
        }
        (cause.range(), c.name("effect")?.range())
    } else if let Some(c) = EFFECT_BECAUSE.captures(body) {
        let cause = c.name("cause")?;
        if cause.as_str().starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        (cause.range(), c.name("effect")?.range())
    } else {
        return None;
    };
    // "X causes Y, which leads to Z": Y is the effect, Z a secondary effect.
    let mut secondary = Vec::new();
    let mut eff = effect.clone();
    if let Some(m) = SECONDARY.find(&s[effect.clone()]) {
        secondary.push(effect.start + m.end()..effect.end);
        eff = effect.start..effect.start + m.start();
    }
    if words(&s[cause.clone()]) < 2 || words(&s[eff.clone()]) < 1 {
        return None;
    }
    Some(Causal { cause, effect: eff, secondary })
}

static PROHIBITED_VP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:^(?:please\s+)?(?:do not|don't|never|avoid|you must not|you should not|you shouldn't|nunca|evite|evitar|evita|não)\s+|(?-u:\b)(?:must not|mustn't|shall not|should not|shouldn't|may not|must never|cannot|can't|não deve|não devem|não pode|não podem|no debe|no deben|no puede|no pueden)\s+(?:be\s+)?)(?P<vp>.{3,})$",
    )
});
static PROHIBITED_SUBJ: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?P<subj>.{3,}?)\s+(?:is|are)\s+(?:not (?:allowed|permitted)|prohibited|forbidden|é proibid|são proibid)")
});
static MISTAKE_OBJ: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:common mistake|common error|pitfall|anti-?pattern|mistake|erro comum|error común)\s*(?:is|:|—|–|-|é|es)\s*(?:to\s+)?(?P<obj>.{3,})$",
    )
});
static PASSIVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?P<subj>(?:[\p{L}\d'’-]+ ){0,5}?[\p{L}\d'’-]+)\s+(?:must not|mustn't|shall not|should not|shouldn't|may not|cannot|can't|must never)\s+be\s+\S.*$",
    )
});
static CLAUSE_END: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i),|;|:|\s[—–]\s|\s(?:because|since|as it|as this|unless|except|instead|porque|pois|a menos|salvo|exceto|en lugar|em vez)\s",
    )
});

/// The name of a prohibited or mistaken behaviour, from the verb phrase after the cue.
pub fn prohibited_behaviour(s: &str) -> Option<String> {
    // A passive prohibition names its subject: "SMS codes should not be used as a second
    // factor" → "SMS codes should not be used as a second factor".
    if let Some(c) = PASSIVE.captures(s) {
        let subject = c.name("subj")?.as_str();
        let first = subject.split_whitespace().next().unwrap_or("").to_lowercase();
        if !matches!(first.as_str(), "they" | "it" | "this" | "these" | "that" | "those" | "he" | "she") {
            let whole = c.get(0)?.as_str();
            let cut = CLAUSE_END.find(whole).map_or(whole, |m| &whole[..m.start()]);
            return Some(crate::gate::label(cut.trim_end_matches(['.', '!', '?']), 12));
        }
    }
    let raw = if let Some(c) = MISTAKE_OBJ.captures(s) {
        c.name("obj")?.as_str()
    } else if let Some(c) = PROHIBITED_VP.captures(s) {
        c.name("vp")?.as_str()
    } else if let Some(c) = PROHIBITED_SUBJ.captures(s) {
        c.name("subj")?.as_str()
    } else {
        return None;
    };
    let cut = CLAUSE_END.find(raw).map_or(raw, |m| &raw[..m.start()]);
    let name = crate::gate::label(cut.trim_end_matches(['.', '!', '?']), 10);
    (name.split_whitespace().count() >= 1 && name.chars().any(char::is_alphabetic)).then_some(name)
}

static RATIONALE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:because|so that|in order to|to ensure|to avoid|to prevent|as this|porque|pois|para que|para garantir|para evitar|para asegurar|para evitar)\s+(?P<r>[^.;]{3,})",
    )
});

/// The rationale clause (`because …`, `so that …`, `to ensure …`).
pub fn rationale(s: &str) -> Option<String> {
    let c = RATIONALE.captures(s)?;
    let m = c.get(0)?;
    Some(crate::normalize::normalize(m.as_str().trim_end_matches(['.', '!', '?'])))
}

static INSTEAD_OF: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:,|;|\.)?\s*(?:instead,?|rather,?|em vez disso,?|en su lugar,?)\s+(?P<r>[^.;]{3,})|^(?:instead of|rather than|em vez de|ao invés de|en lugar de|en vez de)\s+[^,]+,\s*(?P<r2>[^.;]{3,})",
    )
});

/// The replacement behaviour (`…; instead, do X`, `Instead of A, do B`).
pub fn replacement(s: &str) -> Option<String> {
    let c = INSTEAD_OF.captures(s)?;
    let m = c.name("r").or_else(|| c.name("r2"))?;
    Some(crate::gate::capitalise(&crate::normalize::normalize(m.as_str())))
}

static WHEN_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?-u:\b)(?:when|whenever|after|during|before|once|quando|após|durante|antes de|cuando|después de|tras)\s+(?P<w>[^,.;]{3,})",
    )
});

/// A `when/after/during …` clause inside a sentence.
pub fn when_clause(s: &str) -> Option<String> {
    let c = WHEN_CLAUSE.captures(s)?;
    Some(crate::normalize::normalize(c.get(0)?.as_str()))
}

static MENTAL_MODEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:think(?:ing)? of|pense n[oa]s?|piense en)\s+(?P<a>.{2,60}?)\s+(?:as|como)\s+(?P<b>[^,.;]{2,80})|^(?P<c>[^,;]{2,50}?)\s+(?:is|are|works|acts)\s+like\s+(?P<d>[^,.;]{2,80})",
    )
});

/// A mental model's name: `X as Y` from `think of X as Y` or `X is like Y`.
pub fn mental_model(s: &str) -> Option<String> {
    let c = MENTAL_MODEL.captures(s)?;
    let (a, b) = match (c.name("a"), c.name("b"), c.name("c"), c.name("d")) {
        (Some(a), Some(b), _, _) => (a.as_str(), b.as_str()),
        (_, _, Some(a), Some(b)) => (a.as_str(), b.as_str()),
        _ => return None,
    };
    let a = a.trim_start_matches(|c: char| !c.is_alphanumeric());
    Some(crate::gate::label(&format!("{} as {}", a.trim(), b.trim()), 14))
}

static REFERENCE_RE: LazyLock<Regex> = LazyLock::new(|| re(PATTERNS[19]));

/// Cross-references (`Section 4.2`, `Art. 5`, `§ 3`) with their byte ranges.
pub fn references(s: &str) -> Vec<(Range<usize>, String)> {
    REFERENCE_RE.find_iter(s).map(|m| (m.range(), crate::normalize::normalize(m.as_str()))).collect()
}

static SEQ_SPLIT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:^|[,;.]?\s+)(?:first(?:ly)?|then|next|after that|afterwards|finally|lastly|primeiro|depois|em seguida|por fim|finalmente|primero|luego|después|por último)[,:]?\s+",
    )
});

/// Splits a sequence sentence (`First X, then Y, finally Z`) into its steps (at most 8), or
/// `None` when it has fewer than two.
pub fn sequence_steps(s: &str) -> Option<Vec<String>> {
    let mut steps = Vec::new();
    let mut last = 0;
    let mut starts: Vec<(usize, usize)> = SEQ_SPLIT.find_iter(s).map(|m| (m.start(), m.end())).collect();
    if starts.len() < 2 {
        return None;
    }
    if starts[0].0 > 0 {
        starts.insert(0, (0, 0));
    }
    for (i, (_, body_start)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(s.len(), |n| n.0);
        if *body_start < last || end <= *body_start {
            continue;
        }
        let mut step = crate::normalize::normalize(&s[*body_start..end]);
        loop {
            let t = step.trim_end_matches(['.', ',', ';', ' ']);
            let t = ["and", "or", "e", "ou", "y", "o"]
                .iter()
                .find_map(|c| t.strip_suffix(c).filter(|x| x.ends_with(' ')))
                .unwrap_or(t);
            if t.len() == step.len() {
                break;
            }
            step = t.trim_end().to_string();
        }
        last = end;
        if step.split_whitespace().count() >= 2 {
            steps.push(crate::gate::capitalise(&step));
        }
    }
    steps.truncate(8);
    (steps.len() >= 2).then_some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sl(s: &str, r: Range<usize>) -> &str {
        &s[r]
    }

    /// The glossary pattern with its length caps compiled in (slow to build: built once).
    static BOUNDED_GLOSSARY: LazyLock<Regex> = LazyLock::new(|| {
        re(r"^(?:\*\*|__)(?P<term>[^*_]{2,60})(?:\*\*|__)\s*[:—–-]\s*\S|^(?P<term2>\p{Lu}[\p{L}\d '’-]{1,40}):\s+\p{Lu}")
    });

    #[test]
    fn only_the_kelvin_sign_lower_cases_to_ascii() {
        // strip_cue relies on it: see there.
        let to_ascii: Vec<char> =
            (0x80..=0x10ffff).filter_map(char::from_u32).filter(|c| c.to_lowercase().all(|l| l.is_ascii())).collect();
        assert_eq!(to_ascii, vec!['\u{212a}']);
        assert_eq!(strip_cue("\u{212a}if x", "kif"), None);
        assert_eq!(strip_cue("IF x", "if"), Some(3));
        assert_eq!(strip_cue("QUANDO x", "quando"), Some(7));
    }

    #[test]
    fn glossary_length_caps() {
        let key = |c: Option<regex::Captures<'_>>| c.map(|c| (c.get(0).map(|m| m.range()), c.name("term").map(|m| m.range())));
        for n in [1, 2, 39, 40, 41, 42, 58, 59, 60, 61] {
            for s in [
                format!("**{}**: x", "a".repeat(n)),
                format!("A{}: Xy", "b".repeat(n)),
                format!("É{}: Éy", "é".repeat(n)),
                format!("A{}:  B", " c".repeat(n / 2)),
            ] {
                assert_eq!(key(glossary(&s)), key(BOUNDED_GLOSSARY.captures(&s)), "{s}");
            }
        }
        assert!(glossary(&format!("A{}: Xy", "b".repeat(40))).is_some());
        assert!(glossary(&format!("A{}: Xy", "b".repeat(41))).is_none());
    }

    proptest::proptest! {
        #[test]
        fn glossary_matches_the_bounded_pattern(
            s in "(\\*\\*|__)?[A-Za-zÉé '’:*_-]{0,70}(\\*\\*|__)?[: —-]{0,3}[A-Za-z]{0,3}|(\\*\\*|__)?\\PC{0,70}"
        ) {

            let want = BOUNDED_GLOSSARY.captures(&s).map(|c| (c.get(0).map(|m| m.range()), c.name("term").map(|m| m.range()), c.name("term2").map(|m| m.range())));
            let got = glossary(&s).map(|c| (c.get(0).map(|m| m.range()), c.name("term").map(|m| m.range()), c.name("term2").map(|m| m.range())));
            proptest::prop_assert_eq!(got, want);
        }

        #[test]
        fn lowered_search_finds_what_find_ci_finds(hay in "(?i:[a-z ,]|então|ENTÃO|then|\\PC){0,40}") {
            let lower = hay.to_ascii_lowercase();
            for t in THEN {
                for sep in [format!(", {t} "), format!(" {t} ")] {
                    proptest::prop_assert_eq!(find_ci_lowered(&hay, &lower, &sep), find_ci(&hay, &sep));
                }
            }
        }
    }

    #[test]
    fn flags_find_cues() {
        let f = flags("Employees must not share passwords.");
        assert!(f & flag::PROHIBITION != 0 && f & flag::OBLIGATION != 0);
        assert!(flags("However, contractors are exempt.") & flag::HOWEVER != 0);
        assert!(flags("Refunds are approved only if the receipt is attached.") & flag::ONLY_WHEN != 0);
        assert!(flags("See Section 4.2 for details.") & flag::REFERENCE != 0);
        assert!(flags("O aluno não deve copiar.") & flag::PROHIBITION != 0);
        assert_eq!(flags("The sky is blue."), 0);
    }

    #[test]
    fn definitions() {
        let s = "A PodDisruptionBudget is an object that limits voluntary disruptions.";
        assert_eq!(definition(s).map(|r| sl(s, r)), Some("PodDisruptionBudget"));
        let s = "\"Session token\" means the random string issued at login.";
        assert_eq!(definition(s).map(|r| sl(s, r)), Some("Session token"));
        let s = "**Runbook**: a documented procedure for an operational task.";
        assert_eq!(definition(s).map(|r| sl(s, r)), Some("Runbook"));
        let s = "Avaliação formativa é um processo que orienta a aprendizagem.";
        assert_eq!(definition(s).map(|r| sl(s, r)), Some("Avaliação formativa"));
        assert_eq!(definition("This is a problem that we must fix."), None);
        assert_eq!(definition("The maximum reimbursement is $2,000 per employee."), None);
        assert_eq!(definition("Note: the office is closed."), None);
    }

    #[test]
    fn conditionals() {
        let s = "If the build fails, roll back the release.";
        let (c, t) = conditional(s, Lang::En).unwrap();
        assert_eq!((sl(s, c), sl(s, t)), ("the build fails", "roll back the release."));
        let s = "If the request is urgent, and the manager is away, escalate to the director.";
        let (c, t) = conditional(s, Lang::En).unwrap();
        assert_eq!((sl(s, c), sl(s, t)), ("the request is urgent, and the manager is away", "escalate to the director."));
        let s = "When in doubt then ask a colleague.";
        let (c, t) = conditional(s, Lang::En).unwrap();
        assert_eq!((sl(s, c), sl(s, t)), ("in doubt", "ask a colleague."));
        let s = "Se o aluno errar, o professor deve replanejar.";
        assert!(conditional(s, Lang::PtBr).is_some());
        assert!(conditional(s, Lang::Es).is_none());
        assert!(conditional("If only it were that simple.", Lang::En).is_none());
        let s = "Courses are reimbursable only when the manager approves them in writing.";
        let (m, c, cue) = postfix_conditional(s).unwrap();
        assert_eq!(
            (sl(s, m), sl(s, c), cue.as_str()),
            ("Courses are reimbursable", "the manager approves them in writing.", "only when")
        );
        assert!(postfix_conditional("Check if the service is up before you deploy.").is_none());
        assert!(postfix_conditional("I was happy when it rained.").is_none());
    }

    #[test]
    fn exceptions() {
        let s = "Requests over $500 are denied unless a director approves them.";
        let (rule, case, cue) = exception_split(s).unwrap();
        assert_eq!(
            (rule.as_str(), sl(s, case), cue.as_str()),
            ("Requests over $500 are denied.", "a director approves them", "unless")
        );
        let s = "Unless approved by a manager, requests over $500 are denied.";
        let (rule, case, _) = exception_split(s).unwrap();
        assert_eq!((rule.as_str(), sl(s, case)), ("Requests over $500 are denied.", "approved by a manager"));
        let s = "All staff, except contractors, must complete training.";
        let (rule, case, cue) = exception_split(s).unwrap();
        assert_eq!((rule.as_str(), sl(s, case), cue.as_str()), ("All staff must complete training.", "contractors", "except"));
    }

    #[test]
    fn causal_chains() {
        let s = "Skipping the dry run causes failed migrations, which in turn leads to downtime.";
        let c = causal(s).unwrap();
        assert_eq!(sl(s, c.cause.clone()), "Skipping the dry run");
        assert_eq!(sl(s, c.effect.clone()), "failed migrations");
        assert_eq!(sl(s, c.secondary[0].clone()), "downtime");
        let s = "Deploys are frozen on Fridays because support is thin.";
        let c = causal(s).unwrap();
        assert_eq!((sl(s, c.cause), sl(s, c.effect)), ("support is thin", "Deploys are frozen on Fridays"));
        assert!(causal("The root cause is unknown.").is_none());
    }

    #[test]
    fn behaviours_and_clauses() {
        assert_eq!(
            prohibited_behaviour("Do not share passwords with anyone, even your manager.").as_deref(),
            Some("Share passwords with anyone")
        );
        assert_eq!(prohibited_behaviour("Employees must not store keys in code.").as_deref(), Some("Store keys in code"));
        assert_eq!(prohibited_behaviour("A common mistake is to skip the dry run.").as_deref(), Some("Skip the dry run"));
        assert_eq!(prohibited_behaviour("Sharing accounts is prohibited.").as_deref(), Some("Sharing accounts"));
        assert_eq!(rationale("Rotate keys monthly because leaks happen.").as_deref(), Some("because leaks happen"));
        assert_eq!(replacement("Do not email secrets; instead, use the vault.").as_deref(), Some("Use the vault"));
        assert_eq!(
            mental_model("Think of the cache as a short-term memory.").as_deref(),
            Some("The cache as a short-term memory")
        );
        assert_eq!(
            sequence_steps("First stop the service, then back up the data, and finally restart it.").unwrap(),
            vec!["Stop the service", "Back up the data", "Restart it"].into_iter().map(String::from).collect::<Vec<_>>()
        );
        assert_eq!(references("under Section 4.2 and Art. 5")[0].1, "Section 4.2");
    }
}
