//! A keyed shape for `first-runs`: a heavy call (about 20 µs) on a keyed
//! state of 64 flows, the shape of AttackDetector's per-flow service. A
//! first run starts with every key on replica 0 and moves key groups, with
//! their state, onto the other replica once replica 0 has measured the call
//! heavy (`crates/ohua-runtime/src/node/README.md`, "Moving key groups").

use std::collections::BTreeMap;

use ohua::{algorithm, KeyOf, Keyed};

use crate::replicate::heavy;

/// Per flow: how many items it had and an order-sensitive hash of them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Flows(BTreeMap<u64, (u64, u64)>);

/// An item of flow `x % 64`.
pub(crate) struct Item(u64);

impl KeyOf<Flows> for Item {
    fn key(&self) -> u64 {
        self.0 % 64
    }
}

impl Keyed for Flows {
    type Key = u64;
    fn split(self, parts: usize, part_of: &dyn Fn(&u64) -> usize) -> Vec<Self> {
        let mut out: Vec<Flows> = (0..parts).map(|_| Flows::default()).collect();
        for (k, v) in self.0 {
            out[part_of(&k)].0.insert(k, v);
        }
        out
    }
    fn merge(parts: Vec<Self>) -> Self {
        Flows(parts.into_iter().flat_map(|p| p.0).collect())
    }
}

impl Flows {
    /// The heavy work of an item, folded into its flow's entry.
    fn add(&mut self, item: &Item) -> u64 {
        let v = heavy(item.0);
        let (n, hash) = self.0.entry(item.0 % 64).or_default();
        *n += 1;
        *hash = hash.rotate_left(5) ^ v;
        *hash
    }
}

#[algorithm]
pub(crate) fn keyed_flows(xs: Vec<u64>) -> (u64, Flows) {
    let mut flows = ohua::keyed(Flows::default());
    let mut last = 0;
    for x in xs {
        let item = Item(x);
        let h = flows.add(&item);
        last ^= h;
    }
    (last, flows)
}
