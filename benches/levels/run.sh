#!/usr/bin/env bash
# Ÿauhau's level-graph benchmark (Table 4.2): Ohua against DataLoader
# (npm `dataloader`, the `dataloader` crate). Installs the JavaScript side
# (npm ci) if needed, builds in release and runs; arguments go to the
# binary (`--quick`, `--latency-ms N`, `--slow-ms N`, `--only EXP`, `--no-js`).
# `OHUA_LEVELS_GRAPHS` (default 20, the paper's) sets the graphs per level count.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -d "$here/js/node_modules" ]; then
    (cd "$here/js" && npm ci --no-audit --no-fund)
fi
cd "$here/../.."
# The paper's set: 20 graphs per level count (about 640 programs, built in
# release; `OHUA_LEVELS_GRAPHS=2` builds the test suite's 68 in minutes).
export OHUA_LEVELS_GRAPHS="${OHUA_LEVELS_GRAPHS:-20}"
cargo build --release -p ohua-levels-bench
cargo run --release -q -p ohua-levels-bench -- "$@"
