//! TOML scene files.
//!
//! The format is the "Scene file" contract of `shared/DESIGN.md`, plus three extensions: a `seed`
//! key on `[[block]]`, a `[[box_container]]` generator and `[[sphere_container]]`s. Every table
//! rejects unknown keys. All tables are optional, but a scene must end up with at least one
//! sphere.
//!
//! Every body (sphere, plane, container) has a surface: Young's modulus E, Poisson ratio ν and
//! friction coefficient μ. It is its material's, or `[simulation]`'s for a body that names no
//! material. The Hertz law (`contact = "hertz"`, PHYSICS.md §2.2) takes `1/E*` as the sum of the
//! two bodies' compliances `(1 − ν²)/E`, and a sphere container's concave wall enters it with
//! `r_b = −R_W`; a pair's friction coefficient is the smaller μ of the two.
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
//! drag = 0.0                   # N·s/m²
//! restitution = 1.0            # default for spheres, planes and containers that give none
//! youngs_modulus = 1e8         # Pa, > 0; E of bodies that name no material (default 1e8)
//! poisson_ratio = 0.3          # in (-1, 0.5]; ν of bodies that name no material (default 0.3)
//! friction = 0.0               # ≥ 0; μ of bodies that name no material (default 0)
//!
//! [[material]]                 # presets steel, glass, wood, ivory, rubber need no table;
//! name = "steel"               # a table with a preset's name overrides the keys it gives
//! restitution = 0.556
//! density = 7850.0             # kg/m³
//! youngs_modulus = 200e9       # Pa
//! poisson_ratio = 0.30
//! friction = 0.57              # optional: else the preset's, else 0 (frictionless)
//!
//! [[particle]]                 # sphere ids 0, 1, … in file order
//! position = [0.0, -5.0, 0.0]  # m
//! velocity = [0.0, 20.0, 0.0]  # m/s, default 0
//! radius = 1.0                 # m
//! mass = 1.0                   # kg; or omit and name a material (mass = ρ 4/3 π r³)
//! material = "steel"           # optional; also gives E, ν, μ (else [simulation]'s)
//! fixed = false                # optional; a fixed sphere needs no mass
//! restitution = 0.9            # optional; else the material's, else [simulation]'s
//!
//! [[block]]                    # lattice; its ids follow all particles, x fastest, then y, z
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
//! ```

use super::check::{MAX_SPHERES, finite3, non_negative, positive, restitution};
use super::{
    CheckOptions, ContactModel, Material, Plane, Scene, SceneError, SimParams, Sphere,
    SphereContainer, Surface,
};
use glam::DVec3;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    simulation: Option<SimTable>,
    #[serde(default)]
    material: Vec<MaterialTable>,
    #[serde(default)]
    particle: Vec<ParticleTable>,
    #[serde(default)]
    block: Vec<BlockTable>,
    #[serde(default)]
    plane: Vec<PlaneTable>,
    #[serde(default)]
    box_container: Vec<BoxTable>,
    #[serde(default)]
    sphere_container: Vec<SphereContainerTable>,
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParticleTable {
    position: [f64; 3],
    #[serde(default)]
    velocity: [f64; 3],
    radius: f64,
    mass: Option<f64>,
    material: Option<String>,
    #[serde(default)]
    fixed: bool,
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

impl Scene {
    /// Parses a scene from TOML text (format: module docs, `shared/DESIGN.md`); `name` is used in
    /// summaries and in error messages.
    ///
    /// Resolves materials (user tables, then the presets spheres, planes, boxes and sphere
    /// containers refer to, in that order of first use), sphere masses (`mass`, else density ×
    /// 4/3 π r³, else infinite for fixed spheres), restitutions (own key, else the material's,
    /// else `[simulation]`'s) and surfaces (the material's, else `[simulation]`'s), expands
    /// blocks and box containers, normalises plane normals, and runs every value check of
    /// [`Scene::check`], including that every sphere lies inside every sphere container.
    /// Overlaps between spheres are *not* checked here: call [`Scene::check`] with the caller's
    /// [`CheckOptions`] before running.
    ///
    /// Errors: TOML syntax, unknown keys and wrong types with line and column
    /// ([`SceneError::Toml`]); unknown or incomplete materials, spheres without mass, zero plane
    /// normals, bad block or box parameters and every value check ([`SceneError::Invalid`]).
    pub fn from_toml_str(text: &str, name: &str) -> Result<Scene, SceneError> {
        parse(text, name, name)
    }

    /// Loads a scene file; the scene is named after the file stem. As [`Scene::from_toml_str`],
    /// with errors naming the path; [`SceneError::Io`] when the file cannot be read.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scene".to_string());
        parse(&text, &name, &path.display().to_string())
    }
}

fn parse(text: &str, name: &str, file: &str) -> Result<Scene, SceneError> {
    let doc: FileDoc = toml::from_str(text).map_err(|e| toml_error(text, file, &e))?;
    build(doc, name)
}

fn toml_error(text: &str, file: &str, e: &toml::de::Error) -> SceneError {
    let (line, column) = match e.span() {
        Some(span) => line_column(text, span.start),
        None => (0, 0),
    };
    SceneError::Toml {
        file: file.to_string(),
        line,
        column,
        message: e.message().trim().to_string(),
    }
}

/// 1-based line and column (in characters) of byte offset `at` in `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn v3(a: [f64; 3]) -> DVec3 {
    DVec3::from_array(a)
}

/// Materials of a scene being loaded: the user's tables, then presets on first use.
struct Materials {
    list: Vec<Material>,
    index: HashMap<String, usize>,
}

impl Materials {
    fn new(tables: Vec<MaterialTable>) -> Result<Self, SceneError> {
        let presets = Material::presets();
        let mut m = Materials {
            list: Vec::with_capacity(tables.len()),
            index: HashMap::new(),
        };
        for (k, t) in tables.into_iter().enumerate() {
            let item = || format!("material {:?} ([[material]] {k})", t.name);
            if let Some(&first) = m.index.get(&t.name) {
                return Err(SceneError::invalid(
                    item(),
                    format!("defined twice (also [[material]] {first})"),
                ));
            }
            let preset = presets.iter().find(|p| p.name == t.name);
            let value = |key: &str, v: Option<f64>, from_preset: fn(&Material) -> f64| {
                v.or(preset.map(from_preset)).ok_or_else(|| {
                    SceneError::invalid(
                        item(),
                        format!(
                            "missing key `{key}` (only the presets {} may leave keys out)",
                            preset_names()
                        ),
                    )
                })
            };
            let material = Material {
                name: t.name.clone(),
                restitution: value("restitution", t.restitution, |p| p.restitution)?,
                density: value("density", t.density, |p| p.density)?,
                youngs_modulus: value("youngs_modulus", t.youngs_modulus, |p| p.youngs_modulus)?,
                poisson_ratio: value("poisson_ratio", t.poisson_ratio, |p| p.poisson_ratio)?,
                // Friction is optional for every material: frictionless unless given.
                friction: t.friction.or(preset.map(|p| p.friction)).unwrap_or(0.0),
            };
            m.index.insert(t.name, k);
            m.list.push(material);
        }
        Ok(m)
    }

    /// Index of the material called `name`, adding the preset of that name on first use.
    fn resolve(&mut self, name: &str, user: &str) -> Result<usize, SceneError> {
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
            return Err(SceneError::invalid(
                format!("material {name:?} ({user})"),
                format!("unknown material; known: {}", known.join(", ")),
            ));
        };
        let i = self.list.len();
        self.list.push(preset);
        self.index.insert(name.to_string(), i);
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

/// Sphere properties shared by particles and blocks.
struct Resolved {
    mass: f64,
    restitution: f64,
    material: Option<usize>,
    surface: Surface,
}

/// Mass, restitution and surface of a sphere of `radius` from its own keys, its material, or the
/// simulation defaults. `user` names the table for errors.
#[allow(clippy::too_many_arguments)]
fn resolve(
    materials: &mut Materials,
    sim: &SimParams,
    user: &str,
    radius: f64,
    mass: Option<f64>,
    material: Option<&str>,
    restitution: Option<f64>,
    fixed: bool,
) -> Result<Resolved, SceneError> {
    let material = material.map(|m| materials.resolve(m, user)).transpose()?;
    let mat = material.map(|i| &materials.list[i]);
    let mass = match (mass, mat) {
        (Some(m), _) => m,
        (None, Some(mat)) => mat.density * super::sphere_volume(radius),
        (None, None) if fixed => f64::INFINITY,
        (None, None) => {
            return Err(SceneError::invalid(
                user,
                "no mass: give `mass`, or a `material` with a density",
            ));
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
/// `[simulation]`'s. `user` names the table for errors.
fn resolve_wall(
    materials: &mut Materials,
    sim: &SimParams,
    user: &str,
    material: Option<&str>,
    restitution: Option<f64>,
) -> Result<(f64, Surface), SceneError> {
    let material = material.map(|m| materials.resolve(m, user)).transpose()?;
    let mat = material.map(|i| &materials.list[i]);
    Ok((
        restitution
            .or(mat.map(|m| m.restitution))
            .unwrap_or(sim.restitution),
        mat.map_or(sim.surface, Surface::of),
    ))
}

fn build(doc: FileDoc, name: &str) -> Result<Scene, SceneError> {
    let t = doc.simulation.unwrap_or_default();
    let d = SimParams::default();
    let sim = SimParams {
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
        },
    };
    let mut materials = Materials::new(doc.material)?;

    // Count first, so that a huge block fails cleanly instead of exhausting memory.
    let mut total = doc.particle.len();
    for (k, b) in doc.block.iter().enumerate() {
        let n = b
            .count
            .iter()
            .try_fold(1usize, |acc, &c| acc.checked_mul(usize::try_from(c).ok()?));
        total = match n.and_then(|n| total.checked_add(n)) {
            Some(t) if t <= MAX_SPHERES => t,
            _ => {
                return Err(SceneError::invalid(
                    format!("block {k}"),
                    format!(
                        "count {:?} makes the scene larger than the {MAX_SPHERES} spheres supported",
                        b.count
                    ),
                ));
            }
        };
    }
    let mut spheres: Vec<Sphere> = Vec::new();
    spheres.try_reserve_exact(total).map_err(|_| {
        SceneError::Other(format!("not enough memory for the scene's {total} spheres"))
    })?;

    for (i, p) in doc.particle.into_iter().enumerate() {
        let user = format!("sphere {i}");
        let r = resolve(
            &mut materials,
            &sim,
            &user,
            p.radius,
            p.mass,
            p.material.as_deref(),
            p.restitution,
            p.fixed,
        )?;
        spheres.push(Sphere {
            position: v3(p.position),
            velocity: v3(p.velocity),
            radius: p.radius,
            mass: r.mass,
            restitution: r.restitution,
            material: r.material,
            fixed: p.fixed,
            surface: r.surface,
        });
    }

    for (k, b) in doc.block.into_iter().enumerate() {
        let user = format!("block {k}");
        let item = || user.clone();
        let min = v3(b.min);
        finite3(&item, "min", min)?;
        finite3(&item, "velocity", v3(b.velocity))?;
        positive(&item, "spacing", b.spacing)?;
        positive(&item, "radius", b.radius)?;
        non_negative(&item, "jitter", b.jitter)?;
        if let Some(m) = b.mass {
            positive(&item, "mass", m)?;
        }
        if let Some(e) = b.restitution {
            restitution(&item, e)?;
        }
        let r = resolve(
            &mut materials,
            &sim,
            &user,
            b.radius,
            b.mass,
            b.material.as_deref(),
            b.restitution,
            false,
        )?;
        let amplitude = b.jitter * b.spacing;
        let mut rng = Pcg64::seed_from_u64(b.seed);
        let [nx, ny, nz] = b.count;
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let mut position = min + DVec3::new(x as f64, y as f64, z as f64) * b.spacing;
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
                        radius: b.radius,
                        mass: r.mass,
                        restitution: r.restitution,
                        material: r.material,
                        fixed: false,
                        surface: r.surface,
                    });
                }
            }
        }
    }

    let mut planes = Vec::with_capacity(doc.plane.len() + 6 * doc.box_container.len());
    for (k, p) in doc.plane.into_iter().enumerate() {
        let user = format!("plane {k}");
        let item = || user.clone();
        let normal = v3(p.normal);
        finite3(&item, "normal", normal)?;
        // Normalise via the largest component so that tiny but nonzero normals survive.
        let scale = normal.abs().max_element();
        if scale == 0.0 {
            return Err(SceneError::invalid(item(), "normal has zero length"));
        }
        let (restitution, surface) = resolve_wall(
            &mut materials,
            &sim,
            &user,
            p.material.as_deref(),
            p.restitution,
        )?;
        planes.push(Plane {
            point: v3(p.point),
            normal: (normal / scale).normalize(),
            restitution,
            surface,
        });
    }
    for (k, b) in doc.box_container.into_iter().enumerate() {
        let user = format!("box_container {k}");
        let item = || user.clone();
        let (min, max) = (v3(b.min), v3(b.max));
        finite3(&item, "min", min)?;
        finite3(&item, "max", max)?;
        if !min.cmplt(max).all() {
            return Err(SceneError::invalid(
                item(),
                format!(
                    "min must be below max on every axis, got min [{}, {}, {}], max [{}, {}, {}]",
                    min.x, min.y, min.z, max.x, max.y, max.z
                ),
            ));
        }
        let (e, surface) = resolve_wall(
            &mut materials,
            &sim,
            &user,
            b.material.as_deref(),
            b.restitution,
        )?;
        // Checked here, as the six planes no longer say which box they came from.
        restitution(&item, e)?;
        planes.extend(Scene::box_planes(min, max, e, surface));
    }

    // Value checks (and containment of every sphere) are Scene::check's.
    let mut containers = Vec::with_capacity(doc.sphere_container.len());
    for (k, c) in doc.sphere_container.into_iter().enumerate() {
        let user = format!("sphere_container {k}");
        let (restitution, surface) = resolve_wall(
            &mut materials,
            &sim,
            &user,
            c.material.as_deref(),
            c.restitution,
        )?;
        containers.push(SphereContainer {
            center: v3(c.center),
            radius: c.radius,
            restitution,
            surface,
        });
    }

    let scene = Scene {
        name: name.to_string(),
        sim,
        materials: materials.list,
        spheres,
        planes,
        containers,
    };
    scene.check(&CheckOptions {
        allow_overlap: true,
    })?;
    Ok(scene)
}
