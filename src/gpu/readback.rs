//! What the host reads back from the GPU backend: snapshots, diagnostics, checkpoints, and the
//! binning and the neighbour list that the twin tests compare with the CPU's.

use super::buffers::Status;
use super::profiler::Profiler;
use super::{GpuBackend, GpuContext, neighbours, read_buffer};
use crate::checkpoint::{BufferBytes, GpuState};
use crate::history::ContactMemory;
use crate::setup::{BinningState, ListRows, STAGES};
use crate::{Diagnostics, Snapshot};
use bytemuck::Pod;
use glam::DVec3;

impl GpuBackend {
    /// Copies `size` bytes of `src` back to the host, through a read-back buffer made for this
    /// read (counted in [`GpuBackend::read_back_buffers_created`]): for reads that tests and
    /// checkpoints make, not the ones a run repeats.
    pub(super) fn read<T: Pod>(&self, src: &wgpu::Buffer, size: u64) -> Vec<T> {
        self.one_off_reads.set(self.one_off_reads.get() + 1);
        read_buffer(&self.ctx, src, size)
    }

    /// The buffers a later step reads, by label: the current state set, the grid, the status
    /// counters, the per-sphere dissipated energy, the contact results and counts, mutual
    /// gravity and the neighbour list with its friction history.
    pub(super) fn persistent(&self, set: usize) -> Vec<(&'static str, &wgpu::Buffer)> {
        let s = &self.state[set];
        let mut buffers = vec![
            ("position", &s.pos),
            ("velocity", &s.vel),
            ("acceleration", &s.acc),
            ("properties", &s.props),
            ("ids", &s.id),
            ("rotation", &s.rot),
            ("grid", &self.shared.grid),
            ("status", &self.shared.status),
            ("dissipated", &self.shared.dissipated),
            ("image", &self.shared.image),
            ("contact", &self.shared.contact),
            ("contact dx", &self.shared.contact_dx),
            ("contact counts", &self.shared.contact_counts),
            ("mutual gravity", &self.shared.a_mutual),
        ];
        if self.params.wall_forces {
            // The soft laws' wall forces of the last step (SharedBuffers::earliest).
            buffers.push(("wall forces", &self.shared.earliest));
        }
        buffers.extend(self.list.persistent());
        buffers
    }

    /// Everything a later step reads, copied back to the host, for a checkpoint. After a
    /// removal inside the binning (`GpuBackend::remove_spheres`) the buffers are still sized
    /// for the spheres of the set-up: the state then says for how many (its entry `buffers sized
    /// for spheres`), and a backend set up on the spheres present restores the first part of
    /// each.
    pub fn save_state(&self) -> GpuState {
        let mut state = GpuState {
            adapter: self.adapter_name(),
            current_set: self.cur as u32,
            steps_done: self.steps_done,
            collisions: self.collisions,
            history_dropped: 0,
            rebuilds: self.rebuilds,
            buffers: self
                .persistent(self.cur)
                .into_iter()
                .map(|(name, b)| BufferBytes {
                    name: name.to_string(),
                    bytes: self.read(b, b.size()),
                })
                .collect(),
        };
        let sized_for = self.state[0].pos.size() / 16;
        if sized_for > self.n as u64 {
            state.buffers.push(BufferBytes {
                name: SIZED_FOR.to_string(),
                bytes: (sized_for as u32).to_le_bytes().to_vec(),
            });
        }
        state
    }

    /// Continues from a saved state of the same scene: on the same adapter the next step is
    /// bit-identical to the one the saving backend would have taken.
    ///
    /// # Errors
    /// A message naming the first buffer that is missing or of another size (another scene);
    /// the backend is then unchanged.
    pub fn restore_state(&mut self, s: &GpuState) -> Result<(), String> {
        if s.current_set > 1 {
            return Err(format!("state set {} does not exist", s.current_set));
        }
        // The list may have grown in the saving run: the same capacity here.
        if let Some(partners) = s.buffer("list partners") {
            let capacity = (partners.len() / 4) as u32;
            if capacity != self.list.capacity {
                let limit = neighbours::max_capacity(
                    super::buffers::binding_limit(&self.ctx.limits, self.binding_lowered).0,
                    self.params.history,
                    self.params.rotation,
                    self.params.rolling,
                );
                if capacity as u64 > limit || capacity >= crate::cpu::neighbours::NO_MIRROR {
                    return Err(format!(
                        "its neighbour list of {capacity} entries does not fit this adapter"
                    ));
                }
                self.resize_list(capacity);
            }
        }
        // Before 2026-11-27 (spheresim 95d6be0) the contact results were one buffer of two
        // vec4 a sphere: its halves are the two buffers now.
        let split;
        let s = match (s.buffer("contact"), s.buffer("contact dx")) {
            (Some(both), None) if both.len() as u64 == 2 * self.shared.contact.size() => {
                split = s.with_contact_split();
                &split
            }
            _ => s,
        };
        let targets = self.persistent(s.current_set as usize);
        // Buffers sized for more spheres than are present: every one holds its spheres first.
        let larger = s.buffer(SIZED_FOR).is_some();
        for (name, b) in &targets {
            match s.buffer(name) {
                Some(bytes) if bytes.len() as u64 == b.size() => {}
                Some(bytes) if larger && bytes.len() as u64 > b.size() => {}
                Some(bytes) => {
                    return Err(format!(
                        "its {name} buffer holds {} bytes, this scene's holds {}",
                        bytes.len(),
                        b.size()
                    ));
                }
                None => return Err(format!("it has no {name} buffer")),
            }
        }
        for (name, b) in &targets {
            let bytes = s.buffer(name).expect("checked above");
            self.ctx
                .queue
                .write_buffer(b, 0, &bytes[..b.size() as usize]);
        }
        self.ctx.queue.submit([]);
        self.cur = s.current_set as usize;
        self.steps_done = s.steps_done;
        self.collisions = s.collisions;
        self.rebuilds = s.rebuilds;
        Ok(())
    }

    /// The integer outputs of the last binning (same layout as the CPU's, for exact comparison).
    pub fn binning_state(&self) -> BinningState {
        let n = self.n as u64;
        let t = self.params.table_size as u64 + 1;
        let cell_start: Vec<u32> = self.read(&self.shared.cell_start, 4 * t);
        // The GPU empties its counts after the scan (count.wgsl): each bucket's count is the
        // distance to the next start, the last bucket's to n.
        let counts = (0..t as usize)
            .map(|k| cell_start.get(k + 1).copied().unwrap_or(self.n) - cell_start[k])
            .collect();
        BinningState {
            keys: self.read(&self.shared.keys, 4 * n),
            counts,
            cell_start,
            ids: self.read(&self.state[self.cur].id, 4 * n),
        }
    }

    /// The neighbour list's rows, read back: the list the step reads, built at the last
    /// rebuild. Compared with `CpuBackend::list_rows`.
    pub fn list_rows(&self) -> ListRows {
        let n = self.n as usize;
        let list = &self.list;
        let start: Vec<u32> = self.read(&list.start, 4 * (n as u64 + 1));
        let total = start[n].min(list.capacity) as usize;
        let entries = 4 * total.max(1) as u64;
        let mut partner: Vec<u32> = self.read(&list.partner, entries);
        let mut link: Vec<u32> = self.read(&list.link, entries);
        partner.truncate(total);
        link.truncate(total);
        ListRows {
            start,
            partner,
            link,
        }
    }

    /// The contacts' history by sphere id ([`crate::history`]), read back from the list's
    /// partner ids and ξ and the walls' rows; `None` without contact history.
    pub fn contact_memory(&self) -> Option<ContactMemory> {
        if !self.params.history {
            return None;
        }
        let (n, walls) = (self.n as usize, self.walls as usize);
        let hs = neighbours::history_vec4s(self.params.rolling) as usize;
        let (start, partner, id) = self.list_by_ids();
        let total = partner.len();
        let xi: Vec<[f32; 4]> = self.read(&self.list.xi, 16 * (hs * total).max(1) as u64);
        let wall_xi: Vec<[f32; 4]> =
            self.read(&self.list.wall_xi, 16 * (hs * n * walls).max(1) as u64);
        ContactMemory::of_gpu_list(&id, &start, &partner, &xi, &wall_xi, hs, walls).ok()
    }

    /// The list's rows as the history names them, read back: each slot's first entry
    /// (`n + 1`), each entry's partner id (up to the capacity) and each slot's input id.
    fn list_by_ids(&self) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
        let n = self.n as usize;
        let list = &self.list;
        let start: Vec<u32> = self.read(&list.start, 4 * (n as u64 + 1));
        let total = start[n].min(list.capacity) as usize;
        let mut partner: Vec<u32> = self.read(&list.partner_id, 4 * total.max(1) as u64);
        partner.truncate(total);
        let id: Vec<u32> = self.read(&self.state[self.cur].id, 4 * n as u64);
        (start, partner, id)
    }

    /// Gives the contacts the history `memory` and evaluates set-up's forces again with it
    /// (see [`crate::engine::Engine::restore_contact_memory`]), as the CPU backend's twin does:
    /// the history is written to the list set-up built, set-up's contact passes and
    /// accelerations run again, and the history is written again (set-up's `SumPairs` keeps
    /// none of what it computed).
    ///
    /// # Errors
    /// A message when `memory` holds another number of walls or more spheres than this.
    pub fn restore_contact_memory(&mut self, memory: &ContactMemory) -> Result<(), String> {
        if !self.params.history || memory.is_empty() {
            return Ok(());
        }
        let (n, walls) = (self.n as usize, self.walls as usize);
        memory.fits(n, walls)?;
        let hs = neighbours::history_vec4s(self.params.rolling) as usize;
        let (start, partner, id) = self.list_by_ids();
        let total = partner.len();
        let mut xi = Vec::with_capacity(hs * total);
        let mut wall_xi = Vec::with_capacity(hs * n * walls);
        for i in 0..n {
            for &j in &partner[start[i] as usize..(start[i + 1] as usize).min(total)] {
                memory.pair(id[i], j).push_vec4s(hs, &mut xi);
            }
            for w in 0..walls {
                memory.wall(id[i], w).push_vec4s(hs, &mut wall_xi);
            }
        }
        let write = |b: &GpuBackend| {
            let q = &b.ctx.queue;
            if !xi.is_empty() {
                q.write_buffer(&b.list.xi, 0, bytemuck::cast_slice(&xi));
            }
            if !wall_xi.is_empty() {
                q.write_buffer(&b.list.wall_xi, 0, bytemuck::cast_slice(&wall_xi));
            }
        };
        write(self);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.record_step(&mut enc, true, true, false);
        self.ctx.queue.submit([enc.finish()]);
        write(self);
        // Set-up's status (the list's need) was taken; this evaluation's counts none.
        self.take_status();
        Ok(())
    }

    /// Sets each sphere's orientation, by input id (see
    /// [`crate::engine::Engine::set_orientations`]): the rotation records of the current state
    /// set are read back, their quaternions replaced and written again.
    ///
    /// # Errors
    /// A message when `orientation` does not hold one quaternion a sphere.
    pub fn set_orientations(&mut self, orientation: &[glam::DQuat]) -> Result<(), String> {
        if !self.params.rotation {
            return Ok(());
        }
        let n = self.n as usize;
        if orientation.len() != n {
            return Err(format!(
                "{} orientations for {n} spheres",
                orientation.len()
            ));
        }
        let s = &self.state[self.cur];
        let id: Vec<u32> = self.read(&s.id, 4 * n as u64);
        // ω | inverse inertia, the orientation, α | μ_r (`StateSet::rot`).
        let mut rot: Vec<[f32; 4]> = self.read(&s.rot, 48 * n as u64);
        for (i, &k) in id.iter().enumerate() {
            rot[3 * i + 1] = orientation[k as usize].as_quat().to_array();
        }
        self.ctx
            .queue
            .write_buffer(&s.rot, 0, bytemuck::cast_slice(&rot));
        Ok(())
    }

    /// The force the spheres exerted on each wall in the last step, N, summed on the host in f64
    /// in sorted order as the CPU sums it ([`crate::diagnostics::wall_force_sums`]); empty
    /// unless the scene records wall forces. Reads `16 n × walls` bytes back through the
    /// snapshot's kept read-back buffer: a run that samples them creates no buffer each time.
    pub fn wall_forces(&self) -> Vec<DVec3> {
        if !self.params.wall_forces || self.walls == 0 {
            return Vec::new();
        }
        let bytes = 16 * self.n as u64 * self.walls as u64;
        self.snapshot_staging
            .read_with(&self.ctx, &[(&self.shared.earliest, bytes)], |b| {
                let f: &[[f32; 4]] = bytemuck::cast_slice(b);
                let f = f
                    .iter()
                    .map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
                crate::diagnostics::wall_force_sums(f, self.walls as usize)
            })
    }

    /// The state in input order, widened to f64.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::default();
        self.snapshot_into(&mut snap);
        snap
    }

    /// [`GpuBackend::snapshot`] written into `snap`, reusing its vectors and a read-back
    /// buffer the backend keeps (created by the first call): after the first call of a
    /// backend, no allocation on the host or the device.
    pub fn snapshot_into(&self, snap: &mut Snapshot) {
        let n = self.n as usize;
        let s = &self.state[self.cur];
        let rotation = self.params.rotation;
        let rot_bytes = if rotation { 48 * n as u64 } else { 0 };
        let periodic = self.params.periodic.any();
        let image_bytes = if periodic { 12 * n as u64 } else { 0 };
        // Laid out as copied: positions, velocities, rotation (3 vec4 a slot), ids, periodic
        // images (by input id).
        let sources = [
            (&s.pos, 16 * n as u64),
            (&s.vel, 16 * n as u64),
            (&s.rot, rot_bytes),
            (&s.id, 4 * n as u64),
            (&self.shared.image, image_bytes),
        ];
        snap.reset(
            self.steps_done,
            self.steps_done as f64 * self.params.dt,
            &self.radius_input,
            &self.mass_input,
            rotation,
        );
        self.snapshot_staging
            .read_with(&self.ctx, &sources, |bytes| {
                let (pos, rest) = bytes.split_at(16 * n);
                let (vel, rest) = rest.split_at(16 * n);
                let (rot, rest) = rest.split_at(rot_bytes as usize);
                let (ids, image) = rest.split_at(4 * n);
                if periodic {
                    let image: &[[i32; 3]] = bytemuck::cast_slice(image);
                    snap.image.extend_from_slice(image);
                }
                let pos: &[[f32; 4]] = bytemuck::cast_slice(pos);
                let vel: &[[f32; 4]] = bytemuck::cast_slice(vel);
                let rot: &[[f32; 4]] = bytemuck::cast_slice(rot);
                let ids: &[u32] = bytemuck::cast_slice(ids);
                let v = |a: [f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
                for i in 0..n {
                    let id = ids[i] as usize;
                    snap.position[id] = v(pos[i]);
                    snap.velocity[id] = v(vel[i]);
                    if rotation {
                        let (w, q) = (rot[3 * i], rot[3 * i + 1]);
                        snap.angular_velocity[id] = v(w);
                        snap.orientation[id] = glam::DQuat::from_xyzw(
                            q[0] as f64,
                            q[1] as f64,
                            q[2] as f64,
                            q[3] as f64,
                        );
                    }
                }
            });
    }

    /// Read-back buffers [`GpuBackend::snapshot_into`] has created: 1 once it has been called,
    /// however often (tests check that repeated snapshots create no buffer).
    pub fn snapshot_buffers_created(&self) -> u64 {
        self.snapshot_staging.created()
    }

    /// Every read-back buffer the backend has created: those it keeps (snapshots,
    /// diagnostics, each submission's status; one each once used) and those made for a single
    /// read (checkpoints, the twin tests' comparisons, profiling and work counts). Stepping,
    /// [`GpuBackend::diagnostics`] and [`GpuBackend::snapshot_into`], repeated, add none (tests
    /// check it).
    pub fn read_back_buffers_created(&self) -> u64 {
        self.one_off_reads.get()
            + self.snapshot_staging.created()
            + self.diagnostics_staging.created()
            + self.status_staging.created()
    }

    /// Diagnostics of the current state: work-group partial sums, added here in f64 in order.
    /// Read back through a buffer the backend keeps: a repeated call creates no buffer, and
    /// allocates nothing on the host without rotation (with rotation the spin sums take the
    /// state's arrays, copied once per call).
    pub fn diagnostics(&self) -> Diagnostics {
        let b = &self.binds[self.cur];
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("diagnostics"),
                timestamp_writes: None,
            });
            pass.push_debug_group("diagnostics");
            self.dispatch_spheres(
                &mut pass,
                &self.stages.diagnostics.diagnostics,
                &b.diagnostics,
            );
            if self.params.mutual_gravity() && self.tree.is_none() {
                self.dispatch_spheres(
                    &mut pass,
                    &self.stages.gravity.gravity_potential,
                    &b.gravity,
                );
            }
            pass.pop_debug_group();
        }
        if let (true, Some(t)) = (self.params.mutual_gravity(), &self.tree) {
            // The tree's potential rewrites the same pulls and adds ½ G m Φ per body.
            t.record(&mut enc, self.cur, true, |e| {
                e.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("diagnostics: tree potential"),
                    timestamp_writes: None,
                })
            });
        }
        self.ctx.queue.submit([enc.finish()]);
        let groups = (self.dims.0 * self.dims.1) as usize;
        let n = self.n as u64;
        let gravity = self.params.mutual_gravity();
        let rotation = self.params.rotation;
        let s = &self.state[self.cur];
        let when = |on: bool, bytes: u64| if on { bytes } else { 0 };
        // Laid out as copied: the partial sums, the pulls (with ½ G m Φ in w), then rotation's
        // state.
        let sources = [
            (&self.shared.partial_f, 48 * groups as u64),
            (&self.shared.partial_u, 8 * groups as u64),
            (&self.shared.a_mutual, when(gravity, 16 * n)),
            (&s.rot, when(rotation, 48 * n)),
            (&s.pos, when(rotation, 16 * n)),
            (&s.vel, when(rotation, 16 * n)),
            (&s.acc, when(rotation, 16 * n)),
        ];
        let mut d = Diagnostics {
            step: self.steps_done,
            time: self.steps_done as f64 * self.params.dt,
            collisions: self.collisions,
            neighbour_rebuilds: self.rebuilds,
            ..Default::default()
        };
        self.diagnostics_staging
            .read_with(&self.ctx, &sources, |bytes| {
                let mut parts = sources.iter().scan(0, |at, &(_, size)| {
                    let part = &bytes[*at..*at + size as usize];
                    *at += size as usize;
                    Some(part)
                });
                let mut next = || parts.next().expect("one part a source");
                let pf: &[[f32; 4]] = bytemuck::cast_slice(next());
                let pu: &[[u32; 2]] = bytemuck::cast_slice(next());
                let am: &[[f32; 4]] = bytemuck::cast_slice(next());
                let rot: &[[f32; 4]] = bytemuck::cast_slice(next());
                let pos: &[[f32; 4]] = bytemuck::cast_slice(next());
                let vel: &[[f32; 4]] = bytemuck::cast_slice(next());
                let acc: &[[f32; 4]] = bytemuck::cast_slice(next());
                Self::add_diagnostics(&mut d, groups, pf, pu, am, [rot, pos, vel, acc]);
            });
        d
    }

    /// Adds the read-back sums to `d`: the work-group partials `pf`, `pu` of `groups` groups,
    /// the pulls `am` (empty without mutual gravity) and rotation's state (rotation, position,
    /// velocity, acceleration; empty without rotation).
    fn add_diagnostics(
        d: &mut Diagnostics,
        groups: usize,
        pf: &[[f32; 4]],
        pu: &[[u32; 2]],
        am: &[[f32; 4]],
        [rot, pos, vel, acc]: [&[[f32; 4]]; 4],
    ) {
        for g in 0..groups {
            let (a, p, l) = (pf[3 * g], pf[3 * g + 1], pf[3 * g + 2]);
            d.kinetic += a[0] as f64;
            d.potential_uniform += a[1] as f64;
            d.potential_spring += a[2] as f64;
            d.dissipated += a[3] as f64;
            d.momentum += DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
            d.momentum_magnitude_sum += p[3] as f64;
            d.angular_momentum += DVec3::new(l[0] as f64, l[1] as f64, l[2] as f64);
            d.contacts += pu[g][0] as u64;
        }
        if !am.is_empty() {
            d.potential_gravity = am.iter().map(|a| a[3] as f64).sum();
        }
        if !rot.is_empty() {
            // Summed on the host from the state read back (the CPU's function, in the GPU's
            // sorted order), not by a work-group reduction: rotation's diagnostics cost a
            // read-back of the state.
            let spin: Vec<glam::Vec3> = rot
                .chunks(3)
                .map(|r| glam::Vec3::new(r[0][0], r[0][1], r[0][2]))
                .collect();
            let radius: Vec<f32> = pos.iter().map(|p| p[3]).collect();
            let mass: Vec<f32> = acc.iter().map(|a| a[3]).collect();
            let inv_mass: Vec<f32> = vel.iter().map(|v| v[3]).collect();
            let (k, l) =
                crate::cpu::diagnostics::spin_sums::<f32>(&spin, &radius, &mass, &inv_mass);
            d.kinetic_rotational = k;
            d.angular_momentum += l;
        }
    }
}

// What the backend is and holds: names, sizes, switches and handles.
impl GpuBackend {
    /// The adapter, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, Cpu)`.
    pub fn adapter_name(&self) -> String {
        self.ctx.adapter_name()
    }

    /// True on a software adapter (lavapipe, WARP, SwiftShader: the WGSL runs on the CPU).
    pub fn is_software(&self) -> bool {
        self.ctx.is_software()
    }

    /// Work-groups per dispatch along x and y of the per-sphere stages.
    pub fn dispatch(&self) -> (u32, u32) {
        self.dims
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        self.steps_done
    }

    /// Steps recorded into command buffers so far, including the batches recorded ahead and
    /// then discarded (`GpuBackend::step`): at least [`GpuBackend::steps_done`], and at most
    /// about [`STEPS_PER_SUBMIT`](super::STEPS_PER_SUBMIT) more a submission.
    pub fn steps_recorded(&self) -> u64 {
        self.steps_recorded
    }

    /// Entries the neighbour list holds now (it grows as builds need).
    pub fn list_capacity(&self) -> u32 {
        self.list.capacity
    }

    /// Turns per-stage timing by timestamp queries on or off; returns whether it is on (never
    /// without the adapter feature `TIMESTAMP_QUERY`). Costs a little: each pass writes two
    /// timestamps and every submission resolves them.
    pub fn set_profiling(&mut self, on: bool) -> bool {
        if !on || !self.ctx.timestamps {
            self.profiler = None;
        } else if self.profiler.is_none() {
            self.profiler = Some(Profiler::new(&self.ctx.device, &self.ctx.queue));
        }
        self.profiler.is_some()
    }

    /// Runs only the mutual-gravity stage `k` times on the current positions, in one submission,
    /// and waits for it to finish: a benchmark of the tiled direct sum, N(N−1) interactions per
    /// run. The state does not change (the stage recomputes the same accelerations). Returns
    /// `false`, running nothing, when the scene has no mutual gravity (G = 0).
    pub fn gravity_only(&mut self, k: u32) -> bool {
        if !self.params.mutual_gravity() {
            return false;
        }
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        self.record_gravity(&mut enc, k);
        self.ctx.queue.submit([enc.finish()]);
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("GPU device lost while waiting");
        true
    }

    /// GPU seconds per stage group since profiling was turned on, named as
    /// [`STAGES`]; empty when profiling is off.
    pub fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        match &self.profiler {
            Some(p) => STAGES.iter().copied().zip(p.totals).collect(),
            None => Vec::new(),
        }
    }

    /// Seconds per compute-pass label since profiling was turned on, by label (the stages of
    /// [`GpuBackend::stage_seconds`] split into their compute passes); empty without profiling.
    pub fn pass_seconds(&self) -> Vec<(&'static str, f64)> {
        match &self.profiler {
            Some(p) => p.by_pass.iter().map(|(k, v)| (*k, *v)).collect(),
            None => Vec::new(),
        }
    }

    /// Interaction counts of the last gravity-tree walk, read back from the device; `None`
    /// unless the scene sums gravity by the tree.
    pub fn walk_counts(&self) -> Option<crate::cpu::tree::WalkCounts> {
        self.tree.as_ref().map(|t| t.walk_counts(&self.ctx))
    }

    /// The device and queue the backend runs on (the viewer draws with them).
    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Which of the two state sets holds the current state (0 or 1); it flips every step.
    pub fn current_set(&self) -> usize {
        self.cur
    }

    /// Buffers of state set `set` (0 or 1): `pos` (`n` × `vec4<f32>`: xyz position m, w radius m),
    /// `vel` (`n` × `vec4<f32>`: xyz velocity m/s, w inverse mass 1/kg) and `id` (`n` × u32: input
    /// id of each slot). Slot order changes every step (the scatter sorts by cell).
    ///
    /// # Panics
    /// When `set` is not 0 or 1.
    pub fn state_buffers(&self, set: usize) -> [&wgpu::Buffer; 3] {
        let s = &self.state[set];
        [&s.pos, &s.vel, &s.id]
    }

    /// The rotation state of state set `set` (0 or 1): 3 `vec4<f32>` a slot (ω | inverse
    /// inertia, the orientation quaternion x, y, z, w, angular acceleration | μ_r); a 16-byte
    /// stand-in without rotation.
    pub fn rotation_buffer(&self, set: usize) -> &wgpu::Buffer {
        &self.state[set].rot
    }
}

/// The name of a [`GpuState`]'s entry that holds, as a little-endian u32, the spheres its
/// buffers were sized for, when more than are present (spheres taken out inside the binning);
/// absent otherwise.
pub const SIZED_FOR: &str = "buffers sized for spheres";

// The status a submission leaves.
impl GpuBackend {
    /// Reads the status counters and clears those counted since the last read.
    pub(super) fn take_status(&self) -> Status {
        let size = std::mem::size_of::<Status>() as u64;
        let status: Status =
            self.status_staging
                .read_with(&self.ctx, &[(&self.shared.status, size)], |bytes| {
                    bytemuck::pod_read_unaligned(&bytes[..size as usize])
                });
        self.ctx
            .queue
            .write_buffer(&self.shared.status, 8, bytemuck::bytes_of(&[0u32; 5]));
        status
    }
}
