#!/usr/bin/env bash
# The CPU backend's thread scaling on the device machine's cores (issue 40, item 2): the
# frictional benchmark (benches/friction) and the frictionless block (benches/block), each at
# 1, 2, 4, ... up to nproc threads, best of REPEATS runs, `wall_seconds` of --stats-json.
# LIGGGHTS is not on the device machine: its ratios stay those of benches/*/run.sh.
#
#   bash benches/device/cpu_scaling.sh SPHERESIM [REPEATS]
set -euo pipefail
sim=$(realpath "${1:?usage: cpu_scaling.sh SPHERESIM [REPEATS]}")
repeats=${2:-2}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work=$(mktemp -d)
python3 "$root/benches/friction/make_friction.py" --out-dir "$work" >/dev/null
python3 "$root/benches/block/make_block.py" --out-dir "$work" >/dev/null
cp "$root/benches/block/block.toml" "$work/"

threads=()
for ((t = 1; t < $(nproc); t *= 2)); do threads+=("$t"); done
threads+=("$(nproc)")

# best SCENE THREADS ARGS...: the fastest of $repeats runs' stepping time (s).
best() {
    local scene=$1 nt=$2 b=""
    shift 2
    for ((r = 0; r < repeats; r++)); do
        (cd "$work" && RAYON_NUM_THREADS="$nt" "$sim" run "$scene.toml" --backend cpu \
            --quiet --progress-every 0 --stats-json "$work/s.json" "$@") >"$work/log" 2>&1 ||
            { echo "error: $scene on $nt threads failed:" >&2; tail -5 "$work/log" >&2; exit 1; }
        local s
        s=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_seconds"])' "$work/s.json")
        if [ -z "$b" ] || python3 -c "import sys; sys.exit(not $s < $b)"; then b=$s; fi
    done
    echo "$b"
}

echo "cpu scaling: $(nproc) threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), best of $repeats"
printf '%-9s %8s %9s %16s %8s %10s\n' scene threads "step s" "spheres*steps/s" speedup efficiency
for scene in friction block; do
    if [ "$scene" = friction ]; then args=(--skin 0.001) n=65536 steps=400; else
        args=(--allow-overlap --skin 0.04) n=65536 steps=64
    fi
    t1=""
    for nt in "${threads[@]}"; do
        t=$(best "$scene" "$nt" "${args[@]}")
        [ -z "$t1" ] && t1=$t
        python3 -c "
import sys
n, steps, nt, t, t1 = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print('%-9s %8d %9.4f %16.4e %8.2f %10.2f' % (sys.argv[6], nt, t, n * steps / t, t1 / t, t1 / t / nt))
" "$n" "$steps" "$nt" "$t" "$t1" "$scene"
    done
done
