//! Live updates of stateful operators (issue 13): methods replaced and
//! states transformed (`old -> Result<new, E>`) at one cut while the service
//! runs, under every deployment of the suite.
//!
//! The state counts what it was given, so each result tells exactly which
//! method version ran on which state: the tests compare every result with a
//! sequential model of "old version before the cut, transform at the cut,
//! new version after it".

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use ohua::update::MarkError;
use ohua::{algorithm, replace, updatable, Update};
use ohua_conformance::live_deployments;

/// A running total; `add` reports which version of itself ran.
#[derive(Debug, Clone, PartialEq)]
struct Counter {
    total: u64,
    generation: u32,
}

#[updatable]
impl Counter {
    fn new() -> Self {
        Counter { total: 0, generation: 1 }
    }

    /// Version 1: adds `x`.
    fn add(&mut self, x: u64) -> (u32, u64) {
        self.total += x;
        (1, self.total)
    }

    /// Version 2: adds twice `x`.
    fn add_twice(&mut self, x: u64) -> (u32, u64) {
        self.total += 2 * x;
        (2, self.total)
    }
}

/// What the service hands back: every result, also to the test as it goes.
struct Sink {
    all: Vec<(u32, u64)>,
    tx: Sender<(u32, u64)>,
}

impl Sink {
    fn new(tx: Sender<(u32, u64)>) -> Self {
        Sink { all: Vec::new(), tx }
    }

    fn push(&mut self, r: (u32, u64)) {
        self.all.push(r);
        let _ = self.tx.send(r);
    }

    fn all(&self) -> Vec<(u32, u64)> {
        self.all.clone()
    }
}

#[algorithm]
fn counting(requests: Receiver<Vec<u64>>, tx: Sender<(u32, u64)>) -> Vec<(u32, u64)> {
    let mut counter = Counter::new();
    let mut sink = Sink::new(tx);
    for request in requests {
        // The state lives across the service's loop and is used in an inner
        // loop: the operator holding it is two loops deep.
        for x in request {
            let r = counter.add(x);
            sink.push(r);
        }
    }
    sink.all()
}

/// The results sequential execution gives for `requests` if the update
/// (`total * 10`, then `add_twice`) applies before request `cut`.
fn model(requests: &[Vec<u64>], cut: usize) -> Vec<(u32, u64)> {
    let mut total = 0;
    let mut out = Vec::new();
    for (k, request) in requests.iter().enumerate() {
        if k == cut {
            total *= 10;
        }
        for x in request {
            let (v, by) = if k < cut { (1, *x) } else { (2, 2 * x) };
            total += by;
            out.push((v, total));
        }
    }
    out
}

fn upgrade() -> Update {
    Update::new()
        .transform(|old: &Counter| Ok::<_, String>(Counter { total: old.total * 10, generation: old.generation + 1 }))
        .replace(replace!(Counter::add => Counter::add_twice))
}

fn requests(n: u64) -> Vec<Vec<u64>> {
    (0..n).map(request).collect()
}

#[test]
fn a_method_and_its_state_switch_together_between_two_requests() {
    let reqs = requests(40);
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || counting(rx, out_tx)));
        // The first 20 requests, each answered before the next is sent.
        let cut = 20;
        for r in &reqs[..cut] {
            tx.send(r.clone()).unwrap();
            for _ in r {
                out.recv_timeout(Duration::from_secs(30)).expect("an answer");
            }
        }
        // The service waits for request 20: the cut goes before it.
        let pending = service.request(upgrade());
        for r in &reqs[cut..] {
            tx.send(r.clone()).unwrap();
        }
        let report = pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.transformed.len(), 1, "{name}: one operator holds the counter: {report:?}");
        assert!(report.adopted.contains(&report.transformed[0]), "{name}");
        drop(tx);
        let results = ohua_conformance::within(60, "the service", move || service.join());
        assert_eq!(results, model(&reqs, cut), "{name}");
    }
}

fn request(k: u64) -> Vec<u64> {
    (0..k % 4).map(|j| k + j).collect()
}

#[test]
fn under_load_every_request_runs_entirely_before_or_after_the_transform() {
    use std::sync::atomic::{AtomicBool, Ordering};
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out_tx, _out) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || counting(rx, out_tx)));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        // Requests keep coming until the update is through, then 200 more.
        let load = std::thread::spawn(move || {
            let (mut k, mut after) = (0, 0);
            while after < 200 {
                tx.send(request(k)).unwrap();
                k += 1;
                after += u64::from(stopped.load(Ordering::Relaxed));
                if k % 32 == 0 {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
            k
        });
        std::thread::sleep(Duration::from_millis(2));
        service.update(upgrade()).unwrap_or_else(|e| panic!("{name}: {e}"));
        stop.store(true, Ordering::Relaxed);
        let sent = load.join().unwrap();
        let results = ohua_conformance::within(60, "the service", move || service.join());
        // The cut is wherever the update landed: before the request that
        // gave the first result of the new version. Every result must match
        // the model with the cut there.
        let reqs = requests(sent);
        let first_new = results.iter().position(|r| r.0 == 2).expect("the update applied");
        let mut prefix = 0;
        let cut = reqs
            .iter()
            .position(|r| {
                let here = prefix == first_new;
                prefix += r.len();
                here
            })
            .expect("a request starts at the first new result");
        let expected = model(&reqs, cut);
        assert_eq!(results.len(), expected.len(), "{name}: lost or duplicated results");
        assert!(results == expected, "{name}: results differ from the model with the cut before request {cut}");
    }
}

#[test]
fn a_failing_transform_leaves_the_operator_on_its_old_state_and_functions() {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || counting(rx, out_tx)));
        tx.send(vec![5, 6]).unwrap();
        assert_eq!((out.recv().unwrap(), out.recv().unwrap()), ((1, 5), (1, 11)));
        // Refused: the transform returns an error.
        let refused = Update::new()
            .transform(
                |old: &Counter| {
                    if old.total > 10 {
                        Err(format!("total {} too large", old.total))
                    } else {
                        Ok(old.clone())
                    }
                },
            )
            .replace(replace!(Counter::add => Counter::add_twice));
        let pending = service.request(refused);
        tx.send(vec![1]).unwrap();
        match pending.wait() {
            Err(MarkError::Rejected { rejections, report }) => {
                assert_eq!(rejections.len(), 1, "{name}");
                assert_eq!(rejections[0].message, "total 11 too large", "{name}");
                assert!(rejections[0].operator.contains("add"), "{name}: {:?}", rejections[0]);
                assert!(report.transformed.is_empty() && !report.adopted.contains(&rejections[0].node), "{name}");
            }
            other => panic!("{name}: expected a rejection, got {other:?}"),
        }
        assert_eq!(out.recv().unwrap(), (1, 12), "{name}: old method, old state");
        // Refused: the transform panics.
        let panicking = Update::new()
            .transform(|_: &Counter| -> Result<Counter, String> { panic!("cannot convert") })
            .replace(replace!(Counter::add => Counter::add_twice));
        let pending = service.request(panicking);
        tx.send(vec![1]).unwrap();
        let err = pending.wait().expect_err("a panicking transform is refused");
        assert!(err.to_string().contains("the transform panicked: cannot convert"), "{name}: {err}");
        assert_eq!(out.recv().unwrap(), (1, 13), "{name}: old method, old state");
        // A transform that works still applies afterwards.
        let pending = service.request(upgrade());
        tx.send(vec![1]).unwrap();
        pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(out.recv().unwrap(), (2, 132), "{name}: 13 * 10, then + 2");
        drop(tx);
        ohua_conformance::within(60, "the service", move || service.join());
    }
}

/// A state type no operator holds.
struct Unused;
#[updatable]
impl Unused {}

#[test]
fn a_transform_that_finds_no_state_is_an_error_and_the_rest_of_the_update_applies() {
    let (tx, rx) = mpsc::channel();
    let (out_tx, out) = mpsc::channel();
    let service = ohua::service(move || counting(rx, out_tx));
    let update = Update::new()
        .transform(|_: &Unused| Ok::<_, String>(Unused))
        .replace(replace!(Counter::add => Counter::add_twice));
    let pending = service.request(update);
    tx.send(vec![3]).unwrap();
    match pending.wait() {
        Err(MarkError::NoState { state, report }) => {
            assert!(state.ends_with("Unused"), "{state}");
            assert!(!report.adopted.is_empty(), "the replacement applied");
        }
        other => panic!("expected NoState, got {other:?}"),
    }
    assert_eq!(out.recv().unwrap(), (2, 6));
    drop(tx);
    ohua_conformance::within(60, "the service", move || service.join());
}

// --- The representation changes: the state holds a `Box<dyn Trait>`.

trait Backend: Send {
    fn put(&mut self, key: u64, value: u64);
    fn get(&self, key: u64) -> Option<u64>;
    fn entries(&self) -> Vec<(u64, u64)>;
    fn kind(&self) -> &'static str;
}

#[derive(Default)]
struct Linear(Vec<(u64, u64)>);
impl Backend for Linear {
    fn put(&mut self, key: u64, value: u64) {
        match self.0.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.1 = value,
            None => self.0.push((key, value)),
        }
    }
    fn get(&self, key: u64) -> Option<u64> {
        self.0.iter().find(|e| e.0 == key).map(|e| e.1)
    }
    fn entries(&self) -> Vec<(u64, u64)> {
        self.0.clone()
    }
    fn kind(&self) -> &'static str {
        "linear"
    }
}

#[derive(Default)]
struct Hashed(std::collections::HashMap<u64, u64>);
impl Backend for Hashed {
    fn put(&mut self, key: u64, value: u64) {
        self.0.insert(key, value);
    }
    fn get(&self, key: u64) -> Option<u64> {
        self.0.get(&key).copied()
    }
    fn entries(&self) -> Vec<(u64, u64)> {
        self.0.iter().map(|(k, v)| (*k, *v)).collect()
    }
    fn kind(&self) -> &'static str {
        "hashed"
    }
}

struct Store(Box<dyn Backend>);

#[updatable]
impl Store {
    fn new() -> Self {
        Store(Box::new(Linear::default()))
    }

    /// Store `key -> key * 3`; answer with the previous value and the backend.
    fn swap(&mut self, key: u64) -> (Option<u64>, &'static str) {
        let old = self.0.get(key % 8);
        self.0.put(key % 8, key);
        (old, self.0.kind())
    }
}

#[algorithm]
fn storing(requests: Receiver<u64>, tx: Sender<(Option<u64>, &'static str)>) -> usize {
    let mut store = Store::new();
    let mut replies = Replies::new(tx);
    for key in requests {
        let r = store.swap(key);
        replies.send(r);
    }
    replies.count()
}

struct Replies<T>(Sender<T>, usize);
impl<T> Replies<T> {
    fn new(tx: Sender<T>) -> Self {
        Replies(tx, 0)
    }
    fn send(&mut self, r: T) {
        self.1 += 1;
        let _ = self.0.send(r);
    }
    fn count(&self) -> usize {
        self.1
    }
}

#[test]
fn a_transform_moves_the_state_to_another_representation_keeping_its_contents() {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || storing(rx, out_tx)));
        for key in 0..12 {
            tx.send(key).unwrap();
            let expected = if key >= 8 { Some(key - 8) } else { None };
            assert_eq!(out.recv().unwrap(), (expected, "linear"), "{name}");
        }
        let to_hashed = Update::new().transform(|old: &Store| {
            let mut new = Hashed::default();
            for (k, v) in old.0.entries() {
                new.put(k, v);
            }
            Ok::<_, String>(Store(Box::new(new)))
        });
        let pending = service.request(to_hashed);
        for key in 12..20 {
            tx.send(key).unwrap();
            assert_eq!(out.recv().unwrap(), (Some(key - 8), "hashed"), "{name}: contents kept, new backend");
        }
        pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        drop(tx);
        assert_eq!(ohua_conformance::within(60, "the service", move || service.join()), 20, "{name}");
    }
}

#[test]
fn updatable_methods_run_their_own_body_outside_a_service() {
    let mut c = Counter::new();
    assert_eq!(c.add(4), (1, 4));
    let (tx, rx) = mpsc::channel();
    let (out_tx, _out) = mpsc::channel();
    for r in requests(10) {
        tx.send(r).unwrap();
    }
    drop(tx);
    let reqs = requests(10);
    assert_eq!(ohua::sequential(|| counting(rx, out_tx)), model(&reqs, usize::MAX));
}

#[algorithm]
fn two_calls(requests: Receiver<u64>, tx: Sender<(u32, u64)>) -> Vec<(u32, u64)> {
    let mut counter = Counter::new();
    let mut sink = Sink::new(tx);
    for x in requests {
        let a = counter.add(x);
        let b = counter.add(a.1);
        sink.push(b);
    }
    sink.all()
}

/// A state used by two statements of the loop is threaded from one
/// operator to the other and carried from iteration to iteration by the
/// loop's `carry`, which holds it at the cut: it is transformed there, and
/// both calls switch to the new method at the same request.
#[test]
fn a_state_threaded_through_two_statements_is_transformed_where_the_loop_carries_it() {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out_tx, out) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || two_calls(rx, out_tx)));
        tx.send(1).unwrap();
        assert_eq!(out.recv().unwrap(), (1, 2), "{name}");
        let pending = service.request(upgrade());
        tx.send(1).unwrap();
        let report = pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.transformed.len(), 1, "{name}: the carry holds the counter: {report:?}");
        // total 2 -> 20; add_twice(1) -> 22; add_twice(22) -> 66.
        assert_eq!(out.recv().unwrap(), (2, 66), "{name}");
        drop(tx);
        ohua_conformance::within(60, "the service", move || service.join());
    }
}
