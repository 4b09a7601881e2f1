//! Spheres taken out and put in inside the binning (`crate::removal`): the CPU's half. Twin
//! of `src/gpu/removal.rs`.

use super::CpuBackend;
use super::step::StepRun;
use crate::physics::rotation::inverse_inertia;
use crate::real::Real;
use crate::recipe::{self, Pass};
use crate::removal::{GONE, LEAVING_RADIUS, keep_staying, new_ids};
use crate::scene::RollingModel;
use crate::setup::PackedScene;

impl<R: Real> CpuBackend<R> {
    /// Takes out the spheres with `leaving[id]` (by input id, `n` flags) and puts in the
    /// spheres of `added` (their ids follow those that stay) inside set-up's binning
    /// ([`crate::removal`]), then evaluates the forces. The contacts of the spheres that stay
    /// keep their history, and the ids become `0..n'` in the same order. The energy the
    /// contacts dissipated so far is zeroed: the caller books it, as after a new set-up.
    ///
    /// Returns `Ok(false)`, changing nothing, where the binning cannot do it: a new sphere
    /// would be large, or the scene has large spheres (their bucket holds the leaving ones) or
    /// the gravity tree.
    ///
    /// # Errors
    /// A message when `leaving` does not hold one flag a sphere.
    pub fn exchange_spheres(
        &mut self,
        leaving: &[bool],
        added: &PackedScene,
    ) -> Result<bool, String> {
        let n = self.len();
        if leaving.len() != n {
            return Err(format!("{} removal flags for {n} spheres", leaving.len()));
        }
        let small_max = self.params.small_radius_max;
        if self.params.host.gravity_tree()
            || self.n_small as usize != n
            || added.radius.iter().any(|&r| R::of(r) > small_max)
        {
            return Ok(false);
        }
        let k = added.position.len();
        let stay = leaving.iter().filter(|&&l| !l).count();
        let new_id = new_ids(leaving);
        let far = R::of(LEAVING_RADIUS as f64);
        for (r, id) in self.radius.iter_mut().zip(self.id.iter_mut()) {
            if leaving[*id as usize] {
                *r = far;
            }
            *id = new_id[*id as usize];
        }
        for i in &mut self.list.partner_id {
            *i = new_id.get(*i as usize).copied().unwrap_or(GONE);
        }
        keep_staying(&mut self.radius_input, leaving);
        keep_staying(&mut self.mass_input, leaving);
        self.append(added, stay as u32);
        let mut run = StepRun::new(true);
        run.carry = true;
        run.keep = Some(stay + k);
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
        Ok(true)
    }

    /// Appends the spheres of `added` after those present, with ids from `first` on, and sizes
    /// the per-sphere scratch for them; the binning sorts them in. Set-up
    /// (`CpuBackend::from_packed`) packs its scene this way, into empty arrays. Marks every
    /// sphere small: set-up then counts its large ones, and an insertion adds none.
    pub(super) fn append(&mut self, added: &PackedScene, first: u32) {
        let k = added.position.len();
        let of = |v: &[f64]| v.iter().map(|&x| R::of(x)).collect::<Vec<R>>();
        self.position
            .extend(added.position.iter().map(|&x| R::v3(x)));
        self.velocity
            .extend(added.velocity.iter().map(|&v| R::v3(v)));
        self.acceleration.extend(std::iter::repeat_n(R::zero3(), k));
        if self.params.rotation {
            self.spin
                .extend(added.angular_velocity.iter().map(|&w| R::v3(w)));
            let identity = [R::zero(), R::zero(), R::zero(), R::one()];
            self.orientation.extend(std::iter::repeat_n(identity, k));
            self.angular_acceleration
                .extend(std::iter::repeat_n(R::zero3(), k));
            self.inv_inertia.extend(
                added
                    .inv_mass
                    .iter()
                    .zip(&added.radius)
                    .map(|(&w, &r)| R::of(inverse_inertia(w, r))),
            );
        }
        if self.params.host.rolling != RollingModel::None {
            self.rolling_friction.extend(of(&added.rolling_friction));
        }
        self.radius.extend(of(&added.radius));
        self.mass.extend(of(&added.mass));
        self.inv_mass.extend(of(&added.inv_mass));
        self.restitution.extend(of(&added.restitution));
        self.zeta.extend(of(&added.zeta));
        self.compliance.extend(of(&added.compliance));
        self.mu.extend(of(&added.friction));
        self.id.extend(first..first + k as u32);
        if self.params.host.periodic.any() {
            self.image.extend_from_slice(&added.image);
        }
        self.radius_input.extend_from_slice(&added.radius);
        self.mass_input.extend_from_slice(&added.mass);
        let n = self.position.len();
        self.n_small = n as u32;
        self.keys.resize(n, 0);
        self.perm.resize(n, 0);
        self.contact.resize(n, Default::default());
        self.earliest.resize(n, Default::default());
        // The new spheres' walls keep nothing yet (their old rows, which the build carries).
        if !self.list.wall_kept.is_empty() {
            let rows = self.list.wall_kept.len() + k * self.planes.len();
            self.list.wall_kept.resize(rows, Default::default());
        }
        if self.params.host.wall_forces {
            self.wall_force.resize(n * self.planes.len(), R::zero3());
        }
    }
}
