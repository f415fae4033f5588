//! The two data sources the blog fetches from, and the typed requests its
//! code writes (`db.fetch(PostInfo(id))` returns `Result<Info, FetchError>`).
//!
//! Both sources call their [`Backend`] once per batch: [`PostDb`] turns a
//! batch of mixed requests into one [`PostBatch`], [`ViewCounts`] its ids
//! into one list.

use std::sync::Arc;

use ohua::{io::Query, DataSource};

use super::backend::{Backend, PostAnswers, PostBatch};
use super::model::{FetchError, Info, PostId};

/// A request to the post service.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PostRequest {
    /// The feed: the ids of all posts, oldest first.
    Ids,
    /// A post's meta data.
    Info(PostId),
    /// A post's body.
    Content(PostId),
}

/// An answer of the post service.
#[derive(Debug, Clone)]
pub enum PostResponse {
    /// To [`PostRequest::Ids`].
    Ids(Vec<PostId>),
    /// To [`PostRequest::Info`].
    Info(Info),
    /// To [`PostRequest::Content`].
    Content(String),
}

/// The post service (`src1`/`src3` of the dissertation's `mainPane`): the
/// feed, post meta data and post bodies.
pub struct PostDb {
    backend: Arc<dyn Backend>,
}

impl PostDb {
    /// The post service of `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        PostDb { backend }
    }
}

/// `answers` if it has `n` of them, else an error for each of the `n`.
fn checked<T>(answers: Vec<Result<T, FetchError>>, n: usize) -> Vec<Result<T, FetchError>> {
    if answers.len() == n {
        answers
    } else {
        let e = FetchError::Service(format!("{} answers for {n} requests", answers.len()));
        (0..n).map(|_| Err(e.clone())).collect()
    }
}

impl DataSource for PostDb {
    type Request = PostRequest;
    type Response = PostResponse;
    type Error = FetchError;

    fn fetch(&self, requests: &[PostRequest]) -> Vec<Result<PostResponse, FetchError>> {
        let mut batch = PostBatch::default();
        for r in requests {
            match r {
                PostRequest::Ids => batch.feed = true,
                PostRequest::Info(id) => batch.infos.push(*id),
                PostRequest::Content(id) => batch.contents.push(*id),
            }
        }
        let PostAnswers { feed, infos, contents } = self.backend.posts(&batch);
        let mut feed = Some(feed.unwrap_or_else(|| Err(FetchError::Service("no feed in the answer".to_string()))));
        let mut infos = checked(infos, batch.infos.len()).into_iter();
        let mut contents = checked(contents, batch.contents.len()).into_iter();
        requests
            .iter()
            .map(|r| match r {
                PostRequest::Ids => feed.take().expect("the requests of a call are distinct").map(PostResponse::Ids),
                PostRequest::Info(_) => infos.next().expect("checked").map(PostResponse::Info),
                PostRequest::Content(_) => contents.next().expect("checked").map(PostResponse::Content),
            })
            .collect()
    }

    fn name(&self) -> &str {
        "PostDb"
    }
}

/// The view-count service (a statistics service of its own, so its
/// batches can run at the same time as the post service's).
pub struct ViewCounts {
    backend: Arc<dyn Backend>,
}

impl ViewCounts {
    /// The view-count service of `backend`.
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        ViewCounts { backend }
    }
}

impl DataSource for ViewCounts {
    type Request = PostId;
    type Response = u64;
    type Error = FetchError;

    fn fetch(&self, ids: &[PostId]) -> Vec<Result<u64, FetchError>> {
        checked(self.backend.views(ids), ids.len())
    }

    fn name(&self) -> &str {
        "ViewCounts"
    }
}

/// The feed: `db.fetch(PostIds)` is `Result<Vec<PostId>, FetchError>`.
#[derive(Debug, Clone, Copy)]
pub struct PostIds;

/// A post's meta data: `db.fetch(PostInfo(id))` is `Result<Info, FetchError>`.
#[derive(Debug, Clone, Copy)]
pub struct PostInfo(pub PostId);

/// A post's body: `db.fetch(PostContent(id))` is `Result<String, FetchError>`.
#[derive(Debug, Clone, Copy)]
pub struct PostContent(pub PostId);

/// A post's view count: `views.fetch(ViewCount(id))` is `Result<u64, FetchError>`.
#[derive(Debug, Clone, Copy)]
pub struct ViewCount(pub PostId);

/// The post service answered a request with the answer to another kind.
fn mismatch(what: &str, got: &PostResponse) -> ! {
    panic!("PostDb answered a {what} request with {got:?}")
}

impl Query<PostDb> for PostIds {
    type Output = Vec<PostId>;
    fn request(self) -> PostRequest {
        PostRequest::Ids
    }
    fn output(r: PostResponse) -> Vec<PostId> {
        match r {
            PostResponse::Ids(ids) => ids,
            other => mismatch("feed", &other),
        }
    }
}

impl Query<PostDb> for PostInfo {
    type Output = Info;
    fn request(self) -> PostRequest {
        PostRequest::Info(self.0)
    }
    fn output(r: PostResponse) -> Info {
        match r {
            PostResponse::Info(info) => info,
            other => mismatch("info", &other),
        }
    }
}

impl Query<PostDb> for PostContent {
    type Output = String;
    fn request(self) -> PostRequest {
        PostRequest::Content(self.0)
    }
    fn output(r: PostResponse) -> String {
        match r {
            PostResponse::Content(body) => body,
            other => mismatch("content", &other),
        }
    }
}

impl Query<ViewCounts> for ViewCount {
    type Output = u64;
    fn request(self) -> PostId {
        self.0
    }
    fn output(n: u64) -> u64 {
        n
    }
}
