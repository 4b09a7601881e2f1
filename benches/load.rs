//! Criterion bench (`cargo bench --features bench --bench load`): loading a scene file of 10⁵ `[[particle]]`
//! tables (7 MB of TOML), parsed and checked as `spheresim run` loads it. Loading must scale with
//! the file's size: counting lines from the start for every table once made 16 000 tables take
//! 20 s and 10⁵ more than two minutes (issue 36).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use spheresim::scene::SceneFile;
use std::hint::black_box;

/// Spheres (tables) in the scene.
const TABLES: usize = 100_000;

fn scene_text(n: usize) -> String {
    let mut s = String::from("[simulation]\nsteps = 1\n\n");
    for i in 0..n {
        s.push_str(&format!(
            "[[particle]]\nposition = [{}.0, 0.0, 0.0]\nradius = 1.0\nmass = 1.0\n\n",
            3 * i
        ));
    }
    s
}

fn load(c: &mut Criterion) {
    let text = scene_text(TABLES);
    let mut g = c.benchmark_group("load");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("particle_tables_1e5", |b| {
        b.iter(|| {
            let f = SceneFile::from_toml_str(black_box(&text), "many").expect("valid scene");
            assert_eq!(f.scene.spheres.len(), TABLES);
            f
        })
    });
    g.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
