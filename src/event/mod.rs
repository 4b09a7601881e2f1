//! Exact event-driven solver (`--backend event`): the validation reference for small scenes.
//!
//! Between events every sphere moves ballistically, `x(t) = x₀ + v₀ t + ½ a t²`, with `a` the
//! uniform field (zero for fixed spheres). The solver keeps a priority queue of predicted events
//! (sphere–sphere, sphere–plane, sphere–fixed-sphere), always advances to the earliest one,
//! resolves it with the same impulse law as the time-stepped backends
//! ([`collide_velocities`], [`plane_velocity_change`], [`pair_restitution`]; docs/physics.md §1) and
//! predicts again for the spheres it changed (docs/physics.md §5, after the MIT 3.029 π-collisions
//! notes). Planes and fixed spheres are bodies of infinite mass. Everything is `f64`.
//!
//! **Event times.** Two spheres that feel the same field move linearly relative to each other:
//! the contact time is the quadratic root of [`contact_time`]. A sphere meets a plane at the
//! root of its own quadratic, [`plane_contact_time`]. A pair whose accelerations differ (one
//! sphere fixed, or resting on a plane) meets at a root of a quartic,
//! [`contact_time_accelerated`].
//!
//! **Queue.** Each sphere has at most one event of its own in the queue: its earliest. Each
//! sphere carries a counter, incremented whenever its velocity changes; an event remembers the
//! counters of its sphere and partner when it was predicted. Popping an event whose own counter
//! is out of date discards it (a newer prediction exists); one whose *partner* changed since is
//! stale, and its sphere is predicted again at that time. The queue is compacted (entries
//! whose own counter is out of date dropped) when it holds more than four per sphere.
//!
//! **Cost.** Predicting a sphere tests every other sphere and plane, O(N + P); an event costs
//! two predictions and O(log N) queue work, so the solver suits the small scenes it validates
//! (at most [`MAX_SPHERES`]). Set-up predicts every sphere, O(N²).
//!
//! **Inelastic collapse.** A sphere bouncing with e < 1 on a plane that the field presses it
//! onto makes infinitely many bounces in finite time. When a bounce off a plane leaves the
//! sphere a normal speed that would lift it less than [`REST_HEIGHT_FRACTION`] of its radius
//! (`u < sqrt(2 |g·n| h_min)`), the sphere is put in *resting contact*: its normal velocity is
//! set to zero and the field's normal component is cancelled for it (the plane's reaction),
//! until a collision with another body changes its velocity. e = 0 rests at once.
//! Between spheres (dense inelastic clusters, chains of touching spheres) the solver uses the TC
//! model of S. Luding & S. McNamara, "How to handle the inelastic collapse of a dissipative
//! hard-sphere gas with the TC model", Granular Matter 1 (1998) 113: a sphere–sphere collision
//! within [`TC_DURATION`] of an earlier collision of either sphere is elastic (e = 1), as if the
//! contacts overlapped in time, which real contacts of finite duration do. Among the validation
//! cases it acts in `wall-break-momentum` (a lattice of touching spheres with e = 0.5, where
//! impacts run through chains within nanoseconds and collapse without it) and in the elastic π
//! billiard, where it changes nothing.
//! A collapse that remains (a sphere pressed onto another by the field with no time between
//! collisions) stops the run with [`EventError::TooManyEvents`]; so do more than
//! [`MAX_EVENTS_PER_STEP`] events within one step.
//!
//! **Refused scenes.** Mutual gravity (G > 0), Stokes drag and soft contact (spring–dashpot)
//! make the motion between events non-ballistic or the contacts non-instantaneous: such scenes
//! are refused with [`EventError::Unsupported`].

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::cpu::collide::impulse_energy_change;
use crate::physics::impulse::{collide_velocities, pair_restitution, plane_velocity_change};
use crate::physics::toi::{contact_time, contact_time_accelerated, plane_contact_time};
use crate::scene::{ContactModel, Scene};
use crate::setup::PackedScene;
use crate::{Diagnostics, Snapshot};

/// Most spheres the event-driven solver accepts (set-up is O(N²), each event O(N)).
pub const MAX_SPHERES: usize = 20_000;

/// Most events the solver processes within one step of `dt` before it gives up with
/// [`EventError::TooManyEvents`] (an inelastic collapse it cannot resolve). `pi-blocks` with
/// `--digits 8` needs 31 415 926 events in its busiest step.
pub const MAX_EVENTS_PER_STEP: u64 = 100_000_000;

/// Most events in a row at one and the same instant before the solver gives up with
/// [`EventError::TooManyEvents`]: a sphere pressed onto another (or a fixed one) by the field
/// with nothing to separate them re-collides at zero time without end.
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 100_000;

/// A bounce off a plane that would lift a sphere less than this fraction of its radius puts it
/// in resting contact instead (see the module documentation): 1e-9 r, far below anything a
/// measurement resolves and far above rounding of positions near 1 m (1e-16 m).
pub const REST_HEIGHT_FRACTION: f64 = 1e-9;

/// Contact duration of the TC model, s: a sphere–sphere collision less than this after an
/// earlier sphere–sphere collision of either sphere is elastic (Luding & McNamara 1998; see the
/// module documentation). 1 µs: the order of the Hertz contact time of centimetre hard spheres
/// at m/s (docs/physics.md §2.2), and far below every time step the built-in scenes use.
pub const TC_DURATION: f64 = 1e-6;

/// Why the event-driven solver cannot run a scene.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EventError {
    /// The scene needs physics the solver does not model.
    #[error("the event-driven solver cannot run this scene: {0}")]
    Unsupported(String),
    /// More than [`MAX_EVENTS_PER_STEP`] events within one step.
    #[error(
        "event-driven solver: more than {limit} events {what}, at t = {time} s: an inelastic collapse (spheres \
         with e < 1 pressed together by the field) that the event-driven solver does not \
         resolve; use {}",
        crate::naming::Setting::BackendCpu
    )]
    TooManyEvents {
        /// "within one step" or "at one instant".
        what: &'static str,
        /// The limit, [`MAX_EVENTS_PER_STEP`] or [`MAX_EVENTS_AT_ONE_INSTANT`].
        limit: u64,
        /// Simulated time reached, s.
        time: f64,
    },
}

/// What a sphere meets in an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Partner {
    Sphere(u32),
    Plane(u32),
}

/// A predicted event of sphere `i` at time `t`.
#[derive(Clone, Copy, Debug)]
struct Event {
    t: f64,
    i: u32,
    partner: Partner,
    /// Counter of `i` when predicted.
    ci: u64,
    /// Counter of the partner sphere when predicted (0 for planes).
    cj: u64,
}

impl PartialEq for Event {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// By time, then sphere and partner, so that runs are reproducible.
    fn cmp(&self, o: &Self) -> Ordering {
        self.t
            .total_cmp(&o.t)
            .then(self.i.cmp(&o.i))
            .then(self.partner.cmp(&o.partner))
            .then(self.ci.cmp(&o.ci))
    }
}

/// An immovable plane.
#[derive(Clone, Copy, Debug)]
struct PlaneBody {
    point: DVec3,
    normal: DVec3,
    e: f64,
}

/// The exact event-driven solver for one scene (f64 throughout).
///
/// Sphere `i`'s state is kept at its own time `t0[i]`, the time of its last event; positions at
/// any later time follow from ballistic motion.
pub struct EventBackend {
    planes: Vec<PlaneBody>,
    x: Vec<DVec3>,
    v: Vec<DVec3>,
    t0: Vec<f64>,
    radius: Vec<f64>,
    mass: Vec<f64>,
    inv_mass: Vec<f64>,
    restitution: Vec<f64>,
    /// Plane a sphere rests on (inelastic collapse regularised), if any.
    resting: Vec<Option<u32>>,
    /// The body a sphere last collided with: the same pair in uniform relative motion cannot
    /// meet again before one of them meets something else.
    last: Vec<Option<Partner>>,
    counter: Vec<u64>,
    /// Time of each sphere's last sphere–sphere collision, s (TC model).
    last_time: Vec<f64>,
    queue: BinaryHeap<Reverse<Event>>,
    time: f64,
    /// The step's parameters ([`crate::params`]): `dt` and the uniform field.
    params: crate::params::StepParams,
    steps: u64,
    collisions: u64,
    events: u64,
    /// Energy the collisions and resting contacts took out, J (`Diagnostics::dissipated`).
    dissipated: f64,
}

impl EventBackend {
    /// Sets up a checked scene and predicts the first event of every sphere (O(N²)).
    ///
    /// # Errors
    /// [`EventError::Unsupported`] for scenes with mutual gravity (G > 0), Stokes drag
    /// (drag > 0), a contact model other than `impulse`, spherical containers, or more than
    /// [`MAX_SPHERES`] spheres;
    /// the message names the setting and its value.
    pub fn new(scene: &Scene) -> Result<Self, EventError> {
        use crate::naming::Setting;
        let sim = &scene.sim;
        let refuse = |why: String| Err(EventError::Unsupported(why));
        if sim.g_const != 0.0 {
            return refuse(format!(
                "the scene has mutual gravity (G = {:e} m³ kg⁻¹ s⁻²): motion between events is not \
                 ballistic, so the event-driven solver cannot predict contact times; use {}",
                sim.g_const,
                Setting::BackendCpuOrGpu
            ));
        }
        if sim.contact != ContactModel::Impulse {
            return refuse(format!(
                "the scene uses contact = \"{}\": the event-driven solver resolves instantaneous \
                 impulse collisions only (contact = \"impulse\"); use {}",
                sim.contact,
                Setting::BackendCpuOrGpu
            ));
        }
        if let Some(c) = scene.containers.first() {
            return refuse(format!(
                "the scene has {} spherical container(s) (the first of radius {} m): the \
                 event-driven solver predicts contacts with planes only; use {}",
                scene.containers.len(),
                c.radius,
                Setting::BackendCpuOrGpu
            ));
        }
        if sim.drag != 0.0 {
            return refuse(format!(
                "the scene has Stokes drag (drag = {} N·s/m²): motion between events is not \
                 ballistic; use {}",
                sim.drag,
                Setting::BackendCpuOrGpu
            ));
        }
        let n = scene.spheres.len();
        if n > MAX_SPHERES {
            return refuse(format!(
                "the scene has {n} spheres, more than the {MAX_SPHERES} the event-driven solver \
                 takes (each event costs O(N)); use {}",
                Setting::BackendCpuOrGpu
            ));
        }
        let p = PackedScene::new(scene);
        let mut b = Self {
            planes: p.walls[..p.n_planes]
                .iter()
                .map(|w| PlaneBody {
                    point: w.point,
                    normal: w.normal,
                    e: w.restitution,
                })
                .collect(),
            t0: vec![0.0; n],
            resting: vec![None; n],
            last: vec![None; n],
            counter: vec![0; n],
            last_time: vec![f64::NEG_INFINITY; n],
            queue: BinaryHeap::new(),
            time: 0.0,
            params: p.params,
            steps: 0,
            collisions: 0,
            events: 0,
            dissipated: 0.0,
            x: p.position,
            v: p.velocity,
            radius: p.radius,
            mass: p.mass,
            inv_mass: p.inv_mass,
            restitution: p.restitution,
        };
        for i in 0..n {
            b.predict(i);
        }
        Ok(b)
    }

    /// Number of spheres.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// True when there are no spheres.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Steps of `dt` completed.
    pub fn steps_done(&self) -> u64 {
        self.steps
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Collisions resolved so far: sphere–sphere, sphere–fixed-sphere and sphere–plane impacts
    /// with a positive approach speed (settling into resting contact is not counted).
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Events processed so far, including stale predictions re-examined.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Acceleration of sphere `i`, m/s²: the field, without its normal component while resting
    /// on a plane, zero for a fixed sphere.
    fn accel(&self, i: usize) -> DVec3 {
        if self.inv_mass[i] == 0.0 {
            return DVec3::ZERO;
        }
        match self.resting[i] {
            Some(p) => {
                let n = self.planes[p as usize].normal;
                self.params.gravity - self.params.gravity.dot(n) * n
            }
            None => self.params.gravity,
        }
    }

    /// Position and velocity of sphere `i` at time `t ≥ t0[i]`.
    fn state_at(&self, i: usize, t: f64) -> (DVec3, DVec3) {
        let tau = t - self.t0[i];
        let a = self.accel(i);
        (
            self.x[i] + self.v[i] * tau + 0.5 * a * tau * tau,
            self.v[i] + a * tau,
        )
    }

    /// Moves sphere `i`'s stored state to the current time.
    fn advance(&mut self, i: usize) {
        let (x, v) = self.state_at(i, self.time);
        self.x[i] = x;
        self.v[i] = v;
        self.t0[i] = self.time;
    }

    /// Time from now until spheres `i` and `j` first touch, s; `(xi, vi, ai)` is sphere i's
    /// position, velocity and acceleration now.
    fn pair_time(&self, i: usize, (xi, vi, ai): (DVec3, DVec3, DVec3), j: usize) -> Option<f64> {
        let (xj, vj) = self.state_at(j, self.time);
        let da = self.accel(j) - ai;
        let (dx, dv) = (xj - xi, vj - vi);
        let r = self.radius[i] + self.radius[j];
        if da == DVec3::ZERO {
            // Linear relative motion: the quadratic of docs/physics.md §5. Touching or overlapping
            // (rounding at an event) and approaching: now.
            if dx.length_squared() <= r * r {
                return (dx.dot(dv) < 0.0).then_some(0.0);
            }
            contact_time(dx, dv, r)
        } else {
            contact_time_accelerated(dx, dv, da, r)
        }
    }

    /// Time from now until sphere `i` reaches plane `p`, s.
    fn plane_time(&self, i: usize, p: usize) -> Option<f64> {
        let (x, v) = self.state_at(i, self.time);
        let pl = &self.planes[p];
        let s0 = (x - pl.point).dot(pl.normal) - self.radius[i];
        plane_contact_time(s0, v.dot(pl.normal), self.accel(i).dot(pl.normal))
    }

    /// Predicts sphere `i`'s earliest event from now and queues it (fixed spheres have none).
    fn predict(&mut self, i: usize) {
        if self.inv_mass[i] == 0.0 {
            return;
        }
        let mut best: Option<(f64, Partner)> = None;
        let mut consider = |t: Option<f64>, partner: Partner| match (t, best) {
            (Some(t), Some((b, _))) if t >= b => {}
            (Some(t), _) => best = Some((t, partner)),
            (None, _) => {}
        };
        let (xi, vi) = self.state_at(i, self.time);
        let ai = self.accel(i);
        for j in 0..self.len() {
            if j == i {
                continue;
            }
            // The pair that just collided, both untouched since and in uniform relative motion
            // (same acceleration), is separating or sliding: it cannot meet again.
            let just_met = self.last[i] == Some(Partner::Sphere(j as u32))
                && self.last[j] == Some(Partner::Sphere(i as u32))
                && ai == self.accel(j);
            if !just_met {
                consider(
                    self.pair_time(i, (xi, vi, ai), j),
                    Partner::Sphere(j as u32),
                );
            }
        }
        for p in 0..self.planes.len() {
            let pp = Some(p as u32);
            // A resting sphere stays on its plane; a sphere that just left a plane returns only
            // if the field pulls it back.
            let pulls_back = self.accel(i).dot(self.planes[p].normal) < 0.0;
            if self.resting[i] == pp
                || (self.last[i] == Some(Partner::Plane(p as u32)) && !pulls_back)
            {
                continue;
            }
            consider(self.plane_time(i, p), Partner::Plane(p as u32));
        }
        if let Some((dt, partner)) = best {
            let cj = match partner {
                Partner::Sphere(j) => self.counter[j as usize],
                Partner::Plane(_) => 0,
            };
            self.queue.push(Reverse(Event {
                t: self.time + dt,
                i: i as u32,
                partner,
                ci: self.counter[i],
                cj,
            }));
        }
    }

    /// Books as dissipated the energy sphere `i` (advanced to now) loses when its velocity
    /// changes by `dv` and its position by `dx` at this instant, J:
    /// `−m [Δv·(v + ½ Δv) − g·Δx]` ([`impulse_energy_change`] with no time step), that is
    /// `K_before − K_after` plus the field's work on a position correction. Summed over the two
    /// spheres of a collision it is `½ μ (1 − e²) u_n²` (μ the reduced mass, m against a fixed
    /// sphere or a plane). Fixed spheres (infinite mass) never change.
    fn book(&mut self, i: usize, dv: DVec3, dx: DVec3) {
        if self.inv_mass[i] != 0.0 {
            let gain = impulse_energy_change::<f64>(
                self.mass[i],
                self.v[i],
                dv,
                dx,
                self.params.gravity,
                0.0,
            );
            self.dissipated -= gain;
        }
    }

    /// Resolves a collision of spheres `i` and `j` now.
    fn collide_pair(&mut self, i: usize, j: usize) {
        self.advance(i);
        self.advance(j);
        let n = (self.x[j] - self.x[i]).normalize_or_zero();
        // TC model: elastic when either (movable) sphere collided within TC_DURATION.
        let recent =
            |k: usize| self.inv_mass[k] > 0.0 && self.time - self.last_time[k] < TC_DURATION;
        let e = if recent(i) || recent(j) {
            1.0
        } else {
            pair_restitution(self.restitution[i], self.restitution[j])
        };
        let (vi, vj) = collide_velocities::<f64>(
            self.v[i],
            self.v[j],
            n,
            e,
            self.inv_mass[i],
            self.inv_mass[j],
        );
        if vi != self.v[i] || vj != self.v[j] {
            self.collisions += 1;
        }
        self.book(i, vi - self.v[i], DVec3::ZERO);
        self.book(j, vj - self.v[j], DVec3::ZERO);
        self.v[i] = vi;
        self.v[j] = vj;
        for (k, other) in [(i, j), (j, i)] {
            self.last_time[k] = self.time;
            self.resting[k] = None;
            self.last[k] = Some(Partner::Sphere(other as u32));
            self.counter[k] += 1;
        }
        self.predict(i);
        self.predict(j);
    }

    /// Resolves sphere `i` meeting plane `p` now: a bounce, or resting contact (module docs).
    fn collide_plane(&mut self, i: usize, p: usize) {
        self.advance(i);
        let pl = self.planes[p];
        let u = self.v[i].dot(pl.normal);
        let e = pair_restitution(self.restitution[i], pl.e);
        if u < 0.0 {
            self.collisions += 1;
        }
        let dv = plane_velocity_change::<f64>(self.v[i], pl.normal, e);
        self.book(i, dv, DVec3::ZERO);
        self.v[i] += dv;
        // Resting contact when the field presses the sphere on the plane and the bounce is
        // lower than REST_HEIGHT_FRACTION of the radius.
        let g_n = self.params.gravity.dot(pl.normal);
        let u_after = self.v[i].dot(pl.normal);
        let rest_speed = (2.0 * (-g_n).max(0.0) * REST_HEIGHT_FRACTION * self.radius[i]).sqrt();
        self.resting[i] = None;
        if g_n < 0.0 && u_after < rest_speed {
            let s = (self.x[i] - pl.point).dot(pl.normal) - self.radius[i];
            self.book(i, -u_after * pl.normal, -s * pl.normal);
            self.v[i] -= u_after * pl.normal;
            self.x[i] -= s * pl.normal;
            self.resting[i] = Some(p as u32);
        }
        self.last[i] = Some(Partner::Plane(p as u32));
        self.counter[i] += 1;
        self.predict(i);
    }

    /// Processes every event up to time `t_end` (inclusive) and sets the clock to it.
    fn run_until(&mut self, t_end: f64) -> Result<(), EventError> {
        let (mut count, mut same_instant) = (0u64, 0u64);
        while let Some(&Reverse(ev)) = self.queue.peek() {
            if ev.t > t_end {
                break;
            }
            self.queue.pop();
            let i = ev.i as usize;
            if self.counter[i] != ev.ci {
                continue; // superseded by a newer prediction for i
            }
            count += 1;
            same_instant = if ev.t == self.time {
                same_instant + 1
            } else {
                0
            };
            let limit = if count > MAX_EVENTS_PER_STEP {
                Some(("within one step", MAX_EVENTS_PER_STEP))
            } else if same_instant > MAX_EVENTS_AT_ONE_INSTANT {
                Some(("at one instant", MAX_EVENTS_AT_ONE_INSTANT))
            } else {
                None
            };
            if let Some((what, limit)) = limit {
                return Err(EventError::TooManyEvents {
                    what,
                    limit,
                    time: self.time,
                });
            }
            self.events += 1;
            self.time = self.time.max(ev.t);
            match ev.partner {
                Partner::Sphere(j) if self.counter[j as usize] != ev.cj => self.predict(i),
                Partner::Sphere(j) => self.collide_pair(i, j as usize),
                Partner::Plane(p) => self.collide_plane(i, p as usize),
            }
            // Compact: keep one entry per sphere (its latest prediction).
            if self.queue.len() > 4 * self.len() + 64 {
                let counter = &self.counter;
                self.queue
                    .retain(|Reverse(e)| counter[e.i as usize] == e.ci);
            }
        }
        self.time = self.time.max(t_end);
        Ok(())
    }

    /// Advances one step of `dt`: processes every event in it. On a non-finite state returns
    /// the lowest such sphere id as `Ok(Some(id))`.
    ///
    /// # Errors
    /// [`EventError::TooManyEvents`] on an inelastic collapse the solver does not resolve.
    pub fn step(&mut self) -> Result<Option<u32>, EventError> {
        // Step ends at k dt exactly (no accumulated rounding of the clock).
        self.run_until((self.steps + 1) as f64 * self.params.dt)?;
        self.steps += 1;
        Ok((0..self.len())
            .find(|&i| !(self.x[i].is_finite() && self.v[i].is_finite()))
            .map(|i| i as u32))
    }

    /// Diagnostics of the state now (fixed spheres left out of energies and momenta; `contacts`
    /// counts spheres in resting contact with a plane).
    pub fn diagnostics(&self) -> Diagnostics {
        let mut d = Diagnostics {
            step: self.steps,
            time: self.time,
            collisions: self.collisions,
            dissipated: self.dissipated,
            contacts: self.resting.iter().filter(|r| r.is_some()).count() as u64,
            ..Diagnostics::default()
        };
        for i in 0..self.len() {
            if self.inv_mass[i] == 0.0 {
                continue;
            }
            let (x, v) = self.state_at(i, self.time);
            let m = self.mass[i];
            d.kinetic += 0.5 * m * v.length_squared();
            d.potential_uniform -= m * self.params.gravity.dot(x);
            d.momentum += m * v;
            d.momentum_magnitude_sum += m * v.length();
            d.angular_momentum += m * x.cross(v);
        }
        d
    }

    /// The state now, in input order.
    pub fn snapshot(&self) -> Snapshot {
        let mut snap = Snapshot::default();
        self.snapshot_into(&mut snap);
        snap
    }

    /// [`EventBackend::snapshot`] written into `snap`, reusing its allocations.
    pub fn snapshot_into(&self, snap: &mut Snapshot) {
        snap.reset(self.steps, self.time, &self.radius, &self.mass, false);
        for i in 0..self.len() {
            (snap.position[i], snap.velocity[i]) = self.state_at(i, self.time);
        }
    }
}

/// The event-driven solver behind [`Simulation`](crate::Simulation): no grid, no stages, no
/// checkpoints.
impl crate::engine::Engine for EventBackend {
    fn step(&mut self, n: u64) -> Result<(), crate::engine::Halt> {
        for _ in 0..n {
            match EventBackend::step(self) {
                Ok(None) => {}
                Ok(Some(sphere)) => {
                    return Err(crate::engine::Halt::Guard {
                        step: self.steps,
                        sphere,
                    });
                }
                Err(e) => return Err(crate::engine::Halt::Failed(e.into())),
            }
        }
        Ok(())
    }

    fn steps_done(&self) -> u64 {
        EventBackend::steps_done(self)
    }

    fn diagnostics(&self) -> Diagnostics {
        EventBackend::diagnostics(self)
    }

    fn snapshot(&self) -> Snapshot {
        EventBackend::snapshot(self)
    }

    fn snapshot_into(&self, out: &mut Snapshot) {
        EventBackend::snapshot_into(self, out)
    }

    fn precision(&self) -> crate::Precision {
        crate::Precision::F64
    }

    fn adapter(&self) -> String {
        "CPU (1 thread, exact events, f64)".to_string()
    }

    fn save_state(&self) -> Result<crate::checkpoint::EngineState, crate::SimError> {
        Err(crate::SimError::Unavailable {
            backend: crate::Backend::Event,
            reason: format!(
                "the event-driven solver writes no checkpoints; use {} for a run with {}",
                crate::naming::Setting::BackendCpu,
                crate::naming::Setting::Checkpoint
            ),
        })
    }

    fn restore_state(&mut self, _state: &crate::checkpoint::EngineState) -> Result<(), String> {
        Err(format!(
            "the event-driven solver restores no checkpoints; use {}",
            crate::naming::Setting::BackendCpu
        ))
    }

    fn stage_seconds(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn set_profiling(&mut self, _on: bool) -> bool {
        // No stages to time.
        false
    }

    fn binning_state(&self) -> crate::setup::BinningState {
        // No grid: the solver tests every pair.
        crate::setup::BinningState {
            keys: Vec::new(),
            counts: Vec::new(),
            cell_start: Vec::new(),
            ids: Vec::new(),
        }
    }

    fn list_rows(&self) -> crate::setup::ListRows {
        crate::setup::ListRows::default()
    }

    fn walk_counts(&self) -> Option<crate::cpu::tree::WalkCounts> {
        None
    }

    fn step_params(&self) -> &crate::params::StepParams {
        &self.params
    }
}
