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

/// A service fuses its sections onto fewer threads when the busiest
/// thread of the fewer would be busy for at most this share of the window.
const FUSE_BELOW: f64 = 0.25;

/// A service spreads its sections onto more threads when its busiest
/// thread was busy for more than this share of the window.
const SPREAD_ABOVE: f64 = 0.6;

/// Spreading takes the fewest threads that keep the busiest under this
/// share (all of them if none does).
const SPREAD_TO: f64 = 0.45;

/// The groups of a service's sections for the next window, given each
/// section's busy time `loads` over a window of `span` (same unit) and the
/// groups `hosts` it had (Lagniappe's Monitor, issue 23): fused onto the
/// fewest threads whose busiest stays under a quarter of the window when
/// that is fewer than now (at light load every hand-off to another thread
/// is a wake-up on a request's path, and the cores go back), spread over
/// more when the busiest thread was busy for more than 60 % of it (its
/// queue grows with its load), onto the fewest that keep each under 45 %
/// (or regrouped over as many threads as before, if the load's shape
/// changed and that takes a tenth off the busiest). `None`: keep the
/// groups.
pub(crate) fn service_groups(loads: &[f64], hosts: &[usize], span: f64, threads: usize) -> Option<Vec<usize>> {
    let count = |h: &[usize]| h.iter().enumerate().filter(|&(k, &host)| k == host).count();
    let now = count(hosts);
    let busiest = bottleneck(loads, hosts);
    let fewest = |share: f64| {
        (1..=threads.max(1)).map(|g| contiguous_groups(loads, g)).find(|h| bottleneck(loads, h) <= share * span)
    };
    if let Some(fused) = fewest(FUSE_BELOW).filter(|h| count(h) < now) {
        return Some(fused);
    }
    if busiest <= SPREAD_ABOVE * span {
        return None;
    }
    let spread = fewest(SPREAD_TO).unwrap_or_else(|| contiguous_groups(loads, threads));
    // Onto more threads, or over the same ones more evenly (the load's
    // shape changed since they were grouped) if that takes a tenth off.
    let better = bottleneck(loads, &spread) < busiest * REBALANCE_GAIN;
    (spread != hosts && (count(&spread) > now || better)).then_some(spread)
}

/// A service's sections move between as many threads as they have only if
/// that takes a tenth off the busiest thread.
const REBALANCE_GAIN: f64 = 0.9;

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
    fn a_lightly_loaded_service_fuses_onto_one_thread_and_a_loaded_one_spreads() {
        // Busy µs per section over a window of 1,000 µs.
        let light = [60.0, 60.0, 15.0, 15.0, 10.0];
        assert_eq!(service_groups(&light, &[0, 0, 2, 2, 2], 1_000.0, 2), Some(vec![0; 5]), "16 % in all");
        assert_eq!(service_groups(&light, &[0; 5], 1_000.0, 2), None, "already on one thread");
        let heavy = [300.0, 300.0, 80.0, 80.0, 40.0];
        assert_eq!(service_groups(&heavy, &[0; 5], 1_000.0, 2), Some(vec![0, 1, 1, 1, 1]), "80 % on one thread");
        assert_eq!(service_groups(&heavy, &[0, 1, 1, 1, 1], 1_000.0, 2), None, "spread already");
        // Spread, but the load moved: [0, 0, 0, 3, 3] puts 680 µs on one.
        assert_eq!(service_groups(&heavy, &[0, 0, 0, 3, 3], 1_000.0, 2), Some(vec![0, 1, 1, 1, 1]), "rebalanced");
        // Between the two thresholds the groups stay as they are, either way.
        let middle = [200.0, 200.0, 50.0, 50.0, 20.0];
        assert_eq!(service_groups(&middle, &[0; 5], 1_000.0, 2), None, "52 % on one thread");
        assert_eq!(service_groups(&middle, &[0, 1, 1, 1, 1], 1_000.0, 2), None, "32 % could not fuse under 25 %");
    }

    #[test]
    fn a_service_spreads_onto_the_fewest_threads_that_take_its_load() {
        let loads = [300.0; 8];
        // 2,400 µs of work in a window of 1,000: no grouping keeps it under
        // 45 %, so all four threads.
        assert_eq!(service_groups(&loads, &[0; 8], 1_000.0, 4), Some(vec![0, 0, 2, 2, 4, 4, 6, 6]));
        // In a window of 3,000 µs, 80 % on one thread: two keep it at 40 %.
        assert_eq!(service_groups(&loads, &[0; 8], 3_000.0, 4), Some(vec![0, 0, 0, 0, 4, 4, 4, 4]));
    }

    #[test]
    fn one_heavy_section_is_left_alone() {
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 2), vec![0, 0, 0, 3, 3, 3]);
        assert_eq!(contiguous_groups(&[1.0, 1.0, 1.0, 9.0, 1.0, 1.0], 3), vec![0, 0, 0, 3, 4, 4]);
    }
}
