#!/usr/bin/env bash
# Checks that a refactor changed no bit of any output (issue 39, "Done when"): runs two
# spheresim binaries on the same scenes and compares their final-state CSVs byte for byte.
#
# Usage: bash benches/identical.sh OLD_BINARY NEW_BINARY [--gpu] [--particles N] [--steps K]
#
#   OLD_BINARY, NEW_BINARY  two builds of spheresim, e.g. one built from the commit before the
#                           refactor (git worktree add /tmp/old REV && cargo build --release
#                           --manifest-path /tmp/old/Cargo.toml) and target/release/spheresim
#   --gpu                   also compare on the GPU backend (lavapipe, or any one adapter: the
#                           two binaries must run on the same one)
#   --particles N           spheres per scene (default 2000)
#   --steps K               steps per scene (default 200)
#
# Scenes: wall-break, wall-stand, box-gas, orbits with the tree, and the pile (rotation and
# friction). Each runs on the CPU in f32 and f64 and, with --gpu, on the GPU; `--final` writes
# the state with every float at full precision (docs/output.md). Exit 0 when every pair of files
# is identical; otherwise the scenes that differ are listed and the exit is 1. Files go to
# target/identical/ (or $WORKDIR).
set -euo pipefail

if [ $# -lt 2 ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
old="$1"
new="$2"
shift 2
gpu=0
particles=2000
steps=200
while [ $# -gt 0 ]; do
    case "$1" in
        --gpu) gpu=1 ;;
        --particles) particles="$2"; shift ;;
        --steps) steps="$2"; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
for b in "$old" "$new"; do
    [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${WORKDIR:-$root/target/identical}"
mkdir -p "$work"

backends=("cpu f32" "cpu f64")
[ "$gpu" = 1 ] && backends+=("gpu f32")

differ=()
compared=0
for scene in wall-break wall-stand box-gas "orbits --gravity-solver tree" pile; do
    name="${scene%% *}"
    for bp in "${backends[@]}"; do
        backend="${bp% *}"
        precision="${bp#* }"
        tag="$name-$backend-$precision"
        compared=$((compared + 1))
        for which in old new; do
            bin="$old"
            [ "$which" = new ] && bin="$new"
            # shellcheck disable=SC2086 # $scene carries the scene's own flags
            "$bin" run $scene --particles "$particles" --steps "$steps" --backend "$backend" \
                --precision "$precision" --allow-energy-drift -q \
                --final "$work/$tag.$which.csv" >"$work/$tag.$which.log" 2>&1 ||
                "$bin" run $scene --particles "$particles" --steps "$steps" --backend "$backend" \
                    --precision "$precision" -q \
                    --final "$work/$tag.$which.csv" >"$work/$tag.$which.log" 2>&1 || {
                echo "$tag: the $which binary failed (log: $work/$tag.$which.log)" >&2
                differ+=("$tag (failed)")
                continue 2
            }
        done
        if cmp -s "$work/$tag.old.csv" "$work/$tag.new.csv"; then
            echo "identical  $tag"
        else
            echo "DIFFERENT  $tag"
            differ+=("$tag")
        fi
    done
done

if [ ${#differ[@]} -gt 0 ]; then
    echo "${#differ[@]} of $compared comparisons differ: ${differ[*]}" >&2
    exit 1
fi
echo "all $compared comparisons identical"
