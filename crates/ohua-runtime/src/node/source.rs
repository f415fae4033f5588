//! `source` and `sink`: where a graph's values enter and its result leaves.

use super::slot::ResultSlot;
use super::{Node, Step};
use crate::packet::Packet;
use crate::port::{In, Out};

/// Emits one value (an algorithm argument, or the top-level tick) and finishes.
///
/// # Example
///
/// Done after one step; dropped, it publishes its value and closes its arc:
/// see the unit test `a_source_emits_once_and_closes_its_arc`.
pub struct Source<T> {
    value: Option<T>,
    out: Out<T>,
}

impl<T: Send> Source<T> {
    /// A source of `value`.
    pub fn new(value: T, out: Out<T>) -> Self {
        Source { value: Some(value), out }
    }
}

impl<T: Send> Node for Source<T> {
    fn step(&mut self, _budget: usize) -> Step {
        if self.out.room() == 0 {
            return Step::Blocked;
        }
        if let Some(v) = self.value.take() {
            self.out.send(v);
        }
        Step::Done
    }

    fn flush(&mut self) {
        self.out.flush();
    }
}

/// Receives the algorithm's result (a depth-0 stream) into a `ResultSlot`
/// (`node/slot.rs`).
pub struct Sink<T> {
    input: In<T>,
    slot: ResultSlot<T>,
}

impl<T: Send> Sink<T> {
    /// A sink storing into `slot`.
    pub fn new(input: In<T>, slot: ResultSlot<T>) -> Self {
        Sink { input, slot }
    }
}

impl<T: Send> Node for Sink<T> {
    fn step(&mut self, _budget: usize) -> Step {
        match self.input.pop() {
            Some(Packet::Data(v)) => {
                self.slot.set(v);
                Step::Progress(1)
            }
            Some(Packet::End(l)) => panic!("ohua internal error: marker End({l}) at depth 0"),
            Some(Packet::Mark(m)) => panic!("ohua internal error: control marker {m:?} at depth 0"),
            None if self.input.is_closed() => Step::Done,
            None => Step::Blocked,
        }
    }

    fn flush(&mut self) {
        self.input.flush();
    }

    fn describe(&self) -> String {
        super::describe::ports(&[self.input.describe()], &[])
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Source`'s example.
    #[test]
    fn a_source_emits_once_and_closes_its_arc() {
        use crate::{
            arc::channel,
            node::{source::Source, Node, Step},
            port::Out,
        };
        let (tx, mut rx) = channel::<&str>(1, None, None);
        let mut s = Source::new("arg", Out::new(vec![tx]));
        assert_eq!(s.step(1), Step::Done);
        drop(s); // a section drops a finished node, which publishes and closes its arcs
        assert!(rx.pop().is_some());
        assert!(rx.is_closed());
    }
}
