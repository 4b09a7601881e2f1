//! Periodic boundaries (docs/open-systems.md): contacts across a face are the contacts inside,
//! images count the crossings, a periodic gas keeps its momentum, and the scenes periodic
//! boundaries cannot run are refused with the reason.

mod common;
use common::*;
use glam::DVec3;
use spheresim::scene::{ContactModel, Periodic, Scene, Sphere};
use spheresim::{Backend, Precision, Simulation, Snapshot};

const ALL: [bool; 3] = [true, true, true];

/// Two spheres of a fully periodic unit box meeting head-on (slightly oblique) at `x`, `x + 0.14`
/// (m), wrapped into the box.
fn pair(x: f64, contact: ContactModel) -> Scene {
    let wrap = |x: f64| x.rem_euclid(1.0);
    let mut b = Scene::builder()
        .dt(5e-4)
        .steps(3000)
        .contact(contact)
        .stiffness(1e4)
        .periodic(ALL, DVec3::ZERO, DVec3::ONE)
        .sphere(
            Sphere::new(DVec3::new(wrap(x), 0.5, 0.5), 0.05)
                .velocity(DVec3::new(1.0, 4.1, 0.0))
                .mass(0.3)
                .restitution(0.9),
        )
        .sphere(
            Sphere::new(DVec3::new(wrap(x + 0.14), 0.52, 0.49), 0.04)
                .velocity(DVec3::new(-1.0, 4.0, 0.05))
                .mass(0.2)
                .restitution(0.9),
        );
    if contact != ContactModel::Impulse {
        b = b.skin(0.01);
    }
    b.build().unwrap()
}

/// Unwrapped centres of a snapshot of the unit box: `x + image`.
fn unwrapped(s: &Snapshot) -> Vec<DVec3> {
    assert_eq!(s.image.len(), s.len(), "a periodic run reports its images");
    s.position
        .iter()
        .zip(&s.image)
        .map(|(&x, i)| x + DVec3::new(i[0] as f64, i[1] as f64, i[2] as f64))
        .collect()
}

#[test]
fn a_collision_across_a_face_is_the_collision_inside_the_box() {
    for contact in [ContactModel::Impulse, ContactModel::SpringDashpot] {
        // Across the x face (0.93 and 0.07), and the same pair moved half a box inside.
        let (s_across, s_inside) = (pair(0.93, contact), pair(0.43, contact));
        let mut across = run(&s_across, Precision::F64);
        let mut inside = run(&s_inside, Precision::F64);
        let (a, b) = (across.snapshot(), inside.snapshot());
        let collisions = across.diagnostics().collisions;
        assert!(collisions >= 1, "{contact:?}: the pair never met");
        assert_eq!(collisions, inside.diagnostics().collisions, "{contact:?}");
        // They met across the face: the collision changed the first sphere's velocity.
        let dv = (a.velocity[0] - s_across.spheres[0].velocity).length();
        assert!(dv > 0.5, "{contact:?}: {}", a.velocity[0]);
        for i in 0..2 {
            let dv = (a.velocity[i] - b.velocity[i]).length();
            assert!(
                dv < 1e-9,
                "{contact:?}: sphere {i} velocity differs by {dv} m/s"
            );
            // The unwrapped paths stay as far apart as they started.
            let start = s_across.spheres[i].position - s_inside.spheres[i].position;
            let dx = unwrapped(&a)[i] - unwrapped(&b)[i] - start;
            assert!(
                dx.length() < 1e-9,
                "{contact:?}: sphere {i} path differs by {dx}"
            );
        }
        // Both crossed faces in 1.5 s at about 1 m/s.
        assert!(a.image.iter().any(|i| i[0] != 0), "{:?}", a.image);
    }
}

/// One free sphere of 5 cm leaving (0.1, 0.2, 0) m at velocity `v` in a unit box periodic in
/// x and y, 1000 steps of 1 ms.
fn free_sphere(v: DVec3) -> Scene {
    Scene::builder()
        .dt(1e-3)
        .steps(1000)
        .periodic([true, true, false], DVec3::splat(-0.5), DVec3::splat(0.5))
        .sphere(
            Sphere::new(DVec3::new(0.1, 0.2, 0.0), 0.05)
                .velocity(v)
                .mass(1.0),
        )
        .build()
        .unwrap()
}

#[test]
fn a_free_sphere_wraps_and_its_image_counts_the_crossings() {
    let v = DVec3::new(3.25, -2.5, 0.0);
    let scene = free_sphere(v);
    let mut sim = run(&scene, Precision::F64);
    let s = sim.snapshot();
    let x = s.position[0];
    assert!(
        (-0.5..0.5).contains(&x.x) && (-0.5..0.5).contains(&x.y),
        "{x}"
    );
    // 1 s at 3.25 m/s from 0.1: 3.35, past the faces at 0.5, 1.5 and 2.5; at −2.5 m/s from
    // 0.2: −2.3, past −0.5 and −1.5.
    assert_eq!(s.image[0], [3, -2, 0]);
    let unwrapped = x + DVec3::new(3.0, -2.0, 0.0);
    let exact = DVec3::new(0.1, 0.2, 0.0) + v;
    assert!(
        (unwrapped - exact).length() < 1e-9,
        "{unwrapped} vs {exact}"
    );
}

/// `n_side³` spheres on a jittered lattice of a fully periodic unit box, random velocities about
/// a common drift.
fn gas(n_side: usize, contact: ContactModel) -> Scene {
    let l = 1.0;
    let a = l / n_side as f64;
    let mut seed = 12345u64;
    let mut rand = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let mut b = Scene::builder()
        .dt(5e-5)
        .steps(1000)
        .contact(contact)
        .stiffness(2e3)
        .rotation(contact != ContactModel::Impulse)
        .periodic(ALL, DVec3::ZERO, DVec3::splat(l));
    for k in 0..n_side {
        for j in 0..n_side {
            for i in 0..n_side {
                let p = DVec3::new(i as f64, j as f64, k as f64) * a
                    + DVec3::splat(0.5 * a)
                    + DVec3::new(rand(), rand(), rand()) * 0.2 * a;
                // A common drift carries spheres through the faces early.
                let v = DVec3::new(rand(), rand(), rand()) * 4.0 + DVec3::new(2.5, 1.5, 0.5);
                b = b.sphere(
                    Sphere::new(p, 0.4 * a)
                        .velocity(v)
                        .mass(1e-3)
                        .restitution(0.8),
                );
            }
        }
    }
    let mut scene = b.build().unwrap();
    scene.sim.surface.friction = 0.5;
    scene
}

#[test]
fn a_periodic_gas_keeps_its_momentum_and_stays_in_the_box() {
    for contact in [ContactModel::Impulse, ContactModel::SpringDashpot] {
        let scene = gas(8, contact);
        let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
        let p0 = sim.diagnostics().momentum;
        sim.step(scene.sim.steps).unwrap();
        let d = sim.diagnostics();
        let drift = (d.momentum - p0).length() / d.momentum_magnitude_sum;
        assert!(drift < 1e-12, "{contact:?}: momentum drifted by {drift:e}");
        assert!(
            d.collisions > 100,
            "{contact:?}: {} collisions",
            d.collisions
        );
        let s = sim.snapshot();
        assert!(
            s.position
                .iter()
                .all(|x| x.cmpge(DVec3::ZERO).all() && x.cmple(DVec3::ONE).all()),
            "{contact:?}: a sphere left the box"
        );
        assert!(
            s.image.iter().filter(|i| **i != [0; 3]).count() > 10,
            "{contact:?}: too few spheres crossed a face"
        );
    }
}

#[test]
fn scenes_periodic_boundaries_cannot_run_are_refused_with_the_reason() {
    let base = || pair(0.93, ContactModel::Impulse);
    let err = |s: &Scene| s.check(&Default::default()).unwrap_err().to_string();
    let mut s = base();
    s.sim.g_const = 1.0;
    assert!(err(&s).contains("mutual gravity"), "{}", err(&s));
    let mut s = base();
    s.planes
        .push(plane(DVec3::ZERO, DVec3::new(1.0, 0.0, 0.0), 1.0));
    assert!(
        err(&s).contains("parallel to the periodic axes"),
        "{}",
        err(&s)
    );
    let mut s = base();
    s.spheres[1].position.x = 1.0;
    assert!(err(&s).contains("[min, max) along x"), "{}", err(&s));
    let mut s = base();
    s.sim.periodic = Periodic::new(ALL, DVec3::ZERO, DVec3::new(1.0, 0.2, 1.0));
    assert!(err(&s).contains("longer than twice"), "{}", err(&s));
    let mut s = base();
    s.sim.periodic.max.z = f64::NAN;
    assert!(err(&s).contains("finite min < max"), "{}", err(&s));
    let e = Simulation::new(&base(), Backend::Event, Precision::F64)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("no periodic boundaries"), "{e}");
}

#[test]
fn a_scene_file_gives_the_periodic_axes_and_their_box() {
    use spheresim::scene::SceneFile;
    let text = "[simulation]\nperiodic = [true, false, true]\n\n[domain]\nmin = [0, 0, 0]\n\
                max = [1, 2, 3]\n\n[[particle]]\nposition = [0.5, 0.5, 0.5]\nradius = 0.1\nmass = 1.0\n";
    let s = SceneFile::from_toml_str(text, "p").unwrap().scene;
    assert_eq!(s.sim.periodic.axes, [true, false, true]);
    assert_eq!(s.sim.periodic.max, DVec3::new(1.0, 2.0, 3.0));
    let no_box = "[simulation]\nperiodic = [true, false, false]\n\n[[particle]]\n\
                  position = [0.5, 0.5, 0.5]\nradius = 0.1\nmass = 1.0\n";
    let e = SceneFile::from_toml_str(no_box, "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("add [domain]"), "{e}");
    let no_axes = "[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n\n[[particle]]\n\
                   position = [0.5, 0.5, 0.5]\nradius = 0.1\nmass = 1.0\n";
    let e = SceneFile::from_toml_str(no_axes, "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("only with periodic axes"), "{e}");
}

#[test]
fn the_csv_of_a_periodic_run_has_image_columns() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = run(&pair(0.93, ContactModel::Impulse), Precision::F32);
    let path = dir.path().join("state.csv");
    spheresim::output::write_csv(&path, &sim.snapshot()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("id,x,y,z,vx,vy,vz,radius,mass,wx,wy,wz,ix,iy,iz")
    );
    let s = sim.snapshot();
    for (i, line) in lines.enumerate() {
        let image: Vec<i32> = line
            .split(',')
            .skip(12)
            .map(|f| f.parse().unwrap())
            .collect();
        assert_eq!(image, s.image[i].to_vec(), "{line}");
    }
    // The nine leading columns still read back.
    let back = spheresim::output::read_csv(&path).unwrap();
    assert_eq!(back.len(), 2);
}

/// The GPU backend runs periodic scenes as the CPU does: bit for bit on a software adapter
/// (positions, velocities and images), within f32 rounding on a hardware one.
#[test]
fn the_gpu_runs_periodic_scenes_as_the_cpu_does() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("periodic twins") else {
        return;
    };
    let cases = [
        (
            "pair across a face, impulses",
            pair(0.93, ContactModel::Impulse),
            300,
        ),
        (
            "pair across a face, spring-dashpot",
            pair(0.93, ContactModel::SpringDashpot),
            300,
        ),
        ("periodic gas, impulses", gas(4, ContactModel::Impulse), 800),
        (
            "periodic gas, friction and rotation",
            gas(4, ContactModel::SpringDashpot),
            800,
        ),
    ];
    for (label, scene, steps) in cases {
        let mut t = Twins::new(&scene, contract);
        t.step(steps);
        t.assert_states(label);
        let (g, c) = (t.gpu.snapshot(), t.cpu.snapshot());
        assert!(
            c.image.iter().any(|i| *i != [0; 3]),
            "{label}: no sphere crossed a face"
        );
        if contract == Contract::BitForBit {
            // The GPU sums its energies in f32 work-groups: the counts, not the sums, are equal.
            let (dg, dc) = (t.gpu.diagnostics(), t.cpu.diagnostics());
            assert_eq!(
                (dg.collisions, dg.contacts, dg.neighbour_rebuilds),
                (dc.collisions, dc.contacts, dc.neighbour_rebuilds),
                "{label}"
            );
            assert!(dc.collisions > 0, "{label}: nothing collided");
            assert_eq!(g.image, c.image, "{label}");
        } else {
            t.assert_statistics(label);
        }
    }
}

#[test]
fn spheres_overlapping_through_a_face_are_refused() {
    let mut s = pair(0.93, ContactModel::Impulse);
    // Sphere 1 (r 0.04) 0.02 m from sphere 0 (r 0.05) through the x face: 0.07 m of overlap.
    s.spheres[0].position = DVec3::new(0.99, 0.5, 0.5);
    s.spheres[1].position = DVec3::new(0.01, 0.5, 0.5);
    let e = s.check(&Default::default()).unwrap_err().to_string();
    assert!(
        e.contains("spheres 0 and 1") && e.contains("overlap"),
        "{e}"
    );
    // Through an edge (x and z faces at once) too.
    s.spheres[0].position = DVec3::new(0.99, 0.5, 0.99);
    s.spheres[1].position = DVec3::new(0.01, 0.5, 0.01);
    let e = s.check(&Default::default()).unwrap_err().to_string();
    assert!(e.contains("spheres 0 and 1"), "{e}");
    // Apart through the face: accepted.
    s.spheres[1].position = DVec3::new(0.1, 0.5, 0.1);
    s.check(&Default::default()).unwrap();
}

/// A periodic run restarted from the state CSV it wrote (`ix,iy,iz` columns) goes on counting
/// images from where they were, so its unwrapped paths go on: the restart is the run continued,
/// bit for bit on the CPU (impulses keep no contact history, and the CSV's numbers read back
/// exactly), and on the GPU for the images.
#[test]
fn a_run_restarted_from_its_csv_keeps_its_images() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("state.csv");
    // The pair that meets across the face, and goes on through the faces.
    let scene = pair(0.93, ContactModel::Impulse);
    let mut backends = vec![(Backend::Cpu, Precision::F64)];
    if common::contract::gpu_contract("images through a CSV restart").is_some() {
        backends.push((Backend::Gpu, Precision::F32));
    }
    for (backend, precision) in backends {
        let mut first = Simulation::new(&scene, backend, precision).unwrap();
        first.step(300).unwrap();
        let before = first.snapshot();
        assert!(
            before.image.iter().any(|i| *i != [0; 3]),
            "{backend}: crossed no face"
        );
        spheresim::output::write_csv(&csv, &before).unwrap();
        let toml = format!(
            "[simulation]\ndt = 5e-4\nsteps = 1000\nperiodic = [true, true, true]\n\
             [domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n\
             [[particles_file]]\npath = {:?}\nrestitution = 0.9\n",
            csv.display().to_string()
        );
        let restarted = Scene::from_toml_str(&toml, "restart").unwrap();
        assert_eq!(
            restarted
                .spheres
                .iter()
                .map(|s| s.image)
                .collect::<Vec<_>>(),
            before.image,
            "{backend}: the scene reads the images back"
        );
        // A closed scene reads the same file and ignores the images.
        let closed = toml
            .replace("periodic = [true, true, true]\n", "")
            .replace("[domain]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n", "");
        let closed = Scene::from_toml_str(&closed, "closed").unwrap();
        assert!(closed.spheres.iter().all(|s| s.image == [0; 3]));
        let mut second = Simulation::new(&restarted, backend, precision).unwrap();
        assert_eq!(second.snapshot().image, before.image, "{backend}");
        first.step(200).unwrap();
        second.step(200).unwrap();
        let (a, b) = (first.snapshot(), second.snapshot());
        assert_eq!(a.image, b.image, "{backend}: the images count on alike");
        if backend == Backend::Cpu {
            assert_eq!(a.position, b.position, "{backend}");
        }
    }
    // Images along an axis that is not periodic are refused, naming the sphere.
    let mut s = pair(0.93, ContactModel::Impulse);
    s.sim.periodic = Periodic::new([true, false, true], DVec3::ZERO, DVec3::ONE);
    s.spheres[1].image = [0, 2, 0];
    let e = s.check(&Default::default()).unwrap_err().to_string();
    assert!(
        e.contains("sphere 1") && e.contains("not a periodic axis"),
        "{e}"
    );
}

/// A resume on another precision or backend takes each sphere's periodic images from the
/// checkpoint (before 2026-11-28: from the scene, so the unwrapped track jumped back by the
/// crossings so far).
#[test]
fn a_converting_resume_keeps_the_images() {
    let scene = free_sphere(DVec3::new(3.25, -2.5, 0.0));
    let mut first = run(&scene, Precision::F64);
    let at = first.diagnostics();
    let (mut resumed, _) = Simulation::resume(
        &scene,
        &first.save_state().unwrap(),
        first.offsets(),
        &at,
        Backend::Cpu,
        Precision::F32,
        spheresim::gpu::GpuOptions::default(),
    )
    .unwrap();
    assert_eq!(first.snapshot().image[0], [3, -2, 0]);
    assert_eq!(resumed.snapshot().image, first.snapshot().image);
}
