//! What operators need from the graph's builder while they install
//! themselves: a chain cut into one piece per section ([`super::chain`]), the
//! fan and join of a replicated call's sticky values ([`super::fan`]).
//!
//! The builder lives above the operators (`exec`, see the layer table in
//! `crates/ohua-runtime/LAYERS.md`), so the operators name it through this
//! trait, which [`crate::exec::Builder`] implements, as timely's operators
//! name their scheduler through `Operate`.

use super::elastic::Elastic;
use super::Node;
use crate::arc::{Receiver, Sender};
use crate::deploy::{LinkTimes, Plan};

/// What an operator does for its node: the node's own operator, or a part
/// of a replicated node (`node/replicate.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// The node's operator (for a replicated node: its scatter).
    Node,
    /// Replica `k` of the node.
    Replica(usize),
    /// The merge of a replicated node's results.
    Merge,
}

/// The builder as the operators that install more than one operator for
/// their nodes see it. Implemented by [`crate::exec::Builder`]; generated
/// code uses the builder's own methods.
pub trait Install<'a> {
    /// The deployment the graph is built for.
    fn plan(&self) -> &Plan;

    /// The lanes between replicated node `id`'s section and each of its
    /// replicas (into the replicas if `to_replicas`, else back), holding
    /// `capacity` packets; they wake the other side across sections.
    fn lanes<T: Send + 'a>(&self, id: usize, to_replicas: bool, capacity: usize) -> (Vec<Sender<T>>, Vec<Receiver<T>>);

    /// The order arc between a replicated node's scatter and its merge
    /// (both in the node's section).
    fn order_arc(&self, id: usize) -> (Sender<u16>, Receiver<u16>);

    /// The lanes replicated node `id`'s scatter may deal to, if its
    /// replicas are elastic (`node/elastic.rs`): its replica 0, installed
    /// after this call, is then timed to open the others.
    fn elastic(&mut self, id: usize) -> Option<Elastic>;

    /// Install `node` as the operator of the fused nodes `ids` (first one
    /// first).
    fn install_piece<N: Node + 'a>(&mut self, ids: &[usize], node: N);

    /// Where a chain piece adds its links' sampled times (one sink per run).
    fn link_times(&mut self) -> LinkTimes;

    /// Install a replica ([`Role::Replica`]) or the merge ([`Role::Merge`])
    /// of replicated node `anchor`.
    fn install_extra(&mut self, anchor: usize, role: Role, node: Box<dyn Node + 'a>);
}
