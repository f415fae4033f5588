//! The frontend's AST shape for accepted algorithms.

mod frontend_support;

use frontend_support::{assert_dump, assert_dump_with, parse, parse_with};
use ohua_compiler::frontend::ast::{Expr, Pattern, Stmt};

#[test]
fn signature_and_params() {
    let alg = parse("pub fn algo<T: Clone>(mut s: S, (a, _): (T, u8), _: u8) -> T where T: Send { a }");
    assert_eq!(alg.name, "algo");
    assert_eq!(alg.params.len(), 3);
    assert!(matches!(&alg.params[0].pat, Pattern::Ident { name, mutable: true } if name == "s"));
    assert!(matches!(&alg.params[1].pat, Pattern::Tuple(p, _) if p.len() == 2));
    assert!(matches!(&alg.params[2].pat, Pattern::Wild(_)));
    assert_eq!(alg.item.sig.generics.params.len(), 1);
    assert!(alg.item.sig.generics.where_clause.is_some());
}

#[test]
fn lets_assignments_and_tail() {
    assert_dump(
        "fn f(x: u32, mut s: S) -> u32 {
            let y: u32 = x + 1;
            let (a, (b, _)) = s.pair();
            let mut z = y;
            z = a * b;
            z += 2;
            s.v[0] = z;
            s.count += 1;
            z
        }",
        "fn f(x, mut s) {
    let y: u32 = node(x + 1)[x];
    let (a, (b, _)) = node(s.pair())[mut s];
    let mut z = node(y)[y];
    z = node(a * b)[a, b];
    z += node(2)[];
    node(s.v[0] = z)[mut s, z];
    node(s.count += 1)[mut s];
    node(z)[z]
}",
    );
    let alg = parse("fn f(x: u32) { let mut z = x; z -= 1 }");
    // An assignment as the tail is a statement; the block's value is `()`.
    assert!(alg.body.tail.is_none());
    assert!(
        matches!(&alg.body.stmts[1], Stmt::Assign { target, op: Some(syn::BinOp::SubAssign(_)), .. } if target == "z")
    );
}

#[test]
fn blocks_scope_and_shadowing() {
    assert_dump(
        "fn f(x: u32) -> u32 {
            let y = { let x = x + 1; x * 2 };
            let x = y;
            x
        }",
        "fn f(x) {
    let y = {
        let x = node(x + 1)[x];
        node(x * 2)[x]
    };
    let x = node(y)[y];
    node(x)[x]
}",
    );
}

#[test]
fn map_collect_is_structural() {
    assert_dump(
        "fn f(xs: Vec<u8>, mut s: S) -> Vec<u8> {
            let a = xs.iter().map(|x| s.get(x)).collect::<Vec<_>>();
            xs.into_iter().map(|(k, _)| { let y = k + 1; y }).collect()
        }",
        "fn f(xs, mut s) {
    let a = map |x| node(s.get(x))[mut s, x] over node(xs.iter())[mut xs] collect::<Vec<_>>;
    map |(k, _)| {
        let y = node(k + 1)[k];
        node(y)[y]
    } over node(xs.into_iter())[mut xs] collect
}",
    );
    let alg = parse("fn f(xs: Vec<u8>) -> Vec<u8> { xs.into_iter().map(|x| x).collect::<Vec<u8>>() }");
    let Some(Expr::MapCollect { collect_ty: Some(ty), pat, .. }) = alg.body.tail.as_deref() else {
        panic!("not a map-collect")
    };
    assert_eq!(quote::quote!(#ty).to_string(), "Vec < u8 >");
    assert!(matches!(pat, Pattern::Ident { name, .. } if name == "x"));
}

#[test]
fn other_map_shapes_stay_opaque() {
    for src in [
        "fn f(xs: Vec<u8>) -> Vec<u8> { xs.into_iter().map(g).collect() }",
        "fn f(xs: Vec<u8>) -> Vec<u8> { xs.iter().map(|&x| x).collect() }",
        "fn f(xs: Vec<u8>) -> Vec<u8> { xs.iter().map(|x| *x).filter(|x| *x > 0).collect() }",
        "fn f(xs: Vec<u8>) -> u32 { xs.iter().map(|x| *x as u32).sum() }",
    ] {
        let alg = parse(src);
        assert!(matches!(alg.body.tail.as_deref(), Some(Expr::Node(_))), "{src}");
    }
}

#[test]
fn algorithm_calls() {
    assert_dump_with(
        "fn f(n: u32, mut s: S) -> u32 {
            let a = helper(n + 1, s);
            let b = other(a);
            if n == 0 { a } else { f(n - 1, if b > 0 { b } else { 0 }) }
        }",
        &["helper"],
        "fn f(n, mut s) {
    let a = algo helper(node(n + 1)[n], node(s)[s]);
    let b = node(other(a))[a];
    if node(n == 0)[n] {
        node(a)[a]
    } else {
        algo f(node(n - 1)[n], if node(b > 0)[b] {
            node(b)[b]
        } else {
            node(0)[]
        })
    }
}",
    );
    // A local named like an algorithm shadows it.
    let alg = parse_with("fn f(helper: fn(u8) -> u8) -> u8 { helper(1) }", &["helper"]);
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::Node(_))));
    // Paths are not algorithm calls.
    let alg = parse_with("fn f() -> u8 { m::helper(1) }", &["helper"]);
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::Node(_))));
}

fn src_with_helper() -> &'static str {
    "fn f(x: u8) -> u8 { helper(x) }"
}

#[test]
fn sibling_algorithm_names_come_from_the_caller() {
    let alg = parse_with(src_with_helper(), &["helper"]);
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::AlgoCall { name, .. }) if name == "helper"));
    let alg = parse(src_with_helper());
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::Node(_))));
}

#[test]
fn unsafe_blocks_and_closures_are_nodes() {
    let alg = parse("fn f(x: u8) -> u8 { let g = |y: u8| y + x; unsafe { g(1) } }");
    assert!(matches!(&alg.body.stmts[0], Stmt::Let { init: Expr::Node(n), .. } if n.uses.len() == 1));
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::Node(_))));
}
