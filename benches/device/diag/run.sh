#!/usr/bin/env bash
# Diagnosis on a GPU machine of what the device run of 2026-11-27 (68d200f) left open, with the
# bundle of benches/device/build.sh (only its `spheresim`): where the wall-break's binning stage
# (4.6 ms a step at 10^6 on an H200) and the tree's binning go, by compute pass (`bench`'s
# per-pass table, timestamp queries), and how often the wall-break's list rebuilds at 10^6.
# Output in $OUT (default ./device-out). Edit before reuse: it holds the last diagnosis only.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bundle=benches/device/bundle
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
# shellcheck source=../loaders.sh
source benches/device/loaders.sh
w=$(mktemp -d)
xz -dc "$bundle/spheresim.xz" >"$w/spheresim"
chmod +x "$w/spheresim"
b=$w/spheresim
step() { echo "== $1 ($(date +%T))"; }
cat "$bundle/COMMIT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

bench() {
    local name=$1
    shift
    step "bench $name: $*"
    timeout 120 "$b" bench --json "$OUT/$name.json" --backends gpu "$@" 2>&1 |
        grep -v XDG_RUNTIME | sed -n '/^scene/,$p'
}
bench wb_box_1e6 --scenes wall-break,box-gas --particles 1e6 --steps 10 --repeats 3 --warmup 2
bench wb_1e6_long --scenes wall-break --particles 1e6 --steps 32 --repeats 2 --warmup 8
bench wb_4e6 --scenes wall-break --particles 4e6 --steps 3 --repeats 2 --warmup 1
bench orbits_tree --scenes orbits --particles 1e6 --gravity-solver tree --steps 3 --repeats 2 --warmup 1
bench rubble --scenes rubble-pile --particles 1e6 --steps 5 --repeats 2 --warmup 1
for be in gpu cpu; do
    step "wall-break 10^6, 17 steps on the $be backend: list rebuilds"
    timeout 60 "$b" run wall-break --particles 1000000 --steps 17 --backend "$be" --quiet \
        --stats-json "$OUT/rebuilds_$be.json"
    echo "exit $?"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('neighbour_rebuilds', d['neighbour_rebuilds'])" "$OUT/rebuilds_$be.json"
done
step "done"
