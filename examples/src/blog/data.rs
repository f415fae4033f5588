//! The blog's database: its schema and deterministic generated content.
//!
//! ```text
//! feed(post_id)                       the posts in publishing order
//! posts(id, title, author, published, tags)
//! contents(post_id, body)
//! views(post_id, count)
//! ```
//!
//! The feed is an index of its own, so it can list a post whose row is
//! gone (see [`remove_post`]): the blog must render that as a placeholder
//! and everything else as usual.

use std::path::Path;

use rusqlite::{params, Connection};

use super::model::PostId;
use crate::Rng;

const WORDS: &[&str] = &[
    "dataflow",
    "batch",
    "latency",
    "service",
    "request",
    "graph",
    "operator",
    "state",
    "section",
    "thread",
    "compiler",
    "rewrite",
    "cache",
    "fetch",
    "source",
    "parallel",
    "pipeline",
    "program",
    "function",
    "answer",
    "query",
    "round",
    "trip",
    "value",
    "call",
    "order",
    "level",
    "concise",
    "efficient",
    "microservice",
];
const AUTHORS: &[&str] = &["ada", "barbara", "edsger", "grace", "john", "leslie", "robin", "tony"];
const TAGS: &[&str] = &["io", "dataflow", "rust", "compilers", "services", "performance", "testing", "design"];

/// Create the schema and fill it with `posts` posts generated from `seed`
/// (the same arguments give the same database). Existing tables are
/// replaced.
///
/// # Errors
///
/// Any SQLite error.
pub fn fill(conn: &mut Connection, posts: u32, seed: u64) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(
        "DROP TABLE IF EXISTS feed; DROP TABLE IF EXISTS posts; DROP TABLE IF EXISTS contents;
         DROP TABLE IF EXISTS views;
         CREATE TABLE feed(post_id INTEGER PRIMARY KEY);
         CREATE TABLE posts(id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL,
                            published INTEGER NOT NULL, tags TEXT NOT NULL);
         CREATE TABLE contents(post_id INTEGER PRIMARY KEY, body TEXT NOT NULL);
         CREATE TABLE views(post_id INTEGER PRIMARY KEY, count INTEGER NOT NULL);",
    )?;
    let mut rng = Rng::new(seed);
    let mut day = 0u32;
    for id in 1..=posts {
        day += 1 + rng.below(5) as u32;
        let title = (0..3 + rng.below(4)).map(|_| *rng.pick(WORDS)).collect::<Vec<_>>().join(" ");
        let author = *rng.pick(AUTHORS);
        let mut tags: Vec<&str> = (0..1 + rng.below(3)).map(|_| *rng.pick(TAGS)).collect();
        tags.sort_unstable();
        tags.dedup();
        let paragraphs: Vec<String> = (0..3 + rng.below(4))
            .map(|_| (0..40 + rng.below(60)).map(|_| *rng.pick(WORDS)).collect::<Vec<_>>().join(" "))
            .collect();
        tx.execute("INSERT INTO feed(post_id) VALUES (?1)", params![id])?;
        tx.execute(
            "INSERT INTO posts(id, title, author, published, tags) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, title, author, day, tags.join(",")],
        )?;
        tx.execute("INSERT INTO contents(post_id, body) VALUES (?1, ?2)", params![id, paragraphs.join("\n")])?;
        tx.execute("INSERT INTO views(post_id, count) VALUES (?1, ?2)", params![id, rng.below(100_000)])?;
    }
    tx.commit()
}

/// Open the database at `path`, creating and filling it (as [`fill`]) if
/// it has no feed yet.
///
/// # Errors
///
/// Any SQLite error.
pub fn open_or_create(path: &Path, posts: u32, seed: u64) -> rusqlite::Result<Connection> {
    let mut conn = Connection::open(path)?;
    let has_feed: bool =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'feed'", [], |r| {
            r.get::<_, i64>(0).map(|n| n > 0)
        })?;
    if !has_feed {
        fill(&mut conn, posts, seed)?;
    }
    Ok(conn)
}

/// Delete post `id`'s meta data and body but keep it in the feed (a stale
/// index entry): fetching its [`Info`](super::Info) fails.
///
/// # Errors
///
/// Any SQLite error.
pub fn remove_post(conn: &Connection, id: PostId) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM posts WHERE id = ?1", params![id])?;
    conn.execute("DELETE FROM contents WHERE post_id = ?1", params![id])?;
    Ok(())
}

/// Delete post `id`'s view count: fetching it fails.
///
/// # Errors
///
/// Any SQLite error.
pub fn remove_views(conn: &Connection, id: PostId) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM views WHERE post_id = ?1", params![id]).map(|_| ())
}
