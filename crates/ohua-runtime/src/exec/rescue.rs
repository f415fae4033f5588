//! Taking a section away from a thread that is stuck in one operator's step.
//!
//! An operator may block its thread inside `step`: a loop over a channel or
//! a socket waits in the iterator's `next()`, a call may wait for I/O. The
//! section's other operators must keep running meanwhile, or a source that
//! waits for the effect of its previous item (a keep-alive client) waits
//! forever for operators that sit behind it on the same thread. So, as Go's
//! `sysmon` retakes a processor from a thread blocked in a system call, the
//! monitor (`monitor.rs`) notices a step that has not ended for a tick or
//! two and hands the section to a new thread, leaving the stuck operator
//! with the stuck thread until its step returns (`README.md`, "Rescue").
//!
//! This file holds the two sides of the hand-over, a Dekker pair:
//!
//! * the driver, on every step: [`Beat::enter`], the step, [`Beat::leave`],
//!   light fence, then [`still_driver`] (one relaxed load);
//! * the monitor, under the section's lock: [`try_retake`] stores the new
//!   driver's id, issues the heavy fence and looks at the beat again.
//!
//! With the fences, either the monitor sees the step end (and gives the
//! section back) or the driver sees the new id when its step ends (and
//! touches nothing of the section's but its own operator after that). The
//! loom model at the bottom checks that nobody ever drives alongside.

use crate::sync::{AtomicBool, AtomicU64, Fences, Ordering};

/// Bits of a beat that name the task being stepped: its section
/// ([`SECTION_BITS`] above) and its index there. A host steps the tasks of
/// the sections it hosts under its own beat (`hosting.rs`), so the monitor
/// must tell whose task is stuck.
const TASK_BITS: u32 = 40;

/// Bits of a beat's task that hold the task's index in its section.
const INDEX_BITS: u32 = 20;

/// A task named in a beat: section `section`'s task `index`.
pub(crate) fn tag(section: usize, index: usize) -> usize {
    (section << INDEX_BITS) | (index & ((1 << INDEX_BITS) - 1))
}

/// The section and index a [`tag`] names.
pub(crate) fn untag(tag: usize) -> (usize, usize) {
    (tag >> INDEX_BITS, tag & ((1 << INDEX_BITS) - 1))
}

/// One driver's heartbeat: odd while it is inside a step (with the task's
/// index), even between steps, and different for every step.
///
/// Every driver has a beat of its own: a thread that was replaced still
/// writes its beat when its step returns, and must not overwrite the new
/// driver's.
pub(crate) struct Beat(AtomicU64, AtomicU64, AtomicBool);

impl Beat {
    /// A beat that is between steps.
    pub(crate) fn new() -> Self {
        Beat(AtomicU64::new(0), AtomicU64::new(0), AtomicBool::new(false))
    }

    /// In a run that fetches, the monitor stops counting a driver whose
    /// step it saw blocked for a tick (`seen`): a thread waiting in a
    /// socket read cannot submit a request, so the run may be quiet and
    /// send its batch (`io/README.md`). A Dekker pair with
    /// [`Beat::take_back_lent`]: either the monitor sees the step end and
    /// takes its lend back, or the driver sees the lend and counts itself.
    /// `fences`: the run's (`SleepFlag::fences`), as the driver's.
    pub(crate) fn lend(&self, seen: u64, quiet: &crate::io::Quiet, fences: Fences) {
        if self.2.load(Ordering::Relaxed) {
            return; // lent already during this step
        }
        self.2.store(true, Ordering::SeqCst);
        fences.heavy();
        if self.read() == seen || !self.2.swap(false, Ordering::AcqRel) {
            // Still blocked, or the driver came back and counted itself
            // again already: either way one count is ours to give up.
            quiet.leave_blocked();
        }
    }

    /// After every step of a run that fetches (following the light fence of
    /// [`still_driver`]): if the monitor lent this driver's count, count it
    /// again.
    #[inline]
    pub(crate) fn take_back_lent(&self, quiet: &crate::io::Quiet) {
        if self.2.load(Ordering::Relaxed) && self.2.swap(false, Ordering::AcqRel) {
            quiet.enter();
        }
    }

    /// The driver beating on it runs on the calling thread ([`is_running`]).
    pub(crate) fn set_thread(&self) {
        self.1.store(current_tid() as u64, Ordering::Relaxed);
    }

    /// The kernel id of the driver's thread (0 if not set).
    pub(crate) fn thread(&self) -> i32 {
        self.1.load(Ordering::Relaxed) as i32
    }

    /// The driver enters the step of task `task`; `seq` is its step count.
    /// `Release`: the monitor that reads this beat and hands the section to
    /// a new driver makes everything this driver did before the step
    /// visible to the new one.
    #[inline(always)]
    pub(crate) fn enter(&self, seq: &mut u64, task: usize) {
        *seq = seq.wrapping_add(1);
        let task = (task as u64) & ((1 << TASK_BITS) - 1);
        self.0.store((*seq << (TASK_BITS + 1)) | (task << 1) | 1, Ordering::Release);
    }

    /// The driver's step returned; follow with [`still_driver`].
    #[inline(always)]
    pub(crate) fn leave(&self, seq: u64) {
        self.0.store(seq << (TASK_BITS + 1), Ordering::Release);
    }

    /// The current value, as the monitor sees it.
    pub(crate) fn read(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
}

/// Whether the thread with kernel id `tid` is on a CPU or waiting for one
/// (state `R`), as opposed to sleeping in a blocking call (`S`, `D`).
///
/// A step seen on two ticks is usually blocked (a `recv`, a read), but on an
/// oversubscribed machine a busy driver may just have been preempted for a
/// few milliseconds; handing its section to yet another thread would only
/// add to the load. Read only for a section that looks stuck, so the cost
/// (an open and a read of `/proc`, some microseconds) is paid per candidate,
/// not per tick. Where it cannot be told (other systems, `/proc` missing),
/// the thread counts as blocked: a needless rescue costs a hand-over, a
/// missed one could cost a deadlock.
pub(crate) fn is_running(tid: i32) -> bool {
    #[cfg(target_os = "linux")]
    {
        let Ok(stat) = std::fs::read(format!("/proc/self/task/{tid}/stat")) else { return false };
        // `pid (comm) state ...`; `comm` may contain spaces and parentheses.
        let Some(close) = stat.iter().rposition(|&b| b == b')') else { return false };
        stat.get(close + 2) == Some(&b'R')
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = tid;
        false
    }
}

/// The kernel id of the calling thread (0 where there is none to read).
pub(crate) fn current_tid() -> i32 {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions.
    return unsafe { libc::gettid() };
    #[cfg(not(target_os = "linux"))]
    0
}

/// The task a beat value is stepping, if it is inside a step.
pub(crate) fn stepping(beat: u64) -> Option<usize> {
    (beat & 1 == 1).then_some(((beat >> 1) & ((1 << TASK_BITS) - 1)) as usize)
}

/// After [`Beat::leave`]: whether `me` still drives the section whose
/// current driver id is `driver`. If not, the caller's step was taken over
/// while it ran and the caller must go through the section's lock.
#[inline(always)]
pub(crate) fn still_driver(driver: &AtomicU64, me: u64, fences: Fences) -> bool {
    // Pairs with the heavy fence in `try_retake`.
    fences.light();
    driver.load(Ordering::Relaxed) == me
}

/// The monitor's side, under the section's lock: the current driver (`old`)
/// was seen inside the same step (`seen`) on two ticks. Announce `new` as the
/// driver; if the step is *still* the same after the fence, the hand-over
/// holds: the stuck driver will see `new` as soon as its step returns.
/// Otherwise the step has just ended; `old` is restored and the driver,
/// should it have seen `new` meanwhile, finds itself still in charge under
/// the lock.
pub(crate) fn try_retake(driver: &AtomicU64, beat: &Beat, seen: u64, old: u64, new: u64, fences: Fences) -> bool {
    driver.store(new, Ordering::SeqCst);
    fences.heavy();
    if beat.read() == seen {
        return true;
    }
    driver.store(old, Ordering::SeqCst);
    false
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn a_beat_names_the_task_inside_a_step_and_nothing_between_steps() {
        let beat = Beat::new();
        let mut seq = 0;
        assert_eq!(stepping(beat.read()), None);
        beat.enter(&mut seq, 7);
        let inside = beat.read();
        assert_eq!(stepping(inside), Some(7));
        beat.leave(seq);
        assert_eq!(stepping(beat.read()), None);
        beat.enter(&mut seq, 7);
        assert_ne!(beat.read(), inside, "every step has a beat of its own");
        beat.enter(&mut seq, tag(3, 70_000));
        assert_eq!(stepping(beat.read()).map(untag), Some((3, 70_000)), "a hosted section's task is named");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_blocked_thread_is_told_from_a_running_one() {
        assert!(is_running(current_tid()), "the calling thread is running");
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let blocked = std::thread::spawn(move || {
            tid_tx.send(current_tid()).unwrap();
            rx.recv().ok();
        });
        let tid = tid_rx.recv().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while is_running(tid) {
            assert!(std::time::Instant::now() < deadline, "a thread in recv() kept state R");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        tx.send(()).unwrap();
        blocked.join().unwrap();
    }

    #[test]
    fn a_retake_holds_only_while_the_step_is_the_same() {
        let driver = AtomicU64::new(1);
        let beat = Beat::new();
        let mut seq = 0;
        beat.enter(&mut seq, 0);
        let seen = beat.read();
        assert!(try_retake(&driver, &beat, seen, 1, 2, Fences::for_run(true)));
        beat.leave(seq);
        assert!(!still_driver(&driver, 1, Fences::for_run(true)), "the stuck driver learns it was replaced");

        let driver = AtomicU64::new(1);
        beat.enter(&mut seq, 0);
        let seen = beat.read();
        beat.leave(seq);
        assert!(!try_retake(&driver, &beat, seen, 1, 2, Fences::for_run(true)));
        assert!(still_driver(&driver, 1, Fences::for_run(true)), "a step that ended keeps its driver");
    }
}

/// Every interleaving of one step against one retake:
/// `RUSTFLAGS="--cfg loom" cargo test -p ohua-runtime --release --lib loom`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;

    /// The section's state that only its driver may touch (its parker, its
    /// other operators): loom reports two threads touching it concurrently.
    struct Section {
        driver: AtomicU64,
        beat: Beat,
        owned: UnsafeCell<u32>,
    }

    #[test]
    fn loom_a_retaken_section_is_never_driven_by_two_threads() {
        loom::model(|| {
            let s = Arc::new(Section { driver: AtomicU64::new(1), beat: Beat::new(), owned: UnsafeCell::new(0) });
            let d = s.clone();
            let driver = thread::spawn(move || {
                let mut seq = 0;
                d.owned.with_mut(|p| unsafe { *p += 1 }); // before the step
                d.beat.enter(&mut seq, 3);
                d.beat.leave(seq); // the step returned
                if still_driver(&d.driver, 1, Fences::SYMMETRIC) {
                    d.owned.with_mut(|p| unsafe { *p += 1 }); // the next step
                }
            });
            // The monitor saw the step once (it may already be over).
            let seen = loop {
                let v = s.beat.read();
                if stepping(v).is_some() || v != 0 {
                    break v;
                }
                thread::yield_now();
            };
            if stepping(seen) == Some(3) && try_retake(&s.driver, &s.beat, seen, 1, 2, Fences::SYMMETRIC) {
                s.owned.with_mut(|p| unsafe { *p += 10 }); // the new driver
            }
            driver.join().unwrap();
        });
    }
}
