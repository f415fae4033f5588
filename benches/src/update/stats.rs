//! Latency per 100 ms window, and the numbers of one run the table reports.

use std::time::Duration;

use hdrhistogram::Histogram;

use super::load::intended;
use super::run::{Outcome, Plan, Variant};

/// The width of a window; requests are put into the window of their
/// intended arrival, so a stall shows at the time requests met it.
pub const WINDOW: Duration = Duration::from_millis(100);

/// How far around the update the spike is looked for.
pub const NEAR: Duration = Duration::from_millis(200);

/// Latency in one window, in µs (0 in a window without requests).
#[derive(Clone, Copy, Default)]
pub struct Window {
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

/// The numbers of one run.
#[derive(Clone, Copy, Default)]
pub struct Summary {
    /// p99 and max of the window containing the update [µs].
    pub update_p99: u64,
    pub update_max: u64,
    /// The largest latency in the windows within [`NEAR`] of the update [µs].
    pub near_max: u64,
    /// The median p99 of the windows before the update [µs].
    pub base_p99: u64,
    /// The largest latency of the run [µs].
    pub max: u64,
    /// Requests sent but never answered, answered twice, answered with a
    /// stamp of the other version.
    pub lost: u64,
    pub duplicates: u64,
    pub mismatches: u64,
    /// Replies of version 1 that arrived after a reply of version 2.
    pub regressions: u64,
    /// Requests answered by version 2.
    pub on_v2: u64,
    /// From the update time to the first reply of version 2 [µs].
    pub first_v2: Option<u64>,
}

/// Latency percentiles per window of `outcome` under `plan`.
pub fn windows(outcome: &Outcome, plan: &Plan) -> Vec<Window> {
    let count = (plan.length.as_nanos()).div_ceil(WINDOW.as_nanos()) as usize;
    let mut hists: Vec<Histogram<u64>> =
        (0..count).map(|_| Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds")).collect();
    for (i, &arrived) in outcome.collected.arrived.iter().enumerate() {
        if arrived == u64::MAX {
            continue;
        }
        let due = intended(i as u64, plan.rate);
        let w = ((due.as_nanos() / WINDOW.as_nanos()) as usize).min(count - 1);
        let latency_us = arrived.saturating_sub(due.as_nanos() as u64) / 1_000;
        hists[w].saturating_record(latency_us.max(1));
    }
    hists
        .iter()
        .map(|h| Window { p50: h.value_at_quantile(0.5), p99: h.value_at_quantile(0.99), max: h.max() })
        .collect()
}

/// The window containing `at`.
pub fn window_of(at: Duration) -> usize {
    (at.as_nanos() / WINDOW.as_nanos()) as usize
}

/// The median of `xs` (0 if empty).
pub fn median(mut xs: Vec<u64>) -> u64 {
    xs.sort_unstable();
    xs.get(xs.len() / 2).copied().unwrap_or(0)
}

/// The table's numbers for one run.
pub fn summarize(outcome: &Outcome, ws: &[Window], plan: &Plan) -> Summary {
    let c = &outcome.collected;
    let u = window_of(plan.update_at).min(ws.len() - 1);
    let near = window_of(plan.update_at.saturating_sub(NEAR))..window_of(plan.update_at + NEAR).min(ws.len());
    // In the order the replies arrived: on the CPU and I/O shapes that is
    // request order; on the tail shape a slow request's reply comes after
    // those of the requests behind it, from the version running by then.
    let mut by_arrival: Vec<usize> = (0..c.arrived.len()).filter(|&i| c.arrived[i] != u64::MAX).collect();
    by_arrival.sort_unstable_by_key(|&i| (c.arrived[i], i));
    let (mut regressions, mut seen_v2) = (0, false);
    for i in by_arrival {
        seen_v2 |= c.version[i] == 2;
        regressions += u64::from(seen_v2 && c.version[i] == 1);
    }
    let (mut on_v2, mut first_v2) = (0, None);
    for (&v, &at) in c.version.iter().zip(&c.arrived) {
        on_v2 += u64::from(v == 2);
        if v == 2 {
            let since = at.saturating_sub(plan.update_at.as_nanos() as u64) / 1_000;
            first_v2 = Some(first_v2.map_or(since, |f: u64| f.min(since)));
        }
    }
    Summary {
        update_p99: ws[u].p99,
        update_max: ws[u].max,
        near_max: ws[near].iter().map(|w| w.max).max().unwrap_or(0),
        base_p99: median(ws[..u].iter().map(|w| w.p99).collect()),
        max: ws.iter().map(|w| w.max).max().unwrap_or(0),
        lost: c.arrived.iter().filter(|&&a| a == u64::MAX).count() as u64,
        duplicates: c.duplicates,
        mismatches: c.mismatches,
        regressions,
        on_v2,
        first_v2,
    }
}

/// Whether a run did what its variant should: nothing lost, duplicated or
/// mixed, versions only forward, and version 2 reached unless a no-op.
pub fn problems(variant: Variant, s: &Summary) -> Vec<String> {
    let mut p = Vec::new();
    for (what, n) in [("lost", s.lost), ("duplicated", s.duplicates), ("mismatched", s.mismatches)] {
        if n > 0 {
            p.push(format!("{n} request(s) {what}"));
        }
    }
    if s.regressions > 0 {
        p.push(format!("{} reply(s) of v1 after one of v2", s.regressions));
    }
    if (variant == Variant::NoOp) != (s.on_v2 == 0) {
        p.push(format!("{} request(s) on v2", s.on_v2));
    }
    p
}
