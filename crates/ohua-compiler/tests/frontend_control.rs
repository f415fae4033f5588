//! The frontend's AST shape for branches, loops and tail `return`s.

mod frontend_support;

use frontend_support::{assert_dump, parse};
use ohua_compiler::frontend::ast::Expr;

#[test]
fn if_else_chain() {
    assert_dump(
        "fn f(c: bool, d: bool) -> u8 { if c { 1 } else if d { 2 } else { 3 } }",
        "fn f(c, d) {
    if node(c)[c] {
        node(1)[]
    } else if node(d)[d] {
        node(2)[]
    } else {
        node(3)[]
    }
}",
    );
    // Parentheses around structure are unwrapped.
    let alg = parse("fn f(c: bool) -> u8 { (if c { 1 } else { 2 }) }");
    assert!(matches!(alg.body.tail.as_deref(), Some(Expr::If { .. })));
}

#[test]
fn if_let_desugars_to_match() {
    assert_dump(
        "fn f(o: Option<u8>) -> u8 { if let Some(v) = o { v } else { 0 } }",
        "fn f(o) {
    match node(o)[o] {
        Some(v) [v] => {
            node(v)[v]
        },
        _ [] => {
            node(0)[]
        },
    }
}",
    );
    // Without `else`, the second arm is `{}`.
    let alg = parse("fn f(o: Option<u8>, mut s: S) { if let Some(v) = o { s.put(v); } }");
    let Some(Expr::Match { arms, .. }) = alg.body.tail.as_deref() else { panic!("not a match") };
    assert_eq!(arms.len(), 2);
    assert!(matches!(arms[1].pat, syn::Pat::Wild(_)));
    assert!(matches!(&arms[1].body, Expr::Block(b) if b.stmts.is_empty() && b.tail.is_none()));
    // `else if` after `if let` becomes the fallback arm's body.
    assert_dump(
        "fn f(o: Option<u8>, c: bool) -> u8 { if let Some(v) = o { v } else if c { 1 } else { 2 } }",
        "fn f(o, c) {
    match node(o)[o] {
        Some(v) [v] => {
            node(v)[v]
        },
        _ [] => if node(c)[c] {
            node(1)[]
        } else {
            node(2)[]
        },
    }
}",
    );
}

#[test]
fn match_arms_bindings_and_guards() {
    assert_dump(
        "fn f(e: E, k: u8) -> u8 {
            match e {
                E::A { x, y: (p, mut q) } if x > k => x + p + q,
                E::B(1..=3, _) | E::C(1) if k > 0 => 1,
                E::B(n @ 4.., _) => n,
                None => k,
                E::D(Some(MAX), ..) => { let r = k; r }
                other => other.get(),
            }
        }",
        "fn f(e, k) {
    match node(e)[e] {
        E::A { x, y: (p, mut q) } [x, p, q] if node(x > k)[x, k] => node(x + p + q)[x, p, q],
        E::B(1..=3, _) | E::C(1) [] if node(k > 0)[k] => node(1)[],
        E::B(n @ 4.., _) [n] => node(n)[n],
        None [] => node(k)[k],
        E::D(Some(MAX), ..) [] => {
            let r = node(k)[k];
            node(r)[r]
        },
        other [other] => node(other.get())[mut other],
    }
}",
    );
}

#[test]
fn for_and_while() {
    assert_dump(
        "fn f(xs: Vec<(u8, u8)>, mut s: S) {
            for (a, _) in xs { s.add(a); }
            let mut i = 0;
            while i < 10 { i += 1; }
        }",
        "fn f(xs, mut s) {
    for (a, _) in node(xs)[xs] {
        node(s.add(a))[mut s, a];
    };
    let mut i = node(0)[];
    while node(i < 10)[i] {
        i += node(1)[];
    }
}",
    );
}

#[test]
fn tail_returns_are_desugared() {
    assert_dump(
        "fn f(c: bool, o: Option<u8>) -> u8 {
            let x = 1;
            if c { return x; } else if let Some(v) = o { return v } else { return 0; };
        }",
        "fn f(c, o) {
    let x = node(1)[];
    if node(c)[c] {
        node(x)[x]
    } else match node(o)[o] {
        Some(v) [v] => {
            node(v)[v]
        },
        _ [] => {
            node(0)[]
        },
    }
}",
    );
    assert_dump(
        "fn f(x: u8) -> u8 { match x { 0 => return 1, n => { let m = n; return m; } } }",
        "fn f(x) {
    match node(x)[x] {
        0 [] => node(1)[],
        n [n] => {
            let m = node(n)[n];
            node(m)[m]
        },
    }
}",
    );
    assert_dump("fn f(x: u8) -> u8 { return x + 1; }", "fn f(x) {\n    node(x + 1)[x]\n}");
    assert_dump("fn f(mut s: S) { s.go(); return; }", "fn f(mut s) {\n    node(s.go())[mut s];\n}");
    // A diverging branch keeps its type in a desugared tail.
    assert_dump(
        "fn f(c: bool) -> u8 { if c { return 1; } else { panic!(\"no\"); } }",
        "fn f(c) {
    if node(c)[c] {
        node(1)[]
    } else {
        node(panic!(\"no\"))[]
    }
}",
    );
}
