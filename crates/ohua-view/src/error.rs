//! What can go wrong when starting the view or reading a saved report.

/// An error of the view: a bad address, a refused bind, an unreadable
/// report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ViewError {
    /// The address is not `host:port` or a port.
    #[error("`{given}` is not an address to serve the view on: {why} (expected `127.0.0.1:PORT` or a port)")]
    BadAddress {
        /// What was given.
        given: String,
        /// Why it does not parse.
        why: String,
    },
    /// The address is reachable from other hosts and that was not allowed.
    #[error(
        "refusing to serve the view on {addr}, which other hosts can reach: bind a loopback address \
         (127.0.0.1:PORT), or allow it explicitly (OHUA_VIEW_PUBLIC=1, `ohua view --public`, `Bind::public`)"
    )]
    NotLoopback {
        /// The address asked for.
        addr: std::net::SocketAddr,
    },
    /// The server could not listen on the address (in use, no permission).
    #[error("cannot serve the view on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A saved report is not a view document.
    #[error("not an Ohua view report: {0}")]
    Json(#[from] serde_json::Error),
    /// A saved report of another version of this format.
    #[error("a view report of schema {found}; this version reads schema {expected}")]
    Schema {
        /// The document's `schema`.
        found: u32,
        /// [`crate::SCHEMA`].
        expected: u32,
    },
}
