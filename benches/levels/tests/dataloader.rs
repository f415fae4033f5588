//! The DataLoader variants compute the sequential reference and never
//! beat the chain bound: the `dataloader` crate, and npm `dataloader`
//! (the test runs `npm ci` in `js/` first if `js/node_modules` is missing;
//! it is skipped, saying so, only on a machine without node and npm).

use std::path::PathBuf;
use std::time::Duration;

use ohua_levels_bench::dl_rs::{self, Style};
use ohua_levels_bench::graph::{generate, Params, Program, ALL_SOURCES};
use ohua_levels_bench::{emit_js, run_js};

const X: u64 = 99;

fn programs() -> Vec<(String, Program)> {
    let mut out = Vec::new();
    for (levels, sources, p_sub) in [(3, 1, 0.0), (6, 1, 0.3), (8, 3, 0.0), (12, 3, 0.2)] {
        for seed in 0..2 {
            let p = generate(seed, &Params::new(levels, sources, p_sub));
            out.push((format!("t_l{levels}_s{sources}_n{seed}"), p));
        }
    }
    out
}

fn within(calls: [u64; ALL_SOURCES], p: &Program, what: &str) {
    let (optimum, io) = (p.optimum(), p.io_nodes());
    for s in 0..ALL_SOURCES {
        assert!(optimum[s] <= calls[s] && calls[s] <= io[s], "{what}: {calls:?} not within {optimum:?} ..= {io:?}");
    }
}

#[test]
fn dataloader_rs_equals_the_reference() {
    let latency = [Duration::from_millis(1); ALL_SOURCES];
    for (name, p) in programs() {
        for style in [Style::Sequential, Style::Join] {
            let o = dl_rs::run(&p, style, &latency, X);
            assert_eq!(o.result, p.eval(X), "{name} {style:?}");
            within(o.calls, &p, &format!("{name} {style:?}"));
        }
    }
}

#[test]
fn dataloader_js_equals_the_reference() {
    let js = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("js");
    let has = |tool: &str| std::process::Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    if !has("node") || !has("npm") {
        eprintln!("skipped: this machine has no node/npm to run the npm `dataloader` variants");
        return;
    }
    if !js.join("node_modules").exists() {
        // The lockfile pins the packages; the benchmark's run.sh does the same.
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&js)
            .status()
            .expect("npm runs");
        assert!(status.success(), "`npm ci` in {} failed", js.display());
    }
    let programs = programs();
    let outcomes = run_js(&js, &emit_js::file(&programs), &[1.0; ALL_SOURCES], X);
    assert_eq!(outcomes.len(), 2 * programs.len());
    for o in outcomes {
        let (_, p) = programs.iter().find(|(n, _)| *n == o.name).expect("a program's name");
        assert_eq!(o.result, p.eval(X).to_string(), "{} {}", o.name, o.style);
        within(o.calls, p, &format!("{} {}", o.name, o.style));
    }
}
