//! The blog of Fig. 4.5 (`examples/src/blog/`): every variant of Table 4.1
//! renders the sequential page, batching reaches the fewest calls the
//! algorithm's dependencies allow, and a missing post fails only what
//! depends on it. Both transports: SQLite in the process and HTTP on
//! loopback. No timings are asserted.

use std::sync::Arc;
use std::time::Duration;

use ohua_examples::blog::{self, Backend, Blog, BlogServer, HttpStore, SqliteStore, Variant};
use rusqlite::Connection;

/// Posts in the test database, posts in the main pane, posts in the
/// popular list.
const POSTS: u64 = 24;
const RECENT: u64 = 5;
const POPULAR: u64 = 3;
/// Small, so the tests are quick; the calls are counted, not timed.
const LATENCY: Duration = Duration::from_millis(1);

/// The fewest calls a render can make: the longest chain of dependent
/// fetches per source in `blog::page`.
///
/// PostDb:     `PostIds` (1) -> `PostInfo(id)` of every post (2) ->
///             `PostContent(id)` of the last `RECENT` (3). The popular
///             list's `PostInfo` of the top posts come after the view
///             counts, but ask for meta data the second batch already
///             holds: answered from the run's cache, no call.
/// ViewCounts: `ViewCount(id)` of every post, after `PostIds`: 1.
const OPTIMAL_POST_CALLS: u64 = 3;
const OPTIMAL_VIEW_CALLS: u64 = 1;

/// The fetches a render makes, each a call of its own under `seq` and
/// `base`: the main pane fetches the feed, every info and `recent`
/// contents; the topics the feed and every info; the popular list the
/// feed and `POPULAR` infos; the view counts are one per post.
fn fetches(recent_with_info: u64) -> (u64, u64) {
    let main = 1 + POSTS + recent_with_info;
    let topics = 1 + POSTS;
    let popular = 1 + POPULAR;
    (main + topics + popular, POSTS)
}

/// A filled in-memory database, with `damage` applied.
fn database(damage: impl FnOnce(&Connection)) -> Connection {
    let mut conn = Connection::open_in_memory().expect("an in-memory database");
    blog::fill(&mut conn, POSTS as u32, 11).expect("filled");
    damage(&conn);
    conn
}

/// The blog over `conn`, through SQLite directly and through HTTP (the
/// server lives as long as the blog is used).
fn blogs(conn: impl Fn() -> Connection) -> Vec<(&'static str, Blog, Option<BlogServer>)> {
    let direct: Arc<dyn Backend> = Arc::new(SqliteStore::new(conn(), LATENCY));
    let server = BlogServer::start(Arc::new(SqliteStore::new(conn(), LATENCY)), 4).expect("a server on loopback");
    let http: Arc<dyn Backend> = Arc::new(HttpStore::new(server.url()));
    vec![
        ("sqlite", Blog::new(direct, RECENT as usize, POPULAR as usize), None),
        ("http", Blog::new(http, RECENT as usize, POPULAR as usize), Some(server)),
    ]
}

#[test]
fn every_variant_renders_the_sequential_page_and_batching_makes_the_fewest_calls() {
    for (transport, page, _server) in blogs(|| database(|_| ())) {
        let seq = page.render(Variant::Seq);
        assert!(seq.html.contains(&format!("<article id=\"post-{POSTS}\">")), "{transport}: the newest post");
        assert!(!seq.html.contains("error"), "{transport}: nothing fails:\n{}", seq.html);
        let (post_fetches, view_fetches) = fetches(RECENT);
        for v in Variant::ALL {
            let r = page.render_profiled(v);
            assert_eq!(r.html, seq.html, "{transport}/{}: the sequential page", v.name());
            let (posts, views) = (r.posts, r.views);
            match v {
                Variant::Seq | Variant::Base => {
                    assert_eq!((posts.calls, posts.requests), (post_fetches, post_fetches), "{transport}/{}", v.name());
                    assert_eq!((views.calls, views.requests), (view_fetches, view_fetches), "{transport}/{}", v.name());
                }
                Variant::Batch | Variant::Full => {
                    assert_eq!(posts.calls, OPTIMAL_POST_CALLS, "{transport}/{}", v.name());
                    assert_eq!(views.calls, OPTIMAL_VIEW_CALLS, "{transport}/{}", v.name());
                    // Deduplicated and cached: the feed once, every info
                    // once, the recent contents.
                    assert_eq!(posts.requests, 1 + POSTS + RECENT, "{transport}/{}", v.name());
                    assert_eq!(views.requests, POSTS, "{transport}/{}", v.name());
                    let db = r.io.iter().find(|s| s.source == "PostDb").expect("the report lists PostDb");
                    assert_eq!(db.fetches, post_fetches, "{transport}/{}: {db:?}", v.name());
                    assert_eq!(db.deduplicated + db.cached, post_fetches - posts.requests, "{db:?}");
                    assert!(db.cached >= POPULAR, "the popular headings come from the cache: {db:?}");
                }
            }
        }
    }
}

#[test]
fn a_missing_post_fails_only_what_depends_on_it() {
    // Post POSTS - 1 (among the recent ones) lost its row but is still in
    // the feed; post 3 lost its view count.
    let lost = POSTS as u32 - 1;
    let damage = |conn: &Connection| {
        blog::remove_post(conn, lost).expect("removed");
        blog::remove_views(conn, 3).expect("removed");
    };
    for (transport, page, _server) in blogs(|| database(damage)) {
        let seq = page.render(Variant::Seq);
        let placeholder = format!("post {lost} unavailable: no info for post {lost}");
        assert!(seq.html.contains(&placeholder), "{transport}: a placeholder for the lost post:\n{}", seq.html);
        for id in (POSTS as u32 - RECENT as u32 + 1..=POSTS as u32).filter(|&id| id != lost) {
            assert!(seq.html.contains(&format!("<article id=\"post-{id}\">\n<h2>")), "{transport}: post {id} as usual");
        }
        assert!(seq.html.contains("<p class=\"error\">1 posts unavailable</p>"), "{transport}: topics note it");
        assert!(seq.html.contains("views of 1 posts unavailable"), "{transport}: the popular list notes it");
        assert_eq!(seq.html.matches("<li><a href=").count(), POPULAR as usize, "{transport}: still {POPULAR} popular");
        let (post_fetches, _) = fetches(RECENT - 1);
        for v in Variant::ALL {
            let r = page.render_profiled(v);
            assert_eq!(r.html, seq.html, "{transport}/{}: the sequential page", v.name());
            match v {
                Variant::Seq | Variant::Base => assert_eq!(r.posts.calls, post_fetches, "{transport}/{}", v.name()),
                Variant::Batch | Variant::Full => {
                    assert_eq!((r.posts.calls, r.views.calls), (OPTIMAL_POST_CALLS, OPTIMAL_VIEW_CALLS));
                    let errors: Vec<(String, u64)> = r.io.iter().map(|s| (s.source.clone(), s.errors)).collect();
                    assert_eq!(errors, vec![("PostDb".to_string(), 1), ("ViewCounts".to_string(), 1)], "{transport}");
                }
            }
        }
    }
}

#[test]
fn the_http_server_rejects_bad_requests_and_answers_batches_in_order() {
    let server = BlogServer::start(Arc::new(SqliteStore::new(database(|_| ()), Duration::ZERO)), 1).expect("a server");
    let status = |path: &str| match ureq::get(&format!("{}{path}", server.url())).call() {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(code, _)) => code,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(status("/posts?info=1,x"), 400);
    assert_eq!(status("/nothing"), 404);
    let store = HttpStore::new(server.url());
    let views = store.views(&[5, 999, 2]);
    assert!(views[0].is_ok() && views[2].is_ok(), "{views:?}");
    assert_eq!(views[1], Err(blog::FetchError::NotFound { what: "views".to_string(), id: 999 }));
    let answers = store.posts(&blog::PostBatch { feed: true, infos: vec![7, 2], contents: vec![] });
    assert_eq!(answers.feed, Some(Ok((1..=POSTS as u32).collect())));
    let ids: Vec<u32> = answers.infos.iter().map(|i| i.as_ref().expect("both exist").id).collect();
    assert_eq!(ids, vec![7, 2]);
}
