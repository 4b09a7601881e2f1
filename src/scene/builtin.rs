//! Built-in scenes, built by name with a requested particle count (`spheresim scenes` lists them).
//!
//! Every builder is O(N) with preallocated vectors and plain loops, so that scenes of 16 M spheres
//! build in seconds; random placements use a fixed-seed [`Pcg64`], so a scene is the same on every
//! run and machine. SI units throughout: metres, kilograms, seconds.
//!
//! | name          | default N | dt, s  | steps  | what                                              |
//! |---------------|-----------|--------|--------|---------------------------------------------------|
//! | `wall-break`  | 8 000     | 1e-4   | ≥ 1500 | steel ball at 20 m/s through a close-packed wall  |
//! | `wall-stand`  | 2 000     | t_c/20 | varies | the same wall, of rubber, standing on a floor under gravity (Hertz, friction) |
//! | `container`   | 2 000     | t_c/20 | 0.5 s  | rubber spheres falling in a steel spherical container (Hertz, friction) |
//! | `box-gas`     | 10 000    | 2e-4   | 2000   | elastic hard-sphere gas in a closed cube          |
//! | `orbits`      | 1 000     | 1e-3   | 10 000 | small bodies on circular orbits about a heavy one |
//! | `plummer`     | 10 000    | 1/256  | 724    | a Plummer sphere in virial equilibrium, N-body units, tree gravity |
//! | `rubble-pile` | 10 000    | 4.6e-4 | 6000   | a cold, slowly rotating cloud collapsing under its own gravity into a colliding pile (tree, Hertz) |
//! | `pile`        | 2 000     | t_c/20 | 1 s    | a column of grains released on a rough floor collapses into a heap (Hertz, friction, rotation) |
//! | `bounce`      | 1         | 1e-4   | 20 000 | spheres dropped on a floor, e = 0.7               |
//! | `two-spheres` | 2         | 1e-4   | 10 000 | oblique elastic collision of unequal spheres      |
//! | `pi-blocks`   | 2         | varies | 5 000  | Galperin's billiard: collisions count π's digits   |
//!
//! Sphere ids are indices. Spheres name no material except in `wall-break` (wood wall, steel
//! projectile from [`Material`] presets); every sphere carries its restitution explicitly.

use std::f64::consts::{PI, TAU};

use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use super::{
    Insert, InsertAmount, InsertRegion, InsertSizes, Material, Outflow, Plane, Scene, SceneError,
    SimParams, Sphere, Surface, sphere_volume,
};

/// One line of `spheresim scenes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinInfo {
    /// Name to pass to [`build`] (and to `spheresim run`).
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Number of spheres built when no count is requested.
    pub default_particles: usize,
}

const BUILTINS: &[BuiltinInfo] = &[
    BuiltinInfo {
        name: "wall-break",
        summary: "steel ball (r >= 5 r_wall, 20 m/s) smashes a close-packed fcc wall of 1 cm wood \
                  spheres, no gravity (needs >= 17 particles)",
        default_particles: 8_000,
    },
    BuiltinInfo {
        name: "wall-stand",
        summary: "the wall-break wall (cut to 4 or 7 layers) of rubber balls standing on a floor \
                  under gravity, Hertz contact with friction, until the steel ball hits it 5 ms \
                  in (needs >= 17 particles)",
        default_particles: 2_000,
    },
    BuiltinInfo {
        name: "container",
        summary: "1 cm rubber spheres with random 1 m/s velocities falling in a steel spherical \
                  container under gravity, Hertz contact with friction",
        default_particles: 2_000,
    },
    BuiltinInfo {
        name: "box-gas",
        summary: "elastic 1 cm spheres at 10 % volume fraction with random velocities in a closed \
                  elastic cube",
        default_particles: 10_000,
    },
    BuiltinInfo {
        name: "orbits",
        summary: "small bodies on circular orbits (r 5-30 m) about a 1e12 kg sphere, mutual gravity \
                  (needs >= 2 particles)",
        default_particles: 1_000,
    },
    BuiltinInfo {
        name: "plummer",
        summary: "a Plummer sphere in virial equilibrium (N-body units: G = 1, M = 1 kg, \
                  E = -1/4 J), tree gravity, tiny elastic spheres; one crossing time",
        default_particles: 10_000,
    },
    BuiltinInfo {
        name: "rubble-pile",
        summary: "a cold, slowly rotating cloud of equal spheres (G = 1, M = 1 kg, R = 1 m) \
                  collapses under its own gravity (tree) into a bound pile, frictionless Hertz \
                  contact",
        default_particles: 10_000,
    },
    BuiltinInfo {
        name: "pile",
        summary: "a column of 5 mm grains (mu 0.5, rotation on) released on a floor carpeted with \
                  fixed grains collapses into a heap (the lifted-cylinder test); `spheresim \
                  repose` measures its angle (the fixed carpet adds to the count)",
        default_particles: 2_000,
    },
    BuiltinInfo {
        name: "shear-cell",
        summary: "5 mm frictional grains (mu 0.5, rotation on, Hertz) at about 43 % volume fraction, \
                  periodic in x and z, sheared between two walls moving at -/+ 0.5 m/s along x \
                  (docs/open-systems.md)",
        default_particles: 4_000,
    },
    BuiltinInfo {
        name: "hopper-flow",
        summary: "a square silo filled by insertion with 5 mm frictional grains (mu 0.5, rotation \
                  on, Hertz), discharging under gravity through a 6-diameter circular orifice in a carpet of fixed \
                  half-size grains into a basin below (docs/open-systems.md; the carpet adds to \
                  the count)",
        default_particles: 4_000,
    },
    BuiltinInfo {
        name: "bounce",
        summary: "spheres (r 0.1 m, e = 0.7) dropped from 1 m onto a floor under gravity, 0.5 m \
                  grid when N > 1",
        default_particles: 1,
    },
    BuiltinInfo {
        name: "two-spheres",
        summary: "oblique elastic collision of a 1 kg and a 4 kg sphere; N/2 copies on a 2 m grid \
                  (N even)",
        default_particles: 2,
    },
    BuiltinInfo {
        name: "pi-blocks",
        summary: "Galperin's billiard: wall, sphere of mass 1 at rest, sphere of mass 100^(D-1) \
                  moving at it, all elastic; collisions = first D digits of pi (--digits D)",
        default_particles: 2,
    },
];

/// The table `spheresim scenes` prints: one line per built-in scene with its default sphere
/// count and summary.
pub fn list_text() -> String {
    list()
        .iter()
        .map(|s| {
            format!(
                "{:<12} {:>9} spheres by default  {}\n",
                s.name, s.default_particles, s.summary
            )
        })
        .collect()
}

/// All built-in scenes, in the order `spheresim scenes` prints them.
pub fn list() -> &'static [BuiltinInfo] {
    BUILTINS
}

/// Names of all built-in scenes.
pub fn names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// Builds the named built-in scene with about `particles` spheres (`None`: the scene's
/// [`BuiltinInfo::default_particles`]).
///
/// `wall-break` matches the count to within a few per cent (the slab is a whole number of rows);
/// the other scenes build exactly `particles` spheres.
///
/// # Errors
/// [`SceneError::Other`] for an unknown name (the message lists the known names), for
/// `particles = 0`, for fewer particles than the scene needs (`wall-break` 17, `orbits` 2,
/// `two-spheres` 2) and for an odd count in `two-spheres`.
pub fn build(name: &str, particles: Option<usize>) -> Result<Scene, SceneError> {
    let Some(info) = BUILTINS.iter().find(|b| b.name == name) else {
        return Err(SceneError::Other(format!(
            "unknown built-in scene `{}`; known scenes: {}{}",
            crate::output::csv::shorten(name),
            names().join(", "),
            super::check::suggestion(name, names())
        )));
    };
    let n = particles.unwrap_or(info.default_particles);
    if n == 0 {
        return Err(SceneError::Other(format!(
            "built-in scene `{name}`: the particle count must be at least 1, got 0"
        )));
    }
    // The builder's vectors alone can exceed memory: refuse before allocating them.
    check_size(name, n, None, crate::sim::available_memory())?;
    let mut scene = match name {
        "wall-break" => wall_break(n)?,
        "wall-stand" => wall_stand(n)?,
        "container" => container(n),
        "box-gas" => box_gas(n),
        "orbits" => orbits(n)?,
        "plummer" => plummer(n),
        "rubble-pile" => rubble_pile(n),
        "pile" => pile(n),
        "shear-cell" => shear_cell(n),
        "hopper-flow" => hopper_flow(n),
        "bounce" => bounce(n),
        "two-spheres" => two_spheres(n)?,
        "pi-blocks" if n != 2 => {
            return Err(SceneError::Other(format!(
                "built-in scene `pi-blocks` has exactly 2 spheres, got a request for {n}; its \
                 size is set by {}",
                crate::naming::Setting::Digits
            )));
        }
        "pi-blocks" => pi_blocks(PI_BLOCKS_DEFAULT_DIGITS)?,
        _ => unreachable!("every entry of BUILTINS has a builder"),
    };
    scene.name = name.to_string();
    Ok(scene)
}

// ---------------------------------------------------------------------------------------------
// memory before building

/// Scratch bytes per sphere of the overlap check that follows a build (`Scene::check`: the
/// radius classes, each grid's members, buckets, starts and items, `u32`s and `u16`s), rounded
/// up.
pub const CHECK_BYTES_PER_SPHERE: u64 = 40;

/// What building a built-in scene costs in memory: spheres built and bytes held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildCost {
    /// Most spheres the scene holds after the build (`pile` adds its fixed carpet, `wall-break`
    /// and `wall-stand` round to whole rows).
    pub spheres: u64,
    /// Bytes the builder holds at its peak: every `Vec<Sphere>` (at `size_of::<Sphere>()` each,
    /// `wall-stand` builds five candidate walls at once) and its lattice points, sort scratch
    /// and Plummer bodies (`DVec3` each).
    pub peak: u64,
    /// Bytes the built scene keeps: its spheres and [`CHECK_BYTES_PER_SPHERE`] for the check.
    pub kept: u64,
}

/// The memory cost of building the built-in scene `name` with `n` requested spheres, computed
/// from the builders' own sizes without allocating; the count of an unknown name is taken as
/// `n` spheres.
pub fn build_cost(name: &str, n: usize) -> BuildCost {
    let sphere = std::mem::size_of::<Sphere>() as u64;
    let point = std::mem::size_of::<DVec3>() as u64;
    let nn = n as u64;
    // wall-break's slab for `n` spheres: whole rows, plus the projectile.
    let slab = |n: usize| {
        let s = slab_shape(n.saturating_sub(1).max(16));
        (s.layers * s.rows * s.per_row) as u64 + 1
    };
    // container and rubble-pile: k³ ≥ 2n lattice points, sorted (scratch up to as many).
    let lattice = || {
        let k = ((2 * n) as f64).cbrt().ceil() as u64 | 1;
        2 * k * k * k * point
    };
    let (spheres, peak) = match name {
        "wall-break" => {
            let c = slab(n);
            (c, c * sphere)
        }
        "wall-stand" => {
            let cands = wall_stand_scales(n).map(slab);
            let most = cands.into_iter().max().unwrap_or(0);
            (most, cands.iter().sum::<u64>() * sphere)
        }
        "container" | "rubble-pile" => (nn, lattice() + nn * sphere),
        "plummer" => (nn, nn * (sphere + 2 * point)),
        "pile" => {
            let c = nn + pile_carpet_bound(n);
            (c, c * sphere + pile_disc_bound(n) * 2 * 8)
        }
        "pi-blocks" => (2, 2 * sphere),
        "hopper-flow" => {
            let c = nn + hopper_carpet_bound(n);
            (c, c * sphere)
        }
        _ => (nn, nn * sphere),
    };
    let kept = spheres * (sphere + CHECK_BYTES_PER_SPHERE);
    BuildCost {
        spheres,
        peak: peak.max(kept),
        kept,
    }
}

/// The backend that will step a scene, for [`check_size`]: its name for the message and the
/// host bytes it needs for a scene like `probe` (overrides applied) of the given sphere count.
pub type BackendCost<'a> = (&'a str, &'a dyn Fn(&Scene, u64) -> u64);

/// Refuses, before anything is built, a built-in scene of `n` requested spheres that the engine
/// cannot index (more than [`MAX_SPHERES`](super::check::MAX_SPHERES), `u32` ids) or that does
/// not fit in `available` bytes (`None`: unknown, only the index limit is checked).
///
/// The need is the larger of the builder's peak and what the scene keeps plus the backend's
/// bytes ([`build_cost`]; with `backend`, its cost for a small build of the same scene, which
/// carries the scene's contact law, rotation and gravity solver, scaled to the count).
///
/// # Errors
/// [`SceneError::Other`] naming the scene, the count, the estimate and what is available in
/// bytes and GiB, and the largest count that fits; errors of building the small probe scene
/// (an unknown name).
pub fn check_size(
    name: &str,
    n: usize,
    backend: Option<BackendCost<'_>>,
    available: Option<u64>,
) -> Result<(), SceneError> {
    let max = super::check::MAX_SPHERES;
    if n > max {
        return Err(SceneError::Other(format!(
            "built-in scene `{name}` with {n} particles: the engine indexes at most {max} \
             spheres (u32 ids); choose a smaller {}",
            crate::naming::Setting::Particles
        )));
    }
    // pi-blocks has exactly two spheres; build() says so for any other count.
    let Some(available) = available.filter(|_| name != "pi-blocks") else {
        return Ok(());
    };
    let probe = match backend {
        Some(_) => Some(build(name, Some(probe_count(name)))?),
        None => None,
    };
    let need = |m: usize| {
        let cost = build_cost(name, m);
        let extra = match (backend, &probe) {
            (Some((_, bytes)), Some(p)) => bytes(p, cost.spheres),
            _ => 0,
        };
        cost.peak.max(cost.kept.saturating_add(extra))
    };
    let bytes = need(n);
    if bytes <= available {
        return Ok(());
    }
    // Largest count that fits: the need grows with the count.
    let (mut lo, mut hi) = (0usize, n);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if need(mid) <= available {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    let who = match backend {
        Some((label, _)) => format!("the scene and the {label}"),
        None => "building the scene".to_string(),
    };
    Err(SceneError::Other(format!(
        "built-in scene `{name}` with {n} particles does not fit in memory: {who} need about \
         {bytes} bytes ({:.1} GiB), but {available} bytes ({:.1} GiB) are available \
         (MemAvailable); at most about {lo} particles fit; choose a smaller {}",
        gib(bytes),
        gib(available),
        crate::naming::Setting::Particles
    )))
}

/// The smallest count every builder takes: a cheap build that carries the scene's settings.
fn probe_count(name: &str) -> usize {
    match name {
        "wall-break" | "wall-stand" => 17,
        _ => 2,
    }
}

/// Uniform sample in `[lo, hi)`; `lo` when the interval is empty (never panics).
fn uniform(rng: &mut Pcg64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.random::<f64>()
}

/// A free sphere with no material.
fn sphere(position: DVec3, velocity: DVec3, radius: f64, mass: f64, restitution: f64) -> Sphere {
    Sphere {
        position,
        velocity,
        angular_velocity: glam::DVec3::ZERO,
        radius,
        mass,
        restitution,
        material: None,
        fixed: false,
        surface: Surface::default(),
        image: [0; 3],
    }
}

// ---------------------------------------------------------------------------------------------
// wall-break

/// Radius of a wall sphere in `wall-break`, m.
pub const WALL_RADIUS: f64 = 0.01;
/// Speed of the projectile in `wall-break`, m/s (along +x).
pub const WALL_PROJECTILE_SPEED: f64 = 20.0;

/// Shape of the close-packed slab: `layers` close-packed (111) layers stacked along x, each with
/// `rows` rows along z of `per_row` spheres along y.
#[derive(Clone, Copy, Debug)]
struct SlabShape {
    layers: usize,
    per_row: usize,
    rows: usize,
}

/// Picks the slab whose count is closest to `target`, preferring 6 layers and a square face.
/// Needs `target >= 16` (4 layers of 2 × 2).
fn slab_shape(target: usize) -> SlabShape {
    // Row pitch over in-row pitch of a triangular lattice: h / d = √3 / 2.
    let row_ratio = 3f64.sqrt() / 2.0;
    let mut best = SlabShape {
        layers: 4,
        per_row: 2,
        rows: 2,
    };
    let mut best_score = f64::INFINITY;
    for layers in 4..=8usize {
        let per_layer = target as f64 / layers as f64;
        // Square face: per_row · d = rows · h, per_row · rows = per_layer.
        let ideal = (per_layer * row_ratio).sqrt();
        let lo = ((ideal * 0.75).floor() as usize).max(2);
        let hi = ((ideal * 1.35).ceil() as usize).max(lo);
        for per_row in lo..=hi {
            let exact = target as f64 / (layers * per_row) as f64;
            for rows in [exact.floor() as usize, exact.ceil() as usize] {
                if rows < 2 {
                    continue;
                }
                let count = layers * per_row * rows;
                let rel_err = (count as f64 - target as f64).abs() / target as f64;
                let aspect = (rows as f64 * row_ratio / per_row as f64).ln().abs();
                let score = rel_err + 0.02 * aspect + 0.002 * (layers as f64 - 6.0).abs();
                if score < best_score {
                    best_score = score;
                    best = SlabShape {
                        layers,
                        per_row,
                        rows,
                    };
                }
            }
        }
    }
    best
}

/// `wall-break`: a close-packed (fcc, ABC-stacked) slab of touching wood spheres, 4–8 layers
/// thick along x with a square-ish face in y–z, centred on the x axis with its front face at
/// x = 0, and a steel projectile flying along +x at its centre.
///
/// - Wall spheres: radius [`WALL_RADIUS`] = 0.01 m, wood (700 kg/m³, e = 0.5), at rest. Nearest
///   neighbours are `2r (1 + 1e-9)` apart: touching, with a hair of gap so that f64 rounding never
///   makes an overlap.
/// - Projectile: steel (7850 kg/m³, e = 5/9 ≈ 0.556), radius `max(5 r, W/10)` with W the larger
///   face extent of the wall (≥ 1400× a wall sphere's mass), speed 20 m/s, starting 2 r in front
///   of the wall. It is the last sphere.
/// - No gravity, impulse contacts, dt = 1e-4 s (the projectile moves r/5 per step), and enough
///   steps (at least 1500) to carry it 1.5× its diameter plus the wall's thickness.
fn wall_break(n: usize) -> Result<Scene, SceneError> {
    const MIN: usize = 17;
    if n < MIN {
        return Err(SceneError::Other(format!(
            "built-in scene `wall-break` needs at least {MIN} particles (4 layers of 2 × 2 and the \
             projectile), got {n}"
        )));
    }
    let r = WALL_RADIUS;
    let shape = slab_shape(n - 1);
    let wood = Material::wood();
    let steel = Material::steel();
    let wall_mass = wood.density * sphere_volume(r);

    // Close-packed geometry with nearest-neighbour distance d: rows of a layer are h apart,
    // layers c apart; B and C layers sit over the two kinds of triangle holes of an A layer.
    let d = 2.0 * r * (1.0 + 1e-9);
    let h = d * 3f64.sqrt() / 2.0;
    let c = d * (2.0f64 / 3.0).sqrt();
    let offsets = [(0.0, 0.0), (0.5 * d, h / 3.0), (0.0, 2.0 * h / 3.0)];
    let lattice = |layer: usize, row: usize, i: usize| -> DVec3 {
        let (oy, oz) = offsets[layer % 3];
        DVec3::new(
            r + layer as f64 * c,
            (i as f64 + 0.5 * (row % 2) as f64) * d + oy,
            row as f64 * h + oz,
        )
    };
    let count = shape.layers * shape.rows * shape.per_row;
    let mut spheres = Vec::with_capacity(count + 1);
    let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
    for layer in 0..shape.layers {
        for row in 0..shape.rows {
            for i in 0..shape.per_row {
                let position = lattice(layer, row, i);
                lo = lo.min(position);
                hi = hi.max(position);
                spheres.push(Sphere {
                    position,
                    velocity: DVec3::ZERO,
                    angular_velocity: glam::DVec3::ZERO,
                    radius: r,
                    mass: wall_mass,
                    restitution: wood.restitution,
                    material: Some(0),
                    fixed: false,
                    surface: Surface::of(&wood),
                    image: [0; 3],
                });
            }
        }
    }
    // Centre the face on the x axis (the front face stays at x = 0).
    let centre = DVec3::new(0.0, 0.5 * (lo.y + hi.y), 0.5 * (lo.z + hi.z));
    for s in &mut spheres {
        s.position -= centre;
    }

    let width = (hi.y - lo.y).max(hi.z - lo.z) + 2.0 * r;
    let thickness = hi.x - lo.x + 2.0 * r;
    let big_r = (5.0 * r).max(0.1 * width);
    let gap = 2.0 * r;
    spheres.push(Sphere {
        position: DVec3::new(-big_r - gap, 0.0, 0.0),
        velocity: DVec3::new(WALL_PROJECTILE_SPEED, 0.0, 0.0),
        angular_velocity: glam::DVec3::ZERO,
        radius: big_r,
        mass: steel.density * sphere_volume(big_r),
        restitution: steel.restitution,
        material: Some(1),
        fixed: false,
        surface: Surface::of(&steel),
        image: [0; 3],
    });

    let dt = 1e-4;
    let travel = 1.5 * (gap + thickness + 2.0 * big_r);
    let steps = ((travel / (WALL_PROJECTILE_SPEED * dt)).ceil() as u64).max(1500);
    Ok(Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt,
            steps,
            restitution: wood.restitution,
            ..SimParams::default()
        },
        materials: vec![wood, steel],
        containers: Vec::new(),
        spheres,
        planes: Vec::new(),
    })
}

/// Time the `wall-stand` wall stands on its own before the projectile reaches it, s.
pub const WALL_STAND_SETTLE: f64 = 5e-3;

/// `wall-stand`: the `wall-break` wall, made of rubber balls, standing under gravity
/// `(0, 0, −9.81)` m/s² (along the wall's rows) on a rubber floor plane under its lowest sphere,
/// with the Hertz law and friction, until the steel projectile hits it.
///
/// - Rubber (E = 10 MPa, μ = 0.8, e = 0.8, 1100 kg/m³): a close-packed wall stands only with
///   μ ≥ tan 30° ≈ 0.58, the slope at which the end sphere of a row rests on the one below it;
///   wood's μ = 0.2 lets the edges slide off. Pairs take the smaller μ (steel 0.57).
/// - The slab keeps 3k + 1 of its close-packed layers (4 or 7), so that both faces are A layers,
///   whose bottom rows stand on the floor. A face of B or C spheres would hang in the hollows of
///   a single neighbouring layer with gravity along the face, which holds only with μ ≥ √2.
/// - The projectile starts [`WALL_STAND_SETTLE`] × 20 m/s farther away than in `wall-break`, so
///   the wall stands on its own for 5 ms first, and is lifted clear of the floor when the wall
///   is lower than it.
/// - dt is the engine's suggestion, `t_c / 20` ([`Scene::contact_time`], rounded down to two
///   digits); the steps carry the projectile through the wall as in `wall-break`.
fn wall_stand(n: usize) -> Result<Scene, SceneError> {
    // The cut drops 1/5 to 1/2 of the slab's layers: build a larger slab when that comes
    // closer to the requested count.
    let mut scene = wall_stand_scales(n)
        .into_iter()
        .map(wall_stand_slab)
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .min_by_key(|s| s.spheres.len().abs_diff(n))
        .expect("candidates are built");
    let rubber = Material::rubber();
    let last = scene.spheres.len() - 1;
    for s in &mut scene.spheres[..last] {
        s.mass = rubber.density * sphere_volume(s.radius);
        s.restitution = rubber.restitution;
        s.surface = Surface::of(&rubber);
    }
    scene.materials[0] = rubber.clone();
    let floor = scene.spheres[..last]
        .iter()
        .map(|s| s.position.z - s.radius)
        .fold(f64::INFINITY, f64::min);
    let projectile = &mut scene.spheres[last];
    projectile.position.x -= WALL_PROJECTILE_SPEED * WALL_STAND_SETTLE;
    projectile.position.z = projectile
        .position
        .z
        .max(floor + projectile.radius + WALL_RADIUS);
    let travel = -projectile.position.x + projectile.radius;
    scene.sim.gravity = DVec3::new(0.0, 0.0, -9.81);
    scene.sim.contact = super::ContactModel::Hertz;
    scene.sim.restitution = rubber.restitution;
    scene.sim.surface = Surface::of(&rubber);
    scene.planes = vec![Plane {
        point: DVec3::new(0.0, 0.0, floor),
        normal: DVec3::Z,
        restitution: rubber.restitution,
        surface: Surface::of(&rubber),
        velocity: DVec3::ZERO,
    }];
    let t = scene
        .contact_time()
        .expect("a Hertz scene with movable spheres has a contact time");
    let dt = round_down_2(t.suggested_dt());
    let thickness = scene.spheres[..last]
        .iter()
        .map(|s| s.position.x)
        .fold(0.0, f64::max);
    scene.sim.dt = dt;
    scene.sim.steps = ((travel + 1.5 * thickness) / WALL_PROJECTILE_SPEED / dt).ceil() as u64;
    Ok(scene)
}

/// The counts of the candidate `wall-break` slabs that `wall-stand` builds for `n` spheres.
fn wall_stand_scales(n: usize) -> [usize; 5] {
    [1.0, 5.0 / 4.0, 6.0 / 4.0, 8.0 / 7.0, 2.0]
        .map(|scale| (n.saturating_sub(1) as f64 * scale) as usize + 1)
}

/// The `wall-break` scene for `n` spheres with its slab cut to 3k + 1 layers (projectile last).
fn wall_stand_slab(n: usize) -> Result<Scene, SceneError> {
    let mut scene = wall_break(n)?;
    // Layer k of the slab lies at x = r + k c (wall_break's lattice).
    let c = 2.0 * WALL_RADIUS * (1.0 + 1e-9) * (2.0f64 / 3.0).sqrt();
    let layer = |x: f64| ((x - WALL_RADIUS) / c).round() as i64;
    let projectile = scene.spheres.pop().expect("wall_break builds a projectile");
    let layers = scene
        .spheres
        .iter()
        .map(|s| layer(s.position.x))
        .max()
        .unwrap_or(0)
        + 1;
    let keep = 3 * ((layers - 1) / 3) + 1;
    scene.spheres.retain(|s| layer(s.position.x) < keep);
    scene.spheres.push(projectile);
    Ok(scene)
}

/// Simulated time of `container`, s.
pub const CONTAINER_TIME: f64 = 0.5;

/// `container`: `n` rubber spheres (radius 1 cm, [`Material::rubber`]) at the points of a cubic
/// lattice (pitch 2.5 cm) nearest the centre of a steel spherical container, with random
/// velocities of up to 1 m/s per component (fixed seed), falling under gravity `(0, −9.81, 0)`
/// m/s². The container's inner radius leaves 10 % of it free around the lattice. Hertz contact
/// with friction (rubber μ = 0.8, steel 0.57; pairs take the smaller); dt is the engine's
/// suggestion `t_c / 20` rounded down to two digits; [`CONTAINER_TIME`] of simulated time.
fn container(n: usize) -> Scene {
    let rubber = Material::rubber();
    let steel = Material::steel();
    let (r, pitch) = (0.01, 0.025);
    // Lattice points by distance from the centre; k³ ≥ 2n of them, so the nearest n form a ball.
    let k = ((2 * n) as f64).cbrt().ceil() as i64 | 1;
    let h = k / 2;
    let mut points: Vec<DVec3> = Vec::with_capacity((k * k * k) as usize);
    for x in -h..=h {
        for y in -h..=h {
            for z in -h..=h {
                points.push(DVec3::new(x as f64, y as f64, z as f64) * pitch);
            }
        }
    }
    points.sort_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
    points.truncate(n);
    let reach = points.last().map_or(0.0, |p| p.length()) + r;
    let big = reach / 0.9;
    let mut rng = Pcg64::seed_from_u64(7);
    let mass = rubber.density * sphere_volume(r);
    let spheres = points
        .into_iter()
        .map(|p| {
            let v = DVec3::new(
                uniform(&mut rng, -1.0, 1.0),
                uniform(&mut rng, -1.0, 1.0),
                uniform(&mut rng, -1.0, 1.0),
            );
            Sphere {
                material: Some(0),
                surface: Surface::of(&rubber),
                ..sphere(p, v, r, mass, rubber.restitution)
            }
        })
        .collect();
    let mut scene = Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            contact: super::ContactModel::Hertz,
            restitution: rubber.restitution,
            surface: Surface::of(&rubber),
            ..SimParams::default()
        },
        containers: vec![super::SphereContainer {
            center: DVec3::ZERO,
            radius: big,
            restitution: steel.restitution,
            surface: Surface::of(&steel),
        }],
        materials: vec![rubber, steel],
        spheres,
        planes: Vec::new(),
    };
    at_suggested_dt(&mut scene, CONTAINER_TIME);
    scene
}

// ---------------------------------------------------------------------------------------------
// pile

/// The grains of `pile` and `shear-cell`: E = 10 MPa (soft, for a usable step), ν = 0.3,
/// μ = 0.5, no rolling friction.
const SOFT_GRAIN: Surface = Surface {
    youngs_modulus: 1e7,
    poisson_ratio: 0.3,
    friction: 0.5,
    rolling_friction: 0.0,
};

/// Density of `pile`'s and `shear-cell`'s grains, kg/m³ (glass-like).
const GRAIN_DENSITY: f64 = 2500.0;

/// Grain radius of `pile`, m.
pub const PILE_RADIUS: f64 = 0.005;
/// Simulated time of `pile`, s: the column falls, spreads and comes to rest.
pub const PILE_TIME: f64 = 1.0;

/// `pile`: the lifted-cylinder test of an angle of repose. `n` grains (r = [`PILE_RADIUS`],
/// glass-like density 2500 kg/m³, e = 0.5, E = 10 MPa (soft, for a usable step), ν = 0.3,
/// μ = 0.5) fill a vertical cylinder of height about its diameter on a square lattice of pitch
/// 2.1 r (jittered by ±0.02 r, seed 11), at rest; the cylinder is gone at t = 0. The floor, a
/// plane at z = 0 with the same surface, is carpeted out to three column radii with fixed grains
/// on a square lattice of pitch 3 r (a rough floor, so that the heap cannot slide off; these
/// add to the count). Gravity (0, 0, −9.81) m/s², Hertz contact, rotation on; no rolling
/// friction (set it with `--rolling-friction`). dt is `t_c / 20` rounded down to two digits;
/// [`PILE_TIME`] of simulated time. `spheresim repose` measures the heap's angle from the final
/// state (docs/physics.md §2.7).
fn pile(n: usize) -> Scene {
    let r = PILE_RADIUS;
    let grain = SOFT_GRAIN;
    let e = 0.5;
    let mass = GRAIN_DENSITY * sphere_volume(r);
    let pitch = 2.1 * r;
    let cells = pile_cells(n);
    let cells_r = cells.ceil() as i64;
    let mut disc: Vec<(f64, f64)> = Vec::new();
    for i in -cells_r..=cells_r {
        for j in -cells_r..=cells_r {
            let (x, y) = (i as f64, j as f64);
            if x * x + y * y <= cells * cells {
                disc.push((x * pitch, y * pitch));
            }
        }
    }
    disc.sort_by(|a, b| (a.0 * a.0 + a.1 * a.1).total_cmp(&(b.0 * b.0 + b.1 * b.1)));
    let mut rng = Pcg64::seed_from_u64(11);
    // Room for the carpet too, so that it never grows the vector.
    let mut spheres = Vec::with_capacity(n + pile_carpet_bound(n) as usize);
    // The carpet's top is at 2 r; the column's lowest layer rests just above it.
    let base = 3.0 * r + 0.5 * pitch;
    'fill: for layer in 0.. {
        for &(x, y) in &disc {
            if spheres.len() == n {
                break 'fill;
            }
            let jitter = DVec3::new(
                uniform(&mut rng, -0.02, 0.02),
                uniform(&mut rng, -0.02, 0.02),
                0.0,
            ) * r;
            let p = DVec3::new(x, y, base + layer as f64 * pitch) + jitter;
            spheres.push(Sphere {
                surface: grain,
                ..sphere(p, DVec3::ZERO, r, mass, e)
            });
        }
    }
    let carpet_pitch = 3.0 * r;
    let reach = 3.0 * (cells + 1.0) * pitch;
    let k = pile_carpet_half(n);
    for i in -k..=k {
        for j in -k..=k {
            let (x, y) = (i as f64 * carpet_pitch, j as f64 * carpet_pitch);
            if x * x + y * y <= reach * reach {
                spheres.push(Sphere {
                    fixed: true,
                    surface: grain,
                    ..sphere(DVec3::new(x, y, r), DVec3::ZERO, r, mass, e)
                });
            }
        }
    }
    let mut scene = Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            contact: super::ContactModel::Hertz,
            restitution: e,
            surface: grain,
            rotation: true,
            ..SimParams::default()
        },
        planes: vec![Plane {
            point: DVec3::ZERO,
            normal: DVec3::Z,
            restitution: e,
            surface: grain,
            velocity: DVec3::ZERO,
        }],
        containers: Vec::new(),
        materials: Vec::new(),
        spheres,
    };
    at_suggested_dt(&mut scene, PILE_TIME);
    scene
}

/// The `pile` column's radius in pitches for `n` grains: height ≈ diameter, π R² (2R) ≈ n
/// pitches³.
fn pile_cells(n: usize) -> f64 {
    ((n as f64 / (2.0 * PI)).cbrt()).max(1.0)
}

/// Half-width in carpet pitches (3 r) of the square the `pile` carpet is cut from: it reaches
/// 3 (cells + 1) column pitches (2.1 r).
fn pile_carpet_half(n: usize) -> i64 {
    let r = PILE_RADIUS;
    let reach = 3.0 * (pile_cells(n) + 1.0) * (2.1 * r);
    (reach / (3.0 * r)).ceil() as i64
}

/// Most fixed carpet grains `pile` adds for `n` grains (the whole square).
fn pile_carpet_bound(n: usize) -> u64 {
    let side = 2 * pile_carpet_half(n) as u64 + 1;
    side * side
}

/// Most points of the `pile` column's disc for `n` grains (the whole square).
fn pile_disc_bound(n: usize) -> u64 {
    let side = 2 * pile_cells(n).ceil() as u64 + 1;
    side * side
}

/// `x` rounded down to two significant digits (for a time step that reads well).
/// Sets a soft-contact scene's `dt` to its contact time's suggestion (t_c/20, two significant
/// digits, rounded down) and its steps to cover `time` (s).
fn at_suggested_dt(scene: &mut Scene, time: f64) {
    let t = scene
        .contact_time()
        .expect("a Hertz scene with movable spheres has a contact time");
    scene.sim.dt = round_down_2(t.suggested_dt());
    scene.sim.steps = (time / scene.sim.dt).ceil() as u64;
}

fn round_down_2(x: f64) -> f64 {
    let scale = 10f64.powi(x.log10().floor() as i32 - 1);
    (x / scale).floor() * scale
}

// ---------------------------------------------------------------------------------------------
// box-gas

/// The `box-gas` neighbour-list skin as a fraction of its radius (the default is
/// [`super::DEFAULT_SKIN_FRACTION`]).
pub const BOX_GAS_SKIN_FRACTION: f64 = 0.6;

/// `box-gas`: `n` elastic spheres (radius 0.01 m, mass 1e-3 kg, e = 1) in a closed cube centred
/// at the origin, bounded by six elastic planes, at a volume fraction of 10 %.
///
/// The cube is cut into `k³ ≥ n` cells (`k = ⌈∛n⌉`); the spheres take `n` cells spread evenly
/// through them, each jittered about its cell centre by up to 90 % of the free play, so no two
/// spheres touch and none touches a wall. Where `n` is far from a cube (only for small `n`) the
/// cell edge is kept at ≥ 2.4 r and the fraction drops below 10 %. Velocity components are
/// uniform in [−1, 1] m/s (seed 2). No gravity; dt = 2e-4 s, so the fastest initial sphere
/// (√3 m/s) moves r/29 per step; 2000 steps (0.4 s, roughly 20 collisions per sphere). The
/// neighbour-list skin is 0.6 r (6 mm), set here before it became the default for every scene:
/// a gas travels far between collisions, and the longer skin rebuilds the list about a third as
/// often as r/4, which both backends measured faster (benches/RESULTS.md, 2026-11-26).
fn box_gas(n: usize) -> Scene {
    let r = 0.01;
    let mass = 1e-3;
    let fraction = 0.10;
    let mut k = (n as f64).cbrt().round() as usize;
    while k * k * k < n {
        k += 1;
    }
    let side_for_fraction = (n as f64 * sphere_volume(r) / fraction).cbrt();
    let a = (side_for_fraction / k as f64).max(2.4 * r);
    let side = a * k as f64;
    let half = 0.5 * side;
    let jitter = 0.9 * (0.5 * a - r);
    let cells = (k * k * k) as u64;

    let mut rng = Pcg64::seed_from_u64(2);
    let mut spheres = Vec::with_capacity(n);
    for i in 0..n as u64 {
        // Strictly increasing in i because cells ≥ n: distinct cells.
        let cell = (i as u128 * cells as u128 / n as u128) as usize;
        let (ix, iy, iz) = (cell % k, (cell / k) % k, cell / (k * k));
        let centre = DVec3::new(
            (ix as f64 + 0.5) * a - half,
            (iy as f64 + 0.5) * a - half,
            (iz as f64 + 0.5) * a - half,
        );
        let offset = DVec3::new(
            uniform(&mut rng, -jitter, jitter),
            uniform(&mut rng, -jitter, jitter),
            uniform(&mut rng, -jitter, jitter),
        );
        let velocity = DVec3::new(
            uniform(&mut rng, -1.0, 1.0),
            uniform(&mut rng, -1.0, 1.0),
            uniform(&mut rng, -1.0, 1.0),
        );
        spheres.push(sphere(centre + offset, velocity, r, mass, 1.0));
    }
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 2e-4,
            steps: 2000,
            skin: Some(BOX_GAS_SKIN_FRACTION * r),
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: Scene::box_planes(
            DVec3::splat(-half),
            DVec3::splat(half),
            1.0,
            Surface::default(),
        )
        .to_vec(),
    }
}

// ---------------------------------------------------------------------------------------------
// shear-cell

/// Grain radius of `shear-cell`, m.
pub const SHEAR_CELL_RADIUS: f64 = 5e-3;
/// Wall speed of `shear-cell`, m/s: the walls move at ∓ this along x.
pub const SHEAR_CELL_WALL_SPEED: f64 = 0.5;

/// `shear-cell`: `n` grains on a jittered lattice at about 43 % volume fraction (45 % in the lattice, less with the walls' clearance) in a cell
/// periodic in x and z (edge L, at least 6 diameters) between a floor at y = 0 and a lid at
/// y = H ≥ L, the floor moving at −U and the lid at +U along x (U = [`SHEAR_CELL_WALL_SPEED`]);
/// the grains start on the linear profile between them. Plane Couette flow at constant volume,
/// the set-up of granular rheology (GDR MiDi, Eur. Phys. J. E 14 (2004) 341).
fn shear_cell(n: usize) -> Scene {
    let r = SHEAR_CELL_RADIUS;
    let grain = SOFT_GRAIN;
    let e = 0.7;
    let mass = GRAIN_DENSITY * sphere_volume(r);
    let side = (n as f64 * sphere_volume(r) / 0.45).cbrt().max(12.0 * r);
    // Lattice sites in the cube, k a side, at least 2.05 r apart and clear of the walls.
    let mut k = (n as f64).cbrt().ceil() as usize;
    while k * k * k < n {
        k += 1;
    }
    let a = side / k as f64;
    let side = side.max(k as f64 * 2.05 * r + 2.0 * r);
    let a = a.max(2.05 * r);
    let jitter = 0.45 * (a - 2.05 * r);
    let u = SHEAR_CELL_WALL_SPEED;
    let mut rng = Pcg64::seed_from_u64(5);
    let sites = (k * k * k) as u64;
    let mut spheres = Vec::with_capacity(n);
    for i in 0..n as u64 {
        let cell = (i as u128 * sites as u128 / n as u128) as usize;
        let (ix, iy, iz) = (cell % k, (cell / k) % k, cell / (k * k));
        let p = DVec3::new(
            (ix as f64 + 0.5) * a + uniform(&mut rng, -jitter, jitter),
            r + (iy as f64 + 0.5) * (side - 2.0 * r) / k as f64,
            (iz as f64 + 0.5) * a + uniform(&mut rng, -jitter, jitter),
        );
        let profile = u * (2.0 * p.y / side - 1.0);
        let v = DVec3::new(profile, 0.0, 0.0)
            + DVec3::new(
                uniform(&mut rng, -0.1, 0.1),
                uniform(&mut rng, -0.1, 0.1),
                uniform(&mut rng, -0.1, 0.1),
            ) * u;
        spheres.push(Sphere {
            surface: grain,
            ..sphere(p, v, r, mass, e)
        });
    }
    let wall = |y: f64, normal: DVec3, vx: f64| Plane {
        point: DVec3::new(0.0, y, 0.0),
        normal,
        restitution: e,
        surface: grain,
        velocity: DVec3::new(vx, 0.0, 0.0),
    };
    let lattice = k as f64 * a;
    let mut scene = Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            contact: super::ContactModel::Hertz,
            restitution: e,
            surface: grain,
            rotation: true,
            periodic: super::Periodic::new(
                [true, false, true],
                DVec3::ZERO,
                DVec3::new(lattice, side, lattice),
            ),
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: vec![wall(0.0, DVec3::Y, -u), wall(side, DVec3::NEG_Y, u)],
    };
    at_suggested_dt(&mut scene, SHEAR_CELL_TIME);
    scene
}

/// Sheared time of `shear-cell`, s: about 10 strain units at the cell's default size.
pub const SHEAR_CELL_TIME: f64 = 1.0;

// ---------------------------------------------------------------------------------------------
// hopper-flow

/// Grain radius of `hopper-flow`, m.
pub const HOPPER_RADIUS: f64 = 5e-3;
/// Orifice of `hopper-flow`, grain diameters: the circle about the silo's axis that the carpet
/// leaves clear.
pub const HOPPER_ORIFICE: f64 = 6.0;
/// Simulated time of `hopper-flow`, s: the column packs in about 0.3 s, then discharges at a
/// steady rate.
pub const HOPPER_TIME: f64 = 1.0;
/// Steps between two passes of `hopper-flow`'s outflow (about 0.044 s at its dt).
pub const HOPPER_OUTFLOW_EVERY: u64 = 1000;
/// Packing of `hopper-flow`'s column, for its height's estimate: one grain per cube of this
/// edge, grain diameters.
const HOPPER_PITCH: f64 = 1.1;
/// Height of the region `hopper-flow` is filled in, columns: the insertion places the grains
/// at about half the column's packing, where random placement still finds room.
const HOPPER_FILL: f64 = 2.0;

/// The `hopper-flow` silo's side for `n` grains, grain diameters: the column about 1.5 times as
/// tall as wide, and at least three orifices wide.
fn hopper_side(n: usize) -> f64 {
    (HOPPER_PITCH * (n as f64 / 1.5).cbrt())
        .ceil()
        .max(3.0 * HOPPER_ORIFICE)
}

/// Most fixed carpet grains `hopper-flow` adds for `n` grains (the whole square).
fn hopper_carpet_bound(n: usize) -> u64 {
    let k = (2.0 * hopper_side(n)).round() as u64;
    k * k
}

/// `hopper-flow`: a flat-bottomed square silo discharging through a circular orifice, the set-up
/// of Beverloo's law (Beverloo, Leniger and van de Velde, Chem. Eng. Sci. 15 (1961) 260). A
/// silo of side L ([`hopper_side`]) walled by four planes; its floor is a carpet of fixed grains
/// of radius r/2 touching on a square lattice, their tops at y = 0, minus those within
/// ([`HOPPER_ORIFICE`] d)/2 + r/2 of the axis. An insertion fills it before the first step:
/// `n` grains (r = [`HOPPER_RADIUS`], 2500 kg/m³, E = 10 MPa, ν = 0.3, e = 0.5, μ = 0.5,
/// rotation on, Hertz) at rest, at random where they overlap nothing, in the silo up to
/// [`HOPPER_FILL`] heights of the packed column (those that find no room come every
/// [`HOPPER_OUTFLOW_EVERY`] steps until all `n` are in). Under gravity (0, −9.81, 0) m/s² they
/// fall, pack and discharge towards a basin whose floor lies 1.5 column heights below; grains
/// one column height below the carpet leave through an outflow every
/// [`HOPPER_OUTFLOW_EVERY`] steps. Measured: benches/hopper/beverloo.py.
fn hopper_flow(n: usize) -> Scene {
    hopper_flow_with_orifice(n, HOPPER_ORIFICE)
}

/// `hopper-flow` (see the built-in's description) with `n` grains and an orifice of `orifice`
/// grain diameters (> 0; the silo's side stays at least 3 × [`HOPPER_ORIFICE`] diameters): the
/// silos of a Beverloo sweep.
pub fn hopper_flow_with_orifice(n: usize, orifice: f64) -> Scene {
    let r = HOPPER_RADIUS;
    let d = 2.0 * r;
    let grain = SOFT_GRAIN;
    let e = 0.5;
    let side = hopper_side(n) * d;
    let pitch = HOPPER_PITCH * d;
    let m = ((side - d) / pitch).floor() as usize + 1;
    let mut spheres = Vec::with_capacity(hopper_carpet_bound(n) as usize);
    let height = (n.div_ceil(m * m)) as f64 * pitch;
    let rc = r / 2.0;
    // The carpet never moves; its mass only matters for mutual gravity, which this scene lacks.
    let carpet_mass = GRAIN_DENSITY * sphere_volume(rc);
    let k = (side / (2.0 * rc)).round() as usize;
    let hole = orifice * d / 2.0 + rc;
    for i in 0..k {
        for j in 0..k {
            let (x, z) = (rc + 2.0 * rc * i as f64, rc + 2.0 * rc * j as f64);
            if (x - side / 2.0).hypot(z - side / 2.0) >= hole {
                spheres.push(Sphere {
                    fixed: true,
                    surface: grain,
                    ..sphere(DVec3::new(x, -rc, z), DVec3::ZERO, rc, carpet_mass, e)
                });
            }
        }
    }
    let wall = |point: DVec3, normal: DVec3| Plane {
        point,
        normal,
        restitution: e,
        surface: grain,
        velocity: DVec3::ZERO,
    };
    let fill = Insert {
        region: InsertRegion::Box {
            min: DVec3::ZERO,
            max: DVec3::new(side, HOPPER_FILL * height, side),
        },
        sizes: InsertSizes::Fixed(r),
        amount: InsertAmount::Count(n as u64),
        every: HOPPER_OUTFLOW_EVERY,
        start: 0,
        total: Some(n as u64),
        velocity: DVec3::ZERO,
        density: GRAIN_DENSITY,
        restitution: e,
        material: None,
        surface: grain,
        seed: 13,
    };
    let mut scene = Scene {
        inserts: vec![fill],
        // Grains leave one column height below the carpet, halfway down to the basin's floor.
        outflows: vec![
            Outflow::beyond(DVec3::new(0.0, -height, 0.0), DVec3::NEG_Y)
                .every(HOPPER_OUTFLOW_EVERY),
        ],
        name: String::new(),
        sim: SimParams {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            contact: super::ContactModel::Hertz,
            restitution: e,
            surface: grain,
            rotation: true,
            ..SimParams::default()
        },
        planes: vec![
            wall(DVec3::ZERO, DVec3::X),
            wall(DVec3::new(side, 0.0, 0.0), DVec3::NEG_X),
            wall(DVec3::ZERO, DVec3::Z),
            wall(DVec3::new(0.0, 0.0, side), DVec3::NEG_Z),
            wall(DVec3::new(0.0, -(1.5 * height + 4.0 * d), 0.0), DVec3::Y),
        ],
        containers: Vec::new(),
        materials: Vec::new(),
        spheres,
    };
    // The time step of a grain at the fill's top, the fastest to land.
    scene.spheres.push(Sphere {
        surface: grain,
        ..sphere(
            DVec3::new(side / 2.0, HOPPER_FILL * height - r, side / 2.0),
            DVec3::ZERO,
            r,
            GRAIN_DENSITY * sphere_volume(r),
            e,
        )
    });
    at_suggested_dt(&mut scene, HOPPER_TIME);
    scene.spheres.pop();
    scene
}

// ---------------------------------------------------------------------------------------------
// orbits

/// Newton's gravitational constant used by `orbits`, m³ kg⁻¹ s⁻².
pub const G: f64 = 6.674e-11;
/// Mass of the central body of `orbits`, kg.
pub const ORBITS_CENTRAL_MASS: f64 = 1e12;

/// `orbits`: a central sphere (1e12 kg, radius 1 m, sphere 0) and `n − 1` bodies of 1e3 kg on
/// circular orbits `v = √(G M / ρ)` in the x–z plane, counter-clockwise seen from +y (angular
/// momentum along +y), at radii ρ spread uniformly over [5, 30] m.
///
/// Placement is stratified so that no two bodies overlap: the annulus is cut into K ≈ √(0.8 (n−1))
/// rings of equal width holding equal numbers of bodies (so ρ is uniform in [5, 30] m); within a
/// ring each body has its own angular slot, the ring has a random phase and each body a random
/// radius and angle inside its slot, kept at least 2.2 r apart from every neighbour (seed 3).
/// Vertical offsets are uniform in ±0.01 m. Body radius 0.05 m, shrunk when n is so large that the
/// rings cannot hold bodies that size (≈ 20 mm at 100 k, 6.4 mm at 1 M, 1.6 mm at 16 M).
/// The central body moves so that the total momentum is zero.
/// Mutual gravity G = 6.674e-11, softening 0.01 m, no uniform field, e = 1 (elastic, so energy is
/// conserved by contacts too), dt = 1e-3 s, 10 000 steps (the period at ρ = 5 m is 8.6 s).
fn orbits(n: usize) -> Result<Scene, SceneError> {
    if n < 2 {
        return Err(SceneError::Other(format!(
            "built-in scene `orbits` needs at least 2 particles (the central body and one \
             satellite), got {n}"
        )));
    }
    let (rho_min, rho_max) = (5.0, 30.0);
    let big_m = ORBITS_CENTRAL_MASS;
    let small_m = 1e3;
    let bodies = n - 1;
    let rings = ((0.8 * bodies as f64).sqrt().round() as usize).clamp(1, bodies);
    let per_ring_max = bodies.div_ceil(rings);
    let width = (rho_max - rho_min) / rings as f64;
    // Largest centre separation the layout can guarantee: half a ring width radially, and the
    // chord of half an angular slot on the innermost ring.
    let sep_radial = 0.5 * width;
    let sep_angular = if per_ring_max > 1 {
        2.0 * rho_min * (PI / (2.0 * per_ring_max as f64)).sin()
    } else {
        f64::INFINITY
    };
    let small_r = (0.05f64).min(sep_radial.min(sep_angular) / 2.2);
    let sep = 2.2 * small_r;

    let mut rng = Pcg64::seed_from_u64(3);
    let mut spheres = Vec::with_capacity(n);
    spheres.push(sphere(DVec3::ZERO, DVec3::ZERO, 1.0, big_m, 1.0));
    let mut momentum = DVec3::ZERO;
    for ring in 0..rings {
        let in_ring = bodies / rings + usize::from(ring < bodies % rings);
        let lo = rho_min + ring as f64 * width;
        let hi = lo + width;
        let slot = TAU / in_ring as f64;
        // Angular jitter that keeps neighbours in the ring at least `sep` apart (chord at `lo`).
        let jitter = if in_ring > 1 {
            (1.0 - in_ring as f64 * (sep / (2.0 * lo)).min(1.0).asin() / PI).clamp(0.0, 0.9)
        } else {
            0.0
        };
        let phase = uniform(&mut rng, 0.0, TAU);
        for j in 0..in_ring {
            let rho = uniform(&mut rng, lo + 0.5 * sep, hi - 0.5 * sep);
            let u = uniform(&mut rng, -0.5, 0.5);
            let phi = phase + (j as f64 + 0.5 + jitter * u) * slot;
            let y = uniform(&mut rng, -0.01, 0.01);
            let (s, c) = phi.sin_cos();
            let v = (G * big_m / rho).sqrt();
            let velocity = DVec3::new(v * s, 0.0, -v * c);
            momentum += small_m * velocity;
            spheres.push(sphere(
                DVec3::new(rho * c, y, rho * s),
                velocity,
                small_r,
                small_m,
                1.0,
            ));
        }
    }
    spheres[0].velocity = -momentum / big_m;
    Ok(Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 1e-3,
            steps: 10_000,
            g_const: G,
            softening: 0.01,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: Vec::new(),
    })
}

// ---------------------------------------------------------------------------------------------
// plummer

/// Scale radius `a` of the Plummer sphere in N-body units (G = M = 1, E = −1/4): `3π/16`, m
/// (D. Heggie & R. Mathieu, "Standardised units and time scales", LNP 267, 1986).
pub const PLUMMER_SCALE_RADIUS: f64 = 3.0 * PI / 16.0;

/// Crossing time of a system in N-body units, `2√2` s (Heggie & Mathieu 1986).
pub const NBODY_CROSSING_TIME: f64 = 2.0 * std::f64::consts::SQRT_2;

/// Mass fraction the Plummer sampler keeps: radii enclosing more than this are redrawn (the
/// usual cut, at 22.8 scale radii).
pub const PLUMMER_MASS_CUT: f64 = 0.999;

/// `n` bodies of a Plummer sphere in N-body units (G = 1, total mass 1, energy −1/4; scale
/// radius [`PLUMMER_SCALE_RADIUS`]), as `(position m, velocity m/s)`, centred so that the
/// centre of mass is at rest at the origin. Sampled as S. Aarseth, M. Hénon & R. Wielen,
/// Astron. Astrophys. 37, 183 (1974), appendix: the radius from the cumulative mass
/// `X = r³ / (1 + r²)^{3/2}` (redrawn above [`PLUMMER_MASS_CUT`]), isotropic directions, and the
/// speed as `q v_esc` with `q` drawn by rejection from `q² (1 − q²)^{7/2}`. Seeded with `seed`.
pub fn plummer_bodies(n: usize, seed: u64) -> Vec<(DVec3, DVec3)> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let a = PLUMMER_SCALE_RADIUS;
    // Plummer's own units (a = 1, G = M = 1) to N-body units: lengths × a, speeds × 1/√a.
    let v_unit = 1.0 / a.sqrt();
    let direction = |rng: &mut Pcg64| {
        let z = uniform(rng, -1.0, 1.0);
        let phi = uniform(rng, 0.0, TAU);
        let s = (1.0 - z * z).max(0.0).sqrt();
        DVec3::new(s * phi.cos(), s * phi.sin(), z)
    };
    let mut bodies = Vec::with_capacity(n);
    for _ in 0..n {
        let x = loop {
            let x = rng.random::<f64>();
            if x > 0.0 && x <= PLUMMER_MASS_CUT {
                break x;
            }
        };
        let r = (x.powf(-2.0 / 3.0) - 1.0).powf(-0.5);
        let q = loop {
            let (q, y) = (rng.random::<f64>(), 0.1 * rng.random::<f64>());
            if y < q * q * (1.0 - q * q).powf(3.5) {
                break q;
            }
        };
        let v_escape = std::f64::consts::SQRT_2 * (1.0 + r * r).powf(-0.25);
        bodies.push((
            direction(&mut rng) * (r * a),
            direction(&mut rng) * (q * v_escape * v_unit),
        ));
    }
    let inv_n = 1.0 / n.max(1) as f64;
    let (x0, v0) = bodies
        .iter()
        .fold((DVec3::ZERO, DVec3::ZERO), |(x, v), b| (x + b.0, v + b.1));
    for b in &mut bodies {
        b.0 -= x0 * inv_n;
        b.1 -= v0 * inv_n;
    }
    bodies
}

/// `plummer`: [`plummer_bodies`] (seed 11) as spheres of mass 1/n kg and radius
/// `10⁻⁴ n^{-1/3}` m (so small that contacts are rare: elastic impulses, e = 1). G = 1,
/// softening 0.01 m, gravity by the tree (θ = 0.5), dt = 1/256 s, 724 steps: one crossing time
/// ([`NBODY_CROSSING_TIME`]). A system in equilibrium: its virial ratio 2K/|W| stays near 1.
fn plummer(n: usize) -> Scene {
    let mass = 1.0 / n as f64;
    let radius = 1e-4 * (n as f64).powf(-1.0 / 3.0);
    let spheres = plummer_bodies(n, 11)
        .into_iter()
        .map(|(x, v)| sphere(x, v, radius, mass, 1.0))
        .collect();
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 1.0 / 256.0,
            steps: (NBODY_CROSSING_TIME * 256.0).round() as u64,
            g_const: 1.0,
            softening: 0.01,
            gravity_solver: super::GravitySolver::Tree,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// rubble-pile

/// Simulated time of `rubble-pile`, s: 2.5 free-fall times of the cloud
/// (`t_ff = (π/2) sqrt(R³ / (2 G M)) = 1.11 s` for G = M = R = 1).
pub const RUBBLE_PILE_TIME: f64 = 2.78;

/// Steps of `rubble-pile`: `dt = RUBBLE_PILE_TIME / RUBBLE_PILE_STEPS`, and the Hertz stiffness
/// is chosen so that an impact at [`RUBBLE_PILE_IMPACT_SPEED`] lasts 20 steps.
pub const RUBBLE_PILE_STEPS: u64 = 6000;

/// Approach speed the stiffness of `rubble-pile` is set for, m/s: above the estimate the
/// time-step check makes for this cloud ([`Scene::contact_time`]: twice the largest initial
/// speed, about 0.42 m/s, plus the escape speed `sqrt(4 G M / H)` from a ball of the cloud's
/// diameter H ≈ 2 m, about 1.4 m/s), so that the default step passes its own check.
pub const RUBBLE_PILE_IMPACT_SPEED: f64 = 2.0;

/// `rubble-pile`: `n` equal spheres (mass 1/n kg) filling a ball of radius 1 m at 6.5 % volume
/// fraction: the simple-cubic lattice points nearest the centre, pitch `p = (4π / 3n)^{1/3}` m,
/// each jittered by up to ±0.2 p per axis (seed 5); radius p/4, so no two touch. The cloud
/// turns rigidly about +y at ω = 0.2 sqrt(G M / R³) = 0.2 rad/s and each sphere gets a random
/// velocity of up to 0.01 m/s per axis: cold and slightly rotating. Mutual gravity G = 1 by the
/// tree (θ = 0.5), softening p/8; no uniform field, no walls. The centre of mass is at rest.
/// Hertz contact with Poisson ratio 0.3 and restitution 0.5, frictionless: without rotation
/// (the default) friction would drain the pile's angular momentum. Young's modulus set so that an impact at
/// [`RUBBLE_PILE_IMPACT_SPEED`] lasts 20 time steps (`physics::hertz::contact_duration` solved
/// for E*), [`RUBBLE_PILE_STEPS`] steps over [`RUBBLE_PILE_TIME`]. The cloud falls in within a
/// free-fall time and the spheres collide into a bound pile, spinning faster as it shrinks,
/// whose contacts then dissipate the infall's energy.
fn rubble_pile(n: usize) -> Scene {
    let pitch = (4.0 * PI / (3.0 * n as f64)).cbrt();
    let k = ((2 * n) as f64).cbrt().ceil() as i64 | 1;
    let h = k / 2;
    let mut points: Vec<DVec3> = Vec::with_capacity((k * k * k) as usize);
    for x in -h..=h {
        for y in -h..=h {
            for z in -h..=h {
                points.push(DVec3::new(x as f64, y as f64, z as f64) * pitch);
            }
        }
    }
    points.sort_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
    points.truncate(n);
    let mut rng = Pcg64::seed_from_u64(5);
    let (radius, mass) = (0.25 * pitch, 1.0 / n as f64);
    let omega = DVec3::new(0.0, 0.2, 0.0);
    let poisson = 0.3;
    let dt = RUBBLE_PILE_TIME / RUBBLE_PILE_STEPS as f64;
    // t_c = 2.87 (m*² / (R* E*² v))^{1/5} = 20 dt, solved for E*; equal spheres: m* = m/2,
    // R* = r/2, E = 2 (1 − ν²) E*.
    let (m_star, r_star) = (0.5 * mass, 0.5 * radius);
    let t_c = crate::scene::timestep::STEPS_PER_CONTACT * dt;
    let e_star = (2.87f64.powi(5) * m_star * m_star
        / (r_star * RUBBLE_PILE_IMPACT_SPEED * t_c.powi(5)))
    .sqrt();
    let surface = Surface {
        youngs_modulus: 2.0 * (1.0 - poisson * poisson) * e_star,
        poisson_ratio: poisson,
        friction: 0.0,
        rolling_friction: 0.0,
    };
    let mut spheres: Vec<Sphere> = points
        .into_iter()
        .map(|p| {
            let jitter = DVec3::new(
                uniform(&mut rng, -0.2, 0.2),
                uniform(&mut rng, -0.2, 0.2),
                uniform(&mut rng, -0.2, 0.2),
            ) * pitch;
            let thermal = DVec3::new(
                uniform(&mut rng, -0.01, 0.01),
                uniform(&mut rng, -0.01, 0.01),
                uniform(&mut rng, -0.01, 0.01),
            );
            let x = p + jitter;
            Sphere {
                surface,
                ..sphere(x, omega.cross(x) + thermal, radius, mass, 0.5)
            }
        })
        .collect();
    // Equal masses: the centre-of-mass velocity is the mean velocity.
    let v0 = spheres.iter().map(|s| s.velocity).sum::<DVec3>() / n as f64;
    for s in &mut spheres {
        s.velocity -= v0;
    }
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt,
            steps: RUBBLE_PILE_STEPS,
            g_const: 1.0,
            softening: 0.125 * pitch,
            gravity_solver: super::GravitySolver::Tree,
            contact: super::ContactModel::Hertz,
            restitution: 0.5,
            surface,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: Vec::new(),
    }
}

// ---------------------------------------------------------------------------------------------
// bounce

/// `bounce`: `n` spheres (radius 0.1 m, mass 1 kg, e = 0.7) at rest with centres 1.0 m above the
/// floor plane y = 0 (plane e = 1, so the pair uses 0.7), on a square grid in x–z with 0.5 m
/// pitch centred on the y axis. Gravity (0, −9.81, 0) m/s², dt = 1e-4 s, 20 000 steps (2 s).
/// Each rebound reaches 0.49 of the previous drop height (e²).
fn bounce(n: usize) -> Scene {
    let side = (n as f64).sqrt().ceil() as usize;
    let pitch = 0.5;
    let mid = 0.5 * (side as f64 - 1.0);
    let mut spheres = Vec::with_capacity(n);
    for i in 0..n {
        let (ix, iz) = (i % side, i / side);
        let position = DVec3::new((ix as f64 - mid) * pitch, 1.0, (iz as f64 - mid) * pitch);
        spheres.push(sphere(position, DVec3::ZERO, 0.1, 1.0, 0.7));
    }
    Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 1e-4,
            steps: 20_000,
            gravity: DVec3::new(0.0, -9.81, 0.0),
            restitution: 0.7,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: vec![Plane {
            point: DVec3::ZERO,
            normal: DVec3::Y,
            restitution: 1.0,
            surface: Surface::default(),
            velocity: DVec3::ZERO,
        }],
    }
}

// ---------------------------------------------------------------------------------------------
// two-spheres

/// `two-spheres`: sphere A (radius 0.1 m, 1 kg) at (−0.5, 0, 0) m moving at (2, 0, 0) m/s hits
/// sphere B (radius 0.2 m, 4 kg) at rest at (0.5, 0.15, 0) m: impact parameter 0.15 m of the
/// 0.3 m contact distance, an oblique collision at t ≈ 0.370 s. Restitution 1 (elastic: kinetic
/// energy and momentum are both conserved and the outcome has a closed form, docs/physics.md §1).
/// After it A moves at (−0.4, −1.386, 0) m/s and B at (0.6, 0.346, 0) m/s.
/// No gravity, dt = 1e-4 s, 10 000 steps (1 s).
///
/// With `n > 2` (n must be even), n/2 copies of the pair on a square grid in the y–z plane with a
/// 2 m pitch, centred on the x axis; pair p is spheres 2p (A) and 2p + 1 (B).
fn two_spheres(n: usize) -> Result<Scene, SceneError> {
    if n < 2 || !n.is_multiple_of(2) {
        return Err(SceneError::Other(format!(
            "built-in scene `two-spheres` needs an even particle count of at least 2 (pairs of \
             spheres), got {n}"
        )));
    }
    let pairs = n / 2;
    let side = (pairs as f64).sqrt().ceil() as usize;
    let pitch = 2.0;
    let mid = 0.5 * (side as f64 - 1.0);
    let mut spheres = Vec::with_capacity(n);
    for p in 0..pairs {
        let (iy, iz) = (p % side, p / side);
        let o = DVec3::new(0.0, (iy as f64 - mid) * pitch, (iz as f64 - mid) * pitch);
        spheres.push(sphere(
            o + DVec3::new(-0.5, 0.0, 0.0),
            DVec3::new(2.0, 0.0, 0.0),
            0.1,
            1.0,
            1.0,
        ));
        spheres.push(sphere(
            o + DVec3::new(0.5, 0.15, 0.0),
            DVec3::ZERO,
            0.2,
            4.0,
            1.0,
        ));
    }
    Ok(Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 1e-4,
            steps: 10_000,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: Vec::new(),
    })
}

// ---------------------------------------------------------------------------------------------
// pi-blocks

/// Digits of `pi-blocks` when none are asked for.
pub const PI_BLOCKS_DEFAULT_DIGITS: u32 = 3;
/// Most digits `pi-blocks` accepts: D = 8 takes 31 415 926 events (seconds on the event
/// backend); beyond it the mass ratio 100^(D−1) ≥ 1e16 exceeds what f64 velocities resolve
/// (the heavy sphere's velocity change per collision falls below its rounding).
pub const PI_BLOCKS_MAX_DIGITS: u32 = 8;

/// Time of the last collision of Galperin's billiard with gaps `l` (m) and approach speed `v`
/// (m/s), s, for masses `m` (light) and `big_m` (heavy), kg.
///
/// In the coordinates `(√M g_h, √m g_l)` (g the gaps to the wall) the system is a point moving
/// on a straight line at constant speed inside a wedge of angle `θ = atan √(m/M)`, reflected
/// elastically at its sides (G. Galperin, "Playing pool with π", Regular and Chaotic Dynamics 8
/// (2003) 375). Unfolded, the line crosses the wedge's images at polar angles kθ, k = 1…K with
/// `K = ⌈π/θ⌉ − 1`, one collision each. Starting from `g_l = l`, `g_h = 2l`, the line is
/// `y_l = √m l`, `y_h = √M (2l − v t)`, so it reaches angle Kθ at
/// `t_K = (2l − √(m/M) l / tan Kθ) / v`.
pub fn pi_blocks_last_collision_time(m: f64, big_m: f64, l: f64, v: f64) -> f64 {
    let theta = (m / big_m).sqrt().atan();
    let k = (std::f64::consts::PI / theta).ceil() - 1.0;
    (2.0 * l - (m / big_m).sqrt() * l / (k * theta).tan()) / v
}

/// `pi-blocks` with `digits` = D (Galperin 2003; docs/physics.md §5): a fixed elastic wall (the
/// plane x = 0, normal +x), sphere 0 of mass 1 kg at rest, and sphere 1 of mass 100^(D−1) kg
/// moving at −1 m/s along the x axis towards it; both of radius 0.1 m, gaps of 1 m between wall,
/// light and heavy sphere; all restitutions 1, no gravity. The number of collisions
/// (sphere–sphere and sphere–wall) is the integer formed by the first D digits of π:
/// 3, 31, 314, 3141, …
///
/// The run lasts 1.25 × the time of the last collision from
/// [`pi_blocks_last_collision_time`], in 5000 steps (the event backend does not depend on dt;
/// the time-stepped backends resolve the light sphere's fast bounces only for small D).
///
/// # Errors
/// [`SceneError::Other`] when `digits` is not in 1..=[`PI_BLOCKS_MAX_DIGITS`].
pub fn pi_blocks(digits: u32) -> Result<Scene, SceneError> {
    if !(1..=PI_BLOCKS_MAX_DIGITS).contains(&digits) {
        return Err(SceneError::Other(format!(
            "built-in scene `pi-blocks`: {} must be between 1 and {PI_BLOCKS_MAX_DIGITS}, \
             got {digits} (beyond {PI_BLOCKS_MAX_DIGITS} the mass ratio is too large for f64)",
            crate::naming::Setting::Digits
        )));
    }
    let (r, l, speed) = (0.1, 1.0, 1.0);
    let big_m = 100f64.powi(digits as i32 - 1);
    let x_light = r + l;
    let x_heavy = x_light + 2.0 * r + l;
    let spheres = vec![
        sphere(DVec3::new(x_light, 0.0, 0.0), DVec3::ZERO, r, 1.0, 1.0),
        sphere(
            DVec3::new(x_heavy, 0.0, 0.0),
            DVec3::new(-speed, 0.0, 0.0),
            r,
            big_m,
            1.0,
        ),
    ];
    let duration = 1.25 * pi_blocks_last_collision_time(1.0, big_m, l, speed);
    let steps = 5000;
    Ok(Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: "pi-blocks".to_string(),
        sim: SimParams {
            dt: duration / steps as f64,
            steps,
            ..SimParams::default()
        },
        materials: Vec::new(),
        containers: Vec::new(),
        spheres,
        planes: vec![Plane {
            point: DVec3::ZERO,
            normal: DVec3::X,
            restitution: 1.0,
            surface: Surface::default(),
            velocity: DVec3::ZERO,
        }],
    })
}
