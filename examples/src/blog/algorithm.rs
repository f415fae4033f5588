//! The blog of Fig. 4.5 as one algorithm module: plain sequential Rust
//! with fetches. Rendering a page is one call of [`blog::page`]; the panes
//! are algorithms it calls, inlined into one graph, so the fetches of all
//! panes batch together.
//!
//! The longest chains of dependent fetches (hence the fewest calls a run
//! can make, which batching reaches):
//!
//! ```text
//! PostDb:      PostIds -> PostInfo(id) for each -> PostContent(id) of the last n   3 calls
//! ViewCounts:  (after PostIds) ViewCount(id) for each                               1 call
//! ```
//!
//! The main pane and the topics fetch the feed and every post's meta data
//! the same way (deduplicated: one request each), and the popular list's
//! headings are meta data already fetched (answered from the run's cache).

use ohua::{algorithm, Source};

use super::render::{
    compose_left, compose_page, feed, last_n, missing_counts, render_main, render_missing, render_popular,
    render_popular_item, render_post, render_topics, tag_topics, top_k, Count, Entry,
};
use super::sources::{PostContent, PostDb, PostIds, PostInfo, ViewCount, ViewCounts};

/// The blog's page and its panes.
#[algorithm]
pub mod blog {
    use super::*;

    /// The main pane: the last `n` posts with their bodies.
    #[algorithm]
    pub fn main_pane(db: &Source<PostDb>, n: usize) -> String {
        let ids = db.fetch(PostIds);
        let ids = feed(ids);
        let entries: Vec<Entry> = ids
            .into_iter()
            .map(|id| {
                let info = db.fetch(PostInfo(id));
                Entry::new(id, info)
            })
            .collect();
        let recent = last_n(entries, n);
        let posts: Vec<String> = recent
            .into_iter()
            .map(|entry| {
                let html = match entry {
                    Entry::Found(info) => {
                        let body = db.fetch(PostContent(info.id));
                        render_post(info, body)
                    }
                    Entry::Missing(id, e) => render_missing(id, e),
                };
                html
            })
            .collect();
        render_main(posts)
    }

    /// The topics: every tag with the number of its posts.
    #[algorithm]
    pub fn topics(db: &Source<PostDb>) -> String {
        let ids = db.fetch(PostIds);
        let ids = feed(ids);
        let entries: Vec<Entry> = ids
            .into_iter()
            .map(|id| {
                let info = db.fetch(PostInfo(id));
                Entry::new(id, info)
            })
            .collect();
        let topics = tag_topics(entries);
        render_topics(topics)
    }

    /// The popular posts: the headings of the `k` most viewed.
    #[algorithm]
    pub fn popular(db: &Source<PostDb>, views: &Source<ViewCounts>, k: usize) -> String {
        let ids = db.fetch(PostIds);
        let ids = feed(ids);
        let counts: Vec<Count> = ids
            .into_iter()
            .map(|id| {
                let n = views.fetch(ViewCount(id));
                Count::new(id, n)
            })
            .collect();
        let missing = missing_counts(&counts);
        let top = top_k(counts, k);
        let items: Vec<String> = top
            .into_iter()
            .map(|post| {
                let info = db.fetch(PostInfo(post.id));
                render_popular_item(post, info)
            })
            .collect();
        render_popular(items, missing)
    }

    /// The left pane: topics and popular posts.
    #[algorithm]
    pub fn left_pane(db: &Source<PostDb>, views: &Source<ViewCounts>, k: usize) -> String {
        let t = topics(db);
        let p = popular(db, views, k);
        compose_left(t, p)
    }

    /// The page: the main pane with the last `n` posts and the left pane
    /// with the `k` most viewed.
    #[algorithm]
    pub fn page(db: &Source<PostDb>, views: &Source<ViewCounts>, n: usize, k: usize) -> String {
        let main = main_pane(db, n);
        let left = left_pane(db, views, k);
        compose_page(main, left)
    }
}
