//! Operator costs measured by earlier runs, for the `auto` planner.
//!
//! Counting operators is a poor guess at where the time goes: in the
//! `record_pipeline` example, `decompress` and `deserialize` are about 85 %
//! of the work, and a cut by operator count put both into the first of two
//! sections (0.94x of sequential on 2 cores, where the cut after
//! `decompress` runs at 1.49x). Every run already measures each operator's
//! busy time, so after a run of a graph its per-operator costs are kept here
//! for the rest of the process, and later `auto` plans of the same graph cut
//! by them ([`super::auto::split`]).
//!
//! Operators fused into a chain (`node/chain.rs`) are timed together: the
//! chain's time is measured on its first link. The run report spreads it
//! over the links in proportion to the time each link took on the items the
//! piece probed (`deploy/link_times.rs`), and the estimates keep that split.
//! Without probes (a piece that never got a
//! value), it is spread in proportion to the links' previous estimates
//! (evenly the first time), so a cost measured while a link ran on its own
//! survives later runs in which it is fused. Splitting evenly every time
//! would make the plan oscillate: a heavy link fused with a light one looks
//! half as heavy, the next plan separates them, the one after fuses them
//! again. Splitting by the previous estimates alone kept a first even split
//! forever: a heavy link fused with a light one stayed fused.
//!
//! Runs that measured less than [`MIN_MEASURED`] in total, or that failed,
//! leave the estimates alone: their busy times are mostly noise. One such
//! run that lasted at least [`LIGHT_WALL`], called its sources and did not
//! stream (a run that mostly waited for their answers) marks the graph
//! *light*: its
//! operators have nothing worth spreading over cores, and a second section
//! only adds hand-offs between threads to every round of fetches, so
//! `auto` plans one section until a run measures more again (issue 21,
//! part 5: the level graphs, 0.1-1 ms of work against 5-80 ms of waiting).
//! A loop over a channel or a socket (a streaming run) is never light: its
//! source may block, which must not stall the rest of the loop. Nor is a
//! run without source calls: the wall time of a cheap pipeline is its
//! hand-offs between threads and its scheduling, not waiting.
//!
//! Busy times say where the work is, not what moving it costs: replicas of
//! a call whose items are large and freshly allocated on another core run
//! slower per item than the call alone (the `word_freq` example: 2-3 µs per
//! line on the other core against 1 µs). So each graph also keeps its
//! [`Pace`], the wall time per firing of its runs with and without
//! replicas, and `auto` stops replicating a graph whose replicated runs
//! were slower (`stages.rs`). Runs that streamed (a loop over a channel or
//! a socket) are left out of it: their wall time is when their items
//! arrived, whatever the deployment.

use std::collections::HashMap;
use std::time::Duration;

use crate::graph::GraphInfo;
use crate::stats::NodeStats;
use crate::sync::process::{Mutex, OnceLock};

/// Total busy time below which a run's measurements are not used.
pub const MIN_MEASURED: Duration = Duration::from_millis(1);

/// Wall time from which a run that measured less than [`MIN_MEASURED`]
/// marks its graph light (a short call of a small algorithm does not: its
/// next call may be given more work).
pub const LIGHT_WALL: Duration = Duration::from_millis(4);

/// What the last measured run of a graph found, per node id.
struct Estimates {
    /// Busy nanoseconds.
    busy: Vec<f64>,
    /// Firings (data packets and markers handled).
    firings: Vec<u64>,
    /// Over all measured runs.
    pace: Pace,
    /// The last run measured less than [`MIN_MEASURED`] over at least
    /// [`LIGHT_WALL`], waiting for its sources.
    light: bool,
    /// A run with elastic replicas measured less than [`MIN_MEASURED`]
    /// and kept them closed: later unmeasured runs plan without them.
    closed: bool,
}

/// Wall nanoseconds per firing (all operators' firings) of a graph's runs
/// without and with replicas, each a running average (the latest run
/// weighs half).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Pace {
    /// Runs in which no operator was replicated.
    pub(crate) plain: Option<f64>,
    /// Runs with replicas.
    pub(crate) replicated: Option<f64>,
}

impl Pace {
    /// Whether runs with replicas have been measured slower than runs without.
    pub(crate) fn replicas_were_slower(&self) -> bool {
        matches!((self.plain, self.replicated), (Some(p), Some(r)) if r >= p)
    }

    fn update(slot: &mut Option<f64>, sample: f64) {
        *slot = Some(slot.map_or(sample, |old| (old + sample) / 2.0));
    }
}

/// Estimates per graph, keyed by the graph's address (graphs are
/// `static`, one per algorithm).
fn store() -> &'static Mutex<HashMap<usize, Estimates>> {
    static STORE: OnceLock<Mutex<HashMap<usize, Estimates>>> = OnceLock::new();
    STORE.get_or_init(Default::default)
}

fn key(graph: &GraphInfo) -> usize {
    std::ptr::from_ref(graph) as usize
}

/// Items per key group that the keyed scatter of node `id` of `graph`
/// routed in its last run (`node/keyed.rs`): the next plan balances the
/// groups over the replicas by them.
pub(crate) fn record_groups(graph: &GraphInfo, id: usize, loads: Vec<u64>) {
    let mut store = groups_store().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    store.insert((key(graph), id), loads);
}

/// The group loads [`record_groups`] kept for node `id` of `graph`.
pub(crate) fn group_loads(graph: &GraphInfo, id: usize) -> Option<Vec<u64>> {
    let store = groups_store().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    store.get(&(key(graph), id)).cloned()
}

/// Items per key group, by (graph, node id).
type GroupLoads = HashMap<(usize, usize), Vec<u64>>;

fn groups_store() -> &'static Mutex<GroupLoads> {
    static STORE: OnceLock<Mutex<GroupLoads>> = OnceLock::new();
    STORE.get_or_init(Default::default)
}

/// What earlier runs of a graph measured: busy nanoseconds and firings per
/// node (indexed by node id; with both, the cost of one firing) and the
/// graph's [`Pace`].
pub(crate) type Measured = (Vec<f64>, Vec<u64>, Pace);

/// What earlier runs taught about `graph`: whether it is light (see the
/// module docs), else its measurements, if a run of it has measured enough.
pub(crate) enum Learned {
    /// No run measured enough, and none tried elastic replicas: a first
    /// run (`stages::prior`).
    Nothing,
    /// No run measured enough, and a short run kept its elastic replicas
    /// closed: plan by the guess alone, without the prior's replicas (a
    /// small algorithm called again and again would pay for them at
    /// every call: 15.7 against 11.4 µs in `ohua-bench first-call`).
    Closed,
    /// The last run mostly waited: plan one section.
    Light,
    /// Measured busy times and firings.
    Measured(Measured),
}

/// What earlier runs of `graph` measured (one lock of the store: a plan is
/// made at every call).
pub(crate) fn lookup(graph: &GraphInfo) -> Learned {
    let store = store().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match store.get(&key(graph)) {
        Some(e) if e.light => Learned::Light,
        Some(e) if e.busy.len() == graph.nodes.len() => Learned::Measured((e.busy.clone(), e.firings.clone(), e.pace)),
        Some(e) if e.closed => Learned::Closed,
        _ => Learned::Nothing,
    }
}

/// The measurements of `graph`, if a run of it has measured enough.
#[cfg(test)]
pub(crate) fn estimates(graph: &GraphInfo) -> Option<Measured> {
    match lookup(graph) {
        Learned::Measured(m) => Some(m),
        Learned::Nothing | Learned::Light | Learned::Closed => None,
    }
}

/// Which nodes of a run ran fused into chain pieces, and what probing the
/// pieces' links measured.
#[derive(Clone, Copy)]
pub(crate) struct Fused<'a> {
    /// `into[id]`: the first link of the chain piece node `id` ran fused
    /// into, whose `busy` covers the whole piece.
    pub(crate) into: &'a [Option<usize>],
    /// Sampled nanoseconds per node id ([`super::LinkTimes`]); empty if
    /// the run fused nothing.
    pub(crate) sampled: &'a [u64],
}

impl Fused<'_> {
    /// The chain pieces among `n` nodes, in order of their first links:
    /// each piece's first link, then the links fused into it.
    pub(crate) fn pieces(&self, n: usize) -> Vec<Vec<usize>> {
        let mut by_head: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (id, head) in self.into.iter().enumerate().take(n) {
            if let Some(head) = *head {
                if by_head[head].is_empty() {
                    by_head[head].push(head);
                }
                by_head[head].push(id);
            }
        }
        by_head.retain(|members| !members.is_empty());
        by_head
    }

    /// The nanoseconds the probes of a piece's links (`members`) sampled
    /// together; `None` if they timed nothing, so the piece's time cannot
    /// be split by them.
    pub(crate) fn sampled_total(&self, members: &[usize]) -> Option<u64> {
        let total: u64 = members.iter().filter_map(|&id| self.sampled.get(id)).sum();
        (total > 0).then_some(total)
    }
}

/// How a finished run went, beyond its operators' statistics.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunShape {
    /// An operator ran on replicas.
    pub(crate) replicated: bool,
    /// It called its sources and no loop's source may have blocked: a
    /// run that did little else may mark its graph light.
    pub(crate) waited: bool,
    /// A loop's source may have blocked (a channel, a socket): the run's
    /// wall time was set by when its items arrived, so it says nothing
    /// about how fast its deployment was ([`Pace`] leaves it out).
    pub(crate) streamed: bool,
}

/// Remember the busy time and firings of every node of a finished run of
/// `graph` (`nodes`, indexed by node id), and its wall time, as its
/// `shape` says; `fused` says how to split the time of chain pieces over
/// their links. Whether a run had elastic replicas that stayed closed is
/// read from `nodes` ([`NodeStats::elastic`]).
pub(crate) fn record(graph: &GraphInfo, nodes: &[NodeStats], wall: Duration, shape: RunShape, fused: Fused<'_>) {
    // Checked before anything is allocated: most calls of a small
    // algorithm measure too little to be used.
    let total: Duration = nodes.iter().map(|n| n.busy).sum();
    if nodes.len() != graph.nodes.len() {
        return;
    }
    if total < MIN_MEASURED {
        let light = wall >= LIGHT_WALL && shape.waited;
        let elastic = nodes.iter().filter_map(|n| n.elastic);
        let closed = elastic.clone().next().is_some() && elastic.clone().all(|e| e.most_open <= 1);
        if light || closed {
            let mut store = store().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let e = store.entry(key(graph)).or_insert_with(|| Estimates {
                busy: Vec::new(),
                firings: Vec::new(),
                pace: Pace::default(),
                light: false,
                closed: false,
            });
            e.light |= light;
            e.closed |= closed;
        }
        return;
    }
    let busy: Vec<Duration> = nodes.iter().map(|n| n.busy).collect();
    let firings: Vec<u64> = nodes.iter().map(|n| n.firings).collect();
    let all: u64 = firings.iter().sum();
    let mut store = store().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let previous = store.get(&key(graph));
    let estimates = spread(&busy, fused, previous.map(|e| e.busy.as_slice()));
    let mut pace = previous.map(|e| e.pace).unwrap_or_default();
    // A streaming run's wall time per firing is its arrivals' pace: one
    // with replicas that happened to see its items a little later than
    // one without (a loaded machine) stopped `auto` replicating a loop
    // over a channel for good (regression test
    // `a_streaming_runs_wall_time_says_nothing_about_its_replicas`).
    if !shape.streamed {
        let sample = wall.as_nanos() as f64 / all.max(1) as f64;
        Pace::update(if shape.replicated { &mut pace.replicated } else { &mut pace.plain }, sample);
    }
    store.insert(key(graph), Estimates { busy: estimates, firings, pace, light: false, closed: false });
}

/// Per-node estimates from one run: a node that ran on its own keeps its
/// measured time, and so does a link of a chain piece whose probes timed
/// values (the run report split the piece by them). The time of a piece
/// that timed nothing is split in proportion to `previous`, evenly where
/// there is no usable previous estimate.
fn spread(busy: &[Duration], fused: Fused<'_>, previous: Option<&[f64]>) -> Vec<f64> {
    let n = busy.len();
    let mut out: Vec<f64> = busy.iter().map(|d| d.as_nanos() as f64).collect();
    for members in fused.pieces(n) {
        if fused.sampled_total(&members).is_some() {
            continue;
        }
        let chain_total: f64 = members.iter().map(|&id| out[id]).sum();
        let prior = previous
            .filter(|p| p.len() == n)
            .map(|p| members.iter().map(|&id| p[id]).collect::<Vec<f64>>())
            .filter(|w| w.iter().sum::<f64>() > 0.0)
            .unwrap_or_else(|| vec![1.0; members.len()]);
        let prior_total: f64 = prior.iter().sum();
        for (&id, w) in members.iter().zip(prior) {
            out[id] = chain_total * w / prior_total;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{estimates, lookup, record, spread, Fused, Learned, Pace, RunShape, LIGHT_WALL};
    use crate::graph::{GraphInfo, NodeInfo, OpKind};
    use crate::stats::NodeStats;
    use std::time::Duration;

    /// A run that did not stream from its sources.
    fn shape(replicated: bool, waited: bool) -> RunShape {
        RunShape { replicated, waited, streamed: false }
    }

    /// A run of a graph of one node, fused into nothing.
    const ALONE: Fused<'static> = Fused { into: &[None], sampled: &[] };

    /// The statistics of a run of a graph of one call, `name`.
    fn one_call(name: &'static str, firings: u64, busy: Duration) -> Vec<NodeStats> {
        vec![NodeStats {
            name,
            kind: "call",
            section: 0,
            firings,
            steps: firings,
            busy,
            fused_into: None,
            replicas: vec![],
            elastic: None,
            decisions: vec![],
            encoded: None,
        }]
    }

    #[test]
    fn the_pace_of_runs_with_and_without_replicas_is_kept_apart() {
        static G: GraphInfo = GraphInfo {
            algorithm: "paced",
            file: "",
            nodes: &[NodeInfo {
                name: "paced/f#1",
                kind: OpKind::Call,
                depth: 1,
                label: "f",
                replicable: true,
                line: 0,
            }],
            arcs: &[],
        };
        let stats = |firings| one_call("paced/f#1", firings, Duration::from_millis(5));
        // 1000 firings in 10 ms without replicas: 10 µs per firing.
        record(&G, &stats(1000), Duration::from_millis(10), shape(false, true), ALONE);
        let pace = estimates(&G).expect("measured").2;
        assert_eq!(pace, Pace { plain: Some(10_000.0), replicated: None });
        assert!(!pace.replicas_were_slower(), "nothing to compare yet");
        // With replicas: 6 µs, then 16 µs per firing (the average: 11 µs).
        record(&G, &stats(1000), Duration::from_millis(6), shape(true, true), ALONE);
        assert!(!estimates(&G).expect("measured").2.replicas_were_slower());
        record(&G, &stats(1000), Duration::from_millis(16), shape(true, true), ALONE);
        let pace = estimates(&G).expect("measured").2;
        assert_eq!(pace.replicated, Some(11_000.0));
        assert!(pace.replicas_were_slower());
    }

    /// Regression (`replication::a_loop_entry_waiting_for_its_channel_is_not_busy_and_measured_plans_replicate`,
    /// about 1 in 200 runs on a loaded machine): a loop over a channel
    /// runs as long as its items take to arrive, replicas or not. A run
    /// with replicas whose wall time per firing came out a little above a
    /// run without them stopped `auto` replicating the loop's heavy call.
    #[test]
    fn a_streaming_runs_wall_time_says_nothing_about_its_replicas() {
        static G: GraphInfo = GraphInfo {
            algorithm: "streamed",
            file: "",
            nodes: &[NodeInfo {
                name: "streamed/f#1",
                kind: OpKind::Call,
                depth: 1,
                label: "f",
                replicable: true,
                line: 0,
            }],
            arcs: &[],
        };
        let stats = one_call("streamed/f#1", 40, Duration::from_millis(30));
        let streamed = |replicated| RunShape { replicated, waited: false, streamed: true };
        // 80 ms without replicas, then 82 ms with them: both the feed's pace.
        record(&G, &stats, Duration::from_millis(80), streamed(false), ALONE);
        record(&G, &stats, Duration::from_millis(82), streamed(true), ALONE);
        let (_, _, pace) = estimates(&G).expect("the busy times are kept");
        assert_eq!(pace, Pace::default(), "no pace from streaming runs");
        assert!(!pace.replicas_were_slower());
    }

    #[test]
    fn a_run_that_mostly_waited_makes_its_graph_light_until_one_measures_more() {
        static G: GraphInfo = GraphInfo {
            algorithm: "waits",
            file: "",
            nodes: &[NodeInfo {
                name: "waits/f#1",
                kind: OpKind::Call,
                depth: 1,
                label: "f",
                replicable: true,
                line: 0,
            }],
            arcs: &[],
        };
        let stats = |busy| one_call("waits/f#1", 10, busy);
        let light = || matches!(lookup(&G), Learned::Light);
        let little = Duration::from_micros(200);
        // A short call, and a run that did not wait for sources (a loop
        // over a channel, or no fetch at all): not light.
        record(&G, &stats(little), LIGHT_WALL / 2, shape(false, true), ALONE);
        assert!(!light(), "a short call's next call may get more work");
        record(&G, &stats(little), LIGHT_WALL * 10, shape(false, false), ALONE);
        assert!(!light(), "only waiting for sources makes a run light");
        // 0.2 ms of work over 40 ms of waiting: light.
        record(&G, &stats(little), LIGHT_WALL * 10, shape(false, true), ALONE);
        assert!(light());
        // A run with work to spread: measured again.
        record(&G, &stats(Duration::from_millis(30)), Duration::from_millis(40), shape(false, true), ALONE);
        assert!(!light());
        assert!(estimates(&G).is_some());
        // Light again after it (the measurements are kept for later).
        record(&G, &stats(little), LIGHT_WALL * 10, shape(false, true), ALONE);
        assert!(light());
    }

    #[test]
    fn a_short_run_that_kept_its_elastic_replicas_closed_ends_the_first_run_plans() {
        use crate::stats::ElasticStats;
        static G: GraphInfo = GraphInfo {
            algorithm: "short",
            file: "",
            nodes: &[NodeInfo {
                name: "short/f#1",
                kind: OpKind::Call,
                depth: 1,
                label: "f",
                replicable: true,
                line: 0,
            }],
            arcs: &[],
        };
        let stats = |opened_after| {
            let mut s = one_call("short/f#1", 16, Duration::from_micros(20));
            s[0].elastic = Some(ElasticStats {
                opened_after,
                ns_per_item: 50,
                follows_load: false,
                resizes: u64::from(opened_after.is_some()),
                most_open: 1 + usize::from(opened_after.is_some()),
                open_lane_ms: 0,
                regroups: 0,
            });
            s
        };
        let quick = Duration::from_micros(100);
        // Opened: the piece was heavy, the next run may measure it.
        record(&G, &stats(Some(16)), quick, shape(true, false), ALONE);
        assert!(matches!(lookup(&G), Learned::Nothing));
        // Closed in a short run: later unmeasured runs plan without them.
        record(&G, &stats(None), quick, shape(false, false), ALONE);
        assert!(matches!(lookup(&G), Learned::Closed));
        // A run that measures enough plans by its measurements again.
        let mut long = one_call("short/f#1", 1000, Duration::from_millis(30));
        long[0].elastic = None;
        record(&G, &long, Duration::from_millis(40), shape(false, false), ALONE);
        assert!(estimates(&G).is_some());
    }

    /// Node 1 is a chain's first link; 2 and 3 ran fused into it.
    const CHAIN: &[Option<usize>] = &[None, None, Some(1), Some(1)];

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn unfused_nodes_keep_their_measured_time() {
        let out = spread(&ms(&[3, 5, 0]), Fused { into: &[None, None, None], sampled: &[] }, None);
        assert_eq!(out, vec![3e6, 5e6, 0.0]);
    }

    #[test]
    fn a_chain_is_split_evenly_without_history() {
        let out = spread(&ms(&[1, 90, 0, 0]), Fused { into: CHAIN, sampled: &[] }, None);
        assert_eq!(out, vec![1e6, 30e6, 30e6, 30e6]);
    }

    #[test]
    fn a_chain_is_split_in_proportion_to_earlier_estimates() {
        // An earlier run measured link 1 alone at 40 ms and links 2-3 at
        // 5 ms each; fused now, their 100 ms keep that 8:1:1 ratio, so the
        // planner does not forget that link 1 is the heavy one.
        let previous = [1e6, 40e6, 5e6, 5e6];
        let out = spread(&ms(&[1, 100, 0, 0]), Fused { into: CHAIN, sampled: &[] }, Some(&previous));
        assert_eq!(out, vec![1e6, 80e6, 10e6, 10e6]);
    }

    #[test]
    fn a_chain_split_by_its_probes_keeps_that_split_over_earlier_estimates() {
        // An earlier run split the chain evenly (no probes then); this run
        // probed link 1 at 6 ms and links 2-3 at 1 ms each, and its report
        // split the chain's 80 ms 6:1:1. The estimates keep that split,
        // not the old even one, so a heavy link fused from the first run
        // on is seen as heavy at once.
        let previous = [1e6, 30e6, 30e6, 30e6];
        let sampled = [0, 6_000_000, 1_000_000, 1_000_000];
        let out = spread(&ms(&[1, 60, 10, 10]), Fused { into: CHAIN, sampled: &sampled }, Some(&previous));
        assert_eq!(out, vec![1e6, 60e6, 10e6, 10e6]);
    }
}
