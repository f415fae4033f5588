//! Tests that run hand-built graphs through `exec::execute`, standing in
//! for the code `#[ohua::algorithm]` generates: streaming through a
//! pipeline under every section strategy (`pipeline.rs`), operator panics
//! (`panic.rs`), and an operator that blocks its thread (`blocking.rs`).
//! They were integration tests (`tests/*.rs`) until `exec`, `node`, `port`
//! and `packet` became private to the crate (issue 22).
//!
//! They share the process of the unit tests, so what is process-wide is
//! taken care of:
//!
//! * The worker pool (`pool.rs`): its tests count and reuse its workers. A
//!   test that runs a graph holds [`runs_graphs`] while it does, and the
//!   pool's tests hold [`pool_alone`].
//! * What the `auto` planner learned per graph (`deploy/learned.rs`, keyed
//!   by the graph's `static`): the graphs of `common/graphs.rs` are run only
//!   here, and the integration tests that plan graphs (`tests/plan.rs`,
//!   `tests/dot.rs`) run in processes of their own.
//! * The process configuration (`OHUA_*`, read once): no unit test changes
//!   the environment. The test of the environment variables is the
//!   conformance crate's `tests/tests/env.rs`, alone in its process.

mod blocking;
mod common;
mod hosting;
mod panic;
mod pipeline;

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Held shared by tests that run graphs, exclusively by the tests of the
/// worker pool.
static POOL: RwLock<()> = RwLock::new(());

/// Taken by a test before it runs a graph (its sections and I/O calls are
/// jobs of the process-wide worker pool): such tests run side by side, but
/// not beside a test of the pool itself ([`pool_alone`]). Take it on the
/// test's thread, before anything runs, and never inside a run: a run
/// waiting for it while a pool test waits would not finish.
pub(crate) fn runs_graphs() -> RwLockReadGuard<'static, ()> {
    POOL.read().unwrap_or_else(|e| e.into_inner())
}

/// Taken by the tests of the worker pool (`pool.rs`), which count and
/// reuse its workers: one at a time, and while no test runs a graph.
pub(crate) fn pool_alone() -> RwLockWriteGuard<'static, ()> {
    POOL.write().unwrap_or_else(|e| e.into_inner())
}
