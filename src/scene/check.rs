//! Scene checking: every value in range, and no deep initial overlaps.
//!
//! [`Scene::check`] runs the value checks in a fixed order (simulation, materials, spheres,
//! planes, sphere containers, then that every sphere lies inside every sphere container) and
//! reports the first failure, naming the item and the reason. Then, unless
//! [`CheckOptions::allow_overlap`] is set, it looks for spheres that start overlapping by more than
//! [`OVERLAP_TOLERANCE`] of the smaller radius, without comparing all pairs (see [`overlap`]).

use super::{Scene, SimParams, Surface};
use glam::DVec3;
use std::path::PathBuf;

/// Deepest initial overlap [`Scene::check`] accepts, as a fraction of the smaller radius (1 %).
pub const OVERLAP_TOLERANCE: f64 = 0.01;

/// Most spheres a scene may hold: sphere ids are `u32` on the GPU.
pub const MAX_SPHERES: usize = u32::MAX as usize;

/// Options of [`Scene::check`].
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckOptions {
    /// Accept initial overlaps deeper than [`OVERLAP_TOLERANCE`] of the smaller radius
    /// (default: `false`, such overlaps are errors).
    pub allow_overlap: bool,
}

/// Why a scene was rejected. Every message names the item (sphere id, plane id, material name,
/// `[simulation]` key, file and line) and the reason.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The scene file could not be read.
    #[error("cannot read scene file {}: {source}", path.display())]
    Io {
        /// The file that was asked for.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is not valid TOML, has an unknown key, or a value of the wrong type.
    #[error("{file}: {}{message}", location(*line, *column))]
    Toml {
        /// File path, or the scene name for text parsed with [`Scene::from_toml_str`].
        file: String,
        /// 1-based line of the error; 0 when unknown.
        line: usize,
        /// 1-based column (in characters) of the error; 0 when unknown.
        column: usize,
        /// toml's description, e.g. ``unknown field `foo`, expected one of `dt`, …``.
        message: String,
    },
    /// A value is out of range or refers to something that does not exist.
    #[error("{item}: {reason}")]
    Invalid {
        /// The offending item, e.g. `sphere 17`, `plane 2`, `material "foo"`, `[simulation]`,
        /// `block 0`.
        item: String,
        /// What is wrong, with the value found, e.g. `radius must be positive and finite, got -0.5`.
        reason: String,
    },
    /// The scene has no spheres.
    #[error("scene has no spheres")]
    Empty,
    /// Two spheres start overlapping by more than [`OVERLAP_TOLERANCE`] of the smaller radius.
    #[error(
        "spheres {a} and {b} overlap by {depth} m, more than {pct}% of the smaller radius \
         ({min_radius} m); move them apart or allow overlaps",
        pct = OVERLAP_TOLERANCE * 100.0
    )]
    Overlap {
        /// The smaller sphere id of the pair.
        a: usize,
        /// The larger sphere id of the pair.
        b: usize,
        /// Overlap depth `r_a + r_b − |x_b − x_a|`, m.
        depth: f64,
        /// The smaller of the two radii, m.
        min_radius: f64,
    },
    /// Any other reason (for scene builders).
    #[error("{0}")]
    Other(String),
}

fn location(line: usize, column: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("TOML error at line {line}, column {column}: ")
    }
}

impl SceneError {
    /// Shorthand for [`SceneError::Invalid`].
    pub fn invalid(item: impl Into<String>, reason: impl Into<String>) -> Self {
        SceneError::Invalid {
            item: item.into(),
            reason: reason.into(),
        }
    }
}

/// `key` must be finite and > 0.
pub(crate) fn positive(item: &dyn Fn() -> String, key: &str, v: f64) -> Result<(), SceneError> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(SceneError::invalid(
            item(),
            format!("{key} must be positive and finite, got {v}"),
        ))
    }
}

/// `key` must be finite and ≥ 0.
pub(crate) fn non_negative(item: &dyn Fn() -> String, key: &str, v: f64) -> Result<(), SceneError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(SceneError::invalid(
            item(),
            format!("{key} must be non-negative and finite, got {v}"),
        ))
    }
}

/// A restitution coefficient must lie in [0, 1].
pub(crate) fn restitution(item: &dyn Fn() -> String, v: f64) -> Result<(), SceneError> {
    if (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(SceneError::invalid(
            item(),
            format!("restitution must be in [0, 1], got {v}"),
        ))
    }
}

/// Every component of a vector must be finite.
pub(crate) fn finite3(item: &dyn Fn() -> String, key: &str, v: DVec3) -> Result<(), SceneError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(SceneError::invalid(
            item(),
            format!("{key} must be finite, got [{}, {}, {}]", v.x, v.y, v.z),
        ))
    }
}

/// Elastic constants and friction: Young's modulus positive and finite, Poisson ratio in
/// (−1, 0.5], friction finite and ≥ 0.
pub(crate) fn surface(item: &dyn Fn() -> String, s: &Surface) -> Result<(), SceneError> {
    positive(item, "youngs_modulus", s.youngs_modulus)?;
    let nu = s.poisson_ratio;
    if !(nu > -1.0 && nu <= 0.5) {
        return Err(SceneError::invalid(
            item(),
            format!("poisson_ratio must be in (-1, 0.5], got {nu}"),
        ));
    }
    non_negative(item, "friction", s.friction)
}

fn check_sim(p: &SimParams) -> Result<(), SceneError> {
    let item = || "[simulation]".to_string();
    positive(&item, "dt", p.dt)?;
    if p.steps == 0 {
        return Err(SceneError::invalid(
            item(),
            "steps must be at least 1, got 0",
        ));
    }
    finite3(&item, "gravity", p.gravity)?;
    non_negative(&item, "G", p.g_const)?;
    non_negative(&item, "softening", p.softening)?;
    positive(&item, "stiffness", p.stiffness)?;
    non_negative(&item, "drag", p.drag)?;
    restitution(&item, p.restitution)?;
    surface(&item, &p.surface)
}

impl Scene {
    /// Checks every value of the scene and, unless `opts.allow_overlap`, that no two spheres start
    /// overlapping by more than [`OVERLAP_TOLERANCE`] of the smaller radius. Returns the first
    /// problem found; the order is fixed (simulation, materials, spheres, planes, sphere
    /// containers, containment, overlaps), and of several overlapping pairs the one with the
    /// smallest `(a, b)` is reported, so the same scene always gives the same error.
    ///
    /// Ranges: `dt`, radii (of spheres and containers), masses (except of fixed spheres),
    /// `stiffness`, densities and Young's moduli positive and finite; `steps ≥ 1`; `G`,
    /// `softening`, `drag` and friction coefficients finite and ≥ 0; restitutions in [0, 1];
    /// Poisson ratios in (−1, 0.5]; positions, velocities, gravity, plane points and container
    /// centres finite; plane normals of unit length; material indices in range; at least one
    /// sphere. Surfaces (E, ν, μ) are checked on `[simulation]`, every material, sphere, plane and
    /// container.
    ///
    /// Containment is checked whatever `opts` says: every sphere, fixed ones included, must lie
    /// inside every sphere container, `|x − c| + r ≤ R_W`, up to [`OVERLAP_TOLERANCE`] of the
    /// smaller of `r` and `R_W`.
    ///
    /// Cost: O(N) for the values, O(N × containers) for containment; the overlap search bins the
    /// spheres into hashed uniform grids (one per radius class) and runs in parallel, about O(N)
    /// for scenes whose radii vary little.
    pub fn check(&self, opts: &CheckOptions) -> Result<(), SceneError> {
        self.check_values()?;
        if opts.allow_overlap {
            return Ok(());
        }
        match overlap::first_overlap(&self.spheres, OVERLAP_TOLERANCE) {
            Some(o) => Err(SceneError::Overlap {
                a: o.a,
                b: o.b,
                depth: o.depth,
                min_radius: o.min_radius,
            }),
            None => Ok(()),
        }
    }

    /// The value checks of [`Scene::check`], without the overlap search.
    fn check_values(&self) -> Result<(), SceneError> {
        check_sim(&self.sim)?;
        for m in &self.materials {
            let item = || format!("material {:?}", m.name);
            restitution(&item, m.restitution)?;
            positive(&item, "density", m.density)?;
            surface(&item, &Surface::of(m))?;
        }
        if self.spheres.is_empty() {
            return Err(SceneError::Empty);
        }
        if self.spheres.len() > MAX_SPHERES {
            return Err(SceneError::Other(format!(
                "scene has {} spheres, more than the {MAX_SPHERES} supported",
                self.spheres.len()
            )));
        }
        for (i, s) in self.spheres.iter().enumerate() {
            let item = || format!("sphere {i}");
            finite3(&item, "position", s.position)?;
            finite3(&item, "velocity", s.velocity)?;
            positive(&item, "radius", s.radius)?;
            if !s.fixed {
                positive(&item, "mass", s.mass)?;
            }
            restitution(&item, s.restitution)?;
            match s.material {
                Some(m) if m >= self.materials.len() => {
                    return Err(SceneError::invalid(
                        item(),
                        format!(
                            "material index {m} out of range (the scene has {} materials)",
                            self.materials.len()
                        ),
                    ));
                }
                _ => {}
            }
            surface(&item, &s.surface)?;
        }
        for (i, p) in self.planes.iter().enumerate() {
            let item = || format!("plane {i}");
            finite3(&item, "point", p.point)?;
            finite3(&item, "normal", p.normal)?;
            let len = p.normal.length();
            if len == 0.0 {
                return Err(SceneError::invalid(item(), "normal has zero length"));
            }
            if (len - 1.0).abs() > 1e-9 {
                return Err(SceneError::invalid(
                    item(),
                    format!("normal must have unit length, got length {len}"),
                ));
            }
            restitution(&item, p.restitution)?;
            surface(&item, &p.surface)?;
        }
        for (k, c) in self.containers.iter().enumerate() {
            let item = || format!("sphere_container {k}");
            finite3(&item, "center", c.center)?;
            positive(&item, "radius", c.radius)?;
            restitution(&item, c.restitution)?;
            surface(&item, &c.surface)?;
        }
        self.check_containment()
    }

    /// Every sphere inside every sphere container: `|x − c| + r ≤ R_W` up to
    /// [`OVERLAP_TOLERANCE`] of the smaller of `r` and `R_W`. Reports the lowest sphere id, then
    /// the lowest container index. Values must have been checked (finite, radii positive).
    fn check_containment(&self) -> Result<(), SceneError> {
        if self.containers.is_empty() {
            return Ok(());
        }
        for (i, s) in self.spheres.iter().enumerate() {
            for (k, c) in self.containers.iter().enumerate() {
                let distance = (s.position - c.center).length();
                let reach = distance + s.radius;
                let allowed = c.radius + OVERLAP_TOLERANCE * s.radius.min(c.radius);
                // Finite positions may still be so far apart that `reach` is infinite: rejected.
                if reach > allowed {
                    return Err(SceneError::invalid(
                        format!("sphere {i}"),
                        format!(
                            "not inside sphere_container {k}: distance from its center {distance} m \
                             + radius {} m = {reach} m exceeds the container radius {} m by more \
                             than {}% of the smaller radius (container center [{}, {}, {}])",
                            s.radius,
                            c.radius,
                            OVERLAP_TOLERANCE * 100.0,
                            c.center.x,
                            c.center.y,
                            c.center.z
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

pub mod overlap {
    //! Search for the first deep initial overlap among many spheres, without comparing all
    //! pairs.
    //!
    //! Spheres are split into radius classes `[r_min 2^k, r_min 2^(k+1))`. Each class is binned
    //! into its own hashed uniform grid with cell edge twice its largest radius, so within a class
    //! a sphere meets all possible partners in the cells its extent touches (27 for equal radii),
    //! and a cell holds a bounded number of spheres unless they overlap. Pairs of classes are
    //! searched from whichever side is cheaper: the small spheres look up the 27 cells around them
    //! in the large class's grid, or each large sphere scans the small class's cells under its
    //! extent, or, when that extent covers more cells than the small class has spheres, all of
    //! them. All candidates in a grid bucket are kept in ascending id order, and the best pair so
    //! far prunes the search, so a heap of coincident spheres costs O(N), not O(N²).
    //!
    //! The result is the overlapping pair with the smallest `(a, b)`, whatever the thread timing.

    use crate::scene::Sphere;
    use glam::DVec3;
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// An overlapping pair found by [`first_overlap`].
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Overlap {
        /// Smaller sphere id.
        pub a: usize,
        /// Larger sphere id.
        pub b: usize,
        /// `r_a + r_b − |x_b − x_a|`, m.
        pub depth: f64,
        /// `min(r_a, r_b)`, m.
        pub min_radius: f64,
    }

    /// The pair `(a, b)`, `a < b`, with the smallest `(a, b)` among pairs of spheres that are not
    /// both fixed and overlap by more than `tolerance × min(r_a, r_b)`; `None` if there is none.
    ///
    /// Radii must be positive and finite, positions finite, and there must be at most
    /// `u32::MAX` spheres (as [`crate::Scene::check`] ensures); otherwise the answer may be
    /// wrong but the function does not panic.
    pub fn first_overlap(spheres: &[Sphere], tolerance: f64) -> Option<Overlap> {
        let n = spheres.len();
        if !(2..=u32::MAX as usize).contains(&n) {
            return None;
        }
        let ctx = Ctx {
            spheres,
            tolerance,
            best: AtomicU64::new(u64::MAX),
        };
        let grids: Vec<Grid> = classes(spheres)
            .into_iter()
            .map(|c| Grid::build(spheres, c))
            .collect();

        for (k, gk) in grids.iter().enumerate() {
            // Within class k.
            gk.members.par_iter().for_each(|&i| ctx.query_grid(i, gk));
            // Class j < k (smaller spheres) against class k.
            for gj in &grids[..k] {
                let cost_small_side = gj.members.len() as f64 * 27.0;
                let cost_large_side = gk.members.len() as f64
                    * gj.cells_under(2.0 * gk.max_radius + gj.edge)
                        .min(gj.members.len() as f64);
                if cost_small_side <= cost_large_side {
                    gj.members.par_iter().for_each(|&i| ctx.query_grid(i, gk));
                } else {
                    gk.members.par_iter().for_each(|&i| ctx.query_grid(i, gj));
                }
            }
        }

        let best = ctx.best.load(Ordering::Relaxed);
        if best == u64::MAX {
            return None;
        }
        let (a, b) = ((best >> 32) as usize, (best & 0xffff_ffff) as usize);
        let (sa, sb) = (&spheres[a], &spheres[b]);
        Some(Overlap {
            a,
            b,
            depth: sa.radius + sb.radius - (sb.position - sa.position).length(),
            min_radius: sa.radius.min(sb.radius),
        })
    }

    struct Ctx<'a> {
        spheres: &'a [Sphere],
        tolerance: f64,
        /// Best pair so far, `a << 32 | b`; `u64::MAX` for none.
        best: AtomicU64,
    }

    impl Ctx<'_> {
        /// Tests sphere `i` against the candidates `js` (ascending ids), recording overlaps and
        /// stopping once no later candidate can give a smaller pair than the best so far.
        fn test(&self, i: u32, js: &[u32]) {
            let si = &self.spheres[i as usize];
            for &j in js {
                if j == i {
                    continue;
                }
                // pair_key(i, j) grows with j, and candidates are ascending: once a pair is no
                // better than the best so far, neither is any later one.
                let key = pair_key(i, j);
                if key >= self.best.load(Ordering::Relaxed) {
                    return;
                }
                let sj = &self.spheres[j as usize];
                if si.fixed && sj.fixed {
                    continue;
                }
                let reach = si.radius + sj.radius - self.tolerance * si.radius.min(sj.radius);
                if (sj.position - si.position).length_squared() < reach * reach {
                    self.best.fetch_min(key, Ordering::Relaxed);
                }
            }
        }

        /// Tests sphere `i` against every member of `grid` that its extent can reach: by the
        /// cells under its extent, or all members when there are fewer members than cells.
        fn query_grid(&self, i: u32, grid: &Grid) {
            let s = &self.spheres[i as usize];
            let reach = DVec3::splat(s.radius + grid.max_radius);
            let lo = grid.cell(s.position - reach);
            let hi = grid.cell(s.position + reach);
            let cells = (0..3)
                .map(|d| (i128::from(hi[d]) - i128::from(lo[d]) + 1).max(0) as u128)
                .fold(1u128, u128::saturating_mul);
            if cells > grid.members.len() as u128 {
                // Fewer members than cells (a huge sphere, or a degenerate tiny cell edge).
                self.scan_all(i, &grid.members);
                return;
            }
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        self.test(i, grid.bucket([x, y, z]));
                    }
                }
            }
        }

        /// Tests sphere `i` against all `members` (ascending ids), in parallel when they are many.
        fn scan_all(&self, i: u32, members: &[u32]) {
            const CHUNK: usize = 4096;
            if members.len() <= CHUNK {
                self.test(i, members);
            } else {
                members
                    .par_chunks(CHUNK)
                    .for_each(|chunk| self.test(i, chunk));
            }
        }
    }

    fn pair_key(i: u32, j: u32) -> u64 {
        let (a, b) = if i < j { (i, j) } else { (j, i) };
        u64::from(a) << 32 | u64::from(b)
    }

    /// Sphere ids split into radius classes `[r_min 2^k, r_min 2^(k+1))`, smallest class first,
    /// empty classes dropped, ids ascending within a class.
    fn classes(spheres: &[Sphere]) -> Vec<Vec<u32>> {
        let r_min = spheres
            .par_iter()
            .map(|s| s.radius)
            .reduce(|| f64::INFINITY, f64::min);
        // Positive finite radii span at most ~2100 binary orders of magnitude.
        let class_of = |r: f64| -> u16 {
            let k = (r / r_min).log2().floor();
            if k.is_finite() && k > 0.0 {
                k.min(f64::from(u16::MAX)) as u16
            } else {
                0
            }
        };
        let ks: Vec<u16> = spheres.par_iter().map(|s| class_of(s.radius)).collect();
        let n_classes = usize::from(ks.par_iter().copied().max().unwrap_or(0)) + 1;
        let mut counts = vec![0usize; n_classes];
        for &k in &ks {
            counts[usize::from(k)] += 1;
        }
        let mut out: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
        for (i, &k) in ks.iter().enumerate() {
            out[usize::from(k)].push(i as u32);
        }
        out.retain(|c| !c.is_empty());
        out
    }

    /// A hashed uniform grid over one radius class: the members of each bucket are contiguous
    /// in `items`, in ascending id order.
    struct Grid {
        /// Cell edge, m: twice `max_radius`.
        edge: f64,
        inv_edge: f64,
        /// Largest radius in the class, m.
        max_radius: f64,
        /// Ids in the class, ascending.
        members: Vec<u32>,
        /// `starts[b]..starts[b + 1]` indexes the members of bucket `b` in `items`.
        starts: Vec<u32>,
        items: Vec<u32>,
        mask: u64,
    }

    impl Grid {
        fn build(spheres: &[Sphere], members: Vec<u32>) -> Grid {
            let max_radius = members
                .par_iter()
                .map(|&i| spheres[i as usize].radius)
                .reduce(|| 0.0, f64::max);
            let edge = 2.0 * max_radius;
            let n_buckets = members.len().next_power_of_two().max(16);
            let mut grid = Grid {
                edge,
                inv_edge: 1.0 / edge,
                max_radius,
                members: Vec::new(),
                starts: Vec::new(),
                items: Vec::new(),
                mask: n_buckets as u64 - 1,
            };
            let buckets: Vec<u32> = members
                .par_iter()
                .map(|&i| grid.bucket_of(grid.cell(spheres[i as usize].position)) as u32)
                .collect();
            // Stable counting sort by bucket: ids stay ascending within a bucket.
            let mut starts = vec![0u32; n_buckets + 1];
            for &b in &buckets {
                starts[b as usize + 1] += 1;
            }
            for b in 0..n_buckets {
                starts[b + 1] += starts[b];
            }
            let mut next = starts.clone();
            let mut items = vec![0u32; members.len()];
            for (&i, &b) in members.iter().zip(&buckets) {
                let slot = &mut next[b as usize];
                items[*slot as usize] = i;
                *slot += 1;
            }
            grid.members = members;
            grid.starts = starts;
            grid.items = items;
            grid
        }

        /// Integer cell of a point (saturating far away: that only costs time, not accuracy).
        fn cell(&self, p: DVec3) -> [i64; 3] {
            let c = (p * self.inv_edge).floor();
            [c.x as i64, c.y as i64, c.z as i64]
        }

        fn bucket_of(&self, c: [i64; 3]) -> usize {
            let mut h = (c[0] as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ (c[1] as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                ^ (c[2] as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
            h ^= h >> 29;
            h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            h ^= h >> 32;
            (h & self.mask) as usize
        }

        fn bucket(&self, c: [i64; 3]) -> &[u32] {
            let b = self.bucket_of(c);
            &self.items[self.starts[b] as usize..self.starts[b + 1] as usize]
        }

        /// About how many cells a cube of edge `width` covers (at least 1).
        fn cells_under(&self, width: f64) -> f64 {
            ((width * self.inv_edge).ceil() + 1.0).powi(3)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::overlap::first_overlap;
    use crate::scene::{CheckOptions, Plane, Scene, Sphere, SphereContainer, Surface};
    use glam::DVec3;
    use rand::{RngExt, SeedableRng};
    use rand_pcg::Pcg64;

    fn sphere(position: DVec3, radius: f64, fixed: bool) -> Sphere {
        Sphere {
            position,
            velocity: DVec3::ZERO,
            radius,
            mass: 1.0,
            restitution: 1.0,
            material: None,
            fixed,
            surface: Surface::default(),
        }
    }

    fn brute(spheres: &[Sphere], tol: f64) -> Option<(usize, usize)> {
        for a in 0..spheres.len() {
            for b in a + 1..spheres.len() {
                let (sa, sb) = (&spheres[a], &spheres[b]);
                if sa.fixed && sb.fixed {
                    continue;
                }
                let reach = sa.radius + sb.radius - tol * sa.radius.min(sb.radius);
                if (sb.position - sa.position).length_squared() < reach * reach {
                    return Some((a, b));
                }
            }
        }
        None
    }

    /// Random scenes with radii over several binary orders of magnitude, some fixed spheres:
    /// the grid search agrees with the all-pairs search.
    #[test]
    fn grid_search_matches_all_pairs() {
        let mut rng = Pcg64::seed_from_u64(1);
        for case in 0..300 {
            let n = rng.random_range(2..400);
            let box_size = rng.random_range(1.0..40.0);
            let spread: f64 = [0.0, 1.0, 3.0, 8.0][case % 4];
            let spheres: Vec<Sphere> = (0..n)
                .map(|_| {
                    let p = DVec3::new(
                        rng.random_range(0.0..box_size),
                        rng.random_range(0.0..box_size),
                        rng.random_range(0.0..box_size),
                    );
                    let r = 0.1 * 2f64.powf(rng.random_range(0.0..=spread));
                    sphere(p, r, rng.random_bool(0.1))
                })
                .collect();
            let got = first_overlap(&spheres, 0.01).map(|o| (o.a, o.b));
            assert_eq!(got, brute(&spheres, 0.01), "case {case}, n {n}");
        }
    }

    #[test]
    fn heaps_of_coincident_spheres_are_fast_and_exact() {
        let n = 200_000;
        let mut spheres: Vec<Sphere> = (0..n)
            .map(|_| sphere(DVec3::new(3.0, 3.0, 3.0), 1.0, false))
            .collect();
        spheres[0].position = DVec3::new(-100.0, 0.0, 0.0);
        let o = first_overlap(&spheres, 0.01).unwrap();
        assert_eq!((o.a, o.b, o.depth, o.min_radius), (1, 2, 2.0, 1.0));
    }

    #[test]
    fn subnormal_radii_and_far_positions_do_not_hang() {
        let tiny = 1e-310;
        let spheres = vec![
            sphere(DVec3::ZERO, tiny, false),
            sphere(DVec3::new(1.0, 0.0, 0.0), tiny, false),
            sphere(DVec3::new(1.0 + tiny, 0.0, 0.0), tiny, false),
            sphere(DVec3::new(1e300, -1e300, 0.0), 1.0, false),
            sphere(DVec3::new(1e300, -1e300, 1.0), 1.0, false),
        ];
        let got = first_overlap(&spheres, 0.01).map(|o| (o.a, o.b));
        // (Squared distances underflow at this scale, so spheres 1 and 2 pass; what matters is
        // that the search ends and agrees with the all-pairs one.)
        assert_eq!(got, brute(&spheres, 0.01));
        assert_eq!(got, Some((3, 4)));
    }

    #[test]
    fn a_huge_sphere_among_small_ones() {
        // A touching lattice of small spheres and one huge sphere well away from it, then inside it.
        let mut spheres = Vec::new();
        for z in 0..40 {
            for y in 0..40 {
                for x in 0..40 {
                    let p = DVec3::new(x as f64, y as f64, z as f64) * 0.02;
                    spheres.push(sphere(p, 0.01, false));
                }
            }
        }
        spheres.push(sphere(DVec3::new(0.4, 0.4, 1e6 + 2.0), 1e6, false));
        assert_eq!(first_overlap(&spheres, 0.01), None);
        let last = spheres.len() - 1;
        spheres[last].position.z = 1e6 + 0.5;
        let o = first_overlap(&spheres, 0.01).unwrap();
        assert_eq!(o.b, last);
        // The lattice itself only touches, so the first pair is the first sphere inside.
        let big = spheres[last].clone();
        let first_inside = spheres
            .iter()
            .position(|s| {
                (s.position - big.position).length() < s.radius + big.radius - 0.01 * s.radius
            })
            .unwrap();
        assert_eq!(o.a, first_inside);
    }

    fn message(scene: &Scene) -> String {
        scene
            .check(&CheckOptions {
                allow_overlap: true,
            })
            .unwrap_err()
            .to_string()
    }

    /// Surfaces of built scenes (not only of files) are checked on every body, naming it.
    #[test]
    fn bad_surfaces_name_the_body() {
        let container = |surface| SphereContainer {
            center: DVec3::ZERO,
            radius: 10.0,
            restitution: 1.0,
            surface,
        };
        let mut scene = Scene {
            spheres: vec![
                sphere(DVec3::ZERO, 1.0, false),
                sphere(DVec3::X * 3.0, 1.0, false),
            ],
            planes: vec![Plane {
                point: DVec3::NEG_Y * 5.0,
                normal: DVec3::Y,
                restitution: 1.0,
                surface: Surface::default(),
            }],
            containers: vec![container(Surface::default())],
            ..Scene::default()
        };
        scene.check(&CheckOptions::default()).unwrap();

        let mut bad = scene.clone();
        bad.spheres[1].surface.youngs_modulus = f64::NAN;
        assert_eq!(
            message(&bad),
            "sphere 1: youngs_modulus must be positive and finite, got NaN"
        );
        let mut bad = scene.clone();
        bad.planes[0].surface.poisson_ratio = -1.0;
        assert_eq!(
            message(&bad),
            "plane 0: poisson_ratio must be in (-1, 0.5], got -1"
        );
        let mut bad = scene.clone();
        bad.containers[0].surface.friction = -0.5;
        assert_eq!(
            message(&bad),
            "sphere_container 0: friction must be non-negative and finite, got -0.5"
        );
        let mut bad = scene.clone();
        bad.sim.surface.friction = f64::INFINITY;
        assert_eq!(
            message(&bad),
            "[simulation]: friction must be non-negative and finite, got inf"
        );

        // Containment holds for overlapping scenes too, and is checked whatever the options say.
        scene.containers.push(SphereContainer {
            center: DVec3::X,
            ..container(Surface::default())
        });
        scene.containers[1].radius = 2.5;
        // Sphere 0 lies inside (1 + 1 ≤ 2.5), sphere 1 does not (2 + 1 > 2.5).
        assert_eq!(
            message(&scene),
            "sphere 1: not inside sphere_container 1: distance from its center 2 m + radius 1 m \
             = 3 m exceeds the container radius 2.5 m by more than 1% of the smaller radius \
             (container center [1, 0, 0])"
        );
        scene.containers[1].radius = 3.0;
        scene.check(&CheckOptions::default()).unwrap();
    }

    /// The containment tolerance is 1 % of the smaller radius, which may be the container's.
    #[test]
    fn containment_tolerance_uses_the_smaller_radius() {
        let scene = |x: f64, r: f64, wall: f64| Scene {
            spheres: vec![sphere(DVec3::X * x, r, false)],
            containers: vec![SphereContainer {
                center: DVec3::ZERO,
                radius: wall,
                restitution: 1.0,
                surface: Surface::default(),
            }],
            ..Scene::default()
        };
        let ok = |s: Scene| s.check(&CheckOptions::default()).is_ok();
        assert!(ok(scene(4.0, 1.0, 5.0)));
        assert!(ok(scene(4.009, 1.0, 5.0)));
        assert!(!ok(scene(4.011, 1.0, 5.0)));
        // A sphere larger than its container: tolerance 1 % of R_W.
        assert!(ok(scene(0.0, 1.0095, 1.0)));
        assert!(!ok(scene(0.0, 1.011, 1.0)));
    }
}
