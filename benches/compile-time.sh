#!/usr/bin/env bash
# Compile time and expansion size of `#[ohua::algorithm]` (BENCHMARKS.md,
# "Compile time"). Measures, in the same run:
#   * the release rebuild of tests/tests/constructs.rs (19 algorithms) with
#     the attribute, and of the same file with every `#[algorithm]` removed
#     (the plain-Rust baseline), median of 3 rebuilds each;
#   * the expansion of the README's example (`ohua dump --stage code`),
#     in lines and bytes;
#   * LLVM IR lines of the constructs test if `cargo llvm-lines` is installed.
#
# Usage: benches/compile-time.sh [REPO]   (default: this checkout; another
# checkout, e.g. an older commit in a git worktree, measures "before").
# REPO's target dir is used; the constructs file is restored afterwards.
set -euo pipefail
repo="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
cd "$repo"
file=tests/tests/constructs.rs
backup="$(mktemp)"
cp "$file" "$backup"
# The constructs file is a module of the `conformance` test binary
# (tests/tests/conformance.rs); measured alone, it is a test target of its
# own for the run (older checkouts already have one).
manifest=tests/Cargo.toml
manifest_backup="$(mktemp)"
cp "$manifest" "$manifest_backup"
trap 'cp "$backup" "$file"; cp "$manifest_backup" "$manifest"; rm -f "$backup" "$manifest_backup"' EXIT
if grep -q '^autotests = false' "$manifest"; then
    printf '\n[[test]]\nname = "constructs"\npath = "tests/constructs.rs"\n' >>"$manifest"
fi

echo "== compile time: $repo"
echo "commit  : $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with local changes)')"
echo "machine : nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "rustc   : $(rustc --version)"

build() { cargo test --release -q -p ohua-conformance --test constructs --no-run >/dev/null 2>&1; }
# One rebuild of the test crate only: a changed comment makes it dirty
# (cargo compares contents, so `touch` is not enough).
rebuild_secs() {
    echo "// $(date +%s%N)" >>"$file"
    local start end
    start=$(date +%s.%N)
    build
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

build # dependencies, once
ohua=$(median3 "$(rebuild_secs)" "$(rebuild_secs)" "$(rebuild_secs)")
cp "$backup" "$file"
sed -i 's/^#\[algorithm\]$//; s/^    #\[algorithm\]$//' "$file"
build
plain=$(median3 "$(rebuild_secs)" "$(rebuild_secs)" "$(rebuild_secs)")
cp "$backup" "$file"
build
printf 'constructs (19 algorithms), release rebuild: ohua %.2f s, plain Rust %.2f s, ratio %.1fx\n' \
    "$ohua" "$plain" "$(echo "$ohua / $plain" | bc -l)"

readme="$(mktemp --suffix=.rs)"
cat >"$readme" <<'EOF'
#[algorithm]
fn word_freq(lines: Vec<String>) -> Vec<(String, u64)> {
    let mut tok = Tokenizer::new();
    let mut counts = Counter::new();
    for line in lines {
        let words = tok.split(line);      // stateful call
        let clean = normalize(words);     // stateless call
        counts.add(clean);                // stateful call
    }
    counts.top(10)
}
EOF
code="$(cargo run -q --release -p ohua-cli -- dump "$readme" --stage code)"
rm -f "$readme"
echo "README example expansion: $(echo "$code" | wc -l) lines, $(echo "$code" | wc -c) bytes (ohua dump --stage code)"

if cargo llvm-lines --version >/dev/null 2>&1; then
    total=$(cargo llvm-lines --release -p ohua-conformance --test constructs 2>/dev/null | sed -n 3p)
    echo "constructs LLVM IR (cargo llvm-lines): $total"
fi
