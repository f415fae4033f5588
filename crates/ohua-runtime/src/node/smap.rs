//! `smap` and `collect`: entering and leaving a `for` loop's context.

use std::sync::Arc;
use std::time::Instant;

use super::marks::{self, Attach, Marks};
use super::{Node, Step};
use crate::packet::{Level, Mark, Packet};
use crate::port::{In, Out};
use crate::update::{Action, Control, Handoff};

enum Iterating<I> {
    Idle,
    Running(I),
    /// The iterator returned `None`; `End(level)` still has to go out.
    Exhausted,
}

/// Streams the elements of each collection it receives (Ohua's `[] ~>` and
/// `[~>`): works for finite collections and for iterators whose length is
/// only known when they end. Emits at most `budget` elements per step, so an
/// unbounded iterator never monopolises its section.
///
/// Streaming sources: elements the iterator's `size_hint` says are ready
/// (its lower bound) are emitted in bulk; before any other `next()`, which
/// may block (an `mpsc::Receiver`, a socket's lines), the elements sent so
/// far in the step are published, so each reaches the loop body without
/// waiting for the next one. Should `next()` block for long, the section's
/// other operators keep running on another thread (`exec/README.md`).
///
/// # Example
///
/// A vector `[1, 2]` becomes `Data(1), Data(2), End(0)`: see the unit test
/// `a_vector_becomes_its_elements_and_an_end`.
pub struct SMap<C: IntoIterator> {
    input: In<C>,
    level: Level,
    state: Iterating<C::IntoIter>,
    elements: Out<C::Item>,
    ticks: Out<()>,
    /// A `next()` with nothing known to be ready has taken at least
    /// [`BLOCKING_NEXT`]: the iterator waits for its items (a socket, a
    /// channel). Then a step that has emitted an item ends instead of
    /// calling `next()` again, so the loop body runs on that item in the
    /// same pass of the section, and the next step blocks with nothing of
    /// this section left to do (no rescue needed). Nor does a step call a
    /// possibly blocking `next()` while the loop's carry waits for the body
    /// to answer the last iteration, where part of that answer is computed
    /// in this section (`Out::consumer_holds`): blocked here, the section
    /// would answer only after the *next* item arrived, and a loop that
    /// carries a state would fall a growing number of items behind (issue
    /// 21). For such a loop a step emits at most one item from a
    /// possibly blocking `next()`, waiting measured or not. Nor does a step
    /// of a source that waits call `next()` while the section's other
    /// operators made progress since its last step (up to
    /// [`MAX_YIELDS`] steps in a row): a body that costs more than a time
    /// slice takes one item per step, and a `next()` per pass then paced
    /// it at one item per arrival, so a backlog (from the run's start, or
    /// a burst) never drained while items kept arriving, and every later
    /// answer waited behind it (regression test
    /// `a_backlog_in_front_of_a_costly_body_drains_while_items_keep_arriving`).
    blocks: bool,
    /// The section's progress count ([`blocking::section_progress`]) at the
    /// start of the last step, and whether that step made progress.
    progress_seen: Option<(u64, bool)>,
    /// Steps in a row that left `next()` alone for the section's other
    /// operators.
    yields: u32,
    /// When this entry last saw the section's other operators progress
    /// (while its source waits; see [`BUSY_GRACE`]).
    busy_at: Option<Instant>,
    /// Possibly blocking `next()` calls, for sampling their time.
    calls: u32,
    /// A top-level loop of a service run: inserts the markers its service
    /// requests between two iterations, and stops taking items when asked
    /// (`crate::update`).
    service: Option<Service>,
    marks: Option<Marks>,
    /// An item `next()` returned while markers were waiting for room: it
    /// goes out after them (the cut is before it).
    held: Option<C::Item>,
}

/// The loop entry's side of a service's control.
struct Service {
    control: Arc<Control>,
    /// How many of the requested markers this entry has inserted.
    inserted: usize,
    /// This entry's node id, and the items it has sent into the loop (the
    /// position of a cut, for checkpoints).
    node: usize,
    items: u64,
}

/// A `next()` that takes this long (with a `size_hint` lower bound of 0)
/// is taken for a wait. Until one did, the first such `next()` of a step
/// and every [`SAMPLE_NEXT`]th are timed, so an iterator that never blocks
/// (`filter`) pays a clock read per step and per few items, and one that is
/// merely slow is at worst stepped item by item.
const BLOCKING_NEXT: std::time::Duration = std::time::Duration::from_micros(10);

/// One in this many possibly blocking `next()` calls is timed.
const SAMPLE_NEXT: u32 = 4;

/// Whether a loop entry ends a step instead of calling a `next()` that may
/// wait: because its section's other operators made progress since its
/// last step (at most [`MAX_YIELDS`] steps in a row, counted in `yields`),
/// or because one of them holds work for room on its outputs
/// (`held_for_room`) and they made progress within the last
/// [`BUSY_GRACE`] (`busy_at`, the last progress seen, updated here).
/// Never in the driver's last look before a park
/// ([`blocking::last_look`](super::blocking::last_look)): a section that
/// parks after a pass in which its loop entry left `next()` alone has no
/// waker for what only `next()` would find.
fn yield_to_section(yields: &mut u32, busy_at: &mut Option<Instant>, others_progressed: bool, held_for_room: bool) -> bool {
    if super::blocking::last_look() {
        *yields = 0;
        *busy_at = None;
        return false;
    }
    if others_progressed && *yields < MAX_YIELDS {
        *yields += 1;
        *busy_at = Some(Instant::now());
        return true;
    }
    if !others_progressed && held_for_room && busy_at.is_some_and(|t| t.elapsed() < BUSY_GRACE) {
        return true;
    }
    *yields = 0;
    *busy_at = None;
    false
}

/// How long after its section's other operators last made progress a loop
/// entry whose source waits still leaves `next()` alone while one of them
/// holds work for room (see [`yield_to_section`]): an operator of the
/// section that waits for room on an arc into another section (a
/// replicated call's merge with a one-slot output) gets it within
/// microseconds, but only while this thread is not blocked in `next()`.
/// Blocked there, the section sent one result per arriving item (or
/// monitor tick), and a backlog of finished results stayed as long as
/// items kept arriving (regression test
/// `a_backlog_in_front_of_a_costly_body_drains_while_items_keep_arriving`,
/// deployment `random sections and random replicas seed 0`, 4 or more runs
/// in 40). The steps that yield meanwhile leave their passes idle, so the
/// section spins (`exec/section.rs`) and then looks once more before it
/// parks; in that last look no loop entry yields
/// ([`blocking::last_look`](super::blocking::last_look)), else the section
/// would sleep without a waker for the source's items. The spin alone did
/// not ensure it: a counted run's lone driver skips the spin
/// (`alone_in_counted_run`) and looks again at once, inside the grace; a
/// nested loop over a range whose entry yielded so at the end of its range
/// hung every section of
/// `live_update::updates_reach_branches_inner_loops_and_called_algorithms_at_one_cut`
/// (5 of 10 suite runs, and 3 of 16 runs of its module, before the last
/// look; 0 of 10 and 0 of 30 after).
///
/// Only while work is held for room: a closed-loop client's next request,
/// which comes right after the section's last progress, would otherwise
/// wait out the grace. And only for a source without an upper bound (a
/// channel, a socket): a collection's `next()` never waits, so leaving it
/// alone gains nothing.
///
/// [`SPIN_WINDOW`]: crate::pool::SPIN_WINDOW
const BUSY_GRACE: std::time::Duration = crate::pool::SPIN_WINDOW;

// A section that spins before its park outlasts the grace, so its loop
// entries call `next()` during the spin already (the last look makes sure).
const _: () = assert!(BUSY_GRACE.as_nanos() <= crate::pool::SPIN_WINDOW.as_nanos());

/// Steps in a row a loop entry whose source waits may leave `next()` alone
/// because its section's other operators have work (see `SMap::blocks`).
/// Bounded, so that operators that always have work (another source's loop
/// in the section) cannot keep this loop from its items.
const MAX_YIELDS: u32 = 64;

impl<C> SMap<C>
where
    C: IntoIterator + Send,
    C::IntoIter: Send,
    C::Item: Send,
{
    /// Loop entry at level `level` (the loop body is at `level + 1`).
    pub fn new(input: In<C>, level: Level, elements: Out<C::Item>, ticks: Out<()>) -> Self {
        SMap {
            input,
            level,
            state: Iterating::Idle,
            elements,
            ticks,
            blocks: false,
            progress_seen: None,
            yields: 0,
            busy_at: None,
            calls: 0,
            service: None,
            marks: None,
            held: None,
        }
    }

    fn room(&mut self) -> bool {
        self.elements.room() > 0 && self.ticks.room() > 0
    }

    /// Between two iterations of a service's loop: insert the markers
    /// requested since the last look, send the item held back for them, and
    /// end the loop if the service stops. Returns the work done (none if
    /// the outputs are full).
    #[inline(never)]
    fn serve(&mut self) -> usize {
        let Some(service) = &mut self.service else { return 0 };
        let (mut done, handover) = service.insert(self.level, &mut self.elements, &mut self.ticks, &mut self.held);
        if let Some(handoff) = handover {
            // The old run of a replaced algorithm: the new one takes the
            // items after the cut from its own handle on the source, once
            // this one has let go of it (`update/handoff.rs`).
            self.state = Iterating::Exhausted;
            self.service = None;
            handoff.release();
            return done + 1;
        }
        if service.inserted < service.control.requested() {
            return done; // no room for the rest yet
        }
        if let Some(x) = self.held.take() {
            if !self.room() {
                self.held = Some(x);
                return done;
            }
            self.elements.send(x);
            self.ticks.send(());
            done += 1;
            if let Some(service) = &mut self.service {
                service.items += 1;
            }
        }
        if self.service.as_ref().is_some_and(|s| s.control.stopping()) {
            // The items already taken are in the body; the source is
            // dropped with whatever it still holds (`Service::stop`).
            self.state = Iterating::Exhausted;
            self.service = None;
            done += 1;
        }
        done
    }
}

/// Send up to `run` elements of `it` (and a tick each); every output has
/// room for `run`. Returns how many were sent and whether `it` may have more.
#[inline(always)]
fn emit_run<I: Iterator>(it: &mut I, elements: &mut Out<I::Item>, ticks: &mut Out<()>, run: usize) -> (usize, bool) {
    if let (Some(mut e), Some(mut t)) = (elements.cursor(), ticks.cursor()) {
        for sent in 0..run {
            let Some(x) = it.next() else { return (sent, false) };
            // SAFETY: both outputs have room for `run` packets.
            unsafe {
                e.send(x);
                t.send(());
            }
        }
        return (run, true);
    }
    for sent in 0..run {
        let Some(x) = it.next() else { return (sent, false) };
        elements.send(x);
        ticks.send(());
    }
    (run, true)
}

impl<C> Node for SMap<C>
where
    C: IntoIterator + Send,
    C::IntoIter: Send,
    C::Item: Send,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        // Whether other operators of the section made progress since this
        // operator's last step (its own progress then is not theirs).
        let progress = super::blocking::section_progress();
        let others_progressed = match (progress, self.progress_seen) {
            (Some(now), Some((seen, own))) => now.wrapping_sub(seen) > u64::from(own),
            _ => false,
        };
        // Whether a possibly blocking `next()` was timed in this step.
        let mut timed = false;
        // On a step the section times: what `next()` of a source without
        // an upper bound waited is not the loop's work (`blocking.rs`),
        // measured from the first such `next()` to the step's end.
        let mut probe: Option<super::blocking::WaitProbe> = None;
        let mut probed = false;
        while done < budget && self.room() {
            if (self.held.is_some() || self.service.as_ref().is_some_and(Service::pending))
                && matches!(self.state, Iterating::Running(_))
            {
                let served = self.serve();
                done += served;
                if served == 0 || !self.room() {
                    break;
                }
                continue;
            }
            match &mut self.state {
                Iterating::Running(it) => {
                    let room = self.elements.room().min(self.ticks.room()).min(budget - done);
                    // What the iterator knows to be ready goes out in bulk.
                    let (ready, upper) = it.size_hint();
                    let more = if ready > 0 {
                        let (sent, more) = emit_run(it, &mut self.elements, &mut self.ticks, room.min(ready));
                        done += sent;
                        if let Some(service) = &mut self.service {
                            service.items += sent as u64;
                        }
                        more
                    } else if (done > 0 && (self.blocks || self.ticks.may_hold()))
                        || self.ticks.consumer_holds()
                        || (done == 0 && self.blocks && yield_to_section(
                            &mut self.yields,
                            &mut self.busy_at,
                            others_progressed,
                            // Only for a source that may block the thread: a
                            // collection's `next()` never waits (see `BUSY_GRACE`).
                            upper.is_none() && super::blocking::take_held_for_room(),
                        ))
                    {
                        // Let the body run on what was emitted (see
                        // `blocks`), and let the loop's carry get its
                        // answer before `next()` may block this thread.
                        // A carry in this section takes one item per pass
                        // anyway, so its loop gets one item per step even
                        // before a wait was measured (one `next()` in four
                        // is timed: a burst followed by a trickle kept the
                        // first step, and the body, waiting for 4 items).
                        break;
                    } else {
                        // `next()` may block (a channel, a socket): first
                        // publish what this step sent, so no item waits for
                        // a later one (README.md, "Streaming sources").
                        // Not at the end of a collection: an upper bound of
                        // 0 says `next()` only reports that end, and taking
                        // it for a possible wait marked every run over a
                        // list as streaming (no lone I/O call on the
                        // driver's thread, spinning before each park:
                        // issue 21, part 5).
                        let at_end = upper == Some(0);
                        if upper.is_none() && !probed {
                            probed = true;
                            probe = super::blocking::WaitProbe::start();
                        }
                        if !at_end {
                            if done > 0 {
                                self.elements.flush();
                                self.ticks.flush();
                            }
                            super::blocking::before_blocking(done > 0);
                        }
                        self.calls = self.calls.wrapping_add(1);
                        let sample = !timed || self.calls.is_multiple_of(SAMPLE_NEXT);
                        let started = (sample && !self.blocks).then(std::time::Instant::now);
                        timed = true;
                        // No upper bound: a channel or a socket, not a
                        // collection (whose `next()` is slow only if the
                        // thread was preempted).
                        let unbounded = started.is_some() && upper.is_none();
                        let service = self.service.as_ref().filter(|_| !at_end);
                        if let Some(s) = service {
                            s.control.set_waiting_for_item(true);
                        }
                        // Announced, a wait lets a wake-up for the
                        // section's other operators urge a rescue.
                        let announced = self.blocks && !at_end;
                        if announced {
                            super::blocking::waiting(true);
                        }
                        let next = it.next();
                        if announced {
                            super::blocking::waiting(false);
                        }
                        if let Some(s) = service {
                            s.control.set_waiting_for_item(false);
                        }
                        if started.is_some_and(|t| t.elapsed() >= BLOCKING_NEXT) {
                            self.blocks = true;
                            if unbounded {
                                super::blocking::source_blocked();
                            }
                        }
                        let more = next.is_some();
                        if let Some(x) = next {
                            if self.service.as_ref().is_some_and(Service::pending) {
                                // A marker requested while `next()` waited
                                // goes before the item it returned (the cut
                                // is "now"): `serve` sends them in order.
                                self.held = Some(x);
                            } else {
                                self.elements.send(x);
                                self.ticks.send(());
                                if let Some(service) = &mut self.service {
                                    service.items += 1;
                                }
                            }
                            done += 1;
                        }
                        more
                    };
                    if !more {
                        self.state = Iterating::Exhausted;
                        done += 1; // the exhausted `next()` counts as work
                    }
                    continue;
                }
                Iterating::Exhausted => {
                    self.elements.send_end(self.level);
                    self.ticks.send_end(self.level);
                    self.state = Iterating::Idle;
                }
                Iterating::Idle => match self.input.pop() {
                    Some(Packet::Data(c)) => self.state = Iterating::Running(c.into_iter()),
                    Some(Packet::End(l)) => {
                        self.elements.send_end(l);
                        self.ticks.send_end(l);
                    }
                    Some(Packet::Mark(m)) => {
                        let forwarded = self.elements.send_mark(m) + self.ticks.send_mark(m);
                        marks::passed(&mut self.marks, m, 1, forwarded);
                    }
                    None if self.input.is_closed() && done == 0 => return Step::Done,
                    None => break,
                },
            }
            done += 1;
        }
        if let Some(probe) = probe {
            probe.finish();
        }
        self.progress_seen = progress.map(|now| (now, done > 0));
        Step::after(done)
    }

    fn flush(&mut self) {
        self.input.flush();
        self.elements.flush();
        self.ticks.flush();
    }

    fn describe(&self) -> String {
        let state = match self.state {
            Iterating::Idle => "idle",
            Iterating::Running(_) => "running",
            Iterating::Exhausted => "exhausted",
        };
        let ports =
            super::describe::ports(&[self.input.describe()], &[self.elements.describe(), self.ticks.describe()]);
        format!("{state} {ports}")
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
        // Only the top-level loops cut: a nested loop entry forwards the
        // markers of its enclosing loop.
        if self.level == 0 {
            self.service = Some(Service { control: at.control().clone(), inserted: 0, node: at.node, items: 0 });
        }
    }
}

impl Service {
    /// Insert the requested markers not inserted yet, as far as both
    /// outputs have room. Returns how many packets went out, and the
    /// hand-over if one of them ends this run's loop (it is inserted after
    /// the item `next()` returned while it waited: that is the old run's
    /// last). A take-over waits, once inserted, until the old run has let
    /// go of the source.
    fn insert<T>(
        &mut self,
        level: Level,
        elements: &mut Out<T>,
        ticks: &mut Out<()>,
        held: &mut Option<T>,
    ) -> (usize, Option<Arc<Handoff>>) {
        let mut done = 0;
        while self.inserted < self.control.requested() && elements.room().min(ticks.room()) > 0 {
            let marker = self.control.marker(self.inserted as u32);
            let handover = match marker.action() {
                Action::Handover(h) => Some(h.clone()),
                _ => None,
            };
            // A probe measures the item before it: let the held one in
            // first, unless a marker requested after the probe waits too
            // (an update then applies to that item, as without the probe).
            let probe = matches!(marker.action(), Action::Probe);
            let last = self.inserted + 1 == self.control.requested();
            if probe && !last && held.is_some() {
                marker.went_ahead();
            }
            if let Some(x) = held.take_if(|_| handover.is_some() || (probe && last)) {
                // The marker follows when there is room again (a section
                // waiting for room is woken only once an output is full).
                elements.send(x);
                ticks.send(());
                self.items += 1;
                done += 1;
                continue;
            }
            let m = Mark { level, id: marker.id() };
            let arcs = elements.send_mark(m) + ticks.send_mark(m);
            marker.inserted(self.node, self.items, arcs);
            self.inserted += 1;
            done += 1;
            if let Action::Takeover(h) = marker.action() {
                elements.flush();
                ticks.flush();
                super::blocking::before_blocking(true);
                h.wait_released();
            }
            if handover.is_some() {
                return (done, handover);
            }
        }
        (done, None)
    }

    /// A marker to insert, or a stop to obey.
    #[inline]
    fn pending(&self) -> bool {
        self.inserted < self.control.requested() || self.control.stopping()
    }
}

/// Gathers one item per iteration into a collection, emitted when the loop's
/// activation ends (Ohua's `~> []`).
pub struct Collect<T, C> {
    input: In<T>,
    level: Level,
    items: Vec<T>,
    out: Out<C>,
    marks: Option<Marks>,
}

impl<T: Send, C: FromIterator<T> + Send> Collect<T, C> {
    /// Collect items of a depth-`level + 1` stream into one value per level-`level` activation.
    pub fn new(input: In<T>, level: Level, out: Out<C>) -> Self {
        Collect { input, level, items: Vec::new(), out, marks: None }
    }
}

impl<T: Send, C: FromIterator<T> + Send> Node for Collect<T, C> {
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        while done < budget {
            match self.input.peek() {
                Some(Packet::Data(_)) => {
                    if let Some(Packet::Data(x)) = self.input.pop() {
                        self.items.push(x);
                    }
                }
                Some(Packet::End(l)) => {
                    let l = *l;
                    if self.out.room() == 0 {
                        break;
                    }
                    self.input.pop();
                    if l == self.level {
                        self.out.send(self.items.drain(..).collect());
                    } else {
                        self.out.send_end(l);
                    }
                }
                // A marker between two items of the collection ends here
                // (the collection's stream is not deeper than the cut); one
                // from further out goes on.
                Some(Packet::Mark(m)) => {
                    let m = *m;
                    let forwarded = if m.level == self.level {
                        self.input.pop();
                        0
                    } else {
                        if self.out.room() == 0 {
                            break;
                        }
                        self.input.pop();
                        self.out.send_mark(m)
                    };
                    marks::passed(&mut self.marks, m, 1, forwarded);
                }
                None if self.input.is_closed() && done == 0 => return Step::Done,
                None => break,
            }
            done += 1;
        }
        Step::after(done)
    }

    fn flush(&mut self) {
        self.input.flush();
        self.out.flush();
    }

    fn attach(&mut self, at: &Attach) {
        self.marks = Some(at.marks());
    }

    fn describe(&self) -> String {
        format!(
            "{} items {}",
            self.items.len(),
            super::describe::ports(&[self.input.describe()], &[self.out.describe()])
        )
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    /// `SMap`'s example.
    #[test]
    fn a_vector_becomes_its_elements_and_an_end() {
        use crate::{
            arc::channel,
            node::{smap::SMap, Node},
            packet::Packet,
            port::{In, Out},
        };
        let (mut tx, rx) = channel::<Vec<u8>>(2, None, None);
        let (etx, mut erx) = channel::<u8>(8, None, None);
        let mut n = SMap::new(In::new(rx), 0, Out::new(vec![etx]), Out::none());
        tx.push(Packet::Data(vec![1, 2]));
        tx.flush(); // publish, as a section does after each step
        n.step(16);
        n.flush();
        assert_eq!(erx.pop(), Some(Packet::Data(1)));
        assert_eq!(erx.pop(), Some(Packet::Data(2)));
        assert_eq!(erx.pop(), Some(Packet::End(0)));
    }

    /// A loop entry whose source waits leaves `next()` alone while an
    /// operator of its section holds work for room and the section made
    /// progress within `BUSY_GRACE`, then calls it (regression: a merge
    /// with a one-slot output into another section sent one result per
    /// arriving item while the thread was blocked in `next()`).
    #[test]
    fn a_loop_entry_waits_for_room_its_section_is_given_only_for_a_grace() {
        use super::{yield_to_section, BUSY_GRACE};
        let (mut yields, mut busy_at) = (0, None);
        // The section progressed: yield, and remember when.
        assert!(yield_to_section(&mut yields, &mut busy_at, true, false));
        assert!(busy_at.is_some());
        // No progress since, but work held for room: yield again.
        assert!(yield_to_section(&mut yields, &mut busy_at, false, true));
        // No progress and nothing held: call `next()`.
        assert!(!yield_to_section(&mut yields, &mut busy_at, false, false));
        assert_eq!((yields, busy_at), (0, None));
        // Held for room, but the last progress is older than the grace:
        // call `next()` (the section would otherwise spin, then park,
        // without a waker for the source's items).
        assert!(yield_to_section(&mut yields, &mut busy_at, true, false));
        std::thread::sleep(BUSY_GRACE + std::time::Duration::from_millis(1));
        assert!(!yield_to_section(&mut yields, &mut busy_at, false, true));
        // Held for room without any progress seen: call `next()`.
        assert!(!yield_to_section(&mut yields, &mut busy_at, false, true));
    }

    /// In the driver's last look before a park a loop entry calls `next()`
    /// even inside the grace (regression: a nested loop over a range whose
    /// entry yielded at the end of its range, in a counted run whose lone
    /// driver skips the spin, parked without a waker; every section of
    /// `live_update::updates_reach_branches_inner_loops_and_called_algorithms_at_one_cut`
    /// hung in 5 of 10 runs).
    #[test]
    fn a_loop_entry_never_yields_in_the_last_look_before_a_park() {
        use super::{super::blocking::LastLook, yield_to_section};
        let (mut yields, mut busy_at) = (0, None);
        assert!(yield_to_section(&mut yields, &mut busy_at, true, false));
        {
            let _last = LastLook::set(true);
            assert!(!yield_to_section(&mut yields, &mut busy_at, true, true));
            assert!(!yield_to_section(&mut yields, &mut busy_at, false, true));
            // A nested run's driver starts outside its last look.
            let _nested = LastLook::set(false);
            assert!(yield_to_section(&mut yields, &mut busy_at, true, false));
        }
        assert!(yield_to_section(&mut yields, &mut busy_at, false, true));
    }
}
