//! The passes over the neighbour list: the soft laws' two halves ([`collide_pairs`], then
//! [`sum_pairs`]) and the impulse model's rounds ([`impulse_pairs`], [`earliest_from_pairs`],
//! [`sum_impulses`]), with what they share: the pair evaluation ([`evaluate_pairs`]), the row
//! sums in the GPU's order ([`sum_row`]), a sphere's earliest event ([`Event`]) and how a pair's
//! response adds to a sphere (`apply`).
//!
//! The one file of the stage that reads the list (`neighbours`' [`Rows`]).

use crate::Real;
use crate::physics::friction::pair_friction;
use crate::physics::hertz::effective_radius;
use crate::physics::impulse::push_velocity_change;
use crate::physics::rotation::{
    contact_arm, friction_moment, friction_torque, inverse_rolling_inertia, rolling_resistance,
};
use crate::scene::RollingModel;
use rayon::prelude::*;

use crate::cpu::neighbours::Rows;
use crate::cpu::{CHUNK, Disjoint};

use super::bodies::{
    Ball, Body, CollideParams, ContactHistory, ContactOut, PlaneBody, Round, Spins,
};
use super::candidates::separation_in_reach;
use super::pair_lanes::{LANES, LaneKernel, LaneParams, PairLanes};
use super::pair_laws::{PairResponse, pair_force, resolve_pair, unit_or};
use super::pair_records::{
    PAIR_COLLISION, PAIR_CONTACT, PAIR_FORCE, PairImpulse, PairOut, PairRecord,
};
use super::walls::{project_onto_walls, wall_contact, wall_event, wall_gap};
use crate::physics::periodic::{PeriodicBox, minimum_image};

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
    /// Keeps the earliest of `self` and the sphere's wall events within the step.
    #[inline(always)]
    fn keep_plane_events(&mut self, me: &Body<R>, planes: &[PlaneBody<R>], dt: R) {
        for (k, plane) in planes.iter().enumerate() {
            if let Some(tau) = wall_event(me, plane, dt) {
                self.keep_earliest(tau, PLANE_EVENT | k as u32);
            }
        }
    }

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

/// Adds the pair's effect on `me` (which is `a` when `me_is_a`; `other` is the partner, the
/// same bodies [`resolve_pair`] saw) to `acc`; counts are added by `a` only, so each pair is
/// counted once.
///
/// Impulse model: the impulse `J n` (with its rest-of-step travel), then the overlap push. The
/// push moves the pair apart by `s` along its separation `d` after the impulse's travel (the
/// line the overlap was measured on), split by inverse mass, and changes the relative velocity
/// by `physics::impulse::push_velocity_change`, split the same way: linear and angular momentum
/// and kinetic energy stay (docs/physics.md §1.2). Moving positions alone at unchanged velocity changed the angular
/// momentum by `μ s d̂ × v` a push: a spinning pile gained 95 % (docs/gravity-tree.md).
#[inline(always)]
fn apply<R: Real>(
    acc: &mut ContactOut<R>,
    p: &PairResponse<R>,
    me: &Body<R>,
    other: &Body<R>,
    wsum: R,
    me_is_a: bool,
    pbox: &PeriodicBox<R>,
) {
    let sign = if me_is_a { -R::one() } else { R::one() };
    if p.impulse != R::zero() || p.push != R::zero() {
        let dv = p.n * (sign * p.impulse * me.w);
        acc.dv += dv;
        // Separate additions, in this order, as in the WGSL twin: written as one, `acc + (a + b)`,
        // lavapipe's compiled shader added `(acc + a) + b`, and the backends parted by an ulp.
        acc.dx += dv * p.rest;
        if p.push != R::zero() {
            // From `a`'s side, as resolve_pair computed the push: the same bits on both sides.
            let (a, b) = if me_is_a { (me, other) } else { (other, me) };
            let d = minimum_image::<R>(b.x - a.x, pbox) + p.n * (p.impulse * wsum * p.rest);
            let v = (b.v - a.v) + p.n * (p.impulse * wsum);
            let axis = unit_or::<R>(d, p.n);
            let share = sign * me.w / wsum;
            acc.dx += axis * (share * p.push);
            acc.dv += push_velocity_change(axis, R::norm2(d).sqrt(), v, p.push) * share;
        }
    }
    if p.force != R::zero() {
        acc.force += (p.n * p.force + p.friction) * sign;
    }
    if me_is_a {
        acc.energy += p.energy;
        acc.power += p.power;
        acc.contacts += p.contact as u32;
        acc.collisions += p.collision as u32;
    }
}

/// Whether a pair's impulse is binary this step: each sphere is the other's earliest event, or
/// is fixed (a fixed sphere's velocity never changes, so it can take any number of impulses).
#[inline(always)]
fn is_mutual<R: Real>(me: &Body<R>, mine: u32, other: &Body<R>, theirs: u32) -> bool {
    (me.w == R::zero() || mine == other.id) && (other.w == R::zero() || theirs == me.id)
}

/// Soft contact from the neighbour list, first half: every pair once, by its lower-id sphere
/// (the list's owned entries): [`pair_force`] at the end-of-drift positions into `pairs[k]`, k
/// the pair's index ([`Rows::pair`] of both its entries; zero for a pair apart), so that
/// [`sum_pairs`] reads each row in order. `balls` (centres and radii) screen the entries with
/// [`separation_in_reach`](super::separation_in_reach) of the nearest image (no skin) before the bodies are read; `spin` is the spheres' rotation
/// ([`Spins::none`] without); with rolling friction a pair with a force gets its
/// [`rolling_resistance`] (μ_r the smaller of the two, `1/R* = 1/r_a + 1/r_b`), whose power joins
/// the pair's. With contact history `kept` holds what each entry's contact keeps
/// ([`ContactHistory`]), read as last step's and overwritten with this step's (zero when apart)
/// on the owned entries; without, it is empty. `pairs` holds at least one record per owned
/// entry.
#[allow(clippy::too_many_arguments)]
pub fn collide_pairs<R: Real, P: PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    balls: &[Ball<R>],
    rows: &Rows<'_>,
    params: &CollideParams<R>,
    pairs: &mut [P],
    kept: &mut [ContactHistory<R>],
) {
    let history = !kept.is_empty();
    // may_touch, from the compact array: most entries are apart.
    let screen = |i: usize, j: usize| {
        let d = params.separation(balls[i].x, balls[j].x);
        separation_in_reach(d, balls[i].r, balls[j].r, R::zero())
    };
    let eval = |i: usize, j: usize, kept: Option<&mut ContactHistory<R>>, _: &P| {
        let me = &bodies[i];
        let old = kept.as_ref().map_or(ContactHistory::default(), |k| **k);
        let other = &bodies[j];
        let p = pair_force(
            me,
            other,
            (!spin.omega.is_empty()).then(|| (spin.omega[i], spin.omega[j])),
            old,
            params,
        );
        let force = p.force != R::zero();
        let (moment, overlap) = if force {
            (friction_moment::<R>(p.n, p.friction), p.overlap)
        } else {
            (R::zero3(), R::zero())
        };
        let mut keep = p.kept;
        let (rolling, rolling_power) = if force && !spin.rolling_friction.is_empty() {
            let (ii, ij) = (spin.inv_inertia[i], spin.inv_inertia[j]);
            let (torque, spring, power) = rolling_resistance::<R>(
                params.rolling,
                p.n,
                spin.omega[i],
                spin.omega[j],
                old.rolling,
                pair_friction(spin.rolling_friction[i], spin.rolling_friction[j]),
                effective_radius(me.r.recip(), other.r.recip()),
                p.force,
                p.stiffness,
                ii + ij,
                // Type C's only: no divisions for the others.
                if params.rolling == RollingModel::Epsd {
                    inverse_rolling_inertia(ii, me.w, me.r)
                        + inverse_rolling_inertia(ij, other.w, other.r)
                } else {
                    R::zero()
                },
                params.dt,
            );
            keep.rolling = spring;
            (torque, power)
        } else {
            (R::zero3(), R::zero())
        };
        if let Some(kept) = kept {
            *kept = if p.contact {
                keep
            } else {
                ContactHistory::default()
            };
        }
        let out = PairOut {
            force: if force {
                p.n * p.force + p.friction
            } else {
                R::zero3()
            },
            energy: p.energy,
            power: p.power + rolling_power,
            flags: (p.contact as u32 * PAIR_CONTACT)
                | (p.collision as u32 * PAIR_COLLISION)
                | (force as u32 * PAIR_FORCE),
        };
        Some(P::new(out, moment, overlap, rolling))
    };
    debug_assert!(!history || kept.len() == rows.partner.len());
    let with_spin = !spin.omega.is_empty();
    let law = match LaneParams::of(params, with_spin, !spin.rolling_friction.is_empty()) {
        Some(lane) => Law::Lanes(Lanes {
            bodies,
            omega: spin.omega,
            params: lane,
            kernel: LaneKernel::detect(),
            record: std::marker::PhantomData::<P>,
        }),
        None => Law::Each(EachPair(eval)),
    };
    evaluate_pairs(
        rows,
        pairs,
        kept,
        Some(P::default()),
        &screen,
        balls,
        bodies,
        &law,
    );
}

/// [`collide_pairs`]' choice: eight pairs at a time where [`LaneParams::of`] allows it, one at a
/// time otherwise.
enum Law<'a, R: Real, P, F> {
    Lanes(Lanes<'a, R, P>),
    Each(EachPair<F>),
}

impl<R: Real, P: PairRecord<R>, F> PairBatch<P, ContactHistory<R>> for Law<'_, R, P, F>
where
    F: Fn(usize, usize, Option<&mut ContactHistory<R>>, &P) -> Option<P> + Sync,
{
    #[inline(always)]
    fn eval(&self, hits: &[Hit], out: &Disjoint<'_, P>, state: &mut [ContactHistory<R>]) {
        match self {
            Law::Lanes(lanes) => lanes.eval(hits, out, state),
            Law::Each(each) => each.eval(hits, out, state),
        }
    }
}

/// A pair [`evaluate_pairs`]' screen passed: spheres `i` (the lower id, owning the entry) and
/// `j`, the pair's index `k` and its entry's index `s` in the block's per-entry state.
#[derive(Clone, Copy, Debug, Default)]
struct Hit {
    i: u32,
    j: u32,
    k: u32,
    s: u32,
}

/// How [`evaluate_pairs`] evaluates a screened batch's hits, storing each result at `out[k]`
/// and its entry's state at `state[s]` (`state` may be empty).
trait PairBatch<T, U>: Sync {
    fn eval(&self, hits: &[Hit], out: &Disjoint<'_, T>, state: &mut [U]);
}

/// One pair at a time: `f(i, j, state, current)` is stored, or the pair left as it is when it
/// returns `None`.
struct EachPair<F>(F);

impl<T: Copy, U, F: Fn(usize, usize, Option<&mut U>, &T) -> Option<T> + Sync> PairBatch<T, U>
    for EachPair<F>
{
    #[inline(always)]
    fn eval(&self, hits: &[Hit], out: &Disjoint<'_, T>, state: &mut [U]) {
        for h in hits {
            let k = h.k as usize;
            let current = out.read(k);
            if let Some(po) = (self.0)(
                h.i as usize,
                h.j as usize,
                state.get_mut(h.s as usize),
                &current,
            ) {
                out.write(k, po);
            }
        }
    }
}

/// [`collide_pairs`]' law [`LANES`] pairs at a time ([`pair_force_lanes`]): the same records
/// and kept history as the scalar law, bit for bit.
struct Lanes<'a, R: Real, P> {
    bodies: &'a [Body<R>],
    omega: &'a [R::V3],
    params: LaneParams,
    kernel: LaneKernel,
    record: std::marker::PhantomData<P>,
}

impl<R: Real, P: PairRecord<R>> PairBatch<P, ContactHistory<R>> for Lanes<'_, R, P> {
    #[inline(always)]
    fn eval(&self, hits: &[Hit], out: &Disjoint<'_, P>, state: &mut [ContactHistory<R>]) {
        let mut input = PairLanes::default();
        for chunk in hits.chunks(LANES) {
            if chunk.len() < LANES {
                // The lanes past the hits hold two fixed spheres: no contact, nothing stored.
                input = PairLanes::default();
            }
            for (l, h) in chunk.iter().enumerate() {
                let (i, j) = (h.i as usize, h.j as usize);
                let omega = self.params.spin.then(|| (self.omega[i], self.omega[j]));
                let kept = state.get(h.s as usize).copied().unwrap_or_default();
                input.load(l, &self.bodies[i], &self.bodies[j], omega, &kept);
            }
            let got = self.kernel.run(&input, &self.params);
            for (l, h) in chunk.iter().enumerate() {
                let (record, kept) = got.record::<R, P>(l);
                out.write(h.k as usize, record);
                if let Some(s) = state.get_mut(h.s as usize) {
                    *s = kept;
                }
            }
        }
    }
}

/// Asks the cache for `items[k]` (nothing when out of range or off x86-64): the screen of
/// [`evaluate_pairs`] knows the partners a batch ahead of their evaluation.
#[inline(always)]
fn prefetch<B>(items: &[B], k: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = items.get(k) {
        // SAFETY: a prefetch is a hint; it never faults, and the address is in bounds.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (item as *const B).cast(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, k);
}

/// Owned entries [`evaluate_pairs`] screens before it evaluates the hits.
const SCREEN_BATCH: usize = 64;
/// How many owned entries ahead the screen asks for a partner's [`Ball`].
const SCREEN_AHEAD: usize = 16;

/// Evaluates every listed pair once, by its lower-id sphere (the list's
/// [`owned`](crate::cpu::neighbours::NeighbourList::owned) entries), through `eval`
/// ([`PairBatch`]), which stores each result at the pair's index k in that list, `out[k]`. `state` is per-entry state of the owned entry (one per entry, or empty:
/// then `f` gets `None`); `current` the pair's value now. With `miss` given, a pair that fails
/// `screen(i, j)` is not evaluated: `miss` is stored and its state reset to the default. Blocks
/// of [`CHUNK`] spheres run in parallel.
///
/// The screen runs over a batch of entries first and the hits are evaluated after, so the
/// evaluation has no branch that depends on the pair: a row mixes pairs in and out of reach at
/// random, and a mispredicted branch per pair stalled the loop on it. While it screens, it asks
/// the cache for the `screened[j]` of the partner [`SCREEN_AHEAD`] entries on and for the
/// `touch[j]` the evaluation will read (either may be empty), since the partners lie at random
/// in memory and `perf annotate` put the stalls on their loads. Results go to the pair, not to
/// its two entries, so the stores run in order; the row sums read them through
/// [`pair`](crate::cpu::neighbours::NeighbourList::pair).
#[allow(clippy::too_many_arguments)]
fn evaluate_pairs<T: Copy + Send + Sync, U: Send + Default, S: Sync, B: Sync>(
    rows: &Rows<'_>,
    out: &mut [T],
    state: &mut [U],
    miss: Option<T>,
    screen: &(impl Fn(usize, usize) -> bool + Sync),
    screened: &[S],
    touch: &[B],
    eval: &impl PairBatch<T, U>,
) {
    let Rows {
        start,
        partner,
        owned,
        owned_block,
        ..
    } = *rows;
    assert!(out.len() >= owned.len());
    // A pair index belongs to one block (its owned entry's).
    let shared = Disjoint::new(out);
    crate::cpu::neighbours::for_each_block(start, state, &mut [(); 0], &|b, state, _| {
        let base = start[b * CHUNK] as usize;
        let first = owned_block[b] as usize;
        let items = &owned[first..owned_block[b + 1] as usize];
        let mut hits = [Hit::default(); SCREEN_BATCH];
        for (c, batch) in items.chunks(SCREEN_BATCH).enumerate() {
            let at = first + c * SCREEN_BATCH;
            let mut found = 0;
            for (k, &[i, e]) in batch.iter().enumerate() {
                if let Some(&[_, ahead]) = items.get(c * SCREEN_BATCH + k + SCREEN_AHEAD) {
                    prefetch(screened, partner[ahead as usize] as usize);
                }
                let e = e as usize;
                let j = partner[e];
                hits[found] = Hit {
                    i,
                    j,
                    k: (at + k) as u32,
                    s: (e - base) as u32,
                };
                let Some(miss) = miss else {
                    found += 1;
                    continue;
                };
                let hit = screen(i as usize, j as usize);
                found += hit as usize;
                prefetch(touch, j as usize);
                // Every pair, hit or not: a hit's is overwritten below.
                shared.write(at + k, miss);
                if !state.is_empty() && !hit {
                    state[e - base] = U::default();
                }
            }
            eval.eval(&hits[..found], &shared, state);
        }
    });
}

/// Impulse model from the neighbour list, first half of a round: [`resolve_pair`] of every
/// listed pair once, by its lower-id sphere, into `pairs[k]`, k the pair's index
/// ([`Rows::pair`]).
///
/// * Binary (k = 1, an empty `earliest`): with an empty `moved` every pair is evaluated;
///   otherwise `pairs` must hold the binary responses from the same bodies except those with
///   `moved[i]`, and only pairs with a moved sphere are evaluated again.
/// * Final round (`earliest` given): `pairs` must hold the binary responses of these bodies;
///   the colliding pairs are evaluated again with the mass-splitting factors
///   `earliest[i].count.max(1)`. A pair that does not collide has no impulse, so its response
///   does not depend on them.
///
/// Either way the result is bit for bit that of evaluating every pair afresh.
#[allow(clippy::too_many_arguments)]
pub fn impulse_pairs<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    earliest: &[Event<R>],
    moved: &[bool],
    params: &CollideParams<R>,
    pairs: &mut [PairImpulse<R>],
) {
    let split = !earliest.is_empty();
    let k_of = |i: usize| {
        earliest
            .get(i)
            .map_or(R::one(), |ev| R::of(ev.count.max(1) as f64))
    };
    let eval = |i: usize, j: usize, _: Option<&mut ()>, current: &PairImpulse<R>| {
        if split {
            if current.flags & PAIR_COLLISION == 0 {
                return None;
            }
        } else if !moved.is_empty() && !moved[i] && !moved[j] {
            return None;
        }
        let p = resolve_pair(
            &bodies[i],
            &bodies[j],
            &params.periodic,
            params.dt,
            params.resting_speed,
            k_of(i),
            k_of(j),
        );
        Some(PairImpulse {
            n: p.n,
            impulse: p.impulse,
            rest: p.rest,
            tau: p.tau,
            push: p.push,
            flags: (p.contact as u32 * PAIR_CONTACT) | (p.collision as u32 * PAIR_COLLISION),
        })
    };
    evaluate_pairs::<_, (), (), Body<R>>(
        rows,
        pairs,
        &mut [],
        None,
        &|_, _| true,
        &[],
        &[],
        &EachPair(eval),
    );
}

/// Impulse model from the neighbour list: each sphere's earliest event and pending count, from
/// the binary ([`impulse_pairs`] without `earliest`) responses of its entries and from the
/// walls, into `earliest`. The choice does not depend on order.
pub fn earliest_from_pairs<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    pairs: &[PairImpulse<R>],
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    earliest: &mut [Event<R>],
) {
    use crate::cpu::neighbours::NO_PAIR;
    let Rows {
        start,
        partner,
        pair,
        ..
    } = *rows;
    earliest.par_iter_mut().enumerate().for_each(|(i, ev)| {
        *ev = Event::default();
        let me = &bodies[i];
        if me.w == R::zero() {
            return;
        }
        for e in start[i] as usize..start[i + 1] as usize {
            let k = pair[e];
            if k == NO_PAIR {
                continue;
            }
            let p = &pairs[k as usize];
            if p.flags & PAIR_COLLISION != 0 {
                ev.keep_earliest(p.tau, bodies[partner[e] as usize].id);
            }
        }
        ev.keep_plane_events(me, planes, params.dt);
    });
}

/// Impulse model from the neighbour list, second half of a round: every sphere adds the
/// responses of its entries ([`impulse_pairs`]) in row order (a large sphere in [`sum_row`]'s
/// order; in a matching round only mutual collisions act), then meets the walls, into `out`.
#[allow(clippy::too_many_arguments)]
pub fn sum_impulses<R: Real>(
    bodies: &[Body<R>],
    rows: &Rows<'_>,
    pairs: &[PairImpulse<R>],
    planes: &[PlaneBody<R>],
    earliest: &[Event<R>],
    round: Round,
    params: &CollideParams<R>,
    out: &mut [ContactOut<R>],
) {
    use crate::cpu::neighbours::{NO_PAIR, OWNED};
    let Rows {
        start,
        partner,
        link,
        pair,
        ..
    } = *rows;
    out.par_iter_mut().enumerate().for_each(|(i, acc)| {
        *acc = ContactOut::default();
        let me = &bodies[i];
        let mine = if round == Round::Matching {
            earliest[i].partner
        } else {
            NO_EVENT
        };
        if round == Round::Matching && mine == NO_EVENT && me.w != R::zero() {
            return;
        }
        let k_me = if round == Round::Final {
            R::of(earliest.get(i).map_or(1, |ev| ev.count.max(1)) as f64)
        } else {
            R::one()
        };
        let add = |acc: &mut ContactOut<R>, e: usize| {
            let k = pair[e];
            if k == NO_PAIR {
                return;
            }
            let owned = link[e] & OWNED != 0;
            let j = partner[e] as usize;
            let other = &bodies[j];
            let mut p = pairs[k as usize].response();
            if round == Round::Matching {
                p.keep_binary(is_mutual(me, mine, other, earliest[j].partner));
            }
            apply(acc, &p, me, other, me.w + other.w, owned, &params.periodic);
        };
        *acc = sum_row(i, start, params, add);
        for (k, plane) in planes.iter().enumerate() {
            let earliest = mine == PLANE_EVENT | k as u32;
            let _ = wall_contact(
                acc,
                me,
                plane,
                round,
                earliest,
                k_me,
                ContactHistory::default(),
                None,
                params,
            );
        }
        if round == Round::Final {
            project_onto_walls(acc, me, planes, params.resting_speed);
        }
    });
}

/// Lanes of the work-group that sums a large sphere's row on the GPU (`gpu::WORKGROUP_SIZE`).
pub const ROW_LANES: usize = 256;

/// The sums of sphere i's row (`start[i]..start[i + 1]`), each entry added by `add`, in the
/// GPU's order. A small sphere's row is short and one invocation adds it in row order. A large
/// sphere's row grows with its surface, so a work-group of [`ROW_LANES`] invocations sums it:
/// lane l adds entries l, l + L, l + 2L, … in order, then the lanes' sums are combined pairwise
/// in a fixed tree (lane l takes lane l + s, for s = L/2, L/4, …, 1). No lane adds more than
/// ⌈len/L⌉ entries, and the order, hence every rounding, is the same on both backends.
#[inline(always)]
pub fn sum_row<R: Real>(
    i: usize,
    start: &[u32],
    params: &CollideParams<R>,
    mut add: impl FnMut(&mut ContactOut<R>, usize),
) -> ContactOut<R> {
    let row = start[i] as usize..start[i + 1] as usize;
    if i < params.n_small as usize {
        let mut acc = ContactOut::default();
        for e in row {
            add(&mut acc, e);
        }
        return acc;
    }
    let mut lanes = [ContactOut::default(); ROW_LANES];
    for (l, acc) in lanes.iter_mut().enumerate() {
        for e in row.clone().skip(l).step_by(ROW_LANES) {
            add(acc, e);
        }
    }
    let mut s = ROW_LANES / 2;
    while s > 0 {
        for l in 0..s {
            let other = lanes[l + s];
            lanes[l].combine(&other);
        }
        s /= 2;
    }
    lanes[0]
}

impl<R: Real> ContactOut<R> {
    /// Adds another partial sum of the same sphere's contacts ([`sum_row`]'s tree).
    #[inline(always)]
    pub fn combine(&mut self, o: &Self) {
        self.dv += o.dv;
        self.dx += o.dx;
        self.force += o.force;
        self.torque += o.torque;
        self.energy += o.energy;
        self.power += o.power;
        self.contacts += o.contacts;
        self.collisions += o.collisions;
    }
}

/// Soft contact from the neighbour list, second half: every sphere i adds the results of its
/// entries (`start[i]..start[i + 1]`, written by [`collide_pairs`]) in row order (a large
/// sphere in [`sum_row`]'s order), with the energy, power and counts of the pairs it owns and
/// the force reversed for the others, then meets the walls, into `out[i]`. With
/// contact history `wall_kept` holds what each sphere's contact with each wall keeps (`n ×
/// planes.len()`), read and overwritten; without, it is empty. `wall_force` (`n ×
/// planes.len()`, N, or empty when the scene records no wall forces) gets the force each wall
/// exerts on each sphere, zero where they are apart. `wall_reach` (`n`, or empty for every wall)
/// holds each sphere's walls in reach ([`walls_in_reach`](crate::cpu::neighbours::walls_in_reach)):
/// a wall out of reach is apart, adds nothing and keeps nothing, so it is skipped, unless the
/// walls' forces are recorded.
#[allow(clippy::too_many_arguments)]
pub fn sum_pairs<R: Real, P: PairRecord<R>>(
    bodies: &[Body<R>],
    spin: Spins<R>,
    rows: &Rows<'_>,
    pairs: &[P],
    planes: &[PlaneBody<R>],
    params: &CollideParams<R>,
    out: &mut [ContactOut<R>],
    wall_kept: &mut [ContactHistory<R>],
    wall_reach: &[u64],
    wall_force: &mut [R::V3],
) {
    use crate::cpu::neighbours::{NO_PAIR, OWNED};
    // Sphere i's `np` forces are written by the block that holds the sphere.
    let forces = Disjoint::new(wall_force);
    let Rows {
        start, link, pair, ..
    } = *rows;
    let np = planes.len().max(1);
    let history = !wall_kept.is_empty();
    let masked = wall_reach.len() == bodies.len() && forces.is_empty();
    let block = |b: usize, outs: &mut [ContactOut<R>], walls: &mut [ContactHistory<R>]| {
        for (k, acc) in outs.iter_mut().enumerate() {
            let i = b * CHUNK + k;
            let me = &bodies[i];
            let add = |acc: &mut ContactOut<R>, e: usize| {
                let k = pair[e];
                if k == NO_PAIR {
                    return;
                }
                let owned = link[e] & OWNED != 0;
                let record = &pairs[k as usize];
                let (p, sign) = (record.out(), if owned { -R::one() } else { R::one() });
                // Without branches on the pair's flags, which a row mixes unpredictably: a pair
                // without a force stores a zero force, and ±0 added to a sum that starts at +0
                // leaves its bits as they are (round to nearest never makes −0 from a sum), so
                // the result is the branching sum's.
                acc.force += p.force * sign;
                // Likewise the torques: a pair without a force stores a zero moment, overlap
                // and rolling torque, whose terms are ±0 (the WGSL twin branches on the flag).
                if let Some((moment, overlap)) = record.spin() {
                    acc.torque += friction_torque(contact_arm(me.r, overlap), moment);
                }
                if let Some(rolling) = record.rolling() {
                    acc.torque += if owned { rolling } else { -rolling };
                }
                let own = if owned { R::one() } else { R::zero() };
                acc.energy += p.energy * own;
                acc.power += p.power * own;
                acc.contacts += (p.flags & PAIR_CONTACT) * owned as u32;
                acc.collisions += ((p.flags & PAIR_COLLISION) >> 1) * owned as u32;
            };
            *acc = sum_row(i, start, params, add);
            let reach = if masked { wall_reach[i] } else { 0 };
            for (w, plane) in planes.iter().enumerate() {
                if masked && (reach >> w) & 1 == 0 {
                    continue;
                }
                // Read only where the sphere touches the wall, which is where `wall_contact`
                // uses it: most spheres touch no wall, and the load of a record it then
                // ignores was a cache miss the loop waited on (perf annotate).
                let old = if history && wall_gap(me.x, me.r, plane).0 <= R::zero() {
                    walls[k * np + w]
                } else {
                    ContactHistory::default()
                };
                let (kept, force) = wall_contact(
                    acc,
                    me,
                    plane,
                    Round::Final,
                    false,
                    R::one(),
                    old,
                    spin.get(i),
                    params,
                );
                if history {
                    walls[k * np + w] = kept.unwrap_or_default();
                }
                if !forces.is_empty() {
                    forces.write(i * np + w, force);
                }
            }
        }
    };
    if history {
        out.par_chunks_mut(CHUNK)
            .zip(wall_kept.par_chunks_mut(CHUNK * np))
            .enumerate()
            .for_each(|(b, (outs, walls))| block(b, outs, walls));
    } else {
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .for_each(|(b, outs)| block(b, outs, &mut []));
    }
}
