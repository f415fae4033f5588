//! Generated programs, part 0 of 5 (`build.rs`, `ohua_generated::check_all`).

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/part0.rs"));
include!(concat!(env!("OUT_DIR"), "/run.rs"));

#[test]
fn generated_programs_equal_sequential() {
    ohua_generated::check_all("program", all_programs(), inputs(), SEED, &RUN, env!("CARGO_TARGET_TMPDIR"));
}

#[test]
fn cluster_programs_on_2_or_3_processes_equal_sequential() {
    ohua_generated::check_on_cluster(
        "cluster_programs_on_2_or_3_processes_equal_sequential",
        0,
        cluster_programs(),
        inputs(),
        &RUN,
    );
}
