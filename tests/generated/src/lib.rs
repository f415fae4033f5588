//! Randomly generated algorithms checked against sequential Rust.
//!
//! `build.rs` writes the programs (grammar in `../src/gen/grammar.rs`);
//! `tests/generated.rs` runs them. This crate is built without optimisation
//! (see the workspace's `[profile.release.package.ohua-generated]`): hundreds
//! of generated graphs compile in minutes instead of an hour, and the programs
//! are tiny, so only correctness is measured here.
