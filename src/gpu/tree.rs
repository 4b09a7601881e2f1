//! Mutual gravity by a Barnes–Hut tree on the GPU (`gravity_solver = "tree"`): the stages of
//! [`crate::cpu::tree`] in WGSL, with the same names, constants and order, recorded into one
//! compute pass per evaluation:
//!
//! `tree_bounds` (levels) → `morton_codes` → `radix_sort` (16 passes of `radix_count`, prefix
//! sum, `radix_scatter`) → `karras_tree` → `escapes` → `tree_groups` → prefix sum →
//! `compact_groups` → `tree_moments` → `tree_walk` (indirect: one work-group per group).
//!
//! Every stage but the walk is exact on lavapipe (integers, min/max, and the moments' fixed
//! order), which the tests check against the CPU twin; the walk's sums also follow the CPU's
//! order. No invocation's work grows with N: the sort ranks within a block of `WG` keys, the
//! group climb is at most `GROUP` steps, and the walk's length is that of its group's list.

use super::buffers::TreeParams;
use super::pipelines::Module;
use super::prefix_sum::{self, ScanLevel};
use super::{WORKGROUP_SIZE, dispatch_dims, storage, uniform};
use crate::cpu::tree::morton::MORTON_BITS;
use crate::cpu::tree::sort::RADIX_BITS;

/// Radix-sort passes over the 64-bit keys (the 63-bit codes round up to whole digits).
pub const SORT_PASSES: u32 = (3 * MORTON_BITS).div_ceil(RADIX_BITS);

// The passes cover every code bit, and their count is even, so the sorted keys end in set 0.
const _: () = assert!(SORT_PASSES * RADIX_BITS >= 3 * MORTON_BITS && SORT_PASSES.is_multiple_of(2));

/// Bytes of one cell (`TreeCell` in common.wgsl).
pub const CELL_BYTES: u64 = 80;

/// Bytes per body of the GPU tree's buffers, for the memory-fit check: an internal cell and a
/// leaf (n − 1 and n), the sort's keys twice (three u32 each), the tree's nine u32 arrays and
/// the four group arrays; the scans' upper levels and the bounds' partials add under 1 %.
pub const BYTES_PER_BODY: u64 = CELL_BYTES + 16 + 2 * 12 + 9 * 4 + 4 * 4;

/// The tree's shader modules and their pipelines, as typed fields (no lookup by name), compiled
/// when a scene asks for the tree.
pub struct TreeStages {
    bounds: Module,
    morton: Module,
    sort: Module,
    karras: Module,
    moments: Module,
    walk: Module,
    tree_bounds: wgpu::ComputePipeline,
    morton_codes: wgpu::ComputePipeline,
    radix_count: wgpu::ComputePipeline,
    radix_scatter: wgpu::ComputePipeline,
    karras_tree: wgpu::ComputePipeline,
    escapes: wgpu::ComputePipeline,
    tree_groups: wgpu::ComputePipeline,
    compact_groups: wgpu::ComputePipeline,
    tree_moments: wgpu::ComputePipeline,
    tree_walk: wgpu::ComputePipeline,
    tree_walk_potential: wgpu::ComputePipeline,
}

impl TreeStages {
    /// Compiles the six tree shaders (each with `shaders/common.wgsl`) and their pipelines.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = |name: &'static str| super::stages::module(device, name);
        let (bounds, morton, sort) = (
            module("tree_bounds"),
            module("morton"),
            module("radix_sort"),
        );
        let (karras, moments, walk) = (
            module("karras"),
            module("tree_moments"),
            module("tree_walk"),
        );
        let p = |m: &Module, entry: &str| m.pipeline(device, entry, &[]);
        Self {
            tree_bounds: p(&bounds, "tree_bounds"),
            morton_codes: p(&morton, "morton_codes"),
            radix_count: p(&sort, "radix_count"),
            radix_scatter: p(&sort, "radix_scatter"),
            karras_tree: p(&karras, "karras_tree"),
            escapes: p(&karras, "escapes"),
            tree_groups: p(&karras, "tree_groups"),
            compact_groups: p(&karras, "compact_groups"),
            tree_moments: p(&moments, "tree_moments"),
            tree_walk: p(&walk, "tree_walk"),
            tree_walk_potential: walk.pipeline(device, "tree_walk", &[("WITH_POTENTIAL", 1.0)]),
            bounds,
            morton,
            sort,
            karras,
            moments,
            walk,
        }
    }
}

/// The body buffers one evaluation reads and writes (a state set of the backend).
pub struct TreeInputs<'a> {
    /// Positions (`n` × `vec4<f32>`, xyz m).
    pub pos: &'a wgpu::Buffer,
    /// Accelerations (`n` × `vec4<f32>`, w: gravitating mass kg, 0 for none).
    pub acc: &'a wgpu::Buffer,
    /// Output: mutual acceleration (`n` × `vec4<f32>`, xyz m/s², w potential energy J when the
    /// potential is asked for).
    pub a_mutual: &'a wgpu::Buffer,
}

/// Bind groups of the stages that read a state set's bodies.
struct BodyBinds {
    bounds0: wgpu::BindGroup,
    morton: wgpu::BindGroup,
    moments: wgpu::BindGroup,
    walk: wgpu::BindGroup,
}

/// The tree's buffers (named as the CPU's [`crate::cpu::tree::Tree`] fields), read back by tests.
pub struct TreeBuffers {
    /// Sort keys and values, two sets (hi, lo, value); set 0 holds the sorted result.
    pub keys: [[wgpu::Buffer; 3]; 2],
    /// Internal nodes (n − 1 each, at least 1).
    pub left: wgpu::Buffer,
    /// See `left`.
    pub right: wgpu::Buffer,
    /// See `left`.
    pub first: wgpu::Buffer,
    /// See `left`.
    pub last: wgpu::Buffer,
    /// See `left`.
    pub split_right: wgpu::Buffer,
    /// Per node reference (2n − 1).
    pub parent: wgpu::Buffer,
    /// See `parent`.
    pub escape: wgpu::Buffer,
    /// Walk groups in Morton order (first `group_dispatch[3]` entries).
    pub groups: wgpu::Buffer,
    /// The walk's indirect dispatch: x, y, 1, then the group count.
    pub group_dispatch: wgpu::Buffer,
    /// Internal cells (n − 1 × 80 bytes, at least 1).
    pub cells: wgpu::Buffer,
    /// Leaves by sorted position (n × `vec4<f32>`: position m, mass kg): a leaf's cell is its
    /// body, so it keeps 16 bytes, not 80.
    pub leaves: wgpu::Buffer,
    /// Per group: the length of its interaction list (what each of its bodies sums).
    pub group_work: wgpu::Buffer,
    arrivals: wgpu::Buffer,
}

/// A GPU gravity tree for `n` bodies and up to two state sets.
pub struct GpuTree {
    stages: TreeStages,
    /// The buffers (public for the twin tests' read-back).
    pub buf: TreeBuffers,
    n: u32,
    body_dims: (u32, u32),
    node_dims: (u32, u32),
    group_dims: (u32, u32),
    /// Bounds levels above the first: bind group and dims.
    bounds_levels: Vec<(wgpu::BindGroup, (u32, u32))>,
    /// Level 0's dims.
    bounds_dims: (u32, u32),
    /// Per sort pass: its bind group (the same for count and scatter).
    sort_passes: Vec<wgpu::BindGroup>,
    hist_scan: Vec<ScanLevel>,
    group_scan: Vec<ScanLevel>,
    karras: wgpu::BindGroup,
    karras_nodes: wgpu::BindGroup,
    karras_groups: wgpu::BindGroup,
    bodies: Vec<BodyBinds>,
    scan_stage: super::prefix_sum::PrefixSum,
}

/// Which ping-pong partial buffer level `k` of the bounds writes.
fn bounds_out(k: usize) -> usize {
    k % 2
}

impl GpuTree {
    /// Allocates the tree of `n` ≥ 1 bodies, opening angle `theta`, `g_const` = G (m³ kg⁻¹ s⁻²)
    /// and `eps2` = ε² (m²), reading the body buffers of each of `inputs` (one per state set),
    /// with at most `max_dim` work-groups along one dispatch dimension.
    pub fn new(
        device: &wgpu::Device,
        n: u32,
        theta: f32,
        g_const: f32,
        eps2: f32,
        max_dim: u32,
        inputs: &[TreeInputs],
    ) -> Self {
        assert!(n >= 1, "a tree needs a body");
        let stages = TreeStages::new(device);
        let scan_stage = super::prefix_sum::PrefixSum::new(device);
        let wg = WORKGROUP_SIZE;
        let internal = (n - 1).max(1) as u64;
        let nodes = 2 * n as u64 - 1;
        let nn = n as u64;
        let params = |label: &str, len: u32, shift: u32, blocks: u32, dims: (u32, u32)| {
            uniform(
                device,
                label,
                &TreeParams {
                    n,
                    len,
                    shift,
                    blocks,
                    dispatch_x: dims.0 * wg,
                    theta2: theta * theta,
                    eps2,
                    g_const,
                },
            )
        };
        let blocks = n.div_ceil(wg);
        let body_dims = dispatch_dims(blocks, max_dim);
        let node_dims = dispatch_dims((2 * n - 1).div_ceil(wg), max_dim);
        let group_dims = dispatch_dims((n + 1).div_ceil(wg), max_dim);
        let u32s = |label: &str, len: u64| storage(device, label, 4 * len);
        let keys = [0, 1].map(|s| {
            [
                u32s(
                    if s == 0 {
                        "tree keys hi A"
                    } else {
                        "tree keys hi B"
                    },
                    nn,
                ),
                u32s(
                    if s == 0 {
                        "tree keys lo A"
                    } else {
                        "tree keys lo B"
                    },
                    nn,
                ),
                u32s(
                    if s == 0 {
                        "tree order A"
                    } else {
                        "tree order B"
                    },
                    nn,
                ),
            ]
        });
        let group_dispatch = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tree walk dispatch"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let buf = TreeBuffers {
            keys,
            left: u32s("tree left", internal),
            right: u32s("tree right", internal),
            first: u32s("tree first", internal),
            last: u32s("tree last", internal),
            split_right: u32s("tree split right", internal),
            parent: u32s("tree parent", nodes),
            escape: u32s("tree escape", nodes),
            groups: u32s("tree groups", nn),
            group_dispatch,
            cells: storage(device, "tree cells", CELL_BYTES * internal),
            leaves: storage(device, "tree leaves", 16 * nn),
            group_work: u32s("tree group work", nn),
            arrivals: u32s("tree arrivals", internal),
        };
        let group_index = u32s("tree group index", nn + 1);
        let group_at = u32s("tree group at", nn);
        let hist = u32s("radix histograms", 16 * blocks as u64);

        // Bounds: level 0 reads the bodies, each level above the partials below it.
        let partials = [
            storage(device, "bounds partials A", 32 * blocks as u64),
            storage(device, "bounds partials B", 32 * blocks.div_ceil(wg) as u64),
        ];
        let bounds_dims = body_dims;
        let p0 = params("bounds level 0", n, 0, 0, bounds_dims);
        let mut bounds_levels = Vec::new();
        let mut len = blocks;
        let mut k = 0;
        while len > 1 {
            let dims = dispatch_dims(len.div_ceil(wg), max_dim);
            let p = params("bounds level", len, 1, 0, dims);
            let (src, dst) = (&partials[bounds_out(k)], &partials[bounds_out(k + 1)]);
            let bind = stages
                .bounds
                .bind(device, &[("tp", &p), ("src", src), ("dst", dst)]);
            bounds_levels.push((bind, dims));
            len = len.div_ceil(wg);
            k += 1;
        }
        let bounds_final = &partials[bounds_out(k)];

        let body_params = params("tree bodies", n, 0, max_dim, body_dims);
        let node_params = params("tree nodes", n, 0, max_dim, node_dims);
        let group_params = params("tree groups", n, 0, max_dim, group_dims);
        let bodies = inputs
            .iter()
            .map(|inp| BodyBinds {
                bounds0: stages.bounds.bind(
                    device,
                    &[
                        ("tp", &p0),
                        ("src", inp.pos),
                        ("dst", &partials[bounds_out(0)]),
                    ],
                ),
                morton: stages.morton.bind(
                    device,
                    &[
                        ("tp", &body_params),
                        ("pos", inp.pos),
                        ("bounds", bounds_final),
                        ("key_hi", &buf.keys[0][0]),
                        ("key_lo", &buf.keys[0][1]),
                        ("value", &buf.keys[0][2]),
                    ],
                ),
                moments: stages.moments.bind(
                    device,
                    &[
                        ("tp", &body_params),
                        ("pos", inp.pos),
                        ("acc", inp.acc),
                        ("order", &buf.keys[0][2]),
                        ("left", &buf.left),
                        ("right", &buf.right),
                        ("parent", &buf.parent),
                        ("arrivals", &buf.arrivals),
                        ("cells", &buf.cells),
                        ("leaves", &buf.leaves),
                    ],
                ),
                walk: stages.walk.bind(
                    device,
                    &[
                        ("tp", &body_params),
                        ("pos", inp.pos),
                        ("order", &buf.keys[0][2]),
                        ("left", &buf.left),
                        ("first", &buf.first),
                        ("last", &buf.last),
                        ("escape", &buf.escape),
                        ("cells", &buf.cells),
                        ("groups", &buf.groups),
                        ("group_dispatch", &buf.group_dispatch),
                        ("a_mutual", inp.a_mutual),
                        ("acc", inp.acc),
                        ("group_work", &buf.group_work),
                        ("leaves", &buf.leaves),
                    ],
                ),
            })
            .collect();

        let sort_passes = (0..SORT_PASSES)
            .map(|p| {
                let up = params("radix pass", n, p * RADIX_BITS, blocks, body_dims);
                let (i, o) = (&buf.keys[p as usize % 2], &buf.keys[1 - p as usize % 2]);
                stages.sort.bind(
                    device,
                    &[
                        ("tp", &up),
                        ("in_hi", &i[0]),
                        ("in_lo", &i[1]),
                        ("in_value", &i[2]),
                        ("hist", &hist),
                        ("out_hi", &o[0]),
                        ("out_lo", &o[1]),
                        ("out_value", &o[2]),
                    ],
                )
            })
            .collect();
        let hist_scan = prefix_sum::levels(device, &scan_stage, &hist, 16 * blocks, max_dim);
        let group_scan = prefix_sum::levels(device, &scan_stage, &group_index, n + 1, max_dim);
        let karras_bind = |p: &wgpu::Buffer| {
            stages.karras.bind(
                device,
                &[
                    ("tp", p),
                    ("code_hi", &buf.keys[0][0]),
                    ("code_lo", &buf.keys[0][1]),
                    ("left", &buf.left),
                    ("right", &buf.right),
                    ("first", &buf.first),
                    ("last", &buf.last),
                    ("split_right", &buf.split_right),
                    ("parent", &buf.parent),
                    ("escape", &buf.escape),
                    ("group_index", &group_index),
                    ("group_at", &group_at),
                    ("groups", &buf.groups),
                    ("group_dispatch", &buf.group_dispatch),
                ],
            )
        };
        Self {
            karras: karras_bind(&body_params),
            karras_nodes: karras_bind(&node_params),
            karras_groups: karras_bind(&group_params),
            stages,
            buf,
            n,
            body_dims,
            node_dims,
            group_dims,
            bounds_levels,
            bounds_dims,
            sort_passes,
            hist_scan,
            group_scan,
            bodies,
            scan_stage,
        }
    }

    /// Bodies in the tree.
    pub fn len(&self) -> u32 {
        self.n
    }

    /// Whether the tree has no body (never: [`GpuTree::new`] needs one).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The interaction counts of the last walk, read back (a bench's figure, not for every
    /// step): per body, the length of its group's list.
    pub fn walk_counts(&self, ctx: &super::GpuContext) -> crate::cpu::tree::WalkCounts {
        let n = self.n;
        let dispatch: Vec<u32> = super::read_buffer(ctx, &self.buf.group_dispatch, 16);
        let groups = dispatch[3];
        let nodes: Vec<u32> = super::read_buffer(ctx, &self.buf.groups, 4 * groups as u64);
        let work: Vec<u32> = super::read_buffer(ctx, &self.buf.group_work, 4 * groups as u64);
        let (first, last): (Vec<u32>, Vec<u32>) = if n > 1 {
            let bytes = 4 * (n - 1) as u64;
            (
                super::read_buffer(ctx, &self.buf.first, bytes),
                super::read_buffer(ctx, &self.buf.last, bytes),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let mut c = crate::cpu::tree::WalkCounts::default();
        for (&node, &w) in nodes.iter().zip(&work) {
            let k = node as usize;
            let size = if k + 1 < n as usize {
                (last[k] - first[k] + 1) as u64
            } else {
                1
            };
            c.walks += size;
            c.interactions += w as u64 * size;
            c.max = c.max.max(w);
        }
        c
    }

    /// Records one evaluation on the bodies of state set `set`: the build, then the walk into
    /// `a_mutual` (with each body's potential energy when `with_potential`). Returns the
    /// dispatches recorded. `begin` opens the compute pass (the caller's labels and timing).
    pub fn record<'e>(
        &self,
        enc: &'e mut wgpu::CommandEncoder,
        set: usize,
        with_potential: bool,
        begin: impl FnOnce(&'e mut wgpu::CommandEncoder) -> wgpu::ComputePass<'e>,
    ) -> u64 {
        enc.clear_buffer(&self.buf.arrivals, 0, None);
        let mut pass = begin(enc);
        let s = &self.stages;
        let b = &self.bodies[set];
        let mut dispatches = 0u64;
        let mut go = |pass: &mut wgpu::ComputePass,
                      pipeline: &wgpu::ComputePipeline,
                      bind: &wgpu::BindGroup,
                      dims: (u32, u32)| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind, &[]);
            pass.dispatch_workgroups(dims.0, dims.1, 1);
            super::traffic::tally(pipeline, bind);
            dispatches += 1;
        };
        pass.push_debug_group("tree_bounds");
        go(&mut pass, &s.tree_bounds, &b.bounds0, self.bounds_dims);
        for (bind, dims) in &self.bounds_levels {
            go(&mut pass, &s.tree_bounds, bind, *dims);
        }
        pass.pop_debug_group();
        pass.push_debug_group("morton");
        go(&mut pass, &s.morton_codes, &b.morton, self.body_dims);
        pass.pop_debug_group();
        pass.push_debug_group("radix_sort");
        let mut scans = 0;
        for bind in &self.sort_passes {
            go(&mut pass, &s.radix_count, bind, self.body_dims);
            scans += prefix_sum::record(&mut pass, &self.scan_stage, &self.hist_scan, None, false);
            go(&mut pass, &s.radix_scatter, bind, self.body_dims);
        }
        pass.pop_debug_group();
        pass.push_debug_group("karras_tree");
        go(&mut pass, &s.karras_tree, &self.karras, self.body_dims);
        go(&mut pass, &s.escapes, &self.karras_nodes, self.node_dims);
        go(
            &mut pass,
            &s.tree_groups,
            &self.karras_groups,
            self.group_dims,
        );
        scans += prefix_sum::record(&mut pass, &self.scan_stage, &self.group_scan, None, false);
        go(&mut pass, &s.compact_groups, &self.karras, self.body_dims);
        pass.pop_debug_group();
        pass.push_debug_group("tree_moments");
        go(&mut pass, &s.tree_moments, &b.moments, self.body_dims);
        pass.pop_debug_group();
        pass.push_debug_group("tree_walk");
        let walk = if with_potential {
            &s.tree_walk_potential
        } else {
            &s.tree_walk
        };
        pass.set_pipeline(walk);
        pass.set_bind_group(0, &b.walk, &[]);
        pass.dispatch_workgroups_indirect(&self.buf.group_dispatch, 0);
        super::traffic::tally(walk, &b.walk);
        pass.pop_debug_group();
        dispatches + scans + 1
    }
}

/// One GPU evaluation read back: the tree's arrays (as the CPU's [`crate::cpu::tree::Tree`]
/// names them) and the accelerations, for the twin tests.
#[derive(Clone, Debug, Default)]
pub struct TreeReadback {
    /// Codes in Morton order.
    pub sorted_codes: Vec<u64>,
    /// Body indices in Morton order.
    pub order: Vec<u32>,
    /// Internal nodes (n − 1).
    pub left: Vec<u32>,
    /// See `left`.
    pub right: Vec<u32>,
    /// See `left`.
    pub first: Vec<u32>,
    /// See `left`.
    pub last: Vec<u32>,
    /// Per node reference (2n − 1).
    pub parent: Vec<u32>,
    /// See `parent`.
    pub escape: Vec<u32>,
    /// The walk groups in Morton order.
    pub groups: Vec<u32>,
    /// Cells (2n − 1): centre of mass and mass, quadrupole `[xx, yy, zz, xy]`, `[xz, yz, b_max², 0]`,
    /// box `lo`, `hi` (the w of each is 0); a leaf's is made from its body as the CPU's
    /// `leaf_cell` makes it.
    pub cells: Vec<[[f32; 4]; 5]>,
    /// Mutual acceleration (xyz, m/s²) and, with the potential, ½ G m Φ (J) per body.
    pub a_mutual: Vec<[f32; 4]>,
}

/// Builds and walks the tree of bodies at `position` (m) with `mass` (kg, 0 for none) on
/// `ctx`, with opening angle `theta`, `g_const` = G and `eps2` = ε², and reads everything back.
///
/// # Panics
/// When `position` is empty or the lengths differ.
pub fn evaluate(
    ctx: &super::GpuContext,
    position: &[[f32; 3]],
    mass: &[f32],
    theta: f32,
    g_const: f32,
    eps2: f32,
    with_potential: bool,
) -> TreeReadback {
    assert_eq!(position.len(), mass.len());
    let n = position.len() as u32;
    let device = &ctx.device;
    let pos: Vec<[f32; 4]> = position.iter().map(|p| [p[0], p[1], p[2], 0.0]).collect();
    let acc: Vec<[f32; 4]> = mass.iter().map(|&m| [0.0, 0.0, 0.0, m]).collect();
    let pos = super::init_storage(device, "tree test positions", &pos);
    let acc = super::init_storage(device, "tree test masses", &acc);
    let a_mutual = storage(device, "tree test accelerations", 16 * n as u64);
    let max_dim = ctx.limits.max_compute_workgroups_per_dimension;
    let inputs = TreeInputs {
        pos: &pos,
        acc: &acc,
        a_mutual: &a_mutual,
    };
    let tree = GpuTree::new(device, n, theta, g_const, eps2, max_dim, &[inputs]);
    let mut enc = device.create_command_encoder(&Default::default());
    tree.record(&mut enc, 0, with_potential, |e| {
        e.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("tree"),
            timestamp_writes: None,
        })
    });
    ctx.queue.submit([enc.finish()]);
    let u = |b: &wgpu::Buffer, len: u32| -> Vec<u32> {
        if len == 0 {
            Vec::new()
        } else {
            super::read_buffer(ctx, b, 4 * len as u64)
        }
    };
    let b = &tree.buf;
    let (internal, nodes) = (n - 1, 2 * n - 1);
    let hi = u(&b.keys[0][0], n);
    let lo = u(&b.keys[0][1], n);
    let dispatch = u(&b.group_dispatch, 4);
    TreeReadback {
        sorted_codes: hi
            .iter()
            .zip(&lo)
            .map(|(&h, &l)| ((h as u64) << 32) | l as u64)
            .collect(),
        order: u(&b.keys[0][2], n),
        left: u(&b.left, internal),
        right: u(&b.right, internal),
        first: u(&b.first, internal),
        last: u(&b.last, internal),
        parent: u(&b.parent, nodes),
        escape: u(&b.escape, nodes),
        groups: u(&b.groups, dispatch[3]),
        cells: {
            let mut cells: Vec<[[f32; 4]; 5]> = if internal > 0 {
                super::read_buffer(ctx, &b.cells, CELL_BYTES * internal as u64)
            } else {
                Vec::new()
            };
            let leaves: Vec<[f32; 4]> = super::read_buffer(ctx, &b.leaves, 16 * n as u64);
            cells.extend(leaves.iter().map(|&[x, y, z, m]| {
                [
                    [x, y, z, m],
                    [0.0; 4],
                    [0.0; 4],
                    [x, y, z, 0.0],
                    [x, y, z, 0.0],
                ]
            }));
            cells
        },
        a_mutual: super::read_buffer(ctx, &a_mutual, 16 * n as u64),
    }
}
