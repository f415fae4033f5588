//! Bounded single-producer single-consumer arcs.
//!
//! Every arc connects exactly one output port to one input port, so an SPSC
//! ring ([`ring`](self) module, protocol in `arc/README.md`) is all the
//! synchronisation an arc needs. A push or pop is a slot write or read; the
//! ring's indices are *published* once per operator step, in
//! [`Sender::flush`] / [`Receiver::flush`], which is also where the other
//! side's section is woken. So arcs carry batches and no thread is woken per
//! message.
//!
//! Arcs whose two ends sit in the same section are built without wakers: the
//! section's own loop notices new data on its next pass.
//!
#![doc = include_str!("README.md")]

mod ring;

pub(crate) use ring::Fill;
pub use ring::{ReadCursor, WriteCursor};

use crate::packet::Packet;
use crate::sync::{Arc, AtomicBool, Ordering, Waker};

/// Create an arc with room for `capacity` packets.
///
/// `consumer` is woken after the sender pushed data; `producer` is woken after
/// the receiver freed room. Pass `None` for ends in the same section.
///
/// Pushed packets become visible to the receiver at the sender's next
/// [`Sender::flush`] (or when the sender is dropped).
///
/// # Example
///
/// A pushed packet is not seen before the flush: see the unit test
/// `a_push_is_seen_after_the_flush`.
pub fn channel<T>(capacity: usize, producer: Option<Waker>, consumer: Option<Waker>) -> (Sender<T>, Receiver<T>) {
    let (p, c) = ring::ring(capacity.max(1));
    let tx = Sender { ring: p, counts_marks: true, hold: Hold::Ignored, wake_consumer: WakeOnDrop(consumer) };
    (tx, Receiver { ring: c, released: false, wake_producer: WakeOnDrop(producer) })
}

/// A push into a full arc: the operator did not check room.
#[cold]
#[inline(never)]
fn push_into_full_arc() -> ! {
    panic!("ohua: push into a full arc (operator did not check room)");
}

/// Wakes the other end's section when dropped.
///
/// It is the *last* field of [`Sender`] and [`Receiver`]: fields drop in
/// declaration order, so the ring end is already dropped (its final index
/// published and the arc marked abandoned) when the wake-up is issued. Waking
/// first would let the woken section look before the abandonment, see an open
/// empty arc, park again, and never be woken (regression test
/// `closing_an_arc_wakes_a_parked_consumer`).
struct WakeOnDrop(Option<Waker>);

impl WakeOnDrop {
    #[inline]
    fn wake(&self) {
        if let Some(w) = &self.0 {
            w.wake();
        }
    }
}

impl Drop for WakeOnDrop {
    fn drop(&mut self) {
        self.wake();
    }
}

/// Whether a producer honours its consumer's hold ([`Sender::consumer_holds`]).
pub(crate) enum Hold {
    /// Never: the producer may block its thread (the loop's cycle runs on
    /// other threads).
    Ignored,
    /// Always: the loop's cycle shares the producer's section.
    Honoured,
    /// While the flag is set: in a run that re-cuts its sections while it
    /// goes on, whether the loop's cycle shares a *thread* with the
    /// producer changes with the groups (`exec/recut.rs` sets the flag).
    While(Arc<AtomicBool>),
}

/// Producing end of an arc.
pub struct Sender<T> {
    ring: ring::Producer<Packet<T>>,
    /// Control markers pushed here count towards the marker's completion
    /// (`update/marker.rs`); not on a loop's feedback arc, where they are
    /// only echoes the loop operator drops (and may outlive it).
    counts_marks: bool,
    /// Whether the producer waits while the consumer holds
    /// ([`Sender::consumer_holds`]); set by the builder where it matters.
    hold: Hold,
    // Must stay the last field: see `WakeOnDrop`.
    wake_consumer: WakeOnDrop,
}

impl<T> Sender<T> {
    /// The sending end of a loop's feedback arc: control markers echoed
    /// into it do not count towards their completion.
    pub(crate) fn feedback(mut self) -> Self {
        self.counts_marks = false;
        self
    }

    /// Whether [`Sender::consumer_holds`] reports the consumer's hold: the
    /// builder sets it for a loop's ticks where the loop's cycle shares a
    /// section with the loop's entry (`exec/builder.rs`, `hold_of`).
    pub(crate) fn holding(mut self, hold: Hold) -> Self {
        self.hold = hold;
        self
    }

    /// Whether [`Sender::consumer_holds`] reports the consumer's hold (set
    /// by the builder where the hold matters).
    #[inline]
    pub fn honours_hold(&self) -> bool {
        match &self.hold {
            Hold::Ignored => false,
            Hold::Honoured => true,
            Hold::While(flag) => flag.load(Ordering::Relaxed),
        }
    }

    /// Whether the consumer waits for an answer to the packet it took last
    /// before it takes another (a `for` loop's carry waiting for the body's
    /// feedback, [`Receiver::hold`]), and the producer should not block
    /// its thread meanwhile: the answer may need this section.
    #[inline]
    pub fn consumer_holds(&self) -> bool {
        self.honours_hold() && self.ring.consumer_holds()
    }

    /// Whether a control marker pushed here counts towards its completion.
    pub(crate) fn counts_marks(&self) -> bool {
        self.counts_marks
    }

    /// Whether the consumer runs in another section (this arc wakes it; an
    /// arc inside a section wakes nobody).
    #[inline]
    pub fn wakes_another_section(&self) -> bool {
        self.wake_consumer.0.is_some()
    }

    /// Free slots right now. An arc whose consumer is gone has unlimited
    /// room: whatever is still sent (e.g. markers echoed into a loop's
    /// feedback after the loop finished) is discarded.
    #[inline]
    pub fn room(&mut self) -> usize {
        self.ring.room()
    }

    /// Free slots, asking the consumer (no caching; for diagnostics).
    pub fn current_room(&self) -> usize {
        self.ring.current_room()
    }

    /// Push one packet; the receiver sees it after the next [`Sender::flush`].
    ///
    /// # Panics
    ///
    /// Panics if the arc is full; operators check [`Sender::room`] first.
    #[inline(always)]
    pub fn push(&mut self, packet: Packet<T>) {
        if self.ring.push(packet).is_err() {
            push_into_full_arc();
        }
    }

    /// Whether the consuming end is gone.
    pub fn is_abandoned(&self) -> bool {
        self.ring.is_abandoned()
    }

    /// A cursor for a run of pushes without per-item room checks (the caller
    /// checks [`Sender::room`] once for the whole run), or `None` if the
    /// consumer is gone. Pushes become visible at the next flush.
    #[inline(always)]
    pub fn write_cursor(&mut self) -> Option<WriteCursor<'_, Packet<T>>> {
        self.ring.write_cursor()
    }

    /// Publish what was pushed since the last flush and wake the consumer if
    /// there was anything.
    #[inline]
    pub fn flush(&mut self) {
        if self.ring.publish() {
            self.wake_consumer.wake();
        }
    }
}

/// Consuming end of an arc.
pub struct Receiver<T> {
    ring: ring::Consumer<Packet<T>>,
    /// A hold was released since the last flush: wake the producer then.
    released: bool,
    // Must stay the last field: see `WakeOnDrop`.
    wake_producer: WakeOnDrop,
}

impl<T> Receiver<T> {
    /// Packets available right now.
    #[inline]
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    /// Whether no packet is available right now.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ring.len() == 0
    }

    /// The next packet, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Packet<T>> {
        self.ring.peek()
    }

    /// Remove and return the next packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet<T>> {
        self.ring.pop()
    }

    /// A gauge of how full this arc is, for the live view; it does not
    /// keep the arc alive.
    #[cfg(not(loom))]
    pub(crate) fn gauge<'t>(&self) -> std::sync::Weak<dyn Fill + 't>
    where
        T: Send + 't,
    {
        self.ring.gauge()
    }

    /// The producer is gone and every packet has been consumed.
    pub fn is_closed(&self) -> bool {
        self.ring.is_closed()
    }

    /// A cursor for a run of pops without per-item availability checks (the
    /// caller checks [`Receiver::len`] once for the whole run).
    #[inline(always)]
    pub fn read_cursor(&mut self) -> ReadCursor<'_, Packet<T>> {
        self.ring.read_cursor()
    }

    /// Say whether this end waits for an answer to the packet it took last
    /// before it takes another ([`Sender::consumer_holds`]). Releasing a
    /// hold wakes the producer at the next flush.
    #[inline]
    pub fn hold(&mut self, holds: bool) {
        self.ring.set_holding(holds);
        self.released |= !holds;
    }

    /// Hand the slots read since the last flush back to the producer and wake
    /// it if there were any (or if a hold was released).
    #[inline]
    pub fn flush(&mut self) {
        if self.ring.publish() | std::mem::take(&mut self.released) {
            self.wake_producer.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::{Arc, Mutex, Waker};

    /// [`channel`]'s example.
    #[test]
    fn a_push_is_seen_after_the_flush() {
        let (mut tx, mut rx) = channel::<u32>(4, None, None);
        tx.push(Packet::Data(7));
        assert_eq!(rx.pop(), None); // not published yet
        tx.flush();
        assert_eq!(rx.pop(), Some(Packet::Data(7)));
    }

    /// A consumer woken because its producer went away must, when it looks,
    /// see the arc closed; otherwise it parks again and is never woken.
    #[test]
    fn closing_an_arc_wakes_a_parked_consumer() {
        let rx_cell: Arc<Mutex<Option<Receiver<u8>>>> = Arc::new(Mutex::new(None));
        let seen_closed: Arc<Mutex<Vec<bool>>> = Arc::new(Mutex::new(Vec::new()));
        let (cell, seen) = (rx_cell.clone(), seen_closed.clone());
        let waker = Waker::hook(move || {
            let closed = cell.lock().unwrap().as_ref().map(Receiver::is_closed);
            seen.lock().unwrap().extend(closed);
        });
        let (tx, rx) = channel::<u8>(2, None, Some(waker));
        *rx_cell.lock().unwrap() = Some(rx);
        drop(tx);
        assert_eq!(*seen_closed.lock().unwrap(), vec![true]);
    }

    /// Likewise a producer woken because its consumer went away must see the
    /// arc abandoned (unlimited room), not full.
    #[test]
    fn dropping_a_consumer_wakes_a_blocked_producer() {
        let tx_cell: Arc<Mutex<Option<Sender<u8>>>> = Arc::new(Mutex::new(None));
        let rooms: Arc<Mutex<Vec<usize>>> = Arc::new(Mutex::new(Vec::new()));
        let (cell, seen) = (tx_cell.clone(), rooms.clone());
        let waker = Waker::hook(move || {
            let room = cell.lock().unwrap().as_ref().map(Sender::current_room);
            seen.lock().unwrap().extend(room);
        });
        let (mut tx, rx) = channel::<u8>(1, Some(waker), None);
        tx.push(Packet::Data(1));
        *tx_cell.lock().unwrap() = Some(tx);
        drop(rx);
        assert_eq!(*rooms.lock().unwrap(), vec![usize::MAX]);
    }
}
