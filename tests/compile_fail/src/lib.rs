//! What `#[ohua::algorithm]` must reject, each case with the error it
//! produces: `cases/*.rs` and their `.stderr`, checked by trybuild in
//! `tests/rejected.rs`. Nothing here is compiled into a user's program;
//! the crate exists so that trybuild checks the cases against `ohua` alone.
//!
//! Run: `cargo test -p ohua-compile-fail`. After reviewing a changed
//! message, regenerate the expectations with `TRYBUILD=overwrite`.
#![warn(missing_docs)]
