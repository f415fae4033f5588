//! The services as an embedded SQLite database: each batch is one query
//! per kind of request (`... WHERE id IN (?, ?, ..)`), after one simulated
//! round trip.
//!
//! SQLite in the process answers in microseconds, far faster than any
//! service across a network, so batching would change nothing measurable.
//! Every call therefore first sleeps the store's `latency`, once per call
//! whatever the batch holds: the cost of a round trip, which is what
//! batching saves.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params_from_iter, Connection};

use super::backend::{Backend, PostAnswers, PostBatch};
use super::model::{FetchError, Info, PostId};

/// The blog's services over one SQLite connection.
pub struct SqliteStore {
    conn: Mutex<Connection>,
    latency: Duration,
}

impl SqliteStore {
    /// A store over `conn` whose every call first sleeps `latency`.
    pub fn new(conn: Connection, latency: Duration) -> Self {
        SqliteStore { conn: Mutex::new(conn), latency }
    }

    /// Run `f` on the connection after the simulated round trip. The sleep
    /// is outside the lock, so calls of both services overlap as they would
    /// over a network.
    fn round_trip<R>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<R>) -> Result<R, FetchError> {
        if !self.latency.is_zero() {
            std::thread::sleep(self.latency);
        }
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        f(&conn).map_err(|e| FetchError::Service(e.to_string()))
    }
}

/// `SELECT <columns> FROM <table> WHERE <key> IN (?, ..)` for `ids`, each
/// row by its key (the first column).
fn rows_by_id<T>(
    conn: &Connection,
    sql_head: &str,
    ids: &[PostId],
    row: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<HashMap<PostId, T>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let marks = vec!["?"; ids.len()].join(",");
    let mut stmt = conn.prepare(&format!("{sql_head} IN ({marks})"))?;
    let rows = stmt.query_map(params_from_iter(ids.iter()), |r| Ok((r.get::<_, PostId>(0)?, row(r)?)))?;
    rows.collect()
}

/// The answers for `ids` in their order; a missing row is `NotFound`.
fn in_order<T: Clone>(ids: &[PostId], mut found: HashMap<PostId, T>, what: &str) -> Vec<Result<T, FetchError>> {
    ids.iter().map(|&id| found.remove(&id).ok_or_else(|| FetchError::NotFound { what: what.to_string(), id })).collect()
}

impl Backend for SqliteStore {
    fn posts(&self, batch: &PostBatch) -> PostAnswers {
        let answers = self.round_trip(|conn| {
            let feed = if batch.feed {
                let mut stmt = conn.prepare("SELECT post_id FROM feed ORDER BY post_id")?;
                let ids = stmt.query_map([], |r| r.get::<_, PostId>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Some(Ok(ids))
            } else {
                None
            };
            let infos =
                rows_by_id(conn, "SELECT id, title, author, published, tags FROM posts WHERE id", &batch.infos, |r| {
                    let tags: String = r.get(4)?;
                    Ok(Info {
                        id: r.get(0)?,
                        title: r.get(1)?,
                        author: r.get(2)?,
                        published: r.get(3)?,
                        tags: tags.split(',').filter(|t| !t.is_empty()).map(str::to_string).collect(),
                    })
                })?;
            let contents =
                rows_by_id(conn, "SELECT post_id, body FROM contents WHERE post_id", &batch.contents, |r| r.get(1))?;
            Ok(PostAnswers {
                feed,
                infos: in_order(&batch.infos, infos, "info"),
                contents: in_order(&batch.contents, contents, "content"),
            })
        });
        answers.unwrap_or_else(|e| PostAnswers::failed(batch, &e))
    }

    fn views(&self, ids: &[PostId]) -> Vec<Result<u64, FetchError>> {
        let found = self.round_trip(|conn| {
            rows_by_id(conn, "SELECT post_id, count FROM views WHERE post_id", ids, |r| r.get::<_, i64>(1))
        });
        match found {
            Ok(found) => in_order(ids, found, "views").into_iter().map(|r| r.map(|n| n as u64)).collect(),
            Err(e) => ids.iter().map(|_| Err(e.clone())).collect(),
        }
    }
}
