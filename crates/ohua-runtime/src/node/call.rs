//! `call`: runs one statement of user code per activation.

use super::inputs::{DataInputs, Head, InputCursor};
use super::outputs::{OutputCursor, OutputSet};
use super::sticky::{Ready, StickySet};
use super::{Node, Step};

/// The operator for a (stateful or stateless) function call.
///
/// Per activation it pops one value from every data input, lends it the
/// sticky values, runs `f`, takes the sticky values back and sends one value
/// on every output. Markers are forwarded; sticky values are released at the
/// end of their home level.
///
/// # Example
///
/// ```
/// use ohua_runtime::{arc::channel, port::{In, Out}, node::{Node, Step, call::Call}};
/// use ohua_runtime::packet::Packet;
/// let (mut tx, rx) = channel::<u32>(4, None, None);
/// let (otx, mut orx) = channel::<u32>(4, None, None);
/// let mut node = Call::new((In::new(rx),), (), (Out::new(vec![otx]),),
///     |(x,): (u32,), ()| ((), (x + 1,)));
/// tx.push(Packet::Data(41));
/// tx.flush(); // publish, as a section does after each step
/// assert_eq!(node.step(8), Step::Progress(1));
/// node.flush();
/// assert_eq!(orx.pop(), Some(Packet::Data(42)));
/// ```
pub struct Call<I, S, O, F> {
    inputs: I,
    sticky: S,
    outputs: O,
    f: F,
}

impl<I, S, O, F> Call<I, S, O, F>
where
    I: DataInputs,
    S: StickySet,
    O: OutputSet,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send,
{
    /// Build the operator.
    pub fn new(inputs: I, sticky: S, outputs: O, f: F) -> Self {
        Call { inputs, sticky, outputs, f }
    }

    /// Fire up to `run` times; every input holds and every output has room
    /// for `run` packets. Returns how many fired: fewer when a sticky value
    /// (or room on its release port) is not there yet.
    ///
    /// The loop runs on cursors (the ring positions as locals), so per
    /// firing it costs little more than the user's function call.
    ///
    /// Sticky values stay in a local (`held`) from the first data packet of
    /// the run until an end marker or the end of the run, instead of being
    /// taken out of and put back into the operator for every firing. The
    /// round trip through the operator's memory cost a store-forwarding
    /// stall per firing (a 16-byte load of a value just written as three
    /// 8-byte stores): the `out.push(x)` of the chain benchmark took as long
    /// as its twenty stage calls (`BENCHMARKS.md`). A run of data packets
    /// cannot release a sticky value (only an end marker of its level does),
    /// so holding it across the run fires exactly as taking it each time.
    #[inline(always)]
    fn fire_run(&mut self, run: usize) -> usize {
        let Call { inputs, sticky, outputs, f } = self;
        let Some(mut out) = outputs.cursor() else {
            return Self::fire_run_general(inputs, sticky, outputs, f, run);
        };
        let mut input = inputs.cursor();
        let mut held: Option<S::Values> = None;
        for fired in 0..run {
            // SAFETY (all cursor calls): the run was sized by the packets
            // every input holds and the room every output has.
            match unsafe { input.head() } {
                Head::Data => {
                    let values = match held.take() {
                        Some(values) => values,
                        None => {
                            if sticky.ready_for_data() == Ready::Wait {
                                return fired;
                            }
                            sticky.take()
                        }
                    };
                    let args = unsafe { input.pop_data() };
                    let (values, result) = f(args, values);
                    held = Some(values);
                    unsafe { out.send(result) };
                }
                Head::End(level) => {
                    if let Some(values) = held.take() {
                        sticky.put(values);
                    }
                    if sticky.ready_for_end(level) == Ready::Wait {
                        return fired;
                    }
                    unsafe { input.pop_end() };
                    sticky.on_end(level);
                    unsafe { out.send_end(level) };
                }
                Head::Empty | Head::Closed => unreachable!("a cursor head always holds a packet"),
            }
        }
        if let Some(values) = held {
            sticky.put(values);
        }
        run
    }

    #[inline(never)]
    fn fire_run_general(inputs: &mut I, sticky: &mut S, outputs: &mut O, f: &mut F, run: usize) -> usize {
        for fired in 0..run {
            match inputs.head() {
                Head::Data => {
                    if sticky.ready_for_data() == Ready::Wait {
                        return fired;
                    }
                    let held = sticky.take();
                    let (held, result) = f(inputs.pop_data(), held);
                    sticky.put(held);
                    outputs.send(result);
                }
                Head::End(level) => {
                    if sticky.ready_for_end(level) == Ready::Wait {
                        return fired;
                    }
                    inputs.pop_end();
                    sticky.on_end(level);
                    outputs.send_end(level);
                }
                Head::Empty | Head::Closed => unreachable!("a run covers available packets only"),
            }
        }
        run
    }
}

impl<I, S, O, F> Node for Call<I, S, O, F>
where
    I: DataInputs,
    S: StickySet,
    O: OutputSet,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget {
            // A run: packets that every input holds and every output can
            // take, fired without re-checking availability or room per item.
            let run = self.inputs.available().min(self.outputs.room()).min(budget - done);
            if run == 0 {
                if done == 0 && self.inputs.head() == Head::Closed {
                    return Step::Done;
                }
                break;
            }
            let fired = self.fire_run(run);
            done += fired;
            if fired < run {
                break; // a sticky input or release port is not ready
            }
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.inputs.flush();
        self.sticky.flush();
        self.outputs.flush();
    }

    fn describe(&self) -> String {
        let sticky = self.sticky.describe();
        let base = super::describe::ports(&self.inputs.describe(), &self.outputs.describe());
        if sticky.is_empty() {
            base
        } else {
            format!("{base} sticky[{}]", sticky.join("; "))
        }
    }
}
