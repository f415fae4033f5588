//! `calls`: the fixed cost of one call of a small algorithm.
//!
//! A server that runs an algorithm per request pays, per call, for planning
//! the deployment, building the graph, starting the sections and waiting for
//! them. This benchmark calls a 3-stage pipeline over 16 items 2,000 times
//! in a row and reports microseconds per call, against the same body as plain
//! Rust and a hand-written 2-thread version that starts its second thread
//! per call (`std::thread::scope`). A *plain* call (no `with_deployment`)
//! reads the process's configuration, once per process (issue 9, part 6);
//! it is compared with the same deployment passed prebuilt, in the same
//! interleaved rounds, with the defaults and with rules from a file.

use crossbeam_channel::bounded;
use ohua::{algorithm, Deployment, SectionRule, SectionStrategy};

use crate::common::{header, interleaved, row, stage, Variant};

const CALLS: usize = 2_000;
const ITEMS: u64 = 16;

/// The algorithm called (also `first_call.rs`'s).
#[algorithm]
pub(crate) fn small(xs: Vec<u64>) -> u64 {
    let mut total = 0;
    for x in xs {
        let a = stage(x);
        let b = stage(a);
        total += b;
    }
    total
}

/// The first stage on a thread started for this call, the second and the
/// sum on the calling thread.
fn hand_written(xs: Vec<u64>) -> u64 {
    let (tx, rx) = bounded::<u64>(64);
    std::thread::scope(|s| {
        s.spawn(move || {
            for x in xs {
                tx.send(stage(x)).expect("receiver alive");
            }
        });
        rx.iter().map(stage).sum()
    })
}

fn calls(f: &mut dyn FnMut(Vec<u64>) -> u64) -> u64 {
    (0..CALLS).map(|_| f((0..ITEMS).collect())).sum()
}

pub fn run() {
    header("calls", "fixed cost per call: a 3-stage loop over 16 items, 2,000 calls in a row");
    let expected = CALLS as u64 * (0..ITEMS).map(|x| x + 2).sum::<u64>();
    let single = Deployment::default().workers(1).sections(SectionStrategy::Single);
    let auto = Deployment::default().workers(2).sections(SectionStrategy::Auto);
    // What a plain call reads when no variable or file is set.
    let default = Deployment::default();
    let rules = two_sections_by_rules();
    let mut variants: Vec<Variant<'_, (), u64>> = vec![
        ("plain Rust (ohua::sequential)", Box::new(|()| calls(&mut |v| ohua::sequential(|| small(v))))),
        ("hand-written 2 threads, spawned per call", Box::new(|()| calls(&mut hand_written))),
        ("ohua 1 section", Box::new(|()| calls(&mut |v| ohua::with_deployment(single.clone(), || small(v))))),
        ("ohua auto, 2 workers", Box::new(|()| calls(&mut |v| ohua::with_deployment(auto.clone(), || small(v))))),
        ("ohua 2 sections by rules", Box::new(|()| calls(&mut |v| ohua::with_deployment(rules.clone(), || small(v))))),
        (
            "ohua prebuilt Deployment::default()",
            Box::new(|()| calls(&mut |v| ohua::with_deployment(default.clone(), || small(v)))),
        ),
        // No override: the process's configuration (read once; here the
        // defaults, the same deployment as the previous row).
        ("ohua plain call (process config: defaults)", Box::new(|()| calls(&mut small))),
    ];
    let times = interleaved(|| (), &mut variants, |label, r| assert_eq!(*r, expected, "{label}: wrong result"));
    println!("  {:<44} {:>14}", "variant", "us/call");
    for ((label, _), t) in variants.iter().zip(&times) {
        row(label, format!("{:.1}", t.as_secs_f64() * 1e6 / CALLS as f64), String::new());
    }
    println!("ratios:");
    let ratio = |a: usize, b: usize| format!("{:.2}x", times[a].as_secs_f64() / times[b].as_secs_f64());
    row("plain call / prebuilt default deployment", ratio(6, 5), "target <= 1.2x".into());
    row("plain call / prebuilt auto, 2 workers", ratio(6, 3), String::new());
    rules_from_the_config_file(expected, &rules);
    println!();
}

/// Two sections: the input side and the first stage, then the rest.
fn two_sections_by_rules() -> Deployment {
    let rule = SectionRule::new(["^small/(xs#arg|smap@[0-9]+|stage#2)$"]).expect("valid");
    Deployment::default().workers(2).sections(SectionStrategy::Rules(vec![rule]))
}

/// A plain call with the section rules in an `OHUA_CONFIG` file (it cost
/// 210 us per call when the file was read per call), interleaved with the
/// same rules passed with `with_deployment`.
fn rules_from_the_config_file(expected: u64, rules: &Deployment) {
    let path = std::env::temp_dir().join(format!("ohua-bench-calls-{}.toml", std::process::id()));
    std::fs::write(
        &path,
        r#"workers = 2
[[section]]
ops = ["^small/(xs#arg|smap@[0-9]+|stage#2)$"]
"#,
    )
    .expect("write the config file");
    // Set before any algorithm reads the environment on another thread; the
    // benchmark's own calls all come from this thread.
    std::env::set_var("OHUA_CONFIG", &path);
    ohua::reload_config().expect("a valid config file");
    let mut variants: Vec<Variant<'_, (), u64>> = vec![
        (
            "ohua 2 sections by rules (prebuilt)",
            Box::new(|()| calls(&mut |v| ohua::with_deployment(rules.clone(), || small(v)))),
        ),
        ("ohua plain call (rules in OHUA_CONFIG)", Box::new(|()| calls(&mut small))),
    ];
    let times = interleaved(|| (), &mut variants, |label, r| assert_eq!(*r, expected, "{label}: wrong result"));
    std::env::remove_var("OHUA_CONFIG");
    ohua::reload_config().expect("defaults");
    let _ = std::fs::remove_file(&path);
    for ((label, _), t) in variants.iter().zip(&times) {
        row(label, format!("{:.1} us/call", t.as_secs_f64() * 1e6 / CALLS as f64), String::new());
    }
    let ratio = times[1].as_secs_f64() / times[0].as_secs_f64();
    row("plain call with file rules / prebuilt rules", format!("{ratio:.2}x"), "target <= 1.2x".into());
}
