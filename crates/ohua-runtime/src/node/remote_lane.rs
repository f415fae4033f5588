//! A replica's lane served by a cluster: the lane's items go out as bytes
//! to a stage that every process serves (`crate::remote`), and the results
//! come back, in order, onto the lane's output.
//!
//! To the scatter and the gather this is a replica like the others: it
//! takes data from its lane and gives one result per item, in the items'
//! order (the stage returns results in the order the items were sent). It
//! keeps at most [`IN_FLIGHT`] items out; results that arrive while its
//! section sleeps wake the section (the stage's sink calls its waker).

use std::collections::VecDeque;

use crate::codec::{Codec, LaneBytes};
use crate::packet::Packet;
use crate::port::{In, Out};
use crate::remote::RemoteStage;
use crate::sync::process::Arc;

use super::{Node, Step};

/// Items a remote lane keeps out at most: enough to keep the other
/// processes busy while results travel, few enough that the scatter still
/// sees a backlog here and deals to the local replicas.
pub const IN_FLIGHT: usize = 64;

/// The operator of a lane served by a cluster. What its lane holds when it
/// steps goes out as one batch (one message, one wake-up of the cluster's
/// workers, instead of one per item: with one item per message the
/// caller's core spent more on hand-offs than a 6 µs statement, 0.73x of
/// sequential on 2 pinned processes); a batch's results come back as one.
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
    results: Codec<Vec<U>>,
    /// The sizes of the batches out, oldest first.
    batches: VecDeque<usize>,
    in_flight: usize,
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
        (args, results): (Codec<Vec<T>>, Codec<Vec<U>>),
        counts: Arc<LaneBytes>,
    ) -> Self {
        RemoteLane {
            input,
            output,
            stage,
            args,
            results,
            batches: VecDeque::new(),
            in_flight: 0,
            counts,
            closed: false,
        }
    }
}

impl<T: Send, U: Send> Node for RemoteLane<T, U> {
    fn step(&mut self, budget: usize) -> Step {
        let mut work = 0;
        while let Some(&size) = self.batches.front() {
            if self.output.room() < size {
                break;
            }
            match self.stage.try_recv() {
                Some(Ok(bytes)) => {
                    let values = self.results.decode(&bytes).unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(values.len(), size, "ohua: a remote lane's batch came back with another size");
                    self.counts.add_many(size, bytes.len());
                    for value in values {
                        self.output.send(value);
                    }
                    self.batches.pop_front();
                    self.in_flight -= size;
                    work += size;
                }
                Some(Err(e)) => panic!("ohua: a replica in another process failed: {e}"),
                None => break,
            }
        }
        let mut batch = Vec::new();
        while work + batch.len() < budget.max(1) && self.in_flight + batch.len() < IN_FLIGHT {
            match self.input.pop() {
                Some(Packet::Data(item)) => batch.push(item),
                Some(_) => unreachable!("ohua: a replica's lane carries data only"),
                None => break,
            }
        }
        if !batch.is_empty() {
            let mut bytes = Vec::new();
            self.args.encode(&batch, &mut bytes).unwrap_or_else(|e| panic!("{e}"));
            self.counts.add_many(batch.len(), bytes.len());
            self.stage.send(bytes);
            self.batches.push_back(batch.len());
            self.in_flight += batch.len();
            work += batch.len();
        }
        if self.input.is_closed() && self.in_flight == 0 {
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
        format!("remote lane: {} in flight in {} batches", self.in_flight, self.batches.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::RemoteLane;
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
            Codec::<Vec<u64>>::serde().encode(&xs.iter().map(|x| x.0 * 2).collect(), &mut out).unwrap();
            self.0.push_back(out);
        }
        fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
            self.0.pop_front().map(Ok)
        }
        fn close(&mut self) {}
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
