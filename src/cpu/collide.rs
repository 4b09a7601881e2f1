//! Stage `collide`: narrow phase over the 27 neighbour cells, the large-sphere list and the planes.
//! Twin of `shaders/collide.wgsl`.
//!
//! Every sphere visits its candidates and handles each pair *symmetrically*: both sides compute
//! the same impulse (or force) from the same data, with the lower sphere id always playing `a`,
//! so the two results are bitwise equal and opposite. Momentum balances without float atomics,
//! and the result does not depend on which thread ran first.
//!
//! Impulse model (PHYSICS.md §1): a pair collides when its linear relative path within the step
//! reaches contact while approaching (Nikulin's two inequalities, [`contact_fraction`]); the
//! impulse acts at the contact instant τ, and the rest of the step `(1 − τ) dt` is travelled
//! with the new velocity. A residual overlap is removed by moving positions only (no kinetic
//! energy added), split by inverse mass. Spring–dashpot (§2.1): forces at the end-of-drift
//! positions.
//!
//! Summing several impulses computed from the same pre-collision velocities (Jacobi) does not
//! conserve energy when a sphere meets two movable bodies in one step. So the impulse model
//! resolves a step in rounds. [`MATCHING_ROUNDS`] × [`Round::Matching`]: [`earliest_events`]
//! finds each sphere's first event from the current velocities, and a pair's impulse is applied
//! only when each sphere is the other's earliest (fixed spheres and planes, whose velocity never
//! changes, always agree) — binary collisions, exact. Then [`Round::Final`]: every collision
//! still pending is applied at once, so no contact is ever starved, with *mass splitting*
//! (R. Tonge, F. Benevolenskiy, A. Voroshilov, "Mass splitting for jitter-free parallel rigid
//! body simulation", ACM TOG 31(4), 2012): a sphere with k pending collisions meets each partner
//! as a body of mass m/k, so each impulse is `(1 + e) u_n / (k_a w_a + k_b w_b)` and the sum is
//! the average of k binary collisions — kinetic energy cannot grow (plain Jacobi sums over-shoot:
//! +12.6 % kinetic energy in a 100 000-sphere wall-break with e ≈ 0.5). Then overlaps are pushed
//! apart and spheres projected onto the planes. In a dilute gas a sphere rarely has three events in one
//! step, so energy stays exact to rounding; in dense packings the final round keeps every contact
//! served.

use crate::Real;
use crate::physics::impulse::{
    effective_restitution, normal_impulse, pair_restitution, plane_velocity_change,
};
use crate::physics::spring_dashpot::{dashpot_coefficient, normal_force};
use crate::physics::toi::{contact_fraction, plane_contact_fraction};
use crate::scene::ContactModel;
use rayon::prelude::*;

use super::cell_keys::{cell_of, hash_cell};

/// Fraction of a residual overlap removed per step by the position correction. Below 1 because
/// a sphere with several overlapping neighbours gets every correction at once (Jacobi).
pub const OVERLAP_RELAXATION: f64 = 0.5;

/// What the contact stage sees of one sphere.
#[derive(Clone, Copy, Debug)]
pub struct Body<R: Real> {
    /// Centre at the end of the drift, m.
    pub x: R::V3,
    /// Velocity after the first half kick, m/s.
    pub v: R::V3,
    /// Radius, m.
    pub r: R,
    /// Inverse mass, kg⁻¹ (0 = fixed).
    pub w: R,
    /// Restitution coefficient.
    pub e: R,
    /// Spring–dashpot damping ratio ζ for `e` (see `physics::spring_dashpot::damping_ratio`).
    pub zeta: R,
    /// Input id (index in the scene), which orders the pair.
    pub id: u32,
    /// Grid cell at binning time. Every round of the step finds candidates from these cells,
    /// not from positions moved since, so both sides of a pair always see each other.
    pub cell: [i32; 3],
}

/// Cell range `[lo, hi]` (inclusive) a large sphere's swept extent covers, fixed at binning
/// time; see [`large_box`].
pub type CellBox = ([i32; 3], [i32; 3]);

/// The cells a large sphere can reach this step: its radius plus the largest small radius plus
/// both speeds times dt, around its centre at binning time.
#[inline(always)]
pub fn large_box<R: Real>(x: R::V3, v: R::V3, r: R, params: &CollideParams<R>) -> CellBox {
    let reach =
        r + params.small_radius_max + (R::norm2(v).sqrt() + params.small_speed_max) * params.dt;
    let reach3 = R::vec(reach, reach, reach);
    (
        cell_of::<R>(x - reach3, params.inv_cell_edge),
        cell_of::<R>(x + reach3, params.inv_cell_edge),
    )
}

#[inline(always)]
fn in_box(c: [i32; 3], b: &CellBox) -> bool {
    (0..3).all(|k| b.0[k] <= c[k] && c[k] <= b.1[k])
}

/// A plane as the contact stage sees it.
#[derive(Clone, Copy, Debug)]
pub struct PlaneBody<R: Real> {
    /// A point on the plane, m.
    pub point: R::V3,
    /// Unit normal into the domain.
    pub normal: R::V3,
    /// Restitution coefficient.
    pub e: R,
    /// Damping ratio ζ for `e`.
    pub zeta: R,
}

/// Uniform parameters of the contact stage.
#[derive(Clone, Copy, Debug)]
pub struct CollideParams<R: Real> {
    /// Time step, s.
    pub dt: R,
    /// Contact law.
    pub model: ContactModel,
    /// Spring stiffness k_n, N/m.
    pub stiffness: R,
    /// Grid cell edge h, m, and its inverse.
    pub cell_edge: R,
    /// `1 / cell_edge`, m⁻¹.
    pub inv_cell_edge: R,
    /// Number of hash buckets.
    pub table_size: u32,
    /// Sorted index of the first large sphere; large spheres fill `[n_small, N)`.
    pub n_small: u32,
    /// Largest small-sphere radius, m.
    pub small_radius_max: R,
    /// Largest small-sphere speed this step, m/s.
    pub small_speed_max: R,
    /// Approach speed below which a contact is resting (e = 0), m/s; see
    /// `physics::impulse::effective_restitution`.
    pub resting_speed: R,
}

/// Matching rounds of the impulse model per step, before the final round. Two: an event
/// deferred in the first (its partner had an earlier one) is then resolved exactly in the
/// second, and only a sphere with three or more events in one step reaches the final round.
pub const MATCHING_ROUNDS: usize = 2;

/// Which resolution round of the impulse model a [`collide`] pass is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Round {
    /// Only mutual-earliest (binary) collisions; no pushes, no contact counts.
    Matching,
    /// Every pending collision with mass splitting, then overlap pushes, plane projection and
    /// contact counts. The spring–dashpot model has only this round.
    Final,
}

/// Per-sphere result of the contact stage.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContactOut<R: Real> {
    /// Velocity change, m/s (impulse model).
    pub dv: R::V3,
    /// Position change, m (impulse model: rest-of-step travel and overlap removal).
    pub dx: R::V3,
    /// Contact force, N (spring–dashpot).
    pub force: R::V3,
    /// Spring energy of the contacts this sphere owns (lower id of the pair), J.
    pub energy: R,
    /// Contacts this sphere owns.
    pub contacts: u32,
    /// Collisions (impulses, or soft contacts begun this step) this sphere owns.
    pub collisions: u32,
}

/// The outcome of one sphere pair, seen from `a` (the lower id); `b` gets the opposite.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairResponse<R: Real> {
    /// Unit normal from a to b.
    pub n: R::V3,
    /// Normal impulse J, N·s (impulse model).
    pub impulse: R,
    /// Time left in the step after the contact instant, `(1 − τ) dt`, s.
    pub rest: R,
    /// Fraction τ of the step at which the spheres touched (impulse model).
    pub tau: R,
    /// Residual overlap to remove after the impulse, m, split by inverse mass.
    pub push: R,
    /// Normal force magnitude on b along n, N (spring–dashpot).
    pub force: R,
    /// Elastic energy of the contact, J (spring–dashpot).
    pub energy: R,
    /// The spheres touch or overlap at the end of the step.
    pub contact: bool,
    /// An impulse was applied (or a soft contact began).
    pub collision: bool,
}

/// Unit vector along `d`, or `fallback` when `d` is (nearly) zero.
#[inline(always)]
fn unit_or<R: Real>(d: R::V3, fallback: R::V3) -> R::V3 {
    let l2 = R::norm2(d);
    if l2 > R::min_positive_value() {
        d / l2.sqrt()
    } else {
        fallback
    }
}

/// Impulse-model response of a pair (PHYSICS.md §1, Nikulin's detection and return to the
/// contact point). `a` must have the lower id.
#[inline(always)]
/// `k_a`, `k_b` are the mass-splitting factors (1 for a binary collision; see [`Round::Final`]).
pub fn resolve_pair<R: Real>(
    a: &Body<R>,
    b: &Body<R>,
    dt: R,
    resting_speed: R,
    k_a: R,
    k_b: R,
) -> PairResponse<R> {
    let mut out = PairResponse::<R>::default();
    let wsum = a.w + b.w;
    if wsum == R::zero() {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = b.x - a.x;
    let dv = b.v - a.v;
    let delta = dv * dt;
    let d0 = d1 - delta;
    let fallback = R::vec(R::one(), R::zero(), R::zero());
    let (tau, n) = if R::norm2(d0) > radius_sum * radius_sum {
        let tau = match contact_fraction::<R>(d0, delta, radius_sum) {
            Some(tau) => tau,
            // Apart at the start, touching at the end: the root is in [0, 1] but rounded past it.
            None if R::norm2(d1) <= radius_sum * radius_sum => R::one(),
            None => return out,
        };
        (tau, unit_or::<R>(d0 + delta * tau, fallback))
    } else {
        (R::zero(), unit_or::<R>(d1, fallback))
    };
    let dist1 = R::norm2(d1).sqrt();
    out.contact = dist1 <= radius_sum;
    out.n = n;
    out.tau = tau;
    out.rest = (R::one() - tau) * dt;
    let u_n = -R::dot(dv, n);
    if u_n > R::zero() {
        let e = effective_restitution(pair_restitution(a.e, b.e), u_n, resting_speed);
        out.impulse = normal_impulse(u_n, e, k_a * a.w, k_b * b.w);
        out.collision = true;
    }
    let d1c = d1 + n * (out.impulse * wsum * out.rest);
    out.push = (radius_sum - R::norm2(d1c).sqrt()).max(R::zero()) * R::of(OVERLAP_RELAXATION);
    out
}

/// Spring–dashpot response of a pair (PHYSICS.md §2.1) at the end-of-drift positions.
/// `a` must have the lower id.
#[inline(always)]
pub fn pair_force<R: Real>(a: &Body<R>, b: &Body<R>, stiffness: R, dt: R) -> PairResponse<R> {
    let mut out = PairResponse::<R>::default();
    let wsum = a.w + b.w;
    if wsum == R::zero() {
        return out;
    }
    let radius_sum = a.r + b.r;
    let d1 = b.x - a.x;
    let dist2 = R::norm2(d1);
    if dist2 > radius_sum * radius_sum {
        return out;
    }
    let n = unit_or::<R>(d1, R::vec(R::one(), R::zero(), R::zero()));
    let overlap = radius_sum - dist2.sqrt();
    let dv = b.v - a.v;
    let u_n = -R::dot(dv, n);
    let c_n = dashpot_coefficient(a.zeta.max(b.zeta), stiffness, wsum);
    out.n = n;
    out.force = normal_force(stiffness, c_n, overlap, u_n);
    out.energy = R::of(0.5) * stiffness * overlap * overlap;
    out.contact = true;
    // Began this step: apart at the start of the drift.
    let d0 = d1 - dv * dt;
    out.collision = R::norm2(d0) > radius_sum * radius_sum;
    out
}

/// The earliest collision of a sphere within the step: fraction τ and partner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<R: Real> {
    /// Fraction of the step, in [0, 1]; `inf` for none.
    pub tau: R,
    /// Input id of the partner sphere, or [`PLANE_EVENT`]` | plane index`, or [`NO_EVENT`].
    pub partner: u32,
    /// Number of collisions (spheres and planes) the sphere has pending: the `k` of the final
    /// round's mass splitting.
    pub count: u32,
}

/// Partner tag of a plane event (high bit set, low bits the plane index).
pub const PLANE_EVENT: u32 = 0x8000_0000;
/// Partner of a sphere with no event this step.
pub const NO_EVENT: u32 = u32::MAX;

impl<R: Real> Default for Event<R> {
    fn default() -> Self {
        Self {
            tau: R::infinity(),
            partner: NO_EVENT,
            count: 0,
        }
    }
}

impl<R: Real> Event<R> {
    /// Keeps the earlier of `self` and (tau, partner). Ties go to planes first (a resting
    /// sphere's floor before its neighbours), then to the lower id, so the choice does not depend
    /// on visiting order.
    #[inline(always)]
    fn keep_earliest(&mut self, tau: R, partner: u32) {
        self.count += 1;
        if tau < self.tau
            || (tau == self.tau && (partner ^ PLANE_EVENT) < (self.partner ^ PLANE_EVENT))
        {
            self.tau = tau;
            self.partner = partner;
        }
    }
}

/// Adds the pair's effect on `me` (which is `a` when `me_is_a`) to `acc`; counts are added by
/// `a` only, so each pair is counted once.
#[inline(always)]
fn apply<R: Real>(
    acc: &mut ContactOut<R>,
    p: &PairResponse<R>,
    me: &Body<R>,
    wsum: R,
    me_is_a: bool,
) {
    let sign = if me_is_a { -R::one() } else { R::one() };
    if p.impulse != R::zero() || p.push != R::zero() {
        let dv = p.n * (sign * p.impulse * me.w);
        acc.dv += dv;
        acc.dx += dv * p.rest + p.n * (sign * p.push * me.w / wsum);
    }
    if p.force != R::zero() {
        acc.force += p.n * (sign * p.force);
    }
    if me_is_a {
        acc.energy += p.energy;
        acc.contacts += p.contact as u32;
        acc.collisions += p.collision as u32;
    }
}

/// The pair (me, other) in canonical order: the lower id plays `a`.
#[inline(always)]
fn ordered<'a, R: Real>(me: &'a Body<R>, other: &'a Body<R>) -> (&'a Body<R>, &'a Body<R>, bool) {
    if me.id < other.id {
        (me, other, true)
    } else {
        (other, me, false)
    }
}

/// Handles the pair (me, other) from `me`'s side in `round`. `mutual` says whether each is the
/// other's earliest event (used by the matching round).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn visit<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    other: &Body<R>,
    round: Round,
    mutual: bool,
    k_me: R,
    k_other: R,
    params: &CollideParams<R>,
) {
    let (a, b, me_is_a) = ordered(me, other);
    let (k_a, k_b) = if me_is_a {
        (k_me, k_other)
    } else {
        (k_other, k_me)
    };
    let mut p = match params.model {
        ContactModel::Impulse => resolve_pair(a, b, params.dt, params.resting_speed, k_a, k_b),
        ContactModel::SpringDashpot => pair_force(a, b, params.stiffness, params.dt),
    };
    if round == Round::Matching {
        if !(p.collision && mutual) {
            p.impulse = R::zero();
            p.collision = false;
        }
        p.push = R::zero();
        p.contact = false;
    }
    apply(acc, &p, me, a.w + b.w, me_is_a);
}

/// Whether a pair's impulse is binary this step: each sphere is the other's earliest event, or
/// is fixed (a fixed sphere's velocity never changes, so it can take any number of impulses).
#[inline(always)]
fn is_mutual<R: Real>(me: &Body<R>, mine: u32, other: &Body<R>, theirs: u32) -> bool {
    (me.w == R::zero() || mine == other.id) && (other.w == R::zero() || theirs == me.id)
}

/// Signed gap of a sphere to a plane at the end of the drift, `(x − o)·n − r`, m, and `v·n`.
#[inline(always)]
fn plane_gap<R: Real>(me: &Body<R>, plane: &PlaneBody<R>) -> (R, R) {
    (
        R::dot(me.x - plane.point, plane.normal) - me.r,
        R::dot(me.v, plane.normal),
    )
}

/// Fraction of the step at which a sphere meets a plane while approaching it, if it does.
#[inline(always)]
pub fn plane_event<R: Real>(me: &Body<R>, plane: &PlaneBody<R>, dt: R) -> Option<R> {
    if me.w == R::zero() {
        return None;
    }
    let (s1, vn) = plane_gap(me, plane);
    if vn >= R::zero() {
        return None;
    }
    let s0 = s1 - vn * dt;
    if s0 > R::zero() {
        (s1 <= R::zero()).then(|| plane_contact_fraction(s0, s1))
    } else {
        Some(R::zero())
    }
}

/// Sphere–plane response (PHYSICS.md §1 for impulses, §2.1 for the spring–dashpot), added to
/// `acc`. Planes are immovable. Impulse model: in the matching round the impulse acts when the
/// plane is the sphere's `earliest` event, in the final round whenever the sphere reaches the
/// plane approaching it; it acts at the contact instant and the sphere travels the rest of the
/// step with its new velocity. Projection onto the plane is [`project_onto_planes`].
#[inline(always)]
/// `k_me` is the sphere's mass-splitting factor in the final round (1 otherwise).
#[allow(clippy::too_many_arguments)]
pub fn plane_contact<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    plane: &PlaneBody<R>,
    round: Round,
    earliest: bool,
    k_me: R,
    params: &CollideParams<R>,
) {
    if me.w == R::zero() {
        return;
    }
    let n = plane.normal;
    let (s1, vn) = plane_gap(me, plane);
    match params.model {
        ContactModel::Impulse => {
            let event = plane_event(me, plane, params.dt);
            let act = match round {
                Round::Matching => earliest,
                Round::Final => event.is_some(),
            };
            if act {
                let tau = event.unwrap_or(R::zero());
                let e = effective_restitution(
                    pair_restitution(me.e, plane.e),
                    -vn,
                    params.resting_speed,
                );
                let dv = plane_velocity_change::<R>(me.v, n, e) / k_me;
                acc.dv += dv;
                acc.dx += dv * ((R::one() - tau) * params.dt);
                acc.collisions += 1;
            }
            if round == Round::Final {
                acc.contacts += (s1 <= R::zero()) as u32;
            }
        }
        ContactModel::SpringDashpot => {
            if s1 > R::zero() {
                return;
            }
            let overlap = -s1;
            let c_n = dashpot_coefficient(me.zeta.max(plane.zeta), params.stiffness, me.w);
            let f = normal_force(params.stiffness, c_n, overlap, -vn);
            acc.force += n * f;
            acc.energy += R::of(0.5) * params.stiffness * overlap * overlap;
            acc.contacts += 1;
            acc.collisions += (s1 - vn * params.dt > R::zero()) as u32;
        }
    }
}

/// Last act of the impulse model's final round: a sphere that would end below a plane is put
/// back on it (Nikulin eq. 9), and a velocity still pointing into the plane gets the plane's
/// impulse law (with e = 0 that is the projection of eq. 9: it slides instead of sinking).
/// Applied to the sphere's accumulated position and velocity changes, after every pair push.
#[inline(always)]
pub fn project_onto_planes<R: Real>(
    acc: &mut ContactOut<R>,
    me: &Body<R>,
    planes: &[PlaneBody<R>],
    resting_speed: R,
) {
    if me.w == R::zero() {
        return;
    }
    for plane in planes {
        let n = plane.normal;
        let s = R::dot(me.x + acc.dx - plane.point, n) - me.r;
        if s < R::zero() {
            acc.dx -= n * s;
            let v = me.v + acc.dv;
            let e = effective_restitution(
                pair_restitution(me.e, plane.e),
                -R::dot(v, n),
                resting_speed,
            );
            acc.dv += plane_velocity_change::<R>(v, n, e);
        }
    }
}

/// Calls `f(j, other)` for every candidate partner of sorted sphere `i`: small spheres in the 27
/// neighbour buckets of its binned cell, or, for a large sphere, in the cells of its box; large
/// spheres (a small sphere takes a large one only when its cell lies in that one's box). Each
/// candidate comes at most once; `i` itself is skipped. The relation is symmetric: j is a
/// candidate of i exactly when i is one of j, or the pair is too far apart to touch (hash
/// aliasing). `boxes[k]` is the box of large sphere `n_small + k`.
#[inline(always)]
fn for_each_candidate<R: Real>(
    i: usize,
    bodies: &[Body<R>],
    boxes: &[CellBox],
    cell_start: &[u32],
    counts: &[u32],
    params: &CollideParams<R>,
    mut f: impl FnMut(usize, &Body<R>),
) {
    let n_small = params.n_small as usize;
    let (small, large) = bodies.split_at(n_small);
    let me = &bodies[i];
    if i < n_small {
        // The 27 neighbour buckets, each visited once. A bucket may also hold spheres of a cell
        // that is not a neighbour (hash aliasing); those are more than one cell edge away, so
        // they cannot touch within the step and the pair functions reject them. This is cheaper
        // than checking every candidate's cell.
        let cell = me.cell;
        let mut seen = [u32::MAX; 27];
        let mut n_seen = 0;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let c = [cell[0] + dx, cell[1] + dy, cell[2] + dz];
                    let k = hash_cell(c, params.table_size);
                    if seen[..n_seen].contains(&k) {
                        continue;
                    }
                    seen[n_seen] = k;
                    n_seen += 1;
                    let start = cell_start[k as usize] as usize;
                    let end = start + counts[k as usize] as usize;
                    for (j, other) in small[start..end].iter().enumerate() {
                        if start + j != i {
                            f(start + j, other);
                        }
                    }
                }
            }
        }
        for (k, other) in large.iter().enumerate() {
            if in_box(cell, &boxes[k]) {
                f(n_small + k, other);
            }
        }
    } else {
        let b = &boxes[i - n_small];
        let ncells: f64 = (0..3)
            .map(|a| (b.1[a] as i64 - b.0[a] as i64 + 1) as f64)
            .product();
        if ncells > n_small as f64 {
            // Fewer spheres than cells: test every small sphere's cell against the box.
            for (j, other) in small.iter().enumerate() {
                if in_box(other.cell, b) {
                    f(j, other);
                }
            }
        } else {
            for cz in b.0[2]..=b.1[2] {
                for cy in b.0[1]..=b.1[1] {
                    for cx in b.0[0]..=b.1[0] {
                        let c = [cx, cy, cz];
                        let k = hash_cell(c, params.table_size) as usize;
                        let start = cell_start[k] as usize;
                        let end = start + counts[k] as usize;
                        // Buckets alias cells: take only this cell's spheres, so none comes twice.
                        for (j, other) in small[start..end].iter().enumerate() {
                            if other.cell == c {
                                f(start + j, other);
                            }
                        }
                    }
                }
            }
        }
        // Large–large pairs: always (both sides test every large sphere).
        for (k, other) in large.iter().enumerate() {
            if n_small + k != i {
                f(n_small + k, other);
            }
        }
    }
}

/// Start of a matching round: each sphere's earliest collision in the step (sphere or plane),
/// from the current velocities, into `earliest` (sorted order). Same inputs as [`collide`].
pub fn earliest_events<R: Real>(
    bodies: &[Body<R>],
    boxes: &[CellBox],
    cell_start: &[u32],
    counts: &[u32],
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    earliest: &mut [Event<R>],
) {
    earliest.par_iter_mut().enumerate().for_each(|(i, ev)| {
        *ev = Event::default();
        let me = &bodies[i];
        if me.w == R::zero() {
            // Fixed: agrees to every impulse (see `is_mutual`).
            return;
        }
        for_each_candidate(i, bodies, boxes, cell_start, counts, params, |_, other| {
            let (a, b, _) = ordered(me, other);
            let p = resolve_pair(a, b, params.dt, params.resting_speed, R::one(), R::one());
            if p.collision {
                ev.keep_earliest(p.tau, other.id);
            }
        });
        for (k, plane) in planes.iter().enumerate() {
            if let Some(tau) = plane_event(me, plane, params.dt) {
                ev.keep_earliest(tau, PLANE_EVENT | k as u32);
            }
        }
    });
}

/// Runs one round of the contact stage over all spheres (sorted by bucket: small spheres
/// `[0, n_small)`, then the large ones). `cell_start[k]` and `counts[k]` give bucket k's range;
/// `earliest` comes from [`earliest_events`]: partners in a matching round, pending counts (mass
/// splitting) in the final round of the impulse model; it may be empty for the spring–dashpot.
#[allow(clippy::too_many_arguments)]
pub fn collide<R: Real>(
    bodies: &[Body<R>],
    boxes: &[CellBox],
    cell_start: &[u32],
    counts: &[u32],
    planes: &[PlaneBody<R>],
    earliest: &[Event<R>],
    round: Round,
    params: &CollideParams<R>,
    out: &mut [ContactOut<R>],
) {
    let impulse = params.model == ContactModel::Impulse;
    out.par_iter_mut().enumerate().for_each(|(i, acc)| {
        *acc = ContactOut::default();
        let me = &bodies[i];
        let mine = if round == Round::Matching {
            earliest[i].partner
        } else {
            NO_EVENT
        };
        if round == Round::Matching && mine == NO_EVENT && me.w != R::zero() {
            // Without an event of its own no pair of this sphere is mutual: nothing to do.
            return;
        }
        let split = impulse && round == Round::Final;
        let k_of = |j: usize| {
            if split {
                R::of(earliest[j].count.max(1) as f64)
            } else {
                R::one()
            }
        };
        let k_me = k_of(i);
        for_each_candidate(i, bodies, boxes, cell_start, counts, params, |j, other| {
            let mutual =
                round == Round::Matching && is_mutual(me, mine, other, earliest[j].partner);
            visit(acc, me, other, round, mutual, k_me, k_of(j), params);
        });
        for (k, plane) in planes.iter().enumerate() {
            plane_contact(
                acc,
                me,
                plane,
                round,
                mine == PLANE_EVENT | k as u32,
                k_me,
                params,
            );
        }
        if impulse && round == Round::Final {
            project_onto_planes(acc, me, planes, params.resting_speed);
        }
    });
}
