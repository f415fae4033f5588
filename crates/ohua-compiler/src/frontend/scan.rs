//! Shadow-aware use counting over the surface AST.
//!
//! Resolution asks two questions about a binding: is it a *state object*
//! (mutated anywhere in its scope, so every use must thread it), and, for a
//! loop, is it used at exactly one call site inside the loop (so it can stay
//! resident in that operator instead of being carried around the loop)?

use super::ast::{Block, Expr, NodeExpr, Pattern, Stmt};

/// How one name is used in a piece of code (until it is shadowed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UseStats {
    /// Node expressions that may mutate it (method receiver, `&mut`, `x = node`).
    pub mutating_nodes: usize,
    /// Node expressions that only read it.
    pub reading_nodes: usize,
    /// Any other use: a bare alias `let y = x`, a match guard.
    pub other: usize,
    /// Assignments whose right-hand side is structural (`x = if ..`, `x = algo(..)`).
    pub structural_assigns: usize,
}

impl UseStats {
    /// Whether anything mutates the name.
    pub fn mutated(&self) -> bool {
        self.mutating_nodes > 0
    }

    /// Whether the name is used at all.
    pub fn used(&self) -> bool {
        self.mutating_nodes + self.reading_nodes + self.other + self.structural_assigns > 0
    }

    /// Node expressions using the name.
    pub fn nodes(&self) -> usize {
        self.mutating_nodes + self.reading_nodes
    }

    fn add(&mut self, o: UseStats) {
        self.mutating_nodes += o.mutating_nodes;
        self.reading_nodes += o.reading_nodes;
        self.other += o.other;
        self.structural_assigns += o.structural_assigns;
    }
}

/// Whether `pat` binds `name`.
pub fn binds(pat: &Pattern, name: &str) -> bool {
    match pat {
        Pattern::Ident { name: n, .. } => n == name,
        Pattern::Tuple(ps, _) => ps.iter().any(|p| binds(p, name)),
        Pattern::Wild(_) => false,
    }
}

/// Whether a node expression is just the local `name` (an alias, not a computation).
pub fn is_alias_of(n: &NodeExpr) -> Option<&syn::Ident> {
    match &n.expr {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() && n.uses.len() == 1 => {
            p.path.get_ident()
        }
        _ => None,
    }
}

/// Uses of `name` in statements followed by an optional tail, stopping where
/// a `let` shadows it.
pub fn scan_stmts(stmts: &[Stmt], tail: Option<&Expr>, name: &str) -> UseStats {
    let mut s = UseStats::default();
    for st in stmts {
        match st {
            Stmt::Let { pat, init, .. } => {
                s.add(scan_expr(init, name));
                if binds(pat, name) {
                    return s;
                }
            }
            Stmt::Assign { target, value, .. } => match value {
                // `x = node`, `x += node`, `x = x.max(n)`: one operator that
                // threads `x`, however the node itself uses `x` (reading it,
                // calling a method on it). Counting the node's own use first
                // and then converting it assumed that use was a read: the
                // subtraction overflowed for a method receiver (regression
                // test `reassigning_through_a_method_of_the_same_name`).
                Expr::Node(_) if target == name => s.mutating_nodes += 1,
                _ => {
                    s.add(scan_expr(value, name));
                    if target == name {
                        s.structural_assigns += 1;
                    }
                }
            },
            Stmt::Expr { expr, .. } => s.add(scan_expr(expr, name)),
        }
    }
    if let Some(t) = tail {
        s.add(scan_expr(t, name));
    }
    s
}

/// Uses of `name` in a block.
pub fn scan_block(b: &Block, name: &str) -> UseStats {
    scan_stmts(&b.stmts, b.tail.as_deref(), name)
}

/// Uses of `name` in an expression.
pub fn scan_expr(e: &Expr, name: &str) -> UseStats {
    let mut s = UseStats::default();
    match e {
        Expr::Node(n) => s.add(scan_node(n, name)),
        Expr::Block(b) => s.add(scan_block(b, name)),
        Expr::If { cond, then, else_, .. } => {
            s.add(scan_expr(cond, name));
            s.add(scan_block(then, name));
            if let Some(e) = else_ {
                s.add(scan_expr(e, name));
            }
        }
        Expr::Match { scrutinee, arms, .. } => {
            s.add(scan_expr(scrutinee, name));
            for arm in arms {
                if let Some(g) = &arm.guard {
                    if g.uses.iter().any(|u| u.name == name) {
                        s.other += 1;
                    }
                }
                if !arm.bindings.iter().any(|b| b == name) {
                    s.add(scan_expr(&arm.body, name));
                }
            }
        }
        Expr::For { pat, iter, body, .. } => {
            s.add(scan_expr(iter, name));
            if !binds(pat, name) {
                s.add(scan_block(body, name));
            }
        }
        Expr::While { cond, body, .. } => {
            s.add(scan_expr(cond, name));
            s.add(scan_block(body, name));
        }
        Expr::MapCollect { iter, pat, body, .. } => {
            s.add(scan_expr(iter, name));
            if !binds(pat, name) {
                s.add(scan_expr(body, name));
            }
        }
        Expr::AlgoCall { args, .. } => args.iter().for_each(|a| s.add(scan_expr(a, name))),
    }
    s
}

fn scan_node(n: &NodeExpr, name: &str) -> UseStats {
    let mut s = UseStats::default();
    if let Some(u) = n.uses.iter().find(|u| u.name == name) {
        if is_alias_of(n).is_some() {
            s.other += 1;
        } else if u.mutated {
            s.mutating_nodes += 1;
        } else {
            s.reading_nodes += 1;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    /// `peak = peak.max(n)`: the node calls a method on the name it
    /// reassigns. The use scan subtracted a read it had not counted and
    /// overflowed (a panic of the macro in every debug build).
    #[test]
    fn reassigning_through_a_method_of_the_same_name() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn peak_of(xs: Vec<u64>) -> u64 {
                let mut peak = 0;
                for n in xs {
                    peak = peak.max(n);
                }
                peak
            }
        };
        let compiled = crate::compile(&f, &[]).expect("compiles");
        assert!(compiled.graph.nodes.iter().any(|n| n.label.contains("peak . max (n)")));
        let body = crate::frontend::parse_algorithm(&f, std::slice::from_ref(&f.sig.ident)).expect("parses").body;
        // After `let mut peak = 0;`, which the scan treats as shadowing.
        let stats = super::scan_stmts(&body.stmts[1..], None, "peak");
        assert_eq!((stats.mutating_nodes, stats.reading_nodes), (1, 0), "{stats:?}");
    }
}
