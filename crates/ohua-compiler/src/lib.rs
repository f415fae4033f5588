//! The Ohua compiler: turns an algorithm written in a subset of Rust into a
//! dataflow graph, and the graph into Rust that runs it on `ohua-runtime`.
//!
//! Pipeline (each stage can be printed, see [`pipeline::Compiled::stage`]):
//!
//! ```text
//! syn::ItemFn ─frontend─► ast ─passes::resolve─► ir (SSA, threaded state, loops)
//!             ─passes::lower─► graph (contexts, switch/merge, smap, carry) ─codegen─► tokens
//! ```
//!
//! The modules are layered: each uses only modules of lower rows of the
//! table in `LAYERS.md` (in this crate's directory), so there are no import
//! cycles between them. `tests/layers.rs` checks it.
//!
//! Operator kinds live in [`graph::ops`], one file each (name, ports and
//! the code that builds the operator), registered in one list there; the
//! lowering, the graph printers and code generation go through that list.
//! Adding a kind is one file there plus one line in the list, and in the
//! runtime its operator (`ohua-runtime/src/node/<kind>.rs`) plus one line
//! in its `operators!` list (and one in `op_kinds!` only if the runtime
//! must see a new kind name).
#![warn(missing_docs)]

pub mod codegen;
pub mod error;
pub mod frontend;
pub mod graph;
pub mod ir;
pub mod passes;
pub mod pipeline;
pub mod updatable;

pub use pipeline::{compile, compile_with, expand, expand_fn, expand_mod, Compiled, Options};
