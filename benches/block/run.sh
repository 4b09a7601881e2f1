#!/usr/bin/env bash
# Benchmark of spheresim's CPU backend against LIGGGHTS 3.8 on the "block" scene
# (benches/block/README.md). Installs nothing; it needs:
#   python3                      (benches/block/make_block.py, standard library only)
#   liggghts                     (Debian/Ubuntu: apt-get install liggghts -> /usr/bin/liggghts)
#   mpirun                       (Open MPI, comes with the liggghts package; for the all-core run)
#   target/release/spheresim     (cargo build --release)
#
# Usage: bash benches/block/run.sh [--size 32x64x32] [--skins 0.01,0.02,0.04,0.08]
#                                  [--repeats 3] [--precision f32|f64] [--threads N]
#
# For each core count (1, then N = nproc or --threads) it runs LIGGGHTS once per skin and
# repeat and keeps the fastest run without "dangerous" neighbour-list builds (a skin below
# 2 x 15 m/s x dt = 7.8 mm gives them: an atom moves more than half the skin in one step), and
# spheresim once per skin (--skin) and repeat and keeps the fastest; each LIGGGHTS run is
# followed by the spheresim run of the same skin, so that both see the machine alike. Timings:
# LIGGGHTS' "Loop time of X on N procs for 64 steps", spheresim's stepping time (the "ran 64
# steps of ... in X s" of its summary, read at full precision from --stats-json wall_seconds).
# Neither includes reading the input or setting up. Files and logs go to target/bench-block/
# (or $WORKDIR). Environment: LIGGGHTS=/path/to/liggghts, SPHERESIM=/path/to/spheresim,
# MPIRUN_FLAGS="extra flags for mpirun".
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

size="32x64x32"
skins="0.01,0.02,0.04,0.08"
repeats=3
precision="f32"
threads="$(nproc)"

usage() { sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --size) size="$2"; shift 2 ;;
        --skins) skins="$2"; shift 2 ;;
        --repeats) repeats="$2"; shift 2 ;;
        --precision) precision="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
if [[ ! "$size" =~ ^([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
    echo "error: --size must look like 32x64x32, got '$size'" >&2; exit 2
fi
nx="${BASH_REMATCH[1]}"; ny="${BASH_REMATCH[2]}"; nz="${BASH_REMATCH[3]}"
[[ "$precision" == f32 || "$precision" == f64 ]] || { echo "error: --precision is f32 or f64" >&2; exit 2; }
IFS=', ' read -r -a skin_list <<< "$skins"
[[ ${#skin_list[@]} -ge 1 ]] || { echo "error: --skins is empty" >&2; exit 2; }

# ---- tools ------------------------------------------------------------------------------
# shellcheck source=../liggghts.sh
source "$here/../liggghts.sh"

work="${WORKDIR:-$root/target/bench-block}"
mkdir -p "$work"
cp "$here/block.toml" "$here/block.in" "$work/"

echo "== block benchmark: spheresim --backend cpu vs LIGGGHTS =="
echo "date:       $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host:       nproc $(nproc), CPU: ${cpu_model:-unknown}"
echo "commit:     $commit"
echo "spheresim:  $spheresim ($("$spheresim" --version 2>/dev/null || echo '?')), precision $precision"
version="$(liggghts_version "$work")"
echo "liggghts:   $liggghts (${version:-version unknown})"
[[ -n "$mpirun" ]] && echo "mpirun:     $mpirun ($("$mpirun" --version 2>/dev/null | head -1)) ${mpi_flags[*]}"
echo "block:      ${nx}x${ny}x${nz}, 64 steps of 1/3840 s; skins ${skin_list[*]} m; best of $repeats"
echo "work dir:   $work"
python3 "$here/make_block.py" --nx "$nx" --ny "$ny" --nz "$nz" --out-dir "$work"
echo

# ---- helpers ------------------------------------------------------------------------------
# run_liggghts NPROCS SKIN LOG: runs block.in, prints the loop time of the 64 steps (s).
run_liggghts() {
    local np="$1" skin="$2" log="$3" t
    if [[ "$np" -eq 1 ]]; then
        (cd "$work" && "$liggghts" -in block.in -var skin "$skin" -var data block.data -log none) > "$log" 2>&1 \
            || { echo "error: LIGGGHTS failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    else
        (cd "$work" && "$mpirun" "${mpi_flags[@]}" -np "$np" "$liggghts" -in block.in \
            -var skin "$skin" -var data block.data -log none) > "$log" 2>&1 \
            || { echo "error: LIGGGHTS (mpirun -np $np) failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    fi
    t="$(sed -n 's/^Loop time of \([^ ]*\) on .* for 64 steps.*/\1/p' "$log" | head -1)"
    [[ -n "$t" ]] || { echo "error: no 'Loop time ... for 64 steps' in $log" >&2; exit 1; }
    echo "$t"
}

# run_spheresim THREADS SKIN LOG JSON: prints the stepping time (s).
run_spheresim() {
    local nt="$1" skin="$2" log="$3" json="$4"
    (cd "$work" && RAYON_NUM_THREADS="$nt" "$spheresim" run block.toml --backend cpu --allow-overlap \
        --skin "$skin" --precision "$precision" --quiet --progress-every 0 --stats-json "$json") > "$log" 2>&1 \
        || { echo "error: spheresim failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    grep -q "^ran 64 steps of " "$log" || { echo "error: no 'ran 64 steps' line in $log" >&2; exit 1; }
    python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["wall_seconds"]))' "$json"
}

n_spheres=$((nx * ny * nz))
interleave

# ---- report -------------------------------------------------------------------------------
python3 - "$n_spheres" "$precision" "${results[@]}" <<'EOF'
import json, re, sys

n = int(sys.argv[1])
precision = sys.argv[2]
steps = 64
rows = [r.split(" ") for r in sys.argv[3:]]

print("== results: %d spheres x %d steps (best of the runs above) ==" % (n, steps))
print("%-10s %5s  %-26s %12s %16s" % ("program", "cores", "settings", "loop s", "spheres*steps/s"))
summary = []
for cores, tl, skin, llog, ts, sskin, slog, sjson in rows:
    tl, ts = float(tl), float(ts)
    print("%-10s %5s  %-26s %12.4f %16.4e" % ("LIGGGHTS", cores, "processes, skin %s m" % skin, tl, n * steps / tl))
    print("%-10s %5s  %-26s %12.4f %16.4e" % ("spheresim", cores, "threads, %s, skin %s m" % (precision, sskin), ts, n * steps / ts))
    summary.append((cores, tl / ts))
print()
for cores, ratio in summary:
    print("ratio spheresim/LIGGGHTS (throughput; > 1: spheresim faster) on %s core(s): %.3f" % (cores, ratio))
print()

# Sanity check: the same physics ran. Final kinetic energy and contacts of the fastest runs.
print("== sanity check: final state (same physics?) ==")
for cores, tl, skin, llog, ts, sskin, slog, sjson in rows:
    text = open(llog).read()
    m = re.search(r"block final: ke (\S+) J, sphere-sphere contacts (\S+), floor contacts (\S+)", text)
    lost = re.findall(r"^\s+64\s+(\d+)\s", text, re.M)
    s = json.load(open(sjson))
    if not m:
        print("cores %s: no 'block final' line in %s" % (cores, llog))
        continue
    ke_l, pairs, floor = float(m.group(1)), int(float(m.group(2))), int(float(m.group(3)))
    ke_s, contacts_s = s["kinetic_energy_final"], s["contacts_final"]
    print("cores %s: LIGGGHTS  ke %.10g J, contacts %d (%d sphere-sphere + %d floor), atoms at step 64: %s"
          % (cores, ke_l, pairs + floor, pairs, floor, lost[0] if lost else "?"))
    print("cores %s: spheresim ke %.10g J, contacts %d (pairs + floor), initial ke %.10g J"
          % (cores, ke_s, contacts_s, s["kinetic_energy_initial"]))
    print("cores %s: ke relative difference %.3e, contact difference %+d"
          % (cores, (ke_s - ke_l) / ke_l, contacts_s - (pairs + floor)))
EOF
echo
echo "logs and stats: $work"
