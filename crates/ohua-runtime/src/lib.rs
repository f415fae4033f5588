//! Runtime of Ohua: executes the dataflow graphs the compiler extracts from
//! `#[ohua::algorithm]` functions.
//!
//! A compiled algorithm is a static [`graph::GraphInfo`] plus generated code
//! that instantiates its operators ([`node`]) and connects them with bounded
//! single-producer single-consumer arcs ([`arc`], [`port`]). The deployment
//! ([`deploy`]) partitions the operators into *sections*; [`exec::execute`]
//! runs every section on its own thread (the caller's, or a worker of a
//! process-wide pool), fusing the operators inside a
//! section into one loop. [`report`] describes what ran, and [`context`]
//! carries per-thread run options (deployment override, profiling,
//! sequential mode).
//!
//! The modules are layered: each uses only modules of lower rows of the
//! table in `LAYERS.md` (in this crate's directory), so there are no import
//! cycles between them.
//! `tests/layers.rs` checks it.
//!
//! # Example
//!
//! A one-operator graph whose sink hands a constant to the caller:
//!
//! ```
//! use ohua_runtime::exec::{execute, ResultSlot};
//! use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};
//! use ohua_runtime::node::{Node, Step};
//!
//! struct Answer(ResultSlot<u32>);
//! impl Node for Answer {
//!     fn step(&mut self, _budget: usize) -> Step {
//!         self.0.set(42);
//!         Step::Done
//!     }
//!     fn flush(&mut self) {}
//! }
//!
//! static G: GraphInfo = GraphInfo {
//!     algorithm: "answer",
//!     nodes: &[NodeInfo { name: "answer/result#0", kind: OpKind::Sink, depth: 0, label: "42", replicable: false }],
//!     arcs: &[],
//! };
//! let v = execute(&G, |b| {
//!     let slot = b.result_slot();
//!     b.node(0, Answer(slot.clone()));
//!     slot
//! });
//! assert_eq!(v, 42);
//! ```

#![warn(missing_docs)]

#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __macro_support;
pub mod arc;
pub mod context;
pub mod deploy;
pub mod exec;
pub mod graph;
pub mod io;
pub mod keyed;
pub mod node;
pub mod packet;
mod pool;
pub mod port;
pub mod report;
mod stats;
pub(crate) mod sync;
#[cfg(all(test, not(loom)))]
mod tests;
pub mod update;
mod util;
