//! Keyed state (Lagniappe's flow state): a state object partitioned by a
//! key, so that calls for different keys may run on different replicas.
//!
//! A state type implements [`Keyed`]: what its key is, how to split it into
//! parts by key and how to merge the parts back. The first argument of every
//! call on it carries the call's key ([`KeyOf`]). In an algorithm, the state
//! is declared with [`keyed`]:
//!
//! ```
//! use std::collections::HashMap;
//! # mod ohua { pub use ohua_runtime::keyed::*; }
//! use ohua::{keyed, KeyOf, Keyed};
//!
//! /// Requests per client.
//! #[derive(Default)]
//! struct PerClient(HashMap<String, u64>);
//!
//! impl Keyed for PerClient {
//!     type Key = String;
//!     fn split(self, parts: usize, part_of: &dyn Fn(&String) -> usize) -> Vec<Self> {
//!         let mut out: Vec<Self> = (0..parts).map(|_| PerClient::default()).collect();
//!         for (k, v) in self.0 {
//!             out[part_of(&k)].0.insert(k, v);
//!         }
//!         out
//!     }
//!     fn merge(parts: Vec<Self>) -> Self {
//!         PerClient(parts.into_iter().flat_map(|p| p.0).collect())
//!     }
//! }
//!
//! struct Request { client: String }
//! impl KeyOf<PerClient> for Request {
//!     fn key(&self) -> String { self.client.clone() }
//! }
//!
//! impl PerClient {
//!     fn count(&mut self, r: &Request) -> u64 {
//!         let n = self.0.entry(r.client.clone()).or_default();
//!         *n += 1;
//!         *n
//!     }
//! }
//!
//! let mut counts = keyed(PerClient::default()); // in an algorithm: replicable by client
//! assert_eq!(counts.count(&Request { client: "a".into() }), 1);
//! ```
//!
//! Each key belongs to one of [`KEY_GROUPS`] groups (its hash modulo the
//! number of groups, as Flink's key groups); the groups are spread over the
//! replicas in contiguous ranges, so a key's state lives in exactly one
//! replica and calls for one key run in their sequential order there. The
//! routing works on groups, not keys, so that a group can later move to
//! another replica.

use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

/// Number of key groups: the most replicas a keyed call site can have.
pub const KEY_GROUPS: usize = 128;

/// A state object whose calls each touch only the part of it that belongs
/// to one key (a flow), so that it can be split by key and its parts run
/// on different replicas.
///
/// The contract: a call with key `k` reads and writes only the part of the
/// state that `split` puts in part `part_of(&k)`, and `merge(split(s))` is
/// `s` again. Then running the calls of each key on the part that owns it,
/// in their order, and merging leaves the same state as running all calls
/// on one object.
///
/// See the [module documentation](self) for an example.
pub trait Keyed: Sized + Send {
    /// The flow signature: calls with equal keys touch the same part.
    type Key: Hash;

    /// Split the state into `parts` states; everything that belongs to key
    /// `k` goes to part `part_of(&k)` (a number below `parts`). Parts that
    /// own no key yet must still be usable: new keys may arrive at any part.
    fn split(self, parts: usize, part_of: &dyn Fn(&Self::Key) -> usize) -> Vec<Self>;

    /// Put the parts made by [`Keyed::split`] (in the same order, after
    /// their calls) back into one state.
    fn merge(parts: Vec<Self>) -> Self;
}

/// The key that a value carries for calls on the keyed state `S`: the first
/// argument of every call on a keyed state implements it.
///
/// # Example
///
/// ```
/// # mod ohua { pub use ohua_runtime::keyed::*; }
/// use ohua::{KeyOf, Keyed};
/// struct Counts(Vec<u64>);
/// impl Keyed for Counts {
///     type Key = u8;
///     fn split(self, parts: usize, _: &dyn Fn(&u8) -> usize) -> Vec<Self> {
///         let mut out = vec![self];
///         out.extend((1..parts).map(|_| Counts(vec![0; 256])));
///         out // (a real split moves each key's entry to its part)
///     }
///     fn merge(parts: Vec<Self>) -> Self { parts.into_iter().next().unwrap() }
/// }
/// struct Packet { src: u8 }
/// impl KeyOf<Counts> for Packet {
///     fn key(&self) -> u8 { self.src }
/// }
/// assert_eq!(KeyOf::<Counts>::key(&&Packet { src: 7 }), 7, "references carry their value's key");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a key of the keyed state `{S}`",
    label = "the first argument of a call on a keyed state is its key",
    note = "implement `ohua::KeyOf<{S}>` for the type of the first argument, returning the flow's key"
)]
pub trait KeyOf<S: Keyed> {
    /// The key of the call this value is the first argument of.
    fn key(&self) -> S::Key;
}

impl<S: Keyed, T: KeyOf<S> + ?Sized> KeyOf<S> for &T {
    fn key(&self) -> S::Key {
        (**self).key()
    }
}

impl<S: Keyed, T: KeyOf<S> + ?Sized> KeyOf<S> for &mut T {
    fn key(&self) -> S::Key {
        (**self).key()
    }
}

/// Declare a keyed state in an algorithm: `let mut s = ohua::keyed(S::new());`.
/// Returns `state` unchanged; the compiler sees the call and may replicate
/// the calls on `s` by key (each replica owning the part of `s` for its
/// keys), and the type checker sees that `S` implements [`Keyed`].
///
/// Run sequentially, it does nothing.
pub fn keyed<S: Keyed>(state: S) -> S {
    state
}

/// The key group of `key` (below [`KEY_GROUPS`]).
///
/// A fixed hasher (`DefaultHasher::new()`, no random keys), so a key maps
/// to the same group in every run of a program and on every replica.
pub fn group_of<K: Hash + ?Sized>(key: &K) -> usize {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    (h.finish() % KEY_GROUPS as u64) as usize
}

/// Which replica owns each key group: contiguous ranges of groups, as even
/// as possible.
///
/// # Example
///
/// ```
/// use ohua_runtime::keyed::{Groups, KEY_GROUPS};
/// let g = Groups::new(3);
/// assert_eq!((g.replica(0), g.replica(KEY_GROUPS - 1)), (0, 2));
/// let per: Vec<usize> = (0..3).map(|r| (0..KEY_GROUPS).filter(|&x| g.replica(x) == r).count()).collect();
/// assert_eq!(per, vec![43, 43, 42]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    owner: Vec<u16>,
    replicas: usize,
}

impl Groups {
    /// Groups spread over `replicas` replicas (1 to [`KEY_GROUPS`]).
    ///
    /// # Panics
    ///
    /// If `replicas` is 0 or more than [`KEY_GROUPS`].
    pub fn new(replicas: usize) -> Self {
        assert!((1..=KEY_GROUPS).contains(&replicas), "ohua: a keyed call site has 1..=128 replicas");
        Groups { owner: (0..KEY_GROUPS).map(|g| (g * replicas / KEY_GROUPS) as u16).collect(), replicas }
    }

    /// Groups spread over `replicas` replicas so that their measured
    /// `loads` (items per group, from earlier runs) are as even as
    /// possible: the heaviest group first, each to the replica with the
    /// least load so far (ties: the lower replica, so the map is the same
    /// for the same loads).
    ///
    /// # Panics
    ///
    /// As [`Groups::new`], or if `loads` does not have [`KEY_GROUPS`] entries.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::keyed::{Groups, KEY_GROUPS};
    /// let mut loads = vec![0; KEY_GROUPS];
    /// loads[..4].copy_from_slice(&[50, 30, 20, 10]);
    /// let g = Groups::balanced(2, &loads);
    /// assert_eq!((g.replica(0), g.replica(1), g.replica(2), g.replica(3)), (0, 1, 1, 0));
    /// ```
    pub fn balanced(replicas: usize, loads: &[u64]) -> Self {
        assert_eq!(loads.len(), KEY_GROUPS, "ohua: one load per key group");
        let mut groups = Groups::new(replicas);
        let mut order: Vec<usize> = (0..KEY_GROUPS).collect();
        order.sort_by(|&a, &b| loads[b].cmp(&loads[a]).then(a.cmp(&b)));
        let mut total = vec![0u64; replicas];
        for g in order {
            let r = (0..replicas).min_by_key(|&r| (total[r], r)).expect("at least one replica");
            total[r] += loads[g];
            groups.owner[g] = r as u16;
        }
        groups
    }

    /// Every group owned by replica 0 of `replicas`: the others hold empty
    /// parts (a first run's elastic replicas of a keyed call, which stay on
    /// one replica until their probe opens the lanes and the scatter moves
    /// groups, with their state, onto them).
    ///
    /// # Panics
    ///
    /// As [`Groups::new`].
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::keyed::{Groups, KEY_GROUPS};
    /// let g = Groups::on_first(2);
    /// assert_eq!((g.replicas(), g.replica(0), g.replica(KEY_GROUPS - 1)), (2, 0, 0));
    /// ```
    pub fn on_first(replicas: usize) -> Self {
        let mut groups = Groups::new(replicas);
        groups.owner.iter_mut().for_each(|o| *o = 0);
        groups
    }

    /// Groups spread over the first `active` of `replicas` replicas (the
    /// others own none), as even as the measured `loads` allow: a live
    /// rescaling (`update::Regroup`). A group not seen yet counts as one
    /// item, so new keys spread too.
    ///
    /// # Panics
    ///
    /// As [`Groups::balanced`], or if `active` is 0 or more than `replicas`.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::keyed::{Groups, KEY_GROUPS};
    /// let mut loads = vec![0; KEY_GROUPS];
    /// loads[5] = 1000; // one hot key group
    /// let g = Groups::spread(4, 2, &loads);
    /// assert_eq!(g.replicas(), 4);
    /// let on = |r| (0..KEY_GROUPS).filter(|&x| g.replica(x) == r).count();
    /// assert_eq!((on(0), on(1), on(2), on(3)), (1, KEY_GROUPS - 1, 0, 0), "the hot group alone on one replica");
    /// ```
    pub fn spread(replicas: usize, active: usize, loads: &[u64]) -> Self {
        assert!((1..=replicas).contains(&active), "ohua: a rescaling keeps 1..=replicas replicas");
        let smoothed: Vec<u64> = loads.iter().map(|&n| n.saturating_add(1)).collect();
        let mut groups = Groups::balanced(active, &smoothed);
        groups.replicas = replicas;
        groups
    }

    /// The number of replicas the groups are spread over.
    pub fn replicas(&self) -> usize {
        self.replicas
    }

    /// How many replicas own at least one group.
    pub(crate) fn owners(&self) -> usize {
        let mut seen = vec![false; self.replicas];
        self.owner.iter().for_each(|&o| seen[usize::from(o)] = true);
        seen.iter().filter(|&&s| s).count()
    }

    /// The replica that owns group `group`.
    pub fn replica(&self, group: usize) -> usize {
        usize::from(self.owner[group])
    }

    /// The replica that owns `key`.
    pub fn replica_of<K: Hash + ?Sized>(&self, key: &K) -> usize {
        self.replica(group_of(key))
    }
}

/// Computes the key group of a call's first argument for the keyed state
/// `S` (generated code gets one to compute each call's route).
pub struct KeyFn<S>(PhantomData<fn() -> S>);

impl<S> Clone for KeyFn<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for KeyFn<S> {}

impl<S: Keyed> KeyFn<S> {
    pub(crate) fn new() -> Self {
        KeyFn(PhantomData)
    }

    /// The key group of the call whose first argument is `arg`.
    pub fn of<A: KeyOf<S> + ?Sized>(self, arg: &A) -> usize {
        group_of(&arg.key())
    }
}
