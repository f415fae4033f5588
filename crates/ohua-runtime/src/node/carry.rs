//! `carry` and `loop`: values carried from one iteration to the next.
//!
//! Both close a cycle through the loop body: they emit the current value of
//! the carried variables for one iteration, then wait for the body to feed the
//! next value back. Only one iteration per loop is in flight in this cycle,
//! which is exactly the dependency sequential execution has; everything in the
//! body that does not depend on the carried values still pipelines.

use std::ops::ControlFlow;

use super::marks::{self, Attach, Marks};
use super::{Node, Step};
use crate::packet::{Level, Packet};
use crate::port::{In, Out};
use crate::update::{Parts, StateRef};

/// Pop the end markers the loop body echoed back into the feedback arc.
///
/// Outside an iteration the feedback stream can only hold such echoes (its
/// data answers an iteration the node emitted). They must be drained even
/// when no iteration is running: a run of empty loops echoes one marker per
/// activation, and a full feedback arc would stall the body and everything
/// upstream of it. Control markers the body forwarded come back the same
/// way and end there (a feedback arc does not count them, see
/// `Sender::feedback`). Returns how many were popped.
fn drain_echoes<T>(feedback: &mut In<T>) -> usize {
    let mut n = 0;
    while let Some(Packet::End(_) | Packet::Mark(_)) = feedback.peek() {
        feedback.pop();
        n += 1;
    }
    n
}

/// Shows the parts of a carried tuple (`Parts::visit_parts`).
type VisitParts<T> = fn(&mut T, &mut dyn FnMut(StateRef<'_>));

enum Phase<T> {
    /// Between activations of the parent level: no value held.
    NeedInit,
    /// Holding the value for the next iteration.
    Holding(T),
    /// Emitted an iteration; waiting for its feedback.
    AwaitFeedback,
}

/// Loop-carried values of a `for` loop: driven by the loop's ticks.
///
/// Per parent activation: takes `init`; for every tick emits the held value on
/// `current` and waits for `feedback`; at `End(level)` emits the held value on
/// `final_out` (the values after the loop).
pub struct Carry<T> {
    init: In<T>,
    ticks: In<()>,
    feedback: In<T>,
    level: Level,
    current: Out<T>,
    final_out: Out<T>,
    phase: Phase<T>,
    marks: Option<Marks>,
    /// Shows the parts of the held tuple to a marker that transforms or
    /// saves states (`Carry::with_states`).
    parts: Option<VisitParts<T>>,
}

impl<T: Send> Carry<T> {
    /// Carry for a loop entered at `level` (body at `level + 1`).
    pub fn new(init: In<T>, ticks: In<()>, feedback: In<T>, level: Level, current: Out<T>, final_out: Out<T>) -> Self {
        Carry { init, ticks, feedback, level, current, final_out, phase: Phase::NeedInit, marks: None, parts: None }
    }

    /// Let markers transform and save the carried values (the states the
    /// loop body threads through several statements): between two
    /// iterations this node holds them, so it is where they are at a cut.
    #[doc(hidden)]
    pub fn with_states(mut self) -> Self
    where
        T: Parts,
    {
        self.parts = Some(<T as Parts>::visit_parts);
        self
    }

    /// Take the parent's initial value if none is held. False if not there yet.
    fn ensure_value(&mut self) -> bool {
        if let Phase::NeedInit = self.phase {
            match self.init.pop() {
                Some(Packet::Data(v)) => self.phase = Phase::Holding(v),
                None => return false,
                Some(Packet::End(l)) => panic!("ohua internal error: carry init End({l})"),
                Some(Packet::Mark(m)) => panic!("ohua internal error: carry init {m:?}"),
            }
        }
        true
    }
}

impl<T: Send> Node for Carry<T> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget {
            if !matches!(self.phase, Phase::AwaitFeedback) {
                done += drain_echoes(&mut self.feedback);
            }
            if let Phase::AwaitFeedback = self.phase {
                match self.feedback.pop() {
                    Some(Packet::Data(v)) => {
                        self.phase = Phase::Holding(v);
                        self.ticks.hold(false);
                    }
                    Some(Packet::End(_) | Packet::Mark(_)) => {} // the body echoes our markers; skip them
                    None => break,
                }
                done += 1;
                continue;
            }
            match self.ticks.peek() {
                Some(Packet::Data(())) => {
                    if self.current.room() == 0 || !self.ensure_value() {
                        break;
                    }
                    self.ticks.pop();
                    if let Phase::Holding(v) = std::mem::replace(&mut self.phase, Phase::AwaitFeedback) {
                        self.current.send(v);
                    }
                    // Until the body answers, the loop entry does not block
                    // its thread in a source's `next()` (see `SMap`): the
                    // body may need that thread to answer.
                    self.ticks.hold(true);
                }
                Some(Packet::End(l)) if *l == self.level => {
                    if self.current.room() == 0 || self.final_out.room() == 0 || !self.ensure_value() {
                        break;
                    }
                    self.ticks.pop();
                    if let Phase::Holding(v) = std::mem::replace(&mut self.phase, Phase::NeedInit) {
                        self.final_out.send(v);
                    }
                    self.current.send_end(self.level);
                }
                Some(Packet::End(l)) => {
                    let l = *l;
                    if self.current.room() == 0 || self.final_out.room() == 0 {
                        break;
                    }
                    match self.init.peek() {
                        Some(Packet::End(m)) if *m == l => {}
                        None if !self.init.is_closed() => break,
                        _ => panic!("ohua internal error: carry init not at End({l})"),
                    }
                    self.ticks.pop();
                    self.init.pop();
                    self.current.send_end(l);
                    self.final_out.send_end(l);
                }
                // A control marker between two iterations of this loop goes
                // into the body (which echoes it back); one from further out
                // is on the initial values too, and goes on after the loop.
                // Between two iterations the carry holds the values the
                // body threads from one to the next: the states at the cut.
                Some(Packet::Mark(m)) if m.level == self.level => {
                    let m = *m;
                    if self.current.room() == 0 {
                        break;
                    }
                    let states = self.parts.filter(|_| marks::wants_states(&self.marks, m));
                    if states.is_some() && !self.ensure_value() {
                        break;
                    }
                    self.ticks.pop();
                    let forwarded = self.current.send_mark(m);
                    match (states, &mut self.phase) {
                        (Some(visit), Phase::Holding(v)) => {
                            marks::passed_with_states(&mut self.marks, m, 1, forwarded, &mut |f| visit(v, f))
                        }
                        _ => marks::passed(&mut self.marks, m, 1, forwarded),
                    }
                }
                Some(Packet::Mark(m)) => {
                    let m = *m;
                    if self.current.room() == 0 || self.final_out.room() == 0 {
                        break;
                    }
                    match self.init.peek() {
                        Some(Packet::Mark(x)) if *x == m => {}
                        None if !self.init.is_closed() => break,
                        _ => panic!("ohua internal error: carry init not at {m:?}"),
                    }
                    self.ticks.pop();
                    self.init.pop();
                    let forwarded = self.current.send_mark(m) + self.final_out.send_mark(m);
                    marks::passed(&mut self.marks, m, 2, forwarded);
                }
                None if self.ticks.is_closed() && done == 0 => return Step::Done,
                None => break,
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.init.flush();
        self.ticks.flush();
        self.feedback.flush();
        self.current.flush();
        self.final_out.flush();
    }

    fn describe(&self) -> String {
        let phase = match self.phase {
            Phase::NeedInit => "need-init",
            Phase::Holding(_) => "holding",
            Phase::AwaitFeedback => "await-feedback",
        };
        let ins = [self.init.describe(), self.ticks.describe(), self.feedback.describe()];
        format!("{phase} {}", super::describe::ports(&ins, &[self.current.describe(), self.final_out.describe()]))
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }
}

/// Loop-carried values of a `while` loop or tail recursion.
///
/// Per parent activation: takes `init` and emits it as the first iteration;
/// the body answers every iteration on `feedback` with `Continue(next)` (emit
/// `next` as the following iteration) or `Break(result)` (emit `result` after
/// the loop and end the activation).
pub struct LoopCarry<C, B> {
    init: In<C>,
    feedback: In<ControlFlow<B, C>>,
    level: Level,
    current: Out<C>,
    ticks: Out<()>,
    result: Out<B>,
    in_loop: bool,
    marks: Option<Marks>,
}

impl<C: Send, B: Send> LoopCarry<C, B> {
    /// A loop entered at `level` (body at `level + 1`).
    pub fn new(
        init: In<C>,
        feedback: In<ControlFlow<B, C>>,
        level: Level,
        current: Out<C>,
        ticks: Out<()>,
        result: Out<B>,
    ) -> Self {
        LoopCarry { init, feedback, level, current, ticks, result, in_loop: false, marks: None }
    }

    fn room(&mut self) -> bool {
        self.current.room() > 0 && self.ticks.room() > 0 && self.result.room() > 0
    }
}

impl<C: Send, B: Send> Node for LoopCarry<C, B> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget {
            if !self.in_loop {
                done += drain_echoes(&mut self.feedback);
            }
            if !self.room() {
                break;
            }
            if self.in_loop {
                match self.feedback.pop() {
                    Some(Packet::Data(ControlFlow::Continue(c))) => {
                        self.current.send(c);
                        self.ticks.send(());
                    }
                    Some(Packet::Data(ControlFlow::Break(b))) => {
                        self.result.send(b);
                        self.current.send_end(self.level);
                        self.ticks.send_end(self.level);
                        self.in_loop = false;
                    }
                    Some(Packet::End(_) | Packet::Mark(_)) => {} // echoed markers
                    None => break,
                }
            } else {
                match self.init.pop() {
                    Some(Packet::Data(c)) => {
                        self.current.send(c);
                        self.ticks.send(());
                        self.in_loop = true;
                    }
                    Some(Packet::End(l)) => {
                        self.current.send_end(l);
                        self.ticks.send_end(l);
                        self.result.send_end(l);
                    }
                    Some(Packet::Mark(m)) => {
                        let forwarded = self.current.send_mark(m) + self.ticks.send_mark(m) + self.result.send_mark(m);
                        marks::passed(&mut self.marks, m, 1, forwarded);
                    }
                    None if self.init.is_closed() && done == 0 => return Step::Done,
                    None => break,
                }
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.init.flush();
        self.feedback.flush();
        self.current.flush();
        self.ticks.flush();
        self.result.flush();
    }

    fn describe(&self) -> String {
        let phase = if self.in_loop { "in-loop" } else { "between" };
        let ins = [self.init.describe(), self.feedback.describe()];
        let outs = [self.current.describe(), self.ticks.describe(), self.result.describe()];
        format!("{phase} {}", super::describe::ports(&ins, &outs))
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }
}
