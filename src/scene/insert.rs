//! Insertion regions (`[[insert]]`): where spheres enter an open system, and how they are placed.

use super::file::{Materials, resolve};
use super::{Periodic, SimParams, Sphere, Surface, sphere_volume};
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

/// A uniform draw in `[lo, hi)`.
fn uniform(rng: &mut Pcg64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.random::<f64>()
}

/// Steps between two insertion passes when a table gives no `every`.
pub const DEFAULT_INSERT_EVERY: u64 = 1000;

/// Random positions tried for one new sphere before it counts as not placed.
pub const INSERT_ATTEMPTS: u32 = 100;

/// Spheres in a row that find no place before a pass gives up on the rest (counted as not
/// placed): the region is full.
pub const GIVE_UP_AFTER: u64 = 20;

/// Where an [`Insert`] places spheres: each new sphere lies wholly inside it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum InsertRegion {
    /// An axis-aligned box, m.
    Box {
        /// Lower corner, m.
        min: DVec3,
        /// Upper corner, m (above `min` on every axis).
        max: DVec3,
    },
    /// A cylinder along a coordinate axis, m.
    Cylinder {
        /// Centre of its lower disc, m.
        base: DVec3,
        /// Its axis: 0 (x), 1 (y) or 2 (z).
        axis: usize,
        /// Radius, m (> 0).
        radius: f64,
        /// Length along the axis, m (> 0).
        height: f64,
    },
}

impl InsertRegion {
    /// A uniformly random centre for a sphere of radius `r` wholly inside the region, or `None`
    /// when the region is too small for it.
    fn sample(&self, r: f64, rng: &mut Pcg64) -> Option<DVec3> {
        match *self {
            InsertRegion::Box { min, max } => {
                let (lo, hi) = (min + DVec3::splat(r), max - DVec3::splat(r));
                if !lo.cmplt(hi).all() {
                    return None;
                }
                Some(DVec3::new(
                    uniform(rng, lo.x, hi.x),
                    uniform(rng, lo.y, hi.y),
                    uniform(rng, lo.z, hi.z),
                ))
            }
            InsertRegion::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let (rr, h) = (radius - r, height - 2.0 * r);
                if rr <= 0.0 || h <= 0.0 {
                    return None;
                }
                // Uniform over the disc: the radius as the square root of a uniform draw.
                let rho = rr * rng.random::<f64>().sqrt();
                let phi = uniform(rng, 0.0, std::f64::consts::TAU);
                let along = r + uniform(rng, 0.0, h);
                let (u, v) = (rho * phi.cos(), rho * phi.sin());
                let mut p = base;
                p[axis] += along;
                p[(axis + 1) % 3] += u;
                p[(axis + 2) % 3] += v;
                Some(p)
            }
        }
    }

    /// Corners of the region's bounding box, m.
    fn bounds(&self) -> (DVec3, DVec3) {
        match *self {
            InsertRegion::Box { min, max } => (min, max),
            InsertRegion::Cylinder {
                base,
                axis,
                radius,
                height,
            } => {
                let mut lo = base - DVec3::splat(radius);
                let mut hi = base + DVec3::splat(radius);
                lo[axis] = base[axis];
                hi[axis] = base[axis] + height;
                (lo, hi)
            }
        }
    }
}

/// The radii of the spheres an [`Insert`] makes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum InsertSizes {
    /// One radius, m.
    Fixed(f64),
    /// Uniform between two radii, m.
    Uniform(f64, f64),
    /// Radii (m) drawn with the given weights (not necessarily summing to 1).
    List {
        /// The radii, m.
        radii: Vec<f64>,
        /// Their weights (≥ 0, not all zero).
        weights: Vec<f64>,
    },
}

impl InsertSizes {
    fn draw(&self, rng: &mut Pcg64) -> f64 {
        match self {
            InsertSizes::Fixed(r) => *r,
            InsertSizes::Uniform(a, b) => uniform(rng, *a, *b),
            InsertSizes::List { radii, weights } => {
                let total: f64 = weights.iter().sum();
                let mut x = uniform(rng, 0.0, total);
                for (r, w) in radii.iter().zip(weights) {
                    if x < *w {
                        return *r;
                    }
                    x -= w;
                }
                *radii.last().expect("checked: not empty")
            }
        }
    }

    /// The smallest radius, m.
    pub fn smallest(&self) -> f64 {
        match self {
            InsertSizes::Fixed(r) => *r,
            InsertSizes::Uniform(a, b) => a.min(*b),
            InsertSizes::List { radii, .. } => radii.iter().copied().fold(f64::INFINITY, f64::min),
        }
    }

    /// The largest radius, m.
    pub fn largest(&self) -> f64 {
        match self {
            InsertSizes::Fixed(r) => *r,
            InsertSizes::Uniform(a, b) => a.max(*b),
            InsertSizes::List { radii, .. } => radii.iter().copied().fold(0.0, f64::max),
        }
    }
}

/// How many spheres an [`Insert`] makes at each pass.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum InsertAmount {
    /// This many a pass.
    Count(u64),
    /// Spheres a second: `rate × every × dt` a pass, fractions carried to the next.
    Rate(f64),
    /// Kilograms a second: spheres until their mass reaches `rate × every × dt` a pass, the
    /// excess or shortfall carried to the next.
    MassRate(f64),
}

/// An insertion (`[[insert]]`): every `every` steps, new spheres are placed at random in
/// `region`, each where it overlaps no sphere (old or new), no plane and no container wall;
/// a sphere that finds no such place in [`INSERT_ATTEMPTS`] tries is counted as not placed.
/// Placement is deterministic: pass `k` draws from a Pcg64 generator seeded with `seed` and
/// `k`, and only reads the state at the pass, so the CPU and lavapipe insert the same spheres.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Insert {
    /// Where the spheres go.
    pub region: InsertRegion,
    /// Their radii.
    pub sizes: InsertSizes,
    /// How many a pass.
    pub amount: InsertAmount,
    /// Steps between two passes (≥ 1).
    pub every: u64,
    /// The step after which the first pass runs (0: before the first step); the others follow
    /// every `every` steps (default `every`).
    pub start: u64,
    /// Most spheres this insertion makes over the whole run (`None`: no limit).
    pub total: Option<u64>,
    /// Velocity of each new sphere, m/s.
    pub velocity: DVec3,
    /// Density, kg/m³ (> 0): a new sphere's mass is `density × 4/3 π r³`.
    pub density: f64,
    /// Restitution coefficient of the new spheres, in [0, 1].
    pub restitution: f64,
    /// Their material (index into `Scene::materials`), if any.
    pub material: Option<usize>,
    /// Their elastic constants and friction.
    pub surface: Surface,
    /// Seed of the placement's generator.
    pub seed: u64,
}

/// What an insertion's new spheres must not touch.
#[derive(Clone, Copy)]
pub(crate) struct Around<'a> {
    /// The spheres present: centres and radii, m.
    pub spheres: (&'a [DVec3], &'a [f64]),
    /// Planes: a point and the unit normal, m.
    pub planes: &'a [(DVec3, DVec3)],
    /// Sphere containers: centre and radius, m.
    pub containers: &'a [(DVec3, f64)],
    /// The periodic box: a new sphere clears every image of the others, and its centre is
    /// wrapped into the box with the box lengths it moved as its image.
    pub periodic: &'a Periodic,
}

/// What one insertion pass made: the spheres and how many could not be placed.
pub(crate) struct Placed {
    pub spheres: Vec<Sphere>,
    pub failed: u64,
}

impl Insert {
    /// The number (1, 2, …) of the pass due after step `done` (0: before the first step), if
    /// one is: at `start`, `start + every`, …. With the default `start` the pass after step
    /// `k every` is pass `k`.
    pub(crate) fn pass_at(&self, done: u64) -> Option<u64> {
        (done >= self.start && (done - self.start).is_multiple_of(self.every))
            .then(|| (done - self.start) / self.every + 1)
    }

    /// The first step after `done` that ends with a pass.
    pub(crate) fn next_pass_after(&self, done: u64) -> u64 {
        if done < self.start {
            self.start
        } else {
            ((done - self.start) / self.every + 1)
                .saturating_mul(self.every)
                .saturating_add(self.start)
        }
    }

    /// Why the insertion is unusable, if it is.
    pub fn problem(&self) -> Option<String> {
        let finite = |name: &str, v: DVec3| {
            (!v.is_finite()).then(|| format!("{name} must be finite, got {v:?}"))
        };
        if self.every == 0 {
            return Some("every must be at least 1 step, got 0".into());
        }
        if let Some(p) = finite("velocity", self.velocity) {
            return Some(p);
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Some(format!(
                "restitution must be in [0, 1], got {}",
                self.restitution
            ));
        }
        if self.total == Some(0) {
            return Some("total must be at least 1 sphere, got 0".into());
        }
        if !(self.density > 0.0 && self.density.is_finite()) {
            return Some(format!(
                "density must be positive and finite (give `density`, or a `material` with \
                 one), got {}",
                self.density
            ));
        }
        let region = match self.region {
            InsertRegion::Box { min, max } => finite("min", min)
                .or_else(|| finite("max", max))
                .or_else(|| {
                    (!min.cmplt(max).all()).then(|| {
                        format!("min must be below max on every axis, got min {min}, max {max}")
                    })
                }),
            InsertRegion::Cylinder {
                base,
                axis,
                radius,
                height,
            } => finite("base", base)
                .or_else(|| (axis > 2).then(|| format!("axis must be 0, 1 or 2, got {axis}")))
                .or_else(|| {
                    (!(radius > 0.0 && radius.is_finite())).then(|| {
                        format!("cylinder_radius must be positive and finite, got {radius}")
                    })
                })
                .or_else(|| {
                    (!(height > 0.0 && height.is_finite()))
                        .then(|| format!("height must be positive and finite, got {height}"))
                }),
        };
        if region.is_some() {
            return region;
        }
        let sizes = match &self.sizes {
            InsertSizes::Fixed(r) => (!(*r > 0.0 && r.is_finite()))
                .then(|| format!("radius must be positive and finite, got {r}")),
            InsertSizes::Uniform(a, b) => (!(*a > 0.0 && a <= b && b.is_finite())).then(|| {
                format!("radius_range must be [smallest, largest] with 0 < smallest ≤ largest, got [{a}, {b}]")
            }),
            InsertSizes::List { radii, weights } => {
                if radii.is_empty() || radii.len() != weights.len() {
                    Some(format!(
                        "radii and weights must be lists of the same positive length, got {} \
                         radii and {} weights",
                        radii.len(),
                        weights.len()
                    ))
                } else if let Some(r) = radii.iter().find(|r| !(**r > 0.0 && r.is_finite())) {
                    Some(format!("every radius must be positive and finite, got {r}"))
                } else if weights.iter().any(|w| !(*w >= 0.0 && w.is_finite()))
                    || weights.iter().sum::<f64>() <= 0.0
                {
                    Some(format!(
                        "weights must be finite, non-negative and not all zero, got {weights:?}"
                    ))
                } else {
                    None
                }
            }
        };
        if sizes.is_some() {
            return sizes;
        }
        let fits = self
            .region
            .sample(self.sizes.largest(), &mut Pcg64::seed_from_u64(0));
        if fits.is_none() {
            return Some(format!(
                "the region is too small for a sphere of radius {}",
                self.sizes.largest()
            ));
        }
        match self.amount {
            InsertAmount::Count(0) => Some("count must be at least 1".into()),
            InsertAmount::Rate(r) | InsertAmount::MassRate(r) if !(r > 0.0 && r.is_finite()) => {
                Some(format!("rate must be positive and finite, got {r}"))
            }
            _ => None,
        }
    }

    /// The spheres pass `pass` (1, 2, … after steps `start`, `start + every`, …) of the
    /// scene's insertion `index` makes, at `dt` s a step, among `around` (what new spheres must
    /// not touch), given `owed`, the fraction of a sphere (or of a kilogram) carried from the
    /// last pass, updated here. `made` is how many this insertion made before; at most
    /// `total − made` more are made.
    pub(crate) fn place(
        &self,
        (index, pass, dt): (usize, u64, f64),
        around: &Around,
        owed: &mut f64,
        made: u64,
    ) -> Placed {
        let Around {
            spheres: existing,
            planes,
            containers,
            periodic,
        } = *around;
        // Odd multipliers keep (seed, pass, index) apart: two insertions of one seed differ.
        let mut rng = Pcg64::seed_from_u64(
            self.seed
                ^ pass.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                ^ (index as u64).wrapping_mul(0xd1b5_4a32_d192_ed03),
        );
        let span = self.every as f64 * dt;
        let left = self.total.map_or(u64::MAX, |t| t.saturating_sub(made));
        let (lo, hi) = self.region.bounds();
        let reach = 2.0 * self.sizes.largest();
        // The spheres near the region, in a grid of cells as wide as the largest new diameter.
        let cell = reach.max(f64::MIN_POSITIVE);
        // What enters the grid lies within `r + reach ≤ cell + reach` of the region.
        let mut grid = Cells::new(lo, hi, cell, cell + reach);
        let (xs, rs) = existing;
        // Spheres larger than a cell (obstacles) are tested one by one: in the grid they would
        // widen every search.
        let mut big: Vec<(DVec3, f64)> = Vec::new();
        // The largest radius in the grid: a search reaches `r + grid_max` from a new centre.
        let mut grid_max = self.sizes.largest();
        for (&x, &r) in xs.iter().zip(rs) {
            let m = DVec3::splat(r + reach);
            for y in images(x, periodic, lo - m, hi + m) {
                if r > cell {
                    big.push((y, r));
                } else {
                    grid_max = grid_max.max(r);
                    grid.push(y, r);
                }
            }
        }
        let mut spheres = Vec::new();
        let mut failed = 0;
        let mut mass_due = 0.0;
        let mut count_due = 0u64;
        match self.amount {
            InsertAmount::Count(c) => count_due = c,
            InsertAmount::Rate(r) => {
                let due = *owed + r * span;
                count_due = due.floor() as u64;
                *owed = due - count_due as f64;
            }
            InsertAmount::MassRate(m) => mass_due = *owed + m * span,
        }
        let mut made_mass = 0.0;
        let mut streak = 0;
        loop {
            let more = match self.amount {
                InsertAmount::MassRate(_) => made_mass < mass_due,
                _ => (spheres.len() as u64 + failed) < count_due,
            };
            if !more || spheres.len() as u64 >= left {
                break;
            }
            let r = self.sizes.draw(&mut rng);
            let mass = self.density * sphere_volume(r);
            let mut found = None;
            for _ in 0..INSERT_ATTEMPTS {
                let Some(x) = self.region.sample(r, &mut rng) else {
                    break;
                };
                if planes.iter().any(|&(p, n)| (x - p).dot(n) < r)
                    || containers.iter().any(|&(c, rc)| (x - c).length() > rc - r)
                {
                    continue;
                }
                if big.iter().any(|&(y, ry)| (x - y).length() < r + ry) {
                    continue;
                }
                // Cells within r + the grid's largest radius: one or two each way.
                let span = ((r + grid_max) / cell).ceil() as i32;
                if !grid.overlaps(x, r, span) {
                    found = Some(x);
                    break;
                }
            }
            match found {
                Some(x) => {
                    streak = 0;
                    let m = DVec3::splat(r + reach);
                    for y in images(x, periodic, lo - m, hi + m) {
                        grid.push(y, r);
                    }
                    made_mass += mass;
                    let (position, image) = wrapped(x, periodic);
                    spheres.push(Sphere {
                        position,
                        velocity: self.velocity,
                        angular_velocity: DVec3::ZERO,
                        radius: r,
                        mass,
                        restitution: self.restitution,
                        material: self.material,
                        fixed: false,
                        surface: self.surface,
                        image,
                    });
                }
                None => {
                    failed += 1;
                    streak += 1;
                    if matches!(self.amount, InsertAmount::MassRate(_)) {
                        // Counted as if placed, so that a full region does not loop forever.
                        made_mass += mass;
                    }
                    if streak == GIVE_UP_AFTER {
                        // The region is full: what is left of the pass is not placed either.
                        match self.amount {
                            InsertAmount::MassRate(_) => made_mass = mass_due,
                            _ => {
                                let placed = spheres.len() as u64;
                                failed += count_due
                                    .saturating_sub(placed + failed)
                                    .min(left.saturating_sub(placed));
                            }
                        }
                        break;
                    }
                }
            }
        }
        if let InsertAmount::MassRate(_) = self.amount {
            *owed = mass_due - made_mass;
        }
        Placed { spheres, failed }
    }
}

/// No sphere in a [`Cells`] cell.
const NO_SPHERE: u32 = u32::MAX;

/// Most cells a [`Cells`] keeps as a dense array (64 MiB of list heads); a larger box of cells
/// is kept in a hash map.
const DENSE_CELLS: f64 = (1u64 << 24) as f64;

/// Spheres (centre, radius; m) binned in cubic cells of edge `cell` over a box, each cell the
/// head of a linked list of its spheres: a dense array of heads where the box has at most
/// [`DENSE_CELLS`] cells, else a hash map of the occupied ones.
struct Cells {
    origin: DVec3,
    cell: f64,
    dims: glam::IVec3,
    dense: Vec<u32>,
    sparse: std::collections::HashMap<glam::IVec3, u32>,
    next: Vec<u32>,
    items: Vec<(DVec3, f64)>,
    /// Spheres whose cell fell outside the dense box (rounding at its edge): tested always.
    stray: Vec<u32>,
}

impl Cells {
    /// Cells over the box `[lo − margin, hi + margin]`, m.
    fn new(lo: DVec3, hi: DVec3, cell: f64, margin: f64) -> Self {
        let origin = lo - DVec3::splat(margin);
        let span = ((hi - lo + DVec3::splat(2.0 * margin)) / cell).ceil() + DVec3::ONE;
        let count = span.x * span.y * span.z;
        let dense = count.is_finite() && count <= DENSE_CELLS;
        Self {
            origin,
            cell,
            dims: if dense {
                span.as_ivec3()
            } else {
                glam::IVec3::ZERO
            },
            dense: if dense {
                vec![NO_SPHERE; count as usize]
            } else {
                Vec::new()
            },
            sparse: std::collections::HashMap::new(),
            next: Vec::new(),
            items: Vec::new(),
            stray: Vec::new(),
        }
    }

    /// The index of cell `k` in the dense array, if it is in the box.
    fn slot(&self, k: glam::IVec3) -> Option<usize> {
        let d = self.dims;
        (k.cmpge(glam::IVec3::ZERO).all() && k.cmplt(d).all())
            .then(|| (k.x as usize * d.y as usize + k.y as usize) * d.z as usize + k.z as usize)
    }

    fn key(&self, x: DVec3) -> glam::IVec3 {
        ((x - self.origin) / self.cell).floor().as_ivec3()
    }

    fn head(&self, k: glam::IVec3) -> u32 {
        if self.dense.is_empty() {
            self.sparse.get(&k).copied().unwrap_or(NO_SPHERE)
        } else {
            self.slot(k).map_or(NO_SPHERE, |s| self.dense[s])
        }
    }

    fn push(&mut self, x: DVec3, r: f64) {
        let i = self.items.len() as u32;
        self.items.push((x, r));
        let k = self.key(x);
        let head = if self.dense.is_empty() {
            Some(self.sparse.entry(k).or_insert(NO_SPHERE))
        } else {
            match self.slot(k) {
                Some(s) => Some(&mut self.dense[s]),
                None => None,
            }
        };
        match head {
            Some(h) => {
                self.next.push(*h);
                *h = i;
            }
            None => {
                self.next.push(NO_SPHERE);
                self.stray.push(i);
            }
        }
    }

    /// Whether a sphere of radius `r` at `x` overlaps one in the cells within `span` of its own.
    fn overlaps(&self, x: DVec3, r: f64, span: i32) -> bool {
        let hits = |i: u32| {
            let (y, ry) = self.items[i as usize];
            (x - y).length() < r + ry
        };
        if self.stray.iter().any(|&i| hits(i)) {
            return true;
        }
        let k = self.key(x);
        for a in -span..=span {
            for b in -span..=span {
                for c in -span..=span {
                    let mut i = self.head(k + glam::IVec3::new(a, b, c));
                    while i != NO_SPHERE {
                        if hits(i) {
                            return true;
                        }
                        i = self.next[i as usize];
                    }
                }
            }
        }
        false
    }
}

/// The images `x + k L` (k integer on each periodic axis, 0 on the others) of a centre `x`
/// that lie in the box `[lo, hi]`, m.
fn images(x: DVec3, periodic: &Periodic, lo: DVec3, hi: DVec3) -> Vec<DVec3> {
    let inside = |y: &DVec3| y.cmpge(lo).all() && y.cmple(hi).all();
    if !periodic.any() {
        return if inside(&x) { vec![x] } else { Vec::new() };
    }
    let mut out = vec![x];
    for a in 0..3 {
        let len = periodic.max[a] - periodic.min[a];
        let ks = if periodic.axes[a] && len > 0.0 {
            ((lo[a] - x[a]) / len).ceil() as i64..=((hi[a] - x[a]) / len).floor() as i64
        } else {
            0..=0
        };
        out = out
            .iter()
            .flat_map(|&y| {
                ks.clone().map(move |k| {
                    let mut z = y;
                    z[a] += k as f64 * len;
                    z
                })
            })
            .collect();
    }
    out.retain(inside);
    out
}

/// A centre `x` (m) moved into the periodic box `[min, max)` on each periodic axis, and the box
/// lengths it moved by (its image: `x = wrapped + image L`).
fn wrapped(x: DVec3, periodic: &Periodic) -> (DVec3, [i32; 3]) {
    let (mut y, mut image) = (x, [0; 3]);
    for a in (0..3).filter(|&a| periodic.axes[a]) {
        let (min, max) = (periodic.min[a], periodic.max[a]);
        let len = max - min;
        let mut k = ((x[a] - min) / len).floor();
        y[a] = x[a] - k * len;
        // Rounding may leave the centre on the wrong side of a face.
        if y[a] >= max {
            y[a] -= len;
            k += 1.0;
        } else if y[a] < min {
            y[a] += len;
            k -= 1.0;
        }
        image[a] = k as i32;
    }
    (y, image)
}

/// An [`Insert`] as given, before its material is resolved: what `[[insert]]` and
/// [`crate::scene::SceneBuilder::insert`] take.
///
/// Start with [`InsertBuilder::new`]; defaults: `every` [`DEFAULT_INSERT_EVERY`], `start`
/// `every`, no `total`,
/// velocity zero, seed 0, the restitution and surface of the material, else `[simulation]`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct InsertBuilder {
    region: InsertRegion,
    sizes: InsertSizes,
    amount: InsertAmount,
    every: u64,
    start: Option<u64>,
    total: Option<u64>,
    velocity: DVec3,
    density: Option<f64>,
    material: Option<String>,
    restitution: Option<f64>,
    seed: u64,
}

impl InsertBuilder {
    /// An insertion of `amount` spheres of `sizes` into `region` every
    /// [`DEFAULT_INSERT_EVERY`] steps.
    pub fn new(region: InsertRegion, sizes: InsertSizes, amount: InsertAmount) -> Self {
        Self {
            region,
            sizes,
            amount,
            every: DEFAULT_INSERT_EVERY,
            start: None,
            total: None,
            velocity: DVec3::ZERO,
            density: None,
            material: None,
            restitution: None,
            seed: 0,
        }
    }

    /// Steps between two passes (≥ 1).
    pub fn every(mut self, steps: u64) -> Self {
        self.every = steps;
        self
    }

    /// The step after which the first pass runs, 0 for before the first step (default:
    /// `every`).
    pub fn start(mut self, step: u64) -> Self {
        self.start = Some(step);
        self
    }

    /// Most spheres made over the run.
    pub fn total(mut self, spheres: u64) -> Self {
        self.total = Some(spheres);
        self
    }

    /// Velocity of each new sphere, m/s.
    pub fn velocity(mut self, v: DVec3) -> Self {
        self.velocity = v;
        self
    }

    /// Density, kg/m³ (default: the material's).
    pub fn density(mut self, rho: f64) -> Self {
        self.density = Some(rho);
        self
    }

    /// Material by name (a preset or one of the scene's).
    pub fn material(mut self, name: &str) -> Self {
        self.material = Some(name.to_string());
        self
    }

    /// Restitution coefficient, in [0, 1] (default: the material's, else `[simulation]`'s).
    pub fn restitution(mut self, e: f64) -> Self {
        self.restitution = Some(e);
        self
    }

    /// Seed of the placement's generator (default 0).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The insertion with its material resolved; the reason when the material is unknown or
    /// no density is given.
    pub(super) fn resolve(
        self,
        materials: &mut Materials,
        sim: &SimParams,
    ) -> Result<Insert, String> {
        // Resolved as a sphere of unit radius, whose mass over its volume is the density.
        let unit = resolve(
            materials,
            sim,
            1.0,
            self.density.map(|d| d * sphere_volume(1.0)),
            self.material.as_deref(),
            self.restitution,
            false,
        )
        .map_err(|e| e.replace("no mass: give `mass`", "no density: give `density`"))?;
        Ok(Insert {
            region: self.region,
            sizes: self.sizes,
            amount: self.amount,
            every: self.every,
            start: self.start.unwrap_or(self.every),
            total: self.total,
            velocity: self.velocity,
            density: unit.mass / sphere_volume(1.0),
            restitution: unit.restitution,
            material: unit.material,
            surface: unit.surface,
            seed: self.seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: Periodic = Periodic {
        axes: [false; 3],
        min: DVec3::ZERO,
        max: DVec3::ZERO,
    };

    /// The obstacles: `old` spheres of radius 0.05 m (none when empty) and `planes`.
    fn near<'a>(old: &'a [DVec3], planes: &'a [(DVec3, DVec3)]) -> Around<'a> {
        const R: [f64; 1] = [0.05];
        Around {
            spheres: (old, &R[..old.len()]),
            planes,
            containers: &[],
            periodic: &OPEN,
        }
    }

    fn insert(region: InsertRegion, amount: InsertAmount) -> Insert {
        Insert {
            region,
            sizes: InsertSizes::Uniform(0.01, 0.02),
            amount,
            every: 100,
            start: 100,
            total: None,
            velocity: DVec3::ZERO,
            density: 1000.0,
            restitution: 0.5,
            material: None,
            surface: Surface::default(),
            seed: 7,
        }
    }

    #[test]
    fn placed_spheres_overlap_nothing_and_lie_in_the_region() {
        let region = InsertRegion::Cylinder {
            base: DVec3::new(0.0, 0.0, 0.0),
            axis: 1,
            radius: 0.2,
            height: 0.3,
        };
        let ins = insert(region, InsertAmount::Count(200));
        let old = [DVec3::new(0.0, 0.1, 0.0)];
        let plane = [(DVec3::new(0.0, 0.05, 0.0), DVec3::Y)];
        let mut owed = 0.0;
        let p = ins.place((0, 1, 1e-3), &near(&old, &plane), &mut owed, 0);
        assert!(p.spheres.len() > 100, "{} placed", p.spheres.len());
        assert_eq!(p.spheres.len() as u64 + p.failed, 200);
        for (i, a) in p.spheres.iter().enumerate() {
            let x = a.position;
            assert!(x.y - a.radius >= 0.05, "sphere {i} crosses the plane");
            assert!(x.x.hypot(x.z) <= 0.2 - a.radius + 1e-12);
            assert!(x.y + a.radius <= 0.3 + 1e-12);
            assert!((x - old[0]).length() >= a.radius + 0.05);
            for b in &p.spheres[..i] {
                assert!((x - b.position).length() >= a.radius + b.radius);
            }
            assert_eq!(a.mass, 1000.0 * sphere_volume(a.radius));
        }
        // The same pass draws the same spheres; another pass others.
        let again = ins.place((0, 1, 1e-3), &near(&old, &plane), &mut 0.0, 0);
        assert_eq!(again.spheres, p.spheres);
        let next = ins.place((0, 2, 1e-3), &near(&old, &plane), &mut 0.0, 0);
        assert_ne!(next.spheres, p.spheres);
    }

    #[test]
    fn in_a_periodic_box_new_spheres_clear_every_image_and_are_wrapped() {
        // x repeats over [0, 1); the region straddles the face at x = 0 and the sphere already
        // there sits just inside the opposite face, so its image at x = -0.02 is in the way.
        let periodic = Periodic::new([true, false, false], DVec3::ZERO, DVec3::ONE);
        let region = InsertRegion::Box {
            min: DVec3::new(-0.3, 0.0, 0.0),
            max: DVec3::new(0.3, 0.2, 0.2),
        };
        let ins = insert(region, InsertAmount::Count(150));
        let old = [DVec3::new(0.98, 0.1, 0.1)];
        let p = ins.place(
            (0, 1, 1e-3),
            &Around {
                periodic: &periodic,
                ..near(&old, &[])
            },
            &mut 0.0,
            0,
        );
        assert!(p.spheres.len() > 30, "{} placed", p.spheres.len());
        let image = |d: DVec3| DVec3::new(d.x - d.x.round(), d.y, d.z);
        let mut wrapped_back = 0;
        for (i, a) in p.spheres.iter().enumerate() {
            let x = a.position;
            assert!(
                (0.0..1.0).contains(&x.x),
                "sphere {i} at {x} is outside [0, 1)"
            );
            // The unwrapped centre is where the region put it.
            let unwrapped = x.x + f64::from(a.image[0]);
            assert!((-0.3..=0.3).contains(&unwrapped), "sphere {i}: {unwrapped}");
            assert_eq!(a.image[0], if unwrapped < 0.0 { -1 } else { 0 });
            wrapped_back += usize::from(a.image[0] == -1);
            assert_eq!([a.image[1], a.image[2]], [0, 0]);
            assert!(
                image(x - old[0]).length() >= a.radius + 0.05,
                "sphere {i} hits 0"
            );
            for b in &p.spheres[..i] {
                assert!(image(x - b.position).length() >= a.radius + b.radius);
            }
        }
        assert!(wrapped_back > 0, "no sphere went in beyond the face");
    }

    #[test]
    fn dense_and_sparse_cells_find_every_overlap() {
        let mut rng = Pcg64::seed_from_u64(3);
        let spheres: Vec<(DVec3, f64)> = (0..2000)
            .map(|_| {
                let x = DVec3::new(rng.random(), rng.random(), rng.random());
                (x, uniform(&mut rng, 0.01, 0.02))
            })
            .collect();
        let cell = 0.04;
        let dense = Cells::new(DVec3::ZERO, DVec3::ONE, cell, 0.05);
        // 10⁴ m wide in cells of 4 cm: far past DENSE_CELLS, so a hash map.
        let sparse = Cells::new(DVec3::ZERO, DVec3::splat(1e4), cell, 0.05);
        assert!(!dense.dense.is_empty() && sparse.dense.is_empty());
        let (mut dense, mut sparse) = (dense, sparse);
        for &(x, r) in &spheres {
            dense.push(x, r);
            sparse.push(x, r);
        }
        let mut hits = 0;
        for _ in 0..2000 {
            let x = DVec3::new(rng.random(), rng.random(), rng.random());
            let r = 0.015;
            let brute = spheres.iter().any(|&(y, ry)| (x - y).length() < r + ry);
            let span = ((r + 0.02) / cell).ceil() as i32;
            assert_eq!(dense.overlaps(x, r, span), brute, "{x}");
            assert_eq!(sparse.overlaps(x, r, span), brute, "{x}");
            hits += usize::from(brute);
        }
        assert!(hits > 100 && hits < 1900, "{hits} of 2000 overlap");
    }

    #[test]
    fn rates_carry_their_fractions_and_totals_cap_the_count() {
        let region = InsertRegion::Box {
            min: DVec3::ZERO,
            max: DVec3::splat(1.0),
        };
        // 25 spheres a second over 0.1 s passes: 2.5 a pass, so 2, 3, 2, 3.
        let ins = insert(region, InsertAmount::Rate(25.0));
        let mut owed = 0.0;
        let counts: Vec<usize> = (1..=4)
            .map(|k| {
                ins.place((0, k, 1e-3), &near(&[], &[]), &mut owed, 0)
                    .spheres
                    .len()
            })
            .collect();
        assert_eq!(counts, [2, 3, 2, 3]);
        let capped = Insert {
            total: Some(5),
            ..insert(region, InsertAmount::Count(4))
        };
        let p = capped.place((0, 2, 1e-3), &near(&[], &[]), &mut 0.0, 3);
        assert_eq!(p.spheres.len(), 2);
        // 1 kg/s over 0.1 s: spheres until their mass reaches 0.1 kg.
        let by_mass = insert(region, InsertAmount::MassRate(1.0));
        let mut owed = 0.0;
        let p = by_mass.place((0, 1, 1e-3), &near(&[], &[]), &mut owed, 0);
        let m: f64 = p.spheres.iter().map(|s| s.mass).sum();
        assert!(m >= 0.1 && m - 0.1 < 1000.0 * sphere_volume(0.02));
        assert!((owed - (0.1 - m)).abs() < 1e-15);
    }

    #[test]
    fn unusable_insertions_say_why() {
        let region = InsertRegion::Box {
            min: DVec3::ZERO,
            max: DVec3::splat(0.03),
        };
        let p = |i: Insert| i.problem().unwrap_or_default();
        assert!(p(insert(region, InsertAmount::Count(1))).contains("too small"));
        let ok_region = InsertRegion::Box {
            min: DVec3::ZERO,
            max: DVec3::splat(1.0),
        };
        assert!(p(insert(ok_region, InsertAmount::Count(0))).contains("count"));
        assert!(p(insert(ok_region, InsertAmount::Rate(-1.0))).contains("rate"));
        assert_eq!(insert(ok_region, InsertAmount::Count(3)).problem(), None);
        let bad_sizes = Insert {
            sizes: InsertSizes::List {
                radii: vec![0.01],
                weights: vec![0.0],
            },
            ..insert(ok_region, InsertAmount::Count(1))
        };
        assert!(p(bad_sizes).contains("weights"));
    }
}
