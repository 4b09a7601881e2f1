//! Stage `neighbours`: the Verlet neighbour list with a skin (docs/physics.md, "Neighbour list
//! with a skin"; L. Verlet, Phys. Rev. 159, 98 (1967); the skin criterion as in LAMMPS'
//! `neighbor ... bin` with `neigh_modify check yes`), for every contact law.
//!
//! A rebuild bins the spheres into cells of edge `2 (r_max + s/2 + v_max dt)` (s the skin, at
//! least `2 r_max + s`) and lists, for every sorted sphere i, the partners j of its 27
//! neighbour cells (and the large-sphere boxes) within reach, `collide::in_reach`:
//! `|x_j − x_i| ≤ r_i + r_j + σ_i + σ_j` (with `may_touch`'s 1 % margin), σ the sweep of
//! [`sweeps`]: `s/2`, plus the step's travel `|v| dt` for impulses. The list is a compressed row
//! per sphere, `start[i]..start[i + 1]`, in the order the candidate loop meets the partners, so
//! that it is deterministic and a rebuild in every step (s = 0) gives the grid search's pairs in
//! the grid search's order.
//!
//! Until some sphere has moved more than its sweep allows ([`needs_rebuild`]) the state is not
//! re-sorted and the contact stage reads the list: no pair that can touch within the step is
//! missing, since two spheres that each stayed within their sweeps closed their gap by less than
//! `σ_i + σ_j`.
//!
//! The contact history lives on the list: what a contact keeps (its tangential displacement ξ
//! and the Hertz law's approach speed at first touch, `collide::ContactHistory`) per entry, on
//! the entry of the pair's lower-id sphere (which evaluates the pair), carried to the rebuilt
//! list by the partner's input id; one per sphere and wall. A sphere keeps the history of every
//! contact it has, however many.

use crate::Real;
use crate::physics::periodic::{PeriodicBox, minimum_image};
use rayon::prelude::*;

use super::CHUNK;
// The candidate walk and the bodies, never the passes: `collide::passes` imports this file.
use super::collide::bodies::{Ball, Body, CellBox, CollideParams, ContactHistory, PlaneBody};
use super::collide::candidates::{
    for_each_candidate, for_each_large_over, for_each_neighbour_bucket, separation_in_reach,
};
use super::collide::wall_gap;
use super::prefix_sum::prefix_sum;
use super::scatter::gather_rows;

/// Whether a sphere now at `x` (m) has moved past its sweep `sweep` (σ, m, set at the last
/// build) since `x_build` (m), which rebuilds the list before the contact stage: `|x −
/// x_build|² > σ²` (the minimum image of `x − x_build` in the periodic box `pbox`); with `velocity` (the impulse model) the step's own travel counts too:
/// `|x − x_build| + |v| dt > σ`. [`integrate::kick_drift`](super::integrate::kick_drift) asks it
/// of every sphere after its drift ([`Decide`]); the WGSL copy is `integrate.wgsl`'s function of
/// the same name.
///
/// Two spheres a, b out of the list were more than `r_a + r_b + σ_a + σ_b` apart at the
/// build, so while neither exceeds its σ their gap cannot close within the step.
#[inline(always)]
pub fn needs_rebuild<R: Real>(
    x: R::V3,
    x_build: R::V3,
    velocity: Option<R::V3>,
    dt: R,
    sweep: R,
    pbox: &PeriodicBox<R>,
) -> bool {
    // A sphere wrapped through a periodic face has moved by its minimum image.
    let d = minimum_image::<R>(x - x_build, pbox);
    match velocity {
        None => R::norm2(d) > sweep * sweep,
        Some(v) => R::norm2(d).sqrt() + R::norm2(v).sqrt() * dt > sweep,
    }
}

/// What the list's rebuild decision reads in [`kick_drift`](super::integrate::kick_drift):
/// every sphere's position at the last build (m) and sweep (m), and whether the step's own
/// travel counts ([`needs_rebuild`]).
#[derive(Clone, Copy, Debug)]
pub struct Decide<'a, R: Real> {
    /// Positions at the last build, m (sorted order, unchanged since).
    pub x_build: &'a [R::V3],
    /// Sweeps σ of the last build, m.
    pub sweep: &'a [R],
    /// The impulse model: `|v| dt` counts.
    pub travel: bool,
}

impl<'a, R: Real> Decide<'a, R> {
    /// The decision for `n` spheres from `list`, or `None` when the list must be rebuilt
    /// whatever the spheres did: no skin (`skin` ≤ 0, a rebuild in every step), or no build
    /// of these `n` spheres yet.
    pub fn of(list: &'a NeighbourList<R>, n: usize, skin: R, travel: bool) -> Option<Self> {
        (skin > R::zero() && list.x_build.len() == n && list.sweep.len() == n).then_some(Self {
            x_build: &list.x_build,
            sweep: &list.sweep,
            travel,
        })
    }
}

/// Largest factor by which a large sphere's skin exceeds the scene's ([`sphere_skin`]).
pub const LARGE_SKIN_LIMIT: f64 = 8.0;

/// The skin of a sphere of radius `r` (m): the scene's `skin` (m), scaled by `r / r_small_max`
/// for a large sphere, at most [`LARGE_SKIN_LIMIT`] times. A large sphere's pairs lie on a
/// shell of its area, so a thicker shell costs few entries, and lets a fast large sphere (a
/// projectile) travel several steps before its move alone rebuilds the whole list.
#[inline(always)]
pub fn sphere_skin<R: Real>(skin: R, r: R, small_radius_max: R) -> R {
    if r <= small_radius_max {
        skin
    } else {
        skin * (r / small_radius_max).min(R::of(LARGE_SKIN_LIMIT))
    }
}

/// Each sphere's sweep σ_i at a build, m, into `sweep`: half its skin ([`sphere_skin`] of
/// `radius`), plus (impulse model, with `velocity`) the step's travel `|v_i| dt`, so that a pair
/// that can meet within the step is in reach. The soft laws pass an empty `velocity`.
pub fn sweeps<R: Real>(
    velocity: &[R::V3],
    radius: &[R],
    small_radius_max: R,
    dt: R,
    skin: R,
    sweep: &mut Vec<R>,
) {
    let half = |r: R| sphere_skin(skin, r, small_radius_max) * R::of(0.5);
    sweep.clear();
    if velocity.is_empty() {
        sweep.par_extend(radius.par_iter().map(|&r| half(r)));
    } else {
        sweep.par_extend(
            velocity
                .par_iter()
                .zip(radius.par_iter())
                .map(|(&v, &r)| half(r) + R::norm2(v).sqrt() * dt),
        );
    }
}

/// Resizes `v` to `len`; when it must grow, reserves twice `len` and [`HEADROOM`] more, so that
/// a list that grows a little from build to build does not allocate in the step.
pub fn resize_with_headroom<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    reserve_headroom(v, len);
    v.resize(len, value);
}

/// Reserves room in `v` for `len` values as [`resize_with_headroom`] does.
pub fn reserve_headroom<T>(v: &mut Vec<T>, len: usize) {
    if len > v.capacity() {
        v.reserve_exact(2 * len + HEADROOM - v.len());
    }
}

/// Entries reserved beyond twice the need when a list array grows.
pub const HEADROOM: usize = 1024;

/// The neighbour list of the sorted spheres, with its friction history.
#[derive(Clone, Debug, Default)]
pub struct NeighbourList<R: Real> {
    /// First entry of each sorted sphere (`n + 1`; the last is the entry count).
    pub start: Vec<u32>,
    /// Sorted index of each entry's partner.
    pub partner: Vec<u32>,
    /// Each entry's link: [`OWNED`] when its sphere has the lower id of the pair, or'd with
    /// the index of the mirror entry (the partner's entry for this sphere) or [`NO_MIRROR`].
    pub link: Vec<u32>,
    /// The entries linked [`OWNED`], as `[sphere, entry]`, in entry order: the pairs to
    /// evaluate, without a branch on the link per entry. A pair's results are stored once, at
    /// its index in this list.
    pub owned: Vec<[u32; 2]>,
    /// Each entry's pair: the index in [`NeighbourList::owned`] of the pair's owned entry (its
    /// own, or its mirror's), or [`NO_PAIR`] for an entry whose partner does not list the
    /// sphere back.
    pub pair: Vec<u32>,
    /// First [`NeighbourList::owned`] item of each block of [`CHUNK`] spheres (blocks + 1).
    pub owned_block: Vec<u32>,
    /// Input id of each entry's partner (with friction history only).
    pub partner_id: Vec<u32>,
    /// What each entry's contact keeps: ξ and δ̇⁻ (with contact history only).
    pub kept: Vec<ContactHistory<R>>,
    /// The same of each sphere against each wall (`n × walls`, with contact history only).
    pub wall_kept: Vec<ContactHistory<R>>,
    /// Each sphere's walls in reach at the last build ([`walls_in_reach`], bit w for wall w),
    /// or empty: every wall is then in reach (more than 64 walls, no walls, or a list restored
    /// or replaced since its build).
    pub wall_reach: Vec<u64>,
    /// Positions at the last build, m (sorted order).
    pub x_build: Vec<R::V3>,
    /// Each sphere's sweep σ at the last build, m ([`sweeps`]): pairs within
    /// `r_a + r_b + σ_a + σ_b` are listed.
    pub sweep: Vec<R>,
    /// Builds since set-up (the set-up's own not counted).
    pub rebuilds: u64,
    // Scratch reused by every build: per-sphere counts, each block's rows, the prefix sum's
    // block sums, and the old list's rows and history while it is carried over.
    count: Vec<u32>,
    block_rows: Vec<Vec<u32>>,
    block_candidates: Vec<CellCandidates<R>>,
    swept: Vec<Ball<R>>,
    block_sums: Vec<u32>,
    old_start: Vec<u32>,
    old_partner_id: Vec<u32>,
    old_kept: Vec<ContactHistory<R>>,
    spare_wall: Vec<ContactHistory<R>>,
}

/// Calls `f(b, entries, more)` for every block b of [`CHUNK`] spheres (of `start.len() − 1`)
/// with the block's entries of two entry arrays (`start[b CHUNK]..start[(b + 1) CHUNK]`;
/// either may be empty, and then every block gets an empty slice of it), in parallel. The blocks
/// are split off recursively with `rayon::join`, so nothing is allocated.
pub fn for_each_block<T: Send, U: Send>(
    start: &[u32],
    entries: &mut [T],
    more: &mut [U],
    f: &(impl Fn(usize, &mut [T], &mut [U]) + Sync),
) {
    fn split<T: Send, U: Send>(
        start: &[u32],
        lo: usize,
        hi: usize,
        entries: &mut [T],
        more: &mut [U],
        f: &(impl Fn(usize, &mut [T], &mut [U]) + Sync),
    ) {
        let n = start.len() - 1;
        if hi - lo <= 1 {
            if lo * CHUNK < n {
                f(lo, entries, more);
            }
            return;
        }
        let mid = (lo + hi) / 2;
        let at = (start[(mid * CHUNK).min(n)] - start[(lo * CHUNK).min(n)]) as usize;
        let (head, tail) = entries.split_at_mut(if entries.is_empty() { 0 } else { at });
        let (more_head, more_tail) = more.split_at_mut(if more.is_empty() { 0 } else { at });
        rayon::join(
            || split(start, lo, mid, head, more_head, f),
            || split(start, mid, hi, tail, more_tail, f),
        );
    }
    let n = start.len() - 1;
    split(start, 0, n.div_ceil(CHUNK).max(1), entries, more, f);
}

/// Flag of [`NeighbourList::link`]: the entry's sphere has the lower id of the pair and
/// evaluates it.
pub const OWNED: u32 = 0x8000_0000;
/// Low bits of a [`NeighbourList::link`] whose partner does not list the sphere back: only a
/// pair out of reach (hash aliasing), which contributes nothing.
pub const NO_MIRROR: u32 = 0x7fff_ffff;

/// [`NeighbourList::pair`] of an entry without a pair: neither owned nor mirrored, a pair out
/// of reach (hash aliasing), which contributes nothing.
pub const NO_PAIR: u32 = u32::MAX;

/// The mirror entry of a [`NeighbourList::link`] (the partner's entry for the sphere), or
/// `None`.
#[inline(always)]
pub fn mirror(link: u32) -> Option<usize> {
    let m = link & NO_MIRROR;
    (m != NO_MIRROR).then_some(m as usize)
}

/// One block's scratch for the list build: the candidates of one cell's spheres (sorted index,
/// and centre with radius plus sweep).
#[derive(Clone, Debug, Default)]
struct CellCandidates<R: Real> {
    index: Vec<u32>,
    swept: Vec<Ball<R>>,
}

/// The rows of a [`NeighbourList`] that the pair passes read (its fields of the same names).
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    /// First entry of each sorted sphere (`n + 1`).
    pub start: &'a [u32],
    /// Sorted index of each entry's partner.
    pub partner: &'a [u32],
    /// Each entry's [`OWNED`] flag and mirror.
    pub link: &'a [u32],
    /// `[sphere, entry]` of each owned entry, in entry order.
    pub owned: &'a [[u32; 2]],
    /// First owned item of each block of [`CHUNK`] spheres.
    pub owned_block: &'a [u32],
    /// Each entry's pair (index in `owned`), or [`NO_PAIR`].
    pub pair: &'a [u32],
}

/// The [`Rows`] of a list, borrowed field by field so that the history beside them can be
/// borrowed mutably at the same time ([`NeighbourList::rows_and_history`]).
macro_rules! rows_of {
    ($list:expr) => {
        Rows {
            start: &$list.start,
            partner: &$list.partner,
            link: &$list.link,
            owned: &$list.owned,
            owned_block: &$list.owned_block,
            pair: &$list.pair,
        }
    };
}

impl<R: Real> NeighbourList<R> {
    /// The rows, for the pair passes.
    pub fn rows(&self) -> Rows<'_> {
        rows_of!(self)
    }

    /// The rows, what each entry's contact and each sphere's wall contacts keep, to rewrite
    /// ([`NeighbourList::kept`], [`NeighbourList::wall_kept`]), and the walls in reach
    /// ([`NeighbourList::wall_reach`]).
    #[allow(clippy::type_complexity)]
    pub fn rows_and_history(
        &mut self,
    ) -> (
        Rows<'_>,
        &mut [ContactHistory<R>],
        &mut [ContactHistory<R>],
        &[u64],
    ) {
        (
            rows_of!(self),
            &mut self.kept,
            &mut self.wall_kept,
            &self.wall_reach,
        )
    }

    /// Recomputes [`NeighbourList::link`] from the rows and the spheres' input `ids` (sorted
    /// order), and from it [`NeighbourList::owned`], [`NeighbourList::owned_block`] and
    /// [`NeighbourList::pair`]: each pair is evaluated once, by its lower-id sphere, and its
    /// result stored once, at its index in `owned`, which both its entries name.
    pub fn relink(&mut self, ids: &[u32]) {
        let (start, partner) = (&self.start, &self.partner);
        let n = start.len().saturating_sub(1);
        resize_with_headroom(&mut self.link, partner.len(), 0);
        if n == 0 {
            return self.index_pairs();
        }
        // The owned entries search their partner's row for their mirror; the other entries
        // learn theirs below from the owned one (rows hold a partner at most once, so the two
        // entries of a pair find each other or neither has a mirror).
        for_each_block(start, &mut self.link, &mut [(); 0], &|b, links, _| {
            let base = start[b * CHUNK] as usize;
            for i in b * CHUNK..((b + 1) * CHUNK).min(n) {
                for e in start[i] as usize..start[i + 1] as usize {
                    let j = partner[e] as usize;
                    links[e - base] = if ids[i] < ids[j] {
                        let m = (start[j] as usize..start[j + 1] as usize)
                            .find(|&m| partner[m] as usize == i)
                            .map_or(NO_MIRROR, |m| m as u32);
                        OWNED | m
                    } else {
                        NO_MIRROR
                    };
                }
            }
        });
        self.index_pairs();
    }

    /// [`NeighbourList::owned`], [`NeighbourList::owned_block`] and [`NeighbourList::pair`] from
    /// the rows and [`NeighbourList::link`], whose entries without [`OWNED`] it points at their
    /// owned mirror (as the GPU's `relink` leaves them; a link already so is kept).
    pub fn index_pairs(&mut self) {
        let (start, partner) = (&self.start, &self.partner);
        let n = start.len().saturating_sub(1);
        self.pair.clear();
        resize_with_headroom(&mut self.pair, partner.len(), NO_PAIR);
        // One sequential pass over the links, cheap beside the search of `relink`.
        self.owned.clear();
        reserve_headroom(&mut self.owned, partner.len() / 2 + 1);
        self.owned_block.clear();
        reserve_headroom(&mut self.owned_block, n.div_ceil(CHUNK) + 1);
        for i in 0..n {
            if i % CHUNK == 0 {
                self.owned_block.push(self.owned.len() as u32);
            }
            for e in start[i]..start[i + 1] {
                let l = self.link[e as usize];
                if l & OWNED != 0 {
                    let k = self.owned.len() as u32;
                    self.pair[e as usize] = k;
                    if let Some(m) = mirror(l) {
                        self.pair[m] = k;
                        self.link[m] = e;
                    }
                    self.owned.push([i as u32, e]);
                }
            }
        }
        self.owned_block.push(self.owned.len() as u32);
    }

    /// Entries in the list.
    pub fn len(&self) -> usize {
        self.partner.len()
    }

    /// True when the list holds no pair.
    pub fn is_empty(&self) -> bool {
        self.partner.is_empty()
    }

    /// Rebuilds the list from a fresh binning (`bodies`, `balls` and input `ids` in the new
    /// sorted order, with their cells, `boxes`, `cell_start`, `counts` as for `collide::collide`), with
    /// cells of edge at least `2 (r_max + σ_max)` so that the 27 neighbour cells hold every
    /// partner in reach: the pairs within `r_a + r_b + σ_a + σ_b` (`sweep`, [`sweeps`]).
    ///
    /// `history` keeps friction history: `perm[i]` is the old sorted index of new sphere i (the
    /// binning's permutation, of an old list with as many spheres or, after a removal's
    /// binning, more; `None` at set-up, when there is no history yet), and every
    /// entry's ξ is carried from the old entry of the same pair, or starts at zero. `planes`
    /// are the walls: each sphere's [`walls_in_reach`] go to [`NeighbourList::wall_reach`], and
    /// what it keeps of a wall out of reach is cleared, as the contact pass would clear it at
    /// the next step (the sphere is then apart from that wall).
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &mut self,
        bodies: &[Body<R>],
        balls: &[Ball<R>],
        ids: &[u32],
        boxes: &[CellBox],
        cell_start: &[u32],
        counts: &[u32],
        params: &CollideParams<R>,
        sweep: &[R],
        history: bool,
        planes: &[PlaneBody<R>],
        perm: Option<&[u32]>,
    ) {
        let n = bodies.len();
        let walls = planes.len();
        // One pass: each block of spheres lists its rows into its own scratch vector (kept
        // between builds), then the rows are counted, summed and copied into place.
        let blocks = n.div_ceil(CHUNK);
        self.block_rows.resize_with(blocks, Vec::new);
        self.block_candidates.resize_with(blocks, Default::default);
        // Each sphere's centre with its radius plus sweep, the ball the distance test uses.
        self.swept.clear();
        self.swept.par_extend(
            balls
                .par_iter()
                .zip(sweep.par_iter())
                .map(|(b, &s)| Ball { x: b.x, r: b.r + s }),
        );
        let swept = &self.swept;
        self.count.resize(n + 1, 0);
        let n_small = params.n_small as usize;
        self.count[..n]
            .par_chunks_mut(CHUNK)
            .zip(self.block_rows.par_iter_mut())
            .zip(self.block_candidates.par_iter_mut())
            .enumerate()
            .for_each(|(b, ((count, rows), scratch))| {
                let CellCandidates {
                    index: cand,
                    swept: reach,
                } = scratch;
                rows.clear();
                let mut k = 0;
                while k < count.len() {
                    let i = b * CHUNK + k;
                    // A periodic scene tests each candidate's nearest image, one by one.
                    if i >= n_small || params.grid.any() {
                        let (me, s_i) = (balls[i], sweep[i]);
                        let before = rows.len();
                        for_each_candidate(i, bodies, boxes, cell_start, counts, params, |j, _| {
                            let other = balls[j];
                            let d = params.separation(me.x, other.x);
                            if separation_in_reach(d, me.r + s_i, other.r + sweep[j], R::zero()) {
                                rows.push(j as u32);
                            }
                        });
                        count[k] = (rows.len() - before) as u32;
                        k += 1;
                        continue;
                    }
                    // The small spheres of one cell lie together and share their candidates:
                    // gather those once (index, centre and radius plus sweep), then filter
                    // them for each sphere without a branch per candidate. The rows come out
                    // as `for_each_candidate` orders them.
                    let cell = bodies[i].cell;
                    let mut end = k + 1;
                    while end < count.len()
                        && b * CHUNK + end < n_small
                        && bodies[b * CHUNK + end].cell == cell
                    {
                        end += 1;
                    }
                    cand.clear();
                    reach.clear();
                    // Room for far more than a cell's usual candidates, so that a build in the
                    // step seldom allocates.
                    reserve_headroom(cand, HEADROOM);
                    reserve_headroom(reach, HEADROOM);
                    for_each_neighbour_bucket(cell, cell_start, counts, params, |bucket| {
                        // Two or three spheres a bucket: pushed one by one, not copied.
                        for j in bucket {
                            cand.push(j as u32);
                            reach.push(swept[j]);
                        }
                    });
                    for_each_large_over(cell, boxes, params, |j| {
                        cand.push(j as u32);
                        reach.push(swept[j]);
                    });
                    for (kk, c) in count.iter_mut().enumerate().take(end).skip(k) {
                        let i = b * CHUNK + kk;
                        let (x, r) = (balls[i].x, balls[i].r + sweep[i]);
                        let before = rows.len();
                        R::reach_select(x, r, reach, cand, i as u32, rows);
                        *c = (rows.len() - before) as u32;
                    }
                    k = end;
                }
                // Room to grow by the next builds, so that they need not allocate: twice the
                // rows, renewed once they fill two thirds of it (renewing whenever the rows
                // outgrew half of it reallocated a growing list every few builds).
                if 2 * rows.capacity() < 3 * rows.len() {
                    rows.reserve_exact(rows.len() + HEADROOM);
                }
            });
        self.count[n] = 0;
        std::mem::swap(&mut self.start, &mut self.old_start);
        self.start.resize(n + 1, 0);
        // The next build's rows go into the other buffer: sized now, at set-up's build, not in
        // the step of the first rebuild.
        self.old_start
            .reserve((n + 1).saturating_sub(self.old_start.len()));
        let total = prefix_sum(&self.count, &mut self.start, &mut self.block_sums) as usize;
        assert!(
            total < NO_MIRROR as usize,
            "the neighbour list has {total} entries, more than its {NO_MIRROR} limit"
        );
        resize_with_headroom(&mut self.partner, total, 0);
        let start = &self.start;
        let block_rows = &self.block_rows;
        for_each_block(start, &mut self.partner, &mut [(); 0], &|b, entries, _| {
            entries.copy_from_slice(&block_rows[b]);
        });
        self.relink(ids);
        self.x_build.clear();
        self.x_build.par_extend(bodies.par_iter().map(|b| b.x));
        self.sweep.clear();
        self.sweep.extend_from_slice(sweep);
        self.wall_reach.clear();
        if (1..=64).contains(&walls) {
            self.wall_reach.par_extend(
                bodies
                    .par_iter()
                    .zip(sweep.par_iter())
                    .map(|(me, &s)| walls_in_reach(me, s, planes)),
            );
        }
        if !history {
            self.partner_id.clear();
            self.kept.clear();
            self.wall_kept.clear();
            return;
        }
        std::mem::swap(&mut self.partner_id, &mut self.old_partner_id);
        std::mem::swap(&mut self.kept, &mut self.old_kept);
        self.partner_id.clear();
        reserve_headroom(&mut self.partner_id, total);
        self.partner_id
            .par_extend(self.partner.par_iter().map(|&j| ids[j as usize]));
        resize_with_headroom(&mut self.kept, total, ContactHistory::default());
        let start = &self.start;
        match perm {
            // The old list has as many spheres as the binning, or, after spheres were taken
            // out or put in inside it (`crate::removal`), more or fewer: an old index past it
            // is a new sphere's, whose old row is empty.
            Some(perm) if !self.old_start.is_empty() => {
                let old_n = self.old_start.len() - 1;
                let (old_start, old_id, old_kept) =
                    (&self.old_start, &self.old_partner_id, &self.old_kept);
                let ids = &self.partner_id;
                for_each_block(start, &mut self.kept, &mut [(); 0], &|b, entries, _| {
                    let base = start[b * CHUNK] as usize;
                    for i in b * CHUNK..((b + 1) * CHUNK).min(n) {
                        let o = perm[i] as usize;
                        let old = if o < old_n {
                            old_start[o] as usize..old_start[o + 1] as usize
                        } else {
                            0..0
                        };
                        for e in start[i] as usize..start[i + 1] as usize {
                            entries[e - base] = old
                                .clone()
                                .find(|&m| old_id[m] == ids[e])
                                .map_or(ContactHistory::default(), |m| old_kept[m]);
                        }
                    }
                });
                // An insertion inside the binning appended the new spheres' empty rows.
                if walls > 0 && self.wall_kept.len() >= old_n * walls {
                    self.spare_wall.resize(n * walls, ContactHistory::default());
                    gather_rows(&self.wall_kept, perm, walls, &mut self.spare_wall);
                    std::mem::swap(&mut self.wall_kept, &mut self.spare_wall);
                } else {
                    self.wall_kept.clear();
                    self.wall_kept.resize(n * walls, ContactHistory::default());
                }
            }
            _ => {
                self.kept.fill(ContactHistory::default());
                self.wall_kept.clear();
                self.wall_kept.resize(n * walls, ContactHistory::default());
            }
        }
        if !self.wall_reach.is_empty() {
            self.wall_kept
                .par_chunks_mut(walls)
                .zip(self.wall_reach.par_iter())
                .for_each(|(kept, &reach)| {
                    for (w, kept) in kept.iter_mut().enumerate() {
                        if (reach >> w) & 1 == 0 {
                            *kept = ContactHistory::default();
                        }
                    }
                });
        }
    }
}

/// The walls a sphere `me` can touch before the list's next build, bit w for `planes[w]`: its
/// gap to the wall ([`wall_gap`]) at the build is at most twice its sweep σ, and a margin of
/// 10⁻⁵ of the gap plus radius for the gap's rounding (a NaN gap counts as in reach). A sphere
/// moves less than σ between builds ([`needs_rebuild`]) and walls do not move, so a wall out of
/// reach stays farther than σ, and [`sum_pairs`](super::collide::sum_pairs) may skip it: it
/// would add nothing. At most 64 walls.
#[inline(always)]
pub fn walls_in_reach<R: Real>(me: &Body<R>, sweep: R, planes: &[PlaneBody<R>]) -> u64 {
    debug_assert!(planes.len() <= 64);
    let mut reach = 0;
    for (w, plane) in planes.iter().enumerate() {
        let (gap, _) = wall_gap(me.x, me.r, plane);
        let margin = R::of(2.0) * sweep + R::of(1e-5) * (gap.abs() + me.r);
        let apart = gap > margin;
        reach |= u64::from(!apart) << w;
    }
    reach
}
