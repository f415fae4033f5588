//! Randomly generated algorithms (see `src/gen/grammar.rs`), each run under
//! every deployment of `ohua_conformance::deployments` and compared with the
//! identical plain-Rust function, results and state call logs included.
//!
//! `OHUA_GEN_PROGRAMS` (default 500) and `OHUA_GEN_SEED` (default 1) choose the
//! programs at build time.

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/generated.rs"));

/// After this long a program is reported as slow; a program normally runs
/// in milliseconds.
const SLOW_SECS: u64 = 20;

/// After this long a program is reported as hung and fails the test. The
/// gap to `SLOW_SECS` is for loaded machines: with several test processes
/// running one-section-per-operator deployments (145 threads for some
/// programs) on 2 cores, one seed-1 program took minutes without hanging,
/// and a wall-clock limit of 20 s reported it as hung.
const HANG_SECS: u64 = 300;

#[test]
fn generated_programs_equal_sequential() {
    let inputs = inputs();
    let programs = all_programs();
    let deployments = ohua_conformance::deployments().len();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ohua-gen-failures");
    let mut failures = Vec::new();
    for (index, source, run) in &programs {
        // Each program runs on its own thread so a hang is reported (and its
        // source saved) instead of stalling the suite.
        let (tx, rx) = std::sync::mpsc::channel();
        let (run, inputs2) = (*run, inputs.clone());
        std::thread::spawn(move || {
            let outcome = std::panic::catch_unwind(|| run(&inputs2)).unwrap_or_else(|e| {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "panic".into());
                Err(format!("panicked: {msg}"))
            });
            let _ = tx.send(outcome);
        });
        let start = std::time::Instant::now();
        let outcome = rx.recv_timeout(std::time::Duration::from_secs(SLOW_SECS)).or_else(|_| {
            let waited = rx.recv_timeout(std::time::Duration::from_secs(HANG_SECS - SLOW_SECS));
            eprintln!("slow program {index} (seed {SEED}): {:.1} s so far", start.elapsed().as_secs_f64());
            waited
        });
        let outcome = outcome.unwrap_or_else(|_| Err(format!("hung: no result after {HANG_SECS}s")));
        if let Err(msg) = outcome {
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("seed{SEED}_p{index}.rs"));
            std::fs::write(&path, source).unwrap();
            eprintln!("FAILED program {index} (seed {SEED}), source in {}: {msg}", path.display());
            failures.push(*index);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} generated programs failed (seed {SEED}): {failures:?}",
        failures.len(),
        programs.len()
    );
    println!(
        "{} programs x {} deployments: all equal to sequential (seed {SEED}, {} inputs each)",
        programs.len(),
        deployments,
        inputs.len()
    );
}
