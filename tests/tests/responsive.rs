//! InContext's responsiveness case (§7.1, issue 24): a long `&self`
//! summary on a snapshot state runs apart from the state's other calls, so
//! the heartbeats that arrive while it runs are answered before it ends.
//! `examples/src/bin/responsive.rs` measures the reply latency; this file
//! checks the order of events, which no timing can make pass by luck.

use ohua::{snapshot, Deployment, Replication, SectionStrategy};

use crate::snapshots::{busy, reads_apart};

/// Heartbeats the client has had answered. The summary below waits for
/// some of them, as a node's peers stop waiting for a node that does not
/// answer (InContext §7.1).
static ANSWERED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A node of a distributed computation: a version that every request
/// moves, a cheap status and a long summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    version: u64,
}

impl Node {
    pub fn new() -> Self {
        Node::default()
    }

    pub fn apply(&mut self, _r: &(bool, usize)) {
        self.version += 1;
    }

    pub fn status(&self, _r: &(bool, usize)) -> u64 {
        self.version
    }

    /// `&self`, long: 20 ms of work, then more (up to 20 s) until `r.1`
    /// heartbeats have been answered. It computes, it does not sleep: a
    /// step that blocks lets the runtime hand its section's other
    /// operators to another thread in any run (`exec/README.md`,
    /// "Rescue"), one that computes only in a run that streams, as this
    /// one does.
    pub fn summary(&self, r: &(bool, usize)) -> u64 {
        busy(20_000);
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while ANSWERED.load(std::sync::atomic::Ordering::SeqCst) < r.1 && std::time::Instant::now() < until {
            busy(100);
        }
        self.version * 1000
    }

    pub fn version(&self) -> u64 {
        self.version
    }
}

#[ohua::algorithm]
fn heartbeats(
    requests: std::sync::mpsc::Receiver<(bool, usize)>,
    pongs: std::sync::mpsc::Sender<u64>,
    reports: std::sync::mpsc::Sender<u64>,
) -> u64 {
    let mut node = snapshot(Node::new());
    let mut answers = ohua_conformance::Replies::new(pongs);
    let mut summaries = ohua_conformance::Replies::new(reports);
    for r in requests {
        node.apply(&r);
        if r.0 {
            let s = node.summary(&r);
            summaries.send(s);
        } else {
            let a = node.status(&r);
            answers.send(a);
        }
    }
    let last = node.version();
    last
}

/// Heartbeats before and after a summary request; the summary waits for
/// the ones after it. Returns the replies and the summaries.
fn serve_heartbeats(d: Deployment, after: usize) -> (Vec<u64>, Vec<u64>) {
    use std::sync::atomic::Ordering::SeqCst;
    use std::time::Duration;
    ohua_conformance::within(60, "the heartbeat service", move || {
        ANSWERED.store(0, SeqCst);
        let (tx, rx) = std::sync::mpsc::channel();
        let (pong_tx, pongs) = std::sync::mpsc::channel();
        let (report_tx, reports) = std::sync::mpsc::channel();
        let server = std::thread::spawn(move || ohua::with_deployment(d, || heartbeats(rx, pong_tx, report_tx)));
        let mut got = Vec::new();
        let heartbeat = |got: &mut Vec<u64>, what: &str| {
            tx.send((false, 0)).unwrap();
            let pong = pongs.recv_timeout(Duration::from_secs(5));
            got.push(pong.unwrap_or_else(|_| panic!("{what}: no answer within 5 s")));
            ANSWERED.fetch_add(1, SeqCst);
        };
        heartbeat(&mut got, "the first heartbeat");
        tx.send((true, 1 + after)).unwrap();
        for k in 0..after {
            heartbeat(&mut got, &format!("heartbeat {k} after the summary request, while the summary runs"));
        }
        let summary = reports.recv_timeout(Duration::from_secs(25)).expect("the summary");
        drop(tx);
        assert_eq!(server.join().expect("no panic"), 2 + after as u64, "the last version");
        (got, vec![summary])
    })
}

/// InContext's responsiveness (§7.1): a summary on a snapshot runs apart
/// from its state's other calls, so heartbeats sent while it runs are
/// answered before it ends. The summary waits for them (up to 20 s), so
/// where they wait behind it, as in sequential execution, the client's
/// 5 s timeout fails the test. Each deployment that runs the summary
/// apart: its own section; `auto` and `elastic` replicas once a run has
/// measured it long; and a first run, which measures the summary on the
/// state's own thread: the monitor hands the heartbeats' operators to
/// another thread once the summary's step has computed for a tick
/// (`a_long_firing_in_a_first_run_does_not_hold_the_heartbeats`).
#[test]
fn heartbeats_are_answered_while_a_long_summary_runs_on_a_snapshot() {
    use std::sync::atomic::Ordering::SeqCst;
    let after = 3;
    // Sequential execution, every heartbeat counted answered up front.
    let expected = {
        let (tx, rx) = std::sync::mpsc::channel();
        let (pong_tx, pongs) = std::sync::mpsc::channel();
        let (report_tx, reports) = std::sync::mpsc::channel();
        for r in std::iter::once((false, 0)).chain([(true, 1 + after)]).chain((0..after).map(|_| (false, 0))) {
            tx.send(r).unwrap();
        }
        drop(tx);
        ANSWERED.store(usize::MAX, SeqCst);
        ohua::sequential(|| heartbeats(rx, pong_tx, report_tx));
        (pongs.iter().collect::<Vec<_>>(), reports.iter().collect::<Vec<_>>())
    };
    assert_eq!(expected, (vec![1, 3, 4, 5], vec![2000]));
    let auto = || Deployment::default().workers(2).sections(SectionStrategy::Auto);
    // The graph's first run in this process (no other test runs it).
    assert_eq!(
        serve_heartbeats(auto().replicas(Replication::Auto), after),
        expected,
        "a_long_firing_in_a_first_run_does_not_hold_the_heartbeats"
    );
    assert_eq!(serve_heartbeats(reads_apart(), after), expected, "the summary in a section of its own");
    // A warm-up of two summaries that do not wait: the runs below are
    // planned from measured costs.
    let warm_up = std::thread::spawn(move || {
        let (tx, rx) = std::sync::mpsc::channel();
        let (pong_tx, _pongs) = std::sync::mpsc::channel();
        let (report_tx, _reports) = std::sync::mpsc::channel();
        for r in [(false, 0), (true, 0), (false, 0), (true, 0), (false, 0)] {
            tx.send(r).unwrap();
        }
        drop(tx);
        ohua::with_deployment(auto(), || heartbeats(rx, pong_tx, report_tx))
    });
    assert_eq!(warm_up.join().expect("no panic"), 5);
    assert_eq!(serve_heartbeats(auto().replicas(Replication::Auto), after), expected, "auto, measured");
    assert_eq!(serve_heartbeats(auto().replicas(Replication::Elastic), after), expected, "elastic, measured");
}
