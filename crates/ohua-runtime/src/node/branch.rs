//! `switch` and `merge`: entering and leaving the arms of `if`/`match`.

use super::marks::{self, Attach, Marks};
use super::{Node, Step};
use crate::packet::Packet;
use crate::port::{In, Out};

/// Forwards each value to the arm its arm index selects; markers go to every arm.
///
/// # Example
///
/// An arm index of 1 sends the value to the second arm only: see the unit
/// test `a_value_goes_to_the_arm_its_index_selects`.
pub struct Switch<T> {
    arm: In<usize>,
    value: In<T>,
    arms: Vec<Out<T>>,
    marks: Option<Marks>,
}

impl<T: Send> Switch<T> {
    /// Switch `value` by `arm` into `arms`.
    pub fn new(arm: In<usize>, value: In<T>, arms: Vec<Out<T>>) -> Self {
        Switch { arm, value, arms, marks: None }
    }
}

impl<T: Send> Node for Switch<T> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget {
            match (self.arm.peek(), self.value.peek()) {
                (Some(Packet::Data(k)), Some(Packet::Data(_))) => {
                    let k = *k;
                    if self.arms[k].room() == 0 {
                        break;
                    }
                    self.arm.pop();
                    if let Some(Packet::Data(v)) = self.value.pop() {
                        self.arms[k].send(v);
                    }
                }
                (Some(Packet::End(a)), Some(Packet::End(b))) if a == b => {
                    let l = *a;
                    if self.arms.iter_mut().any(|o| o.room() == 0) {
                        break;
                    }
                    self.arm.pop();
                    self.value.pop();
                    self.arms.iter_mut().for_each(|o| o.send_end(l));
                }
                (Some(Packet::Mark(a)), Some(Packet::Mark(b))) if a == b => {
                    let m = *a;
                    if self.arms.iter_mut().any(|o| o.room() == 0) {
                        break;
                    }
                    self.arm.pop();
                    self.value.pop();
                    let forwarded = self.arms.iter_mut().map(|o| o.send_mark(m)).sum();
                    marks::passed(&mut self.marks, m, 2, forwarded);
                }
                (None, None) if self.arm.is_closed() && self.value.is_closed() && done == 0 => return Step::Done,
                (None, _) | (_, None) => break,
                _ => panic!("ohua internal error: switch inputs out of step"),
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.arm.flush();
        self.value.flush();
        self.arms.iter_mut().for_each(Out::flush);
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        let outs: Vec<String> = self.arms.iter().map(Out::describe).collect();
        super::describe::ports(&[self.arm.describe(), self.value.describe()], &outs)
    }
}

/// Takes each activation's value from the arm its arm index selects.
pub struct Merge<T> {
    arm: In<usize>,
    arms: Vec<In<T>>,
    out: Out<T>,
    marks: Option<Marks>,
}

impl<T: Send> Merge<T> {
    /// Merge `arms` by `arm` into `out`.
    pub fn new(arm: In<usize>, arms: Vec<In<T>>, out: Out<T>) -> Self {
        Merge { arm, arms, out, marks: None }
    }
}

impl<T: Send> Node for Merge<T> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget && self.out.room() > 0 {
            match self.arm.peek() {
                Some(Packet::Data(k)) => {
                    let k = *k;
                    match self.arms[k].peek() {
                        Some(Packet::Data(_)) => {}
                        None => break,
                        Some(Packet::End(l)) => {
                            panic!("ohua internal error: merge arm {k} has End({l}), expected data")
                        }
                        Some(Packet::Mark(m)) => {
                            panic!("ohua internal error: merge arm {k} has {m:?}, expected data")
                        }
                    }
                    self.arm.pop();
                    if let Some(Packet::Data(v)) = self.arms[k].pop() {
                        self.out.send(v);
                    }
                }
                Some(Packet::End(l)) => {
                    let l = *l;
                    let all_there = self.arms.iter().all(|a| match a.peek() {
                        Some(Packet::End(m)) if *m == l => true,
                        None => false,
                        _ => panic!("ohua internal error: merge arm not at End({l})"),
                    });
                    if !all_there {
                        break;
                    }
                    self.arm.pop();
                    self.arms.iter_mut().for_each(|a| {
                        a.pop();
                    });
                    self.out.send_end(l);
                }
                Some(Packet::Mark(m)) => {
                    let m = *m;
                    let all_there = self.arms.iter().all(|a| match a.peek() {
                        Some(Packet::Mark(x)) if *x == m => true,
                        None => false,
                        _ => panic!("ohua internal error: merge arm not at {m:?}"),
                    });
                    if !all_there {
                        break;
                    }
                    self.arm.pop();
                    self.arms.iter_mut().for_each(|a| {
                        a.pop();
                    });
                    let forwarded = self.out.send_mark(m);
                    marks::passed(&mut self.marks, m, 1 + self.arms.len(), forwarded);
                }
                None if self.arm.is_closed() && done == 0 => return Step::Done,
                None => break,
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.arm.flush();
        self.arms.iter_mut().for_each(In::flush);
        self.out.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        let ins: Vec<String> = std::iter::once(self.arm.describe()).chain(self.arms.iter().map(In::describe)).collect();
        super::describe::ports(&ins, &[self.out.describe()])
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `Switch`'s example.
    #[test]
    fn a_value_goes_to_the_arm_its_index_selects() {
        use crate::{
            arc::channel,
            node::{branch::Switch, Node},
            packet::Packet,
            port::{In, Out},
        };
        let (mut ctx, crx) = channel::<usize>(2, None, None);
        let (mut vtx, vrx) = channel::<&str>(2, None, None);
        let (a, mut arx) = channel(2, None, None);
        let (b, mut brx) = channel(2, None, None);
        let mut s = Switch::new(In::new(crx), In::new(vrx), vec![Out::new(vec![a]), Out::new(vec![b])]);
        ctx.push(Packet::Data(1));
        vtx.push(Packet::Data("x"));
        // Publish, as a section does after each step.
        ctx.flush();
        vtx.flush();
        s.step(4);
        s.flush();
        assert!(arx.pop().is_none());
        assert_eq!(brx.pop(), Some(Packet::Data("x")));
    }
}
