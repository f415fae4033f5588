//! Building and running a dataflow graph.
//!
//! [`execute`] plans the deployment, lets generated code build the graph
//! through a [`Builder`], runs every section and returns the value the sink
//! left in the [`ResultSlot`].
//!
//! A section steps its operators in topological order, each for up to
//! `batch_size` firings, and parks its thread when a full pass (plus a short
//! bounded back-off) made no progress. Arcs between sections wake the other
//! side at most once per operator step, never per message. The sleep/wake,
//! shutdown and abort protocols are described in this folder's `README.md`.
//!
#![doc = include_str!("README.md")]

pub(crate) mod builder;
mod call_ports;
mod checks;
mod handover;
mod hosting;
mod live;
mod monitor;
mod observe;
mod parts;
mod recut;
mod rescue;
mod run;
mod section;
mod serialized;
pub(crate) mod shared;
mod threads;
mod timing;

pub use crate::node::slot::ResultSlot;
pub use builder::Builder;
pub use checks::{crosses_processes, crossing, shared};
pub use parts::part;
pub use run::{execute, execute_cluster};
