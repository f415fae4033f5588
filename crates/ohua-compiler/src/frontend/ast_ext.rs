//! Convenience methods on the surface AST.

use proc_macro2::Span;

use super::ast::{Block, Expr, NodeExpr, Pattern, VarUse};

impl Pattern {
    /// The names the pattern binds, left to right.
    pub fn bindings(&self) -> Vec<&syn::Ident> {
        let mut out = Vec::new();
        self.collect_bindings(&mut out);
        out
    }

    fn collect_bindings<'a>(&'a self, out: &mut Vec<&'a syn::Ident>) {
        match self {
            Pattern::Ident { name, .. } => out.push(name),
            Pattern::Tuple(elems, _) => elems.iter().for_each(|p| p.collect_bindings(out)),
            Pattern::Wild(_) => {}
        }
    }

    /// Where the pattern was written.
    pub fn span(&self) -> Span {
        match self {
            Pattern::Ident { name, .. } => name.span(),
            Pattern::Tuple(_, span) | Pattern::Wild(span) => *span,
        }
    }
}

impl Expr {
    /// Where the expression was written.
    pub fn span(&self) -> Span {
        match self {
            Expr::Node(node) => syn::spanned::Spanned::span(&node.expr),
            Expr::Block(block) => block.span,
            Expr::If { span, .. }
            | Expr::Match { span, .. }
            | Expr::For { span, .. }
            | Expr::While { span, .. }
            | Expr::MapCollect { span, .. }
            | Expr::AlgoCall { span, .. } => *span,
        }
    }

    /// The opaque node, if this is one.
    pub fn as_node(&self) -> Option<&NodeExpr> {
        match self {
            Expr::Node(node) => Some(node),
            _ => None,
        }
    }
}

impl Block {
    /// Whether the block is `{}`.
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty() && self.tail.is_none()
    }
}

impl NodeExpr {
    /// The use of the local `name`, if the node refers to it.
    pub fn use_of(&self, name: &str) -> Option<&VarUse> {
        self.uses.iter().find(|u| u.name == name)
    }

    /// The locals the node may mutate.
    pub fn mutated(&self) -> impl Iterator<Item = &syn::Ident> {
        self.uses.iter().filter(|u| u.mutated).map(|u| &u.name)
    }
}
