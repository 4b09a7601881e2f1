//! The Barnes–Hut tree of `cpu::tree`: each stage against a brute-force twin (codes, order,
//! topology and moments exactly or to rounding), then the whole acceleration against the direct
//! sum, within the error the docs state.

mod common;

use common::tree_cases::{Lcg, cases};

use glam::DVec3;
use spheresim::cpu::gravity::gravity;
use spheresim::cpu::tree::karras::NO_NODE;
use spheresim::cpu::tree::morton::{MORTON_BITS, spread_bits};
use spheresim::cpu::tree::{Tree, WalkCounts};
use spheresim::scene::builtin::plummer_bodies;

fn masses(n: usize) -> Vec<f64> {
    (0..n).map(|i| 1.0 + (i % 7) as f64).collect()
}

#[test]
fn spread_bits_interleaves_every_bit() {
    let mut g = Lcg(1);
    for _ in 0..2000 {
        let v = (g.next() * (1u64 << MORTON_BITS) as f64) as u32;
        let mut want = 0u64;
        for k in 0..MORTON_BITS {
            want |= (((v >> k) & 1) as u64) << (3 * k);
        }
        assert_eq!(spread_bits(v), want, "{v:#x}");
    }
    assert_eq!(spread_bits((1 << MORTON_BITS) - 1), 0x1249_2492_4924_9249);
}

/// Codes follow the positions (a body farther along x in the same y–z cell never has a smaller
/// code), the order is `(code, index)` sorted, and the tree is a binary tree whose leaves in
/// depth-first order are the sorted bodies, reached by `left`/`right` and by the stackless
/// `escape` walk alike.
#[test]
fn the_tree_is_a_binary_radix_tree_over_the_sorted_codes() {
    for (name, x) in cases() {
        let n = x.len();
        let mut t = Tree::<f64>::new();
        t.build(&x, &masses(n));
        // Order: a permutation, sorted by (code, index).
        let mut seen = vec![false; n];
        for w in t.order.windows(2) {
            let (a, b) = (w[0] as usize, w[1] as usize);
            assert!((t.codes[a], a) < (t.codes[b], b), "{name}: order");
        }
        for &o in &t.order {
            assert!(
                !std::mem::replace(&mut seen[o as usize], true),
                "{name}: permutation"
            );
        }
        for (s, &o) in t.order.iter().enumerate() {
            assert_eq!(t.sorted_codes[s], t.codes[o as usize]);
        }
        // Recursive depth-first order from the root, with each internal node's range.
        fn dfs(t: &Tree<f64>, node: u32, n: usize, out: &mut Vec<u32>) -> (usize, usize) {
            if node as usize >= n - 1 {
                out.push(node);
                let s = node as usize - (n - 1);
                return (s, s);
            }
            out.push(node);
            let k = node as usize;
            assert_eq!(t.parent[t.left[k] as usize], node);
            assert_eq!(t.parent[t.right[k] as usize], node);
            let (a0, a1) = dfs(t, t.left[k], n, out);
            let (b0, b1) = dfs(t, t.right[k], n, out);
            assert_eq!(a1 + 1, b0, "children ranges are adjacent");
            assert_eq!(t.last[k] as usize, b1);
            // The radix property: the split is where the common prefix of (code, position)
            // keys ends, so both children's keys share more bits than the node's.
            (a0, b1)
        }
        let mut preorder = Vec::new();
        let (first, end) = dfs(&t, 0, n, &mut preorder);
        assert_eq!((first, end), (0, n - 1), "{name}: the root covers all");
        assert_eq!(preorder.len(), 2 * n - 1, "{name}: every node once");
        let leaves: Vec<usize> = preorder
            .iter()
            .filter(|&&r| r as usize >= n - 1)
            .map(|&r| r as usize + 1 - n)
            .collect();
        assert_eq!(
            leaves,
            (0..n).collect::<Vec<_>>(),
            "{name}: leaves in sorted order"
        );
        // The stackless walk that opens every node visits the same preorder.
        let mut walk = Vec::new();
        let mut node = 0u32;
        while node != NO_NODE {
            walk.push(node);
            node = if (node as usize) < n - 1 {
                t.left[node as usize]
            } else {
                t.escape[node as usize]
            };
        }
        assert_eq!(walk, preorder, "{name}: escape pointers");
        assert_eq!(t.parent[0], NO_NODE);
    }
}

/// Each cell's moments against a direct f64 sum over the bodies of its subtree.
#[test]
fn cell_moments_match_sums_over_their_bodies() {
    for (name, x) in cases() {
        let n = x.len();
        let m = masses(n);
        let mut t = Tree::<f64>::new();
        t.build(&x, &m);
        for node in 0..2 * n - 1 {
            let c = &t.cells[node];
            let (first, end) = if node < n - 1 {
                let mut f = node;
                while f < n - 1 {
                    f = t.left[f] as usize;
                }
                (f + 1 - n, t.last[node] as usize)
            } else {
                (node + 1 - n, node + 1 - n)
            };
            let bodies: Vec<usize> = t.order[first..=end].iter().map(|&b| b as usize).collect();
            let mass: f64 = bodies.iter().map(|&b| m[b]).sum();
            let com = bodies.iter().map(|&b| x[b] * m[b]).sum::<DVec3>() / mass;
            let mut q = [0.0; 6];
            let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
            for &b in &bodies {
                let r = x[b] - com;
                let r2 = r.length_squared();
                let comps = [(0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)];
                for (k, (i, j)) in comps.into_iter().enumerate() {
                    q[k] += m[b] * (3.0 * r[i] * r[j] - if i == j { r2 } else { 0.0 });
                }
                lo = lo.min(x[b]);
                hi = hi.max(x[b]);
            }
            let scale = 1e-12 * (1.0 + com.abs().max_element() + (hi - lo).max_element());
            assert!(
                (c.mass - mass).abs() <= 1e-12 * mass,
                "{name} node {node}: mass"
            );
            assert!(
                (c.com - com).abs().max_element() <= scale,
                "{name} node {node}: com"
            );
            let q_scale = mass * (hi - lo).length_squared();
            if node >= n - 1 {
                assert_eq!(c.quad, [0.0; 6], "{name} node {node}: a leaf's Q");
            }
            for k in (0..6).filter(|_| node < n - 1) {
                assert!(
                    (c.quad[k] - q[k]).abs()
                        <= 1e-9 * q_scale + 8.0 * mass * (hi - lo).length() * scale,
                    "{name} node {node}: Q{k}"
                );
            }
            assert_eq!((c.lo, c.hi), (lo, hi), "{name} node {node}: box");
            let far = (com - lo).max(hi - com);
            if node >= n - 1 {
                assert_eq!(c.b_max2, 0.0, "{name} node {node}: a leaf's b_max");
            } else {
                let b2 = far.length_squared();
                // The centre of mass carries rounding of order `scale`; b_max moves with it.
                let tol = 1e-12 * b2 + 4.0 * b2.sqrt() * scale;
                assert!((c.b_max2 - b2).abs() <= tol, "{name} node {node}: b_max");
            }
        }
    }
}

fn direct(x: &[DVec3], m: &[f64], eps2: f64) -> Vec<DVec3> {
    let mut a = vec![DVec3::ZERO; x.len()];
    gravity::<f64>(x, m, 1.0, eps2, &mut a);
    a
}

/// Relative acceleration errors `|a_tree − a_direct| / |a_direct|`, sorted.
fn errors(tree: &[DVec3], exact: &[DVec3]) -> Vec<f64> {
    let mut e: Vec<f64> = tree
        .iter()
        .zip(exact)
        .map(|(a, b)| (*a - *b).length() / b.length())
        .collect();
    e.sort_by(f64::total_cmp);
    e
}

/// With a tiny opening angle every cell is opened: the tree adds every body exactly once, so it
/// equals the direct sum to rounding; for two bodies it adds the same single term.
#[test]
fn a_fully_opened_tree_is_the_direct_sum() {
    for (name, x) in cases() {
        let n = x.len();
        let m = masses(n);
        for eps2 in [0.0, 1e-4] {
            let mut a = vec![DVec3::ZERO; n];
            let mut t = Tree::<f64>::new();
            let c = t.accelerations(&x, &m, 1e-6, 1.0, eps2, &mut a);
            assert_eq!(c.walks, n as u64);
            let exact = direct(&x, &m, eps2);
            for i in 0..n {
                let tol = 1e-12 * exact[i].length().max(1e-300);
                assert!(a[i].is_finite(), "{name}: finite");
                if n <= 2 {
                    assert_eq!(a[i], exact[i], "{name} eps2 {eps2} body {i}");
                } else if name != "same point" {
                    assert!(
                        (a[i] - exact[i]).length() <= tol,
                        "{name} {i}: {} {}",
                        a[i],
                        exact[i]
                    );
                } else {
                    assert_eq!(a[i], DVec3::ZERO);
                }
            }
        }
    }
}

/// The relative acceleration error on a Plummer sphere of 10⁴ bodies (f64, ε = 0.01), within
/// the tolerances docs/gravity-tree.md states: at θ = 0.5 median ≤ 7.5×10⁻⁴ and 99th
/// percentile ≤ 7×10⁻³; the goal (3×10⁻⁴, 3×10⁻³) at θ = 0.25. The error grows with θ.
#[test]
fn the_tree_error_on_a_plummer_sphere_is_within_the_stated_goal() {
    let bodies = plummer_bodies(10_000, 11);
    let x: Vec<DVec3> = bodies.iter().map(|b| b.0).collect();
    let m = vec![1e-4; x.len()];
    let exact = direct(&x, &m, 1e-4);
    let mut t = Tree::<f64>::new();
    let mut previous = 0.0;
    for theta in [0.25, 0.3, 0.5, 0.7, 1.0] {
        let mut a = vec![DVec3::ZERO; x.len()];
        let c: WalkCounts = t.accelerations(&x, &m, theta, 1.0, 1e-4, &mut a);
        let e = errors(&a, &exact);
        let (median, p99) = (e[e.len() / 2], e[e.len() * 99 / 100]);
        eprintln!(
            "θ {theta}: median {median:.2e} p99 {p99:.2e} max {:.2e}, {:.0} interactions/body (max {})",
            e[e.len() - 1],
            c.mean(),
            c.max
        );
        let (median_tol, p99_tol) = match theta {
            0.25 => (3e-4, 3e-3),
            0.5 => (7.5e-4, 7e-3),
            _ => (1.0, 1.0),
        };
        assert!(
            median <= median_tol && p99 <= p99_tol,
            "θ {theta}: median {median:e}, p99 {p99:e}"
        );
        assert!(median > previous, "the error grows with θ");
        assert!(
            c.mean() < x.len() as f64 / 2.0,
            "the tree does less work than the direct sum"
        );
        previous = median;
    }
}

/// The tree's potential energy, fully opened, is the direct pair sum's.
#[test]
fn the_tree_potential_energy_matches_the_direct_sum() {
    use spheresim::cpu::diagnostics::gravity_potential;
    for (name, x) in cases() {
        let m = masses(x.len());
        let mut t = Tree::<f64>::new();
        t.build(&x, &m);
        for eps2 in [1e-4, 0.0] {
            let u = t.potential_energy(&x, &m, 1e-6, 2.0, eps2);
            let want = gravity_potential::<f64>(&x, &m, 2.0, eps2);
            if name == "same point" && eps2 == 0.0 {
                continue; // coincident point masses: both infinite or skipped alike
            }
            assert!(
                (u - want).abs() <= 1e-12 * want.abs().max(1e-300),
                "{name}: {u} {want}"
            );
        }
    }
}

/// `gravity_solver` and `theta` in a scene file: accepted values, and errors that name the key
/// and the reason.
#[test]
fn scene_keys_gravity_solver_and_theta_are_checked() {
    use spheresim::Scene;
    use spheresim::scene::GravitySolver;
    let text = |sim: &str| {
        format!(
            "[simulation]\n{sim}\n[[particle]]\nposition = [0.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n\
             [[particle]]\nposition = [1.0, 0.0, 0.0]\nradius = 0.1\nmass = 1.0\n"
        )
    };
    let s = Scene::from_toml_str(
        &text("G = 1.0\ngravity_solver = \"tree\"\ntheta = 1.5"),
        "t",
    )
    .unwrap();
    assert_eq!(
        (s.sim.gravity_solver, s.sim.theta),
        (GravitySolver::Tree, 1.5)
    );
    let s = Scene::from_toml_str(&text("G = 1.0"), "t").unwrap();
    assert_eq!(
        (s.sim.gravity_solver, s.sim.theta),
        (GravitySolver::Direct, 0.5)
    );
    for (sim, words) in [
        ("G = 1.0\ntheta = 0.0", &["theta", "(0, 1.5]", "got 0"][..]),
        ("G = 1.0\ntheta = 1.6", &["theta", "1.6"]),
        ("G = 1.0\ntheta = nan", &["theta", "NaN"]),
        ("gravity_solver = \"tree\"", &["gravity_solver", "G"]),
        (
            "G = 1.0\ngravity_solver = \"fmm\"",
            &["fmm", "direct", "tree"],
        ),
    ] {
        let e = Scene::from_toml_str(&text(sim), "t")
            .unwrap_err()
            .to_string();
        for w in words {
            assert!(e.contains(w), "{sim}: `{w}` missing from: {e}");
        }
    }
}

/// A Plummer sphere stepped by the CPU backend with the tree for one crossing time keeps its
/// virial ratio 2K/|W| within 5 % of 1 (2000 bodies, f32); energy is conserved to 1 %.
#[test]
fn a_plummer_sphere_stays_in_virial_equilibrium_for_a_crossing_time() {
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    let scene = builtin::build("plummer", Some(2000)).unwrap();
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    let d0 = sim.diagnostics();
    let ratio = |d: &spheresim::Diagnostics| 2.0 * d.kinetic / d.potential_gravity.abs();
    let mut worst: f64 = (ratio(&d0) - 1.0).abs();
    for _ in 0..8 {
        sim.step(scene.sim.steps / 8).unwrap();
        worst = worst.max((ratio(&sim.diagnostics()) - 1.0).abs());
    }
    let d1 = sim.diagnostics();
    assert!(sim.walk_counts().is_some_and(|c| c.walks == 2000));
    eprintln!(
        "virial ratio {} -> {}, worst |q - 1| {worst}",
        ratio(&d0),
        ratio(&d1)
    );
    assert!(worst <= 0.05, "virial ratio strayed {worst} from 1");
    let (e0, e1) = (d0.total_energy(), d1.total_energy());
    assert!((e1 - e0).abs() <= 0.01 * e0.abs(), "energy {e0} -> {e1}");
}

/// `rubble-pile` at 1000 spheres over its default steps with contact law `contact`: the cloud
/// collapses (radius of gyration below 0.7 of the start) into a bound, colliding pile that spins
/// up as it shrinks (angular momentum kept to `spin_tol`, relative), and the energy ledger
/// (kinetic, gravitational, elastic, dissipated) closes to `ledger_tol` of the energy scale.
fn rubble_pile_collapses(contact: spheresim::scene::ContactModel, spin_tol: f64, ledger_tol: f64) {
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    let mut scene = builtin::build("rubble-pile", Some(1000)).unwrap();
    scene.sim.contact = contact;
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    let gyration = |s: &spheresim::Snapshot| {
        let n = s.position.len() as f64;
        let c = s.position.iter().sum::<DVec3>() / n;
        (s.position
            .iter()
            .map(|x| (*x - c).length_squared())
            .sum::<f64>()
            / n)
            .sqrt()
    };
    let (d0, r0) = (sim.diagnostics(), gyration(&sim.snapshot()));
    sim.step(scene.sim.steps).unwrap();
    let (d1, r1) = (sim.diagnostics(), gyration(&sim.snapshot()));
    eprintln!(
        "{contact:?}: r_g {r0:.3} -> {r1:.3}, E {:.4} -> {:.4}, K {:.2e} -> {:.2e}, collisions {}, balance {:.2e}, L {} -> {}",
        d0.total_energy(),
        d1.total_energy(),
        d0.kinetic,
        d1.kinetic,
        d1.collisions,
        d1.energy_balance_change_relative(&d0),
        d0.angular_momentum,
        d1.angular_momentum
    );
    assert!(r1 < 0.7 * r0, "collapsed: {r0} -> {r1}");
    assert!(
        d1.total_energy() < d0.total_energy() && d1.total_energy() < 0.0,
        "bound"
    );
    assert!(d1.collisions > 1000 && d1.contacts > 500, "colliding");
    assert!(d1.kinetic > d0.kinetic, "spun up");
    let dl = (d1.angular_momentum - d0.angular_momentum).length();
    assert!(
        dl <= spin_tol * d0.angular_momentum.length(),
        "angular momentum changed by {dl}"
    );
    assert!(
        d1.dissipated > 0.1 * d0.total_energy().abs(),
        "the infall's energy was dissipated"
    );
    let balance = d1.energy_balance_change_relative(&d0);
    assert!(balance.abs() <= ledger_tol, "ledger: {balance:e}");
}

/// With the default Hertz law angular momentum is kept to 1 % (frictionless contacts are
/// central; measured 0.09 %), and the ledger closes to 3 % (measured 1.6 %; about the same with
/// the direct sum: the stiff contacts' integration, not the tree, sets it).
#[test]
fn the_rubble_pile_collapses_into_a_bound_pile_and_its_ledger_closes() {
    rubble_pile_collapses(spheresim::scene::ContactModel::Hertz, 0.01, 0.03);
}

/// With impulses the ledger books each contact round's energy change in the sphere's own field
/// (uniform and mutual gravity), so it closes to rounding: measured 1 × 10⁻⁵ over 10⁷ collisions.
/// Booked in the uniform field alone it was off by more than the infall's energy. Angular
/// momentum is kept to 1 % (the overlap pushes turn the pairs' relative velocities, and a pair
/// already touching at the start of a step takes a central impulse: docs/gravity-tree.md; at
/// commit cc8cd7b and earlier that impulse's torque left 1.46 %). Pushes at unchanged
/// velocities (commit 8683198 and earlier) gave ×1.95.
#[test]
fn the_impulse_rubble_pile_closes_its_ledger() {
    rubble_pile_collapses(spheresim::scene::ContactModel::Impulse, 0.01, 1e-4);
}

/// The tree's step is deterministic whatever the thread count: each body's sum runs in its
/// group's list order on one thread, and the moments combine children in a fixed order. A
/// Plummer sphere stepped on one thread and on four gives the same state bit for bit.
#[test]
fn tree_steps_are_bit_identical_on_one_thread_and_on_four() {
    use spheresim::scene::builtin;
    use spheresim::{Backend, Precision, Simulation};
    let scene = builtin::build("plummer", Some(6000)).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
            sim.step(10).unwrap();
            sim.snapshot()
        })
    };
    let (a, b) = (run(1), run(4));
    assert_eq!(a.position, b.position);
    assert_eq!(a.velocity, b.velocity);
}

/// The time-step check counts the infall of a self-gravitating cloud: `rubble-pile`'s own step
/// passes it, and a step 1.5 times longer is warned about (without the infall term the
/// estimate saw only the cloud's slow rotation, 0.42 m/s, and let the longer step pass).
#[test]
fn the_rubble_piles_time_step_check_counts_the_infall() {
    use spheresim::scene::builtin;
    let mut scene = builtin::build("rubble-pile", Some(1000)).unwrap();
    let t = scene.contact_time().unwrap();
    assert!(
        t.speed > 1.5,
        "the estimate's approach speed {} m/s",
        t.speed
    );
    assert!(scene.time_step_warning().is_none());
    scene.sim.dt *= 1.5;
    let w = scene.time_step_warning().expect("a warning");
    assert!(w.contains("exceeds t_c/20"), "{w}");
}
