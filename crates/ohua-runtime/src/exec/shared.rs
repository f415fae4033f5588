//! State every section of one run shares: the abort flag, the first failure
//! and the wakers.

use std::any::Any;

use crate::report::SectionStats;
use crate::sync::{AtomicBool, AtomicUsize, Mutex, Ordering, Waker};

/// Why a run was aborted. The first failure wins; later ones are consequences.
pub(crate) enum Failure {
    /// An operator panicked (in `step`, `flush` or its destructor).
    Operator {
        /// The operator's name from the graph.
        name: &'static str,
        /// The original panic payload, re-raised unchanged in the caller
        /// (as `JoinHandle::join` and rayon do), so code that downcasts it
        /// behaves as with sequential execution.
        payload: Box<dyn Any + Send>,
    },
    /// The runtime itself failed (a thread could not be spawned).
    Runtime(String),
}

/// The bit of [`RunShared::signal`] that aborts the run.
pub(crate) const ABORTED: usize = 1;
/// What a request to publish adds to [`RunShared::signal`] (never touches
/// [`ABORTED`]: the sum carries upwards, and wraps).
const PUBLISH: usize = 2;

/// Shared by the sections of one run, borrowed by their threads.
pub(crate) struct RunShared {
    /// [`ABORTED`], plus [`PUBLISH`] per request of the live view's to
    /// publish: one word, so a section's driver looks for both with the
    /// load it made for the abort alone ([`RunShared::signal`]).
    signal: AtomicUsize,
    /// An `SMap` of the run iterates a source that may block (monitor.rs).
    streaming: AtomicBool,
    /// ... and one of its `next()` calls did block (a channel, a socket).
    blocked: AtomicBool,
    failure: Mutex<Option<Failure>>,
    wakers: Vec<Waker>,
    sections: Mutex<Vec<SectionStats>>,
    /// The run's I/O state, if its graph fetches from data sources.
    io: Option<std::sync::Arc<crate::io::run::IoRun>>,
    /// Snapshots taken and copies made by the run's snapshot states.
    snapshots: crate::snapshot::Counts,
    /// Where the sections publish their counts, if the run is viewed live
    /// (`exec/live.rs`).
    live: Option<std::sync::Arc<crate::live::counts::LiveCounts>>,
}

impl RunShared {
    /// Shared state for a run whose sections are woken by `wakers`.
    pub(crate) fn new(wakers: Vec<Waker>, io: Option<std::sync::Arc<crate::io::run::IoRun>>) -> Self {
        let sections = Mutex::new(vec![SectionStats::default(); wakers.len()]);
        RunShared {
            signal: AtomicUsize::new(0),
            streaming: AtomicBool::new(false),
            blocked: AtomicBool::new(false),
            failure: Mutex::new(None),
            wakers,
            sections,
            io,
            snapshots: crate::snapshot::Counts::default(),
            live: None,
        }
    }

    /// Let the sections publish their counts to the live view.
    pub(crate) fn set_live(&mut self, counts: std::sync::Arc<crate::live::counts::LiveCounts>) {
        self.live = Some(counts);
    }

    /// Where the sections publish their counts, if the run is viewed live.
    #[inline]
    pub(crate) fn live(&self) -> Option<&crate::live::counts::LiveCounts> {
        self.live.as_deref()
    }

    /// The run's count of snapshots taken and copies made.
    pub(crate) fn snapshots(&self) -> &crate::snapshot::Counts {
        &self.snapshots
    }

    /// The run's I/O state, if its graph fetches from data sources.
    #[inline]
    pub(crate) fn io(&self) -> Option<&crate::io::run::IoRun> {
        self.io.as_deref()
    }

    /// Send the requests queued so far without waiting for the run to be
    /// quiet (the tick of a run whose source blocks, `io/README.md`,
    /// "Streaming runs").
    pub(crate) fn dispatch_io(&self) {
        if let Some(io) = &self.io {
            io.clone().dispatch();
        }
    }

    /// The run's quiescence count, if it fetches.
    #[inline]
    pub(crate) fn quiet(&self) -> Option<&crate::io::Quiet> {
        self.io.as_deref().map(|io| &**io.quiet())
    }

    /// Whether the run is being aborted; sections then drop their nodes and exit.
    #[inline]
    pub(crate) fn aborted(&self) -> bool {
        self.signal() & ABORTED != 0
    }

    /// The abort bit and the count of requests to publish: a driver that
    /// sees it change either retires ([`ABORTED`]) or publishes its counts
    /// (`exec/live.rs`).
    #[inline]
    pub(crate) fn signal(&self) -> usize {
        self.signal.load(Ordering::Acquire)
    }

    /// Record `failure` unless an earlier one was recorded, then abort the
    /// run: set the flag and wake every section so parked ones notice.
    pub(crate) fn fail(&self, failure: Failure) {
        {
            let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
            if slot.is_none() {
                *slot = Some(failure);
            }
        }
        // Set after storing so any section that sees the flag also finds the
        // failure; the wake after the store makes the parked ones look.
        self.signal.fetch_or(ABORTED, Ordering::Release);
        for w in &self.wakers {
            w.wake();
        }
    }

    /// Whether an operator of the run iterates a source that may block.
    pub(crate) fn streaming(&self) -> bool {
        self.streaming.load(Ordering::Relaxed)
    }

    /// Whether a loop's source of the run has blocked in `next()`.
    pub(crate) fn source_blocked(&self) -> bool {
        self.blocked.load(Ordering::Relaxed)
    }

    /// The flag [`RunShared::source_blocked`] reads.
    pub(crate) fn blocked_flag(&self) -> &AtomicBool {
        &self.blocked
    }

    /// The flag [`RunShared::streaming`] reads.
    pub(crate) fn streaming_flag(&self) -> &AtomicBool {
        &self.streaming
    }

    /// Record how section `index` waited.
    pub(crate) fn record_section(&self, index: usize, stats: SectionStats) {
        if let Some(s) = self.sections.lock().unwrap_or_else(|e| e.into_inner()).get_mut(index) {
            *s = stats;
        }
    }

    /// Every section's waiting statistics.
    pub(crate) fn section_stats(&self) -> Vec<SectionStats> {
        self.sections.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The operator whose panic aborted the run, if one did.
    pub(crate) fn panicked_operator(&self) -> Option<&'static str> {
        match &*self.failure.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(Failure::Operator { name, .. }) => Some(name),
            _ => None,
        }
    }

    /// The first failure, if any (taken after all sections joined).
    pub(crate) fn take_failure(&self) -> Option<Failure> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The live view asks every section whose driver is busy to publish its
/// counts at its next pass (a parked one published before it parked).
impl crate::live::counts::AskToPublish for RunShared {
    fn ask_to_publish(&self) {
        self.signal.fetch_add(PUBLISH, Ordering::Relaxed);
    }
}
