//! The library API: the builders give the scene that the equivalent scene file or struct
//! literal gives, their errors name the item and the field, [`Simulation::new`] checks a plain
//! `&Scene` and takes a [`CheckedScene`], and `Simulation::snapshot_into` reuses the snapshot's
//! allocations.

mod common;

use glam::DVec3;
use spheresim::scene::{
    BoxContainer, CheckOptions, CheckedScene, ContactModel, Material, Plane, Scene, SimParams,
    Sphere, SphereContainer, Surface, sphere_volume,
};
use spheresim::{Backend, Precision, SimError, Simulation, Snapshot};

/// A vector's address and capacity.
type Allocation = (*const u8, usize);

/// Where each vector of a snapshot lives and how much it holds: unchanged when a call reused it.
fn allocations(s: &Snapshot) -> [Allocation; 6] {
    fn of<T>(v: &[T], capacity: usize) -> Allocation {
        (v.as_ptr().cast(), capacity)
    }
    [
        of(&s.position, s.position.capacity()),
        of(&s.velocity, s.velocity.capacity()),
        of(&s.radius, s.radius.capacity()),
        of(&s.mass, s.mass.capacity()),
        of(&s.angular_velocity, s.angular_velocity.capacity()),
        of(&s.orientation, s.orientation.capacity()),
    ]
}

/// A scene file using every kind of table the builder mirrors.
const TOML: &str = r#"
[simulation]
dt = 2e-5
steps = 300
gravity = [0.0, -9.81, 0.0]
contact = "hertz"
restitution = 0.9
friction = 0.3
rotation = true
skin = 0.001

[[material]]
name = "clay"
restitution = 0.2
density = 1800.0
youngs_modulus = 5e6
poisson_ratio = 0.4

[[particle]]
position = [0.0, 0.1, 0.0]
velocity = [1.0, 0.0, 0.0]
radius = 0.01
material = "steel"

[[particle]]
position = [0.05, 0.1, 0.0]
angular_velocity = [0.0, 0.0, 3.0]
radius = 0.01
mass = 0.002
restitution = 0.5

[[particle]]
position = [0.1, 0.1, 0.0]
radius = 0.02
material = "clay"
fixed = true

[[plane]]
point = [0.0, -0.2, 0.0]
normal = [0.0, 2.0, 0.0]
material = "wood"

[[box_container]]
min = [-1.0, -1.0, -1.0]
max = [1.0, 1.0, 1.0]
restitution = 0.7

[[sphere_container]]
center = [0.0, 0.0, 0.0]
radius = 5.0
material = "glass"
"#;

fn clay() -> Material {
    Material {
        name: "clay".into(),
        restitution: 0.2,
        density: 1800.0,
        youngs_modulus: 5e6,
        poisson_ratio: 0.4,
        friction: 0.0,
        rolling_friction: 0.0,
    }
}

fn built() -> Scene {
    Scene::builder()
        .name("same")
        .dt(2e-5)
        .steps(300)
        .gravity(DVec3::new(0.0, -9.81, 0.0))
        .contact(ContactModel::Hertz)
        .restitution(0.9)
        .surface(Surface {
            friction: 0.3,
            ..Surface::default()
        })
        .rotation(true)
        .skin(0.001)
        .material(clay())
        .sphere(
            Sphere::new(DVec3::new(0.0, 0.1, 0.0), 0.01)
                .velocity(DVec3::X)
                .material("steel"),
        )
        .sphere(
            Sphere::new(DVec3::new(0.05, 0.1, 0.0), 0.01)
                .angular_velocity(DVec3::new(0.0, 0.0, 3.0))
                .mass(0.002)
                .restitution(0.5),
        )
        .sphere(
            Sphere::new(DVec3::new(0.1, 0.1, 0.0), 0.02)
                .material("clay")
                .fixed(true),
        )
        .plane(Plane::new(DVec3::new(0.0, -0.2, 0.0), DVec3::new(0.0, 2.0, 0.0)).material("wood"))
        .box_container(BoxContainer::new(DVec3::splat(-1.0), DVec3::splat(1.0)).restitution(0.7))
        .sphere_container(SphereContainer::new(DVec3::ZERO, 5.0).material("glass"))
        .build()
        .expect("the builder's scene is valid")
}

#[test]
fn builder_gives_the_scene_of_the_equivalent_file() {
    let file = Scene::from_toml_str(TOML, "same").expect("the scene file is valid");
    let b = built();
    // Field by field first, for a readable failure, then the whole.
    assert_eq!(b.sim, file.sim);
    assert_eq!(b.materials, file.materials);
    assert_eq!(b.spheres, file.spheres);
    assert_eq!(b.planes, file.planes);
    assert_eq!(b.containers, file.containers);
    assert_eq!(b, file);
    // What the resolution did: presets added on first use, after the scene's own material.
    let names: Vec<&str> = b.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["clay", "steel", "wood", "glass"]);
    assert_eq!(b.planes.len(), 7);
    assert_eq!(b.planes[0].normal, DVec3::Y);
}

#[test]
fn builder_gives_the_struct_literal() {
    let steel = Material::steel();
    let literal = Scene {
        inserts: Vec::new(),
        outflows: Vec::new(),
        name: String::new(),
        sim: SimParams {
            dt: 1e-3,
            ..SimParams::default()
        },
        materials: vec![steel.clone()],
        spheres: vec![
            Sphere {
                position: DVec3::new(1.0, 2.0, 3.0),
                velocity: DVec3::new(0.0, -1.0, 0.0),
                angular_velocity: DVec3::ZERO,
                radius: 0.1,
                mass: steel.density * sphere_volume(0.1),
                restitution: steel.restitution,
                material: Some(0),
                fixed: false,
                surface: Surface::of(&steel),
                image: [0; 3],
            },
            Sphere {
                position: DVec3::new(2.0, 2.0, 3.0),
                velocity: DVec3::ZERO,
                angular_velocity: DVec3::ZERO,
                radius: 0.2,
                mass: f64::INFINITY,
                restitution: 1.0,
                material: None,
                fixed: true,
                surface: Surface::default(),
                image: [0; 3],
            },
        ],
        planes: Vec::new(),
        containers: Vec::new(),
    };
    let b = Scene::builder()
        .dt(1e-3)
        .sphere(
            Sphere::new(DVec3::new(1.0, 2.0, 3.0), 0.1)
                .velocity(DVec3::new(0.0, -1.0, 0.0))
                .material("steel"),
        )
        .sphere(Sphere::new(DVec3::new(2.0, 2.0, 3.0), 0.2).fixed(true))
        .build()
        .unwrap();
    assert_eq!(b, literal);
}

#[test]
fn builder_errors_name_the_item_and_the_field() {
    let one = |s| Scene::builder().sphere(s);
    let msg = |b: spheresim::scene::SceneBuilder| b.build().unwrap_err().to_string();

    let e = msg(one(Sphere::new(DVec3::ZERO, 0.1).mass(1.0)).dt(-1.0));
    assert!(e.contains("[simulation]") && e.contains("dt"), "{e}");

    let e = msg(one(Sphere::new(DVec3::ZERO, -0.1).mass(1.0)));
    assert!(e.starts_with("sphere 0: radius"), "{e}");
    // Several problems are listed under the scene's name.
    let e = msg(one(Sphere::new(DVec3::ZERO, -0.1).mass(1.0))
        .dt(0.0)
        .name("two"));
    assert!(e.starts_with("scene two: 2 problems:"), "{e}");

    let e = msg(one(Sphere::new(DVec3::ZERO, 0.1).material("steal")));
    assert!(
        e.contains("sphere 0") && e.contains("unknown material") && e.contains("steel"),
        "{e}"
    );

    let e = msg(one(Sphere::new(DVec3::ZERO, 0.1)));
    assert!(e.contains("sphere 0") && e.contains("no mass"), "{e}");

    let e =
        msg(one(Sphere::new(DVec3::ZERO, 0.1).mass(1.0))
            .plane(Plane::new(DVec3::ZERO, DVec3::ZERO)));
    assert!(e.contains("plane 0") && e.contains("normal"), "{e}");

    let e = msg(one(Sphere::new(DVec3::ZERO, 0.1).mass(1.0))
        .box_container(BoxContainer::new(DVec3::ONE, DVec3::ZERO)));
    assert!(e.contains("box_container 0") && e.contains("min"), "{e}");

    let e = msg(one(Sphere::new(DVec3::ZERO, 0.1)
        .mass(1.0)
        .restitution(1.5)));
    assert!(e.contains("sphere 0") && e.contains("restitution"), "{e}");

    // Overlaps are the check's, with its options.
    let pair = Scene::builder()
        .sphere(Sphere::new(DVec3::ZERO, 0.1).mass(1.0))
        .sphere(Sphere::new(DVec3::new(0.1, 0.0, 0.0), 0.1).mass(1.0));
    let e = pair.clone().check(&CheckOptions::default()).unwrap_err();
    assert!(e.to_string().contains("spheres 0 and 1"), "{e}");
    pair.check(&CheckOptions {
        allow_overlap: true,
    })
    .expect("overlaps allowed");
}

#[test]
fn simulation_checks_a_plain_scene_and_takes_a_checked_one() {
    let good = built();
    let checked: CheckedScene = good.check(&CheckOptions::default()).unwrap();
    assert_eq!(*checked, good);
    let mut a = Simulation::new(&checked, Backend::Cpu, Precision::F64).unwrap();
    let mut b = Simulation::new(&good, Backend::Cpu, Precision::F64).unwrap();
    a.step(5).unwrap();
    b.step(5).unwrap();
    assert_eq!(a.snapshot(), b.snapshot());

    // A scene edited after its check is a plain Scene again: checked on the way in.
    let mut bad = checked.into_scene();
    bad.sim.dt = f64::NAN;
    match Simulation::new(&bad, Backend::Cpu, Precision::F64) {
        Err(SimError::Scene(e)) => {
            let e = e.to_string();
            assert!(e.contains("[simulation]") && e.contains("dt"), "{e}");
        }
        Err(e) => panic!("expected the scene's error, got {e}"),
        Ok(_) => panic!("a NaN time step was accepted"),
    }
    let mut empty = good.clone();
    empty.spheres.clear();
    assert!(matches!(
        Simulation::new(&empty, Backend::Cpu, Precision::F32),
        Err(SimError::Scene(_))
    ));
}

#[test]
fn snapshot_into_reuses_the_allocations() {
    for precision in [Precision::F32, Precision::F64] {
        let scene = built();
        let mut sim = Simulation::new(&scene, Backend::Cpu, precision).unwrap();
        let mut out = Snapshot::default();
        sim.snapshot_into(&mut out);
        assert_eq!(out, sim.snapshot());
        let before = allocations(&out);
        for _ in 0..3 {
            sim.step(10).unwrap();
            sim.snapshot_into(&mut out);
            assert_eq!(
                allocations(&out),
                before,
                "{precision}: a vector was reallocated"
            );
            assert_eq!(out, sim.snapshot(), "{precision}");
        }
        assert_eq!(out.step, 30);
        assert_eq!(out.angular_velocity.len(), scene.spheres.len());
    }
}

/// The GPU backend's `snapshot_into` as the CPU's: the snapshot's vectors are kept, and the
/// read-back buffer is made once, by the first call, and reused after.
#[test]
fn gpu_snapshot_into_reuses_the_allocations_and_the_read_back_buffer() {
    if !common::gpu_available() {
        return;
    }
    for rotation in [true, false] {
        let mut scene = built();
        scene.sim.rotation = rotation;
        let mut sim = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
        let created = |sim: &Simulation| sim.gpu_backend().unwrap().snapshot_buffers_created();
        assert_eq!(
            created(&sim),
            0,
            "rotation {rotation}: made before the first call"
        );
        let mut out = Snapshot::default();
        sim.snapshot_into(&mut out);
        assert_eq!(created(&sim), 1, "rotation {rotation}");
        assert_eq!(out, sim.snapshot(), "rotation {rotation}");
        let before = allocations(&out);
        for _ in 0..3 {
            sim.step(10).unwrap();
            sim.snapshot_into(&mut out);
            assert_eq!(
                allocations(&out),
                before,
                "rotation {rotation}: a vector was reallocated"
            );
            assert_eq!(out, sim.snapshot(), "rotation {rotation}");
        }
        assert_eq!(
            created(&sim),
            1,
            "rotation {rotation}: a read-back buffer per call"
        );
        assert_eq!(out.step, 30);
        let spins = if rotation { scene.spheres.len() } else { 0 };
        assert_eq!(out.angular_velocity.len(), spins);
        // The spheres moved: the snapshot is the state now, not the first one read.
        assert_ne!(
            out.position,
            scene.spheres.iter().map(|s| s.position).collect::<Vec<_>>()
        );
    }
}

/// The GPU backend's stepping and `diagnostics` as its `snapshot_into`: the status each
/// submission reads and the diagnostics' sums come back through read-back buffers the backend
/// keeps, so that a run's repeated calls create no buffer (with mutual gravity and rotation,
/// whose diagnostics read more).
#[test]
fn gpu_steps_and_diagnostics_reuse_their_read_back_buffers() {
    if !common::gpu_available() {
        return;
    }
    let mut rotating = built();
    rotating.sim.rotation = true;
    let orbits = spheresim::scene::builtin::build("orbits", Some(64)).unwrap();
    assert!(orbits.sim.g_const > 0.0);
    for (name, scene) in [
        ("built", built()),
        ("rotation", rotating),
        ("orbits", orbits),
    ] {
        let mut sim = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
        let created = |sim: &Simulation| sim.gpu_backend().unwrap().read_back_buffers_created();
        sim.step(1).unwrap();
        let mut last = sim.diagnostics();
        let kept = created(&sim);
        for _ in 0..3 {
            // More steps than one submission holds (`gpu::STEPS_PER_SUBMIT`).
            sim.step(40).unwrap();
            let d = sim.diagnostics();
            assert_eq!(d.step, last.step + 40, "{name}");
            last = d;
        }
        assert_eq!(
            created(&sim),
            kept,
            "{name}: stepping or diagnostics created a read-back buffer per call"
        );
    }
}

/// Messages routed through `spheresim::naming` since the CLI's flags left the library: the
/// built-in `pi-blocks`' digits, the event backend's checkpoints and a render option name the
/// library's fields in a process that never called `naming::use_cli_flags`.
#[test]
fn digits_checkpoint_and_render_errors_name_the_library_fields() {
    let e = spheresim::scene::builtin::pi_blocks(0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`digits` of `builtin::pi_blocks` must be between 1 and") && !e.contains("--"),
        "{e}"
    );
    let e = spheresim::scene::builtin::build("pi-blocks", Some(3))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("its size is set by `digits` of `builtin::pi_blocks`") && !e.contains("--"),
        "{e}"
    );
    let scene = spheresim::scene::builtin::build("pi-blocks", None).unwrap();
    let sim = Simulation::new(&scene, Backend::Event, Precision::F64).unwrap();
    let e = sim.save_state().unwrap_err().to_string();
    assert!(
        e.contains("use `Backend::Cpu` for a run with `Simulation::save_state`")
            && !e.contains("--"),
        "{e}"
    );
    let e = spheresim::render::frames::frame_plan(100, Some(0), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`RenderOptions::frames` must be at least 1") && !e.contains("--"),
        "{e}"
    );
}

#[test]
fn library_errors_name_the_library_settings_not_the_cli_flags() {
    let scene = built();
    let e = Simulation::new(&scene, Backend::Gpu, Precision::F64)
        .err()
        .expect("the GPU refuses f64")
        .to_string();
    assert!(
        e.contains("`Precision::F32` or `Backend::Cpu`") && !e.contains("--"),
        "{e}"
    );
    let mut gravity = scene.clone();
    gravity.sim.g_const = 1e-3;
    gravity.sim.contact = ContactModel::Impulse;
    gravity.sim.rotation = false;
    gravity.containers.clear();
    let e = Simulation::new(&gravity, Backend::Event, Precision::F64)
        .err()
        .expect("the event solver refuses mutual gravity")
        .to_string();
    assert!(
        e.contains("use `Backend::Cpu` or `Backend::Gpu`") && !e.contains("--"),
        "{e}"
    );
    let mut coarse = scene;
    coarse.sim.dt = 1.0;
    let w = coarse.time_step_warning().expect("dt = 1 s is too long");
    assert!(
        w.contains("use `Scene.sim.dt` = ") && !w.contains("--"),
        "{w}"
    );
}

/// `steps` is a run's length: a simulation stepped by hand may have 0 (tests/dynamics.rs does).
#[test]
fn a_plain_scene_may_leave_steps_at_zero() {
    let mut scene = built();
    scene.sim.steps = 0;
    assert!(scene.check(&CheckOptions::default()).is_err());
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
    sim.step(3).unwrap();
}
