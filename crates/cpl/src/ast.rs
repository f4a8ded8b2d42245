//! The compiled form of a CPL expression.
//!
//! Policies are parsed once ([`crate::parse`]) into this tree: variables are resolved to
//! frame slots, predicate names to built-ins or custom-predicate indices, and argument kinds
//! are checked. Evaluation never looks at JSON again.

use serde_json::Value;

use crate::builtins::Builtin;

/// The seven top-level node collections a quantifier can range over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    /// `entities`
    Entities,
    /// `claims`
    Claims,
    /// `operations`
    Operations,
    /// `tool_calls`
    ToolCalls,
    /// `citations`
    Citations,
    /// `code_blocks`
    CodeBlocks,
    /// `discourse_acts`
    DiscourseActs,
}

impl Collection {
    /// Every collection, in graph order.
    pub const ALL: [Self; 7] =
        [Self::Entities, Self::Claims, Self::Operations, Self::ToolCalls, Self::Citations, Self::CodeBlocks, Self::DiscourseActs];

    /// The collection's key in a PredicateGraph.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Entities => "entities",
            Self::Claims => "claims",
            Self::Operations => "operations",
            Self::ToolCalls => "tool_calls",
            Self::Citations => "citations",
            Self::CodeBlocks => "code_blocks",
            Self::DiscourseActs => "discourse_acts",
        }
    }

    /// Parses a collection key.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The kind of node its elements are.
    pub const fn kind(self) -> Kinds {
        Kinds(1 << self as u8)
    }

    /// Singular noun for messages.
    pub const fn noun(self) -> &'static str {
        match self {
            Self::Entities => "entity",
            Self::Claims => "claim",
            Self::Operations => "operation",
            Self::ToolCalls => "tool_call",
            Self::Citations => "citation",
            Self::CodeBlocks => "code_block",
            Self::DiscourseActs => "discourse_act",
        }
    }
}

/// A set of argument kinds: node kinds (one bit per [`Collection`]) and the string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kinds(pub u8);

impl Kinds {
    /// A string literal.
    pub const LITERAL: Self = Self(1 << 7);
    /// Any node.
    pub const ANY_NODE: Self = Self(0x7f);
    /// Anything (an unconstrained custom-predicate parameter).
    pub const ANY: Self = Self(0xff);
    /// Nothing: an over-constrained parameter.
    pub const NONE: Self = Self(0);

    /// Union.
    pub const fn or(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
    /// Intersection.
    pub const fn and(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }
    /// True when every kind in `self` is in `other`.
    pub const fn within(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    /// Human-readable list, e.g. `claim or discourse_act`.
    pub fn describe(self) -> String {
        if self == Self::ANY {
            return "anything".into();
        }
        let mut parts: Vec<&str> = Collection::ALL.iter().filter(|c| self.0 & c.kind().0 != 0).map(|c| c.noun()).collect();
        if self.0 & Self::LITERAL.0 != 0 {
            parts.push("string literal");
        }
        if parts.is_empty() {
            return "nothing".into();
        }
        parts.join(" or ")
    }
}

/// Comparison operators of `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Parses the schema's operator string.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "==" => Self::Eq,
            "!=" => Self::Ne,
            "<" => Self::Lt,
            "<=" => Self::Le,
            ">" => Self::Gt,
            ">=" => Self::Ge,
            _ => return None,
        })
    }

    /// The operator as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
        }
    }
}

/// A predicate or field argument: a frame slot, or a string literal (D5).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A quantifier variable or custom-predicate parameter.
    Var {
        /// Name as written.
        name: String,
        /// Slot in the current frame.
        slot: usize,
    },
    /// A string literal.
    Lit(String),
}

/// A `compare` operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// `{"field": "var.seg.seg"}`.
    Field {
        /// The path as written.
        path: String,
        /// Slot of its first segment.
        slot: usize,
        /// The remaining segments.
        segments: Vec<String>,
    },
    /// Any other JSON value.
    Lit(Value),
}

/// Which predicate a call invokes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callee {
    /// One of the built-ins.
    Builtin(Builtin),
    /// A pack-level custom predicate (index into the pack's table).
    PackCustom(usize),
    /// A policy-level custom predicate (index into the policy's table).
    PolicyCustom(usize),
}

/// A compiled CPL expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// True iff `cond` holds for every element.
    Forall(Quantifier),
    /// True iff `cond` holds for some element.
    Exists(Quantifier),
    /// Short-circuit conjunction (≥ 2 operands).
    And(Vec<Expr>),
    /// Short-circuit disjunction (≥ 2 operands).
    Or(Vec<Expr>),
    /// Negation.
    Not(Box<Expr>),
    /// `not if or then`; `then` is evaluated only when `if` holds.
    Implies(Box<Expr>, Box<Expr>),
    /// A predicate call.
    Call {
        /// The name as written.
        name: String,
        /// What it resolves to.
        callee: Callee,
        /// Arguments.
        args: Vec<Arg>,
    },
    /// A comparison.
    Compare {
        /// Left operand.
        left: Operand,
        /// Operator.
        op: CmpOp,
        /// Right operand.
        right: Operand,
    },
    /// A learned verifier's score against a threshold.
    Verifier {
        /// Verifier id.
        id: String,
        /// Minimum score in [0, 1].
        threshold: f64,
    },
}

/// Body of `forall` / `exists`.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantifier {
    /// Variable name.
    pub var: String,
    /// Slot it binds.
    pub slot: usize,
    /// Collection it ranges over.
    pub collection: Collection,
    /// Condition checked per element.
    pub cond: Box<Expr>,
}

/// A custom predicate after parsing.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomPredicate {
    /// Its name.
    pub name: String,
    /// Parameter names, in call order.
    pub params: Vec<String>,
    /// What each parameter accepts, inferred from the body.
    pub param_kinds: Vec<Kinds>,
    /// The body; its frame starts with the parameters.
    pub body: Expr,
}
