//! Writes `$OUT_DIR/generated.rs`: `OHUA_GEN_PROGRAMS` (default 300) random
//! algorithms from seed `OHUA_GEN_SEED` (default 1), for `tests/generated.rs`.

#![allow(dead_code)]

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gen/grammar.rs"));

fn main() {
    println!("cargo:rerun-if-env-changed=OHUA_GEN_PROGRAMS");
    println!("cargo:rerun-if-env-changed=OHUA_GEN_SEED");
    println!("cargo:rerun-if-changed=../src/gen/grammar.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let count: usize = std::env::var("OHUA_GEN_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let seed: u64 = std::env::var("OHUA_GEN_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("generated.rs");
    std::fs::write(out, file(seed, count)).unwrap();
}
