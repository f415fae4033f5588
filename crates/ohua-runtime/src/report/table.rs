//! The human-readable per-operator time breakdown.

use std::fmt;

use super::{ElasticStats, RunReport};

/// Scaling decisions the table shows per operator.
const SHOWN_DECISIONS: usize = 8;

impl fmt::Display for RunReport {
    /// A header line, then one aligned row per operator, busiest first:
    /// node, kind, section, firings, busy ms and busy % of the wall time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wall_ms = self.wall.as_secs_f64() * 1e3;
        writeln!(
            f,
            "ohua run `{}`: {} section(s), wall {:.3} ms, batch {}, arc capacity {}",
            self.algorithm, self.sections, wall_ms, self.plan.batch_size, self.plan.cross_capacity
        )?;
        if let Some(op) = self.panicked {
            writeln!(f, "aborted: operator `{op}` panicked")?;
        }
        for (k, s) in self.section_stats.iter().enumerate() {
            write!(
                f,
                "section {k}: parked {} times, {:.3} ms; {} passes, {} idle",
                s.parks,
                s.parked.as_secs_f64() * 1e3,
                s.passes,
                s.idle_passes
            )?;
            if s.rescues > 0 {
                write!(f, ", rescued {} times from a blocked step", s.rescues)?;
            }
            if s.hosted > 0 {
                write!(f, ", hosted {} times by another section", s.hosted)?;
            }
            writeln!(f)?;
        }
        for r in &self.recuts {
            writeln!(f, "{r}")?;
        }
        if self.snapshots.taken > 0 || self.snapshots.copies > 0 {
            let s = self.snapshots;
            writeln!(
                f,
                "snapshot states: {} snapshots taken, {} copies made ({} into a spare's memory)",
                s.taken, s.copies, s.reused
            )?;
        }
        let p = self.parallelism();
        if !p.work.is_zero() {
            let more = match p.bound_by.len() {
                0 | 1 => String::new(),
                n => format!(" and {} more on its loop-carried cycle", n - 1),
            };
            writeln!(
                f,
                "parallelism: {:.3} ms of work, {:.3} ms of it in order ({}{more}): at most {:.2}x on 2 cores, {:.2}x on 4, {:.2}x on 16",
                p.work.as_secs_f64() * 1e3,
                p.in_order.as_secs_f64() * 1e3,
                p.bound_by.first().copied().unwrap_or("-"),
                p.speedup(2),
                p.speedup(4),
                p.speedup(16)
            )?;
        }
        let mut rows: Vec<_> = self.nodes.iter().collect();
        // Busiest first; ties by name so the table is deterministic.
        rows.sort_by(|a, b| b.busy.cmp(&a.busy).then(a.name.cmp(b.name)));
        let name_w = rows.iter().map(|r| r.name.len()).chain(["node".len()]).max().unwrap_or(4);
        // Fused calls show `fused`: the piece's time is split over them by
        // their sampled times (all on its first operator if none was
        // sampled). Replicated ones show their replica count, and one row
        // per replica follows them.
        let kind = |r: &super::NodeStats| match (r.fused_into, r.replicas.len()) {
            (Some(_), _) => "fused".to_string(),
            (None, 0) => r.kind.to_string(),
            (None, n) => format!("{}×{n}", r.kind),
        };
        let kind_w = rows.iter().map(|r| kind(r).len()).chain(["kind".len()]).max().unwrap_or(4);
        writeln!(
            f,
            "{:<name_w$}  {:<kind_w$}  {:>7}  {:>12}  {:>10}  {:>6}",
            "node", "kind", "section", "firings", "busy ms", "busy %"
        )?;
        for r in rows {
            let busy_ms = r.busy.as_secs_f64() * 1e3;
            // A zero wall time only happens for trivial runs; show 0 % then.
            let pct = if wall_ms > 0.0 { busy_ms / wall_ms * 100.0 } else { 0.0 };
            writeln!(
                f,
                "{:<name_w$}  {:<kind_w$}  {:>7}  {:>12}  {:>10.3}  {:>6.1}",
                r.name,
                kind(r),
                r.section,
                r.firings,
                busy_ms,
                pct
            )?;
            for (k, rep) in r.replicas.iter().enumerate() {
                let busy_ms = rep.busy.as_secs_f64() * 1e3;
                let pct = if wall_ms > 0.0 { busy_ms / wall_ms * 100.0 } else { 0.0 };
                let name = format!("  replica {k}");
                writeln!(
                    f,
                    "{name:<name_w$}  {:<kind_w$}  {:>7}  {:>12}  {:>10.3}  {:>6.1}",
                    "", rep.section, rep.firings, busy_ms, pct
                )?;
            }
            match r.elastic {
                Some(ElasticStats { follows_load: true, ns_per_item, resizes, most_open, open_lane_ms, .. }) => {
                    writeln!(
                    f,
                    "  elastic, following the load ({}): {resizes} changes, up to {most_open} replicas open, {:.2} on \
                     average ({:.1} µs per item)",
                    self.plan.scaling,
                    open_lane_ms as f64 / wall_ms.max(1e-9),
                    ns_per_item as f64 / 1e3
                )?
                }
                Some(ElasticStats { opened_after: Some(items), ns_per_item, .. }) => writeln!(
                    f,
                    "  elastic: replicas 1.. opened after {items} items of replica 0 (now {:.1} µs per item)",
                    ns_per_item as f64 / 1e3
                )?,
                Some(ElasticStats { opened_after: None, ns_per_item, .. }) => writeln!(
                    f,
                    "  elastic: stayed on replica 0 ({:.1} µs per item, too little to deal out)",
                    ns_per_item as f64 / 1e3
                )?,
                None => {}
            }
            if let Some(ElasticStats { regroups: moves @ 1.., .. }) = r.elastic {
                writeln!(f, "    key groups moved {moves} time(s), with their state")?;
            }
            // What made the replicas change, the first few of them.
            for d in r.decisions.iter().take(SHOWN_DECISIONS) {
                writeln!(f, "    {d}")?;
            }
            if r.decisions.len() > SHOWN_DECISIONS {
                writeln!(f, "    ... {} more in `NodeStats::decisions`", r.decisions.len() - SHOWN_DECISIONS)?;
            }
        }
        for s in &self.io {
            writeln!(
                f,
                "source {}: {} fetches, {} writes, {} deduplicated, {} cached, {} requests in {} calls, {} errors, {:.3} ms in calls (slowest {:.3} ms)",
                s.source,
                s.fetches,
                s.writes,
                s.deduplicated,
                s.cached,
                s.requests,
                s.calls,
                s.errors,
                s.busy.as_secs_f64() * 1e3,
                s.slowest.as_secs_f64() * 1e3
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::deploy::Plan;
    use crate::report::{ElasticStats, NodeStats, ReplicaStats, RunReport};

    fn stats(name: &'static str, busy_ms: u64) -> NodeStats {
        NodeStats {
            name,
            kind: "call",
            section: 0,
            firings: 1,
            steps: 1,
            busy: Duration::from_millis(busy_ms),
            fused_into: None,
            replicas: vec![],
            elastic: None,
            decisions: vec![],
            encoded: None,
        }
    }

    #[test]
    fn rows_are_sorted_by_busy_time_and_aligned() {
        static G: crate::graph::GraphInfo = crate::graph::GraphInfo { algorithm: "t", file: "", nodes: &[], arcs: &[] };
        let r = RunReport {
            graph: &G,
            section_stats: vec![],
            recuts: vec![],
            snapshots: Default::default(),
            panicked: None,
            io: vec![],
            io_sites: vec![],
            markers: vec![],
            algorithm: "t",
            sections: 1,
            wall: Duration::from_millis(100),
            started: std::time::Instant::now(),
            nodes: vec![stats("t/short#0", 1), stats("t/a_longer_name#1", 50)],
            plan: Plan::unreplicated(vec![0, 0], 1, 1, 1),
        };
        let text = r.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("ohua run `t`"));
        assert!(lines[2].starts_with("t/a_longer_name#1"));
        assert!(lines[3].starts_with("t/short#0"));
        assert!(lines[2].contains("50.0"));
        // Aligned: every row as long as the column header.
        assert_eq!(lines[1].len(), lines[2].len());
        assert_eq!(lines[2].len(), lines[3].len());
    }

    /// A report of a 100 ms run of `nodes` on two sections.
    fn two_sections(nodes: Vec<NodeStats>) -> RunReport {
        static G: crate::graph::GraphInfo = crate::graph::GraphInfo { algorithm: "t", file: "", nodes: &[], arcs: &[] };
        RunReport {
            graph: &G,
            section_stats: vec![],
            recuts: vec![],
            snapshots: Default::default(),
            panicked: None,
            io: vec![],
            io_sites: vec![],
            markers: vec![],
            algorithm: "t",
            sections: 2,
            wall: Duration::from_millis(100),
            started: std::time::Instant::now(),
            plan: Plan::unreplicated(vec![0; nodes.len()], 2, 1, 1),
            nodes,
        }
    }

    #[test]
    fn a_replicated_operator_shows_its_count_and_a_row_per_replica() {
        let replica = |section, firings, ms| ReplicaStats { section, firings, busy: Duration::from_millis(ms) };
        let mut heavy = stats("t/heavy#1", 80);
        heavy.replicas = vec![replica(0, 30, 35), replica(1, 70, 45)];
        let r = two_sections(vec![heavy]);
        let text = r.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[2].starts_with("t/heavy#1") && lines[2].contains("call×2"), "{text}");
        assert!(lines[3].trim_start().starts_with("replica 0") && lines[3].contains("30"), "{text}");
        assert!(lines[4].trim_start().starts_with("replica 1") && lines[4].contains("70"), "{text}");
        assert_eq!(lines[3].len(), lines[4].len(), "aligned: {text}");
    }

    #[test]
    fn an_elastic_operator_says_what_its_probe_decided() {
        let replica = |section, firings| ReplicaStats { section, firings, busy: Duration::from_millis(1) };
        let mut opened = stats("t/heavy#1", 80);
        opened.replicas = vec![replica(0, 30), replica(1, 70)];
        let e = |opened_after, ns_per_item| ElasticStats {
            opened_after,
            ns_per_item,
            follows_load: false,
            resizes: u64::from(opened_after.is_some()),
            most_open: 1 + usize::from(opened_after.is_some()),
            open_lane_ms: 0,
            regroups: 0,
        };
        opened.elastic = Some(e(Some(16), 4_500));
        let mut kept = stats("t/cheap#2", 1);
        kept.replicas = vec![replica(0, 100), replica(1, 0)];
        let mut following = stats("t/load#3", 5);
        following.replicas = vec![replica(0, 100), replica(1, 60)];
        following.elastic = Some(ElasticStats {
            opened_after: None,
            ns_per_item: 12_000,
            follows_load: true,
            resizes: 5,
            most_open: 2,
            open_lane_ms: 30,
            regroups: 3,
        });
        kept.elastic = Some(e(None, 40));
        let decision = |at_ms, from, to| crate::report::ScalingDecision {
            at: Duration::from_millis(at_ms),
            from,
            to,
            items_per_sec: 9_000,
            ns_per_item: 100_000,
            backlog: to > from,
            path_ns_per_item: 100_000,
        };
        following.decisions = (0..10).map(|k| decision(20 * k, 1 + (k as usize % 2), 2 - (k as usize % 2))).collect();
        let r = two_sections(vec![opened, kept, following]);
        let text = r.to_string();
        assert!(
            text.contains(
                "elastic, following the load (throughput): 5 changes, up to 2 replicas open, 0.30 on average (12.0 µs \
                 per item)"
            ),
            "{text}"
        );
        assert!(
            text.contains("elastic: replicas 1.. opened after 16 items of replica 0 (now 4.5 µs per item)"),
            "{text}"
        );
        assert!(text.contains("    at 0.000 s: 1 -> 2 replicas (9000 items/s of 100.0 µs, backlog)"), "{text}");
        assert!(text.contains("    at 0.020 s: 2 -> 1 replicas (9000 items/s of 100.0 µs)"), "{text}");
        assert!(!text.contains("at 0.160 s"), "eight are shown: {text}");
        assert!(text.contains("    ... 2 more in `NodeStats::decisions`"), "{text}");
        assert!(text.contains("elastic: stayed on replica 0 (0.0 µs per item"), "{text}");
        assert!(text.contains("    key groups moved 3 time(s), with their state"), "{text}");
        assert_eq!(text.matches("key groups moved").count(), 1, "only for the keyed call: {text}");
    }
}
