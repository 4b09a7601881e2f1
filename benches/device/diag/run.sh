#!/usr/bin/env bash
# Diagnosis on a GPU machine, with the bundle of benches/device/build.sh (only its `spheresim`,
# plus `spheresim-old.xz`, the binary of the commit before the change): the large spheres' list
# build spread over many work-groups (95d6be0) against one work-group each (3910e71), side by
# side in the same sitting, on the scenes whose binning the per-pass table showed it held back:
# the wall-break and the orbits with the tree at 10^6, box-gas as the unchanged control.
# Output in $OUT (default ./device-out). Edit before reuse: it holds the last diagnosis only.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
bundle=benches/device/bundle
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
# shellcheck source=../loaders.sh
source benches/device/loaders.sh
w=$(mktemp -d)
xz -dc "$bundle/spheresim.xz" >"$w/new"
xz -dc "$bundle/spheresim-old.xz" >"$w/old"
chmod +x "$w/new" "$w/old"
step() { echo "== $1 ($(date +%T))"; }
cat "$bundle/COMMIT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

bench() {
    local bin=$1 name=$2
    shift 2
    step "$bin: bench $name: $*"
    timeout 90 "$w/$bin" bench --json "$OUT/${name}_$bin.json" --backends gpu "$@" 2>&1 |
        grep -v XDG_RUNTIME | sed -n '/^scene/,/^devices/p;/per-pass/,/^$/p' |
        grep -E "^scene|gpu  |large|per-pass"
}
for bin in old new; do
    bench $bin matrix --scenes wall-break,box-gas --particles 1e6 --steps 5 --repeats 3 --warmup 2
done
for bin in new old; do
    bench $bin long --scenes wall-break --particles 1e6 --steps 32 --repeats 2 --warmup 8
    bench $bin orbits --scenes orbits --particles 1e6 --gravity-solver tree --steps 3 --repeats 2 --warmup 1
done
step "done"
