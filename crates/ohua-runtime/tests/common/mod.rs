//! Graph shapes shared by the integration tests that plan graphs and draw
//! them (`plan.rs`, `dot.rs`): public API only.

#![allow(dead_code)] // each test binary uses a different subset

pub mod graphs;
