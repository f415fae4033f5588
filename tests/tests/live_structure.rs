//! Structural updates (issue 13), in the form a compiled language allows:
//! a sub-algorithm called per request is replaced by another version with
//! the same signature and a different graph (more operators, an inner loop,
//! a branch). Both versions are compiled into the binary; the call goes
//! through an `#[ohua::updatable]` function, so each request runs entirely
//! on one version and the switch happens at the service's cut.

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use ohua::{algorithm, replace, updatable, Update};
use ohua_conformance::{live_deployments, within};

fn double(x: u64) -> u64 {
    x.wrapping_mul(2)
}
fn plus(x: u64, k: u64) -> u64 {
    x.wrapping_add(k * k)
}
fn total(parts: Vec<u64>) -> u64 {
    parts.iter().fold(0u64, |a, b| a.wrapping_add(*b))
}
fn largest(parts: Vec<u64>) -> u64 {
    parts.into_iter().max().unwrap_or(0)
}
fn tagged(v: u32, x: u64) -> (u32, u64) {
    (v, x)
}

#[algorithm]
mod handlers {
    use super::*;

    /// Version 1: two operators in a row.
    #[algorithm]
    pub fn handle_v1(x: u64) -> (u32, u64) {
        let y = double(x);
        tagged(1, y)
    }

    /// Version 2: another graph: a collecting inner loop, a branch, more
    /// operators.
    #[algorithm]
    pub fn handle_v2(x: u64) -> (u32, u64) {
        let parts: Vec<u64> = (0..x % 5).map(|k| plus(x, k)).collect();
        let y = if x % 2 == 0 { total(parts) } else { largest(parts) };
        tagged(2, y)
    }
}

/// The service calls the handler through a replaceable function.
#[updatable]
fn handle(x: u64) -> (u32, u64) {
    handlers::handle_v1(x)
}
fn handle_with_v2(x: u64) -> (u32, u64) {
    handlers::handle_v2(x)
}

struct Rows(Vec<(u64, (u32, u64))>);
impl Rows {
    fn new() -> Self {
        Rows(Vec::new())
    }
    fn push(&mut self, x: u64, r: (u32, u64)) {
        self.0.push((x, r));
    }
    fn all(&self) -> Vec<(u64, (u32, u64))> {
        self.0.clone()
    }
}

#[algorithm]
fn server(requests: Receiver<u64>) -> Vec<(u64, (u32, u64))> {
    let mut rows = Rows::new();
    for x in requests {
        let r = handle(x);
        rows.push(x, r);
    }
    rows.all()
}

#[test]
fn a_sub_algorithm_is_replaced_by_a_version_with_another_graph_between_two_requests() {
    const ITEMS: u64 = 2_000;
    let v1 = |x| ohua::sequential(|| handlers::handle_v1(x));
    let v2 = |x| ohua::sequential(|| handlers::handle_v2(x));
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || server(rx)));
        let (requested, go) = mpsc::channel();
        let load = std::thread::spawn(move || {
            for x in 0..ITEMS {
                // The last requests wait for the update, so it lands before them.
                if x == ITEMS - 100 {
                    go.recv().unwrap();
                }
                tx.send(x).unwrap();
                if x % 16 == 0 {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        });
        std::thread::sleep(Duration::from_millis(3));
        let pending = service.request(Update::new().replace(replace!(handle => handle_with_v2)));
        requested.send(()).unwrap();
        load.join().unwrap();
        let rows = within(60, "the service", move || service.join());
        pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rows.iter().map(|r| r.0).collect::<Vec<_>>(), (0..ITEMS).collect::<Vec<_>>(), "{name}");
        let switched = rows.iter().position(|r| r.1 .0 == 2).expect("the update landed before the last requests");
        for (k, (x, r)) in rows.iter().enumerate() {
            // Every request entirely on one version: the result is exactly
            // what that version computes sequentially.
            let want = if k < switched { v1(*x) } else { v2(*x) };
            assert_eq!(*r, want, "{name}: request {x} (the switch came at request {switched})");
        }
    }
}
