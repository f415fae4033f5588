//! Small helpers the modules above share.

use std::any::Any;

/// The text of a panic payload: `&str` or `String`, else a placeholder.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "Box<dyn Any>".to_string()
    }
}

/// The CPU time the calling thread has used, in nanoseconds; `None` where
/// it cannot be read. Unlike a wall clock it does not advance while the
/// thread waits (a receive, a sleep).
#[cfg(unix)]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid place for the call to write the time to.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (r == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The CPU time the calling thread has used: not read on this platform.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    None
}
