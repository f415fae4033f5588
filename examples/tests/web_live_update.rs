//! The web server updated while it serves (issue 13's case study), under
//! two deployments (auto, one section per operator):
//!
//! - a cache is inserted into the running server's `load` operator by a
//!   live update that transforms its `Files` state, between two requests on
//!   one keep-alive connection;
//! - the zero-copy switch (§5.3.2): `load` and `reply` replaced together
//!   by their `sendfile(2)` versions under sustained load from several
//!   keep-alive connections: every response is checked byte for byte, none
//!   is lost, and every response to a request sent after the switch
//!   carries the header `X-Ohua-Body: sendfile`, which only the version-2
//!   `reply` writes, right before it sends the body from the open file (and
//!   the server's count of bodies sent by `sendfile` matches the headers);
//! - the negative control: replacing `load` alone gives the old `reply`
//!   open files it cannot send, and the clients see responses without
//!   their bodies; replacing `reply` alone is harmless but switches
//!   nothing (no response is announced as sent by `sendfile`: the default
//!   `load`'s packets go as before, large files streamed unannounced).

mod web;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ohua::{replace, Deployment, SectionStrategy, Update};
use ohua_examples::web::{self as server, web_server, Files, Limits, Ready, Root, ServeStats, SENDFILE_HEADER};
use web::client::{connect, get_on};

fn deployments() -> [(&'static str, Deployment); 2] {
    [
        ("auto", Deployment::default()),
        ("one section per operator", Deployment::default().sections(SectionStrategy::PerOperator)),
    ]
}

/// `f()` on a thread, or a failure after `secs` (a hung server fails the
/// test instead of hanging it).
fn within<R: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).unwrap_or_else(|_| panic!("{what} did not finish within {secs} s"))
}

#[test]
fn a_cache_inserted_into_the_running_server_serves_the_next_request() {
    for (name, d) in deployments() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root_dir = dir.path().join("root");
        server::generate_root(&root_dir).expect("the document root");
        let root = Root::new(&root_dir, false).expect("the root");
        let (ready, shutdown, addr) = Ready::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).expect("bound");
        let service = ohua::service(move || ohua::with_deployment(d, || web_server(ready, &root)));
        let mut conn = connect(addr);
        let file = root_dir.join("small.html");

        // Without a cache every request reads the file.
        assert_eq!(get_on(&mut conn, "/small.html").body, std::fs::read(&file).unwrap(), "{name}");
        std::fs::write(&file, b"edited").unwrap();
        assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}: read per request");

        // The update goes before the next request: that one is cached.
        let pending = service.request(Update::new().transform(|old: &Files| Ok::<_, String>(old.with_cache())));
        assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}");
        let report = pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.transformed.len(), 1, "{name}: the load operator holds the files: {report:?}");

        // Now the file on disk changes, but the server answers from memory.
        std::fs::write(&file, b"edited again").unwrap();
        for _ in 0..3 {
            assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}: served from the inserted cache");
        }
        assert_eq!(get_on(&mut conn, "/no/such/file").status, 404, "{name}");
        drop(conn);
        shutdown.stop();
        let stats = service.join();
        assert_eq!(stats.by_status.get(&200), Some(&6), "{name}");
    }
}

#[test]
fn after_the_cache_the_sendfile_switch_drops_it_and_sends_from_disk() {
    for (name, d) in deployments() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root_dir = dir.path().join("root");
        server::generate_root(&root_dir).expect("the document root");
        let root = Root::new(&root_dir, false).expect("the root");
        let (ready, shutdown, addr) = Ready::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).expect("bound");
        let service = ohua::service(move || ohua::with_deployment(d, || web_server(ready, &root)));
        let mut conn = connect(addr);
        let file = root_dir.join("large.html");
        let original = std::fs::read(&file).unwrap();

        let pending = service.request(Update::new().transform(|old: &Files| Ok::<_, String>(old.with_cache())));
        assert_eq!(get_on(&mut conn, "/large.html").body, original, "{name}");
        pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        std::fs::write(&file, b"changed on disk").unwrap();
        let cached = get_on(&mut conn, "/large.html");
        assert_eq!(cached.body, original, "{name}: from the cache");
        assert_eq!(cached.header(SENDFILE_HEADER), None, "{name}");

        // The switch goes before the next request: sent from disk, by sendfile.
        let pending = service.request(server::switch_to_sendfile());
        let sent = get_on(&mut conn, "/large.html");
        let report = pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.transformed.len(), 1, "{name}: the cache is dropped: {report:?}");
        assert_eq!(sent.body, b"changed on disk", "{name}: the cache was dropped");
        assert_eq!(sent.header(SENDFILE_HEADER), Some("sendfile"), "{name}");
        assert_eq!(sent.header("content-type"), Some("text/html; charset=utf-8"), "{name}");
        let head = head_on(&mut conn, "/large.html");
        assert_eq!((head.0, head.1.as_str()), (200, "15"), "{name}: HEAD: the length, no body");
        // A range of the open file, from its offset (issue 21 part 2, item 6).
        conn.write_all(b"GET /large.html HTTP/1.1\r\nHost: x\r\nRange: bytes=3-9\r\n\r\n").unwrap();
        let part = web::client::read_response(&mut conn, false).expect("a response");
        assert_eq!((part.status, &part.body[..]), (206, &b"nged on"[..]), "{name}: a range by sendfile");
        assert_eq!(part.header(SENDFILE_HEADER), Some("sendfile"), "{name}");
        assert_eq!(get_on(&mut conn, "/no/such/file").status, 404, "{name}");
        drop(conn);
        shutdown.stop();
        let stats = within(30, "the server", move || service.join());
        assert_eq!(stats.by_status.get(&200), Some(&4), "{name}");
        assert_eq!(stats.sendfile, 2, "{name}");
    }
}

/// `HEAD path` on an open connection: the status and the `Content-Length`.
fn head_on(s: &mut TcpStream, path: &str) -> (u16, String) {
    s.write_all(format!("HEAD {path} HTTP/1.1\r\nHost: test\r\n\r\n").as_bytes()).expect("send");
    let r = web::client::read_response(s, true).expect("a response");
    (r.status, r.header("content-length").expect("a length").to_string())
}

// --- The zero-copy switch under sustained load.

/// Larger than the socket's send buffer can grow (`tcp_wmem`'s maximum is
/// 4 MiB by default), so it takes several writes, with the connection
/// parked in the poller in between: some of these responses start before
/// the cut and finish after it.
const BIG: usize = 8 * 1024 * 1024;

/// What the clients ask for, and what each answer must be.
struct Resource {
    /// The request target.
    path: &'static str,
    head_only: bool,
    status: u16,
    content_type: &'static str,
    /// The body (for `HEAD`: the body a `GET` gets, whose length is sent).
    body: Vec<u8>,
    /// Whether version 2 sends the body from the open file (a `GET` of a
    /// file).
    from_file: bool,
}

/// The generated root plus files of several sizes; the resources.
fn make_root(dir: &Path) -> Vec<Resource> {
    server::generate_root(dir).expect("the document root");
    let files: [(&str, usize); 4] = [("mid.bin", 300 * 1024), ("big.bin", BIG), ("empty.txt", 0), ("k1.bin", 1000)];
    for (k, (name, len)) in files.iter().enumerate() {
        std::fs::write(dir.join(name), web::pattern(k as u64 + 1, *len)).expect("a file");
    }
    let read = |p: &str| std::fs::read(dir.join(p)).expect("a generated file");
    let get = |path: &'static str, content_type| Resource {
        path,
        head_only: false,
        status: 200,
        content_type,
        body: read(path.trim_start_matches('/')),
        from_file: true,
    };
    let html = "text/html; charset=utf-8";
    let bin = "application/octet-stream";
    vec![
        get("/small.html", html),
        get("/mid.bin", bin),
        get("/large.html", html),
        get("/big.bin", bin),
        get("/empty.txt", "text/plain; charset=utf-8"),
        get("/articles/7.html", html),
        get("/k1.bin", bin),
        Resource { head_only: true, from_file: false, ..get("/large.html", html) },
        Resource {
            path: "/no/such/file",
            head_only: false,
            status: 404,
            content_type: "text/plain; charset=utf-8",
            body: b"404 Not Found\n".to_vec(),
            from_file: false,
        },
    ]
}

/// One exchange a client made.
struct Record {
    resource: usize,
    sent: Instant,
    received: Instant,
    /// The response carried `X-Ohua-Body: sendfile`.
    sendfile: bool,
}

/// What one client saw.
#[derive(Default)]
struct ClientLog {
    /// Requests written.
    sent: u64,
    /// Correct responses, in order.
    records: Vec<Record>,
    /// The first wrong or missing response, if any (the client stops there).
    failure: Option<String>,
}

/// Read one response and check it against `r`; whether it carried the
/// sendfile header.
fn read_checked(reader: &mut BufReader<TcpStream>, r: &Resource) -> Result<bool, String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let n = reader.read_until(b'\n', &mut head).map_err(|e| format!("reading the head: {e}"))?;
        if n == 0 {
            return Err(format!("connection closed after {} head bytes", head.len()));
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; 16];
    let mut parsed = httparse::Response::new(&mut headers);
    match parsed.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        other => return Err(format!("a malformed head ({other:?}): {:?}", String::from_utf8_lossy(&head))),
    }
    if parsed.code != Some(r.status) {
        return Err(format!("status {:?}, expected {}", parsed.code, r.status));
    }
    let (mut length, mut sendfile) = (None, false);
    for h in parsed.headers.iter() {
        let value = std::str::from_utf8(h.value).map_err(|_| "a header that is not UTF-8".to_string())?;
        match h.name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "content-type" if value == r.content_type => {}
            "server" if value == "ohua-web" => {}
            "date" | "last-modified" | "etag" => {}
            "accept-ranges" if value == "bytes" && r.status == 200 => {}
            "x-ohua-body" if value == "sendfile" && r.from_file => sendfile = true,
            _ => return Err(format!("unexpected header {}: {value}", h.name)),
        }
    }
    if length != Some(r.body.len()) {
        return Err(format!("Content-Length {length:?}, expected {}", r.body.len()));
    }
    if !r.head_only {
        let mut body = vec![0; r.body.len()];
        reader.read_exact(&mut body).map_err(|e| format!("reading {} body bytes of {}: {e}", body.len(), r.path))?;
        if body != r.body {
            let at = body.iter().zip(&r.body).position(|(a, b)| a != b);
            return Err(format!("the body of {} differs from the file at byte {at:?}", r.path));
        }
    }
    Ok(sendfile)
}

/// A keep-alive client: requests the resources in turn (from `first` on)
/// until `stop`, each after the previous response; stops at the first
/// wrong or missing response.
fn client(
    addr: SocketAddr,
    resources: Arc<Vec<Resource>>,
    first: usize,
    timeout: Duration,
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicU64>,
) -> ClientLog {
    let mut log = ClientLog::default();
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(timeout)).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut writer = stream.try_clone().expect("a second handle");
    let mut reader = BufReader::with_capacity(256 * 1024, stream);
    let mut k = first;
    while !stop.load(Ordering::Relaxed) {
        let i = k % resources.len();
        let r = &resources[i];
        k += 1;
        let method = if r.head_only { "HEAD" } else { "GET" };
        let sent = Instant::now();
        if let Err(e) = writer.write_all(format!("{method} {} HTTP/1.1\r\nHost: test\r\n\r\n", r.path).as_bytes()) {
            log.failure = Some(format!("sending request {}: {e}", log.sent));
            break;
        }
        log.sent += 1;
        match read_checked(&mut reader, r) {
            Ok(sendfile) => {
                log.records.push(Record { resource: i, sent, received: Instant::now(), sendfile });
                answered.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                log.failure = Some(format!("response {} ({method} {}): {e}", log.sent - 1, r.path));
                break;
            }
        }
    }
    log
}

/// A server under load from `CLIENTS` keep-alive connections.
struct Loaded {
    service: ohua::Service<ServeStats>,
    shutdown: server::Shutdown,
    stop: Arc<AtomicBool>,
    answered: Vec<Arc<AtomicU64>>,
    clients: Vec<std::thread::JoinHandle<ClientLog>>,
    resources: Arc<Vec<Resource>>,
    _dir: tempfile::TempDir,
}

const CLIENTS: usize = 6;

impl Loaded {
    fn start(d: Deployment, timeout: Duration) -> Loaded {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root_dir = dir.path().join("root");
        let resources = Arc::new(make_root(&root_dir));
        let root = Root::new(&root_dir, false).expect("the root");
        let (ready, shutdown, addr) = Ready::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).expect("bound");
        let service = ohua::service(move || ohua::with_deployment(d, || web_server(ready, &root)));
        let stop = Arc::new(AtomicBool::new(false));
        let answered: Vec<_> = (0..CLIENTS).map(|_| Arc::new(AtomicU64::new(0))).collect();
        let clients = (0..CLIENTS)
            .map(|c| {
                let (res, stop, n) = (resources.clone(), stop.clone(), answered[c].clone());
                std::thread::spawn(move || client(addr, res, c * 2, timeout, stop, n))
            })
            .collect();
        Loaded { service, shutdown, stop, answered, clients, resources, _dir: dir }
    }

    /// Wait until every client has `more` responses beyond `from` (or has
    /// stopped, having failed).
    fn wait_for(&self, from: &[u64], more: u64) {
        let t = Instant::now();
        for (c, (n, client)) in self.answered.iter().zip(&self.clients).enumerate() {
            while n.load(Ordering::Relaxed) < from[c] + more && !client.is_finished() {
                assert!(t.elapsed() < Duration::from_secs(120), "client {c} made no progress for 120 s");
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }

    fn counts(&self) -> Vec<u64> {
        self.answered.iter().map(|n| n.load(Ordering::Relaxed)).collect()
    }

    /// Stop the clients, then the server: the logs and the statistics.
    fn finish(self) -> (Vec<ClientLog>, ServeStats) {
        self.stop.store(true, Ordering::Relaxed);
        let logs: Vec<ClientLog> = self.clients.into_iter().map(|c| c.join().expect("a client")).collect();
        self.shutdown.stop();
        let service = self.service;
        let stats = within(60, "the server", move || service.join());
        (logs, stats)
    }
}

#[test]
fn the_sendfile_switch_under_load_answers_every_request_correctly_and_then_by_sendfile() {
    for (name, d) in deployments() {
        let loaded = Loaded::start(d, Duration::from_secs(20));
        // Sustained load first: every client has some answers.
        loaded.wait_for(&[0; CLIENTS], 2 * 9);
        let requested = Instant::now();
        let report = loaded.service.update(server::switch_to_sendfile()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let done = Instant::now();
        assert_eq!(report.transformed.len(), 1, "{name}: the load operator's cache is dropped: {report:?}");
        assert!(report.adopted.len() >= 2, "{name}: load and reply adopt the update: {report:?}");
        // Load after the switch: two rounds of every resource per client.
        loaded.wait_for(&loaded.counts(), 2 * 9);
        let resources = loaded.resources.clone();
        let (logs, stats) = loaded.finish();

        let (mut sent, mut answered, mut headers, mut after, mut big_after) = (0, 0, 0, 0, 0);
        for (c, log) in logs.iter().enumerate() {
            assert_eq!(log.failure, None, "{name}: client {c}");
            assert_eq!(log.sent, log.records.len() as u64, "{name}: client {c}: a request without a response");
            sent += log.sent;
            answered += log.records.len() as u64;
            let mut switched = false;
            for (k, rec) in log.records.iter().enumerate() {
                let r = &resources[rec.resource];
                headers += u64::from(rec.sendfile);
                // Answered before the update was requested: version 1.
                if rec.received < requested {
                    assert!(!rec.sendfile, "{name}: client {c}, response {k} came before the switch");
                }
                // Sent after the update completed: version 2, for a file.
                if rec.sent > done && r.from_file {
                    assert!(rec.sendfile, "{name}: client {c}, response {k} ({}) not sent by sendfile", r.path);
                    after += 1;
                    big_after += u64::from(r.body.len() == BIG);
                }
                // Versions only move forward on a connection.
                if r.from_file {
                    assert!(!switched || rec.sendfile, "{name}: client {c}, response {k}: back to version 1");
                    switched |= rec.sendfile;
                }
            }
        }
        assert_eq!(sent, answered, "{name}: requests lost");
        assert_eq!(stats.responses(), answered, "{name}: the server's count of responses: {stats}");
        assert_eq!(stats.sendfile, headers, "{name}: bodies sent by sendfile, by the server's count: {stats}");
        assert!(after >= 7 * CLIENTS as u64, "{name}: {after} file responses after the switch");
        assert!(big_after >= CLIENTS as u64, "{name}: {big_after} big responses after the switch");
        // Before the switch the default `load` streamed the large files.
        assert!(stats.streamed >= 2 * CLIENTS as u64, "{name}: large files streamed before the switch: {stats}");
        eprintln!("{name}: {answered} responses, {headers} by sendfile, {after} sent after the switch completed");
    }
}

#[test]
fn replacing_load_without_reply_loses_bodies_and_reply_without_load_switches_nothing() {
    for (name, d) in deployments() {
        // The new `load` alone: the old `reply` gets open files and sends
        // their heads without the bodies. A client waits 2 s for a body
        // before it calls the response failed (the server never sends it).
        let loaded = Loaded::start(d.clone(), Duration::from_secs(2));
        loaded.wait_for(&[0; CLIENTS], 9);
        let load_only = Update::new().replace(replace!(Files::load => Files::load_zero_copy));
        loaded.service.update(load_only).unwrap_or_else(|e| panic!("{name}: {e}"));
        loaded.wait_for(&loaded.counts(), 9);
        let (logs, stats) = loaded.finish();
        let failures: Vec<&String> = logs.iter().filter_map(|l| l.failure.as_ref()).collect();
        assert_eq!(failures.len(), CLIENTS, "{name}: every client sees a response without its body: {failures:?}");
        for f in &failures {
            assert!(f.contains("body bytes"), "{name}: {f}");
        }
        assert_eq!(stats.sendfile, 0, "{name}");
        assert!(logs.iter().all(|l| l.records.iter().all(|r| !r.sendfile)), "{name}");

        // The new `reply` alone: it still sends bodies in memory and streams
        // large files as the old one does, so every response is right, but
        // none is announced as version 2's: the switch did not happen, and
        // the test sees that too.
        let loaded = Loaded::start(d, Duration::from_secs(20));
        loaded.wait_for(&[0; CLIENTS], 9);
        let reply_only = Update::new().replace(replace!(server::reply => server::reply_sendfile));
        loaded.service.update(reply_only).unwrap_or_else(|e| panic!("{name}: {e}"));
        loaded.wait_for(&loaded.counts(), 9);
        let (logs, stats) = loaded.finish();
        for (c, log) in logs.iter().enumerate() {
            assert_eq!(log.failure, None, "{name}: client {c}");
            assert_eq!(log.sent, log.records.len() as u64, "{name}: client {c}");
            assert!(log.records.iter().all(|r| !r.sendfile), "{name}: client {c}");
        }
        assert_eq!(stats.sendfile, 0, "{name}: {stats}");
    }
}
