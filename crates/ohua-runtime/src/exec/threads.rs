//! Running a run's sections: one on the calling thread, the others on
//! workers of the pool (`src/pool.rs`), each named `ohua-<algorithm>-s<k>`
//! while it runs the section; and, while they run, watched by the monitor
//! (`monitor.rs`), which starts another driver on the pool for a section
//! whose thread is stuck in a step.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::monitor::{self, Watched};
use super::rescue::Beat;
use super::section::{CounterSink, Counters, Role, Section};
use super::shared::{Failure, RunShared};
use crate::context::{self, Options};
use crate::graph::GraphInfo;
use crate::pool::{self, Scope};
use crate::util::panic_message;

/// Run all `sections` to completion (or abort) and return every operator's
/// counters by node id. Returns only after every section has finished.
pub(crate) fn run_sections(
    graph: &GraphInfo,
    sections: &[Section<'_>],
    shared: &RunShared,
    opts: &Options,
) -> Vec<(usize, Role, usize, Counters)> {
    let Some((first, others)) = sections.split_first() else { return Vec::new() };
    let counters = CounterSink::new(Vec::new());
    {
        // Declared after `counters` and dropped before it: the scope waits
        // for every pooled section, so they may borrow it, the graph's data
        // and the caller's.
        let scope = Scope::new();
        let run = Run { graph, sections, shared, opts, scope: &scope, counters: &counters };
        // SAFETY: `run` lives until the end of this block; the registration
        // is dropped before it, after every section has finished.
        let registration = unsafe { monitor::register(&run) };
        let counters = &counters;
        let mut unstarted = others.iter();
        for (k, section) in unstarted.by_ref().enumerate().map(|(i, s)| (i + 1, s)) {
            if let Err(e) = run.start(k, move || section.run(shared, graph, counters, sections)) {
                shared.fail(Failure::Runtime(format!("cannot start a thread for section {k}: {e}")));
                break;
            }
        }
        // After a failed start the rest never run: close their arcs.
        for section in unstarted {
            section.finish(shared, graph, counters);
            if let Some(quiet) = shared.quiet() {
                quiet.leave();
            }
        }
        let name = format!("ohua-{}-s0", graph.algorithm);
        pool::as_job(name, || guarded(0, shared, || first.run(shared, graph, counters, sections)));
        // Rescue drivers are jobs of the scope too: once they are all done,
        // no section is driven or stuck, and the monitor has nothing left
        // to start for this run.
        scope.wait();
        drop(registration);
    }
    counters.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// What the monitor sees of a run while it is registered.
struct Run<'r, 'a> {
    graph: &'r GraphInfo,
    sections: &'r [Section<'a>],
    shared: &'r RunShared,
    opts: &'r Options,
    scope: &'r Scope<'r>,
    counters: &'r CounterSink,
}

impl<'r> Run<'r, '_> {
    /// Run `drive` as section `k` on a pool worker, with the caller's options.
    fn start(&self, k: usize, drive: impl FnOnce() + Send + 'r) -> std::io::Result<()> {
        let opts = self.opts.clone();
        let shared = self.shared;
        self.scope.spawn(format!("ohua-{}-s{k}", self.graph.algorithm), move || {
            // Nested runs inside operators must see the caller's options;
            // the worker forgets them when the section is done.
            context::install(opts);
            guarded(k, shared, drive);
            context::install(Options::default());
        })
    }
}

impl Watched for Run<'_, '_> {
    fn streaming(&self) -> bool {
        // A run that fetches is watched closely too: a blocked step stops
        // counting as running after a tick (`io/README.md`).
        self.shared.streaming() || self.shared.io().is_some()
    }

    fn check(&self) {
        for (k, section) in self.sections.iter().enumerate() {
            section.check(self.shared, self.sections, |id, beat: std::sync::Arc<Beat>| {
                let (shared, graph, counters, peers) = (self.shared, self.graph, self.counters, self.sections);
                self.start(k, move || section.drive(id, beat, shared, graph, counters, peers))
            });
        }
        // A run whose source blocks is not quiet while items keep arriving
        // faster than its sections park (a server under steady load): its
        // queued requests go out at least once a tick instead of when the
        // arcs back up (`io/README.md`, "Streaming runs").
        if self.shared.source_blocked() {
            self.shared.dispatch_io();
        }
    }
}

/// Run section `k`'s driver; a panic escaping it (a runtime bug, as
/// operator panics are caught per step) aborts the run instead of leaving
/// the other sections waiting for it.
fn guarded(k: usize, shared: &RunShared, drive: impl FnOnce()) {
    if let Err(p) = catch_unwind(AssertUnwindSafe(drive)) {
        shared.fail(Failure::Runtime(format!("section {k} failed: {}", panic_message(&*p))));
    }
}
