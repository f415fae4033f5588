//! Generated programs, part 2 of 5 (`build.rs`, `ohua_generated::check_all`).

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/part2.rs"));
include!(concat!(env!("OUT_DIR"), "/run.rs"));

ohua_generated::part_tests!(2);
