//! The real primitives: `std`'s atomics, `Arc`, `Mutex` and `Condvar`, the
//! ring's slot cell over a plain `UnsafeCell`, and the asymmetric fences of
//! the sleep/wake protocol (`asymmetric.rs`). `loom_impl.rs` implements the
//! same API over loom; `mod.rs` picks one of the two.

pub use std::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicU64, AtomicU8, AtomicUsize, Ordering};
pub use std::sync::{Arc, Condvar, Mutex, MutexGuard};

#[path = "asymmetric.rs"]
mod asymmetric;
#[path = "recycle.rs"]
mod recycle;
/// The sleep/wake protocol's fences of one run: `light` on the waker's
/// side (every flush), `heavy` on the side about to park (see
/// `sync/asymmetric.rs`), asymmetric (`membarrier`) once the process has
/// registered, a `SeqCst` fence each before that or without it.
pub use asymmetric::Fences;

/// One slot of an arc's ring: a possibly uninitialised `T` that the two ends
/// of the arc hand to each other through the ring's indices.
///
/// Every access is `unsafe` because only the ring protocol (`arc/README.md`)
/// knows which end owns the slot; keeping the cell here lets a model checker
/// swap in a cell that tracks those accesses.
pub struct SlotCell<T>(std::cell::UnsafeCell<std::mem::MaybeUninit<T>>);

impl<T> SlotCell<T> {
    /// `size` empty slots, not touched: a slot is an `UnsafeCell` of a
    /// `MaybeUninit`, for which any bytes are valid, so the buffer needs no
    /// writes (a run creates hundreds of arcs of thousands of slots; a loop
    /// over them cost milliseconds per run where the arc's type is compiled
    /// at opt-level 0, and touched every page).
    ///
    /// A buffer of the same size and alignment that an earlier ring gave
    /// back ([`SlotCell::recycle`], `sync/recycle.rs`) is taken first.
    pub fn empty_slots(size: usize) -> Vec<Self> {
        if let Some(ptr) = std::alloc::Layout::array::<Self>(size).ok().and_then(recycle::take) {
            // SAFETY: `ptr` was allocated by the global allocator with the
            // layout of `size` slots (same size in bytes and alignment, the
            // condition of `from_raw_parts`), and nothing else owns it;
            // any bytes are valid slots, as below.
            return unsafe { Vec::from_raw_parts(ptr.as_ptr().cast::<Self>(), size, size) };
        }
        let mut slots = Vec::with_capacity(size);
        // SAFETY: `SlotCell<T>` is `UnsafeCell<MaybeUninit<T>>`, valid
        // uninitialised, and the capacity is `size`.
        unsafe { slots.set_len(size) };
        slots
    }

    /// Give back the buffer of `slots`, whose values were all moved out or
    /// dropped, for a later [`SlotCell::empty_slots`] of the same size; it
    /// is freed if enough is kept already.
    pub fn recycle(slots: Vec<Self>) {
        let mut slots = std::mem::ManuallyDrop::new(slots);
        let (ptr, cap) = (slots.as_mut_ptr(), slots.capacity());
        let layout = std::alloc::Layout::array::<Self>(cap).ok();
        let kept = match (layout, std::ptr::NonNull::new(ptr.cast::<u8>())) {
            (Some(layout), Some(p)) if cap > 0 => recycle::give(layout, p),
            _ => false,
        };
        if !kept {
            // SAFETY: the parts of the vector just taken apart; length 0,
            // as the slots hold nothing to drop.
            drop(unsafe { Vec::from_raw_parts(ptr, 0, cap) });
        }
    }

    /// Fill the slot.
    ///
    /// # Safety
    ///
    /// The caller owns the slot and it is empty (a previous value was read or
    /// dropped).
    #[inline(always)]
    pub unsafe fn write(&self, v: T) {
        (*self.0.get()).write(v);
    }

    /// Move the value out; the slot is empty afterwards.
    ///
    /// # Safety
    ///
    /// The caller owns the slot and it is full.
    #[inline(always)]
    pub unsafe fn read(&self) -> T {
        (*self.0.get()).assume_init_read()
    }

    /// Borrow the value.
    ///
    /// # Safety
    ///
    /// The caller owns the slot, it is full, and nobody writes it while the
    /// borrow lives.
    #[inline(always)]
    pub unsafe fn get_ref(&self) -> &T {
        (*self.0.get()).assume_init_ref()
    }

    /// Drop the value in place.
    ///
    /// # Safety
    ///
    /// The caller owns the slot and it is full.
    pub unsafe fn drop_in_place(&self) {
        (*self.0.get()).assume_init_drop();
    }
}
