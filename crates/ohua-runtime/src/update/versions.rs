//! The replacements an operator has adopted, and the thread-local scope in
//! which replaceable functions find them.

use std::any::Any;
use std::cell::Cell;
use std::sync::Arc;

use super::marker::Changes;

/// The function replacements one operator has adopted, by slot. Shared
/// (`Arc`) between operators that adopted the same ones; an operator that
/// adopts more gets a new map (copy on write), so a map is never changed
/// while a function reads it.
#[derive(Default)]
pub struct Versions {
    entries: Vec<(usize, Arc<dyn Any + Send + Sync>)>,
}

impl Versions {
    /// The map after an operator running the nodes named `operators` saw a
    /// marker carrying `changes`, if a replacement in it applies to them.
    pub(crate) fn adopt(prev: Option<&Arc<Versions>>, changes: &Changes, operators: &[&str]) -> Option<Arc<Versions>> {
        let mut applies = changes.replacements.iter().filter(|r| operators.iter().any(|o| r.applies_to(o))).peekable();
        applies.peek()?;
        let mut entries = prev.map(|p| p.entries.clone()).unwrap_or_default();
        for r in applies {
            entries.retain(|(k, _)| *k != r.key());
            // A rollback (`Replacement::original`) only removes the entry.
            entries.extend(r.new_fn().map(|f| (r.key(), f)));
        }
        Some(Arc::new(Versions { entries }))
    }

    /// The replacement for slot `key`.
    pub(crate) fn get(&self, key: usize) -> Option<&(dyn Any + Send + Sync)> {
        self.entries.iter().find(|(k, _)| *k == key).map(|(_, f)| &**f)
    }
}

thread_local! {
    /// The map of the operator whose user code runs on this thread, or null.
    static CURRENT: Cell<*const Versions> = const { Cell::new(std::ptr::null()) };
}

/// Call `f` with the map of the operator running on this thread.
#[inline]
pub(crate) fn with_current<R>(f: impl FnOnce(Option<&Versions>) -> R) -> R {
    let p = CURRENT.with(Cell::get);
    // SAFETY: a non-null pointer was set by a `VersionScope` that is still
    // alive on this thread, and the scope holds an `Arc` of the map.
    f(unsafe { p.as_ref() })
}

/// While alive, replaceable functions called on this thread see `versions`.
/// Operators enter one around a run of firings once they have adopted a
/// replacement; scopes nest (a nested run's operator restores the outer one's).
pub(crate) struct VersionScope {
    prev: *const Versions,
    _held: Arc<Versions>,
}

impl VersionScope {
    pub(crate) fn enter(versions: &Arc<Versions>) -> Self {
        let held = versions.clone();
        let prev = CURRENT.with(|c| c.replace(Arc::as_ptr(&held)));
        VersionScope { prev, _held: held }
    }
}

impl Drop for VersionScope {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.prev));
    }
}
