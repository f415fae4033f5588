//! The blog's data: what the services answer.

use serde::{Deserialize, Serialize};

/// A post's identifier.
pub type PostId = u32;

/// A post's meta data (`reqPostInfo` in Fig. 4.5): what the feed, the topic
/// list and the popular headings need, without the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// The post.
    pub id: PostId,
    /// Its heading.
    pub title: String,
    /// Who wrote it.
    pub author: String,
    /// When it was published (days since the blog started); the feed is
    /// ordered by it.
    pub published: u32,
    /// Its topics.
    pub tags: Vec<String>,
}

/// Why one request failed. Only that request's result is an error; the
/// rest of its batch is answered as usual.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FetchError {
    /// The service has no such post (a stale feed entry, say).
    NotFound {
        /// What was asked for: `info`, `content` or `views`.
        what: String,
        /// The post.
        id: PostId,
    },
    /// The service or the transport failed for the whole batch.
    Service(String),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::NotFound { what, id } => write!(f, "no {what} for post {id}"),
            FetchError::Service(e) => write!(f, "service failed: {e}"),
        }
    }
}

impl std::error::Error for FetchError {}
