//! The data the page shows: what `GET /api/view` answers, and what a saved
//! report file holds (the same document). Plain data with `serde`, so
//! other tools can read it; `README.md` lists every field.

use serde::{Deserialize, Serialize};

/// The version of this document's layout, in its `schema` field. A reader
/// refuses a document of another version ([`View::from_json`]).
pub const SCHEMA: u32 = 1;

/// Everything the page shows: the runs of one process, or of a saved
/// report.
///
/// # Example
///
/// ```
/// use ohua_view::{RunView, View};
/// let view = View::new(true, vec![RunView::named("word_freq")]);
/// let json = view.to_json();
/// assert_eq!(View::from_json(&json).unwrap(), view);
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct View {
    /// [`SCHEMA`].
    pub schema: u32,
    /// Whether the page polls for more (a running process) or shows a
    /// saved report.
    pub live: bool,
    /// Seconds since the process started serving the view (0 for a saved
    /// report): the time axis of the plots and events ends here.
    pub now_s: f64,
    /// One entry per algorithm that ran (the latest run of each; a
    /// service's run while it runs).
    pub runs: Vec<RunView>,
}

/// One algorithm's run: the graph as the deployment placed it, with what
/// each operator did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunView {
    /// The algorithm's name.
    pub algorithm: String,
    /// The file the algorithm is in, as `file!()` names it; `None` if
    /// unknown. Absent from documents saved before it was added.
    #[serde(default)]
    pub file: Option<String>,
    /// Whether the run is still going (a service).
    pub running: bool,
    /// Whether latency probes time its requests while it runs (a running
    /// service's; `series.p50_ms`/`p99_ms` are theirs then).
    #[serde(default)]
    pub probed: bool,
    /// How many runs of this algorithm the process has finished (the
    /// operators' numbers are the latest run's).
    pub calls: u64,
    /// Wall-clock time of the latest run, in milliseconds.
    pub wall_ms: f64,
    /// Sections (threads) the run was cut into.
    pub sections: usize,
    /// Operators, indexed by `id`.
    pub operators: Vec<Operator>,
    /// Arcs between operators.
    pub arcs: Vec<Edge>,
    /// Data sources the run fetched from.
    pub io: Vec<IoSource>,
    /// Updates, checkpoints, re-cuts and scaling decisions, in time order.
    pub events: Vec<Event>,
    /// Throughput and latency over time (empty for a single saved run).
    pub series: Series,
    /// Snapshots handed to `&self` calls, and the copies writes made.
    pub snapshots: Snapshots,
    /// The operator whose panic ended the run, if one did.
    pub panicked: Option<String>,
}

impl RunView {
    /// An empty run of the algorithm `name` (a starting point for tests
    /// and for code that fills the fields one by one).
    pub fn named(name: &str) -> Self {
        RunView { algorithm: name.to_string(), ..RunView::default() }
    }
}

/// One operator as it ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Operator {
    /// Its index in [`RunView::operators`], which arcs name.
    pub id: usize,
    /// Unique name, `algorithm/function#n`.
    pub name: String,
    /// `call`, `source`, `smap`, `collect`, `switch`, `merge`, ...
    pub kind: String,
    /// The code it runs, as written in the algorithm.
    pub label: String,
    /// The line of that code in [`RunView::file`] (a control operator's:
    /// its loop's or branch's); `None` if unknown. Absent from documents
    /// saved before it was added.
    #[serde(default)]
    pub line: Option<u32>,
    /// Loop nesting depth (0: the algorithm's top level).
    pub depth: u16,
    /// The section (thread) it ran in.
    pub section: usize,
    /// Replicas it ran as (1: not replicated).
    pub replicas: usize,
    /// The sections of its replicas (empty when not replicated).
    pub replica_sections: Vec<usize>,
    /// The operator whose fused piece it ran in, if it was fused.
    pub fused_into: Option<usize>,
    /// Times it fired.
    pub firings: u64,
    /// Time it spent working, in milliseconds (sampled).
    pub busy_ms: f64,
    /// Share of the run's wall time it spent working, in percent (over
    /// 100 for a replicated operator).
    pub busy_pct: f64,
    /// Firings per second of wall time.
    pub items_per_s: f64,
    /// How full its fullest input arc is, 0.0 to 1.0 (back-pressure),
    /// read while the run goes on; `None` for a finished run and for an
    /// operator without an arc of its own (a source, a fused link).
    pub queue_fill: Option<f64>,
}

/// An arc from one operator's output to another's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Edge {
    /// Producing operator's id.
    pub from: usize,
    /// Consuming operator's id.
    pub to: usize,
    /// Whether it closes a loop (drawn against the flow).
    pub feedback: bool,
}

/// One data source the run fetched from (batched I/O).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct IoSource {
    /// The source's name.
    pub source: String,
    /// Requests the algorithm made.
    pub fetches: u64,
    /// Batch calls made to the source.
    pub calls: u64,
    /// Requests those calls carried.
    pub requests: u64,
    /// Requests answered by an identical one in the same round.
    pub deduplicated: u64,
    /// Requests answered from the run's cache.
    pub cached: u64,
    /// Calls that failed.
    pub errors: u64,
    /// Mean requests per call.
    pub mean_batch: f64,
    /// Per fetch site: the explain report's call rounds.
    pub sites: Vec<IoSiteView>,
}

/// A fetch site: one operator's requests to one source.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct IoSiteView {
    /// The operator that fetches.
    pub operator: String,
    /// The request, as written.
    pub request: String,
    /// Requests made here.
    pub fetches: u64,
    /// Of them, answered from the cache.
    pub cached: u64,
    /// The source's call rounds (numbered 1, 2, .. in the order they went
    /// out) its fetches joined: one round means batched with everything
    /// independent of it.
    pub rounds: Vec<u64>,
}

/// Something that happened to a run at a point in time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Event {
    /// `update`, `checkpoint`, `recut` or `scaling`.
    pub kind: String,
    /// When, in seconds on the view's time axis ([`View::now_s`]).
    pub at_s: f64,
    /// For a marker: from its request until the loop cut (ms).
    pub cut_ms: Option<f64>,
    /// For a marker: from its request until every operator had it (ms).
    pub complete_ms: Option<f64>,
    /// What happened, in words.
    pub text: String,
}

/// Per-second samples, oldest first; all vectors have the same length.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Series {
    /// The end of each one-second window, on the view's time axis.
    pub t_s: Vec<f64>,
    /// Items (top-level operator firings) per second in the window.
    pub items_per_s: Vec<f64>,
    /// Runs (calls) finished in the window.
    pub runs: Vec<u64>,
    /// Median latency of the runs finished in the window, in ms; for a
    /// running service, of the requests its latency probes timed.
    pub p50_ms: Vec<Option<f64>>,
    /// 99th percentile latency of those runs (or probes), in ms.
    pub p99_ms: Vec<Option<f64>>,
}

/// Snapshot-state counts of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Snapshots {
    /// Snapshots handed to `&self` calls.
    pub taken: u64,
    /// Writes that copied the state because a reader held it.
    pub copies: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run whose algorithm is in `file` and whose one operator is on `line`.
    fn located(file: Option<&str>, line: Option<u32>) -> View {
        let mut run = RunView::named("a");
        run.file = file.map(str::to_string);
        run.operators.push(Operator { line, ..Operator::default() });
        View::new(false, vec![run])
    }

    #[test]
    fn file_and_line_round_trip() {
        let view = located(Some("src/main.rs"), Some(42));
        assert_eq!(View::from_json(&view.to_json()).unwrap(), view);
    }

    #[test]
    fn documents_saved_before_file_and_line_still_load() {
        // Remove the fields, as a document written before them lacks them.
        let mut json: serde_json::Value = serde_json::from_str(&located(Some("f.rs"), Some(1)).to_json()).unwrap();
        let run = &mut json["runs"][0];
        run.as_object_mut().unwrap().remove("file").expect("written");
        run["operators"][0].as_object_mut().unwrap().remove("line").expect("written");
        let back = View::from_json(&json.to_string()).unwrap();
        assert_eq!(back, located(None, None), "unknown: `None`");
    }
}
