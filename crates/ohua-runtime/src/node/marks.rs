//! What an operator of a service run does with a control marker
//! (`crate::update`): adopt what the marker's action says, and count the
//! marker's copies so its service knows when it has crossed the graph.

use std::sync::Arc;

use crate::graph::GraphInfo;
use crate::packet::Mark;
use crate::update::{Action, Changes, Control, Outcome, VersionScope, Versions, VisitStates};

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
            regroups: false,
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
    /// A keyed scatter's: a rescaling of its name is adopted here.
    regroups: bool,
}

impl Marks {
    /// The operator took `m` from `consumed` arcs and forwarded it into
    /// `forwarded`; adopt what the marker carries for this operator,
    /// transforming the states `states` visits.
    pub(crate) fn passed(&mut self, m: Mark, consumed: usize, forwarded: usize, states: Option<VisitStates<'_>>) {
        let marker = self.control.marker(m.id);
        let name = self.names.first().copied().unwrap_or("?");
        let outcome = match (marker.action(), states) {
            (Action::NoOp | Action::Probe, _) => Outcome::Nothing,
            (Action::Update(changes), states) => self.adopt(changes, states),
            (Action::Checkpoint(kinds), Some(visit)) => match kinds.save_all(name, visit) {
                Ok(saved) => Outcome::Saved(saved),
                Err(message) => Outcome::Rejected { operator: name, message },
            },
            (Action::Restore(r), Some(visit)) => match r.1.restore_all(&r.0, name, visit) {
                Ok(0) => Outcome::Nothing,
                Ok(_) => Outcome::Restored { operator: name },
                Err(message) => Outcome::Rejected { operator: name, message },
            },
            (Action::Handover(h), Some(visit)) => {
                match h.kinds().save_all(name, visit).and_then(|saved| h.deposit(&saved).map(|()| saved)) {
                    Ok(saved) => Outcome::Saved(saved),
                    Err(message) => Outcome::Rejected { operator: name, message },
                }
            }
            (Action::Takeover(h), Some(visit)) => match h.take_over(visit) {
                Ok(0) => Outcome::Nothing,
                Ok(_) => Outcome::Restored { operator: name },
                Err(message) => Outcome::Rejected { operator: name, message },
            },
            (Action::Checkpoint(_) | Action::Restore(_) | Action::Handover(_) | Action::Takeover(_), None) => {
                Outcome::Nothing
            }
            (Action::Regroup(r), _) if self.regroups && r.applies_to(name) => Outcome::Adopted { transforms: vec![] },
            (Action::Regroup(_), _) => Outcome::Nothing,
        };
        marker.passed(self.node, consumed, forwarded, outcome);
    }

    /// Whether marker `m` transforms, saves or restores states of this
    /// operator (it must then hold its states before it passes the marker).
    pub(crate) fn wants_states(&self, m: Mark) -> bool {
        match self.control.marker(m.id).action() {
            Action::Update(changes) => !self.my_transforms(changes).is_empty(),
            Action::Checkpoint(kinds) => !kinds.names().is_empty(),
            Action::Handover(h) | Action::Takeover(h) => !h.kinds().names().is_empty(),
            Action::Restore(r) => r.0.states.iter().any(|s| self.names.first() == Some(&s.operator.as_str())),
            Action::NoOp | Action::Probe | Action::Regroup(_) => false,
        }
    }

    /// The replicas marker `m` spreads this operator's key groups over, if
    /// it rescales this operator (`update/regroup.rs`).
    pub(crate) fn regroup(&self, m: Mark) -> Option<usize> {
        match self.control.marker(m.id).action() {
            Action::Regroup(r) if self.names.iter().any(|n| r.applies_to(n)) => Some(r.replicas()),
            _ => None,
        }
    }

    /// This operator is a keyed scatter: it reports a rescaling of its name
    /// as adopted.
    pub(crate) fn set_regroups(&mut self) {
        self.regroups = true;
    }

    fn my_transforms(&self, changes: &Changes) -> Vec<usize> {
        let mine = |t: &&crate::update::Transform| self.names.iter().any(|n| t.applies_to(n));
        changes.transforms.iter().enumerate().filter(|(_, t)| mine(t)).map(|(k, _)| k).collect()
    }

    /// Transform the states, then adopt the replacements: all or nothing.
    fn adopt(&mut self, changes: &Changes, states: Option<VisitStates<'_>>) -> Outcome {
        let mine = self.my_transforms(changes);
        let mut applied = Vec::new();
        if let (false, Some(visit)) = (mine.is_empty(), states) {
            match transform_states(changes, &mine, visit) {
                Ok(done) => applied = done,
                Err(message) => {
                    return Outcome::Rejected { operator: self.names.first().copied().unwrap_or("?"), message }
                }
            }
        }
        match Versions::adopt(self.versions.as_ref(), changes, &self.names) {
            Some(v) => self.versions = Some(v),
            None if applied.is_empty() => return Outcome::Nothing,
            None => {}
        }
        Outcome::Adopted { transforms: applied }
    }

    /// The scope in which this operator's user code runs, once it has
    /// adopted a replacement.
    #[inline]
    pub(crate) fn scope(&self) -> Option<VersionScope> {
        self.versions.as_ref().map(VersionScope::enter)
    }
}

/// Compute the new value of every state a transform in `mine` applies to
/// (the first that does, per state); only if none failed, put them all in
/// place. Returns the transforms applied, or the first failure.
fn transform_states(changes: &Changes, mine: &[usize], visit: VisitStates<'_>) -> Result<Vec<usize>, String> {
    let mut new = Vec::new();
    let mut failure = None;
    let mut position = 0;
    visit(&mut |mut s| {
        for &k in mine {
            match changes.transforms[k].compute(&mut s) {
                None => continue,
                Some(Ok(v)) => new.push((position, k, v)),
                Some(Err(e)) => failure = failure.take().or(Some(e)),
            }
            break;
        }
        position += 1;
    });
    if let Some(message) = failure {
        return Err(message);
    }
    let mut new = new.into_iter().peekable();
    let mut applied = Vec::new();
    position = 0;
    visit(&mut |mut s| {
        if let Some((_, k, v)) = new.next_if(|(p, _, _)| *p == position) {
            changes.transforms[k].commit(&mut s, v);
            applied.push(k);
        }
        position += 1;
    });
    Ok(applied)
}

/// [`Marks::passed`] for an operator that may not be attached (a run
/// without control never carries markers, so then there is nothing to do).
#[inline(never)]
pub(crate) fn passed(marks: &mut Option<Marks>, m: Mark, consumed: usize, forwarded: usize) {
    if let Some(marks) = marks {
        marks.passed(m, consumed, forwarded, None);
    }
}

/// [`passed`] for an operator holding states (`visit` calls its argument
/// on each).
#[inline(never)]
pub(crate) fn passed_with_states(
    marks: &mut Option<Marks>,
    m: Mark,
    consumed: usize,
    forwarded: usize,
    visit: VisitStates<'_>,
) {
    if let Some(marks) = marks {
        marks.passed(m, consumed, forwarded, Some(visit));
    }
}

/// Whether marker `m` carries a state transform for this operator.
#[inline(never)]
pub(crate) fn wants_states(marks: &Option<Marks>, m: Mark) -> bool {
    marks.as_ref().is_some_and(|marks| marks.wants_states(m))
}

/// [`Marks::regroup`] of an operator that may not be attached.
#[inline(never)]
pub(crate) fn regroup(marks: &Option<Marks>, m: Mark) -> Option<usize> {
    marks.as_ref().and_then(|marks| marks.regroup(m))
}

/// The version scope of an optional marker context.
#[inline(always)]
pub(crate) fn scope(marks: &Option<Marks>) -> Option<VersionScope> {
    match marks {
        Some(m) => m.scope(),
        None => None,
    }
}
