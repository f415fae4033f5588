//! What the code `#[ohua::algorithm]` generates refers to, in one place.
//! Not a stable API.
//!
//! The facade re-exports this module whole as `ohua::__private`, and the
//! compiler's code generation (`ohua-compiler`'s `codegen/` and
//! `graph/ops/`) names these items through it (`__ohua::Source`,
//! `::ohua::__private::io::submit`, ...). The operator types come whole
//! from `node::kinds` (the `operators!` list in `node/mod.rs`), so a new
//! operator kind changes nothing here nor in the facade.

pub use crate::context::is_sequential;
pub use crate::exec::{crosses_processes, crossing, execute, execute_cluster, part, shared};
pub use crate::graph::EncodedGraph;
/// The operators (`await`, `switch`, `smap`, ...): one list in `node/mod.rs`.
pub use crate::node::kinds::*;
pub use crate::port::{In, Out};
/// A receiver parameter's loop: stoppable while it waits (`update::interrupt`).
pub use crate::update::interrupt::{Candidate, ViaRecvTimeout, ViaValue};

// Not used by generated code: the conformance suite's marker helper
// (`tests/src/lib.rs`, `with_markers`) reaches the update control here.
pub use crate::context::with_control;
pub use crate::update::{Action, Control};

/// What a call on a snapshot state becomes (`graph/snapshot.rs` in the compiler).
pub mod snapshot {
    pub use crate::snapshot::{
        changed_by, checking, type_only, ByDebug, ByEq, CloneIt, Compare, Consumer, MaybeClone, Neither, NoClone,
        Probe, Reader, Snapshot, Step, Unchecked, Writer,
    };
}

/// What a fetch statement becomes (`frontend/fetch.rs` in the compiler).
pub mod io {
    pub use crate::io::{submit, Order};
}
