//! Running a run's sections: one on the calling thread, the others on
//! scoped threads named `ohua-<algorithm>-s<k>`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::section::{Counters, Section};
use super::shared::{panic_message, Failure, RunShared};
use crate::context::{self, Options};
use crate::graph::GraphInfo;
use crate::sync::thread;

/// Run all `sections` to completion (or abort) and return every operator's
/// counters by node id. Returns only after every spawned thread has joined.
pub(crate) fn run_sections<'a>(
    graph: &GraphInfo,
    sections: Vec<Section<'a>>,
    shared: &RunShared,
    opts: &Options,
) -> Vec<(usize, Counters)> {
    let mut sections = sections.into_iter();
    let Some(first) = sections.next() else { return Vec::new() };
    // Scoped threads let graphs borrow non-'static data from the caller, and
    // guarantee no section thread outlives the run.
    thread::scope(|scope| {
        let mut handles = Vec::new();
        let mut counters = Vec::new();
        for (i, section) in sections.by_ref().enumerate() {
            let k = i + 1;
            let opts = opts.clone();
            let spawned =
                thread::Builder::new().name(format!("ohua-{}-s{k}", graph.algorithm)).spawn_scoped(scope, move || {
                    // Nested runs inside operators must see the caller's options.
                    context::install(opts);
                    guarded(k, shared, || section.run(shared, graph))
                });
            match spawned {
                Ok(h) => handles.push((k, h)),
                Err(e) => {
                    shared.fail(Failure::Runtime(format!("cannot spawn section thread {k}: {e}")));
                    break;
                }
            }
        }
        // After a failed spawn the rest never run: close their arcs.
        for section in sections {
            counters.extend(section.finish(shared, graph));
        }
        counters.extend(guarded(0, shared, || first.run(shared, graph)));
        for (k, h) in handles {
            match h.join() {
                Ok(c) => counters.extend(c),
                Err(p) => shared.fail(Failure::Runtime(format!("section thread {k} died: {}", panic_message(&*p)))),
            }
        }
        counters
    })
}

/// Run section `k`'s loop; a panic escaping it (a runtime bug, as operator
/// panics are caught per step) aborts the run instead of leaving the other
/// sections waiting for it.
fn guarded(k: usize, shared: &RunShared, run: impl FnOnce() -> Vec<(usize, Counters)>) -> Vec<(usize, Counters)> {
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|p| {
        shared.fail(Failure::Runtime(format!("section {k} failed: {}", panic_message(&*p))));
        Vec::new()
    })
}
