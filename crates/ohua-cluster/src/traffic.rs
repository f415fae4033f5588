//! Bytes this process sent to the others, counted by timely's own
//! communication log: every message a send thread writes, header included.
//! Progress messages and heartbeats count too; they are part of the cost of
//! spreading a stage.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use timely::communication::logging::{CommunicationEvent, CommunicationEventBuilder, CommunicationSetup};
use timely::logging_core::Logger;

static BYTES_SENT: AtomicU64 = AtomicU64::new(0);

/// Bytes this process's connections have sent since it started (all
/// stages), as far as the send threads have logged them: a send thread
/// logs in batches, and its last batch when it ends.
///
/// # Example
///
/// ```
/// // One process: no connections, nothing sent.
/// assert_eq!(ohua_cluster::bytes_sent(), 0);
/// ```
pub fn bytes_sent() -> u64 {
    BYTES_SENT.load(Ordering::Relaxed)
}

/// The `log_fn` of timely's cluster configuration: a logger on each send
/// thread that adds what it sends to [`bytes_sent`].
pub(crate) type LogFn = Arc<dyn Fn(CommunicationSetup) -> Option<Logger<CommunicationEventBuilder>> + Send + Sync>;

pub(crate) fn counting_log_fn() -> LogFn {
    Arc::new(|setup: CommunicationSetup| {
        if !setup.sender {
            return None;
        }
        Some(Logger::new(
            Instant::now(),
            Duration::ZERO,
            |_, events: &mut Option<Vec<(Duration, CommunicationEvent)>>| {
                let sent: usize = events
                    .iter()
                    .flatten()
                    .filter_map(|(_, e)| match e {
                        CommunicationEvent::Message(m) if m.is_send => Some(m.header.required_bytes()),
                        _ => None,
                    })
                    .sum();
                BYTES_SENT.fetch_add(sent as u64, Ordering::Relaxed);
            },
        ))
    })
}
