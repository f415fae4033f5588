//! Generated services (`build.rs`, `grammar::service_program`): checkpoint
//! + restore + replay equals the plain program, under every live
//! deployment (`ohua_conformance::check_checkpoint`).

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/services.rs"));
include!(concat!(env!("OUT_DIR"), "/run.rs"));

#[test]
fn checkpoint_restore_and_replay_of_generated_services_equal_sequential() {
    ohua_generated::check_all("service", all_services(), inputs(), SEED, &RUN, env!("CARGO_TARGET_TMPDIR"));
}
