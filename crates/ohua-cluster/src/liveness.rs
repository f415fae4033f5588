//! Which processes are alive: heartbeats and broken connections.
//!
//! Two ways a process goes away. It dies, or its host does: its TCP
//! connections close or reset, and timely's receive thread for it panics
//! with "timely communication error" (by design, to take the computation
//! down). That thread is named `timely:recv-N` (or `timely:send-N`), N the
//! process, so a panic hook installed once records which process broke
//! ([`broken_connections`]). Or it stops answering while its connections
//! stay open (stopped, swapped out, a partition that TCP has not noticed):
//! every worker sends a heartbeat to the caller every [`BEAT_EVERY`], and a
//! process silent for longer than the timeout is reported ([`Beats`]).

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// How often each worker sends a heartbeat.
pub const BEAT_EVERY: Duration = Duration::from_millis(200);

/// When the caller last heard from each process.
#[derive(Debug)]
pub(crate) struct Beats {
    last: Vec<Instant>,
}

impl Beats {
    /// Every process counts as heard from at `now` (the cluster just formed).
    pub(crate) fn new(processes: usize, now: Instant) -> Self {
        Beats { last: vec![now; processes] }
    }

    /// Process `process` was heard from at `now`.
    pub(crate) fn heard(&mut self, process: usize, now: Instant) {
        if let Some(t) = self.last.get_mut(process) {
            *t = (*t).max(now);
        }
    }

    /// The `watched` process silent longest, if longer than `timeout`,
    /// with how long.
    pub(crate) fn silent(
        &self,
        now: Instant,
        timeout: Duration,
        watched: impl Fn(usize) -> bool,
    ) -> Option<(usize, Duration)> {
        self.last
            .iter()
            .enumerate()
            .filter(|&(p, _)| watched(p))
            .map(|(p, t)| (p, now.saturating_duration_since(*t)))
            .filter(|&(_, d)| d > timeout)
            .max_by_key(|&(_, d)| d)
    }
}

/// Connections that broke in this process, in the order they broke, by
/// remote process, with the first message of each. The order matters: when
/// one process dies, the others' connections to it break first, and a
/// process that then stops because of it breaks more connections later.
static BROKEN: Mutex<Vec<(usize, String)>> = Mutex::new(Vec::new());
static HOOK: Once = Once::new();

/// Install (once per process) the panic hook that records which process's
/// connection broke. It calls the hook that was there before, so panics
/// print as they did.
pub(crate) fn watch_connections() {
    HOOK.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if let Some(process) = std::thread::current().name().and_then(remote_of_thread) {
                let message = info
                    .payload()
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                if let Ok(mut broken) = BROKEN.lock() {
                    if broken.iter().all(|(p, _)| *p != process) {
                        broken.push((process, message));
                    }
                }
            }
            before(info);
        }));
    });
}

/// The processes whose connections broke, with the message, first broken
/// first.
pub(crate) fn broken_connections() -> Vec<(usize, String)> {
    BROKEN.lock().map(|b| b.clone()).unwrap_or_default()
}

/// Forget broken connections (a new cluster formed in this process).
pub(crate) fn forget_broken_connections() {
    if let Ok(mut b) = BROKEN.lock() {
        b.clear();
    }
}

/// `timely:recv-3` → 3: the process a communication thread talks to.
fn remote_of_thread(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("timely:recv-").or_else(|| name.strip_prefix("timely:send-"))?;
    rest.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_silent_process_past_the_timeout_is_named() {
        let t0 = Instant::now();
        let mut b = Beats::new(3, t0);
        b.heard(0, t0 + Duration::from_secs(6));
        b.heard(2, t0 + Duration::from_secs(3));
        let all = |_| true;
        assert_eq!(
            b.silent(t0 + Duration::from_secs(6), Duration::from_secs(5), all),
            Some((1, Duration::from_secs(6)))
        );
        // A process that watches only the caller does not name process 1.
        assert_eq!(b.silent(t0 + Duration::from_secs(6), Duration::from_secs(5), |p| p == 0), None);
        b.heard(1, t0 + Duration::from_secs(6));
        assert_eq!(b.silent(t0 + Duration::from_secs(6), Duration::from_secs(5), all), None);
        assert_eq!(
            b.silent(t0 + Duration::from_secs(9), Duration::from_secs(5), all),
            Some((2, Duration::from_secs(6)))
        );
    }

    #[test]
    fn communication_threads_name_their_remote_process() {
        assert_eq!(remote_of_thread("timely:recv-3"), Some(3));
        assert_eq!(remote_of_thread("timely:send-12"), Some(12));
        assert_eq!(remote_of_thread("main"), None);
    }

    #[test]
    fn a_panic_on_a_receive_thread_is_recorded_for_its_process() {
        watch_connections();
        let t = std::thread::Builder::new()
            .name("timely:recv-7".into())
            .spawn(|| panic!("timely communication error: reading data: socket closed"))
            .unwrap();
        assert!(t.join().is_err());
        let broken = broken_connections();
        assert!(broken.iter().any(|(p, m)| *p == 7 && m.contains("socket closed")), "{broken:?}");
    }
}
