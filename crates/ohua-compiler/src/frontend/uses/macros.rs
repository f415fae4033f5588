//! Macro calls inside opaque expressions.
//!
//! The standard format-like macros (`format!`, `println!`, `write!`,
//! `assert_eq!`, ..), `vec!`, `dbg!` and `matches!` have arguments that are
//! ordinary expressions, so they are parsed and analysed precisely, including
//! names captured by the format string. For any other macro the compiler
//! cannot know what the tokens mean, so every identifier in its input that
//! names a local counts as a use that may mutate it (conservative).

use proc_macro2::{TokenStream, TokenTree};
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::visit::Visit;

use super::format_string::captured_names;
use super::Collector;
use crate::frontend::scope::key;
use crate::frontend::syntax::{macro_name, plain_ident};

type Args = Punctuated<syn::Expr, syn::Token![,]>;

impl Collector<'_> {
    pub(super) fn macro_call(&mut self, m: &syn::Macro) {
        let understood = match macro_name(&m.path).as_deref() {
            Some("matches") => self.matches(m),
            Some("vec") => self.vec(m),
            Some(name) => match format_position(name) {
                Some(position) => self.format_like(m, position, matches!(name, "write" | "writeln")),
                None => false,
            },
            None => false,
        };
        if !understood {
            self.conservative(m.tokens.clone());
        }
    }

    /// `name!(args..)` whose format string (if any) is argument `position`;
    /// `writes` marks the first argument (the destination) as mutated.
    fn format_like(&mut self, m: &syn::Macro, position: Option<usize>, writes: bool) -> bool {
        let Ok(args) = m.parse_body_with(Args::parse_terminated) else { return false };
        if let (true, Some(dest)) = (writes, args.first()) {
            self.record_root(dest);
        }
        let mut named = Vec::new();
        for arg in &args {
            // `name = value` is a named format argument, not an assignment.
            match arg {
                syn::Expr::Assign(a) if plain_ident(&a.left).is_some() => {
                    named.extend(plain_ident(&a.left).map(key));
                    self.visit_expr(&a.right);
                }
                other => self.visit_expr(other),
            }
        }
        let format = position.and_then(|p| args.iter().nth(p));
        if let Some(syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. })) = format {
            for name in captured_names(&s.value()).into_iter().filter(|n| !named.contains(n)) {
                // Parsing (rather than `Ident::new`) cannot panic on odd names.
                if let Ok(mut ident) = syn::parse_str::<syn::Ident>(&name) {
                    ident.set_span(s.span());
                    self.record(&ident, false);
                }
            }
        }
        true
    }

    /// `vec![a, b]` or `vec![x; n]`.
    fn vec(&mut self, m: &syn::Macro) -> bool {
        let repeat = |input: ParseStream| {
            let value: syn::Expr = input.parse()?;
            input.parse::<syn::Token![;]>()?;
            let count: syn::Expr = input.parse()?;
            Ok((value, count))
        };
        if let Ok((value, count)) = m.parse_body_with(repeat) {
            self.visit_expr(&value);
            self.visit_expr(&count);
            return true;
        }
        self.format_like(m, None, false)
    }

    /// `matches!(e, pat)` / `matches!(e, pat if guard)`: the pattern's
    /// bindings scope over the guard only.
    fn matches(&mut self, m: &syn::Macro) -> bool {
        let parse = |input: ParseStream| {
            let scrutinee: syn::Expr = input.parse()?;
            input.parse::<syn::Token![,]>()?;
            let pat = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = match input.parse::<Option<syn::Token![if]>>()? {
                Some(_) => Some(input.parse::<syn::Expr>()?),
                None => None,
            };
            input.parse::<Option<syn::Token![,]>>()?;
            Ok((scrutinee, pat, guard))
        };
        let Ok((scrutinee, pat, guard)) = parse.parse2(m.tokens.clone()) else { return false };
        self.visit_expr(&scrutinee);
        self.scoped(|this| {
            this.bind(&pat);
            if let Some(guard) = &guard {
                this.visit_expr(guard);
            }
        });
        true
    }

    /// Every identifier token naming a local is a possibly mutating use.
    fn conservative(&mut self, tokens: TokenStream) {
        for token in tokens {
            match token {
                TokenTree::Ident(ident) => self.record(&ident, true),
                TokenTree::Group(group) => self.conservative(group.stream()),
                TokenTree::Punct(_) | TokenTree::Literal(_) => {}
            }
        }
    }
}

/// For a format-like standard macro, which argument is its format string
/// (`Some(None)` for macros without one); `None` for other macros.
fn format_position(name: &str) -> Option<Option<usize>> {
    Some(match name {
        "format" | "format_args" | "print" | "println" | "eprint" | "eprintln" | "panic" | "unreachable" | "todo"
        | "unimplemented" => Some(0),
        "write" | "writeln" | "assert" | "debug_assert" => Some(1),
        "assert_eq" | "assert_ne" | "debug_assert_eq" | "debug_assert_ne" => Some(2),
        "dbg" => None,
        _ => return None,
    })
}
