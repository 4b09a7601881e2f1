#!/usr/bin/env bash
# Diagnosis on a GPU machine of what the device run of 2026-11-27 (bb16d60) left open, with the
# bundle of benches/device/build.sh: the non-finite stop that NVIDIA did not report, the
# neighbours test whose adapter request failed, and whether the rotation tests' GPU cases hang
# or are only slow under the hardware contract. Output in $OUT (default ./device-out).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bundle=benches/device/bundle
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
# shellcheck source=../loaders.sh
source benches/device/loaders.sh
w=$(mktemp -d)
xz -dc "$bundle/spheresim.xz" >"$w/spheresim"
for t in gpu neighbours rotation; do xz -dc "$bundle/tests/$t.xz" >"$w/$t"; done
chmod +x "$w"/*
step() { echo "== $1 ($(date +%T))"; }

step "non-finite: two spheres of 3e38 kg under G = 10 on the GPU, a snapshot every step"
"$w/spheresim" run benches/device/diag/nonfinite.toml --backend gpu --quiet \
    --output "$w/nf" --every 1 --format csv
echo "exit $?"
for f in "$w"/nf/snapshot_*.csv; do echo "-- $(basename "$f")"; cat "$f"; done
cat "$w/nf/diagnostics.csv" 2>/dev/null
step "the same on the CPU"
"$w/spheresim" run benches/device/diag/nonfinite.toml --backend cpu --quiet; echo "exit $?"
step "tests/gpu non_finite_state_is_reported_by_the_gpu"
timeout 40 "$w/gpu" non_finite_state_is_reported_by_the_gpu --nocapture 2>&1 | tail -8
step "tests/neighbours, twice"
for k in 1 2; do
    s=$(date +%s)
    timeout 40 "$w/neighbours" the_gpu_steps_the_cpus_list_bit_for_bit 2>&1 | grep -E "test result|panicked|NoAdapter"
    echo "run $k: $(($(date +%s) - s)) s"
done
for t in a_belt_on_the_gpu_is_the_cpus_bit_for_bit spinning_pairs_on_the_gpu_agree_with_the_cpu_bit_for_bit; do
    step "tests/rotation $t"
    s=$(date +%s)
    timeout 70 "$w/rotation" "$t" --exact 2>&1 | grep -E "test result|panicked|contract:"
    echo "exit ${PIPESTATUS[0]} after $(($(date +%s) - s)) s"
done
step "done"
