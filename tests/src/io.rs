//! A data source for generated programs that fetch and write, and
//! [`check_io`], which compares every deployment with sequential execution
//! on fresh sources: results, final contents, write order, the number of
//! calls, and that no read key is fetched twice between two writes.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Mutex;

use ohua::{DataSource, Source, Writable};

use crate::deployments;

/// One call a [`GenDb`] received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbCall {
    /// A batch of reads.
    Reads(Vec<i64>),
    /// A batch of writes, in order.
    Writes(Vec<(i64, i64)>),
}

/// A key-value source: a missing key reads as `3k + 1`, keys 13 and -13
/// are an error, a write answers the key's previous value.
#[derive(Debug, Default)]
pub struct GenDb {
    map: Mutex<BTreeMap<i64, i64>>,
    log: Mutex<Vec<DbCall>>,
}

impl DataSource for GenDb {
    type Request = i64;
    type Response = i64;
    type Error = String;
    fn fetch(&self, keys: &[i64]) -> Vec<Result<i64, String>> {
        self.log.lock().unwrap().push(DbCall::Reads(keys.to_vec()));
        let map = self.map.lock().unwrap();
        keys.iter()
            .map(|&k| match k {
                13 | -13 => Err(format!("no key {k}")),
                k => Ok(map.get(&k).copied().unwrap_or_else(|| k.wrapping_mul(3).wrapping_add(1))),
            })
            .collect()
    }
}

impl Writable for GenDb {
    type Write = (i64, i64);
    type Written = i64;
    fn write(&self, writes: &[(i64, i64)]) -> Vec<Result<i64, String>> {
        self.log.lock().unwrap().push(DbCall::Writes(writes.to_vec()));
        let mut map = self.map.lock().unwrap();
        writes.iter().map(|&(k, v)| Ok(map.insert(k, v).unwrap_or(0))).collect()
    }
}

impl GenDb {
    /// Every call so far.
    pub fn calls(&self) -> Vec<DbCall> {
        self.log.lock().unwrap().clone()
    }

    /// The writes in the order the source applied them.
    pub fn writes(&self) -> Vec<(i64, i64)> {
        self.calls().into_iter().flat_map(|c| if let DbCall::Writes(w) = c { w } else { vec![] }).collect()
    }

    /// The contents.
    pub fn contents(&self) -> BTreeMap<i64, i64> {
        self.map.lock().unwrap().clone()
    }

    /// A key read twice with no write between (deduplication and the
    /// per-call cache must prevent that), if any.
    pub fn repeated_read(&self) -> Option<i64> {
        let mut seen = std::collections::BTreeSet::new();
        for call in self.calls() {
            match call {
                DbCall::Writes(_) => seen.clear(),
                DbCall::Reads(keys) => {
                    if let Some(k) = keys.into_iter().find(|k| !seen.insert(*k)) {
                        return Some(k);
                    }
                }
            }
        }
        None
    }
}

/// Three fresh sources.
fn fresh() -> [Source<GenDb>; 3] {
    [Source::new(GenDb::default()), Source::new(GenDb::default()), Source::new(GenDb::default())]
}

/// Run `run` on fresh sources sequentially and under every deployment;
/// return the sequential result.
///
/// # Errors
///
/// Which deployment differed from sequential execution, and how: its result,
/// a source's final contents or order of writes, more calls than
/// sequentially, or a key read twice between two writes.
pub fn check_io<R: PartialEq + Debug>(
    run: impl Fn(&Source<GenDb>, &Source<GenDb>, &Source<GenDb>) -> R,
) -> Result<R, String> {
    let reference = fresh();
    let [ra, rb, rc] = &reference;
    let expected = ohua::sequential(|| run(ra, rb, rc));
    for (name, d) in deployments() {
        let sources = fresh();
        let [a, b, c] = &sources;
        let got = ohua::with_deployment(d, || run(a, b, c));
        if got != expected {
            return Err(format!("deployment `{name}`: {got:?} != sequential {expected:?}"));
        }
        for (i, (s, r)) in sources.iter().zip(&reference).enumerate() {
            let what = format!("deployment `{name}`, source {i}");
            if s.get().contents() != r.get().contents() {
                return Err(format!(
                    "{what}: contents {:?} != sequential {:?}",
                    s.get().contents(),
                    r.get().contents()
                ));
            }
            if s.get().writes() != r.get().writes() {
                return Err(format!("{what}: writes {:?} != sequential {:?}", s.get().writes(), r.get().writes()));
            }
            if s.stats().calls > r.stats().calls {
                return Err(format!("{what}: {} calls, sequentially {}", s.stats().calls, r.stats().calls));
            }
            if let Some(k) = s.get().repeated_read() {
                return Err(format!("{what}: key {k} read twice between writes: {:?}", s.get().calls()));
            }
        }
    }
    // Crossed by control markers (live updates): the same results and contents.
    let sources = fresh();
    let [a, b, c] = &sources;
    let got = crate::with_markers(|| run(a, b, c));
    if got != expected {
        return Err(format!("crossed by control markers: {got:?} != sequential {expected:?}"));
    }
    for (i, (s, r)) in sources.iter().zip(&reference).enumerate() {
        if s.get().contents() != r.get().contents() || s.get().writes() != r.get().writes() {
            return Err(format!("crossed by control markers, source {i}: contents or writes differ from sequential"));
        }
    }
    Ok(expected)
}
