//! The live view of Ohua runs: a page served from the running process (or
//! from a saved report) that draws the dataflow graph as the deployment
//! placed it, with each operator's load, the run's throughput and latency
//! over time, its updates and checkpoints, and its data sources.
//!
//! This crate sits *below* the runtime and knows nothing of its graphs: it
//! defines the data ([`View`], the JSON document `GET /api/view` answers,
//! listed field by field in `README.md`), the page, and a loopback HTTP
//! server ([`Server`]) that reads the data through a [`Provider`] the caller
//! implements. `ohua-runtime` fills a [`View`] from its run reports and
//! serves it when `OHUA_VIEW=127.0.0.1:PORT` is set; `ohua view
//! report.json` serves a saved one.
//!
//! # Example
//!
//! ```
//! use ohua_view::{Bind, Operator, RunView, Server, View};
//! let mut run = RunView::named("demo");
//! run.operators.push(Operator { id: 0, name: "demo/f#0".into(), kind: "call".into(), ..Operator::default() });
//! let view = View::new(false, vec![run]);
//! let server = Server::start(Bind::parse("127.0.0.1:0")?, move || view.clone())?;
//! println!("the view of `demo` is at {}", server.url());
//! # Ok::<(), ohua_view::ViewError>(())
//! ```

#![warn(missing_docs)]

mod bind;
mod error;
mod model;
mod page;
pub mod routes;
mod server;

pub use bind::Bind;
pub use error::ViewError;
pub use model::{Edge, Event, IoSiteView, IoSource, Operator, RunView, Series, Snapshots, View, SCHEMA};
pub use server::{Provider, Server};

impl View {
    /// A document of the current [`SCHEMA`].
    pub fn new(live: bool, runs: Vec<RunView>) -> View {
        View { schema: SCHEMA, live, now_s: 0.0, runs }
    }

    /// The document as JSON (indented: saved reports are read by people
    /// too).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the view's data is plain data")
    }

    /// Read a document written by [`View::to_json`].
    ///
    /// # Errors
    ///
    /// [`ViewError::Json`] if it is not one; [`ViewError::Schema`] if it is
    /// one of another version.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_view::{View, ViewError};
    /// assert!(matches!(View::from_json("{\"schema\": 99}"), Err(ViewError::Schema { found: 99, .. })));
    /// assert!(matches!(View::from_json("[]"), Err(ViewError::Json(_))));
    /// ```
    pub fn from_json(json: &str) -> Result<View, ViewError> {
        #[derive(serde::Deserialize)]
        struct Version {
            schema: u32,
        }
        let Version { schema } = serde_json::from_str(json)?;
        if schema != SCHEMA {
            return Err(ViewError::Schema { found: schema, expected: SCHEMA });
        }
        Ok(serde_json::from_str(json)?)
    }

    /// The number of distinct sections of a run, as the page groups them.
    ///
    /// # Example
    ///
    /// ```
    /// use ohua_view::{Operator, RunView, View};
    /// let mut run = RunView::named("r");
    /// run.operators = (0..3).map(|id| Operator { id, section: id % 2, ..Operator::default() }).collect();
    /// assert_eq!(View::sections_of(&run), 2);
    /// ```
    pub fn sections_of(run: &RunView) -> usize {
        let mut seen: Vec<usize> = run.operators.iter().map(|o| o.section).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }
}
