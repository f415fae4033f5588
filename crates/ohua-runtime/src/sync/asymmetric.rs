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

use std::sync::atomic::{compiler_fence, fence, AtomicU8, Ordering};

const UNKNOWN: u8 = 0;
const ASYMMETRIC: u8 = 1;
const SYMMETRIC: u8 = 2;

/// Which fences this process uses; decided once by [`init`] and never changed
/// after that, so both sides of every pair agree.
static MODE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Decide the mode (registering with `membarrier` if possible). Idempotent;
/// call it before the threads that use the fences start.
pub fn init() {
    if MODE.load(Ordering::Acquire) == UNKNOWN {
        let mode = if membarrier_available() { ASYMMETRIC } else { SYMMETRIC };
        // Concurrent callers compute the same answer; the first one wins.
        let _ = MODE.compare_exchange(UNKNOWN, mode, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// Whether this process uses the asymmetric fences (after [`init`]).
pub fn is_asymmetric() -> bool {
    init();
    MODE.load(Ordering::Acquire) == ASYMMETRIC
}

/// The fast side's fence (the waker, on every flush).
#[inline(always)]
pub fn light() {
    if MODE.load(Ordering::Relaxed) == ASYMMETRIC {
        compiler_fence(Ordering::SeqCst);
    } else {
        // Not initialised, or no membarrier: a full fence pairs with either
        // kind of heavy side.
        fence(Ordering::SeqCst);
    }
}

/// The slow side's fence (a section about to park).
pub fn heavy() {
    init();
    if MODE.load(Ordering::Acquire) == ASYMMETRIC {
        membarrier_private_expedited();
    } else {
        fence(Ordering::SeqCst);
    }
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
    // Registration succeeded in `init`, so this cannot fail; if it somehow
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
    fn both_fences_run_and_the_mode_is_decided_once() {
        init();
        let mode = MODE.load(Ordering::Acquire);
        assert_ne!(mode, UNKNOWN);
        light();
        heavy();
        init();
        assert_eq!(MODE.load(Ordering::Acquire), mode);
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
        init();
        let parker = Parker::new();
        let flag = SleepFlag::new(parker.unparker().clone());
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
