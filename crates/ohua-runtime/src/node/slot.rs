//! Where a graph's sink leaves the algorithm's result for the caller.

use crate::sync::{Arc, Mutex};

/// A shared one-value slot: the sink operator holds one clone and sets it,
/// [`crate::exec::execute`] holds another and takes the value after the run.
///
/// The mutex is touched once per run, so its cost does not matter; it keeps
/// the slot `Sync` for any `T: Send`.
///
/// # Example
///
/// The sink sets the value through a clone; the caller takes it once: see
/// the unit test `the_value_set_is_taken_once`.
pub struct ResultSlot<T>(Arc<Mutex<Option<T>>>);

impl<T> ResultSlot<T> {
    /// An empty slot.
    pub fn new() -> Self {
        ResultSlot(Arc::new(Mutex::new(None)))
    }

    /// Store `value`, replacing any earlier one.
    pub fn set(&self, value: T) {
        // A poisoned lock only means a panic elsewhere while holding it; the
        // `Option` inside is still valid, so carry on.
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    /// Remove and return the stored value, if any.
    pub fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Whether a value is stored.
    pub fn is_set(&self) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
}

impl<T> Clone for ResultSlot<T> {
    /// Another handle to the same slot (no `T: Clone` needed).
    fn clone(&self) -> Self {
        ResultSlot(Arc::clone(&self.0))
    }
}

impl<T> Default for ResultSlot<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> std::fmt::Debug for ResultSlot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultSlot").field("set", &self.is_set()).finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `ResultSlot`'s example.
    #[test]
    fn the_value_set_is_taken_once() {
        use crate::exec::ResultSlot;
        let slot = ResultSlot::new();
        let sink_side = slot.clone();
        sink_side.set("done");
        assert_eq!(slot.take(), Some("done"));
        assert_eq!(slot.take(), None);
    }
}
