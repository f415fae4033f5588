//! A process's place in a formed cluster, kept for every stage after.
//!
//! Forming a cluster costs about a second (timely's process 0 sleeps a
//! second when nobody has connected yet), so a process forms it once
//! ([`Cluster::form`]) and runs its stages on it. Each local worker thread
//! runs one loop for the cluster's whole life:
//!
//! ```text
//! loop: take commands (build a stage, close) ─▶ heartbeat ─▶ step (park ≤ 200 ms) ─▶ poll every stage ─▶ check liveness
//! ```
//!
//! Every process must start the same stages in the same order (timely
//! builds dataflows by position): the program is the same everywhere, so
//! its calls come in the same order. A heartbeat dataflow, built first,
//! lives as long as the cluster, so silence is noticed between stages too.
//!
//! A failure (`liveness.rs`) breaks the cluster: the running stages end
//! with the error, and so does every later [`Cluster::run_stage`].

use std::cell::RefCell;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::mpsc::{self, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Pipeline;
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Input, Operator};
use timely::dataflow::InputHandle;
use timely::ExchangeData;

use crate::config::ClusterConfig;
use crate::error::ClusterError;
use crate::liveness::{self, Beats, BEAT_EVERY};
use crate::stage::{self, panic_message, Drive, Items, Route, StageReport};

/// What a worker's loop is asked to do.
enum Command {
    /// Build a stage; its result goes to the sender.
    Stage(Build, Done),
}

/// Where a worker sends its part's result.
type Done = mpsc::Sender<Result<StageReport, ClusterError>>;

/// Builds one worker's part of a stage, on that worker's thread.
type Build = Box<dyn FnOnce(&mut timely::worker::Worker) -> Result<Box<dyn Drive>, ClusterError> + Send>;

/// Where a worker sends its process's heartbeats.
type BeatInput = InputHandle<u64, CapacityContainerBuilder<Vec<usize>>>;

/// A formed cluster, as this process sees it. Dropping it closes the
/// cluster (every process must drop its own) and waits, at most twice the
/// heartbeat timeout, for the others to close theirs; after a failure it
/// does not wait.
///
/// # Example
///
/// ```
/// use ohua_cluster::{Cluster, ClusterConfig, Items, Route};
/// use std::sync::{Arc, Mutex};
///
/// let cluster = Cluster::form(&ClusterConfig::single().workers(2).unwrap()).unwrap();
/// for round in 0..3u64 {
///     let out = Arc::new(Mutex::new(Vec::new()));
///     let sink = { let out = out.clone(); move |y: u64| out.lock().unwrap().push(y) };
///     cluster.run_stage(Items::Ready(0..5u64), Route::RoundRobin, move |_| move |x: u64| x + round, sink).unwrap();
///     assert_eq!(*out.lock().unwrap(), (round..round + 5).collect::<Vec<_>>());
/// }
/// ```
pub struct Cluster {
    config: ClusterConfig,
    /// One per local worker, in local index order, with its thread.
    workers: Vec<(mpsc::Sender<Command>, Thread)>,
    failed: Arc<Mutex<Option<ClusterError>>>,
    formed_after: Duration,
    joined: mpsc::Receiver<()>,
}

impl Cluster {
    /// Connects this process to the others `config` lists and starts its
    /// workers.
    ///
    /// # Errors
    ///
    /// [`ClusterError::NotFormed`] if the processes do not all connect
    /// within twice the heartbeat timeout.
    pub fn form(config: &ClusterConfig) -> Result<Cluster, ClusterError> {
        liveness::watch_connections();
        liveness::forget_broken_connections();
        let local = config.workers_per_process();
        let (command_txs, command_rxs): (Vec<_>, Vec<_>) = (0..local).map(|_| mpsc::channel::<Command>()).unzip();
        let command_rxs = Mutex::new(command_rxs.into_iter().map(Some).collect::<Vec<_>>());
        let (formed_tx, formed_rx) = mpsc::channel::<(usize, Thread)>();
        let (joined_tx, joined) = mpsc::channel::<()>();
        let formed_tx = Mutex::new(formed_tx);
        let failed: Arc<Mutex<Option<ClusterError>>> = Arc::default();
        let shape = config.clone();
        let failure = Arc::clone(&failed);
        let timely_config = config.to_timely();
        let hosts = || config.hosts().to_vec();
        // timely connects before it returns (retrying for ever), so it
        // starts on a thread of its own and this one waits with a bound.
        std::thread::Builder::new()
            .name("ohua-cluster".into())
            .spawn(move || {
                let started = timely::execute(timely_config, move |worker| {
                    let local = worker.index() % shape.workers_per_process();
                    let commands = command_rxs.lock().ok().and_then(|mut rxs| rxs[local].take());
                    let _ = formed_tx.lock().map(|tx| tx.send((local, std::thread::current())));
                    if let Some(commands) = commands {
                        if let Err(e) = serve(worker, &shape, &commands) {
                            if let Ok(mut f) = failure.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                });
                // Joined here, not by the caller: after a failure a worker
                // may wait for ever on a process that is gone. Dropping the
                // guards also joins timely's network threads, which shut
                // their connections down cleanly only once the other side
                // has too.
                if let Ok(guards) = started {
                    drop(guards.join());
                }
                let _ = joined_tx.send(());
            })
            .map_err(|e| ClusterError::NotFormed { waited: Duration::ZERO, hosts: hosts(), cause: e.to_string() })?;
        let called = Instant::now();
        let form_within = config.heartbeat_timeout() * 2;
        let mut threads: Vec<Option<Thread>> = vec![None; local];
        for _ in 0..local {
            let left = form_within.saturating_sub(called.elapsed());
            let (i, thread) = formed_rx.recv_timeout(left).map_err(|_| ClusterError::NotFormed {
                waited: form_within,
                hosts: hosts(),
                cause: "not every process answered".into(),
            })?;
            threads[i] = Some(thread);
        }
        let workers = command_txs.into_iter().zip(threads.into_iter().flatten()).collect();
        Ok(Cluster { config: config.clone(), workers, failed, formed_after: called.elapsed(), joined })
    }

    /// The configuration it was formed with.
    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    /// Runs a stage: the caller's `items`, each through the handler that
    /// `handler(worker)` builds on the worker `route` picks, their results
    /// to `sink` in the items' order. Every process calls this for the
    /// same stages in the same order; only the caller's `items` and `sink`
    /// are used. Returns when every result has reached the sink (caller)
    /// or the caller has closed the stage (others).
    ///
    /// # Errors
    ///
    /// [`ClusterError::ProcessFailed`], [`ClusterError::Unreachable`] or
    /// [`ClusterError::WorkerPanicked`], naming the process, if one fails
    /// while the stage runs or failed before.
    pub fn run_stage<I, O, It, F, H, S>(
        &self,
        items: Items<It>,
        route: Route<I>,
        handler: F,
        sink: S,
    ) -> Result<StageReport, ClusterError>
    where
        I: ExchangeData + Clone,
        O: ExchangeData + Clone,
        It: Iterator<Item = I> + Send + 'static,
        F: Fn(usize) -> H + Send + Sync + 'static,
        H: FnMut(I) -> O + 'static,
        S: FnMut(O) + Send + 'static,
    {
        self.start_stage(items, route, handler, sink)?.wait()
    }

    /// The thread of this process's first worker, which reads the caller's
    /// items: whoever pushes [`Items::Pushed`] items unparks it after each.
    pub fn caller_worker(&self) -> Thread {
        self.workers[0].1.clone()
    }

    /// [`Cluster::run_stage`] without waiting: the stage is started on
    /// every local worker (so that stages keep their order across
    /// processes), and [`PendingStage::wait`] waits for it, on any thread.
    ///
    /// # Errors
    ///
    /// As [`Cluster::run_stage`], for a failure known before the start.
    pub fn start_stage<I, O, It, F, H, S>(
        &self,
        items: Items<It>,
        route: Route<I>,
        handler: F,
        sink: S,
    ) -> Result<PendingStage, ClusterError>
    where
        I: ExchangeData + Clone,
        O: ExchangeData + Clone,
        It: Iterator<Item = I> + Send + 'static,
        F: Fn(usize) -> H + Send + Sync + 'static,
        H: FnMut(I) -> O + 'static,
        S: FnMut(O) + Send + 'static,
    {
        self.check_failed()?;
        let route = Arc::new(route);
        let handler = Arc::new(handler);
        let mut caller = self.config.is_caller().then_some((items, sink));
        let process = self.config.index();
        let per_process = self.config.workers_per_process();
        let (done_tx, done_rx) = mpsc::channel();
        for (local, (commands, thread)) in self.workers.iter().enumerate() {
            let (route, handler) = (Arc::clone(&route), Arc::clone(&handler));
            let mine = if local == 0 { caller.take() } else { None };
            let build: Build = Box::new(move |worker: &mut timely::worker::Worker| {
                let handle = (*handler)(worker.index());
                stage::build(worker, process, per_process, route, handle, mine)
            });
            if commands.send(Command::Stage(build, done_tx.clone())).is_err() {
                return Err(self.failure());
            }
            thread.unpark();
        }
        drop(done_tx);
        Ok(PendingStage {
            done: done_rx,
            workers: self.workers.len(),
            report: StageReport { process, formed_after: self.formed_after, ..StageReport::default() },
            failed: Arc::clone(&self.failed),
        })
    }

    fn check_failed(&self) -> Result<(), ClusterError> {
        match self.failed.lock().ok().and_then(|f| f.clone()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Why a worker stopped taking commands.
    fn failure(&self) -> ClusterError {
        self.check_failed().err().unwrap_or_else(|| ClusterError::WorkerPanicked {
            process: self.config.index(),
            message: "a worker of this process stopped".into(),
        })
    }
}

/// A stage started by [`Cluster::start_stage`], not yet waited for.
pub struct PendingStage {
    done: mpsc::Receiver<Result<StageReport, ClusterError>>,
    workers: usize,
    report: StageReport,
    failed: Arc<Mutex<Option<ClusterError>>>,
}

impl PendingStage {
    /// Wait until the stage has ended on every local worker.
    ///
    /// # Errors
    ///
    /// As [`Cluster::run_stage`].
    pub fn wait(mut self) -> Result<StageReport, ClusterError> {
        // Each local worker reports once; the first error ends the wait,
        // and success needs them all.
        for _ in 0..self.workers {
            match self.done.recv() {
                Ok(Ok(r)) => {
                    self.report.items += r.items;
                    self.report.handled += r.handled;
                    self.report.ran_for = self.report.ran_for.max(r.ran_for);
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => {
                    let failed = self.failed.lock().ok().and_then(|f| f.clone());
                    return Err(failed.unwrap_or_else(|| ClusterError::WorkerPanicked {
                        process: self.report.process,
                        message: "a worker of this process stopped".into(),
                    }));
                }
            }
        }
        Ok(self.report)
    }
}

impl Drop for Cluster {
    /// Closes the cluster: the workers leave their loops once their stages
    /// are over, and timely shuts the connections down. A process that left
    /// before its peers had read its last messages would break their
    /// connections ("socket closed"), so this waits for timely's clean
    /// shutdown, which needs every process done, but not for ever.
    fn drop(&mut self) {
        for (commands, thread) in self.workers.drain(..) {
            drop(commands);
            thread.unpark();
        }
        // After a failure the others may never close: do not wait for them.
        if self.check_failed().is_ok() {
            let _ = self.joined.recv_timeout(self.config.heartbeat_timeout() * 2);
        }
    }
}

/// One worker's loop for the cluster's life (module docs). Returns when the
/// cluster closes, or with the failure that broke it.
fn serve(
    worker: &mut timely::worker::Worker,
    config: &ClusterConfig,
    commands: &mpsc::Receiver<Command>,
) -> Result<(), ClusterError> {
    let process = config.index();
    let mut beats: BeatInput = InputHandle::new();
    let heard: Rc<RefCell<Vec<usize>>> = Rc::default();
    worker.dataflow::<u64, _, _>(|scope| {
        let seen = Rc::clone(&heard);
        scope.input_from(&mut beats).container::<Vec<usize>>().broadcast().sink(
            Pipeline,
            "ohua-heartbeats",
            move |(input, _)| input.for_each(|_, data| seen.borrow_mut().append(data)),
        );
    });
    let mut alive = Beats::new(config.processes(), Instant::now());
    let mut last_beat: Option<Instant> = None;
    let mut stages: Vec<(Box<dyn Drive>, Done)> = Vec::new();
    let mut closing = false;
    let result = loop {
        loop {
            match commands.try_recv() {
                Ok(Command::Stage(build, done)) => match build(worker) {
                    Ok(driver) => stages.push((driver, done)),
                    Err(e) => drop(done.send(Err(e))),
                },
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    closing = true;
                    break;
                }
            }
        }
        if closing && stages.is_empty() {
            break Ok(());
        }
        send_beat(&mut beats, &mut last_beat, process);
        if let Err(e) = step(worker, process).and_then(|()| check(config, &heard, &mut alive)) {
            break Err(e);
        }
        let mut i = 0;
        while i < stages.len() {
            match stages[i].0.poll() {
                Some(result) => {
                    let (_, done) = stages.swap_remove(i);
                    let _ = done.send(result);
                }
                None => i += 1,
            }
        }
    };
    let Err(e) = result else { return Ok(()) };
    // A process other than the caller that failed because a third one did
    // reports it only after the caller had its say (`linger`).
    let e = if config.is_caller() { e } else { linger(e, config.heartbeat_timeout() * 2) };
    for (_, done) in stages {
        let _ = done.send(Err(e.clone()));
    }
    Err(e)
}

/// The caller's process watches every process. The others watch only the
/// caller: when a third process fails, the caller names it, and these end
/// when the caller does.
fn check(config: &ClusterConfig, heard: &RefCell<Vec<usize>>, alive: &mut Beats) -> Result<(), ClusterError> {
    let now = Instant::now();
    for p in heard.borrow_mut().drain(..) {
        alive.heard(p, now);
    }
    let watched = |p: usize| config.is_caller() || p == 0;
    if let Some((p, cause)) = liveness::broken_connections().into_iter().find(|(p, _)| watched(*p)) {
        return Err(ClusterError::ProcessFailed { process: p, cause });
    }
    if let Some((p, silent)) = alive.silent(now, config.heartbeat_timeout(), watched) {
        return Err(ClusterError::Unreachable { process: p, silent, timeout: config.heartbeat_timeout() });
    }
    Ok(())
}

/// One step of the worker. A broken connection poisons timely's queues and
/// the step panics; that panic becomes the error that names the process.
fn step(worker: &mut timely::worker::Worker, process: usize) -> Result<(), ClusterError> {
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        worker.step_or_park(Some(BEAT_EVERY));
    }))
    .map_err(|e| match liveness::broken_connections().into_iter().next() {
        Some((p, cause)) => ClusterError::ProcessFailed { process: p, cause },
        None => ClusterError::WorkerPanicked { process, message: panic_message(e) },
    })
}

/// A process other than the caller that failed because a third process
/// did waits, before it ends and closes its connections, until the
/// caller's connection breaks (the caller has ended, naming the process
/// that failed first) or `at_most` has passed: leaving at once would make
/// the caller see this process's connection break too, and perhaps first.
fn linger(e: ClusterError, at_most: Duration) -> ClusterError {
    let until = Instant::now() + at_most;
    while e.process() != Some(0)
        && Instant::now() < until
        && !liveness::broken_connections().iter().any(|(p, _)| *p == 0)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    e
}

/// Sends this process's heartbeat if the last one is [`BEAT_EVERY`] old.
fn send_beat(beats: &mut BeatInput, last: &mut Option<Instant>, process: usize) {
    if last.is_none_or(|t| t.elapsed() >= BEAT_EVERY) {
        beats.send(process);
        let next = *beats.time() + 1;
        beats.advance_to(next);
        *last = Some(Instant::now());
    }
}

/// [`Cluster::run_stage`] on a cluster formed for this one stage and closed
/// after it: a second to form, so for one stage per process.
///
/// # Errors
///
/// As [`Cluster::form`] and [`Cluster::run_stage`]. The caller returns such
/// an error without waiting for the other processes.
///
/// # Example
///
/// ```
/// use ohua_cluster::{run_stage, ClusterConfig, Items, Route};
/// use std::sync::{Arc, Mutex};
///
/// let out = Arc::new(Mutex::new(Vec::new()));
/// let sink = { let out = out.clone(); move |y: u64| out.lock().unwrap().push(y) };
/// let config = ClusterConfig::single().workers(2).unwrap();
/// let report = run_stage(&config, Items::Ready(0..10u64), Route::RoundRobin, |_worker| |x: u64| x * x, sink).unwrap();
/// assert_eq!(report.items, 10);
/// assert_eq!(*out.lock().unwrap(), (0..10u64).map(|x| x * x).collect::<Vec<_>>());
/// ```
pub fn run_stage<I, O, It, F, H, S>(
    config: &ClusterConfig,
    items: Items<It>,
    route: Route<I>,
    handler: F,
    sink: S,
) -> Result<StageReport, ClusterError>
where
    I: ExchangeData + Clone,
    O: ExchangeData + Clone,
    It: Iterator<Item = I> + Send + 'static,
    F: Fn(usize) -> H + Send + Sync + 'static,
    H: FnMut(I) -> O + 'static,
    S: FnMut(O) + Send + 'static,
{
    let cluster = Cluster::form(config)?;
    match cluster.run_stage(items, route, handler, sink) {
        Ok(report) => Ok(report),
        Err(e) => {
            // Return at once: dropping the cluster would wait for the
            // others, who may be gone.
            std::mem::forget(cluster);
            Err(e)
        }
    }
}
