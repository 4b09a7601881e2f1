//! The sphere state on the GPU: two sets of per-sphere buffers (the step sorts one into the
//! other), their upload from a packed scene, and the walls' records.

use super::buffers::PlaneGpu;
use super::{init_storage, storage};
use crate::scene::RollingModel;
use crate::setup::PackedScene;

/// One set of per-sphere buffers, in sorted order (their usual WGSL names: `pos`, `vel`, `acc`,
/// `props`, `ids`, `rot`).
pub(crate) struct StateSet {
    /// Position, m | radius, m (`vec4<f32>`).
    pub pos: wgpu::Buffer,
    /// Velocity, m/s | inverse mass, kg⁻¹ (0 for a fixed sphere).
    pub vel: wgpu::Buffer,
    /// Acceleration, m/s² | mass, kg (0 reads as infinite).
    pub acc: wgpu::Buffer,
    /// Restitution, damping ratio ζ, compliance (1 − ν²)/E (Pa⁻¹), friction μ.
    pub props: wgpu::Buffer,
    /// Input id of each sorted slot (u32).
    pub id: wgpu::Buffer,
    /// Rotation: 3 `vec4<f32>` per sphere, ω (rad/s) | inverse inertia ((kg·m²)⁻¹),
    /// orientation quaternion, angular acceleration (rad/s²) | rolling friction μ_r; a 16-byte
    /// stand-in without.
    pub rot: wgpu::Buffer,
}

impl StateSet {
    /// Set A filled from `p` (input order, rounded from f64 to f32) and set B allocated empty,
    /// for `n = p.len()` spheres; rotation and the rolling resistance law come from `p.params`.
    /// μ_r is stored only with rolling resistance (0 otherwise, so the shaders need not test
    /// the law).
    pub fn upload(device: &wgpu::Device, p: &PackedScene) -> [StateSet; 2] {
        let n = p.position.len();
        let Records {
            pos,
            vel,
            acc,
            props,
            rot,
        } = Records::of(p);
        let ids: Vec<u32> = (0..n as u32).collect();
        let rot_bytes = 16 * rot.len() as u64;
        let nn = n as u64;
        [
            StateSet {
                pos: init_storage(device, "position A", &pos),
                vel: init_storage(device, "velocity A", &vel),
                acc: init_storage(device, "acceleration A", &acc),
                props: init_storage(device, "properties A", &props),
                id: init_storage(device, "ids A", &ids),
                rot: init_storage(device, "rotation A", &rot),
            },
            StateSet {
                pos: storage(device, "position B", 16 * nn),
                vel: storage(device, "velocity B", 16 * nn),
                acc: storage(device, "acceleration B", 16 * nn),
                props: storage(device, "properties B", 16 * nn),
                id: storage(device, "ids B", 4 * nn),
                rot: storage(device, "rotation B", rot_bytes),
            },
        ]
    }
}

/// The per-sphere records of a state set for the spheres of `p`, in its order: `pos` (xyz,
/// radius), `vel` (xyz, inverse mass), `acc` (zero, mass; 0 for a fixed sphere), `props`
/// (restitution, ζ, compliance, μ) and, with rotation, `rot` (3 a sphere; one zeroed stand-in
/// without).
pub(crate) struct Records {
    pub pos: Vec<[f32; 4]>,
    pub vel: Vec<[f32; 4]>,
    pub acc: Vec<[f32; 4]>,
    pub props: Vec<[f32; 4]>,
    pub rot: Vec<[f32; 4]>,
}

impl Records {
    /// The records of `p`'s spheres ([`StateSet::upload`] uploads them; an insertion inside
    /// the binning writes them into the room kept).
    pub fn of(p: &PackedScene) -> Self {
        let n = p.position.len();
        let (rotation, rolling) = (p.params.rotation, p.params.rolling);
        let pos: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let x = p.position[i].as_vec3();
                [x.x, x.y, x.z, p.radius[i] as f32]
            })
            .collect();
        let vel: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                let v = p.velocity[i].as_vec3();
                [v.x, v.y, v.z, p.inv_mass[i] as f32]
            })
            .collect();
        // The shaders read mass 0 as infinite (fixed spheres).
        let acc: Vec<[f32; 4]> = p
            .mass
            .iter()
            .map(|&m| [0.0, 0.0, 0.0, if m.is_finite() { m as f32 } else { 0.0 }])
            .collect();
        let props: Vec<[f32; 4]> = (0..n)
            .map(|i| {
                [
                    p.restitution[i] as f32,
                    p.zeta[i] as f32,
                    p.compliance[i] as f32,
                    p.friction[i] as f32,
                ]
            })
            .collect();
        // ω | inverse inertia (rounded from f64, as the CPU's), identity orientation, α = 0 |
        // rolling friction μ_r (0 without rolling resistance).
        let rot: Vec<[f32; 4]> = if rotation {
            (0..n)
                .flat_map(|i| {
                    let w = p.angular_velocity[i].as_vec3();
                    let k = crate::physics::rotation::inverse_inertia(p.inv_mass[i], p.radius[i]);
                    let mu_r = if rolling != RollingModel::None {
                        p.rolling_friction[i] as f32
                    } else {
                        0.0
                    };
                    [
                        [w.x, w.y, w.z, k as f32],
                        [0.0, 0.0, 0.0, 1.0],
                        [0.0, 0.0, 0.0, mu_r],
                    ]
                })
                .collect()
        } else {
            vec![[0.0; 4]]
        };
        Self {
            pos,
            vel,
            acc,
            props,
            rot,
        }
    }
}

/// The walls' records: planes, then spherical containers; one zeroed stand-in (a plane) when
/// there are none (a binding cannot be empty).
pub(crate) fn wall_records(p: &PackedScene) -> Vec<PlaneGpu> {
    let mut planes: Vec<PlaneGpu> = p
        .walls
        .iter()
        .map(|w| PlaneGpu {
            point: w.point.as_vec3().to_array(),
            e: w.restitution as f32,
            normal: w.normal.as_vec3().to_array(),
            zeta: w.zeta as f32,
            compliance: w.compliance as f32,
            mu: w.friction as f32,
            radius: w.radius as f32,
            rolling_friction: w.rolling_friction as f32,
            velocity: w.velocity.as_vec3().to_array(),
            kind: w.kind.code(),
        })
        .collect();
    if planes.is_empty() {
        planes.push(PlaneGpu::default());
    }
    planes
}

/// Buffers that several stages bind besides the state sets and the list's own, one of each
/// (kept to bind them again when the list grows). Each stage's `bind` picks its bindings from
/// here, so that no stage's bind group is assembled elsewhere.
#[derive(Clone)]
pub(crate) struct SharedBuffers {
    /// Uniform [`super::buffers::Params`].
    pub params: wgpu::Buffer,
    /// [`super::buffers::Grid`] of the current step.
    pub grid: wgpu::Buffer,
    /// [`super::buffers::Status`] the host reads.
    pub status: wgpu::Buffer,
    /// Cell-start table (prefix sums of the counts), `table_size + 1` × u32.
    pub cell_start: wgpu::Buffer,
    /// Spheres per hash bucket, `table_size + 1` × u32.
    pub counts: wgpu::Buffer,
    /// Wall records ([`PlaneGpu`]).
    pub planes: wgpu::Buffer,
    /// Each sphere's earliest event (impulses), `vec4<u32>`. The soft laws have none: with
    /// `wall_forces` they record the force each wall exerted on each sphere there instead, N
    /// (`vec4<f32>` bits at sorted slot × walls + wall; collide.wgsl `record_wall_force`).
    pub earliest: wgpu::Buffer,
    /// Each sphere's contact result, first half: Δv (impulses, m/s) or the force (soft laws,
    /// N), and the spring energy (J), `vec4<f32>`.
    pub contact: wgpu::Buffer,
    /// Each sphere's contact result, second half: Δx (m) and the dissipated power (W),
    /// `vec4<f32>`. Apart from [`SharedBuffers::contact`], so that no binding holds more than
    /// 16 bytes a sphere.
    pub contact_dx: wgpu::Buffer,
    /// Each sphere's contact counts, `vec4<u32>`.
    pub contact_counts: wgpu::Buffer,
    /// Each sphere's binned cell, `vec4<i32>`.
    pub cells: wgpu::Buffer,
    /// The large spheres' boxes, 2 × `vec4<i32>`.
    pub boxes: wgpu::Buffer,
    /// Work-groups per large sphere in the list's build (`neighbours::large_chunks`).
    pub large_chunks: u32,
    /// The large spheres' build counts, `large_chunks + 1` u32 each: each work-group's entries
    /// of the box walk, then the row's total.
    pub large_counts: wgpu::Buffer,
    /// Work counters (`gpu::work`), [`super::work::WORDS`] × u32.
    pub work: wgpu::Buffer,
    /// The binning's permutation: sorted slot → previous slot, u32.
    pub perm: wgpu::Buffer,
    /// Each sphere's friction torque, N·m (`vec4<f32>`; a 16-byte stand-in without rotation).
    pub torque: wgpu::Buffer,
    /// Each sphere's mutual-gravity acceleration, m/s² (`vec4<f32>`).
    pub a_mutual: wgpu::Buffer,
    /// Energy each sphere's contacts dissipated, J (f32, by input id).
    pub dissipated: wgpu::Buffer,
    /// Periodic images, box lengths crossed per axis (3 × i32 by input id; a 16-byte stand-in
    /// without periodic axes).
    pub image: wgpu::Buffer,
    /// Each sphere's bucket key, u32.
    pub keys: wgpu::Buffer,
    /// Each sphere's arrival slot in its bucket (the counting in `cell_keys`), u32.
    pub slot: wgpu::Buffer,
    /// Each sphere's arrival order (scatter), u32.
    pub arrival: wgpu::Buffer,
    /// Diagnostics partial sums, one per work-group (48 B).
    pub partial_f: wgpu::Buffer,
    /// Diagnostics partial counts, one per work-group (8 B).
    pub partial_u: wgpu::Buffer,
}

impl SharedBuffers {
    /// Allocates the shared buffers for `spheres` spheres (`params.n` or more: room kept,
    /// `GpuOptions::sphere_capacity`), `table_size` hash buckets,
    /// `n_large` large spheres (each built by `large_chunks` work-groups) and `groups` work-groups of a per-sphere dispatch (padding ones
    /// of a 2-D dispatch included: one diagnostics partial each), with the walls' `planes` and,
    /// in a periodic scene, each sphere's initial `image` (by input id). The grid starts at
    /// step 0; the rest is zeroed by wgpu. The friction torque is a 16-byte stand-in without
    /// rotation (`params.rotation`).
    pub fn new(
        device: &wgpu::Device,
        (params, spheres): (&super::buffers::Params, u64),
        planes: &[PlaneGpu],
        image: &[[i32; 3]],
        table_size: u32,
        (n_large, large_chunks): (usize, u32),
        groups: u64,
    ) -> Self {
        let nn = spheres;
        let rotation = params.rotation != 0;
        let table_bytes = 4 * (table_size as u64 + 1);
        Self {
            params: super::uniform(device, "params", params),
            grid: init_storage(
                device,
                "grid",
                &[super::buffers::Grid {
                    step: 0,
                    ..Default::default()
                }],
            ),
            status: init_storage(device, "status", &[super::buffers::Status::default()]),
            cell_start: storage(device, "cell start", table_bytes),
            counts: storage(device, "counts", table_bytes),
            planes: init_storage(device, "planes", planes),
            earliest: storage(
                device,
                "earliest events",
                16 * nn
                    * if params.wall_forces != 0 {
                        planes.len().max(1) as u64
                    } else {
                        1
                    },
            ),
            contact: storage(device, "contact results", 16 * nn),
            contact_dx: storage(device, "contact displacements", 16 * nn),
            contact_counts: storage(device, "contact counts", 16 * nn),
            cells: storage(device, "binned cells", 16 * nn),
            boxes: storage(device, "large-sphere boxes", 32 * n_large.max(1) as u64),
            large_chunks,
            large_counts: storage(
                device,
                "large-sphere build counts",
                4 * (large_chunks as u64 + 1) * n_large.max(1) as u64,
            ),
            work: storage(device, "work counters", 4 * super::work::WORDS as u64),
            perm: storage(device, "permutation", 4 * nn),
            torque: storage(device, "torque", if rotation { 16 * nn } else { 16 }),
            a_mutual: storage(device, "mutual gravity", 16 * nn),
            // Indexed by input id, so the scatter need not move it.
            dissipated: storage(device, "dissipated energy", 4 * nn),
            // By input id too: the scene's images at set-up.
            image: if params.periodic != 0 {
                init_storage(device, "periodic images", image)
            } else {
                storage(device, "periodic images", 16)
            },
            keys: storage(device, "keys", 4 * nn),
            slot: storage(device, "slots", 4 * nn),
            arrival: storage(device, "arrival", 4 * nn),
            partial_f: storage(device, "diagnostics partials", 48 * groups),
            partial_u: storage(device, "diagnostics counts", 8 * groups),
        }
    }
}
