//! A replica's lane served by a cluster for a call that reads captured
//! values (sticky inputs, `sticky.rs`): each item goes out with the values
//! it would have been called with.
//!
//! ```text
//! lane ─▶ Call: item ↦ (item, values) ─▶ RemoteLane ─▶ lane back
//!          (holds and releases the            (pairs out as bytes,
//!           replica's copies, as any           results and ends of
//!           replica does)                      activations back in order)
//! ```
//!
//! The values are a call's read-only captures (the compiler replicates a
//! call only for values of a `Clone` type that nothing in the loop
//! mutates), so the copy each pair carries is the value every replica
//! reads. They travel with every item: a captured value of a few bytes
//! costs a few bytes per item; a big one (a table) costs its size per
//! item.

use super::remote_lane::RemoteLane;
use super::{Node, Step};

/// A [`super::call::Call`] that pairs each item with its values, and the
/// [`RemoteLane`] that sends the pairs, as one operator on one thread:
/// the arc between them is local and each step runs both.
///
/// # Example
///
/// A pair of `(item, values)` through a stage that answers at once: see
/// the unit test `a_captured_value_goes_out_with_every_item`.
pub struct RemoteWithValues<C, T, U> {
    /// The pairing call; dropped when it is done, which closes the lane's
    /// input.
    pairing: Option<C>,
    lane: RemoteLane<T, U>,
}

impl<C, T, U> RemoteWithValues<C, T, U> {
    /// `pairing` feeds `lane` through a local arc.
    pub fn new(pairing: C, lane: RemoteLane<T, U>) -> Self {
        RemoteWithValues { pairing: Some(pairing), lane }
    }
}

impl<C: Node, T: Send, U: Send> Node for RemoteWithValues<C, T, U> {
    fn step(&mut self, budget: usize) -> Step {
        let paired = match self.pairing.as_mut().map(|c| c.step(budget)) {
            Some(Step::Done) => {
                // Closes the arc into the lane.
                self.pairing = None;
                1
            }
            Some(Step::Progress(n)) => n,
            Some(Step::Blocked) | None => 0,
        };
        // The lane's flush hands the pairs on (its input is local: the
        // pairing call's output is flushed first).
        if let Some(c) = self.pairing.as_mut() {
            c.flush();
        }
        match self.lane.step(budget) {
            Step::Done if self.pairing.is_none() => Step::Done,
            Step::Done => Step::after(paired),
            Step::Progress(n) => Step::Progress(n + paired),
            Step::Blocked => Step::after(paired),
        }
    }

    fn flush(&mut self) {
        if let Some(c) = self.pairing.as_mut() {
            c.flush();
        }
        self.lane.flush();
    }

    fn describe(&self) -> String {
        let pairing = self.pairing.as_ref().map_or_else(|| "done".to_string(), |c| c.describe());
        format!("pairing with captured values: {pairing}; {}", self.lane.describe())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::RemoteWithValues;
    use crate::arc::channel;
    use crate::codec::{Codec, LaneBytes};
    use crate::node::call::Call;
    use crate::node::remote_lane::RemoteLane;
    use crate::node::sticky::Sticky;
    use crate::node::{Node, Step};
    use crate::packet::Packet;
    use crate::port::{In, Out};
    use crate::remote::RemoteStage;
    use crate::sync::process::Arc;

    /// Answers each pair `(x, (w,))` with `x * w` at once, as a process
    /// serving the statement `x * w` would.
    struct Weighing(VecDeque<Vec<u8>>);

    impl RemoteStage for Weighing {
        fn send(&mut self, batch: Vec<u8>) {
            let pairs: Vec<(u64, (u64,))> = Codec::serde().decode(&batch).unwrap();
            let mut out = Vec::new();
            let weighed = pairs.iter().map(|(x, (w,))| x * w).collect();
            Codec::<Result<Vec<u64>, String>>::serde().encode(&Ok(weighed), &mut out).unwrap();
            self.0.push_back(out);
        }
        fn try_recv(&mut self) -> Option<Result<Vec<u8>, String>> {
            self.0.pop_front().map(Ok)
        }
        fn close(&mut self) {}
    }

    /// Two activations, each with its own captured value: every item goes
    /// out with its activation's value, results and ends come back in
    /// order, and each copy is released at its activation's end.
    #[test]
    fn a_captured_value_goes_out_with_every_item() {
        let (mut data, data_rx) = channel::<u64>(16, None, None);
        let (mut weights, weights_rx) = channel::<u64>(4, None, None);
        let (release_tx, mut released) = channel::<u64>(4, None, None);
        let (out_tx, mut out) = channel::<u64>(16, None, None);
        let (pairs_tx, pairs_rx) = channel::<(u64, (u64,))>(4, None, None);
        let sticky = (Sticky::new(In::new(weights_rx), 0, Out::new(vec![release_tx])),);
        let pairing =
            Call::new((In::new(data_rx),), sticky, (Out::new(vec![pairs_tx]),), |(x,): (u64,), values: (u64,)| {
                (values, ((x, values),))
            });
        let counts = Arc::new(LaneBytes::default());
        let codecs = (Codec::serde(), Codec::serde());
        let lane = RemoteLane::new(
            In::new(pairs_rx),
            Out::new(vec![out_tx]),
            Box::new(Weighing(VecDeque::new())),
            codecs,
            counts,
        );
        let mut node = RemoteWithValues::new(pairing, lane);
        for p in [
            Packet::Data(1),
            Packet::Data(2),
            Packet::End(0),
            Packet::Data(3),
            Packet::Data(4),
            Packet::Data(5),
            Packet::End(0),
        ] {
            data.push(p);
        }
        data.flush();
        drop(data);
        for w in [10, 100] {
            weights.push(Packet::Data(w));
        }
        weights.flush();
        drop(weights);
        let mut got = Vec::new();
        for _ in 0..50 {
            let step = node.step(64);
            node.flush();
            got.extend(std::iter::from_fn(|| out.pop()));
            if step == Step::Done {
                break;
            }
        }
        let want = [
            Packet::Data(10),
            Packet::Data(20),
            Packet::End(0),
            Packet::Data(300),
            Packet::Data(400),
            Packet::Data(500),
            Packet::End(0),
        ];
        assert_eq!(got, want);
        assert_eq!(
            std::iter::from_fn(|| released.pop()).collect::<Vec<_>>(),
            vec![Packet::Data(10), Packet::Data(100)]
        );
    }
}
