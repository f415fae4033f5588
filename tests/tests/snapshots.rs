//! Snapshot states (issue 24, InContext's contexts): `&mut self` calls run
//! on the live state in order, `&self` calls that are statements of their
//! own run on snapshots, off the state's path and on replicas, and every
//! result, every read's version and every state's calls equal sequential
//! execution.

use ohua::{snapshot, Deployment, Replication, SectionStrategy};
use ohua_conformance::check;

/// A routing table that counts its versions: every write makes one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Routes {
    routes: Vec<(u64, u64)>,
    version: u64,
}

impl Routes {
    pub fn new() -> Self {
        Routes::default()
    }

    pub fn add(&mut self, from: u64, to: u64) {
        self.routes.push((from, to));
        self.version += 1;
    }

    pub fn remove(&mut self, from: u64) -> usize {
        let before = self.routes.len();
        self.routes.retain(|r| r.0 != from);
        self.version += 1;
        before - self.routes.len()
    }

    /// A read that takes a while, so that reads overlap the writes after them.
    pub fn lookup(&self, from: &u64) -> (Option<u64>, u64) {
        busy(40);
        (self.routes.iter().rev().find(|r| r.0 == *from).map(|r| r.1), self.version)
    }

    pub fn count(&self, from: u64, at_least: u64) -> usize {
        self.routes.iter().filter(|r| r.0 == from && r.1 >= at_least).count()
    }

    pub fn version(&self) -> u64 {
        self.version
    }
}

fn busy(micros: u64) {
    let until = std::time::Instant::now() + std::time::Duration::from_micros(micros);
    while std::time::Instant::now() < until {
        std::hint::spin_loop();
    }
}

fn inputs() -> Vec<u64> {
    (0..60).map(|i| (i * 7 + 3) % 11).collect()
}

#[ohua::algorithm]
fn routing(xs: Vec<u64>) -> (Vec<(u64, Option<u64>, u64, usize)>, u64) {
    let mut routes = snapshot(Routes::new());
    let mut out = Vec::new();
    for x in xs {
        routes.add(x % 4, x);
        let (hop, seen) = routes.lookup(&(x % 3));
        let n = routes.count(x % 4, x / 2);
        if x % 5 == 0 {
            let _gone = routes.remove(x % 3);
        }
        out.push((x, hop, seen, n));
    }
    let last = routes.version();
    (out, last)
}

#[test]
fn reads_on_snapshots_see_the_version_sequential_execution_shows_them() {
    let (rows, last) = check(|| routing(inputs()));
    // Not vacuous: the reads saw many versions, and some a version that a
    // later write of the same run replaced.
    assert!(rows.windows(2).filter(|w| w[0].2 != w[1].2).count() > 30, "{rows:?}");
    assert!(rows.iter().any(|r| r.1.is_some()) && rows.iter().any(|r| r.1.is_none()), "{rows:?}");
    assert_eq!(last, rows.last().unwrap().2, "no write after the last read");
}

#[test]
fn a_read_runs_off_the_states_path_on_replicas() {
    let d = Deployment::default()
        .workers(2)
        .sections(SectionStrategy::PerOperator)
        .replicas("routing/.*read=3".parse::<Replication>().expect("a rule"));
    let (got, reports) = ohua::profile(|| ohua::with_deployment(d, || routing(inputs())));
    assert_eq!(got, ohua::sequential(|| routing(inputs())));
    let report = &reports[0];
    let reads: Vec<&str> = report.nodes.iter().filter(|n| n.name.ends_with(".read")).map(|n| n.name).collect();
    // Each `let` of a call on the state; `routes.add(..);` binds nothing and stays whole.
    for method in ["lookup", "count", "remove", "version"] {
        assert!(reads.iter().any(|n| n.contains(&format!("/{method}#"))), "{method}: {reads:?}");
    }
    let lookup = report.nodes.iter().find(|n| n.name.contains("/lookup#") && n.name.ends_with(".read")).unwrap();
    assert_eq!(lookup.replicas.len(), 3, "{report}");
    assert_eq!(lookup.replicas.iter().map(|r| r.firings).sum::<u64>(), inputs().len() as u64, "{report}");
}
