//! The ecosystem-default peer: hyper 1 on tokio's multi-threaded runtime,
//! one task per connection, files read per request with `tokio::fs`, the
//! same path checks as the Ohua server.
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
use ohua_examples::web::{content_type, target_path, Root};

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
    let file = match target_path(req.uri().path()).and_then(|p| root.resolve(&p)) {
        Ok(f) => f,
        Err(code) => return Ok(status(StatusCode::from_u16(code).unwrap_or(StatusCode::NOT_FOUND))),
    };
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            let len = bytes.len();
            let body = if head_only { Bytes::new() } else { Bytes::from(bytes) };
            let mut r = Response::new(Full::new(body));
            let h = r.headers_mut();
            h.insert("content-type", content_type(&file.to_string_lossy()).parse().unwrap());
            h.insert("content-length", len.into());
            h.insert("server", "hyper".parse().unwrap());
            Ok(r)
        }
        Err(_) => Ok(status(StatusCode::NOT_FOUND)),
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
