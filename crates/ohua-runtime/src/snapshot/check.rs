//! The check mode (InContext's conformance check, issue 24): a `&self`
//! method that writes through interior mutability (a `Mutex`, an atomic)
//! would lose its write on a snapshot, and the compiler cannot see it (a
//! `Cell` or `RefCell` it can: a snapshot state must be `Sync`).
//!
//! In check mode each `&self` call on a snapshot runs on the snapshot as
//! usual, and the state is compared with a copy taken before the call: by
//! `PartialEq` where the state has it, else by its `Debug` text, else not
//! at all ("autoref specialisation" on [`Compare`], in the generated code,
//! where the state's type is known). A call that changed the state panics,
//! naming the method. The check is on in the user's debug builds (the
//! generated code asks `cfg!(debug_assertions)`), with
//! `OHUA_CHECK_SNAPSHOTS=1`, and after [`check_snapshots`]`(true)`.

use std::fmt::Debug;

use crate::sync::process::{AtomicU8, Ordering};

/// 0: not decided yet, 1: off, 2: on.
static CHECKING: AtomicU8 = AtomicU8::new(0);

/// Whether `&self` calls on snapshots are checked in this process (in
/// release builds; debug builds always check).
pub fn checking() -> bool {
    match CHECKING.load(Ordering::Relaxed) {
        0 => {
            let on = std::env::var("OHUA_CHECK_SNAPSHOTS").is_ok_and(|v| v != "0" && !v.is_empty());
            CHECKING.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
        state => state == 2,
    }
}

/// Turn the check mode on or off for the whole process.
///
/// # Example
///
/// ```
/// ohua_runtime::snapshot::check_snapshots(true);
/// assert!(ohua_runtime::snapshot::checking());
/// ohua_runtime::snapshot::check_snapshots(false);
/// ```
pub fn check_snapshots(on: bool) {
    CHECKING.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// The state before a `&self` call and after it.
pub struct Compare<'a, T>(pub &'a T, pub &'a T);

/// Compared by `PartialEq` (found first: implemented for `&&Compare`).
pub trait ByEq {
    /// `Some(true)` if the call left the state as it was.
    fn unchanged(&self) -> Option<bool>;
}

/// Compared by `Debug` text.
pub trait ByDebug {
    /// `Some(true)` if the call left the state's `Debug` text as it was.
    fn unchanged(&self) -> Option<bool>;
}

/// Neither: not checked.
pub trait Unchecked {
    /// `None`: the state can be compared neither way.
    fn unchanged(&self) -> Option<bool> {
        None
    }
}

impl<T: PartialEq> ByEq for &&Compare<'_, T> {
    fn unchanged(&self) -> Option<bool> {
        Some(self.0 == self.1)
    }
}

impl<T: Debug> ByDebug for &Compare<'_, T> {
    fn unchanged(&self) -> Option<bool> {
        Some(format!("{:?}", self.0) == format!("{:?}", self.1))
    }
}

impl<T> Unchecked for Compare<'_, T> {}

/// Report a `&self` method that changed the state it read.
///
/// # Panics
///
/// Always, naming `method`.
pub fn changed_by(method: &str) -> ! {
    panic!(
        "ohua: `{method}` takes `&self` but changed the snapshot state it read (through a `Mutex`, an atomic or \
         another interior mutability): on a snapshot that change is lost to the calls after it. Make it \
         `&mut self`, or keep what it changes out of the snapshot state"
    )
}
