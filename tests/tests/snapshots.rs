//! Snapshot states (issue 24, InContext's contexts): `&mut self` calls run
//! on the live state in order, `&self` calls that are statements of their
//! own run on snapshots, off the state's path and on replicas, and every
//! result, every read's version and every state's calls equal sequential
//! execution.

use ohua::{snapshot, Deployment, Replication, SectionStrategy};
use ohua_conformance::check;

/// A routing table that counts its versions: every write makes one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Routes {
    routes: Vec<(u64, u64)>,
    version: u64,
}

impl Routes {
    pub fn new() -> Self {
        Routes::default()
    }

    pub fn add(&mut self, from: u64, to: u64) {
        self.routes.push((from, to));
        self.version += 1;
    }

    pub fn remove(&mut self, from: u64) -> usize {
        let before = self.routes.len();
        self.routes.retain(|r| r.0 != from);
        self.version += 1;
        before - self.routes.len()
    }

    /// A read that takes a while, so that reads overlap the writes after them.
    pub fn lookup(&self, from: &u64) -> (Option<u64>, u64) {
        busy(40);
        (self.routes.iter().rev().find(|r| r.0 == *from).map(|r| r.1), self.version)
    }

    pub fn count(&self, from: u64, at_least: u64) -> usize {
        self.routes.iter().filter(|r| r.0 == from && r.1 >= at_least).count()
    }

    pub fn version(&self) -> u64 {
        self.version
    }
}

pub(crate) fn busy(micros: u64) {
    let until = std::time::Instant::now() + std::time::Duration::from_micros(micros);
    while std::time::Instant::now() < until {
        std::hint::spin_loop();
    }
}

fn inputs() -> Vec<u64> {
    (0..60).map(|i| (i * 7 + 3) % 11).collect()
}

#[ohua::algorithm]
fn routing(xs: Vec<u64>) -> (Vec<(u64, Option<u64>, u64, usize)>, u64) {
    let mut routes = snapshot(Routes::new());
    let mut out = Vec::new();
    for x in xs {
        routes.add(x % 4, x);
        let (hop, seen) = routes.lookup(&(x % 3));
        let n = routes.count(x % 4, x / 2);
        if x % 5 == 0 {
            let _gone = routes.remove(x % 3);
        }
        out.push((x, hop, seen, n));
    }
    let last = routes.version();
    (out, last)
}

#[test]
fn reads_on_snapshots_see_the_version_sequential_execution_shows_them() {
    let (rows, last) = check(|| routing(inputs()));
    // Not vacuous: the reads saw many versions, and some a version that a
    // later write of the same run replaced.
    assert!(rows.windows(2).filter(|w| w[0].2 != w[1].2).count() > 30, "{rows:?}");
    assert!(rows.iter().any(|r| r.1.is_some()) && rows.iter().any(|r| r.1.is_none()), "{rows:?}");
    assert_eq!(last, rows.last().unwrap().2, "no write after the last read");
}

#[test]
fn a_read_runs_off_the_states_path_on_replicas() {
    let d = Deployment::default()
        .workers(2)
        .sections(SectionStrategy::PerOperator)
        .replicas("routing/.*read=3".parse::<Replication>().expect("a rule"));
    let (got, reports) = ohua::profile(|| ohua::with_deployment(d, || routing(inputs())));
    assert_eq!(got, ohua::sequential(|| routing(inputs())));
    let report = &reports[0];
    let reads: Vec<&str> = report.nodes.iter().filter(|n| n.name.ends_with(".read")).map(|n| n.name).collect();
    // Each `let` of a call on the state; `routes.add(..);` binds nothing and stays whole.
    for method in ["lookup", "count", "remove", "version"] {
        assert!(reads.iter().any(|n| n.contains(&format!("/{method}#"))), "{method}: {reads:?}");
    }
    let lookup = report.nodes.iter().find(|n| n.name.contains("/lookup#") && n.name.ends_with(".read")).unwrap();
    assert_eq!(lookup.replicas.len(), 3, "{report}");
    // Every `&self` statement took a snapshot: lookup and count per item,
    // version once; a write copies only while a read holds the state.
    let n = inputs().len() as u64;
    assert_eq!(report.snapshots.taken, 2 * n + 1, "{report}");
    assert!(report.snapshots.copies <= n + n / 5, "{report}");
    assert!(report.to_string().contains(&format!("snapshot states: {} snapshots taken", 2 * n + 1)), "{report}");
    assert_eq!(lookup.replicas.iter().map(|r| r.firings).sum::<u64>(), inputs().len() as u64, "{report}");
    // The parallelism estimate (InContext's simulator): the state's calls
    // and its loop-carried cycle run in order, the reads on snapshots do not.
    let p = report.parallelism();
    assert!(!p.bound_by.is_empty() && p.bound_by.iter().all(|n| !n.ends_with(".read")), "{p:?}");
    assert!(p.in_order <= p.work && p.speedup(1) == 1.0, "{p:?}");
    assert!(report.to_string().contains("parallelism: "), "{report}");
}

/// A key-value table whose reads report the version they saw.
#[derive(Clone, Debug, Default)]
pub struct Table {
    values: std::collections::BTreeMap<u64, u64>,
    version: u64,
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    pub fn put(&mut self, k: u64, v: u64) {
        self.values.insert(k, v);
        self.version += 1;
    }

    pub fn read(&self, k: &u64) -> (Option<u64>, u64) {
        busy(20);
        (self.values.get(k).copied(), self.version)
    }
}

/// The negative control: a table whose clones share one live state, so a
/// "snapshot" of it is the live state. Outside sequential execution a read
/// waits up to 200 ms for a write to change it: a read that runs beside
/// the writes after it sees the next one.
#[derive(Clone, Debug, Default)]
pub struct LiveTable(std::sync::Arc<std::sync::Mutex<Table>>);

impl LiveTable {
    pub fn new() -> Self {
        LiveTable::default()
    }

    pub fn put(&mut self, k: u64, v: u64) {
        self.0.lock().unwrap().put(k, v);
    }

    pub fn read(&self, k: &u64) -> (Option<u64>, u64) {
        let start = self.0.lock().unwrap().version;
        let until = std::time::Instant::now() + std::time::Duration::from_millis(200);
        while !ohua::is_sequential() && self.0.lock().unwrap().version == start && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        self.0.lock().unwrap().read(k)
    }
}

/// The version test's algorithm over a table of type `$table`.
macro_rules! versions_of {
    ($name:ident, $table:ident) => {
        #[ohua::algorithm]
        fn $name(ops: Vec<(bool, u64, u64)>) -> Vec<(Option<u64>, u64)> {
            let mut table = snapshot($table::new());
            let mut seen = Vec::new();
            for op in ops {
                if op.0 {
                    table.put(op.1, op.2);
                } else {
                    let v = table.read(&op.1);
                    seen.push(v);
                }
            }
            seen
        }
    };
}

versions_of!(versions, Table);
versions_of!(live_versions, LiveTable);

/// Reads off the state's path, on their own thread: where a read of the
/// live state would see the writes after it.
pub(crate) fn reads_apart() -> Deployment {
    Deployment::default().workers(2).sections(SectionStrategy::PerOperator).replicas(Replication::Off)
}

type Ops = Vec<(bool, u64, u64)>;

/// Every read's value and version under `d` against sequential execution.
/// A run that panics fails too: in check mode (on in debug builds) a read
/// of the live state is caught as a `&self` call that changed its state.
fn reads_match_sequential(run: fn(Ops) -> Vec<(Option<u64>, u64)>, ops: &Ops, d: Deployment) -> Result<(), String> {
    let expected = ohua::sequential(|| run(ops.clone()));
    let got = std::panic::catch_unwind(|| ohua::with_deployment(d, || run(ops.clone())))
        .map_err(|p| format!("the run panicked: {}", panic_text(&p)))?;
    match got == expected {
        true => Ok(()),
        false => Err(format!("reads saw {got:?}, sequential execution {expected:?}")),
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

    /// Each read sees exactly the version sequential execution shows it,
    /// in every deployment.
    #[test]
    fn every_read_sees_the_sequential_version(ops in proptest::collection::vec((proptest::bool::weighted(0.4), 0..4u64, 0..100u64), 0..40)) {
        check(|| versions(ops.clone()));
        if let Err(e) = reads_match_sequential(versions, &ops, reads_apart()) {
            return Err(proptest::test_runner::TestCaseError::fail(e));
        }
    }
}

/// The same test fails for a state whose "snapshot" is the live state: the
/// property above would catch reads that skip the snapshot.
#[test]
fn reads_of_the_live_state_fail_the_version_test() {
    // A write after every read: each read of the live state sees it, as
    // long as the reads run beside the writes after them (were a write to
    // wait for the read before it, the read would see nothing change).
    let ops: Ops = (0..20).map(|i| (i % 2 == 1, i % 3, i)).collect();
    assert!(reads_match_sequential(versions, &ops, reads_apart()).is_ok());
    let failed = reads_match_sequential(live_versions, &ops, reads_apart());
    assert!(failed.is_err(), "reads of the live state saw the sequential versions");
}

/// A `&self` method that counts its calls through an atomic: on a snapshot
/// the count would be lost to the calls after it.
#[derive(Debug, Default)]
pub struct Counter {
    hits: std::sync::atomic::AtomicU64,
    base: u64,
}

impl Clone for Counter {
    fn clone(&self) -> Self {
        let hits = self.hits.load(std::sync::atomic::Ordering::Relaxed).into();
        Counter { hits, base: self.base }
    }
}

impl Counter {
    pub fn new() -> Self {
        Counter::default()
    }

    pub fn rebase(&mut self, b: u64) {
        self.base = b;
    }

    pub fn look(&self, x: u64) -> u64 {
        self.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.base + x
    }
}

#[ohua::algorithm]
fn counted(xs: Vec<u64>) -> Vec<u64> {
    let mut c = ohua::snapshot(Counter::new());
    let mut out = Vec::new();
    for x in xs {
        c.rebase(x / 2);
        let y = c.look(x);
        out.push(y);
    }
    out
}

/// The check mode names a `&self` method that changed the state it read
/// (here through an atomic, which the compiler cannot see).
#[test]
fn the_check_mode_names_a_read_that_changed_its_state() {
    ohua::check_snapshots(true);
    let expected = ohua::sequential(|| counted(vec![1, 2, 3]));
    assert_eq!(expected, vec![1, 3, 4]);
    let failed = std::panic::catch_unwind(|| ohua::with_deployment(reads_apart(), || counted(vec![1, 2, 3])));
    let message = panic_text(&failed.expect_err("the read changed its state"));
    assert!(message.contains("`Counter::look` takes `&self` but changed the snapshot state"), "{message}");
    // The reads of the other tests leave their states unchanged: the mode
    // stays on for them (it is process-wide).
}

#[ohua::algorithm]
fn routing_service(
    requests: std::sync::mpsc::Receiver<u64>,
    out: std::sync::mpsc::Sender<(u64, Option<u64>, u64)>,
) -> u64 {
    let mut routes = snapshot(Routes::new());
    let mut replies = ohua_conformance::Replies::new(out);
    for x in requests {
        routes.add(x % 4, x);
        let (hop, seen) = routes.lookup(&(x % 3));
        replies.send((x, hop, seen));
    }
    let last = routes.version();
    last
}

/// A service fed one request at a time, each sent only after the previous
/// reply: every reply comes (the loop holds no request back waiting for
/// the next), in order, equal to sequential execution's.
#[test]
fn a_snapshot_service_answers_each_request_before_the_next_arrives() {
    let inputs: Vec<u64> = (0..40).map(|i| (i * 5 + 1) % 9).collect();
    let expected: Vec<(u64, Option<u64>, u64)> = {
        ohua_conformance::sequential_replies(&inputs, |rx, out| {
            routing_service(rx, out);
        })
    };
    let d = Deployment::default().workers(2).sections(SectionStrategy::Auto).replicas(Replication::Elastic);
    let inputs_sent = inputs.clone();
    let (got, latencies) = ohua_conformance::within(60, "the snapshot service", move || {
        let (tx, rx) = std::sync::mpsc::channel();
        let (out, replies) = std::sync::mpsc::channel();
        let server = std::thread::spawn(move || ohua::with_deployment(d, || routing_service(rx, out)));
        let (mut got, mut latencies) = (Vec::new(), Vec::new());
        for x in inputs_sent {
            let sent = std::time::Instant::now();
            tx.send(x).unwrap();
            let reply = replies.recv_timeout(std::time::Duration::from_secs(10)).expect("a reply to each request");
            latencies.push(sent.elapsed());
            got.push(reply);
        }
        drop(tx);
        assert_eq!(server.join().expect("no panic"), got.last().unwrap().2, "the last version");
        (got, latencies)
    });
    assert_eq!(got, expected);
    let mut sorted = latencies.clone();
    sorted.sort();
    println!("reply latency: p50 {:?}, max {:?}", sorted[sorted.len() / 2], sorted[sorted.len() - 1]);
}

/// Counts per name, with a read whose argument type is generic.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    seen: std::collections::HashMap<String, u64>,
}

impl Names {
    pub fn add(&mut self, name: String, n: u64) {
        *self.seen.entry(name).or_insert(0) += n;
    }

    pub fn count_of<Q: AsRef<str>>(&self, name: Q) -> u64 {
        self.seen.get(name.as_ref()).copied().unwrap_or(0)
    }
}

#[ohua::algorithm]
fn generic_reads(xs: Vec<u64>) -> (Vec<(bool, bool, u64)>, usize) {
    let mut index = snapshot(std::collections::HashMap::<String, u64>::new());
    let mut names = snapshot(Names::default());
    let mut out = Vec::new();
    for x in xs {
        let name = format!("n{}", x % 5);
        index.insert(name.clone(), x);
        let known = index.contains_key(&name);
        // `other` is read by reference here and used again below: the
        // step keeps it and hands the read a copy.
        let other = format!("n{}", x % 7);
        let also = index.contains_key(&other);
        names.add(other.clone(), x);
        let n = names.count_of(other);
        out.push((known, also, n));
    }
    let size = index.len();
    (out, size)
}

/// Regression: a `&self` method whose type parameters only its arguments
/// fix (`HashMap::<String, _>::contains_key(&name)`: `String` is
/// `Borrow<String>` and `Borrow<str>`) did not compile ("type annotations
/// needed: cannot infer `Q`"), since the operator that decides whether the
/// call reads named the method without its arguments. The same program as
/// sequential Rust compiled, and now does here, with the reads on snapshots.
/// `other`, read by reference and used again, stays with the state's
/// operator and the read gets a copy (before, that read ran whole).
#[test]
fn a_generic_read_method_of_a_snapshot_state_compiles() {
    let (rows, size) = check(|| generic_reads(inputs()));
    assert!(rows.iter().all(|r| r.0), "a name just inserted is known: {rows:?}");
    assert!(rows.iter().any(|r| r.1) && rows.iter().any(|r| !r.1), "{rows:?}");
    assert!(rows.iter().any(|r| r.2 > 0) && size > 1, "{rows:?}");
    let (_, reports) = ohua::profile(|| generic_reads(inputs()));
    // Per item: two `contains_key`s and `count_of` on snapshots; `len` once.
    let n = inputs().len() as u64;
    assert_eq!(reports[0].snapshots.taken, 3 * n + 1, "{}", reports[0]);
}
