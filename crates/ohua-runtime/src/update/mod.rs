//! Live updates of a running algorithm (dissertation ch. 5): control markers
//! that travel with the data through the arcs, and what operators do when
//! one passes them.
//!
//! A run started as a service ([`Control`], the facade's `ohua::service`)
//! accepts requests for markers. The loop entry (`smap`) of every top-level
//! loop inserts each requested marker between two iterations; every operator
//! of the loop body forwards it in stream order, so all of them see it
//! between the same two iterations: a consistent cut. An operator that a
//! marker's [`Action`] concerns acts on it when it passes: it adopts the
//! function replacements of an update ([`Versions`]), so every iteration
//! before the cut runs entirely on the old functions and every iteration
//! after it entirely on the new ones, in all operators at once. The design
//! and its protocol are in `update/README.md`.
//!
//! # Example
//!
//! ```
//! use ohua_runtime::update::{Action, Control};
//! let control = Control::new();
//! let marker = control.request(Action::NoOp);
//! // Without a running loop nobody inserts it; a finished run fails it.
//! control.finish();
//! assert!(marker.wait().is_err());
//! ```
//!
#![doc = include_str!("README.md")]

mod checkpoint;
mod control;
mod dispatch;
mod handoff;
pub mod interrupt;
mod marker;
mod named;
mod pulled;
mod regroup;
mod slot;
mod state;
mod versions;

pub use checkpoint::{Checkpoint, SavedState, StateKinds};
pub use control::Control;
pub use dispatch::{dispatch, Dispatch};
pub use handoff::Handoff;
pub(crate) use marker::Outcome;
pub use marker::{Action, Changes, MarkError, MarkReport, Marker, Rejection};
pub use pulled::Pulled;
pub use regroup::Regroup;
pub use slot::{current, FnSlot, Replacement};
pub(crate) use state::VisitStates;
#[doc(hidden)]
pub use state::{Parts, StateRef};
pub use state::{State, Transform};
pub(crate) use versions::VersionScope;
pub use versions::Versions;

#[cfg(all(test, loom))]
mod loom_models;
