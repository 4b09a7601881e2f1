//! The force the spheres exert on each wall (`[simulation] wall_forces`): a resting sphere
//! presses on its floor with its weight, the recorded forces are the ones the step applied (the
//! momentum balance of leapfrog, step by step), the GPU records what the CPU records, and the
//! scenes that have no wall force to record are refused.

mod common;
use common::*;
use glam::DVec3;
use spheresim::scene::{BoxContainer, ContactModel, Plane, Scene, Sphere};
use spheresim::{Backend, Precision, Simulation};

const G: f64 = 9.81;

/// One sphere of 0.05 m and 0.4 kg dropped 1 cm onto a floor at y = 0 under gravity, with
/// restitution 0.5 so that it comes to rest.
fn drop(contact: ContactModel) -> Scene {
    Scene::builder()
        .dt(2e-5)
        .steps(50_000)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(contact)
        .stiffness(2e5)
        .wall_forces(true)
        .sphere(
            Sphere::new(DVec3::new(0.1, 0.06, 0.2), 0.05)
                .mass(0.4)
                .restitution(0.5),
        )
        .plane(Plane::new(DVec3::ZERO, DVec3::Y).restitution(0.5))
        .build()
        .unwrap()
}

/// 27 frictional rubber grains of 1 cm falling in a box of 10 cm with rotation: walls on every
/// side, contacts among the grains and with the walls.
fn box_of_grains(contact: ContactModel, steps: u64) -> Scene {
    let mut b = Scene::builder()
        .dt(1e-5)
        .steps(steps)
        .gravity(DVec3::new(0.0, -G, 0.0))
        .contact(contact)
        .stiffness(1e4)
        .rotation(true)
        .wall_forces(true)
        .box_container(BoxContainer::new(DVec3::ZERO, DVec3::splat(0.1)).material("rubber"));
    for i in 0..27 {
        let (x, y, z) = ((i % 3) as f64, ((i / 3) % 3) as f64, (i / 9) as f64);
        b = b.sphere(
            Sphere::new(
                DVec3::new(
                    0.025 + 0.025 * x + 0.002 * y,
                    0.02 + 0.025 * y,
                    0.025 + 0.025 * z,
                ),
                0.01,
            )
            .velocity(DVec3::new(0.3 * (x - 1.0), -0.2, 0.2 * (z - 1.0)))
            .material("rubber"),
        );
    }
    b.build().unwrap()
}

#[test]
fn a_resting_sphere_presses_on_its_floor_with_its_weight() {
    for contact in [ContactModel::SpringDashpot, ContactModel::Hertz] {
        let scene = drop(contact);
        let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
        assert_eq!(
            sim.wall_forces(),
            vec![DVec3::ZERO],
            "{contact:?}: zero before the first step"
        );
        sim.step(scene.sim.steps).unwrap();
        let f = sim.wall_forces();
        assert_eq!(f.len(), 1, "{contact:?}: one wall");
        let weight = 0.4 * G;
        // After 1 s the bounce has died away: the floor carries the weight, straight down.
        assert!(
            rel(f[0].y, -weight, 1.0) < 1e-6,
            "{contact:?}: floor force {} N, weight {weight} N",
            f[0]
        );
        assert!(f[0].x.abs() + f[0].z.abs() < 1e-12, "{contact:?}: {}", f[0]);
    }
}

/// The recorded forces are the ones the step applied: with leapfrog (kick–drift–kick) the
/// momentum changes over step k by `dt/2 (F_{k−1} + F_k)`, where `F = M g − Σ_walls W` (the
/// pair forces cancel in pairs) and `W` is what `wall_forces` reports after each step.
#[test]
fn the_wall_forces_close_the_momentum_balance_of_every_step() {
    for contact in [ContactModel::SpringDashpot, ContactModel::Hertz] {
        let scene = box_of_grains(contact, 1);
        let dt = scene.sim.dt;
        let mass: f64 = scene.spheres.iter().map(|s| s.mass).sum();
        let weight = DVec3::new(0.0, -G, 0.0) * mass;
        let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F64).unwrap();
        let mut touched = 0;
        let mut worst: f64 = 0.0;
        sim.step(1).unwrap();
        let mut before = (sim.diagnostics().momentum, sim.wall_forces());
        for _ in 0..20_000 {
            sim.step(1).unwrap();
            let after = (sim.diagnostics().momentum, sim.wall_forces());
            let total = |w: &[DVec3]| weight - w.iter().copied().sum::<DVec3>();
            let expected = (total(&before.1) + total(&after.1)) * (dt / 2.0);
            let dp = after.0 - before.0;
            worst = worst.max((dp - expected).length() / (weight.length() * dt));
            touched += after.1.iter().filter(|w| **w != DVec3::ZERO).count();
            before = after;
        }
        eprintln!("{contact:?}: {touched} wall contacts recorded, worst {worst:e}");
        assert!(
            touched > 1000,
            "{contact:?}: the grains hardly met the walls"
        );
        assert!(
            worst < 1e-6,
            "{contact:?}: the momentum change differs from the recorded forces' impulse by \
             {worst} of the weight's"
        );
    }
}

#[test]
fn scenes_without_a_wall_force_to_record_are_refused() {
    let impulse = Scene::builder()
        .wall_forces(true)
        .sphere(Sphere::new(DVec3::new(0.0, 1.0, 0.0), 0.1).mass(1.0))
        .plane(Plane::new(DVec3::ZERO, DVec3::Y))
        .build()
        .unwrap_err()
        .to_string();
    let e = impulse;
    assert!(
        e.contains("[simulation]") && e.contains("wall_forces needs a soft contact law"),
        "{e}"
    );
    let no_walls = Scene::builder()
        .contact(ContactModel::Hertz)
        .wall_forces(true)
        .sphere(Sphere::new(DVec3::new(0.0, 1.0, 0.0), 0.1).mass(1.0))
        .build()
        .unwrap_err()
        .to_string();
    let e = no_walls;
    assert!(e.contains("no plane or container"), "{e}");
}

#[test]
fn the_scene_file_key_turns_the_record_on() {
    let text = |on: &str| {
        format!(
            "[simulation]\ncontact = \"hertz\"\ngravity = [0, -9.81, 0]\n{on}\n\
             [[particle]]\nposition = [0, 0.2, 0]\nradius = 0.1\nmass = 1.0\n\
             [[plane]]\npoint = [0, 0, 0]\nnormal = [0, 1, 0]\n"
        )
    };
    let on = Scene::from_toml_str(&text("wall_forces = true"), "test").unwrap();
    assert!(on.sim.wall_forces);
    let off = Scene::from_toml_str(&text(""), "test").unwrap();
    assert!(!off.sim.wall_forces);
    let sim = Simulation::new(&off, Backend::Cpu, Precision::F64).unwrap();
    assert!(sim.wall_forces().is_empty(), "off unless asked for");
    let e = Scene::from_toml_str(&text("wall_forces = 1"), "test")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4"), "{e}");
}

#[test]
fn a_resumed_run_reports_the_wall_forces_it_saved() {
    let scene = box_of_grains(ContactModel::Hertz, 1);
    for p in [Precision::F32, Precision::F64] {
        let mut first = Simulation::new(&scene, Backend::Cpu, p).unwrap();
        first.step(8000).unwrap();
        let state = first.save_state().unwrap();
        let at = first.diagnostics();
        let (mut second, _) = Simulation::resume(
            &scene,
            &state,
            first.offsets(),
            &at,
            Backend::Cpu,
            p,
            Default::default(),
        )
        .unwrap();
        assert_eq!(second.wall_forces(), first.wall_forces(), "{p:?}");
        first.step(500).unwrap();
        second.step(500).unwrap();
        assert_eq!(second.wall_forces(), first.wall_forces(), "{p:?}");
        assert!(first.wall_forces().iter().any(|w| w.y != 0.0));
    }
}

/// The GPU records the walls' forces as the CPU does. Bit for bit on a software adapter: the
/// same forces in the same sorted order, summed on the host in f64 alike. On a hardware one
/// (fused multiply–adds): the statistics within f32 rounding's spread, and the resting
/// sphere's floor carries its weight, as on the CPU.
#[test]
fn the_gpu_records_the_wall_forces_the_cpu_records() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("wall-force twins") else {
        return;
    };
    for contact in [ContactModel::SpringDashpot, ContactModel::Hertz] {
        let label = format!("box of grains, {contact:?}");
        let mut t = Twins::new(&box_of_grains(contact, 1), contract);
        let mut touched = 0;
        for _ in 0..30 {
            t.step(500);
            let (g, c) = (t.gpu.wall_forces(), t.cpu.wall_forces());
            assert_eq!(g.len(), 6, "{label}: a box's six planes");
            touched += c.iter().filter(|w| **w != DVec3::ZERO).count();
            if contract == Contract::BitForBit {
                assert_eq!(g, c, "{label}: GPU (left) against CPU (right)");
            }
        }
        eprintln!("{label}: {touched} walls met in 30 samples");
        assert!(touched > 5, "{label}: the grains hardly met the walls");
        if contract == Contract::BitForBit {
            t.assert_states(&label);
            continue;
        }
        // Grains bouncing in a box part within f32 rounding: compared on statistics.
        t.assert_statistics(&label);
        let scene = drop(contact);
        let mut gpu = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
        gpu.step(scene.sim.steps).unwrap();
        let f = gpu.wall_forces();
        let weight = 0.4 * G;
        assert!(
            rel(f[0].y, -weight, 1.0) < 1e-4,
            "{contact:?}: floor force {} N on the GPU, weight {weight} N",
            f[0]
        );
    }
}

/// `spheresim run --wall-forces true`: the summary line, diagnostics.csv's three columns a wall
/// (the last row the run's last step, as the stats JSON's `wall_forces_final`), and a clear
/// refusal with the impulse law.
#[test]
fn the_cli_writes_the_wall_forces_where_asked() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("drop.toml");
    std::fs::write(
        &scene,
        "[simulation]\ncontact = \"hertz\"\ngravity = [0, -9.81, 0]\ndt = 2e-5\nsteps = 1000\n\
         [[particle]]\nposition = [0.5, 0.0505, 0.5]\nradius = 0.05\nmass = 0.4\n\
         restitution = 0.5\n\
         [[box_container]]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n",
    )
    .unwrap();
    let (out, stats) = (dir.path().join("out"), dir.path().join("s.json"));
    let run = |extra: &[&str]| {
        let mut args = vec![
            scene.to_str().unwrap(),
            "--backend",
            "cpu",
            "--precision",
            "f64",
        ];
        args.extend_from_slice(extra);
        std::process::Command::new(env!("CARGO_BIN_EXE_spheresim"))
            .arg("run")
            .args(&args)
            .output()
            .unwrap()
    };
    let o = run(&[
        "--wall-forces",
        "true",
        "--output",
        out.to_str().unwrap(),
        "--every",
        "100",
        "--stats-json",
        stats.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("forces on the walls in the last step (N): 0: "),
        "{text}"
    );
    let csv = std::fs::read_to_string(out.join("diagnostics.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(header.len(), 17 + 18, "{header:?}");
    assert_eq!(header[17..20], ["wall0_fx", "wall0_fy", "wall0_fz"]);
    assert_eq!(header[34], "wall5_fz");
    let rows: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    let last = rows.last().unwrap();
    assert_eq!(last[0], 1000.0);
    // The floor (y min, the third wall) was pressed down while the sphere bounced on it.
    assert!(rows.iter().any(|r| r[17 + 3 * 2 + 1] < 0.0), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let fin: Vec<f64> = json["wall_forces_final"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    assert_eq!(
        fin,
        last[17..],
        "the JSON's last step is the CSV's last row"
    );
    // Off by default: no wall columns, `null` in the JSON.
    let o = run(&["--stats-json", stats.to_str().unwrap()]);
    assert!(o.status.success());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(json["wall_forces_final"].is_null());
    // The impulse law has no force to record.
    let o = run(&["--wall-forces", "true", "--contact", "impulse"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("wall_forces needs a soft contact law"),
        "{err}"
    );
}

/// The silo and the shear cell with its walls' forces on the GPU: bit for bit on a software
/// adapter (states and wall forces), within f32 rounding's spread of the statistics on a
/// hardware one.
#[test]
fn the_gpu_runs_the_silo_and_the_recorded_shear_cell_as_the_cpu_does() {
    use common::contract::{Contract, Twins, gpu_contract};
    let Some(contract) = gpu_contract("hopper-flow and shear-cell twins") else {
        return;
    };
    let mut sheared = spheresim::scene::builtin::build("shear-cell", Some(300)).unwrap();
    sheared.sim.wall_forces = true;
    let silo = spheresim::scene::builtin::build("hopper-flow", Some(300)).unwrap();
    for (label, scene, steps) in [("shear-cell", sheared, 400), ("hopper-flow", silo, 3000)] {
        let mut t = Twins::new(&scene, contract);
        t.step(steps);
        assert!(t.cpu.diagnostics().contacts > 0, "{label}: nothing touches");
        if contract == Contract::BitForBit {
            t.assert_states(label);
            assert_eq!(t.gpu.wall_forces(), t.cpu.wall_forces(), "{label}");
        } else {
            t.assert_statistics(label);
        }
    }
}

/// Recording the walls' forces changes nothing in a run. The CPU's contact pass skips the walls
/// out of a sphere's reach at the list's last build (`cpu::neighbours::walls_in_reach`), but not
/// while it records the forces, so the two runs take different paths. A skin of 10⁻⁷ m makes
/// the grains leave a wall by more than their reach in one step, and come back to it, so what
/// a contact keeps must be cleared at the build as the contact pass would clear it. The CPU in
/// both precisions, with the two soft laws. Contract: bitwise, the CPU backend against itself
/// (no GPU adapter is involved).
#[test]
fn recording_the_wall_forces_changes_no_bit_of_the_run() {
    for contact in [ContactModel::SpringDashpot, ContactModel::Hertz] {
        for precision in [Precision::F32, Precision::F64] {
            let label = format!("box of grains, {contact:?}, {precision:?}");
            let mut scene = box_of_grains(contact, 6000);
            scene.sim.skin = Some(1e-7);
            let mut runs = [true, false].map(|record| {
                let mut s = scene.clone();
                s.sim.wall_forces = record;
                let mut sim = Simulation::new(&s, Backend::Cpu, precision).unwrap();
                sim.step(s.sim.steps).unwrap();
                sim
            });
            let [with, without] = &mut runs;
            let (a, b) = (with.snapshot(), without.snapshot());
            assert_eq!(a, b, "{label}: recorded (left) against not (right)");
            let d = without.diagnostics();
            eprintln!(
                "{label}: {} contacts at the end, {} list builds",
                d.contacts, d.neighbour_rebuilds
            );
            // The skin makes the list build in most steps, so the reach changes often.
            assert!(d.neighbour_rebuilds > 1000, "{label}: {d:?}");
        }
    }
}
