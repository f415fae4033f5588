//! Shared state read in parallel (InContext's contexts, issue 24): a state
//! object whose `&self` calls may run on snapshots while its `&mut self`
//! calls keep their sequential order.
//!
//! Rust's receivers already say what InContext's annotations say: a
//! `&mut self` method reads and writes the state (InContext's *global*
//! context), a `&self` method only reads it (*anon*), and a free function
//! touches no state (*none*). A state declared with [`snapshot`] runs its
//! `&mut self` calls once, in program order, on the live state, and hands
//! each `&self` call that is a statement of its own (`let v = s.m(args);`)
//! a snapshot: the state as it is after every earlier write and before any
//! later one. The call then runs beside the writes that follow it, on a
//! replica where the deployment gives it replicas, and its result leaves
//! in sequential order.
//!
//! A snapshot is the live state's `Arc`, shared, not copied: a write copies
//! the state only when it finds a reader still holding
//! the version it would change. A state type whose `Clone` is cheap (a
//! persistent map such as the `im` crate's) makes those copies cheap.
//!
//! A write that copies keeps the version it copied away from as a *spare*;
//! once that version's readers are done, the next copy is made into it with
//! [`Clone::clone_from`] instead of into new memory: for a state whose
//! `clone_from` re-uses its buffers (`Vec`'s and `String`'s do; write one
//! field by field for a large `#[derive(Clone)]` struct), no allocation and
//! no page faults on the writer's thread. Each state times its first copies
//! of both kinds and keeps spares only while they are not slower
//! (`recycle.rs`).
//!
//! ```
//! # use ohua_runtime::snapshot::{snapshot, Snapshot};
//! #[derive(Clone, Default)]
//! struct Routes(Vec<(u64, u64)>);
//! impl Routes {
//!     fn add(&mut self, from: u64, to: u64) { self.0.push((from, to)); }
//!     fn lookup(&self, from: u64) -> Option<u64> {
//!         self.0.iter().rev().find(|r| r.0 == from).map(|r| r.1)
//!     }
//! }
//! let mut routes = snapshot(Routes::default()); // in an algorithm: reads on snapshots
//! routes.add(1, 7);
//! let seen = Snapshot::share(&mut routes); // what a `&self` call reads
//! routes.add(1, 9); // the reader still holds the old version: one copy
//! assert_eq!((seen.lookup(1), routes.lookup(1)), (Some(7), Some(9)));
//! assert_eq!((Snapshot::stats(&routes).taken, Snapshot::stats(&routes).copies), (1, 1));
//! ```
//!
//! How the compiler tells the two kinds of method apart without seeing the
//! state's `impl` is in `probe.rs`.

mod check;
mod counts;
mod probe;
mod recycle;
mod values;

pub use check::{changed_by, check_snapshots, checking, ByDebug, ByEq, Compare, Unchecked};
pub use counts::{Counting, Counts};
pub use probe::{Consumer, Neither, Probe, Reader, Step, Writer};
pub use values::{type_only, CloneIt, MaybeClone, NoClone};

use std::fmt;
use std::ops::{Deref, DerefMut};

use recycle::Recycling;

// The protocol's one primitive, through `sync` so the loom model
// (`loom_model.rs`) explores the hand-off of a snapshot to a reader on
// another thread and the write's copy-or-not.
use crate::sync::Arc;

/// A state object whose `&self` calls may read snapshots (see the module
/// docs). Made by [`snapshot`]; it dereferences to the state, so the
/// algorithm calls the state's methods on it as before.
///
/// Its own functions are associated functions (`Snapshot::stats(&s)`), not
/// methods, so that none hides a method of the state.
pub struct Snapshot<T> {
    live: Arc<T>,
    /// The version the last copy was made from, kept so that the next copy
    /// can be made into its memory once its readers let it go.
    spare: Option<Arc<T>>,
    recycling: Recycling,
    stats: SnapshotStats,
}

/// What a [`Snapshot`] state did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SnapshotStats {
    /// Snapshots handed to `&self` calls.
    pub taken: u64,
    /// Writes that found a reader still holding the state and copied it.
    pub copies: u64,
    /// Of the copies, those made into the memory of an earlier version
    /// whose readers were done (`Clone::clone_from`; see the module docs).
    pub reused: u64,
}

/// Declare a state whose `&self` calls may run on snapshots, in parallel
/// with each other and with the `&mut self` calls after them. It costs the
/// one line; the state's type must be `Clone` (a write copies the state if
/// a reader still holds it) and `Send + Sync` (readers on other threads
/// share it).
///
/// In an algorithm the compiler needs the state's type by name, to tell its
/// `&self` methods from its `&mut self` ones: it reads it from the
/// argument (`snapshot(Routes::new())`, `snapshot(Routes { .. })`,
/// `snapshot(Total(0))`) or from
/// a turbofish (`snapshot::<Routes>(load())`).
///
/// # Example
///
/// ```
/// # use ohua_runtime::snapshot::snapshot;
/// let mut names = snapshot(Vec::<String>::new());
/// names.push("a".into()); // a `&mut self` call, on the live state
/// assert_eq!(names.len(), 1); // a `&self` call
/// ```
pub fn snapshot<T: Clone + Send + Sync>(state: T) -> Snapshot<T> {
    Snapshot::of(state)
}

impl<T> Snapshot<T> {
    /// `state` as a snapshot state that no reader holds yet.
    fn of(state: T) -> Self {
        Snapshot {
            live: Arc::new(state),
            spare: None,
            recycling: Recycling::default(),
            stats: SnapshotStats::default(),
        }
    }

    /// The current version, shared: what a `&self` call reads. Counted in
    /// [`SnapshotStats::taken`].
    pub fn share(this: &mut Self) -> Arc<T> {
        this.stats.taken += 1;
        counts::taken();
        Arc::clone(&this.live)
    }

    /// The live state, to write: copied first if a reader still holds it
    /// (counted in [`SnapshotStats::copies`]), into the spare version's
    /// memory if its readers are done (counted in [`SnapshotStats::reused`]).
    pub fn write(this: &mut Self) -> &mut T
    where
        T: Clone,
    {
        // `Arc::make_mut`, spelled out: loom's `Arc` has no `make_mut`, and
        // a state has no weak references for it to handle.
        if Arc::get_mut(&mut this.live).is_none() {
            this.stats.copies += 1;
            counts::copied();
            let copy = this.recycling.copy(&this.live, this.spare.take(), &mut this.stats);
            let copied_from = std::mem::replace(&mut this.live, copy);
            if this.recycling.keeps_spares() {
                this.spare = Some(copied_from);
            }
        }
        Arc::get_mut(&mut this.live).expect("a state just copied has no other holder")
    }

    /// Snapshots taken and copies made so far.
    pub fn stats(this: &Self) -> SnapshotStats {
        this.stats
    }

    /// The state itself (a copy if a reader still holds it).
    pub fn into_inner(this: Self) -> T
    where
        T: Clone,
    {
        Arc::try_unwrap(this.live).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl<T> Deref for Snapshot<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.live
    }
}

/// A `&mut self` call writes the live state, copying it first if a reader
/// still holds it.
impl<T: Clone> DerefMut for Snapshot<T> {
    fn deref_mut(&mut self) -> &mut T {
        Snapshot::write(self)
    }
}

/// A checkpoint (`update::Checkpoint`, with `StateKinds::with::<Snapshot<T>>()`)
/// saves the live state as `T` saves itself; readers' snapshots are
/// versions before it, which the checkpoint's cut has no use for.
impl<T: serde::Serialize> serde::Serialize for Snapshot<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (*self.live).serialize(serializer)
    }
}

/// A restored snapshot state: the saved live state, no reader yet.
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Snapshot<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Snapshot::of)
    }
}

impl<T: fmt::Debug> fmt::Debug for Snapshot<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

#[cfg(all(test, loom))]
mod loom_model;
#[cfg(test)]
mod tests;
