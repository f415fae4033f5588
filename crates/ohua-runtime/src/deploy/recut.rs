//! Re-cutting sections while a run goes on (issue 23): what the plan asks
//! for, and how measured loads regroup the sections.
//!
//! A graph's first run has measured nothing, and the cut by operator count
//! may put two heavy stateful stages in one section (`ohua-bench
//! first-runs`, `skewed`: 0.97x of sequential, against 1.8x for later runs
//! that cut by measured cost). Such a run is cut finer than it has threads
//! for ([`fine_cut`]): its sections start grouped as the count would group
//! them (one section's driver *hosts* the others of its group,
//! `exec/hosting.rs`), and after a measured prefix the groups follow the
//! sections' measured busy time ([`contiguous_groups`]). Groups are
//! contiguous in the pipeline's order, as `auto`'s cut is, so an item
//! crosses threads no more often than under that cut.

use super::{auto, stages};
use crate::graph::{GraphInfo, OpKind};

/// How a run re-cuts its sections while it goes on ([`Plan::recut`](super::Plan::recut)).
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::Recut;
/// let r = Recut::Measured { threads: 2, start: vec![0, 0, 2, 2] };
/// assert_ne!(r, Recut::Chaos(7));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recut {
    /// Random sections (the tests' chaos): each section's driver joins
    /// another or lets its guests go at drawn moments.
    Chaos(u64),
    /// A first run cut finer than its threads: section `k` starts hosted
    /// by section `start[k]` (itself: it drives itself), and the run
    /// regroups the sections into at most `threads` contiguous groups by
    /// their measured busy time.
    Measured {
        /// Threads the sections share (the deployment's workers).
        threads: usize,
        /// The host of each section at the start.
        start: Vec<usize>,
    },
    /// A run whose replicas follow the load (`replicas = "elastic"`): its
    /// pipeline is cut finer than its threads (`deploy/recut.rs`,
    /// `refine`), sections `0..pipeline`, each starting hosted as the
    /// coarser cut would group it; once the run streams (a
    /// service) those sections regroup by the share of each window their
    /// threads were busy, as a service without replicas does. The
    /// replicas' own sections (`pipeline..`) keep their threads: their
    /// lanes open and close by the scaling policy. A batch run keeps its
    /// start groups (its replicas spread its heavy piece already).
    Streaming {
        /// Threads the pipeline's sections share (the deployment's workers).
        threads: usize,
        /// The host of each section at the start (every section, the
        /// replicas' own included: those host themselves).
        start: Vec<usize>,
        /// How many of the sections, from the first, are the pipeline's.
        pipeline: usize,
    },
    /// Random sections (the tests' chaos), half of the seeds: the measured
    /// regrouping of [`Recut::Measured`] without its minimum window, work
    /// and gain, so its decisions come early and often, from noise.
    Eager {
        /// Threads the sections share.
        threads: usize,
        /// The host of each section at the start.
        start: Vec<usize>,
    },
}

/// The re-cut of random sections (`seed`'s, over `sections` sections):
/// drawn moments, or an eager measured regrouping from drawn groups.
pub(super) fn chaos(seed: u64, sections: usize) -> Recut {
    let seed = seed ^ 0x5EC7_10C5;
    if seed.is_multiple_of(2) || sections < 2 {
        return Recut::Chaos(seed);
    }
    // Drawn loads give drawn contiguous groups to start from.
    let loads: Vec<f64> = (0..sections as u64).map(|k| ((seed >> (k % 48)) & 7) as f64 + 1.0).collect();
    Recut::Eager { threads: 2, start: contiguous_groups(&loads, 2) }
}

/// Sections per thread of a first run's finer cut.
const FINER: usize = 4;

/// A first run's finer cut, if it has more calls in loops than `workers`:
/// the section of every node, and the re-cut that starts from the groups
/// the operator count gives.
pub(super) fn fine_cut(graph: &GraphInfo, workers: usize) -> Option<(Vec<usize>, Recut)> {
    let calls = graph.nodes.iter().filter(|n| n.kind == OpKind::Call && n.depth > 0).count();
    let k = (FINER * workers).min(calls);
    if workers < 2 || k <= workers {
        return None;
    }
    let raw = auto::split(graph, k, None);
    let sections = raw.iter().max().map_or(0, |m| m + 1);
    let mut guess = vec![0.0; sections];
    for (id, node) in graph.nodes.iter().enumerate() {
        guess[raw[id]] += auto::weight(node.kind) * auto::per_run(node.depth);
    }
    let start = contiguous_groups(&guess, workers);
    Some((raw, Recut::Measured { threads: workers, start }))
}

/// A run with elastic replicas cut finer than its threads, if its loops
/// have more calls than its coarser cut `raw` has sections (`raw`:
/// indexed by node; replicas are placed after): every coarser section
/// split into contiguous runs of its nodes in topological order, `FINER`
/// per worker in all but at most one per call in a loop, a section's
/// share by its calls. A piece of consecutive
/// stateless calls (`stages::pieces`, fused into one operator when in one
/// section) is never split: split, each call would be replicated with a
/// scatter and merge of its own (`record_pipeline`'s first run: 1.33-1.66x
/// of sequential instead of 1.39-1.81x). Returns the finer
/// section of every node (numbered `0..`, in the coarser sections' order)
/// and the host of each finer section at the start: the first piece of
/// its coarser section, so the run starts with the coarser cut's groups.
pub(super) fn refine(graph: &GraphInfo, raw: &[usize], workers: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let coarse = raw.iter().max().map_or(0, |m| m + 1);
    if workers < 2 || coarse == 0 {
        return None;
    }
    // Each coarser section's fused pieces (each named by its first node),
    // in topological order of their first nodes, with their weights.
    let fused = stages::pieces(graph);
    let mut members: Vec<Vec<Unit>> = vec![Vec::new(); coarse];
    for id in graph.topological_order() {
        let node = &graph.nodes[id];
        let units = &mut members[raw[id]];
        let at = match units.iter().position(|u| u.piece == fused[id]) {
            Some(at) => at,
            None => {
                units.push(Unit { piece: fused[id], weight: 0.0, nodes: Vec::new(), calls: false });
                units.len() - 1
            }
        };
        let unit = &mut units[at];
        unit.weight += auto::weight(node.kind) * auto::per_run(node.depth);
        unit.nodes.push(id);
        unit.calls |= node.kind == OpKind::Call && node.depth > 0;
    }
    let with_calls = |units: &[Unit]| units.iter().filter(|u| u.calls).count();
    let calls: usize = members.iter().map(|m| with_calls(m)).sum();
    let k = (FINER * workers).min(calls);
    if k <= coarse {
        return None;
    }
    let mut fine = vec![0; raw.len()];
    let mut start = Vec::with_capacity(k);
    for units in members.iter().filter(|m| !m.is_empty()) {
        let weights: Vec<f64> = units.iter().map(|u| u.weight).collect();
        let first = start.len();
        let chunk_of = auto::chunks(&weights, (k * with_calls(units)).div_ceil(calls).max(1));
        for (unit, &chunk) in units.iter().zip(&chunk_of) {
            for &id in &unit.nodes {
                fine[id] = first + chunk;
            }
        }
        let made = chunk_of.last().map_or(0, |c| c + 1);
        start.extend(std::iter::repeat_n(first, made));
    }
    (start.len() > coarse).then_some((fine, start))
}

/// What [`refine`] keeps in one finer section: a fused piece's nodes in
/// one coarser section (a node alone where it is no piece's).
#[derive(Clone)]
struct Unit {
    /// The piece's first node.
    piece: usize,
    weight: f64,
    nodes: Vec<usize>,
    /// Whether it has calls in loops.
    calls: bool,
}

/// Group sections `0..loads.len()` (in pipeline order) into at most
/// `threads` contiguous groups whose largest load is as small as it can
/// be; each section's host is the first section of its group.
///
/// # Panics
///
/// Never for `threads == 0` (taken as 1).
pub(crate) fn contiguous_groups(loads: &[f64], threads: usize) -> Vec<usize> {
    let n = loads.len();
    let t = threads.clamp(1, n.max(1));
    let mut prefix = vec![0.0; n + 1];
    for (i, l) in loads.iter().enumerate() {
        prefix[i + 1] = prefix[i] + l.max(0.0);
    }
    // best[g][i]: the smallest largest load of the first i sections in g
    // groups; cut[g][i]: where the last of those groups starts.
    let mut best = vec![vec![f64::INFINITY; n + 1]; t + 1];
    let mut cut = vec![vec![0; n + 1]; t + 1];
    best[0][0] = 0.0;
    for g in 1..=t {
        for i in 1..=n {
            for j in (g - 1)..i {
                let worst = best[g - 1][j].max(prefix[i] - prefix[j]);
                // `<`: among equal cuts the earliest last group, so ties
                // do not move sections for nothing.
                if worst < best[g][i] {
                    best[g][i] = worst;
                    cut[g][i] = j;
                }
            }
        }
    }
    let groups = (1..=t).min_by(|&a, &b| best[a][n].total_cmp(&best[b][n]).then(a.cmp(&b))).unwrap_or(1);
    let mut host = vec![0; n];
    let (mut g, mut i) = (groups, n);
    while g > 0 && i > 0 {
        let j = cut[g][i];
        for h in host.iter_mut().take(i).skip(j) {
            *h = j;
        }
        (g, i) = (g - 1, j);
    }
    host
}

/// The largest load of one thread when section `k` runs on the thread of
/// its host `hosts[k]`.
pub(crate) fn bottleneck(loads: &[f64], hosts: &[usize]) -> f64 {
    let mut per = vec![0.0; loads.len()];
    for (k, &h) in hosts.iter().enumerate() {
        per[h] += loads[k];
    }
    per.into_iter().fold(0.0, f64::max)
}

/// A service fuses its sections onto fewer threads when the busiest
/// thread of the fewer would be busy for at most this share of the window.
const FUSE_BELOW: f64 = 0.25;

/// A service spreads its sections onto more threads when its busiest
/// thread was busy for more than this share of the window.
const SPREAD_ABOVE: f64 = 0.6;

/// Spreading takes the fewest threads that keep the busiest under this
/// share (all of them if none does).
const SPREAD_TO: f64 = 0.45;

/// The groups of a service's sections for the next window, given each
/// section's busy time `loads` over a window of `span` (same unit) and the
/// groups `hosts` it had (Lagniappe's Monitor, issue 23): fused onto the
/// fewest threads whose busiest stays under a quarter of the window when
/// that is fewer than now (at light load every hand-off to another thread
/// is a wake-up on a request's path, and the cores go back), spread over
/// more when the busiest thread was busy for more than 60 % of it (its
/// queue grows with its load), onto the fewest that keep each under 45 %
/// (or regrouped over as many threads as before, if the load's shape
/// changed and that takes a fifth off the busiest). Groups beyond
/// `threads` (the threads left to them now) fuse into it. `None`: keep the
/// groups.
pub(crate) fn service_groups(
    loads: &[f64],
    hosts: &[usize],
    span: f64,
    threads: usize,
) -> Option<(Vec<usize>, Change)> {
    let count = |h: &[usize]| h.iter().enumerate().filter(|&(k, &host)| k == host).count();
    let now = count(hosts);
    let busiest = bottleneck(loads, hosts);
    let fewest = |share: f64| {
        (1..=threads.max(1)).map(|g| contiguous_groups(loads, g)).find(|h| bottleneck(loads, h) <= share * span)
    };
    if now > threads.max(1) {
        // Fewer threads than groups (replicas took some): into as few as
        // keep each under the spread's share, or all of them.
        let fit = fewest(SPREAD_TO).unwrap_or_else(|| contiguous_groups(loads, threads.max(1)));
        return Some((fit, Change::Cede));
    }
    if let Some(fused) = fewest(FUSE_BELOW).filter(|h| count(h) < now) {
        return Some((fused, Change::Fuse));
    }
    if busiest <= SPREAD_ABOVE * span {
        return None;
    }
    let spread = fewest(SPREAD_TO).unwrap_or_else(|| contiguous_groups(loads, threads));
    if spread == hosts {
        return None;
    }
    if count(&spread) > now {
        return Some((spread, Change::Spread));
    }
    // Over the same threads more evenly: the load's shape changed since
    // they were grouped.
    (bottleneck(loads, &spread) < busiest * REBALANCE_GAIN).then_some((spread, Change::Rebalance))
}

/// What a service's regrouping does ([`service_groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Onto fewer threads.
    Fuse,
    /// Onto the fewer threads replica lanes left (more groups than
    /// `threads`), whatever the load.
    Cede,
    /// Onto more threads.
    Spread,
    /// Over as many threads, more evenly.
    Rebalance,
}

/// A service's sections move between as many threads as they have only if
/// that takes a fifth off the busiest thread. With a tenth, the web server
/// overloaded on two cores (`ohua-bench elastic-web`, its client on the
/// same cores) went back and forth between three groupings, 13 times in
/// one 3 s step: each grouping's measured loads made another look a tenth
/// better.
const REBALANCE_GAIN: f64 = 0.8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_heavy_sections_get_a_thread_each_and_the_light_ones_join_the_second() {
        assert_eq!(contiguous_groups(&[10.0, 10.0, 1.0, 1.0], 2), vec![0, 1, 1, 1]);
        assert_eq!(bottleneck(&[10.0, 10.0, 1.0, 1.0], &[0, 1, 1, 1]), 12.0);
        assert_eq!(bottleneck(&[10.0, 10.0, 1.0, 1.0], &[0, 0, 2, 2]), 20.0, "the count's cut");
    }

    #[test]
    fn even_loads_group_evenly_and_fewer_sections_than_threads_stay_apart() {
        assert_eq!(contiguous_groups(&[1.0; 8], 2), vec![0, 0, 0, 0, 4, 4, 4, 4]);
        assert_eq!(contiguous_groups(&[1.0; 8], 4), vec![0, 0, 2, 2, 4, 4, 6, 6]);
        assert_eq!(contiguous_groups(&[3.0, 1.0], 4), vec![0, 1]);
        assert_eq!(contiguous_groups(&[], 2), Vec::<usize>::new());
    }

    #[test]
    fn a_lightly_loaded_service_fuses_onto_one_thread_and_a_loaded_one_spreads() {
        // Busy µs per section over a window of 1,000 µs.
        let light = [60.0, 60.0, 15.0, 15.0, 10.0];
        let groups = |loads: &[f64], hosts: &[usize], span: f64, threads: usize| {
            service_groups(loads, hosts, span, threads).map(|(h, _)| h)
        };
        assert_eq!(
            service_groups(&light, &[0, 0, 2, 2, 2], 1_000.0, 2),
            Some((vec![0; 5], Change::Fuse)),
            "16 % in all"
        );
        assert_eq!(groups(&light, &[0; 5], 1_000.0, 2), None, "already on one thread");
        let heavy = [300.0, 300.0, 80.0, 80.0, 40.0];
        assert_eq!(
            service_groups(&heavy, &[0; 5], 1_000.0, 2),
            Some((vec![0, 1, 1, 1, 1], Change::Spread)),
            "80 % on one thread"
        );
        assert_eq!(groups(&heavy, &[0, 1, 1, 1, 1], 1_000.0, 2), None, "spread already");
        // Spread, but the load moved: [0, 0, 0, 3, 3] puts 680 µs on one.
        assert_eq!(
            service_groups(&heavy, &[0, 0, 0, 3, 3], 1_000.0, 2),
            Some((vec![0, 1, 1, 1, 1], Change::Rebalance)),
            "rebalanced: 680 -> 500 µs"
        );
        // A rebalance that takes less than a fifth off is not worth a move.
        let shifted = [300.0, 200.0, 100.0, 90.0, 10.0];
        assert_eq!(groups(&shifted, &[0, 0, 2, 2, 2], 800.0, 2), None, "500 -> 400 µs of 800 is a fifth, not more");
        // Between the two thresholds the groups stay as they are, either way.
        let middle = [200.0, 200.0, 50.0, 50.0, 20.0];
        assert_eq!(groups(&middle, &[0; 5], 1_000.0, 2), None, "52 % on one thread");
        assert_eq!(groups(&middle, &[0, 1, 1, 1, 1], 1_000.0, 2), None, "32 % could not fuse under 25 %");
    }

    #[test]
    fn a_service_spreads_onto_the_fewest_threads_that_take_its_load() {
        let loads = [300.0; 8];
        // 2,400 µs of work in a window of 1,000: no grouping keeps it under
        // 45 %, so all four threads.
        let groups = |span: f64| service_groups(&loads, &[0; 8], span, 4).map(|(h, _)| h);
        assert_eq!(groups(1_000.0), Some(vec![0, 0, 2, 2, 4, 4, 6, 6]));
        // In a window of 3,000 µs, 80 % on one thread: two keep it at 40 %.
        assert_eq!(groups(3_000.0), Some(vec![0, 0, 0, 0, 4, 4, 4, 4]));
    }

    /// A replica lane that opens takes a thread of the pipeline's: groups
    /// beyond the threads left fuse into them, even under load (the
    /// elastic AttackDetector's 90 % step ran on three threads of two cores).
    #[test]
    fn a_service_fuses_into_the_threads_its_replicas_left_it() {
        let heavy = [300.0, 300.0, 80.0, 80.0, 40.0];
        assert_eq!(
            service_groups(&heavy, &[0, 1, 1, 1, 1], 1_000.0, 1),
            Some((vec![0; 5], Change::Cede)),
            "80 % on one thread, but only one is left"
        );
        assert_eq!(service_groups(&heavy, &[0; 5], 1_000.0, 1), None, "on one already: nowhere to spread");
        // Four groups, two threads left: the fewest under 45 % (two).
        let loads = [200.0; 8];
        assert_eq!(
            service_groups(&loads, &[0, 0, 2, 2, 4, 4, 6, 6], 2_000.0, 2),
            Some((vec![0, 0, 0, 0, 4, 4, 4, 4], Change::Cede))
        );
    }

    const fn node(name: &'static str, kind: OpKind, depth: u16) -> crate::graph::NodeInfo {
        crate::graph::NodeInfo { name, kind, depth, label: name, replicable: false, line: 0 }
    }

    const fn arc(from: u32) -> crate::graph::ArcInfo {
        crate::graph::ArcInfo { from, from_port: 0, to: from + 1, to_port: 0, feedback: false }
    }

    /// A chain of eight operators.
    const CHAIN: &[crate::graph::ArcInfo] = &[arc(0), arc(1), arc(2), arc(3), arc(4), arc(5), arc(6)];

    /// A loop of five calls over a collection.
    static FIVE_CALLS: GraphInfo = GraphInfo {
        algorithm: "s",
        file: "",
        nodes: &[
            node("s/xs#arg", OpKind::Source, 0),
            node("s/smap@1", OpKind::SMap, 0),
            node("s/a#2", OpKind::Call, 1),
            node("s/b#3", OpKind::Call, 1),
            node("s/c#4", OpKind::Call, 1),
            node("s/d#5", OpKind::Call, 1),
            node("s/e#6", OpKind::Call, 1),
            node("s/result", OpKind::Sink, 0),
        ],
        arcs: CHAIN,
    };

    #[test]
    fn a_run_with_replicas_is_cut_finer_within_its_coarser_sections_and_starts_with_their_groups() {
        // Everything in one section (an elastic plan's pipeline): a piece
        // per call, all hosted by the first.
        let (fine, start) = refine(&FIVE_CALLS, &[0; 8], 2).expect("five calls on two threads");
        assert_eq!((fine, start), (vec![0, 0, 0, 1, 2, 3, 4, 4], vec![0; 5]));
        // Two coarser sections: pieces by their calls (two and three), each
        // group hosted by its first piece, so the start is the coarser cut.
        let (fine, start) = refine(&FIVE_CALLS, &[0, 0, 0, 0, 1, 1, 1, 1], 2).expect("finer");
        assert_eq!((fine, start), (vec![0, 0, 0, 1, 2, 3, 4, 4], vec![0, 0, 2, 2, 2]));
        assert_eq!(refine(&FIVE_CALLS, &[0; 8], 1), None, "one thread has nothing to regroup");
        assert_eq!(refine(&FIVE_CALLS, &[0, 0, 0, 1, 2, 3, 4, 4], 2), None, "a call per section already");
    }

    /// [`FIVE_CALLS`] with `b` and `c` stateless: one fused piece.
    static A_FUSED_PIECE: GraphInfo = GraphInfo {
        algorithm: "s",
        file: "",
        nodes: &[
            node("s/xs#arg", OpKind::Source, 0),
            node("s/smap@1", OpKind::SMap, 0),
            node("s/a#2", OpKind::Call, 1),
            crate::graph::NodeInfo { replicable: true, ..node("s/b#3", OpKind::Call, 1) },
            crate::graph::NodeInfo { replicable: true, ..node("s/c#4", OpKind::Call, 1) },
            node("s/d#5", OpKind::Call, 1),
            node("s/e#6", OpKind::Call, 1),
            node("s/result", OpKind::Sink, 0),
        ],
        arcs: CHAIN,
    };

    #[test]
    fn a_piece_of_stateless_calls_stays_in_one_finer_section() {
        // Split, `b` and `c` would each be replicated with a scatter and a
        // merge of their own instead of fused.
        let (fine, start) = refine(&A_FUSED_PIECE, &[0; 8], 2).expect("finer");
        assert_eq!(fine[3], fine[4], "{fine:?}");
        assert_eq!((fine, start), (vec![0, 0, 0, 1, 1, 2, 3, 3], vec![0; 4]));
    }

    #[test]
    fn one_heavy_section_is_left_alone() {
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 2), vec![0, 0, 0, 3, 3, 3]);
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 3), vec![0, 0, 0, 3, 4, 4]);
    }
}
