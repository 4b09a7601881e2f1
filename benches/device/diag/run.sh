#!/usr/bin/env bash
# Diagnosis on a GPU machine, with the bundle of benches/device/build.sh (only its `spheresim`):
# issue 35's scenes as large as the device, now that no per-sphere binding holds more than 16
# bytes a sphere: the wall-break at 2.5 × 10^7 spheres and box-gas at 10^8, a few steps each,
# with the device memory sampled by nvidia-smi. Its run at f38e436 refused the wall-break (the
# pair results in two halves); rerun it to check the four parts (benches/NOTES.md). Output in $OUT (default ./device-out). Edit
# before reuse: it holds the last diagnosis only.
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
step() { echo "== $1 ($(date +%T))"; }
cat "$bundle/COMMIT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader -lms 1000 >"$OUT/memory.csv" &
smi=$!
big() {
    local scene=$1 n=$2 limit=$3
    step "$scene, $n spheres, 3 steps on the GPU"
    RUST_LOG=info timeout "$limit" "$w/spheresim" run "$scene" --particles "$n" --steps 3 \
        --backend gpu --stats-json "$OUT/${scene}_$n.json" 2>&1 | grep -v XDG_RUNTIME | tail -12
    echo "exit ${PIPESTATUS[0]}"
    echo "device memory used, most so far: $(cut -d, -f2 "$OUT/memory.csv" | sort -n | tail -1)"
}
big wall-break 25000000 90
# DIAG_BOX=0 leaves out the box-gas at 10^8 (it ran at f38e436: 46 GB, 0.37 s for 3 steps).
[ "${DIAG_BOX:-1}" = 1 ] && big box-gas 100000000 120
kill "$smi"
step "done"
