//! How much parallelism a profiled run shows: InContext's simulator
//! (§4.2) as a bound from the measured time per call in each context.
//!
//! InContext's simulator replays a program's events with their measured
//! lengths and lets an event start at once unless a *global* event is
//! pending. Here the contexts are the operators' kinds: a call on a state
//! object (`&mut self`, and the step that takes a snapshot) and the loop's
//! control run once, each in order (global); a free function and a `&self`
//! call on a snapshot may run on any core (none, anon). A loop that
//! carries a value (a state used by several statements, a `while`'s
//! variables) runs the operators on that cycle one iteration after the
//! other, so their times add up.
//!
//! On `n` cores the run takes at least the longest of those in-order
//! parts, and at least the whole work over `n`: the predicted speedup is
//! the work over the larger of the two (the work is the sequential run's
//! time, up to the runtime's cost per item). It assumes the deployment
//! spreads the rest perfectly and moving items costs nothing, so it is an
//! upper bound; `BENCHMARKS.md` compares it with measured speedups.

use std::time::Duration;

use super::RunReport;

/// The parallelism a run showed ([`RunReport::parallelism`]).
///
/// # Example
///
/// ```
/// use std::time::Duration;
/// use ohua_runtime::report::Parallelism;
/// let p = Parallelism { work: Duration::from_millis(100), in_order: Duration::from_millis(20), bound_by: vec!["f/update#2"] };
/// assert_eq!(p.speedup(2), 2.0);
/// assert_eq!(p.speedup(8), 5.0); // 100 ms of work, 20 of them in order
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Parallelism {
    /// Busy time of every operator together.
    pub work: Duration,
    /// The longest part that must run in order: one operator that runs
    /// once, or the operators of one loop-carried cycle together.
    pub in_order: Duration,
    /// The operators of that part.
    pub bound_by: Vec<&'static str>,
}

impl Parallelism {
    /// The speedup over sequential execution the run's measurements allow
    /// on `cores` cores: the work over the larger of the in-order part and
    /// the work spread over the cores. 1 for a run that measured no work.
    pub fn speedup(&self, cores: usize) -> f64 {
        let work = self.work.as_secs_f64();
        let per_core = work / cores.max(1) as f64;
        let bound = self.in_order.as_secs_f64().max(per_core);
        if bound > 0.0 {
            work / bound
        } else {
            1.0
        }
    }
}

impl RunReport {
    /// What the run's measurements say about its parallelism (see
    /// `report/parallelism.rs`): from a profiled run, the speedup its
    /// algorithm could reach on any number of cores.
    ///
    /// An example with an algorithm is in the `ohua` crate's documentation
    /// (`ohua::profile`).
    pub fn parallelism(&self) -> Parallelism {
        let graph = self.graph;
        let n = graph.nodes.len().min(self.nodes.len());
        let busy: Vec<Duration> = self.nodes.iter().take(n).map(|s| s.busy).collect();
        let work = busy.iter().sum();
        let mut best = (Duration::ZERO, Vec::new());
        let mut consider = |time: Duration, names: Vec<&'static str>| {
            if time > best.0 {
                best = (time, names);
            }
        };
        let reach = reachability(self);
        let mut grouped = vec![false; n];
        for id in 0..n {
            if reach[id][id] {
                // A loop-carried cycle: everything that reaches `id` and
                // that `id` reaches runs once per iteration, in order.
                if grouped[id] {
                    continue;
                }
                let cycle: Vec<usize> = (0..n).filter(|&j| reach[id][j] && reach[j][id]).collect();
                cycle.iter().for_each(|&j| grouped[j] = true);
                consider(cycle.iter().map(|&j| busy[j]).sum(), cycle.iter().map(|&j| graph.nodes[j].name).collect());
            } else if !graph.nodes[id].replicable {
                consider(busy[id], vec![graph.nodes[id].name]);
            }
        }
        Parallelism { work, in_order: best.0, bound_by: best.1 }
    }
}

/// `reach[a][b]`: node `b` is reachable from node `a` by one or more arcs.
fn reachability(report: &RunReport) -> Vec<Vec<bool>> {
    let graph = report.graph;
    let n = graph.nodes.len().min(report.nodes.len());
    let mut next = vec![Vec::new(); n];
    for a in graph.arcs.iter().filter(|a| (a.from as usize) < n && (a.to as usize) < n) {
        next[a.from as usize].push(a.to as usize);
    }
    (0..n)
        .map(|start| {
            let mut seen = vec![false; n];
            let mut stack = next[start].clone();
            while let Some(x) = stack.pop() {
                if !seen[x] {
                    seen[x] = true;
                    stack.extend(&next[x]);
                }
            }
            seen
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::Plan;
    use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
    use crate::report::NodeStats;

    const fn node(name: &'static str, replicable: bool) -> NodeInfo {
        NodeInfo { name, kind: OpKind::Call, depth: 1, label: name, replicable, line: 0 }
    }

    const fn arc(from: u32, to: u32, feedback: bool) -> ArcInfo {
        ArcInfo { from, from_port: 0, to, to_port: 0, feedback }
    }

    fn report(graph: &'static GraphInfo, busy_ms: &[u64]) -> RunReport {
        let nodes = graph
            .nodes
            .iter()
            .zip(busy_ms)
            .map(|(n, &ms)| NodeStats {
                name: n.name,
                kind: "call",
                section: 0,
                firings: 10,
                steps: 10,
                busy: Duration::from_millis(ms),
                fused_into: None,
                replicas: vec![],
                elastic: None,
                decisions: vec![],
                encoded: None,
            })
            .collect();
        RunReport {
            graph,
            algorithm: graph.algorithm,
            sections: 1,
            wall: Duration::from_millis(1),
            started: std::time::Instant::now(),
            nodes,
            plan: Plan::unreplicated(vec![0; graph.nodes.len()], 1, 64, 64),
            section_stats: vec![],
            panicked: None,
            io: vec![],
            io_sites: vec![],
            markers: vec![],
            recuts: vec![],
            snapshots: Default::default(),
        }
    }

    /// update (state, in order) → verify (a read on a snapshot) → deliver.
    static MULTICAST: GraphInfo = GraphInfo {
        algorithm: "m",
        file: "",
        nodes: &[node("m/update#1", false), node("m/verify#2.read", true), node("m/deliver#3", false)],
        arcs: &[arc(0, 1, false), arc(1, 2, false)],
    };

    #[test]
    fn reads_on_snapshots_spread_and_the_heaviest_state_call_bounds() {
        let p = report(&MULTICAST, &[10, 80, 10]).parallelism();
        assert_eq!(
            (p.work, p.in_order, p.bound_by.clone()),
            (Duration::from_millis(100), Duration::from_millis(10), vec!["m/update#1"])
        );
        assert_eq!(p.speedup(1), 1.0);
        assert_eq!(p.speedup(2), 2.0);
        assert_eq!(p.speedup(20), 10.0);
    }

    /// apply → step → carry back to apply (a state used twice), and a
    /// replicable read off the cycle.
    static CARRIED: GraphInfo = GraphInfo {
        algorithm: "c",
        file: "",
        nodes: &[
            node("c/apply#1", false),
            node("c/step#2", false),
            node("c/carry", false),
            node("c/read#2.read", true),
        ],
        arcs: &[arc(0, 1, false), arc(1, 2, false), arc(2, 0, true), arc(1, 3, false)],
    };

    #[test]
    fn the_operators_of_a_loop_carried_cycle_add_up() {
        let p = report(&CARRIED, &[30, 20, 0, 50]).parallelism();
        assert_eq!(p.in_order, Duration::from_millis(50));
        assert_eq!(p.bound_by, vec!["c/apply#1", "c/step#2", "c/carry"]);
        assert_eq!(p.speedup(4), 2.0);
    }

    #[test]
    fn a_run_without_work_has_no_speedup() {
        assert_eq!(report(&MULTICAST, &[0, 0, 0]).parallelism().speedup(8), 1.0);
    }
}
