//! The programs with the `dataloader` crate (tokio, one thread), in two
//! styles: *sequential await* (every node awaited in level order, a map's
//! elements joined) and *join* (the nodes of a level joined with
//! `futures::future::join_all`, level after level, the slow fetch joined
//! with the whole graph), the shapes one writes by hand.
//!
//! The graph is interpreted, not emitted as code: each node's future does
//! what the emitted statement would (its inputs are ready when it starts),
//! so the loads pending at each point, and thereby the batches, are those
//! of the written-out program.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dataloader::cached::Loader;
use dataloader::BatchFn;
use futures::future::{join, join_all};

use crate::graph::{answer, args, key, list, mix, slow_key, Graph, Kind, Program, ALL_SOURCES, SLOW, SLOW_UID};

/// A simulated service for `dataloader`: sleeps `latency` per batch.
pub struct Batch {
    index: usize,
    latency: Duration,
    calls: Arc<AtomicU64>,
    keys: Arc<AtomicU64>,
}

impl BatchFn<u64, u64> for Batch {
    async fn load(&mut self, keys: &[u64]) -> HashMap<u64, u64> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.keys.fetch_add(keys.len() as u64, Ordering::Relaxed);
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency).await;
        }
        keys.iter().map(|&k| (k, answer(self.index, k))).collect()
    }
}

type Loaders = Vec<Loader<u64, u64, Batch>>;
type Fut<'a> = Pin<Box<dyn Future<Output = u64> + 'a>>;

/// The two styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Every node awaited in level order.
    Sequential,
    /// The nodes of a level joined.
    Join,
}

/// What one run measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The program's result.
    pub result: u64,
    /// Calls (batches) per source.
    pub calls: [u64; ALL_SOURCES],
    /// Keys per source.
    pub keys: [u64; ALL_SOURCES],
    /// Wall-clock time of the run.
    pub time: Duration,
}

/// Run `p` in `style` on fresh loaders with the given latencies.
pub fn run(p: &Program, style: Style, latency: &[Duration; ALL_SOURCES], x: u64) -> Outcome {
    let calls: Vec<Arc<AtomicU64>> = (0..ALL_SOURCES).map(|_| Arc::default()).collect();
    let keys: Vec<Arc<AtomicU64>> = (0..ALL_SOURCES).map(|_| Arc::default()).collect();
    let loaders: Loaders = (0..ALL_SOURCES)
        .map(|i| Loader::new(Batch { index: i, latency: latency[i], calls: calls[i].clone(), keys: keys[i].clone() }))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("tokio runtime");
    let start = Instant::now();
    let result = rt.block_on(async {
        let l = &loaders;
        match style {
            Style::Sequential => {
                let mut sinks = sequential(&p.graph, x, l).await;
                if p.params.slow {
                    sinks.push(l[SLOW].load(slow_key(x)).await);
                }
                mix(&sinks, SLOW_UID)
            }
            Style::Join => {
                let slow = async {
                    if p.params.slow {
                        Some(l[SLOW].load(slow_key(x)).await)
                    } else {
                        None
                    }
                };
                let (mut sinks, slow) = join(joined(&p.graph, x, l), slow).await;
                sinks.extend(slow);
                mix(&sinks, SLOW_UID)
            }
        }
    });
    let time = start.elapsed();
    Outcome {
        result,
        calls: std::array::from_fn(|i| calls[i].load(Ordering::Relaxed)),
        keys: std::array::from_fn(|i| keys[i].load(Ordering::Relaxed)),
        time,
    }
}

/// The sinks' values, every node awaited in turn.
fn sequential<'a>(g: &'a Graph, x: u64, l: &'a Loaders) -> Pin<Box<dyn Future<Output = Vec<u64>> + 'a>> {
    Box::pin(async move {
        let mut values = Vec::with_capacity(g.nodes.len());
        for n in &g.nodes {
            let a = args(n, &values, x);
            let v = match &n.kind {
                Kind::Compute => mix(&a, n.uid),
                Kind::Io(s) => l[*s].load(key(&a, n.uid, n.depth)).await,
                Kind::Sub(b) => mix(&sequential(b, mix(&a, n.uid), l).await, b.uid),
                Kind::Map(b) => {
                    let rs = join_all(
                        list(mix(&a, n.uid)).into_iter().map(|e| async move { mix(&sequential(b, e, l).await, b.uid) }),
                    )
                    .await;
                    mix(&rs, n.uid)
                }
            };
            values.push(v);
        }
        g.sinks().iter().map(|&i| values[i]).collect()
    })
}

/// The sinks' values, the nodes of each level joined.
fn joined<'a>(g: &'a Graph, x: u64, l: &'a Loaders) -> Pin<Box<dyn Future<Output = Vec<u64>> + 'a>> {
    Box::pin(async move {
        let mut values: Vec<u64> = Vec::with_capacity(g.nodes.len());
        let mut start = 0;
        while start < g.nodes.len() {
            let level = g.nodes[start].level;
            let end = start + g.nodes[start..].iter().take_while(|n| n.level == level).count();
            let futs: Vec<Fut<'a>> = g.nodes[start..end]
                .iter()
                .map(|n| {
                    let a = args(n, &values, x);
                    let f: Fut<'a> = match &n.kind {
                        Kind::Compute => Box::pin(std::future::ready(mix(&a, n.uid))),
                        Kind::Io(s) => Box::pin(l[*s].load(key(&a, n.uid, n.depth))),
                        Kind::Sub(b) => Box::pin(async move { mix(&joined(b, mix(&a, n.uid), l).await, b.uid) }),
                        Kind::Map(b) => Box::pin(async move {
                            let rs = join_all(
                                list(mix(&a, n.uid))
                                    .into_iter()
                                    .map(|e| async move { mix(&joined(b, e, l).await, b.uid) }),
                            )
                            .await;
                            mix(&rs, n.uid)
                        }),
                    };
                    f
                })
                .collect();
            values.extend(join_all(futs).await);
            start = end;
        }
        g.sinks().iter().map(|&i| values[i]).collect()
    })
}
