//! `auto` stage formation with replication (Lagniappe's PIPE + REP).
//!
//! Pipeline stages alone cap a loop at its heaviest operator: a collecting
//! map over one expensive function runs at the speed of one core whatever
//! the number of workers. Lagniappe's answer (§3-4, Fig. 6) is to form
//! *fewer, fused* stages and give the heavy stateless ones *more
//! replicas*, and not to replicate where the hand-over costs as much as
//! the work.
//!
//! Once a run of the graph has measured its operators (`learned.rs`), a
//! replicable operator (a call without state in a loop) is a candidate when
//!
//! * one firing of its piece (the operator, or the consecutive stateless
//!   calls fused with it) costs at least [`MIN_FIRING_NS`]: below that,
//!   dealing an item to a replica and merging it back in order costs about
//!   as much as the work (Fig. 6c, the `tiny` benchmark in `BENCHMARKS.md`);
//! * its piece is at least [`MIN_SHARE`] of the run's busy time;
//! * it is not on a loop-carried cycle (a `while` body, a state carried
//!   through a `for` loop as a value): there, an iteration waits for the
//!   previous one and replicas would only add hand-overs.
//!
//! The candidates' work spreads over all workers (every replica section
//! takes items as it has room, `node/replicate.rs`); the other operators
//! are cut into `s` pipeline stages, `s` from 1 up, and the replicated
//! operators get `workers - s + 1` replicas (replica 0 in its own stage).
//! The estimated time per item is the larger of the heaviest stage of the
//! rest and the total work over the workers; the fewest stages within 5 %
//! of the best estimate win. Replication is chosen if it spreads the work
//! evenly over the workers (no pipeline cut can do better, and one that
//! seems to do as well rests on guessed costs of fused calls) or else beats
//! the plain pipeline cut at all ([`GAIN`]), and as long as the graph's runs with
//! replicas have not been measured slower than its runs without
//! (`learned.rs`, `Pace`): the estimates count work, not the cost of moving
//! an item's data to another core.

use super::auto;
use crate::graph::GraphInfo;

/// Least measured cost per item, in nanoseconds, of a replicated piece
/// (one call, or consecutive calls fused into one piece) for replication to
/// pay for the hand-over to a replica and the ordered merge. Measured with
/// `cargo run --release -p ohua-bench -- replicate` (`tiny`, BENCHMARKS.md):
/// on 2 cores, 3-call pieces of 600 and 300 ns per item ran at 1.76x and
/// 1.62x of sequential replicated against 1.43x and 1.42x pipelined, one of
/// 150 ns at 1.33x against 1.53x.
pub const MIN_FIRING_NS: f64 = 200.0;

/// Least share of a run's busy time an operator must have to be replicated.
pub const MIN_SHARE: f64 = 0.05;

/// Replication is chosen if its estimate is at most this fraction of the
/// plain pipeline's: any real gain, as replicas balance the load as items
/// arrive, where a pipeline cut is only as balanced as the estimates it was
/// made from (a fused piece's time is spread evenly over its calls until
/// they are measured apart, `learned.rs`). An estimate no better than the
/// pipeline's (replicas that cannot relieve the heaviest stage) is not.
pub const GAIN: f64 = 0.99;

/// Stages with replicas, as [`replicate`] chose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Staged {
    /// The stage of every node (before replica sections are added).
    pub(super) section_of: Vec<usize>,
    /// Replicas of every node (1: runs once).
    pub(super) replicas: Vec<usize>,
}

/// The stages and replicas for `graph` on `workers` given the measured
/// `costs` (busy ns per node) and `firings`, or `None` if the plain pipeline
/// cut `pipeline` (section per node) is as good.
pub(super) fn replicate(
    graph: &GraphInfo,
    workers: usize,
    costs: &[f64],
    firings: &[u64],
    pipeline: &[usize],
) -> Option<Staged> {
    replicate_if(graph, workers, costs, firings, pipeline, false)
}

/// [`replicate`]; `always`: replicate the candidates even where the
/// pipeline cut looks as good (a first run's guess, [`prior`]).
fn replicate_if(
    graph: &GraphInfo,
    workers: usize,
    costs: &[f64],
    firings: &[u64],
    pipeline: &[usize],
    always: bool,
) -> Option<Staged> {
    let n = graph.nodes.len();
    if workers <= 1 || costs.len() != n || firings.len() != n {
        return None;
    }
    let total: f64 = costs.iter().sum();
    // Consecutive stateless calls run as one fused piece per replica
    // (`node/chain.rs`): the hand-over is paid once per item for the piece,
    // so the piece's cost per item is what must outweigh it.
    let group = pieces(graph);
    let mut piece_cost = vec![0.0; n];
    for id in 0..n {
        piece_cost[group[id]] += costs[id];
    }
    let heavy = |id: usize| {
        let (g, node) = (group[id], &graph.nodes[id]);
        node.replicable
            && firings[id] > 0
            && piece_cost[g] / firings[id] as f64 >= MIN_FIRING_NS
            && piece_cost[g] >= MIN_SHARE * total
    };
    // Cheap checks first: this runs at every call of a measured graph.
    let mut chosen: Vec<bool> = (0..n).map(heavy).collect();
    if !chosen.contains(&true) {
        return None;
    }
    for (id, c) in chosen.iter_mut().enumerate() {
        if *c && on_cycle(graph, id) {
            *c = false;
        }
    }
    if !chosen.contains(&true) {
        return None;
    }
    let plain = max_load(pipeline, costs);
    let rest: Vec<f64> = (0..n).map(|i| if chosen[i] { 0.0 } else { costs[i] }).collect();
    let spread = total / workers as f64;
    let mut best: Option<(f64, usize, Vec<usize>)> = None;
    for stages in 1..workers {
        let section_of = auto::split(graph, stages, Some(&rest));
        let estimate = max_load(&section_of, &rest).max(spread);
        let better = match &best {
            Some((b, _, _)) => estimate < 0.95 * b,
            None => true,
        };
        if better {
            best = Some((estimate, stages, section_of));
        }
    }
    let (estimate, stages, section_of) = best?;
    // Replicas that spread the whole load evenly are chosen even against a
    // pipeline cut that looks as balanced: the cut is only as good as the
    // estimates of fused calls, which are guesses until measured apart, and
    // replicas balance as items arrive (Lagniappe: fewer stages, more
    // replicas).
    let evenly_spread = estimate <= spread * (1.0 + 1e-9);
    if !always && !evenly_spread && estimate > GAIN * plain {
        return None;
    }
    let r = workers - stages + 1;
    Some(Staged { section_of, replicas: chosen.iter().map(|&c| if c { r } else { 1 }).collect() })
}

/// Cost per firing, in nanoseconds, that [`prior`] guesses for an
/// operator of weight 1 (a call): comfortably above [`MIN_FIRING_NS`], so
/// every replicable piece is a candidate until replica 0 has measured it.
const PRIOR_FIRING_NS: f64 = 1000.0;

/// The stages and replicas of a graph's *first* run, which has measured
/// nothing: [`replicate`] on costs guessed by operator kind (`auto.rs`'s
/// weights; operators outside every loop as firing once), as if every
/// replicable piece were heavy. The plan marks these
/// replicas *elastic*: the run deals to replica 0 alone until replica 0 has
/// measured the piece's cost per item, and adds the other replicas only if
/// that cost pays for the hand-over (`node/elastic.rs`). The candidates are
/// replicated even where a pipeline cut looks as good by the guess: a
/// pipeline cut cannot change during the run, elastic replicas can. So a heavy piece
/// is spread over the cores from the first run on, and a cheap one costs
/// the first run a hop through its scatter and merge.
pub(super) fn prior(graph: &GraphInfo, workers: usize) -> Option<Staged> {
    let n = graph.nodes.len();
    let costs: Vec<f64> =
        graph.nodes.iter().map(|node| auto::weight(node.kind) * auto::per_run(node.depth) * PRIOR_FIRING_NS).collect();
    let pipeline = auto::split(graph, workers, Some(&costs));
    replicate_if(graph, workers, &costs, &vec![1; n], &pipeline, true)
}

/// For every node, the first node of the piece of consecutive replicable
/// calls it belongs to (itself if none): `a` and `b` are in one piece if
/// `a`'s only consumer is `b` and `b`'s only input is `a`, as the compiler
/// fuses them (`ohua-compiler`'s `codegen/chain.rs`).
pub(super) fn pieces(graph: &GraphInfo) -> Vec<usize> {
    let n = graph.nodes.len();
    let (mut outs, mut ins) = (vec![0usize; n], vec![0usize; n]);
    for a in graph.arcs {
        outs[a.from as usize] += 1;
        ins[a.to as usize] += 1;
    }
    let mut group: Vec<usize> = (0..n).collect();
    // Arcs run producer-first in node order, so one pass in node order
    // reaches every piece's first node before its later links.
    let mut arcs: Vec<_> = graph.arcs.iter().filter(|a| !a.feedback).collect();
    arcs.sort_by_key(|a| a.from);
    for a in arcs {
        let (from, to) = (a.from as usize, a.to as usize);
        let linked = graph.nodes[from].replicable && graph.nodes[to].replicable && outs[from] == 1 && ins[to] == 1;
        if linked {
            group[to] = group[from];
        }
    }
    group
}

/// The heaviest section's total cost.
fn max_load(section_of: &[usize], costs: &[f64]) -> f64 {
    let sections = section_of.iter().max().map_or(0, |m| m + 1);
    let mut load = vec![0.0; sections];
    for (id, &s) in section_of.iter().enumerate() {
        load[s] += costs[id];
    }
    load.into_iter().fold(0.0, f64::max)
}

/// Whether node `start` can reach itself (it lies on a loop-carried cycle).
fn on_cycle(graph: &GraphInfo, start: usize) -> bool {
    let mut seen = vec![false; graph.nodes.len()];
    let mut stack = vec![start];
    while let Some(x) = stack.pop() {
        for a in graph.arcs.iter().filter(|a| a.from as usize == x) {
            let to = a.to as usize;
            if to == start {
                return true;
            }
            if !seen[to] {
                seen[to] = true;
                stack.push(to);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{ArcInfo, NodeInfo, OpKind};

    const fn node(name: &'static str, kind: OpKind, replicable: bool) -> NodeInfo {
        NodeInfo { name, kind, depth: 1, label: name, replicable, line: 0 }
    }

    const fn arc(from: u32, to: u32, feedback: bool) -> ArcInfo {
        ArcInfo { from, from_port: 0, to, to_port: 0, feedback }
    }

    /// xs → smap → heavy (stateless) → add (state) → collect.
    static MAP: GraphInfo = GraphInfo {
        algorithm: "g",
        file: "",
        nodes: &[
            node("g/xs#arg", OpKind::Source, false),
            node("g/smap@1", OpKind::SMap, false),
            node("g/heavy#2", OpKind::Call, true),
            node("g/add#3", OpKind::Call, false),
            node("g/collect@4", OpKind::Collect, false),
        ],
        arcs: &[arc(0, 1, false), arc(1, 2, false), arc(2, 3, false), arc(3, 4, false)],
    };

    fn plain(costs: &[f64]) -> Vec<usize> {
        auto::split(&MAP, 2, Some(costs))
    }

    #[test]
    fn a_heavy_stateless_bottleneck_is_replicated_in_one_fused_stage() {
        let costs = [0.0, 1e6, 90e6, 5e6, 1e6];
        let firings = [1, 1000, 1000, 1000, 1];
        let staged = replicate(&MAP, 2, &costs, &firings, &plain(&costs)).expect("replicated");
        assert_eq!(staged.section_of, vec![0; 5], "one stage, fused");
        assert_eq!(staged.replicas, vec![1, 1, 2, 1, 1]);
    }

    #[test]
    fn cheap_firings_are_not_replicated() {
        // 90 ms over a million firings: 90 ns each, less than a hand-over.
        let costs = [0.0, 1e6, 90e6, 5e6, 1e6];
        let firings = [1, 1_000_000, 1_000_000, 1_000_000, 1];
        assert_eq!(replicate(&MAP, 2, &costs, &firings, &plain(&costs)), None);
    }

    /// xs → smap → a → b → c (stateless, each feeding only the next) → add.
    static PIECE: GraphInfo = GraphInfo {
        algorithm: "p",
        file: "",
        nodes: &[
            node("p/xs#arg", OpKind::Source, false),
            node("p/smap@1", OpKind::SMap, false),
            node("p/a#2", OpKind::Call, true),
            node("p/b#3", OpKind::Call, true),
            node("p/c#4", OpKind::Call, true),
            node("p/add#5", OpKind::Call, false),
        ],
        arcs: &[arc(0, 1, false), arc(1, 2, false), arc(2, 3, false), arc(3, 4, false), arc(4, 5, false)],
    };

    #[test]
    fn a_fused_piece_of_cheap_calls_is_judged_by_its_cost_per_item() {
        // 250 ns per call, 750 ns per item for the piece a → b → c.
        let costs = [0.0, 1e6, 250e6, 250e6, 250e6, 10e6];
        let firings = [1, 1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000];
        let pipeline = auto::split(&PIECE, 2, Some(&costs));
        let staged = replicate(&PIECE, 2, &costs, &firings, &pipeline).expect("replicated");
        assert_eq!(staged.replicas, vec![1, 1, 2, 2, 2, 1]);
        // 30 ns per call: the piece is 90 ns per item, below a hand-over.
        let costs = [0.0, 1e6, 30e6, 30e6, 30e6, 10e6];
        let pipeline = auto::split(&PIECE, 2, Some(&costs));
        assert_eq!(replicate(&PIECE, 2, &costs, &firings, &pipeline), None);
    }

    /// Regression (CI, `auto_replicates_the_stateless_bottleneck_once_it_has_measured_it`):
    /// after a first run that fused `heavy` with cheap calls, their time was
    /// spread evenly, a pipeline cut looked perfectly balanced, and
    /// replication (as balanced, by estimate) was not chosen, though the
    /// real cut was 68 % | 32 %.
    #[test]
    fn replicas_that_spread_the_load_evenly_win_over_a_cut_that_looks_as_balanced() {
        // a → b → c, their cost guessed evenly: any cut looks like 50 | 50.
        let costs = [0.0, 0.0, 100e6, 100e6, 100e6, 100e6];
        let firings = [1, 1000, 1000, 1000, 1000, 1000];
        let pipeline = auto::split(&PIECE, 2, Some(&costs));
        assert_eq!(max_load(&pipeline, &costs), 200e6, "the cut looks balanced: {pipeline:?}");
        let staged = replicate(&PIECE, 2, &costs, &firings, &pipeline).expect("replicated");
        assert_eq!(staged.replicas, vec![1, 1, 2, 2, 2, 1]);
    }

    #[test]
    fn a_balanced_pipeline_is_kept() {
        // add weighs more than heavy: replicas of heavy cannot relieve
        // add's stage, and the pipeline cut already balances best.
        let costs = [0.0, 0.0, 40e6, 60e6, 0.0];
        let firings = [1, 1000, 1000, 1000, 1];
        assert_eq!(replicate(&MAP, 2, &costs, &firings, &plain(&costs)), None);
    }

    #[test]
    fn more_workers_give_more_replicas_and_split_the_heavy_rest() {
        // add is a quarter of the work: one fused stage holding it and a
        // replica keeps up with three more replicas, so four in all.
        let costs = [0.0, 0.0, 75e6, 25e6, 0.0];
        let firings = [1, 1000, 1000, 1000, 1];
        let pipeline = auto::split(&MAP, 4, Some(&costs));
        let staged = replicate(&MAP, 4, &costs, &firings, &pipeline).expect("replicated");
        assert_eq!(staged.replicas[2], 4, "one stage: {:?}", staged.section_of);
    }

    #[test]
    fn a_first_run_plans_every_replicable_piece_as_heavy() {
        let staged = prior(&MAP, 2).expect("replicated");
        assert_eq!((staged.section_of, staged.replicas), (vec![0; 5], vec![1, 1, 2, 1, 1]));
        // On 4 workers the state's call gets a stage of its own (it is
        // guessed as heavy as a call of the piece), the piece 3 replicas.
        let staged = prior(&PIECE, 4).expect("replicated");
        assert_eq!((staged.section_of, staged.replicas), (vec![0, 0, 0, 0, 0, 1], vec![1, 1, 3, 3, 3, 1]));
        assert_eq!(prior(&MAP, 1), None, "one worker: nothing to spread");
    }

    /// A state carried through the loop as a value: carry → step → carry.
    static CARRIED: GraphInfo = GraphInfo {
        algorithm: "c",
        file: "",
        nodes: &[
            node("c/carry@0", OpKind::Carry, false),
            node("c/step#1", OpKind::Call, true),
            node("c/out#2", OpKind::Sink, false),
        ],
        arcs: &[arc(0, 1, false), arc(1, 0, true), arc(0, 2, false)],
    };

    #[test]
    fn a_first_run_does_not_replicate_an_operator_on_a_loop_carried_cycle() {
        assert_eq!(prior(&CARRIED, 2), None);
    }

    #[test]
    fn an_operator_on_a_loop_carried_cycle_is_not_replicated() {
        let costs = [0.0, 90e6, 0.0];
        let firings = [1000, 1000, 1];
        let pipeline = auto::split(&CARRIED, 2, Some(&costs));
        assert_eq!(replicate(&CARRIED, 2, &costs, &firings, &pipeline), None);
    }
}
