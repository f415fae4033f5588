//! Moving a keyed call's key groups again once its items have shown how
//! its keys are spread.
//!
//! A keyed scatter spreads its groups over its replicas by the items each
//! group had so far (`Groups::spread`). When a first run's probe opens the
//! lanes, that is a handful of items: `ohua-bench first-runs`' `keyed`
//! shape (64 flows, 20,000 items of 20 µs) moved its groups after 5, and
//! replica 1 got 62.5 % of the items, so the run reached 1.5x sequential
//! on 2 cores where later runs, planned from the first run's counts, reach
//! 1.9x. A key's share of the items is only known once many have passed.
//!
//! So the scatter looks again after [`FIRST_LOOK`] items routed since the
//! last move, then after twice as many each time, at most [`LAST_LOOK`]
//! (a run of n items looks about log2(n / 256) times, then every 65,536
//! items): if spreading the groups by the items since the last look would
//! take at least [`GAIN`] off the busiest replica's items, it moves them,
//! with their state, as it moves them when lanes open (`node/README.md`,
//! "Moving key groups"), spread by those items. A stream whose keys are
//! spread as the groups already are never moves.
//!
//! Random deployments (`Replication::Random`, the tests' chaos) look after
//! a drawn handful of items and move at any gain ([`Rebalance::chaos`]),
//! so the generated programs check moves at many points of their streams.

use crate::keyed::Groups;

/// Items routed after a move before the first look.
pub(super) const FIRST_LOOK: u64 = 256;

/// How much lighter the busiest replica must get for a move to pay: by a
/// tenth of its items. A move hands every part of the state back and
/// splits it again, so a small gain is not worth it, nor is chasing the
/// noise of counts that differ by a few items.
pub(super) const GAIN: f64 = 1.1;

/// Looks between which the items since the last look grow no further: a
/// long run whose keys drift is still looked at every 65,536 items (a
/// look costs a pass over the groups).
pub(super) const LAST_LOOK: u64 = 65_536;

/// When a keyed scatter looks at its groups again, and what it saw.
pub(super) struct Rebalance {
    /// Items routed since the last move or look.
    since: u64,
    /// Items to route before the next look.
    next_look: u64,
    /// The items per group at the last move or look: a look weighs only
    /// the items after it, so keys that were hot once (a first burst of
    /// one key) do not hide how they are spread now.
    at_last: Vec<u64>,
    /// How much lighter the busiest replica must get ([`GAIN`]).
    gain: f64,
}

impl Rebalance {
    pub(super) fn new() -> Self {
        Rebalance { since: 0, next_look: FIRST_LOOK, at_last: Vec::new(), gain: GAIN }
    }

    /// For a random deployment's elastic replicas, opened or toggled after
    /// `at` items: the first look after `1 + at % 16` items, and a move
    /// whenever it makes the busiest replica lighter at all.
    pub(super) fn chaos(at: u64) -> Self {
        Rebalance { since: 0, next_look: 1 + at % 16, at_last: Vec::new(), gain: 1.0 }
    }

    /// Count `items` routed.
    #[inline]
    pub(super) fn routed(&mut self, items: u64) {
        self.since += items;
    }

    /// Groups moved when the items per group were `loads`: count from here.
    pub(super) fn moved(&mut self, loads: &[u64]) {
        self.since = 0;
        self.at_last.clear();
        self.at_last.extend_from_slice(loads);
    }

    /// Whether it is time to look (cheap: the caller checks that a move is
    /// possible before [`Rebalance::pays`]).
    #[inline]
    pub(super) fn due(&self) -> bool {
        self.since >= self.next_look
    }

    /// Look at the items per group since the last look (`loads` counts
    /// them since the start): if spreading the groups over `active`
    /// replicas by them takes this scatter's gain ([`GAIN`], or any for
    /// [`Rebalance::chaos`]) off the busiest replica under `groups`, the
    /// items to spread by. The next look comes after twice
    /// as many items (at most [`LAST_LOOK`]), whatever the answer.
    pub(super) fn pays(&mut self, groups: &Groups, active: usize, loads: &[u64]) -> Option<Vec<u64>> {
        let recent: Vec<u64> = loads
            .iter()
            .enumerate()
            .map(|(g, &n)| n.saturating_sub(self.at_last.get(g).copied().unwrap_or(0)))
            .collect();
        self.moved(loads);
        self.next_look = (self.next_look * 2).min(LAST_LOOK);
        if active <= 1 {
            return None;
        }
        let now = busiest(groups, &recent);
        let spread = busiest(&Groups::spread(groups.replicas(), active, &recent), &recent);
        (now > spread && now as f64 >= self.gain * spread as f64).then_some(recent)
    }
}

/// The items of the replica that had the most under `groups`.
fn busiest(groups: &Groups, loads: &[u64]) -> u64 {
    let mut per = vec![0u64; groups.replicas()];
    for (group, &n) in loads.iter().enumerate() {
        per[groups.replica(group)] += n;
    }
    per.into_iter().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyed::KEY_GROUPS;

    /// Items per group of keys `0..64` (as `u64`, `KeyOf`'s keys), `n` each.
    fn keys(n: u64, of: std::ops::Range<u64>) -> Vec<u64> {
        let mut loads = vec![0; KEY_GROUPS];
        for k in of {
            loads[crate::keyed::group_of(&k)] += n;
        }
        loads
    }

    /// `ohua-bench first-runs`' `keyed` shape: 64 flows, spread when its
    /// probe opened the lanes after 5 items.
    #[test]
    fn groups_spread_by_a_few_items_move_again_once_the_counts_show_the_keys() {
        let groups = Groups::spread(2, 2, &keys(1, 0..5));
        let mut r = Rebalance::new();
        r.routed(FIRST_LOOK - 1);
        assert!(!r.due());
        r.routed(1);
        assert!(r.due());
        let loads = keys(10, 0..64);
        let uneven = busiest(&groups, &loads) as f64 / 640.0;
        assert!(uneven > 0.55, "the first spread is uneven for these keys: {uneven}");
        assert_eq!(r.pays(&groups, 2, &loads).as_deref(), Some(&loads[..]));
        let again = busiest(&Groups::spread(2, 2, &loads), &loads) as f64 / 640.0;
        assert!(again < 0.52, "spread by the counts: {again}");
        assert!(!r.due(), "a look starts the count again");
        r.routed(FIRST_LOOK);
        assert!(!r.due(), "the next look comes after twice as many items");
        r.routed(FIRST_LOOK);
        assert!(r.due());
    }

    #[test]
    fn groups_already_spread_as_the_keys_are_stay() {
        let loads = keys(10, 0..64);
        let groups = Groups::spread(2, 2, &loads);
        let mut r = Rebalance::new();
        r.routed(FIRST_LOOK);
        assert_eq!(r.pays(&groups, 2, &loads), None);
        // One replica: nothing to spread.
        let mut r = Rebalance::new();
        r.routed(FIRST_LOOK);
        assert_eq!(r.pays(&Groups::new(1), 1, &loads), None);
    }

    /// A look weighs the items since the last one: 500 items of one key,
    /// then the keys of the groups its spread put on one replica.
    #[test]
    fn a_look_weighs_the_keys_of_the_items_since_the_last_one() {
        let hot = keys(500, 0..1);
        let groups = Groups::spread(2, 2, &hot);
        let cold: Vec<usize> = (0..KEY_GROUPS).filter(|&g| groups.replica(g) == 1).take(16).collect();
        let mut loads = hot.clone();
        cold.iter().for_each(|&g| loads[g] += 30);
        let mut r = Rebalance::new();
        r.moved(&hot);
        r.routed(16 * 30);
        // Over all items, replica 0 (key 0's 500) is the busiest, and no
        // spread does better than that one group.
        assert!(busiest(&groups, &loads) == 500);
        let recent = r.pays(&groups, 2, &loads).expect("the later keys, all on replica 1, move");
        assert_eq!(recent.iter().sum::<u64>(), 16 * 30);
        // And the count starts again from the look.
        r.routed(FIRST_LOOK * 2);
        assert_eq!(r.pays(&groups, 2, &loads), None, "no items since the look");
    }

    /// A random deployment looks early and moves for any gain.
    #[test]
    fn a_random_deployment_looks_after_a_few_items_and_moves_for_any_gain() {
        let mut r = Rebalance::chaos(35);
        r.routed(3);
        assert!(!r.due());
        r.routed(1);
        assert!(r.due(), "after 1 + 35 % 16 items");
        // Two groups of 3 and 2 items on one replica: spread, 3 against 5.
        let mut loads = vec![0; KEY_GROUPS];
        (loads[0], loads[1]) = (3, 2);
        let groups = Groups::on_first(2);
        assert!(r.pays(&groups, 2, &loads).is_some());
        assert!(Rebalance::new().pays(&groups, 2, &loads).is_some(), "5 against 3 is a tenth off too");
        (loads[0], loads[1]) = (3, 0);
        assert!(Rebalance::chaos(0).pays(&groups, 2, &loads).is_none(), "one group: nothing to gain");
    }

    #[test]
    fn looks_come_at_most_every_last_look_items() {
        let mut r = Rebalance::new();
        let loads = keys(1, 0..64);
        for _ in 0..20 {
            while !r.due() {
                r.routed(FIRST_LOOK);
            }
            let _ = r.pays(&Groups::new(2), 2, &loads);
        }
        r.routed(LAST_LOOK - 1);
        assert!(!r.due());
        r.routed(1);
        assert!(r.due());
    }
}
