//! The CPU backend's step: the recipe's passes (`crate::recipe::step`) run in order, each by
//! its twin of the GPU's dispatches, and the stage functions they call.

use super::*;
use cell_keys::GridAxes;

/// Sums of the contact stage's per-sphere results.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ContactSums {
    pub(super) contacts: u64,
    /// Elastic energy, J.
    pub(super) energy: f64,
    /// Dissipated power, W.
    pub(super) power: f64,
    pub(super) collisions: u64,
    /// Energy the impulse rounds took out of the step, J (see [`CpuBackend::apply_contacts`]).
    pub(super) impulse_loss: f64,
}

/// What one step's passes hand each other on the CPU ([`CpuBackend::run_pass`]).
pub(super) struct StepRun<R: Real> {
    /// Set-up's evaluation (nothing applied, no rebuild counted).
    pub(super) init: bool,
    /// Largest small-sphere speed after the first half kick, m/s.
    pub(super) vmax: R,
    /// The list is rebuilt this step.
    pub(super) rebuild: bool,
    /// The contact stage's sums (the final round's, or the soft laws').
    pub(super) sums: ContactSums,
    /// Collisions of the matching rounds.
    pub(super) collisions: u64,
    /// Energy the impulse rounds took out of the step, J.
    pub(super) impulse_loss: f64,
    /// The final round's impulses are not yet applied.
    pub(super) unapplied: bool,
    /// Input id of the first sphere the check stopped.
    pub(super) bad: Option<u32>,
    /// The contact passes' parameters, set by `BuildList` once this step's cells are known.
    pub(super) collide: Option<CollideParams<R>>,
    /// The build carries the old rows' contact history (every step's, and a removal's).
    pub(super) carry: bool,
    /// The binning keeps only the first this many spheres of its order (a removal's, whose
    /// leaving spheres sort last: `crate::removal`); `None`: all.
    pub(super) keep: Option<usize>,
}

impl<R: Real> StepRun<R> {
    pub(super) fn new(init: bool) -> Self {
        Self {
            init,
            vmax: R::zero(),
            rebuild: true,
            sums: ContactSums::default(),
            collisions: 0,
            impulse_loss: 0.0,
            unapplied: false,
            bad: None,
            collide: None,
            carry: !init,
            keep: None,
        }
    }

    /// The contact passes' parameters of this step.
    ///
    /// # Panics
    /// Before `BuildList`, which the recipe puts ahead of every contact pass.
    fn collide(&self) -> CollideParams<R> {
        self.collide
            .expect("BuildList runs before the contact passes")
    }
}

/// The profiler's stage (`CpuBackend::stage_seconds`) of a pass: integrate, binning,
/// contacts, gravity, forces.
pub(super) fn stage_of(kind: Kind) -> usize {
    match kind {
        Kind::MeasureSpeed | Kind::KickDrift => 0,
        Kind::Binning => 1,
        Kind::Gravity => 3,
        Kind::EndOfStep | Kind::Accelerations => 4,
        _ => 2,
    }
}

impl<R: Real> CpuBackend<R> {
    /// Stages `cell_keys`, `count`, `prefix_sum`, `scatter`: sorts the state by bucket, in
    /// cells widened by the neighbour-list skin (half on each side). `keep`: only the first
    /// that many spheres of the new order stay (a removal's, `crate::removal`).
    pub(super) fn bin(&mut self, small_speed_max: R, keep: Option<usize>) {
        let reach = self.params.small_radius_max + self.params.skin * R::of(0.5);
        self.cell_edge = cell_keys::cell_edge(reach, small_speed_max, self.params.dt);
        let inv_h = self.cell_edge.recip();
        let axes = GridAxes::of(&self.params.periodic, self.cell_edge);
        cell_keys::cell_keys::<R>(
            &self.position,
            &self.radius,
            self.params.small_radius_max,
            inv_h,
            &axes,
            self.params.table_size,
            &mut self.keys,
        );
        count::count(&self.keys, &mut self.counts);
        prefix_sum::prefix_sum(&self.counts, &mut self.cell_start, &mut self.block_sums);
        scatter::scatter(
            &self.keys,
            &self.cell_start,
            &mut self.perm,
            &mut self.next_slot,
        );
        if let Some(k) = keep {
            // The leaving spheres, binned last, are not gathered, and leave every per-sphere
            // array.
            self.perm.truncate(k);
            self.keys.truncate(k);
            self.contact.truncate(k);
            self.earliest.truncate(k);
            self.wall_force.truncate(k * self.planes.len());
            self.n_small = k as u32;
        }
        let perm = &self.perm;
        // Gathers into the spare array and swaps: the old array becomes the next spare.
        fn permute<T: Copy + Send + Sync>(v: &mut Vec<T>, spare: &mut Vec<T>, perm: &[u32]) {
            scatter::gather(v, perm, spare);
            std::mem::swap(v, spare);
        }
        let (sv, sr) = (&mut self.spare_v3, &mut self.spare_r);
        permute(&mut self.position, sv, perm);
        permute(&mut self.velocity, sv, perm);
        permute(&mut self.acceleration, sv, perm);
        if self.params.rotation {
            permute(&mut self.spin, sv, perm);
            permute(&mut self.angular_acceleration, sv, perm);
            permute(&mut self.orientation, &mut self.spare_q, perm);
            permute(&mut self.inv_inertia, sr, perm);
        }
        if self.params.rolling {
            permute(&mut self.rolling_friction, sr, perm);
        }
        permute(&mut self.radius, sr, perm);
        permute(&mut self.mass, sr, perm);
        permute(&mut self.inv_mass, sr, perm);
        permute(&mut self.restitution, sr, perm);
        permute(&mut self.zeta, sr, perm);
        permute(&mut self.compliance, sr, perm);
        permute(&mut self.mu, sr, perm);
        permute(&mut self.id, &mut self.spare_u32, perm);
        if !self.image.is_empty() {
            permute(&mut self.image, &mut self.spare_i3, perm);
        }
        self.bodies_stale = true;
    }

    /// Each sphere's cell at binning time (the bodies' `cell`), and the large spheres' boxes,
    /// which the list's build walks from: the first pass of a build (the GPU's
    /// `neighbours::sweeps`), on the state [`CpuBackend::bin`] sorted.
    fn bin_cells(&mut self, params: &CollideParams<R>) {
        let inv_h = self.cell_edge.recip();
        let axes = GridAxes::of(&self.params.periodic, self.cell_edge);
        self.cells.clear();
        self.cells.par_extend(
            self.position
                .par_iter()
                .map(|&x| cell_keys::cell_of::<R>(x, inv_h, &axes)),
        );
        let n_small = self.n_small as usize;
        self.boxes.clear();
        self.boxes.extend((n_small..self.len()).map(|i| {
            collide::large_box(self.position[i], self.velocity[i], self.radius[i], params)
        }));
    }

    /// Refreshes the contact stage's view of the spheres from the state arrays.
    pub(super) fn load_bodies(&mut self) {
        let n = self.len();
        if !self.bodies_stale && self.bodies.len() == n && self.balls.len() == n {
            // Between sorts only the positions and velocities change: rewrite those alone,
            // which reads 24 bytes a sphere instead of 60.
            self.bodies
                .par_iter_mut()
                .zip(self.balls.par_iter_mut())
                .zip(self.position.par_iter().zip(self.velocity.par_iter()))
                .for_each(|((body, ball), (&x, &v))| {
                    body.x = x;
                    body.v = v;
                    ball.x = x;
                });
            return;
        }
        self.bodies_stale = false;
        self.bodies.clear();
        self.bodies.par_extend((0..n).into_par_iter().map(|i| Body {
            x: self.position[i],
            v: self.velocity[i],
            r: self.radius[i],
            w: self.inv_mass[i],
            e: self.restitution[i],
            zeta: self.zeta[i],
            compliance: self.compliance[i],
            mu: self.mu[i],
            id: self.id[i],
            cell: self.cells[i],
        }));
        self.balls.clear();
        self.balls.par_extend(
            self.position
                .par_iter()
                .zip(self.radius.par_iter())
                .map(|(&x, &r)| Ball { x, r }),
        );
    }

    /// What decides this scene's recipe.
    pub(super) fn recipe_config(&self) -> recipe::Config {
        recipe::Config {
            impulse: self.params.model == ContactModel::Impulse,
            // Decided on the f64 parameters, as the GPU decides: a G that rounds to 0 in f32
            // still runs the (then zero) gravity pass on both.
            gravity: self.params.host.mutual_gravity(),
            rounds: collide::MATCHING_ROUNDS,
        }
    }

    /// The contact stage's uniform parameters for this step ([`crate::params::CpuParams::collide`]).
    pub(super) fn collide_params(&self, small_speed_max: R) -> CollideParams<R> {
        self.params
            .collide(self.n_small, self.cell_edge, small_speed_max)
    }

    /// The recipe's `BuildList` twin: the contact stage's view of this step (the bodies), and
    /// on a `rebuild` the list's build from the binning just before (and its cells and the
    /// large spheres' boxes). At set-up (`init`) the build is not counted as a
    /// rebuild; `carry`: the build carries the old rows' history by the binning's order.
    pub(super) fn build_list(
        &mut self,
        params: &CollideParams<R>,
        init: bool,
        rebuild: bool,
        carry: bool,
    ) {
        let impulse = self.params.model == ContactModel::Impulse;
        if rebuild {
            self.bin_cells(params);
        }
        self.load_bodies();
        if rebuild {
            // Impulses: the step's own travel counts in each sphere's reach.
            let velocity: &[R::V3] = if impulse { &self.velocity } else { &[] };
            neighbours::sweeps(
                velocity,
                &self.radius,
                self.params.small_radius_max,
                self.params.dt,
                self.params.skin,
                &mut self.sweep,
            );
            self.list.build(
                &self.bodies,
                &self.balls,
                &self.id,
                &self.boxes,
                &self.cell_start,
                &self.counts,
                params,
                &self.sweep,
                self.params.history,
                &self.planes,
                carry.then_some(&self.perm[..]),
            );
            self.list.rebuilds += u64::from(!init);
        }
    }

    /// The recipe's `CollidePairs` (`sum` false) or `SumPairs` (`sum`) twin: the soft laws'
    /// pair forces from the list, or each sphere's sum of its row and walls into `self.contact`.
    pub(super) fn soft_pass(&mut self, params: &CollideParams<R>, sum: bool) {
        let spin = Spins {
            omega: &self.spin,
            inv_inertia: &self.inv_inertia,
            rolling_friction: &self.rolling_friction,
        };
        let (bodies, balls, list, planes) =
            (&self.bodies, &self.balls, &mut self.list, &self.planes);
        let contact = (&mut self.contact[..], &mut self.wall_force[..]);
        if self.params.rolling {
            let pairs = &mut self.roll_pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        } else if self.params.rotation {
            let pairs = &mut self.spin_pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        } else {
            let pairs = &mut self.pairs;
            soft_pass(
                bodies, spin, balls, list, planes, params, pairs, contact, sum,
            );
        }
    }

    /// Runs the passes of `recipe` (`crate::recipe::step`) in order, each by its CPU twin;
    /// `run` carries what they hand each other.
    pub(super) fn run_recipe(&mut self, recipe: &[Pass], run: &mut StepRun<R>) {
        let mut clock = std::time::Instant::now();
        for pass in recipe {
            self.run_pass(pass, run);
            let now = std::time::Instant::now();
            self.stage_seconds[stage_of(pass.kind)] += (now - clock).as_secs_f64();
            clock = now;
        }
    }

    /// The CPU twin of one pass of the recipe. The CPU sums a matching round's impulses in a
    /// row pass and applies them at once, where the round's `impulse_pairs` starts (the GPU
    /// folds the sum into that pass and the `earliest_from_pairs` before it, and defers the
    /// apply to the next pass that reads the state), and the final round's at `ApplyContacts`
    /// or the end of the step, as the GPU does.
    pub(super) fn run_pass(&mut self, pass: &Pass, run: &mut StepRun<R>) {
        match pass.kind {
            Kind::MeasureSpeed => {
                run.vmax = self
                    .velocity
                    .par_iter()
                    .zip(self.radius.par_iter())
                    .filter(|&(_, &r)| r <= self.params.small_radius_max)
                    .map(|(&v, _)| R::norm2(v))
                    .reduce(R::zero, |a, b| a.max(b))
                    .sqrt();
            }
            Kind::KickDrift => self.kick_drift(run),
            Kind::Binning => {
                if run.rebuild {
                    self.bin(run.vmax, run.keep);
                }
            }
            Kind::BuildList => {
                // After the binning set this step's cell edge: the contact passes' parameters.
                let params = self.collide_params(run.vmax);
                run.collide = Some(params);
                self.build_list(&params, run.init, run.rebuild, run.carry);
            }
            Kind::ImpulsePairs(Pairs::Binary) => {
                neighbours::resize_with_headroom(
                    &mut self.impulses,
                    self.list.owned.len(),
                    Default::default(),
                );
                // Each pair is evaluated in full once per step; then only where a round moved
                // one of its spheres (`collide::impulse_pairs`).
                self.moved.clear();
                self.impulse_pairs(&run.collide(), false);
            }
            Kind::ImpulsePairs(Pairs::Pending) => {
                // The matching round the GPU folds into its pair passes, summed as a row pass
                // and applied here.
                self.collide(Round::Matching, &run.collide());
                run.collisions += self.sum_contacts().collisions;
                run.impulse_loss += self.apply_contacts();
                self.load_bodies();
                self.impulse_pairs(&run.collide(), false);
            }
            Kind::ImpulsePairs(Pairs::Final) => self.impulse_pairs(&run.collide(), true),
            Kind::EarliestEvents { .. } => self.earliest_events(&run.collide()),
            Kind::SumImpulses => {
                self.collide(Round::Final, &run.collide());
                run.sums = self.sum_contacts();
                run.unapplied = !run.init;
            }
            Kind::ApplyContacts => {
                run.impulse_loss += self.apply_contacts();
                run.unapplied = false;
            }
            Kind::CollidePairs => self.soft_pass(&run.collide(), false),
            Kind::SumPairs => {
                self.soft_pass(&run.collide(), true);
                if run.init {
                    // No time has passed: set-up starts no friction history.
                    self.list.kept.fill(Default::default());
                    self.list.wall_kept.fill(Default::default());
                }
                run.sums = self.sum_contacts();
            }
            Kind::Gravity => self.mutual_gravity(),
            Kind::Accelerations => self.accelerations(),
            Kind::EndOfStep => self.end_of_step(run),
        }
    }

    /// Stage `collide`, impulse model: the listed pairs' responses, binary (those with a sphere
    /// in `self.moved`, or all when it is empty) or (`split`) with the mass-splitting factors
    /// of `self.earliest`, into `self.impulses`.
    pub(super) fn impulse_pairs(&mut self, params: &CollideParams<R>, split: bool) {
        let list = &self.list;
        let earliest: &[Event<R>] = if split { &self.earliest } else { &[] };
        collide::impulse_pairs(
            &self.bodies,
            &list.rows(),
            earliest,
            &self.moved,
            params,
            &mut self.impulses,
        );
    }

    /// Stage `collide`, earliest events, into `self.earliest`, from the binary responses in
    /// `self.impulses`.
    pub(super) fn earliest_events(&mut self, params: &CollideParams<R>) {
        collide::earliest_from_pairs(
            &self.bodies,
            &self.list.rows(),
            &self.impulses,
            &self.planes,
            params,
            &mut self.earliest,
        );
    }

    /// Stage `collide`, one round of the impulse model, into `self.contact`.
    pub(super) fn collide(&mut self, round: Round, params: &CollideParams<R>) {
        collide::sum_impulses(
            &self.bodies,
            &self.list.rows(),
            &self.impulses,
            &self.planes,
            &self.earliest,
            round,
            params,
            &mut self.contact,
        );
    }

    /// Impulse model: `x += dx`, `v += dv` from the contact stage. Returns the energy the
    /// round takes out of the step, J: minus [`collide::impulse_energy_change`] of every
    /// movable sphere, each in precision `R` (as the GPU's `apply_contacts`), summed in f64 in
    /// blocks of [`CHUNK`] and then in block order (reproducible).
    pub(super) fn apply_contacts(&mut self) -> f64 {
        let dt = self.params.dt;
        let (mass, inv_mass, field) = (&self.mass, &self.inv_mass, &self.acceleration);
        self.moved.resize(self.position.len(), false);
        self.position
            .par_chunks_mut(CHUNK)
            .zip(self.velocity.par_chunks_mut(CHUNK))
            .zip(self.contact.par_chunks(CHUNK))
            .zip(self.moved.par_chunks_mut(CHUNK))
            .enumerate()
            .map(|(b, (((xs, vs), cs), ms))| {
                let mut loss = 0.0;
                let items = xs.iter_mut().zip(vs.iter_mut()).zip(cs).zip(ms);
                for (k, (((x, v), c), moved)) in items.enumerate() {
                    let i = b * CHUNK + k;
                    // Fixed spheres (infinite mass) never move.
                    if inv_mass[i] != R::zero() {
                        let a = field[i];
                        let gain = collide::impulse_energy_change(mass[i], *v, c.dv, c.dx, a, dt);
                        loss -= gain.f64();
                    }
                    *x += c.dx;
                    *v += c.dv;
                    let zero = |d: R::V3| R::comps(d).iter().all(|&c| c == R::zero());
                    *moved = !(zero(c.dx) && zero(c.dv));
                }
                loss
            })
            .collect_into_vec(&mut self.loss_blocks);
        self.loss_blocks.iter().sum()
    }

    /// The contact results summed in fixed blocks (reproducible order).
    pub(super) fn sum_contacts(&mut self) -> ContactSums {
        self.contact
            .par_chunks(CHUNK)
            .map(|c| {
                c.iter().fold(ContactSums::default(), |s, o| ContactSums {
                    contacts: s.contacts + o.contacts as u64,
                    energy: s.energy + o.energy.f64(),
                    power: s.power + o.power.f64(),
                    collisions: s.collisions + o.collisions as u64,
                    impulse_loss: 0.0,
                })
            })
            .collect_into_vec(&mut self.contact_blocks);
        self.contact_blocks
            .iter()
            .fold(ContactSums::default(), |s, o| ContactSums {
                contacts: s.contacts + o.contacts,
                energy: s.energy + o.energy,
                power: s.power + o.power,
                collisions: s.collisions + o.collisions,
                impulse_loss: s.impulse_loss + o.impulse_loss,
            })
    }

    /// Stage gravity (when G > 0): mutual accelerations into `a_mutual`.
    pub(super) fn mutual_gravity(&mut self) {
        let n = self.len();
        let on = self.params.host.mutual_gravity();
        if on && self.params.tree {
            self.a_mutual.resize(n, R::zero3());
            self.walk_counts = self.tree.accelerations(
                &self.position,
                &self.mass,
                self.params.theta,
                self.params.g_const,
                self.params.eps2,
                &mut self.a_mutual,
            );
        } else if on {
            self.a_mutual.resize(n, R::zero3());
            gravity::gravity::<R>(
                &self.position,
                &self.mass,
                self.params.g_const,
                self.params.eps2,
                &mut self.a_mutual,
            );
        }
    }

    /// Accelerations from contact forces, mutual gravity, uniform gravity and drag.
    pub(super) fn accelerations(&mut self) {
        integrate::accelerations::<R>(
            &mut self.acceleration,
            &self.velocity,
            &self.radius,
            &self.inv_mass,
            soft_contacts(self.params.model, &self.contact),
            &self.a_mutual,
            self.params.gravity,
            self.params.drag,
        );
        self.angular_accelerations();
    }

    /// With rotation, the angular accelerations from the contacts' torques.
    pub(super) fn angular_accelerations(&mut self) {
        if self.params.rotation {
            integrate::angular_accelerations::<R>(
                &mut self.angular_acceleration,
                &self.contact,
                &self.inv_inertia,
            );
        }
    }

    /// Advances `k` steps; stops at the first non-finite state with `(step, sphere id)`.
    ///
    /// Scenes of fewer than [`SERIAL_BELOW`] spheres step on one thread of a private pool:
    /// waking the shared pool's threads for each of a step's dozens of parallel loops would cost
    /// more than the work. Larger scenes step on a worker thread of rayon's pool. A step
    /// allocates nothing (`tests/no_alloc.rs`).
    pub fn step_many(&mut self, k: u64) -> Result<(), (u64, u32)> {
        let serial = self.len() < SERIAL_BELOW;
        let mut run = || -> Result<(), (u64, u32)> {
            for _ in 0..k {
                self.step().map_err(|id| (self.step, id))?;
            }
            Ok(())
        };
        if serial {
            serial_pool().install(run)
        } else {
            // On a worker thread of the pool, the step's parallel loops push their work to the
            // worker's own queue; from outside, every loop would be injected into the pool's
            // shared queue, which allocates a block every few dozen jobs.
            rayon::scope(|_| run())
        }
    }

    /// Advances one step: the passes of [`crate::recipe::step`]. On a non-finite position or
    /// velocity, returns the input id of the first such sphere (lowest id).
    pub fn step(&mut self) -> Result<(), u32> {
        let mut run = StepRun::new(false);
        let recipe = std::mem::take(&mut self.recipe);
        self.run_recipe(&recipe, &mut run);
        self.recipe = recipe;
        match run.bad {
            Some(id) => Err(id),
            None => Ok(()),
        }
    }

    /// The recipe's `KickDrift` twin: the first half kick and the drift (and the rotation's),
    /// with the list's rebuild decision.
    pub(super) fn kick_drift(&mut self, run: &mut StepRun<R>) {
        // The impulse model's reach includes the step's travel (`neighbours::needs_rebuild`).
        let travel = self.params.model == ContactModel::Impulse;
        let decide = neighbours::Decide::of(&self.list, self.len(), self.params.skin, travel);
        let always = decide.is_none();
        let (vmax, moved) = integrate::kick_drift::<R>(
            &mut self.position,
            &mut self.velocity,
            &self.acceleration,
            &self.inv_mass,
            &self.radius,
            self.params.small_radius_max,
            self.params.dt,
            decide,
            integrate::Periodic {
                pbox: self.params.periodic,
                image: &mut self.image,
            },
        );
        run.vmax = vmax;
        run.rebuild = always || moved;
        if self.params.rotation {
            integrate::kick_drift_rotation::<R>(
                &mut self.spin,
                &mut self.orientation,
                &self.angular_acceleration,
                self.params.dt,
            );
        }
    }

    /// The recipe's `EndOfStep` twin: books the contact stage's sums, applies the impulses'
    /// last round where no pass did, then the accelerations, the second half kick and the check
    /// of x and v in one pass (and the rotation's).
    pub(super) fn end_of_step(&mut self, run: &mut StepRun<R>) {
        let dt = self.params.dt;
        if run.unapplied {
            run.impulse_loss += self.apply_contacts();
            run.unapplied = false;
        }
        self.book(run);
        let contact = soft_contacts(self.params.model, &self.contact);
        let (centre, speed0, accel, distance0) = self.params.guard;
        // The guard's bounds at the end of this step (grid.step on the GPU: steps begun).
        let (speed, distance) =
            guard_bounds::<R>((self.step + 1) as u32, dt, speed0, accel, distance0);
        let mut bad = integrate::end_of_step::<R>(
            &mut self.acceleration,
            &mut self.velocity,
            &self.position,
            &self.radius,
            &self.inv_mass,
            contact,
            &self.a_mutual,
            self.params.gravity,
            self.params.drag,
            dt,
            (centre, speed, distance),
            &self.id,
        );
        if self.params.rotation {
            self.angular_accelerations();
            integrate::kick_rotation::<R>(&mut self.spin, &self.angular_acceleration, dt);
            let spin_bad = self
                .spin
                .par_iter()
                .zip(self.id.par_iter())
                .filter(|(w, _)| !R::comps(**w).iter().all(|c| c.is_finite()))
                .map(|(_, &id)| id)
                .min();
            bad = bad.into_iter().chain(spin_bad).min();
        }
        self.step += 1;
        run.bad = bad;
    }

    /// Books the contact stage's sums of this step into the counters (the end of the step).
    pub(super) fn book(&mut self, run: &StepRun<R>) {
        let sums = run.sums;
        self.contacts = sums.contacts;
        self.spring_energy = sums.energy;
        self.collisions += sums.collisions + run.collisions;
        // The forces of this step's contacts act for one step (the two half kicks); impulses
        // book what their rounds took out of the step.
        self.dissipated += sums.power * self.params.host.dt + run.impulse_loss;
    }
}

/// Stage `collide` of the soft laws from the neighbour list: `collide_pairs` into `pairs` (sized
/// to the list first), or (`sum`) `sum_pairs` into `contact` and the walls' forces; `P` is the
/// record with or without rotation.
#[allow(clippy::too_many_arguments)]
fn soft_pass<R: Real, P: collide::PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    balls: &[Ball<R>],
    list: &mut NeighbourList<R>,
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    pairs: &mut Vec<P>,
    (contact, wall_force): (&mut [ContactOut<R>], &mut [R::V3]),
    sum: bool,
) {
    if !sum {
        neighbours::resize_with_headroom(pairs, list.owned.len(), Default::default());
    }
    let (rows, kept, wall_kept, wall_reach) = list.rows_and_history();
    if sum {
        collide::sum_pairs(
            bodies, spin, &rows, pairs, planes, params, contact, wall_kept, wall_reach, wall_force,
        );
    } else {
        collide::collide_pairs(bodies, spin, balls, &rows, params, pairs, kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::builtin;

    /// Mutual gravity is on when the scene's G > 0 in f64, whatever G rounds to in the backend's
    /// precision, as on the GPU (`StepParams::mutual_gravity`): a G below f32's smallest
    /// subnormal still gets its gravity pass in f32.
    #[test]
    fn a_g_that_rounds_to_zero_in_f32_keeps_its_gravity_pass() {
        let mut s = builtin::build("orbits", Some(20)).unwrap();
        s.sim.g_const = 1e-50;
        assert_eq!(1e-50f64 as f32, 0.0);
        let f32s = CpuBackend::<f32>::new(&s).recipe_config();
        let f64s = CpuBackend::<f64>::new(&s).recipe_config();
        assert!(f64s.gravity);
        assert_eq!(f32s, f64s);
    }
}
