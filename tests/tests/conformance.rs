//! The conformance suite's algorithm tests, one test binary: each file is a
//! module (`constructs::`, `replication::`, ...). As 19 binaries they
//! compiled the runtime's operators for the same port types 19 times and
//! linked 19 times: 490 s of CI's cold release build on 2 cores
//! (BENCHMARKS.md, "CI time"). Files whose tests change the process
//! (environment variables, the configuration file, the worker pool, what
//! the auto planner learned) or resolve `crate::` paths stay binaries of
//! their own (`Cargo.toml`). Run one file's tests with a filter:
//! `cargo test -p ohua-conformance --test conformance -- replication::`.

mod cluster_lanes;
mod constructs;
mod fusion;
mod io_async;
mod io_batching;
mod io_writes;
mod live_checkpoint;
mod live_panics;
mod live_replace;
mod live_rescale;
mod live_rollback;
mod live_state;
mod live_stop;
mod live_structure;
mod live_timeouts;
mod live_update;
mod regressions;
mod replication;
mod responsive;
mod runtime_contract;
mod snapshot_expressions;
mod snapshots;
mod streaming;

/// With `autotests = false` a new file in `tests/` runs only if it is a
/// module above or a `[[test]]` of `Cargo.toml`: no file is left out.
#[test]
fn every_test_file_is_a_module_or_a_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let this = include_str!("conformance.rs");
    let mut files = 0;
    for entry in std::fs::read_dir(root.join("tests")).expect("tests/") {
        let name = entry.expect("an entry").file_name().into_string().expect("a UTF-8 name");
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        files += 1;
        let module = this.contains(&format!("\nmod {stem};"));
        let binary = manifest.contains(&format!("path = \"tests/{name}\""));
        assert!(
            module || binary,
            "tests/{name} runs nowhere: add `mod {stem};` to tests/conformance.rs or a [[test]] to Cargo.toml"
        );
    }
    assert!(files > 20, "{files} files in tests/");
}
