//! `execute`: plan, build, run and tear down one algorithm call.

use std::time::Instant;

use super::builder::{Extra, Role};
use super::hosting::Recutting;
use super::observe::{self, make_report, publish};
use super::recut::Regroup;
use super::section::Section;
use super::shared::{Failure, RunShared};
use super::threads::run_sections;
use super::{Builder, ResultSlot};
use crate::context;
use crate::deploy::{self, Deployment, Plan, Recut};
use crate::graph::GraphInfo;
use crate::io::run::IoRun;
use crate::node::marks::Attach;
use crate::node::Node;
use crate::sync::{Arc, Parker, SleepFlag, Waker};
use crate::update::Control;

/// Run one call of the algorithm described by `graph` and return its result.
///
/// The deployment comes from [`crate::context::with_deployment`] if set,
/// otherwise from the environment, read once per process ([`deploy::current`]). `build`
/// creates the graph's arcs and operators through the `Builder` and
/// returns the slot its sink fills. Each section then runs on its own scoped
/// thread, except one that runs on the calling thread, so a single-section
/// deployment spawns no thread. All threads have joined when this returns
/// or panics.
///
/// # Panics
///
/// * If an operator panics, the run is aborted and, once every section has
///   stopped, the operator's original payload is re-raised here with
///   [`std::panic::resume_unwind`], as sequential execution would raise it.
///   The operator's name is printed to stderr, recorded in the run report
///   ([`RunReport::panicked`](crate::report::RunReport::panicked)) and
///   available from [`context::last_operator_panic`].
/// * If the deployment configuration (`OHUA_CONFIG` file or `OHUA_*`
///   variables) is invalid; the message names the file or variable.
/// * If `build` installed no operator for some node, or created an arc or
///   node twice.
/// * If the graph finished without its sink setting the result.
///
/// # Example
///
/// A one-operator graph whose sink hands a constant to the caller: see the
/// unit test `a_one_operator_graph_hands_its_constant_to_the_caller`.
pub fn execute<'a, R: Send + 'a>(
    graph: &'static GraphInfo,
    build: impl FnOnce(&mut Builder<'a>) -> ResultSlot<R>,
) -> R {
    // Only building and taking the result depend on the algorithm's types;
    // everything else is compiled once for all algorithms (issue: compile
    // time; `cargo llvm-lines` showed `execute` copied per algorithm).
    let mut prepared = Prepared::new(graph);
    let slot = build(&mut prepared.builder);
    // Only `execute_cluster`'s graphs serve statements; should another
    // have, none is reached after the run.
    let _revoke = Revoke(prepared.builder.take_served());
    prepared.run();
    slot.take().unwrap_or_else(|| no_result(graph))
}

/// [`execute`] for a `#[ohua::algorithm(cluster)]` algorithm: where the
/// deployment says `lanes = "cluster"` and this process joined a cluster
/// (`crate::remote`), the caller runs the graph with its distributable
/// calls served by every process and sends its result to the others; in
/// the others the call builds the same graph, serves its stages until the
/// caller closes them, and returns the caller's result. Elsewhere it is
/// [`execute`].
///
/// # Panics
///
/// As [`execute`]; and if a process of the cluster fails, with the error
/// naming it.
pub fn execute_cluster<'a, R: Send + serde::Serialize + serde::de::DeserializeOwned + 'a>(
    graph: &'static GraphInfo,
    build: impl FnOnce(&mut Builder<'a>) -> ResultSlot<R>,
) -> R {
    let mut prepared = Prepared::new(graph);
    let cluster = super::serialized::cluster_for(prepared.builder.plan());
    let Some(cluster) = cluster else {
        let slot = build(&mut prepared.builder);
        prepared.run();
        return slot.take().unwrap_or_else(|| no_result(graph));
    };
    let slot = build(&mut prepared.builder);
    // No call reaches a statement after the run, which it may borrow from.
    let _revoke = Revoke(prepared.builder.take_served());
    let failed = |e: String| -> ! { panic!("ohua: algorithm `{}` on a cluster: {e}", graph.algorithm) };
    // The caller's result, or the message of its run's panic: every
    // process ends the run as the caller did, having closed the same
    // stages, so the cluster serves the next run.
    let codec = crate::codec::Codec::<Result<R, String>>::serde();
    if cluster.is_caller() {
        // The graph is gone when the run returns or unwinds, and with it
        // its remote lanes, which close their stages.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            prepared.run();
            slot.take().unwrap_or_else(|| no_result(graph))
        }));
        let waited = cluster.wait_stages();
        let shared: Result<R, String> = run.map_err(|panic| -> String {
            // The others learn of the failure; a cluster that broke (a
            // process gone) cannot share it, and the panic says why.
            let failure: Result<R, String> = Err(crate::util::panic_message(&*panic));
            let mut bytes = Vec::new();
            if waited.is_ok() && codec.encode(&failure, &mut bytes).is_ok() {
                let _ = cluster.share_result(Some(bytes));
            }
            std::panic::resume_unwind(panic)
        });
        waited.unwrap_or_else(|e| failed(e));
        let mut bytes = Vec::new();
        codec.encode(&shared, &mut bytes).unwrap_or_else(|e| failed(e.to_string()));
        cluster.share_result(Some(bytes)).unwrap_or_else(|e| failed(e));
        shared.unwrap_or_else(|_: String| unreachable!("the caller's own result"))
    } else {
        // The operators are never run here: the caller runs the graph.
        drop(prepared);
        drop(slot);
        cluster.wait_stages().unwrap_or_else(|e| failed(e));
        let bytes = cluster.share_result(None).unwrap_or_else(|e| failed(e));
        match codec.decode(&bytes).unwrap_or_else(|e| failed(e.to_string())) {
            Ok(result) => result,
            Err(message) => failed(format!("the caller's run failed: {message}")),
        }
    }
}

/// Revokes a run's served statements when dropped (`crate::remote::Served`).
struct Revoke(Vec<crate::remote::Served>);

impl Drop for Revoke {
    fn drop(&mut self) {
        for served in &self.0 {
            served.revoke();
        }
    }
}

/// A run planned and ready to be built.
struct Prepared<'a> {
    graph: &'static GraphInfo,
    opts: context::Options,
    builder: Builder<'a>,
    parkers: Vec<Parker>,
    flags: Vec<Arc<SleepFlag>>,
    wakers: Vec<Waker>,
    io: Option<std::sync::Arc<IoRun>>,
    /// A service run's control (`crate::update`).
    control: Option<std::sync::Arc<Control>>,
}

impl<'a> Prepared<'a> {
    /// Read the deployment, plan the run and create the sections' parkers.
    #[inline(never)]
    fn new(graph: &'static GraphInfo) -> Self {
        // Taken before the snapshot: section threads, and runs nested in
        // this one, are not the service.
        let (control, live_scaling) = (context::take_control(), context::take_live_scaling());
        let opts = context::snapshot();
        // The process's configuration is read once (`deploy::current`).
        let process;
        let deployment: &Deployment = match &opts.deployment {
            Some(d) => d,
            None => {
                process = deploy::current()
                    .unwrap_or_else(|e| panic!("ohua: cannot run algorithm `{}`: {e}", graph.algorithm));
                &process
            }
        };
        let plan = deploy::plan(graph, deployment);
        // The run's sleep/wake fences, fixed before any section thread
        // starts (`sync/asymmetric.rs`). A service waits for the process's
        // `membarrier` registration: it runs for long.
        let fences = crate::sync::Fences::for_run(control.is_some());
        let parkers: Vec<Parker> = (0..plan.sections).map(|_| Parker::new()).collect();
        // A graph that fetches counts its running sections (`io/README.md`).
        let fetches = graph.nodes.iter().any(|n| n.kind == crate::graph::OpKind::Await);
        let (flags, wakers, io) = if fetches {
            let io = IoRun::new(plan.sections, deployment.io);
            let flags: Vec<Arc<SleepFlag>> = parkers
                .iter()
                .map(|p| SleepFlag::counted(p.unparker().clone(), Some(io.quiet().clone()), fences))
                .collect();
            let wakers: Vec<Waker> = flags.iter().map(|f| Waker::new(f.clone())).collect();
            io.set_wakers(wakers.clone());
            (flags, wakers, Some(io))
        } else if plan.recut.is_some() {
            // A section's thread may step another's operators and sleep
            // for it (`exec/hosting.rs`): its flag forwards wake-ups.
            let all: std::sync::Arc<[_]> = parkers.iter().map(|p| p.unparker().clone()).collect();
            let flags: Vec<Arc<SleepFlag>> =
                parkers.iter().map(|p| SleepFlag::hostable(p.unparker().clone(), all.clone(), fences)).collect();
            let wakers: Vec<Waker> = flags.iter().map(|f| Waker::new(f.clone())).collect();
            (flags, wakers, None)
        } else {
            let flags: Vec<Arc<SleepFlag>> =
                parkers.iter().map(|p| SleepFlag::new(p.unparker().clone(), fences)).collect();
            let wakers: Vec<Waker> = flags.iter().map(|f| Waker::new(f.clone())).collect();
            (flags, wakers, None)
        };
        let mut builder = Builder::new(graph, plan, wakers.clone());
        builder.set_service(control.clone(), live_scaling);
        Prepared { graph, opts, builder, parkers, flags, wakers, io, control }
    }

    /// Run the built graph to its end; re-raise an operator's panic.
    #[inline(never)]
    fn run(self) {
        let Prepared { graph, opts, builder, parkers, flags, wakers, io, control } = self;
        let mut built = builder.into_built();
        if let Some(control) = &control {
            attach(graph, control, &mut built.nodes, &mut built.extras);
        }
        let (plan, fused_into, elastic, link_times) = (built.plan, built.fused_into, built.elastic, built.link_times);
        let (holds, gauges, encoded) = (built.holds, built.gauges, built.encoded);
        let regroup = match &plan.recut {
            Some(Recut::Measured { threads, start }) => {
                Some(std::sync::Arc::new(Regroup::new(*threads, start, false, holds)))
            }
            Some(Recut::Eager { threads, start }) => {
                Some(std::sync::Arc::new(Regroup::new(*threads, start, true, holds)))
            }
            Some(Recut::Streaming { threads, start, pipeline }) => {
                let lanes = elastic.iter().flatten().cloned().collect();
                Some(std::sync::Arc::new(Regroup::new(*threads, start, false, holds).streaming_only(*pipeline, lanes)))
            }
            _ => None,
        };
        let sections = assign(graph, &plan, &regroup, parkers, flags, built.nodes, built.extras);

        let mut shared = RunShared::new(wakers, io.clone());
        let start = Instant::now();
        let viewed = crate::live::is_on()
            .then(|| super::live::live_counts(&sections, &plan, graph.nodes.len()))
            .and_then(|counts| crate::live::run_started(graph, &plan, &fused_into, start, control.as_ref(), counts));
        if let Some(v) = &viewed {
            shared.set_live(v.counts.clone());
        }
        // SAFETY: dropped at the end of this function at the latest, while
        // the arcs' items may still borrow what the run borrows, and before
        // `shared` (declared earlier).
        let _watch = viewed.as_ref().map(|v| unsafe { v.counts.watch(gauges, &shared) });
        // Runs that the operators start are nested (`context::inside_run`).
        let inner = context::Options { inside_run: true, ..opts.clone() };
        let counters = context::inside_run(|| run_sections(graph, &sections, &shared, &inner));
        drop(sections);
        if let Some(control) = &control {
            control.finish();
        }
        // No thread of the run outlives it: wait for batches still in
        // flight, after sending writes nobody awaited (not after an abort:
        // sequential code would not have reached them).
        if let Some(io) = &io {
            io.wait_idle(!shared.aborted());
        }
        // The chain pieces added their probes when `sections` was dropped.
        let links = link_times.map(|t| t.get()).unwrap_or_default();
        let stats = shared.section_stats();
        let fused = deploy::learned::Fused { into: &fused_into, sampled: &links };
        let mut report = make_report(graph, plan, start, counters, fused, stats, &elastic);
        report.panicked = shared.panicked_operator();
        for (id, counts) in &encoded {
            report.nodes[*id].encoded = Some(counts.get());
        }
        report.recuts = regroup.map(|r| r.decisions()).unwrap_or_default();
        report.snapshots = shared.snapshots().get();
        if let Some(control) = &control {
            report.markers = control.reports();
        }
        if let Some(io) = &io {
            report.io = io.stats();
            if observe::sites_wanted(&opts) {
                report.io_sites = io.site_report(graph);
            }
        }
        publish(&opts, graph, &report);
        crate::live::run_finished(viewed.map(|v| v.token), &report);
        if !shared.aborted() {
            // Replicas that took items (a first run's elastic replicas that
            // never opened ran like one operator).
            let replicated = report.nodes.iter().any(|n| n.replicas.iter().skip(1).any(|r| r.firings > 0));
            // Only a run that waited for its sources may mark its graph
            // light: a cheap pipeline's wall time is hand-offs, not waiting.
            let streamed = shared.streaming();
            let waited = !streamed && report.io.iter().any(|s| s.calls > 0);
            let shape = deploy::learned::RunShape { replicated, waited, streamed };
            deploy::learned::record(graph, &report.nodes, report.wall, shape, fused);
        }

        match shared.take_failure() {
            Some(Failure::Operator { name, payload }) => {
                // The payload goes back unchanged, as sequential code would
                // raise it; the operator's name goes to stderr and the
                // thread's record.
                eprintln!("ohua: operator `{name}` of algorithm `{}` panicked; re-raising its panic", graph.algorithm);
                context::set_last_operator_panic(context::OperatorPanic { algorithm: graph.algorithm, operator: name });
                std::panic::resume_unwind(payload)
            }
            Some(Failure::Runtime(msg)) => {
                panic!("ohua: run of algorithm `{}` failed: {msg}", graph.algorithm)
            }
            None => {}
        }
    }
}

/// Hand a service's control to every operator (`Node::attach`).
fn attach<'a>(
    graph: &'static GraphInfo,
    control: &std::sync::Arc<Control>,
    nodes: &mut [Option<Box<dyn Node + 'a>>],
    extras: &mut [Extra<'a>],
) {
    let at = |node| Attach { control: control.clone(), graph, node };
    for (id, node) in nodes.iter_mut().enumerate() {
        if let Some(node) = node {
            node.attach(&at(id));
        }
    }
    for e in extras {
        e.node.attach(&at(e.anchor));
    }
}

#[cold]
#[inline(never)]
fn no_result(graph: &GraphInfo) -> ! {
    panic!("ohua: algorithm `{}` finished without producing a result (its sink never set it)", graph.algorithm)
}

/// Distribute the operators (indexed by node id) to their sections, each
/// section in topological order so one pass moves data through it. A
/// replicated node's replicas and merge follow its scatter, in that order.
fn assign<'a>(
    graph: &GraphInfo,
    plan: &Plan,
    regroup: &Option<std::sync::Arc<Regroup>>,
    parkers: Vec<Parker>,
    flags: Vec<Arc<SleepFlag>>,
    mut nodes: Vec<Option<Box<dyn Node + 'a>>>,
    mut extras: Vec<Extra<'a>>,
) -> Vec<Section<'a>> {
    let mut sections: Vec<Section<'a>> =
        parkers.into_iter().zip(flags).enumerate().map(|(k, (p, f))| Section::new(k, p, f, plan.batch_size)).collect();
    // The plan asks for it only where the flags forward wake-ups (never
    // in a run that fetches).
    if let Some(recut) = &plan.recut {
        for s in &mut sections {
            s.set_recut(match recut {
                Recut::Chaos(seed) => Recutting::Chaos(*seed),
                Recut::Measured { .. } | Recut::Eager { .. } | Recut::Streaming { .. } => {
                    Recutting::Measured(regroup.clone().expect("made for a measured re-cut"))
                }
            });
        }
    }
    let order = graph.topological_order();
    if !extras.is_empty() {
        // After each replicated node (in the order nodes are visited):
        // its replicas in order, then its merge.
        let mut rank = vec![0; order.len()];
        for (r, &id) in order.iter().enumerate() {
            rank[id] = r;
        }
        extras.sort_by_key(|e| (rank[e.anchor], e.role));
    }
    let mut extras = extras.into_iter().peekable();
    for id in order {
        if let Some(node) = nodes[id].take() {
            sections[plan.section_of[id]].push(id, Role::Node, node);
        }
        while let Some(e) = extras.next_if(|e| e.anchor == id) {
            sections[e.section].push(e.anchor, e.role, e.node);
        }
    }
    sections
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::execute;
    use crate::graph::{GraphInfo, NodeInfo, OpKind};
    use crate::node::slot::ResultSlot;
    use crate::node::{Node, Step};

    /// [`execute`]'s example (the crate's example until `exec` and `node`
    /// became private).
    #[test]
    fn a_one_operator_graph_hands_its_constant_to_the_caller() {
        let _graphs = crate::tests::runs_graphs();
        struct Answer(ResultSlot<u32>);
        impl Node for Answer {
            fn step(&mut self, _budget: usize) -> Step {
                self.0.set(42);
                Step::Done
            }
            fn flush(&mut self) {}
        }

        static G: GraphInfo = GraphInfo {
            algorithm: "answer",
            file: "",
            nodes: &[NodeInfo {
                name: "answer/result#0",
                kind: OpKind::Sink,
                depth: 0,
                label: "42",
                replicable: false,
                line: 0,
            }],
            arcs: &[],
        };
        let v = execute(&G, |b| {
            let slot = b.result_slot();
            b.node(0, Answer(slot.clone()));
            slot
        });
        assert_eq!(v, 42);
    }
}
