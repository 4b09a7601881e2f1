//! Spheres taken out inside the binning (`crate::removal`): the CPU's half. Twin of
//! `src/gpu/removal.rs`.

use super::CpuBackend;
use super::step::StepRun;
use crate::real::Real;
use crate::recipe::{self, Pass};
use crate::removal::{GONE, LEAVING_RADIUS, keep_staying, new_ids};

impl<R: Real> CpuBackend<R> {
    /// Takes out the spheres with `leaving[id]` (by input id, `n` flags) inside set-up's
    /// binning ([`crate::removal`]), and evaluates the forces without them. The contacts of the
    /// spheres that stay keep their history, and the ids become `0..n'` in the same order. The
    /// energy the contacts dissipated so far is zeroed: the caller books it, as after a new
    /// set-up.
    ///
    /// Returns `Ok(false)`, changing nothing, where the binning cannot do it: a scene with
    /// large spheres (their bucket holds the leaving ones) or with the gravity tree.
    ///
    /// # Errors
    /// A message when `leaving` does not hold one flag a sphere.
    pub fn remove_spheres(&mut self, leaving: &[bool]) -> Result<bool, String> {
        let n = self.len();
        if leaving.len() != n {
            return Err(format!("{} removal flags for {n} spheres", leaving.len()));
        }
        if self.params.host.gravity_tree() || self.n_small as usize != n {
            return Ok(false);
        }
        let stay = leaving.iter().filter(|&&l| !l).count();
        let new_id = new_ids(leaving);
        let far = R::of(LEAVING_RADIUS as f64);
        for (r, id) in self.radius.iter_mut().zip(self.id.iter_mut()) {
            if leaving[*id as usize] {
                *r = far;
            }
            *id = new_id[*id as usize];
        }
        for k in &mut self.list.partner_id {
            *k = new_id.get(*k as usize).copied().unwrap_or(GONE);
        }
        let mut run = StepRun::new(true);
        run.carry = true;
        run.keep = Some(stay);
        let (head, tail): (Vec<Pass>, Vec<Pass>) = recipe::step(self.recipe_config(), true)
            .into_iter()
            .partition(|p| p.head());
        self.run_recipe(&head, &mut run);
        // Set-up's evaluation starts no history: the carried history is put back after it.
        let kept = (self.list.kept.clone(), self.list.wall_kept.clone());
        self.run_recipe(&tail, &mut run);
        (self.list.kept, self.list.wall_kept) = kept;
        self.contacts = run.sums.contacts;
        self.spring_energy = run.sums.energy;
        self.dissipated = 0.0;
        keep_staying(&mut self.radius_input, leaving);
        keep_staying(&mut self.mass_input, leaving);
        Ok(true)
    }
}
