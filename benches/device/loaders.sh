# Sourced by benches/device/run.sh and diag/run.sh with $bundle set: the Vulkan loader and
# libglvnd from the bundle unless the machine has them (a lavapipe dry run here does), the
# NVIDIA ICD where the driver's folder holds one, and the tests' environment (CI=true: a GPU
# test fails, not skips, without an adapter).
if ! ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 && [ "$(id -u)" -eq 0 ]; then
    for f in "$bundle"/debs/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
nv_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$nv_icd" ] && [ -z "${VK_DRIVER_FILES:-}" ] && export VK_DRIVER_FILES=$nv_icd
export CI=true XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
