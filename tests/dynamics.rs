//! Whole-system behaviour of the CPU reference: conservation laws and analytic references.

mod common;
use common::*;
use glam::DVec3;
use spheresim::Precision;
use spheresim::physics::GRAVITATIONAL_CONSTANT as G;
use spheresim::scene::{Scene, SimParams, Sphere};

/// A small fcc wall of touching spheres (radius r) and a heavy projectile flying into it.
fn small_wall_break(e: f64) -> Scene {
    let r = 0.01;
    let a = 2.0 * std::f64::consts::SQRT_2 * r * (1.0 + 1e-9);
    let basis = [
        [0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0],
        [0.5, 0.0, 0.5],
        [0.0, 0.5, 0.5],
    ];
    let mut spheres = Vec::new();
    for k in 0..6 {
        for j in 0..6 {
            for i in 0..2 {
                for b in basis {
                    let p = DVec3::new(i as f64 + b[0], j as f64 + b[1], k as f64 + b[2]) * a;
                    spheres.push(sphere(p, DVec3::ZERO, r, 1e-3, e));
                }
            }
        }
    }
    let centre = DVec3::new(-0.08, 3.0 * a, 3.0 * a);
    spheres.push(sphere(
        centre,
        DVec3::new(20.0, 0.0, 0.0),
        0.05,
        0.125 * 1000.0 * 1e-3,
        e,
    ));
    scene(spheres, vec![], params(1e-4, 300))
}

#[test]
fn momentum_is_conserved_to_rounding_in_a_dense_wall_break() {
    for (precision, tol) in [(Precision::F64, 1e-12), (Precision::F32, 2e-6)] {
        let s = small_wall_break(0.5);
        let mut sim = run(&s, precision);
        let d0 = {
            let mut first =
                spheresim::Simulation::new(&s, spheresim::Backend::Cpu, precision).unwrap();
            first.diagnostics()
        };
        let d1 = sim.diagnostics();
        let p0 = d0.momentum.length();
        assert!(
            d1.collisions > 100,
            "the wall must be hit: {} collisions",
            d1.collisions
        );
        let drift = (d1.momentum - d0.momentum).length() / p0;
        assert!(
            drift < tol,
            "{precision}: relative momentum drift {drift:e} (tol {tol:e})"
        );
        // The projectile went in and the wall moved.
        let snap = sim.snapshot();
        let moved = snap.velocity[..snap.len() - 1]
            .iter()
            .filter(|v| v.length() > 0.1)
            .count();
        assert!(moved > 20, "{moved} wall spheres moving");
    }
}

/// `n_side`³ spheres (r = 1 cm, 1 g, restitution `e`) on a 4 cm lattice in a closed box, with
/// velocities up to 1 m/s a component drawn from `seed`; 3000 steps of 1 ms.
fn box_gas(n_side: usize, e: f64, seed: u64) -> Scene {
    let r = 0.01;
    let spacing = 0.04;
    let l = n_side as f64 * spacing;
    let mut spheres = Vec::new();
    let mut seed = seed;
    let mut rnd = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    for k in 0..n_side {
        for j in 0..n_side {
            for i in 0..n_side {
                let p = (DVec3::new(i as f64, j as f64, k as f64) + 0.5) * spacing;
                spheres.push(sphere(p, DVec3::new(rnd(), rnd(), rnd()), r, 1e-3, e));
            }
        }
    }
    let planes = Scene::box_planes(DVec3::ZERO, DVec3::splat(l), 1.0, Default::default())
        .into_iter()
        .collect();
    scene(spheres, planes, params(1e-3, 3000))
}

/// An elastic gas keeps its kinetic energy to rounding, whatever its seed: every collision is
/// resolved binary in a matching round and none reaches the final round's mass splitting,
/// which is not elastic (docs/physics.md §1.2). With two matching rounds (commit cc8cd7b and
/// earlier) seeds 2, 3, 4 and 6 lost 3e-4 to 7e-3 of it.
#[test]
fn elastic_gas_keeps_kinetic_energy_over_thousands_of_collisions() {
    let mut failures = Vec::new();
    for seed in [12345, 1, 2, 3, 4, 5, 6, 7] {
        let s = box_gas(8, 1.0, seed);
        let mut sim =
            spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
        let d0 = sim.diagnostics();
        sim.step(s.sim.steps).unwrap();
        let d1 = sim.diagnostics();
        assert!(d1.collisions > 2000, "only {} collisions", d1.collisions);
        let drift = rel(d1.kinetic, d0.kinetic, 1e-30);
        if drift >= 1e-12 {
            failures.push(format!(
                "seed {seed}: kinetic energy drift {drift:e} over {} collisions",
                d1.collisions
            ));
        }
        // Nobody escaped the box.
        let l = 8.0 * 0.04;
        assert!(
            sim.snapshot()
                .position
                .iter()
                .all(|p| p.min_element() > 0.0 && p.max_element() < l),
            "seed {seed}: a sphere left the box"
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn fast_small_sphere_cannot_tunnel_through_another() {
    // It moves 0.5 m per step, 2.5 diameters: the end positions alone never overlap.
    let dt = 1e-3;
    let s = scene(
        vec![
            sphere(
                DVec3::new(-0.35, 0.0, 0.0),
                DVec3::new(500.0, 0.0, 0.0),
                0.1,
                1.0,
                1.0,
            ),
            sphere(DVec3::ZERO, DVec3::ZERO, 0.1, 1.0, 1.0),
        ],
        vec![],
        params(dt, 3),
    );
    let snap = run(&s, Precision::F32).snapshot();
    // Equal masses, e = 1, head-on: velocities exchange.
    assert!(snap.velocity[0].length() < 1e-3, "{:?}", snap.velocity);
    assert!(
        (snap.velocity[1].x - 500.0).abs() < 1e-2,
        "{:?}",
        snap.velocity
    );
    assert!(snap.position[0].x < snap.position[1].x, "no pass-through");
    // And through a plane.
    let s = scene(
        vec![sphere(
            DVec3::new(0.0, 0.15, 0.0),
            DVec3::new(0.0, -400.0, 0.0),
            0.1,
            1.0,
            1.0,
        )],
        vec![plane(DVec3::ZERO, DVec3::Y, 1.0)],
        params(dt, 1),
    );
    let snap = run(&s, Precision::F32).snapshot();
    assert!(
        snap.position[0].y >= 0.1 - 1e-6 && snap.velocity[0].y > 399.0,
        "{snap:?}"
    );
}

/// Heights of successive apexes of a sphere bouncing on a floor.
fn apexes(e: f64, precision: Precision) -> Vec<f64> {
    let sim_params = SimParams {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        ..params(1e-4, 0)
    };
    let s = scene(
        vec![sphere(DVec3::new(0.0, 1.0, 0.0), DVec3::ZERO, 0.1, 1.0, e)],
        vec![plane(DVec3::ZERO, DVec3::Y, 1.0)],
        sim_params,
    );
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, precision).unwrap();
    let mut out = vec![1.0 - 0.1];
    let mut prev_vy = 0.0;
    for _ in 0..20_000 {
        sim.step(1).unwrap();
        let snap = sim.snapshot();
        let vy = snap.velocity[0].y;
        if prev_vy > 0.0 && vy <= 0.0 {
            // Just past the apex, falling at vy: the parabola's apex is vy²/2g higher.
            out.push(snap.position[0].y - 0.1 + vy * vy / (2.0 * 9.81));
        }
        prev_vy = vy;
    }
    out
}

#[test]
fn bounce_apex_ratio_is_e_squared() {
    for precision in [Precision::F64, Precision::F32] {
        let h = apexes(0.7, precision);
        assert!(h.len() >= 3, "{h:?}");
        for w in h.windows(2).take(3) {
            let ratio = w[1] / w[0];
            assert!(
                rel(ratio, 0.49, 1.0) < 0.005,
                "{precision}: apex ratio {ratio} vs e² = 0.49 ({h:?})"
            );
        }
    }
}

#[test]
fn circular_orbit_keeps_period_and_radius_over_ten_orbits() {
    let (m_big, m_small, r) = (1e12, 1.0, 10.0);
    let v = (G * (m_big + m_small) / r).sqrt();
    let period = std::f64::consts::TAU * (r * r * r / (G * (m_big + m_small))).sqrt();
    let steps_per_orbit = 2000;
    let dt = period / steps_per_orbit as f64;
    let vs = v * m_big / (m_big + m_small);
    let vb = -v * m_small / (m_big + m_small);
    let xs = r * m_big / (m_big + m_small);
    let xb = -r * m_small / (m_big + m_small);
    let s = scene(
        vec![
            sphere(
                DVec3::new(xb, 0.0, 0.0),
                DVec3::new(0.0, 0.0, vb),
                1.0,
                m_big,
                1.0,
            ),
            sphere(
                DVec3::new(xs, 0.0, 0.0),
                DVec3::new(0.0, 0.0, vs),
                0.05,
                m_small,
                1.0,
            ),
        ],
        vec![],
        SimParams {
            g_const: G,
            ..params(dt, 0)
        },
    );
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    let e0 = sim.diagnostics();
    let (mut crossings, mut last_z, mut r_err) = (Vec::new(), 0.0f64, 0.0f64);
    for k in 1..=(10 * steps_per_orbit + steps_per_orbit / 2) {
        sim.step(1).unwrap();
        let snap = sim.snapshot();
        let d = snap.position[1] - snap.position[0];
        r_err = r_err.max(rel(d.length(), r, 1.0));
        // Upward crossings of the x axis (z from − to +) with x > 0: once per orbit.
        if last_z < 0.0 && d.z >= 0.0 && d.x > 0.0 {
            let frac = last_z / (last_z - d.z);
            crossings.push((k as f64 - 1.0 + frac) * dt);
        }
        last_z = d.z;
    }
    assert_eq!(crossings.len(), 10, "{crossings:?}");
    let measured = (crossings[9] - crossings[0]) / 9.0;
    assert!(
        rel(measured, period, 1.0) < 1e-3,
        "period {measured} vs {period}"
    );
    assert!(r_err < 1e-3, "radius drift {r_err:e}");
    let e1 = sim.diagnostics();
    assert!(rel(e1.total_energy(), e0.total_energy(), 1.0) < 1e-6);
    assert!(
        (e1.angular_momentum - e0.angular_momentum).length() < 1e-9 * e0.angular_momentum.length()
    );
}

/// Effective restitution of a spring–dashpot binary collision.
fn spring_dashpot_restitution(e: f64, fixed_partner: bool) -> f64 {
    let (m, k) = (1.0f64, 1e4f64);
    let m_star = if fixed_partner { m } else { m / 2.0 };
    let zeta = spheresim::physics::spring_dashpot::damping_ratio(e);
    let c = 2.0 * zeta * (k * m_star).sqrt();
    let tc = spheresim::physics::spring_dashpot::contact_duration(k, c, m_star);
    let dt = tc / 200.0;
    let u0 = 1.0;
    let b: Sphere = if fixed_partner {
        fixed(DVec3::new(0.3, 0.0, 0.0), 0.1)
    } else {
        sphere(
            DVec3::new(0.3, 0.0, 0.0),
            DVec3::new(-u0 / 2.0, 0.0, 0.0),
            0.1,
            m,
            e,
        )
    };
    let va = if fixed_partner { u0 } else { u0 / 2.0 };
    let mut s = scene(
        vec![
            sphere(
                DVec3::new(0.0, 0.0, 0.0),
                DVec3::new(va, 0.0, 0.0),
                0.1,
                m,
                e,
            ),
            b,
        ],
        vec![],
        spring(dt, 0, k),
    );
    // Long enough to touch, collide and separate.
    s.sim.steps = ((0.1 / u0 + 3.0 * tc) / dt) as u64;
    let snap = run(&s, Precision::F64).snapshot();
    (snap.velocity[1].x - snap.velocity[0].x) / u0
}

#[test]
fn spring_dashpot_binary_restitution_matches_e() {
    for e in [0.3, 0.5, 0.9] {
        for fixed_partner in [false, true] {
            let got = spring_dashpot_restitution(e, fixed_partner);
            assert!(
                rel(got, e, 1.0) < 0.01,
                "e = {e} (fixed: {fixed_partner}): got {got}"
            );
        }
    }
}

#[test]
fn sphere_pressed_on_a_plane_slides_instead_of_sinking() {
    // e = 0, gravity pressing it down, sliding along x: no friction, so vx is kept.
    let sim_params = SimParams {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        ..params(1e-3, 2000)
    };
    let s = scene(
        vec![sphere(
            DVec3::new(0.0, 0.1, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            0.1,
            1.0,
            0.0,
        )],
        vec![plane(DVec3::ZERO, DVec3::new(0.0, 1.0, 0.0), 0.0)],
        sim_params,
    );
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    for _ in 0..2000 {
        sim.step(1).unwrap();
        let p = sim.snapshot().position[0];
        assert!(p.y > 0.1 - 1e-9, "sank to {}", p.y);
    }
    let snap = sim.snapshot();
    assert!(
        (snap.velocity[0].x - 1.0).abs() < 1e-12,
        "{:?}",
        snap.velocity[0]
    );
    assert!(
        (snap.position[0].x - 2.0).abs() < 1e-9,
        "{:?}",
        snap.position[0]
    );
    assert!(
        snap.velocity[0].y.abs() < 9.81 * 1e-3,
        "{:?}",
        snap.velocity[0]
    );
}

#[test]
fn runs_are_bitwise_reproducible() {
    for name in ["box-gas", "wall-break"] {
        let s = spheresim::scene::builtin::build(name, Some(3000)).unwrap();
        let mut sims: Vec<_> = (0..2)
            .map(|_| {
                spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F32).unwrap()
            })
            .collect();
        for sim in &mut sims {
            sim.step(60).unwrap();
        }
        let (a, b) = (sims[0].snapshot(), sims[1].snapshot());
        assert!(a == b, "{name}: two runs differ");
        assert_eq!(sims[0].diagnostics(), sims[1].diagnostics());
    }
}

#[test]
fn orbits_conserve_angular_momentum_and_energy() {
    let mut s = spheresim::scene::builtin::build("orbits", Some(300)).unwrap();
    s.sim.steps = 300;
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    let d0 = sim.diagnostics();
    sim.step(s.sim.steps).unwrap();
    let d1 = sim.diagnostics();
    let l0 = d0.angular_momentum.length();
    assert!((d1.angular_momentum - d0.angular_momentum).length() < 1e-10 * l0);
    assert!(
        rel(d1.total_energy(), d0.total_energy(), 1.0) < 1e-6,
        "{d0:?} {d1:?}"
    );
    assert!(d0.potential_gravity < 0.0);
}

/// Review finding: radii that differ in f64 but round to the same f32 once made the f32 split of
/// small and large spheres disagree with the f64 count, and the contact stage read out of range.
#[test]
fn radii_tied_in_f32_do_not_break_the_large_sphere_split() {
    let mut spheres = Vec::new();
    for k in 0..40 {
        let p = DVec3::new((k % 8) as f64, (k / 8) as f64, 0.0) * 0.6;
        spheres.push(sphere(p, DVec3::new(0.1, 0.0, 0.0), 0.25, 1.0, 1.0));
    }
    spheres.push(sphere(
        DVec3::new(0.0, 10.0, 0.0),
        DVec3::ZERO,
        1.0,
        1.0,
        1.0,
    ));
    spheres.push(sphere(
        DVec3::new(5.0, 10.0, 0.0),
        DVec3::ZERO,
        1.0 + 1e-12,
        1.0,
        1.0,
    ));
    let s = scene(spheres, vec![], params(1e-3, 50));
    for precision in [Precision::F32, Precision::F64] {
        run(&s, precision);
    }
}

/// Spheres resting on one fixed sphere under gravity must all be served every step and stay
/// on its surface (review: a lowest-id tie-break once starved all but one, which fell through).
#[test]
fn spheres_resting_on_a_fixed_sphere_stay_on_it() {
    let big = 1.0;
    let r = 0.1;
    let mut spheres = vec![fixed(DVec3::ZERO, big)];
    for k in 0..8 {
        let a = k as f64 * std::f64::consts::TAU / 8.0;
        let dir = DVec3::new(0.3 * a.cos(), 1.0, 0.3 * a.sin()).normalize();
        spheres.push(sphere(dir * (big + r), DVec3::ZERO, r, 1.0, 0.0));
    }
    let sim_params = SimParams {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        ..params(1e-3, 300)
    };
    let s = scene(spheres, vec![], sim_params);
    let snap = run(&s, Precision::F64).snapshot();
    for k in 1..snap.len() {
        let d = snap.position[k].length();
        assert!(
            d > big + r - 0.01 * r,
            "sphere {k} sank into the fixed sphere: |x| = {d}"
        );
    }
}

/// Two small spheres on top of a movable heavy sphere resting on a floor (review: they once
/// fell through it). Off-centre and frictionless, they slide off, as they should; at no step
/// may any sphere sink into another or into the floor.
#[test]
fn spheres_sliding_off_a_movable_sphere_never_sink() {
    let sim_params = SimParams {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        ..params(1e-3, 0)
    };
    let s = scene(
        vec![
            sphere(DVec3::new(0.0, 0.5, 0.0), DVec3::ZERO, 0.5, 100.0, 0.0),
            sphere(DVec3::new(-0.05, 1.1, 0.0), DVec3::ZERO, 0.1, 1.0, 0.0),
            sphere(DVec3::new(0.05, 1.1, 0.0), DVec3::ZERO, 0.1, 1.0, 0.0),
        ],
        vec![plane(DVec3::ZERO, DVec3::Y, 0.0)],
        sim_params,
    );
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    for step in 0..2000 {
        sim.step(1).unwrap();
        let p = sim.snapshot().position;
        for k in [1, 2] {
            let d = (p[k] - p[0]).length();
            assert!(
                d > 0.6 - 0.02 * 0.1,
                "step {step}: sphere {k} sank into the big one: {d}"
            );
            assert!(
                p[k].y > 0.1 - 0.02 * 0.1,
                "step {step}: sphere {k} below the floor"
            );
        }
        assert!(
            p[0].y > 0.5 - 0.02 * 0.5,
            "step {step}: big sphere sank: {:?}",
            p[0]
        );
    }
    let p = sim.snapshot().position;
    assert!(
        p[1].x < -0.6 && p[2].x > 0.6,
        "they slid off to both sides: {p:?}"
    );
}

/// A lattice dropped into a box under gravity settles: it stays inside, does not sink into the
/// floor, and stops moving. (Velocities of resting stacks keep a small steady residue — one
/// Jacobi sweep per step does not converge on a column — but positions are at rest.)
#[test]
fn a_lattice_settles_in_a_box() {
    let r = 0.05;
    let mut spheres = Vec::new();
    for k in 0..6 {
        for j in 0..4 {
            for i in 0..4 {
                let p = DVec3::new(
                    0.06 + 0.11 * i as f64,
                    0.06 + 0.11 * k as f64,
                    0.06 + 0.11 * j as f64,
                );
                spheres.push(sphere(p, DVec3::ZERO, r, 0.1, 0.5));
            }
        }
    }
    let planes = Scene::box_planes(
        DVec3::ZERO,
        DVec3::new(0.45, 2.0, 0.45),
        0.5,
        Default::default(),
    )
    .into_iter()
    .collect();
    let sim_params = SimParams {
        gravity: DVec3::new(0.0, -9.81, 0.0),
        ..params(5e-4, 5000)
    };
    let s = scene(spheres, planes, sim_params);
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    sim.step(s.sim.steps).unwrap();
    let before = sim.snapshot();
    sim.step(1000).unwrap();
    let snap = sim.snapshot();
    let (moved, _) = before.max_difference(&snap);
    assert!(
        moved < 0.01 * r,
        "still moving: {moved} m in the last 0.5 s"
    );
    let min_y = snap
        .position
        .iter()
        .map(|p| p.y)
        .fold(f64::INFINITY, f64::min);
    assert!(
        min_y > r - 0.01 * r,
        "bottom layer sank into the floor: {min_y}"
    );
    assert!(
        snap.position
            .iter()
            .all(|p| p.x > 0.0 && p.x < 0.45 && p.z > 0.0 && p.z < 0.45),
        "escaped the box"
    );
    // Energy scale: 96 × 0.1 kg × g × 0.3 m ≈ 28 J. The residue stays far below it.
    assert!(
        sim.diagnostics().kinetic < 1e-2,
        "{}",
        sim.diagnostics().kinetic
    );
}

/// With every restitution below 1, kinetic energy can only fall (no field, no gravity). Plain
/// Jacobi summing of simultaneous impulses broke this (+12.6 % in a 100 000-sphere wall-break);
/// the final round's mass splitting keeps it.
#[test]
fn inelastic_wall_break_never_gains_kinetic_energy() {
    let mut s = spheresim::scene::builtin::build("wall-break", Some(5000)).unwrap();
    s.sim.steps = 600;
    let mut sim = spheresim::Simulation::new(&s, spheresim::Backend::Cpu, Precision::F64).unwrap();
    let k0 = sim.diagnostics().kinetic;
    let mut prev = k0;
    for _ in 0..12 {
        sim.step(50).unwrap();
        let d = sim.diagnostics();
        assert!(
            d.kinetic <= prev * (1.0 + 1e-9),
            "kinetic energy rose from {prev} to {} J at step {}",
            d.kinetic,
            d.step
        );
        prev = d.kinetic;
    }
    assert!(prev < k0, "the wall must take some energy: {k0} -> {prev}");
    assert!(sim.diagnostics().collisions > 1000);
}
