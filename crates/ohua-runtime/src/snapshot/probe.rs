//! How generated code tells a `&self` method from a `&mut self` one.
//!
//! The macro sees `s.m(args)` and the state's type `T` (from the
//! declaration), not `T`'s `impl`. It names the method as a function item,
//! `T::m`, and asks [`Probe`] at compile time whether that function takes
//! `&T` first ("autoref specialisation"): `(&probe).is_read(&PhantomData::<(_, ..)>)` finds
//! [`Reader`], implemented for `Probe` when the function is
//! `Fn(&T, args..) -> R`, before [`Writer`], implemented for `&Probe`
//! whatever the function. Both traits give `call_read`, so the code that
//! calls a `&self` method on a snapshot compiles for either kind; for a
//! `&mut self` method it is never reached.
//!
//! A method that is neither (its result borrows from the state, as in
//! `fn name(&self) -> &str`, or it takes `self`) has no `is_read`: a `let`
//! of its result could not leave its operator anyway.

use std::marker::PhantomData;

use crate::sync::Arc;

/// A method of a [`Snapshot`](super::Snapshot) state, as a function item,
/// with the state's type.
///
/// # Example
///
/// ```
/// use ohua_runtime::snapshot::{Probe, Reader as _, Writer as _};
/// struct Log(Vec<u64>);
/// impl Log {
///     fn push(&mut self, x: u64) { self.0.push(x) }
///     fn last(&self) -> Option<u64> { self.0.last().copied() }
/// }
/// let log = Log(vec![4]);
/// use std::marker::PhantomData;
/// assert!(!(&Probe::of(&log, Log::push)).is_read(&PhantomData::<(_,)>));
/// let last = Probe::of(&log, Log::last);
/// assert!((&last).is_read(&PhantomData::<()>));
/// assert_eq!((&last).call_read(&log, ()), Some(4));
/// ```
pub struct Probe<T, F>(F, PhantomData<fn(&T)>);

impl<T, F> Probe<T, F> {
    /// The method `f` of states like `state` (only its type is used).
    pub fn of(_state: &T, f: F) -> Self {
        Probe(f, PhantomData)
    }
}

/// A `&self` method with arguments `A` (a tuple).
pub trait Reader<T, A> {
    /// What the method returns.
    type Out;

    /// `true`: the method only reads. (`arity` is `PhantomData<(_, ..)>`
    /// with one `_` per argument: it picks the impl of the method's arity,
    /// and rustc infers the arguments' types from the method.)
    fn is_read(&self, _arity: &PhantomData<A>) -> bool {
        true
    }

    /// Call the method on `state`.
    fn call_read(&self, state: &T, args: A) -> Self::Out;
}

/// A `&mut self` method with arguments `A`: it writes, so it runs on the
/// live state.
pub trait Writer<T, A> {
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
    fn call_read(&self, _state: &T, _args: A) -> Self::Out {
        unreachable!("ohua: a `&mut self` method ran on a snapshot")
    }
}

// Per arity: `Reader` where the method takes `&T`, `Writer` (on
// `&Probe`, found second) where it takes `&mut T`. Each names the
// argument types, so that rustc infers them from the method for either.
macro_rules! readers {
    ($($a:ident),*) => {
        #[allow(non_snake_case)]
        impl<T, $($a,)* R, F: Fn(&T, $($a),*) -> R> Reader<T, ($($a,)*)> for Probe<T, F> {
            type Out = R;
            fn call_read(&self, state: &T, ($($a,)*): ($($a,)*)) -> R {
                (self.0)(state, $($a),*)
            }
        }
        impl<T, $($a,)* R, F: Fn(&mut T, $($a),*) -> R> Writer<T, ($($a,)*)> for &Probe<T, F> {
            type Out = R;
        }
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

/// A value of `T`'s type, for type inference only: generated code calls it
/// in a block that never runs, so that the arguments of a `&self` call tell
/// rustc the type parameters of a generic method (`HashMap::<String, _>::contains_key`
/// has `Q`, which only the argument `&name` fixes) in the operator that
/// decides whether the call reads, where the arguments' values are not
/// computed (they are, later, off the state's path).
///
/// # Panics
///
/// Always: it is only ever named in code that does not run.
///
/// # Example
///
/// ```
/// use ohua_runtime::snapshot::type_only;
/// let name = String::from("a");
/// if false {
///     let name: String = type_only(&name); // a `String`, nothing moved
///     drop(name);
/// }
/// assert_eq!(name, "a");
/// ```
#[allow(clippy::needless_pass_by_value)]
pub fn type_only<T>(_of: &T) -> T {
    unreachable!("ohua: type_only is for type inference and never runs")
}

/// A value the step of a `&self` call hands on as well as keeps (a local
/// the call reads by reference and the body uses again later): a copy for
/// the call where its type is `Clone`, asked at compile time like
/// [`Probe`]: `(&MaybeClone(&v)).try_clone()` finds [`CloneIt`] where
/// `T: Clone`, else [`NoClone`], whose answer is `None` (the call then runs
/// on the live state, as a call of a type the compiler cannot copy must).
///
/// # Example
///
/// ```
/// use ohua_runtime::snapshot::{CloneIt as _, MaybeClone, NoClone as _};
/// struct Unique(u8);
/// assert_eq!((&MaybeClone(&String::from("a"))).try_clone(), Some(String::from("a")));
/// assert!((&MaybeClone(&Unique(1))).try_clone().is_none());
/// assert!(!(&MaybeClone(&Unique(1))).can_clone() && (&MaybeClone(&7)).can_clone());
/// ```
pub struct MaybeClone<'a, T>(pub &'a T);

/// [`MaybeClone`] of a `Clone` type.
pub trait CloneIt<T> {
    /// `true`: a copy can be made.
    fn can_clone(&self) -> bool {
        true
    }

    /// A copy.
    fn try_clone(&self) -> Option<T>;
}

impl<T: Clone> CloneIt<T> for MaybeClone<'_, T> {
    fn try_clone(&self) -> Option<T> {
        Some(self.0.clone())
    }
}

/// [`MaybeClone`] of any other type (found second, on `&MaybeClone`).
pub trait NoClone<T> {
    /// `false`: no copy can be made.
    fn can_clone(&self) -> bool {
        false
    }

    /// No copy.
    fn try_clone(&self) -> Option<T> {
        None
    }
}

impl<T> NoClone<T> for &MaybeClone<'_, T> {}

/// What the operator of a call on a snapshot state hands on: the result of
/// a call it made on the live state, or the snapshot and the arguments'
/// values for a `&self` call that runs next, off the state's path.
pub enum Step<T, R, V> {
    /// A `&mut self` call ran; its result.
    Done(R),
    /// A `&self` call to run on this snapshot with these values.
    Read(Arc<T>, V),
}
