//! The sticky inputs of a call on a keyed state: the state, then the
//! read-only values of a `Clone` type that the call also reads
//! (`files.serve(&req, rounds)` in a loop, `rounds` a parameter).
//!
//! On replicas, the state and the values part ways: the keyed scatter
//! (`keyed.rs`) splits the state into one part per replica, and a fan
//! (`fan.rs`) gives every replica its own copy of each value. Each replica
//! then holds its part and its copies as one sticky set again, in the
//! order the call's function takes them. A rescaling marker hands only the
//! part back (`Sticky::with_hand_back`); the copies stay for the rest of
//! their activation, as every copy is the same.

use crate::keyed::Keyed;

use super::fan::FanSticky;
use super::sticky::{Sticky, StickySet};

/// A sticky set whose first slot is a keyed state and whose other slots are
/// read-only `Clone` values: what a replicated keyed call reads.
///
/// Implemented for tuples `(Sticky<State>, Sticky<A>, ..)` of up to 12
/// slots, as [`StickySet`] is.
///
/// # Example
///
/// See the unit test `a_keyed_calls_sticky_set_splits_off_its_state_and_joins_again`.
pub trait KeyedSticky: StickySet + Sized {
    /// The keyed state's type.
    type State: Keyed;
    /// The other slots, fanned out to every replica.
    type Rest: FanSticky;

    /// The state's slot and the other slots.
    fn split(self) -> (Sticky<Self::State>, Self::Rest);

    /// A replica's set: its part of the state and its copies of the rest.
    fn join(part: Sticky<Self::State>, rest: Self::Rest) -> Self;
}

impl<T: Keyed + Send> KeyedSticky for (Sticky<T>,) {
    type State = T;
    type Rest = ();
    fn split(self) -> (Sticky<T>, ()) {
        (self.0, ())
    }
    fn join(part: Sticky<T>, (): ()) -> Self {
        (part,)
    }
}

macro_rules! impl_keyed_sticky {
    ($($name:ident $idx:tt),+) => {
        impl<T: Keyed + Send, $($name: Clone + Send),+> KeyedSticky for (Sticky<T>, $(Sticky<$name>,)+) {
            type State = T;
            type Rest = ($(Sticky<$name>,)+);
            #[allow(non_snake_case)]
            fn split(self) -> (Sticky<T>, Self::Rest) {
                let (state, $($name,)+) = self;
                (state, ($($name,)+))
            }
            #[allow(non_snake_case)]
            fn join(part: Sticky<T>, ($($name,)+): Self::Rest) -> Self {
                (part, $($name,)+)
            }
        }
    };
}

impl_keyed_sticky!(A 0);
impl_keyed_sticky!(A 0, B 1);
impl_keyed_sticky!(A 0, B 1, C 2);
impl_keyed_sticky!(A 0, B 1, C 2, D 3);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
impl_keyed_sticky!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);

#[cfg(all(test, not(loom)))]
mod tests {
    use std::collections::BTreeMap;

    use super::KeyedSticky;
    use crate::arc::channel;
    use crate::keyed::Keyed;
    use crate::node::sticky::{Sticky, StickySet};
    use crate::port::{In, Out};

    /// Calls per key.
    #[derive(Default)]
    struct Counts(BTreeMap<u64, u64>);

    impl Keyed for Counts {
        type Key = u64;
        fn split(self, parts: usize, part_of: &dyn Fn(&u64) -> usize) -> Vec<Self> {
            let mut out: Vec<Counts> = (0..parts).map(|_| Counts::default()).collect();
            for (k, n) in self.0 {
                out[part_of(&k)].0.insert(k, n);
            }
            out
        }
        fn merge(parts: Vec<Self>) -> Self {
            Counts(parts.into_iter().flat_map(|p| p.0).collect())
        }
    }

    fn slot<T: Send>(home: u16) -> Sticky<T> {
        let (_tx, rx) = channel::<T>(2, None, None);
        Sticky::new(In::new(rx), home, Out::none())
    }

    /// A call on `Counts` that also reads a `u32` and a `&str`: the state's
    /// slot comes off first, the others are what the fan copies, and a
    /// replica's set has the slots in the call's order again.
    #[test]
    fn a_keyed_calls_sticky_set_splits_off_its_state_and_joins_again() {
        let set: (Sticky<Counts>, Sticky<u32>, Sticky<&str>) = (slot(0), slot(1), slot(2));
        let (state, rest) = set.split();
        assert_eq!((state.home(), rest.0.home(), rest.1.home()), (0, 1, 2));
        let joined = <(Sticky<Counts>, Sticky<u32>, Sticky<&str>)>::join(state, rest);
        assert_eq!((joined.0.home(), joined.1.home(), joined.2.home()), (0, 1, 2));
        assert_eq!(joined.describe().len(), 3);
        let (alone, ()) = (slot::<Counts>(0),).split();
        assert_eq!(alone.home(), 0);
    }
}
