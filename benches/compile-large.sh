#!/usr/bin/env bash
# Build time of one large algorithm (issue 22, part 7): writes a scratch crate
# holding ONE level-graph algorithm of the level-graph benchmark
# (benches/levels: `graph::generate(seed, Params::new(levels, sources, 0))`,
# emitted by `emit_ohua.rs`), builds its dependencies once, then times the
# crate alone (after an edit of src/lib.rs) in the dev and the release
# profile.
#
#   bash benches/compile-large.sh [LEVELS] [SEED] [SOURCES]   # default 20 0 1
#
# REPO=<checkout> measures another checkout's runtime and compiler (an older
# commit in a git worktree, for before/after); the script stays this one.
#
# Prints the algorithm's statements and its build times (wall clock and
# CPU); with PASSES=1 also rustc's own pass times (`-Z time-passes` on the
# nightly toolchain, where it is installed), to see where the time goes:
# macro expansion, type checking, MIR, codegen/LLVM.
# Results go to BENCHMARKS.md ("Compile time").
set -euo pipefail
root=$(cd "${REPO:-$(dirname "$0")/..}" && pwd)
levels=${1:-20}
seed=${2:-0}
sources=${3:-1}
dir=${CARGO_TARGET_DIR:-$root/target}/compile-probe
mkdir -p "$dir/src"
cat > "$dir/Cargo.toml" <<TOML
[package]
name = "compile-probe"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
ohua = { path = "$root/crates/ohua" }
rand = "0.8"
rand_chacha = "0.3"

[build-dependencies]
rand = "0.8"
rand_chacha = "0.3"

# As the workspace builds the macro (its Cargo.toml): optimised in release.
[profile.release.package.ohua-compiler]
opt-level = 3
[profile.release.package.ohua-macros]
opt-level = 3
[profile.release]
debug = false
TOML
cp "$root/Cargo.lock" "$dir/Cargo.lock"
cat > "$dir/build.rs" <<RS
#![allow(dead_code)]
mod graph { include!("$root/benches/levels/src/graph.rs"); }
mod emit_ohua { include!("$root/benches/levels/src/emit_ohua.rs"); }
fn main() {
    let p = graph::generate($seed, &graph::Params::new($levels, $sources, 0.0));
    let module = emit_ohua::module("probe", &p);
    std::fs::write(std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("program.rs"), module).unwrap();
}
RS
# A fresh lib.rs each run; the timed builds append a comment to it, so
# cargo rebuilds the crate whether freshness is judged by mtime or content.
cat > "$dir/src/lib.rs" <<RS
#![allow(dead_code, unused)]
#[path = "$root/benches/levels/src/graph.rs"]
pub mod graph;
#[path = "$root/benches/levels/src/sets.rs"]
pub mod sets;
#[path = "$root/benches/levels/src/runtime.rs"]
pub mod runtime;
use runtime::*;
include!(concat!(env!("OUT_DIR"), "/program.rs"));
RS
cd "$dir"
# Without the incremental cache: an edit of the algorithm itself cannot
# reuse its old code, and a comment appended to lib.rs (below) must not
# look like a free rebuild.
export CARGO_INCREMENTAL=0
echo "== dependencies (not timed)"
cargo build -q 2>&1 | tail -n 3
cargo build -q --release 2>&1 | tail -n 3
program=$(ls -t target/release/build/compile-probe-*/out/program.rs | head -n 1)
stmts=$(grep -cE '^\s*let ' "$program")
fns=$(grep -c '#\[algorithm\]' "$program")
echo "commit  : $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo ' (with local changes)')"
echo "machine : nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "rustc   : $(rustc --version)"
echo "== levels $levels seed $seed sources $sources: $stmts let statements in $fns algorithm function(s)"
for profile in dev release; do
    flag=""; [ "$profile" = release ] && flag="--release"
    echo "// $(date +%s%N)" >> src/lib.rs
    # Wall-clock and CPU seconds (user + system, all of rustc's threads):
    # on a loaded machine the CPU time is the steadier of the two.
    /usr/bin/time -f "%e %U %S" -o "$dir/time.txt" cargo build -q $flag
    read -r wall user sys < "$dir/time.txt"
    printf '%-8s %6.1f s wall %6.1f s CPU\n' "$profile" "$wall" "$(echo "$user + $sys" | bc)"
done
if [ "${PASSES:-0}" = 1 ] && rustup toolchain list 2>/dev/null | grep -q nightly; then
    echo "== rustc passes over 0.5 s (release, nightly)"
    CARGO_TARGET_DIR=target/nightly cargo +nightly rustc -q --release --lib -- -Z time-passes 2>&1 \
        | awk '$1 == "time:" { t = $2 + 0; if (t >= 0.5) print }' | head -n 40
fi
