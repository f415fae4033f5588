//! Generated services (`build.rs`, `grammar::service_program`) fed by a
//! closed-loop client and by a burst followed by a trickle, under every
//! deployment (`ohua_conformance::check_streaming`): every state of a
//! generated service lives in its loop, most of them carried from one
//! iteration to the next (issue 21, part 1).

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/services.rs"));
include!(concat!(env!("OUT_DIR"), "/run.rs"));

#[test]
fn generated_services_answer_streaming_clients_as_sequential_without_holding_requests_back() {
    ohua_generated::check_all("streaming", all_services_streaming(), inputs(), SEED, &RUN, env!("CARGO_TARGET_TMPDIR"));
}
