//! How generated code tells a `&self` method from a `&mut self` one.
//!
//! The macro sees `s.m(args)` and the state's type `T` (from the
//! declaration), not `T`'s `impl`. It names the method as a function item,
//! `T::m`, and asks [`Probe`] at compile time what that function takes
//! first ("autoref specialisation"): `(&&&probe).is_read(&PhantomData::<(_, ..)>)`
//! finds, in this order,
//!
//! | trait | implemented for | where the function is | `is_read` |
//! |---|---|---|---|
//! | [`Reader`] | `&&Probe` | `Fn(&'x T, args..) -> R` | `true` |
//! | [`Writer`] | `&&&Probe` | `Fn(&'x mut T, args..) -> R` | `false` |
//! | [`Consumer`] | `&Probe` | `Fn(T, args..) -> R` | `false` |
//! | [`Neither`] | `Probe` | anything | `false` |
//!
//! The lifetime `'x` is the one of the state's borrow, so a method whose
//! result borrows the state (`fn get(&self, k: &K) -> Option<&V>`) is a
//! reader too, and its result lives as long as the snapshot it was called
//! on (`s.get(&k).cloned()`). All four give `call_read`, so the code that
//! calls a `&self` method on a snapshot compiles whatever the method; only
//! a reader's is ever reached. [`Neither`] (nothing rustc could match, which
//! no method found so far reaches) makes the call run on the live state, as
//! any call on a state does: correct, in order, not in parallel.

use std::marker::PhantomData;

use crate::sync::Arc;

/// A method of a [`Snapshot`](super::Snapshot) state, as a function item,
/// with the state's type (or its deref target's: a `Vec`'s slice methods
/// are `[T]`'s).
///
/// # Example
///
/// ```
/// use std::marker::PhantomData;
/// use ohua_runtime::snapshot::{Consumer as _, Neither as _, Probe, Reader as _, Writer as _};
/// struct Log(Vec<u64>);
/// impl Log {
///     fn push(&mut self, x: u64) { self.0.push(x) }
///     fn last(&self) -> Option<u64> { self.0.last().copied() }
///     fn first(&self) -> Option<&u64> { self.0.first() }
/// }
/// let log = Log(vec![4, 5]);
/// assert!(!(&&&Probe::of(&log, Log::push)).is_read(&PhantomData::<(_,)>));
/// let last = Probe::of(&log, Log::last);
/// assert!((&&&last).is_read(&PhantomData::<()>));
/// assert_eq!((&&&last).call_read(&log, ()), Some(5));
/// let first = Probe::of(&log, Log::first);
/// assert_eq!((&&&first).call_read(&log, ()).copied(), Some(4), "a result that borrows the state");
/// ```
pub struct Probe<T: ?Sized, F>(F, PhantomData<fn(&T)>);

impl<T: ?Sized, F> Probe<T, F> {
    /// The method `f` of states like `state` (only its type is used).
    pub fn of(_state: &T, f: F) -> Self {
        Probe(f, PhantomData)
    }
}

/// A `&self` method with arguments `A` (a tuple), on a state borrowed for
/// `'x`.
pub trait Reader<'x, T: ?Sized + 'x, A> {
    /// What the method returns (it may borrow the state for `'x`).
    type Out;

    /// `true`: the method only reads. (`arity` is `PhantomData<(_, ..)>`
    /// with one `_` per argument: it picks the impl of the method's arity,
    /// and rustc infers the arguments' types from the method.)
    fn is_read(&self, _arity: &PhantomData<A>) -> bool {
        true
    }

    /// Call the method on `state`.
    fn call_read(&self, state: &'x T, args: A) -> Self::Out;
}

/// A `&mut self` method with arguments `A`: it writes, so it runs on the
/// live state.
pub trait Writer<'x, T: ?Sized + 'x, A> {
    /// What the method returns (so that the code around a `call_read`
    /// that never runs has a type, not `!`, and no unreachable code).
    type Out;

    /// `false`: the method may write.
    fn is_read(&self, _arity: &PhantomData<A>) -> bool {
        false
    }

    /// Never called: a method that may write never runs on a snapshot.
    ///
    /// # Panics
    ///
    /// Always.
    fn call_read(&self, _state: &'x T, _args: A) -> Self::Out {
        unreachable!("ohua: a `&mut self` method ran on a snapshot")
    }
}

/// A `self` method with arguments `A` (a `Copy` state's, or one that
/// consumes the state): it runs on the live state.
pub trait Consumer<T: ?Sized, A> {
    /// What the method returns.
    type Out;

    /// `false`: not a read of a borrowed state.
    fn is_read(&self, _arity: &PhantomData<A>) -> bool {
        false
    }

    /// Never called.
    ///
    /// # Panics
    ///
    /// Always.
    fn call_read(&self, _state: &T, _args: A) -> Self::Out {
        unreachable!("ohua: a `self` method ran on a snapshot")
    }
}

/// Any other function: it runs on the live state.
pub trait Neither<T: ?Sized, A> {
    /// `false`: not known to only read.
    fn is_read(&self, _arity: &PhantomData<A>) -> bool {
        false
    }

    /// Never called.
    ///
    /// # Panics
    ///
    /// Always.
    fn call_read(&self, _state: &T, _args: A) -> ! {
        unreachable!("ohua: a method that is not known to read ran on a snapshot")
    }
}

// Per arity, one impl of each trait. Each names the argument types, so that
// rustc infers them from the method; the receiver types (`&&Probe`,
// `&&&Probe`, `&Probe`, `Probe`) give the order in which a call on
// `&&&probe` finds them.
macro_rules! readers {
    ($($a:ident),*) => {
        #[allow(non_snake_case)]
        impl<'x, T: ?Sized + 'x, $($a,)* R, F: Fn(&'x T, $($a),*) -> R> Reader<'x, T, ($($a,)*)> for &&Probe<T, F> {
            type Out = R;
            fn call_read(&self, state: &'x T, ($($a,)*): ($($a,)*)) -> R {
                (self.0)(state, $($a),*)
            }
        }
        impl<'x, T: ?Sized + 'x, $($a,)* R, F: Fn(&'x mut T, $($a),*) -> R> Writer<'x, T, ($($a,)*)> for &&&Probe<T, F> {
            type Out = R;
        }
        impl<T, $($a,)* R, F: Fn(T, $($a),*) -> R> Consumer<T, ($($a,)*)> for &Probe<T, F> {
            type Out = R;
        }
        impl<T: ?Sized, $($a,)* F> Neither<T, ($($a,)*)> for Probe<T, F> {}
    };
}
readers!();
readers!(A1);
readers!(A1, A2);
readers!(A1, A2, A3);
readers!(A1, A2, A3, A4);
readers!(A1, A2, A3, A4, A5);
readers!(A1, A2, A3, A4, A5, A6);
readers!(A1, A2, A3, A4, A5, A6, A7);
readers!(A1, A2, A3, A4, A5, A6, A7, A8);

/// What the operator of a call on a snapshot state hands on: the result of
/// a call it made on the live state, or the snapshot and the arguments'
/// values for a `&self` call that runs next, off the state's path.
pub enum Step<T, R, V> {
    /// A `&mut self` call ran; its result.
    Done(R),
    /// A `&self` call to run on this snapshot with these values.
    Read(Arc<T>, V),
}
