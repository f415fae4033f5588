//! Ring buffers kept from one run for the next.
//!
//! Why: a run builds one ring per arc, about 2,048 slots each, and drops
//! them all when it ends. For a graph of a few hundred operators that is
//! megabytes of `malloc` per run, and each time glibc consolidated its
//! fast bins and the kernel faulted fresh pages in: in a profile of the
//! level-graph benchmark, 14 % of the process's samples sat under
//! `arc::channel`'s allocation, most of a small run's set-up (issue 21,
//! part 5). A buffer a finished run leaves here is taken by the next ring
//! that needs the same number of bytes at the same alignment, whatever its
//! item type: a slot is `MaybeUninit`, so stale bytes are valid.
//!
//! At most [`KEEP_BYTES`] are kept; a buffer beyond that is freed.
//!
//! # Example
//!
//! ```text
//! let a: Vec<SlotCell<u64>> = SlotCell::empty_slots(2048);  // malloc
//! SlotCell::recycle(a);                                       // kept
//! let b: Vec<SlotCell<u64>> = SlotCell::empty_slots(2048);  // the same buffer
//! ```
//! (unit test `a_dropped_ring_buffer_is_taken_by_the_next_of_its_size`)

use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::Mutex;

/// Most bytes of ring buffers kept for later runs.
pub const KEEP_BYTES: usize = 32 << 20;

/// Buffers by (size in bytes, alignment). A list searched from the front
/// rather than a hash map: a process has a handful of ring sizes, and the
/// search is cheaper than hashing on a small call's path (measured: the
/// `calls` benchmark paid 0.3 µs per call with `HashMap`'s SipHash).
#[derive(Default)]
struct Kept {
    bytes: usize,
    free: Vec<(SizeAlign, Vec<NonNull<u8>>)>,
}

/// A buffer's size in bytes and alignment.
type SizeAlign = (usize, usize);

impl Kept {
    fn of(&mut self, layout: Layout) -> Option<&mut Vec<NonNull<u8>>> {
        let key = (layout.size(), layout.align());
        self.free.iter_mut().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

// SAFETY: the pointers are allocations nobody else refers to; whoever
// takes one owns it.
unsafe impl Send for Kept {}

static KEPT: Mutex<Option<Kept>> = Mutex::new(None);

/// A kept buffer of exactly `layout`, if there is one; the caller owns it
/// (it was allocated by the global allocator with `layout`).
pub(super) fn take(layout: Layout) -> Option<NonNull<u8>> {
    if layout.size() == 0 {
        return None;
    }
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let kept = kept.as_mut()?;
    let ptr = kept.of(layout)?.pop()?;
    kept.bytes -= layout.size();
    Some(ptr)
}

/// Keep `ptr`, an allocation of the global allocator with `layout`, for a
/// later [`take`]; `false` (the caller frees it) if that would keep more
/// than [`KEEP_BYTES`].
pub(super) fn give(layout: Layout, ptr: NonNull<u8>) -> bool {
    if layout.size() == 0 {
        return false;
    }
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let kept = kept.get_or_insert_with(Kept::default);
    if kept.bytes + layout.size() > KEEP_BYTES {
        return false;
    }
    kept.bytes += layout.size();
    match kept.of(layout) {
        Some(list) => list.push(ptr),
        None => kept.free.push(((layout.size(), layout.align()), vec![ptr])),
    }
    true
}

/// Bytes kept now (for tests).
#[cfg(test)]
pub(super) fn kept_bytes() -> usize {
    KEPT.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |k| k.bytes)
}

#[cfg(test)]
mod tests {
    use super::{kept_bytes, KEEP_BYTES};
    use crate::sync::SlotCell;

    /// A slot type no other test's ring has: its buffers are this test's.
    type Odd = [u8; 4093];

    #[test]
    fn a_dropped_ring_buffer_is_taken_by_the_next_of_its_size() {
        let a: Vec<SlotCell<Odd>> = SlotCell::empty_slots(4);
        let ptr = a.as_ptr() as usize;
        SlotCell::recycle(a);
        let b: Vec<SlotCell<Odd>> = SlotCell::empty_slots(4);
        assert_eq!(b.as_ptr() as usize, ptr, "the same buffer");
        assert_eq!((b.len(), b.capacity()), (4, 4));
        // Another count of the same type is another size: a fresh buffer.
        let c: Vec<SlotCell<Odd>> = SlotCell::empty_slots(8);
        assert_ne!(c.as_ptr() as usize, ptr);
        SlotCell::recycle(b);
        SlotCell::recycle(c);
    }

    #[test]
    fn no_more_than_keep_bytes_are_kept() {
        type Big = [u8; 1 << 20];
        for _ in 0..(KEEP_BYTES >> 20) + 8 {
            SlotCell::recycle(SlotCell::<Big>::empty_slots(1));
            assert!(kept_bytes() <= KEEP_BYTES);
        }
        let many: Vec<_> = (0..(KEEP_BYTES >> 20) + 8).map(|_| SlotCell::<Big>::empty_slots(1)).collect();
        for v in many {
            SlotCell::recycle(v);
            assert!(kept_bytes() <= KEEP_BYTES);
        }
    }
}
