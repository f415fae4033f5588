//! Live updates (issue 13): a service's functions are replaced at one
//! consistent cut while it serves, under every deployment of the suite.
//!
//! The functions report their version in what they return, so every test
//! can see which version ran where: the property checked is that each
//! request ran entirely on one version (no packet of an old version reached
//! a new one or the reverse), that versions only move forward in request
//! order, and that nothing was lost, duplicated or reordered.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use ohua::{algorithm, replace, updatable, Update};

use ohua_conformance::live_deployments as all_deployments;

fn within<R: Send + 'static>(secs: u64, f: impl FnOnce() -> R + Send + 'static) -> R {
    ohua_conformance::within(secs, "the service", f)
}

// --- A mutually dependent pair: `tag` stamps its version, `check` expects its own.

#[updatable]
fn tag(x: u64) -> (u32, u64) {
    (1, x)
}
fn tag_v2(x: u64) -> (u32, u64) {
    (2, x)
}
fn tag_v1(x: u64) -> (u32, u64) {
    (1, x)
}

#[updatable]
fn check(t: (u32, u64)) -> (bool, u64) {
    (t.0 == 1, t.1)
}
fn check_v2(t: (u32, u64)) -> (bool, u64) {
    (t.0 == 2, t.1)
}
fn check_v1(t: (u32, u64)) -> (bool, u64) {
    (t.0 == 1, t.1)
}

/// Where results go: every item, in the order the algorithm hands them over.
struct Log {
    seen: Vec<u64>,
    mismatches: u64,
    tx: Option<Sender<u64>>,
}

impl Log {
    fn new(tx: Option<Sender<u64>>) -> Self {
        Log { seen: Vec::new(), mismatches: 0, tx }
    }

    fn record(&mut self, r: (bool, u64)) {
        if !r.0 {
            self.mismatches += 1;
        }
        self.seen.push(r.1);
        if let Some(tx) = &self.tx {
            let _ = tx.send(r.1);
        }
    }

    fn finish(&self) -> (Vec<u64>, u64) {
        (self.seen.clone(), self.mismatches)
    }
}

#[algorithm]
fn pair(requests: Receiver<u64>, acks: Option<Sender<u64>>) -> (Vec<u64>, u64) {
    let mut log = Log::new(acks);
    for x in requests {
        let t = tag(x);
        let r = check(t);
        log.record(r);
    }
    log.finish()
}

fn coordinated(to: u32) -> Update {
    if to == 2 {
        Update::new().replace(replace!(tag => tag_v2)).replace(replace!(check => check_v2))
    } else {
        Update::new().replace(replace!(tag => tag_v1)).replace(replace!(check => check_v1))
    }
}

/// Sends 0, 1, 2, ... until `stop` is set (pausing now and then, so the
/// updates do not all land in one batch); returns how many it sent.
fn sustained_load(
    tx: Sender<u64>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut x = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            tx.send(x).unwrap();
            x += 1;
            if x % 64 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        x
    })
}

#[test]
fn a_mutually_dependent_pair_updated_every_few_milliseconds_under_load_never_mismatches() {
    const UPDATES: u32 = 24;
    for (name, d) in all_deployments() {
        let (tx, rx) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || pair(rx, None)));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let load = sustained_load(tx, stop.clone());
        for k in 0..UPDATES {
            let report = service.update(coordinated(if k % 2 == 0 { 2 } else { 1 }));
            let report = report.unwrap_or_else(|e| panic!("{name}: update {k} failed: {e}"));
            assert!(!report.adopted.is_empty(), "{name}: no operator adopted update {k}");
            std::thread::sleep(Duration::from_millis(2));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let sent = load.join().unwrap();
        let (seen, mismatches) = within(60, move || service.join());
        assert_eq!(mismatches, 0, "{name}: a packet of one version reached the other");
        assert_eq!(seen, (0..sent).collect::<Vec<_>>(), "{name}: lost, duplicated or reordered items");
    }
}

#[test]
fn the_same_pair_updated_one_function_at_a_time_reports_mismatches() {
    // The negative control: without a common cut, requests between the two
    // updates run the new `tag` with the old `check`, and the test sees it.
    for (name, d) in all_deployments() {
        let (tx, rx) = mpsc::channel();
        let (ack_tx, acks) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || pair(rx, Some(ack_tx))));
        tx.send(0).unwrap();
        assert_eq!(acks.recv().unwrap(), 0);
        // The loop waits for its next item: each cut goes before it.
        let first = service.request(Update::new().replace(replace!(tag => tag_v2)));
        for x in 1..4 {
            tx.send(x).unwrap();
            assert_eq!(acks.recv().unwrap(), x);
        }
        first.wait().unwrap();
        let second = service.request(Update::new().replace(replace!(check => check_v2)));
        tx.send(4).unwrap();
        second.wait().unwrap();
        drop(tx);
        let (seen, mismatches) = within(30, move || service.join());
        assert_eq!(seen, vec![0, 1, 2, 3, 4], "{name}");
        assert_eq!(mismatches, 3, "{name}: the three requests between the updates must mismatch");
    }
}

// --- Updates reach operators inside branches, inner loops and called algorithms.

#[updatable]
fn version(x: u64) -> (u32, u64) {
    (1, x)
}
fn version_v2(x: u64) -> (u32, u64) {
    (2, x)
}
fn version_v3(x: u64) -> (u32, u64) {
    (3, x)
}

#[algorithm]
mod nested {
    use super::*;

    /// Every request: a version from the top of the body, one from an arm
    /// of an `if`, several from an inner loop, one from a called algorithm.
    #[algorithm]
    pub fn server(requests: Receiver<u64>) -> Vec<(u64, Vec<u32>)> {
        let mut out = Rows::new();
        for x in requests {
            let (top, _) = version(x);
            let arm = if x % 2 == 0 { first(version(x + 1)) } else { first(version(x + 2)) };
            let inner: Vec<u32> = (0..x % 4)
                .map(|k| {
                    let v = first(version(k));
                    v
                })
                .collect();
            let called = helper(x);
            out.push(x, top, arm, inner, called);
        }
        out.rows()
    }

    #[algorithm]
    pub fn helper(x: u64) -> u32 {
        let (v, _) = version(x * 3);
        v
    }
}

fn first(v: (u32, u64)) -> u32 {
    v.0
}

struct Rows(Vec<(u64, Vec<u32>)>);

impl Rows {
    fn new() -> Self {
        Rows(Vec::new())
    }

    fn push(&mut self, x: u64, top: u32, arm: u32, inner: Vec<u32>, called: u32) {
        let mut versions = vec![top, arm, called];
        versions.extend(inner);
        self.0.push((x, versions));
    }

    fn rows(&self) -> Vec<(u64, Vec<u32>)> {
        self.0.clone()
    }
}

#[test]
fn updates_reach_branches_inner_loops_and_called_algorithms_at_one_cut() {
    const ITEMS: u64 = 3_000;
    for (name, d) in all_deployments() {
        let (tx, rx) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || nested::server(rx)));
        let load = std::thread::spawn(move || {
            for x in 0..ITEMS {
                tx.send(x).unwrap();
                if x % 16 == 0 {
                    std::thread::sleep(Duration::from_micros(300));
                }
            }
        });
        std::thread::sleep(Duration::from_millis(3));
        // Two updates in flight at once: both complete, in order.
        let a = service.request(Update::new().replace(replace!(version => version_v2)));
        std::thread::sleep(Duration::from_millis(3));
        let b = service.request(Update::new().replace(replace!(version => version_v3)));
        let (ra, rb) = (a.wait().expect(&name), b.wait().expect(&name));
        // In order: at every loop entry the first update's cut is at or
        // before the second's. (Regression: this compared the two reports'
        // request-to-cut times. When both markers wait for the same item
        // they are cut together, and the first's time is longer by the gap
        // between the requests, which a loaded machine stretches past the
        // 3 ms the check allowed: the dev suite failed it under CI.)
        assert_eq!(
            ra.cut.iter().map(|c| c.0).collect::<Vec<_>>(),
            rb.cut.iter().map(|c| c.0).collect::<Vec<_>>(),
            "{name}"
        );
        assert!(ra.cut.iter().zip(&rb.cut).all(|(a, b)| a.1 <= b.1), "{name}: cuts {:?} then {:?}", ra.cut, rb.cut);
        load.join().unwrap();
        let rows = within(60, move || service.join());
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), (0..ITEMS).collect::<Vec<_>>(), "{name}");
        let mut last = 1;
        for (x, versions) in &rows {
            let v = versions[0];
            assert!(versions.iter().all(|w| *w == v), "{name}: request {x} ran on several versions: {versions:?}");
            assert!(v >= last, "{name}: request {x} ran on version {v} after version {last}");
            last = v;
        }
        assert_eq!(last, 3, "{name}: the last requests run on the last update");
    }
}

// --- One operator by name; reports; stop; the end of a service.

#[algorithm]
fn two_sites(requests: Receiver<u64>) -> Vec<(u32, u32)> {
    let mut out = Pairs::new();
    for x in requests {
        let (a, _) = version(x);
        let (b, _) = version(x + 1);
        out.push(a, b);
    }
    out.all()
}

struct Pairs(Vec<(u32, u32)>);

impl Pairs {
    fn new() -> Self {
        Pairs(Vec::new())
    }
    fn push(&mut self, a: u32, b: u32) {
        self.0.push((a, b));
    }
    fn all(&self) -> Vec<(u32, u32)> {
        self.0.clone()
    }
}

#[test]
fn an_update_addressed_to_one_operator_leaves_the_other_call_sites_alone() {
    let graph_names = {
        let (tx, rx) = mpsc::channel();
        drop(tx);
        let (_, reports) = ohua::profile(|| two_sites(rx));
        reports[0].graph.nodes.iter().map(|n| n.name.to_string()).collect::<Vec<_>>()
    };
    let sites: Vec<&String> = graph_names.iter().filter(|n| n.contains("/version#")).collect();
    assert_eq!(sites.len(), 2, "{graph_names:?}");
    let second = sites[1].clone();
    // One section per operator, so the two call sites are not one fused piece.
    let d = ohua_conformance::deployments().swap_remove(1).1;
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || ohua::with_deployment(d, || two_sites(rx)));
    let pending = service.request(Update::new().replace(replace!(version => version_v2).at(second.clone())));
    tx.send(0).unwrap();
    tx.send(1).unwrap();
    let report = pending.wait().expect("the update completes");
    assert_eq!(report.adopted.len(), 1, "only {second} adopts it: {report:?}");
    assert!(report.until_cut <= report.until_complete);
    drop(tx);
    assert_eq!(within(30, move || service.join()), vec![(1, 2), (1, 2)]);
}

#[test]
fn a_no_op_marker_reaches_every_operator_of_the_loop_and_changes_nothing() {
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || pair(rx, None));
    tx.send(7).unwrap();
    let (tx2, marker) = (tx.clone(), std::thread::spawn(move || service.marker().map(|r| (r, service))));
    std::thread::sleep(Duration::from_millis(20));
    tx2.send(8).unwrap();
    let (report, service) = marker.join().unwrap().expect("a marker crosses a running loop");
    assert!(report.adopted.is_empty());
    // The loop's body: tag, check, record (fused or not, each node once).
    assert!(report.reached.len() >= 2, "{report:?}");
    drop((tx, tx2));
    assert_eq!(within(30, move || service.join()), (vec![7, 8], 0));
}

#[test]
fn stop_ends_the_loop_after_the_items_it_took_and_lets_go_of_its_source() {
    for (name, d) in all_deployments() {
        let (tx, rx) = mpsc::channel();
        let (ack_tx, acks) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || pair(rx, Some(ack_tx))));
        for x in 0..5 {
            tx.send(x).unwrap();
            assert_eq!(acks.recv().unwrap(), x);
        }
        service.stop();
        // If the loop is waiting in `next()`, it stops after the item that
        // call returns, which it has taken and so processes; if it is
        // between two calls, it stops at once and 5 stays in the channel.
        let _ = tx.send(5);
        let (seen, _) = within(30, move || service.join());
        assert!(seen == vec![0, 1, 2, 3, 4, 5] || seen == vec![0, 1, 2, 3, 4], "{name}: {seen:?}");
        assert!(tx.send(6).is_err(), "{name}: the service let go of its source");
    }
}

#[test]
fn an_update_after_the_service_ended_fails_instead_of_waiting_forever() {
    let (tx, rx) = mpsc::channel::<u64>();
    let service = ohua::service(move || pair(rx, None));
    drop(tx);
    // The loop may end before or after the request: either the marker got
    // in (and completes) or it reports that it could not.
    let pending = service.request(coordinated(2));
    let outcome = within(30, move || pending.wait());
    if let Err(e) = outcome {
        assert_eq!(e, ohua::update::MarkError::NotReached);
    }
    assert_eq!(within(30, move || service.join()), (vec![], 0));
}

#[test]
fn a_panic_in_a_service_reaches_join_with_its_payload() {
    #[algorithm]
    fn fragile(requests: Receiver<u64>) -> u64 {
        let mut log = Log::new(None);
        for x in requests {
            let y = explode(x);
            log.record((true, y));
        }
        log.finish().1
    }
    fn explode(x: u64) -> u64 {
        if x == 3 {
            std::panic::panic_any(format!("request {x} is bad"));
        }
        x
    }
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || fragile(rx));
    for x in 0..5 {
        let _ = tx.send(x);
    }
    drop(tx);
    let caught = within(30, move || std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| service.join())));
    let payload = caught.expect_err("the service panicked");
    assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("request 3 is bad"));
}

#[test]
fn outside_a_service_an_updatable_function_runs_its_own_body() {
    assert_eq!(version(5), (1, 5));
    let (tx, rx) = mpsc::channel();
    for x in 0..3 {
        tx.send(x).unwrap();
    }
    drop(tx);
    assert_eq!(pair(rx, None), (vec![0, 1, 2], 0));
    let (tx, rx) = mpsc::channel();
    tx.send(9).unwrap();
    drop(tx);
    assert_eq!(ohua::sequential(|| pair(rx, None)), (vec![9], 0));
}

#[test]
fn the_run_report_of_a_service_lists_its_completed_markers() {
    let (tx, rx) = mpsc::channel();
    let (ack_tx, acks) = mpsc::channel();
    let service = ohua::service(move || ohua::profile(|| pair(rx, Some(ack_tx))));
    tx.send(1).unwrap();
    assert_eq!(acks.recv().unwrap(), 1);
    let pending = service.request(coordinated(2));
    tx.send(2).unwrap();
    let report = pending.wait().expect("the update completes");
    drop(tx);
    let ((seen, mismatches), reports) = within(30, move || service.join());
    assert_eq!((seen, mismatches), (vec![1, 2], 0));
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].markers, vec![report], "the report lists the update as its waiter saw it");
}

#[test]
fn an_update_arriving_while_the_service_shuts_down_completes_or_fails_but_never_hangs() {
    for (name, d) in all_deployments() {
        let (tx, rx) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || pair(rx, None)));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let load = sustained_load(tx, stop.clone());
        std::thread::sleep(Duration::from_millis(2));
        // The load ends (its sender is dropped) while updates are on their way.
        let pending: Vec<_> = (0..4).map(|k| service.request(coordinated(2 - k % 2))).collect();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let sent = load.join().unwrap();
        let outcomes = within(30, move || pending.iter().map(|p| p.wait()).collect::<Vec<_>>());
        // Markers complete in request order: once one could not, none after it did.
        let completed = outcomes.iter().take_while(|o| o.is_ok()).count();
        assert!(
            outcomes[completed..].iter().all(|o| *o == Err(ohua::update::MarkError::NotReached)),
            "{name}: {outcomes:?}"
        );
        let (seen, mismatches) = within(60, move || service.join());
        assert_eq!(mismatches, 0, "{name}");
        assert_eq!(seen, (0..sent).collect::<Vec<_>>(), "{name}");
    }
}

#[test]
fn an_update_report_says_how_many_items_came_before_the_cut() {
    // Issue 21, part 3, item 5: `MarkReport::cut` is keyed by node id;
    // `items_before` gives the count as `Checkpoint::items_before` does.
    let (tx, rx) = mpsc::channel();
    let (ack_tx, acks) = mpsc::channel();
    let service = ohua::service(move || pair(rx, Some(ack_tx)));
    for x in 0..3 {
        tx.send(x).unwrap();
        assert_eq!(acks.recv().unwrap(), x);
    }
    // Idle: the cut goes before the next item, the fourth.
    let pending = service.request(coordinated(2));
    tx.send(3).unwrap();
    let report = pending.wait().unwrap();
    assert_eq!(report.items_before(), 3, "{report:?}");
    assert_eq!(report.cut.first().map(|c| c.1), Some(3), "`cut` still works");
    drop(tx);
    let (seen, mismatches) = within(30, move || service.join());
    assert_eq!((seen, mismatches), (vec![0, 1, 2, 3], 0));
}
