//! Exact evaluation of written arithmetic expressions: `16-3-4`, `2*1/2`, `10*(2/3)`,
//! `50000*5%`, `100+25*.01`, `5+2(3)`, `2^10`.
//!
//! Grammar (usual precedence, left-associative except `^`):
//! `expr := term (('+'|'-') term)*`, `term := power (('*'|'/'|'%'|implicit) power)*`,
//! `power := unary ('^' power)?`, `unary := ('-'|'+') unary | postfix`,
//! `postfix := atom '%'?` (percent: ÷100), `atom := number | '(' expr ')'`.
//! `×`/`x` multiply, `÷` divides, `**` is power. A `%` followed by an operand is modulo.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};

use crate::number::Decimal;

/// Why an expression cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArithError {
    /// Not a well-formed expression.
    Syntax(String),
    /// Division or modulo by zero.
    DivisionByZero,
    /// An exponent that is not an integer or is too large.
    Exponent(String),
}

impl std::fmt::Display for ArithError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Syntax(m) => write!(f, "not an arithmetic expression: {m}"),
            Self::DivisionByZero => f.write_str("division by zero"),
            Self::Exponent(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ArithError {}

/// Largest exponent evaluated; beyond it the expression is refused.
pub const MAX_EXPONENT: u32 = 4096;
/// Longest expression accepted (bytes).
pub const MAX_LEN: usize = 2048;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(BigRational),
    Op(char),
    Open,
    Close,
}

fn tokenize(s: &str) -> Result<Vec<Tok>, ArithError> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        match c {
            ' ' | '\t' | ',' | '$' | '€' | '£' => i += 1,
            '½' | '⅓' | '⅔' | '¼' | '¾' | '⅕' | '⅖' | '⅗' | '⅘' | '⅙' | '⅚' | '⅛' | '⅜' | '⅝' | '⅞' => {
                let (n, d) = vulgar(c);
                // `1½` is one and a half.
                let whole = matches!(out.last(), Some(Tok::Num(_))) && i > 0 && chars[i - 1].1.is_ascii_digit();
                let frac = BigRational::new(BigInt::from(n), BigInt::from(d));
                match (whole, out.last_mut()) {
                    (true, Some(Tok::Num(w))) => *w += frac,
                    _ => out.push(Tok::Num(frac)),
                }
                i += 1;
            }
            '0'..='9' | '.' => {
                let start = pos;
                let mut j = i;
                while j < chars.len() {
                    let c = chars[j].1;
                    // Thousands separators: `1,000` (a comma followed by exactly three digits).
                    let grouped = c == ','
                        && (1..=3).all(|k| chars.get(j + k).is_some_and(|d| d.1.is_ascii_digit()))
                        && !chars.get(j + 4).is_some_and(|d| d.1.is_ascii_digit());
                    if c.is_ascii_digit() || c == '.' || grouped {
                        j += 1;
                    } else {
                        break;
                    }
                }
                let end = chars.get(j).map_or(s.len(), |c| c.0);
                let raw: String = s[start..end].chars().filter(|c| *c != ',').collect();
                let lit = raw.as_str();
                let lit = if lit.starts_with('.') { format!("0{lit}") } else { lit.to_string() };
                let lit = lit.strip_suffix('.').map(str::to_string).unwrap_or(lit);
                let d = Decimal::parse(&lit).map_err(|_| ArithError::Syntax(format!("bad number '{}'", &s[start..end])))?;
                out.push(Tok::Num(d.into_value()));
                i = j;
            }
            '+' | '-' | '/' | '^' | '%' | '−' | '–' => {
                out.push(Tok::Op(if c == '−' || c == '–' { '-' } else { c }));
                i += 1;
            }
            '*' => {
                if chars.get(i + 1).is_some_and(|c| c.1 == '*') {
                    out.push(Tok::Op('^'));
                    i += 2;
                } else {
                    out.push(Tok::Op('*'));
                    i += 1;
                }
            }
            '×' | 'x' | 'X' | '·' => {
                out.push(Tok::Op('*'));
                i += 1;
            }
            '÷' => {
                out.push(Tok::Op('/'));
                i += 1;
            }
            '(' | '[' => {
                out.push(Tok::Open);
                i += 1;
            }
            ')' | ']' => {
                out.push(Tok::Close);
                i += 1;
            }
            other => return Err(ArithError::Syntax(format!("unexpected '{other}'"))),
        }
    }
    Ok(out)
}

/// The value of a Unicode vulgar fraction.
fn vulgar(c: char) -> (i64, i64) {
    match c {
        '½' => (1, 2),
        '⅓' => (1, 3),
        '⅔' => (2, 3),
        '¼' => (1, 4),
        '¾' => (3, 4),
        '⅕' => (1, 5),
        '⅖' => (2, 5),
        '⅗' => (3, 5),
        '⅘' => (4, 5),
        '⅙' => (1, 6),
        '⅚' => (5, 6),
        '⅛' => (1, 8),
        '⅜' => (3, 8),
        '⅝' => (5, 8),
        _ => (7, 8),
    }
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn expr(&mut self) -> Result<BigRational, ArithError> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(ArithError::Syntax("nested too deeply".into()));
        }
        let mut v = self.term()?;
        while let Some(Tok::Op(c @ ('+' | '-'))) = self.peek().cloned() {
            self.pos += 1;
            let r = self.term()?;
            v = if c == '+' { v + r } else { v - r };
        }
        self.depth -= 1;
        Ok(v)
    }

    fn term(&mut self) -> Result<BigRational, ArithError> {
        let mut v = self.power()?;
        loop {
            match self.peek().cloned() {
                Some(Tok::Op(c @ ('*' | '/' | '%'))) => {
                    self.pos += 1;
                    let r = self.power()?;
                    v = match c {
                        '*' => v * r,
                        '/' => {
                            if r.is_zero() {
                                return Err(ArithError::DivisionByZero);
                            }
                            v / r
                        }
                        _ => {
                            if r.is_zero() {
                                return Err(ArithError::DivisionByZero);
                            }
                            let q = (&v / &r).trunc();
                            v - r * q
                        }
                    };
                }
                // Implicit multiplication: `2(3)`, `(1+2)(3)`.
                Some(Tok::Open) => {
                    let r = self.power()?;
                    v *= r;
                }
                _ => return Ok(v),
            }
        }
    }

    fn power(&mut self) -> Result<BigRational, ArithError> {
        let base = self.unary()?;
        if let Some(Tok::Op('^')) = self.peek() {
            self.pos += 1;
            let e = self.power()?;
            return pow(&base, &e);
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<BigRational, ArithError> {
        match self.peek() {
            Some(Tok::Op('-')) => {
                self.pos += 1;
                Ok(-self.unary()?)
            }
            Some(Tok::Op('+')) => {
                self.pos += 1;
                self.unary()
            }
            _ => self.postfix(),
        }
    }

    fn postfix(&mut self) -> Result<BigRational, ArithError> {
        let mut v = self.atom()?;
        // `5%` is a percentage unless an operand follows (then it is modulo, handled in term).
        while let Some(Tok::Op('%')) = self.peek() {
            let next = self.toks.get(self.pos + 1);
            if matches!(next, Some(Tok::Num(_)) | Some(Tok::Open)) {
                break;
            }
            self.pos += 1;
            v /= BigRational::from_integer(BigInt::from(100));
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<BigRational, ArithError> {
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Ok(n)
            }
            Some(Tok::Open) => {
                self.pos += 1;
                let v = self.expr()?;
                match self.peek() {
                    Some(Tok::Close) => {
                        self.pos += 1;
                        Ok(v)
                    }
                    _ => Err(ArithError::Syntax("missing ')'".into())),
                }
            }
            Some(t) => Err(ArithError::Syntax(format!("unexpected {t:?}"))),
            None => Err(ArithError::Syntax("unexpected end".into())),
        }
    }
}

fn pow(base: &BigRational, e: &BigRational) -> Result<BigRational, ArithError> {
    if !e.is_integer() {
        return Err(ArithError::Exponent("non-integer exponent not supported".into()));
    }
    let n = e.to_integer();
    let mag = n
        .abs()
        .to_u32()
        .filter(|m| *m <= MAX_EXPONENT)
        .ok_or_else(|| ArithError::Exponent(format!("exponent too large (at most {MAX_EXPONENT})")))?;
    if n.is_negative() && base.is_zero() {
        return Err(ArithError::DivisionByZero);
    }
    let p = num_traits::pow(base.clone(), mag as usize);
    Ok(if n.is_negative() { p.recip() } else { p })
}

/// Evaluates an expression exactly.
pub fn evaluate(s: &str) -> Result<BigRational, ArithError> {
    if s.len() > MAX_LEN {
        return Err(ArithError::Syntax(format!("longer than {MAX_LEN} bytes")));
    }
    let toks = tokenize(s)?;
    if toks.is_empty() {
        return Err(ArithError::Syntax("empty".into()));
    }
    let mut p = Parser { toks, pos: 0, depth: 0 };
    let v = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(ArithError::Syntax("trailing input".into()));
    }
    Ok(v)
}

/// The operators an expression uses, in order of first appearance (`+ - * / ^ %`), for
/// classifying simple expressions; implicit multiplication counts as `*`.
pub fn operators(s: &str) -> Result<Vec<char>, ArithError> {
    let toks = tokenize(s)?;
    let mut out = Vec::new();
    let mut prev: Option<&Tok> = None;
    for t in &toks {
        let op = match t {
            // A sign (at the start, or after an operator or `(`) is not a binary operator.
            Tok::Op(c @ ('-' | '+')) if matches!(prev, None | Some(Tok::Op(_)) | Some(Tok::Open)) => {
                let _ = c;
                None
            }
            Tok::Op(c) => Some(*c),
            Tok::Open if matches!(prev, Some(Tok::Num(_)) | Some(Tok::Close)) => Some('*'),
            _ => None,
        };
        if let Some(c) = op
            && !out.contains(&c)
        {
            out.push(c);
        }
        prev = Some(t);
    }
    Ok(out)
}

/// The numbers of a flat expression with one binary operator (`16-3-4` → `[16, 3, 4]`),
/// written as in the source; `None` when the expression is not that simple.
pub fn flat_operands(s: &str) -> Option<(char, Vec<String>)> {
    if s.contains(['(', ')', '[', ']', '%']) {
        return None;
    }
    // One kind of binary operator (signs after an operator are not operators).
    let mut op: Option<char> = None;
    let mut prev_was_op = true;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let k = match c {
            '+' => Some('+'),
            '-' | '−' | '–' => Some('-'),
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                Some('^')
            }
            '*' | '×' | 'x' | 'X' | '·' => Some('*'),
            '/' | '÷' => Some('/'),
            '^' => Some('^'),
            ' ' | '\t' | ',' | '$' | '€' | '£' => continue,
            _ => None,
        };
        match k {
            Some(k) if !(prev_was_op && (k == '-' || k == '+')) => {
                if op.is_some_and(|o| o != k) {
                    return None;
                }
                op = Some(k);
                prev_was_op = true;
            }
            Some(_) => prev_was_op = true,
            None => prev_was_op = false,
        }
    }
    let op = op?;
    if op == '^' && s.matches(['^']).count() + s.matches("**").count() > 1 {
        return None;
    }
    let mut operands = Vec::new();
    let mut cur = String::new();
    let mut prev_was_op = true;
    let normalised: String = s.replace("**", "^");
    for c in normalised.chars() {
        let is_op = match c {
            '+' | '-' | '−' | '–' => !prev_was_op && (c == op || (op == '-' && (c == '−' || c == '–'))),
            '*' | '×' | 'x' | 'X' | '·' => op == '*',
            '/' | '÷' => op == '/',
            '^' => op == '^',
            _ => false,
        };
        if is_op {
            operands.push(std::mem::take(&mut cur));
            prev_was_op = true;
        } else if !matches!(c, ' ' | '\t' | ',' | '$' | '€' | '£') {
            cur.push(if c == '−' || c == '–' { '-' } else { c });
            prev_was_op = false;
        }
    }
    operands.push(cur);
    let operands: Vec<String> = operands
        .into_iter()
        .map(|o| {
            if o.starts_with('.') {
                format!("0{o}")
            } else if o.starts_with("-.") {
                o.replacen("-.", "-0.", 1)
            } else {
                o
            }
        })
        .collect();
    if operands.iter().any(|o| Decimal::parse(o).is_err()) {
        return None;
    }
    Some((op, operands))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> String {
        crate::number::format_rational(&evaluate(s).unwrap(), 12)
    }

    #[test]
    fn evaluates_gsm8k_style_expressions() {
        assert_eq!(ev("16-3-4"), "9");
        assert_eq!(ev("2*1/2"), "1");
        assert_eq!(ev("10*(2/3)"), "6.666666666667…");
        assert_eq!(ev("50000*5%"), "2500");
        assert_eq!(ev("100+25*.01"), "100.25");
        assert_eq!(ev("5+2(3)"), "11");
        assert_eq!(ev("2^10"), "1024");
        assert_eq!(ev("2**3**2"), "512");
        assert_eq!(ev("-48+21+-3"), "-30");
        assert_eq!(ev("600*-7"), "-4200");
        assert_eq!(ev("8.5/-.05"), "-170");
        assert_eq!(ev("3 × 4"), "12");
        assert_eq!(ev("$19.99 + $5.01"), "25");
        assert_eq!(ev("7 % 3"), "1");
        assert_eq!(ev("1,000 / 8"), "125");
        assert_eq!(ev("¾*12"), "9");
        assert_eq!(ev("1½ + ½"), "2");
    }

    #[test]
    fn refuses_bad_input() {
        assert_eq!(evaluate("1/0"), Err(ArithError::DivisionByZero));
        assert!(matches!(evaluate("2^0.5"), Err(ArithError::Exponent(_))));
        assert!(matches!(evaluate("2^99999"), Err(ArithError::Exponent(_))));
        assert!(matches!(evaluate("(1+2"), Err(ArithError::Syntax(_))));
        assert!(matches!(evaluate("1+"), Err(ArithError::Syntax(_))));
        assert!(matches!(evaluate("abc"), Err(ArithError::Syntax(_))));
        assert!(matches!(evaluate(""), Err(ArithError::Syntax(_))));
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        assert!(evaluate(&deep).is_err());
    }

    #[test]
    fn operators_and_flat_operands() {
        assert_eq!(operators("16-3-4").unwrap(), vec!['-']);
        assert_eq!(operators("-48+21+-3").unwrap(), vec!['+']);
        assert_eq!(operators("2*1/2").unwrap(), vec!['*', '/']);
        assert_eq!(operators("5+2(3)").unwrap(), vec!['+', '*']);
        assert_eq!(flat_operands("16-3-4"), Some(('-', vec!["16".into(), "3".into(), "4".into()])));
        assert_eq!(flat_operands("-48+21+-3"), Some(('+', vec!["-48".into(), "21".into(), "-3".into()])));
        assert_eq!(flat_operands("100*.01"), Some(('*', vec!["100".into(), "0.01".into()])));
        assert_eq!(flat_operands("$19.99 + $5.01"), Some(('+', vec!["19.99".into(), "5.01".into()])));
        assert_eq!(flat_operands("2*1/2"), None);
        assert_eq!(flat_operands("10*(2/3)"), None);
    }
}
