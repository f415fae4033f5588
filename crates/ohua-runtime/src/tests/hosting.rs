//! Sections that host each other while the run goes on (`exec/hosting.rs`):
//! random sections re-cut at drawn moments, and nothing is lost, duplicated
//! or reordered, also when a hosted operator blocks its thread.

use super::common::graphs::{run_indep, run_pipeline, INDEP, PIPE};
use super::common::watchdog;
use crate::context::{profile, with_deployment};
use crate::deploy::{Deployment, SectionStrategy};
use crate::report::RunReport;

fn random(sections: usize, seed: u64) -> Deployment {
    Deployment::default().workers(2).sections(SectionStrategy::Random { sections, seed }).batch_size(4).arc_capacity(2)
}

/// Times sections were hosted in `reports`, and rescues in a section other
/// than the blocking operator's own `of` (its step was stuck while another
/// section's driver hosted it).
fn hosted_and_rescued_elsewhere(reports: &[RunReport], of: Option<usize>) -> (u64, u64) {
    let mut hosted = 0;
    let mut elsewhere = 0;
    for r in reports {
        for (k, s) in r.section_stats.iter().enumerate() {
            hosted += s.hosted;
            if of.is_some_and(|id| r.plan.section_of[id] != k) {
                elsewhere += s.rescues;
            }
        }
    }
    (hosted, elsewhere)
}

#[test]
fn sections_that_host_each_other_at_random_moments_lose_and_reorder_nothing() {
    let _graphs = super::runs_graphs();
    let (_, reports) = watchdog(120, || {
        profile(|| {
            for seed in 0..12 {
                let d = random(2 + (seed % 3) as usize, seed);
                let out = with_deployment(d, || run_pipeline(&PIPE, 20_000, |x| x * 3));
                assert_eq!(out, (0..20_000).map(|x| (x + 1) * 3 + 1).collect::<Vec<_>>(), "seed {seed}");
            }
        })
    });
    let (hosted, _) = hosted_and_rescued_elsewhere(&reports, None);
    assert!(hosted > 0, "no section was ever hosted: the re-cut did not happen");
    // Half of the seeds regroup by measured loads with no minimum window,
    // work or gain (`deploy::Recut::Eager`).
    let eager = reports.iter().filter(|r| matches!(r.plan.recut, Some(crate::deploy::Recut::Eager { .. })));
    assert!(eager.clone().count() > 0 && eager.clone().any(|r| !r.recuts.is_empty()), "no eager regrouping");
}

#[test]
fn a_hosted_operator_that_blocks_its_thread_is_rescued_by_its_hosts_monitor_tick() {
    let _graphs = super::runs_graphs();
    // Chain A's gate blocks until chain B has finished; whoever steps the
    // gate (its section's thread or a host) is rescued, or the run hangs.
    let gate = INDEP.nodes.iter().position(|n| n.name.starts_with("indep/gate")).expect("the gate");
    let (_, reports) = watchdog(120, move || {
        profile(|| {
            for seed in 0..12 {
                let (a, b) = with_deployment(random(3, seed), || run_indep(5_000));
                assert_eq!(a, (0..5_000).collect::<Vec<_>>(), "seed {seed}");
                assert_eq!(b, (0..5_000).map(|x| x * 2).collect::<Vec<_>>(), "seed {seed}");
            }
        })
    });
    let (hosted, _) = hosted_and_rescued_elsewhere(&reports, Some(gate));
    assert!(hosted > 0, "no section was ever hosted: the re-cut did not happen");
}

#[test]
fn a_step_that_sleeps_in_a_hosted_section_is_rescued_with_the_hosts_other_operators_running() {
    let _graphs = super::runs_graphs();
    // The middle stage sleeps 25 ms every 2,000 items: long enough for the
    // monitor's ticks (10 ms) to find its step stuck and hand the rest of
    // the section (or of the host and its guests) to a new driver.
    let (_, reports) = watchdog(120, || {
        profile(|| {
            for seed in 0..8 {
                let sleepy = |x: u64| {
                    if x % 2_000 == 1_999 {
                        std::thread::sleep(std::time::Duration::from_millis(25));
                    }
                    x + 5
                };
                let out = with_deployment(random(3, 100 + seed), || run_pipeline(&PIPE, 20_000, sleepy));
                assert_eq!(out, (0..20_000).map(|x| x + 7).collect::<Vec<_>>(), "seed {seed}");
            }
        })
    });
    let middle = 2; // `pipe/inc#2`, the stage `run_pipeline` gives its closure
    let (hosted, elsewhere) = hosted_and_rescued_elsewhere(&reports, Some(middle));
    let rescues: u64 = reports.iter().flat_map(|r| &r.section_stats).map(|s| s.rescues).sum();
    // About 80 rescues, 30 of them of a host stepping the stage (8 seeds).
    assert!(hosted > 0, "no section was ever hosted: the re-cut did not happen");
    assert!(elsewhere > 0, "no stuck step of a hosted stage was rescued ({rescues} rescues in all)");
}

/// A first run of two heavy stages and two light ones (calls in a loop,
/// planned by `auto` with nothing measured): cut finer than its threads,
/// it starts with both heavy stages on one thread (the operator count's
/// groups) and regroups them onto a thread each once their busy time is
/// measured (`exec/recut.rs`).
#[test]
fn a_first_run_regroups_its_sections_by_their_measured_busy_time() {
    use super::common::nodes::{Count, Map, Sink};
    use crate::exec::execute;
    use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
    use crate::port::{In, Out};

    const fn stage(name: &'static str) -> NodeInfo {
        NodeInfo { name, kind: OpKind::Call, depth: 1, label: name, replicable: false, line: 0 }
    }
    const fn arc(from: u32, to: u32) -> ArcInfo {
        ArcInfo { from, from_port: 0, to, to_port: 0, feedback: false }
    }
    static SKEWED: GraphInfo = GraphInfo {
        algorithm: "skewed",
        file: "",
        nodes: &[
            NodeInfo { name: "skewed/xs#0", kind: OpKind::Source, depth: 0, label: "xs", replicable: false, line: 0 },
            stage("skewed/heavy#1"),
            stage("skewed/heavy#2"),
            stage("skewed/light#3"),
            stage("skewed/light#4"),
            NodeInfo {
                name: "skewed/result",
                kind: OpKind::Sink,
                depth: 0,
                label: "result",
                replicable: false,
                line: 0,
            },
        ],
        arcs: &[arc(0, 1), arc(1, 2), arc(2, 3), arc(3, 4), arc(4, 5)],
    };
    fn heavy(x: u64) -> u64 {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_micros(20) {
            std::hint::spin_loop();
        }
        x + 1
    }

    let _graphs = super::runs_graphs();
    let d = Deployment::default().workers(2).sections(SectionStrategy::Auto);
    let (out, reports) = watchdog(120, move || {
        profile(|| {
            with_deployment(d, || {
                execute(&SKEWED, |b| {
                    let (t0, r0) = b.arc(0);
                    let (t1, r1) = b.arc(1);
                    let (t2, r2) = b.arc(2);
                    let (t3, r3) = b.arc(3);
                    let (t4, r4) = b.arc(4);
                    b.node(0, Count::new(Out::new(vec![t0]), 4_000));
                    b.node(1, Map::new(In::new(r0), Out::new(vec![t1]), heavy));
                    b.node(2, Map::new(In::new(r1), Out::new(vec![t2]), heavy));
                    b.node(3, Map::new(In::new(r2), Out::new(vec![t3]), |x| x * 2));
                    b.node(4, Map::new(In::new(r3), Out::new(vec![t4]), |x| x + 3));
                    let slot = b.result_slot();
                    b.node(5, Sink::new(In::new(r4), slot.clone()));
                    slot
                })
            })
        })
    });
    assert_eq!(out, (0..4_000).map(|x| (x + 2) * 2 + 3).collect::<Vec<_>>());
    let r = &reports[0];
    let Some(crate::deploy::Recut::Measured { threads: 2, start }) = &r.plan.recut else {
        panic!("a first run with nothing to replicate re-cuts by measured cost: {:?}", r.plan.recut)
    };
    let (h1, h2) = (r.plan.section_of[1], r.plan.section_of[2]);
    assert_eq!(start[h1], start[h2], "the count's groups put both heavy stages on one thread: {start:?}");
    let last = r.recuts.last().unwrap_or_else(|| panic!("no re-cut:\n{r}"));
    assert_ne!(last.hosts[h1], last.hosts[h2], "the heavy stages still share a thread:\n{r}");
    assert!(last.busiest_after < last.busiest_before);
}
