//! What the code `#[ohua::algorithm]` generates refers to, in one place.
//! Not a stable API.
//!
//! The facade re-exports this module whole as `ohua::__private`, and the
//! compiler's code generation (`ohua-compiler`'s `codegen/` and
//! `graph/ops/`) names these items through it (`__ohua::Source`,
//! `::ohua::__private::io::submit`, ...). An operator kind the compiler
//! emits adds its runtime type here; nothing else in the facade changes.

pub use crate::context::is_sequential;
pub use crate::exec::{crossing, execute, part, shared};
pub use crate::graph::EncodedGraph;
pub use crate::node::await_io::Await;
pub use crate::node::branch::{Merge, Switch};
pub use crate::node::carry::{Carry, LoopCarry};
pub use crate::node::chain::Link;
pub use crate::node::smap::{Collect, SMap};
pub use crate::node::source::{Sink, Source};
pub use crate::node::sticky::Sticky;
pub use crate::port::{In, Out};
/// A receiver parameter's loop: stoppable while it waits (`update::interrupt`).
pub use crate::update::interrupt::{Candidate, ViaRecvTimeout, ViaValue};

// Not used by generated code: the conformance suite's marker helper
// (`tests/src/lib.rs`, `with_markers`) reaches the update control here.
pub use crate::context::with_control;
pub use crate::update::{Action, Control};

/// What a fetch statement becomes (`frontend/fetch.rs` in the compiler).
pub mod io {
    pub use crate::io::{submit, Order};
}
