//! The blog of the dissertation's chapter 4 (Fig. 4.5, Table 4.1): a page
//! whose panes fetch from two services, written as plain sequential Rust
//! ([`blog`]) that the runtime batches.
//!
//! ```text
//! main pane:  post ids -> post infos -> last n -> post contents -> render
//! topics:     post ids -> post infos -> tag topics -> render
//! popular:    post ids -> view counts -> top k -> post infos -> render
//! left pane = compose(topics, popular);  page = compose(main pane, left pane)
//! ```
//!
//! The services are a [`PostDb`] (feed, meta data, bodies) and
//! [`ViewCounts`], over one of two transports behind the same
//! [`Backend`] trait: an embedded SQLite database ([`SqliteStore`], one
//! query per batch) or the same database served as JSON over HTTP on
//! loopback ([`BlogServer`], [`HttpStore`], one request per batch). SQLite
//! in the process answers in microseconds, so every call of a service
//! sleeps a simulated round-trip latency first; without it batching would
//! save nothing measurable.
//!
//! [`Variant`] runs the page as Table 4.1's `seq`, `base`, `batch` and
//! `full`; the `blog` binary times them.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use ohua_examples::blog::{self, Blog, SqliteStore, Variant};
//!
//! let mut conn = rusqlite::Connection::open_in_memory().unwrap();
//! blog::fill(&mut conn, 30, 7).unwrap();
//! let page = Blog::new(Arc::new(SqliteStore::new(conn, Duration::ZERO)), 5, 3);
//! let seq = page.render(Variant::Seq);
//! let full = page.render(Variant::Full);
//! assert_eq!(seq.html, full.html);
//! assert_eq!(full.posts.calls, 3); // feed, meta data, bodies
//! assert_eq!(full.views.calls, 1);
//! ```

#![warn(missing_docs)]

mod algorithm;
mod backend;
mod data;
mod http;
mod model;
mod render;
mod sources;
mod sqlite;
mod variants;

pub use algorithm::blog;
pub use backend::{Backend, PostAnswers, PostBatch};
pub use data::{fill, open_or_create, remove_post, remove_views};
pub use http::{BlogServer, HttpStore};
pub use model::{FetchError, Info, PostId};
pub use render::{
    compose_left, compose_page, escape, feed, last_n, missing_counts, render_main, render_missing, render_popular,
    render_popular_item, render_post, render_topics, tag_topics, top_k, Count, Entry, Ranked, Topics,
};
pub use sources::{PostContent, PostDb, PostIds, PostInfo, PostRequest, PostResponse, ViewCount, ViewCounts};
pub use sqlite::SqliteStore;
pub use variants::{Blog, Render, Variant};
