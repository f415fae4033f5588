//! The web server updated while it serves (issue 13's case study): a cache
//! is inserted into the running server's `load` operator by a live update
//! that transforms its `Files` state, between two requests on one
//! keep-alive connection, under two deployments.

mod web;

use ohua::{Deployment, SectionStrategy, Update};
use ohua_examples::web::{self as server, web_server, Files, Limits, Ready, Root};
use web::client::{connect, get_on};

#[test]
fn a_cache_inserted_into_the_running_server_serves_the_next_request() {
    let deployments = [
        ("auto", Deployment::default()),
        ("one section per operator", Deployment { sections: SectionStrategy::PerOperator, ..Deployment::default() }),
    ];
    for (name, d) in deployments {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root_dir = dir.path().join("root");
        server::generate_root(&root_dir).expect("the document root");
        let root = Root::new(&root_dir, false).expect("the root");
        let (ready, shutdown, addr) = Ready::bind("127.0.0.1:0".parse().unwrap(), Limits::default()).expect("bound");
        let service = ohua::service(move || ohua::with_deployment(d, || web_server(ready, &root)));
        let mut conn = connect(addr);
        let file = root_dir.join("small.html");

        // Without a cache every request reads the file.
        assert_eq!(get_on(&mut conn, "/small.html").body, std::fs::read(&file).unwrap(), "{name}");
        std::fs::write(&file, b"edited").unwrap();
        assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}: read per request");

        // The update goes before the next request: that one is cached.
        let pending = service.request(Update::new().transform(|old: &Files| Ok::<_, String>(old.with_cache())));
        assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}");
        let report = pending.wait().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.transformed.len(), 1, "{name}: the load operator holds the files: {report:?}");

        // Now the file on disk changes, but the server answers from memory.
        std::fs::write(&file, b"edited again").unwrap();
        for _ in 0..3 {
            assert_eq!(get_on(&mut conn, "/small.html").body, b"edited", "{name}: served from the inserted cache");
        }
        assert_eq!(get_on(&mut conn, "/no/such/file").status, 404, "{name}");
        drop(conn);
        shutdown.stop();
        let stats = service.join();
        assert_eq!(stats.by_status.get(&200), Some(&6), "{name}");
    }
}
