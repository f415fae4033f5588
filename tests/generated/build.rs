//! Writes `$OUT_DIR/part{0..5}.rs`: `OHUA_GEN_PROGRAMS` (default 40) random
//! algorithms from seed `OHUA_GEN_SEED` (default: derived from the commit,
//! see [`commit_seed`]), a fifth in each, for `tests/part{0..5}.rs`. Five test
//! crates instead of one: rustc's memory grows with the programs in one crate
//! (500 in one took 21.7 GB), and two parts compile side by side on two
//! cores. `services.rs`: `OHUA_GEN_SERVICES` (default 12) generated services
//! for `tests/checkpoint.rs` and `tests/streaming.rs`. `corpus.rs`: the
//! programs kept in `corpus/` (programs that once failed), for
//! `tests/corpus.rs`. `run.rs`: where the seed came from and the command
//! that replays this run.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

include!(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gen/grammar.rs"));

fn main() {
    println!("cargo:rerun-if-env-changed=OHUA_GEN_PROGRAMS");
    println!("cargo:rerun-if-env-changed=OHUA_GEN_SEED");
    println!("cargo:rerun-if-env-changed=OHUA_GEN_SERVICES");
    println!("cargo:rerun-if-changed=../src/gen/grammar.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=corpus");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let count: usize = env_number("OHUA_GEN_PROGRAMS").unwrap_or(40);
    let services: usize = env_number("OHUA_GEN_SERVICES").unwrap_or(12);
    let (seed, origin) = match env_number("OHUA_GEN_SEED") {
        Some(seed) => (seed, "OHUA_GEN_SEED".to_string()),
        None => match commit_seed(&manifest_dir) {
            Some((seed, commit)) => (seed, format!("commit {commit}")),
            None => (1, "no git checkout: the default".to_string()),
        },
    };
    const PARTS: usize = 5;
    for part in 0..PARTS {
        let range = part * count / PARTS..(part + 1) * count / PARTS;
        std::fs::write(out_dir.join(format!("part{part}.rs")), file_of(seed, range)).unwrap();
    }
    std::fs::write(out_dir.join("services.rs"), service_file(seed, 0..services)).unwrap();
    std::fs::write(out_dir.join("corpus.rs"), corpus_file(&corpus(&manifest_dir.join("corpus")))).unwrap();
    let replay = format!("OHUA_GEN_SEED={seed} OHUA_GEN_PROGRAMS={count} OHUA_GEN_SERVICES={services}");
    std::fs::write(
        out_dir.join("run.rs"),
        format!(
            "/// How this build chose its programs, and the command that rebuilds the same ones.\n\
             pub const RUN: ohua_generated::Run = ohua_generated::Run {{ seed: {seed}, origin: {origin:?}, replay: {replay:?} }};\n"
        ),
    )
    .unwrap();
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok())
}

/// The seed of a build that names none: the commit's hash, its first 7 hex
/// digits read as a number (so every commit checks other programs, and the
/// seed is the short hash in decimal). `None` outside a git checkout or
/// without `git`. The build script reruns when HEAD moves.
fn commit_seed(dir: &Path) -> Option<(u64, String)> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let hash = git(&["rev-parse", "HEAD"])?;
    let short = hash.get(..7)?;
    let seed = u64::from_str_radix(short, 16).ok()?;
    // HEAD itself, the branch it points to, and the packed refs: a commit,
    // checkout or rebase changes one of them. A path that does not exist
    // would make cargo rerun the script on every build, so only existing
    // ones are named.
    let mut watched =
        vec![git(&["rev-parse", "--git-path", "HEAD"])?, git(&["rev-parse", "--git-path", "packed-refs"])?];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.extend(git(&["rev-parse", "--git-path", &branch]));
    }
    for path in watched {
        let path = dir.join(path);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    Some((seed, short.to_string()))
}

/// The corpus: every `seed{S}_program{I}.rs` in `dir`, as `check_all` saves
/// a failing program, sorted by seed and number.
fn corpus(dir: &Path) -> Vec<(u64, usize, String)> {
    let mut programs = Vec::new();
    for entry in std::fs::read_dir(dir).expect("tests/generated/corpus exists") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_prefix("seed").and_then(|n| n.strip_suffix(".rs")) else {
            continue;
        };
        let (seed, index) = stem
            .split_once("_program")
            .and_then(|(s, i)| Some((s.parse().ok()?, i.parse().ok()?)))
            .unwrap_or_else(|| panic!("corpus file {name}: expected seed{{S}}_program{{I}}.rs"));
        programs.push((seed, index, std::fs::read_to_string(&path).unwrap()));
    }
    programs.sort_by_key(|(seed, index, _)| (*seed, *index));
    programs
}
