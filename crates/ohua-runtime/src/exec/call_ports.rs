//! Installing a call operator ([`Builder::call`]): once, on replicas, or on
//! the replicas of a keyed state; and how each holds its statement's
//! function.
//!
//! Every statement of an algorithm is a closure with a type of its own. Run
//! as a generic `Call<I, S, O, F>`, every statement had the whole operator
//! (its step, its firing loop, its replicas) compiled for it: most of a
//! large algorithm's release build after its build closure
//! (BENCHMARKS.md, "Compile time of one large algorithm"). A call without
//! sticky values and every replica therefore hold their function behind a
//! pointer ([`CallFn`]): the operator is compiled once per port types,
//! shared by every statement with the same inputs and outputs, and per
//! statement only the closure's body remains. A call with sticky values (a
//! state, a captured value) keeps its function inline ([`HoldFn`]): its
//! values go into the function and come back at every firing, and through a
//! pointer they would go through memory (the store-forwarding stall that
//! `node/call.rs`'s `Lent` avoids; the `out.push(x)` of the `chain`
//! benchmark).

use crate::keyed::{KeyFn, Keyed};
use crate::node::call::Call;
use crate::node::fan::{FanSticky, StickyJoin};
use crate::node::inputs::DataInputs;
use crate::node::keyed::KeyedScatter;
use crate::node::keyed_sticky::KeyedSticky;
use crate::node::outputs::OutputSet;
use crate::node::replicate::{Gather, LaneShape, LANE_DEPTH, REORDER_DEPTH};
use crate::node::sticky::{Sticky, StickySet};
use crate::port::{In, Out};

use super::builder::{Builder, Role};

/// A call operator's ports, waiting for its function ([`Builder::call`]).
pub struct CallPorts<'b, 'a, I, S, O> {
    pub(super) builder: &'b mut Builder<'a>,
    pub(super) id: usize,
    pub(super) inputs: I,
    pub(super) sticky: S,
    pub(super) outputs: O,
}

impl<'b, 'a, I, S, O> CallPorts<'b, 'a, I, S, O> {
    /// The ports of node `id`'s call ([`Builder::call`]).
    pub(super) fn new(builder: &'b mut Builder<'a>, id: usize, inputs: I, sticky: S, outputs: O) -> Self {
        CallPorts { builder, id, inputs, sticky, outputs }
    }
}

/// A call's function behind a pointer (see the module docs).
pub type CallFn<'a, I, S, O> = Box<
    dyn FnMut(<I as DataInputs>::Item, <S as StickySet>::Values) -> (<S as StickySet>::Values, <O as OutputSet>::Item)
        + Send
        + 'a,
>;

/// How a call operator with sticky set `Self` holds its function (see the
/// module docs): behind a pointer ([`CallFn`]) without sticky values, inline
/// with them.
pub trait HoldFn<'a, I: DataInputs, O: OutputSet>: StickySet {
    /// The function as the operator holds it.
    type Held<F>: FnMut(I::Item, Self::Values) -> (Self::Values, O::Item) + Send + 'a
    where
        F: FnMut(I::Item, Self::Values) -> (Self::Values, O::Item) + Send + 'a;

    /// Hold `f`.
    fn hold<F>(f: F) -> Self::Held<F>
    where
        F: FnMut(I::Item, Self::Values) -> (Self::Values, O::Item) + Send + 'a;
}

impl<'a, I: DataInputs, O: OutputSet> HoldFn<'a, I, O> for ()
where
    I::Item: 'a,
    O::Item: 'a,
{
    type Held<F>
        = CallFn<'a, I, (), O>
    where
        F: FnMut(I::Item, ()) -> ((), O::Item) + Send + 'a;

    fn hold<F>(f: F) -> CallFn<'a, I, (), O>
    where
        F: FnMut(I::Item, ()) -> ((), O::Item) + Send + 'a,
    {
        Box::new(f)
    }
}

macro_rules! hold_inline {
    ($($name:ident),+) => {
        impl<'a, I: DataInputs, O: OutputSet, $($name: Send),+> HoldFn<'a, I, O> for ($(Sticky<$name>,)+) {
            type Held<Fun>
                = Fun
            where
                Fun: FnMut(I::Item, Self::Values) -> (Self::Values, O::Item) + Send + 'a;

            #[inline(always)]
            fn hold<Fun>(f: Fun) -> Fun
            where
                Fun: FnMut(I::Item, Self::Values) -> (Self::Values, O::Item) + Send + 'a,
            {
                f
            }
        }
    };
}

hold_inline!(TA);
hold_inline!(TA, TB);
hold_inline!(TA, TB, TC);
hold_inline!(TA, TB, TC, TD);
hold_inline!(TA, TB, TC, TD, TE);
hold_inline!(TA, TB, TC, TD, TE, TF);
hold_inline!(TA, TB, TC, TD, TE, TF, TG);
hold_inline!(TA, TB, TC, TD, TE, TF, TG, TH);
hold_inline!(TA, TB, TC, TD, TE, TF, TG, TH, TI);
hold_inline!(TA, TB, TC, TD, TE, TF, TG, TH, TI, TJ);
hold_inline!(TA, TB, TC, TD, TE, TF, TG, TH, TI, TJ, TK);
hold_inline!(TA, TB, TC, TD, TE, TF, TG, TH, TI, TJ, TK, TL);

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    S: HoldFn<'a, I, O> + 'a,
    O: OutputSet + 'a,
{
    /// Install the operator running `f` once per activation.
    ///
    /// # Panics
    ///
    /// As [`Builder::node`].
    #[inline(never)]
    pub fn run<F>(self, f: F)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Send + 'a,
    {
        self.builder.node(self.id, Call::new(self.inputs, self.sticky, self.outputs, S::hold(f)));
    }
}

/// `n` copies of a call's function, each behind its own pointer: the part
/// of installing replicas that depends on the statement's closure type.
fn copies<'a, I, S, O, F>(f: F, n: usize) -> Vec<CallFn<'a, I, S, O>>
where
    I: DataInputs,
    S: StickySet,
    O: OutputSet,
    F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
{
    (0..n).map(|_| Box::new(f.clone()) as CallFn<'a, I, S, O>).collect()
}

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    S: FanSticky + HoldFn<'a, I, O> + 'a,
    O: OutputSet + 'a,
    I::Item: Send + 'a,
    O::Item: Send + 'a,
{
    /// Install the operator of a call without state (a replicable node,
    /// whose sticky inputs, if any, are read-only values of a `Clone` type):
    /// as [`CallPorts::run`] if the plan runs it once, else on the plan's
    /// replicas, each with its own clone of `f` and of the sticky values,
    /// results merged back in order (`node/replicate.rs`, `node/fan.rs`).
    ///
    /// # Panics
    ///
    /// As [`Builder::node`].
    #[inline(never)]
    pub fn run_replicable<F>(self, f: F)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
    {
        if !self.builder.plan().is_replicated(self.id) {
            return self.run(f);
        }
        let n = self.builder.plan().replicas[self.id];
        self.run_replicas(copies::<I, S, O, F>(f, n));
    }

    /// [`CallPorts::run_replicable`] on a replicated node, one function per
    /// replica: compiled once per port types.
    #[inline(never)]
    pub(super) fn run_replicas(self, fs: Vec<CallFn<'a, I, S, O>>) {
        let CallPorts { builder, id, inputs, sticky, outputs } = self;
        let mut copies = sticky.fan(builder, id, builder.plan().replicas[id]).into_iter();
        let mut fs = fs.into_iter();
        let holds = S::HOLDS_VALUES;
        builder.replicate(
            id,
            inputs,
            outputs,
            LaneShape { markers_to_all: holds, far: None },
            // Functions, not closures: a closure has a type of its own at
            // every call site, and so had the scatter and the gather
            // compiled for it (BENCHMARKS.md, "Compile time").
            std::convert::identity,
            std::convert::identity,
            |_, lane_in, lane_out| {
                let mut f = fs.next().expect("one function per replica");
                let sticky = copies.next().expect("one set of sticky values per replica");
                Call::new((lane_in,), sticky, (lane_out,), move |(args,), values| {
                    let (values, results) = f(args, values);
                    (values, (results,))
                })
            },
        );
    }
}

impl<'a, I, S, O> CallPorts<'_, 'a, I, S, O>
where
    I: DataInputs + 'a,
    O: OutputSet + 'a,
    I::Item: Send + 'a,
    O::Item: Send + 'a,
    S: KeyedSticky + HoldFn<'a, I, O> + 'a,
{
    /// Install the operator of a call on a keyed state ([`crate::keyed`]),
    /// whose first sticky input is that state and whose others, if any, are
    /// read-only values of a `Clone` type: as [`CallPorts::run`] if the plan
    /// runs it once, else on the plan's replicas, each owning the part of
    /// the state for its key groups and a copy of each other value
    /// (`node/keyed_sticky.rs`); `key` gives an item's key group
    /// (`node/keyed.rs`). Each replica holds its function inline: the
    /// state goes into it and comes back at every firing (module docs).
    ///
    /// # Panics
    ///
    /// As [`Builder::node`].
    #[inline(never)]
    pub fn run_keyed<F, K>(self, f: F, key: K)
    where
        F: FnMut(I::Item, S::Values) -> (S::Values, O::Item) + Clone + Send + 'a,
        K: FnMut(&I::Item, KeyFn<S::State>) -> usize + Send + 'a,
    {
        if !self.builder.plan().is_replicated(self.id) {
            return self.run(f);
        }
        let CallPorts { builder, id, inputs, sticky, outputs } = self;
        let (sticky, rest) = sticky.split();
        let (state, home, release) = sticky.into_parts();
        let mut copies = rest.fan(builder, id, builder.plan().replicas[id]).into_iter();
        let (to_replicas, lanes) = builder.lanes::<I::Item>(id, true, LANE_DEPTH);
        let (parts_out, parts_in) = builder.lanes::<S::State>(id, true, LANE_DEPTH);
        let (results_out, results_in) = builder.lanes::<O::Item>(id, false, REORDER_DEPTH);
        let (released_out, released_in) = builder.lanes::<S::State>(id, false, LANE_DEPTH);
        // A live rescaling hands each part back to the scatter (one at a time).
        let (backs_out, backs_in) = builder.lanes::<S::State>(id, false, 1);
        let (order, order_rx) = builder.order_arc(id);
        let groups = builder.plan().groups[id].clone();
        // Elastic replicas of a keyed call open by moving key groups.
        let elastic = builder.elastic(id);
        let scatter = KeyedScatter::new(inputs, state, to_replicas, parts_out, order, key)
            .balanced(groups, builder.graph(), id)
            .rescalable(backs_in, home)
            .elastic(elastic);
        builder.install(id, Box::new(scatter));
        let replicas = lanes.into_iter().zip(parts_in).zip(results_out).zip(released_out).zip(backs_out);
        for (k, ((((lane, part), results), released), back)) in replicas.enumerate() {
            let mut f = f.clone();
            let part = Sticky::new(In::new(part), home, Out::new(vec![released])).with_hand_back(back);
            let sticky = S::join(part, copies.next().expect("one set of sticky values per replica"));
            let replica = Call::new((In::new(lane),), sticky, (Out::new(vec![results]),), move |(args,), values| {
                let (values, results) = f(args, values);
                (values, (results,))
            });
            builder.install_extra(id, Role::Replica(k), Box::new(replica));
        }
        let gather = Gather::with_markers_in_lanes(order_rx, results_in, outputs, |results| results);
        builder.install_extra(id, Role::Merge, Box::new(gather));
        builder.install_extra(id, Role::Merge, Box::new(StickyJoin::new(released_in, release, S::State::merge)));
    }
}
