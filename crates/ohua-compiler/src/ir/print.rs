//! Readable text form of the IR, for `OHUA_DUMP`, the CLI and snapshot tests.

use std::fmt::Write;

use quote::ToTokens;

use super::{Code, Input, Ir, Op, Region, Use, VarId};

/// Render an algorithm's IR as indented text.
///
/// # Example
///
/// ```
/// # use ohua_compiler::ir::{Ir, Region, print_ir};
/// let ir = Ir { name: "f".into(), vars: vec![], params: vec![], body: Region::default() };
/// assert!(print_ir(&ir).starts_with("algorithm f"));
/// ```
pub fn print_ir(ir: &Ir) -> String {
    let mut p = Printer { ir, out: String::new() };
    let params: Vec<String> = ir.params.iter().map(|v| p.var(*v)).collect();
    let _ = writeln!(p.out, "algorithm {}({})", ir.name, params.join(", "));
    p.region(&ir.body, 1);
    p.out
}

struct Printer<'a> {
    ir: &'a Ir,
    out: String,
}

fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

impl Printer<'_> {
    fn var(&self, v: VarId) -> String {
        format!("{}_{}", self.ir.vars[v.0 as usize].name, v.0)
    }

    fn vars(&self, vs: &[VarId]) -> String {
        vs.iter().map(|v| self.var(*v)).collect::<Vec<_>>().join(", ")
    }

    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{}", "  ".repeat(depth), text);
    }

    fn region(&mut self, r: &Region, depth: usize) {
        for op in &r.ops {
            self.op(op, depth);
        }
        let y = format!("yield ({})", self.vars(&r.yields));
        self.line(depth, &y);
    }

    fn input(&self, i: &Input) -> String {
        match i.usage {
            Use::Read => self.var(i.var),
            Use::Thread { out } => format!("{} -> {}", self.var(i.var), self.var(out)),
        }
    }

    fn op(&mut self, op: &Op, depth: usize) {
        match op {
            Op::Node(n) => {
                let ins: Vec<String> = n.inputs.iter().map(|i| self.input(i)).collect();
                let code = match &n.code {
                    Code::Let { pat, expr, .. } => match pat {
                        Some(p) => format!("let {} = {}", tokens(p), tokens(expr)),
                        None => tokens(expr),
                    },
                    Code::Assign { target, op, expr } => {
                        let op = op.as_ref().map(tokens).unwrap_or_else(|| "=".into());
                        format!("{target} {op} {}", tokens(expr))
                    }
                    Code::IfSelector(e) => format!("if-selector {}", tokens(e)),
                    Code::MatchDispatch { scrutinee, arms } => {
                        format!("match-dispatch {} ({} arms)", tokens(scrutinee), arms.len())
                    }
                    Code::Unwrap(k) => format!("unwrap-arm {k}"),
                    Code::Const(e) => format!("const {}", tokens(e)),
                    Code::Pack => "pack".into(),
                    Code::Unpack => "unpack".into(),
                    Code::Continue => "continue".into(),
                    Code::Break => "break".into(),
                    Code::CloneOf => "clone".into(),
                    Code::Await => "await".into(),
                };
                let line =
                    format!("[{}] ({}) = node({}) {{ {} }}", n.name, self.vars(&n.outputs), ins.join(", "), code);
                self.line(depth, &line);
            }
            Op::Branch { sel, arms, outs, .. } => {
                let l = format!("({}) = branch {} {{", self.vars(outs), self.var(*sel));
                self.line(depth, &l);
                for (k, a) in arms.iter().enumerate() {
                    self.line(depth + 1, &format!("arm {k}:"));
                    self.region(a, depth + 2);
                }
                self.line(depth, "}");
            }
            Op::For { coll, elem, carried, collect, body, .. } => {
                let c: Vec<String> = carried
                    .iter()
                    .map(|c| format!("{} <- {} -> {}", self.var(c.inner), self.var(c.init), self.var(c.after)))
                    .collect();
                let col = collect.as_ref().map(|(v, _)| format!(" collect into {}", self.var(*v))).unwrap_or_default();
                let l = format!("for {} in {} carry [{}]{} {{", self.var(*elem), self.var(*coll), c.join("; "), col);
                self.line(depth, &l);
                self.region(body, depth + 1);
                self.line(depth, "}");
            }
            Op::Loop { carried, body, outs, .. } => {
                let c: Vec<String> =
                    carried.iter().map(|c| format!("{} <- {}", self.var(c.inner), self.var(c.init))).collect();
                let l = format!("({}) = loop carry [{}] {{", self.vars(outs), c.join("; "));
                self.line(depth, &l);
                self.region(body, depth + 1);
                self.line(depth, "}");
            }
        }
    }
}
