//! Helpers shared by the frontend tests.
#![allow(dead_code)]

use ohua_compiler::error::CompileError;
use ohua_compiler::frontend::{ast, parse_algorithm};

/// Parses `src` (one `fn`) as an algorithm that may call itself and `others`.
pub fn try_parse_with(src: &str, others: &[&str]) -> Result<ast::Algorithm, CompileError> {
    let item: syn::ItemFn = syn::parse_str(src).expect("test source must be a valid fn");
    let mut algorithms = vec![item.sig.ident.clone()];
    algorithms.extend(others.iter().map(|n| syn::Ident::new(n, proc_macro2::Span::call_site())));
    parse_algorithm(&item, &algorithms)
}

/// Parses `src`, which must be accepted.
pub fn parse(src: &str) -> ast::Algorithm {
    parse_with(src, &[])
}

/// Parses `src` with sibling algorithms `others`; it must be accepted.
pub fn parse_with(src: &str, others: &[&str]) -> ast::Algorithm {
    match try_parse_with(src, others) {
        Ok(alg) => alg,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

/// The dump of the accepted algorithm `src`.
pub fn dump(src: &str) -> String {
    parse(src).to_string()
}

/// Asserts the dump of the accepted algorithm `src` (see `ast` `Display`).
pub fn assert_dump(src: &str, expected: &str) {
    assert_dump_with(src, &[], expected);
}

/// Like [`assert_dump`], with sibling algorithms `others`.
pub fn assert_dump_with(src: &str, others: &[&str], expected: &str) {
    let actual = parse_with(src, others).to_string();
    assert_eq!(actual.trim(), expected.trim(), "\nactual:\n{actual}");
}

/// Asserts `src` is rejected with a message containing `needle`, pointing
/// at the first occurrence of `at` in `src`.
pub fn assert_error_at(src: &str, needle: &str, at: &str) {
    let err = match try_parse_with(src, &[]) {
        Ok(alg) => panic!("expected an error containing {needle:?}, got:\n{alg}"),
        Err(e) => e,
    };
    let message = err.to_string();
    assert!(message.contains(needle), "message {message:?} does not contain {needle:?}");
    let offset = src.find(at).unwrap_or_else(|| panic!("{at:?} not in source"));
    let line = src[..offset].matches('\n').count() + 1;
    let column = src[..offset].rsplit('\n').next().map_or(0, |l| l.chars().count());
    let start = err.span().start();
    assert_eq!(
        (start.line, start.column),
        (line, column),
        "error {message:?} points at the wrong place (expected {at:?})"
    );
}

/// The uses of a node as `name` / `mut name` strings.
pub fn uses(node: &ast::NodeExpr) -> Vec<String> {
    node.uses.iter().map(|u| if u.mutated { format!("mut {}", u.name) } else { u.name.to_string() }).collect()
}

/// The uses of the single node that is the tail of `src`'s body.
pub fn tail_uses(src: &str) -> Vec<String> {
    let alg = parse(src);
    match alg.body.tail.as_deref() {
        Some(ast::Expr::Node(node)) => uses(node),
        other => panic!("tail is not a node: {other:?}"),
    }
}
