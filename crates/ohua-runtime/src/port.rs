//! Operator ports: an [`In`] reads one arc; an [`Out`] writes to every arc
//! that consumes one output (fan-out clones the value for all but the last).

use crate::arc::{ReadCursor, Receiver, Sender, WriteCursor};
use crate::packet::{Level, Mark, Packet};

/// An input port: the consuming end of one arc.
///
/// # Example
///
/// What an [`Out`] sent is seen after its flush: see the unit test
/// `a_value_sent_is_read_after_the_flush`.
pub struct In<T> {
    rx: Receiver<T>,
}

impl<T> In<T> {
    /// Wrap the consuming end of an arc.
    pub fn new(rx: Receiver<T>) -> Self {
        In { rx }
    }

    /// An input that is closed from the start (for ports a fused operator
    /// never reads).
    pub(crate) fn detached() -> Self {
        In::new(crate::arc::channel(1, None, None).1)
    }

    /// The next packet, if one is available.
    #[inline]
    pub fn peek(&self) -> Option<&Packet<T>> {
        self.rx.peek()
    }

    /// Take the next packet, if one is available.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet<T>> {
        self.rx.pop()
    }

    /// Packets available now.
    #[inline]
    pub fn available(&self) -> usize {
        self.rx.len()
    }

    /// The producer finished and every packet was consumed.
    #[inline]
    pub fn is_closed(&self) -> bool {
        self.rx.is_closed()
    }

    /// Say whether this operator waits for an answer to the packet it took
    /// last before it takes another (see [`Out::consumer_holds`]).
    #[inline]
    pub fn hold(&mut self, holds: bool) {
        self.rx.hold(holds)
    }

    /// Wake the producer if this port consumed anything since the last flush.
    #[inline]
    pub fn flush(&mut self) {
        self.rx.flush()
    }

    /// A cursor for a run of pops; see [`Receiver::read_cursor`].
    #[inline(always)]
    pub fn cursor(&mut self) -> ReadCursor<'_, Packet<T>> {
        self.rx.read_cursor()
    }

    /// `head/available`, e.g. `D/3`, `E1/1`, `-/0` or `closed`, for diagnostics.
    #[inline(never)]
    pub fn describe(&self) -> String {
        let head = match self.peek() {
            Some(Packet::Data(_)) => Some(None),
            Some(Packet::End(l)) => Some(Some(*l)),
            Some(Packet::Mark(m)) => return format!("M{}.{}/{}", m.level, m.id, self.available()),
            None => None,
        };
        head_text(head, self.available(), self.is_closed())
    }
}

/// The text of [`In::describe`], formatted once for all packet types
/// (`head`: data, an end marker of a level, or nothing).
fn head_text(head: Option<Option<Level>>, available: usize, closed: bool) -> String {
    match head {
        Some(None) => format!("D/{available}"),
        Some(Some(l)) => format!("E{l}/{available}"),
        None if closed => "closed".into(),
        None => "-/0".into(),
    }
}

/// The text of [`Out::describe`] (`usize::MAX`: no consumer).
fn room_text(room: usize) -> String {
    match room {
        usize::MAX => "inf".into(),
        n => format!("room {n}"),
    }
}

/// An output port: zero or more arcs that each receive every packet.
pub struct Out<T> {
    txs: Vec<Sender<T>>,
    clone: Option<fn(&T) -> T>,
}

impl<T> Out<T> {
    /// An output with at most one consumer (no `Clone` needed).
    ///
    /// # Panics
    ///
    /// Panics if given more than one arc; use [`Out::fanout`].
    pub fn new(txs: Vec<Sender<T>>) -> Self {
        assert!(txs.len() <= 1, "ohua: Out::new with several arcs needs Out::fanout");
        Out { txs, clone: None }
    }

    /// An output whose value is cloned to several consumers.
    pub fn fanout(txs: Vec<Sender<T>>, clone: fn(&T) -> T) -> Self {
        Out { txs, clone: Some(clone) }
    }

    /// One output cloned to the consumers of several single-consumer
    /// outputs (as [`crate::exec::Builder::ports`] creates them).
    ///
    /// # Example
    ///
    /// See the unit test `a_fanned_output_sends_to_every_consumer`.
    pub fn fan(outs: Vec<Out<T>>, clone: fn(&T) -> T) -> Self {
        Out { txs: outs.into_iter().flat_map(|o| o.txs).collect(), clone: Some(clone) }
    }

    /// An output nobody consumes: values are dropped.
    pub fn none() -> Self {
        Out { txs: Vec::new(), clone: None }
    }

    /// Packets that can be sent without overflowing any arc.
    #[inline]
    pub fn room(&mut self) -> usize {
        match self.txs.as_mut_slice() {
            [] => usize::MAX,
            [one] => one.room(),
            many => many.iter_mut().map(Sender::room).min().unwrap_or(usize::MAX),
        }
    }

    /// Whether an arc of this output into another section is full: its
    /// consumer's thread will give room, not this section (for
    /// `node::blocking::held_for_room`). Off the hot path.
    pub fn full_into_another_section(&mut self) -> bool {
        self.txs.iter_mut().any(|tx| tx.wakes_another_section() && tx.room() == 0)
    }

    /// Whether a consumer waits for an answer to the packet it took last
    /// before it takes another, where that answer may need this section
    /// (`arc::Sender::consumer_holds`): a loop entry then does not call a
    /// source's `next()` that may block.
    #[inline]
    pub fn consumer_holds(&self) -> bool {
        self.txs.iter().any(Sender::consumer_holds)
    }

    /// Whether a consumer may hold ([`Out::consumer_holds`]): the port
    /// feeds a loop whose cycle shares this section.
    #[inline]
    pub fn may_hold(&self) -> bool {
        self.txs.iter().any(Sender::honours_hold)
    }

    /// Send one value to every consumer. The caller checked [`Out::room`].
    #[inline(always)]
    pub fn send(&mut self, v: T) {
        // The one-consumer case is the hot path of every pipeline: keep it
        // small enough to inline into the operator's loop.
        if let [one] = self.txs.as_mut_slice() {
            one.push(Packet::Data(v));
        } else {
            self.send_many(v);
        }
    }

    /// Fan-out (clones for all but the last consumer) or no consumer at all.
    #[inline(never)]
    fn send_many(&mut self, v: T) {
        let n = self.txs.len();
        if n == 0 {
            return;
        }
        let clone = self.clone.expect("fan-out port built without a clone function");
        for tx in &mut self.txs[..n - 1] {
            tx.push(Packet::Data(clone(&v)));
        }
        self.txs[n - 1].push(Packet::Data(v));
    }

    /// Send an end-of-activation marker to every consumer.
    #[inline]
    pub fn send_end(&mut self, level: Level) {
        for tx in &mut self.txs {
            tx.push(Packet::End(level));
        }
    }

    /// Send a control marker to every consumer; returns how many arcs it
    /// went into (for the marker's count, `update/marker.rs`).
    #[inline(never)]
    pub fn send_mark(&mut self, mark: Mark) -> usize {
        let mut counted = 0;
        for tx in &mut self.txs {
            tx.push(Packet::Mark(mark));
            counted += usize::from(tx.counts_marks());
        }
        counted
    }

    /// How many arcs this output feeds.
    pub fn arcs(&self) -> usize {
        self.txs.len()
    }

    /// A cursor for a run of sends without per-item room checks, or `None`
    /// when the output fans out (values need cloning) or its consumer is
    /// gone: the caller then uses [`Out::send`].
    #[inline(always)]
    pub fn cursor(&mut self) -> Option<OutCursor<'_, T>> {
        match self.txs.as_mut_slice() {
            [] => Some(OutCursor::Discard),
            [one] => one.write_cursor().map(OutCursor::One),
            _ => None,
        }
    }

    /// `room` as text (`inf` when unconnected), for diagnostics.
    #[inline(never)]
    pub fn describe(&self) -> String {
        room_text(self.txs.iter().map(Sender::current_room).min().unwrap_or(usize::MAX))
    }

    /// Whether any arc is attached.
    pub fn is_connected(&self) -> bool {
        !self.txs.is_empty()
    }

    /// Wake consumers that received packets since the last flush.
    #[inline]
    pub fn flush(&mut self) {
        for tx in &mut self.txs {
            tx.flush();
        }
    }
}

/// The write position of an [`Out`] with at most one consumer, lent for a run
/// of sends (see [`Out::cursor`]).
pub enum OutCursor<'a, T> {
    /// Writes into the one consumer's arc.
    One(WriteCursor<'a, Packet<T>>),
    /// Nobody consumes this output: values are dropped.
    Discard,
}

impl<T> OutCursor<'_, T> {
    /// Send a value.
    ///
    /// # Safety
    ///
    /// The caller saw [`Out::room`] greater than the number of packets sent
    /// through this cursor so far.
    #[inline(always)]
    pub unsafe fn send(&mut self, v: T) {
        if let OutCursor::One(w) = self {
            w.push(Packet::Data(v));
        }
    }

    /// Send an end-of-activation marker.
    ///
    /// # Safety
    ///
    /// As for [`OutCursor::send`].
    #[inline]
    pub unsafe fn send_end(&mut self, level: Level) {
        if let OutCursor::One(w) = self {
            w.push(Packet::End(level));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{In, Out};
    use crate::arc::channel;
    use crate::packet::Packet;

    /// [`In`]'s example.
    #[test]
    fn a_value_sent_is_read_after_the_flush() {
        let (tx, rx) = channel::<u8>(2, None, None);
        let (mut out, mut inp) = (Out::new(vec![tx]), In::new(rx));
        out.send(5);
        assert_eq!(inp.pop(), None); // sent, not yet published
        out.flush();
        assert_eq!(inp.pop(), Some(Packet::Data(5)));
    }

    /// [`Out::fan`]'s example.
    #[test]
    fn a_fanned_output_sends_to_every_consumer() {
        let (a, ra) = channel::<u8>(2, None, None);
        let (b, rb) = channel::<u8>(2, None, None);
        let mut out = Out::fan(vec![Out::new(vec![a]), Out::new(vec![b])], Clone::clone);
        out.send(7);
        out.flush();
        assert_eq!((In::new(ra).pop(), In::new(rb).pop()), (Some(Packet::Data(7)), Some(Packet::Data(7))));
    }
}
