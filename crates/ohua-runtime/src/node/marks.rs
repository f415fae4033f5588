//! What an operator of a service run does with a control marker
//! (`crate::update`): adopt what the marker's action says, and count the
//! marker's copies so its service knows when it has crossed the graph.

use std::sync::Arc;

use crate::graph::GraphInfo;
use crate::packet::Mark;
use crate::update::{Control, VersionScope, Versions};

/// Handed to every operator of a run that has a [`Control`] (a service),
/// through [`super::Node::attach`].
pub struct Attach {
    pub(crate) control: Arc<Control>,
    pub(crate) graph: &'static GraphInfo,
    pub(crate) node: usize,
}

impl Attach {
    /// The marker context of an operator that runs the nodes `ids` of the
    /// run's graph (one, or the links of a fused chain piece; the first
    /// one names it in reports).
    pub(crate) fn marks_for_piece(&self, ids: &[usize]) -> Marks {
        Marks {
            control: self.control.clone(),
            node: ids.first().copied().unwrap_or(self.node),
            names: ids.iter().filter_map(|&id| self.graph.nodes.get(id)).map(|n| n.name).collect(),
            versions: None,
        }
    }

    /// The context for the node being attached.
    pub(crate) fn marks(&self) -> Marks {
        self.marks_for_piece(&[self.node])
    }

    /// The run's control.
    pub(crate) fn control(&self) -> &Arc<Control> {
        &self.control
    }
}

/// An operator's marker context: its identity, and the function
/// replacements it has adopted.
pub(crate) struct Marks {
    control: Arc<Control>,
    node: usize,
    names: Vec<&'static str>,
    versions: Option<Arc<Versions>>,
}

impl Marks {
    /// The operator took `m` from `consumed` arcs and forwarded it into
    /// `forwarded`; adopt what the marker carries for this operator.
    pub(crate) fn passed(&mut self, m: Mark, consumed: usize, forwarded: usize) {
        let marker = self.control.marker(m.id);
        let adopted = Versions::adopt(self.versions.as_ref(), marker.action(), &self.names);
        let did = adopted.is_some();
        if did {
            self.versions = adopted;
        }
        marker.passed(self.node, consumed, forwarded, did);
    }

    /// The scope in which this operator's user code runs, once it has
    /// adopted a replacement.
    #[inline]
    pub(crate) fn scope(&self) -> Option<VersionScope> {
        self.versions.as_ref().map(VersionScope::enter)
    }
}

/// [`Marks::passed`] for an operator that may not be attached (a run
/// without control never carries markers, so then there is nothing to do).
#[inline(never)]
pub(crate) fn passed(marks: &mut Option<Marks>, m: Mark, consumed: usize, forwarded: usize) {
    if let Some(marks) = marks {
        marks.passed(m, consumed, forwarded);
    }
}

/// The version scope of an optional marker context.
#[inline(always)]
pub(crate) fn scope(marks: &Option<Marks>) -> Option<VersionScope> {
    match marks {
        Some(m) => m.scope(),
        None => None,
    }
}
