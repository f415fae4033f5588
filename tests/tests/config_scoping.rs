//! Section rules in `OHUA_CONFIG` are scoped (issue "What a new user hits
//! first", part 7): rules written for one algorithm leave every other
//! algorithm of the process with its own strategy (`auto` unless the file
//! says otherwise) instead of putting it into one section. Two real
//! algorithms, a configuration scoped to one of them; the other's section
//! count comes from its run report. Its own test binary: it changes the
//! process environment, so everything runs in one test, in order.

use std::path::Path;

use ohua::algorithm;

fn inc(x: u64) -> u64 {
    x + 1
}
fn dbl(x: u64) -> u64 {
    x * 2
}
fn sq(x: u64) -> u64 {
    x * x
}

#[algorithm]
fn first(xs: Vec<u64>) -> u64 {
    let mut total = 0;
    for x in xs {
        let a = inc(x);
        let b = dbl(a);
        let c = sq(b);
        total += c;
    }
    total
}

#[algorithm]
fn second(xs: Vec<u64>) -> u64 {
    let mut total = 0;
    for x in xs {
        let a = dbl(x);
        let b = inc(a);
        let c = sq(b);
        total += c;
    }
    total
}

/// Sections of a plain call (the process's configuration) of each
/// algorithm, checking the results against sequential execution.
fn sections() -> (usize, usize) {
    let xs: Vec<u64> = (0..50).collect();
    let want = (ohua::sequential(|| first(xs.clone())), ohua::sequential(|| second(xs.clone())));
    let (a, ra) = ohua::profile(|| first(xs.clone()));
    let (b, rb) = ohua::profile(|| second(xs.clone()));
    assert_eq!((a, b), want, "results differ from sequential execution");
    (ra.last().expect("a report").sections, rb.last().expect("a report").sections)
}

/// Sections of `second` under `auto` with 2 workers, the strategy an
/// algorithm that no rule is written for must keep.
fn second_under_auto() -> usize {
    let d = ohua::Deployment::default().workers(2).sections(ohua::SectionStrategy::Auto);
    let (_, reports) = ohua::profile(|| ohua::with_deployment(d, || second((0..50).collect())));
    reports.last().expect("a report").sections
}

fn use_config(path: &Path, text: &str) -> Result<(), std::sync::Arc<ohua::DeployError>> {
    std::fs::write(path, text).expect("write the config file");
    ohua::reload_config()
}

#[test]
fn rules_for_one_algorithm_leave_the_other_on_auto() {
    let path = std::env::temp_dir().join(format!("ohua-config-scoping-{}.toml", std::process::id()));
    std::env::set_var("OHUA_CONFIG", &path);
    let auto = second_under_auto();
    assert_eq!(auto, 2, "auto on 2 workers cuts this pipeline in two");

    // The process-wide form: two rules that match only `first`'s operators
    // (their sections plus one for the rest); `second` keeps `auto`, where
    // it used to be put into one section.
    use_config(&path, "workers = 2\n[[section]]\nops = [\"first/inc#.*\"]\n[[section]]\nops = [\"first/dbl#.*\"]\n")
        .expect("valid");
    assert_eq!(sections(), (3, auto), "process-wide rules for `first`");

    // A table per algorithm.
    use_config(&path, "workers = 2\n[algorithm.first]\n[[algorithm.first.section]]\nops = [\"first/sq#.*\"]\n")
        .expect("valid");
    assert_eq!(sections(), (2, auto), "[algorithm.first] rules");

    // The process-wide default applies to algorithms without a table.
    use_config(&path, "sections = \"single\"\n[algorithm.first]\nsections = \"per-op\"\n").expect("valid");
    let (first_sections, second_sections) = sections();
    assert!(first_sections > 3, "per-op for `first`: {first_sections}");
    assert_eq!(second_sections, 1, "`single` for the others");

    // A process-wide rule for an algorithm that has its own table would
    // never apply: rejected with where to move it, and every plain call
    // reports the error until a valid configuration is loaded.
    let err = use_config(&path, "[[section]]\nops = [\"first/inc#.*\"]\n[algorithm.first]\nsections = \"single\"\n")
        .expect_err("a shadowed rule");
    assert!(err.to_string().contains("[[algorithm.NAME.section]]"), "{err}");
    let panic = std::panic::catch_unwind(|| second(vec![1])).expect_err("the configuration is invalid");
    let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("ohua-config-scoping") && msg.contains("first/inc"), "{msg}");

    std::env::remove_var("OHUA_CONFIG");
    ohua::reload_config().expect("defaults are valid");
    let _ = std::fs::remove_file(&path);
}
