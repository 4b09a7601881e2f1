//! The exact event-driven solver (`--backend event`) against closed forms, conservation laws,
//! Galperin's π billiard, and its refusals.

mod common;

use common::*;
use glam::DVec3;
use spheresim::scene::{ContactModel, SimParams, builtin};
use spheresim::{Backend, Precision, SimError, Simulation};

fn event(scene: &spheresim::Scene) -> Simulation {
    Simulation::new(scene, Backend::Event, Precision::F64).expect("event backend")
}

/// Neumann §5: normal components from the 1-D law, tangential untouched.
fn closed_form(m_a: f64, m_b: f64, v_a: DVec3, v_b: DVec3, n: DVec3, e: f64) -> (DVec3, DVec3) {
    let (ua, ub) = (v_a.dot(n), v_b.dot(n));
    let ua2 = (m_a * ua + m_b * ub + e * m_b * (ub - ua)) / (m_a + m_b);
    let ub2 = (m_a * ua + m_b * ub + e * m_a * (ua - ub)) / (m_a + m_b);
    (v_a + (ua2 - ua) * n, v_b + (ub2 - ub) * n)
}

#[test]
fn binary_collisions_equal_the_closed_form_to_rounding() {
    for oblique in [false, true] {
        for e in [0.0, 0.5, 1.0] {
            for ratio in [1.0, 4.0, 1000.0] {
                let b_y = if oblique { 0.1 } else { 0.0 };
                let (va, vb) = (DVec3::new(1.0, 0.0, 0.0), DVec3::new(-0.5, 0.0, 0.0));
                let s = scene(
                    vec![
                        sphere(DVec3::new(-0.2, 0.0, 0.0), va, 0.1, 1.0, e),
                        sphere(DVec3::new(0.2, b_y, 0.0), vb, 0.1, ratio, e),
                    ],
                    vec![],
                    params(1e-3, 400),
                );
                let mut sim = event(&s);
                sim.step(400).unwrap();
                let snap = sim.snapshot();
                let n = DVec3::new((0.04f64 - b_y * b_y).sqrt(), b_y, 0.0).normalize();
                let (a2, b2) = closed_form(1.0, ratio, va, vb, n, e);
                let err = (snap.velocity[0] - a2)
                    .length()
                    .max((snap.velocity[1] - b2).length());
                assert!(
                    err < 1e-14,
                    "oblique={oblique} e={e} ratio={ratio}: error {err:e}, got {:?}",
                    snap.velocity
                );
                assert_eq!(sim.diagnostics().collisions, 1);
                // Contact time from docs/physics.md §5: positions are exact ballistic continuations.
                let gap = (snap.position[1] - snap.position[0]).length();
                assert!(gap >= 0.2 - 1e-12, "overlap after the collision: {gap}");
            }
        }
    }
}

#[test]
fn elastic_gas_keeps_energy_and_momentum_to_1e_9() {
    let mut s = builtin::build("box-gas", Some(300)).unwrap();
    s.sim.steps = 2000;
    let mut sim = event(&s);
    let d0 = sim.diagnostics();
    sim.step(s.sim.steps).unwrap();
    let d1 = sim.diagnostics();
    assert!(
        d1.collisions > 1000,
        "too few collisions to mean much: {}",
        d1.collisions
    );
    let de = (d1.kinetic - d0.kinetic).abs() / d0.kinetic;
    assert!(de < 1e-9, "kinetic energy drift {de:e}");
    // No sphere leaves the box or overlaps another.
    let snap = sim.snapshot();
    let half = s.planes[1].point.x;
    for (i, x) in snap.position.iter().enumerate() {
        assert!(
            x.abs().max_element() <= half - 0.01 + 1e-12,
            "sphere {i} at {x:?}"
        );
        for y in &snap.position[i + 1..] {
            assert!((*y - *x).length() >= 0.02 - 1e-12, "overlap");
        }
    }
}

#[test]
fn fixed_sphere_and_plane_are_infinite_masses() {
    let s = fixed_obstacle_scene();
    let mut sim = event(&s);
    sim.step(1000).unwrap();
    let snap = sim.snapshot();
    assert!((snap.velocity[0] - DVec3::new(-1.0, 0.0, 0.0)).length() < 1e-14);
    assert_eq!(snap.position[1], DVec3::ZERO);
    assert!((snap.velocity[2] - DVec3::new(1.0, 1.5, 0.0)).length() < 1e-14);
    assert_eq!(sim.diagnostics().collisions, 2);
}

/// Apex heights of a sphere dropped on a floor: each y + v²/2g between bounces.
#[test]
fn bounce_apex_ratio_is_e_squared_and_the_sphere_comes_to_rest() {
    let g = 9.81;
    let s = scene(
        vec![sphere(
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::ZERO,
            0.1,
            1.0,
            0.7,
        )],
        vec![plane(DVec3::ZERO, DVec3::Y, 1.0)],
        SimParams {
            gravity: DVec3::new(0.0, -g, 0.0),
            ..params(1e-3, 6000)
        },
    );
    let mut sim = event(&s);
    let mut apexes = vec![0.9];
    let mut prev_vy = 0.0;
    for _ in 0..6000 {
        sim.step(1).unwrap();
        let snap = sim.snapshot();
        let (y, vy) = (snap.position[0].y, snap.velocity[0].y);
        assert!(y >= 0.1 - 1e-12, "below the floor: {y}");
        if prev_vy < 0.0 && vy > 0.0 {
            apexes.push(y - 0.1 + vy * vy / (2.0 * g));
        }
        prev_vy = vy;
    }
    for w in apexes.windows(2).take(6) {
        assert!((w[1] / w[0] - 0.49).abs() < 1e-9, "{apexes:?}");
    }
    // Infinitely many bounces in 2 v₀ / (g (1 − e)) = 2.9 s: resting contact ends them.
    let d = sim.diagnostics();
    assert_eq!(d.contacts, 1, "resting on the floor: {d:?}");
    let snap = sim.snapshot();
    assert!((snap.position[0].y - 0.1).abs() < 1e-9 && snap.velocity[0].y == 0.0);
    assert!(d.collisions > 20 && d.collisions < 200, "{}", d.collisions);
}

#[test]
fn galperin_billiard_counts_the_digits_of_pi() {
    for digits in 1..=7u32 {
        let s = builtin::pi_blocks(digits).unwrap();
        let expected = (std::f64::consts::PI * 10f64.powi(digits as i32 - 1)).floor() as u64;
        let mut sim = event(&s);
        sim.step(s.sim.steps).unwrap();
        assert_eq!(sim.diagnostics().collisions, expected, "D = {digits}");
        // The scene's duration covers every collision: twice as long adds none, and at the
        // end both spheres move away from the wall, the light one no faster than the heavy one.
        sim.step(s.sim.steps).unwrap();
        assert_eq!(
            sim.diagnostics().collisions,
            expected,
            "D = {digits}, doubled"
        );
        let v = sim.snapshot().velocity;
        assert!(v[1].x > 0.0 && v[0].x <= v[1].x, "D = {digits}: {v:?}");
    }
}

fn refusal(sim: SimParams) -> String {
    let s = scene(
        vec![sphere(DVec3::ZERO, DVec3::X, 0.1, 1.0, 1.0)],
        vec![],
        sim,
    );
    match Simulation::new(&s, Backend::Event, Precision::F64) {
        Err(e @ SimError::Event(_)) => e.to_string(),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[test]
fn scenes_it_cannot_solve_are_refused_with_the_reason() {
    let m = refusal(SimParams {
        g_const: 6.674e-11,
        ..params(1e-3, 10)
    });
    assert!(
        m.contains("mutual gravity") && m.contains("G = 6.674e-11"),
        "{m}"
    );
    let m = refusal(spring(1e-3, 10, 1e4));
    assert!(m.contains("spring-dashpot") && m.contains("impulse"), "{m}");
    let m = refusal(SimParams {
        drag: 0.5,
        ..params(1e-3, 10)
    });
    assert!(m.contains("drag = 0.5"), "{m}");
    let _ = ContactModel::Impulse;
}

/// An inelastic granular gas poured into a box under gravity: spheres land on the floor and
/// on each other. Energy may only fall, nothing leaves the box or sinks into the floor.
#[test]
fn inelastic_spheres_under_gravity_settle_on_the_floor() {
    let mut spheres = Vec::new();
    for i in 0..5 {
        for k in 0..5 {
            spheres.push(sphere(
                DVec3::new(
                    -0.4 + 0.2 * i as f64,
                    0.3 + 0.05 * k as f64 + 0.3 * i as f64,
                    0.01 * k as f64,
                ),
                DVec3::new(0.3 * (k as f64 - 2.0), 0.0, 0.1 * (i as f64 - 2.0)),
                0.02,
                0.01,
                0.6,
            ));
        }
    }
    let s = scene(
        spheres,
        spheresim::Scene::box_planes(
            DVec3::new(-0.5, 0.0, -0.5),
            DVec3::new(0.5, 2.0, 0.5),
            0.8,
            Default::default(),
        )
        .to_vec(),
        SimParams {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            ..params(1e-3, 3000)
        },
    );
    let mut sim = event(&s);
    let mut e_prev = sim.diagnostics().total_energy();
    for _ in 0..30 {
        sim.step(100).unwrap();
        let d = sim.diagnostics();
        assert!(
            d.total_energy() <= e_prev + 1e-12,
            "energy grew: {e_prev} -> {}",
            d.total_energy()
        );
        e_prev = d.total_energy();
        for x in &sim.snapshot().position {
            assert!(x.y >= 0.02 - 1e-9 && x.x.abs() <= 0.48 + 1e-9, "{x:?}");
        }
    }
    eprintln!("{:?}", sim.diagnostics());
}

/// A documented limit: a sphere with e < 1 landing on another that rests on the floor makes
/// infinitely many collisions in finite time (inelastic collapse between spheres, which the
/// solver does not regularise). It must stop with a clear error, quickly, not hang.
#[test]
fn collapse_between_spheres_stops_with_a_clear_error() {
    let s = scene(
        vec![
            sphere(DVec3::new(0.0, 0.1, 0.0), DVec3::ZERO, 0.1, 1.0, 0.5),
            sphere(DVec3::new(0.0, 0.5, 0.0), DVec3::ZERO, 0.1, 1.0, 0.5),
        ],
        vec![plane(DVec3::ZERO, DVec3::Y, 0.5)],
        SimParams {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            ..params(1e-3, 3000)
        },
    );
    let mut sim = event(&s);
    let err = sim.step(3000).expect_err("collapse").to_string();
    assert!(
        err.contains("inelastic collapse") && err.contains("`Backend::Cpu`"),
        "{err}"
    );
    // Up to the collapse, nothing sank.
    let x = sim.snapshot().position;
    assert!(
        x[0].y >= 0.1 - 1e-9 && x[1].y - x[0].y >= 0.2 - 1e-9,
        "{x:?}"
    );
}

/// The quartic contact time against dense sampling of the separation.
#[test]
fn accelerated_contact_time_is_the_first_entering_root() {
    use spheresim::physics::toi::contact_time_accelerated;
    let cases = [
        // Falling onto a fixed sphere below: |d| = R first at t = sqrt(2 h / g).
        (
            DVec3::new(0.0, -1.6, 0.0),
            DVec3::ZERO,
            DVec3::new(0.0, 9.81, 0.0),
            0.6,
        ),
        // Thrown up past a sphere, grazing none, then falling back onto it.
        (
            DVec3::new(0.3, -0.5, 0.0),
            DVec3::new(0.0, 3.0, 0.0),
            DVec3::new(0.0, 9.81, 0.0),
            0.35,
        ),
        // Oblique, sideways drift.
        (
            DVec3::new(1.0, -2.0, 0.5),
            DVec3::new(-0.5, 1.0, -0.25),
            DVec3::new(0.0, 0.5, 0.0),
            0.5,
        ),
    ];
    for (dx, dv, da, r) in cases {
        let d = |t: f64| (dx + dv * t + 0.5 * da * t * t).length() - r;
        // First sign change on a fine grid.
        let mut first = None;
        let h = 1e-5;
        for k in 0..1_000_000 {
            let t = k as f64 * h;
            if d(t) > 0.0 && d(t + h) <= 0.0 {
                first = Some(t);
                break;
            }
        }
        let got = contact_time_accelerated(dx, dv, da, r);
        match (first, got) {
            (Some(a), Some(b)) => {
                assert!((a - b).abs() <= 2.0 * h, "{dx:?}: grid {a}, quartic {b}")
            }
            (a, b) => panic!("{dx:?}: grid {a:?}, quartic {b:?}"),
        }
    }
    let t = contact_time_accelerated(
        DVec3::new(0.0, -1.6, 0.0),
        DVec3::ZERO,
        DVec3::new(0.0, 9.81, 0.0),
        0.6,
    )
    .unwrap();
    assert!((t - (2.0f64 / 9.81).sqrt()).abs() < 1e-12, "{t}");
    // Moving apart with the field pulling them further apart: never.
    assert_eq!(
        contact_time_accelerated(
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(0.0, 1.0, 0.0),
            0.5
        ),
        None
    );
}

#[test]
fn plane_contact_time_follows_the_parabola() {
    use spheresim::physics::toi::plane_contact_time;
    // Dropped from 1 m: sqrt(2/9.81).
    let t = plane_contact_time(1.0, 0.0, -9.81).unwrap();
    assert!((t - (2.0f64 / 9.81).sqrt()).abs() < 1e-15);
    // Thrown up at 2 m/s from the plane: back after 2 u / g.
    let t = plane_contact_time(0.0, 2.0, -9.81).unwrap();
    assert!((t - 4.0 / 9.81).abs() < 1e-15);
    // Uniform motion towards it, and away from it.
    assert_eq!(plane_contact_time(3.0, -1.5, 0.0), Some(2.0));
    assert_eq!(plane_contact_time(3.0, 1.5, 0.0), None);
    // Touching, no normal speed, pressed on: now.
    assert_eq!(plane_contact_time(0.0, 0.0, -9.81), Some(0.0));
    assert_eq!(plane_contact_time(-1e-17, 0.0, -9.81), Some(0.0));
    // Field pushing away and moving away: never.
    assert_eq!(plane_contact_time(0.5, 0.1, 1.0), None);
}

/// A sphere dropped onto a fixed sphere (different accelerations: the quartic) rebounds at
/// e times the impact speed sqrt(2 g h), at the time sqrt(2 h / g).
#[test]
fn drop_onto_a_fixed_sphere_under_gravity() {
    let (g, h, e) = (9.81, 1.0, 0.5);
    let s = scene(
        vec![
            fixed(DVec3::ZERO, 0.5),
            sphere(DVec3::new(0.0, 0.6 + h, 0.0), DVec3::ZERO, 0.1, 1.0, e),
        ],
        vec![],
        SimParams {
            gravity: DVec3::new(0.0, -g, 0.0),
            ..params(1e-3, 600)
        },
    );
    let mut sim = event(&s);
    let t_hit = (2.0 * h / g).sqrt();
    sim.step(600).unwrap();
    let snap = sim.snapshot();
    // After the bounce: v = e sqrt(2 g h) − g (t − t_hit), ballistic.
    let t = sim.time();
    let want_v = e * (2.0 * g * h).sqrt() - g * (t - t_hit);
    assert!(
        (snap.velocity[1].y - want_v).abs() < 1e-12,
        "{} vs {want_v}",
        snap.velocity[1].y
    );
    assert_eq!(snap.velocity[1].x, 0.0);
    assert_eq!(sim.diagnostics().collisions, 1);
}

/// Elastic spheres landing on spheres resting on an elastic floor, off-centre: resting contacts
/// begin and end, pairs with different accelerations meet (the quartic), and the total energy
/// stays exact.
#[test]
fn elastic_spheres_falling_onto_resting_ones_keep_energy() {
    let mut spheres = Vec::new();
    for k in 0..4 {
        let x = 0.5 * k as f64;
        spheres.push(sphere(DVec3::new(x, 0.1, 0.0), DVec3::ZERO, 0.1, 1.0, 1.0));
        spheres.push(sphere(
            DVec3::new(x + 0.07, 1.0 + 0.2 * k as f64, 0.03),
            DVec3::ZERO,
            0.1,
            2.0,
            1.0,
        ));
    }
    let s = scene(
        spheres,
        vec![plane(DVec3::ZERO, DVec3::Y, 1.0)],
        SimParams {
            gravity: DVec3::new(0.0, -9.81, 0.0),
            ..params(1e-3, 2000)
        },
    );
    let mut sim = event(&s);
    let e0 = sim.diagnostics().total_energy();
    for _ in 0..20 {
        sim.step(100).unwrap();
        let snap = sim.snapshot();
        for (i, x) in snap.position.iter().enumerate() {
            assert!(x.y >= 0.1 - 1e-9, "sphere {i} in the floor: {x:?}");
            for y in &snap.position[i + 1..] {
                assert!((*y - *x).length() >= 0.2 - 1e-9, "overlap");
            }
        }
    }
    let d = sim.diagnostics();
    assert!(d.collisions >= 8, "{d:?}");
    let de = (d.total_energy() - e0).abs() / e0.abs();
    assert!(de < 1e-9, "energy drift {de:e}");
}
