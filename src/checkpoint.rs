//! Checkpoints: the whole state of a run in one versioned file, so that a resumed run continues
//! bit for bit (docs/long-runs.md).
//!
//! # File format
//!
//! A checkpoint file is one [postcard](https://docs.rs/postcard) record, the envelope:
//! `magic` ([`MAGIC`]), `version` ([`FORMAT_VERSION`]), the writer's crate version, the CRC-32
//! of the body, and the body: a postcard-encoded [`Checkpoint`]. Reading checks each in turn,
//! so a foreign file, a newer format, a truncated file and a flipped bit get different errors.
//!
//! [`Checkpointer`] writes `DIR/checkpoint_{step:010}.ckpt` atomically (a temporary file renamed
//! into place) and keeps the newest [`KEEP`]; a non-finite stop writes
//! `DIR/nonfinite_{step:010}.ckpt` beside them for inspection.

use crate::history::{ContactMemory, Kept};
use crate::output::{OutputError, SeriesEntry, SnapshotFormat, write_atomic};
use crate::{Backend, Diagnostics, Precision, Scene};
use glam::DVec3;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// First field of every checkpoint file.
pub const MAGIC: &str = "spheresim checkpoint";

/// Version of the body layout; a reader refuses any other. Raise it whenever [`Checkpoint`] or
/// anything it holds changes shape.
pub const FORMAT_VERSION: u32 = 12;

/// File extension of checkpoints.
pub const EXTENSION: &str = "ckpt";

/// Periodic checkpoints kept in the directory; older ones are removed after a new one is
/// complete.
pub const KEEP: usize = 2;

/// Errors reading, checking or writing checkpoints. Each names the file or directory.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file cannot be read.
    #[error("cannot read checkpoint {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// The file does not start with the checkpoint header.
    #[error("{path} is not a spheresim checkpoint (it does not start with the checkpoint header)")]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// The file has another format version.
    #[error(
        "{path} is a checkpoint of format version {found} (written by spheresim {writer}); this \
         spheresim {this} reads version {FORMAT_VERSION} only"
    )]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
        /// The crate version that wrote it.
        writer: String,
        /// This crate's version.
        this: &'static str,
    },
    /// The file ends early.
    #[error("checkpoint {path} is truncated ({bytes} bytes): {reason}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Its length.
        bytes: u64,
        /// What was missing.
        reason: String,
    },
    /// The body does not match its checksum or does not decode.
    #[error("checkpoint {path} is corrupt: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The checkpoint cannot continue on this backend (e.g. its state does not fit the scene).
    #[error("checkpoint {path} cannot be resumed: {reason}")]
    Unusable {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Not enough free disk space for the checkpoints of a run.
    #[error(
        "not enough disk space for checkpoints in {dir}: {KEEP} kept plus one being written \
         need about {need} bytes ({per} bytes each), {available} bytes are available"
    )]
    Space {
        /// The checkpoint directory.
        dir: PathBuf,
        /// Bytes needed.
        need: u64,
        /// Bytes of one checkpoint.
        per: u64,
        /// Bytes available to this user.
        available: u64,
    },
    /// Another process holds the checkpoint directory's lock: two runs would prune each
    /// other's checkpoints.
    #[error(
        "checkpoint directory {dir} is in use by another spheresim run (it holds the \
         directory's lock); give this run another {}, or wait for that run to end",
        crate::naming::Setting::CheckpointDir
    )]
    Locked {
        /// The checkpoint directory.
        dir: PathBuf,
    },
    /// A new run was given a directory that holds another run's checkpoints: its own would
    /// overwrite theirs where the steps agree, and its pruning would remove the rest.
    #[error(
        "checkpoint directory {dir} already holds {count} checkpoint(s) of another run (the \
         newest {newest}); a new run would overwrite and prune them. Give this run another {}, \
         continue that run ({} {dir}), or move them away",
        crate::naming::Setting::CheckpointDir,
        crate::naming::Setting::ResumeFrom
    )]
    Occupied {
        /// The checkpoint directory.
        dir: PathBuf,
        /// Periodic checkpoints found in it.
        count: usize,
        /// The newest of them.
        newest: PathBuf,
    },
    /// Writing failed; the target was left untouched.
    #[error(transparent)]
    Write(#[from] OutputError),
    /// Encoding failed (a bug, not a user error).
    #[error("cannot encode checkpoint: {0}")]
    Encode(String),
}

/// Why a checkpoint was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reason {
    /// Every `--checkpoint-every` steps.
    Periodic,
    /// At the run's last step.
    Final,
    /// On Ctrl-C.
    Interrupted,
    /// At a non-finite stop, or a run guard's stop (docs/physics.md §7): the state holds NaN or
    /// infinity, or has blown up, and cannot be resumed.
    NonFinite,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reason::Periodic => "periodic",
            Reason::Final => "final",
            Reason::Interrupted => "interrupted",
            Reason::NonFinite => "non-finite",
        })
    }
}

/// Floats of one precision, as the backend holds them (f32 values are kept as f32, so a
/// restore is exact).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Floats {
    /// Single precision.
    F32(Vec<f32>),
    /// Double precision.
    F64(Vec<f64>),
}

impl Floats {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Floats::F32(v) => v.len(),
            Floats::F64(v) => v.len(),
        }
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` widened to f64 (exact).
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Floats::F32(v) => v[i] as f64,
            Floats::F64(v) => v[i],
        }
    }

    /// The precision of the values.
    pub fn precision(&self) -> Precision {
        match self {
            Floats::F32(_) => Precision::F32,
            Floats::F64(_) => Precision::F64,
        }
    }
}

/// State of the CPU backend ([`crate::cpu::CpuBackend::save_state`]): everything a later step
/// reads, in the backend's sorted order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuState {
    /// Input id of each sorted slot (`n`).
    pub id: Vec<u32>,
    /// Positions, m (`3n`, xyz per slot).
    pub position: Floats,
    /// Velocities, m/s (`3n`).
    pub velocity: Floats,
    /// Accelerations of the last force evaluation, m/s² (`3n`).
    pub acceleration: Floats,
    /// Angular velocities, rad/s (`3n` with rotation; else empty).
    pub spin: Floats,
    /// Orientations, unit quaternions x, y, z, w (`4n` with rotation; else empty).
    pub orientation: Floats,
    /// Angular accelerations of the last force evaluation, rad/s² (`3n` with rotation; else
    /// empty).
    pub angular_acceleration: Floats,
    /// Periodic images per sorted slot: box lengths crossed per axis (`n` with periodic axes;
    /// else empty).
    pub image: Vec<[i32; 3]>,
    /// The neighbour list's rows (`n + 1` entry offsets).
    pub list_start: Vec<u32>,
    /// Sorted index of each list entry's partner.
    pub list_partner: Vec<u32>,
    /// Input id of each list entry's partner (with contact history; else empty).
    pub history_partner: Vec<u32>,
    /// Tangential displacement ξ of each list entry, m (`3 × history_partner.len()`).
    pub history_xi: Floats,
    /// Approach speed δ̇⁻ at first touch of each list entry, m/s (`history_partner.len()`).
    pub history_impact: Floats,
    /// Rolling spring torque of each list entry, N·m (`3 × history_partner.len()`).
    pub history_rolling: Floats,
    /// ξ of each sphere against each wall, m (`3 n × walls` with contact history; else empty).
    pub wall_xi: Floats,
    /// δ̇⁻ of each sphere against each wall, m/s (`n × walls` with contact history; else empty).
    pub wall_impact: Floats,
    /// Rolling spring torque of each sphere against each wall, N·m (`3 n × walls` with contact
    /// history; else empty).
    pub wall_rolling: Floats,
    /// Positions at the list's last build, m (`3n`).
    pub x_build: Floats,
    /// Each sphere's sweep σ at the list's last build, m (`n`).
    pub list_sweep: Floats,
    /// List rebuilds so far.
    pub rebuilds: u64,
    /// Steps done.
    pub step: u64,
    /// Collisions resolved so far.
    pub collisions: u64,
    /// Contact-steps without friction history so far.
    pub history_dropped: u64,
    /// Contacts of the last step.
    pub contacts: u64,
    /// Elastic energy of the last step's contacts, J.
    pub spring_energy: f64,
    /// Energy dissipated so far, J.
    pub dissipated: f64,
    /// The force each wall exerted on each sphere in the last step, N (`3 n × walls`, sorted
    /// order, with `wall_forces`; else empty).
    pub wall_force: Floats,
}

/// One GPU buffer's bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BufferBytes {
    /// The buffer's label.
    pub name: String,
    /// Its contents.
    #[serde(with = "serde_bytes")]
    pub bytes: Vec<u8>,
}

/// State of the GPU backend (`gpu::GpuBackend::save_state`): the bytes of every buffer
/// a later step reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GpuState {
    /// The adapter that wrote it (bit-identical resumes need the same one).
    pub adapter: String,
    /// Current state set (0 or 1).
    pub current_set: u32,
    /// Steps done.
    pub steps_done: u64,
    /// Collisions resolved so far.
    pub collisions: u64,
    /// Contact-steps without friction history so far (0 since the GPU keeps the history on
    /// its neighbour list).
    pub history_dropped: u64,
    /// Neighbour-list rebuilds so far.
    pub rebuilds: u64,
    /// The buffers, by label.
    pub buffers: Vec<BufferBytes>,
}

impl GpuState {
    /// The buffer labelled `name`.
    pub fn buffer(&self, name: &str) -> Option<&[u8]> {
        self.buffers
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.bytes.as_slice())
    }

    /// The same state with its `contact` buffer of two `vec4<f32>` a sphere (as written before
    /// 95d6be0) split into `contact` (each sphere's first) and `contact dx` (its second).
    pub fn with_contact_split(&self) -> GpuState {
        let mut s = self.clone();
        if let Some(k) = s.buffers.iter().position(|b| b.name == "contact") {
            let (mut first, mut second) = (Vec::new(), Vec::new());
            for (k, sphere) in s.buffers[k].bytes.chunks(16).enumerate() {
                if k % 2 == 0 { &mut first } else { &mut second }.extend_from_slice(sphere);
            }
            s.buffers[k].bytes = first;
            s.buffers.push(BufferBytes {
                name: "contact dx".into(),
                bytes: second,
            });
        }
        s
    }
}

/// Counters a run resumed on another backend or precision carries over, and those of a run
/// before its last open-system pass that started the backend again: the new backend starts
/// from zero and the simulation reports these plus the backend's own (a pass inside the
/// binning keeps the backend and its counters, but moves its dissipated energy here). Zero for
/// a run that was never converted and has no open-system pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Offsets {
    /// Steps done before the conversion.
    pub step: u64,
    /// Collisions before the conversion.
    pub collisions: u64,
    /// Energy dissipated before the conversion, J.
    pub dissipated: f64,
    /// Contact-steps without friction history before the conversion.
    pub history_dropped: u64,
    /// Neighbour-list rebuilds before the conversion.
    pub rebuilds: u64,
    /// Spheres the outflows removed so far ([`crate::scene::Outflow`]).
    pub removed_spheres: u64,
    /// Their mass, kg.
    pub removed_mass: f64,
    /// The mechanical energy they took out, J (see [`Diagnostics::removed_energy`]).
    pub removed_energy: f64,
    /// Spheres the insertions placed so far ([`crate::scene::Insert`]).
    pub inserted_spheres: u64,
    /// Their mass, kg.
    pub inserted_mass: f64,
    /// The mechanical energy they brought in, J.
    pub inserted_energy: f64,
    /// Spheres the insertions could not place.
    pub insertion_failures: u64,
}

impl Offsets {
    /// The counters of `d`, the diagnostics of a run at the moment its backend is replaced
    /// (a resume on another backend or precision, an open-system pass): the new backend's own
    /// count from zero on top of these.
    pub fn of(d: &Diagnostics) -> Self {
        Self {
            step: d.step,
            collisions: d.collisions,
            dissipated: d.dissipated,
            history_dropped: d.friction_history_dropped,
            rebuilds: d.neighbour_rebuilds,
            removed_spheres: d.removed_spheres,
            removed_mass: d.removed_mass,
            removed_energy: d.removed_energy,
            inserted_spheres: d.inserted_spheres,
            inserted_mass: d.inserted_mass,
            inserted_energy: d.inserted_energy,
            insertion_failures: d.insertion_failures,
        }
    }
}

/// A backend's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
// One per checkpoint, moved rarely: the CPU variant's inline vectors cost nothing to keep.
#[allow(clippy::large_enum_variant)]
pub enum EngineState {
    /// The CPU backend, f32 or f64.
    Cpu(CpuState),
    /// The GPU backend.
    Gpu(GpuState),
}

/// The dynamic state in input order, widened to f64: what a resume on another backend or
/// precision starts from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortableState {
    /// Centres, m.
    pub position: Vec<DVec3>,
    /// Velocities, m/s.
    pub velocity: Vec<DVec3>,
    /// Angular velocities, rad/s (empty without rotation).
    pub angular_velocity: Vec<DVec3>,
    /// Orientations, unit quaternions (empty without rotation).
    pub orientation: Vec<glam::DQuat>,
    /// Periodic images: box lengths crossed per axis (empty without periodic axes).
    pub image: Vec<[i32; 3]>,
    /// The contacts' history by input id (`None` without contact history).
    pub memory: Option<ContactMemory>,
}

impl EngineState {
    /// The precision the state is held in.
    pub fn precision(&self) -> Precision {
        match self {
            EngineState::Cpu(c) => c.position.precision(),
            EngineState::Gpu(_) => Precision::F32,
        }
    }

    /// The backend that wrote it.
    pub fn backend(&self) -> Backend {
        match self {
            EngineState::Cpu(_) => Backend::Cpu,
            EngineState::Gpu(_) => Backend::Gpu,
        }
    }

    /// Checks that the state's sphere ids (input index of each backend slot) are `0..n`, each
    /// once: a restored backend indexes by them.
    ///
    /// # Errors
    /// A message naming the first id out of range or repeated, or a missing id array.
    pub fn check_ids(&self, n: usize) -> Result<(), String> {
        let ids: Vec<u32> = match self {
            EngineState::Cpu(c) => c.id.clone(),
            EngineState::Gpu(g) => match g.buffer("ids") {
                Some(b) => b
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                    .collect(),
                None => return Err("the GPU state lacks its ids buffer".into()),
            },
        };
        if ids.len() < n {
            return Err(format!(
                "it holds {} sphere ids, the scene has {n} spheres",
                ids.len()
            ));
        }
        let mut seen = vec![false; n];
        for (slot, &id) in ids[..n].iter().enumerate() {
            match seen.get_mut(id as usize) {
                None => {
                    return Err(format!(
                        "sphere id {id} (slot {slot}) is out of range: the scene has {n} spheres, \
                         ids 0 to {}",
                        n.saturating_sub(1)
                    ));
                }
                Some(true) => return Err(format!("sphere id {id} appears twice (slot {slot})")),
                Some(s) => *s = true,
            }
        }
        Ok(())
    }

    /// The dynamic state by input id, for the spheres of `scene`: positions, velocities, and
    /// with rotation the angular velocities and orientations, on periodic axes the images, and
    /// with contact history ([`crate::setup::contact_history`]) what the contacts keep.
    ///
    /// # Errors
    /// A message when the arrays do not hold the scene's spheres or do not fit each other.
    pub fn portable(&self, scene: &Scene) -> Result<PortableState, String> {
        let n = scene.spheres.len();
        let rotation = scene.sim.rotation;
        let periodic = scene.sim.periodic.any();
        let history = crate::setup::contact_history(scene);
        let mut out = PortableState {
            position: vec![DVec3::ZERO; n],
            velocity: vec![DVec3::ZERO; n],
            angular_velocity: vec![DVec3::ZERO; if rotation { n } else { 0 }],
            orientation: vec![glam::DQuat::IDENTITY; if rotation { n } else { 0 }],
            image: vec![[0; 3]; if periodic { n } else { 0 }],
            memory: None,
        };
        let held = |count: usize| format!("it holds {count} spheres, the scene has {n}");
        match self {
            EngineState::Cpu(c) => {
                let spheres = c.id.len();
                if spheres != n || c.position.len() != 3 * n || c.velocity.len() != 3 * n {
                    return Err(held(spheres));
                }
                if (rotation && (c.spin.len() != 3 * n || c.orientation.len() != 4 * n))
                    || (periodic && c.image.len() != n)
                {
                    return Err(
                        "its angular velocities, orientations or periodic images do not fit".into(),
                    );
                }
                let v3 = |f: &Floats, i: usize| {
                    DVec3::new(f.get(3 * i), f.get(3 * i + 1), f.get(3 * i + 2))
                };
                for (i, &id) in c.id.iter().enumerate() {
                    let id = id as usize;
                    if id >= n {
                        return Err(format!("sphere id {id} out of range"));
                    }
                    out.position[id] = v3(&c.position, i);
                    out.velocity[id] = v3(&c.velocity, i);
                    if rotation {
                        out.angular_velocity[id] = v3(&c.spin, i);
                        let q = |k: usize| c.orientation.get(4 * i + k);
                        out.orientation[id] = glam::DQuat::from_xyzw(q(0), q(1), q(2), q(3));
                    }
                    if periodic {
                        out.image[id] = c.image[i];
                    }
                }
                if history {
                    out.memory = Some(c.contact_memory()?);
                }
            }
            EngineState::Gpu(g) => {
                let buffer = |name: &str| {
                    g.buffer(name)
                        .ok_or_else(|| format!("the GPU state lacks its {name} buffer"))
                };
                let (pos, vel, ids) = (buffer("position")?, buffer("velocity")?, buffer("ids")?);
                if pos.len() != 16 * n || vel.len() != 16 * n || ids.len() != 4 * n {
                    return Err(held(ids.len() / 4));
                }
                let ids = le_u32s(ids);
                let pos = le_vec4s(pos);
                let vel = le_vec4s(vel);
                let rot: Vec<[f32; 4]> = if rotation {
                    le_vec4s(buffer("rotation")?)
                } else {
                    Vec::new()
                };
                if rot.len() < 3 * n * usize::from(rotation) {
                    return Err("its rotation buffer does not hold the scene's spheres".into());
                }
                for (i, &id) in ids.iter().enumerate() {
                    let id = id as usize;
                    if id >= n {
                        return Err(format!("sphere id {id} out of range"));
                    }
                    out.position[id] = wide(pos[i]);
                    out.velocity[id] = wide(vel[i]);
                    if rotation {
                        out.angular_velocity[id] = wide(rot[3 * i]);
                        let q = rot[3 * i + 1].map(|c| c as f64);
                        out.orientation[id] = glam::DQuat::from_array(q);
                    }
                }
                if periodic {
                    // By input id (`SharedBuffers::image`).
                    let image: Vec<[i32; 3]> = le_u32s(buffer("image")?)
                        .chunks_exact(3)
                        .map(|c| [c[0] as i32, c[1] as i32, c[2] as i32])
                        .collect();
                    if image.len() < n {
                        return Err("its periodic images do not hold the scene's spheres".into());
                    }
                    out.image.copy_from_slice(&image[..n]);
                }
                if history {
                    let hs = crate::history::vec4s_a_contact(scene.rolling_model());
                    let walls = crate::setup::wall_count(scene);
                    let read = |name: &str| buffer(name).map(le_u32s);
                    let vec4s = |name: &str| buffer(name).map(le_vec4s);
                    out.memory = Some(ContactMemory::of_gpu_list(
                        &ids,
                        &read("list start")?,
                        &read("list partner ids")?,
                        &vec4s("list xi")?,
                        &vec4s("list wall xi")?,
                        hs,
                        walls,
                    )?);
                }
            }
        }
        Ok(out)
    }
}

/// A GPU buffer's bytes as little-endian `u32`s (the same bits for `i32`s).
fn le_u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// A GPU buffer's bytes as `vec4<f32>`s.
fn le_vec4s(b: &[u8]) -> Vec<[f32; 4]> {
    le_u32s(b)
        .chunks_exact(4)
        .map(|c| [0, 1, 2, 3].map(|k| f32::from_bits(c[k])))
        .collect()
}

/// A `vec4<f32>`'s xyz, widened.
fn wide(a: [f32; 4]) -> DVec3 {
    DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64)
}

impl CpuState {
    /// The contacts' history by input id, from the list's rows and the walls' rows.
    ///
    /// # Errors
    /// A message when the list's arrays do not fit each other.
    pub fn contact_memory(&self) -> Result<ContactMemory, String> {
        let n = self.id.len();
        let start = &self.list_start;
        let total = start.last().copied().unwrap_or(0) as usize;
        let walls = self.wall_xi.len() / (3 * n).max(1);
        let fits = start.len() == n + 1
            && start.windows(2).all(|w| w[0] <= w[1])
            && self.history_partner.len() == total
            && self.history_xi.len() == 3 * total
            && self.history_impact.len() == total
            && self.history_rolling.len() == 3 * total
            && self.wall_xi.len() == 3 * n * walls
            && self.wall_impact.len() == n * walls
            && self.wall_rolling.len() == 3 * n * walls;
        if !fits {
            return Err("its contact history does not fit its neighbour list".into());
        }
        let v3 =
            |f: &Floats, k: usize| DVec3::new(f.get(3 * k), f.get(3 * k + 1), f.get(3 * k + 2));
        let kept = |xi: &Floats, impact: &Floats, rolling: &Floats, k: usize| Kept {
            xi: v3(xi, k),
            impact: impact.get(k),
            rolling: v3(rolling, k),
        };
        let entries = (0..n).flat_map(|i| {
            (start[i] as usize..start[i + 1] as usize).map(move |e| {
                let k = kept(
                    &self.history_xi,
                    &self.history_impact,
                    &self.history_rolling,
                    e,
                );
                (self.id[i], self.history_partner[e], k)
            })
        });
        if self.id.iter().any(|&id| id as usize >= n) {
            return Err("a sphere id is out of range".into());
        }
        let slot = crate::history::slots(&self.id);
        Ok(ContactMemory::collect(entries, n, walls, |id, w| {
            kept(
                &self.wall_xi,
                &self.wall_impact,
                &self.wall_rolling,
                slot[id] * walls + w,
            )
        }))
    }
}

/// What the run driver needs to continue a run's files: its outputs, the diagnostics so far and
/// the snapshot series. Paths are absolute, so a resume works from any directory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// `--final`.
    pub final_csv: Option<PathBuf>,
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--every`, steps.
    pub every: Option<u64>,
    /// `--format`.
    pub formats: Vec<SnapshotFormat>,
    /// `--stats-json`.
    pub stats_json: Option<PathBuf>,
    /// `--checkpoint`.
    pub checkpoint: Option<PathBuf>,
    /// `--checkpoint-every`, steps.
    pub checkpoint_every: Option<u64>,
    /// Diagnostics before the run's first step.
    pub initial: Diagnostics,
    /// Rows of `diagnostics.csv` written so far.
    pub log: Vec<Diagnostics>,
    /// The walls' forces of each of those rows, N (empty rows without `wall_forces`).
    pub wall_log: Vec<Vec<DVec3>>,
    /// Snapshots written so far.
    pub series: Vec<SeriesEntry>,
    /// Seconds of stepping so far.
    pub stepping_seconds: f64,
}

/// A checkpoint: the scene, the backend's state and the run's bookkeeping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Why it was written.
    pub reason: Reason,
    /// Steps done.
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// The scene as run (its `steps` is the run's target).
    pub scene: Scene,
    /// The backend that wrote it.
    pub backend: Backend,
    /// Its precision.
    pub precision: Precision,
    /// Its adapter (e.g. `CPU (2 threads)` or the GPU's name).
    pub adapter: String,
    /// The backend's state.
    pub engine: EngineState,
    /// Counters from before a change of backend or precision (see [`Offsets`]).
    pub offsets: Offsets,
    /// With outflows or insertions: the id of each sphere of `scene` and what each insertion
    /// made ([`crate::sim::OpenState`]); `None` without.
    pub open: Option<crate::sim::OpenState>,
    /// Diagnostics of the saved state.
    pub diagnostics: Diagnostics,
    /// The run's bookkeeping.
    pub run: RunState,
}

/// The envelope every checkpoint file holds (postcard-encoded).
#[derive(Serialize, Deserialize)]
struct Envelope {
    magic: String,
    version: u32,
    writer: String,
    crc32: u32,
    #[serde(with = "serde_bytes")]
    body: Vec<u8>,
}

impl Checkpoint {
    /// The file's bytes: the envelope around the encoded checkpoint.
    ///
    /// # Errors
    /// [`CheckpointError::Encode`] (not expected: every field encodes).
    pub fn encode(&self) -> Result<Vec<u8>, CheckpointError> {
        let body =
            postcard::to_allocvec(self).map_err(|e| CheckpointError::Encode(e.to_string()))?;
        let env = Envelope {
            magic: MAGIC.to_string(),
            version: FORMAT_VERSION,
            writer: env!("CARGO_PKG_VERSION").to_string(),
            crc32: crc32fast::hash(&body),
            body,
        };
        postcard::to_allocvec(&env).map_err(|e| CheckpointError::Encode(e.to_string()))
    }

    /// Decodes a checkpoint file's bytes; `path` names it in errors.
    ///
    /// # Errors
    /// [`CheckpointError::Foreign`] without the header, [`CheckpointError::Version`] for another
    /// format version, [`CheckpointError::Truncated`] when the file ends early,
    /// [`CheckpointError::Corrupt`] when the checksum or the body does not match.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Self, CheckpointError> {
        let magic = postcard::to_allocvec(MAGIC).expect("a string encodes");
        if !bytes.starts_with(&magic) {
            return Err(CheckpointError::Foreign { path: path.into() });
        }
        let truncated = |reason: String| CheckpointError::Truncated {
            path: path.into(),
            bytes: bytes.len() as u64,
            reason,
        };
        // The version is read before the rest so that a newer file is named as such.
        let (_, rest): (String, &[u8]) =
            postcard::take_from_bytes(bytes).map_err(|e| truncated(e.to_string()))?;
        let (version, rest): (u32, &[u8]) =
            postcard::take_from_bytes(rest).map_err(|e| truncated(e.to_string()))?;
        if version != FORMAT_VERSION {
            let writer = postcard::take_from_bytes::<String>(rest)
                .map_or_else(|_| "an unknown version".to_string(), |(w, _)| w);
            return Err(CheckpointError::Version {
                path: path.into(),
                found: version,
                writer,
                this: env!("CARGO_PKG_VERSION"),
            });
        }
        let env: Envelope = postcard::from_bytes(bytes).map_err(|e| match e {
            postcard::Error::DeserializeUnexpectedEnd => {
                truncated("it ends inside the body".into())
            }
            e => CheckpointError::Corrupt {
                path: path.into(),
                reason: e.to_string(),
            },
        })?;
        let crc = crc32fast::hash(&env.body);
        if crc != env.crc32 {
            return Err(CheckpointError::Corrupt {
                path: path.into(),
                reason: format!(
                    "the body's CRC-32 is {crc:08x}, the header says {:08x}",
                    env.crc32
                ),
            });
        }
        postcard::from_bytes(&env.body).map_err(|e| CheckpointError::Corrupt {
            path: path.into(),
            reason: format!("the body does not decode: {e}"),
        })
    }

    /// Reads and checks a checkpoint file.
    ///
    /// # Errors
    /// [`CheckpointError::Read`] when the file cannot be read, else as [`Checkpoint::decode`].
    pub fn read(path: &Path) -> Result<Self, CheckpointError> {
        let bytes = std::fs::read(path).map_err(|e| CheckpointError::Read {
            path: path.into(),
            reason: e.to_string(),
        })?;
        Self::decode(path, &bytes)
    }

    /// Checks that the checkpoint can be resumed as `scene` (its scene with perhaps another
    /// `steps`): the scene passes the checks of a fresh run ([`Scene::check`]; overlaps are not
    /// searched again, since the scene holds the run's initial positions, which were accepted
    /// or allowed with `--allow-overlap` when it started) and the backend state's sphere ids
    /// are `0..n`, each once ([`EngineState::check_ids`]). A file that decodes may still have
    /// been edited or crafted: this keeps such a state out of the backends.
    ///
    /// # Errors
    /// [`CheckpointError::Unusable`] naming `path` and the first problem, e.g.
    /// `checkpoint ck.ckpt cannot be resumed: scene bounce: [simulation]: dt = 0 ...`.
    pub fn check(&self, scene: &Scene, path: &Path) -> Result<(), CheckpointError> {
        let unusable = |reason: String| CheckpointError::Unusable {
            path: path.into(),
            reason,
        };
        let opts = crate::scene::CheckOptions {
            allow_overlap: true,
        };
        // An open system's scene is the one its last pass left: checked when the run began
        // (`Scene::checked_mid_run`).
        if self.open.is_none() {
            scene.check(&opts).map_err(|e| unusable(e.to_string()))?;
        }
        self.engine.check_ids(scene.spheres.len()).map_err(unusable)
    }

    /// The simulation this checkpoint continues, on `scene` (its own, perhaps with another
    /// `steps`) and `backend` in `precision` ([`crate::Simulation::resume`]), with the open
    /// system's ids and insertion progress restored. Call [`Checkpoint::check`] first.
    ///
    /// # Errors
    /// As [`crate::Simulation::resume`], and [`crate::SimError::Unavailable`] when the open
    /// state does not fit the scene.
    pub fn resume_simulation(
        &self,
        scene: &Scene,
        backend: Backend,
        precision: Precision,
        gpu: crate::gpu::GpuOptions,
    ) -> Result<(crate::Simulation, Option<String>), crate::SimError> {
        use crate::scene::SceneInput;
        let input = match self.open {
            // The scene the last pass left: checked when the run began.
            Some(_) => scene.checked_mid_run(),
            None => scene.into_checked_scene()?,
        };
        let (mut sim, notice) = crate::Simulation::resume(
            input,
            &self.engine,
            self.offsets,
            &self.diagnostics,
            backend,
            precision,
            gpu,
        )?;
        if let Some(open) = &self.open {
            sim.restore_open_state(open)?;
        }
        Ok((sim, notice))
    }

    /// Writes the checkpoint to `path` atomically; returns its size, bytes.
    ///
    /// # Errors
    /// [`CheckpointError::Write`] naming `path`; an existing file is then left untouched.
    pub fn write(&self, path: &Path) -> Result<u64, CheckpointError> {
        let bytes = self.encode()?;
        write_atomic(path, |w| w.write_all(&bytes))?;
        Ok(bytes.len() as u64)
    }
}

/// File name of the checkpoint of `step` written for `reason`.
pub fn file_name(step: u64, reason: Reason) -> String {
    match reason {
        Reason::NonFinite => format!("nonfinite_{step:010}.{EXTENSION}"),
        _ => format!("checkpoint_{step:010}.{EXTENSION}"),
    }
}

/// The step of a periodic checkpoint's file name (`checkpoint_{step}.ckpt`), else `None`.
fn step_of(name: &str) -> Option<u64> {
    name.strip_prefix("checkpoint_")?
        .strip_suffix(&format!(".{EXTENSION}"))?
        .parse()
        .ok()
}

/// Periodic checkpoint files in `dir`, oldest first: (step, path, bytes).
fn existing(dir: &Path) -> Vec<(u64, PathBuf, u64)> {
    let mut v: Vec<(u64, PathBuf, u64)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let step = step_of(name.to_str()?)?;
            let bytes = e.metadata().ok()?.len();
            Some((step, e.path(), bytes))
        })
        .collect();
    v.sort();
    v
}

/// The checkpoint `--resume PATH` means: `PATH` itself when it is a file, else the newest
/// `checkpoint_*.ckpt` in the directory `PATH`.
///
/// # Errors
/// [`CheckpointError::Read`] when `PATH` does not exist or the directory holds no checkpoint.
pub fn resolve(path: &Path) -> Result<PathBuf, CheckpointError> {
    if path.is_dir() {
        existing(path)
            .pop()
            .map(|(_, p, _)| p)
            .ok_or_else(|| CheckpointError::Read {
                path: path.into(),
                reason: format!("the directory holds no checkpoint_*.{EXTENSION} file"),
            })
    } else if path.exists() {
        Ok(path.to_path_buf())
    } else {
        Err(CheckpointError::Read {
            path: path.into(),
            reason: "no such file or directory".into(),
        })
    }
}

/// Writes a run's checkpoints into one directory and keeps the newest [`KEEP`].
///
/// The directory belongs to one run: a `Checkpointer` holds an exclusive advisory lock on it
/// (`flock(2)` on the directory itself, so no lock file is left behind) until it and its clones
/// are dropped. Without the lock, two runs sharing a directory would prune each other's
/// checkpoints, the final one named in a summary included.
#[derive(Clone, Debug)]
pub struct Checkpointer {
    dir: PathBuf,
    every: Option<u64>,
    /// The open directory holding the lock; `None` where the file system cannot lock.
    _lock: Option<std::sync::Arc<std::fs::File>>,
}

/// Takes the exclusive lock on the checkpoint directory `dir` without waiting.
///
/// # Errors
/// [`CheckpointError::Locked`] when another process (or another `Checkpointer` of this one)
/// holds it. A file system that cannot lock (some network file systems) gets a warning and no
/// lock.
fn lock_dir(dir: &Path) -> Result<Option<std::fs::File>, CheckpointError> {
    use fs4::FileExt;
    #[cfg(unix)]
    let file = std::fs::File::open(dir);
    // Directories cannot be opened as files elsewhere: a lock file stands in.
    #[cfg(not(unix))]
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".spheresim.lock"));
    let file =
        file.map_err(|e| OutputError::dir(dir, format!("cannot open it to lock it: {e}")))?;
    // Called through the trait: std's File::try_lock is newer than this crate's rust-version.
    match FileExt::try_lock(&file) {
        Ok(()) => Ok(Some(file)),
        Err(fs4::TryLockError::WouldBlock) => Err(CheckpointError::Locked { dir: dir.into() }),
        Err(fs4::TryLockError::Error(e)) => {
            log::warn!(
                "cannot lock checkpoint directory {}: {e}; another run using it would prune \
                 this run's checkpoints",
                dir.display()
            );
            Ok(None)
        }
    }
}

impl Checkpointer {
    /// For a new run: creates `dir` if needed, proves it writable, takes its lock and checks
    /// that it holds no other run's periodic checkpoints, which this run's would overwrite
    /// (same step) and prune; `every`: steps between periodic checkpoints (`None`: only at the
    /// end, on Ctrl-C and at a non-finite stop).
    ///
    /// # Errors
    /// [`CheckpointError::Write`] naming `dir` when it cannot be created or written;
    /// [`CheckpointError::Locked`] when another run holds its lock;
    /// [`CheckpointError::Occupied`] when it holds `checkpoint_*.ckpt` files.
    pub fn new(dir: &Path, every: Option<u64>) -> Result<Self, CheckpointError> {
        Self::open(dir, every, None)
    }

    /// For a run resumed from the checkpoint file `from`: as [`Checkpointer::new`], but the
    /// checkpoints already in `dir` are this run's own when `from` lies in `dir` (the run
    /// continues there, and prunes them as it goes).
    ///
    /// # Errors
    /// As [`Checkpointer::new`]; [`CheckpointError::Occupied`] only when `from` lies elsewhere.
    pub fn resuming(dir: &Path, every: Option<u64>, from: &Path) -> Result<Self, CheckpointError> {
        Self::open(dir, every, Some(from))
    }

    fn open(dir: &Path, every: Option<u64>, from: Option<&Path>) -> Result<Self, CheckpointError> {
        crate::output::prepare_output_dir(dir)?;
        let lock = lock_dir(dir)?;
        let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        let own = from.and_then(Path::parent).is_some_and(|p| {
            let p = if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            };
            same(p, dir)
        });
        let found = existing(dir);
        match found.last() {
            Some((_, newest, _)) if !own => {
                return Err(CheckpointError::Occupied {
                    dir: dir.to_path_buf(),
                    count: found.len(),
                    newest: newest.clone(),
                });
            }
            _ => {}
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            every,
            _lock: lock.map(std::sync::Arc::new),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Steps between periodic checkpoints.
    pub fn every(&self) -> Option<u64> {
        self.every
    }

    /// Checks that the directory's file system has room for [`KEEP`] checkpoints of `per`
    /// bytes plus one being written, counting the space the existing ones will free.
    ///
    /// # Errors
    /// [`CheckpointError::Space`] with the bytes needed and available.
    pub fn check_space(&self, per: u64) -> Result<(), CheckpointError> {
        let have: u64 = existing(&self.dir).iter().map(|e| e.2).sum();
        let need = (per * (KEEP as u64 + 1)).saturating_sub(have);
        match fs4::available_space(&self.dir) {
            Ok(available) if available < need => Err(CheckpointError::Space {
                dir: self.dir.clone(),
                need,
                per,
                available,
            }),
            // A file system that cannot say is not refused.
            _ => Ok(()),
        }
    }

    /// Writes `ckpt` as `DIR/`[`file_name`], then removes all but the newest [`KEEP`] periodic
    /// checkpoints. Returns the path.
    ///
    /// # Errors
    /// [`CheckpointError::Write`] naming the file; older checkpoints are then kept.
    pub fn write(&self, ckpt: &Checkpoint) -> Result<PathBuf, CheckpointError> {
        let path = self.dir.join(file_name(ckpt.step, ckpt.reason));
        ckpt.write(&path)?;
        if ckpt.reason != Reason::NonFinite {
            let files = existing(&self.dir);
            let old = files.len().saturating_sub(KEEP);
            for (_, p, _) in &files[..old] {
                // A file that cannot be removed costs disk space, not correctness.
                if let Err(e) = std::fs::remove_file(p) {
                    log::warn!("cannot remove old checkpoint {}: {e}", p.display());
                }
            }
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_sort_by_step() {
        assert_eq!(
            file_name(42, Reason::Periodic),
            "checkpoint_0000000042.ckpt"
        );
        assert_eq!(step_of("checkpoint_0000000042.ckpt"), Some(42));
        assert_eq!(step_of("nonfinite_0000000042.ckpt"), None);
        assert_eq!(step_of("checkpoint_x.ckpt"), None);
    }
}
