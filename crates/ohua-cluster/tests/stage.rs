//! A stage in one process (timely without the network, 1-3 workers):
//! results equal sequential execution, keys keep their order, a source
//! that waits for the stage's own output is not held back.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ohua_cluster::{map_ordered, run_stage, ClusterConfig, Items, Route};
use proptest::prelude::*;

fn config(workers: usize) -> ClusterConfig {
    ClusterConfig::single().workers(workers).expect("workers")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any items, any worker count: the results of sequential `map`.
    #[test]
    fn map_ordered_equals_a_sequential_map(items in prop::collection::vec(any::<u32>(), 0..300), workers in 1usize..4) {
        let f = |x: u32| u64::from(x).wrapping_mul(2654435761) ^ 7;
        let got = map_ordered(&config(workers), items.clone(), f).expect("the stage runs");
        prop_assert_eq!(got, Some(items.into_iter().map(f).collect::<Vec<_>>()));
    }

    /// A keyed counter on 3 workers: each result is its key's count after
    /// the item, as sequential execution counts it.
    #[test]
    fn a_keyed_stage_sees_each_keys_items_in_order(keys in prop::collection::vec(0u64..8, 0..300)) {
        let out = Arc::new(Mutex::new(Vec::new()));
        let sink = { let out = out.clone(); move |c: u64| out.lock().unwrap().push(c) };
        let counter = |_worker| {
            let mut counts: HashMap<u64, u64> = HashMap::new();
            move |k: u64| { let c = counts.entry(k).or_default(); *c += 1; *c }
        };
        let report = run_stage(&config(3), Items::Ready(keys.clone().into_iter()), Route::by_key(|k: &u64| *k), counter, sink)
            .expect("the stage runs");
        let mut seq: HashMap<u64, u64> = HashMap::new();
        let expected: Vec<u64> = keys.iter().map(|k| { let c = seq.entry(*k).or_default(); *c += 1; *c }).collect();
        prop_assert_eq!(&*out.lock().unwrap(), &expected);
        prop_assert_eq!(report.items, keys.len() as u64);
        prop_assert_eq!(report.handled, keys.len() as u64);
    }
}

/// The caller sends item `i + 1` only after result `i` has come back: a
/// stage that held a result until the next item (or the end) would never
/// finish. Bounded: the client gives up after 10 s per result.
#[test]
fn a_waiting_source_gets_each_result_before_it_sends_the_next_item() {
    const N: u64 = 50;
    let (items_tx, items_rx) = mpsc::channel::<u64>();
    let (results_tx, results_rx) = mpsc::channel::<u64>();
    let client = std::thread::spawn(move || {
        let mut got = Vec::new();
        for i in 0..N {
            items_tx.send(i).expect("the stage reads");
            got.push(results_rx.recv_timeout(Duration::from_secs(10)).expect("a result before the next item"));
        }
        got
    });
    let sink = move |y: u64| results_tx.send(y).expect("the client listens");
    let report =
        run_stage(&config(2), Items::Waiting(items_rx.into_iter()), Route::RoundRobin, |_| |x: u64| x * 3, sink)
            .expect("the stage runs");
    assert_eq!(client.join().expect("client"), (0..N).map(|x| x * 3).collect::<Vec<_>>());
    assert_eq!(report.items, N);
}

/// A handler's panic ends the caller's run with its message, not a hang.
#[test]
fn a_handler_panic_is_an_error_with_its_message() {
    let err = map_ordered(&config(2), (0..100u64).collect(), |x| {
        assert!(x != 41, "item {x} is refused");
        x
    })
    .expect_err("the panic is reported");
    assert!(err.to_string().contains("item 41 is refused"), "{err}");
    assert_eq!(err.process(), Some(0));
}
