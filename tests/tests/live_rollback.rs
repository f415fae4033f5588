//! Rolling an update back (issue 21, part 3, item 1): `replace!(f => f)`
//! makes `f` run its original body again, a replacement may call the
//! function it replaces (a decorator), and `replace!(f => _)` drops the
//! replacement. Before the fix, `replace!(f => f)` recursed in the
//! generated wrapper until the stack overflowed and aborted the process.

use std::sync::mpsc::{self, Receiver, Sender};

use ohua::{algorithm, replace, updatable, Update};
use ohua_conformance::{live_deployments, within};

#[updatable]
fn tag(x: u64) -> u64 {
    x + 1000
}
fn tag_v2(x: u64) -> u64 {
    x + 2000
}
/// A decorator: the original, plus one.
fn tag_plus_one(x: u64) -> u64 {
    tag(x) + 1
}

/// Sends what it records to the test, and counts the requests.
struct Sink(Sender<u64>, u64);

#[updatable]
impl Sink {
    fn new(tx: Sender<u64>) -> Self {
        Sink(tx, 0)
    }
    fn record(&mut self, x: u64) {
        let _ = self.0.send(x);
    }
    fn record_tens(&mut self, x: u64) {
        let _ = self.0.send(x * 10);
    }
    fn requests(&self) -> u64 {
        self.1
    }
    fn count(&mut self) {
        self.1 += 1;
    }
}

/// A method decorator: records twice through the original method.
fn record_twice(s: &mut Sink, x: u64) {
    s.record(x);
    s.record(x);
}

#[algorithm]
fn server(requests: Receiver<u64>, out: Sender<u64>) -> u64 {
    let mut sink = Sink::new(out);
    for x in requests {
        let y = tag(x);
        sink.record(y);
        sink.count();
    }
    sink.requests()
}

/// An update to apply before the next requests (or none), and the answers
/// expected to them.
type Step = (Option<fn() -> Update>, Vec<u64>);

/// Runs the service under every live deployment; `steps` are updates
/// (applied before the next request) and the answers expected to it.
fn check(steps: Vec<Step>) {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (out, answers) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || server(rx, out)));
        for (k, (update, expected)) in steps.iter().enumerate() {
            // The service is idle: the cut goes before the next request.
            let pending = update.map(|u| service.request(u()));
            tx.send(k as u64).unwrap();
            let got: Vec<u64> = expected.iter().map(|_| answers.recv().unwrap()).collect();
            assert_eq!(&got, expected, "{name}: request {k}");
            if let Some(p) = pending {
                p.wait().unwrap_or_else(|e| panic!("{name}: update before request {k}: {e}"));
            }
        }
        drop(tx);
        let n = within(30, "the service", move || service.join());
        assert_eq!(n, steps.len() as u64, "{name}");
    }
}

#[test]
fn replacing_a_function_by_itself_rolls_back_instead_of_overflowing_the_stack() {
    check(vec![
        (None, vec![1000]),
        (Some(|| Update::new().replace(replace!(tag => tag_v2))), vec![2001]),
        (Some(|| Update::new().replace(replace!(tag => tag))), vec![1002]),
        (Some(|| Update::new().replace(replace!(tag => tag_v2))), vec![2003]),
    ]);
}

#[test]
fn a_replacement_that_calls_the_function_it_replaces_decorates_the_original() {
    check(vec![
        (None, vec![1000]),
        (Some(|| Update::new().replace(replace!(tag => tag_plus_one))), vec![1002]),
        (None, vec![1003]),
    ]);
}

#[test]
fn replacing_by_an_underscore_goes_back_to_the_original() {
    check(vec![
        (Some(|| Update::new().replace(replace!(tag => tag_v2))), vec![2000]),
        (Some(|| Update::new().replace(replace!(tag => _))), vec![1001]),
        // Rolling back what is not replaced changes nothing.
        (Some(|| Update::new().replace(replace!(tag => _))), vec![1002]),
    ]);
}

#[test]
fn methods_roll_back_and_decorate_the_same_way() {
    check(vec![
        (Some(|| Update::new().replace(replace!(Sink::record => Sink::record_tens))), vec![10000]),
        (Some(|| Update::new().replace(replace!(Sink::record => Sink::record))), vec![1001]),
        (Some(|| Update::new().replace(replace!(Sink::record => record_twice))), vec![1002, 1002]),
        (Some(|| Update::new().replace(replace!(Sink::record => _))), vec![1003]),
    ]);
}
