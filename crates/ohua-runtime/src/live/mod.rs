//! The live view: with `OHUA_VIEW=127.0.0.1:PORT` set (or after
//! [`serve`]), the process serves a page that shows every algorithm it
//! runs: the graph as the deployment placed it, each operator's load, the
//! runs' throughput and latency over the last minutes, a service's updates
//! and checkpoints as they complete, and the data sources' batching.
//!
//! The page, its JSON data and the server are the `ohua-view` crate's; this
//! module keeps the record they read (`book.rs`): `exec` tells it when a
//! run starts and ends, only while a view is on. Off, a run pays one
//! check of a process-wide flag.
//!
//! `OHUA_VIEW_SAVE=<dir>` writes each finished run's view to
//! `<dir>/<algorithm>.json`, which `ohua view FILE` serves after the fact
//! (both variables are read once, at the process's first run).

mod book;
pub(crate) mod counts;

use std::net::SocketAddr;
use std::time::Instant;

use ohua_view::{Bind, Server, View, ViewError};

use crate::deploy::Plan;
use crate::graph::GraphInfo;
use crate::report::RunReport;
use crate::sync::process::{Arc, Mutex, OnceLock};
use crate::update::Control;
use book::Book;
use counts::LiveCounts;

/// Serve the live view on this address (`127.0.0.1:PORT`, or a port)
/// from the first run on.
pub const OHUA_VIEW: &str = "OHUA_VIEW";
/// Set to `1` to let `OHUA_VIEW` name an address other hosts can reach.
pub const OHUA_VIEW_PUBLIC: &str = "OHUA_VIEW_PUBLIC";
/// Write each finished run's view document to `<dir>/<algorithm>.json`.
pub const OHUA_VIEW_SAVE: &str = "OHUA_VIEW_SAVE";

/// The process's view: the record, its time origin, and the servers
/// reading it. Exists once a view was started.
struct Live {
    origin: Instant,
    book: Mutex<Book>,
    servers: Mutex<Vec<Server>>,
}

static LIVE: OnceLock<Live> = OnceLock::new();
/// Whether `OHUA_VIEW` was looked at (once per process, at the first run).
static ENV_READ: OnceLock<()> = OnceLock::new();

fn live() -> &'static Live {
    LIVE.get_or_init(|| {
        // Once a second, how far each running run's loops got (the
        // throughput plot of a service); more often, a service's next
        // latency probe. Lives as long as the process.
        let sampler = std::thread::Builder::new().name("ohua-view-sampler".into()).spawn(|| loop {
            std::thread::sleep(PROBE_EVERY);
            if let Some(live) = LIVE.get() {
                live.book.lock().unwrap_or_else(|e| e.into_inner()).sample(Instant::now(), SAMPLE_EVERY);
            }
        });
        if let Err(e) = sampler {
            eprintln!("ohua: the live view's sampler thread did not start ({e}): no throughput plot for services");
        }
        Live { origin: Instant::now(), book: Mutex::new(Book::default()), servers: Mutex::new(Vec::new()) }
    })
}

/// How often the throughput of running runs is sampled.
const SAMPLE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How often a running service gets a latency probe, if the previous one
/// got through ([`crate::update::Action::Probe`]): about ten points per
/// second for the p50/p99 of each one-second window.
const PROBE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Serve the live view of this process on `addr` (a loopback address, or a
/// port on 127.0.0.1; port 0 picks one) from now on, and return the
/// address it listens on. Runs that start after this call are shown.
/// Call it again to serve on another address too.
///
/// # Errors
///
/// [`ViewError::BadAddress`], [`ViewError::NotLoopback`] (see [`serve_public`]),
/// [`ViewError::Listen`].
///
/// # Example
///
/// ```
/// let addr = ohua_runtime::live::serve("127.0.0.1:0").unwrap();
/// assert!(addr.ip().is_loopback());
/// assert!(ohua_runtime::live::serve("0.0.0.0:0").is_err(), "other hosts could reach it");
/// ```
pub fn serve(addr: &str) -> Result<SocketAddr, ViewError> {
    start(Bind::parse(addr)?)
}

/// [`serve`] on any address, loopback or not: the caller opts in to other
/// hosts seeing the algorithm's structure, code and load.
///
/// # Errors
///
/// [`ViewError::BadAddress`], [`ViewError::Listen`].
pub fn serve_public(addr: &str) -> Result<SocketAddr, ViewError> {
    start(Bind::public(addr)?)
}

fn start(bind: Bind) -> Result<SocketAddr, ViewError> {
    // The record first, so the server's first request finds it.
    let record = live();
    let server = Server::start(bind, || current().expect("the record exists before its server"))?;
    let addr = server.addr();
    record.servers.lock().unwrap_or_else(|e| e.into_inner()).push(server);
    Ok(addr)
}

/// The current data of the live view, as the page reads it (`None` before
/// a view was started).
///
/// # Example
///
/// ```
/// ohua_runtime::live::serve("127.0.0.1:0").unwrap();
/// let view = ohua_runtime::live::current().unwrap();
/// assert!(view.live);
/// ```
pub fn current() -> Option<View> {
    let live = LIVE.get()?;
    let now = Instant::now();
    let runs = live.book.lock().unwrap_or_else(|e| e.into_inner()).runs(live.origin, now);
    Some(View { now_s: now.saturating_duration_since(live.origin).as_secs_f64(), ..View::new(true, runs) })
}

/// Whether a view is on; at the first call, starts the one `OHUA_VIEW`
/// asks for (a bad address is reported on stderr once and serves nothing:
/// a diagnostic must not fail the user's computation).
fn on() -> Option<&'static Live> {
    ENV_READ.get_or_init(|| {
        let Some(addr) = std::env::var(OHUA_VIEW).ok().filter(|a| !a.is_empty()) else {
            return;
        };
        let public = std::env::var(OHUA_VIEW_PUBLIC).is_ok_and(|v| v == "1");
        let started = if public { serve_public(&addr) } else { serve(&addr) };
        match started {
            Ok(at) => eprintln!("ohua: the live view is at http://{at}/"),
            Err(e) => eprintln!("ohua: {OHUA_VIEW}: {e}"),
        }
    });
    LIVE.get()
}

/// Whether a view is on (a run's report then names its fetch sites, for
/// the view's I/O table).
pub(crate) fn is_on() -> bool {
    on().is_some()
}

/// A run the view watches: its name in the record, and where its sections
/// publish their counts.
pub(crate) struct Viewed {
    pub(crate) token: u64,
    pub(crate) counts: Arc<LiveCounts>,
}

/// A run starts: what the view shows of it until it ends (`fused_into`:
/// the head of the fused piece each operator runs in, if any; `counts`:
/// where its sections publish). `None` when no view is on.
pub(crate) fn run_started(
    graph: &'static GraphInfo,
    plan: &Plan,
    fused_into: &[Option<usize>],
    started: Instant,
    control: Option<&Arc<Control>>,
    counts: LiveCounts,
) -> Option<Viewed> {
    let live = on()?;
    let counts = Arc::new(counts);
    let mut book = live.book.lock().unwrap_or_else(|e| e.into_inner());
    let run = book::Running {
        token: 0,
        graph,
        plan: plan.clone(),
        fused_into: fused_into.to_vec(),
        started,
        control: control.cloned(),
        counts: counts.clone(),
        samples: Default::default(),
        probe: None,
        latencies: Default::default(),
    };
    let token = book.started(run);
    Some(Viewed { token, counts })
}

/// A run ended with `report` (`token` from [`run_started`]).
pub(crate) fn run_finished(token: Option<u64>, report: &RunReport) {
    static SAVE_TO: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    let save_to = SAVE_TO.get_or_init(|| std::env::var_os(OHUA_VIEW_SAVE).filter(|d| !d.is_empty()).map(Into::into));
    if let Some(dir) = save_to {
        let path = dir.join(format!("{}.json", report.algorithm));
        if let Err(e) = std::fs::write(&path, report.to_view_json()) {
            eprintln!("ohua: {OHUA_VIEW_SAVE}: cannot write `{}`: {e}", path.display());
        }
    }
    if let Some(live) = on() {
        live.book.lock().unwrap_or_else(|e| e.into_inner()).finished(token, report, live.origin);
    }
}
