//! Bytes a step's dispatches may move: a bound on memory traffic that needs no GPU to mean
//! something.
//!
//! Each dispatch is charged, for each buffer its entry point uses (naga's per-entry-point
//! global uses, [`entry_uses`]: a module's bind group may hold buffers one entry point does not
//! touch), the buffer's bound size once per direction: read, written, or both (a `read_write`
//! buffer the entry point both loads and stores, or any atomic use, counts twice). Sizes are
//! the bound sizes (the whole buffer: the neighbour list at its capacity, not its live length).
//! A pass need not touch every element and caches serve repeats, so this is an upper bound on
//! the DRAM traffic of one pass of the step (docs/performance.md, "Bytes per sphere-step").
//!
//! [`super::pipelines::Module`] registers every pipeline's uses and every bind group's sizes
//! here as it creates them; the recording sites call [`tally`], which adds the dispatch's bytes
//! to this thread's running total ([`recorded`]).

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{LazyLock, Mutex};

/// A buffer an entry point uses: its `@binding` and how many times a dispatch is charged its
/// size (1: read or written; 2: both).
pub type Use = (u32, u32);

/// The buffers an entry point of `module` uses (group 0, uniform or storage), by binding, from
/// naga's analysis `info`. A use that only queries the length (`arrayLength`) is not charged.
pub fn entry_uses(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> HashMap<String, Vec<Use>> {
    use naga::valid::GlobalUse;
    module
        .entry_points
        .iter()
        .enumerate()
        .map(|(i, ep)| {
            let fi = info.get_entry_point(i);
            let uses = module
                .global_variables
                .iter()
                .filter_map(|(h, var)| {
                    let binding = var.binding.as_ref()?;
                    let u = fi[h];
                    let times = if u.contains(GlobalUse::ATOMIC) {
                        2
                    } else {
                        u32::from(u.contains(GlobalUse::READ))
                            + u32::from(u.contains(GlobalUse::WRITE))
                    };
                    (times > 0).then_some((binding.binding, times))
                })
                .collect();
            (ep.name.clone(), uses)
        })
        .collect()
}

// Registries keyed by the handle's hash (wgpu hashes a handle by its identity), so that they
// keep no handle alive. A handle created later under a freed one's identity overwrites it.
type Registry<T> = LazyLock<Mutex<HashMap<u64, Vec<T>>>>;
static PIPELINES: Registry<Use> = LazyLock::new(Default::default);
static GROUPS: Registry<(u32, u64)> = LazyLock::new(Default::default);

thread_local! {
    static RECORDED: Cell<u64> = const { Cell::new(0) };
}

fn key<T: Hash>(handle: &T) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    handle.hash(&mut h);
    h.finish()
}

/// Registers the buffers `pipeline`'s entry point uses.
pub fn register_pipeline(pipeline: &wgpu::ComputePipeline, uses: Vec<Use>) {
    PIPELINES
        .lock()
        .expect("traffic registry")
        .insert(key(pipeline), uses);
}

/// Registers the bound size in bytes of each binding of `group`.
pub fn register_group(group: &wgpu::BindGroup, sizes: Vec<(u32, u64)>) {
    GROUPS
        .lock()
        .expect("traffic registry")
        .insert(key(group), sizes);
}

/// The bytes one dispatch of `pipeline` with `group` may move: the sum over the buffers the
/// entry point uses of their bound size, times 1 or 2 ([`Use`]). 0 for an unregistered pair.
pub fn bytes(pipeline: &wgpu::ComputePipeline, group: &wgpu::BindGroup) -> u64 {
    let pipelines = PIPELINES.lock().expect("traffic registry");
    let groups = GROUPS.lock().expect("traffic registry");
    let (Some(uses), Some(sizes)) = (pipelines.get(&key(pipeline)), groups.get(&key(group))) else {
        return 0;
    };
    uses.iter()
        .filter_map(|(b, times)| {
            let size = sizes.iter().find(|(s, _)| s == b)?.1;
            Some(size * *times as u64)
        })
        .sum()
}

/// Adds one dispatch's [`bytes`] to this thread's running total.
pub fn tally(pipeline: &wgpu::ComputePipeline, group: &wgpu::BindGroup) {
    let b = bytes(pipeline, group);
    RECORDED.with(|r| r.set(r.get() + b));
}

/// This thread's running total of bytes tallied, for differences taken around a recording.
pub fn recorded() -> u64 {
    RECORDED.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_are_charged_only_for_what_they_use() {
        let src = "
            @group(0) @binding(0) var<uniform> k: vec4<f32>;
            @group(0) @binding(1) var<storage, read> a: array<f32>;
            @group(0) @binding(2) var<storage, read_write> b: array<f32>;
            @group(0) @binding(3) var<storage, read_write> c: array<atomic<u32>>;
            @compute @workgroup_size(1) fn copy() { b[0] = a[0] * k.x; }
            @compute @workgroup_size(1) fn update() { b[0] = b[1] + 1.0; }
            @compute @workgroup_size(1) fn count() { atomicAdd(&c[0], arrayLength(&a)); }
        ";
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        let uses = entry_uses(&module, &info);
        assert_eq!(uses["copy"], [(0, 1), (1, 1), (2, 1)]);
        assert_eq!(uses["update"], [(2, 2)]);
        // arrayLength only queries `a`; the atomic reads and writes `c`.
        assert_eq!(uses["count"], [(3, 2)]);
    }
}
