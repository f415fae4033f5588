//! `await`: passes on the answers of a `submit` operator's fetches, in
//! order, as their batches answer (`io/`).

use std::collections::VecDeque;

use super::marks::{self, Attach, Marks};
use super::{Node, Step};
use crate::io::{Origin, Pending};
use crate::packet::Packet;
use crate::port::{In, Out};

/// Takes every pending answer as it comes (so the fetches behind it keep
/// joining the run's next batch) and sends the answers on in their order,
/// each as soon as it and all before it have arrived. End markers keep
/// their place among the answers.
///
/// # Example
///
/// An answer that is ready is taken and sent on in one step: see the unit
/// test `a_ready_answer_is_sent_on`.
pub struct Await<T> {
    input: In<Pending<T>>,
    output: Out<T>,
    waiting: VecDeque<Packet<Pending<T>>>,
    /// The operator's node id, for the explain report.
    node: Option<u32>,
    origins: Vec<Origin>,
    marks: Option<Marks>,
}

impl<T> Await<T> {
    /// Build the operator.
    pub fn new(input: In<Pending<T>>, output: Out<T>) -> Self {
        Await { input, output, waiting: VecDeque::new(), node: None, origins: Vec::new(), marks: None }
    }

    /// The operator is node `node` of its graph: record where its answers
    /// come from for the run's explain report
    /// ([`crate::report::RunReport::explain_io`]).
    pub fn at(mut self, node: u32) -> Self {
        self.node = Some(node);
        self
    }
}

impl<T: Send> Node for Await<T> {
    fn step(&mut self, budget: usize) -> Step {
        let mut work = 0;
        // Take everything: a request behind an unanswered one must not wait
        // for it to be submitted (it would miss the batch).
        while let Some(p) = self.input.pop() {
            if let (Packet::Data(pending), Some(_)) = (&p, self.node) {
                self.origins.extend(pending.origin());
            }
            self.waiting.push_back(p);
            work += 1;
        }
        if let (Some(node), false) = (self.node, self.origins.is_empty()) {
            crate::io::record_sites(node, &self.origins);
            self.origins.clear();
        }
        // Then pass on up to `budget` answers, in order, while they are in.
        let mut sent = 0;
        let room = self.output.room().min(budget.max(1));
        while sent < room {
            let Some(front) = self.waiting.front_mut() else { break };
            match front {
                Packet::End(level) => {
                    let level = *level;
                    self.waiting.pop_front();
                    self.output.send_end(level);
                }
                Packet::Mark(m) => {
                    let m = *m;
                    self.waiting.pop_front();
                    let forwarded = self.output.send_mark(m);
                    marks::passed(&mut self.marks, m, 1, forwarded);
                }
                Packet::Data(pending) => {
                    let Some(value) = pending.poll() else { break };
                    self.waiting.pop_front();
                    self.output.send(value);
                }
            }
            sent += 1;
        }
        work += sent;
        if work == 0 && self.waiting.is_empty() && self.input.is_closed() {
            return Step::Done;
        }
        Step::after(work)
    }

    fn flush(&mut self) {
        self.input.flush();
        self.output.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        format!("await in {} waiting {} out {}", self.input.describe(), self.waiting.len(), self.output.describe())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Await`'s example.
    #[test]
    fn a_ready_answer_is_sent_on() {
        use crate::{
            arc::channel,
            io::Pending,
            node::{await_io::Await, Node, Step},
            packet::Packet,
            port::{In, Out},
        };
        let (mut tx, rx) = channel::<Pending<u32>>(4, None, None);
        let (otx, mut orx) = channel::<u32>(4, None, None);
        let mut node = Await::new(In::new(rx), Out::new(vec![otx]));
        tx.push(Packet::Data(Pending::ready(7)));
        tx.flush();
        assert_eq!(node.step(8), Step::Progress(2)); // taken, then sent
        node.flush();
        assert_eq!(orx.pop(), Some(Packet::Data(7)));
    }
}
