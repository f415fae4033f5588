//! The live view (issue 26): what `GET /api/view` answers while a process
//! runs algorithms and services, checked against the runs' own reports
//! and against sequential execution; the `OHUA_VIEW` switch; bad
//! requests. Alone in its binary: once a view is on, every run of the
//! process publishes to it. (The page itself, in headless Chromium, is
//! `crates/ohua-view/browser-check.sh`.)

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use ohua::view::{RunView, View};

/// `GET target` over a fresh connection: status and body.
fn get(addr: SocketAddr, method: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("the view listens");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).expect("an answer within 10 s");
    let status = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    (status, body)
}

fn view_of(addr: SocketAddr) -> View {
    let (status, body) = get(addr, "GET", "/api/view");
    assert_eq!(status, 200, "{body}");
    View::from_json(&body).expect("the data endpoint answers a view document")
}

fn run_of(view: &View, algorithm: &str) -> Option<RunView> {
    view.runs.iter().find(|r| r.algorithm == algorithm).cloned()
}

/// Poll the view until `done` holds for the run of `algorithm`.
fn wait_for(addr: SocketAddr, algorithm: &str, what: &str, done: impl Fn(&RunView) -> bool) -> RunView {
    let start = Instant::now();
    loop {
        if let Some(run) = run_of(&view_of(addr), algorithm).filter(|r| done(r)) {
            return run;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "the view never showed {what} for `{algorithm}`");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn square(x: u64) -> u64 {
    x * x
}

#[derive(Default)]
struct Sum(u64);
impl Sum {
    fn add(&mut self, x: u64) {
        self.0 += x;
    }
    fn get(&self) -> u64 {
        self.0
    }
}

/// The line above `sum_of_squares`: its operators' lines count from here.
const SUM_OF_SQUARES_AT: u32 = line!();
#[ohua::algorithm]
fn sum_of_squares(xs: Vec<u64>) -> u64 {
    let mut sum = Sum::default();
    for x in xs {
        let y = square(x);
        sum.add(y);
    }
    sum.get()
}

#[test]
fn a_finished_call_shows_every_operator_with_the_counts_of_its_report() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let xs: Vec<u64> = (0..5000).collect();
    let (out, reports) = ohua::profile(|| sum_of_squares(xs.clone()));
    assert_eq!(out, xs.iter().map(|&x| square(x)).sum::<u64>());
    let report = &reports[0];
    let run = wait_for(addr, "sum_of_squares", "the call", |r| !r.running && r.calls >= 1);
    assert_eq!(run.operators.len(), report.graph.nodes.len());
    assert_eq!(run.arcs.len(), report.graph.arcs.len());
    assert_eq!(run.sections, report.sections);
    for (op, stats) in run.operators.iter().zip(&report.nodes) {
        assert_eq!((op.name.as_str(), op.firings, op.section), (stats.name, stats.firings, stats.section));
    }
    let square_op = run.operators.iter().find(|o| o.name.contains("/square#")).expect("the call's operator");
    assert_eq!(square_op.firings, 5000);
    assert_eq!(square_op.label, "square(x)", "the code it runs, for the page's source panel");
    // Where that code is, for the same panel: `let y = square(x);` is five
    // lines below the marker, the `for` (the loop's `smap`) four.
    assert_eq!(square_op.line, Some(SUM_OF_SQUARES_AT + 5));
    let smap = run.operators.iter().find(|o| o.kind == "smap").expect("the loop's operator");
    assert_eq!(smap.line, Some(SUM_OF_SQUARES_AT + 4));
    assert_eq!(run.file.as_deref(), Some(file!()), "the file as `file!()` names it");
    assert!(run.file.as_deref().is_some_and(|f| f.ends_with("live_view.rs")));
    // The saved document is the same run.
    let saved = View::from_json(&report.to_view_json()).unwrap();
    assert_eq!(saved.runs[0].operators, run.operators);
    assert!(!saved.live);
}

#[ohua::algorithm]
fn cheap(x: u64) -> u64 {
    let y = square(x);
    y
}

#[test]
fn repeated_calls_give_throughput_and_latency_points_and_the_data_stays_bounded() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    for x in 0..300 {
        assert_eq!(cheap(x), x * x);
    }
    let run = wait_for(addr, "cheap", "300 calls", |r| r.calls >= 300);
    let s = &run.series;
    assert!(!s.t_s.is_empty());
    assert_eq!(s.runs.iter().sum::<u64>(), 300, "every call in one window: {:?}", s.runs);
    let p50 = s.p50_ms.iter().flatten().count();
    assert!(p50 >= 1 && s.p99_ms.iter().flatten().zip(s.p50_ms.iter().flatten()).all(|(p99, p50)| p99 >= p50));
    assert!(s.items_per_s.iter().sum::<f64>() >= 300.0, "a call without a loop is one item");
    // Many more calls: the document does not grow with them.
    let before = get(addr, "GET", "/api/view").1.len();
    for x in 0..20_000 {
        cheap(x);
    }
    let after = get(addr, "GET", "/api/view").1.len();
    assert!(after < before * 2 + 4096, "the document grew from {before} to {after} bytes");
}

struct Counter {
    count: u64,
    replies: Sender<u64>,
}

impl Counter {
    fn new(replies: Sender<u64>) -> Self {
        Counter { count: 0, replies }
    }
    fn add(&mut self, x: u64) {
        self.count += x;
        let _ = self.replies.send(self.count);
    }
    fn total(&self) -> u64 {
        self.count
    }
}

#[ohua::updatable]
fn weigh(x: u64) -> u64 {
    x
}
fn weigh_double(x: u64) -> u64 {
    2 * x
}

#[ohua::algorithm]
fn counting_service(requests: Receiver<u64>, replies: Sender<u64>) -> u64 {
    let mut counter = Counter::new(replies);
    for x in requests {
        let w = weigh(x);
        counter.add(w);
    }
    counter.total()
}

#[test]
fn a_running_service_shows_its_counts_and_its_update_on_the_time_axis() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (tx, rx) = mpsc::channel();
    let (reply_tx, replies) = mpsc::channel();
    let service = ohua::service(move || counting_service(rx, reply_tx));
    for x in 1..=1000 {
        tx.send(x).unwrap();
    }
    let got: Vec<u64> = (0..1000).map(|_| replies.recv_timeout(Duration::from_secs(10)).unwrap()).collect();
    assert_eq!(got.last(), Some(&500_500));
    // Published while it runs: every item the loop took shows.
    let run = wait_for(addr, "counting_service", "1000 items", |r| {
        r.running && r.operators.iter().any(|o| o.name.contains("/weigh#") && o.firings == 1000)
    });
    assert_eq!(run.calls, 0, "still running");
    // The loop waits in `recv`: the update's cut comes with the next item.
    let pending = service.request(ohua::Update::new().replace(ohua::replace!(weigh => weigh_double)));
    for x in 1..=10 {
        tx.send(x).unwrap();
    }
    let report = pending.wait().unwrap();
    let after: Vec<u64> = (0..10).map(|_| replies.recv_timeout(Duration::from_secs(10)).unwrap()).collect();
    assert_eq!(after.last(), Some(&(500_500 + 110)), "the update doubled the weights after the cut");
    let run = wait_for(addr, "counting_service", "the update", |r| r.events.iter().any(|e| e.kind == "update"));
    let view = view_of(addr);
    let update = run.events.iter().find(|e| e.kind == "update").unwrap();
    assert!(update.at_s >= 0.0 && update.at_s <= view.now_s, "{update:?} after {} s", view.now_s);
    assert!(update.complete_ms.unwrap() >= update.cut_ms.unwrap());
    assert!(update.text.contains(&format!("after {} item(s)", report.items_before())), "{}", update.text);
    // The throughput plot: the sampler's points, once a second.
    let run = wait_for(addr, "counting_service", "a throughput sample", |r| !r.series.t_s.is_empty());
    assert!(run.series.items_per_s.iter().all(|x| *x >= 0.0));
    drop(tx);
    assert_eq!(service.join(), 500_500 + 110);
    let run = wait_for(addr, "counting_service", "the end", |r| !r.running);
    assert_eq!(run.calls, 1);
    let weigh_op = run.operators.iter().find(|o| o.name.contains("/weigh#")).unwrap();
    // The run's report counts a marker and the stream's end among an
    // operator's firings (work units, `NodeStats::firings`): the 1010
    // items and up to two more, as `OHUA_REPORT` shows.
    assert!((1010..=1012).contains(&weigh_op.firings), "{}", weigh_op.firings);
}

fn slow_weigh(x: u64) -> u64 {
    std::thread::sleep(Duration::from_millis(4));
    x
}

#[ohua::algorithm]
fn slow_service(requests: Receiver<u64>, replies: Sender<u64>) -> u64 {
    let mut counter = Counter::new(replies);
    for x in requests {
        let w = slow_weigh(x);
        counter.add(w);
    }
    counter.total()
}

#[test]
fn a_running_service_plots_the_latency_of_its_requests_and_its_report_lists_no_probe() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (tx, rx) = mpsc::channel();
    let (reply_tx, replies) = mpsc::channel();
    let service = ohua::service(move || slow_service(rx, reply_tx));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let feeder = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut sent = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                sent += 1;
                tx.send(sent).unwrap();
                std::thread::sleep(Duration::from_millis(10));
            }
            sent
        })
    };
    // A probe follows an item through the graph: at least the 4 ms the
    // item spends in `slow_weigh` (a probe ahead of it would take
    // microseconds).
    let run = wait_for(addr, "slow_service", "latency points", |r| {
        r.running && r.series.p50_ms.iter().filter(|p| p.is_some()).count() >= 2
    });
    assert!(run.probed, "a running service's requests are timed by probes");
    let s = &run.series;
    for (p50, p99) in s.p50_ms.iter().zip(&s.p99_ms).filter_map(|(a, b)| Some((a.as_ref()?, b.as_ref()?))) {
        assert!(*p99 >= *p50, "{s:?}");
        assert!(*p99 >= 3.9 && *p50 < 5_000.0, "a probe did not time its item: {s:?}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let sent = feeder.join().unwrap();
    let total: u64 = (1..=sent).sum();
    let got: Vec<u64> = (0..sent).map(|_| replies.recv_timeout(Duration::from_secs(10)).unwrap()).collect();
    assert_eq!(got.last(), Some(&total), "every reply as sequential execution gives it");
    assert_eq!(service.join(), total);
    let done = wait_for(addr, "slow_service", "the end", |r| !r.running);
    assert!(done.events.is_empty(), "probes are not the service's markers: {:?}", done.events);
}

/// Items until told to stop; counts what it gave.
struct Ticker {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    given: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Iterator for Ticker {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        use std::sync::atomic::Ordering::Relaxed;
        (!self.stop.load(Relaxed)).then(|| self.given.fetch_add(1, Relaxed))
    }
}

fn spin(x: u64) -> u64 {
    (0..200).fold(x, |h, _| h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407))
}

#[derive(Default)]
struct Mix(u64);
impl Mix {
    fn add(&mut self, x: u64) {
        self.0 = self.0.rotate_left(5) ^ x;
    }
    fn get(&self) -> u64 {
        self.0
    }
}

#[ohua::algorithm]
fn busy_mix(xs: Ticker) -> u64 {
    let mut mix = Mix::default();
    for x in xs {
        let h = spin(x);
        mix.add(h);
    }
    mix.get()
}

#[test]
fn a_section_that_never_parks_still_shows_its_counts_while_it_runs() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (stop, given) = (std::sync::Arc::new(AtomicBool::new(false)), std::sync::Arc::new(AtomicU64::new(0)));
    let xs = Ticker { stop: stop.clone(), given: given.clone() };
    // One section, on the calling thread: its source never blocks, so it
    // never parks until the source ends.
    let single = ohua::Deployment::default().sections(ohua::deploy::SectionStrategy::Single);
    let call = std::thread::spawn(move || ohua::with_deployment(single, || busy_mix(xs)));
    let first = wait_for(addr, "busy_mix", "counts while it runs", |r| {
        r.running && r.operators.iter().any(|o| o.name.contains("/spin#") && o.firings > 0)
    });
    let later = wait_for(addr, "busy_mix", "counts that grow", |r| {
        let spun = |r: &RunView| r.operators.iter().find(|o| o.name.contains("/spin#")).map_or(0, |o| o.firings);
        r.running && spun(r) > spun(&first)
    });
    assert!(later.operators.iter().all(|o| o.firings <= given.load(Relaxed) + 1));
    assert!(!later.probed && later.series.p50_ms.iter().all(Option::is_none), "a call is no service: not probed");
    stop.store(true, Relaxed);
    let got = call.join().unwrap();
    let mut mix = Mix::default();
    (0..given.load(Relaxed)).for_each(|x| mix.add(spin(x)));
    assert_eq!(got, mix.get(), "as sequential execution over the items the source gave");
}

/// A stage that waits for a token per item: the test holds the tokens
/// back so the arc into it fills up.
struct Gate {
    tokens: Receiver<()>,
    passed: u64,
}

impl Gate {
    fn pass(&mut self, x: u64) {
        let _ = self.tokens.recv(); // after the test drops the sender: no wait
        self.passed += x;
    }
    fn total(&self) -> u64 {
        self.passed
    }
}

fn plus_one(x: u64) -> u64 {
    x + 1
}

#[ohua::algorithm]
fn gated_service(requests: Receiver<u64>, tokens: Receiver<()>) -> u64 {
    let mut gate = Gate { tokens, passed: 0 };
    for x in requests {
        let y = plus_one(x);
        gate.pass(y);
    }
    gate.total()
}

#[test]
fn a_stage_that_cannot_keep_up_shows_its_input_arc_full_and_nothing_is_lost() {
    use ohua::deploy::{Replication, SectionStrategy};
    use ohua::Deployment;
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (tx, rx) = mpsc::channel();
    let (token_tx, tokens) = mpsc::channel::<()>();
    // One section per operator: the gate's thread waits, the others go on
    // until the arc into the gate is full.
    let d = Deployment::default().sections(SectionStrategy::PerOperator).replicas(Replication::Off);
    let service = ohua::service(move || ohua::with_deployment(d, || gated_service(rx, tokens)));
    let n = 5_000u64;
    for x in 0..n {
        tx.send(x).unwrap();
    }
    let gate_of = |r: &RunView| r.operators.iter().find(|o| o.name.contains("/pass#")).cloned().unwrap();
    let full = wait_for(addr, "gated_service", "a full arc into the gate", |r| {
        r.running && gate_of(r).queue_fill.is_some_and(|f| f >= 0.99)
    });
    // Upstream of a full arc, the arcs before it fill too, or are empty
    // because their consumer moved everything on: either way measured.
    let plus = full.operators.iter().find(|o| o.name.contains("/plus_one#")).unwrap();
    assert!(plus.queue_fill.is_some_and(|f| (0.0..=1.0).contains(&f)), "{plus:?}");
    for _ in 0..3 {
        token_tx.send(()).unwrap();
    }
    drop(token_tx);
    drop(tx);
    // Sequential: every item passes the gate, plus one.
    assert_eq!(service.join(), (1..=n).sum::<u64>());
    // A finished run's arcs are gone: nothing to measure.
    let done = wait_for(addr, "gated_service", "the end", |r| !r.running);
    assert!(done.operators.iter().all(|o| o.queue_fill.is_none()));
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct Tally(u64);

#[ohua::updatable]
impl Tally {
    fn count(&mut self, x: u64) -> u64 {
        self.0 += 1;
        x + self.0
    }
}

#[ohua::algorithm]
fn tallied(requests: Receiver<u64>, replies: Sender<u64>) -> u64 {
    let mut tally = Tally(0);
    let mut counter = Counter::new(replies);
    for x in requests {
        let t = tally.count(x);
        counter.add(t);
    }
    counter.total()
}

#[test]
fn a_checkpoint_shows_on_the_time_axis_with_what_it_saved() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (tx, rx) = mpsc::channel();
    let (reply_tx, replies) = mpsc::channel();
    let service = ohua::service(move || tallied(rx, reply_tx));
    for x in 1..=100 {
        tx.send(x).unwrap();
    }
    for _ in 0..100 {
        replies.recv_timeout(Duration::from_secs(10)).unwrap();
    }
    // The loop waits in `recv`: the cut comes with the next item.
    let pending = service.request_checkpoint(&ohua::update::StateKinds::new().with::<Tally>());
    tx.send(101).unwrap();
    let checkpoint = pending.wait().unwrap();
    assert_eq!(checkpoint.items_before(), 100);
    let saved = checkpoint.states.iter().find(|s| s.state.contains("Tally")).expect("the tally was saved");
    assert_eq!(saved.json, "100", "the tally as sequential execution had it after 100 items");
    let run = wait_for(addr, "tallied", "the checkpoint", |r| r.events.iter().any(|e| e.kind == "checkpoint"));
    let event = run.events.iter().find(|e| e.kind == "checkpoint").unwrap();
    assert!(event.text.contains("1 state(s) saved") && event.text.contains("after 100 item(s)"), "{}", event.text);
    assert!(event.complete_ms.unwrap() >= event.cut_ms.unwrap());
    assert!(!run.events.iter().any(|e| e.kind == "update"), "a checkpoint is not an update: {:?}", run.events);
    drop(tx);
    service.join();
}

#[test]
fn an_update_requested_while_a_service_waits_applies_to_its_next_request_though_a_probe_waits_too() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let (tx, rx) = mpsc::channel();
    let (reply_tx, replies) = mpsc::channel();
    let service = ohua::service(move || counting_service(rx, reply_tx));
    let mut total = 0;
    for x in 1..=5 {
        tx.send(x).unwrap();
        total += x;
        assert_eq!(replies.recv_timeout(Duration::from_secs(10)).unwrap(), total);
    }
    wait_for(addr, "counting_service", "probes", |r| r.running && r.probed);
    // Idle: the view's next probe waits for the next request (it is sent
    // every 100 ms once the previous one got through).
    std::thread::sleep(Duration::from_millis(400));
    let update = service.request(ohua::Update::new().replace(ohua::replace!(weigh => weigh_double)));
    tx.send(7).unwrap();
    total += 2 * 7;
    assert_eq!(
        replies.recv_timeout(Duration::from_secs(10)).unwrap(),
        total,
        "the request after the update was weighed by the new function"
    );
    assert_eq!(update.wait().unwrap().items_before(), 5);
    drop(tx);
    assert_eq!(service.join(), total);
}

/// A key-value source: each batch one call.
struct Kv;

impl ohua::DataSource for Kv {
    type Request = u64;
    type Response = u64;
    type Error = String;
    fn fetch(&self, requests: &[u64]) -> Vec<Result<u64, String>> {
        requests.iter().map(|&k| Ok(k * 3 + 1)).collect()
    }
}

fn value(r: Result<u64, String>) -> u64 {
    r.unwrap_or(0)
}

#[ohua::algorithm]
fn two_fetches(db: &ohua::Source<Kv>, keys: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for k in keys {
        let a = db.fetch(k);
        let a = value(a);
        let b = db.fetch(a % 10);
        out.push(value(b));
    }
    out
}

#[test]
fn a_run_that_fetches_shows_its_sources_batches_and_call_rounds() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let db = ohua::Source::new(Kv);
    let keys: Vec<u64> = (0..200).collect();
    let (out, reports) = ohua::profile(|| two_fetches(&db, keys.clone()));
    let expected: Vec<u64> = keys.iter().map(|k| (k * 3 + 1) % 10 * 3 + 1).collect();
    assert_eq!(out, expected);
    // The view shows the latest call, made without `profile`: the view
    // itself asks for the fetch sites.
    assert_eq!(two_fetches(&db, keys.clone()), expected);
    let run = wait_for(addr, "two_fetches", "the second call", |r| r.calls >= 2);
    let (shown, stats) = (&run.io[0], &reports[0].io[0]);
    assert_eq!((shown.fetches, shown.calls, shown.requests), (stats.fetches, stats.calls, stats.requests));
    assert_eq!((shown.cached, shown.deduplicated), (stats.cached, stats.deduplicated));
    assert!(shown.mean_batch > 1.0, "200 independent fetches per level share calls: {shown:?}");
    assert_eq!(shown.sites.len(), 2, "two fetch sites: {:?}", shown.sites);
    assert!(shown.sites.iter().all(|s| !s.rounds.is_empty() && s.request.contains("db.fetch")), "{:?}", shown.sites);
}

#[test]
fn polling_at_full_load_changes_no_result() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let pollers: Vec<_> = (0..3)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut polls = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let (status, _) = get(addr, "GET", "/api/view");
                    assert_eq!(status, 200);
                    polls += 1;
                }
                polls
            })
        })
        .collect();
    for round in 0..50u64 {
        let xs: Vec<u64> = (round..round + 2000).collect();
        assert_eq!(sum_of_squares(xs.clone()), xs.iter().map(|&x| square(x)).sum::<u64>());
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let polls: u64 = pollers.into_iter().map(|p| p.join().unwrap()).sum();
    assert!(polls > 0);
}

#[test]
fn bad_requests_are_refused_and_a_silent_client_blocks_nobody() {
    let addr = ohua::view::serve("127.0.0.1:0").unwrap();
    // A client that connects and says nothing.
    let _silent = TcpStream::connect(addr).unwrap();
    let mut half = TcpStream::connect(addr).unwrap();
    half.write_all(b"GET /api/vi").unwrap();
    let start = Instant::now();
    assert_eq!(get(addr, "GET", "/").0, 200);
    assert!(start.elapsed() < Duration::from_secs(5), "the page waited for the silent clients");
    assert_eq!(get(addr, "GET", "/no/such/page").0, 404);
    assert_eq!(get(addr, "POST", "/api/view").0, 405);
    assert_eq!(get(addr, "GET", "/api/view?frobnicate=1").0, 400);
    assert_eq!(get(addr, "GET", &format!("/api/view?{}", "x".repeat(3000))).0, 414);
    let err = ohua::view::serve("0.0.0.0:0").unwrap_err().to_string();
    assert!(err.contains("refusing") && err.contains("OHUA_VIEW_PUBLIC=1"), "{err}");
    assert!(ohua::view::serve("not an address").is_err());
}

/// Runs only as the child process of the test below (`--ignored`).
#[test]
#[ignore = "a child process of the_environment_switch_serves_from_the_first_run_and_refuses_other_hosts"]
fn child_runs_once_under_the_environment() {
    assert_eq!(cheap(7), 49);
    let view = ohua::view::current();
    println!("view on: {}", view.as_ref().is_some_and(|v| v.runs.iter().any(|r| r.algorithm == "cheap")));
}

#[test]
fn the_environment_switch_serves_from_the_first_run_and_refuses_other_hosts() {
    let child = |addr: &str| {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_runs_once_under_the_environment", "--ignored", "--nocapture", "--test-threads=1"])
            .env("OHUA_VIEW", addr)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        (String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (stdout, stderr) = child("127.0.0.1:0");
    assert!(stdout.contains("view on: true"), "{stdout}");
    assert!(stderr.contains("ohua: the live view is at http://127.0.0.1:"), "{stderr}");
    let (stdout, stderr) = child("0.0.0.0:0");
    assert!(stdout.contains("view on: false"), "{stdout}");
    assert!(stderr.contains("OHUA_VIEW: refusing to serve the view on 0.0.0.0:0"), "{stderr}");
}
