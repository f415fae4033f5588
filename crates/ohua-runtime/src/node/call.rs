//! `call`: runs one statement of user code per activation.

use super::inputs::{DataInputs, Head};
use super::outputs::OutputSet;
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
/// assert_eq!(node.step(8), Step::Progress(1));
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
            match self.inputs.head() {
                Head::Data => {
                    if self.outputs.room() == 0 || self.sticky.ready_for_data() == Ready::Wait {
                        break;
                    }
                    let args = self.inputs.pop_data();
                    let held = self.sticky.take();
                    let (held, out) = (self.f)(args, held);
                    self.sticky.put(held);
                    self.outputs.send(out);
                }
                Head::End(level) => {
                    if self.outputs.room() == 0 || self.sticky.ready_for_end(level) == Ready::Wait {
                        break;
                    }
                    self.inputs.pop_end();
                    self.sticky.on_end(level);
                    self.outputs.send_end(level);
                }
                Head::Empty => break,
                Head::Closed => return if done > 0 { Step::Progress(done) } else { Step::Done },
            }
            done += 1;
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
