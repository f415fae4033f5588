//! The build of an algorithm in parts: arc ends without drop glue and one
//! function per operator.
//!
//! Generated code builds a graph in one closure ([`crate::exec::execute`]):
//! it creates every arc's ends first ([`Builder::ports`]) and then builds
//! the operators, producers first. For an algorithm of a hundred statements
//! this was one function with hundreds of live ports, each with drop glue
//! (so a cleanup path at every call that may unwind) and each moved into
//! its operator: LLVM spent most of the release build optimising that one
//! function, in time that grew faster than the algorithm (BENCHMARKS.md,
//! "Compile time"). Here the ends are [`End`]s, which have no drop glue, and
//! generated code builds each operator inside [`part`], a function of its
//! own: the closure's body is a list of small calls, and each operator's
//! construction is optimised apart.
//!
//! [`Builder::ports`]: super::Builder::ports

use std::mem::ManuallyDrop;

/// An end of an arc ([`Builder::ports`]) before the operator that owns it
/// takes it ([`End::take`]).
///
/// It has no drop glue: an end that is never taken is never dropped, and
/// its arc stays open. Generated code takes every end exactly once (each
/// arc has one producer port and one consumer port; the compiler's code
/// stage tests check it), so this happens only if a build panics, which
/// ends the run.
///
/// [`Builder::ports`]: super::Builder::ports
///
/// # Example
///
/// See the unit test `an_end_gives_back_its_port`.
#[must_use = "an end that is not taken leaves its arc open"]
pub struct End<P>(ManuallyDrop<P>);

impl<P> End<P> {
    /// Wrap a port.
    #[inline(always)]
    pub fn new(port: P) -> Self {
        End(ManuallyDrop::new(port))
    }

    /// The port, for the operator that owns this end.
    #[inline(always)]
    pub fn take(self) -> P {
        ManuallyDrop::into_inner(self.0)
    }
}

/// Run `f` on `builder` as a function of its own, not inlined into the
/// build closure (see the module docs): generated code builds each operator
/// in one.
///
/// # Example
///
/// See the unit test `a_part_runs_on_the_builder`.
#[inline(never)]
pub fn part<B, R>(builder: &mut B, f: impl FnOnce(&mut B) -> R) -> R {
    f(builder)
}

#[cfg(test)]
mod tests {
    use super::{part, End};

    /// [`End`]'s example.
    #[test]
    fn an_end_gives_back_its_port() {
        let end = End::new(vec![1, 2]);
        assert_eq!(end.take(), vec![1, 2]);
    }

    /// [`part`]'s example.
    #[test]
    fn a_part_runs_on_the_builder() {
        let mut built = Vec::new();
        let n = part(&mut built, |b| {
            b.push(3);
            b.len()
        });
        assert_eq!((n, built), (1, vec![3]));
    }
}
