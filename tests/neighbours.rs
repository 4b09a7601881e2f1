//! The neighbour list on the CPU (`cpu::neighbours`): its safety invariant against a
//! brute-force O(N²) search, its rebuild schedule, and agreement with a list rebuilt every step,
//! for the soft laws and the impulse model.

mod common;

use common::{fixed, scene, sphere, spring};
use glam::DVec3;
use spheresim::cpu::CpuBackend;
use spheresim::scene::{ContactModel, Scene, Surface};
use spheresim::{Backend, Precision, Simulation};

/// A small deterministic generator (64-bit LCG, Knuth's constants), uniform in [0, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` spheres of radius 10–20 mm at up to 3 m/s in a 0.6 m box, a large sphere (r = 0.1 m,
/// moving at 2 m/s) and a fixed one in it, spring–dashpot contact, dt = 1 ms: a sphere moves up
/// to 3 mm a step, so with a 12 mm skin the list lasts two steps or more, and the spheres
/// close gaps of several millimetres between rebuilds.
fn fast_gas(n: usize, seed: u64, friction: f64) -> Scene {
    let mut rng = Lcg(seed);
    let mut spheres = vec![
        sphere(DVec3::splat(0.3), DVec3::new(2.0, -1.0, 0.5), 0.1, 2.0, 0.8),
        fixed(DVec3::new(0.1, 0.1, 0.5), 0.03),
    ];
    while spheres.len() < n + 2 {
        let r = 0.01 + 0.01 * rng.next();
        let x = DVec3::new(rng.next(), rng.next(), rng.next()) * (0.6 - 2.0 * r) + DVec3::splat(r);
        if spheres
            .iter()
            .any(|s| (s.position - x).length() < s.radius + r)
        {
            continue;
        }
        let v = (DVec3::new(rng.next(), rng.next(), rng.next()) - 0.5) * 6.0 / 3f64.sqrt();
        spheres.push(sphere(x, v, r, 1e-3 * (r / 0.01).powi(3), 0.8));
    }
    let surface = Surface {
        friction,
        ..Surface::default()
    };
    let mut s = scene(
        spheres,
        Scene::box_planes(DVec3::ZERO, DVec3::splat(0.6), 0.8, surface).to_vec(),
        spring(1e-3, 200, 2e3),
    );
    s.sim.surface = surface;
    for sp in &mut s.spheres {
        sp.surface = surface;
    }
    s.sim.skin = Some(0.012);
    s
}

/// Runs `s` with the given skin on the CPU in f64 for its steps; its diagnostics and state.
fn run_with_skin(s: &Scene, skin: f64) -> (spheresim::Diagnostics, spheresim::Snapshot) {
    let mut s = s.clone();
    s.sim.skin = Some(skin);
    let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F64).unwrap();
    sim.step(s.sim.steps).unwrap();
    (sim.diagnostics(), sim.snapshot())
}

/// Touching pairs `(a, b)`, `a < b`, of a state, by testing every pair: `|x_b − x_a| ≤ r_a + r_b`
/// (exactly the contact test of the pair force, in f64).
fn touching(position: &[DVec3], radius: &[f64]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for a in 0..position.len() {
        for b in a + 1..position.len() {
            let d = position[b] - position[a];
            let sum = radius[a] + radius[b];
            if d.x * d.x + d.y * d.y + d.z * d.z <= sum * sum {
                out.push((a as u32, b as u32));
            }
        }
    }
    out
}

/// The safety invariant: after every step, every pair that touches at the positions the step's
/// contact forces were computed at (the end of the drift, which the step ends with) is on the
/// list, although the list was built up to several steps earlier. Checked over 200 steps of a
/// fast gas with a large sphere, on three seeds, in f64 (the brute force sees the exact state).
#[test]
fn no_touching_pair_is_ever_missing_from_the_list() {
    for seed in [1, 2, 3] {
        let s = fast_gas(150, seed, 0.0);
        let mut cpu = CpuBackend::<f64>::new(&s);
        let mut touched = 0;
        for step in 1..=s.sim.steps {
            cpu.step().unwrap();
            let snap = cpu.snapshot();
            let listed = cpu.listed_pairs();
            for pair in touching(&snap.position, &snap.radius) {
                touched += 1;
                assert!(
                    listed.binary_search(&pair).is_ok(),
                    "seed {seed}, step {step}: touching pair {pair:?} is not on the list"
                );
            }
        }
        // The check had something to check: contacts happened, and the list was reused.
        assert!(touched > 100, "seed {seed}: only {touched} contact-steps");
        let rebuilds = cpu.rebuilds();
        assert!(
            rebuilds > 10 && rebuilds < s.sim.steps,
            "seed {seed}: {rebuilds} rebuilds in {} steps",
            s.sim.steps
        );
    }
}

/// A skin of 0 rebuilds the list every step; a positive skin rebuilds it only when a sphere has
/// moved half the skin. Both step the same physics: with friction (history carried across the
/// rebuilds) the runs agree to rounding (the forces are summed in another order), and count the
/// same contacts.
#[test]
fn a_skin_changes_the_rebuilds_but_not_the_physics() {
    let mut s = fast_gas(150, 7, 0.4);
    s.sim.steps = 60;
    let run = |skin: f64| run_with_skin(&s, skin);
    let (d0, s0) = run(0.0);
    let (d1, s1) = run(0.012);
    let (d2, s2) = run(0.03);
    assert_eq!(d0.neighbour_rebuilds, 60);
    assert!(d1.neighbour_rebuilds < 60 && d2.neighbour_rebuilds < d1.neighbour_rebuilds);
    for (d, snap) in [(&d1, &s1), (&d2, &s2)] {
        let dx = s0.max_difference(snap).0;
        assert!(
            dx < 1e-9,
            "skin {}: positions differ by {dx} m",
            d.neighbour_rebuilds
        );
        assert_eq!(d.contacts, d0.contacts);
        assert_eq!(d.collisions, d0.collisions);
        let de = (d.dissipated - d0.dissipated).abs() / d0.dissipated;
        assert!(de < 1e-9, "dissipated energy differs by {de}");
    }
    assert!(d0.dissipated > 0.0 && d0.collisions > 10);
}

/// The impulse model on the list: a fast gas (spheres cross up to a third of their radius in a
/// step, and each step's travel counts in the reach) with skins of 0, 4, 30 and 60 mm resolves
/// the same collisions and ends in the same state to rounding. (With 4 mm the skin is smaller
/// than a step's travel, so the reach rests on the travel term.) A pair missing from the list while it
/// can collide within the step would change the collision count (the run rebuilding every step
/// is the grid search of every step).
#[test]
fn impulses_on_the_list_collide_the_same_with_any_skin() {
    for seed in [11, 12] {
        let mut s = fast_gas(150, seed, 0.0);
        s.sim.contact = ContactModel::Impulse;
        s.sim.steps = 150;
        let run = |skin: f64| run_with_skin(&s, skin);
        let (d0, s0) = run(0.0);
        assert_eq!(d0.neighbour_rebuilds, s.sim.steps);
        assert!(
            d0.collisions > 100,
            "seed {seed}: {} collisions",
            d0.collisions
        );
        let mut last = d0.neighbour_rebuilds;
        for skin in [0.004, 0.03, 0.06] {
            let (d, snap) = run(skin);
            eprintln!(
                "seed {seed}, skin {skin}: {} rebuilds, {} collisions",
                d.neighbour_rebuilds, d.collisions
            );
            assert!(d.neighbour_rebuilds <= last, "skin {skin}: {d:?}");
            last = d.neighbour_rebuilds;
            assert_eq!(
                d.collisions, d0.collisions,
                "seed {seed}, skin {skin}: collisions"
            );
            let dx = s0.max_difference(&snap).0;
            assert!(
                dx < 1e-9,
                "seed {seed}, skin {skin}: positions differ by {dx} m"
            );
        }
        assert!(
            last < s.sim.steps / 4,
            "seed {seed}: {last} rebuilds with a 60 mm skin"
        );
    }
}

/// The impulse model's dense case: a 2 000-sphere wall-break through the impact. With the
/// default skin the list is binned in wider cells and its rows are summed in another order than
/// the grid search (skin 0), and the impact amplifies rounding: these are statistics of a
/// chaotic run. Measured spread after 150 steps (2026-11-27, f32 on the CPU) over the skins 0,
/// 0.05 r, r/4 and r: 0.19 J of the 822 J energy scale in total energy (2.3e-4), contacts
/// 2963 to 2996 (1.1 %), collisions 0.3 %. The runs must agree within 2 % in collisions and
/// contacts and 5e-4 of the energy scale in total energy and dissipation; both conserve
/// momentum to 1e-6 of Σ m|v|.
#[test]
fn the_wall_break_with_a_skin_agrees_with_the_grid_search() {
    use spheresim::scene::builtin;
    let mut s = builtin::build("wall-break", Some(2000)).unwrap();
    s.sim.steps = 150;
    let run = |skin: Option<f64>| {
        let mut s = s.clone();
        s.sim.skin = skin;
        let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
        let d0 = sim.diagnostics();
        sim.step(s.sim.steps).unwrap();
        (d0, sim.diagnostics())
    };
    let (start, grid) = run(Some(0.0));
    let (_, list) = run(None);
    eprintln!("grid search: {grid:?}\nlist: {list:?}");
    assert_eq!(grid.neighbour_rebuilds, s.sim.steps);
    assert!(grid.collisions > 1000, "{} collisions", grid.collisions);
    let close = |a: u64, b: u64| (a as f64 - b as f64).abs() <= 0.02 * b as f64;
    assert!(close(list.collisions, grid.collisions), "collisions");
    assert!(close(list.contacts, grid.contacts), "contacts");
    let scale = start.kinetic;
    let total = |d: &spheresim::Diagnostics| d.kinetic + d.potential_uniform;
    assert!((total(&list) - total(&grid)).abs() < 5e-4 * scale, "energy");
    assert!(
        (list.dissipated - grid.dissipated).abs() < 5e-4 * scale,
        "dissipation"
    );
    let p_scale = start.momentum_magnitude_sum;
    for d in [&grid, &list] {
        assert!(
            (d.momentum - start.momentum).length() < 1e-6 * p_scale,
            "momentum"
        );
    }
    assert!((list.momentum - grid.momentum).length() < 1e-6 * p_scale);
}

/// The default skin is 0.6 of the smallest radius (docs/cli.md, `--skin`; a quarter before
/// 2026-11-27); the key and `--skin` replace it, and a negative, non-finite or
/// larger-than-the-largest-diameter skin is refused with the key's name.
#[test]
fn the_skin_defaults_to_six_tenths_of_the_smallest_radius_and_is_checked() {
    let mut s = fast_gas(20, 5, 0.0);
    s.sim.skin = None;
    let r_min = s.spheres.iter().map(|p| p.radius).fold(f64::MAX, f64::min);
    assert_eq!(s.skin(), 0.6 * r_min);
    s.sim.skin = Some(0.0);
    assert_eq!(s.skin(), 0.0);
    let r_max = s.spheres.iter().map(|p| p.radius).fold(0.0, f64::max);
    for bad in [-1e-3, f64::NAN, f64::INFINITY, 2.0 * r_max * 1.001] {
        s.sim.skin = Some(bad);
        let e = s.check(&Default::default()).unwrap_err().to_string();
        assert!(e.contains("skin"), "{e}");
    }
    assert_eq!(s.sim.contact, ContactModel::SpringDashpot);
}

/// The GPU steps from its own neighbour list, which it rebuilds when and as the CPU does: with
/// a skin of 0 (a rebuild every step) and with the default skin the two are twins bit for
/// bit, rebuild for rebuild, with every contact law (wall-stand with Hertz and friction through
/// the projectile's impact; the Hertz gas in a spherical container; impulse gases).
///
/// Hardware contract: states and statistics within f32 rounding of the CPU's; a rebuild is
/// decided by a threshold on the distance moved, so the counts may differ by `COUNT_SLACK`.
#[test]
fn the_gpu_steps_the_cpus_list_bit_for_bit() {
    use common::contract::{COUNT_SLACK, Contract, Twins, gpu_contract};
    use spheresim::scene::builtin;
    let Some(contract) = gpu_contract("the_gpu_steps_the_cpus_list_bit_for_bit") else {
        return;
    };
    let mut wall = builtin::build("wall-stand", Some(200)).unwrap();
    let last = wall.spheres.len() - 1;
    wall.spheres[last].position.x +=
        0.98 * builtin::WALL_PROJECTILE_SPEED * builtin::WALL_STAND_SETTLE;
    let container = spheresim::validate::container_gas(ContactModel::Hertz);
    // Impulses: a gas.
    let impulse_gas = builtin::build("box-gas", Some(400)).unwrap();
    assert_eq!(impulse_gas.sim.contact, ContactModel::Impulse);
    // A gas whose spheres cross up to a diameter in a step: pairs meet mid-step with both
    // ends apart, which only the reach's travel term `|v| dt` lists.
    let mut fast = fast_gas(150, 21, 0.0);
    fast.sim.contact = ContactModel::Impulse;
    fast.sim.dt = 8e-3;
    for (name, s, steps) in [
        ("wall-stand", wall, 60),
        ("container", container, 300),
        ("box-gas", impulse_gas, 60),
        ("fast gas", fast, 60),
    ] {
        for skin in [Some(0.0), None] {
            let mut s = s.clone();
            s.sim.skin = skin;
            let mut t = Twins::new(&s, contract);
            t.step(steps);
            if contract == Contract::Hardware {
                let label = format!("{name}, skin {skin:?}");
                t.assert_states(&label);
                t.assert_statistics(&label);
                let (rg, rc) = (
                    t.gpu.diagnostics().neighbour_rebuilds,
                    t.cpu.diagnostics().neighbour_rebuilds,
                );
                if skin == Some(0.0) {
                    assert_eq!(rg, steps, "{label}: GPU rebuilds");
                }
                assert!(
                    rg.abs_diff(rc) <= COUNT_SLACK,
                    "{label}: rebuilds {rg} / {rc}"
                );
                continue;
            }
            let (g, c) = (&mut t.gpu, &mut t.cpu);
            let (dx, dv) = g.snapshot().max_difference(&c.snapshot());
            let (dg, dc) = (g.diagnostics(), c.diagnostics());
            eprintln!(
                "{name}, skin {skin:?}: |dx| {dx:e} m, |dv| {dv:e} m/s, CPU rebuilds {}",
                dc.neighbour_rebuilds
            );
            assert!(dc.collisions > 0, "{name}: nothing touched");
            assert_eq!(dg.contacts, dc.contacts, "{name}: contacts");
            assert_eq!(
                (dx, dv),
                (0.0, 0.0),
                "{name}, skin {skin:?}: not bit for bit"
            );
            assert_eq!(
                dg.neighbour_rebuilds, dc.neighbour_rebuilds,
                "{name}: rebuilds"
            );
            if skin == Some(0.0) {
                assert_eq!(dc.neighbour_rebuilds, steps);
            } else if name != "fast gas" {
                // (The fast gas outruns the default skin in every step.)
                assert!(dc.neighbour_rebuilds < steps, "{name}: {dc:?}");
            }
        }
    }
}

/// Panics with the first difference when `gpu` is not `cpu`.
fn same(gpu: &[u32], cpu: &[u32], what: &str) {
    if gpu != cpu {
        let k = gpu.iter().zip(cpu).take_while(|(a, b)| a == b).count();
        panic!(
            "{what}: GPU {} entries, CPU {}; first difference at {k}: {:?} against {:?}",
            gpu.len(),
            cpu.len(),
            gpu.get(k),
            cpu.get(k)
        );
    }
}

/// Stage `neighbours` on the GPU builds, from the same binning, the CPU's list exactly: the
/// same rows in the same order, the same links (mirror entry and owner flag), for the soft laws
/// and for impulses (whose sweeps add the step's travel), with and without a skin, with large
/// and fixed spheres; and again after steps, as both last rebuilt it.
#[test]
fn the_gpu_builds_the_cpus_list_exactly() {
    use common::contract::{Contract, gpu_contract, test_gpu_options};
    use spheresim::gpu::GpuOptions;
    use spheresim::scene::builtin;
    let Some(contract) = gpu_contract("the_gpu_builds_the_cpus_list_exactly") else {
        return;
    };
    let mut fast = fast_gas(300, 5, 0.3);
    fast.sim.dt = 4e-3;
    // A spring soft enough for that step (ω dt = 0.8 for the lightest sphere; the scene's 2e3
    // N/m would blow up in a few steps, and the magnitude guard stop the run).
    fast.sim.stiffness = 20.0;
    let mut fast_impulse = fast_gas(300, 6, 0.0);
    fast_impulse.sim.contact = ContactModel::Impulse;
    fast_impulse.sim.dt = 8e-3;
    let wall_break = builtin::build("wall-break", Some(2000)).unwrap();
    // Three more large spheres beside the wall: a box of a few cells, one of more cells than
    // there are small spheres (its walk then tests every small sphere's cell), and a fixed one.
    let mut large = wall_break.clone();
    let r = large.spheres[0].radius;
    let (lo, hi) = large.spheres.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), s| (lo.min(s.position), hi.max(s.position)),
    );
    let centre = 0.5 * (lo + hi);
    for (radius, offset, fixed_too) in [(6.0, 0.3, false), (40.0, 0.5, false), (8.0, -0.4, true)] {
        let mut big = large.spheres[0].clone();
        big.radius = radius * r;
        big.mass *= radius.powi(3);
        big.position = centre
            + DVec3::new(offset, 0.0, 0.0) * (hi - lo).length()
            + DVec3::new(0.0, 0.0, 1.0) * (0.5 * (hi.z - lo.z) + 0.3 * big.radius);
        big.velocity = DVec3::ZERO;
        if fixed_too {
            big = fixed(big.position, big.radius);
        }
        large.spheres.push(big);
    }
    let wall_stand = builtin::build("wall-stand", Some(500)).unwrap();
    let container = spheresim::validate::container_gas(ContactModel::Hertz);
    // More rows than one block of the prefix sum (setup::SCAN_BLOCK), a large sphere's last:
    // list_count's block sums give the rows' offsets.
    let rows = builtin::build("wall-break", Some(3 * spheresim::setup::SCAN_BLOCK)).unwrap();
    for (name, s) in [
        ("rows over three scan blocks (a wall-break)", rows),
        ("fast gas", fast),
        ("fast impulse gas", fast_impulse),
        ("wall-break", wall_break),
        ("wall-break, four large spheres", large),
        ("wall-stand", wall_stand),
        ("container", container),
    ] {
        let mut listed = 0;
        // The large spheres' build also split over many work-groups (one cell or sphere a
        // lane), as at 10^6 spheres.
        let runs: &[Option<u32>] = if name.starts_with("wall-break") {
            &[None, Some(1)]
        } else {
            &[None]
        };
        for (skin, large_run) in [Some(0.0), None, Some(0.02)]
            .into_iter()
            .flat_map(|skin| runs.iter().map(move |&r| (skin, r)))
        {
            let mut s = s.clone();
            s.sim.skin = skin;
            let opts = GpuOptions {
                large_run,
                ..test_gpu_options()
            };
            let mut g =
                Simulation::with_gpu_options(&s, Backend::Gpu, Precision::F32, opts).unwrap();
            let mut c = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
            // Set-up bins and builds on both.
            let mut checks = vec![0];
            // Compared again after steps: the lists of the last rebuild, at the same steps on
            // both. Not under the hardware contract: there the positions after a step differ
            // by rounding, and a sphere within rounding of a cell face or a pair within
            // rounding of the reach is binned or listed on one backend only; the stage itself
            // is compared from the same input, at set-up.
            if contract == Contract::BitForBit {
                checks.extend([1, 10]);
            }
            let mut done = 0;
            for at in checks {
                g.step(at - done).unwrap();
                c.step(at - done).unwrap();
                done = at;
                assert_eq!(g.binning_state(), c.binning_state(), "{name}: binning");
                let (lg, lc) = (g.list_rows(), c.list_rows());
                listed += lc.partner.len();
                let what = format!("{name}, skin {skin:?}, large run {large_run:?}, step {at}");
                same(&lg.start, &lc.start, &format!("{what}: rows"));
                same(&lg.partner, &lc.partner, &format!("{what}: partners"));
                same(&lg.link, &lc.link, &format!("{what}: links"));
                eprintln!(
                    "{name}, skin {skin:?}, step {at}: {} entries",
                    lc.partner.len()
                );
            }
        }
        assert!(listed > 0, "{name}: no pair listed");
    }
}

/// Both backends read their lists with every contact law: a skin the scene gives needs no
/// notice on either.
#[test]
fn a_skin_needs_no_notice_on_either_backend() {
    for model in [ContactModel::Impulse, ContactModel::SpringDashpot] {
        let mut s = fast_gas(20, 9, 0.0);
        s.sim.contact = model;
        let cpu = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
        assert_eq!(cpu.notice(), None);
        if common::gpu_available() {
            let gpu = Simulation::new(&s, Backend::Gpu, Precision::F32).unwrap();
            // A software adapter's notice says only that.
            let software = spheresim::sim::software_notice(&gpu.adapter());
            assert!(
                gpu.notice().is_none_or(|n| n == software),
                "{model:?}: {:?}",
                gpu.notice()
            );
        }
    }
}

/// The GPU's list grows when a build needs more room: at set-up (from 16 entries), and between
/// submissions once a build has filled three quarters of it (from a quarter above set-up's
/// need); either way the run stays the CPU's bit for bit, friction history included. 63 steps
/// are two submissions, 32 and 31: the second, recorded while the first runs, is dropped when
/// the list grows and recorded again, from the state set the first left current (an odd batch
/// would leave the other one).
#[test]
fn the_gpu_list_grows_as_builds_need() {
    use common::contract::{Contract, gpu_contract, test_gpu_options};
    use spheresim::gpu::GpuOptions;
    use spheresim::scene::builtin;
    let Some(contract) = gpu_contract("the_gpu_list_grows_as_builds_need") else {
        return;
    };
    let mut s = builtin::build("wall-stand", Some(500)).unwrap();
    let last = s.spheres.len() - 1;
    s.spheres[last].position.x +=
        0.98 * builtin::WALL_PROJECTILE_SPEED * builtin::WALL_STAND_SETTLE;
    let mut c = Simulation::new(&s, Backend::Cpu, Precision::F32).unwrap();
    let needed = c.list_rows().partner.len() as u32;
    let steps = 63;
    c.step(steps).unwrap();
    for capacity in [16, needed + needed / 4] {
        let opts = GpuOptions {
            list_capacity: Some(capacity),
            ..test_gpu_options()
        };
        let mut g = Simulation::with_gpu_options(&s, Backend::Gpu, Precision::F32, opts).unwrap();
        let at_setup = g.gpu_backend().unwrap().list_capacity();
        g.step(steps).unwrap();
        let after = g.gpu_backend().unwrap().list_capacity();
        eprintln!(
            "{needed} entries needed; capacity {capacity} -> {at_setup} at set-up -> {after}"
        );
        if capacity < needed {
            assert!(at_setup >= needed, "set-up did not grow the list");
        } else {
            assert_eq!(at_setup, capacity);
            assert!(after > capacity, "the step did not grow the list");
        }
        if contract == Contract::Hardware {
            // The same device with the default capacity (no growth), bit for bit.
            let mut whole =
                Simulation::with_gpu_options(&s, Backend::Gpu, Precision::F32, test_gpu_options())
                    .unwrap();
            whole.step(steps).unwrap();
            assert!(g.snapshot() == whole.snapshot(), "capacity {capacity}");
            assert_eq!(g.diagnostics(), whole.diagnostics(), "capacity {capacity}");
            continue;
        }
        assert_eq!(g.snapshot(), c.snapshot(), "capacity {capacity}");
        let (dg, dc) = (g.diagnostics(), c.diagnostics());
        assert_eq!(dg.neighbour_rebuilds, dc.neighbour_rebuilds);
        assert_eq!(dg.contacts, dc.contacts);
    }
}

/// A GPU checkpoint taken after the list grew resumes into a backend set up with the default
/// capacity: the restore takes the saved capacity, and the run goes on bit for bit as the
/// uninterrupted one.
#[test]
fn a_gpu_checkpoint_resumes_with_the_list_it_grew() {
    use spheresim::gpu::GpuOptions;
    use spheresim::scene::builtin;
    if !common::gpu_available() {
        return;
    }
    let mut s = builtin::build("wall-stand", Some(500)).unwrap();
    let last = s.spheres.len() - 1;
    s.spheres[last].position.x +=
        0.98 * builtin::WALL_PROJECTILE_SPEED * builtin::WALL_STAND_SETTLE;
    let small = GpuOptions {
        list_capacity: Some(16),
        ..Default::default()
    };
    let mut whole = Simulation::with_gpu_options(&s, Backend::Gpu, Precision::F32, small).unwrap();
    let mut first = Simulation::with_gpu_options(&s, Backend::Gpu, Precision::F32, small).unwrap();
    whole.step(64).unwrap();
    first.step(32).unwrap();
    let grown = first.gpu_backend().unwrap().list_capacity();
    let default = spheresim::gpu::neighbours::initial_capacity(s.spheres.len() as u32);
    assert_ne!(
        grown, default,
        "the list should have another capacity than the default"
    );
    let state = first.save_state().unwrap();
    let (mut second, notice) = Simulation::resume(
        &s,
        &state,
        first.offsets(),
        &first.diagnostics(),
        Backend::Gpu,
        Precision::F32,
        GpuOptions::default(),
    )
    .unwrap();
    assert_eq!(notice, None);
    assert_eq!(second.gpu_backend().unwrap().list_capacity(), grown);
    second.step(32).unwrap();
    assert_eq!(second.snapshot(), whole.snapshot());
    let (d2, dw) = (second.diagnostics(), whole.diagnostics());
    assert_eq!(d2.neighbour_rebuilds, dw.neighbour_rebuilds);
    assert_eq!(d2.collisions, dw.collisions);
}

/// A halting submission's successor is recorded while the GPU runs it, for as many steps as the
/// planner gives a submission that starts with a rebuild, at most `STEPS_PER_SUBMIT`. Three
/// slow spheres rebuild about every 3 000 steps (skin 6 mm at 2 µm a step); with the
/// rebuild interval unclamped there, every submission after the first rebuild recorded about
/// 3 000 steps ahead and threw them away (2.3× the GPU time of `tests/rotation.rs`'s spinning
/// pairs on lavapipe, and over 70 s on an H200). Recorded steps now stay within one batch a
/// submission of the steps done.
#[test]
fn the_batch_recorded_ahead_is_at_most_one_submission() {
    if !common::gpu_available() {
        return;
    }
    let mut s = spheresim::validate::glancing(ContactModel::Hertz, 3);
    s.sim.skin = Some(0.006);
    let mut g = Simulation::new(&s, Backend::Gpu, Precision::F32).unwrap();
    g.step(4000).unwrap();
    let d = g.diagnostics();
    assert!(d.neighbour_rebuilds >= 1, "no rebuild in 4000 steps");
    let gpu = g.gpu_backend().unwrap();
    let (done, recorded) = (gpu.steps_done(), gpu.steps_recorded());
    let submissions = done.div_ceil(spheresim::gpu::STEPS_PER_SUBMIT);
    assert!(
        recorded <= done + (submissions + 1) * spheresim::gpu::STEPS_PER_SUBMIT,
        "{recorded} steps recorded for {done} done"
    );
}
