//! TOML scene files.
//!
//! The format is the format documented in docs/scene-files.md, plus four extensions: a `seed`
//! key on `[[block]]`, a `[[box_container]]` generator, `[[sphere_container]]`s and
//! `[[particles_file]]`s, which read spheres from a state CSV (the format of
//! [`write_csv`](crate::output::write_csv), for example the `--final` state of an earlier run).
//! Every table rejects unknown keys. All tables are optional, but a scene must end up with at
//! least one sphere.
//!
//! Sphere ids follow file order within each kind of table, and the kinds in this order: every
//! `[[particle]]`, then the rows of every `[[particles_file]]`, then the spheres of every
//! `[[block]]`.
//!
//! Every body (sphere, plane, container) has a surface: Young's modulus E, Poisson ratio ν and
//! friction coefficient μ. It is its material's, or `[simulation]`'s for a body that names no
//! material. The Hertz law (`contact = "hertz"`, docs/physics.md §2.2) takes `1/E*` as the sum of the
//! two bodies' compliances `(1 − ν²)/E`, and a sphere container's concave wall enters it with
//! `r_b = −R_W`; a pair's friction coefficient is the smaller μ of the two.
//!
//! # Errors
//!
//! TOML syntax errors, unknown keys and values of the wrong type are reported with their line and
//! column (the first one only). Otherwise every problem of the file is reported at once, in file
//! order, one per line (at most [`MAX_REPORTED`](super::check::MAX_REPORTED), then a count of the
//! rest), each naming the table, numbered from 0 in file order like sphere ids, and the line of its
//! header:
//!
//! ```text
//! scene.toml: 2 problems:
//!   [[particle]] #1 at line 6 (sphere 1): radius must be positive and finite, got -0.5
//!   [[block]] #0 at line 30: spacing must be positive and finite, got 0
//! ```
//!
//! Initial overlaps are checked later, by [`Scene::check`] (sphere ids) or [`Origins::check`]
//! (located in the file).
//!
//! ```toml
//! [simulation]                 # every key optional; defaults of SimParams::default()
//! dt = 1e-4                    # s
//! steps = 1000
//! gravity = [0.0, -9.81, 0.0]  # m/s²
//! G = 0.0                      # m³ kg⁻¹ s⁻²; 0 = no mutual gravity
//! softening = 0.0              # m
//! contact = "impulse"          # or "spring-dashpot", "hertz"
//! stiffness = 1e4              # N/m, spring-dashpot only
//! damping = "flores"           # or "hunt-crossley"; the Hertz law's damping
//! drag = 0.0                   # N·s/m²
//! restitution = 1.0            # default for spheres, planes and containers that give none
//! youngs_modulus = 1e8         # Pa, > 0; E of bodies that name no material (default 1e8)
//! poisson_ratio = 0.3          # in (-1, 0.5]; ν of bodies that name no material (default 0.3)
//! friction = 0.0               # ≥ 0; μ of bodies that name no material (default 0)
//! rolling_friction = 0.0       # ≥ 0; μ_r of bodies that name no material (default 0)
//! skin = 0.025                 # m, ≥ 0; soft laws' neighbour-list skin (default 0.6 r_min)
//! gravity_solver = "direct"    # or "tree" (Barnes–Hut, needs G > 0)
//! theta = 0.5                  # the tree's opening angle, in (0, 1.5]
//! rotation = false             # spheres spin under friction torques (soft laws)
//! rolling_model = "cdt"        # or "none"; default cdt when some μ_r > 0 (needs rotation)
//! periodic = [true, true, false]  # periodic axes x, y, z (default none); needs [domain]
//! wall_forces = false          # record each wall's force from the spheres (soft laws)
//!
//! [domain]                     # the periodic box (docs/open-systems.md); only with periodic
//! min = [0.0, 0.0, 0.0]        # m
//! max = [1.0, 1.0, 1.0]        # m; a centre lies in [min, max) on each periodic axis
//!
//! [[material]]                 # presets steel, glass, wood, ivory, rubber need no table;
//! name = "steel"               # a table with a preset's name overrides the keys it gives
//! restitution = 0.556
//! density = 7850.0             # kg/m³
//! youngs_modulus = 200e9       # Pa
//! poisson_ratio = 0.30
//! friction = 0.57              # optional: else the preset's, else 0 (frictionless)
//! rolling_friction = 0.05      # optional: else 0 (no rolling resistance)
//!
//! [[particle]]                 # sphere ids 0, 1, … in file order
//! position = [0.0, -5.0, 0.0]  # m
//! velocity = [0.0, 20.0, 0.0]  # m/s, default 0
//! angular_velocity = [0.0, 0.0, 0.0]  # rad/s, default 0
//! radius = 1.0                 # m
//! mass = 1.0                   # kg; or omit and name a material (mass = ρ 4/3 π r³)
//! material = "steel"           # optional; also gives E, ν, μ (else [simulation]'s)
//! fixed = false                # optional; a fixed sphere needs no mass
//! restitution = 0.9            # optional; else the material's, else [simulation]'s
//!
//! [[particles_file]]           # spheres of a state CSV; ids follow all particles, row by row
//! path = "state.csv"           # relative to the scene file's directory; header starts with
//!                              # id,x,y,z,vx,vy,vz,radius,mass; then wx,wy,wz (read with
//!                              # rotation = true), further columns are ignored
//! material = "glass"           # optional; E, ν, μ of every sphere (the CSV gives the masses)
//! restitution = 0.9            # optional, as for particles
//!
//! [[block]]                    # lattice; its ids follow all particles and particle files,
//!                              # x fastest, then y, z
//! min = [0.0, 0.0, 0.0]        # m, centre of the first sphere
//! count = [10, 10, 10]
//! spacing = 0.02               # m between centres
//! radius = 0.01                # m
//! velocity = [0.0, 0.0, 0.0]   # m/s, default 0
//! mass = 0.001                 # kg, or material
//! material = "glass"
//! restitution = 0.9            # optional, as for particles
//! jitter = 0.0                 # each coordinate moves by up to ±jitter × spacing
//! seed = 0                     # of the Pcg64 generator drawing the jitter
//!
//! [[plane]]
//! point = [0.0, 0.0, 0.0]      # m
//! normal = [0.0, 1.0, 0.0]     # into the domain; normalised on load
//! restitution = 0.7            # default: the material's, else [simulation] restitution
//! material = "steel"           # optional; gives E, ν, μ (else [simulation]'s)
//!
//! [[box_container]]            # six inward planes, after all [[plane]]s
//! min = [-1.0, -1.0, -1.0]     # m
//! max = [1.0, 1.0, 1.0]        # m
//! restitution = 0.7            # default: the material's, else [simulation] restitution
//! material = "wood"            # optional, as for planes
//!
//! [[sphere_container]]         # a hollow sphere; every sphere must lie inside it
//! center = [0.0, 0.0, 0.0]     # m
//! radius = 10.0                # m, inner radius R_W > 0
//! restitution = 0.7            # default: the material's, else [simulation] restitution
//! material = "glass"           # optional, as for planes
//!
//! [[outflow]]                  # spheres whose centres enter it leave the simulation
//! min = [-1.0, -3.0, -1.0]     # m: a box (min, max) ...
//! max = [1.0, -2.0, 1.0]       # m
//! # point = [0.0, -2.0, 0.0]   # ... or a half-space beyond a plane (point, normal: out of
//! # normal = [0.0, -1.0, 0.0]  #     the domain)
//! every = 1000                 # steps between two outflow passes (default 1000)
//!
//! [[insert]]                   # new spheres, placed where they overlap nothing
//! min = [-1.0, 2.0, -1.0]      # m: a box (min, max), or a cylinder (base, cylinder_radius,
//! max = [1.0, 3.0, 1.0]        #    height, axis = "y")
//! radius = 0.05                # or radius_range = [a, b], or radii = [..] with weights = [..]
//! count = 100                  # spheres a pass; or rate (spheres/s) or mass_rate (kg/s)
//! every = 1000                 # steps between two passes (default 1000)
//! start = 0                    # step of the first pass (default: every; 0 before step 1)
//! material = "glass"           # or density (kg/m³); restitution, velocity, seed, total
//! ```

use super::check::{
    MAX_SPHERES, OVERLAP_TOLERANCE, Problem, Subject, did_you_mean, finite3, fmt_vec, non_negative,
    overlap, overlap_reason, positive, report, restitution, suggestion,
};
use super::insert::{
    DEFAULT_INSERT_EVERY, Insert, InsertAmount, InsertBuilder, InsertRegion, InsertSizes,
};
use super::outflow::DEFAULT_OUTFLOW_EVERY;
use super::{
    CheckOptions, ContactModel, Damping, GravitySolver, Material, Outflow, Plane, RollingModel,
    Scene, SceneError, SimParams, Sphere, SphereContainer, Surface,
};
use crate::Snapshot;
use crate::output::OutputError;
use crate::output::csv::{excerpt, read_csv_checked, shorten};
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    simulation: Option<Spanned<SimTable>>,
    #[serde(default)]
    material: Vec<Spanned<MaterialTable>>,
    #[serde(default)]
    particle: Vec<Spanned<ParticleTable>>,
    #[serde(default)]
    particles_file: Vec<Spanned<ParticlesFileTable>>,
    #[serde(default)]
    block: Vec<Spanned<BlockTable>>,
    #[serde(default)]
    plane: Vec<Spanned<PlaneTable>>,
    #[serde(default)]
    box_container: Vec<Spanned<BoxTable>>,
    #[serde(default)]
    sphere_container: Vec<Spanned<SphereContainerTable>>,
    #[serde(default)]
    outflow: Vec<Spanned<OutflowTable>>,
    #[serde(default)]
    insert: Vec<Spanned<InsertTable>>,
    domain: Option<Spanned<DomainTable>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DomainTable {
    min: [f64; 3],
    max: [f64; 3],
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SimTable {
    dt: Option<f64>,
    steps: Option<u64>,
    gravity: Option<[f64; 3]>,
    #[serde(rename = "G")]
    g_const: Option<f64>,
    softening: Option<f64>,
    contact: Option<ContactModel>,
    stiffness: Option<f64>,
    drag: Option<f64>,
    restitution: Option<f64>,
    youngs_modulus: Option<f64>,
    poisson_ratio: Option<f64>,
    friction: Option<f64>,
    rolling_friction: Option<f64>,
    skin: Option<f64>,
    gravity_solver: Option<GravitySolver>,
    theta: Option<f64>,
    rotation: Option<bool>,
    rolling_model: Option<RollingModel>,
    damping: Option<Damping>,
    periodic: Option<[bool; 3]>,
    wall_forces: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialTable {
    name: String,
    restitution: Option<f64>,
    density: Option<f64>,
    youngs_modulus: Option<f64>,
    poisson_ratio: Option<f64>,
    /// Optional even for non-preset materials: frictionless (0) when neither the table nor a
    /// preset of the same name gives it.
    friction: Option<f64>,
    /// Optional: 0 (no rolling resistance) unless given.
    rolling_friction: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParticleTable {
    position: [f64; 3],
    #[serde(default)]
    velocity: [f64; 3],
    #[serde(default)]
    angular_velocity: [f64; 3],
    radius: f64,
    mass: Option<f64>,
    material: Option<String>,
    #[serde(default)]
    fixed: bool,
    restitution: Option<f64>,
}

/// Spheres from a state CSV: position, velocity, radius and mass per row; the table's keys
/// apply to all of them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParticlesFileTable {
    path: String,
    material: Option<String>,
    restitution: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BlockTable {
    min: [f64; 3],
    count: [u64; 3],
    spacing: f64,
    radius: f64,
    #[serde(default)]
    velocity: [f64; 3],
    mass: Option<f64>,
    material: Option<String>,
    restitution: Option<f64>,
    #[serde(default)]
    jitter: f64,
    #[serde(default)]
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaneTable {
    point: [f64; 3],
    normal: [f64; 3],
    velocity: Option<[f64; 3]>,
    restitution: Option<f64>,
    material: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoxTable {
    min: [f64; 3],
    max: [f64; 3],
    restitution: Option<f64>,
    material: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SphereContainerTable {
    center: [f64; 3],
    radius: f64,
    restitution: Option<f64>,
    material: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InsertTable {
    min: Option<[f64; 3]>,
    max: Option<[f64; 3]>,
    base: Option<[f64; 3]>,
    axis: Option<String>,
    cylinder_radius: Option<f64>,
    height: Option<f64>,
    radius: Option<f64>,
    radius_range: Option<[f64; 2]>,
    radii: Option<Vec<f64>>,
    weights: Option<Vec<f64>>,
    count: Option<u64>,
    rate: Option<f64>,
    mass_rate: Option<f64>,
    every: Option<u64>,
    start: Option<u64>,
    total: Option<u64>,
    #[serde(default)]
    velocity: [f64; 3],
    density: Option<f64>,
    material: Option<String>,
    restitution: Option<f64>,
    #[serde(default)]
    seed: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutflowTable {
    min: Option<[f64; 3]>,
    max: Option<[f64; 3]>,
    point: Option<[f64; 3]>,
    normal: Option<[f64; 3]>,
    every: Option<u64>,
}

impl Scene {
    /// Parses a scene from TOML text (format: docs/scene-files.md); `name` is used in
    /// summaries and in error messages. As [`SceneFile::from_toml_str`], keeping the scene only.
    ///
    /// Resolves materials (presets on first use), masses (explicit, else the material's density ×
    /// 4/3 π r³, else infinite for fixed spheres), restitutions (own key, else the material's,
    /// else `[simulation]`'s) and surfaces (the material's, else `[simulation]`'s), reads the
    /// spheres of every `[[particles_file]]` (a relative `path` is taken relative to the current
    /// directory here, to the scene file's directory by [`Scene::load`]), expands blocks and box
    /// containers, normalises plane normals, and runs every value check of
    /// [`Scene::check`], including that every sphere lies inside every sphere container.
    /// Overlaps between spheres are *not* checked here: call [`Scene::check`] (or
    /// [`Origins::check`], to have them located in the file) with the caller's [`CheckOptions`]
    /// before running.
    ///
    /// Errors: TOML syntax, unknown keys and wrong types with line and column
    /// ([`SceneError::Toml`], the first only); otherwise every problem found, each naming the
    /// table and the line of its header, listed under `name` in one [`SceneError::Problems`]
    /// (unknown or incomplete materials, spheres without mass, zero plane normals, bad block or
    /// box parameters, particle files that cannot be read or have a bad row (with the CSV's path
    /// and line, see [`read_csv_checked`]), and every value check).
    pub fn from_toml_str(text: &str, name: &str) -> Result<Scene, SceneError> {
        SceneFile::from_toml_str(text, name).map(|f| f.scene)
    }

    /// Loads a scene file; the scene is named after the file stem. As [`Scene::from_toml_str`],
    /// with errors naming the path, and with relative `[[particles_file]]` paths taken relative
    /// to the scene file's directory; [`SceneError::Io`] when the scene file cannot be read.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        SceneFile::load(path).map(|f| f.scene)
    }
}

/// A scene read from a file, with the [`Origins`] of its items for locating later problems.
#[derive(Clone, Debug)]
pub struct SceneFile {
    /// The scene, checked as [`Scene::from_toml_str`] says.
    pub scene: Scene,
    /// Where each of its items was defined.
    pub origins: Origins,
}

impl SceneFile {
    /// Parses scene text, as [`Scene::from_toml_str`] (relative `[[particles_file]]` paths are
    /// taken relative to the current directory).
    pub fn from_toml_str(text: &str, name: &str) -> Result<SceneFile, SceneError> {
        parse(text, name, name, None)
    }

    /// Loads a scene file, as [`Scene::load`].
    pub fn load(path: &Path) -> Result<SceneFile, SceneError> {
        let text = std::fs::read_to_string(path).map_err(|error| SceneError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scene".to_string());
        parse(&text, &name, &path.display().to_string(), path.parent())
    }

    /// [`Origins::check`] of the scene as loaded.
    pub fn check(&self, opts: &CheckOptions) -> Result<(), SceneError> {
        self.origins.check(&self.scene, opts)
    }
}

/// Where the items of a scene read from a file were defined: the file, and for each sphere,
/// plane, container and material the table (`[[particle]] #3`, numbered from 0 in file order)
/// and the line of its header; for a sphere of a `[[particles_file]]` also its CSV and row id.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    file: String,
    /// Line of `[simulation]`.
    simulation: Option<usize>,
    /// Per material of the scene: its table and line; `None` for a preset without a table.
    materials: Vec<Option<(usize, usize)>>,
    /// Line of each `[[particle]]`; particle `i` is sphere `i`.
    particles: Vec<usize>,
    /// Spheres read from particle files, then expanded blocks, ascending in sphere ids.
    runs: Vec<Run>,
    /// Per plane of the scene: table kind, table index, line.
    planes: Vec<(&'static str, usize, usize)>,
    /// Per sphere container of the scene: table index, line.
    containers: Vec<(usize, usize)>,
    /// Per outflow of the scene: table index, line.
    outflows: Vec<(usize, usize)>,
    /// Per insertion of the scene: table index, line.
    inserts: Vec<(usize, usize)>,
}

/// Consecutive spheres from one table.
#[derive(Clone, Debug)]
struct Run {
    /// `particles_file` or `block`.
    kind: &'static str,
    /// Index of the table among those of its kind.
    table: usize,
    /// Line of its header.
    line: usize,
    /// First sphere id.
    first: usize,
    count: usize,
    /// The `path` of a `[[particles_file]]`, as written.
    csv: Option<String>,
}

impl Origins {
    /// The file (or the name given to [`Scene::from_toml_str`]).
    pub fn file(&self) -> &str {
        &self.file
    }

    /// [`Scene::check`] of `scene` (this file's scene, possibly with changed parameters), with
    /// every problem located in the file: always a [`SceneError::Problems`] under the file name
    /// whose items name the table and line, e.g.
    /// `scene.toml: [[particle]] #3 at line 17 (sphere 3): radius must be positive and finite,
    /// got -1`. A deep overlap reads `scene.toml: spheres 1 ([[particle]] #1 at line 5) and 2
    /// ([[particle]] #2 at line 9) overlap by …` ([`SceneError::Other`] inside). Items added to
    /// the scene after loading are named as [`Scene::check`] names them.
    pub fn check(&self, scene: &Scene, opts: &CheckOptions) -> Result<(), SceneError> {
        let problems = scene.problems();
        if !problems.is_empty() {
            let items = problems
                .list
                .into_iter()
                .map(|p| self.locate(scene, p))
                .collect();
            return Err(report(&self.file, true, items, problems.omitted));
        }
        if opts.allow_overlap {
            return Ok(());
        }
        match overlap::first_overlap_in(&scene.spheres, OVERLAP_TOLERANCE, &scene.sim.periodic) {
            Some(o) => {
                let name = |i: usize| match self.sphere_table(i) {
                    Some((table, line)) => {
                        format!("{i} ({table} at line {line}{})", self.csv_rows(i, i))
                    }
                    None => i.to_string(),
                };
                let e = SceneError::Other(format!(
                    "spheres {} and {} {}",
                    name(o.a),
                    name(o.b),
                    overlap_reason(o.depth, o.min_radius)
                ));
                let line = self.sphere_table(o.a).map_or(0, |(_, l)| l);
                Err(report(&self.file, true, vec![(line, e)], 0))
            }
            None => Ok(()),
        }
    }

    /// The table of sphere `i` and the line of its header.
    fn sphere_table(&self, i: usize) -> Option<(String, usize)> {
        if let Some(&line) = self.particles.get(i) {
            return Some((format!("[[particle]] #{i}"), line));
        }
        let r = self.run(i)?;
        Some((format!("[[{}]] #{}", r.kind, r.table), r.line))
    }

    /// The run of spheres from a file or block that holds sphere `i`.
    fn run(&self, i: usize) -> Option<&Run> {
        let k = self.runs.partition_point(|r| r.first + r.count <= i);
        self.runs.get(k).filter(|r| r.first <= i)
    }

    /// `, state.csv id 3` (or `ids 3 to 9`) when spheres `a..=b` come from the same particle
    /// file, naming their rows by the CSV's ids; else empty.
    fn csv_rows(&self, a: usize, b: usize) -> String {
        match (self.run(a), self.run(b)) {
            (Some(r), Some(rb)) if std::ptr::eq(r, rb) && r.csv.is_some() => {
                let csv = r.csv.as_deref().unwrap_or_default();
                let (ia, ib) = (a - r.first, b - r.first);
                if ia == ib {
                    format!(", {csv} id {ia}")
                } else {
                    format!(", {csv} ids {ia} to {ib}")
                }
            }
            _ => String::new(),
        }
    }

    /// A problem found by the checks, named by table and line; with the line, for sorting.
    fn locate(&self, scene: &Scene, p: Problem) -> (usize, SceneError) {
        let plain = |p: Problem| {
            (
                usize::MAX - 1,
                SceneError::invalid(scene.plain_name(p.subject), p.reason),
            )
        };
        match p.subject {
            Subject::Simulation => match self.simulation {
                Some(line) => (
                    line,
                    SceneError::invalid(format!("[simulation] at line {line}"), p.reason),
                ),
                None => (0, SceneError::invalid("[simulation]", p.reason)),
            },
            Subject::Material(i) => match (self.materials.get(i), scene.materials.get(i)) {
                (Some(Some((k, line))), Some(m)) => (
                    *line,
                    SceneError::invalid(
                        format!("[[material]] #{k} at line {line} (material {:?})", m.name),
                        p.reason,
                    ),
                ),
                _ => plain(p),
            },
            Subject::Spheres(a, b) => {
                let ids = scene.plain_name(p.subject);
                match (self.sphere_table(a), self.sphere_table(b)) {
                    (Some((ta, la)), Some((tb, _))) if ta == tb => (
                        la,
                        SceneError::invalid(
                            format!("{ta} at line {la} ({ids}{})", self.csv_rows(a, b)),
                            p.reason,
                        ),
                    ),
                    (Some((ta, la)), Some((tb, lb))) => (
                        la,
                        SceneError::invalid(
                            format!("{ids} ({ta} at line {la} to {tb} at line {lb})"),
                            p.reason,
                        ),
                    ),
                    _ => plain(p),
                }
            }
            Subject::Planes(a, b) => match (self.planes.get(a), self.planes.get(b)) {
                (Some(&(ka, ta, la)), Some(&(kb, tb, _))) if (ka, ta) == (kb, tb) => (
                    la,
                    SceneError::invalid(format!("[[{ka}]] #{ta} at line {la}"), p.reason),
                ),
                (Some(&(ka, ta, la)), Some(&(kb, tb, lb))) => (
                    la,
                    SceneError::invalid(
                        format!(
                            "{} ([[{ka}]] #{ta} at line {la} to [[{kb}]] #{tb} at line {lb})",
                            scene.plain_name(p.subject)
                        ),
                        p.reason,
                    ),
                ),
                _ => plain(p),
            },
            Subject::Container(k) => match self.containers.get(k) {
                Some(&(t, line)) => (
                    line,
                    SceneError::invalid(
                        format!("[[sphere_container]] #{t} at line {line}"),
                        p.reason,
                    ),
                ),
                None => plain(p),
            },
            Subject::Outflow(k) => match self.outflows.get(k) {
                Some(&(t, line)) => (
                    line,
                    SceneError::invalid(format!("[[outflow]] #{t} at line {line}"), p.reason),
                ),
                None => plain(p),
            },
            Subject::Insert(k) => match self.inserts.get(k) {
                Some(&(t, line)) => (
                    line,
                    SceneError::invalid(format!("[[insert]] #{t} at line {line}"), p.reason),
                ),
                None => plain(p),
            },
            Subject::Empty => (usize::MAX, SceneError::Empty),
            Subject::Scene => (usize::MAX, SceneError::Other(p.reason)),
        }
    }
}

/// Parses and builds a scene; relative `[[particles_file]]` paths are taken relative to `dir`
/// (the current directory when `None`).
fn parse(text: &str, name: &str, file: &str, dir: Option<&Path>) -> Result<SceneFile, SceneError> {
    let doc: FileDoc = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    build(doc, text, name, file, dir)
}

/// The spheres of a particle file whose `path` is `given`, relative to `dir`; the reason when it
/// cannot be read or a row is bad, naming the CSV (as given, and as resolved when different)
/// and its line.
fn read_particles_file(dir: Option<&Path>, given: &str) -> Result<Snapshot, String> {
    if given.trim().is_empty() {
        return Err("path must name a CSV file, got \"\"".to_string());
    }
    let path = match dir {
        Some(dir) => dir.join(given),
        None => PathBuf::from(given),
    };
    let quoted = excerpt(given);
    read_csv_checked(&path).map_err(|e| match e {
        OutputError::Parse { line, reason, .. } => {
            format!("{} line {line}: {reason}", shorten(given))
        }
        OutputError::Read { path, reason } if path.as_os_str() != given => {
            let resolved = shorten(&path.display().to_string());
            format!("cannot read {quoted} ({resolved}): {reason}")
        }
        OutputError::Read { reason, .. } => format!("cannot read {quoted}: {reason}"),
        e => e.to_string(),
    })
}

fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> SceneError {
    let (line, column) = match e.span() {
        Some(span) => Lines::new(text).line_column(span.start),
        None => (0, 0),
    };
    SceneError::Toml {
        file: file.to_string(),
        line,
        column,
        message: toml_message(e.message().trim()),
    }
}

/// toml's message with what it quotes from the file cut to an excerpt (a key or string of
/// megabytes is not echoed whole) and, for an unknown key, the likeliest meant one:
/// ``unknown field `radiu`, expected one of `position`, …; did you mean `radius`?``.
fn toml_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    // Split at the backticks and double quotes toml puts around names and values; every other
    // piece is quoted text.
    let mut rest = message;
    let mut quoted: Vec<&str> = Vec::new();
    while let Some(open) = rest.find(['`', '"']) {
        let q = rest.as_bytes()[open];
        out.push_str(&rest[..open]);
        let body = &rest[open + 1..];
        // A closing quote not escaped by a backslash (serde escapes quotes inside strings).
        let mut close = None;
        let mut escaped = false;
        for (i, b) in body.bytes().enumerate() {
            match b {
                b'\\' if q == b'"' => escaped = !escaped,
                _ if b == q && !escaped => {
                    close = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(close) = close else {
            out.push_str(&shorten(&rest[open..]));
            rest = "";
            break;
        };
        let inner = &body[..close];
        quoted.push(inner);
        let q = q as char;
        out.push(q);
        out.push_str(&shorten(inner));
        out.push(q);
        rest = &body[close + 1..];
    }
    out.push_str(rest);
    if message.starts_with("unknown field `") {
        if let Some((given, known)) = quoted.split_first() {
            out.push_str(&suggestion(given, known.iter().copied()));
        }
    }
    out
}

/// Where each line of a text starts, to turn byte offsets into lines in O(log lines) each:
/// counting newlines from the start for every table made loading quadratic in the file size.
struct Lines<'a> {
    text: &'a str,
    /// Byte offset of the start of every line after the first.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let starts = text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        Lines { text, starts }
    }

    /// 1-based line and column (in characters) of byte offset `at`.
    fn line_column(&self, at: usize) -> (usize, usize) {
        let text = self.text;
        let mut at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        // Lines starting at or before `at`, after the first.
        let k = self.starts.partition_point(|&s| s <= at);
        let line_start = if k == 0 { 0 } else { self.starts[k - 1] };
        (k + 1, text[line_start..at].chars().count() + 1)
    }

    /// The tables of one kind, each with the line of its header.
    fn with_lines<T>(&self, tables: Vec<Spanned<T>>) -> Vec<(usize, T)> {
        tables
            .into_iter()
            .map(|t| (self.line_column(t.span().start).0, t.into_inner()))
            .collect()
    }
}

fn v3(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

/// Problems found while building a scene from its tables: line of the table, and the error.
#[derive(Default)]
struct Found(Vec<(usize, SceneError)>);

impl Found {
    /// Records `r`'s reason, if any, against `item` at `line`; whether `r` was fine.
    fn check(&mut self, line: usize, item: &str, r: Result<(), String>) -> bool {
        match r {
            Ok(()) => true,
            Err(reason) => {
                self.0.push((line, SceneError::invalid(item, reason)));
                false
            }
        }
    }
}

/// Materials of a scene being loaded: the user's tables, then presets on first use.
pub(super) struct Materials {
    list: Vec<Material>,
    index: HashMap<String, usize>,
    /// Per material: its table and line (`None`: a preset without a table).
    origins: Vec<Option<(usize, usize)>>,
}

impl Materials {
    /// The user's materials; a table defined twice is reported and left out, one missing keys is
    /// reported and kept with harmless stand-ins (so that its users are not reported too).
    fn new(tables: Vec<(usize, MaterialTable)>, found: &mut Found) -> Self {
        let presets = Material::presets();
        let mut m = Materials {
            list: Vec::with_capacity(tables.len()),
            index: HashMap::new(),
            origins: Vec::with_capacity(tables.len()),
        };
        for (k, (line, t)) in tables.into_iter().enumerate() {
            let item = format!("[[material]] #{k} at line {line} (material {:?})", t.name);
            if let Some(&first) = m.index.get(&t.name) {
                let also = match m.origins[first] {
                    Some((fk, fl)) => format!("[[material]] #{fk} at line {fl}"),
                    None => "a preset".to_string(),
                };
                found.check(line, &item, Err(format!("defined twice (also {also})")));
                continue;
            }
            let preset = presets.iter().find(|p| p.name == t.name);
            let mut missing: Vec<&str> = Vec::new();
            let mut value =
                |key: &'static str, v: Option<f64>, from_preset: fn(&Material) -> f64, stand_in| {
                    v.or(preset.map(from_preset)).unwrap_or_else(|| {
                        missing.push(key);
                        stand_in
                    })
                };
            let material = Material {
                name: t.name.clone(),
                restitution: value("restitution", t.restitution, |p| p.restitution, 1.0),
                density: value("density", t.density, |p| p.density, 1.0),
                youngs_modulus: value(
                    "youngs_modulus",
                    t.youngs_modulus,
                    |p| p.youngs_modulus,
                    1e8,
                ),
                poisson_ratio: value("poisson_ratio", t.poisson_ratio, |p| p.poisson_ratio, 0.3),
                // Friction is optional for every material: frictionless unless given.
                friction: t.friction.or(preset.map(|p| p.friction)).unwrap_or(0.0),
                rolling_friction: t
                    .rolling_friction
                    .or(preset.map(|p| p.rolling_friction))
                    .unwrap_or(0.0),
            };
            if !missing.is_empty() {
                let keys: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
                found.check(
                    line,
                    &item,
                    Err(format!(
                        "missing key{} {} (only the presets {} may leave keys out)",
                        if keys.len() == 1 { "" } else { "s" },
                        keys.join(", "),
                        preset_names()
                    )),
                );
            }
            m.index.insert(t.name, m.list.len());
            m.list.push(material);
            m.origins.push(Some((k, line)));
        }
        m
    }

    /// The materials `list` (their names distinct), then presets on first use: the materials of
    /// a [`SceneBuilder`](super::SceneBuilder).
    pub(super) fn of(list: Vec<Material>) -> Self {
        let index = list
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.clone(), i))
            .collect();
        let origins = vec![None; list.len()];
        Materials {
            list,
            index,
            origins,
        }
    }

    /// The materials, presets used included, in the order spheres index them.
    pub(super) fn into_list(self) -> Vec<Material> {
        self.list
    }

    /// Index of the material called `name`, adding the preset of that name on first use; the
    /// reason when there is no such material.
    fn resolve(&mut self, name: &str) -> Result<usize, String> {
        if let Some(&i) = self.index.get(name) {
            return Ok(i);
        }
        let Some(preset) = Material::presets().into_iter().find(|p| p.name == name) else {
            let mut known: Vec<&str> = self.list.iter().map(|m| m.name.as_str()).collect();
            let presets = Material::presets();
            for p in &presets {
                if !known.contains(&p.name.as_str()) {
                    known.push(&p.name);
                }
            }
            return Err(format!(
                "unknown material {}; known: {}{}",
                excerpt(name),
                known.join(", "),
                did_you_mean(name, known.iter().copied())
                    .map_or(String::new(), |k| format!("; did you mean {k:?}?"))
            ));
        };
        let i = self.list.len();
        self.list.push(preset);
        self.index.insert(name.to_string(), i);
        self.origins.push(None);
        Ok(i)
    }
}

fn preset_names() -> String {
    Material::presets()
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sphere properties shared by particles, particle files and blocks.
pub(super) struct Resolved {
    pub(super) mass: f64,
    pub(super) restitution: f64,
    pub(super) material: Option<usize>,
    pub(super) surface: Surface,
}

/// Mass, restitution and surface of a sphere of `radius` from its own keys, its material, or the
/// simulation defaults; the reason when its material is unknown or it has no mass.
#[allow(clippy::too_many_arguments)]
pub(super) fn resolve(
    materials: &mut Materials,
    sim: &SimParams,
    radius: f64,
    mass: Option<f64>,
    material: Option<&str>,
    restitution: Option<f64>,
    fixed: bool,
) -> Result<Resolved, String> {
    let material = material.map(|m| materials.resolve(m)).transpose()?;
    let mat = material.map(|i| &materials.list[i]);
    let mass = match (mass, mat) {
        (Some(m), _) => m,
        (None, Some(mat)) => mat.density * super::sphere_volume(radius),
        (None, None) if fixed => f64::INFINITY,
        (None, None) => {
            return Err("no mass: give `mass`, or a `material` with a density".to_string());
        }
    };
    Ok(Resolved {
        mass,
        restitution: restitution
            .or(mat.map(|m| m.restitution))
            .unwrap_or(sim.restitution),
        material,
        surface: mat.map_or(sim.surface, Surface::of),
    })
}

/// Restitution and surface of a wall (plane, box or sphere container): restitution from its own
/// key, else its material's, else `[simulation]`'s; surface from its material, else
/// `[simulation]`'s. The reason when the material is unknown.
pub(super) fn resolve_wall(
    materials: &mut Materials,
    sim: &SimParams,
    material: Option<&str>,
    restitution: Option<f64>,
) -> Result<(f64, Surface), String> {
    let material = material.map(|m| materials.resolve(m)).transpose()?;
    let mat = material.map(|i| &materials.list[i]);
    Ok((
        restitution
            .or(mat.map(|m| m.restitution))
            .unwrap_or(sim.restitution),
        mat.map_or(sim.surface, Surface::of),
    ))
}

/// Builds the scene from its tables, collecting every problem: a table that cannot be built
/// (unknown material, no mass, bad block or box parameters, bad plane normal, unreadable particle
/// file) is reported and stands in harmlessly (particles, containers) or is left out (particle
/// files, blocks, planes, boxes), and the scene's value checks run on the rest. Relative particle
/// file paths are taken relative to `dir`.
///
/// One [`Builder`] method per table kind, called in this order: the order of the problems
/// reported (and of the spheres and planes) depends on it.
fn build(
    doc: FileDoc,
    text: &str,
    name: &str,
    file: &str,
    dir: Option<&Path>,
) -> Result<SceneFile, SceneError> {
    let lines = Lines::new(text);
    let mut found = Found::default();
    let origins = Origins {
        file: file.to_string(),
        simulation: doc
            .simulation
            .as_ref()
            .map(|s| lines.line_column(s.span().start).0),
        ..Origins::default()
    };
    let mut sim = simulation(doc.simulation.map(Spanned::into_inner).unwrap_or_default());
    match doc.domain {
        Some(d) if sim.periodic.any() => {
            let d = d.into_inner();
            (sim.periodic.min, sim.periodic.max) = (v3(d.min), v3(d.max));
        }
        Some(d) => found.0.push((
            lines.line_column(d.span().start).0,
            SceneError::invalid(
                "[domain]",
                "is the periodic box, read only with periodic axes: add \
                 [simulation] periodic = [..], or remove [domain]",
            ),
        )),
        None if sim.periodic.any() => found.0.push((
            origins.simulation.unwrap_or(0),
            SceneError::invalid(
                "[simulation]",
                "periodic axes need the box they repeat: add [domain] with min and max (m)",
            ),
        )),
        None => {}
    }
    let materials = Materials::new(lines.with_lines(doc.material), &mut found);
    let mut b = Builder {
        found,
        origins,
        materials,
        sim,
    };
    let particles = lines.with_lines(doc.particle);
    let files = lines.with_lines(doc.particles_file);
    let blocks = lines.with_lines(doc.block);

    // Read the particle files first: their rows count towards the size of the scene.
    let mut total = particles.len();
    let loaded = b.read_particles_files(&files, dir, &mut total);
    let fits = b.count_blocks(&blocks, &mut total);
    // Checked before allocating: with overcommit the reservation below succeeds and filling it
    // would bring the out-of-memory killer instead of an error.
    let need = (total as u64).saturating_mul(std::mem::size_of::<Sphere>() as u64);
    if let Some(available) = crate::sim::available_memory().filter(|&a| need > a) {
        let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
        return Err(SceneError::Other(format!(
            "{file}: the scene's {total} spheres need about {need} bytes ({:.1} GiB) to hold, \
             but {available} bytes ({:.1} GiB) are available (MemAvailable); make the \
             [[block]] counts or the particle files smaller",
            gib(need),
            gib(available)
        )));
    }
    let mut spheres: Vec<Sphere> = Vec::new();
    spheres.try_reserve_exact(total).map_err(|_| {
        SceneError::Other(format!(
            "{file}: not enough memory for the scene's {total} spheres"
        ))
    })?;
    b.particles(particles, &mut spheres);
    b.particles_files(files, loaded, &mut spheres);
    b.blocks(blocks, &fits, &mut spheres);

    let boxes = lines.with_lines(doc.box_container);
    let mut planes = Vec::with_capacity(doc.plane.len() + 6 * boxes.len());
    b.planes(lines.with_lines(doc.plane), &mut planes);
    b.boxes(boxes, &mut planes);
    let containers = b.sphere_containers(lines.with_lines(doc.sphere_container));
    let outflows = b.outflows(lines.with_lines(doc.outflow));
    let inserts = b.inserts(lines.with_lines(doc.insert));
    b.finish(name, spheres, planes, containers, outflows, inserts)
}

/// `[simulation]`, each key missing taken from [`SimParams::default`].
fn simulation(t: SimTable) -> SimParams {
    let d = SimParams::default();
    SimParams {
        dt: t.dt.unwrap_or(d.dt),
        steps: t.steps.unwrap_or(d.steps),
        gravity: t.gravity.map_or(d.gravity, v3),
        g_const: t.g_const.unwrap_or(d.g_const),
        softening: t.softening.unwrap_or(d.softening),
        contact: t.contact.unwrap_or(d.contact),
        stiffness: t.stiffness.unwrap_or(d.stiffness),
        drag: t.drag.unwrap_or(d.drag),
        restitution: t.restitution.unwrap_or(d.restitution),
        surface: Surface {
            youngs_modulus: t.youngs_modulus.unwrap_or(d.surface.youngs_modulus),
            poisson_ratio: t.poisson_ratio.unwrap_or(d.surface.poisson_ratio),
            friction: t.friction.unwrap_or(d.surface.friction),
            rolling_friction: t.rolling_friction.unwrap_or(d.surface.rolling_friction),
        },
        skin: t.skin,
        gravity_solver: t.gravity_solver.unwrap_or(d.gravity_solver),
        theta: t.theta.unwrap_or(d.theta),
        rotation: t.rotation.unwrap_or(d.rotation),
        rolling_model: t.rolling_model.or(d.rolling_model),
        damping: t.damping.unwrap_or(d.damping),
        periodic: crate::scene::Periodic {
            axes: t.periodic.unwrap_or(d.periodic.axes),
            ..d.periodic
        },
        wall_forces: t.wall_forces.unwrap_or(d.wall_forces),
    }
}

/// What the table kinds share while [`build`] runs: the problems found so far, where each item
/// came from, the materials (presets are added on first use) and `[simulation]`.
struct Builder {
    found: Found,
    origins: Origins,
    materials: Materials,
    sim: SimParams,
}

impl Builder {
    /// Reads every `[[particles_file]]` and resolves its table, adding its rows to `total`; `None`
    /// for a file left out (problem reported). Each file's spheres share its table's
    /// restitution, material and surface; mass comes from each row.
    fn read_particles_files(
        &mut self,
        files: &[(usize, ParticlesFileTable)],
        dir: Option<&Path>,
        total: &mut usize,
    ) -> Vec<Option<(Snapshot, Resolved)>> {
        let mut loaded = Vec::with_capacity(files.len());
        for (k, (line, f)) in files.iter().enumerate() {
            let line = *line;
            let item = format!("[[particles_file]] #{k} at line {line}");
            let mut ok = true;
            if let Some(e) = f.restitution {
                ok &= self.found.check(line, &item, restitution(e));
            }
            let r = resolve(
                &mut self.materials,
                &self.sim,
                1.0,
                Some(1.0), // a stand-in: each row gives its own mass
                f.material.as_deref(),
                f.restitution,
                false,
            );
            let r = match r {
                Ok(r) => Some(r),
                Err(reason) => {
                    self.found.check(line, &item, Err(reason));
                    None
                }
            };
            let snap = match read_particles_file(dir, &f.path) {
                Ok(snap) => Some(snap),
                Err(reason) => {
                    self.found.check(line, &item, Err(reason));
                    None
                }
            };
            let snap = snap.filter(|snap| match total.checked_add(snap.len()) {
                Some(t) if t <= MAX_SPHERES => {
                    *total = t;
                    true
                }
                _ => self.found.check(
                    line,
                    &item,
                    Err(format!(
                        "its {} rows make the scene larger than the {MAX_SPHERES} spheres \
                         supported",
                        snap.len()
                    )),
                ),
            });
            loaded.push(match (snap, r) {
                (Some(snap), Some(r)) if ok => Some((snap, r)),
                _ => None,
            });
        }
        loaded
    }

    /// Adds every `[[block]]`'s sphere count to `total`; per block, whether it fits. Counted
    /// first, so that a huge block fails cleanly instead of exhausting memory.
    fn count_blocks(&mut self, blocks: &[(usize, BlockTable)], total: &mut usize) -> Vec<bool> {
        let mut fits = vec![true; blocks.len()];
        for (k, (line, b)) in blocks.iter().enumerate() {
            let n = b
                .count
                .iter()
                .try_fold(1usize, |acc, &c| acc.checked_mul(usize::try_from(c).ok()?));
            match n.and_then(|n| total.checked_add(n)) {
                Some(t) if t <= MAX_SPHERES => *total = t,
                _ => {
                    fits[k] = false;
                    self.found.check(
                        *line,
                        &format!("[[block]] #{k} at line {line}"),
                        Err(format!(
                            "count {:?} makes the scene larger than the {MAX_SPHERES} spheres \
                             supported",
                            b.count
                        )),
                    );
                }
            }
        }
        fits
    }

    /// One sphere per `[[particle]]`, in order (sphere `i` is table `i`).
    fn particles(&mut self, particles: Vec<(usize, ParticleTable)>, spheres: &mut Vec<Sphere>) {
        for (i, (line, p)) in particles.into_iter().enumerate() {
            let item = format!("[[particle]] #{i} at line {line} (sphere {i})");
            let r = resolve(
                &mut self.materials,
                &self.sim,
                p.radius,
                p.mass,
                p.material.as_deref(),
                p.restitution,
                p.fixed,
            )
            .unwrap_or_else(|reason| {
                self.found.check(line, &item, Err(reason));
                // Harmless stand-ins for what could not be resolved; the sphere's own values
                // are still checked.
                Resolved {
                    mass: p.mass.unwrap_or(1.0),
                    restitution: p.restitution.unwrap_or(self.sim.restitution),
                    material: None,
                    surface: self.sim.surface,
                }
            });
            self.origins.particles.push(line);
            spheres.push(Sphere {
                position: v3(p.position),
                velocity: v3(p.velocity),
                angular_velocity: v3(p.angular_velocity),
                radius: p.radius,
                mass: r.mass,
                restitution: r.restitution,
                material: r.material,
                fixed: p.fixed,
                surface: r.surface,
                image: [0; 3],
            });
        }
    }

    /// The rows of every particle file read by [`Builder::read_particles_files`], one run each.
    fn particles_files(
        &mut self,
        files: Vec<(usize, ParticlesFileTable)>,
        loaded: Vec<Option<(Snapshot, Resolved)>>,
        spheres: &mut Vec<Sphere>,
    ) {
        // Images mean nothing without periodic axes: a closed scene ignores the columns.
        let periodic = self.sim.periodic.any();
        for (k, ((line, f), loaded)) in files.into_iter().zip(loaded).enumerate() {
            let Some((snap, r)) = loaded else { continue };
            let first = spheres.len();
            spheres.extend((0..snap.len()).map(|i| {
                let mass = snap.mass[i];
                Sphere {
                    position: snap.position[i],
                    velocity: snap.velocity[i],
                    // Used with rotation, ignored without (PackedScene).
                    angular_velocity: snap.angular_velocity_of(i),
                    radius: snap.radius[i],
                    mass,
                    restitution: r.restitution,
                    material: r.material,
                    // As the CSV writes a fixed sphere without a mass.
                    fixed: mass == f64::INFINITY,
                    surface: r.surface,
                    // The images a periodic run wrote (`ix,iy,iz`), so that its unwrapped
                    // paths go on; zero without those columns.
                    image: snap
                        .image
                        .get(i)
                        .copied()
                        .filter(|_| periodic)
                        .unwrap_or([0; 3]),
                }
            }));
            self.origins.runs.push(Run {
                kind: "particles_file",
                table: k,
                line,
                first,
                count: snap.len(),
                csv: Some(f.path),
            });
        }
    }

    /// The lattice of every `[[block]]` that fits and whose values are fine, one run each.
    fn blocks(
        &mut self,
        blocks: Vec<(usize, BlockTable)>,
        fits: &[bool],
        spheres: &mut Vec<Sphere>,
    ) {
        let found = &mut self.found;
        for (k, (line, b)) in blocks.into_iter().enumerate() {
            let item = format!("[[block]] #{k} at line {line}");
            let min = v3(b.min);
            let mut ok = fits[k];
            ok &= found.check(line, &item, finite3("min", min));
            ok &= found.check(line, &item, finite3("velocity", v3(b.velocity)));
            ok &= found.check(line, &item, positive("spacing", b.spacing));
            ok &= found.check(line, &item, positive("radius", b.radius));
            ok &= found.check(line, &item, non_negative("jitter", b.jitter));
            if let Some(m) = b.mass {
                ok &= found.check(line, &item, positive("mass", m));
            }
            if let Some(e) = b.restitution {
                ok &= found.check(line, &item, restitution(e));
            }
            let r = resolve(
                &mut self.materials,
                &self.sim,
                b.radius,
                b.mass,
                b.material.as_deref(),
                b.restitution,
                false,
            );
            let r = match r {
                Ok(r) if ok => r,
                Ok(_) => continue,
                Err(reason) => {
                    found.check(line, &item, Err(reason));
                    continue;
                }
            };
            let first = spheres.len();
            let amplitude = b.jitter * b.spacing;
            let mut rng = Pcg64::seed_from_u64(b.seed);
            let [nx, ny, nz] = b.count;
            for z in 0..nz {
                for y in 0..ny {
                    for x in 0..nx {
                        let mut position =
                            min + DVec3::new(x as f64, y as f64, z as f64) * b.spacing;
                        if amplitude > 0.0 {
                            position += DVec3::new(
                                rng.random_range(-1.0..=1.0),
                                rng.random_range(-1.0..=1.0),
                                rng.random_range(-1.0..=1.0),
                            ) * amplitude;
                        }
                        spheres.push(Sphere {
                            position,
                            velocity: v3(b.velocity),
                            angular_velocity: DVec3::ZERO,
                            radius: b.radius,
                            mass: r.mass,
                            restitution: r.restitution,
                            material: r.material,
                            fixed: false,
                            surface: r.surface,
                            image: [0; 3],
                        });
                    }
                }
            }
            self.origins.runs.push(Run {
                kind: "block",
                table: k,
                line,
                first,
                count: spheres.len() - first,
                csv: None,
            });
        }
    }

    /// Every `[[plane]]` whose normal is usable, normal scaled to unit length.
    fn planes(&mut self, tables: Vec<(usize, PlaneTable)>, planes: &mut Vec<Plane>) {
        for (k, (line, p)) in tables.into_iter().enumerate() {
            let item = format!("[[plane]] #{k} at line {line}");
            let normal = v3(p.normal);
            let mut ok = self.found.check(line, &item, finite3("normal", normal));
            // Normalise via the largest component so that tiny but nonzero normals survive.
            let scale = normal.abs().max_element();
            if ok && scale == 0.0 {
                ok = self
                    .found
                    .check(line, &item, Err("normal has zero length".to_string()));
            }
            let (restitution, surface) = resolve_wall(
                &mut self.materials,
                &self.sim,
                p.material.as_deref(),
                p.restitution,
            )
            .unwrap_or_else(|reason| {
                self.found.check(line, &item, Err(reason));
                (
                    p.restitution.unwrap_or(self.sim.restitution),
                    self.sim.surface,
                )
            });
            if !ok {
                // Left out, so its point is not checked with the others: check it here.
                self.found.check(line, &item, finite3("point", v3(p.point)));
                continue;
            }
            planes.push(Plane {
                point: v3(p.point),
                normal: (normal / scale).normalize(),
                restitution,
                surface,
                velocity: p.velocity.map_or(DVec3::ZERO, v3),
            });
            self.origins.planes.push(("plane", k, line));
        }
    }

    /// Six planes per `[[box_container]]` whose values are fine, after the `[[plane]]`s.
    fn boxes(&mut self, boxes: Vec<(usize, BoxTable)>, planes: &mut Vec<Plane>) {
        let found = &mut self.found;
        for (k, (line, b)) in boxes.into_iter().enumerate() {
            let item = format!("[[box_container]] #{k} at line {line}");
            let (min, max) = (v3(b.min), v3(b.max));
            let mut ok = found.check(line, &item, finite3("min", min));
            ok &= found.check(line, &item, finite3("max", max));
            if ok && !min.cmplt(max).all() {
                ok = found.check(
                    line,
                    &item,
                    Err(format!(
                        "min must be below max on every axis, got min {}, max {}",
                        fmt_vec(min),
                        fmt_vec(max)
                    )),
                );
            }
            match resolve_wall(
                &mut self.materials,
                &self.sim,
                b.material.as_deref(),
                b.restitution,
            ) {
                Ok((e, surface)) => {
                    // Checked here, as the six planes no longer say which box they came from.
                    ok &= found.check(line, &item, restitution(e));
                    if ok {
                        planes.extend(Scene::box_planes(min, max, e, surface));
                        self.origins
                            .planes
                            .extend(std::iter::repeat_n(("box_container", k, line), 6));
                    }
                }
                Err(reason) => {
                    found.check(line, &item, Err(reason));
                }
            }
        }
    }

    /// One container per `[[sphere_container]]`. Value checks (and containment of every
    /// sphere) are [`Scene::check`]'s.
    fn sphere_containers(
        &mut self,
        tables: Vec<(usize, SphereContainerTable)>,
    ) -> Vec<SphereContainer> {
        let mut containers = Vec::with_capacity(tables.len());
        for (k, (line, c)) in tables.into_iter().enumerate() {
            let item = format!("[[sphere_container]] #{k} at line {line}");
            let (restitution, surface) = resolve_wall(
                &mut self.materials,
                &self.sim,
                c.material.as_deref(),
                c.restitution,
            )
            .unwrap_or_else(|reason| {
                self.found.check(line, &item, Err(reason));
                (
                    c.restitution.unwrap_or(self.sim.restitution),
                    self.sim.surface,
                )
            });
            containers.push(SphereContainer {
                center: v3(c.center),
                radius: c.radius,
                restitution,
                surface,
            });
            self.origins.containers.push((k, line));
        }
        containers
    }

    /// One outflow per `[[outflow]]` that gives a box (`min`, `max`) or a half-space
    /// (`point`, `normal`), not both. Value checks are [`Scene::check`]'s.
    fn outflows(&mut self, tables: Vec<(usize, OutflowTable)>) -> Vec<Outflow> {
        let mut outflows = Vec::with_capacity(tables.len());
        for (k, (line, t)) in tables.into_iter().enumerate() {
            let item = format!("[[outflow]] #{k} at line {line}");
            let outflow = match (t.min, t.max, t.point, t.normal) {
                (Some(min), Some(max), None, None) => Outflow::of_box(v3(min), v3(max)),
                (None, None, Some(point), Some(normal)) => Outflow::beyond(v3(point), v3(normal)),
                _ => {
                    self.found.check(
                        line,
                        &item,
                        Err(
                            "give a box (min and max) or a half-space (point and normal), \
                             not both, not parts of one"
                                .to_string(),
                        ),
                    );
                    continue;
                }
            };
            outflows.push(outflow.every(t.every.unwrap_or(DEFAULT_OUTFLOW_EVERY)));
            self.origins.outflows.push((k, line));
        }
        outflows
    }

    /// One insertion per `[[insert]]` that names one region (a box: `min`, `max`; a cylinder:
    /// `base`, `cylinder_radius`, `height`, `axis`), one size (`radius`, `radius_range`, or
    /// `radii` with `weights`) and one amount (`count`, `rate`, `mass_rate`), with its material
    /// resolved. Value checks are [`Scene::check`]'s.
    fn inserts(&mut self, tables: Vec<(usize, InsertTable)>) -> Vec<Insert> {
        let mut inserts = Vec::with_capacity(tables.len());
        for (k, (line, t)) in tables.into_iter().enumerate() {
            let item = format!("[[insert]] #{k} at line {line}");
            let axis = match t.axis.as_deref() {
                None | Some("y") => Ok(1),
                Some("x") => Ok(0),
                Some("z") => Ok(2),
                Some(other) => Err(format!("axis must be \"x\", \"y\" or \"z\", got {other:?}")),
            };
            let region = match (t.min, t.max, t.base, t.cylinder_radius, t.height) {
                (Some(_), Some(_), None, None, None) if t.axis.is_some() => Err(
                    "axis belongs to a cylinder region (base, cylinder_radius, height), \
                         not to a box"
                        .to_string(),
                ),
                (Some(min), Some(max), None, None, None) => Ok(InsertRegion::Box {
                    min: v3(min),
                    max: v3(max),
                }),
                (None, None, Some(base), Some(radius), Some(height)) => {
                    axis.map(|axis| InsertRegion::Cylinder {
                        base: v3(base),
                        axis,
                        radius,
                        height,
                    })
                }
                _ => Err("give one region: a box (min, max) or a cylinder (base, \
                          cylinder_radius, height, and optionally axis)"
                    .to_string()),
            };
            let sizes = match (t.radius, t.radius_range, t.radii, t.weights) {
                (Some(r), None, None, None) => Ok(InsertSizes::Fixed(r)),
                (None, Some([a, b]), None, None) => Ok(InsertSizes::Uniform(a, b)),
                (None, None, Some(radii), weights) => {
                    let weights = weights.unwrap_or_else(|| vec![1.0; radii.len()]);
                    Ok(InsertSizes::List { radii, weights })
                }
                _ => Err(
                    "give one size: radius, radius_range = [smallest, largest], or radii \
                          (with weights)"
                        .to_string(),
                ),
            };
            let amount = match (t.count, t.rate, t.mass_rate) {
                (Some(c), None, None) => Ok(InsertAmount::Count(c)),
                (None, Some(r), None) => Ok(InsertAmount::Rate(r)),
                (None, None, Some(m)) => Ok(InsertAmount::MassRate(m)),
                _ => Err(
                    "give one amount: count (spheres a pass), rate (spheres/s) or \
                          mass_rate (kg/s)"
                        .to_string(),
                ),
            };
            let (region, sizes, amount) = match (region, sizes, amount) {
                (Ok(r), Ok(s), Ok(a)) => (r, s, a),
                (r, s, a) => {
                    for e in [r.err(), s.err(), a.err()].into_iter().flatten() {
                        self.found.check(line, &item, Err(e));
                    }
                    continue;
                }
            };
            let mut b = InsertBuilder::new(region, sizes, amount)
                .every(t.every.unwrap_or(DEFAULT_INSERT_EVERY))
                .velocity(v3(t.velocity))
                .seed(t.seed);
            if let Some(n) = t.total {
                b = b.total(n);
            }
            if let Some(s) = t.start {
                b = b.start(s);
            }
            if let Some(d) = t.density {
                b = b.density(d);
            }
            if let Some(m) = &t.material {
                b = b.material(m);
            }
            if let Some(e) = t.restitution {
                b = b.restitution(e);
            }
            match b.resolve(&mut self.materials, &self.sim) {
                Ok(ins) => {
                    inserts.push(ins);
                    self.origins.inserts.push((k, line));
                }
                Err(reason) => {
                    self.found.check(line, &item, Err(reason));
                }
            }
        }
        inserts
    }

    /// The scene, after its value checks: every problem found while building and by the
    /// checks, each located in the file, or the scene with its origins.
    fn finish(
        self,
        name: &str,
        spheres: Vec<Sphere>,
        planes: Vec<Plane>,
        containers: Vec<SphereContainer>,
        outflows: Vec<Outflow>,
        inserts: Vec<Insert>,
    ) -> Result<SceneFile, SceneError> {
        let Builder {
            found,
            mut origins,
            materials,
            sim,
        } = self;
        origins.materials = materials.origins;
        let scene = Scene {
            name: name.to_string(),
            sim,
            materials: materials.list,
            spheres,
            planes,
            containers,
            outflows,
            inserts,
        };
        let checked = scene.problems();
        let mut items = found.0;
        let built_ok = items.is_empty();
        for p in checked.list {
            // Spheres left out with a reported table do not make the scene empty.
            if p.subject == Subject::Empty && !built_ok {
                continue;
            }
            items.push(origins.locate(&scene, p));
        }
        if !items.is_empty() || checked.omitted > 0 {
            return Err(report(&origins.file, true, items, checked.omitted));
        }
        Ok(SceneFile { scene, origins })
    }
}
