//! The check use case as callers see it: typed errors with their kind and location, a batch
//! whose bad items are reported in place, and the store found the way every shell finds it.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use serde_json::{Value, json};
use warrant::check::{CheckRequest, CheckResponse, Session, check};
use warrant::inputs::{AnswerInput, PackRef, SourceInput};
use warrant::{Env, ErrorKind};

fn source(id: &str, text: &str) -> SourceInput {
    SourceInput { id: id.into(), text: text.into(), version: None, title: None }
}

fn request(answer: &str) -> CheckRequest {
    CheckRequest {
        answer: Some(AnswerInput::Text(answer.into())),
        sources: Some(vec![source("plans", "The Team plan costs $12 per user per month.")]),
        ..CheckRequest::default()
    }
}

#[test]
fn one_answer_gives_its_report() {
    let CheckResponse::Report(r) = check(&Env::new(), &request("The Team plan costs $15 per user per month."), 1 << 20).unwrap()
    else {
        panic!("a report")
    };
    assert_eq!(r.summary.contradicted, 1, "{:?}", r.summary);
    assert_eq!(r.gate, warrant::Gate::Block);
}

#[test]
fn errors_carry_their_kind_and_where() {
    let env = Env::new();
    let both = CheckRequest { items: Some(vec![]), ..request("x") };
    assert_eq!(check(&env, &both, 1 << 20).unwrap_err().kind, ErrorKind::Usage);

    let empty = check(&env, &request("   "), 1 << 20).unwrap_err();
    assert_eq!((empty.kind, empty.location.pointer.as_deref()), (ErrorKind::Input, Some("/answer")));

    let unknown = CheckRequest { packs: Some(vec![PackRef::Id("no.such.pack".into())]), ..request("x") };
    let e = check(&env, &unknown, 1 << 20).unwrap_err();
    assert_eq!((e.kind, e.location.pointer.as_deref()), (ErrorKind::Input, Some("/packs/0")));
    assert!(e.message.contains("unknown pack 'no.such.pack'"), "{e}");

    let tools = CheckRequest { tools: Some(json!({"not": "a list"})), ..request("x") };
    let e = check(&env, &tools, 1 << 20).unwrap_err();
    assert!(e.location.pointer.as_deref().is_some_and(|p| p.starts_with("/tools")), "{e:?}");

    let big = check(&env, &request(&"word ".repeat(100)), 64).unwrap_err();
    assert_eq!(big.kind, ErrorKind::Input);
    assert!(big.message.contains("limit is 64 bytes"), "{big}");
}

#[test]
fn a_batch_reports_bad_items_in_place_and_checks_the_rest() {
    let items = vec![
        json!({"id": "a", "answer": "The Team plan costs $12 per user per month."}),
        json!({"id": "b"}),
        json!({"id": "c", "answer": "Paris is in France.", "sources": [{"id": "atlas", "text": "Paris is in France."}]}),
        json!("not an object"),
    ];
    let req = CheckRequest { items: Some(items), sources: request("x").sources, ..CheckRequest::default() };
    let CheckResponse::Batch(b) = check(&Env::new(), &req, 1 << 20).unwrap() else { panic!("a batch") };
    assert_eq!(b.items.len(), 4);
    assert_eq!(b.items[0]["output_id"], "a");
    assert_eq!(b.items[0]["summary"]["supported"], 1);
    assert_eq!((b.items[1]["id"].clone(), b.items[1]["index"].clone()), (json!("b"), json!(1)));
    assert!(b.items[1]["error"].as_str().unwrap().starts_with("/answer"), "{}", b.items[1]);
    assert_eq!(b.items[2]["claims"][0]["support_edges"][0]["source_id"], "atlas");
    assert_eq!(b.items[3]["id"], Value::Null);
}

#[test]
fn a_stream_keeps_order_and_turns_bad_lines_into_their_errors() {
    let session = Session::new(&Env::new(), &request("x"), None).unwrap();
    let lines = [
        r#"{"id": "1", "answer": "The Team plan costs $12 per user per month."}"#.to_string(),
        "{broken".to_string(),
        r#"{"id": "3", "answer": "The Team plan costs $15 per user per month."}"#.to_string(),
    ];
    let mut it = lines.iter().enumerate().map(|(i, l)| (i + 1, Ok(l.clone())));
    let mut seen = Vec::new();
    let r: Result<(), ()> = session.stream(
        || Ok(it.next()),
        |n, r| (n, r.map(|rep| rep.gate).map_err(|e| e.message)),
        |x| {
            seen.push(x);
            Ok(())
        },
    );
    r.unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0], (1, Ok(warrant::Gate::Allow)));
    assert!(seen[1].1.as_ref().is_err_and(|m| m.starts_with("invalid JSON")));
    assert_eq!(seen[2], (3, Ok(warrant::Gate::Block)));
}

#[test]
fn a_source_title_names_what_its_sentences_speak_of() {
    let text = "The tech giant is the largest Internet retailer in the world as measured by revenue.";
    let claim = "Amazon is the largest Internet retailer in the world.";
    let statuses = |title: Option<&str>| {
        let req = CheckRequest {
            answer: Some(AnswerInput::Text(claim.into())),
            sources: Some(vec![SourceInput { title: title.map(str::to_string), ..source("e1", text) }]),
            ..CheckRequest::default()
        };
        let CheckResponse::Report(r) = check(&Env::new(), &req, 1 << 20).unwrap() else { panic!("a report") };
        (r.summary.supported, r.summary.unsupported)
    };
    assert_eq!(statuses(Some("Amazon (company)")), (1, 0));
    assert_eq!(statuses(None), (0, 1), "without the title nothing names Amazon");
    // A batch line's source takes a title too.
    let items = vec![json!({"id": "a", "answer": claim, "sources": [{"id": "e1", "text": text, "title": "Amazon (company)"}]})];
    let CheckResponse::Batch(b) =
        check(&Env::new(), &CheckRequest { items: Some(items), ..CheckRequest::default() }, 1 << 20).unwrap()
    else {
        panic!("a batch")
    };
    assert_eq!(b.items[0]["summary"]["supported"], 1, "{}", b.items[0]);
}
