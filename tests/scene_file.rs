//! Scene files: a complete file parses to the expected scene; every rejected case names the item
//! and the reason.

use glam::DVec3;
use spheresim::scene::{
    CheckOptions, ContactModel, Material, Plane, SimParams, SphereContainer, Surface,
};
use spheresim::{Scene, SceneError};
use std::f64::consts::PI;

const FULL: &str = r#"
[simulation]
dt = 2e-4
steps = 500
gravity = [0.0, -9.81, 0.0]
G = 6.674e-11
softening = 0.01
contact = "spring-dashpot"
stiffness = 2e5
drag = 0.5
restitution = 0.9

[[material]]
name = "custom"
restitution = 0.25
density = 1000.0
youngs_modulus = 1e9
poisson_ratio = 0.4

[[material]]
name = "steel"          # overrides the preset's restitution only
restitution = 0.6

[[particle]]
position = [0.0, -5.0, 0.0]
velocity = [0.0, 20.0, 0.0]
radius = 1.0
mass = 2.0
material = "steel"
fixed = false

[[particle]]
position = [10.0, 0.0, 0.0]
radius = 0.5
material = "custom"
restitution = 0.75

[[particle]]
position = [20.0, 0.0, 0.0]
radius = 2.0
fixed = true

[[particle]]
position = [30.0, 0.0, 0.0]
radius = 0.1
material = "glass"      # preset, no table

[[block]]
min = [100.0, 0.0, 0.0]
count = [3, 2, 2]
spacing = 0.02
radius = 0.01
velocity = [1.0, 0.0, 0.0]
mass = 0.001
jitter = 0.0

[[block]]
min = [200.0, 0.0, 0.0]
count = [2, 1, 1]
spacing = 1.0
radius = 0.25
material = "wood"
restitution = 0.3
jitter = 0.1
seed = 7

[[plane]]
point = [0.0, -10.0, 0.0]
normal = [0.0, 2.0, 0.0]
restitution = 0.7

[[plane]]
point = [0.0, 0.0, -50.0]
normal = [0.0, 0.0, 1.0]

[[box_container]]
min = [-300.0, -300.0, -300.0]
max = [300.0, 300.0, 300.0]
restitution = 0.8
"#;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300)
}

#[test]
fn full_file_parses_to_the_expected_scene() {
    let s = Scene::from_toml_str(FULL, "full").unwrap();
    assert_eq!(s.name, "full");

    // [simulation]
    assert_eq!(s.sim.dt, 2e-4);
    assert_eq!(s.sim.steps, 500);
    assert_eq!(s.sim.gravity, DVec3::new(0.0, -9.81, 0.0));
    assert_eq!(s.sim.g_const, 6.674e-11);
    assert_eq!(s.sim.softening, 0.01);
    assert_eq!(s.sim.contact, ContactModel::SpringDashpot);
    assert_eq!(s.sim.stiffness, 2e5);
    assert_eq!(s.sim.drag, 0.5);
    assert_eq!(s.sim.restitution, 0.9);

    // Materials: user tables in order, then presets on first use.
    let names: Vec<&str> = s.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["custom", "steel", "glass", "wood"]);
    assert_eq!(
        s.materials[0],
        Material {
            name: "custom".into(),
            restitution: 0.25,
            density: 1000.0,
            youngs_modulus: 1e9,
            poisson_ratio: 0.4,
            friction: 0.0, // not given: frictionless
            rolling_friction: 0.0,
        }
    );
    let steel = Material::steel();
    assert_eq!(s.materials[1].restitution, 0.6);
    assert_eq!(s.materials[1].density, steel.density);
    assert_eq!(s.materials[1].youngs_modulus, steel.youngs_modulus);
    assert_eq!(s.materials[1].poisson_ratio, steel.poisson_ratio);
    assert_eq!(s.materials[1].friction, steel.friction);
    assert_eq!(s.materials[2], Material::glass());
    assert_eq!(s.materials[3], Material::wood());

    // Particles first, in file order.
    assert_eq!(s.spheres.len(), 4 + 12 + 2);
    let p0 = &s.spheres[0];
    assert_eq!(p0.position, DVec3::new(0.0, -5.0, 0.0));
    assert_eq!(p0.velocity, DVec3::new(0.0, 20.0, 0.0));
    assert_eq!((p0.radius, p0.mass), (1.0, 2.0));
    assert_eq!(
        (p0.restitution, p0.material, p0.fixed),
        (0.6, Some(1), false)
    );

    let p1 = &s.spheres[1];
    assert_eq!(p1.velocity, DVec3::ZERO);
    assert!(close(p1.mass, 1000.0 * 4.0 / 3.0 * PI * 0.125));
    assert_eq!((p1.restitution, p1.material), (0.75, Some(0)));

    let p2 = &s.spheres[2];
    assert!(p2.fixed);
    assert_eq!(p2.mass, f64::INFINITY);
    assert_eq!(p2.inverse_mass(), 0.0);
    assert_eq!((p2.restitution, p2.material), (0.9, None));

    // Surfaces: the material's (steel's keys but restitution), else [simulation]'s default.
    assert_eq!(p0.surface, Surface::of(&steel));
    assert_eq!(p1.surface, Surface::of(&s.materials[0]));
    assert_eq!(p2.surface, Surface::default());

    let p3 = &s.spheres[3];
    assert!(close(p3.mass, 2500.0 * 4.0 / 3.0 * PI * 1e-3));
    assert_eq!((p3.restitution, p3.material), (15.0 / 16.0, Some(2)));

    // First block: x fastest, then y, then z.
    let block: Vec<DVec3> = s.spheres[4..16].iter().map(|s| s.position).collect();
    let mut want = Vec::new();
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..3 {
                want.push(
                    DVec3::new(100.0, 0.0, 0.0) + DVec3::new(x as f64, y as f64, z as f64) * 0.02,
                );
            }
        }
    }
    for (got, want) in block.iter().zip(&want) {
        assert!((*got - *want).length() < 1e-12, "{got} vs {want}");
    }
    for b in &s.spheres[4..16] {
        assert_eq!((b.radius, b.mass, b.restitution), (0.01, 0.001, 0.9));
        assert_eq!((b.velocity, b.material, b.fixed), (DVec3::X, None, false));
    }

    // Second block: material mass, restitution override, jitter within ±0.1 × spacing.
    for (k, b) in s.spheres[16..].iter().enumerate() {
        assert!(close(b.mass, 700.0 * 4.0 / 3.0 * PI * 0.25f64.powi(3)));
        assert_eq!((b.restitution, b.material), (0.3, Some(3)));
        let lattice = DVec3::new(200.0 + k as f64, 0.0, 0.0);
        let off = b.position - lattice;
        assert!(off.abs().max_element() <= 0.1 + 1e-12, "{off}");
        assert!(off.length() > 0.0, "jitter moved nothing");
    }

    // Planes: [[plane]]s in order (normalised, default restitution), then the box's six.
    assert_eq!(s.planes.len(), 2 + 6);
    assert_eq!(
        s.planes[0],
        Plane {
            point: DVec3::new(0.0, -10.0, 0.0),
            normal: DVec3::Y,
            restitution: 0.7,
            surface: Surface::default(),
            velocity: DVec3::ZERO,
        }
    );
    assert_eq!(s.planes[1].restitution, 0.9);
    let boxed = Scene::box_planes(
        DVec3::splat(-300.0),
        DVec3::splat(300.0),
        0.8,
        Surface::default(),
    );
    assert_eq!(s.planes[2..], boxed[..]);

    assert!(s.containers.is_empty());

    s.check(&CheckOptions::default()).unwrap();
}

#[test]
fn jitter_is_deterministic_and_seeded() {
    let block = |seed: u64| {
        let text = format!(
            "[[block]]\nmin = [0, 0, 0]\ncount = [4, 4, 4]\nspacing = 1.0\nradius = 0.25\n\
             mass = 1.0\njitter = 0.2\nseed = {seed}\n"
        );
        Scene::from_toml_str(&text, "j").unwrap().spheres
    };
    assert_eq!(block(3), block(3));
    assert_ne!(block(3), block(4));
}

#[test]
fn empty_tables_give_the_defaults() {
    let s = Scene::from_toml_str(
        "[simulation]\n[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n",
        "d",
    )
    .unwrap();
    assert_eq!(s.sim, SimParams::default());
    assert_eq!(s.spheres[0].restitution, 1.0);
    assert_eq!(s.sim.surface, Surface::default());
    assert_eq!(
        (s.sim.surface.youngs_modulus, s.sim.surface.poisson_ratio),
        (1e8, 0.3)
    );
    assert_eq!(s.sim.surface.friction, 0.0);
    assert_eq!(s.spheres[0].surface, Surface::default());
    assert!(s.materials.is_empty() && s.planes.is_empty() && s.containers.is_empty());
}

#[test]
fn load_names_the_scene_after_the_file_and_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drop_test.toml");
    std::fs::write(
        &path,
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n",
    )
    .unwrap();
    assert_eq!(Scene::load(&path).unwrap().name, "drop_test");

    std::fs::write(
        &path,
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmas = 1\n",
    )
    .unwrap();
    let msg = Scene::load(&path).unwrap_err().to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(
        msg.contains("line 4, column 1") && msg.contains("`mas`"),
        "{msg}"
    );

    let missing = dir.path().join("nope.toml");
    let err = Scene::load(&missing).unwrap_err();
    assert!(matches!(err, SceneError::Io { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("cannot read scene file") && msg.contains("nope.toml"),
        "{msg}"
    );
}

/// One particle of radius 1 and mass 1 at the origin, after `extra`.
fn with_particle(extra: &str) -> String {
    format!("{extra}\n[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n")
}

/// Asserts that `text` is rejected with a message containing every one of `parts`.
#[track_caller]
fn rejects(text: &str, parts: &[&str]) {
    let msg = match Scene::from_toml_str(text, "bad") {
        Ok(s) => match s.check(&CheckOptions::default()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} lacks {p:?}");
    }
}

#[test]
fn toml_syntax_errors_give_line_and_column() {
    rejects(
        "[simulation]\ndt = 1e-4\nsteps = = 3\n",
        &["bad", "line 3, column 9"],
    );
    rejects("[[particle]\n", &["line 1, column"]);
}

#[test]
fn unknown_keys_are_rejected_by_name() {
    rejects(
        &with_particle("[simulation]\ndtt = 1e-3"),
        &["line 2", "unknown field `dtt`"],
    );
    rejects(
        &with_particle("[simulation]\ng = 1.0"),
        &["unknown field `g`"],
    );
    rejects(&with_particle("[sim]\ndt = 1.0"), &["unknown field `sim`"]);
    rejects(
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\ncolour = 3\n",
        &["line 5", "unknown field `colour`"],
    );
    rejects(
        &with_particle("[[material]]\nname = \"steel\"\nhardness = 3"),
        &["unknown field `hardness`"],
    );
    rejects(
        "[[block]]\nmin = [0, 0, 0]\ncount = [1, 1, 1]\nspacing = 1\nradius = 0.1\nmass = 1\nfixed = true\n",
        &["unknown field `fixed`"],
    );
    rejects(
        &with_particle("[[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nfriction = 0.2"),
        &["unknown field `friction`"],
    );
    rejects(
        &with_particle("[[box_container]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nwall = 1"),
        &["unknown field `wall`"],
    );
}

#[test]
fn wrong_types_and_missing_keys_are_located() {
    rejects(
        &with_particle("[simulation]\ncontact = \"hertzian\""),
        &["line 2", "unknown variant `hertzian`", "impulse"],
    );
    rejects(
        "[[particle]]\nposition = [0, 0]\nradius = 1\nmass = 1\n",
        &["line 2", "length 2"],
    );
    rejects(
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\n\
         [[particle]]\nposition = [5, 0, 0]\nmass = 1\n",
        &["line 6", "missing field `radius`"],
    );
    rejects(
        &with_particle("[simulation]\nsteps = -3"),
        &["line 2", "-3"],
    );
}

#[test]
fn bad_simulation_values_are_rejected() {
    let sim = |kv: &str| with_particle(&format!("[simulation]\n{kv}"));
    rejects(
        &sim("dt = 0"),
        &["[simulation]", "dt must be positive and finite, got 0"],
    );
    rejects(
        &sim("dt = -1e-3"),
        &["[simulation]", "dt must be positive", "-0.001"],
    );
    rejects(
        &sim("dt = nan"),
        &["[simulation]", "dt must be positive", "NaN"],
    );
    rejects(
        &sim("steps = 0"),
        &["[simulation]", "steps must be at least 1, got 0"],
    );
    rejects(
        &sim("gravity = [0, -inf, 0]"),
        &["[simulation]", "gravity must be finite", "-inf"],
    );
    rejects(
        &sim("G = -1.0"),
        &["[simulation]", "G must be non-negative", "-1"],
    );
    rejects(
        &sim("G = inf"),
        &["[simulation]", "G must be non-negative and finite, got inf"],
    );
    rejects(
        &sim("softening = -0.1"),
        &["[simulation]", "softening must be non-negative"],
    );
    rejects(
        &sim("stiffness = 0"),
        &["[simulation]", "stiffness must be positive"],
    );
    rejects(
        &sim("drag = -2"),
        &["[simulation]", "drag must be non-negative", "-2"],
    );
    rejects(
        &sim("restitution = 1.5"),
        &["[simulation]", "restitution must be in [0, 1], got 1.5"],
    );
}

#[test]
fn bad_materials_are_rejected() {
    let m = |r: f64, rho: f64, e: f64, nu: f64| {
        with_particle(&format!(
            "[[material]]\nname = \"m\"\nrestitution = {r}\ndensity = {rho}\n\
             youngs_modulus = {e}\npoisson_ratio = {nu}\n"
        ))
    };
    Scene::from_toml_str(&m(0.5, 1e3, 1e9, 0.3), "ok").unwrap();
    rejects(
        &m(1.2, 1e3, 1e9, 0.3),
        &[
            "bad: [[material]] #0 at line 1 (material \"m\"): restitution must be in [0, 1], got 1.2",
        ],
    );
    rejects(
        &m(0.5, 0.0, 1e9, 0.3),
        &["material \"m\"", "density must be positive", "got 0"],
    );
    rejects(
        &m(0.5, 1e3, -1.0, 0.3),
        &["material \"m\"", "youngs_modulus must be positive"],
    );
    rejects(
        &m(0.5, 1e3, 1e9, 0.6),
        &[
            "material \"m\"",
            "poisson_ratio must be in (-1, 0.5], got 0.6",
        ],
    );
    rejects(
        &m(0.5, 1e3, 1e9, -1.0),
        &["material \"m\"", "poisson_ratio", "got -1"],
    );
    rejects(
        &with_particle("[[material]]\nname = \"m\"\nrestitution = 0.5\ndensity = 1000"),
        &[
            "[[material]] #0 at line 1 (material \"m\")",
            "missing keys `youngs_modulus`, `poisson_ratio`",
            "steel",
        ],
    );
    rejects(
        &with_particle("[[material]]\nname = \"glass\"\n[[material]]\nname = \"glass\""),
        &[
            "[[material]] #1 at line 3 (material \"glass\")",
            "defined twice (also [[material]] #0 at line 1)",
        ],
    );
}

#[test]
fn unknown_materials_are_rejected_with_the_known_ones() {
    rejects(
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\n[[particle]]\nposition = [5, 0, 0]\n\
         radius = 1\nmaterial = \"unobtainium\"\n",
        &[
            "[[particle]] #1 at line 6 (sphere 1)",
            "unknown material \"unobtainium\"; known: steel, glass, wood, ivory, rubber",
        ],
    );
    rejects(
        "[[material]]\nname = \"mine\"\nrestitution = 0.5\ndensity = 1\nyoungs_modulus = 1\n\
         poisson_ratio = 0\n[[block]]\nmin = [0, 0, 0]\ncount = [2, 2, 2]\nspacing = 1\n\
         radius = 0.1\nmaterial = \"foo\"\n",
        &[
            "[[block]] #0 at line 7",
            "unknown material \"foo\"; known: mine, steel",
        ],
    );
}

#[test]
fn bad_spheres_are_rejected_by_id() {
    let two = |second: &str| {
        format!(
            "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\n\
             [[particle]]\n{second}\n"
        )
    };
    rejects(
        &two("position = [5, 0, 0]\nradius = -0.5\nmass = 1"),
        &["[[particle]] #1 at line 6 (sphere 1): radius must be positive and finite, got -0.5"],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = nan\nmass = 1"),
        &["sphere 1", "radius", "NaN"],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = 1\nmass = 0"),
        &[
            "[[particle]] #1 at line 6 (sphere 1): mass must be positive",
            "got 0",
        ],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = 1\nmass = inf"),
        &["[[particle]] #1 at line 6 (sphere 1): mass", "inf"],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = 1"),
        &["sphere 1", "no mass", "`mass`", "`material`"],
    );
    rejects(
        &two("position = [inf, 0, 0]\nradius = 1\nmass = 1"),
        &["[[particle]] #1 at line 6 (sphere 1): position must be finite"],
    );
    rejects(
        &two("position = [5, 0, 0]\nvelocity = [0, nan, 0]\nradius = 1\nmass = 1"),
        &[
            "[[particle]] #1 at line 6 (sphere 1): velocity must be finite",
            "NaN",
        ],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = 1\nmass = 1\nrestitution = 1.2"),
        &["sphere 1", "restitution must be in [0, 1], got 1.2"],
    );
    rejects(
        &two("position = [5, 0, 0]\nradius = 1\nmass = 1\nrestitution = -0.1"),
        &["sphere 1", "restitution must be in [0, 1], got -0.1"],
    );
    // A fixed sphere needs no mass.
    Scene::from_toml_str(&two("position = [5, 0, 0]\nradius = 1\nfixed = true"), "ok").unwrap();
}

#[test]
fn bad_blocks_are_rejected() {
    let block = |kv: &str| {
        format!("[[block]]\nmin = [0, 0, 0]\ncount = [2, 2, 2]\nradius = 0.1\nmass = 1\n{kv}\n")
    };
    rejects(
        &block("spacing = 0"),
        &[
            "[[block]] #0 at line 1",
            "spacing must be positive",
            "got 0",
        ],
    );
    rejects(
        &block("spacing = 1\njitter = -0.1"),
        &["[[block]] #0 at line 1", "jitter must be non-negative"],
    );
    rejects(
        &block("spacing = 1\nrestitution = 2"),
        &[
            "[[block]] #0 at line 1",
            "restitution must be in [0, 1], got 2",
        ],
    );
    rejects(
        "[[block]]\nmin = [0, 0, 0]\ncount = [100000, 100000, 100000]\nspacing = 1\n\
         radius = 0.1\nmass = 1\n",
        &[
            "[[block]] #0 at line 1",
            "count [100000, 100000, 100000]",
            "spheres supported",
        ],
    );
    rejects(
        "[[block]]\nmin = [0, 0, 0]\ncount = [2, 2, 2]\nspacing = 1\nradius = 0.1\n",
        &["[[block]] #0 at line 1", "no mass"],
    );
    // A block of zero spheres is fine as long as the scene has others.
    let empty_block =
        "[[block]]\nmin = [0, 0, 0]\ncount = [0, 1, 1]\nspacing = 1\nradius = 0.1\nmass = 1";
    assert_eq!(
        Scene::from_toml_str(&with_particle(empty_block), "ok")
            .unwrap()
            .spheres
            .len(),
        1
    );
}

#[test]
fn bad_planes_and_boxes_are_rejected() {
    rejects(
        &with_particle(
            "[[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\n\
             [[plane]]\npoint = [0, 0, 0]\nnormal = [1, 0, 0]\n\
             [[plane]]\npoint = [0, 0, 0]\nnormal = [0, 0, 0]",
        ),
        &["bad: [[plane]] #2 at line 7: normal has zero length"],
    );
    rejects(
        &with_particle("[[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\nrestitution = 1.01"),
        &[
            "[[plane]] #0 at line 1",
            "restitution must be in [0, 1], got 1.01",
        ],
    );
    rejects(
        &with_particle("[[plane]]\npoint = [0, nan, 0]\nnormal = [0, 1, 0]"),
        &["[[plane]] #0 at line 1", "point must be finite"],
    );
    rejects(
        &with_particle("[[plane]]\npoint = [0, 0, 0]\nnormal = [0, inf, 0]"),
        &["[[plane]] #0 at line 1", "normal must be finite"],
    );
    rejects(
        &with_particle("[[box_container]]\nmin = [0, 0, 0]\nmax = [1, 0, 1]"),
        &[
            "[[box_container]] #0 at line 1",
            "min must be below max on every axis",
        ],
    );
    rejects(
        &with_particle("[[box_container]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\nrestitution = -1"),
        &[
            "[[box_container]] #0 at line 1",
            "restitution must be in [0, 1], got -1",
        ],
    );
    // Tiny normals are normalised, not rejected.
    let s = Scene::from_toml_str(
        &with_particle("[[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1e-310, 0]"),
        "tiny",
    )
    .unwrap();
    assert_eq!(s.planes[0].normal, DVec3::Y);
}

#[test]
fn empty_scenes_are_rejected() {
    rejects("", &["scene has no spheres"]);
    rejects(
        "[[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\n",
        &["scene has no spheres"],
    );
}

#[test]
fn deep_initial_overlaps_name_both_spheres_and_the_depth() {
    let text = "[[particle]]\nposition = [-10, 0, 0]\nradius = 1\nmass = 1\n\
                [[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\
                [[particle]]\nposition = [1.5, 0, 0]\nradius = 1\nmass = 1\n";
    let s = Scene::from_toml_str(text, "o").unwrap();
    let err = s.check(&CheckOptions::default()).unwrap_err();
    match err {
        SceneError::Overlap { a, b, depth, .. } => {
            assert_eq!((a, b), (1, 2));
            assert!((depth - 0.5).abs() < 1e-12);
        }
        e => panic!("{e}"),
    }
    rejects(
        text,
        &[
            "spheres 1 and 2 overlap by 0.5 m",
            "1% of the smaller radius",
        ],
    );
    s.check(&CheckOptions {
        allow_overlap: true,
    })
    .unwrap();

    // Within 1 % of the smaller radius: fine. Fixed against fixed: fine.
    let shallow = "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\
                   [[particle]]\nposition = [1.995, 0, 0]\nradius = 1\nmass = 1\n";
    Scene::from_toml_str(shallow, "s")
        .unwrap()
        .check(&CheckOptions::default())
        .unwrap();
    let fixed = "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nfixed = true\n\
                 [[particle]]\nposition = [0.5, 0, 0]\nradius = 1\nfixed = true\n";
    Scene::from_toml_str(fixed, "f")
        .unwrap()
        .check(&CheckOptions::default())
        .unwrap();
}

#[test]
fn overlapping_block_is_reported_at_its_first_pair() {
    // Spacing 1.5 × radius: every neighbour overlaps; the first pair is (1, 2) after particle 0.
    let text = with_particle(
        "[[block]]\nmin = [10, 0, 0]\ncount = [20, 20, 20]\nspacing = 0.15\nradius = 0.1\nmass = 1",
    );
    let s = Scene::from_toml_str(&text, "b").unwrap();
    match s.check(&CheckOptions::default()).unwrap_err() {
        SceneError::Overlap { a, b, .. } => assert_eq!((a, b), (1, 2)),
        e => panic!("{e}"),
    }
}

/// Hertz contact, surfaces and containers: every new key of the scene file.
const SURFACES: &str = r#"
[simulation]
contact = "hertz"
restitution = 0.9
youngs_modulus = 2e9
poisson_ratio = 0.25
friction = 0.1

[[material]]
name = "soft"               # no friction key: frictionless
restitution = 0.4
density = 900.0
youngs_modulus = 5e6
poisson_ratio = 0.45

[[material]]
name = "grippy"
restitution = 0.3
density = 1200.0
youngs_modulus = 1e7
poisson_ratio = 0.48
friction = 1.2

[[material]]
name = "wood"               # preset; overrides friction only
friction = 0.45

[[particle]]                # sphere 0: no material, [simulation]'s surface
position = [0.0, 0.0, 0.0]
radius = 0.1
mass = 1.0

[[particle]]                # sphere 1: preset, no table
position = [0.5, 0.0, 0.0]
radius = 0.1
material = "steel"

[[particle]]                # sphere 2
position = [-0.5, 0.0, 0.0]
radius = 0.1
material = "grippy"

[[block]]                   # spheres 3, 4
min = [0.0, 0.5, 0.0]
count = [2, 1, 1]
spacing = 0.3
radius = 0.1
material = "soft"

[[plane]]                   # plane 0: material gives surface and restitution
point = [0.0, -1.5, 0.0]
normal = [0.0, 1.0, 0.0]
material = "rubber"

[[plane]]                   # plane 1: own restitution wins over the material's
point = [0.0, 0.0, -1.5]
normal = [0.0, 0.0, 1.0]
material = "wood"
restitution = 0.2

[[plane]]                   # plane 2: [simulation]'s surface and restitution
point = [0.0, 0.0, 1.5]
normal = [0.0, 0.0, -1.0]

[[box_container]]           # planes 3..9
min = [-3.0, -3.0, -3.0]
max = [3.0, 3.0, 3.0]
material = "glass"

[[sphere_container]]        # container 0
center = [0.0, 0.0, 0.0]
radius = 2.0
material = "ivory"

[[sphere_container]]        # container 1: [simulation]'s surface and restitution
center = [0.1, 0.0, 0.0]
radius = 1.5

[[sphere_container]]        # container 2: own restitution, the material's surface
center = [0.0, 0.0, 0.0]
radius = 1.0
restitution = 0.6
material = "grippy"
"#;

#[test]
fn surface_keys_and_containers_load_with_the_right_values() {
    let s = Scene::from_toml_str(SURFACES, "surfaces").unwrap();
    assert_eq!(s.sim.contact, ContactModel::Hertz);
    let sim_surface = Surface {
        youngs_modulus: 2e9,
        poisson_ratio: 0.25,
        friction: 0.1,
        ..Surface::default()
    };
    assert_eq!(s.sim.surface, sim_surface);

    // Materials: user tables, then presets in order of first use by spheres, planes, boxes and
    // sphere containers.
    let names: Vec<&str> = s.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "soft", "grippy", "wood", "steel", "rubber", "glass", "ivory"
        ]
    );
    let material = |name: &str| s.materials.iter().find(|m| m.name == name).unwrap();
    assert_eq!(material("soft").friction, 0.0);
    assert_eq!(material("grippy").friction, 1.2);
    let wood = Material {
        friction: 0.45,
        ..Material::wood()
    };
    assert_eq!(*material("wood"), wood);
    assert_eq!(*material("steel"), Material::steel());
    assert_eq!(Material::steel().friction, 0.57);

    // Spheres: the material's surface, else [simulation]'s.
    assert_eq!(s.spheres.len(), 5);
    assert_eq!(s.spheres[0].surface, sim_surface);
    assert_eq!(s.spheres[1].surface, Surface::of(&Material::steel()));
    assert_eq!(
        s.spheres[2].surface,
        Surface {
            youngs_modulus: 1e7,
            poisson_ratio: 0.48,
            friction: 1.2,
            ..Surface::default()
        }
    );
    for b in &s.spheres[3..] {
        assert_eq!(b.surface, Surface::of(material("soft")));
        assert_eq!(b.surface.friction, 0.0);
    }

    // Planes: restitution = own key, else the material's, else [simulation]'s.
    assert_eq!(s.planes.len(), 3 + 6);
    assert_eq!(
        s.planes[0],
        Plane {
            point: DVec3::new(0.0, -1.5, 0.0),
            normal: DVec3::Y,
            restitution: Material::rubber().restitution,
            surface: Surface::of(&Material::rubber()),
            velocity: DVec3::ZERO,
        }
    );
    assert_eq!(
        (s.planes[1].restitution, s.planes[1].surface),
        (0.2, Surface::of(&wood))
    );
    assert_eq!(
        (s.planes[2].restitution, s.planes[2].surface),
        (0.9, sim_surface)
    );
    let glass = Material::glass();
    let boxed = Scene::box_planes(
        DVec3::splat(-3.0),
        DVec3::splat(3.0),
        glass.restitution,
        Surface::of(&glass),
    );
    assert_eq!(s.planes[3..], boxed[..]);

    // Sphere containers, in file order.
    let ivory = Material::ivory();
    assert_eq!(
        s.containers,
        [
            SphereContainer {
                center: DVec3::ZERO,
                radius: 2.0,
                restitution: ivory.restitution,
                surface: Surface::of(&ivory),
            },
            SphereContainer {
                center: DVec3::new(0.1, 0.0, 0.0),
                radius: 1.5,
                restitution: 0.9,
                surface: sim_surface,
            },
            SphereContainer {
                center: DVec3::ZERO,
                radius: 1.0,
                restitution: 0.6,
                surface: Surface::of(material("grippy")),
            },
        ]
    );

    s.check(&CheckOptions::default()).unwrap();
}

#[test]
fn every_contact_model_parses() {
    for (text, model) in [
        ("impulse", ContactModel::Impulse),
        ("spring-dashpot", ContactModel::SpringDashpot),
        ("hertz", ContactModel::Hertz),
    ] {
        let s = Scene::from_toml_str(
            &with_particle(&format!("[simulation]\ncontact = \"{text}\"")),
            "c",
        )
        .unwrap();
        assert_eq!(s.sim.contact, model);
        assert_eq!(s.sim.contact.to_string(), text);
    }
    rejects(
        &with_particle("[simulation]\ncontact = \"Hertz\""),
        &["line 2", "unknown variant `Hertz`", "hertz"],
    );
}

/// A scratch directory holding `scene.toml`, for running the binary on a rejected scene.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn path(&self, name: &str) -> String {
        self.0.path().join(name).to_string_lossy().into_owned()
    }
    /// Everything in the directory besides the scene file.
    fn written(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.0.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "scene.toml")
            .collect();
        v.sort();
        v
    }
}

/// As [`rejects`], and `spheresim run` on the file fails with the same message and writes
/// nothing, even with `--allow-overlap`.
#[track_caller]
fn rejects_everywhere(text: &str, parts: &[&str]) {
    rejects(text, parts);
    let dir = Scratch(tempfile::tempdir().unwrap());
    let scene = dir.path("scene.toml");
    std::fs::write(&scene, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"))
        .args(["run", &scene, "--allow-overlap", "--final"])
        .arg(dir.path("final.csv"))
        .arg("--stats-json")
        .arg(dir.path("stats.json"))
        .args(["--output", &dir.path("snaps"), "--every", "10"])
        .output()
        .expect("spawn spheresim");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted:\n{text}\n{err}");
    for p in parts {
        assert!(err.contains(p), "message {err:?} lacks {p:?}");
    }
    assert_eq!(
        dir.written(),
        Vec::<String>::new(),
        "files written for a rejected scene"
    );
}

#[test]
fn bad_surfaces_are_rejected_by_item() {
    let sim = |kv: &str| with_particle(&format!("[simulation]\n{kv}"));
    rejects_everywhere(
        &sim("youngs_modulus = -1e9"),
        &[
            "[simulation]",
            "youngs_modulus must be positive and finite, got -1e9",
        ],
    );
    rejects(
        &sim("youngs_modulus = 0"),
        &["[simulation]", "youngs_modulus must be positive", "got 0"],
    );
    rejects(
        &sim("youngs_modulus = inf"),
        &[
            "[simulation]",
            "youngs_modulus must be positive and finite, got inf",
        ],
    );
    rejects_everywhere(
        &sim("poisson_ratio = 0.6"),
        &[
            "[simulation]",
            "poisson_ratio must be in (-1, 0.5], got 0.6",
        ],
    );
    rejects(
        &sim("poisson_ratio = nan"),
        &[
            "[simulation]",
            "poisson_ratio must be in (-1, 0.5], got NaN",
        ],
    );
    rejects_everywhere(
        &sim("friction = -1"),
        &[
            "[simulation]",
            "friction must be non-negative and finite, got -1",
        ],
    );
    rejects(
        &sim("friction = inf"),
        &[
            "[simulation]",
            "friction must be non-negative and finite, got inf",
        ],
    );
    // The bounds themselves are fine: ν = 0.5 (incompressible), μ = 0.
    Scene::from_toml_str(&sim("poisson_ratio = 0.5\nfriction = 0"), "ok").unwrap();

    // Materials: user tables and overridden presets.
    rejects_everywhere(
        &with_particle(
            "[[material]]\nname = \"m\"\nrestitution = 0.5\ndensity = 1000\n\
             youngs_modulus = 1e9\npoisson_ratio = 0.3\nfriction = -1",
        ),
        &[
            "material \"m\"",
            "friction must be non-negative and finite, got -1",
        ],
    );
    rejects_everywhere(
        &with_particle("[[material]]\nname = \"steel\"\nyoungs_modulus = -200e9"),
        &[
            "material \"steel\"",
            "youngs_modulus must be positive",
            "got -2e11",
        ],
    );
    rejects(
        &with_particle("[[material]]\nname = \"rubber\"\npoisson_ratio = 0.6"),
        &[
            "material \"rubber\"",
            "poisson_ratio must be in (-1, 0.5], got 0.6",
        ],
    );
}

#[test]
fn bad_sphere_containers_are_rejected() {
    let container = |kv: &str| with_particle(&format!("[[sphere_container]]\n{kv}"));
    Scene::from_toml_str(&container("center = [0, 0, 0]\nradius = 2"), "ok").unwrap();
    rejects_everywhere(
        &container("center = [0, 0, 0]\nradius = 0"),
        &[
            "[[sphere_container]] #0 at line 1",
            "radius must be positive and finite, got 0",
        ],
    );
    rejects(
        &container("center = [0, 0, 0]\nradius = -3"),
        &[
            "[[sphere_container]] #0 at line 1",
            "radius must be positive",
            "got -3",
        ],
    );
    rejects(
        &container("center = [0, 0, 0]\nradius = inf"),
        &[
            "[[sphere_container]] #0 at line 1",
            "radius must be positive and finite, got inf",
        ],
    );
    rejects_everywhere(
        &container("center = [0, nan, 0]\nradius = 2"),
        &[
            "[[sphere_container]] #0 at line 1",
            "center must be finite",
            "NaN",
        ],
    );
    rejects_everywhere(
        &container("center = [0, 0, 0]\nradius = 2\nrestitution = 1.5"),
        &[
            "[[sphere_container]] #0 at line 1",
            "restitution must be in [0, 1], got 1.5",
        ],
    );
    rejects_everywhere(
        &container("center = [0, 0, 0]\nradius = 2\nmaterial = \"unobtainium\""),
        &[
            "[[sphere_container]] #0 at line 1",
            "unknown material \"unobtainium\"; known: steel",
        ],
    );
    // The second container is the bad one.
    rejects(
        &with_particle(
            "[[sphere_container]]\ncenter = [0, 0, 0]\nradius = 2\n\
             [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 2\nrestitution = -0.5",
        ),
        &[
            "[[sphere_container]] #1 at line 4",
            "restitution must be in [0, 1], got -0.5",
        ],
    );
    // Unknown and missing keys, located.
    rejects_everywhere(
        &container("center = [0, 0, 0]\nradius = 2\ncolour = \"red\""),
        &["line 4", "unknown field `colour`"],
    );
    rejects(
        &container("centre = [0, 0, 0]\nradius = 2"),
        &["unknown field `centre`", "center"],
    );
    rejects(&container("radius = 2"), &["missing field `center`"]);
    rejects(
        &container("center = [0, 0, 0]"),
        &["missing field `radius`"],
    );
}

#[test]
fn spheres_outside_a_container_are_rejected_with_the_numbers() {
    // Sphere 1 (radius 1 at x = 4.5) reaches 5.5 m from the centre of a 5 m container.
    let text = "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\
                [[particle]]\nposition = [4.5, 0, 0]\nradius = 1\nmass = 1\n\
                [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 10\n\
                [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 5\n";
    rejects_everywhere(
        text,
        &[
            "[[particle]] #1 at line 5 (sphere 1): not inside sphere_container 1",
            "distance from its center 4.5 m + radius 1 m = 5.5 m",
            "exceeds the container radius 5 m",
        ],
    );
    // Entirely outside, and fixed spheres too.
    rejects(
        "[[particle]]\nposition = [0, 0, 0]\nradius = 1\nmass = 1\n\
         [[particle]]\nposition = [100, 0, 0]\nradius = 1\nfixed = true\n\
         [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 5\n",
        &["(sphere 1): not inside sphere_container 0", "101 m"],
    );
    // Touching the wall from inside, and within 1 % of the sphere's radius beyond it: fine.
    for x in ["4", "4.005"] {
        let text = format!(
            "[[particle]]\nposition = [{x}, 0, 0]\nradius = 1\nmass = 1\n\
             [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 5\n"
        );
        Scene::from_toml_str(&text, "ok")
            .unwrap()
            .check(&CheckOptions::default())
            .unwrap();
    }
    rejects(
        "[[particle]]\nposition = [4.02, 0, 0]\nradius = 1\nmass = 1\n\
         [[sphere_container]]\ncenter = [0, 0, 0]\nradius = 5\n",
        &[
            "[[particle]] #0 at line 1 (sphere 0): not inside sphere_container 0",
            "5.02 m",
        ],
    );
}

#[test]
fn wall_materials_are_resolved_like_sphere_materials() {
    rejects_everywhere(
        &with_particle("[[plane]]\npoint = [0, -2, 0]\nnormal = [0, 1, 0]\nmaterial = \"foo\""),
        &[
            "[[plane]] #0 at line 1",
            "unknown material \"foo\"; known: steel, glass, wood, ivory, rubber",
        ],
    );
    rejects(
        &with_particle(
            "[[material]]\nname = \"mine\"\nrestitution = 0.5\ndensity = 1\nyoungs_modulus = 1\n\
             poisson_ratio = 0\n\
             [[box_container]]\nmin = [-2, -2, -2]\nmax = [2, 2, 2]\nmaterial = \"foo\"",
        ),
        &[
            "[[box_container]] #0 at line 7",
            "unknown material \"foo\"; known: mine, steel",
        ],
    );
    // A box without its own restitution takes its material's, and the material's surface.
    let s = Scene::from_toml_str(
        &with_particle(
            "[[material]]\nname = \"mine\"\nrestitution = 0.5\ndensity = 1\nyoungs_modulus = 1\n\
             poisson_ratio = 0\nfriction = 0.7\n\
             [[box_container]]\nmin = [-2, -2, -2]\nmax = [2, 2, 2]\nmaterial = \"mine\"",
        ),
        "ok",
    )
    .unwrap();
    for p in &s.planes {
        assert_eq!(p.restitution, 0.5);
        assert_eq!(p.surface, Surface::of(&s.materials[0]));
        assert_eq!(p.surface.friction, 0.7);
    }
}

/// A plane's `velocity` moves its surface along itself: read, defaulted to zero, and refused
/// with a normal component or a non-finite value.
#[test]
fn plane_velocity_is_read_and_must_lie_in_the_plane() {
    let plane = |v: &str| {
        with_particle(&format!(
            "[[plane]]\npoint = [0, -2, 0]\nnormal = [0, 2, 0]\n{v}"
        ))
    };
    let s = Scene::from_toml_str(&plane("velocity = [1.5, 0, -2]"), "belt").unwrap();
    s.check(&CheckOptions::default()).unwrap();
    assert_eq!(s.planes[0].velocity, DVec3::new(1.5, 0.0, -2.0));
    let still = Scene::from_toml_str(&plane(""), "still").unwrap();
    assert_eq!(still.planes[0].velocity, DVec3::ZERO);
    rejects(
        &plane("velocity = [1, 0.5, 0]"),
        &[
            "[[plane]] #0 at line 1",
            "velocity must lie in the plane",
            "component along the normal is 0.5 m/s",
        ],
    );
    rejects(
        &plane("velocity = [nan, 0, 0]"),
        &["[[plane]] #0 at line 1", "velocity"],
    );
    // The builder checks the same.
    let built = Scene::builder()
        .sphere(spheresim::scene::Sphere::new(DVec3::ZERO, 1.0).mass(1.0))
        .plane(Plane::new(DVec3::NEG_Y * 2.0, DVec3::Y).velocity(DVec3::new(0.0, -1.0, 0.0)))
        .build()
        .and_then(|s| s.check(&CheckOptions::default()).map(|_| ()));
    let err = built
        .expect_err("a plane moving along its normal")
        .to_string();
    assert!(err.contains("velocity must lie in the plane"), "{err}");
}

/// A `[[block]]` whose spheres would not fit in the memory the machine has available is refused
/// by name before anything is allocated (with overcommit, reserving would succeed and filling
/// would bring the out-of-memory killer).
#[test]
fn a_block_larger_than_the_available_memory_is_refused_before_allocating() {
    let meminfo = std::fs::read_to_string("/proc/meminfo").expect("Linux /proc/meminfo");
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("MemAvailable");
    // Twice the available memory's worth of spheres, well below the count limit.
    let n = 2 * kib * 1024 / std::mem::size_of::<spheresim::scene::Sphere>() as u64;
    let side = (n as f64).cbrt().ceil() as u64;
    let text = format!(
        "[[block]]\nmin = [0, 0, 0]\nspacing = 3\ncount = [{side}, {side}, {side}]\n\
         radius = 1\nmass = 1\n"
    );
    let err = Scene::from_toml_str(&text, "huge").expect_err("a scene larger than memory");
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("{} spheres need about", side * side * side))
            && msg.contains("available (MemAvailable)"),
        "{msg}"
    );
}
