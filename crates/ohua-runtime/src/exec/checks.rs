//! Checks the generated code runs on the user's values, spanned at the
//! user's own `let` or parameter, so that a value the dataflow cannot carry
//! is reported there with advice, instead of deep inside the runtime
//! (`Builder::ports` needs `T: Send`, fan-out needs `T: Clone`).
//!
//! The traits are implemented for every type that qualifies; a type that
//! does not gets the `on_unimplemented` message.

/// A value that moves from one operator to another, which may run on
/// another thread: it must be `Send`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot move between the operators of an algorithm: it is not `Send` (use `Arc`, not `Rc`, or owned data)",
    label = "this value is used by another operator, which may run on another thread",
    note = "use `Arc` instead of `Rc`, `Arc<Mutex<_>>` instead of `RefCell`, or owned data (no raw pointers)"
)]
pub trait CrossesOperators {}

impl<T: Send + ?Sized> CrossesOperators for T {}

/// A value used by several operators: each gets its own copy.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is used by several operators, so it must be `Clone`: derive or implement `Clone`, or wrap it in `Arc`",
    label = "this value is used by more than one operator",
    note = "derive or implement `Clone` for it, or wrap it in `Arc` to share one copy"
)]
pub trait SharedByOperators {}

impl<T: Clone> SharedByOperators for T {}

/// Generated code calls this on a value that crosses operators (an `Arc`
/// does: the unit test `an_arc_crosses_operators`).
#[inline(always)]
pub fn crossing<T: CrossesOperators + ?Sized>(_: &T) {}

/// Generated code calls this on a value used by several operators (a
/// `String` may be: the unit test `a_string_may_be_shared_by_operators`).
#[inline(always)]
pub fn shared<T: SharedByOperators>(_: &T) {}

#[cfg(test)]
mod tests {
    use super::{crossing, shared};

    /// [`crossing`]'s example.
    #[test]
    fn an_arc_crosses_operators() {
        crossing(&std::sync::Arc::new(1));
    }

    /// [`shared`]'s example.
    #[test]
    fn a_string_may_be_shared_by_operators() {
        shared(&String::from("copied"));
    }
}
