//! The blog of the dissertation's chapter 4 (Fig. 4.5) and its Table 4.1:
//! the same page rendered as `seq`, `base`, `batch` and `full`.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin blog -- [--http] [--db PATH]
//!     [--posts 40] [--latency-ms 10] [--runs 20] [--recent 10] [--popular 5]
//! ```
//!
//! The services read an SQLite database, created and filled on first use
//! (in a temporary directory unless `--db` names a file). With `--http`
//! they are served as JSON by a server on `127.0.0.1` and fetched with an
//! HTTP client, one request per batch. Every call sleeps `--latency-ms`
//! first (on the server with `--http`): in-process SQLite is too fast for
//! batching to show. The command fails unless all four variants render
//! byte-identical pages.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Parser;
use ohua_examples::blog::{self, Backend, Blog, BlogServer, HttpStore, SqliteStore, Variant};
use ohua_examples::ms;

#[derive(Parser)]
#[command(about = "Render the blog page of Fig. 4.5 four ways and time them (Table 4.1)")]
struct Args {
    /// Fetch over HTTP from a server on loopback instead of from SQLite directly.
    #[arg(long)]
    http: bool,
    /// The SQLite database (created and filled if it has no feed yet).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Posts in a newly created database.
    #[arg(long, default_value_t = 40)]
    posts: u32,
    /// Seed of a newly created database's content.
    #[arg(long, default_value_t = 4)]
    seed: u64,
    /// Simulated latency of every call of a service, in milliseconds.
    #[arg(long, default_value_t = 10)]
    latency_ms: u64,
    /// Timed renders per variant.
    #[arg(long, default_value_t = 20)]
    runs: usize,
    /// Posts in the main pane.
    #[arg(long, default_value_t = 10)]
    recent: usize,
    /// Posts in the most-viewed list.
    #[arg(long, default_value_t = 5)]
    popular: usize,
}

/// The median, minimum and maximum of `ts`.
fn spread(ts: &mut [Duration]) -> (Duration, Duration, Duration) {
    ts.sort_unstable();
    (ts[ts.len() / 2], ts[0], ts[ts.len() - 1])
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let latency = Duration::from_millis(args.latency_ms);
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let path = args.db.clone().unwrap_or_else(|| dir.path().join("blog.sqlite"));
    let conn = blog::open_or_create(&path, args.posts, args.seed)
        .with_context(|| format!("opening the database {}", path.display()))?;
    let posts: i64 = conn.query_row("SELECT count(*) FROM feed", [], |r| r.get(0))?;
    let store = Arc::new(SqliteStore::new(conn, latency));
    let (backend, _server, transport): (Arc<dyn Backend>, _, String) = if args.http {
        let server = BlogServer::start(store, 8).context("starting the HTTP server")?;
        let url = server.url();
        (Arc::new(HttpStore::new(url.clone())), Some(server), format!("HTTP at {url}"))
    } else {
        (store, None, "SQLite in the process".to_string())
    };
    let page = Blog::new(backend, args.recent, args.popular);
    println!(
        "blog: {posts} posts ({}), main pane {} posts, {} most viewed; {transport}; {} ms per service call; {} runs",
        path.display(),
        args.recent,
        args.popular,
        args.latency_ms,
        args.runs
    );

    // One profiled render of each variant first (a warm-up): the reference
    // page and the run reports' I/O counters.
    let reference = page.render(Variant::Seq);
    let mut profiled = Vec::new();
    for v in Variant::ALL {
        let r = page.render_profiled(v);
        if r.html != reference.html {
            bail!(
                "{} rendered a different page than seq ({} vs {} bytes)",
                v.name(),
                r.html.len(),
                reference.html.len()
            );
        }
        profiled.push((v, r));
    }
    // Timed renders, the variants taking turns.
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); Variant::ALL.len()];
    let mut last = Vec::new();
    for _ in 0..args.runs.max(1) {
        last.clear();
        for (i, v) in Variant::ALL.into_iter().enumerate() {
            let r = page.render(v);
            if r.html != reference.html {
                bail!("{} rendered a different page than seq", v.name());
            }
            times[i].push(r.elapsed);
            last.push(r);
        }
    }

    let seq_median = spread(&mut times[0].clone()).0;
    println!(
        "{:<6} {:>12} {:>12} {:>12} {:>9}   {:>22}   {:>22}",
        "", "median", "min", "max", "seq/this", "PostDb calls/requests", "ViewCounts calls/req."
    );
    for (i, v) in Variant::ALL.into_iter().enumerate() {
        let (median, min, max) = spread(&mut times[i]);
        let r = &last[i];
        println!(
            "{:<6} {:>12} {:>12} {:>12} {:>8.2}x   {:>22}   {:>22}",
            v.name(),
            ms(median),
            ms(min),
            ms(max),
            seq_median.as_secs_f64() / median.as_secs_f64(),
            format!("{} / {}", r.posts.calls, r.posts.requests),
            format!("{} / {}", r.views.calls, r.views.requests),
        );
    }
    println!("run report of one render (fetches in the code, deduplicated in a batch, answered from the run's cache):");
    for (v, r) in &profiled {
        for s in &r.io {
            println!(
                "  {:<6} {:<11} fetches {:>4}  deduplicated {:>4}  cached {:>4}  requests {:>4}  calls {:>4}  errors {}",
                v.name(),
                s.source,
                s.fetches,
                s.deduplicated,
                s.cached,
                s.requests,
                s.calls,
                s.errors
            );
        }
    }
    println!("pages equal: yes ({} bytes, all variants and runs)", reference.html.len());
    Ok(())
}
