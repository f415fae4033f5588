//! The regression corpus: generated programs kept verbatim in
//! `tests/generated/corpus/` (programs that once failed, saved by
//! `ohua_generated::check_all`), checked like the generated ones on their
//! own seed's inputs. Every run checks them, whatever seed the run draws.

// Generated programs are random code: rustc and clippy style lints do not apply.
#![allow(unused, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
include!(concat!(env!("OUT_DIR"), "/run.rs"));

#[test]
fn programs_of_the_regression_corpus_equal_sequential() {
    let corpus = corpus_programs();
    assert!(!corpus.is_empty(), "tests/generated/corpus/ holds no program");
    let mut seeds: Vec<u64> = corpus.iter().map(|(seed, ..)| *seed).collect();
    seeds.dedup();
    for seed in seeds {
        let programs =
            corpus.iter().filter(|p| p.0 == seed).map(|&(_, index, source, run)| (index, source, run)).collect();
        ohua_generated::check_all(
            "program",
            programs,
            ohua_conformance::gen::inputs(seed),
            seed,
            &RUN,
            env!("CARGO_TARGET_TMPDIR"),
        );
    }
}
