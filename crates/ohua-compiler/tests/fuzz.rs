//! The compiler's entry point never panics (issue "What a new user hits
//! first", part 1): every input to `#[algorithm]` yields generated code or a
//! `compile_error!` pointing at the user's tokens, both valid Rust tokens.
//! A panic in a proc-macro is an "custom attribute panicked" error with no
//! location, the worst diagnostic a user can get.
//!
//! Inputs: the algorithms of the conformance suite and the examples,
//! mutated at the statement level (deleted, duplicated and swapped
//! statements, inserted `x = x.f(y);` reassignments and aliases) and at the
//! token level (deleted, duplicated, swapped and replaced token trees), plus
//! a corpus of inputs that found bugs (`tests/fuzz_corpus/*.rs`, replayed
//! by `the_corpus_compiles_or_is_rejected`). Longer runs:
//! `PROPTEST_CASES=20000 cargo test -p ohua-compiler --release --test fuzz`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use proptest::prelude::*;
use quote::{quote, ToTokens};
use syn::visit_mut::VisitMut;

/// The algorithms (functions and modules marked `#[algorithm]`) of the seed
/// files, parsed once.
fn seeds() -> std::rc::Rc<Vec<syn::Item>> {
    // Per thread: syntax trees are not `Sync`.
    thread_local!(static SEEDS: std::rc::Rc<Vec<syn::Item>> = std::rc::Rc::new(parse_seeds()));
    SEEDS.with(|s| s.clone())
}

fn parse_seeds() -> Vec<syn::Item> {
    let files = [
        include_str!("../../../tests/tests/constructs.rs"),
        include_str!("../../../tests/tests/regressions.rs"),
        include_str!("../../../tests/tests/streaming.rs"),
        include_str!("../../../tests/tests/runtime_contract.rs"),
        include_str!("../../../tests/tests/fusion.rs"),
        include_str!("../../../examples/src/bin/word_freq.rs"),
        include_str!("../../../examples/src/bin/record_pipeline.rs"),
    ];
    let is_alg = |attrs: &[syn::Attribute]| {
        attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == "algorithm"))
    };
    let mut out = Vec::new();
    for text in files {
        let file = syn::parse_file(text).expect("a seed file parses");
        for item in file.items {
            match item {
                syn::Item::Fn(mut f) if is_alg(&f.attrs) => {
                    f.attrs.retain(|a| !a.path().is_ident("algorithm"));
                    out.push(syn::Item::Fn(f));
                }
                syn::Item::Mod(m) if is_alg(&m.attrs) => out.push(syn::Item::Mod(m)),
                _ => {}
            }
        }
    }
    assert!(out.len() > 20, "too few seed algorithms: {}", out.len());
    out
}

/// Run the entry point; its output must be Rust tokens that parse.
fn expand_checked(input: TokenStream) -> Result<(), String> {
    let shown = input.to_string();
    let out = catch_unwind(AssertUnwindSafe(|| ohua_compiler::expand(TokenStream::new(), input))).map_err(|p| {
        format!(
            "the compiler panicked: {:?}\ninput: {shown}",
            p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        )
    })?;
    syn::parse2::<syn::File>(out.clone())
        .map_err(|e| format!("output does not parse: {e}\ninput: {shown}\noutput: {out}"))?;
    Ok(())
}

/// Random choices, consumed one at a time (wrapping around).
struct Dice<'a>(&'a [u32], usize);

impl Dice<'_> {
    fn below(&mut self, n: usize) -> usize {
        let v = self.0.get(self.1 % self.0.len().max(1)).copied().unwrap_or(0) as usize;
        self.1 += 1;
        if n == 0 {
            0
        } else {
            v % n
        }
    }
}

/// Statement-level mutations in every block, driven by the dice.
struct Statements<'a> {
    dice: Dice<'a>,
    names: Vec<Ident>,
}

impl VisitMut for Statements<'_> {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, b);
        let n = b.stmts.len();
        let (i, j) = (self.dice.below(n.max(1)), self.dice.below(n.max(1)));
        let x = self
            .names
            .get(self.dice.below(self.names.len()))
            .cloned()
            .unwrap_or_else(|| Ident::new("x", Span::call_site()));
        let y = self
            .names
            .get(self.dice.below(self.names.len()))
            .cloned()
            .unwrap_or_else(|| Ident::new("y", Span::call_site()));
        match self.dice.below(8) {
            0 if n > 0 => {
                b.stmts.remove(i);
            }
            1 if n > 0 => {
                let s = b.stmts[i].clone();
                b.stmts.insert(j, s);
            }
            2 if n > 1 => b.stmts.swap(i, j),
            3 => b.stmts.insert(j.min(n), syn::parse_quote!(#x = #x.max(#y);)),
            4 => b.stmts.insert(j.min(n), syn::parse_quote!(let #x = #y;)),
            5 => b.stmts.insert(j.min(n), syn::parse_quote!(#x += f(#y);)),
            6 => {
                let swap: [syn::Stmt; 3] =
                    [syn::parse_quote!(let tmp = #x;), syn::parse_quote!(#x = #y;), syn::parse_quote!(#y = tmp;)];
                let at = j.min(n);
                b.stmts.splice(at..at, swap);
            }
            _ => {}
        }
    }
}

/// Every identifier in `ts`.
fn idents(ts: &TokenStream, out: &mut Vec<Ident>) {
    for t in ts.clone() {
        match t {
            TokenTree::Ident(i) => out.push(i),
            TokenTree::Group(g) => idents(&g.stream(), out),
            _ => {}
        }
    }
}

/// Token-level mutation of the `k`-th token tree (pre-order) of `ts`.
fn mutate_tokens(ts: TokenStream, k: &mut usize, op: usize, donor: &TokenTree) -> TokenStream {
    let mut out = Vec::new();
    let trees: Vec<TokenTree> = ts.into_iter().collect();
    let mut idx = 0;
    while idx < trees.len() {
        let t = trees[idx].clone();
        if *k == 0 {
            *k = usize::MAX;
            match op % 5 {
                0 => {} // delete
                1 => {
                    out.push(t.clone());
                    out.push(t);
                }
                2 => out.push(donor.clone()),
                3 if idx + 1 < trees.len() => {
                    out.push(trees[idx + 1].clone());
                    out.push(t);
                    idx += 1;
                }
                _ => {
                    out.push(TokenTree::Group(Group::new(Delimiter::Parenthesis, t.into_token_stream())));
                }
            }
            idx += 1;
            continue;
        }
        *k = k.wrapping_sub(1);
        match t {
            TokenTree::Group(g) => {
                let inner = mutate_tokens(g.stream(), k, op, donor);
                let mut ng = Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
        idx += 1;
    }
    out.into_iter().collect()
}

fn donors() -> Vec<TokenTree> {
    vec![
        TokenTree::Ident(Ident::new("x", Span::call_site())),
        TokenTree::Ident(Ident::new("for", Span::call_site())),
        TokenTree::Ident(Ident::new("let", Span::call_site())),
        TokenTree::Ident(Ident::new("mut", Span::call_site())),
        TokenTree::Ident(Ident::new("return", Span::call_site())),
        TokenTree::Punct(Punct::new(';', Spacing::Alone)),
        TokenTree::Punct(Punct::new('=', Spacing::Alone)),
        TokenTree::Punct(Punct::new('&', Spacing::Alone)),
        TokenTree::Punct(Punct::new('?', Spacing::Alone)),
        TokenTree::Literal(Literal::u64_unsuffixed(0)),
        TokenTree::Group(Group::new(Delimiter::Brace, TokenStream::new())),
        TokenTree::Group(Group::new(Delimiter::Parenthesis, quote!(a, b))),
    ]
}

proptest! {
    // 300 cases each by default (`PROPTEST_CASES` overrides it). Failures
    // are not persisted by proptest: an input that found a bug goes into
    // `tests/fuzz_corpus/` by hand, with a comment saying what it found.
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_statements_compile_or_are_rejected(seed in 0usize..1000, dice in prop::collection::vec(any::<u32>(), 1..64)) {
        let seeds = seeds();
        let mut item = seeds[seed % seeds.len()].clone();
        let mut names = Vec::new();
        idents(&item.to_token_stream(), &mut names);
        names.retain(|i| { let s = i.to_string(); s.chars().next().is_some_and(|c| c.is_lowercase()) && !matches!(s.as_str(), "let" | "mut" | "for" | "in" | "if" | "else" | "match" | "fn" | "while" | "loop" | "break" | "continue" | "return" | "pub" | "mod" | "use" | "self" | "super" | "crate" | "move" | "ref" | "as" | "impl" | "struct" | "enum" | "true" | "false" | "where" | "type" | "const" | "static" | "unsafe" | "async" | "await" | "dyn") });
        let mut m = Statements { dice: Dice(&dice, 0), names };
        m.visit_item_mut(&mut item);
        prop_assert_eq!(expand_checked(item.into_token_stream()), Ok(()));
    }

    #[test]
    fn mutated_tokens_compile_or_are_rejected(seed in 0usize..1000, at in 0usize..400, op in 0usize..5, donor in 0usize..12) {
        let seeds = seeds();
        let item = seeds[seed % seeds.len()].to_token_stream();
        let mut k = at;
        let mutated = mutate_tokens(item, &mut k, op, &donors()[donor % donors().len()]);
        prop_assert_eq!(expand_checked(mutated), Ok(()));
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

#[test]
fn the_corpus_compiles_or_is_rejected() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("the corpus folder") {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let tokens: TokenStream = text.parse().unwrap_or_else(|e| panic!("{}: does not lex: {e}", path.display()));
        if let Err(e) = expand_checked(tokens) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n > 0, "empty corpus");
}

#[test]
fn arguments_to_the_attribute_are_rejected_with_an_error() {
    let out = ohua_compiler::expand(
        quote!(fast),
        quote!(
            fn f() {}
        ),
    );
    assert!(out.to_string().contains("takes no arguments"), "{out}");
}
