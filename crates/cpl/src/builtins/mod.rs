//! The 17 built-in predicates (spec §4, D2), Warrant's own (`arguments_grounded`, the full
//! schema checks `arguments_conform` and `no_null_optional_arguments`, and the verification
//! predicates `is_supported`, `is_contradicted`, `is_unverified`), and their signatures.

pub mod arithmetic;
pub mod code;
pub mod grounding;
pub mod tone;
pub mod tools;
pub mod verification;

use std::cell::OnceCell;

use warrant_graph::{GraphIndex, PredicateGraph};

use crate::ast::{Collection, Kinds};
use crate::node::NodeRef;
use code::{Analysis, CodeConfig};
use tone::ToneLexicon;
use tools::ToolView;

/// Collects diagnostics only when someone will read them, so the hot path formats nothing.
pub struct Diag<'a>(Option<&'a mut Vec<String>>);

impl<'a> Diag<'a> {
    /// Discards diagnostics.
    pub fn none() -> Self {
        Self(None)
    }
    /// Appends diagnostics to `out`.
    pub fn collect(out: &'a mut Vec<String>) -> Self {
        Self(Some(out))
    }
    /// Records a diagnostic, formatting it only when collecting.
    pub fn push(&mut self, f: impl FnOnce() -> String) {
        if let Some(v) = self.0.as_deref_mut() {
            v.push(f());
        }
    }
    /// True when diagnostics are being collected.
    pub fn wants(&self) -> bool {
        self.0.is_some()
    }
}

/// A built-in predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Builtin {
    ArgumentsMatchSchema,
    HasRequiredArguments,
    NoExtraArguments,
    ToolIsAvailable,
    IsFactual,
    HasCitation,
    HasValidSource,
    RefsExistingClaim,
    ContainsEval,
    VulnerableToInjection,
    ContainsSecrets,
    UsesSafeLibraries,
    HasDiscourseType,
    IsProfessionalTone,
    HasType,
    ResultCorrect,
    IsSafe,
    ArgumentsGrounded,
    IsSupported,
    IsContradicted,
    IsUnverified,
    ArgumentsConform,
    NoNullOptionalArguments,
}

const TC: Kinds = Collection::ToolCalls.kind();
const CLAIM: Kinds = Collection::Claims.kind();
const CIT: Kinds = Collection::Citations.kind();
const CB: Kinds = Collection::CodeBlocks.kind();
const DA: Kinds = Collection::DiscourseActs.kind();
const ENT: Kinds = Collection::Entities.kind();
const OP: Kinds = Collection::Operations.kind();
const LIT: Kinds = Kinds::LITERAL;
const CLAIM_OR_DA: Kinds = CLAIM.or(DA);

impl Builtin {
    /// Every built-in, in the spec's order.
    pub const ALL: [Self; 23] = [
        Self::ArgumentsMatchSchema,
        Self::HasRequiredArguments,
        Self::NoExtraArguments,
        Self::ToolIsAvailable,
        Self::IsFactual,
        Self::HasCitation,
        Self::HasValidSource,
        Self::RefsExistingClaim,
        Self::ContainsEval,
        Self::VulnerableToInjection,
        Self::ContainsSecrets,
        Self::UsesSafeLibraries,
        Self::HasDiscourseType,
        Self::IsProfessionalTone,
        Self::HasType,
        Self::ResultCorrect,
        Self::IsSafe,
        Self::ArgumentsGrounded,
        Self::IsSupported,
        Self::IsContradicted,
        Self::IsUnverified,
        Self::ArgumentsConform,
        Self::NoNullOptionalArguments,
    ];

    /// The predicate's name in CPL.
    pub const fn name(self) -> &'static str {
        match self {
            Self::ArgumentsMatchSchema => "arguments_match_schema",
            Self::HasRequiredArguments => "has_required_arguments",
            Self::NoExtraArguments => "no_extra_arguments",
            Self::ToolIsAvailable => "tool_is_available",
            Self::IsFactual => "is_factual",
            Self::HasCitation => "has_citation",
            Self::HasValidSource => "has_valid_source",
            Self::RefsExistingClaim => "refs_existing_claim",
            Self::ContainsEval => "contains_eval",
            Self::VulnerableToInjection => "vulnerable_to_injection",
            Self::ContainsSecrets => "contains_secrets",
            Self::UsesSafeLibraries => "uses_safe_libraries",
            Self::HasDiscourseType => "has_discourse_type",
            Self::IsProfessionalTone => "is_professional_tone",
            Self::HasType => "has_type",
            Self::ResultCorrect => "result_correct",
            Self::IsSafe => "is_safe",
            Self::ArgumentsGrounded => "arguments_grounded",
            Self::IsSupported => "is_supported",
            Self::IsContradicted => "is_contradicted",
            Self::IsUnverified => "is_unverified",
            Self::ArgumentsConform => "arguments_conform",
            Self::NoNullOptionalArguments => "no_null_optional_arguments",
        }
    }

    /// Looks a built-in up by name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    /// What each argument position accepts.
    pub const fn params(self) -> &'static [Kinds] {
        match self {
            Self::ArgumentsMatchSchema
            | Self::HasRequiredArguments
            | Self::NoExtraArguments
            | Self::ToolIsAvailable
            | Self::ArgumentsGrounded
            | Self::ArgumentsConform
            | Self::NoNullOptionalArguments => &[TC],
            Self::IsFactual | Self::HasCitation | Self::IsSupported | Self::IsContradicted | Self::IsUnverified => &[CLAIM],
            Self::HasValidSource | Self::RefsExistingClaim => &[CIT],
            Self::ContainsEval | Self::VulnerableToInjection | Self::ContainsSecrets | Self::UsesSafeLibraries | Self::IsSafe => {
                &[CB]
            }
            Self::HasDiscourseType => &[DA, LIT],
            Self::IsProfessionalTone => &[CLAIM_OR_DA],
            Self::HasType => &[ENT, LIT],
            Self::ResultCorrect => &[OP],
        }
    }
}

/// Settings of the built-in detectors.
#[derive(Debug, Clone, Default)]
pub struct PredicateConfig {
    /// Code-block detectors.
    pub code: CodeConfig,
    /// Tone lexicons.
    pub tone: ToneLexicon,
}

/// An argument value at evaluation time.
#[derive(Debug, Clone, Copy)]
pub enum Val<'a> {
    /// A graph node.
    Node(NodeRef<'a>),
    /// A string literal.
    Lit(&'a str),
}

/// Everything a predicate may consult, built once per graph evaluation.
pub struct PredicateContext<'a> {
    /// The graph under evaluation.
    pub graph: &'a PredicateGraph,
    /// Id lookups.
    pub index: GraphIndex<'a>,
    /// Tool schemas.
    pub tools: ToolView<'a>,
    /// Detector settings.
    pub config: &'a PredicateConfig,
    code: Vec<OnceCell<Analysis>>,
    grounding: OnceCell<grounding::GroundingIndex>,
}

impl<'a> PredicateContext<'a> {
    /// Prepares a context for `graph`.
    pub fn new(graph: &'a PredicateGraph, tools: ToolView<'a>, config: &'a PredicateConfig) -> Self {
        Self {
            graph,
            index: GraphIndex::new(graph),
            tools,
            config,
            code: (0..graph.code_blocks.len()).map(|_| OnceCell::new()).collect(),
            grounding: OnceCell::new(),
        }
    }

    fn analysis(&self, i: usize) -> Option<&Analysis> {
        let cell = self.code.get(i)?;
        let cb = self.graph.code_blocks.get(i)?;
        Some(cell.get_or_init(|| Analysis::new(&cb.code, &cb.language)))
    }
}

impl Builtin {
    /// Evaluates the predicate. Argument kinds were checked at load time; a mismatch here
    /// (impossible through the parser) is false with a diagnostic, never a panic.
    pub fn eval(self, args: &[Val<'_>], cx: &PredicateContext<'_>, diag: &mut Diag<'_>) -> bool {
        use NodeRef as N;
        let node = args.first().and_then(|a| match a {
            Val::Node(n) => Some(*n),
            Val::Lit(_) => None,
        });
        let lit = args.get(1).and_then(|a| match a {
            Val::Lit(s) => Some(*s),
            Val::Node(_) => None,
        });
        match (self, node) {
            (Self::ArgumentsMatchSchema, Some(N::ToolCall(_, tc))) => tools::arguments_match_schema(&cx.tools, tc, diag),
            (Self::HasRequiredArguments, Some(N::ToolCall(_, tc))) => tools::has_required_arguments(&cx.tools, tc, diag),
            (Self::NoExtraArguments, Some(N::ToolCall(_, tc))) => tools::no_extra_arguments(&cx.tools, tc, diag),
            (Self::ToolIsAvailable, Some(N::ToolCall(_, tc))) => tools::tool_is_available(cx.graph, tc, diag),
            (Self::ArgumentsConform, Some(N::ToolCall(_, tc))) => tools::conform::arguments_conform(&cx.tools, tc, diag),
            (Self::NoNullOptionalArguments, Some(N::ToolCall(_, tc))) => {
                tools::conform::no_null_optional_arguments(&cx.tools, tc, diag)
            }
            (Self::ArgumentsGrounded, Some(N::ToolCall(_, tc))) => {
                grounding::arguments_grounded(cx.grounding.get_or_init(|| grounding::GroundingIndex::new(cx.graph)), tc, diag)
            }
            (Self::IsFactual, Some(N::Claim(_, c))) => c.modality == warrant_graph::Modality::Factual,
            (Self::IsSupported, Some(N::Claim(_, c))) => verification::has_status(cx.graph, c, "supported", diag),
            (Self::IsContradicted, Some(N::Claim(_, c))) => verification::has_status(cx.graph, c, "contradicted", diag),
            (Self::IsUnverified, Some(N::Claim(_, c))) => verification::is_unverified(cx.graph, c, diag),
            (Self::HasCitation, Some(N::Claim(_, c))) => {
                let ok = cx.index.is_cited(&c.id);
                if !ok {
                    diag.push(|| format!("no citation references claim {}", c.id));
                }
                ok
            }
            (Self::HasValidSource, Some(N::Citation(_, cit))) => {
                let ok = !cit.source.value.trim().is_empty();
                if !ok {
                    diag.push(|| format!("citation {} has an empty source value", cit.id));
                }
                ok
            }
            (Self::RefsExistingClaim, Some(N::Citation(_, cit))) => {
                let ok = cx.index.has_claim(&cit.claim_id);
                if !ok {
                    diag.push(|| format!("citation {} references unknown claim {}", cit.id, cit.claim_id));
                }
                ok
            }
            (Self::ContainsEval, Some(N::CodeBlock(i, _))) => finding(cx.analysis(i).and_then(Analysis::eval_finding), diag),
            (Self::VulnerableToInjection, Some(N::CodeBlock(i, _))) => {
                finding(cx.analysis(i).and_then(Analysis::injection_finding), diag)
            }
            (Self::ContainsSecrets, Some(N::CodeBlock(i, cb))) => {
                finding(cx.analysis(i).and_then(|a| a.secret_finding(&cb.code, &cx.config.code)), diag)
            }
            (Self::UsesSafeLibraries, Some(N::CodeBlock(i, _))) => {
                !finding(cx.analysis(i).and_then(|a| a.import_finding(&cx.config.code)), diag)
            }
            (Self::IsSafe, Some(N::CodeBlock(i, cb))) => {
                let Some(a) = cx.analysis(i) else { return false };
                let found =
                    a.eval_finding().or_else(|| a.injection_finding()).or_else(|| a.secret_finding(&cb.code, &cx.config.code));
                !finding(found, diag)
            }
            (Self::HasDiscourseType, Some(N::DiscourseAct(_, da))) => lit.is_some_and(|t| da.kind.as_str() == t),
            (Self::HasType, Some(N::Entity(_, e))) => lit.is_some_and(|t| e.kind == t),
            (Self::IsProfessionalTone, Some(n @ (N::Claim(..) | N::DiscourseAct(..)))) => {
                let text = match n {
                    N::Claim(_, c) => c.text.as_str(),
                    N::DiscourseAct(_, da) => cx.graph.slice(da.span),
                    _ => "",
                };
                match cx.config.tone.find(text) {
                    None => true,
                    Some((rule, m)) => {
                        diag.push(|| format!("unprofessional language: {rule} ('{m}')"));
                        false
                    }
                }
            }
            (Self::ResultCorrect, Some(N::Operation(_, op))) => arithmetic::result_correct(op, diag),
            (b, _) => {
                diag.push(|| format!("{} received an argument of the wrong kind", b.name()));
                false
            }
        }
    }
}

/// Records a detector finding; true when there was one.
fn finding(f: Option<&str>, diag: &mut Diag<'_>) -> bool {
    match f {
        Some(msg) => {
            diag.push(|| msg.to_string());
            true
        }
        None => false,
    }
}
