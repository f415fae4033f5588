// Random level graphs (Ÿauhau, dissertation ch. 4.5.1), their values and
// their analytic optimum.
//
// A level graph has levels `1..=L`; a node `v` may use a node `w` only if
// `l(v) > l(w)`, and does so with probability `2^(l(w) - l(v))` (the next
// level down 1/2, two down 1/4, ..). Every node gets a kind at random:
// compute, io on one of the sources, a call of a subfunction or a map over
// a small list; subfunction and map nodes own a small random level graph of
// their own (at most [`MAX_DEPTH`] nested). The graph's result combines the
// values of its sinks (nodes nothing uses), so every node counts; a
// program's top graph may also have a *slow* io node that only the result
// uses (the concurrent-I/O experiment attaches a slow service to the root).
//
// This file is also `include!`d by `build.rs` (which emits the Ohua
// algorithms), so it uses only `rand` and `rand_chacha` and refers to its
// siblings through `super::`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Regular sources are `0..sources` (at most three); the slow one is this.
pub const SLOW: usize = 3;
/// Sources a program may use, the slow one included.
pub const ALL_SOURCES: usize = 4;
/// Keys a node draws from (per io depth, see [`key`]): small, so that
/// equal requests occur within a batch.
pub const KEYS: u64 = 8;
/// Nesting of subfunction / map graphs: the top graph is depth 0, graphs at
/// this depth have compute and io nodes only.
pub const MAX_DEPTH: u32 = 2;
/// Salt of the slow node and of the top graph's result.
pub const SLOW_UID: u64 = 0;

/// What a node computes.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A hash of the inputs.
    Compute,
    /// A fetch from source `.0` of a key hashed from the inputs.
    Io(usize),
    /// A call of a function whose body is the graph, with the hashed inputs.
    Sub(Graph),
    /// A map of the graph over a 2-4 element list derived from the inputs,
    /// its results hashed.
    Map(Graph),
}

/// One node.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Unique in the program: salts the node's hash, names it in code.
    pub uid: u64,
    /// Its level (1 = uses only the graph's parameter).
    pub level: u32,
    /// What it computes.
    pub kind: Kind,
    /// Indices (into the graph's nodes) of the nodes it uses, all of lower
    /// levels; none: it uses the graph's parameter.
    pub inputs: Vec<usize>,
    /// For io nodes: the node's position in the longest chain of io nodes on
    /// its source that ends in it (1 = needs no earlier answer of that
    /// source). Keys are drawn per depth, so a key fetched in one batch is
    /// never asked again in a later one, and calls = the chain bound.
    pub depth: u64,
}

/// A level graph; nodes in level order (a topological order).
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// Unique in the program: salts the result's hash.
    pub uid: u64,
    /// The nodes.
    pub nodes: Vec<Node>,
}

impl Graph {
    /// Indices of the nodes no node uses (what the result combines).
    pub fn sinks(&self) -> Vec<usize> {
        let mut used = vec![false; self.nodes.len()];
        for n in &self.nodes {
            for &i in &n.inputs {
                used[i] = true;
            }
        }
        (0..self.nodes.len()).filter(|&i| !used[i]).collect()
    }

    /// The levels present (the top one).
    pub fn levels(&self) -> u32 {
        self.nodes.iter().map(|n| n.level).max().unwrap_or(0)
    }

    /// All nodes, nested ones included.
    pub fn count(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| match &n.kind {
                Kind::Sub(g) | Kind::Map(g) => 1 + g.count(),
                _ => 1,
            })
            .sum()
    }
}

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Levels of the top graph.
    pub levels: u32,
    /// Regular sources (1 or 3); an io node's source is drawn uniformly.
    pub sources: usize,
    /// Probability that a node is a subfunction call (0 for the baseline).
    pub p_sub: f64,
    /// Probability that a node (not a subfunction) is a map.
    pub p_map: f64,
    /// Probability that a node (not a subfunction or map) is io; the rest
    /// compute.
    pub p_io: f64,
    /// Nodes per level of the top graph: uniform in `1..=max_width`.
    pub max_width: u32,
    /// Whether the top graph's result also uses a slow io node.
    pub slow: bool,
}

impl Params {
    /// The defaults of every experiment: widths 1-4, a tenth of the rest
    /// maps, half of the rest io, a slow node, no subfunctions.
    pub fn new(levels: u32, sources: usize, p_sub: f64) -> Self {
        Params { levels, sources, p_sub, p_map: 0.1, p_io: 0.5, max_width: 4, slow: true }
    }
}

/// A generated program: its top graph and how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The seed it was generated from.
    pub seed: u64,
    /// The parameters.
    pub params: Params,
    /// The top graph.
    pub graph: Graph,
}

/// splitmix64's finaliser.
pub fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The hash every node computes: of its input values, salted.
pub fn mix(xs: &[u64], salt: u64) -> u64 {
    let mut h = fmix(salt ^ 0x9e37_79b9_7f4a_7c15);
    for &x in xs {
        h = fmix(h.wrapping_mul(31).wrapping_add(x));
    }
    h
}

/// The key an io node requests: one of [`KEYS`] keys of its depth.
pub fn key(xs: &[u64], salt: u64, depth: u64) -> u64 {
    depth * KEYS + mix(xs, salt) % KEYS
}

/// What source `src` answers to `key`.
pub fn answer(src: usize, key: u64) -> u64 {
    mix(&[key], 1_000_000 + src as u64)
}

/// The list a map node maps over: 2-4 elements derived from `v`.
pub fn list(v: u64) -> Vec<u64> {
    (0..2 + v % 3).map(|i| mix(&[v, i], 7)).collect()
}

/// The key of the slow node.
pub fn slow_key(x: u64) -> u64 {
    x % KEYS
}

/// Generate the program of `seed` (reproducible: ChaCha8 streams seeded
/// from `seed`, the level count and the source count, not from `p_sub`, so
/// raising `p_sub` keeps the level graph and turns some nodes into calls).
pub fn generate(seed: u64, p: &Params) -> Program {
    let base = mix(&[seed, p.levels as u64, p.sources as u64], 42);
    let mut uid = SLOW_UID;
    let mut graph = gen_graph(base, p.levels, p.max_width, p, 0, &mut uid);
    annotate(&mut graph, [0; ALL_SOURCES]);
    Program { seed, params: *p, graph }
}

fn next(uid: &mut u64) -> u64 {
    *uid += 1;
    *uid
}

fn gen_graph(seed: u64, levels: u32, max_width: u32, p: &Params, depth: u32, uid: &mut u64) -> Graph {
    // Separate streams: structure, kinds, nested graphs' seeds.
    let mut shape = ChaCha8Rng::seed_from_u64(mix(&[seed], 1));
    let mut kinds = ChaCha8Rng::seed_from_u64(mix(&[seed], 2));
    let guid = next(uid);
    let mut nodes: Vec<Node> = Vec::new();
    for level in 1..=levels {
        let width = shape.gen_range(1..=max_width);
        let below = nodes.len();
        for _ in 0..width {
            let inputs: Vec<usize> = (0..below)
                .filter(|&w| {
                    let gap = level - nodes[w].level;
                    shape.gen_bool(0.5f64.powi(gap as i32))
                })
                .collect();
            // Always three draws, so the streams do not depend on p_sub.
            let (u_sub, u_kind, u_src) = (kinds.gen::<f64>(), kinds.gen::<f64>(), kinds.gen_range(0..p.sources));
            let index = nodes.len() as u64;
            let nested = depth < MAX_DEPTH;
            let sub_seed = mix(&[seed, index], 3);
            let node_uid = next(uid);
            let kind = if nested && u_sub < p.p_sub {
                Kind::Sub(gen_nested(sub_seed, p, depth + 1, uid))
            } else if nested && u_kind < p.p_map {
                Kind::Map(gen_nested(sub_seed, p, depth + 1, uid))
            } else if u_kind < p.p_map + (1.0 - p.p_map) * p.p_io {
                Kind::Io(u_src)
            } else {
                Kind::Compute
            };
            nodes.push(Node { uid: node_uid, level, kind, inputs, depth: 0 });
        }
    }
    Graph { uid: guid, nodes }
}

/// A subfunction's or map body's graph: 1-3 levels of 1-3 nodes.
fn gen_nested(seed: u64, p: &Params, depth: u32, uid: &mut u64) -> Graph {
    let levels = ChaCha8Rng::seed_from_u64(mix(&[seed], 4)).gen_range(1..=3);
    gen_graph(seed, levels, 3, p, depth, uid)
}

/// Per-source io depths: the longest chain of io nodes on each source.
pub type Depths = [u64; ALL_SOURCES];

fn join(a: Depths, b: Depths) -> Depths {
    let mut out = a;
    for s in 0..ALL_SOURCES {
        out[s] = out[s].max(b[s]);
    }
    out
}

/// Sets every io node's depth; returns the depths of the graph's result
/// given those of its parameter.
fn annotate(g: &mut Graph, param: Depths) -> Depths {
    let mut at: Vec<Depths> = Vec::with_capacity(g.nodes.len());
    for i in 0..g.nodes.len() {
        let input = if g.nodes[i].inputs.is_empty() {
            param
        } else {
            g.nodes[i].inputs.iter().fold([0; ALL_SOURCES], |d, &w| join(d, at[w]))
        };
        let node = &mut g.nodes[i];
        let out = match &mut node.kind {
            Kind::Compute => input,
            Kind::Io(s) => {
                let mut d = input;
                d[*s] += 1;
                node.depth = d[*s];
                d
            }
            Kind::Sub(body) | Kind::Map(body) => annotate(body, input),
        };
        at.push(out);
    }
    g.sinks().iter().fold([0; ALL_SOURCES], |d, &i| join(d, at[i]))
}

impl Program {
    /// The optimum number of calls per source: the longest chain of
    /// dependent io nodes on it, through subfunctions and maps (a map's body
    /// is one batch per io level of the body: its elements are independent).
    pub fn optimum(&self) -> Depths {
        let mut d = annotate(&mut self.graph.clone(), [0; ALL_SOURCES]);
        if self.params.slow {
            d[SLOW] = d[SLOW].max(1);
        }
        d
    }

    /// The critical path: the longest path when an io node takes its
    /// source's latency and everything else no time.
    pub fn critical_path(&self, latency: &[f64; ALL_SOURCES]) -> f64 {
        let t = critical(&self.graph, 0.0, latency);
        if self.params.slow {
            t.max(latency[SLOW])
        } else {
            t
        }
    }

    /// The sequential reference: the program's result for parameter `x`.
    pub fn eval(&self, x: u64) -> u64 {
        let mut sinks = eval_values(&self.graph, x);
        if self.params.slow {
            sinks.push(answer(SLOW, slow_key(x)));
        }
        mix(&sinks, SLOW_UID)
    }

    /// The calls of an eager scheduler: every source's requests that are
    /// ready at the same moment go out as one batch, at once (no waiting
    /// for more), when a call to source `s` takes `latency[s]` and nothing
    /// else takes time. With one source this is [`Program::optimum`]; with
    /// several it can be more, because the chain bound is reached only by
    /// holding ready requests back (calls traded for latency). Ohua sends a
    /// batch when the run is quiet, which is this schedule up to the order
    /// in which answers arrive.
    pub fn eager_calls(&self, latency: &[f64; ALL_SOURCES]) -> Depths {
        let mut sends: Vec<Vec<f64>> = vec![Vec::new(); ALL_SOURCES];
        eager(&self.graph, 0.0, latency, &mut sends);
        if self.params.slow {
            sends[SLOW].push(0.0);
        }
        std::array::from_fn(|s| {
            let mut t = sends[s].clone();
            t.sort_by(f64::total_cmp);
            t.dedup();
            t.len() as u64
        })
    }

    /// Io nodes per source (a map body's counted once).
    pub fn io_nodes(&self) -> Depths {
        let mut out = [0; ALL_SOURCES];
        count_io(&self.graph, &mut out);
        if self.params.slow {
            out[SLOW] += 1;
        }
        out
    }
}

fn count_io(g: &Graph, out: &mut Depths) {
    for n in &g.nodes {
        match &n.kind {
            Kind::Io(s) => out[*s] += 1,
            Kind::Sub(b) | Kind::Map(b) => count_io(b, out),
            Kind::Compute => {}
        }
    }
}

fn eager(g: &Graph, param: f64, latency: &[f64; ALL_SOURCES], sends: &mut [Vec<f64>]) -> f64 {
    let mut at: Vec<f64> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let input = if n.inputs.is_empty() { param } else { n.inputs.iter().map(|&w| at[w]).fold(0.0, f64::max) };
        at.push(match &n.kind {
            Kind::Compute => input,
            Kind::Io(s) => {
                sends[*s].push(input);
                input + latency[*s]
            }
            Kind::Sub(b) | Kind::Map(b) => eager(b, input, latency, sends),
        });
    }
    g.sinks().iter().map(|&i| at[i]).fold(0.0, f64::max)
}

fn critical(g: &Graph, param: f64, latency: &[f64; ALL_SOURCES]) -> f64 {
    let mut at: Vec<f64> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let input = if n.inputs.is_empty() { param } else { n.inputs.iter().map(|&w| at[w]).fold(0.0, f64::max) };
        at.push(match &n.kind {
            Kind::Compute => input,
            Kind::Io(s) => input + latency[*s],
            Kind::Sub(b) | Kind::Map(b) => critical(b, input, latency),
        });
    }
    g.sinks().iter().map(|&i| at[i]).fold(0.0, f64::max)
}

/// The argument values of a node: its inputs' values, or the parameter.
pub fn args(n: &Node, values: &[u64], x: u64) -> Vec<u64> {
    if n.inputs.is_empty() {
        vec![x]
    } else {
        n.inputs.iter().map(|&i| values[i]).collect()
    }
}

/// The graph's result for parameter `x`, sequentially.
pub fn eval_graph(g: &Graph, x: u64) -> u64 {
    mix(&eval_values(g, x), g.uid)
}

/// The values of the graph's sinks.
fn eval_values(g: &Graph, x: u64) -> Vec<u64> {
    let mut values: Vec<u64> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let a = args(n, &values, x);
        values.push(match &n.kind {
            Kind::Compute => mix(&a, n.uid),
            Kind::Io(s) => answer(*s, key(&a, n.uid, n.depth)),
            Kind::Sub(b) => eval_graph(b, mix(&a, n.uid)),
            Kind::Map(b) => {
                let rs: Vec<u64> = list(mix(&a, n.uid)).into_iter().map(|e| eval_graph(b, e)).collect();
                mix(&rs, n.uid)
            }
        });
    }
    g.sinks().iter().map(|&i| values[i]).collect()
}
