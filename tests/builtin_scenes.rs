//! Built-in scenes: counts, geometry (no overlaps, touching wall), physical parameters.

use std::collections::HashMap;

use glam::DVec3;
use spheresim::scene::{Scene, builtin};

/// Checks every sphere: finite position and velocity, positive finite radius and mass,
/// restitution in [0, 1], material index valid.
fn check_values(scene: &Scene) {
    for (i, s) in scene.spheres.iter().enumerate() {
        assert!(
            s.position.is_finite() && s.velocity.is_finite(),
            "{}: sphere {i} has a non-finite state: {s:?}",
            scene.name
        );
        assert!(
            s.radius.is_finite() && s.radius > 0.0,
            "{}: sphere {i} radius {}",
            scene.name,
            s.radius
        );
        assert!(
            s.mass.is_finite() && s.mass > 0.0,
            "{}: sphere {i} mass {}",
            scene.name,
            s.mass
        );
        assert!((0.0..=1.0).contains(&s.restitution));
        if let Some(m) = s.material {
            assert!(m < scene.materials.len(), "sphere {i} names material {m}");
        }
        // Only pile's and hopper-flow's carpets are fixed.
        assert!(
            !s.fixed || ["pile", "hopper-flow"].contains(&scene.name.as_str()),
            "{}: sphere {i} fixed",
            scene.name
        );
    }
    let sim = &scene.sim;
    assert!(sim.dt > 0.0 && sim.dt.is_finite());
    assert!(sim.steps > 0);
    // The contact-mechanics scenes use the Hertz law with friction, rubble-pile without (its
    // spheres have no spin); the others impulses.
    let soft = [
        "wall-stand",
        "container",
        "pile",
        "shear-cell",
        "hopper-flow",
    ]
    .contains(&scene.name.as_str());
    let model = if soft || scene.name == "rubble-pile" {
        spheresim::scene::ContactModel::Hertz
    } else {
        spheresim::scene::ContactModel::Impulse
    };
    assert_eq!(sim.contact, model, "{}", scene.name);
    if soft {
        assert!(
            scene.spheres.iter().all(|s| s.surface.friction > 0.0),
            "{}: friction",
            scene.name
        );
    }
    assert!(
        scene.time_step_warning().is_none(),
        "{}: {:?}",
        scene.name,
        scene.time_step_warning()
    );
}

/// Largest overlap between two spheres, as a fraction of the smaller radius (negative: the
/// smallest gap). Brute force.
fn worst_overlap_brute(spheres: &[spheresim::scene::Sphere]) -> f64 {
    let mut worst = f64::NEG_INFINITY;
    for i in 0..spheres.len() {
        for j in i + 1..spheres.len() {
            let (a, b) = (&spheres[i], &spheres[j]);
            let overlap = a.radius + b.radius - a.position.distance(b.position);
            worst = worst.max(overlap / a.radius.min(b.radius));
        }
    }
    worst
}

/// Same as [`worst_overlap_brute`] but through a uniform grid for small spheres (radius at most
/// 2× the smallest); larger spheres are tested against everything. Exact wherever the result is
/// at least −0.5 (pairs farther apart than that may be missed).
fn worst_overlap_grid(spheres: &[spheresim::scene::Sphere]) -> f64 {
    let r_min = spheres
        .iter()
        .map(|s| s.radius)
        .fold(f64::INFINITY, f64::min);
    let small_limit = 2.0 * r_min;
    let cell = 2.5 * small_limit;
    let key = |p: DVec3| {
        let c = (p / cell).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    let mut large = Vec::new();
    for (i, s) in spheres.iter().enumerate() {
        if s.radius <= small_limit {
            grid.entry(key(s.position)).or_default().push(i);
        } else {
            large.push(i);
        }
    }
    let mut worst = f64::NEG_INFINITY;
    let mut pair = |i: usize, j: usize| {
        let (a, b) = (&spheres[i], &spheres[j]);
        let overlap = a.radius + b.radius - a.position.distance(b.position);
        worst = worst.max(overlap / a.radius.min(b.radius));
    };
    for (&(x, y, z), members) in &grid {
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(other) = grid.get(&(x + dx, y + dy, z + dz)) else {
                        continue;
                    };
                    for &i in members {
                        for &j in other {
                            if i < j {
                                pair(i, j);
                            }
                        }
                    }
                }
            }
        }
    }
    for &i in &large {
        for j in 0..spheres.len() {
            if j != i && (!large.contains(&j) || i < j) {
                pair(i, j);
            }
        }
    }
    worst
}

/// For each of the first `n` spheres: distance to its nearest neighbour among the first `n`
/// (all equal radius), through a grid.
fn nearest_neighbour_distances(spheres: &[spheresim::scene::Sphere], n: usize) -> Vec<f64> {
    let cell = 4.0 * spheres[0].radius;
    let key = |p: DVec3| {
        let c = (p / cell).floor();
        (c.x as i64, c.y as i64, c.z as i64)
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    for (i, s) in spheres[..n].iter().enumerate() {
        grid.entry(key(s.position)).or_default().push(i);
    }
    (0..n)
        .map(|i| {
            let p = spheres[i].position;
            let (x, y, z) = key(p);
            let mut best = f64::INFINITY;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        for &j in grid.get(&(x + dx, y + dy, z + dz)).into_iter().flatten() {
                            if j != i {
                                best = best.min(p.distance(spheres[j].position));
                            }
                        }
                    }
                }
            }
            best
        })
        .collect()
}

fn within(count: usize, wanted: usize, rel: f64) -> bool {
    (count as f64 - wanted as f64).abs() <= rel * wanted as f64
}

#[test]
fn list_and_names_agree_and_every_scene_builds_at_its_default() {
    let list = builtin::list();
    assert_eq!(list.len(), 13);
    assert_eq!(
        builtin::names(),
        vec![
            "wall-break",
            "wall-stand",
            "container",
            "box-gas",
            "orbits",
            "plummer",
            "rubble-pile",
            "pile",
            "shear-cell",
            "hopper-flow",
            "bounce",
            "two-spheres",
            "pi-blocks"
        ]
    );
    for info in list {
        assert!(!info.summary.is_empty() && !info.summary.contains('\n'));
        let scene = builtin::build(info.name, None).unwrap();
        assert_eq!(scene.name, info.name);
        check_values(&scene);
        let n = scene.spheres.len();
        if info.name == "wall-stand" {
            // Whole close-packed layers (3k + 1 of them) and rows.
            assert!(
                within(n, info.default_particles, 0.15),
                "{}: {n}",
                info.name
            );
        } else if info.name == "wall-break" {
            assert!(
                within(n, info.default_particles, 0.03),
                "{}: {n}",
                info.name
            );
        } else {
            // pile: the grains; its fixed carpet comes on top.
            assert_eq!(grains(&scene), info.default_particles, "{}", info.name);
        }
        let worst = if n <= 2000 {
            worst_overlap_brute(&scene.spheres)
        } else {
            worst_overlap_grid(&scene.spheres)
        };
        assert!(worst <= 1e-6, "{}: overlap {worst} of a radius", info.name);
    }
}

/// The movable spheres a scene starts with, and those its insertions make over the run
/// (`hopper-flow` is filled by one before the first step).
fn grains(scene: &spheresim::Scene) -> usize {
    let moving = scene.spheres.iter().filter(|s| !s.fixed).count();
    moving
        + scene
            .inserts
            .iter()
            .map(|i| i.total.expect("a built-in's insertion has a total") as usize)
            .sum::<usize>()
}

#[test]
fn every_scene_builds_at_300_without_overlaps() {
    // pi-blocks has exactly 2 spheres (its size is --digits; tests/event.rs).
    for name in builtin::names().into_iter().filter(|&n| n != "pi-blocks") {
        let scene = builtin::build(name, Some(300)).unwrap();
        check_values(&scene);
        let n = scene.spheres.len();
        if name == "wall-stand" {
            assert!(within(n, 300, 0.15), "{name}: {n} spheres");
        } else if name == "wall-break" {
            assert!(within(n, 300, 0.03), "{name}: {n} spheres");
        } else {
            assert_eq!(grains(&scene), 300, "{name}");
        }
        let worst = worst_overlap_brute(&scene.spheres);
        assert!(worst <= 1e-6, "{name}: overlap {worst} of a radius");
        // The grid checker agrees with brute force (it is used at large N below).
        assert_eq!(
            worst_overlap_grid(&scene.spheres).max(-0.5),
            worst.max(-0.5),
            "{name}"
        );
    }
}

#[test]
fn large_scenes_scale_without_overlaps() {
    for (name, n) in [
        ("wall-break", 200_000),
        ("box-gas", 200_000),
        ("orbits", 100_000),
    ] {
        let scene = builtin::build(name, Some(n)).unwrap();
        check_values(&scene);
        assert!(
            within(scene.spheres.len(), n, 0.03),
            "{name}: {}",
            scene.spheres.len()
        );
        let worst = worst_overlap_grid(&scene.spheres);
        assert!(worst <= 1e-6, "{name}: overlap {worst} of a radius");
    }
}

#[test]
fn wall_break_counts_track_the_request() {
    for n in [17, 50, 123, 300, 1000, 4321, 100_000, 200_000, 1_000_000] {
        let scene = builtin::build("wall-break", Some(n)).unwrap();
        let got = scene.spheres.len();
        let tol = if n < 100 { 0.15 } else { 0.03 };
        assert!(within(got, n, tol), "asked {n}, got {got}");
    }
    let err = builtin::build("wall-break", Some(16))
        .unwrap_err()
        .to_string();
    assert!(err.contains("at least 17"), "{err}");
}

#[test]
fn wall_break_is_a_touching_close_packed_slab_hit_by_a_heavy_projectile() {
    for n in [300, 100_000] {
        let scene = builtin::build("wall-break", Some(n)).unwrap();
        let (wall, projectile) = scene.spheres.split_at(scene.spheres.len() - 1);
        let p = &projectile[0];
        let r = wall[0].radius;
        let m = wall[0].mass;
        assert!(wall.iter().all(|s| s.radius == r && s.mass == m));
        assert!(wall.iter().all(|s| s.velocity == DVec3::ZERO));
        assert!((r - 0.01).abs() < 1e-15);
        // Wood: 700 kg/m³, e = 0.5.
        let wood_mass = 700.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        assert!((m / wood_mass - 1.0).abs() < 1e-12);
        assert!(wall.iter().all(|s| s.restitution == 0.5));

        // Spheres touch: every nearest neighbour at 2r (a hair of gap allowed, no overlap).
        let nn = nearest_neighbour_distances(&scene.spheres, wall.len());
        for (i, d) in nn.iter().enumerate() {
            assert!(
                (d / (2.0 * r) - 1.0).abs() < 1e-6,
                "wall sphere {i}: nearest neighbour at {d} m, 2r = {}",
                2.0 * r
            );
        }
        // Close packed: the sphere nearest the slab's centroid is interior and touches 12.
        let centroid = wall.iter().map(|s| s.position).sum::<DVec3>() / wall.len() as f64;
        let inner = wall
            .iter()
            .min_by(|a, b| {
                a.position
                    .distance(centroid)
                    .total_cmp(&b.position.distance(centroid))
            })
            .unwrap();
        let touching = wall
            .iter()
            .filter(|s| (s.position.distance(inner.position) / (2.0 * r) - 1.0).abs() < 1e-6)
            .count();
        assert_eq!(touching, 12, "not close packed");

        // Slab: thin along x (4–8 layers), square-ish in y–z, front face at x = 0.
        let (lo, hi) = wall.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), s| (lo.min(s.position), hi.max(s.position)),
        );
        let layer = 2.0 * r * (2.0f64 / 3.0).sqrt();
        let layers = ((hi.x - lo.x) / layer).round() as usize + 1;
        assert!((4..=8).contains(&layers), "{layers} layers");
        let (wy, wz) = (hi.y - lo.y + 2.0 * r, hi.z - lo.z + 2.0 * r);
        assert!(wy / wz > 0.6 && wy / wz < 1.6, "face {wy} × {wz}");
        assert!((lo.x - r).abs() < 1e-12, "front face at {}", lo.x - r);

        // Projectile: ≥ 5 r, ≥ W/10, ≥ 100× the mass, steel, +x at 20 m/s, aimed at the centre,
        // about 2 r in front of the wall.
        assert!(p.radius >= 5.0 * r);
        assert!(p.radius >= 0.099 * wy.max(wz));
        assert!(p.mass >= 100.0 * m);
        let steel_mass = 7850.0 * 4.0 / 3.0 * std::f64::consts::PI * p.radius.powi(3);
        assert!((p.mass / steel_mass - 1.0).abs() < 1e-12);
        assert!((p.restitution - 0.556).abs() < 1e-3);
        assert_eq!(p.velocity, DVec3::new(20.0, 0.0, 0.0));
        let centre = 0.5 * (lo + hi);
        assert!((p.position.y - centre.y).abs() < r && (p.position.z - centre.z).abs() < r);
        let gap = (lo.x - r) - (p.position.x + p.radius);
        assert!(gap > 0.5 * r && gap < 5.0 * r, "gap {gap}");

        // Time step and run length.
        let sim = &scene.sim;
        assert_eq!(sim.gravity, DVec3::ZERO);
        assert_eq!(sim.g_const, 0.0);
        assert!(20.0 * sim.dt <= r / 5.0 + 1e-15);
        let travel = 20.0 * sim.dt * sim.steps as f64;
        assert!(travel > gap + (hi.x - lo.x + 2.0 * r) + 2.0 * p.radius);
        assert!(sim.steps >= 1500);
        // Materials named by the spheres are wood and steel.
        assert_eq!(scene.materials[wall[0].material.unwrap()].name, "wood");
        assert_eq!(scene.materials[p.material.unwrap()].name, "steel");
    }
}

#[test]
fn box_gas_is_a_dilute_elastic_gas_inside_its_box() {
    for n in [300, 10_000, 27_000] {
        let scene = builtin::build("box-gas", Some(n)).unwrap();
        assert_eq!(scene.planes.len(), 6);
        assert!(scene.planes.iter().all(|p| p.restitution == 1.0));
        // Box bounds from the planes (min planes have +axis normals).
        let lo = scene.planes[0].point;
        let hi = scene.planes[1].point;
        let side = hi - lo;
        assert!((side.x - side.y).abs() < 1e-12 && (side.x - side.z).abs() < 1e-12);
        let r = 0.01;
        let mut vmax: f64 = 0.0;
        for s in &scene.spheres {
            assert_eq!(s.radius, r);
            assert_eq!(s.mass, 1e-3);
            assert_eq!(s.restitution, 1.0);
            assert!(
                s.position.cmpgt(lo + DVec3::splat(r)).all(),
                "{s:?} touches a wall"
            );
            assert!(
                s.position.cmplt(hi - DVec3::splat(r)).all(),
                "{s:?} touches a wall"
            );
            assert!(s.velocity.abs().max_element() <= 1.0);
            vmax = vmax.max(s.velocity.length());
        }
        let fraction = n as f64 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3) / side.x.powi(3);
        assert!(
            (fraction - 0.1).abs() < 0.005,
            "fraction {fraction} at N = {n}"
        );
        assert!(vmax * scene.sim.dt <= r / 10.0);
        // Velocities are random, not all alike: mean near zero, spread near 1/3 per component.
        let mean = scene.spheres.iter().map(|s| s.velocity).sum::<DVec3>() / n as f64;
        assert!(mean.abs().max_element() < 0.1, "mean velocity {mean}");
        let var = scene
            .spheres
            .iter()
            .map(|s| (s.velocity - mean).length_squared())
            .sum::<f64>()
            / n as f64;
        assert!((var - 1.0).abs() < 0.15, "velocity variance {var}");
        assert_eq!(scene.sim.steps, 2000);
        assert_eq!(scene.sim.gravity, DVec3::ZERO);
    }
}

#[test]
fn orbits_are_circular_counter_clockwise_and_momentum_free() {
    for n in [300, 1000, 20_000] {
        let scene = builtin::build("orbits", Some(n)).unwrap();
        let sim = &scene.sim;
        assert_eq!(sim.g_const, 6.674e-11);
        assert_eq!(sim.softening, 0.01);
        assert_eq!(sim.gravity, DVec3::ZERO);
        assert_eq!(sim.dt, 1e-3);
        assert_eq!(sim.steps, 10_000);
        let central = &scene.spheres[0];
        assert_eq!(central.mass, 1e12);
        assert_eq!(central.radius, 1.0);
        let mut momentum = DVec3::ZERO;
        let mut scale = 0.0;
        let mut radii = Vec::new();
        for s in &scene.spheres {
            momentum += s.mass * s.velocity;
            scale += s.mass * s.velocity.length();
        }
        assert!(
            momentum.length() <= 1e-12 * scale,
            "momentum {momentum} of {scale}"
        );
        for s in &scene.spheres[1..] {
            assert_eq!(s.mass, 1e3);
            assert!(s.radius <= 0.05);
            let rel = s.position - central.position;
            let rho = DVec3::new(rel.x, 0.0, rel.z).length();
            assert!((5.0..=30.0).contains(&rho), "orbit radius {rho}");
            assert!(rel.y.abs() <= 0.01);
            radii.push(rho);
            // Circular: v = sqrt(G M / ρ), perpendicular to the radius, in the x–z plane.
            let v = s.velocity;
            let expected = (6.674e-11 * 1e12 / rho).sqrt();
            assert!((v.length() / expected - 1.0).abs() < 1e-12);
            assert_eq!(v.y, 0.0);
            assert!(v.dot(DVec3::new(rel.x, 0.0, rel.z)).abs() < 1e-9 * v.length() * rho);
            // Counter-clockwise seen from +y: angular momentum along +y.
            assert!(rel.cross(v).y > 0.0);
        }
        // Radii spread uniformly over [5, 30] m: the quartiles sit near 11.25, 17.5, 23.75.
        radii.sort_by(f64::total_cmp);
        for (q, want) in [(0.25, 11.25), (0.5, 17.5), (0.75, 23.75)] {
            let got = radii[(q * radii.len() as f64) as usize];
            assert!((got - want).abs() < 1.0, "quartile {q}: {got} m");
        }
        // Phases are spread, not lined up: mean unit direction is small.
        let dir = scene.spheres[1..]
            .iter()
            .map(|s| DVec3::new(s.position.x, 0.0, s.position.z).normalize())
            .sum::<DVec3>()
            / (n - 1) as f64;
        assert!(dir.length() < 0.1, "phases bunched: {dir}");
    }
    assert_eq!(
        builtin::build("orbits", None).unwrap().spheres[1].radius,
        0.05
    );
    assert!(builtin::build("orbits", Some(1)).is_err());
}

#[test]
fn bounce_drops_spheres_above_the_floor() {
    for n in [1, 2, 300] {
        let scene = builtin::build("bounce", Some(n)).unwrap();
        assert_eq!(scene.spheres.len(), n);
        assert_eq!(scene.planes.len(), 1);
        let floor = &scene.planes[0];
        assert_eq!(floor.point, DVec3::ZERO);
        assert_eq!(floor.normal, DVec3::Y);
        assert_eq!(floor.restitution, 1.0);
        assert_eq!(scene.sim.gravity, DVec3::new(0.0, -9.81, 0.0));
        assert_eq!(scene.sim.dt, 1e-4);
        assert_eq!(scene.sim.steps, 20_000);
        for s in &scene.spheres {
            assert_eq!(s.position.y, 1.0);
            assert!(s.position.y - s.radius > 0.0, "sphere below the floor");
            assert_eq!((s.radius, s.mass, s.restitution), (0.1, 1.0, 0.7));
            assert_eq!(s.velocity, DVec3::ZERO);
        }
        // Grid pitch 0.5 m.
        if n > 1 {
            let d = scene.spheres[0]
                .position
                .distance(scene.spheres[1].position);
            assert!((d - 0.5).abs() < 1e-12);
        }
    }
    assert_eq!(
        builtin::build("bounce", None).unwrap().spheres[0].position,
        DVec3::new(0.0, 1.0, 0.0)
    );
}

#[test]
fn two_spheres_is_an_oblique_collision() {
    let scene = builtin::build("two-spheres", None).unwrap();
    let [a, b] = &scene.spheres[..] else {
        panic!("two spheres expected")
    };
    assert_eq!((a.radius, a.mass), (0.1, 1.0));
    assert_eq!((b.radius, b.mass), (0.2, 4.0));
    assert_eq!(a.position, DVec3::new(-0.5, 0.0, 0.0));
    assert_eq!(b.position, DVec3::new(0.5, 0.15, 0.0));
    assert_eq!(a.velocity, DVec3::new(2.0, 0.0, 0.0));
    assert_eq!(b.velocity, DVec3::ZERO);
    // Impact parameter: off-axis distance of B from A's path, 0 < b < r_a + r_b.
    let impact = (b.position - a.position)
        .cross(a.velocity.normalize())
        .length();
    assert!(impact > 0.0 && impact < a.radius + b.radius);
    // They meet within the run.
    let t_contact = (1.0 - ((a.radius + b.radius).powi(2) - impact * impact).sqrt()) / 2.0;
    assert!(t_contact < scene.sim.dt * scene.sim.steps as f64 / 2.0);

    let grid = builtin::build("two-spheres", Some(8)).unwrap();
    assert_eq!(grid.spheres.len(), 8);
    for pair in grid.spheres.chunks(2) {
        let offset = pair[1].position - pair[0].position;
        assert!(
            offset.abs_diff_eq(b.position - a.position, 1e-12),
            "{offset}"
        );
        assert_eq!(
            (pair[0].velocity, pair[1].velocity),
            (a.velocity, b.velocity)
        );
    }
    let err = builtin::build("two-spheres", Some(7))
        .unwrap_err()
        .to_string();
    assert!(err.contains("even"), "{err}");
}

#[test]
fn unknown_names_and_zero_particles_are_rejected() {
    let err = builtin::build("wall-brake", None).unwrap_err().to_string();
    assert!(err.contains("wall-brake"), "{err}");
    for name in builtin::names() {
        assert!(err.contains(name), "`{name}` missing from: {err}");
    }
    for name in builtin::names() {
        let err = builtin::build(name, Some(0)).unwrap_err().to_string();
        assert!(err.contains('0'), "{name}: {err}");
    }
}

#[test]
fn scenes_are_deterministic() {
    for name in builtin::names().into_iter().filter(|&n| n != "pi-blocks") {
        assert_eq!(
            builtin::build(name, Some(500)).unwrap(),
            builtin::build(name, Some(500)).unwrap()
        );
    }
    assert_eq!(
        builtin::pi_blocks(5).unwrap(),
        builtin::pi_blocks(5).unwrap()
    );
    assert!(builtin::build("pi-blocks", Some(500)).is_err());
}

/// Builds every scene at 16 M spheres and prints the time (not an assertion of speed).
/// `cargo test --release --test builtin_scenes -- --ignored --nocapture`
#[test]
#[ignore = "allocates several GB; run by hand"]
fn sixteen_million() {
    for name in ["wall-break", "box-gas", "orbits", "bounce", "two-spheres"] {
        let t = std::time::Instant::now();
        let scene = builtin::build(name, Some(16_000_000)).unwrap();
        println!(
            "{name}: {} spheres in {:.2} s, steps {}",
            scene.spheres.len(),
            t.elapsed().as_secs_f64(),
            scene.sim.steps
        );
        assert!(within(scene.spheres.len(), 16_000_000, 0.03));
    }
}

/// The memory estimate made before building bounds what each builder really builds: the sphere
/// count and the bytes its vector keeps (capacity, so a vector that grows past its estimate —
/// the `pile` carpet used to double it — fails).
#[test]
fn the_build_cost_bounds_every_built_scene() {
    let sphere = std::mem::size_of::<spheresim::scene::Sphere>() as u64;
    for name in builtin::names() {
        if name == "pi-blocks" {
            continue;
        }
        for n in [18, 100, 2_000, 20_000] {
            let scene = builtin::build(name, Some(n)).unwrap();
            let cost = builtin::build_cost(name, n);
            let built = scene.spheres.len() as u64;
            assert!(built <= cost.spheres, "{name} {n}: {built} > {cost:?}");
            let held = scene.spheres.capacity() as u64 * sphere;
            assert!(
                held <= cost.kept && cost.kept <= cost.peak,
                "{name} {n}: {held} bytes held, {cost:?}"
            );
        }
    }
}

/// The refusal's "at most about N particles" is the largest count that passes the same check.
#[test]
fn the_size_check_names_the_largest_count_that_fits() {
    let available = 64 << 20;
    for name in ["box-gas", "container", "wall-stand", "pile", "plummer"] {
        let err = builtin::check_size(name, 10_000_000, None, Some(available))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!(
                "built-in scene `{name}` with 10000000 particles does not fit in memory: \
                 building the scene need"
            )),
            "{err}"
        );
        assert!(
            err.contains("but 67108864 bytes (0.1 GiB) are available (MemAvailable)"),
            "{err}"
        );
        let fits: usize = err
            .split("at most about ")
            .nth(1)
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no count in: {err}"));
        assert!(fits > 1000, "{name}: {fits}");
        builtin::check_size(name, fits, None, Some(available)).unwrap();
        assert!(builtin::check_size(name, fits + 1, None, Some(available)).is_err());
        assert!(builtin::build_cost(name, fits).peak <= available);
    }
}

/// A backend's bytes count on top of the scene's, for the scene's own settings.
#[test]
fn the_size_check_adds_the_backends_bytes() {
    let per = |_: &Scene, n: u64| 1000 * n;
    let backend: builtin::BackendCost<'_> = ("test backend", &per);
    let available = 64 << 20;
    builtin::check_size("box-gas", 100_000, None, Some(available)).unwrap();
    let err = builtin::check_size("box-gas", 100_000, Some(backend), Some(available))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the scene and the test backend need about"),
        "{err}"
    );
    let need = 100_000 * (1000 + builtin::build_cost("box-gas", 1).kept);
    assert!(err.contains(&format!("about {need} bytes")), "{err}");
    // Unknown memory: only the index limit.
    builtin::check_size("box-gas", 100_000, Some(backend), None).unwrap();
    let err = builtin::check_size("box-gas", u32::MAX as usize + 1, None, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("at most 4294967295 spheres (u32 ids)"),
        "{err}"
    );
}
