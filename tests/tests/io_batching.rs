//! Fetches from data sources in plain sequential-looking code are batched
//! (Ÿauhau): every data-independent fetch joins one batch, so the number
//! of calls to a source is the longest chain of dependent fetches; results
//! equal sequential execution, which makes one call per fetch.

use std::sync::Mutex;

use ohua::{algorithm, DataSource, Deployment, SectionStrategy, Source};

/// A key-value source that logs every batch it receives.
#[derive(Default)]
struct Kv {
    batches: Mutex<Vec<Vec<u64>>>,
}

impl DataSource for Kv {
    type Request = u64;
    type Response = u64;
    type Error = String;
    fn fetch(&self, requests: &[u64]) -> Vec<Result<u64, String>> {
        self.batches.lock().unwrap().push(requests.to_vec());
        std::thread::sleep(std::time::Duration::from_millis(2));
        requests.iter().map(|&k| if k % 97 == 96 { Err(format!("no key {k}")) } else { Ok(k * 3 + 1) }).collect()
    }
}

fn value(r: Result<u64, String>) -> u64 {
    r.unwrap_or(0)
}

/// Two dependent levels over a loop: all first-level fetches are one
/// batch, all second-level ones another.
#[algorithm]
fn two_levels(db: &Source<Kv>, keys: Vec<u64>) -> Vec<u64> {
    let mut out = Vec::new();
    for k in keys {
        let a = db.fetch(k);
        let a = value(a);
        let b = db.fetch(a % 50);
        out.push(value(b));
    }
    out
}

fn sequential_two_levels(keys: &[u64]) -> Vec<u64> {
    keys.iter()
        .map(|&k| {
            let a = if k % 97 == 96 { 0 } else { k * 3 + 1 };
            let b = a % 50;
            if b % 97 == 96 {
                0
            } else {
                b * 3 + 1
            }
        })
        .collect()
}

fn deployments() -> Vec<Deployment> {
    let mut ds = vec![Deployment { workers: 1, sections: SectionStrategy::Single, ..Deployment::default() }];
    ds.push(Deployment { workers: 2, ..Deployment::default() });
    ds.push(Deployment { workers: 4, sections: SectionStrategy::PerOperator, ..Deployment::default() });
    for seed in 0..4 {
        ds.push(Deployment {
            workers: 3,
            sections: SectionStrategy::Random { sections: 4, seed },
            ..Deployment::default()
        });
    }
    ds
}

#[test]
fn a_loop_of_dependent_fetches_makes_one_batch_per_level() {
    let keys: Vec<u64> = (0..40).chain(0..10).collect();
    for d in deployments() {
        let db = Source::new(Kv::default());
        let out = ohua::with_deployment(d.clone(), || two_levels(&db, keys.clone()));
        assert_eq!(out, sequential_two_levels(&keys), "{d:?}");
        let batches = db.get().batches.lock().unwrap().clone();
        assert_eq!(batches.len(), 2, "one batch per level under {d:?}: {batches:?}");
        let mut first = batches[0].clone();
        first.sort_unstable();
        assert_eq!(first, (0..40).collect::<Vec<_>>(), "deduplicated and complete: {d:?}");
    }
}

#[test]
fn sequential_execution_makes_one_call_per_fetch() {
    let keys: Vec<u64> = (0..10).collect();
    let db = Source::new(Kv::default());
    let out = ohua::sequential(|| two_levels(&db, keys.clone()));
    assert_eq!(out, sequential_two_levels(&keys));
    assert_eq!(db.stats().calls, 20);
}
