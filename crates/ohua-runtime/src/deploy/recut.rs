//! Re-cutting sections while a run goes on (issue 23): what the plan asks
//! for, and how measured loads regroup the sections.
//!
//! A graph's first run has measured nothing, and the cut by operator count
//! may put two heavy stateful stages in one section (`ohua-bench
//! first-runs`, `skewed`: 0.97x of sequential, against 1.8x for later runs
//! that cut by measured cost). Such a run is cut finer than it has threads
//! for ([`fine_cut`]): its sections start grouped as the count would group
//! them (one section's driver *hosts* the others of its group,
//! `exec/hosting.rs`), and after a measured prefix the groups follow the
//! sections' measured busy time ([`contiguous_groups`]). Groups are
//! contiguous in the pipeline's order, as `auto`'s cut is, so an item
//! crosses threads no more often than under that cut.

use super::auto;
use crate::graph::{GraphInfo, OpKind};

/// How a run re-cuts its sections while it goes on ([`Plan::recut`](super::Plan::recut)).
///
/// # Example
///
/// ```
/// use ohua_runtime::deploy::Recut;
/// let r = Recut::Measured { threads: 2, start: vec![0, 0, 2, 2] };
/// assert_ne!(r, Recut::Chaos(7));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recut {
    /// Random sections (the tests' chaos): each section's driver joins
    /// another or lets its guests go at drawn moments.
    Chaos(u64),
    /// A first run cut finer than its threads: section `k` starts hosted
    /// by section `start[k]` (itself: it drives itself), and the run
    /// regroups the sections into at most `threads` contiguous groups by
    /// their measured busy time.
    Measured {
        /// Threads the sections share (the deployment's workers).
        threads: usize,
        /// The host of each section at the start.
        start: Vec<usize>,
    },
    /// Random sections (the tests' chaos), half of the seeds: the measured
    /// regrouping of [`Recut::Measured`] without its minimum window, work
    /// and gain, so its decisions come early and often, from noise.
    Eager {
        /// Threads the sections share.
        threads: usize,
        /// The host of each section at the start.
        start: Vec<usize>,
    },
}

/// The re-cut of random sections (`seed`'s, over `sections` sections):
/// drawn moments, or an eager measured regrouping from drawn groups.
pub(super) fn chaos(seed: u64, sections: usize) -> Recut {
    let seed = seed ^ 0x5EC7_10C5;
    if seed.is_multiple_of(2) || sections < 2 {
        return Recut::Chaos(seed);
    }
    // Drawn loads give drawn contiguous groups to start from.
    let loads: Vec<f64> = (0..sections as u64).map(|k| ((seed >> (k % 48)) & 7) as f64 + 1.0).collect();
    Recut::Eager { threads: 2, start: contiguous_groups(&loads, 2) }
}

/// Sections per thread of a first run's finer cut.
const FINER: usize = 4;

/// A first run's finer cut, if it has more calls in loops than `workers`:
/// the section of every node, and the re-cut that starts from the groups
/// the operator count gives.
pub(super) fn fine_cut(graph: &GraphInfo, workers: usize) -> Option<(Vec<usize>, Recut)> {
    let calls = graph.nodes.iter().filter(|n| n.kind == OpKind::Call && n.depth > 0).count();
    let k = (FINER * workers).min(calls);
    if workers < 2 || k <= workers {
        return None;
    }
    let raw = auto::split(graph, k, None);
    let sections = raw.iter().max().map_or(0, |m| m + 1);
    let mut guess = vec![0.0; sections];
    for (id, node) in graph.nodes.iter().enumerate() {
        guess[raw[id]] += auto::weight(node.kind) * auto::per_run(node.depth);
    }
    let start = contiguous_groups(&guess, workers);
    Some((raw, Recut::Measured { threads: workers, start }))
}

/// Group sections `0..loads.len()` (in pipeline order) into at most
/// `threads` contiguous groups whose largest load is as small as it can
/// be; each section's host is the first section of its group.
///
/// # Panics
///
/// Never for `threads == 0` (taken as 1).
pub(crate) fn contiguous_groups(loads: &[f64], threads: usize) -> Vec<usize> {
    let n = loads.len();
    let t = threads.clamp(1, n.max(1));
    let mut prefix = vec![0.0; n + 1];
    for (i, l) in loads.iter().enumerate() {
        prefix[i + 1] = prefix[i] + l.max(0.0);
    }
    // best[g][i]: the smallest largest load of the first i sections in g
    // groups; cut[g][i]: where the last of those groups starts.
    let mut best = vec![vec![f64::INFINITY; n + 1]; t + 1];
    let mut cut = vec![vec![0; n + 1]; t + 1];
    best[0][0] = 0.0;
    for g in 1..=t {
        for i in 1..=n {
            for j in (g - 1)..i {
                let worst = best[g - 1][j].max(prefix[i] - prefix[j]);
                // `<`: among equal cuts the earliest last group, so ties
                // do not move sections for nothing.
                if worst < best[g][i] {
                    best[g][i] = worst;
                    cut[g][i] = j;
                }
            }
        }
    }
    let groups = (1..=t).min_by(|&a, &b| best[a][n].total_cmp(&best[b][n]).then(a.cmp(&b))).unwrap_or(1);
    let mut host = vec![0; n];
    let (mut g, mut i) = (groups, n);
    while g > 0 && i > 0 {
        let j = cut[g][i];
        for h in host.iter_mut().take(i).skip(j) {
            *h = j;
        }
        (g, i) = (g - 1, j);
    }
    host
}

/// The largest load of one thread when section `k` runs on the thread of
/// its host `hosts[k]`.
pub(crate) fn bottleneck(loads: &[f64], hosts: &[usize]) -> f64 {
    let mut per = vec![0.0; loads.len()];
    for (k, &h) in hosts.iter().enumerate() {
        per[h] += loads[k];
    }
    per.into_iter().fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_heavy_sections_get_a_thread_each_and_the_light_ones_join_the_second() {
        assert_eq!(contiguous_groups(&[10.0, 10.0, 1.0, 1.0], 2), vec![0, 1, 1, 1]);
        assert_eq!(bottleneck(&[10.0, 10.0, 1.0, 1.0], &[0, 1, 1, 1]), 12.0);
        assert_eq!(bottleneck(&[10.0, 10.0, 1.0, 1.0], &[0, 0, 2, 2]), 20.0, "the count's cut");
    }

    #[test]
    fn even_loads_group_evenly_and_fewer_sections_than_threads_stay_apart() {
        assert_eq!(contiguous_groups(&[1.0; 8], 2), vec![0, 0, 0, 0, 4, 4, 4, 4]);
        assert_eq!(contiguous_groups(&[1.0; 8], 4), vec![0, 0, 2, 2, 4, 4, 6, 6]);
        assert_eq!(contiguous_groups(&[3.0, 1.0], 4), vec![0, 1]);
        assert_eq!(contiguous_groups(&[], 2), Vec::<usize>::new());
    }

    #[test]
    fn one_heavy_section_is_left_alone() {
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 2), vec![0, 0, 0, 3, 3, 3]);
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 3), vec![0, 0, 0, 3, 4, 4]);
    }
}
