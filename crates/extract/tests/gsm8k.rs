//! GSM8K: every `<<expr=result>>` annotation in the model solutions becomes an operation with
//! the right operator(s), operands and stated result, and `result_correct` agrees with exact
//! arithmetic on each. Gold annotations must all be correct (zero false positives).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use warrant_cpl::Diag;
use warrant_cpl::arithmetic::result_correct;
use warrant_extract::{Answer, Options, extract};
use warrant_testkit::{data_dir, read_jsonl};
use warrant_text::arith;
use warrant_text::number::{BigRational, round_half_even};

static ANN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<<([^<>\n]{1,512})>>").unwrap());
const VARIANTS: [&str; 4] = ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"];

/// The test's own oracle for D2: exact, or equal after rounding to the result's decimals, or
/// within 1e-9 relative error. Returns (correct, only_by_tolerance).
fn oracle(expr: &str, result: &str) -> Option<(bool, bool)> {
    let v = arith::evaluate(expr).ok()?;
    let lit = result.trim().replace(',', "");
    let lit = if lit.starts_with('.') { format!("0{lit}") } else { lit };
    let d = warrant_text::Decimal::parse(lit.trim_end_matches('.')).ok()?;
    let r = d.value().clone();
    let exact = r == v || r == round_half_even(&v, d.frac_digits());
    let zero = BigRational::from_integer(0.into());
    let abs = |x: BigRational| if x < zero { -x } else { x };
    let tol = v != zero && abs(&r - &v) * BigRational::from_integer(1_000_000_000u64.into()) <= abs(v.clone());
    Some((exact || tol, !exact && tol))
}

#[derive(Default, Debug)]
struct Tally {
    annotations: usize,
    extracted: usize,
    wrong: usize,
    float_artefacts: usize,
    unevaluable: usize,
}

fn check_solution(text: &str, id: String, t: &mut Tally) {
    let g = extract(&Answer { text: text.to_string(), ..Answer::default() }, &Options { output_id: Some(id.clone()) }).graph;
    common::assert_faithful(&g);
    let ops: Vec<_> = g.operations.iter().filter(|o| g.slice(o.span).starts_with("<<")).collect();
    let mut k = 0;
    for m in ANN.captures_iter(text) {
        t.annotations += 1;
        let inner = m.get(1).unwrap().as_str();
        let Some((expr, result)) = warrant_extract::split_equation(inner) else {
            t.unevaluable += 1;
            continue;
        };
        let Some((correct, by_tolerance)) = oracle(expr, result) else {
            t.unevaluable += 1;
            continue;
        };
        let op = ops.get(k).unwrap_or_else(|| panic!("{id}: annotation {inner:?} was not extracted"));
        k += 1;
        assert_eq!(g.slice(op.span), m.get(0).unwrap().as_str(), "{id}");
        t.extracted += 1;
        // Operator(s) and operands as written.
        match arith::flat_operands(expr.trim()).filter(|_| !expr.contains('%')) {
            Some((sym, operands)) if operands.len() == 2 || (operands.len() > 2 && !matches!(sym, '/' | '^')) => {
                let want = match sym {
                    '+' => "add",
                    '-' => "subtract",
                    '*' => "multiply",
                    '/' => "divide",
                    _ => "power",
                };
                assert_eq!(op.operator, want, "{id}: {inner}");
                let got: Vec<BigRational> =
                    op.operands.iter().map(|v| warrant_text::Decimal::parse(&v.to_string()).unwrap().into_value()).collect();
                let exp: Vec<BigRational> =
                    operands.iter().map(|o| warrant_text::Decimal::parse(o).unwrap().into_value()).collect();
                assert_eq!(got, exp, "{id}: {inner}");
            }
            _ => {
                assert_eq!(op.operator, "expression", "{id}: {inner}");
                let written: String = expr.chars().filter(|c| !c.is_whitespace() && !matches!(c, '$' | '€' | '£')).collect();
                assert_eq!(op.operands, vec![Value::String(written)], "{id}");
            }
        }
        let stated = warrant_text::Decimal::parse(&op.result.to_string()).unwrap().into_value();
        let lit = result.trim().replace(',', "");
        let lit = if lit.starts_with('.') { format!("0{lit}") } else { lit };
        assert_eq!(stated, warrant_text::Decimal::parse(lit.trim_end_matches('.')).unwrap().into_value(), "{id}: {inner}");
        // result_correct agrees with exact arithmetic.
        let ok = result_correct(op, &mut Diag::none());
        assert_eq!(ok, correct, "{id}: {inner}");
        if !correct {
            t.wrong += 1;
        }
        if by_tolerance {
            t.float_artefacts += 1;
        }
    }
}

#[test]
fn model_solution_annotations_become_checked_operations() {
    let Some(dir) = data_dir("gsm8k") else { return };
    let rows = read_jsonl(&dir.join("example_model_solutions.jsonl"));
    assert_eq!(rows.len(), 1319);
    let mut total = Tally::default();
    for v in VARIANTS {
        let mut t = Tally::default();
        for (i, r) in rows.iter().enumerate() {
            check_solution(r[v]["solution"].as_str().unwrap(), format!("{v}/{i}"), &mut t);
        }
        eprintln!("gsm8k {v}: {t:?}");
        total.annotations += t.annotations;
        total.extracted += t.extracted;
        total.wrong += t.wrong;
        total.float_artefacts += t.float_artefacts;
        total.unevaluable += t.unevaluable;
    }
    let recall = total.extracted as f64 / total.annotations as f64;
    let arithmetic_recall = total.extracted as f64 / (total.annotations - total.unevaluable) as f64;
    eprintln!(
        "gsm8k model solutions: {total:?}, recall {recall:.5} of all annotations, {arithmetic_recall:.5} of arithmetic ones"
    );
    // Every annotation that is arithmetic on both sides became an operation; the rest hold
    // variables, clock times or units (`x+56=86`, `8:40-6:00=2:20`, `500/month*12=6000`).
    assert_eq!(total.extracted + total.unevaluable, total.annotations);
    assert_eq!(arithmetic_recall, 1.0);
    assert!(recall >= 0.997, "recall {recall}");
    assert!(total.unevaluable <= 40, "{total:?}");
    assert!(total.wrong > 0 && total.wrong < 100, "a handful of genuine slips, got {}", total.wrong);
    assert!(total.float_artefacts > 0, "float artefacts exist and pass under D2");
}

#[test]
fn gold_annotations_are_all_correct() {
    let Some(dir) = data_dir("gsm8k") else { return };
    let rows = read_jsonl(&dir.join("test.jsonl"));
    let mut t = Tally::default();
    for (i, r) in rows.iter().enumerate() {
        check_solution(r["answer"].as_str().unwrap(), format!("gold/{i}"), &mut t);
    }
    eprintln!("gsm8k gold: {t:?}");
    assert_eq!(t.annotations, 4282, "{t:?}");
    assert_eq!(t.wrong, 0, "zero false positives on gold");
    // One gold annotation states a fraction as its result (`<<3/4=3/4>>`): not a number.
    assert_eq!(t.unevaluable, 1, "{t:?}");
    assert_eq!(t.extracted + t.unevaluable, t.annotations);
}

#[test]
fn stripped_solutions_still_yield_their_equations() {
    let Some(dir) = data_dir("gsm8k") else { return };
    let rows = read_jsonl(&dir.join("test.jsonl"));
    let (mut found, mut flagged) = (0, 0);
    for (i, r) in rows.iter().enumerate() {
        let stripped = ANN.replace_all(r["answer"].as_str().unwrap(), "").to_string();
        let g =
            extract(&Answer { text: stripped, ..Answer::default() }, &Options { output_id: Some(format!("stripped/{i}")) }).graph;
        common::assert_faithful(&g);
        found += g.operations.len();
        flagged += g.operations.iter().filter(|o| !result_correct(o, &mut Diag::none())).count();
    }
    eprintln!("gsm8k gold, annotations stripped: {found} operations found in prose, {flagged} flagged");
    assert!(found > 3000, "the prose equations are found without annotations: {found}");
    assert!(flagged * 100 <= found, "few false flags on gold prose: {flagged}/{found}");
}
