//! `NodeExpr::uses`: which locals an opaque expression refers to, with
//! shadowing inside the expression and mutation flags.

mod frontend_support;

use frontend_support::tail_uses;

/// The uses of `expr` as the tail of an algorithm with parameters `params`.
fn uses_in(params: &str, expr: &str) -> Vec<String> {
    tail_uses(&format!("fn f({params}) {{ {expr} }}"))
}

const P: &str = "a: u8, b: u8, mut s: S, v: Vec<u8>";

#[test]
fn order_and_dedup() {
    assert_eq!(uses_in(P, "b + a * b"), ["b", "a"]);
    assert_eq!(uses_in(P, "g(a, 1) + C + m::a + <T>::b + h::<u8>(b)"), ["a", "b"]);
    // A method call on one use marks it mutated even if seen before.
    assert_eq!(uses_in(P, "(s.len(), a, s.push(a))"), ["mut s", "a"]);
    // Names that are not locals: functions, constants, variants, fields, methods.
    assert_eq!(uses_in(P, "Some(None::<u8>).map(len).unwrap_or(MAX).a"), Vec::<String>::new());
}

#[test]
fn mutation_roots() {
    assert_eq!(uses_in(P, "s.m()"), ["mut s"]);
    assert_eq!(uses_in(P, "s.f.m(a)"), ["mut s", "a"]);
    assert_eq!(uses_in(P, "v[a as usize].m()"), ["mut v", "a"]);
    assert_eq!(uses_in(P, "(s).m()"), ["mut s"]);
    assert_eq!(uses_in(P, "(*s).f.m()"), ["mut s"]);
    assert_eq!(uses_in(P, "g(&mut s, &a, &mut s.f)"), ["mut s", "a"]);
    assert_eq!(uses_in(P, "g(&v, &a)"), ["v", "a"]);
    assert_eq!(uses_in(P, "g({ s.f = a; })"), ["mut s", "a"]);
    assert_eq!(uses_in(P, "g({ v[b as usize] += a; })"), ["mut v", "b", "a"]);
    assert_eq!(uses_in(P, "g({ *s.r = b; })"), ["mut s", "b"]);
    // A plain assignment nested inside a node mutates the local.
    assert_eq!(uses_in(P, "g({ a = b; a })"), ["mut a", "b"]);
    assert_eq!(uses_in(P, "g({ (a, _) = (b, 1); })"), ["mut a", "b"]);
    // Passing by value or reading a field is not a mutation.
    assert_eq!(uses_in(P, "g(s, s.f, v[0])"), ["s", "v"]);
}

#[test]
fn calling_a_mut_local_mutates_it() {
    let src = "fn f(a: u8) -> u8 { let mut c = |x: u8| x + a; let d = |x: u8| x; c(1) + d(2) }";
    assert_eq!(tail_uses(src), ["mut c", "d"]);
}

#[test]
fn closures_shadow_and_capture() {
    assert_eq!(uses_in(P, "v.iter().map(|a| a + b).count()"), ["mut v", "b"]);
    assert_eq!(uses_in(P, "g(|(a, mut b)| a + b, a)"), ["a"]);
    assert_eq!(uses_in(P, "g(move || s.push(a))"), ["mut s", "a"]);
    // A closure's parameter shadows only inside the closure.
    assert_eq!(uses_in(P, "(|b: u8| b, b)"), ["b"]);
}

#[test]
fn blocks_lets_and_loops_inside_nodes_shadow() {
    assert_eq!(uses_in(P, "g({ let a = b; a })"), ["b"]);
    // The initialiser sees the outer name.
    assert_eq!(uses_in(P, "g({ let a = a + 1; a })"), ["a"]);
    // After the inner block, the outer name is visible again.
    assert_eq!(uses_in(P, "g({ let a = 1; a }, a)"), ["a"]);
    assert_eq!(uses_in(P, "g(|| { for a in 0..b { s.push(a); } })"), ["b", "mut s"]);
    assert_eq!(uses_in(P, "g(|| { let mut i = 0; while let Some(a) = v.get(i) { i += a; } })"), ["mut v"]);
}

#[test]
fn match_and_if_let_inside_nodes_shadow() {
    assert_eq!(uses_in(P, "g(match v.first() { Some(a) if a > b => a, None => b, _ => 0 })"), ["mut v", "b"]);
    assert_eq!(uses_in(P, "g(if let Some(a) = v.pop() { a } else { a })"), ["mut v", "a"]);
    assert_eq!(uses_in(P, "g(matches!(v.first(), Some(a) if *a > b))"), ["mut v", "b"]);
}

#[test]
fn struct_shorthand_is_a_use() {
    assert_eq!(uses_in(P, "Point { a, y: b, ..s.base() }"), ["a", "b", "mut s"]);
}

#[test]
fn format_macros_are_parsed() {
    assert_eq!(uses_in(P, r#"format!("{} {a} {b:?} {:>8}", v.len(), 1)"#), ["mut v", "a", "b"]);
    // Named arguments and positional ones are not locals; `width$` is.
    assert_eq!(uses_in(P, r#"format!("{x} {0} {{s}} {a:>b$}", s, x = a)"#), ["s", "a", "b"]);
    assert_eq!(uses_in(P, r#"println!("{s:?}")"#), ["s"]);
    assert_eq!(uses_in(P, r#"assert_eq!(a, b, "{v:?}")"#), ["a", "b", "v"]);
    // `write!` mutates its destination.
    assert_eq!(uses_in(P, r#"write!(s, "{a}")"#), ["mut s", "a"]);
    assert_eq!(uses_in(P, r#"std::writeln!(s.out, "{}", b)"#), ["mut s", "b"]);
}

#[test]
fn vec_and_dbg() {
    assert_eq!(uses_in(P, "vec![a, b, a]"), ["a", "b"]);
    assert_eq!(uses_in(P, "vec![a; b as usize]"), ["a", "b"]);
    assert_eq!(uses_in(P, "dbg!(s.f)"), ["s"]);
}

#[test]
fn unknown_macros_are_conservative() {
    assert_eq!(uses_in(P, "my_macro!(a, [b], { c })"), ["mut a", "mut b"]);
    assert_eq!(uses_in(P, "other::mac!(s => v)"), ["mut s", "mut v"]);
    // A standard macro whose arguments do not parse is treated the same way.
    assert_eq!(uses_in(P, "vec![a; b; s]"), ["mut a", "mut b", "mut s"]);
}

#[test]
fn match_arm_bindings_are_locals_in_the_arm() {
    let alg =
        frontend_support::parse("fn f(o: Option<u8>, mut s: S) { match o { Some(x) => s.add(x), None => s.clear() } }");
    let Some(ohua_compiler::frontend::ast::Expr::Match { arms, .. }) = alg.body.tail.as_deref() else {
        panic!("not a match")
    };
    let node = arms[0].body.as_node().expect("node body");
    assert_eq!(frontend_support::uses(node), ["mut s", "x"]);
    assert_eq!(arms[0].bindings, ["x"]);
    assert!(arms[1].bindings.is_empty());
}

#[test]
fn use_names_keep_the_first_occurrence_span() {
    let alg = frontend_support::parse("fn f(a: u8) -> u8 {\n    g(a,\n      a)\n}");
    let node = alg.body.tail.as_deref().and_then(|e| e.as_node()).expect("node");
    let start = node.uses[0].name.span().start();
    assert_eq!((start.line, start.column), (2, 6));
}
