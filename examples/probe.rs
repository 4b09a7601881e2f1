use spheresim::{Backend, Precision, Simulation, scene::builtin};
fn main() {
    let name = std::env::args().nth(1).unwrap_or("wall-break".into());
    let n: usize = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(100_000);
    let steps: u64 = std::env::args()
        .nth(3)
        .map(|s| s.parse().unwrap())
        .unwrap_or(100);
    let scene = builtin::build(&name, Some(n)).unwrap();
    let t = std::time::Instant::now();
    let mut sim = Simulation::new(&scene, Backend::Cpu, Precision::F32).unwrap();
    let d0 = sim.diagnostics();
    eprintln!("setup {:.2}s", t.elapsed().as_secs_f64());
    let t = std::time::Instant::now();
    sim.step(steps).unwrap();
    let s = t.elapsed().as_secs_f64();
    let d1 = sim.diagnostics();
    eprintln!("{:?}", sim.stage_seconds());
    eprintln!(
        "{} spheres {} steps {:.2}s = {:.3e} p-steps/s; collisions {} contacts {}; KE {:.4e} -> {:.4e}; p {:?} -> {:?}",
        n,
        steps,
        s,
        n as f64 * steps as f64 / s,
        d1.collisions,
        d1.contacts,
        d0.kinetic,
        d1.kinetic,
        d0.momentum,
        d1.momentum
    );
}
