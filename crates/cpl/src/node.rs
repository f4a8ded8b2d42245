//! Borrowed views of graph nodes as evaluation values.

use std::borrow::Cow;

use serde_json::{Map, Value};
use warrant_graph::{Citation, Claim, CodeBlock, DiscourseAct, Entity, Operation, Span, ToolCall};

use crate::ast::Collection;

/// One node of the graph, with its position in its collection.
#[derive(Debug, Clone, Copy)]
pub enum NodeRef<'g> {
    /// An entity.
    Entity(usize, &'g Entity),
    /// A claim.
    Claim(usize, &'g Claim),
    /// An operation.
    Operation(usize, &'g Operation),
    /// A tool call.
    ToolCall(usize, &'g ToolCall),
    /// A citation.
    Citation(usize, &'g Citation),
    /// A code block.
    CodeBlock(usize, &'g CodeBlock),
    /// A discourse act.
    DiscourseAct(usize, &'g DiscourseAct),
}

impl<'g> NodeRef<'g> {
    /// The node's id.
    pub fn id(&self) -> &'g str {
        match self {
            Self::Entity(_, n) => &n.id,
            Self::Claim(_, n) => &n.id,
            Self::Operation(_, n) => &n.id,
            Self::ToolCall(_, n) => &n.id,
            Self::Citation(_, n) => &n.id,
            Self::CodeBlock(_, n) => &n.id,
            Self::DiscourseAct(_, n) => &n.id,
        }
    }

    /// The collection it belongs to.
    pub fn collection(&self) -> Collection {
        match self {
            Self::Entity(..) => Collection::Entities,
            Self::Claim(..) => Collection::Claims,
            Self::Operation(..) => Collection::Operations,
            Self::ToolCall(..) => Collection::ToolCalls,
            Self::Citation(..) => Collection::Citations,
            Self::CodeBlock(..) => Collection::CodeBlocks,
            Self::DiscourseAct(..) => Collection::DiscourseActs,
        }
    }

    /// A top-level field as JSON, for `compare` paths. Typed fields are converted on demand
    /// (small); JSON-valued fields are borrowed.
    pub fn field(&self, name: &str) -> Option<Cow<'g, Value>> {
        fn s(v: &str) -> Option<Cow<'static, Value>> {
            Some(Cow::Owned(Value::String(v.to_string())))
        }
        fn span(sp: Span) -> Option<Cow<'static, Value>> {
            let mut m = Map::new();
            m.insert("start".into(), Value::from(sp.start));
            m.insert("end".into(), Value::from(sp.end));
            Some(Cow::Owned(Value::Object(m)))
        }
        fn list(v: &Option<Vec<String>>) -> Option<Cow<'static, Value>> {
            v.as_ref().map(|l| Cow::Owned(Value::Array(l.iter().cloned().map(Value::String).collect())))
        }
        match (self, name) {
            (_, "id") => s(self.id()),
            (Self::Entity(_, n), "text") => s(&n.text),
            (Self::Entity(_, n), "type") => s(&n.kind),
            (Self::Entity(_, n), "span") => span(n.span),
            (Self::Entity(_, n), "attributes") => n.attributes.as_ref().map(|m| Cow::Owned(Value::Object(m.clone()))),
            (Self::Claim(_, n), "text") => s(&n.text),
            (Self::Claim(_, n), "modality") => s(n.modality.as_str()),
            (Self::Claim(_, n), "domain") => n.domain.as_deref().and_then(s),
            (Self::Claim(_, n), "span") => span(n.span),
            (Self::Claim(_, n), "entity_refs") => list(&n.entity_refs),
            (Self::Claim(_, n), "evidence") => list(&n.evidence),
            (Self::Operation(_, n), "type") => s(&n.kind),
            (Self::Operation(_, n), "operator") => s(&n.operator),
            (Self::Operation(_, n), "operands") => Some(Cow::Owned(Value::Array(n.operands.clone()))),
            (Self::Operation(_, n), "result") => Some(Cow::Borrowed(&n.result)),
            (Self::Operation(_, n), "span") => span(n.span),
            (Self::ToolCall(_, n), "name") => s(&n.name),
            (Self::ToolCall(_, n), "arguments") => Some(Cow::Owned(Value::Object(n.arguments.clone()))),
            (Self::ToolCall(_, n), "span") => span(n.span),
            (Self::Citation(_, n), "claim_id") => s(&n.claim_id),
            (Self::Citation(_, n), "source") => {
                let mut m = Map::new();
                m.insert("type".into(), serde_json::to_value(n.source.kind).unwrap_or(Value::Null));
                m.insert("value".into(), Value::String(n.source.value.clone()));
                Some(Cow::Owned(Value::Object(m)))
            }
            (Self::Citation(_, n), "span") => n.span.and_then(span),
            (Self::CodeBlock(_, n), "language") => s(&n.language),
            (Self::CodeBlock(_, n), "code") => s(&n.code),
            (Self::CodeBlock(_, n), "span") => span(n.span),
            (Self::DiscourseAct(_, n), "type") => s(n.kind.as_str()),
            (Self::DiscourseAct(_, n), "span") => span(n.span),
            (Self::DiscourseAct(_, n), "claim_refs") => list(&n.claim_refs),
            (Self::DiscourseAct(_, n), "children") => list(&n.children),
            _ => None,
        }
    }

    /// Walks a field path below this node: the first segment names a field, later segments
    /// walk object keys, and ASCII-digit segments index arrays.
    pub fn resolve(&self, segments: &[String]) -> Option<Cow<'g, Value>> {
        let (first, rest) = segments.split_first()?;
        // Walk borrowed JSON without cloning where the field itself is borrowed.
        let mut cur = match (self, first.as_str()) {
            (Self::ToolCall(_, n), "arguments") => return walk_map(&n.arguments, rest),
            (Self::Entity(_, n), "attributes") => return walk_map(n.attributes.as_ref()?, rest),
            (Self::Operation(_, n), "operands") => return walk_array(&n.operands, rest),
            _ => self.field(first)?,
        };
        for seg in rest {
            cur = match cur {
                Cow::Borrowed(v) => Cow::Borrowed(step(v, seg)?),
                Cow::Owned(v) => Cow::Owned(step(&v, seg)?.clone()),
            };
        }
        Some(cur)
    }
}

fn step<'v>(v: &'v Value, seg: &str) -> Option<&'v Value> {
    match v {
        Value::Object(m) => m.get(seg),
        Value::Array(a) if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) => a.get(seg.parse::<usize>().ok()?),
        _ => None,
    }
}

fn walk_map<'g>(m: &'g Map<String, Value>, rest: &[String]) -> Option<Cow<'g, Value>> {
    let Some((first, rest)) = rest.split_first() else {
        return Some(Cow::Owned(Value::Object(m.clone())));
    };
    let mut cur = m.get(first)?;
    for seg in rest {
        cur = step(cur, seg)?;
    }
    Some(Cow::Borrowed(cur))
}

fn walk_array<'g>(a: &'g [Value], rest: &[String]) -> Option<Cow<'g, Value>> {
    let Some((first, rest)) = rest.split_first() else {
        return Some(Cow::Owned(Value::Array(a.to_vec())));
    };
    if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut cur = a.get(first.parse::<usize>().ok()?)?;
    for seg in rest {
        cur = step(cur, seg)?;
    }
    Some(Cow::Borrowed(cur))
}
