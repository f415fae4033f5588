//! Every concurrency primitive the runtime uses, in one place.
//!
//! Importing atomics, parkers and threads only through this module keeps the
//! protocols checkable with a model checker: built with `--cfg loom`, the
//! atomics, `Arc`, `Mutex` and the ring's slot cells are loom's (one switch
//! between `std_impl.rs` and `loom_impl.rs`), and the loom models explore
//! every interleaving of the protocols that use them
//! (`RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`).
//!
#![doc = include_str!("README.md")]

// The one switch: `imp` is `std`'s primitives, or loom's under `--cfg loom`.
// Both files implement the same API (README.md, "The shim"); nothing else in
// the runtime names loom or `std::sync::atomic` for a primitive.
#[cfg(not(loom))]
mod std_impl;
#[cfg(not(loom))]
use std_impl as imp;
#[cfg(loom)]
mod loom_impl;
#[cfg(loom)]
use loom_impl as imp;

pub use imp::{
    fence, Arc, AtomicBool, AtomicIsize, AtomicU64, AtomicU8, AtomicUsize, Condvar, Fences, Mutex, MutexGuard,
    Ordering, SlotCell,
};

pub use crossbeam_utils::sync::{Parker, Unparker};
pub use crossbeam_utils::{Backoff, CachePadded};

mod quiet;
pub use quiet::Quiet;

/// Process-wide state that is not part of any protocol the model checker
/// explores (the `auto` planner's measured costs, the worker pool in
/// `src/pool.rs`): always `std`'s, also under loom, because loom's
/// primitives cannot live in a `static` or outside a model.
pub mod process {
    pub use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
    pub use std::sync::{Arc, Condvar, Mutex, OnceLock, RwLock};
}

/// Threads: the worker pool's threads (`src/pool.rs`), which run sections
/// that borrow non-`'static` data through a scope that waits for them.
pub use std::thread;

/// Whether a section is about to sleep, and how to wake it.
///
/// The protocol (see `exec/README.md`): the section sets `sleeping`, issues
/// the heavy fence, makes one more full pass over its operators, and parks
/// only if that pass did nothing. A waker issues the light fence after its
/// push and unparks only if it sees `sleeping`. The two fences together order
/// like a pair of SeqCst fences (`sync/asymmetric.rs`). By the fences, either the waker sees
/// the flag or the final pass sees the push, so no wake-up is lost, and a
/// section that is awake costs its neighbours one load per flush instead of
/// an atomic read-modify-write on a shared cache line.
pub struct SleepFlag {
    /// [`AWAKE`], [`SLEEPING`] or [`WOKEN`].
    state: AtomicU8,
    /// When the driver's current wait began ([`SleepFlag::blocking`]), in
    /// ns since [`wait_epoch`].
    wait_since: AtomicU64,
    unparker: Unparker,
    /// The run's quiescence count, for runs that fetch from data sources
    /// (`io/README.md`): a parked section is not running, and the waker that
    /// ends its sleep counts it again.
    quiet: Option<std::sync::Arc<Quiet>>,
    /// In a run whose sections may host others (`exec/hosting.rs`): every
    /// section's unparker, and which section's driver steps this one's
    /// operators now ([`NOT_HOSTED`] while its own thread does).
    hosts: Option<(std::sync::Arc<[Unparker]>, AtomicUsize)>,
    /// The run's fences, the same for every flag of the run.
    fences: Fences,
}

/// [`SleepFlag`]'s host while the section's own thread drives it.
const NOT_HOSTED: usize = usize::MAX;

/// The section is running.
const AWAKE: u8 = 0;
/// The section announced that it is about to park.
const SLEEPING: u8 = 1;
/// A waker ended the sleep and counted the section as running again
/// (counting runs only; other runs only ever store [`AWAKE`] back).
const WOKEN: u8 = 2;
/// The driver is inside a step that may wait (a loop entry's `next()` on a
/// channel or socket): a wake-up cannot reach the section's other
/// operators until the step returns or the monitor rescues the section.
const BLOCKED: u8 = 3;
/// A waker found [`BLOCKED`]: the monitor rescues the section at its next
/// tick (`exec/handover.rs`).
const BLOCKED_WOKEN: u8 = 4;

impl SleepFlag {
    /// The flag of a section that parks on the parker owning `unparker`,
    /// in a run that uses `fences`.
    pub fn new(unparker: Unparker, fences: Fences) -> Arc<Self> {
        Self::counted(unparker, None, fences)
    }

    /// The flag of a section of a run whose running sections are counted by
    /// `quiet` (if given).
    pub fn counted(unparker: Unparker, quiet: Option<std::sync::Arc<Quiet>>, fences: Fences) -> Arc<Self> {
        let (state, wait_since, hosts) = (AtomicU8::new(AWAKE), AtomicU64::new(0), None);
        Arc::new(SleepFlag { state, wait_since, unparker, quiet, hosts, fences })
    }

    /// The flag of a section that another section's driver may *host*
    /// (step its operators and sleep for it, `exec/hosting.rs`): a wake-up
    /// then also unparks the host, `all[host]` ([`SleepFlag::hosted_by`]).
    pub fn hostable(unparker: Unparker, all: std::sync::Arc<[Unparker]>, fences: Fences) -> Arc<Self> {
        let hosts = Some((all, AtomicUsize::new(NOT_HOSTED)));
        let (state, wait_since) = (AtomicU8::new(AWAKE), AtomicU64::new(0));
        Arc::new(SleepFlag { state, wait_since, unparker, quiet: None, hosts, fences })
    }

    /// The fences of the flag's run: the other Dekker pairs of its section
    /// (`exec/rescue.rs`) use them too.
    pub fn fences(&self) -> Fences {
        self.fences
    }

    /// From now on section `host`'s driver (or, with `None`, the section's
    /// own thread again) sleeps for this section. Called while both are
    /// awake, before the host can announce a sleep on this flag; a waker
    /// that sees that announcement sees the host too (its load of the state
    /// is `Acquire`).
    ///
    /// # Panics
    ///
    /// If the flag was not made [`SleepFlag::hostable`].
    pub fn hosted_by(&self, host: Option<usize>) {
        let (_, at) = self.hosts.as_ref().expect("ohua internal error: hosting a section whose flag cannot forward");
        at.store(host.unwrap_or(NOT_HOSTED), Ordering::Relaxed);
    }

    /// Announce a sleep for a hosted section: its host's driver is about
    /// to park for it too. The host follows with its own
    /// [`SleepFlag::going_to_sleep`], whose heavy fence covers this store.
    pub fn announce_sleep(&self) {
        self.state.store(SLEEPING, Ordering::SeqCst);
    }

    /// Which section's driver sleeps for this one: a wake-up of a sleeping
    /// section unparks its host too, besides the section's own parker (a
    /// token there is harmless: its thread waits for its host to let it
    /// go, and parks at most once for nothing).
    pub(crate) fn host_index(&self) -> Option<usize> {
        let (_, at) = self.hosts.as_ref()?;
        Some(at.load(Ordering::Relaxed)).filter(|&h| h != NOT_HOSTED)
    }

    /// The state a waker (after its light fence) finds. `Acquire`: a
    /// host's announced sleep makes its [`SleepFlag::hosted_by`] visible to
    /// [`SleepFlag::host_index`]. A plain load on x86.
    #[inline]
    fn state_for_waker(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    /// Whether a waker finds the section asleep or about to be.
    #[cfg(all(test, loom))]
    pub(crate) fn sleeping_for_waker(&self) -> bool {
        self.state_for_waker() == SLEEPING
    }

    /// The driver is about to wait inside a step. Only from [`AWAKE`]: a
    /// thread still stuck in a step after a rescue must not overwrite the
    /// new driver's announced sleep (a lost wake-up).
    pub fn blocking(&self) {
        // The time first: a waker that marks the wait, and the monitor that
        // reads the mark, then see a start no older than the wait's.
        let now = wait_epoch().elapsed().as_nanos() as u64;
        if self.state.load(Ordering::Relaxed) == AWAKE {
            self.wait_since.store(now, Ordering::Relaxed);
            let _ = self.state.compare_exchange(AWAKE, BLOCKED, Ordering::Release, Ordering::Relaxed);
        }
    }

    /// The wait announced by [`SleepFlag::blocking`] is over (whether or not
    /// a waker came meanwhile); any other state is left alone, as above.
    pub fn unblocked(&self) {
        let _ = self.state.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
            (s == BLOCKED || s == BLOCKED_WOKEN).then_some(AWAKE)
        });
    }

    /// Whether a waker came for the section while its driver waited in a
    /// step: the section's other operators have work the wait holds back.
    #[cfg(test)]
    pub fn woken_while_blocked(&self) -> bool {
        self.state.load(Ordering::Relaxed) == BLOCKED_WOKEN
    }

    /// Whether a waker came during the driver's current wait
    /// ([`SleepFlag::woken_while_blocked`]) and the wait has lasted `at_least`.
    pub fn woken_in_wait_of(&self, at_least: std::time::Duration) -> bool {
        if self.state.load(Ordering::Acquire) != BLOCKED_WOKEN {
            return false;
        }
        let since = self.wait_since.load(Ordering::Relaxed);
        let now = wait_epoch().elapsed().as_nanos() as u64;
        now.saturating_sub(since) >= at_least.as_nanos() as u64
    }

    /// Announce the intent to park; follow with a last pass, then
    /// [`SleepFlag::parking`] and park, or [`SleepFlag::awake`].
    pub fn going_to_sleep(&self) {
        self.state.store(SLEEPING, Ordering::SeqCst);
        self.fences.heavy();
    }

    /// The last pass found nothing to do: the section parks now.
    pub fn parking(&self) {
        if let Some(q) = &self.quiet {
            q.leave();
        }
    }

    /// The section is running again: after a park (`parked`), or after a
    /// last pass that found work.
    pub fn awake(&self, parked: bool) {
        let Some(q) = &self.quiet else {
            self.state.store(AWAKE, Ordering::Relaxed);
            return;
        };
        let before = self.state.swap(AWAKE, Ordering::AcqRel);
        match (parked, before == WOKEN) {
            // A spurious wake-up, or one no waker counted: count ourselves.
            (true, false) => q.enter(),
            // A waker counted a section that never stopped running.
            (false, true) => q.leave(),
            _ => {}
        }
    }

    /// Forget an announced sleep of a driver the monitor replaced while it
    /// was stuck in its last pass (under the section's lock, before the new
    /// driver starts): a waker's count for it is taken back.
    pub fn reset_for_new_driver(&self) {
        let before = self.state.swap(AWAKE, Ordering::AcqRel);
        if let (Some(q), WOKEN) = (&self.quiet, before) {
            q.leave();
        }
    }
}

/// The origin of [`SleepFlag`]'s wait times (the first use in the process).
fn wait_epoch() -> std::time::Instant {
    static EPOCH: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(std::time::Instant::now)
}

/// Wakes one section's thread. When the section is not going to sleep this
/// is a light fence (a compiler fence where `membarrier` exists) and a load.
#[derive(Clone)]
pub struct Waker(WakeTarget);

#[derive(Clone)]
enum WakeTarget {
    Section(Arc<SleepFlag>),
    /// Test hook: observe exactly when wake-ups happen.
    #[cfg(test)]
    Hook(std::sync::Arc<dyn Fn() + Send + Sync>),
}

impl Waker {
    /// A waker for the section owning `flag`.
    pub fn new(flag: Arc<SleepFlag>) -> Self {
        Waker(WakeTarget::Section(flag))
    }

    /// A waker that calls `f` (tests of the wake-up protocol).
    #[cfg(test)]
    pub(crate) fn hook(f: impl Fn() + Send + Sync + 'static) -> Self {
        Waker(WakeTarget::Hook(std::sync::Arc::new(f)))
    }

    /// The section's driver is about to wait inside a step
    /// ([`SleepFlag::blocking`]); nothing for a test hook.
    pub fn blocking(&self) {
        match &self.0 {
            WakeTarget::Section(flag) => flag.blocking(),
            #[cfg(test)]
            WakeTarget::Hook(_) => {}
        }
    }

    /// The wait announced by [`Waker::blocking`] is over.
    pub fn unblocked(&self) {
        match &self.0 {
            WakeTarget::Section(flag) => flag.unblocked(),
            #[cfg(test)]
            WakeTarget::Hook(_) => {}
        }
    }

    /// Wake the section if it is parked; otherwise leave a token so its next
    /// park returns immediately. If its driver waits inside a step, mark
    /// the wait, so the monitor rescues the section at its next tick.
    #[inline]
    pub fn wake(&self) {
        match &self.0 {
            WakeTarget::Section(flag) => {
                // Pairs with the heavy fence in `going_to_sleep`: our push is
                // visible to the section's last pass, or we see it is going
                // to sleep.
                flag.fences.light();
                let state = flag.state_for_waker();
                if state == SLEEPING {
                    if let Some(q) = &flag.quiet {
                        // Exactly one waker ends the sleep and counts it.
                        if flag.state.compare_exchange(SLEEPING, WOKEN, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                            q.enter();
                        }
                    }
                    flag.unparker.unpark();
                    if let (Some(h), Some((all, _))) = (flag.host_index(), &flag.hosts) {
                        all[h].unpark();
                    }
                } else if state == BLOCKED {
                    // The driver waits in a step: the operator this wake-up
                    // is for runs when that wait ends, or when the monitor
                    // rescues the section, which it does at its next tick
                    // once it sees this (`exec/README.md`, "Rescue"). One
                    // store per wait: the first waker's.
                    let _ = flag.state.compare_exchange(BLOCKED, BLOCKED_WOKEN, Ordering::Relaxed, Ordering::Relaxed);
                }
            }
            #[cfg(test)]
            WakeTarget::Hook(f) => f(),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod blocked_tests {
    use super::*;

    /// A wake-up for a section whose driver waits in a step marks the
    /// wait; a wait's start or end never overwrites an announced sleep (a
    /// thread still stuck after a rescue ends its wait while the new
    /// driver may be parked).
    #[test]
    fn a_wake_up_marks_a_wait_and_never_hides_a_sleep() {
        let parker = Parker::new();
        let flag = SleepFlag::new(parker.unparker().clone(), Fences::for_run(true));
        let waker = Waker::new(flag.clone());
        waker.wake();
        assert!(!flag.woken_while_blocked(), "an awake section has no wait to mark");
        waker.blocking();
        assert!(!flag.woken_while_blocked());
        waker.wake();
        assert!(flag.woken_while_blocked());
        waker.unblocked();
        assert!(!flag.woken_while_blocked());
        flag.going_to_sleep();
        waker.blocking();
        waker.unblocked();
        assert_eq!(flag.state.load(Ordering::SeqCst), SLEEPING, "the announced sleep stands");
        waker.wake();
        // The wake-up reached the parker: this park returns at once.
        let start = std::time::Instant::now();
        parker.park_timeout(std::time::Duration::from_secs(10));
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "the wake-up was lost");
        flag.awake(true);
        assert_eq!(flag.state.load(Ordering::SeqCst), AWAKE);
    }
}
