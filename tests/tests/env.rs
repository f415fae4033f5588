//! The process environment: `OHUA_*` deployment variables, `OHUA_REPORT`
//! and `OHUA_DOT`. One test, alone in its binary, because it changes the
//! process environment. (It was `crates/ohua-runtime/tests/env.rs`, over a
//! hand-built pipeline, until building graphs by hand became private to the
//! runtime, issue 22.)

use ohua::deploy::SectionStrategy;
use ohua::Deployment;

fn inc(x: u64) -> u64 {
    x + 1
}

/// Three calls in a loop: several operators, so one section per operator
/// is several sections.
#[ohua::algorithm]
fn pipe(xs: Vec<u64>) -> Vec<u64> {
    let ys: Vec<u64> = xs
        .into_iter()
        .map(|x| {
            let a = inc(x);
            let b = inc(a);
            let c = inc(b);
            c
        })
        .collect();
    ys
}

/// Run `f`, expecting it to panic; return the panic message.
fn expect_panic<R>(f: impl FnOnce() -> R) -> String {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(p) => p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .unwrap_or_default(),
    }
}

#[test]
fn process_environment() {
    let xs: Vec<u64> = (0..100).collect();
    // The environment chooses the deployment...
    std::env::set_var("OHUA_SECTIONS", "per-op");
    std::env::set_var("OHUA_BATCH", "8");
    // Read once per process: after changing it, reload.
    ohua::reload_config().expect("a valid environment");
    let (out, reports) = ohua::profile(|| pipe(xs.clone()));
    assert_eq!(out, (3..103).collect::<Vec<u64>>());
    let operators = reports[0].graph.nodes.len();
    assert!(operators >= 5, "{operators} operators");
    assert_eq!((reports[0].sections, reports[0].plan.batch_size), (operators, 8));

    // ...unless the program overrides it.
    let d = Deployment::default().sections(SectionStrategy::Single);
    let (_, reports) = ohua::profile(|| ohua::with_deployment(d, || pipe(xs.clone())));
    assert_eq!(reports[0].sections, 1);

    // OHUA_REPORT prints the table (not captured here; it must not fail),
    // OHUA_DOT writes <dir>/<algorithm>.dot.
    let dir = std::env::temp_dir().join(format!("ohua-conformance-dot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("OHUA_REPORT", "1");
    std::env::set_var("OHUA_DOT", &dir);
    pipe((0..10).collect());
    let dot = std::fs::read_to_string(dir.join("pipe.dot")).unwrap();
    // The environment's one section per operator.
    assert!(dot.contains(&format!("subgraph cluster_{} ", operators - 1)), "{dot}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::env::remove_var("OHUA_REPORT");
    std::env::remove_var("OHUA_DOT");

    // A misconfigured environment stops the run with a message naming it.
    std::env::set_var("OHUA_WORKERS", "many");
    let err = ohua::reload_config().expect_err("OHUA_WORKERS=many is invalid");
    assert!(err.to_string().contains("OHUA_WORKERS"), "{err}");
    let msg = expect_panic(|| pipe((0..10).collect()));
    assert!(msg.contains("cannot run algorithm `pipe`"), "{msg}");
    assert!(msg.contains("environment variable OHUA_WORKERS"), "{msg}");
    assert!(msg.contains("`many`"), "{msg}");
}
