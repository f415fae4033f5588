//! Async data sources (`AsyncDataSource` through `Async`, feature `async`):
//! batched like blocking ones, in flight together, and usable from inside
//! a tokio runtime; results equal sequential execution.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ohua::{algorithm, Async, AsyncDataSource, Deployment, Source};
use ohua_conformance::deployments;

/// Adds one to each key after a (tokio) sleep; logs its batches.
#[derive(Default)]
struct Remote {
    batches: Mutex<Vec<Vec<u64>>>,
}

impl AsyncDataSource for Remote {
    type Request = u64;
    type Response = u64;
    type Error = String;
    async fn fetch(&self, keys: Vec<u64>) -> Vec<Result<u64, String>> {
        self.batches.lock().unwrap().push(keys.clone());
        tokio::time::sleep(Duration::from_millis(2)).await;
        keys.into_iter().map(|k| if k == 13 { Err("no 13".to_string()) } else { Ok(k + 1) }).collect()
    }
}

#[algorithm]
fn chain(db: &Source<Async<Remote>>, keys: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for k in keys {
        let a = db.fetch(k);
        let a = a.unwrap_or(0);
        let b = db.fetch(a * 2);
        out.push(b.unwrap_or(0));
    }
    out
}

#[test]
fn an_async_source_is_batched_per_level_under_every_deployment() {
    let keys: Vec<u64> = (0..30).chain(5..10).collect();
    let reference = Source::new(Async::new(Remote::default()));
    let want = ohua::sequential(|| chain(&reference, keys.clone()));
    assert_eq!(reference.stats().calls, 70, "sequentially one call per fetch");
    for (name, d) in deployments() {
        let db = Source::new(Async::new(Remote::default()));
        let got = ohua::with_deployment(d.clone(), || chain(&db, keys.clone()));
        assert_eq!(got, want, "{name}");
        let batches = db.get().get().batches.lock().unwrap().len();
        if d.io == ohua::IoMode::Unbatched {
            assert_eq!(batches, 70, "{name}");
        } else {
            assert_eq!(batches, 2, "one batch per level under {name}");
        }
    }
}

/// Waits in its batch until the other source's batch is in flight too.
struct Meets(Arc<tokio::sync::Barrier>);

impl AsyncDataSource for Meets {
    type Request = u8;
    type Response = bool;
    type Error = ();
    async fn fetch(&self, keys: Vec<u8>) -> Vec<Result<bool, ()>> {
        let met = tokio::time::timeout(Duration::from_secs(30), self.0.wait()).await.is_ok();
        keys.iter().map(|_| Ok(met)).collect()
    }
}

#[algorithm]
fn both(left: &Source<Async<Meets>>, right: &Source<Async<Meets>>) -> (Result<bool, ()>, Result<bool, ()>) {
    let a = left.fetch(1);
    let b = right.fetch(2);
    (a, b)
}

#[test]
fn batches_of_two_async_sources_are_in_flight_together() {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let left = Source::new(Async::new(Meets(barrier.clone())));
    let right = Source::new(Async::new(Meets(barrier)));
    let out = ohua::with_deployment(Deployment::default().workers(2), || both(&left, &right));
    assert_eq!(out, (Ok(true), Ok(true)));
}

#[test]
fn an_algorithm_called_from_a_tokio_application_uses_its_runtime() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let keys: Vec<u64> = (0..10).collect();
    let (batched, sequential) = rt.block_on(async {
        // Created inside the runtime: the source's futures run on it.
        let db = Source::new(Async::new(Remote::default()));
        let db2 = db.clone();
        let k2 = keys.clone();
        let batched = tokio::task::spawn_blocking(move || chain(&db2, k2)).await.unwrap();
        // A sequential fetch on a worker thread of the runtime itself.
        let k3 = keys.clone();
        let sequential = tokio::spawn(async move { ohua::sequential(|| chain(&db, k3)) }).await.unwrap();
        (batched, sequential)
    });
    assert_eq!(batched, sequential);
    assert_eq!(batched, keys.iter().map(|k| if k + 1 == 13 { 0 } else { (k + 1) * 2 + 1 }).collect::<Vec<_>>());
}
