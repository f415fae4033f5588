//! Replacing a running service's whole algorithm by another version with
//! the same signature (issue 13, dissertation §5.5): every request runs
//! entirely on one version, none is lost or answered twice, the states the
//! versions share move from one to the other at the cut, and a state only
//! the new version has (an inserted cache) starts fresh: under every live
//! deployment, against a sequential model of the same code.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::{unbounded, Receiver, Sender};
use ohua::update::{MarkError, StateKinds};
use ohua::{algorithm, updatable};
use ohua_conformance::{live_deployments, within};
use serde::{Deserialize, Serialize};

/// A running total: a state both versions hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Total(u64);

#[updatable]
impl Total {
    fn add(&mut self, x: u64) -> u64 {
        self.0 = self.0.wrapping_mul(31).wrapping_add(x);
        self.0
    }

    /// `&self`: on a snapshot where the total is declared a snapshot state.
    fn peek(&self) -> u64 {
        self.0 % 1000
    }
}

/// How many requests were answered: a second shared state, further down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Tally(u64);

#[updatable]
impl Tally {
    fn count(&mut self, x: u64) -> u64 {
        self.0 += 1;
        self.0 + x % 2
    }
}

/// A memo of squares: the stage version 2 inserts (Fig. 5.17's cache).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Memo(std::collections::BTreeMap<u64, u64>);

#[updatable]
impl Memo {
    fn square(&mut self, x: u64) -> u64 {
        *self.0.entry(x % 64).or_insert_with(|| (x % 64) * (x % 64))
    }
}

/// One reply: the request, the version that answered, what it computed.
type Reply = (u64, u8, u64, u64);

struct Out(Sender<Reply>);
impl Out {
    fn send(&mut self, r: Reply) {
        let _ = self.0.send(r);
    }
}

fn reply(request: u64, version: u8, total: u64, tally: u64) -> Reply {
    (request, version, total, tally)
}

#[algorithm]
fn v1(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = Total(0);
    let mut tally = Tally(0);
    let mut out = Out(tx);
    for r in requests {
        let t = total.add(r);
        let c = tally.count(t);
        let answer = reply(r, 1, t, c);
        out.send(answer);
    }
    1
}

/// Version 2: the same signature, another graph (one more stateful stage,
/// different arithmetic).
#[algorithm]
fn v2(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = Total(0);
    let mut memo = Memo::default();
    let mut tally = Tally(0);
    let mut out = Out(tx);
    for r in requests {
        let sq = memo.square(r);
        let t = total.add(sq + r);
        let c = tally.count(t);
        let answer = reply(r, 2, t, c);
        out.send(answer);
    }
    2
}

/// Version 3 has no `Tally`: the old one has nowhere to go.
#[algorithm]
fn v3_without_tally(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = Total(0);
    let mut out = Out(tx);
    for r in requests {
        let t = total.add(r);
        let answer = reply(r, 3, t, 0);
        out.send(answer);
    }
    3
}

/// Two operators hold a `Total`: which of them should a new one take?
#[algorithm]
fn v4_two_totals(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = Total(0);
    let mut again = Total(7);
    let mut out = Out(tx);
    for r in requests {
        let t = total.add(r);
        let u = again.add(t);
        let answer = reply(r, 4, u, 0);
        out.send(answer);
    }
    4
}

fn kinds() -> StateKinds {
    StateKinds::new().with::<Total>().with::<Tally>()
}

/// Version 1 with the total declared a snapshot state: `peek` reads a
/// snapshot taken after the `add` before it.
#[algorithm]
fn v1_snapshot(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = ohua::snapshot(Total(0));
    let mut tally = Tally(0);
    let mut out = Out(tx);
    for r in requests {
        let t = total.add(r);
        let p = total.peek();
        let c = tally.count(t + p);
        let answer = reply(r, 1, t, c);
        out.send(answer);
    }
    1
}

/// Version 2 of it: other arithmetic, the same snapshot state.
#[algorithm]
fn v2_snapshot(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut total = ohua::snapshot(Total(0));
    let mut tally = Tally(0);
    let mut out = Out(tx);
    for r in requests {
        let t = total.add(r * 3);
        let p = total.peek();
        let c = tally.count(t + p);
        let answer = reply(r, 2, t, c);
        out.send(answer);
    }
    2
}

/// The sequential model of `v1_snapshot` switched to `v2_snapshot` at `cut`.
fn snapshot_model(n: u64, cut: u64) -> Vec<Reply> {
    let (mut total, mut tally) = (Total(0), Tally(0));
    (0..n)
        .map(|r| {
            let version = if r < cut { 1 } else { 2 };
            let t = total.add(if version == 1 { r } else { r * 3 });
            let p = total.peek();
            (r, version, t, tally.count(t + p))
        })
        .collect()
}

/// A snapshot state moves to the new version at the cut like any other
/// (listed as `ohua::Snapshot<Total>`), with readers of the old version's
/// snapshots still running: every reply equals the sequential model's.
#[test]
fn a_snapshot_state_moves_to_the_new_version_at_the_cut() {
    let kinds = || StateKinds::new().with::<ohua::Snapshot<Total>>().with::<Tally>();
    for (name, d) in live_deployments() {
        let (tx, rx) = unbounded();
        let (out_tx, out) = unbounded();
        let (rx1, out1, d1) = (rx.clone(), out_tx.clone(), d.clone());
        let mut service = ohua::service(move || ohua::with_deployment(d1, || v1_snapshot(rx1, out1)));
        let enough = Arc::new(AtomicBool::new(false));
        let load = feed(tx, enough.clone());
        std::thread::sleep(Duration::from_millis(4));
        let (rx2, out2) = (rx.clone(), out_tx.clone());
        let to_v2 = service.replace(&kinds(), move || ohua::with_deployment(d, || v2_snapshot(rx2, out2)));
        to_v2.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        let cut = cut_of(&to_v2);
        assert_eq!(within(60, "version 1", move || to_v2.retired.join()), 1, "{name}");
        std::thread::sleep(Duration::from_millis(3));
        enough.store(true, Ordering::Relaxed);
        let n = load.join().unwrap();
        drop((rx, out_tx));
        assert_eq!(within(60, "the service", move || service.join()), 2, "{name}");
        let mut replies: Vec<Reply> = out.try_iter().collect();
        replies.sort();
        assert!(cut <= n, "{name}: cut {cut} of {n}");
        assert!(
            replies == snapshot_model(n, cut),
            "{name}: cut at {cut} of {n}: replies differ from the sequential model"
        );
    }
}

/// What the requests `0..n` get from one sequential program that runs
/// version 1 and switches to version 2 at each cut in `cuts` (and back),
/// carrying the shared states over and starting the memo fresh each time.
fn model(n: u64, cuts: &[u64]) -> Vec<Reply> {
    let (mut total, mut tally, mut memo) = (Total(0), Tally(0), Memo::default());
    let mut version = 1;
    (0..n)
        .map(|r| {
            if cuts.contains(&r) {
                version = 3 - version;
                memo = Memo::default();
            }
            let t = if version == 1 { total.add(r) } else { total.add(memo.square(r) + r) };
            (r, version, t, tally.count(t))
        })
        .collect()
}

/// Requests `0, 1, ...` at a steady trickle (a pause every 8), so cuts fall
/// while work is queued inside the service, until `enough` is set; returns
/// how many it sent.
fn feed(tx: Sender<u64>, enough: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut r = 0;
        while !enough.load(Ordering::Relaxed) {
            tx.send(r).unwrap();
            r += 1;
            if r % 8 == 0 {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        r
    })
}

/// Sends `items` after a moment, so a replacement requested now meets a
/// loop that waits for its next item.
fn later(tx: &Sender<u64>, items: &[u64]) -> std::thread::JoinHandle<()> {
    let (tx, items) = (tx.clone(), items.to_vec());
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        for r in items {
            tx.send(r).unwrap();
        }
    })
}

fn cut_of(replaced: &ohua::Replaced<u8>) -> u64 {
    let report = replaced.old.as_ref().expect("the old version made the cut");
    assert_eq!(report.cut.len(), 1, "one loop: {report:?}");
    report.cut[0].1
}

#[test]
fn every_request_runs_on_one_version_and_the_shared_states_move_at_the_cut() {
    for (name, d) in live_deployments() {
        let (tx, rx) = unbounded();
        let (out_tx, out) = unbounded();
        let (rx1, out1, d1) = (rx.clone(), out_tx.clone(), d.clone());
        let mut service = ohua::service(move || ohua::with_deployment(d1, || v1(rx1, out1)));
        let enough = Arc::new(AtomicBool::new(false));
        let load = feed(tx, enough.clone());
        std::thread::sleep(Duration::from_millis(4));

        let (rx2, out2, d2) = (rx.clone(), out_tx.clone(), d.clone());
        let to_v2 = service.replace(&kinds(), move || ohua::with_deployment(d2, || v2(rx2, out2)));
        to_v2.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        let first = cut_of(&to_v2);

        let restored = to_v2.new.as_ref().unwrap().reached.len();
        assert!(restored >= 4, "{name}: version 2's operators saw the take-over ({restored})");
        assert_eq!(within(60, "version 1", move || to_v2.retired.join()), 1, "{name}");

        // And back to version 1: a replaced service is replaced again.
        std::thread::sleep(Duration::from_millis(2));
        let (rx3, out3) = (rx.clone(), out_tx.clone());
        let back = service.replace(&kinds(), move || ohua::with_deployment(d, || v1(rx3, out3)));
        back.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        // The second cut counts the items version 2 took.
        let cuts = [first, first + cut_of(&back)];

        assert_eq!(within(60, "version 2", move || back.retired.join()), 2, "{name}");

        std::thread::sleep(Duration::from_millis(3));
        enough.store(true, Ordering::Relaxed);
        let n = load.join().unwrap();
        drop((rx, out_tx));
        assert_eq!(within(60, "the service", move || service.join()), 1, "{name}");
        let mut replies: Vec<Reply> = out.try_iter().collect();
        replies.sort();
        assert!(cuts[1] <= n, "{name}: cuts {cuts:?} of {n}");
        let expected = model(n, &cuts);
        let wrong = replies.iter().zip(&expected).find(|(got, want)| got != want);
        assert!(
            wrong.is_none() && replies.len() == expected.len(),
            "{name}: cuts at {cuts:?} of {n}: {} replies for {} requests, first wrong (got, sequential): {wrong:?}",
            replies.len(),
            expected.len()
        );
    }
}

#[test]
fn an_idle_service_is_replaced_with_the_next_request_which_the_old_version_answers() {
    let (tx, rx) = unbounded();
    let (out_tx, out) = unbounded();
    let (rx1, out1) = (rx.clone(), out_tx.clone());
    let mut service = ohua::service(move || v1(rx1, out1));
    tx.send(0).unwrap();
    assert_eq!(out.recv().unwrap().1, 1);
    let sending = later(&tx, &[1, 2]);
    let replaced = service.replace(&kinds(), move || v2(rx, out_tx));
    replaced.check().unwrap();
    assert_eq!(cut_of(&replaced), 2, "the request that ended the wait is the old version's last");
    sending.join().unwrap();
    drop(tx);
    assert_eq!(within(30, "version 1", move || replaced.retired.join()), 1);
    assert_eq!(within(30, "version 2", move || service.join()), 2);
    let mut replies: Vec<Reply> = out.try_iter().collect();
    replies.sort();
    assert_eq!(replies, model(3, &[2])[1..].to_vec());
}

#[test]
fn a_state_the_new_version_lacks_is_reported_and_stays_with_the_old_one() {
    let (tx, rx) = unbounded();
    let (out_tx, out) = unbounded();
    let (rx1, out1) = (rx.clone(), out_tx.clone());
    let mut service = ohua::service(move || v1(rx1, out1));
    for r in 0..5 {
        tx.send(r).unwrap();
    }
    for _ in 0..5 {
        out.recv().unwrap();
    }
    let sending = later(&tx, &[5]); // the old version's last
    let replaced = service.replace(&kinds(), move || v3_without_tally(rx, out_tx));
    match replaced.check() {
        Err(MarkError::NoState { state, .. }) => assert!(state.contains("Tally"), "{state}"),
        other => panic!("expected NoState for the tally, got {other:?}"),
    }
    assert_eq!(replaced.unclaimed.len(), 1);
    assert_eq!(replaced.unclaimed[0].json, "6", "the tally after six requests");
    // The total moved all the same.
    sending.join().unwrap();
    tx.send(6).unwrap();
    drop(tx);
    assert_eq!(within(30, "version 3", move || service.join()), 3);
    let last = out.try_iter().find(|r| r.0 == 6).expect("request 6 answered");
    assert_eq!((last.1, last.2), (3, model(7, &[])[6].2), "version 3 continues the total");
    drop(replaced);
}

#[test]
fn two_operators_holding_one_state_type_are_refused_by_name() {
    let (tx, rx) = unbounded();
    let (out_tx, out) = unbounded();
    let (rx1, out1) = (rx.clone(), out_tx.clone());
    let mut service = ohua::service(move || v4_two_totals(rx1, out1));
    tx.send(1).unwrap();
    out.recv().unwrap();
    let sending = later(&tx, &[2]);
    let replaced = service.replace(&kinds(), move || v1(rx, out_tx));
    sending.join().unwrap();
    match &replaced.old {
        Err(MarkError::Rejected { rejections, .. }) => {
            assert!(rejections[0].message.contains("distinct types"), "{rejections:?}")
        }
        other => panic!("expected the old version to refuse the ambiguous state, got {other:?}"),
    }
    assert!(replaced.check().is_err());
    drop(tx);
    assert_eq!(within(30, "version 1", move || service.join()), 1);
    assert_eq!(within(30, "version 4", move || replaced.retired.join()), 4);
}

#[test]
fn replacing_a_service_whose_loop_has_ended_starts_the_new_version_on_what_is_left() {
    let (tx, rx) = unbounded::<u64>();
    let (out_tx, _out) = unbounded();
    let (rx1, out1) = (rx.clone(), out_tx.clone());
    let mut service = ohua::service(move || v1(rx1, out1));
    service.stop();
    tx.send(0).unwrap(); // lets the stopped loop notice
    drop(tx);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !service.is_finished() {
        assert!(std::time::Instant::now() < deadline, "the stopped service did not end");
        std::thread::sleep(Duration::from_millis(1));
    }
    let replaced = service.replace(&kinds(), move || v2(rx, out_tx));
    assert_eq!(replaced.old.as_ref().err(), Some(&MarkError::NotReached));
    assert_eq!(within(30, "version 1", move || replaced.retired.join()), 1);
    assert_eq!(within(30, "version 2", move || service.join()), 2);
}

/// `Total`'s successor in version 5: the state's type changes with the
/// algorithm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Running {
    total: u64,
    seen: u64,
}

#[updatable]
impl Running {
    fn fresh() -> Self {
        Running { total: 0, seen: 0 }
    }

    fn add(&mut self, x: u64) -> u64 {
        self.seen += 1;
        self.total = self.total.wrapping_mul(31).wrapping_add(x);
        self.total ^ self.seen
    }
}

#[algorithm]
fn v5_running(requests: Receiver<u64>, tx: Sender<Reply>) -> u8 {
    let mut running = Running::fresh();
    let mut tally = Tally(0);
    let mut out = Out(tx);
    for r in requests {
        let t = running.add(r);
        let c = tally.count(t);
        let answer = reply(r, 5, t, c);
        out.send(answer);
    }
    5
}

/// Replaces an idle version 1 (after requests `0..6`) by version 5 with
/// `convert` for the total; returns the replacement and every reply of
/// requests `0..10`, sorted.
fn to_v5(convert: fn(Total) -> Result<Running, String>) -> (ohua::Replaced<u8>, Vec<Reply>) {
    let (tx, rx) = unbounded();
    let (out_tx, out) = unbounded();
    let (rx1, out1) = (rx.clone(), out_tx.clone());
    let mut service = ohua::service(move || v1(rx1, out1));
    for r in 0..5 {
        tx.send(r).unwrap();
    }
    // Version 1 has answered them: it waits for the next request.
    let early: Vec<Reply> = (0..5).map(|_| out.recv().unwrap()).collect();
    let sending = later(&tx, &[5]);
    let kinds = StateKinds::new().with::<Tally>().converted(convert);
    let replaced = service.replace(&kinds, move || v5_running(rx, out_tx));
    sending.join().unwrap();
    for r in 6..10 {
        tx.send(r).unwrap();
    }
    drop(tx);
    assert_eq!(within(30, "version 5", move || service.join()), 5);
    let mut replies: Vec<Reply> = early.into_iter().chain(out.try_iter()).collect();
    replies.sort();
    (replaced, replies)
}

/// What requests `0..10` get when version 1 answers `0..6` and version 5
/// the rest, starting from `running` and the tally after six requests.
fn model_v5(mut running: Running) -> Vec<Reply> {
    let mut v1 = model(6, &[]);
    let mut tally = Tally(6);
    v1.extend((6..10).map(|r| {
        let t = running.add(r);
        (r, 5, t, tally.count(t))
    }));
    v1
}

#[test]
fn a_state_whose_type_changes_moves_through_its_conversion() {
    let (replaced, replies) = to_v5(|old| Ok(Running { total: old.0, seen: 100 }));
    replaced.check().unwrap();
    assert_eq!(cut_of(&replaced), 6);
    let total_after_six = model(6, &[])[5].2;
    assert_eq!(replies, model_v5(Running { total: total_after_six, seen: 100 }));
}

#[test]
fn a_failing_conversion_is_reported_and_the_new_operator_keeps_its_own_state() {
    let (replaced, replies) = to_v5(|old| Err(format!("a total of {} is too large", old.0)));
    match replaced.check() {
        Err(MarkError::Rejected { rejections, .. }) => {
            assert!(rejections[0].message.contains("too large"), "{rejections:?}")
        }
        other => panic!("expected the conversion's error, got {other:?}"),
    }
    // The tally moved; the running total started afresh.
    assert_eq!(replies, model_v5(Running::fresh()));
}
