//! The ecosystem-default peer: hyper 1 on tokio's multi-threaded runtime,
//! one task per connection, files read per request on tokio's blocking pool
//! (as `tokio::fs` does) with the same path checks and reads as the Ohua
//! server (`Root::read`).
//!
//! ```text
//! hyper_server --root DIR --port 8082 [--workers 2]
//! ```

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;

use bytes::Bytes;
use clap::Parser;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use ohua_examples::web::{target_path, Root};

#[derive(Parser)]
struct Args {
    #[arg(long)]
    root: PathBuf,
    #[arg(long, default_value_t = 8082)]
    port: u16,
    /// Runtime worker threads.
    #[arg(long, default_value_t = 2)]
    workers: usize,
}

async fn handle(root: Arc<Root>, req: Request<hyper::body::Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let head_only = req.method() == Method::HEAD;
    if req.method() != Method::GET && !head_only {
        return Ok(status(StatusCode::METHOD_NOT_ALLOWED));
    }
    let path = match target_path(req.uri().path()) {
        Ok(p) => p,
        Err(code) => return Ok(status(StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST))),
    };
    // File I/O off the runtime's workers, as `tokio::fs` does.
    let read = tokio::task::spawn_blocking(move || root.read(&path)).await;
    match read {
        Ok(Ok((bytes, kind))) => {
            let len = bytes.len();
            let body = if head_only { Bytes::new() } else { Bytes::from(bytes) };
            let mut r = Response::new(Full::new(body));
            let h = r.headers_mut();
            h.insert("content-type", kind.parse().unwrap());
            h.insert("content-length", len.into());
            h.insert("server", "hyper".parse().unwrap());
            Ok(r)
        }
        Ok(Err(code)) => Ok(status(StatusCode::from_u16(code).unwrap_or(StatusCode::NOT_FOUND))),
        Err(_) => Ok(status(StatusCode::INTERNAL_SERVER_ERROR)),
    }
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = code;
    r
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let root = Arc::new(Root::new(&args.root, false)?);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(args.workers).enable_all().build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port)).await?;
        println!("hyper_server: {} workers on http://{}/", args.workers, listener.local_addr()?);
        loop {
            let (stream, _) = listener.accept().await?;
            let _ = stream.set_nodelay(true);
            let root = root.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(root.clone(), req));
                let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    })
}
