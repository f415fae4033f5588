//! Running a run's sections: one on the calling thread, the others on
//! workers of the pool (`pool.rs`), each named `ohua-<algorithm>-s<k>`
//! while it runs the section.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::pool::Scope;
use super::section::{Counters, Section};
use super::shared::{panic_message, Failure, RunShared};
use crate::context::{self, Options};
use crate::graph::GraphInfo;
use crate::sync::process::Mutex;

/// Run all `sections` to completion (or abort) and return every operator's
/// counters by node id. Returns only after every section has finished.
pub(crate) fn run_sections<'a>(
    graph: &GraphInfo,
    sections: Vec<Section<'a>>,
    shared: &RunShared,
    opts: &Options,
) -> Vec<(usize, Counters)> {
    let mut sections = sections.into_iter();
    let Some(first) = sections.next() else { return Vec::new() };
    let counters = Mutex::new(Vec::new());
    {
        // Declared after `counters` and dropped before it: the scope waits
        // for every pooled section, so they may borrow it, the graph's data
        // and the caller's.
        let scope = Scope::new();
        for (i, section) in sections.by_ref().enumerate() {
            let k = i + 1;
            let opts = opts.clone();
            let counters = &counters;
            let spawned = scope.spawn(format!("ohua-{}-s{k}", graph.algorithm), move || {
                // Nested runs inside operators must see the caller's options;
                // the worker forgets them when the section is done.
                context::install(opts);
                let c = guarded(k, shared, || section.run(shared, graph));
                context::install(Options::default());
                counters.lock().unwrap_or_else(|e| e.into_inner()).extend(c);
            });
            if let Err(e) = spawned {
                shared.fail(Failure::Runtime(format!("cannot start a thread for section {k}: {e}")));
                break;
            }
        }
        // After a failed start the rest never run: close their arcs.
        for section in sections {
            let c = section.finish(shared, graph);
            counters.lock().unwrap_or_else(|e| e.into_inner()).extend(c);
        }
        let c = guarded(0, shared, || first.run(shared, graph));
        counters.lock().unwrap_or_else(|e| e.into_inner()).extend(c);
    }
    counters.into_inner().unwrap_or_else(|e| e.into_inner())
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
