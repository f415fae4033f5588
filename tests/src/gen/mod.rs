//! Generator of random well-formed algorithms for the conformance suite.
//!
//! The grammar lives in `grammar.rs`, shared with `build.rs` (which writes the
//! generated programs into `$OUT_DIR/generated.rs` for `tests/generated.rs`).
//! It is exposed here so a single program can be printed for debugging, e.g.
//! `println!("{}", ohua_conformance::gen::program(1, 42))`.

include!("grammar.rs");
