//! The surface AST: the supported subset of Rust, validated and scoped.
//!
//! The frontend turns a `syn::ItemFn` into an [`Algorithm`]. Everything the
//! compiler treats as *structure* (blocks, `if`, `match`, loops, collecting
//! maps, calls to algorithms) is a variant of [`Expr`]; every other
//! statement-level expression is an opaque [`NodeExpr`] that becomes one
//! dataflow operator and is emitted back verbatim (with its original spans).

use proc_macro2::Span;

/// One algorithm, ready for lowering.
#[derive(Debug, Clone)]
pub struct Algorithm {
    /// The function name.
    pub name: syn::Ident,
    /// The original item, kept for the signature and the sequential body.
    pub item: syn::ItemFn,
    /// Parameters in order. Patterns are identifiers, tuples or `_`.
    pub params: Vec<Param>,
    /// The body.
    pub body: Block,
}

/// A function parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// The binding pattern.
    pub pat: Pattern,
    /// The declared type.
    pub ty: syn::Type,
}

/// `{ stmts; tail }`
#[derive(Debug, Clone)]
pub struct Block {
    /// Statements in order.
    pub stmts: Vec<Stmt>,
    /// The value of the block, if any (otherwise `()`).
    pub tail: Option<Box<Expr>>,
    /// Span of the whole block.
    pub span: Span,
}

/// A statement.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// `let pat (: ty)? = init;`
    Let {
        /// Irrefutable pattern.
        pat: Pattern,
        /// Optional type annotation.
        ty: Option<syn::Type>,
        /// Initialiser.
        init: Expr,
        /// Span of the statement.
        span: Span,
    },
    /// `x = value;` or `x op= value;` on a local identifier.
    Assign {
        /// The assigned local.
        target: syn::Ident,
        /// `Some(op)` for compound assignment (`+=` is `BinOp::AddAssign`).
        op: Option<syn::BinOp>,
        /// Right-hand side.
        value: Expr,
        /// Span of the statement.
        span: Span,
    },
    /// An expression statement (`e;`, or a block-like expression).
    Expr {
        /// The expression; its value is discarded.
        expr: Expr,
        /// Span of the statement.
        span: Span,
    },
}

/// An irrefutable binding pattern.
#[derive(Debug, Clone)]
pub enum Pattern {
    /// `x` or `mut x`.
    Ident {
        /// The bound name (with the user's span).
        name: syn::Ident,
        /// Written with `mut`.
        mutable: bool,
    },
    /// `(p1, p2, ..)`.
    Tuple(Vec<Pattern>, Span),
    /// `_`.
    Wild(Span),
}

/// A structural expression, or an opaque node.
#[derive(Debug, Clone)]
pub enum Expr {
    /// Opaque Rust evaluated inside one operator.
    Node(NodeExpr),
    /// A nested block (own scope).
    Block(Block),
    /// `if cond { then } else { else_ }`; `else if` is an `If` in `else_`.
    If {
        /// The condition (evaluates to `bool`).
        cond: Box<Expr>,
        /// Then branch.
        then: Block,
        /// Else branch (`Expr::Block` or `Expr::If`), `None` means `{}`.
        else_: Option<Box<Expr>>,
        /// Span of the `if` expression.
        span: Span,
    },
    /// `match scrutinee { arms }`; also `if let` (desugared to two arms).
    Match {
        /// The scrutinee (moved into the dispatching operator).
        scrutinee: Box<Expr>,
        /// Arms in order.
        arms: Vec<Arm>,
        /// Span of the `match` expression.
        span: Span,
    },
    /// `for pat in iter { body }`.
    For {
        /// The loop variable pattern.
        pat: Pattern,
        /// What is iterated (`IntoIterator`, consumed).
        iter: Box<Expr>,
        /// The body; its value is `()`.
        body: Block,
        /// Span of the loop.
        span: Span,
    },
    /// `while cond { body }`.
    While {
        /// The loop condition, evaluated before each iteration.
        cond: Box<Expr>,
        /// The body; its value is `()`.
        body: Block,
        /// Span of the loop.
        span: Span,
    },
    /// `ITER.map(|pat| body).collect::<T>()` — Ohua's `smap` with `collect`.
    /// `ITER` is `e.into_iter()` or any iterator expression.
    MapCollect {
        /// The iterated expression (before `.map`), e.g. `xs.into_iter()`.
        iter: Box<Expr>,
        /// Closure parameter pattern.
        pat: Pattern,
        /// Closure body, evaluated per element.
        body: Box<Expr>,
        /// Turbofish type of `collect::<T>()`, if written.
        collect_ty: Option<syn::Type>,
        /// Span of the whole chain.
        span: Span,
    },
    /// A call to another algorithm (or a recursive call to this one).
    AlgoCall {
        /// The called algorithm's name.
        name: syn::Ident,
        /// Arguments, in order.
        args: Vec<Expr>,
        /// Span of the call.
        span: Span,
    },
}

/// A `match` arm.
#[derive(Debug, Clone)]
pub struct Arm {
    /// The pattern, verbatim. Bindings are by value.
    pub pat: syn::Pat,
    /// Optional guard (opaque, must not mutate locals).
    pub guard: Option<NodeExpr>,
    /// Names the pattern binds, in order of first appearance.
    pub bindings: Vec<syn::Ident>,
    /// The arm's body.
    pub body: Expr,
    /// Span of the arm.
    pub span: Span,
}

/// An opaque Rust expression evaluated by one operator.
#[derive(Debug, Clone)]
pub struct NodeExpr {
    /// The expression, verbatim.
    pub expr: syn::Expr,
    /// The algorithm locals it refers to, each once, in order of first
    /// occurrence. Names shadowed inside the expression (closure parameters,
    /// inner `let`s, match bindings) are not included.
    pub uses: Vec<VarUse>,
}

/// A reference from a node expression to an algorithm local.
#[derive(Debug, Clone)]
pub struct VarUse {
    /// The local's name, as written at its first occurrence in the expression.
    pub name: syn::Ident,
    /// Whether the expression may mutate the local: it is a method-call
    /// receiver (`x.m()`, `x.f.m()`, `x[i].m()`), borrowed `&mut`, assigned
    /// (`x.f = ..`, `x[i] += ..`), or named inside a macro we cannot parse.
    pub mutated: bool,
}
