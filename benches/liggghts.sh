# Shared by the benchmarks against LIGGGHTS 3.8 (benches/block/run.sh, benches/friction/run.sh):
# sourced, not run. Expects $root (the repository), $threads and $repeats to be set; sets
# $liggghts, $spheresim, $mpirun, mpi_flags, $commit and $cpu_model, and defines
# liggghts_version, is_less and cores_list.

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
