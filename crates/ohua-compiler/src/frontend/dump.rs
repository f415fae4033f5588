//! A readable text dump of the surface AST (`Display`), for debugging and
//! snapshot tests.
//!
//! Structure is printed like Rust; an opaque node prints as
//! `node(EXPR)[uses]` with mutated uses marked `mut`, e.g.
//! `node(s.push(x))[mut s, x]`. Algorithm calls print as `algo f(..)`, a
//! collecting map as `map |PAT| BODY over ITER collect::<T>`, and match arms
//! list their bindings as `PAT [a, b] if GUARD => BODY`.

use std::fmt;

use quote::ToTokens;

use super::ast::{Algorithm, Arm, Block, Expr, NodeExpr, Pattern, Stmt};
use super::print_syn::{rust_expr, rust_pat, rust_type};

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = self.params.iter().map(|p| p.pat.to_string()).collect();
        write!(f, "fn {}({}) ", self.name, params.join(", "))?;
        write_block(f, &self.body, 0)?;
        writeln!(f)
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Ident { name, mutable: true } => write!(f, "mut {name}"),
            Pattern::Ident { name, mutable: false } => write!(f, "{name}"),
            Pattern::Tuple(elems, _) => {
                let elems: Vec<String> = elems.iter().map(ToString::to_string).collect();
                write!(f, "({})", elems.join(", "))
            }
            Pattern::Wild(_) => write!(f, "_"),
        }
    }
}

impl fmt::Display for NodeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let uses: Vec<String> =
            self.uses.iter().map(|u| if u.mutated { format!("mut {}", u.name) } else { u.name.to_string() }).collect();
        write!(f, "node({})[{}]", rust_expr(&self.expr), uses.join(", "))
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

fn write_expr(f: &mut fmt::Formatter<'_>, e: &Expr, depth: usize) -> fmt::Result {
    match e {
        Expr::Node(node) => write!(f, "{node}"),
        Expr::Block(block) => write_block(f, block, depth),
        Expr::If { cond, then, else_, .. } => {
            write!(f, "if ")?;
            write_expr(f, cond, depth)?;
            write!(f, " ")?;
            write_block(f, then, depth)?;
            if let Some(else_) = else_ {
                write!(f, " else ")?;
                write_expr(f, else_, depth)?;
            }
            Ok(())
        }
        Expr::Match { scrutinee, arms, .. } => {
            write!(f, "match ")?;
            write_expr(f, scrutinee, depth)?;
            writeln!(f, " {{")?;
            arms.iter().try_for_each(|arm| write_arm(f, arm, depth + 1))?;
            write!(f, "{}}}", indent(depth))
        }
        Expr::For { pat, iter, body, .. } => {
            write!(f, "for {pat} in ")?;
            write_expr(f, iter, depth)?;
            write!(f, " ")?;
            write_block(f, body, depth)
        }
        Expr::While { cond, body, .. } => {
            write!(f, "while ")?;
            write_expr(f, cond, depth)?;
            write!(f, " ")?;
            write_block(f, body, depth)
        }
        Expr::MapCollect { iter, pat, body, collect_ty, .. } => {
            write!(f, "map |{pat}| ")?;
            write_expr(f, body, depth)?;
            write!(f, " over ")?;
            write_expr(f, iter, depth)?;
            match collect_ty {
                Some(ty) => write!(f, " collect::<{}>", rust_type(ty)),
                None => write!(f, " collect"),
            }
        }
        Expr::AlgoCall { name, args, .. } => {
            write!(f, "algo {name}(")?;
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write_expr(f, arg, depth)?;
            }
            write!(f, ")")
        }
    }
}

fn write_arm(f: &mut fmt::Formatter<'_>, arm: &Arm, depth: usize) -> fmt::Result {
    let bindings: Vec<String> = arm.bindings.iter().map(ToString::to_string).collect();
    let pat = rust_pat(&arm.pat);
    write!(f, "{}{pat} [{}]", indent(depth), bindings.join(", "))?;
    if let Some(guard) = &arm.guard {
        write!(f, " if {guard}")?;
    }
    write!(f, " => ")?;
    write_expr(f, &arm.body, depth)?;
    writeln!(f, ",")
}

fn write_block(f: &mut fmt::Formatter<'_>, block: &Block, depth: usize) -> fmt::Result {
    if block.stmts.is_empty() && block.tail.is_none() {
        return write!(f, "{{}}");
    }
    writeln!(f, "{{")?;
    let inner = indent(depth + 1);
    for stmt in &block.stmts {
        write!(f, "{inner}")?;
        match stmt {
            Stmt::Let { pat, ty, init, .. } => {
                write!(f, "let {pat}")?;
                if let Some(ty) = ty {
                    write!(f, ": {}", rust_type(ty))?;
                }
                write!(f, " = ")?;
                write_expr(f, init, depth + 1)?;
            }
            Stmt::Assign { target, op, value, .. } => {
                let op = op.map_or("=".to_string(), |op| op.to_token_stream().to_string());
                write!(f, "{target} {op} ")?;
                write_expr(f, value, depth + 1)?;
            }
            Stmt::Expr { expr, .. } => write_expr(f, expr, depth + 1)?,
        }
        writeln!(f, ";")?;
    }
    if let Some(tail) = &block.tail {
        write!(f, "{inner}")?;
        write_expr(f, tail, depth + 1)?;
        writeln!(f)?;
    }
    write!(f, "{}}}", indent(depth))
}

fn indent(depth: usize) -> String {
    "    ".repeat(depth)
}
