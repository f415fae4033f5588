//! The snapshot hand-off under loom: the state's operator (this thread)
//! writes, shares a snapshot with a reader on another thread through an
//! arc, and writes again, as the step of a `&self` call and the `&mut self`
//! calls after it do; the reader runs the call on the snapshot, as the
//! finish on a replica does. The state's fields are loom cells, so loom
//! reports a write that races a reader's read: in every interleaving a
//! write either copies the state (a reader still holds it) or finds the
//! reader's reads done before it (the reader dropped its snapshot). Every
//! read sees the version sequential execution shows it; the copies counted
//! are exactly the writes that found a holder. A copy made into the
//! spare (the version an earlier copy left, `Clone::clone_from`) writes
//! the spare's cells: loom checks that this happens only after its reader's
//! reads, whose `Arc` drop the write's `Arc::get_mut` acquires.
//! `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.

use super::{snapshot, Snapshot};
use crate::arc::channel;
use crate::packet::Packet;
use crate::sync::Arc;
use loom::cell::UnsafeCell;
use loom::thread;

/// A state of two fields that a write changes together.
struct Versioned {
    version: UnsafeCell<u32>,
    total: UnsafeCell<u32>,
}

// What `&self` and `&mut self` guarantee a plain struct: the cells are
// read through `&self` and written only through `&mut self`
// (`Snapshot::write`), which loom checks is never beside a read.
unsafe impl Sync for Versioned {}

impl Versioned {
    fn new() -> Self {
        Versioned { version: UnsafeCell::new(0), total: UnsafeCell::new(0) }
    }

    /// `&mut self`: the next version adds `x`.
    fn put(&mut self, x: u32) {
        self.version.with_mut(|v| unsafe { *v += 1 });
        self.total.with_mut(|t| unsafe { *t += x });
    }

    /// `&self`: what a reader sees, both fields.
    fn read(&self) -> (u32, u32) {
        (self.version.with(|v| unsafe { *v }), self.total.with(|t| unsafe { *t }))
    }
}

impl Clone for Versioned {
    fn clone(&self) -> Self {
        let (version, total) = self.read();
        Versioned { version: UnsafeCell::new(version), total: UnsafeCell::new(total) }
    }

    /// Into the old cells, as a `Vec`'s `clone_from` writes its buffer.
    fn clone_from(&mut self, source: &Self) {
        let (version, total) = source.read();
        self.version.with_mut(|v| unsafe { *v = version });
        self.total.with_mut(|t| unsafe { *t = total });
    }
}

/// Which copy counts the interleavings gave (bit `n` for `n` copies):
/// the model must explore a write that copies and one that does not.
static COPIES_SEEN: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Whether some interleaving made a copy into the spare.
static REUSED_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[test]
fn loom_a_write_after_a_snapshot_copies_or_follows_the_readers_reads() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        // A ring of one slot: the second snapshot waits for the reader to
        // take the first, as a full lane makes a step wait.
        let (mut to_reader, mut snapshots) = channel::<Arc<Versioned>>(1, None, None);
        let (mut results, mut seen) = channel::<(u32, u32)>(4, None, None);
        let reader = thread::spawn(move || loop {
            match snapshots.pop() {
                Some(Packet::Data(s)) => {
                    snapshots.flush(); // the slot back to the step
                    results.push(Packet::Data(s.read()));
                    drop(s); // before the push is published, as a finish drops its input
                    results.flush();
                }
                Some(_) => snapshots.flush(),
                None if snapshots.is_closed() => break,
                None => thread::yield_now(),
            }
        });
        let mut state = snapshot(Versioned::new());
        state.put(5); // version 1
        let first = Snapshot::share(&mut state);
        to_reader.push(Packet::Data(first));
        to_reader.flush();
        state.put(7); // version 2: copies if the reader still holds version 1
        let second = Snapshot::share(&mut state);
        while to_reader.room() == 0 {
            thread::yield_now();
        }
        to_reader.push(Packet::Data(second));
        drop(to_reader); // publishes and closes
        state.put(1); // version 3: copies if the reader holds version 2,
                      // into version 1's cells if the reader let it go
        reader.join().unwrap();
        let got: Vec<_> = std::iter::from_fn(|| seen.pop())
            .filter_map(|p| match p {
                Packet::Data(v) => Some(v),
                _ => None,
            })
            .collect();
        assert_eq!(got, vec![(1, 5), (2, 12)], "a reader saw another version than sequential execution shows it");
        assert_eq!(state.read(), (3, 13));
        let stats = Snapshot::stats(&state);
        assert_eq!(stats.taken, 2);
        assert!(stats.copies <= 2, "{stats:?}");
        assert!(stats.reused <= 1 && stats.reused < stats.copies.max(1), "{stats:?}");
        COPIES_SEEN.fetch_or(1 << stats.copies, std::sync::atomic::Ordering::Relaxed);
        if stats.reused == 1 {
            REUSED_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    assert!(REUSED_SEEN.load(std::sync::atomic::Ordering::Relaxed), "no interleaving copied into the spare");
    // Both writes after a share found the reader holding it, in some
    // interleaving, and neither did, in another.
    let seen = COPIES_SEEN.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(seen & 0b101, 0b101, "copy counts seen: {seen:#b}");
}
