//! User code that an update runs at an operator (state transforms, state
//! conversions) runs on a thread named after the operator's section, so a
//! panic in it is reported as `thread 'ohua-<algorithm>-s<k>' panicked`.
//!
//! Why a thread of its own: a worker of the pool (`src/pool.rs`) is named
//! once, `ohua-idle`, when it is spawned; it renames itself for each
//! section only as the operating system sees it (`top`, `perf`), and the
//! standard library's panic message uses the name given at spawn. An update
//! runs such code once per operator, so a short-lived, correctly named
//! scoped thread costs little where it matters (a panic names the section).

use std::panic::resume_unwind;
use std::thread;

use crate::pool::job_name;

/// Run `f` on a scoped thread named as the section this worker runs (on
/// this thread if it is not a pool worker, or if no thread can be spawned).
/// A panic of `f` goes on unwinding here.
pub(crate) fn in_section_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let Some(name) = job_name() else { return f() };
    let mut f = Some(f);
    let pending = &mut f;
    let joined = thread::scope(|s| {
        let spawned = thread::Builder::new().name(name).spawn_scoped(s, move || pending.take().map(|f| f()));
        spawned.ok().map(|h| h.join())
    });
    match joined {
        Some(Ok(Some(v))) => v,
        Some(Err(payload)) => resume_unwind(payload),
        // Not spawned: `f` is still here.
        Some(Ok(None)) | None => f.take().map(|f| f()).expect("ohua internal error: a transform ran twice"),
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::in_section_thread;

    #[test]
    fn outside_the_pool_it_runs_on_the_calling_thread() {
        let here = std::thread::current().id();
        assert_eq!(in_section_thread(|| std::thread::current().id()), here);
    }
}
