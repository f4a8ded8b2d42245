//! Arithmetic the answer states: calculator annotations `<<48/2=24>>`, symbolic equations
//! (`3 × 4 = 12`, `19.99 + 5.01 = 25`) and prose ("15% of $80 is $12", "divide 120 by 4 to
//! get 30"). Operands and results keep the digits as written.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use warrant_text::arith;
use warrant_text::pattern::{LazyRegex, compile as re};

/// An operation found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundOperation {
    /// Where it is stated.
    pub range: Range<usize>,
    /// Canonical operator (`add`, `percentage`, …) or `expression`.
    pub operator: String,
    /// Operands as JSON numbers (or one expression string).
    pub operands: Vec<Value>,
    /// The stated result.
    pub result: Value,
}

/// A number literal as JSON, from written text: `$1,234.50` → `1234.50`, `.5` → `0.5`.
pub fn number_value(written: &str) -> Option<Value> {
    let w = written.trim();
    // Fast path: already a plain `-?digits(.digits)?` literal.
    let body = w.strip_prefix('-').unwrap_or(w);
    let (int, frac) = body.split_once('.').unwrap_or((body, "0"));
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    // JSON has no leading zeros (`007`): those take the normalising path below.
    if digits(int) && digits(frac) && !(int.len() > 1 && int.starts_with('0')) {
        return Some(Value::Number(serde_json::Number::from_string_unchecked(w.to_string())));
    }
    let mut s: String = w.chars().filter(|c| !matches!(c, ',' | '$' | '€' | '£' | '%' | ' ')).collect();
    s = s.replace('−', "-");
    if let Some(rest) = s.strip_prefix('+') {
        s = rest.to_string();
    }
    if s.starts_with('.') {
        s.insert(0, '0');
    } else if s.starts_with("-.") {
        s.insert(1, '0');
    }
    if s.ends_with('.') {
        s.pop();
    }
    // `-?digits(.digits)?` only; serde keeps the literal (arbitrary precision).
    let negative = s.starts_with('-');
    let body = s.strip_prefix('-').unwrap_or(&s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let ok = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !(ok(int) && frac.is_none_or(ok)) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let s = format!("{}{int}{}", if negative { "-" } else { "" }, frac.map(|f| format!(".{f}")).unwrap_or_default());
    // Validated above as `-?digits(.digits)?`, a JSON number literal kept as written.
    Some(Value::Number(serde_json::Number::from_string_unchecked(s)))
}

fn operator_name(c: char) -> &'static str {
    match c {
        '+' => "add",
        '-' => "subtract",
        '*' => "multiply",
        '/' => "divide",
        '^' => "power",
        _ => "expression",
    }
}

/// True when a match sits inside a longer expression, so what it states is not the whole
/// calculation: an operator, a number (mixed fractions, `350 000`) or an operator word just
/// before it, or an operator, a fraction or more digits just after the result
/// (`= 14 / 2 = 7`, `= 3 1/2`, `= $12 000`, `= 240g/5`).
fn truncated(hay: &str, start: usize, end: usize) -> bool {
    let before = hay[..start].trim_end_matches([' ', '\t']);
    if before.ends_with(['*', '×', '/', '+', '-', '−', '–', '÷', '^', '(', ')', '='])
        || before.ends_with(|c: char| c.is_ascii_digit())
    {
        return true;
    }
    let last_word = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("").to_lowercase();
    let glued_x =
        last_word.len() > 1 && last_word.ends_with('x') && last_word[..last_word.len() - 1].chars().all(|c| c.is_ascii_digit());
    if before.len() < hay[..start].len()
        && (glued_x || matches!(last_word.as_str(), "x" | "plus" | "minus" | "times" | "by" | "over"))
    {
        return true;
    }
    let after = hay[end..].trim_start_matches(|c: char| c.is_alphabetic() || c == '%');
    let trimmed = after.trim_start_matches([' ', '\t']);
    if trimmed.starts_with(['/', '*', '×', '÷', '^']) {
        return true;
    }
    if (trimmed.starts_with(['+', '-', '−', '–']) || trimmed.starts_with("x "))
        && trimmed[trimmed.chars().next().map_or(1, char::len_utf8)..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit() || c == '$')
    {
        return true;
    }
    // "= 3 1/2", "= $12 000".
    let gap = after.len() - trimmed.len();
    if gap > 0 && gap <= 2 {
        let digits: String = trimmed.chars().take_while(char::is_ascii_digit).collect();
        let rest = &trimmed[digits.len()..];
        if !digits.is_empty() && (rest.starts_with('/') || digits.len() == 3) {
            return true;
        }
    }
    false
}

/// Builds an operation from a written expression and result. A result written as a
/// percentage (`3 / 6 = 50%`) is checked as `(3/6)*100 = 50`.
fn from_expression(range: Range<usize>, expr: &str, result: &str) -> Option<FoundOperation> {
    let percent_result = result.trim_end().ends_with('%');
    let result = number_value(result)?;
    let expr = expr.trim();
    let compact: String = expr
        .chars()
        .filter(|c| !matches!(c, '$' | '€' | '£') && !c.is_whitespace())
        .collect::<String>()
        .replace(['x', 'X', '×'], "*");
    let to_percent = compact.ends_with("*100%");
    // A percentage result is a fraction ×100 when the left side is a ratio or has percentages
    // ("3 / 6 = 50%", "50% * 50% = 25%"); it is already in percent when the left side adds
    // percentages or multiplies by 100 itself ("100-60=40%", ".25 * 100 = 25%").
    let explicit_100 = compact.contains("*100") && !to_percent;
    if to_percent || (percent_result && !explicit_100 && (compact.contains('%') || compact.contains('/'))) {
        let cleaned = compact.strip_suffix("*100%").map(str::to_string).unwrap_or(compact);
        let scaled = format!("({cleaned})*100");
        arith::evaluate(&scaled).ok()?;
        return Some(FoundOperation { range, operator: "expression".into(), operands: vec![Value::String(scaled)], result });
    }
    if !expr.contains('%')
        && let Some((op, operands)) = arith::flat_operands(expr)
    {
        let operands: Option<Vec<Value>> = operands.iter().map(|o| number_value(o)).collect();
        // divide and power take exactly two operands; longer chains stay expressions.
        if let Some(operands) = operands.filter(|o| o.len() >= 2 && (o.len() == 2 || !matches!(op, '/' | '^'))) {
            return Some(FoundOperation { range, operator: operator_name(op).to_string(), operands, result });
        }
    }
    // It must at least be evaluable; otherwise it is not arithmetic we can state.
    arith::evaluate(expr).ok()?;
    let cleaned: String = expr.chars().filter(|c| !matches!(c, '$' | '€' | '£')).collect();
    Some(FoundOperation {
        range,
        operator: "expression".into(),
        operands: vec![Value::String(cleaned.split_whitespace().collect::<Vec<_>>().join(""))],
        result,
    })
}

/// `expr=result`, or a chain `expr=result=result` whose results agree.
pub fn split_equation(s: &str) -> Option<(&str, &str)> {
    let mut parts = s.split('=');
    let expr = parts.next()?;
    let result = parts.next()?;
    let first = number_value(result);
    for more in parts {
        if number_value(more).is_none() || number_value(more) != first {
            return None;
        }
    }
    Some((expr, result))
}

/// `<<…>>` on one line. (The limit of 512 chars is checked on each match: as a bounded
/// repetition it made this the dearest pattern of a short check to compile, ~14 ms.)
static ANNOTATION: LazyLock<Regex> = LazyLock::new(|| re(r"<<([^<>\n]+)>>"));

/// The most chars an annotation holds.
const ANNOTATION_CHARS: usize = 512;

/// Calculator annotations `<<expr=result>>`. Annotations without `=` (or whose expression
/// does not evaluate) are returned in the second list, as ranges.
pub fn annotations(text: &str) -> (Vec<FoundOperation>, Vec<Range<usize>>) {
    let mut ops = Vec::new();
    let mut bad = Vec::new();
    if !text.contains("<<") {
        return (ops, bad);
    }
    // `find_iter` stays on the fast DFA; the inner text is the match minus `<<` and `>>`. A
    // match's inner text holds no `<`, so one too long hides no other match: skipping it
    // finds what `{1,512}` in the pattern would.
    for all in ANNOTATION.find_iter(text) {
        let inner = &all.as_str()[2..all.as_str().len() - 2];
        if inner.chars().nth(ANNOTATION_CHARS).is_some() {
            continue;
        }
        match split_equation(inner).and_then(|(e, r)| from_expression(all.range(), e, r)) {
            Some(op) => ops.push(op),
            None => bad.push(all.range()),
        }
    }
    (ops, bad)
}

const NUM: &str = r"(?:[$€£]\s?)?[-−–]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)";

static SYMBOLIC: LazyLock<Regex> = LazyLock::new(|| {
    let operand = format!(r"(?:\(\s*)?{NUM}\s*%?(?:\s*\))?");
    let op = r"(?:[+\-−–*/÷×^]|\*\*|\s[xX]\s)";
    re(&format!(r"{operand}(?:\s*{op}\s*{operand})+\s*=\s*{NUM}"))
});

/// Symbolic equations in prose: `3 × 4 = 12`, `16 - 3 - 4 = 9`, `$19.99 + $5.01 = $25`.
///
/// The regex runs only on the line before each `=` that is followed by a number, so text
/// without stated results (or with `= <<annotations>>`) costs one byte scan.
pub fn symbolic(text: &str, range: Range<usize>) -> Vec<FoundOperation> {
    symbolic_outside(text, range, &[])
}

/// [`symbolic`], ignoring `=` signs that fall inside `skip` (sorted, absolute ranges).
fn symbolic_outside(text: &str, range: Range<usize>, skip: &[Range<usize>]) -> Vec<FoundOperation> {
    let hay = &text[range.clone()];
    let mut out = Vec::new();
    let mut done = 0usize;
    for (i, _) in hay.match_indices('=') {
        let abs = range.start + i;
        let k = skip.partition_point(|r| r.end <= abs);
        if skip.get(k).is_some_and(|r| r.start <= abs) {
            continue;
        }
        // A stated result: a number right after `=` (a currency sign or minus allowed).
        let next = hay[i + 1..].trim_start_matches([' ', '\t', '$', '€', '£', '-', '−']);
        let digit_next = next.starts_with(|c: char| c.is_ascii_digit())
            || (next.starts_with('.') && next[1..].starts_with(|c: char| c.is_ascii_digit()));
        if !digit_next {
            continue;
        }
        let line_start = hay[..i].rfind('\n').map_or(0, |p| p + 1).max(done);
        let line_end = hay[i..].find('\n').map_or(hay.len(), |p| i + p);
        if line_start >= line_end {
            continue;
        }
        // Each line is scanned once (`done`), so no equation is found twice.
        out.extend(symbolic_in(range.start + line_start, &hay[line_start..line_end]));
        done = line_end;
    }
    out
}

/// Equations within one line starting at absolute byte `base`.
fn symbolic_in(base: usize, hay: &str) -> Vec<FoundOperation> {
    let mut out = Vec::new();
    for all in SYMBOLIC.find_iter(hay) {
        // Split the match at its `=`: no capture groups, so the fast DFA suffices.
        let Some(eq) = all.as_str().rfind('=') else { continue };
        let expr_s = &all.as_str()[..eq];
        let res_s = all.as_str()[eq + 1..].trim_start();
        let res_s = res_s.trim_end_matches(['%', ' ', '\t']);
        let res_start = all.start() + all.as_str().len() - all.as_str()[eq + 1..].trim_start().len();
        let res = res_start..res_start + res_s.len();
        let expr = expr_s.trim_end();
        // Not glued to a preceding digit or letter (dates, versions, identifiers).
        if hay[..all.start()].chars().next_back().is_some_and(|p| p.is_alphanumeric() || p == '.' || p == '-') {
            continue;
        }
        let end = res.end;
        if truncated(hay, all.start(), end) {
            continue;
        }
        let expr_text = expr.replace(" x ", "*").replace(" X ", "*");
        let percent = hay[end..].trim_start().starts_with('%');
        let res_text = if percent { format!("{res_s}%") } else { res_s.to_string() };
        if let Some(op) = from_expression(base + all.start()..base + end, &expr_text, &res_text) {
            out.push(op);
        }
    }
    out
}

struct ProsePattern {
    /// Compiled for its captures once the set says it matches.
    re: LazyRegex,
    operator: &'static str,
    /// Operand group names in operand order.
    operands: &'static [&'static str],
    /// Extra constant operand appended (e.g. `2` for "half of").
    constant: Option<&'static str>,
}

static PROSE_WORDS: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build([
            "%",
            "percent",
            "per cent",
            "times",
            "multipl",
            "plus",
            "added",
            "minus",
            "less",
            "divid",
            "over",
            "add",
            "subtract",
            "sum of",
            "total of",
            "product",
            "difference",
            "quotient",
            "average",
            "mean",
            "half",
            "double",
            "twice",
        ])
        .unwrap_or_else(|e| panic!("prose words: {e}"))
});

/// All prose patterns at once: one pass tells which (if any) can match a range.
static PROSE_SET: LazyLock<regex::RegexSet> =
    LazyLock::new(|| regex::RegexSet::new(PROSE.iter().map(|p| p.re.as_str())).unwrap_or_else(|e| panic!("prose set: {e}")));

static PROSE: LazyLock<Vec<ProsePattern>> = LazyLock::new(|| {
    let res = r"(?:is|are|equals?|=|makes|gives(?:\s+you)?|comes\s+to|would\s+be|will\s+be|yields|results\s+in|amounts\s+to|leaves(?:\s+you\s+with)?|totals?)";
    let imp = r"(?:to\s+get|and\s+you\s+get|which\s+gives(?:\s+you)?|giving(?:\s+you)?|=|gives(?:\s+you)?|to\s+obtain|you\s+get|which\s+is|which\s+equals)";
    let n = |g: &str| format!(r"(?P<{g}>{NUM})");
    let pct = r"\s*(?:%|\s?percent(?-u:\b)|\s?per\s?cent(?-u:\b))";
    let p =
        |pat: String, operator, operands, constant| ProsePattern { re: LazyRegex::new(format!("(?i){pat}"), re), operator, operands, constant };
    vec![
        p(format!(r"{a}{pct}\s+of\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")), "percentage", &["a", "b"], None),
        p(
            format!(r"(?-u:\b)(?:on|of|for)\s+{b}\s+at\s+{a}{pct}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "percentage",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"{a}\s+(?:times|multiplied\s+by)\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "multiply",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"{a}\s+(?:plus|added\s+to)\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "add",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"{a}\s+(?:minus|less)\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "subtract",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"{a}\s+(?:divided\s+by|over)\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "divide",
            &["a", "b"],
            None,
        ),
        p(
            format!(
                r"(?-u:\b)multiply(?:ing)?\s+{a}\s+(?:by|and|with)\s+{b}\s*,?\s+{imp}\s+{r}",
                a = n("a"),
                b = n("b"),
                r = n("r")
            ),
            "multiply",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)divid(?:e|ing)\s+{a}\s+by\s+{b}\s*,?\s+{imp}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "divide",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)add(?:ing)?\s+{a}\s+(?:and|to)\s+{b}\s*,?\s+{imp}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "add",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)subtract(?:ing)?\s+{b}\s+from\s+{a}\s*,?\s+{imp}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "subtract",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)the\s+(?:sum|total)\s+of\s+{a}\s+and\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "add",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)the\s+product\s+of\s+{a}\s+and\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "multiply",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)the\s+difference\s+between\s+{a}\s+and\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "subtract",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)the\s+quotient\s+of\s+{a}\s+and\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "divide",
            &["a", "b"],
            None,
        ),
        p(
            format!(r"(?-u:\b)the\s+(?:average|mean)\s+of\s+{a}\s+and\s+{b}\s+{res}\s+{r}", a = n("a"), b = n("b"), r = n("r")),
            "average",
            &["a", "b"],
            None,
        ),
        p(format!(r"(?-u:\b)half\s+of\s+{a}\s+{res}\s+{r}", a = n("a"), r = n("r")), "divide", &["a"], Some("2")),
        p(format!(r"(?-u:\b)(?:double|twice)\s+{a}\s+{res}\s+{r}", a = n("a"), r = n("r")), "multiply", &["a"], Some("2")),
    ]
});

/// Arithmetic stated in words.
pub fn prose(text: &str, range: Range<usize>) -> Vec<FoundOperation> {
    let hay = &text[range.clone()];
    let mut out = Vec::new();
    // Every prose pattern needs one of these words (or `%`); most text has none.
    if !PROSE_WORDS.is_match(hay) {
        return out;
    }
    let hits = PROSE_SET.matches(hay);
    if !hits.matched_any() {
        return out;
    }
    for p in hits.iter().map(|i| &PROSE[i]) {
        for c in p.re.get().captures_iter(hay) {
            let (Some(all), Some(r)) = (c.get(0), c.name("r")) else { continue };
            let mut operands: Vec<Value> = Vec::new();
            let mut ok = true;
            for g in p.operands {
                match c.name(g).and_then(|m| number_value(m.as_str())) {
                    Some(v) => operands.push(v),
                    None => ok = false,
                }
            }
            if let Some(k) = p.constant {
                operands.push(number_value(k).unwrap_or(Value::Null));
            }
            let Some(result) = number_value(r.as_str()) else { continue };
            if ok && !truncated(hay, all.start(), r.end()) {
                out.push(FoundOperation {
                    range: range.start + all.start()..range.start + r.end(),
                    operator: p.operator.into(),
                    operands,
                    result,
                });
            }
        }
    }
    out
}

/// All operations in the prose ranges (annotations are looked for in the whole text).
/// Overlapping finds keep the earliest, longest one.
pub fn find(text: &str, prose_ranges: &[Range<usize>]) -> (Vec<FoundOperation>, Vec<Range<usize>>) {
    let (mut all, bad) = annotations(text);
    // `=` inside `<<expr=result>>` is the annotation's, not a prose equation's.
    let inside: Vec<Range<usize>> = all.iter().map(|o| o.range.clone()).chain(bad.iter().cloned()).collect();
    for r in prose_ranges {
        all.extend(symbolic_outside(text, r.clone(), &inside));
        all.extend(prose(text, r.clone()));
    }
    all.sort_by(|a, b| a.range.start.cmp(&b.range.start).then(b.range.end.cmp(&a.range.end)));
    let mut out: Vec<FoundOperation> = Vec::new();
    for op in all {
        if out.last().is_some_and(|p| op.range.start < p.range.end) {
            continue;
        }
        out.push(op);
    }
    (out, bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(t: &str) -> Vec<(String, String, Vec<Value>, Value)> {
        find(t, &[0..t.len()]).0.into_iter().map(|o| (t[o.range.clone()].to_string(), o.operator, o.operands, o.result)).collect()
    }
    fn num(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn annotations_simple_and_compound() {
        let t = "She sells 16 - 3 - 4 = <<16-3-4=9>>9 eggs for $<<9*2=18>>18, i.e. <<2*1/2=1.0>>1.";
        let got = ops(t);
        assert_eq!(got[0], ("<<16-3-4=9>>".into(), "subtract".into(), vec![json!(16), json!(3), json!(4)], json!(9)));
        assert_eq!(got[1].1, "multiply");
        assert_eq!(got[2], ("<<2*1/2=1.0>>".into(), "expression".into(), vec![json!("2*1/2")], num("1.0")));
        let (_, bad) = annotations("x <<83.33>> y <<1+=2>>");
        assert_eq!(bad.len(), 2);
    }

    /// The ranges of every annotation found, good or bad.
    fn annotation_ranges(t: &str) -> Vec<Range<usize>> {
        let (ops, bad) = annotations(t);
        let mut all: Vec<Range<usize>> = ops.into_iter().map(|o| o.range).chain(bad).collect();
        all.sort_by_key(|r| r.start);
        all
    }

    /// As the pattern with the bound in it (`{1,512}`) finds them.
    fn bounded_ranges(t: &str) -> Vec<Range<usize>> {
        static BOUNDED: LazyLock<Regex> = LazyLock::new(|| re(r"<<([^<>\n]{1,512})>>"));
        BOUNDED.find_iter(t).map(|m| m.range()).collect()
    }

    #[test]
    fn an_annotation_holds_at_most_512_chars() {
        let long = |n: usize, c: char| format!("<<{}=1>>", c.to_string().repeat(n - 2));
        for t in [
            format!("a {} b <<2*3=6>> c", long(600, '1')),
            format!("{}{}", long(512, 'é'), long(513, 'é')),
            format!("<{}>> <<<1=1>>> <<\n1=1>> <<>>", long(512, '9')),
        ] {
            assert_eq!(annotation_ranges(&t), bounded_ranges(&t), "{t}");
        }
        assert_eq!(annotation_ranges(&long(512, 'é')).len(), 1);
        assert!(annotation_ranges(&long(513, 'é')).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn annotations_are_found_as_the_bounded_pattern_finds_them(
            parts in proptest::collection::vec(("[<>=1é\n ]{0,3}", 0usize..600), 0..6)
        ) {
            let t: String = parts.iter().map(|(s, n)| format!("{s}{}", "7".repeat(*n))).collect();
            proptest::prop_assert_eq!(annotation_ranges(&t), bounded_ranges(&t));
        }
    }

    #[test]
    fn symbolic_equations() {
        let got = ops("So 3 × 4 = 12 and 19.99 + 5.01 = 25, then $9 * 2 = $18.");
        assert_eq!(got.len(), 3);
        assert_eq!((got[0].1.as_str(), got[0].2.clone(), got[0].3.clone()), ("multiply", vec![json!(3), json!(4)], json!(12)));
        assert_eq!((got[1].1.as_str(), got[1].2.clone()), ("add", vec![num("19.99"), num("5.01")]));
        assert_eq!(got[2].2, vec![json!(9), json!(2)]);
        assert!(ops("On 2024-03-05 = today").is_empty());
        let got = ops("Total: (2 + 3) * 4 = 20");
        assert_eq!(got[0].1, "expression");
        assert_eq!(got[0].2, vec![json!("(2+3)*4")]);
    }

    #[test]
    fn prose_arithmetic() {
        let got = ops("15% of $80 is $12. The tip on $100 at 15% would be $15. Divide 120 by 4 to get 30.");
        let summary: Vec<(&str, Vec<Value>, Value)> = got.iter().map(|g| (g.1.as_str(), g.2.clone(), g.3.clone())).collect();
        assert_eq!(
            summary,
            vec![
                ("percentage", vec![json!(15), json!(80)], json!(12)),
                ("percentage", vec![json!(15), json!(100)], json!(15)),
                ("divide", vec![json!(120), json!(4)], json!(30)),
            ]
        );
        let got = ops("Subtract 5 from 12 to get 7, and half of 10 is 5; the sum of 2 and 2 equals 4.");
        let summary: Vec<(&str, Vec<Value>)> = got.iter().map(|g| (g.1.as_str(), g.2.clone())).collect();
        assert_eq!(
            summary,
            vec![
                ("subtract", vec![json!(12), json!(5)]),
                ("divide", vec![json!(10), json!(2)]),
                ("add", vec![json!(2), json!(2)])
            ]
        );
    }

    #[test]
    fn numbers_keep_their_digits() {
        assert_eq!(number_value("$1,234.50"), Some(num("1234.50")));
        assert_eq!(number_value(".5"), Some(num("0.5")));
        assert_eq!(number_value("-.05"), Some(num("-0.05")));
        assert_eq!(number_value("5."), Some(json!(5)));
        assert_eq!(number_value("abc"), None);
        assert_eq!(number_value("007"), Some(json!(7)));
        assert_eq!(number_value("$0,050.5"), Some(num("50.5")));
    }
}
