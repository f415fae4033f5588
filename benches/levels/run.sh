#!/usr/bin/env bash
# Ÿauhau's level-graph benchmark (Table 4.2): Ohua against DataLoader
# (npm `dataloader`, the `dataloader` crate). Installs the JavaScript side
# (npm ci) if needed, builds in release and runs; arguments go to the
# binary (`--quick`, `--latency-ms N`, `--slow-ms N`, `--only EXP`, `--no-js`).
# `OHUA_LEVELS_GRAPHS` (default 2) sets the graphs per level count; the
# paper's 20 (about 640 programs) does not build as one crate yet: rustc
# reached 21 GB after 10 minutes (BENCHMARKS.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -d "$here/js/node_modules" ]; then
    (cd "$here/js" && npm ci --no-audit --no-fund)
fi
cd "$here/../.."
export OHUA_LEVELS_GRAPHS="${OHUA_LEVELS_GRAPHS:-2}"
cargo build --release -p ohua-levels-bench
cargo run --release -q -p ohua-levels-bench -- "$@"
