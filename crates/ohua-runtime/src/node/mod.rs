//! Dataflow operators.
//!
//! Every operator implements [`Node`]. The compiler emits only the operator
//! kinds in this module; each obeys the stream format described in
//! `node/README.md` (data, end-of-activation markers, sticky inputs).
//!
#![doc = include_str!("README.md")]

/// Result of one [`Node::step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The node did this many units of work (firings or forwarded markers).
    Progress(usize),
    /// The node can do nothing until an input gains data or an output gains room.
    Blocked,
    /// The node is finished: every input is closed and nothing is pending.
    /// The section drops it, which closes its outputs downstream.
    Done,
}

impl Step {
    /// The outcome of a step that did `work` units: progress, or blocked if none.
    #[inline]
    pub fn after(work: usize) -> Step {
        if work > 0 {
            Step::Progress(work)
        } else {
            Step::Blocked
        }
    }
}

/// A dataflow operator.
///
/// A section calls `step` repeatedly on each of its nodes and `flush` after
/// each step, so wake-ups to other sections are issued once per step.
///
/// # Example
///
/// An operator that is done at its first step: see the unit test
/// `an_operator_may_be_done_at_its_first_step`.
pub trait Node: Send {
    /// Do at most `budget` firings. Must never block the thread on an arc.
    fn step(&mut self, budget: usize) -> Step;
    /// Wake the sections on the other ends of ports touched since the last flush.
    fn flush(&mut self);
    /// The state of the node's ports, for stall diagnostics (`OHUA_STALL_DUMP`).
    fn describe(&self) -> String {
        String::new()
    }
    /// Called once before a service run starts (a run with an
    /// [`update::Control`](crate::update::Control)): an operator that can
    /// see control markers keeps what it needs to handle them. Runs without
    /// control never call it and never carry markers.
    fn attach(&mut self, _at: &marks::Attach) {}
}

/// A boxed operator is an operator (a probe wraps the boxed replica it
/// times, `elastic.rs`).
impl<N: Node + ?Sized> Node for Box<N> {
    fn step(&mut self, budget: usize) -> Step {
        (**self).step(budget)
    }
    fn flush(&mut self) {
        (**self).flush()
    }
    fn describe(&self) -> String {
        (**self).describe()
    }
    fn attach(&mut self, at: &marks::Attach) {
        (**self).attach(at)
    }
}

/// The operators the generated code builds, one line per file:
/// `module => {Types}` declares `pub mod module;` and re-exports its types
/// in [`kinds`], which `macro_support` (the facade's `ohua::__private`)
/// re-exports whole. Adding an operator kind: its file `node/<kind>.rs`
/// and one line here (plus, in the compiler, its `graph/ops/` file and
/// `kinds!` line).
macro_rules! operators {
    ($($module:ident => {$($ty:ident),*};)*) => {
        $(pub mod $module;)*

        /// Every operator type the generated code names (see `operators!`).
        pub mod kinds {
            $(pub use super::$module::{$($ty),*};)*
        }
    };
}

operators! {
    // `await`: the answer of a fetch.
    await_io => {Await};
    // `switch` and `merge`: branches.
    branch => {Merge, Switch};
    // `carry` and `loop`: values carried around a loop.
    carry => {Carry, LoopCarry};
    // Fused chains of calls (a piece of several call nodes).
    chain => {Link};
    // `smap` and `collect`: entering and leaving a `for` loop.
    smap => {Collect, SMap};
    // `source` and `sink`: parameters, the tick, the result.
    source => {Sink, Source};
    // A call's sticky (state) input.
    sticky => {Sticky};
}

pub(crate) mod blocking;
pub mod call;
mod describe;
pub mod elastic;
pub mod fan;
mod follow;
pub mod inputs;
pub mod install;
pub mod keyed;
pub mod keyed_sticky;
mod local_first;
pub mod marks;
pub mod outputs;
pub(crate) mod path;
mod rebalance;
mod regroup;
pub(crate) mod remeasure;
pub mod remote_lane;
pub mod remote_values;
pub mod replicate;
pub(crate) mod slot;

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Node`'s example.
    #[test]
    fn an_operator_may_be_done_at_its_first_step() {
        use crate::node::{Node, Step};
        struct Nop;
        impl Node for Nop {
            fn step(&mut self, _budget: usize) -> Step {
                Step::Done
            }
            fn flush(&mut self) {}
        }
        assert_eq!(Nop.step(8), Step::Done);
    }
}
