//! The web server of the dissertation's chapter 2 (Fig. 2.2,
//! `accept -> read -> parse -> load -> compose -> reply`), as an Ohua
//! algorithm over real sockets.
//!
//! ```text
//! for conn in ready {              // accept: the connections with work
//!     let input = read(conn);      // the request's bytes, never blocking
//!     let request = parse(input);  // httparse, limits, the path
//!     let found = files.load(request);
//!     let response = compose(found);
//!     let served = reply(response); // write, send the connection home
//!     stats.record(served);
//! }
//! ```
//!
//! Each operator is an ordinary function on an [`Exchange`] (a connection
//! and how far its request has come). Where they run is a deployment
//! choice, made outside the code: the section strategies of Fig. 2.20 are
//! the files in `examples/web_server/` (`README.md` there), and the
//! data-sensitive variant of Fig. 2.25 is [`web_server_split`], whose
//! in-memory snippets and on-disk files are loaded in two branches that
//! can run in different sections.
//!
//! Live updates: a running server gets a cache
//! ([`Files::with_cache`]) or switches to zero-copy `sendfile(2)`
//! ([`switch_to_sendfile`], `load` and `reply` at one cut) while it serves
//! (`tests/web_live_update.rs`, `ohua-bench web-update`).
//!
//! Sockets are non-blocking: the loop's source, [`Ready`], waits in `epoll`
//! for connections that have bytes to read or room to write, so `read` and
//! `reply` never wait for a slow client, and a client that trickles its
//! headers or does not read its response is closed at its deadline
//! ([`Limits`]) while the others are served.
//!
//! Small files are read into memory (and cached, with the cache on); a
//! file over [`Root::stream_above`] (256 KiB) is left open and streamed
//! from it ([`Body::Stream`], `sendfile(2)` on Linux): a client that reads
//! slowly, or not at all, costs an open file and no buffer, and a file of
//! any size is served.

mod answer;
mod beneath;
mod body;
mod conditional;
mod conn;
mod docroot;
mod exchange;
mod files;
mod http;
mod limits;
mod load;
mod poller;
mod range;
mod respond;
mod server;
mod snippets;
mod stats;
mod target;
mod zero_copy;

pub use conditional::{Conditions, Validators};
pub use conn::{Conn, Wants};
pub use docroot::generate_root;
pub use exchange::{Body, Exchange, Found, OpenFile, Request, Step};
pub use files::{content_type, Root};
pub use http::{parse, parse_request, read};
pub use limits::Limits;
pub use load::Files;
pub use poller::{Ready, Shutdown};
pub use range::ContentRange;
#[doc(hidden)]
pub use respond::__ohua_slot_reply;
pub use respond::{compose, error_body, reason, reply, reply_sendfile};
pub use server::{start, Run, Server, Variant};
pub use snippets::{route, Snippets, SNIPPETS};
pub use stats::{ServeStats, Served};
pub use target::{parse_target, target_path, Target};
pub use zero_copy::{switch_to_sendfile, SENDFILE_HEADER};

/// The server of Fig. 2.2: every request goes the same way.
#[ohua::algorithm]
pub fn web_server(ready: Ready, root: &Root) -> ServeStats {
    let mut files = Files::new(root);
    let mut stats = ServeStats::new();
    for conn in ready {
        let input = read(conn);
        let request = parse(input);
        let found = files.load(request);
        let response = compose(found);
        let served = reply(response);
        stats.record(served);
    }
    stats
}

/// The data-sensitive server of Fig. 2.25: snippets under `news/` are
/// answered from memory, everything else from disk, in two branches, so a
/// deployment can give each its own section and small requests are not
/// stuck behind disk reads.
#[ohua::algorithm]
pub fn web_server_split(ready: Ready, root: &Root) -> ServeStats {
    let mut files = Files::new(root);
    let mut snippets = Snippets::new(root);
    let mut stats = ServeStats::new();
    for conn in ready {
        let input = read(conn);
        let request = parse(input);
        let (request, in_ram) = route(request);
        let response = if in_ram {
            let found = snippets.load(request);
            compose(found)
        } else {
            let found = files.load(request);
            compose(found)
        };
        let served = reply(response);
        stats.record(served);
    }
    stats
}
