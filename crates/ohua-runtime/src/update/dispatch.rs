//! How an `#[ohua::updatable]` function chooses between its replacement and
//! its own body, so that a replacement may call the function it replaces.
//!
//! A replacement runs *inside* the function it replaces: the function looks
//! its slot up ([`current`]) and calls the replacement. If the replacement
//! calls the replaced function again (a decorator that adds logging around
//! the original, or `replace!(f => f)`, the natural way to roll back), a
//! plain lookup would find the replacement again and recurse until the
//! stack overflows. So while the replacement of a slot runs on a thread,
//! the next call of that slot on the same thread runs the original body.
//! That call in turn lets calls made by the body dispatch normally again, so
//! a recursive function stays decorated at every level.
//!
//! The per-thread record is a stack of `(slot, in replacement)` entries
//! pushed by [`Dispatch`] and popped when it is dropped, so a panic that
//! unwinds through a replacement leaves the stack as it was. Calls of a
//! slot without a replacement (outside a service, or before an update)
//! never touch the stack: one thread-local read, as before.
//!
//! Calls made on other threads (operators of an algorithm the replacement
//! runs) do not see this thread's stack: a replacement that starts a nested
//! run whose operators call the replaced function gets the replacement
//! there, as any other caller would.

use std::cell::RefCell;

use super::slot::{current, FnSlot};

thread_local! {
    /// Slots whose dispatch is under way on this thread, innermost last:
    /// `true` while the slot's replacement runs, `false` while its original
    /// body runs because its replacement called it.
    static RUNNING: RefCell<Vec<(usize, bool)>> = const { RefCell::new(Vec::new()) };
}

/// One call of an `#[ohua::updatable]` function: which function to run,
/// held until the call returns (generated code; see the module docs).
///
/// # Example
///
/// ```
/// use ohua_runtime::update::{dispatch, FnSlot};
/// static DOUBLE: FnSlot<fn(u32) -> u32> = FnSlot::new("double");
/// fn double(x: u32) -> u32 {
///     let call = dispatch(&DOUBLE);
///     match call.replacement() {
///         Some(f) => f(x),
///         None => x * 2,
///     }
/// }
/// assert_eq!(double(4), 8); // no operator adopted a replacement here
/// ```
#[must_use = "the dispatch must live until the call returns"]
pub struct Dispatch<F> {
    replacement: Option<F>,
    pushed: bool,
}

/// Decide how a call of `slot`'s function runs on this thread: its
/// replacement, unless this call comes from that replacement (then its
/// original body).
#[inline]
pub fn dispatch<F: Copy + 'static>(slot: &'static FnSlot<F>) -> Dispatch<F> {
    match current(slot) {
        None => Dispatch { replacement: None, pushed: false },
        Some(f) => {
            let key = slot.key();
            let replacement = RUNNING.with(|r| {
                let mut r = r.borrow_mut();
                let inside = r.iter().rev().find(|(k, _)| *k == key).is_some_and(|(_, inside)| *inside);
                // Called by its own replacement: the original body runs, and
                // what it calls dispatches normally again.
                r.push((key, !inside));
                (!inside).then_some(f)
            });
            Dispatch { replacement, pushed: true }
        }
    }
}

impl<F: Copy> Dispatch<F> {
    /// The replacement to call, or `None` to run the original body.
    #[inline]
    pub fn replacement(&self) -> Option<F> {
        self.replacement
    }
}

impl<F> Drop for Dispatch<F> {
    #[inline]
    fn drop(&mut self) {
        if self.pushed {
            // `try_with`: a call may end while the thread's locals are torn down.
            let _ = RUNNING.try_with(|r| r.borrow_mut().pop());
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::update::{Changes, Replacement, VersionScope, Versions};

    static SLOT: FnSlot<fn(u32) -> u32> = FnSlot::new("double");

    /// What `#[ohua::updatable] fn double(x: u32) -> u32 { x * 2 }` becomes.
    fn double(x: u32) -> u32 {
        let call = dispatch(&SLOT);
        match call.replacement() {
            Some(f) => f(x),
            None => x * 2,
        }
    }

    fn with_replacement<R>(new: fn(u32) -> u32, f: impl FnOnce() -> R) -> R {
        let changes = Changes { replacements: vec![Replacement::new(&SLOT, new)], transforms: vec![] };
        let versions = Versions::adopt(None, &changes, &["op"]).expect("applies");
        let _scope = VersionScope::enter(&versions);
        f()
    }

    fn depth() -> usize {
        RUNNING.with(|r| r.borrow().len())
    }

    #[test]
    fn without_a_replacement_nothing_is_recorded() {
        let d = dispatch(&SLOT);
        assert!(d.replacement().is_none() && !d.pushed);
        assert_eq!(depth(), 0);
    }

    #[test]
    fn replacing_a_function_by_itself_runs_its_original_body() {
        assert_eq!(with_replacement(double, || double(4)), 8);
        assert_eq!(depth(), 0);
    }

    #[test]
    fn a_replacement_that_calls_the_original_decorates_it() {
        fn plus_one(x: u32) -> u32 {
            double(x) + 1
        }
        assert_eq!(with_replacement(plus_one, || (double(4), double(double(1)))), (9, 7));
        assert_eq!(depth(), 0);
    }

    #[test]
    fn a_panic_in_a_replacement_leaves_the_record_as_it_was() {
        fn boom(x: u32) -> u32 {
            double(x);
            panic!("boom")
        }
        let r = with_replacement(boom, || std::panic::catch_unwind(|| double(1)));
        assert!(r.is_err());
        assert_eq!(depth(), 0);
        assert_eq!(with_replacement(double, || double(3)), 6);
    }
}
