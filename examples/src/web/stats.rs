//! What `reply` did, and the server's statistics of it: a state object
//! at the end of the loop.

use std::collections::BTreeMap;
use std::fmt;

/// What `reply` did, for the server's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// A response was written completely; its status and size.
    Answered {
        /// The status sent.
        status: u16,
        /// Bytes written for it.
        bytes: usize,
        /// The connection was closed after it.
        closed: bool,
        /// Its body went from an open file of the zero-copy `load` by
        /// `sendfile(2)` ([`super::reply_sendfile`], announced in the head).
        sendfile: bool,
        /// Its body was a large file streamed from the open file
        /// ([`super::Body::Stream`]), by either `reply`.
        streamed: bool,
    },
    /// The connection waits for more (a request's bytes or room to write).
    Waiting,
    /// The connection was closed (by the client, or for an error).
    Closed,
}

/// Responses by status, bytes written, connections closed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Complete responses by status.
    pub by_status: BTreeMap<u16, u64>,
    /// Bytes of complete responses.
    pub bytes: u64,
    /// Connections closed.
    pub closed: u64,
    /// Times a connection went back to wait for more bytes or room.
    pub waits: u64,
    /// Complete responses whose body was sent from an open file by
    /// `sendfile(2)` (after the zero-copy switch,
    /// [`super::switch_to_sendfile`]; the responses that say
    /// `X-Ohua-Body: sendfile`).
    pub sendfile: u64,
    /// Complete responses whose body was a large file streamed from the
    /// open file rather than read into memory
    /// ([`super::Root::stream_above`]).
    pub streamed: u64,
}

impl ServeStats {
    /// No responses yet.
    pub fn new() -> Self {
        ServeStats::default()
    }

    /// Count what `reply` did.
    pub fn record(&mut self, s: Served) {
        match s {
            Served::Answered { status, bytes, closed, sendfile, streamed } => {
                *self.by_status.entry(status).or_default() += 1;
                self.bytes += bytes as u64;
                self.closed += u64::from(closed);
                self.sendfile += u64::from(sendfile);
                self.streamed += u64::from(streamed);
            }
            Served::Waiting => self.waits += 1,
            Served::Closed => self.closed += 1,
        }
    }

    /// Complete responses.
    pub fn responses(&self) -> u64 {
        self.by_status.values().sum()
    }
}

impl fmt::Display for ServeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} responses (", self.responses())?;
        for (i, (status, n)) in self.by_status.iter().enumerate() {
            write!(f, "{}{status}: {n}", if i > 0 { ", " } else { "" })?;
        }
        write!(f, "), {} bytes, {} connections closed", self.bytes, self.closed)?;
        if self.streamed > 0 {
            write!(f, ", {} large files streamed", self.streamed)?;
        }
        if self.sendfile > 0 {
            write!(f, ", {} bodies by sendfile", self.sendfile)?;
        }
        Ok(())
    }
}
