//! A stage spread over the cluster, its results back in sequential order.
//!
//! The caller (process 0, worker 0) numbers the items it reads and sends
//! them into a timely dataflow that every worker of every process builds
//! alike:
//!
//! ```text
//! caller's items ─(seq, item)─▶ exchange by route ─▶ handler ─(seq, worker, result)─▶ exchange to worker 0 ─▶ reorder ─▶ sink
//! every worker's heartbeat ─▶ broadcast ─▶ every worker's liveness table
//! ```
//!
//! [`Route::RoundRobin`] deals item `seq` to worker `seq % peers`, for a
//! stateless handler; [`Route::ByKey`] sends every item of a key to one
//! worker, so a keyed state's handler there sees that key's items in the
//! caller's order (timely's channels between two workers are FIFO, and only
//! the caller sends). Results leave in sequence order as soon as those
//! before them have (`reorder.rs`), not at the end of an epoch.
//!
//! The caller reads its items on a thread of their own, so items that
//! trickle in (a socket, a channel) do not hold back results of earlier
//! items: the worker steps the dataflow while the reader waits, and the
//! reader wakes it (`unpark`) for each item. What the reader finds ready is
//! sent as one epoch.
//!
//! Failure ends the run within a bounded time with the process named
//! (`liveness.rs`): a broken connection at once, a silent process after the
//! heartbeat timeout, a handler's panic when its result would have arrived.
//! timely has no fault tolerance: nothing is retried.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::mpsc::{self, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::vec::Broadcast;
use timely::dataflow::operators::{Capability, Exchange as _, Input, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::ExchangeData;

use crate::config::ClusterConfig;
use crate::error::ClusterError;
use crate::liveness::{self, Beats, BEAT_EVERY};
use crate::reorder::Reorder;

/// Items the caller sends as one epoch at most.
const EPOCH_ITEMS: usize = 1024;

/// How long a worker runs handler calls before it steps its other
/// operators (heartbeats, results) again: a tenth of a heartbeat period.
const SLICE: Duration = Duration::from_millis(20);

/// Items in flight at most: sent by the caller, their results not yet
/// released. Bounds the memory the stage holds whatever the source's size.
const IN_FLIGHT: u64 = 16 * EPOCH_ITEMS as u64;

/// Where the caller's items come from.
pub enum Items<It> {
    /// All there (a `Vec`, a range, a file read ahead): the caller's
    /// worker pulls them itself, an epoch at a time.
    Ready(It),
    /// Items that may take a while to come (a socket, a channel): read on
    /// a thread of their own, so that results of earlier items leave
    /// while the next is awaited. Each item costs a wake-up of the worker.
    Waiting(It),
}

/// How a stage's items are dealt to the cluster's workers.
pub enum Route<I> {
    /// Item `seq` to worker `seq % peers`: a stateless handler.
    RoundRobin,
    /// Every item with the same key to the same worker (`key % peers`):
    /// a keyed state's handler, each key's items in the caller's order.
    ByKey(Arc<dyn Fn(&I) -> u64 + Send + Sync>),
}

impl<I> Route<I> {
    /// [`Route::ByKey`] from a key function.
    ///
    /// # Example
    ///
    /// ```
    /// let r = ohua_cluster::Route::by_key(|x: &u64| x % 7);
    /// # let _ = r;
    /// ```
    pub fn by_key(key: impl Fn(&I) -> u64 + Send + Sync + 'static) -> Self {
        Route::ByKey(Arc::new(key))
    }
}

/// What one process did in a stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageReport {
    /// This process's index.
    pub process: usize,
    /// Items the caller sent and got results for, in order (0 elsewhere).
    pub items: u64,
    /// Items this process's workers handled.
    pub handled: u64,
    /// From the call until every process had connected.
    pub formed_after: Duration,
    /// From then until the stage ended here.
    pub ran_for: Duration,
}

/// Items a worker holds for its handler, with the capability to send
/// their results at their epoch.
type Batch<I> = (Capability<u64>, VecDeque<(u64, I)>);

/// Where a worker sends its process's heartbeats.
type BeatInput = InputHandle<u64, CapacityContainerBuilder<Vec<usize>>>;

/// A result on its way back: its sequence number, the worker that made
/// it, and the handler's result or its panic message.
type Answer<O> = (u64, usize, Result<O, String>);

/// Runs a stage on the cluster `config` describes: the caller's `items`
/// ([`Items::Ready`] or [`Items::Waiting`]),
/// each through the handler that `handler(worker)` builds on the worker
/// `route` picks, their results to `sink` in the items' order.
///
/// Every process calls this with the same handler and route; only the
/// caller's `items` and `sink` are used (other processes may pass no
/// items). It returns when every result has reached the sink
/// (caller) or the caller has closed the stage (others).
///
/// # Errors
///
/// [`ClusterError::NotFormed`] if the processes do not all connect within
/// twice the heartbeat timeout; [`ClusterError::ProcessFailed`],
/// [`ClusterError::Unreachable`] or [`ClusterError::WorkerPanicked`],
/// naming the process, if one fails while the stage runs. The caller
/// returns such an error without waiting for the other processes.
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
    liveness::watch_connections();
    liveness::forget_broken_connections();
    let caller_part = Mutex::new(Some((items, sink)));
    let route = Arc::new(route);
    let (done_tx, done_rx) = mpsc::channel::<Result<StageReport, ClusterError>>();
    let (formed_tx, formed_rx) = mpsc::channel::<()>();
    let (joined_tx, joined_rx) = mpsc::channel::<()>();
    let done_tx = Mutex::new(done_tx);
    let formed_tx = Mutex::new(formed_tx);
    let shape = config.clone();
    let timely_config = config.to_timely();
    // timely connects before it returns (retrying for ever), so it starts
    // on a thread of its own and this one waits with a bound.
    let runner = std::thread::Builder::new().name("ohua-cluster".into()).spawn(move || {
        let started = timely::execute(timely_config, move |worker| {
            let _ = formed_tx.lock().map(|tx| tx.send(()));
            let mine = if worker.index() == 0 { caller_part.lock().ok().and_then(|mut p| p.take()) } else { None };
            let result = serve(worker, &shape, &route, &handler, mine);
            let _ = done_tx.lock().map(|tx| tx.send(result));
        });
        // Joined here, not by the caller: after a failure a worker may wait
        // for ever on a process that is gone. Dropping the guards also
        // joins timely's network threads, which shut their connections
        // down cleanly only once the other side has too.
        if let Ok(guards) = started {
            drop(guards.join());
        }
        let _ = joined_tx.send(());
    });
    if let Err(e) = runner {
        return Err(ClusterError::NotFormed {
            waited: Duration::ZERO,
            hosts: config.hosts().to_vec(),
            cause: e.to_string(),
        });
    }
    let form_within = config.heartbeat_timeout() * 2;
    let called = Instant::now();
    if formed_rx.recv_timeout(form_within).is_err() {
        return Err(ClusterError::NotFormed {
            waited: form_within,
            hosts: config.hosts().to_vec(),
            cause: "not every process answered".into(),
        });
    }
    // Each local worker reports once; the first error ends the wait, and
    // success needs them all. A worker that panicked reports nothing: its
    // peers then see the broken dataflow and report it.
    let formed = Instant::now();
    let mut report = StageReport { process: config.index(), formed_after: formed - called, ..StageReport::default() };
    for _ in 0..config.workers_per_process() {
        match done_rx.recv() {
            Ok(Ok(r)) => {
                report.items += r.items;
                report.handled += r.handled;
                report.ran_for = formed.elapsed();
            }
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(ClusterError::WorkerPanicked {
                    process: config.index(),
                    message: "a worker of this process stopped without a result".into(),
                })
            }
        }
    }
    // A process that left before its peers had read its last messages
    // would break their connections ("socket closed"): wait for timely's
    // clean shutdown, which needs every process done, but not for ever.
    let _ = joined_rx.recv_timeout(config.heartbeat_timeout() * 2);
    Ok(report)
}

/// One worker's part of the stage. `caller` holds the items and the sink
/// on the caller's worker 0.
fn serve<I, O, It, F, H, S>(
    worker: &mut timely::worker::Worker,
    config: &ClusterConfig,
    route: &Arc<Route<I>>,
    handler: &F,
    caller: Option<(Items<It>, S)>,
) -> Result<StageReport, ClusterError>
where
    I: ExchangeData + Clone,
    O: ExchangeData + Clone,
    It: Iterator<Item = I> + Send + 'static,
    F: Fn(usize) -> H,
    H: FnMut(I) -> O + 'static,
    S: FnMut(O),
{
    let me = worker.index();
    let peers = worker.peers() as u64;
    let process = config.index();
    let mut input: InputHandle<u64, CapacityContainerBuilder<Vec<(u64, I)>>> = InputHandle::new();
    let mut beats: BeatInput = InputHandle::new();
    let probe = ProbeHandle::new();
    let answers: Rc<RefCell<Vec<Answer<O>>>> = Rc::default();
    let heard: Rc<RefCell<Vec<usize>>> = Rc::default();
    let handled = Rc::new(Cell::new(0u64));
    worker.dataflow::<u64, _, _>(|scope| {
        let route = Arc::clone(route);
        let mut handle = handler(me);
        let count = Rc::clone(&handled);
        let out = Rc::clone(&answers);
        scope
            .input_from(&mut input)
            .container::<Vec<(u64, I)>>()
            .exchange(move |(seq, item): &(u64, I)| match &*route {
                Route::RoundRobin => *seq % peers,
                Route::ByKey(key) => key(item),
            })
            .unary::<CapacityContainerBuilder<Vec<Answer<O>>>, _, _, _>(Pipeline, "ohua-handler", |_, info| {
                // timely runs an operator's whole input at once; a slice
                // at a time keeps the worker's heartbeats and results going
                // while a long batch is handled.
                let activator = scope.activator_for(info.address);
                let mut queue: VecDeque<Batch<I>> = VecDeque::new();
                move |input, output| {
                    input.for_each(|cap, data| queue.push_back((cap.retain(0), data.drain(..).collect())));
                    let start = Instant::now();
                    while let Some((cap, items)) = queue.front_mut() {
                        let mut session = output.session(cap);
                        while start.elapsed() < SLICE {
                            let Some((seq, item)) = items.pop_front() else { break };
                            count.set(count.get() + 1);
                            let result =
                                std::panic::catch_unwind(AssertUnwindSafe(|| handle(item))).map_err(panic_message);
                            session.give((seq, me, result));
                        }
                        drop(session);
                        if !items.is_empty() {
                            break;
                        }
                        queue.pop_front();
                    }
                    if !queue.is_empty() {
                        activator.activate();
                    }
                }
            })
            .probe_with(&probe)
            .sink(Exchange::new(|_: &Answer<O>| 0), "ohua-results", move |(input, _)| {
                input.for_each(|_, data| out.borrow_mut().append(data));
            });
        let seen = Rc::clone(&heard);
        scope.input_from(&mut beats).container::<Vec<usize>>().broadcast().sink(
            Pipeline,
            "ohua-heartbeats",
            move |(input, _)| {
                input.for_each(|_, data| seen.borrow_mut().append(data));
            },
        );
    });

    let mut alive = Beats::new(config.processes(), Instant::now());
    let mut last_beat: Option<Instant> = None;
    // The caller's process watches every process. The others watch only
    // the caller: when a third process fails, the caller names it, and
    // these end when the caller does (`linger`).
    let caller_process = config.is_caller();
    let check = |alive: &mut Beats| -> Result<(), ClusterError> {
        let now = Instant::now();
        for p in heard.borrow_mut().drain(..) {
            alive.heard(p, now);
        }
        let watched = |p: usize| caller_process || p == 0;
        if let Some((p, cause)) = liveness::broken_connections().into_iter().find(|(p, _)| watched(*p)) {
            return Err(ClusterError::ProcessFailed { process: p, cause });
        }
        if let Some((p, silent)) = alive.silent(now, config.heartbeat_timeout(), watched) {
            return Err(ClusterError::Unreachable { process: p, silent, timeout: config.heartbeat_timeout() });
        }
        Ok(())
    };
    // A broken connection poisons timely's queues, and the next step
    // panics; that panic is turned into the error that names the process.
    let step = |worker: &mut timely::worker::Worker| -> Result<(), ClusterError> {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            worker.step_or_park(Some(BEAT_EVERY));
        }))
        .map_err(|e| match liveness::broken_connections().into_iter().next() {
            Some((p, cause)) => ClusterError::ProcessFailed { process: p, cause },
            None => ClusterError::WorkerPanicked { process, message: panic_message(e) },
        })
    };

    let Some((items, mut sink)) = caller else {
        // Not the caller: this worker sends no items.
        drop(input);
        while !probe.done() {
            send_beat(&mut beats, &mut last_beat, process);
            if let Err(e) = step(worker).and_then(|()| check(&mut alive)) {
                return Err(if caller_process { e } else { linger(e, config.heartbeat_timeout() * 2) });
            }
        }
        return Ok(StageReport { process, items: 0, handled: handled.get(), ..StageReport::default() });
    };

    let mut feed = Feed::start(items, process)?;
    let mut input = Some(input);
    let mut sent = 0u64;
    let mut order = Reorder::default();
    loop {
        if let Some(open) = input.as_mut() {
            let mut this_epoch = 0;
            let mut closed = false;
            let room = IN_FLIGHT.saturating_sub(sent - order.released()).min(EPOCH_ITEMS as u64);
            while this_epoch < room {
                match feed.next() {
                    Next::Item(item) => {
                        open.send((sent, item));
                        sent += 1;
                        this_epoch += 1;
                    }
                    Next::Pending => break,
                    Next::Done => {
                        closed = true;
                        break;
                    }
                }
            }
            if this_epoch > 0 {
                let next = *open.time() + 1;
                open.advance_to(next);
            }
            if closed {
                input = None;
            }
        }
        send_beat(&mut beats, &mut last_beat, process);
        step(worker)?;
        for (seq, from, result) in answers.borrow_mut().drain(..) {
            match result {
                Ok(o) => order.arrive(seq, o, &mut sink),
                Err(message) => {
                    return Err(ClusterError::WorkerPanicked { process: config.process_of_worker(from), message })
                }
            }
        }
        if input.is_none() && order.released() == sent {
            break;
        }
        check(&mut alive)?;
    }
    // Let the others see the stage close before this worker leaves.
    while !probe.done() {
        send_beat(&mut beats, &mut last_beat, process);
        step(worker)?;
        check(&mut alive)?;
    }
    Ok(StageReport { process, items: sent, handled: handled.get(), ..StageReport::default() })
}

/// The caller's items as its worker reads them.
enum Feed<I, It> {
    /// Pulled by the worker itself: they are all there.
    Ready(std::iter::Fuse<It>),
    /// Read by a thread of their own, which wakes the worker for each.
    Waiting(mpsc::Receiver<I>),
}

/// What [`Feed::next`] found.
enum Next<I> {
    Item(I),
    /// Nothing yet; more may come.
    Pending,
    Done,
}

impl<I: Send + 'static, It: Iterator<Item = I> + Send + 'static> Feed<I, It> {
    /// Starts reading `items`: a [`Items::Waiting`] source on a thread.
    fn start(items: Items<It>, process: usize) -> Result<Self, ClusterError> {
        let items = match items {
            Items::Ready(items) => return Ok(Feed::Ready(items.fuse())),
            Items::Waiting(items) => items,
        };
        let (tx, rx) = mpsc::sync_channel::<I>(EPOCH_ITEMS);
        let wake = std::thread::current();
        std::thread::Builder::new()
            .name("ohua-cluster-items".into())
            .spawn(move || {
                for item in items {
                    if tx.send(item).is_err() {
                        break;
                    }
                    wake.unpark();
                }
                drop(tx);
                wake.unpark();
            })
            .map_err(|e| ClusterError::WorkerPanicked { process, message: e.to_string() })?;
        Ok(Feed::Waiting(rx))
    }

    fn next(&mut self) -> Next<I> {
        match self {
            Feed::Ready(items) => items.next().map_or(Next::Done, Next::Item),
            Feed::Waiting(rx) => match rx.try_recv() {
                Ok(item) => Next::Item(item),
                Err(TryRecvError::Empty) => Next::Pending,
                Err(TryRecvError::Disconnected) => Next::Done,
            },
        }
    }
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

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}
