//! What comes out of the CPU backend: counters, diagnostics, snapshots, and the state a
//! checkpoint saves and restores.

use super::*;
use crate::history::{ContactMemory, Kept};

impl<R: Real> CpuBackend<R> {
    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }

    /// Steps completed.
    pub fn steps_done(&self) -> u64 {
        self.step
    }

    /// Collisions resolved so far.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Cell edge of the last binning, m.
    pub fn cell_edge(&self) -> f64 {
        self.cell_edge.f64()
    }

    /// The integer outputs of the last binning.
    pub fn binning_state(&self) -> BinningState {
        BinningState {
            keys: self.keys.clone(),
            counts: self.counts.clone(),
            cell_start: self.cell_start.clone(),
            ids: self.id.clone(),
        }
    }

    /// Seconds spent in each stage of [`STAGES`] since set-up (binning = keys, count, prefix
    /// sum, scatter and reordering). As on the GPU, the check runs inside the force sum's
    /// pass (`integrate::end_of_step`) and is timed with `forces`, so `check` stays zero.
    pub fn stage_seconds(&self) -> [f64; 6] {
        self.stage_seconds
    }

    /// The pairs on the neighbour list, as input ids `(a, b)` with `a < b`, sorted. For tests of the list's safety invariant.
    pub fn listed_pairs(&self) -> Vec<(u32, u32)> {
        let list = &self.list;
        let mut pairs: Vec<(u32, u32)> = (0..list.start.len().saturating_sub(1))
            .flat_map(|i| {
                (list.start[i]..list.start[i + 1]).map(move |e| {
                    let (a, b) = (self.id[i], self.id[list.partner[e as usize] as usize]);
                    (a.min(b), a.max(b))
                })
            })
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Neighbour-list rebuilds since set-up.
    pub fn rebuilds(&self) -> u64 {
        self.list.rebuilds
    }

    /// The neighbour list's rows as built last (sorted order of that build).
    pub fn list_rows(&self) -> crate::setup::ListRows {
        crate::setup::ListRows {
            start: self.list.start.clone(),
            partner: self.list.partner.clone(),
            link: self.list.link.clone(),
        }
    }

    /// Spheres in the large-sphere list.
    pub fn large_count(&self) -> usize {
        self.len() - self.n_small as usize
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.params.host.dt
    }

    /// Interaction counts of the last tree walk (zero unless `gravity_solver = "tree"`).
    pub fn walk_counts(&self) -> tree::WalkCounts {
        self.walk_counts
    }

    /// Diagnostics of the current state (the direct solver's mutual-gravity potential is
    /// O(N²); the tree's is its walk, with the potential added).
    pub fn diagnostics(&self) -> Diagnostics {
        let s = diagnostics::diagnostics::<R>(
            &self.position,
            &self.velocity,
            &self.mass,
            &self.inv_mass,
            self.params.host.gravity,
        );
        let g = self.params.g_const.f64();
        let potential_gravity = if g > 0.0 && self.params.tree {
            // A fresh tree: the backend's may predate the current positions.
            let mut t = tree::Tree::<R>::new();
            t.build(&self.position, &self.mass);
            let (theta, eps2) = (self.params.theta, self.params.eps2);
            t.potential_energy(&self.position, &self.mass, theta, g, eps2)
        } else if g > 0.0 {
            let eps2 = self.params.eps2.f64();
            diagnostics::gravity_potential::<R>(&self.position, &self.mass, g, eps2)
        } else {
            0.0
        };
        let (kinetic_rotational, spin_momentum) =
            diagnostics::spin_sums::<R>(&self.spin, &self.radius, &self.mass, &self.inv_mass);
        Diagnostics {
            step: self.step,
            time: self.time(),
            kinetic: s.kinetic,
            kinetic_rotational,
            potential_uniform: s.potential_uniform,
            potential_gravity,
            potential_spring: self.spring_energy,
            dissipated: self.dissipated,
            momentum: s.momentum,
            momentum_magnitude_sum: s.momentum_magnitude_sum,
            angular_momentum: s.angular_momentum + spin_momentum,
            contacts: self.contacts,
            collisions: self.collisions,
            friction_history_dropped: self.history_dropped,
            neighbour_rebuilds: self.rebuilds(),
            ..Diagnostics::default()
        }
    }

    /// The force the spheres exerted on each wall in the last step, N (planes, then
    /// containers; [`crate::diagnostics::wall_force_sums`]); empty unless the scene records
    /// wall forces, zero before the first step.
    pub fn wall_forces(&self) -> Vec<DVec3> {
        if self.wall_force.is_empty() {
            return Vec::new();
        }
        let f = self.wall_force.iter().map(|&v| {
            let [x, y, z] = R::comps(v);
            DVec3::new(x.f64(), y.f64(), z.f64())
        });
        crate::diagnostics::wall_force_sums(f, self.planes.len())
    }

    /// The contacts' history by sphere id ([`crate::history`]); `None` without contact
    /// history ([`crate::setup::contact_history`]).
    pub fn contact_memory(&self) -> Option<ContactMemory> {
        if !self.params.history {
            return None;
        }
        // The one reading of the history's arrays, those of a checkpoint.
        self.history_state().contact_memory().ok()
    }

    /// Gives the contacts the history `memory` and evaluates set-up's forces again with it
    /// (see [`crate::engine::Engine::restore_contact_memory`]). The history is given to the
    /// list as set-up built it, then again after the evaluation, which (as set-up's) keeps none
    /// of what it computed (`run_pass`'s `SumPairs`).
    ///
    /// # Errors
    /// A message when `memory` holds another number of walls or more spheres than this.
    pub fn restore_contact_memory(&mut self, memory: &ContactMemory) -> Result<(), String> {
        if !self.params.history || memory.is_empty() {
            return Ok(());
        }
        let (n, walls) = (self.len(), self.planes.len());
        memory.fits(n, walls)?;
        self.give_history(memory);
        let mut run = StepRun::new(true);
        // The binning and the list stay as set-up made them.
        run.rebuild = false;
        let init = recipe::step(self.recipe_config(), true);
        self.run_recipe(&init, &mut run);
        self.contacts = run.sums.contacts;
        self.spring_energy = run.sums.energy;
        self.stage_seconds = [0.0; 6];
        self.give_history(memory);
        Ok(())
    }

    /// Sets each sphere's orientation, by input id (see
    /// [`crate::engine::Engine::set_orientations`]).
    ///
    /// # Errors
    /// A message when `orientation` does not hold one quaternion a sphere.
    pub fn set_orientations(&mut self, orientation: &[glam::DQuat]) -> Result<(), String> {
        if self.orientation.is_empty() {
            return Ok(());
        }
        if orientation.len() != self.len() {
            return Err(format!(
                "{} orientations for {} spheres",
                orientation.len(),
                self.len()
            ));
        }
        for (q, &id) in self.orientation.iter_mut().zip(&self.id) {
            *q = orientation[id as usize].to_array().map(R::of);
        }
        Ok(())
    }

    /// Each list entry's and each wall row's history from `memory`, by the spheres' ids.
    fn give_history(&mut self, memory: &ContactMemory) {
        let of = |k: Kept| collide::ContactHistory {
            xi: R::v3(k.xi),
            impact: R::of(k.impact),
            rolling: R::v3(k.rolling),
        };
        let (list, id, walls) = (&mut self.list, &self.id, self.planes.len());
        for (i, &me) in id.iter().enumerate() {
            for e in list.start[i] as usize..list.start[i + 1] as usize {
                list.kept[e] = of(memory.pair(me, list.partner_id[e]));
            }
            for w in 0..walls {
                list.wall_kept[i * walls + w] = of(memory.wall(me, w));
            }
        }
    }

    /// Everything a later step reads (see [`CpuState`]), for a checkpoint.
    pub fn save_state(&self) -> CpuState {
        let flat = |v: &[R::V3]| floats::<R>(v.iter().flat_map(|&x| R::comps(x)).map(|c| c.f64()));
        let list = &self.list;
        CpuState {
            position: flat(&self.position),
            velocity: flat(&self.velocity),
            acceleration: flat(&self.acceleration),
            spin: flat(&self.spin),
            orientation: floats::<R>(self.orientation.iter().flatten().map(|c| c.f64())),
            angular_acceleration: flat(&self.angular_acceleration),
            image: self.image.clone(),
            list_partner: list.partner.clone(),
            x_build: flat(&list.x_build),
            list_sweep: floats::<R>(list.sweep.iter().map(|s| s.f64())),
            rebuilds: list.rebuilds,
            step: self.step,
            collisions: self.collisions,
            history_dropped: self.history_dropped,
            contacts: self.contacts,
            spring_energy: self.spring_energy,
            dissipated: self.dissipated,
            wall_force: flat(&self.wall_force),
            ..self.history_state()
        }
    }

    /// The ids, the list's rows and the contact history as [`CpuState`] holds them, every
    /// other array empty: [`CpuBackend::save_state`]'s share that
    /// [`CpuState::contact_memory`] reads, without a copy of the rest.
    fn history_state(&self) -> CpuState {
        let flat = |v: &[R::V3]| floats::<R>(v.iter().flat_map(|&x| R::comps(x)).map(|c| c.f64()));
        let none = || floats::<R>(std::iter::empty());
        let list = &self.list;
        // Each contact history's ξ, impact speed and rolling spring, as three flat arrays.
        let xi =
            |h: &[collide::ContactHistory<R>]| flat(&h.iter().map(|k| k.xi).collect::<Vec<_>>());
        let impact =
            |h: &[collide::ContactHistory<R>]| floats::<R>(h.iter().map(|k| k.impact.f64()));
        let rolling = |h: &[collide::ContactHistory<R>]| {
            flat(&h.iter().map(|k| k.rolling).collect::<Vec<_>>())
        };
        CpuState {
            id: self.id.clone(),
            position: none(),
            velocity: none(),
            acceleration: none(),
            spin: none(),
            orientation: none(),
            angular_acceleration: none(),
            image: Vec::new(),
            list_start: list.start.clone(),
            list_partner: Vec::new(),
            history_partner: list.partner_id.clone(),
            history_xi: xi(&list.kept),
            history_impact: impact(&list.kept),
            history_rolling: rolling(&list.kept),
            wall_xi: xi(&list.wall_kept),
            wall_impact: impact(&list.wall_kept),
            wall_rolling: rolling(&list.wall_kept),
            x_build: none(),
            list_sweep: none(),
            rebuilds: 0,
            step: 0,
            collisions: 0,
            history_dropped: 0,
            contacts: 0,
            spring_energy: 0.0,
            dissipated: 0.0,
            wall_force: none(),
        }
    }

    /// Continues from a saved state of the same scene and precision: the next step is
    /// bit-identical to the one the saving backend would have taken.
    ///
    /// # Errors
    /// A message when the state is of the other precision or does not fit this scene (sphere
    /// count, ids, neighbour list, friction history); the backend is then unchanged.
    pub fn restore_state(&mut self, s: &CpuState) -> Result<(), String> {
        let n = self.len();
        if s.position.precision() != R::PRECISION {
            return Err(format!(
                "it holds {} values, this backend computes in {}",
                s.position.precision(),
                R::PRECISION
            ));
        }
        if s.id.len() != n
            || [&s.position, &s.velocity, &s.acceleration]
                .iter()
                .any(|f| f.len() != 3 * n)
        {
            return Err(format!(
                "it holds {} spheres, the scene has {n}",
                s.id.len()
            ));
        }
        let rot = if self.params.rotation { n } else { 0 };
        if s.spin.len() != 3 * rot
            || s.angular_acceleration.len() != 3 * rot
            || s.orientation.len() != 4 * rot
        {
            return Err(format!(
                "its rotational state does not fit a scene with rotation = {}",
                self.params.rotation
            ));
        }
        let periodic = self.params.periodic.any();
        if s.image.len() != if periodic { n } else { 0 } {
            return Err(format!(
                "it holds {} periodic images, a scene {} periodic axes needs {}",
                s.image.len(),
                if periodic { "with" } else { "without" },
                if periodic { n } else { 0 }
            ));
        }
        check_list(s, n, self.params.history, self.planes.len())?;
        if s.wall_force.len() != 3 * self.wall_force.len() {
            return Err(format!(
                "it holds {} wall-force values, a scene {} wall_forces needs {}",
                s.wall_force.len(),
                if self.wall_force.is_empty() {
                    "without"
                } else {
                    "with"
                },
                3 * self.wall_force.len()
            ));
        }
        // Slot of each input id now, to carry the per-sphere constants into the saved order.
        let mut slot = vec![u32::MAX; n];
        for (i, &id) in self.id.iter().enumerate() {
            slot[id as usize] = i as u32;
        }
        let mut seen = vec![false; n];
        for &id in &s.id {
            if id as usize >= n || std::mem::replace(&mut seen[id as usize], true) {
                return Err(format!("sphere id {id} is out of range or repeated"));
            }
        }
        let order: Vec<u32> = s.id.iter().map(|&id| slot[id as usize]).collect();
        fn reorder<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
            *v = order.iter().map(|&i| v[i as usize]).collect();
        }
        self.bodies_stale = true;
        reorder(&mut self.radius, &order);
        reorder(&mut self.mass, &order);
        reorder(&mut self.inv_mass, &order);
        reorder(&mut self.restitution, &order);
        reorder(&mut self.zeta, &order);
        reorder(&mut self.compliance, &order);
        reorder(&mut self.mu, &order);
        if self.params.rotation {
            reorder(&mut self.inv_inertia, &order);
        }
        if self.params.rolling {
            reorder(&mut self.rolling_friction, &order);
        }
        self.id.clone_from(&s.id);
        self.image.clone_from(&s.image);
        let v3s = |f: &Floats| -> Vec<R::V3> {
            (0..f.len() / 3)
                .map(|i| R::v3(DVec3::new(f.get(3 * i), f.get(3 * i + 1), f.get(3 * i + 2))))
                .collect()
        };
        self.position = v3s(&s.position);
        self.velocity = v3s(&s.velocity);
        self.acceleration = v3s(&s.acceleration);
        self.spin = v3s(&s.spin);
        self.angular_acceleration = v3s(&s.angular_acceleration);
        self.orientation = (0..s.orientation.len() / 4)
            .map(|i| std::array::from_fn(|k| R::of(s.orientation.get(4 * i + k))))
            .collect();
        let list = &mut self.list;
        list.start.clone_from(&s.list_start);
        list.partner.clone_from(&s.list_partner);
        list.partner_id.clone_from(&s.history_partner);
        let kept = |xi: &Floats, impact: &Floats, rolling: &Floats| {
            v3s(xi)
                .into_iter()
                .zip(v3s(rolling))
                .enumerate()
                .map(|(e, (xi, rolling))| collide::ContactHistory {
                    xi,
                    impact: R::of(impact.get(e)),
                    rolling,
                })
                .collect::<Vec<_>>()
        };
        list.kept = kept(&s.history_xi, &s.history_impact, &s.history_rolling);
        list.wall_kept = kept(&s.wall_xi, &s.wall_impact, &s.wall_rolling);
        list.x_build = v3s(&s.x_build);
        // Not saved: every wall counts as in reach until the next build.
        list.wall_reach.clear();
        list.sweep = (0..s.list_sweep.len())
            .map(|i| R::of(s.list_sweep.get(i)))
            .collect();
        list.rebuilds = s.rebuilds;
        list.relink(&self.id);
        self.step = s.step;
        self.collisions = s.collisions;
        self.history_dropped = s.history_dropped;
        self.contacts = s.contacts;
        self.spring_energy = s.spring_energy;
        self.dissipated = s.dissipated;
        self.wall_force = v3s(&s.wall_force);
        Ok(())
    }

    /// The state in input order, widened to f64.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::default();
        self.snapshot_into(&mut snap);
        snap
    }

    /// [`CpuBackend::snapshot`] written into `snap`, reusing its allocations: no allocation once
    /// its vectors hold this many spheres.
    pub fn snapshot_into(&self, snap: &mut Snapshot) {
        let n = self.len();
        let rotation = self.params.rotation;
        snap.reset(
            self.step,
            self.time(),
            &self.radius_input,
            &self.mass_input,
            rotation,
        );
        for i in 0..n {
            let id = self.id[i] as usize;
            snap.position[id] = R::v3_f64(self.position[i]);
            snap.velocity[id] = R::v3_f64(self.velocity[i]);
            if rotation {
                snap.angular_velocity[id] = R::v3_f64(self.spin[i]);
                let [x, y, z, w] = self.orientation[i].map(|c| c.f64());
                snap.orientation[id] = glam::DQuat::from_xyzw(x, y, z, w);
            }
        }
        if !self.image.is_empty() {
            snap.image.resize(n, [0; 3]);
            for (i, &image) in self.image.iter().enumerate() {
                snap.image[self.id[i] as usize] = image;
            }
        }
    }
}

/// Checks a saved neighbour list against the scene: `n + 1` non-decreasing rows ending at the
/// entry count, partners in range, a build position and sweep per sphere, a ξ and partner id per
/// entry and a ξ per sphere and wall with friction history (none without).
fn check_list(s: &CpuState, n: usize, history: bool, walls: usize) -> Result<(), String> {
    let entries = s.list_partner.len();
    let rows_ok = s.list_start.len() == n + 1
        && s.list_start.windows(2).all(|w| w[0] <= w[1])
        && s.list_start.first() == Some(&0)
        && s.list_start.last().map(|&e| e as usize) == Some(entries)
        && entries < neighbours::NO_MIRROR as usize
        && s.list_partner.iter().all(|&j| (j as usize) < n)
        && s.x_build.len() == 3 * n
        && s.list_sweep.len() == n;
    if !rows_ok {
        return Err(format!(
            "its neighbour list ({} rows, {entries} entries) does not fit this scene of {n} \
             spheres",
            s.list_start.len(),
        ));
    }
    let (want_entries, want_walls) = if history {
        (entries, n * walls)
    } else {
        (0, 0)
    };
    if s.history_partner.len() != want_entries
        || s.history_xi.len() != 3 * want_entries
        || s.history_impact.len() != want_entries
        || s.history_rolling.len() != 3 * want_entries
        || s.wall_xi.len() != 3 * want_walls
        || s.wall_impact.len() != want_walls
        || s.wall_rolling.len() != 3 * want_walls
    {
        return Err(format!(
            "its friction history ({} contacts, {} wall values) does not fit this scene, which \
             needs {want_entries} and {want_walls}",
            s.history_partner.len(),
            s.wall_xi.len() / 3
        ));
    }
    Ok(())
}
