//! The level-graph generator: edge probabilities, reproducibility, and the
//! analytic optimum and critical path on hand-built graphs.

use ohua_levels_bench::graph::{generate, Graph, Kind, Node, Params, Program, ALL_SOURCES, SLOW};

fn node(uid: u64, level: u32, kind: Kind, inputs: &[usize]) -> Node {
    Node { uid, level, kind, inputs: inputs.to_vec(), depth: 0 }
}

#[test]
fn an_edge_is_likelier_the_nearer_the_levels() {
    // Over many graphs, the share of possible edges present at a level gap
    // g is 2^-g.
    let (mut possible, mut present) = ([0u64; 6], [0u64; 6]);
    for seed in 0..200 {
        let p = generate(seed, &Params::new(12, 1, 0.0));
        let nodes = &p.graph.nodes;
        for v in nodes {
            for (w, n) in nodes.iter().enumerate() {
                if n.level < v.level && ((v.level - n.level) as usize) < possible.len() {
                    let gap = (v.level - n.level) as usize;
                    possible[gap] += 1;
                    present[gap] += v.inputs.contains(&w) as u64;
                }
            }
        }
    }
    for gap in 1..6 {
        let share = present[gap] as f64 / possible[gap] as f64;
        let expected = 0.5f64.powi(gap as i32);
        assert!((share - expected).abs() < 0.25 * expected + 0.01, "gap {gap}: {share} vs {expected}");
    }
}

#[test]
fn a_seed_gives_the_same_graph_and_subfunctions_keep_its_shape() {
    let p = Params::new(15, 3, 0.0);
    assert_eq!(generate(7, &p), generate(7, &p));
    assert_ne!(generate(7, &p).graph, generate(8, &p).graph);
    // Raising the subfunction probability turns nodes into calls but keeps
    // levels and edges.
    let a = generate(3, &Params::new(20, 1, 0.0));
    let b = generate(3, &Params::new(20, 1, 0.4));
    assert_eq!(a.graph.nodes.len(), b.graph.nodes.len());
    let subs = b.graph.nodes.iter().filter(|n| matches!(n.kind, Kind::Sub(_))).count();
    assert!(subs > 0, "p = 0.4 makes some calls");
    for (x, y) in a.graph.nodes.iter().zip(&b.graph.nodes) {
        assert_eq!((x.level, &x.inputs), (y.level, &y.inputs));
        if !matches!(y.kind, Kind::Sub(_)) {
            assert_eq!(std::mem::discriminant(&x.kind), std::mem::discriminant(&y.kind));
        }
    }
}

#[test]
fn level_counts_widths_and_kinds_are_as_asked() {
    let mut kinds = [0usize; 4];
    for seed in 0..50 {
        let p = generate(seed, &Params::new(10, 3, 0.2));
        assert_eq!(p.graph.levels(), 10);
        for l in 1..=10 {
            let w = p.graph.nodes.iter().filter(|n| n.level == l).count();
            assert!((1..=4).contains(&w), "width {w}");
        }
        for n in &p.graph.nodes {
            kinds[match n.kind {
                Kind::Compute => 0,
                Kind::Io(s) => {
                    assert!(s < 3);
                    1
                }
                Kind::Sub(_) => 2,
                Kind::Map(_) => 3,
            }] += 1;
        }
    }
    assert!(kinds.iter().all(|&k| k > 0), "{kinds:?}");
}

/// Hand-built: level 1 io a (s0), compute b; level 2 io c (s0) on a, io d
/// (s1) on b; level 3 a map over a body with two chained s0 fetches, on c
/// and d; level 3 also io e (s1) on d.
fn hand_built() -> Program {
    let body = Graph {
        uid: 20,
        nodes: vec![node(21, 1, Kind::Io(0), &[]), node(22, 2, Kind::Io(0), &[0]), node(23, 2, Kind::Compute, &[0])],
    };
    let graph = Graph {
        uid: 1,
        nodes: vec![
            node(2, 1, Kind::Io(0), &[]),
            node(3, 1, Kind::Compute, &[]),
            node(4, 2, Kind::Io(0), &[0]),
            node(5, 2, Kind::Io(1), &[1]),
            node(6, 3, Kind::Map(body), &[2, 3]),
            node(7, 3, Kind::Io(1), &[3]),
        ],
    };
    let mut params = Params::new(3, 2, 0.0);
    params.slow = true;
    let mut p = Program { seed: 0, params, graph };
    // Depths as the generator sets them.
    p.graph.nodes[0].depth = 1;
    p.graph.nodes[2].depth = 2;
    p.graph.nodes[3].depth = 1;
    p.graph.nodes[5].depth = 2;
    p
}

#[test]
fn the_optimum_counts_dependent_fetches_through_maps() {
    let p = hand_built();
    // s0: a -> c -> body's first -> body's second = 4; s1: d -> e = 2; the
    // slow source once.
    let mut expected = [0u64; ALL_SOURCES];
    expected[0] = 4;
    expected[1] = 2;
    expected[SLOW] = 1;
    assert_eq!(p.optimum(), expected);
    assert_eq!(p.io_nodes(), [4, 2, 0, 1]);
    // Latencies 10 / 30 / - / 100: the map starts after d (30) and takes
    // two s0 calls (50); e ends at 60; the slow source at 100.
    assert_eq!(p.critical_path(&[10.0, 30.0, 0.0, 0.0]), 60.0);
    assert_eq!(p.critical_path(&[10.0, 20.0, 0.0, 0.0]), 40.0);
    assert_eq!(p.critical_path(&[10.0, 30.0, 0.0, 100.0]), 100.0);
    // Eagerly: s0 at 0 (a), 10 (c), 30 and 40 (the map after d); s1 at 0
    // (d) and 30 (e).
    assert_eq!(p.eager_calls(&[10.0, 30.0, 0.0, 0.0]), [4, 2, 0, 1]);
}

#[test]
fn with_two_sources_the_chain_bound_needs_waiting() {
    // a (s0) and b (s1) on the parameter, c (s1) on a: s1's chain is 1 (b
    // and c in one batch, if b waits for a), an eager schedule makes 2.
    let graph = Graph {
        uid: 1,
        nodes: vec![node(2, 1, Kind::Io(0), &[]), node(3, 1, Kind::Io(1), &[]), node(4, 2, Kind::Io(1), &[0])],
    };
    let mut params = Params::new(2, 2, 0.0);
    params.slow = false;
    let p = Program { seed: 0, params, graph };
    assert_eq!(p.optimum(), [1, 1, 0, 0]);
    assert_eq!(p.eager_calls(&[10.0, 10.0, 0.0, 0.0]), [1, 2, 0, 0]);
    assert_eq!(p.critical_path(&[10.0, 10.0, 0.0, 0.0]), 20.0);
}

#[test]
fn generated_depths_match_the_optimum() {
    // The deepest io node on each source is the optimum.
    fn deepest(g: &Graph, out: &mut [u64; ALL_SOURCES]) {
        for n in &g.nodes {
            match &n.kind {
                Kind::Io(s) => out[*s] = out[*s].max(n.depth),
                Kind::Sub(b) | Kind::Map(b) => deepest(b, out),
                Kind::Compute => {}
            }
        }
    }
    for seed in 0..30 {
        let p = generate(seed, &Params::new(12, 3, 0.3));
        let mut d = [0; ALL_SOURCES];
        deepest(&p.graph, &mut d);
        d[SLOW] = 1;
        assert_eq!(d, p.optimum(), "seed {seed}");
    }
}
