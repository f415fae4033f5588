//! Conformance suite: every language construct, and generated programs,
//! checked against plain sequential execution of the same body.
//!
//! [`check`] runs an algorithm call sequentially (`ohua::sequential`) and then
//! under every deployment of [`deployments`], and asserts identical results.
//! State objects used by the tests record every method call in a [`Log`], and
//! the algorithms return those logs, so "every state object receives the same
//! calls in the same order" is checked too.

use std::fmt::Debug;

use ohua::{Deployment, Replication, SectionStrategy};

pub mod gen;
mod io;
mod streaming;

pub use io::{check_io, DbCall, GenDb};
pub use streaming::check_streaming;

/// The replies a service sends under sequential execution, every request
/// queued before it starts: what a run under a deployment must answer.
pub fn sequential_replies<Q: Clone, R>(
    requests: &[Q],
    service: impl FnOnce(std::sync::mpsc::Receiver<Q>, std::sync::mpsc::Sender<R>),
) -> Vec<R> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (out, replies) = std::sync::mpsc::channel();
    requests.iter().for_each(|q| tx.send(q.clone()).expect("the receiver is here"));
    drop(tx);
    ohua::sequential(|| service(rx, out));
    replies.iter().collect()
}

/// Run `f` on a thread and fail with "`what` hung" (instead of hanging CI)
/// if it takes longer than `secs` seconds.
///
/// # Panics
///
/// If `f` does not return in time, or panics.
pub fn within<R: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(r) => r,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("{what} hung (more than {secs} s)"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("{what} panicked"),
    }
}

/// The deployments of live-update tests: [`deployments`] plus random
/// sectionings with arcs of 4, so a cut crosses sections with packets
/// queued on both sides of it.
pub fn live_deployments() -> Vec<(String, Deployment)> {
    with_random_sections(30..34, 3, 4)
}

/// [`deployments`] plus, per seed in `seeds`, 2 workers on `2 + seed %
/// spread` random sections with batches and arcs of `queue`.
pub fn with_random_sections(seeds: std::ops::Range<u64>, spread: u64, queue: usize) -> Vec<(String, Deployment)> {
    let mut ds = deployments();
    for seed in seeds {
        let d = Deployment::default()
            .workers(2)
            .sections(SectionStrategy::Random { sections: 2 + (seed % spread) as usize, seed })
            .batch_size(queue)
            .arc_capacity(queue);
        ds.push((format!("random sections seed {seed}, arcs of {queue}"), d));
    }
    ds
}

/// The deployments every conformance test runs under.
pub fn deployments() -> Vec<(String, Deployment)> {
    let base = Deployment::default();
    let mut ds = vec![
        ("1 worker, 1 section".to_string(), base.clone().workers(1).sections(SectionStrategy::Single)),
        (
            "2 workers, one section per operator, tiny arcs".to_string(),
            Deployment::default()
                .workers(2)
                .sections(SectionStrategy::PerOperator)
                .batch_size(2)
                .arc_capacity(2)
                .replicas(Replication::Off)
                .io(ohua::IoMode::Serial),
        ),
        ("2 workers, auto".to_string(), base.clone().workers(2).sections(SectionStrategy::Auto)),
        // Replicas that follow the load, and a pipeline cut finer than the
        // threads that regroups by load while a service streams.
        (
            "2 workers, auto, elastic replicas".to_string(),
            base.clone().workers(2).sections(SectionStrategy::Auto).replicas(Replication::Elastic),
        ),
    ];
    for seed in 0..3 {
        ds.push((
            format!("2 workers, random sections seed {seed}"),
            Deployment::default()
                .workers(2)
                .sections(SectionStrategy::Random { sections: 3, seed })
                .batch_size(1 + seed as usize)
                .arc_capacity(1 + seed as usize)
                .replicas(Replication::Off)
                .io(if seed == 1 { ohua::IoMode::Serial } else { ohua::IoMode::Concurrent }),
        ));
    }
    // Replicas: every call without state in a loop on 1-4 replicas, placed
    // in random sections (some share the dealing section, some do not).
    for seed in 0..2 {
        ds.push((
            format!("2 workers, random sections and random replicas seed {seed}"),
            Deployment::default()
                .workers(2)
                .sections(SectionStrategy::Random { sections: 2, seed: 7 + seed })
                .batch_size(1 + 3 * seed as usize)
                .arc_capacity(1 + 2 * seed as usize)
                .replicas(Replication::Random { max: 4, seed })
                .io(ohua::IoMode::Concurrent),
        ));
    }
    ds.push((
        "1 section, random replicas seed 9".to_string(),
        base.clone().workers(1).sections(SectionStrategy::Single).replicas(Replication::Random { max: 4, seed: 9 }),
    ));
    ds
}

/// Assert that `run` returns the same value in every deployment as it does
/// sequentially.
///
/// # Panics
///
/// With the deployment's name if any result differs.
pub fn check<R: PartialEq + Debug>(run: impl Fn() -> R) -> R {
    let expected = ohua::sequential(&run);
    for (name, d) in deployments() {
        let got = ohua::with_deployment(d, &run);
        assert_eq!(got, expected, "deployment `{name}` differs from sequential execution");
    }
    let got = with_markers(&run);
    assert_eq!(got, expected, "a run crossed by control markers differs from sequential execution");
    expected
}

/// Run `run` under the conformance deployments that replicate calls
/// (random sections and replicas), each with serialized lanes
/// (`lanes = "serialized"`: a `#[ohua::algorithm(cluster)]` algorithm's
/// replicable calls send their values through bytes), and return the
/// result, asserting every deployment gave the same.
///
/// # Panics
///
/// With the deployment's name if two results differ.
pub fn check_serialized<R: PartialEq + Debug>(run: impl Fn() -> R) -> R {
    let mut first: Option<(String, R)> = None;
    for (name, d) in deployments().into_iter().filter(|(name, _)| name.contains("replicas")) {
        let got = ohua::with_deployment(d.lanes(ohua::deploy::Lanes::Serialized), &run);
        match &first {
            Some((first_name, want)) => {
                assert_eq!(&got, want, "serialized lanes: deployment `{name}` differs from `{first_name}`")
            }
            None => first = Some((name, got)),
        }
    }
    first.expect("deployments with replicas").1
}

/// The deployments generated `cluster` programs run under on a real
/// cluster (`ohua_generated::check_on_cluster`): those of [`deployments`]
/// that replicate calls, and one replicating every call twice on auto
/// sections (the cluster's lane is a replicated call's replica 1).
pub fn cluster_deployments() -> Vec<(String, Deployment)> {
    let mut ds: Vec<(String, Deployment)> =
        deployments().into_iter().filter(|(name, _)| name.contains("random replicas")).collect();
    ds.push((
        "2 workers, auto, every call on 2 replicas".to_string(),
        Deployment::default()
            .workers(2)
            .sections(SectionStrategy::Auto)
            .replicas(".*=2".parse().expect("a replication")),
    ));
    ds
}

/// Whether this process runs the algorithms of a cluster run (process 0,
/// or a process that joined no cluster): the others serve statements and
/// get the caller's result, and their own sources stay untouched.
///
/// # Example
///
/// ```
/// if std::env::var_os("OHUA_CLUSTER_INDEX").is_none() {
///     assert!(ohua_conformance::runs_the_algorithms());
/// }
/// ```
pub fn runs_the_algorithms() -> bool {
    std::env::var("OHUA_CLUSTER_INDEX").map_or(true, |i| i.trim() == "0")
}

/// Run `run` under `deployment` with `lanes = "cluster"`: in a process
/// that joined a cluster, a `#[ohua::algorithm(cluster)]` algorithm's
/// replicated distributable calls get a lane to the other processes. Gives
/// the result and the items those lanes sent out (each sent item comes
/// back as one result; 0 where every item stayed in the caller).
///
/// # Example
///
/// ```
/// // In a process that joined no cluster, `lanes = "cluster"` runs as
/// // `serialized`, in this process.
/// let (sum, _) = ohua_conformance::on_cluster(&ohua::Deployment::default(), || 1 + 2);
/// assert_eq!(sum, 3);
/// ```
pub fn on_cluster<R>(deployment: &Deployment, run: impl FnOnce() -> R) -> (R, u64) {
    let d = deployment.clone().lanes(ohua::deploy::Lanes::Cluster);
    let (got, reports) = ohua::profile(|| ohua::with_deployment(d, run));
    let sent = reports.iter().flat_map(|r| &r.nodes).filter_map(|n| n.encoded).map(|e| e.items / 2).sum();
    (got, sent)
}

/// Run `run` as a service (live updates) whose loops are crossed by a
/// stream of no-op control markers, under random sections and replicas:
/// markers pass through every kind of operator, change nothing, and every
/// marker a loop inserted has reached every operator by the end of the run.
///
/// # Panics
///
/// If an inserted marker did not complete.
pub fn with_markers<R>(run: impl Fn() -> R) -> R {
    let mut out = None;
    marked(&mut || out = Some(run()));
    out.expect("the run returned")
}

/// The part of [`with_markers`] that does not depend on the program:
/// compiled once, not once per generated program (the generated test crate
/// compiles 500 of them in one rustc process).
fn marked(run: &mut dyn FnMut()) {
    use ohua::__private::{with_control, Action, Control};
    use std::sync::atomic::{AtomicBool, Ordering};
    let d = deployments()
        .into_iter()
        .find(|(name, _)| name.ends_with("random sections and random replicas seed 1"))
        .expect("the suite has a deployment with random sections and replicas")
        .1;
    let control = Control::new();
    let done = std::sync::Arc::new(AtomicBool::new(false));
    // Markers before the run (inserted before the first iteration) and
    // while it runs (between iterations), at most a few hundred.
    let first = control.request(Action::NoOp);
    let spam = {
        let (control, done) = (control.clone(), done.clone());
        std::thread::spawn(move || {
            let mut markers = vec![first];
            while !done.load(Ordering::Acquire) && markers.len() < 400 {
                markers.push(control.request(Action::NoOp));
                std::thread::sleep(std::time::Duration::from_micros(20));
            }
            markers
        })
    };
    ohua::with_deployment(d, || with_control(control.clone(), run));
    done.store(true, Ordering::Release);
    let markers = spam.join().expect("the marker thread");
    for m in markers.iter().filter(|m| m.was_inserted()) {
        let outcome = m.wait_timeout(std::time::Duration::from_secs(10));
        assert!(matches!(outcome, Some(Ok(_))), "marker {} was inserted but did not complete: {outcome:?}", m.id());
    }
}

/// A state object that records every call it receives.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Log {
    /// Calls in order, e.g. `"push(3)"`.
    pub calls: Vec<String>,
    /// A running value the methods update.
    pub acc: i64,
}

// SAFETY: `Log` has no lifetime parameters. It is a state checkpoints
// save and restore (`check_checkpoint`).
unsafe impl ohua::update::State for Log {}

impl Log {
    /// A fresh log.
    pub fn new() -> Self {
        Log::default()
    }

    /// Record `push(x)` and add `x`; returns the new running value.
    pub fn push(&mut self, x: i64) -> i64 {
        self.calls.push(format!("push({x})"));
        self.acc = self.acc.wrapping_add(x);
        self.acc
    }

    /// Record `mark(tag)`.
    pub fn mark(&mut self, tag: &str) {
        self.calls.push(format!("mark({tag})"));
    }

    /// Read the running value (recorded too).
    pub fn peek(&mut self) -> i64 {
        self.calls.push("peek".into());
        self.acc
    }

    /// The recorded calls.
    pub fn finish(self) -> (Vec<String>, i64) {
        (self.calls, self.acc)
    }
}

/// The state of generated `cluster` programs: a [`Log`] that is not serde
/// (a state often holds a channel, a file or a socket), so a program that
/// sent it to another process would not compile. A state used by several
/// statements of a loop is carried from one to the next as data, and
/// was once taken for a value to send (`regression_a_state_carried_through_a_cluster_loop_stays_local`).
#[derive(Debug, Default)]
pub struct LocalLog(Log);

impl LocalLog {
    /// A fresh log.
    pub fn new() -> Self {
        LocalLog::default()
    }

    /// The recorded calls ([`Log::finish`]).
    pub fn finish(self) -> (Vec<String>, i64) {
        self.0.finish()
    }
}

impl std::ops::Deref for LocalLog {
    type Target = Log;
    fn deref(&self) -> &Log {
        &self.0
    }
}

impl std::ops::DerefMut for LocalLog {
    fn deref_mut(&mut self) -> &mut Log {
        &mut self.0
    }
}

/// The snapshot state of generated programs (issue 24): `write` is a
/// `&mut self` call, `read` a `&self` one whose result depends on every
/// earlier write, so a read on the wrong version gives another value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapLog {
    /// The values written, in order.
    pub items: Vec<i64>,
    /// Writes so far.
    pub version: i64,
}

impl SnapLog {
    pub fn new() -> Self {
        SnapLog::default()
    }

    /// Record `x`; the version it made.
    pub fn write(&mut self, x: i64) -> i64 {
        self.items.push(x);
        self.version += 1;
        self.version
    }

    /// A value of `x`, the version and the last value written.
    pub fn read(&self, x: i64) -> i64 {
        let last = self.items.last().copied().unwrap_or(0);
        x.wrapping_mul(31).wrapping_add(self.version.wrapping_mul(1_000_003)).wrapping_add(last)
    }

    /// The value written `i` writes ago (`i` taken modulo the writes), by
    /// reference: a read whose result borrows the state.
    pub fn get(&self, i: i64) -> Option<&i64> {
        let n = self.items.len() as i64;
        (n > 0).then(|| &self.items[(n - 1 - i.rem_euclid(n)) as usize])
    }

    /// A generic read (its type parameter fixed only by the argument, as
    /// `HashMap::contains_key`'s): how many values written are at most `q`,
    /// with the version.
    pub fn near<Q: Copy + Into<i64>>(&self, q: &Q) -> i64 {
        let q: i64 = (*q).into();
        let below = self.items.iter().filter(|&&x| x <= q).count() as i64;
        below.wrapping_mul(7).wrapping_add(self.version)
    }

    /// Everything written, and the version.
    pub fn summary(&self) -> (Vec<i64>, i64) {
        (self.items.clone(), self.version)
    }
}

/// A keyed state (`ohua::Keyed`) that records, per key, every call it
/// receives: split by key, its calls may run on replicas, and the merged
/// state must equal the sequential one call for call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyedLog {
    /// Per key: the calls in order and a running, order-sensitive value.
    pub per_key: std::collections::BTreeMap<i64, (Vec<String>, i64)>,
}

impl ohua::Keyed for KeyedLog {
    type Key = i64;
    fn split(self, parts: usize, part_of: &dyn Fn(&i64) -> usize) -> Vec<Self> {
        let mut out = vec![KeyedLog::default(); parts];
        for (k, e) in self.per_key {
            out[part_of(&k)].per_key.insert(k, e);
        }
        out
    }
    fn merge(parts: Vec<Self>) -> Self {
        let mut all = KeyedLog::default();
        for p in parts {
            for (k, e) in p.per_key {
                assert!(all.per_key.insert(k, e).is_none(), "key {k} lived in two parts of a keyed state");
            }
        }
        all
    }
}

impl ohua::KeyOf<KeyedLog> for i64 {
    fn key(&self) -> i64 {
        *self
    }
}

impl KeyedLog {
    /// An empty keyed log.
    pub fn new() -> Self {
        KeyedLog::default()
    }

    /// Record `record(v)` for key `k`; returns the key's new running value.
    pub fn record(&mut self, k: &i64, v: i64) -> i64 {
        let (calls, acc) = self.per_key.entry(*k).or_default();
        calls.push(format!("record({v})"));
        *acc = acc.wrapping_mul(31).wrapping_add(v);
        *acc
    }

    /// Every key's calls and value.
    pub fn finish(self) -> Vec<(i64, Vec<String>, i64)> {
        self.per_key.into_iter().map(|(k, (c, a))| (k, c, a)).collect()
    }
}

/// The reply channel of a generated service (`check_checkpoint`): a state
/// used by one statement of the loop.
pub struct Replies<T>(std::sync::mpsc::Sender<T>);

impl<T> Replies<T> {
    /// Replies go to `out`.
    pub fn new(out: std::sync::mpsc::Sender<T>) -> Self {
        Replies(out)
    }

    /// Send one reply (a closed channel drops it).
    pub fn send(&mut self, r: T) {
        let _ = self.0.send(r);
    }
}

/// A request of a generated service: `(xs, k)`.
pub type GenRequest = (Vec<i64>, i64);

/// A generated service over a channel of requests, sending one reply per
/// request.
pub type GenService<R> = fn(std::sync::mpsc::Receiver<GenRequest>, std::sync::mpsc::Sender<R>) -> u8;

/// Checkpoint + restore + replay of a generated service against its plain
/// twin `seq`, under every live deployment: the service fed `requests` and
/// checkpointed (its `Log` states) while they stream in answers as `seq`
/// does; a service restored from the checkpoint (stored as JSON and read
/// back) and fed the requests after the cut answers them as `seq` did.
///
/// # Errors
///
/// The first difference, or a checkpoint or restore that failed.
pub fn check_checkpoint<R: PartialEq + Debug + Send + 'static>(
    svc: GenService<R>,
    seq: fn(Vec<GenRequest>) -> Vec<R>,
    requests: &[GenRequest],
) -> Result<(), String> {
    use std::sync::mpsc::channel;
    let expected = seq(requests.to_vec());
    let kinds = ohua::update::StateKinds::new().with::<Log>();
    for (round, (name, d)) in live_deployments().into_iter().enumerate() {
        let (tx, rx) = channel();
        let (out_tx, out) = channel();
        let d2 = d.clone();
        let service = ohua::service(move || ohua::with_deployment(d, || svc(rx, out_tx)));
        // The checkpoint is asked for after the first reply, while the first
        // half of the requests streams in (in odd rounds with a pause before
        // the fourth, so the cut tends to fall while the service waits); the
        // second half follows, so the cut has an item to go before.
        let half = requests.len() / 2;
        let (head, tail) = (requests[..half].to_vec(), requests[half..].to_vec());
        let pause = round % 2 == 1;
        let feed = std::thread::spawn(move || {
            for (i, r) in head.into_iter().enumerate() {
                if pause && i == 3 {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                tx.send(r).expect("the service takes requests");
            }
            tx
        });
        let first = out.recv().map_err(|_| format!("{name}: no reply"))?;
        let pending = service.request_checkpoint(&kinds);
        let tx = feed.join().expect("the feeding thread");
        for r in tail {
            tx.send(r).expect("the service takes requests");
        }
        drop(tx);
        let checkpoint = pending.wait().map_err(|e| format!("{name}: checkpoint: {e}"))?;
        within(60, "the service", move || service.join());
        let answers: Vec<R> = std::iter::once(first).chain(out.try_iter()).collect();
        if answers != expected {
            return Err(format!("{name}: checkpointed service {answers:?} != plain {expected:?}"));
        }
        let json = serde_json::to_string(&checkpoint).map_err(|e| e.to_string())?;
        let checkpoint: ohua::update::Checkpoint = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        let cut = checkpoint.items_before() as usize;
        let (tx, rx) = channel();
        let (out_tx, out) = channel();
        let restored = ohua::restore(checkpoint, &kinds, move || ohua::with_deployment(d2, || svc(rx, out_tx)))
            .map_err(|e| format!("{name}: restore: {e}"))?;
        for r in &requests[cut..] {
            tx.send(r.clone()).expect("the restored service takes requests");
        }
        drop(tx);
        within(60, "the restored service", move || restored.join());
        let replayed: Vec<R> = out.try_iter().collect();
        if replayed[..] != expected[cut..] {
            return Err(format!("{name}: restored at request {cut}: {replayed:?} != plain {:?}", &expected[cut..]));
        }
    }
    Ok(())
}
