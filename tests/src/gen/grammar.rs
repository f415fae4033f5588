// Generator of random well-formed algorithms.
//
// This file is shared: `src/gen/mod.rs` and `build.rs` both `include!` it, so
// it must not depend on anything but `std`. It is deterministic: the same
// `(seed, index)` always yields the same program text.

/// A tiny deterministic PRNG (SplitMix64), so the generator needs no crates.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }
    /// A small signed literal.
    pub fn lit(&mut self) -> i64 {
        self.below(21) as i64 - 10
    }
}

/// Helper functions and imports shared by every generated program.
pub const PRELUDE: &str = r#"
use ohua::{algorithm, Source};
use ohua_conformance::{check, check_io, check_serialized, on_cluster, GenDb, KeyedLog, LocalLog, Log, SnapLog};

pub fn f1(a: i64) -> i64 { a.wrapping_mul(3).wrapping_add(1) }
pub fn f2(a: i64, b: i64) -> i64 { a.wrapping_mul(31).wrapping_add(b) ^ 7 }
pub fn f3(a: i64, b: i64, c: i64) -> i64 { a.wrapping_sub(b).wrapping_mul(c | 1) }
pub fn g2(a: i64) -> (i64, i64) { (a.wrapping_add(1), a.wrapping_sub(2)) }
pub fn inc(a: i64) -> i64 { a.wrapping_add(1) }
pub fn lit(a: i64) -> i64 { a }
pub fn text(a: i64) -> String { format!("t{a}") }
pub fn pick(a: i64) -> Option<String> { (a % 2 == 0).then(|| format!("p{a}")) }
pub fn measure(a: String, b: String) -> i64 {
    let h = |s: &str| s.bytes().fold(7i64, |h, c| h.wrapping_mul(31).wrapping_add(c as i64));
    f2(h(&a), h(&b))
}
pub fn measure1(a: String) -> i64 { measure(a, String::new()) }
"#;

/// The per-program choices that shape the body.
struct Gen {
    rng: Rng,
    /// Immutable `i64` locals visible, one frame per block.
    scopes: Vec<Vec<String>>,
    /// Mutable `i64` locals (loop-carried accumulators), one frame per block.
    muts: Vec<Vec<String>>,
    /// State objects usable in the current body.
    states: Vec<String>,
    /// Whether a `Vec<i64>` named `xs` is in scope.
    has_xs: bool,
    /// Whether `helper` may be called (only in `alg`, only at top level).
    helper: bool,
    next: usize,
    budget: isize,
    loop_depth: usize,
    tag: usize,
    /// The keyed state `ks` exists in this program.
    keyed: bool,
    /// The snapshot state `ss` exists in this program (issue 24).
    snap: bool,
    /// Inside the body of a top-level `for` loop of a program with `ks`:
    /// the key of this iteration (a local only keyed calls use, so calls on
    /// `ks` in one iteration are all for one key, as `ohua::Keyed` requires).
    key: Option<String>,
    /// Data source parameters the body may fetch from (none: no I/O).
    io: Vec<String>,
    /// Those it may also write to (never `ra`, which `helper` reads: the
    /// order of a caller's writes and a called algorithm's reads is not
    /// kept).
    writable: Vec<String>,
    /// In a `cluster` program: draws runs of one-argument calls in loops
    /// (`chain_stmt`), which the compiler merges into one distributable
    /// call. A generator of its own, so the other programs stay as they were.
    chains: Option<Rng>,
}

impl Gen {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }
    fn visible(&self) -> Vec<String> {
        let mut v: Vec<String> = self.scopes.iter().flatten().cloned().collect();
        v.extend(self.muts.iter().flatten().cloned());
        v
    }
    fn var(&mut self) -> String {
        let v = self.visible();
        if v.is_empty() || self.rng.chance(1, 12) {
            format!("lit({})", self.rng.lit())
        } else {
            v[self.rng.below(v.len())].clone()
        }
    }
    fn mut_vars(&self) -> Vec<String> {
        self.muts.iter().flatten().cloned().collect()
    }
    fn bind(&mut self, name: String) {
        self.scopes.last_mut().unwrap().push(name);
    }
    /// A name for a new immutable binding: usually fresh, sometimes shadowing
    /// an immutable local.
    fn new_name(&mut self) -> String {
        let imm: Vec<String> = self.scopes.iter().flatten().cloned().collect();
        if !imm.is_empty() && self.rng.chance(1, 8) {
            imm[self.rng.below(imm.len())].clone()
        } else {
            self.fresh("x")
        }
    }
    fn state(&mut self) -> Option<String> {
        if self.states.is_empty() {
            None
        } else {
            Some(self.states[self.rng.below(self.states.len())].clone())
        }
    }
    fn push_scope(&mut self) {
        self.scopes.push(Vec::new());
        self.muts.push(Vec::new());
    }
    fn pop_scope(&mut self) {
        self.scopes.pop();
        self.muts.pop();
    }

    /// A stateless call expression.
    fn call(&mut self) -> String {
        match self.rng.below(4) {
            0 => format!("f1({})", self.var()),
            1 => format!("f2({}, {})", self.var(), self.var()),
            2 => format!("f3({}, {}, {})", self.var(), self.var(), self.var()),
            _ => format!("inc({})", self.var()),
        }
    }
    /// A boolean condition over locals (operators are stateless nodes),
    /// or, in programs with the snapshot state, sometimes over a read of it.
    fn cond(&mut self) -> String {
        if self.snap && self.rng.chance(1, 5) {
            // A condition that reads the snapshot state: split as a `let` is.
            return format!("{} % 5 == 2", self.snap_read());
        }
        self.plain_cond()
    }

    /// What a `match` takes apart: a local, or in programs with the
    /// snapshot state sometimes a read of it.
    fn scrutinee(&mut self) -> String {
        if self.snap && self.rng.chance(1, 3) {
            self.snap_read()
        } else {
            self.var()
        }
    }

    /// A boolean condition over locals only.
    fn plain_cond(&mut self) -> String {
        match self.rng.below(3) {
            0 => format!("{} > {}", self.var(), self.var()),
            1 => format!("{} % 3 == 0", self.var()),
            _ => format!("{} <= {}", self.var(), self.rng.lit()),
        }
    }
    /// A value expression: a call, or a state call returning `i64`.
    fn value(&mut self) -> String {
        if self.snap && self.rng.chance(1, 6) {
            return self.snap_read();
        }
        if self.rng.chance(1, 4) {
            if let Some(s) = self.state() {
                return if self.rng.chance(2, 3) { format!("{s}.push({})", self.var()) } else { format!("{s}.peek()") };
            }
        }
        self.call()
    }

    /// A read of the snapshot state as an expression: one `&self` call, a
    /// generic one whose argument borrows a local (the local is used again
    /// later: the step keeps it and the read gets a copy), one whose result
    /// borrows the state inside a chain, or several calls in one expression.
    fn snap_read(&mut self) -> String {
        match self.rng.below(5) {
            0 | 1 => format!("ss.read({})", self.var()),
            2 => format!("ss.near(&{})", self.var()),
            3 => format!("ss.get({}).copied().unwrap_or({})", self.var(), self.var()),
            _ => format!("f2(ss.read({}), {}) + ss.near(&{})", self.var(), self.var(), self.var()),
        }
    }

    fn block(&mut self, out: &mut String, ind: usize, n: usize) {
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.stmt(out, ind);
        }
    }

    /// A `{ stmts; tail }` block used as a value.
    fn value_block(&mut self, ind: usize) -> String {
        let mut s = String::from("{\n");
        self.push_scope();
        let n = self.rng.below(3);
        self.block(&mut s, ind + 1, n);
        let tail = if self.rng.chance(1, 2) { self.var() } else { self.value() };
        s += &format!("{}{tail}\n", pad(ind + 1));
        self.pop_scope();
        s += &format!("{}}}", pad(ind));
        s
    }

    fn stmt_block(&mut self, ind: usize) -> String {
        let mut s = String::from("{\n");
        self.push_scope();
        let n = 1 + self.rng.below(3);
        self.block(&mut s, ind + 1, n);
        self.pop_scope();
        s += &format!("{}}}", pad(ind));
        s
    }

    /// A run of 2-4 calls of one argument, each the only use of the one
    /// before (`let c1 = f1(v); let c2 = text(c1); let c3 = measure1(c2);`),
    /// only the last bound for later statements: in a `cluster` program the
    /// compiler merges it into one distributable call
    /// (`graph/remote_chains.rs`). Drawn from `chains`.
    fn chain_stmt(&mut self, out: &mut String, ind: usize) {
        let p = pad(ind);
        let mut rng = self.chains.take().expect("a cluster program");
        let mut prev = self.var();
        let n = 2 + rng.below(3);
        for i in 0..n {
            let x = self.fresh("c");
            let last = i + 1 == n;
            // `text` gives a `String`, which `measure1` (or the run's end,
            // as the last link's input) turns back into an `i64`.
            let call = match rng.below(4) {
                0 if !last => {
                    *out += &format!("{p}let {x} = text({prev});\n");
                    let y = self.fresh("c");
                    *out += &format!("{p}let {y} = measure1({x});\n");
                    prev = y;
                    continue;
                }
                0 | 1 => "f1",
                2 => "inc",
                _ => "lit",
            };
            *out += &format!("{p}let {x} = {call}({prev});\n");
            prev = x;
        }
        self.bind(prev);
        self.chains = Some(rng);
    }

    fn stmt(&mut self, out: &mut String, ind: usize) {
        self.budget -= 1;
        let p = pad(ind);
        let nest = ind < 5 && self.budget > 2;
        if let (Some(key), 1) = (self.key.clone(), self.loop_depth) {
            if self.rng.chance(1, 3) {
                // A call on the keyed state, for this iteration's key; every
                // third one also reads the parameter `k` (a value from
                // outside the loop that each replica holds a copy of). Chosen
                // by the name counter, not the random stream, so that the
                // other programs stay as they were.
                let with_k = self.next.is_multiple_of(3);
                let arg = |v: String| if with_k { format!("f2({v}, k)") } else { v };
                if self.rng.chance(1, 2) {
                    let x = self.new_name();
                    *out += &format!("{p}let {x} = ks.record(&{key}, {});\n", arg(self.var()));
                    self.bind(x);
                } else {
                    *out += &format!("{p}ks.record(&{key}, {});\n", arg(self.var()));
                }
                return;
            }
        }
        if self.loop_depth >= 1 && self.chains.as_mut().is_some_and(|c| c.chance(1, 5)) {
            self.chain_stmt(out, ind);
            return;
        }
        if !self.io.is_empty() && self.rng.chance(1, 5) {
            self.io_stmt(out, ind);
            return;
        }
        if self.snap && self.rng.chance(1, 5) {
            // The snapshot state: a read bound by a `let` (it runs on a
            // snapshot, off the state's path), a write, or a write's
            // version bound. Drawn only in programs with `ss`, so that
            // the others stay as they were.
            let v = self.var();
            match self.rng.below(3) {
                0 => {
                    let x = self.new_name();
                    let read = self.snap_read();
                    *out += &format!("{p}let {x} = {read};\n");
                    self.bind(x);
                }
                1 => *out += &format!("{p}ss.write({v});\n"),
                _ => {
                    let x = self.new_name();
                    *out += &format!("{p}let {x} = ss.write({v});\n");
                    self.bind(x);
                }
            }
            return;
        }
        let r = self.rng.below(100);
        if r < 22 {
            let e = self.value();
            let x = self.new_name();
            *out += &format!("{p}let {x} = {e};\n");
            self.bind(x);
        } else if r < 28 {
            let (a, b) = (self.new_name(), self.fresh("x"));
            let e = if self.rng.chance(1, 2) {
                format!("g2({})", self.var())
            } else {
                format!("({}, {})", self.call(), self.call())
            };
            *out += &format!("{p}let ({a}, {b}) = {e};\n");
            self.bind(a);
            self.bind(b);
        } else if r < 40 {
            if let Some(s) = self.state() {
                if self.rng.chance(1, 2) {
                    self.tag += 1;
                    *out += &format!("{p}{s}.mark(\"t{}\");\n", self.tag);
                } else {
                    *out += &format!("{p}{s}.push({});\n", self.var());
                }
            }
        } else if r < 48 {
            let m = self.mut_vars();
            if !m.is_empty() {
                let m = m[self.rng.below(m.len())].clone();
                *out += &format!("{p}{m} = f2({m}, {});\n", self.var());
            } else {
                let m = self.fresh("m");
                *out += &format!("{p}let mut {m} = {};\n", self.rng.lit());
                self.muts.last_mut().unwrap().push(m);
            }
        } else if r < 54 && nest {
            // if / else if / else as a statement
            *out += &format!("{p}if {} ", self.cond());
            *out += &self.stmt_block(ind);
            if self.rng.chance(1, 2) {
                *out += &format!(" else if {} ", self.cond());
                *out += &self.stmt_block(ind);
            }
            if self.rng.chance(2, 3) {
                *out += " else ";
                *out += &self.stmt_block(ind);
            }
            *out += "\n";
        } else if r < 59 && nest {
            // if as a value
            let c = self.cond();
            let a = self.value_block(ind);
            let b = self.value_block(ind);
            let x = self.new_name();
            *out += &format!("{p}let {x} = if {c} {a} else {b};\n");
            self.bind(x);
        } else if r < 65 && nest {
            // match as a statement, sometimes with a guard
            let v = self.scrutinee();
            *out += &format!("{p}match {v} % 3 {{\n");
            *out += &format!("{}0 => ", pad(ind + 1));
            *out += &self.stmt_block(ind + 1);
            *out += "\n";
            if self.rng.chance(1, 2) {
                // A guard calls no state (the compiler asks for a `let` first).
                let g = self.plain_cond();
                *out += &format!("{}1 if {g} => ", pad(ind + 1));
                *out += &self.stmt_block(ind + 1);
                *out += "\n";
            }
            *out += &format!("{}1 => ", pad(ind + 1));
            *out += &self.stmt_block(ind + 1);
            *out += "\n";
            *out += &format!("{}_ => ", pad(ind + 1));
            *out += &self.stmt_block(ind + 1);
            *out += &format!("\n{p}}}\n");
        } else if r < 69 && nest {
            // match as a value
            let v = self.scrutinee();
            let a = self.value_block(ind + 1);
            let b = self.value_block(ind + 1);
            let c = self.value_block(ind + 1);
            let x = self.new_name();
            let q = pad(ind + 1);
            *out += &format!("{p}let {x} = match {v} % 3 {{\n{q}0 => {a}\n{q}1 => {b}\n{q}_ => {c}\n{p}}};\n");
            self.bind(x);
        } else if r < 80 && nest && self.loop_depth < 2 {
            self.for_loop(out, ind);
        } else if r < 84 && nest && self.loop_depth < 2 {
            // while with a bounded counter
            let i = self.fresh("i");
            let bound = 1 + self.rng.below(3);
            *out += &format!("{p}let mut {i} = 0;\n{p}while {i} < {bound} {{\n");
            self.loop_depth += 1;
            self.push_scope();
            let n = 1 + self.rng.below(3);
            self.block(out, ind + 1, n);
            self.pop_scope();
            self.loop_depth -= 1;
            *out += &format!("{}{i} = inc({i});\n{p}}}\n", pad(ind + 1));
            self.bind(i);
        } else if r < 90 && self.has_xs && ind < 5 {
            // smap with collect, then a fold over the result
            let v = self.fresh("v");
            let ys = self.fresh("ys");
            *out += &format!("{p}let {ys} = xs.clone().into_iter().map(|{v}| {{\n");
            self.push_scope();
            self.bind(v.clone());
            // no assignments to outer mutable locals inside the closure
            let saved = std::mem::take(&mut self.muts);
            self.muts = vec![Vec::new(); saved.len()];
            let n = self.rng.below(3);
            self.block(out, ind + 1, n);
            self.muts = saved;
            let tail = self.value();
            *out += &format!("{}{tail}\n", pad(ind + 1));
            self.pop_scope();
            *out += &format!("{p}}}).collect::<Vec<i64>>();\n");
            let x = self.new_name();
            *out += &format!("{p}let {x} = {ys}.iter().fold(0i64, |a, b| a.wrapping_add(*b));\n");
            self.bind(x);
        } else if r < 94 && self.helper && ind == 2 && !self.states.is_empty() {
            let s = self.state().unwrap();
            let x = self.new_name();
            let io = if self.io.is_empty() { "" } else { ", ra" };
            *out += &format!("{p}let ({x}, mut {s}) = HELPER({}, {s}{io});\n", self.var());
            self.bind(x);
        } else if r < 96 {
            // A swap of values that are not `Copy` through a temporary.
            let (a, b, t, x) = (self.fresh("sa"), self.fresh("sb"), self.fresh("st"), self.new_name());
            let (va, vb) = (self.var(), self.var());
            *out += &format!("{p}let mut {a} = text({va});\n{p}let mut {b} = text({vb});\n");
            *out += &format!("{p}let {t} = {a};\n{p}{a} = {b};\n{p}{b} = {t};\n");
            *out += &format!("{p}let {x} = measure({a}, {b});\n");
            self.bind(x);
        } else if r < 98 && nest {
            // A by-value method in a branch on a value whose other method
            // decides the branch.
            let (o, v, x) = (self.fresh("om"), self.fresh("pv"), self.new_name());
            let arg = self.var();
            let other = self.var();
            *out += &format!("{p}let {o} = pick({arg});\n");
            *out += &format!(
                "{p}let {x} = if {o}.is_some() {{\n{q}let {v} = {o}.unwrap();\n{q}measure1({v})\n{p}}} else {{\n{q}lit({other})\n{p}}};\n",
                q = pad(ind + 1)
            );
            self.bind(x);
        } else {
            let e = self.call();
            let x = self.new_name();
            *out += &format!("{p}let {x} = {e};\n");
            self.bind(x);
        }
    }

    /// A fetch (`let r = ra.fetch(key); let x = r.unwrap_or(-1);`) or a
    /// write (`let w = rb.write((key, v));`) on a source parameter, with
    /// few keys (duplicates) and sometimes the failing key 13.
    fn io_stmt(&mut self, out: &mut String, ind: usize) {
        let p = pad(ind);
        let key = if self.rng.chance(1, 8) { "lit(13)".to_string() } else { format!("{} % 4", self.var()) };
        let (r, x) = (self.fresh("r"), self.new_name());
        if !self.writable.is_empty() && self.rng.chance(1, 4) {
            // Read, write and read again one key: the second read must see
            // the write, the first must not.
            let src = self.writable[self.rng.below(self.writable.len())].clone();
            let (k, r2, y) = (self.fresh("kw"), self.fresh("r"), self.fresh("x"));
            *out += &format!("{p}let {k} = {key};\n{p}let {r} = {src}.fetch({k});\n{p}let {y} = {r}.unwrap_or(-1);\n");
            *out += &format!("{p}let _ = {src}.write(({k}, f1({y})));\n");
            *out += &format!("{p}let {r2} = {src}.fetch({k});\n{p}let {x} = f2({y}, {r2}.unwrap_or(-1));\n");
            self.bind(x);
            return;
        }
        if !self.writable.is_empty() && self.rng.chance(1, 3) {
            let src = self.writable[self.rng.below(self.writable.len())].clone();
            let v = self.var();
            if self.rng.chance(1, 3) {
                *out += &format!("{p}let _ = {src}.write(({key}, {v}));\n");
                return;
            }
            *out += &format!("{p}let {r} = {src}.write(({key}, {v}));\n{p}let {x} = {r}.unwrap_or(0);\n");
        } else {
            let src = self.io[self.rng.below(self.io.len())].clone();
            *out += &format!("{p}let {r} = {src}.fetch({key});\n{p}let {x} = {r}.unwrap_or(-1);\n");
        }
        self.bind(x);
    }

    fn for_loop(&mut self, out: &mut String, ind: usize) {
        let p = pad(ind);
        let v = self.fresh("v");
        // a loop-carried accumulator declared outside the loop
        let acc = self.fresh("m");
        *out += &format!("{p}let mut {acc} = {};\n", self.rng.lit());
        self.muts.last_mut().unwrap().push(acc.clone());
        if self.has_xs && self.rng.chance(1, 2) {
            *out += &format!("{p}for {v} in xs.clone() {{\n");
        } else if self.rng.chance(1, 3) {
            // The loop header's closure captures a local of the algorithm.
            // Only an immutable local: the body may assign a mutable one,
            // which the closure (alive for the whole loop) would borrow.
            let imm: Vec<String> = self.scopes.iter().flatten().cloned().collect();
            let q = if imm.is_empty() { "lit(1)".to_string() } else { imm[self.rng.below(imm.len())].clone() };
            let n = self.fresh("n");
            *out += &format!("{p}let {n} = {} % 5;\n", self.var());
            self.bind(n.clone());
            *out += &format!("{p}for {v} in (0..{n}).filter(|j: &i64| (*j).wrapping_add({q}) % 2 == 0) {{\n");
        } else {
            let n = self.fresh("n");
            *out += &format!("{p}let {n} = {} % 5;\n", self.var());
            self.bind(n.clone());
            *out += &format!("{p}for {v} in 0..{n} {{\n");
        }
        self.loop_depth += 1;
        self.push_scope();
        self.bind(v.clone());
        // In a top-level loop of a program with a keyed state, calls on it
        // use this iteration's key (not in `scopes`: nothing shadows it).
        let outer_key = self.key.take();
        if self.keyed && self.loop_depth == 1 {
            let key = self.fresh("kk");
            *out += &format!("{}let {key} = {v} % 5;\n", pad(ind + 1));
            self.key = Some(key);
        }
        let n = 1 + self.rng.below(4);
        self.block(out, ind + 1, n);
        self.key = outer_key;
        *out += &format!("{}{acc} = f2({acc}, {v});\n", pad(ind + 1));
        self.pop_scope();
        self.loop_depth -= 1;
        *out += &format!("{p}}}\n");
    }
}

fn pad(ind: usize) -> String {
    "    ".repeat(ind)
}

/// Generate one body. Returns (body text, final return expression, return type).
fn body(g: &mut Gen, states: &[String], size: isize, ind: usize) -> String {
    g.budget = size;
    let mut out = String::new();
    g.block(&mut out, ind, usize::MAX);
    let _ = states;
    out
}

/// The source of program `index` for `seed`: a module `p{index}` holding the
/// algorithm `alg`, the identical plain function `seq`, and `run`, which
/// checks them against each other (and all deployments) on a few inputs.
pub fn program(seed: u64, index: usize) -> String {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(index as u64));
    let nstates = rng.below(4);
    let use_helper = nstates > 0 && rng.chance(1, 3);
    let keyed = rng.chance(1, 2);
    let size = 10 + rng.below(30) as isize;
    let states: Vec<String> = (0..nstates).map(|i| format!("s{i}")).collect();
    // I/O from a generator of its own: programs without it stay as they were.
    let mut io_rng = Rng::new(seed.wrapping_mul(7_000_003).wrapping_add(index as u64) ^ 0x10);
    let (io, writable): (Vec<String>, Vec<String>) = if io_rng.chance(1, 3) {
        let io: Vec<String> = ["ra", "rb", "rc"][..1 + io_rng.below(3)].iter().map(|s| s.to_string()).collect();
        let writable = io[1..].iter().filter(|_| io_rng.chance(2, 3)).cloned().collect();
        (io, writable)
    } else {
        (Vec::new(), Vec::new())
    };
    // The snapshot state from a generator of its own, as I/O.
    let snap = Rng::new(seed.wrapping_mul(9_000_011).wrapping_add(index as u64) ^ 0x55).chance(1, 3);
    // `#[ohua::algorithm(cluster)]` from a generator of its own, as I/O: its
    // replicable statements' values are checked serde and, in `run`, cross
    // as bytes (`lanes = "serialized"`).
    let cluster = Rng::new(seed.wrapping_mul(11_000_027).wrapping_add(index as u64) ^ 0xC1).chance(1, 3);
    let attr = if cluster { "#[ohua::algorithm(cluster)]" } else { "#[ohua::algorithm]" };
    // A `cluster` program's states are not serde: they stay where they are.
    let log = if cluster { "LocalLog" } else { "Log" };
    let mut g = Gen {
        rng,
        scopes: vec![vec!["k".into()]],
        muts: vec![vec![]],
        states: states.clone(),
        has_xs: true,
        helper: use_helper,
        next: 0,
        budget: 0,
        loop_depth: 0,
        tag: 0,
        keyed,
        snap,
        key: None,
        io: io.clone(),
        writable,
        chains: cluster.then(|| Rng::new(seed.wrapping_mul(13_000_031).wrapping_add(index as u64) ^ 0xC4)),
    };

    // helper(a, s) -> (i64, Log), with `ra` if the program fetches
    let helper_body = if use_helper {
        let mut h = Gen {
            rng: Rng::new(g.rng.next_u64()),
            scopes: vec![vec!["a".into()]],
            muts: vec![vec![]],
            states: vec!["s".into()],
            has_xs: false,
            helper: false,
            next: 1000,
            budget: 0,
            loop_depth: 0,
            tag: 1000,
            keyed: false,
            snap: false,
            key: None,
            io: io.iter().take(1).cloned().collect(),
            writable: Vec::new(),
            chains: None,
        };
        let mut b = String::from("        let mut s = s;\n");
        let hsize = 3 + h.rng.below(6) as isize;
        b += &body(&mut h, &["s".into()], hsize, 2);
        let r = h.var();
        b += &format!("        ({r}, s)\n");
        Some(b)
    } else {
        None
    };

    let mut b = String::new();
    for s in &states {
        b += &format!("        let mut {s} = {log}::new();\n");
    }
    if keyed {
        b += "        let mut ks = ohua::keyed(KeyedLog::new());\n";
    }
    if snap {
        b += "        let mut ss = ohua::snapshot(SnapLog::new());\n";
    }
    b += &body(&mut g, &states, size, 2);
    // return some final locals, every mutable accumulator, and each state's log
    let mut rets: Vec<String> = Vec::new();
    let top: Vec<String> = g.scopes[0].clone();
    let mut seen = std::collections::BTreeSet::new();
    for v in top.iter().rev() {
        if rets.len() >= 3 {
            break;
        }
        if seen.insert(v.clone()) {
            rets.push(v.clone());
        }
    }
    for m in g.muts[0].iter().rev().take(2) {
        rets.push(m.clone());
    }
    let mut tys: Vec<&str> = vec!["i64"; rets.len()];
    for s in &states {
        b += &format!("        let (c{s}, a{s}) = {s}.finish();\n");
        rets.push(format!("c{s}"));
        rets.push(format!("a{s}"));
        tys.push("Vec<String>");
        tys.push("i64");
    }
    if keyed {
        b += "        let fks = ks.finish();\n";
        rets.push("fks".into());
        tys.push("Vec<(i64, Vec<String>, i64)>");
    }
    // The snapshot state's summary beside the tuple, not in it: the tuple
    // may already hold 12 values, the most `PartialEq` and `Debug` take.
    let (ty, ret) = if snap {
        b += "        let fss = ss.summary();\n";
        (format!("(({},), (Vec<i64>, i64))", tys.join(", ")), format!("(({},), fss)", rets.join(", ")))
    } else {
        (format!("({},)", tys.join(", ")), format!("({},)", rets.join(", ")))
    };
    b += &format!("        {ret}\n");

    let alg_body = b.replace("HELPER(", "helper(");
    let seq_body = b.replace("HELPER(", "seq_helper(");
    let (io_params, io_args, helper_io) = if io.is_empty() {
        ("", "", "")
    } else {
        (", ra: &Source<GenDb>, rb: &Source<GenDb>, rc: &Source<GenDb>", ", ra, rb, rc", ", ra: &Source<GenDb>")
    };
    let mut src = String::new();
    src += &format!("#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]\nmod p{index} {{\n    use super::*;\n");
    if let Some(hb) = &helper_body {
        // A `cluster` program's `alg` is marked `cluster` itself, inside a
        // plain algorithm `mod`: the helper returns a state, which is not
        // serde, and a `cluster` algorithm's result is (every process gets
        // it). The `mod` makes the helper a sibling, inlined into `alg` as
        // in the other programs, so its fetches batch with `alg`'s (an
        // unmarked `mod` ran it as a nested run, whose fetches of a key
        // already read could not be batched with `alg`'s: "key 0 read
        // twice between writes", seed 252745686, program 38).
        let (mod_attr, alg_attr) =
            if cluster { ("#[ohua::algorithm]", "#[algorithm(cluster)]") } else { (attr, "#[algorithm]") };
        src += &format!("    {mod_attr}\n    pub mod a {{\n        use super::*;\n");
        src += &format!(
            "        #[algorithm]\n        pub fn helper(a: i64, s: {log}{helper_io}) -> (i64, {log}) {{\n{}        }}\n",
            indent(hb)
        );
        src += &format!(
            "        {alg_attr}\n        pub fn alg(xs: Vec<i64>, k: i64{io_params}) -> {ty} {{\n{}        }}\n",
            indent(&alg_body)
        );
        src += "    }\n    pub use a::alg;\n";
        src += &format!("    pub fn seq_helper(a: i64, s: {log}{helper_io}) -> (i64, {log}) {{\n{hb}    }}\n");
    } else {
        src += &format!(
            "    {attr}\n    pub fn alg(xs: Vec<i64>, k: i64{io_params}) -> {ty} {{\n{alg_body}    }}\n"
        );
    }
    src += &format!("    pub fn seq(xs: Vec<i64>, k: i64{io_params}) -> {ty} {{\n{seq_body}    }}\n");
    src += "    pub fn run(inputs: &[(Vec<i64>, i64)]) -> Result<(), String> {\n";
    src += "        for (xs, k) in inputs {\n";
    if io.is_empty() {
        src += "            let want = seq(xs.clone(), *k);\n";
        src += "            let got = check(|| alg(xs.clone(), *k));\n";
        if cluster {
            src += "            let bytes = check_serialized(|| alg(xs.clone(), *k));\n";
            src += "            if bytes != want {\n";
            src += "                return Err(format!(\"xs={xs:?} k={k}: algorithm on serialized lanes {bytes:?} != plain {want:?}\"));\n";
            src += "            }\n";
        }
    } else {
        // Fresh sources for the plain run; `check_io` makes its own.
        src += "            let (ra, rb, rc) = (Source::new(GenDb::default()), Source::new(GenDb::default()), Source::new(GenDb::default()));\n";
        src += "            let want = seq(xs.clone(), *k, &ra, &rb, &rc);\n";
        src += &format!("            let got = check_io(|ra, rb, rc| alg(xs.clone(), *k{io_args}))?;\n");
    }
    src += "            if got != want {\n";
    src += "                return Err(format!(\"xs={xs:?} k={k}: algorithm {got:?} != plain {want:?}\"));\n";
    src += "            }\n        }\n        Ok(())\n    }\n";
    if cluster {
        src += &run_cluster_fn(!io.is_empty());
    }
    src += "}\n";
    src
}

/// A `cluster` program's `run_cluster`: `alg` under `lanes = "cluster"`
/// with the deployment given, in a process of a cluster
/// (`ohua_generated::check_on_cluster`), against `seq`; it gives the items
/// its lanes sent to the cluster. It runs every input even after a
/// difference (every process must call the algorithm as often as the
/// others) and reports the first. An I/O program gets fresh sources in
/// every process; only the caller's are used, and their contents and
/// writes must equal sequential execution's too.
fn run_cluster_fn(io: bool) -> String {
    let mut src = String::from(
        "    pub fn run_cluster(inputs: &[(Vec<i64>, i64)], d: &ohua::Deployment) -> Result<u64, String> {\n        let (mut remote, mut failure) = (0, None);\n        for (xs, k) in inputs {\n",
    );
    if io {
        src += "            let fresh = || (Source::new(GenDb::default()), Source::new(GenDb::default()), Source::new(GenDb::default()));\n";
        src += "            let ((ra, rb, rc), (sa, sb, sc)) = (fresh(), fresh());\n";
        src += "            let want = seq(xs.clone(), *k, &ra, &rb, &rc);\n";
        src += "            let (got, sent) = on_cluster(d, || alg(xs.clone(), *k, &sa, &sb, &sc));\n";
        src += "            let db = |s: &Source<GenDb>| (s.get().contents(), s.get().writes());\n";
        src += "            if ohua_conformance::runs_the_algorithms() && [db(&sa), db(&sb), db(&sc)] != [db(&ra), db(&rb), db(&rc)] {\n";
        src += "                failure = failure.or(Some(format!(\"xs={xs:?} k={k}: on the cluster the sources' contents or writes differ from sequential execution's\")));\n";
        src += "            }\n";
    } else {
        src += "            let want = seq(xs.clone(), *k);\n";
        src += "            let (got, sent) = on_cluster(d, || alg(xs.clone(), *k));\n";
    }
    src += "            remote += sent;\n";
    src += "            if got != want {\n";
    src += "                failure = failure.or(Some(format!(\"xs={xs:?} k={k}: algorithm on the cluster {got:?} != plain {want:?}\")));\n";
    src += "            }\n        }\n        failure.map_or(Ok(remote), Err)\n    }\n";
    src
}

fn indent(s: &str) -> String {
    s.lines().map(|l| if l.is_empty() { "\n".to_string() } else { format!("    {l}\n") }).collect()
}

/// The whole generated file: prelude, `count` programs, and `all_programs`.
pub fn file(seed: u64, count: usize) -> String {
    file_of(seed, 0..count)
}

/// Every `xs` in `[]`, `[1]`, `[5, -3, 7, 0]` and `count` values drawn from
/// `seed`, each with `k` in 0, 3, -7.
fn inputs_drawn(seed: u64, count: usize) -> Vec<(Vec<i64>, i64)> {
    let mut rng = Rng::new(seed);
    let random: Vec<i64> = (0..count).map(|_| rng.below(2001) as i64 - 1000).collect();
    let mut v = Vec::new();
    for xs in [vec![], vec![1], vec![5, -3, 7, 0], random] {
        for k in [0, 3, -7] {
            v.push((xs.clone(), k));
        }
    }
    v
}

/// The inputs `(xs, k)` every program of `seed` runs on (20 drawn values).
pub fn inputs(seed: u64) -> Vec<(Vec<i64>, i64)> {
    inputs_drawn(seed ^ 0xABCD, 20)
}

/// The requests every service of `seed` is fed: like [`inputs`] with 12
/// drawn values, twice over.
pub fn service_inputs(seed: u64) -> Vec<(Vec<i64>, i64)> {
    let once = inputs_drawn(seed ^ 0x5E5E, 12);
    once.iter().chain(&once).cloned().collect()
}

/// A generated file with the programs numbered `range` (a program depends
/// only on the seed and its number, so parts of a run can be compiled apart).
pub fn file_of(seed: u64, range: std::ops::Range<usize>) -> String {
    let mut out = String::from(PRELUDE);
    out += &format!("pub const SEED: u64 = {seed};\n");
    out += "pub fn inputs() -> Vec<(Vec<i64>, i64)> {\n    ohua_conformance::gen::inputs(SEED)\n}\n";
    let programs: Vec<(usize, String)> = range.map(|i| (i, program(seed, i))).collect();
    // The `cluster` programs again, for `ohua_generated::check_on_cluster`.
    out += "pub fn cluster_programs() -> Vec<(usize, ohua_generated::ClusterProgram)> {\n    vec![\n";
    for (i, _) in programs.iter().filter(|(_, p)| p.contains("pub fn run_cluster(")) {
        out += &format!("        ({i}, p{i}::run_cluster),\n");
    }
    out += "    ]\n}\n";
    out += &modules("all_programs", "p", programs.into_iter());
    out
}

/// The regression corpus (`tests/generated/corpus/`): programs kept
/// verbatim as `check_all` saved them, `(seed, index, source)`, each module
/// `p{index}` renamed `s{seed}_p{index}` so programs of different seeds can
/// share a crate, and `corpus_programs()` listing seed, number, source and
/// `run`. Each runs on its own seed's [`inputs`].
pub fn corpus_file(programs: &[(u64, usize, String)]) -> String {
    let mut out = String::from(PRELUDE);
    let mut list = String::from(
        "pub fn corpus_programs() -> Vec<(u64, usize, &'static str, fn(&[(Vec<i64>, i64)]) -> Result<(), String>)> {\n    vec![\n",
    );
    for (seed, index, source) in programs {
        let (from, to) = (format!("mod p{index} {{"), format!("mod s{seed}_p{index} {{"));
        assert!(source.contains(&from), "corpus program seed {seed} number {index} has no `{from}`");
        list += &format!("        ({seed}, {index}, r####\"{source}\"####, s{seed}_p{index}::run),\n");
        out += &source.replacen(&from, &to, 1);
    }
    list += "    ]\n}\n";
    out += &list;
    out
}

/// The generated modules' sources (`{prefix}{i}`, each with a `run`) and the
/// function `{table}()` listing them: number, source text, `run`.
fn modules(table: &str, prefix: &str, sources: impl Iterator<Item = (usize, String)>) -> String {
    let mut out = String::new();
    let mut list = format!(
        "pub fn {table}() -> Vec<(usize, &'static str, fn(&[(Vec<i64>, i64)]) -> Result<(), String>)> {{\n    vec![\n"
    );
    for (i, p) in sources {
        list += &format!("        ({i}, r####\"{p}\"####, {prefix}{i}::run),\n");
        out += &p;
    }
    list += "    ]\n}\n";
    out += &list;
    out
}

/// Imports of the generated services (`service_file`).
pub const SERVICE_PRELUDE: &str = r#"
use std::sync::mpsc::{Receiver, Sender};
use ohua::algorithm;
use ohua_conformance::{check_checkpoint, check_streaming, Log, Replies};

"#;

/// Service `index` for `seed`: a module `c{index}` holding `svc`, an
/// algorithm whose loop over a channel of requests `(xs, k)` runs a
/// generated body on 1-3 `Log` states (each also pushed at the end of the
/// body, so every state lives in the loop) and sends a reply per request,
/// the identical plain function `seq` over a vector of requests, and `run`,
/// which checks checkpoint + restore + replay against `seq`
/// (`ohua_conformance::check_checkpoint`).
pub fn service_program(seed: u64, index: usize) -> String {
    let mut rng = Rng::new(seed.wrapping_mul(3_000_017).wrapping_add(index as u64) ^ 0x5E);
    let nstates = 1 + rng.below(3);
    let size = 8 + rng.below(24) as isize;
    let states: Vec<String> = (0..nstates).map(|i| format!("s{i}")).collect();
    let mut g = Gen {
        rng,
        scopes: vec![vec!["k".into()]],
        muts: vec![vec![]],
        states: states.clone(),
        has_xs: true,
        helper: false,
        next: 0,
        budget: 0,
        loop_depth: 0,
        tag: 0,
        keyed: false,
        snap: false,
        key: None,
        io: Vec::new(),
        writable: Vec::new(),
        chains: None,
    };
    let mut b = String::from("            let (xs, k) = req;\n");
    b += &body(&mut g, &states, size, 3);
    let last = g.var();
    for s in &states {
        b += &format!("            {s}.push({last});\n");
    }
    let mut rets: Vec<String> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for v in g.scopes[0].iter().rev() {
        if rets.len() >= 3 {
            break;
        }
        if seen.insert(v.clone()) {
            rets.push(v.clone());
        }
    }
    for m in g.muts[0].iter().rev().take(2) {
        rets.push(m.clone());
    }
    for s in &states {
        b += &format!("            let q{s} = {s}.peek();\n");
        rets.push(format!("q{s}"));
    }
    b += &format!("            let reply = ({},);\n", rets.join(", "));
    let ty = format!("({},)", vec!["i64"; rets.len()].join(", "));
    let inits: String = states.iter().map(|s| format!("        let mut {s} = Log::new();\n")).collect();
    let mut src = String::new();
    src += &format!("#[allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens)]\nmod c{index} {{\n    use super::*;\n");
    src += &format!("    pub type Reply = {ty};\n");
    src += &format!(
        "    #[ohua::algorithm]\n    pub fn svc(requests: Receiver<(Vec<i64>, i64)>, out: Sender<Reply>) -> u8 {{\n{inits}        let mut replies = Replies::new(out);\n        for req in requests {{\n{b}            replies.send(reply);\n        }}\n        0\n    }}\n"
    );
    src += &format!(
        "    pub fn seq(requests: Vec<(Vec<i64>, i64)>) -> Vec<Reply> {{\n{inits}        let mut replies = Vec::new();\n        for req in requests {{\n{b}            replies.push(reply);\n        }}\n        replies\n    }}\n"
    );
    src += "    pub fn run(requests: &[(Vec<i64>, i64)]) -> Result<(), String> {\n        check_checkpoint(svc, seq, requests)\n    }\n";
    src += "    pub fn run_streaming(requests: &[(Vec<i64>, i64)]) -> Result<(), String> {\n        check_streaming(svc, seq, requests)\n    }\n}\n";
    src
}

/// The generated services numbered `range`, with `inputs` and
/// `all_services` (see [`service_program`]).
pub fn service_file(seed: u64, range: std::ops::Range<usize>) -> String {
    let mut out = String::from(SERVICE_PRELUDE);
    // The programs' helper functions (`f1`, `lit`, ...), without their imports.
    out += &PRELUDE[PRELUDE.find("pub fn f1").expect("the prelude defines f1")..];
    out += &format!("pub const SEED: u64 = {seed};\n");
    out += "/// Requests: every `xs` with every `k`, twice.\npub fn inputs() -> Vec<(Vec<i64>, i64)> {\n    ohua_conformance::gen::service_inputs(SEED)\n}\n";
    let services: Vec<(usize, String)> = range.map(|i| (i, service_program(seed, i))).collect();
    // The same services fed by streaming clients (`check_streaming`): a
    // table of its own, so each check reports its own failures.
    let mut streaming = String::from(
        "pub fn all_services_streaming() -> Vec<(usize, &'static str, fn(&[(Vec<i64>, i64)]) -> Result<(), String>)> {\n    vec![\n",
    );
    for (i, p) in &services {
        streaming += &format!("        ({i}, r####\"{p}\"####, c{i}::run_streaming),\n");
    }
    streaming += "    ]\n}\n";
    out += &modules("all_services", "c", services.into_iter());
    out += &streaming;
    out
}
