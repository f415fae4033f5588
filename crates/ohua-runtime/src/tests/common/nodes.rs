//! Minimal operators: a counting source, a map, a collecting sink, a gate
//! that blocks its thread on a std channel, and a source over borrowed data.

use std::sync::mpsc;

use crate::exec::ResultSlot;
use crate::node::{Node, Step};
use crate::packet::Packet;
use crate::port::{In, Out};

/// Emits `0..end`, then is done.
pub struct Count {
    pub out: Out<u64>,
    pub next: u64,
    pub end: u64,
}

impl Count {
    pub fn new(out: Out<u64>, end: u64) -> Self {
        Count { out, next: 0, end }
    }
}

impl Node for Count {
    fn step(&mut self, budget: usize) -> Step {
        if self.next == self.end {
            return Step::Done;
        }
        let left = usize::try_from(self.end - self.next).unwrap_or(usize::MAX);
        let n = budget.min(self.out.room()).min(left);
        if n == 0 {
            return Step::Blocked;
        }
        for _ in 0..n {
            self.out.send(self.next);
            self.next += 1;
        }
        Step::Progress(n)
    }

    fn flush(&mut self) {
        self.out.flush();
    }
}

/// Emits the items of a borrowed slice: graphs may hold non-`'static` data.
pub struct Slice<'a> {
    pub out: Out<u64>,
    pub items: std::slice::Iter<'a, u64>,
}

impl Node for Slice<'_> {
    fn step(&mut self, budget: usize) -> Step {
        if self.items.len() == 0 {
            return Step::Done;
        }
        let n = budget.min(self.out.room()).min(self.items.len());
        if n == 0 {
            return Step::Blocked;
        }
        for &x in self.items.by_ref().take(n) {
            self.out.send(x);
        }
        Step::Progress(n)
    }

    fn flush(&mut self) {
        self.out.flush();
    }
}

/// Applies `f` to every item.
pub struct Map<F> {
    pub inp: In<u64>,
    pub out: Out<u64>,
    pub f: F,
}

impl<F: FnMut(u64) -> u64 + Send> Map<F> {
    pub fn new(inp: In<u64>, out: Out<u64>, f: F) -> Self {
        Map { inp, out, f }
    }
}

impl<F: FnMut(u64) -> u64 + Send> Node for Map<F> {
    fn step(&mut self, budget: usize) -> Step {
        let mut n = 0;
        while n < budget && self.out.room() > 0 {
            match self.inp.pop() {
                Some(Packet::Data(x)) => self.out.send((self.f)(x)),
                Some(Packet::End(l)) => self.out.send_end(l),
                Some(Packet::Mark(m)) => {
                    self.out.send_mark(m);
                }
                None if self.inp.is_closed() && n == 0 => return Step::Done,
                None => break,
            }
            n += 1;
        }
        if n > 0 {
            Step::Progress(n)
        } else {
            Step::Blocked
        }
    }

    fn flush(&mut self) {
        self.inp.flush();
        self.out.flush();
    }
}

/// Collects every item; when the input closes, hands them to `slot`.
pub struct Sink {
    pub inp: In<u64>,
    pub items: Vec<u64>,
    pub slot: ResultSlot<Vec<u64>>,
    /// Told once the sink has set its slot.
    pub done: Option<mpsc::Sender<()>>,
}

impl Sink {
    pub fn new(inp: In<u64>, slot: ResultSlot<Vec<u64>>) -> Self {
        Sink { inp, items: Vec::new(), slot, done: None }
    }
}

impl Node for Sink {
    fn step(&mut self, budget: usize) -> Step {
        let mut n = 0;
        while n < budget {
            match self.inp.pop() {
                Some(Packet::Data(x)) => self.items.push(x),
                Some(Packet::End(_) | Packet::Mark(_)) => {}
                None => break,
            }
            n += 1;
        }
        if n > 0 {
            return Step::Progress(n);
        }
        if self.inp.is_closed() {
            self.slot.set(std::mem::take(&mut self.items));
            if let Some(done) = self.done.take() {
                let _ = done.send(());
            }
            return Step::Done;
        }
        Step::Blocked
    }

    fn flush(&mut self) {
        self.inp.flush();
    }
}

/// Forwards items unchanged, but its first step blocks the thread until a
/// message arrives on `open` (an operator doing blocking I/O).
pub struct Gate {
    pub inp: In<u64>,
    pub out: Out<u64>,
    pub open: Option<mpsc::Receiver<()>>,
}

impl Node for Gate {
    fn step(&mut self, budget: usize) -> Step {
        if let Some(rx) = self.open.take() {
            rx.recv().expect("gate: the signalling side vanished");
        }
        let mut n = 0;
        while n < budget && self.out.room() > 0 {
            match self.inp.pop() {
                Some(Packet::Data(x)) => self.out.send(x),
                Some(Packet::End(l)) => self.out.send_end(l),
                Some(Packet::Mark(m)) => {
                    self.out.send_mark(m);
                }
                None if self.inp.is_closed() && n == 0 => return Step::Done,
                None => break,
            }
            n += 1;
        }
        if n > 0 {
            Step::Progress(n)
        } else {
            Step::Blocked
        }
    }

    fn flush(&mut self) {
        self.inp.flush();
        self.out.flush();
    }
}
