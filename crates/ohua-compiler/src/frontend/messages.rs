//! Error constructors shared by the structural parser and the opaque-node
//! analysis, so that one construct gets one message wherever it appears.

use proc_macro2::Span;

use crate::error::CompileError;

/// `return` anywhere but in tail position.
pub(crate) fn early_return(span: Span) -> CompileError {
    CompileError::unsupported(
        span,
        "early `return`",
        "`return` is only allowed as the last statement of the algorithm (or at the end of a \
         branch there); restructure with if/else so that every branch ends in its value",
    )
}

/// `break` / `continue` that would leave or restart an algorithm loop.
pub(crate) fn loop_jump(span: Span, keyword: &str) -> CompileError {
    CompileError::unsupported(
        span,
        format!("`{keyword}` in an algorithm loop"),
        "it is not supported yet; use `while` with a flag, or restructure the loop body with \
         if/else",
    )
}

/// The `?` operator outside a closure.
pub(crate) fn try_operator(span: Span) -> CompileError {
    CompileError::invalid(
        span,
        "`?` is not supported inside an algorithm; handle the error inside a function (or \
         return the `Result` as a value and `match` on it)",
    )
}

/// `.await`, `async` blocks, `yield`.
pub(crate) fn asynchrony(span: Span, what: &str) -> CompileError {
    CompileError::unsupported(
        span,
        what,
        "algorithms are synchronous dataflow; do asynchronous work inside a function the \
         algorithm calls, or use an ohua data source for I/O",
    )
}

/// A statement or expression under `#[cfg]` / `#[cfg_attr]`.
pub(crate) fn conditional_compilation(span: Span) -> CompileError {
    CompileError::unsupported(
        span,
        "`#[cfg]` inside an algorithm",
        "put the attribute on the whole algorithm or on a function the algorithm calls",
    )
}

/// An algorithm called inside an opaque expression.
pub(crate) fn nested_algorithm_call(span: Span, name: &syn::Ident) -> CompileError {
    CompileError::unsupported(
        span,
        format!("calling algorithm `{name}` inside a larger expression"),
        format!(
            "call it on its own so that it becomes part of the dataflow graph: \
             `let r = {name}(..);` and then use `r`"
        ),
    )
}

/// `for x in &xs`: the loop's operators cannot
/// borrow a value that the graph owns.
pub(crate) fn borrowed_iteration(span: Span, name: &syn::Ident, mutable: bool) -> CompileError {
    let amp = if mutable { "&mut " } else { "&" };
    CompileError::unsupported(
        span,
        format!("iterating over `{amp}{name}`"),
        format!(
            "the loop runs in operators on other threads, which cannot borrow `{name}` from the \
             algorithm; iterate over an owned collection instead: `for x in {name}.clone()` (use \
             `&x` where a reference is needed), or pass `{name}` to the algorithm by reference \
             (`{name}: &[T]`) and iterate over `{name}` itself"
        ),
    )
}
