#!/usr/bin/env bash
# spheresim's CPU tree against REBOUND's tree on the same Plummer sphere, one core each, at the
# same opening angle: bodies per second and the acceleration error. Usage:
#   bash benches/rebound/run.sh [THETA] [N ...]        (default: 0.5, then 1e4 1e5)
# Needs: a release build (cargo build --release), python3 with `pip install rebound numpy`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/release/spheresim"
theta="${1:-0.5}"
shift || true
sizes=("${@:-1e4 1e5}")
[ -x "$bin" ] || { echo "error: $bin missing; run cargo build --release first" >&2; exit 1; }
python3 -c "import rebound, numpy" 2>/dev/null || {
    echo "error: python3 needs rebound and numpy: pip install rebound numpy" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) threads"
echo "spheresim commit: $(git -C "$root" rev-parse --short HEAD); rebound $(python3 -c 'import rebound; print(rebound.__version__)')"
for n in ${sizes[*]}; do
    count=$(python3 -c "print(int(float('$n')))")
    snap="$tmp/snap$count"
    "$bin" run plummer --particles "$count" --backend cpu --steps 1 --output "$snap" \
        --format csv --every 1 -q > /dev/null 2>&1
    echo "== N = $count, theta = $theta"
    "$bin" bench --scenes plummer --particles "$count" --backends cpu1 --theta "$theta" \
        --steps 3 --repeats 1 --warmup 1 | grep -E "cpu1 " || true
    steps=$(( count >= 100000 ? 3 : 10 ))
    python3 "$here/rebound_step.py" "$snap/snapshot_00000000.csv" "$theta" "$steps"
    if [ "$count" -le 100000 ]; then
        python3 "$here/rebound_error.py" "$snap/snapshot_00000000.csv" "$theta"
    fi
done
echo "spheresim's error at the same theta: spheresim validate tree-error (10^5 bodies)"
