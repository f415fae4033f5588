//! Compiler passes, in pipeline order:
//!
//! 1. [`resolve`]: surface AST → SSA IR (name resolution, state threading,
//!    loop-carried and resident variables, inlining of algorithm calls, tail
//!    recursion to loops).
//! 2. [`prune`]: dead threaded versions and dead branch results removed.
//! 3. [`lower`]: SSA IR → dataflow graph (contexts, switch/merge, smap/collect,
//!    carry/loop, sticky inputs, ticks).

pub mod env;
pub mod lower;
pub mod prune;
pub mod resolve;
/// Shadow-aware use counting: defined in the frontend (which uses it for
/// borrows, as `graph` does for keyed regions), re-exported here where
/// resolution uses it.
pub use crate::frontend::scan;
