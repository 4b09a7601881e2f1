# Shared by the benchmarks against LIGGGHTS 3.8 (benches/block/run.sh, benches/friction/run.sh):
# sourced, not run. Expects $root (the repository), $threads and $repeats to be set; sets
# $liggghts, $spheresim, $mpirun, mpi_flags, $commit and $cpu_model, and defines
# liggghts_version, is_less, cores_list and interleave.

command -v python3 >/dev/null || { echo "error: python3 not found" >&2; exit 1; }
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "error: --repeats must be a positive integer" >&2; exit 2; }
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || { echo "error: --threads must be a positive integer" >&2; exit 2; }

liggghts="${LIGGGHTS:-}"
if [[ -z "$liggghts" ]]; then
    for c in liggghts lmp_serial lmp_auto lmp; do
        if command -v "$c" >/dev/null; then liggghts="$(command -v "$c")"; break; fi
    done
fi
if [[ -n "${LIGGGHTS:-}" && ! -x "$liggghts" ]]; then
    echo "error: LIGGGHTS=$liggghts is not an executable file" >&2; exit 1
fi
if [[ -z "$liggghts" || ! -x "$liggghts" ]]; then
    echo "error: no LIGGGHTS binary found (looked for liggghts, lmp_serial, lmp_auto, lmp)." >&2
    echo "       Debian/Ubuntu: sudo apt-get install liggghts   (or set LIGGGHTS=/path/to/it)" >&2
    exit 1
fi
spheresim="${SPHERESIM:-$root/target/release/spheresim}"
if [[ ! -x "$spheresim" ]]; then
    echo "error: no spheresim binary at $spheresim; build it with: cargo build --release" >&2
    echo "       (or set SPHERESIM=/path/to/spheresim)" >&2
    exit 1
fi
mpirun=""
if [[ "$threads" -gt 1 ]]; then
    if command -v mpirun >/dev/null; then
        mpirun="$(command -v mpirun)"
    else
        echo "error: mpirun not found (needed for LIGGGHTS on $threads cores; use --threads 1 to skip)" >&2
        exit 1
    fi
fi
mpi_flags=()
if [[ -n "$mpirun" ]]; then
    [[ "$(id -u)" == 0 ]] && mpi_flags+=(--allow-run-as-root)
    # Open MPI counts physical cores as slots; nproc counts hardware threads.
    if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then mpi_flags+=(--use-hwthread-cpus); fi
    # shellcheck disable=SC2206
    mpi_flags+=(${MPIRUN_FLAGS:-})
fi

cpu_model="$( (lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1) || true)"
[[ -n "$cpu_model" ]] || cpu_model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown ]] && ! git -C "$root" diff --quiet HEAD 2>/dev/null; then
    commit="$commit (working tree differs from it)"
fi

# liggghts_version DIR: the version LIGGGHTS prints, run in DIR (it writes log.liggghts there).
liggghts_version() {
    local v
    v="$( (cd "$1" && "$liggghts" -log none -h </dev/null 2>&1 || true) | head -1)"
    sed -n 's/.*(Version \([^,]*\),.*/\1/p' <<< "$v"
}

is_less() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$1" "$2"; }

# The core counts timed: 1, then $threads when more.
cores_list=(1)
if [[ "$threads" -gt 1 ]]; then cores_list+=("$threads"); fi

# interleave: for each core count, every repeat and skin ($skin_list), the caller's
# `run_liggghts NPROCS SKIN LOG` and then its `run_spheresim THREADS SKIN LOG JSON` (each prints
# its loop time, s), so that a slow spell of the machine falls on both programs alike; prints
# each run and appends to `results` one line per core count: "cores best_liggghts_s skin log
# best_spheresim_s skin log json". LIGGGHTS runs with "dangerous" neighbour builds do not count.
interleave() {
    results=()
    for cores in "${cores_list[@]}"; do
        best_l="" best_skin="" best_llog=""
        best_s="" best_sskin="" best_slog="" best_json=""
        # Interleaved, one LIGGGHTS run and one spheresim run at a time, so that a slow spell of
        # the machine falls on both programs alike.
        for ((r = 1; r <= repeats; r++)); do
            for skin in "${skin_list[@]}"; do
                log="$work/liggghts_np${cores}_skin${skin}_r${r}.log"
                t="$(run_liggghts "$cores" "$skin" "$log")"
                builds="$(sed -n 's/^Neighbor list builds = //p' "$log" | head -1)"
                dangerous="$(sed -n 's/^Dangerous builds = //p' "$log" | head -1)"
                note=""
                [[ "${dangerous:-0}" != 0 ]] && note=", dangerous builds $dangerous: not counted"
                printf 'LIGGGHTS  %2d proc(s)  skin %-7s repeat %d: loop %10.4f s  (neighbour builds %s%s)\n' \
                    "$cores" "$skin" "$r" "$t" "${builds:-?}" "$note"
                if [[ -z "$note" ]] && { [[ -z "$best_l" ]] || is_less "$t" "$best_l"; }; then
                    best_l="$t"; best_skin="$skin"; best_llog="$log"
                fi
                log="$work/spheresim_t${cores}_skin${skin}_r${r}.log"
                json="$work/spheresim_t${cores}_skin${skin}_r${r}.json"
                t="$(run_spheresim "$cores" "$skin" "$log" "$json")"
                rebuilds="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["neighbour_rebuilds"])' "$json")"
                printf 'spheresim %2d thread(s) skin %-7s repeat %d: loop %10.4f s  (neighbour builds %s)\n' \
                    "$cores" "$skin" "$r" "$t" "$rebuilds"
                if [[ -z "$best_s" ]] || is_less "$t" "$best_s"; then
                    best_s="$t"; best_sskin="$skin"; best_slog="$log"; best_json="$json"
                fi
            done
        done
        if [[ -z "$best_l" ]]; then
            echo "error: every LIGGGHTS run on $cores proc(s) had dangerous neighbour builds; use larger --skins" >&2
            exit 1
        fi
        results+=("$cores $best_l $best_skin $best_llog $best_s $best_sskin $best_slog $best_json")
        echo
    done
}
