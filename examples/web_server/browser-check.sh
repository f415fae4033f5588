#!/usr/bin/env bash
# A real browser against the web server: headless Chromium loads the
# generated index page, whose script reports whether its image loaded.
# Installs Debian's chromium if it is missing. Exit status 0 only if the
# page and the image were served and rendered.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
    sudo_if() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if apt-get install -y -q chromium >/dev/null || { sudo_if apt-get update -q >/dev/null && sudo_if apt-get install -y -q chromium >/dev/null; }
fi
server_bin="${CARGO_TARGET_DIR:-target}/release/web_server"
# `--no-build` (CI): the server as the README's test command built it (cargo
# builds a package's binaries for its tests), built here only if missing. A
# `cargo build` resolves other features than a `cargo test`
# (dev-dependencies), so it built the runtime and the server again: 2
# minutes of CI.
if [ "${1:-}" != "--no-build" ] || [ ! -x "$server_bin" ]; then
    cargo build --release -q -p ohua-examples --bin web_server
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
log=$(mktemp)
"$server_bin" --port "$port" --seconds 60 >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
up=
for _ in $(seq 100); do
    if curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null; then up=1; break; fi
    sleep 0.1
done
if [ -z "$up" ]; then
    echo "browser check FAILED: the web server did not answer within 10 s; its output:"
    cat "$log"
    exit 1
fi
profile=$(mktemp -d)
dom=$(timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --virtual-time-budget=5000 --dump-dom "http://127.0.0.1:$port/" 2>/dev/null)
rm -rf "$profile"
if grep -q '<p id="status">image loaded</p>' <<<"$dom"; then
    echo "browser check: headless Chromium loaded the page and its image from the Ohua web server"
else
    echo "browser check FAILED: the page's status is not 'image loaded':"
    echo "$dom" | head -20
    exit 1
fi
