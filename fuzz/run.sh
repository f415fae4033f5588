#!/usr/bin/env bash
# Fuzz the web server's request parsing for N seconds (default 20), from the
# committed corpus. With cargo-fuzz installed this is
# `cargo fuzz run parse_request --sanitizer none`; without it the target is
# built with the same coverage flags cargo fuzz passes (stable toolchain,
# no sanitizer), which is what CI does.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-20}
# New inputs go to a scratch copy: CI must not grow the committed corpus.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp corpus/parse_request/* "$work"/
if command -v cargo-fuzz >/dev/null; then
    exec cargo fuzz run parse_request --sanitizer none "$work" -- -max_total_time="$seconds"
fi
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# An explicit target, as cargo fuzz does, keeps the flags off build scripts
# and proc macros (they run on the host without libFuzzer's runtime).
host=$(rustc -vV | sed -n 's/^host: //p')
cargo build --release -q --target "$host" --bin parse_request
"${CARGO_TARGET_DIR:-target}"/"$host"/release/parse_request -max_total_time="$seconds" -print_final_stats=1 "$work" 2>&1 | tail -n 12
