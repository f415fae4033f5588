//! Checkpoints (issue 13): a consistent snapshot of a running service's
//! states, taken by a marker without stopping it; a service restored from it
//! and fed the items after the cut gives exactly what the uninterrupted
//! service gave for them, under every deployment of the suite.

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use ohua::update::{Checkpoint, MarkError, StateKinds};
use ohua::{algorithm, updatable};
use ohua_conformance::{live_deployments, within};
use serde::{Deserialize, Serialize};

/// A running total and the last few inputs: a state whose every part shows
/// in what it returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Window {
    total: u64,
    last: Vec<u64>,
}

#[updatable]
impl Window {
    fn new() -> Self {
        Window { total: 0, last: Vec::new() }
    }

    fn push(&mut self, x: u64) -> (u64, u64) {
        self.total = self.total.wrapping_mul(31).wrapping_add(x);
        self.last.push(x);
        if self.last.len() > 3 {
            self.last.remove(0);
        }
        (self.total, self.last.iter().sum())
    }

    fn spread(&mut self) -> u64 {
        self.last.iter().max().unwrap_or(&0) - self.last.iter().min().unwrap_or(&0)
    }

    /// `&self`: on a snapshot when the window is declared one.
    fn weigh(&self, x: u64) -> u64 {
        self.last.iter().map(|v| v ^ x).sum::<u64>() + self.total % 7
    }
}

/// A second state of another type, in another operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Tally(u64);

#[updatable]
impl Tally {
    fn count(&mut self, r: (u64, u64)) -> (u64, u64, u64) {
        self.0 += 1;
        (r.0, r.1, self.0)
    }
}

struct Sink(Sender<(u64, u64, u64)>);
impl Sink {
    fn send(&mut self, r: (u64, u64, u64)) {
        let _ = self.0.send(r);
    }
}

#[algorithm]
fn windows(requests: Receiver<Vec<u64>>, tx: Sender<(u64, u64, u64)>) -> u64 {
    let mut window = Window::new();
    let mut tally = Tally(0);
    let mut sink = Sink(tx);
    for request in requests {
        for x in request {
            let r = window.push(x);
            let t = tally.count(r);
            sink.send(t);
        }
    }
    0
}

/// The same service with the window used by two statements: the loop
/// threads it from one operator to the next and its `carry` holds it
/// between requests, which is where the checkpoint finds it.
#[algorithm]
fn windows_threaded(requests: Receiver<Vec<u64>>, tx: Sender<(u64, u64, u64)>) -> u64 {
    let mut window = Window::new();
    let mut tally = Tally(0);
    let mut sink = Sink(tx);
    for request in requests {
        for x in request {
            let r = window.push(x);
            let s = window.spread();
            let t = tally.count((r.0, r.1 + s));
            sink.send(t);
        }
    }
    0
}

/// The window declared a snapshot state: `weigh` reads a snapshot taken
/// after the `push` before it, and the checkpoint saves the live window
/// (`StateKinds::with::<ohua::Snapshot<Window>>()`).
#[algorithm]
fn windows_snapshot(requests: Receiver<Vec<u64>>, tx: Sender<(u64, u64, u64)>) -> u64 {
    let mut window = ohua::snapshot(Window::new());
    let mut tally = Tally(0);
    let mut sink = Sink(tx);
    for request in requests {
        for x in request {
            let r = window.push(x);
            let w = window.weigh(x);
            let t = tally.count((r.0, r.1 + w));
            sink.send(t);
        }
    }
    0
}

type Windows = fn(Receiver<Vec<u64>>, Sender<(u64, u64, u64)>) -> u64;

fn kinds() -> StateKinds {
    StateKinds::new().with::<Window>().with::<Tally>()
}

fn snapshot_kinds() -> StateKinds {
    StateKinds::new().with::<ohua::Snapshot<Window>>().with::<Tally>()
}

fn request(k: u64) -> Vec<u64> {
    (0..k % 3 + 1).map(|j| k * 7 + j).collect()
}

/// Every answer of `alg` for `requests`, from sequential execution.
fn uninterrupted(alg: Windows, requests: &[Vec<u64>]) -> Vec<(u64, u64, u64)> {
    let (tx, rx) = mpsc::channel();
    for r in requests {
        tx.send(r.clone()).unwrap();
    }
    drop(tx);
    let (out_tx, out) = mpsc::channel();
    ohua::sequential(|| alg(rx, out_tx));
    out.try_iter().collect()
}

#[test]
fn a_restored_service_fed_the_items_after_the_cut_answers_as_the_uninterrupted_one() {
    checkpoint_restore_replay(windows, kinds);
}

#[test]
fn a_state_threaded_through_two_statements_is_checkpointed_where_the_loop_carries_it() {
    checkpoint_restore_replay(windows_threaded, kinds);
}

#[test]
fn a_snapshot_state_read_on_snapshots_is_checkpointed_and_restored_live() {
    checkpoint_restore_replay(windows_snapshot, snapshot_kinds);
}

/// Listing the state's own type for a snapshot state finds nothing, and
/// the error says which type to list instead.
#[test]
fn a_checkpoint_that_lists_a_snapshot_states_own_type_says_to_list_the_snapshot() {
    let (tx, rx) = mpsc::channel();
    let (out_tx, _out) = mpsc::channel();
    let service = ohua::service(move || windows_snapshot(rx, out_tx));
    tx.send(vec![5]).unwrap();
    let err = service.checkpoint(&kinds()).expect_err("no operator holds a plain `Window`");
    assert!(matches!(err, MarkError::NoState { .. }), "{err}");
    assert!(err.to_string().contains("holds an `ohua::Snapshot<") && err.to_string().contains("Window>`"), "{err}");
    drop(tx);
    within(30, "the service", move || service.join());
}

/// Checkpoint `alg` while requests stream in, restore it from the
/// checkpoint, feed it the requests after the cut: it answers them as the
/// uninterrupted sequential program does, under every live deployment.
fn checkpoint_restore_replay(alg: Windows, kinds: fn() -> StateKinds) {
    const REQUESTS: u64 = 600;
    let requests: Vec<Vec<u64>> = (0..REQUESTS).map(request).collect();
    let expected = uninterrupted(alg, &requests);
    for (name, d) in live_deployments() {
        // The original service, checkpointed while requests stream in.
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let d2 = d.clone();
        let service = ohua::service(move || ohua::with_deployment(d, || alg(rx, out_tx)));
        let sent = requests.clone();
        let load = std::thread::spawn(move || {
            for (k, r) in sent.into_iter().enumerate() {
                tx.send(r).unwrap();
                if k % 16 == 0 {
                    std::thread::sleep(Duration::from_micros(300));
                }
            }
        });
        std::thread::sleep(Duration::from_millis(3));
        let checkpoint = service.checkpoint(&kinds()).unwrap_or_else(|e| panic!("{name}: {e}"));
        load.join().unwrap();
        within(60, "the service", move || service.join());
        let answers: Vec<_> = out.try_iter().collect();
        assert_eq!(answers, expected, "{name}: a checkpoint must not change what the service answers");

        // Stored and read back, as a real checkpoint would be.
        let checkpoint: Checkpoint = serde_json::from_str(&serde_json::to_string(&checkpoint).unwrap()).unwrap();
        assert_eq!(checkpoint.states.len(), 2, "{name}: {checkpoint:?}");
        let cut = checkpoint.items_before() as usize;
        assert!(cut <= requests.len(), "{name}");

        // A new service from the checkpoint, fed the requests after the cut.
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let restored = ohua::restore(checkpoint, &kinds(), move || ohua::with_deployment(d2, || alg(rx, out_tx)))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for r in &requests[cut..] {
            tx.send(r.clone()).unwrap();
        }
        drop(tx);
        within(60, "the restored service", move || restored.join());
        let replayed: Vec<_> = out.try_iter().collect();
        let answered_before: usize = requests[..cut].iter().map(Vec::len).sum();
        assert_eq!(replayed, expected[answered_before..], "{name}: replay after the cut at request {cut}");
    }
}

#[test]
fn a_checkpoint_between_two_requests_saves_exactly_the_states_after_the_first() {
    let (tx, rx) = mpsc::channel();
    let (out_tx, out) = mpsc::channel();
    let service = ohua::service(move || windows(rx, out_tx));
    tx.send(vec![1, 2]).unwrap();
    tx.send(vec![3]).unwrap();
    for _ in 0..3 {
        out.recv().unwrap();
    }
    let pending = std::thread::spawn({
        let kinds = kinds();
        move || {
            let c = service.checkpoint(&kinds);
            (c, service)
        }
    });
    std::thread::sleep(Duration::from_millis(20));
    tx.send(vec![4]).unwrap();
    let (checkpoint, service) = pending.join().unwrap();
    let checkpoint = checkpoint.expect("a checkpoint");
    assert_eq!(checkpoint.items_before(), 2);
    let window: Vec<_> = checkpoint.states.iter().filter(|s| s.state.ends_with("Window")).collect();
    assert_eq!(window.len(), 1);
    let saved: Window = serde_json::from_str(&window[0].json).unwrap();
    assert_eq!(saved, Window { total: (31 + 2) * 31 + 3, last: vec![1, 2, 3] });
    let tally: Vec<_> = checkpoint.states.iter().filter(|s| s.state.ends_with("Tally")).collect();
    assert_eq!(tally[0].json, "3");
    drop(tx);
    within(30, "the service", move || service.join());
}

#[test]
fn restoring_into_another_algorithm_or_without_the_types_fails_and_says_why() {
    let (tx, rx) = mpsc::channel();
    let (out_tx, _out) = mpsc::channel();
    let service = ohua::service(move || windows(rx, out_tx));
    tx.send(vec![5]).unwrap();
    let checkpoint = service.checkpoint(&kinds()).expect("a checkpoint");
    drop(tx);
    service.join();

    // Without the types listed.
    let (_tx, rx) = mpsc::channel::<Vec<u64>>();
    let (out_tx, _out) = mpsc::channel();
    let only_window = StateKinds::new().with::<Window>();
    match ohua::restore(checkpoint.clone(), &only_window, move || windows(rx, out_tx)) {
        Err(MarkError::Rejected { rejections, .. }) => {
            assert!(rejections[0].message.contains("does not list that type"), "{rejections:?}")
        }
        other => panic!("expected a rejection, got {:?}", other.err()),
    }

    // Into an algorithm whose operators do not hold these states.
    #[algorithm]
    fn tallies(requests: Receiver<Vec<u64>>) -> u64 {
        let mut tally = Tally(0);
        for r in requests {
            let _ = tally.count((r.len() as u64, 0));
        }
        tally.0
    }
    let (_tx, rx) = mpsc::channel::<Vec<u64>>();
    match ohua::restore(checkpoint, &kinds(), move || tallies(rx)) {
        Err(MarkError::NoState { state, .. }) => {
            assert!(state.contains("Window") || state.contains("Tally"), "{state}")
        }
        other => panic!("expected NoState, got {:?}", other.err()),
    }
}

#[test]
fn a_checkpoint_of_a_type_no_operator_holds_is_an_error() {
    #[derive(Serialize, Deserialize)]
    struct Elsewhere;
    #[updatable]
    impl Elsewhere {}
    let (tx, rx) = mpsc::channel();
    let (out_tx, _out) = mpsc::channel();
    let service = ohua::service(move || windows(rx, out_tx));
    tx.send(vec![1]).unwrap();
    let err = service.checkpoint(&StateKinds::new().with::<Elsewhere>()).expect_err("nothing to save");
    assert!(matches!(err, MarkError::NoState { .. }), "{err}");
    drop(tx);
    service.join();
}
