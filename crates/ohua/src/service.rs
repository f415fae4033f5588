//! Long-running algorithms as services: start, update while running, stop,
//! join (dissertation ch. 5, `ohua_runtime::update`).

use std::sync::Arc;
use std::thread::JoinHandle;

use crate::timeouts::Finished;

/// How long [`Service::join`] waits for a stopped service whose loop's
/// source is blocked in `next()` before it says why on stderr.
const STOP_HINT_AFTER: std::time::Duration = std::time::Duration::from_secs(2);
use ohua_runtime::update::{
    Action, Changes, Checkpoint, Control, Handoff, MarkError, MarkReport, Regroup, Replacement, SavedState, State,
    StateKinds, Transform,
};

/// A running algorithm: the call `run` makes on a thread of its own, with a
/// handle to update it while it runs.
///
/// The first algorithm `run` calls becomes the service (normally `run` is
/// just that call). Its top-level loops (a loop over a channel, a socket's
/// connections, any iterator) accept *markers* between two iterations: an
/// [`Update`] is applied at such a cut, so every iteration before it runs
/// entirely on the old functions and every iteration after it entirely on
/// the new ones, in all operators at once, without stopping or draining the
/// loop. Nothing is lost or duplicated.
///
/// # Example
///
/// ```
/// use std::sync::mpsc;
///
/// #[ohua::updatable]
/// fn greet(name: String) -> String { format!("hello {name}") }
/// fn greet_v2(name: String) -> String { format!("hi {name}") }
///
/// #[ohua::algorithm]
/// fn server(requests: mpsc::Receiver<String>, replies: mpsc::Sender<String>) -> usize {
///     let mut sent = Replies::new(replies);
///     for name in requests {
///         let text = greet(name);
///         sent.send(text);
///     }
///     sent.count()
/// }
/// # struct Replies(mpsc::Sender<String>, usize);
/// # impl Replies {
/// #     fn new(tx: mpsc::Sender<String>) -> Self { Replies(tx, 0) }
/// #     fn send(&mut self, s: String) { self.1 += 1; let _ = self.0.send(s); }
/// #     fn count(&self) -> usize { self.1 }
/// # }
///
/// let (tx, rx) = mpsc::channel();
/// let (reply_tx, replies) = mpsc::channel();
/// let service = ohua::service(move || server(rx, reply_tx));
/// tx.send("ada".to_string()).unwrap();
/// assert_eq!(replies.recv().unwrap(), "hello ada");
/// // Update between two requests; the next one runs on the new version.
/// let pending = service.request(ohua::Update::new().replace(ohua::replace!(greet => greet_v2)));
/// tx.send("bob".to_string()).unwrap();
/// assert_eq!(replies.recv().unwrap(), "hi bob");
/// pending.wait().unwrap();
/// drop(tx);
/// assert_eq!(service.join(), 2);
/// ```
pub struct Service<R> {
    pub(crate) control: Arc<Control>,
    pub(crate) thread: JoinHandle<R>,
    /// Set when the service's call has returned or panicked.
    pub(crate) finished: Arc<Finished>,
    /// The scaling policy [`Service::set_scaling`] replaces.
    pub(crate) scaling: ohua_runtime::deploy::LiveScaling,
}

/// Start `run` as a service on a new thread (see [`Service`]).
///
/// # Panics
///
/// If the thread cannot be spawned.
pub fn service<R: Send + 'static>(run: impl FnOnce() -> R + Send + 'static) -> Service<R> {
    start(Control::new(), run)
}

pub(crate) fn start<R: Send + 'static>(control: Arc<Control>, run: impl FnOnce() -> R + Send + 'static) -> Service<R> {
    let (c, finished) = (control.clone(), Finished::new());
    let (f, scaling) = (finished.clone(), ohua_runtime::deploy::LiveScaling::default());
    let live = scaling.clone();
    let thread = std::thread::Builder::new()
        .name("ohua-service".into())
        .spawn(move || {
            // Signals on drop, so also when `run` panics.
            let _signal = f.on_drop();
            crate::stoppable::as_service(c.clone(), || {
                ohua_runtime::context::with_control(c, || ohua_runtime::context::with_live_scaling(live, run))
            })
        })
        .expect("ohua: cannot spawn the service thread");
    Service { control, thread, finished, scaling }
}

/// Start `run` as a service whose operators begin from the states of
/// `checkpoint` (taken with [`Service::checkpoint`] from a service of the
/// same algorithm): before the loop takes its first item, every operator
/// that held a saved state gets it back. Feed the new service the items
/// after the cut (`checkpoint.items_before()` onwards) to continue where
/// the checkpoint was taken. Waits until the states are in place:
/// [`crate::restore_timeout`] gives up after a while.
///
/// # Errors
///
/// [`MarkError::NoState`] if a saved state found no operator holding one of
/// its type at its place (another algorithm), [`MarkError::Rejected`] if one
/// could not be loaded (its type is not in `kinds`, or its JSON does not
/// parse), [`MarkError::NotReached`] if the service ended first. The service
/// is stopped then.
///
/// # Panics
///
/// If the thread cannot be spawned.
pub fn restore<R: Send + 'static>(
    checkpoint: Checkpoint,
    kinds: &StateKinds,
    run: impl FnOnce() -> R + Send + 'static,
) -> Result<Service<R>, MarkError> {
    crate::timeouts::restore_within(checkpoint, kinds, None, run)
}

/// Function replacements and state transforms applied together at one
/// consistent cut (see [`Service::update`]): mutually dependent functions,
/// such as a producer that tags what it sends and the consumer that reads
/// the tag, switch at the same iteration.
#[derive(Default, Debug)]
pub struct Update {
    changes: Changes,
}

impl Update {
    /// An update that replaces nothing yet.
    pub fn new() -> Self {
        Update::default()
    }

    /// Also replace a function: `ohua::replace!(f => f_v2)`, optionally
    /// only at one operator (`Replacement::at("algorithm/f#3")`).
    pub fn replace(mut self, r: Replacement) -> Self {
        self.changes.replacements.push(r);
        self
    }

    /// Also transform every state of type `S` that an operator of the
    /// service's loops holds: at the cut, before the operator adopts the
    /// replacements, it replaces the state by `f(&old)`. `S` is a type with
    /// an `#[ohua::updatable]` impl block (or another [`State`]).
    ///
    /// If `f` returns `Err` or panics at an operator, that operator keeps
    /// its old state and its old functions (it adopts nothing of the
    /// update), and [`Service::update`] returns [`MarkError::Rejected`].
    /// Other operators are not rolled back: keep a transform and the
    /// replacements that need the new state on the operator that holds it
    /// (methods of the state's type are called there).
    ///
    /// The state's type stays the same: the operator's code was compiled
    /// against it. To change the representation, give the state a field
    /// holding a `Box<dyn Trait>` and return another implementation.
    pub fn transform<S: State, E: std::fmt::Display>(
        self,
        f: impl Fn(&S) -> Result<S, E> + Send + Sync + 'static,
    ) -> Self {
        self.with_transform(Transform::new(f))
    }

    /// Also apply `t` (a [`Transform`], e.g. addressed to one operator with
    /// [`Transform::at`]).
    pub fn with_transform(mut self, t: Transform) -> Self {
        self.changes.transforms.push(t);
        self
    }
}

/// An update or marker on its way through a service (see
/// [`Service::request`]).
pub struct Pending(pub(crate) Arc<ohua_runtime::update::Marker>);

impl Pending {
    /// Wait until every operator the marker will reach has seen it.
    ///
    /// # Errors
    ///
    /// [`MarkError::NotReached`] if the service ended first (no top-level
    /// loop was running to insert it, or its loops ended while it was in
    /// flight).
    pub fn wait(&self) -> Result<MarkReport, MarkError> {
        self.0.wait()
    }

    /// As [`Pending::wait`], giving up after `timeout` (`None`: still on its way).
    ///
    /// # Errors
    ///
    /// As [`Pending::wait`].
    pub fn wait_timeout(&self, timeout: std::time::Duration) -> Option<Result<MarkReport, MarkError>> {
        self.0.wait_timeout(timeout)
    }
}

/// A checkpoint on its way through a service (see
/// [`Service::request_checkpoint`]).
pub struct PendingCheckpoint(pub(crate) Pending);

impl PendingCheckpoint {
    /// Wait until every operator has saved its states (as long as it
    /// takes: [`PendingCheckpoint::wait_timeout`] gives up).
    ///
    /// # Errors
    ///
    /// As [`Service::checkpoint`].
    pub fn wait(&self) -> Result<Checkpoint, MarkError> {
        let report = self.0.wait()?;
        Ok(Checkpoint { cut: report.cut, states: report.saved })
    }
}

impl<R> Service<R> {
    /// Apply `update` at the next cut of the service's loops and wait until
    /// every operator has passed the cut.
    ///
    /// A loop whose source is waiting for its next item (an idle server)
    /// inserts the cut when that item arrives: the update applies to it and
    /// everything after it. Use [`Service::request`] to go on meanwhile.
    ///
    /// # Errors
    ///
    /// [`MarkError::NotReached`] if the service ended before the update had
    /// reached every operator; [`MarkError::Rejected`] if a state transform
    /// failed or panicked (the operators where it did kept their old
    /// version); [`MarkError::NoState`] if a transform found no state to
    /// apply to.
    pub fn update(&self, update: Update) -> Result<MarkReport, MarkError> {
        self.request(update).wait()
    }

    /// Send `update` without waiting for it.
    pub fn request(&self, update: Update) -> Pending {
        Pending(self.control.request(Action::Update(update.changes)))
    }

    /// Send a marker that changes nothing and wait for it: how long a cut
    /// takes to cross the service (an update's baseline).
    ///
    /// # Errors
    ///
    /// As [`Service::update`].
    pub fn marker(&self) -> Result<MarkReport, MarkError> {
        self.control.request(Action::NoOp).wait()
    }

    /// Rescale keyed calls live: at the next cut, the key groups of the
    /// keyed calls `regroup` names move, with their state, onto
    /// [`Regroup::replicas`] of their replicas (at most as many as the plan
    /// gave them; the others keep no key), balanced by the items each group
    /// has had. Items of one key keep their sequential order across the
    /// move; none is lost or taken twice. The report lists the keyed calls
    /// that moved in [`MarkReport::adopted`]. Waits for the loop's next
    /// item, as [`Service::update`] does: [`Service::request_rescale`] goes
    /// on meanwhile.
    ///
    /// # Errors
    ///
    /// [`MarkError::NotRescaled`] if no keyed call with replicas that
    /// `regroup` names was reached; [`MarkError::NotReached`] if the
    /// service ended first.
    ///
    /// # Example
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use ohua::deploy::Regroup;
    /// #[derive(Default)]
    /// struct Counts(HashMap<u64, u64>);
    /// impl ohua::Keyed for Counts {
    ///     type Key = u64;
    ///     fn split(self, parts: usize, part_of: &dyn Fn(&u64) -> usize) -> Vec<Self> {
    ///         let mut out: Vec<Counts> = (0..parts).map(|_| Counts::default()).collect();
    ///         self.0.into_iter().for_each(|(k, n)| { out[part_of(&k)].0.insert(k, n); });
    ///         out
    ///     }
    ///     fn merge(parts: Vec<Self>) -> Self {
    ///         Counts(parts.into_iter().flat_map(|p| p.0).collect())
    ///     }
    /// }
    /// struct Hit(u64);
    /// impl ohua::KeyOf<Counts> for Hit {
    ///     fn key(&self) -> u64 { self.0 }
    /// }
    /// impl Counts {
    ///     fn count(&mut self, h: &Hit) -> u64 { let n = self.0.entry(h.0).or_default(); *n += 1; *n }
    /// }
    /// #[ohua::algorithm]
    /// fn hits(rx: std::sync::mpsc::Receiver<Hit>) -> Vec<u64> {
    ///     let mut counts = ohua::keyed(Counts::default());
    ///     let mut seen = Vec::new();
    ///     for h in rx {
    ///         let n = counts.count(&h);
    ///         seen.push(n);
    ///     }
    ///     seen
    /// }
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let d = ohua::Deployment::default().replicas("hits/count#.*=4".parse().unwrap());
    /// let service = ohua::service(move || ohua::with_deployment(d, || hits(rx)));
    /// tx.send(Hit(7)).unwrap();
    /// let pending = service.request_rescale(Regroup::new(2)); // onto 2 of the 4 replicas
    /// tx.send(Hit(7)).unwrap(); // the cut comes before this item
    /// assert_eq!(pending.wait().unwrap().adopted.len(), 1, "one keyed call moved its groups");
    /// drop(tx);
    /// assert_eq!(service.join(), vec![1, 2], "key 7's count moved with its group");
    /// ```
    pub fn rescale(&self, regroup: Regroup) -> Result<MarkReport, MarkError> {
        self.request_rescale(regroup).wait()
    }

    /// Send a rescaling (see [`Service::rescale`]) without waiting for it.
    pub fn request_rescale(&self, regroup: Regroup) -> Pending {
        Pending(self.control.request(Action::Regroup(regroup)))
    }

    /// Take a consistent checkpoint: at the next cut, every operator saves
    /// the states of the types in `kinds` that it holds (as JSON), without
    /// stopping the service. [`Checkpoint::cut`] says how many items each
    /// loop had taken before it; [`restore`] starts a service from it.
    /// Waits for the loop's next item: [`Service::checkpoint_timeout`]
    /// gives up after a while.
    ///
    /// # Errors
    ///
    /// [`MarkError::NoState`] if no operator held a state of one of the
    /// types, [`MarkError::Rejected`] if one could not be serialized,
    /// [`MarkError::NotReached`] if the service ended first.
    pub fn checkpoint(&self, kinds: &StateKinds) -> Result<Checkpoint, MarkError> {
        self.request_checkpoint(kinds).wait()
    }

    /// Send a checkpoint marker (see [`Service::checkpoint`]) without
    /// waiting for it: the cut is the next item of the loop's source,
    /// whenever it comes.
    pub fn request_checkpoint(&self, kinds: &StateKinds) -> PendingCheckpoint {
        PendingCheckpoint(Pending(self.control.request(Action::Checkpoint(kinds.clone()))))
    }

    /// Replace the service's algorithm by the one `run` calls (normally
    /// another version with the same signature, over a second handle on
    /// the same source), at one cut, without stopping or draining
    /// (dissertation §5.5):
    ///
    /// - the running version takes no item after the cut: its loop ends
    ///   there, it finishes the items it took and returns its result
    ///   ([`Replaced::retired`]);
    /// - the new version starts at once, but its loop takes its first item
    ///   only after the old one has taken its last, from its own handle on
    ///   the source (a clone of a `crossbeam_channel::Receiver`, a
    ///   `TcpListener::try_clone`, ...). So every item runs entirely on one
    ///   version, none is lost or taken twice, and both versions run side
    ///   by side while the old one finishes;
    /// - states of the types in `kinds` move from the old version's
    ///   operators to the new version's by type (as JSON, like a
    ///   [`Service::checkpoint`]): an operator of the new version that holds
    ///   one waits, before its first item, until the old operator holding
    ///   that type has passed the cut. A type must be held by one operator
    ///   in each version. The new version may hold states the old one did
    ///   not (an inserted cache) and lack some it had.
    ///
    /// The cut is made at the old loop's next item: if its source is
    /// waiting in `next()`, the item it returns is the old version's last
    /// and `replace` returns after it arrived. The source must not buffer
    /// items inside the iterator the old loop drops (a channel or a
    /// listener does not; a `BufReader`'s lines would).
    ///
    /// From now on `self` is the new version; the old one is in the result.
    /// A replacement is not undone: if a state could not move, the new
    /// version runs with its own and [`Replaced::check`] says which.
    ///
    /// # Example
    ///
    /// ```
    /// #[ohua::algorithm]
    /// fn v1(requests: crossbeam_channel::Receiver<u32>, out: crossbeam_channel::Sender<String>) -> usize {
    ///     let mut log = Log::new(out);
    ///     for r in requests {
    ///         let text = format!("v1 {r}");
    ///         log.send(text);
    ///     }
    ///     log.count()
    /// }
    /// #[ohua::algorithm]
    /// fn v2(requests: crossbeam_channel::Receiver<u32>, out: crossbeam_channel::Sender<String>) -> usize {
    ///     let mut log = Log::new(out);
    ///     for r in requests {
    ///         let text = format!("v2 {}", r * 10);
    ///         log.send(text);
    ///     }
    ///     log.count()
    /// }
    /// # #[derive(serde::Serialize, serde::Deserialize)]
    /// # struct Log { #[serde(skip)] out: Option<crossbeam_channel::Sender<String>>, sent: usize }
    /// # #[ohua::updatable]
    /// # impl Log {
    /// #     fn new(out: crossbeam_channel::Sender<String>) -> Self { Log { out: Some(out), sent: 0 } }
    /// #     fn send(&mut self, s: String) { self.sent += 1; let _ = self.out.as_ref().unwrap().send(s); }
    /// #     fn count(&self) -> usize { self.sent }
    /// # }
    ///
    /// let (tx, rx) = crossbeam_channel::unbounded();
    /// let (out, replies) = crossbeam_channel::unbounded();
    /// let (rx1, out1) = (rx.clone(), out.clone());
    /// let mut service = ohua::service(move || v1(rx1, out1));
    /// tx.send(1).unwrap();
    /// assert_eq!(replies.recv().unwrap(), "v1 1");
    ///
    /// // The replacement's cut comes with the next request the old version
    /// // takes (its last): request 2 if v1 already waits for it, else none
    /// // (v1 may still be finishing request 1). `kinds` lists no state, so
    /// // none moves.
    /// let sender = std::thread::spawn(move || { tx.send(2).unwrap(); tx.send(3).unwrap(); });
    /// let replaced = service.replace(&ohua::update::StateKinds::new(), move || v2(rx, out));
    /// replaced.check().unwrap();
    /// let answered_by_v1 = replaced.retired.join();
    /// // Both versions ran at once: the replies may come in either order.
    /// // Every request is answered once, by one version.
    /// let mut last = [replies.recv().unwrap(), replies.recv().unwrap()];
    /// last.sort();
    /// match answered_by_v1 {
    ///     2 => assert_eq!(last, ["v1 2", "v2 30"]),
    ///     1 => assert_eq!(last, ["v2 20", "v2 30"]),
    ///     n => panic!("v1 answered {n} requests"),
    /// }
    /// sender.join().unwrap();
    /// service.stop();
    /// # drop(replies);
    /// ```
    pub fn replace(&mut self, kinds: &StateKinds, run: impl FnOnce() -> R + Send + 'static) -> Replaced<R>
    where
        R: Send + 'static,
    {
        let handoff = Handoff::new(kinds.clone());
        let handing = self.control.request(Action::Handover(handoff.clone()));
        let control = Control::new();
        // Requested before the run starts: its loop inserts it first.
        let taking = control.request(Action::Takeover(handoff.clone()));
        let retired = std::mem::replace(self, start(control, run));
        let old = handing.wait();
        // Whether or not the old version made the cut (it may have ended
        // before), nothing more comes from it.
        handoff.close();
        let new = taking.wait();
        Replaced { retired, old, new, unclaimed: handoff.unclaimed() }
    }

    /// Ask the service's top-level loops to stop taking items. Items
    /// already taken are processed completely; the loop then drops its
    /// source (with whatever the source still buffers: stop the producer
    /// first if those items matter).
    ///
    /// A loop over a receiver parameter (`for x in rx`, `rx` a
    /// `std::sync::mpsc::Receiver` or any [`crate::update::RecvTimeout`])
    /// stops within 10 ms even while it waits for an item: the generated
    /// code waits in slices. Any other source whose `next()` blocks (a
    /// receive inside your own iterator, which the runtime cannot
    /// interrupt) stops after the item that call returns, or when the
    /// source ends; give such a loop [`crate::stoppable`]`(rx)`, or wrap
    /// your iterator in [`crate::stoppable_iter`], which calls its `next()`
    /// on a thread of its own. [`Service::waits_for_item`] tells whether the loop waits in
    /// `next()`, and [`Service::join`] says so on stderr when it still
    /// waits 2 s after a stop.
    pub fn stop(&self) {
        self.control.stop();
    }

    /// Whether the service's loop waits in its source's `next()` for the
    /// next item. After [`Service::stop`], a loop over a receiver
    /// parameter stops within a tick; one whose own iterator blocks stops
    /// with the item it waits for or when the source ends (unless it is
    /// wrapped in [`crate::stoppable_iter`]).
    ///
    /// # Example
    ///
    /// ```
    /// #[ohua::algorithm]
    /// fn count(xs: std::sync::mpsc::Receiver<u64>) -> u64 {
    ///     let mut n = 0;
    ///     for x in xs {
    ///         n += x;
    ///     }
    ///     n
    /// }
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let service = ohua::service(move || count(rx));
    /// tx.send(5).unwrap();
    /// while !service.waits_for_item() {
    ///     std::thread::sleep(std::time::Duration::from_millis(1));
    /// }
    /// // Idle, with `tx` still open: the stop ends the wait.
    /// service.stop();
    /// assert_eq!(service.join(), 5);
    /// ```
    pub fn waits_for_item(&self) -> bool {
        self.control.waiting_for_item()
    }

    /// Replace the policy that decides how many replicas the service's
    /// elastic operators use (`replicas = "elastic"`; see
    /// [`crate::deploy::Scaling`]): each follows `scaling` from its next
    /// window on (within 20 ms under load), and the run report names it.
    /// The deployment's `scaling` applies until the first call. A service
    /// whose deployment is not elastic has no such operators, and the
    /// call changes nothing.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua::deploy::{Replication, Scaling};
    /// #[ohua::algorithm]
    /// fn doubled(xs: std::sync::mpsc::Receiver<u64>) -> u64 {
    ///     let mut n = 0;
    ///     for x in xs {
    ///         let y = x * 2;
    ///         n += y;
    ///     }
    ///     n
    /// }
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// let d = ohua::Deployment::default().replicas(Replication::Elastic);
    /// let service = ohua::service(move || ohua::with_deployment(d, || doubled(rx)));
    /// tx.send(1).unwrap();
    /// // Tighter replies from now on: a p99 of 2 ms per operator.
    /// service.set_scaling(Scaling::p99(std::time::Duration::from_millis(2)));
    /// tx.send(2).unwrap();
    /// // An SLA: 5 ms per request over the whole path, and capacity for
    /// // at least 1,000 requests a second.
    /// let sla = ohua::deploy::RequestGoal::new(std::time::Duration::from_millis(5)).floor(1000.0);
    /// service.set_scaling(Scaling::request(sla));
    /// tx.send(0).unwrap();
    /// drop(tx);
    /// assert_eq!(service.join(), 6);
    /// ```
    pub fn set_scaling(&self, scaling: crate::deploy::Scaling) {
        self.scaling.set(scaling);
    }

    /// Whether the service's call has returned (or panicked).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Wait for the service's call to return and give back its result (as
    /// long as it takes: [`Service::join_timeout`] gives up).
    ///
    /// # Panics
    ///
    /// Re-raises a panic of the service's call with its original payload.
    pub fn join(self) -> R {
        if self.control.stopping() && !self.finished.wait(STOP_HINT_AFTER) && self.waits_for_item() {
            eprintln!(
                "ohua: a service stopped {} s ago still waits for the next item of its loop's source, a receive the \
                 runtime cannot interrupt; it stops with that item or when the source ends. To stop an idle service, \
                 loop over a receiver parameter (`for x in rx`), over `ohua::stoppable(rx)`, or over \
                 `ohua::stoppable_iter(your_iterator)`.",
                STOP_HINT_AFTER.as_secs()
            );
        }
        match self.thread.join() {
            Ok(r) => r,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}

/// What [`Service::replace`] did.
pub struct Replaced<R> {
    /// The old version: it finishes the items it took before the cut
    /// (and only those); [`Service::join`] gives its result.
    pub retired: Service<R>,
    /// How the cut crossed the old version: the items its loop took
    /// ([`MarkReport::cut`]) and the states it saved
    /// ([`MarkReport::saved`]). [`MarkError::NotReached`] if it had ended
    /// before (the new version then starts on what is left of the source).
    pub old: Result<MarkReport, MarkError>,
    /// How the new version took over: the operators that took an old
    /// state ([`MarkReport::reached`]), or why one could not.
    pub new: Result<MarkReport, MarkError>,
    /// States the old version saved that no operator of the new one holds:
    /// they stay with the old version.
    pub unclaimed: Vec<SavedState>,
}

impl<R> Replaced<R> {
    /// Whether the replacement was clean: the old version made the cut,
    /// every state it saved moved, and the new version took them.
    ///
    /// # Errors
    ///
    /// The old version's error (it had ended; two of its operators held
    /// states of one type), else the new version's (a state did not load;
    /// two of its operators hold one type), else
    /// [`MarkError::NoState`] naming a state nobody took.
    pub fn check(&self) -> Result<(), MarkError> {
        self.old.as_ref().map_err(Clone::clone)?;
        let new = self.new.as_ref().map_err(Clone::clone)?;
        match self.unclaimed.first() {
            Some(s) => Err(MarkError::NoState {
                state: format!("{} (saved at {}; the new version holds none)", s.state, s.operator),
                report: Box::new(new.clone()),
            }),
            None => Ok(()),
        }
    }
}
