//! Writes `$OUT_DIR/part{0..5}.rs`: `OHUA_GEN_PROGRAMS` (default 500) random
//! algorithms from seed `OHUA_GEN_SEED` (default 1), a fifth in each, for
//! `tests/part{0..5}.rs`. Five test crates instead of one: rustc's memory
//! grows with the programs in one crate (500 in one took 21.7 GB), and two
//! parts compile side by side on two cores. And `services.rs`:
//! `OHUA_GEN_SERVICES` (default 24) generated services for
//! `tests/checkpoint.rs`.

#![allow(dead_code)]

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gen/grammar.rs"));

fn main() {
    println!("cargo:rerun-if-env-changed=OHUA_GEN_PROGRAMS");
    println!("cargo:rerun-if-env-changed=OHUA_GEN_SEED");
    println!("cargo:rerun-if-env-changed=OHUA_GEN_SERVICES");
    println!("cargo:rerun-if-changed=../src/gen/grammar.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let count: usize = std::env::var("OHUA_GEN_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(500);
    let seed: u64 = std::env::var("OHUA_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    const PARTS: usize = 5;
    for part in 0..PARTS {
        let range = part * count / PARTS..(part + 1) * count / PARTS;
        let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join(format!("part{part}.rs"));
        std::fs::write(out, file_of(seed, range)).unwrap();
    }
    let services: usize = std::env::var("OHUA_GEN_SERVICES").ok().and_then(|s| s.parse().ok()).unwrap_or(24);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("services.rs");
    std::fs::write(out, service_file(seed, 0..services)).unwrap();
}
