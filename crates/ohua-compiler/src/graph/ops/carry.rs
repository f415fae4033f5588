//! `carry`: values carried around a `for` loop. In 0 = init, 1 = ticks,
//! 2 = feedback; out 0 = current, 1 = final.

use proc_macro2::TokenStream;
use quote::quote;

use super::Operator;
use super::emit::{num, Emit};
use crate::graph::Kind;
use crate::ir::Code;

/// Values carried around a `for` loop.
#[derive(Debug, Clone)]
pub struct Carry {
    /// Level of the loop's parent.
    pub level: u16,
}

impl Operator for Carry {
    fn name(&self) -> &'static str {
        "carry"
    }

    fn ports(&self) -> (usize, usize) {
        (3, 2)
    }

    fn emit(&self, e: &Emit<'_>) -> TokenStream {
        let (rt, g, n) = (e.rt(), e.g, e.n);
        let (i, t, f) = (e.input(0), e.input(1), e.input(2));
        let (c, fin, level) = (e.output(0), e.output(1), num(self.level));
        // The carried values come packed in a tuple; up to 12 parts
        // (`ohua_runtime::update::Parts`) markers can transform and save
        // them, as the states the loop body threads.
        let parts = g.arc_to(n, 0).map(|a| g.arcs[a].from.0).map(|p| &g.nodes[p]).and_then(|p| match &p.kind {
            Kind::Call(c) if matches!(c.code, Code::Pack) => Some(p.inputs()),
            _ => None,
        });
        e.install(match parts {
            Some(1..=12) => quote!(#rt::Carry::new(#i, #t, #f, #level, #c, #fin).with_states()),
            _ => quote!(#rt::Carry::new(#i, #t, #f, #level, #c, #fin)),
        })
    }
}
