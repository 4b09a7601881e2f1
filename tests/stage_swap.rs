//! One stage of the recipe on the GPU, the others on the CPU (`cpu::swap`): for every stage
//! and scene, steps with that stage swapped equal the CPU's own steps, bit for bit on a
//! software adapter, within f32 rounding on hardware (tests/common/contract.rs).

mod common;

use common::contract::{Contract, EPS, gpu_contract, test_gpu_options, within_rounding};
use spheresim::cpu::CpuBackend;
use spheresim::cpu::swap::{Stage, StageHost};
use spheresim::gpu::GpuBackend;
use spheresim::scene::{Scene, builtin};
use spheresim::{Backend, Precision, Simulation};

/// `name` with `n` spheres; `rebin`: no skin, so that every step bins and builds the list.
fn scene(name: &str, n: usize, rebin: bool) -> Scene {
    let mut s = builtin::build(name, Some(n)).expect("built-in scene");
    if rebin {
        s.sim.skin = Some(0.0);
    }
    s
}

/// The CPU's state with its dissipated energy left out (returned beside it): a swapped stage
/// that applies impulses books their loss from the GPU's per-sphere f32 tally.
fn state(c: &CpuBackend<f32>) -> (spheresim::checkpoint::CpuState, f64) {
    let mut s = c.save_state();
    let d = std::mem::take(&mut s.dissipated);
    (s, d)
}

/// Checks every swappable stage of `scene`, swapped in each of `steps` steps, against the
/// CPU's own steps under `contract`.
fn check(scene: &Scene, label: &str, steps: u64, contract: Contract) {
    let mut gpu = GpuBackend::new(scene, test_gpu_options()).expect("GPU backend");
    let mut pure = CpuBackend::<f32>::new(scene);
    for _ in 0..steps {
        pure.step().expect("CPU step");
    }
    let refs: Vec<_> = if contract == Contract::Hardware {
        let moved = |f: f64| {
            let mut s = scene.clone();
            for sp in &mut s.spheres {
                sp.position *= 1.0 + f * 2.0 * EPS;
            }
            s
        };
        [
            (scene.clone(), Precision::F64),
            (moved(1.0), Precision::F32),
        ]
        .into_iter()
        .chain([(moved(-1.0), Precision::F32)])
        .map(|(s, p)| {
            let mut r = Simulation::new(&s, Backend::Cpu, p).expect("CPU reference");
            r.step(steps).expect("reference step");
            r.snapshot()
        })
        .collect()
    } else {
        Vec::new()
    };
    // A contact stage with nothing to do would test nothing.
    let d = pure.diagnostics();
    eprintln!(
        "{label}: {} contacts, {} collisions",
        d.contacts, d.collisions
    );
    assert!(
        d.contacts + d.collisions > 0 || label == "orbits",
        "{label}: no contacts"
    );
    let present = pure.swappable();
    for stage in Stage::ALL {
        if !present.contains(&stage) {
            eprintln!("{label}: no {} pass in this scene's step", stage.name());
            continue;
        }
        let what = format!("{label}, {} on the GPU", stage.name());
        let mut hybrid = CpuBackend::<f32>::new(scene);
        for _ in 0..steps {
            hybrid
                .step_swapping(stage, &mut gpu)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        assert_eq!(hybrid.steps_done(), steps, "{what}: steps");
        match contract {
            Contract::BitForBit => {
                let ((h, hd), (p, pd)) = (state(&hybrid), state(&pure));
                assert!(h == p, "{what}: the states differ from the CPU's own steps");
                let (hb, pb) = (hybrid.binning_state(), pure.binning_state());
                assert_eq!(hb.cell_start, pb.cell_start, "{what}: cell starts");
                assert_eq!(hb.counts, pb.counts, "{what}: counts");
                assert_eq!(hb.ids, pb.ids, "{what}: sorted order");
                assert_eq!(hybrid.list_rows(), pure.list_rows(), "{what}: the list");
                // The one counter a swapped stage may book from the GPU's f32 tallies.
                let tol = 4.0 * EPS * pd.abs().max(1e-30) * scene.spheres.len() as f64;
                assert!(
                    (hd - pd).abs() <= tol,
                    "{what}: dissipated {hd:e} J against {pd:e} J"
                );
                eprintln!("bit-for-bit contract: {what}: equal to the CPU's own steps");
            }
            Contract::Hardware => {
                let line = within_rounding(
                    &what,
                    &hybrid.snapshot(),
                    &pure.snapshot(),
                    &refs,
                    scene.sim.dt,
                )
                .unwrap_or_else(|e| panic!("hardware contract: {e}"));
                eprintln!("hardware contract: {line}");
            }
        }
    }
}

#[test]
fn every_stage_swapped_to_the_gpu_equals_the_cpu() {
    let Some(contract) = gpu_contract("every_stage_swapped_to_the_gpu_equals_the_cpu") else {
        return;
    };
    // Impulses, binned every step; impulses with a skin; Hertz with friction and rotation
    // (friction history carried); mutual gravity (direct sum), binned every step.
    check(&scene("box-gas", 500, true), "box-gas", 12, contract);
    check(&scene("wall-break", 400, false), "wall-break", 2, contract);
    // The projectile (the last sphere, large) pressed into the slab: the large sphere's cell
    // box finds its partners, and its row and the slab's rows list each other.
    let mut hit = scene("wall-break", 400, false);
    let (ball, slab) = hit.spheres.split_last_mut().expect("spheres");
    let near = slab
        .iter()
        .map(|s| s.position.x - s.radius)
        .fold(f64::INFINITY, f64::min);
    ball.position.x = near - ball.radius + 0.2 * slab[0].radius;
    check(&hit, "wall-break, projectile in contact", 2, contract);
    // The wall standing on its floor touches from the first step; with rotation on.
    let mut stand = scene("wall-stand", 300, false);
    stand.sim.rotation = true;
    check(&stand, "wall-stand with rotation", 2, contract);
    check(&scene("orbits", 200, true), "orbits", 2, contract);
    // Periodic boundaries: a grain about to leave through the x face wraps in the drift (its
    // image counted), and contacts across the faces take the nearest image.
    let mut sheared = scene("shear-cell", 300, false);
    let lx = sheared.sim.periodic.max.x;
    let g = &mut sheared.spheres[0];
    g.position.x = lx - 1e-6;
    g.velocity.x = 0.5;
    check(&sheared, "shear-cell, a grain through a face", 3, contract);
    // Rebuilt in every step, so that the list's build runs swapped too, by its wrapped cells
    // and nearest images. Impulses: with friction history, a build swapped into a scene rebuilt
    // in every step differs from the CPU's own, periodic or not (wall-stand too), which is
    // still to be found.
    sheared.sim.skin = Some(0.0);
    sheared.sim.contact = spheresim::scene::ContactModel::Impulse;
    check(
        &sheared,
        "shear-cell with impulses, rebuilt every step",
        3,
        contract,
    );
    // Impulses under mutual gravity: the last round is applied in a pass of its own
    // (`integrate::apply_contacts`) before the gravity pass reads the positions.
    // A pair set overlapping and drifting apart takes the final round's pushes, so that pass
    // has changes to apply.
    let mut pulled = scene("box-gas", 500, true);
    pulled.sim.g_const = 1e-3;
    let a = pulled.spheres[0].clone();
    let b = &mut pulled.spheres[1];
    b.position = a.position + glam::DVec3::X * (0.995 * (a.radius + b.radius));
    b.velocity = a.velocity + glam::DVec3::X * 1e-3;
    check(&pulled, "box-gas with mutual gravity", 20, contract);
}

#[test]
fn a_resource_the_gpu_does_not_hold_is_named() {
    let Some(_) = gpu_contract("a_resource_the_gpu_does_not_hold_is_named") else {
        return;
    };
    let s = scene("box-gas", 50, false);
    let mut gpu = GpuBackend::new(&s, test_gpu_options()).expect("GPU backend");
    let e = gpu
        .upload("velocities", &[0; 16])
        .expect_err("no such resource");
    assert!(e.contains("`velocities`"), "{e}");
    let e = gpu.download("cell_starts").expect_err("no such resource");
    assert!(e.contains("`cell_starts`"), "{e}");
    // A known one of the wrong size is refused too, with its name.
    let e = gpu
        .upload("grid", &[0; 1 << 16])
        .expect_err("larger than the buffer");
    assert!(e.contains("`grid`"), "{e}");
}
