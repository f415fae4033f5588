//! One fresh run of a variant: a new service, the open-loop load through the
//! gate, and at the update time one of four ways to move to version 2.

use std::sync::mpsc::{self, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::backend::{self, Shape};
use super::load::{collect, cpu_time, gate, generate, join_within, Collected, Msg, Progress};
use super::server::{upgrade, Request};

/// How the server moves from version 1 to version 2 (or does not).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Variant {
    /// A marker that changes nothing: what a cut costs by itself.
    NoOp,
    /// A live update: both functions and the cache's transform at one cut.
    Marker,
    /// Hold new requests at the gate, wait for every reply, update, release.
    Drain,
    /// Stop the service, join it (every request it took answered), start a
    /// process, reconnect, start version 2 (state rebuilt), release.
    Restart,
}

impl Variant {
    /// Every variant, in the order of the table and the plot.
    pub const ALL: [Variant; 4] = [Variant::NoOp, Variant::Marker, Variant::Drain, Variant::Restart];

    /// The variant's name in the table and the plot.
    pub fn label(self) -> &'static str {
        match self {
            Variant::NoOp => "no-op marker",
            Variant::Marker => "marker update",
            Variant::Drain => "drain-and-swap",
            Variant::Restart => "restart",
        }
    }
}

/// The load of one run.
#[derive(Clone, Copy)]
pub struct Plan {
    /// Requests per second.
    pub rate: f64,
    /// Length of the load.
    pub length: Duration,
    /// When the variant acts, from the start of the load.
    pub update_at: Duration,
}

impl Plan {
    /// How many requests the load sends.
    pub fn requests(&self) -> u64 {
        (self.rate * self.length.as_secs_f64()) as u64
    }
}

/// What one run measured.
pub struct Outcome {
    pub collected: Collected,
    /// How long the variant's action took (until `update`/`marker` returned,
    /// or until the gate was open again).
    pub took: Duration,
    /// What the action reported along the way.
    pub detail: String,
    /// The share of all cores the process used while the load ran (the
    /// generator, gate and collector included).
    pub cpu: Option<f64>,
    /// The backend's batch calls and the requests in them (the I/O shape).
    pub backend: ohua::SourceStats,
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// Close the gate and return how many requests went through it.
fn pause(gate_tx: &Sender<Msg>, detach: bool) -> u64 {
    let (ack, acked) = mpsc::channel();
    gate_tx.send(Msg::Pause { detach, ack }).expect("gate alive");
    acked.recv().expect("gate answers")
}

/// Run `variant` once under `plan` on a fresh service of `shape`, with the
/// requests' keys drawn by `seed` ([`super::load::key_of`]).
pub fn run(variant: Variant, plan: &Plan, shape: Shape, seed: u64) -> Outcome {
    let n = plan.requests();
    let (reply_tx, replies) = mpsc::channel();
    let db = backend::connect(shape);
    let mut db_after = None;
    let (req_tx, mut service) = shape.start(false, reply_tx.clone(), &db);
    // The load starts once the service answers (its cache is built).
    req_tx.send(Request { id: 0, key: 0 });
    replies.recv().expect("the service answers");
    let (gate_tx, gate_rx) = mpsc::channel();
    let gate = std::thread::spawn(move || gate(gate_rx, Some(req_tx)));
    let progress = Arc::new(Progress::default());
    let cpu_before = cpu_time();
    let start = Instant::now();
    let p = progress.clone();
    let collector = std::thread::spawn(move || collect(replies, start, n, p));
    let (g, rate) = (gate_tx.clone(), plan.rate);
    let generator = std::thread::spawn(move || generate(g, start, rate, n, seed));

    std::thread::sleep((start + plan.update_at).saturating_duration_since(Instant::now()));
    let t0 = Instant::now();
    let detail = match variant {
        Variant::NoOp => {
            let r = service.marker().expect("a no-op marker completes");
            format!("cut after {}, complete after {}", ms(r.until_cut), ms(r.until_complete))
        }
        Variant::Marker => {
            let r = service.update(upgrade()).expect("the update applies");
            let cut = (ms(r.until_cut), ms(r.until_complete), r.transformed.len());
            format!("cut after {}, complete after {}, {} state(s) transformed", cut.0, cut.1, cut.2)
        }
        Variant::Drain => {
            let forwarded = pause(&gate_tx, false);
            progress.wait_for(forwarded);
            let drained = t0.elapsed();
            // The service is idle: the cut goes before the next request.
            let pending = service.request(upgrade());
            gate_tx.send(Msg::Resume(None)).expect("gate alive");
            let r = pending.wait().expect("the update applies");
            format!("drained after {}, cut {} later, complete after {}", ms(drained), ms(r.until_cut), ms(t0.elapsed()))
        }
        Variant::Restart => {
            // The gate lets go of the service's input: its loop ends after
            // what was forwarded, and `join` returns once all of it is answered.
            pause(&gate_tx, true);
            join_within(service, Duration::from_secs(60), "the old service");
            let stopped = t0.elapsed();
            let exec = start_process();
            let fresh = backend::connect(shape);
            let reconnected = t0.elapsed();
            let (tx, s) = shape.start(true, reply_tx.clone(), &fresh);
            service = s;
            db_after = Some(fresh);
            gate_tx.send(Msg::Resume(Some(tx))).expect("gate alive");
            format!(
                "stopped and joined after {}, process started in {}, reconnected after {}, v2 started after {}",
                ms(stopped),
                ms(exec),
                ms(reconnected),
                ms(t0.elapsed())
            )
        }
    };
    let took = t0.elapsed();

    generator.join().expect("generator");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let cpu = cpu_before.zip(cpu_time()).map(|(a, b)| (b - a).as_secs_f64() / start.elapsed().as_secs_f64() / cores);
    drop(gate_tx);
    gate.join().expect("gate");
    join_within(service, Duration::from_secs(60), "the service");
    drop(reply_tx);
    let collected = collector.join().expect("collector");
    let mut backend = db.stats();
    if let Some(after) = db_after.filter(|_| shape == Shape::Io) {
        let s = after.stats();
        backend.calls += s.calls;
        backend.requests += s.requests;
        backend.writes += s.writes;
    }
    Outcome { collected, took, detail, cpu, backend }
}

/// What a restart pays for a new process before its `main` runs, done for
/// real: start this benchmark's own binary (exec, the loader, the Rust
/// runtime's start; it exits at once on an argument it does not know) and
/// wait for it. How long it took.
fn start_process() -> Duration {
    let t = Instant::now();
    let exe = std::env::current_exe().expect("update: the benchmark's own binary");
    let status = std::process::Command::new(exe)
        .arg("--update-restart-probe")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("update: cannot start a process");
    assert_eq!(status.code(), Some(2), "update: the probe process should exit at once with 2");
    t.elapsed()
}
