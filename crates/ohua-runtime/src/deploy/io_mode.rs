//! How the batches of a run's data sources are sent.

use std::fmt;
use std::str::FromStr;

use super::DeployError;

/// How a run sends its fetches: batches ready at the same time (one per
/// data source) all at once, each on a thread of its own (ch. 4.3.2's
/// concurrent I/O, the default); or one after another (batching only,
/// `batch` in the dissertation's Table 4.1); or no batching at all, each
/// fetch a call of its own made where the dataflow reaches it (`base`, the
/// dataflow without the I/O rewrites). Sequential execution
/// (`ohua::sequential`) is Table 4.1's `seq`.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::IoMode;
/// assert_eq!("serial".parse::<IoMode>().unwrap(), IoMode::Serial);
/// assert_eq!(IoMode::default().to_string(), "concurrent");
/// assert!("fast".parse::<IoMode>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoMode {
    /// Every ready batch on a thread of its own; each answer is released to
    /// what depends on it as soon as it arrives.
    #[default]
    Concurrent,
    /// The ready batches one after another, on one thread.
    Serial,
    /// No batching: every fetch calls its source at once, with one request,
    /// on the thread that reaches it (which waits for the answer).
    Unbatched,
}

impl FromStr for IoMode {
    type Err = DeployError;
    fn from_str(s: &str) -> Result<Self, DeployError> {
        match s.trim() {
            "concurrent" => Ok(IoMode::Concurrent),
            "serial" => Ok(IoMode::Serial),
            "unbatched" => Ok(IoMode::Unbatched),
            other => Err(DeployError::Value {
                key: "io".to_string(),
                value: other.to_string(),
                reason: "expected `concurrent`, `serial` or `unbatched`",
            }),
        }
    }
}

impl fmt::Display for IoMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IoMode::Concurrent => "concurrent",
            IoMode::Serial => "serial",
            IoMode::Unbatched => "unbatched",
        })
    }
}
