//! Rotation (`rotation = true`): friction torques spin the spheres, angular momentum (orbital
//! plus spin) is kept in frictional collisions, the energy ledger closes with the rotational
//! energy, fixed spheres do not turn, the GPU (lavapipe) rotates as the CPU does, and the scene
//! checks and the event solver say what is not possible. The closed forms (a sliding ball
//! starts to roll, the incline) are the validate cases `rolling-ball` and `incline`
//! (tests/validate.rs runs every case on both backends).

mod common;

use common::contract::{Contract, Twins, gpu_contract};

use glam::DVec3;
use spheresim::scene::{ContactModel, RollingModel, Surface};
use spheresim::validate::{fixed, glancing, plane, scene, soft, sphere};
use spheresim::{Backend, Precision, Scene, Simulation};

#[test]
fn frictional_collisions_keep_orbital_plus_spin_angular_momentum() {
    for model in [ContactModel::Hertz, ContactModel::SpringDashpot] {
        let s = glancing(model, 3);
        let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F64).unwrap();
        let d0 = sim.diagnostics();
        sim.step(s.sim.steps).unwrap();
        let d1 = sim.diagnostics();
        assert!(d1.collisions >= 3, "{model}: {} collisions", d1.collisions);
        // Friction changed the spins: the test would pass trivially otherwise.
        let spin_change = (d1.kinetic_rotational - d0.kinetic_rotational).abs();
        assert!(
            spin_change > 1e-3 * d0.kinetic,
            "{model}: rotational energy {} -> {}",
            d0.kinetic_rotational,
            d1.kinetic_rotational
        );
        let scale = d0.angular_momentum.length();
        let change = (d1.angular_momentum - d0.angular_momentum).length() / scale;
        // f64 rounding over 20 000 steps: measured 2.3e-12 (Hertz); arms of r instead of r − δ/2
        // break it at 1e-2.
        assert!(
            change < 1e-10,
            "{model}: angular momentum changed by {change:e}"
        );
        let p = d1.momentum_change_relative(&d0);
        assert!(p < 1e-12, "{model}: momentum changed by {p:e}");
        // The ledger: translational + rotational + elastic + dissipated.
        let e = d1.energy_balance_change_relative(&d0);
        assert!(e.abs() < 2e-3, "{model}: energy balance changed by {e:e}");
        assert!(d1.dissipated > 0.0);
    }
}

#[test]
fn the_spin_counts_in_the_angular_momentum_and_the_energy() {
    let mut s = glancing(ContactModel::Hertz, 1);
    s.spheres.truncate(1);
    let (m, r) = (s.spheres[0].mass, s.spheres[0].radius);
    let w = s.spheres[0].angular_velocity;
    let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F64).unwrap();
    let d = sim.diagnostics();
    let inertia = 0.4 * m * r * r;
    assert!((d.kinetic_rotational - 0.5 * inertia * w.length_squared()).abs() < 1e-15);
    let orbital = m * s.spheres[0].position.cross(s.spheres[0].velocity);
    assert!((d.angular_momentum - (orbital + inertia * w)).length() < 1e-15);
    // A free sphere keeps its spin, and its orientation turns by ω t.
    sim.step(1000).unwrap();
    let snap = sim.snapshot();
    assert_eq!(snap.angular_velocity[0], w);
    let t = 1000.0 * s.sim.dt;
    let want = glam::DQuat::from_scaled_axis(w * t);
    assert!(snap.orientation[0].angle_between(want) < 1e-6);
}

#[test]
fn a_fixed_sphere_does_not_turn_and_a_rolling_ball_spins_in_f32_too() {
    // A ball sliding over a fixed sphere's top under gravity, with friction: the fixed sphere
    // feels the torque but does not turn; the ball spins up.
    let surface = Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.3,
        friction: 0.5,
        ..Surface::default()
    };
    let ball = sphere(
        DVec3::new(-0.002, 0.0199, 0.0),
        DVec3::X * 0.2,
        0.01,
        0.01,
        0.5,
    );
    let s = soft(
        scene(
            "fixed",
            vec![fixed(DVec3::ZERO, 0.01), ball],
            vec![plane(DVec3::new(0.0, -0.01, 0.0), DVec3::Y, 0.5)],
            1e-5,
            2_000,
            |p| {
                p.rotation = true;
                p.gravity = DVec3::new(0.0, -9.81, 0.0);
            },
        ),
        ContactModel::Hertz,
        surface,
    );
    for precision in [Precision::F32, Precision::F64] {
        let mut sim = Simulation::new(&s, Backend::Cpu, precision).unwrap();
        sim.step(s.sim.steps).unwrap();
        let snap = sim.snapshot();
        assert_eq!(snap.angular_velocity[0], DVec3::ZERO, "{precision:?}");
        assert_eq!(snap.orientation[0], glam::DQuat::IDENTITY, "{precision:?}");
        assert!(
            snap.angular_velocity[1].z.abs() > 1.0,
            "{precision:?}: {:?}",
            snap.angular_velocity[1]
        );
    }
}

#[test]
fn without_rotation_angular_velocities_are_ignored_with_a_warning() {
    let mut s = glancing(ContactModel::Hertz, 1);
    assert_eq!(s.rotation_hint(), None);
    s.spheres[0].fixed = true;
    let err = s.check(&Default::default()).unwrap_err().to_string();
    assert!(err.contains("must be zero for a fixed sphere"), "{err}");
    s.spheres[0].fixed = false;
    s.sim.rotation = false;
    s.check(&Default::default()).unwrap();
    let hint = s.rotation_hint().expect("no warning");
    assert!(
        hint.contains("2 spheres have an angular velocity, which is ignored"),
        "{hint}"
    );
    let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F64).unwrap();
    sim.step(s.sim.steps).unwrap();
    let snap = sim.snapshot();
    assert!(snap.angular_velocity.is_empty());
    assert_eq!(sim.diagnostics().kinetic_rotational, 0.0);
    // Rotation with impulses is allowed, with a warning.
    s.sim.rotation = true;
    s.sim.contact = ContactModel::Impulse;
    assert!(s.rotation_hint().unwrap().contains("impulse"));
}

#[test]
fn the_event_solver_refuses_rotation_by_name() {
    let s = glancing(ContactModel::Hertz, 1);
    let err = Simulation::new(&s, Backend::Event, Precision::F64)
        .err()
        .expect("the event solver accepted rotation")
        .to_string();
    assert!(err.contains("rotation"), "{err}");
}

/// A ball sliding on a floor (rotation on) for 3000 steps: bit for bit.
#[test]
fn a_rolling_ball_on_the_gpu_is_the_cpus_bit_for_bit() {
    let Some(contract) = gpu_contract("a_rolling_ball_on_the_gpu_is_the_cpus_bit_for_bit") else {
        return;
    };
    let surface = Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.45,
        friction: 0.4,
        ..Surface::default()
    };
    let mut ball = sphere(DVec3::new(0.0, 0.00999, 0.0), DVec3::X, 0.01, 0.01, 0.5);
    ball.angular_velocity = DVec3::new(3.0, 0.0, 20.0);
    let s = soft(
        scene(
            "rolling",
            vec![ball],
            vec![plane(DVec3::ZERO, DVec3::Y, 0.5)],
            1e-4,
            3_000,
            |p| {
                p.rotation = true;
                p.gravity = DVec3::new(0.0, -9.81, 0.0);
            },
        ),
        ContactModel::Hertz,
        surface,
    );
    let mut t = Twins::new(&s, contract);
    t.step(s.sim.steps);
    let c = t.cpu.snapshot();
    assert!(
        c.angular_velocity[0].z.abs() > 10.0,
        "{:?}",
        c.angular_velocity[0]
    );
    t.assert_states("a rolling ball");
}

/// Frictional collisions of spinning pairs on the GPU against the CPU in f32, bit for bit, and
/// the GPU's angular momentum; then the wall-stand with rotation (friction against a floor and
/// between 300 spheres), 100 steps, bit for bit. The spin's share of the slip is written as a
/// chain from the left on both backends (`physics::rotation::add_spin_slip`): written as
/// `v + n × s`, lavapipe re-associated it and the two differed by an ulp from the first spinning
/// contact on.
#[test]
fn spinning_pairs_on_the_gpu_agree_with_the_cpu_bit_for_bit() {
    let Some(contract) = gpu_contract("spinning_pairs_on_the_gpu_agree_with_the_cpu_bit_for_bit")
    else {
        return;
    };
    let s = glancing(ContactModel::Hertz, 3);
    let mut t = Twins::new(&s, contract);
    let d0 = t.gpu.diagnostics();
    t.step(s.sim.steps);
    t.assert_states("spinning pairs");
    let d1 = t.gpu.diagnostics();
    assert!(d1.collisions >= 3);
    assert!(d1.kinetic_rotational != d0.kinetic_rotational);
    // Relative to the size of the terms, Σ (|m x × v| + |I ω|): the total is smaller.
    let terms: f64 = s
        .spheres
        .iter()
        .map(|p| {
            let l = p.mass * p.position.cross(p.velocity).length();
            l + 0.4 * p.mass * p.radius * p.radius * p.angular_velocity.length()
        })
        .sum();
    let change = (d1.angular_momentum - d0.angular_momentum).length() / terms;
    // f32 rounding over 20 000 steps: measured 1.2e-4 (f64 keeps it to 1e-12, above).
    assert!(change < 1e-3, "angular momentum changed by {change:e}");

    let mut s = spheresim::run::SceneOptions::new("wall-stand")
        .particles(300)
        .rotation(true)
        .load()
        .unwrap();
    s.sim.steps = 100;
    let mut t = Twins::new(&s, contract);
    t.step(s.sim.steps);
    assert!(
        t.cpu
            .snapshot()
            .angular_velocity
            .iter()
            .any(|w| w.length() > 0.0)
    );
    t.assert_states("wall-stand with rotation");
}

/// [`glancing`] with rolling friction μ_r on every sphere (the constant directional torque).
fn glancing_rolling(model: ContactModel, n: usize, mu_r: f64) -> Scene {
    let mut s = glancing(model, n);
    s.sim.surface.rolling_friction = mu_r;
    for p in &mut s.spheres {
        p.surface.rolling_friction = mu_r;
    }
    s
}

#[test]
fn rolling_resistance_keeps_angular_momentum_and_the_energy_ledger() {
    for (model, rolling) in [
        (ContactModel::Hertz, None),
        (ContactModel::SpringDashpot, None),
        (ContactModel::Hertz, Some(RollingModel::Epsd)),
        (ContactModel::SpringDashpot, Some(RollingModel::Epsd)),
    ] {
        let run = |mu_r: f64| {
            let mut s = glancing_rolling(model, 3, mu_r);
            s.sim.rolling_model = rolling.filter(|_| mu_r > 0.0);
            assert_eq!(
                s.rolling_model(),
                if mu_r > 0.0 {
                    rolling.unwrap_or(RollingModel::Cdt)
                } else {
                    RollingModel::None
                }
            );
            let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F64).unwrap();
            let d0 = sim.diagnostics();
            sim.step(s.sim.steps).unwrap();
            (d0, sim.diagnostics())
        };
        let (_, free) = run(0.0);
        let (d0, d1) = run(0.3);
        // The rolling torque acted: it took out more energy and left other spins.
        assert!(
            d1.dissipated > free.dissipated * (1.0 + 1e-3),
            "{model}: dissipated {} vs {} without rolling resistance",
            d1.dissipated,
            free.dissipated
        );
        assert!(d1.kinetic_rotational != free.kinetic_rotational);
        // A pair's rolling torques are equal and opposite: no lever, so the spin total keeps.
        let change =
            (d1.angular_momentum - d0.angular_momentum).length() / d0.angular_momentum.length();
        assert!(
            change < 1e-10,
            "{model}: angular momentum changed by {change:e}"
        );
        // Its power M |ω_roll| is booked as dissipated: the ledger closes as without it.
        let e = d1.energy_balance_change_relative(&d0);
        assert!(e.abs() < 2e-3, "{model}: energy balance changed by {e:e}");
    }
}

/// Rolling resistance on lavapipe against the CPU in f32, bit for bit: spinning pairs, a ball
/// rolling to rest on a floor, and the wall-stand with rotation and `rolling_friction` 0.05.
#[test]
fn rolling_resistance_on_the_gpu_is_the_cpus_bit_for_bit() {
    let Some(contract) = gpu_contract("rolling_resistance_on_the_gpu_is_the_cpus_bit_for_bit")
    else {
        return;
    };
    let compare = |s: &Scene| {
        let mut t = Twins::new(s, contract);
        t.step(s.sim.steps);
        t.assert_states(&s.name);
        if t.contract == Contract::Hardware {
            t.assert_statistics(&s.name);
            return t.cpu.snapshot();
        }
        let (cpu, gpu) = (&mut t.cpu, &mut t.gpu);
        // The dissipated energy's sums run in another order on each backend (f32 rounding).
        let (dc, dg) = (cpu.diagnostics(), gpu.diagnostics());
        let gap = (dc.dissipated - dg.dissipated).abs() / dc.dissipated.abs().max(1e-30);
        assert!(
            gap < 1e-5,
            "{}: dissipated {} vs {}",
            s.name,
            dc.dissipated,
            dg.dissipated
        );
        cpu.snapshot()
    };
    let free = {
        let s = glancing(ContactModel::Hertz, 3);
        let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
        sim.step(s.sim.steps).unwrap();
        sim.snapshot()
    };
    for model in [RollingModel::Cdt, RollingModel::Epsd] {
        let mut pairs = glancing_rolling(ContactModel::Hertz, 3, 0.3);
        pairs.sim.rolling_model = Some(model);
        let c = compare(&pairs);
        assert_ne!(c.angular_velocity, free.angular_velocity, "{model:?}");
    }

    let mut surface = Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.45,
        friction: 0.4,
        ..Surface::default()
    };
    surface.rolling_friction = 0.2;
    let mut ball = sphere(
        DVec3::new(0.0, 0.00999, 0.0),
        DVec3::X * 0.05,
        0.01,
        0.01,
        0.5,
    );
    ball.angular_velocity = DVec3::new(0.0, 0.0, -5.0);
    let s = soft(
        scene(
            "rolling to rest",
            vec![ball],
            vec![plane(DVec3::ZERO, DVec3::Y, 0.5)],
            1e-4,
            600,
            |p| {
                p.rotation = true;
                p.gravity = DVec3::new(0.0, -9.81, 0.0);
            },
        ),
        ContactModel::Hertz,
        surface,
    );
    // (5/7) μ_r g = 1.4 m/s²: at rest after 36 ms, then 24 ms at rest.
    let c = compare(&s);
    assert!(c.velocity[0].x.abs() < 1e-4, "{:?}", c.velocity[0]);
    let mut s = s;
    s.sim.rolling_model = Some(RollingModel::Epsd);
    let c = compare(&s);
    // The rolling spring holds the ball and rocks it a little (measured 2.4 mm/s of 50 at the
    // end); the comparison above is the point.
    assert!(c.velocity[0].x.abs() < 5e-3, "epsd: {:?}", c.velocity[0]);

    let mut s = spheresim::run::SceneOptions::new("wall-stand")
        .particles(300)
        .rotation(true)
        .rolling_friction(0.05)
        .load()
        .unwrap();
    s.sim.steps = 100;
    assert_eq!(s.rolling_model(), RollingModel::Cdt);
    let c = compare(&s);
    assert!(c.angular_velocity.iter().any(|w| w.length() > 0.0));
    s.sim.rolling_model = Some(RollingModel::Epsd);
    compare(&s);
}

#[test]
fn rolling_friction_is_read_checked_and_needs_rotation() {
    let text = |extra: &str| {
        format!(
            "[simulation]\ncontact = \"hertz\"\nrolling_friction = 0.05\n{extra}\n\
             [[material]]\nname = \"grit\"\nrestitution = 0.5\ndensity = 2000.0\n\
             youngs_modulus = 1e7\npoisson_ratio = 0.3\nrolling_friction = 0.2\n\
             [[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.01\nmaterial = \"grit\"\n\
             [[particle]]\nposition = [0.1, 0.0, 0.0]\nradius = 0.01\nmass = 0.01\n\
             [[plane]]\npoint = [0.0, -0.01, 0.0]\nnormal = [0.0, 1.0, 0.0]\n"
        )
    };
    let s = Scene::from_toml_str(&text("rotation = true"), "t").unwrap();
    assert_eq!(s.spheres[0].surface.rolling_friction, 0.2);
    assert_eq!(s.spheres[1].surface.rolling_friction, 0.05);
    assert_eq!(s.planes[0].surface.rolling_friction, 0.05);
    assert_eq!(s.rolling_model(), RollingModel::Cdt);
    assert_eq!(s.rotation_hint(), None);
    let off = Scene::from_toml_str(&text("rotation = true\nrolling_model = \"none\""), "t");
    assert_eq!(off.unwrap().rolling_model(), RollingModel::None);
    // Without rotation μ_r is ignored, with a warning.
    let s = Scene::from_toml_str(&text(""), "t").unwrap();
    assert_eq!(s.rolling_model(), RollingModel::None);
    assert!(
        s.rotation_hint()
            .unwrap()
            .contains("rolling_friction is ignored")
    );
    let err = Scene::from_toml_str(&text("rotation = true").replace("0.2", "-0.2"), "t")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("grit") && err.contains("rolling_friction must be non-negative"),
        "{err}"
    );
    let err = Scene::from_toml_str(&text("rolling_model = \"spring\""), "t")
        .unwrap_err()
        .to_string();
    assert!(err.contains("line 4") && err.contains("`cdt`"), "{err}");
    // The impulse law has no friction: the override says so (named as the library's field;
    // the CLI names its `--rolling-friction`).
    let err = spheresim::run::SceneOptions::new("box-gas")
        .particles(10)
        .rolling_friction(0.1)
        .load()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`SceneOptions::rolling_friction` = 0.1"),
        "{err}"
    );
}

/// A ball at rest dropped onto a conveyor belt: a floor whose surface moves at `belt` (m/s,
/// along x), Hertz with μ = 0.4, rotation on or off, dt = 0.1 ms.
fn on_a_belt(belt: f64, rotation: bool, steps: u64) -> Scene {
    let surface = Surface {
        youngs_modulus: 1e7,
        poisson_ratio: 0.3,
        friction: 0.4,
        ..Surface::default()
    };
    let mut floor = plane(DVec3::ZERO, DVec3::Y, 0.5);
    floor.velocity = DVec3::X * belt;
    soft(
        scene(
            "belt",
            vec![sphere(
                DVec3::new(0.0, 0.00999, 0.0),
                DVec3::ZERO,
                0.01,
                0.01,
                0.5,
            )],
            vec![floor],
            1e-4,
            steps,
            |p| {
                p.rotation = rotation;
                p.gravity = DVec3::new(0.0, -9.81, 0.0);
            },
        ),
        ContactModel::Hertz,
        surface,
    )
}

/// A moving plane drags a ball by friction until it rolls: angular momentum about the contact
/// point is kept (friction and the normal force act there, gravity's lever is parallel to it),
/// so a solid sphere starting at rest ends rolling at 2/7 of the belt's speed with
/// `ω r = 5/7 V`; without rotation it slides until it moves with the belt. The belt's work,
/// `μ m g V` over the slip (about three times the ball's final energy), is booked in the
/// ledger, which stays closed.
#[test]
fn a_belt_brings_a_ball_to_rolling_at_two_sevenths_of_its_speed() {
    let v_belt = 1.0;
    for precision in [Precision::F64, Precision::F32] {
        // Slip ends after V / (3.5 μ g) = 73 ms with rotation, V / (μ g) = 255 ms without.
        for (rotation, steps, v_want) in [(true, 2000, 2.0 / 7.0), (false, 4000, 1.0)] {
            let s = on_a_belt(v_belt, rotation, steps);
            let mut sim = Simulation::new(&s, Backend::Cpu, precision).unwrap();
            let d0 = sim.diagnostics();
            sim.step(steps).unwrap();
            let snap = sim.snapshot();
            let (v, label) = (
                snap.velocity[0],
                format!("{precision:?}, rotation {rotation}"),
            );
            eprintln!("{label}: v = {v:?}");
            assert!(
                (v.x - v_want).abs() < 1e-2 * v_want,
                "{label}: v_x = {} m/s, want {v_want}",
                v.x
            );
            if rotation {
                let w = snap.angular_velocity[0];
                let w_want = (v_belt - v_want) / 0.01;
                assert!(
                    (w.z - w_want).abs() < 1e-2 * w_want,
                    "{label}: ω_z = {} rad/s, want {w_want}",
                    w.z
                );
            }
            let d = sim.diagnostics();
            let open = d.energy_balance_change_relative(&d0);
            eprintln!("{label}: ledger open by {open:e} of the energy scale");
            assert!(open.abs() < 1e-2, "{label}: ledger open by {open}");
        }
    }
}

/// The belt on the GPU: the relative velocity and the belt's work as on the CPU.
#[test]
fn a_belt_on_the_gpu_is_the_cpus_bit_for_bit() {
    let Some(contract) = gpu_contract("a_belt_on_the_gpu_is_the_cpus_bit_for_bit") else {
        return;
    };
    let s = on_a_belt(1.0, true, 1500);
    let mut t = Twins::new(&s, contract);
    t.step(s.sim.steps);
    let c = t.cpu.snapshot();
    assert!(c.velocity[0].x > 0.1, "{:?}", c.velocity[0]);
    t.assert_states("a ball on a belt");
    // The ledgers are summed apart (the GPU's in f32 on the device), so they agree to
    // rounding, not bits; the belt's work is −3e-3 J of it, so a backend that left it out
    // would miss by twice the total.
    let (g, c) = (
        t.gpu.diagnostics().dissipated,
        t.cpu.diagnostics().dissipated,
    );
    eprintln!("dissipated: GPU {g:e} J, CPU {c:e} J");
    assert!(c < 0.0, "the belt's work is missing: dissipated {c} J");
    assert!((g - c).abs() < 1e-4 * c.abs(), "GPU {g} J, CPU {c} J");
}
