//! The server's bounds: how much a client may send, how long it may take,
//! and how many clients are served at once.

use std::time::Duration;

/// Bounds on connections and requests. Every buffer the server keeps per
/// connection is bounded by these, and every wait has a deadline, so a
/// client cannot make the server grow or stall for others.
///
/// Built from [`Limits::default`] with one method per bound, named after
/// the field it sets; the fields stay public for reading, but the struct is
/// `#[non_exhaustive]`, so a bound added later does not break code that
/// builds one (a struct literal does not compile outside this crate).
///
/// # Example
///
/// ```
/// use ohua_examples::web::Limits;
/// use std::time::Duration;
/// let l = Limits::default().max_connections(64).idle_timeout(Duration::from_secs(5));
/// assert_eq!((l.max_connections, l.idle_timeout), (64, Duration::from_secs(5)));
/// assert_eq!(l.max_head, 16 * 1024, "the rest keep their defaults");
/// ```
///
/// ```compile_fail,E0639
/// use ohua_examples::web::Limits;
/// let l = Limits { max_connections: 64, ..Limits::default() };
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Open connections at most. At the bound, a new client closes the
    /// connection idle longest (no request in progress), as nginx does;
    /// with none idle, it waits in the listen backlog until one closes.
    pub max_connections: usize,
    /// The longest request line (method, target, version); longer: 414.
    pub max_request_line: usize,
    /// The longest request head (request line and headers); longer: 431.
    pub max_head: usize,
    /// Headers per request at most; more: 431.
    pub max_headers: usize,
    /// Time from the first byte of a request to its last header byte
    /// (slowloris); then the connection is closed.
    pub head_timeout: Duration,
    /// Time a kept-alive connection may stay idle between requests.
    pub idle_timeout: Duration,
    /// Time a response may wait for a client that does not read it: from
    /// the last write that made progress (as nginx's `send_timeout`), so a
    /// large file is not cut off from a client that keeps reading it.
    pub write_timeout: Duration,
    /// The largest file `load` reads into memory (and caches): a larger
    /// one is streamed from the open file, so a client that reads it
    /// slowly costs no buffer in the server, and a file of any size is
    /// served ([`super::Root::stream_above`]; 256 KiB).
    pub stream_above: u64,
    /// The largest file [`super::Root::read`] reads into memory; larger
    /// ones are 500 there. The server's `load` does not use it: files over
    /// `stream_above` are streamed, at any size ([`super::Root::max_file`]).
    pub max_file: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            max_request_line: 8 * 1024,
            max_head: 16 * 1024,
            max_headers: 64,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            stream_above: 256 * 1024,
            max_file: 64 * 1024 * 1024,
        }
    }
}

impl Limits {
    /// The same limits, with at most `max_connections` connections open at
    /// once (see the field).
    ///
    /// # Panics
    ///
    /// If `max_connections` is 0: no client would ever be served.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().max_connections(64).max_connections, 64);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn max_connections(mut self, max_connections: usize) -> Limits {
        self.max_connections = positive("max_connections", max_connections);
        self
    }

    /// The same limits, with request lines of at most `max_request_line`
    /// bytes (longer: 414).
    ///
    /// # Panics
    ///
    /// If `max_request_line` is 0: every request would be rejected.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().max_request_line(64).max_request_line, 64);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn max_request_line(mut self, max_request_line: usize) -> Limits {
        self.max_request_line = positive("max_request_line", max_request_line);
        self
    }

    /// The same limits, with request heads of at most `max_head` bytes
    /// (longer: 431).
    ///
    /// # Panics
    ///
    /// If `max_head` is 0: every request would be rejected.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().max_head(256).max_head, 256);
    /// ```
    #[must_use]
    #[track_caller]
    pub fn max_head(mut self, max_head: usize) -> Limits {
        self.max_head = positive("max_head", max_head);
        self
    }

    /// The same limits, with at most `max_headers` headers per request
    /// (more: 431; 0 admits only requests without headers).
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().max_headers(4).max_headers, 4);
    /// ```
    #[must_use]
    pub fn max_headers(mut self, max_headers: usize) -> Limits {
        self.max_headers = max_headers;
        self
    }

    /// The same limits, with `head_timeout` from the first byte of a request
    /// to its last header byte.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// use std::time::Duration;
    /// let l = Limits::default().head_timeout(Duration::from_secs(2));
    /// assert_eq!(l.head_timeout, Duration::from_secs(2));
    /// ```
    #[must_use]
    pub fn head_timeout(mut self, head_timeout: Duration) -> Limits {
        self.head_timeout = head_timeout;
        self
    }

    /// The same limits, with `idle_timeout` for a kept-alive connection
    /// between requests.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// use std::time::Duration;
    /// let l = Limits::default().idle_timeout(Duration::from_secs(5));
    /// assert_eq!(l.idle_timeout, Duration::from_secs(5));
    /// ```
    #[must_use]
    pub fn idle_timeout(mut self, idle_timeout: Duration) -> Limits {
        self.idle_timeout = idle_timeout;
        self
    }

    /// The same limits, with `write_timeout` for a response whose client
    /// does not read it (from the last write that made progress).
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// use std::time::Duration;
    /// let l = Limits::default().write_timeout(Duration::from_millis(600));
    /// assert_eq!(l.write_timeout, Duration::from_millis(600));
    /// ```
    #[must_use]
    pub fn write_timeout(mut self, write_timeout: Duration) -> Limits {
        self.write_timeout = write_timeout;
        self
    }

    /// The same limits, with files over `stream_above` bytes streamed
    /// rather than read into memory. A server streams by its root's
    /// [`super::Root::stream_above`], which [`super::Root::new`] takes from
    /// `Limits::default()`: set that one to change what a server streams.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().stream_above(1 << 20).stream_above, 1 << 20);
    /// ```
    #[must_use]
    pub fn stream_above(mut self, stream_above: u64) -> Limits {
        self.stream_above = stream_above;
        self
    }

    /// The same limits, with files of at most `max_file` bytes read into
    /// memory by [`super::Root::read`]; as with
    /// [`stream_above`](Limits::stream_above), a root has its own
    /// [`super::Root::max_file`], taken from `Limits::default()`.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_examples::web::Limits;
    /// assert_eq!(Limits::default().max_file(1 << 20).max_file, 1 << 20);
    /// ```
    #[must_use]
    pub fn max_file(mut self, max_file: u64) -> Limits {
        self.max_file = max_file;
        self
    }
}

/// `n`, if it is positive; the builders' check.
#[track_caller]
fn positive(key: &str, n: usize) -> usize {
    assert!(n > 0, "Limits::{key}(0): expected a positive number, or no request could be served");
    n
}

#[cfg(test)]
mod tests {
    use super::Limits;
    use std::time::Duration;

    /// Each builder method sets the field it names and nothing else.
    #[test]
    fn each_builder_sets_exactly_its_field() {
        let base = Limits::default();
        let second = Duration::from_secs(1);
        let by_hand = |set: fn(&mut Limits)| {
            let mut l = base;
            set(&mut l);
            l
        };
        let cases = [
            (base.max_connections(3), by_hand(|l| l.max_connections = 3)),
            (base.max_request_line(3), by_hand(|l| l.max_request_line = 3)),
            (base.max_head(3), by_hand(|l| l.max_head = 3)),
            (base.max_headers(3), by_hand(|l| l.max_headers = 3)),
            (base.head_timeout(second), by_hand(|l| l.head_timeout = Duration::from_secs(1))),
            (base.idle_timeout(second), by_hand(|l| l.idle_timeout = Duration::from_secs(1))),
            (base.write_timeout(second), by_hand(|l| l.write_timeout = Duration::from_secs(1))),
            (base.stream_above(3), by_hand(|l| l.stream_above = 3)),
            (base.max_file(3), by_hand(|l| l.max_file = 3)),
        ];
        for (built, by_hand) in cases {
            assert_ne!(by_hand, base, "3 and 1 s are not defaults");
            assert_eq!(built, by_hand);
        }
    }

    #[test]
    #[should_panic(expected = "Limits::max_connections(0)")]
    fn zero_connections_are_rejected() {
        let _ = Limits::default().max_connections(0);
    }
}
