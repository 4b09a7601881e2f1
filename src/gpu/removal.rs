//! Spheres taken out inside the binning (`crate::removal`): the GPU's half. CPU twin
//! `src/cpu/removal.rs`.

use super::GpuBackend;
use super::neighbours::BuildPhase;
use crate::recipe::{self, Kind};
use crate::removal::{GONE, LEAVING_RADIUS, keep_staying, new_ids};

impl GpuBackend {
    /// Takes out the spheres with `leaving[id]` (by input id, `n` flags) inside set-up's
    /// binning on the device ([`crate::removal`]), and evaluates the forces without them. The
    /// contacts of the spheres that stay keep their history, the device keeps its buffers (the
    /// dispatches stay sized for the old count, and return early past the new one), and the ids
    /// become `0..n'` in the same order. The energy the contacts dissipated so far is zeroed:
    /// the caller books it, as after a new set-up.
    ///
    /// Returns `Ok(false)`, changing nothing, where the binning cannot do it: a scene with
    /// large spheres (their bucket holds the leaving ones) or with the gravity tree.
    ///
    /// # Errors
    /// A message when `leaving` does not hold one flag a sphere, or when the build after the
    /// removal needs more list entries than the list holds (the steps keep a quarter free).
    pub fn remove_spheres(&mut self, leaving: &[bool]) -> Result<bool, String> {
        use super::neighbours::slot::LARGE;
        let n = self.n as usize;
        if leaving.len() != n {
            return Err(format!("{} removal flags for {n} spheres", leaving.len()));
        }
        if self.tree.is_some() || self.gate.dims(LARGE) != (0, 0) {
            return Ok(false);
        }
        let stay = leaving.iter().filter(|&&l| !l).count() as u32;
        let new_id = new_ids(leaving);
        let q = &self.ctx.queue;
        let s = &self.state[self.cur];
        let id: Vec<u32> = self.read(&s.id, 4 * n as u64);
        for (slot, &k) in id.iter().enumerate() {
            if leaving[k as usize] {
                let w = 16 * slot as u64 + 12;
                q.write_buffer(&s.pos, w, bytemuck::bytes_of(&LEAVING_RADIUS));
            }
        }
        let renumbered: Vec<u32> = id.iter().map(|&k| new_id[k as usize]).collect();
        q.write_buffer(&s.id, 0, bytemuck::cast_slice(&renumbered));
        if self.params.periodic.any() {
            // By input id: the spheres that stay move down to their new ids.
            let mut image: Vec<[i32; 3]> = self.read(&self.shared.image, 12 * n as u64);
            keep_staying(&mut image, leaving);
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
                    .map(|&k| new_id.get(k as usize).copied().unwrap_or(GONE))
                    .collect();
                q.write_buffer(&self.list.partner_id, 0, bytemuck::cast_slice(&partner));
            }
        }
        // Set-up's recipe: the build counts no rebuild (2, as `initialise` writes).
        q.write_buffer(&self.gate.rebuild, 0, bytemuck::bytes_of(&2u32));
        let init = recipe::step(self.recipe_config(), true);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for pass in init.iter().filter(|p| p.head()) {
            match pass.kind {
                Kind::MeasureSpeed | Kind::Binning => self.record_pass(&mut enc, pass, true, true),
                Kind::BuildList => {
                    // The old rows by the old count, whose slots the binning's order refers to.
                    let d = self.record_build_phase(&mut enc, false, BuildPhase::KeepOld);
                    self.dispatches.set(self.dispatches.get() + d);
                }
                _ => unreachable!("set-up's head is the speed, the binning and the build"),
            }
        }
        self.ctx.queue.submit([enc.finish()]);
        // The leaving spheres are last: the passes from here on stop before them.
        let p = std::mem::offset_of!(super::buffers::Params, n);
        let p_small = std::mem::offset_of!(super::buffers::Params, n_small);
        let q = &self.ctx.queue;
        q.write_buffer(&self.shared.params, p as u64, bytemuck::bytes_of(&stay));
        q.write_buffer(
            &self.shared.params,
            p_small as u64,
            bytemuck::bytes_of(&stay),
        );
        self.n = stay;
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
        Ok(true)
    }
}
