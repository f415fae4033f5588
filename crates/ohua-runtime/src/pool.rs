//! The worker pool: threads that run sections and are kept across runs.
//!
//! Every section of a run needs a thread of its own *at the same time*: a
//! section is a loop that parks until another section of the same run feeds
//! it, and an operator may block on I/O. A pool with a fixed number of
//! threads that queues jobs (rayon, `threadpool`) could leave a section
//! queued behind the sections that wait for it, and the run would never
//! finish. So this pool never makes a job wait: a job goes to an idle worker
//! or, if none is idle, to a new one. What the pool saves is the thread
//! itself: with a thread spawned and joined per section and run, a
//! two-section call of a small algorithm cost 70-102 µs on the project's
//! VM, with the pool 6-7 µs (`BENCHMARKS.md`, the `calls` benchmark). A
//! worker that stays idle for [`IDLE_TIMEOUT`] exits, so a process that
//! stops calling algorithms keeps no threads.
//!
//! Jobs borrow the caller's data, as with `std::thread::scope`: [`Scope`]
//! erases the borrow's lifetime and waits, in its destructor, until every
//! job it started has finished. Nothing a job borrows can go away before it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::sync::process::{Arc, Condvar, Mutex, OnceLock};
use crate::sync::{thread, Backoff, Parker, Unparker};

/// How long a section (`exec/section.rs`) keeps polling (spinning, then yielding) after its last
/// progress before it parks. A parked wake-up costs tens of microseconds on
/// these VMs; a peer that produces again within this window is picked up
/// without one. The worker pool polls as long before an idle
/// worker, or a caller waiting for its sections, goes to sleep.
pub(crate) const SPIN_WINDOW: Duration = Duration::from_micros(50);

/// How long an idle worker waits for a job before it exits.
#[cfg(not(test))]
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(5);
/// Shorter in this crate's unit tests: the test that waits for an idle
/// worker to exit runs alone (`tests::pool_alone`), holding back every
/// test that runs a graph meanwhile.
#[cfg(test)]
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(1);

/// The name idle workers carry (a running worker carries its section's name).
const IDLE_NAME: &str = "ohua-idle";

/// A job as the pool sees it: the work, its thread name, and the mark its
/// scope waits for. The worker drops `finished` only after the work is done
/// *and* the worker is back in the idle list, so a caller that runs
/// algorithms back to back finds the worker idle again.
struct Job {
    work: Box<dyn FnOnce() + Send + 'static>,
    name: String,
    finished: Finished,
}

/// One worker thread: the job handed to it and how to wake it.
struct Worker {
    job: Mutex<Option<Job>>,
    /// Set (after `job`) when a job is handed over, so an idle worker that
    /// is still spinning sees it without the lock.
    handed: AtomicBool,
    unparker: Unparker,
}

/// The process-wide set of idle workers.
struct Pool {
    idle: Mutex<Vec<Arc<Worker>>>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool { idle: Mutex::new(Vec::new()) })
}

impl Pool {
    /// Run `job` on an idle worker, or on a new one.
    ///
    /// # Errors
    ///
    /// The operating system refused a new thread (the job is dropped unrun).
    fn submit(&'static self, job: Job) -> std::io::Result<()> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match idle {
            Some(worker) => {
                *worker.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
                worker.handed.store(true, Ordering::Release);
                worker.unparker.unpark();
                Ok(())
            }
            None => {
                let parker = Parker::new();
                let worker = Arc::new(Worker {
                    job: Mutex::new(Some(job)),
                    handed: AtomicBool::new(true),
                    unparker: parker.unparker().clone(),
                });
                thread::Builder::new().name(IDLE_NAME.into()).spawn(move || self.work(&worker, parker)).map(drop)
            }
        }
    }

    /// A worker's life: run the job it was given, offer itself as idle,
    /// wait for the next job, and exit after [`IDLE_TIMEOUT`] without one.
    fn work(&'static self, me: &Arc<Worker>, parker: Parker) {
        loop {
            me.handed.store(false, Ordering::Relaxed);
            let job = me.job.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(Job { work, name, finished }) = job {
                set_thread_name(&name);
                JOB_NAME.with(|n| *n.borrow_mut() = Some(name));
                // A section catches its own panics; this keeps the worker
                // alive should anything else unwind.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
                JOB_NAME.with(|n| n.borrow_mut().take());
                set_thread_name(IDLE_NAME);
                self.idle.lock().unwrap_or_else(|e| e.into_inner()).push(me.clone());
                drop(finished);
                continue;
            }
            if spin_until(SPIN_WINDOW, || me.handed.load(Ordering::Acquire)) {
                continue;
            }
            if self.sleep(me, &parker) == Idle::Exit {
                return;
            }
        }
    }

    /// Sleep until a job is handed over or [`IDLE_TIMEOUT`] has passed.
    ///
    /// `park_deadline` may return early: a stale unpark token (left by a
    /// hand-over the worker saw while spinning) or a spurious wake-up. Only
    /// the deadline decides that the worker leaves; an early return without
    /// a job just parks again.
    fn sleep(&'static self, me: &Arc<Worker>, parker: &Parker) -> Idle {
        let deadline = Instant::now() + IDLE_TIMEOUT;
        loop {
            parker.park_deadline(deadline);
            if me.job.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                return Idle::Work;
            }
            if Instant::now() < deadline {
                continue;
            }
            // If we are still in the idle list, nobody can hand us a job
            // once we leave it; if we are not, a submitter took us and its
            // job is on the way.
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            return match idle.iter().position(|w| Arc::ptr_eq(w, me)) {
                Some(at) => {
                    idle.swap_remove(at);
                    Idle::Exit
                }
                None => Idle::Work,
            };
        }
    }
}

/// What an idle worker does after sleeping.
#[derive(PartialEq, Eq)]
enum Idle {
    /// A job is there or on the way.
    Work,
    /// Timed out and left the idle list.
    Exit,
}

/// Counts a scope's unfinished jobs; the scope's owner waits for zero.
///
/// Like crossbeam's `WaitGroup`, plus what it lacks: the owner first polls
/// the count for [`SPIN_WINDOW`] (the sections of a small run finish within
/// microseconds of each other, and a condvar wake-up costs tens of them),
/// the same window a worker polls for its next job.
#[derive(Default)]
struct Pending {
    count: AtomicUsize,
    lock: Mutex<()>,
    zero: Condvar,
}

/// Marks one job finished when dropped, also if the job unwinds.
struct Finished(Arc<Pending>);

impl Drop for Finished {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock: the waiter checks the count under it before
            // it sleeps, so this notification cannot fall between the two.
            let _guard = self.0.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.0.zero.notify_all();
        }
    }
}

/// Run `job` on a pool worker named `name` while it runs, without waiting
/// for it: for work that owns everything it uses and that its owner waits
/// for by other means (the I/O batches of a run, `io/run.rs`).
///
/// # Errors
///
/// The operating system refused a new thread; `job` was dropped unrun.
pub(crate) fn spawn_detached(name: &str, job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    let pending = Arc::new(Pending::default());
    pending.count.fetch_add(1, Ordering::Relaxed);
    pool().submit(Job { work: Box::new(job), name: name.to_string(), finished: Finished(pending) })
}

/// Jobs started on the pool that may borrow data living for `'a`.
///
/// Dropping the scope waits until every job it started has finished, so the
/// borrowed data outlives them.
pub(crate) struct Scope<'a> {
    pending: Arc<Pending>,
    _borrows: std::marker::PhantomData<&'a ()>,
}

impl<'a> Scope<'a> {
    pub(crate) fn new() -> Self {
        Scope { pending: Default::default(), _borrows: std::marker::PhantomData }
    }

    /// Run `job` on a pool worker named `name` while it runs.
    ///
    /// # Errors
    ///
    /// The operating system refused a new thread; `job` was not run.
    pub(crate) fn spawn(&self, name: String, job: impl FnOnce() + Send + 'a) -> std::io::Result<()> {
        self.pending.count.fetch_add(1, Ordering::Relaxed);
        let finished = Finished(self.pending.clone());
        let work: Box<dyn FnOnce() + Send + 'a> = Box::new(job);
        // SAFETY: the work only runs while `self` exists: `Drop` below waits
        // until the `Finished` of every job has been dropped, which happens
        // after its work ran and was dropped (or with the work, if the job
        // never reached a worker).
        let work =
            unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + 'a>, Box<dyn FnOnce() + Send + 'static>>(work) };
        let job = Job { work, name, finished };
        pool().submit(job)
    }
}

impl Scope<'_> {
    /// Wait until every job started so far, and every job those jobs (or
    /// the monitor, for a job's section) start meanwhile, has finished.
    pub(crate) fn wait(&self) {
        let done = || self.pending.count.load(Ordering::Acquire) == 0;
        if spin_until(SPIN_WINDOW, done) {
            return;
        }
        let mut guard = self.pending.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !done() {
            guard = self.pending.zero.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        self.wait();
    }
}

/// Poll `ready` (spinning, then yielding) for up to `window`; whether it
/// became true.
fn spin_until(window: Duration, ready: impl Fn() -> bool) -> bool {
    let backoff = Backoff::new();
    let start = Instant::now();
    while !ready() {
        if backoff.is_completed() && start.elapsed() >= window {
            return false;
        }
        backoff.snooze();
    }
    true
}

std::thread_local! {
    /// The name of the job this worker runs. `set_thread_name` renames the
    /// thread only for the OS: std keeps the name given at spawn
    /// (`ohua-idle`) for panic messages.
    static JOB_NAME: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The name of the job (`ohua-<algorithm>-s<k>`) the pool worker calling
/// this runs; `None` on other threads. Code that needs a panic to name the
/// section runs on a thread of that name (`update/named.rs`).
pub(crate) fn job_name() -> Option<String> {
    JOB_NAME.try_with(|n| n.borrow().clone()).ok().flatten()
}

/// Run `f` (a section driven by the thread that called the algorithm) as
/// the job named `name`, for [`job_name`]; restores the previous name.
pub(crate) fn as_job<R>(name: String, f: impl FnOnce() -> R) -> R {
    let prev = JOB_NAME.with(|n| n.borrow_mut().replace(name));
    struct Restore(Option<String>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = JOB_NAME.try_with(|n| *n.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(prev);
    f()
}

/// Name the current thread (`top`, `perf` and debuggers show it); Linux
/// keeps the first 15 bytes.
#[cfg(target_os = "linux")]
fn set_thread_name(name: &str) {
    let mut bytes: Vec<u8> = name.bytes().filter(|&b| b != 0).take(15).collect();
    bytes.push(0);
    // SAFETY: `bytes` is NUL-terminated and outlives the call.
    unsafe { libc::prctl(libc::PR_SET_NAME, bytes.as_ptr() as libc::c_ulong, 0, 0, 0) };
}

#[cfg(not(target_os = "linux"))]
fn set_thread_name(_: &str) {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{Scope, IDLE_TIMEOUT};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::Duration;

    /// The pool is process-wide: tests that count its workers take turns,
    /// and run while no test runs a graph (`crate::tests`).
    fn one_at_a_time() -> std::sync::RwLockWriteGuard<'static, ()> {
        crate::tests::pool_alone()
    }

    #[test]
    fn jobs_may_borrow_and_the_scope_waits_for_all_of_them() {
        let _turn = one_at_a_time();
        let hits = AtomicUsize::new(0);
        {
            let scope = Scope::new();
            for k in 0..8 {
                let hits = &hits;
                let job = move || {
                    std::thread::sleep(Duration::from_millis(5));
                    hits.fetch_add(1, Ordering::Relaxed);
                };
                scope.spawn(format!("ohua-test-{k}"), job).expect("spawn");
            }
        }
        assert_eq!(hits.load(Ordering::Relaxed), 8, "dropping the scope waited for every job");
    }

    /// The thread one job ran on.
    fn job_thread() -> std::thread::ThreadId {
        let seen = Mutex::new(None);
        {
            let scope = Scope::new();
            let seen = &seen;
            let job = move || *seen.lock().unwrap() = Some(std::thread::current().id());
            scope.spawn("ohua-test-reuse".into(), job).expect("spawn");
        }
        seen.into_inner().unwrap().expect("ran")
    }

    #[test]
    fn back_to_back_jobs_run_on_the_same_worker() {
        let _turn = one_at_a_time();
        let first = job_thread();
        // With pauses longer than the spin window, so the worker parks in
        // between and must not take a stale wake-up for its idle timeout.
        for pause in [0, 0, 1, 0, 2, 0, 5] {
            std::thread::sleep(Duration::from_millis(pause));
            assert_eq!(job_thread(), first, "a later job started a new worker");
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn an_idle_worker_exits_after_the_idle_timeout() {
        let _turn = one_at_a_time();
        let tid = Mutex::new(0);
        {
            let scope = Scope::new();
            let tid = &tid;
            // SAFETY: `gettid` has no preconditions.
            let job = move || *tid.lock().unwrap() = unsafe { libc::gettid() };
            scope.spawn("ohua-test-idle".into(), job).expect("spawn");
        }
        let task = format!("/proc/self/task/{}", tid.into_inner().unwrap());
        std::thread::sleep(IDLE_TIMEOUT / 2);
        assert!(std::path::Path::new(&task).exists(), "the worker waits for more work");
        let deadline = std::time::Instant::now() + IDLE_TIMEOUT * 2;
        while std::path::Path::new(&task).exists() {
            assert!(std::time::Instant::now() < deadline, "an idle worker outlived {:?}", IDLE_TIMEOUT * 2);
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    #[test]
    fn a_job_that_panics_still_counts_as_finished() {
        let _turn = one_at_a_time();
        let scope = Scope::new();
        scope.spawn("ohua-test-panic".into(), || panic!("job panics")).expect("spawn");
        drop(scope); // would hang if the panic lost the job's `Finished`
    }
}
