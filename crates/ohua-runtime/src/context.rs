//! Per-thread run options: a deployment override, profiling, sequential mode.
//!
//! Options are thread-local and scoped: each function here sets an option for
//! the duration of its closure and restores the previous value afterwards,
//! even if the closure panics. [`crate::exec::execute`] copies the caller's
//! options into every section thread it spawns, so an operator that itself
//! runs an algorithm (a nested run) sees the same options as the caller.

use std::cell::{Cell, RefCell};

use crate::deploy::Deployment;
use crate::report::RunReport;
use crate::sync::{Arc, Mutex};

/// Where [`profile`] collects reports; shared with section threads.
type Collector = Arc<Mutex<Vec<RunReport>>>;

/// Everything a run inherits from the thread that starts it.
#[derive(Clone, Default)]
pub(crate) struct Options {
    /// Replaces the environment's deployment when set.
    pub(crate) deployment: Option<Deployment>,
    /// Read by generated code to run the algorithm body sequentially.
    pub(crate) sequential: bool,
    /// One collector per enclosing [`profile`], innermost last.
    pub(crate) collectors: Vec<Collector>,
    /// The control of a service ([`with_control`]): taken by the next run
    /// that starts on this thread, so a nested run does not see it.
    pub(crate) control: Option<std::sync::Arc<crate::update::Control>>,
    /// A service's replaceable scaling policy ([`with_live_scaling`]),
    /// taken like `control`.
    pub(crate) live_scaling: Option<crate::deploy::LiveScaling>,
    /// Set inside a run (its sections, and a statement another process
    /// serves): a run started there is nested, and runs in this process
    /// only, since the other processes of a cluster are not calling it
    /// (`exec::serialized::cluster_for`).
    pub(crate) inside_run: bool,
}

thread_local! {
    static OPTIONS: RefCell<Options> = RefCell::new(Options::default());
    static LAST_PANIC: Cell<Option<OperatorPanic>> = const { Cell::new(None) };
}

/// Which operator panicked in a run whose panic reached this thread.
///
/// A panic inside an operator is re-raised in the caller with its original
/// payload, exactly as sequential execution would raise it. The operator's
/// name travels separately: on stderr, in the run's
/// [`RunReport::panicked`](crate::report::RunReport::panicked), and here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperatorPanic {
    /// The algorithm whose run panicked.
    pub algorithm: &'static str,
    /// The operator that panicked (`algorithm/function#callsite`).
    pub operator: &'static str,
}

/// The operator behind the most recent operator panic re-raised on this
/// thread by an algorithm run, if any. It stays set until the next such
/// panic replaces it; runs that succeed leave it alone.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::last_operator_panic;
/// // No algorithm has panicked on this thread.
/// assert_eq!(last_operator_panic(), None);
/// ```
pub fn last_operator_panic() -> Option<OperatorPanic> {
    LAST_PANIC.with(Cell::get)
}

/// Remember `p` as this thread's [`last_operator_panic`].
pub(crate) fn set_last_operator_panic(p: OperatorPanic) {
    LAST_PANIC.with(|c| c.set(Some(p)));
}

/// Restores the options it saved when dropped, so scopes nest and survive panics.
struct Restore(Option<Options>);

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(prev) = self.0.take() {
            OPTIONS.with(|o| *o.borrow_mut() = prev);
        }
    }
}

/// Run `f` with the options changed by `change`, then restore them.
fn scoped<R>(change: impl FnOnce(&mut Options), f: impl FnOnce() -> R) -> R {
    let prev = OPTIONS.with(|o| {
        let prev = o.borrow().clone();
        change(&mut o.borrow_mut());
        prev
    });
    let _restore = Restore(Some(prev));
    f()
}

/// Run `f` with every algorithm run inside it (on this thread and in nested
/// runs) using deployment `d`, ignoring `OHUA_CONFIG` and `OHUA_*` variables.
///
/// # Example
///
/// ```
/// use ohua_runtime::context::with_deployment;
/// use ohua_runtime::deploy::{Deployment, SectionStrategy};
/// let d = Deployment::default().sections(SectionStrategy::Single);
/// let x = with_deployment(d, || 1 + 1); // algorithm calls in here run single-threaded
/// assert_eq!(x, 2);
/// ```
pub fn with_deployment<R>(d: Deployment, f: impl FnOnce() -> R) -> R {
    scoped(|o| o.deployment = Some(d), f)
}

/// Run `f` and return, with its result, the reports of every algorithm run
/// inside it, including nested runs on section threads, in the order the
/// runs finished (so a nested run precedes the run that contains it).
///
/// # Example
///
/// ```
/// use ohua_runtime::context::profile;
/// let (x, reports) = profile(|| 7);
/// assert_eq!((x, reports.len()), (7, 0));
/// ```
pub fn profile<R>(f: impl FnOnce() -> R) -> (R, Vec<RunReport>) {
    let collector: Collector = Arc::new(Mutex::new(Vec::new()));
    let c = Arc::clone(&collector);
    let r = scoped(|o| o.collectors.push(c), f);
    // Every run inside `f` has joined its threads, so nobody else pushes now.
    let reports = std::mem::take(&mut *collector.lock().unwrap_or_else(|e| e.into_inner()));
    (r, reports)
}

/// Run `f` with the sequential flag set: generated code consults
/// [`is_sequential`] and runs algorithm bodies as plain sequential Rust.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::{context::*, deploy::*, graph::*, report::*}; }
/// use ohua::{is_sequential, sequential};
/// assert!(!is_sequential());
/// assert!(sequential(is_sequential));
/// assert!(!is_sequential());
/// ```
pub fn sequential<R>(f: impl FnOnce() -> R) -> R {
    scoped(|o| o.sequential = true, f)
}

/// Whether the current thread runs inside [`sequential`].
pub fn is_sequential() -> bool {
    OPTIONS.with(|o| o.borrow().sequential)
}

/// Run `f` with `control` handed to the first algorithm run that starts on
/// this thread inside it: that run becomes a *service* whose top-level loops
/// insert the markers `control` requests (`crate::update`). The facade's
/// `ohua::service` is built on this.
///
/// # Example
///
/// ```
/// use ohua_runtime::context::with_control;
/// use ohua_runtime::update::Control;
/// let control = Control::new();
/// let x = with_control(control.clone(), || 40 + 2); // no algorithm ran: nothing taken
/// assert_eq!(x, 42);
/// ```
pub fn with_control<R>(control: std::sync::Arc<crate::update::Control>, f: impl FnOnce() -> R) -> R {
    scoped(|o| o.control = Some(control), f)
}

/// Run `f` with `live` handed to the first algorithm run that starts on
/// this thread inside it: its elastic operators that follow their load
/// ask `live` for their policy (`deploy::LiveScaling`). The facade's
/// `ohua::service` sets one, for `Service::set_scaling`.
///
/// # Example
///
/// ```
/// use ohua_runtime::context::with_live_scaling;
/// use ohua_runtime::deploy::LiveScaling;
/// let x = with_live_scaling(LiveScaling::default(), || 40 + 2); // no run: nothing taken
/// assert_eq!(x, 42);
/// ```
pub fn with_live_scaling<R>(live: crate::deploy::LiveScaling, f: impl FnOnce() -> R) -> R {
    scoped(|o| o.live_scaling = Some(live), f)
}

/// Take the policy [`with_live_scaling`] set for this thread's next run.
pub(crate) fn take_live_scaling() -> Option<crate::deploy::LiveScaling> {
    OPTIONS.with(|o| o.borrow_mut().live_scaling.take())
}

/// Take the control [`with_control`] set for this thread's next run.
pub(crate) fn take_control() -> Option<std::sync::Arc<crate::update::Control>> {
    OPTIONS.with(|o| o.borrow_mut().control.take())
}

/// Run `f` as part of a run ([`Options::inside_run`]).
pub(crate) fn inside_run<R>(f: impl FnOnce() -> R) -> R {
    scoped(|o| o.inside_run = true, f)
}

/// Whether this thread runs part of a run ([`Options::inside_run`]).
pub(crate) fn is_inside_run() -> bool {
    OPTIONS.with(|o| o.borrow().inside_run)
}

/// A copy of this thread's options, to hand to section threads.
pub(crate) fn snapshot() -> Options {
    OPTIONS.with(|o| o.borrow().clone())
}

/// Make `opts` this thread's options (for a freshly spawned section thread).
pub(crate) fn install(opts: Options) {
    OPTIONS.with(|o| *o.borrow_mut() = opts);
}

/// Hand a finished run's report to every enclosing [`profile`].
pub(crate) fn record(opts: &Options, report: &RunReport) {
    for c in &opts.collectors {
        c.lock().unwrap_or_else(|e| e.into_inner()).push(report.clone());
    }
}
