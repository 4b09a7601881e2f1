//! The GPU gravity tree (`gpu::tree`, shaders/tree_*.wgsl, morton, radix_sort, karras) against
//! its CPU twin `cpu::tree` in f32, stage by stage: codes, order, topology, groups and moments
//! bit for bit, and the walk's accelerations in the same order of sums. On lavapipe.

mod common;

use common::contract::{Contract, gpu_contract};

use common::tree_cases::{Lcg, cases};
use glam::Vec3;
use spheresim::cpu::tree::Tree;
use spheresim::gpu::GpuContext;
use spheresim::gpu::tree::{TreeReadback, evaluate};
use spheresim::scene::builtin::plummer_bodies;

fn gpu() -> Option<GpuContext> {
    common::gpu_available().then(|| GpuContext::new().expect("adapter"))
}

/// The contract of the stage-by-stage tests: the integer stages (codes, order, topology,
/// groups) are exact under both; the moments and accelerations are bit for bit on a software
/// adapter, and within `HARDWARE_ULPS` roundings of their scale on a hardware one.
fn contract(test: &str) -> Option<(GpuContext, Contract)> {
    let c = gpu_contract(test)?;
    Some((GpuContext::new().expect("adapter"), c))
}

/// Roundings of a sum's scale allowed to a hardware adapter: a cell sums up to thousands of
/// bodies, but along a tree of depth ≤ 64 in pairs, so each result carries at most one rounding
/// per level that a contraction may change.
const HARDWARE_ULPS: f32 = 64.0;

/// A hardware adapter's walk may differ from the CPU twin's by this fraction of the mean
/// acceleration beyond the opening test's flips: the cells' moments are off by `HARDWARE_ULPS`
/// roundings, and each walk sums a few hundred of them.
const HARDWARE_WALK: f32 = 1e-4;

fn masses(n: usize) -> Vec<f32> {
    (0..n).map(|i| 1.0 + (i % 7) as f32).collect()
}

/// Compares every array of the GPU's tree with the CPU twin's, and the accelerations; returns
/// the largest relative difference of an acceleration (0 when bit-identical).
fn compare(
    name: &str,
    (x, m): (&[Vec3], &[f32]),
    theta: f32,
    eps2: f32,
    gpu: &TreeReadback,
    contract: Contract,
) -> f32 {
    let hardware = contract == Contract::Hardware;
    let n = x.len();
    let mut t = Tree::<f32>::new();
    let mut a = vec![Vec3::ZERO; n];
    t.accelerations(x, m, theta, 1.0, eps2, &mut a);
    assert_eq!(gpu.sorted_codes, t.sorted_codes, "{name}: codes");
    assert_eq!(gpu.order, t.order, "{name}: order");
    assert_eq!(gpu.left, t.left, "{name}: left");
    assert_eq!(gpu.right, t.right, "{name}: right");
    assert_eq!(gpu.first, t.first, "{name}: first");
    assert_eq!(gpu.last, t.last, "{name}: last");
    assert_eq!(gpu.parent, t.parent, "{name}: parent");
    assert_eq!(gpu.escape, t.escape, "{name}: escape");
    assert_eq!(gpu.groups, t.groups, "{name}: groups");
    for (k, (g, c)) in gpu.cells.iter().zip(&t.cells).enumerate() {
        let q = c.quad;
        let cpu = [
            [c.com.x, c.com.y, c.com.z, c.mass],
            [q[0], q[1], q[2], q[3]],
            [q[4], q[5], c.b_max2, 0.0],
            [c.lo.x, c.lo.y, c.lo.z, 0.0],
            [c.hi.x, c.hi.y, c.hi.z, 0.0],
        ];
        if hardware {
            // Moments within f32 rounding of sums over the cell's bodies: each sum may be
            // contracted into fmas, moving it by a rounding per term at most. The terms are
            // built from coordinates as large as `x_s = |com| + extent` (the parallel-axis
            // shifts are differences of such coordinates), so the centre of mass is off by
            // roundings of x_s, the quadrupole by roundings of m x_s². HARDWARE_ULPS roundings
            // of each.
            let ext = (c.hi - c.lo).length().max(f32::MIN_POSITIVE);
            let (m_s, x_s) = (c.mass.abs().max(f32::MIN_POSITIVE), c.com.length() + ext);
            let scales = [
                [x_s, x_s, x_s, m_s],
                [m_s * x_s * x_s; 4],
                // b² = |x − com|²: com off by δ ≤ HARDWARE_ULPS ε x_s moves it by
                // δ (2 b + δ), b ≤ extent; identical points have b = 0 on one side only.
                [
                    m_s * x_s * x_s,
                    m_s * x_s * x_s,
                    x_s * (2.0 * ext + HARDWARE_ULPS * f32::EPSILON * x_s),
                    0.0,
                ],
                [0.0; 4],
                [0.0; 4],
            ];
            for r in 0..5 {
                for j in 0..4 {
                    let tol = HARDWARE_ULPS * f32::EPSILON * scales[r][j];
                    assert!(
                        (g[r][j] - cpu[r][j]).abs() <= tol,
                        "{name}: cell {k}, row {r}, column {j}: {} against {} (±{tol:e})",
                        g[r][j],
                        cpu[r][j]
                    );
                }
            }
            continue;
        }
        let bits = |v: &[[f32; 4]; 5]| v.map(|r| r.map(f32::to_bits));
        assert_eq!(bits(g), bits(&cpu), "{name}: cell {k}");
    }
    let mut worst = 0.0f32;
    let mean = a.iter().map(|v| v.length()).sum::<f32>() / n.max(1) as f32;
    // Hardware contract: a cell's opening radius off by a rounding can flip its opening test
    // for a body at the threshold, which then takes the exact sum or the multipole instead of
    // the other; the difference is of the size of the tree's own error there. Each body's
    // bound: twice the CPU twin's error against the direct sum (in f64), plus HARDWARE_WALK of
    // the mean acceleration.
    let exact = hardware.then(|| {
        let xd: Vec<glam::DVec3> = x.iter().map(|v| v.as_dvec3()).collect();
        let md: Vec<f64> = m.iter().map(|&v| v as f64).collect();
        let mut ad = vec![glam::DVec3::ZERO; n];
        spheresim::cpu::gravity::gravity::<f64>(&xd, &md, 1.0, eps2 as f64, &mut ad);
        ad
    });
    for (i, (g, c)) in gpu.a_mutual.iter().zip(&a).enumerate() {
        let g = Vec3::new(g[0], g[1], g[2]);
        if let Some(exact) = &exact {
            let tree_error = (c.as_dvec3() - exact[i]).length() as f32;
            let bound = 2.0 * tree_error + HARDWARE_WALK * mean;
            let off = (g - *c).length();
            assert!(
                off <= bound,
                "{name}: body {i}: {g} against {c}, off by {off:e} (bound {bound:e}: the tree's \
                 error {tree_error:e})"
            );
            worst = worst.max(off / bound.max(f32::MIN_POSITIVE) * HARDWARE_WALK);
            continue;
        }
        let d = (g - *c).length() / c.length().max(f32::MIN_POSITIVE);
        assert!(
            d.is_finite() || g == *c,
            "{name}: body {i}: {g} against {c}"
        );
        worst = worst.max(if g == *c { 0.0 } else { d });
    }
    worst
}

/// Every stage of the build is exact, on the point sets that stress it (one point, two, three,
/// identical points, a line, two far clumps), and the walk sums in the CPU's order.
#[test]
fn every_tree_stage_matches_its_cpu_twin_bit_for_bit() {
    let Some((ctx, contract)) = contract("every_tree_stage_matches_its_cpu_twin_bit_for_bit")
    else {
        return;
    };
    for (name, x) in cases() {
        let x: Vec<Vec3> = x.iter().map(|p| p.as_vec3()).collect();
        let m = masses(x.len());
        let p: Vec<[f32; 3]> = x.iter().map(|v| v.to_array()).collect();
        let g = evaluate(&ctx, &p, &m, 0.5, 1.0, 1e-6, false);
        let worst = compare(name, (&x, &m), 0.5, 1e-6, &g, contract);
        let allowed = if contract == Contract::Hardware {
            HARDWARE_WALK
        } else {
            0.0
        };
        assert!(
            worst <= allowed,
            "{name}: accelerations differ from the CPU twin's by {worst:e} (allowed {allowed:e})"
        );
    }
}

/// A Plummer sphere of 20 000 bodies, large enough for several sort blocks, bounds levels and
/// a deep tree, at two opening angles and with a massless body among them.
#[test]
fn a_plummer_sphere_gives_the_cpu_twins_tree_and_accelerations() {
    let Some((ctx, contract)) =
        contract("a_plummer_sphere_gives_the_cpu_twins_tree_and_accelerations")
    else {
        return;
    };
    let n = 20_000;
    let x: Vec<Vec3> = plummer_bodies(n, 3)
        .iter()
        .map(|(p, _)| p.as_vec3())
        .collect();
    let mut m = vec![1.0 / n as f32; n];
    m[17] = 0.0;
    let p: Vec<[f32; 3]> = x.iter().map(|v| v.to_array()).collect();
    for theta in [0.5f32, 1.0] {
        let g = evaluate(&ctx, &p, &m, theta, 1.0, 1e-4, false);
        let worst = compare("plummer", (&x, &m), theta, 1e-4, &g, contract);
        let allowed = if contract == Contract::Hardware {
            HARDWARE_WALK
        } else {
            0.0
        };
        assert!(
            worst <= allowed,
            "θ = {theta}: accelerations differ from the CPU twin's by {worst:e} (allowed \
             {allowed:e})"
        );
    }
}

/// The walk's potential (½ G m Φ per body, own leaf left out) sums to the CPU tree's potential
/// energy, to f32 rounding.
#[test]
fn the_gpu_tree_potential_matches_the_cpu_tree() {
    let Some(ctx) = gpu() else { return };
    let mut g = Lcg(11);
    let n = 3000;
    let x: Vec<Vec3> = (0..n)
        .map(|_| Vec3::new(g.next() as f32, g.next() as f32, g.next() as f32))
        .collect();
    let m = masses(n);
    let p: Vec<[f32; 3]> = x.iter().map(|v| v.to_array()).collect();
    let r = evaluate(&ctx, &p, &m, 0.5, 2.0, 1e-4, true);
    let gpu_u: f64 = r.a_mutual.iter().map(|a| a[3] as f64).sum();
    let mut t = Tree::<f32>::new();
    let mut a = vec![Vec3::ZERO; n];
    t.accelerations(&x, &m, 0.5, 2.0, 1e-4, &mut a);
    let cpu_u = t.potential_energy(&x, &m, 0.5, 2.0, 1e-4);
    assert!(cpu_u < 0.0);
    assert!(
        ((gpu_u - cpu_u) / cpu_u).abs() < 1e-5,
        "GPU {gpu_u} J against CPU {cpu_u} J"
    );
    // The pulls of the potential variant are the plain walk's.
    let plain = evaluate(&ctx, &p, &m, 0.5, 2.0, 1e-4, false);
    for (a, b) in r.a_mutual.iter().zip(&plain.a_mutual) {
        assert_eq!(a[..3], b[..3]);
    }
}

/// Whole steps of the built-in tree scenes on the GPU backend against the CPU backend in f32:
/// the same tree, the same sums, so the states agree to the rounding of the integrator's and
/// the contact laws' twins; the potential energy of the diagnostics too.
#[test]
fn tree_scenes_step_on_the_gpu_as_on_the_cpu() {
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    if gpu().is_none() {
        return;
    }
    // (scene, N, steps, tolerance on positions in m, on velocities in m/s)
    for (name, n, steps, tol_x, tol_v) in [
        ("plummer", 3000, 10, 1e-6, 1e-5),
        ("rubble-pile", 2000, 20, 1e-5, 1e-4),
    ] {
        let scene = builtin::build(name, Some(n)).unwrap();
        let mut g = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
        let mut c = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
        g.step(steps).unwrap();
        c.step(steps).unwrap();
        let (dx, dv) = g.snapshot().max_difference(&c.snapshot());
        eprintln!("{name}: after {steps} steps |dx| {dx:e} m, |dv| {dv:e} m/s");
        assert!(dx <= tol_x, "{name}: positions differ by {dx} m");
        assert!(dv <= tol_v, "{name}: velocities differ by {dv} m/s");
        let (dg, dc) = (g.diagnostics(), c.diagnostics());
        let du = (dg.potential_gravity - dc.potential_gravity) / dc.potential_gravity;
        assert!(
            dc.potential_gravity < 0.0 && du.abs() < 1e-5,
            "{name}: potential {} J on the GPU, {} J on the CPU",
            dg.potential_gravity,
            dc.potential_gravity
        );
    }
}

/// The tree's largest buffer (its cells, 80 bytes a body) is held against the adapter's binding
/// limit before anything is allocated, and the error gives the numbers.
#[test]
fn a_tree_too_large_for_the_adapter_is_refused_with_the_numbers() {
    use spheresim::gpu::GpuOptions;
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    if gpu().is_none() {
        return;
    }
    let scene = builtin::build("plummer", Some(5000)).unwrap();
    let opts = GpuOptions {
        max_binding_size: Some(80 * 4000),
        ..Default::default()
    };
    let err = match Simulation::with_gpu_options(&scene, Backend::Gpu, Precision::F32, opts) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    assert!(
        err.contains("gravity tree cells")
            && err.contains("5000 spheres")
            && err.contains("at most 4000 spheres fit"),
        "{err}"
    );
}

/// With at most 4 work-groups along a dispatch dimension every tree stage runs 2-D dispatches
/// (and the walk's indirect one), and the steps are those of the 1-D dispatches bit for bit.
#[test]
fn two_d_dispatches_give_the_same_tree_steps() {
    use spheresim::gpu::GpuOptions;
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    if gpu().is_none() {
        return;
    }
    let scene = builtin::build("plummer", Some(3000)).unwrap();
    let opts = GpuOptions {
        max_workgroups_per_dim: Some(4),
        ..Default::default()
    };
    let mut two_d =
        Simulation::with_gpu_options(&scene, Backend::Gpu, Precision::F32, opts).unwrap();
    let mut one_d = Simulation::new(&scene, Backend::Gpu, Precision::F32).unwrap();
    two_d.step(5).unwrap();
    one_d.step(5).unwrap();
    assert!(two_d.snapshot() == one_d.snapshot());
    assert_eq!(two_d.walk_counts(), one_d.walk_counts());
}
