//! Running the server on a thread, and stopping it.

use std::io;
use std::net::SocketAddr;
use std::thread::JoinHandle;

use ohua::Deployment;

use super::{web_server, web_server_split, Limits, Ready, Root, ServeStats, Shutdown};

/// Which algorithm serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// [`web_server`]: every request the same way.
    Plain,
    /// [`web_server_split`]: snippets from memory, files from disk.
    Split,
}

/// How the algorithm runs.
#[derive(Debug, Clone)]
pub enum Run {
    /// As a plain call: under the process's configuration (`OHUA_CONFIG`,
    /// `OHUA_*`, else `auto`).
    Configured,
    /// Under this deployment.
    Deployed(Deployment),
    /// As the sequential Rust program it also is (`ohua::sequential`).
    Sequential,
}

/// A server running on its own thread.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    shutdown: Shutdown,
    thread: JoinHandle<(ServeStats, Vec<ohua::RunReport>)>,
}

/// Listen on `addr` and serve `root` on a new thread.
///
/// # Errors
///
/// If the address cannot be bound.
pub fn start(addr: SocketAddr, root: Root, limits: Limits, variant: Variant, run: Run) -> io::Result<Server> {
    let (ready, shutdown, addr) = Ready::bind(addr, limits)?;
    let run_as = run;
    let thread = std::thread::Builder::new().name("web-server".into()).spawn(move || {
        let run = move || match variant {
            Variant::Plain => web_server(ready, &root),
            Variant::Split => web_server_split(ready, &root),
        };
        // The run report (sections, busy time per operator) costs nothing
        // per request: the runtime measures operators anyway.
        match run_as {
            Run::Configured => ohua::profile(run),
            Run::Deployed(d) => ohua::profile(|| ohua::with_deployment(d, run)),
            Run::Sequential => (ohua::sequential(run), Vec::new()),
        }
    })?;
    Ok(Server { addr, shutdown, thread })
}

impl Server {
    /// A handle that stops the server from elsewhere.
    pub fn shutdown_handle(&self) -> Shutdown {
        self.shutdown.clone()
    }

    /// Stop accepting, finish the requests in flight, and return the
    /// statistics.
    ///
    /// # Panics
    ///
    /// Re-raises a panic of the server (an operator's), with its payload.
    pub fn stop(self) -> ServeStats {
        self.shutdown.stop();
        self.join()
    }

    /// Wait until the server stops (by a [`Shutdown`] handle).
    ///
    /// # Panics
    ///
    /// As [`Server::stop`].
    pub fn join(self) -> ServeStats {
        self.join_with_report().0
    }

    /// As [`Server::join`], with the run report of the algorithm (none for
    /// [`Run::Sequential`]): its sections, and each operator's firings and
    /// busy time.
    ///
    /// # Panics
    ///
    /// As [`Server::stop`].
    pub fn join_with_report(self) -> (ServeStats, Option<ohua::RunReport>) {
        match self.thread.join() {
            Ok((stats, reports)) => (stats, reports.into_iter().next()),
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}
