// A program as an Ohua algorithm in plain sequential style: one `let` per
// node in level order, a fetch as its own `let`, subfunctions as
// `#[algorithm]` fns of the same `#[algorithm] mod`, maps as collecting
// maps. `build.rs` `include!`s this file to write the compiled programs.
//
// The module expects in scope (`use super::*`): `Source`, `Db`, `mix`,
// `key`, `list`, `slow_key` and `ok` (see `runtime.rs`).

use std::fmt::Write;

use super::graph::{Graph, Kind, Program, SLOW, SLOW_UID};

/// The parameter list every emitted function starts with.
const SOURCES: &str = "s0: &Source<Db>, s1: &Source<Db>, s2: &Source<Db>";

fn source(s: usize) -> String {
    if s == SLOW {
        "slow".to_string()
    } else {
        format!("s{s}")
    }
}

/// `#[ohua::algorithm] mod <name> { .. pub fn run(s0, s1, s2, slow, x) -> u64 }`.
pub fn module(name: &str, p: &Program) -> String {
    let mut fns = Vec::new();
    let mut body = String::new();
    let sinks = stmts(&p.graph, "x", &mut body, &mut fns, "        ");
    let mut result = sinks;
    if p.params.slow {
        writeln!(body, "        let sl_r = slow.fetch(slow_key(x));").unwrap();
        writeln!(body, "        let sl = ok(sl_r);").unwrap();
        result.push("sl".to_string());
    }
    let mut out = String::new();
    writeln!(out, "#[ohua::algorithm]\npub mod {name} {{\n    use super::*;\n").unwrap();
    for f in fns {
        out.push_str(&f);
    }
    writeln!(out, "    #[algorithm]").unwrap();
    writeln!(out, "    pub fn run({SOURCES}, slow: &Source<Db>, x: u64) -> u64 {{").unwrap();
    out.push_str(&body);
    writeln!(out, "        mix(&[{}], {SLOW_UID})\n    }}\n}}\n", result.join(", ")).unwrap();
    out
}

/// Emit the statements of `g` with parameter `param` into `out`; nested
/// subfunctions go to `fns`. Returns the names of the sinks' values.
fn stmts(g: &Graph, param: &str, out: &mut String, fns: &mut Vec<String>, ind: &str) -> Vec<String> {
    let name = |i: usize| format!("n{}", g.nodes[i].uid);
    for n in &g.nodes {
        let v = format!("n{}", n.uid);
        let args = if n.inputs.is_empty() {
            param.to_string()
        } else {
            n.inputs.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ")
        };
        match &n.kind {
            Kind::Compute => writeln!(out, "{ind}let {v} = mix(&[{args}], {});", n.uid).unwrap(),
            Kind::Io(s) => {
                writeln!(out, "{ind}let {v}_r = {}.fetch(key(&[{args}], {}, {}));", source(*s), n.uid, n.depth)
                    .unwrap();
                writeln!(out, "{ind}let {v} = ok({v}_r);").unwrap();
            }
            Kind::Sub(b) => {
                let f = function(b, fns);
                fns.push(f);
                writeln!(out, "{ind}let {v}_a = mix(&[{args}], {});", n.uid).unwrap();
                writeln!(out, "{ind}let {v} = f{}(s0, s1, s2, {v}_a);", b.uid).unwrap();
            }
            Kind::Map(b) => {
                writeln!(out, "{ind}let {v}_xs = list(mix(&[{args}], {}));", n.uid).unwrap();
                let e = format!("e{}", n.uid);
                writeln!(out, "{ind}let {v}_v: Vec<u64> = {v}_xs\n{ind}    .into_iter()\n{ind}    .map(|{e}| {{")
                    .unwrap();
                let inner = format!("{ind}        ");
                let sinks = stmts(b, &e, out, fns, &inner);
                writeln!(out, "{inner}let r{} = mix(&[{}], {});", b.uid, sinks.join(", "), b.uid).unwrap();
                writeln!(out, "{inner}r{}\n{ind}    }})\n{ind}    .collect();", b.uid).unwrap();
                writeln!(out, "{ind}let {v} = mix(&{v}_v, {});", n.uid).unwrap();
            }
        }
    }
    g.sinks().into_iter().map(name).collect()
}

/// A subfunction: `#[algorithm] pub fn f<uid>(s0, s1, s2, x) -> u64`.
fn function(g: &Graph, fns: &mut Vec<String>) -> String {
    let mut body = String::new();
    let sinks = stmts(g, "x", &mut body, fns, "        ");
    format!(
        "    #[algorithm]\n    pub fn f{}({SOURCES}, x: u64) -> u64 {{\n{body}        mix(&[{}], {})\n    }}\n\n",
        g.uid,
        sinks.join(", "),
        g.uid
    )
}
