//! Unit tests of the keyed scatter (`keyed.rs`).

use super::KeyedScatter;
use crate::arc::channel;
use crate::keyed::{KeyFn, KeyOf, Keyed};
use crate::node::elastic::Elastic;
use crate::node::Node;
use crate::packet::Packet;
use crate::port::In;

/// Keys seen, as a keyed state.
#[derive(Debug, Default)]
struct Keys(Vec<u8>);

impl Keyed for Keys {
    type Key = u8;
    fn split(self, parts: usize, part_of: &dyn Fn(&u8) -> usize) -> Vec<Self> {
        let mut out: Vec<Keys> = (0..parts).map(|_| Keys::default()).collect();
        self.0.into_iter().for_each(|k| out[part_of(&k)].0.push(k));
        out
    }
    fn merge(parts: Vec<Self>) -> Self {
        Keys(parts.into_iter().flat_map(|p| p.0).collect())
    }
}

impl KeyOf<Keys> for u8 {
    fn key(&self) -> u8 {
        *self
    }
}

/// Found by the generated corpus (`seed1_program404`): a keyed call in a
/// branch that its run did not take got its state only after its data
/// stream had ended the run, and the scatter then moved groups with a
/// local marker behind that end; the replicas had released their parts
/// there and waited for parts that never came.
#[test]
fn a_state_that_arrives_after_the_runs_end_moves_no_groups() {
    let (mut data, data_rx) = channel::<u8>(4, None, None);
    let (mut state, state_rx) = channel::<Keys>(2, None, None);
    let (order, _order_rx) = channel::<u16>(8, None, None);
    let (lanes, mut lane_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<(u8,)>(4, None, None)).unzip();
    let (parts, _part_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<Keys>(2, None, None)).unzip();
    let (_backs, back_rxs): (Vec<_>, Vec<_>) = (0..2).map(|_| channel::<Keys>(1, None, None)).unzip();
    // Two replicas own groups; the elastic lanes say one.
    let elastic = Elastic::new(2, crate::deploy::Opening::Measured);
    let route = |item: &(u8,), keys: KeyFn<Keys>| keys.of(&item.0);
    let mut scatter = KeyedScatter::new((In::new(data_rx),), In::new(state_rx), lanes, parts, order, route)
        .rescalable(back_rxs, 0)
        .elastic(Some(elastic));
    data.push(Packet::End(0));
    drop(data);
    scatter.step(8);
    state.push(Packet::Data(Keys(vec![1, 2])));
    drop(state);
    scatter.step(8);
    scatter.flush();
    for lane in &mut lane_rxs {
        assert_eq!(lane.pop(), Some(Packet::End(0)));
        assert_eq!(lane.pop(), None, "no marker after the run's end");
    }
}
