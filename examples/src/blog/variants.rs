//! Table 4.1's four ways to run the same page: `seq` (the plain body),
//! `base` (dataflow, every fetch a call of its own), `batch` (batching, one
//! batch at a time) and `full` (batching, sources concurrently).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ohua::deploy::IoMode;
use ohua::io::SourceStats;
use ohua::report::IoStats;
use ohua::{Deployment, Source};

use super::algorithm::blog;
use super::backend::Backend;
use super::sources::{PostDb, ViewCounts};

/// A column of Table 4.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Sequential execution: `ohua::sequential`, one call per fetch.
    Seq,
    /// The dataflow without batching: `IoMode::Unbatched`.
    Base,
    /// Batching, one batch at a time: `IoMode::Serial`.
    Batch,
    /// Batching with concurrent sources: `IoMode::Concurrent` (the default).
    Full,
}

impl Variant {
    /// All four, in the table's order.
    pub const ALL: [Variant; 4] = [Variant::Seq, Variant::Base, Variant::Batch, Variant::Full];

    /// The column's name.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Seq => "seq",
            Variant::Base => "base",
            Variant::Batch => "batch",
            Variant::Full => "full",
        }
    }

    /// The I/O mode of a dataflow variant (`None` for `seq`).
    pub fn io_mode(self) -> Option<IoMode> {
        match self {
            Variant::Seq => None,
            Variant::Base => Some(IoMode::Unbatched),
            Variant::Batch => Some(IoMode::Serial),
            Variant::Full => Some(IoMode::Concurrent),
        }
    }
}

/// What one render cost.
#[derive(Debug, Clone)]
pub struct Render {
    /// The page.
    pub html: String,
    /// Wall time of the algorithm call.
    pub elapsed: Duration,
    /// Calls and requests of the post service during the render.
    pub posts: SourceStats,
    /// Calls and requests of the view-count service during the render.
    pub views: SourceStats,
    /// The run report's per-source counters (fetches, deduplicated, cached,
    /// ..), if the render was profiled and ran as dataflow.
    pub io: Vec<IoStats>,
}

/// The blog: its two sources and the page's parameters.
pub struct Blog {
    /// The post service.
    pub db: Source<PostDb>,
    /// The view-count service.
    pub views: Source<ViewCounts>,
    /// Posts in the main pane.
    pub recent: usize,
    /// Posts in the popular list.
    pub popular: usize,
}

/// `after - before`.
fn since(before: SourceStats, after: SourceStats) -> SourceStats {
    SourceStats {
        calls: after.calls - before.calls,
        requests: after.requests - before.requests,
        writes: after.writes - before.writes,
    }
}

impl Blog {
    /// A blog whose services are `backend`, showing the last `recent` posts
    /// and the `popular` most viewed.
    pub fn new(backend: Arc<dyn Backend>, recent: usize, popular: usize) -> Self {
        Blog {
            db: Source::new(PostDb::new(backend.clone())),
            views: Source::new(ViewCounts::new(backend)),
            recent,
            popular,
        }
    }

    /// Render the page as `variant`, without profiling (for timing).
    pub fn render(&self, variant: Variant) -> Render {
        self.run(variant, false)
    }

    /// Render the page as `variant` under `ohua::profile`, with the run
    /// report's I/O counters.
    pub fn render_profiled(&self, variant: Variant) -> Render {
        self.run(variant, true)
    }

    fn run(&self, variant: Variant, profiled: bool) -> Render {
        let (db, views, n, k) = (&self.db, &self.views, self.recent, self.popular);
        let before = (db.stats(), views.stats());
        let start = Instant::now();
        let (html, io) = match variant.io_mode() {
            None => (ohua::sequential(|| blog::page(db, views, n, k)), Vec::new()),
            Some(io) => {
                let deployment = Deployment::default().io(io);
                let page = || ohua::with_deployment(deployment.clone(), || blog::page(db, views, n, k));
                if profiled {
                    let (html, reports) = ohua::profile(page);
                    (html, reports.into_iter().flat_map(|r| r.io).collect())
                } else {
                    (page(), Vec::new())
                }
            }
        };
        let elapsed = start.elapsed();
        Render { html, elapsed, posts: since(before.0, db.stats()), views: since(before.1, views.stats()), io }
    }
}
