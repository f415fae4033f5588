//! The web server speaks HTTP/1.1 correctly, and answers exactly as its
//! sequential execution does under every section strategy.

mod web;

use std::io::Write;
use std::time::Duration;

use ohua_examples::web::{Limits, Run, Variant};
use web::client::{connect, exchange, get_on, is_closed, read_response, Response};
use web::{strategy_files, TestServer};

#[test]
fn serves_files_with_their_length_and_type_and_keeps_the_connection() {
    let srv = TestServer::default();
    let mut s = connect(srv.addr);
    let index = get_on(&mut s, "/");
    assert_eq!(index.status, 200);
    assert_eq!(index.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(index.body, std::fs::read(srv.root().join("index.html")).unwrap());
    let logo = get_on(&mut s, "/logo.png");
    assert_eq!(logo.header("content-type"), Some("image/png"));
    assert!(logo.body.starts_with(b"\x89PNG\r\n\x1a\n"));
    for i in 0..50 {
        let large = get_on(&mut s, &format!("/articles/{}.html", i % 7));
        assert_eq!(large.status, 200);
        assert_eq!(large.body.len(), 20 * 1024);
        assert_eq!(large.header("content-length"), Some("20480"));
    }
    let missing = get_on(&mut s, "/no/such/file");
    assert_eq!(missing.status, 404);
    // A 404 keeps the connection, as nginx does.
    assert_eq!(get_on(&mut s, "/small.html").status, 200);
    let stats = srv.stop();
    assert_eq!(stats.by_status.get(&200), Some(&53));
    assert_eq!(stats.by_status.get(&404), Some(&1));
}

#[test]
fn head_sends_the_length_but_no_body() {
    let srv = TestServer::default();
    let r = exchange(srv.addr, b"HEAD /large.html HTTP/1.1\r\nHost: x\r\n\r\n").expect("a response");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-length"), Some("20480"));
    assert!(r.body.is_empty());
}

#[test]
fn pipelined_requests_in_one_write_are_answered_in_order() {
    let srv = TestServer::default();
    let mut s = connect(srv.addr);
    let mut burst = Vec::new();
    for i in 0..20 {
        write!(burst, "GET /news/{i}.html HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    }
    s.write_all(&burst).unwrap();
    for i in 0..20 {
        let r = read_response(&mut s, false).expect("a response per request");
        assert_eq!(r.status, 200);
        assert!(String::from_utf8_lossy(&r.body).contains(&format!("news {i}<")), "response {i} out of order");
    }
}

#[test]
fn http_1_0_and_connection_close_end_the_connection_after_the_response() {
    let srv = TestServer::default();
    for raw in
        [&b"GET /small.html HTTP/1.0\r\n\r\n"[..], b"GET /small.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"]
    {
        let mut s = connect(srv.addr);
        s.write_all(raw).unwrap();
        let r = read_response(&mut s, false).expect("a response");
        assert_eq!((r.status, r.header("connection")), (200, Some("close")));
        assert!(is_closed(&mut s));
    }
    // HTTP/1.0 with keep-alive keeps it.
    let mut s = connect(srv.addr);
    s.write_all(b"GET /small.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut s, false).unwrap().status, 200);
    s.write_all(b"GET /small.html HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut s, false).unwrap().status, 200);
}

/// Issue 21 part 2, item 2: `/small.html/` and `/small.html//` served the
/// file (the target was normalised to `small.html`); nginx, Apache and
/// Python's server answer 404, as a directory is named. A directory with
/// the slash is still served (its `index.html`), with or without the cache
/// and in the split variant (snippets).
#[test]
fn a_file_named_with_a_trailing_slash_is_not_found() {
    for (variant, cache) in [(Variant::Plain, false), (Variant::Plain, true), (Variant::Split, false)] {
        let srv = TestServer::start_with_cache(Limits::default(), variant, Run::Configured, cache);
        std::fs::write(srv.root().join("articles/index.html"), "articles index").unwrap();
        let mut s = connect(srv.addr);
        // First without the slash, so a cache holds the file.
        for path in ["/small.html", "/news/1.html", "/articles"] {
            assert_eq!(get_on(&mut s, path).status, 200, "{variant:?} cache {cache}: {path}");
        }
        for path in ["/small.html/", "/small.html//", "/small.html/.", "/small.html%2F", "/news/1.html/"] {
            assert_eq!(get_on(&mut s, path).status, 404, "{variant:?} cache {cache}: {path}");
        }
        for path in ["/articles/", "/articles//", "/articles/.", "/"] {
            let r = get_on(&mut s, path);
            assert_eq!(r.status, 200, "{variant:?} cache {cache}: {path}");
        }
        assert_eq!(get_on(&mut s, "/articles/").body, b"articles index");
        assert_eq!(get_on(&mut s, "/small.html").status, 200, "{variant:?} cache {cache}");
    }
}

/// Issue 21 part 2, item 3: the absolute form (`GET http://host/path`) got
/// 400; RFC 9112 §3.2.2 says a server must accept it. Its path is served
/// (the authority ignored: one site), traversal in it is still refused.
#[test]
fn an_absolute_form_target_is_served_by_its_path() {
    let srv = TestServer::default();
    let small = std::fs::read(srv.root().join("small.html")).unwrap();
    let index = std::fs::read(srv.root().join("index.html")).unwrap();
    let mut s = connect(srv.addr);
    let cases: &[(&str, u16, &[u8])] = &[
        ("http://example.com/small.html", 200, &small),
        ("HTTP://Example.com:8080/small.html?x=1#f", 200, &small),
        ("https://127.0.0.1/small.html", 200, &small),
        ("http://example.com", 200, &index),
        ("http://example.com?q", 200, &index),
        ("http://example.com/nope", 404, b"404 Not Found\n"),
    ];
    for (target, status, body) in cases {
        let r = get_on(&mut s, target);
        assert_eq!((r.status, &r.body[..]), (*status, *body), "{target}");
    }
    let r = exchange(srv.addr, b"GET http://x/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    assert_eq!(r.status, 403);
}

/// Issue 21 part 2, item 4: an HTTP/1.0 client that sends
/// `Connection: keep-alive` had its connection kept, but the response did
/// not say so, and HTTP/1.0 clients close unless it does. Now it does (for
/// a 404 too, which keeps the connection); HTTP/1.1 responses need no such
/// header.
#[test]
fn http_1_0_keep_alive_is_confirmed_in_the_response() {
    let srv = TestServer::default();
    let mut s = connect(srv.addr);
    for path in ["/small.html", "/nope", "/small.html"] {
        s.write_all(format!("GET {path} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").as_bytes()).unwrap();
        let r = read_response(&mut s, false).expect("a response on the kept connection");
        assert_eq!(r.header("connection"), Some("keep-alive"), "{path}");
    }
    s.write_all(b"HEAD /small.html HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut s, true).unwrap().header("connection"), Some("keep-alive"));
    let r = get_on(&mut s, "/small.html");
    assert_eq!((r.status, r.header("connection")), (200, None));
}

/// `GET /small.html` on `s` with the extra header lines `headers`.
fn get_with(s: &mut std::net::TcpStream, path: &str, headers: &str) -> Response {
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n{headers}\r\n").as_bytes()).unwrap();
    read_response(s, false).expect("a response")
}

/// Issue 21 part 2, item 6: responses had no `Last-Modified` or `ETag`,
/// so browsers and caches fetched every file whole again. Now a request
/// whose copy is current gets 304 without a body (from disk, the cache and
/// the snippets alike); a changed file, or a copy that is not current, gets
/// 200 and the file.
#[test]
fn validators_and_conditional_requests_answer_304_without_a_body() {
    for (variant, cache, path) in [
        (Variant::Plain, false, "/small.html"),
        (Variant::Plain, true, "/small.html"),
        (Variant::Split, false, "/news/1.html"),
    ] {
        let what = format!("{variant:?} cache {cache} {path}");
        let srv = TestServer::start_with_cache(Limits::default(), variant, Run::Configured, cache);
        let mut s = connect(srv.addr);
        let r = get_on(&mut s, path);
        let etag = r.header("etag").unwrap_or_else(|| panic!("{what}: no ETag")).to_string();
        let modified = r.header("last-modified").expect("Last-Modified").to_string();
        assert_eq!(r.header("accept-ranges"), Some("bytes"), "{what}");
        for current in [
            format!("If-None-Match: {etag}\r\n"),
            format!("If-None-Match: \"other\", W/{etag}\r\n"),
            "If-None-Match: *\r\n".to_string(),
            format!("If-Modified-Since: {modified}\r\n"),
            "If-Modified-Since: Fri, 31 Dec 9999 23:59:59 GMT\r\nRange: bytes=0-1\r\n".to_string(),
        ] {
            let r = get_with(&mut s, path, &current);
            assert_eq!((r.status, r.body.len()), (304, 0), "{what}: {current}");
            assert_eq!((r.header("etag"), r.header("content-length")), (Some(etag.as_str()), None), "{what}");
        }
        s.write_all(format!("HEAD {path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\n\r\n").as_bytes()).unwrap();
        assert_eq!(read_response(&mut s, true).unwrap().status, 304, "{what}: HEAD");
        for stale in [
            "If-None-Match: \"other\"\r\n".to_string(),
            "If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n".to_string(),
            "If-Modified-Since: not a date\r\n".to_string(),
            // If-None-Match decides: If-Modified-Since is not looked at.
            format!("If-None-Match: \"other\"\r\nIf-Modified-Since: {modified}\r\n"),
        ] {
            let r = get_with(&mut s, path, &stale);
            assert_eq!((r.status, r.body.len() > 100), (200, true), "{what}: {stale}");
        }
        // No validators on an error.
        assert_eq!(get_on(&mut s, "/nope").header("etag"), None, "{what}");
    }
    // The file changes: the old ETag no longer matches.
    let srv = TestServer::default();
    let mut s = connect(srv.addr);
    let etag = get_on(&mut s, "/small.html").header("etag").unwrap().to_string();
    std::fs::write(srv.root().join("small.html"), "changed").unwrap();
    let r = get_with(&mut s, "/small.html", &format!("If-None-Match: {etag}\r\n"));
    assert_eq!((r.status, &r.body[..]), (200, &b"changed"[..]));
    assert_ne!(r.header("etag"), Some(etag.as_str()));
}

/// Issue 21 part 2, item 6: `Range` was ignored, so no download could be
/// resumed. One byte range gets 206 and that part with its
/// `Content-Range`; one past the end gets 416 (the connection is kept);
/// several ranges, or one not understood, get 200 and the whole file.
#[test]
fn single_byte_ranges_answer_206_and_unsatisfiable_ones_416() {
    let srv = TestServer::default();
    let full = std::fs::read(srv.root().join("large.html")).unwrap();
    assert_eq!(full.len(), 20480);
    let mut s = connect(srv.addr);
    let etag = get_on(&mut s, "/large.html").header("etag").unwrap().to_string();
    let modified = get_on(&mut s, "/large.html").header("last-modified").unwrap().to_string();
    let parts = [
        ("bytes=0-99", 0..100),
        ("bytes=20000-", 20000..20480),
        ("bytes=-100", 20380..20480),
        ("bytes=20400-99999", 20400..20480),
        ("bytes=-99999", 0..20480),
        ("bytes=7-7", 7..8),
    ];
    for (range, want) in parts {
        let r = get_with(&mut s, "/large.html", &format!("Range: {range}\r\n"));
        assert_eq!(r.status, 206, "{range}");
        assert_eq!(r.body, &full[want.clone()], "{range}");
        let content_range = format!("bytes {}-{}/20480", want.start, want.end - 1);
        assert_eq!(r.header("content-range"), Some(content_range.as_str()), "{range}");
        assert_eq!(r.header("etag"), Some(etag.as_str()), "{range}");
    }
    for range in ["bytes=20480-", "bytes=30000-40000", "bytes=-0"] {
        let r = get_with(&mut s, "/large.html", &format!("Range: {range}\r\n"));
        assert_eq!((r.status, r.header("content-range")), (416, Some("bytes */20480")), "{range}");
    }
    for ignored in ["bytes=0-1,5-6", "bytes=5-1", "pages=0-1", "bytes=abc"] {
        let r = get_with(&mut s, "/large.html", &format!("Range: {ignored}\r\n"));
        assert_eq!((r.status, r.body.len(), r.header("content-range")), (200, 20480, None), "{ignored}");
    }
    // If-Range: the part only if the file is still that version.
    for (if_range, status) in [(etag.as_str(), 206), (modified.as_str(), 206), ("\"old\"", 200), ("W/\"x\"", 200)] {
        let r = get_with(&mut s, "/large.html", &format!("Range: bytes=0-9\r\nIf-Range: {if_range}\r\n"));
        assert_eq!(r.status, status, "If-Range: {if_range}");
    }
    // HEAD ignores Range (it is defined for GET only).
    s.write_all(b"HEAD /large.html HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n").unwrap();
    let r = read_response(&mut s, true).unwrap();
    assert_eq!((r.status, r.header("content-length")), (200, Some("20480")));
    let stats = srv.stop();
    assert_eq!(stats.by_status.get(&206), Some(&8));
    assert_eq!(stats.by_status.get(&416), Some(&3));
}

/// A fixed client script over four interleaved connections: every kind of
/// answer the server gives, then `Connection: close` on each.
fn script(addr: std::net::SocketAddr) -> Vec<Response> {
    let mut conns: Vec<_> = (0..4).map(|_| connect(addr)).collect();
    let paths = ["/", "/small.html", "/news/3.html", "/articles/9.html", "/nope", "/logo.png", "/news/"];
    let mut out = Vec::new();
    for round in 0..6 {
        for (c, s) in conns.iter_mut().enumerate() {
            let path = paths[(round * 3 + c) % paths.len()];
            out.push(get_on(s, path).without_date());
        }
    }
    for s in &mut conns {
        s.write_all(b"GET /small.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
        out.push(read_response(s, false).expect("the last response").without_date());
        assert!(is_closed(s));
    }
    // Requests that close their connection, each on a fresh one.
    for raw in
        [&b"GARBAGE\r\n\r\n"[..], b"GET /%2e%2e/x HTTP/1.1\r\nHost: x\r\n\r\n", b"POST / HTTP/1.1\r\nHost: x\r\n\r\n"]
    {
        out.push(exchange(addr, raw).expect("an error response").without_date());
    }
    out
}

#[test]
fn every_section_strategy_answers_as_sequential_execution() {
    for variant in [Variant::Plain, Variant::Split] {
        let srv = TestServer::start(Limits::default(), variant, Run::Sequential);
        let expected = script(srv.addr);
        let mut expected_stats = srv.stop();
        expected_stats.waits = 0;
        assert!(expected.iter().any(|r| r.status == 200) && expected.iter().any(|r| r.status == 404));
        let mut runs = vec![("configured".to_string(), Run::Configured)];
        runs.extend(strategy_files().into_iter().map(|(name, d)| (name, Run::Deployed(d))));
        runs.extend(ohua_conformance_like_random(4).into_iter().map(|(n, d)| (n, Run::Deployed(d))));
        for (name, run) in runs {
            let t = std::time::Instant::now();
            let srv = TestServer::start(Limits::default(), variant, run);
            let got = script(srv.addr);
            let t1 = t.elapsed();
            let mut stats = srv.stop();
            eprintln!("{name}: script {t1:?} stop {:?}", t.elapsed() - t1);
            stats.waits = 0; // how often a connection waited depends on timing
            assert_eq!(got, expected, "{variant:?} under {name}: responses differ from sequential execution");
            assert_eq!(stats, expected_stats, "{variant:?} under {name}: statistics differ");
        }
    }
}

/// Random section mappings (and random replicas of the stateless calls).
fn ohua_conformance_like_random(n: u64) -> Vec<(String, ohua::Deployment)> {
    (0..n)
        .map(|seed| {
            let d = ohua::Deployment::default()
                .workers(2)
                .sections(ohua::SectionStrategy::Random { sections: 2 + (seed % 3) as usize, seed })
                .replicas(format!("random:3:{seed}").parse().unwrap());
            (format!("random sections and replicas, seed {seed}"), d)
        })
        .collect()
}

#[test]
fn the_server_stops_with_requests_in_flight_and_idle_connections_open() {
    let srv = TestServer::default();
    let mut idle = connect(srv.addr);
    let _ = get_on(&mut idle, "/small.html");
    let mut busy = connect(srv.addr);
    busy.write_all(b"GET /large.html HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let stats = srv.stop();
    assert!(stats.responses() >= 1);
}
