//! The services behind the two data sources, as one trait with two
//! transports: SQLite in the process ([`SqliteStore`](super::SqliteStore))
//! and the same data over HTTP on loopback
//! ([`HttpStore`](super::HttpStore)).
//!
//! A method is one round trip to a service: the data sources call it once
//! per batch, whatever the batch holds.

use serde::{Deserialize, Serialize};

use super::model::{FetchError, Info, PostId};

/// One batch for the post service: whether it asks for the feed, and the
/// posts whose meta data and whose bodies it asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostBatch {
    /// Asks for the feed (the ids of all posts, oldest first).
    pub feed: bool,
    /// Posts whose [`Info`] is asked for.
    pub infos: Vec<PostId>,
    /// Posts whose body is asked for.
    pub contents: Vec<PostId>,
}

/// The post service's answers to a [`PostBatch`], each list in the order of
/// its request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostAnswers {
    /// The feed, if it was asked for.
    pub feed: Option<Result<Vec<PostId>, FetchError>>,
    /// One answer per entry of [`PostBatch::infos`].
    pub infos: Vec<Result<Info, FetchError>>,
    /// One answer per entry of [`PostBatch::contents`].
    pub contents: Vec<Result<String, FetchError>>,
}

impl PostAnswers {
    /// The same error for every request of `batch` (the round trip failed).
    pub fn failed(batch: &PostBatch, e: &FetchError) -> Self {
        PostAnswers {
            feed: batch.feed.then(|| Err(e.clone())),
            infos: batch.infos.iter().map(|_| Err(e.clone())).collect(),
            contents: batch.contents.iter().map(|_| Err(e.clone())).collect(),
        }
    }
}

/// The blog's two services: posts (feed, meta data, bodies) and view
/// counts. Each method is one round trip.
pub trait Backend: Send + Sync + 'static {
    /// Answer a batch of the post service.
    fn posts(&self, batch: &PostBatch) -> PostAnswers;
    /// The view counts of `ids`, in their order.
    fn views(&self, ids: &[PostId]) -> Vec<Result<u64, FetchError>>;
}
