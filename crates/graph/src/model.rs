//! PredicateGraph 1.0.0 node types.
//!
//! Field names are the schema's own (decision D3). Every struct rejects unknown fields, as
//! the schema does; [`crate::load`] strips tolerated unknown keys first when a newer minor
//! version asks for forward compatibility (D11).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// The one schema version this crate writes.
pub const SCHEMA_VERSION: &str = "1.0.0";

/// A model output decomposed into typed nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PredicateGraph {
    /// Semver; only major 1 is accepted.
    pub schema_version: String,
    /// Identifier of the output this graph describes.
    pub output_id: String,
    /// The model output text; spans index into it.
    pub text: String,
    /// Named things and quantities.
    pub entities: Vec<Entity>,
    /// Atomic propositions.
    pub claims: Vec<Claim>,
    /// Explicit calculations.
    pub operations: Vec<Operation>,
    /// Tool / function calls.
    pub tool_calls: Vec<ToolCall>,
    /// Citations, each attached to a claim.
    pub citations: Vec<Citation>,
    /// Code snippets.
    pub code_blocks: Vec<CodeBlock>,
    /// Functional segments of the output.
    pub discourse_acts: Vec<DiscourseAct>,
    /// Request context (open object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
}

/// A char span `[start, end)` into [`PredicateGraph::text`].
///
/// The schema only requires non-negative integers, so `1.0` and values beyond `u64` are legal;
/// they are read exactly and saturate at `u64::MAX` (a lint then reports them out of range).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// Inclusive start.
    #[serde(deserialize_with = "de_offset")]
    pub start: u64,
    /// Exclusive end.
    #[serde(deserialize_with = "de_offset")]
    pub end: u64,
}

impl Span {
    /// Creates a span.
    pub const fn new(start: u64, end: u64) -> Self {
        Self { start, end }
    }

    /// The span as `usize` offsets (saturating on 32-bit targets).
    pub fn range(&self) -> (usize, usize) {
        (usize::try_from(self.start).unwrap_or(usize::MAX), usize::try_from(self.end).unwrap_or(usize::MAX))
    }
}

fn de_offset<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    use warrant_text::number::Sign;
    let n = serde_json::Number::deserialize(d)?;
    let text = n.to_string();
    let dec = warrant_text::Decimal::parse(&text)
        .map_err(|e| serde::de::Error::custom(format!("expected a non-negative integer, got {text} ({e})")))?;
    let v = dec.value();
    if !v.is_integer() || v.numer().sign() == Sign::Minus {
        return Err(serde::de::Error::custom(format!("expected a non-negative integer, got {text}")));
    }
    Ok(u64::try_from(v.to_integer()).unwrap_or(u64::MAX))
}

/// A named thing or quantity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Entity {
    /// `e<digits>`.
    pub id: String,
    /// Surface form.
    pub text: String,
    /// Free type string, e.g. `PERSON`, `MONEY`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Where it occurs.
    pub span: Span,
    /// Normalised values and other properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<Map<String, Value>>,
}

/// What kind of statement a claim is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Modality {
    /// States something as true.
    Factual,
    /// A judgement or preference.
    Opinion,
    /// True under a stated condition.
    Conditional,
    /// A supposition.
    Hypothetical,
    /// Tells the reader to do something.
    Instruction,
}

impl Modality {
    /// The schema's string for this modality.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Factual => "factual",
            Self::Opinion => "opinion",
            Self::Conditional => "conditional",
            Self::Hypothetical => "hypothetical",
            Self::Instruction => "instruction",
        }
    }
}

/// An atomic proposition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// `c<digits>`.
    pub id: String,
    /// The claim as stated.
    pub text: String,
    /// Kind of statement.
    pub modality: Modality,
    /// Subject domain, when clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Where it occurs.
    pub span: Span,
    /// Entities mentioned in the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_refs: Option<Vec<String>>,
    /// Free-form supporting evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<String>>,
}

/// An explicit calculation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// `op<digits>`.
    pub id: String,
    /// Free string, e.g. `arithmetic`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Operator name or symbol (see `result_correct`).
    pub operator: String,
    /// Input values, any JSON.
    pub operands: Vec<Value>,
    /// Stated result; the key is required, its value may be `null`.
    pub result: Value,
    /// Where it occurs.
    pub span: Span,
}

/// A tool / function call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// `tc<digits>`.
    pub id: String,
    /// Function name exactly as called.
    pub name: String,
    /// Arguments with their literal JSON types.
    pub arguments: Map<String, Value>,
    /// Where it occurs.
    pub span: Span,
}

/// Kind of citation source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SourceType {
    /// A URL.
    Url,
    /// A document name or id.
    Document,
    /// A bibliographic or bracketed reference.
    Reference,
}

/// Where a citation points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CitationSource {
    /// Source kind.
    #[serde(rename = "type")]
    pub kind: SourceType,
    /// URL, document id or reference text.
    pub value: String,
}

/// A citation attached to a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Citation {
    /// `cit<digits>`.
    pub id: String,
    /// The claim it supports.
    pub claim_id: String,
    /// Where it points.
    pub source: CitationSource,
    /// Where it occurs, if anywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

/// A code snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CodeBlock {
    /// `cb<digits>`.
    pub id: String,
    /// Language tag or detected language.
    pub language: String,
    /// Exact code.
    pub code: String,
    /// Where it occurs.
    pub span: Span,
}

/// Function of a discourse segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum DiscourseType {
    /// Opening salutation.
    Greeting,
    /// Recognises the user's situation or request.
    Acknowledgment,
    /// Clarifies or asks for clarification.
    Clarification,
    /// Explains.
    Explanation,
    /// Reasons step by step.
    Reasoning,
    /// States facts.
    Assertion,
    /// Tells the reader what to do.
    Instruction,
    /// Warns.
    Warning,
    /// Summarises.
    Summary,
    /// Closing formula.
    Closing,
}

impl DiscourseType {
    /// Every type, in schema order.
    pub const ALL: [Self; 10] = [
        Self::Greeting,
        Self::Acknowledgment,
        Self::Clarification,
        Self::Explanation,
        Self::Reasoning,
        Self::Assertion,
        Self::Instruction,
        Self::Warning,
        Self::Summary,
        Self::Closing,
    ];

    /// The schema's string for this type.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Greeting => "GREETING",
            Self::Acknowledgment => "ACKNOWLEDGMENT",
            Self::Clarification => "CLARIFICATION",
            Self::Explanation => "EXPLANATION",
            Self::Reasoning => "REASONING",
            Self::Assertion => "ASSERTION",
            Self::Instruction => "INSTRUCTION",
            Self::Warning => "WARNING",
            Self::Summary => "SUMMARY",
            Self::Closing => "CLOSING",
        }
    }

    /// Parses the schema string (exact, case-sensitive).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// A functional segment. It has no text field: its text is the graph text under its span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct DiscourseAct {
    /// `da<digits>`.
    pub id: String,
    /// Function of the segment.
    #[serde(rename = "type")]
    pub kind: DiscourseType,
    /// Where it occurs.
    pub span: Span,
    /// Claims made in this segment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_refs: Option<Vec<String>>,
    /// Nested discourse acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<String>>,
}

impl PredicateGraph {
    /// An empty graph over `text`.
    pub fn empty(output_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            schema_version: SCHEMA_VERSION.to_string(),
            output_id: output_id.into(),
            text: text.into(),
            entities: Vec::new(),
            claims: Vec::new(),
            operations: Vec::new(),
            tool_calls: Vec::new(),
            citations: Vec::new(),
            code_blocks: Vec::new(),
            discourse_acts: Vec::new(),
            context: None,
        }
    }

    /// `context.user_query`, when it is a string.
    pub fn user_query(&self) -> Option<&str> {
        self.context.as_ref()?.get("user_query")?.as_str()
    }

    /// `context.tools_available`, when it is an array (non-string entries are skipped).
    pub fn tools_available(&self) -> Option<impl Iterator<Item = &str>> {
        let arr = self.context.as_ref()?.get("tools_available")?.as_array()?;
        Some(arr.iter().filter_map(Value::as_str))
    }

    /// The text under a span, clamped to the text (§2.3).
    pub fn slice(&self, span: Span) -> &str {
        let (s, e) = span.range();
        warrant_text::clamp_slice(&self.text, s, e)
    }
}
