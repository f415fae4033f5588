//! InContext's responsiveness case (§7.1) with a snapshot state: a node of
//! a distributed computation holds a grid that updates change, answers
//! heartbeats (liveness and how far it got), and now and then computes a
//! long summary of the whole grid. Under one lock (Mace's atomic events)
//! or in plain sequential code, a heartbeat that arrives during the
//! summary waits for it, and the peers declare the node dead. Declared
//! `ohua::snapshot(Grid::new())`, the summary (`&self`) runs on a snapshot
//! off the grid's path, and the heartbeats and updates after it go on.
//!
//! Heartbeat replies and summaries leave on two channels (two states, each
//! called in request order); every reply and every summary equals
//! sequential execution's. The client sends on a fixed timetable (open
//! loop): a heartbeat every millisecond, an update every 4 ms, a summary
//! request every 600 ms. The program prints the heartbeats' reply latency
//! (time from the timetable's send to the reply) while a summary runs, for
//! sequential execution and for the default deployment.
//!
//! ```text
//! cargo run --release -p ohua-examples --bin responsive [-- --seconds N --side N --thp on|off --late-ms N]
//! ```
//!
//! Transparent huge pages are off for this process unless `--thp on`
//! (`RESPONSIVE_THP=on`): the allocator (mimalloc) asks the kernel for huge
//! pages, and the first touch of one clears 2 MB at once, 7-10 ms on the
//! project's VM, on whichever thread touches it first. A first run touches
//! fresh memory for its arcs and its first copies of the grid, so with huge
//! pages its heartbeats waited behind page clearing, not behind ohua
//! (`BENCHMARKS.md`, "Snapshot states, fourth part"). Services that answer
//! within milliseconds are run without them for the same reason (Redis's and
//! MongoDB's advice).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use ohua::algorithm;
use ohua_examples::{arg_usize, Rng};

/// What the node receives.
#[derive(Debug, Clone, Copy)]
pub enum Request {
    /// A peer asks whether the node is alive (the heartbeat's number).
    Heartbeat(u64),
    /// A cell of the grid changes.
    Set { cell: usize, value: u32 },
    /// Compute the summary of the grid (the request's number).
    Summarize(u64),
}

/// The node's answer to a heartbeat or an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Alive, with the grid's version: the heartbeat's number.
    Alive { heartbeat: u64, version: u64 },
    /// An update applied: the grid's version after it.
    Applied { version: u64 },
}

/// A summary of the grid: per row, the row it is most alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    request: u64,
    version: u64,
    nearest: Vec<u32>,
}

/// The grid the node computes on: `side` rows of `side` cells.
#[derive(Debug)]
pub struct Grid {
    side: usize,
    cells: Vec<u32>,
    version: u64,
}

/// A snapshot state's copies go into the memory of a version whose readers
/// are done (`Clone::clone_from`); the derived `clone_from` would allocate
/// a new grid each time, so the cells are copied into the old buffer here.
impl Clone for Grid {
    fn clone(&self) -> Self {
        Grid { side: self.side, cells: self.cells.clone(), version: self.version }
    }

    fn clone_from(&mut self, source: &Self) {
        self.side = source.side;
        self.cells.clone_from(&source.cells);
        self.version = source.version;
    }
}

impl Grid {
    fn new(side: usize) -> Self {
        let mut rng = Rng::new(side as u64);
        Grid { side, cells: (0..side * side).map(|_| rng.below(1000) as u32).collect(), version: 0 }
    }

    /// `&mut self`: an update writes its cell; the other requests change
    /// nothing.
    fn apply(&mut self, r: &Request) {
        if let Request::Set { cell, value } = *r {
            let at = cell % self.cells.len();
            self.cells[at] = value;
            self.version += 1;
        }
    }

    /// `&self`, cheap: the reply to a heartbeat or an update.
    fn status(&self, r: &Request) -> Reply {
        match *r {
            Request::Heartbeat(heartbeat) => Reply::Alive { heartbeat, version: self.version },
            _ => Reply::Applied { version: self.version },
        }
    }

    /// `&self`, long: for every row, the other row nearest to it (sum of
    /// absolute differences), side³ steps.
    fn summary(&self, r: &Request) -> Summary {
        let request = if let Request::Summarize(n) = *r { n } else { 0 };
        let row = |i: usize| &self.cells[i * self.side..(i + 1) * self.side];
        let nearest = (0..self.side)
            .map(|i| {
                let distance = |j: usize| row(i).iter().zip(row(j)).map(|(a, b)| a.abs_diff(*b) as u64).sum::<u64>();
                (0..self.side).filter(|j| *j != i).min_by_key(|j| (distance(*j), *j)).unwrap_or(i) as u32
            })
            .collect();
        Summary { request, version: self.version, nearest }
    }
}

/// Where replies to heartbeats and updates go.
pub struct Replies(Sender<(Reply, Instant)>);

impl Replies {
    fn send(&mut self, reply: Reply) {
        // The client may have gone: a reply nobody reads is dropped.
        let _ = self.0.send((reply, Instant::now()));
    }
}

/// Where summaries go, with when each was sent.
pub struct Reports(Sender<(Summary, Instant)>);

impl Reports {
    fn send(&mut self, s: Summary) {
        let _ = self.0.send((s, Instant::now()));
    }
}

fn is_summary(r: &Request) -> bool {
    matches!(r, Request::Summarize(_))
}

#[algorithm]
fn node(
    side: usize,
    requests: Receiver<Request>,
    replies: Sender<(Reply, Instant)>,
    reports: Sender<(Summary, Instant)>,
) -> u64 {
    let mut grid = ohua::snapshot(Grid::new(side));
    let mut answers = Replies(replies);
    let mut summaries = Reports(reports);
    for r in requests {
        grid.apply(&r);
        if is_summary(&r) {
            let s = grid.summary(&r);
            summaries.send(s);
        } else {
            let a = grid.status(&r);
            answers.send(a);
        }
    }
    let v = grid.version;
    v
}

/// The timetable: `(when, request)`, a heartbeat every millisecond, an
/// update every 4 ms, a summary every 600 ms (the first at 100 ms).
fn timetable(seconds: usize, side: usize) -> Vec<(Duration, Request)> {
    let mut rng = Rng::new(11);
    let mut out = Vec::new();
    let (mut heartbeats, mut summaries) = (0, 0);
    for ms in 0..seconds as u64 * 1000 {
        let at = Duration::from_millis(ms);
        if ms % 600 == 100 {
            out.push((at, Request::Summarize(summaries)));
            summaries += 1;
        }
        if ms % 4 == 2 {
            let cell = rng.below((side * side) as u64) as usize;
            out.push((at, Request::Set { cell, value: rng.below(1000) as u32 }));
        }
        out.push((at, Request::Heartbeat(heartbeats)));
        heartbeats += 1;
    }
    out
}

/// What one deployment did: the replies and summaries, and the latency of
/// each heartbeat due while a summary ran (from the summary's request to
/// its report) and of the others.
struct Outcome {
    replies: Vec<Reply>,
    summaries: Vec<Summary>,
    during: Histogram<u64>,
    outside: Histogram<u64>,
    /// Heartbeats answered later than `--late-ms`.
    late: Vec<Late>,
}

/// A heartbeat answered late: when it was due (µs from the start), its
/// latency (µs), and the summary running then (its number, and when it was
/// requested and reported, µs from the start).
type Late = (u64, u64, Option<(usize, u64, u64)>);

type Serve = dyn FnOnce(Receiver<Request>, Sender<(Reply, Instant)>, Sender<(Summary, Instant)>) -> u64 + Send;

/// Serve the timetable with `serve` (the algorithm, sequential or not),
/// sending each request when it is due.
fn drive(table: &[(Duration, Request)], late_after: Option<u64>, serve: Box<Serve>) -> Outcome {
    let (tx, rx) = channel();
    let (reply_tx, reply_rx) = channel();
    let (report_tx, report_rx) = channel();
    let server = std::thread::spawn(move || serve(rx, reply_tx, report_tx));
    let start = Instant::now();
    let (mut heartbeat_due, mut summary_due) = (Vec::new(), Vec::new());
    for (at, r) in table {
        if let Some(wait) = at.checked_sub(start.elapsed()) {
            std::thread::sleep(wait);
        }
        match r {
            Request::Heartbeat(_) => heartbeat_due.push(start + *at),
            Request::Summarize(_) => summary_due.push(start + *at),
            Request::Set { .. } => {}
        }
        tx.send(*r).expect("the node runs");
    }
    drop(tx);
    server.join().expect("the node does not panic");
    let (summaries, reported): (Vec<Summary>, Vec<Instant>) = report_rx.iter().unzip();
    let running: Vec<(Instant, Instant)> = summary_due.into_iter().zip(reported).collect();
    let (mut during, mut outside) = (Histogram::new(3).expect("bounds"), Histogram::new(3).expect("bounds"));
    let mut replies = Vec::new();
    let mut late = Vec::new();
    let since = |t: Instant| t.saturating_duration_since(start).as_micros() as u64;
    for (reply, at) in reply_rx.iter() {
        if let Reply::Alive { heartbeat, .. } = reply {
            let due = heartbeat_due[heartbeat as usize];
            let micros = at.saturating_duration_since(due).as_micros() as u64;
            let busy = running.iter().position(|(from, to)| (*from..*to).contains(&due));
            if busy.is_some() { &mut during } else { &mut outside }.record(micros.max(1)).expect("in range");
            if late_after.is_some_and(|ms| micros > ms * 1000) {
                late.push((since(due), micros, busy.map(|i| (i, since(running[i].0), since(running[i].1)))));
            }
        }
        replies.push(reply);
    }
    Outcome { replies, summaries, during, outside, late }
}

fn ms(h: &Histogram<u64>, q: f64) -> String {
    format!("{:.2} ms", h.value_at_quantile(q) as f64 / 1e3)
}

/// Whether `--thp on` (or `RESPONSIVE_THP=on`) asks to keep transparent
/// huge pages; off by default (module docs).
fn huge_pages_wanted() -> bool {
    let args: Vec<String> = std::env::args().collect();
    let flag = args.iter().position(|a| a == "--thp").and_then(|i| args.get(i + 1)).cloned();
    flag.or_else(|| std::env::var("RESPONSIVE_THP").ok()).is_some_and(|v| v == "on")
}

/// Turn transparent huge pages off for this process (every later page
/// fault, also in memory the allocator asked huge pages for); whether that
/// worked.
fn disable_huge_pages() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_SET_THP_DISABLE takes an integer flag and changes only
        // how later page faults of this process are served.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

fn main() {
    let huge_pages = huge_pages_wanted() || !disable_huge_pages();
    let seconds = arg_usize("--seconds", "RESPONSIVE_SECONDS", 5);
    let side = arg_usize("--side", "RESPONSIVE_SIDE", 400);
    let table = timetable(seconds, side);
    let t = Instant::now();
    let one = Grid::new(side).summary(&Request::Summarize(0));
    println!(
        "responsive: {} requests over {seconds} s (a heartbeat every ms, an update every 4 ms, a summary every 600 ms), grid {side}x{side}; one summary takes {:.0} ms; transparent huge pages {}",
        table.len(),
        t.elapsed().as_secs_f64() * 1e3,
        if huge_pages { "on" } else { "off" }
    );
    drop(one);
    // `--late-ms N`: list the heartbeats of the ohua runs answered later
    // than N ms, with the summary that ran then (where to look first when
    // a p99 is high).
    let late_after = Some(arg_usize("--late-ms", "RESPONSIVE_LATE_MS", 0) as u64).filter(|&ms| ms > 0);
    let seq = drive(&table, None, Box::new(move |rx, a, s| ohua::sequential(|| node(side, rx, a, s))));
    let first = drive(&table, late_after, Box::new(move |rx, a, s| node(side, rx, a, s)));
    let later = drive(&table, late_after, Box::new(move |rx, a, s| node(side, rx, a, s)));
    for (run, o) in [("first", &first), ("later", &later)] {
        assert_eq!(o.replies, seq.replies, "the {run} run's replies differ from sequential execution");
        assert_eq!(o.summaries, seq.summaries, "the {run} run's summaries differ from sequential execution");
    }
    println!("replies and summaries equal sequential execution's: yes ({} summaries)", seq.summaries.len());
    println!("\nheartbeat reply latency         during a summary                    otherwise");
    for (name, o) in [("sequential", &seq), ("ohua, first run in process", &first), ("ohua, later run", &later)] {
        println!(
            "  {name:<28} p50 {:>9}  p99 {:>9}  ({:>4})   p50 {:>9}  p99 {:>9}",
            ms(&o.during, 0.5),
            ms(&o.during, 0.99),
            o.during.len(),
            ms(&o.outside, 0.5),
            ms(&o.outside, 0.99)
        );
    }
    for (run, o) in [("first", &first), ("later", &later)] {
        for (due, micros, summary) in &o.late {
            let during = summary.map_or(String::from("outside summaries"), |(i, from, to)| {
                format!("during summary {i} ({:.1}-{:.1} ms)", from as f64 / 1e3, to as f64 / 1e3)
            });
            println!(
                "  late, {run} run: due at {:.1} ms, answered after {:.2} ms, {during}",
                *due as f64 / 1e3,
                *micros as f64 / 1e3
            );
        }
    }
}
