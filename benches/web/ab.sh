#!/usr/bin/env bash
# A/B of two builds of the web server under wrk, alternating, each on the
# generated document root (`web_server` without `--root`).
#
#   benches/web/ab.sh BEFORE_BIN AFTER_BIN CONNECTIONS PATH [ROUNDS]
#
# e.g. benches/web/ab.sh /work/ab-target/release/web_server \
#        target/release/web_server 64 /small.html 3
# prints, per round and build: p50, p99 and requests/s of a 3 s wrk run.
set -euo pipefail
before=$1 after=$2 conns=$3 path=$4 rounds=${5:-3}
threads=$([ "$conns" -ge 2 ] && echo 2 || echo 1)
port=18100
for round in $(seq 1 "$rounds"); do
    for bin in "$before" "$after"; do
        port=$((port + 1))
        "$bin" --port "$port" --seconds 5 >/dev/null 2>&1 &
        sleep 0.7
        result=$(wrk -t"$threads" -c"$conns" -d3s --latency "http://127.0.0.1:$port$path" 2>&1 |
            grep -E "Requests/sec|  50%|  99%" | awk '{print $2}' | tr '\n' ' ')
        echo "round $round $bin c=$conns $path: p50 p99 req/s = $result"
        wait
    done
done
