//! The conformance suite's algorithm tests, one test binary: each file is a
//! module (`constructs::`, `replication::`, ...). As 19 binaries they
//! compiled the runtime's operators for the same port types 19 times and
//! linked 19 times: 490 s of CI's cold release build on 2 cores
//! (BENCHMARKS.md, "CI time"). Files whose tests change the process
//! (environment variables, the configuration file, the worker pool, what
//! the auto planner learned) or resolve `crate::` paths stay binaries of
//! their own (`Cargo.toml`). Run one file's tests with a filter:
//! `cargo test -p ohua-conformance --test conformance -- replication::`.

mod constructs;
mod regressions;
mod streaming;
mod fusion;
mod replication;
mod io_batching;
mod io_writes;
mod io_async;
mod live_update;
mod live_state;
mod live_checkpoint;
mod live_structure;
mod live_replace;
mod live_rescale;
mod runtime_contract;
mod live_rollback;
mod live_panics;
mod live_stop;
mod live_timeouts;
