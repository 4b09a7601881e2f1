//! Stage `prefix_sum`: exclusive prefix sum, reduce-then-scan level by level.
//! Shader `shaders/prefix_sum.wgsl`; CPU twin `src/cpu/prefix_sum.rs`.
//!
//! A scan of `len` entries takes one dispatch up to [`SCAN_BLOCK`] entries, two up to
//! `SCAN_BLOCK²` (`reduce`, then `scan_blocks` summing its offset from the raw block sums), and
//! two more a level above that. The first `reduce` is left out (`record`'s `reduced`) where the
//! pass that writes the input adds its block sums into [`first_sums`] as it goes: the cell
//! starts' (`count.wgsl`'s `seed_cell_start`) and the list's rows (`list_count`).

use super::buffers::ScanParams;
use super::pipelines::Module;
use super::stages::module;
use super::{WORKGROUP_SIZE, dispatch_dims, init_storage, storage, uniform};
use crate::setup::SCAN_BLOCK;

/// The module of `shaders/prefix_sum.wgsl` and its pipelines.
#[derive(Clone)]
pub struct PrefixSum {
    /// Module (layout and bind groups).
    pub module: Module,
    /// Each block's sum, into the level above.
    pub reduce: wgpu::ComputePipeline,
    /// Each block scanned, plus the scanned sum of the blocks before it.
    pub scan_blocks: wgpu::ComputePipeline,
    /// Each block scanned, plus the sum of the raw block sums before it (`SUM_OFFSET`: the
    /// level below the top, whose block sums fill one block).
    pub scan_blocks_summing: wgpu::ComputePipeline,
}

impl PrefixSum {
    /// Compiles the shader and its entry points.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = module(device, "prefix_sum");
        Self {
            reduce: module.pipeline(device, "reduce", &[]),
            scan_blocks: module.pipeline(device, "scan_blocks", &[]),
            scan_blocks_summing: module.pipeline(device, "scan_blocks", &[("SUM_OFFSET", 1.0)]),
            module,
        }
    }
}

/// One level of a prefix sum: its dispatch and bind groups.
pub struct ScanLevel {
    dims: (u32, u32),
    /// The level's entries and its block sums (`None` for a scan of one block).
    bind_reduce: Option<wgpu::BindGroup>,
    bind_scan: wgpu::BindGroup,
    /// The block sums are raw, at most one block of them (the top level, which no dispatch
    /// scans): `scan_blocks` sums the offset of its block itself.
    summing: bool,
    /// The level's block sums (u32 each), or for a scan of one block a 16-byte stand-in.
    sums: wgpu::Buffer,
}

/// Where a pass that writes the scan's input adds level 0's block sums when it does the first
/// `reduce`'s work itself ([`record`] with `reduced`): they start at zero only if that pass, or
/// one before it, zeroes them. A stand-in, which nothing reads, for a scan of one block.
pub fn first_sums(levels: &[ScanLevel]) -> &wgpu::Buffer {
    &levels[0].sums
}

/// The levels scanning the first `len` u32 of `data` in place: level 0 is `data`; each level
/// above holds the block sums of the one below ([`SCAN_BLOCK`] entries a block), up to the
/// level whose block sums fill one block (kept in a buffer, not a level: no dispatch scans
/// them).
pub fn levels(
    device: &wgpu::Device,
    stage: &PrefixSum,
    data: &wgpu::Buffer,
    len: u32,
    max_dim: u32,
) -> Vec<ScanLevel> {
    let zero = init_storage(device, "scan zero", &[0u32; 4]);
    let mut scan = Vec::new();
    let mut level_buf = data.clone();
    let mut len = len;
    loop {
        let blocks = len.div_ceil(SCAN_BLOCK as u32);
        let dims = dispatch_dims(blocks, max_dim);
        let sp = uniform(
            device,
            "scan params",
            &ScanParams {
                len,
                dispatch_x: dims.0 * WORKGROUP_SIZE,
                pad: [0; 2],
            },
        );
        let m = &stage.module;
        if blocks == 1 {
            let bind_scan = m.bind(
                device,
                &[("sp", &sp), ("data", &level_buf), ("block_sums", &zero)],
            );
            scan.push(ScanLevel {
                dims,
                bind_reduce: None,
                bind_scan,
                summing: false,
                sums: storage(device, "scan block sums (stand-in)", 16),
            });
            return scan;
        }
        let sums = storage(device, "scan block sums", 4 * blocks as u64);
        let bind = m.bind(
            device,
            &[("sp", &sp), ("data", &level_buf), ("block_sums", &sums)],
        );
        let summing = blocks <= SCAN_BLOCK as u32;
        scan.push(ScanLevel {
            dims,
            bind_reduce: Some(bind.clone()),
            bind_scan: bind,
            summing,
            sums: sums.clone(),
        });
        if summing {
            return scan;
        }
        level_buf = sums;
        len = blocks;
    }
}

/// Work-groups `(x, y)` of each level of a scan of `len` entries (as [`levels`] makes them).
pub fn level_dims(len: u32, max_dim: u32) -> Vec<(u32, u32)> {
    let mut dims = Vec::new();
    let mut len = len;
    loop {
        let blocks = len.div_ceil(SCAN_BLOCK as u32);
        dims.push(dispatch_dims(blocks, max_dim));
        if blocks <= SCAN_BLOCK as u32 {
            return dims;
        }
        len = blocks;
    }
}

/// Records the scan of `levels`: `reduce` up the levels (without level 0's when `reduced`: the
/// pass that wrote the input summed [`first_sums`]), then `scan_blocks` down (the top level's
/// summing its offsets); returns the dispatches recorded. With `gate` `(buffer, first)` every
/// dispatch of level k is indirect, from slot `first + k` of the gate's buffer (16 bytes a
/// slot; `neighbours::Gate`).
pub fn record(
    pass: &mut wgpu::ComputePass,
    stage: &PrefixSum,
    levels: &[ScanLevel],
    gate: Option<(&wgpu::Buffer, usize)>,
    reduced: bool,
) -> u64 {
    let dispatch = |pass: &mut wgpu::ComputePass, k: usize, level: &ScanLevel| match gate {
        Some((buffer, first)) => pass.dispatch_workgroups_indirect(buffer, 16 * (first + k) as u64),
        None => pass.dispatch_workgroups(level.dims.0, level.dims.1, 1),
    };
    let mut dispatches = 0;
    for (k, level) in levels.iter().enumerate().skip(usize::from(reduced)) {
        if let Some(bg) = &level.bind_reduce {
            pass.set_pipeline(&stage.reduce);
            pass.set_bind_group(0, bg, &[]);
            dispatch(pass, k, level);
            super::traffic::tally(&stage.reduce, bg);
            dispatches += 1;
        }
    }
    for (k, level) in levels.iter().enumerate().rev() {
        let pipeline = if level.summing {
            &stage.scan_blocks_summing
        } else {
            &stage.scan_blocks
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &level.bind_scan, &[]);
        dispatch(pass, k, level);
        super::traffic::tally(pipeline, &level.bind_scan);
        dispatches += 1;
    }
    dispatches
}
