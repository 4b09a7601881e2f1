//! Spheres taken out and put in inside the binning (`crate::removal`): the GPU's half. CPU
//! twin `src/cpu/removal.rs`.

use super::GpuBackend;
use super::neighbours::BuildPhase;
use crate::recipe::{self, Kind};
use crate::removal::{GONE, LEAVING_RADIUS, keep_staying, new_ids};
use crate::setup::PackedScene;

impl GpuBackend {
    /// Takes out the spheres with `leaving[id]` (by input id, `n` flags) and puts in the
    /// spheres of `added` (their ids follow those that stay) inside set-up's binning on the
    /// device ([`crate::removal`]), then evaluates the forces. The contacts of the spheres that
    /// stay keep their history, the device keeps its buffers (the new spheres go into the room
    /// they keep, `GpuOptions::sphere_capacity`; the dispatches stay sized for it, and the
    /// shaders stop at the spheres present), and the ids become `0..n'` in the same order. The
    /// energy the contacts dissipated so far is zeroed: the caller books it, as after a new
    /// set-up.
    ///
    /// Returns `Ok(false)`, changing nothing, where the binning cannot do it: the buffers hold
    /// no room for the new spheres, a new sphere would be large, or the scene has large spheres
    /// (their bucket holds the leaving ones) or the gravity tree.
    ///
    /// # Errors
    /// A message when `leaving` does not hold one flag a sphere, or when the build needs more
    /// list entries than the list holds (the steps keep a quarter free); the state is then
    /// lost.
    pub fn exchange_spheres(
        &mut self,
        leaving: &[bool],
        added: &PackedScene,
    ) -> Result<bool, String> {
        use super::neighbours::slot::LARGE;
        let n = self.n as usize;
        let k = added.position.len();
        if leaving.len() != n {
            return Err(format!("{} removal flags for {n} spheres", leaving.len()));
        }
        let room = (self.state[0].pos.size() / 16) as usize;
        let small_max = self.params.small_radius_max as f32;
        if self.tree.is_some()
            || self.gate.dims(LARGE) != (0, 0)
            || n + k > room
            || added.radius.iter().any(|&r| r as f32 > small_max)
        {
            return Ok(false);
        }
        let stay = leaving.iter().filter(|&&l| !l).count();
        let new_id = new_ids(leaving);
        let q = &self.ctx.queue;
        let s = &self.state[self.cur];
        let id: Vec<u32> = self.read(&s.id, 4 * n as u64);
        for (slot, &i) in id.iter().enumerate() {
            if leaving[i as usize] {
                let w = 16 * slot as u64 + 12;
                q.write_buffer(&s.pos, w, bytemuck::bytes_of(&LEAVING_RADIUS));
            }
        }
        let mut renumbered: Vec<u32> = id.iter().map(|&i| new_id[i as usize]).collect();
        renumbered.extend((0..k as u32).map(|j| (stay as u32) + j));
        q.write_buffer(&s.id, 0, bytemuck::cast_slice(&renumbered));
        if k > 0 {
            // Into the room after the spheres present, in the current state set.
            let r = super::state::Records::of(added);
            let at = 16 * n as u64;
            q.write_buffer(&s.pos, at, bytemuck::cast_slice(&r.pos));
            q.write_buffer(&s.vel, at, bytemuck::cast_slice(&r.vel));
            q.write_buffer(&s.acc, at, bytemuck::cast_slice(&r.acc));
            q.write_buffer(&s.props, at, bytemuck::cast_slice(&r.props));
            if self.params.rotation {
                q.write_buffer(&s.rot, 3 * at, bytemuck::cast_slice(&r.rot));
            }
        }
        if self.params.periodic.any() {
            // By input id: the spheres that stay move down to their new ids, the new ones follow.
            let mut image: Vec<[i32; 3]> = self.read(&self.shared.image, 12 * n as u64);
            keep_staying(&mut image, leaving);
            image.extend_from_slice(&added.image);
            if !image.is_empty() {
                q.write_buffer(&self.shared.image, 0, bytemuck::cast_slice(&image));
            }
        }
        if self.params.history {
            let start: Vec<u32> = self.read(&self.list.start, 4 * (n as u64 + 1));
            let total = start[n].min(self.list.capacity) as u64;
            if total > 0 {
                let partner: Vec<u32> = self.read(&self.list.partner_id, 4 * total);
                let partner: Vec<u32> = partner
                    .iter()
                    .map(|&i| new_id.get(i as usize).copied().unwrap_or(GONE))
                    .collect();
                q.write_buffer(&self.list.partner_id, 0, bytemuck::cast_slice(&partner));
            }
            if k > 0 {
                // The new spheres' old rows are empty, against spheres and walls.
                let empty = vec![start[n]; k];
                q.write_buffer(
                    &self.list.start,
                    4 * (n as u64 + 1),
                    bytemuck::cast_slice(&empty),
                );
                let row = self.list.wall_xi.size() / room as u64;
                if row > 0 && self.walls > 0 {
                    let mut enc = self.ctx.device.create_command_encoder(&Default::default());
                    enc.clear_buffer(&self.list.wall_xi, row * n as u64, Some(row * k as u64));
                    q.submit([enc.finish()]);
                }
            }
        }
        // Set-up's recipe on the spheres present and the new ones: the build counts no rebuild
        // (2, as `initialise` writes).
        self.set_count((n + k) as u32);
        let q = &self.ctx.queue;
        q.write_buffer(&self.gate.rebuild, 0, bytemuck::bytes_of(&2u32));
        let init = recipe::step(self.recipe_config(), true);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for pass in init.iter().filter(|p| p.head()) {
            match pass.kind {
                Kind::MeasureSpeed | Kind::Binning => self.record_pass(&mut enc, pass, true, true),
                Kind::BuildList => {
                    // The old rows by the slots the binning's order refers to.
                    let d = self.record_build_phase(&mut enc, false, BuildPhase::KeepOld);
                    self.dispatches.set(self.dispatches.get() + d);
                }
                _ => unreachable!("set-up's head is the speed, the binning and the build"),
            }
        }
        self.ctx.queue.submit([enc.finish()]);
        // The leaving spheres are last: the passes from here on stop before them.
        self.set_count((stay + k) as u32);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        let d = self.record_build_phase(&mut enc, false, BuildPhase::AfterKeep);
        self.dispatches.set(self.dispatches.get() + d);
        // Set-up's evaluation starts no history: the carried history is put back after it.
        self.list.save_history(&mut enc);
        self.record_step(&mut enc, true, true, false);
        self.list.restore_history(&mut enc);
        enc.clear_buffer(&self.shared.dissipated, 0, None);
        self.ctx.queue.submit([enc.finish()]);
        let status = self.take_status();
        if status.list_needed > self.list.capacity {
            return Err(format!(
                "the neighbour list's build after a removal needed {} entries, {} held",
                status.list_needed, self.list.capacity
            ));
        }
        keep_staying(&mut self.radius_input, leaving);
        keep_staying(&mut self.mass_input, leaving);
        self.radius_input.extend_from_slice(&added.radius);
        self.mass_input.extend_from_slice(&added.mass);
        Ok(true)
    }

    /// Sets the spheres present, all small (`Params::n` and `n_small`: a backend with room has
    /// no large spheres), and sizes the per-sphere and row dispatches for them: the buffers
    /// hold room for at least as many, and a dispatch covers the spheres present only, so that
    /// the room costs no work.
    pub(super) fn set_count(&mut self, n: u32) {
        use super::buffers::Params;
        use super::neighbours::slot::{ROWS, SPHERES};
        use super::{WORKGROUP_SIZE, dispatch_dims};
        let dims = dispatch_dims(n.div_ceil(WORKGROUP_SIZE).max(1), self.max_dim);
        let rows = dims;
        let q = &self.ctx.queue;
        let params = &self.shared.params;
        let put = |offset: usize, value: u32| {
            q.write_buffer(params, offset as u64, bytemuck::bytes_of(&value));
        };
        put(std::mem::offset_of!(Params, n), n);
        put(std::mem::offset_of!(Params, n_small), n);
        put(
            std::mem::offset_of!(Params, dispatch_x),
            dims.0 * WORKGROUP_SIZE,
        );
        put(std::mem::offset_of!(Params, row_groups_x), rows.0);
        self.gate.set(q, SPHERES, dims);
        self.gate.set(q, ROWS, rows);
        self.dims = dims;
        self.n = n;
    }
}
