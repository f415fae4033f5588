#!/usr/bin/env bash
# Ÿauhau's level-graph benchmark (Table 4.2): Ohua against DataLoader
# (npm `dataloader`, the `dataloader` crate). Installs the JavaScript side
# (npm ci) if needed, builds in release and runs; arguments go to the
# binary (`--quick`, `--latency-ms N`, `--slow-ms N`, `--only EXP`, `--no-js`).
# The binary is built with the `all-programs` feature (every program of the
# tables; without it the crate holds only the tests' programs).
# `OHUA_LEVELS_GRAPHS` (default 2) sets the graphs per level count. The
# paper's 20 (about 640 programs) does not build as one crate: rustc
# reached 21 GB after 10 minutes (BENCHMARKS.md). `OHUA_LEVELS_PARTS=n`
# builds the set in n parts (each a build of every nth program,
# `sets::PART`), runs each part with `--rows`, and prints the tables of all
# of them with `--merge`; e.g. `OHUA_LEVELS_GRAPHS=20 OHUA_LEVELS_PARTS=10`.
# The parts' binaries and rows stay in target/levels-parts/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -d "$here/js/node_modules" ]; then
    (cd "$here/js" && npm ci --no-audit --no-fund)
fi
cd "$here/../.."
export OHUA_LEVELS_GRAPHS="${OHUA_LEVELS_GRAPHS:-2}"
parts="${OHUA_LEVELS_PARTS:-1}"
if [ "$parts" -le 1 ]; then
    cargo build --release -p ohua-levels-bench --features all-programs
    cargo run --release -q -p ohua-levels-bench --features all-programs -- "$@"
    exit
fi
dir=target/levels-parts
mkdir -p "$dir"
for ((k = 0; k < parts; k++)); do
    echo "# part $k of $parts: build" >&2
    OHUA_LEVELS_PART="$k/$parts" cargo build --release -q -p ohua-levels-bench --features all-programs
    cp target/release/ohua-levels-bench "$dir/part$k"
    echo "# part $k of $parts: run (its tables in $dir/out$k.md)" >&2
    "$dir/part$k" "$@" --rows "$dir/rows$k" > "$dir/out$k.md"
done
rows=()
for ((k = 0; k < parts; k++)); do rows+=("$dir/rows$k"); done
"$dir/part0" "$@" --merge "${rows[@]}"
