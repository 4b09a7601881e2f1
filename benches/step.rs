//! Criterion benches (`cargo bench --features bench`): whole steps by backend, scene and sphere
//! count, and mutual gravity alone (throughput in pair interactions). GPU groups run on the adapter wgpu finds
//! (Mesa's lavapipe on a machine without a GPU: slow, so the sizes are small); without one they
//! print why and are left out. `spheresim bench` covers larger sizes and per-stage times.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spheresim::cpu::gravity::gravity as cpu_gravity;
use spheresim::gpu::{GpuBackend, GpuContext, GpuOptions};
use spheresim::scene::builtin;
use spheresim::{Backend, Precision, Simulation};
use std::hint::black_box;

fn gpu_adapter() -> bool {
    match GpuContext::new() {
        Ok(_) => true,
        Err(e) => {
            eprintln!("GPU benches left out: {e}");
            false
        }
    }
}

fn step(c: &mut Criterion, backend: Backend, group: &str, sizes: &[(&str, usize)]) {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    for &(scene, n) in sizes {
        let s = builtin::build(scene, Some(n)).expect("built-in scene");
        let mut sim = Simulation::new(&s, backend, Precision::F32).expect("backend");
        g.throughput(Throughput::Elements(s.spheres.len() as u64));
        // `step` returns when the work is done (the GPU backend waits for its submission).
        g.bench_function(BenchmarkId::new(scene, n), |b| {
            b.iter(|| sim.step(black_box(1)).expect("finite"))
        });
    }
    g.finish();
}

fn cpu_step(c: &mut Criterion) {
    step(
        c,
        Backend::Cpu,
        "cpu_step",
        &[
            ("box-gas", 10_000),
            ("box-gas", 100_000),
            ("wall-break", 10_000),
            ("wall-break", 100_000),
        ],
    );
}

fn gpu_step(c: &mut Criterion) {
    if gpu_adapter() {
        step(
            c,
            Backend::Gpu,
            "gpu_step",
            &[("box-gas", 10_000), ("wall-break", 10_000)],
        );
    }
}

/// The direct sum alone: the CPU stage function, and the GPU stage dispatched by itself.
fn gravity(c: &mut Criterion) {
    let mut g = c.benchmark_group("gravity");
    g.sample_size(10);
    let gpu = gpu_adapter();
    for n in [1_000, 4_000] {
        let s = builtin::build("orbits", Some(n)).expect("built-in scene");
        let n = s.spheres.len();
        g.throughput(Throughput::Elements((n * (n - 1)) as u64));
        let pos: Vec<glam::Vec3> = s.spheres.iter().map(|p| p.position.as_vec3()).collect();
        let mass: Vec<f32> = s.spheres.iter().map(|p| p.mass as f32).collect();
        let (gc, eps2) = (
            s.sim.g_const as f32,
            (s.sim.softening * s.sim.softening) as f32,
        );
        let mut a = vec![glam::Vec3::ZERO; n];
        g.bench_function(BenchmarkId::new("cpu", n), |b| {
            b.iter(|| cpu_gravity::<f32>(black_box(&pos), &mass, gc, eps2, &mut a))
        });
        if gpu {
            let mut backend = GpuBackend::new(&s, GpuOptions::default()).expect("GPU backend");
            g.bench_function(BenchmarkId::new("gpu", n), |b| {
                b.iter(|| assert!(backend.gravity_only(1)))
            });
        }
    }
    g.finish();
}

/// The tree alone (build and walk, θ = 0.5) on the Plummer sphere, on every CPU thread;
/// throughput in bodies.
fn gravity_tree(c: &mut Criterion) {
    let mut g = c.benchmark_group("gravity_tree");
    g.sample_size(10);
    for n in [10_000, 100_000] {
        let s = builtin::build("plummer", Some(n)).expect("built-in scene");
        g.throughput(Throughput::Elements(n as u64));
        let pos: Vec<glam::Vec3> = s.spheres.iter().map(|p| p.position.as_vec3()).collect();
        let mass: Vec<f32> = s.spheres.iter().map(|p| p.mass as f32).collect();
        let eps2 = (s.sim.softening * s.sim.softening) as f32;
        let mut a = vec![glam::Vec3::ZERO; n];
        let mut tree = spheresim::cpu::tree::Tree::<f32>::new();
        g.bench_function(BenchmarkId::new("cpu", n), |b| {
            b.iter(|| tree.accelerations(black_box(&pos), &mass, 0.5, 1.0, eps2, &mut a))
        });
    }
    g.finish();
}

criterion_group!(benches, cpu_step, gpu_step, gravity, gravity_tree);
criterion_main!(benches);
