#!/usr/bin/env bash
# The angle of repose of spheresim's `pile` scene set beside LIGGGHTS 3.8 on the same scene
# (benches/repose/README.md). Installs nothing; it needs python3, liggghts
# (Debian/Ubuntu: apt-get install liggghts) and target/release/spheresim.
#
# Usage: bash benches/repose/run.sh [--mur 0,0.05,0.1] [--dts 4e-5,3.9e-5,3.8e-5] [--particles 2000]
#
# For each rolling friction mur and time step dt (each dt is one realisation: the heap is
# chaotic, so the step changes which grains end where) it runs 1 s of `pile` on spheresim's CPU
# backend and in LIGGGHTS from the same initial state, measures both heaps with
# `spheresim repose` and prints one row per run, then the mean and spread per code and mur.
# Files go to target/bench-repose/ (or $WORKDIR). Environment: LIGGGHTS, SPHERESIM.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
murs=0,0.05,0.1
dts=4e-5,3.9e-5,3.8e-5
grains=2000
while [ $# -gt 0 ]; do
  case "$1" in
    --mur) murs=$2; shift 2 ;;
    --dts) dts=$2; shift 2 ;;
    --particles) grains=$2; shift 2 ;;
    *) echo "run.sh: unknown argument '$1' (use --mur LIST, --dts LIST, --particles N)" >&2; exit 2 ;;
  esac
done
liggghts=${LIGGGHTS:-$(command -v liggghts || true)}
spheresim=${SPHERESIM:-$root/target/release/spheresim}
[ -x "$liggghts" ] || { echo "run.sh: liggghts not found (apt-get install liggghts, or set LIGGGHTS)" >&2; exit 1; }
[ -x "$spheresim" ] || { echo "run.sh: $spheresim not found (cargo build --release, or set SPHERESIM)" >&2; exit 1; }
work=${WORKDIR:-$root/target/bench-repose}
mkdir -p "$work"
cd "$work"

# The initial state: step 0 of `pile` (the grains, then the fixed carpet).
rm -rf init
"$spheresim" run pile --particles "$grains" --backend cpu --steps 1 --output init --format csv > init.log 2>&1
python3 "$here/csv_to_data.py" init/snapshot_00000000.csv pile.data --fixed-from "$grains"

angle() { "$spheresim" repose "$1" | awk '/angle of repose/ {print $4}'; }

printf '%-10s %-6s %-8s %s\n' code mur dt angle_deg
: > rows.txt
for mur in ${murs//,/ }; do
  for dt in ${dts//,/ }; do
    steps=$(python3 -c "import math; print(math.ceil(1.0 / $dt))")
    d=ss_${mur}_${dt}
    rm -rf "$d"
    "$spheresim" run pile --particles "$grains" --backend cpu --rolling-friction "$mur" --dt "$dt" --steps "$steps" \
      --output "$d" --format csv --every "$steps" > "$d.log" 2>&1
    a=$(angle "$(ls "$d"/snapshot_*.csv | tail -n 1)")
    printf '%-10s %-6s %-8s %s\n' spheresim "$mur" "$dt" "$a" | tee -a rows.txt
    l=lg_${mur}_${dt}
    "$liggghts" -in "$here/pile.in" -var data pile.data -var mur "$mur" -var dt "$dt" \
      -var nsteps "$steps" -var every "$steps" -var dump "$l.dump" -log "$l.log" > /dev/null
    python3 "$here/dump_to_csv.py" "$l.dump" "$l.csv"
    a=$(angle "$l.csv")
    printf '%-10s %-6s %-8s %s\n' liggghts "$mur" "$dt" "$a" | tee -a rows.txt
  done
done
echo
echo "mean and spread (max - min) over the time steps:"
awk '{k = $1 " " $2; s[k] += $4; n[k]++; if (!(k in lo) || $4 < lo[k]) lo[k] = $4; if (!(k in hi) || $4 > hi[k]) hi[k] = $4}
     END {for (k in s) printf "%-18s %5.1f deg  (spread %.1f deg, %d runs)\n", k, s[k] / n[k], hi[k] - lo[k], n[k]}' rows.txt | sort
