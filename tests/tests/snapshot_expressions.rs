//! Reads of a snapshot state inside a `let`'s expression
//! (`s.get(&k).cloned().unwrap_or(0)`, `f(s.len()) + s.count(x)`), the
//! standard containers' methods reached through `Deref` (`Vec`'s slice
//! methods, `String`'s `str` ones), and the methods that are not reads
//! (`self`, `&mut self` returning a borrow): every result equals
//! sequential execution, and the reads run on snapshots where the probe
//! says they only read.

use std::collections::HashMap;

use ohua::snapshot;
use ohua_conformance::check;

use crate::snapshots::{busy, reads_apart};

/// A keyed table whose every write makes a version, read back by
/// `count` and `pick`: a read of a later version is seen in the result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    m: HashMap<String, u64>,
    version: u64,
}

impl Table {
    pub fn put(&mut self, k: String, v: u64) {
        self.m.insert(k, v);
        self.version += 1;
    }

    /// A read whose result borrows the state.
    pub fn get(&self, k: &str) -> Option<&u64> {
        busy(20);
        self.m.get(k)
    }

    pub fn len(&self) -> usize {
        self.m.len()
    }

    pub fn count(&self, x: u64, len: usize) -> u64 {
        busy(20);
        x + len as u64 * 100 + self.version * 10_000
    }

    /// A write that returns a borrow of the state (`Writer` in the probe).
    pub fn slot(&mut self, k: String) -> &mut u64 {
        self.version += 1;
        self.m.entry(k).or_insert(0)
    }

    /// A read whose result type only the `let`'s annotation fixes.
    pub fn pick<R: From<u64>>(&self) -> R {
        R::from(self.version)
    }
}

/// A `Copy` state whose read takes `self` (`Consumer` in the probe).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Total(u64);

impl Total {
    pub fn get(self) -> u64 {
        self.0
    }

    pub fn add(&mut self, x: u64) {
        self.0 += x;
    }
}

fn twice(n: usize) -> u64 {
    n as u64 * 2
}

type Row = (u64, u64, u64, u64, u64);

#[ohua::algorithm]
fn expressions(xs: Vec<u64>) -> Vec<Row> {
    let mut t = snapshot(Table::default());
    let mut total = snapshot(Total(0));
    let mut out = Vec::new();
    for x in xs {
        let k = format!("k{}", x % 4);
        t.put(k.clone(), x);
        total.add(x);
        let got = t.get(&k).cloned().unwrap_or(0);
        let n = twice(t.len()) + t.count(x, t.len());
        let tot = total.get();
        let slot = *t.slot(k);
        let version: u64 = t.pick();
        out.push((got, n, tot, slot, version));
    }
    out
}

fn inputs() -> Vec<u64> {
    (0..40).map(|i| (i * 5 + 1) % 13).collect()
}

#[test]
fn reads_inside_expressions_run_on_snapshots_and_see_the_sequential_version() {
    let rows = check(|| expressions(inputs()));
    let apart = ohua::with_deployment(reads_apart(), || expressions(inputs()));
    assert_eq!(apart, rows, "reads on their own thread");
    // Not vacuous: the versions the reads saw grow with the writes.
    assert!(rows.windows(2).all(|w| w[1].1 > w[0].1 && w[1].4 > w[0].4), "{rows:?}");
    let (_, reports) = ohua::profile(|| expressions(inputs()));
    // Per item on `t`: the `get(..).cloned()`, the expression with three
    // calls (one snapshot) and `pick`; `total.get()` takes `self` and
    // `*t.slot(k)` writes: both run on the live state.
    let n = inputs().len() as u64;
    assert_eq!(reports[0].snapshots.taken, 3 * n, "{}", reports[0]);
}

#[ohua::algorithm]
fn containers(xs: Vec<u64>) -> (Vec<(bool, Option<u64>, u64, bool, String, usize)>, usize) {
    let mut seen = snapshot(Vec::<u64>::new());
    let mut text = snapshot(String::new());
    let mut out = Vec::new();
    for x in xs {
        seen.push(x % 5);
        text.push_str(if x % 2 == 0 { "ab" } else { "ba" });
        let hit = seen.contains(&(x % 3));
        let first = seen.first().copied();
        let sum = seen.iter().sum::<u64>();
        let has = text.contains("bb");
        let upper = text.to_uppercase();
        let len = seen.len();
        out.push((hit, first, sum, has, upper, len));
    }
    let chars = text.len();
    (out, chars)
}

/// Regression: `snapshot(Vec::new())` with `let hit = seen.contains(&x);`
/// did not compile ("no function or associated item named `contains` found
/// for struct `Vec<u64>`"): the step named the method `Vec::<u64>::contains`,
/// and `contains` is the slice's, which method syntax reaches through
/// `Deref`. Sequential Rust compiled it; now ohua does too, and the read
/// runs on a snapshot.
#[test]
fn slice_and_str_methods_of_a_snapshot_vec_or_string_compile_and_read_snapshots() {
    let (rows, chars) = check(|| containers(inputs()));
    assert_eq!(chars, 2 * inputs().len());
    assert!(rows.iter().any(|r| r.0) && rows.iter().any(|r| !r.0), "{rows:?}");
    assert!(rows.iter().any(|r| r.3) && rows.iter().any(|r| !r.3), "{rows:?}");
    let (_, reports) = ohua::profile(|| containers(inputs()));
    // Per item: four reads of `seen` (contains, first, iter, len) and two
    // of `text`; `text.len()` once after the loop.
    let n = inputs().len() as u64;
    assert_eq!(reports[0].snapshots.taken, 6 * n + 1, "{}", reports[0]);
}

/// A state of one's own that reaches a method through `Deref`: `T::m`
/// does not name it (the README says so), and `(*s).m(..)` runs it on the
/// live state, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seen(Vec<u64>);

impl std::ops::Deref for Seen {
    type Target = Vec<u64>;
    fn deref(&self) -> &Vec<u64> {
        &self.0
    }
}

impl Seen {
    pub fn add(&mut self, x: u64) {
        self.0.push(x);
    }
}

#[ohua::algorithm]
fn through_deref(xs: Vec<u64>) -> Vec<bool> {
    let mut seen = snapshot(Seen::default());
    let mut out = Vec::new();
    for x in xs {
        seen.add(x);
        let hit = (*seen).contains(&(x + 6));
        out.push(hit);
    }
    out
}

#[test]
fn a_method_reached_through_a_states_own_deref_runs_on_the_live_state() {
    let rows = check(|| through_deref(inputs()));
    assert!(rows.iter().any(|&r| r) && rows.iter().any(|&r| !r), "{rows:?}");
    let (_, reports) = ohua::profile(|| through_deref(inputs()));
    assert_eq!(reports[0].snapshots.taken, 0, "{}", reports[0]);
}

#[ohua::algorithm]
fn conditions(xs: Vec<u64>) -> (Vec<u64>, u64) {
    let mut t = snapshot(Table::default());
    let mut out = Vec::new();
    let mut misses = 0;
    for x in xs {
        let k = format!("k{}", x % 6);
        if t.get(&k).is_some() && t.count(x, t.len()) % 3 != 0 {
            t.put(k, x);
            let v: u64 = t.pick();
            out.push(v);
        } else {
            misses += 1;
            t.put(k, x + 1);
        }
    }
    (out, misses)
}

/// An `if` whose condition reads the state (`if index.contains_key(&k)`):
/// the condition is evaluated on a snapshot, and the branch it picks sees
/// the writes in sequential order.
#[test]
fn an_ifs_condition_reads_a_snapshot_and_picks_the_sequential_branch() {
    let (taken, misses) = check(|| conditions(inputs()));
    assert!(!taken.is_empty() && misses > 0, "both branches: {taken:?}, {misses}");
    assert_eq!(ohua::with_deployment(reads_apart(), || conditions(inputs())), (taken.clone(), misses));
    let (_, reports) = ohua::profile(|| conditions(inputs()));
    // One snapshot per condition, one per `pick` in the taken branch.
    let n = inputs().len() as u64;
    assert_eq!(reports[0].snapshots.taken, n + taken.len() as u64, "{}", reports[0]);
}

#[ohua::algorithm]
fn dispatches(xs: Vec<u64>) -> (Vec<u64>, u64) {
    let mut t = snapshot(Table::default());
    let mut out = Vec::new();
    let mut unknown = 0;
    for x in xs {
        let k = format!("k{}", x % 6);
        // A scrutinee that borrows the state, arms that bind by value.
        let seen = match t.get(&k) {
            Some(&v) => v + 100,
            None => 0,
        };
        match t.count(x, t.len()) % 4 {
            0 => {
                unknown += 1;
            }
            n if n > x % 3 => {
                t.put(k.clone(), n);
            }
            _ => {
                t.put(k, x);
            }
        }
        out.push(seen);
    }
    (out, unknown)
}

/// A `match` whose scrutinee reads the state: the finish takes it apart on
/// a snapshot (arm index and the arms' bindings, by value), and the arms
/// that write run in sequential order.
#[test]
fn a_matchs_scrutinee_reads_a_snapshot_and_picks_the_sequential_arm() {
    let (seen, unknown) = check(|| dispatches(inputs()));
    assert!(seen.iter().any(|&v| v >= 100) && seen.contains(&0) && unknown > 0, "{seen:?}, {unknown}");
    assert_eq!(ohua::with_deployment(reads_apart(), || dispatches(inputs())), (seen.clone(), unknown));
    let (_, reports) = ohua::profile(|| dispatches(inputs()));
    // Two scrutinees per item, each on a snapshot.
    let n = inputs().len() as u64;
    assert_eq!(reports[0].snapshots.taken, 2 * n, "{}", reports[0]);
}

/// A service whose loop reads its snapshot state inside an expression, in
/// a `match` scrutinee and in an `if` condition, and writes it in both
/// branches.
#[ohua::algorithm]
fn table_service(
    requests: std::sync::mpsc::Receiver<u64>,
    out: std::sync::mpsc::Sender<(u64, u64, u64, u64)>,
) -> usize {
    let mut t = snapshot(Table::default());
    let mut replies = ohua_conformance::Replies::new(out);
    for x in requests {
        let k = format!("k{}", x % 6);
        let n = twice(t.len()) + t.count(x, t.len());
        let seen = match t.get(&k) {
            Some(&v) => v + 100,
            None => 0,
        };
        if t.get(&k).is_some() && t.count(x, t.len()) % 3 != 0 {
            t.put(k, x);
        } else {
            t.put(k, x + 1);
        }
        let version: u64 = t.pick();
        replies.send((x, n, seen, version));
    }
    let size = t.len();
    size
}

/// The split reads of the tests above in a service fed one request at a
/// time, each sent only after the previous reply (issue 24's last note:
/// only whole-`let` reads had been checked this way). Every reply comes,
/// in order, equal to sequential execution's, in both profiles (the test
/// is in CI's dev-profile list with this file).
#[test]
fn a_service_with_reads_in_expressions_conditions_and_scrutinees_answers_each_request_before_the_next() {
    let inputs: Vec<u64> = (0..40).map(|i| (i * 7 + 3) % 11).collect();
    let expected: Vec<(u64, u64, u64, u64)> = {
        ohua_conformance::sequential_replies(&inputs, |rx, out| {
            table_service(rx, out);
        })
    };
    for d in [reads_apart(), ohua::Deployment::default().workers(2)] {
        let inputs_sent = inputs.clone();
        let (got, size, reports) = ohua_conformance::within(60, "the table service", move || {
            let (tx, rx) = std::sync::mpsc::channel();
            let (out, replies) = std::sync::mpsc::channel();
            let server =
                std::thread::spawn(move || ohua::profile(|| ohua::with_deployment(d, || table_service(rx, out))));
            let mut got = Vec::new();
            for x in inputs_sent {
                tx.send(x).unwrap();
                got.push(replies.recv_timeout(std::time::Duration::from_secs(10)).expect("a reply to each request"));
            }
            drop(tx);
            let (size, reports) = server.join().expect("no panic");
            (got, size, reports)
        });
        assert_eq!(got, expected);
        assert_eq!(size, 6);
        // The reads ran on snapshots: the expression's, the scrutinee's and
        // the condition's, at every request.
        let taken = reports.last().expect("one run").snapshots.taken;
        assert!(taken >= 3 * inputs.len() as u64, "{taken} snapshots for {} requests", inputs.len());
    }
}
