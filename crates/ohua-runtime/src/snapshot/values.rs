//! Values the step of a `&self` call builds for code that never runs
//! ([`type_only`]) or hands on as well as keeps ([`MaybeClone`]).

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
/// [`Probe`](super::Probe): `(&MaybeClone(&v)).try_clone()` finds [`CloneIt`] where
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
