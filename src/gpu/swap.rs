//! The GPU's side of a swapped stage (`crate::cpu::swap`, a test hook): its resources by WGSL
//! name, and one stage's passes recorded by [`GpuBackend::record_pass`], the recipe's own.

use super::GpuBackend;
use super::buffers::Status;
use crate::cpu::swap::StageHost;
use crate::recipe::Pass;

impl GpuBackend {
    /// The buffer the shaders name `name` (the current state set's, for the per-sphere
    /// state), as the recipe names it (`crate::recipe`).
    ///
    /// # Errors
    /// A message naming a resource the backend does not hold.
    fn resource(&self, name: &str) -> Result<&wgpu::Buffer, String> {
        let (s, b, l) = (&self.state[self.cur], &self.shared, &self.list);
        Ok(match name {
            "pos" => &s.pos,
            "vel" => &s.vel,
            "acc" => &s.acc,
            "props" => &s.props,
            "ids" => &s.id,
            "rot" => &s.rot,
            "grid" => &b.grid,
            "status" => &b.status,
            "cell_start" => &b.cell_start,
            "counts" => &b.counts,
            "keys" => &b.keys,
            "perm" => &b.perm,
            "cells" => &b.cells,
            "boxes" => &b.boxes,
            "planes" => &b.planes,
            "earliest" => &b.earliest,
            "contact" => &b.contact,
            "contact_dx" => &b.contact_dx,
            "contact_counts" => &b.contact_counts,
            "torque" => &b.torque,
            "a_mutual" => &b.a_mutual,
            "dissipated" => &b.dissipated,
            "image" => &b.image,
            "rebuild" => &self.gate.rebuild,
            "full_dims" => &self.gate.full,
            "gated_dims" => &self.gate.gated,
            "running_dims" => &self.gate.running,
            "list_start" => &l.start,
            "partner" => &l.partner,
            "link" => &l.link,
            "row_of" => &l.row_of,
            "x_build" => &l.x_build,
            "sweep" => &l.sweep,
            "partner_id" => &l.partner_id,
            "xi" => &l.xi,
            "wall_xi" => &l.wall_xi,
            other => return Err(format!("the GPU backend holds no resource `{other}`")),
        })
    }
}

/// The GPU runs a stage swapped into a CPU step.
impl StageHost for GpuBackend {
    fn upload(&mut self, name: &str, bytes: &[u8]) -> Result<(), String> {
        let b = self.resource(name)?;
        if bytes.len() as u64 > b.size() {
            return Err(format!(
                "resource `{name}`: {} bytes do not fit the GPU's {}",
                bytes.len(),
                b.size()
            ));
        }
        self.ctx.queue.write_buffer(b, 0, bytes);
        Ok(())
    }

    fn run(&mut self, passes: &[Pass]) -> Result<(), String> {
        // One step at a time: the drift decides without halting the rest of a submission.
        let halting = std::mem::replace(&mut self.halting, false);
        let mut enc = self.ctx.device.create_command_encoder(&Default::default());
        for p in passes {
            self.record_pass(&mut enc, p, false, true);
        }
        self.halting = halting;
        self.ctx.queue.submit([enc.finish()]);
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("the GPU did not finish the stage: {e}"))?;
        // A build writes no entry past the list's capacity (the step grows the list and
        // builds again, which a swapped stage cannot: its inputs are spent).
        if passes
            .iter()
            .any(|p| p.kind == crate::recipe::Kind::BuildList)
        {
            let size = std::mem::size_of::<Status>() as u64;
            let status: Status = self.read(&self.shared.status, size)[0];
            let needed = status.list_needed;
            if needed > self.list.capacity {
                return Err(format!(
                    "the GPU's neighbour list holds {} entries, the build needed {needed}",
                    self.list.capacity
                ));
            }
        }
        Ok(())
    }

    fn download(&self, name: &str) -> Result<Vec<u8>, String> {
        let b = self.resource(name)?;
        Ok(self.read(b, b.size()))
    }
}
