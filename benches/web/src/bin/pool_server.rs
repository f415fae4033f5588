//! The hand-written peer: a thread-pool HTTP/1.1 server with blocking
//! sockets, the design Ohua's sections generalise. An acceptor thread hands
//! each connection to a pool of worker threads; a worker serves one
//! connection (keep-alive) until it closes. Same parsing (`httparse`), same
//! path checks and the same files read per request as the Ohua server.
//!
//! ```text
//! pool_server --root DIR --port 8081 [--threads 128]
//! ```

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use ohua_examples::web::{reason, target_path, Root};

#[derive(Parser)]
struct Args {
    #[arg(long)]
    root: PathBuf,
    #[arg(long, default_value_t = 8081)]
    port: u16,
    /// Worker threads (connections served at once).
    #[arg(long, default_value_t = 128)]
    threads: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let root = Root::new(&args.root, false)?;
    let listener = TcpListener::bind(("127.0.0.1", args.port))?;
    let (tx, rx) = crossbeam_channel::bounded::<TcpStream>(args.threads);
    for _ in 0..args.threads {
        let rx = rx.clone();
        let root = root.clone();
        std::thread::spawn(move || {
            for conn in rx {
                let _ = serve(conn, &root);
            }
        });
    }
    println!("pool_server: {} threads on http://{}/", args.threads, listener.local_addr()?);
    for conn in listener.incoming().flatten() {
        tx.send(conn)?;
    }
    Ok(())
}

/// Serve one connection until the client closes it or asks to.
fn serve(mut s: TcpStream, root: &Root) -> std::io::Result<()> {
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        // Read until a whole head is buffered.
        let (len, path, head_only, keep_alive) = loop {
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut req = httparse::Request::new(&mut headers);
            match req.parse(&buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let keep_alive = req.version == Some(1)
                        && !req
                            .headers
                            .iter()
                            .any(|h| h.name.eq_ignore_ascii_case("connection") && h.value == b"close");
                    let path = target_path(req.path.unwrap_or(""));
                    break (len, path, req.method == Some("HEAD"), keep_alive);
                }
                Ok(httparse::Status::Partial) if buf.len() < 16 * 1024 => {}
                _ => return respond(&mut s, 400, "text/plain", b"", false, false),
            }
            let n = s.read(&mut chunk)?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        buf.drain(..len);
        let (status, body, kind) = match path.and_then(|p| root.read(&p)) {
            Ok((body, kind)) => (200, body, kind),
            Err(status) => (status, Vec::new(), "text/plain"),
        };
        respond(&mut s, status, kind, &body, head_only, keep_alive)?;
        if !keep_alive {
            return Ok(());
        }
    }
}

fn respond(
    s: &mut TcpStream,
    status: u16,
    kind: &str,
    body: &[u8],
    head_only: bool,
    keep_alive: bool,
) -> std::io::Result<()> {
    let mut out = format!(
        "HTTP/1.1 {status} {}\r\nServer: pool\r\nDate: {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{}\r\n",
        reason(status),
        httpdate::fmt_http_date(std::time::SystemTime::now()),
        body.len(),
        if keep_alive { "" } else { "Connection: close\r\n" }
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(body);
    }
    s.write_all(&out)
}
