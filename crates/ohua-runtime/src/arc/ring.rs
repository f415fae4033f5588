//! The bounded SPSC ring under every arc, with *deferred publication*.
//!
//! Why our own ring instead of `rtrb` (which this module replaced): a ring
//! that publishes its index on every push and pop pays a release store and a
//! reload of the other side's index per item, and the operator cannot hoist
//! either out of its loop. Here each end keeps a private index and
//! publishes it once per operator step ([`Producer::publish`],
//! [`Consumer::publish`]), so an arc carries *batches* even when the
//! operators move single items, and a push or pop inside a step is a slot
//! write or read plus a private counter increment. Measured on the 20-stage
//! chain benchmark (BENCHMARKS.md): see the notes there. The protocol is in
//! `arc/README.md`.
//!
//! Indices grow without bound (wrapping `usize`); a slot is `index & mask`.
//! The buffer has a power-of-two size, `capacity` (the room the arc reports)
//! can be any size up to it.

use std::cell::Cell;

use crate::sync::{Arc, AtomicBool, AtomicUsize, CachePadded, Ordering, SlotCell};

/// The storage shared by the two ends.
struct Ring<T> {
    slots: Vec<SlotCell<T>>,
    mask: usize,
    capacity: usize,
    /// Next index to read, as last published by the consumer.
    head: CachePadded<AtomicUsize>,
    /// Next index to write, as last published by the producer.
    tail: CachePadded<AtomicUsize>,
    producer_gone: AtomicBool,
    consumer_gone: AtomicBool,
    /// The consumer waits for an answer to what it took last before it
    /// takes more (a loop's carry awaiting the body's feedback): see
    /// [`Consumer::set_holding`].
    consumer_holds: AtomicBool,
}

// SAFETY: the slots hold `T`s that move between threads (needs `T: Send`);
// every slot is accessed by one end at a time, handed over by the
// release/acquire pairs on `head` and `tail`.
unsafe impl<T: Send> Sync for Ring<T> {}
unsafe impl<T: Send> Send for Ring<T> {}

impl<T> Ring<T> {
    #[inline(always)]
    fn slot(&self, index: usize) -> &SlotCell<T> {
        // SAFETY: `mask` is `slots.len() - 1` and `slots.len()` is a power of two.
        unsafe { self.slots.get_unchecked(index & self.mask) }
    }
}

impl<T> Drop for Ring<T> {
    fn drop(&mut self) {
        // Both ends published their final index before letting go of the
        // ring, and we are the last owner: `[head, tail)` is exactly the set
        // of written, unread slots.
        let head = self.head.load(Ordering::Acquire);
        let tail = self.tail.load(Ordering::Acquire);
        let mut i = head;
        while i != tail {
            // SAFETY: slot `i` was written and never read.
            unsafe { self.slot(i).drop_in_place() };
            i = i.wrapping_add(1);
        }
        // Every slot is empty now: the next run's ring may take the buffer.
        SlotCell::recycle(std::mem::take(&mut self.slots));
    }
}

/// How full a ring is, read from outside its two ends (the live view's
/// back-pressure column, `live/counts.rs`). Only the indices the ends
/// *published* are read, so it lags by at most one operator step, and the
/// ends do nothing for it.
pub(crate) trait Fill: Send + Sync {
    /// Items in the ring over its capacity, 0.0 to 1.0.
    fn fill(&self) -> f64;
}

impl<T: Send> Fill for Ring<T> {
    fn fill(&self) -> f64 {
        // The head first: read the other way round, a consumer that caught
        // up in between could make the tail look behind the head.
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Relaxed);
        (tail.wrapping_sub(head).min(self.capacity) as f64 / self.capacity as f64).clamp(0.0, 1.0)
    }
}

/// A ring with room for `capacity` items (at least 1).
pub(crate) fn ring<T>(capacity: usize) -> (Producer<T>, Consumer<T>) {
    let capacity = capacity.max(1);
    let size = capacity.next_power_of_two();
    // Not touched one by one (see `SlotCell::empty_slots`): an iterator
    // chain here was compiled once per arc type into some hundred lines of
    // LLVM IR (`cargo llvm-lines`), and a loop cost milliseconds per run.
    let slots = SlotCell::empty_slots(size);
    let ring = Arc::new(Ring {
        slots,
        mask: size - 1,
        capacity,
        head: CachePadded::new(AtomicUsize::new(0)),
        tail: CachePadded::new(AtomicUsize::new(0)),
        producer_gone: AtomicBool::new(false),
        consumer_gone: AtomicBool::new(false),
        consumer_holds: AtomicBool::new(false),
    });
    let producer = Producer { ring: ring.clone(), tail: 0, published: 0, head_seen: 0, abandoned: false };
    let consumer = Consumer { ring, head: 0, published: 0, tail_seen: Cell::new(0) };
    (producer, consumer)
}

/// The writing end.
pub(crate) struct Producer<T> {
    ring: Arc<Ring<T>>,
    /// Next index to write (private until published).
    tail: usize,
    /// The last published tail.
    published: usize,
    /// The consumer's head as last read; refreshed only when the ring looks full.
    head_seen: usize,
    /// The consumer is gone: whatever is pushed is dropped.
    abandoned: bool,
}

impl<T> Producer<T> {
    /// Free slots. Reads the consumer's index only when the cached view says
    /// full, so a producer running ahead touches the shared line once per lap.
    #[inline]
    pub(crate) fn room(&mut self) -> usize {
        let used = self.tail.wrapping_sub(self.head_seen);
        if used < self.ring.capacity {
            return self.ring.capacity - used;
        }
        self.refresh_room()
    }

    #[cold]
    fn refresh_room(&mut self) -> usize {
        if self.abandoned || self.ring.consumer_gone.load(Ordering::Acquire) {
            self.abandoned = true;
            return usize::MAX;
        }
        self.head_seen = self.ring.head.load(Ordering::Acquire);
        self.ring.capacity - self.tail.wrapping_sub(self.head_seen)
    }

    /// Free slots, asking the consumer (diagnostics; no caching).
    pub(crate) fn current_room(&self) -> usize {
        if self.ring.consumer_gone.load(Ordering::Acquire) {
            return usize::MAX;
        }
        self.ring.capacity - self.tail.wrapping_sub(self.ring.head.load(Ordering::Acquire))
    }

    /// Write one item. Returns it back if the ring is full (and the consumer
    /// still there); drops it if the consumer is gone.
    #[inline(always)]
    pub(crate) fn push(&mut self, item: T) -> Result<(), T> {
        if self.tail.wrapping_sub(self.head_seen) >= self.ring.capacity && self.refresh_room() == 0 {
            return Err(item);
        }
        if self.abandoned {
            drop(item);
            return Ok(());
        }
        // SAFETY: the slot is free: `tail - head_seen < capacity <= slots`,
        // and the consumer never reads past the published tail.
        unsafe { self.ring.slot(self.tail).write(item) };
        self.tail = self.tail.wrapping_add(1);
        Ok(())
    }

    /// Make every pushed item visible to the consumer; whether there were any.
    #[inline]
    pub(crate) fn publish(&mut self) -> bool {
        if self.tail == self.published {
            return false;
        }
        self.ring.tail.store(self.tail, Ordering::Release);
        self.published = self.tail;
        true
    }

    /// Whether the consumer is gone.
    pub(crate) fn is_abandoned(&self) -> bool {
        self.ring.consumer_gone.load(Ordering::Acquire)
    }

    /// Whether the consumer said it holds ([`Consumer::set_holding`]).
    /// Relaxed: a stale answer costs one more pass or one wake-up, and the
    /// wake-up after a release is ordered by the sections' fences.
    #[inline]
    pub(crate) fn consumer_holds(&self) -> bool {
        self.ring.consumer_holds.load(Ordering::Relaxed)
    }
}

impl<T> Drop for Producer<T> {
    fn drop(&mut self) {
        self.publish();
        self.ring.producer_gone.store(true, Ordering::Release);
    }
}

/// The reading end.
pub(crate) struct Consumer<T> {
    ring: Arc<Ring<T>>,
    /// Next index to read (private until published).
    head: usize,
    /// The last published head.
    published: usize,
    /// The producer's tail as last read; refreshed only when the ring looks empty.
    tail_seen: Cell<usize>,
}

impl<T> Consumer<T> {
    /// Items available now. Reads the producer's index only when the cached
    /// view says empty.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        let n = self.tail_seen.get().wrapping_sub(self.head);
        if n > 0 {
            return n;
        }
        self.refresh()
    }

    #[inline]
    fn refresh(&self) -> usize {
        let tail = self.ring.tail.load(Ordering::Acquire);
        self.tail_seen.set(tail);
        tail.wrapping_sub(self.head)
    }

    /// The next item, without removing it.
    #[inline(always)]
    pub(crate) fn peek(&self) -> Option<&T> {
        if self.len() == 0 {
            return None;
        }
        // SAFETY: `head < tail_seen`: the slot was written and published.
        Some(unsafe { self.ring.slot(self.head).get_ref() })
    }

    /// Remove the next item.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.len() == 0 {
            return None;
        }
        // SAFETY: as in `peek`; advancing `head` marks the slot moved out.
        let item = unsafe { self.ring.slot(self.head).read() };
        self.head = self.head.wrapping_add(1);
        Some(item)
    }

    /// Tell the producer whether this end waits for an answer to what it
    /// took last before it takes more (`Producer::consumer_holds`).
    #[inline]
    pub(crate) fn set_holding(&self, holds: bool) {
        self.ring.consumer_holds.store(holds, Ordering::Relaxed);
    }

    /// Hand every read slot back to the producer; whether there were any.
    #[inline]
    pub(crate) fn publish(&mut self) -> bool {
        if self.head == self.published {
            return false;
        }
        self.ring.head.store(self.head, Ordering::Release);
        self.published = self.head;
        true
    }

    /// A gauge of the ring's fill that does not keep it alive ([`Fill`]).
    #[cfg(not(loom))]
    pub(crate) fn gauge<'t>(&self) -> std::sync::Weak<dyn Fill + 't>
    where
        T: Send + 't,
    {
        let weak: std::sync::Weak<Ring<T>> = Arc::downgrade(&self.ring);
        weak
    }

    /// The producer is gone and every item has been read.
    pub(crate) fn is_closed(&self) -> bool {
        // The producer publishes its tail *before* setting the flag, so a
        // tail read after seeing the flag is final.
        self.ring.producer_gone.load(Ordering::Acquire) && self.refresh() == 0
    }
}

impl<T> Drop for Consumer<T> {
    fn drop(&mut self) {
        // Unread items stay in `[head, tail)` and are dropped with the ring.
        self.publish();
        self.ring.consumer_gone.store(true, Ordering::Release);
    }
}

/// A consumer's read position lent to an operator for one run of pops.
///
/// The slot pointer, mask and index are plain locals of the operator's loop
/// (registers across the user's function call); the index is written back
/// to the consumer after every pop, so a panic mid-run never leaves a
/// moved-out slot inside `[head, tail)` to be dropped twice.
pub struct ReadCursor<'a, T> {
    slots: *const SlotCell<T>,
    mask: usize,
    next: usize,
    head: &'a mut usize,
}

impl<T> Consumer<T> {
    /// A cursor at the current read position.
    #[inline(always)]
    pub(crate) fn read_cursor(&mut self) -> ReadCursor<'_, T> {
        ReadCursor { slots: self.ring.slots.as_ptr(), mask: self.ring.mask, next: self.head, head: &mut self.head }
    }
}

impl<T> ReadCursor<'_, T> {
    /// The next item.
    ///
    /// # Safety
    ///
    /// An item is available: the caller saw `len() > n` before this cursor's
    /// `n`-th pop.
    #[inline(always)]
    pub unsafe fn peek(&self) -> &T {
        (*self.slots.add(self.next & self.mask)).get_ref()
    }

    /// Remove the next item.
    ///
    /// # Safety
    ///
    /// As for [`ReadCursor::peek`].
    #[inline(always)]
    pub unsafe fn pop(&mut self) -> T {
        let item = (*self.slots.add(self.next & self.mask)).read();
        self.next = self.next.wrapping_add(1);
        *self.head = self.next;
        item
    }
}

/// A producer's write position lent to an operator for one run of pushes
/// (see [`ReadCursor`] for why it is a separate type).
pub struct WriteCursor<'a, T> {
    slots: *const SlotCell<T>,
    mask: usize,
    next: usize,
    tail: &'a mut usize,
}

impl<T> Producer<T> {
    /// A cursor at the current write position, or `None` if the consumer is
    /// known to be gone (pushes must then be dropped, not written).
    #[inline(always)]
    pub(crate) fn write_cursor(&mut self) -> Option<WriteCursor<'_, T>> {
        if self.abandoned {
            return None;
        }
        Some(WriteCursor {
            slots: self.ring.slots.as_ptr(),
            mask: self.ring.mask,
            next: self.tail,
            tail: &mut self.tail,
        })
    }
}

impl<T> WriteCursor<'_, T> {
    /// Write one item.
    ///
    /// # Safety
    ///
    /// There is room: the caller saw `room() > n` before this cursor's
    /// `n`-th push.
    #[inline(always)]
    pub unsafe fn push(&mut self, item: T) {
        (*self.slots.add(self.next & self.mask)).write(item);
        self.next = self.next.wrapping_add(1);
        *self.tail = self.next;
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::ring;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Counts its drops, so a test can see every item dropped exactly once.
    struct Counted(u64, Arc<AtomicUsize>);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn items_cross_threads_in_order_and_each_is_dropped_once() {
        const N: u64 = 200_000;
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, mut rx) = ring::<Counted>(37); // not a power of two
        let d = drops.clone();
        let producer = std::thread::spawn(move || {
            for i in 0..N {
                let mut item = Counted(i, d.clone());
                loop {
                    match tx.push(item) {
                        Ok(()) => break,
                        Err(back) => {
                            // Full: hand the written slots over and retry.
                            item = back;
                            tx.publish();
                            std::hint::spin_loop();
                        }
                    }
                }
                if i % 7 == 0 {
                    tx.publish();
                }
            }
            // Dropping publishes the rest and closes the ring.
        });
        let mut expected = 0;
        while !rx.is_closed() {
            while let Some(item) = rx.pop() {
                assert_eq!(item.0, expected);
                expected += 1;
                if expected % 5 == 0 {
                    rx.publish();
                }
            }
            rx.publish();
        }
        producer.join().unwrap();
        assert_eq!(expected, N);
        drop(rx);
        assert_eq!(drops.load(Ordering::Relaxed), N as usize);
    }

    #[test]
    fn unread_items_are_dropped_with_the_ring() {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, mut rx) = ring::<Counted>(4);
        for i in 0..4 {
            assert!(tx.push(Counted(i, drops.clone())).is_ok());
        }
        tx.publish();
        drop(rx.pop()); // one read and dropped by the reader
        drop(tx);
        drop(rx);
        assert_eq!(drops.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn room_is_the_requested_capacity_and_frees_only_when_published() {
        let (mut tx, mut rx) = ring::<u8>(3);
        assert_eq!(tx.room(), 3);
        for i in 0..3 {
            assert!(tx.push(i).is_ok());
        }
        assert_eq!(tx.room(), 0);
        assert!(tx.push(9).is_err(), "full");
        assert_eq!(rx.len(), 0, "nothing published yet");
        tx.publish();
        assert_eq!(rx.pop(), Some(0));
        assert_eq!(tx.room(), 0, "the read slot is not handed back yet");
        rx.publish();
        assert_eq!(tx.room(), 1);
    }

    #[test]
    fn a_consumer_that_is_gone_gives_unlimited_room_and_drops_pushes() {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, rx) = ring::<Counted>(1);
        assert!(tx.push(Counted(0, drops.clone())).is_ok());
        drop(rx);
        assert_eq!(tx.room(), usize::MAX);
        for i in 1..10 {
            assert!(tx.push(Counted(i, drops.clone())).is_ok());
        }
        assert_eq!(drops.load(Ordering::Relaxed), 9, "pushes after the consumer left are dropped at once");
        drop(tx);
        assert_eq!(drops.load(Ordering::Relaxed), 10);
    }

    #[test]
    fn a_panic_in_the_middle_of_a_cursor_run_drops_nothing_twice() {
        let drops = Arc::new(AtomicUsize::new(0));
        let (mut tx, mut rx) = ring::<Counted>(8);
        for i in 0..5 {
            assert!(tx.push(Counted(i, drops.clone())).is_ok());
        }
        tx.publish();
        assert_eq!(rx.len(), 5, "an operator sizes its run before taking the cursor");
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut cursor = rx.read_cursor();
            // SAFETY: five items are published.
            let first = unsafe { cursor.pop() };
            let _second = unsafe { cursor.pop() };
            drop(first);
            panic!("user code panics while holding the second item");
        }));
        assert!(result.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        assert_eq!(rx.len(), 3, "the cursor's pops were recorded before the panic");
        drop(tx);
        drop(rx);
        assert_eq!(drops.load(Ordering::Relaxed), 5);
    }
}

/// Exhaustive interleavings of the publication protocol under loom:
/// `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::ring;
    use loom::thread;

    /// Items pushed in two batches (the second published by the producer's
    /// drop) arrive complete and in order, and the consumer sees the ring
    /// closed only after the last one.
    #[test]
    fn loom_batches_arrive_in_order_and_close_after_the_last() {
        loom::model(|| {
            let (mut tx, mut rx) = ring::<u32>(2);
            let producer = thread::spawn(move || {
                for (k, batch) in [[1, 2], [3, 4]].into_iter().enumerate() {
                    for x in batch {
                        let mut x = x;
                        while let Err(back) = tx.push(x) {
                            x = back;
                            thread::yield_now();
                        }
                    }
                    // The last batch is published by dropping `tx`, as
                    // when a finished operator is dropped by its section.
                    if k == 0 {
                        tx.publish();
                    }
                }
            });
            let mut got = Vec::new();
            loop {
                if let Some(x) = rx.pop() {
                    got.push(x);
                    rx.publish();
                } else if rx.is_closed() {
                    break;
                } else {
                    thread::yield_now();
                }
            }
            producer.join().unwrap();
            assert_eq!(got, vec![1, 2, 3, 4]);
        });
    }

    /// A cursor run and a concurrent producer never touch the same slot.
    #[test]
    fn loom_cursor_reads_race_no_writes() {
        loom::model(|| {
            let (mut tx, mut rx) = ring::<u32>(2);
            assert!(tx.push(7).is_ok());
            tx.publish();
            let producer = thread::spawn(move || {
                let mut x = 8;
                while let Err(back) = tx.push(x) {
                    x = back;
                    thread::yield_now();
                }
                tx.publish();
            });
            let n = rx.len();
            let mut cursor = rx.read_cursor();
            let mut got = Vec::new();
            for _ in 0..n {
                // SAFETY: `n` items were published when the run was sized.
                got.push(unsafe { cursor.pop() });
            }
            rx.publish();
            producer.join().unwrap();
            while let Some(x) = rx.pop() {
                got.push(x);
            }
            assert_eq!(got, vec![7, 8]);
        });
    }
}
