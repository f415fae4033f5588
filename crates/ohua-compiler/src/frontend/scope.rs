//! Lexical scopes of algorithm locals.
//!
//! The frontend needs to know, at every point of the body, which names are
//! algorithm locals (parameters, `let`s, loop and closure patterns, match-arm
//! bindings). Only those can be *uses* of an opaque expression; every other
//! identifier (functions, constants, enum variants) is not dataflow.

use syn::ext::IdentExt;

use super::ast::Pattern;

/// A stack of scopes; each frame holds the names it binds and whether they
/// were declared `mut`.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    frames: Vec<Vec<(String, bool)>>,
}

impl Scope {
    /// A scope with one (the function's) frame.
    pub(crate) fn new() -> Self {
        Scope { frames: vec![Vec::new()] }
    }

    /// Opens a nested scope (a block, a loop body, an arm).
    pub(crate) fn push(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Closes the innermost scope.
    pub(crate) fn pop(&mut self) {
        // The function frame is never popped: push/pop are always paired.
        if self.frames.len() > 1 {
            self.frames.pop();
        }
    }

    /// Binds `name` in the innermost scope (shadowing any outer binding).
    pub(crate) fn bind(&mut self, name: &syn::Ident, mutable: bool) {
        if let Some(frame) = self.frames.last_mut() {
            frame.push((key(name), mutable));
        }
    }

    /// Binds every name of an irrefutable pattern.
    pub(crate) fn bind_pattern(&mut self, pat: &Pattern) {
        match pat {
            Pattern::Ident { name, mutable } => self.bind(name, *mutable),
            Pattern::Tuple(elems, _) => elems.iter().for_each(|p| self.bind_pattern(p)),
            Pattern::Wild(_) => {}
        }
    }

    /// Whether `name` is an algorithm local here; `Some(mutable)` if it is.
    pub(crate) fn lookup(&self, name: &str) -> Option<bool> {
        // Innermost first, so that shadowing decides the `mut` flag.
        self.frames
            .iter()
            .rev()
            .flat_map(|frame| frame.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, mutable)| *mutable)
    }

    /// Whether `name` is an algorithm local here.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.lookup(name).is_some()
    }
}

/// The comparison key of an identifier: `r#type` and `type` are one name.
pub(crate) fn key(ident: &syn::Ident) -> String {
    ident.unraw().to_string()
}
