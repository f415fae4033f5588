#!/usr/bin/env bash
# The web server benchmark of issue 12: installs wrk and nginx if missing,
# builds the servers, runs benches/web/src/bin/web_bench.rs.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
    sudo_if() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if apt-get install -y -q wrk nginx-light >/dev/null
fi
# Two builds: `--bin` would restrict both packages to that binary.
cargo build --release -q -p ohua-examples --bin web_server
cargo build --release -q -p ohua-web-bench
exec "${CARGO_TARGET_DIR:-target}"/release/web_bench "$@"
