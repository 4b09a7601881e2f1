//! A test hook: a step of the CPU backend in which one stage of the recipe runs on another
//! backend (the GPU), and the rest on the CPU (docs/architecture.md, "Swapping a stage").
//!
//! What crosses is chosen from the recipe ([`exchange`]): the resources the stage's passes read
//! and that no earlier pass of the stage writes go over, and what they write comes back, except
//! what only the stage itself reads again (the pair records). Each resource is converted here,
//! in one place, between the CPU's arrays and the GPU's buffer layout, keyed by its WGSL name
//! (`CpuBackend::export`, `CpuBackend::import`); a name without a conversion is an error
//! that names it. Only the f32 CPU backend swaps: the GPU computes in f32.

use super::*;
use crate::scene::RollingModel;
use bytemuck::{cast_slice, pod_collect_to_vec};
use glam::Vec3;

/// A stage of the step as the shaders name it: the unit a test swaps between the backends.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `integrate::kick_drift`.
    KickDrift,
    /// `cell_keys..gather`.
    Binning,
    /// `neighbours::build`.
    BuildList,
    /// Every `collide::*` pass of the step, as one block (soft laws or impulses).
    Contacts,
    /// `integrate::apply_contacts` (impulses under mutual gravity: the last round applied
    /// before the gravity pass reads the positions).
    ApplyContacts,
    /// `gravity`.
    Gravity,
    /// `integrate::end_of_step`.
    EndOfStep,
}

impl Stage {
    /// Every stage, in the step's order.
    pub const ALL: [Stage; 7] = [
        Stage::KickDrift,
        Stage::Binning,
        Stage::BuildList,
        Stage::Contacts,
        Stage::ApplyContacts,
        Stage::Gravity,
        Stage::EndOfStep,
    ];

    /// The stage a pass belongs to; `None` for set-up's passes, which run before a step.
    pub fn of(kind: Kind) -> Option<Stage> {
        Some(match kind {
            Kind::KickDrift => Stage::KickDrift,
            Kind::Binning => Stage::Binning,
            Kind::BuildList => Stage::BuildList,
            Kind::ImpulsePairs(_)
            | Kind::EarliestEvents { .. }
            | Kind::SumImpulses
            | Kind::CollidePairs
            | Kind::SumPairs => Stage::Contacts,
            Kind::ApplyContacts => Stage::ApplyContacts,
            Kind::Gravity => Stage::Gravity,
            Kind::EndOfStep => Stage::EndOfStep,
            Kind::MeasureSpeed | Kind::Accelerations => return None,
        })
    }

    /// The stage's name, as its passes are labelled.
    pub fn name(self) -> &'static str {
        match self {
            Stage::KickDrift => "integrate::kick_drift",
            Stage::Binning => "cell_keys..gather",
            Stage::BuildList => "neighbours::build",
            Stage::Contacts => "collide",
            Stage::ApplyContacts => "integrate::apply_contacts",
            Stage::Gravity => "gravity",
            Stage::EndOfStep => "integrate::end_of_step",
        }
    }
}

/// The backend that runs a swapped stage: its resources by WGSL name, in the GPU's layout.
#[doc(hidden)]
pub trait StageHost {
    /// Writes `bytes` at the start of resource `name`.
    ///
    /// # Errors
    /// A message naming the resource when the host has none of that name or it is too small.
    fn upload(&mut self, name: &str, bytes: &[u8]) -> Result<(), String>;
    /// Runs `passes` (one stage of a step that is not set-up's) and waits for them.
    ///
    /// # Errors
    /// A message when the host cannot run them.
    fn run(&mut self, passes: &[Pass]) -> Result<(), String>;
    /// Reads resource `name` back, whole.
    ///
    /// # Errors
    /// A message naming the resource when the host has none of that name.
    fn download(&self, name: &str) -> Result<Vec<u8>, String>;
}

/// What crosses when `stage` of `recipe` is swapped: the resources to send (read by the
/// stage's passes, not written by an earlier pass of the stage) and to bring back (written by
/// them, unless only passes of the stage read them and it is not [`CARRIED`](crate::recipe::CARRIED)), by WGSL name, `ids` first (it reorders the
/// CPU's per-sphere arrays, which the other imports then overwrite).
#[doc(hidden)]
pub fn exchange(recipe: &[Pass], stage: Stage) -> (Vec<&'static str>, Vec<&'static str>) {
    let inside = |p: &Pass| Stage::of(p.kind) == Some(stage);
    let (mut send, mut back): (Vec<&'static str>, Vec<&'static str>) = (vec![], vec![]);
    let mut written: Vec<&str> = vec![];
    for p in recipe.iter().filter(|p| inside(p)) {
        for &r in p.reads {
            if !written.contains(&r) && !send.contains(&r) {
                send.push(r);
            }
        }
        written.extend(p.writes);
    }
    for &w in &written {
        let readers: Vec<&Pass> = recipe.iter().filter(|p| p.reads.contains(&w)).collect();
        // State only this stage reads, in a later step (the periodic images), comes back too.
        let internal = !readers.is_empty()
            && readers.iter().all(|p| inside(p))
            && !crate::recipe::CARRIED.contains(&w);
        if !internal && !back.contains(&w) {
            back.push(w);
        }
    }
    back.sort_by_key(|&w| w != "ids");
    (send, back)
}

fn v4(v: Vec3, w: f32) -> [f32; 4] {
    [v.x, v.y, v.z, w]
}

fn xyz(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// `bytes` as values of `T`, checked to hold at least `n` of them.
fn values<T: bytemuck::Pod>(name: &str, bytes: &[u8], n: usize) -> Result<Vec<T>, String> {
    let v: Vec<T> = pod_collect_to_vec(bytes);
    if v.len() < n {
        return Err(format!(
            "resource `{name}` came back with {} values, {n} expected",
            v.len()
        ));
    }
    Ok(v)
}

impl CpuBackend<f32> {
    /// Advances one step in which `stage` runs on `host` and every other pass on the CPU: the
    /// CPU's passes before it, then the stage's inputs sent, its passes run on the host, its
    /// outputs brought back, and the CPU's passes after it.
    ///
    /// # Errors
    /// A message naming a resource without a conversion, or the host's; a non-finite state, as
    /// the id of its sphere. The state is then partly stepped.
    /// The stages of this scene's step ([`Stage::ALL`] less those without a pass in it).
    #[doc(hidden)]
    pub fn swappable(&self) -> Vec<Stage> {
        Stage::ALL
            .into_iter()
            .filter(|&s| self.recipe.iter().any(|p| Stage::of(p.kind) == Some(s)))
            .collect()
    }

    #[doc(hidden)]
    pub fn step_swapping(&mut self, stage: Stage, host: &mut dyn StageHost) -> Result<(), String> {
        let recipe = std::mem::take(&mut self.recipe);
        let out = self.swap_in(&recipe, stage, host);
        self.recipe = recipe;
        out
    }

    fn swap_in(
        &mut self,
        recipe: &[Pass],
        stage: Stage,
        host: &mut dyn StageHost,
    ) -> Result<(), String> {
        if !recipe.iter().any(|p| Stage::of(p.kind) == Some(stage)) {
            return Err(format!(
                "stage {} has no pass in this scene's step",
                stage.name()
            ));
        }
        let (send, back) = exchange(recipe, stage);
        let mut run = StepRun::new(false);
        let mut k = 0;
        while k < recipe.len() {
            if Stage::of(recipe[k].kind) != Some(stage) {
                self.run_pass(&recipe[k], &mut run);
                k += 1;
                continue;
            }
            let end = k + recipe[k..]
                .iter()
                .take_while(|p| Stage::of(p.kind) == Some(stage))
                .count();
            for &name in &send {
                if let Some(bytes) = self.export(name, stage, &run, &*host)? {
                    host.upload(name, &bytes)?;
                }
            }
            host.run(&recipe[k..end])?;
            for &name in &back {
                let bytes = host.download(name)?;
                self.import(name, &bytes, stage, &mut run)?;
            }
            self.after_swap(stage, &mut run);
            k = end;
        }
        match run.bad {
            Some(id) => Err(format!("sphere {id} is not finite")),
            None => Ok(()),
        }
    }

    /// What the CPU's own passes would have left besides the resources: the contact sums,
    /// refreshed bodies, the step's count and bookkeeping.
    fn after_swap(&mut self, stage: Stage, run: &mut StepRun<f32>) {
        match stage {
            Stage::Binning => self.bodies_stale = true,
            Stage::Contacts => {
                run.sums = self.sum_contacts();
                if self.params.model == ContactModel::Impulse {
                    run.unapplied = true;
                    self.load_bodies();
                }
            }
            // As the CPU's pass: the last round is applied (its loss came back as
            // `dissipated`), so the end of the step does not apply it again.
            Stage::ApplyContacts => run.unapplied = false,
            Stage::EndOfStep => {
                // The host applied the impulses' last round: its loss came back as `dissipated`.
                run.unapplied = false;
                self.book(run);
                self.step += 1;
            }
            // As the CPU's `BuildList`: the contact passes' parameters and bodies.
            Stage::BuildList => {
                run.collide = Some(self.collide_params(run.vmax));
                self.load_bodies();
                self.list.rebuilds += u64::from(run.rebuild && !run.init);
            }
            Stage::KickDrift | Stage::Gravity => {}
        }
    }

    /// Resource `name` in the GPU's layout (`src/gpu/state.rs`, `src/gpu/neighbours.rs`,
    /// `shaders/common.wgsl`), from the CPU's arrays; `None` for a resource both sides hold
    /// unchanged since set-up (the walls), or that the stage writes before it reads it. `host`
    /// gives the GPU's own dispatch sizes (`full_dims`).
    ///
    /// # Errors
    /// A message naming a resource without a conversion, or the host's.
    pub(super) fn export(
        &self,
        name: &str,
        stage: Stage,
        run: &StepRun<f32>,
        host: &dyn StageHost,
    ) -> Result<Option<Vec<u8>>, String> {
        let n = self.len();
        let bytes = |v: Vec<[f32; 4]>| Some(cast_slice(&v).to_vec());
        let rotation = self.params.rotation;
        let list = &self.list;
        let history = |kept: &[collide::ContactHistory<f32>]| {
            let epsd = self.params.rolling_model == RollingModel::Epsd;
            let v: Vec<[f32; 4]> = if self.params.history && !kept.is_empty() {
                kept.iter()
                    .flat_map(|k| {
                        let more = epsd.then_some(v4(k.rolling, 0.0));
                        std::iter::once(v4(k.xi, k.impact)).chain(more)
                    })
                    .collect()
            } else {
                vec![[0.0; 4]]
            };
            bytes(v)
        };
        Ok(match name {
            "pos" => bytes(
                (0..n)
                    .map(|i| v4(self.position[i], self.radius[i]))
                    .collect(),
            ),
            "vel" => bytes(
                (0..n)
                    .map(|i| v4(self.velocity[i], self.inv_mass[i]))
                    .collect(),
            ),
            // The shaders read mass 0 as infinite (`StateSet::upload`).
            "acc" => bytes(
                (0..n)
                    .map(|i| {
                        let m = self.mass[i];
                        v4(self.acceleration[i], if m.is_finite() { m } else { 0.0 })
                    })
                    .collect(),
            ),
            "props" => bytes(
                (0..n)
                    .map(|i| {
                        [
                            self.restitution[i],
                            self.zeta[i],
                            self.compliance[i],
                            self.mu[i],
                        ]
                    })
                    .collect(),
            ),
            "ids" => Some(cast_slice(&self.id).to_vec()),
            "rot" if rotation => bytes(
                (0..n)
                    .flat_map(|i| {
                        let mu_r = self.rolling_friction.get(i).copied().unwrap_or(0.0);
                        [
                            v4(self.spin[i], self.inv_inertia[i]),
                            self.orientation[i],
                            v4(self.angular_acceleration[i], mu_r),
                        ]
                    })
                    .collect(),
            ),
            "rot" | "torque" if !rotation => bytes(vec![[0.0; 4]]),

            // `Grid` (common.wgsl): the speed² bits kick_drift leaves for the binning, the
            // cell edge, the speed, and the steps begun.
            "grid" => {
                let drifted = stage != Stage::KickDrift;
                let speed2 = if drifted {
                    let small = self.params.small_radius_max;
                    (0..n)
                        .filter(|&i| self.radius[i] <= small && self.inv_mass[i] != 0.0)
                        .map(|i| f32::norm2(self.velocity[i]))
                        .fold(0.0f32, f32::max)
                } else {
                    0.0
                };
                let h = self.cell_edge;
                let words: [u32; 8] = [
                    speed2.to_bits(),
                    h.to_bits(),
                    (1.0 / h).to_bits(),
                    run.vmax.to_bits(),
                    (self.step + drifted as u64) as u32,
                    0,
                    0,
                    0,
                ];
                Some(cast_slice(&words).to_vec())
            }
            "rebuild" => Some(cast_slice(&[run.rebuild as u32, 0, 0, 0]).to_vec()),
            // `Status` (common.wgsl) with nothing counted: no bad step, zero counters.
            "status" => Some(cast_slice(&[u32::MAX, 0, 0, 0, 0, 0, 0, 0]).to_vec()),
            // The CPU keeps no per-sphere tally: the stage's own comes back.
            "dissipated" => Some(vec![0; 4 * n]),
            // By input id, 3 × i32 each (a 16-byte stand-in without periodic axes).
            "image" if self.image.is_empty() => Some(vec![0; 16]),
            "image" => {
                let mut by_id = vec![[0i32; 3]; n];
                for (i, &image) in self.image.iter().enumerate() {
                    by_id[self.id[i] as usize] = image;
                }
                Some(cast_slice(&by_id).to_vec())
            }
            "contact" => {
                let impulse = self.params.model == ContactModel::Impulse;
                let v = (0..n)
                    .map(|i| {
                        let c = self.contact.get(i).copied().unwrap_or_default();
                        v4(if impulse { c.dv } else { c.force }, c.energy)
                    })
                    .collect();
                bytes(v)
            }
            "contact_dx" => bytes(
                (0..n)
                    .map(|i| {
                        let c = self.contact.get(i).copied().unwrap_or_default();
                        v4(c.dx, c.power)
                    })
                    .collect(),
            ),
            "contact_counts" => {
                let c = |i: usize| self.contact.get(i).copied().unwrap_or_default();
                let v: Vec<[u32; 4]> = (0..n)
                    .map(|i| [c(i).contacts, c(i).collisions, 0, 0])
                    .collect();
                Some(cast_slice(&v).to_vec())
            }
            "torque" => bytes(
                (0..n)
                    .map(|i| v4(self.contact.get(i).map_or(Vec3::ZERO, |c| c.torque), 0.0))
                    .collect(),
            ),
            "a_mutual" => bytes(
                (0..n)
                    .map(|i| v4(self.a_mutual.get(i).copied().unwrap_or(Vec3::ZERO), 0.0))
                    .collect(),
            ),
            "cell_start" => Some(cast_slice(&self.cell_start).to_vec()),
            "perm" => Some(cast_slice(&self.perm).to_vec()),
            "cells" => {
                let v: Vec<[i32; 4]> = self.cells.iter().map(|c| [c[0], c[1], c[2], 0]).collect();
                Some(cast_slice(&v).to_vec())
            }
            // Two cells (low, high corners) a large sphere; none without large spheres.
            "boxes" => {
                let v: Vec<[i32; 4]> = self
                    .boxes
                    .iter()
                    .flat_map(|(lo, hi)| [[lo[0], lo[1], lo[2], 0], [hi[0], hi[1], hi[2], 0]])
                    .collect();
                (!v.is_empty()).then(|| cast_slice(&v).to_vec())
            }
            // The gated dispatches' indirect arguments, as `neighbours::gate_dispatches` leaves
            // them from the CPU's decision: the host's full work-group counts in a step that
            // rebuilds, none in one that does not.
            "gated_dims" => {
                let full = host.download("full_dims")?;
                Some(if run.rebuild {
                    full
                } else {
                    vec![0; full.len()]
                })
            }
            "x_build" => bytes(
                (0..list.x_build.len())
                    .map(|i| v4(list.x_build[i], self.radius[i]))
                    .collect(),
            ),
            "sweep" => Some(cast_slice(&list.sweep).to_vec()),
            "list_start" => Some(cast_slice(&list.start).to_vec()),
            "partner" => Some(cast_slice(&list.partner).to_vec()),
            "link" => Some(cast_slice(&list.link).to_vec()),
            "row_of" => {
                let rows: Vec<u32> = (0..list.start.len().saturating_sub(1))
                    .flat_map(|i| (list.start[i]..list.start[i + 1]).map(move |_| i as u32))
                    .collect();
                Some(cast_slice(&rows).to_vec())
            }
            "partner_id" if self.params.history => Some(cast_slice(&list.partner_id).to_vec()),
            "partner_id" => Some(vec![0; 4]),
            "xi" => history(&list.kept),
            "wall_xi" => history(&list.wall_kept),
            // Uploaded at set-up and never changed by a step, on either backend.
            "planes" => None,
            // Read by the pending and final variants of the pairs' entry point only, after
            // earlier passes of the stage wrote them in this step: nothing to send (the binary
            // pairs, which open the stage, bind them unread).
            "earliest" | "pair_more" if stage == Stage::Contacts => None,
            other => {
                return Err(format!(
                    "stage {}: resource `{other}` has no conversion from the CPU's arrays \
                     (src/cpu/swap.rs)",
                    stage.name()
                ));
            }
        })
    }

    /// Resource `name` in the GPU's layout, as [`CpuBackend::export`] writes it, into the CPU's
    /// arrays and `run`.
    ///
    /// # Errors
    /// A message naming a resource without a conversion, or one that came back too short.
    pub(super) fn import(
        &mut self,
        name: &str,
        bytes: &[u8],
        stage: Stage,
        run: &mut StepRun<f32>,
    ) -> Result<(), String> {
        let n = self.len();
        let vec4s = |count: usize| values::<[f32; 4]>(name, bytes, count);
        let words = |count: usize| values::<u32>(name, bytes, count);
        let impulse = self.params.model == ContactModel::Impulse;
        match name {
            // The host's sorted order: every per-sphere array follows (as `restore_state`).
            "ids" => {
                let ids = words(n)?;
                let mut slot = vec![0u32; n];
                for (i, &id) in self.id.iter().enumerate() {
                    slot[id as usize] = i as u32;
                }
                let order: Vec<u32> = ids[..n].iter().map(|&id| slot[id as usize]).collect();
                fn reorder<T: Copy>(v: &mut Vec<T>, order: &[u32]) {
                    if !v.is_empty() {
                        *v = order.iter().map(|&i| v[i as usize]).collect();
                    }
                }
                let o = &order;
                reorder(&mut self.radius, o);
                reorder(&mut self.mass, o);
                reorder(&mut self.inv_mass, o);
                reorder(&mut self.restitution, o);
                reorder(&mut self.zeta, o);
                reorder(&mut self.compliance, o);
                reorder(&mut self.mu, o);
                reorder(&mut self.inv_inertia, o);
                reorder(&mut self.rolling_friction, o);
                reorder(&mut self.spin, o);
                reorder(&mut self.orientation, o);
                reorder(&mut self.angular_acceleration, o);
                reorder(&mut self.position, o);
                reorder(&mut self.velocity, o);
                reorder(&mut self.acceleration, o);
                reorder(&mut self.image, o);
                self.id.copy_from_slice(&ids[..n]);
                self.bodies_stale = true;
            }
            "pos" => {
                let v = vec4s(n)?;
                (0..n).for_each(|i| self.position[i] = xyz(v[i]));
            }
            "vel" => {
                let v = vec4s(n)?;
                (0..n).for_each(|i| self.velocity[i] = xyz(v[i]));
            }
            "acc" => {
                let v = vec4s(n)?;
                (0..n).for_each(|i| self.acceleration[i] = xyz(v[i]));
            }
            "props" => {
                let v = vec4s(n)?;
                for (i, p) in v.iter().take(n).enumerate() {
                    self.restitution[i] = p[0];
                    self.zeta[i] = p[1];
                    self.compliance[i] = p[2];
                    self.mu[i] = p[3];
                }
            }
            "rot" if self.params.rotation => {
                let v = vec4s(3 * n)?;
                for i in 0..n {
                    self.spin[i] = xyz(v[3 * i]);
                    self.inv_inertia[i] = v[3 * i][3];
                    self.orientation[i] = v[3 * i + 1];
                    self.angular_acceleration[i] = xyz(v[3 * i + 2]);
                }
            }
            "rot" => {}
            "grid" => {
                let g = words(8)?;
                match stage {
                    // The largest small-sphere speed² the drift recorded (bits).
                    Stage::KickDrift => run.vmax = f32::from_bits(g[0]).sqrt(),
                    Stage::Binning if run.rebuild => self.cell_edge = f32::from_bits(g[1]),
                    _ => {}
                }
            }
            "rebuild" => {
                let flag = words(1)?[0];
                let travel = impulse;
                let decide = neighbours::Decide::of(&self.list, n, self.params.skin, travel);
                run.rebuild = flag != 0 || decide.is_none();
            }
            "status" => {
                let s = words(8)?;
                if s[0] != u32::MAX {
                    run.bad = Some(s[1]);
                }
                // The matching rounds' collisions, tallied as they are applied; the last
                // round's are booked from the contact counts, as on the CPU.
                if stage == Stage::Contacts {
                    run.collisions += s[2] as u64;
                }
            }
            "image" if self.image.is_empty() => {}
            "image" => {
                let by_id = values::<[i32; 3]>(name, bytes, n)?;
                for (i, image) in self.image.iter_mut().enumerate() {
                    *image = by_id[self.id[i] as usize];
                }
            }
            "dissipated" => {
                // The impulse rounds' losses the host applied (the soft laws' power is booked
                // from the contact sums, as on the CPU).
                if impulse {
                    let d = values::<f32>(name, bytes, n)?;
                    run.impulse_loss += d.iter().map(|&x| x as f64).sum::<f64>();
                }
            }
            "contact" => {
                let v = vec4s(n)?;
                self.contact.resize(n, Default::default());
                for (c, a) in self.contact.iter_mut().zip(&v) {
                    if impulse {
                        c.dv = xyz(*a);
                        c.force = Vec3::ZERO;
                    } else {
                        c.force = xyz(*a);
                        c.dv = Vec3::ZERO;
                    }
                    c.energy = a[3];
                }
            }
            "contact_dx" => {
                let v = vec4s(n)?;
                self.contact.resize(n, Default::default());
                for (c, b) in self.contact.iter_mut().zip(&v) {
                    c.dx = xyz(*b);
                    c.power = b[3];
                }
            }
            "contact_counts" => {
                let v = values::<[u32; 4]>(name, bytes, n)?;
                self.contact.resize(n, Default::default());
                for (c, k) in self.contact.iter_mut().zip(&v) {
                    c.contacts = k[0];
                    c.collisions = k[1];
                }
            }
            "torque" if self.params.rotation => {
                let v = vec4s(n)?;
                self.contact.resize(n, Default::default());
                for (c, t) in self.contact.iter_mut().zip(&v) {
                    c.torque = xyz(*t);
                }
            }
            "torque" => {}
            "a_mutual" => {
                let v = vec4s(n)?;
                self.a_mutual.clear();
                self.a_mutual.extend(v[..n].iter().map(|&a| xyz(a)));
            }
            "cell_start" | "keys" | "perm" | "cells" | "boxes" | "list_start" | "partner"
            | "link" | "row_of" | "x_build" | "sweep" | "partner_id" | "xi" | "wall_xi"
                if !run.rebuild && matches!(stage, Stage::Binning | Stage::BuildList) =>
            {
                // Written only in a step that rebuilds: what the host holds is stale.
            }
            // The CPU's gate is `run.rebuild`, which came back as `rebuild`; the tail's
            // dispatches are the CPU's own.
            "gated_dims" | "running_dims" => {}
            "cell_start" => {
                let t = self.cell_start.len();
                let v = words(t)?;
                self.cell_start.copy_from_slice(&v[..t]);
                // The host empties its counts after the scan (`GpuBackend::binning_state`).
                self.counts.resize(t, 0);
                for k in 0..t {
                    let next = v.get(k + 1).copied().filter(|_| k + 1 < t);
                    self.counts[k] = next.unwrap_or(n as u32) - v[k];
                }
            }
            "keys" => {
                let v = words(n)?;
                self.keys.clear();
                self.keys.extend_from_slice(&v[..n]);
            }
            "perm" => {
                let v = words(n)?;
                self.perm.clear();
                self.perm.extend_from_slice(&v[..n]);
            }
            "cells" => {
                let v = values::<[i32; 4]>(name, bytes, n)?;
                self.cells.clear();
                self.cells.extend(v[..n].iter().map(|c| [c[0], c[1], c[2]]));
            }
            "list_start" => {
                let v = words(n + 1)?;
                self.list.start.clear();
                self.list.start.extend_from_slice(&v[..n + 1]);
            }
            // After `list_start`, which counts the entries.
            "partner" | "link" | "partner_id" => {
                let total = self.list.start.last().copied().unwrap_or(0) as usize;
                let v = words(total)?;
                let to = match name {
                    "partner" => &mut self.list.partner,
                    "link" => &mut self.list.link,
                    _ if self.params.history => &mut self.list.partner_id,
                    _ => return Ok(()),
                };
                to.clear();
                to.extend_from_slice(&v[..total]);
                if name == "link" {
                    self.list.index_pairs();
                }
            }
            // The CPU reads each entry's row from `list_start`.
            "row_of" => {}
            "x_build" => {
                let v = vec4s(n)?;
                // A replaced build: every wall counts as in reach until the next one.
                self.list.wall_reach.clear();
                self.list.x_build.clear();
                self.list.x_build.extend(v[..n].iter().map(|&x| xyz(x)));
            }
            "sweep" => {
                let v = values::<f32>(name, bytes, n)?;
                self.list.sweep.clear();
                self.list.sweep.extend_from_slice(&v[..n]);
            }
            "xi" | "wall_xi" if self.params.history => {
                let epsd = self.params.rolling_model == RollingModel::Epsd;
                let stride = 1 + epsd as usize;
                // A build changes the entries (after `list_start`) and sizes the walls' rows.
                let (entries, walls) = (self.list.partner.len(), n * self.planes.len());
                let kept = if name == "xi" {
                    &mut self.list.kept
                } else {
                    &mut self.list.wall_kept
                };
                kept.resize(
                    if name == "xi" { entries } else { walls },
                    Default::default(),
                );
                let v = values::<[f32; 4]>(name, bytes, stride * kept.len())?;
                for (e, k) in kept.iter_mut().enumerate() {
                    let a = v[stride * e];
                    k.xi = xyz(a);
                    k.impact = a[3];
                    if epsd {
                        k.rolling = xyz(v[stride * e + 1]);
                    }
                }
            }
            "xi" | "wall_xi" => {}
            // The soft laws' walls' forces, which the GPU keeps in its `earliest` buffer
            // (`SharedBuffers::earliest`); the impulse model's events stay the stage's own.
            "earliest" if !impulse && !self.wall_force.is_empty() => {
                let v = vec4s(self.wall_force.len())?;
                for (f, a) in self.wall_force.iter_mut().zip(&v) {
                    *f = xyz(*a);
                }
            }
            "earliest" => {}
            "boxes" => {
                let large = n - self.n_small as usize;
                let v = values::<[i32; 4]>(name, bytes, 2 * large)?;
                self.boxes.clear();
                self.boxes.extend((0..large).map(|k| {
                    let (lo, hi) = (v[2 * k], v[2 * k + 1]);
                    ([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]])
                }));
            }
            other => {
                return Err(format!(
                    "stage {}: resource `{other}` has no conversion into the CPU's arrays \
                     (src/cpu/swap.rs)",
                    stage.name()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host that holds nothing.
    struct Empty;

    impl StageHost for Empty {
        fn upload(&mut self, name: &str, _: &[u8]) -> Result<(), String> {
            Err(format!("no `{name}`"))
        }
        fn run(&mut self, _: &[Pass]) -> Result<(), String> {
            Ok(())
        }
        fn download(&self, name: &str) -> Result<Vec<u8>, String> {
            Err(format!("no `{name}`"))
        }
    }

    #[test]
    fn a_resource_without_a_conversion_is_named_with_the_stage() {
        let scene = crate::scene::builtin::build("box-gas", Some(20)).expect("scene");
        let mut cpu = CpuBackend::<f32>::new(&scene);
        let run = StepRun::new(false);
        let e = cpu
            .export("velocities", Stage::Binning, &run, &Empty)
            .expect_err("no conversion");
        assert!(e.contains("`velocities`"), "{e}");
        assert!(e.contains("cell_keys..gather"), "{e}");
        let mut run = StepRun::new(false);
        let e = cpu
            .import("pair_out", &[0; 64], Stage::Contacts, &mut run)
            .expect_err("no conversion");
        assert!(e.contains("`pair_out`") && e.contains("collide"), "{e}");
        // Every resource the recipe sends or brings back for a stage has one (an empty
        // import is refused for its size, not its name).
        let mut run = StepRun::new(false);
        for stage in Stage::ALL {
            let (send, back) = exchange(&cpu.recipe, stage);
            for name in send {
                if name != "gated_dims" {
                    cpu.export(name, stage, &run, &Empty)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
            for name in back {
                if let Err(e) = cpu.import(name, &[], stage, &mut run) {
                    assert!(!e.contains("no conversion"), "{e}");
                }
            }
        }
    }
}
