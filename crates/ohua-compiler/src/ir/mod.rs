//! The expression IR: structured SSA over regions.
//!
//! After resolution every value is an immutable [`VarId`] defined exactly
//! once. Mutation of a state object (`s.m(x)`, `&mut s`, `s = ..`) is a
//! [`NodeOp`] that *threads* the object: it takes the old version and defines
//! a new one. Control flow is structured: [`Op::Branch`] (if/match),
//! [`Op::For`] (Ohua's `smap`, optionally with `collect`) and [`Op::Loop`]
//! (`while` and tail recursion, driven by `ControlFlow`). Loop-carried
//! variables are explicit; a state object used at exactly one call site inside
//! a loop is *resident*: that call site keeps it across iterations instead of
//! carrying it around the loop.

mod print;

pub use print::print_ir;

use proc_macro2::Span;

/// An SSA value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// What we know about a value.
#[derive(Debug, Clone)]
pub struct VarInfo {
    /// Source name (or a generated name for temporaries), for dumps.
    pub name: String,
    /// The identifier that binds this value inside generated closures.
    pub ident: syn::Ident,
}

/// One algorithm in IR form.
#[derive(Debug, Clone)]
pub struct Ir {
    /// Algorithm name.
    pub name: String,
    /// All values, indexed by `VarId`.
    pub vars: Vec<VarInfo>,
    /// Parameters (one per bound identifier of the signature's patterns).
    pub params: Vec<VarId>,
    /// The body; yields exactly the result value.
    pub body: Region,
}

/// A sequence of operations that yields some values.
#[derive(Debug, Clone, Default)]
pub struct Region {
    /// Operations in program order.
    pub ops: Vec<Op>,
    /// Values yielded to the enclosing construct.
    pub yields: Vec<VarId>,
}

/// An operation.
#[derive(Debug, Clone)]
// Compile-time data with few instances: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum Op {
    /// One operator running code.
    Node(NodeOp),
    /// `if`/`match`: run exactly one arm, selected by `sel` (a `usize`).
    Branch {
        /// The arm index.
        sel: VarId,
        /// The arms; each yields one value per element of `outs`.
        arms: Vec<Region>,
        /// Values defined after the branch (phi of the arms' yields).
        outs: Vec<VarId>,
        /// Source span.
        span: Span,
    },
    /// `for` / `map(..).collect()`: run `body` once per element of `coll`.
    For {
        /// The iterated collection (consumed).
        coll: VarId,
        /// Each element, defined inside `body`.
        elem: VarId,
        /// Carried variables; `body.yields` starts with their next values.
        carried: Vec<Carried>,
        /// With `collect`: `body.yields` ends with the item, `Some(result)` is
        /// the collection defined after the loop, with an optional type.
        collect: Option<(VarId, Option<syn::Type>)>,
        /// The body.
        body: Region,
        /// Source span.
        span: Span,
    },
    /// `while` / tail recursion: iterate while the body yields
    /// `ControlFlow::Continue(next carried)`; `Break(payload)` ends it.
    Loop {
        /// Carried variables; `after` unused (the payload defines `outs`).
        carried: Vec<Carried>,
        /// The body; yields exactly one `ControlFlow` value.
        body: Region,
        /// The break payload's components, defined after the loop.
        outs: Vec<VarId>,
        /// Source span.
        span: Span,
    },
}

/// A loop-carried variable.
#[derive(Debug, Clone, Copy)]
pub struct Carried {
    /// Value before the loop.
    pub init: VarId,
    /// Value during one iteration (defined inside the body).
    pub inner: VarId,
    /// Value after the loop.
    pub after: VarId,
}

/// How a node uses one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Read (moved if this is the value's only consumer, else a clone).
    Read,
    /// Threaded: the node may mutate it and defines the next version `out`.
    Thread {
        /// The next version.
        out: VarId,
    },
}

/// An input of a node.
#[derive(Debug, Clone)]
pub struct Input {
    /// The value.
    pub var: VarId,
    /// The name the node's code refers to it by.
    pub ident: syn::Ident,
    /// How it is used.
    pub usage: Use,
}

/// One operator.
#[derive(Debug, Clone)]
pub struct NodeOp {
    /// Stable operator name, `algorithm/function#callsite`.
    pub name: String,
    /// What it computes.
    pub code: Code,
    /// Inputs in order.
    pub inputs: Vec<Input>,
    /// Values the code binds (besides threaded outputs), in order.
    pub outputs: Vec<VarId>,
    /// Source span.
    pub span: Span,
}

/// The code of a node.
#[derive(Debug, Clone)]
// Compile-time data with few instances: boxing would only add noise.
#[allow(clippy::large_enum_variant)]
pub enum Code {
    /// User code `let pat(: ty)? = expr;` (`pat` `None` for an expression statement).
    Let {
        /// Binding pattern; its identifiers are the node's `outputs`.
        pat: Option<syn::Pat>,
        /// Type annotation.
        ty: Option<syn::Type>,
        /// The expression.
        expr: syn::Expr,
    },
    /// User code `target (op)= expr;` — the target is a threaded input.
    Assign {
        /// Assigned local.
        target: syn::Ident,
        /// Compound operator, if any.
        op: Option<syn::BinOp>,
        /// Right-hand side.
        expr: syn::Expr,
    },
    /// `if expr { 0 } else { 1 }`: the arm selector of an `if`.
    IfSelector(syn::Expr),
    /// Match dispatch: outputs the arm index, then for every arm an
    /// `Option` of the tuple of its bindings.
    MatchDispatch {
        /// The scrutinee expression.
        scrutinee: syn::Expr,
        /// Arms: pattern, guard, bindings.
        arms: Vec<(syn::Pat, Option<syn::Expr>, Vec<syn::Ident>)>,
    },
    /// Unwrap one arm's `Option` of bindings into the bindings.
    Unwrap(usize),
    /// A constant value (e.g. `()` or the arm-less `else`).
    Const(syn::Expr),
    /// Build a tuple of the inputs.
    Pack,
    /// Split a tuple input into `outputs.len()` values.
    Unpack,
    /// `ControlFlow::Continue((inputs..))`.
    Continue,
    /// `ControlFlow::Break((inputs..))`.
    Break,
    /// A clone of the single input (a per-iteration copy of an outer value).
    CloneOf,
    /// The answer of a fetch: waits (without blocking) for the single
    /// input, a pending answer, and binds the single output to it.
    Await,
}
