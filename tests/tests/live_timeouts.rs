//! Bounded waits (issue 21, part 3, item 3): a checkpoint, a restore and a
//! join each wait for something a quiet source may never give (the next
//! item, the loop's start, the end of the source). Each has a variant that
//! gives up after a timeout; before, they could only block forever.

use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use ohua::update::{Checkpoint, MarkError, StateKinds};
use ohua_conformance::within;

#[derive(serde::Serialize, serde::Deserialize)]
struct Sum(u64);

#[ohua::updatable]
impl Sum {
    fn new() -> Self {
        Sum(0)
    }
    fn add(&mut self, x: u64) {
        self.0 += x;
    }
    fn get(&self) -> u64 {
        self.0
    }
}

#[ohua::algorithm]
fn total(xs: Receiver<u64>) -> u64 {
    let mut sum = Sum::new();
    for x in xs {
        sum.add(x);
    }
    sum.get()
}

const SHORT: Duration = Duration::from_millis(100);

#[test]
fn a_checkpoint_of_a_service_whose_source_never_yields_times_out() {
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || total(rx));
    let kinds = StateKinds::new().with::<Sum>();
    // A marker requested before the loop's entry calls `next()` goes in at
    // once; one requested while it waits there, only with the next item.
    // Once the entry waits, every bounded checkpoint times out.
    let (service, pending) = within(60, "checkpoint_timeout", move || {
        let mut timed_out = 0;
        for _ in 0..50 {
            let start = Instant::now();
            match service.checkpoint_timeout(&kinds, SHORT) {
                Err(MarkError::TimedOut { after }) => {
                    assert_eq!(after, SHORT);
                    assert!(start.elapsed() >= SHORT, "{:?}", start.elapsed());
                    timed_out += 1;
                    break;
                }
                Ok(c) => assert_eq!(c.items_before(), 0, "no item was sent"),
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(timed_out, 1, "the idle service's cut never came, yet no checkpoint timed out");
        let pending = service.request_checkpoint(&kinds);
        assert!(pending.wait_timeout(SHORT).is_none(), "no item, no cut");
        (service, pending)
    });
    // The next item makes the cut: the pending checkpoint completes.
    tx.send(5).unwrap();
    let checkpoint = pending.wait_timeout(Duration::from_secs(30)).expect("the item made the cut").unwrap();
    assert_eq!(checkpoint.items_before(), 0);
    drop(tx);
    assert_eq!(within(30, "the service", move || service.join()), 5);
}

#[test]
fn join_timeout_gives_the_running_service_back_and_later_its_result() {
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || total(rx));
    tx.send(3).unwrap();
    let service = within(30, "join_timeout", move || match service.join_timeout(SHORT) {
        Ok(r) => panic!("the source is open, yet the service returned {r}"),
        Err(service) => service,
    });
    assert!(!service.is_finished());
    drop(tx);
    let r = within(30, "join_timeout", move || service.join_timeout(Duration::from_secs(30)).ok());
    assert_eq!(r, Some(3));
}

#[test]
fn a_restore_whose_service_never_reaches_its_loop_times_out() {
    let (gate, opened) = mpsc::channel::<()>();
    let (tx, rx) = mpsc::channel();
    let kinds = StateKinds::new().with::<Sum>();
    let r = within(30, "restore_timeout", move || {
        ohua::restore_timeout(Checkpoint::default(), &kinds, SHORT, move || {
            // Code before the service's algorithm that does not return yet.
            let _ = opened.recv();
            total(rx)
        })
        .map(|_| ())
    });
    assert!(matches!(r, Err(MarkError::TimedOut { .. })), "{r:?}");
    // The stopped service ends by itself once it gets going.
    drop(gate);
    drop(tx);
}

#[test]
fn a_restore_that_completes_in_time_returns_the_running_service() {
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || total(rx));
    tx.send(7).unwrap();
    let kinds = StateKinds::new().with::<Sum>();
    let k = kinds.clone();
    let (service, checkpoint) = within(30, "checkpoint", move || {
        let pending = service.request_checkpoint(&k);
        (service, pending)
    });
    tx.send(1).unwrap();
    let checkpoint = checkpoint.wait_timeout(Duration::from_secs(30)).expect("cut").unwrap();
    // The sum of the items before the cut: 7 and 1 were sent.
    let before = [0, 7, 8][checkpoint.items_before() as usize];
    drop(tx);
    assert_eq!(within(30, "the service", move || service.join()), 8);
    let (tx, rx) = mpsc::channel();
    let restored = within(30, "restore_timeout", move || {
        ohua::restore_timeout(checkpoint, &kinds, Duration::from_secs(30), move || total(rx)).map_err(|e| e.to_string())
    })
    .expect("restored");
    tx.send(2).unwrap();
    drop(tx);
    assert_eq!(within(30, "the service", move || restored.join()), before + 2);
}
