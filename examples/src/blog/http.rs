//! The same services over HTTP on loopback: a small server
//! ([`BlogServer`], `tiny_http`) in front of a [`SqliteStore`](super::SqliteStore)
//! and a client ([`HttpStore`], `ureq`) that makes one request per batch.
//!
//! ```text
//! GET /posts?feed=1&info=3,4,5&content=7,8   -> PostAnswers as JSON
//! GET /views?ids=3,4,5                        -> [{"Ok":12},{"Err":..},..]
//! ```
//!
//! The server answers on several threads, so batches of the two services
//! sent at the same time are served at the same time; the simulated
//! latency is the store's, slept on the server once per request.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::backend::{Backend, PostAnswers, PostBatch};
use super::model::{FetchError, PostId};

/// An HTTP server for a [`Backend`] on `127.0.0.1` at a free port; it
/// stops when dropped.
pub struct BlogServer {
    server: Arc<tiny_http::Server>,
    port: u16,
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

impl BlogServer {
    /// Serve `store` on `threads` threads.
    ///
    /// # Errors
    ///
    /// If no port could be bound.
    pub fn start(store: Arc<dyn Backend>, threads: usize) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        no_delay(&listener)?;
        let server = tiny_http::Server::from_listener(listener, None).map_err(std::io::Error::other)?;
        let server = Arc::new(server);
        let stop = Arc::new(AtomicBool::new(false));
        let workers = (0..threads.max(1))
            .map(|_| {
                let (server, store, stop) = (server.clone(), store.clone(), stop.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Acquire) {
                        match server.recv() {
                            Ok(request) => respond(&*store, request),
                            Err(_) => break,
                        }
                    }
                })
            })
            .collect();
        Ok(BlogServer { server, port, stop, workers })
    }

    /// The address clients use: `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for BlogServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for _ in &self.workers {
            self.server.unblock();
        }
        for w in self.workers.drain(..) {
            w.join().ok();
        }
    }
}

/// Set `TCP_NODELAY` on `listener`; the connections it accepts inherit it
/// (Linux). Without it, a small response on a kept-alive connection waits
/// for the client's delayed ACK (Nagle's algorithm), up to 40 ms per call,
/// which would swamp the latency this example simulates.
fn no_delay(listener: &std::net::TcpListener) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let on: libc::c_int = 1;
    // SAFETY: a valid socket descriptor and a pointer to a c_int of the
    // given size, as setsockopt(2) requires.
    let rc = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&on as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Post ids from a comma-separated list (empty: none).
fn ids(list: &str) -> Result<Vec<PostId>, String> {
    list.split(',').filter(|s| !s.is_empty()).map(|s| s.parse().map_err(|_| format!("bad post id `{s}`"))).collect()
}

/// The JSON body for a request's path and query, or the status and message
/// of a client error.
fn answer(store: &dyn Backend, url: &str) -> Result<String, (u16, String)> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let param = |name: &str| {
        query.split('&').filter_map(|kv| kv.split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v).unwrap_or("")
    };
    let bad = |e: String| (400, e);
    let json = match path {
        "/posts" => {
            let batch = PostBatch {
                feed: param("feed") == "1",
                infos: ids(param("info")).map_err(bad)?,
                contents: ids(param("content")).map_err(bad)?,
            };
            serde_json::to_string(&store.posts(&batch))
        }
        "/views" => serde_json::to_string(&store.views(&ids(param("ids")).map_err(bad)?)),
        _ => return Err((404, format!("no such resource: {path}"))),
    };
    json.map_err(|e| (500, e.to_string()))
}

fn respond(store: &dyn Backend, request: tiny_http::Request) {
    let (status, body) = match answer(store, request.url()) {
        Ok(json) => (200, json),
        Err((status, message)) => (status, message),
    };
    let content_type = if status == 200 { "application/json" } else { "text/plain" };
    let header = tiny_http::Header::from_bytes("Content-Type", content_type).expect("a valid header");
    // A client that went away is its own problem.
    request.respond(tiny_http::Response::from_string(body).with_status_code(status).with_header(header)).ok();
}

/// The services through a [`BlogServer`]: one HTTP request per call.
pub struct HttpStore {
    agent: ureq::Agent,
    base: String,
}

impl HttpStore {
    /// A client of the server at `base` (`http://127.0.0.1:PORT`).
    pub fn new(base: impl Into<String>) -> Self {
        let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(60)).build();
        HttpStore { agent, base: base.into() }
    }

    fn get<T: serde::de::DeserializeOwned>(&self, path_and_query: &str) -> Result<T, FetchError> {
        let service = |e: String| FetchError::Service(e);
        let body = self
            .agent
            .get(&format!("{}{path_and_query}", self.base))
            .call()
            .map_err(|e| service(e.to_string()))?
            .into_string()
            .map_err(|e| service(e.to_string()))?;
        serde_json::from_str(&body).map_err(|e| service(e.to_string()))
    }
}

/// `1,2,3`.
fn list(ids: &[PostId]) -> String {
    ids.iter().map(PostId::to_string).collect::<Vec<_>>().join(",")
}

impl Backend for HttpStore {
    fn posts(&self, batch: &PostBatch) -> PostAnswers {
        let feed = if batch.feed { "1" } else { "0" };
        let path = format!("/posts?feed={feed}&info={}&content={}", list(&batch.infos), list(&batch.contents));
        self.get(&path).unwrap_or_else(|e| PostAnswers::failed(batch, &e))
    }

    fn views(&self, ids: &[PostId]) -> Vec<Result<u64, FetchError>> {
        self.get(&format!("/views?ids={}", list(ids))).unwrap_or_else(|e| ids.iter().map(|_| Err(e.clone())).collect())
    }
}
