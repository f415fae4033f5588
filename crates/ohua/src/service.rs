//! Long-running algorithms as services: start, update while running, stop,
//! join (dissertation ch. 5, `ohua_runtime::update`).

use std::sync::Arc;
use std::thread::JoinHandle;

use ohua_runtime::update::{
    Action, Changes, Checkpoint, Control, MarkError, MarkReport, Replacement, State, StateKinds, Transform,
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
    control: Arc<Control>,
    thread: JoinHandle<R>,
}

/// Start `run` as a service on a new thread (see [`Service`]).
///
/// # Panics
///
/// If the thread cannot be spawned.
pub fn service<R: Send + 'static>(run: impl FnOnce() -> R + Send + 'static) -> Service<R> {
    start(Control::new(), run)
}

fn start<R: Send + 'static>(control: Arc<Control>, run: impl FnOnce() -> R + Send + 'static) -> Service<R> {
    let c = control.clone();
    let thread = std::thread::Builder::new()
        .name("ohua-service".into())
        .spawn(move || ohua_runtime::context::with_control(c, run))
        .expect("ohua: cannot spawn the service thread");
    Service { control, thread }
}

/// Start `run` as a service whose operators begin from the states of
/// `checkpoint` (taken with [`Service::checkpoint`] from a service of the
/// same algorithm): before the loop takes its first item, every operator
/// that held a saved state gets it back. Feed the new service the items
/// after the cut (`checkpoint.items_before()` onwards) to continue where
/// the checkpoint was taken.
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
    let control = Control::new();
    // Requested before the run starts: the loop inserts it before its first item.
    let restoring = control.request(Action::Restore(Box::new((checkpoint, kinds.clone()))));
    let service = start(control, run);
    match restoring.wait() {
        Ok(_) => Ok(service),
        Err(e) => {
            service.stop();
            Err(e)
        }
    }
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
pub struct Pending(Arc<ohua_runtime::update::Marker>);

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

    /// Take a consistent checkpoint: at the next cut, every operator saves
    /// the states of the types in `kinds` that it holds (as JSON), without
    /// stopping the service. [`Checkpoint::cut`] says how many items each
    /// loop had taken before it; [`restore`] starts a service from it.
    ///
    /// # Errors
    ///
    /// [`MarkError::NoState`] if no operator held a state of one of the
    /// types, [`MarkError::Rejected`] if one could not be serialized,
    /// [`MarkError::NotReached`] if the service ended first.
    pub fn checkpoint(&self, kinds: &StateKinds) -> Result<Checkpoint, MarkError> {
        let report = self.control.request(Action::Checkpoint(kinds.clone())).wait()?;
        Ok(Checkpoint { cut: report.cut, states: report.saved })
    }

    /// Ask the service's top-level loops to stop taking items. Items
    /// already taken are processed completely; the loop then drops its
    /// source (with whatever the source still buffers: stop the producer
    /// first if those items matter). A loop whose source waits inside
    /// `next()` stops after the item that call returns, or when the source
    /// ends.
    pub fn stop(&self) {
        self.control.stop();
    }

    /// Whether the service's call has returned (or panicked).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Wait for the service's call to return and give back its result.
    ///
    /// # Panics
    ///
    /// Re-raises a panic of the service's call with its original payload.
    pub fn join(self) -> R {
        match self.thread.join() {
            Ok(r) => r,
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
}
