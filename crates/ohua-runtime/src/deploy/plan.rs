//! The concrete deployment of one graph: which section runs which node.

use rand::{Rng, SeedableRng};

use super::recut::{self, Recut};
use super::{
    auto, learned, long_firings, stages, unmatched, Deployment, Replication, Scaling, SectionRule, SectionStrategy,
};
use crate::graph::GraphInfo;
use crate::keyed::{Groups, KEY_GROUPS};

/// Extra room on arcs inside a section beyond one batch, so a step's
/// end-of-activation markers fit next to a full batch of data.
const MARKER_ROOM: usize = 16;

/// A deployment applied to one graph.
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::{plan, Deployment, SectionStrategy};
/// use ohua_runtime::graph::{GraphInfo, NodeInfo, OpKind};
/// static G: GraphInfo = GraphInfo {
///     algorithm: "g",
///     file: "",
///     nodes: &[
///         NodeInfo { name: "g/a#0", kind: OpKind::Call, depth: 0, label: "a", replicable: false, line: 0 },
///         NodeInfo { name: "g/b#1", kind: OpKind::Call, depth: 1, label: "b", replicable: true, line: 0 },
///     ],
///     arcs: &[],
/// };
/// let d = Deployment::default().sections(SectionStrategy::PerOperator);
/// let p = plan(&G, &d);
/// assert_eq!((p.sections, p.section_of.clone()), (2, vec![0, 1]));
/// assert_eq!(p.local_capacity, d.batch_size + 16);
///
/// // Three replicas of `b`: replica 0 in b's section, two more sections.
/// let d = d.replicas("g/b#.*=3".parse().unwrap());
/// let p = plan(&G, &d);
/// assert_eq!((p.sections, p.replicas.clone()), (4, vec![1, 3]));
/// assert_eq!(p.replica_sections[1], vec![1, 2, 3]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Section of each node, indexed by node id; values are `0..sections`.
    pub section_of: Vec<usize>,
    /// Number of sections, none of them empty (at least 1).
    pub sections: usize,
    /// Firings per operator step.
    pub batch_size: usize,
    /// Capacity of an arc whose ends are in the same section.
    pub local_capacity: usize,
    /// Capacity of an arc between two sections.
    pub cross_capacity: usize,
    /// Replicas of each node, indexed by node id (1: the node runs once).
    pub replicas: Vec<usize>,
    /// For each replicated node, the section of each of its replicas
    /// (replica 0 shares the node's own section, where its items are dealt
    /// and merged); empty for a node that runs once.
    pub replica_sections: Vec<Vec<usize>>,
    /// For a replicated call on a keyed state whose earlier runs measured
    /// how many items each key group had: the groups balanced over its
    /// replicas by those loads (else the replicas own contiguous ranges).
    pub groups: Vec<Option<Groups>>,
    /// Replicated nodes whose replicas are *elastic*, and when they open:
    /// the run deals to replica 0 alone until then (`node/elastic.rs`). A
    /// first run (nothing measured yet) opens them once replica 0 has
    /// measured the node heavy enough ([`Opening::Measured`]); random
    /// replicas open at a drawn item, to test that opening never changes a
    /// result. A keyed call's key groups all stay with replica 0 (moving
    /// them means moving state).
    pub elastic: Vec<Option<Opening>>,
    /// For an elastic node that follows its load ([`Opening::Load`]) and
    /// whose items earlier runs measured long (`long_firings.rs`): that
    /// cost per item, in nanoseconds, so that its scatter deals its first
    /// items away from its own thread too; else 0 (replica 0 measures).
    pub long_items: Vec<u64>,
    /// The policy of the elastic replicas that follow their load
    /// ([`Opening::Load`]): the deployment's [`Scaling`].
    pub scaling: Scaling,
    /// What the replicated calls' lanes carry ([`super::Lanes`]).
    pub lanes: super::Lanes,
    /// Whether the run re-cuts its sections while it goes on (one
    /// section's thread steps another's operators for a while, then lets
    /// them go): random sections at drawn moments (the tests' chaos); by
    /// measured cost an `auto` first run, and every `auto` run whose
    /// replicas follow the load (`replicas = "elastic"`), if cut finer
    /// than its threads ([`Recut::Measured`], or [`Recut::Streaming`] where
    /// it has elastic replicas). Runs that fetch from data sources never
    /// re-cut.
    pub recut: Option<Recut>,
}

/// When a node's elastic replicas open ([`Plan::elastic`]).
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::Opening;
/// assert_ne!(Opening::Measured, Opening::AfterItems(3));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// Once replica 0 has measured the node's cost per item, if that cost
    /// pays for the hand-over (a first run).
    Measured,
    /// After replica 0 has run this many items, whatever they cost (random
    /// deployments: a test's "rescale at a random moment").
    AfterItems(u64),
    /// Open and close again and again, every this many items of replica 0
    /// (random deployments: a test of closing lanes mid-stream too).
    Toggle(u64),
    /// Follow the load for the whole run: open and close lanes as
    /// [`crate::deploy::needed_replicas`] says ([`Replication::Elastic`]).
    Load,
}

impl Plan {
    /// A plan that runs every node once in the given sections.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_runtime::deploy::Plan;
    /// let p = Plan::unreplicated(vec![0, 1, 1], 2, 64, 128);
    /// assert_eq!((p.sections, p.replicas.clone(), p.local_capacity), (2, vec![1, 1, 1], 80));
    /// ```
    pub fn unreplicated(section_of: Vec<usize>, sections: usize, batch_size: usize, cross_capacity: usize) -> Plan {
        let n = section_of.len();
        Plan {
            section_of,
            sections,
            batch_size,
            local_capacity: batch_size + MARKER_ROOM,
            cross_capacity,
            replicas: vec![1; n],
            replica_sections: vec![Vec::new(); n],
            groups: vec![None; n],
            elastic: vec![None; n],
            long_items: vec![0; n],
            scaling: Scaling::default(),
            lanes: super::Lanes::Values,
            recut: None,
        }
    }

    /// Whether node `id` runs on several replicas.
    pub fn is_replicated(&self, id: usize) -> bool {
        self.replicas.get(id).is_some_and(|&r| r > 1)
    }
}

/// Map every node of `graph` to a section according to `d`.
///
/// For [`SectionStrategy::Auto`] the result depends on earlier runs of the
/// same graph in this process: once a run has measured its operators, `auto`
/// cuts by their measured busy time instead of by operator count (see
/// `deploy/learned.rs`). Every other strategy depends on `graph` and `d` only.
///
/// Zero values in `d` are treated as 1. Sections that end up empty are
/// removed and the rest renumbered in order, so `0..sections` are all used.
pub fn plan(graph: &GraphInfo, d: &Deployment) -> Plan {
    let (strategy, scoped) = d.sections.for_algorithm(graph.algorithm);
    // Whether the configuration set this algorithm's sections: a table of
    // its name or a matching rule (else a misspelt name is looked for).
    let mut own = scoped;
    // Whether the sections are `auto`'s (then `auto` replication applies),
    // and the measurements `auto` plans by (looked up once: a plan is made
    // at every call).
    let mut automatic = false;
    let mut measured = None;
    // Whether no run of the graph has measured anything yet.
    let mut first = false;
    let mut auto_split = |automatic: &mut bool| {
        *automatic = true;
        match learned::lookup(graph) {
            // Nothing worth spreading over cores (`learned.rs`).
            learned::Learned::Light => return vec![0; graph.nodes.len()],
            learned::Learned::Measured(m) => measured = Some(m),
            learned::Learned::Nothing => first = true,
            learned::Learned::Closed => {}
        }
        auto::split(graph, d.workers, measured.as_ref().map(|(busy, _, _)| busy.as_slice()))
    };
    let raw: Vec<usize> = match strategy {
        SectionStrategy::Rules(rules) => match by_rules(graph, rules, scoped) {
            Some(raw) => {
                own = true;
                raw
            }
            None => auto_split(&mut automatic),
        },
        SectionStrategy::Auto => auto_split(&mut automatic),
        other => by_strategy(graph, other),
    };
    unmatched::planned(graph.algorithm, own, &d.sections);
    // `auto`'s measurements, if any (looked up once above; not copied again).
    let known = measured.as_ref().filter(|_| automatic).map(|(busy, firings, _)| (busy.as_slice(), firings.as_slice()));
    let (mut raw, replicas, drawn) = replicate(graph, d, raw, automatic, first, measured.as_ref());
    if let (Some((busy, firings)), None) = (known, &drawn) {
        // An operator that fires for milliseconds runs apart from the rest
        // (`long_firings.rs`): it would hold its section's others as long.
        if let Some(cut) = long_firings::apart(graph, &raw, &replicas, busy, firings, d.workers) {
            raw = cut;
        }
    }
    let fetches = graph.nodes.iter().any(|n| n.kind == crate::graph::OpKind::Await);
    let mut chaos = match strategy {
        SectionStrategy::Random { seed, .. } if !fetches => Some(*seed),
        _ => None,
    };
    let mut recut = None;
    // A first run with nothing to replicate is cut finer than its threads
    // and regroups by measured cost while it runs (`recut.rs`); so is
    // every run that follows its load (`replicas = "elastic"`).
    let follow = first || matches!(d.replicas, Replication::Elastic);
    if automatic && follow && !fetches && replicas.iter().all(|&r| r == 1) {
        if let Some((fine, r)) = recut::fine_cut(graph, d.workers) {
            raw = fine;
            recut = Some(r);
            chaos = None;
        }
    }
    let elastic = elastic(graph, d, &replicas, automatic && first);
    let long_items = match known {
        Some((busy, firings)) => long_firings::per_item(&elastic, busy, firings),
        None => vec![0; graph.nodes.len()],
    };
    // A run whose replicas follow the load is cut finer too: its pipeline
    // regroups by load once it streams (`recut.rs`). Not a first run's
    // `auto` replicas, which open once and stay: a batch job's first run
    // pays for the hosting (`ohua-bench first-runs`, `keyed`: 1.72-1.79x
    // of sequential against 1.83-1.92x).
    let follows_load = elastic.contains(&Some(Opening::Load));
    if automatic && !fetches && drawn.is_none() && follows_load {
        if let Some((fine, start)) = recut::refine(graph, &raw, d.workers) {
            let pipeline = start.len();
            let threads = d.workers;
            raw = fine;
            recut = Some(Recut::Streaming { threads, start, pipeline });
        }
    }
    let placement = drawn.unwrap_or_else(|| place(&raw, &replicas));
    let n = graph.nodes.len();
    let (section_of, sections, replica_sections) = if placement.iter().all(Vec::is_empty) {
        // The common case, kept cheap: a plan is made at every call.
        let (section_of, sections) = compact(raw);
        (section_of, sections, placement)
    } else {
        // Sections of the nodes, then of their replicas, renumbered together.
        let (all, sections) = compact(raw.iter().copied().chain(placement.iter().flatten().copied()).collect());
        let mut rest = all[n..].iter().copied();
        let replica_sections = placement.iter().map(|p| rest.by_ref().take(p.len()).collect()).collect();
        (all[..n].to_vec(), sections, replica_sections)
    };
    if let Some(seed) = chaos {
        recut = Some(recut::chaos(seed, sections));
    }
    if let Some(Recut::Streaming { start, .. }) = &mut recut {
        // The pipeline's sections come first (`refine` numbers them from
        // 0, compacted), the replicas' own after them: those host
        // themselves.
        start.extend(start.len()..sections);
    }
    let batch_size = d.batch_size.max(1);
    let groups = (0..n)
        .map(|id| match replicas[id] {
            1 => None,
            r if elastic[id].is_some() => Some(Groups::on_first(r.min(KEY_GROUPS))),
            r => learned::group_loads(graph, id).map(|loads| Groups::balanced(r.min(KEY_GROUPS), &loads)),
        })
        .collect();
    Plan {
        section_of,
        sections,
        batch_size,
        local_capacity: batch_size + MARKER_ROOM,
        cross_capacity: d.arc_capacity.max(1),
        replicas,
        replica_sections,
        groups,
        elastic,
        long_items,
        scaling: d.scaling.clone(),
        lanes: d.lanes,
        recut,
    }
}

/// Replica counts per node given the nodes' sections `raw`; `auto`
/// replication may re-form the stages, so the sections are returned too.
/// Random replicas also return the (uncompacted) section of every replica
/// of a replicated node, as drawn; other replicas are placed by [`place`].
///
/// `first`: `auto` plans a graph no run has measured; its replicas, if
/// any, are elastic ([`stages::prior`]).
fn replicate(
    graph: &GraphInfo,
    d: &Deployment,
    mut raw: Vec<usize>,
    automatic: bool,
    first: bool,
    measured: Option<&learned::Measured>,
) -> (Vec<usize>, Vec<usize>, Option<Vec<Vec<usize>>>) {
    let n = graph.nodes.len();
    let replicable = |id: usize| graph.nodes[id].replicable;
    let mut replicas = vec![1; n];
    match &d.replicas {
        Replication::Off => {}
        Replication::Elastic if automatic => {
            // Closed lanes cost nothing and the load decides the open ones
            // while the run goes on: every replicable piece gets the
            // replicas it may need, whatever earlier runs measured (a
            // service's quiet hour must not plan away its busy one).
            if let Some(staged) = stages::prior(graph, d.workers) {
                raw = staged.section_of;
                replicas = staged.replicas;
            }
        }
        Replication::Elastic => {}
        Replication::Auto => {
            let measured = measured.filter(|(_, _, pace)| automatic && !pace.replicas_were_slower());
            let staged = match measured {
                Some((costs, firings, _)) => stages::replicate(graph, d.workers, costs, firings, &raw),
                None if first => stages::prior(graph, d.workers),
                None => None,
            };
            if let Some(staged) = staged {
                raw = staged.section_of;
                replicas = staged.replicas;
            }
        }
        Replication::Rules(_) => {
            for (id, r) in replicas.iter_mut().enumerate().filter(|(id, _)| replicable(*id)) {
                *r = d.replicas.by_rules(graph.nodes[id].name).unwrap_or(1);
            }
        }
        Replication::Random { max, seed } => {
            // Counts and placements drawn per node, so one seed gives
            // deals that cross sections and deals that stay inside one.
            let mut rng = rand::rngs::StdRng::seed_from_u64(*seed);
            let bound = raw.iter().max().map_or(1, |m| m + 1) + max;
            let mut placement = vec![Vec::new(); n];
            for id in (0..n).filter(|&id| replicable(id)) {
                replicas[id] = rng.gen_range(1..=*max);
                if replicas[id] > 1 {
                    placement[id] =
                        std::iter::once(raw[id]).chain((1..replicas[id]).map(|_| rng.gen_range(0..bound))).collect();
                }
            }
            return (raw, replicas, Some(placement));
        }
    }
    (raw, replicas, None)
}

/// The (uncompacted) section of every replica of a replicated node:
/// replica 0 shares its node's section in `raw`; replica k > 0 of every
/// replicated node runs in the k-th section after `raw`'s.
fn place(raw: &[usize], replicas: &[usize]) -> Vec<Vec<usize>> {
    let base = raw.iter().max().map_or(0, |m| m + 1);
    replicas
        .iter()
        .enumerate()
        .map(|(id, &r)| match r {
            1 => Vec::new(),
            r => std::iter::once(raw[id]).chain((1..r).map(|k| base + k - 1)).collect(),
        })
        .collect()
}

/// Which replicated nodes are elastic ([`Plan::elastic`]): all of `auto`'s
/// in a first run (`first`), all of `elastic`'s, about half of the random
/// ones.
fn elastic(graph: &GraphInfo, d: &Deployment, replicas: &[usize], first: bool) -> Vec<Option<Opening>> {
    let n = graph.nodes.len();
    match &d.replicas {
        Replication::Auto if first => (0..n).map(|id| (replicas[id] > 1).then_some(Opening::Measured)).collect(),
        Replication::Elastic => (0..n).map(|id| (replicas[id] > 1).then_some(Opening::Load)).collect(),
        Replication::Random { seed, .. } => {
            // A generator of its own: the counts and placements drawn for a
            // seed stay what they were before elastic replicas.
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0xE1A5_71C0);
            (0..n)
                .map(|id| {
                    let at = rng.gen_range(0..64u64);
                    let opening = if rng.gen_bool(0.5) { Opening::AfterItems(at) } else { Opening::Toggle(at + 1) };
                    (replicas[id] > 1 && rng.gen_bool(0.5)).then_some(opening)
                })
                .collect()
        }
        _ => vec![None; n],
    }
}

/// Sections by rules: the first matching rule's index, the extra section
/// after the last rule for the rest. `None` if no rule matches any operator
/// (the algorithm then keeps `auto`). Rules that match nothing are reported
/// once (`unmatched.rs`).
fn by_rules(graph: &GraphInfo, rules: &[SectionRule], scoped: bool) -> Option<Vec<usize>> {
    let raw: Vec<usize> =
        graph.nodes.iter().map(|node| rules.iter().position(|r| r.matches(node.name)).unwrap_or(rules.len())).collect();
    let mut matched = vec![false; rules.len()];
    for &r in raw.iter().filter(|&&r| r < rules.len()) {
        matched[r] = true;
    }
    unmatched::rules(graph.algorithm, rules, &matched, scoped);
    matched.contains(&true).then_some(raw)
}

/// Sections by a strategy other than rules.
fn by_strategy(graph: &GraphInfo, strategy: &SectionStrategy) -> Vec<usize> {
    let n = graph.nodes.len();
    match strategy {
        SectionStrategy::Single => vec![0; n],
        SectionStrategy::PerOperator => (0..n).collect(),
        SectionStrategy::Auto => unreachable!("ohua internal error: `auto` is planned by `plan`"),
        SectionStrategy::Random { sections, seed } => {
            let mut rng = rand::rngs::StdRng::seed_from_u64(*seed);
            let k = (*sections).max(1);
            (0..n).map(|_| rng.gen_range(0..k)).collect()
        }
        // Resolved by `plan` (rules) and `for_algorithm` (per algorithm).
        SectionStrategy::Rules(_) | SectionStrategy::PerAlgorithm { .. } => {
            unreachable!("ohua internal error: nested section strategy {strategy}")
        }
    }
}

/// Renumber section ids to `0..k` keeping their order, dropping unused ids.
/// Returns the new map and `k` (at least 1, so an empty graph has a section).
fn compact(raw: Vec<usize>) -> (Vec<usize>, usize) {
    let mut used: Vec<usize> = raw.clone();
    used.sort_unstable();
    used.dedup();
    let section_of = raw.iter().map(|s| used.binary_search(s).expect("every id in raw is in used")).collect();
    (section_of, used.len().max(1))
}

#[cfg(test)]
mod tests {
    use super::compact;

    #[test]
    fn compact_removes_gaps_in_order() {
        assert_eq!(compact(vec![4, 0, 4, 2]), (vec![2, 0, 2, 1], 3));
        assert_eq!(compact(vec![]), (vec![], 1));
    }
}
