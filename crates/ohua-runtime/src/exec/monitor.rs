//! The monitor: one process-wide thread that looks at every running run's
//! sections once per [`TICK`] and rescues a section whose driver has been
//! inside the same step for a whole tick (`rescue.rs`, `README.md`).
//!
//! A run registers for as long as its sections run. The monitor keeps
//! ticking for [`LINGER`] after the last run left, so back-to-back calls do
//! not pay a wake-up of the monitor each; after that it sleeps until the
//! next registration.

use std::time::Duration;

use crate::sync::process::{Condvar, Mutex, OnceLock};
use crate::sync::thread;

/// How often the monitor looks while a run streams from an iterator that
/// may block (`SMap` saw a `size_hint` lower bound of 0). A step seen on two
/// consecutive ticks has run for at least one tick, so a blocked section is
/// rescued after one to two ticks.
pub(crate) const TICK: Duration = Duration::from_millis(1);

/// How often the monitor looks otherwise (a call blocked on I/O is then
/// rescued after 10-20 ms). Measured on 2 busy cores: a wake-up of the
/// monitor every millisecond cost the compute-bound `balanced` benchmark
/// 3-5 % (it preempts a worker each time), one every 20 ms nothing
/// measurable.
pub(crate) const SLOW_TICK: Duration = Duration::from_millis(10);

/// Ticks without any registered run before the monitor sleeps.
const LINGER: u32 = 100;

/// What the monitor does with a registered run at each tick.
pub(crate) trait Watched: Sync {
    /// Look at every section of the run; rescue the stuck ones.
    fn check(&self);
    /// Whether the run streams from a source that may block, so a stuck
    /// step should be noticed within [`TICK`] rather than [`SLOW_TICK`].
    fn streaming(&self) -> bool;
}

/// A registered run, with its borrow's lifetime erased (see [`register`]).
struct Entry {
    token: u64,
    run: *const (dyn Watched + 'static),
}

// SAFETY: `Watched: Sync`, and the pointee outlives the entry (`register`).
unsafe impl Send for Entry {}

#[derive(Default)]
struct Registry {
    runs: Vec<Entry>,
    next_token: u64,
    /// The monitor thread exists.
    started: bool,
    /// The monitor sleeps on `wake` until a run registers.
    sleeping: bool,
}

struct Monitor {
    registry: Mutex<Registry>,
    wake: Condvar,
}

fn monitor() -> &'static Monitor {
    static MONITOR: OnceLock<Monitor> = OnceLock::new();
    MONITOR.get_or_init(|| Monitor { registry: Mutex::new(Registry::default()), wake: Condvar::new() })
}

/// Keeps a run registered; dropping it unregisters the run, waiting for a
/// check of it that is under way.
pub(crate) struct Registration(u64);

/// Watch `run` until the returned registration is dropped.
///
/// # Safety
///
/// `run` must stay valid until the registration is dropped, and the
/// registration must be dropped (not leaked): the monitor keeps a pointer
/// to `run` without its lifetime. If the monitor thread cannot be started,
/// nothing is watched (runs still work, without rescue).
pub(crate) unsafe fn register(run: &(dyn Watched + '_)) -> Registration {
    let m = monitor();
    let mut reg = m.registry.lock().unwrap_or_else(|e| e.into_inner());
    reg.next_token += 1;
    let token = reg.next_token;
    // SAFETY: lifetime erasure only; the caller keeps `run` alive until the
    // registration's drop has removed the entry under the registry lock.
    let run: *const (dyn Watched + 'static) = unsafe { std::mem::transmute(run as *const (dyn Watched + '_)) };
    reg.runs.push(Entry { token, run });
    if !reg.started {
        reg.started = thread::Builder::new().name("ohua-monitor".into()).spawn(|| watch(monitor())).is_ok();
    } else if reg.sleeping {
        m.wake.notify_one();
    }
    Registration(token)
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut reg = monitor().registry.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = reg.runs.iter().position(|e| e.token == self.0) {
            reg.runs.swap_remove(at);
        }
    }
}

/// The monitor thread's loop. Checks run under the registry lock, so a run
/// cannot unregister (and free what it registered) in the middle of one.
fn watch(m: &'static Monitor) {
    let mut idle_ticks = 0;
    loop {
        let tick;
        {
            let mut reg = m.registry.lock().unwrap_or_else(|e| e.into_inner());
            if reg.runs.is_empty() {
                idle_ticks += 1;
                if idle_ticks > LINGER {
                    reg.sleeping = true;
                    while reg.runs.is_empty() {
                        reg = m.wake.wait(reg).unwrap_or_else(|e| e.into_inner());
                    }
                    reg.sleeping = false;
                }
            } else {
                idle_ticks = 0;
            }
            let mut streaming = false;
            for entry in &reg.runs {
                // SAFETY: registered runs stay valid while their entry is in
                // the registry, and we hold its lock.
                let run = unsafe { &*entry.run };
                run.check();
                streaming |= run.streaming();
            }
            tick = if streaming { TICK } else { SLOW_TICK };
        }
        thread::sleep(tick);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(AtomicUsize);

    impl Watched for Counting {
        fn check(&self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
        fn streaming(&self) -> bool {
            false
        }
    }

    #[test]
    fn a_registered_run_is_checked_every_tick_until_it_unregisters() {
        let run = Counting(AtomicUsize::new(0));
        // SAFETY: `run` outlives the registration, dropped below.
        let reg = unsafe { register(&run) };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while run.0.load(Ordering::Relaxed) < 3 {
            assert!(std::time::Instant::now() < deadline, "the monitor never checked the run");
            thread::sleep(TICK);
        }
        drop(reg);
        let after = run.0.load(Ordering::Relaxed);
        thread::sleep(SLOW_TICK * 5);
        assert_eq!(run.0.load(Ordering::Relaxed), after, "checked after unregistering");
    }
}
