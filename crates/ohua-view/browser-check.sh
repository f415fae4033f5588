#!/usr/bin/env bash
# The live view in a real browser (issue 26): headless Chromium loads the
# page of a running process (examples' `live_view`: a service that gets
# updated while it runs, and a batch algorithm called over and over) and
# the page of a saved report (`ohua view FILE`), and the script checks
# what the page drew against the process's JSON: the number of operators
# and sections, points in the throughput plot, the update on the time
# axis. Screenshots go to target/view-check/ for review. Installs Debian's
# chromium if it is missing. Exit status 0 only if every check passed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null; then
    sudo_if() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    sudo_if apt-get install -y -q chromium >/dev/null || { sudo_if apt-get update -q >/dev/null && sudo_if apt-get install -y -q chromium >/dev/null; }
fi
bin="${CARGO_TARGET_DIR:-target}/release"
# `--no-build` (CI): the binaries as the README's test command built them
# (the examples' integration tests build their programs), built here only
# if missing.
if [ "${1:-}" != "--no-build" ] || [ ! -x "$bin/live_view" ]; then
    cargo build --release -q -p ohua-examples --bin live_view
fi
if [ "${1:-}" != "--no-build" ] || [ ! -x "$bin/ohua" ]; then
    cargo build --release -q -p ohua-cli --bin ohua
fi
out="${CARGO_TARGET_DIR:-target}/view-check"
mkdir -p "$out"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
saved=$(mktemp -d)
log=$(mktemp)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$saved" "$log"; }
trap cleanup EXIT
fail() { echo "view check FAILED: $*"; exit 1; }

# Poll the JSON until `condition` (Python, over `v`, the document) holds.
wait_json() {
    local url=$1 condition=$2
    for _ in $(seq 300); do
        if curl -fsS "$url/api/view" 2>/dev/null | python3 -c "import json,sys; v=json.load(sys.stdin); sys.exit(0 if ($condition) else 1)" 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}
json() { curl -fsS "$1/api/view" | python3 -c "import json,sys; v=json.load(sys.stdin); print($2)"; }
chrome() {
    local profile
    profile=$(mktemp -d)
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --window-size=1400,1000 --virtual-time-budget=4000 "$@" 2>/dev/null
    rm -rf "$profile"
}
# The value of attribute $2 on the first element of the dumped DOM $1 that has id $3 (or on <body>).
attr() { grep -o "<${3:-body}[^>]*>" <<<"$1" | head -1 | grep -o "$2=\"[^\"]*\"" | cut -d'"' -f2; }

# 1. A running process.
port=$(free_port)
url="http://127.0.0.1:$port"
OHUA_VIEW_SAVE="$saved" "$bin/live_view" --view "127.0.0.1:$port" --seconds 12 --update-after 2 >"$log" 2>&1 &
pids+=($!)
wait_json "$url" "any(r['algorithm'] == 'classifier' and any(e['kind'] == 'update' for e in r['events']) and len(r['series']['t_s']) >= 2 and any(p is not None for p in r['series']['p50_ms']) for r in v['runs'])" \
    || { cat "$log"; fail "the process's view never showed the service's update, two throughput samples and a latency probe"; }
ops=$(json "$url" "[r for r in v['runs'] if r['algorithm'] == 'classifier'][0]['operators'].__len__()")
sections=$(json "$url" "[r for r in v['runs'] if r['algorithm'] == 'classifier'][0]['sections']")
dom=$(chrome --dump-dom "$url/#classifier")
chrome --screenshot="$out/live-service.png" "$url/#classifier/3" >/dev/null
[ "$(attr "$dom" data-operators)" = "$ops" ] || fail "the page drew $(attr "$dom" data-operators) operators of the service, its data has $ops"
[ "$(attr "$dom" data-sections)" = "$sections" ] || fail "the page shows $(attr "$dom" data-sections) sections, the data has $sections"
[ "$(attr "$dom" data-running)" = true ] || fail "the service is not shown as running"
drawn=$(grep -o '<g class="op[^"]*" id="op-' <<<"$dom" | wc -l)
[ "$drawn" = "$ops" ] || fail "the graph has $drawn operator boxes, the data $ops operators"
points=$(attr "$dom" data-points 'svg id="plot-throughput"')
[ "${points:-0}" -ge 1 ] || fail "the throughput plot has no points"
events=$(attr "$dom" data-events 'svg id="plot-throughput"')
[ "${events:-0}" -ge 1 ] || fail "the update is not on the time axis"
grep -q 'class="event update"' <<<"$dom" || fail "the update is not in the list of events"
probes=$(attr "$dom" data-points 'svg id="plot-latency"')
[ "${probes:-0}" -ge 1 ] || fail "the running service's latency plot has no points"
# The operator the fragment selects: its file and line in the source, and
# its input queue's fill.
op=$(json "$url" "[o for o in [r for r in v['runs'] if r['algorithm'] == 'classifier'][0]['operators'] if o['kind'] == 'call' and o['line'] and o['queue_fill'] is not None][0]['id']")
line=$(json "$url" "[r for r in v['runs'] if r['algorithm'] == 'classifier'][0]['operators'][$op]['line']")
dom=$(chrome --dump-dom "$url/#classifier/$op")
grep -q "<span id=\"where\">[^<]*live_view.rs:$line<" <<<"$dom" || fail "operator $op's details do not name live_view.rs:$line"
grep -q "queue fill</dt><dd>[0-9]* %" <<<"$dom" || fail "operator $op's details show no queue fill"
echo "view check: the running service's page: $ops operators in $sections sections, $points throughput and $probes latency points, $events event(s) on the time axis, operator $op at live_view.rs:$line"
# The batch algorithm: latency points from its many calls.
dom=$(chrome --dump-dom "$url/#checksums")
latency=$(attr "$dom" data-points 'svg id="plot-latency"')
[ "${latency:-0}" -ge 1 ] || fail "the batch algorithm's latency plot has no points"
chrome --screenshot="$out/live-calls.png" "$url/#checksums" >/dev/null
echo "view check: the batch algorithm's page: $latency latency points"

# 2. A saved report, after the process ended.
wait "${pids[0]}" || { cat "$log"; fail "live_view failed (its results against sequential execution?)"; }
grep -q "results equal: yes" "$log" || { cat "$log"; fail "live_view's results differ from sequential execution"; }
[ -s "$saved/checksums.json" ] || fail "OHUA_VIEW_SAVE wrote no checksums.json"
port=$(free_port)
url="http://127.0.0.1:$port"
"$bin/ohua" view "$saved/checksums.json" --addr "127.0.0.1:$port" --seconds 60 >"$log" 2>&1 &
pids+=($!)
wait_json "$url" "len(v['runs']) == 1" || { cat "$log"; fail "ohua view did not serve the saved report"; }
ops=$(json "$url" "len(v['runs'][0]['operators'])")
sections=$(json "$url" "v['runs'][0]['sections']")
dom=$(chrome --dump-dom "$url/")
chrome --screenshot="$out/saved-report.png" "$url/" >/dev/null
[ "$(attr "$dom" data-operators)" = "$ops" ] || fail "the saved report's page drew $(attr "$dom" data-operators) operators, the file has $ops"
[ "$(attr "$dom" data-sections)" = "$sections" ] || fail "the saved report's page shows $(attr "$dom" data-sections) sections, the file $sections"
grep -q 'saved report' <<<"$dom" || fail "the page does not say it shows a saved report"
echo "view check: the saved report's page: $ops operators in $sections sections"

# 3. A large graph: 200 operators in 8 sections, laid out and drawn.
python3 - "$saved/large.json" <<'PY'
import json, sys
ops = [dict(id=i, name=f"large/f{i}#{i}", kind="call", label=f"f{i}(x)", depth=i % 3, section=i // 25,
            replicas=1, replica_sections=[], fused_into=None, firings=1000 + i, busy_ms=float(i),
            busy_pct=float(i % 100), items_per_s=1000.0, queue_fill=None) for i in range(200)]
arcs = [dict(src=i - 1 - (i % 7 == 0) * 5, to=i, feedback=False) for i in range(1, 200)]
arcs = [dict(**{"from": max(a.pop("src"), 0)}, **a) for a in arcs]
run = dict(algorithm="large", running=False, calls=1, wall_ms=10.0, sections=8, operators=ops, arcs=arcs,
           io=[], events=[], series=dict(t_s=[], items_per_s=[], runs=[], p50_ms=[], p99_ms=[]),
           snapshots=dict(taken=0, copies=0), panicked=None)
json.dump(dict(schema=1, live=False, now_s=0.0, runs=[run]), open(sys.argv[1], "w"))
PY
port=$(free_port)
url="http://127.0.0.1:$port"
"$bin/ohua" view "$saved/large.json" --addr "127.0.0.1:$port" --seconds 60 >"$log" 2>&1 &
pids+=($!)
wait_json "$url" "len(v['runs'][0]['operators']) == 200" || { cat "$log"; fail "ohua view did not serve the large report"; }
dom=$(chrome --dump-dom "$url/")
chrome --screenshot="$out/large-graph.png" "$url/" >/dev/null
[ "$(attr "$dom" data-operators)" = 200 ] || fail "the large graph's page drew $(attr "$dom" data-operators) of 200 operators"
[ "$(attr "$dom" data-groups)" = 8 ] || fail "the large graph's page drew $(attr "$dom" data-groups) of 8 section boxes"
drawn=$(grep -o '<g class="op[^"]*" id="op-' <<<"$dom" | wc -l)
[ "$drawn" = 200 ] || fail "the large graph has $drawn operator boxes"
echo "view check: a 200-operator graph in 8 sections drawn; screenshots in $out/"
