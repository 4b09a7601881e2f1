//! Contact mechanics beyond the validation cases (`spheresim validate`: Hertz duration and
//! restitution, energy balance, friction slide, container): the standing wall, the time-step
//! warning, and the soft-contact stage on the GPU against its CPU twin (lavapipe on machines
//! without a GPU).

mod common;

use common::contract::{Contract, Twins, gpu_contract, test_gpu_options};
use common::gpu_available;
use glam::DVec3;
use spheresim::scene::{ContactModel, Scene, builtin};
use spheresim::validate::container_gas;
use spheresim::{Backend, Precision, Simulation, Snapshot};

fn sim(scene: &Scene, backend: Backend, precision: Precision) -> Simulation {
    Simulation::with_gpu_options(scene, backend, precision, test_gpu_options())
        .expect("backend starts")
}

/// Displacements of the spheres `range` between two snapshots, sorted, m.
fn displacements(a: &Snapshot, b: &Snapshot, range: std::ops::Range<usize>) -> Vec<f64> {
    let mut d: Vec<f64> = range
        .map(|i| (a.position[i] - b.position[i]).length())
        .collect();
    d.sort_by(f64::total_cmp);
    d
}

#[test]
fn wall_stands_with_friction_and_slumps_without() {
    // wall-stand with 300 requested spheres (343 in whole layers), the projectile removed, for
    // 50 ms: with friction the wall only settles (Hertz compression of rubber under its own
    // weight, below 1 mm); without it, it slumps.
    let mut s = builtin::build("wall-stand", Some(300)).unwrap();
    s.spheres.pop();
    let steps = (0.05 / s.sim.dt).round() as u64;
    let n = s.spheres.len();
    let moved = |s: &Scene| {
        let mut run = sim(s, Backend::Cpu, Precision::F32);
        let a = run.snapshot();
        run.step(steps).unwrap();
        displacements(&a, &run.snapshot(), 0..n)
    };
    let with = moved(&s);
    let mut slippery = s.clone();
    for sp in &mut slippery.spheres {
        sp.surface.friction = 0.0;
    }
    slippery.planes[0].surface.friction = 0.0;
    let without = moved(&slippery);
    let r = builtin::WALL_RADIUS;
    let loose = |d: &[f64]| d.iter().filter(|&&x| x > 0.2 * r).count();
    eprintln!(
        "50 ms, {n} spheres: median displacement {:e} m with friction ({} moved > 0.2 r), {:e} m \
         without ({} moved > 0.2 r)",
        with[n / 2],
        loose(&with),
        without[n / 2],
        loose(&without)
    );
    // A corner sphere of an inner layer's bottom row rests on fewer spheres and may drop
    // (measured: 4 of 343); the wall stands.
    assert!(
        with[n / 2] < 0.1 * r,
        "median displacement {} m",
        with[n / 2]
    );
    assert!(loose(&with) <= n / 50, "{} spheres fell", loose(&with));
    assert!(
        without[n / 2] > 0.5 * r,
        "frictionless median {} m",
        without[n / 2]
    );
}

#[test]
fn time_step_warning_names_the_contact_time() {
    let s = builtin::build("wall-stand", Some(300)).unwrap();
    assert!(
        s.time_step_warning().is_none(),
        "the scene's own dt is the suggestion"
    );
    let t = s.contact_time().unwrap();
    let mut coarse = s.clone();
    coarse.sim.dt = t.duration / 5.0;
    let w = coarse.time_step_warning().expect("dt = t_c/5 must warn");
    // The library names its field; the CLI, which maps it, names `--dt` (tests/cli.rs).
    assert!(
        w.contains("exceeds t_c/20") && w.contains("`Scene.sim.dt` ="),
        "{w}"
    );
    // The impulse model has no contact time.
    let mut imp = s;
    imp.sim.contact = ContactModel::Impulse;
    assert!(imp.contact_time().is_none() && imp.time_step_warning().is_none());
}

/// The soft-contact stage on the GPU against its CPU twin (f32 both): Hertz with friction on a
/// standing wall hit by the projectile, and in a spherical container.
#[test]
fn hertz_friction_and_containers_agree_with_the_cpu() {
    let Some(contract) = gpu_contract("hertz_friction_and_containers_agree_with_the_cpu") else {
        return;
    };
    let mut wall = builtin::build("wall-stand", Some(200)).unwrap();
    // Bring the projectile to the wall so that the 60 steps include the impact.
    let last = wall.spheres.len() - 1;
    wall.spheres[last].position.x +=
        0.98 * builtin::WALL_PROJECTILE_SPEED * builtin::WALL_STAND_SETTLE;
    for (name, s, steps) in [
        ("wall-stand", wall, 60),
        ("container", container_gas(ContactModel::Hertz), 300),
        (
            "container-impulse",
            container_gas(ContactModel::Impulse),
            300,
        ),
    ] {
        if contract == Contract::Hardware {
            let mut t = Twins::new(&s, contract);
            t.step(steps);
            assert!(
                t.cpu.diagnostics().collisions > 0,
                "{name}: nothing touched"
            );
            t.assert_states(name);
            t.assert_statistics(name);
            continue;
        }
        let mut g = sim(&s, Backend::Gpu, Precision::F32);
        let mut c = sim(&s, Backend::Cpu, Precision::F32);
        g.step(steps).unwrap();
        c.step(steps).unwrap();
        let (dx, dv) = g.snapshot().max_difference(&c.snapshot());
        let (dg, dc) = (g.diagnostics(), c.diagnostics());
        eprintln!(
            "{name}: |dx| {dx:e} m, |dv| {dv:e} m/s; elastic {} vs {} J, dissipated {} vs {} J",
            dg.potential_spring, dc.potential_spring, dg.dissipated, dc.dissipated
        );
        assert!(dx < 1e-6, "{name}: positions differ by {dx} m");
        assert!(dv < 1e-3, "{name}: velocities differ by {dv} m/s");
        let rel = |x: f64, y: f64| (x - y).abs() / y.abs().max(1e-12);
        assert!(rel(dg.kinetic, dc.kinetic) < 1e-4, "{name}: kinetic");
        assert!(
            rel(dg.dissipated, dc.dissipated) < 1e-3,
            "{name}: dissipated"
        );
        assert!(
            (dg.potential_spring - dc.potential_spring).abs() < 1e-3 * dc.kinetic.max(1e-12),
            "{name}: elastic energy"
        );
        assert_eq!(dg.contacts, dc.contacts, "{name}: contacts");
        assert_eq!(dg.collisions, dc.collisions, "{name}: collisions");
        assert!(
            dc.collisions > 0,
            "{name}: nothing touched in {steps} steps"
        );
    }
}

/// Issue 7's acceptance: both backends run box-gas, wall-break (without gravity, and with it in
/// wall-stand) and the spherical container with the Hertz law and friction, and agree.
#[test]
fn every_scene_runs_with_hertz_and_friction_on_both_backends() {
    let Some(contract) = gpu_contract("every_scene_runs_with_hertz_and_friction_on_both_backends")
    else {
        return;
    };
    for (name, gravity) in [
        ("box-gas", false),
        ("wall-break", false),
        ("wall-break", true),
        ("wall-stand", true),
        ("container", true),
    ] {
        let mut s = builtin::build(name, Some(300)).unwrap();
        s.sim.contact = ContactModel::Hertz;
        for sp in &mut s.spheres {
            sp.surface.friction = 0.3;
        }
        for p in &mut s.planes {
            p.surface.friction = 0.3;
        }
        if gravity {
            s.sim.gravity = glam::DVec3::new(0.0, 0.0, -9.81);
        }
        // The engine's suggested step (the scenes' own dt is for impulses).
        s.sim.dt = s.contact_time().unwrap().suggested_dt();
        if contract == Contract::Hardware {
            let mut t = Twins::new(&s, contract);
            while t.cpu.diagnostics().collisions == 0 && t.cpu.steps_done() < 2000 {
                t.step(50);
            }
            t.step(20);
            let label = format!("{name} (gravity {gravity})");
            assert!(t.cpu.diagnostics().collisions > 0, "{label}: no collision");
            t.assert_states(&label);
            t.assert_statistics(&label);
            continue;
        }
        let mut g = sim(&s, Backend::Gpu, Precision::F32);
        let mut c = sim(&s, Backend::Cpu, Precision::F32);
        // Until collisions have happened (the gas and the container start apart), then 20 more.
        while c.diagnostics().collisions == 0 && c.steps_done() < 2000 {
            g.step(50).unwrap();
            c.step(50).unwrap();
        }
        g.step(20).unwrap();
        c.step(20).unwrap();
        let (dx, _) = g.snapshot().max_difference(&c.snapshot());
        let (dg, dc) = (g.diagnostics(), c.diagnostics());
        eprintln!(
            "{name} (gravity {gravity}), {} steps: |dx| {dx:e} m, collisions {} / {}, \
             dissipated {:e} / {:e} J",
            c.steps_done(),
            dg.collisions,
            dc.collisions,
            dg.dissipated,
            dc.dissipated
        );
        assert!(
            dc.collisions > 0,
            "{name}: no collision in {} steps",
            c.steps_done()
        );
        assert!(dx < 1e-6, "{name}: positions differ by {dx} m");
        assert_eq!(dg.contacts, dc.contacts, "{name}: contacts");
        assert_eq!(dg.collisions, dc.collisions, "{name}: collisions");
    }
}

/// A fixed large sphere (id 0) touched by `k` small spheres placed in the 26 directions of a
/// cube's neighbours (at least 35° apart, so the small ones do not touch each other), all at
/// rest with a 10 µm overlap: the large sphere owns every contact (lower id).
fn crowded(k: usize) -> Scene {
    use spheresim::validate::{fixed, rubbery, scene, soft, sphere};
    let (big, r) = (0.1, 0.02);
    let mut spheres = vec![fixed(DVec3::ZERO, big)];
    let directions = (-1..=1)
        .flat_map(|x| (-1..=1).flat_map(move |y| (-1..=1).map(move |z| (x, y, z))))
        .filter(|&d| d != (0, 0, 0))
        .map(|(x, y, z)| DVec3::new(x as f64, y as f64, z as f64).normalize());
    for d in directions.take(k) {
        spheres.push(sphere(d * (big + r - 1e-5), DVec3::ZERO, r, 0.01, 0.7));
    }
    let s = scene("crowded", spheres, vec![], 1e-5, 5, |_| {});
    soft(s, ContactModel::Hertz, rubbery(0.5))
}

/// Both backends keep the friction history on their neighbour lists: a sphere owning 26
/// contacts (more than the 16 slots a sphere once had on the GPU) drops none, and the GPU
/// steps it bit for bit as the CPU does.
#[test]
fn friction_history_of_a_crowded_sphere_is_kept_on_both_backends() {
    let steps = 5;
    for k in [16, 26] {
        let s = crowded(k);
        let mut c = sim(&s, Backend::Cpu, Precision::F32);
        c.step(steps).unwrap();
        let d = c.diagnostics();
        // The 10 µm overlaps hold for 5 steps of 10 µs (the spheres move ~1e-9 m).
        assert_eq!(d.contacts, k as u64, "CPU, k = {k}");
        assert_eq!(d.friction_history_dropped, 0, "CPU, k = {k}");
        if let Some(contract) = gpu_contract("friction_history_of_a_crowded_sphere_is_kept") {
            let mut t = Twins::new(&s, contract);
            t.step(steps);
            let dg = t.gpu.diagnostics();
            assert_eq!(dg.contacts, k as u64, "GPU, k = {k}");
            assert_eq!(dg.friction_history_dropped, 0, "GPU, k = {k}");
            t.assert_states(&format!("GPU against CPU, k = {k}"));
        }
    }
}

/// A fixed sphere (id 0, r = 0.1 m) touched by `k` small spheres (r = 5 mm) on a Fibonacci
/// lattice over its surface (about 30 mm apart for k = 150, so the small ones do not touch
/// each other), each overlapping it by 10 µm and sliding along it at 1 cm/s.
fn crowded_sliding(k: usize) -> Scene {
    use spheresim::validate::{fixed, rubbery, scene, soft, sphere};
    let (big, r) = (0.1, 0.005);
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let mut spheres = vec![fixed(DVec3::ZERO, big)];
    for i in 0..k {
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / k as f64;
        let (s, phi) = ((1.0 - z * z).sqrt(), golden * i as f64);
        let n = DVec3::new(s * phi.cos(), s * phi.sin(), z);
        let t = n.any_orthonormal_vector();
        spheres.push(sphere(n * (big + r - 1e-5), t * 0.01, r, 1e-3, 0.7));
    }
    let s = scene("crowded-sliding", spheres, vec![], 1e-5, 20, |_| {});
    soft(s, ContactModel::Hertz, rubbery(0.5))
}

/// One sphere owning 150 frictional contacts: every contact keeps its tangential spring, so each
/// small sphere moves exactly as it does alone with the fixed sphere (the pair is evaluated
/// from the same two bodies; with a history dropped it would restart its spring and differ), on
/// the CPU and on the GPU.
#[test]
fn a_sphere_with_150_frictional_contacts_keeps_every_history() {
    let k = 150;
    let s = crowded_sliding(k);
    let steps = s.sim.steps;
    let mut backends = vec![Backend::Cpu];
    if gpu_available() {
        backends.push(Backend::Gpu);
    }
    for backend in backends {
        let mut all = sim(&s, backend, Precision::F32);
        all.step(steps).unwrap();
        let d = all.diagnostics();
        assert_eq!(d.contacts, k as u64, "{backend:?}");
        assert_eq!(d.friction_history_dropped, 0, "{backend:?}");
        let crowd = all.snapshot();
        let mut differs_from_frictionless = 0;
        for i in (1..=k).step_by(7) {
            let mut alone = s.clone();
            alone.spheres = vec![s.spheres[0].clone(), s.spheres[i].clone()];
            let mut one = sim(&alone, backend, Precision::F32);
            one.step(steps).unwrap();
            let o = one.snapshot();
            assert_eq!(
                crowd.velocity[i], o.velocity[1],
                "{backend:?}, sphere {i}: velocity"
            );
            assert_eq!(
                crowd.position[i], o.position[1],
                "{backend:?}, sphere {i}: position"
            );
            // Friction acts: without it the sphere keeps more of its sliding speed.
            let mut slick = alone.clone();
            for sp in &mut slick.spheres {
                sp.surface.friction = 0.0;
            }
            let mut free = sim(&slick, backend, Precision::F32);
            free.step(steps).unwrap();
            let f = free.snapshot();
            differs_from_frictionless += (f.velocity[1] != o.velocity[1]) as usize;
        }
        assert_eq!(differs_from_frictionless, k.div_ceil(7), "{backend:?}");
    }
}

/// Several large spheres of different sizes at once, GPU against CPU (f32): a bed of 600 small
/// spheres on a floor under gravity, a large sphere (r = 0.4 m) falling onto it and two
/// projectiles of other sizes (r = 0.25 m and 0.15 m) fired into it from the sides, each starting
/// 5 mm away, so that within the compared 30 ms the large spheres plough into the bed. Both the
/// impulse model and Hertz with friction agree bit for bit here. (The impulse model did not, until
/// `cpu::collide::apply` and its WGSL twin added a pair's position change in two statements:
/// written as one, lavapipe's shader summed in another order, and a small sphere under the
/// falling large sphere got a push one ulp apart after 85 steps, which the bed's chaos spread.)
#[test]
fn several_large_spheres_of_different_sizes_agree_with_the_cpu() {
    use common::{plane, sphere};
    let Some(contract) =
        gpu_contract("several_large_spheres_of_different_sizes_agree_with_the_cpu")
    else {
        return;
    };
    let r = 0.05;
    let mut spheres = Vec::new();
    for i in 0..20 {
        for j in 0..10 {
            for k in 0..3 {
                // A loose lattice, lightly staggered, resting just above the floor.
                let x = -1.0 + 0.105 * i as f64 + 0.01 * (k % 2) as f64;
                let y = -0.5 + 0.105 * j as f64;
                let z = r + 0.001 + 0.102 * k as f64;
                spheres.push(sphere(DVec3::new(x, y, z), DVec3::ZERO, r, 0.01, 0.5));
            }
        }
    }
    let top = 0.051 + 0.204 + r;
    let (left, right) = (-1.0 - r, -1.0 + 0.105 * 19.0 + 0.01 + r);
    let big = |x: DVec3, v: DVec3, radius: f64, m: f64| sphere(x, v, radius, m, 0.5);
    spheres.push(big(
        DVec3::new(0.0, 0.0, top + 0.405),
        DVec3::new(0.0, 0.0, -2.0),
        0.4,
        2.0,
    ));
    spheres.push(big(
        DVec3::new(left - 0.255, 0.0, 0.26),
        DVec3::new(6.0, 0.0, 0.0),
        0.25,
        0.8,
    ));
    spheres.push(big(
        DVec3::new(right + 0.155, 0.1, 0.16),
        DVec3::new(-6.0, 0.0, 0.0),
        0.15,
        0.3,
    ));
    let floor = plane(DVec3::ZERO, DVec3::Z, 0.5);
    for model in [ContactModel::Hertz, ContactModel::Impulse] {
        let mut s = common::scene(
            spheres.clone(),
            vec![floor.clone()],
            common::params(2e-4, 1),
        );
        s.sim.gravity = DVec3::new(0.0, 0.0, -9.81);
        s.sim.contact = model;
        if model == ContactModel::Hertz {
            for sp in &mut s.spheres {
                sp.surface.friction = 0.3;
            }
            s.planes[0].surface.friction = 0.3;
            s.sim.dt = s.contact_time().unwrap().suggested_dt();
        }
        let steps = (0.03 / s.sim.dt) as u64;
        let mut t = Twins::new(&s, contract);
        t.step(steps);
        let (g, c) = (&mut t.gpu, &mut t.cpu);
        let (gs, cs) = (g.snapshot(), c.snapshot());
        let (dx, dv) = gs.max_difference(&cs);
        let (dg, dc) = (g.diagnostics(), c.diagnostics());
        eprintln!(
            "{model:?}: {steps} steps, |dx| {dx:e} m, |dv| {dv:e} m/s, collisions {} / {}",
            dg.collisions, dc.collisions
        );
        let n = s.spheres.len();
        for i in n - 3..n {
            let v0 = s.spheres[i].velocity;
            let (vg, vc) = (gs.velocity[i], cs.velocity[i]);
            eprintln!("  large sphere {i}: v {vc} m/s on the CPU, {vg} on the GPU");
            // It ploughed into the bed: its velocity changed by a tenth of its speed or more.
            assert!(
                (vc - v0).length() > 0.1 * v0.length(),
                "{model:?}: sphere {i} hit nothing"
            );
        }
        if contract == Contract::Hardware {
            t.assert_states(&format!("{model:?}"));
            t.assert_statistics(&format!("{model:?}"));
            continue;
        }
        assert_eq!(dg.collisions, dc.collisions, "{model:?}: collisions");
        assert_eq!(dg.contacts, dc.contacts, "{model:?}: contacts");
        assert!(dx < 1e-6, "{model:?}: positions differ by {dx} m");
        assert!(dv < 1e-4, "{model:?}: velocities differ by {dv} m/s");
    }
}

/// Steel, rubber and glass balls dropped on a steel plane: the time-step check sees the
/// stiffest contact (a steel ball on the steel plane), not the lightest sphere's (issue 36,
/// item 2), and at its suggestion the drop keeps its energy balance.
#[test]
fn time_step_check_sees_the_stiffest_material_pair() {
    let text = r#"
        [simulation]
        dt = 1e-3
        steps = 1
        gravity = [0.0, -9.81, 0.0]
        contact = "hertz"

        [[particle]]
        position = [-0.3, 0.5, 0.0]
        radius = 0.05
        material = "steel"

        [[particle]]
        position = [0.0, 0.5, 0.0]
        radius = 0.05
        material = "rubber"

        [[particle]]
        position = [0.3, 0.5, 0.0]
        radius = 0.05
        material = "glass"

        [[plane]]
        point = [0.0, 0.0, 0.0]
        normal = [0.0, 1.0, 0.0]
        material = "steel"
    "#;
    let s = Scene::from_toml_str(text, "mixed").unwrap();
    let t = s.contact_time().expect("a Hertz scene has a contact time");
    // The steel ball on the steel plane, from the law itself at the check's approach speed.
    let steel = &s.spheres[0];
    let plane = &s.planes[0];
    let steel_on_steel = spheresim::physics::hertz::contact_duration(
        steel.mass,
        steel.radius,
        spheresim::physics::hertz::effective_modulus(
            steel.surface.compliance(),
            plane.surface.compliance(),
        ),
        t.speed,
    );
    assert!(
        t.duration <= steel_on_steel * (1.0 + 1e-12),
        "the check's shortest contact {:e} s is longer than a steel ball on the steel plane, \
         {steel_on_steel:e} s",
        t.duration
    );
    // The rubber ball's contacts are the longest: a dt that resolves them must still warn.
    let rubber = &s.spheres[1];
    let rubber_on_steel = spheresim::physics::hertz::contact_duration(
        rubber.mass,
        rubber.radius,
        spheresim::physics::hertz::effective_modulus(
            rubber.surface.compliance(),
            plane.surface.compliance(),
        ),
        t.speed,
    );
    let mut coarse = s.clone();
    coarse.sim.dt = rubber_on_steel / 20.0;
    let w = coarse
        .time_step_warning()
        .expect("dt = the rubber contact's t_c/20 must warn: the steel contact is shorter");
    // The glass ball, lighter than the steel one and nearly as stiff, on the steel plane.
    assert!(
        w.contains("sphere 2 (glass") && w.contains("against a wall"),
        "{w}"
    );
    // At the suggestion the drop and its bounces keep (E + dissipated) to a few per cent.
    let mut fine = s.clone();
    fine.sim.dt = t.suggested_dt();
    assert!(fine.time_step_warning().is_none());
    let mut sim = Simulation::new(&fine, Backend::Cpu, Precision::F64).unwrap();
    let d0 = sim.diagnostics();
    sim.step((0.6 / fine.sim.dt) as u64).unwrap();
    let d1 = sim.diagnostics();
    let drift = d1.energy_balance_change_relative(&d0);
    assert!(
        drift.abs() < 0.05,
        "energy balance drifted by {drift:+.3e} of the energy scale at dt = {:e} s",
        fine.sim.dt
    );
}
