//! The HTTP server: a `tiny_http` listener and two threads that answer
//! (`routes.rs` decides what). It reads the data through a [`Provider`] the
//! caller implements, only when the page asks for it: nothing runs while
//! nobody looks.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::{routes, Bind, View, ViewError};

/// Threads that answer requests. Two, so one slow reader of a large answer
/// does not stall the page of everyone else; the page polls once a second.
const ANSWERING_THREADS: usize = 2;

/// How often an idle answering thread checks whether the server stops.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// Where the view's data comes from: the runtime implements it over its
/// live runs; a saved report is a closure returning the loaded view.
pub trait Provider: Send + Sync + 'static {
    /// The data as of now.
    fn view(&self) -> View;
}

impl<F: Fn() -> View + Send + Sync + 'static> Provider for F {
    fn view(&self) -> View {
        self()
    }
}

/// A running view server. Dropping it stops it.
///
/// # Example
///
/// ```
/// use ohua_view::{Bind, Server, View};
/// let server = Server::start(Bind::parse("127.0.0.1:0").unwrap(), || View::new(false, vec![])).unwrap();
/// assert!(server.url().starts_with("http://127.0.0.1:"));
/// server.stop();
/// ```
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Server {
    /// Listen on `bind` and answer from `source` on threads of its own.
    ///
    /// # Errors
    ///
    /// [`ViewError::Listen`] if the address cannot be listened on.
    ///
    /// # Panics
    ///
    /// If a thread cannot be spawned.
    pub fn start(bind: Bind, source: impl Provider) -> Result<Server, ViewError> {
        let asked = bind.addr();
        let http = tiny_http::Server::http(asked).map_err(|source| ViewError::Listen { addr: asked, source })?;
        let addr = http.server_addr().to_ip().unwrap_or(asked);
        let http = Arc::new(http);
        let source: Arc<dyn Provider> = Arc::new(source);
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..ANSWERING_THREADS)
            .map(|i| {
                let (http, source, stop) = (http.clone(), source.clone(), stop.clone());
                std::thread::Builder::new()
                    .name(format!("ohua-view-{i}"))
                    .spawn(move || answer_until_stopped(&http, &*source, &stop))
                    .expect("spawning a thread of the view server")
            })
            .collect();
        Ok(Server { addr, stop, threads })
    }

    /// The address it listens on (with the port picked, for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Stop answering and wait for the threads to end (at most one
    /// request each, then about 0.1 s).
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shut_down();
    }
}

fn answer_until_stopped(http: &tiny_http::Server, source: &dyn Provider, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let request = match http.recv_timeout(STOP_CHECK) {
            Ok(Some(request)) => request,
            Ok(None) => continue,
            Err(_) => break, // the listener is gone
        };
        let method = request.method().as_str().to_string();
        let reply = routes::answer(&method, request.url(), || source.view());
        let mut response = tiny_http::Response::from_data(if method == "HEAD" { Vec::new() } else { reply.body })
            .with_status_code(reply.status)
            .with_header(header("Content-Type", reply.content_type))
            .with_header(header("Cache-Control", "no-store"));
        if reply.status == 405 {
            response.add_header(header("Allow", "GET, HEAD"));
        }
        // A client that went away is its own business.
        let _ = request.respond(response);
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}
