//! A stage spread over the cluster, its results back in sequential order.
//!
//! The caller (process 0, worker 0) numbers the items it reads and sends
//! them into a timely dataflow that every worker of every process builds
//! alike:
//!
//! ```text
//! caller's items ─(seq, item)─▶ exchange by route ─▶ handler ─(seq, worker, result)─▶ exchange to worker 0 ─▶ reorder ─▶ sink
//! ```
//!
//! [`Route::RoundRobin`] deals item `seq` to worker `seq % peers`, for a
//! stateless handler ([`Route::Elsewhere`] only to the workers of the
//! other processes); [`Route::ByKey`] sends every item of a key to one
//! worker, so a keyed state's handler there sees that key's items in the
//! caller's order (timely's channels between two workers are FIFO, and only
//! the caller sends). Results leave in sequence order as soon as those
//! before them have (`reorder.rs`), not at the end of an epoch.
//!
//! The caller reads [`Items::Waiting`] on a thread of their own (`feed.rs`),
//! so items that trickle in (a socket, a channel) do not hold back results
//! of earlier items. What it finds ready is sent as one epoch.
//!
//! A stage is a [`StageDriver`] on each worker, which the cluster's worker
//! loop (`cluster.rs`) polls after every step, beside the other stages and
//! the heartbeats.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::{Exchange, Pipeline};
use timely::dataflow::operators::{Capability, Exchange as _, Input, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::ExchangeData;

use crate::error::ClusterError;
use crate::feed::{Feed, Next};
use crate::reorder::Reorder;

/// Items the caller sends as one epoch at most.
pub(crate) const EPOCH_ITEMS: usize = 1024;

/// How long a worker runs handler calls before it steps its other
/// operators (heartbeats, results) again: a tenth of a heartbeat period.
const SLICE: Duration = Duration::from_millis(20);

/// Items in flight at most: sent by the caller, their results not yet
/// released. Bounds the memory the stage holds whatever the source's size.
const IN_FLIGHT: u64 = 16 * EPOCH_ITEMS as u64;

/// Where the caller's items come from.
pub enum Items<It: Iterator> {
    /// All there (a `Vec`, a range, a file read ahead): the caller's
    /// worker pulls them itself, an epoch at a time.
    Ready(It),
    /// Items that may take a while to come (a socket, a channel): read on
    /// a thread of their own, so that results of earlier items leave
    /// while the next is awaited. Each item costs a wake-up of the worker.
    Waiting(It),
    /// Items pushed into a channel by someone who also unparks the
    /// caller's worker after each ([`crate::Cluster::caller_worker`]): no
    /// reader thread, so an item costs one wake-up fewer (the runtime's
    /// remote lanes send their batches this way).
    Pushed(std::sync::mpsc::Receiver<It::Item>),
}

/// How a stage's items are dealt to the cluster's workers.
pub enum Route<I> {
    /// Item `seq` to worker `seq % peers`: a stateless handler.
    RoundRobin,
    /// Round robin over the workers of the processes other than the
    /// caller's (over every worker where the caller is alone): a stateless
    /// handler whose caller already keeps its own cores busy, as the
    /// runtime's remote lanes do (its local replicas run beside the lane).
    Elsewhere,
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
    /// How long this process waited for its cluster to form (the same for
    /// every stage of one [`crate::Cluster`]).
    pub formed_after: Duration,
    /// From the stage's start until it ended here.
    pub ran_for: Duration,
}

/// Items a worker holds for its handler, with the capability to send
/// their results at their epoch.
type Batch<I> = (Capability<u64>, VecDeque<(u64, I)>);

/// Where the caller sends its numbered items.
type ItemInput<I> = InputHandle<u64, CapacityContainerBuilder<Vec<(u64, I)>>>;

/// A result on its way back: its sequence number, the worker that made
/// it, and the handler's result or its panic message.
type Answer<O> = (u64, usize, Result<O, String>);

/// One worker's part of a running stage, polled by the cluster's worker
/// loop after each step.
pub(crate) trait Drive {
    /// `Some` when this worker's part is over: its report, or why it failed.
    fn poll(&mut self) -> Option<Result<StageReport, ClusterError>>;
}

/// Builds a stage's dataflow on `worker` and gives its driver. Every worker
/// of every process must build the same stages in the same order (timely's
/// rule). `caller` holds the items and the sink on the caller's worker 0.
///
/// # Errors
///
/// If the reader thread of [`Items::Waiting`] cannot start.
pub(crate) fn build<I, O, It, H, S>(
    worker: &mut timely::worker::Worker,
    process: usize,
    workers_per_process: usize,
    route: Arc<Route<I>>,
    mut handle: H,
    caller: Option<(Items<It>, S)>,
) -> Result<Box<dyn Drive>, ClusterError>
where
    I: ExchangeData + Clone,
    O: ExchangeData + Clone,
    It: Iterator<Item = I> + Send + 'static,
    H: FnMut(I) -> O + 'static,
    S: FnMut(O) + 'static,
{
    let me = worker.index();
    let peers = worker.peers() as u64;
    let elsewhere = (workers_per_process as u64).min(peers - 1);
    let mut input: ItemInput<I> = InputHandle::new();
    let probe = ProbeHandle::new();
    let answers: Rc<RefCell<Vec<Answer<O>>>> = Rc::default();
    let handled = Rc::new(Cell::new(0u64));
    worker.dataflow::<u64, _, _>(|scope| {
        let count = Rc::clone(&handled);
        let out = Rc::clone(&answers);
        scope
            .input_from(&mut input)
            .container::<Vec<(u64, I)>>()
            .exchange(move |(seq, item): &(u64, I)| match &*route {
                Route::RoundRobin => *seq % peers,
                Route::Elsewhere => elsewhere + *seq % (peers - elsewhere),
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
    });
    let caller = match caller {
        Some((items, sink)) => {
            Some(CallerPart { feed: Feed::start(items, process)?, sink, sent: 0, order: Reorder::default() })
        }
        None => {
            // Not the caller: this worker sends no items.
            drop(input);
            return Ok(Box::new(StageDriver::<I, O, It, S> {
                process,
                workers_per_process,
                input: None,
                probe,
                answers,
                handled,
                caller: None,
                started: Instant::now(),
            }));
        }
    };
    Ok(Box::new(StageDriver {
        process,
        workers_per_process,
        input: Some(input),
        probe,
        answers,
        handled,
        caller,
        started: Instant::now(),
    }))
}

/// The caller's side of a stage: its items, where results go, and what is
/// in flight.
struct CallerPart<I, O, It, S> {
    feed: Feed<I, It>,
    sink: S,
    sent: u64,
    order: Reorder<O>,
}

/// A stage on one worker.
struct StageDriver<I: Clone + 'static, O, It, S> {
    process: usize,
    workers_per_process: usize,
    /// The caller's open input (`None` elsewhere, or once closed).
    input: Option<ItemInput<I>>,
    probe: ProbeHandle<u64>,
    answers: Rc<RefCell<Vec<Answer<O>>>>,
    handled: Rc<Cell<u64>>,
    caller: Option<CallerPart<I, O, It, S>>,
    started: Instant,
}

impl<I, O, It, S> Drive for StageDriver<I, O, It, S>
where
    I: ExchangeData + Clone,
    O: ExchangeData + Clone,
    It: Iterator<Item = I> + Send + 'static,
    S: FnMut(O),
{
    fn poll(&mut self) -> Option<Result<StageReport, ClusterError>> {
        if let Some(c) = self.caller.as_mut() {
            for (seq, from, result) in self.answers.borrow_mut().drain(..) {
                match result {
                    Ok(o) => c.order.arrive(seq, o, &mut c.sink),
                    Err(message) => {
                        let process = from / self.workers_per_process;
                        return Some(Err(ClusterError::WorkerPanicked { process, message }));
                    }
                }
            }
            if let Some(open) = self.input.as_mut() {
                let mut this_epoch = 0;
                let mut closed = false;
                let room = IN_FLIGHT.saturating_sub(c.sent - c.order.released()).min(EPOCH_ITEMS as u64);
                while this_epoch < room {
                    match c.feed.next() {
                        Next::Item(item) => {
                            open.send((c.sent, item));
                            c.sent += 1;
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
                    self.input = None;
                }
            }
            if self.input.is_some() || c.order.released() < c.sent {
                return None;
            }
        }
        // Let every worker see the stage close before this one leaves it.
        if !self.probe.done() {
            return None;
        }
        let items = self.caller.as_ref().map_or(0, |c| c.sent);
        Some(Ok(StageReport {
            process: self.process,
            items,
            handled: self.handled.get(),
            formed_after: Duration::ZERO,
            ran_for: self.started.elapsed(),
        }))
    }
}

pub(crate) fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic with a non-string payload".into())
}
