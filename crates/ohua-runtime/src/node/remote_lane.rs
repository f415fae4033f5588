//! A replica's lane served by a cluster: the lane's items go out as bytes
//! to a stage that every process serves (`crate::remote`), and the results
//! come back, in order, onto the lane's output.
//!
//! To the scatter and the gather this is a replica like the others: it
//! takes data from its lane and gives one result per item, in the items'
//! order (the stage returns results in the order the items were sent). It
//! keeps at most [`IN_FLIGHT`] items out per serving process; results that arrive while its
//! section sleeps wake the section (the stage's sink calls its waker).
//!
//! A lane whose call reads captured values also carries the ends of
//! activations (the scatter sends them to every lane, so each replica
//! releases its copies): an end leaves after the results of the items
//! before it ([`RemoteLane`]'s `ends`; `remote_values.rs` pairs the items
//! with the values).
//!
//! A batch's results wait in the lane and leave as the output has room,
//! one at a time. `Out::room` is a lower bound that is refreshed only when
//! it reaches zero (like every arc's), so waiting for room for a whole
//! batch could wait forever: that was the stall of runs beyond ~2,000
//! items (the regression tests below).

use std::collections::VecDeque;

use crate::codec::{Codec, LaneBytes};
use crate::packet::{Level, Packet};
use crate::port::{In, Out};
use crate::remote::RemoteStage;
use crate::sync::process::Arc;

use super::{Node, Step};

/// Items a remote lane keeps out at most (sent, or waiting for a batch to
/// fill). Measured with a 5.5 µs statement on 2 processes pinned to one
/// core each (`ohua-cluster/tests/algorithms.rs`, 200,000 items): with 64
/// out the other process idled between round trips; with 1,024 or more it
/// took 75-93 % of the items while the caller's core idled, its local
/// replica's results waiting in order behind the remote ones (the gather
/// merges lanes in order, within its arcs' room); 512 gave 1.29-1.36x of
/// one process, both cores 73-85 % busy. That is per process serving the
/// lane ([`RemoteLane::for_processes`]): a batch is served by one process,
/// so with 512 out at most 2 processes would be busy at once however many
/// there are (the model for N hosts in `BENCHMARKS.md`).
pub const IN_FLIGHT: usize = 512;

/// Items a batch gathers before it goes out while earlier batches are
/// still out (Nagle's rule: a lone batch goes at once, and so does what is
/// left when the lane closes). Each batch costs the caller's core hand-offs
/// (thread wake-ups, a message, a timely epoch): taking what the lane held
/// at each step made batches of about 32 items and cost 3.8 µs of the
/// caller's core per remote item; batches of 64 kept it saturated with
/// hand-offs.
pub const BATCH: usize = 256;

/// Bytes of arguments a batch holds at most, and bytes out at most per
/// serving process: big items (a gzipped chunk of 500 records, ~13 KB, and
/// ~0.5 ms of work) go in small batches, so the other process starts on
/// them at once and the caller's local replica, whose results wait in
/// order behind the remote ones, is not held back by a batch of 256 of
/// them. Items of a few bytes are bound by [`BATCH`] and [`IN_FLIGHT`].
/// The lane learns the bytes per item from the batches it sent.
pub const BATCH_BYTES: usize = 32 * 1024;

/// See [`BATCH_BYTES`].
pub const IN_FLIGHT_BYTES: usize = 128 * 1024;

/// A remote lane's codecs: a batch of items out, and back the batch's
/// results or the message of the statement's panic where it was served.
pub type LaneCodecs<T, U> = (Codec<Vec<T>>, Codec<Result<Vec<U>, String>>);

/// The operator of a lane served by a cluster. Its items go out in batches
/// of up to [`BATCH`] (one message, one wake-up of the cluster's workers,
/// instead of one per item: with one item per message the caller's core
/// spent more on hand-offs than a 6 µs statement, 0.73x of sequential on 2
/// pinned processes); a batch's results come back as one.
///
/// # Example
///
/// Items through a stage that answers at once: see the unit test
/// `a_remote_lane_gives_one_result_per_item_in_order`.
pub struct RemoteLane<T, U> {
    input: In<T>,
    output: Out<U>,
    stage: Box<dyn RemoteStage>,
    args: Codec<Vec<T>>,
    /// A batch's results, or the message of the statement's panic where
    /// it was served (`exec/serialized.rs`).
    results: Codec<Result<Vec<U>, String>>,
    /// The sizes of the batches out, oldest first.
    batches: VecDeque<usize>,
    /// Results come back but not yet on the output, oldest first.
    ready: VecDeque<U>,
    /// Items taken from the lane for the next batch.
    gathering: Vec<T>,
    /// Items sent whose results are not yet on the output.
    in_flight: usize,
    /// Ends of activations on the lane, each after the item count it
    /// follows (`taken` when it came), oldest first.
    ends: VecDeque<(u64, Level)>,
    /// Items taken from the lane, and results given, since the start.
    taken: u64,
    given: u64,
    /// Items out at most: [`IN_FLIGHT`] per process serving the lane.
    limit: usize,
    /// Bytes of arguments per item in the batches sent so far (0: none yet).
    bytes_per_item: usize,
    counts: Arc<LaneBytes>,
    closed: bool,
}

impl<T, U> RemoteLane<T, U> {
    /// The lane from `input` to `output`, served by `stage`, its items and
    /// results counted in `counts`.
    pub fn new(
        input: In<T>,
        output: Out<U>,
        stage: Box<dyn RemoteStage>,
        (args, results): LaneCodecs<T, U>,
        counts: Arc<LaneBytes>,
    ) -> Self {
        RemoteLane {
            input,
            output,
            stage,
            args,
            results,
            batches: VecDeque::new(),
            ready: VecDeque::new(),
            gathering: Vec::new(),
            in_flight: 0,
            ends: VecDeque::new(),
            taken: 0,
            given: 0,
            limit: IN_FLIGHT,
            bytes_per_item: 0,
            counts,
            closed: false,
        }
    }
}

impl<T, U> RemoteLane<T, U> {
    /// The same lane, for a cluster of `processes` processes: the caller's
    /// and `processes - 1` serving ones, each given up to [`IN_FLIGHT`]
    /// items out (at least one's worth).
    pub fn for_processes(mut self, processes: usize) -> Self {
        self.limit = IN_FLIGHT * processes.saturating_sub(1).max(1);
        self
    }
}

impl<T, U> RemoteLane<T, U> {
    /// `items`, or fewer where the items seen so far are big enough that
    /// `items` of them would be over `bytes` (at least one).
    fn within(&self, items: usize, bytes: usize) -> usize {
        match self.bytes_per_item {
            0 => items,
            b => items.min((bytes / b).max(1)),
        }
    }

    /// Items a batch gathers at most.
    fn batch(&self) -> usize {
        self.within(BATCH, BATCH_BYTES)
    }

    /// Items out at most.
    fn limit(&self) -> usize {
        self.within(self.limit, IN_FLIGHT_BYTES * (self.limit / IN_FLIGHT).max(1))
    }
}

impl<T: Send, U: Send> Node for RemoteLane<T, U> {
    fn step(&mut self, budget: usize) -> Step {
        let mut work = 0;
        loop {
            while self.output.room() > 0 {
                if self.ends.front().is_some_and(|&(after, _)| after == self.given) {
                    let (_, level) = self.ends.pop_front().expect("an end is due");
                    self.output.send_end(level);
                } else if let Some(result) = self.ready.pop_front() {
                    self.output.send(result);
                    self.in_flight -= 1;
                    self.given += 1;
                } else {
                    break;
                }
                work += 1;
            }
            let Some(&size) = self.batches.front() else { break };
            if !self.ready.is_empty() {
                break;
            }
            match self.stage.try_recv() {
                Some(Ok(bytes)) => {
                    let values = self
                        .results
                        .decode(&bytes)
                        .unwrap_or_else(|e| panic!("{e}"))
                        .unwrap_or_else(|e| panic!("ohua: a statement served by another process panicked: {e}"));
                    assert_eq!(values.len(), size, "ohua: a remote lane's batch came back with another size");
                    self.counts.add_many(size, bytes.len());
                    self.ready.extend(values);
                    self.batches.pop_front();
                }
                Some(Err(e)) => panic!("ohua: a replica in another process failed: {e}"),
                None => break,
            }
        }
        let mut taken = 0;
        let (batch, limit) = (self.batch(), self.limit());
        while work + taken < budget.max(1)
            && self.gathering.len() < batch
            && self.in_flight + self.gathering.len() < limit
        {
            match self.input.pop() {
                Some(Packet::Data(item)) => {
                    self.gathering.push(item);
                    self.taken += 1;
                }
                Some(Packet::End(level)) => self.ends.push_back((self.taken, level)),
                Some(Packet::Mark(_)) => unreachable!("ohua: a remote lane carries no control markers"),
                None => break,
            }
            taken += 1;
        }
        // Held items wait for a result, which steps the lane again (the
        // stage's sink wakes its section): a batch out always comes back,
        // so nothing waits forever.
        let full = self.gathering.len() >= batch || self.in_flight + self.gathering.len() >= limit;
        if !self.gathering.is_empty() && (full || self.batches.is_empty() || self.input.is_closed()) {
            let batch = std::mem::take(&mut self.gathering);
            let mut bytes = Vec::new();
            self.args.encode(&batch, &mut bytes).unwrap_or_else(|e| panic!("{e}"));
            self.bytes_per_item = bytes.len().div_ceil(batch.len());
            self.counts.add_many(batch.len(), bytes.len());
            self.stage.send(bytes);
            self.batches.push_back(batch.len());
            self.in_flight += batch.len();
        }
        work += taken;
        if self.input.is_closed() && self.in_flight == 0 && self.gathering.is_empty() && self.ends.is_empty() {
            if !self.closed {
                self.stage.close();
                self.closed = true;
            }
            return Step::Done;
        }
        Step::after(work)
    }

    fn flush(&mut self) {
        self.input.flush();
        self.output.flush();
    }

    fn describe(&self) -> String {
        format!(
            "remote lane: {} in flight in {} batches, {} results waiting for room, {} items on the lane",
            self.in_flight,
            self.batches.len(),
            self.ready.len(),
            self.input.available()
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::{RemoteLane, BATCH_BYTES, IN_FLIGHT, IN_FLIGHT_BYTES};
    use crate::codec::{Codec, LaneBytes};
    use crate::node::{Node, Step};
    use crate::port::{In, Out};
    use crate::remote::RemoteStage;
    use crate::sync::process::Arc;

    /// A stage that doubles each `u64` of a batch at once.
    struct Doubling(VecDeque<Vec<u8>>);

    impl RemoteStage for Doubling {
        fn send(&mut self, batch: Vec<u8>) {
            let xs: Vec<(u64,)> = Codec::serde().decode(&batch).unwrap();
            let mut out = Vec::new();
            Codec::<Result<Vec<u64>, String>>::serde()
                .encode(&Ok(xs.iter().map(|x| x.0 * 2).collect()), &mut out)
                .unwrap();
            self.0.push_back(out);
        }
        fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
            self.0.pop_front().map(Ok)
        }
        fn close(&mut self) {}
    }

    /// Runs `items` through a doubling lane whose output arc holds
    /// `output_capacity` packets and whose budget is `budget`, the
    /// consumer taking what is there after every step; `None` if the lane
    /// is not done within 1,000 steps.
    fn doubled_through(items: u64, output_capacity: usize, budget: usize) -> Option<Vec<u64>> {
        let (mut tx, rx) = crate::arc::channel::<(u64,)>(items as usize + 1, None, None);
        let (otx, mut orx) = crate::arc::channel::<u64>(output_capacity, None, None);
        let codecs = (Codec::serde(), Codec::serde());
        let counts = Arc::new(LaneBytes::default());
        let stage = Box::new(Doubling(VecDeque::new()));
        let mut lane = RemoteLane::new(In::new(rx), Out::new(vec![otx]), stage, codecs, counts);
        for x in 1..=items {
            tx.push(crate::packet::Packet::Data((x,)));
        }
        tx.flush();
        drop(tx);
        let mut got = Vec::new();
        for _ in 0..1_000 {
            let step = lane.step(budget);
            lane.flush();
            while let Some(crate::packet::Packet::Data(y)) = orx.pop() {
                got.push(y);
            }
            orx.flush();
            if matches!(step, Step::Done) {
                return Some(got);
            }
        }
        None
    }

    /// The stall of runs beyond ~2,000 items under `lanes = "cluster"`: the
    /// lane waited until the output had room for a whole batch, and an
    /// arc's room is refreshed only when it reaches zero, so a batch larger
    /// than the room last seen waited forever.
    #[test]
    fn regression_a_batch_larger_than_the_room_on_the_output_still_comes_out() {
        let want: Vec<u64> = (1..=200).map(|x| x * 2).collect();
        assert_eq!(doubled_through(200, 2, 64).as_ref(), Some(&want), "output smaller than a batch");
        assert_eq!(doubled_through(200, 100, 64).as_ref(), Some(&want), "room left smaller than a batch");
    }

    /// A stage that answers (doubling) only when the test says so, and
    /// records the size of every batch sent.
    #[derive(Clone, Default)]
    struct OnDemand(std::sync::Arc<std::sync::Mutex<OnDemandState>>);

    /// (sizes of the batches sent, their answers, answers to give)
    type OnDemandState = (Vec<usize>, VecDeque<Vec<u64>>, usize);

    impl RemoteStage for OnDemand {
        fn send(&mut self, batch: Vec<u8>) {
            let xs: Vec<(u64,)> = Codec::serde().decode(&batch).unwrap();
            let mut s = self.0.lock().unwrap();
            s.0.push(xs.len());
            s.1.push_back(xs.iter().map(|x| x.0 * 2).collect());
        }
        fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
            let mut s = self.0.lock().unwrap();
            if s.2 == 0 {
                return None;
            }
            s.2 -= 1;
            let mut out = Vec::new();
            Codec::<Result<Vec<u64>, String>>::serde().encode(&Ok(s.1.pop_front()?), &mut out).unwrap();
            Some(Ok(out))
        }
        fn close(&mut self) {}
    }

    /// Nagle's rule: a lone batch goes at once (an item that trickles in
    /// is not held back), items that come while a batch is out wait for it
    /// and then go as one batch.
    #[test]
    fn items_wait_for_a_batch_only_while_another_batch_is_out() {
        let (mut tx, rx) = crate::arc::channel::<(u64,)>(64, None, None);
        let (otx, mut orx) = crate::arc::channel::<u64>(64, None, None);
        let stage = OnDemand::default();
        let codecs = (Codec::serde(), Codec::serde());
        let counts = Arc::new(LaneBytes::default());
        let mut lane = RemoteLane::new(In::new(rx), Out::new(vec![otx]), Box::new(stage.clone()), codecs, counts);
        let mut send = |xs: std::ops::Range<u64>| {
            for x in xs {
                tx.push(crate::packet::Packet::Data((x,)));
            }
            tx.flush();
        };
        send(1..2);
        lane.step(64);
        assert_eq!(stage.0.lock().unwrap().0, vec![1], "a lone item goes at once");
        send(2..12);
        lane.step(64);
        assert_eq!(stage.0.lock().unwrap().0, vec![1], "items wait while a batch is out");
        stage.0.lock().unwrap().2 = 1; // the first batch's result comes back
        lane.step(64);
        lane.flush();
        assert_eq!(stage.0.lock().unwrap().0, vec![1, 10], "the waiting items go as one batch");
        assert!(matches!(orx.pop(), Some(crate::packet::Packet::Data(2))));
    }

    /// A stage that only counts the items of each batch of `(Vec<u8>,)`s
    /// it is sent and never answers.
    #[derive(Default, Clone)]
    struct Counting(std::sync::Arc<std::sync::Mutex<Vec<usize>>>);

    impl RemoteStage for Counting {
        fn send(&mut self, batch: Vec<u8>) {
            let xs: Vec<(Vec<u8>,)> = Codec::serde().decode(&batch).unwrap();
            self.0.lock().unwrap().push(xs.len());
        }
        fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
            None
        }
        fn close(&mut self) {}
    }

    /// Big items go in small batches, and fewer are out: 10 KB items, 3
    /// to a batch of [`BATCH_BYTES`] and 12 out for [`IN_FLIGHT_BYTES`]
    /// (the `record_pipeline` measurement: 1.10x of one process with
    /// batches of up to 256 chunks, 1.48-1.60x with these).
    #[test]
    fn big_items_go_in_batches_of_bounded_bytes() {
        let (mut tx, rx) = crate::arc::channel::<(Vec<u8>,)>(256, None, None);
        let (otx, _orx) = crate::arc::channel::<u64>(16, None, None);
        let stage = Counting::default();
        let codecs = (Codec::serde(), Codec::serde());
        let counts = Arc::new(LaneBytes::default());
        let mut lane = RemoteLane::new(In::new(rx), Out::new(vec![otx]), Box::new(stage.clone()), codecs, counts);
        let mut send = |n: usize| {
            for _ in 0..n {
                tx.push(crate::packet::Packet::Data((vec![7u8; 10_000],)));
            }
            tx.flush();
        };
        send(1);
        lane.step(64);
        send(200);
        for _ in 0..20 {
            lane.step(64);
        }
        // An item is 10,000 bytes, its length (3) and a batch's length (1).
        let per_item = 10_004;
        let sizes = stage.0.lock().unwrap().clone();
        assert_eq!(sizes[0], 1, "a lone item goes at once: {sizes:?}");
        assert!(sizes.len() > 2 && sizes[1..].iter().all(|&n| n <= BATCH_BYTES / per_item), "{sizes:?}");
        let out: usize = sizes.iter().sum();
        assert_eq!(out, IN_FLIGHT_BYTES / per_item, "items out: {sizes:?}");
    }

    /// A lane keeps [`IN_FLIGHT`] items out per process serving it: with
    /// 512 in all, at most 2 batches would be out, and at most 2 other
    /// processes busy, however many there are.
    #[test]
    fn a_lane_keeps_more_items_out_on_more_processes() {
        for (processes, want) in [(1, IN_FLIGHT), (2, IN_FLIGHT), (3, 2 * IN_FLIGHT), (5, 4 * IN_FLIGHT)] {
            let items = 5 * IN_FLIGHT;
            let (mut tx, rx) = crate::arc::channel::<(u64,)>(items, None, None);
            let (otx, _orx) = crate::arc::channel::<u64>(16, None, None);
            let stage = OnDemand::default();
            let codecs = (Codec::serde(), Codec::serde());
            let counts = Arc::new(LaneBytes::default());
            let mut lane = RemoteLane::new(In::new(rx), Out::new(vec![otx]), Box::new(stage.clone()), codecs, counts)
                .for_processes(processes);
            for x in 0..items as u64 {
                tx.push(crate::packet::Packet::Data((x,)));
            }
            tx.flush();
            for _ in 0..100 {
                lane.step(1024);
            }
            let sent: usize = stage.0.lock().unwrap().0.iter().sum();
            assert_eq!(sent, want, "items out on {processes} processes (no result came back)");
        }
    }

    #[test]
    fn a_remote_lane_gives_one_result_per_item_in_order() {
        let (mut tx, rx) = crate::arc::channel::<(u64,)>(16, None, None);
        let (otx, mut orx) = crate::arc::channel::<u64>(16, None, None);
        let counts = Arc::new(LaneBytes::default());
        let codecs = (Codec::serde(), Codec::serde());
        let mut lane = RemoteLane::new(
            In::new(rx),
            Out::new(vec![otx]),
            Box::new(Doubling(VecDeque::new())),
            codecs,
            counts.clone(),
        );
        for x in 1..=3u64 {
            tx.push(crate::packet::Packet::Data((x,)));
        }
        tx.flush();
        drop(tx);
        let mut got = Vec::new();
        for _ in 0..4 {
            let step = lane.step(8);
            lane.flush();
            while let Some(crate::packet::Packet::Data(y)) = orx.pop() {
                got.push(y);
            }
            if matches!(step, Step::Done) {
                break;
            }
        }
        assert_eq!(got, vec![2, 4, 6]);
        assert_eq!(counts.get().items, 6);
    }
}
