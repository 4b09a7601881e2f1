#!/usr/bin/env bash
# Builds the device bundle on a machine without a GPU: the stripped release binary and the
# GPU-relevant test executables, xz-compressed, plus Debian's Vulkan loader and libglvnd (the
# device machine has the NVIDIA driver but may lack the loader). The device machine has no Rust
# toolchain and at most 64 MiB travels with a call, so the bundle is checked against that.
#
#   bash benches/device/build.sh            # writes benches/device/bundle/ (git-ignored)
#
# Then, on the device machine (the `device` tool's `run`, carrying benches/device/bundle):
#   bash benches/device/run.sh              # see run.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root=$PWD
bundle=benches/device/bundle
limit=$((64 * 1024 * 1024))

# The test executables that open a GPU adapter. Tests that call the `spheresim` binary through
# CARGO_BIN_EXE (cli, bench, validate_cli) are left out: that path is this machine's.
tests=(gpu contact neighbours gpu_tree gpu_shaders rotation ledger checkpoint validate
    shader_constants render periodic stage_swap guards wall_forces)

rm -rf "$bundle"
mkdir -p "$bundle/tests"

echo "== cargo build --release"
cargo build --release --locked
cp target/release/spheresim "$bundle/spheresim"
strip "$bundle/spheresim"

echo "== cargo test --release --no-run (${tests[*]})"
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
cargo test --release --locked --no-run --message-format=json "${args[@]}" >"$bundle/.build.json"
python3 - "$bundle" <<'PY'
import json, shutil, sys, os
bundle = sys.argv[1]
for line in open(os.path.join(bundle, ".build.json")):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and \
            "test" in m["target"]["kind"]:
        shutil.copy(m["executable"], os.path.join(bundle, "tests", m["target"]["name"]))
PY
rm "$bundle/.build.json"
strip "$bundle"/tests/*

# Loaders: the NVIDIA driver is the machine's own; the Vulkan loader and libglvnd come along.
mkdir -p "$bundle/debs"
if ! ls "$bundle"/debs/*.deb >/dev/null 2>&1; then
    lists=$(mktemp -d)
    mkdir -p "$lists/partial"
    o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
    apt-get "${o[@]}" update >/dev/null
    (cd "$bundle/debs" && apt-get "${o[@]}" download libvulkan1 libegl1 libglvnd0 libgl1 libglx0 \
        2>/dev/null)
fi

git rev-parse HEAD >"$bundle/COMMIT"
git status --porcelain --untracked-files=no | grep -q . && echo "dirty" >>"$bundle/COMMIT"
xz -T0 -6 "$bundle/spheresim" "$bundle"/tests/*

size=$(du -sb "$bundle" | cut -f1)
echo "== bundle: $size bytes ($(ls "$bundle"/tests | wc -l) test executables) in $root/$bundle"
if ((size > limit)); then
    echo "error: the bundle is $size bytes, over the 64 MiB a device call can carry" >&2
    exit 1
fi
