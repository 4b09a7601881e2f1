//! Criterion benches of the CPU reference step (`cargo bench`): whole steps by scene and sphere
//! count, and mutual gravity alone (throughput in interactions).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spheresim::scene::builtin;
use spheresim::{Backend, Precision, Simulation};
use std::hint::black_box;

fn step(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_step");
    g.sample_size(10);
    for (scene, n) in [
        ("box-gas", 10_000),
        ("box-gas", 100_000),
        ("wall-break", 10_000),
        ("wall-break", 100_000),
    ] {
        let s = builtin::build(scene, Some(n)).expect("built-in scene");
        let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F32).expect("cpu backend");
        g.throughput(Throughput::Elements(s.spheres.len() as u64));
        g.bench_function(BenchmarkId::new(scene, n), |b| {
            b.iter(|| sim.step(black_box(1)).expect("finite"))
        });
    }
    g.finish();
}

fn gravity(c: &mut Criterion) {
    let mut g = c.benchmark_group("cpu_gravity");
    g.sample_size(10);
    for n in [1_000, 4_000] {
        let s = builtin::build("orbits", Some(n)).expect("built-in scene");
        let mut sim = Simulation::new(&s, Backend::Cpu, Precision::F32).expect("cpu backend");
        // One step is dominated by the N(N−1) pair interactions of the direct sum.
        g.throughput(Throughput::Elements((n * (n - 1)) as u64));
        g.bench_function(BenchmarkId::new("orbits", n), |b| {
            b.iter(|| sim.step(black_box(1)).expect("finite"))
        });
    }
    g.finish();
}

criterion_group!(benches, step, gravity);
criterion_main!(benches);
