//! `chain`: consecutive stateless calls fused into one operator per section.
//!
//! A *chain* is a run of `call` operators in which each one has a single data
//! input, no sticky input and a single output consumed only by the next one
//! (`let b = f(a); let c = g(b); ...`). The compiler builds such a run as a
//! typed list of [`Link`]s instead of separate [`Call`](super::call::Call)
//! operators; at run time [`crate::exec::Builder::chain`] cuts the list
//! wherever the deployment puts two neighbours in different sections, and
//! every piece runs as one operator ([`Segment`]). Inside a piece a value goes
//! from one function straight into the next (registers, no ring), which is
//! the design's "an arc inside a section is a function call".
//!
//! Semantics are those of the separate operators: each link fires once per
//! activation in activation order and forwards markers. A panic in a link is
//! reported with that link's name (see `blame` below). Firings are the same for
//! every link of a piece; the run report lists the other links as fused into
//! the first.
//!
//! The section driver times a piece as one operator. So that the `auto`
//! planner knows which link the time went to, a piece of two links or more
//! times each link on one item now and then (`deploy/link_times.rs`).

use std::cell::Cell;
use std::time::Instant;

use super::install::{Install, Role};
use super::marks::{self, Attach, Marks};
use super::replicate::{Gather, Scatter, LANE_DEPTH, REORDER_DEPTH};
use super::{Node, Step};
use crate::arc::Receiver;
use crate::deploy::{nanos, LinkTimes, PROBE_EVERY, PROBE_ITEMS, PROBE_STEPS};
use crate::packet::{Level, Mark, Packet};
use crate::port::{In, Out};
use crate::update::VersionScope;

/// One fused call: its own input and output ports (used when it starts or
/// ends a piece), its function, and the next link when fused with it.
///
/// `f` has the signature of a `Call` closure (`node/call.rs`) with one
/// data input, no sticky input and one output.
///
/// # Example
///
/// Two links that the deployment keeps in one section run as one operator:
/// `40 + 1 + 1` in the unit test `two_links_in_one_section_run_as_one_operator`.
pub struct Link<A, B, F, N> {
    id: usize,
    input: In<A>,
    f: F,
    out: Out<B>,
    next: Option<N>,
}

/// The end of a chain: a link with no successor has `next: None` of this type.
pub struct Last;

impl<A, B, F> Link<A, B, F, Last>
where
    F: FnMut((A,), ()) -> ((), (B,)) + Clone + Send,
{
    /// The link for node `id`, reading `input` and writing `out` when it
    /// starts or ends a piece.
    pub fn new(id: usize, input: In<A>, out: Out<B>, f: F) -> Self {
        Link { id, input, f, out, next: None }
    }
}

impl<A, B, F> Link<A, B, F, Last> {
    /// Append `next` (the consumer of this link's output) to the chain.
    pub fn then<N>(self, next: N) -> Link<A, B, F, N> {
        Link { id: self.id, input: self.input, f: self.f, out: self.out, next: Some(next) }
    }
}

thread_local! {
    static BLAMED: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Marks `id` as the operator that panicked if `f` unwinds.
struct Blame(usize);

impl Drop for Blame {
    fn drop(&mut self) {
        // Only reached while unwinding: the normal path forgets the guard.
        BLAMED.with(|b| b.set(Some(self.0)));
    }
}

/// Run `f` on behalf of node `id`: if it panics, [`take_blamed`] returns `id`,
/// so a panic inside a fused piece names the link, not the piece.
#[inline(always)]
pub(crate) fn blame<R>(id: usize, f: impl FnOnce() -> R) -> R {
    let guard = Blame(id);
    let r = f();
    std::mem::forget(guard);
    r
}

/// The node a panic caught on this thread came from, if a link recorded it.
pub(crate) fn take_blamed() -> Option<usize> {
    BLAMED.with(Cell::take)
}

/// A link as its predecessor sees it: something that takes values of type `A`.
pub trait Stage<A>: Send {
    /// The node id of this link.
    fn id(&self) -> usize;
    /// Fire with `x` and pass the result on.
    fn accept(&mut self, x: A);
    /// [`Stage::accept`], adding each link's time to `ns` (this link's
    /// first, then the following links' in order).
    fn accept_probed(&mut self, x: A, ns: &mut [u64]);
    /// Forward an end-of-activation marker.
    fn accept_end(&mut self, level: Level);
    /// Forward a control marker; returns the arcs it went into.
    fn accept_mark(&mut self, mark: Mark) -> usize;
    /// Values the end of this piece can take now.
    fn room(&mut self) -> usize;
    /// Publish and wake, for every port of the piece.
    fn flush(&mut self);
    /// Node ids from this link to the end of its piece.
    fn fused_ids(&self, ids: &mut Vec<usize>);
    /// Detach every following link that runs in another section than its
    /// predecessor and install it (and its piece) through `builder`.
    fn split<'a, I: Install<'a>>(&mut self, builder: &mut I)
    where
        Self: 'a;
    /// Install the piece starting at this link (and, split off, the rest of
    /// the chain) as operators.
    fn install<'a, I: Install<'a>>(self, builder: &mut I)
    where
        Self: Sized + 'a;
    /// Copies of the (already split) piece from this link to its end, one
    /// per input in `inputs` (lanes from the scatter of node `head`): the
    /// copies' last links send to lanes of a merge that this method
    /// installs, taking the piece's real output and `order`.
    fn fork<'a, I: Install<'a>>(
        &mut self,
        builder: &mut I,
        head: usize,
        inputs: Vec<In<A>>,
        order: Receiver<u16>,
    ) -> Vec<Self>
    where
        Self: Sized + 'a;
}

impl<A: Send> Stage<A> for Last {
    fn id(&self) -> usize {
        unreachable!("`Last` is never a link")
    }
    fn accept(&mut self, _: A) {}
    fn accept_probed(&mut self, _: A, _: &mut [u64]) {}
    fn accept_end(&mut self, _: Level) {}
    fn accept_mark(&mut self, _: Mark) -> usize {
        0
    }
    fn room(&mut self) -> usize {
        usize::MAX
    }
    fn flush(&mut self) {}
    fn fused_ids(&self, _: &mut Vec<usize>) {}
    fn split<'a, I: Install<'a>>(&mut self, _: &mut I)
    where
        Self: 'a,
    {
    }
    fn install<'a, I: Install<'a>>(self, _: &mut I)
    where
        Self: 'a,
    {
    }
    fn fork<'a, I: Install<'a>>(&mut self, _: &mut I, _: usize, inputs: Vec<In<A>>, _: Receiver<u16>) -> Vec<Self>
    where
        Self: 'a,
    {
        inputs.into_iter().map(|_| Last).collect()
    }
}

/// Fire link `id` on `x` and hand the result to the next link or the output.
#[inline(always)]
fn fire<A, B, F, N>(id: usize, f: &mut F, out: &mut Out<B>, next: &mut Option<N>, x: A)
where
    F: FnMut((A,), ()) -> ((), (B,)),
    N: Stage<B>,
{
    let ((), (y,)) = blame(id, || f((x,), ()));
    match next {
        Some(n) => n.accept(y),
        None => out.send(y),
    }
}

impl<A, B, F, N> Stage<A> for Link<A, B, F, N>
where
    A: Send,
    B: Send,
    F: FnMut((A,), ()) -> ((), (B,)) + Clone + Send,
    N: Stage<B>,
{
    fn id(&self) -> usize {
        self.id
    }

    #[inline(always)]
    fn accept(&mut self, x: A) {
        fire(self.id, &mut self.f, &mut self.out, &mut self.next, x);
    }

    #[inline(never)]
    fn accept_probed(&mut self, x: A, ns: &mut [u64]) {
        let start = Instant::now();
        let ((), (y,)) = blame(self.id, || (self.f)((x,), ()));
        if let Some(t) = ns.first_mut() {
            *t += nanos(start.elapsed());
        }
        match &mut self.next {
            Some(n) => n.accept_probed(y, ns.get_mut(1..).unwrap_or_default()),
            None => self.out.send(y),
        }
    }

    #[inline]
    fn accept_end(&mut self, level: Level) {
        match &mut self.next {
            Some(n) => n.accept_end(level),
            None => self.out.send_end(level),
        }
    }

    fn accept_mark(&mut self, mark: Mark) -> usize {
        match &mut self.next {
            Some(n) => n.accept_mark(mark),
            None => self.out.send_mark(mark),
        }
    }

    #[inline]
    fn room(&mut self) -> usize {
        match &mut self.next {
            Some(n) => n.room(),
            None => self.out.room(),
        }
    }

    fn flush(&mut self) {
        self.input.flush();
        self.out.flush();
        if let Some(n) = &mut self.next {
            n.flush();
        }
    }

    fn fused_ids(&self, ids: &mut Vec<usize>) {
        ids.push(self.id);
        if let Some(n) = &self.next {
            n.fused_ids(ids);
        }
    }

    fn split<'a, I: Install<'a>>(&mut self, builder: &mut I)
    where
        Self: 'a,
    {
        let Some(next) = &mut self.next else { return };
        // Fused only if the two run alike: the same section and the same
        // replicas (so a replicated piece is one scatter and one merge).
        let plan = builder.plan();
        let (a, b) = (self.id, next.id());
        if plan.section_of[a] == plan.section_of[b] && plan.replica_sections[a] == plan.replica_sections[b] {
            next.split(builder);
        } else if let Some(next) = self.next.take() {
            next.install(builder);
        }
    }

    fn install<'a, I: Install<'a>>(mut self, builder: &mut I)
    where
        Self: 'a,
    {
        self.split(builder);
        let mut ids = Vec::new();
        self.fused_ids(&mut ids);
        let probe = LinkProbe::new(builder, &ids);
        if !builder.plan().is_replicated(self.id) {
            builder.install_piece(&ids, Segment::new(self, probe));
            return;
        }
        let (to_replicas, lanes) = builder.lanes::<A>(self.id, true, LANE_DEPTH);
        let (order, order_rx) = builder.order_arc(self.id);
        let copies = self.fork(builder, self.id, lanes.into_iter().map(In::new).collect(), order_rx);
        let input = std::mem::replace(&mut self.input, In::detached());
        let elastic = builder.elastic(self.id);
        builder.install_piece(&ids, Scatter::new((input,), to_replicas, order, |(a,): (A,)| a).elastic(elastic));
        for (k, copy) in copies.into_iter().enumerate() {
            builder.install_extra(self.id, Role::Replica(k), Box::new(Segment::new(copy, probe.clone())));
        }
    }

    fn fork<'a, I: Install<'a>>(
        &mut self,
        builder: &mut I,
        head: usize,
        inputs: Vec<In<A>>,
        order: Receiver<u16>,
    ) -> Vec<Self>
    where
        Self: 'a,
    {
        let copy = |f: &F, input, out, next| Link { id: self.id, input, f: f.clone(), out, next };
        match &mut self.next {
            // The piece goes on: the copies' links are fused, so their own
            // ports are unused.
            Some(next) => {
                let rest = next.fork(builder, head, inputs.iter().map(|_| In::detached()).collect(), order);
                inputs.into_iter().zip(rest).map(|(input, n)| copy(&self.f, input, Out::none(), Some(n))).collect()
            }
            // The piece's last link: the copies send to the merge's lanes.
            None => {
                let (outs, lanes) = builder.lanes::<B>(head, false, REORDER_DEPTH);
                let out = std::mem::replace(&mut self.out, Out::none());
                let merge = Gather::new(order, lanes, (out,), |b: B| (b,));
                builder.install_extra(head, Role::Merge, Box::new(merge));
                inputs.into_iter().zip(outs).map(|(input, o)| copy(&self.f, input, Out::new(vec![o]), None)).collect()
            }
        }
    }
}

/// A control marker at a chain piece: forwarded from its last link, and
/// the piece's user code sees what it adopted from the next packet on.
/// Out of line, so the piece's loop keeps the shape it has without markers.
#[cold]
#[inline(never)]
fn pass_in_piece<B, N: Stage<B>>(
    m: Mark,
    marks_ctx: &mut Option<Marks>,
    scope: &mut Option<VersionScope>,
    next: &mut Option<N>,
    out: &mut Out<B>,
) {
    let forwarded = match next {
        Some(n) => n.accept_mark(m),
        None => out.send_mark(m),
    };
    marks::passed(marks_ctx, m, 1, forwarded);
    *scope = None; // restore the thread's scope before entering the new one
    *scope = marks::scope(marks_ctx);
}

/// One piece of a chain, run as a single operator: pops from the first
/// link's input, runs every link of the piece per value, sends from the last.
pub struct Segment<L>(L, Option<Marks>, LinkProbe);

impl<L> Segment<L> {
    /// The operator for the piece that starts at `first` (already split).
    pub(crate) fn new(first: L, probe: LinkProbe) -> Self {
        Segment(first, None, probe)
    }
}

/// A piece's sampled link times ([`Stage::accept_probed`]), added to the
/// run's [`LinkTimes`] when the piece is dropped at the end of the run.
#[derive(Clone)]
pub(crate) struct LinkProbe {
    /// The piece's node ids, first link first; empty for a piece of one
    /// link (its time is the piece's), which never probes.
    ids: Vec<usize>,
    /// Sampled nanoseconds per link.
    ns: Vec<u64>,
    /// Steps and items since the last probe (`None` until the first).
    since: Option<(u32, usize)>,
    sink: Option<LinkTimes>,
}

impl LinkProbe {
    /// The probe of the piece of nodes `ids`.
    fn new<'a, I: Install<'a>>(builder: &mut I, ids: &[usize]) -> Self {
        if ids.len() < 2 {
            return LinkProbe { ids: Vec::new(), ns: Vec::new(), since: None, sink: None };
        }
        LinkProbe { ids: ids.to_vec(), ns: vec![0; ids.len()], since: None, sink: Some(builder.link_times()) }
    }

    /// Whether this step probes: every step until a probe has timed an
    /// item (a piece's first steps may find no value), then once
    /// [`PROBE_STEPS`](crate::deploy::PROBE_STEPS) steps and
    /// [`PROBE_ITEMS`](crate::deploy::PROBE_ITEMS) items have passed, or
    /// [`PROBE_EVERY`] steps.
    #[inline(always)]
    fn due(&mut self) -> bool {
        if self.ids.is_empty() {
            return false;
        }
        match self.since {
            None => true,
            Some((steps, items)) => (steps >= PROBE_STEPS && items >= PROBE_ITEMS) || steps >= PROBE_EVERY,
        }
    }

    /// A step ran `items` items (a probed one among them if `probed`).
    #[inline(always)]
    fn count(&mut self, items: usize, probed: bool) {
        if probed {
            self.since = Some((0, 0));
        } else if let Some((steps, n)) = &mut self.since {
            *steps += 1;
            *n += items;
        }
    }
}

impl Drop for LinkProbe {
    fn drop(&mut self) {
        if let Some(sink) = &self.sink {
            sink.add(&self.ids, &self.ns);
        }
    }
}

/// Fire the piece on the first packet of its input, timing each link, if
/// that packet is a value and the piece's end has room; whether it did.
#[cold]
#[inline(never)]
fn probe_first<A, B, F, N>(link: &mut Link<A, B, F, N>, ns: &mut [u64]) -> bool
where
    A: Send,
    B: Send,
    F: FnMut((A,), ()) -> ((), (B,)) + Clone + Send,
    N: Stage<B>,
{
    if link.input.available() == 0 || link.room() == 0 {
        return false;
    }
    let x = {
        let mut cursor = link.input.cursor();
        // SAFETY: the input holds a packet (checked above).
        if !matches!(unsafe { cursor.peek() }, Packet::Data(_)) {
            return false;
        }
        let Packet::Data(x) = (unsafe { cursor.pop() }) else { unreachable!() };
        x
    };
    link.accept_probed(x, ns);
    true
}

impl<A, B, F, N> Node for Segment<Link<A, B, F, N>>
where
    A: Send,
    B: Send,
    F: FnMut((A,), ()) -> ((), (B,)) + Clone + Send,
    N: Stage<B>,
{
    fn step(&mut self, budget: usize) -> Step {
        let mut done = 0;
        // The piece's user code sees the replacements it adopted.
        let mut scope = marks::scope(&self.1);
        let mut probed = false;
        if self.2.due() {
            let Segment(link, _, probe) = &mut *self;
            probed = probe_first(link, &mut probe.ns);
            done += usize::from(probed);
        }
        while done < budget {
            let Segment(link, marks_ctx, _) = &mut *self;
            let run = link.input.available().min(link.room()).min(budget - done);
            if run == 0 {
                if done == 0 && link.input.is_closed() {
                    return Step::Done;
                }
                break;
            }
            let Link { id, input, f, out, next } = link;
            let mut cursor = input.cursor();
            for _ in 0..run {
                // SAFETY: `run` is at most the packets the input holds, and
                // each iteration pops one.
                match unsafe { cursor.peek() } {
                    Packet::Data(_) => {
                        let Packet::Data(x) = (unsafe { cursor.pop() }) else { unreachable!() };
                        fire(*id, f, out, next, x);
                    }
                    Packet::End(level) => {
                        let level = *level;
                        unsafe { cursor.pop() };
                        match next {
                            Some(n) => n.accept_end(level),
                            None => out.send_end(level),
                        }
                    }
                    Packet::Mark(m) => {
                        let m = *m;
                        unsafe { cursor.pop() };
                        pass_in_piece(m, marks_ctx, &mut scope, next, out);
                    }
                }
            }
            done += run;
        }
        drop(scope);
        self.2.count(done, probed);
        Step::after(done)
    }

    fn attach(&mut self, at: &Attach) {
        // One operator for all the piece's nodes: it adopts what is
        // addressed to any of them (`update/README.md`).
        let mut ids = Vec::new();
        self.0.fused_ids(&mut ids);
        self.1 = Some(at.marks_for_piece(&ids));
    }

    fn flush(&mut self) {
        Stage::flush(&mut self.0);
    }

    fn describe(&self) -> String {
        let mut ids = Vec::new();
        self.0.fused_ids(&mut ids);
        format!("in [{}] fused nodes {ids:?}", self.0.input.describe())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::deploy::LinkTimes;
    use crate::exec::{execute, ResultSlot};
    use crate::graph::{ArcInfo, GraphInfo, NodeInfo, OpKind};
    use crate::node::chain::Link;
    use crate::node::install::Install;
    use crate::node::source::{Sink, Source};
    use crate::port::{In, Out};

    /// `x -> a -> b -> result`: two calls, fused when in one section.
    static G: GraphInfo = GraphInfo {
        algorithm: "two_links",
        file: "",
        nodes: &[
            NodeInfo { name: "two_links/x#arg", kind: OpKind::Source, depth: 0, label: "x", replicable: false, line: 0 },
            NodeInfo { name: "two_links/a#1", kind: OpKind::Call, depth: 0, label: "a", replicable: false, line: 0 },
            NodeInfo { name: "two_links/b#2", kind: OpKind::Call, depth: 0, label: "b", replicable: false, line: 0 },
            NodeInfo { name: "two_links/result", kind: OpKind::Sink, depth: 0, label: "", replicable: false, line: 0 },
        ],
        arcs: &[
            ArcInfo { from: 0, from_port: 0, to: 1, to_port: 0, feedback: false },
            ArcInfo { from: 1, from_port: 0, to: 2, to_port: 0, feedback: false },
            ArcInfo { from: 2, from_port: 0, to: 3, to_port: 0, feedback: false },
        ],
    };

    /// `b(a(40))` with `a` and `b` as one chain, and the run's link times.
    fn run_two_links<A, B>(a: A, b: B) -> (u32, LinkTimes)
    where
        A: FnMut((u32,), ()) -> ((), (u32,)) + Clone + Send,
        B: FnMut((u32,), ()) -> ((), (u32,)) + Clone + Send,
    {
        let _graphs = crate::tests::runs_graphs();
        let mut sink = None;
        // Both links in one section, so they are one piece.
        let one_section = crate::deploy::Deployment::default().workers(1);
        let v = crate::context::with_deployment(one_section, || {
            execute(&G, |builder| {
                let (s0, r0) = builder.arc(0);
                let (s1, r1) = builder.arc(1);
                let (s2, r2) = builder.arc(2);
                let slot: ResultSlot<u32> = builder.result_slot();
                sink = Some(Install::link_times(builder));
                builder.node(0, Source::new(40u32, Out::new(vec![s0])));
                let first = Link::new(1, In::new(r0), Out::new(vec![s1]), a);
                let second = Link::new(2, In::new(r1), Out::new(vec![s2]), b);
                builder.chain(first.then(second));
                builder.node(3, Sink::new(In::new(r2), slot.clone()));
                slot
            })
        });
        (v, sink.expect("built"))
    }

    /// `Link`'s example.
    #[test]
    fn two_links_in_one_section_run_as_one_operator() {
        let inc = |(x,): (u32,), ()| ((), (x + 1,));
        assert_eq!(run_two_links(inc, inc).0, 42);
    }

    /// A piece of two links probes each on its first value: the times it
    /// adds to the run's `LinkTimes` are each link's own (lower bounds:
    /// a link that sleeps 1 ms took at least 1 ms), and nothing goes to the
    /// nodes outside the piece.
    #[test]
    fn a_piece_times_each_of_its_links_on_the_values_it_probes() {
        let sleeps = |ms: u64| {
            move |(x,): (u32,), ()| {
                std::thread::sleep(std::time::Duration::from_millis(ms));
                ((), (x + 1,))
            }
        };
        let (v, sink) = run_two_links(sleeps(1), sleeps(2));
        assert_eq!(v, 42);
        let sampled = sink.get();
        assert_eq!(sampled.len(), 4);
        assert!(sampled[1] >= 1_000_000, "link a slept 1 ms on its probed value: {sampled:?}");
        assert!(sampled[2] >= 2_000_000, "link b slept 2 ms on its probed value: {sampled:?}");
        assert_eq!((sampled[0], sampled[3]), (0, 0), "source and sink are not links: {sampled:?}");
    }
}
