//! Read-only values from outside a loop, handed to every replica of a call
//! that reads them (`replicate.rs`).
//!
//! A call without state in a loop may read values defined before the loop
//! (sticky inputs, `README.md`). Each replica holds its own copy for the
//! activation: [`StickyFan`] clones each value to every replica's sticky
//! lane (markers too), and [`StickyJoin`] takes the copies the replicas
//! release at the end of the activation and passes one on, where the value
//! would have gone. The values are only read (the compiler replicates such a
//! call only for values whose type it knows to be `Clone` and that nothing
//! in the loop mutates), so every copy is the same.

use crate::arc::{Receiver, Sender};
use crate::packet::Packet;
use crate::port::{In, Out};

use super::install::{Install, Role};
use super::marks::{self, Attach, Marks};
use super::replicate::LANE_DEPTH;
use super::sticky::{Sticky, StickySet};
use super::{Node, Step};

/// Copies a sticky stream to every replica's lane.
pub struct StickyFan<T> {
    input: In<T>,
    lanes: Vec<Sender<T>>,
    marks: Option<Marks>,
}

impl<T: Clone + Send> Node for StickyFan<T> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget && self.lanes.iter_mut().all(|l| l.room() > 0) {
            match self.input.pop() {
                Some(Packet::Data(v)) => {
                    let (last, rest) = self.lanes.split_last_mut().expect("one lane per replica");
                    rest.iter_mut().for_each(|l| l.push(Packet::Data(v.clone())));
                    last.push(Packet::Data(v));
                }
                Some(Packet::End(level)) => self.lanes.iter_mut().for_each(|l| l.push(Packet::End(level))),
                Some(Packet::Mark(m)) => {
                    self.lanes.iter_mut().for_each(|l| l.push(Packet::Mark(m)));
                    marks::passed(&mut self.marks, m, 1, self.lanes.len());
                }
                None => {
                    if done == 0 && self.input.is_closed() {
                        return Step::Done;
                    }
                    break;
                }
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.input.flush();
        self.lanes.iter_mut().for_each(Sender::flush);
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }
}

/// Takes the copies the replicas release, in lockstep, and sends one on
/// (the first) or, with `merge`, their merge (`keyed.rs`).
pub struct StickyJoin<T, M> {
    parts: Vec<Receiver<T>>,
    out: Out<T>,
    merge: M,
    marks: Option<Marks>,
}

impl<T, M: FnMut(Vec<T>) -> T> StickyJoin<T, M> {
    /// Join what `parts` release (one lane per replica, in replica order)
    /// into `out` with `merge`.
    pub fn new(parts: Vec<Receiver<T>>, out: Out<T>, merge: M) -> Self {
        StickyJoin { parts, out, merge, marks: None }
    }
}

impl<T: Send, M: FnMut(Vec<T>) -> T + Send> Node for StickyJoin<T, M> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget && self.out.room() > 0 {
            if let Some(Packet::Mark(m)) = self.parts.first().and_then(Receiver::peek) {
                let m = *m;
                if !self.parts.iter().all(|p| p.peek().is_some()) {
                    break;
                }
                for p in &mut self.parts {
                    let same = matches!(p.pop(), Some(Packet::Mark(x)) if x == m);
                    assert!(same, "ohua internal error: replicas released markers out of step");
                }
                let forwarded = self.out.send_mark(m);
                marks::passed(&mut self.marks, m, self.parts.len(), forwarded);
                done += 1;
                continue;
            }
            let mut heads = self.parts.iter().map(|p| match p.peek() {
                Some(Packet::Data(_)) => Some(None),
                Some(Packet::End(l)) => Some(Some(*l)),
                Some(Packet::Mark(m)) => panic!("ohua internal error: replicas released {m:?} out of step"),
                None => None,
            });
            let Some(Some(first)) = heads.next() else {
                if done == 0 && self.parts.iter().all(Receiver::is_closed) {
                    return Step::Done;
                }
                break;
            };
            if heads.any(|h| h.is_none()) {
                break;
            }
            match first {
                None => {
                    let parts: Vec<T> = self
                        .parts
                        .iter_mut()
                        .map(|p| match p.pop() {
                            Some(Packet::Data(part)) => part,
                            _ => panic!("ohua internal error: replicas released values out of step"),
                        })
                        .collect();
                    let joined = (self.merge)(parts);
                    self.out.send(joined);
                }
                Some(level) => {
                    for p in &mut self.parts {
                        let end = matches!(p.pop(), Some(Packet::End(l)) if l == level);
                        assert!(end, "ohua internal error: replicas released markers out of step");
                    }
                    self.out.send_end(level);
                }
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.parts.iter_mut().for_each(Receiver::flush);
        self.out.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }
}

/// The sticky inputs of a replicable call: none, or read-only values whose
/// type is `Clone`. Splits them into one set per replica of node `id`.
pub trait FanSticky: StickySet + Sized {
    /// Whether there are values (then every replica must see every marker,
    /// to release its copies at the end of their activation).
    const HOLDS_VALUES: bool;

    /// The values of a set without any (`()`): a statement served in
    /// another process gets them there (`exec/serialized.rs`); `None` where
    /// there are values, which stay in this process.
    fn no_values() -> Option<Self::Values> {
        None
    }

    /// One sticky set per replica, each reading its own copies; installs a
    /// fan and a join per value.
    fn fan<'a, I: Install<'a>>(self, builder: &mut I, id: usize, replicas: usize) -> Vec<Self>
    where
        Self: 'a;
}

impl FanSticky for () {
    const HOLDS_VALUES: bool = false;
    fn no_values() -> Option<()> {
        Some(())
    }
    fn fan<'a, I: Install<'a>>(self, _: &mut I, _: usize, replicas: usize) -> Vec<()>
    where
        Self: 'a,
    {
        vec![(); replicas]
    }
}

/// One value's copies: a fan and a join installed, one sticky per replica.
fn fan_one<'a, T: Clone + Send + 'a, I: Install<'a>>(sticky: Sticky<T>, builder: &mut I, id: usize) -> Vec<Sticky<T>> {
    let (input, home, release) = sticky.into_parts();
    let (to_replicas, lanes) = builder.lanes::<T>(id, true, LANE_DEPTH);
    let (released, back) = builder.lanes::<T>(id, false, LANE_DEPTH);
    builder.install_extra(id, Role::Node, Box::new(StickyFan { input, lanes: to_replicas, marks: None }));
    let first = |mut copies: Vec<T>| copies.swap_remove(0);
    builder.install_extra(id, Role::Merge, Box::new(StickyJoin::new(back, release, first)));
    lanes.into_iter().zip(released).map(|(lane, rel)| Sticky::new(In::new(lane), home, Out::new(vec![rel]))).collect()
}

macro_rules! impl_fan {
    ($($name:ident $idx:tt),+) => {
        impl<$($name: Clone + Send),+> FanSticky for ($(Sticky<$name>,)+) {
            const HOLDS_VALUES: bool = true;
            #[allow(non_snake_case)]
            fn fan<'a, Inst: Install<'a>>(self, builder: &mut Inst, id: usize, replicas: usize) -> Vec<Self>
            where
                Self: 'a,
            {
                $(let mut $name = fan_one(self.$idx, builder, id).into_iter();)+
                (0..replicas).map(|_| ($($name.next().expect("one copy per replica"),)+)).collect()
            }
        }
    };
}

impl_fan!(A 0);
impl_fan!(A 0, B 1);
impl_fan!(A 0, B 1, C 2);
impl_fan!(A 0, B 1, C 2, D 3);
impl_fan!(A 0, B 1, C 2, D 3, E 4);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
impl_fan!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
