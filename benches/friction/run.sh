#!/usr/bin/env bash
# Benchmark of spheresim's CPU backend against LIGGGHTS 3.8 on the "friction" scene
# (benches/friction/README.md): Hertz with tangential history, mu = 0.5 and rotation, a column
# of beads settling in a box. Installs nothing; it needs python3, liggghts (Debian/Ubuntu:
# apt-get install liggghts), mpirun for the all-core run, and target/release/spheresim
# (cargo build --release).
#
# Usage: bash benches/friction/run.sh [--size 32x32x64] [--steps 400]
#                                     [--skins 0.0005,0.001,0.002] [--repeats 3]
#                                     [--precision f32|f64] [--threads N]
#                                     [--damping hunt-crossley|flores]
#
# For each core count (1, then N = nproc or --threads) it runs, per repeat and skin, LIGGGHTS
# and then spheresim on the same state, so that a slow spell of the machine falls on both
# alike, and keeps each program's fastest run (LIGGGHTS' without "dangerous" neighbour
# builds). Timings: LIGGGHTS' "Loop time of X on N procs for STEPS steps", spheresim's
# stepping time (wall_seconds of --stats-json); neither includes reading the input or set-up.
# Files and logs go to target/bench-friction/ (or $WORKDIR). Environment: LIGGGHTS, SPHERESIM,
# MPIRUN_FLAGS as for benches/block/run.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

size="32x32x64"
steps=400
skins="0.0005,0.001,0.002"
repeats=3
precision="f32"
threads="$(nproc)"
damping="hunt-crossley"

usage() { sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --size) size="$2"; shift 2 ;;
        --steps) steps="$2"; shift 2 ;;
        --skins) skins="$2"; shift 2 ;;
        --repeats) repeats="$2"; shift 2 ;;
        --precision) precision="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --damping) damping="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
if [[ ! "$size" =~ ^([0-9]+)x([0-9]+)x([0-9]+)$ ]]; then
    echo "error: --size must look like 32x32x64, got '$size'" >&2; exit 2
fi
nx="${BASH_REMATCH[1]}"; ny="${BASH_REMATCH[2]}"; nz="${BASH_REMATCH[3]}"
[[ "$steps" =~ ^[1-9][0-9]*$ ]] || { echo "error: --steps must be a positive integer" >&2; exit 2; }
[[ "$precision" == f32 || "$precision" == f64 ]] || { echo "error: --precision is f32 or f64" >&2; exit 2; }
[[ "$damping" == hunt-crossley || "$damping" == flores ]] || { echo "error: --damping is hunt-crossley or flores" >&2; exit 2; }
IFS=', ' read -r -a skin_list <<< "$skins"
[[ ${#skin_list[@]} -ge 1 ]] || { echo "error: --skins is empty" >&2; exit 2; }

# shellcheck source=../liggghts.sh
source "$here/../liggghts.sh"

work="${WORKDIR:-$root/target/bench-friction}"
mkdir -p "$work"
cp "$here/friction.in" "$work/"

echo "== friction benchmark: spheresim --backend cpu vs LIGGGHTS =="
echo "date:       $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "host:       nproc $(nproc), CPU: ${cpu_model:-unknown}"
echo "commit:     $commit"
echo "spheresim:  $spheresim ($("$spheresim" --version 2>/dev/null || echo '?')), precision $precision, damping $damping"
version="$(liggghts_version "$work")"
echo "liggghts:   $liggghts (${version:-version unknown})"
[[ -n "$mpirun" ]] && echo "mpirun:     $mpirun ($("$mpirun" --version 2>/dev/null | head -1)) ${mpi_flags[*]}"
echo "column:     ${nx}x${ny}x${nz}, $steps steps of 50 us; skins ${skin_list[*]} m; best of $repeats"
echo "work dir:   $work"
made="$(python3 "$here/make_friction.py" --nx "$nx" --ny "$ny" --nz "$nz" --steps "$steps" \
    --damping "$damping" --out-dir "$work")"
echo "$made"
read -r lx ly lz < <(sed -n 's/.*(box \([^ ]*\) x \([^ ]*\) x \([^ ]*\) m).*/\1 \2 \3/p' <<< "$made")
[[ -n "${lz:-}" ]] || { echo "error: make_friction.py printed no box" >&2; exit 1; }
echo

# run_liggghts NPROCS SKIN LOG: runs friction.in, prints the loop time of the steps (s).
run_liggghts() {
    local np="$1" skin="$2" log="$3" t
    local args=(-in friction.in -var skin "$skin" -var data friction.data -var nsteps "$steps"
                -var lx "$lx" -var ly "$ly" -var lz "$lz" -log none)
    if [[ "$np" -eq 1 ]]; then
        (cd "$work" && "$liggghts" "${args[@]}") > "$log" 2>&1 \
            || { echo "error: LIGGGHTS failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    else
        (cd "$work" && "$mpirun" "${mpi_flags[@]}" -np "$np" "$liggghts" "${args[@]}") > "$log" 2>&1 \
            || { echo "error: LIGGGHTS (mpirun -np $np) failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    fi
    t="$(sed -n "s/^Loop time of \([^ ]*\) on .* for $steps steps.*/\1/p" "$log" | head -1)"
    [[ -n "$t" ]] || { echo "error: no 'Loop time ... for $steps steps' in $log" >&2; exit 1; }
    echo "$t"
}

# run_spheresim THREADS SKIN LOG JSON: prints the stepping time (s).
run_spheresim() {
    local nt="$1" skin="$2" log="$3" json="$4"
    (cd "$work" && RAYON_NUM_THREADS="$nt" "$spheresim" run friction.toml --backend cpu \
        --skin "$skin" --precision "$precision" --quiet --progress-every 0 --stats-json "$json") > "$log" 2>&1 \
        || { echo "error: spheresim failed, see $log" >&2; tail -5 "$log" >&2; exit 1; }
    grep -q "^ran $steps steps of " "$log" || { echo "error: no 'ran $steps steps' line in $log" >&2; exit 1; }
    python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["wall_seconds"]))' "$json"
}

n_spheres=$((nx * ny * nz))
interleave

python3 - "$n_spheres" "$steps" "$precision" "${results[@]}" <<'PY'
import json, re, sys

n, steps, precision = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = [r.split(" ") for r in sys.argv[4:]]
print("== results: %d spheres x %d steps (best of the runs above) ==" % (n, steps))
print("%-10s %5s  %-28s %12s %16s" % ("program", "cores", "settings", "loop s", "spheres*steps/s"))
ratios = []
for cores, tl, skin, llog, ts, sskin, slog, sjson in rows:
    tl, ts = float(tl), float(ts)
    print("%-10s %5s  %-28s %12.4f %16.4e" % ("LIGGGHTS", cores, "processes, skin %s m" % skin, tl, n * steps / tl))
    print("%-10s %5s  %-28s %12.4f %16.4e" % ("spheresim", cores, "threads, %s, skin %s m" % (precision, sskin), ts, n * steps / ts))
    ratios.append((cores, tl / ts))
print()
for cores, ratio in ratios:
    print("ratio spheresim/LIGGGHTS (throughput; > 1: spheresim faster) on %s core(s): %.3f" % (cores, ratio))
print()
# The same physics? Contacts and energies of the fastest runs' final states.
print("== final state (same physics?) ==")
for cores, tl, skin, llog, ts, sskin, slog, sjson in rows:
    m = re.search(r"friction final: ke (\S+) J, erot (\S+) J, sphere-sphere contacts (\S+), "
                  r"wall contacts (\S+), mean z (\S+) m", open(llog).read())
    s = json.load(open(sjson))
    if not m:
        print("cores %s: no 'friction final' line in %s" % (cores, llog))
        continue
    ke, erot, pairs, walls = float(m.group(1)), float(m.group(2)), int(float(m.group(3))), int(float(m.group(4)))
    print("cores %s: LIGGGHTS  ke %.6g J, rotational %.6g J, contacts %d (%d pairs + %d wall)"
          % (cores, ke, erot, pairs + walls, pairs, walls))
    print("cores %s: spheresim ke %.6g J, rotational %.6g J, contacts %d (pairs + wall)"
          % (cores, s["kinetic_energy_final"], s["rotational_kinetic_energy_final"], s["contacts_final"]))
    print("cores %s: relative differences: ke %+.3f, rotational %+.3f, contacts %+.4f"
          % (cores, s["kinetic_energy_final"] / ke - 1, s["rotational_kinetic_energy_final"] / erot - 1,
             s["contacts_final"] / (pairs + walls) - 1))
PY
echo
echo "logs and stats: $work"
