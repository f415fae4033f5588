//! The table and the targets, from the summaries of every round.

use super::run::Variant;
use super::stats::{median, Summary, Window};

fn ms(us: u64) -> String {
    format!("{:.2}", us as f64 / 1e3)
}

/// The table: medians over rounds, except lost/dup/mismatched, which are sums.
pub fn table(results: &[Vec<(Summary, Vec<Window>)>]) {
    println!("\nlatency [ms] from intended arrival to reply; median over rounds (lost, dup, mismatched: sum)");
    println!(
        "  {:<16} {:>9} {:>9} {:>11} {:>9} {:>8} {:>9} {:>5} {:>4} {:>5}",
        "variant", "upd p99", "upd max", "±200ms max", "base p99", "upd/base", "max", "lost", "dup", "mism"
    );
    for (v, runs) in Variant::ALL.iter().zip(results) {
        let m = |f: fn(&Summary) -> u64| median(runs.iter().map(|r| f(&r.0)).collect());
        let sum = |f: fn(&Summary) -> u64| runs.iter().map(|r| f(&r.0)).sum::<u64>();
        // Each run's update window against its own windows before the update.
        let mut own: Vec<f64> = runs.iter().map(|r| r.0.update_p99 as f64 / r.0.base_p99.max(1) as f64).collect();
        own.sort_by(f64::total_cmp);
        println!(
            "  {:<16} {:>9} {:>9} {:>11} {:>9} {:>7.2}x {:>9} {:>5} {:>4} {:>5}",
            v.label(),
            ms(m(|s| s.update_p99)),
            ms(m(|s| s.update_max)),
            ms(m(|s| s.near_max)),
            ms(m(|s| s.base_p99)),
            own[own.len() / 2],
            ms(m(|s| s.max)),
            sum(|s| s.lost),
            sum(|s| s.duplicates),
            sum(|s| s.mismatches + s.regressions),
        );
    }
}

/// One of the targets: `variant`'s number over `against`'s.
struct Target {
    variant: usize,
    against: usize,
    /// The update window's max (a spike) rather than its p99.
    spike: bool,
    /// The ratio must be at least `bound` (otherwise at most).
    at_least: bool,
    bound: f64,
}

/// `variant`'s update-window p99 (or max) over `against`'s, per round.
fn ratios(results: &[Vec<(Summary, Vec<Window>)>], variant: usize, against: usize, spike: bool) -> Vec<f64> {
    let pick = |s: &Summary| if spike { s.update_max } else { s.update_p99 };
    (results[variant].iter().zip(&results[against]))
        .map(|(x, y)| pick(&x.0) as f64 / pick(&y.0).max(1) as f64)
        .collect()
}

fn median_ratio(ratios: &[f64]) -> f64 {
    let mut sorted = ratios.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// The targets, as ratios per round and their median. A spike is
/// the update window's max, except on the heavy-tailed shape (`tail`),
/// where every window's max is a slow request's own query time (10-76 ms,
/// whatever the variant does): there it is the window's p99, which the slow
/// requests (0.6 %) stay below, and the max ratios follow for reference.
pub fn targets(results: &[Vec<(Summary, Vec<Window>)>], tail: bool) {
    println!();
    let rows = [
        Target { variant: 1, against: 0, spike: false, at_least: false, bound: 1.2 },
        Target { variant: 2, against: 1, spike: !tail, at_least: true, bound: 5.0 },
        Target { variant: 3, against: 1, spike: !tail, at_least: true, bound: 20.0 },
    ];
    for t in rows {
        let ratios = ratios(results, t.variant, t.against, t.spike);
        let med = median_ratio(&ratios);
        let met = if t.at_least { med >= t.bound } else { med <= t.bound };
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        println!(
            "  {} / {}, update-window {}: {med:.2}x (rounds: {})  target {} {}  {}",
            Variant::ALL[t.variant].label(),
            Variant::ALL[t.against].label(),
            if t.spike { "max" } else { "p99" },
            each.join(" "),
            if t.at_least { ">=" } else { "<=" },
            t.bound,
            if met { "✓" } else { "✗" }
        );
    }
    if tail {
        for variant in [2, 3] {
            let ratios = ratios(results, variant, 1, true);
            let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
            println!(
                "  (for reference: {} / {}, update-window max: {:.2}x (rounds: {}); a slow request's own time sets every variant's max)",
                Variant::ALL[variant].label(),
                Variant::ALL[1].label(),
                median_ratio(&ratios),
                each.join(" ")
            );
        }
    }
}
