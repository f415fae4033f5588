//! The process environment: `OHUA_*` deployment variables, `OHUA_REPORT`
//! and `OHUA_DOT`. One test, alone in its binary, because it changes the
//! process environment.

mod common;

use common::expect_panic;
use common::graphs::{run_pipeline, PIPE};
use ohua_runtime::context::{profile, with_deployment};
use ohua_runtime::deploy::{Deployment, SectionStrategy};

#[test]
fn process_environment() {
    // The environment chooses the deployment...
    std::env::set_var("OHUA_SECTIONS", "per-op");
    std::env::set_var("OHUA_BATCH", "8");
    // Read once per process: after changing it, reload.
    ohua_runtime::deploy::reload().expect("a valid environment");
    let (out, reports) = profile(|| run_pipeline(&PIPE, 100, |x| x));
    assert_eq!(out.len(), 100);
    assert_eq!((reports[0].sections, reports[0].plan.batch_size), (5, 8));

    // ...unless the program overrides it.
    let d = Deployment::default().sections(SectionStrategy::Single);
    let (_, reports) = profile(|| with_deployment(d, || run_pipeline(&PIPE, 100, |x| x)));
    assert_eq!(reports[0].sections, 1);

    // OHUA_REPORT prints the table (not captured here; it must not fail),
    // OHUA_DOT writes <dir>/<algorithm>.dot.
    let dir = std::env::temp_dir().join(format!("ohua-runtime-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("OHUA_REPORT", "1");
    std::env::set_var("OHUA_DOT", &dir);
    run_pipeline(&PIPE, 10, |x| x);
    let dot = std::fs::read_to_string(dir.join("pipe.dot")).unwrap();
    assert!(dot.contains("subgraph cluster_4"), "{dot}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::env::remove_var("OHUA_REPORT");
    std::env::remove_var("OHUA_DOT");

    // A misconfigured environment stops the run with a message naming it.
    std::env::set_var("OHUA_WORKERS", "many");
    let err = ohua_runtime::deploy::reload().expect_err("OHUA_WORKERS=many is invalid");
    assert!(err.to_string().contains("OHUA_WORKERS"), "{err}");
    let msg = expect_panic(|| run_pipeline(&PIPE, 10, |x| x));
    assert!(msg.contains("cannot run algorithm `pipe`"), "{msg}");
    assert!(msg.contains("environment variable OHUA_WORKERS"), "{msg}");
    assert!(msg.contains("`many`"), "{msg}");
}
