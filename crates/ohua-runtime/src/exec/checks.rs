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

/// A value of a `#[ohua::algorithm(cluster)]` algorithm that a replicable
/// call takes or gives: its replicas may run in other processes, so it
/// crosses as bytes and must be `Serialize` and `Deserialize` (owned: a
/// borrowed `&str` cannot be rebuilt in another process).
#[diagnostic::on_unimplemented(
    message = "`{Self}` may cross processes (this algorithm is marked `cluster`), so it must be `Serialize` and `Deserialize`",
    label = "a replicable call takes or gives this value, and its replicas may run in other processes",
    note = "derive `serde::Serialize` and `serde::Deserialize` for it (owned data: `String`, not `&str`), or drop `cluster` from `#[ohua::algorithm(cluster)]`"
)]
pub trait CrossesProcesses {}

impl<T: serde::Serialize + serde::de::DeserializeOwned> CrossesProcesses for T {}

/// Generated code calls this on a value of a `cluster` algorithm that a
/// replicable call takes or gives (a `String` may: the unit test
/// `a_string_crosses_processes`).
#[inline(always)]
pub fn crosses_processes<T: CrossesProcesses>(_: &T) {}

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
    use super::{crosses_processes, crossing, shared};

    /// [`crosses_processes`]'s example.
    #[test]
    fn a_string_crosses_processes() {
        crosses_processes(&(String::from("bytes"), 7u64));
    }

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
