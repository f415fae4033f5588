//! Bounded single-producer single-consumer arcs.
//!
//! Every arc connects exactly one output port to one input port, so a
//! wait-free SPSC ring buffer ([`rtrb`]) is all the synchronisation an arc
//! needs. Pushing or popping one packet is a plain load/store pair on x86; a
//! *wake-up* of the other side's section is only issued once per operator step
//! (see [`Sender::flush`] / [`Receiver::flush`]), never per message.
//!
//! Arcs whose two ends sit in the same section are built without wakers: the
//! section's own loop notices new data on its next pass.

use crate::packet::Packet;
use crate::sync::Waker;

/// Create an arc with room for `capacity` packets.
///
/// `consumer` is woken after the sender pushed data; `producer` is woken after
/// the receiver freed room. Pass `None` for ends in the same section.
///
/// # Example
///
/// ```
/// use ohua_runtime::arc::channel;
/// use ohua_runtime::packet::Packet;
/// let (mut tx, mut rx) = channel::<u32>(4, None, None);
/// tx.push(Packet::Data(7));
/// assert_eq!(rx.pop(), Some(Packet::Data(7)));
/// ```
pub fn channel<T>(capacity: usize, producer: Option<Waker>, consumer: Option<Waker>) -> (Sender<T>, Receiver<T>) {
    let (p, c) = rtrb::RingBuffer::new(capacity.max(1));
    (
        Sender { ring: p, known_room: 0, wake_consumer: WakeOnDrop(consumer), dirty: false },
        Receiver { ring: c, wake_producer: WakeOnDrop(producer), dirty: false },
    )
}

/// A push failed: fine if nobody reads the arc any more, a bug otherwise.
#[cold]
#[inline(never)]
fn full_or_abandoned(abandoned: bool) {
    assert!(abandoned, "ohua: push into a full arc (operator did not check room)");
}

/// Wakes the other end's section when dropped.
///
/// It is the *last* field of [`Sender`] and [`Receiver`]: fields drop in
/// declaration order, so the ring end is already dropped (the arc is marked
/// abandoned) when the wake-up is issued. Waking first would let the woken
/// section look before the abandonment, see an open empty arc, park again, and
/// never be woken (regression test `closing_an_arc_wakes_a_parked_consumer`).
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

/// Producing end of an arc.
pub struct Sender<T> {
    ring: rtrb::Producer<Packet<T>>,
    /// Slots known to be free without asking the ring. Asking reads the
    /// consumer's index, a cache line the consumer writes on every pop: done
    /// per item across cores it would cost a cache miss per message.
    known_room: usize,
    dirty: bool,
    // Must stay the last field: see `WakeOnDrop`.
    wake_consumer: WakeOnDrop,
}

impl<T> Sender<T> {
    /// Free slots right now. An arc whose consumer is gone has unlimited
    /// room: whatever is still sent (e.g. markers echoed into a loop's
    /// feedback after the loop finished) is discarded.
    #[inline]
    pub fn room(&mut self) -> usize {
        if self.known_room == 0 {
            self.known_room = match self.ring.slots() {
                0 if self.ring.is_abandoned() => usize::MAX,
                n => n,
            };
        }
        self.known_room
    }

    /// Free slots, asking the ring (no caching; for diagnostics).
    pub fn current_room(&self) -> usize {
        match self.ring.slots() {
            0 if self.ring.is_abandoned() => usize::MAX,
            n => n,
        }
    }

    /// Push one packet.
    ///
    /// # Panics
    ///
    /// Panics if the arc is full; operators check [`Sender::room`] first.
    #[inline(always)]
    pub fn push(&mut self, packet: Packet<T>) {
        if self.ring.push(packet).is_err() {
            full_or_abandoned(self.ring.is_abandoned());
        }
        self.known_room = self.known_room.saturating_sub(1);
        self.dirty = true;
    }

    /// Whether the consuming end is gone.
    pub fn is_abandoned(&self) -> bool {
        self.ring.is_abandoned()
    }

    /// Wake the consumer if anything was pushed since the last flush.
    #[inline]
    pub fn flush(&mut self) {
        if std::mem::take(&mut self.dirty) {
            self.wake_consumer.wake();
        }
    }
}

/// Consuming end of an arc.
pub struct Receiver<T> {
    ring: rtrb::Consumer<Packet<T>>,
    dirty: bool,
    // Must stay the last field: see `WakeOnDrop`.
    wake_producer: WakeOnDrop,
}

impl<T> Receiver<T> {
    /// Packets available right now.
    #[inline]
    pub fn len(&self) -> usize {
        self.ring.slots()
    }

    /// Whether no packet is available right now.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// The next packet, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<&Packet<T>> {
        self.ring.peek().ok()
    }

    /// Remove and return the next packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet<T>> {
        let p = self.ring.pop().ok();
        if p.is_some() {
            self.dirty = true;
        }
        p
    }

    /// The producer is gone and every packet has been consumed.
    pub fn is_closed(&self) -> bool {
        self.ring.is_abandoned() && self.ring.is_empty()
    }

    /// Wake the producer if room was freed since the last flush.
    #[inline]
    pub fn flush(&mut self) {
        if std::mem::take(&mut self.dirty) {
            self.wake_producer.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::{Arc, Mutex, Waker};

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
