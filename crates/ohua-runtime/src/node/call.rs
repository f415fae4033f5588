//! `call`: runs one statement of user code per activation.

use super::inputs::{DataInputs, Head, InputCursor};
use super::marks::{self, Attach, Marks};
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
/// A call of `x + 1` sends 42 for 41: see the unit test
/// `a_call_sends_its_result_for_each_input`.
pub struct Call<I, S, O, F> {
    ports: Ports<I, S, O>,
    f: F,
}

/// What a [`Call`] holds besides its function: its ports and its marker
/// bookkeeping. The code that does not call the function (markers, the
/// fan-out path, `flush`, `describe`, `attach`) lives here, so it is
/// compiled once per port types rather than once per call site: every
/// statement of an algorithm is a `Call` with a closure type of its own,
/// and these methods were a third of a large algorithm's LLVM IR
/// (BENCHMARKS.md, "Compile time").
struct Ports<I, S, O> {
    inputs: I,
    sticky: S,
    outputs: O,
    marks: Option<Marks>,
}

/// The function of a call behind a pointer: what the paths that are not
/// per-call-site take ([`Ports::fire_run_general`]).
type DynFn<'f, I, S, O> = dyn FnMut(<I as DataInputs>::Item, <S as StickySet>::Values) -> (<S as StickySet>::Values, <O as OutputSet>::Item)
    + 'f;

impl<I, S, O, F> Call<I, S, O, F>
where
    I: DataInputs,
    S: StickySet,
    O: OutputSet,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send,
{
    /// Build the operator.
    pub fn new(inputs: I, sticky: S, outputs: O, f: F) -> Self {
        Call { ports: Ports { inputs, sticky, outputs, marks: None }, f }
    }

    /// Fire up to `run` times; every input holds and every output has room
    /// for `run` packets. Returns how many fired: fewer when a sticky value
    /// (or room on its release port) is not there yet.
    ///
    /// The loop runs on cursors (the ring positions as locals), so per
    /// firing it costs little more than the user's function call. Sticky
    /// values are lent to the whole run ([`Lent`]).
    #[inline(always)]
    fn fire_run(&mut self, run: usize) -> usize {
        let Call { ports, f } = self;
        let Some(mut out) = ports.outputs.cursor() else {
            return ports.fire_run_general(f, run);
        };
        let Ports { inputs, sticky, .. } = ports;
        let mut input = inputs.cursor();
        let mut lent = Lent(None);
        for fired in 0..run {
            // SAFETY (every cursor call below): `run` is at most the packets
            // every input holds and the room every output has, and each
            // iteration pops one packet per input and sends one per output.
            match unsafe { input.head() } {
                Head::Data => {
                    let Some(values) = lent.take(sticky) else { return fired };
                    let (values, result) = f(unsafe { input.pop_data() }, values);
                    lent.keep(values);
                    unsafe { out.send(result) };
                }
                Head::End(level) => {
                    lent.give_back(sticky);
                    if sticky.ready_for_end(level) == Ready::Wait {
                        return fired;
                    }
                    unsafe { input.pop_end() };
                    sticky.on_end(level);
                    unsafe { out.send_end(level) };
                }
                Head::Mark(_) => {
                    // Rare: the step passes it through the ports.
                    lent.give_back(sticky);
                    return fired;
                }
                Head::Empty | Head::Closed => unreachable!("a cursor head always holds a packet"),
            }
        }
        lent.give_back(sticky);
        run
    }
}

impl<I, S, O> Ports<I, S, O>
where
    I: DataInputs,
    S: StickySet,
    O: OutputSet,
{
    /// Pass control marker `m` (at the head of every data input) if the
    /// sticky slots and outputs are ready; false if not yet.
    #[inline(never)]
    fn pass_mark(&mut self, m: crate::packet::Mark) -> bool {
        if self.outputs.room() == 0 || self.sticky.ready_for_mark(m) == Ready::Wait {
            return false;
        }
        // A keyed scatter's local marker concerns no service.
        let local = m.is_local();
        // An update that transforms states needs them held at the cut.
        let transforms = !local && marks::wants_states(&self.marks, m);
        if transforms && self.sticky.acquire_for_mark(m) == Ready::Wait {
            return false;
        }
        // A rescaling of this keyed call: the part goes back to the scatter.
        let regroup = local || marks::regroup(&self.marks, m).is_some();
        if regroup && self.sticky.ready_to_hand_back(m) == Ready::Wait {
            return false;
        }
        self.inputs.pop_end();
        let (taken, released) = self.sticky.on_mark(m);
        if regroup {
            self.sticky.hand_back(m);
        }
        let forwarded = self.outputs.send_mark(m);
        if local {
            return true;
        }
        let (consumed, forwarded) = (self.inputs.count() + taken, forwarded + released);
        if transforms {
            let sticky = &mut self.sticky;
            marks::passed_with_states(&mut self.marks, m, consumed, forwarded, &mut |f| sticky.visit_states(m, f));
        } else {
            marks::passed(&mut self.marks, m, consumed, forwarded);
        }
        true
    }

    /// [`Call::fire_run`] through the ports (fan-out outputs, gone consumers).
    #[inline(never)]
    fn fire_run_general(&mut self, f: &mut DynFn<'_, I, S, O>, run: usize) -> usize {
        let Ports { inputs, sticky, outputs, .. } = self;
        let mut lent = Lent(None);
        for fired in 0..run {
            match inputs.head() {
                Head::Data => {
                    let Some(values) = lent.take(sticky) else { return fired };
                    let (values, result) = f(inputs.pop_data(), values);
                    lent.keep(values);
                    outputs.send(result);
                }
                Head::End(level) => {
                    lent.give_back(sticky);
                    if sticky.ready_for_end(level) == Ready::Wait {
                        return fired;
                    }
                    inputs.pop_end();
                    sticky.on_end(level);
                    outputs.send_end(level);
                }
                Head::Mark(_) => {
                    lent.give_back(sticky);
                    return fired;
                }
                Head::Empty | Head::Closed => unreachable!("a run covers available packets only"),
            }
        }
        lent.give_back(sticky);
        run
    }

    #[inline(never)]
    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    #[inline(never)]
    fn flush(&mut self) {
        self.inputs.flush();
        self.sticky.flush();
        self.outputs.flush();
    }

    #[inline(never)]
    fn describe(&self) -> String {
        super::describe::call(self.inputs.describe(), self.outputs.describe(), self.sticky.describe())
    }
}

/// Sticky values lent to a run of firings: taken from the operator at the
/// first data packet and kept in a local until an end marker or the end of
/// the run, instead of being taken out and put back for every firing.
///
/// The put-back and the next take went through the operator's memory and
/// cost a store-forwarding stall per firing (a 16-byte load of a value just
/// written as three 8-byte stores): the `out.push(x)` of the chain benchmark
/// took as long as its twenty stage calls (`BENCHMARKS.md`). A run of data
/// packets cannot release a sticky value (only an end marker of its level
/// does), so lending it to the run fires exactly as taking it each time.
struct Lent<V>(Option<V>);

impl<V> Lent<V> {
    /// The values for the next firing, or `None` if a sticky input has no
    /// value yet (the run stops there).
    #[inline(always)]
    fn take<S: StickySet<Values = V>>(&mut self, sticky: &mut S) -> Option<V> {
        if let Some(values) = self.0.take() {
            return Some(values);
        }
        (sticky.ready_for_data() == Ready::Yes).then(|| sticky.take())
    }

    /// The values after a firing, for the next one.
    #[inline(always)]
    fn keep(&mut self, values: V) {
        self.0 = Some(values);
    }

    /// Return the values to the operator (before an end marker, which may
    /// release them, and at the end of the run).
    #[inline(always)]
    fn give_back<S: StickySet<Values = V>>(&mut self, sticky: &mut S) {
        if let Some(values) = self.0.take() {
            sticky.put(values);
        }
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
        // User code sees the replacements this operator has adopted
        // (`crate::update`); `None` unless an update reached it.
        let mut scope = marks::scope(&self.ports.marks);
        while done < budget {
            // A run: packets that every input holds and every output can
            // take, fired without re-checking availability or room per item.
            let (available, room) = (self.ports.inputs.available(), self.ports.outputs.room());
            let run = available.min(room).min(budget - done);
            if run == 0 {
                if done == 0 && self.ports.inputs.head() == Head::Closed {
                    return Step::Done;
                }
                if available > 0 && room == 0 && self.ports.outputs.full_into_another_section() {
                    super::blocking::held_for_room();
                }
                break;
            }
            let fired = self.fire_run(run);
            done += fired;
            if fired < run {
                // A control marker, or a sticky input or release port that
                // is not ready.
                match self.ports.inputs.head() {
                    Head::Mark(m) if self.ports.pass_mark(m) => {
                        done += 1;
                        drop(scope.take());
                        scope = marks::scope(&self.ports.marks);
                    }
                    _ => break,
                }
            }
        }
        drop(scope);
        Step::after(done)
    }

    fn attach(&mut self, at: &Attach) {
        self.ports.attach(at);
    }

    fn flush(&mut self) {
        self.ports.flush();
    }

    fn describe(&self) -> String {
        self.ports.describe()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Call;
    use crate::arc::{channel, Receiver, Sender};
    use crate::node::sticky::Sticky;
    use crate::node::{Node, Step};
    use crate::packet::Packet;
    use crate::port::{In, Out};

    /// `Call`'s example.
    #[test]
    fn a_call_sends_its_result_for_each_input() {
        use crate::packet::Packet;
        use crate::{
            arc::channel,
            node::{call::Call, Node, Step},
            port::{In, Out},
        };
        let (mut tx, rx) = channel::<u32>(4, None, None);
        let (otx, mut orx) = channel::<u32>(4, None, None);
        let mut node = Call::new((In::new(rx),), (), (Out::new(vec![otx]),), |(x,): (u32,), ()| ((), (x + 1,)));
        tx.push(Packet::Data(41));
        tx.flush(); // publish, as a section does after each step
        assert_eq!(node.step(8), Step::Progress(1));
        node.flush();
        assert_eq!(orx.pop(), Some(Packet::Data(42)));
    }

    fn send<T>(tx: &mut Sender<T>, packets: impl IntoIterator<Item = Packet<T>>) {
        for p in packets {
            tx.push(p);
        }
        tx.flush();
    }

    fn drain<T>(rx: &mut Receiver<T>) -> Vec<Packet<T>> {
        std::iter::from_fn(|| rx.pop()).collect()
    }

    /// A loop body `log.push(x)` on a state object `log` from the level
    /// above: the state is a sticky input released at every `End(0)`.
    /// Returns the data sender, the state sender, the operator and the
    /// receivers of its (unit) results and of the released states. With
    /// `fan_out` the results also go to a second consumer, so the operator
    /// fires through its ports instead of cursors (`fire_run_general`).
    #[allow(clippy::type_complexity)]
    fn push_into_state(fan_out: bool) -> (Sender<u32>, Sender<Vec<u32>>, impl Node, Receiver<()>, Receiver<Vec<u32>>) {
        let (data_tx, data_rx) = channel::<u32>(16, None, None);
        let (state_tx, state_rx) = channel::<Vec<u32>>(4, None, None);
        let (out_tx, out_rx) = channel::<()>(16, None, None);
        let (release_tx, release_rx) = channel::<Vec<u32>>(4, None, None);
        let sticky = (Sticky::new(In::new(state_rx), 0, Out::new(vec![release_tx])),);
        let results = if fan_out {
            Out::fanout(vec![out_tx, channel::<()>(16, None, None).0], |v: &()| *v)
        } else {
            Out::new(vec![out_tx])
        };
        let node = Call::new((In::new(data_rx),), sticky, (results,), |(x,): (u32,), (mut log,): (Vec<u32>,)| {
            log.push(x);
            ((log,), ((),))
        });
        (data_tx, state_tx, node, out_rx, release_rx)
    }

    /// Both ways a call fires: cursors (one consumer per output) and ports
    /// (a fanned-out output).
    const PATHS: [bool; 2] = [false, true];

    #[test]
    fn a_run_that_crosses_activations_releases_each_state_with_its_own_items() {
        for fan_out in PATHS {
            let (mut data, mut state, mut node, mut out, mut released) = push_into_state(fan_out);
            // Two activations in one run: the lent state must go back to the
            // operator at the first `End(0)` and be released before the
            // second state is taken.
            send(&mut data, [Packet::Data(1), Packet::Data(2), Packet::End(0), Packet::Data(3), Packet::End(0)]);
            send(&mut state, [Packet::Data(vec![]), Packet::Data(vec![7])]);
            assert_eq!(node.step(64), Step::Progress(5), "fan_out {fan_out}");
            node.flush();
            assert_eq!(drain(&mut released), vec![Packet::Data(vec![1, 2]), Packet::Data(vec![7, 3])]);
            assert_eq!(drain(&mut out).len(), 5, "three results and two markers");
        }
    }

    #[test]
    fn a_run_stops_where_the_next_state_has_not_arrived_and_resumes_later() {
        for fan_out in PATHS {
            let (mut data, mut state, mut node, _out, mut released) = push_into_state(fan_out);
            send(&mut data, [Packet::Data(1), Packet::End(0), Packet::Data(2), Packet::Data(3), Packet::End(0)]);
            send(&mut state, [Packet::Data(vec![10])]);
            assert_eq!(node.step(64), Step::Progress(2), "waits for the second activation's state");
            node.flush();
            assert_eq!(drain(&mut released), vec![Packet::Data(vec![10, 1])]);
            send(&mut state, [Packet::Data(vec![20])]);
            assert_eq!(node.step(64), Step::Progress(3), "fan_out {fan_out}");
            node.flush();
            assert_eq!(drain(&mut released), vec![Packet::Data(vec![20, 2, 3])]);
        }
    }

    #[test]
    fn a_state_lent_to_a_run_is_back_with_the_operator_between_steps() {
        for fan_out in PATHS {
            let (mut data, mut state, mut node, _out, mut released) = push_into_state(fan_out);
            send(&mut state, [Packet::Data(vec![])]);
            // Budgets of one: every firing is its own run.
            for x in 1..=3 {
                send(&mut data, [Packet::Data(x)]);
                assert_eq!(node.step(1), Step::Progress(1), "fan_out {fan_out}");
            }
            send(&mut data, [Packet::End(0)]);
            assert_eq!(node.step(1), Step::Progress(1));
            node.flush();
            assert_eq!(drain(&mut released), vec![Packet::Data(vec![1, 2, 3])]);
        }
    }
}
