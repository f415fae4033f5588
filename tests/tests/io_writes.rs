//! Declared writes (`db.write(w)`): program order per source, never
//! deduplicated, and a later read sees an earlier write. Every algorithm
//! runs under the conformance deployments and is compared with sequential
//! execution on a fresh store: results, the final store, and the order of
//! writes the store received; the number of calls is never above
//! sequential's.

use std::collections::BTreeMap;
use std::sync::Mutex;

use ohua::{algorithm, DataSource, Source, Writable};
use ohua_conformance::deployments;

/// What a store call was: reads (keys) or writes (key, value), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Logged {
    Reads(Vec<u64>),
    Writes(Vec<(u64, u64)>),
}

/// A key-value store that logs every call.
#[derive(Default)]
struct Store {
    map: Mutex<BTreeMap<u64, u64>>,
    log: Mutex<Vec<Logged>>,
}

impl DataSource for Store {
    type Request = u64;
    type Response = u64;
    type Error = String;
    fn fetch(&self, keys: &[u64]) -> Vec<Result<u64, String>> {
        self.log.lock().unwrap().push(Logged::Reads(keys.to_vec()));
        let map = self.map.lock().unwrap();
        keys.iter().map(|k| map.get(k).copied().ok_or_else(|| format!("no key {k}"))).collect()
    }
}

impl Writable for Store {
    type Write = (u64, u64);
    type Written = u64;
    /// Answers the value the key had before.
    fn write(&self, writes: &[(u64, u64)]) -> Vec<Result<u64, String>> {
        self.log.lock().unwrap().push(Logged::Writes(writes.to_vec()));
        let mut map = self.map.lock().unwrap();
        writes.iter().map(|&(k, v)| Ok(map.insert(k, v).unwrap_or(0))).collect()
    }
}

impl Store {
    fn writes(&self) -> Vec<(u64, u64)> {
        let log = self.log.lock().unwrap();
        log.iter().flat_map(|l| if let Logged::Writes(w) = l { w.clone() } else { vec![] }).collect()
    }
    fn snapshot(&self) -> BTreeMap<u64, u64> {
        self.map.lock().unwrap().clone()
    }
}

/// A source that is only read.
struct Squares;

impl DataSource for Squares {
    type Request = u64;
    type Response = u64;
    type Error = String;
    fn fetch(&self, keys: &[u64]) -> Vec<Result<u64, String>> {
        keys.iter().map(|k| Ok(k * k)).collect()
    }
}

fn or_zero(r: Result<u64, String>) -> u64 {
    r.unwrap_or(0)
}

// `db.write(w);` as a statement is accepted like `let _ = db.write(w);`;
// its sequential version ignores a `Result`, as the plain code does.
#[allow(unused_must_use)]
#[algorithm]
mod algs {
    use super::*;

    /// Read, write, read again the same key: with repeated keys, each read
    /// must see the writes before it.
    #[algorithm]
    pub fn bump_all(db: &Source<Store>, keys: Vec<u64>) -> Vec<u64> {
        let mut out = Vec::new();
        for k in keys {
            let v = db.fetch(k);
            let n = or_zero(v) + 1;
            let _ = db.write((k, n));
            let again = db.fetch(k);
            out.push(or_zero(again));
        }
        out
    }

    /// Writes in a branch, reads of another source alongside, a write
    /// whose answer is used, and one whose answer is not.
    #[algorithm]
    pub fn branches(db: &Source<Store>, sq: &Source<Squares>, keys: Vec<u64>) -> (Vec<u64>, u64) {
        let mut out = Vec::new();
        for k in keys {
            let s = sq.fetch(k);
            let s = or_zero(s);
            if s % 2 == 0 {
                let before = db.write((k % 4, s));
                out.push(or_zero(before));
            } else {
                db.write((k % 4 + 100, s));
                out.push(s);
            }
        }
        let last = db.fetch(2);
        (out, or_zero(last))
    }

    /// Reads before the first write share a batch; consecutive writes
    /// share a call; the read after them sees them.
    #[algorithm]
    pub fn fill_then_read(db: &Source<Store>, keys: Vec<u64>) -> (u64, u64, Vec<u64>) {
        let a = db.fetch(1);
        let b = db.fetch(2);
        for k in keys.clone() {
            db.write((k, k * 10));
        }
        let after: Vec<u64> = keys
            .into_iter()
            .map(|k| {
                let v = db.fetch(k);
                or_zero(v)
            })
            .collect();
        (or_zero(a), or_zero(b), after)
    }
}

fn seeded() -> Store {
    let s = Store::default();
    s.map.lock().unwrap().extend([(1, 5), (2, 7), (3, 9)]);
    s
}

/// Run `alg` sequentially and under every deployment on fresh stores and
/// compare result, final store and write order; return the calls each
/// deployment made (and sequential's).
fn check<T: PartialEq + std::fmt::Debug>(alg: impl Fn(&Source<Store>) -> T) -> (u64, Vec<u64>) {
    let reference = Source::new(seeded());
    let want = ohua::sequential(|| alg(&reference));
    let mut calls = Vec::new();
    for (name, d) in deployments() {
        let db = Source::new(seeded());
        let got = ohua::with_deployment(d, || alg(&db));
        assert_eq!(got, want, "result under {name}");
        assert_eq!(db.get().snapshot(), reference.get().snapshot(), "final store under {name}");
        assert_eq!(db.get().writes(), reference.get().writes(), "writes in program order under {name}");
        assert!(db.stats().calls <= reference.stats().calls, "{name}: {:?} vs {:?}", db.stats(), reference.stats());
        calls.push(db.stats().calls);
    }
    (reference.stats().calls, calls)
}

#[test]
fn a_read_after_a_write_of_the_same_key_sees_it() {
    let keys = vec![1, 2, 1, 4, 1, 2, 9];
    let (sequential, _) = check(|db| algs::bump_all(db, keys.clone()));
    assert_eq!(sequential, 21, "three calls per key sequentially");
}

#[test]
fn writes_in_branches_keep_program_order_and_reads_of_other_sources_still_batch() {
    let keys: Vec<u64> = (0..24).collect();
    let sq = Source::new(Squares);
    check(|db| algs::branches(db, &sq, keys.clone()));
    let sq_calls_before = sq.stats().calls;
    let db = Source::new(seeded());
    ohua::with_deployment(ohua::Deployment::default().workers(2), || algs::branches(&db, &sq, keys.clone()));
    assert_eq!(sq.stats().calls - sq_calls_before, 1, "the squares are one batch");
}

#[test]
fn consecutive_reads_share_a_batch_and_consecutive_writes_a_call() {
    let keys: Vec<u64> = (10..20).collect();
    let (sequential, calls) = check(|db| algs::fill_then_read(db, keys.clone()));
    assert_eq!(sequential, 2 + 10 + 10);
    let db = Source::new(seeded());
    let d = ohua::Deployment::default().workers(2);
    let out = ohua::with_deployment(d, || algs::fill_then_read(&db, keys.clone()));
    assert_eq!(out, (5, 7, keys.iter().map(|k| k * 10).collect::<Vec<_>>()));
    let log = db.get().log.lock().unwrap().clone();
    assert_eq!(
        log,
        vec![
            Logged::Reads(vec![1, 2]),
            Logged::Writes(keys.iter().map(|&k| (k, k * 10)).collect()),
            Logged::Reads(keys.clone())
        ],
        "three calls"
    );
    assert!(calls.iter().all(|&c| c <= 22), "{calls:?}");
}
