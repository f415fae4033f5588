//! Runtime of Ohua: executes the dataflow graphs the compiler extracts from
//! `#[ohua::algorithm]` functions.
//!
//! A compiled algorithm is a static [`graph::GraphInfo`] plus generated code
//! that instantiates its operators and connects them with bounded
//! single-producer single-consumer arcs. The deployment ([`deploy`])
//! partitions the operators into *sections*; a run executes every section
//! on its own thread (the caller's, or a worker of a process-wide pool),
//! fusing the operators inside a section into one loop. [`report`]
//! describes what ran, and [`context`] carries per-thread run options
//! (deployment override, profiling, sequential mode).
//!
//! Users reach the runtime through the `ohua` crate, which re-exports the
//! public modules' items. The operators, ports, arcs, packets and the
//! executor (modules `node`, `port`, `arc`, `packet`, `exec`) are internal:
//! the code `#[ohua::algorithm]` generates names what it needs through the
//! hidden `ohua::__private` (this crate's `__macro_support`), which is not
//! a stable API.
//!
//! The modules are layered: each uses only modules of lower rows of the
//! table in `LAYERS.md` (in this crate's directory), so there are no import
//! cycles between them.
//! `tests/layers.rs` checks it.
//!
//! # Example
//!
//! The deployment of a two-operator graph with one section per operator,
//! drawn as DOT with a cluster per section (what a run's
//! [`report::RunReport`] holds as its `graph` and `plan`):
//!
//! ```
//! use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
//! use ohua_runtime::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
//! use ohua_runtime::report::to_dot;
//!
//! static G: GraphInfo = GraphInfo {
//!     algorithm: "answer",
//!     file: "",
//!     nodes: &[
//!         NodeInfo { name: "answer/forty_two#0", kind: OpKind::Call, depth: 0, label: "forty_two()", replicable: false, line: 0 },
//!         NodeInfo { name: "answer/result#1", kind: OpKind::Sink, depth: 0, label: "x", replicable: false, line: 0 },
//!     ],
//!     arcs: &[ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false }],
//! };
//! let p = plan(&G, &Deployment::default().sections(SectionStrategy::PerOperator));
//! assert_eq!((p.sections, p.section_of.clone()), (2, vec![0, 1]));
//! let dot = to_dot(&G, Some(&p));
//! assert!(dot.contains("subgraph cluster_1 {"), "{dot}");
//! assert!(dot.contains("n0 -> n1"), "{dot}");
//! ```
//!
//! Running a graph is the generated code's part; the unit test
//! `exec::run::tests::a_one_operator_graph_hands_its_constant_to_the_caller`
//! builds and runs one by hand.

#![warn(missing_docs)]

#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __macro_support;
pub(crate) mod arc;
pub mod codec;
pub mod context;
pub mod deploy;
pub(crate) mod exec;
pub mod graph;
pub mod io;
pub mod keyed;
pub mod live;
pub(crate) mod node;
pub(crate) mod packet;
mod pool;
pub(crate) mod port;
pub mod remote;
pub mod report;
pub mod snapshot;
mod stats;
pub(crate) mod sync;
#[cfg(all(test, not(loom)))]
mod tests;
pub mod update;
mod util;
