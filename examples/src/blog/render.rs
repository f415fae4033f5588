//! The blog's plain functions (`ff_*` in Fig. 4.5): picking, counting and
//! producing HTML. No I/O here; the algorithm fetches.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::model::{FetchError, Info, PostId};

/// A post of the feed with its meta data, or why that could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The post's meta data.
    Found(Info),
    /// The post's meta data failed to load.
    Missing(PostId, FetchError),
}

impl Entry {
    /// The entry for post `id` from the answer to its `PostInfo` fetch.
    pub fn new(id: PostId, info: Result<Info, FetchError>) -> Self {
        match info {
            Ok(info) => Entry::Found(info),
            Err(e) => Entry::Missing(id, e),
        }
    }
}

/// A post's view count, or why it could not be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Count {
    /// The post.
    pub id: PostId,
    /// Its views.
    pub views: Result<u64, FetchError>,
}

impl Count {
    /// The count of post `id` from the answer to its `ViewCount` fetch.
    pub fn new(id: PostId, views: Result<u64, FetchError>) -> Self {
        Count { id, views }
    }
}

/// A post among the most viewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    /// The post.
    pub id: PostId,
    /// Its views.
    pub views: u64,
}

/// The topics: how many posts carry each tag.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topics {
    /// Posts per tag, by tag.
    pub counts: BTreeMap<String, usize>,
    /// Posts whose meta data failed to load.
    pub unavailable: usize,
}

/// The feed's ids; a feed that failed to load is empty (the page then
/// shows an empty blog).
pub fn feed(ids: Result<Vec<PostId>, FetchError>) -> Vec<PostId> {
    ids.unwrap_or_default()
}

/// The last `n` posts of the feed, newest first (`ff_last-n`).
pub fn last_n(entries: Vec<Entry>, n: usize) -> Vec<Entry> {
    entries.into_iter().rev().take(n).collect()
}

/// Count the posts per tag (`ff_tag`).
pub fn tag_topics(entries: Vec<Entry>) -> Topics {
    let mut topics = Topics::default();
    for e in entries {
        match e {
            Entry::Found(info) => {
                for tag in info.tags {
                    *topics.counts.entry(tag).or_default() += 1;
                }
            }
            Entry::Missing(..) => topics.unavailable += 1,
        }
    }
    topics
}

/// How many view counts failed to load.
pub fn missing_counts(counts: &[Count]) -> usize {
    counts.iter().filter(|c| c.views.is_err()).count()
}

/// The `k` most viewed posts, most viewed first (ties: the older post
/// first); posts whose count failed are left out.
pub fn top_k(counts: Vec<Count>, k: usize) -> Vec<Ranked> {
    let mut ranked: Vec<Ranked> =
        counts.into_iter().filter_map(|c| c.views.ok().map(|views| Ranked { id: c.id, views })).collect();
    ranked.sort_by(|a, b| b.views.cmp(&a.views).then(a.id.cmp(&b.id)));
    ranked.truncate(k);
    ranked
}

/// `s` with `&`, `<`, `>` and `"` escaped for HTML.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// One post of the main pane: heading, byline, tags and body (or a note
/// that the body failed to load).
pub fn render_post(info: Info, body: Result<String, FetchError>) -> String {
    let mut html = format!(
        "<article id=\"post-{}\">\n<h2>{}</h2>\n<p class=\"byline\">by {} on day {} &middot; {}</p>\n",
        info.id,
        escape(&info.title),
        escape(&info.author),
        info.published,
        escape(&info.tags.join(", "))
    );
    match body {
        Ok(body) => {
            for paragraph in body.lines() {
                writeln!(html, "<p>{}</p>", escape(paragraph)).expect("writing to a String");
            }
        }
        Err(e) => writeln!(html, "<p class=\"error\">content unavailable: {}</p>", escape(&e.to_string()))
            .expect("writing to a String"),
    }
    html.push_str("</article>\n");
    html
}

/// The placeholder for a post whose meta data failed to load.
pub fn render_missing(id: PostId, e: FetchError) -> String {
    format!("<article id=\"post-{id}\" class=\"error\">post {id} unavailable: {}</article>\n", escape(&e.to_string()))
}

/// The main pane from its rendered posts.
pub fn render_main(posts: Vec<String>) -> String {
    format!("<main>\n{}</main>\n", posts.concat())
}

/// The topic list.
pub fn render_topics(topics: Topics) -> String {
    let mut html = String::from("<section id=\"topics\">\n<h3>Topics</h3>\n<ul>\n");
    for (tag, n) in &topics.counts {
        writeln!(html, "<li>{} ({n})</li>", escape(tag)).expect("writing to a String");
    }
    html.push_str("</ul>\n");
    if topics.unavailable > 0 {
        writeln!(html, "<p class=\"error\">{} posts unavailable</p>", topics.unavailable).expect("writing to a String");
    }
    html.push_str("</section>\n");
    html
}

/// One entry of the popular list: the post's heading and its views.
pub fn render_popular_item(post: Ranked, info: Result<Info, FetchError>) -> String {
    match info {
        Ok(info) => {
            format!("<li><a href=\"#post-{}\">{}</a> ({} views)</li>\n", post.id, escape(&info.title), post.views)
        }
        Err(e) => {
            format!("<li class=\"error\">post {} ({} views): {}</li>\n", post.id, post.views, escape(&e.to_string()))
        }
    }
}

/// The list of the most viewed posts.
pub fn render_popular(items: Vec<String>, missing: usize) -> String {
    let mut html = format!("<section id=\"popular\">\n<h3>Most viewed</h3>\n<ol>\n{}</ol>\n", items.concat());
    if missing > 0 {
        writeln!(html, "<p class=\"error\">views of {missing} posts unavailable</p>").expect("writing to a String");
    }
    html.push_str("</section>\n");
    html
}

/// The left pane from the topics and the popular posts.
pub fn compose_left(topics: String, popular: String) -> String {
    format!("<aside>\n{topics}{popular}</aside>\n")
}

/// The page from the main and the left pane.
pub fn compose_page(main: String, left: String) -> String {
    format!("<!DOCTYPE html>\n<html>\n<head><title>Blog</title></head>\n<body>\n{left}{main}</body>\n</html>\n")
}
