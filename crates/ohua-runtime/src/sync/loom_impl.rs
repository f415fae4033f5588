//! The primitives under `--cfg loom`: loom's atomics, `Arc`, `Mutex` and
//! `Condvar`, a slot cell over loom's tracked `UnsafeCell`, and `SeqCst`
//! fences on both sides of the sleep/wake protocol (the symmetric protocol
//! the loom models check). The same API as `std_impl.rs`; see it for the
//! documentation of each item.

pub use loom::sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicU64, AtomicU8, AtomicUsize, Ordering};
pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The fences of one run: a `SeqCst` fence on each side under loom (the
/// symmetric protocol the models check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fences;

impl Fences {
    /// A `SeqCst` fence on each side (named by the loom models).
    #[allow(dead_code)]
    pub const SYMMETRIC: Fences = Fences;

    /// Under loom the fences are symmetric.
    pub fn for_run(_wait: bool) -> Fences {
        Fences
    }

    /// Under loom the fences are symmetric.
    pub fn is_asymmetric(self) -> bool {
        false
    }

    /// The waker's side of the pair.
    pub fn light(self) {
        fence(Ordering::SeqCst);
    }

    /// The parking side of the pair.
    pub fn heavy(self) {
        fence(Ordering::SeqCst);
    }
}

/// The ring's slot cell over loom's tracked cell, so the model checker sees
/// every slot access and reports a read racing a write.
pub struct SlotCell<T>(loom::cell::UnsafeCell<std::mem::MaybeUninit<T>>);

#[allow(missing_docs, clippy::missing_safety_doc)]
impl<T> SlotCell<T> {
    /// `size` empty slots (loom's cells carry state: made one by one).
    pub fn empty_slots(size: usize) -> Vec<Self> {
        let mut slots = Vec::with_capacity(size);
        for _ in 0..size {
            slots.push(SlotCell(loom::cell::UnsafeCell::new(std::mem::MaybeUninit::uninit())));
        }
        slots
    }
    /// Dropped: no buffers are kept under loom.
    pub fn recycle(slots: Vec<Self>) {
        drop(slots);
    }
    pub unsafe fn write(&self, v: T) {
        self.0.with_mut(|p| (*p).write(v));
    }
    pub unsafe fn read(&self) -> T {
        self.0.with(|p| (*p).assume_init_read())
    }
    pub unsafe fn get_ref(&self) -> &T {
        self.0.with(|p| (*p).assume_init_ref())
    }
    pub unsafe fn drop_in_place(&self) {
        self.0.with_mut(|p| (*p).assume_init_drop());
    }
}
