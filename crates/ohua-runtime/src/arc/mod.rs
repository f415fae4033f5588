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
        Sender { ring: p, wake_consumer: consumer, dirty: false },
        Receiver { ring: c, wake_producer: producer, dirty: false },
    )
}

/// Producing end of an arc.
pub struct Sender<T> {
    ring: rtrb::Producer<Packet<T>>,
    wake_consumer: Option<Waker>,
    dirty: bool,
}

impl<T> Sender<T> {
    /// Free slots right now. An arc whose consumer is gone has unlimited
    /// room: whatever is still sent (e.g. markers echoed into a loop's
    /// feedback after the loop finished) is discarded.
    #[inline]
    pub fn room(&self) -> usize {
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
    #[inline]
    pub fn push(&mut self, packet: Packet<T>) {
        if self.ring.push(packet).is_err() && !self.ring.is_abandoned() {
            panic!("ohua: push into a full arc (operator did not check room)");
        }
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
            if let Some(w) = &self.wake_consumer {
                w.wake();
            }
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        // The consumer must learn that the stream ended even if it is parked.
        if let Some(w) = &self.wake_consumer {
            w.wake();
        }
    }
}

/// Consuming end of an arc.
pub struct Receiver<T> {
    ring: rtrb::Consumer<Packet<T>>,
    wake_producer: Option<Waker>,
    dirty: bool,
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
            if let Some(w) = &self.wake_producer {
                w.wake();
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Some(w) = &self.wake_producer {
            w.wake();
        }
    }
}
