//! Stage `collide`: narrow phase over the 27 neighbour cells, the large-sphere list and the planes.
//! Twin of `shaders/collide.wgsl`.
//!
//! Every sphere visits its candidates and handles each pair *symmetrically*: both sides compute
//! the same impulse (or force) from the same data, with the lower sphere id always playing `a`,
//! so the two results are bitwise equal and opposite. Momentum balances without float atomics,
//! and the result does not depend on which thread ran first.
//!
//! Impulse model (docs/physics.md §1): a pair collides when its linear relative path within the step
//! reaches contact while approaching (Nikulin's two inequalities, [`contact_fraction`]); the
//! impulse acts at the contact instant τ, and the rest of the step `(1 − τ) dt` is travelled
//! with the new velocity. A residual overlap is removed by moving the pair apart along its line
//! of centres, split by inverse mass, and turning its relative velocity so that the pair's
//! angular momentum and kinetic energy stay (`apply`). Soft contact, spring–dashpot (§2.1) or Hertz with
//! Hunt–Crossley dissipation (§2.2), with Coulomb friction (§2.3, a tangential spring): forces at the
//! end-of-drift positions, and the power they dissipate for the energy balance.
//!
//! Friction (Cundall–Strack, `physics::friction`) keeps a tangential displacement ξ per
//! contact. It lives on the neighbour list (`neighbours`), one ξ per list entry and one per
//! sphere and wall, and [`collide_pairs`] and [`sum_pairs`] read and rewrite it (the GPU's twins
//! likewise, on its own list).
//!
//! Walls are planes and the insides of spherical containers, by [`PlaneBody::kind`] (a
//! [`WallKind`]); every kind meets a sphere along the wall's normal at the sphere's nearest point
//! ([`wall_gap`]), and the passes see a wall only through the per-kind operations of `walls`.
//!
//! [`WallKind`]: crate::setup::WallKind
//!
//! Summing several impulses computed from the same pre-collision velocities (Jacobi) does not
//! conserve energy when a sphere meets two movable bodies in one step. So the impulse model
//! resolves a step in rounds. [`MATCHING_ROUNDS`] × [`Round::Matching`]: [`earliest_from_pairs`]
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
//!
//! The stage's files, by what they hold:
//!
//! * `bodies`: what the stage reads and writes per sphere and wall ([`Body`], [`Ball`],
//!   [`PlaneBody`], [`Spins`], [`ContactHistory`], [`CollideParams`], [`Round`],
//!   [`ContactOut`]);
//! * `candidates`: the candidate walk (`for_each_candidate` and its parts) and the distance
//!   tests [`in_reach`], [`may_touch`];
//! * `boxes`: a large sphere's cell box ([`large_box`]);
//! * `pair_laws`: the laws of one sphere pair ([`resolve_pair`], [`soft_normal_force`],
//!   [`soft_contact`], [`pair_force`]) and [`impulse_energy_change`];
//! * `pair_lanes`: the soft pair law and [`collide_pairs`]' record of it for [`LANES`] pairs at
//!   a time ([`pair_force_lanes`]), each lane bit for bit the scalar law's, which
//!   [`collide_pairs`] runs in f32 without rolling resistance;
//! * `pair_records`: what the passes store per pair ([`PairRecord`], [`PairImpulse`]);
//! * `walls`: a sphere against a wall: one module per wall kind (`walls::plane`,
//!   `walls::sphere_inside`), the per-operation dispatch ([`wall_gap`], [`wall_curvature`],
//!   [`wall_event`]) and the response through it ([`wall_contact`], [`project_onto_walls`]);
//! * `passes`: the passes over the neighbour list ([`collide_pairs`], [`sum_pairs`],
//!   [`impulse_pairs`], [`earliest_from_pairs`], [`sum_impulses`]).
//!
//! Dependencies run one way. `neighbours` builds its list with `candidates` and `bodies`, and
//! each sphere's walls in reach with `walls`' [`wall_gap`], which import nothing of it; `passes` reads the list (`neighbours::Rows`), and `boxes` its skin
//! (`neighbours::sphere_skin`), and nothing in `neighbours` imports either. Within the stage,
//! `bodies` imports no other file; `candidates`, `boxes`, `pair_laws` import `bodies`;
//! `pair_records` and `walls` import `pair_laws`; `pair_lanes` imports `bodies` and
//! `pair_records`; `passes` imports all but `boxes`. Every public
//! item is re-exported here, so its path stays `cpu::collide::NAME`.
//!
//! [`contact_fraction`]: crate::physics::toi::contact_fraction

pub(super) mod bodies;
mod boxes;
pub(super) mod candidates;
mod pair_lanes;
mod pair_laws;
mod pair_records;
mod passes;
mod walls;

pub use crate::setup::{MATCHING_ROUNDS, OVERLAP_RELAXATION};

pub use bodies::{
    Ball, Body, CellBox, CollideParams, ContactHistory, ContactOut, PlaneBody, Round, SphereSpin,
    Spins,
};
pub use boxes::large_box;
pub use candidates::{
    SEEN_FILTER_MULTIPLIER, in_reach, may_touch, seen_filter_bit, separation_in_reach,
};
pub use pair_lanes::{
    LANES, LaneF32, LaneKernel, LaneMask, LaneParams, LaneV3, PairLanes, PairLanesOut,
    pair_force_lanes,
};
pub use pair_laws::{
    NormalForce, PairResponse, Soft, impulse_energy_change, pair_force, resolve_pair, soft_contact,
    soft_normal_force,
};
pub use pair_records::{
    PAIR_COLLISION, PAIR_CONTACT, PAIR_FORCE, PairImpulse, PairOut, PairRecord, RollPairOut,
    SpinPairOut,
};
pub use passes::{
    Event, NO_EVENT, PLANE_EVENT, ROW_LANES, collide_pairs, earliest_from_pairs, impulse_pairs,
    sum_impulses, sum_pairs, sum_row,
};
pub use walls::{
    project_onto_walls, wall_contact, wall_curvature, wall_event, wall_gap, wall_power,
};
