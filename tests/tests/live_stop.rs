//! Stopping an idle service (issue 21, part 3, item 4): a service whose
//! clients went quiet, with its source still open, stops when its loop's
//! source is `ohua::stoppable(rx)`. A plain receiver blocks in `next()`,
//! where the stop request cannot reach it: that service stops only with
//! the next item or when the source closes, and `Service::waits_for_item`
//! says so (checked here with bounded joins, so the test cannot hang).

use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use ohua_conformance::{live_deployments, within};

/// Adds, and tells the test each item it took.
struct Sum(u64, Option<Sender<u64>>);
impl Sum {
    fn new(acks: Option<Sender<u64>>) -> Self {
        Sum(0, acks)
    }
    fn add(&mut self, x: u64) {
        self.0 += x;
        if let Some(a) = &self.1 {
            let _ = a.send(x);
        }
    }
    fn get(&self) -> u64 {
        self.0
    }
}

#[ohua::algorithm]
fn total(xs: ohua::Stoppable<Receiver<u64>>, acks: Option<Sender<u64>>) -> u64 {
    let mut sum = Sum::new(acks);
    for x in xs {
        sum.add(x);
    }
    sum.get()
}

#[ohua::algorithm]
fn total_plain(xs: Receiver<u64>, acks: Option<Sender<u64>>) -> u64 {
    let mut sum = Sum::new(acks);
    for x in xs {
        sum.add(x);
    }
    sum.get()
}

#[test]
fn an_idle_service_over_a_stoppable_source_stops_without_another_item() {
    for (name, d) in live_deployments() {
        let (tx, rx) = mpsc::channel();
        let (ack_tx, acks) = mpsc::channel();
        let service = ohua::service(move || ohua::with_deployment(d, || total(ohua::stoppable(rx), Some(ack_tx))));
        tx.send(2).unwrap();
        tx.send(3).unwrap();
        assert_eq!((acks.recv().unwrap(), acks.recv().unwrap()), (2, 3), "{name}");
        // Idle, with `tx` open: stop alone ends it.
        service.stop();
        let r = within(30, "the stopped service", move || service.join());
        assert_eq!(r, 5, "{name}");
        drop(tx);
    }
}

#[test]
fn a_stoppable_source_still_ends_when_its_senders_are_gone() {
    let (tx, rx) = mpsc::channel();
    let service = ohua::service(move || total(ohua::stoppable(rx).tick(Duration::from_millis(1)), None));
    tx.send(4).unwrap();
    drop(tx);
    assert_eq!(within(30, "the service", move || service.join()), 4);
}

#[test]
fn an_idle_service_over_a_plain_receiver_waits_for_its_next_item_to_stop() {
    let (tx, rx) = mpsc::channel();
    let (ack_tx, acks) = mpsc::channel();
    let service = ohua::service(move || total_plain(rx, Some(ack_tx)));
    tx.send(1).unwrap();
    assert_eq!(acks.recv().unwrap(), 1);
    // Idle: its loop waits in the receiver's `next()`, and says so.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !service.waits_for_item() {
        assert!(std::time::Instant::now() < deadline, "the idle loop never waited for an item");
        std::thread::sleep(Duration::from_millis(1));
    }
    service.stop();
    assert!(service.waits_for_item(), "a plain receive is not interrupted by the stop");
    let service = match service.join_timeout(Duration::from_millis(200)) {
        Ok(r) => panic!("stopped ({r}) although its receive cannot be interrupted"),
        Err(service) => service,
    };
    // The next item lets it see the stop: taken, then the loop ends.
    tx.send(10).unwrap();
    let r = within(30, "the service", move || service.join_timeout(Duration::from_secs(30)).ok());
    assert_eq!(r, Some(11));
}
