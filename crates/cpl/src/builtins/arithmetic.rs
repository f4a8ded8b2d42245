//! `result_correct(operation)`: exact recomputation of a stated result (D2, spec §4.16).

use std::cmp::Ordering;

use serde_json::Value;
use warrant_graph::Operation;
use warrant_text::Decimal;
use warrant_text::number::{BigInt, BigRational, format_rational, round_half_even};

use super::Diag;

/// Canonical operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// a₁ + a₂ + …
    Add,
    /// a₁ − a₂ − … (left fold)
    Subtract,
    /// a₁ · a₂ · …
    Multiply,
    /// a / b
    Divide,
    /// a% of b
    Percentage,
    /// aᵇ, b an integer
    Power,
    /// remainder with the sign of the dividend
    Modulo,
    /// −a
    Negate,
    /// |a|
    Abs,
    /// smallest
    Min,
    /// largest
    Max,
    /// arithmetic mean
    Average,
    /// Σ a
    Sum,
    /// a = b
    Eq,
    /// a ≠ b
    Ne,
    /// a < b
    Lt,
    /// a ≤ b
    Le,
    /// a > b
    Gt,
    /// a ≥ b
    Ge,
    /// Project extension: one string operand holding a written arithmetic expression
    /// (`"2*1/2"`, `"10*(2/3)"`), evaluated exactly. Compound calculator annotations use it.
    Expression,
}

/// Largest exponent `power` will compute; beyond it the check refuses rather than build
/// numbers of unbounded size from untrusted input.
const MAX_POWER: u32 = 4096;

impl Operator {
    /// Normalises (trim, lower-case, spaces and hyphens → `_`) and maps synonyms.
    /// The bare `%` and `compare` are deliberately unknown: they are ambiguous.
    pub fn parse(raw: &str) -> Option<Self> {
        let norm: String = raw.trim().to_lowercase().chars().map(|c| if c == ' ' || c == '-' { '_' } else { c }).collect();
        Some(match norm.as_str() {
            "add" | "plus" | "addition" | "+" => Self::Add,
            "subtract" | "minus" | "subtraction" | "difference" | "_" | "−" => Self::Subtract,
            "multiply" | "times" | "multiplication" | "product" | "*" | "×" => Self::Multiply,
            "divide" | "over" | "division" | "quotient" | "divided_by" | "/" | "÷" => Self::Divide,
            "percentage" | "percent" | "percent_of" | "pct" => Self::Percentage,
            "power" | "pow" | "exponent" | "exponentiation" | "^" | "**" => Self::Power,
            "modulo" | "mod" | "remainder" | "rem" => Self::Modulo,
            "negate" | "neg" | "negation" | "negative" => Self::Negate,
            "abs" | "absolute" | "absolute_value" => Self::Abs,
            "min" | "minimum" => Self::Min,
            "max" | "maximum" => Self::Max,
            "average" | "avg" | "mean" => Self::Average,
            "sum" | "total" => Self::Sum,
            "eq" | "equals" | "equal" | "==" | "=" => Self::Eq,
            "ne" | "not_equal" | "!=" | "≠" => Self::Ne,
            "lt" | "less_than" | "<" => Self::Lt,
            "le" | "less_equal" | "less_than_or_equal" | "<=" | "≤" => Self::Le,
            "gt" | "greater_than" | ">" => Self::Gt,
            "ge" | "greater_equal" | "greater_than_or_equal" | ">=" | "≥" => Self::Ge,
            "expression" | "expr" | "formula" | "evaluate" => Self::Expression,
            _ => return None,
        })
    }

    /// Canonical name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Subtract => "subtract",
            Self::Multiply => "multiply",
            Self::Divide => "divide",
            Self::Percentage => "percentage",
            Self::Power => "power",
            Self::Modulo => "modulo",
            Self::Negate => "negate",
            Self::Abs => "abs",
            Self::Min => "min",
            Self::Max => "max",
            Self::Average => "average",
            Self::Sum => "sum",
            Self::Eq => "eq",
            Self::Ne => "ne",
            Self::Lt => "lt",
            Self::Le => "le",
            Self::Gt => "gt",
            Self::Ge => "ge",
            Self::Expression => "expression",
        }
    }

    /// (min, max) operand count; `None` max means unbounded.
    const fn arity(self) -> (usize, Option<usize>) {
        match self {
            Self::Add | Self::Subtract | Self::Multiply => (2, None),
            Self::Divide | Self::Percentage | Self::Power | Self::Modulo => (2, Some(2)),
            Self::Eq | Self::Ne | Self::Lt | Self::Le | Self::Gt | Self::Ge => (2, Some(2)),
            Self::Negate | Self::Abs | Self::Expression => (1, Some(1)),
            Self::Min | Self::Max | Self::Average | Self::Sum => (1, None),
        }
    }
}

/// A number from JSON: a number, or a string that trims to `[+-]digits[.digits]`.
fn numeric(v: &Value) -> Option<Decimal> {
    match v {
        Value::Number(n) => Decimal::parse(&n.to_string()).ok(),
        Value::String(s) => {
            let t = s.trim();
            let body = t.strip_prefix(['+', '-']).unwrap_or(t);
            let (int, frac) = body.split_once('.').unwrap_or((body, "0"));
            let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            (digits(int) && digits(frac)).then(|| Decimal::parse(t).ok()).flatten()
        }
        _ => None,
    }
}

/// The outcome of recomputing an operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Computed {
    /// An arithmetic value.
    Number(BigRational),
    /// A comparison outcome.
    Bool(bool),
}

/// Recomputes `operator` over `operands`; the error is the diagnostic.
pub fn compute(operator: &str, operands: &[Value]) -> Result<(Operator, Computed), String> {
    let op = Operator::parse(operator).ok_or_else(|| format!("unknown operator '{operator}'"))?;
    let (lo, hi) = op.arity();
    if operands.len() < lo || hi.is_some_and(|h| operands.len() > h) {
        let expects = match hi {
            Some(h) if h == lo => format!("{lo}"),
            _ => format!("at least {lo}"),
        };
        return Err(format!("operator {} expects {expects} operands, got {}", op.name(), operands.len()));
    }
    let mut xs = Vec::with_capacity(operands.len());
    if op != Op::Expression {
        for (i, v) in operands.iter().enumerate() {
            xs.push(numeric(v).ok_or_else(|| format!("operand {i} is not a number"))?.into_value());
        }
    }
    let zero = || BigRational::from_integer(BigInt::from(0));
    let value = match op {
        Op::Add | Op::Sum => xs.iter().fold(zero(), |a, b| a + b),
        Op::Subtract => {
            let mut it = xs.into_iter();
            let first = it.next().unwrap_or_else(zero);
            it.fold(first, |a, b| a - b)
        }
        Op::Multiply => xs.iter().fold(BigRational::from_integer(BigInt::from(1)), |a, b| a * b),
        Op::Divide => {
            if xs[1] == zero() {
                return Err("division by zero".into());
            }
            &xs[0] / &xs[1]
        }
        Op::Percentage => &xs[0] * &xs[1] / BigRational::from_integer(BigInt::from(100)),
        Op::Power => power(&xs[0], &xs[1])?,
        Op::Modulo => {
            if xs[1] == zero() {
                return Err("division by zero".into());
            }
            let q = (&xs[0] / &xs[1]).trunc();
            &xs[0] - &xs[1] * q
        }
        Op::Negate => -xs[0].clone(),
        Op::Abs => {
            if xs[0] < zero() {
                -xs[0].clone()
            } else {
                xs[0].clone()
            }
        }
        Op::Min => xs.iter().min().cloned().unwrap_or_else(zero),
        Op::Max => xs.iter().max().cloned().unwrap_or_else(zero),
        Op::Average => {
            let n = BigRational::from_integer(BigInt::from(xs.len()));
            xs.iter().fold(zero(), |a, b| a + b) / n
        }
        Op::Expression => {
            let expr = operands[0].as_str().ok_or("operand 0 is not an expression string")?;
            warrant_text::arith::evaluate(expr).map_err(|e| e.to_string())?
        }
        Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
            let ord = xs[0].cmp(&xs[1]);
            let b = match op {
                Op::Eq => ord == Ordering::Equal,
                Op::Ne => ord != Ordering::Equal,
                Op::Lt => ord == Ordering::Less,
                Op::Le => ord != Ordering::Greater,
                Op::Gt => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            };
            return Ok((op, Computed::Bool(b)));
        }
    };
    Ok((op, Computed::Number(value)))
}

use Operator as Op;

fn power(base: &BigRational, exp: &BigRational) -> Result<BigRational, String> {
    if !exp.is_integer() {
        return Err("non-integer exponent not supported".into());
    }
    let e = exp.to_integer();
    let negative = e < BigInt::from(0);
    let mag = if negative { -e } else { e };
    let mag: u32 = u32::try_from(&mag)
        .ok()
        .filter(|m| *m <= MAX_POWER)
        .ok_or_else(|| format!("exponent too large (at most {MAX_POWER})"))?;
    let zero = BigRational::from_integer(BigInt::from(0));
    if negative && *base == zero {
        return Err("division by zero".into());
    }
    let p = num_pow(base, mag);
    Ok(if negative { p.recip() } else { p })
}

fn num_pow(base: &BigRational, mut e: u32) -> BigRational {
    let mut acc = BigRational::from_integer(BigInt::from(1));
    let mut b = base.clone();
    while e > 0 {
        if e & 1 == 1 {
            acc *= &b;
        }
        e >>= 1;
        if e > 0 {
            b = &b * &b;
        }
    }
    acc
}

/// D2: a result within a relative error of 1e-9 of the exact value is correct, so binary
/// floating-point artefacts (`1.87*9=16.830000000000002`) are not flagged as mistakes.
/// (This decision overrides the spec body's example, which calls that result wrong.)
fn within_relative_tolerance(stated: &BigRational, exact: &BigRational) -> bool {
    let zero = BigRational::from_integer(BigInt::from(0));
    if *exact == zero {
        return *stated == zero;
    }
    let diff = stated - exact;
    let abs = |x: BigRational| if x < zero { -x } else { x };
    abs(diff) * BigRational::from_integer(BigInt::from(1_000_000_000u64)) <= abs(exact.clone())
}

/// `result_correct(op)`.
pub fn result_correct(op: &Operation, diag: &mut Diag<'_>) -> bool {
    let (operator, computed) = match compute(&op.operator, &op.operands) {
        Ok(c) => c,
        Err(msg) => {
            diag.push(|| msg);
            return false;
        }
    };
    match computed {
        Computed::Bool(expected) => match &op.result {
            Value::Bool(b) if *b == expected => true,
            Value::Bool(b) => {
                diag.push(|| format!("{} is {expected}, stated {b}", operator.name()));
                false
            }
            Value::Null => {
                diag.push(|| "result is missing".into());
                false
            }
            other => {
                diag.push(|| format!("result has type {}", super::tools::json_type_name(other)));
                false
            }
        },
        Computed::Number(v) => {
            let stated = match &op.result {
                Value::Null => {
                    diag.push(|| "result is missing".into());
                    return false;
                }
                r => match numeric(r) {
                    Some(d) => d,
                    None => {
                        diag.push(|| match r {
                            Value::String(_) => "result is not a number".to_string(),
                            other => format!("result has type {}", super::tools::json_type_name(other)),
                        });
                        return false;
                    }
                },
            };
            let ok = stated.value() == &v
                || stated.value() == &round_half_even(&v, stated.frac_digits())
                || within_relative_tolerance(stated.value(), &v);
            if !ok {
                diag.push(|| {
                    if operator == Op::Expression {
                        return format!(
                            "{} is {}, stated {}",
                            op.operands[0].as_str().unwrap_or_default(),
                            format_rational(&v, 10),
                            format_rational(stated.value(), 20)
                        );
                    }
                    format!(
                        "{} of {} is {}, stated {}",
                        operator.name(),
                        op.operands.iter().map(|o| o.to_string().trim_matches('"').to_string()).collect::<Vec<_>>().join(", "),
                        format_rational(&v, 10),
                        format_rational(stated.value(), 20)
                    )
                });
            }
            ok
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn op(operator: &str, operands: Value, result: Value) -> Operation {
        Operation {
            id: "op1".into(),
            kind: "arithmetic".into(),
            operator: operator.into(),
            operands: operands.as_array().unwrap().clone(),
            result,
            span: Default::default(),
        }
    }
    fn check(operator: &str, operands: Value, result: Value) -> (bool, Vec<String>) {
        let mut d = Vec::new();
        let ok = result_correct(&op(operator, operands, result), &mut Diag::collect(&mut d));
        (ok, d)
    }
    fn num(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn spec_examples() {
        assert!(check("percentage", json!([100, 15]), json!(15)).0);
        assert!(check("percentage", json!([15, 100]), json!(15)).0, "commutative");
        assert!(check("divide", json!([100, 3]), num("33.33")).0);
        assert!(check("divide", json!([100, 3]), num("33.3")).0);
        assert!(check("divide", json!([100, 3]), json!(33)).0);
        assert!(!check("divide", json!([100, 3]), num("33.34")).0);
        assert!(!check("divide", json!([100, 3]), num("33.30")).0, "written with 2 decimals: 33.33");
        assert!(check("multiply", json!([5, 3]), num("15.00")).0);
        // D2 overrides the spec body here: float artefacts within 1e-9 relative error pass.
        assert!(check("multiply", num("[1.87, 9]"), num("16.830000000000002")).0);
        assert!(check("add", num("[0.1, 0.2]"), num("0.30000000000000004")).0);
        let (ok, d) = check("multiply", num("[1.87, 9]"), num("16.8301"));
        assert!(!ok, "6e-6 relative error is a real slip");
        assert_eq!(d, vec!["multiply of 1.87, 9 is 16.83, stated 16.8301"]);
        assert!(!check("subtract", json!([5, 5]), num("0.000000000001")).0, "zero has no relative slack");
        assert!(check("*", num("[1.87, 9]"), num("16.83")).0);
        assert!(check("add", num("[0.1, 0.2]"), num("0.3")).0, "exact, not f64");
    }

    #[test]
    fn synonyms_and_normalisation() {
        for (o, a, b, r) in [
            ("Plus", 2, 3, 5),
            ("times", 2, 3, 6),
            ("minus", 7, 3, 4),
            ("over", 8, 2, 4),
            ("percent-of", 50, 10, 5),
            (" Divided By ", 9, 3, 3),
            ("**", 2, 10, 1024),
            ("mod", -7, 3, -1),
            ("÷", 9, 3, 3),
            ("×", 4, 3, 12),
        ] {
            assert!(check(o, json!([a, b]), json!(r)).0, "{o}");
        }
        assert!(check("avg", json!([1, 2, 4]), num("2.33")).0);
        assert!(check("min", json!([3, -1, 2]), json!(-1)).0);
        assert!(check("max", json!(["3", "10"]), json!(10)).0, "numeric strings");
        assert!(check("sum", json!([1]), json!(1)).0);
        assert!(check("negate", json!([4]), json!(-4)).0);
        assert!(check("abs", json!([-4.5]), num("4.5")).0);
        assert!(check("power", json!([2, -2]), num("0.25")).0);
    }

    #[test]
    fn comparisons_need_booleans() {
        assert!(check("lt", json!([1, 2]), json!(true)).0);
        assert!(check(">=", json!([2, 2]), json!(true)).0);
        assert!(check("ne", json!([2, 2]), json!(false)).0);
        let (ok, d) = check("eq", json!([1, 2]), json!(1));
        assert!(!ok);
        assert_eq!(d, vec!["result has type integer"]);
        assert!(!check("gt", json!([1, 2]), json!(true)).0);
    }

    #[test]
    fn malformed_operations_are_false_with_reasons() {
        let cases = [
            ("%", json!([10, 3]), json!(1), "unknown operator '%'"),
            ("compare", json!([1, 2]), json!(true), "unknown operator 'compare'"),
            ("divide", json!([1, 0]), json!(0), "division by zero"),
            ("modulo", json!([1, 0]), json!(0), "division by zero"),
            ("divide", json!([1, 2, 3]), json!(0), "operator divide expects 2 operands, got 3"),
            ("add", json!([1]), json!(1), "operator add expects at least 2 operands, got 1"),
            ("add", json!([1, "x"]), json!(1), "operand 1 is not a number"),
            ("add", json!([1, " 1e3"]), json!(1), "operand 1 is not a number"),
            ("add", json!([1, null]), json!(1), "operand 1 is not a number"),
            ("add", json!([1, 2]), Value::Null, "result is missing"),
            ("add", json!([1, 2]), json!([3]), "result has type array"),
            ("power", json!([2, 0.5]), json!(1), "non-integer exponent not supported"),
            ("power", json!([2, 100000]), json!(1), "exponent too large (at most 4096)"),
            ("power", json!([0, -1]), json!(1), "division by zero"),
        ];
        for (o, operands, result, want) in cases {
            let (ok, d) = check(o, operands, result);
            assert!(!ok, "{o}");
            assert_eq!(d, vec![want.to_string()], "{o}");
        }
    }

    #[test]
    fn expression_extension() {
        assert!(check("expression", json!(["2*1/2"]), num("1.0")).0);
        assert!(!check("expression", json!(["10*(2/3)"]), json!(8)).0);
        assert!(check("expression", json!(["10/3*3"]), json!(10)).0);
        assert!(check("expr", json!(["50000*5%"]), json!(2500)).0);
        assert!(check("expression", json!(["2.5/3-1/2"]), num("0.33333333333333337")).0, "D2 tolerance");
        let (ok, d) = check("expression", json!(["12+3*5"]), json!(45));
        assert!(!ok);
        assert_eq!(d, vec!["12+3*5 is 27, stated 45"]);
        assert_eq!(check("expression", json!([5]), json!(5)).1, vec!["operand 0 is not an expression string"]);
        assert_eq!(check("expression", json!(["1/0"]), json!(5)).1, vec!["division by zero"]);
        assert_eq!(check("expression", json!(["2", "3"]), json!(5)).1, vec!["operator expression expects 1 operands, got 2"]);
    }

    #[test]
    fn numeric_string_results_and_exponent_literals() {
        assert!(check("add", json!([1, 2]), json!(" 3 ")).0);
        assert!(check("divide", json!([1, 4]), num("2.5e-1")).0);
        assert!(check("multiply", json!([10, 10]), num("1e2")).0);
    }
}
