//! The process's configuration (`OHUA_CONFIG`, `OHUA_*`) is read once and
//! kept until `ohua::reload_config()` (issue "What a new user hits first",
//! part 6). Its own test binary: it changes the process environment.

use std::io::Write;

use ohua::algorithm;

fn inc(x: u64) -> u64 {
    x + 1
}
fn dbl(x: u64) -> u64 {
    x * 2
}

#[algorithm]
fn two_stages(xs: Vec<u64>) -> u64 {
    let mut total = 0;
    for x in xs {
        let a = inc(x);
        let b = dbl(a);
        total += b;
    }
    total
}

/// Sections of one plain call (no `with_deployment`).
fn sections_of_a_plain_call() -> usize {
    let (total, reports) = ohua::profile(|| two_stages(vec![1, 2, 3]));
    assert_eq!(total, 18);
    reports.last().expect("a report").sections
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::File::create(path).and_then(|mut f| f.write_all(text.as_bytes())).expect("write config");
}

#[test]
fn the_configuration_is_read_once_and_on_reload() {
    let dir = std::env::temp_dir().join(format!("ohua-config-once-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ohua.toml");
    write(&file, "sections = \"single\"\n");
    std::env::set_var("OHUA_CONFIG", &file);
    ohua::reload_config().expect("valid");
    assert_eq!(sections_of_a_plain_call(), 1);

    // Changed on disk, not reloaded: calls keep the configuration they read.
    write(&file, "sections = \"per-op\"\n");
    assert_eq!(sections_of_a_plain_call(), 1, "the file was read again without a reload");
    ohua::reload_config().expect("valid");
    assert!(sections_of_a_plain_call() > 1, "the reload did not apply the file");

    // An invalid configuration is reported by the reload and by every call.
    write(&file, "workers = 0\n");
    let err = ohua::reload_config().expect_err("workers = 0 is invalid");
    assert!(err.to_string().contains("workers"), "{err}");
    for _ in 0..2 {
        let panic = std::panic::catch_unwind(|| two_stages(vec![1])).expect_err("an invalid configuration");
        let msg = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("ohua.toml") && msg.contains("workers"), "{msg}");
    }
    // An override does not need the process's configuration.
    let d = ohua::Deployment::default().sections(ohua::SectionStrategy::Single);
    assert_eq!(ohua::with_deployment(d, || two_stages(vec![1])), 4);

    std::env::remove_var("OHUA_CONFIG");
    ohua::reload_config().expect("defaults are valid");
    assert_eq!(two_stages(vec![1, 2, 3]), 18);
    let _ = std::fs::remove_dir_all(&dir);
}
