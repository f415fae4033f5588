//! Asymmetric fences for the sleep/wake protocol.
//!
//! The protocol (`exec/README.md`) is a Dekker pair: a section about to park
//! stores its `sleeping` flag and then re-checks its arcs; a section that
//! pushed onto an arc publishes the push and then loads the flag. Each side
//! needs a StoreLoad fence between its store and its load. The waker runs
//! this on every operator step that moved data across sections; the
//! sleeper runs it only when it is about to park, which costs a futex wait
//! anyway. With `batch_size = 1` a `SeqCst` fence per step was most of the
//! cost of a message between sections: the fence waits until the store of the
//! ring index owns its cache line, which the other core has just read.
//!
//! So the fence is split unevenly, like `folly::asymmetricLightBarrier` /
//! `asymmetricHeavyBarrier`. The waker issues [`light`], a compiler fence
//! only. The sleeper issues [`heavy`]: Linux's
//! `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which returns only after
//! every running thread of this process has executed a full memory barrier.
//! Any light fence then either happened before that barrier, and its store
//! is visible to the sleeper's re-check, or happens after it, and its load
//! sees `sleeping`. The kernel documents the pairing in membarrier(2).
//!
//! Written here rather than taken from the `membarrier` crate: its latest
//! release (0.2.3) fails to link on Linux (it asks for `-lwindows`), and the
//! part needed is one system call. Where the system call is missing (other
//! systems, old kernels, seccomp), both sides issue a `SeqCst` fence. Under
//! loom this module is not built (it is part of `std_impl.rs`):
//! `loom_impl.rs` issues loom's `SeqCst` fence on both sides, the symmetric
//! protocol the loom models check.

use std::sync::atomic::{compiler_fence, fence, AtomicBool, Ordering};
use std::sync::OnceLock;

/// The fences of one run: asymmetric (a compiler fence for the waker,
/// `membarrier` for the sleeper) once this process has registered with
/// `membarrier`, a `SeqCst` fence on each side before that or where the
/// system call is missing. Fixed for the whole run and kept in each
/// section's `SleepFlag`, so both sides of every pair use the same kind.
/// The process's registration may complete while a run goes on; only later
/// runs use it (a pair of a light fence that reads the new mode and a
/// heavy fence that read the old one would lose a wake-up).
///
/// Registering costs a `synchronize_rcu` in the kernel when the process
/// already has other threads: 5-20 ms, paid by the first run of
/// `record_pipeline` (its first run's time went 72 -> 82-96 ms whenever the
/// registration took that long). So a run in a single-threaded process
/// registers at once (tens of µs); in a process with threads the
/// registration runs on a thread of its own, and runs that start before it
/// completes use the symmetric fences. A service waits for it
/// ([`Fences::for_run`] with `wait`): it runs for long, and a flush pays a
/// full fence in the symmetric mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fences {
    asymmetric: bool,
}

/// Whether the process registered with `membarrier` (decided once).
static REGISTERED: OnceLock<bool> = OnceLock::new();

/// The registration was handed to a thread of its own.
static REGISTERING: AtomicBool = AtomicBool::new(false);

impl Fences {
    /// A `SeqCst` fence on each side.
    pub const SYMMETRIC: Fences = Fences { asymmetric: false };

    /// The fences a run starting now uses (see the type's docs); with
    /// `wait`, after the process's registration has completed.
    pub fn for_run(wait: bool) -> Fences {
        let registered = || *REGISTERED.get_or_init(membarrier_available);
        match registration(REGISTERED.get().copied(), wait, single_threaded) {
            Registration::Done(asymmetric) => Fences { asymmetric },
            Registration::Here => Fences { asymmetric: registered() },
            Registration::Elsewhere => {
                if !REGISTERING.swap(true, Ordering::Relaxed) {
                    let spawned = std::thread::Builder::new().name("ohua-membarrier".into()).spawn(move || {
                        registered();
                    });
                    if spawned.is_err() {
                        return Fences { asymmetric: registered() };
                    }
                }
                Fences::SYMMETRIC
            }
        }
    }

    /// Whether these are the asymmetric fences.
    pub fn is_asymmetric(self) -> bool {
        self.asymmetric
    }

    /// The fast side's fence (the waker, on every flush).
    #[inline(always)]
    pub fn light(self) {
        if self.asymmetric {
            compiler_fence(Ordering::SeqCst);
        } else {
            fence(Ordering::SeqCst);
        }
    }

    /// The slow side's fence (a section about to park).
    pub fn heavy(self) {
        if self.asymmetric {
            membarrier_private_expedited();
        } else {
            fence(Ordering::SeqCst);
        }
    }
}

/// Where a run finds the process's `membarrier` registration.
#[derive(Debug, PartialEq, Eq)]
enum Registration {
    /// Decided already: asymmetric or not.
    Done(bool),
    /// To be done on the caller's thread now.
    Here,
    /// On a thread of its own; the run uses the symmetric fences.
    Elsewhere,
}

/// The rule of [`Fences::for_run`]: a run waits for the registration only
/// if it asked to (`wait`, a service) or if it costs nothing to wait (one
/// thread in the process: no grace period for the kernel to wait out).
fn registration(done: Option<bool>, wait: bool, single_threaded: impl FnOnce() -> bool) -> Registration {
    match done {
        Some(asymmetric) => Registration::Done(asymmetric),
        None if wait || single_threaded() => Registration::Here,
        None => Registration::Elsewhere,
    }
}

/// Whether this process has one thread (Linux: `/proc/self/stat`); then
/// registering is cheap (no other thread's view to wait for). Unknown
/// counts as not.
#[cfg(target_os = "linux")]
fn single_threaded() -> bool {
    std::fs::read_to_string("/proc/self/stat").ok().and_then(|s| threads_in_stat(&s)) == Some(1)
}

/// The thread count in a `/proc/<pid>/stat` line (its twentieth field).
/// The command name (field 2) is in parentheses and may hold spaces and
/// parentheses: fields are counted from the last `)`, after which field 3
/// comes first.
#[cfg(any(target_os = "linux", test))]
fn threads_in_stat(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(17)?.parse().ok()
}

/// Elsewhere there is no `membarrier` to register with: decided at once.
#[cfg(not(target_os = "linux"))]
fn single_threaded() -> bool {
    true
}

#[cfg(target_os = "linux")]
fn membarrier_available() -> bool {
    let query = sys_membarrier(libc::MEMBARRIER_CMD_QUERY);
    let needed =
        (libc::MEMBARRIER_CMD_PRIVATE_EXPEDITED | libc::MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) as libc::c_long;
    query >= 0 && query & needed == needed && sys_membarrier(libc::MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0
}

#[cfg(not(target_os = "linux"))]
fn membarrier_available() -> bool {
    false
}

#[cfg(target_os = "linux")]
fn membarrier_private_expedited() {
    let ret = sys_membarrier(libc::MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    // Registration succeeded (`Fences::for_run`), so this cannot fail; if it somehow
    // did, the light side's compiler fence would not be enough.
    assert_eq!(ret, 0, "membarrier(PRIVATE_EXPEDITED) failed after registration");
}

#[cfg(not(target_os = "linux"))]
fn membarrier_private_expedited() {
    unreachable!("the asymmetric mode is only chosen where membarrier exists")
}

#[cfg(target_os = "linux")]
fn sys_membarrier(cmd: libc::c_int) -> libc::c_long {
    // SAFETY: membarrier takes two integer arguments and touches no memory of ours.
    unsafe { libc::syscall(libc::SYS_membarrier, cmd, 0 as libc::c_uint) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_fences_run_and_a_waiting_run_sees_the_registration_done() {
        let fences = Fences::for_run(true);
        assert_eq!(REGISTERED.get().copied(), Some(fences.is_asymmetric()));
        fences.light();
        fences.heavy();
        Fences::SYMMETRIC.light();
        Fences::SYMMETRIC.heavy();
        // Decided once: every later run gets the same.
        assert_eq!(Fences::for_run(false), fences);
    }

    /// Regression: the first run of `record_pipeline` (whose process had
    /// run threads before) waited 5-20 ms in the registration (the
    /// kernel's `synchronize_rcu`), and its time went 72 -> 82-96 ms.
    #[test]
    fn a_run_in_a_process_with_threads_does_not_wait_for_the_registration() {
        assert_eq!(registration(None, false, || false), Registration::Elsewhere);
        // One thread: registering costs tens of µs, so done at once.
        assert_eq!(registration(None, false, || true), Registration::Here);
        // A service waits for it whatever the threads, without asking.
        assert_eq!(registration(None, true, || panic!("not asked")), Registration::Here);
        assert_eq!(registration(Some(true), false, || panic!("not asked")), Registration::Done(true));
        assert_eq!(registration(Some(false), true, || panic!("not asked")), Registration::Done(false));
    }

    #[test]
    fn the_thread_count_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let stat = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 7 0 12345 1000000 200";
        assert_eq!(threads_in_stat(stat), Some(7));
        assert_eq!(threads_in_stat("4242 (cut short) S 1 2"), None);
        assert_eq!(threads_in_stat("no parenthesis"), None);
        #[cfg(target_os = "linux")]
        {
            let own = std::fs::read_to_string("/proc/self/stat").unwrap();
            assert!(threads_in_stat(&own).is_some_and(|n| n >= 1), "{own}");
        }
    }

    /// The Dekker pair with the asymmetric fences, item by item: the
    /// producer publishes one item, wakes, and waits for the consumer to take
    /// it, so every item's wake-up is the only one that can wake the consumer.
    /// The consumer announces sleep before every park. A lost wake-up parks it
    /// until the timeout, which fails the test. This exercises the real
    /// protocol end to end; it does not prove the fences right. The window a
    /// missing heavy fence would open is a few store-buffer cycles wide, and
    /// with the heavy side replaced by a compiler fence this test still
    /// passed 500,000-item runs on x86. The argument is membarrier(2)'s
    /// guarantee (module docs), and loom checks the symmetric protocol.
    #[test]
    fn no_wake_up_is_lost_between_a_light_and_a_heavy_fence() {
        use crate::sync::{thread, AtomicU64, Parker, SleepFlag, Waker};
        use std::time::{Duration, Instant};

        const ITEMS: u64 = 20_000;
        const LOST: Duration = Duration::from_secs(5);
        let parker = Parker::new();
        let flag = SleepFlag::new(parker.unparker().clone(), Fences::for_run(true));
        let waker = Waker::new(flag.clone());
        let pushed = AtomicU64::new(0);
        let taken = AtomicU64::new(0);
        let mut parks = 0u64;
        thread::scope(|s| {
            s.spawn(|| {
                for i in 1..=ITEMS {
                    while taken.load(Ordering::Acquire) != i - 1 {
                        std::hint::spin_loop();
                    }
                    pushed.store(i, Ordering::Release);
                    waker.wake();
                }
            });
            let mut seen = 0;
            while seen < ITEMS {
                let now = pushed.load(Ordering::Acquire);
                if now > seen {
                    seen = now;
                    taken.store(seen, Ordering::Release);
                    continue;
                }
                flag.going_to_sleep();
                if pushed.load(Ordering::Acquire) != seen {
                    flag.awake(false);
                    continue;
                }
                let start = Instant::now();
                parker.park_timeout(LOST);
                flag.awake(true);
                parks += 1;
                assert!(start.elapsed() < LOST, "wake-up lost after item {seen}");
            }
        });
        // The consumer really did sleep, so the protocol was exercised.
        assert!(parks > 0, "the consumer never parked");
    }
}
