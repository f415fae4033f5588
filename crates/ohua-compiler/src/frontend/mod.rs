//! The frontend: validates an algorithm written in the supported subset of
//! Rust and turns it into the scoped surface AST ([`ast`]).
//!
//! Structure (blocks, `if`, `match`, `for`, `while`, `.map(..).collect()`,
//! calls to algorithms) becomes [`ast::Expr`] variants; every other
//! expression is kept verbatim as an opaque [`ast::NodeExpr`] together with the
//! algorithm locals it uses and whether it may mutate them. Anything outside
//! the language is rejected with an error that points at the user's tokens.
//!
//! Entry point: [`parse_algorithm`].

// `Stmt` holds large syn nodes inline; boxing them is the AST owner's call
// (it would change the public types), so the lint is silenced here.
#[allow(clippy::large_enum_variant)]
pub mod ast;
mod ast_ext;
mod block;
mod borrows;
mod branch;
mod dump;
mod expr;
pub(crate) mod fetch;
pub(crate) mod keyed_regions;
mod loops;
mod messages;
mod pattern;
mod print_syn;
pub mod scan;
mod scope;
mod signature;
pub(crate) mod syntax;
mod uses;

use crate::error::Result;
use scope::Scope;

/// Parses and validates one algorithm.
///
/// `algorithms` are the names of the algorithms callable by plain name; it
/// always includes the function's own name (for recursion) and any sibling
/// algorithms. A call `f(..)` of such a name that is not shadowed by a local
/// becomes [`ast::Expr::AlgoCall`].
///
/// Returns the first error found, spanned at the offending tokens.
pub fn parse_algorithm(item: &syn::ItemFn, algorithms: &[syn::Ident]) -> Result<ast::Algorithm> {
    let params = signature::parse_signature(item)?;
    let sources = params.iter().filter(|p| fetch::is_source_type(&p.ty)).filter_map(|p| match &p.pat {
        ast::Pattern::Ident { name, .. } => Some(name.to_string()),
        _ => None,
    });
    let sources: Vec<String> = sources.collect();
    // Sources the body writes to keep program order through a state object
    // of their own, declared first (`fetch.rs`).
    let ordered = fetch::written_sources(&item.block, &sources);
    let block = fetch::with_order_states(&item.block, &ordered);
    let mut frontend = Frontend {
        algorithms,
        scope: Scope::new(),
        unit_return: signature::returns_unit(&item.sig),
        sources,
        ordered,
        fetches: 0,
    };
    params.iter().for_each(|p| frontend.scope.bind_pattern(&p.pat));
    let body = frontend.parse_block(&block, true)?;
    // Parameters taken by reference may be borrowed from (the caller's data
    // outlives the run); see `borrows.rs`.
    let by_ref: Vec<String> = params
        .iter()
        .filter(|p| matches!(p.ty, syn::Type::Reference(_)))
        .filter_map(|p| match &p.pat {
            ast::Pattern::Ident { name, .. } => Some(name.to_string()),
            _ => None,
        })
        .collect();
    borrows::check_all(&body, &by_ref)?;
    Ok(ast::Algorithm { name: item.sig.ident.clone(), item: item.clone(), params, body })
}

/// State of the structural parser while it walks one algorithm body.
struct Frontend<'a> {
    /// Names that denote algorithms when called and not shadowed.
    algorithms: &'a [syn::Ident],
    /// The algorithm locals in scope at the current point.
    scope: Scope,
    /// Whether the innermost function-like body (the algorithm, or a map
    /// closure: `false`) returns `()`; decides how a trailing `return ..;`
    /// statement is desugared.
    unit_return: bool,
    /// Parameters that are data source handles (`db: &Source<Db>`).
    sources: Vec<String>,
    /// The sources the algorithm writes to: their requests go through an
    /// order state (`fetch.rs`).
    ordered: Vec<String>,
    /// Fetches parsed so far (names their pending answers).
    fetches: usize,
}
