//! Randomly generated algorithms checked against sequential Rust.
//!
//! `build.rs` writes the programs (grammar in `../src/gen/grammar.rs`) in
//! five parts; `tests/part{0..5}.rs` run them with [`check_all`]. This crate
//! is built without optimisation (see the workspace's
//! `[profile.release.package.ohua-generated]`): hundreds of generated graphs
//! compile in minutes instead of an hour, and the programs are tiny, so only
//! correctness is measured here.

mod cluster;

/// The tests of a part of the generated programs (`tests/part{N}.rs`,
/// after it includes its programs and `run.rs`): every program against
/// sequential under every deployment ([`check_all`]), and the part's
/// `cluster` programs on a real cluster ([`check_on_cluster`]).
#[macro_export]
macro_rules! part_tests {
    ($part:literal) => {
        #[test]
        fn generated_programs_equal_sequential() {
            $crate::check_all("program", all_programs(), inputs(), SEED, &RUN, env!("CARGO_TARGET_TMPDIR"));
        }

        #[test]
        fn cluster_programs_on_2_or_3_processes_equal_sequential() {
            $crate::check_on_cluster(
                "cluster_programs_on_2_or_3_processes_equal_sequential",
                $part,
                cluster_programs(),
                inputs(),
                &RUN,
            );
        }
    };
}

pub use cluster::{check_on_cluster, ClusterProgram};

/// How a build chose its programs (`build.rs` writes one into `run.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The generator's seed.
    pub seed: u64,
    /// Where the seed came from: `OHUA_GEN_SEED`, or the commit it was derived from.
    pub origin: &'static str,
    /// The environment that rebuilds the same programs and services.
    pub replay: &'static str,
}

impl Run {
    /// The command that builds and checks this run's programs again.
    pub fn replay_command(&self) -> String {
        format!("{} cargo test --release -p ohua-generated", self.replay)
    }
}

/// A generated program's check: runs it on the inputs under every
/// deployment and compares with its plain-Rust twin.
pub type Program = fn(&[(Vec<i64>, i64)]) -> Result<(), String>;

/// After this long a program is reported as slow; a program normally runs
/// in milliseconds.
const SLOW_SECS: u64 = 20;

/// After this long a program is reported as hung and fails the test. The
/// gap to `SLOW_SECS` is for loaded machines: with several test processes
/// running one-section-per-operator deployments (145 threads for some
/// programs) on 2 cores, one seed-1 program took minutes without hanging,
/// and a wall-clock limit of 20 s reported it as hung.
const HANG_SECS: u64 = 300;

/// Run every program of `programs` (a part of a seed's programs) on
/// `inputs` under every deployment and against sequential, each on its own
/// thread so a hang is reported, and fail with the list of failures.
///
/// # Panics
///
/// If a program fails, panics or hangs (its source is saved under
/// `target_tmp`).
pub fn check_all(
    kind: &str,
    programs: Vec<(usize, &'static str, Program)>,
    inputs: Vec<(Vec<i64>, i64)>,
    seed: u64,
    run: &Run,
    target_tmp: &str,
) {
    println!(
        "{} generated {kind}s of seed {seed} ({}); to replay: {}",
        programs.len(),
        run.origin,
        run.replay_command()
    );
    // Services run under the live-update deployments (`check_checkpoint`).
    let deployments = match kind {
        "service" => ohua_conformance::live_deployments().len(),
        _ => ohua_conformance::deployments().len(),
    };
    let dir = std::path::Path::new(target_tmp).join("ohua-gen-failures");
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
            eprintln!("slow program {index} (seed {seed}): {:.1} s so far", start.elapsed().as_secs_f64());
            waited
        });
        let outcome = outcome.unwrap_or_else(|_| Err(format!("hung: no result after {HANG_SECS}s")));
        if let Err(msg) = outcome {
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("seed{seed}_{kind}{index}.rs"));
            std::fs::write(&path, source).unwrap();
            eprintln!("FAILED {kind} {index} (seed {seed}), source in {}: {msg}", path.display());
            failures.push(*index);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} generated {kind}s failed (seed {seed}): {failures:?}; replay with `{}`, and keep a \
         program that found a bug by copying its saved source into tests/generated/corpus/",
        failures.len(),
        programs.len(),
        run.replay_command()
    );
    println!(
        "{} {kind}s x {} deployments: all equal to sequential (seed {seed}, {} inputs each)",
        programs.len(),
        deployments,
        inputs.len()
    );
}
