//! The web server of the dissertation's chapter 2 as a command:
//!
//! ```text
//! cargo run --release -p ohua-examples --bin web_server -- [--root DIR] [--port 8080]
//!     [--deploy examples/web_server/sgl-rd-rp.toml] [--split] [--cache]
//!     [--max-connections N] [--stream-above BYTES] [--seconds N]
//! ```
//!
//! Without `--root` it serves a generated document root (a page with an
//! image, 512-byte news snippets, 20 KiB articles). `--deploy` picks the
//! section strategy (the files in `examples/web_server/`); without it the
//! process configuration applies (`OHUA_CONFIG`, `OHUA_*`, else `auto`).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use ohua::Deployment;
use ohua_examples::web::{self, Limits, Root, Run, Variant};

#[derive(Parser)]
#[command(about = "Serve a directory over HTTP/1.1 with an Ohua algorithm")]
struct Args {
    /// The document root (default: a generated one in a temporary directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// The port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    /// A deployment file (TOML): the section strategy.
    #[arg(long)]
    deploy: Option<PathBuf>,
    /// Serve `news/` from memory and the rest from disk in two branches
    /// (Fig. 2.25).
    #[arg(long)]
    split: bool,
    /// Keep files in memory once read.
    #[arg(long)]
    cache: bool,
    /// Open connections at most.
    #[arg(long, default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Files larger than this many bytes are streamed from the open file
    /// (`sendfile`), not read into memory (or cached).
    #[arg(long, default_value_t = Limits::default().stream_above)]
    stream_above: u64,
    /// Stop after this many seconds (default: run until killed).
    #[arg(long)]
    seconds: Option<u64>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = match &args.root {
        Some(dir) => dir.clone(),
        None => {
            let dir = std::env::temp_dir().join(format!("ohua-web-root-{}", std::process::id()));
            web::generate_root(&dir).context("generating a document root")?;
            dir
        }
    };
    let mut root = Root::new(&dir, args.cache).with_context(|| format!("document root {}", dir.display()))?;
    root.stream_above = args.stream_above;
    let deployment = match &args.deploy {
        Some(file) => {
            let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
            let d = Deployment::from_toml_str(&text).with_context(|| format!("deployment file {}", file.display()))?;
            Run::Deployed(d)
        }
        None => Run::Configured,
    };
    let limits = Limits::default().max_connections(args.max_connections).stream_above(args.stream_above);
    let variant = if args.split { Variant::Split } else { Variant::Plain };
    let addr = SocketAddr::new(args.host, args.port);
    let server = web::start(addr, root, limits, variant, deployment).with_context(|| format!("listening on {addr}"))?;
    println!("serving {} on http://{}/ ({variant:?})", dir.display(), server.addr);
    if let Some(secs) = args.seconds {
        let stop = server.shutdown_handle();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(secs));
            stop.stop();
        });
    }
    let (stats, report) = server.join_with_report();
    println!("{stats}");
    if let Some(report) = report {
        println!("{report}");
    }
    if args.root.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
