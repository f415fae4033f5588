//! Rejected constructs: each error says what to do and points at the
//! construct.

mod frontend_support;

use frontend_support::{assert_error_at, parse};

#[test]
fn signature_qualifiers() {
    assert_error_at("async fn f() {}", "`async fn` algorithm", "async");
    assert_error_at("const fn f() {}", "`const fn` algorithm", "const");
    assert_error_at("unsafe fn f() {}", "remove `unsafe`", "unsafe");
    assert_error_at("extern \"C\" fn f() {}", "`extern fn` algorithm", "extern");
    assert_error_at("fn f(&mut self, x: u8) {}", "must be a free function", "&mut self");
    assert_error_at("fn f(x: u8, ...) {}", "variadic", "...");
}

#[test]
fn parameter_patterns() {
    assert_error_at("fn f(&x: &u8) {}", "reference pattern", "&x");
    assert_error_at("fn f(P { x }: P) {}", "only identifiers", "P {");
    assert_error_at("fn f(ref x: u8) {}", "`ref` binding", "ref");
    assert_error_at("fn f((a, ..): (u8, u8)) {}", "name every tuple element", "..");
}

#[test]
fn let_forms() {
    assert_error_at("fn f() { let x; x = 1; }", "give the binding its value", "let x");
    assert_error_at("fn f(o: Option<u8>) { let Some(x) = o else { return }; }", "`let .. else`", "else");
    assert_error_at("fn f(o: Option<u8>) { let Some(x) = o; }", "destructure other values with `match`", "Some(x)");
    assert_error_at("fn f(p: P) { let P { a, b } = p; }", "only identifiers", "P { a");
    assert_error_at("fn f(p: [u8; 2]) { let [a, b] = p; }", "only identifiers", "[a, b]");
    assert_error_at("fn f(p: u8) { let ref a = p; }", "`ref` binding in a `let`", "ref");
    assert_error_at("fn f(p: u8) { let a @ 1 = p; }", "`name @ pattern`", "@");
}

#[test]
fn items_in_the_body() {
    assert_error_at("fn f() { fn g() {} }", "move it out of the algorithm", "fn g");
    assert_error_at("fn f() { struct S; }", "an item (`fn`, `struct`, `use`, ..)", "struct");
    assert_error_at("fn f() { use std::mem; }", "an item", "use");
    assert_error_at("fn f() { macro_rules! m { () => {} } }", "`macro_rules!`", "macro_rules");
}

#[test]
fn early_return() {
    let help = "restructure with if/else";
    assert_error_at("fn f(c: bool) -> u8 { if c { return 1; } 2 }", help, "return 1");
    assert_error_at("fn f(c: bool) -> u8 { let x = if c { return 1 } else { 2 }; x }", help, "return 1");
    assert_error_at("fn f(xs: Vec<u8>) { for x in xs { return; } }", help, "return;");
    assert_error_at("fn f(x: u8) -> u8 { g(return x) }", help, "return x");
    assert_error_at("fn f(x: u8) -> u8 { let y = x; return y; y }", help, "return y");
}

#[test]
fn return_and_question_mark_inside_closures_are_fine() {
    parse("fn f(xs: Vec<u8>) -> u8 { g(xs.iter().map(|x| { if *x > 1 { return 0; } h(*x)? }).sum()) }");
    // A map closure's tail `return` belongs to the closure.
    parse("fn f(xs: Vec<u8>) -> Vec<u8> { xs.into_iter().map(|x| { return x + 1; }).collect() }");
    // Loops and labeled blocks inside a node may `break` to themselves.
    parse("fn f(x: u8) -> u8 { g('a: { if x > 0 { break 'a 1; } loop { break 2; } }) }");
}

#[test]
fn question_mark_await_async_yield() {
    assert_error_at("fn f(x: u8) -> u8 { let y = g(x)?; y }", "`?` is not supported inside an algorithm", "?");
    assert_error_at("fn f(x: u8) -> u8 { g(x).await }", "`.await`", "await");
    assert_error_at("fn f(x: u8) { let fut = async { x }; }", "`async` block", "async");
    assert_error_at("fn f(x: u8) { yield x; }", "`yield`", "yield");
}

#[test]
fn loops() {
    assert_error_at("fn f() { loop { g(); } }", "use `while cond", "loop");
    assert_error_at("fn f(xs: Vec<u8>) { 'o: for x in xs { g(x); } }", "a loop label", "'o");
    assert_error_at("fn f(c: bool) { 'o: while c { g(); } }", "a loop label", "'o");
    assert_error_at("fn f(mut s: S) { while let Some(x) = s.next() { g(x); } }", "`while let`", "while");
    assert_error_at("fn f(xs: Vec<u8>) { for x in xs { if x > 1 { break; } } }", "use `while` with a flag", "break");
    assert_error_at("fn f(c: bool) { while c { continue; } }", "`continue` in an algorithm loop", "continue");
    assert_error_at("fn f(xs: Vec<u8>) { for x in xs { g(x, { break }); } }", "`break` in an algorithm loop", "break");
    assert_error_at(
        "fn f(xs: Vec<u8>) { for x in xs { let y = match x { 0 => continue, y => y }; } }",
        "`continue`",
        "continue",
    );
    assert_error_at("fn f() -> u8 { 'b: { 1 } }", "a labeled block", "'b");
}

#[test]
fn branches() {
    assert_error_at("fn f(o: Option<u8>) { if let Some(x) = o && x > 1 { g(); } }", "`let` chain", "let Some");
    assert_error_at(
        "fn f(o: Option<u8>) { match o { Some(ref x) => g(x), None => {} } }",
        "`ref` binding in a match arm",
        "ref",
    );
    assert_error_at(
        "fn f(e: E) -> u8 { match e { E::A(x) | E::B(x) => x, _ => 0 } }",
        "write one arm per alternative",
        "E::A(x)",
    );
    assert_error_at(
        "fn f(x: u8, mut s: S) -> u8 { match x { n if s.check(n) => n, _ => 0 } }",
        "must not modify",
        "s.check",
    );
}

#[test]
fn map_closure_annotations() {
    assert_error_at(
        "fn f(xs: Vec<u8>) -> Vec<u8> { xs.into_iter().map(|x: u8| x).collect() }",
        "parameter type annotation",
        ": u8|",
    );
    assert_error_at(
        "fn f(xs: Vec<u8>) -> Vec<u8> { xs.into_iter().map(|x| -> u8 { x }).collect() }",
        "return type annotation",
        "-> u8 {",
    );
}

#[test]
fn algorithm_call_turbofish() {
    let src = "fn f(x: u8) -> u8 { f::<u8>(x) }";
    assert_error_at(src, "explicit generic arguments on an algorithm call", "::<u8>");
}

#[test]
fn conditional_compilation() {
    assert_error_at("fn f() { #[cfg(test)] let x = 1; }", "`#[cfg]` inside an algorithm", "#[cfg");
    assert_error_at("fn f() { #[cfg(test)] g(); }", "`#[cfg]` inside an algorithm", "#[cfg");
}

#[test]
fn algorithm_calls_inside_nodes() {
    let help = "`let r = f(..);`";
    assert_error_at("fn f(x: u8) -> u8 { let y = f(x) + 1; y }", help, "f(x) +");
    assert_error_at("fn f(xs: Vec<u8>) -> u8 { g(xs.iter().map(|x| f(*x)).sum()) }", help, "f(*x)");
    // Shadowed names are not algorithm calls.
    parse("fn f(xs: Vec<u8>) -> u8 { g(xs.iter().map(|f| f(1)).sum()) }");
    parse("fn f(xs: Vec<u8>) -> u8 { let f = |x: u8| x; g(f(1)) }");
    // Nested structural calls are fine.
    parse("fn f(x: u8) -> u8 { if { let y = f(x); y > 1 } { f(f(x)) } else { 0 } }");
}
